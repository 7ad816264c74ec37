//! One scheduling pass over one node: the loop every pipeline shares, calling
//! the extension points in the fixed order `crate::policy` documents.
//!
//! **Main phase.** Candidates are the applications with outstanding asks,
//! grouped by queue unless the queue order is flat. Each step serves the best
//! queue's best application one container — its most urgent ask that passes
//! the engine's checks (fit, locality, node label, queue maximum, no recent
//! refusal) and its pipeline's (classify, reserve, filters) — then re-keys
//! that application, so fair-share orders re-balance after every container.
//! An application none of whose asks can be placed drops out of this pass
//! (with a strict order, it ends the main phase), and records why. Orders
//! whose keys move with other apps' containers (GS) are kept fresh by
//! `super::candidates`.
//!
//! **Leftover phase** (pipelines with a leftover plugin): the asks the
//! classify point held back get what is left of the node, in the leftover
//! plugin's order, one container at a time. A key can depend on the node's
//! free resources (packing), which shrink with every container, so an ask's
//! key is evaluated again when it reaches the top: if it got worse than
//! the next one's, the ask goes back in with its new key. For keys that
//! only grow as the node fills this serves exactly the order the plugin
//! would give over the current state.
//!
//! **Leftover holds** (a leftover plugin with `holds() > 0`, e.g. Carbyne's
//! `leftover_holds`): when the leftover order's first ask does not fit the
//! node's free space, the node is held for it — nothing else is placed on
//! it until that ask fits (it is then served first, before the main
//! phase), is gone, or a minute has passed (the same pass may then hold
//! it again for whichever ask is first then). Nothing starts on a held
//! node, so it runs down as its containers end: a hold lasts about as long
//! as the tasks on the node. The leftover is what DEFAULT asks leave on
//! each node, so it comes in pieces; without holds a larger task of the
//! job with the least remaining work never finds room.
//!
//! **Reservations** (`scheduler.reservable_nodes`, `super::reservation`;
//! the simulator's stand-ins for YARN's schedulers): when the main phase's
//! next app has an ask that fits the node but not its free room, the node
//! is reserved for that ask and the pass ends: YARN's reservations, with no
//! time limit.

use super::{Decision, Engine};
use crate::model::waiting::{ascending_minus, WaitReasons};
use crate::model::{App, AppId, Blocked, ClusterState, ContainerId, LeftoverHold, Node, NodeId, Resources, SchedulerKey, WaitReason};
use crate::policy::{PolicySet, SortKey};
use std::cmp::Reverse;
use std::collections::BinaryHeap;

use super::candidates::Candidates;
use super::room::{label_matches, may_go_on, serves};

/// Which part of the pass placed a container: a parallel round's committer
/// validates a proposal with the checks of the phase that made it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Phase {
    Main,
    Leftover,
    Speculative,
}

