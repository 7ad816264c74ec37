//! Quiet nodes: heartbeats the simulator folds under an over-subscribing
//! policy, with the decisions unchanged (see `engine::quiet`).
//!
//! ROSE reads every heartbeat's utilization, so every node heartbeats every
//! interval while work remains (~80 million heartbeats on `bench-sim`'s
//! workload), and nearly all of them come from nodes on which nothing
//! changed and whose pass ends at once. After a heartbeat whose pass
//! decided nothing (no container placed, none evicted) on a node the engine
//! calls quiet ([`Engine::quiet_room`]), and while the smallest outstanding
//! ask does not fit its room, the node skips its heartbeats: the round
//! notes their times. They are handed to the engine together
//! ([`Engine::fold_heartbeats`]) before anything could read them:
//!
//! * before the node heartbeats again — when anything on it changed (its
//!   containers, as `SimCluster::refresh` counts them, or its actual use),
//!   or when the asks changed so that the smallest one fits its room;
//! * before a periodic step (ROSE's Algorithm 3 reads every node's
//!   samples), at a round's start or in a pass out of band, unless the
//!   step would read the same without them
//!   ([`Engine::folds_unread_until`]); after the step a node it gave
//!   headroom wakes;
//! * at the end of the run, so the engine's state and counters are those of
//!   every heartbeat sent.
//!
//! [`Engine::quiet_room`]: crate::engine::Engine::quiet_room
//! [`Engine::fold_heartbeats`]: crate::engine::Engine::fold_heartbeats
//! [`Engine::folds_unread_until`]: crate::engine::Engine::folds_unread_until

use super::run::Sim;
use crate::model::{NodeId, Resources};

/// A node whose heartbeats are being folded.
#[derive(Debug, Clone, Copy)]
struct Quiet {
    /// Its first folded heartbeat: an index into its slot's round times.
    from: usize,
    /// The actual use its heartbeats measure (a change wakes the node).
    used: Resources,
    /// Its free room, which no outstanding ask fitted.
    free: Resources,
    /// `SimCluster`'s count of the node's changes when it went quiet.
    changes: u64,
    /// The engine's `asks_epoch` when the smallest ask last did not fit.
    asks_epoch: u64,
    /// Until when a periodic step decides the same without the skipped
    /// heartbeats (`Engine::folds_unread_until`), as of the last ones
    /// handed over: a step up to then leaves them with the node.
    unread_until: i64,
}

/// The quiet nodes and the heartbeat times they skipped.
#[derive(Debug, Default)]
pub(super) struct QuietNodes {
    /// Folding is on (an over-subscribing policy whose every heartbeat is
    /// simulated, and `SimOptions::naive_heartbeats` off).
    on: bool,
    nodes: Vec<Option<Quiet>>,
    /// How many nodes are quiet.
    count: usize,
    /// Per heartbeat slot: the times of its rounds (every node of the slot
    /// heartbeats in each), ascending.
    rounds: Vec<Vec<i64>>,
    /// Heartbeats folded so far (handed over).
    pub(super) folded: u64,
    /// The round under way (slot, time) and the node it is at: the slot's
    /// nodes before it that skipped this round did so at its time.
    visiting: Option<(u32, i64, NodeId)>,
}

impl QuietNodes {
    pub(super) fn new(on: bool, nodes: usize) -> QuietNodes {
        QuietNodes { on, nodes: vec![None; if on { nodes } else { 0 }], ..QuietNodes::default() }
    }
}

