//! Carbyne: altruistic multi-resource scheduling (Grandl, Chowdhury,
//! Akella, Ananthanarayanan, OSDI'16; `papers/carbyne-altruistic-scheduling.txt`).
//!
//! Pseudocode 1 on the pipeline's points, for unmodified YARN applications:
//!
//! | Pseudocode 1 | where |
//! |---|---|
//! | INTERJOBSCHEDULER: A_k by DRF over every resource type, L_DRF | [`shares`], run by [`Carbyne`] (the `classify` plugin) on app arrival and completion, task completion, asks and capacity changes |
//! | INTRAJOBSCHEDULER: T_k, reverse packing, DEFAULT = tasks that must start now, L_k | [`stages`] (the DAG YARN does not send), [`packing`], [`plan`]; [`Carbyne::is_default`] holds the rest back |
//! | the DEFAULT asks, fairly | the pass's main phase with `app_order = "drf"` |
//! | LEFTOVERSCHEDULER: SRTF, then packing | [`leftover::CarbyneLeftover`] (the `leftover` plugin), over what the main phase left on the node |
//! | P(Altruism) | [`altruism`] |
//!
//! A YARN ask is a count per scheduler key, so the classifier keeps, per
//! app and key, how many containers are DEFAULT now: the plan's tasks
//! whose latest start (Actual) is within `horizon_ms`. Each DEFAULT
//! container the app gets uses one up; tasks whose start comes later
//! become DEFAULT when it comes (a timer, [`Plugin::next_tick_ms`]), and
//! every event the paper recomputes on (job arrival and completion, task
//! completion or failure — and, in YARN, new asks) recomputes the shares
//! and the plans of the apps concerned before the next pass. See
//! `docs/policies/carbyne.md`.

pub mod altruism;
pub mod amount;
pub mod float_order;
pub mod hint;
pub mod lease;
pub mod leftover;
pub mod packing;
pub mod plan;
pub mod shares;
pub mod stages;
mod view;

#[cfg(test)]
mod tests;

use super::points::{AskClassifier, Capabilities, Ctx, Plugin};
use super::{Gauge, Scope};
use crate::config::{AppsConfig, CarbyneConfig};
use crate::event::Event;
use crate::model::exit::{outcome, Outcome};
use crate::model::waiting::ascending_minus;
use crate::model::{App, AppId, Ask, Container, NodeId, SchedulerKey};
use amount::Amount;
use lease::{Profile, FOREVER};
use stages::{Inference, KeyLogs};
use std::collections::{BTreeMap, BTreeSet, VecDeque};

/// Why an app has no plan (all its asks are DEFAULT).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// Not planned yet.
    New,
    /// Planned: DEFAULT now, the rest ALTRUISTIC until its start.
    Planned,
    /// Its P(Altruism) draw said greedy for this event.
    Greedy,
    /// No task runtime known (none finished yet; `[apps] executor_app_types`).
    NoRuntime,
    /// Nothing outstanding to split.
    NothingAsked,
}

/// One stage of the current plan.
#[derive(Debug, Clone)]
struct LiveStage {
    /// Tasks that may start now (DEFAULT) and have not yet.
    due: i64,
    /// The others: (absolute latest start ms, count), ascending.
    later: VecDeque<(i64, i64)>,
    task_ms: f64,
    demand: Amount,
}

/// The current plan of an app that yields.
#[derive(Debug, Clone)]
struct Live {
    planned_ms: i64,
    /// T_k at `planned_ms`, ms.
    t_k_ms: f64,
    /// A_k it was planned under.
    share: Amount,
    /// Task failures the app had seen when planned.
    failures: u64,
    stages: Vec<LiveStage>,
    key_stage: BTreeMap<SchedulerKey, usize>,
    priority_stage: BTreeMap<i32, usize>,
    /// L_k at planning.
    yielded: Amount,
    remaining_ms: f64,
    /// The plan as absolute usage steps (from, to, amount; negative
    /// amounts undo a planned slot a leftover task took early), and the
    /// leftover loans since: the app's part of the lease profile.
    usage: Vec<(i64, i64, Amount)>,
}

impl Live {
    fn stage_of(&self, key: &SchedulerKey) -> Option<usize> {
        self.key_stage.get(key).or_else(|| self.priority_stage.get(&key.priority)).copied()
    }

