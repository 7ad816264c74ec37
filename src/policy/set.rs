//! The engine's policies: how queues share the cluster, the estimators
//! (shared by every pipeline that names one), and the pipelines — one per
//! queue, or one for the whole cluster when the queue order is flat.
//!
//! Everything the engine's pass asks a policy goes through here, so the pass
//! never names a plugin; everything a plugin observes arrives through here,
//! routed to the pipeline whose scope the event concerns.

mod build;

use super::estimate::NoEstimate;
use super::points::{Capabilities, Ctx, Estimate, Estimator, Plugin};
use super::registry::Slot;
use super::{AppOrder, AskClassifier, Filter, Gauge, KeyMoves, Leftover, Oversubscribe, QueueOrder, Reserve, Scope, SortKey};
use crate::config::PipelineSpec;
use crate::event::Event;
use crate::model::{App, Ask, Blocked, ClusterState, Container, Node, NodeId, Queue, QueueId, Resources};

/// One pipeline: the plugin at each point for one scope.
pub struct Pipeline {
    /// The queue it serves, or `root` for all (flat queue order).
    pub queue: String,
    /// The policy name it was built from (built-in or `[pipeline.NAME]`).
    pub policy: String,
    pub spec: PipelineSpec,
    pub scope: Scope,
    estimator: usize,
    /// The optional points hold a no-op plugin when the spec names none
    /// (`crate::policy::noop`, `Capabilities::noop`): the pass skips them.
    reserve: Slot<dyn Reserve>,
    app_order: Slot<dyn AppOrder>,
    /// Per pool of the reserve (by index): the order replacing `app_order`.
    pool_orders: Vec<Option<Slot<dyn AppOrder>>>,
    classify: Vec<Slot<dyn AskClassifier>>,
    filters: Vec<Slot<dyn Filter>>,
    leftover: Slot<dyn Leftover>,
    oversubscribe: Slot<dyn Oversubscribe>,
}

pub struct PolicySet {
    /// `flat` (a no-op): no queue level, one pipeline for the cluster.
    queue_order: Slot<dyn QueueOrder>,
    estimators: Vec<Slot<dyn Estimator>>,
    pipelines: Vec<Pipeline>,
    /// Testing only: see `set_flat_candidates`.
    flat_candidates: bool,
    /// `prepare_moves_state()`, found once when the set is built: the
    /// plugins' capabilities do not change, and a driver asks for every
    /// node it may fold the heartbeats of (`Engine::quiet_room`).
    prepare_moves_state: bool,
}

static NO_ESTIMATE: NoEstimate = NoEstimate;

impl Pipeline {
    /// Do its app orders' keys move with other apps' allocations (GS)?
    fn keys_go_stale(&self) -> bool {
        self.app_order.caps.keys_go_stale || self.pool_orders.iter().flatten().any(|o| o.caps.keys_go_stale)
    }

    /// Between events, does an app's key in this pipeline move only with
    /// the app's own containers, in a way a round's kept heap follows?
    /// Every order that ranks it (the app order, each pool's) says so
    /// (`Capabilities::key_moves`), reading an estimate that moves likewise;
    /// the reserve's pools, which group the keys, move only with events;
    /// an order whose keys may fall ranks only apps nothing but the main
    /// phase serves (a leftover phase would give one a container without
    /// re-keying it, and the heap re-keys only keys that grew); and it has
    /// no levels (the pass re-keys only a flat heap).
    fn keys_move_only_with_own_containers(&self, estimators: &[Slot<dyn Estimator>]) -> bool {
        let orders = std::iter::once(&self.app_order).chain(self.pool_orders.iter().flatten());
        let estimate_ok = estimators[self.estimator].caps.estimates_move_only_with_own_containers;
        let pools_ok = self.pooling_reserve().is_none_or(|r| r.caps.pools_move_only_with_events);
        let orders_ok = orders.map(|o| o.caps.key_moves).all(|m| match m {
            KeyMoves::Undeclared => false,
            KeyMoves::OwnContainers => self.leftover.caps.noop,
            KeyMoves::OwnContainersUpward => true,
        });
        estimate_ok && pools_ok && orders_ok && self.levels() == 0
    }

