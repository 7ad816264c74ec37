//! The zero-cost scheduler: a floor for the other architectures, not one
//! to build. It sees the cluster exactly and at once, costs nothing and
//! sends no messages, so a task starts the moment it is asked if some node
//! has room for it, else the moment room appears (a task ending on a node,
//! whose room goes to the waiting tasks there in the queue order). Its
//! allocation latency is therefore the time tasks wait for capacity and
//! nothing else: Megha's §III eq. 2 with every term but the wait for a
//! worker's resources at zero.
//!
//! It serves the central model's order (one FIFO over every job, skipping
//! what does not fit), the users' queues round-robin as Megha's GMs serve
//! them, or the smallest stage first, through the same [`PendingQueues`] as
//! the central model. So for that order no architecture allocates sooner: a
//! latency bar this floor misses is missed for want of capacity (or of
//! another order), not of a faster scheduler — the question issue 14 item 3
//! leaves open where tasks queue for resources.
//!
//! Invariant after every event: no waiting task fits any node. A task end
//! frees room on one node only, so that node is the only one to fill; a
//! newly asked stage fits only where its own shape fits, found from a set
//! of nodes per task shape.

use super::queues::{PendingQueues, QueueOrder};
use super::report::{ArchReport, Recorder};
use super::workload::{JobTracker, Workload};
use crate::model::Resources;
use crate::report::progress::Progress;
use crate::sim::event_queue::EventQueue;
use std::collections::BTreeSet;

#[derive(Debug, Clone, Default, PartialEq)]
pub struct IdealOptions {
    /// The order waiting tasks get room in; default one FIFO over every
    /// job, as the central model.
    pub order: QueueOrder,
}

enum Event {
    Submit(u32),
    TaskEnd { task: u32, node: u32 },
}

struct Ideal<'a> {
    w: &'a Workload,
    rec: Recorder,
    jobs: JobTracker,
    events: EventQueue<Event>,
    free: Vec<Resources>,
    pending: PendingQueues,
    /// Per task shape: the nodes whose free resources fit it.
    fits: Vec<BTreeSet<u32>>,
    ready: Vec<u32>,
}

pub fn run(w: &Workload, o: &IdealOptions, keep_runs: bool, progress: bool) -> ArchReport {
    let all_nodes: BTreeSet<u32> = (0..w.nodes as u32).collect();
    let mut s = Ideal {
        w,
        rec: Recorder::new(w, keep_runs),
        jobs: JobTracker::new(w),
        events: EventQueue::default(),
        free: vec![w.node_capacity; w.nodes],
        pending: PendingQueues::new(w, o.order),
        // Workload::from_trace rejects shapes larger than a node.
        fits: vec![all_nodes; w.shapes.len()],
        ready: Vec::new(),
    };
    let mut line = Progress::new("scale-sim ideal", w.task_count() as u64, progress);
    if let Some(j) = w.jobs.first() {
        s.events.push(j.submit_us, Event::Submit(0));
    }
    while let Some((now, ev)) = s.events.pop() {
        let freed = match ev {
            Event::Submit(j) => {
                s.jobs.submit(w, j, now, &mut s.ready);
                if let Some(next) = w.jobs.get(j as usize + 1) {
                    s.events.push(next.submit_us, Event::Submit(j + 1));
                }
                None
            }
            Event::TaskEnd { task, node } => {
                s.rec.stop(w, task, node, now, false);
                s.free[node as usize] += w.task_demand(task);
                s.jobs.task_finished(w, task, now, &mut s.ready);
                Some(node)
            }
        };
        s.place(freed, now);
        line.report(s.jobs.tasks_finished, now as f64 / 1e6);
    }
    let setup = format!("zero cost, exact view, {}", o.order.name());
    let events = s.events.popped;
    s.rec.report("ideal", setup, w, &s.jobs, Vec::new(), events)
}

impl Ideal<'_> {
    /// After an event: ask the stages it made ready, then start what fits.
    /// Before the event no waiting task fitted any node, so only the node
    /// it `freed` room on and the nodes that fit a new stage's shape can
    /// take one; a node's room goes to the queue order there. Filling a
    /// node either places the whole stage or leaves the node without room
    /// for its shape, so each stage's loop ends.
    fn place(&mut self, freed: Option<u32>, now: i64) {
        let stages = std::mem::take(&mut self.ready);
        for &st in &stages {
            self.rec.ask_stage(self.w, st, now);
            self.pending.enqueue(self.w, st);
        }
        if let Some(node) = freed {
            self.fill(node, now);
        }
        for &st in &stages {
            let shape = self.w.stages[st as usize].shape as usize;
            while self.pending.stage_waiting(self.w, st) {
                let Some(&node) = self.fits[shape].first() else { break };
                self.fill(node, now);
            }
        }
    }

    /// Start on `node` what the queue order puts there.
    fn fill(&mut self, node: u32, now: i64) {
        let n = node as usize;
        for task in self.pending.place_on(self.w, &mut self.free[n]) {
            self.rec.start(self.w, task, node, now, 0);
            self.events.push(now + self.w.task_duration_us[task as usize], Event::TaskEnd { task, node });
        }
        for (shape, nodes) in self.w.shapes.iter().zip(&mut self.fits) {
            if shape.fits_in(&self.free[n]) {
                nodes.insert(node);
            } else {
                nodes.remove(&node);
            }
        }
    }
}
