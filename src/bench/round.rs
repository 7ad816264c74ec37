//! Scheduling rounds between heartbeats with one and with several proposers
//! (`scheduler.round_proposers`, `crate::engine` `propose`): a cluster of
//! `nodes` NodeManagers kept full, `pending` asks queued over `apps`
//! applications. Each measured round first finishes the containers of
//! `batch` nodes (the next ones in turn; all of them, or the `per_node`
//! oldest on each), then asks the engine for one round, which refills those
//! nodes. Wall-clock time per round is what an RM's
//! asynchronous-scheduling thread holds the scheduler for; with several
//! proposers it includes copying the state for each of them.

use super::busy_cluster::{percentile, BusyCluster};
use crate::config::Config;
use crate::engine::{Decision, Engine, Event};
use std::time::Instant;

pub struct RoundBench {
    pub nodes: u32,
    pub apps: u32,
    pub pending: u32,
    /// Of the apps, how many are small (`busy_cluster`).
    pub small_apps: u32,
    /// Nodes freed before each round (the round refills them).
    pub batch: u32,
    /// Containers that finish on each freed node, oldest first (0 = all):
    /// with 1, a round places about one container per node it visits, as
    /// when tasks end one by one across a large cluster.
    pub per_node: u32,
    /// Serial rounds build their candidates afresh on every node
    /// (`Engine::set_per_node_round_candidates`), as before they kept them.
    pub fresh_candidates: bool,
    pub rounds: u32,
    pub policy: String,
    pub proposers: u32,
}

pub struct RoundReport {
    pub samples_ns: Vec<u64>,
    pub allocations: u64,
    pub proposals: u64,
    pub conflicts: u64,
    /// Of the round time, ms spent proposing and committing (parallel rounds).
    pub propose_ms: f64,
    pub commit_ms: f64,
}

impl RoundReport {
    /// The `p`-th percentile (nearest rank) of the round times, µs.
    pub fn percentile(&self, p: f64) -> f64 {
        percentile(&self.samples_ns, p)
    }

    /// Containers placed per second of round time.
    pub fn allocations_per_s(&self) -> f64 {
        let total: u64 = self.samples_ns.iter().sum();
        self.allocations as f64 / (total as f64 / 1e9)
    }
}

impl RoundBench {
    pub fn run(&self) -> RoundReport {
        let mut cfg = Config::default();
        cfg.scheduler.policy = self.policy.clone();
        cfg.scheduler.round_proposers = self.proposers;
        // The proposers asked for, however little work a round gives each:
        // this is how `round_min_work_per_proposer`'s default was chosen.
        cfg.scheduler.round_min_work_per_proposer = 0;
        let mut e = Engine::with_config(cfg).expect("config");
        e.set_per_node_round_candidates(self.fresh_candidates);
        let cluster = BusyCluster { nodes: self.nodes, apps: self.apps, pending: self.pending, small_apps: self.small_apps };
        for event in cluster.setup() {
            e.apply(event);
        }
        let mut on_node: Vec<Vec<u64>> = vec![Vec::new(); self.nodes as usize];
        let record = |out: &[Decision], on_node: &mut Vec<Vec<u64>>| {
            let mut n = 0;
            for d in out {
                if let Decision::Allocate { container, node, .. } = d {
                    on_node[*node as usize].push(*container);
                    n += 1;
                }
            }
            n
        };
        // Fill the cluster (untimed).
        let mut out = Vec::new();
        e.schedule_round(0, 0, &mut out).expect("fill");
        record(&out, &mut on_node);
        let before = e.counters();
        let mut samples = Vec::with_capacity(self.rounds as usize);
        let mut allocations = 0;
        let mut next = 0u32;
        for r in 0..self.rounds {
            let now = 1_000 + r as i64 * 20;
            for _ in 0..self.batch.min(self.nodes) {
                let live = &mut on_node[next as usize];
                let ending = if self.per_node == 0 { live.len() } else { live.len().min(self.per_node as usize) };
                for c in live.drain(..ending) {
                    e.apply(Event::ContainerFinished { container: c, exit_status: 0, at_ms: now });
                }
                next = (next + 1) % self.nodes;
            }
            let mut out = Vec::new();
            let t = Instant::now();
            e.schedule_round(now, 0, &mut out).expect("round");
            samples.push(t.elapsed().as_nanos() as u64);
            allocations += record(&out, &mut on_node) as u64;
            // Keep the queue at `pending` (untimed: it arrives through AMs).
            for event in cluster.top_up(e.state()) {
                e.apply(event);
            }
        }
        let after = e.counters();
        RoundReport {
            samples_ns: samples,
            allocations,
            proposals: after.round_proposals - before.round_proposals,
            conflicts: after.round_conflicts - before.round_conflicts,
            propose_ms: (after.round_propose_ns - before.round_propose_ns) as f64 / 1e6,
            commit_ms: (after.round_commit_ns - before.round_commit_ns) as f64 / 1e6,
        }
    }
}
