//! `estimate = "slearn"`: SLearn's task-sampling-based size estimator
//! (§5.1.2), shared by every pipeline that names it; it sees the apps of
//! those pipelines only (`PolicySet::visit`).
//!
//! **Thin or wide.** When an app asks for its first task containers (its
//! first scheduler key other than the AM's), the count it asks for is its
//! first stage's width n. Fewer than `thin_limit` tasks: the app is thin,
//! not sampled (GS puts it in the top queue). Otherwise it is sampled: the
//! first ⌈r·n⌉ containers the first stage gets are its pilots, r from the
//! adaptive algorithm of Fig. 4 (`ratio.rs`) or `fixed_ratio`.
//!
//! **Which tasks are pilots.** YARN asks are counts per scheduler key, so
//! the scheduler cannot pick tasks: the pilots are the first ⌈r·n⌉
//! containers it grants for that key, and the ApplicationMaster decides
//! which task runs in each (MapReduce: the next map in its list, which for
//! a split input is as good as random). The `pilots` classifier holds the
//! key's other containers back until the pilots finish.
//!
//! **Estimate.** Once every pilot has finished, the job's size is the
//! empirical mean of the pilots' runtimes × n (§5.1.2, "How to estimate
//! from sampled tasks"), plus the later stages of a DAG from history scaled
//! by d_s/d_h (§6, `dag.rs`); confidence m/(m+1) for m pilots (the error of
//! a sampled mean shrinks as σ₁²/m, §4.1). Until then the estimate is a
//! prior (confidence 0). Thin apps are estimated the same way from their own
//! finished tasks.
//!
//! **Containers that are not tasks.** An app whose YARN application type is
//! in `[apps] executor_app_types` (Spark executors, YARN services), or none of
//! whose pilots finished within `pilot_timeout_ms` of the first one starting
//! (long-running containers), falls back: no sampling, placed by attained
//! service. If some pilots finished by then, the estimate uses those.
//!
//! **Learning the ratio.** When a sampled app leaves, its normalized JCT
//! (JCT ÷ its mean task runtime, the job's runtime were its tasks all run
//! at once) updates the score of the ratio it was sampled with (Fig. 4).

use super::dag::{later_stages, StageHistory};
use super::errors::ErrorLog;
use super::ratio::{pilot_count, AdaptiveRatio, ADAPTIVE_PERCENTS};
use crate::config::{AppsConfig, SLearnConfig};
use crate::event::Event;
use crate::model::{App, AppId, ClusterState, Container, ContainerId, SchedulerKey};
use crate::policy::points::{Ctx, Estimate, Estimator, Plugin, Sampling};
use crate::policy::Gauge;
use std::collections::{BTreeMap, BTreeSet};

/// Running mean of task runtimes.
#[derive(Debug, Default, Clone, Copy)]
struct Mean {
    sum_ms: f64,
    n: u32,
}

impl Mean {
    fn add(&mut self, ms: f64) {
        self.sum_ms += ms;
        self.n += 1;
    }
    fn get(&self) -> Option<f64> {
        (self.n > 0).then(|| self.sum_ms / self.n as f64)
    }
}