    /// Outstanding containers per stage (`None`: a key the plan has no stage for).
    fn asked(&self, app: &App) -> Option<Vec<i64>> {
        let mut asked = vec![0; self.stages.len()];
        for a in app.asks.values().filter(|a| a.count > 0) {
            asked[self.stage_of(&a.key)?] += a.count as i64;
        }
        Some(asked)
    }
}

#[derive(Debug, Clone)]
struct AppPlan {
    /// A_k.
    share: Amount,
    draws: u64,
    status: Status,
    live: Option<Live>,
    inference: Option<Inference>,
    stages: usize,
    default_allocations: u64,
    leftover_allocations: u64,
    /// The completion target T_k (absolute ms) of its last plan, kept by
    /// the next plan while a reverse packing still reaches it, and the
    /// share it was planned under.
    target: Option<(i64, Amount)>,
}

impl AppPlan {
    fn new() -> AppPlan {
        AppPlan {
            share: Amount::ZERO,
            draws: 0,
            status: Status::New,
            live: None,
            inference: None,
            stages: 0,
            default_allocations: 0,
            leftover_allocations: 0,
            target: None,
        }
    }
}

/// A container the leftover phase gave (who got the leftover).
#[derive(Debug, Clone, serde::Serialize)]
struct Grant {
    at_ms: i64,
    app: AppId,
    priority: i32,
    node: NodeId,
}

#[derive(Debug, Default, Clone, Copy, serde::Serialize)]
struct Counters {
    /// Plans computed (INTRAJOBSCHEDULER runs).
    replans: u64,
    /// Share recomputations (INTERJOBSCHEDULER runs).
    share_updates: u64,
    /// Draws that said "yield" / "greedy".
    yielding_draws: u64,
    greedy_draws: u64,
    /// Containers served as DEFAULT (main phase) / from the leftover.
    default_allocations: u64,
    leftover_allocations: u64,
    /// Containers that ended with a non-zero exit status.
    task_failures: u64,
}

/// How many recent leftover grants the state view lists.
const GRANTS_KEPT: usize = 32;

/// `classify = ["carbyne"]`: the inter-job and intra-job schedulers of
/// Pseudocode 1, deciding which asks are DEFAULT.
pub struct Carbyne {
    cfg: CarbyneConfig,
    /// `[apps]`: which apps' containers are executors (no plan for them).
    apps_cfg: AppsConfig,
    /// Queues share the cluster by capacity (else by weight) when the
    /// guarantee of a queue-scoped pipeline is computed.
    by_capacity: bool,
    logs: KeyLogs,
    apps: BTreeMap<AppId, AppPlan>,
    dirty: BTreeSet<AppId>,
    replan_all: bool,
    shares_dirty: bool,
    /// R at the last share update, and the scope it was for.
    total: Amount,
    scope: Option<Scope>,
    /// Earliest absolute start among the ALTRUISTIC tasks of all plans.
    next_due_ms: Option<i64>,
    counters: Counters,
    grants: VecDeque<Grant>,
    /// With `protect_lenders`: every plan's usage over future time.
    profile: Option<Profile>,
}

impl Carbyne {
    /// `queue_order`: the root's order (`capacity` weighs queue guarantees
    /// by capacity, anything else by weight).
    pub fn new(cfg: &CarbyneConfig, apps_cfg: &AppsConfig, queue_order: &str) -> Carbyne {
        Carbyne {
            cfg: cfg.clone(),
            apps_cfg: apps_cfg.clone(),
            by_capacity: queue_order == "capacity",
            logs: KeyLogs::default(),
            apps: BTreeMap::new(),
            dirty: BTreeSet::new(),
            replan_all: false,
            shares_dirty: true,
            total: Amount::ZERO,
            scope: None,
            next_due_ms: None,
            counters: Counters::default(),
            grants: VecDeque::new(),
            profile: None,
        }
    }

    /// How early a task may become DEFAULT. With `protect_lenders`, not
    /// early at all: an early start takes capacity another plan counts on
    /// (a loan the lease would not see).
    fn horizon(&self) -> i64 {
        if self.cfg.protect_lenders {
            0
        } else {
            self.cfg.horizon_ms
        }
    }

    /// Something about app `id` changed: its plan is made again.
    fn touch(&mut self, id: AppId) {
        self.apps.entry(id).or_insert_with(AppPlan::new);
        self.dirty.insert(id);
    }

