//! The scale simulator (`shepherd scale-sim`, src/sim/scale): latencies
//! computed by hand on tiny traces, Megha's optimistic conflict resolved
//! by its LM, invariants on random mid-size runs of every architecture,
//! determinism, Sparrow's head-of-line blocking, and the zero-cost floor
//! letting a task wait only while no node has room for it.

use shepherd::model::Resources;
use shepherd::sim::scale::report::RunRecord;
use shepherd::sim::scale::{self, central, Arch, ArchReport, IdealOptions, MeghaOptions, QueueOrder, ScaleOptions};
use shepherd::workload::gen::{generate, GenParams};
use shepherd::workload::{ClusterSpec, Job, Stage, Task, Trace};

fn stage(after: Vec<usize>, vcores: i64, durations_ms: &[i64]) -> Stage {
    Stage {
        name: String::new(),
        after,
        slowstart: None,
        memory_mb: 1024 * vcores,
        vcores,
        tasks: durations_ms.iter().map(|&d| Task { duration_ms: d, used: None }).collect(),
    }
}

fn job(id: &str, submit_ms: i64, user: &str, stages: Vec<Stage>) -> Job {
    Job {
        id: id.into(),
        submit_ms,
        user: user.into(),
        name: id.into(),
        queue: "default".into(),
        category: None,
        gang: false,
        app_type: None,
        am: None,
        stages,
    }
}

/// `nodes` nodes of `vcores` vcores (1 GiB each).
fn trace(nodes: u32, vcores: i64, jobs: Vec<Job>) -> Trace {
    Trace { cluster: Some(ClusterSpec { nodes, memory_mb: 1024 * vcores, vcores, rack_size: 40 }), am: None, jobs }
}

fn only(arch: Arch) -> ScaleOptions {
    ScaleOptions { archs: vec![arch], keep_runs: true, ..ScaleOptions::default() }
}

fn run_one(t: &Trace, o: &ScaleOptions) -> ArchReport {
    let mut r = scale::run(t, o).unwrap();
    assert_eq!(r.runs.len(), 1);
    r.runs.remove(0)
}

fn latency_us(r: &RunRecord) -> i64 {
    r.start_us - r.ask_us
}

fn run_of(r: &ArchReport, task: u32) -> Vec<&RunRecord> {
    r.runs.iter().filter(|x| x.task == task).collect()
}

/// Sweep every node's runs in time: usage never exceeds the node's
/// capacity (independent of the simulator's own ledger).
fn assert_never_over_capacity(t: &Trace, r: &ArchReport, capacity: Resources) {
    let demand_of = task_demands(t);
    let mut by_node: std::collections::BTreeMap<u32, Vec<(i64, i32, u32)>> = Default::default();
    for run in &r.runs {
        assert!(run.end_us >= run.start_us, "{run:?} never ended");
        let e = by_node.entry(run.node).or_default();
        e.push((run.start_us, 1, run.task));
        e.push((run.end_us, -1, run.task));
    }
    for (node, mut edges) in by_node {
        // Ends before starts at the same instant (a freed slot is reused at once).
        edges.sort_by_key(|&(t, kind, task)| (t, kind, task));
        let mut used = Resources::ZERO;
        for (time, kind, task) in edges {
            let d = demand_of[task as usize];
            if kind > 0 {
                used += d;
                assert!(used.fits_in(&capacity), "node {node} over capacity at {time} µs: {used:?} > {capacity:?}");
            } else {
                used -= d;
            }
        }
    }
}

/// Sweep the instants at which anything happens, rebuilding every node's
/// free resources from the runs alone: after all of an instant's asks,
/// starts and ends, no waiting task's demand fits any node.
fn assert_waits_only_without_room(t: &Trace, r: &ArchReport, what: &str) {
    enum Change {
        Asked,
        Started,
        Ended,
    }
    let demand = task_demands(t);
    let cluster = t.cluster.as_ref().unwrap();
    let mut free = vec![cluster.capacity(); cluster.nodes as usize];
    let mut changes: Vec<(i64, usize, Change)> = Vec::new();
    for (i, x) in r.runs.iter().enumerate() {
        // A run started the instant it was asked never waits.
        if x.start_us > x.ask_us {
            changes.push((x.ask_us, i, Change::Asked));
        }
        changes.push((x.start_us, i, Change::Started));
        changes.push((x.end_us, i, Change::Ended));
    }
    changes.sort_by_key(|c| c.0);
    // Waiting runs and their demand.
    let mut waiting: std::collections::BTreeMap<usize, Resources> = Default::default();
    for instant in changes.chunk_by(|a, b| a.0 == b.0) {
        for (_, i, change) in instant {
            let x = &r.runs[*i];
            let d = demand[x.task as usize];
            match change {
                Change::Asked => {
                    waiting.insert(*i, d);
                }
                Change::Started => {
                    waiting.remove(i);
                    free[x.node as usize] -= d;
                }
                Change::Ended => free[x.node as usize] += d,
            }
        }
        let now = instant[0].0;
        for d in waiting.values().copied().collect::<std::collections::HashSet<_>>() {
            let roomy = free.iter().position(|f| d.fits_in(f));
            assert_eq!(roomy, None, "{what}: at {now} µs a task of {d:?} waits and node {roomy:?} has room");
        }
    }
}

