//! What the sidecar knows: the latest RM data, the latest engine data, the
//! time series, and when each was last fresh. Written by the pollers,
//! read by the HTTP handlers and the metrics collector; every lock is held
//! only for copying, never across an `.await`.

use super::rm::model::{App, ClusterInfo, ClusterMetrics, NodeReport, SchedulerView, ShimCounters};
use super::series::Series;
use crate::control::timing::HistogramSnapshot;
use crate::engine::view::{EngineView, NodeView};
use crate::policy::Gauge;
use serde::Serialize;
use serde_json::Value;
use std::collections::{BTreeMap, HashSet};

#[derive(Debug, Default, Clone, Serialize)]
pub struct RmView {
    pub active_address: String,
    pub info: Option<ClusterInfo>,
    pub metrics: Option<ClusterMetrics>,
    pub apps: Vec<App>,
    pub nodes: Vec<NodeReport>,
    pub scheduler: Option<SchedulerView>,
    pub shim: Option<ShimCounters>,
    pub last_success_ms: Option<i64>,
    pub last_attempt_ms: Option<i64>,
    pub last_error: Option<String>,
    pub consecutive_failures: u64,
    pub next_retry_ms: Option<i64>,
}

/// What the sidecar last read from the engine over the control channel,
/// in the engine's own types (`engine::view`, `policy::Gauge`).
#[derive(Debug, Default, Clone, Serialize)]
pub struct EngineData {
    pub configured: bool,
    pub instance: Option<u64>,
    pub started_ms: Option<i64>,
    /// The engine's state (`Engine::view`, the JSON of `Engine::state_json`).
    pub state: Option<EngineView>,
    /// Per-node view (host, capacity, utilization, load estimate).
    pub nodes: Option<Vec<NodeView>>,
    /// The engine's and its plugins' metrics (`Engine::gauges`); a value
    /// the engine could not send (not finite) is NaN.
    pub gauges: Vec<Gauge>,
    pub decision_seconds: Option<HistogramSnapshot>,
    /// The control channel's own counters (listener, inbox).
    pub control: Option<Value>,
    pub last_success_ms: Option<i64>,
    pub last_error: Option<String>,
    pub consecutive_failures: u64,
    /// Apps whose history this engine instance was sent.
    #[serde(skip)]
    pub history_sent: HashSet<String>,
}

/// What was last pushed for a node.
#[derive(Debug, Clone, Serialize)]
pub struct PushedLoad {
    pub memory_mb: f64,
    pub vcores: f64,
    pub at_ms: i64,
    pub samples: usize,
}

pub struct Observed {
    pub rm: RmView,
    pub engine: EngineData,
    pub series: Series,
    pub pushed_load: BTreeMap<String, PushedLoad>,
}

impl Observed {
    pub fn new(retention_ms: i64, max_points: usize, engine_configured: bool) -> Observed {
        Observed {
            rm: RmView::default(),
            engine: EngineData { configured: engine_configured, ..Default::default() },
            series: Series::new(retention_ms, max_points),
            pushed_load: BTreeMap::new(),
        }
    }
}

/// Staleness of one source: never fresh, or fresh longer ago than allowed.
pub fn is_stale(last_success_ms: Option<i64>, now_ms: i64, stale_after_ms: u64) -> bool {
    match last_success_ms {
        None => true,
        Some(t) => now_ms - t > stale_after_ms as i64,
    }
}

pub fn age_seconds(last_success_ms: Option<i64>, now_ms: i64) -> Option<f64> {
    last_success_ms.map(|t| (now_ms - t).max(0) as f64 / 1000.0)
}
