//! Scheduling policies as small hooks at named points of one scheduling pass
//! (in the manner of the Kubernetes scheduling framework), so policies compose
//! instead of each forking the loop in `engine::Engine::schedule_node`:
//!
//! 1. `before_pass`  — refresh periodic state (e.g. a reserve ratio).
//! 2. `queue_order`  — which queue is served next (optional level).
//! 3. `app_order`    — which application inside it is served next.
//! 4. `filter`       — may this ask be placed on this node now?
//! 5. `on_allocated` — reserve: the engine committed a container.
//!
//! plus observers (`on_event`, `on_container_finished`) that see every event,
//! `state_json` for the operator's JSON view and `gauges` for metrics.

pub mod dress;
pub mod attained;
pub mod capacity;
pub mod drf;
pub mod fifo;
pub mod history;
pub mod las;
pub mod oracle;
pub mod sjf;
pub mod tetris;

use crate::config::{Config, ConfigError};
use crate::engine::Event;
use crate::model::{App, Ask, ClusterState, Container, Node, Queue};
use std::cmp::Ordering;

/// A sort key: smaller is served first. Two floats and an integer tie-break
/// cover every policy so far (share, secondary share, arrival order).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SortKey {
    pub primary: f64,
    pub secondary: f64,
    pub tie_break: i64,
}

impl SortKey {
    pub fn new(primary: f64, secondary: f64, tie_break: i64) -> Self {
        SortKey { primary, secondary, tie_break }
    }
}

impl Eq for SortKey {}

impl PartialOrd for SortKey {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for SortKey {
    fn cmp(&self, other: &Self) -> Ordering {
        self.primary
            .total_cmp(&other.primary)
            .then(self.secondary.total_cmp(&other.secondary))
            .then(self.tie_break.cmp(&other.tie_break))
    }
}

pub trait Policy: Send {
    fn name(&self) -> &'static str;

    /// Called at the start of every scheduling pass.
    fn before_pass(&mut self, _state: &ClusterState, _now_ms: i64) {}

    /// True when `before_pass` keeps time-driven state (e.g. a reserve ratio
    /// adjusted every interval), so a driver must not skip heartbeats that
    /// would allocate nothing. The simulator then heartbeats every node at
    /// every interval instead of only when something changed.
    fn time_driven(&self) -> bool {
        false
    }

    /// Called after `before_pass` with the node this pass serves, for
    /// policies whose order depends on the node (e.g. packing).
    fn before_node(&mut self, _state: &ClusterState, _node: crate::model::NodeId) {}

    /// Order of queues. `None` means "no queue level": all applications
    /// compete in one order (FIFO across the whole cluster).
    fn queue_order(&self, _state: &ClusterState, _queue: &Queue) -> Option<SortKey> {
        None
    }

    /// Order of applications; re-evaluated after every allocation to the app.
    fn app_order(&self, state: &ClusterState, app: &App) -> SortKey;

    /// May `ask` of `app` be placed on `node` now? Capacity fit, locality and
    /// queue limits are checked by the engine before this is called.
    fn filter(&self, _state: &ClusterState, _app: &App, _ask: &Ask, _node: &Node) -> bool {
        true
    }

    /// When the application served first cannot be placed, stop the pass
    /// instead of letting later applications use the node (strict order).
    fn head_of_line_blocking(&self) -> bool {
        false
    }

    fn on_allocated(&mut self, _state: &ClusterState, _container: &Container) {}

    /// Every event, after the engine applied it to `state`.
    fn on_event(&mut self, _state: &ClusterState, _event: &Event) {}

    /// A container finished; `container` still holds its timestamps.
    fn on_container_finished(&mut self, _state: &ClusterState, _container: &Container, _at_ms: i64) {}

    /// The policy's estimate of `app`'s total size (container-milliseconds),
    /// for policies that estimate sizes; used to report estimation error.
    fn estimate_ms(&self, _state: &ClusterState, _app: crate::model::AppId) -> Option<f64> {
        None
    }

