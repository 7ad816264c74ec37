#!/usr/bin/env bash
# Megha at scale (issue 14 item 3; Megha §V–VI): allocation latency (ask →
# the task holds its resources on a node) of Megha's partitioned,
# optimistic GMs/LMs, a Sparrow-style sampling baseline and a central
# heartbeat-driven scheduler (YARN's architecture, which heartbeat-driven
# Shepherd keeps) on the same generated workload, at 10 000 and 50 000
# nodes, on the Google-like and Facebook-like generators
# (`shepherd scale-sim`, src/sim/scale/).
#
# Jobs scale with the nodes so the offered load holds long enough for a
# steady state: Google-like 5 jobs per node at load 0.9 (GOOGLE_LOADS),
# Facebook-like 7 000 jobs per 3 000 nodes (the generator's own ratio) at
# its default load 0.7 and at 0.9 (FACEBOOK_LOADS); its bursty arrivals
# make jobs queue for resources at both. The central
# scheduler runs three times: 40 µs per heartbeat (Shepherd's engine P50 at
# 1 000 nodes and 10 000 pending asks), 120 µs (its P50 at 10 000–50 000
# nodes, 100 000 pending asks over 2 000 apps; `shepherd bench-heartbeat
# --nodes N --pending 100000 --apps 2000`), and 40 µs with 3 s heartbeats
# (what an operator does when the RM falls behind).
#
# Each run prints its table and writes OUT/<workload>-<nodes>-<arch>.json
# (the report, wall times and peak memory). 7 to 12 minutes on 2 cores;
# peak memory ~1 GiB (Facebook-like at 50 000 nodes: 10⁷ tasks).
# Megha runs once more with each of GM_BATCHES (default 64; empty skips):
# beyond the paper, a GM places up to that many tasks of a stage in one
# match and each LM answers the batch once (`--gm-batch`, docs/policies/megha.md).
# The central scheduler runs once more per ROUND_HEARTBEATS interval
# (default "1000 3000"; empty skips) with Shepherd's scheduling rounds
# between heartbeats every ROUND_MS (default 20) ms: the RM's
# async-scheduling.interval-ms (`--central-round-ms`, docs/policies/megha.md).
# And once more per OOB_HEARTBEATS interval (default "1000 3000"; empty
# skips) with out-of-band heartbeats, as YARN's NodeManagers send one when a
# container finishes (`--central-oob-heartbeats`), heartbeats only and with
# the rounds; and with rounds over every node with room charged KEPT_PASS_US
# (default 5; empty skips) µs a node, what a round's pass costs with kept
# candidates (`shepherd bench-round --per-node 1`, docs/results/megha.md).
# And once with YARN's 1 s heartbeats that only report (the RM's
# async-scheduling.heartbeats-allocate = false, `--central-report-only-heartbeats`,
# 7 µs each: `shepherd bench-heartbeat --report-only`), out-of-band
# heartbeats, and rounds over every node with room every
# REPORT_ONLY_ROUND_MS (default 5; empty skips) ms at KEPT_PASS_US µs a node.
# Every run also has the zero-cost floor (`--arch ideal`: an exact view, no
# cost, no messages; tasks wait for capacity only), in the central
# scheduler's FIFO order, in Megha's users' round-robin and smallest stage
# first: where it misses the latency bar, no scheduler serving that order
# meets it.
# NODES="10000 50000", WORKLOADS="google facebook", SEED=1, OUT=/tmp/megha-scale,
# NOBUILD=1 skips the build.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -n "${NOBUILD:-}" ] || cargo build --release --quiet --bin shepherd
BIN=./target/release/shepherd
GOOGLE_LOADS=${GOOGLE_LOADS:-0.9}
FACEBOOK_LOADS=${FACEBOOK_LOADS:-0.7 0.9}
SEED=${SEED:-1}
GM_BATCHES=${GM_BATCHES-64}
ROUND_MS=${ROUND_MS:-20}
ROUND_HEARTBEATS=${ROUND_HEARTBEATS-1000 3000}
OOB_HEARTBEATS=${OOB_HEARTBEATS-1000 3000}
KEPT_PASS_US=${KEPT_PASS_US-5}
REPORT_ONLY_ROUND_MS=${REPORT_ONLY_ROUND_MS-5}
NODES=${NODES:-10000 50000}
WORKLOADS=${WORKLOADS:-google facebook}
OUT=${OUT:-/tmp/megha-scale}
mkdir -p "$OUT"

jobs_for() { # workload nodes
  case $1 in
    google) echo $(($2 * 5)) ;;
    facebook) echo $(($2 * 7000 / 3000)) ;;
    *) echo "unknown workload $1" >&2; exit 1 ;;
  esac
}

