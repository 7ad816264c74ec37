//! Quiet nodes: heartbeats a driver may fold without changing a decision.
//!
//! Under an over-subscribing policy every heartbeat carries the node's
//! utilization (ROSE's controller reads each sample), so the simulator
//! sends every node's heartbeat every interval: ~80 million on the default
//! workload, nearly all from nodes on which nothing changed and whose pass
//! ends at once because no outstanding ask fits them. A heartbeat is a
//! utilization sample and a pass. When the pass cannot place anything
//! until something on the node, the asks or a periodic step changes, the
//! driver may skip the passes and hand the samples over later, together
//! ([`Engine::fold_heartbeats`]), before anything reads them: the same
//! decisions, in the same order.
//!
//! What makes a pass on a node certain to place nothing, here: no ask
//! outstanding fits its free room (the kept smallest ask,
//! [`Engine::smallest_ask`], which moves only with `asks_epoch`), no
//! speculative container on it (nothing for the controller to evict, no
//! young ones whose settling grows its headroom), no headroom from an
//! over-subscribing plugin, and no leftover hold or reservation on it. And
//! nothing a skipped pass would have done otherwise: no plugin whose
//! `prepare` moves its state with the clock, no queue preemption (its
//! rounds run at passes), no activity log (it records every heartbeat), no
//! injected faults (they count scheduling calls).

use super::{preemption, Engine};
use crate::model::{NodeId, Resources};

impl Engine {
    /// `node`'s free room if a pass on it now would place nothing but an
    /// ask that fits that room, and would change nothing else: then, while
    /// nothing on the node changes, no periodic step runs and the smallest
    /// outstanding ask does not fit the room, its heartbeats may be folded.
    /// `None`: every pass on it counts.
    pub fn quiet_room(&self, node: NodeId) -> Option<Resources> {
        let cfg = &self.config.scheduler;
        if self.activity.is_some()
            || preemption::enabled(&self.config)
            || cfg.fault_injection != "none"
            || cfg.reservable_nodes > 0.0
            || self.policies.prepare_moves_state()
        {
            return None;
        }
        let n = self.state.nodes.get(&node)?;
        if n.speculative > 0 || self.state.leftover_holds.contains_key(&node) {
            return None;
        }
        // Any headroom at all (`None`: whatever the smallest ask).
        if self.policies.has_oversubscribe() && self.policies.speculative_headroom(&self.state, n, None) {
            return None;
        }
        Some(n.free())
    }

    /// The per-resource minimum of every outstanding ask (`None`: nothing
    /// is asked), kept until `asks_epoch` moves.
    pub fn smallest_ask(&mut self) -> Option<Resources> {
        self.smallest_ask.bound(&self.state)
    }

    /// Moves with every event that may change what is asked.
    pub fn asks_epoch(&self) -> u64 {
        self.state.asks_epoch
    }

    /// Until when (ms, inclusive) a periodic step decides the same without
    /// `node`'s folded heartbeats not yet handed over, each a sample
    /// `used` (`Plugin::utilization_unread_until`, over every plugin). The
    /// engine's own record of them (the node's newest utilization and
    /// heartbeat time, the counters) is read by the views only: they show
    /// the heartbeats handed over.
    pub fn folds_unread_until(&self, node: NodeId, used: Resources) -> i64 {
        self.policies.utilization_unread_until(&self.state, node, &used)
    }

    /// `node`'s heartbeats at `times` (ascending, none after the clock),
    /// folded while it was quiet: each a utilization sample `used` and a
    /// pass that placed nothing. The plugins get the samples as the events
    /// they stand for (`Plugin::on_utilization_run`); the node and the
    /// counters end as after those heartbeats.
    pub fn fold_heartbeats(&mut self, node: NodeId, used: Resources, times: &[i64]) {
        let Some(&last) = times.last() else { return };
        let Some(n) = self.state.nodes.get_mut(&node) else { return };
        n.utilization = Some(used);
        n.last_heartbeat_ms = last;
        let k = times.len() as u64;
        self.counters.events += k;
        self.counters.passes += k;
        self.state.epoch += k;
        self.policies.on_utilization_run(&self.state, node, &used, times);
    }
}
