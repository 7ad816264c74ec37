//! The engine: one event-in / decisions-out core that the JNI bridge, the
//! simulator and the tests all drive.
//!
//! ```text
//!   apply(Event)*  ──►  ClusterState  ──►  schedule_node(node, now) ──► Vec<Decision>
//!                         ▲   plugin pipelines (crate::policy::PolicySet)
//! ```
//!
//! The engine never asks its driver for state: whatever changed arrives as an
//! event. Decisions are committed to the engine's own state when they are
//! returned; a driver that cannot carry one out sends `AllocationRejected`.

pub mod activity;
mod candidates;
pub mod faults;
mod pass;
mod propose;
mod round;

pub use crate::event::{Decision, Event};

use crate::config::{Config, ConfigError};
use crate::model::{App, ClusterState, Container, ContainerId, LiveContainer, Node, NodeId, Queue, QueueId};
use crate::policy::{Gauge, PolicySet};
use serde::Serialize;
use std::collections::HashMap;
use std::sync::Arc;
use tracing::warn;

/// Errors a scheduling call can return to its driver (the JNI bridge turns
/// them into a Java exception and the shim falls back to its built-in FIFO).
#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    #[error("engine fault injected by scheduler.fault_injection = error-on-schedule (every scheduler.fault_every_n_heartbeats calls)")]
    InjectedFault,
    #[error("unknown node {0}")]
    UnknownNode(NodeId),
}

/// Monotonic counters exported through JNI and metrics.
#[derive(Debug, Default, Clone, Copy, Serialize)]
pub struct Counters {
    pub events: u64,
    pub passes: u64,
    pub allocations: u64,
    pub preemptions: u64,
    pub rejected_allocations: u64,
    pub unknown_references: u64,
    /// Configs applied in place (`-refreshQueues`).
    pub reconfigurations: u64,
    /// Apps moved to another queue (`yarn application -movetoqueue`).
    pub app_moves: u64,
    /// Scheduling rounds between heartbeats that ran passes
    /// (`Engine::schedule_round`), and the containers they allocated.
    pub rounds: u64,
    pub round_allocations: u64,
    /// Parallel rounds (`scheduler.round_proposers` > 1): placements the
    /// proposers proposed, and those the engine rejected as conflicting
    /// with an earlier commit (their nodes were offered again).
    pub round_proposals: u64,
    pub round_conflicts: u64,
    /// Wall time parallel rounds spent proposing (copies and passes, the
    /// proposers in parallel) and validating, committing and retrying, ns.
    pub round_propose_ns: u64,
    pub round_commit_ns: u64,
}

/// What applying an event did to the state.
enum Applied {
    /// It named a node, app or container the engine does not know.
    Unknown,
    Done,
    /// `AppRemoved`: the app's final record.
    AppRemoved(Box<App>),
}

pub struct Engine {
    pub state: ClusterState,
    policies: PolicySet,
    /// What happened to containers and apps, when asked to keep it
    /// (`enable_activity_log`): the simulator's calibration input.
    activity: Option<activity::ActivityLog>,
    config: Config,
    next_container: ContainerId,
    counters: Counters,
    /// Scheduling calls counted for `scheduler.fault_every_n_heartbeats`.
    fault_calls: u64,
    /// Whether a round between heartbeats has work, and where it starts.
    round: round::RoundState,
}

impl Engine {
    /// `resource_names`: the cluster's resource types in index order; the
    /// first two must be memory-mb and vcores as in YARN.
    pub fn new(config: Config, resource_names: Vec<String>) -> Result<Engine, ConfigError> {
        config.validate()?;
        if resource_names.len() > crate::model::resource::MAX_RESOURCE_TYPES {
            return Err(ConfigError {
                key: "yarn.resource-types".into(),
                value: resource_names.join(","),
                reason: format!("Shepherd handles at most {} resource types", crate::model::resource::MAX_RESOURCE_TYPES),
            });
        }
        let mut state = ClusterState { resource_names, ..Default::default() };
        set_queues(&mut state, &config);
        let policies = PolicySet::build(&config, &state, None)?;
        Ok(Engine {
            state,
            policies,
            activity: None,
            config,
            next_container: 1,
            counters: Counters::default(),
            fault_calls: 0,
            round: round::RoundState::default(),
        })
    }

