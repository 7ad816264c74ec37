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

use super::input::{discover, read_run, JobsFile};
use crate::config::Config;
use crate::metrics::stats::percentile;
use crate::sim::calibration::{Calibration, Dist, HostModel, SharedHost, StartLoad, BACKGROUND_WEIGHTS};
use crate::sim::sls::SlsModel;
use crate::sim::{simulate, SimOptions, SimOutcome};
use crate::workload::{ClusterSpec, Trace};
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

/// How a scheduler the harness ran with allocation rounds between node
/// heartbeats allocated: its label then ends in `-async<ms>` (`SchedulerSpec`'s
/// `@async=<ms>`) or, for Shepherd with heartbeats that only report,
/// `-asynconly<ms>` (`@async-only=<ms>`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Rounds<'a> {
    /// The label without the suffix.
    base: &'a str,
    interval_ms: i64,
    /// Node heartbeats also allocate: Shepherd's `@async=`. The
    /// CapacityScheduler's heartbeats only report while its asynchronous
    /// thread runs (its `nodeUpdate` allocates only without one), and so do
    /// Shepherd's with `@async-only=`.
    heartbeats_allocate: bool,
}

fn rounds_of(label: &str) -> Option<Rounds<'_>> {
    let (base, rest) = label.rsplit_once("-async")?;
    let (ms, rounds_only) = match rest.strip_prefix("only") {
        Some(ms) => (ms, true),
        None => (rest, false),
    };
    if ms.is_empty() || !ms.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let heartbeats_allocate = !rounds_only && base.starts_with("shepherd");
    Some(Rounds { base, interval_ms: ms.parse().ok()?, heartbeats_allocate })
}

/// The NodeManagers' heartbeat interval of a run (`jobs.json`'s
/// `nm_heartbeat_ms`, the harness's `--nm-heartbeat-ms`), which its
/// simulation must use; outputs from before the harness recorded it ran at
/// YARN's default, the simulator's default too.
fn heartbeat_ms(jobs: &JobsFile) -> i64 {
    jobs.nm_heartbeat_ms.filter(|ms| *ms > 0).unwrap_or(SimOptions::default().heartbeat_ms)
}

