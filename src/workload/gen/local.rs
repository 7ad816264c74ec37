//! `hibench-local`: the DRESS §V experiment shrunk to a real YARN cluster on
//! one machine, for `scripts/compare-yarn.sh`. Jobs are HiBench's MapReduce
//! micro benchmarks (WordCount, Sort, TeraSort) plus Hadoop's SleepJob, one
//! MapReduce round each, submitted a fixed 5 s apart as in the paper's
//! real-cluster method ("20 jobs ... submitted 5 s apart").
//!
//! The cluster is 4 NodeManagers of 4 GiB / 8 vcores (32 containers of
//! 512 MiB / 1 vcore; memory and vcores in proportion, so a memory-only and a
//! dominant-resource calculator see the same cluster). DRESS's small-job
//! bound θ·A_c = 10 % of 32 containers is 3.2 containers, and a MapReduce
//! job's peak includes its ApplicationMaster, so small jobs have 1–2 maps and
//! large ones 4–8 (reduces ask only after the maps finish: the harness sets
//! `mapreduce.job.reduce.slowstart.completedmaps = 1`).
//!
//! Task durations are what the simulator replays and what SleepJob sleeps;
//! for WordCount/Sort/TeraSort the real cluster's durations come from the
//! work itself (inputs of one split per map, sized by the harness).

use super::{ms, GenParams};
use crate::workload::rng::Rng;
use crate::workload::trace::{ClusterSpec, Job, Stage, Task, Trace};

/// Benchmarks a real job can run; the harness maps the job name to the program.
pub const KINDS: &[&str] = &["wordcount", "sort", "terasort", "sleep"];
/// Users the jobs are submitted as (round robin), for fairness across users.
pub const USERS: &[&str] = &["alice", "bob", "carol", "dave"];
/// Gap between submissions (DRESS §V: jobs submitted 5 s apart).
pub const SUBMIT_GAP_MS: i64 = 5_000;
pub const CONTAINER_MB: i64 = 512;

pub fn cluster(nodes: u32) -> ClusterSpec {
    ClusterSpec { nodes, memory_mb: 4096, vcores: 8, rack_size: 40 }
}

pub fn generate(rng: &mut Rng, p: &GenParams) -> Trace {
    let cluster = cluster(p.nodes.unwrap_or(4));
    let n = p.jobs.unwrap_or(20);
    let small_share = p.small_share.unwrap_or(0.3);
    let slots = (cluster.memory_mb / CONTAINER_MB * cluster.nodes as i64) as f64;
    // Largest map count whose peak (maps + the AM) stays within θ = 10 %.
    let small_max = ((0.10 * slots).floor() as i64 - 1).max(1);
    let large_min = (0.10 * slots).floor() as i64 + 1;
    let large_max = ((slots * 0.25) as i64).max(large_min);
    let n_small = (small_share * n as f64).round() as usize;
    let mut smalls: Vec<bool> = (0..n).map(|i| i < n_small).collect();
    for i in (1..n).rev() {
        let k = rng.int(0, i as i64) as usize;
        smalls.swap(i, k);
    }
    let jobs = smalls
        .iter()
        .enumerate()
        .map(|(i, small)| {
            let kind = *rng.pick(KINDS);
            let maps = if *small { rng.int(1, small_max) } else { rng.int(large_min, large_max) } as usize;
            let reduces = if *small { 1 } else { ((maps as f64) * 0.25).ceil() as usize };
            let map_s = rng.uniform(8.0, 16.0);
            let reduce_s = rng.uniform(6.0, 10.0);
            let stage = |name: &str, after: Vec<usize>, count: usize, mean_s: f64, rng: &mut Rng| Stage {
                name: name.into(),
                after,
                slowstart: Some(1.0),
                memory_mb: CONTAINER_MB,
                vcores: 1,
                tasks: (0..count).map(|_| Task { duration_ms: ms(mean_s * rng.skew(0.1)), used: None }).collect(),
            };
            let map = stage("map", vec![], maps, map_s, rng);
            let reduce = stage("reduce", vec![0], reduces, reduce_s, rng);
            Job {
                id: format!("job-{i:02}"),
                submit_ms: i as i64 * SUBMIT_GAP_MS,
                user: USERS[i % USERS.len()].into(),
                name: kind.into(),
                queue: "default".into(),
                category: Some(if *small { "small" } else { "large" }.into()),
                gang: false,
                app_type: None,
                am: None,
                stages: vec![map, reduce],
            }
        })
        .collect();
    Trace { cluster: Some(cluster), am: None, jobs }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_jobs_fit_theta_with_their_application_master() {
        let t = generate(&mut Rng::seeded(7), &GenParams { jobs: Some(40), small_share: Some(0.5), ..Default::default() });
        let c = t.cluster.clone().unwrap();
        let total_mb = (c.memory_mb * c.nodes as i64) as f64;
        for j in &t.jobs {
            let peak_with_am = (j.stages[0].tasks.len() as i64 + 1) * CONTAINER_MB;
            let small = peak_with_am as f64 <= 0.10 * total_mb;
            assert_eq!(small, j.category.as_deref() == Some("small"), "{}", j.id);
            assert!(KINDS.contains(&j.name.as_str()));
        }
        assert_eq!(t.jobs.iter().filter(|j| j.category.as_deref() == Some("small")).count(), 20);
        assert_eq!(t.jobs[3].submit_ms, 15_000);
    }
}
