//! Task Behavior Aware Machine Rating (ROSE Algorithm 2): nodes where tasks
//! fail, are killed or evicted, or straggle get penalties; a node's score
//! is minus the penalties the recent apps gave it.
//!
//! Outcomes are taken from the containers the engine sees finish:
//! * a non-zero exit status is a failure, crash, kill or eviction (YARN
//!   reports preemption as −102 and a kill as −105/−106/143);
//! * a container that finished with status 0 but ran longer than
//!   `straggler_factor` × the median runtime of the finished containers
//!   of the same (app, scheduler key) seen before it (at least
//!   `straggler_min_samples` of them) is a straggler ("tailed"). Runtime is
//!   finish − launch (allocation when the launch was not reported).

use crate::model::exit::{outcome, Outcome, SUCCESS};
use crate::model::{AppId, NodeId, SchedulerKey};
use std::collections::{BTreeMap, HashMap, VecDeque};

/// One negative outcome.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Penalty {
    pub at_ms: i64,
    pub app: AppId,
    pub node: NodeId,
}

#[derive(Debug, Default)]
pub struct Rating {
    /// Negative outcomes, oldest first.
    pub penalties: VecDeque<Penalty>,
    /// Finished runtimes per (app, key), ascending, for the straggler
    /// median (kept sorted: a large job finishes thousands of containers
    /// under one key, and each finish reads the median).
    runtimes: HashMap<(AppId, SchedulerKey), Vec<f64>>,
}

/// A container of `app` under `key` on `node` that finished at `at_ms`
/// with `exit_status` after running `runtime_ms`.
#[derive(Debug, Clone, Copy)]
pub struct Ended {
    pub app: AppId,
    pub node: NodeId,
    pub key: SchedulerKey,
    pub runtime_ms: i64,
    pub exit_status: i32,
    pub at_ms: i64,
}

impl Rating {
    /// A container finished: record a penalty if the outcome was bad.
    /// Returns true when it was.
    pub fn finished(&mut self, e: Ended, factor: f64, min_samples: usize) -> bool {
        let Ended { app, node, key, runtime_ms: runtime, exit_status, at_ms } = e;
        let bad = match outcome(exit_status) {
            Outcome::Failed => true,
            // Released, or stopped by its own AM (MapReduce stops a task's
            // container after the task succeeded): says nothing about the
            // node, and its runtime ends when the AM chose, not when the
            // task did.
            _ if exit_status != SUCCESS => false,
            _ => {
                let seen = self.runtimes.entry((app, key)).or_default();
                let runtime = runtime as f64;
                let median = crate::metrics::stats::median_sorted(seen).unwrap_or(0.0);
                let straggler = seen.len() >= min_samples.max(1) && runtime > factor * median;
                let at = seen.partition_point(|x| *x <= runtime);
                seen.insert(at, runtime);
                straggler
            }
        };
        if bad {
            self.penalties.push_back(Penalty { at_ms, app, node });
        }
        bad
    }

    /// The app left: its runtimes are no longer needed.
    pub fn app_removed(&mut self, app: AppId) {
        self.runtimes.retain(|(a, _), _| *a != app);
    }

    /// Drop outcomes older than `now_ms − window_ms`.
    pub fn expire(&mut self, now_ms: i64, window_ms: i64) {
        while self.penalties.front().is_some_and(|p| p.at_ms < now_ms - window_ms) {
            self.penalties.pop_front();
        }
    }

    /// Algorithm 2: per app, a penalty count per node; only each app's
    /// `top_k` most penalised nodes (line 7, ties to the lower node id)
    /// count; a node's score is minus the sum over apps (lines 8–9).
    /// Returns each penalised node's total penalty (= −score).
    pub fn scores(&self, top_k: usize) -> BTreeMap<NodeId, f64> {
        let mut per_app: BTreeMap<AppId, BTreeMap<NodeId, f64>> = BTreeMap::new();
        for p in &self.penalties {
            *per_app.entry(p.app).or_default().entry(p.node).or_default() += 1.0;
        }
        let mut out: BTreeMap<NodeId, f64> = BTreeMap::new();
        for nodes in per_app.values() {
            let mut v: Vec<(NodeId, f64)> = nodes.iter().map(|(n, p)| (*n, *p)).collect();
            v.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
            for (n, p) in v.into_iter().take(top_k) {
                *out.entry(n).or_default() += p;
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const K: SchedulerKey = SchedulerKey { priority: 1, allocation_request_id: 0 };

    fn finish(r: &mut Rating, _c: u64, app: AppId, node: NodeId, runtime: i64, exit: i32, at: i64) -> bool {
        r.finished(Ended { app, node, key: K, runtime_ms: runtime, exit_status: exit, at_ms: at }, 2.0, 3)
    }

    #[test]
    fn failures_kills_and_stragglers_are_penalties() {
        let mut r = Rating::default();
        // Three normal runs of 10 s set the median.
        assert!(!finish(&mut r, 1, 1, 0, 10_000, 0, 1));
        assert!(!finish(&mut r, 2, 1, 0, 10_000, 0, 2));
        // Only two samples before this one: not judged yet, though long.
        assert!(!finish(&mut r, 3, 1, 1, 30_000, 0, 3));
        // Median of 10, 10, 30 s = 10 s; 20 s is not > 2 × 10 s.
        assert!(!finish(&mut r, 4, 1, 1, 20_000, 0, 4));
        // Median of 10 10 30 20 = 15 s; 31 s > 30 s: a straggler on node 2.
        assert!(finish(&mut r, 5, 1, 2, 31_000, 0, 5));
        // A failure (exit 1) and a preemption (−102) on node 3.
        assert!(finish(&mut r, 6, 1, 3, 1_000, 1, 6));
        assert!(finish(&mut r, 7, 2, 3, 1_000, -102, 7));
        // A MapReduce AM stopping its finished task (−105), however late,
        // and a container the app released (−100) blame no node.
        assert!(!finish(&mut r, 8, 1, 4, 90_000, -105, 8));
        assert!(!finish(&mut r, 9, 1, 4, 1_000, -100, 9));
        let s = r.scores(3);
        assert_eq!(s.get(&2), Some(&1.0));
        assert_eq!(s.get(&3), Some(&2.0));
        assert_eq!(s.get(&0), None);
        assert_eq!(s.get(&4), None);
    }

    #[test]
    fn each_app_counts_only_its_top_k_nodes() {
        let mut r = Rating::default();
        // App 1: node 0 ×3, node 1 ×2, node 2 ×1. With top_k = 2 node 2 does not count.
        let mut c = 0;
        for (node, n) in [(0, 3), (1, 2), (2, 1)] {
            for _ in 0..n {
                c += 1;
                finish(&mut r, c, 1, node, 1, 1, c as i64);
            }
        }
        // App 2: node 2 ×1.
        finish(&mut r, 100, 2, 2, 1, 1, 100);
        let s = r.scores(2);
        assert_eq!(s, [(0, 3.0), (1, 2.0), (2, 1.0)].into_iter().collect());
        // Outside the window, they are forgotten.
        r.expire(1000, 950);
        assert_eq!(r.scores(2), [(2, 1.0)].into_iter().collect());
    }
}
