//! The plugins of points a pipeline leaves empty: `reserve = "none"`,
//! `scheduler.queue_order = "flat"`, `leftover = "none"` and
//! `oversubscribe = "none"`. Each does nothing and says so
//! (`Capabilities::noop`), and the engine then skips its point altogether —
//! no reserve check, no queue level, no leftover phase, no speculative
//! phase — as it did when such a point held no plugin. Their answers are
//! the neutral ones all the same, should anything ask.
//!
//! (`estimate = "none"` is not one of them: it is a plugin that answers
//! "unknown", `estimate::NoEstimate`, and size orders read that answer.)

use super::points::{Capabilities, Ctx, Leftover, Oversubscribe, Plugin, QueueOrder, Reserve};
use super::SortKey;
use crate::model::{App, Ask, ClusterState, ContainerId, Node, Queue, Resources};

const NOOP: Capabilities = Capabilities { noop: true, ..Capabilities::NONE };

/// `reserve = "none"`: no pools; every app may grow.
pub struct NoReserve;

impl Plugin for NoReserve {
    fn name(&self) -> &'static str {
        "none"
    }

    fn capabilities(&self) -> Capabilities {
        NOOP
    }
}

impl Reserve for NoReserve {
    fn pools(&self) -> &'static [&'static str] {
        &[]
    }

    fn pool_of(&self, _app: &App) -> Option<usize> {
        None
    }

    fn admits(&self, _ctx: &Ctx, _app: &App, _ask: &Ask) -> bool {
        true
    }
}

/// `scheduler.queue_order = "flat"`: no queue level; one pipeline serves
/// the apps of every queue in one order.
pub struct FlatQueues;

impl Plugin for FlatQueues {
    fn name(&self) -> &'static str {
        "flat"
    }

    fn capabilities(&self) -> Capabilities {
        NOOP
    }
}

impl QueueOrder for FlatQueues {
    /// Every queue alike (the pass never asks: there is no queue level).
    fn key(&self, _state: &ClusterState, queue: &Queue) -> SortKey {
        SortKey::new(0.0, 0.0, queue.id as i64)
    }
}

/// `leftover = "none"`: no leftover phase.
pub struct NoLeftover;

impl Plugin for NoLeftover {
    fn name(&self) -> &'static str {
        "none"
    }

    fn capabilities(&self) -> Capabilities {
        NOOP
    }
}

impl Leftover for NoLeftover {
    /// Arrival order (the pass never asks: there is no leftover phase).
    fn key(&self, _ctx: &Ctx, app: &App, _ask: &Ask, _node: &Node) -> SortKey {
        SortKey::new(app.submit_ms as f64, 0.0, app.id as i64)
    }
}

/// `oversubscribe = "none"`: no speculative containers.
pub struct NoOversubscribe;

impl Plugin for NoOversubscribe {
    fn name(&self) -> &'static str {
        "none"
    }

    fn capabilities(&self) -> Capabilities {
        NOOP
    }
}

impl Oversubscribe for NoOversubscribe {
    fn headroom(&self, _ctx: &Ctx, _node: &Node) -> Option<Resources> {
        None
    }

    fn admits(&self, _ctx: &Ctx, _app: &App, _ask: &Ask) -> bool {
        false
    }

    fn evictions(&mut self, _ctx: &Ctx, _node: &Node) -> Vec<ContainerId> {
        Vec::new()
    }
}
