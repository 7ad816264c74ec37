//! Simulator behaviour end to end through the real engine.

use shepherd::sim::{simulate, SimOptions};
use shepherd::workload::{ClusterSpec, Job, Stage, Task, Trace};
use shepherd::Config;

/// The simulator without its cluster-side model: no AM containers, tasks
/// start the instant they are allocated (the papers' setting).
fn instant() -> SimOptions {
    SimOptions { cluster_model: None, ..SimOptions::default() }
}

fn job(id: &str, submit_s: i64, containers: usize, secs: i64) -> Job {
    Job {
        id: id.into(),
        submit_ms: submit_s * 1000,
        user: "u".into(),
        name: id.into(),
        queue: "default".into(),
        category: None,
        gang: false,
        app_type: None,
        am: None,
        stages: vec![Stage {
            name: "only".into(),
            after: vec![],
            slowstart: None,
            memory_mb: 1024,
            vcores: 1,
            tasks: vec![Task { duration_ms: secs * 1000, used: None }; containers],
        }],
    }
}

/// DRESS Fig. 1: six containers; four jobs 1 s apart asking
/// (containers, seconds) = (3,10), (4,20), (3,10), (2,10); each job's
/// containers start together and jobs are served strictly in arrival order.
/// The paper reports waits 0, 9, 28, 27 s (mean 16 s) and makespan 40 s.
#[test]
fn dress_fig1_under_strict_fifo() {
    let trace =
        Trace { cluster: None, am: None, jobs: vec![job("J1", 0, 3, 10), job("J2", 1, 4, 20), job("J3", 2, 3, 10), job("J4", 3, 2, 10)] };
    let cluster = ClusterSpec { nodes: 1, memory_mb: 6 * 1024, vcores: 6, rack_size: 1 };
    let config = Config::parse("[scheduler]\npolicy = \"fifo\"\n[fifo]\nstrict_order = true\n").unwrap();
    let opts = SimOptions { gang: true, cluster_model: None, ..SimOptions::default() };
    let out = simulate(&trace, &cluster, config, &opts).unwrap();
    let waits: Vec<i64> = out.jobs.iter().map(|j| j.wait_ms() / 1000).collect();
    assert_eq!(waits, vec![0, 9, 28, 27]);
    assert_eq!(out.summary.all.wait_ms.mean, 16_000.0);
    assert_eq!(out.summary.all.makespan_ms, 40_000);
}

/// Allocation latency (ask → container) on the heartbeat grid: J1 (3 × 10 s)
/// asks at 0 and gets its containers at once; J2 asks 4 at 1 s: 3 slots are
/// free, the heartbeat at 1 s serves them (latency 0), the fourth waits
/// for J1's tasks to end at 10 s (latency 9 s). J3 (2 × 5 s) asks at 1.5 s,
/// served at the 10 s heartbeat too: 8.5 s each.
#[test]
fn allocation_latency_counts_ask_to_container() {
    let mut j3 = job("J3", 0, 2, 5);
    j3.submit_ms = 1500;
    let trace = Trace { cluster: None, am: None, jobs: vec![job("J1", 0, 3, 10), job("J2", 1, 4, 20), j3] };
    let cluster = ClusterSpec { nodes: 1, memory_mb: 6 * 1024, vcores: 6, rack_size: 1 };
    let config = Config::parse("[scheduler]\npolicy = \"fifo\"\n").unwrap();
    let out = simulate(&trace, &cluster, config, &instant()).unwrap();
    let l = out.summary.allocation_latency.expect("latency recorded");
    assert_eq!(l.count, 9);
    // Sorted: 0 ×6 (J1's 3, J2's first 3), 8 500 ×2 (J3), 9 000 (J2's fourth).
    assert_eq!((l.p50_ms, l.max_ms), (0.0, 9_000.0));
    assert_eq!(l.mean_ms, (2.0 * 8_500.0 + 9_000.0) / 9.0);
}

/// Without gang start the same trace lets J2 start on the 3 free slots.
#[test]
fn gang_start_is_an_option_not_a_special_case() {
    let trace = Trace { cluster: None, am: None, jobs: vec![job("J1", 0, 3, 10), job("J2", 1, 4, 20)] };
    let cluster = ClusterSpec { nodes: 1, memory_mb: 6 * 1024, vcores: 6, rack_size: 1 };
    let config = Config::parse("[scheduler]\npolicy = \"fifo\"\n").unwrap();
    let out = simulate(&trace, &cluster, config, &instant()).unwrap();
    assert_eq!(out.jobs[1].wait_ms(), 0);
    assert_eq!(out.jobs[1].finish_ms, 30_000);
}

