//! The whole cluster state the engine keeps, updated only by events.

use super::app::{App, AppId};
use super::container::{Container, ContainerId};
use super::node::{Node, NodeId};
use super::queue::{Queue, QueueId};
use super::resource::Resources;
use serde::Serialize;
use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

/// Ordered maps keep every iteration deterministic, which the simulator's
/// same-seed-same-result promise depends on.
///
/// Apps and the constraint index are shared copy-on-write (`Arc`): a
/// parallel round's proposers (`engine::propose`) each take a copy of the
/// state, and only what a proposer books into gets copied for it. Change
/// them through `Arc::make_mut` ([`ClusterState::app_mut`],
/// [`ClusterState::constraints_mut`], or `apps.get_mut(..).map(Arc::make_mut)`
/// where other fields are borrowed at once), which copies only while such a
/// fork is alive (never outside a round).
#[derive(Debug, Default, Serialize)]
pub struct ClusterState {
    pub nodes: BTreeMap<NodeId, Node>,
    pub apps: BTreeMap<AppId, Arc<App>>,
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
    /// Bumped by every event the engine applies and every periodic step it
    /// runs: within one epoch and instant only the containers a pass
    /// commits (`Plugin::on_allocated`) change the state and the
    /// estimators, so a plugin may keep what it derived from them (GS's
    /// queue per app) and update it for those containers alone.
    #[serde(skip)]
    pub epoch: u64,
    /// Bumped by every event that may change what is asked (every event but
    /// a node's utilization report) and every queue change: between two
    /// bumps only a pass's allocations change the asks, and only by taking
    /// containers off them (`engine::asked`).
    #[serde(skip)]
    pub asks_epoch: u64,
    /// Names of the resource types, index-aligned with `Resources`.
    pub resource_names: Vec<String>,
    /// Placements the driver could not carry out (YARN refused them, e.g. the
    /// app blacklisted the node): (app, node) → time until which the pass
    /// does not offer that app this node again.
    #[serde(skip)]
    pub refused_placements: HashMap<(AppId, NodeId), i64>,
    /// Placement-constraint bit-vectors over every node and every live
    /// container's allocation tags (`crate::model::constraint::index`).
    #[serde(skip)]
    pub constraints: Arc<crate::model::constraint::ConstraintIndex>,
    /// Nodes held for one ask each (`[carbyne] leftover_holds`,
    /// `scheduler.reservable_nodes`, `engine::pass`): a held node gives its
    /// free capacity to that ask before anything else, until it fits.
    #[serde(skip)]
    pub leftover_holds: BTreeMap<NodeId, LeftoverHold>,
    /// Why each app's most urgent ask was not placed the last time a pass
    /// considered it and could not serve it; cleared when it gets a
    /// container. The state view's "why is this pending".
    #[serde(skip)]
    pub waiting: super::waiting::WaitReasons,
}

/// A node held for one ask that did not fit on it (as YARN's schedulers
/// reserve a node for a container larger than its free space, so that
/// smaller ones do not take every freed piece): the leftover order's first
/// ask, or with `reservation` the main phase's (`scheduler.reservable_nodes`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LeftoverHold {
    pub app: AppId,
    pub key: super::ask::SchedulerKey,
    pub since_ms: i64,
    /// A YARN-style reservation (`engine::reservation`): no time limit, and
    /// the ask is served with the main phase's checks.
    pub reservation: bool,
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

    /// An app to change (copied first if a proposer's fork shares it).
    pub fn app_mut(&mut self, id: AppId) -> Option<&mut App> {
        self.apps.get_mut(&id).map(Arc::make_mut)
    }

    /// The constraint index to change (copied first if a fork shares it).
    pub fn constraints_mut(&mut self) -> &mut crate::model::constraint::ConstraintIndex {
        Arc::make_mut(&mut self.constraints)
    }

    /// A copy for a parallel round's proposer (`engine::propose`) that
    /// places on `nodes` only: those nodes, and every app, queue and the
    /// constraint index shared until the proposer books into them; not the
    /// cluster's container map, which no pass reads (apps keep their own
    /// live containers).
    pub fn fork_for(&self, nodes: &[NodeId]) -> ClusterState {
        ClusterState {
            nodes: nodes.iter().filter_map(|n| self.nodes.get(n).map(|node| (*n, node.clone()))).collect(),
            apps: self.apps.clone(),
            containers: BTreeMap::new(),
            queues: self.queues.clone(),
            queue_by_name: self.queue_by_name.clone(),
            capacity: self.capacity,
            allocated: self.allocated,
            now_ms: self.now_ms,
            epoch: self.epoch,
            asks_epoch: self.asks_epoch,
            resource_names: self.resource_names.clone(),
            refused_placements: self.refused_placements.clone(),
            constraints: Arc::clone(&self.constraints),
            leftover_holds: self.leftover_holds.clone(),
            // A proposer's copy is dropped after the round; no view reads it.
            waiting: Default::default(),
        }
    }

    pub fn pending_apps(&self) -> impl Iterator<Item = &App> {
        self.apps.values().map(Arc::as_ref).filter(|a| a.has_pending())
    }
}
