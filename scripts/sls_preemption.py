#!/usr/bin/env python3
"""Queue-guarantee preemption in SLS: the scenario and its table.

Used by `scripts/compare-sls.sh --preemption` (see its header):

  sls_preemption.py trace OUT/trace.sls.json   # writes it and OUT/trace.nodes.json
  sls_preemption.py report OUT                 # reads OUT/<label>/run-<k>/

The scenario: 10 NodeManagers of 8 GiB / 8 vcores (80 containers of
1 GiB / 1 vcore, the size of every task and AM, so memory and vcores bind
alike and the CapacityScheduler's memory-only calculator sees what
Shepherd's dominant share sees). Two queues, each guaranteed half and
allowed the whole cluster (QueueSetup). At t = 0 queue a submits one job
whose AM and 79 maps of 150 s fill the cluster; at t = 20 s queue b submits
two jobs of 40 maps of 45 s each: 82 containers, twice its guarantee of 40,
so its demand outlasts the time preemption takes.

The report, per run, from what the run recorded (JobRecorder):
  * time from b's first submission (the RM's start time of its first app)
    until b's allocation reaches its guarantee, and 90 % of it: b's
    allocation is the sum of the scheduler's usage reports of b's live apps
    (`queues` in samples.jsonl, every 500 ms), in memory;
  * containers preempted (AM / non-AM) and the work they had done when
    killed (MB-seconds, vcore-seconds): the RM's own per-app records
    (RMAppMetrics), booked for any container that ends with exit status
    PREEMPTED whichever scheduler killed it;
  * whether every job SUCCEEDED; b's and a's mean JCT; the makespan.
Over repetitions: median [min, max] (one number when they print alike).
"""

import json
import statistics
import sys
from pathlib import Path

NODES = 10
NODE_MB = 8192
NODE_VCORES = 8
TASK_MB = 1024
A_MAPS = 79          # with its AM: the whole cluster
A_TASK_MS = 150_000
B_START_MS = 20_000
B_JOBS = 2
B_MAPS = 40
B_TASK_MS = 45_000
STARVED = "b"


def job(jid, queue, user, start_ms, maps, task_ms, category):
    return {
        "am.type": "mapreduce",
        "job.start.ms": start_ms,
        "job.end.ms": start_ms + task_ms,
        "job.queue.name": queue,
        "job.id": jid,
        "job.user": user,
        "job.name": jid,
        "job.category": category,
        # One entry per task: SLS 3.4 counts a task entry's copies by a key
        # "count", Shepherd's trace reader by "container.count".
        "job.tasks": [{
            "container.duration.ms": task_ms,
            "container.priority": 20,
            "container.type": "map",
            "container.memory-mb": TASK_MB,
            "container.vcores": 1,
        }] * maps,
    }


def write_trace(trace):
    trace = Path(trace)
    jobs = [job("a-long", "a", "alice", 0, A_MAPS, A_TASK_MS, "large")]
    jobs += [job(f"b-{i + 1}", "b", "bob", B_START_MS, B_MAPS, B_TASK_MS, "small")
             for i in range(B_JOBS)]
    trace.write_text("".join(json.dumps(j, indent=2) + "\n" for j in jobs))
    nodes = {"rack": "rack-0", "nodes": [
        {"node": f"127.0.0.{i + 1}", "memory-mb": NODE_MB, "vcores": NODE_VCORES}
        for i in range(NODES)]}
    Path(str(trace).replace(".sls.json", ".nodes.json")).write_text(
        json.dumps(nodes, indent=2) + "\n")


def first_reach(samples, t0, queue, target_mb):
    """Seconds from t0 to the first sample at or after t0 where queue holds target_mb."""
    for s in samples:
        if s["t_ms"] >= t0 and s.get("queues", {}).get(queue, {}).get("allocated_mb", 0) >= target_mb:
            return (s["t_ms"] - t0) / 1000.0
    return None


