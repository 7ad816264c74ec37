//! Shortest job first with oracle sizes (the SJF baseline of Carbyne §5):
//! applications ordered by their total size from the
//! `shepherd.oracle.work_ms` tag; apps without it go last, FIFO.

use super::{tag_value, Policy, SortKey, ORACLE_WORK_TAG};
use crate::model::{App, AppId, ClusterState};

pub struct Sjf;

impl Policy for Sjf {
    fn name(&self) -> &'static str {
        "sjf"
    }

    fn app_order(&self, _state: &ClusterState, app: &App) -> SortKey {
        let size = tag_value(app, ORACLE_WORK_TAG).unwrap_or(f64::INFINITY);
        SortKey::new(size, app.submit_ms as f64, app.id as i64)
    }

    fn estimate_ms(&self, state: &ClusterState, app: AppId) -> Option<f64> {
        state.apps.get(&app).and_then(|a| tag_value(a, ORACLE_WORK_TAG))
    }
}
