//! Megha's partitioned, optimistic allocation (§III–IV): the cluster is
//! split into partitions, each owned by one *authority* (Megha's Local
//! Master, LM) that alone commits allocations on its nodes; *proposers*
//! (Megha's Global Masters, GMs) place tasks from their own, possibly stale,
//! view of every partition's free resources and send each placement to the
//! owning authority, which validates it against the true state and commits
//! or rejects it. A rejection carries the partition's fresh state, the
//! proposer updates its view and tries again (eventual consistency: no
//! central store, no global lock).
//!
//! * [`authority`] — one partition's true state; validate-and-commit under
//!   its own lock, release.
//! * [`proposer`]  — a GM: stale view, round-robin over partitions (the
//!   paper's internal-partition order), propose, retry on rejection.
//!
//! What is here is the protocol on its own, exercised by many proposer
//! threads in `tests/megha_optimistic.rs` (no resource is ever
//! double-allocated; every rejected proposal is retried) and timed by
//! `shepherd bench-optimistic`. The rest of Megha lives where it is used:
//! in the RM, a scheduling round's proposers and the engine as their one
//! authority (`crate::engine::round`, `crate::engine::propose`); at scale,
//! GMs and LMs with repartitioning at resource granularity and fair-share
//! preemption, against a Sparrow-style baseline (`crate::sim::scale`).
//! Repartitioning and preemption exist only in the latter (docs/policies/megha.md,
//! "Limits").

pub mod authority;
pub mod proposer;

pub use authority::{Authority, Verdict};
pub use proposer::{Placed, Proposer, Unplaceable};
