//! Leaf queues under `root`, as configured in Shepherd's config file.

use super::resource::Resources;
use serde::Serialize;

pub type QueueId = usize;

#[derive(Debug, Clone, Serialize)]
pub struct Queue {
    pub id: QueueId,
    /// Leaf name, e.g. `default`; its YARN path is `root.<name>`.
    pub name: String,
    /// Fair-share weight (DRF across queues).
    pub weight: f64,
    /// Guaranteed share of the cluster, 0..=1 (Capacity-style policies).
    pub capacity: f64,
    /// Hard cap on the share of the cluster, 0..=1.
    pub max_capacity: f64,
    /// Share of the queue's maximum capacity its ApplicationMasters may hold
    /// together (YARN's `maximum-am-resource-percent` / `maxAMShare`).
    pub max_am_share: f64,
    pub allocated: Resources,
    /// Held by its apps' ApplicationMaster containers.
    pub am_used: Resources,
    pub pending: Resources,
    pub running_apps: u32,
}

impl Queue {
    /// May another ApplicationMaster of `size` start? The first always may
    /// (as in YARN: a queue is never kept from running any app).
    pub fn admits_am(&self, size: &Resources, cluster: &Resources) -> bool {
        if self.am_used.is_zero() {
            return true;
        }
        let mut limit = self.max_capacity_of(cluster);
        limit.0.iter_mut().for_each(|v| *v = (*v as f64 * self.max_am_share).floor() as i64);
        (self.am_used + *size).fits_in(&limit)
    }

    /// The queue's maximum share of `cluster`, rounded down per resource
    /// type (the cap the pass enforces and a queue-scoped pipeline's total).
    pub fn max_capacity_of(&self, cluster: &Resources) -> Resources {
        if self.max_capacity >= 1.0 {
            return *cluster;
        }
        let mut out = *cluster;
        out.0.iter_mut().for_each(|v| *v = (*v as f64 * self.max_capacity).floor() as i64);
        out
    }
}
