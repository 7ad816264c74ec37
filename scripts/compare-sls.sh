#!/usr/bin/env bash
# Schedulers compared on YARN's own Scheduler Load Simulator (SLS): the real
# ResourceManager with the real CapacityScheduler, the real FairScheduler, or
# Shepherd's shim and engine, simulated NodeManagers and MapReduce AMs (SLS's
# MRAMSimulator), the same SLS trace and the same queues for every scheduler.
# Each run records every job as the real-cluster harness does (jobs.json,
# samples.jsonl: org.shepherd.yarn.sls.compare.JobRecorder), and `shepherd
# yarn-report` prints the same tables (JCT, wait, small/large mean, P50, P95,
# makespan, Jain's index across the queues' users; median [min, max] over
# repetitions) and writes the JCT CDF plot (jct-cdf.svg).
#
#   scripts/compare-sls.sh --workload facebook|google|hibench[-contended] [--repeat 3]
#   scripts/compare-sls.sh --trace my.sls.json          # my.nodes.json beside it
#   scripts/compare-sls.sh --quick                      # CI: 20 NMs, a few jobs
#   scripts/compare-sls.sh --preemption [--repeat 3]    # queue-guarantee preemption
#
# Options:
#   --workload W    a generated workload (below), written to OUT/trace.sls.json
#                   with its node file OUT/trace.nodes.json by `shepherd generate`
#   --trace FILE    an SLS trace (`shepherd generate --trace any.json|any.swim
#                   --out FILE.sls.json` converts any trace); FILE's node file is
#                   FILE with .sls.json replaced by .nodes.json
#   --schedulers L  comma list of capacity, fair, shepherd:<policy> (default
#                   capacity,fair,shepherd:composed,shepherd:drf,shepherd:dress,
#                   shepherd:carbyne,shepherd:slearn); a "+preempt" suffix
#                   (capacity+preempt, shepherd:drf+preempt) turns on
#                   queue-guarantee preemption: the CapacityScheduler's
#                   preemption monitor, or Shepherd's preemption = true on
#                   every queue, both with their defaults; labelled -preempt
#   --repeat K      repetitions (default 3; schedulers alternate within one)
#   --out DIR       default target/sls-compare/<workload>
#   --baseline L    label the ratio table divides by (default capacity, or the
#                   first scheduler's label when capacity is not run)
#   --pipelines F   a TOML file of [pipeline.NAME] tables added to every
#                   Shepherd run's config, so shepherd:NAME runs a pipeline
#                   of one's own (docs/policies/pipelines.md) on the same queues
#   --timeout-s S   per run, wall clock (default 2400)
#   --quiet-wait-s S  before each run wait up to S s for an idle machine (default 300)
#   --quick         CI size: 20 NMs, a few jobs, capacity and shepherd:composed,
#                   one repetition; fails unless every job SUCCEEDED in every run
#   --preemption    the queue-guarantee preemption scenario (scripts/sls_preemption.py):
#                   10 NMs of 8 GiB / 8 vcores, queues a and b guaranteed half
#                   each; a fills the cluster at t = 0 with 79 maps of 150 s,
#                   b submits 2 jobs of 40 maps of 45 s at t = 20 s (82
#                   containers, guarantee 40).
#                   Default schedulers capacity, shepherd:composed and
#                   shepherd:drf, each without and with +preempt. Then a table:
#                   time for b to reach 90 % and 100 % of its guarantee,
#                   containers preempted (AM, non-AM) and the work killed
#                   (MB-s, vcore-s, the RM's RMAppMetrics), jobs SUCCEEDED,
#                   b's and a's JCT; fails unless every job SUCCEEDED. About
#                   5-6 minutes of wall time per run.
#
# The workloads (each 4 queues q1..q4 with one user each, equal guarantees;
# 200 NMs of 32 GiB / 16 vcores so memory binds for 2 GiB maps and 4 GiB
# reduces, as the CapacityScheduler's default calculator counts memory only;
# arrivals over 8 minutes; offered load 0.83-0.86; 12-18 simulated minutes):
#   facebook  Carbyne's Facebook-like trace: 1200 jobs, 50 107 tasks,
#             heavy-tailed widths, 40 % map-only
#   google    SLearn's Google-2011-like widths and skew: 1400 jobs, 25 757 tasks
#   hibench   DRESS's HiBench-like mix, 40 % small: 50 jobs, 48 837 tasks
# Where containers are scarce, so the order jobs are served in shows: 200 NMs
# of 8 GiB / 4 vcores (800 slots), the same queues and arrivals:
#   facebook-contended  1200 jobs, 12 316 tasks, offered load 1.41; 16-21
#             simulated minutes
#   google-contended    1400 jobs, 25 757 tasks, offered load 1.11; 11-12 min
#   hibench-contended   50 jobs, 48 837 tasks, offered load 1.22; 12-13 min
#
# How long: SLS runs in real time. A full workload is ~15-20 minutes of wall
# time per run, so 7 schedulers x 3 repetitions is about 6-7 hours; --quick
# about 2 minutes. Background load slows SLS's heartbeats: each run first
# waits for an idle machine.
#
# Then, Shepherd's simulator on the same trace with SLS's mechanics, per job:
#   target/release/shepherd calibrate OUT --trace OUT/trace.sls.json --cluster-model sls
#
# Environment: SHEPHERD_SKIP_BUILD=1 uses the engine and shim as built;
# SHEPHERD_SLS_HEAP (default 4g) is each SLS JVM's heap; SHEPHERD_M2,
# SHEPHERD_MVN_OFFLINE and SHEPHERD_SLS_SHIM_JAR as for every script.
CALLER_DIR="$PWD"
source "$(dirname "$0")/lib.sh"
abs() { case "$1" in /*) echo "$1" ;; *) echo "$CALLER_DIR/$1" ;; esac; }

WORKLOAD=""
TRACE=""
SCHEDULERS="capacity,fair,shepherd:composed,shepherd:drf,shepherd:dress,shepherd:carbyne,shepherd:slearn"
REPEAT=3
OUT=""
BASELINE=capacity
TIMEOUT_S=2400
QUIET_WAIT_S=300
QUICK=0
PREEMPTION=0
SCHEDULERS_GIVEN=0
BASELINE_GIVEN=0
PIPELINES=()
while [ $# -gt 0 ]; do
  case "$1" in
    --workload) WORKLOAD="$2"; shift 2 ;;
    --trace) TRACE="$(abs "$2")"; shift 2 ;;
    --schedulers) SCHEDULERS="$2"; SCHEDULERS_GIVEN=1; shift 2 ;;
    --repeat) REPEAT="$2"; shift 2 ;;
    --out) OUT="$(abs "$2")"; shift 2 ;;
    --baseline) BASELINE="$2"; BASELINE_GIVEN=1; shift 2 ;;
    --timeout-s) TIMEOUT_S="$2"; shift 2 ;;
    --pipelines) PIPELINES=(--pipelines "$(abs "$2")"); shift 2 ;;
    --quiet-wait-s) QUIET_WAIT_S="$2"; shift 2 ;;
    --quick)
      QUICK=1; WORKLOAD=quick; SCHEDULERS="capacity,shepherd:composed"; REPEAT=1
      TIMEOUT_S=300; QUIET_WAIT_S=0; shift ;;
    --preemption) PREEMPTION=1; WORKLOAD=preemption; TIMEOUT_S=900; shift ;;
    *) echo "compare-sls: unknown option $1 (see the header of $0)" >&2; exit 2 ;;
  esac
done
if [ "$PREEMPTION" = 1 ] && [ "$SCHEDULERS_GIVEN" = 0 ]; then
  SCHEDULERS="capacity,capacity+preempt,shepherd:composed,shepherd:composed+preempt,shepherd:drf,shepherd:drf+preempt"
fi
if [ -z "$WORKLOAD" ] && [ -z "$TRACE" ]; then
  echo "compare-sls: give --workload facebook|google|hibench[-contended], --trace FILE.sls.json or --quick" >&2
  exit 2
fi

# `shepherd generate` arguments of each workload. The facebook and google
# generators size --load for their own 8-vcore nodes; on these 16-vcore nodes
# the offered load `generate` prints is what counts (0.83-0.86 below).
# hibench keeps each benchmark's first map-reduce round (SLS's MapReduce AM
# runs map-only or map-reduce jobs only).
EXTRA=()
CLUSTER=(--nodes 200 --node-memory-mb 32768 --node-vcores 16 --queues 4 --span-s 480)
# The "-contended" workloads: 200 NMs of 8 GiB / 4 vcores (800 slots).
SCARCE=(--nodes 200 --node-memory-mb 8192 --node-vcores 4 --queues 4 --span-s 480)
case "$WORKLOAD" in
  "") ;;
  # Written by scripts/sls_preemption.py; its nodes are 8 GiB / 8 vcores.
  preemption) EXTRA=(--nm-memory-mb 8192 --nm-vcores 8) ;;
  quick) GEN=(--generate facebook --seed 1 --nodes 20 --node-memory-mb 32768 --node-vcores 16
              --queues 2 --jobs 10 --tasks 200 --span-s 30 --load 0.5) ;;
  facebook) GEN=(--generate facebook --seed 7 --jobs 1200 --tasks 50000 --load 1.4 "${CLUSTER[@]}") ;;
  google) GEN=(--generate google --seed 3 --jobs 1400 --load 1.2 "${CLUSTER[@]}") ;;
  # The facebook generator where containers are scarce: 800 slots, offered
  # load 1.41 over the arrivals, so the order in which jobs are served shows.
  facebook-contended) GEN=(--generate facebook --seed 7 --jobs 1200 --tasks 12000 --load 0.6
                           "${SCARCE[@]}") ;;
  google-contended) GEN=(--generate google --seed 3 --jobs 1400 --load 0.4 "${SCARCE[@]}") ;;
  hibench-contended) GEN=(--generate hibench --seed 2 --jobs 50 --max-rounds 1 --small-share 0.4
                          --load 0.3 "${SCARCE[@]}") ;;
  hibench) GEN=(--generate hibench --seed 2 --jobs 50 --max-rounds 1 --small-share 0.4 --load 0.85
                "${CLUSTER[@]}") ;;
  *) echo "compare-sls: unknown workload $WORKLOAD (facebook, google, hibench, each also -contended)" >&2; exit 2 ;;
esac
OUT="${OUT:-$ROOT/target/sls-compare/${WORKLOAD:-$(basename "${TRACE%.sls.json}")}}"

check_prerequisites
build_engine_and_shim
SHEPHERD="$ROOT/target/release/shepherd"
LIB="${SHEPHERD_NATIVE_LIB:-$ROOT/target/release/libshepherd.so}"
[ -x "$SHEPHERD" ] && [ -f "$LIB" ] || {
  echo "compare-sls: no engine at $LIB or tool at $SHEPHERD (cargo build --release)" >&2; exit 1; }
CP="$(sls_classpath)"
# JDK17_OPENS is a space-separated list of flags: split on purpose.
# shellcheck disable=SC2206
JVM=(java -Xms"${SHEPHERD_SLS_HEAP:-4g}" -Xmx"${SHEPHERD_SLS_HEAP:-4g}" $JDK17_OPENS -cp "$CP")

rm -rf "$OUT"
mkdir -p "$OUT"
if [ "$WORKLOAD" = preemption ]; then
  TRACE="$OUT/trace.sls.json"
  echo "==> workload preemption: scripts/sls_preemption.py trace $TRACE"
  python3 "$ROOT/scripts/sls_preemption.py" trace "$TRACE"
elif [ -n "$WORKLOAD" ]; then
  TRACE="$OUT/trace.sls.json"
  echo "==> workload $WORKLOAD: shepherd generate ${GEN[*]} --out $TRACE"
  "$SHEPHERD" generate "${GEN[@]}" --out "$TRACE"
fi
NODES="${TRACE%.sls.json}.nodes.json"
[ -f "$TRACE" ] && [ -f "$NODES" ] || {
  echo "compare-sls: need $TRACE and its node file $NODES" >&2; exit 1; }

IFS=',' read -ra LIST <<< "$SCHEDULERS"
# Without capacity among the schedulers, the first one's label is the
# baseline unless one was named.
if [ "$BASELINE_GIVEN" = 0 ] && [[ ",$SCHEDULERS," != *",capacity,"* ]]; then
  BASELINE="${LIST[0]%+preempt}"
  BASELINE="${BASELINE/shepherd:/shepherd-}"
  [ "${LIST[0]}" != "${LIST[0]%+preempt}" ] && BASELINE="$BASELINE-preempt"
fi
echo "==> $(date -u +%FT%TZ) on $(nproc) cores: ${LIST[*]} x $REPEAT on $TRACE; results in $OUT"
failed=0
started=$SECONDS
for k in $(seq 1 "$REPEAT"); do
  # Schedulers alternate within a repetition, so slow drifts in the
  # machine's background load fall on all of them alike.
  for s in "${LIST[@]}"; do
    base="${s%+preempt}"
    case "$base" in
      capacity|fair) label="$base"; args=(--scheduler "$base") ;;
      shepherd:*) label="shepherd-${base#shepherd:}"
        args=(--scheduler shepherd --policy "${base#shepherd:}" --native-library "$LIB" "${PIPELINES[@]}") ;;
      *) echo "compare-sls: unknown scheduler $s (capacity, fair, shepherd:<policy>)" >&2; exit 2 ;;
    esac
    if [ "$base" != "$s" ]; then
      label="$label-preempt"
      args+=(--preemption)
    fi
    args+=("${EXTRA[@]}")
    run="$OUT/$label/run-$k"
    mkdir -p "$run"
    [ "$QUIET_WAIT_S" -gt 0 ] && wait_for_quiet
    t0=$SECONDS
    if "${JVM[@]}" org.shepherd.yarn.sls.bench.SlsBenchRun "${args[@]}" --tracetype sls \
        --trace "$TRACE" --nodes "$NODES" --out "$run" --run "$k" --label "$label" \
        --timeout-s "$TIMEOUT_S" > "$run/sls.log" 2>&1; then
      echo "==> $label, repetition $k: $(( SECONDS - t0 )) s wall"
    else
      echo "==> $label, repetition $k: exit status $? after $(( SECONDS - t0 )) s — see $run/sls.log" >&2
      failed=1
    fi
  done
done
echo "==> $(( SECONDS - started )) s of SLS runs"

echo
report=("$SHEPHERD" yarn-report "$OUT" --baseline "$BASELINE")
[ "$QUICK" = 1 ] && report+=(--require-success)
"${report[@]}"
for f in summary.json summary.csv jct-cdf.svg; do
  [ -s "$OUT/$f" ] || { echo "compare-sls: the report did not write $OUT/$f" >&2; failed=1; }
done
if [ "$WORKLOAD" = preemption ]; then
  echo
  python3 "$ROOT/scripts/sls_preemption.py" report "$OUT" || failed=1
fi
exit "$failed"
