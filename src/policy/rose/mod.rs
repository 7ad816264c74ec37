//! ROSE (Sun et al., ICDCS'18; `papers/rose-speculative-oversubscription.txt`)
//! as the plugin of the *oversubscribe* point: speculative (OPPORTUNISTIC)
//! containers on capacity that is allocated but idle.
//!
//! * [`lla`] — Algorithm 1: each node's load level from its window of
//!   NodeManager utilization samples (and the sidecar's estimate).
//! * [`rating`] — Algorithm 2 (TBAMR): penalties from failed, killed,
//!   evicted and straggling containers per node.
//! * [`filter`] — Algorithm 3 (MMF): the candidate nodes, recomputed every
//!   `refresh_ms` (the paper's Cluster Aggregator period).
//! * The threshold controller (§III-A Step 4, §V-B) lives here: a node
//!   takes speculative containers while capacity × bound − LLA estimate −
//!   the requests of speculative containers too young to show in the
//!   samples leaves room, and none while its newest measured use is over
//!   the bound; when measured use crosses the eviction bound (and, with
//!   `evict_after_ms`, has stayed over it that long), speculative
//!   containers go, newest first, until the requests taken back cover the
//!   excess over the placement bound.
//!
//! What deviates from the paper: ROSE's AMs ask NodeManagers directly and
//! NMs queue speculative tasks; here the engine (the RM side) places them
//! on the candidates at the node's heartbeat, because the shim drives
//! unmodified AMs. The queue index is the number of speculative
//! containers already on the node. Nothing is waiting in an NM queue.

mod extremes;
pub mod filter;
pub mod lla;
pub mod rating;
mod window;

use super::points::{Ctx, Oversubscribe, Plugin};
use super::Gauge;
use crate::config::RoseConfig;
use crate::event::Event;
use crate::model::{App, Ask, Container, ContainerId, Node, NodeId, Resources};
use rating::Rating;
use std::collections::{BTreeMap, BTreeSet};
use window::{Sample, Window};

/// What ROSE keeps of one node that sent utilization samples.
#[derive(Debug, Default)]
struct Track {
    /// The node's window of samples, oldest first.
    window: Window,
    /// Algorithm 1's LLA over `window` (memory MB, vcores), once computed.
    /// Every heartbeat brings a sample, but only Algorithm 3's refresh (every
    /// `refresh_ms`, over every node) and the headroom of a candidate node
    /// read the level: a sample computes it at once for a candidate only,
    /// and leaves it `None` elsewhere for the refresh to compute. The level
    /// is a function of the window alone, so when it is computed changes no
    /// value. (LLA on every sample of every node was most of ROSE's cost in
    /// the simulator, where every node heartbeats every second.)
    lla: Option<[f64; 2]>,
    /// Per dimension, how many of the newest samples equal the newest one
    /// (at most the window's length). A node whose use has not changed for
    /// the whole window (most nodes, most of the time) has a constant
    /// series, whose level is that value (Algorithm 1, lines 1–2), found
    /// without a walk.
    same: [usize; 2],
    /// The window's smallest and largest sample, kept as samples come and
    /// go: where the level lies before Algorithm 1 runs.
    extremes: extremes::Extremes,
    /// The sample the controller last evicted on (one decision per sample,
    /// so a kill in flight is not repeated).
    evicted_on: Option<i64>,
    /// The time of the first sample of the current run of samples over the
    /// eviction bound (`evict_after_ms`).
    over_since: Option<i64>,
}

impl Track {
    /// LLA over the window per dimension; `None` for an empty window.
    fn level(&self, k: usize, fence: f64) -> Option<[f64; 2]> {
        self.lla.or_else(|| self.window_lla(k, fence))
    }

    /// Where the level lies per dimension, `(low, high)`, without running
    /// Algorithm 1: exactly the level when it is known (computed, or a
    /// constant series), else the window's range. Every branch of the
    /// algorithm gives the newest sample, a mean of samples or a mean of
    /// segment means, all within the range; a float mean of n values can
    /// round past it by about n ulps of the largest, far inside `SLACK`.
    /// `None` for an empty window.
    fn level_range(&self) -> Option<([f64; 2], [f64; 2])> {
        const SLACK: f64 = 1e-12;
        if let Some(l) = self.lla {
            return Some((l, l));
        }
        let (mut lo, mut hi) = self.extremes.range()?;
        for d in 0..2 {
            if lo[d] == hi[d] {
                // A constant series: its value, exactly.
                continue;
            }
            let pad = SLACK * hi[d].abs().max(lo[d].abs());
            lo[d] -= pad;
            hi[d] += pad;
        }
        Some((lo, hi))
    }

