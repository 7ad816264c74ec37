//! Scheduling policies as pipelines of small plugins at named extension
//! points, in the manner of the Kubernetes scheduling framework: a policy is
//! not a struct that implements everything but a named list of plugins, one
//! (or, for filters, several) per point, and each queue names its pipeline.
//!
//! One NodeManager heartbeat is one pass of `crate::engine`, which calls the
//! points in this fixed order, so one ask can be followed from arrival to
//! container without reading any policy:
//!
//! ```text
//!  events ──► observe (every plugin sees what changed; estimators learn)
//!  heartbeat(node, now)
//!   1 tick         periodic steps that are due (DRESS Algorithm 3 moves δ)
//!   2 prepare      per-pass figures (pool usage, the node's free vector)
//!   2b evict       speculative containers the oversubscribe plugin   [none rose]
//!                  takes back (measured use over its bound)
//!   3 queue order  which queue is served next                  [root: flat | drf | capacity]
//!   4 app order    which app of that queue next, by the         [fifo drf sjf srtf las tetris gs,
//!                  pipeline's estimate point for size orders      per pool via pool_order]
//!   5 classify     which of the app's asks are DEFAULT now       [carbyne pilots]
//!   6 reserve      may the app grow in its partition (pools)     [none dress]
//!   7 filter       may the ask go on this node                   [engine: fit, locality, label,
//!                                                                  queue max; plugins: constraints]
//!   8 commit       container allocated; every plugin observes it
//!      ... repeat 3-8 until no app can place anything on the node ...
//!   9 leftover     what is left of the node goes to the asks the  [none carbyne fifo]
//!                  main phase held back, in the leftover order
//!  10 oversubscribe speculative (OPPORTUNISTIC) containers beyond the [none rose]
//!                  allocated view, within the node's headroom, app order
//! ```
//!
//! * [`points`] — the traits, one per point, and the base [`points::Plugin`].
//! * [`scope`]  — what a pipeline serves: the whole cluster or one queue.
//! * [`set`]    — the engine's policies: the queue order, the shared
//!   estimators and one pipeline per queue (one for the cluster when the
//!   queue order is flat); built from the config, rebuilt in place on
//!   `-refreshQueues` keeping every plugin whose configuration is unchanged.
//! * [`registry`] — the implementation of each entry of the plugin registry,
//!   and a plugin's identity (what decides whether `-refreshQueues` keeps it).
//! * [`estimate`], [`order`], [`dress`], [`carbyne`], [`slearn`], [`rose`],
//!   [`constraints`] — the plugins; [`noop`] — those of the points a
//!   pipeline leaves empty.
//!
//! Which names exist, the points each serves and its configuration are the
//! plugin registry's (`crate::config::plugins`); which combinations are
//! allowed is configuration too (`crate::config::pipeline`); this module
//! holds the implementations.

pub mod carbyne;
pub mod constraints;
pub mod dress;
pub mod estimate;
pub mod gauge;
pub mod noop;
pub mod order;
pub mod points;
pub mod registry;
pub mod rose;
pub mod scope;
pub mod set;
pub mod slearn;
pub mod sort_key;
#[cfg(test)]
mod tests;

pub use gauge::{metric_part, Gauge, GaugeKind};
pub use points::{
    AppOrder, AskClassifier, Capabilities, Ctx, Estimate, Estimator, Filter, KeyMoves, Leftover, Oversubscribe, Plugin, QueueOrder,
    Reserve, Sampling,
};
pub use scope::Scope;
pub use set::{Pipeline, PolicySet};
pub use sort_key::SortKey;

use crate::model::App;

/// The value of a `key=value` application tag (how the simulator passes
/// oracle sizes, e.g. `shepherd.oracle.work_ms=12345`, the YARN-native way).
pub fn tag_value(app: &App, key: &str) -> Option<f64> {
    app.tags.iter().find_map(|t| t.strip_prefix(key)?.strip_prefix('=')?.trim().parse().ok())
}

/// Oracle size tag the simulator sets: the job's total task time in ms.
pub const ORACLE_WORK_TAG: &str = "shepherd.oracle.work_ms";
