//! Shepherd: a YARN-compatible scheduling engine.
//!
//! * [`model`]   — the cluster as the scheduler sees it (nodes, apps, asks, containers, queues).
//! * [`engine`]  — the one event-in / decisions-out core.
//! * [`policy`]  — scheduling policies as hooks into the engine's pass.
//! * [`config`]  — Shepherd's config file, validated with errors that name key and value.
//! * [`bridge`]  — the JNI entry points the Java shim calls, and their wire format.
//! * [`bench`]   — benchmarks that print numbers.

pub mod bench;
pub mod bridge;
pub mod config;
pub mod engine;
pub mod model;
pub mod policy;

pub use config::Config;
pub use engine::{Decision, Engine, Event};
