//! What the CLI's `simulate`, `compare` and `bench-sim` run: a workload
//! (trace file or generator), a cluster, a base config and simulator
//! options, run under one or several policies.

use super::options::SimOptions;
use super::parallel;
use super::run::simulate;
use crate::config::Config;
use crate::metrics::compare::{self, Factors, SpeedupSummary};
use crate::metrics::RunOutcome;
use crate::report;
use crate::report::csv::CsvText;
use crate::workload::gen::{self, GenParams};
use crate::workload::{self, ClusterSpec, Trace};
use std::path::{Path, PathBuf};

pub struct Experiment {
    pub trace: Trace,
    pub cluster: ClusterSpec,
    pub config: Config,
    pub opts: SimOptions,
}

/// Where the jobs come from.
pub enum Source {
    File(PathBuf),
    Generate(String, GenParams),
}

impl Experiment {
    /// `cluster`: explicit cluster, else the trace's, else 100 nodes of 16 vcores / 64 GB.
    pub fn new(source: &Source, config: Config, cluster: Option<ClusterSpec>, opts: SimOptions) -> Result<Experiment, String> {
        let trace = match source {
            Source::File(p) => workload::load(p)?,
            Source::Generate(kind, params) => gen::generate(kind, params)?,
        };
        let cluster = cluster.or_else(|| trace.cluster.clone()).unwrap_or(ClusterSpec {
            nodes: 100,
            memory_mb: 64 * 1024,
            vcores: 16,
            rack_size: 40,
        });
        Ok(Experiment { trace, cluster, config, opts })
    }

    pub fn config_for(&self, policy: &str) -> Result<Config, String> {
        let mut c = self.config.clone();
        c.scheduler.policy = policy.to_string();
        c.validate().map_err(|e| e.to_string())?;
        Ok(c)
    }

    pub fn run(&self, policy: &str) -> Result<RunOutcome, String> {
        simulate(&self.trace, &self.cluster, self.config_for(policy)?, &self.opts)
    }

    /// Run every policy on the host's cores and compare against `baseline`.
    pub fn compare(&self, policies: &[String], baseline: &str) -> Result<Comparison, String> {
        let mut all = Experiment::compare_each(std::slice::from_ref(self), policies, baseline, parallel::default_workers())?;
        Ok(all.pop().expect("one experiment, one comparison"))
    }

    /// The same comparison on each experiment (`compare --seeds`: one per
    /// seed). Every (experiment, policy) run goes to one pool of `workers`
    /// threads ([`parallel::run_all`]), so a slow policy's runs overlap the
    /// others' across experiments; comparison `i` is experiment `i`'s.
    pub fn compare_each(exps: &[Experiment], policies: &[String], baseline: &str, workers: usize) -> Result<Vec<Comparison>, String> {
        let mut names: Vec<String> = vec![baseline.to_string()];
        names.extend(policies.iter().filter(|p| *p != baseline).cloned());
        let Some(first) = exps.first() else { return Ok(Vec::new()) };
        for p in &names {
            first.config_for(p)?;
        }
        // Runs side by side print no progress of their own: one line here
        // as each ends.
        let progress = first.opts.progress;
        let runs: Vec<(usize, &str)> = (0..exps.len()).flat_map(|e| names.iter().map(move |p| (e, p.as_str()))).collect();
        let mut ended = 0;
        let outcomes = parallel::run_all(
            &runs,
            workers,
            |&(e, policy)| {
                let exp = &exps[e];
                simulate(&exp.trace, &exp.cluster, exp.config_for(policy)?, &SimOptions { progress: false, ..exp.opts.clone() })
            },
            |i, _| {
                ended += 1;
                if progress {
                    let (e, policy) = runs[i];
                    let of = if exps.len() > 1 { format!(" on seed {}", exps[e].opts.seed) } else { String::new() };
                    eprintln!("simulated {policy}{of} ({ended}/{})", runs.len());
                }
            },
        );
        let mut outcomes = outcomes
            .into_iter()
            .zip(&runs)
            .map(|(r, (_, policy))| r.map_err(|_| format!("simulating {policy} panicked")).and_then(|run| run))
            .collect::<Result<Vec<RunOutcome>, String>>()?
            .into_iter();
        Ok((0..exps.len()).map(|_| Comparison::of(baseline, outcomes.by_ref().take(names.len()).collect())).collect())
    }
}