    /// Algorithm 1 over each dimension of the window.
    fn window_lla(&self, k: usize, fence: f64) -> Option<[f64; 2]> {
        let (_, newest) = self.window.back()?;
        let dim = |i: usize| {
            if self.same[i] >= self.window.len() {
                // A constant series is monotone: its newest value.
                return Some(newest[i]);
            }
            let mut series = Vec::with_capacity(self.window.len());
            for (u, n) in self.window.runs() {
                series.resize(series.len() + n, u[i]);
            }
            lla::lla(&series, k, fence)
        };
        Some([dim(0)?, dim(1)?])
    }
}

pub struct Rose {
    cfg: RoseConfig,
    /// Per node, indexed by its (dense) id: its samples and what the
    /// controller derives from them. A vector rather than a map: every
    /// heartbeat of every node looks its node up here.
    tracks: Vec<Option<Track>>,
    rating: Rating,
    /// Algorithm 3's C, as of the last refresh.
    candidates: BTreeSet<NodeId>,
    /// TBAMR penalties as of the last refresh.
    penalties: BTreeMap<NodeId, f64>,
    next_refresh_ms: i64,
    /// Preempted, not yet finished.
    evicting: BTreeSet<ContainerId>,
    evictions_total: u64,
    placed_total: u64,
    /// Refreshes' node levels computed by Algorithm 1, and nodes whose
    /// exact level could not change C (`filter::needs_exact_load`).
    levels_computed: u64,
    levels_skipped: u64,
}

impl Rose {
    pub fn new(cfg: &RoseConfig) -> Rose {
        Rose {
            cfg: cfg.clone(),
            tracks: Vec::new(),
            rating: Rating::default(),
            candidates: BTreeSet::new(),
            penalties: BTreeMap::new(),
            next_refresh_ms: i64::MIN,
            evicting: BTreeSet::new(),
            evictions_total: 0,
            placed_total: 0,
            levels_computed: 0,
            levels_skipped: 0,
        }
    }

    fn bounds(&self) -> [f64; 2] {
        [self.cfg.bound_memory, self.cfg.bound_vcores]
    }

    fn track(&self, node: NodeId) -> Option<&Track> {
        self.tracks.get(node as usize)?.as_ref()
    }

    fn track_mut(&mut self, node: NodeId) -> Option<&mut Track> {
        self.tracks.get_mut(node as usize)?.as_mut()
    }

    /// The newest NodeManager sample of `node` if it is fresh at `now`.
    fn newest(&self, node: NodeId, now: i64) -> Option<Sample> {
        self.fresh(self.track(node)?, now)
    }

    fn fresh(&self, t: &Track, now: i64) -> Option<Sample> {
        t.window.back().filter(|(t, _)| now - *t <= self.cfg.stale_ms)
    }

    /// The node's load level: LLA over its samples while they are fresh,
    /// and the sidecar's unexpired estimate; with both, the higher per
    /// dimension (the safer). `None`: missing or stale — never
    /// over-subscribed.
    pub fn estimate(&self, node: &Node, now: i64) -> Option<[f64; 2]> {
        let own = self.track(node.id).filter(|t| self.fresh(t, now).is_some()).and_then(|t| t.level(self.cfg.segments, self.cfg.fence));
        let sidecar = Self::sidecar(node, now);
        match (own, sidecar) {
            (Some(a), Some(b)) => Some([a[0].max(b[0]), a[1].max(b[1])]),
            (a, b) => a.or(b),
        }
    }

    /// The sidecar's unexpired load estimate of `node` (memory MB, vcores).
    fn sidecar(node: &Node, now: i64) -> Option<[f64; 2]> {
        node.load_estimate_at(now).map(|r| Self::as_sample(&r))
    }

    /// Where [`Rose::estimate`] lies, `(low, high)` per dimension, without
    /// running Algorithm 1 (exact where the level is known).
    fn estimate_range(&self, node: &Node, now: i64) -> Option<([f64; 2], [f64; 2])> {
        let own = self.track(node.id).filter(|t| self.fresh(t, now).is_some()).and_then(Track::level_range);
        let sidecar = Self::sidecar(node, now);
        match (own, sidecar) {
            // The higher per dimension, as the estimate takes it: max is
            // monotone, so the bounds carry over.
            (Some((lo, hi)), Some(b)) => Some(([lo[0].max(b[0]), lo[1].max(b[1])], [hi[0].max(b[0]), hi[1].max(b[1])])),
            (Some(r), None) => Some(r),
            (None, b) => b.map(|b| (b, b)),
        }
    }

