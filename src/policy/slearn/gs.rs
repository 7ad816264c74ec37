//! `app_order = "gs"`: SLearn's generic scheduler GS (§5.1.1).
//!
//! N priority queues Q₀ … Q_{N−1} by job size (container-ms): Q₀ˡᵒ = 0,
//! Q_{q+1}ˡᵒ = Q_qʰⁱ, Q_{q+1}ʰⁱ = E · Q_qʰⁱ, Q_{N−1}ʰⁱ = ∞ (defaults of
//! §5.2.1: N = 10, Q₀ʰⁱ = 10⁶ ms, E = 10). An app's queue comes from its
//! estimated total size (mean task runtime × tasks, the estimate point) and
//! is demoted by the service it attains once that passes the estimate.
//! With SLearn (§5.1.2): a thin app starts in Q₀ and a sampled app waits in
//! the sampling queue Q₁ until its pilots place it; an app SLearn does not
//! sample (containers that are not tasks) is placed by attained service.
//!
//! Inside a queue, FIFO. Across queues, weighted sharing: queue q has weight
//! 1/w^q (w = 10, "decrease exponentially by a factor of 10"), and the next
//! container goes to the queue with the lowest usage ÷ weight (usage = the
//! dominant share of the scope its apps hold), ties to the higher-priority
//! queue. A queue that holds nothing is always served before one that holds
//! something, so no queue with demand starves however busy the ones above it
//! are ("Starvation avoidance").
//!
//! Usage is recounted at the start of every pass and kept current as the
//! pass allocates. Since an app's key depends on its queue's usage, the
//! queues are the order's levels (`Capabilities::levels`): the pass keeps each
//! queue's candidates apart, FIFO, and picks the queue by its usage ÷
//! weight after every container.

use crate::config::GsConfig;
use crate::event::Event;
use crate::model::{App, AppId, Container, NodeId};
use crate::policy::points::{AppOrder, Capabilities, Ctx, Plugin, Sampling};
use crate::policy::{Gauge, SortKey};

/// The queue SLearn samples in: the second highest (§5.1.2, "Fast sampling").
pub const SAMPLING_QUEUE: usize = 1;

pub struct Gs {
    /// Q_qʰⁱ of each queue but the last (whose is ∞).
    upper: Vec<f64>,
    weights: Vec<f64>,
    /// Dominant share of the scope each queue's apps hold.
    used: Vec<f64>,
    apps: Vec<u32>,
    /// `prepare`'s memo: each app of the scope (ascending id, the scope's
    /// order), its queue and its dominant share of the scope, `None` once a
    /// container of the app was committed; valid at `memo_at` (state epoch,
    /// instant) only.
    ///
    /// Every pass recounts the queues' usage (the weighted sharing of §5.1.1
    /// reads it), and an app's queue comes from the estimator (its sampling
    /// phase and estimated size) and its attained service at the instant:
    /// two estimator look-ups per app per pass were most of SLearn's cost
    /// in the simulator, where a heartbeat round makes a pass on every node
    /// with room at one instant. Within one epoch and instant the apps of
    /// the scope stay, and only the containers the passes commit change an
    /// app's inputs, so the other apps' queues and shares are kept. The
    /// usage is summed afresh over all of them, in the same order, so every
    /// value is the one a full recount gives.
    memo: Vec<(AppId, Option<(usize, f64)>)>,
    memo_at: Option<(u64, i64)>,
}

impl Gs {
    pub fn new(c: &GsConfig) -> Gs {
        let n = c.queues.max(2) as usize;
        let upper = (0..n - 1).map(|q| c.first_threshold_ms * c.growth.powi(q as i32)).collect();
        let weights = (0..n).map(|q| c.weight_ratio.powi(-(q as i32))).collect();
        Gs { upper, weights, used: vec![0.0; n], apps: vec![0; n], memo: Vec::new(), memo_at: None }
    }

    pub fn queues(&self) -> usize {
        self.weights.len()
    }

    /// Q_qʰⁱ (∞ for the last queue).
    pub fn upper_threshold(&self, q: usize) -> f64 {
        self.upper.get(q).copied().unwrap_or(f64::INFINITY)
    }

    pub fn weight(&self, q: usize) -> f64 {
        self.weights[q]
    }