pub struct Comparison {
    pub baseline: String,
    pub runs: Vec<RunOutcome>,
    pub factors: Vec<Factors>,
    pub speedups: Vec<SpeedupSummary>,
}

impl Comparison {
    /// Factors and per-job speedups of `runs[1..]` against `runs[0]`, the
    /// baseline's run.
    fn of(baseline: &str, runs: Vec<RunOutcome>) -> Comparison {
        let base = &runs[0];
        let mut factors: Vec<Factors> = Vec::new();
        let mut speedups: Vec<SpeedupSummary> = Vec::new();
        for r in &runs[1..] {
            factors.extend(compare::table(&base.summary, &r.summary));
            speedups.push(compare::speedup_summary(&r.summary.policy, &compare::speedups(&base.jobs, &r.jobs)));
        }
        Comparison { baseline: baseline.to_string(), runs, factors, speedups }
    }

    pub fn text(&self) -> String {
        let summaries: Vec<_> = self.runs.iter().map(|r| r.summary.clone()).collect();
        format!(
            "{}{}\n{}\n{}",
            report::table::absolute(&summaries),
            report::table::oversubscription(&summaries),
            report::table::factors(&self.baseline, &self.factors),
            report::table::speedups(&self.baseline, &self.speedups)
        )
    }

    /// One sub-directory per policy plus `comparison.json` and a joint CDF plot.
    pub fn write(&self, dir: &Path) -> std::io::Result<()> {
        for r in &self.runs {
            report::files::write_run(&dir.join(&r.summary.policy), r)?;
        }
        let json = serde_json::json!({
            "baseline": self.baseline,
            "summaries": self.runs.iter().map(|r| &r.summary).collect::<Vec<_>>(),
            "factors": self.factors,
            "speedups": self.speedups,
        });
        std::fs::write(dir.join("comparison.json"), serde_json::to_string_pretty(&json).expect("json") + "\n")?;
        let per: Vec<(String, Vec<f64>)> =
            self.runs.iter().map(|r| (r.summary.policy.clone(), r.jobs.iter().map(|j| j.jct_ms() as f64 / 1000.0).collect())).collect();
        std::fs::write(dir.join("jct_cdf.svg"), report::files::jct_cdf_svg(&per))?;
        let mut csv = CsvText::with_header(&["policy", "category", "jobs", "mean_jct", "p50_jct", "p95_jct", "makespan", "fairness"]);
        for f in &self.factors {
            csv.row([
                f.policy.clone(),
                f.category.clone(),
                f.jobs.to_string(),
                format!("{:.4}", f.mean_jct),
                format!("{:.4}", f.p50_jct),
                format!("{:.4}", f.p95_jct),
                format!("{:.4}", f.makespan),
                f.fairness.map(|x| format!("{x:.4}")).unwrap_or_default(),
            ]);
        }
        std::fs::write(dir.join("factors.csv"), csv.finish())?;
        std::fs::write(dir.join("speedups.csv"), self.speedups_csv())
    }

    /// Per-job speedup of every candidate over the baseline, one column per policy.
    pub fn speedups_csv(&self) -> String {
        let base = &self.runs[0];
        let cols: Vec<std::collections::HashMap<String, f64>> =
            self.runs[1..].iter().map(|r| compare::speedups(&base.jobs, &r.jobs).into_iter().collect()).collect();
        let header: Vec<&str> = std::iter::once("job").chain(self.runs[1..].iter().map(|r| r.summary.policy.as_str())).collect();
        let mut csv = CsvText::with_header(&header);
        for j in &base.jobs {
            let speedups = cols.iter().map(|c| c.get(&j.id).map(|x| format!("{x:.4}")).unwrap_or_default());
            csv.row(std::iter::once(j.id.clone()).chain(speedups));
        }
        csv.finish()
    }
}

/// Peak resident set (VmHWM) of this process in KiB, from /proc/self/status.
pub fn peak_rss_kib() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/self/status").ok()?;
    s.lines().find(|l| l.starts_with("VmHWM:")).and_then(|l| l.split_whitespace().nth(1)).and_then(|v| v.parse().ok())
}