/// The engine's stand-in for a harness scheduler, configured as the harness
/// configured the real one.
fn counterpart(label: &str, run_dir: &Path) -> Result<(String, Config), String> {
    if label.starts_with("shepherd") {
        let path = run_dir.join("work").join("shepherd.toml");
        let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        let c = Config::parse(&text).map_err(|e| format!("{}: {e}", path.display()))?;
        return Ok((c.scheduler.policy.clone(), c));
    }
    // A run that says which Shepherd config stands in for its scheduler
    // (the SLS runner writes one with the CapacityScheduler's or
    // FairScheduler's queues).
    let path = run_dir.join("work").join("counterpart.toml");
    if path.exists() {
        let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        let c = Config::parse(&text).map_err(|e| format!("{}: {e}", path.display()))?;
        return Ok((c.scheduler.policy.clone(), c));
    }
    // The CapacityScheduler keeps YARN's default of one off-switch container
    // per node heartbeat (`per-node-heartbeat.maximum-offswitch-assignments`
    // = 1), and a SleepJob's asks are all off-switch (its splits name no
    // hosts), so its stand-in places at most one container per heartbeat.
    // Node-local asks (other programs' input splits) are not under that cap
    // in YARN; the stand-in caps them too, an approximation. The harness
    // sets the FairScheduler's `assignmultiple` (no per-heartbeat cap), as
    // Shepherd's default.
    let (policy, per_heartbeat) = match label {
        "capacity" => ("capacity", 1),
        "fair" => ("drf", 0),
        other => return Err(format!("{other}: no engine counterpart (expected shepherd-*, capacity or fair)")),
    };
    let text = format!(
        "[scheduler]\npolicy = \"{policy}\"\nmax_assignments_per_heartbeat = {per_heartbeat}\n[[queue]]\nname = \"default\"\ncapacity = 1.0\nmax_am_share = 0.5\n"
    );
    Ok((policy.to_string(), Config::parse(&text).map_err(|e| e.to_string())?))
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

/// The cluster flags of `calibrate --cluster-model sls`: each overrides
/// the cluster of `jobs.json` (else the trace's); all three stand in for a
/// cluster neither names.
#[derive(Debug, Clone, Copy, Default)]
pub struct ClusterFlags {
    pub nodes: Option<u32>,
    pub memory_mb: Option<i64>,
    pub vcores: Option<i64>,
}

impl ClusterFlags {
    fn resolve(&self, base: Option<ClusterSpec>) -> Result<ClusterSpec, String> {
        match (base, self.nodes, self.memory_mb, self.vcores) {
            (Some(c), n, m, v) => Ok(ClusterSpec {
                nodes: n.unwrap_or(c.nodes),
                memory_mb: m.unwrap_or(c.memory_mb),
                vcores: v.unwrap_or(c.vcores),
                rack_size: c.rack_size,
            }),
            (None, Some(nodes), Some(memory_mb), Some(vcores)) => Ok(ClusterSpec { nodes, memory_mb, vcores, rack_size: 40 }),
            (None, ..) => Err("no cluster size in jobs.json or the trace: pass --nodes, --node-memory-mb and --node-vcores".into()),
        }
    }
}

/// `calibrate --cluster-model sls`, no fitting: every scheduler of `out`
/// (runs in Hadoop's Scheduler Load Simulator, or any harness output)
/// simulated with the simulator's SLS model (`crate::sim::sls`) under its
/// counterpart, and compared per job as [`check`] does. The trace's task
/// durations are used as given: SLS runs each task for exactly that long.
pub fn check_sls(out: &Path, trace: &Trace, model: SlsModel, cluster: ClusterFlags, seed: u64) -> Result<CheckReport, String> {
    let mut rows = Vec::new();
    for (label, dirs) in discover(out)? {
        if rounds_of(&label).is_some() {
            return Err(format!("{label}: allocation rounds between heartbeats have no counterpart in the SLS model"));
        }
        let (policy, config) = counterpart(&label, &dirs[0].1)?;
        let first = read_run(&dirs[0].1, &label, dirs[0].0)?;
        let base = first
            .jobs
            .cluster
            .map(|c| ClusterSpec { nodes: c.nodes as u32, memory_mb: c.memory_mb, vcores: c.vcores, rack_size: 40 })
            .or_else(|| trace.cluster.clone());
        let cluster = cluster.resolve(base).map_err(|e| format!("{label}: {e}"))?;
        let opts = SimOptions { sls: Some(model), seed, heartbeat_ms: heartbeat_ms(&first.jobs), ..SimOptions::default() };
        let outcome = simulate(trace, &cluster, config, &opts)?;
        rows.push(score(label, policy, &dirs, &first.jobs, &outcome)?);
    }
    Ok(CheckReport { calibration: SlsModel::calibration(), rows })
}

/// One scheduler's row: its simulated JCTs against those of its real runs
/// (`dirs`, `first` the first run's jobs).
fn score(label: String, policy: String, dirs: &[(u32, PathBuf)], first: &JobsFile, outcome: &SimOutcome) -> Result<SchedulerCheck, String> {
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
        real_mean_all: median_of(&real_all),
        sim_mean_all: mean(&sim_all),
        real_mean_small: (!real_small.is_empty()).then(|| median_of(&real_small)),
        sim_mean_small: (!sim_small.is_empty()).then(|| mean(&sim_small)),
        real_runs_all: real_all,
        real_runs_small: real_small,
    })
}

fn mean(v: &[f64]) -> f64 {
    if v.is_empty() {
        f64::NAN
    } else {
        v.iter().sum::<f64>() / v.len() as f64
    }
}

