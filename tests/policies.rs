//! The baseline policies' orderings, driven through the engine as the shim
//! and the simulator drive it.

use shepherd::model::{Ask, Resources, SchedulerKey};
use shepherd::{Config, Decision, Engine, Event};

fn engine(text: &str) -> Engine {
    let mut e = Engine::with_config(Config::parse(text).unwrap()).unwrap();
    e.apply(Event::NodeAdded {
        node: 0,
        host: "h0".into(),
        rack: "/r".into(),
        capacity: Resources::new(4096, 4),
        labels: vec![],
        attributes: vec![],
    });
    e
}

#[allow(clippy::too_many_arguments)]
fn app(e: &mut Engine, id: u32, queue: &str, name: &str, submit: i64, work: i64, mem: i64, count: i32) {
    e.apply(Event::AppAdded {
        app: id,
        yarn_id: format!("application_0_{}", id),
        queue: queue.into(),
        user: "u".into(),
        name: name.into(),
        app_type: "SIM".into(),
        tags: vec![format!("shepherd.oracle.work_ms={work}")],
        submit_ms: submit,
        priority: 0,
    });
    e.apply(Event::AttemptAdded { app: id, attempt: 1 });
    e.apply(Event::AskUpdated {
        app: id,
        ask: Ask::anywhere(SchedulerKey { priority: 1, allocation_request_id: 0 }, Resources::new(mem, 1), count),
    });
}

fn first_apps(e: &mut Engine, now: i64) -> Vec<u32> {
    let mut out = Vec::new();
    e.schedule_node(0, now, &mut out).unwrap();
    out.iter()
        .filter_map(|d| match d {
            Decision::Allocate { app, .. } => Some(*app),
            _ => None,
        })
        .collect()
}

#[test]
fn sjf_and_oracle_serve_the_smallest_job_first() {
    for p in ["sjf", "oracle"] {
        let mut e = engine(&format!("[scheduler]\npolicy = \"{p}\"\n"));
        app(&mut e, 1, "default", "big", 0, 100_000, 1024, 4);
        app(&mut e, 2, "default", "tiny", 10, 1_000, 1024, 2);
        assert_eq!(first_apps(&mut e, 0), vec![2, 2, 1, 1], "{p}");
        assert_eq!(e.estimate_ms(2), Some(1000.0));
    }
}

#[test]
fn capacity_serves_the_queue_furthest_below_its_guarantee() {
    let cfg = "[scheduler]\npolicy = \"capacity\"\n[[queue]]\nname = \"a\"\ncapacity = 0.75\n[[queue]]\nname = \"b\"\ncapacity = 0.25\n";
    let mut e = engine(cfg);
    app(&mut e, 1, "a", "x", 0, 1, 1024, 4);
    app(&mut e, 2, "b", "y", 1, 1, 1024, 4);
    let mut got = first_apps(&mut e, 0);
    got.sort();
    // 4 slots: a (75 %) gets 3, b (25 %) gets 1.
    assert_eq!(got, vec![1, 1, 1, 2]);
}

#[test]
fn tetris_prefers_the_ask_that_fills_the_node() {
    let mut e = engine("[scheduler]\npolicy = \"tetris\"\n");
    app(&mut e, 1, "default", "thin", 0, 1, 512, 1);
    app(&mut e, 2, "default", "fat", 5, 1, 3072, 1);
    assert_eq!(first_apps(&mut e, 0), vec![2, 1]);
}

#[test]
fn las_and_history_learn_from_finished_containers() {
    // LAS: an app that already received service yields to a fresh one.
    let mut e = engine("[scheduler]\npolicy = \"las\"\n");
    app(&mut e, 1, "default", "old", 0, 1, 1024, 5);
    let got = first_apps(&mut e, 0);
    assert_eq!(got, vec![1, 1, 1, 1]);
    e.apply(Event::ContainerFinished { container: 1, exit_status: 0, at_ms: 5000 });
    app(&mut e, 2, "default", "new", 6000, 1, 1024, 1);
    assert_eq!(first_apps(&mut e, 6000), vec![2]);

    // 3sigma-point: after one run of "slow" (long) and one of "quick",
    // a new "quick" job goes before a new "slow" one submitted earlier.
    let mut e = engine("[scheduler]\npolicy = \"3sigma-point\"\n");
    for (container, (id, name, dur)) in (1u64..).zip([(1u32, "slow", 60_000i64), (2, "quick", 1_000)]) {
        app(&mut e, id, "default", name, 0, 0, 1024, 1);
        assert_eq!(first_apps(&mut e, 0), vec![id]);
        e.apply(Event::ContainerFinished { container, exit_status: 0, at_ms: dur });
        e.apply(Event::AppRemoved { app: id });
    }
    app(&mut e, 3, "default", "slow", 100_000, 0, 4096, 1);
    app(&mut e, 4, "default", "quick", 100_001, 0, 4096, 1);
    assert_eq!(e.estimate_ms(3), Some(60_000.0));
    assert_eq!(first_apps(&mut e, 100_002), vec![4]);
}
