//! Engine behaviour shared by every policy.

use super::*;
use crate::model::{Ask, ExecutionType, Resources, SchedulerKey};

pub(crate) fn engine(policy: &str, queues: &[&str]) -> Engine {
    let mut text = format!("[scheduler]\npolicy = \"{policy}\"\n");
    for q in queues {
        text.push_str(&format!("[[queue]]\nname = \"{q}\"\ncapacity = 0.0\n"));
    }
    Engine::with_config(Config::parse(&text).unwrap()).unwrap()
}

pub(crate) fn add_node(e: &mut Engine, id: u32, mem: i64, cores: i64) {
    e.apply(Event::NodeAdded {
        node: id,
        host: format!("host{id}"),
        rack: "/default-rack".into(),
        capacity: Resources::new(mem, cores),
        labels: vec![],
        attributes: vec![],
    });
}

pub(crate) fn add_app(e: &mut Engine, id: u32, queue: &str, user: &str, submit_ms: i64) {
    e.apply(Event::AppAdded {
        app: id,
        queue: queue.into(),
        user: user.into(),
        name: format!("app{id}"),
        app_type: "MAPREDUCE".into(),
        tags: vec![],
        submit_ms,
        priority: 0,
    });
    e.apply(Event::AttemptAdded { app: id, attempt: 1 });
}

pub(crate) fn ask(e: &mut Engine, app: u32, priority: i32, mem: i64, cores: i64, count: i32) {
    e.apply(Event::AskUpdated {
        app,
        ask: Ask {
            key: SchedulerKey { priority, allocation_request_id: 0 },
            capability: Resources::new(mem, cores),
            count,
            relax_locality: true,
            execution: ExecutionType::Guaranteed,
            locations: vec![],
            label: String::new(),
        },
    });
}

fn allocs(d: &[Decision]) -> Vec<(u32, u32)> {
    d.iter()
        .filter_map(|d| match d {
            Decision::Allocate { app, node, .. } => Some((*app, *node)),
            _ => None,
        })
        .collect()
}

#[test]
fn fifo_serves_earliest_app_first_and_fills_node() {
    let mut e = engine("fifo", &[]);
    add_node(&mut e, 1, 4096, 4);
    add_app(&mut e, 1, "default", "alice", 10);
    add_app(&mut e, 2, "default", "bob", 5);
    ask(&mut e, 1, 1, 1024, 1, 3);
    ask(&mut e, 2, 1, 1024, 1, 3);
    let mut out = vec![];
    e.schedule_node(1, 100, &mut out).unwrap();
    // app 2 was submitted first: it gets 3, app 1 gets the last slot.
    assert_eq!(allocs(&out), vec![(2, 1), (2, 1), (2, 1), (1, 1)]);
    assert_eq!(e.state.nodes[&1].free(), Resources::new(0, 0));
    assert_eq!(e.counters().allocations, 4);
}

#[test]
fn drf_alternates_between_queues() {
    let mut e = engine("drf", &["a", "b"]);
    add_node(&mut e, 1, 8192, 8);
    add_app(&mut e, 1, "a", "alice", 0);
    add_app(&mut e, 2, "root.b", "bob", 1);
    ask(&mut e, 1, 1, 1024, 1, 10);
    ask(&mut e, 2, 1, 1024, 1, 10);
    let mut out = vec![];
    e.schedule_node(1, 100, &mut out).unwrap();
    let got = allocs(&out);
    assert_eq!(got.len(), 8);
    assert_eq!(got.iter().filter(|(a, _)| *a == 1).count(), 4);
    assert_eq!(got.iter().filter(|(a, _)| *a == 2).count(), 4);
}

#[test]
fn finished_container_frees_capacity_and_rejection_restores_ask() {
    let mut e = engine("fifo", &[]);
    add_node(&mut e, 1, 2048, 2);
    add_app(&mut e, 1, "default", "alice", 0);
    ask(&mut e, 1, 1, 1024, 1, 3);
    let mut out = vec![];
    e.schedule_node(1, 1, &mut out).unwrap();
    assert_eq!(out.len(), 2);
    let Decision::Allocate { container, .. } = out[0] else { panic!() };
    e.apply(Event::ContainerFinished { container, exit_status: 0, at_ms: 5 });
    let Decision::Allocate { container: second, .. } = out[1] else { panic!() };
    e.apply(Event::AllocationRejected { container: second });
    assert_eq!(e.state.apps[&1].pending_containers(), 2);
    // Node 1 was refused to app 1 at t = 1: not offered again until the backoff ends.
    let mut out = vec![];
    e.schedule_node(1, 6, &mut out).unwrap();
    assert!(out.is_empty());
    e.schedule_node(1, 1 + 10_000, &mut out).unwrap();
    assert_eq!(out.len(), 2);
    assert_eq!(e.state.apps[&1].pending_containers(), 0);
}

