//! Joining the RM's view of applications with the engine's. The one place
//! that decides which engine app an RM app is, so switching the key is a
//! one-function change.
//!
//! The engine numbers apps densely; its state (`engine::view::EngineView`)
//! carries the YARN application id as `yarn_id` once the shim sends it. Until then apps are
//! paired by (user, queue) in arrival order, which is what the shim's
//! numbering follows.

use super::rm::model::App;
use crate::engine::view::{AppView as EngineApp, EngineView};
use serde::Serialize;
use serde_json::{Map, Value};
use std::collections::HashMap;

/// An application as the API and the page show it.
#[derive(Debug, Clone, Serialize)]
pub struct AppView {
    pub id: String,
    pub name: String,
    pub user: String,
    pub queue: String,
    pub state: String,
    pub final_status: String,
    pub started_ms: i64,
    pub launched_ms: Option<i64>,
    pub finished_ms: Option<i64>,
    pub allocated_memory_mb: i64,
    pub allocated_vcores: i64,
    pub running_containers: i64,
    /// What the engine's plugins say about it, found by name wherever the
    /// engine's JSON puts it (`category`, `pool`, `estimate_ms`, `share`,
    /// `default`/`altruistic` split); null where no plugin provides it.
    pub category: Option<Value>,
    pub pool: Option<Value>,
    pub pipeline: Option<Value>,
    pub estimate_ms: Option<Value>,
    pub share: Option<Value>,
    pub split: Option<Value>,
    pub pending_containers: Option<i64>,
    /// Why it is not running (more), in words; null when it is not waiting.
    pub wait_reason: Option<String>,
    /// The engine's own entries for this app, passed through.
    pub engine: Option<Value>,
}

fn engine_key(e: &EngineApp) -> Option<&str> {
    Some(e.yarn_id.as_str()).filter(|s| !s.is_empty())
}

fn leaf(queue: &str) -> &str {
    queue.strip_prefix("root.").unwrap_or(queue)
}

/// For each RM app, the engine's app entry (from `state.apps`), if any.
pub fn match_engine_apps<'a>(rm_apps: &[App], state: Option<&'a EngineView>) -> Vec<Option<&'a EngineApp>> {
    let engine_apps: Vec<&EngineApp> = state.map(|s| s.apps.iter().collect()).unwrap_or_default();
    if engine_apps.iter().any(|e| engine_key(e).is_some()) {
        let by_id: HashMap<&str, &EngineApp> = engine_apps.iter().filter_map(|e| Some((engine_key(e)?, *e))).collect();
        return rm_apps.iter().map(|a| by_id.get(a.id.as_str()).copied()).collect();
    }
    // Fallback: the engine knows the apps the RM has not finished; pair them
    // by (user, leaf queue), both sides in arrival order.
    let mut pools: HashMap<(String, String), Vec<&EngineApp>> = HashMap::new();
    let mut sorted = engine_apps.clone();
    sorted.sort_by_key(|e| e.app);
    for e in sorted {
        pools.entry((e.user.clone(), leaf(&e.queue).to_string())).or_default().push(e);
    }
    let mut order: Vec<usize> = (0..rm_apps.len()).filter(|i| !rm_apps[*i].is_finished()).collect();
    order.sort_by(|a, b| (rm_apps[*a].started_time, &rm_apps[*a].id).cmp(&(rm_apps[*b].started_time, &rm_apps[*b].id)));
    let mut out = vec![None; rm_apps.len()];
    for i in order {
        let a = &rm_apps[i];
        if let Some(list) = pools.get_mut(&(a.user.clone(), leaf(&a.queue).to_string())) {
            if !list.is_empty() {
                out[i] = Some(list.remove(0));
            }
        }
    }
    out
}

/// Per-app entries plugins keep in their own state
/// (`pipelines[i].plugins.*.state.apps`), keyed by the engine's app number.
/// Plugin state is per plugin (untyped): searched by key.
fn plugin_app_entries(state: &EngineView) -> HashMap<u64, Vec<Value>> {
    let mut out: HashMap<u64, Vec<Value>> = HashMap::new();
    fn walk(v: &Value, depth: usize, out: &mut HashMap<u64, Vec<Value>>) {
        if depth > 6 {
            return;
        }
        match v {
            Value::Object(o) => {
                for (k, child) in o {
                    if k == "apps" {
                        if let Value::Array(list) = child {
                            for e in list {
                                if let Some(id) = e.get("app").and_then(Value::as_u64) {
                                    out.entry(id).or_default().push(e.clone());
                                }
                            }
                        }
                    } else {
                        walk(child, depth + 1, out);
                    }
                }
            }
            Value::Array(a) => a.iter().for_each(|c| walk(c, depth + 1, out)),
            _ => {}
        }
    }
    walk(&state.pipelines, 0, &mut out);
    out
}

