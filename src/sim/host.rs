//! One machine's CPU shared by every NodeManager on it (the local harness
//! cluster: all NMs on one 2-core host), as processor sharing: the start-up
//! work of containers — an ApplicationMaster's JVM start and set-up until its
//! first task asks, a task's JVM start and set-up — runs at rate
//! min(1, k / (n + w·m)), n being the start-ups in progress on the host, m
//! the other containers running there, k the start-ups it runs at full speed
//! (`SharedHost::containers_at_full_speed`) and w what one running container
//! weighs against a start-up (`SharedHost::background_weight`; 0: a
//! container that only waits costs nothing).
//! Unlike the snapshot model (slow down by the containers running when a
//! start-up begins, fixed from then on), every start-up is re-timed whenever
//! one begins or ends (and, with w > 0, whenever a container starts or stops
//! running); a container that only waits (a sleeping task, an AM between its
//! asks) costs w of a start-up.
//!
//! Each start-up's `work` is its idle-host time (ms). The host keeps the work
//! left of each, advances them all at the common rate, and names the next
//! instant one completes; that instant is a wake-up the simulator's clock
//! carries, stamped with a generation so a wake-up made stale by a later
//! change is ignored.
//!
//! The `impl Sim` below is the simulator's host model around it: when a
//! task's work ends, given its start-up (a shared host's snapshot slowdown
//! or [`SharedCpu`]) and its node's CPU contention (an over-subscribed
//! node's demand for CPU over its cores), and each node's actual use.

use super::clock::SimEvent;
use super::run::Sim;
use crate::model::{ContainerId, NodeId, Resources};
use std::collections::BTreeMap;

/// A wake-up for the caller to schedule: (time in ms, generation).
pub type WakeUp = (i64, u64);

/// What follows a start-up once its work is done.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum After {
    /// The job's AM has started and asks for its first tasks.
    AmReady(u32),
    /// The task in this container starts its own work.
    TaskWork(u64),
}

#[derive(Debug, Clone)]
pub struct SharedCpu {
    /// k: start-ups that run at full speed together.
    k: f64,
    /// w: the load of one running container that is not starting up, as a
    /// fraction of a start-up's.
    w: f64,
    /// Containers running on the host, start-ups included.
    containers: usize,
    /// Start-ups in progress, by order of arrival: (work left in ms, next).
    running: BTreeMap<u64, (f64, After)>,
    next_id: u64,
    /// Time (ms) the work left was last brought up to date.
    at_ms: f64,
    /// Changes so far: a wake-up is valid only for the generation it names.
    generation: u64,
}

/// Work left below this counts as done (wake-ups fall on whole ms).
const DONE_MS: f64 = 1e-6;

impl SharedCpu {
    pub fn new(containers_at_full_speed: f64, background_weight: f64) -> SharedCpu {
        SharedCpu {
            k: containers_at_full_speed.max(1e-9),
            w: background_weight.max(0.0),
            containers: 0,
            running: BTreeMap::new(),
            next_id: 0,
            at_ms: 0.0,
            generation: 0,
        }
    }

    /// The rate of each start-up on a host with `load` start-ups' worth of
    /// CPU demand (n + w·m).
    pub fn rate(k: f64, load: f64) -> f64 {
        if load <= k {
            1.0
        } else {
            k / load
        }
    }

    /// n + w·m now: the start-ups in progress and the other running
    /// containers, weighted.
    fn load(&self) -> f64 {
        let n = self.running.len();
        n as f64 + self.w * self.containers.saturating_sub(n) as f64
    }

    fn advance(&mut self, t_ms: i64) {
        let dt = t_ms as f64 - self.at_ms;
        if dt > 0.0 && !self.running.is_empty() {
            let r = Self::rate(self.k, self.load());
            for (left, _) in self.running.values_mut() {
                *left -= dt * r;
            }
        }
        self.at_ms = self.at_ms.max(t_ms as f64);
    }

    /// A start-up of `work_ms` idle-host ms begins at `t_ms`. Returns the
    /// next wake-up (time, generation) to put on the clock.
    pub fn begin(&mut self, t_ms: i64, work_ms: f64, after: After) -> Option<WakeUp> {
        self.advance(t_ms);
        self.running.insert(self.next_id, (work_ms.max(0.0), after));
        self.next_id += 1;
        self.next_wake(t_ms)
    }

