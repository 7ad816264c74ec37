//! Allocation latency: from the moment a container is asked for to the
//! moment the scheduler allocates it — Megha's "allocation time" (§III:
//! framework queuing + processing + worker queuing delays), the figure a
//! scheduler that allocates between heartbeats is meant to shrink.

use serde::{Deserialize, Serialize};

/// Percentiles of the allocation latencies of one run, ms.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct LatencyDist {
    pub count: usize,
    pub mean_ms: f64,
    pub p50_ms: f64,
    pub p90_ms: f64,
    pub p99_ms: f64,
    pub p999_ms: f64,
    pub max_ms: f64,
}

impl LatencyDist {
    /// Nearest-rank percentiles of `samples_ms` (whole milliseconds, as
    /// the simulator's clock has them), sorted in place rather than copied:
    /// a Facebook-scale trace has 650 000 of them. `None` for no samples.
    pub fn of(samples_ms: &mut [u32]) -> Option<LatencyDist> {
        if samples_ms.is_empty() {
            return None;
        }
        samples_ms.sort_unstable();
        let v = &*samples_ms;
        let at = |p: f64| f64::from(v[super::stats::rounded_rank(v.len(), p)]);
        Some(LatencyDist {
            count: v.len(),
            mean_ms: v.iter().map(|&x| u64::from(x)).sum::<u64>() as f64 / v.len() as f64,
            p50_ms: at(0.50),
            p90_ms: at(0.90),
            p99_ms: at(0.99),
            p999_ms: at(0.999),
            max_ms: f64::from(v[v.len() - 1]),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_by_nearest_rank() {
        let mut v: Vec<u32> = (1..=1000).rev().collect();
        let d = LatencyDist::of(&mut v).unwrap();
        assert_eq!((d.count, d.p50_ms, d.p90_ms, d.p99_ms, d.p999_ms, d.max_ms), (1000, 501.0, 900.0, 990.0, 999.0, 1000.0));
        assert_eq!(d.mean_ms, 500.5);
        assert!(LatencyDist::of(&mut []).is_none());
    }
}
