//! The sidecar's side of the control channel: read the engine's state and
//! gauges every `control.poll_interval_ms`, and push it what is too slow or
//! too history-hungry for the heartbeat path — per-node load estimates
//! (ROSE's LLA over the utilization series) and the history of runs the
//! engine did not see finish. The engine validates, time-limits and counts
//! every input; if this loop stops, the estimates expire and the engine is
//! back on its defaults.

use super::config::{read_first_line, ControlLinkConfig};
use super::{load, now_ms, Sidecar};
use crate::control::client::ControlClient;
use crate::control::protocol::{GaugesAnswer, StateAnswer};
use crate::policy::Gauge;
use serde::Deserialize;
use serde_json::{json, Value};
use std::sync::Arc;
use std::time::Duration;

pub struct EngineLink {
    client: ControlClient,
}

impl EngineLink {
    pub fn new(c: &ControlLinkConfig) -> Result<EngineLink, String> {
        let secret = read_first_line(&c.secret_file, "control.secret_file")?;
        Ok(EngineLink { client: ControlClient::new(c.address.clone(), secret, Duration::from_millis(c.timeout_ms)) })
    }

    /// One request on a blocking thread (the client is plain `std::net`).
    pub async fn call(&self, op: &str, inputs: Vec<Value>) -> Result<Value, String> {
        let client = self.client.clone();
        let op = op.to_string();
        tokio::task::spawn_blocking(move || client.call(&op, inputs).map_err(|e| e.to_string()))
            .await
            .map_err(|e| format!("control request task: {e}"))?
    }
}

pub async fn run(s: Arc<Sidecar>) {
    let interval = Duration::from_millis(s.config.control.poll_interval_ms);
    loop {
        if let Err(e) = exchange(&s).await {
            let failures = {
                let mut o = s.write();
                o.engine.last_error = Some(e.clone());
                o.engine.consecutive_failures += 1;
                o.engine.consecutive_failures
            };
            if failures <= 3 || failures % 10 == 0 {
                tracing::warn!(error = %e, failures, "engine control channel unavailable; serving stale engine data");
            }
        }
        tokio::time::sleep(interval).await;
    }
}

fn gauge_key(g: &Gauge) -> String {
    if g.labels.is_empty() {
        format!("engine.{}", g.name)
    } else {
        let l: Vec<String> = g.labels.iter().map(|(k, v)| format!("{k}={v}")).collect();
        format!("engine.{}{{{}}}", g.name, l.join(","))
    }
}

async fn request(s: &Sidecar, op: &'static str, inputs: Vec<Value>) -> Result<Value, String> {
    let link = s.engine.as_ref().ok_or("no engine link configured")?;
    let r = link.call(op, inputs).await;
    s.metrics.engine_requests.with_label_values(&[op, if r.is_ok() { "ok" } else { "error" }]).inc();
    r
}

/// One round: state, gauges, then pushes.
pub async fn exchange(s: &Sidecar) -> Result<(), String> {
    let state = request(s, "state", vec![]).await?;
    let gauges = request(s, "gauges", vec![]).await?;
    let now = now_ms();
    // The engine's own types: an answer that does not fit them (another
    // version of the engine, say) is an error, not data with holes.
    let parsed = StateAnswer::deserialize(&state).map_err(|e| format!("engine state answer is malformed: {e}")).and_then(|st| {
        let ga = GaugesAnswer::deserialize(&gauges).map_err(|e| format!("engine gauges answer is malformed: {e}"))?;
        Ok((st, ga))
    });
    let (st, ga) = match parsed {
        Ok(p) => p,
        Err(e) => {
            s.metrics.engine_malformed.inc();
            return Err(e);
        }
    };
    {
        let mut o = s.write();
        let o = &mut *o;
        let instance = state.get("instance").and_then(Value::as_u64);
        if instance != o.engine.instance {
            if o.engine.instance.is_some() {
                tracing::info!(?instance, "the RM built a new engine");
            }
            o.engine.history_sent.clear();
        }
        o.engine.instance = instance;
        o.engine.started_ms = state.get("started_ms").and_then(Value::as_i64);
        o.engine.state = Some(st.state);
        o.engine.nodes = Some(st.nodes);
        o.engine.control = gauges.get("control").cloned();
        o.engine.decision_seconds = Some(ga.decision_seconds);
        for g in ga.gauges.iter().filter(|g| !g.value.is_nan()) {
            o.series.record(&gauge_key(g), now, g.value);
        }
        o.engine.gauges = ga.gauges;
        o.engine.last_success_ms = Some(now);
        o.engine.last_error = None;
        o.engine.consecutive_failures = 0;
    }
    if s.config.load.push {
        push_loads(s, now).await?;
    }
    if s.config.history.push {
        push_history(s).await?;
    }
    Ok(())
}

