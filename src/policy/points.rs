//! The extension points: one small trait each. A plugin implements
//! [`Plugin`] (what every plugin may observe and report) and the trait of
//! the point it serves; it implements only the hooks it needs.
//!
//! Each fact reaches a plugin through one hook, once:
//!
//! | fact | hook | when |
//! |---|---|---|
//! | a container finished (`Event::ContainerFinished`) | [`Plugin::on_container_finished`] | before the engine releases it: it is still in the state, booked on its node and app |
//! | an app left (`Event::AppRemoved`) | [`Plugin::on_app_removed`] | after the engine removed it and released its containers: its final record |
//! | an app moves to a queue another pipeline serves (`Event::AppMoved`) | [`Plugin::on_app_moved_out`], the old queue's plugins | before the move |
//! | an app moved in (`Event::AppMoved`) | [`Plugin::on_event`], the new queue's plugins (the one pipeline's under a flat queue order) | after the move |
//! | the engine allocated a container (its own decision, no event) | [`Plugin::on_allocated`] | after it booked it |
//! | anything else (nodes, apps added, asks, attempts, launches, …) | [`Plugin::on_event`] | after the engine applied it |
//!
//! `on_event` is never handed `ContainerFinished` or `AppRemoved`
//! (`PolicySet::on_event`).

use super::{Gauge, Scope, SortKey};
use crate::event::Event;
use crate::model::{App, Ask, ClusterState, Container, Node, NodeId, Queue, Resources, SchedulerKey};

/// What a plugin's hooks see: the cluster, the scope its pipeline serves
/// (the whole cluster or one queue) and that pipeline's size estimates.
#[derive(Clone, Copy)]
pub struct Ctx<'a> {
    pub state: &'a ClusterState,
    pub scope: Scope,
    pub estimator: &'a dyn Estimator,
}

impl<'a> Ctx<'a> {
    pub fn estimate(&self, app: &App) -> Option<Estimate> {
        self.estimator.estimate(self.state, app)
    }

    /// The estimator's sampling plan for `app`, if it samples (SLearn).
    pub fn sampling(&self, app: &App) -> Option<Sampling> {
        self.estimator.sampling(app)
    }
}

/// Base of every plugin: observers, periodic work, and the operator's view.
/// Observers see only what concerns their pipeline (events of apps in
/// other queues go to those queues' pipelines); estimators see everything.
pub trait Plugin: Send + Sync {
    fn name(&self) -> &'static str;

    /// Every event, after the engine applied it to the state, but the two
    /// facts with hooks of their own: `ContainerFinished`
    /// (`on_container_finished`) and `AppRemoved` (`on_app_removed`).
    fn on_event(&mut self, _ctx: &Ctx, _event: &Event) {}

    /// The engine committed a container (before the pass goes on).
    fn on_allocated(&mut self, _ctx: &Ctx, _container: &Container) {}

    /// A container finished at `at_ms` with `exit_status` (the only way
    /// this fact arrives). Called before the engine releases it: it is
    /// still in the state with its timestamps, booked on its node and app.
    fn on_container_finished(&mut self, _ctx: &Ctx, _container: &Container, _exit_status: i32, _at_ms: i64) {}

    /// An application left (the only way this fact arrives); `app` is its
    /// final record (its containers are released, so `app.attained_ms(now)`
    /// is its whole service) and the state no longer has it.
    fn on_app_removed(&mut self, _ctx: &Ctx, _app: &App) {}

    /// The app is moving to a queue this plugin does not serve (`app` still
    /// names the old queue). It has not finished: drop what is held for it
    /// and learn nothing from it. The new queue's plugins then see
    /// `Event::AppMoved` and take it on as they take on the running apps of
    /// a pipeline switched in at run time.
    fn on_app_moved_out(&mut self, _ctx: &Ctx, _app: &App) {}

    /// When the plugin's periodic step is next due (`i64::MIN` = at the
    /// first opportunity), or `None` for plugins without one. Drivers use
    /// it to wake the engine on time instead of heartbeating every node.
    fn next_tick_ms(&self) -> Option<i64> {
        None
    }

    /// Run the periodic step due at `now_ms`. Returns true when it may
    /// change what a pass decides (e.g. δ moved), so a driver that skips
    /// idle heartbeats knows to offer the nodes again.
    fn tick(&mut self, _ctx: &Ctx, _now_ms: i64) -> bool {
        false
    }

