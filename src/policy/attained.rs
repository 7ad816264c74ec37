//! Attained service per application (container-milliseconds received so
//! far: finished containers plus the running ones up to now), the quantity
//! LAS orders by and size estimators subtract from a job's estimated size.

use crate::model::{AppId, ClusterState, Container};
use std::collections::HashMap;

#[derive(Debug, Default, Clone, Copy)]
struct Service {
    finished_ms: i64,
    running: i64,
    /// Sum of the running containers' start times.
    start_sum: i64,
}

#[derive(Debug, Default)]
pub struct Attained {
    apps: HashMap<AppId, Service>,
}

impl Attained {
    pub fn on_allocated(&mut self, c: &Container) {
        let s = self.apps.entry(c.app).or_default();
        s.running += 1;
        s.start_sum += c.allocated_ms;
    }

    pub fn on_finished(&mut self, c: &Container, at_ms: i64) {
        let s = self.apps.entry(c.app).or_default();
        s.running -= 1;
        s.start_sum -= c.allocated_ms;
        s.finished_ms += (at_ms - c.allocated_ms).max(0);
    }

    /// Service of `app` at `now_ms`.
    pub fn of(&self, app: AppId, now_ms: i64) -> i64 {
        self.apps.get(&app).map_or(0, |s| s.finished_ms + s.running * now_ms - s.start_sum)
    }

    /// Forget an application (after it was removed); returns its finished work.
    pub fn remove(&mut self, app: AppId) -> i64 {
        self.apps.remove(&app).map_or(0, |s| s.finished_ms)
    }

    pub fn now(state: &ClusterState) -> i64 {
        state.now_ms
    }
}
