#!/usr/bin/env bash
# The real-YARN comparison harness: the same workload, with the same arrival
# times, on a local YARN cluster (real ResourceManager and NodeManagers from
# Hadoop's Maven Central jars) under each scheduler in turn — Shepherd with a
# named policy, Hadoop's CapacityScheduler, Hadoop's FairScheduler (DRF) —
# then `shepherd yarn-report` prints the tables and writes JSON/CSV/SVG.
#
#   scripts/compare-yarn.sh [--quick] [--trace FILE] [--schedulers LIST]
#                           [--repeat N] [--out DIR] [--split-mb N] [--poll-ms N]
#                           [--utilization off|containers] [--nm-heartbeat-ms N]
#
#   --quick       CI size: examples/traces/yarn-quick.json (4 small jobs, 2 NMs),
#                 one repetition; fails unless every job succeeds everywhere.
#   (default)     full mode: examples/traces/yarn-hibench-20.json (20 jobs 5 s
#                 apart, 4 NMs), 3 repetitions; ~15 min per repetition here.
#   --schedulers  comma list of shepherd:<policy>[=<file.toml>], capacity, fair
#                 (default shepherd:dress,capacity,fair); @async=<ms> after a
#                 shepherd or capacity name also allocates between node
#                 heartbeats, a round every <ms> ms (label gains -async<ms>;
#                 the CapacityScheduler's heartbeats then only report,
#                 Shepherd's still allocate too); @async-only=<ms> after a
#                 shepherd name: its rounds, and heartbeats that only report
#                 (label gains -asynconly<ms>).
#   --utilization containers  NodeManagers measure their containers' use (1 s),
#                 the samples record it (yarn-report's "used" columns), and
#                 Shepherd's engine reads it (ROSE's load estimates); each NM
#                 gets an equal slice of the machine's CPU for the accounting.
#                 Default off.
#   --nm-heartbeat-ms N  every NodeManager heartbeats every N ms (YARN's
#                 yarn.resourcemanager.nodemanagers.heartbeat-interval-ms;
#                 default YARN's 1000), for every scheduler; jobs.json records
#                 it and `shepherd calibrate` simulates with it.
#   SHEPHERD_SKIP_BUILD=1 skips building the engine and the shim (scripts/test.sh
#   has just built both).
CALLER_DIR="$PWD"   # relative paths in the options are relative to here
source "$(dirname "$0")/lib.sh"
abs() { case "$1" in /*) echo "$1" ;; *) echo "$CALLER_DIR/$1" ;; esac; }

QUICK=0
TRACE="$ROOT/examples/traces/yarn-hibench-20.json"
SCHEDULERS="shepherd:dress,capacity,fair"
REPEAT=3
OUT=""
SPLIT_MB=2
POLL_MS=500
UTILIZATION=off
NM_HEARTBEAT=()   # CompareYarn's default: YARN's own interval
while [ $# -gt 0 ]; do
  case "$1" in
    --quick) QUICK=1; TRACE="$ROOT/examples/traces/yarn-quick.json"; REPEAT=1; shift ;;
    --trace) TRACE="$(abs "$2")"; shift 2 ;;
    --schedulers) SCHEDULERS="$2"; shift 2 ;;
    --repeat) REPEAT="$2"; shift 2 ;;
    --out) OUT="$(abs "$2")"; shift 2 ;;
    --split-mb) SPLIT_MB="$2"; shift 2 ;;
    --poll-ms) POLL_MS="$2"; shift 2 ;;
    --utilization) UTILIZATION="$2"; shift 2 ;;
    --nm-heartbeat-ms) NM_HEARTBEAT=(--nm-heartbeat-ms "$2"); shift 2 ;;
    *) echo "compare-yarn: unknown option $1" >&2; exit 2 ;;
  esac
done
if [ -z "$OUT" ]; then
  if [ "$QUICK" = 1 ]; then OUT="$ROOT/target/compare-yarn-quick"; else OUT="$ROOT/target/compare-yarn"; fi
fi
mkdir -p "$OUT"
OUT="$(cd "$OUT" && pwd)"

check_prerequisites
build_engine_and_shim
# A trace with Spark or Tez jobs runs from the apps module's classpath
# (Spark's and Tez's clients; the harness is compiled there too).
if grep -Eqi '"app_type" *: *"(spark|tez)"' "$TRACE"; then
  APPS=1
  CP=$(apps_classpath)
  CLASSES="$ROOT/apps/target/classes"
else
  APPS=0
  CP=$(integration_classpath)
  CLASSES="$ROOT/integration/target/classes"
fi
# Run from copies of the engine, the shim and the harness classes, so a
# rebuild while a long comparison runs cannot change it halfway.
BIN="$OUT/.bin"
rm -rf "$BIN" && mkdir -p "$BIN"
cp "$ROOT/target/release/libshepherd.so" "$BIN/"
cp -r "$CLASSES" "$BIN/classes"
SHIM_JAR=$(echo "$CP" | tr ':' '\n' | grep 'shepherd-yarn-shim' | head -1)
cp "$SHIM_JAR" "$BIN/shim.jar"
CP=$(echo "$CP" | sed "s|$SHIM_JAR|$BIN/shim.jar|; s|$CLASSES|$BIN/classes|")
APP_OPTS=()
if [ "$APPS" = 1 ]; then
  # Tez's jars for tez.lib.uris, and the directory spark-submit ships as the
  # client's HADOOP_CONF_DIR (the harness writes each cluster's yarn-site.xml).
  cp -r "$ROOT/apps/target/tez-lib" "$BIN/tez-lib"
  mkdir -p "$BIN/hadoop-conf"
  export HADOOP_CONF_DIR="$BIN/hadoop-conf"
  APP_OPTS=(-Dshepherd.tez.lib="$BIN/tez-lib")
fi
echo "==> comparing $SCHEDULERS on $(basename "$TRACE"), $REPEAT repetition(s), results in $OUT"
# MiniYARNCluster keeps its NodeManager directories under ./target: run in OUT.
# shellcheck disable=SC2086
(cd "$OUT" && java -Xmx3g $JDK17_OPENS -Dshepherd.native.library="$BIN/libshepherd.so" "${APP_OPTS[@]}" \
  -Dshepherd.jdk17.opens="$JDK17_OPENS" -Dlog4j.configuration="file:$ROOT/integration/src/main/resources/quickstart-log4j.properties" \
  -Djava.util.logging.config.file="$ROOT/integration/src/main/resources/quiet-jul.properties" \
  -cp "$CP" org.shepherd.yarn.compare.CompareYarn --trace "$TRACE" --out "$OUT" \
  --schedulers "$SCHEDULERS" --repeat "$REPEAT" --split-mb "$SPLIT_MB" --poll-ms "$POLL_MS" \
  --utilization "$UTILIZATION" "${NM_HEARTBEAT[@]}" --hadoop-conf "$ROOT/hadoop-conf" --base-dir "$CALLER_DIR")
echo "==> report"
"$ROOT/target/release/shepherd" yarn-report "$OUT" --require-success