    /// A wake-up of `generation` at `t_ms`: the start-ups done by now, in
    /// the order they began, and the next wake-up. A stale wake-up changes
    /// nothing and returns nothing.
    pub fn wake(&mut self, t_ms: i64, generation: u64) -> Option<(Vec<After>, Option<WakeUp>)> {
        if generation != self.generation {
            return None;
        }
        self.advance(t_ms);
        let done: Vec<u64> = self.running.iter().filter(|(_, (left, _))| *left <= DONE_MS).map(|(&id, _)| id).collect();
        let afters = done.into_iter().filter_map(|id| self.running.remove(&id)).map(|(_, a)| a).collect();
        Some((afters, self.next_wake(t_ms)))
    }

    /// The containers running on the host (start-ups included) are now
    /// `containers`. With w = 0 they do not load the CPU and nothing is
    /// re-timed (`None`); else the start-ups in progress are, and the next
    /// wake-up is returned.
    pub fn set_containers(&mut self, t_ms: i64, containers: usize) -> Option<WakeUp> {
        if self.w == 0.0 {
            self.containers = containers;
            return None;
        }
        self.advance(t_ms);
        self.containers = containers;
        if self.running.is_empty() {
            return None;
        }
        self.next_wake(t_ms)
    }

    /// When the start-up closest to done completes at the current rate.
    fn next_wake(&mut self, t_ms: i64) -> Option<WakeUp> {
        self.generation += 1;
        let least = self.running.values().map(|(left, _)| *left).fold(f64::INFINITY, f64::min);
        if !least.is_finite() {
            return None;
        }
        let r = Self::rate(self.k, self.load());
        let wait = (least.max(0.0) / r).ceil() as i64;
        Some((t_ms + wait, self.generation))
    }

    /// Start-ups in progress.
    pub fn in_progress(&self) -> usize {
        self.running.len()
    }
}

