//! Megha (Thiyyakat et al., "Megha: Decentralized Global Fair Scheduling
//! for Federated Clusters", §III–IV): Global Masters (GMs) place tasks from
//! their own, possibly stale, view of the whole cluster; Local Masters
//! (LMs) own the nodes, validate every placement against their true state
//! and commit or reject it.
//!
//! * `layout`  — LMs, partitions (one per GM in every LM), bit-vector words.
//! * `view`    — a GM's eventually consistent view and the match scan (Algorithm 1).
//! * `truth`   — the LMs' true state and what changed since each message.
//! * `global_master` — a GM: user queues served round-robin, match in internal
//!   partitions then external ones (repartition, §IV-B4), re-queue when nothing
//!   fits (§IV-B5), retry after a rejection (§IV-B6).
//! * `local_master`  — an LM: validate-and-commit, answers carrying its state,
//!   periodic state updates, completions.
//! * `fairness` — fair-share preemption only under contention (§IV-C, Algorithm 2).
//!
//! Costs (documented defaults, see `MeghaOptions`): a GM's match takes
//! `gm_match_us` + `gm_word_us` per bit-vector word scanned; reading an LM's
//! state takes `gm_message_us` + `gm_state_node_us` per node of that LM (the
//! paper's GMs process the LM's whole state, §VI-C); an LM's validate-and-
//! commit takes `lm_us` per task. With `gm_batch` > 1 (beyond the paper)
//! a match places up to that many tasks of one stage, each further task
//! costing `gm_batch_task_us` plus its scan, and an LM answers a batch
//! once. Every message takes the one-way network delay.
//! A task starts on its node one network delay after its LM committed it
//! (the launch message), which is when its allocation latency is taken.
//!
//! Not modelled: placement constraints (the generated traces have none),
//! worker-side processing, the LM's cost of completions and state updates.

mod fairness;
mod global_master;
pub mod layout;
mod local_master;
mod truth;
pub mod view;

use super::report::{ArchReport, Recorder};
use super::workload::{JobTracker, Workload};
use crate::model::Resources;
use crate::report::progress::Progress;
use crate::sim::event_queue::EventQueue;
use crate::workload::rng::Rng;
use fairness::FairShare;
use global_master::{GlobalMaster, Group};
use layout::Layout;
use local_master::LocalMaster;
use truth::Truth;

#[derive(Debug, Clone, PartialEq)]
pub struct MeghaOptions {
    pub gms: usize,
    pub lms: usize,
    /// Period of every LM's state update to every GM (§V: heartbeat period 10 s).
    pub state_update_ms: i64,
    /// A GM's match operation: fixed part (µs) ...
    pub gm_match_us: f64,
    /// ... plus this per 64-node bit-vector word scanned (Algorithm 1).
    pub gm_word_us: f64,
    /// A GM reading one message (answer, update, notice) ...
    pub gm_message_us: f64,
    /// ... plus this per node of the LM whose state the message carries.
    pub gm_state_node_us: f64,
    /// An LM's validate-and-commit (or reject) of one launch.
    pub lm_us: f64,
    /// Beyond the paper (1 = the paper's one task per match): a GM places
    /// up to this many tasks of one stage in one match operation (one AND
    /// of the stage's constraint vectors serves them all, as its tasks ask
    /// alike), sends each LM its share of them as one request, and the LM
    /// answers that request once, with its state. The paper's GM matches,
    /// and reads an answer for, every task on its own: at 50 000 nodes a
    /// stage of tens of thousands of tasks then waits in one GM's queue
    /// for hundreds of ms (docs/results/megha.md).
    pub gm_batch: usize,
    /// With `gm_batch` > 1: a GM's cost per task beyond the first of a
    /// batch, for writing its launch request and for reading its verdict
    /// in the LM's answer.
    pub gm_batch_task_us: f64,
    /// Fair-share preemption under contention (Algorithm 2); off by default
    /// so the architectures are compared on allocation alone.
    pub fair_share: bool,
}

