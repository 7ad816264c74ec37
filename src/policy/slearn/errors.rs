//! Every finished app's estimation error (item 4 of the issue): what SLearn
//! predicted when it placed the app, what the app's tasks actually used,
//! and |predicted − actual| ÷ actual (SLearn §4.3's metric).

use std::collections::VecDeque;

/// Recent records kept for the state view and the percentile metrics.
pub const KEPT: usize = 1000;

#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Finished {
    pub app: String,
    pub predicted_ms: f64,
    pub actual_ms: f64,
    pub error: f64,
}

#[derive(Debug, Default)]
pub struct ErrorLog {
    recent: VecDeque<Finished>,
    /// Apps recorded since the engine started.
    pub total: u64,
}

impl ErrorLog {
    /// Record one app; apps that did no task work have no error.
    pub fn record(&mut self, app: &str, predicted_ms: f64, actual_ms: f64) -> Option<f64> {
        if actual_ms <= 0.0 {
            return None;
        }
        let error = (predicted_ms - actual_ms).abs() / actual_ms;
        self.recent.push_back(Finished { app: app.to_string(), predicted_ms, actual_ms, error });
        while self.recent.len() > KEPT {
            self.recent.pop_front();
        }
        self.total += 1;
        Some(error)
    }

    /// Percentile `p` (0–100, nearest rank) of the recent errors.
    pub fn percentile(&self, p: f64) -> Option<f64> {
        if self.recent.is_empty() {
            return None;
        }
        let mut v: Vec<f64> = self.recent.iter().map(|f| f.error).collect();
        v.sort_by(f64::total_cmp);
        Some(crate::metrics::stats::percentile(&v, p))
    }

    pub fn last(&self, n: usize) -> Vec<Finished> {
        self.recent.iter().rev().take(n).cloned().collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_are_relative_and_bounded() {
        let mut log = ErrorLog::default();
        assert_eq!(log.record("a", 150.0, 100.0), Some(0.5));
        assert_eq!(log.record("b", 90.0, 100.0), Some(0.1));
        assert_eq!(log.record("c", 10.0, 0.0), None);
        assert_eq!(log.total, 2);
        assert_eq!(log.percentile(50.0), Some(0.1));
        assert_eq!(log.last(1)[0].app, "b");
        for i in 0..KEPT + 5 {
            log.record(&format!("x{i}"), 1.0, 1.0);
        }
        assert_eq!(log.last(usize::MAX).len(), KEPT);
    }
}