def run_row(run):
    jobs = json.loads((run / "jobs.json").read_text())
    samples = [json.loads(line) for line in (run / "samples.jsonl").read_text().splitlines()
               if line.strip()]
    total_mb = max(s["cluster"]["total_mb"] for s in samples)
    queues = sorted({j["queue"] for j in jobs["jobs"]})
    guarantee_mb = total_mb / len(queues)
    b = [j for j in jobs["jobs"] if j["queue"] == STARVED]
    others = [j for j in jobs["jobs"] if j["queue"] != STARVED]
    t0 = min(j["submit_ms"] for j in b)

    def jct(js):
        done = [(j["finish_ms"] - j["submit_ms"]) / 1000.0 for j in js if j["finish_ms"] > 0]
        return statistics.mean(done) if len(done) == len(js) else None

    def total(key):
        return sum(j.get(key, 0) or 0 for j in jobs["jobs"])

    ends = [j["finish_ms"] for j in jobs["jobs"] if j["finish_ms"] > 0]
    starts = [j["submit_ms"] for j in jobs["jobs"] if j["submit_ms"] > 0]
    return {
        "to_guarantee_s": first_reach(samples, t0, STARVED, guarantee_mb),
        "to_90pct_s": first_reach(samples, t0, STARVED, 0.9 * guarantee_mb),
        "peak_b_share": max(s.get("queues", {}).get(STARVED, {}).get("allocated_mb", 0)
                            for s in samples if s["t_ms"] >= t0) / guarantee_mb,
        "am_preempted": total("preempted_am_containers"),
        "non_am_preempted": total("preempted_non_am_containers"),
        "killed_mb_s": total("preempted_memory_mb_s"),
        "killed_vcore_s": total("preempted_vcore_s"),
        "succeeded": sum(1 for j in jobs["jobs"] if j["final_status"] == "SUCCEEDED"),
        "jobs": len(jobs["jobs"]),
        "b_jct_s": jct(b),
        "a_jct_s": jct(others),
        "makespan_s": (max(ends) - min(starts)) / 1000.0 if ends and starts else None,
    }


def agg(values, fmt):
    if any(v is None for v in values):
        reached = [v for v in values if v is not None]
        return f"not reached in {len(values) - len(reached)} of {len(values)}" + (
            f"; {fmt(statistics.median(reached))}" if reached else "")
    med = statistics.median(values)
    if fmt(min(values)) == fmt(max(values)):
        return fmt(med)
    return f"{fmt(med)} [{fmt(min(values))}, {fmt(max(values))}]"


def report(out):
    out = Path(out)
    runs = {}
    for run in sorted(out.glob("*/run-*/jobs.json")):
        runs.setdefault(run.parent.parent.name, []).append(run_row(run.parent))
    if not runs:
        sys.exit(f"sls_preemption: no runs under {out}")
    sec = lambda v: f"{v:.0f} s" if v >= 10 else f"{v:.1f} s"
    num = lambda v: f"{v:.0f}"
    pct = lambda v: f"{100 * v:.0f} %"
    cols = [
        ("b to 90 % of guarantee", "to_90pct_s", sec),
        ("b to its guarantee", "to_guarantee_s", sec),
        ("b's peak / guarantee", "peak_b_share", pct),
        ("AM preempted", "am_preempted", num),
        ("non-AM preempted", "non_am_preempted", num),
        ("work killed, MB·s", "killed_mb_s", num),
        ("work killed, vcore·s", "killed_vcore_s", num),
        ("jobs SUCCEEDED", None, None),
        ("b's mean JCT", "b_jct_s", sec),
        ("a's JCT", "a_jct_s", sec),
        ("makespan", "makespan_s", sec),
    ]
    reps = sorted({len(v) for v in runs.values()})
    print(f"Queue-guarantee preemption in SLS ({out}); "
          f"{'/'.join(map(str, reps))} run(s) each, median [min, max]")
    print()
    print("| run | " + " | ".join(c[0] for c in cols) + " |")
    print("|---" * (len(cols) + 1) + "|")
    failed = False
    for label in sorted(runs, key=lambda l: (l.replace("-preempt", ""), l.endswith("-preempt"))):
        rows = runs[label]
        cells = []
        for _, key, fmt in cols:
            if key is None:
                ok = sum(r["succeeded"] for r in rows)
                n = sum(r["jobs"] for r in rows)
                failed |= ok < n
                cells.append(f"{ok}/{n}")
            else:
                cells.append(agg([r[key] for r in rows], fmt))
        print(f"| {label} | " + " | ".join(cells) + " |")
    (out / "preemption-summary.json").write_text(json.dumps(runs, indent=2) + "\n")
    return 1 if failed else 0


if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[1] not in ("trace", "report"):
        sys.exit(__doc__)
    if sys.argv[1] == "trace":
        write_trace(sys.argv[2])
    else:
        sys.exit(report(sys.argv[2]))
