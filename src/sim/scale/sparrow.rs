//! The Sparrow-style sampling baseline (Ousterhout et al., "Sparrow:
//! distributed, low latency scheduling", SOSP '13): `schedulers`
//! independent schedulers, jobs assigned round-robin. When a stage's m
//! tasks are asked, its scheduler sends d·m probes (batch sampling,
//! d = `probe_ratio`, 2 in the paper) to distinct random workers. Each
//! worker keeps a FIFO queue of reservations; when the reservation at its
//! head fits the worker's free resources (the stage's task shape), the
//! worker holds those resources and asks the scheduler for a task (late
//! binding); the scheduler answers with an unlaunched task of that stage,
//! which starts when the answer arrives, or with a cancel (all launched),
//! and the worker releases the held resources and moves to its next
//! reservation.
//!
//! A worker looks only at its head reservation: one that does not fit
//! blocks those behind it although other workers may be idle. That
//! head-of-line blocking is Sparrow's latency tail under load (Megha §II-C,
//! §VI-A), and it is kept on purpose.
//!
//! Costs: one-way network delay per message; each scheduler is a single
//! FIFO server taking `message_us` per probe sent and per get-task answered.
//! Workers take no processing time (as in Sparrow's own simulator).

use super::report::{ArchReport, Recorder};
use super::server::{whole_us, Server};
use super::workload::{JobTracker, Workload};
use crate::model::Resources;
use crate::report::progress::Progress;
use crate::sim::event_queue::EventQueue;
use crate::workload::rng::Rng;
use std::collections::VecDeque;

#[derive(Debug, Clone, PartialEq)]
pub struct SparrowOptions {
    pub schedulers: usize,
    /// Probes per task (d); at least 1.
    pub probe_ratio: f64,
    /// Scheduler time per probe sent and per get-task answered (µs).
    pub message_us: f64,
}

impl Default for SparrowOptions {
    fn default() -> Self {
        SparrowOptions { schedulers: 10, probe_ratio: 2.0, message_us: 1.0 }
    }
}

const SAMPLING_SALT: u64 = 0x5AA2_0000_0000_0002;

enum Op {
    /// Send the probes of a stage that was just asked.
    Probe { stage: u32 },
    /// A worker whose reservation reached its head asks for a task.
    GetTask { stage: u32, worker: u32 },
}

enum Event {
    Submit(u32),
    SchedulerDone(u32),
    ProbesArrive {
        stage: u32,
        batch: u32,
    },
    GetTaskArrives {
        stage: u32,
        worker: u32,
    },
    /// The scheduler's answer reaches the worker: a task, or a cancel.
    Answer {
        stage: u32,
        worker: u32,
        task: Option<u32>,
        queue_us: i64,
    },
    TaskEnd {
        task: u32,
        worker: u32,
    },
}

struct Scheduler {
    server: Server<Op>,
    current: Option<(Op, i64)>,
}

struct Sparrow<'a> {
    w: &'a Workload,
    o: &'a SparrowOptions,
    net_us: i64,
    rec: Recorder,
    jobs: JobTracker,
    events: EventQueue<Event>,
    schedulers: Vec<Scheduler>,
    worker_free: Vec<Resources>,
    reservations: Vec<VecDeque<u32>>,
    /// Per stage: tasks handed out so far, and how long its probe batch
    /// waited at its scheduler (part of every task's framework queueing).
    launched: Vec<u32>,
    probe_wait_us: Vec<i64>,
    /// Workers of probe batches in flight (reused buffers).
    batches: Vec<Vec<u32>>,
    spare_batches: Vec<u32>,
    /// A permutation of all workers: sampling without replacement is a
    /// partial Fisher–Yates shuffle of it.
    permutation: Vec<u32>,
    rng: Rng,
    ready: Vec<u32>,
}

pub fn run(w: &Workload, o: &SparrowOptions, net_us: i64, seed: u64, keep_runs: bool, progress: bool) -> ArchReport {
    let mut s = Sparrow {
        w,
        o,
        net_us,
        rec: Recorder::new(w, keep_runs),
        jobs: JobTracker::new(w),
        events: EventQueue::default(),
        schedulers: (0..o.schedulers.max(1)).map(|_| Scheduler { server: Server::default(), current: None }).collect(),
        worker_free: vec![w.node_capacity; w.nodes],
        reservations: vec![VecDeque::new(); w.nodes],
        launched: vec![0; w.stages.len()],
        probe_wait_us: vec![0; w.stages.len()],
        batches: Vec::new(),
        spare_batches: Vec::new(),
        permutation: (0..w.nodes as u32).collect(),
        rng: Rng::seeded(seed ^ SAMPLING_SALT),
        ready: Vec::new(),
    };
    let mut line = Progress::new("scale-sim sparrow", w.task_count() as u64, progress);
    if let Some(j) = w.jobs.first() {
        s.events.push(j.submit_us, Event::Submit(0));
    }
    while let Some((now, ev)) = s.events.pop() {
        s.handle(now, ev);
        line.report(s.jobs.tasks_finished, now as f64 / 1e6);
    }
    let setup = format!("{} schedulers, d={}", s.schedulers.len(), o.probe_ratio);
    let busy: Vec<i64> = s.schedulers.iter().map(|x| x.server.busy_us).collect();
    let events = s.events.popped;
    s.rec.report("sparrow", setup, w, &s.jobs, vec![("scheduler", busy)], events)
}

