//! The cluster the engine benchmarks run on: `nodes` NodeManagers of
//! 64 GB / 32 vcores in racks of 40, `apps` MapReduce-like applications of
//! 4 GB / 1 vcore map asks, sized so that once the cluster is filled
//! (16 containers a node) `pending` asks stay queued; and the top-up that
//! keeps them queued while the benchmark frees and refills nodes.
//!
//! With `small_apps` > 0 the first that many apps are small: each keeps
//! [`SMALL_APP_TASKS`] containers running or asked, far below a fair share,
//! as most jobs of a shared cluster are; the others are large and share the
//! `pending` asks. Fair-share policies then meet apps whose demand is met
//! before the cluster runs out (DRF's progressive filling satisfies each
//! on its own), which identical apps never show.

use crate::engine::Event;
use crate::model::{Ask, Resources, SchedulerKey};

/// 4 GB containers on 64 GB nodes.
const SLOTS_PER_NODE: u32 = 16;

/// Containers a small app holds and asks for at most.
pub(super) const SMALL_APP_TASKS: i64 = 3;

pub(super) struct BusyCluster {
    pub nodes: u32,
    pub apps: u32,
    pub pending: u32,
    /// Apps 0..small_apps are small (at most `apps` − 1 of them).
    pub small_apps: u32,
}

impl BusyCluster {
    /// How many apps are small.
    pub fn small(&self) -> u32 {
        self.small_apps.min(self.apps.saturating_sub(1))
    }

    fn is_small(&self, app: u32) -> bool {
        app < self.small()
    }

    /// Asks each large app keeps outstanding once the cluster is full.
    pub fn per_app(&self) -> u32 {
        (self.pending / (self.apps - self.small())).max(1)
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
        let per_app_total = self.per_app() + self.nodes * SLOTS_PER_NODE / (self.apps - self.small()) + 1;
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
            events.push(map_ask(a, if self.is_small(a) { SMALL_APP_TASKS as i32 } else { per_app_total as i32 }));
        }
        events
    }

    /// New asks for every large app whose queue fell below `per_app`, and
    /// for every small app that holds and asks for fewer than
    /// [`SMALL_APP_TASKS`] containers (in YARN they arrive through AM
    /// allocate calls, so benchmarks do not time them).
    pub fn top_up(&self, state: &crate::model::ClusterState) -> Vec<Event> {
        let per_app = self.per_app() as i64;
        (0..self.apps)
            .filter_map(|a| {
                let app = state.apps.get(&a)?;
                let want = if self.is_small(a) { SMALL_APP_TASKS - app.containers.len() as i64 } else { per_app };
                (app.pending_containers() < want).then(|| map_ask(a, want as i32))
            })
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
    v[crate::metrics::stats::rounded_rank(v.len(), p / 100.0)] as f64 / 1000.0
}
