//! Queue orders, the root's choice (`scheduler.queue_order`):
//!
//! * `drf` — Dominant Resource Fairness across queues (Ghodsi et al.,
//!   NSDI'11): the queue with the lowest weighted dominant share first.
//! * `capacity` — YARN CapacityScheduler's ordering: the queue furthest
//!   below its guaranteed share (lowest used ÷ guaranteed) first; the
//!   engine's pass caps each queue at its `max_capacity`.
//!
//! (`flat` is the no-op `crate::policy::noop::FlatQueues`: every app
//! competes in one order.)

use crate::model::{ClusterState, Queue};
use crate::policy::points::{Ctx, Plugin, QueueOrder};
use crate::policy::SortKey;

pub struct DrfQueues;

impl Plugin for DrfQueues {
    fn name(&self) -> &'static str {
        "drf"
    }

    fn state_json(&self, ctx: &Ctx) -> serde_json::Value {
        let s = ctx.state;
        let queues: Vec<_> = s
            .queues
            .iter()
            .map(|q| serde_json::json!({"queue": q.name, "weight": q.weight, "dominant_share": q.allocated.dominant_share(&s.capacity)}))
            .collect();
        serde_json::json!({ "queues": queues })
    }
}

impl QueueOrder for DrfQueues {
    fn key(&self, state: &ClusterState, queue: &Queue) -> SortKey {
        let share = queue.allocated.dominant_share(&state.capacity) / queue.weight;
        SortKey::new(share, 0.0, queue.id as i64)
    }
}

pub struct CapacityQueues;

impl Plugin for CapacityQueues {
    fn name(&self) -> &'static str {
        "capacity"
    }

    fn state_json(&self, ctx: &Ctx) -> serde_json::Value {
        let s = ctx.state;
        let queues: Vec<_> = s
            .queues
            .iter()
            .map(|q| serde_json::json!({"queue": q.name, "guaranteed": q.capacity, "used": q.allocated.dominant_share(&s.capacity)}))
            .collect();
        serde_json::json!({ "queues": queues })
    }
}

impl QueueOrder for CapacityQueues {
    fn key(&self, state: &ClusterState, queue: &Queue) -> SortKey {
        let used = queue.allocated.dominant_share(&state.capacity);
        let relative = if queue.capacity > 0.0 { used / queue.capacity } else { f64::MAX };
        SortKey::new(relative, used, queue.id as i64)
    }
}