#[test]
fn barriers_and_slowstart() {
    let mut j = job("dag", 0, 2, 10);
    j.stages.push(Stage {
        name: "reduce".into(),
        after: vec![0],
        slowstart: None,
        memory_mb: 1024,
        vcores: 1,
        tasks: vec![Task { duration_ms: 5000, used: None }],
    });
    let cluster = ClusterSpec { nodes: 1, memory_mb: 4096, vcores: 4, rack_size: 1 };
    let run = |slowstart: Option<f64>| {
        let mut j = j.clone();
        j.stages[1].slowstart = slowstart;
        let t = Trace { cluster: None, am: None, jobs: vec![j] };
        simulate(&t, &cluster, Config::default(), &instant()).unwrap()
    };
    // Barrier: reduce starts at 10 s (heartbeat grid), ends at 15 s.
    assert_eq!(run(None).jobs[0].finish_ms, 15_000);
    // Slow-start 0: the reducer holds a container from t=0 but still
    // computes only after the maps are done.
    let out = run(Some(0.0));
    assert_eq!(out.jobs[0].finish_ms, 15_000);
    assert!(out.summary.utilization.alloc_memory > run(None).summary.utilization.alloc_memory);
}

fn run_generated(kind: &str, seed: u64, policy: &str) -> String {
    use shepherd::sim::experiment::{Experiment, Source};
    use shepherd::workload::gen::GenParams;
    let params = GenParams { seed, jobs: Some(20), ..Default::default() };
    let exp = Experiment::new(&Source::Generate(kind.into(), params), Config::default(), None, SimOptions::default()).unwrap();
    let out = exp.run(policy).unwrap();
    assert_eq!(out.summary.unfinished_jobs, 0);
    shepherd::report::files::metrics_json(&out) + &shepherd::report::files::jobs_csv(&out.jobs)
}

#[test]
fn same_seed_same_metrics() {
    for (kind, policy) in [("google", "3sigma"), ("tpcds", "tetris"), ("hibench", "drf")] {
        let a = run_generated(kind, 42, policy);
        let b = run_generated(kind, 42, policy);
        assert_eq!(a, b, "{kind}/{policy} not deterministic");
        assert_ne!(a, run_generated(kind, 43, policy), "{kind}: the seed must matter");
    }
}

#[test]
fn every_policy_finishes_every_job() {
    for p in shepherd::config::pipeline::built_in_names() {
        run_generated("tpcds", 5, p);
    }
}

#[test]
fn example_traces_simulate() {
    use shepherd::workload::load;
    for f in ["small.json", "sls-jobs.json", "fb-sample.swim", "yarn-mixed.json"] {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/traces").join(f);
        let t = load(&path).unwrap();
        let cluster = t.cluster.clone().unwrap_or(ClusterSpec { nodes: 4, memory_mb: 8192, vcores: 8, rack_size: 40 });
        let out = simulate(&t, &cluster, Config::default(), &SimOptions::default()).unwrap();
        assert_eq!(out.jobs.len(), t.jobs.len(), "{f}");
    }
}

/// Heartbeating only nodes with room, only when something changed, gives
/// exactly the job timings of heartbeating every node every interval.
#[test]
fn skipping_idle_heartbeats_equals_naive_ticking() {
    use shepherd::sim::experiment::{Experiment, Source};
    use shepherd::workload::gen::GenParams;
    let strict = Config::parse("[fifo]\nstrict_order = true\n").unwrap();
    let dress_conf = Config::parse(include_str!("../hadoop-conf/shepherd-dress.toml")).unwrap();
    // DRESS's δ moves every interval (a periodic step the simulator runs as
    // its own timer); the composed default has it too, and a slower
    // interval than the heartbeat checks the timer's own grid.
    let slow_interval = Config::parse("[dress]\ninterval_ms = 5000\n").unwrap();
    for (kind, policy, gang, config) in [
        ("hibench", "dress", false, dress_conf.clone()),
        ("tpcds", "dress", false, dress_conf),
        ("hibench", "composed", false, Config::default()),
        ("google", "composed", false, slow_interval.clone()),
        ("hibench", "dress", true, slow_interval),
        ("tpcds", "drf", false, Config::default()),
        ("google", "3sigma", false, Config::default()),
        ("hibench", "fifo", true, strict.clone()),
        ("hibench", "tetris", false, Config::default()),
        ("tpcds", "fifo", false, strict),
    ] {
        let params = GenParams { seed: 11, jobs: Some(12), nodes: Some(4), ..Default::default() };
        // Without the cluster model, and with one that has AM containers,
        // every delay and per-node heartbeat phases; the RM learning of
        // ended containers at once, at their node's heartbeat, or at once
        // with the node's out-of-band heartbeat.
        for (model, ends_at_heartbeat, oob_heartbeats) in [
            (None, false, false),
            (Some(busy_cluster()), false, false),
            (Some(busy_cluster()), true, false),
            (Some(busy_cluster()), false, true),
        ] {
            let run = |naive: bool| {
                let opts = SimOptions {
                    naive_heartbeats: naive,
                    gang,
                    heartbeat_ms: 3000,
                    cluster_model: model.clone(),
                    ends_at_heartbeat,
                    oob_heartbeats,
                    ..SimOptions::default()
                };
                let exp = Experiment::new(&Source::Generate(kind.into(), params.clone()), config.clone(), None, opts).unwrap();
                let out = exp.run(policy).unwrap();
                // Job timings; not `estimate_ms`, the size estimate at the
                // first pass that saw the app, which extra passes can see
                // earlier (with less learned) without changing a decision.
                let timings: Vec<String> = shepherd::report::files::jobs_csv(&out.jobs)
                    .lines()
                    .map(|l| l.rsplit_once(',').map_or(l, |(head, _)| head).to_string())
                    .collect();
                (timings.join("\n"), out.summary.engine_passes)
            };
            let (fast, fast_passes) = run(false);
            let (naive, naive_passes) = run(true);
            let phases = model.is_some();
            assert_eq!(
                fast, naive,
                "{kind}/{policy} (phases: {phases}, ends at heartbeat: {ends_at_heartbeat}, out of band: {oob_heartbeats})"
            );
            assert!(fast_passes < naive_passes, "{kind}/{policy} (phases: {phases}): {fast_passes} vs {naive_passes}");
        }
    }
}

