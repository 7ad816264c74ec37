//! An application (YARN app + its current attempt) and its outstanding asks.

use super::ask::{Ask, SchedulerKey};
use super::live_containers::LiveContainers;
use super::queue::QueueId;
use super::resource::Resources;
use serde::Serialize;
use std::collections::BTreeMap;
use std::sync::Arc;

/// Dense application index assigned by the driver, increasing with submission
/// order (the shim numbers `ApplicationId`s as they arrive).
pub type AppId = u32;

#[derive(Debug, Clone, Serialize)]
pub struct App {
    pub id: AppId,
    /// YARN's application id string (the simulator's job id).
    pub yarn_id: String,
    pub queue: QueueId,
    pub user: String,
    pub name: String,
    pub app_type: String,
    pub tags: Vec<String>,
    pub submit_ms: i64,
    /// YARN application priority (higher value = more important).
    pub priority: i32,
    /// Current attempt id; `None` until the first attempt is added. YARN's
    /// attempt ids start at 1, but 0 is a legal id (the RM's own tests
    /// use it), so "no attempt yet" is not a number.
    pub attempt: Option<u32>,
    pub asks: BTreeMap<SchedulerKey, Ask>,
    pub allocated: Resources,
    /// Its live containers, with what per-app walks read of each (as
    /// YARN's `SchedulerApplicationAttempt` keeps its live containers):
    /// a policy that looks at every container of an app each time it is
    /// replanned need not look each one up in the cluster's map. Shared
    /// copy-on-write (change it through `Arc::make_mut`): a parallel
    /// round's proposer copies the apps it books into but not their live
    /// containers, which it leaves as they were (`engine::propose`).
    pub containers: Arc<LiveContainers>,
    /// When the first container of the app was allocated (waiting time ends).
    pub first_allocation_ms: Option<i64>,
    /// Containers allocated over the app's life.
    pub allocations_total: u64,
    /// Container-milliseconds of containers that have ended (finished, lost
    /// with their node, or released with the app): attained service so far,
    /// without the running containers'.
    pub service_done_ms: i64,
    /// Sum of the live containers' allocation times, so the running
    /// containers' service at `now` is `containers.len() · now − this`.
    pub live_start_sum_ms: i64,
    /// Its live ApplicationMaster container (the container of its
    /// `AM_PRIORITY` ask), if any.
    pub am_container: Option<u64>,
    /// When the RM asked for its AM container, and when the AM first asked
    /// for task containers (both `None` until then): the AM's start-up time
    /// on a real cluster, which the simulator is calibrated with.
    pub am_ask_ms: Option<i64>,
    pub first_task_ask_ms: Option<i64>,
}

/// What an app's record keeps of one of its live containers (the full
/// record is `ClusterState::containers`).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct LiveContainer {
    pub key: SchedulerKey,
    pub resources: Resources,
    /// When it started: launched, or else allocated.
    pub started_ms: i64,
}

/// Why a pass could not give an app a container on a node (the check of
/// the pass that refused its most urgent ask).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Blocked {
    /// The node's free resources cannot hold the ask.
    NodeFull,
    /// Apps (or queues) ahead of it in the order filled the node first.
    Outranked,
    /// The ask names other hosts/racks and does not relax locality.
    Locality,
    /// The ask's node-label expression does not match the node.
    Label,
    /// The queue would exceed its maximum capacity.
    QueueMax,
    /// The queue's ApplicationMasters already hold their maximum share.
    AmLimit,
    /// YARN refused this app a container on this node a moment ago.
    RefusedHere,
    /// The classify point holds the ask back for the leftover phase.
    Altruistic,
    /// The reserve plugin keeps the app inside its partition (e.g. DRESS pool).
    Reserve(&'static str),
    /// A filter plugin rejected the node.
    Filter(&'static str),
    /// In a parallel scheduling round, what is left of the ask is another
    /// proposer's share (`engine::propose`); not a reason to stop a strict
    /// order, which that proposer serves on its own nodes.
    OtherProposer,
}

impl std::fmt::Display for Blocked {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Blocked::NodeFull => write!(f, "node has too little free capacity for the ask"),
            Blocked::Outranked => write!(f, "apps or queues ahead of it in the order filled the node"),
            Blocked::Locality => write!(f, "ask is pinned to other hosts or racks"),
            Blocked::Label => write!(f, "ask's node label does not match the node"),
            Blocked::QueueMax => write!(f, "queue is at its maximum capacity"),
            Blocked::AmLimit => write!(f, "queue's ApplicationMasters hold their maximum share (max_am_share)"),
            Blocked::RefusedHere => write!(f, "YARN refused this node to the app recently"),
            Blocked::Altruistic => write!(f, "ask held back (ALTRUISTIC) for leftover capacity"),
            Blocked::Reserve(p) => write!(f, "reserve `{p}` keeps the app inside its pool"),
            Blocked::Filter(p) => write!(f, "filter `{p}` rejected the node"),
            Blocked::OtherProposer => write!(f, "the rest of the ask is another proposer's share in this round"),
        }
    }
}

impl App {
    /// Sum of outstanding (not yet allocated) asks.
    pub fn pending(&self) -> Resources {
        let mut r = Resources::ZERO;
        for a in self.asks.values() {
            if a.count > 0 {
                r += a.capability.times(a.count as i64);
            }
        }
        r
    }

    #[inline]
    pub fn has_pending(&self) -> bool {
        self.attempt.is_some() && self.asks.values().any(|a| a.count > 0)
    }

    /// Attained service at `now_ms` (container-ms): what LAS orders by and
    /// size estimators subtract from a job's estimated size.
    pub fn attained_ms(&self, now_ms: i64) -> i64 {
        self.service_done_ms + self.containers.len() as i64 * now_ms - self.live_start_sum_ms
    }

    /// Is `ask` for the app's ApplicationMaster (still to be placed)?
    pub fn is_am_ask(&self, ask: &Ask) -> bool {
        ask.key.priority == super::ask::AM_PRIORITY && self.am_container.is_none()
    }

    pub fn pending_containers(&self) -> i64 {
        self.asks.values().map(|a| a.count.max(0) as i64).sum()
    }
}