/// YARN keeps refusing the first app's placements on a node (say the app
/// blacklisted it): the node must go to the app behind it rather than to
/// the same refused placement on every heartbeat.
#[test]
fn refused_placement_does_not_take_the_node_from_others() {
    let mut e = engine("fifo", &[]);
    add_node(&mut e, 1, 2048, 2);
    add_app(&mut e, 1, "default", "alice", 0);
    add_app(&mut e, 2, "default", "bob", 1);
    ask(&mut e, 1, 1, 1024, 1, 4);
    ask(&mut e, 2, 1, 1024, 1, 2);
    let mut out = vec![];
    e.schedule_node(1, 1_000, &mut out).unwrap();
    assert_eq!(allocs(&out), vec![(1, 1), (1, 1)]);
    for d in &out {
        let Decision::Allocate { container, .. } = d else { panic!() };
        e.apply(Event::AllocationRejected { container: *container });
    }
    let mut out = vec![];
    e.schedule_node(1, 2_000, &mut out).unwrap();
    assert_eq!(allocs(&out), vec![(2, 1), (2, 1)], "the next heartbeat serves bob");
    assert_eq!(e.counters().rejected_allocations, 2);
    // With the backoff off, the refused app is offered the node at once.
    let mut e2 = Engine::with_config(
        Config::parse("[scheduler]\npolicy = \"fifo\"\nrefused_placement_backoff_ms = 0\n").unwrap(),
    )
    .unwrap();
    add_node(&mut e2, 1, 2048, 2);
    add_app(&mut e2, 1, "default", "alice", 0);
    ask(&mut e2, 1, 1, 1024, 1, 4);
    let mut out = vec![];
    e2.schedule_node(1, 1_000, &mut out).unwrap();
    let Decision::Allocate { container, .. } = out[0] else { panic!() };
    e2.apply(Event::AllocationRejected { container });
    let mut out = vec![];
    e2.schedule_node(1, 2_000, &mut out).unwrap();
    assert_eq!(allocs(&out), vec![(1, 1)]);
}

#[test]
fn strict_locality_is_respected() {
    let mut e = engine("fifo", &[]);
    add_node(&mut e, 1, 4096, 4);
    add_node(&mut e, 2, 4096, 4);
    add_app(&mut e, 1, "default", "alice", 0);
    e.apply(Event::AskUpdated {
        app: 1,
        ask: Ask {
            key: SchedulerKey { priority: 1, allocation_request_id: 0 },
            capability: Resources::new(1024, 1),
            count: 1,
            relax_locality: false,
            execution: ExecutionType::Guaranteed,
            locations: vec![("host2".into(), 1), ("/default-rack".into(), 0)],
            label: String::new(),
        },
    });
    let mut out = vec![];
    e.schedule_node(1, 1, &mut out).unwrap();
    assert!(out.is_empty(), "host1 is not allowed");
    e.schedule_node(2, 2, &mut out).unwrap();
    assert_eq!(allocs(&out), vec![(1, 2)]);
    let Decision::Allocate { locality, .. } = out[0] else { panic!() };
    assert_eq!(locality, crate::model::Locality::NodeLocal);
}

#[test]
fn queue_max_capacity_caps_allocation() {
    let text = "[scheduler]\npolicy=\"drf\"\n[[queue]]\nname=\"a\"\ncapacity=0.25\nmax_capacity=0.5\n";
    let mut e = Engine::with_config(Config::parse(text).unwrap()).unwrap();
    add_node(&mut e, 1, 4096, 4);
    add_app(&mut e, 1, "a", "alice", 0);
    ask(&mut e, 1, 1, 1024, 1, 4);
    let mut out = vec![];
    e.schedule_node(1, 1, &mut out).unwrap();
    assert_eq!(out.len(), 2);
}

#[test]
fn removing_a_node_releases_its_containers() {
    let mut e = engine("fifo", &[]);
    add_node(&mut e, 1, 2048, 2);
    add_app(&mut e, 1, "default", "alice", 0);
    ask(&mut e, 1, 1, 1024, 1, 2);
    let mut out = vec![];
    e.schedule_node(1, 1, &mut out).unwrap();
    e.apply(Event::NodeRemoved { node: 1 });
    assert!(e.state.containers.is_empty());
    assert_eq!(e.state.apps[&1].allocated, Resources::ZERO);
    assert_eq!(e.state.allocated, Resources::ZERO);
}

#[test]
fn unknown_references_are_counted_not_fatal() {
    let mut e = engine("fifo", &[]);
    e.apply(Event::ContainerFinished { container: 99, exit_status: 0, at_ms: 0 });
    e.apply(Event::AttemptAdded { app: 7, attempt: 1 });
    assert_eq!(e.counters().unknown_references, 2);
    let mut out = vec![];
    assert!(e.schedule_node(3, 0, &mut out).is_err());
}

#[test]
fn gauges_carry_counters_and_policy_gauges() {
    use crate::policy::GaugeKind;
    let mut e = engine("fifo", &[]);
    add_node(&mut e, 1, 4096, 4);
    add_app(&mut e, 1, "default", "u", 0);
    ask(&mut e, 1, 1, 1024, 1, 2);
    let mut out = vec![];
    e.schedule_node(1, 0, &mut out).unwrap();
    let g = e.gauges();
    let get = |n: &str| g.iter().find(|x| x.name == n).unwrap_or_else(|| panic!("{n}"));
    assert_eq!(get("engine_allocations_total").value, 2.0);
    assert_eq!(get("engine_allocations_total").kind, GaugeKind::Counter);
    assert_eq!(get("engine_events_total").value, e.counters().events as f64);
    assert_eq!(get("engine_passes_total").value, 1.0);
    assert_eq!(get("engine_nodes").value, 1.0);
    assert_eq!(get("engine_containers").value, 2.0);
    // FIFO has no gauges of its own; DRESS adds its dress_* series.
    assert!(g.iter().all(|x| x.name.starts_with("engine_")));
    let d = Engine::with_config(Config::parse("[scheduler]\npolicy = \"dress\"\n").unwrap()).unwrap();
    assert!(d.gauges().iter().any(|x| x.name == "dress_reserve_ratio"));
}
