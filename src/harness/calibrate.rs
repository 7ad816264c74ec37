//! `shepherd calibrate`: fit the simulator's cluster model to real runs of
//! the comparison harness, then check the simulator against them.
//!
//! **Fit.** Every Shepherd run of the harness saves the engine's activity
//! log (`activity.json`: containers and apps that are gone, node
//! heartbeats). From those:
//!
//! * `am_ask_ms`: app submitted → the RM asked for its AM container;
//! * `am_launch_ms` / `task_launch_ms`: container allocated → RUNNING;
//! * `am_startup_ms`: AM RUNNING → the app's first task ask;
//! * `task_overhead_ms`: task container RUNNING → finished, minus the
//!   task's own work — measured on `SleepJob`s only, whose work is known
//!   (each task sleeps its stage's mean trace duration);
//! * `am_exit_ms`: the app's last task finished → app gone;
//! * `heartbeat_phase`: each NodeManager's heartbeat offset within the
//!   heartbeat interval (its median `time mod interval`, as a fraction);
//! * the AM container's size (median of the AM containers).
//!
//! **Workload.** The HiBench programs' tasks (WordCount, Sort, TeraSort) do
//! real work whose time the trace does not know; their stages' durations
//! are replaced by the median measured container run time minus the median
//! task overhead, per (program, stage). SleepJobs keep the trace's.
//!
//! **Check.** For every scheduler of the output directory, the trace is
//! simulated under its counterpart — a Shepherd policy as itself (with the
//! run's own `shepherd.toml`), the CapacityScheduler as the engine's
//! `capacity` policy (one container per node heartbeat, YARN's off-switch
//! default) and the FairScheduler as `drf`, each with the harness's AM
//! share (0.5) — and per job the simulated JCT is compared
//! with the real one: |sim − real| ÷ real, median and P90 over every job
//! of every run; then whether the schedulers rank the same by mean JCT,
//! for all jobs and for small ones. A non-Shepherd run whose directory has
//! `work/counterpart.toml` (the SLS runner writes one) is simulated under
//! that Shepherd config instead of the built-in stand-in.
//!
//! **SLS check** (`--cluster-model sls`, [`check_sls`]): no fitting; each
//! scheduler's runs (in Hadoop's Scheduler Load Simulator) against the
//! simulator's SLS model (`crate::sim::sls`), the trace's durations as given.
//!
//! The check's parts, each in a file of its own: `counterpart` (the engine's
//! stand-in for each scheduler the harness ran, with the run's heartbeat
//! interval and allocation rounds), `report` (per-job JCT errors and the
//! schedulers' rankings, simulated against real) and `sls` (the SLS check).

mod counterpart;
mod report;
mod sls;

pub use report::{resolved_pairs, runs_agree, CheckReport, Pairs, SchedulerCheck};
pub use sls::{check_sls, ClusterFlags};

use super::input::{discover, read_run, JobsFile};
use crate::metrics::stats::percentile;
use crate::sim::calibration::{Calibration, Dist, HostModel, SharedHost, StartLoad, BACKGROUND_WEIGHTS};
use crate::sim::{simulate, SimOptions};
use crate::workload::{ClusterSpec, Trace};
use counterpart::{counterpart, heartbeat_ms, rounds_of};
use report::score;
use serde::Deserialize;
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

/// Quantile points kept per distribution.
const POINTS: usize = 21;

#[derive(Debug, Deserialize)]
struct Activity {
    containers: Vec<ContainerRec>,
    apps: Vec<AppRec>,
    #[serde(default)]
    heartbeats: Vec<Heartbeat>,
}

#[derive(Debug, Deserialize)]
struct ContainerRec {
    app: String,
    priority: i32,
    am: bool,
    memory_mb: i64,
    vcores: i64,
    allocated_ms: i64,
    launched_ms: Option<i64>,
    finished_ms: Option<i64>,
}

#[derive(Debug, Deserialize)]
struct AppRec {
    app: String,
    submit_ms: i64,
    am_ask_ms: Option<i64>,
    first_task_ask_ms: Option<i64>,
    removed_ms: i64,
}

#[derive(Debug, Deserialize)]
struct Heartbeat {
    node: u32,
    at_ms: i64,
}

/// MapReduce's scheduler-key priorities: maps 20 (5 for a failed map's
/// retry), reduces 10. The trace's stage 0 is the maps, stage 1 the reduces.
fn stage_of_priority(p: i32) -> Option<usize> {
    match p {
        20 | 5 => Some(0),
        10 => Some(1),
        _ => None,
    }
}

