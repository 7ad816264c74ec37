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
    cand.iter().filter_map(|c| by_id.get(c.id.as_str()).map(|b| (c.id.clone(), ratio(b.jct_ms() as f64, c.jct_ms() as f64)))).collect()
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

/// Median, minimum and maximum of one figure over several seeds (the median
/// of an even count is the mean of the two middle values).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Spread {
    pub median: f64,
    pub min: f64,
    pub max: f64,
}

impl Spread {
    pub fn of(values: &[f64]) -> Spread {
        let mut v: Vec<f64> = values.to_vec();
        v.sort_by(f64::total_cmp);
        let n = v.len();
        match super::stats::median_sorted(&v) {
            None => Spread { median: f64::NAN, min: f64::NAN, max: f64::NAN },
            Some(median) => Spread { median, min: v[0], max: v[n - 1] },
        }
    }
}

/// One (policy, category) row of a comparison repeated over seeds: the
/// per-seed factors summarized, plus the per-seed change of mean JCT and
/// makespan (candidate ÷ baseline − 1; negative = lower than the baseline).
#[derive(Debug, Clone, Serialize)]
pub struct SeedRow {
    pub policy: String,
    pub category: String,
    /// Seeds whose workload had jobs of this category.
    pub seeds: usize,
    pub jobs: Spread,
    pub mean_jct: Spread,
    pub p50_jct: Spread,
    pub p95_jct: Spread,
    pub makespan: Spread,
    pub mean_jct_change: Spread,
    pub makespan_change: Spread,
    /// Baseline mean JCT ÷ mean critical path of the same jobs: the mean-JCT
    /// factor a policy would reach if every job of the category ran at its
    /// critical path from submission. An upper bound for any policy.
    pub ideal_mean_jct: Option<Spread>,
    /// The same as a change of mean JCT (1 ÷ factor − 1, per seed).
    pub ideal_mean_jct_change: Option<Spread>,
}

/// Baseline mean JCT ÷ mean critical path, for "all" and per category of
/// the baseline's jobs (`critical_ms` by job id; jobs missing from it are
/// left out).
pub fn ideal_factors(base: &[JobRecord], critical_ms: &HashMap<String, i64>) -> Vec<(String, f64)> {
    let mut cats: Vec<String> = vec!["all".to_string()];
    for j in base {
        if !cats.contains(&j.category) {
            cats.push(j.category.clone());
        }
    }
    cats.into_iter()
        .filter_map(|cat| {
            let (mut jct, mut cp, mut n) = (0.0, 0.0, 0usize);
            for j in base.iter().filter(|j| cat == "all" || j.category == cat) {
                if let Some(c) = critical_ms.get(&j.id) {
                    jct += j.jct_ms() as f64;
                    cp += *c as f64;
                    n += 1;
                }
            }
            (n > 0).then(|| (cat, ratio(jct, cp)))
        })
        .collect()
}

/// Summarize per-seed factor tables (`per_seed[i]` = the rows of seed i,
/// `ideal[i]` = its `ideal_factors`) into one row per (policy, category),
/// in the order they first appear.
pub fn over_seeds(per_seed: &[Vec<Factors>], ideal: &[Vec<(String, f64)>]) -> Vec<SeedRow> {
    let mut keys: Vec<(String, String)> = Vec::new();
    for rows in per_seed {
        for r in rows {
            let k = (r.policy.clone(), r.category.clone());
            if !keys.contains(&k) {
                keys.push(k);
            }
        }
    }
    keys.into_iter()
        .map(|(policy, category)| {
            let rows: Vec<&Factors> =
                per_seed.iter().flat_map(|rs| rs.iter().filter(|r| r.policy == policy && r.category == category)).collect();
            let col = |f: &dyn Fn(&Factors) -> f64| Spread::of(&rows.iter().map(|r| f(r)).collect::<Vec<_>>());
            let ideal_vals: Vec<f64> = ideal.iter().flat_map(|v| v.iter().filter(|(c, _)| *c == category).map(|(_, x)| *x)).collect();
            SeedRow {
                seeds: rows.len(),
                jobs: col(&|r| r.jobs as f64),
                mean_jct: col(&|r| r.mean_jct),
                p50_jct: col(&|r| r.p50_jct),
                p95_jct: col(&|r| r.p95_jct),
                makespan: col(&|r| r.makespan),
                mean_jct_change: col(&|r| 1.0 / r.mean_jct - 1.0),
                makespan_change: col(&|r| 1.0 / r.makespan - 1.0),
                ideal_mean_jct: (!ideal_vals.is_empty()).then(|| Spread::of(&ideal_vals)),
                ideal_mean_jct_change: (!ideal_vals.is_empty())
                    .then(|| Spread::of(&ideal_vals.iter().map(|x| 1.0 / x - 1.0).collect::<Vec<_>>())),
                policy,
                category,
            }
        })
        .collect()
}

/// One policy's estimation errors on one seed: P50 over all jobs with a
/// prediction, and over the `wide` jobs (SLearn §4.3 reports wide jobs,
/// the only ones it samples), with the share of jobs that had a prediction.
#[derive(Debug, Clone)]
pub struct SeedErrors {
    pub policy: String,
    pub p50_all: Option<f64>,
    pub p50_wide: Option<f64>,
    pub predicted_share: f64,
}

