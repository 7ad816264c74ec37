#!/usr/bin/env bash
# Issue 15 item 5, the soak (outside CI): a local YARN cluster with Shepherd
# (composed default, two queues, 2 NodeManagers) under continuous submissions
# of small real SleepJobs (four users, two queues, 1-4 maps of 1-8 s, some
# with a reduce; Poisson arrivals, at most 4 jobs in flight) for an hour,
# sampled every 30 s (heap after GC, RSS, engine apps/containers, RM
# running/pending, decision latency P50/P99 per window, jobs so far), then
# drained and checked: no job failed, the engine holds no app, container or
# per-app state, and memory does not grow. Prints progress and a summary;
# writes soak.csv, state-after-drain.json and shepherd.toml to the output dir.
#   scripts/soak.sh [--minutes 60] [--out DIR] [Soak options: --sample-s 30
#     --arrival-s 6 --max-in-flight 4 --seed 15 --max-heap-slope-mb-h 30
#     --max-rss-slope-mb-h 64 --max-completed-apps 20]
# Exit status 1 if a job failed, state remained after the drain, or the heap
# (after GC) or RSS slope is above its limit. Every port is ephemeral.
# Environment: SHEPHERD_M2 (a separate Maven repository), SHEPHERD_MVN_OFFLINE=1
# (Maven -o), SHEPHERD_SKIP_BUILD=1 (use the built engine and shim as they are).
source "$(dirname "$0")/lib.sh"
MINUTES=60
OUT="$ROOT/target/soak"
ARGS=()
while [ $# -gt 0 ]; do
  case "$1" in
    --minutes) MINUTES="$2"; shift 2 ;;
    --out) OUT="$2"; shift 2 ;;
    *) ARGS+=("$1"); shift ;;
  esac
done
check_prerequisites
build_engine_and_shim
CP=$(integration_classpath)
mkdir -p "$OUT"
echo "==> soak: $MINUTES min, output in $OUT"
# shellcheck disable=SC2086
# A fixed, pre-touched heap: RSS then moves only with native memory (the
# engine, metaspace, thread stacks), and RSS - committed isolates it.
exec java -Xms1g -Xmx1g -XX:+AlwaysPreTouch $JDK17_OPENS -Dshepherd.native.library="$ROOT/target/release/libshepherd.so" \
  -Dshepherd.jdk17.opens="$JDK17_OPENS" -Dlog4j.configuration=quickstart-log4j.properties \
  -Djava.util.logging.config.file="$ROOT/integration/src/main/resources/quiet-jul.properties" \
  -cp "$CP" org.shepherd.yarn.cluster.Soak --minutes "$MINUTES" --out "$OUT" "${ARGS[@]}"