    /// Visit every plugin of the pipeline but the no-ops (not the shared
    /// estimator).
    fn each_mut(&mut self, f: &mut dyn FnMut(&mut dyn Plugin)) {
        if !self.reserve.caps.noop {
            f(self.reserve.plugin.as_mut());
        }
        f(self.app_order.plugin.as_mut());
        for o in self.pool_orders.iter_mut().flatten() {
            f(o.plugin.as_mut());
        }
        for c in &mut self.classify {
            f(c.plugin.as_mut());
        }
        for x in &mut self.filters {
            f(x.plugin.as_mut());
        }
        if !self.leftover.caps.noop {
            f(self.leftover.plugin.as_mut());
        }
        if !self.oversubscribe.caps.noop {
            f(self.oversubscribe.plugin.as_mut());
        }
    }

    /// Every plugin but the no-ops with the point it serves and its
    /// capabilities (not the shared estimator).
    fn each(&self) -> impl Iterator<Item = (&'static str, &dyn Plugin, &Capabilities)> {
        let reserve = std::iter::once(("reserve", self.reserve.plugin.as_ref() as &dyn Plugin, &self.reserve.caps));
        let order = std::iter::once(("app_order", self.app_order.plugin.as_ref() as &dyn Plugin, &self.app_order.caps));
        let pools = self.pool_orders.iter().flatten().map(|o| ("pool_order", o.plugin.as_ref() as &dyn Plugin, &o.caps));
        let classify = self.classify.iter().map(|c| ("classify", c.plugin.as_ref() as &dyn Plugin, &c.caps));
        let filters = self.filters.iter().map(|f| ("filter", f.plugin.as_ref() as &dyn Plugin, &f.caps));
        let leftover = std::iter::once(("leftover", self.leftover.plugin.as_ref() as &dyn Plugin, &self.leftover.caps));
        let over = std::iter::once(("oversubscribe", self.oversubscribe.plugin.as_ref() as &dyn Plugin, &self.oversubscribe.caps));
        reserve.chain(order).chain(pools).chain(classify).chain(filters).chain(leftover).chain(over).filter(|(_, _, caps)| !caps.noop)
    }

    /// DEFAULT unless a classifier holds the ask back.
    fn is_default(&self, ctx: &Ctx, app: &App, ask: &Ask) -> bool {
        self.classify.iter().all(|c| c.plugin.is_default(ctx, app, ask))
    }

    fn app_key(&self, ctx: &Ctx, app: &App) -> SortKey {
        self.am_grouped(app, self.order_key(ctx, app))
    }

    /// Levels of the app order (`Capabilities::levels`) when its keys are the
    /// pipeline's own: not with pool orders, whose keys re-rank it.
    fn levels(&self) -> usize {
        if self.pooling_reserve().is_some() {
            0
        } else {
            self.app_order.caps.levels
        }
    }

    /// `app_key` with the level it is in, for a pipeline with levels.
    fn levelled_key(&self, ctx: &Ctx, app: &App) -> (usize, SortKey) {
        let (level, key) = self.app_order.plugin.levelled_key(ctx, app);
        (level, self.am_grouped(app, key))
    }

    /// The reserve whose pools the pool orders rank, when there are both.
    fn pooling_reserve(&self) -> Option<&Slot<dyn Reserve>> {
        Some(&self.reserve).filter(|_| !self.pool_orders.is_empty())
    }

    fn am_grouped(&self, app: &App, key: SortKey) -> SortKey {
        if !self.spec.am_first {
            return key;
        }
        // `am_first`: apps waiting for their AM form a group of their own
        // ahead of every pool, ordered among themselves as before.
        let waiting_for_am = app.am_container.is_none() && app.asks.values().any(|a| a.count > 0 && app.is_am_ask(a));
        if waiting_for_am {
            SortKey { group: 0, ..key }
        } else {
            SortKey { group: key.group + 1, ..key }
        }
    }

    /// The app order's key (each pool's own order when the pipeline has
    /// pool orders).
    fn order_key(&self, ctx: &Ctx, app: &App) -> SortKey {
        if let Some(r) = self.pooling_reserve() {
            let pool = r.plugin.pool_of(app).unwrap_or(0);
            let order = self.pool_orders.get(pool).and_then(Option::as_ref).unwrap_or(&self.app_order);
            return SortKey { group: pool as u32, ..order.plugin.key(ctx, app) };
        }
        self.app_order.plugin.key(ctx, app)
    }