    /// Bring shares and plans up to date with the events seen and promote
    /// tasks whose start has come. Returns true when some ask may now be
    /// served that could not before.
    fn refresh(&mut self, ctx: &Ctx) -> bool {
        let total = shares::scope_total(ctx.state, ctx.scope, self.by_capacity);
        if self.scope != Some(ctx.scope) || !same(&total, &self.total) {
            self.scope = Some(ctx.scope);
            self.total = total;
            self.shares_dirty = true;
        }
        if self.shares_dirty {
            self.update_shares(ctx);
        }
        let mut changed = false;
        if self.replan_all {
            self.replan_all = false;
            self.dirty.extend(self.apps.keys().copied());
        }
        if !self.dirty.is_empty() {
            let dirty = std::mem::take(&mut self.dirty);
            for id in dirty {
                if let Some(app) = ctx.state.apps.get(&id) {
                    if self.cfg.protect_lenders && self.still_valid(ctx, app) {
                        continue;
                    }
                    self.replan(ctx, app);
                    changed = true;
                }
            }
            self.next_due_ms = self.earliest_later();
        }
        if self.cfg.protect_lenders {
            match self.profile.as_mut() {
                Some(p) if !changed => p.advance(ctx.state.now_ms),
                _ => self.rebuild_profile(ctx),
            }
        }
        changed | self.promote(ctx)
    }

    /// The lease profile from every plan; apps without one keep their
    /// share (or what they hold, if more) for good.
    fn rebuild_profile(&mut self, ctx: &Ctx) {
        let now = ctx.state.now_ms;
        let mut p = Profile::new(now);
        for (id, e) in &self.apps {
            match &e.live {
                Some(l) => {
                    for (from, to, r) in &l.usage {
                        p.add(*from, *to, r);
                    }
                }
                None => {
                    let held = ctx.state.apps.get(id).map_or(Amount::ZERO, |a| Amount::of(&a.allocated));
                    p.add(now, FOREVER, &e.share.max(&held));
                }
            }
        }
        self.profile = Some(p);
    }

    /// INTERJOBSCHEDULER: A_k for every app of the scope (progressive
    /// filling over allocated + outstanding); apps whose share moved are
    /// replanned.
    fn update_shares(&mut self, ctx: &Ctx) {
        let _span = tracing::debug_span!("carbyne_shares").entered();
        self.shares_dirty = false;
        self.counters.share_updates += 1;
        let apps: Vec<&App> = ctx.scope.apps(ctx.state).filter(|a| a.attempt.is_some()).collect();
        let entries: Vec<(Amount, f64)> = apps
            .iter()
            .map(|a| {
                let mut demand = Amount::of(&(a.allocated + a.pending()));
                // With the lease, a job's hinted tasks to come are demand too:
                // its share must not drop while it is between stages.
                if self.cfg.protect_lenders {
                    if let Some(log) = self.logs.get(a.id).filter(|l| matches!(l.hint, Some(Ok(_)))) {
                        demand = demand.plus(&stages::model(ctx, a, log, &self.cfg, &self.apps_cfg).future_demand());
                    }
                }
                (demand, 1.0)
            })
            .collect();
        let out = shares::progressive_filling(&self.total, &entries);
        // `apps` comes in id order (the state's B-tree), and `retain` visits
        // the plans in key order: a walk over `apps` alongside answers which
        // are still in the scope.
        debug_assert!(apps.windows(2).all(|w| w[0].id < w[1].id));
        let mut scope = apps.iter().map(|a| a.id).peekable();
        self.apps.retain(|id, _| {
            while scope.next_if(|s| s < id).is_some() {}
            scope.peek() == Some(id)
        });
        self.logs.ensure_all(&apps);
        // The planned apps are now a subset of `apps`, both ascending. As
        // many plans as apps means none is new (most updates: apps arrive
        // far less often than tasks end); else one walk finds the new ones.
        // With them added the two hold the same ids in the same order, and
        // are paired without a search per app (this runs at every task
        // completion).
        if self.apps.len() < apps.len() {
            let new: Vec<AppId> = ascending_minus(apps.iter().map(|a| a.id), self.apps.keys().copied()).collect();
            for id in new {
                self.apps.insert(id, AppPlan::new());
            }
        }
        debug_assert!(self.apps.keys().eq(apps.iter().map(|a| &a.id)));
        for ((_, e), (a, share)) in self.apps.iter_mut().zip(apps.iter().zip(out)) {
            if e.status == Status::New || !same(&e.share, &share) {
                // With `protect_lenders`, a plan stays valid when only the
                // share grew (the job's own events replan it): what it does
                // not use is leftover for the others.
                let grew = e.live.is_some() && e.share.fits_in(&share);
                e.share = share;
                if !(self.cfg.protect_lenders && grew) {
                    self.dirty.insert(a.id);
                }
            }
        }
        tracing::debug!(apps = apps.len(), replans = self.dirty.len(), "carbyne shares updated");
    }