/// What a pass runs on: the engine itself (heartbeats and serial rounds),
/// or a proposer's private copy of the cluster state in a parallel round
/// (`super::propose`), which books its placements only in that copy.
pub(super) trait Host {
    fn state(&self) -> &ClusterState;
    fn policies(&self) -> &PolicySet;
    /// `scheduler.max_assignments_per_heartbeat` (0 = no limit).
    fn assignment_limit(&self) -> usize;
    /// *Oversubscribe*: the speculative containers to take back from `node`.
    fn evictions(&mut self, node: NodeId) -> Vec<ContainerId>;
    /// Book one container of `app`'s ask `key` on `node`.
    fn allocate(&mut self, app: AppId, key: SchedulerKey, node: NodeId, now_ms: i64, phase: Phase) -> Option<Decision>;
    /// Record why `app` waits (the state view's "why is this pending").
    fn note_blocked(&mut self, app: AppId, at: WaitReason);
    /// Record that `node` filled at `now_ms` before `queued`'s apps' turn
    /// (a host that keeps no reasons need not list them).
    fn note_outranked(&mut self, now_ms: i64, node: NodeId, queued: Queued<'_>);
    /// May this pass still place a container of `app`'s ask `key`? Always
    /// for the engine; a parallel round's proposer only within its share
    /// of the ask (`super::propose`).
    fn within_share(&self, _app: AppId, _key: SchedulerKey) -> bool {
        true
    }
    /// Does this pass make leftover holds? Only the engine's own passes do;
    /// a parallel round's proposer honours the holds it finds but makes
    /// none (its copy of the state is dropped after the round), so where a
    /// hold would begin it passes over the ask as a pass without holds
    /// would.
    fn makes_holds(&self) -> bool {
        false
    }
    /// Hold `node` for a leftover ask, or release it (`None`).
    fn hold(&mut self, _node: NodeId, _hold: Option<LeftoverHold>) {}
    /// The most nodes one app may reserve (`super::reservation`); 0 = the
    /// main phase makes no reservations (always for a parallel round's
    /// proposer, as for leftover holds).
    fn reservation_limit(&self) -> usize {
        0
    }
    /// A lower bound of every outstanding ask in each resource, kept
    /// across passes (`super::asked`; inner `None`: nothing is asked);
    /// `None` for a host that keeps none.
    fn smallest_ask_bound(&mut self) -> Option<Option<Resources>> {
        None
    }
    /// The per-resource minimum of every ask outstanding now, found by a
    /// walk over the backlog: a host that keeps a bound may tighten it.
    fn note_smallest_ask(&mut self, _smallest: Option<Resources>) {}
}

/// A leftover hold older than this is released: by then the ask may fit
/// elsewhere, and the node has served no one for a minute. (The leftover
/// phase may hold it again at once, for its first ask then.)
const HOLD_MS: i64 = 60_000;

impl Host for Engine {
    fn state(&self) -> &ClusterState {
        &self.state
    }
    fn policies(&self) -> &PolicySet {
        &self.policies
    }
    fn assignment_limit(&self) -> usize {
        self.config.scheduler.max_assignments_per_heartbeat as usize
    }
    fn evictions(&mut self, node: NodeId) -> Vec<ContainerId> {
        let gone = self.policies.evictions(&self.state, node);
        self.counters.preemptions += gone.len() as u64;
        gone
    }
    fn allocate(&mut self, app: AppId, key: SchedulerKey, node: NodeId, now_ms: i64, phase: Phase) -> Option<Decision> {
        Engine::allocate(self, app, key, node, now_ms, phase == Phase::Speculative)
    }
    fn note_blocked(&mut self, app: AppId, at: WaitReason) {
        self.state.waiting.note(app, at);
    }
    fn note_outranked(&mut self, now_ms: i64, node: NodeId, queued: Queued<'_>) {
        queued.record(&mut self.state.waiting, now_ms, node);
    }
    fn makes_holds(&self) -> bool {
        true
    }
    fn hold(&mut self, node: NodeId, hold: Option<LeftoverHold>) {
        match hold {
            Some(h) => self.state.leftover_holds.insert(node, h),
            None => self.state.leftover_holds.remove(&node),
        };
    }
    fn reservation_limit(&self) -> usize {
        super::reservation::per_app_limit(self.config.scheduler.reservable_nodes, self.state.nodes.len())
    }
    fn smallest_ask_bound(&mut self) -> Option<Option<Resources>> {
        Some(self.smallest_ask.bound(&self.state))
    }
    fn note_smallest_ask(&mut self, smallest: Option<Resources>) {
        self.smallest_ask.found(self.state.asks_epoch, smallest);
    }
}

pub(super) fn run(host: &mut impl Host, node: NodeId, now_ms: i64, out: &mut Vec<Decision>) -> usize {
    let limit = host.assignment_limit();
    let over = host.policies().has_oversubscribe();
    if over {
        evict(host, node, out);
    }
    let mut made = regular(host, node, now_ms, out, limit, None);
    if over && (limit == 0 || made < limit) {
        made += speculative(host, node, now_ms, out, limit.saturating_sub(made));
    }
    made
}

/// The same pass as `run`, on candidates a round keeps over the nodes it
/// visits (`MainQueue::for_round`; only for policies that allow it, which
/// excludes over-subscription), brought up to date after the pass.
pub(super) fn run_on(host: &mut impl Host, node: NodeId, now_ms: i64, out: &mut Vec<Decision>, main: &mut MainQueue) -> usize {
    debug_assert!(host.policies().allows_shared_candidates());
    let first = out.len();
    let made = regular(host, node, now_ms, out, host.assignment_limit(), Some(main));
    main.after_pass(host.state(), host.policies(), &out[first..]);
    made
}

/// *Oversubscribe*, controller half: speculative containers the plugin
/// takes back from this node (measured use over its eviction bound).
fn evict(host: &mut impl Host, node: NodeId, out: &mut Vec<Decision>) {
    let gone = host.evictions(node);
    out.extend(gone.into_iter().map(|container| Decision::Preempt { container }));
}

/// *Oversubscribe*, placement half: after the main and leftover phases,
/// asks still outstanding that the allocated view cannot serve (fewer
/// free slots of their size than containers asked for, `room::serves`)
/// get speculative (OPPORTUNISTIC) containers within the node's headroom
/// beyond the allocated view, in their app order, one container at a time
/// (each one shrinks the headroom).
fn speculative(host: &mut impl Host, node: NodeId, now_ms: i64, out: &mut Vec<Decision>, limit: usize) -> usize {
    // No outstanding ask fits any headroom the node has (every ask is at
    // least the kept bound in each resource): the walk below would place
    // nothing.
    let bound = host.smallest_ask_bound();
    let s = host.state();
    if !s.nodes.get(&node).is_some_and(|n| host.policies().speculative_headroom(s, n, bound)) {
        return 0;
    }
    let mut heap: BinaryHeap<Reverse<(SortKey, AppId)>> = BinaryHeap::new();
    // Every container still asked for: the backlog the allocated view
    // would have to serve (`room::serves`).
    let mut outstanding: i64 = 0;
    for app in host.state().pending_apps() {
        heap.push(Reverse((host.policies().app_key(host.state(), app), app.id)));
        outstanding += app.pending_containers();
    }
    let mut made = 0;
    while let Some(Reverse((_, app_id))) = heap.pop() {
        if limit != 0 && made >= limit {
            break;
        }
        let key = {
            let s = host.state();
            let (Some(app), Some(n)) = (s.apps.get(&app_id), s.nodes.get(&node)) else { continue };
            if s.refused_placements.get(&(app_id, node)).is_some_and(|until| now_ms < *until) {
                continue;
            }
            app.asks
                .values()
                .filter(|a| a.count > 0)
                .find(|a| may_go_on(a, n) && host.policies().speculative_fits(s, app, a, n) && !serves(s, a, outstanding))
                .map(|a| a.key)
        };
        let Some(key) = key else { continue };
        if let Some(d) = host.allocate(app_id, key, node, now_ms, Phase::Speculative) {
            out.push(d);
            made += 1;
            outstanding -= 1;
        }
        if let Some(app) = host.state().apps.get(&app_id).filter(|a| a.has_pending()) {
            heap.push(Reverse((host.policies().app_key(host.state(), app), app_id)));
        }
    }
    made
}

/// The main and leftover phases, after the node's leftover hold if any.
fn regular(
    host: &mut impl Host,
    node: NodeId,
    now_ms: i64,
    out: &mut Vec<Decision>,
    limit: usize,
    mut main: Option<&mut MainQueue>,
) -> usize {
    let mut made = 0;
    if let Some(hold) = host.state().leftover_holds.get(&node).copied() {
        match held_ask(host, node, hold, now_ms) {
            Held::Waits => return 0,
            // Booking the held ask releases the hold (`Engine::book`).
            Held::Fits => {
                let phase = if hold.reservation { Phase::Main } else { Phase::Leftover };
                if let Some(d) = host.allocate(hold.app, hold.key, node, now_ms, phase) {
                    // A round's kept candidates must see it before the main
                    // phase, as a fresh build would (it may have been the
                    // app's last ask); `after_pass` notes it again, which
                    // changes nothing.
                    if let Some(m) = main.as_deref_mut() {
                        m.note(host.state(), std::slice::from_ref(&d));
                    }
                    out.push(d);
                    made += 1;
                }
            }
            Held::Released => host.hold(node, None),
        }
    }
    if limit != 0 && made >= limit {
        return made;
    }
    made + phases(host, node, now_ms, out, limit.saturating_sub(made), main)
}

enum Held {
    /// The held ask fits now: serve it.
    Fits,
    /// It still does not fit: the node waits for it.
    Waits,
    /// The ask is gone, or the hold is too old: release the node.
    Released,
}

fn held_ask(host: &impl Host, node: NodeId, hold: LeftoverHold, now_ms: i64) -> Held {
    let s = host.state();
    let (Some(app), Some(n)) = (s.apps.get(&hold.app), s.nodes.get(&node)) else { return Held::Released };
    let Some(ask) = app.asks.get(&hold.key).filter(|a| a.count > 0) else { return Held::Released };
    // A reservation lasts until its ask fits (or is gone), as in YARN.
    match check_ask(s, host.policies(), app, ask, n, !hold.reservation) {
        Ok(()) => Held::Fits,
        Err(Blocked::NodeFull) if hold.reservation || now_ms - hold.since_ms < HOLD_MS => Held::Waits,
        Err(_) => Held::Released,
    }
}

/// The main phase's candidates: the apps with outstanding asks, grouped
/// by queue (one group when the queue order is flat), each keyed by its
/// app order; their ids ascending; the component-wise minimum over every
/// outstanding ask. A heartbeat's pass builds them for its node. A round
/// whose policies allow it builds them once and keeps them over every node
/// it visits (`for_round`, `after_pass`), so a pass costs what it places
/// rather than a key per app: with hundreds of apps that key-and-heap
/// build was half of a round's time.
pub(super) struct MainQueue {
    groups: Vec<Candidates>,
    /// Every candidate's id, ascending (the state's B-tree order): what a
    /// filled node left queued is these but the popped ones.
    ids: Vec<AppId>,
    /// Once the node's free capacity cannot hold this, no ask fits, and
    /// the rest of the pass could only pop candidates that fail: it ends
    /// early with the same result.
    smallest: Option<Resources>,
    /// Popped in the current pass and not (yet) back in their group.
    popped: Vec<AppId>,
    /// `Some` when a round keeps them over several passes (keys are then
    /// checked as they come up): the last fill they recorded, edited at
    /// the next.
    kept: Option<LastFill>,
}

impl MainQueue {
    /// The candidates as the state stands, keyed; when `node` is given and
    /// cannot hold the smallest ask, `Err` with that ask (no keys computed).
    fn build(s: &ClusterState, policies: &PolicySet, node: Option<NodeId>, kept: bool) -> Result<MainQueue, Option<Resources>> {
        let by_queue = !policies.is_flat();
        let mut smallest: Option<Resources> = None;
        let mut lists: Vec<Vec<&App>> = vec![Vec::new(); if by_queue { s.queues.len() } else { 1 }];
        let mut ids: Vec<AppId> = Vec::with_capacity(s.apps.len());
        for app in s.pending_apps() {
            smallest = super::asked::with_asks_of(smallest, app);
            lists[if by_queue { app.queue } else { 0 }].push(app);
            ids.push(app.id);
        }
        if node.is_some_and(|n| !room_for(s, smallest, n)) {
            return Err(smallest);
        }
        let groups = lists.into_iter().enumerate().map(|(q, apps)| Candidates::new(q, s, policies, apps.into_iter())).collect();
        Ok(MainQueue { groups, ids, smallest, popped: Vec::new(), kept: kept.then(LastFill::default) })
    }

