//! The tasks asked and not yet allocated, in the order a scheduler with one
//! consistent view serves them: one FIFO over every job (YARN's order by
//! submission, then stage), or the users' queues round-robin, FIFO within
//! each, as Megha's GMs serve them (§IV-B). Whole stages are queued, not
//! tasks: a stage's tasks ask alike, so the queue is a set of stage ids
//! (= FIFO order) per task shape, and a stage's next task is a counter.
//!
//! Shared by the central, heartbeat-driven model and the zero-cost one, so
//! the two serve exactly the same order.

use super::workload::Workload;
use crate::model::Resources;
use std::collections::BTreeSet;

pub struct PendingQueues {
    /// Per queue (one for FIFO, one per user when round-robin), per task
    /// shape: stages with unallocated tasks, by stage id.
    pending: Vec<Vec<BTreeSet<u32>>>,
    /// Queues with unallocated tasks, and the one served first next time.
    active: BTreeSet<u32>,
    next_queue: u32,
    /// Per stage: how many of its tasks are allocated.
    allocated_in_stage: Vec<u32>,
    /// Tasks asked and not allocated.
    pub tasks: u64,
}

impl PendingQueues {
    pub fn new(w: &Workload, round_robin: bool) -> PendingQueues {
        let queues = if round_robin { w.queue_names.len().max(1) } else { 1 };
        PendingQueues {
            pending: vec![vec![BTreeSet::new(); w.shapes.len()]; queues],
            active: BTreeSet::new(),
            next_queue: 0,
            allocated_in_stage: vec![0; w.stages.len()],
            tasks: 0,
        }
    }

    /// Every task of stage `s` is asked.
    pub fn enqueue(&mut self, w: &Workload, s: u32) {
        let st = &w.stages[s as usize];
        // Its job's user's queue, or the one FIFO.
        let q = if self.pending.len() > 1 { w.jobs[st.job as usize].queue } else { 0 };
        self.pending[q as usize][st.shape as usize].insert(s);
        self.active.insert(q);
        self.tasks += st.task_count as u64;
    }

    /// Whether some task of stage `s` is still unallocated.
    pub fn stage_waiting(&self, w: &Workload, s: u32) -> bool {
        self.allocated_in_stage[s as usize] < w.stages[s as usize].task_count
    }

    /// FIFO with skipping on a node with `free` resources, queue by queue
    /// round-robin (one queue for FIFO): allocates the tasks that fit, takes
    /// their demand off `free`, and returns them.
    pub fn place_on(&mut self, w: &Workload, free: &mut Resources) -> Vec<u32> {
        let mut placed = Vec::new();
        loop {
            // The first queue from `next_queue` on with a task that fits,
            // and in it the earliest pending stage whose task fits.
            let room = *free;
            let earliest_fit = |q: &u32| {
                let mut best: Option<(u32, usize)> = None;
                for (shape, stages) in self.pending[*q as usize].iter().enumerate() {
                    if let Some(&s) = stages.first() {
                        if w.shapes[shape].fits_in(&room) && best.is_none_or(|(b, _)| s < b) {
                            best = Some((s, shape));
                        }
                    }
                }
                best.map(|(stage, shape)| (*q, stage, shape))
            };
            let found = self.active.range(self.next_queue..).chain(self.active.range(..self.next_queue)).find_map(earliest_fit);
            let Some((q, stage, shape)) = found else { break };
            let st = &w.stages[stage as usize];
            let k = &mut self.allocated_in_stage[stage as usize];
            let task = st.first_task + *k;
            *k += 1;
            let queue = &mut self.pending[q as usize];
            if *k == st.task_count {
                queue[shape].remove(&stage);
                if queue.iter().all(|stages| stages.is_empty()) {
                    self.active.remove(&q);
                }
            }
            self.next_queue = q + 1;
            self.tasks -= 1;
            *free -= w.shapes[shape];
            placed.push(task);
        }
        placed
    }
}