    /// With `protect_lenders` a plan stands while the app follows it: its
    /// share has not shrunk, no task failed, every running task is within
    /// its expected time, and every ask belongs to a planned stage with no
    /// more tasks than the plan has left for it.
    fn still_valid(&self, ctx: &Ctx, app: &App) -> bool {
        let (Some(e), Some(log)) = (self.apps.get(&app.id), self.logs.get(app.id)) else { return false };
        let Some(live) = e.live.as_ref() else { return false };
        if !live.share.fits_in(&e.share) || log.failed != live.failures {
            return false;
        }
        let Some(asked) = live.asked(app) else { return false };
        if asked.iter().zip(&live.stages).any(|(n, st)| *n > st.due + st.later.iter().map(|(_, c)| c).sum::<i64>()) {
            return false;
        }
        let now = ctx.state.now_ms;
        app.containers
            .iter()
            .filter(|(id, _)| log.am != Some(**id))
            .all(|(_, c)| live.stage_of(&c.key).is_some_and(|s| c.started_ms + live.stages[s].task_ms.ceil() as i64 >= now))
    }

    /// INTRAJOBSCHEDULER for one app, after its P(Altruism) draw.
    fn replan(&mut self, ctx: &Ctx, app: &App) {
        let _span = tracing::debug_span!("carbyne_plan", app = app.id).entered();
        let now = ctx.state.now_ms;
        // The plan's usage is read only by the lease (`protect_lenders`).
        let options = plan::Options { horizon_ms: self.horizon() as f64, usage: self.cfg.protect_lenders };
        let (Some(e), Some(log)) = (self.apps.get_mut(&app.id), self.logs.get(app.id)) else { return };
        self.counters.replans += 1;
        e.draws += 1;
        let failures = log.failed;
        let yields = altruism::yields(self.cfg.p_altruism, self.cfg.seed, app.id, e.draws);
        if yields {
            self.counters.yielding_draws += 1;
        } else {
            self.counters.greedy_draws += 1;
            e.status = Status::Greedy;
            // P = 0 is DRF (§3.4: "reduces CARBYNE to DRF"): no plan, every
            // ask DEFAULT, served in DRF order — as with `greedy_within_share`
            // off at any P.
            if self.cfg.p_altruism <= 0.0 || !self.cfg.greedy_within_share {
                e.live = None;
                return;
            }
        }
        if !stages::asks_for_tasks(app, log) {
            // No plan for an app that asks for nothing (most replans: a
            // job's last wave runs, and each task's end replans it). What
            // the replan keeps of its model comes without walking every
            // running container for its age.
            let outline = stages::outline(ctx, app, log, &self.cfg, &self.apps_cfg);
            e.inference = Some(outline.inference);
            e.stages = outline.stages;
            if yields {
                e.status = if outline.unknown_runtime { Status::NoRuntime } else { Status::NothingAsked };
            }
            e.live = None;
            return;
        }
        let model = stages::model(ctx, app, log, &self.cfg, &self.apps_cfg);
        e.inference = Some(model.inference);
        e.stages = model.stages.len();
        // T_k is a commitment (§3.1: yield and "still complete by T_k").
        // Recomputed from now at every event, the latest starts of the
        // tasks held back would slide with the clock — deferred again at
        // each event until they become critical — and the job would end
        // after the T_k it was planned to meet. Keep the previous target
        // while a reverse packing under the current share still reaches it
        // (`plan::intra_job`); else plan a new T_k. `keep_t_k = false` is
        // the literal reading: a new T_k at every event. `commit_t_k` keeps
        // the target also when a grown share would finish the job earlier.
        // A greedy draw keeps to its share A_k (`plan::greedy`).
        let target = match e.target.map(|(at, _)| (at - now) as f64) {
            Some(ms) if self.cfg.commit_t_k => plan::Target::Commit(ms),
            Some(ms) if self.cfg.keep_t_k => plan::Target::Keep(ms),
            _ => plan::Target::Fresh,
        };
        let planned = if yields { plan::intra_job(&model, &e.share, options, target) } else { plan::greedy(&model, &e.share, options) };
        let Some(p) = planned else {
            if yields {
                e.status = if model.unknown_runtime { Status::NoRuntime } else { Status::NothingAsked };
            }
            e.live = None;
            return;
        };
        self.go_live(app.id, now, failures, model, p, yields);
    }

