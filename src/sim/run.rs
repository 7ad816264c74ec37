//! The event loop. Order at one instant: job arrivals and task ends first (in
//! the order they were scheduled), then one heartbeat round in which every
//! node with room heartbeats in node order. A round happens only on the
//! heartbeat grid (multiples of `heartbeat_ms`) and only when something
//! changed since the last round that allocated nothing — a naive tick would
//! make identical empty passes then, so skipping them changes no result.
//! Plugins with a periodic step (DRESS's Algorithm 3 every interval) get it
//! as a timer of its own (`Engine::next_tick_ms`, `Engine::tick`), on the
//! same grid; a step that may change decisions makes the nodes with room
//! heartbeat at once, so decisions equal those of naive heartbeating.
//!
//! Optionally (`SimOptions::round_ms`) the engine also runs scheduling
//! rounds between heartbeats, as the shim's asynchronous thread asks for
//! them in the RM: the same `Engine::schedule_round`, on its own grid, after
//! the heartbeat round of the same instant. And (`ends_at_heartbeat`) the
//! RM may learn of an ended container only at its node's next heartbeat, as
//! YARN does, which is what keeps a round from using room YARN cannot see.
//! Or (`oob_heartbeats`) the node heartbeats out of band when a container
//! on it ends, as YARN's NodeManagers do: the RM learns of the end at once
//! and the node's pass follows at the same instant.

use super::am::{AmActions, JobRun};
use super::calibration::{Calibration, HostModel};
use super::clock::{grid_ceil, next_heartbeat, Clock, SimEvent};
use super::cluster::SimCluster;
use super::host::{After, SharedCpu};
use super::options::SimOptions;
use super::recorder::Recorder;
pub use super::recorder::SimOutcome;
use super::sls::{self, SlsModel, SlsState};
use crate::config::Config;
use crate::engine::{Decision, Engine, Event};
use crate::model::ask::AM_PRIORITY;
use crate::model::{Ask, ContainerId, ExecutionType, NodeId, Resources, SchedulerKey};
use crate::workload::rng::Rng;
use crate::workload::{ClusterSpec, Trace};
use std::collections::{BTreeMap, BTreeSet, HashMap};

pub(super) struct RunningTask {
    pub(super) job: u32,
    pub(super) stage: usize,
    pub(super) task: usize,
    pub(super) node: NodeId,
    pub(super) resources: Resources,
    /// Actual use: memory MB, vcores in millis (a 1-vcore task at usage
    /// factor 0.4 uses 400 millicores, as a NodeManager would measure).
    pub(super) used: Resources,
    /// A speculative (OPPORTUNISTIC) container of the oversubscribe point.
    pub(super) speculative: bool,
    pub(super) launched_ms: Option<i64>,
}

pub(super) struct Sim<'a> {
    pub(super) trace: &'a Trace,
    pub(super) opts: &'a SimOptions,
    pub(super) engine: Engine,
    pub(super) clock: Clock,
    pub(super) cluster: SimCluster,
    pub(super) runs: Vec<JobRun>,
    pub(super) tasks: HashMap<ContainerId, RunningTask>,
    /// Containers asked for and not yet allocated, over all jobs.
    pub(super) pending: i64,
    /// The same, per distinct container shape (memory MB, vcores): a node
    /// none of these fits would make a pass that allocates nothing.
    pub(super) shapes: BTreeMap<(i64, i64), i64>,
    /// Job records, the utilization timeline, shares, latencies.
    pub(super) rec: Recorder,
    pub(super) actions: AmActions,
    pub(super) sim_events: u64,
    pub(super) finished_tasks: u64,
    /// Containers RUNNING (launched, not finished), AMs included: the load
    /// of a shared host (`Calibration::shared_host`).
    pub(super) running: usize,
    /// Start-ups re-timed by processor sharing on a shared host, when the
    /// model's host is `processor-sharing` (else the snapshot slowdown).
    pub(super) host: Option<SharedCpu>,
    /// The cluster-side model (AM containers, launch and tear-down times,
    /// heartbeat phases); `None`: tasks start the instant they are allocated
    /// and jobs have no AM.
    pub(super) model: Option<&'a Calibration>,
    pub(super) rng: Rng,
    /// Each job's ApplicationMaster container, while it holds one, and the
    /// job of each AM container.
    pub(super) am_of: Vec<Option<(ContainerId, NodeId, Resources)>>,
    pub(super) job_of_am: HashMap<ContainerId, u32>,
    /// Each node's heartbeat slot: the sub-interval of the heartbeat period
    /// its heartbeats fall in (all 0 without phases).
    pub(super) slot: Vec<u32>,
    /// Heartbeat sub-intervals per period: 1 (a common grid) or `PHASE_SLOTS`.
    pub(super) slots: i64,
    /// Until when every node must be offered a heartbeat after a change.
    pub(super) dirty_until: i64,
    /// The policy over-subscribes (ROSE): every node heartbeats every
    /// interval while work remains (its controller reads each heartbeat's
    /// utilization), and each heartbeat carries the node's actual use.
    pub(super) over: bool,
    /// Per node: actual use of its RUNNING containers (memory MB, vcores
    /// in millis).
    pub(super) node_used: Vec<Resources>,
    pub(super) node_capacity: Resources,
    /// Per node: task containers that ended and that its next heartbeat
    /// reports to the RM (`SimOptions::ends_at_heartbeat`).
    pub(super) unreported: HashMap<NodeId, Vec<ContainerId>>,
    /// Nodes with an out-of-band heartbeat on the clock
    /// (`SimOptions::oob_heartbeats`): ends at one instant share it.
    pub(super) oob_due: BTreeSet<NodeId>,
    /// The SLS model's AM simulators and NM phases (`SimOptions::sls`).
    pub(super) sls: Option<SlsState>,
}

