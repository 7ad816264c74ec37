//! `--cluster-model sls`: the mechanics of Hadoop's Scheduler Load Simulator
//! (`hadoop-sls` 3.4.x), so that a simulation predicts what a scheduler does
//! *inside SLS* — the per-job JCT SLS reports — rather than on a real
//! cluster. SLS runs the real ResourceManager and its scheduler against
//! simulated NodeManagers and ApplicationMasters that are clocked tasks of
//! one `TaskRunner` (`scheduler/TaskRunner.java`); what it adds around the
//! scheduler's decisions is those clocks, modelled here as follows (time 0 =
//! the runner's start, which both kinds of task are re-based on in
//! `TaskRunner.start`).
//!
//! * **NodeManager heartbeats** (`nodemanager/NMSimulator.java`). Each NM is
//!   a task repeating every `yarn.sls.nm.heartbeat.interval.ms` (here
//!   `SimOptions::heartbeat_ms`, default 1000) from a dispatch time drawn by
//!   `NMRunner.startNM` as `random.nextInt(heartbeatInterval)` — an
//!   unseeded uniform integer in [0, interval); here seeded
//!   ([`phases`]). Its `firstStep` does nothing: its first heartbeat
//!   (`middleStep`) is one interval after the dispatch time, so node n beats
//!   at `phase_n + k·interval`, k ≥ 1 ([`next_nm_heartbeat`]). The scheduler
//!   allocates at these heartbeats (the RM's `NODE_UPDATE`), after first
//!   releasing the containers the heartbeat reports complete.
//! * **Container ends.** `NMSimulator.addNewContainer` puts a task's
//!   container in a `DelayQueue` with end = its start + the task's lifetime
//!   (the trace's duration, exactly: SLS adds no launch time or overhead);
//!   `middleStep` polls the expired ones and reports them COMPLETE in that
//!   heartbeat. So the RM learns of an end at the node's first heartbeat at
//!   or after it (the simulator's `ends_at_heartbeat` reporting, always on
//!   in this model).
//! * **The ApplicationMaster as a clocked process**
//!   (`appmaster/AMSimulator.java`, `MRAMSimulator.java`). Each job's AM is a
//!   task repeating every `yarn.sls.am.heartbeat.interval.ms`
//!   (`SimOptions::sls`'s `am_heartbeat_ms`, default 1000) from the job's
//!   `job.start.ms`: its steps fall at `submit + k·interval`
//!   ([`next_step`]). `firstStep` (k = 0) submits the app, whose AM
//!   container the RM asks for at once. `middleStep` does nothing until the
//!   AM container runs; then each step is `processResponseQueue()` — the
//!   response of the *previous* step's allocate call — then
//!   `sendContainerRequest()` — one allocate call, whose response (the
//!   containers allocated and the completions reported to the RM since the
//!   last call) is queued for the *next* step.
//! * **AM launch** (`resourcemanager/MockAMLauncher.java`). The RM's
//!   `LAUNCH` of the AM container is handled at once:
//!   `AMSimulator.notifyAMContainerLaunched` registers the AM and sets
//!   `isAMContainerRunning`. So the AM container runs from the heartbeat
//!   that allocated it, and its first ask goes out at the AM's first step
//!   after that.
//! * **Asks** (`MRAMSimulator.sendContainerRequest`). All maps are asked in
//!   the first step after the AM runs; the reduces in the step that
//!   processes the last map completion (`mapFinished == mapTotal`: a strict
//!   barrier, SLS has no slow-start). Here: a stage is asked once its
//!   parent stages are complete (slow-start forced to 1.0, gang start off).
//! * **Task start** (`MRAMSimulator.processResponseQueue`). A container the
//!   scheduler allocates at an NM heartbeat reaches the AM in the response
//!   of its next allocate call and is started
//!   (`NMSimulator.addNewContainer`) when that response is processed, one
//!   AM step later.
//! * **Task completion.** An end reported at an NM heartbeat is in the
//!   response of the AM's next allocate call and counted when that
//!   response is processed, one AM step later: the NM heartbeat, then two AM
//!   step boundaries.
//! * **Job end.** The step that processes the last task completion calls
//!   `lastStep()` from `processResponseQueue`: it unregisters the AM
//!   (`finishApplicationMaster`) and hands the AM container to its NM
//!   (`NMSimulator.cleanupContainer`), which reports it COMPLETE at its next
//!   heartbeat. The RM's app `finishedTime` is set at the unregistration
//!   (`RMAppImpl`: `storedFinishTime` at `FINAL_SAVING`, copied to
//!   `finishTime` by `AttemptUnregisteredTransition`), so a job's JCT ends at
//!   that step; the AM container holds its resources, and the app stays in
//!   the scheduler, until the NM's report (`AmExit`).
//! * **AM container size**: `yarn.sls.am.container.memory` / `.vcores`
//!   (1024 MB / 1 vcore, `SLSConfiguration`), unless the job or trace names
//!   one (`am.memory-mb` / `am.vcores` in an SLS trace).
//!
//! Order at one instant: the AM steps before the NM heartbeats (an
//! allocation or a report at the time of a step reaches the AM at the step
//! after). In SLS the two are separate threads and a tie is a race; NM
//! phases are whole milliseconds, so it is rare.
//!
//! Not modelled: the runner's thread pool falling behind its clocks
//! (`yarn.sls.runner.pool.size`), the RM's asynchronous dispatch (a few ms
//! between a heartbeat and its allocation), node-local asks from
//! `container.host` (the scheduler's locality delay), failed or preempted
//! containers re-asked by the AM (a preempted task is asked again at once,
//! as in the other models), AM types other than `mapreduce`.

