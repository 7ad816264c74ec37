//! The tasks asked and not yet allocated, in the order a scheduler with one
//! consistent view serves them: one FIFO over every job (YARN's order by
//! submission, then stage), the users' queues round-robin, FIFO within
//! each, as Megha's GMs serve them (§IV-B), or the smallest stage first.
//! Whole stages are queued, not tasks: a stage's tasks ask alike, so the
//! queue is a set of stages per task shape, ordered by (rank, stage id),
//! and a stage's next task is a counter.
//!
//! Shared by the central, heartbeat-driven model and the zero-cost one, so
//! the two serve exactly the same order.

use super::workload::Workload;
use crate::model::Resources;
use std::collections::BTreeSet;

/// The order in which waiting tasks get room (skipping those that do not fit).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum QueueOrder {
    /// One FIFO over every job: submission, then stage.
    #[default]
    Fifo,
    /// One queue per user, served round-robin one task at a time, FIFO
    /// within each (Megha §IV-B).
    UsersRoundRobin,
    /// One queue, stages with fewer tasks first (then FIFO): the order that
    /// keeps small stages from waiting behind large ones.
    SmallestStageFirst,
}

impl QueueOrder {
    pub const ALL: [QueueOrder; 3] = [QueueOrder::Fifo, QueueOrder::UsersRoundRobin, QueueOrder::SmallestStageFirst];

    pub fn name(self) -> &'static str {
        match self {
            QueueOrder::Fifo => "fifo",
            QueueOrder::UsersRoundRobin => "users-round-robin",
            QueueOrder::SmallestStageFirst => "smallest-stage-first",
        }
    }

    pub fn parse(s: &str) -> Result<QueueOrder, String> {
        QueueOrder::ALL
            .into_iter()
            .find(|o| o.name() == s.trim())
            .ok_or_else(|| format!("unknown queue order `{s}`; expected fifo, users-round-robin or smallest-stage-first"))
    }
}

pub struct PendingQueues {
    order: QueueOrder,
    /// Per queue (one, or one per user when round-robin), per task shape:
    /// stages with unallocated tasks, by (rank, stage id); the rank is the
    /// stage's task count for smallest-stage-first, else 0.
    pending: Vec<Vec<BTreeSet<(u32, u32)>>>,
    /// Queues with unallocated tasks, and the one served first next time.
    active: BTreeSet<u32>,
    next_queue: u32,
    /// Per stage: how many of its tasks are allocated.
    allocated_in_stage: Vec<u32>,
    /// Tasks asked and not allocated.
    pub tasks: u64,
}

impl PendingQueues {
    pub fn new(w: &Workload, order: QueueOrder) -> PendingQueues {
        let queues = if order == QueueOrder::UsersRoundRobin { w.queue_names.len().max(1) } else { 1 };
        PendingQueues {
            order,
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
        // Its job's user's queue, or the one queue.
        let q = if self.order == QueueOrder::UsersRoundRobin { w.jobs[st.job as usize].queue } else { 0 };
        let rank = if self.order == QueueOrder::SmallestStageFirst { st.task_count } else { 0 };
        self.pending[q as usize][st.shape as usize].insert((rank, s));
        self.active.insert(q);
        self.tasks += st.task_count as u64;
    }

    /// Whether some task of stage `s` is still unallocated.
    pub fn stage_waiting(&self, w: &Workload, s: u32) -> bool {
        self.allocated_in_stage[s as usize] < w.stages[s as usize].task_count
    }

    /// The queue order with skipping on a node with `free` resources (the
    /// users' queues in turn when round-robin): allocates the tasks that
    /// fit, takes their demand off `free`, and returns them.
    pub fn place_on(&mut self, w: &Workload, free: &mut Resources) -> Vec<u32> {
        let mut placed = Vec::new();
        loop {
            // The first queue from `next_queue` on with a task that fits,
            // and in it the first pending stage whose task fits.
            let room = *free;
            let first_fit = |q: &u32| {
                let mut best: Option<((u32, u32), usize)> = None;
                for (shape, stages) in self.pending[*q as usize].iter().enumerate() {
                    if let Some(&key) = stages.first() {
                        if w.shapes[shape].fits_in(&room) && best.is_none_or(|(b, _)| key < b) {
                            best = Some((key, shape));
                        }
                    }
                }
                best.map(|(key, shape)| (*q, key, shape))
            };
            let found = self.active.range(self.next_queue..).chain(self.active.range(..self.next_queue)).find_map(first_fit);
            let Some((q, key, shape)) = found else { break };
            let stage = key.1;
            let st = &w.stages[stage as usize];
            let k = &mut self.allocated_in_stage[stage as usize];
            let task = st.first_task + *k;
            *k += 1;
            let queue = &mut self.pending[q as usize];
            if *k == st.task_count {
                queue[shape].remove(&key);
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