    /// No app has anything left to ask (kept up to date by `after_pass`,
    /// where the state's pending apps would be a walk over every app).
    pub(super) fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    /// Candidates for every pass of a round (`PolicySet::allows_shared_candidates`).
    pub(super) fn for_round(s: &ClusterState, policies: &PolicySet) -> Option<MainQueue> {
        Self::build(s, policies, None, true).ok()
    }

    /// After a pass that made `decisions`: the apps it popped and did not
    /// put back return with their keys as they stand (an app whose key grew
    /// in the leftover phase without being popped is re-keyed when it
    /// comes up, `Candidates::pop`), and the decisions are noted. So the
    /// next pass starts from what a fresh build would give.
    fn after_pass(&mut self, s: &ClusterState, policies: &PolicySet, decisions: &[Decision]) {
        let by_queue = !policies.is_flat();
        for id in std::mem::take(&mut self.popped) {
            if let Some(app) = s.apps.get(&id).filter(|a| a.has_pending()) {
                self.groups[if by_queue { app.queue } else { 0 }].push(s, policies, app);
            }
        }
        self.note(s, decisions);
    }

    /// Containers given since the candidates were last brought up to date:
    /// an app with nothing left to ask leaves the ids (its heap entry is
    /// skipped when it comes up), and the smallest ask is found again when
    /// an ask ran out. Noting a container twice changes nothing.
    fn note(&mut self, s: &ClusterState, decisions: &[Decision]) {
        let mut ask_ran_out = false;
        for d in decisions {
            let Decision::Allocate { app, key, .. } = d else { continue };
            let a = s.apps.get(app);
            ask_ran_out |= a.and_then(|a| a.asks.get(key)).is_none_or(|ask| ask.count <= 0);
            if !a.is_some_and(|a| a.has_pending()) {
                if let Ok(i) = self.ids.binary_search(app) {
                    self.ids.remove(i);
                    if let Some(last) = &mut self.kept {
                        last.removed.push(*app);
                    }
                }
            }
        }
        if ask_ran_out {
            self.smallest =
                s.pending_apps().flat_map(|a| a.asks.values().filter(|a| a.count > 0)).map(|a| a.capability).reduce(|a, b| a.min_each(&b));
        }
    }
}

/// Can `node`'s free capacity hold `smallest` (component-wise minimum ask)?
fn room_for(s: &ClusterState, smallest: Option<Resources>, node: NodeId) -> bool {
    smallest.is_some_and(|m| s.nodes.get(&node).is_some_and(|n| m.fits_in(&n.free())))
}

/// The main and leftover phases, on `main` if a round keeps candidates
/// over its nodes, else on candidates built for this node.
fn phases(host: &mut impl Host, node: NodeId, now_ms: i64, out: &mut Vec<Decision>, limit: usize, main: Option<&mut MainQueue>) -> usize {
    // With reservations a node too full for any ask still gets one: the
    // pass goes on to the first app in the order that may reserve it.
    let reserving = host.reservation_limit();
    let mut built;
    let main = match main {
        Some(m) if reserving > 0 || room_for(host.state(), m.smallest, node) => m,
        Some(_) => return 0,
        // No outstanding ask fits (the kept bound says so without walking
        // the backlog): where the build below would find the same.
        None if reserving == 0 && host.smallest_ask_bound().is_some_and(|b| !room_for(host.state(), b, node)) => return 0,
        // The build walks the backlog: what it finds is the smallest ask.
        None => match MainQueue::build(host.state(), host.policies(), (reserving == 0).then_some(node), false) {
            Ok(m) => {
                host.note_smallest_ask(m.smallest);
                built = m;
                &mut built
            }
            Err(smallest) => {
                host.note_smallest_ask(smallest);
                return 0;
            }
        },
    };
    let smallest = main.smallest;
    let room_left = |s: &ClusterState| room_for(s, smallest, node);
    main.popped.clear();

    let mut made = 0;
    while limit == 0 || made < limit {
        let Some(g) = next_group(host.state(), host.policies(), &main.groups) else { break };
        let kept = main.kept.is_some();
        let Some(app_id) = main.groups[g].pop(host.state(), host.policies(), kept) else { break };
        // Only a round's kept candidates can hold an app that has nothing
        // left to ask (its last ask went in an earlier pass's leftover
        // phase); a fresh build lists none, so skipping it changes nothing.
        let found = {
            let s = host.state();
            s.apps.get(&app_id).filter(|a| !kept || a.has_pending()).map(|app| placeable_ask(host, app, node, now_ms, false))
        };
        let Some(found) = found else { continue };
        main.popped.push(app_id);
        let key = match found {
            Ok(key) => key,
            Err(Blocked::NodeFull) if reserving > 0 && reserve(host, app_id, node, now_ms, reserving) => {
                // Nothing else starts on a reserved node.
                host.note_blocked(app_id, (now_ms, node, Blocked::NodeFull));
                return made;
            }
            Err(why) => {
                let strict =
                    why != Blocked::OtherProposer && host.state().apps.get(&app_id).is_some_and(|a| host.policies().strict_order(a));
                host.note_blocked(app_id, (now_ms, node, why));
                if strict {
                    break;
                }
                continue;
            }
        };
        if let Some(d) = host.allocate(app_id, key, node, now_ms, Phase::Main) {
            out.push(d);
            made += 1;
        }
        if reserving == 0 && !room_left(host.state()) {
            host.note_outranked(now_ms, node, Queued { candidates: &main.ids, popped: &mut main.popped, kept: main.kept.as_mut() });
            return made;
        }
        if let Some(app) = host.state().apps.get(&app_id) {
            if app.has_pending() {
                main.groups[g].push(host.state(), host.policies(), app);
                // Back in its group: the last one popped.
                main.popped.pop();
            }
        }
    }
    if host.policies().has_leftover() && (limit == 0 || made < limit) {
        made += leftover(host, node, now_ms, out, limit.saturating_sub(made));
    }
    made
}

/// The candidates still queued in a pass when its node filled up: every
/// candidate of the pass but the ones popped and not put back.
pub(super) struct Queued<'a> {
    /// Every candidate of the pass, ascending.
    candidates: &'a [AppId],
    /// Popped and not back in their group (few: each served app goes back
    /// unless it was refused or has nothing left to ask).
    popped: &'a mut Vec<AppId>,
    /// A round's kept candidates: the last fill they recorded.
    kept: Option<&'a mut LastFill>,
}