/// Each task's demand, by task number. Tasks are numbered in submission
/// order (stable); the traces here are generated sorted, so trace order is
/// that order.
fn task_demands(t: &Trace) -> Vec<Resources> {
    let mut demand_of = Vec::new();
    for j in &t.jobs {
        for s in &j.stages {
            demand_of.extend(std::iter::repeat_n(s.demand(), s.tasks.len()));
        }
    }
    demand_of
}

#[test]
fn sparrow_one_task_is_three_network_delays_plus_service() {
    let t = trace(4, 8, vec![job("a", 0, "u", vec![stage(vec![], 1, &[1000])])]);
    let r = run_one(&t, &only(Arch::Sparrow));
    // 2 probes sent (2 × 1 µs), probe → worker (500), get-task → scheduler
    // (500), answered (1 µs), task → worker (500).
    assert_eq!(r.runs.len(), 1);
    assert_eq!(latency_us(&r.runs[0]), 3 * 500 + 2 + 1);
    assert_eq!(r.latency_ms.max, 1.503);
    assert_eq!((r.counters.probes, r.counters.probe_cancels), (2, 1));
}

#[test]
fn megha_one_task_is_match_two_network_delays_and_validation() {
    let t = trace(4, 8, vec![job("a", 0, "u", vec![stage(vec![], 1, &[1000])])]);
    for (gms, lms) in [(2, 2), (1, 1), (10, 10)] {
        let o = ScaleOptions { megha: MeghaOptions { gms, lms, ..MeghaOptions::default() }, ..only(Arch::Megha) };
        let r = run_one(&t, &o);
        // GM match 5 µs (+0.01 µs for the one word scanned, rounded away),
        // GM → LM 500, LM validate-and-commit 2, launch → node 500.
        assert_eq!(latency_us(&r.runs[0]), 5 + 500 + 2 + 500, "{gms} GMs x {lms} LMs");
        assert_eq!((r.counters.conflicts, r.counters.repartitions), (0, if gms == 10 { 1 } else { 0 }));
    }
}

/// Beyond the paper (`gm_batch`): one GM, one LM, a stage of three 1-vcore
/// tasks that all fit node 0. One task per match (the paper): matches at
/// 0–5, 5–10 and 10–15 µs, each validated 2 µs after it reaches the LM
/// 500 µs later, so the tasks start at 1 007, 1 012 and 1 017 µs. In one
/// batch: one match of 5 µs + 3 one-word scans (0.03 µs) + 1 µs for each
/// of the two further tasks = 7 µs, one request the LM validates task by
/// task (3 × 2 µs) and answers once: all three start at 7 + 500 + 6 + 500.
#[test]
fn megha_batch_places_a_stage_in_one_match_and_one_answer() {
    let t = trace(4, 8, vec![job("a", 0, "u", vec![stage(vec![], 1, &[1000, 1000, 1000])])]);
    let with = |gm_batch| ScaleOptions { megha: MeghaOptions { gms: 1, lms: 1, gm_batch, ..MeghaOptions::default() }, ..only(Arch::Megha) };
    let paper = run_one(&t, &with(1));
    let batched = run_one(&t, &with(3));
    let latencies = |r: &ArchReport| (0..3).map(|k| latency_us(run_of(r, k)[0])).collect::<Vec<_>>();
    assert_eq!(latencies(&paper), vec![1007, 1012, 1017]);
    assert_eq!(latencies(&batched), vec![1013, 1013, 1013]);
    assert_eq!((paper.counters.matches, batched.counters.matches), (3, 1));
    assert!(batched.runs.iter().all(|x| x.node == 0));
    // A batch larger than the stage stops at its last task; two tasks per
    // batch leave the third to a second match (5 + 0.02 + 1 = 6 µs, then
    // 5 µs more; the LM serves the pair 506–510 and the third 511–513).
    assert_eq!(latencies(&run_one(&t, &with(64))), vec![1013, 1013, 1013]);
    let pairs = run_one(&t, &with(2));
    assert_eq!(latencies(&pairs), vec![1010, 1010, 1013]);
    assert_eq!(pairs.counters.matches, 2);
}

