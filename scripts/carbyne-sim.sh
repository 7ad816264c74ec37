#!/usr/bin/env bash
# Simulator evidence for Carbyne (issue 10 item 6; Carbyne §5, Figs. 10-11):
# Carbyne against DRF, Tetris and SJF on the TPC-DS-like DAG mix (200 DAGs,
# Poisson arrivals, offered load 0.9, 100 nodes; `--generate tpcds --nodes 100`)
# over SEEDS generated workloads (default 20, seeds FIRST.., FIRST default 1),
# with the simulator's default cluster model (AM containers, launch latencies).
#
# Every comparison runs with Carbyne as the baseline, so the "change" columns
# of `compare --seeds` are other ÷ Carbyne − 1: the paper's factor of
# improvement (Eq. 1, duration of an approach ÷ duration of Carbyne) minus 1.
# Jain's difference is other − Carbyne.
#
# The bar (medians over seeds): mean JCT ≥ 1.4× better than DRF, makespan
# ≥ 1.15× better, Jain's index no more than 0.06 below DRF's.
#
# SETS: "main" (the table against drf, tetris, sjf) and "sensitivity"
# (±50 % misestimated task durations and demands, [carbyne] estimate_error =
# ∓0.5; P(Altruism) ∈ {0, 0.5}; P = 1 with no error is the main table).
# Default: both. SENS picks sensitivity settings (default all: "e-0.5 e0.5
# p0.0 p0.5"; also g<P>: P(Altruism) = P with greedy draws not kept to
# their shares, `greedy_within_share = false`; k<P>: P(Altruism) = P with
# T_k recomputed from now at every event, `keep_t_k = false`; c<P>: P(Altruism)
# = P with T_k kept also when the share grew, `commit_t_k = true`);
# CARBYNE_EXTRA adds [carbyne] keys to every Carbyne run (e.g.
# CARBYNE_EXTRA='leftover_holds = 5'); NOBUILD=1 skips the build
# (several instances at once).
set -euo pipefail
cd "$(dirname "$0")/.."
[ -n "${NOBUILD:-}" ] || cargo build --release --quiet --bin shepherd
SENS=${SENS:-e-0.5 e0.5 p0.0 p0.5}
SEEDS=${SEEDS:-20}
FIRST=${FIRST:-1}
SETS=${SETS:-main sensitivity}
BIN=./target/release/shepherd
WORKLOAD=(--generate tpcds --nodes 100)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Reads compare --seeds output (baseline carbyne); prints per other policy
# the median factor (other ÷ carbyne) of mean JCT and makespan, and Jain's
# difference (other − carbyne), then the verdict against DRF.
summarize() {
  awk '
    /^change against/ { f = 1; next }
    /^Jain/ { f = 0; j = 1; next }
    f && $2 == "all" && $1 != "policy" && $1 != "carbyne" {
      m = $5; gsub("%", "", m); k = $8; gsub("%", "", k)
      jct[$1] = 1 + m / 100; mk[$1] = 1 + k / 100; order[++n] = $1
    }
    j && $1 ~ /^jain:/ { p = substr($1, 6); idx[p] = $2; diff[p] = $5 }
    END {
      printf "%-10s %14s %14s %12s %12s\n", "vs", "meanJCT factor", "makespan fac.", "other Jain", "Jain diff"
      for (i = 1; i <= n; i++) {
        p = order[i]
        printf "%-10s %13.2fx %13.2fx %12s %12s\n", p, jct[p], mk[p], idx[p], diff[p]
      }
      printf "%-10s %14s %14s %12s\n", "carbyne", "", "", idx["carbyne"]
      if ("drf" in jct) {
        ok1 = jct["drf"] >= 1.4; ok2 = mk["drf"] >= 1.15; ok3 = diff["drf"] + 0 <= 0.06
        printf "bar vs DRF: mean JCT %.2fx (>= 1.4x: %s), makespan %.2fx (>= 1.15x: %s), Jain carbyne - drf = %+.3f (>= -0.06: %s)\n",
          jct["drf"], ok1 ? "met" : "MISSED", mk["drf"], ok2 ? "met" : "MISSED", -diff["drf"], ok3 ? "met" : "MISSED"
      }
    }'
}

run() { # label, policies, config text
  local config=$3 label=$1
  if [ -n "${CARBYNE_EXTRA:-}" ]; then
    config=${config:-[carbyne]}$'\n'$CARBYNE_EXTRA
    label="$label, $CARBYNE_EXTRA"
  fi
  printf '%s\n' "$config" >"$tmp/c.toml"
  out=$($BIN compare "${WORKLOAD[@]}" --seeds "$SEEDS" --seed "$FIRST" --policies "$2" --baseline carbyne \
    --config "$tmp/c.toml" --no-progress)
  echo "-- $label"
  echo "$out" | summarize
  if [ -n "${VERBOSE:-}" ]; then echo "$out"; fi
}

echo "Carbyne on the TPC-DS-like mix (--generate tpcds --nodes 100), seeds $FIRST..$((FIRST + SEEDS - 1)): medians over seeds"
echo "factor = other ÷ carbyne (>1: carbyne better); Jain diff = other − carbyne"
for set in $SETS; do
  case "$set" in
    main)
      echo
      echo "== main: carbyne (P(Altruism) = 1, exact estimates) vs drf, tetris, sjf"
      run "defaults" drf,tetris,sjf,carbyne ""
      ;;
    sensitivity)
      echo
      echo "== sensitivity (paper Figs. 10-11): against drf"
      for s in $SENS; do
        v=${s:1}
        case "$s" in
          e*) run "estimate_error = $v (durations and demands × $(awk -v e="$v" 'BEGIN{print 1 + e}'))" drf,carbyne $'[carbyne]\nestimate_error = '"$v" ;;
          p*) run "p_altruism = $v" drf,carbyne $'[carbyne]\np_altruism = '"$v" ;;
          g*) run "p_altruism = $v, greedy_within_share = false" drf,carbyne $'[carbyne]\ngreedy_within_share = false\np_altruism = '"$v" ;;
          k*) run "p_altruism = $v, keep_t_k = false" drf,carbyne $'[carbyne]\nkeep_t_k = false\np_altruism = '"$v" ;;
          c*) run "p_altruism = $v, commit_t_k = true" drf,carbyne $'[carbyne]\ncommit_t_k = true\np_altruism = '"$v" ;;
          *) echo "unknown sensitivity setting $s (e<error>, p<probability>, g<probability>, k<probability>, c<probability>)" >&2; exit 2 ;;
        esac
      done
      ;;
    *) echo "unknown set $set (main, sensitivity)" >&2; exit 2 ;;
  esac
done
