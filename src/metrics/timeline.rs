//! Time-weighted averages of a piecewise-constant signal per fixed window:
//! the utilization timeline (allocated and actually used share of the
//! cluster, per resource type).

use serde::Serialize;

/// Signals tracked: allocated memory, allocated vcores, used memory, used vcores.
pub const SIGNALS: usize = 4;

#[derive(Debug, Clone)]
pub struct Timeline {
    window_ms: i64,
    last_ms: i64,
    value: [f64; SIGNALS],
    /// Integral of each signal over each window (value × ms).
    buckets: Vec<[f64; SIGNALS]>,
}

#[derive(Debug, Clone, Serialize)]
pub struct UtilizationPoint {
    pub start_ms: i64,
    pub alloc_memory: f64,
    pub alloc_vcores: f64,
    pub used_memory: f64,
    pub used_vcores: f64,
}

impl Timeline {
    pub fn new(window_ms: i64, start_ms: i64) -> Timeline {
        Timeline { window_ms, last_ms: start_ms, value: [0.0; SIGNALS], buckets: Vec::new() }
    }

    /// Integrate the current values up to `t`.
    pub fn advance(&mut self, t: i64) {
        while self.last_ms < t {
            let w = (self.last_ms / self.window_ms) as usize;
            let end = ((w as i64 + 1) * self.window_ms).min(t);
            if self.buckets.len() <= w {
                self.buckets.resize(w + 1, [0.0; SIGNALS]);
            }
            let dt = (end - self.last_ms) as f64;
            for (b, v) in self.buckets[w].iter_mut().zip(self.value) {
                *b += v * dt;
            }
            self.last_ms = end;
        }
    }

    /// Change signal values by `delta` at time `t`.
    pub fn add(&mut self, t: i64, delta: [f64; SIGNALS]) {
        self.advance(t);
        for (v, d) in self.value.iter_mut().zip(delta) {
            *v += d;
        }
    }

    /// Per-window averages from `from_ms` up to `to_ms`.
    pub fn points(&self, from_ms: i64, to_ms: i64) -> Vec<UtilizationPoint> {
        let mut out = Vec::new();
        for (w, b) in self.buckets.iter().enumerate() {
            let start = w as i64 * self.window_ms;
            let (lo, hi) = (start.max(from_ms), (start + self.window_ms).min(to_ms));
            if hi <= lo {
                continue;
            }
            let len = (hi - lo) as f64;
            out.push(UtilizationPoint {
                start_ms: start,
                alloc_memory: b[0] / len,
                alloc_vcores: b[1] / len,
                used_memory: b[2] / len,
                used_vcores: b[3] / len,
            });
        }
        out
    }

    /// Time-weighted mean of each signal over [from, to).
    pub fn mean(&self, from_ms: i64, to_ms: i64) -> [f64; SIGNALS] {
        let mut sum = [0.0; SIGNALS];
        for b in &self.buckets {
            for (s, v) in sum.iter_mut().zip(b) {
                *s += v;
            }
        }
        let len = (to_ms - from_ms).max(1) as f64;
        sum.map(|s| s / len)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integrates_across_windows() {
        let mut t = Timeline::new(10, 0);
        t.add(5, [1.0, 0.0, 0.0, 0.0]);
        t.add(25, [-1.0, 0.0, 0.0, 0.0]);
        t.advance(30);
        let p = t.points(0, 30);
        assert_eq!(p.len(), 3);
        assert_eq!(p[0].alloc_memory, 0.5);
        assert_eq!(p[1].alloc_memory, 1.0);
        assert_eq!(p[2].alloc_memory, 0.5);
        assert_eq!(t.mean(0, 30)[0], 20.0 / 30.0);
    }
}
