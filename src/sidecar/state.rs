//! What the sidecar knows: the latest RM data, the latest engine data, the
//! time series, and when each was last fresh. Written by the pollers,
//! read by the HTTP handlers and the metrics collector; every lock is held
//! only for copying, never across an `.await`.

use super::rm::model::{App, ClusterInfo, ClusterMetrics, NodeReport, SchedulerView, ShimCounters};
use super::series::Series;
use crate::control::timing::HistogramSnapshot;
use serde::{Deserialize, Serialize};
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

/// One engine metric as the control channel sends it (`policy::Gauge`).
#[derive(Debug, Clone, Deserialize, Serialize, PartialEq)]
pub struct EngineGauge {
    pub name: String,
    #[serde(default)]
    pub labels: Vec<(String, String)>,
    /// `null` when the engine's value was NaN.
    pub value: Option<f64>,
    #[serde(default)]
    pub help: String,
    #[serde(default)]
    pub kind: String,
}

#[derive(Debug, Default, Clone, Serialize)]
pub struct EngineView {
    pub configured: bool,
    pub instance: Option<u64>,
    pub started_ms: Option<i64>,
    /// `Engine::state_json`, passed through untouched.
    pub state: Option<Value>,
    /// Per-node view (host, capacity, utilization, load estimate).
    pub nodes: Option<Value>,
    pub gauges: Vec<EngineGauge>,
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
    pub engine: EngineView,
    pub series: Series,
    pub pushed_load: BTreeMap<String, PushedLoad>,
}

impl Observed {
    pub fn new(retention_ms: i64, max_points: usize, engine_configured: bool) -> Observed {
        Observed {
            rm: RmView::default(),
            engine: EngineView { configured: engine_configured, ..Default::default() },
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
