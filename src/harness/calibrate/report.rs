//! The check's verdict: per scheduler, the per-job JCT error of its
//! simulation against its real runs, and whether the simulator ranks the
//! schedulers as the real runs do (`shepherd calibrate`'s table).

use crate::harness::input::{read_run, JobsFile};
use crate::metrics::stats::{mean, percentile, percentile_of};
use crate::metrics::RunOutcome;
use crate::sim::calibration::Calibration;
use std::collections::HashMap;
use std::path::PathBuf;

/// One scheduler's simulated and real runs.
#[derive(Debug, Clone)]
pub struct SchedulerCheck {
    pub label: String,
    /// The engine policy standing in for it.
    pub counterpart: String,
    pub runs: usize,
    pub jobs: usize,
    pub error_p50: f64,
    pub error_p90: f64,
    pub real_mean_all: f64,
    pub sim_mean_all: f64,
    pub real_mean_small: Option<f64>,
    pub sim_mean_small: Option<f64>,
    /// Each real run's mean JCT (ms), all jobs and small jobs, by run.
    pub real_runs_all: Vec<f64>,
    pub real_runs_small: Vec<f64>,
}

#[derive(Debug, Clone)]
pub struct CheckReport {
    pub calibration: Calibration,
    pub rows: Vec<SchedulerCheck>,
}

/// One scheduler's row: its simulated JCTs against those of its real runs
/// (`dirs`, `first` the first run's jobs).
pub(super) fn score(
    label: String,
    policy: String,
    dirs: &[(u32, PathBuf)],
    first: &JobsFile,
    outcome: &RunOutcome,
) -> Result<SchedulerCheck, String> {
    let sim_jct: HashMap<&str, f64> = outcome.jobs.iter().map(|j| (j.id.as_str(), j.jct_ms() as f64)).collect();
    let small: HashMap<&str, bool> = first.jobs.iter().map(|j| (j.id.as_str(), j.category == "small")).collect();
    let (mut errors, mut real_all, mut real_small) = (Vec::new(), Vec::new(), Vec::new());
    for (k, dir) in dirs {
        let run = read_run(dir, &label, *k)?;
        let (mut all, mut sm) = (Vec::new(), Vec::new());
        for j in run.jobs.jobs.iter().filter(|j| j.succeeded()) {
            let real = (j.finished().unwrap_or(0) - j.submitted().unwrap_or(0)) as f64;
            if let Some(s) = sim_jct.get(j.id.as_str()) {
                errors.push((s - real).abs() / real.max(1.0));
            }
            all.push(real);
            if small.get(j.id.as_str()) == Some(&true) {
                sm.push(real);
            }
        }
        real_all.push(mean(&all));
        if !sm.is_empty() {
            real_small.push(mean(&sm));
        }
    }
    errors.sort_by(f64::total_cmp);
    let sim_all: Vec<f64> = outcome.jobs.iter().map(|j| j.jct_ms() as f64).collect();
    let sim_small: Vec<f64> = outcome.jobs.iter().filter(|j| small.get(j.id.as_str()) == Some(&true)).map(|j| j.jct_ms() as f64).collect();
    Ok(SchedulerCheck {
        label,
        counterpart: policy,
        runs: dirs.len(),
        jobs: errors.len(),
        error_p50: percentile(&errors, 50.0),
        error_p90: percentile(&errors, 90.0),
        real_mean_all: percentile_of(&real_all, 50.0),
        sim_mean_all: mean(&sim_all),
        real_mean_small: (!real_small.is_empty()).then(|| percentile_of(&real_small, 50.0)),
        sim_mean_small: (!sim_small.is_empty()).then(|| mean(&sim_small)),
        real_runs_all: real_all,
        real_runs_small: real_small,
    })
}

