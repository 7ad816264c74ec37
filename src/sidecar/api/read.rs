//! Read endpoints. Each copies what it needs out of `Observed` under the
//! read lock and builds its JSON; none waits on the RM or the engine.

use super::error::ApiError;
use super::Ctx;
use crate::engine::view::NodeView;
use crate::sidecar::join;
use crate::sidecar::state::{age_seconds, is_stale, Observed};
use crate::sidecar::{metrics, now_ms, Sidecar};
use axum::extract::rejection::QueryRejection;
use axum::extract::{Path, Query};
use axum::http::{header, StatusCode};
use axum::response::IntoResponse;
use axum::Json;
use serde::Deserialize;
use serde_json::{json, Value};
use std::collections::BTreeMap;

type JsonResult = Result<Json<Value>, ApiError>;

pub async fn metrics(s: Ctx) -> impl IntoResponse {
    ([(header::CONTENT_TYPE, "text/plain; version=0.0.4; charset=utf-8")], metrics::render(&s))
}

pub async fn healthz() -> Json<Value> {
    Json(json!({"status": "ok"}))
}

fn freshness(s: &Sidecar, o: &Observed, now: i64) -> Value {
    let rm_stale = is_stale(o.rm.last_success_ms, now, s.config.rm.stale_after_ms());
    let engine = if o.engine.configured {
        json!({
            "configured": true,
            "address": s.config.control.address,
            "stale": is_stale(o.engine.last_success_ms, now, 3 * s.config.control.poll_interval_ms),
            "age_s": age_seconds(o.engine.last_success_ms, now),
            "instance": o.engine.instance,
            "started_ms": o.engine.started_ms,
            "last_error": o.engine.last_error,
            "consecutive_failures": o.engine.consecutive_failures,
        })
    } else {
        json!({"configured": false})
    };
    json!({
        "now_ms": now,
        "rm": {
            "active_address": o.rm.active_address,
            "addresses": s.config.rm.addresses,
            "stale": rm_stale,
            "age_s": age_seconds(o.rm.last_success_ms, now),
            "last_success_ms": o.rm.last_success_ms,
            "last_error": o.rm.last_error,
            "consecutive_failures": o.rm.consecutive_failures,
            "next_retry_ms": o.rm.next_retry_ms,
            "ha_state": o.rm.info.as_ref().map(|i| i.ha_state.clone()),
        },
        "engine": engine,
    })
}

/// Ready = serving fresh data: RM fresh, and the engine too when linked.
pub async fn readyz(s: Ctx) -> impl IntoResponse {
    let now = now_ms();
    let o = s.read();
    let f = freshness(&s, &o, now);
    let mut reasons = Vec::new();
    if f["rm"]["stale"] == json!(true) {
        reasons.push(format!("RM data stale: {}", o.rm.last_error.as_deref().unwrap_or("no successful poll yet")));
    }
    if f["engine"]["stale"] == json!(true) {
        reasons.push(format!("engine data stale: {}", o.engine.last_error.as_deref().unwrap_or("no exchange yet")));
    }
    let code = if reasons.is_empty() { StatusCode::OK } else { StatusCode::SERVICE_UNAVAILABLE };
    (code, Json(json!({"ready": reasons.is_empty(), "reasons": reasons, "sources": f})))
}

pub async fn index() -> Json<Value> {
    Json(json!({"endpoints": [
        "/api/v1/status", "/api/v1/cluster", "/api/v1/queues", "/api/v1/apps", "/api/v1/apps/{id}",
        "/api/v1/nodes", "/api/v1/plugins", "/api/v1/engine", "/api/v1/series", "/api/v1/series/keys",
        "/api/v1/chart/dress", "/metrics", "/healthz", "/readyz",
        "POST /api/v1/poll (token)", "POST /api/v1/history (token)"
    ]}))
}

pub async fn status(s: Ctx) -> Json<Value> {
    let now = now_ms();
    let o = s.read();
    let mut v = freshness(&s, &o, now);
    v["control"] = o.engine.control.clone().unwrap_or(Value::Null);
    Json(v)
}

pub async fn cluster(s: Ctx) -> Json<Value> {
    let now = now_ms();
    let o = s.read();
    let engine = o.engine.state.as_ref();
    Json(json!({
        "freshness": freshness(&s, &o, now),
        "info": o.rm.info,
        "metrics": o.rm.metrics,
        "scheduler_type": o.rm.scheduler.as_ref().map(|x| x.kind.clone()),
        "shim": o.rm.shim,
        "engine": engine.map(|e| json!({
            "policy": e.policy,
            "cluster": e.cluster,
            "counters": e.counters,
            "resource_types": e.resource_types,
        })),
    }))
}

fn leaf(q: &str) -> &str {
    q.strip_prefix("root.").unwrap_or(q)
}

