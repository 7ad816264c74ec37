//! What one pipeline serves. With a flat queue order there is one pipeline
//! for the whole cluster; otherwise each queue has its own, and its plugins
//! see that queue's apps and that queue's share: a DRESS reserve inside a
//! queue splits the queue's maximum share into the two pools, as the paper's
//! DRESS splits the cluster.

use crate::model::{App, ClusterState, QueueId, Resources};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    Cluster,
    Queue(QueueId),
}

impl Scope {
    pub fn contains(&self, app: &App) -> bool {
        match self {
            Scope::Cluster => true,
            Scope::Queue(q) => app.queue == *q,
        }
    }

    /// The scope's apps, in id order.
    pub fn apps<'a>(&self, state: &'a ClusterState) -> impl Iterator<Item = &'a App> + 'a {
        let scope = *self;
        state.apps.values().map(std::sync::Arc::as_ref).filter(move |a| scope.contains(a))
    }

    /// The scope's total: the cluster's capacity, or the queue's maximum
    /// share of it (what the queue can ever hold).
    pub fn capacity(&self, state: &ClusterState) -> Resources {
        match self {
            Scope::Cluster => state.capacity,
            Scope::Queue(q) => state.queues[*q].max_capacity_of(&state.capacity),
        }
    }

    /// Allocated to the scope's apps.
    pub fn allocated(&self, state: &ClusterState) -> Resources {
        match self {
            Scope::Cluster => state.allocated,
            Scope::Queue(q) => state.queues[*q].allocated,
        }
    }

    /// What the scope could still get: its headroom, and no more than the
    /// cluster has free.
    pub fn free(&self, state: &ClusterState) -> Resources {
        match self {
            Scope::Cluster => state.free(),
            Scope::Queue(_) => {
                let headroom = self.capacity(state) - self.allocated(state);
                headroom.min_each(&state.free())
            }
        }
    }

    /// The queue's name, or `root` for the whole cluster (metric labels).
    pub fn label<'a>(&self, state: &'a ClusterState) -> &'a str {
        match self {
            Scope::Cluster => "root",
            Scope::Queue(q) => &state.queues[*q].name,
        }
    }
}