#[test]
fn megha_repartition_when_the_internal_partitions_are_empty() {
    // 10 GMs over 4 nodes: GM 0's internal partitions are empty, so its
    // task goes to another GM's partition (§IV-B4) at the same cost.
    let t = trace(4, 8, vec![job("a", 0, "u", vec![stage(vec![], 1, &[1000, 1000])])]);
    let r = run_one(&t, &only(Arch::Megha));
    assert_eq!(r.counters.repartitions, 2);
    assert!(r.runs.iter().all(|x| latency_us(x) >= 1007));
}

#[test]
fn central_one_task_waits_for_the_nodes_heartbeat() {
    let o = only(Arch::Central);
    let phase = central::heartbeat_phases(1, 1000, o.seed)[0];
    // Asked at 0: the node's first heartbeat reaches the scheduler at
    // `phase`, takes 40 µs, the launch takes 500 µs.
    let t = trace(1, 8, vec![job("a", 0, "u", vec![stage(vec![], 1, &[1000])])]);
    let r = run_one(&t, &o);
    assert_eq!(latency_us(&r.runs[0]), phase + 40 + 500);
    // Asked 0.1 ms after a heartbeat (at 10 s + phase): the next one is 1 s later.
    let t = trace(1, 8, vec![job("a", 10_000 + phase / 1000 + 1, "u", vec![stage(vec![], 1, &[1000])])]);
    let r = run_one(&t, &o);
    let asked = (10_000 + phase / 1000 + 1) * 1000;
    assert_eq!(latency_us(&r.runs[0]), 11_000_000 + phase - asked + 40 + 500);
}

fn with_rounds(round_nodes: usize) -> ScaleOptions {
    let mut o = only(Arch::Central);
    o.central.round_ms = 20;
    o.central.round_nodes = round_nodes;
    o
}

/// Rounds between heartbeats (Shepherd's `async-scheduling.interval-ms`):
/// the first round asks for the scheduler at 0, and one every 20 ms after
/// the previous one ended. One node; its heartbeat comes later than 101 ms
/// after each second (its phase, checked).
#[test]
fn central_rounds_place_between_heartbeats_on_the_books_heartbeats_keep() {
    let o = with_rounds(100);
    let phase = central::heartbeat_phases(1, 1000, o.seed)[0];
    assert!(phase > 101_000, "the test assumes the node's heartbeat phase is past 101 ms, got {phase} µs");
    // Asked at 0: the round at 0 places it (one node visited, 40 µs), the
    // launch takes 500 µs — not the heartbeat at `phase`.
    let t = trace(1, 1, vec![job("a", 0, "u", vec![stage(vec![], 1, &[100, 100])])]);
    let r = run_one(&t, &o);
    assert_eq!(latency_us(run_of(&r, 0)[0]), 40 + 500);
    // The second task of the 1-vcore node waits for room. The first ends at
    // 100.54 ms, but the books learn of it from the node's heartbeat (at
    // `phase`, past 101 ms); the rounds in between see no room, and the
    // heartbeat's own pass places it.
    assert_eq!(latency_us(run_of(&r, 1)[0]), phase + 40 + 500);
    assert!(r.setup.contains("rounds every 20 ms"), "{}", r.setup);
    assert_eq!(r.counters.rounds, 1, "a round with no node with room visits none");

    // Asked at 30 ms: the rounds at 0 and 20 ms had nothing to do (free);
    // the one at 40 ms places it.
    let t = trace(1, 1, vec![job("a", 30, "u", vec![stage(vec![], 1, &[100])])]);
    let r = run_one(&t, &o);
    assert_eq!(latency_us(&r.runs[0]), 10_000 + 40 + 500);
}

/// A round visits at most `round_nodes` nodes, from where the last one
/// stopped; the next waits for the scheduler's sleep after it ended.
#[test]
fn central_round_is_bounded_and_resumes_where_it_stopped() {
    let o = with_rounds(1);
    let phases = central::heartbeat_phases(3, 1000, o.seed);
    assert!(phases.iter().all(|p| *p > 41_000), "the test assumes no heartbeat before 41 ms: {phases:?}");
    let t = trace(3, 1, vec![job("a", 0, "u", vec![stage(vec![], 1, &[1000, 1000, 1000])])]);
    let r = run_one(&t, &o);
    // Rounds at 0, 20.04 and 40.08 ms place one task each, on nodes 0, 1, 2.
    let placed: Vec<(i64, u32)> = (0..3).map(|k| (latency_us(run_of(&r, k)[0]), run_of(&r, k)[0].node)).collect();
    assert_eq!(placed, vec![(540, 0), (20_080 + 500, 1), (40_120 + 500, 2)]);
    check_invariants(&t, &r);
}

