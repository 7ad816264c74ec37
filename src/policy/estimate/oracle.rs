//! `estimate = "oracle"`: the exact job size from the
//! `shepherd.oracle.work_ms` application tag (the simulator sets it; on a
//! real cluster a job that knows its size may). The upper bound of SLearn
//! §5 and the size behind the SJF baseline of Carbyne §5.

use crate::model::{App, ClusterState};
use crate::policy::points::{Capabilities, Estimate, Estimator, Plugin};
use crate::policy::{tag_value, ORACLE_WORK_TAG};

pub struct OracleTag;

impl Plugin for OracleTag {
    fn name(&self) -> &'static str {
        "oracle"
    }

    /// The tag and the app's attained service.
    fn capabilities(&self) -> Capabilities {
        Capabilities { estimates_move_only_with_own_containers: true, ..Capabilities::NONE }
    }
}

impl Estimator for OracleTag {
    /// Remaining = size − attained service; an app without the tag has no
    /// estimate.
    fn estimate(&self, state: &ClusterState, app: &App) -> Option<Estimate> {
        let size = tag_value(app, ORACLE_WORK_TAG)?;
        Some(Estimate { size_ms: size, remaining_ms: size - app.attained_ms(state.now_ms) as f64, confidence: 1.0 })
    }
}
