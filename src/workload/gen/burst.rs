//! Bursty arrivals: the generated Poisson arrivals re-timed by a rate that
//! changes from one 100 s slot to the next, so that the load per window
//! fluctuates as in production traces while the jobs, their order and the
//! trace's span stay the same.
//!
//! Why: SLearn (NSDI'22) evaluates on 1 250 jobs drawn uniformly from the
//! Google traces, "the average system load is close to 1, though the load
//! fluctuates over time" (Table 5, load per 1 000 s window sliding by 100 s:
//! Google 2011 mean 1.01, P50 0.29, P90 1.49; Google 2019 1.04, 0.09, 0.91).
//! Poisson arrivals at load 1 give P50 ≈ P90 ≈ 1 (`--generate google`: P50
//! 1.02, P90 1.25), which leaves no idle capacity for SLearn's work
//! conservation to hide the sampling delay behind. Each slot's rate
//! multiplier is lognormal with median 1 and the given σ, normalised to mean 1
//! over the trace; σ = 2 gives a window P50 about a third of the mean on the
//! Google-2011-like generator, the paper's ratio (the P90 comes out higher
//! than the paper's: the lognormal's tail is heavier).

use crate::workload::rng::Rng;
use crate::workload::Job;

/// Length of a slot of constant arrival rate.
pub const SLOT_MS: f64 = 100_000.0;

/// Re-time `jobs` (sorted by submission) through the time change
/// t = Λ⁻¹(u), Λ(t) = ∫₀ᵗ m(s) ds: in a slot whose multiplier is m, arrivals
/// are m times as dense as in the Poisson trace. Λ is scaled so the last
/// submission stays where it was.
pub fn modulate(rng: &mut Rng, jobs: &mut [Job], sigma: f64) {
    let span = jobs.iter().map(|j| j.submit_ms).max().unwrap_or(0) as f64;
    if span <= 0.0 || sigma <= 0.0 {
        return;
    }
    let slots = (span / SLOT_MS).ceil().max(1.0) as usize;
    let mut m: Vec<f64> = (0..slots).map(|_| rng.lognormal(1.0, sigma)).collect();
    let mean = m.iter().sum::<f64>() / slots as f64;
    m.iter_mut().for_each(|x| *x /= mean);
    // cum[i] = Λ at the start of slot i, in units where Λ(slots · SLOT) =
    // span (so the mapping keeps the span).
    let total: f64 = m.iter().sum::<f64>() * SLOT_MS;
    let scale = span / total;
    let mut cum = Vec::with_capacity(slots + 1);
    cum.push(0.0);
    for x in &m {
        cum.push(cum.last().unwrap() + x * SLOT_MS * scale);
    }
    for j in jobs.iter_mut() {
        let u = j.submit_ms as f64;
        let i = cum.partition_point(|c| *c <= u).saturating_sub(1).min(slots - 1);
        let t = i as f64 * SLOT_MS + (u - cum[i]) / (m[i] * scale);
        j.submit_ms = t.min(slots as f64 * SLOT_MS) as i64;
    }
    jobs.sort_by_key(|j| j.submit_ms);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::gen::{generate, GenParams};

    /// The same jobs in the same order over the same span, with arrivals
    /// crowded into some slots: the per-slot counts vary far more than a
    /// Poisson trace's.
    #[test]
    fn same_jobs_same_order_and_span_but_bursty() {
        let p = GenParams { seed: 3, ..GenParams::default() };
        let poisson = generate("google", &p).unwrap();
        let bursty = generate("google", &GenParams { burst: Some(2.0), ..p }).unwrap();
        let ids = |t: &crate::workload::Trace| t.jobs.iter().map(|j| j.id.clone()).collect::<Vec<_>>();
        assert_eq!(ids(&poisson), ids(&bursty));
        let last = |t: &crate::workload::Trace| t.jobs.iter().map(|j| j.submit_ms).max().unwrap();
        assert!((last(&bursty) - last(&poisson)).abs() <= SLOT_MS as i64, "{} vs {}", last(&bursty), last(&poisson));
        let spread = |t: &crate::workload::Trace| {
            let mut counts = vec![0f64; (last(t) as f64 / SLOT_MS) as usize + 1];
            t.jobs.iter().for_each(|j| counts[(j.submit_ms as f64 / SLOT_MS) as usize] += 1.0);
            let mean = counts.iter().sum::<f64>() / counts.len() as f64;
            (counts.iter().map(|c| (c - mean).powi(2)).sum::<f64>() / counts.len() as f64).sqrt() / mean
        };
        assert!(spread(&bursty) > 2.0 * spread(&poisson), "{} vs {}", spread(&bursty), spread(&poisson));
    }
}
