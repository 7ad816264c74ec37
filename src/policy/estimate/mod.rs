//! Plugins of the *estimate* point: an app's size and remaining work in
//! container-milliseconds, read by the size orders (`sjf`, `srtf`) and
//! reported per app (state view, estimation error).
//!
//! Estimators are shared: one instance per name serves every pipeline that
//! names it and learns from every application, so a queue switched to
//! another pipeline at runtime keeps the history it learned.

pub mod history;
pub mod oracle;
pub mod tasks;

use super::points::{Capabilities, Estimate, Estimator, Plugin};
use crate::model::{App, ClusterState};

/// `estimate = "none"`: knows nothing.
pub struct NoEstimate;

impl Plugin for NoEstimate {
    fn name(&self) -> &'static str {
        "none"
    }

    fn capabilities(&self) -> Capabilities {
        Capabilities { estimates_move_only_with_own_containers: true, ..Capabilities::NONE }
    }
}

impl Estimator for NoEstimate {
    fn estimate(&self, _state: &ClusterState, _app: &App) -> Option<Estimate> {
        None
    }
}