/// Labels in increasing order of `key` (NaN last).
fn ranking(rows: &[SchedulerCheck], key: impl Fn(&SchedulerCheck) -> Option<f64>) -> Vec<String> {
    let mut v: Vec<(f64, &str)> = rows.iter().filter_map(|r| Some((key(r)?, r.label.as_str()))).collect();
    v.sort_by(|a, b| a.0.total_cmp(&b.0));
    v.into_iter().map(|(_, l)| l.to_string()).collect()
}

/// Ordered pairs of scheduler labels, (faster, slower).
pub type Pairs = Vec<(String, String)>;

/// What the real runs can tell apart: a pair of schedulers is resolved
/// when every real run of one has a lower mean JCT than every run of the
/// other (at least 2 runs each; with one run any gap could be run-to-run
/// noise). Returns the resolved pairs as (faster, slower) and those the
/// simulator orders the other way; `None` when some scheduler has fewer
/// than 2 runs.
pub fn resolved_pairs(
    rows: &[SchedulerCheck],
    runs: impl Fn(&SchedulerCheck) -> &[f64],
    sim: impl Fn(&SchedulerCheck) -> Option<f64>,
) -> Option<(Pairs, Pairs)> {
    if rows.iter().any(|r| runs(r).len() < 2) {
        return None;
    }
    let (mut resolved, mut flipped) = (Vec::new(), Vec::new());
    for a in rows {
        for b in rows {
            let a_max = runs(a).iter().cloned().fold(f64::NEG_INFINITY, f64::max);
            let b_min = runs(b).iter().cloned().fold(f64::INFINITY, f64::min);
            if a.label != b.label && a_max < b_min {
                let pair = (a.label.clone(), b.label.clone());
                if let (Some(sa), Some(sb)) = (sim(a), sim(b)) {
                    if sa >= sb {
                        flipped.push(pair.clone());
                    }
                }
                resolved.push(pair);
            }
        }
    }
    Some((resolved, flipped))
}

/// Whether the real runs rank the schedulers alike run for run (run k of
/// each): `None` with fewer than 2 runs of some scheduler.
pub fn runs_agree(rows: &[SchedulerCheck], runs: impl Fn(&SchedulerCheck) -> &[f64]) -> Option<bool> {
    let n = rows.iter().map(|r| runs(r).len()).min()?;
    if n < 2 {
        return None;
    }
    let order = |k: usize| ranking(rows, |r| runs(r).get(k).copied());
    let first = order(0);
    Some((1..n).all(|k| order(k) == first))
}

impl CheckReport {
    pub fn rank_all(&self) -> (Vec<String>, Vec<String>) {
        (ranking(&self.rows, |r| Some(r.real_mean_all)), ranking(&self.rows, |r| Some(r.sim_mean_all)))
    }

    pub fn rank_small(&self) -> (Vec<String>, Vec<String>) {
        (ranking(&self.rows, |r| r.real_mean_small), ranking(&self.rows, |r| r.sim_mean_small))
    }