/// Under ROSE every node heartbeats every interval (each heartbeat carries
/// a utilization sample); the heartbeats of quiet nodes, which the
/// simulator folds (`sim::quiet`) and hands over only before the steps
/// that would read them, give exactly the outcome of sending each one: job timings, the speculative containers placed and evicted, and the
/// engine's passes and events. Bounds that over-subscribe freely (and evict
/// at once) make speculative containers on most nodes; with the cluster
/// model's AMs and phases, and with ends reported at once, at the node's
/// heartbeat or out of band (a pass between rounds, where ROSE's refresh
/// may fall).
#[test]
fn folding_quiet_heartbeats_under_rose_equals_sending_each() {
    use shepherd::sim::experiment::{Experiment, Source};
    use shepherd::workload::gen::GenParams;
    let hot = Config::parse(
        "[scheduler]\npolicy = \"rose\"\n[rose]\nbound_memory = 1.0\nbound_vcores = 1.0\nevict_memory = 1.05\nevict_vcores = 1.05\nmax_ratio = 1.5\n",
    )
    .unwrap();
    let defaults = Config::parse("[scheduler]\npolicy = \"rose\"\n").unwrap();
    // Samples stale after 2.5 s, a refresh every second, a short window:
    // a quiet node's heartbeats wait for one or two refreshes at most
    // (`Engine::folds_unread_until`), and windows change often; three
    // candidates of eight nodes, so a node taken for stale changes them.
    let short = Config::parse(
        "[scheduler]\npolicy = \"rose\"\n[rose]\nstale_ms = 2500\nrefresh_ms = 1000\nwindow_ms = 6000\nmax_samples = 8\nbound_memory = 0.9\nbound_vcores = 0.9\ncandidates = 3\n",
    )
    .unwrap();
    let all = [
        (None, false, false),
        (Some(busy_cluster()), false, false),
        (Some(busy_cluster()), true, false),
        (Some(busy_cluster()), false, true),
    ];
    // (A larger cluster, out of band only: Algorithm 3's refresh then falls
    // in a pass between rounds and moves nodes in and out of the candidates.)
    let oob = [(Some(busy_cluster()), false, true)];
    for (kind, config, jobs, nodes, modes) in [
        ("facebook", hot.clone(), 60, 8, &all[..]),
        ("tpcds", hot.clone(), 60, 8, &all[..]),
        ("google", defaults, 60, 8, &all[..]),
        ("facebook", short, 60, 8, &all[..]),
        ("facebook", hot, 300, 100, &oob[..]),
    ] {
        let params = GenParams { seed: 5, jobs: Some(jobs), nodes: Some(nodes), ..Default::default() };
        for (model, ends_at_heartbeat, oob_heartbeats) in modes.iter().cloned() {
            let run = |naive: bool| {
                let opts = SimOptions {
                    naive_heartbeats: naive,
                    cluster_model: model.clone(),
                    ends_at_heartbeat,
                    oob_heartbeats,
                    ..SimOptions::default()
                };
                let exp = Experiment::new(&Source::Generate(kind.into(), params.clone()), config.clone(), None, opts).unwrap();
                let out = exp.run("rose").unwrap();
                let s = &out.summary;
                let rose = s.oversubscription.as_ref().map(|o| (o.speculative_containers, o.evictions));
                (shepherd::report::files::jobs_csv(&out.jobs), rose, s.engine_passes, s.engine_events, out.heartbeats_folded)
            };
            let (jobs, rose, passes, events, folded) = run(false);
            let (naive_jobs, naive_rose, naive_passes, naive_events, naive_folded) = run(true);
            let case =
                format!("{kind} (model: {}, ends at heartbeat: {ends_at_heartbeat}, out of band: {oob_heartbeats})", model.is_some());
            let first = jobs.lines().zip(naive_jobs.lines()).position(|(a, b)| a != b);
            assert!(jobs == naive_jobs, "{case}: jobs.csv differs from line {first:?}");
            assert_eq!((rose, passes, events), (naive_rose, naive_passes, naive_events), "{case}");
            assert!(folded > 0 && naive_folded == 0, "{case}: {folded} folded");
        }
    }
}

