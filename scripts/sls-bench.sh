#!/usr/bin/env bash
# Scheduler overhead in Hadoop's Scheduler Load Simulator (SLS), issue 14:
# Shepherd (ShepherdSlsScheduler, the Rust engine deciding) against SLS's own
# CapacityScheduler on the same SLS workload, at 1 000 and 5 000 simulated
# NodeManagers. For each node count it writes one SLS synthetic-generator
# workload (sls/…/bench/SynthTrace: jobs × short maps, all submitted in the
# first 5 s, far more work than the cluster's slots), runs SLS once per
# scheduler (org.apache.hadoop.yarn.sls.SLSRunner inside
# org.shepherd.yarn.sls.bench.SlsBenchRun, one JVM per run) and prints one
# table (SlsBenchReport): allocations per second (mean and peak second),
# NODE_UPDATE and allocate latency (P50/P99), the scheduler event thread's
# busy share, heap (after GC, and as SLS reports it), RSS, job completion.
#
#   scripts/sls-bench.sh                          # every scheduler below at 1000 and 5000 NMs, once
#   scripts/sls-bench.sh --policy drf --repeat 3  # Shepherd drf and both CapacityScheduler setups, 3 times
#   scripts/sls-bench.sh --nodes 1000 --nm-vcores 64 --jobs-per-1000-nodes 1200   # denser nodes
#   scripts/sls-bench.sh --schedulers shepherd:drf,capacity --profile   # + a JFR profile per run
#
# Schedulers (--schedulers, comma list; default
# shepherd:drf,shepherd:composed,capacity,capacity:multi):
#   shepherd:<policy>  ShepherdSlsScheduler, <policy> in one queue `default`
#                      (max_am_share 0.5, no per-heartbeat assignment limit)
#   capacity           SLS's CapacityScheduler, one queue `default` with the
#                      whole cluster, AMs up to half of it (the comparison
#                      harness's setup, scripts/compare-yarn.sh), everything
#                      else its defaults: at most 1 off-switch container per
#                      node heartbeat, node-locality-delay 40
#   capacity:multi     the same, but up to 100 off-switch containers per node
#                      heartbeat (its own cap on all assignments per
#                      heartbeat), i.e. as many as fit, as Shepherd places
#   <any of these>@async=<ms>
#                      allocation between node heartbeats, a round every
#                      <ms>: Shepherd's scheduling rounds
#                      (yarn.scheduler.shepherd.async-scheduling.interval-ms,
#                      at most 100 nodes a round) or the CapacityScheduler's
#                      asynchronous scheduling thread
#                      (schedule-asynchronously, one thread over every node);
#                      the label gains -async<ms>. The CapacityScheduler's
#                      node heartbeats then only report; Shepherd's still
#                      allocate too
#   shepherd:<policy>@async-only=<ms>
#                      Shepherd's rounds every <ms>, and node heartbeats
#                      only report, as the CapacityScheduler's do
#                      (async-scheduling.heartbeats-allocate = false); the
#                      label gains -asynconly<ms>
# Both CapacityScheduler setups run with the preemption monitor SLS turns on
# for its CapacityScheduler.
#
# Other options: --policy P[,P...] (shorthand for shepherd:P for each plus
# both capacity setups), --nodes N[,N...] (default 1000,5000), --repeat K
# (default 1), --out DIR (default target/sls-bench), --jobs-per-1000-nodes J
# (default 400), --tasks T (maps per job, default 300), --task-ms MS
# (default 2000), --nm-vcores V (slots per NM, 1 GiB / 1 vcore each; default
# 16), --profile (a JFR recording per run, split by JfrBreakdown into
# profile.txt), --timeout-s S (per run, default 600), --quiet-wait-s S
# (before each run, wait up to S seconds, default 600, for the machine to be
# idle: less than half a core busy).
#
# How long: SLS runs in real time. One repetition of the defaults (4
# schedulers × 2 node counts) takes about 15 minutes on the 2-core dev box
# when nothing else runs (each run ~20 s of JVM and NM start-up plus 35-240 s
# of simulation); --repeat 3 about 45 minutes. Background load slows SLS and
# every figure with it; the table's "other load" column shows it per run.
# The dense trace at 5 000 NMs (--nodes 5000 --nm-vcores 64
# --jobs-per-1000-nodes 1200: 320 000 slots, 1.8 M maps) needs
# SHEPHERD_SLS_HEAP=16g and --timeout-s 1800: Shepherd ~3 min, the default
# CapacityScheduler 7-11 min, capacity:multi hits the 30-minute limit.
#
# Environment: SHEPHERD_SKIP_BUILD=1 uses the engine and shim as built;
# SHEPHERD_M2 / SHEPHERD_MVN_OFFLINE as for every script; SHEPHERD_SLS_HEAP
# (default 8g) is each SLS JVM's heap; SHEPHERD_NATIVE_LIB names another
# libshepherd.so; SHEPHERD_SLS_SHIM_JAR runs a shim jar that is not
# installed (e.g. one with an unmerged fix) instead of the installed one.
source "$(dirname "$0")/lib.sh"