    pub fn text(&self) -> String {
        let s = |v: f64| if v.is_finite() { format!("{:.1}", v / 1000.0) } else { "-".into() };
        let mut out = String::from(
            "scheduler                      counterpart               runs  jobs  JCT error P50  P90   mean JCT all real/sim (s)   small real/sim (s)\n",
        );
        for r in &self.rows {
            out.push_str(&format!(
                "{:<30} {:<25} {:>4} {:>5}  {:>12.1}% {:>5.1}%   {:>10} / {:<10}   {:>8} / {:<8}\n",
                r.label,
                r.counterpart,
                r.runs,
                r.jobs,
                r.error_p50 * 100.0,
                r.error_p90 * 100.0,
                s(r.real_mean_all),
                s(r.sim_mean_all),
                r.real_mean_small.map_or("-".into(), s),
                r.sim_mean_small.map_or("-".into(), s),
            ));
        }
        for (what, (real, sim)) in [("all jobs", self.rank_all()), ("small jobs", self.rank_small())] {
            out.push_str(&format!(
                "ranking by mean JCT, {what}: real {} | simulated {} -> {}\n",
                real.join(" < "),
                sim.join(" < "),
                if real == sim { "same" } else { "DIFFERENT" }
            ));
        }
        // A ranking the real repetitions do not reproduce among themselves
        // is noise no model can match: judge the simulator also on the
        // pairs the real runs resolve.
        type Runs = fn(&SchedulerCheck) -> &[f64];
        type Sim = fn(&SchedulerCheck) -> Option<f64>;
        let keys: [(&str, Runs, Sim); 2] =
            [("all jobs", |r| &r.real_runs_all, |r| Some(r.sim_mean_all)), ("small jobs", |r| &r.real_runs_small, |r| r.sim_mean_small)];
        for (what, runs, sim) in keys {
            let agree = match runs_agree(&self.rows, runs) {
                None => "one run each".to_string(),
                Some(true) => "the real runs rank alike in every repetition".to_string(),
                Some(false) => "the real runs' ranking changes between repetitions".to_string(),
            };
            let pairs = match resolved_pairs(&self.rows, runs, sim) {
                None => "pairs resolved by the real runs: needs 2 runs per scheduler".to_string(),
                Some((resolved, flipped)) => {
                    let list = |v: &[(String, String)]| v.iter().map(|(a, b)| format!("{a} < {b}")).collect::<Vec<_>>().join(", ");
                    format!(
                        "pairs resolved by the real runs (every run faster): {} [{}]; simulated the other way: {}{}",
                        resolved.len(),
                        list(&resolved),
                        flipped.len(),
                        if flipped.is_empty() { String::new() } else { format!(" [{}]", list(&flipped)) }
                    )
                }
            };
            out.push_str(&format!("{what}: {agree}; {pairs}\n"));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(label: &str, runs: &[f64], sim: f64) -> SchedulerCheck {
        SchedulerCheck {
            label: label.into(),
            counterpart: label.into(),
            runs: runs.len(),
            jobs: 1,
            error_p50: 0.0,
            error_p90: 0.0,
            real_mean_all: percentile_of(runs, 50.0),
            sim_mean_all: sim,
            real_mean_small: None,
            sim_mean_small: None,
            real_runs_all: runs.to_vec(),
            real_runs_small: vec![],
        }
    }

    /// a's runs (10, 12) are all faster than c's (20, 21): resolved; b's
    /// (11, 13) overlap a's, so a vs b is not; b < c is resolved too. The
    /// simulator puts c before b (18 < 19): one resolved pair flipped. Both
    /// runs rank a < b < c (run 2: 12 < 13 < 21); with b's second run at
    /// 11.5 run 2 ranks b < a and the runs disagree.
    #[test]
    fn resolved_pairs_are_the_ones_every_run_agrees_on() {
        let rows = vec![row("a", &[10.0, 12.0], 10.0), row("b", &[11.0, 13.0], 19.0), row("c", &[20.0, 21.0], 18.0)];
        let (resolved, flipped) = resolved_pairs(&rows, |r| &r.real_runs_all, |r| Some(r.sim_mean_all)).unwrap();
        let p = |a: &str, b: &str| (a.to_string(), b.to_string());
        assert_eq!(resolved, vec![p("a", "c"), p("b", "c")]);
        assert_eq!(flipped, vec![p("b", "c")]);
        assert_eq!(runs_agree(&rows, |r| &r.real_runs_all), Some(true));
        let rows = vec![row("a", &[10.0, 12.0], 10.0), row("b", &[11.0, 11.5], 19.0)];
        assert_eq!(runs_agree(&rows, |r| &r.real_runs_all), Some(false));
        let one = vec![row("a", &[10.0], 10.0), row("b", &[11.0, 11.5], 19.0)];
        assert_eq!(resolved_pairs(&one, |r| &r.real_runs_all, |r| Some(r.sim_mean_all)), None);
        assert_eq!(runs_agree(&one, |r| &r.real_runs_all), None);
    }
}