/// Heartbeat phases are resolved to a tenth of the heartbeat interval.
const PHASE_SLOTS: i64 = 10;

/// Simulate `trace` (jobs sorted by submission) on `cluster` under `config`.
pub fn simulate(trace: &Trace, cluster: &ClusterSpec, config: Config, opts: &SimOptions) -> Result<SimOutcome, String> {
    let mut trace = trace.clone();
    trace.sort_by_submit();
    trace.validate()?;
    if let Some(m) = &opts.sls {
        m.check(opts)?;
        // SLS's MapReduce AM asks a stage once its parents are done, one
        // container at a time (`MRAMSimulator.sendContainerRequest`).
        for j in trace.jobs.iter_mut() {
            j.gang = false;
            j.stages.iter_mut().for_each(|s| s.slowstart = None);
        }
    }
    let engine = Engine::with_config(config).map_err(|e| e.to_string())?;
    // The SLS model brings its own cluster-side model (its AM container, no
    // launch or overhead times).
    let sls_calibration = opts.sls.map(|_| SlsModel::calibration());
    let model = sls_calibration.as_ref().or(opts.cluster_model.as_ref());
    let mut min_demand = Resources::new(i64::MAX, i64::MAX);
    let am_demands = trace.jobs.iter().filter(|_| model.is_some()).map(|j| am_size(&trace, j, model));
    for d in trace.jobs.iter().flat_map(|j| &j.stages).map(|s| s.demand()).chain(am_demands) {
        if !d.fits_in(&cluster.capacity()) {
            return Err(format!("a task asks for {d:?}, more than a node's {:?}", cluster.capacity()));
        }
        for i in 0..2 {
            min_demand.0[i] = min_demand.0[i].min(d.0[i]);
        }
    }
    if trace.jobs.is_empty() {
        min_demand = Resources::ZERO;
    }
    let mut engine = engine;
    if opts.activity_log {
        // Unbounded: the simulation's containers are all wanted.
        engine.enable_activity_log(usize::MAX);
    }
    let sim_cluster = SimCluster::start(&mut engine, cluster, min_demand);
    let mut rng = Rng::seeded(opts.seed);
    let phases = model.map(|m| &m.heartbeat_phase).filter(|d| !d.0.is_empty());
    let (slot, slots, sls_state): (Vec<u32>, i64, Option<SlsState>) = match &opts.sls {
        // SLS: each node its own phase to the ms (slots of 1 ms).
        Some(m) => {
            let phase_of = sls::phases(opts.seed, cluster.nodes, opts.heartbeat_ms);
            let state = SlsState::new(m, trace.jobs.iter().map(|j| j.submit_ms), &phase_of, opts.heartbeat_ms);
            (phase_of.iter().map(|p| *p as u32).collect(), opts.heartbeat_ms, Some(state))
        }
        None => {
            let slot = (0..cluster.nodes)
                .map(|_| phases.map_or(0, |d| (d.draw(&mut rng).clamp(0.0, 0.999_999) * PHASE_SLOTS as f64) as u32))
                .collect();
            (slot, if phases.is_some() && opts.heartbeat_ms >= PHASE_SLOTS { PHASE_SLOTS } else { 1 }, None)
        }
    };
    let start = trace.jobs.first().map(|j| j.submit_ms).unwrap_or(0);
    let rec = Recorder::new(&trace, opts.window_ms, start, sim_cluster.capacity, cluster.capacity(), cluster.nodes as usize);
    let mut sim = Sim {
        trace: &trace,
        opts,
        engine,
        clock: Clock::default(),
        cluster: sim_cluster,
        runs: trace.jobs.iter().map(|j| JobRun::new(j, opts.gang)).collect(),
        tasks: HashMap::new(),
        pending: 0,
        shapes: BTreeMap::new(),
        rec,
        actions: AmActions::default(),
        sim_events: 0,
        finished_tasks: 0,
        running: 0,
        host: model
            .and_then(|m| m.shared_host)
            .filter(|h| h.model == HostModel::ProcessorSharing)
            .map(|h| SharedCpu::new(h.containers_at_full_speed, h.background_weight)),
        model,
        rng,
        am_of: vec![None; trace.jobs.len()],
        job_of_am: HashMap::new(),
        slot,
        slots,
        dirty_until: i64::MIN,
        over: false,
        node_used: vec![Resources::ZERO; cluster.nodes as usize],
        node_capacity: cluster.capacity(),
        unreported: HashMap::new(),
        oob_due: BTreeSet::new(),
        sls: sls_state,
    };
    sim.over = sim.engine.policies().has_oversubscribe();
    for (i, j) in trace.jobs.iter().enumerate() {
        sim.clock.push(j.submit_ms, SimEvent::Arrival(i as u32));
    }
    sim.run();
    let node_used = sim.over.then_some(&sim.node_used[..]);
    Ok(sim.rec.outcome(&trace, &sim.runs, &sim.engine, node_used, sim.sim_events))
}

