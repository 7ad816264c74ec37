//! A Global Master (Megha §IV-B, §IV-C): a single server that reads the
//! LMs' messages (they update its view) and serves its user queues'
//! task requests round-robin. For a request it runs the match
//! (Algorithm 1) on its internal partitions, LMs in round-robin order;
//! if none has room, on the external partitions, again round-robin over
//! LMs, and a match there is a repartition request (§IV-B4: the LM lends
//! exactly the task's resources of that node). The chosen (node, task)
//! goes to the node's LM. If nothing in its view has room, the request
//! goes to the back of its queue (§IV-B5), or, with fair share on and the
//! queue under its share, becomes a preemption request (§IV-C).
//!
//! Requests are kept per stage (all tasks of a stage have the same shape
//! and the same user queue), so a queue is a list of stages with tasks
//! left. A GM remembers which task shapes found no room in its current
//! view: such requests go to the back without a new scan until the view
//! frees something (its `generation` moves), and a GM whose every request
//! is in that state sleeps until then — what a real GM would find by
//! rescanning, without the busy loop.
//!
//! Beyond the paper, with `gm_batch` > 1 one match operation places up to
//! that many tasks of the stage it serves, one request per LM.

use super::view::View;
use super::{Event, Launch, Megha, Message, Outcome, Request};
use crate::sim::scale::server::whole_us;
use crate::sim::scale::workload::Workload;
use std::collections::VecDeque;

/// The unplaced tasks of one stage in its GM's user queue.
#[derive(Default)]
pub(crate) struct Group {
    /// Tasks `first_task .. first_task + next` were handed out ...
    next: u32,
    /// ... and these came back (rejected, found no room, preempted).
    returned: Vec<u32>,
    queued: bool,
    /// The view generation in which its shape last found no room.
    failed_at: u64,
    /// When it last entered its queue (for framework queueing).
    since_us: i64,
}

/// What a GM is busy with; takes effect when its service time is over.
pub(crate) enum Work {
    Read(Message),
    /// Requests to LMs (one per LM a batch placed tasks in).
    Send(Vec<(u32, Request)>),
    Requeue {
        task: u32,
    },
}

pub(crate) struct GlobalMaster {
    pub view: View,
    pub mailbox: VecDeque<Message>,
    /// Its user queues: stages with tasks left, in arrival order.
    queues: Vec<VecDeque<u32>>,
    next_queue: usize,
    next_internal_lm: usize,
    next_external_lm: usize,
    queued_groups: usize,
    failed_groups: usize,
    shape_failed_at: Vec<u64>,
    busy: bool,
    idle: bool,
    last_wake_us: i64,
    current: Option<Work>,
    pub busy_us: i64,
}

impl GlobalMaster {
    pub fn new(layout: &super::layout::Layout, w: &Workload, own_queues: usize) -> GlobalMaster {
        GlobalMaster {
            view: View::new(layout, w.node_capacity, w.smallest_shape),
            mailbox: VecDeque::new(),
            queues: vec![VecDeque::new(); own_queues],
            next_queue: 0,
            next_internal_lm: 0,
            next_external_lm: 0,
            queued_groups: 0,
            failed_groups: 0,
            shape_failed_at: vec![0; w.shapes.len()],
            busy: false,
            idle: true,
            last_wake_us: 0,
            current: None,
            busy_us: 0,
        }
    }
}