/// One scheduler key of an app (a stage), in the order it asked for them.
#[derive(Debug, Clone)]
struct Stage {
    key: SchedulerKey,
    /// Tasks the stage has: the most it ever had granted + outstanding.
    width: u32,
    granted: u32,
    done: Mean,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FallBack {
    /// The app type's containers are not tasks (`[apps] executor_app_types`).
    AppType,
    /// No pilot finished within `pilot_timeout_ms`.
    Timeout,
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Phase {
    Thin,
    Pilots,
    Estimated,
    FellBack(FallBack),
}

/// What SLearn knows of one live app that has asked for tasks.
#[derive(Debug, Clone)]
struct Tracked {
    /// Job key (user + name) its stage history is kept under.
    job: String,
    stages: Vec<Stage>,
    phase: Phase,
    /// r it was sampled with, and the adaptive percent (for Fig. 4's score).
    ratio: Option<f64>,
    percent: Option<u32>,
    wanted: u32,
    pilots: Vec<ContainerId>,
    pilot_ms: Vec<f64>,
    deadline: Option<i64>,
    /// The size predicted when the app was placed (pilots finished).
    predicted_ms: Option<f64>,
    last_end_ms: i64,
}

impl Tracked {
    fn first(&self) -> &Stage {
        &self.stages[0]
    }

    fn stage_mut(&mut self, key: SchedulerKey) -> &mut Stage {
        let i = match self.stages.iter().position(|s| s.key == key) {
            Some(i) => i,
            None => {
                self.stages.push(Stage { key, width: 0, granted: 0, done: Mean::default() });
                self.stages.len() - 1
            }
        };
        &mut self.stages[i]
    }

    /// Runtime of all the app's finished tasks.
    fn task_work(&self) -> Mean {
        let mut m = Mean::default();
        for s in &self.stages {
            m.sum_ms += s.done.sum_ms;
            m.n += s.done.n;
        }
        m
    }
}

pub struct SLearn {
    cfg: SLearnConfig,
    /// `[apps]`: whose containers are executors (never sampled).
    apps_cfg: AppsConfig,
    apps: BTreeMap<AppId, Tracked>,
    adaptive: AdaptiveRatio,
    /// Pilot time-outs still pending: (deadline, app).
    deadlines: BTreeSet<(i64, AppId)>,
    history: StageHistory,
    errors: ErrorLog,
    thin_total: u64,
    sampled_total: u64,
    estimated_total: u64,
    fallback_total: u64,
}

fn job_key(app: &App) -> String {
    format!("{}\u{1f}{}", app.user, app.name)
}

impl SLearn {
    pub fn new(cfg: &SLearnConfig, apps_cfg: &AppsConfig) -> SLearn {
        SLearn {
            cfg: cfg.clone(),
            apps_cfg: apps_cfg.clone(),
            apps: BTreeMap::new(),
            adaptive: AdaptiveRatio::new(cfg.window),
            deadlines: BTreeSet::new(),
            history: StageHistory::new(cfg.window),
            errors: ErrorLog::default(),
            thin_total: 0,
            sampled_total: 0,
            estimated_total: 0,
            fallback_total: 0,
        }
    }

    /// Stop tracking `app`: its record, and its pilots' time-out.
    fn untrack(&mut self, app: AppId) -> Option<Tracked> {
        let t = self.apps.remove(&app)?;
        if let Some(d) = t.deadline {
            self.deadlines.remove(&(d, app));
        }
        Some(t)
    }

    fn adaptive(&self) -> bool {
        self.cfg.fixed_ratio == 0.0
    }

    /// The ratio the next sampled app gets.
    pub fn next_ratio(&self) -> f64 {
        if self.adaptive() {
            self.adaptive.peek() as f64 / 100.0
        } else {
            self.cfg.fixed_ratio
        }
    }

    /// The app asked for its first task containers: thin, sampled, or not
    /// sampled at all (§5.1.2, "Basic operations").
    fn admit(&mut self, app: &App, key: SchedulerKey, width: u32) -> Tracked {
        let mut t = Tracked {
            job: job_key(app),
            stages: vec![Stage { key, width, granted: 0, done: Mean::default() }],
            phase: Phase::Thin,
            ratio: None,
            percent: None,
            wanted: 0,
            pilots: Vec::new(),
            pilot_ms: Vec::new(),
            deadline: None,
            predicted_ms: None,
            last_end_ms: 0,
        };
        if self.apps_cfg.runs_executors(&app.app_type) {
            t.phase = Phase::FellBack(FallBack::AppType);
            self.fallback_total += 1;
        } else if width < self.cfg.thin_limit {
            self.thin_total += 1;
        } else {
            let (r, percent) = if self.adaptive() {
                let p = self.adaptive.choose();
                (p as f64 / 100.0, Some(p))
            } else {
                (self.cfg.fixed_ratio, None)
            };
            t.phase = Phase::Pilots;
            t.ratio = Some(r);
            t.percent = percent;
            t.wanted = pilot_count(width, r);
            self.sampled_total += 1;
        }
        t
    }

    /// The pilots are done (all finished, or the time-out with some
    /// finished): the prediction that places the app.
    fn conclude(&mut self, id: AppId) {
        let Some(t) = self.apps.get_mut(&id) else { return };
        let stages = self.history.stages(&t.job);
        t.phase = Phase::Estimated;
        if let Some(d) = t.deadline.take() {
            self.deadlines.remove(&(d, id));
        }
        t.predicted_ms = predicted_size(t, &stages);
        self.estimated_total += 1;
    }
}

/// The pilots' (or, unsampled, the first stage's finished tasks') mean
/// task runtime and how many tasks it rests on.
fn first_stage_mean(t: &Tracked) -> Option<(f64, u32)> {
    match t.phase {
        Phase::Pilots => None,
        Phase::Estimated if !t.pilot_ms.is_empty() => Some((crate::metrics::stats::mean(&t.pilot_ms), t.pilot_ms.len() as u32)),
        _ => t.first().done.get().map(|m| (m, t.first().done.n)),
    }
}

/// §5.1.1's job size (mean task runtime × tasks) for the first stage, and
/// §6 for the rest.
fn predicted_size(t: &Tracked, history: &[Option<f64>]) -> Option<f64> {
    let (mean, _) = first_stage_mean(t)?;
    let d_s = mean * t.first().width as f64;
    let visible: Vec<f64> = t.stages.iter().map(|s| s.width as f64 * s.done.get().unwrap_or(mean)).collect();
    Some(d_s + later_stages(d_s, history, &visible))
}

impl Plugin for SLearn {
    fn name(&self) -> &'static str {
        "slearn"
    }

    fn on_event(&mut self, ctx: &Ctx, event: &Event) {
        let Event::AskUpdated { app: id, ask } = event else { return };
        let Some(app) = ctx.state.apps.get(id) else { return };
        if app.is_am_ask(ask) {
            return;
        }
        let count = ask.count.max(0) as u32;
        match self.apps.get_mut(id) {
            Some(t) => {
                let s = t.stage_mut(ask.key);
                s.width = s.width.max(s.granted + count);
            }
            None if count > 0 => {
                let mut t = self.admit(app, ask.key, count);
                t.last_end_ms = ctx.state.now_ms;
                self.apps.insert(*id, t);
            }
            None => {}
        }
    }

    fn on_allocated(&mut self, ctx: &Ctx, c: &Container) {
        if c.am {
            return;
        }
        let timeout = self.cfg.pilot_timeout_ms;
        let Some(t) = self.apps.get_mut(&c.app) else { return };
        let first = t.first().key;
        t.stage_mut(c.key).granted += 1;
        if t.phase == Phase::Pilots && c.key == first && (t.pilots.len() as u32) < t.wanted {
            t.pilots.push(c.id);
            if t.deadline.is_none() && timeout > 0 {
                let d = ctx.state.now_ms.max(c.allocated_ms) + timeout;
                t.deadline = Some(d);
                self.deadlines.insert((d, c.app));
            }
        }
    }

    fn on_container_finished(&mut self, ctx: &Ctx, c: &Container, _exit_status: i32, at_ms: i64) {
        let Some(t) = self.apps.get_mut(&c.app) else { return };
        t.last_end_ms = t.last_end_ms.max(at_ms);
        if c.am {
            return;
        }
        let ran = (at_ms - c.launched_ms.unwrap_or(c.allocated_ms)).max(0) as f64;
        t.stage_mut(c.key).done.add(ran);
        if t.phase != Phase::Pilots || !t.pilots.contains(&c.id) {
            return;
        }
        t.pilot_ms.push(ran);
        let all_placed = t.pilots.len() as u32 >= t.wanted
            || ctx.state.apps.get(&c.app).is_none_or(|a| a.asks.get(&t.first().key).is_none_or(|k| k.count <= 0));
        if all_placed && t.pilot_ms.len() == t.pilots.len() {
            self.conclude(c.app);
        }
    }

    /// Not a finished job: no JCT to score its sampling ratio with (Fig. 4),
    /// no estimation error, no stage history.
    fn on_app_moved_out(&mut self, _ctx: &Ctx, app: &App) {
        self.untrack(app.id);
    }

    fn on_app_removed(&mut self, ctx: &Ctx, app: &App) {
        let Some(t) = self.untrack(app.id) else { return };
        let work = t.task_work();
        if let Some(p) = t.predicted_ms {
            self.errors.record(&app.yarn_id, p, work.sum_ms);
        }
        // Fig. 4, UpdateScoreOnJobCompletion: JCT normalized by the job's
        // runtime (its mean task runtime).
        if let (Some(percent), Some(mean)) = (t.percent, work.get()) {
            let end = ctx.state.now_ms.max(t.last_end_ms);
            if mean > 0.0 {
                self.adaptive.record(percent, (end - app.submit_ms) as f64 / mean);
            }
        }
        let stage_work: Vec<f64> = t.stages.iter().map(|s| s.done.sum_ms).collect();
        self.history.learn(&t.job, &stage_work);
    }

    fn next_tick_ms(&self) -> Option<i64> {
        self.deadlines.first().map(|(d, _)| *d)
    }

    /// Pilot time-outs (see the module doc): estimate from the pilots that
    /// finished, or fall back when none did.
    fn tick(&mut self, _ctx: &Ctx, now_ms: i64) -> bool {
        let mut changed = false;
        while let Some(&(d, id)) = self.deadlines.first() {
            if d > now_ms {
                break;
            }
            self.deadlines.remove(&(d, id));
            let Some(t) = self.apps.get_mut(&id) else { continue };
            t.deadline = None;
            if t.phase != Phase::Pilots {
                continue;
            }
            changed = true;
            if t.pilot_ms.is_empty() {
                t.phase = Phase::FellBack(FallBack::Timeout);
                self.fallback_total += 1;
            } else {
                self.conclude(id);
            }
        }
        changed
    }

    fn state_json(&self, _ctx: &Ctx) -> serde_json::Value {
        let mut phases: BTreeMap<&str, u64> = BTreeMap::new();
        for t in self.apps.values() {
            *phases.entry(phase_name(t.phase)).or_default() += 1;
        }
        serde_json::json!({
            "config": self.cfg,
            "next_ratio": self.next_ratio(),
            "adaptive": self.adaptive(),
            "ratio_scores": self.adaptive.scores_json(),
            "live_apps": phases,
            "thin_total": self.thin_total,
            "sampled_total": self.sampled_total,
            "estimated_total": self.estimated_total,
            "fallback_total": self.fallback_total,
            "history_jobs": self.history.jobs(),
            "estimation_error": {
                "apps": self.errors.total,
                "p50": self.errors.percentile(50.0),
                "p90": self.errors.percentile(90.0),
                "last": self.errors.last(20),
            },
        })
    }

    fn app_json(&self, _ctx: &Ctx, app: &App) -> Option<serde_json::Value> {
        let t = self.apps.get(&app.id)?;
        Some(serde_json::json!({
            "phase": phase_name(t.phase),
            "fallback": match t.phase { Phase::FellBack(w) => Some(w), _ => None },
            "first_stage_width": t.first().width,
            "ratio": t.ratio,
            "pilots_wanted": t.wanted,
            "pilots_placed": t.pilots.len(),
            "pilot_runtimes_ms": t.pilot_ms,
            "predicted_ms": t.predicted_ms,
        }))
    }

    fn gauges(&self, _ctx: &Ctx) -> Vec<Gauge> {
        let mut out =
            vec![Gauge::new("slearn_sampling_ratio", self.next_ratio(), "Sampling ratio r the next wide app gets (Fig. 4 when adaptive)")];
        let mut phases: BTreeMap<&str, u64> = ["thin", "sampling", "estimated", "fallback"].into_iter().map(|p| (p, 0)).collect();
        let mut running = 0;
        for t in self.apps.values() {
            *phases.entry(phase_name(t.phase)).or_default() += 1;
            if t.phase == Phase::Pilots {
                running += t.pilots.len() - t.pilot_ms.len();
            }
        }
        for (p, n) in phases {
            out.push(Gauge::new("slearn_apps", n as f64, "Live apps SLearn tracks, by phase").label("phase", p));
        }
        out.push(Gauge::new("slearn_pilots_running", running as f64, "Pilot containers granted and not finished"));
        out.push(Gauge::counter("slearn_thin_apps_total", self.thin_total as f64, "Apps narrower than thin_limit (not sampled)"));
        out.push(Gauge::counter("slearn_sampled_apps_total", self.sampled_total as f64, "Wide apps sampled with pilot tasks"));
        out.push(Gauge::counter(
            "slearn_estimated_apps_total",
            self.estimated_total as f64,
            "Sampled apps placed by their pilots' estimate",
        ));
        out.push(Gauge::counter(
            "slearn_fallback_apps_total",
            self.fallback_total as f64,
            "Apps not sampled: containers that are not tasks",
        ));
        out.push(Gauge::counter(
            "slearn_finished_estimated_apps_total",
            self.errors.total as f64,
            "Finished apps whose estimation error was recorded",
        ));
        for (name, p) in [("slearn_estimation_error_p50_ratio", 50.0), ("slearn_estimation_error_p90_ratio", 90.0)] {
            if let Some(v) = self.errors.percentile(p) {
                out.push(Gauge::new(name, v, "|predicted - actual| / actual task work over the last 1000 finished sampled apps"));
            }
        }
        if self.adaptive() {
            for (p, s) in self.adaptive.scored_percents() {
                out.push(
                    Gauge::new(
                        "slearn_ratio_score_ratio",
                        s,
                        "Fig. 4 running score: mean normalized JCT of recent jobs sampled at this ratio",
                    )
                    .label("ratio", format!("{:.2}", p as f64 / 100.0)),
                );
            }
            debug_assert!(ADAPTIVE_PERCENTS.contains(&self.adaptive.peek()));
        }
        out
    }
}

fn phase_name(p: Phase) -> &'static str {
    match p {
        Phase::Thin => "thin",
        Phase::Pilots => "sampling",
        Phase::Estimated => "estimated",
        Phase::FellBack(_) => "fallback",
    }
}

