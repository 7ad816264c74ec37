#!/usr/bin/env bash
# Instructions per heartbeat of `shepherd bench-heartbeat`: the engine's
# decision cost counted by valgrind's callgrind, which does not depend on
# how fast the host is that hour (the bench's CPU-time percentiles on this
# 2-core VM moved 1.5-3x between sessions with the code unchanged, and a
# run's P50 lands in one of two modes ~1.5x apart). Use it to compare two
# builds; the bench's own percentiles stay the measure of the bars.
#
# It runs the bench twice under callgrind, with SHORT and LONG measured
# heartbeats (default 100 and 300), and prints (Ir(LONG) - Ir(SHORT)) /
# (LONG - SHORT): the set-up, the cluster's first fill and process start
# are the same in both runs and cancel out. Each heartbeat also carries
# the untimed top-up of asks that follows it (a small share).
#
#   scripts/heartbeat-instructions.sh [POLICY] [PENDING] [BIN]
#   scripts/heartbeat-instructions.sh carbyne 10000
#   scripts/heartbeat-instructions.sh carbyne 10000 /tmp/old-shepherd
#
# POLICY defaults to carbyne, PENDING to 10000, BIN to the release build
# (built unless NOBUILD=1). SHORT, LONG override the heartbeat counts;
# BENCH_ARGS adds bench options (e.g. BENCH_ARGS="--small-apps 450").
# Needs valgrind (Debian: apt-get install valgrind). About 1 minute per
# policy at 10 000 pending asks, 3 at 50 000.
set -euo pipefail
# A BIN given relative to the caller's directory, resolved before the cd.
given=${3:+$(realpath "$3")}
cd "$(dirname "$0")/.."
POLICY=${1:-carbyne}
PENDING=${2:-10000}
BIN=${given:-./target/release/shepherd}
SHORT=${SHORT:-100}
LONG=${LONG:-300}
if ! command -v valgrind >/dev/null; then
  echo "valgrind not found: install it (Debian: apt-get install valgrind)" >&2
  exit 2
fi
if [ -z "${3:-}" ] && [ -z "${NOBUILD:-}" ]; then
  cargo build --release --quiet --bin shepherd
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

count() { # heartbeats -> total instructions of the run
  valgrind --tool=callgrind --callgrind-out-file="$tmp/cg.$1" "$BIN" bench-heartbeat \
    --policy "$POLICY" --pending "$PENDING" ${BENCH_ARGS:-} --heartbeats "$1" >"$tmp/out.$1" 2>"$tmp/err.$1" || {
    cat "$tmp/err.$1" >&2
    exit 1
  }
  awk '/^summary:/ { print $2 }' "$tmp/cg.$1"
}

short=$(count "$SHORT")
long=$(count "$LONG")
per=$(((long - short) / (LONG - SHORT)))
echo "$POLICY, $PENDING pending asks${BENCH_ARGS:+ ($BENCH_ARGS)} ($BIN): $per instructions per heartbeat" \
  "(callgrind, runs of $SHORT and $LONG heartbeats: $short and $long)"
