//! Benchmarks that print numbers (never asserted in tests).
//!
//! * [`heartbeat`] — engine decision time per node heartbeat at cluster scale,
//!   measured through the same `Session::step` the JNI bridge calls.
//! * [`optimistic`] — Megha's partition authorities vs one central authority, many proposer threads.
//! * [`constraints`] — placement-constraint matching: bit-vectors against the per-node check.
//! * [`round`] — scheduling rounds between heartbeats, one proposer against several.

mod busy_cluster;
pub mod constraints;
pub mod heartbeat;
pub mod optimistic;
pub mod round;