/// A cluster model with every delay non-zero and NodeManagers heartbeating
/// at their own phases.
fn busy_cluster() -> shepherd::sim::calibration::Calibration {
    use shepherd::sim::calibration::{Calibration, Dist};
    Calibration {
        source: "test".into(),
        am_memory_mb: 1024,
        am_vcores: 1,
        am_ask_ms: Dist(vec![0.0, 300.0]),
        am_launch_ms: Dist(vec![500.0, 1500.0, 4000.0]),
        am_startup_ms: Dist(vec![2000.0, 5000.0]),
        task_launch_ms: Dist(vec![300.0, 900.0, 2500.0]),
        task_overhead_ms: Dist(vec![100.0, 1200.0]),
        am_exit_ms: Dist(vec![500.0, 1000.0]),
        heartbeat_phase: Dist(vec![0.0, 1.0]),
        shared_host: Some(shepherd::sim::calibration::SharedHost {
            containers_at_full_speed: 3.0,
            model: shepherd::sim::calibration::HostModel::Snapshot,
            background_weight: 0.0,
        }),
    }
}

/// A cluster model with constant times: an AM is RUNNING 1 s after its
/// allocation and asks 4 s later; a task is RUNNING 2 s after its
/// allocation and takes 0.5 s beyond its work; the AM exits 1.5 s after the
/// job's last task.
fn constant_times() -> shepherd::sim::calibration::Calibration {
    use shepherd::sim::calibration::{Calibration, Dist};
    let mut model = Calibration::instant();
    model.am_memory_mb = 1024;
    model.am_launch_ms = Dist::constant(1000.0);
    model.am_startup_ms = Dist::constant(4000.0);
    model.task_launch_ms = Dist::constant(2000.0);
    model.task_overhead_ms = Dist::constant(500.0);
    model.am_exit_ms = Dist::constant(1500.0);
    model
}

