//! ROSE's threshold controller through the engine, as the shim and the
//! simulator drive it: scripted NodeManager utilization → place, stop
//! placing, evict (newest first); never on a node whose estimate is
//! missing or stale; only for the pipelines that switch it on.
//!
//! Node: 8192 MB, 8 vcores; default bounds 0.8 (place) and 0.95 (evict),
//! so a node may be measured up to 6.4 vcores / 6553.6 MB before it stops
//! taking speculative containers, and is evicted from above 7.6 vcores.

use shepherd::model::{Ask, ExecutionType, Resources, SchedulerKey};
use shepherd::{Config, Decision, Engine, Event};

const ROSE: &str = "[scheduler]\npolicy = \"rose\"\n";

fn engine(text: &str) -> Engine {
    let mut e = Engine::with_config(Config::parse(text).unwrap()).unwrap();
    add_node(&mut e, 0);
    e
}

/// Node `id` (host `h<id>`), 8192 MB and 8 vcores.
fn add_node(e: &mut Engine, id: u32) {
    e.apply(Event::NodeAdded {
        node: id,
        host: format!("h{id}"),
        rack: "/r".into(),
        capacity: Resources::new(8192, 8),
        labels: vec![],
        attributes: vec![],
    });
}

fn app(e: &mut Engine, id: u32, queue: &str, count: i32) {
    e.apply(Event::AppAdded {
        app: id,
        yarn_id: format!("application_0_{id}"),
        queue: queue.into(),
        user: "u".into(),
        name: "job".into(),
        app_type: "SIM".into(),
        tags: vec![],
        submit_ms: id as i64,
        priority: 0,
    });
    e.apply(Event::AttemptAdded { app: id, attempt: 1 });
    e.apply(Event::AskUpdated {
        app: id,
        ask: Ask::anywhere(SchedulerKey { priority: 1, allocation_request_id: 0 }, Resources::new(1024, 1), count),
    });
}

/// A heartbeat at `now` carrying `vcores` and `mem` of measured use (or
/// none): the decisions of its pass.
fn heartbeat(e: &mut Engine, now: i64, used: Option<(f64, i64)>) -> Vec<Decision> {
    // Samples are stamped with the engine's clock, as a driver that sends
    // utilization with the heartbeat does.
    e.tick(now);
    if let Some((vcores, mem)) = used {
        e.apply(Event::NodeUtilization { node: 0, used: Resources::new(mem, (vcores * 1000.0) as i64) });
    }
    let mut out = Vec::new();
    e.schedule_node(0, now, &mut out).unwrap();
    out
}

fn speculative(d: &[Decision]) -> Vec<u64> {
    d.iter()
        .filter_map(|d| match d {
            Decision::Allocate { container, execution: ExecutionType::Opportunistic, .. } => Some(*container),
            _ => None,
        })
        .collect()
}

fn guaranteed(d: &[Decision]) -> usize {
    d.iter().filter(|d| matches!(d, Decision::Allocate { execution: ExecutionType::Guaranteed, .. })).count()
}

fn preempted(d: &[Decision]) -> Vec<u64> {
    d.iter()
        .filter_map(|d| match d {
            Decision::Preempt { container } => Some(*container),
            _ => None,
        })
        .collect()
}

#[test]
fn a_node_without_an_estimate_is_never_over_subscribed() {
    let mut e = engine(ROSE);
    app(&mut e, 1, "default", 20);
    let d = heartbeat(&mut e, 0, None);
    assert_eq!((guaranteed(&d), speculative(&d).len()), (8, 0));
    let d = heartbeat(&mut e, 1000, None);
    assert!(d.is_empty(), "{d:?}");
}