/// LLA estimates of memory and CPU for every node with a utilization series.
pub fn load_inputs(s: &Sidecar, now: i64) -> Vec<(String, f64, f64, usize)> {
    let o = s.read();
    let window = s.config.load.window_s as i64 * 1000;
    let k = s.config.load.segments;
    // Only while the RM data is fresh: estimates from a stale series would
    // describe the past.
    if super::state::is_stale(o.rm.last_success_ms, now, s.config.rm.stale_after_ms()) {
        return vec![];
    }
    // One estimate per host (the engine names nodes by host).
    let hosts: std::collections::BTreeSet<&String> = o.rm.nodes.iter().map(|n| &n.node_host_name).collect();
    hosts
        .into_iter()
        .filter_map(|h| {
            let mem = o.series.recent_values(&format!("node.{h}.memory_mb"), now, window);
            let cpu = o.series.recent_values(&format!("node.{h}.vcores"), now, window);
            Some((h.clone(), load::lla(&mem, k)?, load::lla(&cpu, k)?, mem.len()))
        })
        .collect()
}

async fn push_loads(s: &Sidecar, now: i64) -> Result<(), String> {
    let estimates = load_inputs(s, now);
    if estimates.is_empty() {
        return Ok(());
    }
    let inputs: Vec<Value> = estimates
        .iter()
        .map(|(h, m, c, _)| json!({"kind": "node_load", "host": h, "memory_mb": m, "vcores": c, "ttl_ms": s.config.load.ttl_ms}))
        .collect();
    let r = request(s, "push", inputs).await?;
    count_push(s, "node_load", &r, estimates.len());
    let mut o = s.write();
    for (h, m, c, n) in estimates {
        o.pushed_load.insert(h, super::state::PushedLoad { memory_mb: m, vcores: c, at_ms: now, samples: n });
    }
    Ok(())
}

fn count_push(s: &Sidecar, kind: &str, r: &Value, sent: usize) {
    let accepted = r.get("accepted").and_then(Value::as_u64).unwrap_or(0);
    s.metrics.engine_inputs.with_label_values(&[kind, "accepted"]).inc_by(accepted);
    s.metrics.engine_inputs.with_label_values(&[kind, "rejected"]).inc_by((sent as u64).saturating_sub(accepted));
}

/// Finished runs the engine did not watch: finished before it was built.
async fn push_history(s: &Sidecar) -> Result<(), String> {
    let (inputs, ids): (Vec<Value>, Vec<String>) = {
        let o = s.read();
        let Some(started) = o.engine.started_ms else { return Ok(()) };
        o.rm.apps
            .iter()
            .filter(|a| a.state == "FINISHED" && a.finished_time > 0 && a.finished_time < started)
            .filter(|a| a.vcore_seconds > 0 && !o.engine.history_sent.contains(&a.id))
            // YARN reports vcore-seconds; with one vcore per container (YARN's
            // default container) that is container-seconds.
            .map(|a| {
                (
                    json!({"kind": "history", "app_id": a.id, "user": a.user, "name": a.name, "size_ms": a.vcore_seconds as f64 * 1000.0}),
                    a.id.clone(),
                )
            })
            .take(1000)
            .unzip()
    };
    if inputs.is_empty() {
        return Ok(());
    }
    let r = request(s, "push", inputs).await?;
    count_push(s, "history", &r, ids.len());
    // Refused ones (duplicates included) are not retried for this engine.
    s.write().engine.history_sent.extend(ids);
    Ok(())
}
