//! `extern "system"` entry points of `org.shepherd.yarn.engine.NativeEngine`.
//!
//! Each is a thin adapter: copy arguments out of the JVM, call [`Session`],
//! copy the result back. All go through [`guarded`], so errors and panics
//! become `ShepherdEngineException`s. A session whose lock was poisoned by a
//! panic refuses further calls; the shim then builds a fresh engine and
//! replays its state into it.
//!
//! When Shepherd's config enables `[control]`, `create` also attaches the
//! engine to the control channel's listener thread (`crate::control`), which
//! shares the session through an `Arc`; `destroy` detaches it (the last
//! engine of an address stops the thread and frees the port). Inputs the
//! sidecar pushed are applied at the start of the next `step`.

use super::guard::guarded;
use super::session::Session;
use crate::control::{listener::Attachment, EngineShared};
use jni::objects::{JByteArray, JClass, JObjectArray, JString};
use jni::sys::{jint, jlong, jlongArray, jstring};
use jni::JNIEnv;
use std::sync::{Arc, Mutex};

struct Handle {
    /// Held for its `Drop`, and dropped first: detaching stops the control
    /// thread before the engine goes.
    #[allow(dead_code)]
    control: Option<Attachment>,
    shared: Arc<EngineShared<Session>>,
    scratch: Mutex<Vec<i8>>,
}

fn handle<'a>(ptr: jlong) -> Result<&'a Handle, String> {
    if ptr == 0 {
        return Err("Shepherd engine handle is null (already destroyed?)".into());
    }
    // SAFETY: `ptr` was produced by `create` from `Box::into_raw` and is only
    // freed by `destroy`; the shim never uses a handle after destroying it.
    Ok(unsafe { &*(ptr as *const Handle) })
}

fn err<E: std::fmt::Display>(e: E) -> String {
    e.to_string()
}

/// The handle's session, unless a panic poisoned its lock.
fn session(ptr: jlong) -> Result<std::sync::MutexGuard<'static, Session>, String> {
    handle(ptr)?.shared.session.lock().map_err(|_| "Shepherd engine is unusable after an earlier panic; recreate it".to_string())
}

/// A read-only entry that answers with a Java string made from the session.
fn string_from_session(env: &mut JNIEnv, ptr: jlong, text: impl FnOnce(&Session) -> String) -> jstring {
    guarded(env, std::ptr::null_mut(), |env| {
        let s = env.new_string(text(&*session(ptr)?)).map_err(err)?;
        Ok::<_, String>(s.into_raw())
    })
}

#[no_mangle]
pub extern "system" fn Java_org_shepherd_yarn_engine_NativeEngine_create<'l>(
    mut env: JNIEnv<'l>,
    _class: JClass<'l>,
    config: JString<'l>,
    resource_names: JObjectArray<'l>,
) -> jlong {
    guarded(&mut env, 0, |env| {
        let text: String = env.get_string(&config).map_err(err)?.into();
        let n = env.get_array_length(&resource_names).map_err(err)?;
        let mut names = Vec::with_capacity(n as usize);
        for i in 0..n {
            let o = env.get_object_array_element(&resource_names, i).map_err(err)?;
            let s: String = env.get_string(&JString::from(o)).map_err(err)?.into();
            names.push(s);
        }
        let session = Session::new(&text, names).map_err(err)?;
        let control_config = session.engine().config().control.clone();
        let shared = Arc::new(EngineShared::new(session));
        let control = match control_config.enabled {
            true => Some(crate::control::listener::attach(&control_config, shared.clone())?),
            false => None,
        };
        let h = Box::new(Handle { control, shared, scratch: Mutex::new(Vec::new()) });
        Ok::<_, String>(Box::into_raw(h) as jlong)
    })
}

#[no_mangle]
pub extern "system" fn Java_org_shepherd_yarn_engine_NativeEngine_destroy<'l>(mut env: JNIEnv<'l>, _class: JClass<'l>, ptr: jlong) {
    guarded(&mut env, (), |_| {
        if ptr != 0 {
            // SAFETY: see `handle`; destroy is called once per handle.
            drop(unsafe { Box::from_raw(ptr as *mut Handle) });
        }
        Ok::<_, String>(())
    })
}