impl Estimator for SLearn {
    fn estimate(&self, state: &ClusterState, app: &App) -> Option<Estimate> {
        let attained = app.attained_ms(state.now_ms) as f64;
        let prior = Estimate { size_ms: attained, remaining_ms: 0.0, confidence: 0.0 };
        let Some(t) = self.apps.get(&app.id) else { return Some(prior) };
        let (size, m) = match t.phase {
            Phase::Pilots => return Some(prior),
            Phase::Estimated => match t.predicted_ms {
                Some(p) => (p, t.pilot_ms.len() as u32),
                None => return Some(prior),
            },
            Phase::Thin | Phase::FellBack(_) => {
                let Some((_, m)) = first_stage_mean(t) else { return Some(prior) };
                let Some(size) = predicted_size(t, &self.history.stages(&t.job)) else { return Some(prior) };
                (size, m)
            }
        };
        let confidence = m as f64 / (m as f64 + 1.0);
        Some(Estimate { size_ms: size, remaining_ms: (size - attained).max(0.0), confidence })
    }

    fn sampling(&self, app: &App) -> Option<Sampling> {
        let t = self.apps.get(&app.id)?;
        Some(match t.phase {
            Phase::Thin => Sampling::Thin,
            Phase::Pilots => Sampling::Pilots { key: t.first().key, wanted: t.wanted, placed: t.pilots.len() as u32 },
            Phase::Estimated => Sampling::Estimated,
            Phase::FellBack(_) => Sampling::FellBack,
        })
    }

    fn predicts_after_admission(&self) -> bool {
        true
    }
}
