//! What `shepherd yarn-report` prints and writes: per-run `metrics.json`,
//! `jobs.csv`, `fairness.csv`; `summary.json`, `summary.csv`; the absolute
//! and ratio tables; the SVG plots (through `report::svg` / `report::files`).

use super::derive::{RunResult, YarnJob};
use super::repeats::{MetricSpreads, Spread, METRICS};
use super::Report;
use crate::report::csv::CsvText;
use crate::report::files::{cdf_svg, fairness_csv, jct_cdf_svg};
use crate::report::svg::{Chart, Series};
use std::fmt::Write as _;
use std::path::Path;

fn io(path: &Path, e: std::io::Error) -> String {
    format!("cannot write {}: {e}", path.display())
}

fn write(path: &Path, text: String) -> Result<(), String> {
    std::fs::write(path, text).map_err(|e| io(path, e))
}

/// `metrics.json`, `jobs.csv` and `fairness.csv` in the run's directory.
pub fn write_run(dir: &Path, r: &RunResult) -> Result<(), String> {
    write(&dir.join("metrics.json"), serde_json::to_string_pretty(&r.metrics).expect("metrics serialize") + "\n")?;
    write(&dir.join("jobs.csv"), jobs_csv(&r.jobs))?;
    write(&dir.join("fairness.csv"), fairness_csv(&r.fairness_windows))
}

/// One row per job of the run; times relative to the run's first submission
/// (empty when unknown); wait and JCT only for jobs that finished SUCCEEDED.
pub fn jobs_csv(jobs: &[YarnJob]) -> String {
    let opt = |v: Option<i64>| v.map(|v| v.to_string()).unwrap_or_default();
    let mut csv = CsvText::with_header(&[
        "id",
        "app_id",
        "name",
        "kind",
        "user",
        "queue",
        "category",
        "maps",
        "reduces",
        "planned_submit_ms",
        "submit_ms",
        "am_launch_ms",
        "first_task_ms",
        "finish_ms",
        "am_wait_ms",
        "wait_ms",
        "jct_ms",
        "wait_from",
        "state",
        "final_status",
        "error",
    ]);
    for j in jobs {
        let o = &j.obs;
        let r = j.record.as_ref();
        let wait_from = match j.wait_from {
            Some(super::derive::WaitFrom::Samples) => "samples",
            Some(super::derive::WaitFrom::Finish) => "finish",
            None => "",
        };
        csv.row([
            o.id.clone(),
            o.app_id.clone().unwrap_or_default(),
            o.name.clone(),
            o.kind.clone(),
            o.user.clone(),
            o.queue.clone(),
            o.category.clone(),
            o.maps.to_string(),
            o.reduces.to_string(),
            opt(o.planned_submit_ms),
            opt(j.submit_ms),
            opt(j.am_launch_ms),
            opt(j.first_task_ms),
            opt(j.finish_ms),
            opt(j.am_wait_ms()),
            opt(r.map(|r| r.wait_ms())),
            opt(r.map(|r| r.jct_ms())),
            wait_from.to_string(),
            o.state.clone(),
            o.final_status.clone(),
            o.error.clone().unwrap_or_default(),
        ]);
    }
    csv.finish()
}

fn num(v: f64, decimals: usize) -> String {
    if v.is_infinite() {
        "inf".into()
    } else {
        format!("{v:.decimals$}")
    }
}

/// "median [min–max]", or just the median when the range is one value.
fn cell(s: Option<&Spread>, decimals: usize, suffix: &str) -> String {
    match s {
        None => "-".into(),
        Some(s) => {
            let (m, lo, hi) = (num(s.median, decimals), num(s.min, decimals), num(s.max, decimals));
            if lo == hi {
                format!("{m}{suffix}")
            } else {
                format!("{m}{suffix} [{lo}–{hi}]")
            }
        }
    }
}

/// Columns aligned on character counts: the first `left` columns
/// left-aligned, the rest right-aligned.
fn render(header: &[&str], rows: &[Vec<String>], left: usize) -> String {
    let mut width: Vec<usize> = header.iter().map(|h| h.chars().count()).collect();
    for r in rows {
        for (w, c) in width.iter_mut().zip(r) {
            *w = (*w).max(c.chars().count());
        }
    }
    let line = |cells: Vec<&str>| {
        let mut s = String::new();
        for (i, (c, w)) in cells.iter().zip(&width).enumerate() {
            let pad = " ".repeat(w - c.chars().count());
            if i > 0 {
                s.push_str("  ");
            }
            if i < left {
                s.push_str(c);
                s.push_str(&pad);
            } else {
                s.push_str(&pad);
                s.push_str(c);
            }
        }
        s.trim_end().to_string() + "\n"
    };
    let mut s = line(header.to_vec());
    for r in rows {
        s.push_str(&line(r.iter().map(String::as_str).collect()));
    }
    s
}

