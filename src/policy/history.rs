//! History-based size estimation in the style of 3Sigma (Park et al.,
//! EuroSys'18), the baseline SLearn §4–5 compares against: jobs are keyed by
//! user + name; each key keeps the sizes (container-ms) of its past runs,
//! learned from container-finished and app-removed events.
//!
//! * `Mode::Distribution` (`3sigma`) uses the whole empirical distribution:
//!   an app is ordered by its expected remaining size given the service it
//!   has attained, E[X − a | X > a] (shortest expected remaining first).
//! * `Mode::Point` (`3sigma-point`) orders by one point estimate, the
//!   configured quantile (median by default) of the history.
//!
//! A key without history falls back to all jobs seen so far; with no
//! history at all the app is ordered as size 0 (optimistic, like LAS).

use super::attained::Attained;
use super::{Policy, SortKey};
use crate::config::HistoryConfig;
use crate::engine::Event;
use crate::model::{App, AppId, ClusterState, Container};
use std::collections::{HashMap, VecDeque};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    Distribution,
    Point,
}

/// Past sizes of one key: arrival order (to drop the oldest) and a sorted
/// copy with suffix sums (for conditional expectations).
#[derive(Debug, Default)]
struct Samples {
    recent: VecDeque<f64>,
    sorted: Vec<f64>,
    /// suffix[i] = Σ sorted[i..]
    suffix: Vec<f64>,
}

impl Samples {
    fn push(&mut self, v: f64, max: usize) {
        self.recent.push_back(v);
        if self.recent.len() > max {
            self.recent.pop_front();
        }
        self.sorted = self.recent.iter().copied().collect();
        self.sorted.sort_by(f64::total_cmp);
        self.suffix = vec![0.0; self.sorted.len() + 1];
        for i in (0..self.sorted.len()).rev() {
            self.suffix[i] = self.suffix[i + 1] + self.sorted[i];
        }
    }

    fn is_empty(&self) -> bool {
        self.sorted.is_empty()
    }

    fn mean(&self) -> f64 {
        self.suffix[0] / self.sorted.len() as f64
    }

    fn quantile(&self, q: f64) -> f64 {
        crate::metrics::stats::percentile(&self.sorted, q * 100.0)
    }

    /// E[X − a | X > a]; when no past run was that long, assume the job is
    /// about to double its attained service.
    fn expected_remaining(&self, a: f64) -> f64 {
        let i = self.sorted.partition_point(|x| *x <= a);
        let n = self.sorted.len() - i;
        if n == 0 {
            a.max(1.0)
        } else {
            self.suffix[i] / n as f64 - a
        }
    }
}

pub struct History {
    mode: Mode,
    max_samples: usize,
    point_quantile: f64,
    by_key: HashMap<String, Samples>,
    all: Samples,
    key_of: HashMap<AppId, String>,
    attained: Attained,
}

impl History {
    pub fn new(c: &HistoryConfig, mode: Mode) -> History {
        History {
            mode,
            max_samples: c.max_samples,
            point_quantile: c.point_quantile,
            by_key: HashMap::new(),
            all: Samples::default(),
            key_of: HashMap::new(),
            attained: Attained::default(),
        }
    }

    fn samples(&self, app: AppId) -> Option<&Samples> {
        let own = self.key_of.get(&app).and_then(|k| self.by_key.get(k)).filter(|s| !s.is_empty());
        own.or((!self.all.is_empty()).then_some(&self.all))
    }

    fn key(app: &App) -> String {
        format!("{}\u{1f}{}", app.user, app.name)
    }
}

impl Policy for History {
    fn name(&self) -> &'static str {
        match self.mode {
            Mode::Distribution => "3sigma",
            Mode::Point => "3sigma-point",
        }
    }

    fn app_order(&self, state: &ClusterState, app: &App) -> SortKey {
        let est = match (self.samples(app.id), self.mode) {
            (None, _) => 0.0,
            (Some(s), Mode::Distribution) => s.expected_remaining(self.attained.of(app.id, state.now_ms) as f64),
            (Some(s), Mode::Point) => s.quantile(self.point_quantile),
        };
        SortKey::new(est, app.submit_ms as f64, app.id as i64)
    }

    fn on_allocated(&mut self, _state: &ClusterState, c: &Container) {
        self.attained.on_allocated(c);
    }

    fn on_container_finished(&mut self, _state: &ClusterState, c: &Container, at_ms: i64) {
        self.attained.on_finished(c, at_ms);
    }

    fn on_event(&mut self, state: &ClusterState, event: &Event) {
        match event {
            Event::AppAdded { app, .. } => {
                if let Some(a) = state.apps.get(app) {
                    self.key_of.insert(*app, Self::key(a));
                }
            }
            Event::AppRemoved { app } => {
                let size = self.attained.remove(*app) as f64;
                if let Some(k) = self.key_of.remove(app) {
                    self.by_key.entry(k).or_default().push(size, self.max_samples);
                    self.all.push(size, self.max_samples);
                }
            }
            // A run the engine did not watch (it finished before this engine
            // was built), pushed by the sidecar from the RM's app list.
            Event::HistorySample { user, name, size_ms, .. } => {
                let k = format!("{}\u{1f}{}", user, name);
                self.by_key.entry(k).or_default().push(*size_ms as f64, self.max_samples);
                self.all.push(*size_ms as f64, self.max_samples);
            }
            _ => {}
        }
    }

    fn estimate_ms(&self, _state: &ClusterState, app: AppId) -> Option<f64> {
        let s = self.samples(app)?;
        Some(match self.mode {
            Mode::Distribution => s.mean(),
            Mode::Point => s.quantile(self.point_quantile),
        })
    }

    fn state_json(&self, _state: &ClusterState) -> serde_json::Value {
        serde_json::json!({ "keys": self.by_key.len(), "samples": self.all.sorted.len() })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conditional_expectation_and_window() {
        let mut s = Samples::default();
        for v in [10.0, 20.0, 30.0, 40.0] {
            s.push(v, 3);
        }
        // The oldest (10) fell out of the 3-sample window.
        assert_eq!(s.sorted, vec![20.0, 30.0, 40.0]);
        assert_eq!(s.mean(), 30.0);
        assert_eq!(s.quantile(0.5), 30.0);
        // Given 25 attained: E[X − 25 | X > 25] = (30 + 40) / 2 − 25.
        assert_eq!(s.expected_remaining(25.0), 10.0);
        // Beyond every past run: assume it doubles.
        assert_eq!(s.expected_remaining(50.0), 50.0);
    }
}