    /// Engine with the default config and memory/vcores only.
    pub fn with_config(config: Config) -> Result<Engine, ConfigError> {
        Engine::new(config, vec!["memory-mb".into(), "vcores".into()])
    }

    pub fn config(&self) -> &Config {
        &self.config
    }

    pub fn counters(&self) -> Counters {
        self.counters
    }

    /// The default policy's name (`scheduler.policy`).
    pub fn policy_name(&self) -> &str {
        &self.config.scheduler.policy
    }

    pub fn policies(&self) -> &PolicySet {
        &self.policies
    }

    /// Testing only: passes re-key stale candidates one by one instead of
    /// keeping app orders' levels apart (`PolicySet::set_flat_candidates`).
    /// A reconfiguration turns it off again.
    #[doc(hidden)]
    pub fn set_flat_candidates(&mut self, flat: bool) {
        self.policies.set_flat_candidates(flat);
    }

    /// The driver's time is now `now_ms` (the clock never goes back): the
    /// events applied next happened then, and what they record (an app's
    /// ask times, its removal in the activity log) and what plugins read
    /// from the state while observing them carry that time, not the time
    /// of the last pass.
    pub fn advance_clock(&mut self, now_ms: i64) {
        self.state.now_ms = self.state.now_ms.max(now_ms);
    }

    /// The size `app`'s pipeline predicts for it (container-ms), if its
    /// estimator makes a prediction.
    pub fn estimate_ms(&self, app: crate::model::AppId) -> Option<f64> {
        let a = self.state.apps.get(&app)?;
        self.policies.estimate(&self.state, a).map(|e| e.size_ms)
    }

    /// Whether `app`'s estimator predicts after admission (SLearn: once the
    /// pilots finish), so a driver recording the prediction should take the
    /// first one [`Engine::estimate_ms`] returns rather than the admission one.
    pub fn predicts_after_admission(&self, app: crate::model::AppId) -> bool {
        self.state.apps.get(&app).is_some_and(|a| self.policies.predicts_after_admission(a))
    }

    /// Apply one event to the cluster state, then let the plugins observe it
    /// (estimators all events; pipelines those of their scope).
    pub fn apply(&mut self, event: Event) {
        self.counters.events += 1;
        if self.activity.is_some() {
            self.log_activity(&event);
        }
        let before = self.queue_of(&event);
        match (&event, before) {
            (Event::ContainerFinished { container, at_ms, .. }, Some(q)) => {
                if let Some(c) = self.state.containers.get(container) {
                    self.policies.on_container_finished(&self.state, c, *at_ms, q);
                }
            }
            // The old queue's plugins let go of the app while it is still theirs.
            (Event::AppMoved { app, queue }, Some(from)) => {
                if let (Some(a), Some(to)) = (self.state.apps.get(app), self.state.queue_id(queue)) {
                    if to != from {
                        self.policies.on_app_moved_out(&self.state, a, to);
                    }
                }
            }
            _ => {}
        }
        match self.apply_to_state(&event) {
            Applied::Unknown => {
                self.counters.unknown_references += 1;
                warn!(?event, "event refers to an unknown node, app or container; ignored");
                return;
            }
            Applied::AppRemoved(app) => self.policies.on_app_removed(&self.state, &app),
            Applied::Done => {}
        }
        self.round.note(&event);
        let queue = self.queue_of(&event).or(before);
        self.policies.on_event(&self.state, &event, queue);
    }

    /// Keep the activity log (bounded to `limit` records of each kind), or
    /// drop it with 0.
    pub fn enable_activity_log(&mut self, limit: usize) {
        self.activity = (limit > 0).then(|| activity::ActivityLog::new(limit));
    }

    /// The activity log as JSON, if it is kept.
    pub fn activity_json(&self) -> Option<serde_json::Value> {
        self.activity.as_ref().map(|a| a.json())
    }

    /// Record the containers (and app) `event` is about to release.
    fn log_activity(&mut self, event: &Event) {
        let (Some(log), s) = (self.activity.as_mut(), &self.state) else { return };
        let now = s.now_ms;
        match event {
            Event::ContainerFinished { container, exit_status, at_ms } => {
                if let Some(c) = s.containers.get(container) {
                    log.container_gone(s, c, Some((*at_ms, *exit_status)));
                }
            }
            Event::AllocationRejected { container } => {
                if let Some(c) = s.containers.get(container) {
                    log.container_gone(s, c, None);
                }
            }
            Event::NodeRemoved { node } => {
                for c in s.nodes.get(node).into_iter().flat_map(|n| n.containers.iter()).filter_map(|c| s.containers.get(c)) {
                    log.container_gone(s, c, None);
                }
            }
            Event::AppRemoved { app } => {
                if let Some(a) = s.apps.get(app) {
                    for c in a.containers.keys().filter_map(|c| s.containers.get(c)) {
                        log.container_gone(s, c, Some((now, 0)));
                    }
                    log.app_gone(s, a);
                }
            }
            _ => {}
        }
    }