    /// The newest measured use (the fresh NM sample, else the sidecar's).
    fn measured(&self, node: &Node, now: i64) -> Option<[f64; 2]> {
        self.newest(node.id, now).map(|(_, u)| u).or_else(|| Self::sidecar(node, now))
    }

    /// Measured use above the eviction bound in any dimension.
    fn over_eviction_bound(&self, used: [f64; 2], capacity: [f64; 2]) -> bool {
        let evict = [self.cfg.evict_memory, self.cfg.evict_vcores];
        (0..2).any(|i| used[i] > capacity[i] * evict[i])
    }

    /// A measured use (a NodeManager's, or the sidecar's estimate) as a
    /// sample: memory MB, vcores (the model's are millis).
    fn as_sample(used: &Resources) -> [f64; 2] {
        [used.0[0] as f64, used.0[1] as f64 / 1000.0]
    }

    fn capacity(node: &Node) -> [f64; 2] {
        [node.capacity.0[0] as f64, node.capacity.0[1] as f64]
    }

    /// One utilization sample of `node` taken at `now` (a heartbeat's).
    fn sample(&mut self, node: NodeId, capacity: [f64; 2], now: i64, used: &Resources) {
        self.sample_run(node, capacity, &[now], used);
    }

    /// The same sample `used` taken at each of `times` (ascending), as
    /// each in turn would leave ROSE, in one step. A sample's window keeps
    /// what is within `window_ms` of it and at most `max_samples`, both
    /// suffixes of the series, so the window after the last is the suffix
    /// the last sample's bounds keep: only that many of the run's samples
    /// are pushed, however long the node was quiet.
    fn sample_run(&mut self, node: NodeId, capacity: [f64; 2], times: &[i64], used: &Resources) {
        let (Some(&first), Some(&last)) = (times.first(), times.last()) else { return };
        // A node that had no fresh estimate (new, or back from stale) is
        // ranked at the next pass, not a refresh later. Each sample is
        // fresh if the one before it (the window's newest, then the run's
        // previous) is within `stale_ms`.
        let mut previous = self.track(node).and_then(|t| t.window.back()).map(|(at, _)| at);
        for &at in times {
            if previous.is_none_or(|p| at - p > self.cfg.stale_ms) {
                self.next_refresh_ms = self.next_refresh_ms.min(at);
            }
            previous = Some(at);
        }
        let sample = Self::as_sample(used);
        let over = self.over_eviction_bound(sample, capacity);
        let candidate = self.candidates.contains(&node);
        let (window_ms, max) = (self.cfg.window_ms, self.cfg.max_samples);
        let i = node as usize;
        if self.tracks.len() <= i {
            self.tracks.resize_with(i + 1, || None);
        }
        let t = self.tracks[i].get_or_insert_with(Track::default);
        if over {
            t.over_since.get_or_insert(first);
        } else {
            t.over_since = None;
        }
        let w = &mut t.window;
        // The run of equal newest samples goes on where the newest one
        // equals this sample.
        let goes_on = w.back().map(|(_, u)| [u[0] == sample[0], u[1] == sample[1]]).unwrap_or_default();
        let oldest = last - window_ms;
        let mut pushed = 0;
        for &at in &times[times.len().saturating_sub(max)..] {
            if at >= oldest {
                w.push(at, sample);
                pushed += 1;
            }
        }
        t.extremes.push(sample, pushed);
        let extremes = &mut t.extremes;
        w.trim(oldest, max, |u, n| extremes.pop(u, n));
        let len = w.len();
        t.extremes.settle(w.runs());
        for (d, same) in t.same.iter_mut().enumerate() {
            *same = if goes_on[d] { *same + pushed } else { pushed }.min(len);
        }
        t.lla = if candidate { t.window_lla(self.cfg.segments, self.cfg.fence) } else { None };
    }