/// One Shepherd run's activity with the run's job list.
struct ShepherdRun {
    activity: Activity,
    jobs: JobsFile,
}

fn shepherd_runs(out: &Path) -> Result<Vec<ShepherdRun>, String> {
    let mut runs = Vec::new();
    for (label, dirs) in discover(out)? {
        // A run with rounds between heartbeats places containers when no
        // node heartbeats: its ask-to-allocation times are not the ones the
        // simulator's heartbeat model stands for.
        if !label.starts_with("shepherd") || rounds_of(&label).is_some() {
            continue;
        }
        for (k, dir) in dirs {
            let path = dir.join("activity.json");
            let Ok(text) = std::fs::read_to_string(&path) else { continue };
            if text.trim() == "null" {
                continue;
            }
            let activity: Activity = serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?;
            let jobs = read_run(&dir, &label, k)?.jobs;
            runs.push(ShepherdRun { activity, jobs });
        }
    }
    if runs.is_empty() {
        return Err(format!(
            "{}: no Shepherd run with an activity.json (re-run scripts/compare-yarn.sh with a shepherd:<policy> scheduler)",
            out.display()
        ));
    }
    Ok(runs)
}

/// Mean trace duration of each stage of each job, by trace job id.
fn stage_means(trace: &Trace) -> HashMap<&str, Vec<f64>> {
    trace
        .jobs
        .iter()
        .map(|j| {
            let means =
                j.stages.iter().map(|s| s.tasks.iter().map(|t| t.duration_ms as f64).sum::<f64>() / s.tasks.len().max(1) as f64).collect();
            (j.id.as_str(), means)
        })
        .collect()
}

/// What the real runs say about the HiBench programs' own task times.
#[derive(Debug, Clone, Default)]
pub struct MeasuredWork {
    /// (program, stage) → (the host's load over the task's container, its
    /// run time RUNNING → finished in ms) of each task.
    pub runs: BTreeMap<(String, usize), Vec<(StartLoad, f64)>>,
}

impl MeasuredWork {
    /// The median work of a (program, stage) task under `cal`: its run time
    /// less the overhead `cal` gives a task that starts under that load.
    pub fn work_ms(&self, key: &(String, usize), cal: &Calibration) -> Option<f64> {
        let base = cal.task_overhead_ms.median();
        let w: Vec<f64> =
            self.runs.get(key)?.iter().map(|(load, ran)| ran - cal.shared_host.map_or(base, |h| h.duration_of(base, load))).collect();
        (!w.is_empty()).then(|| Dist::of(&w, 3).median())
    }
}

/// A task's set-up when its own work is unknown (a HiBench program in a run
/// with no SleepJob to measure it on): the shipped model's median, ms.
const SETUP_GUESS_MS: i64 = 10_000;

/// What loaded the shared host during one run: the containers RUNNING
/// (launched ≤ t < finished; still running at the end counts as running),
/// and the start-up work in progress — each AM from RUNNING to its first
/// task ask, each task from RUNNING for its set-up (a SleepJob task's run
/// time less its sleep; another task's the run's median SleepJob set-up,
/// at most its run time).
struct HostLoad {
    running: Vec<(i64, i64)>,
    busy: Vec<(i64, i64)>,
}

impl HostLoad {
    fn of(run: &ShepherdRun, means: &HashMap<&str, Vec<f64>>) -> HostLoad {
        let containers = &run.activity.containers;
        let running = containers.iter().filter_map(|c| Some((c.launched_ms?, c.finished_ms.unwrap_or(i64::MAX)))).collect();
        let first_ask: HashMap<&str, i64> = run.activity.apps.iter().filter_map(|a| Some((a.app.as_str(), a.first_task_ask_ms?))).collect();
        let sleep_setup = |c: &ContainerRec| -> Option<i64> {
            let (launched, finished) = (c.launched_ms?, c.finished_ms?);
            let job = run.jobs.jobs.iter().find(|j| j.app_id.as_deref() == Some(c.app.as_str()))?;
            let mean = means.get(job.id.as_str())?.get(stage_of_priority(c.priority)?)?;
            (job.kind == "sleep").then(|| ((finished - launched) as f64 - mean).max(0.0) as i64)
        };
        let mut setups: Vec<f64> = containers.iter().filter(|c| !c.am).filter_map(sleep_setup).map(|v| v as f64).collect();
        setups.sort_by(f64::total_cmp);
        let guess = if setups.is_empty() { SETUP_GUESS_MS } else { percentile(&setups, 50.0) as i64 };
        let busy = containers
            .iter()
            .filter_map(|c| {
                let launched = c.launched_ms?;
                if c.am {
                    return Some((launched, *first_ask.get(c.app.as_str())?));
                }
                let ran = c.finished_ms? - launched;
                Some((launched, launched + sleep_setup(c).unwrap_or(guess.min(ran))))
            })
            .filter(|(a, b)| b > a)
            .collect();
        HostLoad { running, busy }
    }

