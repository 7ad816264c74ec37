//! The engine's queues: built from the config, and changed in place when the
//! config changes (`yarn rmadmin -refreshQueues`).

use super::Engine;
use crate::config::{Config, ConfigError};
use crate::model::{ClusterState, Queue, QueueId};
use crate::policy::PolicySet;
use std::sync::Arc;

impl Engine {
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
        // Apps changed queues: nothing a plugin kept within an epoch holds.
        self.state.epoch += 1;
        self.state.asks_epoch += 1;
        let old = std::mem::replace(&mut self.policies, PolicySet::empty());
        self.policies = PolicySet::build(&config, &self.state, Some(old)).expect("the dry run built the same plugins");
        self.config = config;
        self.counters.reconfigurations += 1;
        tracing::info!(queues = ?self.state.queues.iter().map(|q| &q.name).collect::<Vec<_>>(), "config applied in place");
        Ok(())
    }
}

/// The queues `config` lists, empty, in its order.
pub(super) fn set_queues(state: &mut ClusterState, config: &Config) {
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
pub(super) fn recount_queues(state: &mut ClusterState) {
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
