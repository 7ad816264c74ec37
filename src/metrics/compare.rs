//! Factors of improvement against a baseline, as Carbyne Tables 3–4 print
//! them: baseline ÷ candidate for completion times and makespan (> 1 means
//! the candidate is better), and candidate ÷ baseline for Jain's index
//! (> 1 means fairer). Per-job speedup = baseline JCT ÷ candidate JCT.

use super::jobs::JobRecord;
use super::stats::Dist;
use super::summary::{CategorySummary, Summary};
use serde::Serialize;
use std::collections::HashMap;

#[derive(Debug, Clone, Serialize)]
pub struct Factors {
    pub policy: String,
    pub category: String,
    pub jobs: usize,
    pub mean_jct: f64,
    pub p50_jct: f64,
    pub p95_jct: f64,
    pub makespan: f64,
    /// Candidate ÷ baseline Jain's index (all jobs only).
    pub fairness: Option<f64>,
}

/// `a ÷ b`, with 0 ÷ 0 = 1 and x ÷ 0 = ∞ (so a zero time never divides by zero).
pub fn ratio(a: f64, b: f64) -> f64 {
    if b > 0.0 {
        a / b
    } else if a > 0.0 {
        f64::INFINITY
    } else {
        1.0
    }
}

pub fn factors(policy: &str, category: &str, base: &CategorySummary, cand: &CategorySummary, fair: Option<(f64, f64)>) -> Factors {
    Factors {
        policy: policy.to_string(),
        category: category.to_string(),
        jobs: cand.jobs,
        mean_jct: ratio(base.jct_ms.mean, cand.jct_ms.mean),
        p50_jct: ratio(base.jct_ms.p50, cand.jct_ms.p50),
        p95_jct: ratio(base.jct_ms.p95, cand.jct_ms.p95),
        makespan: ratio(base.makespan_ms as f64, cand.makespan_ms as f64),
        fairness: fair.map(|(b, c)| ratio(c, b)),
    }
}

/// Rows for "all" and for every category both runs have.
pub fn table(base: &Summary, cand: &Summary) -> Vec<Factors> {
    let mut rows = vec![factors(&cand.policy, "all", &base.all, &cand.all, Some((base.fairness.mean, cand.fairness.mean)))];
    for (cat, c) in &cand.categories {
        if let Some(b) = base.categories.get(cat) {
            rows.push(factors(&cand.policy, cat, b, c, None));
        }
    }
    rows
}

/// Per-job speedups of `cand` over `base`, matched by job id.
pub fn speedups(base: &[JobRecord], cand: &[JobRecord]) -> Vec<(String, f64)> {
    let by_id: HashMap<&str, &JobRecord> = base.iter().map(|j| (j.id.as_str(), j)).collect();
    cand.iter()
        .filter_map(|c| by_id.get(c.id.as_str()).map(|b| (c.id.clone(), ratio(b.jct_ms() as f64, c.jct_ms() as f64))))
        .collect()
}

#[derive(Debug, Clone, Serialize)]
pub struct SpeedupSummary {
    pub policy: String,
    pub speedup: Dist,
    /// Share of jobs the candidate slowed down (speedup < 1).
    pub slowed: f64,
}

pub fn speedup_summary(policy: &str, s: &[(String, f64)]) -> SpeedupSummary {
    let v: Vec<f64> = s.iter().map(|(_, x)| *x).filter(|x| x.is_finite()).collect();
    let slowed = v.iter().filter(|x| **x < 1.0).count() as f64 / v.len().max(1) as f64;
    SpeedupSummary { policy: policy.to_string(), speedup: Dist::of(&v), slowed }
}