pub async fn queues(s: Ctx) -> Json<Value> {
    let o = s.read();
    // RM side: apps and allocation per queue.
    let mut rm: BTreeMap<String, (i64, i64, i64, i64)> = BTreeMap::new();
    for a in o.rm.apps.iter().filter(|a| !a.is_finished()) {
        let e = rm.entry(leaf(&a.queue).to_string()).or_default();
        if a.awaiting_am() {
            e.1 += 1
        } else {
            e.0 += 1
        }
        e.2 += a.allocated_mb.max(0);
        e.3 += a.allocated_vcores.max(0);
    }
    let rm_json = |name: &str| {
        rm.get(name).map(|(r, p, m, v)| json!({"running_apps": r, "pending_apps": p, "allocated_memory_mb": m, "allocated_vcores": v}))
    };
    let mut out = Vec::new();
    let mut seen = std::collections::HashSet::new();
    if let Some(e) = &o.engine.state {
        for q in &e.queues {
            let name = q.name.clone();
            // The queue's pipeline: per-queue entries under `pipelines`
            // (per-policy, untyped), passed through.
            let pipeline = match &e.pipelines {
                Value::Array(list) => {
                    list.iter().find(|x| x.get("queue").and_then(Value::as_str).map(leaf) == Some(name.as_str())).cloned()
                }
                Value::Object(m) => m.get(&name).or_else(|| m.get(&format!("root.{name}"))).cloned(),
                _ => None,
            };
            out.push(json!({"name": name, "path": format!("root.{name}"), "engine": q, "pipeline": pipeline, "rm": rm_json(&name)}));
            seen.insert(name);
        }
    }
    if let Some(sv) = &o.rm.scheduler {
        for q in &sv.queues {
            let name = leaf(&q.name).to_string();
            if seen.insert(name.clone()) {
                out.push(json!({"name": name, "path": q.name, "rm_scheduler": q, "rm": rm_json(&name)}));
            }
        }
    }
    for name in rm.keys() {
        if seen.insert(name.clone()) {
            out.push(json!({"name": name, "path": format!("root.{name}"), "rm": rm_json(name)}));
        }
    }
    Json(json!({"queues": out, "policy": o.engine.state.as_ref().map(|e| &e.policy)}))
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AppsQuery {
    pub state: Option<String>,
    pub queue: Option<String>,
    pub limit: Option<usize>,
}

pub async fn apps(s: Ctx, q: Result<Query<AppsQuery>, QueryRejection>) -> JsonResult {
    let Query(q) = q?;
    let filter = q.state.as_deref().unwrap_or("all");
    if !["all", "running", "pending", "finished", "unfinished"].contains(&filter) {
        return Err(ApiError::bad_request(format!("state `{filter}`: expected all, unfinished, running, pending or finished")));
    }
    let limit = q.limit.unwrap_or(500);
    if limit == 0 || limit > 10_000 {
        return Err(ApiError::bad_request(format!("limit {limit}: expected 1..=10000")));
    }
    let o = s.read();
    let views = join::app_views(&o.rm.apps, o.engine.state.as_ref());
    let list: Vec<_> = views
        .into_iter()
        .filter(|v| {
            let finished = matches!(v.state.as_str(), "FINISHED" | "FAILED" | "KILLED");
            match filter {
                "running" => !finished && v.wait_reason.is_none(),
                "pending" => !finished && v.wait_reason.is_some(),
                "finished" => finished,
                "unfinished" => !finished,
                _ => true,
            }
        })
        .filter(|v| q.queue.as_deref().is_none_or(|want| leaf(want) == leaf(&v.queue)))
        .take(limit)
        .collect();
    Ok(Json(json!({"apps": list, "count": list.len(), "stale": is_stale(o.rm.last_success_ms, now_ms(), s.config.rm.stale_after_ms())})))
}

fn valid_app_id(id: &str) -> bool {
    let mut parts = id.split('_');
    parts.next() == Some("application")
        && parts.next().is_some_and(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()))
        && parts.next().is_some_and(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()))
        && parts.next().is_none()
}

pub async fn app(s: Ctx, id: Result<Path<String>, axum::extract::rejection::PathRejection>) -> JsonResult {
    let Path(id) = id?;
    if !valid_app_id(&id) {
        return Err(ApiError::bad_request(format!("`{id}` is not a YARN application id (application_<cluster>_<n>)")));
    }
    let o = s.read();
    let views = join::app_views(&o.rm.apps, o.engine.state.as_ref());
    let Some(v) = views.into_iter().find(|v| v.id == id) else {
        return Err(ApiError::not_found(format!("application {id} is not in the RM's list")));
    };
    let series = json!({
        "allocated_memory_mb": o.series.points(&format!("app.{id}.allocated_memory_mb"), 0),
        "running_containers": o.series.points(&format!("app.{id}.running_containers"), 0),
    });
    Ok(Json(json!({"app": v, "series": series})))
}

