//! Aggregating the N repeated runs of each label: median and spread
//! (min–max) of each headline number, and the per-run-pair ratios against
//! the baseline label.

use super::derive::{RunMetrics, YarnCategory};
use crate::metrics::compare::ratio;
use serde::Serialize;
use std::collections::BTreeMap;

/// Median and range of one number over runs (or run pairs). The median of
/// an even count is the mean of the two middle values.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Spread {
    pub n: usize,
    pub median: f64,
    pub min: f64,
    pub max: f64,
}

impl Spread {
    pub fn of(values: &[f64]) -> Option<Spread> {
        if values.is_empty() {
            return None;
        }
        let mut v = values.to_vec();
        v.sort_by(f64::total_cmp);
        let n = v.len();
        let median = crate::metrics::stats::median_sorted(&v)?;
        Some(Spread { n, median, min: v[0], max: v[n - 1] })
    }
}

/// Headline numbers, in this order. Times in seconds; `util_*` and `jain_*`
/// are cluster-wide, so only the `all` category has them.
pub const METRICS: &[&str] = &[
    "jobs",
    "wait_mean_s",
    "wait_p50_s",
    "wait_p95_s",
    "am_wait_mean_s",
    "am_wait_p50_s",
    "am_wait_p95_s",
    "jct_mean_s",
    "jct_p50_s",
    "jct_p95_s",
    "makespan_s",
    "util_memory",
    "util_vcores",
    "used_memory",
    "used_vcores",
    "reserved_memory",
    "preempted",
    "jain_mean",
    "jain_min",
];

/// Headline numbers of one category ("all" or a job category) of one run;
/// empty when the run has no succeeded job of that category.
pub fn headline(m: &RunMetrics, category: &str) -> Vec<(&'static str, f64)> {
    let c: &YarnCategory = if category == "all" {
        &m.all
    } else {
        match m.categories.get(category) {
            Some(c) => c,
            None => return vec![],
        }
    };
    if c.base.jobs == 0 {
        return vec![];
    }
    let s = |ms: f64| ms / 1000.0;
    let mut v = vec![
        ("jobs", c.base.jobs as f64),
        ("wait_mean_s", s(c.base.wait_ms.mean)),
        ("wait_p50_s", s(c.base.wait_ms.p50)),
        ("wait_p95_s", s(c.base.wait_ms.p95)),
    ];
    if c.am_wait_ms.count > 0 {
        v.extend([
            ("am_wait_mean_s", s(c.am_wait_ms.mean)),
            ("am_wait_p50_s", s(c.am_wait_ms.p50)),
            ("am_wait_p95_s", s(c.am_wait_ms.p95)),
        ]);
    }
    v.extend([
        ("jct_mean_s", s(c.base.jct_ms.mean)),
        ("jct_p50_s", s(c.base.jct_ms.p50)),
        ("jct_p95_s", s(c.base.jct_ms.p95)),
        ("makespan_s", s(c.base.makespan_ms as f64)),
    ]);
    if category == "all" {
        v.extend([("util_memory", m.utilization.alloc_memory), ("util_vcores", m.utilization.alloc_vcores)]);
        if let (Some(mem), Some(vc)) = (m.utilization.used_memory, m.utilization.used_vcores) {
            v.extend([("used_memory", mem), ("used_vcores", vc)]);
        }
        if let Some(r) = m.utilization.reserved_memory {
            v.push(("reserved_memory", r));
        }
        if let Some(p) = m.preempted_containers {
            v.push(("preempted", p as f64));
        }
        if m.fairness.windows > 0 {
            v.extend([("jain_mean", m.fairness.mean), ("jain_min", m.fairness.min)]);
        }
    }
    v
}

/// Category names over runs, `all` first.
fn categories<'a>(runs: impl Iterator<Item = &'a RunMetrics>) -> Vec<String> {
    let mut cats: Vec<String> = vec!["all".to_string()];
    let mut rest: Vec<String> = runs.flat_map(|m| m.categories.keys().cloned()).collect();
    rest.sort();
    rest.dedup();
    cats.extend(rest.into_iter().filter(|c| c != "all"));
    cats
}

