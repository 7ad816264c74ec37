//! Oracle estimator (the upper bound of SLearn §5): the exact job size from
//! the `shepherd.oracle.work_ms` tag, served shortest remaining work first
//! (size − attained service).

use super::attained::Attained;
use super::{tag_value, Policy, SortKey, ORACLE_WORK_TAG};
use crate::engine::Event;
use crate::model::{App, AppId, ClusterState, Container};

#[derive(Default)]
pub struct Oracle {
    attained: Attained,
}

impl Policy for Oracle {
    fn name(&self) -> &'static str {
        "oracle"
    }

    fn app_order(&self, state: &ClusterState, app: &App) -> SortKey {
        let size = tag_value(app, ORACLE_WORK_TAG).unwrap_or(f64::INFINITY);
        let remaining = size - self.attained.of(app.id, state.now_ms) as f64;
        SortKey::new(remaining, app.submit_ms as f64, app.id as i64)
    }

    fn on_allocated(&mut self, _state: &ClusterState, c: &Container) {
        self.attained.on_allocated(c);
    }

    fn on_container_finished(&mut self, _state: &ClusterState, c: &Container, at_ms: i64) {
        self.attained.on_finished(c, at_ms);
    }

    fn on_event(&mut self, _state: &ClusterState, event: &Event) {
        if let Event::AppRemoved { app } = event {
            self.attained.remove(*app);
        }
    }

    fn estimate_ms(&self, state: &ClusterState, app: AppId) -> Option<f64> {
        state.apps.get(&app).and_then(|a| tag_value(a, ORACLE_WORK_TAG))
    }
}