/// The first value under any of `names`, searching objects breadth-first.
fn find(v: &Value, names: &[&str]) -> Option<Value> {
    let mut queue = vec![v];
    let mut depth = 0;
    while !queue.is_empty() && depth < 6 {
        let mut next = Vec::new();
        for cur in queue {
            match cur {
                Value::Object(o) => {
                    for n in names {
                        if let Some(x) = o.get(*n).filter(|x| !x.is_null()) {
                            return Some(x.clone());
                        }
                    }
                    next.extend(o.values());
                }
                Value::Array(a) => next.extend(a.iter()),
                _ => {}
            }
        }
        queue = next;
        depth += 1;
    }
    None
}

/// Build the API's app list from the RM's apps and the engine's state.
pub fn app_views(rm_apps: &[App], state: Option<&EngineView>) -> Vec<AppView> {
    let matched = match_engine_apps(rm_apps, state);
    let plugin_entries = state.map(plugin_app_entries).unwrap_or_default();
    rm_apps
        .iter()
        .zip(matched)
        .map(|(a, e)| {
            let mut merged = Map::new();
            if let Some(e) = e {
                // Passed through as the engine sent it (the API shows it).
                merged.insert("app".into(), serde_json::to_value(e).unwrap_or_default());
                if let Some(list) = plugin_entries.get(&u64::from(e.app)) {
                    merged.insert("plugins".into(), Value::Array(list.clone()));
                }
            }
            let engine = (!merged.is_empty()).then_some(Value::Object(merged));
            let get = |names: &[&str]| engine.as_ref().and_then(|v| find(v, names));
            let pending = e.map(|e| e.pending_containers);
            let mut v = AppView {
                id: a.id.clone(),
                name: a.name.clone(),
                user: a.user.clone(),
                queue: a.queue.clone(),
                state: a.state.clone(),
                final_status: a.final_status.clone(),
                started_ms: a.started_time,
                launched_ms: (a.launch_time > 0).then_some(a.launch_time),
                finished_ms: (a.finished_time > 0).then_some(a.finished_time),
                allocated_memory_mb: a.allocated_mb.max(0),
                allocated_vcores: a.allocated_vcores.max(0),
                running_containers: a.running_containers.max(0),
                category: get(&["category"]),
                pool: get(&["pool"]),
                pipeline: e.map(|e| e.pipeline.clone()),
                estimate_ms: get(&["estimate_ms", "estimate"]),
                share: get(&["dominant_share", "share", "demand_share"]),
                split: get(&["split"]).or_else(|| {
                    let d = get(&["default"])?;
                    let al = get(&["altruistic"])?;
                    Some(serde_json::json!({"default": d, "altruistic": al}))
                }),
                pending_containers: pending,
                wait_reason: None,
                engine,
            };
            v.wait_reason = wait_reason(a, &v, e, state);
            v
        })
        .collect()
}