/// metric → spread, for one category.
pub type MetricSpreads = BTreeMap<String, Spread>;

/// One label's runs, aggregated.
#[derive(Debug, Clone, Serialize)]
pub struct LabelSummary {
    pub label: String,
    pub scheduler: String,
    pub runs: Vec<u32>,
    /// Category ("all" first in [`Self::category_order`]) → metric → spread over runs.
    pub categories: BTreeMap<String, MetricSpreads>,
    #[serde(skip)]
    pub category_order: Vec<String>,
}

pub fn summarize_label(label: &str, runs: &[&RunMetrics]) -> LabelSummary {
    let order = categories(runs.iter().copied());
    let mut cats = BTreeMap::new();
    for c in &order {
        let mut per: BTreeMap<&str, Vec<f64>> = BTreeMap::new();
        for m in runs {
            for (k, v) in headline(m, c) {
                per.entry(k).or_default().push(v);
            }
        }
        let spreads: MetricSpreads = per.into_iter().filter_map(|(k, v)| Some((k.to_string(), Spread::of(&v)?))).collect();
        cats.insert(c.clone(), spreads);
    }
    LabelSummary {
        label: label.to_string(),
        scheduler: runs.first().map(|m| m.scheduler.clone()).unwrap_or_default(),
        runs: runs.iter().map(|m| m.run).collect(),
        categories: cats,
        category_order: order,
    }
}

/// `label ÷ baseline` for every headline number but the job count, one
/// ratio per run pair (run k of both), then median and range over pairs.
/// For times > 1 means the baseline is faster; for utilization and Jain's
/// index > 1 means `label` is higher.
#[derive(Debug, Clone, Serialize)]
pub struct RatioSummary {
    pub label: String,
    pub baseline: String,
    /// Run numbers present under both labels.
    pub pairs: Vec<u32>,
    pub categories: BTreeMap<String, MetricSpreads>,
    #[serde(skip)]
    pub category_order: Vec<String>,
}

pub fn ratios(label: &str, runs: &[&RunMetrics], baseline: &str, base_runs: &[&RunMetrics]) -> RatioSummary {
    let pairs: Vec<(&RunMetrics, &RunMetrics)> =
        runs.iter().filter_map(|m| base_runs.iter().find(|b| b.run == m.run).map(|b| (*m, *b))).collect();
    let order: Vec<String> = categories(pairs.iter().map(|(m, _)| *m))
        .into_iter()
        .filter(|c| c == "all" || pairs.iter().any(|(_, b)| b.categories.contains_key(c)))
        .collect();
    let mut cats = BTreeMap::new();
    for c in &order {
        let mut per: BTreeMap<&str, Vec<f64>> = BTreeMap::new();
        for (m, b) in &pairs {
            let base: BTreeMap<&str, f64> = headline(b, c).into_iter().collect();
            for (k, v) in headline(m, c) {
                // Counts, not rates: a ratio of job or eviction counts says
                // nothing; nor does one of reserved shares, 0 for a
                // scheduler that never reserves.
                if k == "jobs" || k == "preempted" || k == "reserved_memory" {
                    continue;
                }
                if let Some(bv) = base.get(k) {
                    per.entry(k).or_default().push(ratio(v, *bv));
                }
            }
        }
        let spreads: MetricSpreads = per.into_iter().filter_map(|(k, v)| Some((k.to_string(), Spread::of(&v)?))).collect();
        cats.insert(c.clone(), spreads);
    }
    RatioSummary {
        label: label.to_string(),
        baseline: baseline.to_string(),
        pairs: pairs.iter().map(|(m, _)| m.run).collect(),
        categories: cats,
        category_order: order,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn median_of_even_count_is_mean_of_middle_two() {
        assert_eq!(Spread::of(&[3.0, 1.0, 2.0]).unwrap(), Spread { n: 3, median: 2.0, min: 1.0, max: 3.0 });
        assert_eq!(Spread::of(&[4.0, 1.0]).unwrap().median, 2.5);
        assert!(Spread::of(&[]).is_none());
    }
}
