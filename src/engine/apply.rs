//! Applying an event to the cluster state: nodes, apps, asks and
//! containers come and go, and containers are booked against (and released
//! from) node, app, queue and cluster. Plugins see none of it here; the
//! engine's `apply` hands them the event afterwards.

use super::{Engine, Event};
use crate::model::{App, ClusterState, Container, ContainerId, LiveContainer, Node};
use std::sync::Arc;
use tracing::warn;

/// What applying an event did to the state.
pub(super) enum Applied {
    /// It named a node, app or container the engine does not know.
    Unknown,
    Done,
    /// `AppRemoved`: the app's final record.
    AppRemoved(Box<App>),
}

impl Engine {
    pub(super) fn apply_to_state(&mut self, event: &Event) -> Applied {
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
                        attempt: None,
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
                    super::queues::recount_queues(s);
                    self.counters.app_moves += 1;
                }
            }
            Event::AppPriorityChanged { app, priority } => {
                let Some(a) = s.apps.get_mut(app).map(Arc::make_mut) else { return Applied::Unknown };
                a.priority = *priority;
            }
            Event::AttemptAdded { app, attempt } => {
                let Some(a) = s.apps.get_mut(app).map(Arc::make_mut) else { return Applied::Unknown };
                a.attempt = Some(*attempt);
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
                if let Some(a) = s.apps.get_mut(&c.app).map(Arc::make_mut) {
                    Arc::make_mut(&mut a.containers).set_started(container, *at_ms);
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
            // The sidecar's estimate lands on every NodeManager of that host:
            // it describes the machine (several NMs share one host only in
            // test clusters). An unknown host is an unknown reference.
            Event::NodeLoadEstimate { host, used, expires_ms } => {
                let mut found = false;
                for n in s.nodes.values_mut().filter(|n| &n.host == host) {
                    n.load_estimate = Some(crate::model::node::LoadEstimate { used: *used, expires_ms: *expires_ms });
                    found = true;
                }
                if !found {
                    return Applied::Unknown;
                }
            }
            // Nothing in the cluster state changes: estimators learn it when
            // the engine hands the event to the policy.
            Event::HistorySample { .. } => {}
        }
        Applied::Done
    }

    /// Book a container against node, app, queue and cluster. A proposer's
    /// copy (`fork`) leaves the app's record of its live containers and
    /// their attained service as they were: nothing a pass decides by
    /// changes with a container started now (its service so far is 0), and
    /// copying every live container of every app a proposer books into
    /// would cost a round more than its pass.
    pub(super) fn commit_container(s: &mut ClusterState, c: Container, fork: bool) {
        if let Some(n) = s.nodes.get_mut(&c.node) {
            if c.speculative {
                n.oversubscribed += c.resources;
                n.speculative += 1;
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
    pub(super) fn release_container(s: &mut ClusterState, id: ContainerId, ended_ms: Option<i64>) -> bool {
        let Some(c) = s.containers.remove(&id) else { return false };
        s.constraints_mut().container_removed(id);
        if let Some(n) = s.nodes.get_mut(&c.node) {
            if c.speculative {
                n.oversubscribed -= c.resources;
                n.speculative -= 1;
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
}