    /// The plugins' checks for one ask on one node, in point order:
    /// classify (main phase: is it DEFAULT; leftover phase: may it take the
    /// leftover), reserve, filters.
    fn check(&self, ctx: &Ctx, app: &App, ask: &Ask, node: &Node, leftover_phase: bool) -> Result<(), Blocked> {
        if !leftover_phase {
            if !self.is_default(ctx, app, ask) {
                return Err(Blocked::Altruistic);
            }
        } else if !self.classify.iter().all(|c| c.plugin.may_take_leftover(ctx, app, ask, node)) {
            return Err(Blocked::Altruistic);
        }
        let r = &self.reserve;
        if !r.caps.noop && !r.plugin.admits(ctx, app, ask) {
            return Err(Blocked::Reserve(r.plugin.name()));
        }
        // Fail closed: a pipeline whose filters leave `constraints` out
        // refuses constrained asks instead of ignoring their constraint.
        if ask.placement.is_some() && !self.filters.iter().any(|f| f.plugin.name() == "constraints") {
            return Err(Blocked::Filter("constraints"));
        }
        for f in &self.filters {
            if !f.plugin.fits(ctx, app, ask, node) {
                return Err(Blocked::Filter(f.plugin.name()));
            }
        }
        Ok(())
    }
}

impl PolicySet {
    pub fn is_flat(&self) -> bool {
        self.queue_order.caps.noop
    }

    pub fn queue_order_name(&self) -> &str {
        self.queue_order.identity.name
    }

    pub fn pipelines(&self) -> &[Pipeline] {
        &self.pipelines
    }

    /// The pipeline that serves apps of queue `q`.
    pub fn pipeline_of(&self, q: QueueId) -> &Pipeline {
        if self.is_flat() {
            &self.pipelines[0]
        } else {
            &self.pipelines[q]
        }
    }

    fn ctx<'a>(&'a self, state: &'a ClusterState, p: &Pipeline) -> Ctx<'a> {
        Ctx { state, scope: p.scope, estimator: self.estimators[p.estimator].plugin.as_ref() }
    }

    // ------------------------------------------------------------ the pass

    /// Order of queue `q`, or `None` without a queue level.
    pub fn queue_key(&self, state: &ClusterState, queue: &Queue) -> Option<SortKey> {
        (!self.is_flat()).then(|| self.queue_order.plugin.key(state, queue))
    }

    pub fn app_key(&self, state: &ClusterState, app: &App) -> SortKey {
        let p = self.pipeline_of(app.queue);
        p.app_key(&self.ctx(state, p), app)
    }

    /// May `app`'s key have grown since it was computed (GS)?
    pub fn keys_go_stale(&self, app: &App) -> bool {
        self.pipeline_of(app.queue).keys_go_stale()
    }

    /// How many levels the app order of queue `q`'s pipeline ranks apps
    /// in (`Capabilities::levels`; 0: none, or the pass told not to use them).
    pub fn app_levels(&self, q: QueueId) -> usize {
        if self.flat_candidates {
            0
        } else {
            self.pipeline_of(q).levels()
        }
    }

    /// `app`'s level and key, for a queue with `app_levels` > 0.
    pub fn levelled_app_key(&self, state: &ClusterState, app: &App) -> (usize, SortKey) {
        let p = self.pipeline_of(app.queue);
        p.levelled_key(&self.ctx(state, p), app)
    }

    /// The `primary` of every key in `level` of queue `q`'s app order now.
    pub fn level_primary(&self, q: QueueId, level: usize) -> f64 {
        self.pipeline_of(q).app_order.plugin.level_primary(level)
    }

    /// Make the pass ignore app orders' levels and re-key stale candidates
    /// one by one instead, as it does for orders without levels. For tests
    /// that show the two give the same decisions (`tests/gs_levels.rs`).
    #[doc(hidden)]
    pub fn set_flat_candidates(&mut self, flat: bool) {
        self.flat_candidates = flat;
    }

    pub fn strict_order(&self, app: &App) -> bool {
        self.pipeline_of(app.queue).spec.strict_order
    }

    pub fn check(&self, state: &ClusterState, app: &App, ask: &Ask, node: &Node, leftover_phase: bool) -> Result<(), Blocked> {
        let p = self.pipeline_of(app.queue);
        p.check(&self.ctx(state, p), app, ask, node, leftover_phase)
    }

