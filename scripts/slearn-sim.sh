#!/usr/bin/env bash
# Simulator evidence for SLearn (issue 11 item 6; SLearn NSDI'22 §5.2,
# Tables 6 and 9): `shepherd compare --seeds N` on the Google-2011- and
# Google-2019-like generated traces (1 250 jobs, load 1, 150 nodes; seeds
# 1..N, default 20), every policy against 3Sigma under GS (`3sigma-gs`).
#
#   main      SLearn (built-in `slearn`: adaptive ratio, thinLimit 3) against
#             3Sigma, Point-Est, Oracle (all under GS), LAS (GS queues by
#             attained service, and plain LAS), FIFO, and SLearn's estimate
#             feeding SRTF instead of GS
#   ratios    Table 6: fixed sampling ratios 1, 2, 3, 4, 5, 10 % vs adaptive
#   thin      Table 9: thinLimit 2, 4, 5, 6 vs 3
#
# Each table: median [min, max] over seeds of the factor of improvement over
# 3sigma-gs (3sigma-gs mean JCT ÷ candidate's; > 1 = the candidate is
# faster), the change of mean JCT, and the per-seed P50 estimation error
# (all jobs with a prediction, and wide jobs, the ones SLearn samples).
# Pick traces with TRACES="google" and tables with TABLES="main ratios";
# EXTRA="--no-cluster-model" runs the paper's setting (no AM containers, no
# launch or JVM overheads; the default models them, see docs/policies/slearn.md);
# EXTRA="--burst 2" re-times the arrivals in bursts (the paper's traces'
# fluctuating load, Table 5; src/workload/gen/burst.rs).
# PAPER=1 is the paper's simulation setting in one switch: 19 nodes × 8
# vcores = 152 task slots (its cluster runs 150 tasks at once: §5.2.1 drops
# jobs wider than 150 because they "will have to be scheduled in more than
# one phase"), bursty arrivals (--burst 2, Table 5) and no cluster model
# (its simulator has no AM containers or launch overheads).
set -euo pipefail
cd "$(dirname "$0")/.."
[ -n "${NO_BUILD:-}" ] || nice -n 19 cargo build --release --quiet --bin shepherd
SEEDS=${SEEDS:-20}
TRACES=${TRACES:-google google2019}
TABLES=${TABLES:-main ratios thin}
EXTRA=${EXTRA:-}
[ -z "${PAPER:-}" ] || EXTRA="--nodes 19 --burst 2 --no-cluster-model $EXTRA"
CONFIG=examples/configs/slearn.toml
BIN="nice -n 19 ./target/release/shepherd"

policies_of() {
  case "$1" in
    main) echo "3sigma-gs,slearn,point-gs,oracle-gs,las-gs,las,fifo,slearn-srtf" ;;
    ratios) echo "3sigma-gs,slearn-r1,slearn-r2,slearn-r3,slearn-r4,slearn-r5,slearn-r10,slearn" ;;
    thin) echo "3sigma-gs,slearn-thin2,slearn,slearn-thin4,slearn-thin5,slearn-thin6" ;;
    *) echo "unknown table $1 (main, ratios, thin)" >&2; exit 2 ;;
  esac
}

for trace in $TRACES; do
  for table in $TABLES; do
    echo "== $trace / $table"
    echo "\$ shepherd compare --generate $trace --seeds $SEEDS $EXTRA --config $CONFIG --policies $(policies_of "$table") --baseline 3sigma-gs --no-progress"
    # shellcheck disable=SC2086
    $BIN compare --generate "$trace" --seeds "$SEEDS" $EXTRA --config "$CONFIG" \
      --policies "$(policies_of "$table")" --baseline 3sigma-gs --no-progress
    echo
  done
done
