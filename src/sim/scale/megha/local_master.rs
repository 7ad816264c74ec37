//! A Local Master (Megha §IV-A, §IV-B6): a single FIFO server that
//! validates each GM request against its true state and commits it or
//! rejects it (a batched request task by task, `lm_us` each); its answer
//! carries its current state (only what changed since its last message to
//! that GM, see `view`). It launches committed tasks on their nodes (one
//! network delay), hears of completions from its nodes (one network delay)
//! and passes them to the task's GM, and sends every GM its state every
//! `state_update_ms`.

use super::{Event, Launch, Megha, Message, Outcome, Request};
use crate::sim::scale::server::{whole_us, Server};

#[derive(Default)]
pub(crate) struct LocalMaster {
    pub server: Server<Request>,
    current: Option<(Request, i64)>,
}

impl Megha<'_> {
    pub(super) fn lm_arrive(&mut self, l: usize, request: Request, now: i64) {
        self.lms[l].server.enqueue(now, request);
        self.lm_begin(l, now);
    }

    fn lm_begin(&mut self, l: usize, now: i64) {
        let lm = &mut self.lms[l];
        if let Some((request, waited)) = lm.server.begin(now) {
            let ops = match &request {
                Request::Launch { launches, .. } => launches.len(),
                Request::Preempt { .. } => 1,
            };
            let service = whole_us(self.o.lm_us * ops as f64);
            lm.server.charge(service);
            lm.current = Some((request, waited));
            self.events.push(now + service, Event::LmDone(l as u32));
        }
    }

    pub(super) fn lm_done(&mut self, l: usize, now: i64) {
        let (request, waited) = self.lms[l].current.take().expect("an LM finishes what it began");
        self.lms[l].server.finish();
        match request {
            Request::Launch { gm, launches } => {
                let mut verdicts = Vec::with_capacity(launches.len());
                for Launch { task, node, repartition, gm_wait_us } in launches {
                    self.truth.served(l, gm as usize);
                    let demand = self.w.task_demand(task);
                    let outcome = if demand.fits_in(&self.truth.free[node as usize]) {
                        self.commit(l, task, node, now, gm_wait_us + waited);
                        if repartition {
                            self.rec.counters.repartitions += 1;
                        }
                        Outcome::Launched
                    } else {
                        // The GM's view was stale (§IV-B6): another GM took it first.
                        self.rec.counters.conflicts += 1;
                        Outcome::Rejected
                    };
                    verdicts.push((task, outcome));
                }
                self.answer(l, gm, verdicts, now);
            }
            Request::Preempt { task, gm, victim, gm_wait_us } => {
                let demand = self.w.task_demand(task);
                let outcome = match self.find_victims(l, victim, &demand, &self.truth) {
                    Some((node, victims)) => {
                        for v in victims {
                            let freed = self.truth.free[node as usize] + self.w.task_demand(v);
                            self.truth.set(&self.layout, node, freed);
                            self.fair_release(l, v);
                            self.mark_killed(v);
                            self.rec.counters.preemptions += 1;
                            let run = self.run_of[v as usize];
                            // Pushed before the launch below: at the node the
                            // victim stops before the new task starts.
                            self.events.push(now + self.net_us, Event::Kill { task: v, node, run });
                        }
                        self.commit(l, task, node, now, gm_wait_us + waited);
                        Outcome::Launched
                    }
                    None => Outcome::PreemptionRefused,
                };
                self.answer(l, gm, vec![(task, outcome)], now);
            }
        }
        self.lm_begin(l, now);
    }

    fn commit(&mut self, l: usize, task: u32, node: u32, now: i64, queue_us: i64) {
        let left = self.truth.free[node as usize] - self.w.task_demand(task);
        self.truth.set(&self.layout, node, left);
        self.fair_commit(l, task, node);
        self.events.push(now + self.net_us, Event::TaskStart { task, node, queue_us });
    }

    fn answer(&mut self, l: usize, gm: u32, verdicts: Vec<(u32, Outcome)>, now: i64) {
        let state = self.truth.drain(l, gm as usize);
        let processed = self.truth.processed(l, gm as usize);
        let usage = self.usage_report(l);
        let msg = Message::Answer { lm: l as u32, verdicts, state, processed, usage };
        self.events.push(now + self.net_us, Event::ToGm(gm, msg));
    }

    /// A task's node told its LM it finished.
    pub(super) fn completion_at_lm(&mut self, task: u32, node: u32, now: i64) {
        let l = self.layout.lm_of(node);
        // A task the LM already preempted (the kill crossed the completion)
        // gave its resources to the preemptor: nothing to free.
        let frees = !self.killed_by_lm(task);
        if frees {
            let freed = self.truth.free[node as usize] + self.w.task_demand(task);
            self.truth.set(&self.layout, node, freed);
            self.fair_release(l, task);
        }
        let gm = self.gm_of_task(task) as u32;
        self.events.push(now + self.net_us, Event::ToGm(gm, Message::Completion { task, node, frees }));
    }

    /// The LM's kill reaches the node: the task stops (unless it ended
    /// first) and its GM, told by the LM, asks for it again.
    pub(super) fn kill(&mut self, task: u32, node: u32, run: u16, now: i64) {
        let t = task as usize;
        if !self.running[t] || self.run_of[t] != run {
            return;
        }
        self.running[t] = false;
        self.rec.stop(self.w, task, node, now, true);
        self.rec.ask(task, now);
        let gm = self.gm_of_task(task) as u32;
        self.events.push(now, Event::ToGm(gm, Message::Preempted { task }));
    }

    /// The periodic state update of LM `l` to every GM (§V: every 10 s).
    pub(super) fn state_timer(&mut self, l: usize, now: i64) {
        if self.jobs.all_done(self.w) {
            return;
        }
        for g in 0..self.layout.gms {
            let state = self.truth.drain(l, g);
            let processed = self.truth.processed(l, g);
            let usage = self.usage_report(l);
            let msg = Message::StateUpdate { lm: l as u32, state, processed, usage };
            self.events.push(now + self.net_us, Event::ToGm(g as u32, msg));
        }
        self.events.push(now + self.o.state_update_ms.max(1) * 1000, Event::StateTimer(l as u32));
    }
}