    /// Can several proposers run a pass at once from one `prepare`? Not
    /// when a pipeline over-subscribes (its evictions need the live node),
    /// a plugin's `prepare` depends on the node, or an app order's keys
    /// move with every allocation (GS's weighted sharing between its
    /// levels: proposers book only in their copy of the state and the
    /// plugins do not see it, so each would fill its nodes by the levels'
    /// usage at the start of the round). See `engine::propose`.
    pub fn allows_parallel_passes(&self) -> bool {
        !self.has_oversubscribe()
            && !self.pipelines.iter().any(|p| p.keys_go_stale() || p.each().any(|(_, _, caps)| caps.prepares_per_node))
    }

    /// May a scheduling round keep one candidate heap over all the nodes
    /// it visits (`engine::round`)? Where several proposers may share one
    /// `prepare` (no over-subscription, no per-node `prepare`, no keys
    /// moving with other apps' containers), when every pipeline's keys
    /// move only with the app's own containers
    /// (`Pipeline::keys_move_only_with_own_containers`).
    pub fn allows_shared_candidates(&self) -> bool {
        self.allows_parallel_passes() && self.pipelines.iter().all(|p| p.keys_move_only_with_own_containers(&self.estimators))
    }

    /// Does some plugin's `prepare` move its state with the clock
    /// (`Capabilities::prepare_moves_state`)? Then every pass counts.
    pub fn prepare_moves_state(&self) -> bool {
        self.prepare_moves_state
    }

    /// What [`PolicySet::prepare_moves_state`] answers, from the plugins.
    fn find_prepare_moves_state(&self) -> bool {
        self.estimators.iter().any(|e| e.caps.prepare_moves_state)
            || self.queue_order.caps.prepare_moves_state
            || self.pipelines.iter().any(|p| p.each().any(|(_, _, caps)| caps.prepare_moves_state))
    }

    /// Hand `node`'s folded heartbeats to every plugin
    /// (`Plugin::on_utilization_run`), as its utilization events would go.
    pub fn on_utilization_run(&mut self, state: &ClusterState, node: NodeId, used: &Resources, times: &[i64]) {
        self.visit(state, None, &mut |p, ctx| p.on_utilization_run(ctx, node, used, times));
    }

    /// Until when every plugin reads the same of `node` without more
    /// samples `used` than it has: the earliest
    /// `Plugin::utilization_unread_until` of them all.
    pub fn utilization_unread_until(&self, state: &ClusterState, node: NodeId, used: &Resources) -> i64 {
        let bare = Ctx { state, scope: Scope::Cluster, estimator: &NO_ESTIMATE };
        let mut until = i64::MAX;
        for e in &self.estimators {
            until = until.min(e.plugin.utilization_unread_until(&bare, node, used));
        }
        if !self.queue_order.caps.noop {
            until = until.min(self.queue_order.plugin.utilization_unread_until(&bare, node, used));
        }
        for p in &self.pipelines {
            let ctx = self.ctx(state, p);
            for (_, plugin, _) in p.each() {
                until = until.min(plugin.utilization_unread_until(&ctx, node, used));
            }
        }
        until
    }

    /// Does any pipeline place speculative containers (ROSE)?
    pub fn has_oversubscribe(&self) -> bool {
        self.pipelines.iter().any(|p| !p.oversubscribe.caps.noop)
    }

    /// May `ask` of `app` go on `node` as a speculative container now: its
    /// pipeline over-subscribes, admits the ask, the node's headroom holds
    /// it, and the pipeline's filters pass it.
    pub fn speculative_fits(&self, state: &ClusterState, app: &App, ask: &Ask, node: &Node) -> bool {
        let p = self.pipeline_of(app.queue);
        let o = &p.oversubscribe;
        if o.caps.noop {
            return false;
        }
        let ctx = self.ctx(state, p);
        o.plugin.admits(&ctx, app, ask)
            && o.plugin.headroom(&ctx, node).is_some_and(|room| ask.capability.fits_in(&room))
            && p.filters.iter().all(|f| f.plugin.fits(&ctx, app, ask, node))
    }