    /// The load a start-up saw from `from` to `to` (ms, run time).
    fn load(&self, from: i64, to: i64) -> StartLoad {
        let running_at_start = self.running.iter().filter(|(l, f)| *l <= from && from < *f).count();
        let mut points: Vec<i64> = vec![from];
        for &(a, b) in self.busy.iter().chain(&self.running) {
            for p in [a, b] {
                if p > from && p < to {
                    points.push(p);
                }
            }
        }
        points.sort_unstable();
        points.dedup();
        let busy = points
            .into_iter()
            .map(|p| {
                let count = |v: &[(i64, i64)]| v.iter().filter(|(a, b)| *a <= p && p < *b).count();
                ((p - from) as f64, count(&self.busy).max(1), count(&self.running))
            })
            .collect();
        StartLoad { running_at_start, busy }
    }
}

/// Fit the cluster model from every Shepherd run of each harness output
/// directory, with the trace it ran; a shared host's contention applied as
/// `host_model` says.
/// `host_speed` fixes the shared host's start-ups at full speed instead of
/// fitting it; `background_weight` fixes w (processor sharing: a running
/// container's load against a start-up's), `None` fits it with k.
pub fn fit(
    sources: &[(&Path, &Trace)],
    host_model: HostModel,
    host_speed: Option<f64>,
    background_weight: Option<f64>,
) -> Result<(Calibration, MeasuredWork), String> {
    if let Some(w) = background_weight {
        if !(w >= 0.0 && w.is_finite()) {
            return Err(format!("--background-weight {w}: must be a number ≥ 0"));
        }
        if w > 0.0 && host_model != HostModel::ProcessorSharing {
            return Err("--background-weight needs --host-model processor-sharing".into());
        }
    }
    let mut runs = Vec::new();
    for (out, trace) in sources {
        let means = stage_means(trace);
        runs.extend(shepherd_runs(out)?.into_iter().map(|r| (r, means.clone())));
    }
    let (mut am_ask, mut am_launch, mut task_launch, mut am_exit) = (vec![], vec![], vec![], vec![]);
    // (the host's load, duration): start-up work that a shared host slows down.
    let mut am_startup: Vec<(StartLoad, f64)> = vec![];
    let mut overhead: Vec<(StartLoad, f64)> = vec![];
    let (mut am_mem, mut am_cores, mut phases) = (vec![], vec![], vec![]);
    let mut work: BTreeMap<(String, usize), Vec<(StartLoad, f64)>> = BTreeMap::new();
    for (run, means) in &runs {
        let host = HostLoad::of(run, means);
        let job_of: HashMap<&str, (&str, &str)> =
            run.jobs.jobs.iter().filter_map(|j| Some((j.app_id.as_deref()?, (j.id.as_str(), j.kind.as_str())))).collect();
        let mut am_running: HashMap<&str, i64> = HashMap::new();
        let mut last_task_end: HashMap<&str, i64> = HashMap::new();
        for c in &run.activity.containers {
            let (Some(launched), Some(finished)) = (c.launched_ms, c.finished_ms) else { continue };
            if c.am {
                am_launch.push((launched - c.allocated_ms) as f64);
                am_running.insert(c.app.as_str(), launched);
                am_mem.push(c.memory_mb as f64);
                am_cores.push(c.vcores as f64);
                continue;
            }
            task_launch.push((launched - c.allocated_ms) as f64);
            let end = last_task_end.entry(c.app.as_str()).or_insert(finished);
            *end = (*end).max(finished);
            let (Some((id, kind)), Some(stage)) = (job_of.get(c.app.as_str()), stage_of_priority(c.priority)) else { continue };
            let ran = (finished - launched) as f64;
            if *kind == "sleep" {
                if let Some(m) = means.get(id).and_then(|m| m.get(stage)) {
                    let setup = ran - m;
                    overhead.push((host.load(launched, launched + setup.max(0.0) as i64), setup));
                }
            } else {
                work.entry((kind.to_string(), stage)).or_default().push((host.load(launched, finished), ran));
            }
        }
        for a in &run.activity.apps {
            if let Some(ask) = a.am_ask_ms {
                am_ask.push((ask - a.submit_ms) as f64);
            }
            if let (Some(first), Some(up)) = (a.first_task_ask_ms, am_running.get(a.app.as_str())) {
                am_startup.push((host.load(*up, first), (first - up) as f64));
            }
            if let Some(end) = last_task_end.get(a.app.as_str()) {
                am_exit.push((a.removed_ms - end) as f64);
            }
        }
        phases.extend(heartbeat_phases(&run.activity.heartbeats));
    }
    let median = |v: &[f64]| if v.is_empty() { f64::NAN } else { Dist::of(v, 3).median() };
    let mem = median(&am_mem);
    // The NodeManagers of the harness share one machine: fit how start-up
    // work slows down with the load, and keep the idle-host times (the work
    // each sample implies).
    let weights: Vec<f64> = match background_weight {
        Some(w) => vec![w],
        None => BACKGROUND_WEIGHTS.to_vec(),
    };
    let shared_host = match host_speed {
        Some(k) if k > 0.0 => {
            Some(SharedHost { containers_at_full_speed: k, model: host_model, background_weight: background_weight.unwrap_or(0.0) })
        }
        Some(k) => return Err(format!("--host-speed {k}: must be > 0")),
        None => SharedHost::fit_weights(&[&am_startup, &overhead], host_model, &weights),
    };
    let idle = |v: &[(StartLoad, f64)]| -> Vec<f64> { v.iter().map(|(l, d)| shared_host.map_or(*d, |h| h.work_of(*d, l))).collect() };

    let cal = Calibration {
        source: format!(
            "shepherd calibrate {}: {} Shepherd run(s), {} containers, {} apps",
            sources.iter().map(|(out, _)| out.display().to_string()).collect::<Vec<_>>().join(" + "),
            runs.len(),
            runs.iter().map(|(r, _)| r.activity.containers.len()).sum::<usize>(),
            runs.iter().map(|(r, _)| r.activity.apps.len()).sum::<usize>()
        ),
        am_memory_mb: if mem.is_finite() { mem as i64 } else { 1536 },
        am_vcores: median(&am_cores).max(1.0) as i64,
        am_ask_ms: Dist::of(&am_ask, POINTS),
        am_launch_ms: Dist::of(&am_launch, POINTS),
        am_startup_ms: Dist::of(&idle(&am_startup), POINTS),
        task_launch_ms: Dist::of(&task_launch, POINTS),
        task_overhead_ms: Dist::of(&idle(&overhead), POINTS),
        am_exit_ms: Dist::of(&am_exit, POINTS),
        heartbeat_phase: Dist::of(&phases, POINTS),
        shared_host,
    };
    Ok((cal, MeasuredWork { runs: work }))
}