impl<'a> Sim<'a> {
    fn run(&mut self) {
        let progress = crate::report::progress::bar(self.trace.task_count() as u64, self.opts.progress);
        let hb = self.opts.heartbeat_ms.max(1);
        let sub = self.sub_interval();
        // Next heartbeat round, and next periodic step of the engine's
        // plugins, both on that grid.
        let mut round_due: Option<i64> = None;
        let mut timer_due: Option<i64> = None;
        let mut last_round: i64 = i64::MIN;
        // Scheduling rounds between heartbeats (`round_ms` > 0), on their
        // own grid; one is due after any event while asks are pending.
        let every = self.opts.round_ms;
        let mut async_due: Option<i64> = None;
        let mut last_async: i64 = i64::MIN;
        let mut decisions = Vec::new();
        loop {
            let wake = [round_due, timer_due, async_due].into_iter().flatten().min();
            let take_event = match (self.clock.peek_time(), wake) {
                (Some(e), Some(t)) => e <= t,
                (Some(_), None) => true,
                (None, Some(_)) => false,
                (None, None) => break,
            };
            if take_event {
                let (t, ev) = self.clock.pop().expect("peeked");
                self.sim_events += 1;
                // As the RM's events reach the engine at their time (the
                // JNI session advances its clock before each batch).
                self.engine.advance_clock(t);
                match ev {
                    SimEvent::Arrival(j) => self.arrive(j, t),
                    SimEvent::AmAsk(j) => self.am_ask(j),
                    SimEvent::Launch(c) => self.launch(c, t),
                    SimEvent::AmReady(j) => self.am_ready(j, t),
                    SimEvent::TaskEnd(c) => self.task_end(c, t),
                    SimEvent::AmExit(j) => self.am_exit(j, t),
                    SimEvent::HostWake(generation) => self.host_wake(t, generation),
                    SimEvent::NodeReport(node) => self.node_report(node, t),
                    SimEvent::OutOfBandHeartbeat(node) => self.out_of_band_heartbeat(node, t, &mut decisions),
                    SimEvent::AmStep(j) => self.am_step(j, t),
                }
                // Every node is offered a heartbeat within one period of a change.
                self.dirty_until = self.dirty_until.max(t + hb);
                let not_before = t.max(last_round.saturating_add(1));
                if self.pending > 0 || self.every_heartbeat() {
                    let next = self.round_at(not_before);
                    round_due = Some(round_due.map_or(next, |d| d.min(next)));
                }
                if timer_due.is_none() {
                    timer_due = self.engine.next_tick_ms().map(|nt| grid_ceil(nt.max(not_before), sub));
                }
                if every > 0 && self.pending > 0 {
                    let next = grid_ceil(t.max(last_async.saturating_add(1)), every);
                    async_due = Some(async_due.map_or(next, |d| d.min(next)));
                }
                if self.finished_tasks & 0xfff == 0 {
                    progress.set_position(self.finished_tasks);
                }
            } else {
                let t = wake.expect("wake-up due");
                let changed = timer_due == Some(t) && {
                    timer_due = None;
                    self.engine.tick(t)
                };
                if changed {
                    self.dirty_until = self.dirty_until.max(t + hb);
                }
                let mut made = 0;
                if round_due == Some(t) || (changed && self.pending > 0) {
                    round_due = None;
                    last_round = t;
                    made = self.round(t, (t / sub).rem_euclid(self.slots) as u32, &mut decisions);
                    // Go on while rounds place containers, and until every
                    // slot's nodes had their heartbeat since the last change.
                    let after = self.round_at(t + 1);
                    if self.pending > 0 && (made > 0 || after < self.dirty_until) {
                        round_due = Some(after);
                    }
                    if self.every_heartbeat() && (!self.clock.is_empty() || (self.pending > 0 && made > 0)) {
                        round_due = Some(after);
                    }
                }
                if async_due == Some(t) {
                    async_due = None;
                    last_async = t;
                    let placed = self.async_round(t, &mut decisions);
                    // The shim's thread asks every interval; the engine
                    // answers at once while nothing changed, so the next
                    // one that matters follows an event, or goes on from a
                    // round that placed or was cut short by its bound.
                    if self.pending > 0 && (placed > 0 || self.engine.round_due()) {
                        async_due = Some(t + every);
                    }
                    made += placed;
                }
                // The periodic steps go on while a naive simulator would
                // still heartbeat: while events are coming, or while rounds
                // still place containers.
                if !self.clock.is_empty() || (self.pending > 0 && made > 0) {
                    timer_due = self.engine.next_tick_ms().map(|nt| grid_ceil(nt.max(t + 1), sub));
                }
            }
        }
        progress.finish_and_clear();
    }

