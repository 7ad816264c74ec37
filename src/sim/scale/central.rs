//! The central, heartbeat-driven scheduler (YARN's architecture, which
//! heartbeat-driven Shepherd keeps): one scheduler thread; every node
//! heartbeats every `heartbeat_ms` at its own random, fixed phase; each
//! heartbeat waits in the scheduler's FIFO queue and takes
//! `heartbeat_us` to serve. Serving a heartbeat first releases the
//! containers the node reports finished (those that ended before the
//! heartbeat was sent: the scheduler learns of a completion only through a
//! heartbeat of the node, its next periodic one unless `oob_heartbeats`,
//! below), then allocates pending tasks
//! in FIFO order (job submission order, then stage) that fit the node's
//! free resources, skipping those that do not fit. Optionally
//! (`queues_round_robin`) it serves the users' queues round-robin, FIFO
//! within each, as Megha's GMs serve them (§IV-B), so the comparison with
//! Megha is of the architecture and not of the queue discipline.
//!
//! A task starts on its node one network delay after the heartbeat's
//! service ends (the launch message). The heartbeats are open-loop (as in
//! YARN, a node's heartbeat RPC returns before the scheduler handles the
//! node update, so nodes do not slow down for it): when
//! ρ = nodes × heartbeat_us ÷ interval exceeds 1, the scheduler's queue
//! grows without bound. That is the architecture's scaling limit; the run
//! is then stopped once a heartbeat has waited `max_queue_s` and reported
//! as saturated (its latencies as lower bounds).
//!
//! Optionally (`round_ms` > 0) the scheduler also runs scheduling rounds
//! between heartbeats, as Shepherd's RM does with
//! `async-scheduling.interval-ms` (`crate::engine::round`): one round, then
//! a sleep of `round_ms`, then the next; a round waits for the scheduler
//! like a heartbeat, visits up to `round_nodes` nodes that the books show
//! with room for the smallest task (from where the last round stopped),
//! runs the heartbeat's allocation on each at `round_pass_us` per node, and
//! launches what it placed one network delay after it ends. Its books are
//! the heartbeats' books: a finished task's resources come back only with
//! a heartbeat of its node. A round with nothing pending costs nothing
//! (the engine answers at once).
//!
//! Optionally (`oob_heartbeats`) a node also heartbeats out of band when a
//! container on it finishes, as YARN's NodeManagers do (Hadoop 3.4's
//! `ContainerImpl` calls `NodeStatusUpdater.sendOutofBandHeartBeat()` when a
//! container is done, which wakes the node's heartbeat thread at once). The
//! out-of-band heartbeat reaches the scheduler one network delay after the
//! end, waits in the same FIFO queue, costs `heartbeat_us` like any other
//! and, when served, reports every container the node finished by then (the
//! RM keeps a node's reports queued until the scheduler pulls them at its
//! next node update). A node has at most one out-of-band heartbeat waiting
//! (the RM does not queue a second node update for a node whose last one it
//! has not handled); an end that comes while one waits is reported by it.
//!
//! Optionally (`report_only_heartbeats`, with rounds) a heartbeat only
//! reports: it updates the books at `report_us` and places nothing, and
//! only rounds allocate, as Shepherd's RM does with
//! `async-scheduling.heartbeats-allocate = false`.
//!
//! Not modelled: the ApplicationMaster's own allocate interval (asks reach
//! the scheduler the moment they are made) and locality.

use super::queues::{PendingQueues, QueueOrder};
use super::report::{ArchReport, Recorder};
use super::server::whole_us;
use super::workload::{JobTracker, Workload};
use crate::model::Resources;
use crate::report::progress::Progress;
use crate::sim::event_queue::EventQueue;
use crate::workload::rng::Rng;
use std::cmp::Reverse;
use std::collections::{BTreeSet, BinaryHeap, VecDeque};

#[derive(Debug, Clone, PartialEq)]
pub struct CentralOptions {
    /// NodeManager heartbeat interval (YARN's default 1 000 ms).
    pub heartbeat_ms: i64,
    /// Scheduler time per heartbeat: Shepherd's engine P50 per heartbeat at
    /// 10 000 pending asks (`shepherd bench-heartbeat`, ≈ 40 µs).
    pub heartbeat_us: f64,
    /// Stop as saturated when a heartbeat waited this long (s) for the scheduler.
    pub max_queue_s: i64,
    /// Scheduling rounds between heartbeats: the sleep between two rounds,
    /// ms (Shepherd's `async-scheduling.interval-ms`); 0 = heartbeats only.
    pub round_ms: i64,
    /// Nodes a round visits at most (`async-scheduling.max-nodes`; 0 = all).
    pub round_nodes: usize,
    /// Scheduler time per node a round visits (the heartbeat's pass).
    pub round_pass_us: f64,
    /// A node heartbeats out of band when a container on it finishes, as
    /// YARN's NodeManagers do; off = completions wait for the periodic heartbeat.
    pub oob_heartbeats: bool,
    /// Serve the users' queues round-robin (one task at a time, FIFO within
    /// a queue), as Megha's GMs do; off = one FIFO over every job.
    pub queues_round_robin: bool,
    /// Heartbeats only report (the shim's
    /// `async-scheduling.heartbeats-allocate = false`, as the
    /// CapacityScheduler's heartbeats under asynchronous scheduling): a
    /// heartbeat updates the books and places nothing, at `report_us`;
    /// only rounds allocate (needs `round_ms` > 0).
    pub report_only_heartbeats: bool,
    /// Scheduler time per report-only heartbeat (`shepherd bench-heartbeat
    /// --report-only`: P50 6.5–7.4 µs at 10 000 pending asks, sixteen
    /// completions a heartbeat).
    pub report_us: f64,
}

