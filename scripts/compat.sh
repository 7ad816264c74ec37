#!/usr/bin/env bash
# YARN's own ResourceManager tests against Shepherd: test classes from
# Hadoop's hadoop-yarn-server-resourcemanager test-jar (compat/pom.xml lists
# them), each run with Shepherd as the scheduler of every MockRM, and the same
# classes under YARN's FifoScheduler (the control: the shim extends it) and,
# with --capacity, the CapacityScheduler. Prints the per-class table and the
# tests that fail under Shepherd but pass under a control; exits 1 if any
# such test is not listed, with its reason, in compat/not-applicable.txt.
#
#   bash scripts/compat.sh              # shepherd and fifo (~15 min on 2 cores)
#   bash scripts/compat.sh --capacity   # and the CapacityScheduler
#   SCHEDULERS="shepherd" bash scripts/compat.sh   # one run, e.g. after a fix
source "$(dirname "$0")/lib.sh"
check_prerequisites
schedulers=${SCHEDULERS:-shepherd fifo}
if [ "${1:-}" = "--capacity" ]; then
  schedulers="$schedulers capacity"
fi
build_engine_and_shim
mkdir -p compat/target
# Host names resolve from this file instead of DNS: localhost and this
# machine's own name to 127.0.0.1, and each of the tests' made-up names (h1,
# host2, ...) to an address of its own in 127/8, which is all loopback on
# Linux: the RM builds NM tokens from resolved addresses, and the
# include/exclude-list tests count hosts apart by address.
{
  echo "127.0.0.1 localhost $(hostname)"
  echo "::1 localhost ip6-localhost"
  echo "127.0.1.1 h"
  echo "127.0.2.1 host"
  for i in $(seq 1 10); do
    echo "127.0.1.$((i + 1)) h$i"
    echo "127.0.2.$((i + 1)) host$i"
  done
} > compat/target/hosts
for s in $schedulers; do
  echo "==> YARN's RM tests under $s (compat/, reports in compat/target/reports-$s)"
  rm -rf "compat/target/reports-$s" compat/target/test-classes
  "${MVN[@]}" -f compat/pom.xml test -Dcompat.scheduler="$s" \
    -Dshepherd.native.library="$ROOT/target/release/libshepherd.so"
  # The run must have had the scheduler it names (a stale yarn-site.xml
  # would make every run Shepherd's).
  grep -q "$(sed -n 's:.*<value>\(.*Scheduler\)</value>.*:\1:p' "compat/conf/$s/yarn-site.xml")" \
    compat/target/test-classes/yarn-site.xml
done
python3 "$ROOT/scripts/compat-report.py" "$ROOT/compat" $schedulers