    /// The queue of the app an event concerns (its own, or its container's).
    fn queue_of(&self, event: &Event) -> Option<QueueId> {
        let s = &self.state;
        let app = match event {
            Event::AppAdded { app, .. }
            | Event::AppRemoved { app }
            | Event::AppMoved { app, .. }
            | Event::AttemptAdded { app, .. }
            | Event::AttemptRemoved { app, .. }
            | Event::AskUpdated { app, .. }
            | Event::ContainerRecovered { app, .. } => *app,
            Event::ContainerLaunched { container, .. }
            | Event::ContainerFinished { container, .. }
            | Event::AllocationRejected { container }
            | Event::ContainerTags { container, .. } => s.containers.get(container)?.app,
            _ => return None,
        };
        s.apps.get(&app).map(|a| a.queue)
    }

    fn apply_to_state(&mut self, event: &Event) -> Applied {
        let s = &mut self.state;
        let now = s.now_ms;
        match event {
            Event::NodeAdded { node, host, rack, capacity, labels, attributes } => {
                let old = s.nodes.remove(node);
                let mut n = Node::new(*node, host.clone(), rack.clone(), *capacity);
                // Re-registered under the same id: its live containers stay
                // booked on it (they are still in `s.containers`).
                if let Some(old) = old {
                    s.capacity -= old.capacity;
                    n.allocated = old.allocated;
                    n.containers = old.containers;
                }
                n.labels = labels.iter().cloned().collect();
                n.attributes = attributes.iter().cloned().collect();
                s.capacity += *capacity;
                s.nodes.insert(*node, n);
                s.constraints_mut().node_added(*node, rack, labels, attributes);
            }
            Event::NodeRemoved { node } => {
                let Some(n) = s.nodes.remove(node) else { return Applied::Unknown };
                s.leftover_holds.remove(node);
                s.capacity -= n.capacity;
                for c in n.containers {
                    Self::release_container(s, c, Some(now));
                }
                s.constraints_mut().node_removed(*node);
            }
            Event::NodeAttributesUpdated { node, labels, attributes } => {
                let Some(n) = s.nodes.get_mut(node) else { return Applied::Unknown };
                n.labels = labels.iter().cloned().collect();
                n.attributes = attributes.iter().cloned().collect();
                s.constraints_mut().node_updated(*node, labels, attributes);
            }
            Event::NodeResourceUpdated { node, capacity } => {
                let Some(n) = s.nodes.get_mut(node) else { return Applied::Unknown };
                s.capacity -= n.capacity;
                n.capacity = *capacity;
                s.capacity += *capacity;
            }
            Event::NodeUtilization { node, used } => {
                let Some(n) = s.nodes.get_mut(node) else { return Applied::Unknown };
                n.utilization = Some(*used);
                n.last_heartbeat_ms = s.now_ms;
            }
            Event::AppAdded { app, yarn_id, queue, user, name, app_type, tags, submit_ms, priority } => {
                let q = match s.queue_id(queue) {
                    Some(q) => q,
                    None => {
                        warn!(app, queue, "unknown queue; placing the app in the first configured queue");
                        0
                    }
                };
                s.queues[q].running_apps += 1;
                s.apps.insert(
                    *app,
                    Arc::new(App {
                        id: *app,
                        yarn_id: yarn_id.clone(),
                        queue: q,
                        user: user.clone(),
                        name: name.clone(),
                        app_type: app_type.clone(),
                        tags: tags.clone(),
                        submit_ms: *submit_ms,
                        priority: *priority,
                        attempt: 0,
                        asks: Default::default(),
                        allocated: Default::default(),
                        containers: Default::default(),
                        first_allocation_ms: None,
                        allocations_total: 0,
                        service_done_ms: 0,
                        live_start_sum_ms: 0,
                        am_container: None,
                        am_ask_ms: None,
                        first_task_ask_ms: None,
                    }),
                );
            }
            Event::AppRemoved { app } => {
                let Some(live) = s.apps.get(app).map(|a| a.containers.keys().copied().collect::<Vec<_>>()) else { return Applied::Unknown };
                // Release first so the app's final record carries their service.
                for c in live {
                    Self::release_container(s, c, Some(now));
                }
                let a = s.apps.remove(app).expect("checked");
                s.refused_placements.retain(|(a, _), _| a != app);
                s.waiting.forget(*app);
                s.queues[a.queue].running_apps = s.queues[a.queue].running_apps.saturating_sub(1);
                s.queues[a.queue].pending -= a.pending();
                return Applied::AppRemoved(Box::new(Arc::unwrap_or_clone(a)));
            }
            Event::AppMoved { app, queue } => {
                // The shim refuses a move to a queue Shepherd does not have.
                let Some(to) = s.queue_id(queue) else { return Applied::Unknown };
                let Some(a) = s.apps.get_mut(app).map(Arc::make_mut) else { return Applied::Unknown };
                if a.queue != to {
                    tracing::info!(app, from = %s.queues[a.queue].name, to = %queue, "app moved to another queue");
                    a.queue = to;
                    // Its containers, AM and asks now count in the new
                    // queue (an operator's action: rare, so a recount).
                    recount_queues(s);
                    self.counters.app_moves += 1;
                }
            }
            Event::AttemptAdded { app, attempt } => {
                let Some(a) = s.apps.get_mut(app).map(Arc::make_mut) else { return Applied::Unknown };
                a.attempt = *attempt;
            }
            Event::AttemptRemoved { app, .. } => {
                let Some(a) = s.apps.get_mut(app).map(Arc::make_mut) else { return Applied::Unknown };
                let pending = a.pending();
                a.asks.clear();
                s.queues[a.queue].pending -= pending;
            }
            Event::AskUpdated { app, ask } => {
                let Some(a) = s.apps.get_mut(app).map(Arc::make_mut) else { return Applied::Unknown };
                if ask.count > 0 {
                    let first =
                        if ask.key.priority == crate::model::ask::AM_PRIORITY { &mut a.am_ask_ms } else { &mut a.first_task_ask_ms };
                    first.get_or_insert(now);
                }
                let before = a.pending();
                if ask.count <= 0 && ask.locations.iter().all(|(_, c)| *c <= 0) {
                    a.asks.remove(&ask.key);
                } else {
                    a.asks.insert(ask.key, ask.clone());
                }
                let after = a.pending();
                let q = &mut s.queues[a.queue];
                q.pending -= before;
                q.pending += after;
            }
            Event::ContainerLaunched { container, at_ms } => {
                let Some(c) = s.containers.get_mut(container) else { return Applied::Unknown };
                c.launched_ms = Some(*at_ms);
                if let Some(live) =
                    s.apps.get_mut(&c.app).map(Arc::make_mut).and_then(|a| Arc::make_mut(&mut a.containers).get_mut(container))
                {
                    live.started_ms = *at_ms;
                }
            }
            Event::ContainerFinished { container, at_ms, .. } => {
                if !Self::release_container(s, *container, Some(*at_ms)) {
                    return Applied::Unknown;
                }
            }
            Event::ContainerRecovered { container, app, node, key, resources, execution, start_ms } => {
                if !s.nodes.contains_key(node) || !s.apps.contains_key(app) {
                    return Applied::Unknown;
                }
                // A recovered container at the AM's priority, while the app
                // has none, is its AM (work-preserving restart keeps it).
                let am = key.priority == crate::model::ask::AM_PRIORITY && s.apps[app].am_container.is_none();
                let c = Container {
                    id: *container,
                    app: *app,
                    node: *node,
                    key: *key,
                    resources: *resources,
                    execution: *execution,
                    allocated_ms: *start_ms,
                    launched_ms: Some(*start_ms),
                    am,
                    // The shim does not know which recovered containers
                    // were speculative: booked in the allocated view.
                    speculative: false,
                };
                Self::commit_container(s, c, false);
            }
            Event::ContainerTags { container, tags } => {
                let Some(c) = s.containers.get(container) else { return Applied::Unknown };
                let (app, node) = (c.app, c.node);
                s.constraints_mut().container_removed(*container);
                s.constraints_mut().container_added(*container, app, node, tags);
            }
            Event::AllocationRejected { container } => {
                let Some(c) = s.containers.get(container).cloned() else { return Applied::Unknown };
                // It never ran: no service to count.
                Self::release_container(s, *container, None);
                self.counters.rejected_allocations += 1;
                // Do not offer this app this node again for a while: a policy
                // that ranks the app first would otherwise hand it the node on
                // every heartbeat, YARN would refuse every time, and nobody
                // else would get the node.
                let backoff = self.config.scheduler.refused_placement_backoff_ms;
                if backoff > 0 {
                    s.refused_placements.insert((c.app, c.node), c.allocated_ms + backoff);
                }
                // Give the ask its container back: the AM still wants it.
                if let Some(a) = s.apps.get_mut(&c.app).map(Arc::make_mut) {
                    if let Some(ask) = a.asks.get_mut(&c.key) {
                        ask.count += 1;
                        s.queues[a.queue].pending += ask.capability;
                    }
                }
            }
            Event::NodeLoadEstimate { .. } | Event::HistorySample { .. } => {
                if !crate::control::inputs::apply_to_state(s, event) {
                    return Applied::Unknown;
                }
            }
        }
        Applied::Done
    }