    /// One heartbeat round at `t`: every node of heartbeat slot `slot` with
    /// room (every node, naively), in node order.
    fn round(&mut self, t: i64, slot: u32, decisions: &mut Vec<Decision>) -> usize {
        let in_slot = |n: &NodeId| self.slot.get(*n as usize).is_none_or(|s| *s == slot);
        if self.over {
            // The heartbeats' utilization is stamped with the engine's clock.
            self.engine.tick(t);
        }
        let nodes: Vec<NodeId> = if let Some(s) = &self.sls {
            // SLS: the nodes of this ms phase, from their first heartbeat
            // on (`NMSimulator.firstStep` sends none).
            match s.by_phase.get(slot as usize) {
                Some(v) if t >= self.opts.heartbeat_ms => {
                    v.iter().copied().filter(|n| self.every_heartbeat() || self.cluster.roomy.contains(n)).collect()
                }
                _ => Vec::new(),
            }
        } else if self.every_heartbeat() {
            self.engine.state.nodes.keys().copied().filter(in_slot).collect()
        } else {
            self.cluster.roomy.iter().copied().filter(in_slot).collect()
        };
        let mut made = 0;
        for node in nodes {
            if !self.every_heartbeat() && self.pending <= 0 {
                break;
            }
            made += self.heartbeat(node, t, decisions);
        }
        made
    }

    /// `node`'s heartbeat at `t`: its utilization (over-subscribing
    /// policies), then the engine's pass on it (skipped where none of the
    /// outstanding asks fits, unless every heartbeat is simulated, and
    /// always with `report_only_heartbeats`).
    /// Returns the containers allocated.
    fn heartbeat(&mut self, node: NodeId, t: i64, decisions: &mut Vec<Decision>) -> usize {
        if self.over {
            let u = self.node_used[node as usize];
            let cap = self.node_capacity;
            // What the NodeManager measures: memory MB, vcores in millis;
            // CPU cannot exceed the node's cores.
            let used = Resources::new(u.0[0], u.0[1].min(cap.0[1] * 1000));
            self.engine.apply(Event::NodeUtilization { node, used });
        }
        if self.opts.report_only_heartbeats {
            return 0;
        }
        if !self.every_heartbeat() {
            let free = self.engine.state.nodes[&node].free();
            if !self.shapes.keys().any(|(m, v)| Resources::new(*m, *v).fits_in(&free)) {
                return 0;
            }
        }
        decisions.clear();
        self.sim_events += 1;
        if let Err(e) = self.engine.schedule_node(node, t, decisions) {
            tracing::error!(%e, "scheduling pass failed");
            return 0;
        }
        let made = self.carry_out(decisions, t);
        self.cluster.refresh(&self.engine, node);
        made
    }

    /// `node` heartbeats out of band at `t` (a container on it ended).
    fn out_of_band_heartbeat(&mut self, node: NodeId, t: i64, decisions: &mut Vec<Decision>) {
        self.oob_due.remove(&node);
        if self.pending > 0 || self.every_heartbeat() {
            self.heartbeat(node, t, decisions);
        }
    }

    /// One scheduling round between heartbeats at `t` (the shim's
    /// asynchronous thread): the engine picks the nodes.
    fn async_round(&mut self, t: i64, decisions: &mut Vec<Decision>) -> usize {
        decisions.clear();
        self.sim_events += 1;
        if let Err(e) = self.engine.schedule_round(t, self.opts.round_max_nodes, decisions) {
            tracing::error!(%e, "scheduling round failed");
            return 0;
        }
        let touched: BTreeSet<NodeId> = decisions
            .iter()
            .filter_map(|d| match d {
                Decision::Allocate { node, .. } => Some(*node),
                Decision::Preempt { .. } => None,
            })
            .collect();
        let made = self.carry_out(decisions, t);
        for node in touched {
            self.cluster.refresh(&self.engine, node);
        }
        made
    }

    /// Carry out a pass's or a round's decisions at `t`, as the shim does;
    /// returns the containers allocated. The caller re-checks the nodes
    /// whose room changed (`SimCluster::refresh`).
    fn carry_out(&mut self, decisions: &mut Vec<Decision>, t: i64) -> usize {
        let mut made = 0;
        for d in std::mem::take(decisions) {
            match d {
                Decision::Allocate { container, app, node, key, resources, execution, .. } => {
                    made += 1;
                    self.allocated(container, app, node, key, resources, t);
                    if execution == ExecutionType::Opportunistic {
                        self.speculative(container);
                    }
                }
                Decision::Preempt { container } => self.evict(container, t),
            }
        }
        made
    }

    /// The RM learns that task container `c` on `node` ended at `t`: now
    /// (with the node's out-of-band heartbeat, `oob_heartbeats`), or at the
    /// node's next heartbeat (`ends_at_heartbeat`).
    fn report_end(&mut self, node: NodeId, c: ContainerId, t: i64) {
        if self.opts.oob_heartbeats || !(self.opts.ends_at_heartbeat || self.sls.is_some()) {
            self.engine.apply(Event::ContainerFinished { container: c, exit_status: 0, at_ms: t });
            self.cluster.refresh(&self.engine, node);
            if self.opts.oob_heartbeats {
                self.out_of_band_heartbeat_due(node, t);
            }
            return;
        }
        let at = self.next_heartbeat(node, t);
        let ended = self.unreported.entry(node).or_default();
        if ended.is_empty() {
            self.clock.push(at, SimEvent::NodeReport(node));
        }
        ended.push(c);
    }

