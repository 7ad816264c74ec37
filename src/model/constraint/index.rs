//! Megha's constraint matching (§IV-B, Algorithm 1 `match_task`): per
//! partition, one bit-vector per machine property, one bit per node of the
//! partition; a task's candidate nodes are the AND of the vectors of its
//! constraints. Shepherd's partitions are YARN's node partitions (node
//! labels); its machine properties are
//!
//! * each distinct node attribute `(name, value)` (and the node's partition
//!   labels, as attribute-like vectors, so `partition,x` is one lookup);
//! * for each allocation tag (per app for namespace `self`, and over all
//!   apps for `all`), threshold vectors `ge[k]` = "this node runs at least
//!   k + 1 live containers with the tag" — presence is `ge[0]`, and a
//!   cardinality bound min..max is `ge[min-1] ANDNOT ge[max]`;
//! * per rack, the rack's nodes (RACK-scope tag constraints OR the vectors
//!   of the racks whose tag count is in bounds).
//!
//! Megha's constraints are static machine properties; allocation tags change
//! with every container, so this index is maintained incrementally: node
//! add/remove/update touches that node's bit in every vector of its
//! partitions; container allocate/finish touches one threshold bit per tag
//! (plus a rack counter). `generation` names the index's contents, so a
//! caller can keep a compiled candidate set until the index moves. It is
//! drawn from one process-wide counter, not counted per index: a copy of the
//! index (a parallel round's proposer, `engine::propose`) that changes gets
//! a number neither the original nor any other copy will ever have, so a
//! candidate set compiled on one can never pass for current on another.
//!
//! The engine owns one index in `ClusterState` (every queue's pipeline sees
//! every node and every app's tags); the `constraints` filter plugin reads it.

use super::placement::{AttrOp, Constraint, Leaf, Namespace, Scope};
use crate::model::{AppId, ContainerId, NodeId};
use bitvec::prelude::*;
use std::collections::HashMap;

pub type Bits = BitVec<u64, Lsb0>;

/// Attribute name under which a node's partition labels are kept (an
/// attribute name YARN cannot produce: it starts with NUL).
const PARTITION_ATTR: &str = "\0partition";

/// One allocation tag as counted: an app's own (namespace self) or all apps'.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct TagKey {
    pub app: Option<AppId>,
    pub tag: String,
}

#[derive(Debug, Default, Clone)]
struct Partition {
    label: String,
    /// Slot → node; `None` for a freed slot (reused by the next node).
    slots: Vec<Option<NodeId>>,
    free: Vec<usize>,
    live: Bits,
    attrs: HashMap<(String, String), Bits>,
    /// Tag → `ge[k]`: nodes with at least k + 1 live containers carrying it.
    tags: HashMap<TagKey, Vec<Bits>>,
    racks: HashMap<String, Bits>,
}

impl Partition {
    fn len(&self) -> usize {
        self.slots.len()
    }

    fn zeros(&self) -> Bits {
        Bits::repeat(false, self.len())
    }

    /// Every vector of the partition, to grow or clear a slot in all of them.
    fn each_vector(&mut self, f: &mut dyn FnMut(&mut Bits)) {
        f(&mut self.live);
        self.attrs.values_mut().for_each(&mut *f);
        self.racks.values_mut().for_each(&mut *f);
        for levels in self.tags.values_mut() {
            levels.iter_mut().for_each(&mut *f);
        }
    }

    fn add_slot(&mut self, node: NodeId) -> usize {
        if let Some(s) = self.free.pop() {
            self.slots[s] = Some(node);
            return s;
        }
        self.slots.push(Some(node));
        self.each_vector(&mut |v| v.push(false));
        self.slots.len() - 1
    }

    fn clear_slot(&mut self, slot: usize) {
        self.each_vector(&mut |v| v.set(slot, false));
        self.slots[slot] = None;
        self.free.push(slot);
    }

    fn set_attr(&mut self, key: (String, String), slot: usize) {
        let n = self.len();
        self.attrs.entry(key).or_insert_with(|| Bits::repeat(false, n)).set(slot, true);
    }

    /// `ge[k]` for this tag (k = 0: at least one).
    fn at_least(&self, key: &TagKey, k: u32) -> Option<&Bits> {
        self.tags.get(key).and_then(|levels| levels.get(k as usize))
    }