    /// Make `p` the app's current plan; `yielding`: an altruistic plan (a
    /// greedy one keeps its status and does not move the app's T_k target).
    fn go_live(&mut self, id: AppId, now: i64, failures: u64, model: stages::JobModel, p: plan::Plan, yielding: bool) {
        let Some(e) = self.apps.get_mut(&id) else { return };
        let stages: Vec<LiveStage> = p
            .stages
            .iter()
            .map(|st| LiveStage {
                due: st.due,
                later: st.later.iter().map(|(start, c)| (now + start.round() as i64, *c)).collect(),
                task_ms: st.task_ms,
                demand: st.demand,
            })
            .collect();
        // share and yielded as dominant shares of the scope: yielded ÷ share
        // is the fraction of its share the job leaves to others (§2.2 measures
        // it over Microsoft's DAGs).
        tracing::debug!(
            app = id,
            yielding,
            now_ms = now,
            t_k_ms = p.t_k_ms,
            default = p.default_asked(&model),
            share = e.share.dominant_share(&self.total),
            yielded = p.yielded.dominant_share(&self.total),
            "carbyne plan"
        );
        if yielding {
            e.status = Status::Planned;
            e.target = Some((now + p.t_k_ms.ceil() as i64, e.share));
        }
        let usage = p.usage.iter().map(|(from, to, r)| (now + from.floor() as i64, now + to.ceil() as i64, *r)).collect();
        e.live = Some(Live {
            planned_ms: now,
            t_k_ms: p.t_k_ms,
            share: e.share,
            failures,
            stages,
            key_stage: model.key_stage,
            priority_stage: model.priority_stage,
            yielded: p.yielded,
            remaining_ms: p.remaining_ms,
            usage,
        });
    }

    /// Tasks whose latest start has come become DEFAULT; so do those due
    /// within the horizon that fit in the app's share beside what it holds
    /// and what is already DEFAULT (the rule `plan::intra_job` applies).
    fn promote(&mut self, ctx: &Ctx) -> bool {
        let now = ctx.state.now_ms;
        let until = now + self.horizon();
        if self.next_due_ms.is_none_or(|t| t > until) {
            return false;
        }
        let mut any = false;
        for (id, e) in self.apps.iter_mut() {
            let Some(live) = e.live.as_mut() else { continue };
            // Most plans have nothing due yet: skip them before looking
            // the app up (this runs at every heartbeat with a start due).
            if !live.stages.iter().any(|st| st.later.front().is_some_and(|(at, _)| *at <= until)) {
                continue;
            }
            let held = ctx.state.apps.get(id).map_or(Amount::ZERO, |a| Amount::of(&a.allocated));
            let due_demand = live.stages.iter().fold(Amount::ZERO, |acc, st| acc.plus(&st.demand.scaled(st.due as f64)));
            let mut room = e.share.minus(&held).minus(&due_demand);
            // Earliest first across stages.
            loop {
                let next = live.stages.iter().enumerate().filter_map(|(i, st)| st.later.front().map(|(at, c)| (*at, i, *c))).min();
                let Some((at, i, c)) = next.filter(|(at, _, _)| *at <= until) else { break };
                let st = &mut live.stages[i];
                let take = if at <= now { c } else { room.count_fitting(&st.demand).clamp(0, c) };
                if take == 0 {
                    break;
                }
                room = room.minus(&st.demand.scaled(take as f64));
                if take == c {
                    st.later.pop_front();
                } else if let Some(front) = st.later.front_mut() {
                    front.1 -= take;
                }
                st.due += take;
                any = true;
            }
        }
        self.next_due_ms = self.earliest_later();
        any
    }

    fn earliest_later(&self) -> Option<i64> {
        self.apps
            .values()
            .filter_map(|e| e.live.as_ref())
            .flat_map(|l| l.stages.iter().filter_map(|st| st.later.front().map(|(t, _)| *t)))
            .min()
    }