impl Default for CentralOptions {
    fn default() -> Self {
        CentralOptions {
            heartbeat_ms: 1000,
            heartbeat_us: 40.0,
            max_queue_s: 600,
            round_ms: 0,
            round_nodes: 100,
            round_pass_us: 40.0,
            oob_heartbeats: false,
            queues_round_robin: false,
            report_only_heartbeats: false,
            report_us: 7.0,
        }
    }
}

impl CentralOptions {
    /// Scheduler work offered per unit of time by the heartbeats alone.
    pub fn heartbeat_load(&self, nodes: usize) -> f64 {
        nodes as f64 * self.heartbeat_cost_us() / (self.heartbeat_ms.max(1) as f64 * 1000.0)
    }

    /// What one heartbeat costs the scheduler: its pass, or only its report.
    pub fn heartbeat_cost_us(&self) -> f64 {
        if self.report_only_heartbeats {
            self.report_us
        } else {
            self.heartbeat_us
        }
    }
}

/// Salt of the phase draws, so they differ from the other architectures' draws.
const PHASE_SALT: u64 = 0xC0FF_EE00_0000_0001;

/// Each node's heartbeat phase in [0, interval): its heartbeats reach the
/// scheduler at phase, phase + interval, ...
pub fn heartbeat_phases(nodes: usize, heartbeat_ms: i64, seed: u64) -> Vec<i64> {
    let mut rng = Rng::seeded(seed ^ PHASE_SALT);
    let interval_us = heartbeat_ms.max(1) * 1000;
    (0..nodes).map(|_| rng.int(0, interval_us - 1)).collect()
}

enum Event {
    Submit(u32),
    TaskStart { task: u32, node: u32, queue_us: i64 },
    TaskEnd { task: u32, node: u32 },
}

struct Central<'a> {
    w: &'a Workload,
    net_us: i64,
    heartbeat_us: i64,
    /// Heartbeats place tasks (off: they only report, rounds place).
    heartbeats_allocate: bool,
    interval_us: i64,
    rec: Recorder,
    jobs: JobTracker,
    events: EventQueue<Event>,
    /// The scheduler's books: capacity − allocated + reported completions.
    books_free: Vec<Resources>,
    /// Per node: (end time, demand) of finished tasks not yet reported.
    unreported: Vec<VecDeque<(i64, Resources)>>,
    /// Tasks asked and not allocated, in FIFO or users' round-robin order.
    pending: PendingQueues,
    running_tasks: u64,
    /// Nodes in phase order, and where the heartbeat stream is.
    by_phase: Vec<u32>,
    phase: Vec<i64>,
    cycle: i64,
    position: usize,
    scheduler_free_at: i64,
    busy_us: i64,
    ready: Vec<u32>,
    /// Rounds between heartbeats (0 = none): sleep between rounds, µs.
    round_sleep_us: i64,
    round_nodes: usize,
    round_pass_us: i64,
    /// When the next round asks for the scheduler.
    next_round: i64,
    /// Nodes whose books fit the smallest task shape (kept only when there
    /// are rounds), and where the next round starts.
    roomy: BTreeSet<u32>,
    cursor: u32,
    /// Out-of-band heartbeats (on), waiting: (arrival, node), earliest first;
    /// and whether a node has one waiting.
    oob_on: bool,
    oob: BinaryHeap<Reverse<(i64, u32)>>,
    oob_waiting: Vec<bool>,
}

