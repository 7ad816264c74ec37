//! Scheduling rounds between heartbeats with one and with several proposers
//! (`scheduler.round_proposers`, `crate::engine` `propose`): a cluster of
//! `nodes` NodeManagers kept full, `pending` asks queued over `apps`
//! applications. Each measured round first finishes the containers of
//! `batch` nodes (the next ones in turn), then asks the engine for one round,
//! which refills those nodes. Wall-clock time per round is what an RM's
//! asynchronous-scheduling thread holds the scheduler for; with several
//! proposers it includes copying the state for each of them.

use crate::config::Config;
use crate::engine::{Decision, Engine, Event};
use crate::model::{Ask, Resources, SchedulerKey};
use std::time::Instant;

pub struct RoundBench {
    pub nodes: u32,
    pub apps: u32,
    pub pending: u32,
    /// Nodes freed before each round (the round refills them).
    pub batch: u32,
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
        let mut v = self.samples_ns.clone();
        v.sort_unstable();
        let i = ((p / 100.0) * (v.len() - 1) as f64).round() as usize;
        v[i] as f64 / 1000.0
    }

    /// Containers placed per second of round time.
    pub fn allocations_per_s(&self) -> f64 {
        let total: u64 = self.samples_ns.iter().sum();
        self.allocations as f64 / (total as f64 / 1e9)
    }
}

fn map_ask(app: u32, count: i32) -> Event {
    Event::AskUpdated {
        app,
        ask: Ask::anywhere(SchedulerKey { priority: 20, allocation_request_id: 0 }, Resources::new(4096, 1), count),
    }
}

impl RoundBench {
    pub fn run(&self) -> RoundReport {
        let mut cfg = Config::default();
        cfg.scheduler.policy = self.policy.clone();
        cfg.scheduler.round_proposers = self.proposers;
        let mut e = Engine::with_config(cfg).expect("config");
        for n in 0..self.nodes {
            e.apply(Event::NodeAdded {
                node: n,
                host: format!("nm{n:05}.cluster"),
                rack: format!("/rack{}", n / 40),
                capacity: Resources::new(64 * 1024, 32),
                labels: vec![],
                attributes: vec![],
            });
        }
        let per_app = (self.pending / self.apps).max(1);
        let running = self.nodes * 16; // 4 GB containers on 64 GB nodes
        for a in 0..self.apps {
            e.apply(Event::AppAdded {
                app: a,
                yarn_id: format!("application_0_{a}"),
                queue: "default".into(),
                user: format!("user{}", a % 50),
                name: format!("job{a}"),
                app_type: "MAPREDUCE".into(),
                tags: vec![],
                submit_ms: a as i64,
                priority: 0,
            });
            e.apply(Event::AttemptAdded { app: a, attempt: 1 });
            e.apply(map_ask(a, (per_app + running / self.apps + 1) as i32));
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
                for c in std::mem::take(&mut on_node[next as usize]) {
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
            for a in 0..self.apps {
                if e.state.apps.get(&a).is_some_and(|app| app.pending_containers() < per_app as i64) {
                    e.apply(map_ask(a, per_app as i32));
                }
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
