#!/usr/bin/env bash
# Submit a HiBench MapReduce mix 5 s apart (DRESS §V) against the running
# cluster and save the ResourceManager's account of every application.
# Run it once per scheduler (change yarn.resourcemanager.scheduler.class,
# restart the RM), then compare the saved apps-<label>.json files.
#
#   HIBENCH_HOME=/opt/HiBench RM=http://rm:8088 run-mix.sh <label>
#
# MIX lists "workload:maps:reduces" entries; the default is 20 jobs, 30 %
# small (2 maps), the rest large, as the repo's examples/traces/yarn-hibench-20.json.
set -euo pipefail
LABEL=${1:?usage: run-mix.sh <label>}
: "${HIBENCH_HOME:?set HIBENCH_HOME}"
RM=${RM:-http://localhost:8088}
GAP_S=${GAP_S:-5}
MIX=${MIX:-"sort:2:1 sort:12:3 wordcount:11:3 sort:9:3 terasort:10:3 wordcount:7:2 terasort:2:1 wordcount:11:3 wordcount:12:3 sort:12:3 terasort:7:2 wordcount:5:2 terasort:12:3 sort:7:2 wordcount:1:1 wordcount:2:1 wordcount:1:1 sort:8:2 sort:10:3 sort:2:1"}
cd "$HIBENCH_HOME"
for w in wordcount sort terasort; do
  bin/workloads/micro/$w/prepare/prepare.sh
done
start=$(date +%s%3N)
pids=()
for entry in $MIX; do
  IFS=: read -r w maps reduces <<<"$entry"
  # HiBench reads conf/hibench.conf when run.sh starts (well inside the gap),
  # so set this job's width there just before launching it.
  sed -i -e "s/^hibench.default.map.parallelism .*/hibench.default.map.parallelism $maps/" \
    -e "s/^hibench.default.shuffle.parallelism .*/hibench.default.shuffle.parallelism $reduces/" \
    conf/hibench.conf
  bin/workloads/micro/$w/hadoop/run.sh > "report/mix-$LABEL-$w-$maps.log" 2>&1 &
  pids+=($!)
  sleep "$GAP_S"
done
for p in "${pids[@]}"; do wait "$p" || echo "a job failed (pid $p)" >&2; done
curl -s "$RM/ws/v1/cluster/apps?startedTimeBegin=$start" > "report/apps-$LABEL.json"
echo "saved report/apps-$LABEL.json (submit, launch and finish times per application)"
