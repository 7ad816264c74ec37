//! One partition's authority (Megha's LM): the only writer of its nodes'
//! allocations. A proposal made from a stale view is validated against the
//! current state under the partition's lock — the LM's "confirms the
//! availability of the requested resources" (§IV-B) — so two proposers that
//! picked the same free capacity cannot both get it.

use crate::model::Resources;
use std::sync::Mutex;

#[derive(Debug, Clone)]
struct Slot {
    capacity: Resources,
    used: Resources,
}

#[derive(Debug)]
struct State {
    nodes: Vec<Slot>,
    /// Commits and releases so far; a proposer's view of this partition is
    /// as fresh as the version it last saw.
    version: u64,
}

/// The authority's answer to one proposal.
#[derive(Debug, Clone, PartialEq)]
pub enum Verdict {
    Committed {
        version: u64,
    },
    /// The node no longer has room: here is the partition's free capacity
    /// now (node by node) and its version, to refresh the proposer's view.
    Rejected {
        free: Vec<Resources>,
        version: u64,
    },
}

#[derive(Debug)]
pub struct Authority {
    state: Mutex<State>,
}

impl Authority {
    pub fn new(capacities: Vec<Resources>) -> Authority {
        let nodes = capacities.into_iter().map(|capacity| Slot { capacity, used: Resources::ZERO }).collect();
        Authority { state: Mutex::new(State { nodes, version: 0 }) }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Validate and commit: `ask` on node `node` of this partition.
    pub fn propose(&self, node: usize, ask: Resources) -> Verdict {
        let mut s = self.lock();
        let n = &mut s.nodes[node];
        if (n.used + ask).fits_in(&n.capacity) {
            n.used += ask;
            s.version += 1;
            Verdict::Committed { version: s.version }
        } else {
            Verdict::Rejected { free: s.nodes.iter().map(|n| n.capacity - n.used).collect(), version: s.version }
        }
    }

    /// A task ended: its resources return to the node.
    pub fn release(&self, node: usize, ask: Resources) {
        let mut s = self.lock();
        s.nodes[node].used -= ask;
        s.version += 1;
    }

    /// The partition's free capacity per node, and its version (a GM's
    /// periodic state refresh).
    pub fn snapshot(&self) -> (Vec<Resources>, u64) {
        let s = self.lock();
        (s.nodes.iter().map(|n| n.capacity - n.used).collect(), s.version)
    }

    /// Used and capacity per node (for checks).
    pub fn usage(&self) -> Vec<(Resources, Resources)> {
        self.lock().nodes.iter().map(|n| (n.used, n.capacity)).collect()
    }
}