pub fn run(w: &Workload, o: &CentralOptions, net_us: i64, seed: u64, keep_runs: bool, progress: bool) -> ArchReport {
    let phase = heartbeat_phases(w.nodes, o.heartbeat_ms, seed);
    let mut by_phase: Vec<u32> = (0..w.nodes as u32).collect();
    by_phase.sort_by_key(|&n| (phase[n as usize], n));
    let mut c = Central {
        w,
        net_us,
        heartbeat_us: whole_us(o.heartbeat_cost_us()),
        heartbeats_allocate: !o.report_only_heartbeats,
        interval_us: o.heartbeat_ms.max(1) * 1000,
        rec: Recorder::new(w, keep_runs),
        jobs: JobTracker::new(w),
        events: EventQueue::default(),
        books_free: vec![w.node_capacity; w.nodes],
        unreported: vec![VecDeque::new(); w.nodes],
        pending: PendingQueues::new(w, if o.queues_round_robin { QueueOrder::UsersRoundRobin } else { QueueOrder::Fifo }),
        running_tasks: 0,
        by_phase,
        phase,
        cycle: 0,
        position: 0,
        scheduler_free_at: 0,
        busy_us: 0,
        ready: Vec::new(),
        round_sleep_us: o.round_ms.max(0) * 1000,
        round_nodes: if o.round_nodes == 0 { usize::MAX } else { o.round_nodes },
        round_pass_us: whole_us(o.round_pass_us),
        next_round: 0,
        roomy: match o.round_ms > 0 && w.smallest_shape.fits_in(&w.node_capacity) {
            true => (0..w.nodes as u32).collect(),
            false => BTreeSet::new(),
        },
        cursor: 0,
        oob_on: o.oob_heartbeats,
        oob: BinaryHeap::new(),
        oob_waiting: vec![false; if o.oob_heartbeats { w.nodes } else { 0 }],
    };
    let mut line = Progress::new("scale-sim central", w.task_count() as u64, progress);
    if let Some(j) = w.jobs.first() {
        c.events.push(j.submit_us, Event::Submit(0));
    }
    let mut heartbeats_seen = 0u64;
    let max_queue_us = o.max_queue_s.max(1) * 1_000_000;
    while !c.jobs.all_done(w) {
        let node = c.by_phase[c.position];
        let arrived = c.cycle * c.interval_us + c.phase[node as usize];
        let oob_next = c.oob.peek().map(|r| r.0);
        if let Some((oob_arrived, oob_node)) = oob_next.filter(|&(a, _)| a < arrived && (c.round_sleep_us == 0 || a <= c.next_round)) {
            // An out-of-band heartbeat reaches the scheduler first.
            let Some(start) = c.service_start(oob_arrived, max_queue_us) else { break };
            let end = start + c.heartbeat_us;
            if !c.event_by(end, &mut line) {
                c.oob.pop();
                c.oob_waiting[oob_node as usize] = false;
                c.rec.counters.oob_heartbeats += 1;
                // It reports what the node finished by the time it is served.
                c.heartbeat(oob_node, oob_arrived, start, start, end);
                heartbeats_seen += 1;
            }
            continue;
        }
        if c.round_sleep_us > 0 && c.next_round < arrived {
            // A round asks for the scheduler before the next heartbeat.
            let asked = c.next_round;
            let Some(start) = c.service_start(asked, max_queue_us) else { break };
            if !c.event_by(start, &mut line) {
                let end = c.round(asked, start);
                c.next_round = end + c.round_sleep_us;
            }
            continue;
        }
        let Some(start) = c.service_start(arrived, max_queue_us) else { break };
        let end = start + c.heartbeat_us;
        if c.event_by(end, &mut line) {
            continue;
        }
        if c.events.is_empty() && c.pending.tasks == 0 && c.running_tasks == 0 && c.unreported_empty() {
            break; // nothing can happen any more (cannot occur with a valid workload)
        }
        c.heartbeat(node, arrived, arrived, start, end);
        heartbeats_seen += 1;
        c.position += 1;
        if c.position == c.by_phase.len() {
            c.position = 0;
            c.cycle += 1;
        }
        line.report(c.jobs.tasks_finished, end as f64 / 1e6);
    }
    let report_only = if c.heartbeats_allocate { "" } else { " (report only)" };
    let mut setup = format!("hb {} ms x {} µs{report_only}, ρ={:.2}", o.heartbeat_ms, c.heartbeat_us, o.heartbeat_load(w.nodes));
    if c.round_sleep_us > 0 {
        let most = if o.round_nodes == 0 { "all".to_string() } else { format!("≤ {}", o.round_nodes) };
        setup += &format!("; rounds every {} ms, {most} nodes x {} µs", o.round_ms, c.round_pass_us);
    }
    let events = c.events.popped + heartbeats_seen;
    let busy = c.busy_us;
    c.rec.report("central", setup, w, &c.jobs, vec![("scheduler", vec![busy])], events)
}