use super::calibration::Calibration;
use super::options::SimOptions;
use crate::model::{ContainerId, NodeId, Resources};
use crate::workload::rng::Rng;
use std::collections::HashMap;

/// The SLS model's own knob; the NM heartbeat is `SimOptions::heartbeat_ms`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct SlsModel {
    /// `yarn.sls.am.heartbeat.interval.ms`: the AM simulators' step.
    pub am_heartbeat_ms: i64,
}

impl Default for SlsModel {
    fn default() -> Self {
        SlsModel { am_heartbeat_ms: 1000 }
    }
}

impl SlsModel {
    /// The cluster model's fixed part in SLS: its AM container, and no
    /// launch, start-up, overhead or exit times (SLS runs a task for exactly
    /// its trace duration; the AM clock is what delays everything).
    pub fn calibration() -> Calibration {
        Calibration {
            source: "sls: hadoop-sls 3.4 mechanics (AM and NM clocks; no launch or overhead times)".into(),
            am_memory_mb: 1024,
            ..Calibration::instant()
        }
    }

    /// The options SLS has no counterpart of.
    pub fn check(&self, opts: &SimOptions) -> Result<(), String> {
        if self.am_heartbeat_ms < 1 || opts.heartbeat_ms < 1 {
            return Err(format!(
                "sls model: AM and NM heartbeat intervals must be ≥ 1 ms (got {} and {})",
                self.am_heartbeat_ms, opts.heartbeat_ms
            ));
        }
        if opts.round_ms > 0 || opts.oob_heartbeats || opts.report_only_heartbeats || opts.gang {
            return Err(
                "sls model: SLS allocates at NM heartbeats only and starts tasks one by one; rounds, out-of-band heartbeats, report-only heartbeats and gang start do not apply".into(),
            );
        }
        Ok(())
    }
}

/// Each NodeManager's heartbeat phase in ms, [0, `heartbeat_ms`): SLS's
/// `random.nextInt(heartbeatInterval)` dispatch time (`NMRunner.startNM`),
/// here drawn from `seed`.
pub fn phases(seed: u64, nodes: u32, heartbeat_ms: i64) -> Vec<i64> {
    let mut rng = Rng::seeded(seed);
    (0..nodes).map(|_| rng.int(0, heartbeat_ms.max(1) - 1)).collect()
}

/// A node of phase `phase` heartbeats at `phase + k·interval`, k ≥ 1 (its
/// first step, at the dispatch time, sends none): its first heartbeat at
/// or after `t`.
pub fn next_nm_heartbeat(phase: i64, interval: i64, t: i64) -> i64 {
    let t = t.max(phase + interval);
    phase + (t - phase + interval - 1).div_euclid(interval) * interval
}