impl Queued<'_> {
    /// Record them as outranked at `node` (`WaitReasons::outranked`): their
    /// ids listed in O(n + m log m); or, for a round's kept candidates
    /// after an earlier fill of the same round, that fill's list edited by
    /// what changed since, in O(changes · log n) lookups.
    pub(super) fn record(self, waiting: &mut WaitReasons, at_ms: i64, node: NodeId) {
        self.popped.sort_unstable();
        let Some(last) = self.kept else {
            waiting.outranked(at_ms, node, ascending_minus(self.candidates.iter().copied(), self.popped.iter().copied()).collect());
            return;
        };
        // The last fill listed ids_then − popped_then; this one lists
        // ids_now − popped_now, where ids_now = ids_then − removed. So the
        // apps to drop are popped_now ∪ removed, and the apps to add those
        // popped then and listed now.
        let edited = last.stamp.and_then(|stamp| {
            let mut leaving: Vec<AppId> = self.popped.iter().chain(&last.removed).copied().collect();
            leaving.sort_unstable();
            leaving.dedup();
            let joining: Vec<AppId> = ascending_minus(last.popped.iter().copied(), self.popped.iter().copied())
                .filter(|a| self.candidates.binary_search(a).is_ok())
                .collect();
            waiting.outranked_again(stamp, at_ms, node, &leaving, &joining)
        });
        let stamp = edited.unwrap_or_else(|| {
            waiting.outranked(at_ms, node, ascending_minus(self.candidates.iter().copied(), self.popped.iter().copied()).collect())
        });
        *last = LastFill { stamp: Some(stamp), popped: self.popped.clone(), removed: Vec::new() };
    }
}