    /// Book a container against node, app, queue and cluster. A proposer's
    /// copy (`fork`) leaves the app's record of its live containers and
    /// their attained service as they were: nothing a pass decides by
    /// changes with a container started now (its service so far is 0), and
    /// copying every live container of every app a proposer books into
    /// would cost a round more than its pass.
    fn commit_container(s: &mut ClusterState, c: Container, fork: bool) {
        if let Some(n) = s.nodes.get_mut(&c.node) {
            if c.speculative {
                n.oversubscribed += c.resources;
            } else {
                n.allocated += c.resources;
            }
            n.containers.insert(c.id);
        }
        if let Some(a) = s.apps.get_mut(&c.app).map(Arc::make_mut) {
            if c.am {
                a.am_container = Some(c.id);
                s.queues[a.queue].am_used += c.resources;
            }
            // A speculative container is outside the allocated view of
            // app, queue and cluster (as YARN keeps OPPORTUNISTIC ones):
            // shares, queue maxima and free capacity ignore it.
            if !c.speculative {
                a.allocated += c.resources;
                s.queues[a.queue].allocated += c.resources;
            }
            if !fork {
                let live = LiveContainer { key: c.key, resources: c.resources, started_ms: c.launched_ms.unwrap_or(c.allocated_ms) };
                Arc::make_mut(&mut a.containers).insert(c.id, live);
                a.live_start_sum_ms += c.allocated_ms;
            }
            a.allocations_total += 1;
            a.first_allocation_ms.get_or_insert(c.allocated_ms);
            s.waiting.clear(c.app);
        }
        if !c.speculative {
            s.allocated += c.resources;
        }
        s.containers.insert(c.id, c);
    }

