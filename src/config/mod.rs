//! Shepherd's own configuration file (TOML), parsed and validated once when the
//! engine is created. Every error names the key and the offending value so an
//! operator sees it in the RM's start-up failure.
//!
//! The documented default file is `hadoop-conf/shepherd.toml`.

pub mod apps;
pub mod carbyne;
pub mod control;
pub mod pipeline;
pub mod plugins;
pub mod preemption;
pub mod rose;

pub use apps::AppsConfig;
pub use carbyne::CarbyneConfig;
pub use control::ControlConfig;
pub use pipeline::PipelineSpec;
pub use preemption::PreemptionConfig;
pub use rose::RoseConfig;
pub mod summary;

use serde::Deserialize;
use std::collections::BTreeMap;
use std::fmt;

#[derive(Debug, Clone, PartialEq)]
pub struct ConfigError {
    pub key: String,
    pub value: String,
    pub reason: String,
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.key.is_empty() {
            write!(f, "invalid Shepherd config: {}", self.reason)
        } else {
            write!(f, "invalid Shepherd config: key `{}` has value `{}`: {}", self.key, self.value, self.reason)
        }
    }
}

impl std::error::Error for ConfigError {}

pub(crate) fn bad(key: &str, value: impl fmt::Display, reason: impl Into<String>) -> ConfigError {
    ConfigError { key: key.to_string(), value: value.to_string(), reason: reason.into() }
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Config {
    pub scheduler: SchedulerConfig,
    /// What application types are (`[apps]`, [`AppsConfig`]), read by
    /// every policy that learns from containers.
    pub apps: AppsConfig,
    pub fifo: FifoConfig,
    pub dress: DressConfig,
    pub history: HistoryConfig,
    pub carbyne: CarbyneConfig,
    /// ROSE's over-subscription (`[rose]`, `crate::config::rose`).
    pub rose: RoseConfig,
    pub slearn: SLearnConfig,
    pub gs: GsConfig,
    /// The operator's own pipelines, `[pipeline.NAME]`.
    #[serde(rename = "pipeline")]
    pub pipelines: BTreeMap<String, PipelineSpec>,
    /// The sidecar's control channel (`[control]`, [`ControlConfig`]).
    pub control: ControlConfig,
    /// Queue-guarantee preemption (`[preemption]`, [`PreemptionConfig`]);
    /// runs only for queues with `preemption = true`.
    pub preemption: PreemptionConfig,
    #[serde(rename = "queue")]
    pub queues: Vec<QueueConfig>,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SchedulerConfig {
    /// The pipeline of every queue that names none: a built-in policy
    /// (`pipeline::BUILT_INS`) or a `[pipeline.NAME]`.
    pub policy: String,
    /// How queues share the cluster: `flat` (no queue level, one order for
    /// all apps), `drf` (lowest weighted dominant share first), `capacity`
    /// (lowest used ÷ guaranteed first), or `auto`: what `policy` implies.
    pub queue_order: String,
    /// Deliberate failure for testing the shim's safe fallback:
    /// `none`, `panic-on-schedule` or `error-on-schedule`.
    pub fault_injection: String,
    /// Test-only, with `fault_injection`: only every Nth scheduling call of
    /// an engine fails (1 = every call), so a run sees faults under load
    /// with working stretches between them (`crate::engine::faults`).
    pub fault_every_n_heartbeats: u32,
    /// Most containers the engine hands out on one node heartbeat (0 = no
    /// limit), like the CapacityScheduler's multiple-assignments cap.
    pub max_assignments_per_heartbeat: u32,
    /// After YARN refuses a placement (`AllocationRejected`: the app
    /// blacklisted the node, withdrew the ask, ...), the app is not offered
    /// that node again for this long, so one impossible placement cannot take
    /// a node's every heartbeat from everyone else. ms; 0 = retry at once.
    pub refused_placement_backoff_ms: i64,
    /// Proposers in a scheduling round between heartbeats (the RM's
    /// asynchronous scheduling): each runs the pass on its own share of the
    /// nodes from its own copy of the state, on its own thread, and the
    /// engine validates and commits their proposals (`engine::propose`).
    /// 1 = the serial round.
    pub round_proposers: u32,
    /// A proposer pays for its thread and its copy of the state only when
    /// it has this much work: the nodes it visits times the apps with
    /// outstanding asks (the pass orders every such app on every node). A
    /// round with less uses fewer proposers, and below two the serial
    /// round. 0 = always `round_proposers`.
    pub round_min_work_per_proposer: u64,
    /// YARN-style node reservations (`engine::reservation`): when the next
    /// app in the main phase's order has an ask that fits a node but not
    /// what is free on it, the node is reserved for that ask and nothing
    /// else starts on it until the ask fits, as the CapacityScheduler and
    /// the FairScheduler do. The most nodes one app may reserve, as a
    /// fraction of the cluster's nodes (rounded up; the FairScheduler's
    /// `yarn.scheduler.fair.reservable-nodes`, 0.05 there); never more than
    /// the containers it still asks for. 0 = no reservations (the
    /// default): Shepherd's policies do not reserve; the key is for the
    /// simulator's stand-ins for the YARN schedulers (docs/results/sls.md).
    pub reservable_nodes: f64,
}

/// Default of `scheduler.round_min_work_per_proposer` (node × app visits),
/// from `shepherd bench-round` on small rounds: see docs/results/megha.md.
pub const DEFAULT_ROUND_MIN_WORK: u64 = 20_000;

/// Upper bound of `scheduler.round_proposers`: each proposer is a thread
/// with a copy of the cluster state for the length of a round.
pub const MAX_ROUND_PROPOSERS: u32 = 64;

impl Default for SchedulerConfig {
    fn default() -> Self {
        SchedulerConfig {
            policy: "composed".into(),
            queue_order: "auto".into(),
            fault_injection: "none".into(),
            fault_every_n_heartbeats: 1,
            max_assignments_per_heartbeat: 0,
            refused_placement_backoff_ms: 10_000,
            round_proposers: 1,
            round_min_work_per_proposer: DEFAULT_ROUND_MIN_WORK,
            reservable_nodes: 0.0,
        }
    }
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct FifoConfig {
    /// Serve applications strictly in arrival order: when the oldest app with
    /// pending asks cannot be placed, nothing behind it is placed either
    /// (head-of-line blocking, as in the DRESS paper's FIFO baseline). When
    /// false, later apps may use capacity the head app cannot, as YARN's
    /// FifoScheduler does.
    pub strict_order: bool,
}

/// DRESS (Mao et al., "DRESS: Dynamic RESource-reservation Scheme for
/// Congested Data-intensive Computing Platforms"). Defaults are the paper's
/// (§V-A1) where it gives one; see `docs/policies/dress.md` for every knob.
#[derive(Debug, Clone, PartialEq, Deserialize, serde::Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct DressConfig {
    /// θ, the job indicator (§IV-C): an app is small-demand when its request
    /// is at most θ·A_c. Paper: 10 %. Must be in (0, 1].
    pub theta: f64,
    /// What A_c means in the classification rule: `total` = the cluster's
    /// capacity (default; matches §V's fixed "less than 10 containers"
    /// cut-off) or `available` = currently unallocated capacity (the literal
    /// §IV-C text).
    pub classify_against: String,
    /// δ₀, the initial reserve ratio for small-demand apps. Paper: 10 %.
    pub delta_initial: f64,
    /// Lower bound on δ after every Algorithm 3 step. Default 0: the paper
    /// only says δ ∈ (0, 1); a larger value keeps a standing reserve for
    /// small jobs that have not arrived yet (an addition, off by default).
    pub delta_min: f64,
    /// Upper bound on δ. Default 1 (the paper's range); below 1 keeps a
    /// standing share for large-demand apps.
    pub delta_max: f64,
    /// Scheduling interval: Algorithm 3 runs (and F(t+1) is evaluated one
    /// interval ahead) at most once per interval, in ms. Default 1000 ms,
    /// YARN's NodeManager heartbeat interval.
    pub interval_ms: i64,
    /// t_s: more than this many task starts within the phase window start a
    /// phase (Algorithm 1 line 11). A task count; paper: 5.
    pub t_s: u32,
    /// t_e: more than this many task completions within the phase window
    /// start a phase's release (Algorithm 2 line 8). A task count; paper: 5.
    pub t_e: u32,
    /// pw, the phase window of Algorithms 1 and 2, in ms. Paper: 10 s.
    pub phase_window_ms: i64,
    /// Let a pool allocate beyond its share (into the other pool's unused
    /// share) while the other pool has no pending demand.
    pub borrow_idle_pool: bool,
    /// Beyond the paper (default off): the reserve is a floor for
    /// small-demand apps, not a cap — a small app may take any capacity
    /// the large pool leaves free, at once, while large apps stay within
    /// (1 − δ)·Tot_R unless no small app has pending demand. Without it a
    /// small app that finds its pool full waits for Algorithm 3 to grow δ.
    pub small_borrows_free: bool,
    /// Which event starts a task for phase detection: `launched` (the
    /// container reached RUNNING, as in the paper) or `allocated`.
    pub start_on: String,
    /// Leave each app's first container (YARN's ApplicationMaster) out of
    /// phase detection; it still counts for pool usage.
    pub skip_am_container: bool,
    /// Count the ApplicationMaster container in an app's request for the
    /// small/large rule. Default false, the paper's: a job's request is its
    /// task containers (a one-map job on a 16-container cluster is 1/16,
    /// not 2/16, and stays small at θ = 10 %).
    pub am_in_request: bool,
}

impl Default for DressConfig {
    fn default() -> Self {
        DressConfig {
            theta: 0.10,
            classify_against: "total".into(),
            delta_initial: 0.10,
            delta_min: 0.0,
            delta_max: 1.0,
            interval_ms: 1000,
            t_s: 5,
            t_e: 5,
            phase_window_ms: 10_000,
            borrow_idle_pool: true,
            small_borrows_free: false,
            start_on: "launched".into(),
            skip_am_container: true,
            am_in_request: false,
        }
    }
}

impl DressConfig {
    pub fn validate(&self) -> Result<(), ConfigError> {
        if !(self.theta > 0.0 && self.theta <= 1.0) {
            return Err(bad("dress.theta", self.theta, "must be in (0, 1]"));
        }
        if !["total", "available"].contains(&self.classify_against.as_str()) {
            return Err(bad("dress.classify_against", &self.classify_against, "expected one of total, available"));
        }
        if !(0.0..=1.0).contains(&self.delta_min) {
            return Err(bad("dress.delta_min", self.delta_min, "must be within [0, 1]"));
        }
        if !(0.0..=1.0).contains(&self.delta_max) || self.delta_max < self.delta_min {
            return Err(bad("dress.delta_max", self.delta_max, "must be within [0, 1] and at least `delta_min`"));
        }
        if !(self.delta_min..=self.delta_max).contains(&self.delta_initial) {
            return Err(bad(
                "dress.delta_initial",
                self.delta_initial,
                format!("must be within [delta_min, delta_max] = [{}, {}]", self.delta_min, self.delta_max),
            ));
        }
        if self.interval_ms <= 0 {
            return Err(bad("dress.interval_ms", self.interval_ms, "must be a positive number of ms"));
        }
        if self.phase_window_ms <= 0 {
            return Err(bad("dress.phase_window_ms", self.phase_window_ms, "must be a positive number of ms"));
        }
        if !["launched", "allocated"].contains(&self.start_on.as_str()) {
            return Err(bad("dress.start_on", &self.start_on, "expected one of launched, allocated"));
        }
        Ok(())
    }
}

/// History-based size estimators in the style of 3Sigma (policies `3sigma`
/// and `3sigma-point`), the baselines of SLearn §5.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct HistoryConfig {
    /// Past runs kept per job key (user + name); oldest dropped first.
    /// SLearn §4.2 tunes 3Sigma's history window; a bounded sample plays that role.
    pub max_samples: usize,
    /// Quantile of the history the point-estimate variant uses (0.5 = median).
    pub point_quantile: f64,
}

impl Default for HistoryConfig {
    fn default() -> Self {
        HistoryConfig { max_samples: 100, point_quantile: 0.5 }
    }
}

/// SLearn (Jajoo et al., "A Case for Task Sampling based Learning for
/// Cluster Job Scheduling", NSDI'22), the `slearn` estimator: job sizes
/// learned from pilot tasks. Defaults are the paper's (§5.2.1).
#[derive(Debug, Clone, PartialEq, Deserialize, serde::Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct SLearnConfig {
    /// thinLimit (§5.1.2): an app whose first stage asks for fewer tasks
    /// is thin: no sampling, top GS queue. Paper: 3.
    pub thin_limit: u32,
    /// Sampling ratio r: pilots = ⌈r · first-stage width⌉. 0 = the adaptive
    /// algorithm of Fig. 4 (1–5 %); (0, 1] = that fixed ratio (Table 6).
    pub fixed_ratio: f64,
    /// T of Fig. 4: finished jobs per ratio the running score averages,
    /// and the length of each start-up phase (3 %, 2 %, 4 %). Paper: 100.
    pub window: usize,
    /// A pilot that has not finished this long after the first pilot was
    /// allocated means the app's containers are not tasks (Spark
    /// executors, services) though its type is not in `[apps]
    /// executor_app_types`: sampling is abandoned and the app is placed by
    /// attained service. ms; 0 = never.
    pub pilot_timeout_ms: i64,
}

