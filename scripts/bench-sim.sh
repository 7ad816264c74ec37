#!/usr/bin/env bash
# Simulator speed benchmark: a Facebook-scale trace (Carbyne §5: 7 000 jobs,
# 650 000 tasks, 3 000 nodes) through the engine; prints events per second,
# wall time and peak memory (VmHWM). Extra arguments go to `shepherd bench-sim`
# (e.g. --policy fifo, --load 1.0, --jobs 700 --tasks 65000 --nodes 300).
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet --bin shepherd
exec ./target/release/shepherd bench-sim "$@"