    /// Undo `commit_container`; the container's service up to `ended_ms`
    /// counts towards its app's attained service (`None`: it never ran).
    /// Returns false if the container is unknown.
    fn release_container(s: &mut ClusterState, id: ContainerId, ended_ms: Option<i64>) -> bool {
        let Some(c) = s.containers.remove(&id) else { return false };
        s.constraints_mut().container_removed(id);
        if let Some(n) = s.nodes.get_mut(&c.node) {
            if c.speculative {
                n.oversubscribed -= c.resources;
            } else {
                n.allocated -= c.resources;
            }
            n.containers.remove(&id);
        }
        if let Some(a) = s.apps.get_mut(&c.app).map(Arc::make_mut) {
            if a.am_container == Some(id) {
                a.am_container = None;
                s.queues[a.queue].am_used -= c.resources;
            }
            if !c.speculative {
                a.allocated -= c.resources;
                s.queues[a.queue].allocated -= c.resources;
            }
            Arc::make_mut(&mut a.containers).remove(&id);
            a.live_start_sum_ms -= c.allocated_ms;
            if let Some(end) = ended_ms {
                a.service_done_ms += (end - c.allocated_ms).max(0);
            }
        }
        if !c.speculative {
            s.allocated -= c.resources;
        }
        true
    }