/// With the cluster model: every job's AM is placed first and held until
/// it exits after the job is done; tasks start after their launch time; the
/// job is done (for its user, and its JCT) at its last task's end, as a
/// MapReduce client reports it, not when the AM container exits.
#[test]
fn application_masters_and_launch_times_are_modelled() {
    use shepherd::sim::calibration::Calibration;
    let model = constant_times();
    // One node of 4 GB; a job of 2 tasks of 1 GB × 10 s.
    let trace = Trace { cluster: None, am: None, jobs: vec![job("a", 0, 2, 10)] };
    let cluster = ClusterSpec { nodes: 1, memory_mb: 4096, vcores: 4, rack_size: 1 };
    let opts = SimOptions { cluster_model: Some(model), ..SimOptions::default() };
    let out = simulate(&trace, &cluster, Config::parse("[scheduler]\npolicy = \"fifo\"\n").unwrap(), &opts).unwrap();
    let j = &out.jobs[0];
    // AM allocated at t = 0, RUNNING at 1 s, asks at 5 s; tasks allocated
    // on the heartbeat at 5 s, RUNNING (first task start) at 7 s, finished at
    // 7 + 10 + 0.5 = 17.5 s: the job is done; its AM exits 1.5 s later.
    assert_eq!(j.first_start_ms, 7_000);
    assert_eq!(j.finish_ms, 17_500);
    // Over the makespan (17.5 s) the AM held 1 GB of 4 throughout, the
    // tasks 2 GB for 12.5 s.
    let expected = (1024.0 * 17.5 + 2048.0 * 12.5) / (4096.0 * 17.5);
    assert!((out.summary.utilization.alloc_memory - expected).abs() < 1e-9, "{:?}", out.summary.utilization);

    // NodeManagers on one shared host that runs one container at full
    // speed: the AM starts up alone (4 s); the tasks are launched at 7 s
    // with 2 and then 3 containers running, so their overheads are 2 × 0.5 s
    // and 3 × 0.5 s: the last one ends at 7 + 10 + 1.5 = 18.5 s.
    let mut shared = opts.cluster_model.clone().unwrap();
    use shepherd::sim::calibration::{HostModel, SharedHost};
    shared.shared_host = Some(SharedHost { containers_at_full_speed: 1.0, model: HostModel::Snapshot, background_weight: 0.0 });
    let opts = SimOptions { cluster_model: Some(shared.clone()), ..SimOptions::default() };
    let out = simulate(&trace, &cluster, Config::parse("[scheduler]\npolicy = \"fifo\"\n").unwrap(), &opts).unwrap();
    assert_eq!(out.jobs[0].first_start_ms, 7_000);
    assert_eq!(out.jobs[0].finish_ms, 18_500);

    // The same host as processor sharing: only start-ups load it (the AM,
    // idle after its own start-up, does not). Both tasks' 0.5 s set-ups run
    // together from 7 s at half speed and end at 8 s; their work ends at
    // 18 s.
    shared.shared_host = Some(SharedHost { containers_at_full_speed: 1.0, model: HostModel::ProcessorSharing, background_weight: 0.0 });
    let opts = SimOptions { cluster_model: Some(shared.clone()), ..SimOptions::default() };
    let out = simulate(&trace, &cluster, Config::parse("[scheduler]\npolicy = \"fifo\"\n").unwrap(), &opts).unwrap();
    assert_eq!(out.jobs[0].first_start_ms, 7_000);
    assert_eq!(out.jobs[0].finish_ms, 18_000);

    // Running containers as background load, w = 0.5: the AM (idle after
    // its start-up) now weighs half a start-up. From 7 s the two set-ups
    // run beside it: load 2 + 0.5 · 1 = 2.5, rate 1 / 2.5 = 0.4, so 0.5 s
    // of set-up takes 1.25 s and the work ends at 8.25 + 10 = 18.25 s. The
    // AM's own start-up ran alone (load 1), as before.
    shared.shared_host = Some(SharedHost { containers_at_full_speed: 1.0, model: HostModel::ProcessorSharing, background_weight: 0.5 });
    let opts = SimOptions { cluster_model: Some(shared), ..SimOptions::default() };
    let out = simulate(&trace, &cluster, Config::parse("[scheduler]\npolicy = \"fifo\"\n").unwrap(), &opts).unwrap();
    assert_eq!(out.jobs[0].first_start_ms, 7_000);
    assert_eq!(out.jobs[0].finish_ms, 18_250);

    // An AM that does not fit waits like any ask: with a 3.5 GB AM on a
    // 4.5 GB node the second job's AM waits for the first job to finish.
    // Even with no delays, a job's tasks are placed one heartbeat after its
    // AM (the AM asks once it runs): allocated at 1 s, done at 11 s.
    let mut big = Calibration::instant();
    big.am_memory_mb = 3584;
    let trace = Trace { cluster: None, am: None, jobs: vec![job("a", 0, 1, 10), job("b", 0, 1, 10)] };
    let cluster = ClusterSpec { nodes: 1, memory_mb: 4608, vcores: 4, rack_size: 1 };
    let opts = SimOptions { cluster_model: Some(big), ..SimOptions::default() };
    let out = simulate(&trace, &cluster, Config::parse("[scheduler]\npolicy = \"fifo\"\n").unwrap(), &opts).unwrap();
    assert_eq!(out.jobs[0].finish_ms, 11_000);
    assert!(out.jobs[1].first_start_ms >= 11_000, "{:?}", out.jobs[1]);
}

#[test]
fn actual_use_below_request_shows_in_utilization() {
    let trace = Trace { cluster: None, am: None, jobs: vec![job("a", 0, 4, 60)] };
    let cluster = ClusterSpec { nodes: 1, memory_mb: 4096, vcores: 4, rack_size: 1 };
    let opts = SimOptions { usage_factor: 0.5, ..instant() };
    let out = simulate(&trace, &cluster, Config::default(), &opts).unwrap();
    let u = out.summary.utilization;
    assert!((u.alloc_memory - 1.0).abs() < 1e-9, "{u:?}");
    assert!((u.used_memory - 0.5).abs() < 1e-9, "{u:?}");
}

