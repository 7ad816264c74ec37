//! The cluster the engine benchmarks run on: `nodes` NodeManagers of
//! 64 GB / 32 vcores in racks of 40, `apps` MapReduce-like applications of
//! 4 GB / 1 vcore map asks, sized so that once the cluster is filled
//! (16 containers a node) `pending` asks stay queued; and the top-up that
//! keeps them queued while the benchmark frees and refills nodes.

use crate::engine::Event;
use crate::model::{Ask, Resources, SchedulerKey};

/// 4 GB containers on 64 GB nodes.
const SLOTS_PER_NODE: u32 = 16;

pub(super) struct BusyCluster {
    pub nodes: u32,
    pub apps: u32,
    pub pending: u32,
}

impl BusyCluster {
    /// Asks each app keeps outstanding once the cluster is full.
    pub fn per_app(&self) -> u32 {
        (self.pending / self.apps).max(1)
    }

    /// Nodes, apps with their attempts, and every app's asks: enough to fill
    /// the cluster and leave `per_app` queued each.
    pub fn setup(&self) -> Vec<Event> {
        let mut events = Vec::new();
        for n in 0..self.nodes {
            events.push(Event::NodeAdded {
                node: n,
                host: format!("nm{n:05}.cluster"),
                rack: format!("/rack{}", n / 40),
                capacity: Resources::new(64 * 1024, 32),
                labels: vec![],
                attributes: vec![],
            });
        }
        let per_app_total = self.per_app() + self.nodes * SLOTS_PER_NODE / self.apps + 1;
        for a in 0..self.apps {
            events.push(Event::AppAdded {
                app: a,
                yarn_id: format!("application_0_{a}"),
                queue: "default".into(),
                user: format!("user{}", a % 50),
                name: format!("job{a}"),
                app_type: "MAPREDUCE".into(),
                tags: vec![],
                submit_ms: a as i64,
                priority: 0,
            });
            events.push(Event::AttemptAdded { app: a, attempt: 1 });
            events.push(map_ask(a, per_app_total as i32));
        }
        events
    }

    /// New asks for every app whose queue fell below `per_app` (in YARN
    /// they arrive through AM allocate calls, so benchmarks do not time them).
    pub fn top_up(&self, state: &crate::model::ClusterState) -> Vec<Event> {
        let per_app = self.per_app();
        (0..self.apps)
            .filter(|a| state.apps.get(a).is_some_and(|app| app.pending_containers() < per_app as i64))
            .map(|a| map_ask(a, per_app as i32))
            .collect()
    }
}

fn map_ask(app: u32, count: i32) -> Event {
    Event::AskUpdated { app, ask: Ask::anywhere(SchedulerKey { priority: 20, allocation_request_id: 0 }, Resources::new(4096, 1), count) }
}

/// The `p`-th percentile (nearest rank) of `samples_ns`, µs.
pub(super) fn percentile(samples_ns: &[u64], p: f64) -> f64 {
    let mut v = samples_ns.to_vec();
    v.sort_unstable();
    let i = ((p / 100.0) * (v.len() - 1) as f64).round() as usize;
    v[i] as f64 / 1000.0
}
