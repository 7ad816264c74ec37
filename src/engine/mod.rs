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
mod apply;
mod asked;
mod candidates;
pub mod faults;
mod observe;
mod pass;
pub mod preemption;
mod propose;
mod queues;
mod quiet;
mod reservation;
mod room;
mod round;
pub mod view;

pub use crate::event::{Decision, Event};

use crate::config::{Config, ConfigError};
use crate::model::{ClusterState, Container, ContainerId, NodeId, QueueId};
use crate::policy::PolicySet;
use serde::{Deserialize, Serialize};
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
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
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

pub struct Engine {
    /// Private: the engine alone changes it, from events and its own
    /// decisions. Drivers read it through [`Engine::state`].
    state: ClusterState,
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
    /// Queue-guarantee preemption (runs only if a queue has it on).
    preemption: preemption::Preemption,
    /// The smallest outstanding ask, kept across passes (`asked`).
    smallest_ask: asked::SmallestAsk,
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
        queues::set_queues(&mut state, &config);
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
            preemption: preemption::Preemption::default(),
            smallest_ask: Default::default(),
        })
    }

    /// Engine with the default config and memory/vcores only.
    pub fn with_config(config: Config) -> Result<Engine, ConfigError> {
        Engine::new(config, vec!["memory-mb".into(), "vcores".into()])
    }

    /// The cluster as the engine sees it, read-only (drivers, views, tests).
    pub fn state(&self) -> &ClusterState {
        &self.state
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
        self.state.epoch += 1;
        if !matches!(event, Event::NodeUtilization { .. }) {
            self.state.asks_epoch += 1;
        }
        if self.activity.is_some() {
            self.log_activity(&event);
        }
        let before = self.queue_of(&event);
        match (&event, before) {
            // The plugins see the container before it is released (the only
            // time they hear of it: `PolicySet::on_event` passes on neither
            // a finished container nor a removed app).
            (Event::ContainerFinished { container, exit_status, at_ms }, Some(q)) => {
                if let Some(c) = self.state.containers.get(container) {
                    self.policies.on_container_finished(&self.state, c, *exit_status, *at_ms, q);
                    if preemption::enabled(&self.config) {
                        self.preemption.container_finished(c, *at_ms);
                    }
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
            apply::Applied::Unknown => {
                self.counters.unknown_references += 1;
                warn!(?event, "event refers to an unknown node, app or container; ignored");
                return;
            }
            apply::Applied::AppRemoved(app) => {
                self.preemption.app_removed(app.id);
                self.policies.on_app_removed(&self.state, &app)
            }
            apply::Applied::Done => {}
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
            | Event::AppPriorityChanged { app, .. }
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
        self.preempt(now_ms, out);
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
        self.state.epoch += 1;
        self.policies.tick(&self.state, now_ms)
    }

    /// Queue-guarantee preemption's round, when one is due (`preemption`):
    /// its marks and kills go out before the pass's placements.
    fn preempt(&mut self, now_ms: i64, out: &mut Vec<Decision>) {
        if preemption::enabled(&self.config) {
            let killed = self.preemption.maybe_round(&self.state, &self.config, now_ms, out);
            self.counters.preemptions += killed as u64;
        }
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
}

#[cfg(test)]
pub(crate) mod tests;
