//! Benchmarks that print numbers (never asserted in tests).
//!
//! * [`heartbeat`] — engine decision time per node heartbeat at cluster scale,
//!   measured through the same `Session::step` the JNI bridge calls.
//! * [`constraints`] — placement-constraint matching: bit-vectors against the per-node check.

pub mod constraints;
pub mod heartbeat;
