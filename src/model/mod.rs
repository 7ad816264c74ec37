//! The engine's picture of the cluster: what YARN objects look like once the
//! shim (or the simulator) has translated them. Plain data, no policy.

pub mod app;
pub mod ask;
pub mod cluster;
/// Placement constraints (tags, affinity, cardinality) and their per-partition
/// bit-vector index (Megha §IV-B): part of the model because asks carry them
/// and the cluster state keeps the index.
pub mod constraint;
pub mod container;
pub mod exit;
pub mod live_containers;
pub mod node;
pub mod queue;
pub mod resource;
pub mod start_index;
pub mod waiting;

pub use app::{App, AppId, Blocked, LiveContainer};
pub use ask::{Ask, ExecutionType, Locality, SchedulerKey};
pub use cluster::{ClusterState, LeftoverHold};
pub use container::{Container, ContainerId};
pub use live_containers::LiveContainers;
pub use node::{Node, NodeId};
pub use queue::{Queue, QueueId};
pub use resource::Resources;
pub use waiting::{WaitReason, WaitReasons};
