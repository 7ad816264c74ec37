//! DRESS: Dynamic RESource-reservation Scheme (Mao, Green, Wang, Xiong, Guo;
//! `papers/dress-dynamic-resource-reservation.txt`).
//!
//! * `classify` — small-demand (SD) / large-demand (LD) apps, request ≤ θ·A_c.
//! * `reserve`  — the two pools and Algorithm 3, which moves the reserve
//!   ratio δ once per scheduling interval.
//! * `release`  — Algorithms 1–2 (phases, Δps, γ) and Equations 5 and 9;
//!   Equation 1 (F(t) per category) is summed here.
//!
//! DRESS is the *reserve* point of a pipeline (`reserve = "dress"`). Its
//! scope is the cluster (flat queue order, the paper's setting) or one queue
//! (then Tot_R is the queue's maximum share). `tick` — once per scheduling
//! interval — ticks the phase detectors and runs Algorithm 3; `prepare`
//! refreshes pool usage and pending demand every pass; `admits` keeps each
//! app inside its pool (or lets it borrow the other pool's share while that
//! pool has no pending demand). The order inside a pool is the pipeline's
//! app order (`fifo` in the `dress` policy: the paper's
//! first-come-first-serve). See `docs/policies/dress.md`.

pub mod classify;
mod gauges;
pub mod pools;
pub mod release;
pub mod reserve;

#[cfg(test)]
mod tests;

use super::points::{Capabilities, Ctx, Plugin, Reserve};
use super::Scope;
use crate::config::DressConfig;
use crate::event::Event;
use crate::model::{App, AppId, Ask, Container, ContainerId, NodeId, Resources};
use classify::{classify, free_units, units, Category};
use pools::{PoolFigures, Pools, Share};
use release::{JobRelease, PhaseParams};
use reserve::{adjust_delta, may_borrow, pool_available, Alg3Input, Alg3Output};
use std::collections::{BTreeMap, BTreeSet};

/// What DRESS keeps per application.
#[derive(Debug, Clone)]
struct AppInfo {
    /// `None` until the app's first asks arrive.
    category: Option<Category>,
    /// Largest total request seen (component-wise max of allocated +
    /// outstanding), and its share of the capacity it was measured against.
    peak_request: Resources,
    peak_demand: f64,
    decided_capacity: Resources,
    decided_ms: Option<i64>,
    /// How many times the category changed after the first decision.
    reclassified: u32,
    /// The app's first container (YARN's AM), left out of phase detection.
    am_container: Option<ContainerId>,
    release: JobRelease,
}

pub struct Dress {
    cfg: DressConfig,
    params: PhaseParams,
    /// δ: share of the cluster reserved for small-demand apps.
    delta: f64,
    last_adjust_ms: Option<i64>,
    apps: BTreeMap<AppId, AppInfo>,
    pools: Pools,
    /// Apps whose pool share must be recounted before the next pass.
    stale: BTreeSet<AppId>,
    /// Recount every app (capacity changed, a container vanished without
    /// naming its app) before the next pass.
    dirty: bool,
    /// The scope and its capacity at the last full recount: a change (a
    /// queue re-capped or renumbered by `-refreshQueues`) recounts all.
    synced: Option<(Scope, Resources)>,
    /// F_1(t+1), F_2(t+1) at the last adjustment, in units.
    release_next: [f64; 2],
    /// A_c1, A_c2 at the last adjustment, in units.
    available: [f64; 2],
    last_alg3: Option<(i64, f64, Alg3Output)>,
    adjustments: u64,
}

impl Dress {
    /// The app left this plugin's queues (finished or moved away).
    fn forget(&mut self, app: AppId) {
        self.apps.remove(&app);
        self.stale.remove(&app);
        self.pools.set(app, None);
    }

    /// δ starts at δ₀ (§V-A1: 10 %).
    pub fn new(cfg: &DressConfig) -> Self {
        Dress {
            params: PhaseParams { t_s: cfg.t_s, t_e: cfg.t_e, window_ms: cfg.phase_window_ms },
            delta: cfg.delta_initial,
            cfg: cfg.clone(),
            last_adjust_ms: None,
            apps: BTreeMap::new(),
            pools: Pools::default(),
            stale: BTreeSet::new(),
            dirty: true,
            synced: None,
            release_next: [0.0; 2],
            available: [0.0; 2],
            last_alg3: None,
            adjustments: 0,
        }
    }