#[test]
fn a_stale_estimate_stops_over_subscription() {
    let mut e = engine(ROSE);
    app(&mut e, 1, "default", 40);
    // 8 guaranteed containers measured at 2 vcores: room under the bound
    // for 6.4 − 2 = 4.4 vcores → 4 speculative containers.
    let d = heartbeat(&mut e, 0, Some((2.0, 2048)));
    assert_eq!((guaranteed(&d), speculative(&d).len()), (8, 4), "{d:?}");
    // The samples stop; once the newest is older than stale_ms (10 s) the
    // node takes nothing more, though the speculative ones settled.
    let d = heartbeat(&mut e, 10_001, None);
    assert!(speculative(&d).is_empty(), "{d:?}");
    let json = e.state_json();
    let node = &json["pipelines"][0]["plugins"]["oversubscribe"]["state"]["nodes"][0];
    assert_eq!(node["estimate"], serde_json::Value::Null, "{node}");
    assert_eq!(node["headroom"], serde_json::Value::Null, "{node}");
}

#[test]
fn places_within_the_bound_then_stops_when_measured_use_crosses_it() {
    let mut e = engine(ROSE);
    app(&mut e, 1, "default", 40);
    let d = heartbeat(&mut e, 0, Some((2.0, 2048)));
    assert_eq!(speculative(&d).len(), 4);
    // One heartbeat later (inside settle_ms = 5 s) the samples do not show
    // the new containers yet: they count at their request, no room.
    let d = heartbeat(&mut e, 1000, Some((2.0, 2048)));
    assert!(speculative(&d).is_empty(), "{d:?}");
    // Then they show (0.5 vcores each): 4 vcores; still young until 5 s.
    for t in [2000, 3000, 4000] {
        let d = heartbeat(&mut e, t, Some((4.0, 3072)));
        assert!(speculative(&d).is_empty(), "{t}: {d:?}");
    }
    // Settled; LLA of 2,2,4,4,4,4 (monotone) = 4: 6.4 − 4 = 2.4 → 2 more.
    let d = heartbeat(&mut e, 5000, Some((4.0, 3072)));
    assert_eq!(speculative(&d).len(), 2, "{d:?}");
    // Those two are young: 6.4 − 4 − 2 = 0.4 → none.
    let d = heartbeat(&mut e, 6000, Some((4.0, 3072)));
    assert!(d.is_empty(), "{d:?}");
    // Measured above the bound (6.5 > 6.4 vcores) but below the eviction
    // bound (7.6): stop placing, evict nothing — even once all settled.
    let d = heartbeat(&mut e, 12_000, Some((6.5, 4096)));
    assert!(d.is_empty(), "{d:?}");
    let g = e.gauges();
    let spec_total = g.iter().find(|g| g.name == "rose_speculative_containers_total").unwrap();
    assert_eq!(spec_total.value, 6.0);
    let over = g.iter().find(|g| g.name == "rose_oversubscribed_vcores").unwrap();
    assert_eq!(over.value, 6.0);
}

/// §III-A, steps 2–3: speculative tasks only once the cluster's resources
/// are allocated. While another node has free room for what is still
/// asked, the heartbeating node places nothing speculatively: the asks
/// wait for that node's heartbeat and guaranteed containers there.
#[test]
fn nothing_is_speculative_while_other_nodes_have_room_for_what_is_asked() {
    let mut e = engine(ROSE);
    add_node(&mut e, 1);
    app(&mut e, 1, "default", 16);
    // Node 0 fills with 8 guaranteed containers and has headroom for 4
    // speculative ones, but node 1's free room holds the other 8.
    let d = heartbeat(&mut e, 0, Some((2.0, 2048)));
    assert_eq!((guaranteed(&d), speculative(&d).len()), (8, 0), "{d:?}");
    let mut out = Vec::new();
    e.schedule_node(1, 5000, &mut out).unwrap();
    assert_eq!((guaranteed(&out), speculative(&out).len()), (8, 0), "{out:?}");
    // Now the cluster is allocated: node 0 (settled, still measured at 2
    // vcores) takes the next app's tasks speculatively.
    app(&mut e, 2, "default", 4);
    let d = heartbeat(&mut e, 6000, Some((2.0, 2048)));
    assert_eq!((guaranteed(&d), speculative(&d).len()), (0, 4), "{d:?}");
}