impl Default for MeghaOptions {
    fn default() -> Self {
        MeghaOptions {
            gms: 10,
            lms: 10,
            state_update_ms: 10_000,
            gm_match_us: 5.0,
            gm_word_us: 0.01,
            gm_message_us: 1.0,
            gm_state_node_us: 0.002,
            lm_us: 2.0,
            gm_batch: 1,
            gm_batch_task_us: 1.0,
            fair_share: false,
        }
    }
}

/// What an LM sends a GM.
pub(crate) enum Message {
    /// The verdicts on a request (one per task; one task unless
    /// `gm_batch` > 1), with the LM's state (§IV-B6).
    /// `processed`: this GM's launches the LM has served so far.
    Answer { lm: u32, verdicts: Vec<(u32, Outcome)>, state: Vec<(u32, Resources)>, processed: u64, usage: Vec<Resources> },
    /// The periodic update.
    StateUpdate { lm: u32, state: Vec<(u32, Resources)>, processed: u64, usage: Vec<Resources> },
    /// One of this GM's tasks finished on `node` (`frees`: its resources
    /// went back to the node, i.e. it was not preempted first).
    Completion { task: u32, node: u32, frees: bool },
    /// One of this GM's tasks was preempted: ask for it again.
    Preempted { task: u32 },
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Outcome {
    Launched,
    Rejected,
    PreemptionRefused,
}

/// One task to launch on one node (`repartition`: the node is in another
/// GM's partition, §IV-B4). `gm_wait_us`: the task's queueing at the GM.
pub(crate) struct Launch {
    pub task: u32,
    pub node: u32,
    pub repartition: bool,
    pub gm_wait_us: i64,
}

/// What a GM sends an LM.
pub(crate) enum Request {
    /// Launch these tasks (one, unless `gm_batch` > 1), in this order.
    Launch { gm: u32, launches: Vec<Launch> },
    /// Preempt tasks of queue `victim` in this LM to make room for `task` (§IV-C).
    Preempt { task: u32, gm: u32, victim: u32, gm_wait_us: i64 },
}

pub(crate) enum Event {
    Submit(u32),
    GmDone(u32),
    ToGm(u32, Message),
    ToLm(u32, Request),
    LmDone(u32),
    TaskStart {
        task: u32,
        node: u32,
        queue_us: i64,
    },
    TaskEnd {
        task: u32,
        node: u32,
        run: u16,
    },
    /// The LM's kill of a preempted task reaches its node.
    Kill {
        task: u32,
        node: u32,
        run: u16,
    },
    CompletionAtLm {
        task: u32,
        node: u32,
    },
    StateTimer(u32),
}

pub(crate) struct Megha<'a> {
    w: &'a Workload,
    o: &'a MeghaOptions,
    net_us: i64,
    layout: Layout,
    rec: Recorder,
    jobs: JobTracker,
    events: EventQueue<Event>,
    gms: Vec<GlobalMaster>,
    lms: Vec<LocalMaster>,
    truth: Truth,
    groups: Vec<Group>,
    /// User queue → its GM (round-robin over queues) and its slot there.
    queue_gm: Vec<u32>,
    queue_slot: Vec<u32>,
    /// Per task: its current run number and whether that run is on a node
    /// now (a preemption and a completion can race).
    run_of: Vec<u16>,
    running: Vec<bool>,
    fair: Option<FairShare>,
    ready: Vec<u32>,
}

const STATE_TIMER_SALT: u64 = 0x3E6A_0000_0000_0003;

