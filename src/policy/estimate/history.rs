//! History-based size estimation in the style of 3Sigma (Park et al.,
//! EuroSys'18), the baseline SLearn §4–5 compares against: jobs are keyed by
//! user + name; each key keeps the sizes (container-ms) of its past runs,
//! learned when an application leaves (its attained service is its size).
//!
//! * `Mode::Distribution` (`history`, behind the `3sigma` policy) uses the
//!   whole empirical distribution: the remaining work of an app that has
//!   attained `a` is E[X − a | X > a], its size the mean.
//! * `Mode::Point` (`history-point`, behind `3sigma-point`) uses one point
//!   estimate, the configured quantile (median by default).
//!
//! A key without history falls back to all jobs seen so far; with no
//! history at all the estimate is a zero-size prior (confidence 0: orders
//! treat the app optimistically, like LAS, and it is not reported as a
//! prediction).

use crate::config::HistoryConfig;
use crate::model::{App, ClusterState};
use crate::policy::points::{Capabilities, Ctx, Estimate, Estimator, Plugin};
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

    fn len(&self) -> usize {
        self.sorted.len()
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
}

impl History {
    pub fn new(c: &HistoryConfig, mode: Mode) -> History {
        History { mode, max_samples: c.max_samples, point_quantile: c.point_quantile, by_key: HashMap::new(), all: Samples::default() }
    }

    fn key(app: &App) -> String {
        format!("{}\u{1f}{}", app.user, app.name)
    }

    /// The app's own key's history, else everyone's; and how much to trust
    /// it: n/(n+1) for n runs of the same job, half that for the fallback.
    fn samples(&self, app: &App) -> Option<(&Samples, f64)> {
        let trust = |n: usize| n as f64 / (n as f64 + 1.0);
        match self.by_key.get(&Self::key(app)).filter(|s| s.len() > 0) {
            Some(s) => Some((s, trust(s.len()))),
            None => (self.all.len() > 0).then(|| (&self.all, 0.5 * trust(self.all.len()))),
        }
    }

    /// Record one finished job's size (also how the sidecar feeds history).
    pub fn learn(&mut self, user: &str, name: &str, size_ms: f64) {
        let key = format!("{user}\u{1f}{name}");
        self.by_key.entry(key).or_default().push(size_ms, self.max_samples);
        self.all.push(size_ms, self.max_samples);
    }
}

impl Plugin for History {
    fn name(&self) -> &'static str {
        match self.mode {
            Mode::Distribution => "history",
            Mode::Point => "history-point",
        }
    }

    /// Samples come from finished apps (events); the rest is the app's
    /// attained service.
    fn capabilities(&self) -> Capabilities {
        Capabilities { estimates_move_only_with_own_containers: true, ..Capabilities::NONE }
    }

    fn on_app_removed(&mut self, ctx: &Ctx, app: &App) {
        let size = app.attained_ms(ctx.state.now_ms) as f64;
        self.learn(&app.user, &app.name, size);
    }

    /// A run the engine did not watch (it finished before this engine was
    /// built), pushed by the sidecar from the RM's app list.
    fn on_event(&mut self, _ctx: &Ctx, event: &crate::event::Event) {
        if let crate::event::Event::HistorySample { user, name, size_ms, .. } = event {
            self.learn(user, name, *size_ms as f64);
        }
    }

    fn state_json(&self, _ctx: &Ctx) -> serde_json::Value {
        serde_json::json!({
            "mode": format!("{:?}", self.mode).to_lowercase(),
            "keys": self.by_key.len(),
            "samples": self.all.len(),
            "max_samples": self.max_samples,
        })
    }
}

impl Estimator for History {
    fn estimate(&self, state: &ClusterState, app: &App) -> Option<Estimate> {
        let Some((s, confidence)) = self.samples(app) else {
            return Some(Estimate { size_ms: 0.0, remaining_ms: 0.0, confidence: 0.0 });
        };
        let attained = app.attained_ms(state.now_ms) as f64;
        let (size_ms, remaining_ms) = match self.mode {
            Mode::Distribution => (s.mean(), s.expected_remaining(attained)),
            Mode::Point => {
                let q = s.quantile(self.point_quantile);
                // Past the estimate: assume it doubles, as the distribution does.
                (q, if q > attained { q - attained } else { attained.max(1.0) })
            }
        };
        Some(Estimate { size_ms, remaining_ms, confidence })
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