    /// Run one scheduling pass for `node` (a NodeManager heartbeat) and
    /// append the decisions to `out`.
    pub fn schedule_node(&mut self, node: NodeId, now_ms: i64, out: &mut Vec<Decision>) -> Result<(), EngineError> {
        faults::before_schedule(&self.config.scheduler, &mut self.fault_calls)?;
        if !self.state.nodes.contains_key(&node) {
            return Err(EngineError::UnknownNode(node));
        }
        // The clock moves in `tick` below, before anything reads it.
        if let Some(n) = self.state.nodes.get_mut(&node) {
            n.last_heartbeat_ms = now_ms;
            if let Some(log) = self.activity.as_mut() {
                log.heartbeat(node, now_ms);
            }
        }
        self.counters.passes += 1;
        let _span = tracing::debug_span!("schedule_node", node).entered();
        self.tick(now_ms);
        self.pass_on(node, now_ms, out);
        Ok(())
    }

    /// When a plugin's periodic step is next due (see `Plugin::next_tick_ms`);
    /// a driver that skips idle heartbeats calls [`Engine::tick`] then.
    pub fn next_tick_ms(&self) -> Option<i64> {
        self.policies.next_tick_ms()
    }

    /// Run the periodic steps due at `now_ms` (every pass does this first).
    /// True when one of them may change what a pass decides.
    pub fn tick(&mut self, now_ms: i64) -> bool {
        self.advance_clock(now_ms);
        if self.policies.next_tick_ms().is_none_or(|t| t > now_ms) {
            return false;
        }
        let _span = tracing::debug_span!("tick", now_ms).entered();
        self.policies.tick(&self.state, now_ms)
    }

    /// Apply a new config in place (`yarn rmadmin -refreshQueues`): queues
    /// are added, re-weighted or re-capped, and each queue's pipeline is
    /// rebuilt, keeping every plugin whose name and configuration did not
    /// change — with what it learned (estimator history, DRESS's δ and
    /// phases). Running containers and outstanding asks are untouched. A
    /// queue that still has applications cannot be dropped. On error
    /// nothing changes.
    pub fn reconfigure(&mut self, config: Config) -> Result<(), ConfigError> {
        config.validate()?;
        for a in self.state.apps.values() {
            let name = &self.state.queues[a.queue].name;
            if !config.queues.iter().any(|q| &q.name == name) {
                return Err(ConfigError {
                    key: "queue".into(),
                    value: name.clone(),
                    reason: format!("queue root.{name} still has applications; it cannot be dropped"),
                });
            }
        }
        let mut next = ClusterState::default();
        set_queues(&mut next, &config);
        // A dry run: every plugin the config names builds, so the real build
        // below (which consumes the old plugins) cannot fail.
        PolicySet::build(&config, &next, None)?;
        let remap: Vec<QueueId> = self.state.queues.iter().map(|q| next.queue_id(&q.name).unwrap_or(0)).collect();
        self.state.queues = next.queues;
        self.state.queue_by_name = next.queue_by_name;
        for a in self.state.apps.values_mut().map(Arc::make_mut) {
            a.queue = remap[a.queue];
        }
        recount_queues(&mut self.state);
        let old = std::mem::replace(&mut self.policies, PolicySet::empty());
        self.policies = PolicySet::build(&config, &self.state, Some(old)).expect("the dry run built the same plugins");
        self.config = config;
        self.counters.reconfigurations += 1;
        tracing::info!(queues = ?self.state.queues.iter().map(|q| &q.name).collect::<Vec<_>>(), "config applied in place");
        Ok(())
    }

    /// Allocate `ask_key` of `app` on `node`: the commit step of a pass.
    fn allocate(
        &mut self,
        app: crate::model::AppId,
        key: crate::model::SchedulerKey,
        node: NodeId,
        now_ms: i64,
        speculative: bool,
    ) -> Option<Decision> {
        let (c, decision, queue) = Self::book(&mut self.state, self.next_container, app, key, node, now_ms, speculative, false)?;
        self.next_container += 1;
        self.policies.on_allocated(&self.state, &c, queue);
        Some(decision)
    }