    /// Until when more samples `used` of `node` leave what ROSE reads of
    /// it unchanged (`Plugin::utilization_unread_until`). Samples equal to
    /// every one in the node's window change its level and the level's
    /// range, its newest use and the time it has been over the eviction
    /// bound in nothing: only the newest sample's time moves, and that is
    /// read only as fresh or stale. So they may wait while the newest
    /// sample ROSE has is fresh; their gaps are within `stale_ms` then,
    /// and none would have brought the refresh forward either.
    fn unread_until(&self, node: NodeId, used: &Resources) -> i64 {
        let sample = Self::as_sample(used);
        let Some(t) = self.track(node) else { return i64::MIN };
        let Some((at, newest)) = t.window.back() else { return i64::MIN };
        let level = t.same.iter().all(|same| *same >= t.window.len());
        if level && newest == sample {
            at.saturating_add(self.cfg.stale_ms)
        } else {
            i64::MIN
        }
    }

    /// Algorithm 3 over the current state.
    fn refresh(&mut self, ctx: &Ctx, now: i64) -> bool {
        self.rating.expire(now, self.cfg.rating_window_ms);
        self.penalties = self.rating.scores(self.cfg.top_k);
        self.evicting.retain(|c| ctx.state.containers.contains_key(c));
        let params = filter::Params {
            top_k: self.cfg.top_k,
            thresholds: self.bounds(),
            candidates: self.cfg.candidates,
            factor: self.cfg.candidates_factor,
        };
        let normalised = |e: [f64; 2], cap: [f64; 2]| [ratio(e[0], cap[0]), ratio(e[1], cap[1])];
        // Algorithm 1 only where a node's level can change C: first every
        // node's load within its window's range, then the exact level of
        // the nodes that can be among the d·mL least loaded (and so become
        // candidates, whose headroom reads it). The rest need none; C is
        // the same as with every level computed (`filter::needs_exact_load`).
        let nodes: Vec<&Node> = ctx.state.nodes.values().collect();
        let ranges: Vec<(NodeId, Option<filter::LoadRange>)> = nodes
            .iter()
            .map(|n| {
                let cap = Self::capacity(n);
                let range =
                    self.estimate_range(n, now).map(|(lo, hi)| filter::LoadRange { lo: normalised(lo, cap), hi: normalised(hi, cap) });
                (n.id, range)
            })
            .collect();
        let exact = filter::needs_exact_load(&ranges, &self.penalties, params);
        let (k, f) = (self.cfg.segments, self.cfg.fence);
        let mut computed = 0;
        for (n, _) in nodes.iter().zip(&exact).filter(|(_, e)| **e) {
            if let Some(t) = self.track_mut(n.id).filter(|t| t.lla.is_none()) {
                t.lla = t.window_lla(k, f);
                computed += 1;
            }
        }
        self.levels_computed += computed;
        self.levels_skipped += exact.iter().filter(|e| !**e).count() as u64;
        let views: Vec<filter::NodeView> = nodes
            .iter()
            .zip(&exact)
            .map(|(n, exact)| filter::NodeView {
                node: n.id,
                load: if *exact { self.estimate(n, now).map(|e| normalised(e, Self::capacity(n))) } else { None },
                queued: n.speculative as usize,
            })
            .collect();
        let fresh = filter::candidates(&views, &self.penalties, params);
        let changed = fresh != self.candidates;
        self.candidates = fresh;
        changed
    }

    /// Speculative containers on `node`, newest first.
    fn speculative_on<'a>(ctx: &'a Ctx, node: &Node) -> Vec<&'a Container> {
        // Most nodes hold none: no walk over their containers then.
        if node.speculative == 0 {
            return Vec::new();
        }
        let mut v: Vec<&Container> = node.containers.iter().filter_map(|c| ctx.state.containers.get(c)).filter(|c| c.speculative).collect();
        v.sort_by(|a, b| b.allocated_ms.cmp(&a.allocated_ms).then(b.id.cmp(&a.id)));
        v
    }
}

fn ratio(v: f64, cap: f64) -> f64 {
    if cap > 0.0 {
        v / cap
    } else {
        f64::INFINITY
    }
}

