//! HiBench mix of DRESS §V: WordCount, Sort, TeraSort, K-means, Logistic
//! Regression, Bayes, Scan, Join, PageRank and NWeight jobs (20 per
//! experiment in the paper) on a small congested cluster (5 nodes), with a
//! settable share of small jobs (Figs. 10–13 use 10, 20, 30, 40 %).
//!
//! DRESS calls a job small when its request is at most θ = 10 % of the
//! cluster (§III-D; "less than 10 containers" in §V). Stage shapes follow the
//! paper's Figs. 2–4 (WordCount: 20 maps, 4 reduces; PageRank: two MapReduce
//! rounds); task durations are assumptions of this generator (tens of
//! seconds, as Figs. 2–4 show), with 10 % within-phase skew. Arrivals are
//! Poisson at offered load `load` (default 1.2); with `span_ms` they span
//! that instead and task runtimes are scaled to keep the load. `max_rounds`
//! cuts the iterative benchmarks (K-means, PageRank, ...) to their first
//! rounds: 1 makes every job map-only or map→reduce.

use super::{arrivals_at_load, ms, GenParams};
use crate::workload::rng::Rng;
use crate::workload::trace::{ClusterSpec, Job, Stage, Task, Trace};

/// (benchmark, MapReduce rounds, reduce ÷ map width, map s, reduce s)
const BENCHMARKS: &[(&str, usize, f64, f64, f64)] = &[
    ("wordcount", 1, 0.2, 15.0, 20.0),
    ("sort", 1, 0.25, 12.0, 25.0),
    ("terasort", 1, 0.5, 14.0, 30.0),
    ("kmeans", 3, 0.1, 10.0, 8.0),
    ("lr", 3, 0.1, 8.0, 6.0),
    ("bayes", 2, 0.2, 12.0, 15.0),
    ("scan", 1, 0.0, 10.0, 0.0),
    ("join", 2, 0.3, 12.0, 18.0),
    ("pagerank", 2, 0.2, 14.0, 16.0),
    ("nweight", 3, 0.2, 12.0, 14.0),
];

pub fn cluster(nodes: u32) -> ClusterSpec {
    ClusterSpec { nodes, memory_mb: 32 * 1024, vcores: 16, rack_size: 40 }
}

pub fn generate(rng: &mut Rng, p: &GenParams) -> Trace {
    let cluster = cluster(p.nodes.unwrap_or(5));
    let n = p.jobs.unwrap_or(20);
    let small_share = p.small_share.unwrap_or(0.3);
    let slots = (cluster.vcores * cluster.nodes as i64) as f64;
    // θ = 10 % of the cluster, in 1-vcore containers (DRESS §III-D).
    let small_max = ((0.10 * slots).floor() as usize).max(2);
    let n_small = (small_share * n as f64).round() as usize;
    let mut smalls: Vec<bool> = (0..n).map(|i| i < n_small).collect();
    for i in (1..n).rev() {
        let k = rng.int(0, i as i64) as usize;
        smalls.swap(i, k);
    }
    let mut jobs: Vec<Job> = smalls
        .iter()
        .enumerate()
        .map(|(i, small)| {
            let (bench, rounds, red_ratio, map_s, red_s) = *rng.pick(BENCHMARKS);
            let rounds = rounds.min(p.max_rounds.unwrap_or(rounds));
            let width =
                if *small { rng.int(2, small_max as i64) as usize } else { rng.int(small_max as i64 + 1, (slots * 0.75) as i64) as usize };
            let mut stages = Vec::new();
            for r in 0..rounds {
                let maps = if r == 0 { width } else { (width / 2).max(1) };
                let reduces =
                    if *small { ((maps as f64 * red_ratio).ceil() as usize).min(maps) } else { (maps as f64 * red_ratio).ceil() as usize };
                let after = if stages.is_empty() { vec![] } else { vec![stages.len() - 1] };
                let m_mean = map_s * rng.uniform(0.8, 1.2);
                stages.push(Stage {
                    name: format!("map{r}"),
                    after,
                    slowstart: None,
                    memory_mb: 2048,
                    vcores: 1,
                    tasks: (0..maps).map(|_| Task { duration_ms: ms(m_mean * rng.skew(0.1)), used: Some([1536, 1]) }).collect(),
                });
                if reduces > 0 && red_s > 0.0 {
                    let r_mean = red_s * rng.uniform(0.8, 1.2);
                    stages.push(Stage {
                        name: format!("reduce{r}"),
                        after: vec![stages.len() - 1],
                        slowstart: None,
                        memory_mb: 2048,
                        vcores: 1,
                        tasks: (0..reduces).map(|_| Task { duration_ms: ms(r_mean * rng.skew(0.1)), used: Some([1792, 1]) }).collect(),
                    });
                }
            }
            Job {
                id: format!("hibench-{i:04}"),
                submit_ms: 0,
                user: "hibench".into(),
                name: bench.into(),
                queue: "default".into(),
                category: Some(if *small { "small" } else { "large" }.into()),
                gang: false,
                app_type: None,
                am: None,
                stages,
            }
        })
        .collect();
    arrivals_at_load(rng, &mut jobs, &cluster, p.load.unwrap_or(1.2), p.span_ms, i64::MAX);
    Trace { cluster: Some(cluster), am: None, jobs }
}