/// `compare --seeds`' ideal is a bound: no job of any policy finishes sooner
/// after its submission than its critical path, with barriers or slow-start.
#[test]
fn no_job_beats_its_critical_path() {
    use shepherd::sim::experiment::{Experiment, Source};
    use shepherd::workload::gen::GenParams;
    use std::collections::HashMap;
    let config = Config::parse(include_str!("../hadoop-conf/shepherd-dress.toml")).unwrap();
    for (seed, slowstart) in [(1, 1.0), (2, 1.0), (3, 0.05)] {
        let params = GenParams { seed, small_share: Some(0.4), interval_ms: Some(1000), ..Default::default() };
        let opts = SimOptions { slowstart, ..SimOptions::default() };
        let exp = Experiment::new(&Source::Generate("hibench".into(), params), config.clone(), None, opts).unwrap();
        let cp: HashMap<String, i64> = exp.trace.jobs.iter().map(|j| (j.id.clone(), j.critical_path_ms())).collect();
        let cmp = exp.compare(&["capacity".into(), "dress".into()], "capacity").unwrap();
        for run in &cmp.runs {
            assert_eq!(run.jobs.len(), 20);
            for j in &run.jobs {
                assert!(j.jct_ms() >= cp[&j.id], "{} {}: JCT {} < critical path {}", run.summary.policy, j.id, j.jct_ms(), cp[&j.id]);
            }
        }
        let ideal: HashMap<String, f64> = shepherd::metrics::compare::ideal_factors(&cmp.runs[0].jobs, &cp).into_iter().collect();
        let dress_small = cmp.factors.iter().find(|f| f.policy == "dress" && f.category == "small").unwrap();
        assert!(dress_small.mean_jct <= ideal["small"] + 1e-9);
    }
}

/// `compare --seeds` runs every seed's policies in one pool of threads:
/// each comparison holds its own seed's runs, in the policies' order with
/// the baseline first, equal to running that seed's policies one by one.
#[test]
fn pooled_comparisons_hold_each_seeds_own_runs() {
    use shepherd::sim::experiment::{Experiment, Source};
    use shepherd::workload::gen::GenParams;
    let exps: Vec<Experiment> = (1..=3)
        .map(|seed| {
            let params = GenParams { seed, jobs: Some(12), ..Default::default() };
            Experiment::new(&Source::Generate("hibench".into(), params), Config::default(), None, SimOptions::default()).unwrap()
        })
        .collect();
    let policies: Vec<String> = ["sjf", "fifo", "drf"].iter().map(|p| p.to_string()).collect();
    let pooled = Experiment::compare_each(&exps, &policies, "drf", 2).unwrap();
    assert_eq!(pooled.len(), 3);
    for (seed, (exp, cmp)) in (1..).zip(exps.iter().zip(&pooled)) {
        let names: Vec<&str> = cmp.runs.iter().map(|r| r.summary.policy.as_str()).collect();
        assert_eq!(names, ["drf", "sjf", "fifo"]);
        for run in &cmp.runs {
            let alone = exp.run(&run.summary.policy).unwrap();
            assert_eq!(run.summary, alone.summary, "seed {seed} {}", run.summary.policy);
        }
    }
    // The seeds' workloads differ, so a run filed under another seed would show.
    assert_ne!(pooled[0].runs[0].summary, pooled[1].runs[0].summary);
}

/// Every shipped calibration loads, and the quick harness trace simulated
/// with it finishes every job after the job's own work.
#[test]
fn shipped_calibrations_load_and_simulate() {
    use shepherd::sim::calibration::Calibration;
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/calibration");
    let trace =
        shepherd::workload::load(&std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/traces/yarn-quick.json")).unwrap();
    let cluster = ClusterSpec { nodes: 2, memory_mb: 4096, vcores: 8, rack_size: 2 };
    let mut seen = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().and_then(|e| e.to_str()) != Some("json") {
            continue;
        }
        let model = Calibration::load(&path).unwrap_or_else(|e| panic!("{e}"));
        let opts = SimOptions { cluster_model: Some(model), ..SimOptions::default() };
        let out = simulate(&trace, &cluster, Config::parse("[scheduler]\npolicy = \"composed\"\n").unwrap(), &opts).unwrap();
        assert_eq!(out.jobs.len(), trace.jobs.len(), "{}", path.display());
        for j in &out.jobs {
            assert!(j.jct_ms() >= j.work_ms / j.tasks.max(1) as i64, "{}: {j:?}", path.display());
        }
        seen += 1;
    }
    assert!(seen >= 2, "expected local.json and local-ps.json in {}", dir.display());
}

