//! Jain's fairness index over fixed windows (60 s in Carbyne §5): for the
//! jobs present in a window (submitted before its end, finished after its
//! start), x_j is job j's time-averaged dominant share while present, and
//! J = (Σ x_j)² / (n · Σ x_j²). A job that waits with nothing allocated
//! counts as x_j = 0.

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
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Fairness {
    pub windows: usize,
    pub mean: f64,
    pub min: f64,
    pub max: f64,
}

/// Per-window Jain's index from each job's (submit, finish, track).
pub fn jain_per_window(jobs: &[(i64, i64, &ShareTrack)], window_ms: i64) -> Vec<(i64, f64)> {
    let Some(end) = jobs.iter().map(|j| j.1).max() else { return vec![] };
    let n_windows = (end / window_ms + 1) as usize;
    // (Σx, Σx², n) per window.
    let mut acc = vec![(0.0f64, 0.0f64, 0u32); n_windows];
    for (submit, finish, track) in jobs {
        let (first, last) = (submit / window_ms, (finish - 1).max(*submit) / window_ms);
        let mut it = track.windows.iter().peekable();
        for w in first..=last {
            let lo = (w * window_ms).max(*submit);
            let hi = ((w + 1) * window_ms).min(*finish);
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
            let x = integral / (hi - lo) as f64;
            let a = &mut acc[w as usize];
            a.0 += x;
            a.1 += x * x;
            a.2 += 1;
        }
    }
    acc.iter()
        .enumerate()
        .filter(|(_, a)| a.2 > 0 && a.1 > 0.0)
        .map(|(w, a)| (w as i64 * window_ms, a.0 * a.0 / (a.2 as f64 * a.1)))
        .collect()
}

pub fn summarize(per_window: &[(i64, f64)]) -> Fairness {
    if per_window.is_empty() {
        return Fairness::default();
    }
    let v: Vec<f64> = per_window.iter().map(|(_, j)| *j).collect();
    Fairness {
        windows: v.len(),
        mean: v.iter().sum::<f64>() / v.len() as f64,
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
        let j = jain_per_window(&[(0, 60_000, &a), (0, 60_000, &b)], 60_000);
        assert_eq!(j, vec![(0, 1.0)]);
        let c = ShareTrack::new(0);
        let j = jain_per_window(&[(0, 60_000, &a), (0, 60_000, &c)], 60_000);
        assert_eq!(j, vec![(0, 0.5)]);
    }
}