    /// A container on `node` ended at `t`: its out-of-band heartbeat follows
    /// the events of this instant (one for every end on the node then).
    fn out_of_band_heartbeat_due(&mut self, node: NodeId, t: i64) {
        if self.oob_due.insert(node) {
            self.clock.push(t, SimEvent::OutOfBandHeartbeat(node));
        }
    }

    /// `node` heartbeats at `t` and reports the containers that ended since
    /// its last heartbeat; the heartbeat round of the same instant follows.
    fn node_report(&mut self, node: NodeId, t: i64) {
        for c in self.unreported.remove(&node).unwrap_or_default() {
            self.engine.apply(Event::ContainerFinished { container: c, exit_status: 0, at_ms: t });
            // SLS: the completion waits at the RM for the AM's next
            // allocate call.
            if let Some((j, stage, res)) = self.sls.as_mut().and_then(|s| s.ended.remove(&c)) {
                self.sls.as_mut().expect("sls").ams[j as usize].at_rm.completed.push((t, stage, res));
                self.am_wake(j, t);
            }
        }
        self.cluster.refresh(&self.engine, node);
    }

    /// Heartbeat rounds fall on a grid of heartbeat sub-intervals: one per
    /// period when every node heartbeats at the same time, `PHASE_SLOTS`
    /// when each node has its own phase (a round then visits that slot's
    /// nodes).
    fn sub_interval(&self) -> i64 {
        self.opts.heartbeat_ms.max(1) / self.slots
    }

    /// The first time at or after `t` that `node` heartbeats.
    fn next_heartbeat(&self, node: NodeId, t: i64) -> i64 {
        let slot = self.slot.get(node as usize).copied().unwrap_or(0);
        if self.sls.is_some() {
            return sls::next_nm_heartbeat(slot as i64, self.opts.heartbeat_ms, t);
        }
        next_heartbeat(t, slot, self.sub_interval(), self.slots)
    }

    /// The first time at or after `t` that a heartbeat round may visit a
    /// node: the next sub-interval of the grid, or with the SLS model the
    /// next millisecond some node's phase falls on (the others would be
    /// rounds visiting nobody).
    fn round_at(&self, t: i64) -> i64 {
        match &self.sls {
            Some(s) => s.next_beat(t, self.opts.heartbeat_ms),
            None => grid_ceil(t, self.sub_interval()),
        }
    }

    /// The slow-start fraction of stages without their own (SLS: none).
    fn slowstart(&self) -> f64 {
        if self.sls.is_some() {
            1.0
        } else {
            self.opts.slowstart
        }
    }

    fn every_heartbeat(&self) -> bool {
        self.opts.naive_heartbeats || self.over
    }

    fn arrive(&mut self, j: u32, t: i64) {
        let trace: &'a Trace = self.trace;
        let job = &trace.jobs[j as usize];
        let tags = vec![
            format!("shepherd.oracle.work_ms={}", job.work_ms()),
            format!("shepherd.oracle.tasks={}", job.task_count()),
            dag_hint(job),
        ];
        let category = self.category(j);
        let queue = match self.opts.queue_by_category && self.engine.state.queue_id(&category).is_some() {
            true => category,
            false => job.queue.clone(),
        };
        self.engine.apply(Event::AppAdded {
            app: j,
            yarn_id: job.id.clone(),
            queue,
            user: job.user.clone(),
            name: job.name.clone(),
            app_type: "SIMULATED".into(),
            tags,
            submit_ms: job.submit_ms,
            priority: 0,
        });
        self.engine.apply(Event::AttemptAdded { app: j, attempt: 1 });
        match self.model {
            // The RM asks for the AM's container; the AM asks for tasks once
            // it runs.
            Some(m) => {
                let d = m.am_ask_ms.draw(&mut self.rng) as i64;
                self.clock.push(t + d, SimEvent::AmAsk(j));
            }
            None => self.am_ready(j, t),
        }
    }

    /// The RM asks for job `j`'s ApplicationMaster container.
    fn am_ask(&mut self, j: u32) {
        let size = am_size(self.trace, &self.trace.jobs[j as usize], self.model);
        self.pending += 1;
        *self.shapes.entry((size.0[0], size.0[1])).or_default() += 1;
        self.engine.apply(Event::AskUpdated {
            app: j,
            ask: Ask::anywhere(SchedulerKey { priority: AM_PRIORITY, allocation_request_id: -1 }, size, 1),
        });
    }

    /// Job `j`'s AM runs and asks for the stages it can start (SLS: it
    /// asks at its next step).
    fn am_ready(&mut self, j: u32, t: i64) {
        if self.sls.is_some() {
            return self.am_wake(j, t);
        }
        self.first_asks(j, t);
    }

