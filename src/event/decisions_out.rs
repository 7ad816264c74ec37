//! Decisions out: what the driver (shim or simulator) must carry out.

use crate::model::{AppId, ContainerId, ExecutionType, Locality, NodeId, Resources, SchedulerKey};
use serde::Serialize;

#[derive(Debug, Clone, PartialEq, Serialize)]
pub enum Decision {
    /// Start a container for `app` on `node` for the ask at `key`.
    Allocate {
        container: ContainerId,
        app: AppId,
        node: NodeId,
        key: SchedulerKey,
        resources: Resources,
        locality: Locality,
        execution: ExecutionType,
    },
    /// Take a container back (kill it, after the AM has been told).
    Preempt { container: ContainerId },
    /// Tell the container's ApplicationMaster, in its next allocate
    /// response (YARN's `PreemptionMessage`), that the container will be
    /// taken back unless it gives it up; nothing is killed yet.
    MarkForPreemption { container: ContainerId },
}