for w in $WORKLOADS; do
  case $w in
    google) loads=$GOOGLE_LOADS ;;
    facebook) loads=$FACEBOOK_LOADS ;;
  esac
  for load in $loads; do
    for n in $NODES; do
      jobs=$(jobs_for "$w" "$n")
      common=(--generate "$w" --nodes "$n" --jobs "$jobs" --load "$load" --seed "$SEED")
      tag="$w-$n-load$load"
      echo "== $w-like, $n nodes, $jobs jobs, load $load, seed $SEED"
      $BIN scale-sim "${common[@]}" --arch megha,sparrow,central,ideal --json "$OUT/$tag-all.json"
      echo
      for order in users-round-robin smallest-stage-first; do
        echo "-- ideal (zero cost, exact view), $order"
        $BIN scale-sim "${common[@]}" --arch ideal --ideal-order "$order" --json "$OUT/$tag-ideal-$order.json" | sed -n '/^arch/,/^$/p'
      done
      echo "-- central at 120 µs per heartbeat (engine P50 at this scale)"
      $BIN scale-sim "${common[@]}" --arch central --central-hb-us 120 --json "$OUT/$tag-central120.json" | sed -n '/^arch/,/^$/p'
      echo "-- central with 3 s heartbeats"
      $BIN scale-sim "${common[@]}" --arch central --heartbeat-ms 3000 --json "$OUT/$tag-central3s.json" | sed -n '/^arch/,/^$/p'
      for hb in $ROUND_HEARTBEATS; do
        echo "-- central with ${hb} ms heartbeats and Shepherd's rounds between them every $ROUND_MS ms"
        $BIN scale-sim "${common[@]}" --arch central --heartbeat-ms "$hb" --central-round-ms "$ROUND_MS" \
          --json "$OUT/$tag-central-rounds-hb$hb.json" | sed -n '/^arch/,/^$/p'
      done
      for hb in $OOB_HEARTBEATS; do
        echo "-- central with ${hb} ms heartbeats and out-of-band heartbeats when a container finishes"
        $BIN scale-sim "${common[@]}" --arch central --heartbeat-ms "$hb" --central-oob-heartbeats \
          --json "$OUT/$tag-central-oob-hb$hb.json" | sed -n '/^arch/,/^$/p'
        echo "-- the same with Shepherd's rounds every $ROUND_MS ms"
        $BIN scale-sim "${common[@]}" --arch central --heartbeat-ms "$hb" --central-oob-heartbeats \
          --central-round-ms "$ROUND_MS" --json "$OUT/$tag-central-oob-rounds-hb$hb.json" | sed -n '/^arch/,/^$/p'
        if [ -n "$KEPT_PASS_US" ]; then
          echo "-- rounds over every node with room at $KEPT_PASS_US µs a node (a round's pass with kept candidates)"
          $BIN scale-sim "${common[@]}" --arch central --heartbeat-ms "$hb" --central-oob-heartbeats \
            --central-round-ms "$ROUND_MS" --central-round-nodes 0 --central-round-pass-us "$KEPT_PASS_US" \
            --json "$OUT/$tag-central-oob-kept-hb$hb.json" | sed -n '/^arch/,/^$/p'
        fi
      done
      if [ -n "$KEPT_PASS_US" ] && [ -n "$REPORT_ONLY_ROUND_MS" ]; then
        echo "-- 1 s heartbeats that only report, out-of-band heartbeats, rounds over every node with room every $REPORT_ONLY_ROUND_MS ms at $KEPT_PASS_US µs a node"
        $BIN scale-sim "${common[@]}" --arch central --heartbeat-ms 1000 --central-oob-heartbeats --central-report-only-heartbeats \
          --central-round-ms "$REPORT_ONLY_ROUND_MS" --central-round-nodes 0 --central-round-pass-us "$KEPT_PASS_US" \
          --json "$OUT/$tag-central-report-only.json" | sed -n '/^arch/,/^$/p'
      fi
      for b in $GM_BATCHES; do
        echo "-- megha, GM batches of $b tasks (beyond the paper)"
        $BIN scale-sim "${common[@]}" --arch megha --gm-batch "$b" --json "$OUT/$tag-megha-batch$b.json" | sed -n '/^arch/,/^$/p'
      done
      echo
    done
  done
done
echo "targets (issue 14): Megha allocation latency P50 <= 10 ms, P99 <= 100 ms; paper: median tens of ms, P99 two orders of magnitude below Sparrow's"