    /// Does some over-subscribing pipeline give `node` headroom now, one
    /// that holds `smallest` when it is given (a lower bound of every
    /// outstanding ask; `Some(None)`: nothing is asked)? Without it
    /// `speculative_fits` fails every ask on the node, so the placement
    /// half of the pass can end before keying every pending app (ROSE's
    /// candidates are a few of the nodes: most heartbeats have none).
    pub fn speculative_headroom(&self, state: &ClusterState, node: &Node, smallest: Option<Option<Resources>>) -> bool {
        if smallest == Some(None) {
            return false;
        }
        self.pipelines
            .iter()
            .filter(|p| !p.oversubscribe.caps.noop)
            .filter_map(|p| p.oversubscribe.plugin.headroom(&self.ctx(state, p), node))
            .any(|room| smallest.flatten().is_none_or(|m| m.fits_in(&room)))
    }

    /// Speculative containers to take back from `node` now. The first
    /// pipeline that over-subscribes runs the controller for every
    /// speculative container on the node (its `[rose]` bounds apply), so
    /// two pipelines never evict twice for one excess.
    pub fn evictions(&mut self, state: &ClusterState, node: NodeId) -> Vec<crate::model::ContainerId> {
        let Some(n) = state.nodes.get(&node) else { return Vec::new() };
        let PolicySet { estimators, pipelines, .. } = self;
        let Some(p) = pipelines.iter_mut().find(|p| !p.oversubscribe.caps.noop) else { return Vec::new() };
        let ctx = Ctx { state, scope: p.scope, estimator: estimators[p.estimator].plugin.as_ref() };
        p.oversubscribe.plugin.evictions(&ctx, n)
    }

    pub fn has_leftover(&self) -> bool {
        self.pipelines.iter().any(|p| !p.leftover.caps.noop)
    }

    /// How many nodes `app`'s pipeline may hold for its leftover order's
    /// first ask ([`Leftover::holds`]); 0 without a leftover phase.
    pub fn leftover_holds(&self, app: &App) -> usize {
        let l = &self.pipeline_of(app.queue).leftover;
        if l.caps.noop {
            0
        } else {
            l.plugin.holds()
        }
    }

    /// The leftover order of `ask`, or `None` when the app's pipeline has
    /// no leftover phase or the ask was not held back (it was DEFAULT).
    pub fn leftover_key(&self, state: &ClusterState, app: &App, ask: &Ask, node: &Node) -> Option<SortKey> {
        let p = self.pipeline_of(app.queue);
        let l = &p.leftover;
        if l.caps.noop {
            return None;
        }
        let ctx = self.ctx(state, p);
        if p.is_default(&ctx, app, ask) {
            return None;
        }
        Some(l.plugin.key(&ctx, app, ask, node))
    }

    /// Start of a pass for `node`.
    pub fn prepare(&mut self, state: &ClusterState, node: NodeId) {
        self.visit(state, None, &mut |p, ctx| p.prepare(ctx, node));
    }

    // ------------------------------------------------------------ time

    /// The earliest time a plugin's periodic step is due.
    pub fn next_tick_ms(&self) -> Option<i64> {
        let mut next: Option<i64> = None;
        let mut see = |t: Option<i64>| {
            if let Some(t) = t {
                next = Some(next.map_or(t, |n| n.min(t)));
            }
        };
        for e in &self.estimators {
            see(e.plugin.next_tick_ms());
        }
        for p in &self.pipelines {
            for (_, plugin, _) in p.each() {
                see(plugin.next_tick_ms());
            }
        }
        next
    }

    /// Run every periodic step due at `now_ms`; true if one may change decisions.
    pub fn tick(&mut self, state: &ClusterState, now_ms: i64) -> bool {
        let mut changed = false;
        self.visit(state, None, &mut |p, ctx| {
            if p.next_tick_ms().is_some_and(|t| t <= now_ms) {
                changed |= p.tick(ctx, now_ms);
            }
        });
        changed
    }

    // ------------------------------------------------------------ observers

