//! Per-node load estimates from the utilization series, by ROSE's Load
//! Level Approximation (Sun et al., Algorithm 1): split the window into k
//! segments, take each segment's mean without Tukey outliers, then follow
//! the trend if the segment means are monotone, else take their
//! outlier-free mean. The sidecar pushes the result to the engine, where
//! ROSE's over-subscription reads it (`Node::load_estimate_at`).

/// Tukey's fence factor ("customarily 1.5").
const FENCE: f64 = 1.5;

fn monotone(d: &[f64]) -> bool {
    d.windows(2).all(|w| w[0] <= w[1]) || d.windows(2).all(|w| w[0] >= w[1])
}

fn quartile(sorted: &[f64], q: f64) -> f64 {
    // Linear interpolation between closest ranks.
    let pos = q * (sorted.len() - 1) as f64;
    let (lo, hi) = (pos.floor() as usize, pos.ceil() as usize);
    sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo as f64)
}

/// `eliminateOutlierMean`: the mean of the values within
/// [Q1 − 1.5·IQR, Q3 + 1.5·IQR].
pub fn outlier_free_mean(values: &[f64]) -> Option<f64> {
    if values.is_empty() {
        return None;
    }
    let mut s = values.to_vec();
    s.sort_by(f64::total_cmp);
    let (q1, q3) = (quartile(&s, 0.25), quartile(&s, 0.75));
    let iqr = q3 - q1;
    let kept: Vec<f64> = s.into_iter().filter(|d| *d >= q1 - FENCE * iqr && *d <= q3 + FENCE * iqr).collect();
    Some(kept.iter().sum::<f64>() / kept.len() as f64)
}

/// LLA over a node metric's recent trace `d` with `k` segments.
pub fn lla(d: &[f64], k: usize) -> Option<f64> {
    if d.is_empty() || k == 0 {
        return None;
    }
    if monotone(d) {
        return d.last().copied();
    }
    if d.len() <= k {
        return outlier_free_mean(d);
    }
    let per = d.len().div_ceil(k);
    let means: Vec<f64> = d.chunks(per).filter_map(outlier_free_mean).collect();
    if monotone(&means) {
        means.last().copied()
    } else {
        outlier_free_mean(&means)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn follows_a_trend_and_ignores_spikes() {
        assert_eq!(lla(&[1.0, 2.0, 3.0, 4.0], 5), Some(4.0), "monotone trace: its last value");
        assert_eq!(lla(&[], 5), None);
        // Flat load with one spike: the spike is an outlier in its segment.
        let mut d = vec![10.0; 20];
        d[7] = 1000.0;
        d[12] = 9.0;
        let v = lla(&d, 5).unwrap();
        assert!((v - 10.0).abs() < 0.5, "{v}");
        // Rising segments (noisy inside): the last segment's mean.
        let d = [1.0, 3.0, 2.0, 5.0, 7.0, 6.0, 9.0, 11.0, 10.0];
        assert_eq!(lla(&d, 3), Some(10.0));
    }

    #[test]
    fn tukey_mean() {
        assert_eq!(outlier_free_mean(&[1.0, 1.0, 1.0, 1.0, 100.0]), Some(1.0));
        assert_eq!(outlier_free_mean(&[2.0, 4.0]), Some(3.0));
    }
}