    /// The reserve ratio δ (Algorithm 3's output).
    pub fn delta(&self) -> f64 {
        self.delta
    }

    pub fn category(&self, app: AppId) -> Option<Category> {
        self.apps.get(&app).and_then(|a| a.category)
    }

    /// A_c of the rule "request ≤ θ·A_c" (§IV-C), in units (see `classify`).
    fn classification_base(&self, ctx: &Ctx) -> f64 {
        if self.cfg.classify_against == "available" {
            free_units(ctx)
        } else {
            1.0
        }
    }

    /// Classification (§IV-C): decide on the first asks; re-decide when the
    /// app's total request grows past its peak, or (A_c = `total`) when the
    /// cluster's capacity changed since the last decision (nodes joining
    /// after an RM restart must not leave early apps classified against a
    /// half-registered cluster).
    fn reclassify(&mut self, ctx: &Ctx, app: &App) {
        let base = self.classification_base(ctx);
        let capacity = ctx.scope.capacity(ctx.state);
        let against_total = self.cfg.classify_against == "total";
        let theta = self.cfg.theta;
        let request = self.request(app);
        let info = self.apps.entry(app.id).or_insert_with(AppInfo::new);
        let peak = info.peak_request.max_each(&request);
        let grew = peak != info.peak_request;
        let capacity_moved = against_total && info.decided_capacity != capacity;
        if capacity.is_zero() || peak.is_zero() || (info.category.is_some() && !grew && !capacity_moved) {
            return;
        }
        info.peak_request = peak;
        info.decided_capacity = capacity;
        let demand = units(&peak, &capacity);
        info.peak_demand = demand;
        let cat = classify(demand, theta, base);
        match info.category {
            None => {
                info.decided_ms = Some(ctx.state.now_ms);
                tracing::debug!(app = app.id, ?cat, demand, "dress: app classified");
            }
            Some(old) if old != cat => {
                info.reclassified += 1;
                tracing::debug!(app = app.id, ?old, ?cat, demand, "dress: app re-classified");
            }
            _ => {}
        }
        info.category = Some(cat);
    }

    /// An app's request for the rule "request ≤ θ·A_c": what it holds plus
    /// what it asks for — without its ApplicationMaster container unless
    /// `am_in_request` (the paper counts a job's task containers; YARN adds
    /// one AM per app, which on a small cluster alone can exceed θ).
    fn request(&self, app: &App) -> Resources {
        let mut r = app.allocated + app.pending();
        if !self.cfg.am_in_request {
            if let Some(am) = app.am_container.and_then(|c| app.containers.get(&c)) {
                r -= am.resources;
            }
            for ask in app.asks.values().filter(|a| a.count > 0 && app.is_am_ask(a)) {
                r -= ask.capability.times(ask.count as i64);
            }
        }
        r
    }

    /// Classification (re-decided if its request grew) and pool share of
    /// one app (§IV-C).
    fn recount(&mut self, ctx: &Ctx, app: &App) {
        if app.has_pending() || !app.allocated.is_zero() {
            self.reclassify(ctx, app);
        }
        let share = self.category(app.id).map(|cat| Share::of(app, cat.index()));
        self.pools.set(app.id, share);
    }
    /// The vector capacity of each pool (§IV-C): Tot_R·δ for SD and
    /// Tot_R·(1 − δ) for LD, per resource type, rounded to whole units.
    fn pool_capacity(&self, ctx: &Ctx) -> [Resources; 2] {
        let total = ctx.scope.capacity(ctx.state);
        let mut small = total;
        small.0.iter_mut().for_each(|v| *v = (*v as f64 * self.delta).round() as i64);
        [small, total - small]
    }

    /// Bring classification and pool figures up to date with the state
    /// (what every pass and every interval starts from): the apps that
    /// changed since, or all of them when the scope's capacity changed.
    fn sync(&mut self, ctx: &Ctx) {
        let synced = Some((ctx.scope, ctx.scope.capacity(ctx.state)));
        if self.dirty || self.synced != synced {
            self.pools.clear();
            for app in ctx.scope.apps(ctx.state) {
                self.recount(ctx, app);
            }
            self.dirty = false;
            self.synced = synced;
            self.stale.clear();
            return;
        }
        for id in std::mem::take(&mut self.stale) {
            match ctx.state.apps.get(&id).filter(|a| ctx.scope.contains(a)) {
                Some(app) => self.recount(ctx, app),
                None => self.pools.set(id, None),
            }
        }
    }