fn median_of(v: &[f64]) -> f64 {
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    percentile(&s, 50.0)
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

/// Where `shepherd calibrate` writes the fitted model by default.
pub fn default_output(out: &Path) -> PathBuf {
    out.join("calibration.json")
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
            real_mean_all: median_of(runs),
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

    #[test]
    fn async_labels_are_the_ones_with_a_round_interval() {
        let rounds = |base, interval_ms, heartbeats_allocate| Some(Rounds { base, interval_ms, heartbeats_allocate });
        assert_eq!(rounds_of("shepherd-drf-async20"), rounds("shepherd-drf", 20, true));
        assert_eq!(rounds_of("shepherd-composed-asynconly5"), rounds("shepherd-composed", 5, false));
        // The CapacityScheduler's heartbeats only report while its thread runs.
        assert_eq!(rounds_of("capacity-async5"), rounds("capacity", 5, false));
        assert_eq!(rounds_of("shepherd-carbyne-holds-async1000"), rounds("shepherd-carbyne-holds", 1000, true));
        for label in [
            "shepherd-drf",
            "capacity",
            "fair",
            "shepherd-async",
            "shepherd-async-x",
            "capacity-async20b",
            "shepherd-drf-asynconly",
            "shepherd-drf-asyncx5",
        ] {
            assert_eq!(rounds_of(label), None, "{label}");
        }
    }

    #[test]
    fn runs_are_simulated_with_the_heartbeat_interval_they_had() {
        let jobs = |extra: &str| -> JobsFile {
            serde_json::from_str(&format!(r#"{{"scheduler": "capacity", "poll_ms": 500{extra}, "jobs": []}}"#)).unwrap()
        };
        assert_eq!(heartbeat_ms(&jobs(r#", "nm_heartbeat_ms": 3000"#)), 3000);
        // Outputs from before the harness recorded it: YARN's default.
        assert_eq!(heartbeat_ms(&jobs("")), 1000);
        assert_eq!(SimOptions::default().heartbeat_ms, 1000);
    }

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
    fn sls_check_uses_the_runs_counterpart_and_the_trace_as_given() {
        use crate::workload::{Job, Stage, Task};
        let out = std::env::temp_dir().join(format!("shepherd-sls-check-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&out);
        for label in ["capacity", "fair"] {
            let run = out.join(label).join("run-1");
            std::fs::create_dir_all(run.join("work")).unwrap();
            let jobs = format!(
                r#"{{"scheduler": "{label}", "nm_heartbeat_ms": 1000, "jobs": [{{"id": "j", "app_id": "application_1_0001", "user": "u", "category": "small", "submit_ms": 5000, "finish_ms": 21000, "state": "FINISHED", "final_status": "SUCCEEDED"}}]}}"#
            );
            std::fs::write(run.join("jobs.json"), jobs).unwrap();
            std::fs::write(run.join("samples.jsonl"), "").unwrap();
        }
        std::fs::write(out.join("capacity/run-1/work/counterpart.toml"), "[scheduler]\npolicy = \"fifo\"\n").unwrap();
        let job = Job {
            id: "j".into(),
            submit_ms: 0,
            user: "u".into(),
            name: "j".into(),
            queue: "default".into(),
            category: Some("small".into()),
            gang: false,
            am: None,
            stages: vec![Stage {
                name: "map".into(),
                after: vec![],
                slowstart: None,
                memory_mb: 1024,
                vcores: 1,
                tasks: vec![Task { duration_ms: 10_000, used: None }],
            }],
        };
        let trace = Trace { cluster: None, am: None, jobs: vec![job] };
        let none = check_sls(&out, &trace, SlsModel::default(), ClusterFlags::default(), 1);
        assert!(none.is_err_and(|e| e.contains("--nodes")));
        let flags = ClusterFlags { nodes: Some(1), memory_mb: Some(4096), vcores: Some(4) };
        let report = check_sls(&out, &trace, SlsModel::default(), flags, 1).unwrap();
        let rows: Vec<(&str, &str, f64, f64)> =
            report.rows.iter().map(|r| (r.label.as_str(), r.counterpart.as_str(), r.error_p50, r.sim_mean_all)).collect();
        assert_eq!(rows, vec![("capacity", "fifo", 0.0, 16_000.0), ("fair", "drf", 0.0, 16_000.0)]);
        let _ = std::fs::remove_dir_all(&out);
    }

    #[test]
    fn map_and_reduce_priorities_are_stages() {
        assert_eq!(stage_of_priority(20), Some(0));
        assert_eq!(stage_of_priority(5), Some(0));
        assert_eq!(stage_of_priority(10), Some(1));
        assert_eq!(stage_of_priority(0), None);
    }
}
