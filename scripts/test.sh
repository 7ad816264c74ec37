#!/usr/bin/env bash
# Every Shepherd test: the Rust engine's unit and policy tests, the release
# tarball (checked, then installed into separately started Hadoop daemons,
# upgraded and rolled back with jobs running), then the integration tests
# that start a real YARN cluster (ResourceManager with
# ShepherdScheduler, real NodeManagers) and run real MapReduce jobs on it,
# unmodified Spark applications on such a cluster (apps/),
# YARN's own ResourceManager tests with Shepherd as the scheduler (compat/)
# (SidecarTest runs the sidecar against it with a real Prometheus and
# headless Chromium, installed by scripts/sidecar-deps.sh if missing),
# Shepherd hosted in Hadoop's Scheduler Load Simulator (SLS, a multi-rack
# MapReduce workload through SLS's own RM), a small scheduler comparison in
# SLS (CapacityScheduler against Shepherd's composed default and a pipeline
# of examples/sls/ given with --pipelines, on two queues: every job must
# succeed under each, and the report is written), and the
# comparison harness in
# quick mode (every job must succeed under Shepherd, the CapacityScheduler
# and the FairScheduler).
source "$(dirname "$0")/lib.sh"
check_prerequisites
# Each step's header carries the minutes since the run began, so a slow step
# shows in CI's log (the whole run should stay within about 40 minutes).
step() { printf '==> [%dm%02ds] %s\n' $((SECONDS / 60)) $((SECONDS % 60)) "$*"; }
# Every relative link in the README and docs/ resolves (file and heading).
step "documentation links (scripts/check-links.py)"
python3 "$ROOT/scripts/check-links.py"
# No import circles between the crate's top-level modules (production code;
# tests may drive the engine from anywhere).
step "module boundaries (scripts/check-module-cycles.py)"
python3 "$ROOT/scripts/check-module-cycles.py"
# The Rust sources are rustfmt-formatted (rustfmt.toml): unformatted code
# fails here, before the ~30 minutes of tests. rustfmt ships with rustup's
# default profile; a toolchain without it skips the check and says so.
if cargo fmt --version >/dev/null 2>&1; then
  step "Rust formatting (cargo fmt --check)"
  cargo fmt --check
else
  echo "shepherd: rustfmt not installed, format check skipped (rustup component add rustfmt)" >&2
fi
# Clippy's lints, warnings as errors, also before the long tests (a check
# build of its own). A toolchain without clippy skips the check and says so.
if cargo clippy --version >/dev/null 2>&1; then
  step "Rust lints (cargo clippy --all-targets -- -D warnings)"
  cargo clippy --release --all-targets --locked -- -D warnings
else
  echo "shepherd: clippy not installed, lint check skipped (rustup component add clippy)" >&2
fi
build_engine
step "Rust tests"
cargo test --release --locked
build_shim
# The release tarball (scripts/package.sh) holds what INSTALL.md names, and
# its CLI checks the shipped configs from the unpacked tree.
step "release tarball (scripts/package.sh), unpacked and its configs checked"
SHEPHERD_SKIP_BUILD=1 bash "$ROOT/scripts/package.sh" >/dev/null
release_dir=$(mktemp -d)
tar -xzf "$ROOT"/target/dist/shepherd-*-hadoop-3.4-linux-x86_64.tar.gz -C "$release_dir"
release=("$release_dir"/shepherd-*)
for f in INSTALL.md lib/libshepherd.so bin/shepherd conf/yarn-site-shepherd.xml \
  monitoring/prometheus/shepherd-alerts.yml monitoring/grafana/shepherd-dashboard.json \
  systemd/shepherd-sidecar.service; do
  [ -s "${release[0]}/$f" ] || { echo "shepherd: the release lacks $f" >&2; exit 1; }