/// (metric, header, decimals) of the table columns after label/category/runs.
const COLUMNS: &[(&str, &str, usize)] = &[
    ("wait_mean_s", "wait mean", 1),
    ("wait_p50_s", "wait P50", 1),
    ("wait_p95_s", "wait P95", 1),
    ("am_wait_p50_s", "AM wait P50", 1),
    ("jct_mean_s", "JCT mean", 1),
    ("jct_p50_s", "JCT P50", 1),
    ("jct_p95_s", "JCT P95", 1),
    ("makespan_s", "makespan", 1),
    ("util_memory", "util mem", 3),
    ("util_vcores", "util vcores", 3),
    ("used_memory", "used mem", 3),
    ("used_vcores", "used vcores", 3),
    ("reserved_memory", "reserved mem", 3),
    ("preempted", "preempted", 0),
    ("jain_mean", "Jain", 3),
];

pub fn absolute_table(report: &Report) -> String {
    let mut header = vec!["label", "category", "runs", "jobs"];
    header.extend(COLUMNS.iter().map(|c| c.1));
    let mut rows = Vec::new();
    for l in &report.labels {
        for c in &l.category_order {
            let m: &MetricSpreads = &l.categories[c];
            let mut row = vec![l.label.clone(), c.clone(), m.get("jobs").map_or(0, |s| s.n).to_string(), cell(m.get("jobs"), 0, "")];
            row.extend(COLUMNS.iter().map(|(k, _, d)| cell(m.get(*k), *d, "")));
            rows.push(row);
        }
    }
    format!(
        "absolute: median [min–max] over runs; times in s; jobs = jobs that finished SUCCEEDED;\n\
         wait = submission → first task container seen running; AM wait = submission → ApplicationMaster launch;\n\
         util = time-weighted allocated share of the cluster; used = time-weighted measured use (NM container monitors), - when not measured;\n\
         reserved mem = time-weighted share of memory held by node reservations, - when not recorded;\n\
         preempted = containers preempted (evicted) over all jobs; Jain = mean over 60 s windows of Jain's index across users\n{}",
        render(&header, &rows, 2)
    )
}

pub fn ratio_table(report: &Report) -> String {
    let b = &report.baseline;
    let mut header = vec!["label", "category", "pairs"];
    header.extend(COLUMNS.iter().map(|c| c.1));
    let mut rows = Vec::new();
    for r in &report.ratios {
        for c in &r.category_order {
            let m = &r.categories[c];
            let mut row = vec![format!("{} ÷ {b}", r.label), c.clone(), r.pairs.len().to_string()];
            row.extend(COLUMNS.iter().map(|(k, _, _)| cell(m.get(*k), 2, "x")));
            rows.push(row);
        }
    }
    if rows.is_empty() {
        return format!("ratio: no other label to compare with baseline {b}\n");
    }
    format!(
        "ratio scheduler ÷ {b} (baseline), per run pair (run k with run k), median [min–max] over pairs;\n\
         times: > 1 = {b} faster; util, Jain: > 1 = the other scheduler higher\n{}",
        render(&header, &rows, 2)
    )
}

/// Jobs that did not finish SUCCEEDED, and waits that fell back to the finish time.
pub fn notes(report: &Report) -> String {
    let mut s = String::new();
    let failed: Vec<_> = report.failures();
    if failed.is_empty() {
        s.push_str("every job finished SUCCEEDED in every run\n");
    } else {
        s.push_str("jobs that did not finish SUCCEEDED (left out of the numbers above):\n");
        for (label, run, jobs) in &failed {
            let list: Vec<String> = jobs
                .iter()
                .map(|j| {
                    let mut d = format!("{} ({}, {}/{}", j.id, j.app_id.as_deref().unwrap_or("not submitted"), j.state, j.final_status);
                    if let Some(e) = &j.error {
                        d.push_str(&format!(": {e}"));
                    }
                    d + ")"
                })
                .collect();
            let _ = writeln!(s, "  {label} run-{run}: {}", list.join(", "));
        }
    }
    for runs in &report.runs {
        for r in runs {
            let m = &r.metrics;
            if !m.wait_from_finish.is_empty() {
                let _ = writeln!(
                    s,
                    "note: {} run-{}: no poll saw a task container of {}; waiting time taken up to the finish time",
                    m.label,
                    m.run,
                    m.wait_from_finish.join(", ")
                );
            }
        }
    }
    s
}