/// An AM submitted at `origin` steps at `origin + k·interval`, k ≥ 1 (its
/// `middleStep`s): its first step strictly after `t`.
pub fn next_step(origin: i64, interval: i64, t: i64) -> i64 {
    let k = if t < origin { 1 } else { (t - origin).div_euclid(interval) + 1 };
    origin + k.max(1) * interval
}

/// What one allocate call returns to an AM (`AllocateResponse`): containers
/// newly allocated to the app and its containers reported complete, each
/// completion with the time the RM learnt of it, its stage and size.
#[derive(Debug, Default)]
pub(crate) struct Response {
    pub allocated: Vec<ContainerId>,
    pub completed: Vec<(i64, usize, Resources)>,
}

impl Response {
    pub fn is_empty(&self) -> bool {
        self.allocated.is_empty() && self.completed.is_empty()
    }
}

/// One job's AM simulator.
#[derive(Debug)]
pub(crate) struct AmSim {
    /// `job.start.ms`: the origin of its steps.
    pub origin: i64,
    /// The first ask went out (`pendingMaps` sent).
    pub asked: bool,
    /// The response queued by the last step, processed by the next.
    pub queued: Response,
    /// What the RM holds for the app until its next allocate call.
    pub at_rm: Response,
    /// The step on the clock, if any (a step with nothing to process, pull
    /// or ask is a no-op in SLS too, so only useful ones are scheduled).
    pub step_at: Option<i64>,
}

/// The SLS model's state in a run.
pub(crate) struct SlsState {
    pub am_ms: i64,
    pub ams: Vec<AmSim>,
    /// Task containers that ended and whose end the RM has not heard of
    /// yet: their job, stage and size.
    pub ended: HashMap<ContainerId, (u32, usize, Resources)>,
    /// Nodes by phase (index: phase in ms), in node order.
    pub by_phase: Vec<Vec<NodeId>>,
    /// The phases some node has, ascending.
    pub phases: Vec<i64>,
}

impl SlsState {
    pub fn new(model: &SlsModel, origins: impl Iterator<Item = i64>, phase_of: &[i64], heartbeat_ms: i64) -> SlsState {
        let mut by_phase = vec![Vec::new(); heartbeat_ms as usize];
        for (n, p) in phase_of.iter().enumerate() {
            by_phase[*p as usize].push(n as NodeId);
        }
        let phases = (0..heartbeat_ms).filter(|p| !by_phase[*p as usize].is_empty()).collect();
        SlsState {
            am_ms: model.am_heartbeat_ms,
            ams: origins
                .map(|origin| AmSim { origin, asked: false, queued: Response::default(), at_rm: Response::default(), step_at: None })
                .collect(),
            ended: HashMap::new(),
            by_phase,
            phases,
        }
    }