/// A backlog larger than the free room elsewhere is an allocated cluster:
/// the node over-subscribes at once, though another node has room for some.
#[test]
fn a_backlog_beyond_the_free_room_elsewhere_is_over_subscribed() {
    let mut e = engine(ROSE);
    add_node(&mut e, 1);
    app(&mut e, 1, "default", 40);
    // 32 left after node 0's 8; node 1 holds 8 of them.
    let d = heartbeat(&mut e, 0, Some((2.0, 2048)));
    assert_eq!((guaranteed(&d), speculative(&d).len()), (8, 4), "{d:?}");
}

#[test]
fn crossing_the_eviction_bound_evicts_the_newest_speculative_containers() {
    let mut e = engine(ROSE);
    app(&mut e, 1, "default", 40);
    let first = speculative(&heartbeat(&mut e, 0, Some((2.0, 2048))));
    assert_eq!(first.len(), 4);
    heartbeat(&mut e, 1000, Some((2.0, 2048)));
    for t in [2000, 3000, 4000] {
        heartbeat(&mut e, t, Some((4.0, 3072)));
    }
    let second = speculative(&heartbeat(&mut e, 5000, Some((4.0, 3072))));
    assert_eq!(second.len(), 2);
    // Measured 7.8 vcores > 0.95 × 8: the excess over the placement bound
    // is 7.8 − 6.4 = 1.4 vcores → the two newest (1 vcore each) go.
    let d = heartbeat(&mut e, 6000, Some((7.8, 4096)));
    let mut newest = second.clone();
    newest.sort_unstable_by(|a, b| b.cmp(a));
    assert_eq!(preempted(&d), newest, "{d:?}");
    assert!(speculative(&d).is_empty());
    // One decision per sample: no new measurement (the kills are still in
    // flight) evicts nothing more.
    let d = heartbeat(&mut e, 6500, None);
    assert!(preempted(&d).is_empty(), "{d:?}");
    // The kills finish (YARN's PREEMPTED exit status): TBAMR penalises the
    // node, the counters show both.
    for c in &second {
        e.apply(Event::ContainerFinished { container: *c, exit_status: -102, at_ms: 6600 });
    }
    let g = e.gauges();
    assert_eq!(g.iter().find(|g| g.name == "rose_evictions_total").unwrap().value, 2.0);
    assert_eq!(e.counters().preemptions, 2);
    // Still over the eviction bound at the next sample (7.7 − 6.4 = 1.3):
    // the next two newest, from the first batch.
    let d = heartbeat(&mut e, 7000, Some((7.7, 4096)));
    let mut next = first.clone();
    next.sort_unstable_by(|a, b| b.cmp(a));
    assert_eq!(preempted(&d), next[..2].to_vec(), "{d:?}");
    let json = e.state_json();
    let state = &json["pipelines"][0]["plugins"]["oversubscribe"]["state"];
    assert_eq!(state["evictions_total"], 4, "{state}");
    // TBAMR's penalties are folded in at the next refresh (every 3 s).
    heartbeat(&mut e, 9000, None);
    let json = e.state_json();
    let state = &json["pipelines"][0]["plugins"]["oversubscribe"]["state"];
    assert_eq!(state["nodes"][0]["penalty"], 2.0, "{state}");
}

#[test]
fn with_evict_after_ms_a_short_burst_over_the_bound_evicts_nothing() {
    let mut e = engine("[scheduler]\npolicy = \"rose\"\n[rose]\nevict_after_ms = 3000\n");
    app(&mut e, 1, "default", 40);
    let placed = speculative(&heartbeat(&mut e, 0, Some((2.0, 2048))));
    assert_eq!(placed.len(), 4);
    // A two-sample burst over 0.95 × 8 vcores (a container starting up),
    // then back under: nothing is evicted.
    for t in [1000, 2000] {
        assert!(preempted(&heartbeat(&mut e, t, Some((7.8, 4096)))).is_empty());
    }
    assert!(preempted(&heartbeat(&mut e, 3000, Some((3.0, 4096)))).is_empty());
    // Over again from 4 s: samples at 4, 5, 6 s are within 3 s of the
    // first; at 7 s the overload has lasted 3 s and the newest two go
    // (7.8 − 6.4 = 1.4 vcores of excess, 1 vcore each).
    for t in [4000, 5000, 6000] {
        assert!(preempted(&heartbeat(&mut e, t, Some((7.8, 4096)))).is_empty(), "at {t}");
    }
    let d = heartbeat(&mut e, 7000, Some((7.8, 4096)));
    let mut newest = placed.clone();
    newest.sort_unstable_by(|a, b| b.cmp(a));
    assert_eq!(preempted(&d), newest[..2].to_vec(), "{d:?}");
}