/// Heartbeats that only report (`async-scheduling.heartbeats-allocate =
/// false`): the same two tasks on a 1-vcore node as above. The round at 0
/// places the first; the node's heartbeat at `phase` reports its end (at
/// 7 µs, placing nothing) and the next round places the second.
#[test]
fn central_report_only_heartbeats_leave_placing_to_rounds() {
    let mut o = with_rounds(100);
    o.central.report_only_heartbeats = true;
    let phase = central::heartbeat_phases(1, 1000, o.seed)[0];
    let t = trace(1, 1, vec![job("a", 0, "u", vec![stage(vec![], 1, &[100, 100])])]);
    let r = run_one(&t, &o);
    assert_eq!(latency_us(run_of(&r, 0)[0]), 40 + 500);
    // Rounds run every 20 ms after the previous one ends (each visiting no
    // node until the heartbeat frees the vcore); the first round after the
    // heartbeat's 7 µs places the second task.
    let second = latency_us(run_of(&r, 1)[0]);
    assert!(second > phase + 7 + 500 && second <= phase + 7 + 20_000 + 40 + 500, "{second} (heartbeat at {phase})");
    assert!(r.setup.contains("(report only)"), "{}", r.setup);
    check_invariants(&t, &r);
    // Heartbeats that allocate place it with the heartbeat itself.
    let r = run_one(&t, &with_rounds(100));
    assert_eq!(latency_us(run_of(&r, 1)[0]), phase + 40 + 500);
}

fn with_oob_heartbeats() -> ScaleOptions {
    let mut o = only(Arch::Central);
    o.central.oob_heartbeats = true;
    o
}

/// Out-of-band heartbeats (YARN's NodeManagers heartbeat when a container
/// finishes): one node of 1 vcore, two 100 ms tasks asked at 0. The first
/// is placed by the node's periodic heartbeat at `phase` (+40 µs service,
/// +500 µs launch) and ends 100 ms later; its node's out-of-band heartbeat
/// reaches the scheduler 500 µs after the end, is served in 40 µs, and the
/// second task is launched 500 µs after that — not at the next periodic
/// heartbeat, 1 s after the first.
#[test]
fn central_out_of_band_heartbeat_reports_an_end_at_once() {
    let o = with_oob_heartbeats();
    let phase = central::heartbeat_phases(1, 1000, o.seed)[0];
    let t = trace(1, 1, vec![job("a", 0, "u", vec![stage(vec![], 1, &[100, 100])])]);
    let r = run_one(&t, &o);
    assert_eq!(latency_us(run_of(&r, 0)[0]), phase + 540);
    let first_end = phase + 540 + 100_000;
    assert_eq!(latency_us(run_of(&r, 1)[0]), first_end + 500 + 40 + 500);
    // The second task's end finishes the job: the run stops before its
    // node's out-of-band heartbeat is served.
    assert_eq!(r.counters.oob_heartbeats, 1);
    check_invariants(&t, &r);
    // Without them the second task waits for the periodic heartbeat.
    let r = run_one(&t, &only(Arch::Central));
    assert_eq!(latency_us(run_of(&r, 1)[0]), 1_000_000 + phase + 540);
    assert_eq!(r.counters.oob_heartbeats, 0);
}

/// A node has at most one out-of-band heartbeat waiting, and it reports
/// every end by the time it is served: two 1-vcore tasks end together on a
/// 2-vcore node; one out-of-band heartbeat frees both vcores, and the third
/// and fourth tasks start from it.
#[test]
fn central_out_of_band_heartbeats_coalesce() {
    let o = with_oob_heartbeats();
    let phase = central::heartbeat_phases(1, 1000, o.seed)[0];
    let t = trace(1, 2, vec![job("a", 0, "u", vec![stage(vec![], 1, &[100, 100, 100, 100])])]);
    let r = run_one(&t, &o);
    let second_wave = phase + 540 + 100_000 + 500 + 40 + 500;
    assert_eq!(latency_us(run_of(&r, 2)[0]), second_wave);
    assert_eq!(latency_us(run_of(&r, 3)[0]), second_wave);
    assert_eq!(r.counters.oob_heartbeats, 1);
    check_invariants(&t, &r);
}