    /// ALTRUISTIC containers of `app` now, per its plan: per stage, what is
    /// asked beyond what may start now.
    fn altruistic_count(&self, app: &App) -> i64 {
        let Some(live) = self.apps.get(&app.id).and_then(|e| e.live.as_ref()) else { return 0 };
        let mut asked = vec![0i64; live.stages.len()];
        for a in app.asks.values().filter(|a| a.count > 0) {
            if let Some(s) = live.stage_of(&a.key) {
                asked[s] += a.count as i64;
            }
        }
        asked.iter().zip(&live.stages).map(|(n, st)| (n - st.due).max(0)).sum()
    }

    fn default_count(&self, app: &App) -> i64 {
        app.pending_containers() - self.altruistic_count(app)
    }
}

/// Two amounts equal up to float noise (a share recomputed from the same
/// inputs must not trigger a replan).
fn same(a: &Amount, b: &Amount) -> bool {
    // Equal values first: a job whose demand is met keeps exactly its
    // demand as its share from one update to the next (most jobs of a
    // shared cluster), and `==` settles that with one comparison per type.
    // Shares of jobs stopped at a common level usually move in their last
    // bits and take the tolerance, which checks every type without a
    // branch per type: a share within tolerance, the usual case, checks
    // every type anyway (this runs for every app at every share update;
    // 500 apps: ~37 k fewer instructions per update than stopping early).
    a == b || a.0.iter().zip(b.0.iter()).fold(true, |all, (x, y)| all & ((x - y).abs() <= 1e-9 * x.abs().max(y.abs()).max(1.0)))
}

impl Plugin for Carbyne {
    fn name(&self) -> &'static str {
        "carbyne"
    }

    fn on_event(&mut self, ctx: &Ctx, event: &Event) {
        let app = self.logs.on_event(ctx, event);
        match event {
            Event::AppAdded { .. }
            | Event::AppMoved { .. }
            | Event::AskUpdated { .. }
            | Event::AttemptAdded { .. }
            | Event::AttemptRemoved { .. }
            | Event::ContainerRecovered { .. } => {
                self.shares_dirty = true;
                if let Some(id) = app.filter(|id| ctx.state.apps.contains_key(id)) {
                    self.touch(id);
                }
            }
            // The container is gone from the state by now: which app it was
            // is unknown here, so every plan is recomputed (rare).
            Event::AllocationRejected { .. } => {
                self.shares_dirty = true;
                self.replan_all = true;
            }
            Event::NodeAdded { .. } | Event::NodeRemoved { .. } | Event::NodeResourceUpdated { .. } => self.shares_dirty = true,
            _ => {}
        }
    }

    fn on_allocated(&mut self, ctx: &Ctx, c: &Container) {
        self.logs.on_allocated(ctx, c);
        if self.logs.get(c.app).is_some_and(|l| l.am == Some(c.id)) {
            return;
        }
        let Some(e) = self.apps.get_mut(&c.app) else { return };
        let leftover = match e.live.as_mut() {
            None => false,
            Some(live) => match live.stage_of(&c.key) {
                None => false,
                Some(s) if live.stages[s].due > 0 => {
                    live.stages[s].due -= 1;
                    false
                }
                Some(s) => {
                    // An ALTRUISTIC task ran early on the leftover: its planned
                    // start is used up (the earliest, as tasks of a stage are alike).
                    let st = &mut live.stages[s];
                    let slot = st.later.front().map(|(at, _)| *at);
                    if let Some(front) = st.later.front_mut() {
                        front.1 -= 1;
                        if front.1 <= 0 {
                            st.later.pop_front();
                        }
                    }
                    // The lease: the loan runs from now for the task's expected
                    // time; its planned slot is free again.
                    if let Some(p) = self.profile.as_mut() {
                        let d = st.task_ms.ceil() as i64;
                        let until = c.allocated_ms + d;
                        p.add(c.allocated_ms, until, &st.demand);
                        live.usage.push((c.allocated_ms, until, st.demand));
                        if let Some(at) = slot {
                            p.remove(at, at + d, &st.demand);
                            live.usage.push((at, at + d, st.demand.scaled(-1.0)));
                        }
                    }
                    slot.is_some()
                }
            },
        };
        if leftover {
            e.leftover_allocations += 1;
            self.counters.leftover_allocations += 1;
            tracing::trace!(app = c.app, node = c.node, priority = c.key.priority, "carbyne leftover grant");
            if self.grants.len() == GRANTS_KEPT {
                self.grants.pop_front();
            }
            self.grants.push_back(Grant { at_ms: c.allocated_ms, app: c.app, priority: c.key.priority, node: c.node });
        } else {
            e.default_allocations += 1;
            self.counters.default_allocations += 1;
        }
    }

    fn on_container_finished(&mut self, ctx: &Ctx, c: &Container, exit_status: i32, _at_ms: i64) {
        self.logs.on_container_finished(c, exit_status);
        self.shares_dirty = true;
        if ctx.state.apps.contains_key(&c.app) {
            self.touch(c.app);
        }
        if outcome(exit_status) == Outcome::Failed {
            // §3.4 "Handling Task Failures": T_k must be recomputed
            // (the app is dirty like on any completion; counted here).
            self.counters.task_failures += 1;
        }
    }

    /// The app's plan and stage log go; the apps left share its guarantee
    /// anew (DRF, Pseudocode 1's INTERJOBSCHEDULER).
    fn on_app_removed(&mut self, _ctx: &Ctx, app: &App) {
        self.apps.remove(&app.id);
        self.dirty.remove(&app.id);
        self.logs.forget(app.id);
        self.shares_dirty = true;
    }

    /// As when it finishes: the apps left in this queue share its
    /// guarantee anew.
    fn on_app_moved_out(&mut self, ctx: &Ctx, app: &App) {
        self.on_app_removed(ctx, app);
    }

    fn next_tick_ms(&self) -> Option<i64> {
        self.next_due_ms.map(|t| t - self.horizon())
    }

    fn tick(&mut self, ctx: &Ctx, _now_ms: i64) -> bool {
        self.refresh(ctx)
    }

    fn prepare(&mut self, ctx: &Ctx, _node: NodeId) {
        self.refresh(ctx);
    }

    /// Plans are made at the time of the pass that finds them stale.
    fn capabilities(&self) -> Capabilities {
        Capabilities { prepare_moves_state: true, ..Capabilities::NONE }
    }

    fn state_json(&self, ctx: &Ctx) -> serde_json::Value {
        view::state_json(self, ctx)
    }

    fn app_json(&self, ctx: &Ctx, app: &App) -> Option<serde_json::Value> {
        view::app_json(self, ctx, app)
    }

    fn gauges(&self, ctx: &Ctx) -> Vec<Gauge> {
        view::gauges(self, ctx)
    }
}

