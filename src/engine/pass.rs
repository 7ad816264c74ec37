//! One scheduling pass over one node: the loop every policy shares.
//!
//! Candidates are the applications with outstanding asks, grouped by queue when
//! the policy orders queues. Each step serves the best queue's best
//! application one container (its most urgent ask that passes the checks),
//! then re-keys that application, so fair-share policies re-balance after
//! every container. An application none of whose asks can be placed here
//! drops out of this pass (or, for strict-order policies, ends it).

use super::{Decision, Engine};
use crate::model::{App, AppId, ClusterState, NodeId, Resources, SchedulerKey};
use crate::policy::{Policy, SortKey};
use std::cmp::Reverse;
use std::collections::BinaryHeap;

type Candidates = BinaryHeap<Reverse<(SortKey, AppId)>>;

pub(super) fn run(engine: &mut Engine, node: NodeId, now_ms: i64, out: &mut Vec<Decision>) -> usize {
    let limit = engine.config.scheduler.max_assignments_per_heartbeat as usize;
    let by_queue = {
        let s = &engine.state;
        s.queues.first().is_some_and(|q| engine.policy.queue_order(s, q).is_some())
    };
    // Component-wise minimum over every outstanding ask: once the node's free
    // capacity cannot hold it, no ask fits and the rest of the pass could
    // only pop candidates that fail, so it ends early with the same result.
    let mut smallest: Option<Resources> = None;
    let mut lists: Vec<Vec<Reverse<(SortKey, AppId)>>> = vec![Vec::new(); if by_queue { engine.state.queues.len() } else { 1 }];
    for app in engine.state.pending_apps() {
        for ask in app.asks.values().filter(|a| a.count > 0) {
            let m = smallest.get_or_insert(ask.capability);
            for (v, a) in m.0.iter_mut().zip(ask.capability.0.iter()) {
                *v = (*v).min(*a);
            }
        }
        let g = if by_queue { app.queue } else { 0 };
        lists[g].push(Reverse((engine.policy.app_order(&engine.state, app), app.id)));
    }
    let room_left = |s: &ClusterState| smallest.is_some_and(|m| s.nodes.get(&node).is_some_and(|n| m.fits_in(&n.free())));
    if !room_left(&engine.state) {
        return 0;
    }
    let mut groups: Vec<Candidates> = lists.into_iter().map(Candidates::from).collect();

    let mut made = 0;
    while limit == 0 || made < limit {
        let Some(g) = next_group(&engine.state, engine.policy.as_ref(), &groups, by_queue) else { break };
        let Some(Reverse((_, app_id))) = groups[g].pop() else { break };
        let key = {
            let s = &engine.state;
            s.apps.get(&app_id).and_then(|app| placeable_ask(s, engine.policy.as_ref(), app, node, now_ms))
        };
        let Some(key) = key else {
            if engine.policy.head_of_line_blocking() {
                break;
            }
            continue;
        };
        if let Some(d) = engine.allocate(app_id, key, node, now_ms) {
            out.push(d);
            made += 1;
        }
        if !room_left(&engine.state) {
            break;
        }
        if let Some(app) = engine.state.apps.get(&app_id) {
            if app.has_pending() {
                groups[g].push(Reverse((engine.policy.app_order(&engine.state, app), app_id)));
            }
        }
    }
    made
}

/// The group (queue) to serve next: the policy's lowest queue key among
/// queues that still have candidates.
fn next_group(s: &ClusterState, policy: &dyn Policy, groups: &[Candidates], by_queue: bool) -> Option<usize> {
    if !by_queue {
        return (!groups[0].is_empty()).then_some(0);
    }
    groups
        .iter()
        .enumerate()
        .filter(|(_, h)| !h.is_empty())
        .filter_map(|(i, _)| policy.queue_order(s, &s.queues[i]).map(|k| (k, i)))
        .min()
        .map(|(_, i)| i)
}

/// The most urgent ask of `app` that can go on `node` now: it fits the
/// node's free capacity, its locality and label allow the node, its queue
/// stays under its maximum capacity, and the policy's filter agrees — and
/// YARN has not just refused this app a container on this node.
fn placeable_ask(s: &ClusterState, policy: &dyn Policy, app: &App, node: NodeId, now_ms: i64) -> Option<SchedulerKey> {
    if s.refused_placements.get(&(app.id, node)).is_some_and(|until| now_ms < *until) {
        return None;
    }
    let n = s.nodes.get(&node)?;
    let free = n.free();
    let queue = &s.queues[app.queue];
    let queue_cap = scaled(&s.capacity, queue.max_capacity);
    app.asks
        .values()
        .filter(|ask| ask.count > 0)
        .find(|ask| {
            ask.capability.fits_in(&free)
                && ask.locality_on(&n.host, &n.rack).is_some()
                && label_matches(&ask.label, n)
                && (queue.allocated + ask.capability).fits_in(&queue_cap)
                && policy.filter(s, app, ask, n)
        })
        .map(|ask| ask.key)
}

/// YARN partitions: an ask without a label expression goes to unlabelled
/// nodes only; a labelled ask goes to nodes carrying that label.
fn label_matches(label: &str, n: &crate::model::Node) -> bool {
    if label.is_empty() {
        n.labels.is_empty()
    } else {
        n.labels.contains(label)
    }
}

fn scaled(r: &crate::model::Resources, f: f64) -> crate::model::Resources {
    if f >= 1.0 {
        return *r;
    }
    let mut out = *r;
    out.0.iter_mut().for_each(|v| *v = (*v as f64 * f).floor() as i64);
    out
}
