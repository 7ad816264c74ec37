//! The engine: one event-in / decisions-out core that the JNI bridge, the
//! simulator and the tests all drive.
//!
//! ```text
//!   apply(Event)*  ──►  ClusterState  ──►  schedule_node(node, now) ──► Vec<Decision>
//!                         ▲   policy hooks (crate::policy::Policy)
//! ```
//!
//! The engine never asks its driver for state: whatever changed arrives as an
//! event. Decisions are committed to the engine's own state when they are
//! returned; a driver that cannot carry one out sends `AllocationRejected`.

mod decision;
mod event;
mod pass;

pub use decision::Decision;
pub use event::Event;

use crate::config::{Config, ConfigError};
use crate::model::{App, ClusterState, Container, ContainerId, Node, NodeId, Queue};
use crate::policy::{self, Gauge, Policy};
use serde::Serialize;
use std::collections::HashMap;
use tracing::warn;

/// Errors a scheduling call can return to its driver (the JNI bridge turns
/// them into a Java exception and the shim falls back to its built-in FIFO).
#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    #[error("engine fault injected by scheduler.fault_injection = error-on-schedule")]
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
}

pub struct Engine {
    pub state: ClusterState,
    policy: Box<dyn Policy>,
    config: Config,
    next_container: ContainerId,
    counters: Counters,
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
                reason: format!(
                    "Shepherd handles at most {} resource types",
                    crate::model::resource::MAX_RESOURCE_TYPES
                ),
            });
        }
        let policy = policy::build(&config)?;
        let mut state = ClusterState {
            resource_names,
            ..Default::default()
        };
        for (i, q) in config.queues.iter().enumerate() {
            state.queue_by_name.insert(q.name.clone(), i);
            state.queues.push(Queue {
                id: i,
                name: q.name.clone(),
                weight: q.weight,
                capacity: q.capacity,
                max_capacity: q.max_capacity,
                allocated: Default::default(),
                pending: Default::default(),
                running_apps: 0,
            });
        }
        Ok(Engine {
            state,
            policy,
            config,
            next_container: 1,
            counters: Counters::default(),
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

    pub fn policy_name(&self) -> &'static str {
        self.policy.name()
    }

    /// Whether the policy needs every heartbeat (see `Policy::time_driven`).
    pub fn policy_time_driven(&self) -> bool {
        self.policy.time_driven()
    }

    /// The policy's size estimate for `app`, if the policy makes one.
    pub fn estimate_ms(&self, app: crate::model::AppId) -> Option<f64> {
        self.policy.estimate_ms(&self.state, app)
    }

    /// Apply one event to the cluster state, then let the policy observe it.
    pub fn apply(&mut self, event: Event) {
        self.counters.events += 1;
        if let Event::ContainerFinished { container, at_ms, .. } = &event {
            if let Some(c) = self.state.containers.get(container) {
                let c = c.clone();
                self.policy.on_container_finished(&self.state, &c, *at_ms);
            }
        }
        let known = self.apply_to_state(&event);
        if !known {
            self.counters.unknown_references += 1;
            warn!(?event, "event refers to an unknown node, app or container; ignored");
            return;
        }
        self.policy.on_event(&self.state, &event);
    }

    /// Returns false when the event referred to something the engine does
    /// not know (it is then ignored: the engine's state stays consistent).
    fn apply_to_state(&mut self, event: &Event) -> bool {
        let s = &mut self.state;
        match event {
            Event::NodeAdded { node, host, rack, capacity, labels, attributes } => {
                if let Some(old) = s.nodes.remove(node) {
                    s.capacity -= old.capacity;
                }
                let mut n = Node::new(*node, host.clone(), rack.clone(), *capacity);
                n.labels = labels.iter().cloned().collect();
                n.attributes = attributes.iter().cloned().collect();
                s.capacity += *capacity;
                s.nodes.insert(*node, n);
            }
            Event::NodeRemoved { node } => {
                let Some(n) = s.nodes.remove(node) else { return false };
                s.capacity -= n.capacity;
                for c in n.containers {
                    Self::release_container(s, c);
                }
            }
            Event::NodeResourceUpdated { node, capacity } => {
                let Some(n) = s.nodes.get_mut(node) else { return false };
                s.capacity -= n.capacity;
                n.capacity = *capacity;
                s.capacity += *capacity;
            }
            Event::NodeUtilization { node, used } => {
                let Some(n) = s.nodes.get_mut(node) else { return false };
                n.utilization = Some(*used);
                n.last_heartbeat_ms = s.now_ms;
            }
            Event::AppAdded { app, queue, user, name, app_type, tags, submit_ms, priority } => {
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
                    App {
                        id: *app,
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
                    },
                );
            }
            Event::AppRemoved { app } => {
                let Some(a) = s.apps.remove(app) else { return false };
                s.refused_placements.retain(|(a, _), _| a != app);
                s.queues[a.queue].running_apps = s.queues[a.queue].running_apps.saturating_sub(1);
                s.queues[a.queue].pending -= a.pending();
                for c in a.containers {
                    Self::release_container(s, c);
                }
            }
            Event::AttemptAdded { app, attempt } => {
                let Some(a) = s.apps.get_mut(app) else { return false };
                a.attempt = *attempt;
            }
            Event::AttemptRemoved { app, .. } => {
                let Some(a) = s.apps.get_mut(app) else { return false };
                let pending = a.pending();
                a.asks.clear();
                s.queues[a.queue].pending -= pending;
            }
            Event::AskUpdated { app, ask } => {
                let Some(a) = s.apps.get_mut(app) else { return false };
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
                let Some(c) = s.containers.get_mut(container) else { return false };
                c.launched_ms = Some(*at_ms);
            }
            Event::ContainerFinished { container, .. } => {
                if !Self::release_container(s, *container) {
                    return false;
                }
            }
            Event::ContainerRecovered { container, app, node, key, resources, execution, start_ms } => {
                if !s.nodes.contains_key(node) || !s.apps.contains_key(app) {
                    return false;
                }
                let c = Container {
                    id: *container,
                    app: *app,
                    node: *node,
                    key: *key,
                    resources: *resources,
                    execution: *execution,
                    allocated_ms: *start_ms,
                    launched_ms: Some(*start_ms),
                };
                Self::commit_container(s, c);
            }
            Event::AllocationRejected { container } => {
                let Some(c) = s.containers.get(container).cloned() else { return false };
                Self::release_container(s, *container);
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
                if let Some(a) = s.apps.get_mut(&c.app) {
                    if let Some(ask) = a.asks.get_mut(&c.key) {
                        ask.count += 1;
                        s.queues[a.queue].pending += ask.capability;
                    }
                }
            }
            Event::NodeLoadEstimate { .. } | Event::HistorySample { .. } => {
                return crate::control::inputs::apply_to_state(s, event);
            }
        }
        true
    }

    /// Book a container against node, app, queue and cluster.
    fn commit_container(s: &mut ClusterState, c: Container) {
        if let Some(n) = s.nodes.get_mut(&c.node) {
            n.allocated += c.resources;
            n.containers.insert(c.id);
        }
        if let Some(a) = s.apps.get_mut(&c.app) {
            a.allocated += c.resources;
            a.containers.insert(c.id);
            a.allocations_total += 1;
            a.first_allocation_ms.get_or_insert(c.allocated_ms);
            s.queues[a.queue].allocated += c.resources;
        }
        s.allocated += c.resources;
        s.containers.insert(c.id, c);
    }

    /// Undo `commit_container`. Returns false if the container is unknown.
    fn release_container(s: &mut ClusterState, id: ContainerId) -> bool {
        let Some(c) = s.containers.remove(&id) else { return false };
        if let Some(n) = s.nodes.get_mut(&c.node) {
            n.allocated -= c.resources;
            n.containers.remove(&id);
        }
        if let Some(a) = s.apps.get_mut(&c.app) {
            a.allocated -= c.resources;
            a.containers.remove(&id);
            s.queues[a.queue].allocated -= c.resources;
        }
        s.allocated -= c.resources;
        true
    }

    /// Run one scheduling pass for `node` (a NodeManager heartbeat) and
    /// append the decisions to `out`.
    pub fn schedule_node(&mut self, node: NodeId, now_ms: i64, out: &mut Vec<Decision>) -> Result<(), EngineError> {
        match self.config.scheduler.fault_injection.as_str() {
            "panic-on-schedule" => panic!("engine fault injected by scheduler.fault_injection = panic-on-schedule"),
            "error-on-schedule" => return Err(EngineError::InjectedFault),
            _ => {}
        }
        if !self.state.nodes.contains_key(&node) {
            return Err(EngineError::UnknownNode(node));
        }
        self.state.now_ms = self.state.now_ms.max(now_ms);
        if let Some(n) = self.state.nodes.get_mut(&node) {
            n.last_heartbeat_ms = now_ms;
        }
        self.counters.passes += 1;
        let _span = tracing::debug_span!("schedule_node", node, policy = self.policy.name()).entered();
        self.policy.before_pass(&self.state, now_ms);
        self.policy.before_node(&self.state, node);
        let made = pass::run(self, node, now_ms, out);
        self.counters.allocations += made as u64;
        Ok(())
    }

    /// Allocate `ask_key` of `app` on `node`: the commit step of a pass.
    fn allocate(
        &mut self,
        app: crate::model::AppId,
        key: crate::model::SchedulerKey,
        node: NodeId,
        now_ms: i64,
    ) -> Option<Decision> {
        let s = &mut self.state;
        let n = s.nodes.get(&node)?;
        let (host, rack) = (n.host.clone(), n.rack.clone());
        let a = s.apps.get_mut(&app)?;
        let ask = a.asks.get_mut(&key)?;
        let locality = ask.locality_on(&host, &rack)?;
        ask.consume_one(&host, &rack, locality);
        let (resources, execution) = (ask.capability, ask.execution);
        if ask.count <= 0 {
            a.asks.remove(&key);
        }
        s.queues[a.queue].pending -= resources;
        let id = self.next_container;
        self.next_container += 1;
        let c = Container {
            id,
            app,
            node,
            key,
            resources,
            execution,
            allocated_ms: now_ms,
            launched_ms: None,
        };
        Self::commit_container(s, c.clone());
        self.policy.on_allocated(&self.state, &c);
        Some(Decision::Allocate { container: id, app, node, key, resources, locality, execution })
    }

    /// Metrics: the engine's counters and cluster size, then the policy's
    /// gauges (`Policy::gauges`). Names carry no `shepherd_` prefix; the
    /// shim adds it when it publishes them (Hadoop metrics2, `/prom`).
    pub fn gauges(&self) -> Vec<Gauge> {
        let c = &self.counters;
        let s = &self.state;
        let mut out = vec![
            Gauge::counter("engine_events_total", c.events as f64, "Events the engine applied"),
            Gauge::counter("engine_passes_total", c.passes as f64, "Scheduling passes (one per NodeManager heartbeat)"),
            Gauge::counter("engine_allocations_total", c.allocations as f64, "Containers the engine allocated"),
            Gauge::counter("engine_preemptions_total", c.preemptions as f64, "Containers the engine preempted"),
            Gauge::counter(
                "engine_rejected_allocations_total",
                c.rejected_allocations as f64,
                "Engine allocations the driver could not carry out",
            ),
            Gauge::counter(
                "engine_unknown_references_total",
                c.unknown_references as f64,
                "Events ignored because they named an unknown node, app or container",
            ),
            Gauge::new("engine_nodes", s.nodes.len() as f64, "NodeManagers the engine knows"),
            Gauge::new("engine_apps", s.apps.len() as f64, "Applications the engine knows"),
            Gauge::new("engine_containers", s.containers.len() as f64, "Running containers the engine knows"),
        ];
        out.extend(self.policy.gauges(s));
        out
    }

    /// JSON view of the engine: cluster summary, queues, apps and the
    /// policy's own state.
    pub fn state_json(&self) -> serde_json::Value {
        let s = &self.state;
        let apps: Vec<_> = s
            .apps
            .values()
            .map(|a| {
                serde_json::json!({
                    "app": a.id,
                    "queue": s.queues[a.queue].name,
                    "user": a.user,
                    "attempt": a.attempt,
                    "allocated": a.allocated.0,
                    "pending": a.pending().0,
                    "pending_containers": a.pending_containers(),
                    "running_containers": a.containers.len(),
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
        serde_json::json!({
            "policy": self.policy.name(),
            "now_ms": s.now_ms,
            "resource_types": s.resource_names,
            "cluster": {
                "nodes": s.nodes.len(),
                "capacity": s.capacity.0,
                "allocated": s.allocated.0,
                "containers": s.containers.len(),
            },
            "counters": self.counters,
            "queues": queues,
            "queue_acls": acls,
            "apps": apps,
            "policy_state": self.policy.state_json(s),
        })
    }
}

#[cfg(test)]
pub(crate) mod tests;