impl Plugin for Rose {
    fn name(&self) -> &'static str {
        "rose"
    }

    fn on_event(&mut self, ctx: &Ctx, event: &Event) {
        match event {
            // Samples are stamped with the engine's clock: drivers send a
            // node's utilization with its heartbeat.
            Event::NodeUtilization { node, used } => {
                let Some(capacity) = ctx.state.nodes.get(node).map(Self::capacity) else { return };
                self.sample(*node, capacity, ctx.state.now_ms, used);
            }
            Event::NodeRemoved { node } => {
                if let Some(t) = self.tracks.get_mut(*node as usize) {
                    *t = None;
                }
                self.candidates.remove(node);
            }
            Event::AllocationRejected { container } => {
                self.evicting.remove(container);
            }
            _ => {}
        }
    }

    /// A quiet node's folded heartbeats: each sample as its event would
    /// have brought it, at its time.
    fn on_utilization_run(&mut self, ctx: &Ctx, node: NodeId, used: &Resources, times: &[i64]) {
        let Some(capacity) = ctx.state.nodes.get(&node).map(Self::capacity) else { return };
        self.sample_run(node, capacity, times, used);
    }

    fn utilization_unread_until(&self, _ctx: &Ctx, node: NodeId, used: &Resources) -> i64 {
        self.unread_until(node, used)
    }

    fn on_allocated(&mut self, _ctx: &Ctx, c: &Container) {
        if c.speculative {
            self.placed_total += 1;
        }
    }

    fn on_container_finished(&mut self, _ctx: &Ctx, c: &Container, exit_status: i32, at_ms: i64) {
        let runtime_ms = at_ms - c.launched_ms.unwrap_or(c.allocated_ms);
        let ended = rating::Ended { app: c.app, node: c.node, key: c.key, runtime_ms, exit_status, at_ms };
        self.rating.finished(ended, self.cfg.straggler_factor, self.cfg.straggler_min_samples);
        self.evicting.remove(&c.id);
    }

    fn on_app_removed(&mut self, _ctx: &Ctx, app: &App) {
        self.rating.app_removed(app.id);
    }

    fn on_app_moved_out(&mut self, ctx: &Ctx, app: &App) {
        self.on_app_removed(ctx, app);
    }

    fn next_tick_ms(&self) -> Option<i64> {
        Some(self.next_refresh_ms)
    }

    fn tick(&mut self, ctx: &Ctx, now_ms: i64) -> bool {
        self.next_refresh_ms = now_ms + self.cfg.refresh_ms;
        self.refresh(ctx, now_ms)
    }

    fn state_json(&self, ctx: &Ctx) -> serde_json::Value {
        let now = ctx.state.now_ms;
        let nodes: Vec<_> = ctx
            .state
            .nodes
            .values()
            .map(|n| {
                serde_json::json!({
                    "node": n.host,
                    "estimate": self.estimate(n, now),
                    "measured": self.measured(n, now),
                    "samples": self.track(n.id).map_or(0, |t| t.window.len()),
                    "candidate": self.candidates.contains(&n.id),
                    "penalty": self.penalties.get(&n.id).copied().unwrap_or(0.0),
                    "oversubscribed": n.oversubscribed.0,
                    "headroom": self.headroom(ctx, n).map(|r| r.0),
                })
            })
            .collect();
        serde_json::json!({
            "config": self.cfg,
            "candidates": self.candidates.len(),
            "evictions_total": self.evictions_total,
            "speculative_total": self.placed_total,
            "evicting": self.evicting.len(),
            "refresh_levels_computed": self.levels_computed,
            "refresh_levels_skipped": self.levels_skipped,
            "nodes": nodes,
        })
    }

    fn gauges(&self, ctx: &Ctx) -> Vec<Gauge> {
        let now = ctx.state.now_ms;
        let mut out = vec![
            Gauge::counter(
                "rose_evictions_total",
                self.evictions_total as f64,
                "Speculative containers ROSE's threshold controller preempted",
            ),
            Gauge::counter(
                "rose_speculative_containers_total",
                self.placed_total as f64,
                "Speculative (OPPORTUNISTIC) containers ROSE placed",
            ),
            Gauge::new(
                "rose_candidate_nodes",
                self.candidates.len() as f64,
                "Nodes Algorithm 3 currently lets take speculative containers",
            ),
        ];
        let mut total = Resources::ZERO;
        for n in ctx.state.nodes.values() {
            total += n.oversubscribed;
            let cap = Self::capacity(n);
            if let Some(e) = self.estimate(n, now) {
                for (i, r) in ["memory", "vcores"].iter().enumerate() {
                    out.push(
                        Gauge::new("rose_node_load_ratio", ratio(e[i], cap[i]), "LLA load estimate of a node ÷ its capacity (Algorithm 1)")
                            .label("node", n.host.clone())
                            .label("resource", *r),
                    );
                }
            }
            if let Some(p) = self.penalties.get(&n.id) {
                out.push(
                    Gauge::new(
                        "rose_node_penalty_containers",
                        *p,
                        "TBAMR penalty of a node: failed, killed, evicted and straggling containers (Algorithm 2)",
                    )
                    .label("node", n.host.clone()),
                );
            }
        }
        out.push(Gauge::new(
            "rose_oversubscribed_memory_mb",
            total.0[0] as f64,
            "Memory in running speculative containers, beyond the allocated view",
        ));
        out.push(Gauge::new(
            "rose_oversubscribed_vcores",
            total.0[1] as f64,
            "Vcores in running speculative containers, beyond the allocated view",
        ));
        out
    }
}

