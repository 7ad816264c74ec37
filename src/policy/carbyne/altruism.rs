//! P(Altruism) (§3.4): "with what probability a job will yield its
//! resources during any scheduling event" — a failsafe against jobs being
//! punished for altruism again and again. Each time a job's plan is
//! recomputed (a scheduling event that concerns it) it draws once: below
//! P it plans altruistically, otherwise it asks greedily (every task
//! DEFAULT), as under DRF. The draw is a hash of (seed, app, draw number),
//! so simulations stay reproducible.

use crate::model::AppId;

/// SplitMix64's output function (Steele et al., OOPSLA'14).
fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// Uniform in [0, 1) from (seed, app, n).
pub fn draw(seed: u64, app: AppId, n: u64) -> f64 {
    let h = mix(mix(seed ^ mix(app as u64)) ^ n);
    (h >> 11) as f64 / (1u64 << 53) as f64
}

/// Whether the job yields at its `n`-th scheduling event. P = 1 always
/// (no draw needed), P = 0 never.
pub fn yields(p: f64, seed: u64, app: AppId, n: u64) -> bool {
    p >= 1.0 || (p > 0.0 && draw(seed, app, n) < p)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn draws_are_uniform_enough_and_reproducible() {
        let n = 20_000;
        let hits = (0..n).filter(|i| yields(0.5, 7, (i % 97) as u32, *i as u64)).count();
        // Binomial(20000, 0.5): 5 standard deviations are ±354.
        assert!((hits as i64 - 10_000).abs() < 354, "{hits}");
        assert_eq!(draw(1, 2, 3), draw(1, 2, 3));
        assert!((0..1000).all(|i| yields(1.0, 0, 1, i)) && !(0..1000).any(|i| yields(0.0, 0, 1, i)));
    }
}