/// Queues served round-robin (`queues_round_robin`, as Megha's GMs serve
/// them) against one FIFO: one node of 2 vcores; user 1's four 0.5 s tasks
/// asked at 0, user 2's one task at 1 ms. FIFO places two of user 1's at
/// the node's first heartbeat (at `phase`), the other two at the next (which
/// reports the first two ended), and user 2's at the third; round-robin
/// places one of each at the first, then user 1's in twos.
#[test]
fn central_queues_round_robin_serves_every_user_in_turn() {
    let mut o = only(Arch::Central);
    let phase = central::heartbeat_phases(1, 1000, o.seed)[0];
    assert!(phase > 1_000, "the test assumes the node's heartbeat phase is past 1 ms, got {phase} µs");
    let t = trace(
        1,
        2,
        vec![job("a", 0, "u1", vec![stage(vec![], 1, &[500, 500, 500, 500])]), job("b", 1, "u2", vec![stage(vec![], 1, &[500])])],
    );
    let r = run_one(&t, &o);
    let b_first = r.runs.iter().find(|x| x.task == 4).unwrap();
    assert_eq!(latency_us(b_first), 2_000_000 + phase + 540 - 1000);
    check_invariants(&t, &r);
    o.central.queues_round_robin = true;
    let r = run_one(&t, &o);
    let starts: Vec<(u32, i64)> = (0..5).map(|k| (k, run_of(&r, k)[0].start_us)).collect();
    let first = phase + 540;
    assert_eq!(starts, vec![(0, first), (1, first + 1_000_000), (2, first + 1_000_000), (3, first + 2_000_000), (4, first)]);
    check_invariants(&t, &r);
}

#[test]
fn stages_wait_for_their_parents() {
    // map (2 tasks of 1 s) → reduce: the reduce is asked when both maps end.
    let t = trace(4, 8, vec![job("a", 0, "u", vec![stage(vec![], 1, &[1000, 3000]), stage(vec![0], 1, &[500])])]);
    for arch in Arch::ALL {
        let r = run_one(&t, &only(arch));
        let maps_end = r.runs.iter().filter(|x| x.task < 2).map(|x| x.end_us).max().unwrap();
        let reduce = run_of(&r, 2)[0];
        assert_eq!(reduce.ask_us, maps_end, "{arch:?}");
        // Every architecture but the zero-cost floor takes some time to place it.
        assert_eq!(reduce.start_us > maps_end, arch != Arch::Ideal, "{arch:?}");
        assert_eq!(r.jobs_finished, 1);
    }
}

/// Two GMs both see the only free slot (node 1): GM 1 proposes it for its
/// internal task, GM 0 for a repartition. The LM commits the first to
/// arrive and rejects the other with its state; the rejected task waits in
/// GM 0's queue until a slot frees and is placed then.
#[test]
fn megha_conflict_one_commits_the_other_is_rejected_and_placed_later() {
    let t = trace(
        2,
        1,
        vec![job("a", 0, "alice", vec![stage(vec![], 1, &[100_000, 100_000])]), job("b", 0, "bob", vec![stage(vec![], 1, &[100_000])])],
    );
    let o = ScaleOptions { megha: MeghaOptions { gms: 2, lms: 1, ..MeghaOptions::default() }, ..only(Arch::Megha) };
    let r = run_one(&t, &o);
    assert_eq!(r.counters.conflicts, 1, "exactly one proposal was rejected");
    let (a0, a1, b) = (run_of(&r, 0), run_of(&r, 1), run_of(&r, 2));
    assert_eq!((a0.len(), a1.len(), b.len()), (1, 1, 1), "every task allocated once");
    // alice's first task and bob's task: internal partitions; both reach the
    // LM at 505 µs, so bob's waits 2 µs behind alice's validation.
    assert_eq!((a0[0].node, latency_us(a0[0])), (0, 1007));
    assert_eq!((b[0].node, latency_us(b[0])), (1, 1007 + 2));
    // alice's second task lost node 1 to bob and runs only after a slot frees.
    assert!(a1[0].start_us >= a0[0].end_us.min(b[0].end_us), "{:?}", a1[0]);
    assert!(latency_us(a1[0]) > 100_000_000);
    assert_eq!(r.counters.repartitions, 0, "the repartition was the rejected proposal");
    assert_never_over_capacity(&t, &r, Resources::new(1024, 1));
    assert_eq!(r.capacity_violations, 0);
}

