//! Events in: everything the engine learns about the cluster arrives as one of
//! these, whether from the JNI shim, the simulator or a test.

use crate::model::{AppId, Ask, ContainerId, ExecutionType, NodeId, Resources, SchedulerKey};

#[derive(Debug, Clone)]
pub enum Event {
    NodeAdded {
        node: NodeId,
        host: String,
        rack: String,
        capacity: Resources,
        labels: Vec<String>,
        attributes: Vec<(String, String)>,
    },
    NodeRemoved {
        node: NodeId,
    },
    NodeResourceUpdated {
        node: NodeId,
        capacity: Resources,
    },
    /// A node's labels (partition) or attributes changed (YARN
    /// `NodeLabelsUpdateSchedulerEvent` / `NodeAttributesUpdateSchedulerEvent`):
    /// the new full sets.
    NodeAttributesUpdated {
        node: NodeId,
        labels: Vec<String>,
        attributes: Vec<(String, String)>,
    },
    /// Actual use reported in a NodeManager heartbeat.
    NodeUtilization {
        node: NodeId,
        used: Resources,
    },
    AppAdded {
        app: AppId,
        /// YARN's application id (`application_<cluster>_<n>`); the trace's
        /// job id in the simulator. Lets the state view and the sidecar join
        /// the engine's apps with the RM's.
        yarn_id: String,
        queue: String,
        user: String,
        name: String,
        app_type: String,
        tags: Vec<String>,
        submit_ms: i64,
        priority: i32,
    },
    AppRemoved {
        app: AppId,
    },
    /// The app moved to another leaf queue (`yarn application -movetoqueue`):
    /// it keeps its containers and asks; the new queue's pipeline schedules
    /// it from now on.
    AppMoved {
        app: AppId,
        queue: String,
    },
    /// The app's YARN priority changed (`yarn application -updatePriority`,
    /// `ApplicationClientProtocol#updateApplicationPriority`): the new value,
    /// already capped at the cluster's maximum by the shim.
    AppPriorityChanged {
        app: AppId,
        priority: i32,
    },
    AttemptAdded {
        app: AppId,
        attempt: u32,
    },
    /// The attempt's outstanding asks die with it; its containers are finished
    /// by separate `ContainerFinished` events (unless kept across attempts).
    AttemptRemoved {
        app: AppId,
        attempt: u32,
    },
    /// The new absolute state of one scheduler key's ask (YARN semantics: the
    /// AM sends the total outstanding count, not a delta).
    AskUpdated {
        app: AppId,
        ask: Ask,
    },
    ContainerLaunched {
        container: ContainerId,
        at_ms: i64,
    },
    ContainerFinished {
        container: ContainerId,
        exit_status: i32,
        at_ms: i64,
    },
    /// A container that survived an RM restart, reported by its NodeManager.
    ContainerRecovered {
        container: ContainerId,
        app: AppId,
        node: NodeId,
        key: SchedulerKey,
        resources: Resources,
        execution: ExecutionType,
        start_ms: i64,
    },
    /// The allocation tags of a live container the engine did not place
    /// from a tagged ask (recovered after an RM restart: YARN's
    /// `RMContainer.getAllocationTags()`), so anti-affinity counts it.
    ContainerTags {
        container: ContainerId,
        tags: Vec<String>,
    },
    /// The driver could not carry out an allocation decision (the app went
    /// away meanwhile, the node vanished, ...). The engine frees the resources
    /// and gives the ask its container back.
    AllocationRejected {
        container: ContainerId,
    },

    // ---- Slow-path inputs pushed by the sidecar over the control channel
    // (`crate::control`). They reach the engine through the JNI `step` path
    // like every other event, so decisions stay a function of the event
    // sequence; without the sidecar none arrive and the engine runs on its
    // defaults.
    /// Expected actual use of the NodeManager on `host` (the engine's
    /// `Node.host`), in the units of `NodeUtilization` (memory MB, vcores in
    /// millis), estimated from its utilization series; ignored after
    /// `expires_ms` (what ROSE's over-subscription reads).
    NodeLoadEstimate {
        host: String,
        used: Resources,
        expires_ms: i64,
    },
    /// One finished run of job (`user`, `name`), YARN application `app_id`,
    /// that this engine did not watch finish: `size_ms` container-ms. For
    /// history-based size estimators.
    HistorySample {
        app_id: String,
        user: String,
        name: String,
        size_ms: i64,
    },
}
