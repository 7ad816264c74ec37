//! An application (YARN app + its current attempt) and its outstanding asks.

use super::ask::{Ask, SchedulerKey};
use super::queue::QueueId;
use super::resource::Resources;
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};

/// Dense application index assigned by the driver, increasing with submission
/// order (the shim numbers `ApplicationId`s as they arrive).
pub type AppId = u32;

#[derive(Debug, Clone, Serialize)]
pub struct App {
    pub id: AppId,
    pub queue: QueueId,
    pub user: String,
    pub name: String,
    pub app_type: String,
    pub tags: Vec<String>,
    pub submit_ms: i64,
    /// YARN application priority (higher value = more important).
    pub priority: i32,
    /// Current attempt number; 0 until the first attempt is added.
    pub attempt: u32,
    pub asks: BTreeMap<SchedulerKey, Ask>,
    pub allocated: Resources,
    pub containers: BTreeSet<u64>,
    /// When the first container of the app was allocated (waiting time ends).
    pub first_allocation_ms: Option<i64>,
    /// Containers allocated over the app's life.
    pub allocations_total: u64,
}

impl App {
    /// Sum of outstanding (not yet allocated) asks.
    pub fn pending(&self) -> Resources {
        let mut r = Resources::ZERO;
        for a in self.asks.values() {
            if a.count > 0 {
                r += a.capability.times(a.count as i64);
            }
        }
        r
    }

    pub fn has_pending(&self) -> bool {
        self.attempt > 0 && self.asks.values().any(|a| a.count > 0)
    }

    pub fn pending_containers(&self) -> i64 {
        self.asks.values().map(|a| a.count.max(0) as i64).sum()
    }
}
