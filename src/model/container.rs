//! A container: an allocation made by the engine (or recovered after an RM
//! restart) with its lifecycle timestamps.

use super::app::AppId;
use super::ask::{ExecutionType, SchedulerKey};
use super::node::NodeId;
use super::resource::Resources;
use serde::Serialize;

/// Engine-side container key. The engine numbers its own allocations from 1;
/// containers the shim recovers after an RM restart carry keys with the top bit
/// set (see `bridge::wire`), so the two spaces never collide.
pub type ContainerId = u64;

#[derive(Debug, Clone, Serialize)]
pub struct Container {
    pub id: ContainerId,
    pub app: AppId,
    pub node: NodeId,
    pub key: SchedulerKey,
    pub resources: Resources,
    pub execution: ExecutionType,
    pub allocated_ms: i64,
    pub launched_ms: Option<i64>,
    /// The app's ApplicationMaster container.
    pub am: bool,
    /// Placed by the *oversubscribe* point beyond the allocated view
    /// (ROSE's speculative container, OPPORTUNISTIC): booked in the node's
    /// `oversubscribed`, not its `allocated`, and preemptable first.
    pub speculative: bool,
}
