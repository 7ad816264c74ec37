//! The one place Shepherd computes means, medians, percentiles and
//! quantiles: the simulator's and the harness's reports, the benchmarks and
//! the policies (ROSE, SLearn, the history estimator) all call these.
//!
//! Percentiles are nearest-rank ([`percentile`], as the papers' CDFs read)
//! unless a caller's number has always been defined otherwise and is named
//! so here: [`rounded_rank`] (the benchmarks' and the allocation-latency
//! tails) and [`quantile_interpolated`] (ROSE's load quantiles, type 7).

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Dist {
    pub count: usize,
    pub mean: f64,
    pub p50: f64,
    pub p95: f64,
    pub max: f64,
}

impl Dist {
    pub fn of(values: &[f64]) -> Dist {
        if values.is_empty() {
            return Dist::default();
        }
        let mut v = values.to_vec();
        v.sort_by(f64::total_cmp);
        Dist {
            count: v.len(),
            mean: v.iter().sum::<f64>() / v.len() as f64,
            p50: percentile(&v, 50.0),
            p95: percentile(&v, 95.0),
            max: v[v.len() - 1],
        }
    }
}

/// Nearest-rank percentile of sorted values.
pub fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let rank = ((p / 100.0) * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

/// Nearest-rank percentile `p` (0–100) of unsorted values (sorted in a copy).
pub fn percentile_of(values: &[f64], p: f64) -> f64 {
    let mut v = values.to_vec();
    v.sort_by(f64::total_cmp);
    percentile(&v, p)
}

/// Arithmetic mean; NaN for no values (the caller says what none means).
pub fn mean(values: &[f64]) -> f64 {
    values.iter().sum::<f64>() / values.len() as f64
}

/// Median of sorted values: the middle one, or the mean of the two middle
/// ones for an even count. `None` for no values.
pub fn median_sorted(sorted: &[f64]) -> Option<f64> {
    let n = sorted.len();
    match n {
        0 => None,
        _ if n % 2 == 1 => Some(sorted[n / 2]),
        _ => Some((sorted[n / 2 - 1] + sorted[n / 2]) / 2.0),
    }
}

/// Median of unsorted values (sorted in a copy), as [`median_sorted`].
pub fn median(values: &[f64]) -> Option<f64> {
    let mut v = values.to_vec();
    v.sort_by(f64::total_cmp);
    median_sorted(&v)
}

/// Index of quantile `q` (0–1) among `n` sorted samples, by rounding
/// `q × (n − 1)`: the benchmarks' decision-time tails and the simulator's
/// allocation-latency percentiles are defined this way. `n` must be > 0.
pub fn rounded_rank(n: usize, q: f64) -> usize {
    ((q * (n - 1) as f64).round() as usize).min(n - 1)
}

/// Quantile `q` (0–1) of sorted values, interpolated linearly between the
/// two nearest ranks (Hyndman and Fan's type 7). `sorted` must be non-empty.
pub fn quantile_interpolated(sorted: &[f64], q: f64) -> f64 {
    let h = (sorted.len() - 1) as f64 * q;
    let (i, f) = (h.floor() as usize, h - h.floor());
    if i + 1 < sorted.len() {
        sorted[i] + f * (sorted[i + 1] - sorted[i])
    } else {
        sorted[i]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_rank() {
        let d = Dist::of(&[4.0, 1.0, 3.0, 2.0]);
        assert_eq!(d.mean, 2.5);
        assert_eq!(d.p50, 2.0);
        assert_eq!(d.p95, 4.0);
    }

    #[test]
    fn medians_quantiles_and_ranks() {
        assert_eq!(median(&[3.0, 1.0, 2.0]), Some(2.0));
        assert_eq!(median(&[4.0, 1.0]), Some(2.5));
        assert_eq!(median(&[]), None);
        assert!(mean(&[]).is_nan());
        assert_eq!(mean(&[1.0, 2.0]), 1.5);
        assert_eq!(quantile_interpolated(&[0.0, 10.0], 0.25), 2.5);
        assert_eq!(quantile_interpolated(&[5.0], 0.9), 5.0);
        assert_eq!(rounded_rank(5000, 0.99), 4949);
        assert_eq!(rounded_rank(1, 0.5), 0);
        assert_eq!(percentile_of(&[3.0, 1.0, 2.0], 50.0), 2.0);
    }
}
