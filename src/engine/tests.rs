//! Engine behaviour shared by every policy.

use super::*;
use crate::model::{Ask, Blocked, ExecutionType, LiveContainer, Resources, SchedulerKey};

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
    add_app_without_attempt(e, id, queue, user, submit_ms);
    e.apply(Event::AttemptAdded { app: id, attempt: 1 });
}

/// The app as the RM adds it, before its first attempt.
pub(crate) fn add_app_without_attempt(e: &mut Engine, id: u32, queue: &str, user: &str, submit_ms: i64) {
    e.apply(Event::AppAdded {
        app: id,
        yarn_id: format!("application_0_{}", id),
        queue: queue.into(),
        user: user.into(),
        name: format!("app{id}"),
        app_type: "MAPREDUCE".into(),
        tags: vec![],
        submit_ms,
        priority: 0,
    });
}

pub(crate) fn ask(e: &mut Engine, app: u32, priority: i32, mem: i64, cores: i64, count: i32) {
    e.apply(Event::AskUpdated {
        app,
        ask: Ask::anywhere(SchedulerKey { priority, allocation_request_id: 0 }, Resources::new(mem, cores), count),
    });
}

/// (app, node) of each allocation, in order.
pub(crate) fn allocs(d: &[Decision]) -> Vec<(u32, u32)> {
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

/// YARN's attempt ids start at 1, but 0 is a legal id: the RM's own tests
/// (`TestResourceManager#testResourceAllocation`) add attempt 0 and expect
/// its asks served. Only an app with no attempt yet has nothing to run.
#[test]
fn attempt_zero_is_an_attempt_and_no_attempt_is_not() {
    let mut e = engine("fifo", &[]);
    add_node(&mut e, 1, 4096, 4);
    for id in [1, 2] {
        add_app_without_attempt(&mut e, id, "default", "u", id as i64);
        ask(&mut e, id, 1, 1024, 1, 1);
    }
    e.apply(Event::AttemptAdded { app: 2, attempt: 0 });
    let mut out = vec![];
    e.schedule_node(1, 100, &mut out).unwrap();
    assert_eq!(allocs(&out), vec![(2, 1)], "app 1 has no attempt; app 2's attempt 0 is served");
    assert_eq!(e.state.apps[&2].attempt, Some(0));
    assert_eq!(e.state.apps[&1].attempt, None);
}

/// `yarn application -updatePriority`: FIFO orders by YARN priority
/// first (as the CapacityScheduler's FIFO ordering policy does), so raising
/// the later app's priority puts it first from the next pass on.
#[test]
fn a_raised_app_priority_reorders_fifo() {
    let mut e = engine("fifo", &[]);
    add_node(&mut e, 1, 2048, 2);
    add_app(&mut e, 1, "default", "alice", 10);
    add_app(&mut e, 2, "default", "bob", 20);
    ask(&mut e, 1, 1, 1024, 1, 2);
    ask(&mut e, 2, 1, 1024, 1, 2);
    e.apply(Event::AppPriorityChanged { app: 2, priority: 5 });
    assert_eq!(e.state.apps[&2].priority, 5);
    let mut out = vec![];
    e.schedule_node(1, 100, &mut out).unwrap();
    assert_eq!(allocs(&out), vec![(2, 1), (2, 1)]);
    e.apply(Event::AppPriorityChanged { app: 99, priority: 1 });
    assert_eq!(e.counters().unknown_references, 1);
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

/// The app's record of its live containers follows allocation, launch,
/// finish and rejection (Carbyne's planner walks it instead of the
/// cluster's container map).
#[test]
fn app_live_containers_follow_allocation_launch_and_release() {
    let mut e = engine("fifo", &[]);
    add_node(&mut e, 1, 4096, 4);
    add_app(&mut e, 1, "default", "alice", 0);
    ask(&mut e, 1, 20, 1024, 1, 3);
    let mut out = vec![];
    e.schedule_node(1, 7, &mut out).unwrap();
    let ids: Vec<ContainerId> = out
        .iter()
        .filter_map(|d| match d {
            Decision::Allocate { container, .. } => Some(*container),
            _ => None,
        })
        .collect();
    assert_eq!(ids.len(), 3);
    let live = |e: &Engine| e.state.apps[&1].containers.clone();
    let expect =
        LiveContainer { key: SchedulerKey { priority: 20, allocation_request_id: 0 }, resources: Resources::new(1024, 1), started_ms: 7 };
    assert!(live(&e).values().all(|c| c == expect));
    e.apply(Event::ContainerLaunched { container: ids[0], at_ms: 12 });
    assert_eq!(live(&e).get(&ids[0]).unwrap().started_ms, 12);
    assert_eq!(live(&e).get(&ids[1]).unwrap().started_ms, 7);
    e.apply(Event::ContainerFinished { container: ids[0], exit_status: 0, at_ms: 20 });
    e.apply(Event::AllocationRejected { container: ids[1] });
    assert_eq!(live(&e).keys().copied().collect::<Vec<_>>(), vec![ids[2]]);
    let booked: Vec<ContainerId> = e.state.containers.keys().copied().collect();
    assert_eq!(booked, vec![ids[2]]);
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
    let mut e2 = Engine::with_config(Config::parse("[scheduler]\npolicy = \"fifo\"\nrefused_placement_backoff_ms = 0\n").unwrap()).unwrap();
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
            placement: None,
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
    // FIFO's pipeline has no gauges beyond its pipeline_info series and the
    // constraints filter's (in every pipeline); DRESS adds its dress_*
    // series, labelled with the queue it serves.
    assert!(g.iter().all(|x| x.name.starts_with("engine_") || x.name.starts_with("constraints_") || x.name == "pipeline_info"), "{g:#?}");
    let info = get("pipeline_info");
    assert_eq!((info.label_value("queue"), info.label_value("app_order")), (Some("root"), Some("fifo")));
    let d = Engine::with_config(Config::parse("[scheduler]\npolicy = \"dress\"\n").unwrap()).unwrap();
    assert!(d.gauges().iter().any(|x| x.name == "dress_reserve_ratio"));
}

/// Two queues, each with its own pipeline, sharing the cluster by DRF: the
/// order inside each queue is that queue's plugin's.
#[test]
fn each_queue_orders_its_apps_with_its_own_pipeline() {
    let text = "[scheduler]\npolicy = \"drf\"\n\
                [[queue]]\nname = \"a\"\ncapacity = 0.5\npolicy = \"fifo\"\n\
                [[queue]]\nname = \"b\"\ncapacity = 0.5\npolicy = \"las\"\n";
    let mut e = Engine::with_config(Config::parse(text).unwrap()).unwrap();
    add_node(&mut e, 1, 4096, 4);
    // Queue a, FIFO: app 1 (earlier) before app 2. Queue b, LAS: app 4 has
    // attained service already, so app 3 (none) goes first.
    add_app(&mut e, 1, "a", "u", 0);
    add_app(&mut e, 2, "a", "u", 5);
    add_app(&mut e, 4, "b", "u", 0);
    ask(&mut e, 4, 1, 1024, 1, 1);
    let mut out = vec![];
    e.schedule_node(1, 0, &mut out).unwrap();
    e.apply(Event::ContainerFinished { container: 1, exit_status: 0, at_ms: 5_000 });
    add_app(&mut e, 3, "b", "u", 6_000);
    ask(&mut e, 1, 1, 1024, 1, 2);
    ask(&mut e, 2, 1, 1024, 1, 2);
    ask(&mut e, 3, 1, 1024, 1, 2);
    ask(&mut e, 4, 1, 1024, 1, 2);
    let mut out = vec![];
    e.schedule_node(1, 6_000, &mut out).unwrap();
    let got = allocs(&out);
    // DRF between queues alternates a, b; inside a, FIFO keeps serving app 1
    // until its asks are done; inside b, LAS serves app 3 first.
    assert_eq!(got, vec![(1, 1), (3, 1), (1, 1), (3, 1)], "{got:?}");
    assert_eq!(e.state.apps[&4].attained_ms(6_000), 5_000);
    let st = e.state_json();
    assert_eq!(st["queue_order"]["name"], "drf");
    let pipelines: Vec<(&str, &str)> =
        st["pipelines"].as_array().unwrap().iter().map(|p| (p["queue"].as_str().unwrap(), p["policy"].as_str().unwrap())).collect();
    assert_eq!(pipelines, vec![("a", "fifo"), ("b", "las")]);
    // Apps 2 and 4 got nothing on the full node, and say why.
    for app in [2, 4] {
        let blocked = st["apps"].as_array().unwrap().iter().find(|a| a["app"] == app).unwrap()["blocked"].clone();
        assert!(blocked["reason"].as_str().unwrap().contains("ahead of it"), "{blocked}");
        assert_eq!(blocked["node"], "host1");
    }
    // The JSON is the typed view's, and reads back as it.
    let view: super::view::EngineView = serde_json::from_value(st.clone()).unwrap();
    assert_eq!(view, e.view());
    assert_eq!(serde_json::to_value(&view).unwrap(), st);
    assert!(view.apps.iter().filter(|a| a.blocked.as_ref().is_some_and(|b| b.node.as_deref() == Some("host1"))).count() == 2);
}

/// `-refreshQueues` switches a queue's pipeline in place: containers, asks
/// and the history estimator's samples survive; a queue with apps cannot be
/// dropped; a bad config changes nothing.
#[test]
fn reconfigure_switches_a_queue_and_keeps_what_plugins_learned() {
    // `sized`: an operator's pipeline that also estimates with `history`.
    let two = |a: &str, b: &str| {
        format!(
            "[scheduler]\npolicy = \"drf\"\n[pipeline.sized]\nestimate = \"history\"\nreserve = \"dress\"\napp_order = \"srtf\"\n\
             [[queue]]\nname = \"a\"\ncapacity = 0.5\npolicy = \"{a}\"\n\
             [[queue]]\nname = \"b\"\ncapacity = 0.5\npolicy = \"{b}\"\n"
        )
    };
    let mut e = Engine::with_config(Config::parse(&two("3sigma", "drf")).unwrap()).unwrap();
    add_node(&mut e, 1, 8192, 8);
    // One finished run of "app1" teaches the history estimator.
    add_app(&mut e, 1, "a", "u", 0);
    ask(&mut e, 1, 1, 1024, 1, 1);
    let mut out = vec![];
    e.schedule_node(1, 0, &mut out).unwrap();
    e.apply(Event::ContainerFinished { container: 1, exit_status: 0, at_ms: 4_000 });
    e.apply(Event::AppRemoved { app: 1 });
    // Two apps keep running across the switch.
    add_app(&mut e, 2, "a", "u", 5_000);
    add_app(&mut e, 3, "b", "u", 5_000);
    ask(&mut e, 2, 1, 1024, 1, 3);
    ask(&mut e, 3, 1, 1024, 1, 3);
    let mut out = vec![];
    e.schedule_node(1, 5_000, &mut out).unwrap();
    let running = e.state.containers.len();
    let samples = |e: &Engine| e.state_json()["pipelines"][0]["plugins"]["estimate"]["state"]["samples"].clone();
    assert_eq!(samples(&e), 1);

    // Queue a moves from 3sigma to `sized` (which also estimates with
    // `history`): same estimator, same samples.
    e.reconfigure(Config::parse(&two("sized", "drf")).unwrap()).unwrap();
    assert_eq!(e.state_json()["pipelines"][0]["policy"], "sized");
    assert_eq!(samples(&e), 1, "the history estimator was kept");
    assert_eq!(e.state.containers.len(), running);
    assert_eq!(e.state.queues[0].allocated, e.state.apps[&2].allocated);
    assert_eq!(e.counters().reconfigurations, 1);

    // A new queue c appears; a and b keep their apps. Dropping b is refused
    // while app 3 runs, and the refusal changes nothing.
    let three = format!("{}[[queue]]\nname = \"c\"\ncapacity = 0.0\n", two("sized", "drf"));
    e.reconfigure(Config::parse(&three).unwrap()).unwrap();
    assert_eq!(e.state.queues.len(), 3);
    let without_b = "[scheduler]\npolicy = \"drf\"\n[[queue]]\nname = \"a\"\ncapacity = 0.5\n";
    let err = e.reconfigure(Config::parse(without_b).unwrap()).unwrap_err().to_string();
    assert!(err.contains("root.b") && err.contains("still has applications"), "{err}");
    assert_eq!(e.state.queues.len(), 3);
    assert_eq!(e.state_json()["pipelines"][1]["policy"], "drf");

    // Queues renumbered (c first): apps follow their queue by name.
    let reordered = "[scheduler]\npolicy = \"drf\"\n[pipeline.sized]\nestimate = \"history\"\nreserve = \"dress\"\napp_order = \"srtf\"\n\
                     [[queue]]\nname = \"c\"\ncapacity = 0.0\n\
                     [[queue]]\nname = \"a\"\ncapacity = 0.5\npolicy = \"sized\"\n[[queue]]\nname = \"b\"\ncapacity = 0.5\n";
    e.reconfigure(Config::parse(reordered).unwrap()).unwrap();
    assert_eq!(e.state.queues[e.state.apps[&2].queue].name, "a");
    assert_eq!(e.state.queues[e.state.apps[&3].queue].name, "b");
    assert_eq!(e.state.queues[1].running_apps, 1);
    assert_eq!(samples(&e), serde_json::Value::Null, "c runs drf: no estimator there");
    assert_eq!(e.state_json()["pipelines"][1]["plugins"]["estimate"]["state"]["samples"], 1);
    // Scheduling goes on: the remaining asks are served.
    let mut out = vec![];
    e.schedule_node(1, 6_000, &mut out).unwrap();
    assert_eq!(e.state.apps[&2].pending_containers() + e.state.apps[&3].pending_containers(), 0);
}

/// DRESS's δ and phases live in its plugin: a refresh that leaves the
/// `[dress]` section alone keeps them.
#[test]
fn reconfigure_keeps_dress_state_when_its_config_is_unchanged() {
    let mut e = engine("dress", &[]);
    add_node(&mut e, 1, 10 * 1024, 10);
    add_app(&mut e, 1, "default", "u", 0);
    ask(&mut e, 1, 1, 1024, 1, 8);
    let mut out = vec![];
    e.schedule_node(1, 0, &mut out).unwrap();
    let adjustments = |e: &Engine| e.state_json()["pipelines"][0]["plugins"]["reserve"]["state"]["adjustments"].clone();
    assert_eq!(adjustments(&e), 1);
    let text = "[scheduler]\npolicy = \"dress\"\nmax_assignments_per_heartbeat = 4\n";
    e.reconfigure(Config::parse(text).unwrap()).unwrap();
    assert_eq!(adjustments(&e), 1, "same [dress]: the plugin is kept");
    e.reconfigure(Config::parse(&format!("{text}[dress]\ntheta = 0.2\n")).unwrap()).unwrap();
    assert_eq!(adjustments(&e), 0, "new [dress]: a fresh plugin");
    assert_eq!(e.state.containers.len(), 8);
}

/// `am_first`: an app still waiting for its ApplicationMaster is served
/// before an earlier app's task asks; without it, FIFO serves the earlier
/// app's tasks and the AM waits for the next free slot.
#[test]
fn am_first_serves_waiting_application_masters_before_other_apps_tasks() {
    let text = |am_first: bool| format!("[scheduler]\npolicy = \"mine\"\n[pipeline.mine]\napp_order = \"fifo\"\nam_first = {am_first}\n");
    for am_first in [false, true] {
        let mut e = Engine::with_config(Config::parse(&text(am_first)).unwrap()).unwrap();
        add_node(&mut e, 1, 4096, 4);
        add_app(&mut e, 1, "default", "alice", 10);
        ask(&mut e, 1, crate::model::ask::AM_PRIORITY, 1024, 1, 1);
        let mut out = vec![];
        e.schedule_node(1, 100, &mut out).unwrap();
        assert_eq!(allocs(&out), vec![(1, 1)], "app 1's AM");
        // App 1's AM runs and asks for three tasks; app 2 arrives and asks
        // for its AM (within max_am_share: 2 of 4 GB). Three slots are left.
        ask(&mut e, 1, 20, 1024, 1, 3);
        add_app(&mut e, 2, "default", "bob", 20);
        ask(&mut e, 2, crate::model::ask::AM_PRIORITY, 1024, 1, 1);
        let mut out = vec![];
        e.schedule_node(1, 200, &mut out).unwrap();
        let expected = if am_first { vec![(2, 1), (1, 1), (1, 1)] } else { vec![(1, 1), (1, 1), (1, 1)] };
        assert_eq!(allocs(&out), expected, "am_first = {am_first}");
    }
}

/// When a pass's node fills, every candidate still queued is recorded as
/// outranked there; the app served last, and an app refused in the pass
/// (its own reason stands), are not.
#[test]
fn a_filled_node_outranks_exactly_the_candidates_still_queued() {
    let mut e = engine("drf", &[]);
    add_node(&mut e, 1, 3072, 3);
    for id in 1..=5 {
        add_app(&mut e, id, "default", &format!("user{id}"), id as i64);
    }
    ask(&mut e, 1, 1, 1024, 1, 2);
    ask(&mut e, 2, 1, 8192, 1, 1); // larger than the node: refused, NodeFull
    ask(&mut e, 3, 1, 1024, 1, 1);
    ask(&mut e, 4, 1, 1024, 1, 1);
    ask(&mut e, 5, 1, 1024, 1, 2);
    let mut out = vec![];
    e.schedule_node(1, 100, &mut out).unwrap();
    let placed = allocs(&out);
    assert_eq!(placed.len(), 3);
    let last = placed.last().unwrap().0;
    let reason = |app: u32| e.state.waiting.of(app);
    assert_eq!(reason(2).map(|r| r.2), Some(Blocked::NodeFull));
    for app in [1, 3, 4, 5] {
        let pending = e.state.apps[&app].has_pending();
        let expected = (pending && app != last).then_some((100, 1, Blocked::Outranked));
        assert_eq!(reason(app), expected, "app {app} (placed {placed:?})");
    }
    // Six containers asked of apps 1, 3, 4 and 5 (at most two each) and
    // three placed: at least two of them still ask, and only one was served
    // last, so the loop above checked at least one outranked app.
    let outranked = [1, 3, 4, 5].iter().filter(|a| reason(**a).is_some_and(|r| r.2 == Blocked::Outranked)).count();
    assert!(outranked >= 1, "placed {placed:?}");
}

/// `yarn application -movetoqueue`: the app, its containers and its asks
/// count in the new queue from then on. The old queue's pipeline (SLearn)
/// lets go of it without scoring it as a finished job; the new queue's
/// (Carbyne) takes it on; an estimator both queues' pipelines name
/// (Carbyne's `tasks`) keeps what it learned of the app; a move to a queue
/// the engine does not have changes nothing.
#[test]
fn a_moved_app_leaves_its_old_pipeline_and_joins_the_new_one() {
    let cfg = "[scheduler]\nqueue_order = \"drf\"\n\
               [[queue]]\nname = \"learn\"\ncapacity = 0.4\npolicy = \"slearn\"\n\
               [[queue]]\nname = \"alt\"\ncapacity = 0.3\npolicy = \"carbyne\"\n\
               [[queue]]\nname = \"alt2\"\ncapacity = 0.3\npolicy = \"carbyne\"\n";
    let mut e = Engine::with_config(Config::parse(cfg).unwrap()).unwrap();
    let queue_id = |e: &Engine, name: &str| e.state.queue_id(name).unwrap();
    add_node(&mut e, 1, 4 * 1024, 4);
    add_app(&mut e, 1, "learn", "u", 0);
    ask(&mut e, 1, 1, 1024, 1, 10);
    // SLearn samples the app; once its first tasks finish it predicts.
    let mut out = vec![];
    e.schedule_node(1, 0, &mut out).unwrap();
    let first = allocs(&out).len();
    let ran: Vec<u64> = e.state.apps[&1].containers.keys().copied().collect();
    for c in ran {
        e.apply(Event::ContainerFinished { container: c, exit_status: 0, at_ms: 5_000 });
    }
    let mut out = vec![];
    e.schedule_node(1, 5_100, &mut out).unwrap();
    let running = allocs(&out).len();
    assert!(first > 0 && running > 0 && first + running < 10, "{first} + {running} of 10 on a 4-slot node");
    let slearn = plugin_state(&e, "learn", "estimate");
    assert_eq!((slearn["sampled_total"].as_u64(), slearn["estimated_total"].as_u64()), (Some(1), Some(1)), "{slearn}");
    assert_eq!(slearn["live_apps"].as_object().unwrap().len(), 1, "{slearn}");

    e.apply(Event::AppMoved { app: 1, queue: "alt".into() });
    let (learn, alt) = (queue_id(&e, "learn"), queue_id(&e, "alt"));
    assert_eq!(e.state.apps[&1].queue, alt);
    let q = &e.state.queues;
    let left = (10 - first - running) as i64;
    assert_eq!((q[learn].running_apps, q[alt].running_apps), (0, 1));
    assert_eq!((q[learn].allocated, q[alt].allocated), (Resources::default(), Resources::new(1024 * running as i64, running as i64)));
    assert_eq!((q[learn].pending, q[alt].pending), (Resources::default(), Resources::new(1024 * left, left)));
    // SLearn no longer tracks it and, though it had a prediction and
    // finished tasks, scored nothing: no estimation error, no ratio score,
    // no stage history (the job did not finish).
    let slearn = plugin_state(&e, "learn", "estimate");
    assert_eq!(slearn["live_apps"], serde_json::json!({}), "{slearn}");
    assert_eq!(slearn["estimation_error"]["apps"], 0, "{slearn}");
    assert_eq!(slearn["ratio_scores"], serde_json::json!({}), "{slearn}");
    assert_eq!(slearn["history_jobs"], 0, "{slearn}");
    assert_eq!(e.policies().sampling(&e.state, &e.state.apps[&1]), None, "Carbyne's estimator does not sample");
    // Carbyne plans for it: the rest of its asks are served in its new queue.
    assert_eq!(plugin_state(&e, "alt", "classify")["apps"], 1);
    let mut served = 0;
    for round in 0..3 {
        let running: Vec<u64> = e.state.apps[&1].containers.keys().copied().collect();
        for (i, c) in running.iter().enumerate() {
            e.apply(Event::ContainerFinished { container: *c, exit_status: 0, at_ms: 5_000 * (round + 1) + i as i64 });
        }
        let mut out = vec![];
        e.schedule_node(1, 5_000 * (round + 1) + 100, &mut out).unwrap();
        served += allocs(&out).len();
    }
    assert_eq!(served, 10 - first - running, "the rest of its asks are served in queue alt");
    let tasks = plugin_state(&e, "alt", "estimate");
    assert_eq!(tasks["live_apps"], 1, "{tasks}");
    assert!(tasks["tasks_seen"].as_u64().unwrap() >= 1, "{tasks}");

    // Between two Carbyne queues: the shared `tasks` estimator keeps the
    // app; alt's Carbyne lets go of it, alt2's takes it on.
    e.apply(Event::AppMoved { app: 1, queue: "root.alt2".into() });
    assert_eq!(plugin_state(&e, "alt2", "estimate")["live_apps"], 1, "the shared estimator kept the app");
    assert_eq!(plugin_state(&e, "alt", "classify")["apps"], 0);
    assert_eq!(plugin_state(&e, "alt", "leftover")["apps_known"], 0);
    assert_eq!(plugin_state(&e, "alt2", "classify")["apps"], 1);
    assert_eq!(e.state.queues[queue_id(&e, "alt2")].running_apps, 1);

    assert_eq!(e.counters().app_moves, 2);
    // No such queue: counted as an unknown reference, nothing moves.
    let unknown = e.counters().unknown_references;
    e.apply(Event::AppMoved { app: 1, queue: "nope".into() });
    assert_eq!(e.counters().unknown_references, unknown + 1);
    assert_eq!(e.state.apps[&1].queue, queue_id(&e, "alt2"));
    assert_eq!(plugin_state(&e, "alt2", "classify")["apps"], 1);
    assert_eq!(e.counters().app_moves, 2);
}

/// The state of the plugin at `point` of the pipeline serving `queue`.
fn plugin_state(e: &Engine, queue: &str, point: &str) -> serde_json::Value {
    let json = e.state_json();
    let p = json["pipelines"].as_array().unwrap().iter().find(|p| p["queue"] == queue).cloned().unwrap();
    p["plugins"][point]["state"].clone()
}

/// DRESS lets go of an app that moves to another queue (its pool's share of
/// the reserve goes with it) and takes on one that moves in, as it would
/// an arriving app.
#[test]
fn dress_lets_go_of_a_moved_app_and_takes_on_a_moved_in_one() {
    let cfg = "[scheduler]\nqueue_order = \"drf\"\n\
               [[queue]]\nname = \"d\"\ncapacity = 0.5\npolicy = \"dress\"\n\
               [[queue]]\nname = \"f\"\ncapacity = 0.5\npolicy = \"fifo\"\n";
    let mut e = Engine::with_config(Config::parse(cfg).unwrap()).unwrap();
    let dress_apps = |e: &Engine| -> Vec<u64> {
        plugin_state(e, "d", "reserve")["apps"].as_array().unwrap().iter().map(|a| a["app"].as_u64().unwrap()).collect()
    };
    add_node(&mut e, 1, 8 * 1024, 8);
    add_app(&mut e, 1, "d", "u", 0);
    add_app(&mut e, 2, "f", "u", 0);
    ask(&mut e, 1, 1, 1024, 1, 2);
    ask(&mut e, 2, 1, 1024, 1, 2);
    let mut out = vec![];
    e.schedule_node(1, 0, &mut out).unwrap();
    assert_eq!(dress_apps(&e), vec![1]);
    e.apply(Event::AppMoved { app: 1, queue: "f".into() });
    assert_eq!(dress_apps(&e), Vec::<u64>::new(), "moved away");
    assert!(e.policies().app_json(&e.state, &e.state.apps[&1]).get("pool").is_none());
    e.apply(Event::AppMoved { app: 2, queue: "d".into() });
    assert_eq!(dress_apps(&e), vec![2], "moved in");
}
