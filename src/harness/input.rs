//! Reading what the YARN harness wrote: `OUT/<label>/run-<k>/jobs.json` and
//! `samples.jsonl`. Every error names the file (and, for `samples.jsonl`,
//! the line).

use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// `jobs.json`: one run of the workload under one scheduler.
#[derive(Debug, Clone, Deserialize)]
pub struct JobsFile {
    /// Scheduler as the harness names it, e.g. `shepherd:dress`, `capacity`.
    pub scheduler: String,
    #[serde(default)]
    pub label: Option<String>,
    #[serde(default)]
    pub run: Option<u32>,
    /// RM REST polling interval: the resolution of the waiting times.
    #[serde(default)]
    pub poll_ms: Option<i64>,
    /// The NodeManagers' heartbeat interval the harness set
    /// (`--nm-heartbeat-ms`); absent in older outputs, which ran at YARN's
    /// default of 1000 ms.
    #[serde(default)]
    pub nm_heartbeat_ms: Option<i64>,
    #[serde(default)]
    pub cluster: Option<ClusterInfo>,
    pub jobs: Vec<JobObs>,
}

/// The cluster as the harness configured it (per NodeManager).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct ClusterInfo {
    pub nodes: i64,
    /// Memory of one NodeManager (MB).
    pub memory_mb: i64,
    /// Vcores of one NodeManager.
    pub vcores: i64,
}

/// One job of the trace as the harness observed it through the RM's REST API.
#[derive(Debug, Clone, Deserialize)]
pub struct JobObs {
    /// Trace id (`job-0003`).
    pub id: String,
    /// `None` when submission failed.
    #[serde(default)]
    pub app_id: Option<String>,
    #[serde(default)]
    pub name: String,
    #[serde(default)]
    pub kind: String,
    pub user: String,
    #[serde(default)]
    pub queue: String,
    pub category: String,
    #[serde(default)]
    pub maps: usize,
    #[serde(default)]
    pub reduces: usize,
    /// Offset from the run's start at which the harness meant to submit.
    #[serde(default)]
    pub planned_submit_ms: Option<i64>,
    /// Epoch ms: the RM's `startedTime` (0 / null: never submitted).
    #[serde(default)]
    pub submit_ms: Option<i64>,
    /// Epoch ms: the RM's `launchTime` (AM container launched; 0 / null: never).
    #[serde(default)]
    pub am_launch_ms: Option<i64>,
    /// Epoch ms: the RM's `finishedTime` (0 / null: never finished).
    #[serde(default)]
    pub finish_ms: Option<i64>,
    #[serde(default)]
    pub state: String,
    #[serde(default)]
    pub final_status: String,
    #[serde(default)]
    pub error: Option<String>,
    /// Containers of the app the scheduler preempted (the RM's
    /// `numAMContainerPreempted` + `numNonAMContainerPreempted`; ROSE's
    /// evictions are preemptions). Absent in older harness output.
    #[serde(default)]
    pub preempted_containers: Option<i64>,
}

fn positive(v: Option<i64>) -> Option<i64> {
    v.filter(|t| *t > 0)
}

impl JobObs {
    /// Submission (RM `startedTime`), if the job reached the RM.
    pub fn submitted(&self) -> Option<i64> {
        self.app_id.as_ref().and(positive(self.submit_ms))
    }
    pub fn am_launched(&self) -> Option<i64> {
        positive(self.am_launch_ms)
    }
    pub fn finished(&self) -> Option<i64> {
        positive(self.finish_ms)
    }
    /// FINISHED with final status SUCCEEDED: only such jobs enter the JCT,
    /// waiting-time and makespan statistics.
    pub fn succeeded(&self) -> bool {
        self.submitted().is_some() && self.finished().is_some() && self.state == "FINISHED" && self.final_status == "SUCCEEDED"
    }
}

/// One RM REST poll (one line of `samples.jsonl`).
#[derive(Debug, Clone, Deserialize)]
pub struct Sample {
    pub t_ms: i64,
    pub cluster: ClusterSample,
    /// RUNNING applications at this poll.
    #[serde(default)]
    pub apps: Vec<AppSample>,
}

