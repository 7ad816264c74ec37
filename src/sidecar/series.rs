//! Bounded in-memory time series: per key, `(time ms, value)` points no
//! older than the retention and at most `max_points` of them. Keys name what
//! was measured (`cluster.allocated_memory_mb`, `node.<host>.memory_mb`,
//! `app.<id>.allocated_memory_mb`, `engine.dress_reserve_ratio`, ...).

use std::collections::{BTreeMap, VecDeque};

pub struct Series {
    retention_ms: i64,
    max_points: usize,
    by_key: BTreeMap<String, VecDeque<(i64, f64)>>,
}

impl Series {
    pub fn new(retention_ms: i64, max_points: usize) -> Series {
        Series { retention_ms, max_points, by_key: BTreeMap::new() }
    }

    /// Append a point; non-finite values are skipped (a gap, not a zero).
    pub fn record(&mut self, key: &str, t_ms: i64, v: f64) {
        if !v.is_finite() {
            return;
        }
        let s = self.by_key.entry(key.to_string()).or_default();
        if s.back().is_some_and(|(t, _)| *t > t_ms) {
            return; // out of order: keep the series monotone
        }
        s.push_back((t_ms, v));
        while s.len() > self.max_points {
            s.pop_front();
        }
    }

    /// Drop points older than the retention and series left empty.
    pub fn prune(&mut self, now_ms: i64) {
        let oldest = now_ms - self.retention_ms;
        self.by_key.retain(|_, s| {
            while s.front().is_some_and(|(t, _)| *t < oldest) {
                s.pop_front();
            }
            !s.is_empty()
        });
    }

    pub fn points(&self, key: &str, since_ms: i64) -> Vec<(i64, f64)> {
        self.by_key.get(key).map(|s| s.iter().filter(|(t, _)| *t >= since_ms).copied().collect()).unwrap_or_default()
    }

    /// The last `window_ms` of one series, values only.
    pub fn recent_values(&self, key: &str, now_ms: i64, window_ms: i64) -> Vec<f64> {
        self.points(key, now_ms - window_ms).into_iter().map(|(_, v)| v).collect()
    }

    pub fn keys_with_prefix<'a>(&'a self, prefix: &'a str) -> impl Iterator<Item = &'a String> + 'a {
        self.by_key.range(prefix.to_string()..).map(|(k, _)| k).take_while(move |k| k.starts_with(prefix))
    }

    pub fn len(&self) -> usize {
        self.by_key.len()
    }

    pub fn is_empty(&self) -> bool {
        self.by_key.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounded_by_count_and_age() {
        let mut s = Series::new(1000, 3);
        for t in 0..5 {
            s.record("a", t * 100, t as f64);
        }
        assert_eq!(s.points("a", 0), vec![(200, 2.0), (300, 3.0), (400, 4.0)]);
        s.record("b", 0, 1.0);
        s.record("b", 10, f64::NAN);
        s.prune(1300);
        assert_eq!(s.points("a", 0), vec![(300, 3.0), (400, 4.0)]);
        assert!(s.points("b", 0).is_empty());
        assert_eq!(s.len(), 1, "empty series are dropped");
        s.record("node.h1.cpu", 1300, 1.0);
        s.record("node.h2.cpu", 1300, 1.0);
        assert_eq!(s.keys_with_prefix("node.").count(), 2);
    }
}
