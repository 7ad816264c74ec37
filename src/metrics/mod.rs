//! Metrics as the papers define them, collected while a simulation runs:
//!
//! * [`jobs`]      — per-job record: JCT, waiting time (submission → first task start), estimate.
//! * [`timeline`]  — time-weighted utilization (allocated and actually used) per window.
//! * [`fairness`]  — Jain's fairness index over 60 s windows (Carbyne §5 / DESIGN.md).
//! * [`stats`]     — mean and percentiles.
//! * [`latency`]   — allocation latency (ask → container) percentiles.
//! * [`summary`]   — the run's summary (all jobs and per category), serialized as JSON.
//! * [`outcome`]   — everything one run produces (summary, jobs, timeline, fairness), as plain data.
//! * [`compare`]   — factors of improvement against a baseline, per-job speedups.

pub mod compare;
pub mod fairness;
pub mod jobs;
pub mod latency;
pub mod outcome;
pub mod stats;
pub mod summary;
pub mod timeline;

pub use jobs::JobRecord;
pub use outcome::RunOutcome;
pub use summary::Summary;