    /// The queue of a job of `size_ms`: Q_qˡᵒ ≤ size < Q_qʰⁱ.
    ///
    /// The thresholds ascend (`growth` > 1), so the queue is the number of
    /// leading thresholds at or below the size: a scan from Q₀ that stops
    /// at the first one above it. Most apps sit in the first queues, so it
    /// stops after a compare or two, where a binary search over the N − 1
    /// thresholds always made log₂ N dependent ones (`prepare` asks this
    /// for every app at every pass: it was SLearn's largest cost in the
    /// simulator).
    pub fn queue_of_size(&self, size_ms: f64) -> usize {
        self.upper.iter().take_while(|hi| **hi <= size_ms).count()
    }

    /// The queue `app` is in now (see the module doc).
    pub fn queue_of(&self, ctx: &Ctx, app: &App) -> usize {
        let attained = app.attained_ms(ctx.state.now_ms) as f64;
        // The queue by attained service only where the branch uses it.
        let by_attained = || self.queue_of_size(attained);
        match ctx.sampling(app) {
            Some(Sampling::Thin) | Some(Sampling::FellBack) => by_attained(),
            Some(Sampling::Pilots { .. }) => by_attained().max(SAMPLING_QUEUE),
            Some(Sampling::Estimated) | None => {
                let size = ctx.estimate(app).map_or(0.0, |e| e.size_ms.max(attained + e.remaining_ms));
                self.queue_of_size(size.max(attained))
            }
        }
    }

    /// `queue_of`, from `prepare`'s memo where it holds the app at this
    /// epoch and instant (the pass keys every candidate app after its
    /// `prepare`: the same queue, without the estimator look-ups).
    fn current_queue(&self, ctx: &Ctx, app: &App) -> usize {
        let memo = (self.memo_at == Some((ctx.state.epoch, ctx.state.now_ms)))
            .then(|| self.memo.binary_search_by_key(&app.id, |(id, _)| *id).ok().and_then(|i| self.memo[i].1))
            .flatten();
        match memo {
            Some((q, _)) => q,
            None => self.queue_of(ctx, app),
        }
    }

    /// Usage ÷ weight of queue `q`: the lower, the sooner it is served.
    fn load(&self, q: usize) -> f64 {
        self.used[q] / self.weights[q]
    }

    /// The key of `app` in queue `q`: (q's usage ÷ weight, q, arrival, id).
    fn key_in(&self, q: usize, app: &App) -> SortKey {
        // Queue index above any submission time in ms (< 10¹³ ≈ 300 years).
        SortKey::new(self.load(q), q as f64 * 1e13 + app.submit_ms as f64, app.id as i64)
    }
}

