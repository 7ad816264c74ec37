//! The simulated NodeManagers: their registration events, and the set of
//! nodes with room for at least the smallest task of the trace. Only those
//! can receive a container, so a heartbeat round visits only them; a node
//! outside the set would make a pass that allocates nothing, so skipping it
//! gives the same result as heartbeating every node.

use crate::engine::{Engine, Event};
use crate::model::{NodeId, Resources};
use crate::workload::ClusterSpec;
use std::collections::BTreeSet;

pub struct SimCluster {
    /// Nodes whose free capacity fits `min_demand`.
    pub roomy: BTreeSet<NodeId>,
    /// Component-wise minimum task demand over the trace.
    pub min_demand: Resources,
    pub capacity: Resources,
    /// Per node: how many times its allocation changed (a quiet node wakes
    /// on a change, `sim::quiet`).
    pub changes: Vec<u64>,
}

impl SimCluster {
    pub fn start(engine: &mut Engine, spec: &ClusterSpec, min_demand: Resources) -> SimCluster {
        let rack_size = spec.rack_size.max(1);
        for i in 0..spec.nodes {
            engine.apply(Event::NodeAdded {
                node: i,
                host: format!("node{i:05}"),
                rack: format!("/rack-{}", i / rack_size),
                capacity: spec.capacity(),
                labels: vec![],
                attributes: vec![],
            });
        }
        let mut c = SimCluster {
            roomy: BTreeSet::new(),
            min_demand,
            capacity: spec.capacity().times(spec.nodes as i64),
            changes: vec![0; spec.nodes as usize],
        };
        for i in 0..spec.nodes {
            c.refresh(engine, i);
        }
        c
    }

    /// Re-check one node after its allocation changed.
    pub fn refresh(&mut self, engine: &Engine, node: NodeId) {
        if let Some(n) = self.changes.get_mut(node as usize) {
            *n += 1;
        }
        let fits = engine.state().nodes.get(&node).is_some_and(|n| self.min_demand.fits_in(&n.free()));
        if fits {
            self.roomy.insert(node);
        } else {
            self.roomy.remove(&node);
        }
    }
}
