//! Engine time per heartbeat crossing (apply the batch, run the pass), as a
//! Prometheus-style histogram the sidecar re-exports as
//! `shepherd_engine_decision_seconds`. Atomic counters: recording never
//! blocks the heartbeat path.

use serde::{Deserialize, Serialize};
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::time::Duration;

/// Upper bounds in seconds: 10 µs … 1 s, roughly ×2.5 apart.
pub const BUCKETS: [f64; 14] = [1e-5, 2.5e-5, 5e-5, 1e-4, 2.5e-4, 5e-4, 1e-3, 2.5e-3, 5e-3, 1e-2, 2.5e-2, 5e-2, 0.1, 1.0];

#[derive(Debug, Default)]
pub struct DecisionTiming {
    /// Per bucket (not cumulative); the last slot is +Inf.
    counts: [AtomicU64; BUCKETS.len() + 1],
    sum_nanos: AtomicU64,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct HistogramSnapshot {
    /// `(upper bound, cumulative count)`, +Inf excluded (it is `count`).
    pub buckets: Vec<(f64, u64)>,
    pub sum_seconds: f64,
    pub count: u64,
}

impl DecisionTiming {
    pub fn record(&self, d: Duration) {
        let s = d.as_secs_f64();
        let i = BUCKETS.iter().position(|b| s <= *b).unwrap_or(BUCKETS.len());
        self.counts[i].fetch_add(1, Relaxed);
        self.sum_nanos.fetch_add(d.as_nanos().min(u64::MAX as u128) as u64, Relaxed);
    }

    pub fn snapshot(&self) -> HistogramSnapshot {
        let mut cumulative = 0;
        let mut buckets = Vec::with_capacity(BUCKETS.len());
        for (i, b) in BUCKETS.iter().enumerate() {
            cumulative += self.counts[i].load(Relaxed);
            buckets.push((*b, cumulative));
        }
        let count = cumulative + self.counts[BUCKETS.len()].load(Relaxed);
        HistogramSnapshot { buckets, sum_seconds: self.sum_nanos.load(Relaxed) as f64 / 1e9, count }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cumulative_buckets() {
        let t = DecisionTiming::default();
        t.record(Duration::from_micros(5));
        t.record(Duration::from_micros(30));
        t.record(Duration::from_secs(2));
        let s = t.snapshot();
        assert_eq!(s.count, 3);
        assert_eq!(s.buckets[0], (1e-5, 1));
        assert_eq!(s.buckets[2], (5e-5, 2));
        assert_eq!(s.buckets.last().unwrap().1, 2, "2 s is only in +Inf");
        assert!((s.sum_seconds - 2.000035).abs() < 1e-9);
    }
}