impl Oversubscribe for Rose {
    fn headroom(&self, ctx: &Ctx, node: &Node) -> Option<Resources> {
        let now = ctx.state.now_ms;
        if !self.candidates.contains(&node.id) {
            return None;
        }
        let est = self.estimate(node, now)?;
        let measured = self.measured(node, now)?;
        let (cap, bound) = (Self::capacity(node), self.bounds());
        // Stop placing while the measured use is over the bound.
        if (0..2).any(|i| measured[i] > cap[i] * bound[i]) {
            return None;
        }
        let mut young = [0.0; 2];
        for c in Self::speculative_on(ctx, node) {
            if now - c.allocated_ms < self.cfg.settle_ms {
                young[0] += c.resources.0[0] as f64;
                young[1] += c.resources.0[1] as f64;
            }
        }
        let room = |i: usize| {
            let by_load = cap[i] * bound[i] - est[i] - young[i];
            let by_ratio = cap[i] * self.cfg.max_ratio - node.oversubscribed.0[i] as f64;
            by_load.min(by_ratio).max(0.0).floor() as i64
        };
        Some(Resources::new(room(0), room(1)))
    }

    fn admits(&self, _ctx: &Ctx, app: &App, ask: &Ask) -> bool {
        // An AM container is never speculative: losing it loses the job.
        !app.is_am_ask(ask)
    }