    /// Start of a pass for `node`: refresh what the hooks below read.
    /// A plugin whose `prepare` keeps state across passes declares
    /// `Capabilities::prepare_moves_state`.
    fn prepare(&mut self, _ctx: &Ctx, _node: NodeId) {}

    /// `node` reported the same utilization `used` at each of `times`
    /// (ascending, none after the engine's clock): heartbeats of a quiet
    /// node that a driver folded (`Engine::fold_heartbeats`), handed over
    /// together before anything reads them. A plugin that reads
    /// `Event::NodeUtilization` must take each as that event at its time.
    fn on_utilization_run(&mut self, _ctx: &Ctx, _node: NodeId, _used: &Resources, _times: &[i64]) {}

    /// Until when (ms, inclusive) the plugin reads the same of `node`
    /// without more samples `used` after those it has as with them: a
    /// driver holding a quiet node's folded heartbeats (each that sample,
    /// none later than the step) may run a periodic step up to then
    /// without handing them over, and hand them over later, together with
    /// the rest. `i64::MAX`: the plugin reads no utilization;
    /// `i64::MIN`: every step needs them. A plugin that takes
    /// `on_utilization_run` answers this too.
    fn utilization_unread_until(&self, _ctx: &Ctx, _node: NodeId, _used: &Resources) -> i64 {
        i64::MAX
    }

    /// What the plugin promises about how its answers move, so the engine
    /// may keep what it computed from them. Read once, when the plugin is
    /// built: constant for the plugin's lifetime.
    fn capabilities(&self) -> Capabilities {
        Capabilities::NONE
    }

    /// The plugin's own state for the JSON view.
    fn state_json(&self, _ctx: &Ctx) -> serde_json::Value {
        serde_json::Value::Null
    }

    /// What the plugin knows about one app, for the apps of the JSON view.
    fn app_json(&self, _ctx: &Ctx, _app: &App) -> Option<serde_json::Value> {
        None
    }

    /// Metrics (names without the `shepherd_` prefix, ending in their unit).
    fn gauges(&self, _ctx: &Ctx) -> Vec<Gauge> {
        Vec::new()
    }
}

/// An app's size as an estimator sees it, in container-milliseconds.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct Estimate {
    /// Total work of the app.
    pub size_ms: f64,
    /// Work still to do, given the service it attained so far.
    pub remaining_ms: f64,
    /// 0 = a prior (nothing is known about this app; orders still use it),
    /// 1 = exact. Only estimates with confidence > 0 are reported as
    /// predictions (estimation error, `JobRecord::estimate_ms`).
    pub confidence: f64,
}

/// Where an estimator that learns an app's size from its own first tasks
/// (SLearn's pilot tasks, §5.1.2) stands with that app. GS places the app
/// by it; the `pilots` classifier gates the app's asks by it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case", tag = "phase")]
pub enum Sampling {
    /// First stage narrower than thinLimit: not sampled (top queue).
    Thin,
    /// Sampling: at most `wanted` containers of `key` (the first stage)
    /// run until those pilots finish; `placed` of them have a container.
    Pilots { key: SchedulerKey, wanted: u32, placed: u32 },
    /// The pilots finished: the estimate places the app.
    Estimated,
    /// Not sampled after all: its containers are not tasks (an app type
    /// that runs executors or services, or pilots that never finish).
    FellBack,
}

/// *Estimate*: how big is an app, how much is left.
pub trait Estimator: Plugin {
    /// `None` when the estimator knows nothing usable (size orders put the
    /// app last).
    fn estimate(&self, state: &ClusterState, app: &App) -> Option<Estimate>;

    /// Expected runtime (ms) of one more task of `app` asked under scheduler
    /// key `key` (`None`: any of its tasks), with the confidence in it (as
    /// [`Estimate::confidence`]), for plugins that plan task by task
    /// (Carbyne's reverse packing). `None`: this estimator does not know.
    fn task_ms(&self, _app: &App, _key: Option<SchedulerKey>) -> Option<(f64, f64)> {
        None
    }
    /// The sampling plan for `app`; `None` for estimators that do not
    /// sample (and for apps that have not asked for a task yet).
    fn sampling(&self, _app: &App) -> Option<Sampling> {
        None
    }

    /// True when the prediction that places an app is made after its
    /// admission, from its own first tasks (SLearn): a driver recording
    /// "the estimate" should take the first confident one, not the one at
    /// admission.
    fn predicts_after_admission(&self) -> bool {
        false
    }
}

