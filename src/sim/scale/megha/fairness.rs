//! Fair share only under contention (Megha §IV-C, Algorithm 2). Every
//! user queue has an equal share of the cluster. When a request finds no
//! room anywhere in its GM's view (not internally, not by repartition),
//! and its queue is under its share, the GM picks the queue most over its
//! share and asks an LM to preempt that queue's tasks on one node so the
//! request fits; the LM checks against its true state and either preempts
//! and launches, or refuses. Preempted tasks are asked for again.
//!
//! What each side knows: a GM knows its own queues' usage exactly (what it
//! has asked LMs to run and not heard back as finished, refused or
//! preempted) and other queues' usage as the LMs last reported it (every
//! state update and answer carries the LM's per-queue usage). An LM knows
//! which tasks of which queue run on its nodes. A refused preemption is
//! not retried for that queue until the GM's view changes.

use super::layout::Layout;
use super::truth::Truth;
use super::Megha;
use crate::model::Resources;
use crate::sim::scale::workload::Workload;

/// Preemption victims are looked for among this many of the victim
/// queue's most recently started tasks in the LM.
const CANDIDATES: usize = 64;

pub(crate) struct FairShare {
    total: Resources,
    /// Every queue's share of the cluster (dominant share): equal shares.
    share: f64,
    /// Per LM, per queue: usage on its nodes, and its running tasks.
    lm_usage: Vec<Vec<Resources>>,
    lm_tasks: Vec<Vec<Vec<u32>>>,
    /// Per task: its index in its `lm_tasks` list and its node.
    position: Vec<u32>,
    node_of: Vec<u32>,
    /// Per node: tasks committed there (the LM's record).
    on_node: Vec<Vec<u32>>,
    /// Per task: the LM preempted it (its later completion frees nothing).
    killed: Vec<bool>,
    /// Per queue: usage as its own GM knows it.
    own_usage: Vec<Resources>,
    /// Per GM, per LM, per queue: the LM's last report.
    reported: Vec<Vec<Vec<Resources>>>,
    /// Per queue: the view generation in which an LM refused its preemption.
    refused_at: Vec<u64>,
}

impl FairShare {
    pub fn new(w: &Workload, layout: &Layout) -> FairShare {
        let queues = w.queue_names.len();
        FairShare {
            total: w.node_capacity.times(w.nodes as i64),
            share: 1.0 / queues.max(1) as f64,
            lm_usage: vec![vec![Resources::ZERO; queues]; layout.lms],
            lm_tasks: vec![vec![Vec::new(); queues]; layout.lms],
            position: vec![0; w.task_count()],
            node_of: vec![0; w.task_count()],
            on_node: vec![Vec::new(); w.nodes],
            killed: vec![false; w.task_count()],
            own_usage: vec![Resources::ZERO; queues],
            reported: vec![vec![vec![Resources::ZERO; queues]; layout.lms]; layout.gms],
            refused_at: vec![0; queues],
        }
    }

    fn over_share(&self, usage: &Resources) -> f64 {
        usage.dominant_share(&self.total) - self.share
    }
}