/// Each node's heartbeat offset within the interval (the median gap
/// between its heartbeats), as a fraction of it.
fn heartbeat_phases(beats: &[Heartbeat]) -> Vec<f64> {
    let mut by_node: BTreeMap<u32, Vec<i64>> = BTreeMap::new();
    for b in beats {
        by_node.entry(b.node).or_default().push(b.at_ms);
    }
    let mut gaps: Vec<f64> = Vec::new();
    for times in by_node.values_mut() {
        times.sort();
        gaps.extend(times.windows(2).map(|w| (w[1] - w[0]) as f64).filter(|g| *g > 0.0));
    }
    if gaps.is_empty() {
        return Vec::new();
    }
    gaps.sort_by(f64::total_cmp);
    let interval = percentile(&gaps, 50.0).max(1.0);
    by_node
        .values()
        .map(|times| {
            let mut offsets: Vec<f64> = times.iter().map(|t| (*t as f64).rem_euclid(interval) / interval).collect();
            offsets.sort_by(f64::total_cmp);
            percentile(&offsets, 50.0)
        })
        .collect()
}

/// The trace with the HiBench programs' stage durations replaced by what
/// the real runs measured (run time minus the task overhead `cal` adds).
pub fn measured_trace(trace: &Trace, kinds: &HashMap<String, String>, work: &MeasuredWork, cal: &Calibration) -> Trace {
    let mut t = trace.clone();
    for j in t.jobs.iter_mut() {
        let Some(kind) = kinds.get(&j.id) else { continue };
        for (s, stage) in j.stages.iter_mut().enumerate() {
            if let Some(w) = work.work_ms(&(kind.clone(), s), cal) {
                let d = w.max(1.0) as i64;
                stage.tasks.iter_mut().for_each(|task| task.duration_ms = d);
            }
        }
    }
    t
}

