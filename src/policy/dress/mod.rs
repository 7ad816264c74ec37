//! DRESS: Dynamic RESource-reservation Scheme (Mao, Green, Wang, Xiong, Guo;
//! `papers/dress-dynamic-resource-reservation.txt`).
//!
//! * `classify` — small-demand (SD) / large-demand (LD) apps, request ≤ θ·A_c.
//! * `reserve`  — the two pools and Algorithm 3, which moves the reserve
//!   ratio δ once per scheduling interval.
//! * `release`  — Algorithms 1–2 (phases, Δps, γ) and Equations 5 and 9;
//!   Equation 1 (F(t) per category) is summed here.
//!
//! In the engine's pass: `before_pass` refreshes pool usage and pending
//! demand and, once per interval, ticks the phase detectors and runs
//! Algorithm 3; `filter` keeps each app inside its pool (or lets it borrow
//! the other pool's share while that pool has no pending demand);
//! `app_order` is arrival order, the paper's first-come-first-serve inside
//! each pool. See `docs/dress.md`.

pub mod classify;
pub mod release;
pub mod reserve;
mod gauges;

#[cfg(test)]
mod tests;

use super::{Policy, SortKey};
use crate::config::DressConfig;
use crate::engine::Event;
use crate::model::{App, AppId, Ask, ClusterState, Container, ContainerId, Node, Resources};
use classify::{classify, free_units, units, Category};
use release::{JobRelease, PhaseParams};
use reserve::{adjust_delta, may_borrow, pool_available, Alg3Input, Alg3Output};
use std::collections::BTreeMap;

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

/// Per-pool figures refreshed every pass.
#[derive(Debug, Clone, Copy, Default)]
struct PoolFigures {
    used: Resources,
    pending: Resources,
    /// P_k: Σ r_i over the pool's apps with outstanding asks, in units
    /// (as Algorithm 3 lines 3–6 sum it).
    pending_units: f64,
    /// Apps of the pool with outstanding asks; 0 = "no pending demand", the
    /// condition for the other pool to borrow.
    pending_apps: usize,
    apps: usize,
}

pub struct Dress {
    cfg: DressConfig,
    params: PhaseParams,
    /// δ: share of the cluster reserved for small-demand apps.
    delta: f64,
    last_adjust_ms: Option<i64>,
    apps: BTreeMap<AppId, AppInfo>,
    pools: [PoolFigures; 2],
    /// F_1(t+1), F_2(t+1) at the last adjustment, in units.
    release_next: [f64; 2],
    /// A_c1, A_c2 at the last adjustment, in units.
    available: [f64; 2],
    last_alg3: Option<(i64, f64, Alg3Output)>,
    adjustments: u64,
}

