//! A NodeManager as the scheduler sees it.

use super::resource::Resources;
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};

/// Dense node index assigned by whoever drives the engine (the shim maps YARN
/// `NodeId`s to these; the simulator numbers its nodes).
pub type NodeId = u32;

#[derive(Debug, Clone, Serialize)]
pub struct Node {
    pub id: NodeId,
    pub host: String,
    pub rack: String,
    /// Total schedulable capability reported by the NodeManager.
    pub capacity: Resources,
    /// Sum of the containers the scheduler has placed here.
    pub allocated: Resources,
    /// Sum of the speculative containers placed here beyond the allocated
    /// view (`Container::speculative`; not part of `allocated`).
    pub oversubscribed: Resources,
    /// Actual use reported by the NodeManager's heartbeat, if it reports any
    /// (YARN `ResourceUtilization`: physical memory MB, vcores in millis).
    pub utilization: Option<Resources>,
    pub labels: BTreeSet<String>,
    pub attributes: BTreeMap<String, String>,
    pub containers: BTreeSet<u64>,
    /// How many of `containers` are speculative (kept with
    /// `oversubscribed`): ROSE's queue index of every node at every refresh,
    /// and its controller at every heartbeat, read this count instead of
    /// walking the node's containers. Not serialized: `containers` says it.
    #[serde(skip)]
    pub speculative: u32,
    pub last_heartbeat_ms: i64,
    /// The sidecar's estimate of this node's actual use (`Event::NodeLoadEstimate`).
    pub load_estimate: Option<LoadEstimate>,
}

/// Expected actual use of a node (memory MB, vcores in millis, as
/// `Node::utilization`), valid until `expires_ms`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct LoadEstimate {
    pub used: Resources,
    pub expires_ms: i64,
}

impl Node {
    pub fn new(id: NodeId, host: String, rack: String, capacity: Resources) -> Self {
        Node {
            id,
            host,
            rack,
            capacity,
            allocated: Resources::ZERO,
            oversubscribed: Resources::ZERO,
            utilization: None,
            labels: BTreeSet::new(),
            attributes: BTreeMap::new(),
            containers: BTreeSet::new(),
            speculative: 0,
            last_heartbeat_ms: 0,
            load_estimate: None,
        }
    }

    /// The sidecar's load estimate if it has not expired at `now_ms`; `None`
    /// means "no estimate": callers use their defaults.
    pub fn load_estimate_at(&self, now_ms: i64) -> Option<Resources> {
        self.load_estimate.filter(|e| now_ms <= e.expires_ms).map(|e| e.used)
    }

    /// Capacity not yet given to containers (YARN's "unallocated resource").
    pub fn free(&self) -> Resources {
        self.capacity - self.allocated
    }
}
