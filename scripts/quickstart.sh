#!/usr/bin/env bash
# Build Shepherd and run it as the scheduler of a local single-machine YARN
# cluster (real ResourceManager and NodeManagers from Hadoop's Maven Central
# jars), run a small real workload (pi, wordcount, two SleepJobs; four users,
# two queues) and print what ran and how long it took.
#   scripts/quickstart.sh [shepherd.toml]
source "$(dirname "$0")/lib.sh"
check_prerequisites
build_engine
build_shim
CP=$(integration_classpath)
echo "==> starting YARN with Shepherd"
# shellcheck disable=SC2086
exec java -Xmx2g $JDK17_OPENS -Dshepherd.native.library="$ROOT/target/release/libshepherd.so" \
  -Dshepherd.jdk17.opens="$JDK17_OPENS" -Dlog4j.configuration=quickstart-log4j.properties \
  -Djava.util.logging.config.file="$ROOT/integration/src/main/resources/quiet-jul.properties" \
  -cp "$CP" org.shepherd.yarn.cluster.Quickstart "$@"