    /// Book container `id` of `app`'s ask `key` on `node` in `s`: the ask
    /// shrinks, node, app, queue and cluster hold the container, its tags go
    /// into the constraint index. No plugin sees it; that is the caller's
    /// part (the engine's `allocate`; a parallel round's proposers book in
    /// their own copy of the state only, `fork`, see `commit_container`).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn book(
        s: &mut ClusterState,
        id: ContainerId,
        app: crate::model::AppId,
        key: crate::model::SchedulerKey,
        node: NodeId,
        now_ms: i64,
        speculative: bool,
        fork: bool,
    ) -> Option<(Container, Decision, QueueId)> {
        let n = s.nodes.get(&node)?;
        let (host, rack) = (n.host.clone(), n.rack.clone());
        let a = s.apps.get_mut(&app).map(Arc::make_mut)?;
        let am = key.priority == crate::model::ask::AM_PRIORITY && a.am_container.is_none();
        let ask = a.asks.get_mut(&key)?;
        let locality = ask.locality_on(&host, &rack)?;
        ask.consume_one(&host, &rack, locality);
        let (resources, execution) = (ask.capability, if speculative { crate::model::ExecutionType::Opportunistic } else { ask.execution });
        let placement = ask.placement.clone();
        if ask.count <= 0 {
            a.asks.remove(&key);
        }
        s.queues[a.queue].pending -= resources;
        let c = Container { id, app, node, key, resources, execution, allocated_ms: now_ms, launched_ms: None, am, speculative };
        let queue = a.queue;
        Self::commit_container(s, c.clone(), fork);
        if let Some(p) = placement.filter(|p| !p.tags.is_empty()) {
            s.constraints_mut().container_added(id, app, node, &p.tags);
        }
        // The node was held for this ask (`pass`): the hold has done its
        // work, whichever pass or round's commit placed it.
        if s.leftover_holds.get(&node).is_some_and(|h| (h.app, h.key) == (app, key)) {
            s.leftover_holds.remove(&node);
        }
        Some((c, Decision::Allocate { container: id, app, node, key, resources, locality, execution }, queue))
    }

    /// Metrics: the engine's counters and cluster size, then the policy's
    /// gauges (`Policy::gauges`). Names carry no `shepherd_` prefix; the
    /// shim adds it when it publishes them (Hadoop metrics2, `/prom`).
    pub fn gauges(&self) -> Vec<Gauge> {
        let c = &self.counters;
        let s = &self.state;
        let count = |name: &str, n: u64, help: &str| Gauge::counter(name, n as f64, help);
        let seconds = |name: &str, ns: u64, help: &str| Gauge::counter(name, ns as f64 / 1e9, help);
        let mut out = vec![
            count("engine_events_total", c.events, "Events the engine applied"),
            count("engine_passes_total", c.passes, "Scheduling passes (one per NodeManager heartbeat)"),
            count("engine_allocations_total", c.allocations, "Containers the engine allocated"),
            count("engine_preemptions_total", c.preemptions, "Containers the engine preempted"),
            count("engine_rejected_allocations_total", c.rejected_allocations, "Engine allocations the driver could not carry out"),
            count(
                "engine_unknown_references_total",
                c.unknown_references,
                "Events ignored because they named an unknown node, app or container",
            ),
            Gauge::new("engine_nodes", s.nodes.len() as f64, "NodeManagers the engine knows"),
            Gauge::new("engine_apps", s.apps.len() as f64, "Applications the engine knows"),
            Gauge::new("engine_containers", s.containers.len() as f64, "Running containers the engine knows"),
            count("engine_reconfigurations_total", c.reconfigurations, "Configs applied in place (-refreshQueues)"),
            count("engine_app_moves_total", c.app_moves, "Applications moved to another queue (yarn application -movetoqueue)"),
            count("engine_rounds_total", c.rounds, "Scheduling rounds between heartbeats (asynchronous scheduling) that ran passes"),
            count(
                "engine_round_allocations_total",
                c.round_allocations,
                "Containers allocated by scheduling rounds between heartbeats (the rest by heartbeat passes)",
            ),
            count("engine_round_proposals_total", c.round_proposals, "Placements proposed by the proposers of parallel scheduling rounds"),
            count(
                "engine_round_conflicts_total",
                c.round_conflicts,
                "Proposals of parallel scheduling rounds rejected as conflicting with an earlier commit",
            ),
            seconds(
                "engine_round_propose_seconds_total",
                c.round_propose_ns,
                "Wall time parallel scheduling rounds spent in their proposers (state copies and passes, in parallel)",
            ),
            seconds(
                "engine_round_commit_seconds_total",
                c.round_commit_ns,
                "Wall time parallel scheduling rounds spent validating and committing proposals and retrying conflicted nodes",
            ),
        ];
        if self.config.scheduler.fault_injection != "none" || faults::injected_total() > 0 {
            out.push(Gauge::counter(
                "engine_faults_injected_total",
                faults::injected_total() as f64,
                "Faults injected on purpose by scheduler.fault_injection (test-only), by every engine of this process",
            ));
        }
        out.extend(self.policies.gauges(s));
        out
    }

    /// JSON view of the engine: cluster summary, queues, apps (with what
    /// their pipeline knows of them and why they wait), the queue order and
    /// every pipeline with each plugin's state.
    pub fn state_json(&self) -> serde_json::Value {
        let s = &self.state;
        let apps: Vec<_> = s
            .apps
            .values()
            .map(|a| {
                let blocked = s.waiting.of(a.id).map(|(at, node, why)| {
                    serde_json::json!({"at_ms": at, "node": s.nodes.get(&node).map(|n| n.host.as_str()), "reason": why.to_string()})
                });
                serde_json::json!({
                    "app": a.id,
                    "yarn_id": a.yarn_id,
                    "queue": s.queues[a.queue].name,
                    "user": a.user,
                    "name": a.name,
                    "attempt": a.attempt,
                    "allocated": a.allocated.0,
                    "pending": a.pending().0,
                    "pending_containers": a.pending_containers(),
                    "running_containers": a.containers.len(),
                    "dominant_share": a.allocated.dominant_share(&s.capacity),
                    "attained_ms": a.attained_ms(s.now_ms),
                    "blocked": blocked,
                    "pipeline": self.policies.app_json(s, a),
                })
            })
            .collect();
        let queues: Vec<_> = s
            .queues
            .iter()
            .map(|q| {
                serde_json::json!({
                    "name": q.name,
                    "path": format!("root.{}", q.name),
                    "policy": self.policies.pipeline_of(q.id).policy,
                    "weight": q.weight,
                    "capacity": q.capacity,
                    "max_capacity": q.max_capacity,
                    "allocated": q.allocated.0,
                    "pending": q.pending.0,
                    "apps": q.running_apps,
                })
            })
            .collect();
        let acls: HashMap<_, _> = self
            .config
            .queues
            .iter()
            .map(|q| (q.name.clone(), serde_json::json!({"submit": q.submit_acl, "admin": q.admin_acl})))
            .collect();
        let policies = self.policies.state_json(s);
        serde_json::json!({
            "policy": self.config.scheduler.policy,
            "now_ms": s.now_ms,
            "resource_types": s.resource_names,
            "cluster": {
                "nodes": s.nodes.len(),
                "capacity": s.capacity.0,
                "allocated": s.allocated.0,
                "containers": s.containers.len(),
            },
            "counters": self.counters,
            // Nodes held for a leftover ask (`engine::pass`): who waits where.
            "leftover_holds": s.leftover_holds.iter().map(|(node, h)| serde_json::json!({
                "node": s.nodes.get(node).map(|n| n.host.as_str()),
                "app": h.app,
                "priority": h.key.priority,
                "since_ms": h.since_ms,
            })).collect::<Vec<_>>(),
            "queues": queues,
            "queue_acls": acls,
            "apps": apps,
            "queue_order": policies["queue_order"],
            "pipelines": policies["pipelines"],
        })
    }
}