    fn evictions(&mut self, ctx: &Ctx, node: &Node) -> Vec<ContainerId> {
        let now = ctx.state.now_ms;
        let Some((at, used)) = self.newest(node.id, now) else { return Vec::new() };
        let cap = Self::capacity(node);
        let over = self.over_eviction_bound(used, cap);
        let evict_after_ms = self.cfg.evict_after_ms;
        let Some(track) = self.track_mut(node.id) else { return Vec::new() };
        if track.evicted_on.is_some_and(|t| t >= at) || !over {
            return Vec::new();
        }
        // Over the bound, but not yet for evict_after_ms: a passing burst.
        if track.over_since.is_some_and(|since| at - since < evict_after_ms) {
            return Vec::new();
        }
        track.evicted_on = Some(at);
        let bound = self.bounds();
        let excess = [(used[0] - cap[0] * bound[0]).max(0.0), (used[1] - cap[1] * bound[1]).max(0.0)];
        let mut freed = [0.0; 2];
        let mut out = Vec::new();
        for c in Self::speculative_on(ctx, node) {
            if freed[0] >= excess[0] && freed[1] >= excess[1] {
                break;
            }
            if self.evicting.contains(&c.id) {
                // Already on its way out: what it frees counts.
                freed[0] += c.resources.0[0] as f64;
                freed[1] += c.resources.0[1] as f64;
                continue;
            }
            freed[0] += c.resources.0[0] as f64;
            freed[1] += c.resources.0[1] as f64;
            out.push(c.id);
        }
        self.evicting.extend(out.iter().copied());
        self.evictions_total += out.len() as u64;
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A run of equal samples handed over at once (a quiet node's folded
    /// heartbeats) leaves ROSE as the samples one at a time do: the window,
    /// the run of equal samples, the time over the eviction bound, the
    /// level and the refresh a stale node brings forward — through gaps
    /// longer than `stale_ms`, runs longer than the window, and use over
    /// the eviction bound.
    #[test]
    fn a_run_of_samples_is_each_sample_in_turn() {
        let cfg = RoseConfig { max_samples: 8, window_ms: 6_000, stale_ms: 2_500, ..RoseConfig::default() };
        let capacity = [4096.0, 4.0];
        let uses = [Resources::new(1024, 1000), Resources::new(4000, 3900), Resources::new(2048, 500)];
        let mut rng = crate::workload::rng::Rng::seeded(7);
        for case in 0..200 {
            let (mut one, mut run) = (Rose::new(&cfg), Rose::new(&cfg));
            for r in [&mut one, &mut run] {
                if case % 2 == 0 {
                    r.candidates.insert(1);
                }
            }
            let mut t = 0;
            let mut all: Vec<Sample> = Vec::new();
            for _ in 0..6 {
                let used = *rng.pick(&uses);
                let k = rng.int(1, 14) as usize;
                one.next_refresh_ms = 1_000_000;
                run.next_refresh_ms = 1_000_000;
                let mut times = Vec::new();
                for _ in 0..k {
                    // Mostly a second apart, now and then a gap past stale.
                    t += if rng.chance(0.15) { 3_000 } else { 1_000 };
                    times.push(t);
                }
                for at in &times {
                    one.sample(1, capacity, *at, &used);
                    all.push((*at, Rose::as_sample(&used)));
                }
                run.sample_run(1, capacity, &times, &used);
                let (a, b) = (one.track(1).unwrap(), run.track(1).unwrap());
                // The window by its definition: the samples within
                // `window_ms` of the newest, at most `max_samples` of them.
                let kept: Vec<Sample> = all.iter().copied().filter(|(at, _)| *at >= t - cfg.window_ms).collect();
                let want: Vec<Sample> = kept[kept.len().saturating_sub(cfg.max_samples)..].to_vec();
                assert_eq!(a.window.iter().collect::<Vec<Sample>>(), want, "case {case} at {t}");
                let newest = want.last().unwrap().1;
                let same = |d: usize| want.iter().rev().take_while(|(_, u)| u[d] == newest[d]).count();
                assert_eq!(a.same, [same(0), same(1)], "case {case} at {t}");
                let lowest = |d: usize| want.iter().map(|(_, u)| u[d]).fold(f64::INFINITY, f64::min);
                let highest = |d: usize| want.iter().map(|(_, u)| u[d]).fold(f64::NEG_INFINITY, f64::max);
                let range = ([lowest(0), lowest(1)], [highest(0), highest(1)]);
                assert_eq!((a.extremes.range(), b.extremes.range()), (Some(range), Some(range)), "case {case} at {t}");
                assert_eq!(a.window.iter().collect::<Vec<Sample>>(), b.window.iter().collect::<Vec<Sample>>(), "case {case} at {t}");
                assert_eq!((a.same, a.over_since, a.lla), (b.same, b.over_since, b.lla), "case {case} at {t}");
                assert_eq!(one.next_refresh_ms, run.next_refresh_ms, "case {case} at {t}");
            }
        }
    }

    /// What `unread_until` promises: up to the time it gives, ROSE reads
    /// the same of a node without more samples `used` as with them — fresh
    /// or stale, its level and the level's range, its newest use, since
    /// when it has been over the eviction bound — and they would not have
    /// brought the refresh forward. It gives a time for a window level at
    /// `used` only. Random histories of a few uses (one over the eviction
    /// bound), now and then a gap past `stale_ms`.
    #[test]
    fn samples_may_wait_while_they_would_change_nothing_read() {
        let cfg = RoseConfig { max_samples: 8, window_ms: 6_000, stale_ms: 2_500, ..RoseConfig::default() };
        let (k, fence) = (cfg.segments, cfg.fence);
        let capacity = [4096.0, 4.0];
        let uses = [Resources::new(1024, 1000), Resources::new(4000, 3900), Resources::new(2048, 500)];
        let mut rng = crate::workload::rng::Rng::seeded(13);
        let mut waited = 0;
        for case in 0..400 {
            let (mut without, mut with) = (Rose::new(&cfg), Rose::new(&cfg));
            let (mut t, mut last) = (0, uses[0]);
            for _ in 0..rng.int(1, 4) {
                last = *rng.pick(&uses);
                for _ in 0..rng.int(1, 10) {
                    t += if rng.chance(0.1) { 3_000 } else { 1_000 };
                    for r in [&mut without, &mut with] {
                        r.sample(1, capacity, t, &last);
                    }
                }
            }
            let used = if rng.chance(0.7) { last } else { *rng.pick(&uses) };
            let until = without.unread_until(1, &used);
            let track = without.track(1).unwrap();
            let level_at_used = track.window.iter().all(|(_, u)| u == Rose::as_sample(&used));
            assert_eq!(until != i64::MIN, level_at_used, "case {case}");
            if until == i64::MIN {
                continue;
            }
            without.next_refresh_ms = i64::MAX;
            with.next_refresh_ms = i64::MAX;
            // The samples held back, a second apart, then steps up to the
            // time given: each reads the same without them.
            for now in (t + 1_000..=until).step_by(1_000) {
                with.sample(1, capacity, now, &used);
                let (a, b) = (without.track(1).unwrap(), with.track(1).unwrap());
                let read = |r: &Rose, t: &Track| {
                    let fresh = r.fresh(t, now).map(|(_, u)| u);
                    (fresh, t.level(k, fence), t.level_range(), t.over_since)
                };
                assert_eq!(read(&without, a), read(&with, b), "case {case} at {now}");
                assert_eq!(with.next_refresh_ms, i64::MAX, "case {case} at {now}");
                waited += 1;
            }
        }
        assert!(waited > 100, "{waited}");
    }

    /// A window's level lies in its `level_range`: random windows of
    /// random lengths (constant, monotone, spiky, values that sum with
    /// rounding such as 0.1), with the level computed and not.
    #[test]
    fn the_level_lies_in_the_window_range() {
        let cfg = RoseConfig::default();
        let mut rng = crate::workload::rng::Rng::seeded(5);
        let values = [0.1, 0.2, 0.3, 1024.0, 4096.0, 3.7, 0.0, 1e-3, 12_345.678];
        for case in 0..2_000 {
            let mut rose = Rose::new(&cfg);
            let len = rng.int(1, 70);
            for t in 0..len {
                let m = if rng.chance(0.6) { 0.1 } else { *rng.pick(&values) };
                let v = *rng.pick(&values);
                // Sampled as MB and millicores (vcores = millicores / 1000).
                rose.sample(1, [16_384.0, 16.0], 1_000 * t, &Resources::new((m * 10.0) as i64, (v * 1000.0) as i64));
            }
            let track = rose.track(1).unwrap();
            let level = track.window_lla(cfg.segments, cfg.fence).unwrap();
            let (lo, hi) = track.level_range().unwrap();
            for d in 0..2 {
                assert!(lo[d] <= level[d] && level[d] <= hi[d], "case {case}, dim {d}: {} not in {}..={}", level[d], lo[d], hi[d]);
            }
            // Once computed, the range is the level itself.
            let known = Track { lla: Some(level), ..Track::default() };
            assert_eq!(known.level_range(), Some((level, level)));
        }
        // A level rounded above the window's largest sample: 0.1, 0, 0.1,
        // 0.1 vcores (≤ k samples, not monotone) fences out the 0 and
        // takes (0.1 + 0.1 + 0.1) / 3, which rounds to 0.1 + 1 ulp.
        let mut rose = Rose::new(&cfg);
        for (t, millicores) in [100, 0, 100, 100].into_iter().enumerate() {
            rose.sample(1, [16_384.0, 16.0], 1_000 * t as i64, &Resources::new(1024, millicores));
        }
        let track = rose.track(1).unwrap();
        let level = track.window_lla(cfg.segments, cfg.fence).unwrap()[1];
        assert!(level > 0.1, "{level}");
        let (lo, hi) = track.level_range().unwrap();
        assert!(lo[1] <= level && level <= hi[1], "{level} not in {}..={}", lo[1], hi[1]);
    }

    /// The level found with the run of equal samples (`Track::same`) is
    /// Algorithm 1 over the whole window, sample after sample: through a
    /// change of use in one dimension, the other, both, and a window that
    /// fills, trims old samples and goes constant again.
    #[test]
    fn the_level_of_a_window_is_algorithm_1_over_its_samples() {
        // Trimmed by time (6 s: 7 samples), then by count (5 samples).
        for (max_samples, window_ms, longest) in [(8, 6_000, 7), (5, 60_000, 5)] {
            let cfg = RoseConfig { max_samples, window_ms, ..RoseConfig::default() };
            let mut rose = Rose::new(&cfg);
            // (memory MB, millicores, heartbeats held): up and down within
            // a window (not monotone), then constant for longer than one.
            let uses = [(1024, 1000, 4), (2048, 1000, 2), (1024, 2000, 2), (3072, 500, 3), (1024, 500, 1), (2048, 2000, 12)];
            let mut t = 0;
            for (m, v, held) in uses {
                for _ in 0..held {
                    t += 1000;
                    rose.sample(1, [4096.0, 4.0], t, &Resources::new(m, v));
                    let track = rose.track(1).unwrap();
                    let dim = |d: usize| track.window.iter().map(|(_, u)| u[d]).collect::<Vec<f64>>();
                    let want = [lla::lla(&dim(0), cfg.segments, cfg.fence).unwrap(), lla::lla(&dim(1), cfg.segments, cfg.fence).unwrap()];
                    assert_eq!(track.window_lla(cfg.segments, cfg.fence), Some(want), "at {t} ms");
                    assert!(track.window.len() <= longest);
                }
            }
        }
    }
}