    /// The policy's own state, for the JSON view and metrics.
    fn state_json(&self, _state: &ClusterState) -> serde_json::Value {
        serde_json::json!({})
    }

    /// The policy's current figures as metrics (the shim publishes them
    /// through Hadoop metrics2, i.e. RM `/jmx` and `/prom`). Names carry no
    /// `shepherd_` prefix; the shim adds it.
    fn gauges(&self, _state: &ClusterState) -> Vec<Gauge> {
        Vec::new()
    }
}

/// Whether a metric only goes up (Prometheus `counter`) or moves both ways.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum GaugeKind {
    Gauge,
    Counter,
}

/// One metric sample in Prometheus terms: a snake_case `name` ending in its
/// unit (`_ratio`, `_memory_mb`, `_vcores`, `_total`, ...), `labels` that
/// tell series of one name apart (e.g. `pool="small"`), the value and a
/// one-line help text.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Gauge {
    pub name: String,
    pub labels: Vec<(String, String)>,
    pub value: f64,
    pub help: String,
    pub kind: GaugeKind,
}

impl Gauge {
    pub fn new(name: impl Into<String>, value: f64, help: impl Into<String>) -> Gauge {
        Gauge { name: name.into(), labels: Vec::new(), value, help: help.into(), kind: GaugeKind::Gauge }
    }

    pub fn counter(name: impl Into<String>, value: f64, help: impl Into<String>) -> Gauge {
        Gauge { kind: GaugeKind::Counter, ..Gauge::new(name, value, help) }
    }

    pub fn label(mut self, key: impl Into<String>, value: impl Into<String>) -> Gauge {
        self.labels.push((key.into(), value.into()));
        self
    }

    /// The value of label `key`, if set.
    pub fn label_value(&self, key: &str) -> Option<&str> {
        self.labels.iter().find(|(k, _)| k == key).map(|(_, v)| v.as_str())
    }
}

/// A resource type's name as a metric-name part: `memory-mb` → `memory_mb`,
/// `yarn.io/gpu` → `yarn_io_gpu` (Prometheus names allow `[a-zA-Z0-9_]`).
pub fn metric_part(resource_name: &str) -> String {
    let mut out = String::with_capacity(resource_name.len());
    for c in resource_name.chars() {
        if c.is_ascii_alphanumeric() {
            out.push(c.to_ascii_lowercase());
        } else if !out.ends_with('_') {
            out.push('_');
        }
    }
    out.trim_matches('_').to_string()
}

/// The value of a `key=value` application tag (how the simulator passes
/// oracle sizes, e.g. `shepherd.oracle.work_ms=12345`, the YARN-native way).
pub fn tag_value(app: &App, key: &str) -> Option<f64> {
    app.tags.iter().find_map(|t| t.strip_prefix(key)?.strip_prefix('=')?.trim().parse().ok())
}

/// Oracle size tag the simulator sets: the job's total task time in ms.
pub const ORACLE_WORK_TAG: &str = "shepherd.oracle.work_ms";

/// Build the policy the config names.
pub fn build(config: &Config) -> Result<Box<dyn Policy>, ConfigError> {
    match config.scheduler.policy.as_str() {
        "fifo" => Ok(Box::new(fifo::Fifo::new(&config.fifo))),
        "drf" => Ok(Box::new(drf::Drf::default())),
        "dress" => Ok(Box::new(dress::Dress::new(&config.dress))),
        "capacity" => Ok(Box::new(capacity::Capacity)),
        "sjf" => Ok(Box::new(sjf::Sjf)),
        "tetris" => Ok(Box::new(tetris::Tetris::default())),
        "las" => Ok(Box::new(las::Las::default())),
        "3sigma" => Ok(Box::new(history::History::new(&config.history, history::Mode::Distribution))),
        "3sigma-point" => Ok(Box::new(history::History::new(&config.history, history::Mode::Point))),
        "oracle" => Ok(Box::new(oracle::Oracle::default())),
        other => Err(ConfigError {
            key: "scheduler.policy".into(),
            value: other.into(),
            reason: format!("expected one of {}", crate::config::POLICIES.join(", ")),
        }),
    }
}
