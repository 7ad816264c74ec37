//! Deriving one run's per-job records and metrics from the harness's raw
//! observations (definitions in the [module docs](super)).
//!
//! All times are made relative to the run's origin, its first submission
//! (RM `startedTime`), so 60 s fairness windows start there.

use super::input::{ClusterInfo, JobObs, RunInput, Sample};
use crate::metrics::fairness::{self, Fairness, ShareTrack};
use crate::metrics::stats::Dist;
use crate::metrics::summary::CategorySummary;
use crate::metrics::timeline::Timeline;
use crate::metrics::JobRecord;
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// Jain's index window (Carbyne §5).
pub const WINDOW_MS: i64 = 60_000;

/// Where a job's first task container came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum WaitFrom {
    /// The first poll that saw the app with ≥ 2 running containers (AM + a task).
    Samples,
    /// No poll saw a task container (a job shorter than the polling interval,
    /// or an uber job running inside its AM): the finish time stands in, so
    /// the waiting time equals the JCT.
    Finish,
}

/// One job of one run. Times are relative to the run's origin.
#[derive(Debug, Clone)]
pub struct YarnJob {
    pub obs: JobObs,
    pub submit_ms: Option<i64>,
    pub am_launch_ms: Option<i64>,
    pub first_task_ms: Option<i64>,
    pub finish_ms: Option<i64>,
    pub wait_from: Option<WaitFrom>,
    /// The record the metrics are computed from: only for jobs that
    /// finished SUCCEEDED.
    pub record: Option<JobRecord>,
}

impl YarnJob {
    /// AM wait: submission → AM container launch.
    pub fn am_wait_ms(&self) -> Option<i64> {
        Some(self.am_launch_ms? - self.submit_ms?)
    }
}

/// A category's (or all jobs') JCT, waiting time and makespan — the
/// simulator's [`CategorySummary`] — plus the AM wait.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct YarnCategory {
    #[serde(flatten)]
    pub base: CategorySummary,
    /// Submission → AM container launch (jobs with a launch time).
    pub am_wait_ms: Dist,
}

impl YarnCategory {
    pub fn of(jobs: &[&YarnJob]) -> YarnCategory {
        let records: Vec<&JobRecord> = jobs.iter().filter_map(|j| j.record.as_ref()).collect();
        let am: Vec<f64> = jobs.iter().filter_map(|j| j.am_wait_ms()).map(|v| v as f64).collect();
        YarnCategory { base: CategorySummary::of(&records), am_wait_ms: Dist::of(&am) }
    }
}

/// Time-weighted mean allocated share of the cluster, and of measured use
/// when the run sampled it (what over-subscription raises).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct AllocatedShare {
    pub alloc_memory: f64,
    pub alloc_vcores: f64,
    pub used_memory: Option<f64>,
    pub used_vcores: Option<f64>,
    /// Time-weighted share of the cluster's memory held by node
    /// reservations; None when the samples do not record it.
    pub reserved_memory: Option<f64>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct NotSucceeded {
    pub id: String,
    pub app_id: Option<String>,
    pub state: String,
    pub final_status: String,
    pub error: Option<String>,
}

/// `metrics.json` of one run: the simulator's summary shape (all jobs and
/// per category) for what a real cluster shows.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RunMetrics {
    pub label: String,
    pub scheduler: String,
    pub run: u32,
    pub poll_ms: Option<i64>,
    pub cluster: Option<ClusterInfo>,
    /// Epoch ms of the first submission; every other time is relative to it.
    pub origin_epoch_ms: i64,
    /// End of the run (last finish), relative.
    pub end_ms: i64,
    pub samples: usize,
    /// Jobs in `jobs.json`.
    pub jobs: usize,
    /// Jobs that finished SUCCEEDED: the only ones in `all` and `categories`.
    pub succeeded: usize,
    pub not_succeeded: Vec<NotSucceeded>,
    /// Succeeded jobs whose waiting time fell back to their finish time.
    pub wait_from_finish: Vec<String>,
    pub all: YarnCategory,
    pub categories: BTreeMap<String, YarnCategory>,
    /// Over [first submit, last finish].
    pub utilization: AllocatedShare,
    /// Jain's index across users per 60 s window: mean, min, max.
    pub fairness: Fairness,
    /// Containers preempted over all jobs (None: not recorded).
    pub preempted_containers: Option<i64>,
}

/// Everything derived from one run.
#[derive(Debug, Clone)]
pub struct RunResult {
    /// The run's directory (`OUT/<label>/run-<k>`).
    pub dir: std::path::PathBuf,
    pub metrics: RunMetrics,
    pub jobs: Vec<YarnJob>,
    /// (window start, relative ms; Jain's index across users).
    pub fairness_windows: Vec<(i64, f64)>,
    /// Allocated memory share as a step function over [0, end]:
    /// (relative ms, share) corner points.
    pub memory_share: Vec<(i64, f64)>,
}

