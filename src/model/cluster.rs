//! The whole cluster state the engine keeps, updated only by events.

use super::app::{App, AppId};
use super::container::{Container, ContainerId};
use super::node::{Node, NodeId};
use super::queue::{Queue, QueueId};
use super::resource::Resources;
use serde::Serialize;
use std::collections::{BTreeMap, HashMap};

/// Ordered maps keep every iteration deterministic, which the simulator's
/// same-seed-same-result promise depends on.
#[derive(Debug, Default, Serialize)]
pub struct ClusterState {
    pub nodes: BTreeMap<NodeId, Node>,
    pub apps: BTreeMap<AppId, App>,
    pub containers: BTreeMap<ContainerId, Container>,
    pub queues: Vec<Queue>,
    #[serde(skip)]
    pub queue_by_name: HashMap<String, QueueId>,
    /// Sum of node capacities.
    pub capacity: Resources,
    /// Sum of allocated containers.
    pub allocated: Resources,
    /// Time of the latest event or scheduling pass, ms.
    pub now_ms: i64,
    /// Names of the resource types, index-aligned with `Resources`.
    pub resource_names: Vec<String>,
    /// Placements the driver could not carry out (YARN refused them, e.g. the
    /// app blacklisted the node): (app, node) → time until which the pass
    /// does not offer that app this node again.
    #[serde(skip)]
    pub refused_placements: HashMap<(AppId, NodeId), i64>,
    /// Placement-constraint bit-vectors over every node and every live
    /// container's allocation tags (`crate::constraint::index`).
    #[serde(skip)]
    pub constraints: crate::constraint::ConstraintIndex,
}

impl ClusterState {
    pub fn free(&self) -> Resources {
        self.capacity - self.allocated
    }

    /// Resolve a YARN queue name (`default`, `root.default`) to a leaf queue.
    pub fn queue_id(&self, name: &str) -> Option<QueueId> {
        let leaf = name.strip_prefix("root.").unwrap_or(name);
        self.queue_by_name.get(leaf).copied()
    }

    pub fn pending_apps(&self) -> impl Iterator<Item = &App> {
        self.apps.values().filter(|a| a.has_pending())
    }
}
