#!/usr/bin/env bash
# Benchmarks (not part of CI): engine decision time per node heartbeat at
# 1 000 nodes and 10 000 pending asks (Rust side), scheduling rounds between
# heartbeats with 1, 2 and 4 proposers (scheduler.round_proposers), and the
# JNI crossing cost measured from the JVM.
source "$(dirname "$0")/lib.sh"
check_prerequisites
build_engine_and_shim
echo "==> engine decision time per heartbeat"
./target/release/shepherd bench-heartbeat --nodes 1000 --pending 10000 --apps 500 --heartbeats 20000
echo "==> scheduling rounds between heartbeats, serial and with several proposers (DRF, composed)"
./target/release/shepherd bench-round --nodes 1000 --pending 10000 --apps 500 --rounds 200 --policy drf --proposers 1,2,4
./target/release/shepherd bench-round --nodes 1000 --pending 10000 --apps 500 --rounds 200 --policy composed --proposers 1,2,4
echo "==> JNI crossing cost"
CP=$(integration_classpath)
java -Xmx1g -cp "$CP" org.shepherd.yarn.bench.CrossingBench "$ROOT/target/release/libshepherd.so" 1000000
