//! Tetris-style packing (Grandl et al., SIGCOMM'14; the packing baseline of
//! Carbyne §5): on each node heartbeat, serve the application whose most
//! urgent ask that fits aligns best with the node's free resources —
//! alignment = Σ_r (ask_r ÷ capacity_r) · (free_r ÷ capacity_r), the dot
//! product of the normalised demand and free vectors.

use super::{Policy, SortKey};
use crate::model::{App, ClusterState, Container, NodeId, Resources};

#[derive(Default)]
pub struct Tetris {
    node: Option<NodeId>,
    free: Resources,
    capacity: Resources,
}

impl Tetris {
    fn alignment(&self, ask: &Resources) -> f64 {
        ask.0
            .iter()
            .zip(self.free.0.iter())
            .zip(self.capacity.0.iter())
            .filter(|(_, c)| **c > 0)
            .map(|((a, f), c)| (*a as f64 / *c as f64) * (*f as f64 / *c as f64))
            .sum()
    }
}

impl Policy for Tetris {
    fn name(&self) -> &'static str {
        "tetris"
    }

    fn before_node(&mut self, state: &ClusterState, node: NodeId) {
        self.node = Some(node);
        if let Some(n) = state.nodes.get(&node) {
            self.free = n.free();
            self.capacity = n.capacity;
        }
    }

    fn app_order(&self, _state: &ClusterState, app: &App) -> SortKey {
        let best = app
            .asks
            .values()
            .filter(|a| a.count > 0 && a.capability.fits_in(&self.free))
            .map(|a| self.alignment(&a.capability))
            .next();
        // Higher alignment first; apps with nothing that fits go last.
        SortKey::new(best.map_or(f64::INFINITY, |s| -s), app.submit_ms as f64, app.id as i64)
    }

    fn on_allocated(&mut self, _state: &ClusterState, c: &Container) {
        if self.node == Some(c.node) {
            self.free -= c.resources;
        }
    }
}