/// The queues `config` lists, empty, in its order.
fn set_queues(state: &mut ClusterState, config: &Config) {
    state.queues.clear();
    state.queue_by_name.clear();
    for (i, q) in config.queues.iter().enumerate() {
        state.queue_by_name.insert(q.name.clone(), i);
        state.queues.push(Queue {
            id: i,
            name: q.name.clone(),
            weight: q.weight,
            capacity: q.capacity,
            max_capacity: q.max_capacity,
            max_am_share: q.max_am_share,
            allocated: Default::default(),
            am_used: Default::default(),
            pending: Default::default(),
            running_apps: 0,
        });
    }
}

/// Each queue's allocated, pending and app count from its apps (after the
/// queue list changed).
fn recount_queues(state: &mut ClusterState) {
    for q in state.queues.iter_mut() {
        q.am_used = Default::default();
        q.allocated = Default::default();
        q.pending = Default::default();
        q.running_apps = 0;
    }
    for a in state.apps.values() {
        let q = &mut state.queues[a.queue];
        if let Some(am) = a.am_container.and_then(|c| state.containers.get(&c)) {
            q.am_used += am.resources;
        }
        q.allocated += a.allocated;
        q.pending += a.pending();
        q.running_apps += 1;
    }
}

#[cfg(test)]
pub(crate) mod tests;