#[test]
fn the_sidecar_estimate_alone_allows_over_subscription_until_it_expires() {
    let mut e = engine(ROSE);
    app(&mut e, 1, "default", 40);
    e.apply(Event::NodeLoadEstimate { host: "h0".into(), used: Resources::new(2048, 3000), expires_ms: 20_000 });
    // 6.4 − 3 = 3.4 vcores → 3.
    let d = heartbeat(&mut e, 0, None);
    assert_eq!(speculative(&d).len(), 3, "{d:?}");
    let d = heartbeat(&mut e, 20_001, None);
    assert!(speculative(&d).is_empty(), "{d:?}");
}

#[test]
fn application_masters_are_never_speculative() {
    let mut e = engine(ROSE);
    app(&mut e, 1, "default", 8);
    heartbeat(&mut e, 0, Some((1.0, 1024)));
    // A new app's AM ask arrives on a full node: it waits for guaranteed room.
    e.apply(Event::AppAdded {
        app: 2,
        yarn_id: "application_0_2".into(),
        queue: "default".into(),
        user: "u".into(),
        name: "j".into(),
        app_type: "MAPREDUCE".into(),
        tags: vec![],
        submit_ms: 5,
        priority: 0,
    });
    e.apply(Event::AttemptAdded { app: 2, attempt: 1 });
    e.apply(Event::AskUpdated {
        app: 2,
        ask: Ask::anywhere(
            SchedulerKey { priority: shepherd::model::ask::AM_PRIORITY, allocation_request_id: -1 },
            Resources::new(1024, 1),
            1,
        ),
    });
    let d = heartbeat(&mut e, 6000, Some((1.0, 1024)));
    assert!(d.is_empty(), "{d:?}");
}

#[test]
fn only_pipelines_that_switch_it_on_run_speculative_containers() {
    let cfg = "[scheduler]\npolicy = \"drf\"\n[pipeline.spec]\napp_order = \"fifo\"\noversubscribe = \"rose\"\n\
               [[queue]]\nname = \"a\"\ncapacity = 0.5\npolicy = \"spec\"\n[[queue]]\nname = \"b\"\ncapacity = 0.5\n";
    let mut e = engine(cfg);
    app(&mut e, 1, "a", 4);
    app(&mut e, 2, "b", 40);
    let d = heartbeat(&mut e, 0, Some((1.0, 1024)));
    assert_eq!(guaranteed(&d), 8);
    // Queue b's app still has asks but its pipeline does not over-subscribe;
    // queue a's app has none left: nothing speculative.
    assert!(speculative(&d).is_empty(), "{d:?}");
    app(&mut e, 3, "a", 10);
    let d = heartbeat(&mut e, 6000, Some((1.0, 1024)));
    let apps: Vec<u32> = d
        .iter()
        .filter_map(|d| match d {
            Decision::Allocate { app, execution: ExecutionType::Opportunistic, .. } => Some(*app),
            _ => None,
        })
        .collect();
    // 6.4 − 1 = 5.4 vcores → 5, all for app 3 (queue a).
    assert_eq!(apps, vec![3; 5]);
    assert!(e.config().describe().contains("oversubscribe=rose"));
}

