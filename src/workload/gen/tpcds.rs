//! TPC-DS-like query DAGs after Carbyne §2.2: stages per DAG P50 8 / P95 23
//! (Table 1), critical-path length P50 5 (Table 2), barriers (stages with
//! several parents) P50 1 / P95 4 (Table 1). Stages are laid out in layers
//! along a critical path; extra stages join earlier layers; every stage
//! without children feeds the final output stage (a barrier when it has
//! several parents). Tasks are multi-resource (1–4 vcores, 1–8 GB) so
//! packing and DRF differ; widths and durations are log-normal
//! (assumptions of this generator). Cluster: 100 machines as in §5.

use super::{ms, poisson_arrivals, GenParams};
use crate::workload::rng::Rng;
use crate::workload::trace::{ClusterSpec, Job, Stage, Task, Trace};

pub fn generate(rng: &mut Rng, p: &GenParams) -> Trace {
    let cluster = ClusterSpec { nodes: p.nodes.unwrap_or(100), memory_mb: 64 * 1024, vcores: 16, rack_size: 40 };
    let n = p.jobs.unwrap_or(200);
    let mut jobs: Vec<Job> = (0..n).map(|i| dag(rng, i)).collect();
    poisson_arrivals(rng, &mut jobs, &cluster, p.load.unwrap_or(0.9));
    Trace { cluster: Some(cluster), am: None, jobs }
}

fn dag(rng: &mut Rng, i: usize) -> Job {
    // ln(23/8)/1.645 ≈ 0.64 puts the P95 at 23 stages (Table 1).
    let n_stages = (rng.lognormal(8.0, 0.64).round() as usize).clamp(2, 40);
    let depth = (rng.lognormal(5.0, 0.35).round() as usize).clamp(2, n_stages);
    // layer[k] lists stage ids; the first `depth` stages form the critical path.
    let mut layer_of: Vec<usize> = (0..depth).collect();
    for _ in depth..n_stages {
        layer_of.push(rng.int(0, depth as i64 - 2) as usize);
    }
    // Order stages by layer so `after` always names earlier stages.
    let mut order: Vec<usize> = (0..n_stages).collect();
    order.sort_by_key(|s| (layer_of[*s], *s));
    let layer: Vec<usize> = order.iter().map(|s| layer_of[*s]).collect();
    let mut after: Vec<Vec<usize>> = vec![Vec::new(); n_stages];
    for s in 0..n_stages {
        if layer[s] == 0 {
            continue;
        }
        let prev: Vec<usize> = (0..s).filter(|q| layer[*q] == layer[s] - 1).collect();
        let parent = *rng.pick(&prev);
        after[s].push(parent);
        if prev.len() > 1 && rng.chance(0.12) {
            let other = *rng.pick(&prev);
            if other != parent {
                after[s].push(other);
            }
        }
    }
    let mut has_child = vec![false; n_stages];
    for a in &after {
        for p in a {
            has_child[*p] = true;
        }
    }
    let last = n_stages - 1;
    for (s, parent) in has_child.iter().enumerate().take(last) {
        if !parent && !after[last].contains(&s) {
            after[last].push(s);
        }
    }
    let stages = (0..n_stages)
        .map(|s| {
            let scan = layer[s] == 0;
            let width = (rng.lognormal(if scan { 40.0 } else { 12.0 }, 1.0).round() as usize).clamp(1, 600);
            let mean_s = rng.lognormal(if scan { 10.0 } else { 15.0 }, 0.8);
            let vcores = *rng.pick(&[1, 1, 2, 4]);
            let memory_mb = *rng.pick(&[1024, 2048, 4096, 8192]);
            let mut a = after[s].clone();
            a.sort_unstable();
            Stage {
                name: if s == last {
                    "output".into()
                } else if scan {
                    format!("scan{s}")
                } else {
                    format!("stage{s}")
                },
                after: a,
                slowstart: None,
                memory_mb,
                vcores,
                tasks: (0..width).map(|_| Task { duration_ms: ms(mean_s * rng.skew(0.3)), used: None }).collect(),
            }
        })
        .collect();
    Job {
        id: format!("tpcds-{i:05}"),
        submit_ms: 0,
        user: format!("analyst{}", i % 10),
        name: format!("q{}", rng.int(1, 99)),
        queue: "default".into(),
        category: None,
        gang: false,
        app_type: None,
        am: None,
        stages,
    }
}