/// The host model in the simulator: each node's actual use (what an
/// over-subscribed node's work is slowed down by), and the start-up work of
/// AMs and tasks, slowed down by the containers running on a shared host or
/// re-timed by its processor sharing ([`SharedCpu`]).
impl Sim<'_> {
    /// Change node `n`'s actual use at `t`, integrating its capped CPU use.
    pub(super) fn use_on(&mut self, n: NodeId, t: i64, delta: Resources, add: bool) {
        let i = n as usize;
        self.rec.node_use(n, t, self.node_used[i].0[1]);
        if add {
            self.node_used[i] += delta;
        } else {
            self.node_used[i] -= delta;
        }
    }

    /// How much slower work starting now on node `n` runs: its demand for
    /// CPU over its cores (≥ 1). Fixed for the task at its start, an
    /// approximation of processor sharing.
    fn slowdown(&self, n: NodeId) -> f64 {
        if !self.over {
            return 1.0;
        }
        let cap_v = self.node_capacity.0[1] as f64 * 1000.0;
        (self.node_used[n as usize].0[1] as f64 / cap_v).max(1.0)
    }

    /// Time a task container outlives its task's own work.
    fn overhead(&mut self) -> i64 {
        let d = self.model.map_or(0.0, |m| m.task_overhead_ms.draw(&mut self.rng));
        (d * self.contention()) as i64
    }

    /// How much slower start-up work runs now (1 unless the model's
    /// NodeManagers share a host; processor sharing re-times it instead).
    pub(super) fn contention(&self) -> f64 {
        if self.host.is_some() {
            return 1.0;
        }
        self.model.and_then(|m| m.shared_host).map_or(1.0, |h| h.slowdown(self.running))
    }

    /// Start-up work of `work_ms` idle-host ms on the shared host, then `after`.
    pub(super) fn host_begin(&mut self, t: i64, work_ms: f64, after: After) {
        let host = self.host.as_mut().expect("processor sharing is on");
        if let Some((at, generation)) = host.begin(t, work_ms, after) {
            self.clock.push(at, SimEvent::HostWake(generation));
        }
    }

    /// The containers running changed (processor sharing with w > 0
    /// re-times the start-ups in progress).
    pub(super) fn running_changed(&mut self, t: i64) {
        let running = self.running;
        if let Some((at, generation)) = self.host.as_mut().and_then(|h| h.set_containers(t, running)) {
            self.clock.push(at, SimEvent::HostWake(generation));
        }
    }

    /// A wake-up of the shared host: what follows each finished start-up.
    pub(super) fn host_wake(&mut self, t: i64, generation: u64) {
        let Some((done, next)) = self.host.as_mut().and_then(|h| h.wake(t, generation)) else { return };
        for after in done {
            match after {
                After::AmReady(j) => self.clock.push(t, SimEvent::AmReady(j)),
                After::TaskWork(c) => {
                    if let Some(d) = self.work_ms(c) {
                        self.clock.push(t + d, SimEvent::TaskEnd(c));
                    }
                }
            }
        }
        if let Some((at, g)) = next {
            self.clock.push(at, SimEvent::HostWake(g));
        }
    }

    /// The task's own work in container `c` (its duration, slowed down by an
    /// over-subscribed node), if it still runs.
    fn work_ms(&self, c: ContainerId) -> Option<i64> {
        let rt = self.tasks.get(&c)?;
        let d = self.trace.jobs[rt.job as usize].stages[rt.stage].tasks[rt.task].duration_ms;
        Some((d as f64 * self.slowdown(rt.node)) as i64)
    }

    /// The task in `c` may do its work: its start-up overhead, then the work,
    /// then it ends.
    pub(super) fn start_work(&mut self, c: ContainerId, t: i64) {
        if self.host.is_some() {
            let o = self.model.map_or(0.0, |m| m.task_overhead_ms.draw(&mut self.rng));
            return self.host_begin(t, o, After::TaskWork(c));
        }
        let Some(w) = self.work_ms(c) else { return };
        let d = w + self.overhead();
        self.clock.push(t + d, SimEvent::TaskEnd(c));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// k = 1: two 10 s start-ups that begin together share the CPU and would
    /// both end at 20 s; a third that begins at 5 s slows all three to a
    /// third, and when it ends the other two speed up again — each change
    /// re-times every start-up in progress.
    #[test]
    fn start_ups_share_the_cpu_and_are_re_timed_at_every_change() {
        let mut h = SharedCpu::new(1.0, 0.0);
        let w = h.begin(0, 10_000.0, After::AmReady(1)).unwrap();
        assert_eq!(w.0, 10_000, "alone: full speed");
        let w = h.begin(0, 10_000.0, After::AmReady(2)).unwrap();
        assert_eq!(w.0, 20_000, "two at half speed");
        // At 5 s each has 7.5 s of work left; a third (3 s of work) begins:
        // each now runs at 1/3, so the third ends first, after 9 s, at 14 s,
        // when the other two have 7.5 − 3 = 4.5 s left; then at 1/2 they end
        // 9 s later, at 23 s.
        let w = h.begin(5_000, 3_000.0, After::TaskWork(7)).unwrap();
        assert_eq!(w.0, 14_000);
        let stale = w.1 - 1;
        assert!(h.wake(14_000, stale).is_none(), "a stale wake-up is ignored");
        let (done, next) = h.wake(w.0, w.1).unwrap();
        assert_eq!(done, vec![After::TaskWork(7)]);
        let next = next.unwrap();
        assert_eq!(next.0, 23_000);
        let (done, next) = h.wake(next.0, next.1).unwrap();
        assert_eq!(done, vec![After::AmReady(1), After::AmReady(2)]);
        assert!(next.is_none());
        assert_eq!(h.in_progress(), 0);
    }

    /// Up to k start-ups run at full speed; only beyond k do they slow down.
    #[test]
    fn k_start_ups_run_at_full_speed() {
        assert_eq!(SharedCpu::rate(6.5, 6.0), 1.0);
        assert_eq!(SharedCpu::rate(6.5, 13.0), 0.5);
        let mut h = SharedCpu::new(2.0, 0.0);
        h.begin(0, 4_000.0, After::AmReady(1));
        let w = h.begin(0, 4_000.0, After::AmReady(2)).unwrap();
        assert_eq!(w.0, 4_000);
    }

    /// k = 1, w = 0.5: one 6 s start-up beside 2 running containers (load
    /// 1 + 0.5·2 = 2) runs at half speed. After 4 s (2 s of work done) the
    /// two stop: alone it does the other 4 s at full speed, ending at 8 s.
    /// With w = 0 the running containers change nothing.
    #[test]
    fn running_containers_load_the_cpu_by_their_weight() {
        let mut h = SharedCpu::new(1.0, 0.5);
        assert_eq!(h.set_containers(0, 2), None, "no start-up to re-time");
        h.set_containers(0, 3);
        let w = h.begin(0, 6_000.0, After::AmReady(1)).unwrap();
        assert_eq!(w.0, 12_000, "load 2: half speed");
        let w = h.set_containers(4_000, 1).unwrap();
        assert_eq!(w.0, 8_000);
        let (done, next) = h.wake(w.0, w.1).unwrap();
        assert_eq!(done, vec![After::AmReady(1)]);
        assert!(next.is_none());

        let mut h = SharedCpu::new(1.0, 0.0);
        h.set_containers(0, 3);
        let w = h.begin(0, 6_000.0, After::AmReady(1)).unwrap();
        assert_eq!(w.0, 6_000, "w = 0: waiting containers cost nothing");
        assert_eq!(h.set_containers(1_000, 40), None);
    }
}