/// The last fill a round's kept candidates recorded, to edit at the next.
#[derive(Default)]
pub(super) struct LastFill {
    /// Its stamp in `WaitReasons`.
    stamp: Option<u64>,
    /// What its pass had popped (left off its list), ascending.
    popped: Vec<AppId>,
    /// Candidates gone since (nothing left to ask).
    removed: Vec<AppId>,
}

/// The group (queue) to serve next: the queue order's lowest key among
/// queues that still have candidates; the only group when flat.
fn next_group(s: &ClusterState, policies: &PolicySet, groups: &[Candidates]) -> Option<usize> {
    if policies.is_flat() {
        return (!groups[0].is_empty()).then_some(0);
    }
    groups
        .iter()
        .enumerate()
        .filter(|(_, h)| !h.is_empty())
        .filter_map(|(i, _)| policies.queue_key(s, &s.queues[i]).map(|k| (k, i)))
        .min()
        .map(|(_, i)| i)
}

/// The most urgent ask of `app` that can go on `node` now, or why its most
/// urgent ask cannot. Engine checks first (the ask fits the node's free
/// capacity, its locality and label allow the node, its queue stays under
/// its maximum capacity, YARN has not just refused this app this node),
/// then the pipeline's points (classify — main phase only —, reserve,
/// filters).
fn placeable_ask(host: &impl Host, app: &App, node: NodeId, now_ms: i64, leftover_phase: bool) -> Result<SchedulerKey, Blocked> {
    let s = host.state();
    if s.refused_placements.get(&(app.id, node)).is_some_and(|until| now_ms < *until) {
        return Err(Blocked::RefusedHere);
    }
    let n = s.nodes.get(&node).ok_or(Blocked::NodeFull)?;
    let mut first: Option<Blocked> = None;
    let mut others = false;
    for ask in app.asks.values().filter(|ask| ask.count > 0) {
        if !host.within_share(app.id, ask.key) {
            others = true;
            continue;
        }
        match check_ask(s, host.policies(), app, ask, n, leftover_phase) {
            Ok(()) => return Ok(ask.key),
            Err(why) => {
                first.get_or_insert(why);
            }
        }
    }
    Err(first.unwrap_or(if others { Blocked::OtherProposer } else { Blocked::NodeFull }))
}