impl Megha<'_> {
    /// GM `g`, holding a request of `stage` that has no room in its view:
    /// the (victim queue, LM) to ask for a preemption, if Algorithm 2 says so.
    pub(super) fn preemption_target(&self, g: usize, stage: u32, generation: u64) -> Option<(u32, u32)> {
        let f = self.fair.as_ref()?;
        let q = self.w.jobs[self.w.stages[stage as usize].job as usize].queue as usize;
        if f.refused_at[q] == generation || f.over_share(&f.own_usage[q]) >= 0.0 {
            return None; // consumed its share already: just wait (re-queue)
        }
        let known = |v: usize| -> Resources {
            if self.queue_gm[v] as usize == g {
                f.own_usage[v]
            } else {
                f.reported[g].iter().fold(Resources::ZERO, |acc, lm| acc + lm[v])
            }
        };
        let mut victim: Option<(usize, f64)> = None;
        for v in (0..f.own_usage.len()).filter(|&v| v != q) {
            let over = f.over_share(&known(v));
            if over > 0.0 && victim.is_none_or(|(_, best)| over > best) {
                victim = Some((v, over));
            }
        }
        let (v, _) = victim?;
        // The LM that last reported the most of the victim's usage.
        let mut lm = stage as usize % self.layout.lms;
        let mut most = 0.0;
        for (l, usage) in f.reported[g].iter().enumerate() {
            let u = usage[v].dominant_share(&f.total);
            if u > most {
                (lm, most) = (l, u);
            }
        }
        Some((v as u32, lm as u32))
    }

    /// A GM's own queue asked for (`add`) or gave back resources.
    pub(super) fn fair_own_usage(&mut self, task: u32, add: bool) {
        let q = self.queue_of_task(task) as usize;
        let demand = self.w.task_demand(task);
        if let Some(f) = self.fair.as_mut() {
            if add {
                f.own_usage[q] += demand;
            } else {
                f.own_usage[q] -= demand;
            }
        }
    }

    pub(super) fn fair_refused(&mut self, task: u32, generation: u64) {
        let q = self.queue_of_task(task) as usize;
        if let Some(f) = self.fair.as_mut() {
            f.refused_at[q] = generation;
        }
    }

    pub(super) fn fair_report(&mut self, g: usize, lm: usize, usage: Vec<Resources>) {
        if let Some(f) = self.fair.as_mut() {
            if !usage.is_empty() {
                f.reported[g][lm] = usage;
            }
        }
    }

    /// What LM `lm` reports of its per-queue usage (nothing without fair share).
    pub(super) fn usage_report(&self, lm: usize) -> Vec<Resources> {
        self.fair.as_ref().map(|f| f.lm_usage[lm].clone()).unwrap_or_default()
    }

    pub(super) fn fair_commit(&mut self, lm: usize, task: u32, node: u32) {
        let q = self.queue_of_task(task) as usize;
        let demand = self.w.task_demand(task);
        if let Some(f) = self.fair.as_mut() {
            let t = task as usize;
            f.lm_usage[lm][q] += demand;
            f.position[t] = f.lm_tasks[lm][q].len() as u32;
            f.lm_tasks[lm][q].push(task);
            f.node_of[t] = node;
            f.on_node[node as usize].push(task);
            f.killed[t] = false;
        }
    }

    /// The LM no longer counts `task` (finished or preempted).
    pub(super) fn fair_release(&mut self, lm: usize, task: u32) {
        let q = self.queue_of_task(task) as usize;
        let demand = self.w.task_demand(task);
        if let Some(f) = self.fair.as_mut() {
            let t = task as usize;
            f.lm_usage[lm][q] -= demand;
            let list = &mut f.lm_tasks[lm][q];
            let i = f.position[t] as usize;
            list.swap_remove(i);
            if let Some(&moved) = list.get(i) {
                f.position[moved as usize] = i as u32;
            }
            let here = &mut f.on_node[f.node_of[t] as usize];
            if let Some(k) = here.iter().position(|&x| x == task) {
                here.remove(k);
            }
        }
    }

    pub(super) fn killed_by_lm(&self, task: u32) -> bool {
        self.fair.as_ref().is_some_and(|f| f.killed[task as usize])
    }

    /// LM `lm`: a node where preempting running tasks of queue `victim`
    /// (newest first) makes room for `demand`, and those tasks.
    pub(super) fn find_victims(&self, lm: usize, victim: u32, demand: &Resources, truth: &Truth) -> Option<(u32, Vec<u32>)> {
        let f = self.fair.as_ref()?;
        let of_victim = |t: u32| self.running[t as usize] && self.queue_of_task(t) == victim;
        for &t in f.lm_tasks[lm][victim as usize].iter().rev().take(CANDIDATES) {
            if !self.running[t as usize] {
                continue; // not started yet: the kill would pass the launch
            }
            let node = f.node_of[t as usize];
            let here = &f.on_node[node as usize];
            let mut room = truth.free[node as usize];
            for &u in here.iter().filter(|&&u| of_victim(u)) {
                room += self.w.task_demand(u);
            }
            if !demand.fits_in(&room) {
                continue;
            }
            let mut room = truth.free[node as usize];
            let mut victims = Vec::new();
            for &u in here.iter().rev().filter(|&&u| of_victim(u)) {
                room += self.w.task_demand(u);
                victims.push(u);
                if demand.fits_in(&room) {
                    break;
                }
            }
            return Some((node, victims));
        }
        None
    }

    pub(super) fn mark_killed(&mut self, task: u32) {
        if let Some(f) = self.fair.as_mut() {
            f.killed[task as usize] = true;
        }
    }
}
