//! A run's summary: JCT and waiting time (mean, P50, P95), makespan, mean
//! utilization, Jain's fairness, estimation error — for all jobs and per
//! job category. This is `metrics.json`; it holds no wall-clock numbers, so
//! the same seed gives byte-identical files.

use super::fairness::Fairness;
use super::jobs::JobRecord;
use super::stats::Dist;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CategorySummary {
    pub jobs: usize,
    pub jct_ms: Dist,
    pub wait_ms: Dist,
    /// Last finish − first submission among these jobs.
    pub makespan_ms: i64,
}

impl CategorySummary {
    pub fn of(jobs: &[&JobRecord]) -> CategorySummary {
        let jct: Vec<f64> = jobs.iter().map(|j| j.jct_ms() as f64).collect();
        let wait: Vec<f64> = jobs.iter().map(|j| j.wait_ms() as f64).collect();
        let first = jobs.iter().map(|j| j.submit_ms).min().unwrap_or(0);
        let last = jobs.iter().map(|j| j.finish_ms).max().unwrap_or(0);
        CategorySummary { jobs: jobs.len(), jct_ms: Dist::of(&jct), wait_ms: Dist::of(&wait), makespan_ms: last - first }
    }
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Utilization {
    pub alloc_memory: f64,
    pub alloc_vcores: f64,
    pub used_memory: f64,
    pub used_vcores: f64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    pub policy: String,
    pub tasks: usize,
    pub unfinished_jobs: usize,
    pub all: CategorySummary,
    pub categories: BTreeMap<String, CategorySummary>,
    pub utilization: Utilization,
    pub fairness: Fairness,
    /// Jain's index across users, each present user owed 1/n whatever it
    /// asks (`fairness::jain_across`): what `yarn-report` prints for a run
    /// on YARN or SLS as Jain (users), so the two compare. `fairness` is
    /// per job, against each job's max-min fair share.
    #[serde(default)]
    pub users_fairness: Fairness,
    /// Relative error of the policy's job-size estimates, if it makes any.
    pub estimation_error: Option<Dist>,
    pub engine_events: u64,
    pub engine_passes: u64,
    /// Ask → allocation of the task containers (AM containers apart).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub allocation_latency: Option<crate::metrics::latency::LatencyDist>,
    /// Speculative containers (ROSE), when the policy places any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub oversubscription: Option<Oversubscription>,
}

/// What over-subscription did in a simulation run.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Oversubscription {
    /// Speculative (OPPORTUNISTIC) containers started.
    pub speculative_containers: u64,
    /// Speculative containers the controller took back.
    pub evictions: u64,
    /// Container-seconds evicted containers had run (work lost, retried).
    pub wasted_container_s: f64,
    /// Mean cluster vcores actually used ÷ capacity, each node's use capped
    /// at its capacity (a node cannot run more than its cores).
    pub used_vcores_capped: f64,
}

impl Summary {
    pub fn category_names(&self) -> Vec<String> {
        self.categories.keys().cloned().collect()
    }
}

pub fn by_category(jobs: &[JobRecord]) -> BTreeMap<String, CategorySummary> {
    let mut groups: BTreeMap<String, Vec<&JobRecord>> = BTreeMap::new();
    for j in jobs {
        groups.entry(j.category.clone()).or_default().push(j);
    }
    groups.into_iter().map(|(k, v)| (k, CategorySummary::of(&v))).collect()
}

pub fn estimation_error(jobs: &[JobRecord]) -> Option<Dist> {
    let errs: Vec<f64> = jobs.iter().filter_map(JobRecord::estimation_error).collect();
    (!errs.is_empty()).then(|| Dist::of(&errs))
}