impl Plugin for Gs {
    fn name(&self) -> &'static str {
        "gs"
    }

    /// An app's key is its GS queue's usage ÷ weight, which every other
    /// app's container in that queue moves. GS's priority queues are the
    /// levels: every app of queue q has q's usage ÷ weight as its
    /// `primary`, and nothing else in its key moves when another app gets
    /// a container.
    fn capabilities(&self) -> Capabilities {
        Capabilities { keys_go_stale: true, levels: self.queues(), prepare_moves_state: true, ..Capabilities::NONE }
    }

    /// Recount each queue's usage and apps.
    fn prepare(&mut self, ctx: &Ctx, _node: NodeId) {
        self.used.iter_mut().for_each(|u| *u = 0.0);
        self.apps.iter_mut().for_each(|a| *a = 0);
        let total = ctx.scope.capacity(ctx.state);
        let at = (ctx.state.epoch, ctx.state.now_ms);
        let mut memo = std::mem::take(&mut self.memo);
        let mut kept = self.memo_at == Some(at);
        if kept {
            // Only the apps given a container since the last pass.
            for (id, e) in memo.iter_mut().filter(|(_, e)| e.is_none()) {
                let Some(app) = ctx.state.apps.get(id) else {
                    kept = false;
                    break;
                };
                *e = Some((self.queue_of(ctx, app), app.allocated.dominant_share(&total)));
            }
        }
        if !kept {
            memo.clear();
            for app in ctx.scope.apps(ctx.state) {
                memo.push((app.id, Some((self.queue_of(ctx, app), app.allocated.dominant_share(&total)))));
            }
        }
        for (q, share) in memo.iter().filter_map(|(_, e)| *e) {
            self.used[q] += share;
            self.apps[q] += 1;
        }
        self.memo = memo;
        self.memo_at = Some(at);
    }

    // Anything but a committed container may move any app's queue: the
    // memo goes (the engine's epoch moves as well; this keeps the memo
    // right for a driver that calls the hooks itself).
    fn on_event(&mut self, _ctx: &Ctx, _event: &Event) {
        self.memo_at = None;
    }

    fn on_container_finished(&mut self, _ctx: &Ctx, _c: &Container, _exit_status: i32, _at_ms: i64) {
        self.memo_at = None;
    }

    fn on_app_removed(&mut self, _ctx: &Ctx, _app: &App) {
        self.memo_at = None;
    }

    fn on_app_moved_out(&mut self, _ctx: &Ctx, _app: &App) {
        self.memo_at = None;
    }

    fn on_allocated(&mut self, ctx: &Ctx, c: &Container) {
        // The app's service and the estimator's view of it (SLearn counts
        // its pilots) moved: its queue is found again at the next pass.
        if let Ok(i) = self.memo.binary_search_by_key(&c.app, |(id, _)| *id) {
            self.memo[i].1 = None;
        }
        if let Some(app) = ctx.state.apps.get(&c.app) {
            let q = self.queue_of(ctx, app);
            self.used[q] += c.resources.dominant_share(&ctx.scope.capacity(ctx.state));
        }
    }

    fn state_json(&self, _ctx: &Ctx) -> serde_json::Value {
        let queues: Vec<_> = (0..self.queues())
            .map(|q| {
                let hi = self.upper_threshold(q);
                serde_json::json!({
                    "queue": q,
                    "upper_threshold_ms": hi.is_finite().then_some(hi),
                    "weight": self.weights[q],
                    "apps": self.apps[q],
                    "used_share": self.used[q],
                })
            })
            .collect();
        serde_json::json!({ "sampling_queue": SAMPLING_QUEUE, "queues": queues })
    }

    fn app_json(&self, ctx: &Ctx, app: &App) -> Option<serde_json::Value> {
        Some(serde_json::json!({ "queue": self.queue_of(ctx, app) }))
    }

    fn gauges(&self, _ctx: &Ctx) -> Vec<Gauge> {
        let mut out = Vec::new();
        for q in 0..self.queues() {
            let level = q.to_string();
            out.push(
                Gauge::new("slearn_gs_queue_apps", self.apps[q] as f64, "Apps in GS priority queue (0 = highest)")
                    .label("level", level.clone()),
            );
            out.push(
                Gauge::new("slearn_gs_queue_used_ratio", self.used[q], "Dominant share of the scope held by the GS queue's apps")
                    .label("level", level.clone()),
            );
            out.push(
                Gauge::new("slearn_gs_queue_weight_ratio", self.weights[q], "Weighted-sharing weight of the GS queue")
                    .label("level", level),
            );
        }
        out
    }
}

impl AppOrder for Gs {
    /// (queue usage ÷ weight, queue, arrival, id).
    fn key(&self, ctx: &Ctx, app: &App) -> SortKey {
        self.key_in(self.current_queue(ctx, app), app)
    }

    fn levelled_key(&self, ctx: &Ctx, app: &App) -> (usize, SortKey) {
        let q = self.current_queue(ctx, app);
        (q, self.key_in(q, app))
    }

    fn level_primary(&self, level: usize) -> f64 {
        self.load(level)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thresholds_grow_by_e_and_weights_fall_by_ten() {
        let g = Gs::new(&GsConfig::default());
        assert_eq!(g.queues(), 10);
        assert_eq!(g.upper_threshold(0), 1e6);
        assert_eq!(g.upper_threshold(1), 1e7);
        assert_eq!(g.upper_threshold(8), 1e14);
        assert_eq!(g.upper_threshold(9), f64::INFINITY);
        for q in 0..10 {
            assert!((g.weight(q) - 10f64.powi(-(q as i32))).abs() < 1e-18, "weight {q}");
        }
        // Q_qˡᵒ ≤ size < Q_qʰⁱ.
        assert_eq!(g.queue_of_size(0.0), 0);
        assert_eq!(g.queue_of_size(999_999.0), 0);
        assert_eq!(g.queue_of_size(1e6), 1);
        assert_eq!(g.queue_of_size(5e7), 2);
        assert_eq!(g.queue_of_size(1e20), 9);
        let g = Gs::new(&GsConfig { queues: 3, first_threshold_ms: 100.0, growth: 2.0, weight_ratio: 4.0 });
        assert_eq!((g.upper_threshold(0), g.upper_threshold(1), g.upper_threshold(2)), (100.0, 200.0, f64::INFINITY));
        assert_eq!((g.weight(1), g.weight(2)), (0.25, 0.0625));
        assert_eq!((g.queue_of_size(150.0), g.queue_of_size(250.0)), (1, 2));
    }
}