#[test]
fn the_rose_section_is_validated_per_pipeline() {
    let e = Config::parse("[pipeline.x]\nrose = { bound_vcores = 0.5 }\n").unwrap_err().to_string();
    assert!(e.contains("pipeline.x.rose") && e.contains("not rose"), "{e}");
    let e = Config::parse("[pipeline.x]\noversubscribe = \"maybe\"\n").unwrap_err().to_string();
    assert!(e.contains("pipeline.x.oversubscribe") && e.contains("maybe"), "{e}");
}

// ---- the simulator with speculative containers

use shepherd::sim::{simulate, SimOptions};
use shepherd::workload::{ClusterSpec, Job, Stage, Task, Trace};

fn sim_job(id: &str, tasks: usize, secs: i64, used_vcores: Option<i64>) -> Job {
    Job {
        id: id.into(),
        submit_ms: 0,
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
            tasks: vec![Task { duration_ms: secs * 1000, used: used_vcores.map(|v| [256, v]) }; tasks],
        }],
    }
}

#[test]
fn speculative_containers_shorten_a_backlog_of_tasks_that_use_little() {
    // 2 nodes × 8 vcores, 64 tasks of 20 s asking 1 vcore and using 0.25:
    // DRF runs 16 at a time (4 waves, 80 s); ROSE adds speculative ones.
    let trace = Trace { cluster: None, am: None, jobs: vec![sim_job("a", 32, 20, None), sim_job("b", 32, 20, None)] };
    let cluster = ClusterSpec { nodes: 2, memory_mb: 8 * 1024, vcores: 8, rack_size: 2 };
    let opts = SimOptions { cluster_model: None, usage_factor: 0.25, ..SimOptions::default() };
    let drf = simulate(&trace, &cluster, Config::parse("[scheduler]\npolicy = \"drf\"\n").unwrap(), &opts).unwrap();
    let rose = simulate(&trace, &cluster, Config::parse(ROSE).unwrap(), &opts).unwrap();
    assert_eq!((drf.summary.unfinished_jobs, rose.summary.unfinished_jobs), (0, 0));
    assert_eq!(drf.summary.all.makespan_ms, 80_000);
    let o = rose.summary.oversubscription.expect("rose reports over-subscription");
    assert!(o.speculative_containers > 0, "{o:?}");
    assert!(
        rose.summary.all.makespan_ms < drf.summary.all.makespan_ms,
        "{} vs {}",
        rose.summary.all.makespan_ms,
        drf.summary.all.makespan_ms
    );
    assert!(o.used_vcores_capped > drf.summary.utilization.used_vcores, "{o:?} vs {:?}", drf.summary.utilization);
    assert!(drf.summary.oversubscription.is_none());
}

#[test]
fn evicted_tasks_are_retried_and_every_job_finishes() {
    // A's tasks use nothing; B's and C's use all they ask for. At 1–2 s the
    // nodes are full of A (measured idle): B or C get speculative
    // containers up to the bound (6 per node). When A's containers end
    // (60 s) the waiting asks take them as guaranteed ones, measured use
    // climbs over 0.95 × 8 vcores, the newest speculative ones are evicted,
    // and their tasks run again; every job still finishes.
    let mut jobs = vec![sim_job("a", 16, 60, Some(0)), sim_job("b", 16, 60, Some(1)), sim_job("c", 16, 30, Some(1))];
    jobs[1].submit_ms = 1_000;
    jobs[2].submit_ms = 2_000;
    let trace = Trace { cluster: None, am: None, jobs };
    let cluster = ClusterSpec { nodes: 2, memory_mb: 8 * 1024, vcores: 8, rack_size: 2 };
    let opts = SimOptions { cluster_model: None, ..SimOptions::default() };
    let out = simulate(&trace, &cluster, Config::parse(ROSE).unwrap(), &opts).unwrap();
    assert_eq!(out.summary.unfinished_jobs, 0);
    let o = out.summary.oversubscription.unwrap();
    assert!(o.speculative_containers > 0, "{o:?}");
    assert_eq!(out.summary.tasks, 48);
    // Evictions lose work: wasted container-seconds go with them.
    assert!(o.evictions > 0 && o.wasted_container_s > 0.0, "{o:?}");
}