impl Sparrow<'_> {
    fn scheduler_of(&self, stage: u32) -> usize {
        self.w.stages[stage as usize].job as usize % self.schedulers.len()
    }

    fn probes_for(&self, stage: u32) -> usize {
        let m = self.w.stages[stage as usize].task_count as usize;
        ((self.o.probe_ratio * m as f64).ceil() as usize).max(m)
    }

    fn handle(&mut self, now: i64, ev: Event) {
        let w = self.w;
        match ev {
            Event::Submit(j) => {
                self.jobs.submit(w, j, now, &mut self.ready);
                self.ask_ready(now);
                if let Some(next) = w.jobs.get(j as usize + 1) {
                    self.events.push(next.submit_us, Event::Submit(j + 1));
                }
            }
            Event::SchedulerDone(s) => self.scheduler_done(s as usize, now),
            Event::ProbesArrive { stage, batch } => {
                let workers = std::mem::take(&mut self.batches[batch as usize]);
                for &worker in &workers {
                    self.reservations[worker as usize].push_back(stage);
                    self.try_launch(worker, now);
                }
                let mut workers = workers;
                workers.clear();
                self.batches[batch as usize] = workers;
                self.spare_batches.push(batch);
            }
            Event::GetTaskArrives { stage, worker } => {
                let s = self.scheduler_of(stage);
                self.schedulers[s].server.enqueue(now, Op::GetTask { stage, worker });
                self.scheduler_begin(s, now);
            }
            Event::Answer { stage, worker, task, queue_us } => match task {
                Some(task) => {
                    self.rec.start(w, task, worker, now, queue_us);
                    self.events.push(now + w.task_duration_us[task as usize], Event::TaskEnd { task, worker });
                }
                None => {
                    self.worker_free[worker as usize] += w.demand(stage);
                    self.try_launch(worker, now);
                }
            },
            Event::TaskEnd { task, worker } => {
                self.rec.stop(w, task, worker, now, false);
                self.worker_free[worker as usize] += w.task_demand(task);
                self.jobs.task_finished(w, task, now, &mut self.ready);
                self.ask_ready(now);
                self.try_launch(worker, now);
            }
        }
    }

    fn ask_ready(&mut self, now: i64) {
        for stage in std::mem::take(&mut self.ready) {
            self.rec.ask_stage(self.w, stage, now);
            let s = self.scheduler_of(stage);
            self.schedulers[s].server.enqueue(now, Op::Probe { stage });
            self.scheduler_begin(s, now);
        }
    }

    fn scheduler_begin(&mut self, s: usize, now: i64) {
        let Some((op, waited)) = self.schedulers[s].server.begin(now) else { return };
        let messages = match &op {
            Op::Probe { stage } => self.probes_for(*stage),
            Op::GetTask { .. } => 1,
        };
        let service = whole_us(self.o.message_us * messages as f64);
        let sched = &mut self.schedulers[s];
        sched.server.charge(service);
        sched.current = Some((op, waited));
        self.events.push(now + service, Event::SchedulerDone(s as u32));
    }

    fn scheduler_done(&mut self, s: usize, now: i64) {
        let (op, waited) = self.schedulers[s].current.take().expect("a scheduler finishes what it began");
        self.schedulers[s].server.finish();
        match op {
            Op::Probe { stage } => {
                self.probe_wait_us[stage as usize] = waited;
                let k = self.probes_for(stage);
                self.rec.counters.probes += k as u64;
                let batch = match self.spare_batches.pop() {
                    Some(b) => b,
                    None => {
                        self.batches.push(Vec::new());
                        (self.batches.len() - 1) as u32
                    }
                };
                let mut workers = std::mem::take(&mut self.batches[batch as usize]);
                self.sample_workers(k, &mut workers);
                self.batches[batch as usize] = workers;
                self.events.push(now + self.net_us, Event::ProbesArrive { stage, batch });
            }
            Op::GetTask { stage, worker } => {
                let st = &self.w.stages[stage as usize];
                let k = &mut self.launched[stage as usize];
                let task = if *k < st.task_count {
                    *k += 1;
                    Some(st.first_task + *k - 1)
                } else {
                    self.rec.counters.probe_cancels += 1;
                    None
                };
                let queue_us = self.probe_wait_us[stage as usize] + waited;
                self.events.push(now + self.net_us, Event::Answer { stage, worker, task, queue_us });
            }
        }
        self.scheduler_begin(s, now);
    }

    /// The worker serves its reservation queue from the head only.
    fn try_launch(&mut self, worker: u32, now: i64) {
        let wi = worker as usize;
        while let Some(&stage) = self.reservations[wi].front() {
            let demand = self.w.demand(stage);
            if !demand.fits_in(&self.worker_free[wi]) {
                break; // head-of-line blocking, as in Sparrow
            }
            self.reservations[wi].pop_front();
            self.worker_free[wi] -= demand;
            self.events.push(now + self.net_us, Event::GetTaskArrives { stage, worker });
        }
    }

    /// `k` workers, distinct when k ≤ nodes (batch sampling); beyond that
    /// every worker gets ⌊k / nodes⌋ or one more.
    fn sample_workers(&mut self, k: usize, out: &mut Vec<u32>) {
        let n = self.permutation.len();
        let mut left = k;
        while left > 0 {
            let take = left.min(n);
            for i in 0..take {
                let j = self.rng.int(i as i64, n as i64 - 1) as usize;
                self.permutation.swap(i, j);
            }
            out.extend_from_slice(&self.permutation[..take]);
            left -= take;
        }
    }
}
