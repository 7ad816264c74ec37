//! Multi-phase Machine Filtering (ROSE Algorithm 3): which nodes may take
//! speculative containers. Excluded: the top-K penalised nodes (B1, from
//! TBAMR), disconnected or stale ones (B2), and those whose load estimate
//! reaches a threshold in any dimension (B3). The rest are ranked by load
//! index (keep d·mL), then by queue index (keep mL).

use crate::model::NodeId;
use std::collections::{BTreeMap, BTreeSet};

/// What Algorithm 3 knows of one node.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct NodeView {
    pub node: NodeId,
    /// LLA estimate ÷ capacity per dimension (memory, vcores); `None`:
    /// no estimate or a stale one (B2).
    pub load: Option<[f64; 2]>,
    /// Speculative containers already on the node (its queue of
    /// speculative work; the paper's NM waiting queue).
    pub queued: usize,
}

/// Algorithm 3's parameters.
#[derive(Debug, Clone, Copy)]
pub struct Params {
    pub top_k: usize,
    /// Per-dimension thresholds of B3 (the placement bounds).
    pub thresholds: [f64; 2],
    /// mL and d.
    pub candidates: usize,
    pub factor: usize,
}

/// The candidate set C. `penalties`: TBAMR's penalty per node (only
/// penalised nodes are in it).
pub fn candidates(nodes: &[NodeView], penalties: &BTreeMap<NodeId, f64>, p: Params) -> BTreeSet<NodeId> {
    // Lines 2–3, B1: the K most penalised nodes (ties to the lower id).
    let mut ranked: Vec<(NodeId, f64)> = penalties.iter().filter(|(_, v)| **v > 0.0).map(|(n, v)| (*n, *v)).collect();
    ranked.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    let b1: BTreeSet<NodeId> = ranked.into_iter().take(p.top_k).map(|(n, _)| n).collect();
    // Lines 4–11: B2 (no fresh estimate), B3 (a dimension at its threshold);
    // lIndex = the mean normalised load (the paper's load filter weights
    // the dimensions; we weigh them equally), qIndex = speculative queue.
    let mut info: Vec<(NodeId, f64, usize)> = nodes
        .iter()
        .filter(|v| !b1.contains(&v.node))
        .filter_map(|v| v.load.map(|l| (v, l)))
        .filter(|(_, l)| l.iter().zip(p.thresholds).all(|(x, t)| *x < t))
        .map(|(v, l)| (v.node, (l[0] + l[1]) / 2.0, v.queued))
        .collect();
    // Line 12: C′ = the d·mL least loaded.
    info.sort_by(|a, b| a.1.total_cmp(&b.1).then(a.0.cmp(&b.0)));
    info.truncate(p.candidates.saturating_mul(p.factor));
    // Line 13: C″ = of those, the mL with the shortest queues.
    info.sort_by(|a, b| a.2.cmp(&b.2).then(a.1.total_cmp(&b.1)).then(a.0.cmp(&b.0)));
    info.truncate(p.candidates);
    info.into_iter().map(|(n, _, _)| n).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(node: NodeId, m: f64, c: f64, queued: usize) -> NodeView {
        NodeView { node, load: Some([m, c]), queued }
    }

    #[test]
    fn excludes_penalised_stale_and_loaded_nodes_then_ranks() {
        let nodes = [
            v(0, 0.1, 0.1, 0), // least loaded, but the most penalised: B1
            v(1, 0.3, 0.2, 5),
            v(2, 0.2, 0.2, 0),
            NodeView { node: 3, load: None, queued: 0 }, // stale: B2
            v(4, 0.5, 0.85, 0),                          // vcores over 0.8: B3
            v(5, 0.4, 0.4, 1),
            v(6, 0.6, 0.6, 0),
        ];
        let penalties = [(0, 4.0), (6, 1.0)].into_iter().collect();
        let p = Params { top_k: 1, thresholds: [0.8, 0.8], candidates: 2, factor: 2 };
        // After B1–B3: 1 (0.25, q5), 2 (0.2, q0), 5 (0.4, q1), 6 (0.6, q0).
        // C′ (d·mL = 4 least loaded): 2, 1, 5, 6. C″ by queue: 2 (0), 6 (0).
        assert_eq!(candidates(&nodes, &penalties, p), [2, 6].into_iter().collect());
        // With mL = 1, d = 2: C′ = 2, 1; C″ = 2.
        let p = Params { candidates: 1, ..p };
        assert_eq!(candidates(&nodes, &penalties, p), [2].into_iter().collect());
        // top_k = 2 also drops node 6.
        let p = Params { top_k: 2, candidates: 10, ..p };
        assert_eq!(candidates(&nodes, &penalties, p), [1, 2, 5].into_iter().collect());
    }
}
