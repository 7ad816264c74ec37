//! Megha's partitioned optimistic allocation against one central authority
//! (the paper's single-LM-single-GM configuration, Fig. 6), as a protocol
//! microbenchmark: `proposers` threads place unit tasks until the cluster is
//! `fill` full, each from its own stale view; printed are the per-task
//! placement time (P50/P99, wall clock, including retries), proposals per
//! task and conflicts. No workload, no task durations, no worker queues:
//! this measures the validate-and-retry protocol, not the paper's
//! allocation time. Run `shepherd bench-optimistic`.

use crate::megha::{Authority, Proposer};
use crate::model::Resources;
use std::sync::{Arc, Barrier};
use std::time::Instant;

pub struct OptimisticReport {
    pub nodes: usize,
    pub partitions: usize,
    pub tasks: usize,
    pub p50_us: f64,
    pub p99_us: f64,
    pub proposals_per_task: f64,
    pub rejections: u64,
    pub wall_ms: f64,
}

pub fn run(nodes: usize, partitions: usize, proposers: usize, fill: f64) -> OptimisticReport {
    let slots = 8i64;
    let per = nodes / partitions;
    let auth: Arc<Vec<Authority>> =
        Arc::new((0..partitions).map(|_| Authority::new(vec![Resources::new(slots * 1024, slots); per])).collect());
    let tasks = ((per * partitions) as f64 * slots as f64 * fill) as usize;
    let each = tasks / proposers;
    let ps: Vec<Proposer> = (0..proposers).map(|t| Proposer::new(&auth, t * partitions / proposers)).collect();
    let barrier = Arc::new(Barrier::new(proposers));
    let start = Instant::now();
    let handles: Vec<_> = ps
        .into_iter()
        .map(|mut p| {
            let (auth, barrier) = (auth.clone(), barrier.clone());
            std::thread::spawn(move || {
                barrier.wait();
                let mut ns = Vec::with_capacity(each);
                for _ in 0..each {
                    let t = Instant::now();
                    let _ = p.place(&auth, Resources::new(1024, 1), &|_, _| true);
                    ns.push(t.elapsed().as_nanos() as u64);
                }
                (ns, p.proposals, p.rejections)
            })
        })
        .collect();
    let (mut all, mut proposals, mut rejections) = (Vec::new(), 0u64, 0u64);
    for h in handles {
        let (ns, p, r) = h.join().expect("proposer thread");
        all.extend(ns);
        proposals += p;
        rejections += r;
    }
    let wall_ms = start.elapsed().as_secs_f64() * 1e3;
    all.sort_unstable();
    let pct = |q: f64| all.get(((all.len() as f64 - 1.0) * q) as usize).copied().unwrap_or(0) as f64 / 1e3;
    OptimisticReport {
        nodes: per * partitions,
        partitions,
        tasks: all.len(),
        p50_us: pct(0.5),
        p99_us: pct(0.99),
        proposals_per_task: proposals as f64 / all.len().max(1) as f64,
        rejections,
        wall_ms,
    }
}
