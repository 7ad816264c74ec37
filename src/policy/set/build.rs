//! Building the engine's policies from the config, and rebuilding them in
//! place on `-refreshQueues`: every plugin comes from the registry
//! (`crate::config::plugins` names it, `policy::registry` builds it), and
//! one whose identity (name and configuration) and scope label (queue name,
//! or `root`) are unchanged is kept with what it learned.

use super::super::points::{AppOrder, AskClassifier, Estimator, Filter, Leftover, Oversubscribe, Reserve};
use super::super::registry::{self, Slot};
use super::{Pipeline, PolicySet};
use crate::config::plugins::{names, Identity, PluginConfig, Point, Sections};
use crate::config::{bad, Config, ConfigError};
use crate::model::ClusterState;
use crate::policy::Scope;
use std::collections::HashMap;

/// A name the point has no plugin for (the config's validation, which
/// lists the same registry, refuses it first).
fn unknown(key: String, point: Point, name: &str) -> ConfigError {
    bad(&key, name, format!("unknown plugin; expected one of {}", names(point).join(", ")))
}

/// The plugins of an old pipeline, by point, for the new one to keep.
#[derive(Default)]
struct Old {
    reserve: Vec<Slot<dyn Reserve>>,
    app_order: Vec<Slot<dyn AppOrder>>,
    classify: Vec<Slot<dyn AskClassifier>>,
    filters: Vec<Slot<dyn Filter>>,
    leftover: Vec<Slot<dyn Leftover>>,
    oversubscribe: Vec<Slot<dyn Oversubscribe>>,
}

impl Old {
    /// Pool orders are not kept: they are built fresh with every pipeline.
    fn of(p: Pipeline) -> Old {
        Old {
            reserve: vec![p.reserve],
            app_order: vec![p.app_order],
            classify: p.classify,
            filters: p.filters,
            leftover: vec![p.leftover],
            oversubscribe: vec![p.oversubscribe],
        }
    }
}

impl PolicySet {
    /// Build the policies `config` names for the queues in `state`. With
    /// `old`, keep every plugin whose identity (name and configuration) and
    /// scope label (queue name, or `root`) are unchanged, with its state.
    pub fn build(config: &Config, state: &ClusterState, old: Option<PolicySet>) -> Result<PolicySet, ConfigError> {
        let (mut old_estimators, mut old_pipelines, mut old_queue_order) = match old {
            Some(o) => {
                (o.estimators, o.pipelines.into_iter().map(|p| (p.queue.clone(), p)).collect::<HashMap<_, _>>(), vec![o.queue_order])
            }
            None => Default::default(),
        };
        let order_name = config.queue_order();
        let queue_order = registry::slot(Point::QueueOrder, order_name, &Sections::global(config), &mut old_queue_order)
            .ok_or_else(|| unknown("scheduler.queue_order".into(), Point::QueueOrder, order_name))?;
        let mut set =
            PolicySet { queue_order, estimators: Vec::new(), pipelines: Vec::new(), flat_candidates: false, prepare_moves_state: false };
        let scopes: Vec<(Scope, usize)> =
            if set.is_flat() { vec![(Scope::Cluster, 0)] } else { (0..state.queues.len()).map(|i| (Scope::Queue(i), i)).collect() };
        for (scope, qi) in scopes {
            let policy = config.queue_policy(qi).to_string();
            let spec = config.pipeline(&policy).ok_or_else(|| bad("scheduler.policy", &policy, "unknown policy"))?;
            let key = |point: Point| format!("pipeline `{policy}`.{}", point.key());
            let at = format!("pipeline `{policy}`");
            let queue = scope.label(state).to_string();
            let mut old = old_pipelines.remove(&queue).map(Old::of).unwrap_or_default();
            // The sections this pipeline's plugins are configured from: the
            // global ones with this pipeline's overrides.
            let slearn = spec.slearn_config(&config.slearn, &at)?;
            let dress = spec.dress_config(&config.dress, &at)?;
            let carbyne = spec.carbyne_config(&config.carbyne, &at)?;
            let rose = spec.rose_config(&config.rose, &at)?;
            let s = Sections { config, dress, slearn, carbyne, rose };
            let estimator = set
                .estimator_index(&spec.estimate, &s, &mut old_estimators)
                .ok_or_else(|| unknown(key(Point::Estimate), Point::Estimate, &spec.estimate))?;
            let one = |point: Point, name: &str| registry::identity(point, name, &s).ok_or_else(|| unknown(key(point), point, name));
            let reserve = registry::keep_or_build(one(Point::Reserve, &spec.reserve)?, &mut old.reserve);
            let app_order = registry::keep_or_build(one(Point::AppOrder, &spec.app_order)?, &mut old.app_order);
            let mut pool_orders = Vec::new();
            for pool in reserve.plugin.pools() {
                pool_orders.push(match spec.pool_order.get(*pool) {
                    Some(name) => Some(registry::keep_or_build(
                        registry::identity(Point::AppOrder, name, &s)
                            .ok_or_else(|| unknown(key(Point::AppOrder), Point::AppOrder, name))?,
                        &mut Vec::new(),
                    )),
                    None => None,
                });
            }
            if pool_orders.iter().all(Option::is_none) {
                pool_orders.clear();
            }
            let mut classify = Vec::new();
            for name in &spec.classify {
                classify.push(registry::keep_or_build(one(Point::Classify, name)?, &mut old.classify));
            }
            let mut filters = Vec::new();
            for name in &spec.filter {
                filters.push(registry::keep_or_build(one(Point::Filter, name)?, &mut old.filters));
            }
            let leftover = registry::keep_or_build(one(Point::Leftover, &spec.leftover)?, &mut old.leftover);
            let oversubscribe = registry::keep_or_build(one(Point::Oversubscribe, &spec.oversubscribe)?, &mut old.oversubscribe);
            set.pipelines.push(Pipeline {
                queue,
                policy,
                spec,
                scope,
                estimator,
                reserve,
                app_order,
                pool_orders,
                classify,
                filters,
                leftover,
                oversubscribe,
            });
        }
        set.prepare_moves_state = set.find_prepare_moves_state();
        Ok(set)
    }