pub async fn nodes(s: Ctx) -> Json<Value> {
    let now = now_ms();
    let o = s.read();
    let engine_nodes: BTreeMap<&str, &NodeView> = o.engine.nodes.iter().flatten().map(|n| (n.host.as_str(), n)).collect();
    let list: Vec<Value> =
        o.rm.nodes
            .iter()
            .map(|n| {
                let h = &n.node_host_name;
                json!({
                    "host": h,
                    "rm": n,
                    "engine": engine_nodes.get(h.as_str()),
                    "pushed_load_estimate": o.pushed_load.get(h),
                    "utilization_points": o.series.points(&format!("node.{h}.memory_mb"), now - 3_600_000).len(),
                })
            })
            .collect();
    Json(json!({"nodes": list}))
}

/// Plugin of a gauge: its name's first word (`dress_reserve_ratio` → `dress`).
fn plugin_of(name: &str) -> &str {
    name.split('_').next().unwrap_or(name)
}

pub async fn plugins(s: Ctx) -> Json<Value> {
    let o = s.read();
    let mut gauges: BTreeMap<&str, Vec<Value>> = BTreeMap::new();
    for g in &o.engine.gauges {
        gauges.entry(plugin_of(&g.name)).or_default().push(json!(g));
    }
    let st = o.engine.state.as_ref();
    Json(json!({
        "policy": st.map(|e| &e.policy),
        "pipelines": st.map(|e| &e.pipelines),
        "queue_order": st.map(|e| &e.queue_order),
        "gauges": gauges,
        "control": o.engine.control,
    }))
}

pub async fn engine(s: Ctx) -> JsonResult {
    let o = s.read();
    match &o.engine.state {
        Some(v) => Ok(Json(json!({"instance": o.engine.instance, "state": v, "nodes": o.engine.nodes}))),
        None if !o.engine.configured => Err(ApiError::not_found("no engine link configured (control.address)")),
        None => Err(ApiError::unavailable(format!(
            "no engine state yet: {}",
            o.engine.last_error.as_deref().unwrap_or("first exchange pending")
        ))),
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SeriesQuery {
    pub key: Option<String>,
    pub prefix: Option<String>,
    pub since_s: Option<u64>,
}

pub async fn series(s: Ctx, q: Result<Query<SeriesQuery>, QueryRejection>) -> JsonResult {
    let Query(q) = q?;
    let key = q.key.ok_or_else(|| ApiError::bad_request("missing `key` (see /api/v1/series/keys)"))?;
    let since = now_ms() - q.since_s.unwrap_or(3600) as i64 * 1000;
    let o = s.read();
    let points = o.series.points(&key, since);
    if points.is_empty() && o.series.keys_with_prefix(&key).next().is_none() {
        return Err(ApiError::not_found(format!("no series `{key}`")));
    }
    Ok(Json(json!({"key": key, "points": points})))
}

pub async fn series_keys(s: Ctx, q: Result<Query<SeriesQuery>, QueryRejection>) -> JsonResult {
    let Query(q) = q?;
    let prefix = q.prefix.unwrap_or_default();
    let o = s.read();
    let keys: Vec<&String> = o.series.keys_with_prefix(&prefix).take(10_000).collect();
    Ok(Json(json!({"keys": keys})))
}

/// The labels of a series key `engine.name{k=v,...}`, as (k, v) pairs.
fn key_labels(key: &str) -> Vec<(&str, &str)> {
    key.split_once('{').map(|(_, l)| l.trim_end_matches('}').split(',').filter_map(|kv| kv.split_once('=')).collect()).unwrap_or_default()
}

/// The page's chart: δ and each pool's used share over the last hour, for
/// every DRESS reserve (one per queue whose pipeline has one; the queue is
/// named unless it is `root`, the one pipeline of a flat queue order).
pub async fn dress_chart(s: Ctx, q: Result<Query<SeriesQuery>, QueryRejection>) -> JsonResult {
    let Query(q) = q?;
    let since = now_ms() - q.since_s.unwrap_or(3600).min(86_400) as i64 * 1000;
    let o = s.read();
    let mut lines = BTreeMap::new();
    let in_queue = |labels: &[(&str, &str)]| match labels.iter().find(|(k, _)| *k == "queue") {
        Some((_, q)) if *q != "root" => format!(" ({q})"),
        _ => String::new(),
    };
    for k in o.series.keys_with_prefix("engine.dress_reserve_ratio") {
        lines.insert(format!("delta{}", in_queue(&key_labels(k))), o.series.points(k, since));
    }
    for k in o.series.keys_with_prefix("engine.dress_pool_used_ratio{") {
        let labels = key_labels(k);
        let pool = labels.iter().find(|(k, _)| *k == "pool").map_or("?", |(_, v)| v);
        lines.insert(format!("{pool} pool used{}", in_queue(&labels)), o.series.points(k, since));
    }
    lines.insert("cluster allocated".to_string(), {
        let alloc = o.series.points("cluster.allocated_memory_mb", since);
        let total = o.series.points("cluster.total_memory_mb", since);
        alloc.iter().zip(total).filter(|(_, (_, t))| *t > 0.0).map(|((ta, a), (_, t))| (*ta, a / t)).collect()
    });
    Ok(Json(json!({"since_ms": since, "lines": lines})))
}
