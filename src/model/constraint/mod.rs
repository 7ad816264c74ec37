//! Placement constraints (Megha, issue 14): YARN node attributes, node
//! partitions and allocation-tag affinity / anti-affinity / cardinality,
//! matched as bit-vectors.
//!
//! * [`placement`] — what a constraint says, and its per-node definition.
//! * [`text`]  — the text form on the JNI wire; unsupported forms rejected by name.
//! * [`index`] — per-partition bit-vectors kept incrementally; a constraint
//!   compiles to AND / ANDNOT / OR of them (Megha §IV-B, Algorithm 1).
//!
//! The `constraints` filter plugin (`crate::policy::constraints`) consults
//! the index the engine keeps in `ClusterState`.

pub mod index;
pub mod placement;
pub mod text;

pub use index::{Candidates, ConstraintIndex};
pub use placement::{AttrOp, Constraint, Leaf, Namespace, Placement, Scope};
pub use text::Unsupported;