/// *Reserve / partition*: a plugin that splits its scope's share into
/// pools and keeps each app inside its pool.
pub trait Reserve: Plugin {
    /// Pool names, in the order their apps are served when the pipeline
    /// orders each pool on its own (`pool_order`).
    fn pools(&self) -> &'static [&'static str];

    /// The pool `app` belongs to (an index into `pools`), if decided.
    fn pool_of(&self, app: &App) -> Option<usize>;

    /// May `app` take one more container for `ask` now?
    fn admits(&self, ctx: &Ctx, app: &App, ask: &Ask) -> bool;
}

/// *Queue order*: how queues share the cluster (the root's choice).
pub trait QueueOrder: Plugin {
    fn key(&self, state: &ClusterState, queue: &Queue) -> SortKey;
}

/// Promises a plugin makes about how its answers move between events, each
/// letting the engine keep something it computed instead of computing it
/// again (`Plugin::capabilities`). The default ([`Capabilities::NONE`])
/// promises nothing; each field concerns the plugins of one point, or of
/// every point.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Capabilities {
    /// Any point: the plugin does nothing there (`reserve = "none"`,
    /// `queue_order = "flat"`, `leftover = "none"`, `oversubscribe =
    /// "none"`: `crate::policy::noop`), so the engine skips the point
    /// altogether — no reserve check, no queue level, no leftover phase,
    /// no speculative phase, nothing to observe — and the views (state
    /// JSON, gauges) leave it out.
    pub noop: bool,
    /// Any point: what `prepare` refreshes depends on the node (Tetris
    /// scores apps against the node's free capacity). A parallel round
    /// prepares once for all its proposers, so the engine schedules a
    /// pipeline with such a plugin by the serial round instead
    /// (`PolicySet::allows_parallel_passes`).
    pub prepares_per_node: bool,
    /// Any point: `prepare` moves the plugin's own state with the clock
    /// (DRESS's classification, GS's recount, Carbyne's plans made at the
    /// pass's time), so every pass counts, even one that places nothing:
    /// a driver may not fold the heartbeats of a quiet node
    /// (`Engine::quiet_room`, the simulator's quiet nodes).
    pub prepare_moves_state: bool,
    /// Estimators: an app's estimate moves only with the app's own
    /// containers between events (the estimator learns from finished
    /// containers and submissions, both events), so an order that reads it
    /// may declare `KeyMoves::OwnContainers` and a round may keep its
    /// candidate heap over its nodes (`PolicySet::allows_shared_candidates`).
    /// SLearn's does not: it books sampled tasks as they are allocated.
    pub estimates_move_only_with_own_containers: bool,
    /// Reserves: `pool_of` changes only with events and periodic steps,
    /// and in a pass's `prepare` that follows one, never with containers
    /// allocated: a round may then keep apps keyed by pool over its nodes
    /// (`PolicySet::allows_shared_candidates`).
    pub pools_move_only_with_events: bool,
    /// App orders: an app's key depends on what other apps are allocated
    /// (GS: its priority queue's usage), so a key computed earlier in the
    /// pass may be too low by the time the app comes up: the pass then
    /// re-keys it and puts it back if its key grew, instead of trusting the
    /// key it keeps in its candidate heap (`engine::candidates`). Such
    /// keys also rule out parallel rounds.
    pub keys_go_stale: bool,
    /// App orders: what may move an app's key while the engine schedules
    /// with no event in between (a round's passes over the nodes it
    /// visits). When only the app's own containers move it, a round may
    /// keep one candidate heap over every node it visits instead of keying
    /// every app again on every node (`engine::round`,
    /// `PolicySet::allows_shared_candidates`).
    pub key_moves: KeyMoves,
    /// App orders: how many *levels* the order ranks apps in (GS: its
    /// priority queues), 0 for an order without levels. An order with
    /// levels promises that every app of a level shares its key's
    /// `primary` (the level's load), and that an allocation to one app
    /// moves no other app's key but through that shared `primary`. The
    /// pass then keeps each level's candidates apart, ordered by the rest
    /// of their keys, and reads each level's `primary` once per container
    /// (`AppOrder::level_primary`), where otherwise it would re-key every
    /// candidate of the level that became stale (`keys_go_stale`). Same
    /// decisions, O(levels) per container.
    pub levels: usize,
}

