//! The activity log: what the engine saw happen to containers and apps on a
//! real cluster, kept (bounded) when `[scheduler] activity_log` > 0. It is
//! how the simulator is calibrated (`shepherd calibrate`): how long an
//! ApplicationMaster takes to start and to ask for its tasks, how long a
//! container takes from allocation to RUNNING, how long it outlives its work,
//! when NodeManagers heartbeat. Off by default: a production RM does not
//! need it; the comparison harness turns it on.

use crate::model::{App, ClusterState, Container};
use serde::Serialize;
use std::collections::VecDeque;

/// One container, once it is gone.
#[derive(Debug, Clone, Serialize)]
pub struct ContainerRecord {
    /// The app's YARN id (trace job id in the simulator).
    pub app: String,
    pub priority: i32,
    pub am: bool,
    /// Placed by over-subscription (ROSE), beyond the allocated view.
    pub speculative: bool,
    pub memory_mb: i64,
    pub vcores: i64,
    pub allocated_ms: i64,
    pub launched_ms: Option<i64>,
    /// `None`: released without finishing (rejected, node lost).
    pub finished_ms: Option<i64>,
    pub exit_status: Option<i32>,
}

/// One application, once it is gone.
#[derive(Debug, Clone, Serialize)]
pub struct AppRecord {
    pub app: String,
    pub name: String,
    pub user: String,
    pub queue: String,
    /// YARN's application type (MAPREDUCE, SPARK, TEZ, ...): calibration
    /// can tell a Spark driver's start-up from MapReduce's.
    pub app_type: String,
    pub submit_ms: i64,
    pub am_ask_ms: Option<i64>,
    pub first_task_ask_ms: Option<i64>,
    pub removed_ms: i64,
}

#[derive(Debug)]
pub struct ActivityLog {
    limit: usize,
    containers: VecDeque<ContainerRecord>,
    apps: VecDeque<AppRecord>,
    /// Every node heartbeat: (node, time). Bounded like the rest.
    heartbeats: VecDeque<(u32, i64)>,
}

impl ActivityLog {
    pub fn new(limit: usize) -> ActivityLog {
        ActivityLog { limit, containers: VecDeque::new(), apps: VecDeque::new(), heartbeats: VecDeque::new() }
    }

    fn push<T>(q: &mut VecDeque<T>, limit: usize, v: T) {
        if q.len() == limit {
            q.pop_front();
        }
        q.push_back(v);
    }

    pub fn container_gone(&mut self, state: &ClusterState, c: &Container, finished: Option<(i64, i32)>) {
        let app = state.apps.get(&c.app).map(|a| a.yarn_id.clone()).unwrap_or_default();
        let r = ContainerRecord {
            app,
            priority: c.key.priority,
            am: c.am,
            speculative: c.speculative,
            memory_mb: c.resources.memory_mb(),
            vcores: c.resources.vcores(),
            allocated_ms: c.allocated_ms,
            launched_ms: c.launched_ms,
            finished_ms: finished.map(|(t, _)| t),
            exit_status: finished.map(|(_, e)| e),
        };
        Self::push(&mut self.containers, self.limit, r);
    }

    pub fn app_gone(&mut self, state: &ClusterState, a: &App) {
        let r = AppRecord {
            app: a.yarn_id.clone(),
            name: a.name.clone(),
            user: a.user.clone(),
            queue: state.queues.get(a.queue).map(|q| q.name.clone()).unwrap_or_default(),
            app_type: a.app_type.clone(),
            submit_ms: a.submit_ms,
            am_ask_ms: a.am_ask_ms,
            first_task_ask_ms: a.first_task_ask_ms,
            removed_ms: state.now_ms,
        };
        Self::push(&mut self.apps, self.limit, r);
    }

    pub fn heartbeat(&mut self, node: u32, now_ms: i64) {
        Self::push(&mut self.heartbeats, self.limit, (node, now_ms));
    }

    pub fn json(&self) -> serde_json::Value {
        let heartbeats: Vec<_> = self.heartbeats.iter().map(|(n, t)| serde_json::json!({"node": n, "at_ms": t})).collect();
        serde_json::json!({
            "containers": self.containers,
            "apps": self.apps,
            "heartbeats": heartbeats,
        })
    }
}