/// With `activity_log`, a simulation keeps the log a harness run keeps
/// (`activity.json`), in simulated ms, so a simulated timeline can be set
/// beside a real one. The timeline of `application_masters_and_launch_times_are_modelled`:
/// the AM is allocated at 0, RUNNING at 1 s and asks for its tasks at 5 s;
/// both tasks are allocated at 5 s, RUNNING at 7 s and end at 17.5 s; the AM
/// exits 1.5 s later, when the app goes. Without the option there is no log.
#[test]
fn the_activity_log_records_the_simulated_timeline() {
    let model = constant_times();
    let trace = Trace { cluster: None, am: None, jobs: vec![job("a", 0, 2, 10)] };
    let cluster = ClusterSpec { nodes: 1, memory_mb: 4096, vcores: 4, rack_size: 1 };
    let fifo = || Config::parse("[scheduler]\npolicy = \"fifo\"\n").unwrap();
    let opts = SimOptions { cluster_model: Some(model), ..SimOptions::default() };
    assert!(simulate(&trace, &cluster, fifo(), &opts).unwrap().activity.is_none());

    let out = simulate(&trace, &cluster, fifo(), &SimOptions { activity_log: true, ..opts }).unwrap();
    let log = out.activity.expect("the log was asked for");
    let containers = log["containers"].as_array().unwrap();
    let times = |c: &serde_json::Value| {
        (c["am"].as_bool().unwrap(), c["allocated_ms"].as_i64(), c["launched_ms"].as_i64(), c["finished_ms"].as_i64())
    };
    let mut seen: Vec<_> = containers.iter().map(times).collect();
    seen.sort();
    assert_eq!(
        seen,
        vec![
            (false, Some(5_000), Some(7_000), Some(17_500)),
            (false, Some(5_000), Some(7_000), Some(17_500)),
            (true, Some(0), Some(1_000), Some(19_000)),
        ]
    );
    assert!(containers.iter().all(|c| c["app"] == "a" && c["memory_mb"].as_i64().is_some()));
    let apps = log["apps"].as_array().unwrap();
    assert_eq!(apps.len(), 1);
    let app = &apps[0];
    assert_eq!((app["app"].as_str(), app["submit_ms"].as_i64(), app["am_ask_ms"].as_i64()), (Some("a"), Some(0), Some(0)));
    assert_eq!((app["first_task_ask_ms"].as_i64(), app["removed_ms"].as_i64()), (Some(5_000), Some(19_000)));
}

