//! A node's sliding window of utilization samples (Algorithm 1's input),
//! kept as runs of equal samples taken at evenly spaced times.
//!
//! Under ROSE every node sends a sample with every heartbeat, and a node's
//! use stays level between container starts and ends: a window of 60
//! samples is nearly always one or two runs. Stored sample by sample (a
//! deque of 60 per node, 3 000 nodes), every sample touched both ends of
//! a heap block that had left the cache since the node's last heartbeat.
//! Here the newest run lives inline, in the node's own record: appending
//! a sample that continues it, and trimming the window while it is the
//! only run, are arithmetic on it. The samples are the same, in the same
//! order, as the deque held.

use std::collections::VecDeque;

/// One utilization sample: when, memory MB, vcores (not millis).
pub type Sample = (i64, [f64; 2]);

/// `count` samples equal to `value`, taken at `first`, `first + step`, …
#[derive(Debug, Clone, Copy)]
struct Run {
    first: i64,
    /// Meaningless while `count` is 1: the next sample sets it.
    step: i64,
    count: usize,
    value: [f64; 2],
}

impl Run {
    fn at(&self, i: usize) -> i64 {
        self.first + self.step * i as i64
    }

    fn last(&self) -> i64 {
        self.at(self.count - 1)
    }

    /// Does the sample `value` at `at` (no earlier than the run's last)
    /// go on this run: the same value, evenly spaced after it?
    fn continues(&self, at: i64, value: [f64; 2]) -> bool {
        value == self.value && (self.count == 1 || at == self.at(self.count))
    }

    /// How many of its samples were taken before `oldest`.
    fn before(&self, oldest: i64) -> usize {
        if self.first >= oldest {
            0
        } else if self.step == 0 {
            self.count
        } else {
            // (A lone sample's stale step gives at least 1: all of it.)
            // Samples i with first + i·step < oldest: i < ⌈(oldest − first) / step⌉.
            let taken = (oldest - self.first + self.step - 1) / self.step;
            (taken as usize).min(self.count)
        }
    }

    fn drop_oldest(&mut self, n: usize) {
        self.first = self.at(n);
        self.count -= n;
    }
}

/// The samples, oldest first.
#[derive(Debug, Default, Clone)]
pub struct Window {
    /// Every run but the newest, oldest first.
    older: VecDeque<Run>,
    /// The newest run; `None` while the window is empty.
    newest: Option<Run>,
    /// Samples in all runs.
    len: usize,
}

impl Window {
    pub fn len(&self) -> usize {
        self.len
    }

    /// The newest sample.
    pub fn back(&self) -> Option<Sample> {
        self.newest.map(|r| (r.last(), r.value))
    }

    /// Appends the sample `value` taken at `at` (no earlier than the
    /// newest).
    pub fn push(&mut self, at: i64, value: [f64; 2]) {
        self.len += 1;
        if let Some(r) = self.newest.as_mut() {
            if r.continues(at, value) {
                if r.count == 1 {
                    r.step = at - r.first;
                }
                r.count += 1;
                return;
            }
        }
        let fresh = Run { first: at, step: 0, count: 1, value };
        if let Some(r) = self.newest.replace(fresh) {
            self.older.push_back(r);
        }
    }

    /// Drops the oldest samples: those taken before `oldest`, then more
    /// until at most `max` are left. `dropped(value, n)` hears of each
    /// `n` equal samples that go.
    pub fn trim(&mut self, oldest: i64, max: usize, mut dropped: impl FnMut([f64; 2], usize)) {
        loop {
            let excess = self.len.saturating_sub(max);
            let Some(front) = self.older.front_mut().or(self.newest.as_mut()) else { return };
            let n = front.before(oldest).max(excess).min(front.count);
            if n == 0 {
                return;
            }
            let (value, whole) = (front.value, n == front.count);
            // A run only partly dropped keeps samples from `oldest` on, and
            // leaves at most `max`: nothing older needs to go.
            front.drop_oldest(n);
            self.len -= n;
            dropped(value, n);
            if !whole {
                return;
            }
            if self.older.pop_front().is_none() {
                self.newest = None;
            }
        }
    }

    /// Each run's value and length, oldest first.
    pub fn runs(&self) -> impl Iterator<Item = ([f64; 2], usize)> + '_ {
        self.older.iter().chain(&self.newest).map(|r| (r.value, r.count))
    }

    /// The samples, oldest first.
    #[cfg(test)]
    pub fn iter(&self) -> impl Iterator<Item = Sample> + '_ {
        self.older.iter().chain(&self.newest).flat_map(|r| (0..r.count).map(move |i| (r.at(i), r.value)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Against a deque of the samples themselves: random runs of a few
    /// values at times mostly a second apart (now and then further, or at
    /// the same millisecond), trimmed by age and by count after each.
    #[test]
    fn holds_the_samples_a_deque_of_them_holds() {
        let mut rng = crate::workload::rng::Rng::seeded(11);
        let values = [[1024.0, 1.0], [2048.0, 1.0], [1024.0, 0.5]];
        for case in 0..500 {
            let (window_ms, max) = (rng.int(0, 9_000), rng.int(1, 12) as usize);
            let mut w = Window::default();
            let mut want: VecDeque<Sample> = VecDeque::new();
            let mut t = 0;
            for _ in 0..80 {
                let value = *rng.pick(&values);
                for _ in 0..rng.int(1, 6) {
                    t += *rng.pick(&[1_000, 1_000, 1_000, 0, 2_500, 7]);
                    w.push(t, value);
                    want.push_back((t, value));
                }
                let oldest = t - window_ms;
                let mut gone: Vec<([f64; 2], usize)> = Vec::new();
                w.trim(oldest, max, |v, n| gone.push((v, n)));
                let mut want_gone = 0;
                while want.front().is_some_and(|(at, _)| *at < oldest) || want.len() > max {
                    want.pop_front();
                    want_gone += 1;
                }
                assert_eq!(w.iter().collect::<Vec<_>>(), want.iter().copied().collect::<Vec<_>>(), "case {case} at {t}");
                assert_eq!(w.len(), want.len(), "case {case} at {t}");
                assert_eq!(w.back(), want.back().copied(), "case {case} at {t}");
                assert_eq!(gone.iter().map(|(_, n)| n).sum::<usize>(), want_gone, "case {case} at {t}");
                let counted: usize = w.runs().map(|(_, n)| n).sum();
                assert_eq!(counted, want.len(), "case {case} at {t}");
            }
        }
    }

    /// A level series is one run however long: evenly spaced equal
    /// samples, trimmed as they age, never leave the inline run.
    #[test]
    fn a_level_series_is_one_run() {
        let mut w = Window::default();
        for t in 0..1_000 {
            w.push(1_000 * t, [512.0, 0.25]);
            w.trim(1_000 * t - 60_000, 60, |_, _| {});
        }
        assert_eq!(w.runs().collect::<Vec<_>>(), vec![([512.0, 0.25], 60)]);
        assert!(w.older.is_empty());
        assert_eq!(w.iter().next(), Some((940_000, [512.0, 0.25])));
    }
}