    /// Job `j`'s AM asks for the stages it can start.
    fn first_asks(&mut self, j: u32, t: i64) {
        let trace: &'a Trace = self.trace;
        let job = &trace.jobs[j as usize];
        let mut actions = std::mem::take(&mut self.actions);
        let slowstart = self.slowstart();
        self.runs[j as usize].advance(job, slowstart, &mut actions);
        self.act(j, t, &mut actions);
        self.actions = actions;
        // The prediction at admission: once the AM's first asks are in, as
        // an estimator that reads widths sees the job.
        self.rec.estimated(j, self.engine.estimate_ms(j));
        if self.runs[j as usize].stages_left == 0 {
            self.job_done(j, t);
        }
    }

    /// SLS: job `j`'s AM has a step on the clock after `t` (its first step
    /// strictly after `t`; a step already on the clock comes no later).
    fn am_wake(&mut self, j: u32, t: i64) {
        let s = self.sls.as_mut().expect("the SLS model");
        let am = &mut s.ams[j as usize];
        if am.step_at.is_none() {
            let at = sls::next_step(am.origin, s.am_ms, t);
            am.step_at = Some(at);
            self.clock.push(at, SimEvent::AmStep(j));
        }
    }

    /// SLS: job `j`'s AM steps at `t` (`AMSimulator.middleStep` once the AM
    /// container runs): `processResponseQueue`, then `sendContainerRequest`.
    fn am_step(&mut self, j: u32, t: i64) {
        let Some(s) = self.sls.as_mut() else { return };
        let am = &mut s.ams[j as usize];
        if am.step_at != Some(t) || self.runs[j as usize].finish_ms.is_some() {
            return;
        }
        am.step_at = None;
        let response = std::mem::take(&mut am.queued);
        let first = !std::mem::replace(&mut am.asked, true);
        // `MRAMSimulator.processResponseQueue`: the completions, counted
        // (the last one's `lastStep` unregisters the AM: the job is done);
        // a stage they complete is asked in this step's allocate call ...
        for (_, stage, res) in response.completed {
            if self.task_done(j, stage, res, t) {
                return;
            }
        }
        // ... then the containers allocated, each started with its task's
        // lifetime (`NMSimulator.addNewContainer`).
        for c in response.allocated {
            self.launch(c, t);
        }
        // `sendContainerRequest`: the maps in the first step after the AM
        // runs (`pendingMaps`, filled by `notifyAMContainerLaunched`).
        if first {
            self.first_asks(j, t);
            if self.runs[j as usize].finish_ms.is_some() {
                return;
            }
        }
        // The allocate call returns what the RM holds for the app now; a
        // completion reported at this very instant comes after this step.
        let s = self.sls.as_mut().expect("the SLS model");
        let am = &mut s.ams[j as usize];
        let (now, later): (Vec<_>, Vec<_>) = std::mem::take(&mut am.at_rm.completed).into_iter().partition(|(at, _, _)| *at < t);
        am.queued = sls::Response { allocated: std::mem::take(&mut am.at_rm.allocated), completed: now };
        am.at_rm.completed = later;
        if !am.queued.is_empty() || !am.at_rm.is_empty() {
            let at = t + s.am_ms;
            am.step_at = Some(at);
            self.clock.push(at, SimEvent::AmStep(j));
        }
    }

    /// Carry out what the AM decided: ask for stages, release waiting tasks.
    fn act(&mut self, j: u32, t: i64, actions: &mut AmActions) {
        let trace: &'a Trace = self.trace;
        let job = &trace.jobs[j as usize];
        for s in actions.ask.drain(..) {
            let stage = &job.stages[s];
            let count = stage.tasks.len() as i32;
            self.rec.asked(j, s, t, count as i64);
            self.pending += count as i64;
            *self.shapes.entry((stage.memory_mb, stage.vcores)).or_default() += count as i64;
            self.engine.apply(Event::AskUpdated { app: j, ask: Ask::anywhere(stage_key(s), stage.demand(), count) });
        }
        for s in actions.release_waiting.drain(..) {
            let waiting = std::mem::take(&mut self.runs[j as usize].stages[s].waiting);
            for c in waiting {
                self.start_work(c, t);
            }
        }
    }

