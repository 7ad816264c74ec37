//! Jain's fairness index over fixed windows (60 s in Carbyne §5): for the
//! jobs present in a window (submitted before its end, finished after its
//! start), x_j is job j's time-averaged dominant share while present divided
//! by its max-min fair share in that window, and
//! J = (Σ x_j)² / (n · Σ x_j²). A job that waits with nothing allocated
//! counts as x_j = 0; one given exactly its fair share as 1.

use serde::{Deserialize, Serialize};

/// One job's allocation history, folded into per-window integrals as it runs.
#[derive(Debug, Clone, Default)]
pub struct ShareTrack {
    share: f64,
    last_ms: i64,
    /// (window, ∫ dominant share dt) for windows with a non-zero integral.
    windows: Vec<(u32, f64)>,
}

impl ShareTrack {
    pub fn new(submit_ms: i64) -> ShareTrack {
        ShareTrack { share: 0.0, last_ms: submit_ms, windows: Vec::new() }
    }

    pub fn advance(&mut self, t: i64, window_ms: i64) {
        while self.last_ms < t {
            let w = self.last_ms / window_ms;
            let end = ((w + 1) * window_ms).min(t);
            if self.share > 0.0 {
                let v = self.share * (end - self.last_ms) as f64;
                match self.windows.last_mut() {
                    Some((lw, acc)) if *lw as i64 == w => *acc += v,
                    _ => self.windows.push((w as u32, v)),
                }
            }
            self.last_ms = end;
        }
    }

    pub fn set(&mut self, t: i64, share: f64, window_ms: i64) {
        self.advance(t, window_ms);
        self.share = share;
    }

    /// ∫ dominant share dt (share × ms) integrated so far in window `w`.
    pub fn integral(&self, w: i64) -> f64 {
        self.windows.iter().find(|(tw, _)| *tw as i64 == w).map_or(0.0, |(_, v)| *v)
    }
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Fairness {
    pub windows: usize,
    pub mean: f64,
    pub min: f64,
    pub max: f64,
}

/// One finished job as the fairness computation sees it.
pub struct JobShares<'a> {
    pub submit_ms: i64,
    pub finish_ms: i64,
    /// Dominant share of the job's peak demand (what it could use at once).
    pub demand: f64,
    pub track: &'a ShareTrack,
}

/// Max-min fair shares (progressive filling) of a unit resource among
/// jobs with the given demands.
pub fn water_fill(demands: &[f64]) -> Vec<f64> {
    let mut order: Vec<usize> = (0..demands.len()).collect();
    order.sort_by(|a, b| demands[*a].total_cmp(&demands[*b]));
    let mut out = vec![0.0; demands.len()];
    let mut left = 1.0f64;
    for (k, i) in order.iter().enumerate() {
        let equal = left / (order.len() - k) as f64;
        let give = demands[*i].min(equal).max(0.0);
        out[*i] = give;
        left -= give;
    }
    out
}

/// Per-window Jain's index. x_j is job j's time-averaged dominant share
/// while present in the window, normalised by its max-min fair share
/// (progressive filling of the jobs' peak demands among the jobs present),
/// so a job that gets all it can use counts as fully served.
pub fn jain_per_window(jobs: &[JobShares], window_ms: i64) -> Vec<(i64, f64)> {
    let Some(end) = jobs.iter().map(|j| j.finish_ms).max() else { return vec![] };
    let n_windows = (end / window_ms + 1) as usize;
    // Per window: (average share, demand) of each job present.
    let mut present: Vec<Vec<(f64, f64)>> = vec![Vec::new(); n_windows];
    for j in jobs {
        let (first, last) = (j.submit_ms / window_ms, (j.finish_ms - 1).max(j.submit_ms) / window_ms);
        let mut it = j.track.windows.iter().peekable();
        for w in first..=last {
            let lo = (w * window_ms).max(j.submit_ms);
            let hi = ((w + 1) * window_ms).min(j.finish_ms);
            if hi <= lo {
                continue;
            }
            let mut integral = 0.0;
            while let Some((tw, v)) = it.peek() {
                if (*tw as i64) < w {
                    it.next();
                } else {
                    if *tw as i64 == w {
                        integral = *v;
                    }
                    break;
                }
            }
            present[w as usize].push((integral / (hi - lo) as f64, j.demand));
        }
    }
    present
        .iter()
        .enumerate()
        .filter(|(_, p)| !p.is_empty())
        .filter_map(|(w, p)| jain_of_window(p).map(|j| (w as i64 * window_ms, j)))
        .collect()
}

/// Jain's index of one window from the (time-averaged dominant share,
/// demand) of each entity present: x = share ÷ max-min fair share
/// (progressive filling of the demands), J = (Σx)² / (n·Σx²). `None` when
/// nothing is present or every present entity holds nothing (J undefined).
pub fn jain_of_window(present: &[(f64, f64)]) -> Option<f64> {
    let demands: Vec<f64> = present.iter().map(|(_, d)| *d).collect();
    let fair = water_fill(&demands);
    let xs: Vec<f64> = present.iter().zip(&fair).map(|((s, _), f)| if *f > 0.0 { s / f } else { 1.0 }).collect();
    let (sum, sq) = xs.iter().fold((0.0, 0.0), |(a, b), x| (a + x, b + x * x));
    (sq > 0.0).then(|| sum * sum / (xs.len() as f64 * sq))
}

/// `v` sorted, intervals that overlap or touch merged.
pub fn merge_intervals(mut v: Vec<(i64, i64)>) -> Vec<(i64, i64)> {
    v.sort();
    let mut out: Vec<(i64, i64)> = Vec::new();
    for (a, b) in v {
        match out.last_mut() {
            Some((_, e)) if a <= *e => *e = (*e).max(b),
            _ => out.push((a, b)),
        }
    }
    out
}

