//! Capacity-like: queues with guaranteed shares, the most under-served queue
//! (lowest used ÷ guaranteed, YARN CapacityScheduler's queue ordering) first,
//! FIFO inside a queue; `max_capacity` caps a queue's elastic growth (checked
//! by the engine's pass).

use super::{Policy, SortKey};
use crate::model::{App, ClusterState, Queue};

pub struct Capacity;

impl Policy for Capacity {
    fn name(&self) -> &'static str {
        "capacity"
    }

    fn queue_order(&self, state: &ClusterState, queue: &Queue) -> Option<SortKey> {
        let used = queue.allocated.dominant_share(&state.capacity);
        let relative = if queue.capacity > 0.0 { used / queue.capacity } else { f64::MAX };
        Some(SortKey::new(relative, used, queue.id as i64))
    }

    fn app_order(&self, _state: &ClusterState, app: &App) -> SortKey {
        SortKey::new(-(app.priority as f64), app.submit_ms as f64, app.id as i64)
    }

    fn state_json(&self, state: &ClusterState) -> serde_json::Value {
        let queues: Vec<_> = state
            .queues
            .iter()
            .map(|q| serde_json::json!({"queue": q.name, "guaranteed": q.capacity, "used": q.allocated.dominant_share(&state.capacity)}))
            .collect();
        serde_json::json!({ "queues": queues })
    }
}