/// A worker's head reservation blocks its queue while another worker is
/// idle: Sparrow's tail. X (t = 0) has three 100 s tasks and one 0.1 s
/// task on four one-slot workers, two probes per task: every worker holds
/// two X reservations, and three of them keep their second one at the
/// head behind a 100 s task. Y (t = 1 s, two 1 s tasks) probes all four:
/// one task runs on the idle worker, the other waits behind an X
/// reservation for ~99 s while that idle worker is free again after 2 s.
/// Megha's GM sees the freed slot and places it at once.
#[test]
fn sparrow_head_of_line_blocking_megha_does_not_wait() {
    let t = trace(
        4,
        1,
        vec![
            job("x", 0, "u", vec![stage(vec![], 1, &[100_000, 100_000, 100_000, 100])]),
            job("y", 1000, "u", vec![stage(vec![], 1, &[1000, 1000])]),
        ],
    );
    let sparrow = run_one(&t, &only(Arch::Sparrow));
    let megha = run_one(&t, &only(Arch::Megha));
    let (y_sparrow, y_megha): (Vec<_>, Vec<_>) = (
        run_of(&sparrow, 4).into_iter().chain(run_of(&sparrow, 5)).collect(),
        run_of(&megha, 4).into_iter().chain(run_of(&megha, 5)).collect(),
    );
    let worst_sparrow = y_sparrow.iter().map(|x| latency_us(x)).max().unwrap();
    let worst_megha = y_megha.iter().map(|x| latency_us(x)).max().unwrap();
    assert!(worst_sparrow > 90_000_000, "sparrow: {y_sparrow:?}");
    assert!(worst_megha < 2_000_000, "megha: {y_megha:?}");
    // While Sparrow's blocked Y task waited, some worker sat idle.
    let blocked = y_sparrow.iter().max_by_key(|x| latency_us(x)).unwrap();
    let idle_from = y_sparrow.iter().map(|x| x.end_us).min().unwrap();
    let idle_worker = y_sparrow.iter().min_by_key(|x| x.end_us).unwrap().node;
    let busy_later = sparrow.runs.iter().any(|x| x.node == idle_worker && x.start_us < blocked.start_us && x.end_us > idle_from);
    assert!(!busy_later && idle_from < blocked.start_us - 90_000_000);
    for r in [&sparrow, &megha] {
        assert_never_over_capacity(&t, r, Resources::new(1024, 1));
    }
}

fn generated(kind: &str, seed: u64) -> Trace {
    let p =
        GenParams { seed, nodes: Some(200), jobs: Some(if kind == "google" { 300 } else { 200 }), load: Some(0.8), ..GenParams::default() };
    let mut t = generate(kind, &p).unwrap();
    t.sort_by_submit();
    t
}

fn check_invariants(t: &Trace, r: &ArchReport) {
    let what = format!("{} {}", r.arch, r.setup);
    assert_eq!(r.capacity_violations, 0, "{what}");
    assert_eq!(r.allocation_mismatches, 0, "{what}: a task not allocated exactly once per ask");
    assert_eq!(r.tasks_finished, r.tasks, "{what}");
    assert_eq!(r.jobs_finished, r.jobs, "{what}");
    let preempted_runs = r.runs.iter().filter(|x| x.preempted).count() as u64;
    assert_eq!(r.allocations, r.tasks + preempted_runs, "{what}: one allocation per ask");
    let by_size: u64 = r.latency_by_stage_size.iter().map(|c| c.allocations).sum();
    assert_eq!(by_size, r.allocations, "{what}: every allocation in one stage-size class");
    assert!(preempted_runs <= r.counters.preemptions, "{what}");
    let mut per_task = vec![0u32; r.tasks as usize];
    for run in &r.runs {
        per_task[run.task as usize] += 1;
        assert!(run.start_us >= run.ask_us, "{what}: {run:?}");
    }
    let finished_runs = r.runs.iter().filter(|x| !x.preempted).count() as u64;
    assert_eq!(finished_runs, r.tasks, "{what}: one finished run per task");
    assert!(per_task.iter().all(|&n| n >= 1));
    assert_never_over_capacity(t, r, t.cluster.as_ref().unwrap().capacity());
}

/// Rounds on random workloads: never over capacity, one allocation per
/// ask, deterministic.
#[test]
fn central_rounds_keep_the_invariants() {
    for (kind, seed) in [("google", 1), ("facebook", 3)] {
        let t = generated(kind, seed);
        let o = ScaleOptions { seed, ..with_rounds(50) };
        let r = run_one(&t, &o);
        check_invariants(&t, &r);
        assert!(r.counters.rounds > 0, "{kind}: no round placed anything");
        assert_eq!(r, run_one(&t, &o));
    }
}