impl Default for SLearnConfig {
    fn default() -> Self {
        SLearnConfig { thin_limit: 3, fixed_ratio: 0.0, window: 100, pilot_timeout_ms: 1_800_000 }
    }
}

impl SLearnConfig {
    pub fn validate(&self) -> Result<(), ConfigError> {
        if self.thin_limit == 0 {
            return Err(bad("slearn.thin_limit", self.thin_limit, "must be at least 1 (1 = no app is thin)"));
        }
        if !(0.0..=1.0).contains(&self.fixed_ratio) {
            return Err(bad("slearn.fixed_ratio", self.fixed_ratio, "must be 0 (adaptive) or within (0, 1]"));
        }
        if self.window == 0 {
            return Err(bad("slearn.window", self.window, "must be at least 1"));
        }
        if self.pilot_timeout_ms < 0 {
            return Err(bad("slearn.pilot_timeout_ms", self.pilot_timeout_ms, "must be at least 0 (0 = never)"));
        }
        Ok(())
    }
}

/// GS, SLearn's generic scheduler (§5.1.1), the `gs` app order: N
/// priority queues by job size with exponentially growing thresholds,
/// FIFO inside a queue, weighted sharing across queues. Defaults §5.2.1.
#[derive(Debug, Clone, PartialEq, Deserialize, serde::Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct GsConfig {
    /// N, the number of priority queues. Paper: 10.
    pub queues: u32,
    /// Q₀ʰⁱ, the top queue's upper threshold (container-ms). Paper: 10⁶.
    pub first_threshold_ms: f64,
    /// E: Q_{q+1}ʰⁱ = E · Q_qʰⁱ. Paper: 10.
    pub growth: f64,
    /// Each queue's sharing weight is the one above it ÷ this. Paper: 10.
    pub weight_ratio: f64,
}

