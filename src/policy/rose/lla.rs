//! Load Level Approximation (ROSE Algorithm 1): one number for "how loaded
//! is this node" from a window of utilization samples, robust to spikes
//! (Tukey-fenced means) and following a trend (a monotone series gives its
//! newest value).

use crate::metrics::stats::quantile_interpolated;

/// Algorithm 1 over `d` (oldest first) with `k` segments and a Tukey fence
/// of `fence` IQRs (paper: k = 5, 1.5). `None` for an empty series.
pub fn lla(d: &[f64], k: usize, fence: f64) -> Option<f64> {
    let last = *d.last()?;
    // Lines 1–2: a monotone series is a trend; its newest value is the level.
    if is_monotone(d) {
        return Some(last);
    }
    // Lines 3–4: too few samples to segment.
    if d.len() <= k {
        return fenced_mean(d, fence);
    }
    // Lines 5–9: consecutive segments of ⌈|D|/k⌉ samples (the last one
    // may be shorter; with |D| not a multiple of the size there may be
    // fewer than k).
    let size = d.len().div_ceil(k.max(1));
    // Line 10: D′, the fenced mean of each segment.
    let means: Vec<f64> = d.chunks(size).filter_map(|s| fenced_mean(s, fence)).collect();
    // Lines 11–14: a monotone D′ is a trend (its last element), else the
    // fenced mean of D′.
    if is_monotone(&means) {
        means.last().copied()
    } else {
        fenced_mean(&means, fence)
    }
}

/// Non-decreasing or non-increasing (a constant series is both).
pub fn is_monotone(d: &[f64]) -> bool {
    let up = d.windows(2).all(|w| w[0] <= w[1]);
    let down = d.windows(2).all(|w| w[0] >= w[1]);
    up || down
}

/// `eliminateOutlierMean`: the mean of the values inside
/// [Q1 − fence·IQR, Q3 + fence·IQR]. Quartiles by linear interpolation
/// between order statistics (Hyndman–Fan type 7, numpy's default); the
/// paper does not say which estimator it uses.
pub fn fenced_mean(d: &[f64], fence: f64) -> Option<f64> {
    if d.is_empty() {
        return None;
    }
    let mut s = d.to_vec();
    s.sort_by(|a, b| a.total_cmp(b));
    let (q1, q3) = (quantile_interpolated(&s, 0.25), quantile_interpolated(&s, 0.75));
    let iqr = q3 - q1;
    let (lo, hi) = (q1 - fence * iqr, q3 + fence * iqr);
    // The mean of the kept values, summed in the same (sorted) order as a
    // collected copy would be, without the copy. The quartiles themselves
    // are inside the fence, so at least one value is kept.
    let kept = || s.iter().copied().filter(|v| *v >= lo && *v <= hi);
    Some(kept().sum::<f64>() / kept().count() as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-9
    }

    #[test]
    fn monotone_series_gives_its_newest_value() {
        assert_eq!(lla(&[10.0, 20.0, 20.0, 35.0, 50.0, 51.0, 60.0], 5, 1.5), Some(60.0));
        assert_eq!(lla(&[9.0, 7.0, 3.0], 5, 1.5), Some(3.0));
        assert_eq!(lla(&[4.0], 5, 1.5), Some(4.0));
        assert_eq!(lla(&[], 5, 1.5), None);
    }

    #[test]
    fn fewer_than_k_samples_take_the_fenced_mean() {
        // 10, 50, 20, 30 (not monotone, 4 ≤ k = 5): sorted 10 20 30 50,
        // Q1 = 17.5, Q3 = 35, IQR = 17.5, fence [−8.75, 61.25]: all kept,
        // mean 27.5.
        assert!(close(lla(&[10.0, 50.0, 20.0, 30.0], 5, 1.5).unwrap(), 27.5));
    }

    #[test]
    fn an_outlier_is_fenced_out() {
        // 10 10 11 10 100 (n = 5): sorted 10 10 10 11 100, Q1 = 10, Q3 = 11,
        // IQR = 1, fence [8.5, 12.5]: 100 dropped, mean of 10 10 10 11 = 10.25.
        assert!(close(fenced_mean(&[10.0, 10.0, 11.0, 10.0, 100.0], 1.5).unwrap(), 10.25));
        assert!(close(lla(&[10.0, 10.0, 11.0, 10.0, 100.0], 5, 1.5).unwrap(), 10.25));
    }

    #[test]
    fn segments_with_a_rising_trend_give_the_last_segment() {
        // 10 samples, k = 5: segments of 2: (10,12) (11,15) (16,14) (20,18)
        // (22,24): means 11, 13, 15, 19, 23 — monotone — so 23, although
        // the raw series is not monotone.
        let d = [10.0, 12.0, 11.0, 15.0, 16.0, 14.0, 20.0, 18.0, 22.0, 24.0];
        assert!(!is_monotone(&d));
        assert!(close(lla(&d, 5, 1.5).unwrap(), 23.0));
    }

    #[test]
    fn segments_without_a_trend_give_the_fenced_mean_of_segment_means() {
        // Segments of 2: (30,32) (10,12) (31,29) (30,30) (90,92): means 31,
        // 11, 30, 30, 91 — not monotone. Sorted 11 30 30 31 91: Q1 = 30,
        // Q3 = 31, IQR = 1, fence [28.5, 32.5]: 11 and 91 dropped → (30 +
        // 30 + 31) / 3 = 30.333…
        let d = [30.0, 32.0, 10.0, 12.0, 31.0, 29.0, 30.0, 30.0, 90.0, 92.0];
        assert!(close(lla(&d, 5, 1.5).unwrap(), 91.0 / 3.0));
    }

    #[test]
    fn uneven_lengths_make_a_shorter_last_segment() {
        // 7 samples, k = 5: ⌈7/5⌉ = 2: (5,9) (5,9) (5,9) (5): means 7 7 7 5
        // — non-increasing, monotone — so 5.
        let d = [5.0, 9.0, 5.0, 9.0, 5.0, 9.0, 5.0];
        assert!(close(lla(&d, 5, 1.5).unwrap(), 5.0));
    }
}