    /// Count of `key` on the node at `slot` went from `from` to `to` (±1).
    fn tag_count_changed(&mut self, key: &TagKey, slot: usize, from: u32, to: u32) {
        let n = self.len();
        let levels = self.tags.entry(key.clone()).or_default();
        if to > from {
            while levels.len() < to as usize {
                levels.push(Bits::repeat(false, n));
            }
            levels[to as usize - 1].set(slot, true);
        } else if let Some(v) = levels.get_mut(from as usize - 1) {
            v.set(slot, false);
        }
    }
}

#[derive(Debug, Clone)]
struct NodeEntry {
    rack: String,
    /// (partition, slot) for each partition the node is in.
    slots: Vec<(usize, usize)>,
}

/// A compiled constraint: the candidate nodes of one partition.
#[derive(Debug, Clone)]
pub struct Candidates {
    pub partition: usize,
    pub bits: Bits,
}

#[derive(Debug, Default, Clone)]
pub struct ConstraintIndex {
    generation: u64,
    partitions: Vec<Partition>,
    by_label: HashMap<String, usize>,
    /// By node id (drivers number nodes densely from 0), so `fits` is an
    /// index and a bit test, not a hash lookup.
    nodes: Vec<Option<NodeEntry>>,
    node_tags: HashMap<(NodeId, TagKey), u32>,
    rack_tags: HashMap<TagKey, HashMap<String, u32>>,
    tag_totals: HashMap<TagKey, u32>,
    containers: HashMap<ContainerId, (NodeId, Vec<TagKey>)>,
}

/// The next generation number, unique in the process (see the module comment).
fn next_generation() -> u64 {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
    NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
}

fn and(a: &mut Bits, b: &Bits) {
    a.as_raw_mut_slice().iter_mut().zip(b.as_raw_slice()).for_each(|(x, y)| *x &= *y);
}
fn and_not(a: &mut Bits, b: &Bits) {
    a.as_raw_mut_slice().iter_mut().zip(b.as_raw_slice()).for_each(|(x, y)| *x &= !*y);
}
fn or(a: &mut Bits, b: &Bits) {
    a.as_raw_mut_slice().iter_mut().zip(b.as_raw_slice()).for_each(|(x, y)| *x |= *y);
}

/// The partitions a node is in: its labels, or the default partition.
pub fn partitions_of(labels: &[String]) -> Vec<String> {
    if labels.is_empty() {
        vec![String::new()]
    } else {
        labels.to_vec()
    }
}

impl ConstraintIndex {
    /// Identifies the current contents (every change draws a new number);
    /// a compiled [`Candidates`] is valid while it stands.
    pub fn generation(&self) -> u64 {
        self.generation
    }

    pub fn partition_count(&self) -> usize {
        self.partitions.len()
    }

    /// Bit-vectors kept, over all partitions (for the state view and metrics).
    pub fn vector_count(&self) -> usize {
        self.partitions.iter().map(|p| 1 + p.attrs.len() + p.racks.len() + p.tags.values().map(Vec::len).sum::<usize>()).sum()
    }

    /// A node joined (or re-registered: its old entry is replaced).
    pub fn node_added(&mut self, node: NodeId, rack: &str, labels: &[String], attributes: &[(String, String)]) {
        let old_rack = self.entry(node).map(|e| e.rack.clone());
        self.node_removed(node);
        if let Some(old) = old_rack.filter(|r| r != rack) {
            // Re-registered on another rack: its live tags move with it.
            for ((n, key), c) in &self.node_tags {
                if *n == node {
                    let racks = self.rack_tags.entry(key.clone()).or_default();
                    if let Some(r) = racks.get_mut(&old) {
                        *r = r.saturating_sub(*c);
                        if *r == 0 {
                            racks.remove(&old);
                        }
                    }
                    *racks.entry(rack.to_string()).or_insert(0) += c;
                }
            }
        }
        self.generation = next_generation();
        let mut slots = Vec::new();
        for label in partitions_of(labels) {
            let next = self.partitions.len();
            let p = *self.by_label.entry(label.clone()).or_insert(next);
            if p == next {
                self.partitions.push(Partition { label: label.clone(), ..Default::default() });
            }
            let part = &mut self.partitions[p];
            let slot = part.add_slot(node);
            part.live.set(slot, true);
            for (k, v) in attributes {
                part.set_attr((k.clone(), v.clone()), slot);
            }
            for l in labels.iter().chain(labels.is_empty().then_some(&label)) {
                part.set_attr((PARTITION_ATTR.into(), l.clone()), slot);
            }
            let n = part.len();
            part.racks.entry(rack.to_string()).or_insert_with(|| Bits::repeat(false, n)).set(slot, true);
            slots.push((p, slot));
        }
        // Containers the engine still counts on this node (a NodeManager
        // re-registering under the same id keeps them).
        let counts: Vec<(TagKey, u32)> =
            self.node_tags.iter().filter(|((n, _), _)| *n == node).map(|((_, k), c)| (k.clone(), *c)).collect();
        for (key, c) in counts {
            for &(p, slot) in &slots {
                for k in 0..c {
                    self.partitions[p].tag_count_changed(&key, slot, k, k + 1);
                }
            }
        }
        if self.nodes.len() <= node as usize {
            self.nodes.resize_with(node as usize + 1, || None);
        }
        self.nodes[node as usize] = Some(NodeEntry { rack: rack.to_string(), slots });
    }