pub fn seed_errors(policy: &str, jobs: &[JobRecord]) -> SeedErrors {
    let p50 = |f: &dyn Fn(&JobRecord) -> bool| {
        let mut v: Vec<f64> = jobs.iter().filter(|j| f(j)).filter_map(JobRecord::estimation_error).collect();
        v.sort_by(f64::total_cmp);
        (!v.is_empty()).then(|| crate::metrics::stats::percentile(&v, 50.0))
    };
    let predicted = jobs.iter().filter(|j| j.estimate_ms.is_some()).count();
    SeedErrors {
        policy: policy.to_string(),
        p50_all: p50(&|_| true),
        p50_wide: p50(&|j| j.category == "wide"),
        predicted_share: if jobs.is_empty() { 0.0 } else { predicted as f64 / jobs.len() as f64 },
    }
}

/// Per policy that predicts: spreads over seeds of its P50 errors (all
/// jobs, wide jobs) and of the share of jobs predicted.
#[derive(Debug, Clone)]
pub struct ErrorSpread {
    pub policy: String,
    pub p50_all: Spread,
    pub p50_wide: Option<Spread>,
    pub predicted_share: Spread,
}

pub fn errors_over_seeds(per_run: &[SeedErrors]) -> Vec<ErrorSpread> {
    let mut policies: Vec<&str> = Vec::new();
    for e in per_run {
        if e.p50_all.is_some() && !policies.contains(&e.policy.as_str()) {
            policies.push(&e.policy);
        }
    }
    policies
        .into_iter()
        .map(|p| {
            let rows: Vec<&SeedErrors> = per_run.iter().filter(|e| e.policy == p).collect();
            let all: Vec<f64> = rows.iter().filter_map(|e| e.p50_all).collect();
            let wide: Vec<f64> = rows.iter().filter_map(|e| e.p50_wide).collect();
            let share: Vec<f64> = rows.iter().map(|e| e.predicted_share).collect();
            ErrorSpread {
                policy: p.to_string(),
                p50_all: Spread::of(&all),
                p50_wide: (!wide.is_empty()).then(|| Spread::of(&wide)),
                predicted_share: Spread::of(&share),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(category: &str, mean_jct: f64, makespan: f64) -> Factors {
        Factors {
            policy: "dress".into(),
            category: category.into(),
            jobs: 4,
            mean_jct,
            p50_jct: 1.0,
            p95_jct: 1.0,
            makespan,
            fairness: None,
        }
    }

    fn job(id: &str, category: &str, jct_ms: i64) -> JobRecord {
        JobRecord {
            id: id.into(),
            user: "u".into(),
            name: "n".into(),
            category: category.into(),
            tasks: 1,
            work_ms: 1,
            submit_ms: 1000,
            first_start_ms: 1000,
            finish_ms: 1000 + jct_ms,
            estimate_ms: None,
        }
    }

    #[test]
    fn spread_is_median_min_max() {
        assert_eq!(Spread::of(&[3.0, 1.0, 2.0]), Spread { median: 2.0, min: 1.0, max: 3.0 });
        assert_eq!(Spread::of(&[4.0, 1.0, 2.0, 3.0]), Spread { median: 2.5, min: 1.0, max: 4.0 });
        assert!(Spread::of(&[]).median.is_nan());
    }

    #[test]
    fn seeds_summarize_factors_and_changes() {
        // Three seeds; the small category is missing from the second.
        let per_seed = vec![
            vec![row("all", 1.0, 1.0), row("small", 2.0, 1.25)],
            vec![row("all", 1.25, 0.8)],
            vec![row("all", 0.8, 1.0), row("small", 1.25, 1.0)],
        ];
        let ideal = vec![vec![("small".to_string(), 4.0)], vec![], vec![("small".to_string(), 2.0)]];
        let rows = over_seeds(&per_seed, &ideal);
        assert_eq!(rows.len(), 2);
        let all = &rows[0];
        assert_eq!((all.category.as_str(), all.seeds), ("all", 3));
        assert_eq!(all.mean_jct, Spread { median: 1.0, min: 0.8, max: 1.25 });
        // Mean JCT change: 1/1 − 1 = 0, 1/1.25 − 1 = −20 %, 1/0.8 − 1 = +25 %.
        assert!((all.mean_jct_change.median).abs() < 1e-12);
        assert!((all.mean_jct_change.min + 0.2).abs() < 1e-12 && (all.mean_jct_change.max - 0.25).abs() < 1e-12);
        assert!(all.ideal_mean_jct.is_none());
        let small = &rows[1];
        assert_eq!(small.seeds, 2);
        // Halved mean JCT (2x) and 1.25x: changes −50 % and −20 %, median −35 %.
        assert!((small.mean_jct_change.median + 0.35).abs() < 1e-12);
        assert!((small.makespan_change.min + 0.2).abs() < 1e-12);
        assert_eq!(small.ideal_mean_jct, Some(Spread { median: 3.0, min: 2.0, max: 4.0 }));
        // Ideal changes −75 % and −50 %.
        assert_eq!(small.ideal_mean_jct_change, Some(Spread { median: -0.625, min: -0.75, max: -0.5 }));
    }

    #[test]
    fn ideal_is_baseline_jct_over_critical_path() {
        let base = vec![job("a", "small", 30_000), job("b", "small", 10_000), job("c", "large", 100_000)];
        let cp: HashMap<String, i64> = [("a", 10_000), ("b", 10_000), ("c", 50_000)].iter().map(|(k, v)| (k.to_string(), *v)).collect();
        let f: HashMap<String, f64> = ideal_factors(&base, &cp).into_iter().collect();
        assert!((f["small"] - 2.0).abs() < 1e-12, "(30 + 10) ÷ (10 + 10)");
        assert!((f["large"] - 2.0).abs() < 1e-12);
        assert!((f["all"] - 140.0 / 70.0).abs() < 1e-12);
    }
}
