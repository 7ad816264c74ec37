//! Shepherd: a YARN-compatible scheduling engine.
//!
//! * [`model`]   — the cluster as the scheduler sees it (nodes, apps, asks, containers, queues),
//!   and placement constraints as per-partition bit-vectors (Megha, `model::constraint`).
//! * [`event`]   — the vocabulary between drivers and the engine: events in, decisions out.
//! * [`engine`]  — the one event-in / decisions-out core.
//! * [`policy`]  — scheduling policies as pipelines of plugins at the pass's extension points.
//! * [`config`]  — Shepherd's config file, validated with errors that name key and value.
//! * [`bridge`]  — the JNI entry points the Java shim calls, and their wire format.
//! * [`control`] — the control channel the sidecar talks to the engine over.
//! * [`sidecar`] — `shepherd sidecar`: RM poller, Prometheus metrics, JSON API, status page.
//! * [`bench`]   — benchmarks that print numbers.
//! * [`sim`]     — the trace-driven simulator that drives the same engine.
//! * [`workload`] — trace formats (Shepherd JSON, SLS, SWIM) and seeded generators.
//! * [`metrics`] — JCT, waiting time, makespan, utilization, fairness, estimation error.
//! * [`report`]  — JSON/CSV/SVG output, comparison tables, progress bar.
//! * [`megha`]   — Megha's partitioned optimistic allocation: partition authorities validate proposals from stale views.
//! * [`harness`] — metrics, tables and plots of repeated runs on a real YARN cluster (`shepherd yarn-report`).

mod allocator;
pub mod bench;
pub mod bridge;
pub mod config;
pub mod control;
pub mod engine;
pub mod event;
pub mod harness;
pub mod megha;
pub mod metrics;
pub mod model;
pub mod policy;
pub mod report;
pub mod sidecar;
pub mod sim;
pub mod workload;

pub use config::Config;
pub use engine::{Decision, Engine, Event};