pub(super) fn check_ask(
    s: &ClusterState,
    policies: &PolicySet,
    app: &App,
    ask: &crate::model::Ask,
    n: &Node,
    leftover_phase: bool,
) -> Result<(), Blocked> {
    if !ask.capability.fits_in(&n.free()) {
        return Err(Blocked::NodeFull);
    }
    if ask.locality_on(&n.host, &n.rack).is_none() {
        return Err(Blocked::Locality);
    }
    if !label_matches(&ask.label, n) {
        return Err(Blocked::Label);
    }
    let queue = &s.queues[app.queue];
    if !(queue.allocated + ask.capability).fits_in(&queue.max_capacity_of(&s.capacity)) {
        return Err(Blocked::QueueMax);
    }
    if app.is_am_ask(ask) && !queue.admits_am(&ask.capability, &s.capacity) {
        return Err(Blocked::AmLimit);
    }
    policies.check(s, app, ask, n, leftover_phase)
}

/// The leftover phase: asks held back by the classify point, in their
/// pipeline's leftover order, each re-keyed after it gets a container.
fn leftover(host: &mut impl Host, node: NodeId, now_ms: i64, out: &mut Vec<Decision>, limit: usize) -> usize {
    // The smallest ask in the order (each dimension's least): once it does
    // not fit what is free on the node, no ask in the order does.
    let mut smallest: Option<Resources> = None;
    let mut heap: BinaryHeap<Reverse<(SortKey, AppId, SchedulerKey)>> = {
        let s = host.state();
        let Some(n) = s.nodes.get(&node) else { return 0 };
        let mut entries = Vec::new();
        for app in s.pending_apps() {
            for ask in app.asks.values().filter(|a| a.count > 0 && host.within_share(app.id, a.key)) {
                if let Some(k) = host.policies().leftover_key(s, app, ask, n) {
                    entries.push(Reverse((k, app.id, ask.key)));
                    smallest = Some(smallest.map_or(ask.capability, |m| m.min_each(&ask.capability)));
                }
            }
        }
        // Keys are unique (app, ask), so the pop order is the same however
        // the heap is built; building from the whole vector is linear.
        BinaryHeap::from(entries)
    };
    let mut made = 0;
    while let Some(Reverse((stored, app_id, key))) = heap.pop() {
        if limit != 0 && made >= limit {
            break;
        }
        let offer = {
            let s = host.state();
            let (Some(app), Some(n)) = (s.apps.get(&app_id), s.nodes.get(&node)) else { continue };
            let Some(ask) = app.asks.get(&key).filter(|a| a.count > 0 && host.within_share(app_id, key)) else { continue };
            let Some(fresh) = host.policies().leftover_key(s, app, ask, n) else { continue };
            if fresh != stored && heap.peek().is_some_and(|Reverse((next, _, _))| *next < fresh) {
                heap.push(Reverse((fresh, app_id, key)));
                continue;
            }
            if s.refused_placements.get(&(app_id, node)).is_some_and(|until| now_ms < *until) {
                continue;
            }
            match check_ask(s, host.policies(), app, ask, n, true) {
                Ok(()) => Offer::Place,
                // The order's first ask does not fit what is free here
                // (but fits the node): hold the node for it, when the
                // pipeline holds nodes and this pass makes holds.
                Err(Blocked::NodeFull)
                    if made == 0 && host.makes_holds() && ask.capability.fits_in(&n.capacity) && may_hold(s, host.policies(), app, key) =>
                {
                    Offer::Hold
                }
                Err(_) => Offer::Skip,
            }
        };
        match offer {
            Offer::Place => {}
            Offer::Skip => continue,
            Offer::Hold => {
                host.hold(node, Some(LeftoverHold { app: app_id, key, since_ms: now_ms, reservation: false }));
                break;
            }
        }
        if let Some(d) = host.allocate(app_id, key, node, now_ms, Phase::Leftover) {
            out.push(d);
            made += 1;
        }
        let s = host.state();
        // After a placement no hold can begin (one begins only before the
        // phase's first placement), so once the smallest ask no longer fits
        // what is free here every ask left would be skipped as NodeFull:
        // stop instead of popping (and re-keying) them all.
        if made > 0 && smallest.is_some_and(|m| s.nodes.get(&node).is_none_or(|n| !m.fits_in(&n.free()))) {
            break;
        }
        if let (Some(app), Some(n)) = (s.apps.get(&app_id), s.nodes.get(&node)) {
            if let Some(ask) = app.asks.get(&key).filter(|a| a.count > 0) {
                if let Some(k) = host.policies().leftover_key(s, app, ask, n) {
                    heap.push(Reverse((k, app_id, key)));
                }
            }
        }
    }
    made
}

