//! A trace at the scale of Carbyne §5's Facebook workload: 7 000 MapReduce
//! jobs with 650 000 tasks arriving over six hours on 3 000 machines, a
//! significant fraction map-only. Job widths are heavy-tailed (log-normal,
//! σ = 2) and rescaled to hit the task total; task runtimes are log-normal
//! (maps shorter than reduces, capped at one hour) and scaled so the offered load is `load`
//! (default 0.7). Used by `shepherd bench-sim`. `span_ms` replaces the six
//! hours, both for the arrivals (uniform over the span) and for the load.

use super::{ms, scale_to_load, GenParams};
use crate::workload::rng::Rng;
use crate::workload::trace::{ClusterSpec, Job, Stage, Task, Trace};

pub const SPAN_MS: i64 = 6 * 3600 * 1000;
/// Longest task after load scaling (one hour): keeps one log-normal outlier
/// from stretching the makespan far past the six-hour trace.
pub const MAX_TASK_MS: i64 = 3600 * 1000;

pub fn generate(rng: &mut Rng, p: &GenParams) -> Trace {
    let cluster = ClusterSpec { nodes: p.nodes.unwrap_or(3000), memory_mb: 32 * 1024, vcores: 8, rack_size: 40 };
    let n = p.jobs.unwrap_or(7000);
    let span = p.span_ms.unwrap_or(SPAN_MS);
    let target_tasks = p.tasks.unwrap_or(650_000 * n / 7000) as f64;
    let raw: Vec<f64> = (0..n).map(|_| rng.lognormal(10.0, 2.0)).collect();
    let scale = target_tasks / raw.iter().sum::<f64>();
    let mut jobs: Vec<Job> = raw
        .iter()
        .enumerate()
        .map(|(i, w)| {
            let width = ((w * scale).round() as usize).clamp(1, 50_000);
            let map_only = rng.chance(0.4) || width < 2;
            let maps = if map_only { width } else { (width * 4 / 5).max(1) };
            let reduces = width - maps;
            let m = rng.lognormal(30.0, 0.8);
            let mut stages = vec![Stage {
                name: "map".into(),
                after: vec![],
                slowstart: None,
                memory_mb: 2048,
                vcores: 1,
                tasks: (0..maps).map(|_| Task { duration_ms: ms(m * rng.skew(0.3)), used: None }).collect(),
            }];
            if reduces > 0 {
                let r = rng.lognormal(60.0, 0.8);
                stages.push(Stage {
                    name: "reduce".into(),
                    after: vec![0],
                    slowstart: None,
                    memory_mb: 4096,
                    vcores: 1,
                    tasks: (0..reduces).map(|_| Task { duration_ms: ms(r * rng.skew(0.3)), used: None }).collect(),
                });
            }
            Job {
                id: format!("fb-{i:05}"),
                submit_ms: rng.int(0, span - 1),
                user: format!("user{}", rng.int(0, 99)),
                name: format!("fbjob{}", rng.int(0, 499)),
                queue: "default".into(),
                category: None,
                gang: false,
                app_type: None,
                am: None,
                stages,
            }
        })
        .collect();
    // Scale runtimes to the offered load over the six hours (or the span).
    scale_to_load(&mut jobs, &cluster, p.load.unwrap_or(0.7), span, MAX_TASK_MS);
    jobs.sort_by_key(|j| j.submit_ms);
    Trace { cluster: Some(cluster), am: None, jobs }
}
