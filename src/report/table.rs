//! The factor-of-improvement table `shepherd compare` prints.

use crate::metrics::compare::{Factors, SeedRow, SpeedupSummary, Spread};
use crate::metrics::Summary;
use std::fmt::Write;

pub fn absolute(summaries: &[Summary]) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "{:<14} {:>6} {:>10} {:>10} {:>10} {:>10} {:>11} {:>7} {:>7} {:>7} {:>11}",
        "policy", "jobs", "meanJCT(s)", "P50JCT(s)", "P95JCT(s)", "wait(s)", "makespan(s)", "util", "jain", "esterr", "jain(users)"
    );
    for r in summaries {
        let _ = writeln!(
            s,
            "{:<14} {:>6} {:>10.1} {:>10.1} {:>10.1} {:>10.1} {:>11.1} {:>7.3} {:>7.3} {:>7} {:>11.3}",
            r.policy,
            r.all.jobs,
            r.all.jct_ms.mean / 1000.0,
            r.all.jct_ms.p50 / 1000.0,
            r.all.jct_ms.p95 / 1000.0,
            r.all.wait_ms.mean / 1000.0,
            r.all.makespan_ms as f64 / 1000.0,
            r.utilization.alloc_vcores.max(r.utilization.alloc_memory),
            r.fairness.mean,
            r.estimation_error.map(|e| format!("{:.2}", e.p50)).unwrap_or_else(|| "-".into()),
            r.users_fairness.mean
        );
    }
    s
}

/// Actual use and over-subscription per policy (printed when a policy
/// over-subscribes): used vcores capped per node at its capacity, used
/// memory, allocated share, speculative containers, evictions, wasted work.
/// Ask → allocation latency of task containers, per run (Megha's allocation time).
pub fn allocation_latency(summaries: &[Summary]) -> String {
    let mut s = String::new();
    if summaries.iter().all(|r| r.allocation_latency.is_none()) {
        return s;
    }
    let _ = writeln!(s, "allocation latency, ask -> container (ms)");
    let _ = writeln!(
        s,
        "{:<14} {:>10} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9}",
        "policy", "containers", "mean", "P50", "P90", "P99", "P99.9", "max"
    );
    for r in summaries {
        let Some(l) = r.allocation_latency else { continue };
        let _ = writeln!(
            s,
            "{:<14} {:>10} {:>9.1} {:>9.1} {:>9.1} {:>9.1} {:>9.1} {:>9.1}",
            r.policy, l.count, l.mean_ms, l.p50_ms, l.p90_ms, l.p99_ms, l.p999_ms, l.max_ms
        );
    }
    s
}

pub fn oversubscription(summaries: &[Summary]) -> String {
    let mut s = String::new();
    if summaries.iter().all(|r| r.oversubscription.is_none()) {
        return s;
    }
    let _ = writeln!(
        s,
        "{:<14} {:>10} {:>10} {:>10} {:>12} {:>10} {:>12}",
        "policy", "usedCPU", "usedMem", "allocCPU", "speculative", "evictions", "wasted(c-s)"
    );
    for r in summaries {
        let o = r.oversubscription.unwrap_or_default();
        let cpu = if r.oversubscription.is_some() { o.used_vcores_capped } else { r.utilization.used_vcores };
        let _ = writeln!(
            s,
            "{:<14} {:>9.2}% {:>9.2}% {:>9.2}% {:>12} {:>10} {:>12.0}",
            r.policy,
            cpu * 100.0,
            r.utilization.used_memory * 100.0,
            r.utilization.alloc_vcores * 100.0,
            o.speculative_containers,
            o.evictions,
            o.wasted_container_s
        );
    }
    s
}

pub fn factors(baseline: &str, rows: &[Factors]) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "factor of improvement over {baseline} (baseline ÷ candidate; jain: candidate ÷ baseline; >1 = better)");
    let _ = writeln!(
        s,
        "{:<14} {:<10} {:>6} {:>9} {:>9} {:>9} {:>9} {:>7}",
        "policy", "category", "jobs", "meanJCT", "P50JCT", "P95JCT", "makespan", "jain"
    );
    for r in rows {
        let _ = writeln!(
            s,
            "{:<14} {:<10} {:>6} {:>8.2}x {:>8.2}x {:>8.2}x {:>8.2}x {:>7}",
            r.policy,
            r.category,
            r.jobs,
            r.mean_jct,
            r.p50_jct,
            r.p95_jct,
            r.makespan,
            r.fairness.map(|f| format!("{f:.2}x")).unwrap_or_else(|| "".into())
        );
    }
    s
}

pub fn speedups(baseline: &str, rows: &[SpeedupSummary]) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "per-job speedup over {baseline} (baseline JCT ÷ candidate JCT)");
    let _ = writeln!(s, "{:<14} {:>8} {:>8} {:>8} {:>8}", "policy", "mean", "P50", "P95", "slowed");
    for r in rows {
        let _ = writeln!(
            s,
            "{:<14} {:>7.2}x {:>7.2}x {:>7.2}x {:>7.1}%",
            r.policy,
            r.speedup.mean,
            r.speedup.p50,
            r.speedup.p95,
            r.slowed * 100.0
        );
    }
    s
}