impl Central<'_> {
    /// When the scheduler starts serving what reached it at `arrived`
    /// (after what it is serving); `None` once that waited over
    /// `max_queue_us`: the run is then reported as saturated.
    fn service_start(&mut self, arrived: i64, max_queue_us: i64) -> Option<i64> {
        let start = arrived.max(self.scheduler_free_at);
        if start - arrived > max_queue_us {
            self.rec.saturated(self.w, start);
            return None;
        }
        Some(start)
    }

    fn unreported_empty(&self) -> bool {
        self.unreported.iter().all(|u| u.is_empty())
    }

    /// Handle the next event if it happens by `t` (before the scheduler
    /// serves what it is about to serve at `t`).
    fn event_by(&mut self, t: i64, line: &mut Progress) -> bool {
        match self.events.peek_time() {
            Some(e) if e <= t => {
                let (now, ev) = self.events.pop().expect("peeked");
                self.handle(now, ev);
                line.report(self.jobs.tasks_finished, now as f64 / 1e6);
                true
            }
            _ => false,
        }
    }

    fn handle(&mut self, now: i64, ev: Event) {
        let w = self.w;
        match ev {
            Event::Submit(j) => {
                self.jobs.submit(w, j, now, &mut self.ready);
                self.enqueue_ready(now);
                if let Some(next) = w.jobs.get(j as usize + 1) {
                    self.events.push(next.submit_us, Event::Submit(j + 1));
                }
            }
            Event::TaskStart { task, node, queue_us } => {
                self.rec.start(w, task, node, now, queue_us);
                self.events.push(now + w.task_duration_us[task as usize], Event::TaskEnd { task, node });
            }
            Event::TaskEnd { task, node } => {
                self.rec.stop(w, task, node, now, false);
                self.running_tasks -= 1;
                self.unreported[node as usize].push_back((now, w.task_demand(task)));
                if self.oob_on && !self.oob_waiting[node as usize] {
                    self.oob_waiting[node as usize] = true;
                    self.oob.push(Reverse((now + self.net_us, node)));
                }
                self.jobs.task_finished(w, task, now, &mut self.ready);
                self.enqueue_ready(now);
            }
        }
    }

    fn enqueue_ready(&mut self, now: i64) {
        for s in std::mem::take(&mut self.ready) {
            self.rec.ask_stage(self.w, s, now);
            self.pending.enqueue(self.w, s);
        }
    }

    /// Serve one heartbeat of `node` that arrived at `arrived`, in service
    /// [start, end], reporting the containers that finished by `reported_by`.
    fn heartbeat(&mut self, node: u32, arrived: i64, reported_by: i64, start: i64, end: i64) {
        self.rec.counters.heartbeats += 1;
        self.busy_us += end - start;
        self.scheduler_free_at = end;
        let n = node as usize;
        let books = &mut self.books_free[n];
        while let Some(&(ended, demand)) = self.unreported[n].front() {
            if ended > reported_by {
                break;
            }
            *books += demand;
            self.unreported[n].pop_front();
        }
        if self.heartbeats_allocate && self.pending.tasks > 0 && self.w.smallest_shape.fits_in(books) {
            for task in self.place_on(n) {
                self.events.push(end + self.net_us, Event::TaskStart { task, node, queue_us: start - arrived });
            }
        }
        self.refresh(node);
    }

    /// One scheduling round asked for at `asked`, served from `start`:
    /// the heartbeat's allocation on each node with room, up to
    /// `round_nodes` of them. Returns when it ends.
    fn round(&mut self, asked: i64, start: i64) -> i64 {
        if self.pending.tasks == 0 || self.roomy.is_empty() {
            return start;
        }
        self.rec.counters.rounds += 1;
        let nodes: Vec<u32> =
            self.roomy.range(self.cursor..).chain(self.roomy.range(..self.cursor)).take(self.round_nodes).copied().collect();
        let mut placed = Vec::new();
        let mut visited = 0;
        for &node in &nodes {
            visited += 1;
            placed.extend(self.place_on(node as usize).into_iter().map(|task| (task, node)));
            self.refresh(node);
            if self.pending.tasks == 0 {
                break;
            }
        }
        self.cursor = nodes[visited - 1].wrapping_add(1);
        let end = start + visited as i64 * self.round_pass_us;
        self.busy_us += end - start;
        self.scheduler_free_at = end;
        for (task, node) in placed {
            self.events.push(end + self.net_us, Event::TaskStart { task, node, queue_us: start - asked });
        }
        end
    }

    /// Whether `node`'s books still fit the smallest task (the nodes a
    /// round visits; kept only when there are rounds).
    fn refresh(&mut self, node: u32) {
        if self.round_sleep_us == 0 {
            return;
        }
        if self.w.smallest_shape.fits_in(&self.books_free[node as usize]) {
            self.roomy.insert(node);
        } else {
            self.roomy.remove(&node);
        }
    }

    /// The queue order with skipping on node `n`'s books: the tasks placed there.
    fn place_on(&mut self, n: usize) -> Vec<u32> {
        let placed = self.pending.place_on(self.w, &mut self.books_free[n]);
        self.running_tasks += placed.len() as u64;
        placed
    }
}
