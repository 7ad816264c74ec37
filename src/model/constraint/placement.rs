//! What a placement constraint says, in the forms Shepherd matches: YARN's
//! `PlacementConstraint` (Hadoop 3.1+, sent by AMs as `SchedulingRequest`s
//! through `allocate`) reduced to node attributes, node partition and
//! allocation-tag cardinality at NODE or RACK scope, combined by at most one
//! level of AND/OR.
//!
//! [`Constraint::holds`] is the per-node definition (the naive check the
//! bit-vector index in `super::index` must agree with; the property test in
//! `tests/constraints.rs` holds them to it).

use serde::Serialize;

/// Where the allocation tags of a target are counted (YARN
/// `PlacementConstraints.NODE` / `RACK`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Scope {
    Node,
    Rack,
}

/// Whose containers' tags count (YARN `AllocationTagNamespaceType`). Only
/// `self` (the default: the asking app's own containers) and `all` are
/// supported; `not-self`, `app-id/…` and `app-tag/…` are rejected.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Namespace {
    SelfApp,
    All,
}

/// A node-attribute test (YARN `NodeAttributeOpCode` EQ / NE, and `in` as
/// the OR of EQs YARN writes with several values).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum AttrOp {
    /// The node has the attribute with one of these values (one value = EQ).
    In(Vec<String>),
    /// The node does not have the attribute with this value (a node without
    /// the attribute passes, as in YARN's `PlacementConstraintsUtil`).
    Ne(String),
}

/// One constraint leaf.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum Leaf {
    Attr {
        name: String,
        op: AttrOp,
    },
    /// The node is in this partition (node label; "" = the default partition).
    Partition {
        label: String,
    },
    /// Every one of `tags` has between `min` and `max` (inclusive) live
    /// containers in the node's `scope` (YARN `cardinality`; `in` is min 1,
    /// `notin` (anti-affinity) is max 0). YARN checks each tag of a target
    /// against the bounds (`PlacementConstraintsUtil` takes the minimum over
    /// the tags for `min`, the maximum for `max`), which is this AND.
    Tags {
        scope: Scope,
        namespace: Namespace,
        tags: Vec<String>,
        min: u32,
        max: u32,
    },
}

/// A constraint: one leaf, or one level of AND/OR over leaves.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Constraint {
    Leaf(Leaf),
    And(Vec<Leaf>),
    Or(Vec<Leaf>),
}

/// What an ask brings from its `SchedulingRequest`: the tags its containers
/// will carry and the constraint they must be placed under. A form Shepherd
/// cannot match is kept as `rejected` (the shim refuses it at `allocate`
/// already; the engine never places such an ask).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Placement {
    pub tags: Vec<String>,
    /// The constraint as the shim sent it (`super::text`).
    pub text: String,
    pub constraint: Option<Constraint>,
    /// Why the constraint was not accepted (names the form).
    pub rejected: Option<String>,
}

impl Placement {
    /// Tags and the constraint's text form (`super::text`); an unsupported
    /// form is kept as `rejected`.
    pub fn from_text(tags: Vec<String>, text: &str) -> Placement {
        let t = text.to_string();
        if text.trim().is_empty() {
            return Placement { tags, text: t, constraint: None, rejected: None };
        }
        match super::text::parse(text) {
            Ok(c) => Placement { tags, text: t, constraint: Some(c), rejected: None },
            Err(e) => Placement { tags, text: t, constraint: None, rejected: Some(e.to_string()) },
        }
    }
}

/// What [`Constraint::holds`] needs to know of one node.
pub struct NodeView<'a> {
    pub partitions: &'a [String],
    pub attributes: &'a dyn Fn(&str) -> Option<&'a str>,
    /// Live containers with `tag` in `scope` around this node, counting
    /// only the app `app` (namespace self) or every app (`None`).
    pub tag_count: &'a dyn Fn(Scope, Option<u32>, &str) -> u32,
}

impl Leaf {
    /// The per-node definition. `app`: the asking application.
    pub fn holds(&self, app: u32, n: &NodeView) -> bool {
        match self {
            Leaf::Attr { name, op } => {
                let have = (n.attributes)(name);
                match op {
                    AttrOp::In(values) => have.is_some_and(|h| values.iter().any(|v| v == h)),
                    AttrOp::Ne(v) => have != Some(v.as_str()),
                }
            }
            Leaf::Partition { label } => n.partitions.iter().any(|p| p == label),
            Leaf::Tags { scope, namespace, tags, min, max } => {
                let who = match namespace {
                    Namespace::SelfApp => Some(app),
                    Namespace::All => None,
                };
                tags.iter().all(|t| {
                    let c = (n.tag_count)(*scope, who, t);
                    *min <= c && c <= *max
                })
            }
        }
    }
}

impl Constraint {
    pub fn holds(&self, app: u32, n: &NodeView) -> bool {
        match self {
            Constraint::Leaf(l) => l.holds(app, n),
            Constraint::And(ls) => ls.iter().all(|l| l.holds(app, n)),
            Constraint::Or(ls) => ls.iter().any(|l| l.holds(app, n)),
        }
    }

    pub fn leaves(&self) -> &[Leaf] {
        match self {
            Constraint::Leaf(l) => std::slice::from_ref(l),
            Constraint::And(ls) | Constraint::Or(ls) => ls,
        }
    }
}