fn spreads_json(m: &MetricSpreads) -> serde_json::Value {
    serde_json::to_value(m).expect("spreads serialize")
}

pub fn summary_json(report: &Report) -> String {
    let failures: Vec<serde_json::Value> = report
        .failures()
        .iter()
        .flat_map(|(label, run, jobs)| jobs.iter().map(move |j| serde_json::json!({"label": label, "run": run, "job": j})))
        .collect();
    let json = serde_json::json!({
        "baseline": report.baseline,
        "definitions": {
            "times": "seconds, relative to each run's first submission (RM startedTime)",
            "spread": "median (mean of the middle two for an even count), min, max over runs",
            "ratio": "label ÷ baseline per run pair (same run number), then median/min/max over pairs; times > 1 = baseline faster",
        },
        "labels": report.labels.iter().map(|l| serde_json::json!({
            "label": l.label,
            "scheduler": l.scheduler,
            "runs": l.runs,
            "categories": l.categories.iter().map(|(k, v)| (k.clone(), spreads_json(v))).collect::<serde_json::Map<_, _>>(),
        })).collect::<Vec<_>>(),
        "ratios": report.ratios,
        "not_succeeded": failures,
    });
    serde_json::to_string_pretty(&json).expect("json") + "\n"
}

/// Long format: one row per (table, label, category, metric).
pub fn summary_csv(report: &Report) -> String {
    let mut csv = CsvText::with_header(&["table", "label", "baseline", "category", "metric", "n", "median", "min", "max"]);
    let f = |v: f64| if v.is_finite() { format!("{v:.6}") } else { "inf".into() };
    let mut rows = |table: &str, label: &str, base: &str, order: &[String], cats: &std::collections::BTreeMap<String, MetricSpreads>| {
        for c in order {
            for k in METRICS {
                if let Some(sp) = cats[c].get(*k) {
                    csv.row([
                        table.to_string(),
                        label.to_string(),
                        base.to_string(),
                        c.clone(),
                        k.to_string(),
                        sp.n.to_string(),
                        f(sp.median),
                        f(sp.min),
                        f(sp.max),
                    ]);
                }
            }
        }
    };
    for l in &report.labels {
        rows("absolute", &l.label, "", &l.category_order, &l.categories);
    }
    for r in &report.ratios {
        rows("ratio", &r.label, &r.baseline, &r.category_order, &r.categories);
    }
    csv.finish()
}

/// `jct-cdf.svg`, `wait-cdf.svg` (pooled over runs) and `utilization.svg`
/// (allocated memory share over time, first run of each label).
pub fn write_plots(out: &Path, report: &Report) -> Result<(), String> {
    let pooled = |f: fn(&crate::metrics::JobRecord) -> i64| -> Vec<(String, Vec<f64>)> {
        report
            .runs
            .iter()
            .map(|runs| {
                let label = runs.first().map(|r| r.metrics.label.clone()).unwrap_or_default();
                let v = runs.iter().flat_map(|r| r.jobs.iter().filter_map(|j| j.record.as_ref()).map(|rec| f(rec) as f64 / 1000.0));
                (label, v.collect())
            })
            .collect()
    };
    write(&out.join("jct-cdf.svg"), jct_cdf_svg(&pooled(|r| r.jct_ms())))?;
    write(
        &out.join("wait-cdf.svg"),
        cdf_svg("CDF of waiting time (submission → first task container)", "waiting time (s)", false, &pooled(|r| r.wait_ms())),
    )?;
    let series: Vec<Series> = report
        .runs
        .iter()
        .filter_map(|runs| runs.first())
        .map(|r| Series {
            name: format!("{} (run {})", r.metrics.label, r.metrics.run),
            points: r.memory_share.iter().map(|(t, v)| (*t as f64 / 1000.0, *v)).collect(),
        })
        .collect();
    let chart = Chart {
        title: "Allocated memory share over time",
        x_label: "time since the run's first submission (s)",
        y_label: "allocated ÷ total memory",
        log_x: false,
    };
    write(&out.join("utilization.svg"), chart.render(&series))
}
