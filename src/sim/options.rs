//! Simulator knobs. Defaults follow YARN's defaults where YARN has one.

use serde::Serialize;

#[derive(Debug, Clone, Serialize)]
pub struct SimOptions {
    /// NodeManager heartbeat interval
    /// (`yarn.resourcemanager.nodemanagers.heartbeat-interval-ms`, default 1000).
    pub heartbeat_ms: i64,
    /// Default MapReduce slow-start fraction for stages with parents
    /// (`mapreduce.job.reduce.slowstart.completedmaps`); 1.0 = strict barrier,
    /// the DAG semantics of Carbyne §2. A stage's own `slowstart` wins.
    pub slowstart: f64,
    /// Gang-start every stage of every job (else only jobs marked `gang`).
    pub gang: bool,
    /// Actual use as a fraction of the request for tasks without `used`.
    pub usage_factor: f64,
    /// Window for Jain's fairness index and the utilization timeline (60 s).
    pub window_ms: i64,
    /// DRESS θ (§III-D): a job is `small` when its peak demand is at most
    /// θ × cluster capacity (θ = 10 %), for jobs without a category.
    pub small_theta: f64,
    /// Submit each job to the queue named after its category (`small`,
    /// `large`, ...) when the config has such a queue — how a Capacity-style
    /// setup with per-class queues is compared on generated workloads.
    pub queue_by_category: bool,
    /// Heartbeat every node at every grid time while work remains, as a naive
    /// simulator would (for checking that the skipping loop is equivalent).
    pub naive_heartbeats: bool,
    /// Draw a progress bar on stderr (only when stderr is a terminal).
    pub progress: bool,
    /// The cluster-side model: ApplicationMaster containers and the times a
    /// real cluster adds (launch, AM start-up and exit, task overhead,
    /// heartbeat phases). Default: the calibration measured on this
    /// project's local YARN cluster; `None` = no AMs, tasks start the
    /// instant they are allocated (the model before calibration).
    #[serde(skip)]
    pub cluster_model: Option<super::calibration::Calibration>,
    /// Seed of the draws from the cluster model's distributions.
    pub seed: u64,
    /// Keep the engine's activity log (every container's allocation,
    /// launch and end; every app's submission, AM ask and first task ask),
    /// the record a harness run keeps as `activity.json`, so a simulated
    /// timeline can be set beside a real one. Off: it holds one record per
    /// container, which a 650 000-task trace does not need.
    pub activity_log: bool,
    /// Scheduling rounds between heartbeats every this many ms, as the
    /// shim's `yarn.scheduler.shepherd.async-scheduling.interval-ms` asks
    /// the engine for them (`Engine::schedule_round`); 0 = off, heartbeats
    /// only (YARN's default, and the shim's).
    pub round_ms: i64,
    /// Nodes a round visits at most (the shim's
    /// `async-scheduling.max-nodes`, default 100; 0 = all).
    pub round_max_nodes: usize,
    /// The RM learns that a task's container ended at its node's next
    /// periodic heartbeat, instead of the instant the task ends. YARN's
    /// NodeManagers do not wait: they heartbeat out of band when a
    /// container ends (`oob_heartbeats` models that). The AM still learns at once (a MapReduce
    /// task reports its end to its AM directly). Off by default: the
    /// results measured before it existed stay comparable. With heartbeats
    /// only, a node's room is used at its own heartbeat either way; what
    /// moves is what other nodes' passes see meanwhile (shares, learned
    /// durations). Rounds need it: without it a round places on room YARN
    /// does not know of yet.
    pub ends_at_heartbeat: bool,
    /// A node heartbeats out of band when a container on it ends, as YARN's
    /// NodeManagers do (Hadoop 3.4's `ContainerImpl` calls
    /// `NodeStatusUpdater.sendOutofBandHeartBeat()` when a container is
    /// done): the RM learns of the end at once and runs the node's pass
    /// then, without waiting for its periodic heartbeat. Off by default: the
    /// results measured before it existed stay comparable. It reports every
    /// end at once, so `ends_at_heartbeat` changes nothing with it.
    pub oob_heartbeats: bool,
    /// Heartbeats only report and run no pass; only rounds allocate (the
    /// shim's `async-scheduling.heartbeats-allocate = false`). Needs
    /// `round_ms` > 0.
    pub report_only_heartbeats: bool,
    /// The mechanics of Hadoop's Scheduler Load Simulator instead of a real
    /// cluster's (`--cluster-model sls`, [`super::sls`]): AMs as clocked
    /// processes stepping every `am_heartbeat_ms`, NodeManagers at seeded
    /// ms phases, ends reported at heartbeats, tasks running exactly their
    /// trace durations. Replaces `cluster_model` (SLS's AM container
    /// and no launch or overhead times). `None`: the models above.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sls: Option<super::sls::SlsModel>,
}

impl Default for SimOptions {
    fn default() -> Self {
        SimOptions {
            heartbeat_ms: 1000,
            slowstart: 1.0,
            gang: false,
            usage_factor: 1.0,
            window_ms: 60_000,
            small_theta: crate::workload::trace::DEFAULT_SMALL_THETA,
            queue_by_category: false,
            naive_heartbeats: false,
            progress: false,
            cluster_model: Some(super::calibration::Calibration::measured()),
            seed: 1,
            activity_log: false,
            round_ms: 0,
            round_max_nodes: 100,
            ends_at_heartbeat: false,
            oob_heartbeats: false,
            report_only_heartbeats: false,
            sls: None,
        }
    }
}