pub fn run(w: &Workload, o: &MeghaOptions, net_us: i64, seed: u64, keep_runs: bool, progress: bool) -> ArchReport {
    let layout = Layout::new(w.nodes, o.lms, o.gms);
    let (gm_count, lm_count) = (layout.gms, layout.lms);
    let queues = w.queue_names.len();
    let queue_gm: Vec<u32> = (0..queues).map(|q| (q % gm_count) as u32).collect();
    let queue_slot: Vec<u32> = (0..queues).map(|q| (q / gm_count) as u32).collect();
    let gms = (0..gm_count)
        .map(|g| {
            let own = queue_gm.iter().filter(|&&x| x as usize == g).count();
            GlobalMaster::new(&layout, w, own)
        })
        .collect();
    let lms = (0..lm_count).map(|_| LocalMaster::default()).collect();
    let fair = o.fair_share.then(|| FairShare::new(w, &layout));
    let mut m = Megha {
        w,
        o,
        net_us,
        truth: Truth::new(&layout, w.node_capacity),
        layout,
        rec: Recorder::new(w, keep_runs),
        jobs: JobTracker::new(w),
        events: EventQueue::default(),
        gms,
        lms,
        groups: (0..w.stages.len()).map(|_| Group::default()).collect(),
        queue_gm,
        queue_slot,
        run_of: vec![0; w.task_count()],
        running: vec![false; w.task_count()],
        fair,
        ready: Vec::new(),
    };
    let mut rng = Rng::seeded(seed ^ STATE_TIMER_SALT);
    let period_us = o.state_update_ms.max(1) * 1000;
    for l in 0..lm_count {
        m.events.push(rng.int(0, period_us - 1), Event::StateTimer(l as u32));
    }
    if let Some(j) = w.jobs.first() {
        m.events.push(j.submit_us, Event::Submit(0));
    }
    let mut line = Progress::new("scale-sim megha", w.task_count() as u64, progress);
    while let Some((now, ev)) = m.events.pop() {
        m.handle(now, ev);
        line.report(m.jobs.tasks_finished, now as f64 / 1e6);
    }
    let setup = format!("{} GMs x {} LMs{}", gm_count, lm_count, if o.fair_share { ", fair" } else { "" });
    let gm_busy: Vec<i64> = m.gms.iter().map(|g| g.busy_us).collect();
    let lm_busy: Vec<i64> = m.lms.iter().map(|l| l.server.busy_us).collect();
    let events = m.events.popped;
    m.rec.report("megha", setup, w, &m.jobs, vec![("GM", gm_busy), ("LM", lm_busy)], events)
}

impl Megha<'_> {
    fn handle(&mut self, now: i64, ev: Event) {
        match ev {
            Event::Submit(j) => {
                self.jobs.submit(self.w, j, now, &mut self.ready);
                self.ask_ready(now);
                if let Some(next) = self.w.jobs.get(j as usize + 1) {
                    self.events.push(next.submit_us, Event::Submit(j + 1));
                }
            }
            Event::GmDone(g) => self.gm_done(g as usize, now),
            Event::ToGm(g, msg) => {
                self.gms[g as usize].mailbox.push_back(msg);
                self.gm_kick(g as usize, now);
            }
            Event::ToLm(l, req) => self.lm_arrive(l as usize, req, now),
            Event::LmDone(l) => self.lm_done(l as usize, now),
            Event::TaskStart { task, node, queue_us } => {
                let t = task as usize;
                self.run_of[t] = self.run_of[t].wrapping_add(1);
                self.running[t] = true;
                self.rec.start(self.w, task, node, now, queue_us);
                let run = self.run_of[t];
                self.events.push(now + self.w.task_duration_us[t], Event::TaskEnd { task, node, run });
            }
            Event::TaskEnd { task, node, run } => {
                let t = task as usize;
                if !self.running[t] || self.run_of[t] != run {
                    return; // this run was preempted
                }
                self.running[t] = false;
                self.rec.stop(self.w, task, node, now, false);
                self.jobs.task_finished(self.w, task, now, &mut self.ready);
                self.ask_ready(now);
                self.events.push(now + self.net_us, Event::CompletionAtLm { task, node });
            }
            Event::Kill { task, node, run } => self.kill(task, node, run, now),
            Event::CompletionAtLm { task, node } => self.completion_at_lm(task, node, now),
            Event::StateTimer(l) => self.state_timer(l as usize, now),
        }
    }

    /// Stages just asked: their tasks enter their GM's user queue.
    fn ask_ready(&mut self, now: i64) {
        for stage in std::mem::take(&mut self.ready) {
            self.rec.ask_stage(self.w, stage, now);
            self.enqueue_stage(stage, now);
        }
    }

    fn gm_of_task(&self, task: u32) -> usize {
        let job = self.w.job_of_task(task);
        self.queue_gm[self.w.jobs[job as usize].queue as usize] as usize
    }

    fn queue_of_task(&self, task: u32) -> u32 {
        self.w.jobs[self.w.job_of_task(task) as usize].queue
    }
}