    /// A node left. Its containers are released by the engine first.
    pub fn node_removed(&mut self, node: NodeId) {
        let Some(e) = self.nodes.get_mut(node as usize).and_then(Option::take) else { return };
        self.generation = next_generation();
        for (p, slot) in e.slots {
            self.partitions[p].clear_slot(slot);
        }
    }

    /// A node's labels or attributes changed (YARN node-attribute and
    /// node-label updates): re-index it in place.
    pub fn node_updated(&mut self, node: NodeId, labels: &[String], attributes: &[(String, String)]) {
        let Some(rack) = self.entry(node).map(|e| e.rack.clone()) else { return };
        self.node_added(node, &rack, labels, attributes);
    }

    /// A container with allocation `tags` of `app` was placed on `node`.
    pub fn container_added(&mut self, id: ContainerId, app: AppId, node: NodeId, tags: &[String]) {
        if tags.is_empty() {
            return;
        }
        let keys: Vec<TagKey> =
            tags.iter().flat_map(|t| [TagKey { app: Some(app), tag: t.clone() }, TagKey { app: None, tag: t.clone() }]).collect();
        for k in &keys {
            self.count(node, k, 1);
        }
        self.containers.insert(id, (node, keys));
    }

    /// A container ended (finished, rejected, released with its node).
    pub fn container_removed(&mut self, id: ContainerId) {
        let Some((node, keys)) = self.containers.remove(&id) else { return };
        for k in &keys {
            self.count(node, k, -1);
        }
    }

    /// The tags a container was counted under (tests, state view).
    pub fn container_tags(&self, id: ContainerId) -> Option<Vec<&str>> {
        self.containers.get(&id).map(|(_, keys)| keys.iter().filter(|k| k.app.is_some()).map(|k| k.tag.as_str()).collect())
    }

    fn count(&mut self, node: NodeId, key: &TagKey, delta: i32) {
        self.generation = next_generation();
        let e = self.node_tags.entry((node, key.clone())).or_insert(0);
        let from = *e;
        let to = (from as i64 + delta as i64).max(0) as u32;
        *e = to;
        if to == 0 {
            self.node_tags.remove(&(node, key.clone()));
        }
        if let Some(entry) = self.nodes.get(node as usize).and_then(Option::as_ref) {
            for &(p, slot) in &entry.slots {
                self.partitions[p].tag_count_changed(key, slot, from, to);
            }
            let racks = self.rack_tags.entry(key.clone()).or_default();
            let r = racks.entry(entry.rack.clone()).or_insert(0);
            *r = (*r as i64 + delta as i64).max(0) as u32;
            if *r == 0 {
                racks.remove(&entry.rack);
            }
        }
        let total = self.tag_totals.entry(key.clone()).or_insert(0);
        *total = (*total as i64 + delta as i64).max(0) as u32;
        if *total == 0 {
            // No live container carries it any more: drop its vectors (the
            // `self` keys of finished apps would otherwise pile up).
            self.tag_totals.remove(key);
            self.rack_tags.remove(key);
            for p in &mut self.partitions {
                p.tags.remove(key);
            }
        }
    }

    /// Index of partition `label`, if any node is (or was) in it.
    pub fn partition(&self, label: &str) -> Option<usize> {
        self.by_label.get(label).copied()
    }

    /// The slot of `node` in partition `p`.
    pub fn slot(&self, node: NodeId, p: usize) -> Option<usize> {
        self.entry(node)?.slots.iter().find(|(q, _)| *q == p).map(|(_, s)| *s)
    }

    fn entry(&self, node: NodeId) -> Option<&NodeEntry> {
        self.nodes.get(node as usize)?.as_ref()
    }

    /// Is `node` in `c` (one bit test)?
    pub fn contains(&self, c: &Candidates, node: NodeId) -> bool {
        self.slot(node, c.partition).is_some_and(|s| c.bits.get(s).is_some_and(|b| *b))
    }

