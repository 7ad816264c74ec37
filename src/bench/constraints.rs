//! Constraint matching at scale: Megha's per-partition bit-vectors
//! (§IV-B, Algorithm 1) against the per-node check they replace, on a
//! cluster with Megha's 21 machine properties (here: 21 node attributes of
//! 4 values each) and live tagged containers for anti-affinity.
//!
//! Prints, per cluster size: the time to compile one ask's candidate set
//! (AND/OR of vectors), the time of one `fits` bit test, and the time of a
//! per-node check over the whole cluster (what matching costs without the
//! index). Never asserted anywhere; run `shepherd bench-constraints`.

use crate::model::constraint::placement::NodeView;
use crate::model::constraint::{text, ConstraintIndex, Scope};
use crate::workload::rng::Rng;
use std::collections::HashMap;
use std::time::Instant;

pub struct ConstraintsReport {
    pub nodes: u32,
    pub vectors: usize,
    pub candidates: usize,
    pub compile_ns: f64,
    pub bit_test_ns: f64,
    pub naive_scan_ns: f64,
}

/// `nodes` NodeManagers on racks of 40, 21 attributes, `containers` live
/// containers with one of 10 tags from one of 100 apps.
pub fn run(nodes: u32, containers: u32, seed: u64) -> ConstraintsReport {
    let mut rng = Rng::seeded(seed);
    let mut idx = ConstraintIndex::default();
    let mut attrs: HashMap<u32, Vec<(String, String)>> = HashMap::new();
    for n in 0..nodes {
        let a: Vec<(String, String)> = (0..21).map(|k| (format!("k{k}"), format!("v{}", rng.int(0, 3)))).collect();
        idx.node_added(n, &format!("/r{}", n / 40), &[], &a);
        attrs.insert(n, a);
    }
    let mut tag_on: HashMap<(u32, String), u32> = HashMap::new();
    for c in 0..containers {
        let (node, app, tag) = (rng.int(0, nodes as i64 - 1) as u32, rng.int(0, 99) as u32, format!("t{}", rng.int(0, 9)));
        idx.container_added(c as u64 + 1, app, node, std::slice::from_ref(&tag));
        *tag_on.entry((node, tag)).or_insert(0) += 1;
    }
    // Three machine constraints and one anti-affinity, as a Google-like
    // task with a few constraints (Sharma et al., the paper's [19]).
    let c = text::parse("and(attr,node,k1,eq,v1,v2;attr,node,k7,ne,v0;attr,node,k12,eq,v3;notin,node,all/t3)").expect("valid");
    let rounds = 200;
    let t = Instant::now();
    let mut cand = None;
    for _ in 0..rounds {
        cand = idx.candidates("", 1, &c);
    }
    let compile_ns = t.elapsed().as_nanos() as f64 / rounds as f64;
    let cand = cand.expect("partition exists");
    let probes = 1_000_000u32;
    let t = Instant::now();
    let mut hits = 0u64;
    for i in 0..probes {
        hits += idx.contains(&cand, i.wrapping_mul(2_654_435_761) % nodes) as u64;
    }
    let bit_test_ns = t.elapsed().as_nanos() as f64 / probes as f64;
    std::hint::black_box(hits);
    let parts = [String::new()];
    let t = Instant::now();
    let mut naive = 0usize;
    for n in 0..nodes {
        let a = &attrs[&n];
        let attributes = |k: &str| a.iter().find(|(x, _)| x == k).map(|(_, v)| v.as_str());
        let tag_count = |_: Scope, _: Option<u32>, tag: &str| tag_on.get(&(n, tag.to_string())).copied().unwrap_or(0);
        let view = NodeView { partitions: &parts, attributes: &attributes, tag_count: &tag_count };
        naive += c.holds(1, &view) as usize;
    }
    let naive_scan_ns = t.elapsed().as_nanos() as f64;
    let candidates = idx.nodes_of(&cand).len();
    assert_eq!(candidates, naive, "bit-vectors and the per-node check disagree");
    ConstraintsReport { nodes, vectors: idx.vector_count(), candidates, compile_ns, bit_test_ns, naive_scan_ns }
}
