//! What each control request does. Reads happen under the engine's lock
//! (like the shim's own `stateJson`); pushes only reach the inbox.

use super::listener::{ListenerStats, Target};
use super::protocol::{GaugesAnswer, Request, SlowInput, StateAnswer};
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
        "state" => with_engine(t, |e| answer(&StateAnswer { state: e.view(), nodes: e.nodes_view() })),
        "gauges" => with_engine(t, |e| answer(&GaugesAnswer { gauges: e.gauges(), decision_seconds: t.shared.timing.snapshot() })),
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

/// A typed answer as the JSON object `handle` completes.
fn answer(a: &impl serde::Serialize) -> Value {
    serde_json::to_value(a).expect("control answers serialize")
}

/// Run `f` on the engine under its lock. A panic inside `f` is caught
/// *before* the lock is released, so it cannot poison the engine for the
/// scheduling path (`f` only reads).
fn with_engine(t: &Target, f: impl FnOnce(&Engine) -> Value) -> Result<Value, String> {
    let guard: std::sync::MutexGuard<'_, dyn EngineDriver> =
        t.shared.session.lock().map_err(|_| "the engine failed earlier and is being rebuilt by the RM; try again".to_string())?;
    catch_unwind(AssertUnwindSafe(|| f(guard.engine()))).map_err(|_| "the engine panicked while being read".to_string())
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
