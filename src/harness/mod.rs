//! Metrics of real-YARN runs: what `shepherd yarn-report OUT` computes from
//! the observations the Java harness (`scripts/compare-yarn.sh`) writes to
//! `OUT/<label>/run-<k>/{jobs.json, samples.jsonl}` after running the same
//! workload under several schedulers, N times each.
//!
//! * [`input`]   — reading a run (`jobs.json`, `samples.jsonl`).
//! * [`derive`]  — per-job records and the run's metrics (`metrics.json`).
//! * [`repeats`] — aggregating the N runs of a label; ratios against the baseline.
//! * [`output`]  — tables, `summary.json` / `summary.csv`, per-run files, SVG plots.
//!
//! Definitions (the same words as the simulator's metrics, measured on YARN):
//!
//! * **submit** = the RM's `startedTime` of the application. Every time is
//!   relative to the run's first submission.
//! * **waiting time** = first task container − submit. The first task
//!   container is the `t_ms` of the first RM poll at which the app has
//!   ≥ 2 running containers (the first container is the MapReduce AM), so
//!   it is known to within one polling interval (`poll_ms`). If no poll saw
//!   one (a job shorter than the polling interval, an uber job), the finish
//!   time stands in and the job is listed under `wait_from_finish`.
//! * **AM wait** = AM launch (`launchTime`) − submit.
//! * **JCT** = finish (`finishedTime`) − submit.
//! * **makespan** = last finish − first submit (of the jobs counted).
//! * Only jobs that finished with state FINISHED and final status SUCCEEDED
//!   enter JCT, waiting time, AM wait and makespan; the others are listed
//!   per run (`--require-success` turns them into a failure).
//! * **utilization** = time-weighted mean of allocated ÷ total (memory and
//!   vcores, as the RM reports them at each poll) over [first submit, last
//!   finish]; each poll's value holds until the next poll (0 before the first).
//! * **Jain's fairness across users** per 60 s window from the first
//!   submit: a user is present in a window while one of their jobs is
//!   (submitted before the window's end, finished after its start); x_u =
//!   the time-averaged dominant share of the cluster held by the user's
//!   applications while present in the window (max of memory and vcores
//!   share, summed over the user's apps at each poll) ÷ the user's max-min
//!   fair share, the water-fill of unbounded demands (1.0 each), i.e. 1/n for
//!   n users present; J = (Σx)² / (n·Σx²) ([`crate::metrics::fairness`]).
//!   Windows in which no present user holds anything are skipped. Reported
//!   as mean, min and max over windows.
//! * **Repeats**: each headline number is reported as median [min–max]
//!   over the N runs (median of an even N = mean of the middle two).
//! * **Ratios** against the baseline label (default: the first label whose
//!   name starts with `shepherd`): for each run number k present under both
//!   labels, other ÷ baseline, then median [min–max] over those pairs. For
//!   times > 1 means the baseline is faster; for utilization and Jain's
//!   index > 1 means the other scheduler's value is higher.

pub mod calibrate;
pub mod derive;
pub mod input;
pub mod output;
pub mod repeats;

use derive::{NotSucceeded, RunResult};
use repeats::{LabelSummary, RatioSummary};
use std::path::Path;

/// Everything `shepherd yarn-report` derives from one output directory.
pub struct Report {
    /// Per label (sorted by name), its runs sorted by run number.
    pub runs: Vec<Vec<RunResult>>,
    pub labels: Vec<LabelSummary>,
    pub baseline: String,
    /// One per label other than the baseline.
    pub ratios: Vec<RatioSummary>,
}

/// Read and derive every run under `out`, aggregate repeats and compute
/// ratios against `baseline` (default: first label starting with
/// `shepherd`, else the first label).
pub fn analyze(out: &Path, baseline: Option<&str>) -> Result<Report, String> {
    let found = input::discover(out)?;
    let mut runs: Vec<Vec<RunResult>> = Vec::new();
    for (label, dirs) in &found {
        let mut v = Vec::new();
        for (k, dir) in dirs {
            let run = input::read_run(dir, label, *k)?;
            v.push(derive::derive(&run)?);
        }
        runs.push(v);
    }
    let names: Vec<&str> = found.iter().map(|(l, _)| l.as_str()).collect();
    let baseline = match baseline {
        Some(b) if names.contains(&b) => b.to_string(),
        Some(b) => return Err(format!("--baseline {b}: no such label under {} (labels: {})", out.display(), names.join(", "))),
        None => names.iter().find(|l| l.starts_with("shepherd")).unwrap_or(&names[0]).to_string(),
    };
    let metrics: Vec<Vec<&derive::RunMetrics>> = runs.iter().map(|v| v.iter().map(|r| &r.metrics).collect()).collect();
    let labels: Vec<LabelSummary> = names.iter().zip(&metrics).map(|(l, m)| repeats::summarize_label(l, m)).collect();
    let bi = names.iter().position(|l| *l == baseline).expect("baseline is a label");
    let ratios = names
        .iter()
        .zip(&metrics)
        .enumerate()
        .filter(|(i, _)| *i != bi)
        .map(|(_, (l, m))| repeats::ratios(l, m, &baseline, &metrics[bi]))
        .collect();
    // Baseline first in the tables.
    let (mut runs, mut labels) = (runs, labels);
    let r = runs.remove(bi);
    runs.insert(0, r);
    let l = labels.remove(bi);
    labels.insert(0, l);
    Ok(Report { runs, labels, baseline, ratios })
}

impl Report {
    /// (label, run, jobs that did not finish SUCCEEDED), runs with any.
    pub fn failures(&self) -> Vec<(String, u32, Vec<NotSucceeded>)> {
        self.runs
            .iter()
            .flatten()
            .filter(|r| !r.metrics.not_succeeded.is_empty())
            .map(|r| (r.metrics.label.clone(), r.metrics.run, r.metrics.not_succeeded.clone()))
            .collect()
    }

    /// The `--require-success` error, naming label, run and job ids.
    pub fn failure_message(&self) -> Option<String> {
        let f = self.failures();
        if f.is_empty() {
            return None;
        }
        let parts: Vec<String> = f
            .iter()
            .map(|(l, r, jobs)| format!("{l} run-{r}: {}", jobs.iter().map(|j| j.id.as_str()).collect::<Vec<_>>().join(", ")))
            .collect();
        Some(format!("jobs did not finish SUCCEEDED: {}", parts.join("; ")))
    }

    /// The tables and notes printed on stdout.
    pub fn text(&self) -> String {
        format!("{}\n{}\n{}", output::absolute_table(self), output::ratio_table(self), output::notes(self))
    }

    /// Per-run files, `summary.json`, `summary.csv` and the plots.
    pub fn write(&self, out: &Path) -> Result<(), String> {
        for r in self.runs.iter().flatten() {
            output::write_run(&r.dir, r)?;
        }
        std::fs::write(out.join("summary.json"), output::summary_json(self))
            .map_err(|e| format!("cannot write {}/summary.json: {e}", out.display()))?;
        std::fs::write(out.join("summary.csv"), output::summary_csv(self))
            .map_err(|e| format!("cannot write {}/summary.csv: {e}", out.display()))?;
        output::write_plots(out, self)
    }
}