impl Default for GsConfig {
    fn default() -> Self {
        GsConfig { queues: 10, first_threshold_ms: 1e6, growth: 10.0, weight_ratio: 10.0 }
    }
}

impl GsConfig {
    pub fn validate(&self) -> Result<(), ConfigError> {
        if self.queues < 2 {
            return Err(bad("gs.queues", self.queues, "must be at least 2 (a top queue and SLearn's sampling queue)"));
        }
        if !(self.first_threshold_ms > 0.0 && self.first_threshold_ms.is_finite()) {
            return Err(bad("gs.first_threshold_ms", self.first_threshold_ms, "must be a positive number of container-ms"));
        }
        if !(self.growth > 1.0 && self.growth.is_finite()) {
            return Err(bad("gs.growth", self.growth, "must be greater than 1"));
        }
        if !(self.weight_ratio >= 1.0 && self.weight_ratio.is_finite()) {
            return Err(bad("gs.weight_ratio", self.weight_ratio, "must be at least 1 (1 = equal weights)"));
        }
        Ok(())
    }
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct QueueConfig {
    /// Leaf queue name under `root` (e.g. `default`, `analytics`).
    pub name: String,
    /// The queue's pipeline (a built-in policy or a `[pipeline.NAME]`);
    /// empty = `scheduler.policy`. `yarn rmadmin -refreshQueues` switches it
    /// at runtime.
    pub policy: String,
    /// Fair-share weight across queues (DRF).
    pub weight: f64,
    /// Guaranteed share of the cluster, 0..=1.
    pub capacity: f64,
    /// Hard cap on the queue's share of the cluster, 0..=1.
    pub max_capacity: f64,
    /// Share of the queue's maximum capacity its ApplicationMasters may
    /// hold together, (0, 1]; an app whose AM would exceed it waits
    /// (ACCEPTED), but a queue always runs at least one. YARN's
    /// CapacityScheduler defaults to 0.1, the FairScheduler to 0.5.
    pub max_am_share: f64,
    /// YARN ACL string for submitting (`*` = everyone, `user1,user2 group1`).
    pub submit_acl: String,
    /// YARN ACL string for administering (kill, move).
    pub admin_acl: String,
    /// Take the guaranteed share back by preemption: while this queue is
    /// below `capacity` with demand waiting, containers of queues above
    /// theirs are marked and then killed (`[preemption]`). Off by default.
    pub preemption: bool,
}

impl Default for QueueConfig {
    fn default() -> Self {
        QueueConfig {
            name: "default".into(),
            policy: String::new(),
            weight: 1.0,
            capacity: 1.0,
            max_capacity: 1.0,
            max_am_share: 0.5,
            submit_acl: "*".into(),
            admin_acl: "*".into(),
            preemption: false,
        }
    }
}

impl Default for Config {
    fn default() -> Self {
        Config {
            scheduler: SchedulerConfig::default(),
            apps: AppsConfig::default(),
            fifo: FifoConfig::default(),
            dress: DressConfig::default(),
            history: HistoryConfig::default(),
            carbyne: CarbyneConfig::default(),
            rose: RoseConfig::default(),
            slearn: SLearnConfig::default(),
            gs: GsConfig::default(),
            pipelines: BTreeMap::new(),
            control: Default::default(),
            preemption: PreemptionConfig::default(),
            queues: vec![QueueConfig::default()],
        }
    }
}

impl Config {
    /// Parse and validate TOML text. Empty text gives the defaults.
    pub fn parse(text: &str) -> Result<Config, ConfigError> {
        // A key that moved is named with where it went, not as TOML's
        // "unknown field"; text that is not TOML gets TOML's error below.
        if let Ok(doc) = text.parse::<toml::Table>() {
            apps::reject_moved_keys(&doc)?;
        }
        let cfg: Config = toml::from_str(text).map_err(|e| ConfigError {
            key: String::new(),
            value: String::new(),
            reason: e.to_string().trim().replace('\n', " "),
        })?;
        cfg.validate()?;
        Ok(cfg)
    }

