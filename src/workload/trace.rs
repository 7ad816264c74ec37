//! Shepherd's own trace format (JSON): a cluster (optional) and jobs made of
//! stages with dependencies, each stage a list of tasks with durations.
//!
//! ```json
//! {"cluster": {"nodes": 4, "memory_mb": 8192, "vcores": 8},
//!  "jobs": [{"id": "q1", "submit_ms": 0, "user": "alice", "name": "tpcds-q1",
//!            "stages": [{"name": "map", "memory_mb": 1024, "vcores": 1,
//!                        "tasks": [{"duration_ms": 5000}]},
//!                       {"name": "reduce", "after": [0], "memory_mb": 2048, "vcores": 1,
//!                        "tasks": [{"duration_ms": 9000, "used": [1500, 1]}]}]}]}
//! ```

use crate::model::Resources;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Trace {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cluster: Option<ClusterSpec>,
    /// The ApplicationMaster container of every job that names none (the
    /// simulator's cluster model has a default otherwise).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub am: Option<AmSpec>,
    pub jobs: Vec<Job>,
}

/// An ApplicationMaster container's size.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AmSpec {
    pub memory_mb: i64,
    #[serde(default = "one")]
    pub vcores: i64,
}

fn one() -> i64 {
    1
}

/// A homogeneous cluster: `nodes` NodeManagers of the same capacity.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClusterSpec {
    pub nodes: u32,
    pub memory_mb: i64,
    pub vcores: i64,
    /// Nodes per rack (racks are named `/rack-<i>`).
    #[serde(default = "default_rack_size")]
    pub rack_size: u32,
}

/// Nodes per rack when a cluster names none.
pub const DEFAULT_RACK_SIZE: u32 = 40;

fn default_rack_size() -> u32 {
    DEFAULT_RACK_SIZE
}

impl ClusterSpec {
    pub fn capacity(&self) -> Resources {
        Resources::new(self.memory_mb, self.vcores)
    }

    /// All nodes together.
    pub fn total(&self) -> Resources {
        self.capacity().times(self.nodes as i64)
    }
}

fn default_queue() -> String {
    "default".into()
}

