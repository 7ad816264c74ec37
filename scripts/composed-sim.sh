#!/usr/bin/env bash
# Simulator evidence for the composed default (issue "Composed policies",
# item 4): `composed` against every single policy that does not read true job
# sizes (fifo, capacity, drf, dress, tetris, las, 3sigma, 3sigma-point; the
# oracle and sjf are bounds, not competitors), over SEEDS generated workloads
# per generator (default 20) and on every example trace.
#
# The bar, per workload: composed's small-job mean JCT and all-job mean JCT are
# at least as good as the best of those policies (the median over seeds of
# other ÷ composed − 1 is ≥ 0 for every one of them), and its makespan is
# within +2 % of the best (other ÷ composed − 1 ≥ −1.96 %).
#
# WORKLOADS: the three the issue names (hibench, tpcds, facebook at 1 000 jobs
# on 40 nodes, "tuned") and ones the default was not tuned on ("unseen").
# Pick with SETS="tuned unseen traces" (default: all three).
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet --bin shepherd
SEEDS=${SEEDS:-20}
SETS=${SETS:-tuned unseen traces}
BIN=./target/release/shepherd
OTHERS=fifo,capacity,drf,dress,tetris,las,3sigma,3sigma-point

tuned=("hibench" "tpcds" "facebook --jobs 1000 --nodes 40")
unseen=("google --nodes 40" "google2019 --nodes 40" "hibench --small-share 0.1 --interval-ms 1000"
  "tpcds --offline" "facebook --jobs 700 --nodes 30 --load 0.9" "hibench-local")
traces=(examples/traces/small.json examples/traces/sls-jobs.json examples/traces/fb-sample.swim
  examples/traces/yarn-hibench-20.json examples/traces/yarn-quick.json)

# Reads "policy category change makespan-change" lines (percent, other vs
# composed) and prints one verdict line per category of interest.
verdict() {
  awk -v w="$1" '
    {
      if (!($2 in who) || $3 + 0 < best[$2]) { best[$2] = $3 + 0; who[$2] = $1 }
      if ($2 == "all" && (mkwho == "" || $4 + 0 < mk)) { mk = $4 + 0; mkwho = $1 }
    }
    END {
      ok = 1; line = ""
      for (c in best) {
        if (c != "all" && c != "small") continue
        pass = best[c] >= 0
        ok = ok && pass
        line = line sprintf("  %s: best other %s %+.1f %%%s", c, who[c], best[c], pass ? "" : " (MISSED)")
      }
      mpass = mk >= -1.96
      ok = ok && mpass
      line = line sprintf("  makespan: best other %s %+.1f %%%s", mkwho, mk, mpass ? "" : " (MISSED)")
      printf "%-48s %s %s\n", w, ok ? "meets the bar" : "misses the bar", line
    }'
}

echo "composed vs the best non-oracle single policy: median over $SEEDS seeds of other ÷ composed − 1"
echo "(≥ 0 = composed at least as good; makespan bar: ≥ −1.96 %, i.e. composed within +2 % of the best)"
summary=""
for set in $SETS; do
  case "$set" in
    tuned) list=("${tuned[@]}") ;;
    unseen) list=("${unseen[@]}") ;;
    traces) list=("${traces[@]}") ;;
    *) echo "unknown set $set (tuned, unseen, traces)" >&2; exit 2 ;;
  esac
  echo
  echo "== $set"
  for w in "${list[@]}"; do
    if [ "$set" = traces ]; then
      # One run per trace; factors are composed ÷ other for times (> 1: other faster).
      out=$($BIN compare --trace "$w" --policies "$OTHERS,composed" --baseline composed --no-progress)
      rows=$(echo "$out" | awk '/^factor/{f=1; next} /^$/{f=0} f && $1 != "policy" && $1 != "composed" {
        gsub("x", "", $4); gsub("x", "", $7); printf "%s %s %.1f %.1f\n", $1, $2, (1 / $4 - 1) * 100, (1 / $7 - 1) * 100 }')
    else
      # shellcheck disable=SC2086
      out=$($BIN compare --generate $w --seeds "$SEEDS" --policies "$OTHERS,composed" --baseline composed --no-progress)
      rows=$(echo "$out" | awk '/^change against/{f=1; next} f && $1 != "policy" && $1 != "composed" {
        gsub("%", "", $5); gsub("%", "", $8); print $1, $2, $5, $8 }')
    fi
    line=$(echo "$rows" | verdict "$w")
    echo "$line"
    summary+="$line"$'\n'
  done
done
echo
echo "== summary"
printf '%s' "$summary" | awk '{print ($0 ~ /misses/ ? "MISS " : "ok   ") $0}'
