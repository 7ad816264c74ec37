//! Dominant Resource Fairness (Ghodsi et al., NSDI'11), hierarchical: the queue
//! with the lowest weighted dominant share is served first, and inside it the
//! application with the lowest dominant share (ties: earlier submission).

use super::{Policy, SortKey};
use crate::model::{App, ClusterState, Queue};

#[derive(Default)]
pub struct Drf;

impl Policy for Drf {
    fn name(&self) -> &'static str {
        "drf"
    }

    fn queue_order(&self, state: &ClusterState, queue: &Queue) -> Option<SortKey> {
        let share = queue.allocated.dominant_share(&state.capacity) / queue.weight;
        Some(SortKey::new(share, 0.0, queue.id as i64))
    }

    fn app_order(&self, state: &ClusterState, app: &App) -> SortKey {
        let share = app.allocated.dominant_share(&state.capacity);
        SortKey::new(share, app.submit_ms as f64, app.id as i64)
    }

    fn state_json(&self, state: &ClusterState) -> serde_json::Value {
        let queues: Vec<_> = state
            .queues
            .iter()
            .map(|q| {
                serde_json::json!({
                    "queue": q.name,
                    "weight": q.weight,
                    "dominant_share": q.allocated.dominant_share(&state.capacity),
                })
            })
            .collect();
        serde_json::json!({ "queues": queues })
    }
}