fn default_user() -> String {
    "user".into()
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Job {
    pub id: String,
    pub submit_ms: i64,
    #[serde(default = "default_user")]
    pub user: String,
    /// Job name; with `user` the key history-based estimators group by.
    #[serde(default)]
    pub name: String,
    #[serde(default = "default_queue")]
    pub queue: String,
    /// Reporting category (e.g. `small`, `large`); derived by the simulator
    /// from the job's demand when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub category: Option<String>,
    /// Start all containers of a stage together (the AM holds allocated
    /// containers until the whole stage is allocated).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub gang: bool,
    /// YARN's application type (`MAPREDUCE`, `SPARK`, `TEZ`, ...): what the
    /// real-cluster harness runs the job as, and what the engine is told,
    /// so policies that treat an app type apart (Spark's executors are not
    /// tasks) do so in the simulator too. Absent: `SIMULATED`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub app_type: Option<String>,
    /// Its ApplicationMaster container, if not the trace's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub am: Option<AmSpec>,
    pub stages: Vec<Stage>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Stage {
    #[serde(default)]
    pub name: String,
    /// Indices (in this job's `stages`) of the stages this one waits for.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub after: Vec<usize>,
    /// Fraction of the parents' tasks that must have finished before this
    /// stage asks for containers (MapReduce slow-start,
    /// `mapreduce.job.reduce.slowstart.completedmaps`); absent = the
    /// simulator's default (1.0 = barrier).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub slowstart: Option<f64>,
    pub memory_mb: i64,
    pub vcores: i64,
    pub tasks: Vec<Task>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Task {
    pub duration_ms: i64,
    /// Actual use `[memory_mb, vcores]` when below the request
    /// (for utilization and over-subscription studies).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub used: Option<[i64; 2]>,
}

impl Stage {
    pub fn demand(&self) -> Resources {
        Resources::new(self.memory_mb, self.vcores)
    }
}

/// DRESS θ (§III-D): a job without a category of its own counts as `small`
/// when its peak demand is at most this fraction of the cluster (10 %). The
/// simulator's default (`SimOptions::small_theta`) and the SLS writer's.
pub const DEFAULT_SMALL_THETA: f64 = 0.10;

impl Job {
    /// Total task time (container-milliseconds): the job's size for SJF/oracles.
    pub fn work_ms(&self) -> i64 {
        self.stages.iter().flat_map(|s| &s.tasks).map(|t| t.duration_ms).sum()
    }

    pub fn task_count(&self) -> usize {
        self.stages.iter().map(|s| s.tasks.len()).sum()
    }

    /// Critical path (ms): the longest chain of stages through `after`, each
    /// stage counted by its longest task. No schedule finishes the job
    /// sooner after its submission (a slow-start container does its work
    /// only after its parents), so it bounds what any policy can reach.
    pub fn critical_path_ms(&self) -> i64 {
        let mut done: Vec<i64> = Vec::with_capacity(self.stages.len());
        for s in &self.stages {
            let ready = s.after.iter().filter_map(|p| done.get(*p)).copied().max().unwrap_or(0);
            done.push(ready + s.tasks.iter().map(|t| t.duration_ms).max().unwrap_or(0));
        }
        done.into_iter().max().unwrap_or(0)
    }

    /// The job's reporting category: its own, else the one Shepherd's
    /// simulator derives — `small` when its peak demand's dominant share of
    /// the whole cluster (`cluster_total`, all nodes together) is at most
    /// `theta` (DRESS θ, `SimOptions::small_theta`), else `large`.
    pub fn category_or_derived(&self, cluster_total: &Resources, theta: f64) -> String {
        self.category.clone().unwrap_or_else(|| {
            let small = self.peak_demand().dominant_share(cluster_total) <= theta;
            if small { "small" } else { "large" }.to_string()
        })
    }

    /// Largest single-stage demand: what the job asks for at once.
    pub fn peak_demand(&self) -> Resources {
        let mut peak = Resources::ZERO;
        for s in &self.stages {
            let d = s.demand().times(s.tasks.len() as i64);
            for i in 0..2 {
                peak.0[i] = peak.0[i].max(d.0[i]);
            }
        }
        peak
    }
}

/// Most tasks one job of a trace may expand to, and most nodes a trace's
/// cluster may have: a reader refuses more (naming the job or key) rather
/// than let one bad number make the simulator allocate without bound and
/// abort. Ten times the largest jobs and clusters the papers replay.
pub const MAX_TASKS_PER_JOB: u64 = 1_000_000;
pub const MAX_NODES: usize = 1_000_000;

impl Trace {
    pub fn from_json(text: &str) -> Result<Trace, String> {
        let t: Trace = serde_json::from_str(text).map_err(|e| e.to_string())?;
        t.validate()?;
        Ok(t)
    }

    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("trace serializes")
    }

    pub fn validate(&self) -> Result<(), String> {
        if let Some(c) = &self.cluster {
            if c.nodes as usize > MAX_NODES {
                return Err(format!("cluster: `nodes` = {} is over {MAX_NODES}", c.nodes));
            }
        }
        for j in &self.jobs {
            if j.stages.is_empty() {
                return Err(format!("job {}: no stages", j.id));
            }
            for (i, s) in j.stages.iter().enumerate() {
                if s.after.iter().any(|p| *p >= i) {
                    return Err(format!("job {} stage {i}: `after` must name earlier stages", j.id));
                }
                if s.memory_mb <= 0 || s.vcores < 0 {
                    return Err(format!("job {} stage {i}: demand must be positive", j.id));
                }
                if s.tasks.iter().any(|t| t.duration_ms < 0) {
                    return Err(format!("job {} stage {i}: negative task duration", j.id));
                }
            }
        }
        Ok(())
    }

    pub fn task_count(&self) -> usize {
        self.jobs.iter().map(Job::task_count).sum()
    }

    /// Sort jobs by submission time (stable), as the simulator replays them.
    pub fn sort_by_submit(&mut self) {
        self.jobs.sort_by_key(|j| j.submit_ms);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn example_round_trips() {
        let text = include_str!("../../examples/traces/small.json");
        let t = Trace::from_json(text).unwrap();
        assert_eq!(t.jobs.len(), 3);
        let again = Trace::from_json(&t.to_json()).unwrap();
        assert_eq!(t, again);
    }

    #[test]
    fn forward_dependency_rejected() {
        let text = r#"{"jobs":[{"id":"a","submit_ms":0,"stages":[
            {"after":[1],"memory_mb":1,"vcores":1,"tasks":[]},{"memory_mb":1,"vcores":1,"tasks":[]}]}]}"#;
        assert!(Trace::from_json(text).unwrap_err().contains("after"));
    }

    #[test]
    fn critical_path_follows_dependencies() {
        // Stages 0 (10, 30 s) and 1 (5 s) run in parallel; 2 waits for both (7 s);
        // 3 waits for 1 only (20 s). Longest chain: 0 → 2 = 37 s.
        let text = r#"{"jobs":[{"id":"a","submit_ms":0,"stages":[
            {"memory_mb":1,"vcores":1,"tasks":[{"duration_ms":10000},{"duration_ms":30000}]},
            {"memory_mb":1,"vcores":1,"tasks":[{"duration_ms":5000}]},
            {"after":[0,1],"memory_mb":1,"vcores":1,"tasks":[{"duration_ms":7000}]},
            {"after":[1],"memory_mb":1,"vcores":1,"tasks":[{"duration_ms":20000}]}]}]}"#;
        let t = Trace::from_json(text).unwrap();
        assert_eq!(t.jobs[0].critical_path_ms(), 37_000);
    }
}