impl Capabilities {
    /// Nothing promised.
    pub const NONE: Capabilities = Capabilities {
        noop: false,
        prepares_per_node: false,
        prepare_moves_state: false,
        estimates_move_only_with_own_containers: false,
        pools_move_only_with_events: false,
        keys_go_stale: false,
        key_moves: KeyMoves::Undeclared,
        levels: 0,
    };
}

impl Default for Capabilities {
    fn default() -> Self {
        Capabilities::NONE
    }
}

/// What may move an app's key between two events (`Capabilities::key_moves`).
/// Besides what is named, a key may read what stays fixed while the
/// engine schedules with no event in between: the cluster's capacity, the
/// clock, the pipeline's estimate (when its estimator's estimates move
/// likewise, `Capabilities::estimates_move_only_with_own_containers`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyMoves {
    /// Not declared, or other apps' containers or the node move it too
    /// (GS: its priority queue's usage; Tetris: the node's free space).
    Undeclared,
    /// Only the app's own containers, either way (remaining-work orders:
    /// a task started is one fewer outstanding). A round's kept heap is
    /// exact when nothing but the main phase, which re-keys the app it
    /// serves, gives the app a container.
    OwnContainers,
    /// Only the app's own containers, and never down (DRF's dominant
    /// share, FIFO's fixed key, attained service). Exact also when a
    /// leftover phase serves the app without re-keying it: the heap then
    /// re-keys it when it comes up (`Candidates::pop`).
    OwnContainersUpward,
}

/// *App order*: which application is served next. Re-evaluated after
/// every container the app gets.
pub trait AppOrder: Plugin {
    fn key(&self, ctx: &Ctx, app: &App) -> SortKey;

    /// The level `app` is in and its key (one level without levels,
    /// `Capabilities::levels`).
    fn levelled_key(&self, ctx: &Ctx, app: &App) -> (usize, SortKey) {
        (0, self.key(ctx, app))
    }

    /// The `primary` of every key in `level` now.
    fn level_primary(&self, _level: usize) -> f64 {
        0.0
    }
}

/// *Classify asks*: which outstanding asks must run now (DEFAULT) and which
/// may wait for leftover capacity (ALTRUISTIC).
pub trait AskClassifier: Plugin {
    fn is_default(&self, ctx: &Ctx, app: &App, ask: &Ask) -> bool;

    /// In the leftover phase: may this held-back ask take what is left of
    /// `node` now? (Carbyne's leftover lease refuses a loan its lenders
    /// cannot spare until the task ends.) The pass asks every classifier.
    fn may_take_leftover(&self, _ctx: &Ctx, _app: &App, _ask: &Ask, _node: &Node) -> bool {
        true
    }
}

/// *Filter*: may this ask go on this node? (The engine already checked
/// fit, locality, node label and the queue's maximum.)
pub trait Filter: Plugin {
    fn fits(&self, ctx: &Ctx, app: &App, ask: &Ask, node: &Node) -> bool;
}

/// *Leftover*: the order in which asks the main phase held back get what
/// it left on the node.
pub trait Leftover: Plugin {
    fn key(&self, ctx: &Ctx, app: &App, ask: &Ask, node: &Node) -> SortKey;

    /// How many nodes the pipeline may hold at once for the first ask of
    /// this order that does not fit (`engine::pass`); 0 = none.
    fn holds(&self) -> usize {
        0
    }
}

/// *Oversubscribe*: speculative containers beyond the allocated view, on
/// capacity that is allocated but idle (ROSE). Runs after the main and
/// leftover phases of a pass; its containers are OPPORTUNISTIC, booked in
/// `Node::oversubscribed`, and the plugin takes them back (newest first)
/// when the node's measured use crosses its bound.
pub trait Oversubscribe: Plugin {
    /// What `node` may still take in speculative containers now (memory
    /// MB, vcores), or `None` when it must not be over-subscribed (no or a
    /// stale load estimate, not a candidate, over its bound).
    fn headroom(&self, ctx: &Ctx, node: &Node) -> Option<crate::model::Resources>;

    /// May this ask of `app` run speculatively (the pipeline's apps; never
    /// an ApplicationMaster)?
    fn admits(&self, ctx: &Ctx, app: &App, ask: &Ask) -> bool;

    /// Speculative containers on `node` to take back now, in order (start
    /// of a pass, before anything is placed). The engine emits a
    /// `Decision::Preempt` for each.
    fn evictions(&mut self, _ctx: &Ctx, _node: &Node) -> Vec<crate::model::ContainerId> {
        Vec::new()
    }
}
