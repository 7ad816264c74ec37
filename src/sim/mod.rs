//! Trace-driven, deterministic discrete-event simulator of a YARN cluster that
//! drives the same [`Engine`](crate::Engine) the JNI bridge drives.
//!
//! * [`options`] — knobs (heartbeat interval, slow-start, gang start, ...).
//! * [`event_queue`] — the simulators' one event queue (time, then insertion order: deterministic).
//! * [`clock`]   — the simulator's events, its clock (an event queue) and the heartbeat grid.
//! * [`cluster`] — NodeManagers: start-up events and which nodes are worth a heartbeat.
//! * [`am`]      — one ApplicationMaster per job, asking stage by stage; its lifecycle in a run.
//! * [`calibration`] — the cluster-side model: AM containers, launch and tear-down times, heartbeat phases.
//! * [`run`]     — the event loop: arrivals, task ends, heartbeat rounds.
//! * [`quiet`]   — heartbeats of nodes on which nothing can change, folded under an over-subscribing policy.
//! * [`host`]    — CPU contention: start-ups on a shared host, work on an over-subscribed node.
//! * [`eviction`] — ROSE's speculative containers, and their eviction.
//! * [`recorder`] — what a run records (job records, utilization timeline, shares, latencies) and its [`RunOutcome`](crate::metrics::RunOutcome).
//! * [`sls`]     — `--cluster-model sls`: Hadoop SLS's AM and NM clocks instead of a real cluster's times.
//! * [`parallel`] — independent runs (a comparison's policies and seeds) on a few threads.

pub mod am;
pub mod calibration;
pub mod clock;
pub mod cluster;
pub mod event_queue;
pub mod eviction;
pub mod experiment;
pub mod host;
pub mod options;
pub mod parallel;
mod quiet;
pub mod recorder;
pub mod run;
pub mod scale;
pub mod sls;

pub use options::SimOptions;
pub use run::simulate;