    fn allocated(&mut self, c: ContainerId, app: u32, node: NodeId, key: SchedulerKey, res: Resources, t: i64) {
        self.pending -= 1;
        let shape = (res.0[0], res.0[1]);
        if let Some(n) = self.shapes.get_mut(&shape) {
            *n -= 1;
            if *n <= 0 {
                self.shapes.remove(&shape);
            }
        }
        if key.priority == AM_PRIORITY {
            return self.am_allocated(c, app, node, res, t);
        }
        let s = key.allocation_request_id as usize;
        self.rec.task_allocated(app, s, t);
        let trace: &'a Trace = self.trace;
        let job = &trace.jobs[app as usize];
        let run = &mut self.runs[app as usize];
        let task = match run.stages[s].retry.pop() {
            Some(task) => task,
            None => {
                run.stages[s].next_task += 1;
                run.stages[s].next_task - 1
            }
        };
        run.allocated += res;
        let gang = run.gang;
        self.rec.share(app, t, run.allocated);
        self.rec.allocated(t, res);
        let spec = &job.stages[s].tasks[task];
        let used = match spec.used {
            Some([m, v]) => Resources::new(m.min(res.0[0]), v.min(res.0[1]) * 1000),
            None => Resources::new(
                (res.0[0] as f64 * self.opts.usage_factor) as i64,
                (res.0[1] as f64 * self.opts.usage_factor * 1000.0).round() as i64,
            ),
        };
        self.tasks.insert(c, RunningTask { job: app, stage: s, task, node, resources: res, used, speculative: false, launched_ms: None });
        if gang {
            let st = &mut self.runs[app as usize].stages[s];
            st.held.push((c, node, task));
            if st.next_task == job.stages[s].tasks.len() {
                let held = std::mem::take(&mut st.held);
                for (hc, _, _) in held {
                    self.start_launch(hc, t);
                }
            }
        } else {
            self.start_launch(c, t);
        }
    }

    /// The AM container of job `j` is allocated: it holds its resources
    /// until the job is done and starts up after its launch time.
    fn am_allocated(&mut self, c: ContainerId, j: u32, node: NodeId, res: Resources, t: i64) {
        self.am_of[j as usize] = Some((c, node, res));
        self.job_of_am.insert(c, j);
        let run = &mut self.runs[j as usize];
        run.allocated += res;
        self.rec.share(j, t, run.allocated);
        self.rec.allocated(t, res);
        let d = self.model.map_or(0.0, |m| m.am_launch_ms.draw(&mut self.rng)) as i64;
        self.clock.push(t + d, SimEvent::Launch(c));
    }

    /// A task container was handed to its AM: it runs after the launch time
    /// (SLS: the AM's next allocate call returns it).
    fn start_launch(&mut self, c: ContainerId, t: i64) {
        if let Some(s) = self.sls.as_mut() {
            let j = self.tasks[&c].job;
            s.ams[j as usize].at_rm.allocated.push(c);
            return self.am_wake(j, t);
        }
        match self.model {
            Some(m) => {
                let d = m.task_launch_ms.draw(&mut self.rng) as i64;
                self.clock.push(t + d, SimEvent::Launch(c));
            }
            None => self.launch(c, t),
        }
    }

    /// Container `c` is RUNNING: an AM starts up, a task starts its work.
    fn launch(&mut self, c: ContainerId, t: i64) {
        if !self.job_of_am.contains_key(&c) && !self.tasks.contains_key(&c) {
            // Evicted before it started.
            return;
        }
        self.running += 1;
        self.running_changed(t);
        if let Some(&j) = self.job_of_am.get(&c) {
            if let Some((_, node, r)) = self.am_of[j as usize] {
                self.use_on(node, t, Resources::new(r.0[0], r.0[1] * 1000), true);
            }
            self.engine.apply(Event::ContainerLaunched { container: c, at_ms: t });
            // All of its container, vcores in millis.
            let used = self.am_of[j as usize].map(|(_, _, r)| Resources::new(r.0[0], r.0[1] * 1000)).unwrap_or_default();
            self.rec.launched(t, used);
            let d = self.model.map_or(0.0, |m| m.am_startup_ms.draw(&mut self.rng));
            if self.host.is_some() {
                self.host_begin(t, d, After::AmReady(j));
            } else {
                let d = (d * self.contention()) as i64;
                self.clock.push(t + d, SimEvent::AmReady(j));
            }
            return;
        }
        self.engine.apply(Event::ContainerLaunched { container: c, at_ms: t });
        let rt = self.tasks.get_mut(&c).expect("checked");
        rt.launched_ms = Some(t);
        let (j, s, used, node) = (rt.job, rt.stage, rt.used, rt.node);
        self.use_on(node, t, used, true);
        self.rec.launched(t, used);
        let run = &mut self.runs[j as usize];
        run.first_start_ms.get_or_insert(t);
        if run.stages[s].parents_done {
            self.start_work(c, t);
        } else {
            run.stages[s].waiting.push(c);
        }
    }

    fn task_end(&mut self, c: ContainerId, t: i64) {
        let Some(rt) = self.tasks.remove(&c) else { return };
        self.finished_tasks += 1;
        self.running -= 1;
        self.running_changed(t);
        self.use_on(rt.node, t, rt.used, false);
        self.report_end(rt.node, c, t);
        let (res, used) = (rt.resources, rt.used);
        self.rec.ended(t, res, used);
        match self.sls.as_mut() {
            // SLS: the AM counts it once a response carries it.
            Some(s) => {
                s.ended.insert(c, (rt.job, rt.stage, res));
            }
            None => {
                self.task_done(rt.job, rt.stage, res, t);
            }
        }
    }

