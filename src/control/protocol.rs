//! The control channel's wire format: one JSON object per line each way.
//!
//! Request: `{"secret": "...", "op": "...", ...}`; every request carries the
//! secret (no session state to get wrong). Ops:
//!
//! | op       | answer (besides `"ok": true`, `"instance"`, `"started_ms"`) |
//! |----------|--------|
//! | `hello`  | `version`, `policy` |
//! | `state`  | [`StateAnswer`]: `state`, the engine's state ([`EngineView`], the same JSON as `Engine::state_json`), `nodes`: per-node host, capacity, allocated, utilization and load estimate ([`NodeView`]); and `control`: counters |
//! | `gauges` | [`GaugesAnswer`]: `gauges`, the engine's and plugins' metrics (`Engine::gauges`), `decision_seconds`: histogram of engine time per heartbeat crossing; and `control`: counters |
//! | `push`   | `accepted`, `rejected: [{index, reason}]`; the request has `inputs: [SlowInput]` |
//!
//! Errors: `{"ok": false, "error": "..."}`; a wrong secret also closes the
//! connection. `instance` changes whenever the RM builds a new engine
//! (restart, `-refreshQueues`, rebuild after a failure).

use super::timing::HistogramSnapshot;
use crate::engine::view::{EngineView, NodeView};
use crate::policy::Gauge;
use serde::{Deserialize, Serialize};

/// Longest request line the listener reads (a push of many inputs).
pub const MAX_REQUEST_BYTES: usize = 8 << 20;

#[derive(Debug, Clone, Deserialize, Serialize)]
pub struct Request {
    #[serde(default)]
    pub secret: String,
    pub op: String,
    #[serde(default)]
    pub inputs: Vec<serde_json::Value>,
}

/// One slow-path input the sidecar pushes. Nodes are named by host (the
/// engine's `Node.host`, the RM's `nodeHostName`), apps by YARN application id.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum SlowInput {
    /// Expected actual use of one node: memory MB and vcores (fractional),
    /// valid for `ttl_ms` from when the engine receives it.
    NodeLoad { host: String, memory_mb: f64, vcores: f64, ttl_ms: i64 },
    /// One finished run of (user, name): its size in container-ms.
    History { app_id: String, user: String, name: String, size_ms: f64 },
}

/// The `state` answer's own part (the handler adds `ok`, `instance`,
/// `started_ms` and `control`): what the sidecar deserializes.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
pub struct StateAnswer {
    pub state: EngineView,
    pub nodes: Vec<NodeView>,
}

/// The `gauges` answer's own part (the handler adds `ok`, `instance`,
/// `started_ms` and `control`): what the sidecar deserializes.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
pub struct GaugesAnswer {
    pub gauges: Vec<Gauge>,
    pub decision_seconds: HistogramSnapshot,
}