/// Out-of-band heartbeats, alone and with rounds, with one FIFO and with
/// queues round-robin, on random workloads: never over capacity, one
/// allocation per ask, deterministic.
#[test]
fn central_out_of_band_heartbeats_keep_the_invariants() {
    for (kind, seed) in [("google", 1), ("facebook", 3)] {
        let t = generated(kind, seed);
        for (rounds, queues_round_robin) in [(false, false), (true, false), (false, true), (true, true)] {
            let mut o = ScaleOptions { seed, ..with_rounds(50) };
            o.central.oob_heartbeats = true;
            o.central.queues_round_robin = queues_round_robin;
            if !rounds {
                o.central.round_ms = 0;
            }
            let r = run_one(&t, &o);
            check_invariants(&t, &r);
            assert!(r.counters.oob_heartbeats > 0, "{kind}: no out-of-band heartbeat");
            assert_eq!(r, run_one(&t, &o));
        }
    }
}

#[test]
fn random_runs_keep_the_invariants_and_are_deterministic() {
    for (kind, seed) in [("google", 1), ("google", 2), ("facebook", 3)] {
        let t = generated(kind, seed);
        let mut o = ScaleOptions { keep_runs: true, seed, ..ScaleOptions::default() };
        let first = scale::run(&t, &o).unwrap();
        for r in &first.runs {
            check_invariants(&t, r);
        }
        let megha = &first.runs[0];
        assert!(megha.counters.conflicts > 0, "{kind} {seed}: 2-node partitions must conflict");
        let again = scale::run(&t, &o).unwrap();
        assert_eq!(first, again, "{kind} seed {seed}: same inputs, same report");
        // Another seed of the simulator's own draws changes Sparrow's probes.
        o.seed = seed + 100;
        let other = scale::run(&t, &o).unwrap();
        assert_ne!(first.runs[1].runs, other.runs[1].runs);
    }
}

#[test]
fn megha_variants_keep_the_invariants() {
    let t = generated("google", 5);
    let variants = [
        MeghaOptions { gms: 1, lms: 1, ..MeghaOptions::default() },
        // A state update every millisecond crosses the GM's requests in flight:
        // with one GM there is still nobody to conflict with (§IV-B6).
        MeghaOptions { gms: 1, lms: 3, state_update_ms: 1, ..MeghaOptions::default() },
        MeghaOptions { gms: 3, lms: 7, state_update_ms: 500, ..MeghaOptions::default() },
        MeghaOptions { fair_share: true, ..MeghaOptions::default() },
        // Batches: several tasks per match and per LM answer, with conflicts
        // between GMs, preemption, and a view updated every 500 ms.
        MeghaOptions { gm_batch: 8, ..MeghaOptions::default() },
        MeghaOptions { gm_batch: 64, gms: 3, lms: 7, state_update_ms: 500, fair_share: true, ..MeghaOptions::default() },
    ];
    for m in variants {
        let o = ScaleOptions { megha: m.clone(), ..only(Arch::Megha) };
        let r = run_one(&t, &o);
        check_invariants(&t, &r);
        if m.gms == 1 {
            assert_eq!((r.counters.conflicts, r.counters.repartitions), (0, 0), "one GM has no one to conflict with");
        }
    }
}

/// Fair share (Algorithm 2): one user fills the cluster with long tasks,
/// another arrives under its share and gets room by preemption; the
/// preempted tasks are asked again and still finish.
#[test]
fn megha_fair_share_preempts_the_queue_over_its_share() {
    let t = trace(
        4,
        1,
        vec![
            job("hog", 0, "hog", vec![stage(vec![], 1, &[60_000; 8])]),
            job("late", 20_000, "late", vec![stage(vec![], 1, &[1000, 1000])]),
        ],
    );
    let plain = run_one(&t, &only(Arch::Megha));
    assert_eq!(plain.counters.preemptions, 0);
    let o =
        ScaleOptions { megha: MeghaOptions { fair_share: true, state_update_ms: 1000, ..MeghaOptions::default() }, ..only(Arch::Megha) };
    let fair = run_one(&t, &o);
    check_invariants(&t, &fair);
    assert!(fair.counters.preemptions >= 1, "{:?}", fair.counters);
    let late_plain = plain.runs.iter().filter(|x| x.task >= 8).map(latency_us).max().unwrap();
    let late_fair = fair.runs.iter().filter(|x| x.task >= 8).map(latency_us).max().unwrap();
    assert!(late_plain > 30_000_000, "without preemption `late` waits for the hog: {late_plain}");
    assert!(late_fair < 5_000_000, "with it, `late` is placed within a state update: {late_fair}");
    assert!(fair.runs.iter().any(|x| x.preempted && x.task < 8));
}

