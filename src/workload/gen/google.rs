//! Google-cluster-like single-stage jobs after SLearn §4: thin jobs (fewer
//! than thinLimit = 3 tasks) and wide jobs up to 150 tasks (SLearn drops
//! wider ones, §4.3), task-runtime variation within a job ("across space")
//! and across runs of the same job ("across time") set from Table 4's P50
//! CoVs, recurring jobs (user + name) for history-based predictors (60 % of
//! jobs recur, per Morpheus as cited in §2.3), and Poisson arrivals giving an
//! average system load ≈ 1 (Table 5). 1 250 jobs as SLearn's extracted traces.
//! The default cluster (150 nodes × 8 vcores) runs 1 200 tasks at once; the
//! paper's runs 150 (§5.2.1 drops wider jobs as they "will have to be
//! scheduled in more than one phase"), which `--nodes 19` reproduces
//! (`PAPER=1 scripts/slearn-sim.sh`, docs/results/slearn.md). With `span_ms` the
//! arrivals span that instead, and task runtimes are scaled so the load is
//! still `load` (each capped at [`MAX_TASK_S`]).

use super::{arrivals_at_load, ms, GenParams};
use crate::workload::rng::Rng;
use crate::workload::trace::{ClusterSpec, Job, Stage, Task, Trace};

/// Longest task (one hour): with Google 2019's heavy skew a few log-normal
/// draws would otherwise run for many hours after the last arrival and turn
/// the run into one straggler (an assumption of this generator).
pub const MAX_TASK_S: f64 = 3600.0;

pub struct Variant {
    pub name: &'static str,
    /// CoV of a recurring job's mean task runtime across runs (Table 4, P50 over time).
    pub cov_time: f64,
    /// CoV of task runtimes within one job (Table 4, P50 over space).
    pub cov_space: f64,
}

pub const GOOGLE_2011: Variant = Variant { name: "g11", cov_time: 0.20, cov_space: 0.04 };
pub const GOOGLE_2019: Variant = Variant { name: "g19", cov_time: 1.35, cov_space: 0.70 };

pub fn generate(rng: &mut Rng, p: &GenParams, v: &Variant) -> Trace {
    let cluster = ClusterSpec { nodes: p.nodes.unwrap_or(150), memory_mb: 32 * 1024, vcores: 8, rack_size: 40 };
    let n = p.jobs.unwrap_or(1250);
    let classes = (n / 10).max(1);
    // Per recurring class: (typical width, typical mean task runtime s).
    let class: Vec<(usize, f64)> = (0..classes).map(|_| (width(rng), rng.lognormal(60.0, 1.2))).collect();
    let mut jobs: Vec<Job> = (0..n)
        .map(|i| {
            let recurring = rng.chance(0.6);
            let (c, w, mean) = if recurring {
                let c = rng.int(0, classes as i64 - 1) as usize;
                let (w, m) = class[c];
                (Some(c), w, m * rng.skew(v.cov_time))
            } else {
                (None, width(rng), rng.lognormal(60.0, 1.2))
            };
            let name = match c {
                Some(c) => format!("{}-job{c}", v.name),
                None => format!("{}-adhoc{i}", v.name),
            };
            Job {
                id: format!("{}-{i:05}", v.name),
                submit_ms: 0,
                user: format!("user{}", c.unwrap_or(i) % 50),
                name,
                queue: "default".into(),
                category: Some(if w < 3 { "thin" } else { "wide" }.into()),
                gang: false,
                app_type: None,
                am: None,
                stages: vec![Stage {
                    name: "tasks".into(),
                    after: vec![],
                    slowstart: None,
                    memory_mb: 1024 * rng.int(1, 4),
                    vcores: 1,
                    tasks: (0..w).map(|_| Task { duration_ms: ms((mean * rng.skew(v.cov_space)).min(MAX_TASK_S)), used: None }).collect(),
                }],
            }
        })
        .collect();
    arrivals_at_load(rng, &mut jobs, &cluster, p.load.unwrap_or(1.0), p.span_ms, ms(MAX_TASK_S));
    Trace { cluster: Some(cluster), am: None, jobs }
}

/// Half the jobs thin (1–2 tasks), the rest log-uniform in 3..=150.
fn width(rng: &mut Rng) -> usize {
    if rng.chance(0.5) {
        rng.int(1, 2) as usize
    } else {
        (3f64.ln() + rng.unit() * (150f64.ln() - 3f64.ln())).exp().round().clamp(3.0, 150.0) as usize
    }
}