/// Reserve `node` for `app`'s most urgent ask that may go there (its
/// locality and label allow the node) if `super::reservation` allows it;
/// whether it did.
fn reserve(host: &mut impl Host, app_id: AppId, node: NodeId, now_ms: i64, per_app: usize) -> bool {
    let key = {
        let s = host.state();
        let (Some(app), Some(n)) = (s.apps.get(&app_id), s.nodes.get(&node)) else { return false };
        let Some(ask) = app.asks.values().find(|a| a.count > 0 && may_go_on(a, n)) else {
            return false;
        };
        if !super::reservation::may_reserve(s, app, ask, n, per_app) {
            return false;
        }
        ask.key
    };
    host.hold(node, Some(LeftoverHold { app: app_id, key, since_ms: now_ms, reservation: true }));
    true
}

/// What the leftover phase does with the ask at the top of its order.
enum Offer {
    Place,
    /// Hold the node for it (`leftover_holds`) and end the phase here.
    Hold,
    Skip,
}

/// Whether `app`'s pipeline may hold one more node for its ask `key`: it
/// holds fewer nodes than its `holds()`, none of them for this ask.
fn may_hold(s: &ClusterState, policies: &PolicySet, app: &App, key: SchedulerKey) -> bool {
    let most = policies.leftover_holds(app);
    if most == 0 {
        return false;
    }
    let mine = policies.pipeline_of(app.queue);
    let mut held = 0;
    for h in s.leftover_holds.values().filter(|h| !h.reservation) {
        if h.app == app.id && h.key == key {
            return false;
        }
        if s.apps.get(&h.app).is_some_and(|a| std::ptr::eq(policies.pipeline_of(a.queue), mine)) {
            held += 1;
        }
    }
    held < most
}