/// The zero-cost floor, by hand. One node of 4 vcores. a (3 vcores, 10 s)
/// starts at once; b (2 vcores), asked at 1 ms, does not fit the 1 vcore
/// left and waits; c (1 vcore), asked at 2 ms, fits and starts at once
/// (FIFO skips what does not fit); c's end at 1.002 s frees 1 vcore, not
/// enough for b; a's end at 10 s lets b start: 9.999 s of waiting, all of
/// it for capacity.
#[test]
fn ideal_starts_a_task_the_moment_a_node_has_room_for_it() {
    let t = trace(
        1,
        4,
        vec![
            job("a", 0, "u1", vec![stage(vec![], 3, &[10_000])]),
            job("b", 1, "u2", vec![stage(vec![], 2, &[1_000])]),
            job("c", 2, "u3", vec![stage(vec![], 1, &[1_000])]),
        ],
    );
    let r = run_one(&t, &only(Arch::Ideal));
    let starts: Vec<i64> = (0..3).map(|k| run_of(&r, k)[0].start_us).collect();
    assert_eq!(starts, vec![0, 10_000_000, 2_000]);
    assert_eq!(latency_us(run_of(&r, 1)[0]), 9_999_000);
    assert_eq!((r.latency_ms.p50, r.latency_ms.max), (0.0, 9_999.0));
    assert_eq!(r.queueing_ms.max, 0.0, "nothing waits for a scheduler");
    check_invariants(&t, &r);
}

/// One node of 1 vcore; at t = 0, in this order, a (user 1: three 1 s
/// tasks), b (user 1: one) and c (user 2: two). a0 starts at once (the
/// others are not asked yet); then each second one more task gets the
/// slot. FIFO: a, b, c. Users round-robin (user 2 is next after a0): c4,
/// a1, c5, a2, b. Smallest stage first: b (1 task), c (2), a (3).
#[test]
fn ideal_serves_fifo_users_round_robin_or_smallest_stage_first() {
    let t = trace(
        1,
        1,
        vec![
            job("a", 0, "u1", vec![stage(vec![], 1, &[1_000, 1_000, 1_000])]),
            job("b", 0, "u1", vec![stage(vec![], 1, &[1_000])]),
            job("c", 0, "u2", vec![stage(vec![], 1, &[1_000, 1_000])]),
        ],
    );
    let s = 1_000_000;
    for (order, expected) in [
        (QueueOrder::Fifo, [0, s, 2 * s, 3 * s, 4 * s, 5 * s]),
        (QueueOrder::UsersRoundRobin, [0, 2 * s, 4 * s, 5 * s, s, 3 * s]),
        (QueueOrder::SmallestStageFirst, [0, 4 * s, 5 * s, s, 2 * s, 3 * s]),
    ] {
        let r = run_one(&t, &ScaleOptions { ideal: IdealOptions { order }, ..only(Arch::Ideal) });
        let starts: Vec<i64> = (0..6).map(|k| run_of(&r, k)[0].start_us).collect();
        assert_eq!(starts, expected, "{order:?}");
        check_invariants(&t, &r);
    }
}

/// Three nodes of 2 vcores; a stage of five 1-vcore tasks starts at once
/// on every node with room (2 + 2 + 1), not one node at a time.
#[test]
fn ideal_spreads_a_stage_over_every_node_with_room() {
    let t = trace(3, 2, vec![job("a", 0, "u", vec![stage(vec![], 1, &[1_000; 5])])]);
    let r = run_one(&t, &only(Arch::Ideal));
    let placed: Vec<(i64, u32)> = (0..5).map(|k| (run_of(&r, k)[0].start_us, run_of(&r, k)[0].node)).collect();
    assert_eq!(placed, vec![(0, 0), (0, 0), (0, 1), (0, 1), (0, 2)]);
    check_invariants(&t, &r);
}

/// What makes the zero-cost run a floor: at every instant a task waits, no
/// node has room for it (its latency is capacity wait and nothing else).
/// Checked from the runs alone, with each node's use rebuilt from them, on
/// small clusters where tasks do wait, in both queue orders.
#[test]
fn ideal_lets_a_task_wait_only_while_no_node_has_room_for_it() {
    for (kind, seed) in [("facebook", 3), ("google", 2)] {
        let p = GenParams { seed, nodes: Some(20), jobs: Some(60), load: Some(0.95), ..GenParams::default() };
        let mut t = generate(kind, &p).unwrap();
        t.sort_by_submit();
        for order in QueueOrder::ALL {
            let o = ScaleOptions { ideal: IdealOptions { order }, ..only(Arch::Ideal) };
            let r = run_one(&t, &o);
            check_invariants(&t, &r);
            let waited = r.runs.iter().filter(|x| x.start_us > x.ask_us).count();
            assert!(waited > 100, "{kind}: the check needs tasks that wait, {waited} did");
            assert_waits_only_without_room(&t, &r, &format!("{kind}, {order:?}"));
        }
    }
}