fn factor_spread(x: &Spread) -> String {
    format!("{:.2}x [{:.2}, {:.2}]", x.median, x.min, x.max)
}

fn change_spread(x: &Spread) -> String {
    format!("{:+.1}% [{:+.0}, {:+.0}]", x.median * 100.0, x.min * 100.0, x.max * 100.0)
}

/// The tables of `compare --seeds N`: per (policy, category), the median
/// and range over seeds of the factors of improvement, then of the change of
/// mean JCT and makespan against the baseline, next to the change an ideal
/// policy would reach (every job at its critical path).
/// P50 estimation errors over seeds (`compare::errors_over_seeds`).
pub fn seed_errors(seeds: &str, rows: &[crate::metrics::compare::ErrorSpread]) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "estimation error over {seeds}: median [min, max] of the per-seed P50 of |estimate − size| ÷ size (SLearn §4.3)");
    let _ = writeln!(s, "{:<14} {:>22} {:>22} {:>22}", "policy", "P50 esterr all", "P50 esterr wide", "jobs predicted");
    let fmt = |x: &crate::metrics::compare::Spread| format!("{:.3} [{:.3}, {:.3}]", x.median, x.min, x.max);
    for r in rows {
        let wide = r.p50_wide.as_ref().map(fmt).unwrap_or_else(|| "-".into());
        let _ = writeln!(s, "{:<14} {:>22} {:>22} {:>22}", r.policy, fmt(&r.p50_all), wide, fmt(&r.predicted_share));
    }
    s
}

pub fn seeds(baseline: &str, seeds: &str, rows: &[SeedRow]) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "over {seeds}: median [min, max] of the per-seed factor of improvement over {baseline} (baseline ÷ candidate; >1 = better)"
    );
    let _ = writeln!(
        s,
        "{:<14} {:<10} {:>5} {:>5} {:>20} {:>20} {:>20} {:>20}",
        "policy", "category", "seeds", "jobs", "meanJCT", "P50JCT", "P95JCT", "makespan"
    );
    for r in rows {
        let _ = writeln!(
            s,
            "{:<14} {:<10} {:>5} {:>5} {:>20} {:>20} {:>20} {:>20}",
            r.policy,
            r.category,
            r.seeds,
            r.jobs.median,
            factor_spread(&r.mean_jct),
            factor_spread(&r.p50_jct),
            factor_spread(&r.p95_jct),
            factor_spread(&r.makespan)
        );
    }
    let _ = writeln!(s);
    let _ = writeln!(
        s,
        "change against {baseline} over {seeds}: median [min, max] of candidate ÷ baseline − 1 (negative = lower); ideal = every job at its critical path from submission (no policy does better)"
    );
    let _ = writeln!(
        s,
        "{:<14} {:<10} {:>5} {:>5} {:>20} {:>20} {:>20}",
        "policy", "category", "seeds", "jobs", "meanJCT", "makespan", "ideal meanJCT"
    );
    for r in rows {
        let ideal = r.ideal_mean_jct_change.as_ref().map(change_spread).unwrap_or_default();
        let _ = writeln!(
            s,
            "{:<14} {:<10} {:>5} {:>5} {:>20} {:>20} {:>20}",
            r.policy,
            r.category,
            r.seeds,
            r.jobs.median,
            change_spread(&r.mean_jct_change),
            change_spread(&r.makespan_change),
            ideal
        );
    }
    s
}

/// The Jain's-index table of `compare --seeds N`: per policy, the median
/// [min, max] over seeds of its index (mean over the fairness windows) and
/// of its difference from the baseline's on the same workload (candidate −
/// baseline; negative = less fair). `rows`: (policy, per-seed index,
/// per-seed difference).
pub fn jain_over_seeds(baseline: &str, seeds: &str, rows: &[(String, Vec<f64>, Vec<f64>)]) -> String {
    use crate::metrics::compare::Spread;
    let mut s = String::new();
    let _ = writeln!(s);
    let _ = writeln!(s, "Jain's index over {seeds} (mean over windows): median [min, max]; difference = candidate − {baseline}");
    let _ = writeln!(s, "{:<14} {:>24} {:>24}", "jain:policy", "index", "difference");
    for (policy, values, diffs) in rows {
        let v = Spread::of(values);
        let d = Spread::of(diffs);
        let _ = writeln!(
            s,
            "{:<14} {:>24} {:>24}",
            format!("jain:{policy}"),
            format!("{:.3} [{:.3}, {:.3}]", v.median, v.min, v.max),
            format!("{:+.3} [{:+.3}, {:+.3}]", d.median, d.min, d.max)
        );
    }
    s
}