    pub fn validate(&self) -> Result<(), ConfigError> {
        let s = &self.scheduler;
        if !["none", "panic-on-schedule", "error-on-schedule"].contains(&s.fault_injection.as_str()) {
            return Err(bad("scheduler.fault_injection", &s.fault_injection, "expected one of none, panic-on-schedule, error-on-schedule"));
        }
        if s.fault_every_n_heartbeats == 0 {
            return Err(bad("scheduler.fault_every_n_heartbeats", 0, "must be at least 1 (1 = every scheduling call)"));
        }
        if s.refused_placement_backoff_ms < 0 {
            return Err(bad("scheduler.refused_placement_backoff_ms", s.refused_placement_backoff_ms, "must be at least 0"));
        }
        if !(1..=MAX_ROUND_PROPOSERS).contains(&s.round_proposers) {
            return Err(bad(
                "scheduler.round_proposers",
                s.round_proposers,
                format!("must be between 1 (the serial round) and {MAX_ROUND_PROPOSERS} (one thread each)"),
            ));
        }
        if !(0.0..=1.0).contains(&s.reservable_nodes) {
            return Err(bad(
                "scheduler.reservable_nodes",
                s.reservable_nodes,
                "must be within 0..=1 (a fraction of the nodes; 0 = no reservations)",
            ));
        }
        self.apps.validate()?;
        self.dress.validate()?;
        self.carbyne.validate()?;
        self.rose.validate()?;
        self.slearn.validate()?;
        self.gs.validate()?;
        self.control.validate()?;
        self.preemption.validate()?;
        if self.history.max_samples == 0 {
            return Err(bad("history.max_samples", self.history.max_samples, "must be at least 1"));
        }
        if !(0.0..=1.0).contains(&self.history.point_quantile) {
            return Err(bad("history.point_quantile", self.history.point_quantile, "must be within 0..=1"));
        }
        if self.queues.is_empty() {
            return Err(bad("queue", "[]", "at least one [[queue]] is required"));
        }
        let mut seen = std::collections::HashSet::new();
        for (i, q) in self.queues.iter().enumerate() {
            let key = |f: &str| format!("queue[{}].{}", i, f);
            if q.name.is_empty() || q.name.contains('.') || q.name.contains(char::is_whitespace) {
                return Err(bad(&key("name"), &q.name, "a leaf name without dots or spaces is required"));
            }
            if !seen.insert(q.name.clone()) {
                return Err(bad(&key("name"), &q.name, "duplicate queue name"));
            }
            if !(q.weight > 0.0 && q.weight.is_finite()) {
                return Err(bad(&key("weight"), q.weight, "must be a positive number"));
            }
            if !(0.0..=1.0).contains(&q.capacity) {
                return Err(bad(&key("capacity"), q.capacity, "must be within 0..=1"));
            }
            if !(q.max_am_share > 0.0 && q.max_am_share <= 1.0) {
                return Err(bad(&key("max_am_share"), q.max_am_share, "must be within (0, 1]"));
            }
            if !(0.0..=1.0).contains(&q.max_capacity) || q.max_capacity < q.capacity || q.max_capacity == 0.0 {
                return Err(bad(&key("max_capacity"), q.max_capacity, "must be within (0, 1] and at least `capacity`"));
            }
        }
        let total: f64 = self.queues.iter().map(|q| q.capacity).sum();
        if total > 1.0 + 1e-9 {
            return Err(bad("queue[*].capacity", format!("{:.3}", total), "capacities must sum to at most 1"));
        }
        self.validate_pipelines()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_text_gives_defaults() {
        let c = Config::parse("").unwrap();
        assert_eq!(c.scheduler.policy, "composed");
        assert_eq!(c.queue_order(), "drf");
        assert_eq!(c.queues.len(), 1);
    }

    #[test]
    fn shipped_default_config_shows_the_defaults() {
        let shipped = Config::parse(include_str!("../../hadoop-conf/shepherd.toml")).unwrap();
        assert_eq!(shipped, Config::default());
    }

    #[test]
    fn bad_policy_names_key_and_value() {
        let e = Config::parse("[scheduler]\npolicy = \"lottery\"\n").unwrap_err();
        let msg = e.to_string();
        assert!(msg.contains("scheduler.policy"), "{msg}");
        assert!(msg.contains("lottery"), "{msg}");
    }

    #[test]
    fn unknown_key_is_named() {
        let e = Config::parse("[scheduler]\npolicyy = \"fifo\"\n").unwrap_err();
        assert!(e.to_string().contains("policyy"), "{e}");
    }

    #[test]
    fn dress_defaults_are_the_papers() {
        let c = Config::parse("[scheduler]\npolicy = \"dress\"\n").unwrap();
        let d = &c.dress;
        assert_eq!((d.theta, d.delta_initial, d.t_s, d.t_e, d.phase_window_ms), (0.10, 0.10, 5, 5, 10_000));
    }

    #[test]
    fn dress_values_are_checked_by_key() {
        let e = Config::parse("[dress]\ntheta = 0.0\n").unwrap_err().to_string();
        assert!(e.contains("dress.theta") && e.contains("`0`"), "{e}");
        let e = Config::parse("[dress]\ntheta = 1.5\n").unwrap_err().to_string();
        assert!(e.contains("dress.theta") && e.contains("1.5") && e.contains("(0, 1]"), "{e}");
        let e = Config::parse("[dress]\ndelta_min = 0.3\ndelta_max = 0.2\n").unwrap_err().to_string();
        assert!(e.contains("dress.delta_max"), "{e}");
        let e = Config::parse("[dress]\ndelta_initial = 0.95\ndelta_max = 0.9\n").unwrap_err().to_string();
        assert!(e.contains("dress.delta_initial") && e.contains("0.95"), "{e}");
        let e = Config::parse("[dress]\nphase_window_ms = 0\n").unwrap_err().to_string();
        assert!(e.contains("dress.phase_window_ms"), "{e}");
        let e = Config::parse("[dress]\nclassify_against = \"queue\"\n").unwrap_err().to_string();
        assert!(e.contains("dress.classify_against") && e.contains("queue"), "{e}");
        let e = Config::parse("[dress]\ntheeta = 0.2\n").unwrap_err().to_string();
        assert!(e.contains("theeta"), "{e}");
    }

    #[test]
    fn queue_capacity_checked() {
        let e = Config::parse("[[queue]]\nname=\"a\"\ncapacity=0.7\n[[queue]]\nname=\"b\"\ncapacity=0.7\n").unwrap_err();
        assert!(e.to_string().contains("capacities must sum"), "{e}");
    }
}
