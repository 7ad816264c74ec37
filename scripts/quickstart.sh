#!/usr/bin/env bash
# Build Shepherd and run it as the scheduler of a local single-machine YARN
# cluster (real ResourceManager and NodeManagers from Hadoop's Maven Central
# jars), with the Shepherd sidecar beside it (metrics, JSON API, status
# page), run a small real workload (pi, wordcount, two SleepJobs; four
# users, two queues) and print what ran and how long it took.
#   scripts/quickstart.sh [shepherd.toml]
# Environment: SHEPHERD_RM_PORT (18088), SHEPHERD_SIDECAR_PORT (9470),
# SHEPHERD_CONTROL_PORT (19471), SHEPHERD_HOLD_S (0: keep the cluster and
# the sidecar up this long after the workload, to look around),
# SHEPHERD_KEEP_WORK (1: keep the run's temporary files, the sidecar's log
# and the cluster's work directory, instead of deleting them at the end).
source "$(dirname "$0")/lib.sh"
check_prerequisites
build_engine_and_shim
CP=$(integration_classpath)

RM_PORT=${SHEPHERD_RM_PORT:-18088}
SIDECAR_PORT=${SHEPHERD_SIDECAR_PORT:-9470}
CONTROL_PORT=${SHEPHERD_CONTROL_PORT:-19471}
WORK=$(mktemp -d -t shepherd-quickstart.XXXXXX)
# The control channel's shared secret: readable by this user only.
(umask 077 && head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n' > "$WORK/control.secret")
cat > "$WORK/sidecar.toml" <<TOML
[server]
listen = "127.0.0.1:$SIDECAR_PORT"
[rm]
addresses = ["http://127.0.0.1:$RM_PORT"]
poll_interval_ms = 2000
backoff_max_ms = 10000
[control]
address = "127.0.0.1:$CONTROL_PORT"
secret_file = "$WORK/control.secret"
poll_interval_ms = 2000
TOML
echo "==> starting the Shepherd sidecar (log: $WORK/sidecar.log)"
"$ROOT/target/release/shepherd" sidecar --config "$WORK/sidecar.toml" > "$WORK/sidecar.log" 2>&1 &
SIDECAR_PID=$!
cleanup() {
  local rc=$?
  kill "$SIDECAR_PID" 2>/dev/null || true
  if [ "$rc" != 0 ] && [ -s "$WORK/sidecar.log" ]; then
    echo "==> the sidecar's log (last 20 lines) before it is deleted:"
    tail -n 20 "$WORK/sidecar.log"
  fi
  if [ "${SHEPHERD_KEEP_WORK:-0}" = 1 ]; then
    echo "kept $WORK"
  else
    rm -rf "$WORK"
  fi
}
trap cleanup EXIT
echo "    status page http://127.0.0.1:$SIDECAR_PORT/   metrics http://127.0.0.1:$SIDECAR_PORT/metrics   API http://127.0.0.1:$SIDECAR_PORT/api/v1"
# The shipped scrape config targets the default port.
if [ "$SIDECAR_PORT" = 9470 ]; then
  echo "    Prometheus with the alerting rules: prometheus --config.file=$ROOT/hadoop-conf/prometheus/shepherd-sidecar.yml"
  echo "    Grafana: import $ROOT/hadoop-conf/grafana/shepherd-dashboard.json"
fi
echo "==> starting YARN with Shepherd"
# java.io.tmpdir: the cluster's work directory (and the JVM's other
# temporary files) inside $WORK, so the trap above removes them even when
# the JVM is killed or interrupted (Ctrl-C during SHEPHERD_HOLD_S).
# shellcheck disable=SC2086
java -Xmx2g $JDK17_OPENS -Djava.io.tmpdir="$WORK" -Dshepherd.native.library="$ROOT/target/release/libshepherd.so" \
  -Dshepherd.jdk17.opens="$JDK17_OPENS" -Dlog4j.configuration=quickstart-log4j.properties \
  -Djava.util.logging.config.file="$ROOT/integration/src/main/resources/quiet-jul.properties" \
  -Dshepherd.rm.webapp.port="$RM_PORT" -Dshepherd.control.port="$CONTROL_PORT" \
  -Dshepherd.control.secret.file="$WORK/control.secret" \
  -Dshepherd.sidecar.url="http://127.0.0.1:$SIDECAR_PORT" \
  -Dshepherd.quickstart.hold.s="${SHEPHERD_HOLD_S:-0}" \
  -Dshepherd.keep.workdir="$([ "${SHEPHERD_KEEP_WORK:-0}" = 1 ] && echo true || echo false)" \
  -cp "$CP" org.shepherd.yarn.cluster.Quickstart "$@"