    /// The first time at or after `t` at which some node heartbeats.
    pub fn next_beat(&self, t: i64, interval: i64) -> i64 {
        let t = t.max(interval);
        let Some(&first) = self.phases.first() else { return t };
        let base = t.div_euclid(interval) * interval;
        let r = t - base;
        match self.phases.iter().find(|p| **p >= r) {
            Some(p) => base + p,
            None => base + interval + first,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::{simulate, SimOptions};
    use crate::workload::{ClusterSpec, Job, Stage, Task, Trace};
    use crate::Config;

    #[test]
    fn clocks() {
        // A node of phase 300 with 1 s heartbeats: first beat at 1.3 s.
        assert_eq!(next_nm_heartbeat(300, 1000, 0), 1300);
        assert_eq!(next_nm_heartbeat(300, 1000, 1300), 1300);
        assert_eq!(next_nm_heartbeat(300, 1000, 1301), 2300);
        assert_eq!(next_nm_heartbeat(0, 1000, 0), 1000);
        assert_eq!(next_nm_heartbeat(0, 1000, 5000), 5000);
        // An AM submitted at 2.5 s steps at 3.5 s, 4.5 s, ...: strictly after.
        assert_eq!(next_step(2500, 1000, 2500), 3500);
        assert_eq!(next_step(2500, 1000, 3499), 3500);
        assert_eq!(next_step(2500, 1000, 3500), 4500);
        assert_eq!(next_step(2500, 1000, 0), 3500);
        let p = phases(7, 50, 1000);
        assert!(p.iter().all(|p| (0..1000).contains(p)));
        assert_eq!(p, phases(7, 50, 1000));
        let s = SlsState::new(&SlsModel::default(), std::iter::empty(), &[700, 200, 700], 1000);
        assert_eq!(s.phases, vec![200, 700]);
        assert_eq!(s.by_phase[700], vec![0, 2]);
        assert_eq!(s.next_beat(0, 1000), 1200);
        assert_eq!(s.next_beat(1201, 1000), 1700);
        assert_eq!(s.next_beat(1701, 1000), 2200);
    }

    fn sls_opts(seed: u64) -> SimOptions {
        SimOptions { sls: Some(SlsModel::default()), seed, ..SimOptions::default() }
    }

    fn job(id: &str, submit_ms: i64, stages: Vec<Vec<i64>>) -> Job {
        let n = stages.len();
        Job {
            id: id.into(),
            submit_ms,
            user: "u".into(),
            name: id.into(),
            queue: "default".into(),
            category: None,
            gang: false,
            app_type: None,
            am: None,
            stages: stages
                .into_iter()
                .enumerate()
                .map(|(i, durations)| Stage {
                    name: if i + 1 == n && n > 1 { "reduce".into() } else { "map".into() },
                    after: if i == 0 { vec![] } else { vec![i - 1] },
                    // A slow-start the trace asks for does not apply in SLS.
                    slowstart: Some(0.0),
                    memory_mb: 1024,
                    vcores: 1,
                    tasks: durations.into_iter().map(|d| Task { duration_ms: d, used: None }).collect(),
                })
                .collect(),
        }
    }

    fn run(jobs: Vec<Job>, nodes: u32, seed: u64) -> crate::metrics::RunOutcome {
        let trace = Trace { cluster: None, am: None, jobs };
        let cluster = ClusterSpec { nodes, memory_mb: 8192, vcores: 8, rack_size: 40 };
        let config = Config::parse("[scheduler]\npolicy = \"fifo\"\n").unwrap();
        simulate(&trace, &cluster, config, &sls_opts(seed)).unwrap()
    }

    /// One job, one 10 s map, one node of phase p (any p in [0, 1000)):
    ///
    /// * 0: `firstStep` submits; the RM asks for the AM container.
    /// * 1000 + p: the node's first heartbeat (its dispatch at p sends
    ///   none) allocates the AM container; MockAMLauncher runs it at once.
    /// * 2000: the AM's first step after that asks for the map (with p = 0
    ///   the heartbeat at 1000 comes after the step at 1000).
    /// * 2000 + p: the next heartbeat allocates the map.
    /// * 3000: the allocate call returns it; 4000: that response is
    ///   processed, the map starts (first_start_ms = 4000) and ends at
    ///   14 000.
    /// * 14 000 + p: the node reports it (p = 0: at 14 000 itself).
    /// * 15 000: the allocate call returns the completion; 16 000: it is
    ///   processed, `lastStep` unregisters: finish 16 000, JCT 16 s (the
    ///   map's 10 s plus 6 s of SLS clocks).
    #[test]
    fn one_map_on_one_node() {
        for seed in [1, 2, 3] {
            let out = run(vec![job("j", 0, vec![vec![10_000]])], 1, seed);
            let j = &out.jobs[0];
            assert_eq!((j.first_start_ms, j.finish_ms), (4_000, 16_000), "seed {seed}, phase {:?}", phases(seed, 1, 1000));
        }
    }

    /// A map that ends off the AM grid: 10.5 s from 4000 ends at 14 500.
    /// With phase p ≥ 500 the node reports it at 14 000 + p < 15 000, the
    /// step at 15 000 returns it, 16 000 processes it: finish 16 000. With
    /// p < 500 the report is at 15 000 + p ≥ 15 000 (p = 0: at 15 000, after
    /// that instant's step), returned at 16 000, processed at 17 000.
    #[test]
    fn the_node_phase_decides_which_step_sees_an_end() {
        let (mut early, mut late) = (false, false);
        for seed in 1..40 {
            let p = phases(seed, 1, 1000)[0];
            let out = run(vec![job("j", 0, vec![vec![10_500]])], 1, seed);
            let expected = if p >= 500 { 16_000 } else { 17_000 };
            assert_eq!(out.jobs[0].finish_ms, expected, "seed {seed}, phase {p}");
            early |= p >= 500;
            late |= p < 500;
        }
        assert!(early && late, "both branches exercised");
    }

    /// The AM container counts until its NM reports it. One node of 2 GB,
    /// phase p; the queue's AM containers may take half of it (one 1 GB AM,
    /// as the CapacityScheduler's `maximum-am-resource-percent` limits
    /// them). Job A (submitted at 0, one 10 s map) runs as in
    /// `one_map_on_one_node`: `lastStep` at 16 000, its AM container
    /// reported at the node's next heartbeat, 16 000 + p (p = 0: at 16 000,
    /// after the step). Job B (submitted at 3000, steps at 4000, 5000, ...,
    /// one 10 s map):
    ///
    /// * its AM container waits for A's to be reported, not for A's
    ///   unregistration: allocated at 16 000 + p;
    /// * its first step after that, 17 000, asks for the map, allocated at
    ///   17 000 + p, returned at 18 000, started at 19 000; it ends at 29 000,
    ///   is reported at 29 000 + p, returned at 30 000 and processed at
    ///   31 000: JCT 28 s.
    #[test]
    fn the_am_container_counts_until_its_node_reports_it() {
        for seed in [1, 5, 9] {
            let trace = Trace { cluster: None, am: None, jobs: vec![job("a", 0, vec![vec![10_000]]), job("b", 3000, vec![vec![10_000]])] };
            let cluster = ClusterSpec { nodes: 1, memory_mb: 2048, vcores: 8, rack_size: 40 };
            let config =
                Config::parse("[scheduler]\npolicy = \"fifo\"\n[[queue]]\nname = \"default\"\ncapacity = 1.0\nmax_am_share = 0.5\n")
                    .unwrap();
            let out = simulate(&trace, &cluster, config, &sls_opts(seed)).unwrap();
            let (a, b) = (&out.jobs[0], &out.jobs[1]);
            assert_eq!((a.first_start_ms, a.finish_ms), (4_000, 16_000), "seed {seed}");
            assert_eq!((b.first_start_ms, b.finish_ms, b.jct_ms()), (19_000, 31_000, 28_000), "seed {seed}");
        }
    }

    /// Map → reduce with the barrier: submitted at 500 (AM steps at 1500,
    /// 2500, ...), maps of 5 s and 8 s, a 3 s reduce, one node of phase
    /// p ∈ [0, 1000), FIFO placing both maps at one heartbeat:
    ///
    /// * The AM container is allocated at the node's first heartbeat,
    ///   1000 + p. Let a = the AM's first step strictly after it: 1500 for
    ///   p < 500, 2500 for p ≥ 500 (p = 500: the heartbeat at 1500 comes
    ///   after that instant's step). The maps are asked at a.
    /// * The next heartbeat (at or after a, after the step) allocates both;
    ///   the step a + 1000 returns them, a + 2000 starts them
    ///   (first_start_ms = a + 2000). They end at a + 7000 and a + 10 000,
    ///   both on the AM grid (a ≡ 500 mod 1000).
    /// * An end e on the AM grid is reported at e + ((p − 500) mod 1000),
    ///   before the step e + 1000 (or at e itself, after e's step): either
    ///   way returned at e + 1000 and processed at e + 2000. The first map's
    ///   completion is processed at a + 9000 and asks nothing; the second's
    ///   at a + 12 000, and that step asks for the reduce (the barrier).
    /// * The reduce is allocated at the next heartbeat, returned at
    ///   a + 13 000, started at a + 14 000, ends at a + 17 000, is returned at
    ///   a + 18 000 and processed at a + 19 000: `lastStep`, the finish.
    #[test]
    fn reduces_wait_for_the_map_barrier() {
        for seed in 1..20 {
            let p = phases(seed, 1, 1000)[0];
            let a = if 1000 + p < 1500 { 1500 } else { 2500 };
            let out = run(vec![job("j", 500, vec![vec![5_000, 8_000], vec![3_000]])], 1, seed);
            let j = &out.jobs[0];
            assert_eq!((j.first_start_ms, j.finish_ms), (a + 2000, a + 19_000), "seed {seed}, phase {p}");
        }
    }
}