/// Apply `events[0..len]` and, if `node >= 0`, schedule that node.
#[no_mangle]
pub extern "system" fn Java_org_shepherd_yarn_engine_NativeEngine_step<'l>(
    mut env: JNIEnv<'l>,
    _class: JClass<'l>,
    ptr: jlong,
    events: JByteArray<'l>,
    len: jint,
    now_ms: jlong,
    node: jint,
) -> jlongArray {
    let node = if node >= 0 { Some(node as u32) } else { None };
    crossing(&mut env, ptr, &events, len, now_ms, node.is_some(), |session, bytes| session.step(bytes, now_ms, node))
}

/// Apply `events[0..len]`, then run a scheduling round between heartbeats
/// on at most `max_nodes` nodes (0 = all; asynchronous scheduling).
#[no_mangle]
pub extern "system" fn Java_org_shepherd_yarn_engine_NativeEngine_round<'l>(
    mut env: JNIEnv<'l>,
    _class: JClass<'l>,
    ptr: jlong,
    events: JByteArray<'l>,
    len: jint,
    now_ms: jlong,
    max_nodes: jint,
) -> jlongArray {
    let max_nodes = max_nodes.max(0) as usize;
    crossing(&mut env, ptr, &events, len, now_ms, true, |session, bytes| session.round(bytes, now_ms, max_nodes))
}

/// One crossing: copy the event batch out of the JVM, apply the sidecar's
/// inputs, run `call` on the session, copy the decisions back. `timed`:
/// the crossing schedules, so its time goes into the decision-time gauge.
fn crossing<'l>(
    env: &mut JNIEnv<'l>,
    ptr: jlong,
    events: &JByteArray<'l>,
    len: jint,
    now_ms: jlong,
    timed: bool,
    call: impl for<'s> FnOnce(&'s mut Session, &[u8]) -> Result<&'s [i64], super::session::SessionError>,
) -> jlongArray {
    guarded(env, std::ptr::null_mut(), |env| {
        let h = handle(ptr)?;
        // The scratch buffer holds no state between calls, so a panic that
        // poisoned its lock leaves nothing broken: take it back, and let the
        // session's lock report the earlier panic.
        let mut scratch = h.scratch.lock().unwrap_or_else(|p| p.into_inner());
        let len = len.max(0) as usize;
        scratch.resize(len, 0);
        if len > 0 {
            env.get_byte_array_region(events, 0, &mut scratch[..len]).map_err(err)?;
        }
        // SAFETY: i8 and u8 have the same size and alignment.
        let bytes: &[u8] = unsafe { std::slice::from_raw_parts(scratch.as_ptr() as *const u8, len) };
        let mut session = session(ptr)?;
        let started = std::time::Instant::now();
        // Sidecar inputs first: the engine changes only on this path.
        h.shared.inbox.drain_into(session.engine_mut(), now_ms);
        let out = call(&mut session, bytes).map_err(err)?;
        if timed {
            h.shared.timing.record(started.elapsed());
        }
        let arr = env.new_long_array(out.len() as i32).map_err(err)?;
        env.set_long_array_region(&arr, 0, out).map_err(err)?;
        Ok::<_, String>(arr.into_raw())
    })
}

/// Keep the engine's activity log (containers and apps that are gone, node
/// heartbeats; at most `limit` records of each), or drop it with 0.
#[no_mangle]
pub extern "system" fn Java_org_shepherd_yarn_engine_NativeEngine_enableActivityLog<'l>(
    mut env: JNIEnv<'l>,
    _class: JClass<'l>,
    ptr: jlong,
    limit: jint,
) {
    guarded(&mut env, (), |_| {
        session(ptr)?.engine_mut().enable_activity_log(limit.max(0) as usize);
        Ok::<_, String>(())
    })
}

/// The activity log as JSON (`null` when it is not kept).
#[no_mangle]
pub extern "system" fn Java_org_shepherd_yarn_engine_NativeEngine_activityJson<'l>(
    mut env: JNIEnv<'l>,
    _class: JClass<'l>,
    ptr: jlong,
) -> jstring {
    string_from_session(&mut env, ptr, |s| s.engine().activity_json().unwrap_or(serde_json::Value::Null).to_string())
}

