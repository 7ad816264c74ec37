//! The engine's policies: how queues share the cluster, the estimators
//! (shared by every pipeline that names one), and the pipelines — one per
//! queue, or one for the whole cluster when the queue order is flat.
//!
//! Everything the engine's pass asks a policy goes through here, so the pass
//! never names a plugin; everything a plugin observes arrives through here,
//! routed to the pipeline whose scope the event concerns.

use super::estimate::NoEstimate;
use super::points::{Capabilities, Ctx, Estimate, Estimator, Plugin};
use super::registry::{self, Slot};
use super::{AppOrder, AskClassifier, Filter, Gauge, KeyMoves, Leftover, Oversubscribe, QueueOrder, Reserve, Scope, SortKey};
use crate::config::{bad, Config, ConfigError, PipelineSpec};
use crate::event::Event;
use crate::model::{App, Ask, Blocked, ClusterState, Container, Node, NodeId, Queue, QueueId};
use std::collections::HashMap;

/// One pipeline: the plugin at each point for one scope.
pub struct Pipeline {
    /// The queue it serves, or `root` for all (flat queue order).
    pub queue: String,
    /// The policy name it was built from (built-in or `[pipeline.NAME]`).
    pub policy: String,
    pub spec: PipelineSpec,
    pub scope: Scope,
    estimator: usize,
    reserve: Option<Slot<dyn Reserve>>,
    app_order: Slot<dyn AppOrder>,
    /// Per pool of the reserve (by index): the order replacing `app_order`.
    pool_orders: Vec<Option<Slot<dyn AppOrder>>>,
    classify: Vec<Slot<dyn AskClassifier>>,
    filters: Vec<Slot<dyn Filter>>,
    leftover: Option<Slot<dyn Leftover>>,
    oversubscribe: Option<Slot<dyn Oversubscribe>>,
}

pub struct PolicySet {
    queue_order: Option<Slot<dyn QueueOrder>>,
    queue_order_name: String,
    estimators: Vec<Slot<dyn Estimator>>,
    pipelines: Vec<Pipeline>,
    /// Testing only: see `set_flat_candidates`.
    flat_candidates: bool,
}

static NO_ESTIMATE: NoEstimate = NoEstimate;

