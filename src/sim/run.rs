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

pub use super::am::stage_key;
use super::am::{am_size, AmActions, JobRun};
use super::calibration::{Calibration, HostModel};
use super::clock::{grid_ceil, next_heartbeat, Clock, SimEvent};
use super::cluster::SimCluster;
use super::host::SharedCpu;
use super::options::SimOptions;
use super::quiet::QuietNodes;
use super::recorder::Recorder;
use super::sls::{self, SlsModel, SlsState};
use crate::config::Config;
use crate::engine::{Decision, Engine, Event};
use crate::model::{ContainerId, ExecutionType, NodeId, Resources};
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
    /// The nodes of each slot, ascending (the simulated cluster's nodes
    /// never change).
    pub(super) slot_nodes: Vec<Vec<NodeId>>,
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
    /// Nodes whose heartbeats are folded (over-subscription).
    pub(super) quiet: QuietNodes,
}

/// Heartbeat phases are resolved to a tenth of the heartbeat interval.
const PHASE_SLOTS: i64 = 10;

/// Node ids by heartbeat slot, each list ascending.
fn nodes_by_slot(slot: &[u32]) -> Vec<Vec<NodeId>> {
    let mut by: Vec<Vec<NodeId>> = Vec::new();
    for (n, s) in slot.iter().enumerate() {
        let s = *s as usize;
        if by.len() <= s {
            by.resize_with(s + 1, Vec::new);
        }
        by[s].push(n as NodeId);
    }
    by
}

/// Simulate `trace` (jobs sorted by submission) on `cluster` under `config`.
pub fn simulate(trace: &Trace, cluster: &ClusterSpec, config: Config, opts: &SimOptions) -> Result<crate::metrics::RunOutcome, String> {
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
        slot_nodes: nodes_by_slot(&slot),
        slot,
        slots,
        dirty_until: i64::MIN,
        over: false,
        node_used: vec![Resources::ZERO; cluster.nodes as usize],
        node_capacity: cluster.capacity(),
        unreported: HashMap::new(),
        oob_due: BTreeSet::new(),
        sls: sls_state,
        quiet: QuietNodes::default(),
    };
    sim.over = sim.engine.policies().has_oversubscribe();
    // Heartbeats are folded only where every one is simulated for the
    // samples it carries, and passes run at heartbeats alone.
    let fold = sim.over && !opts.naive_heartbeats && !opts.report_only_heartbeats && opts.round_ms == 0;
    sim.quiet = QuietNodes::new(fold, cluster.nodes as usize);
    for (i, j) in trace.jobs.iter().enumerate() {
        sim.clock.push(j.submit_ms, SimEvent::Arrival(i as u32));
    }
    sim.run();
    sim.wake_all();
    let node_used = sim.over.then_some(&sim.node_used[..]);
    let mut out = sim.rec.outcome(&trace, &sim.runs, &sim.engine, node_used, sim.sim_events);
    out.heartbeats_folded = sim.quiet.folded;
    Ok(out)
}

impl<'a> Sim<'a> {
    fn run(&mut self) {
        let mut progress = crate::report::progress::Progress::new("simulating", self.trace.task_count() as u64, self.opts.progress);
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
                progress.report(self.finished_tasks, t as f64 / 1000.0);
            } else {
                let t = wake.expect("wake-up due");
                let changed = timer_due == Some(t) && {
                    timer_due = None;
                    self.tick(t)
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
        progress.finish();
    }

    /// One heartbeat round at `t`: every node of heartbeat slot `slot` with
    /// room (every node, naively), in node order.
    fn round(&mut self, t: i64, slot: u32, decisions: &mut Vec<Decision>) -> usize {
        if self.over {
            // The heartbeats' utilization is stamped with the engine's clock.
            self.tick(t);
        }
        let in_slot = |n: &NodeId| self.slot.get(*n as usize).is_none_or(|s| *s == slot);
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
            self.slot_nodes.get(slot as usize).cloned().unwrap_or_default()
        } else {
            self.cluster.roomy.iter().copied().filter(in_slot).collect()
        };
        if self.every_heartbeat() && !nodes.is_empty() {
            self.quiet_round(slot, t);
        }
        let mut made = 0;
        for node in nodes {
            if !self.every_heartbeat() && self.pending <= 0 {
                break;
            }
            if self.skips(node) {
                continue;
            }
            self.visiting(Some((slot, t, node)));
            made += self.heartbeat(node, t, decisions);
        }
        self.visiting(None);
        made
    }

    /// `node`'s heartbeat at `t`: its utilization (over-subscribing
    /// policies), then the engine's pass on it (skipped where none of the
    /// outstanding asks fits, unless every heartbeat is simulated, and
    /// always with `report_only_heartbeats`).
    /// Returns the containers allocated.
    fn heartbeat(&mut self, node: NodeId, t: i64, decisions: &mut Vec<Decision>) -> usize {
        self.wake(node, t);
        if self.over {
            let used = self.measured(self.node_used[node as usize]);
            self.engine.apply(Event::NodeUtilization { node, used });
        }
        if self.opts.report_only_heartbeats {
            return 0;
        }
        if !self.every_heartbeat() {
            let free = self.engine.state().nodes[&node].free();
            if !self.shapes.keys().any(|(m, v)| Resources::new(*m, *v).fits_in(&free)) {
                return 0;
            }
        }
        decisions.clear();
        self.sim_events += 1;
        // A periodic step due now runs at the start of this pass: the
        // heartbeats quiet nodes skipped must reach it (a round's own step
        // ran at its start; this is one out of band).
        let step = self.catch_up_before_step(t);
        if let Err(e) = self.engine.schedule_node(node, t, decisions) {
            tracing::error!(%e, "scheduling pass failed");
            return 0;
        }
        if step {
            self.recheck(t);
        }
        let decided = !decisions.is_empty();
        let made = self.carry_out(decisions, t);
        self.cluster.refresh(&self.engine, node);
        if !decided {
            self.maybe_quiet(node);
        }
        made
    }

    /// What a NodeManager measures of its actual use `u`: memory MB,
    /// vcores in millis; CPU cannot exceed the node's cores.
    pub(super) fn measured(&self, u: Resources) -> Resources {
        Resources::new(u.0[0], u.0[1].min(self.node_capacity.0[1] * 1000))
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
                Decision::Preempt { .. } | Decision::MarkForPreemption { .. } => None,
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
                // The simulator's AMs do not give containers back when told;
                // a marked container runs on until it ends or is killed.
                Decision::MarkForPreemption { .. } => {}
            }
        }
        made
    }

    /// The RM learns that task container `c` on `node` ended at `t`: now
    /// (with the node's out-of-band heartbeat, `oob_heartbeats`), or at the
    /// node's next heartbeat (`ends_at_heartbeat`).
    pub(super) fn report_end(&mut self, node: NodeId, c: ContainerId, t: i64) {
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
    pub(super) fn out_of_band_heartbeat_due(&mut self, node: NodeId, t: i64) {
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
    pub(super) fn next_heartbeat(&self, node: NodeId, t: i64) -> i64 {
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

    /// Must every node's heartbeat run a pass? Naively; for
    /// over-subscription (each heartbeat carries the node's use); and with
    /// YARN-style reservations (`scheduler.reservable_nodes`), where a
    /// node too full for any ask still gets reserved.
    fn every_heartbeat(&self) -> bool {
        self.opts.naive_heartbeats || self.over || self.engine.config().scheduler.reservable_nodes > 0.0
    }
}