    /// Equation 1 per category: F_k(t) = Σ_{i ∈ k} f_i(t) (the A_c term is
    /// added by the caller, per pool).
    fn release_estimate(&self, t_ms: i64) -> [f64; 2] {
        let mut f = [0.0; 2];
        for info in self.apps.values() {
            if let Some(cat) = info.category {
                f[cat.index()] += info.release.f(t_ms);
            }
        }
        f
    }

    /// Once per scheduling interval: Algorithms 1–2 tick, Eq. 1 at t+1,
    /// Algorithm 3.
    fn adjust(&mut self, ctx: &Ctx, now_ms: i64) {
        for info in self.apps.values_mut() {
            info.release.tick(now_ms, &self.params);
        }
        let next = now_ms + self.cfg.interval_ms;
        self.release_next = self.release_estimate(next);
        let capacity = ctx.scope.capacity(ctx.state);
        let used = [units(&self.pools.figures(0).used, &capacity), units(&self.pools.figures(1).used, &capacity)];
        self.available = pool_available(self.delta, 1.0, used, free_units(ctx));
        let mut demands: [Vec<f64>; 2] = [Vec::new(), Vec::new()];
        for app in ctx.scope.apps(ctx.state).filter(|a| a.has_pending()) {
            if let Some(cat) = self.category(app.id) {
                demands[cat.index()].push(units(&app.pending(), &capacity));
            }
        }
        let [small_demands, large_demands] = demands;
        let out = adjust_delta(&Alg3Input {
            delta: self.delta,
            total: 1.0,
            available: self.available,
            release_next: self.release_next,
            small_demands,
            large_demands,
            delta_min: self.cfg.delta_min,
            delta_max: self.cfg.delta_max,
        });
        let before = self.delta;
        if (out.delta - before).abs() > 1e-12 {
            tracing::debug!(
                before,
                after = out.delta,
                branch = ?out.branch,
                p1 = out.pending[0],
                p2 = out.pending[1],
                a_c1 = self.available[0],
                a_c2 = self.available[1],
                f1 = self.release_next[0],
                f2 = self.release_next[1],
                "dress: reserve ratio changed (Algorithm 3)"
            );
        }
        self.delta = out.delta;
        self.adjustments += 1;
        self.last_alg3 = Some((now_ms, before, out));
    }

    /// A task entered RUNNING: Algorithm 1 lines 5–8 for its job.
    fn start_task(&mut self, ctx: &Ctx, c: &Container, at_ms: i64) {
        let capacity = ctx.scope.capacity(ctx.state);
        let Some(info) = self.apps.get_mut(&c.app) else { return };
        if self.cfg.skip_am_container && info.am_container == Some(c.id) {
            return;
        }
        info.release.on_start(c.id, at_ms, units(&c.resources, &capacity), &self.params);
    }
}

impl AppInfo {
    fn new() -> Self {
        AppInfo {
            category: None,
            peak_request: Resources::ZERO,
            peak_demand: 0.0,
            decided_capacity: Resources::ZERO,
            decided_ms: None,
            reclassified: 0,
            am_container: None,
            release: JobRelease::default(),
        }
    }
}

#[allow(clippy::too_many_arguments)]
fn pool_json(
    name: &str,
    share: f64,
    cap: &Resources,
    p: &PoolFigures,
    pending_units: f64,
    avail: f64,
    release: f64,
    capacity: &Resources,
) -> serde_json::Value {
    serde_json::json!({
        "pool": name,
        "share": share,
        "capacity": cap.0,
        "used": p.used.0,
        "used_share": units(&p.used, capacity),
        "available_share": avail,
        "pending": p.pending.0,
        "pending_share": pending_units,
        "pending_apps": p.pending_apps,
        "apps": p.apps,
        "release_next_share": release,
    })
}