impl Megha<'_> {
    /// A stage was asked: its tasks join the back of their user queue.
    pub(super) fn enqueue_stage(&mut self, stage: u32, now: i64) {
        let task = self.w.stages[stage as usize].first_task;
        let g = self.gm_of_task(task);
        self.queue_group(g, stage, false, now);
        self.gm_kick(g, now);
    }

    fn queue_group(&mut self, g: usize, stage: u32, front: bool, now: i64) {
        let group = &mut self.groups[stage as usize];
        if group.queued {
            return;
        }
        group.queued = true;
        group.since_us = now;
        let gm = &mut self.gms[g];
        if group.failed_at == gm.view.generation {
            gm.failed_groups += 1;
        }
        gm.queued_groups += 1;
        let job = self.w.stages[stage as usize].job;
        let slot = self.queue_slot[self.w.jobs[job as usize].queue as usize] as usize;
        if front {
            gm.queues[slot].push_front(stage);
        } else {
            gm.queues[slot].push_back(stage);
        }
    }

    /// A task comes back to its GM's queue: at the front after a rejection
    /// (retry at once, §IV-B6), at the back otherwise (§IV-B5).
    pub(super) fn return_task(&mut self, task: u32, front: bool, now: i64) {
        let stage = self.w.task_stage[task as usize];
        self.groups[stage as usize].returned.push(task);
        let g = self.gm_of_task(task);
        self.queue_group(g, stage, front, now);
    }

    pub(super) fn gm_kick(&mut self, g: usize, now: i64) {
        if !self.gms[g].busy {
            self.gm_begin(g, now);
        }
    }

    fn gm_busy(&mut self, g: usize, now: i64, service_us: i64, work: Work) {
        let gm = &mut self.gms[g];
        gm.busy = true;
        gm.busy_us += service_us;
        gm.current = Some(work);
        self.events.push(now + service_us, Event::GmDone(g as u32));
    }

    fn message_cost(&self, msg: &Message) -> i64 {
        let o = self.o;
        let state_us = |lm: u32| o.gm_message_us + o.gm_state_node_us * self.layout.lm_nodes(lm as usize) as f64;
        match msg {
            Message::Answer { lm, verdicts, .. } => whole_us(state_us(*lm) + verdicts.len().saturating_sub(1) as f64 * o.gm_batch_task_us),
            Message::StateUpdate { lm, .. } => whole_us(state_us(*lm)),
            Message::Completion { .. } | Message::Preempted { .. } => whole_us(o.gm_message_us),
        }
    }

    /// The next task of `stage`, the front of the GM's queue `qi`: one that
    /// came back first, else the next not yet handed out. A stage with
    /// nothing left leaves the queue.
    fn take_task(&mut self, g: usize, qi: usize, stage: u32, generation: u64) -> u32 {
        let st = &self.w.stages[stage as usize];
        let gm = &mut self.gms[g];
        let group = &mut self.groups[stage as usize];
        let task = group.returned.pop().unwrap_or_else(|| {
            group.next += 1;
            st.first_task + group.next - 1
        });
        if group.returned.is_empty() && group.next == st.task_count {
            gm.queues[qi].pop_front();
            group.queued = false;
            gm.queued_groups -= 1;
            if group.failed_at == generation {
                gm.failed_groups -= 1;
            }
        }
        task
    }

    /// Start the GM's next operation if it has one: messages first (they
    /// keep the view fresh), then one task request, queues round-robin.
    fn gm_begin(&mut self, g: usize, now: i64) {
        let gm = &mut self.gms[g];
        debug_assert!(!gm.busy);
        if gm.idle {
            gm.idle = false;
            gm.last_wake_us = now;
        }
        if let Some(msg) = gm.mailbox.pop_front() {
            let service = self.message_cost(&msg);
            self.gm_busy(g, now, service, Work::Read(msg));
            return;
        }
        let w = self.w;
        loop {
            let gm = &mut self.gms[g];
            if gm.failed_groups >= gm.queued_groups {
                gm.idle = true; // nothing placeable until the view frees something
                return;
            }
            let nq = gm.queues.len();
            let mut qi = gm.next_queue % nq;
            while gm.queues[qi].is_empty() {
                qi = (qi + 1) % nq;
            }
            gm.next_queue = (qi + 1) % nq;
            let stage = *gm.queues[qi].front().expect("non-empty");
            let generation = gm.view.generation;
            let st = &w.stages[stage as usize];
            let shape = st.shape as usize;
            let known_no_room = gm.shape_failed_at[shape] == generation;
            // Algorithm 2 only where the match cannot succeed.
            let preempt_for = if known_no_room { self.preemption_target(g, stage, generation) } else { None };
            let gm = &mut self.gms[g];
            let group = &mut self.groups[stage as usize];
            if known_no_room && preempt_for.is_none() {
                gm.queues[qi].rotate_left(1);
                if group.failed_at != generation {
                    group.failed_at = generation;
                    gm.failed_groups += 1;
                }
                continue;
            }
            let task = self.take_task(g, qi, stage, generation);
            let wait = now - self.groups[stage as usize].since_us.max(self.gms[g].last_wake_us);
            let demand = w.shapes[shape];
            let (found, mut words) = self.find_node(g, &demand);
            self.rec.counters.matches += 1;
            let preempt_for = match (found, preempt_for) {
                (None, None) => {
                    self.gms[g].shape_failed_at[shape] = generation;
                    self.preemption_target(g, stage, generation)
                }
                (_, p) => p,
            };
            let mut batched = 0;
            let work = match (found, preempt_for) {
                (Some((node, lm, repartition)), _) => {
                    self.gms[g].view.take(&self.layout, node, demand);
                    self.fair_own_usage(task, true);
                    let mut launches = vec![(lm, Launch { task, node, repartition, gm_wait_us: wait })];
                    // Beyond the paper (`gm_batch` > 1): more of the stage's
                    // tasks in the same match, while its view has room.
                    while launches.len() < self.o.gm_batch && self.groups[stage as usize].queued {
                        let (found, more) = self.find_node(g, &demand);
                        words += more;
                        let Some((node, lm, repartition)) = found else { break };
                        let task = self.take_task(g, qi, stage, generation);
                        self.gms[g].view.take(&self.layout, node, demand);
                        self.fair_own_usage(task, true);
                        launches.push((lm, Launch { task, node, repartition, gm_wait_us: wait }));
                    }
                    batched = launches.len() - 1;
                    Work::Send(requests_per_lm(g as u32, launches))
                }
                (None, Some((victim, lm))) => {
                    self.rec.counters.preemption_attempts += 1;
                    self.fair_own_usage(task, true);
                    Work::Send(vec![(lm, Request::Preempt { task, gm: g as u32, victim, gm_wait_us: wait })])
                }
                (None, None) => Work::Requeue { task },
            };
            let o = self.o;
            let service = whole_us(o.gm_match_us + words as f64 * o.gm_word_us + batched as f64 * o.gm_batch_task_us);
            self.gm_busy(g, now, service, work);
            return;
        }
    }

    pub(super) fn gm_done(&mut self, g: usize, now: i64) {
        let work = self.gms[g].current.take().expect("a GM finishes what it began");
        self.gms[g].busy = false;
        match work {
            Work::Read(msg) => self.gm_read(g, msg, now),
            Work::Send(requests) => {
                for (lm, request) in requests {
                    self.events.push(now + self.net_us, Event::ToLm(lm, request));
                }
            }
            Work::Requeue { task } => self.return_task(task, false, now),
        }
        self.gm_begin(g, now);
    }

    fn gm_read(&mut self, g: usize, msg: Message, now: i64) {
        let before = self.gms[g].view.generation;
        match msg {
            Message::Answer { lm, verdicts, state, processed, usage } => {
                self.gms[g].view.apply_state(&self.layout, lm as usize, &state, processed);
                self.fair_report(g, lm as usize, usage);
                for (task, outcome) in verdicts {
                    match outcome {
                        Outcome::Launched => {}
                        Outcome::Rejected => {
                            self.fair_own_usage(task, false);
                            self.return_task(task, true, now);
                        }
                        Outcome::PreemptionRefused => {
                            self.fair_own_usage(task, false);
                            self.fair_refused(task, self.gms[g].view.generation);
                            self.return_task(task, false, now);
                        }
                    }
                }
            }
            Message::StateUpdate { lm, state, processed, usage } => {
                self.gms[g].view.apply_state(&self.layout, lm as usize, &state, processed);
                self.fair_report(g, lm as usize, usage);
            }
            Message::Completion { task, node, frees } => {
                if frees {
                    let demand = self.w.task_demand(task);
                    self.gms[g].view.completion_notice(&self.layout, node, demand);
                }
                self.fair_own_usage(task, false);
            }
            Message::Preempted { task } => {
                self.fair_own_usage(task, false);
                self.return_task(task, false, now);
            }
        }
        let gm = &mut self.gms[g];
        if gm.view.generation != before {
            gm.failed_groups = 0; // every request may fit again
        }
    }

    /// Algorithm 1 over the GM's internal partitions, LMs round-robin, then
    /// over the external partitions, LMs round-robin (§IV-B3, §IV-B4).
    /// Returns (node, its LM, is a repartition) and the words scanned.
    fn find_node(&mut self, g: usize, demand: &crate::model::Resources) -> (Option<(u32, u32, bool)>, u64) {
        let (lms, gms) = (self.layout.lms, self.layout.gms);
        let gm = &mut self.gms[g];
        let mut words = 0;
        for k in 0..lms {
            let l = (gm.next_internal_lm + k) % lms;
            if let Some(node) = gm.view.first_fit(&self.layout, self.layout.partition(l, g), demand, &mut words) {
                gm.next_internal_lm = (l + 1) % lms;
                return (Some((node, l as u32, false)), words);
            }
        }
        for k in 0..lms {
            let l = (gm.next_external_lm + k) % lms;
            for j in 1..gms {
                let owner = (g + j) % gms;
                if let Some(node) = gm.view.first_fit(&self.layout, self.layout.partition(l, owner), demand, &mut words) {
                    gm.next_external_lm = (l + 1) % lms;
                    return (Some((node, l as u32, true)), words);
                }
            }
        }
        (None, words)
    }
}

/// A batch's launches as one request per LM, each LM's in the order the
/// GM took their nodes (its view expects them served in that order).
fn requests_per_lm(gm: u32, launches: Vec<(u32, Launch)>) -> Vec<(u32, Request)> {
    let mut per_lm: Vec<(u32, Vec<Launch>)> = Vec::new();
    for (lm, launch) in launches {
        match per_lm.iter_mut().find(|(l, _)| *l == lm) {
            Some((_, list)) => list.push(launch),
            None => per_lm.push((lm, vec![launch])),
        }
    }
    per_lm.into_iter().map(|(lm, launches)| (lm, Request::Launch { gm, launches })).collect()
}