done
jar tf "${release[0]}"/lib/shepherd-yarn-shim-*.jar | grep 'org/shepherd/yarn/ShepherdScheduler.class' >/dev/null
"${release[0]}/bin/shepherd" check-config "${release[0]}/conf/shepherd.toml" >/dev/null
"${release[0]}/bin/shepherd" sidecar --config "${release[0]}/conf/shepherd-sidecar.toml" --check
rm -rf "$release_dir"
# The same tarball installed as INSTALL.md says into a Hadoop 3.4.3 layout of
# Maven Central jars, an RM and two NMs as separate daemons, the sidecar,
# SleepJobs; then an RM-only upgrade and a rollback to the CapacityScheduler
# with the jobs running: apps, attempts and containers must survive both and
# every job succeed (docs/install-test.md). Quick mode (two jobs of one map):
# the full run took 186-255 s on the loaded 2-core development machine,
# over the 4 minutes this step may take once; --quick 133-197 s.
step "the release installed as an operator does: upgrade and rollback with jobs running (scripts/installed-test.sh --quick)"
SHEPHERD_RELEASE="$(ls -t "$ROOT"/target/dist/shepherd-*-hadoop-3.4-linux-x86_64.tar.gz | head -1)" \
  bash "$ROOT/scripts/installed-test.sh" --quick
# Prometheus, headless Chromium and playwright-core for SidecarTest.
bash "$ROOT/scripts/sidecar-deps.sh"
# The shipped Prometheus config and alerting rules are valid, and each
# alert fires on the series it is for and not on a healthy cluster's
# (promtool's unit tests; SidecarTest then loads them into a real Prometheus).
step "Prometheus alerting rules (promtool check config, test rules)"
promtool check config "$ROOT/hadoop-conf/prometheus/shepherd-sidecar.yml"
promtool test rules "$ROOT/hadoop-conf/prometheus/shepherd-alerts.test.yml"
step "integration tests against a real YARN cluster (incl. the sidecar with Prometheus and Chromium)"
mvn -B -Dstyle.color=never "${MVN_REPO[@]}" -f integration/pom.xml test \
  -Dshepherd.native.library="$ROOT/target/release/libshepherd.so"
# Unmodified Spark applications (Spark's own YARN client, cluster mode, dynamic
# allocation with Spark's shuffle service in the NodeManagers) and Tez's own
# OrderedWordCount DAG (Tez's client and AM, tez.lib.uris) on the same kind
# of real cluster: apps/pom.xml, docs/spark-tez.md. Spark and Tez are built
# for one Hadoop line here (3.4); the hadoop-3.5 profile skips them.
if [ -z "${HADOOP_PROFILE:-}" ]; then
  step "unmodified Spark and Tez applications on the real cluster (apps/)"
  mvn -B -Dstyle.color=never "${MVN_REPO[@]}" -f apps/pom.xml test \
    -Dshepherd.native.library="$ROOT/target/release/libshepherd.so"
else
  echo "shepherd: apps/ (Spark, Tez) runs on Hadoop 3.4 only; skipped for $HADOOP_PROFILE" >&2
fi
# YARN's own ResourceManager tests (Hadoop's RM test-jar, compat/pom.xml)
# with Shepherd as every MockRM's scheduler: all must pass. The FifoScheduler
# and CapacityScheduler control runs are `bash scripts/compat.sh --capacity`.
step "YARN's own ResourceManager tests under Shepherd (compat/, 18 classes of the RM test-jar)"
SHEPHERD_SKIP_BUILD=1 SCHEDULERS=shepherd bash "$ROOT/scripts/compat.sh"
step "Shepherd inside Hadoop's Scheduler Load Simulator (SLS: 20 NMs in 4 racks, 6 MapReduce jobs)"
mvn -B -Dstyle.color=never "${MVN_REPO[@]}" -f sls/pom.xml test \
  -Dshepherd.native.library="$ROOT/target/release/libshepherd.so"
step "schedulers compared in SLS, quick mode (20 NMs; the CapacityScheduler, Shepherd-composed and a pipeline of examples/sls; every job must succeed)"
SHEPHERD_SKIP_BUILD=1 bash "$ROOT/scripts/compare-sls.sh" --quick --pipelines "$ROOT/examples/sls/composed-variants.toml" \
  --schedulers capacity,shepherd:composed,shepherd:srtf-amfirst
step "real-YARN comparison harness, quick mode (Shepherd-DRESS, CapacityScheduler, FairScheduler)"
SHEPHERD_SKIP_BUILD=1 bash "$ROOT/scripts/compare-yarn.sh" --quick
step "every test passed"