impl Dress {
    /// δ starts at δ₀ (§V-A1: 10 %).
    pub fn new(cfg: &DressConfig) -> Self {
        Dress {
            params: PhaseParams { t_s: cfg.t_s, t_e: cfg.t_e, window_ms: cfg.phase_window_ms },
            delta: cfg.delta_initial,
            cfg: cfg.clone(),
            last_adjust_ms: None,
            apps: BTreeMap::new(),
            pools: Default::default(),
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
    fn classification_base(&self, state: &ClusterState) -> f64 {
        if self.cfg.classify_against == "available" {
            free_units(state)
        } else {
            1.0
        }
    }

    /// Classification (§IV-C): decide on the first asks; re-decide when the
    /// app's total request grows past its peak, or (A_c = `total`) when the
    /// cluster's capacity changed since the last decision (nodes joining
    /// after an RM restart must not leave early apps classified against a
    /// half-registered cluster).
    fn reclassify(&mut self, state: &ClusterState, app: &App) {
        let base = self.classification_base(state);
        let against_total = self.cfg.classify_against == "total";
        let theta = self.cfg.theta;
        let info = self.apps.entry(app.id).or_insert_with(AppInfo::new);
        let request = app.allocated + app.pending();
        let mut peak = info.peak_request;
        for (p, r) in peak.0.iter_mut().zip(request.0.iter()) {
            *p = (*p).max(*r);
        }
        let grew = peak != info.peak_request;
        let capacity_moved = against_total && info.decided_capacity != state.capacity;
        if state.capacity.is_zero() || peak.is_zero() || (info.category.is_some() && !grew && !capacity_moved) {
            return;
        }
        info.peak_request = peak;
        info.decided_capacity = state.capacity;
        let demand = units(&peak, &state.capacity);
        info.peak_demand = demand;
        let cat = classify(demand, theta, base);
        match info.category {
            None => {
                info.decided_ms = Some(state.now_ms);
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

    /// Pool usage and pending demand, from the engine's state (§IV-C: "each
    /// category maintains its own pool of jobs that consists of pending and
    /// running jobs"; P_1/P_2 of Algorithm 3 lines 3–6).
    fn refresh_pools(&mut self, state: &ClusterState) {
        let mut pools = [PoolFigures::default(); 2];
        for app in state.apps.values() {
            let Some(cat) = self.category(app.id) else { continue };
            let p = &mut pools[cat.index()];
            p.apps += 1;
            p.used += app.allocated;
            if app.has_pending() {
                let pending = app.pending();
                p.pending += pending;
                p.pending_units += units(&pending, &state.capacity);
                p.pending_apps += 1;
            }
        }
        self.pools = pools;
    }

    /// The vector capacity of each pool (§IV-C): Tot_R·δ for SD and
    /// Tot_R·(1 − δ) for LD, per resource type, rounded to whole units.
    fn pool_capacity(&self, state: &ClusterState) -> [Resources; 2] {
        let mut small = state.capacity;
        small.0.iter_mut().for_each(|v| *v = (*v as f64 * self.delta).round() as i64);
        [small, state.capacity - small]
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
    fn adjust(&mut self, state: &ClusterState, now_ms: i64) {
        for info in self.apps.values_mut() {
            info.release.tick(now_ms, &self.params);
        }
        let next = now_ms + self.cfg.interval_ms;
        self.release_next = self.release_estimate(next);
        let used = [units(&self.pools[0].used, &state.capacity), units(&self.pools[1].used, &state.capacity)];
        self.available = pool_available(self.delta, 1.0, used, free_units(state));
        let mut demands: [Vec<f64>; 2] = [Vec::new(), Vec::new()];
        for app in state.pending_apps() {
            if let Some(cat) = self.category(app.id) {
                demands[cat.index()].push(units(&app.pending(), &state.capacity));
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
    fn start_task(&mut self, state: &ClusterState, c: &Container, at_ms: i64) {
        let Some(info) = self.apps.get_mut(&c.app) else { return };
        if self.cfg.skip_am_container && info.am_container == Some(c.id) {
            return;
        }
        info.release.on_start(c.id, at_ms, units(&c.resources, &state.capacity), &self.params);
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

fn pool_json(
    name: &str,
    share: f64,
    cap: &Resources,
    p: &PoolFigures,
    avail: f64,
    release: f64,
    state: &ClusterState,
) -> serde_json::Value {
    serde_json::json!({
        "pool": name,
        "share": share,
        "capacity": cap.0,
        "used": p.used.0,
        "used_share": units(&p.used, &state.capacity),
        "available_share": avail,
        "pending": p.pending.0,
        "pending_share": p.pending_units,
        "pending_apps": p.pending_apps,
        "apps": p.apps,
        "release_next_share": release,
    })
}

impl Policy for Dress {
    fn name(&self) -> &'static str {
        "dress"
    }

    fn gauges(&self, state: &ClusterState) -> Vec<super::Gauge> {
        self.gauges_of(state)
    }

    /// Classification (§IV-C) and pool figures every pass; once per
    /// scheduling interval the phase detectors tick (Algorithms 1–2), F(t+1)
    /// is estimated (Eqs. 1, 5, 9) and Algorithm 3 sets δ.
    /// δ moves every scheduling interval (Algorithm 3), whether or not a
    /// heartbeat allocates anything, so drivers must not skip idle passes.
    fn time_driven(&self) -> bool {
        true
    }

    fn before_pass(&mut self, state: &ClusterState, now_ms: i64) {
        let ids: Vec<AppId> = state.apps.keys().copied().collect();
        for id in ids {
            let app = &state.apps[&id];
            if app.has_pending() || !app.allocated.is_zero() {
                self.reclassify(state, app);
            }
        }
        self.refresh_pools(state);
        let due = self.last_adjust_ms.is_none_or(|t| now_ms - t >= self.cfg.interval_ms);
        if due {
            let _span = tracing::debug_span!("dress_interval", now_ms).entered();
            self.adjust(state, now_ms);
            self.last_adjust_ms = Some(now_ms);
        }
    }

    /// First-come-first-serve inside each pool (the pools are kept apart by
    /// `filter`); higher YARN priority first, as in the FIFO policy.
    fn app_order(&self, _state: &ClusterState, app: &App) -> SortKey {
        SortKey::new(-(app.priority as f64), app.submit_ms as f64, app.id as i64)
    }

    /// The two pools: an SD app allocates within δ·Tot_R, an LD app within
    /// (1 − δ)·Tot_R, each counting its pool's current usage. Beyond its
    /// pool, an app may use the other pool's unused share only while the
    /// other pool has no pending demand (`reserve::may_borrow`).
    fn filter(&self, state: &ClusterState, app: &App, ask: &Ask, _node: &Node) -> bool {
        let Some(cat) = self.category(app.id) else { return true };
        let k = cat.index();
        let cap = self.pool_capacity(state)[k];
        if (self.pools[k].used + ask.capability).fits_in(&cap) {
            return true;
        }
        may_borrow(self.cfg.borrow_idle_pool, self.pools[cat.other().index()].pending_apps > 0)
    }

    /// Book the container against its pool (usage up, pending down) so the
    /// rest of the pass sees it; with `start_on = "allocated"` it starts a
    /// task for Algorithm 1.
    fn on_allocated(&mut self, state: &ClusterState, c: &Container) {
        let Some(info) = self.apps.get_mut(&c.app) else { return };
        if info.am_container.is_none() {
            info.am_container = Some(c.id);
        }
        if let Some(cat) = info.category {
            let p = &mut self.pools[cat.index()];
            p.used += c.resources;
            p.pending = p.pending.saturating_sub(&c.resources);
            p.pending_units = (p.pending_units - units(&c.resources, &state.capacity)).max(0.0);
            if !state.apps.get(&c.app).is_some_and(|a| a.has_pending()) {
                p.pending_apps = p.pending_apps.saturating_sub(1);
            }
        }
        if self.cfg.start_on == "allocated" {
            self.start_task(state, c, c.allocated_ms);
        }
    }

    /// Classification on asks (§IV-C); task starts for Algorithm 1 (line 5:
    /// the container reached RUNNING) from launches and recovered containers.
    fn on_event(&mut self, state: &ClusterState, event: &Event) {
        match event {
            Event::AppAdded { app, .. } => {
                self.apps.entry(*app).or_insert_with(AppInfo::new);
            }
            Event::AppRemoved { app } => {
                self.apps.remove(app);
            }
            Event::AskUpdated { app, .. } => {
                if let Some(a) = state.apps.get(app) {
                    self.reclassify(state, a);
                }
            }
            Event::ContainerLaunched { container, at_ms } if self.cfg.start_on == "launched" => {
                if let Some(c) = state.containers.get(container) {
                    let c = c.clone();
                    self.start_task(state, &c, *at_ms);
                }
            }
            Event::ContainerRecovered { container, app, start_ms, .. } => {
                if let (Some(c), Some(a)) = (state.containers.get(container), state.apps.get(app)) {
                    let c = c.clone();
                    self.reclassify(state, a);
                    self.start_task(state, &c, *start_ms);
                }
            }
            _ => {}
        }
    }

    /// Algorithm 2 line 5: the task's container reached COMPLETED.
    fn on_container_finished(&mut self, _state: &ClusterState, c: &Container, at_ms: i64) {
        if let Some(info) = self.apps.get_mut(&c.app) {
            info.release.on_finish(c.id, at_ms, &self.params);
        }
    }

    /// The operator's view (issue 4 item 7): δ and its bounds, each pool's
    /// capacity, usage, pending demand and F_k(t+1), F(t+1) of Eq. 1, the
    /// last Algorithm 3 step, and every app's category and phases.
    fn state_json(&self, state: &ClusterState) -> serde_json::Value {
        let caps = self.pool_capacity(state);
        let free = free_units(state);
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
                pool_json("small", self.delta, &caps[0], &self.pools[0], self.available[0], self.release_next[0], state),
                pool_json("large", 1.0 - self.delta, &caps[1], &self.pools[1], self.available[1], self.release_next[1], state),
            ],
            "last_adjustment": last,
            "apps": apps,
        })
    }
}