impl AskClassifier for Carbyne {
    /// DEFAULT when the plan says the task must start now (or there is no
    /// plan: greedy draw, no runtime known, a key the plan has not seen).
    fn is_default(&self, _ctx: &Ctx, app: &App, ask: &Ask) -> bool {
        if self.logs.get(app.id).is_some_and(|l| l.is_am_ask(&ask.key)) {
            return true;
        }
        let Some(live) = self.apps.get(&app.id).and_then(|e| e.live.as_ref()) else { return true };
        match live.stage_of(&ask.key) {
            Some(s) => live.stages[s].due > 0,
            None => true,
        }
    }

    /// With the leftover lease: only if the task, for its expected time,
    /// fits beside every plan's usage (see [`lease`]).
    /// With `leftover_cap`: only while the app's allocation with the
    /// container stays within `leftover_cap` × A_k (dominant shares).
    fn may_take_leftover(&self, ctx: &Ctx, app: &App, ask: &Ask, _node: &crate::model::Node) -> bool {
        if self.cfg.leftover_cap > 0.0 {
            let share = self.apps.get(&app.id).map_or(Amount::ZERO, |e| e.share).dominant_share(&self.total);
            let after = Amount::of(&(app.allocated + ask.capability)).dominant_share(&self.total);
            if after > self.cfg.leftover_cap * share + 1e-12 {
                return false;
            }
        }
        let Some(profile) = self.profile.as_ref().filter(|_| self.cfg.protect_lenders) else { return true };
        let Some(live) = self.apps.get(&app.id).and_then(|e| e.live.as_ref()) else { return true };
        let Some(st) = live.stage_of(&ask.key).map(|s| &live.stages[s]) else { return true };
        profile.fits(&self.total, &st.demand, ctx.state.now_ms + st.task_ms.ceil() as i64)
    }
}
