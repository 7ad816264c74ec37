//! `app_order = "tetris"`: Tetris-style packing (Grandl et al.,
//! SIGCOMM'14; the packing baseline of Carbyne §5): on each node heartbeat,
//! serve the application whose most urgent ask that fits aligns best with
//! the node's free resources — alignment = Σ_r (ask_r ÷ capacity_r) ·
//! (free_r ÷ capacity_r), the dot product of the normalised demand and free
//! vectors.

use crate::model::{App, NodeId, Resources};
use crate::policy::points::{AppOrder, Capabilities, Ctx, Plugin};
use crate::policy::SortKey;

/// The node of the pass at hand (the engine's state has its free vector,
/// kept current as the pass allocates).
#[derive(Default)]
pub struct Tetris {
    node: Option<NodeId>,
}

fn alignment(ask: &Resources, free: &Resources, capacity: &Resources) -> f64 {
    ask.0
        .iter()
        .zip(free.0.iter())
        .zip(capacity.0.iter())
        .filter(|(_, c)| **c > 0)
        .map(|((a, f), c)| (*a as f64 / *c as f64) * (*f as f64 / *c as f64))
        .sum()
}

impl Plugin for Tetris {
    fn name(&self) -> &'static str {
        "tetris"
    }

    fn prepare(&mut self, _ctx: &Ctx, node: NodeId) {
        self.node = Some(node);
    }

    /// The key scores the app against the node of the pass.
    fn capabilities(&self) -> Capabilities {
        Capabilities { prepares_per_node: true, ..Capabilities::NONE }
    }
}

impl AppOrder for Tetris {
    fn key(&self, ctx: &Ctx, app: &App) -> SortKey {
        let node = self.node.and_then(|n| ctx.state.nodes.get(&n));
        let (free, capacity) = node.map_or((Resources::ZERO, Resources::ZERO), |n| (n.free(), n.capacity));
        let best = app
            .asks
            .values()
            .filter(|a| a.count > 0 && a.capability.fits_in(&free))
            .map(|a| alignment(&a.capability, &free, &capacity))
            .next();
        // Higher alignment first; apps with nothing that fits go last.
        SortKey::new(best.map_or(f64::INFINITY, |s| -s), app.submit_ms as f64, app.id as i64)
    }
}
