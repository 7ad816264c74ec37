//! The smallest and largest sample of a node's sliding window, kept up to
//! date as samples enter and leave it. Algorithm 1's level lies between
//! them (`Track::level_range`), which is what lets a refresh skip Algorithm
//! 1 on most nodes without walking their windows (walking 3 000 windows at
//! every refresh cost as much as the algorithm it saved: the windows are in
//! as many heap blocks, beyond the cache).

/// The window's extremes per dimension, with how many of its samples
/// equal each. A sample leaving that was the last at an extreme makes the
/// extremes stale until [`Extremes::settle`] walks the window again: that
/// happens only when the last copy of the smallest or largest value goes,
/// and most windows hold each extreme many times (a node's use stays
/// level between container starts and ends).
#[derive(Debug, Default, Clone)]
pub struct Extremes {
    lo: [f64; 2],
    hi: [f64; 2],
    at_lo: [usize; 2],
    at_hi: [usize; 2],
    /// Samples in the window.
    len: usize,
    stale: bool,
}

impl Extremes {
    /// `value` entered the window `times` times in a row.
    pub fn push(&mut self, value: [f64; 2], times: usize) {
        if times == 0 {
            return;
        }
        if self.len == 0 {
            (self.lo, self.hi, self.at_lo, self.at_hi) = (value, value, [times; 2], [times; 2]);
        } else {
            for (d, v) in value.into_iter().enumerate() {
                if v < self.lo[d] {
                    (self.lo[d], self.at_lo[d]) = (v, times);
                } else if v == self.lo[d] {
                    self.at_lo[d] += times;
                }
                if v > self.hi[d] {
                    (self.hi[d], self.at_hi[d]) = (v, times);
                } else if v == self.hi[d] {
                    self.at_hi[d] += times;
                }
            }
        }
        self.len += times;
    }

    /// `times` samples equal to `value`, the window's oldest, left it.
    pub fn pop(&mut self, value: [f64; 2], times: usize) {
        self.len = self.len.saturating_sub(times);
        for (d, v) in value.into_iter().enumerate() {
            for (at, count) in [(self.lo[d], &mut self.at_lo[d]), (self.hi[d], &mut self.at_hi[d])] {
                if v == at {
                    *count = count.saturating_sub(times);
                    self.stale |= *count == 0;
                }
            }
        }
    }

    /// Walks the window (its runs of equal samples: value, length) again
    /// if an extreme's last sample left since the last walk.
    pub fn settle(&mut self, runs: impl Iterator<Item = ([f64; 2], usize)>) {
        if !self.stale {
            return;
        }
        *self = Extremes::default();
        for (u, times) in runs {
            self.push(u, times);
        }
    }

    /// The window's `(smallest, largest)` sample per dimension; `None`
    /// while it is empty. Call [`Extremes::settle`] first.
    pub fn range(&self) -> Option<([f64; 2], [f64; 2])> {
        debug_assert!(!self.stale);
        (self.len > 0).then_some((self.lo, self.hi))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Against the window's own minimum and maximum, through random runs
    /// of random values (many equal), a window trimmed by count and, as
    /// ROSE's is, by age.
    use std::collections::VecDeque;

    #[test]
    fn the_range_is_the_windows_smallest_and_largest() {
        let mut rng = crate::workload::rng::Rng::seeded(3);
        for case in 0..300 {
            let max = rng.int(1, 12) as usize;
            let mut e = Extremes::default();
            let mut window: VecDeque<[f64; 2]> = VecDeque::new();
            for _ in 0..60 {
                let v = [rng.int(0, 5) as f64, rng.int(0, 3) as f64 / 2.0];
                let times = rng.int(0, 4) as usize;
                // Some pushes only after the old end lost samples (by age).
                for _ in 0..rng.int(0, 2).min(window.len() as i64) {
                    e.pop(window.pop_front().unwrap(), 1);
                }
                for _ in 0..times {
                    window.push_back(v);
                }
                e.push(v, times);
                while window.len() > max {
                    e.pop(window.pop_front().unwrap(), 1);
                }
                e.settle(window.iter().map(|u| (*u, 1)));
                let want = (!window.is_empty()).then(|| {
                    let (mut lo, mut hi) = (window[0], window[0]);
                    for u in &window {
                        for d in 0..2 {
                            lo[d] = lo[d].min(u[d]);
                            hi[d] = hi[d].max(u[d]);
                        }
                    }
                    (lo, hi)
                });
                assert_eq!(e.range(), want, "case {case}");
            }
        }
    }
}
