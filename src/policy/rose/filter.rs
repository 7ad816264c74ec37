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

/// A node's normalised load (as [`NodeView::load`]) known only to lie
/// within `lo ..= hi` per dimension: before Algorithm 1 has run on its
/// window.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LoadRange {
    pub lo: [f64; 2],
    pub hi: [f64; 2],
}

/// Lines 2–3, B1: the K most penalised nodes (ties to the lower id).
fn most_penalised(penalties: &BTreeMap<NodeId, f64>, top_k: usize) -> BTreeSet<NodeId> {
    let mut ranked: Vec<(NodeId, f64)> = penalties.iter().filter(|(_, v)| **v > 0.0).map(|(n, v)| (*n, *v)).collect();
    ranked.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    ranked.into_iter().take(top_k).map(|(n, _)| n).collect()
}

/// Which nodes' exact loads can change C, from ranges on every node's
/// load (`None`: no fresh estimate, B2). [`candidates`] over the exact
/// load of each node marked here, and `None` for the others, gives the
/// same C as over every exact load. A node left unmarked is in B1, has no
/// estimate (B2), is certainly at a threshold (B3: its range's low end
/// reaches it), or certainly ranks behind the d·mL nodes of line 12: at
/// least d·mL nodes certainly pass B3 with a load no higher than its
/// lowest, so line 12's cut drops it whatever its exact load. The d·mL
/// least loaded are a small part of a large cluster, so most nodes'
/// windows need no Algorithm 1 at a refresh.
pub fn needs_exact_load(nodes: &[(NodeId, Option<LoadRange>)], penalties: &BTreeMap<NodeId, f64>, p: Params) -> Vec<bool> {
    let b1 = most_penalised(penalties, p.top_k);
    let index = |l: [f64; 2]| (l[0] + l[1]) / 2.0;
    let passes = |r: &LoadRange| r.hi.iter().zip(p.thresholds).all(|(x, t)| *x < t);
    let may_pass = |r: &LoadRange| r.lo.iter().zip(p.thresholds).all(|(x, t)| *x < t);
    let open: Vec<Option<&LoadRange>> = nodes.iter().map(|(n, r)| r.as_ref().filter(|r| !b1.contains(n) && may_pass(r))).collect();
    // The highest load the d·mL-th least loaded sure pass can have; a
    // node whose load is certainly above it is beyond line 12's cut (the
    // mean of two dimensions grows with each, also as rounded).
    let keep = p.candidates.saturating_mul(p.factor);
    let mut sure: Vec<f64> = open.iter().flatten().filter(|r| passes(r)).map(|r| index(r.hi)).collect();
    let cut = if keep > 0 && sure.len() >= keep { *sure.select_nth_unstable_by(keep - 1, |a, b| a.total_cmp(b)).1 } else { f64::INFINITY };
    open.iter().map(|r| r.is_some_and(|r| index(r.lo) <= cut)).collect()
}

/// The candidate set C. `penalties`: TBAMR's penalty per node (only
/// penalised nodes are in it).
pub fn candidates(nodes: &[NodeView], penalties: &BTreeMap<NodeId, f64>, p: Params) -> BTreeSet<NodeId> {
    let b1 = most_penalised(penalties, p.top_k);
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

    /// C over the exact loads of the nodes `needs_exact_load` marks (the
    /// others without a load) is C over every exact load: random clusters
    /// of exact loads, each known only within a range around it, with ties,
    /// stale nodes, penalties and loads at the thresholds. And the ranges
    /// do spare nodes: some clusters leave most unmarked.
    #[test]
    fn the_exact_loads_of_the_marked_nodes_give_the_same_candidates() {
        let mut rng = crate::workload::rng::Rng::seeded(11);
        let mut spared = 0;
        for case in 0..500 {
            let n = rng.int(1, 120) as usize;
            let p = Params {
                top_k: rng.int(0, 3) as usize,
                thresholds: [0.8, 0.7],
                candidates: rng.int(1, 12) as usize,
                factor: rng.int(1, 3) as usize,
            };
            // Coarse loads, so equal ones (ties) are common.
            let level = |rng: &mut crate::workload::rng::Rng| rng.int(0, 20) as f64 / 20.0;
            let mut nodes = Vec::new();
            let mut ranges = Vec::new();
            for node in 0..n as NodeId {
                let load = (!rng.chance(0.1)).then(|| [level(&mut rng), level(&mut rng)]);
                let range = load.map(|l| {
                    // Some ranges are exact (a known level), the others
                    // reach out by up to 0.3 on either side.
                    let wide = if rng.chance(0.3) { 0.0 } else { 0.3 };
                    LoadRange {
                        lo: [l[0] - rng.uniform(0.0, wide), l[1] - rng.uniform(0.0, wide)],
                        hi: [l[0] + rng.uniform(0.0, wide), l[1] + rng.uniform(0.0, wide)],
                    }
                });
                nodes.push(NodeView { node, load, queued: rng.int(0, 3) as usize });
                ranges.push((node, range));
            }
            let mut penalties = BTreeMap::new();
            for node in 0..n as NodeId {
                if rng.chance(0.05) {
                    penalties.insert(node, rng.int(1, 4) as f64);
                }
            }
            let marked = needs_exact_load(&ranges, &penalties, p);
            let only_marked: Vec<NodeView> =
                nodes.iter().zip(&marked).map(|(v, m)| NodeView { load: if *m { v.load } else { None }, ..*v }).collect();
            assert_eq!(candidates(&only_marked, &penalties, p), candidates(&nodes, &penalties, p), "case {case}");
            if marked.iter().filter(|m| !**m).count() * 2 > n {
                spared += 1;
            }
        }
        assert!(spared > 50, "clusters where most nodes needed no exact load: {spared}");
    }
}