impl Sim<'_> {
    /// A heartbeat round of `slot` at `t` begins: its time is noted for the
    /// nodes that will skip it.
    pub(super) fn quiet_round(&mut self, slot: u32, t: i64) {
        if !self.quiet.on {
            return;
        }
        let s = slot as usize;
        if self.quiet.rounds.len() <= s {
            self.quiet.rounds.resize_with(s + 1, Vec::new);
        }
        self.quiet.rounds[s].push(t);
    }

    /// Does `node` skip its heartbeat in this round? Yes while it is quiet,
    /// nothing on it changed and no outstanding ask fits its room; else it
    /// heartbeats (and [`Sim::wake`] hands over what it skipped first).
    pub(super) fn skips(&mut self, node: NodeId) -> bool {
        let i = node as usize;
        let Some(q) = self.quiet.nodes.get(i).copied().flatten() else { return false };
        if self.cluster.changes[i] != q.changes || self.node_used[i] != q.used {
            return false;
        }
        let epoch = self.engine.asks_epoch();
        if epoch != q.asks_epoch {
            if self.engine.smallest_ask().is_some_and(|m| m.fits_in(&q.free)) {
                return false;
            }
            if let Some(q) = self.quiet.nodes[i].as_mut() {
                q.asks_epoch = epoch;
            }
        }
        true
    }

    /// `node` heartbeats at `t`: if it was quiet, the engine first gets the
    /// heartbeats it skipped before `t`.
    pub(super) fn wake(&mut self, node: NodeId, t: i64) {
        let Some(q) = self.quiet.nodes.get_mut(node as usize).and_then(Option::take) else { return };
        self.quiet.count -= 1;
        self.fold(node, q, t);
    }

    /// Hand `q`'s skipped heartbeats before `t` to the engine; returns how
    /// far they went (an index into the node's slot's round times).
    fn fold(&mut self, node: NodeId, q: Quiet, t: i64) -> usize {
        let slot = self.slot.get(node as usize).copied().unwrap_or(0) as usize;
        let Some(times) = self.quiet.rounds.get(slot) else { return q.from };
        let to = q.from + times[q.from..].partition_point(|r| *r < t);
        let sample = self.measured(q.used);
        self.engine.fold_heartbeats(node, sample, &times[q.from..to]);
        self.sim_events += (to - q.from) as u64;
        self.quiet.folded += (to - q.from) as u64;
        to
    }

    /// After a heartbeat of `node` whose pass decided nothing (no
    /// container placed, none evicted): the node goes
    /// quiet if the engine says a pass would place nothing while the
    /// smallest ask does not fit its room, and that ask does not.
    pub(super) fn maybe_quiet(&mut self, node: NodeId) {
        let i = node as usize;
        if !self.quiet.on || i >= self.quiet.nodes.len() {
            return;
        }
        let Some(free) = self.engine.quiet_room(node) else { return };
        if self.engine.smallest_ask().is_some_and(|m| m.fits_in(&free)) {
            return;
        }
        let slot = self.slot.get(i).copied().unwrap_or(0) as usize;
        let from = self.quiet.rounds.get(slot).map_or(0, Vec::len);
        let used = self.node_used[i];
        let unread_until = self.engine.folds_unread_until(node, self.measured(used));
        let q = Quiet { from, used, free, changes: self.cluster.changes[i], asks_epoch: self.engine.asks_epoch(), unread_until };
        if self.quiet.nodes[i].replace(q).is_none() {
            self.quiet.count += 1;
        }
    }

    /// The engine's periodic steps at `t`, with every quiet node's skipped
    /// heartbeats handed over first when one is due (it may read them);
    /// after a step that may change decisions, a node it gave headroom
    /// wakes. True when a step may change what a pass decides.
    pub(super) fn tick(&mut self, t: i64) -> bool {
        let _ = self.catch_up_before_step(t);
        let changed = self.engine.tick(t);
        if changed {
            self.recheck(t);
        }
        changed
    }

    /// After a periodic step at `t` that may have changed decisions: a
    /// quiet node the engine no longer calls quiet (the step gave it
    /// headroom) wakes.
    pub(super) fn recheck(&mut self, t: i64) {
        if self.quiet.count == 0 {
            return;
        }
        for i in 0..self.quiet.nodes.len() {
            let Some(q) = self.quiet.nodes[i] else { continue };
            if self.engine.quiet_room(i as NodeId) != Some(q.free) {
                self.wake(i as NodeId, t);
            }
        }
    }

    /// Before a pass at `t` that will run a periodic step now due (a pass
    /// out of band, between rounds): the quiet nodes catch up first. True
    /// when a step is due (the caller rechecks them after the pass).
    pub(super) fn catch_up_before_step(&mut self, t: i64) -> bool {
        let due = self.quiet.count > 0 && self.engine.next_tick_ms().is_some_and(|due| due <= t);
        if due {
            self.catch_up(t);
        }
        due
    }

    /// The round of `slot` at `t` is at `node` (`None`: between rounds).
    pub(super) fn visiting(&mut self, at: Option<(u32, i64, NodeId)>) {
        self.quiet.visiting = at;
    }

    /// Every quiet node's skipped heartbeats before `t` (and the one at
    /// `t` of a node the round under way has passed) go to the engine, but
    /// those a step at `t` would not read yet; the nodes stay quiet.
    ///
    /// Under ROSE that is most of them: a node whose use has been level
    /// for its whole window adds nothing but fresher times, which a
    /// refresh reads only as fresh or stale, so its heartbeats go over
    /// every third or fourth refresh instead of every one (3 000 nodes,
    /// a refresh every 3 s, 10 s before a sample is stale).
    fn catch_up(&mut self, t: i64) {
        for i in 0..self.quiet.nodes.len() {
            let Some(q) = self.quiet.nodes[i] else { continue };
            if t <= q.unread_until {
                continue;
            }
            let passed = self
                .quiet
                .visiting
                .is_some_and(|(slot, at, node)| at == t && (i as NodeId) < node && self.slot.get(i).copied().unwrap_or(0) == slot);
            let to = self.fold(i as NodeId, q, if passed { t + 1 } else { t });
            let unread_until = self.engine.folds_unread_until(i as NodeId, self.measured(q.used));
            if let Some(q) = self.quiet.nodes[i].as_mut() {
                (q.from, q.unread_until) = (to, unread_until);
            }
        }
    }

    /// The run is over: every skipped heartbeat goes to the engine.
    pub(super) fn wake_all(&mut self) {
        for i in 0..self.quiet.nodes.len() {
            self.wake(i as NodeId, i64::MAX);
        }
    }
}