    /// Visit the estimators and the pipelines (all, or the one serving
    /// queue `only` and its estimator) with a context for each plugin.
    ///
    /// An estimator is shared by the pipelines that name it and sees their
    /// apps only: SLearn, named by one queue's pipeline, must not sample,
    /// count or learn Fig. 4's ratio scores from another queue's apps,
    /// which its pilots never held back.
    fn visit(&mut self, state: &ClusterState, only: Option<QueueId>, f: &mut dyn FnMut(&mut dyn Plugin, &Ctx)) {
        let flat = self.is_flat();
        let PolicySet { estimators, pipelines, queue_order, .. } = self;
        let bare = Ctx { state, scope: Scope::Cluster, estimator: &NO_ESTIMATE };
        // `None`: every estimator; `Some(None)`: none (a queue no pipeline serves).
        let serving = only.filter(|_| !flat).map(|q| pipelines.get(q).map(|p| p.estimator));
        for (i, e) in estimators.iter_mut().enumerate() {
            if serving.is_none_or(|s| s == Some(i)) {
                f(e.plugin.as_mut(), &bare);
            }
        }
        if !queue_order.caps.noop {
            f(queue_order.plugin.as_mut(), &bare);
        }
        for (i, p) in pipelines.iter_mut().enumerate() {
            if only.is_some_and(|q| !flat && q != i) {
                continue;
            }
            let ctx = Ctx { state, scope: p.scope, estimator: estimators[p.estimator].plugin.as_ref() };
            p.each_mut(&mut |plugin| f(plugin, &ctx));
        }
    }

    /// `queue`: the queue the event concerns (its app's), if any; events of
    /// one queue's apps go to that queue's pipeline only. A finished
    /// container and a removed app are not passed on: they reach plugins
    /// through `on_container_finished` and `on_app_removed` only.
    pub fn on_event(&mut self, state: &ClusterState, event: &Event, queue: Option<QueueId>) {
        if matches!(event, Event::ContainerFinished { .. } | Event::AppRemoved { .. }) {
            return;
        }
        self.visit(state, queue, &mut |p, ctx| p.on_event(ctx, event));
    }

    pub fn on_allocated(&mut self, state: &ClusterState, c: &Container, queue: QueueId) {
        self.visit(state, Some(queue), &mut |p, ctx| p.on_allocated(ctx, c));
    }

    /// `c` finished (before the engine releases it).
    pub fn on_container_finished(&mut self, state: &ClusterState, c: &Container, exit_status: i32, at_ms: i64, queue: QueueId) {
        self.visit(state, Some(queue), &mut |p, ctx| p.on_container_finished(ctx, c, exit_status, at_ms));
    }

    /// `app`, still in its old queue, moves to queue `to`: the old queue's
    /// pipeline lets go of it, and so does its estimator unless the new
    /// queue's pipeline names the same one (then what it learned stays).
    /// With a flat order one pipeline serves every queue: nothing moves.
    pub fn on_app_moved_out(&mut self, state: &ClusterState, app: &App, to: QueueId) {
        if self.is_flat() {
            return;
        }
        let PolicySet { estimators, pipelines, .. } = self;
        let next_estimator = pipelines.get(to).map(|p| p.estimator);
        let Some(p) = pipelines.get_mut(app.queue) else { return };
        let ctx = Ctx { state, scope: p.scope, estimator: estimators[p.estimator].plugin.as_ref() };
        p.each_mut(&mut |plugin| plugin.on_app_moved_out(&ctx, app));
        if next_estimator != Some(p.estimator) {
            let bare = Ctx { state, scope: Scope::Cluster, estimator: &NO_ESTIMATE };
            estimators[p.estimator].plugin.on_app_moved_out(&bare, app);
        }
    }

    pub fn on_app_removed(&mut self, state: &ClusterState, app: &App) {
        self.visit(state, Some(app.queue), &mut |p, ctx| p.on_app_removed(ctx, app));
    }

    // ------------------------------------------------------------ views

    /// The sampling plan of `app`'s estimator, if it samples (SLearn).
    pub fn sampling(&self, state: &ClusterState, app: &App) -> Option<super::Sampling> {
        let p = self.pipeline_of(app.queue);
        self.ctx(state, p).sampling(app)
    }

    /// Does `app`'s estimator make its prediction after admission (SLearn)?
    pub fn predicts_after_admission(&self, app: &App) -> bool {
        self.estimators[self.pipeline_of(app.queue).estimator].plugin.predicts_after_admission()
    }

    /// The estimate of `app`'s pipeline, when it is a prediction (not a prior).
    pub fn estimate(&self, state: &ClusterState, app: &App) -> Option<Estimate> {
        let p = self.pipeline_of(app.queue);
        self.ctx(state, p).estimate(app).filter(|e| e.confidence > 0.0)
    }