/// Cluster totals of a sample (falling back to nodes × per-node capacity
/// from `jobs.json` when the RM reported 0, e.g. before NodeManagers registered).
fn totals(s: &Sample, cluster: Option<ClusterInfo>, input: &RunInput) -> Result<(f64, f64), String> {
    let (mut mb, mut vc) = (s.cluster.total_mb, s.cluster.total_vcores);
    if let Some(c) = cluster {
        if mb <= 0 {
            mb = c.nodes * c.memory_mb;
        }
        if vc <= 0 {
            vc = c.nodes * c.vcores;
        }
    }
    if mb <= 0 || vc <= 0 {
        return Err(format!(
            "{}: sample at t_ms {} has total_mb {} / total_vcores {} and jobs.json gives no cluster size",
            input.dir.join("samples.jsonl").display(),
            s.t_ms,
            s.cluster.total_mb,
            s.cluster.total_vcores
        ));
    }
    Ok((mb as f64, vc as f64))
}

pub fn derive(input: &RunInput) -> Result<RunResult, String> {
    let f = &input.jobs;
    let samples = &input.samples;
    let origin = f.jobs.iter().filter_map(JobObs::submitted).min().or_else(|| samples.first().map(|s| s.t_ms)).unwrap_or(0);
    // End of the run: last finish of a submitted job; a submitted job that
    // never finished keeps the run open until the last poll.
    let mut end = f.jobs.iter().filter(|j| j.submitted().is_some()).filter_map(JobObs::finished).max().unwrap_or(origin);
    if f.jobs.iter().any(|j| j.submitted().is_some() && j.finished().is_none()) {
        end = end.max(samples.last().map_or(origin, |s| s.t_ms));
    }
    let end = (end - origin).max(0);

    // First task container: first poll with ≥ 2 running containers.
    let mut first_task: HashMap<&str, i64> = HashMap::new();
    for s in samples {
        for a in &s.apps {
            if a.running_containers >= 2 {
                first_task.entry(a.app_id.as_str()).or_insert(s.t_ms);
            }
        }
    }

    let mut jobs = Vec::with_capacity(f.jobs.len());
    for o in &f.jobs {
        let rel = |t: Option<i64>| t.map(|t| t - origin);
        let submit = rel(o.submitted());
        let finish = rel(o.finished());
        let seen = o.app_id.as_deref().and_then(|a| first_task.get(a)).map(|t| t - origin);
        let (first, from) = match (submit, seen, finish) {
            // A poll's clock and the RM's timestamps can disagree by a few ms.
            (Some(s), Some(t), _) => (Some(t.max(s).min(finish.unwrap_or(i64::MAX))), Some(WaitFrom::Samples)),
            (Some(_), None, Some(e)) => (Some(e), Some(WaitFrom::Finish)),
            _ => (None, None),
        };
        let record = o.succeeded().then(|| JobRecord {
            id: o.id.clone(),
            user: o.user.clone(),
            name: o.name.clone(),
            category: o.category.clone(),
            tasks: o.maps + o.reduces,
            work_ms: 0,
            submit_ms: submit.unwrap_or(0),
            first_start_ms: first.unwrap_or(0),
            finish_ms: finish.unwrap_or(0),
            estimate_ms: None,
        });
        jobs.push(YarnJob {
            obs: o.clone(),
            submit_ms: submit,
            am_launch_ms: rel(o.am_launched()),
            first_task_ms: first,
            finish_ms: finish,
            wait_from: from,
            record,
        });
    }

    // Utilization: allocated ÷ total, piecewise constant from each poll to
    // the next (0 before the first poll), integrated over [0, end].
    let mut timeline = Timeline::new(WINDOW_MS, 0);
    let mut current = [0.0; 4];
    let measured = samples.iter().any(|s| s.cluster.used_mb.is_some() && s.cluster.used_vcores.is_some());
    let mut memory_share = vec![(0, 0.0)];
    // Per-user dominant share of the cluster held by the user's apps.
    let app_user: HashMap<&str, &str> =
        f.jobs.iter().filter(|j| j.submitted().is_some()).filter_map(|j| Some((j.app_id.as_deref()?, j.user.as_str()))).collect();
    let users: BTreeSet<&str> = app_user.values().copied().collect();
    let mut tracks: BTreeMap<&str, ShareTrack> = users.iter().map(|u| (*u, ShareTrack::new(0))).collect();
    // Reserved memory share, piecewise constant like the others: (value
    // since, since when, integral so far).
    let reservations_recorded = samples.iter().any(|s| s.cluster.reserved_mb.is_some());
    let mut reserved = (0.0, 0_i64, 0.0);
    for s in samples {
        let t = s.t_ms - origin;
        if t > end {
            break;
        }
        let t = t.max(0);
        let (tmb, tvc) = totals(s, f.cluster, input)?;
        reserved.2 += reserved.0 * (t - reserved.1) as f64;
        reserved = (s.cluster.reserved_mb.unwrap_or(0) as f64 / tmb, t, reserved.2);
        let v = [
            s.cluster.allocated_mb as f64 / tmb,
            s.cluster.allocated_vcores as f64 / tvc,
            s.cluster.used_mb.unwrap_or(0.0) / tmb,
            s.cluster.used_vcores.unwrap_or(0.0) / tvc,
        ];
        let delta = [v[0] - current[0], v[1] - current[1], v[2] - current[2], v[3] - current[3]];
        timeline.add(t, delta);
        memory_share.push((t, current[0]));
        memory_share.push((t, v[0]));
        current = v;
        let mut per_user: HashMap<&str, (i64, i64)> = HashMap::new();
        for a in &s.apps {
            if let Some(u) = app_user.get(a.app_id.as_str()) {
                let e = per_user.entry(u).or_default();
                e.0 += a.allocated_mb;
                e.1 += a.allocated_vcores;
            }
        }
        for (u, tr) in tracks.iter_mut() {
            let (mb, vc) = per_user.get(u).copied().unwrap_or((0, 0));
            tr.set(t, (mb as f64 / tmb).max(vc as f64 / tvc), WINDOW_MS);
        }
    }
    timeline.advance(end);
    memory_share.push((end, current[0]));
    let mean = timeline.mean(0, end);
    reserved.2 += reserved.0 * (end - reserved.1) as f64;
    let reserved_memory = reservations_recorded.then(|| if end > 0 { reserved.2 / end as f64 } else { 0.0 });

    // Jain's index across users per window; a user is present while any of
    // their jobs is (submitted, not yet finished); demand unbounded (1.0), so
    // each present user's max-min fair share is 1/n.
    let mut presence: BTreeMap<&str, Vec<(i64, i64)>> = BTreeMap::new();
    for j in &jobs {
        if let Some(s) = j.submit_ms {
            presence.entry(j.obs.user.as_str()).or_default().push((s, j.finish_ms.unwrap_or(end)));
        }
    }
    for tr in tracks.values_mut() {
        tr.advance(end, WINDOW_MS);
    }
    let idle = ShareTrack::new(0);
    let users: Vec<(Vec<(i64, i64)>, &ShareTrack)> =
        presence.into_iter().map(|(u, v)| (fairness::merge_intervals(v), tracks.get(u).unwrap_or(&idle))).collect();
    let fairness_windows = fairness::jain_across(&users, end, WINDOW_MS);

    let ok: Vec<&YarnJob> = jobs.iter().filter(|j| j.record.is_some()).collect();
    let mut groups: BTreeMap<String, Vec<&YarnJob>> = BTreeMap::new();
    for j in &ok {
        groups.entry(j.obs.category.clone()).or_default().push(j);
    }
    let metrics = RunMetrics {
        label: input.label.clone(),
        scheduler: f.scheduler.clone(),
        run: input.run,
        poll_ms: f.poll_ms,
        cluster: f.cluster,
        origin_epoch_ms: origin,
        end_ms: end,
        samples: samples.len(),
        jobs: jobs.len(),
        succeeded: ok.len(),
        not_succeeded: jobs
            .iter()
            .filter(|j| j.record.is_none())
            .map(|j| NotSucceeded {
                id: j.obs.id.clone(),
                app_id: j.obs.app_id.clone(),
                state: j.obs.state.clone(),
                final_status: j.obs.final_status.clone(),
                error: j.obs.error.clone(),
            })
            .collect(),
        wait_from_finish: ok.iter().filter(|j| j.wait_from == Some(WaitFrom::Finish)).map(|j| j.obs.id.clone()).collect(),
        all: YarnCategory::of(&ok),
        categories: groups.into_iter().map(|(k, v)| (k, YarnCategory::of(&v))).collect(),
        utilization: AllocatedShare {
            alloc_memory: mean[0],
            alloc_vcores: mean[1],
            used_memory: measured.then_some(mean[2]),
            used_vcores: measured.then_some(mean[3]),
            reserved_memory,
        },
        fairness: fairness::summarize(&fairness_windows),
        preempted_containers: f.jobs.iter().map(|j| j.preempted_containers).try_fold(0, |acc, p| p.map(|p| acc + p.max(0))),
    };
    Ok(RunResult { dir: input.dir.clone(), metrics, jobs, fairness_windows, memory_share })
}
