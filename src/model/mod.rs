//! The engine's picture of the cluster: what YARN objects look like once the
//! shim (or the simulator) has translated them. Plain data, no policy.

pub mod app;
pub mod ask;
pub mod cluster;
pub mod container;
pub mod exit;
pub mod node;
pub mod queue;
pub mod resource;
pub mod waiting;

pub use app::{App, AppId, Blocked, LiveContainer};
pub use ask::{Ask, ExecutionType, Locality, SchedulerKey};
pub use cluster::{ClusterState, LeftoverHold};
pub use container::{Container, ContainerId};
pub use node::{Node, NodeId};
pub use queue::{Queue, QueueId};
pub use resource::Resources;
pub use waiting::{WaitReason, WaitReasons};