/// Scheduling rounds between heartbeats (`round_ms`, the shim's
/// asynchronous thread) and the RM learning of ended containers at their
/// node's heartbeat (`ends_at_heartbeat`). One node of 4 GB, 3 s
/// heartbeats; a job submitted at 0.5 s with four 1 GB × 9 s tasks, so its
/// 1 GB AM and three tasks fill the node and the fourth waits for one to
/// end. Launch 2 s, AM launch 1 s, AM start-up 4 s, task overhead 0.5 s.
///
/// * Heartbeats only: the AM is placed at the 3 s heartbeat, RUNNING at
///   4 s, asks at 8 s; three tasks at the 9 s heartbeat end at
///   9 + 2 + 9.5 = 20.5 s; the fourth is placed at the 21 s heartbeat. With
///   `ends_at_heartbeat` the same: the node reports the ends at 21 s, where
///   its own pass uses the room (the log's end times say 21 s, when the RM
///   learned of them).
/// * Rounds every 20 ms: the AM at 0.5 s, its asks at 5.5 s placed at once;
///   those tasks end at 5.5 + 11.5 = 17 s, and a round places the fourth
///   at 17 s — on room YARN would learn of only at the node's 18 s
///   heartbeat. With `ends_at_heartbeat` it is placed at 18 s.
/// * Out-of-band heartbeats (`oob_heartbeats`, what YARN's NodeManagers
///   send when a container ends): the node's pass runs at each end, so
///   the fourth task is placed at 20.5 s with heartbeats only and at 17 s
///   with rounds, where the RM does know of the room; with
///   `ends_at_heartbeat` as well, the same (the heartbeat is at the end).
/// * Heartbeats that only report: no pass on a heartbeat, the same times
///   as with rounds.
#[test]
fn rounds_place_between_heartbeats_on_room_the_rm_knows_of() {
    let mut model = constant_times();
    model.am_startup_ms = shepherd::sim::calibration::Dist::constant(4000.0);
    let mut a = job("a", 0, 4, 9);
    a.submit_ms = 500;
    let trace = Trace { cluster: None, am: None, jobs: vec![a] };
    let cluster = ClusterSpec { nodes: 1, memory_mb: 4096, vcores: 4, rack_size: 1 };
    // `naive`: every heartbeat runs the engine (the simulator otherwise
    // skips those where no ask fits, which give empty passes).
    let run_full = |round_ms: i64, ends_at_heartbeat: bool, oob_heartbeats: bool, report_only_heartbeats: bool, naive: bool| {
        let opts = SimOptions {
            cluster_model: Some(model.clone()),
            heartbeat_ms: 3000,
            activity_log: true,
            round_ms,
            ends_at_heartbeat,
            oob_heartbeats,
            report_only_heartbeats,
            naive_heartbeats: naive,
            ..SimOptions::default()
        };
        let out = simulate(&trace, &cluster, Config::parse("[scheduler]\npolicy = \"fifo\"\n").unwrap(), &opts).unwrap();
        let log = out.activity.expect("asked for");
        let mut am = None;
        let mut tasks = vec![];
        for c in log["containers"].as_array().unwrap() {
            let times = (c["allocated_ms"].as_i64().unwrap(), c["finished_ms"].as_i64().unwrap());
            match c["am"].as_bool().unwrap() {
                true => am = Some(times.0),
                false => tasks.push(times),
            }
        }
        tasks.sort();
        ((am.unwrap(), tasks, out.jobs[0].finish_ms), out.summary.engine_passes)
    };
    let run_with = |round_ms: i64, ends_at_heartbeat: bool, oob_heartbeats: bool| {
        run_full(round_ms, ends_at_heartbeat, oob_heartbeats, false, false).0
    };
    let run = |round_ms: i64, ends_at_heartbeat: bool| run_with(round_ms, ends_at_heartbeat, false);
    let three = |at: i64, end: i64| vec![(at, end); 3];
    let with = |mut v: Vec<(i64, i64)>, last: (i64, i64)| {
        v.push(last);
        v
    };
    // Heartbeats only: the fourth task at 21 s, done at 21 + 2 + 9.5 = 32.5 s.
    assert_eq!(run(0, false), (3_000, with(three(9_000, 20_500), (21_000, 32_500)), 32_500));
    assert_eq!(run(0, true), (3_000, with(three(9_000, 21_000), (21_000, 33_000)), 32_500));
    // Rounds: the AM and the first tasks without waiting for a heartbeat.
    assert_eq!(run(20, false), (500, with(three(5_500, 17_000), (17_000, 28_500)), 28_500));
    assert_eq!(run(20, true), (500, with(three(5_500, 18_000), (18_000, 30_000)), 29_500));
    // Out-of-band heartbeats: the fourth task at the others' end.
    for ends_at_heartbeat in [false, true] {
        assert_eq!(run_with(0, ends_at_heartbeat, true), (3_000, with(three(9_000, 20_500), (20_500, 32_000)), 32_000));
        assert_eq!(run_with(20, ends_at_heartbeat, true), (500, with(three(5_500, 17_000), (17_000, 28_500)), 28_500));
    }
    // Heartbeats that only report (`async-scheduling.heartbeats-allocate =
    // false`): no heartbeat runs a pass, even with every heartbeat
    // simulated (which otherwise runs one each), and the rounds place every
    // task as above (they placed each before a heartbeat could).
    for (ends_at_heartbeat, oob_heartbeats) in [(false, false), (true, false), (false, true)] {
        let (placed, passes) = run_full(20, ends_at_heartbeat, oob_heartbeats, true, true);
        assert_eq!(passes, 0);
        assert_eq!(placed, run_with(20, ends_at_heartbeat, oob_heartbeats));
        assert!(run_full(20, ends_at_heartbeat, oob_heartbeats, false, true).1 > 0, "heartbeats that allocate run passes");
    }
}

/// A trace job's `app_type` reaches the engine as the app's YARN type (so
/// a policy that treats Spark apart, as SLearn and Carbyne do, does so in
/// the simulator too); a job without one is `SIMULATED`.
#[test]
fn a_trace_jobs_app_type_reaches_the_engine() {
    let cluster = ClusterSpec { nodes: 1, memory_mb: 16 * 1024, vcores: 16, rack_size: 1 };
    let mut spark = job("spark", 0, 4, 10);
    spark.app_type = Some("SPARK".into());
    let trace = Trace { cluster: None, am: None, jobs: vec![spark, job("plain", 0, 4, 10)] };
    let opts = SimOptions { activity_log: true, ..instant() };
    let out = simulate(&trace, &cluster, Config::default(), &opts).unwrap();
    let activity = out.activity.expect("the activity log was asked for");
    let types: std::collections::BTreeMap<String, String> = activity["apps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| (a["app"].as_str().unwrap().to_string(), a["app_type"].as_str().unwrap().to_string()))
        .collect();
    assert_eq!(types.get("spark").map(String::as_str), Some("SPARK"), "{activity}");
    assert_eq!(types.get("plain").map(String::as_str), Some("SIMULATED"), "{activity}");
}