SCHEDULER_SPECS=shepherd:drf,shepherd:composed,capacity,capacity:multi
NODES=1000,5000
REPEAT=1
OUT="$ROOT/target/sls-bench"
JOBS_PER_1000=400
TASKS=300
TASK_MS=2000
NM_VCORES=16
PROFILE=0
TIMEOUT_S=600
QUIET_WAIT_S=600
while [ $# -gt 0 ]; do
  case "$1" in
    --schedulers) SCHEDULER_SPECS="$2"; shift 2 ;;
    --policy|--policies)
      SCHEDULER_SPECS="$(echo "$2" | tr ',' '\n' | sed 's/^/shepherd:/' | paste -sd, -),capacity,capacity:multi"
      shift 2 ;;
    --nodes) NODES="$2"; shift 2 ;;
    --repeat) REPEAT="$2"; shift 2 ;;
    --out) OUT="$2"; shift 2 ;;
    --jobs-per-1000-nodes) JOBS_PER_1000="$2"; shift 2 ;;
    --tasks) TASKS="$2"; shift 2 ;;
    --task-ms) TASK_MS="$2"; shift 2 ;;
    --nm-vcores) NM_VCORES="$2"; shift 2 ;;
    --profile) PROFILE=1; shift ;;
    --timeout-s) TIMEOUT_S="$2"; shift 2 ;;
    --quiet-wait-s) QUIET_WAIT_S="$2"; shift 2 ;;
    *) echo "sls-bench: unknown option $1 (see the header of $0)" >&2; exit 1 ;;
  esac
done

check_prerequisites
build_engine_and_shim
CP="$(sls_classpath)"
LIB="${SHEPHERD_NATIVE_LIB:-$ROOT/target/release/libshepherd.so}"
[ -f "$LIB" ] || { echo "sls-bench: no engine at $LIB (cargo build --release)" >&2; exit 1; }
HEAP="${SHEPHERD_SLS_HEAP:-8g}"
mkdir -p "$OUT"
# JDK17_OPENS is a space-separated list of flags: split on purpose.
# shellcheck disable=SC2206
JVM=(java -Xms"$HEAP" -Xmx"$HEAP" $JDK17_OPENS -cp "$CP")
TOOL=(java -Xmx1g -cp "$CP")

IFS=',' read -ra SCHEDULERS <<< "$SCHEDULER_SPECS"
echo "==> $(date -u +%FT%TZ) on $(nproc) cores; engine $LIB; results in $OUT"
failed=0
IFS=',' read -ra NODE_LIST <<< "$NODES"
for n in "${NODE_LIST[@]}"; do
  jobs=$(( n * JOBS_PER_1000 / 1000 ))
  input="$OUT/inputs/nodes-$n"
  "${TOOL[@]}" org.shepherd.yarn.sls.bench.SynthTrace --out "$input" --nodes "$n" \
    --jobs "$jobs" --tasks "$TASKS" --task-ms "$TASK_MS" --spread-s 5
  for k in $(seq 1 "$REPEAT"); do
    # Schedulers alternate within a repetition, so slow drifts in the
    # machine's background load fall on all of them alike.
    for s in "${SCHEDULERS[@]}"; do
      # A suffix @async=<ms>: allocation between heartbeats, a round every
      # <ms> (Shepherd's rounds, the CapacityScheduler's asynchronous thread);
      # @async-only=<ms>: Shepherd's rounds, heartbeats that only report.
      async_ms=0
      async=async
      if [[ "$s" == *@async-only=* ]]; then
        async=async-only
      fi
      if [[ "$s" == *@$async=* ]]; then
        async_ms="${s##*@$async=}"
        s="${s%@$async=*}"
        [[ "$async_ms" =~ ^[1-9][0-9]*$ ]] || {
          echo "sls-bench: scheduler $s@$async=$async_ms: @$async= needs a positive number of ms" >&2; exit 1; }
        [[ "$async" == async || "$s" == shepherd:* ]] || {
          echo "sls-bench: scheduler $s@$async=$async_ms: @async-only= is Shepherd's (the CapacityScheduler's heartbeats only report under @async=)" >&2; exit 1; }
      fi
      case "$s" in
        capacity)
          label=capacity
          args=(--scheduler capacity) ;;
        capacity:multi)
          label=capacity-multi
          args=(--scheduler capacity --capacity-offswitch-per-heartbeat 100 --label "$label") ;;
        shepherd:*)
          label="shepherd-${s#shepherd:}"
          args=(--scheduler shepherd --policy "${s#shepherd:}" --native-library "$LIB") ;;
        *) echo "sls-bench: unknown scheduler $s (see the header of $0)" >&2; exit 1 ;;
      esac
      if [ "$async_ms" != 0 ]; then
        label="$label-${async/-/}$async_ms"
        args+=(--"$async"-interval-ms "$async_ms" --label "$label")
      fi
      run="$OUT/nodes-$n/$label/run-$k"
      rm -rf "$run"
      mkdir -p "$run"
      extra=()
      if [ "$PROFILE" = 1 ]; then
        extra=(-XX:StartFlightRecording=settings="$ROOT/sls/src/main/resources/sls-profile.jfc",filename="$run/profile.jfr")
      fi
      echo "==> $label, $n NMs, repetition $k"
      wait_for_quiet
      if "${JVM[@]}" "${extra[@]}" org.shepherd.yarn.sls.bench.SlsBenchRun "${args[@]}" \
          --trace "$input/synth.json" --nodes "$input/nodes.json" --out "$run" \
          --nm-vcores "$NM_VCORES" --nm-memory-mb $(( NM_VCORES * 1024 )) \
          --timeout-s "$TIMEOUT_S" > "$run/sls.log" 2>&1; then
        :
      else
        echo "    exit status $? — see $run/sls.log" >&2
        failed=1
      fi
      if [ "$PROFILE" = 1 ] && [ -f "$run/profile.jfr" ]; then
        "${TOOL[@]}" org.shepherd.yarn.sls.bench.JfrBreakdown "$run/profile.jfr" \
          | tee "$run/profile.txt"
      fi
    done
  done
done

echo
echo "==> results ($OUT/table.md)"
"${TOOL[@]}" org.shepherd.yarn.sls.bench.SlsBenchReport "$OUT" --md "$OUT/table.md"
exit "$failed"
