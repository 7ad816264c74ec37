//! Files of one run in an output directory:
//! `metrics.json` (summary), `jobs.csv`, `utilization.csv`, `fairness.csv`,
//! `jct_cdf.svg` and `utilization.svg`; `activity.json` when the run kept
//! the engine's activity log.

use super::csv::CsvText;
use super::svg::{cdf, Chart, Series};
use crate::metrics::timeline::UtilizationPoint;
use crate::metrics::JobRecord;
use crate::metrics::RunOutcome;
use std::path::Path;

pub fn write_run(dir: &Path, out: &RunOutcome) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    std::fs::write(dir.join("metrics.json"), metrics_json(out))?;
    std::fs::write(dir.join("jobs.csv"), jobs_csv(&out.jobs))?;
    std::fs::write(dir.join("utilization.csv"), utilization_csv(&out.utilization))?;
    std::fs::write(dir.join("fairness.csv"), fairness_csv(&out.fairness))?;
    if let Some(activity) = &out.activity {
        std::fs::write(dir.join("activity.json"), serde_json::to_string_pretty(activity).expect("activity serializes") + "\n")?;
    }
    let jct: Vec<f64> = out.jobs.iter().map(|j| j.jct_ms() as f64 / 1000.0).collect();
    std::fs::write(dir.join("jct_cdf.svg"), jct_cdf_svg(&[(out.summary.policy.clone(), jct)]))?;
    std::fs::write(dir.join("utilization.svg"), utilization_svg(&out.summary.policy, &out.utilization))?;
    Ok(())
}

pub fn metrics_json(out: &RunOutcome) -> String {
    serde_json::to_string_pretty(&out.summary).expect("summary serializes") + "\n"
}

pub fn jobs_csv(jobs: &[JobRecord]) -> String {
    let mut csv = CsvText::with_header(&[
        "id",
        "user",
        "name",
        "category",
        "tasks",
        "work_ms",
        "submit_ms",
        "first_start_ms",
        "finish_ms",
        "jct_ms",
        "wait_ms",
        "estimate_ms",
    ]);
    for j in jobs {
        csv.row([
            j.id.clone(),
            j.user.clone(),
            j.name.clone(),
            j.category.clone(),
            j.tasks.to_string(),
            j.work_ms.to_string(),
            j.submit_ms.to_string(),
            j.first_start_ms.to_string(),
            j.finish_ms.to_string(),
            j.jct_ms().to_string(),
            j.wait_ms().to_string(),
            j.estimate_ms.map(|e| format!("{e:.0}")).unwrap_or_default(),
        ]);
    }
    csv.finish()
}

pub fn utilization_csv(points: &[UtilizationPoint]) -> String {
    let mut csv = CsvText::with_header(&["window_start_ms", "alloc_memory", "alloc_vcores", "used_memory", "used_vcores"]);
    for p in points {
        csv.row([
            p.start_ms.to_string(),
            format!("{:.6}", p.alloc_memory),
            format!("{:.6}", p.alloc_vcores),
            format!("{:.6}", p.used_memory),
            format!("{:.6}", p.used_vcores),
        ]);
    }
    csv.finish()
}

/// Jain's index per window: `(window start ms, index)`.
pub fn fairness_csv(windows: &[(i64, f64)]) -> String {
    let mut csv = CsvText::with_header(&["window_start_ms", "jain_index"]);
    for (t, j) in windows {
        csv.row([t.to_string(), format!("{j:.6}")]);
    }
    csv.finish()
}

/// CDF of job completion times (seconds), one line per policy.
pub fn jct_cdf_svg(per_policy: &[(String, Vec<f64>)]) -> String {
    cdf_svg("CDF of job completion time", "JCT (s, log scale)", true, per_policy)
}

/// Empirical CDF of a per-job quantity, one line per policy (or scheduler).
pub fn cdf_svg(title: &str, x_label: &str, log_x: bool, per_policy: &[(String, Vec<f64>)]) -> String {
    let series: Vec<Series> = per_policy.iter().map(|(name, v)| Series { name: name.clone(), points: cdf(v) }).collect();
    Chart { title, x_label, y_label: "fraction of jobs", log_x }.render(&series)
}

pub fn utilization_svg(policy: &str, points: &[UtilizationPoint]) -> String {
    let mk = |name: &str, f: fn(&UtilizationPoint) -> f64| Series {
        name: name.to_string(),
        points: points.iter().map(|p| (p.start_ms as f64 / 60_000.0, f(p))).collect(),
    };
    let series = vec![
        mk("alloc memory", |p| p.alloc_memory),
        mk("alloc vcores", |p| p.alloc_vcores),
        mk("used memory", |p| p.used_memory),
        mk("used vcores", |p| p.used_vcores),
    ];
    let title = format!("Utilization over time ({policy})");
    Chart { title: &title, x_label: "time (min)", y_label: "share of cluster", log_x: false }.render(&series)
}