    /// The nodes of partition `label` that satisfy `c` for `app` (Megha's
    /// Algorithm 1: start from all live nodes, AND each constraint's
    /// vector; OR inside one `or(...)`). `None`: no node is in that partition.
    pub fn candidates(&self, label: &str, app: AppId, c: &Constraint) -> Option<Candidates> {
        let pi = self.partition(label)?;
        let p = &self.partitions[pi];
        let bits = match c {
            Constraint::Leaf(l) => self.leaf(p, app, l),
            Constraint::And(ls) => {
                let mut acc = p.live.clone();
                for l in ls {
                    and(&mut acc, &self.leaf(p, app, l));
                }
                acc
            }
            Constraint::Or(ls) => {
                let mut acc = p.zeros();
                for l in ls {
                    or(&mut acc, &self.leaf(p, app, l));
                }
                acc
            }
        };
        Some(Candidates { partition: pi, bits })
    }

    /// Nodes (by id) of a candidate set, for tests and the state view.
    pub fn nodes_of(&self, c: &Candidates) -> Vec<NodeId> {
        let p = &self.partitions[c.partition];
        c.bits.iter_ones().filter_map(|s| p.slots.get(s).copied().flatten()).collect()
    }

    fn leaf(&self, p: &Partition, app: AppId, l: &Leaf) -> Bits {
        let mut acc = p.live.clone();
        match l {
            Leaf::Attr { name, op: AttrOp::In(values) } => {
                let mut any = p.zeros();
                for v in values {
                    if let Some(b) = p.attrs.get(&(name.clone(), v.clone())) {
                        or(&mut any, b);
                    }
                }
                and(&mut acc, &any);
            }
            Leaf::Attr { name, op: AttrOp::Ne(v) } => {
                if let Some(b) = p.attrs.get(&(name.clone(), v.clone())) {
                    and_not(&mut acc, b);
                }
            }
            Leaf::Partition { label } => match p.attrs.get(&(PARTITION_ATTR.to_string(), label.clone())) {
                Some(b) => and(&mut acc, b),
                None => acc = p.zeros(),
            },
            Leaf::Tags { scope, namespace, tags, min, max } => {
                let who = match namespace {
                    Namespace::SelfApp => Some(app),
                    Namespace::All => None,
                };
                for tag in tags {
                    let key = TagKey { app: who, tag: tag.clone() };
                    let v = match scope {
                        Scope::Node => self.node_bounds(p, &key, *min, *max),
                        Scope::Rack => self.rack_bounds(p, &key, *min, *max),
                    };
                    and(&mut acc, &v);
                }
            }
        }
        acc
    }

    /// Nodes with min ≤ count(key) ≤ max: `ge[min-1] ANDNOT ge[max]`.
    fn node_bounds(&self, p: &Partition, key: &TagKey, min: u32, max: u32) -> Bits {
        let mut v = if min == 0 {
            p.live.clone()
        } else {
            match p.at_least(key, min - 1) {
                Some(b) => b.clone(),
                None => return p.zeros(),
            }
        };
        if max != u32::MAX {
            if let Some(b) = p.at_least(key, max) {
                and_not(&mut v, b);
            }
        }
        v
    }

    /// Nodes whose rack holds between min and max containers with the tag.
    fn rack_bounds(&self, p: &Partition, key: &TagKey, min: u32, max: u32) -> Bits {
        let counts = self.rack_tags.get(key);
        let mut v = p.zeros();
        if min == 0 {
            v = p.live.clone();
            for r in counts.into_iter().flat_map(|c| c.keys()) {
                if let Some(b) = p.racks.get(r) {
                    and_not(&mut v, b);
                }
            }
        }
        for (r, c) in counts.into_iter().flat_map(|c| c.iter()) {
            if min <= *c && *c <= max {
                if let Some(b) = p.racks.get(r) {
                    or(&mut v, b);
                }
            }
        }
        v
    }

    /// Summary for the state view.
    pub fn state_json(&self) -> serde_json::Value {
        let parts: Vec<_> = self
            .partitions
            .iter()
            .map(|p| {
                serde_json::json!({
                    "partition": p.label,
                    "nodes": p.live.count_ones(),
                    "attribute_vectors": p.attrs.len(),
                    "tag_vectors": p.tags.values().map(Vec::len).sum::<usize>(),
                    "rack_vectors": p.racks.len(),
                })
            })
            .collect();
        serde_json::json!({
            "generation": self.generation,
            "partitions": parts,
            "tagged_containers": self.containers.len(),
        })
    }
}