/// Why a pipeline could not be built from names the config accepted.
fn missing(key: String, name: &str) -> ConfigError {
    bad(&key, name, "listed as a plugin name but not built into this engine")
}

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
            KeyMoves::OwnContainers => self.leftover.is_none(),
            KeyMoves::OwnContainersUpward => true,
        });
        estimate_ok && pools_ok && orders_ok && self.levels() == 0
    }

    /// Visit every plugin of the pipeline (not the shared estimator).
    fn each_mut(&mut self, f: &mut dyn FnMut(&mut dyn Plugin)) {
        if let Some(r) = &mut self.reserve {
            f(r.plugin.as_mut());
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
        if let Some(l) = &mut self.leftover {
            f(l.plugin.as_mut());
        }
        if let Some(o) = &mut self.oversubscribe {
            f(o.plugin.as_mut());
        }
    }

    /// Every plugin with the point it serves and its capabilities (not the
    /// shared estimator).
    fn each(&self) -> impl Iterator<Item = (&'static str, &dyn Plugin, &Capabilities)> {
        let reserve = self.reserve.iter().map(|r| ("reserve", r.plugin.as_ref() as &dyn Plugin, &r.caps));
        let order = std::iter::once(("app_order", self.app_order.plugin.as_ref() as &dyn Plugin, &self.app_order.caps));
        let pools = self.pool_orders.iter().flatten().map(|o| ("pool_order", o.plugin.as_ref() as &dyn Plugin, &o.caps));
        let classify = self.classify.iter().map(|c| ("classify", c.plugin.as_ref() as &dyn Plugin, &c.caps));
        let filters = self.filters.iter().map(|f| ("filter", f.plugin.as_ref() as &dyn Plugin, &f.caps));
        let leftover = self.leftover.iter().map(|l| ("leftover", l.plugin.as_ref() as &dyn Plugin, &l.caps));
        let over = self.oversubscribe.iter().map(|o| ("oversubscribe", o.plugin.as_ref() as &dyn Plugin, &o.caps));
        reserve.chain(order).chain(pools).chain(classify).chain(filters).chain(leftover).chain(over)
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
        self.reserve.as_ref().filter(|_| !self.pool_orders.is_empty())
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
        if let Some(r) = &self.reserve {
            if !r.plugin.admits(ctx, app, ask) {
                return Err(Blocked::Reserve(r.plugin.name()));
            }
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
    /// Build the policies `config` names for the queues in `state`. With
    /// `old`, keep every plugin whose identity (name and configuration) and
    /// scope label (queue name, or `root`) are unchanged, with its state.
    pub fn build(config: &Config, state: &ClusterState, old: Option<PolicySet>) -> Result<PolicySet, ConfigError> {
        let (mut old_estimators, mut old_pipelines, mut old_queue_order) = match old {
            Some(o) => (
                o.estimators.into_iter().map(|s| (s.identity.clone(), s)).collect::<HashMap<_, _>>(),
                o.pipelines.into_iter().map(|p| (p.queue.clone(), p)).collect::<HashMap<_, _>>(),
                o.queue_order,
            ),
            None => Default::default(),
        };
        let order_name = config.queue_order().to_string();
        let queue_order = match registry::queue_order(&order_name) {
            Some(Some(fresh)) => Some(match old_queue_order.take() {
                Some(kept) if kept.identity == fresh.identity => kept,
                _ => fresh,
            }),
            Some(None) => None,
            None => return Err(missing("scheduler.queue_order".into(), &order_name)),
        };
        let mut set =
            PolicySet { queue_order, queue_order_name: order_name, estimators: Vec::new(), pipelines: Vec::new(), flat_candidates: false };
        let scopes: Vec<(Scope, usize)> = if set.queue_order.is_none() {
            vec![(Scope::Cluster, 0)]
        } else {
            (0..state.queues.len()).map(|i| (Scope::Queue(i), i)).collect()
        };
        for (scope, qi) in scopes {
            let policy = config.queue_policy(qi).to_string();
            let spec = config.pipeline(&policy).ok_or_else(|| bad("scheduler.policy", &policy, "unknown policy"))?;
            let key = |point: &str| format!("pipeline `{policy}`.{point}");
            let queue = scope.label(state).to_string();
            let mut old = old_pipelines.remove(&queue);
            let slearn = spec.slearn_config(&config.slearn, &format!("pipeline `{policy}`"))?;
            let estimator = set
                .estimator_index(&spec.estimate, config, &slearn, &mut old_estimators)
                .ok_or_else(|| missing(key("estimate"), &spec.estimate))?;
            let dress = spec.dress_config(&config.dress, &format!("pipeline `{policy}`"))?;
            // The config the classify, filter and leftover plugins are built
            // from: the global sections with this pipeline's overrides.
            let own = Config { carbyne: spec.carbyne_config(&config.carbyne, &format!("pipeline `{policy}`"))?, ..config.clone() };
            let reserve = registry::reserve(&spec.reserve, &dress).ok_or_else(|| missing(key("reserve"), &spec.reserve))?;
            let reserve = keep(reserve, old.as_mut().and_then(|o| o.reserve.take()));
            let app_order = registry::app_order(&spec.app_order, config).ok_or_else(|| missing(key("app_order"), &spec.app_order))?;
            let app_order = keep(Some(app_order), old.as_mut().map(|o| take_slot(&mut o.app_order))).expect("built");
            let mut pool_orders = Vec::new();
            if let Some(r) = &reserve {
                for pool in r.plugin.pools() {
                    pool_orders.push(match spec.pool_order.get(*pool) {
                        Some(name) => Some(registry::app_order(name, config).ok_or_else(|| missing(key("pool_order"), name))?),
                        None => None,
                    });
                }
                if pool_orders.iter().all(Option::is_none) {
                    pool_orders.clear();
                }
            }
            let mut old_classify: Vec<Slot<dyn AskClassifier>> = old.as_mut().map(|o| std::mem::take(&mut o.classify)).unwrap_or_default();
            let mut classify = Vec::new();
            for name in &spec.classify {
                let fresh = registry::classifier(name, &own).ok_or_else(|| missing(key("classify"), name))?;
                let kept = old_classify.iter().position(|s| s.identity == fresh.identity).map(|i| old_classify.remove(i));
                classify.push(kept.unwrap_or(fresh));
            }
            let mut filters = Vec::new();
            let mut old_filters: Vec<Slot<dyn Filter>> = old.as_mut().map(|o| std::mem::take(&mut o.filters)).unwrap_or_default();
            for name in &spec.filter {
                let fresh = registry::filter(name, &own).ok_or_else(|| missing(key("filter"), name))?;
                let kept = old_filters.iter().position(|s| s.identity == fresh.identity).map(|i| old_filters.remove(i));
                filters.push(kept.unwrap_or(fresh));
            }
            let leftover = registry::leftover(&spec.leftover, &own).ok_or_else(|| missing(key("leftover"), &spec.leftover))?;
            let leftover = keep(leftover, old.as_mut().and_then(|o| o.leftover.take()));
            let rose = spec.rose_config(&config.rose, &format!("pipeline `{policy}`"))?;
            let oversubscribe =
                registry::oversubscribe(&spec.oversubscribe, &rose).ok_or_else(|| missing(key("oversubscribe"), &spec.oversubscribe))?;
            let oversubscribe = keep(oversubscribe, old.as_mut().and_then(|o| o.oversubscribe.take()));
            set.pipelines.push(Pipeline {
                queue,
                policy,
                spec,
                scope,
                estimator,
                reserve,
                app_order,
                pool_orders,
                classify,
                filters,
                leftover,
                oversubscribe,
            });
        }
        Ok(set)
    }

    /// Index of the shared estimator `name`, built (or kept) on first use.
    fn estimator_index(
        &mut self,
        name: &str,
        config: &Config,
        slearn: &crate::config::SLearnConfig,
        old: &mut HashMap<String, Slot<dyn Estimator>>,
    ) -> Option<usize> {
        let fresh = registry::estimator(name, config, slearn)?;
        if let Some(i) = self.estimators.iter().position(|s| s.identity == fresh.identity) {
            return Some(i);
        }
        self.estimators.push(old.remove(&fresh.identity).unwrap_or(fresh));
        Some(self.estimators.len() - 1)
    }

    /// A set with no pipelines, only as a placeholder while a new one is built.
    pub fn empty() -> PolicySet {
        PolicySet {
            queue_order: None,
            queue_order_name: String::new(),
            estimators: Vec::new(),
            pipelines: Vec::new(),
            flat_candidates: false,
        }
    }

    pub fn is_flat(&self) -> bool {
        self.queue_order.is_none()
    }

    pub fn queue_order_name(&self) -> &str {
        &self.queue_order_name
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
        self.queue_order.as_ref().map(|o| o.plugin.key(state, queue))
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

    /// Does any pipeline place speculative containers (ROSE)?
    pub fn has_oversubscribe(&self) -> bool {
        self.pipelines.iter().any(|p| p.oversubscribe.is_some())
    }

    /// May `ask` of `app` go on `node` as a speculative container now: its
    /// pipeline over-subscribes, admits the ask, the node's headroom holds
    /// it, and the pipeline's filters pass it.
    pub fn speculative_fits(&self, state: &ClusterState, app: &App, ask: &Ask, node: &Node) -> bool {
        let p = self.pipeline_of(app.queue);
        let Some(o) = &p.oversubscribe else { return false };
        let ctx = self.ctx(state, p);
        o.plugin.admits(&ctx, app, ask)
            && o.plugin.headroom(&ctx, node).is_some_and(|room| ask.capability.fits_in(&room))
            && p.filters.iter().all(|f| f.plugin.fits(&ctx, app, ask, node))
    }

    /// Speculative containers to take back from `node` now. The first
    /// pipeline that over-subscribes runs the controller for every
    /// speculative container on the node (its `[rose]` bounds apply), so
    /// two pipelines never evict twice for one excess.
    pub fn evictions(&mut self, state: &ClusterState, node: NodeId) -> Vec<crate::model::ContainerId> {
        let Some(n) = state.nodes.get(&node) else { return Vec::new() };
        let PolicySet { estimators, pipelines, .. } = self;
        let Some(p) = pipelines.iter_mut().find(|p| p.oversubscribe.is_some()) else { return Vec::new() };
        let ctx = Ctx { state, scope: p.scope, estimator: estimators[p.estimator].plugin.as_ref() };
        p.oversubscribe.as_mut().map(|o| o.plugin.evictions(&ctx, n)).unwrap_or_default()
    }

    pub fn has_leftover(&self) -> bool {
        self.pipelines.iter().any(|p| p.leftover.is_some())
    }

    /// How many nodes `app`'s pipeline may hold for its leftover order's
    /// first ask ([`Leftover::holds`]); 0 without a leftover phase.
    pub fn leftover_holds(&self, app: &App) -> usize {
        self.pipeline_of(app.queue).leftover.as_ref().map_or(0, |l| l.plugin.holds())
    }

    /// The leftover order of `ask`, or `None` when the app's pipeline has
    /// no leftover phase or the ask was not held back (it was DEFAULT).
    pub fn leftover_key(&self, state: &ClusterState, app: &App, ask: &Ask, node: &Node) -> Option<SortKey> {
        let p = self.pipeline_of(app.queue);
        let l = p.leftover.as_ref()?;
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
        if let Some(o) = queue_order {
            f(o.plugin.as_mut(), &bare);
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
    /// one queue's apps go to that queue's pipeline only.
    pub fn on_event(&mut self, state: &ClusterState, event: &Event, queue: Option<QueueId>) {
        self.visit(state, queue, &mut |p, ctx| p.on_event(ctx, event));
    }

    pub fn on_allocated(&mut self, state: &ClusterState, c: &Container, queue: QueueId) {
        self.visit(state, Some(queue), &mut |p, ctx| p.on_allocated(ctx, c));
    }

    pub fn on_container_finished(&mut self, state: &ClusterState, c: &Container, at_ms: i64, queue: QueueId) {
        self.visit(state, Some(queue), &mut |p, ctx| p.on_container_finished(ctx, c, at_ms));
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
        let queue_order = self.queue_order.as_ref().map(|o| o.plugin.state_json(&bare));
        serde_json::json!({
            "queue_order": {"name": self.queue_order_name, "state": queue_order},
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
        if let Some(r) = &p.reserve {
            if let Some(i) = r.plugin.pool_of(app) {
                m.insert("pool".into(), r.plugin.pools()[i].into());
            }
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
                .label("queue_order", self.queue_order_name.clone())
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

/// The old plugin when it has the fresh one's identity, else the fresh one.
fn keep<T: ?Sized>(fresh: Option<Slot<T>>, old: Option<Slot<T>>) -> Option<Slot<T>> {
    match (fresh, old) {
        (Some(f), Some(o)) if o.identity == f.identity => Some(o),
        (f, _) => f,
    }
}

/// Move a required slot out of an old pipeline that is being dismantled.
fn take_slot(s: &mut Slot<dyn AppOrder>) -> Slot<dyn AppOrder> {
    std::mem::replace(s, registry::slot("fifo".into(), Box::new(super::order::fifo::Fifo)))
}