    /// Job `j`'s AM counts a finished task of `stage` (size `res`) at `t`
    /// and asks what that makes ready; true when that was the job's last.
    fn task_done(&mut self, j: u32, stage: usize, res: Resources, t: i64) -> bool {
        // An estimator that predicts from the job's own first tasks (SLearn)
        // has its prediction once they finish: the first confident one.
        if self.rec.lacks_estimate(j) && self.engine.predicts_after_admission(j) {
            self.rec.estimated(j, self.engine.estimate_ms(j));
        }
        let trace: &'a Trace = self.trace;
        let job = &trace.jobs[j as usize];
        let run = &mut self.runs[j as usize];
        run.allocated -= res;
        self.rec.share(j, t, run.allocated);
        let mut actions = std::mem::take(&mut self.actions);
        let slowstart = if self.sls.is_some() { 1.0 } else { self.opts.slowstart };
        let done = run.task_finished(job, stage, slowstart, &mut actions);
        self.act(j, t, &mut actions);
        self.actions = actions;
        if done {
            self.job_done(j, t);
        }
        done
    }

    /// The job's category: from the trace, else DRESS's demand rule.
    fn category(&self, j: u32) -> String {
        self.trace.jobs[j as usize].category_or_derived(&self.cluster.capacity, self.opts.small_theta)
    }

    /// Every task of job `j` is done, and so is the job for its user: a
    /// MapReduce client reports success when the last task's output is
    /// committed, and the harness measures JCT to that report. With an AM,
    /// its container still holds its resources for the AM's exit time and
    /// the app leaves the scheduler after it.
    fn job_done(&mut self, j: u32, t: i64) {
        self.finish_job(j, t);
        // SLS: `lastStep` hands the AM container to its NM
        // (`NMSimulator.cleanupContainer`), which reports it at its next
        // heartbeat.
        if self.sls.is_some() {
            let at = self.am_of[j as usize].map_or(t, |(_, node, _)| self.next_heartbeat(node, t));
            self.clock.push(at, SimEvent::AmExit(j));
            return;
        }
        match self.model {
            Some(m) => {
                let d = m.am_exit_ms.draw(&mut self.rng) as i64;
                self.clock.push(t + d, SimEvent::AmExit(j));
            }
            None => self.engine.apply(Event::AppRemoved { app: j }),
        }
    }

    /// Job `j`'s AM exits: its container finishes and the app leaves the
    /// scheduler (the job itself was done at its last task's end).
    fn am_exit(&mut self, j: u32, t: i64) {
        if let Some((c, node, res)) = self.am_of[j as usize].take() {
            self.job_of_am.remove(&c);
            self.running -= 1;
            self.running_changed(t);
            self.use_on(node, t, Resources::new(res.0[0], res.0[1] * 1000), false);
            self.engine.apply(Event::ContainerFinished { container: c, exit_status: 0, at_ms: t });
            self.cluster.refresh(&self.engine, node);
            if self.opts.oob_heartbeats {
                self.out_of_band_heartbeat_due(node, t);
            }
            self.rec.am_ended(t, res);
            // The job's fairness track ended with the job (`finish_job`).
            self.runs[j as usize].allocated -= res;
        }
        self.engine.apply(Event::AppRemoved { app: j });
    }

    /// Job `j`'s record: done at `t` (its last task's end).
    fn finish_job(&mut self, j: u32, t: i64) {
        let trace: &'a Trace = self.trace;
        let job = &trace.jobs[j as usize];
        let run = &mut self.runs[j as usize];
        run.finish_ms = Some(t);
        let first_start_ms = run.first_start_ms.unwrap_or(t);
        let category = self.category(j);
        self.rec.job_done(j, job, t, first_start_ms, category);
    }
}

/// The `shepherd.dag` tag an AM that knows its DAG sends (Carbyne's hint):
/// per stage its key's priority, task count, mean task duration (what such
/// an AM estimates from past runs), parents and demand. Only Carbyne reads
/// it (`[carbyne] dag_hint`).
fn dag_hint(job: &crate::workload::Job) -> String {
    use crate::policy::carbyne::hint::{format, HintStage};
    let stages: Vec<HintStage> = job
        .stages
        .iter()
        .enumerate()
        .map(|(i, s)| HintStage {
            priority: stage_key(i).priority,
            tasks: s.tasks.len() as i64,
            task_ms: (!s.tasks.is_empty()).then(|| s.tasks.iter().map(|t| t.duration_ms as f64).sum::<f64>() / s.tasks.len() as f64),
            parents: s.after.clone(),
            demand: Some(s.demand()),
        })
        .collect();
    format(&stages)
}

/// The ApplicationMaster container of `job`: the job's own, else the
/// trace's, else the cluster model's default (MapReduce's).
fn am_size(trace: &Trace, job: &crate::workload::Job, model: Option<&Calibration>) -> Resources {
    let (m, v) =
        job.am.or(trace.am).map(|a| (a.memory_mb, a.vcores)).unwrap_or_else(|| model.map_or((1536, 1), |c| (c.am_memory_mb, c.am_vcores)));
    Resources::new(m, v)
}

/// Scheduler key of stage `s`: earlier stages are more urgent (lower YARN
/// priority value), all after the ApplicationMaster's `AM_PRIORITY`; the
/// request id names the stage.
pub fn stage_key(s: usize) -> SchedulerKey {
    SchedulerKey { priority: crate::model::ask::AM_PRIORITY + 1 + s as i32, allocation_request_id: s as i64 }
}
