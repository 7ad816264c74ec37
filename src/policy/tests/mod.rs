//! What each policy does with Spark's long-lived executors (dynamic
//! allocation) and Tez's DAG vertices, policy by policy: the tests behind
//! the table "What each policy does with Spark and Tez" in
//! `docs/spark-tez.md`. The asks are shaped as the AMs send them: Spark's
//! YarnAllocator asks at one scheduler key for (target − running)
//! executors, the target growing while a stage has a backlog and falling
//! when executors sit idle (it then releases them); Tez's DAGAppMaster asks
//! each vertex's tasks at the vertex's own priority, roots first.

mod spark_tez;
mod starvation;

use crate::config::Config;
use crate::engine::{Decision, Engine, Event};
use crate::model::{Ask, Resources, SchedulerKey};

/// Spark's executors (Spark 3 asks them at priority 0 of their resource
/// profile; any one key will do here, apart from YARN's AM priority).
pub(super) const EXECUTORS: i32 = 1;
/// MapReduce's maps.
pub(super) const MAPS: i32 = 20;

pub(super) fn engine(text: &str) -> Engine {
    Engine::with_config(Config::parse(text).unwrap()).unwrap()
}

pub(super) fn node(e: &mut Engine, id: u32, slots: i64) {
    e.apply(Event::NodeAdded {
        node: id,
        host: format!("host{id}"),
        rack: "/default-rack".into(),
        capacity: Resources::new(slots * 1024, slots),
        labels: vec![],
        attributes: vec![],
    });
}

/// An app of YARN application type `app_type`, named `name` (a job's runs
/// share user + name, the history key), with its first attempt.
pub(super) fn app(e: &mut Engine, id: u32, queue: &str, app_type: &str, name: &str, submit_ms: i64) {
    e.apply(Event::AppAdded {
        app: id,
        yarn_id: format!("application_0_{id}"),
        queue: queue.into(),
        user: "u".into(),
        name: name.into(),
        app_type: app_type.into(),
        tags: vec![],
        submit_ms,
        priority: 0,
    });
    e.apply(Event::AttemptAdded { app: id, attempt: 1 });
}

/// The AM's absolute outstanding count at `priority`, 1 GB / 1 vcore each.
pub(super) fn ask(e: &mut Engine, app: u32, priority: i32, count: i32) {
    e.apply(Event::AskUpdated {
        app,
        ask: Ask::anywhere(SchedulerKey { priority, allocation_request_id: 0 }, Resources::new(1024, 1), count),
    });
}

/// (container, app) of each allocation of one pass over `node` at `now`.
pub(super) fn pass(e: &mut Engine, node: u32, now: i64) -> Vec<(u64, u32)> {
    let mut out = vec![];
    e.schedule_node(node, now, &mut out).unwrap();
    out.iter().filter_map(|d| if let Decision::Allocate { container, app, .. } = d { Some((*container, *app)) } else { None }).collect()
}

pub(super) fn finish(e: &mut Engine, container: u64, at_ms: i64) {
    e.advance_clock(at_ms);
    e.apply(Event::ContainerFinished { container, exit_status: 0, at_ms });
}

pub(super) fn of(got: &[(u64, u32)], app: u32) -> Vec<u64> {
    got.iter().filter(|(_, a)| *a == app).map(|(c, _)| *c).collect()
}

/// Containers `app` holds now.
pub(super) fn running(e: &Engine, app: u32) -> usize {
    e.state().apps[&app].containers.len()
}