    /// Each pipeline: its queue, policy name, spec and every plugin's state.
    pub fn state_json(&self, state: &ClusterState) -> serde_json::Value {
        let bare = Ctx { state, scope: Scope::Cluster, estimator: &NO_ESTIMATE };
        let pipelines: Vec<_> = self
            .pipelines
            .iter()
            .map(|p| {
                let ctx = self.ctx(state, p);
                let mut plugins = serde_json::Map::new();
                let est = &self.estimators[p.estimator].plugin;
                plugins.insert("estimate".into(), serde_json::json!({"name": est.name(), "state": est.state_json(&bare)}));
                for (point, plugin, _) in p.each() {
                    let entry = serde_json::json!({"name": plugin.name(), "state": plugin.state_json(&ctx)});
                    if point == "filter" || point == "pool_order" {
                        plugins.entry(point).or_insert_with(|| serde_json::json!([])).as_array_mut().expect("list").push(entry);
                    } else {
                        plugins.insert(point.into(), entry);
                    }
                }
                serde_json::json!({
                    "queue": p.queue,
                    "scope": match p.scope { Scope::Cluster => "cluster", Scope::Queue(_) => "queue" },
                    "policy": p.policy,
                    "spec": p.spec,
                    "plugins": plugins,
                })
            })
            .collect();
        let queue_order = (!self.is_flat()).then(|| self.queue_order.plugin.state_json(&bare));
        serde_json::json!({
            "queue_order": {"name": self.queue_order_name(), "state": queue_order},
            "pipelines": pipelines,
        })
    }

    /// What `app`'s pipeline knows about it: policy, estimate, and each
    /// plugin's per-app view (e.g. DRESS's pool).
    pub fn app_json(&self, state: &ClusterState, app: &App) -> serde_json::Value {
        let p = self.pipeline_of(app.queue);
        let ctx = self.ctx(state, p);
        let mut m = serde_json::Map::new();
        m.insert("policy".into(), p.policy.clone().into());
        if let Some(e) = ctx.estimate(app) {
            m.insert("estimate".into(), serde_json::to_value(e).expect("estimate"));
        }
        if let Some(s) = ctx.sampling(app) {
            m.insert("sampling".into(), serde_json::to_value(s).expect("sampling"));
        }
        let est = &self.estimators[p.estimator].plugin;
        if let Some(v) = est.app_json(&ctx, app) {
            m.insert(format!("estimate.{}", est.name()), v);
        }
        let r = &p.reserve;
        if let Some(i) = r.plugin.pool_of(app).filter(|_| !r.caps.noop) {
            m.insert("pool".into(), r.plugin.pools()[i].into());
        }
        for (point, plugin, _) in p.each() {
            if let Some(v) = plugin.app_json(&ctx, app) {
                m.insert(format!("{point}.{}", plugin.name()), v);
            }
        }
        serde_json::Value::Object(m)
    }

    /// One `pipeline_info` series per pipeline (labels name its plugins) and
    /// every plugin's own series, labelled with the queue it serves.
    pub fn gauges(&self, state: &ClusterState) -> Vec<Gauge> {
        let mut out = Vec::new();
        for p in &self.pipelines {
            let queue = p.queue.clone();
            let s = &p.spec;
            let pools: Vec<String> = s.pool_order.iter().map(|(k, v)| format!("{k}={v}")).collect();
            out.push(
                Gauge::new(
                    "pipeline_info",
                    1.0,
                    "The pipeline serving a queue (root = all queues, flat queue order); labels name its plugins",
                )
                .label("queue", queue.clone())
                .label("policy", p.policy.clone())
                .label("queue_order", self.queue_order_name().to_string())
                .label("estimate", s.estimate.clone())
                .label("reserve", s.reserve.clone())
                .label("app_order", s.app_order.clone())
                .label("pool_order", pools.join(","))
                .label("classify", s.classify.join(","))
                .label("filter", s.filter.join(","))
                .label("leftover", s.leftover.clone()),
            );
            let ctx = self.ctx(state, p);
            for (_, plugin, _) in p.each() {
                out.extend(plugin.gauges(&ctx).into_iter().map(|g| g.label("queue", queue.clone())));
            }
        }
        let bare = Ctx { state, scope: Scope::Cluster, estimator: &NO_ESTIMATE };
        for e in &self.estimators {
            out.extend(e.plugin.gauges(&bare));
        }
        out
    }
}
