//! What each control request does. Reads happen under the engine's lock
//! (like the shim's own `stateJson`); pushes only reach the inbox.

use super::listener::{ListenerStats, Target};
use super::protocol::{Request, SlowInput};
use super::shared::now_ms;
use super::shared::EngineDriver;
use crate::engine::Engine;
use serde_json::{json, Value};
use std::panic::{catch_unwind, AssertUnwindSafe};

/// At most this many refusal reasons are listed in a push's answer.
const MAX_LISTED_REJECTIONS: usize = 100;

pub fn handle(req: &Request, t: &Target, stats: &ListenerStats) -> Value {
    let body = match req.op.as_str() {
        "hello" => with_engine(
            t,
            |e| json!({"version": env!("CARGO_PKG_VERSION"), "policy": e.policy_name(), "resource_types": e.state().resource_names}),
        ),
        "state" => with_engine(t, |e| json!({"state": e.state_json(), "nodes": nodes(e)})),
        "gauges" => with_engine(t, |e| json!({"gauges": e.gauges(), "decision_seconds": t.shared.timing.snapshot()})),
        "push" => Ok(push(req, t)),
        other => Err(format!("unknown op `{other}` (expected hello, state, gauges, push)")),
    };
    let mut v = match body {
        Ok(v) => v,
        Err(e) => return json!({"ok": false, "error": e, "instance": t.instance}),
    };
    let o = v.as_object_mut().expect("handlers answer objects");
    o.insert("ok".into(), Value::Bool(true));
    o.insert("instance".into(), json!(t.instance));
    o.insert("started_ms".into(), json!(t.shared.started_ms));
    o.insert("control".into(), json!({"listener": stats.snapshot(), "inbox": t.shared.inbox.snapshot()}));
    v
}

/// Run `f` on the engine under its lock. A panic inside `f` is caught
/// *before* the lock is released, so it cannot poison the engine for the
/// scheduling path (`f` only reads).
fn with_engine(t: &Target, f: impl FnOnce(&Engine) -> Value) -> Result<Value, String> {
    let guard: std::sync::MutexGuard<'_, dyn EngineDriver> =
        t.shared.session.lock().map_err(|_| "the engine failed earlier and is being rebuilt by the RM; try again".to_string())?;
    catch_unwind(AssertUnwindSafe(|| f(guard.engine()))).map_err(|_| "the engine panicked while being read".to_string())
}

/// Per-node view for the sidecar's join with the RM's node list: by host.
fn nodes(e: &Engine) -> Value {
    let now = e.state().now_ms;
    let list: Vec<Value> = e
        .state()
        .nodes
        .values()
        .map(|n| {
            json!({
                "node": n.id,
                "host": n.host,
                "rack": n.rack,
                "capacity": n.capacity.0,
                "allocated": n.allocated.0,
                "utilization": n.utilization.map(|u| u.0),
                "load_estimate": n.load_estimate.map(|l| json!({"used": l.used.0, "expires_ms": l.expires_ms})),
                "load_estimate_valid": n.load_estimate_at(now).is_some(),
                "containers": n.containers.len(),
                "last_heartbeat_ms": n.last_heartbeat_ms,
            })
        })
        .collect();
    Value::Array(list)
}

fn push(req: &Request, t: &Target) -> Value {
    let now = now_ms();
    let mut accepted = 0;
    let mut rejected = Vec::new();
    for (i, raw) in req.inputs.iter().enumerate() {
        let outcome = serde_json::from_value::<SlowInput>(raw.clone())
            .map_err(|e| {
                t.shared.inbox.counters.rejected_invalid.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                format!("not an input: {e}")
            })
            .and_then(|input| t.shared.inbox.push(&input, now));
        match outcome {
            Ok(()) => accepted += 1,
            Err(reason) if rejected.len() < MAX_LISTED_REJECTIONS => rejected.push(json!({"index": i, "reason": reason})),
            Err(_) => {}
        }
    }
    json!({"accepted": accepted, "rejected": rejected})
}
