//! FIFO: applications served in arrival order, ignoring queues. Higher YARN
//! application priority goes first, as in YARN's FifoScheduler ordering.

use super::{Policy, SortKey};
use crate::config::FifoConfig;
use crate::model::{App, ClusterState};

pub struct Fifo {
    strict_order: bool,
}

impl Fifo {
    pub fn new(config: &FifoConfig) -> Self {
        Fifo { strict_order: config.strict_order }
    }
}

impl Policy for Fifo {
    fn name(&self) -> &'static str {
        "fifo"
    }

    fn app_order(&self, _state: &ClusterState, app: &App) -> SortKey {
        SortKey::new(-(app.priority as f64), app.submit_ms as f64, app.id as i64)
    }

    fn head_of_line_blocking(&self) -> bool {
        self.strict_order
    }

    fn state_json(&self, _state: &ClusterState) -> serde_json::Value {
        serde_json::json!({ "strict_order": self.strict_order })
    }
}