/// Simulate every scheduler of `out` with `cal` and compare with its real runs.
pub fn check(out: &Path, trace: &Trace, cal: &Calibration, work: &MeasuredWork, seed: u64) -> Result<CheckReport, String> {
    let mut rows = Vec::new();
    for (label, dirs) in discover(out)? {
        // A scheduler run with rounds between heartbeats is simulated with
        // the engine's rounds at its interval, and with ended containers
        // reaching the RM at their node's heartbeat, as they reach YARN
        // (without that a round would place on room YARN cannot see).
        let rounds = rounds_of(&label);
        let (policy, config) = counterpart(rounds.map_or(label.as_str(), |r| r.base), &dirs[0].1)?;
        let policy = match rounds {
            Some(r) if r.heartbeats_allocate => format!("{policy}@{}ms", r.interval_ms),
            Some(r) => format!("{policy}@{}ms-rounds-only", r.interval_ms),
            None => policy,
        };
        let first = read_run(&dirs[0].1, &label, dirs[0].0)?;
        let kinds: HashMap<String, String> = first.jobs.jobs.iter().map(|j| (j.id.clone(), j.kind.clone())).collect();
        let cluster = match (first.jobs.cluster, &trace.cluster) {
            (Some(c), _) => ClusterSpec { nodes: c.nodes as u32, memory_mb: c.memory_mb, vcores: c.vcores, rack_size: 40 },
            (None, Some(c)) => c.clone(),
            (None, None) => return Err(format!("{label}: no cluster size in jobs.json or the trace")),
        };
        let sim_trace = measured_trace(trace, &kinds, work, cal);
        let opts = SimOptions {
            cluster_model: Some(cal.clone()),
            seed,
            heartbeat_ms: heartbeat_ms(&first.jobs),
            round_ms: rounds.map_or(0, |r| r.interval_ms),
            ends_at_heartbeat: rounds.is_some(),
            report_only_heartbeats: rounds.is_some_and(|r| !r.heartbeats_allocate),
            ..SimOptions::default()
        };
        let outcome = simulate(&sim_trace, &cluster, config, &opts)?;
        rows.push(score(label, policy, &dirs, &first.jobs, &outcome)?);
    }
    Ok(CheckReport { calibration: cal.clone(), rows })
}

/// Where `shepherd calibrate` writes the fitted model by default.
pub fn default_output(out: &Path) -> PathBuf {
    out.join("calibration.json")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn phases_are_offsets_within_the_median_interval() {
        // Node 0 beats at 100 ms past each second, node 1 at 600 ms past.
        let mut beats = Vec::new();
        for k in 0..10 {
            beats.push(Heartbeat { node: 0, at_ms: 10_000 + k * 1000 + 100 });
            beats.push(Heartbeat { node: 1, at_ms: 10_000 + k * 1000 + 600 });
        }
        let p = heartbeat_phases(&beats);
        assert_eq!(p.len(), 2);
        assert!((p[0] - 0.1).abs() < 1e-9 && (p[1] - 0.6).abs() < 1e-9, "{p:?}");
        assert!(heartbeat_phases(&[]).is_empty());
    }

    /// `calibrate --cluster-model sls` on a two-scheduler output: one job,
    /// one 10 s map, one node; SLS's clocks make its JCT 16 s
    /// (`crate::sim::sls`'s `one_map_on_one_node`), which both runs
    /// recorded. `capacity` names its stand-in in `work/counterpart.toml`
    /// (here FIFO), `fair` has none (the built-in `drf`); the cluster comes
    /// from the flags, as neither `jobs.json` nor the trace names one.

    #[test]
    fn map_and_reduce_priorities_are_stages() {
        assert_eq!(stage_of_priority(20), Some(0));
        assert_eq!(stage_of_priority(5), Some(0));
        assert_eq!(stage_of_priority(10), Some(1));
        assert_eq!(stage_of_priority(0), None);
    }
}