/// Apply new config text in place (`yarn rmadmin -refreshQueues`); a bad
/// config or a dropped queue that still has apps throws, changing nothing.
#[no_mangle]
pub extern "system" fn Java_org_shepherd_yarn_engine_NativeEngine_reconfigure<'l>(
    mut env: JNIEnv<'l>,
    _class: JClass<'l>,
    ptr: jlong,
    config: JString<'l>,
) {
    guarded(&mut env, (), |env| {
        let text: String = env.get_string(&config).map_err(err)?.into();
        session(ptr)?.reconfigure(&text).map_err(err)
    })
}

#[no_mangle]
pub extern "system" fn Java_org_shepherd_yarn_engine_NativeEngine_stateJson<'l>(
    mut env: JNIEnv<'l>,
    _class: JClass<'l>,
    ptr: jlong,
) -> jstring {
    string_from_session(&mut env, ptr, |s| s.engine().state_json().to_string())
}

/// The engine's and the policy's gauges as a JSON array of [`crate::policy::Gauge`]
/// (the same JSON the control channel's `gauges` answer carries).
#[no_mangle]
pub extern "system" fn Java_org_shepherd_yarn_engine_NativeEngine_gauges<'l>(
    mut env: JNIEnv<'l>,
    _class: JClass<'l>,
    ptr: jlong,
) -> jstring {
    string_from_session(&mut env, ptr, |s| serde_json::to_string(&s.engine().gauges()).unwrap_or_else(|_| "[]".into()))
}

/// `[events, passes, allocations, preemptions, rejected_allocations, unknown_references,
/// rounds, round_allocations, round_proposals, round_conflicts]`
#[no_mangle]
pub extern "system" fn Java_org_shepherd_yarn_engine_NativeEngine_counters<'l>(
    mut env: JNIEnv<'l>,
    _class: JClass<'l>,
    ptr: jlong,
) -> jlongArray {
    guarded(&mut env, std::ptr::null_mut(), |env| {
        let c = session(ptr)?.engine().counters();
        let v = [
            c.events as i64,
            c.passes as i64,
            c.allocations as i64,
            c.preemptions as i64,
            c.rejected_allocations as i64,
            c.unknown_references as i64,
            c.rounds as i64,
            c.round_allocations as i64,
            c.round_proposals as i64,
            c.round_conflicts as i64,
        ];
        let arr = env.new_long_array(v.len() as i32).map_err(err)?;
        env.set_long_array_region(&arr, 0, &v).map_err(err)?;
        Ok::<_, String>(arr.into_raw())
    })
}

#[no_mangle]
pub extern "system" fn Java_org_shepherd_yarn_engine_NativeEngine_version<'l>(mut env: JNIEnv<'l>, _class: JClass<'l>) -> jstring {
    guarded(&mut env, std::ptr::null_mut(), |env| {
        let s = env.new_string(env!("CARGO_PKG_VERSION")).map_err(err)?;
        Ok::<_, String>(s.into_raw())
    })
}

/// `checkPlacement(String constraint)`: `null` when the engine matches this
/// placement-constraint text form (`crate::model::constraint::text`), else the
/// message naming the unsupported form, which the shim throws to the AM as
/// YARN's `SchedulerInvalidResoureRequestException`. Stateless: one parser
/// decides what is supported, for the shim and the engine alike.
#[no_mangle]
pub extern "system" fn Java_org_shepherd_yarn_engine_NativeEngine_checkPlacement<'l>(
    mut env: JNIEnv<'l>,
    _class: JClass<'l>,
    constraint: JString<'l>,
) -> jstring {
    guarded(&mut env, std::ptr::null_mut(), |env| {
        let text: String = env.get_string(&constraint).map_err(err)?.into();
        if text.trim().is_empty() {
            return Ok::<_, String>(std::ptr::null_mut());
        }
        match crate::model::constraint::text::parse(&text) {
            Ok(_) => Ok(std::ptr::null_mut()),
            Err(e) => Ok(env.new_string(e.to_string()).map_err(err)?.into_raw()),
        }
    })
}
