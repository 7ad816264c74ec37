//! Least attained service (a baseline of SLearn §5): the application that has
//! received the least container time so far goes first, no size knowledge.

use super::attained::Attained;
use super::{Policy, SortKey};
use crate::engine::Event;
use crate::model::{App, ClusterState, Container};

#[derive(Default)]
pub struct Las {
    attained: Attained,
}

impl Policy for Las {
    fn name(&self) -> &'static str {
        "las"
    }

    fn app_order(&self, state: &ClusterState, app: &App) -> SortKey {
        SortKey::new(self.attained.of(app.id, state.now_ms) as f64, app.submit_ms as f64, app.id as i64)
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
}