/// "Why is this app pending", from what the RM and the engine say (`e`:
/// the engine's entry for the app).
pub fn wait_reason(a: &App, v: &AppView, e: Option<&EngineApp>, state: Option<&EngineView>) -> Option<String> {
    if a.is_finished() {
        return None;
    }
    // The engine's reason, else one a plugin keeps for the app.
    let blocked = e.and_then(|e| e.blocked.as_ref()).map(|b| b.reason.clone()).or_else(|| {
        v.engine
            .as_ref()
            .and_then(|e| find(e, &["blocked"]))
            .and_then(|b| b.get("reason").and_then(Value::as_str).map(str::to_string).or_else(|| b.as_str().map(str::to_string)))
    });
    if let Some(reason) = blocked {
        return Some(reason);
    }
    if a.awaiting_am() {
        return Some(format!("{}: waiting for its ApplicationMaster container", a.state));
    }
    let pending = v.pending_containers.unwrap_or(0);
    if pending == 0 {
        return None;
    }
    let mut why = format!("{pending} container(s) pending");
    // Queue at its maximum?
    if let Some((s, q)) = state.and_then(|s| Some((s, s.queues.iter().find(|q| q.name == leaf(&a.queue))?))) {
        let max = q.max_capacity;
        let share =
            s.cluster.capacity.iter().zip(&q.allocated).filter(|(c, _)| **c > 0).map(|(c, u)| *u as f64 / *c as f64).fold(0.0, f64::max);
        if max < 1.0 && share >= max - 1e-9 {
            return Some(format!("{why}: queue {} is at its maximum capacity ({:.0} %)", a.queue, max * 100.0));
        }
    }
    // DRESS's δ, from the reserve plugin's state of the app's pipeline
    // (plugin state: searched by key).
    let dress_state = state.map(|s| &s.pipelines);
    if let (Some(cat), Some(ps)) = (v.category.as_ref().and_then(Value::as_str), dress_state) {
        let delta = find(ps, &["delta"]).and_then(|d| d.as_f64());
        if let Some(d) = delta {
            let share = if cat == "small" { d } else { 1.0 - d };
            why.push_str(&format!(": DRESS {cat}-demand pool (share {:.0} %)", share * 100.0));
            return Some(why);
        }
    }
    let free = state.map(|s| s.cluster.capacity.iter().zip(&s.cluster.allocated).map(|(c, u)| c - u).collect::<Vec<_>>());
    if let Some(f) = free {
        if f.first().is_some_and(|m| *m < 256) || f.get(1).is_some_and(|c| *c < 1) {
            why.push_str(": the cluster is full");
            return Some(why);
        }
    }
    why.push_str(": waiting for a NodeManager heartbeat with room");
    Some(why)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// `partial` over an engine state of empty defaults (and each app and
    /// queue over an empty one): the engine sends every key.
    fn view(partial: Value) -> EngineView {
        fn overlay(base: &mut Value, top: Value) {
            match (base, top) {
                (Value::Object(b), Value::Object(t)) => t.into_iter().for_each(|(k, v)| overlay(b.entry(k).or_insert(Value::Null), v)),
                (b, t) => *b = t,
            }
        }
        let over = |base: Value, list: &Value| -> Value {
            let list = list.as_array().cloned().unwrap_or_default();
            Value::Array(
                list.into_iter()
                    .map(|x| {
                        let mut b = base.clone();
                        overlay(&mut b, x);
                        b
                    })
                    .collect(),
            )
        };
        let app = json!({"app": 0, "yarn_id": "", "queue": "", "user": "", "name": "", "attempt": 1, "allocated": [], "pending": [],
            "pending_containers": 0, "running_containers": 0, "dominant_share": 0.0, "attained_ms": 0, "blocked": null, "pipeline": null});
        let queue = json!({"name": "", "path": "", "policy": "", "weight": 1.0, "capacity": 1.0, "max_capacity": 1.0,
            "allocated": [], "pending": [], "apps": 0});
        let mut v = json!({"policy": "", "now_ms": 0, "resource_types": [], "cluster": {"nodes": 0, "capacity": [], "allocated": [], "containers": 0},
            "counters": crate::engine::Counters::default(), "leftover_holds": [], "queues": [], "queue_acls": {}, "apps": [],
            "queue_order": null, "pipelines": null});
        let (apps, queues) = (over(app, &partial["apps"]), over(queue, &partial["queues"]));
        overlay(&mut v, partial);
        v["apps"] = apps;
        v["queues"] = queues;
        serde_json::from_value(v).unwrap()
    }

    fn app(id: &str, user: &str, queue: &str, state: &str, started: i64) -> App {
        App { id: id.into(), user: user.into(), queue: queue.into(), state: state.into(), started_time: started, ..Default::default() }
    }

    #[test]
    fn by_yarn_id_when_the_engine_has_it() {
        let rm = vec![app("application_1_0001", "a", "root.x", "RUNNING", 1), app("application_1_0002", "a", "root.x", "RUNNING", 2)];
        let state = view(json!({"apps": [{"app": 0, "yarn_id": "application_1_0002", "user": "a", "queue": "x"}]}));
        let m = match_engine_apps(&rm, Some(&state));
        assert!(m[0].is_none());
        assert_eq!(m[1].unwrap().app, 0);
    }

    #[test]
    fn by_user_and_queue_in_arrival_order_otherwise() {
        let rm = vec![
            app("application_1_0003", "bob", "root.beta", "RUNNING", 30),
            app("application_1_0001", "bob", "root.beta", "FINISHED", 10),
            app("application_1_0002", "bob", "root.beta", "RUNNING", 20),
            app("application_1_0004", "ann", "root.alpha", "ACCEPTED", 40),
        ];
        let state = view(json!({"apps": [
            {"app": 5, "user": "bob", "queue": "beta"},
            {"app": 4, "user": "bob", "queue": "beta"},
            {"app": 6, "user": "ann", "queue": "alpha"},
        ]}));
        let m = match_engine_apps(&rm, Some(&state));
        let ids: Vec<Option<u64>> = m.iter().map(|e| e.map(|e| u64::from(e.app))).collect();
        assert_eq!(ids, vec![Some(5), None, Some(4), Some(6)]);
    }

    #[test]
    fn plugin_facts_and_wait_reasons() {
        let rm = vec![
            app("application_1_0001", "a", "root.default", "RUNNING", 1),
            app("application_1_0002", "b", "root.default", "ACCEPTED", 2),
        ];
        let state = view(json!({
            "cluster": {"capacity": [8192, 8], "allocated": [8192, 8]},
            "queues": [{"name": "default", "allocated": [8192, 8], "max_capacity": 1.0}],
            "apps": [{"app": 0, "user": "a", "queue": "default", "pending_containers": 3, "dominant_share": 0.75},
                     {"app": 1, "user": "b", "queue": "default", "pending_containers": 1}],
            "pipelines": [{"queue": "root", "plugins": {"reserve": {"name": "dress", "state": {"delta": 0.25, "apps": [{"app": 0, "category": "small", "demand_share": 0.05}]}}}}]
        }));
        let v = app_views(&rm, Some(&state));
        assert_eq!(v[0].category, Some(json!("small")));
        // The engine sends every app's dominant share; it comes before a
        // plugin's `demand_share`.
        assert_eq!(v[0].share, Some(json!(0.75)));
        let r0 = v[0].wait_reason.as_deref().unwrap();
        assert!(r0.contains("3 container(s) pending") && r0.contains("small-demand pool (share 25 %)"), "{r0}");
        assert!(v[1].wait_reason.as_deref().unwrap().contains("ApplicationMaster"));
        assert!(v[1].category.is_none());
    }
}