impl Reserve for Dress {
    fn pools(&self) -> &'static [&'static str] {
        &["small", "large"]
    }

    fn pool_of(&self, app: &App) -> Option<usize> {
        self.category(app.id).map(Category::index)
    }

    /// The two pools: an SD app allocates within δ·Tot_R, an LD app within
    /// (1 − δ)·Tot_R, each counting its pool's current usage. Beyond its
    /// pool, an app may use the other pool's unused share only while the
    /// other pool has no pending demand (`reserve::may_borrow`); with
    /// `small_borrows_free`, small-demand apps always may.
    fn admits(&self, ctx: &Ctx, app: &App, ask: &Ask) -> bool {
        let Some(cat) = self.category(app.id) else { return true };
        if cat == Category::Small && self.cfg.small_borrows_free {
            return true;
        }
        let k = cat.index();
        let cap = self.pool_capacity(ctx)[k];
        if (self.pools.figures(k).used + ask.capability).fits_in(&cap) {
            return true;
        }
        may_borrow(self.cfg.borrow_idle_pool, self.pools.figures(cat.other().index()).pending_apps > 0)
    }
}

impl Plugin for Dress {
    fn name(&self) -> &'static str {
        "dress"
    }

    /// Categories are decided on events (asks, recovered containers) and
    /// in `sync` after a capacity change; an allocation moves the app's
    /// pool figures, never its category (its request is unchanged).
    fn capabilities(&self) -> Capabilities {
        Capabilities { pools_move_only_with_events: true, prepare_moves_state: true, ..Capabilities::NONE }
    }

    fn on_app_removed(&mut self, _ctx: &Ctx, app: &App) {
        self.forget(app.id);
    }

    /// Its pool's figures lose it, as when it finishes.
    fn on_app_moved_out(&mut self, _ctx: &Ctx, app: &App) {
        self.forget(app.id);
    }

    fn gauges(&self, ctx: &Ctx) -> Vec<super::Gauge> {
        self.gauges_of(ctx)
    }

    /// δ moves once per scheduling interval (Algorithm 3), whether or not a
    /// heartbeat allocates anything; due at the first opportunity.
    fn next_tick_ms(&self) -> Option<i64> {
        Some(self.last_adjust_ms.map_or(i64::MIN, |t| t + self.cfg.interval_ms))
    }

    /// Once per scheduling interval: classification and pool figures
    /// (§IV-C), then the phase detectors tick (Algorithms 1–2), F(t+1) is
    /// estimated (Eqs. 1, 5, 9) and Algorithm 3 sets δ. True when δ moved.
    fn tick(&mut self, ctx: &Ctx, now_ms: i64) -> bool {
        self.sync(ctx);
        let _span = tracing::debug_span!("dress_interval", now_ms).entered();
        let before = self.delta;
        self.adjust(ctx, now_ms);
        self.last_adjust_ms = Some(now_ms);
        self.delta != before
    }

    /// Classification (§IV-C) and pool figures every pass.
    fn prepare(&mut self, ctx: &Ctx, _node: NodeId) {
        self.sync(ctx);
    }

    /// Book the container against its pool (usage up, pending down) so the
    /// rest of the pass sees it; with `start_on = "allocated"` it starts a
    /// task for Algorithm 1.
    fn on_allocated(&mut self, ctx: &Ctx, c: &Container) {
        let Some(info) = self.apps.get_mut(&c.app) else { return };
        if info.am_container.is_none() {
            info.am_container = Some(c.id);
        }
        if let Some(app) = ctx.state.apps.get(&c.app) {
            if info.category.is_some() {
                self.pools.set(app.id, self.category(app.id).map(|cat| Share::of(app, cat.index())));
            }
        }
        if self.cfg.start_on == "allocated" {
            self.start_task(ctx, c, c.allocated_ms);
        }
    }

    /// Classification on asks (§IV-C); task starts for Algorithm 1 (line 5:
    /// the container reached RUNNING) from launches and recovered containers.
    fn on_event(&mut self, ctx: &Ctx, event: &Event) {
        let state = ctx.state;
        match event {
            // A moved-in app is classified as an arriving one (§IV-C).
            Event::AppAdded { app, .. } | Event::AppMoved { app, .. } => {
                self.apps.entry(*app).or_insert_with(AppInfo::new);
                self.stale.insert(*app);
            }
            Event::AskUpdated { app, .. } => {
                if let Some(a) = state.apps.get(app) {
                    self.reclassify(ctx, a);
                }
                self.stale.insert(*app);
            }
            Event::AttemptAdded { app, .. } | Event::AttemptRemoved { app, .. } => {
                self.stale.insert(*app);
            }
            Event::NodeAdded { .. } | Event::NodeRemoved { .. } | Event::NodeResourceUpdated { .. } | Event::AllocationRejected { .. } => {
                self.dirty = true;
            }
            Event::ContainerLaunched { container, at_ms } if self.cfg.start_on == "launched" => {
                if let Some(c) = state.containers.get(container) {
                    self.start_task(ctx, c, *at_ms);
                }
            }
            Event::ContainerRecovered { container, app, start_ms, .. } => {
                if let (Some(c), Some(a)) = (state.containers.get(container), state.apps.get(app)) {
                    self.reclassify(ctx, a);
                    self.start_task(ctx, c, *start_ms);
                }
                self.stale.insert(*app);
            }
            _ => {}
        }
    }

    /// Algorithm 2 line 5: the task's container reached COMPLETED.
    fn on_container_finished(&mut self, _ctx: &Ctx, c: &Container, _exit_status: i32, at_ms: i64) {
        if let Some(info) = self.apps.get_mut(&c.app) {
            info.release.on_finish(c.id, at_ms, &self.params);
        }
        self.stale.insert(c.app);
    }

    fn app_json(&self, ctx: &Ctx, app: &App) -> Option<serde_json::Value> {
        let info = self.apps.get(&app.id)?;
        Some(serde_json::json!({
            "category": info.category,
            "demand_share": info.peak_demand,
            "release_next_share": info.release.f(ctx.state.now_ms + self.cfg.interval_ms),
        }))
    }

    /// The operator's view (issue 4 item 7): δ and its bounds, each pool's
    /// capacity, usage, pending demand and F_k(t+1), F(t+1) of Eq. 1, the
    /// last Algorithm 3 step, and every app's category and phases.
    fn state_json(&self, ctx: &Ctx) -> serde_json::Value {
        let state = ctx.state;
        let capacity = ctx.scope.capacity(state);
        let caps = self.pool_capacity(ctx);
        let free = free_units(ctx);
        let apps: Vec<_> = self
            .apps
            .iter()
            .map(|(id, info)| {
                serde_json::json!({
                    "app": id,
                    "category": info.category,
                    "demand_share": info.peak_demand,
                    "decided_ms": info.decided_ms,
                    "reclassified": info.reclassified,
                    "alpha_ms": info.release.alpha_ms,
                    "beta_ms": info.release.beta_ms,
                    "phases": info.release.phases,
                    "release_next_share": info.release.f(state.now_ms + self.cfg.interval_ms),
                })
            })
            .collect();
        let last = self.last_alg3.as_ref().map(|(at, before, out)| {
            serde_json::json!({
                "at_ms": at,
                "delta_before": before,
                "delta_after": out.delta,
                "delta_unbounded": out.delta_unbounded,
                "branch": out.branch,
                "pending_share": out.pending,
                "fitted": out.fitted,
                "leftover_jobs": out.leftover_jobs,
                "moved_share": out.moved,
            })
        });
        serde_json::json!({
            "delta": self.delta,
            "delta_min": self.cfg.delta_min,
            "delta_max": self.cfg.delta_max,
            "theta": self.cfg.theta,
            "classify_against": self.cfg.classify_against,
            "interval_ms": self.cfg.interval_ms,
            "adjustments": self.adjustments,
            "available_share": free,
            // Eq. 1: F(t+1) = A_c + F_1(t+1) + F_2(t+1), in shares of the cluster.
            "f_next_share": free + self.release_next[0] + self.release_next[1],
            "pools": [
                pool_json("small", self.delta, &caps[0], self.pools.figures(0), self.pools.pending_units(0, &capacity), self.available[0], self.release_next[0], &capacity),
                pool_json("large", 1.0 - self.delta, &caps[1], self.pools.figures(1), self.pools.pending_units(1, &capacity), self.available[1], self.release_next[1], &capacity),
            ],
            "last_adjustment": last,
            "apps": apps,
        })
    }
}