/// How much of [lo, hi) the disjoint `intervals` cover, ms.
pub fn covered(intervals: &[(i64, i64)], lo: i64, hi: i64) -> i64 {
    intervals.iter().map(|(a, b)| ((*b).min(hi) - (*a).max(lo)).max(0)).sum()
}

/// Per-window Jain's index across entities that are each owed an equal
/// part of the cluster whatever they ask (users, queues; demand unbounded,
/// so each present one's max-min fair share is 1/n): an entity is present
/// in a window while its `presence` (merged intervals) covers it, and x is
/// its dominant share (its `ShareTrack`, advanced to `end`) averaged over
/// that time. Times from the run's origin; windows of `window_ms` up to
/// `end`. What `yarn-report` prints as Jain (users), and the simulator
/// beside its per-job index.
pub fn jain_across(entities: &[(Vec<(i64, i64)>, &ShareTrack)], end: i64, window_ms: i64) -> Vec<(i64, f64)> {
    let mut out = Vec::new();
    let mut w = 0;
    while w * window_ms < end {
        let (lo, hi) = (w * window_ms, ((w + 1) * window_ms).min(end));
        let present: Vec<(f64, f64)> = entities
            .iter()
            .filter_map(|(iv, track)| {
                let len = covered(iv, lo, hi);
                (len > 0).then(|| (track.integral(w) / len as f64, 1.0))
            })
            .collect();
        if let Some(j) = jain_of_window(&present) {
            out.push((lo, j));
        }
        w += 1;
    }
    out
}

pub fn summarize(per_window: &[(i64, f64)]) -> Fairness {
    if per_window.is_empty() {
        return Fairness::default();
    }
    let v: Vec<f64> = per_window.iter().map(|(_, j)| *j).collect();
    Fairness {
        windows: v.len(),
        mean: super::stats::mean(&v),
        min: v.iter().copied().fold(f64::INFINITY, f64::min),
        max: v.iter().copied().fold(f64::NEG_INFINITY, f64::max),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_shares_are_fair_and_starvation_is_not() {
        let mut a = ShareTrack::new(0);
        let mut b = ShareTrack::new(0);
        a.set(0, 0.5, 60_000);
        b.set(0, 0.5, 60_000);
        a.advance(60_000, 60_000);
        b.advance(60_000, 60_000);
        fn js(t: &ShareTrack, demand: f64) -> JobShares<'_> {
            JobShares { submit_ms: 0, finish_ms: 60_000, demand, track: t }
        }
        let j = jain_per_window(&[js(&a, 1.0), js(&b, 1.0)], 60_000);
        assert_eq!(j, vec![(0, 1.0)]);
        let c = ShareTrack::new(0);
        let j = jain_per_window(&[js(&a, 1.0), js(&c, 1.0)], 60_000);
        assert_eq!(j, vec![(0, 0.5)]);
        // A job given all it can use is fully served, not under-served.
        let mut small = ShareTrack::new(0);
        small.set(0, 0.1, 60_000);
        small.advance(60_000, 60_000);
        let mut big = ShareTrack::new(0);
        big.set(0, 0.9, 60_000);
        big.advance(60_000, 60_000);
        let j = jain_per_window(&[js(&small, 0.1), js(&big, 1.0)], 60_000);
        assert!((j[0].1 - 1.0).abs() < 1e-12, "{j:?}");
        assert_eq!(water_fill(&[0.1, 1.0, 1.0]), vec![0.1, 0.45, 0.45]);
    }

    /// Across users each is owed 1/n whatever it asks: 3/4 against 1/4 of
    /// the cluster is x = 1.5 and 0.5, J = 2² / (2 · 2.5) = 0.8, even when
    /// the second could not use more. A user present for half a window is
    /// judged by its share while present; one present in no window is not
    /// counted; a window nobody holds anything in has no index.
    #[test]
    fn users_are_owed_equal_parts_while_present() {
        let track = |share: f64, from: i64, until: i64| {
            let mut t = ShareTrack::new(0);
            t.set(from, share, 60_000);
            t.set(until, 0.0, 60_000);
            t.advance(180_000, 60_000);
            t
        };
        let (a, b) = (track(0.75, 0, 60_000), track(0.25, 0, 60_000));
        let j = jain_across(&[(vec![(0, 60_000)], &a), (vec![(0, 60_000)], &b)], 60_000, 60_000);
        assert_eq!(j.len(), 1);
        assert!((j[0].1 - 0.8).abs() < 1e-12, "{j:?}");
        // B holds 1/4 for the 30 s it is present: the same x.
        let half = track(0.25, 0, 30_000);
        let j = jain_across(&[(vec![(0, 60_000)], &a), (vec![(0, 30_000)], &half)], 60_000, 60_000);
        assert!((j[0].1 - 0.8).abs() < 1e-12, "{j:?}");
        // In the second window only A is present (J = 1), in the third
        // nobody holds anything (no index).
        let a2 = track(0.75, 0, 120_000);
        let j = jain_across(
            &[(vec![(0, 120_000)], &a2), (vec![(0, 60_000)], &b), (vec![(120_000, 180_000)], &ShareTrack::new(0))],
            180_000,
            60_000,
        );
        assert_eq!(j.iter().map(|(w, _)| *w).collect::<Vec<_>>(), vec![0, 60_000]);
        assert!((j[1].1 - 1.0).abs() < 1e-12, "{j:?}");
        assert_eq!(merge_intervals(vec![(5, 9), (0, 3), (3, 4), (8, 12)]), vec![(0, 4), (5, 12)]);
        assert_eq!(covered(&[(0, 4), (5, 12)], 2, 10), 7);
    }
}