#[derive(Debug, Clone, Copy, Deserialize)]
pub struct ClusterSample {
    pub allocated_mb: i64,
    pub total_mb: i64,
    pub allocated_vcores: i64,
    pub total_vcores: i64,
    /// Measured use, summed over NodeManagers: their containers' physical
    /// memory (MiB) and CPU (vcores, in each NM's own vcores), as the NMs'
    /// container monitors report it (`/ws/v1/cluster/nodes`
    /// `resourceUtilization`). Absent when the run did not measure it.
    #[serde(default)]
    pub used_mb: Option<f64>,
    #[serde(default)]
    pub used_vcores: Option<f64>,
    /// Memory held by node reservations (MiB; the RM's root queue
    /// `reservedMB`): a node kept for one app's ask that does not fit yet,
    /// as the CapacityScheduler and FairScheduler do. Absent when the run
    /// did not record it (the SLS comparison's `JobRecorder` does).
    #[serde(default)]
    pub reserved_mb: Option<i64>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct AppSample {
    pub app_id: String,
    #[serde(default)]
    pub user: String,
    pub allocated_mb: i64,
    pub allocated_vcores: i64,
    pub running_containers: i64,
}

/// One run as read from disk.
#[derive(Debug, Clone)]
pub struct RunInput {
    pub dir: PathBuf,
    /// The label directory's name.
    pub label: String,
    /// `k` of `run-<k>`.
    pub run: u32,
    pub jobs: JobsFile,
    /// In time order.
    pub samples: Vec<Sample>,
}

/// A label and its runs: (k, `run-<k>` directory).
pub type LabelDirs = (String, Vec<(u32, PathBuf)>);

/// Label directories of `out` (sorted by name), each with its `run-<k>`
/// directories (sorted by k). Directories without any `run-*` inside (and
/// plain files) are not labels and are skipped.
pub fn discover(out: &Path) -> Result<Vec<LabelDirs>, String> {
    let rd = std::fs::read_dir(out).map_err(|e| format!("cannot read directory {}: {e}", out.display()))?;
    let mut labels = Vec::new();
    for entry in rd {
        let entry = entry.map_err(|e| format!("{}: {e}", out.display()))?;
        let path = entry.path();
        if !path.is_dir() {
            continue;
        }
        let label = entry.file_name().to_string_lossy().into_owned();
        let mut runs = Vec::new();
        let inner = std::fs::read_dir(&path).map_err(|e| format!("cannot read directory {}: {e}", path.display()))?;
        for r in inner {
            let r = r.map_err(|e| format!("{}: {e}", path.display()))?;
            let name = r.file_name().to_string_lossy().into_owned();
            let Some(k) = name.strip_prefix("run-") else { continue };
            if !r.path().is_dir() {
                continue;
            }
            let k: u32 = k.parse().map_err(|_| format!("{}: run directory name must be run-<number>", r.path().display()))?;
            runs.push((k, r.path()));
        }
        if !runs.is_empty() {
            runs.sort();
            labels.push((label, runs));
        }
    }
    if labels.is_empty() {
        return Err(format!("{}: no <label>/run-<k>/ directories found", out.display()));
    }
    labels.sort();
    Ok(labels)
}

/// Read `jobs.json` and `samples.jsonl` of one run directory.
pub fn read_run(dir: &Path, label: &str, run: u32) -> Result<RunInput, String> {
    let jobs_path = dir.join("jobs.json");
    let text = std::fs::read_to_string(&jobs_path).map_err(|e| format!("cannot read {}: {e}", jobs_path.display()))?;
    let jobs: JobsFile = serde_json::from_str(&text).map_err(|e| format!("{}: malformed jobs.json: {e}", jobs_path.display()))?;
    let mut seen = std::collections::HashSet::new();
    for j in &jobs.jobs {
        if !seen.insert(j.id.as_str()) {
            return Err(format!("{}: job id {} appears twice", jobs_path.display(), j.id));
        }
    }
    if let Some(r) = jobs.run {
        if r != run {
            eprintln!("warning: {} says run {r} but lies in run-{run}; using {run}", jobs_path.display());
        }
    }
    if let Some(l) = &jobs.label {
        if l != label {
            eprintln!("warning: {} says label {l} but lies in {label}/; using {label}", jobs_path.display());
        }
    }
    let samples_path = dir.join("samples.jsonl");
    let text = std::fs::read_to_string(&samples_path).map_err(|e| format!("cannot read {}: {e}", samples_path.display()))?;
    let mut samples = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let s: Sample =
            serde_json::from_str(line).map_err(|e| format!("{} line {}: malformed sample: {e}", samples_path.display(), i + 1))?;
        samples.push(s);
    }
    samples.sort_by_key(|s| s.t_ms);
    Ok(RunInput { dir: dir.to_path_buf(), label: label.to_string(), run, jobs, samples })
}