    /// Index of the shared estimator `name`, built (or kept) on first use.
    fn estimator_index(&mut self, name: &str, s: &Sections, old: &mut Vec<Slot<dyn Estimator>>) -> Option<usize> {
        let identity = registry::identity(Point::Estimate, name, s)?;
        if let Some(i) = self.estimators.iter().position(|e| e.identity == identity) {
            return Some(i);
        }
        self.estimators.push(registry::keep_or_build(identity, old));
        Some(self.estimators.len() - 1)
    }

    /// A set with no pipelines, only as a placeholder while a new one is built.
    pub fn empty() -> PolicySet {
        let flat = Identity { name: "flat", config: PluginConfig::FlatQueues };
        let mut set = PolicySet {
            queue_order: registry::keep_or_build(flat, &mut Vec::new()),
            estimators: Vec::new(),
            pipelines: Vec::new(),
            flat_candidates: false,
            prepare_moves_state: false,
        };
        set.prepare_moves_state = set.find_prepare_moves_state();
        set
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Where the plugin lives, if it has a state (a plugin without one
    /// takes no room, and all such live at one address).
    fn at<T: ?Sized>(s: &Slot<T>) -> Option<*const ()> {
        (std::mem::size_of_val(&*s.plugin) > 0).then_some(&*s.plugin as *const T as *const ())
    }

    /// Where each plugin with a state lives: kept plugins stay where they
    /// were, fresh ones are elsewhere (the old ones live until the new set
    /// is built).
    fn places(set: &PolicySet) -> Vec<(String, *const ())> {
        let mut out: Vec<(String, Option<*const ()>)> =
            set.estimators.iter().map(|e| (format!("estimate {}", e.identity.name), at(e))).collect();
        for p in &set.pipelines {
            out.push((format!("{} reserve", p.queue), at(&p.reserve)));
            for c in &p.classify {
                out.push((format!("{} classify {}", p.queue, c.identity.name), at(c)));
            }
            out.push((format!("{} leftover", p.queue), at(&p.leftover)));
            out.push((format!("{} oversubscribe", p.queue), at(&p.oversubscribe)));
        }
        out.into_iter().filter_map(|(name, at)| Some((name, at?))).collect()
    }

    fn kept(text: &str, next: &str) -> Vec<String> {
        let (a, b) = (Config::parse(text).unwrap(), Config::parse(next).unwrap());
        let mut state = ClusterState::default();
        for (id, q) in a.queues.iter().enumerate() {
            let (weight, capacity, max_capacity, max_am_share) = (q.weight, q.capacity, q.max_capacity, q.max_am_share);
            let (allocated, am_used, pending) = Default::default();
            let name = q.name.clone();
            state.queues.push(crate::model::Queue {
                id,
                name,
                weight,
                capacity,
                max_capacity,
                max_am_share,
                allocated,
                am_used,
                pending,
                running_apps: 0,
            });
        }
        let old = PolicySet::build(&a, &state, None).unwrap();
        let before = places(&old);
        let new = PolicySet::build(&b, &state, Some(old)).unwrap();
        let after = places(&new);
        before.iter().filter(|(name, at)| after.iter().any(|(n, a)| n == name && a == at)).map(|(name, _)| name.clone()).collect()
    }

    const QUEUES: &str = "[[queue]]\nname = \"a\"\ncapacity = 0.4\npolicy = \"carbyne\"\n\
                          [[queue]]\nname = \"b\"\ncapacity = 0.3\npolicy = \"composed\"\n\
                          [[queue]]\nname = \"c\"\ncapacity = 0.3\npolicy = \"rose\"\n";

    #[test]
    fn reconfigure_keeps_plugins_whose_identity_is_unchanged() {
        let text = format!("[scheduler]\npolicy = \"drf\"\nqueue_order = \"drf\"\n{QUEUES}");
        let all = ["estimate tasks", "a classify carbyne", "a leftover", "b reserve", "c oversubscribe"];
        assert_eq!(kept(&text, &text), all, "nothing changed");
        // Carbyne's classifier plans with the queue order; its leftover order does not.
        let capacity = text.replace("queue_order = \"drf\"", "queue_order = \"capacity\"");
        assert_eq!(kept(&text, &capacity), ["estimate tasks", "a leftover", "b reserve", "c oversubscribe"]);
        let theta = format!("{text}[dress]\ntheta = 0.2\n");
        assert_eq!(kept(&text, &theta), ["estimate tasks", "a classify carbyne", "a leftover", "c oversubscribe"]);
        let carbyne = format!("{text}[carbyne]\np_altruism = 0.5\n");
        assert_eq!(kept(&text, &carbyne), ["estimate tasks", "b reserve", "c oversubscribe"]);
        let rose = format!("{text}[rose]\ntop_k = 4\n");
        assert_eq!(kept(&text, &rose), ["estimate tasks", "a classify carbyne", "a leftover", "b reserve"]);
        // A queue that changes policy keeps the shared estimator only where its new pipeline names it.
        let swapped = text.replace("policy = \"composed\"", "policy = \"drf\"");
        assert_eq!(kept(&text, &swapped), ["estimate tasks", "a classify carbyne", "a leftover", "c oversubscribe"]);
    }
}
