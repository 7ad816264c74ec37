#!/usr/bin/env bash
# Every Shepherd test: the Rust engine's unit and policy tests, then the
# integration tests that start a real YARN cluster (ResourceManager with
# ShepherdScheduler, real NodeManagers) and run real MapReduce jobs on it,
# and the comparison harness in quick mode (every job must succeed under
# Shepherd, the CapacityScheduler and the FairScheduler).
source "$(dirname "$0")/lib.sh"
check_prerequisites
build_engine
echo "==> Rust tests"
cargo test --release --locked
build_shim
echo "==> integration tests against a real YARN cluster"
mvn -B -Dstyle.color=never "${MVN_REPO[@]}" -f integration/pom.xml test \
  -Dshepherd.native.library="$ROOT/target/release/libshepherd.so"
echo "==> real-YARN comparison harness, quick mode (Shepherd-DRESS, CapacityScheduler, FairScheduler)"
bash "$ROOT/scripts/compare-yarn.sh" --quick
