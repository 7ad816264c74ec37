//! Bad input at the JNI crossing (issue 15 item 4): property-based tests of
//! the event-batch decoder (`bridge::wire`) and of the real `extern "system"`
//! entry points driven through a JVM started inside this test process.
//!
//! Properties:
//! * random bytes never panic the decoder; every error names the record
//!   kind, the field and a byte offset inside the batch;
//! * every valid batch round-trips (encode → decode gives the same events);
//! * a valid batch cut at any byte is an error naming the record that was
//!   cut, unless the cut falls on a record boundary (then it decodes the
//!   records before it);
//! * a valid batch with one field set to a value the format forbids (unknown
//!   tag, resource count over the maximum, a flag that is not 0/1, a string
//!   longer than the batch, a string that is not UTF-8) is an error naming
//!   exactly that record and field; any other single-byte change decodes or
//!   errs, never panics;
//! * the JNI entry points given garbage return their neutral value with a
//!   Java exception pending; they never unwind into the JVM.
//!
//! Case counts are in each `ProptestConfig` (see `CASES_*`); they are kept
//! small enough for the whole file to run in a few seconds.

use jni::objects::{JClass, JObject, JThrowable};
use jni::{InitArgsBuilder, JNIEnv, JNIVersion, JavaVM};
use proptest::prelude::*;
use shepherd::bridge::jni_entry as entry;
use shepherd::bridge::wire::{decode_events, record_name, EventWriter, WireError};
use shepherd::model::{Ask, ExecutionType, Resources, SchedulerKey};
use shepherd::Event;
use std::sync::OnceLock;

/// Random byte strings.
const CASES_RANDOM_BYTES: u32 = 512;
/// Random valid batches, each checked for round trip.
const CASES_ROUND_TRIP: u32 = 256;
/// Random valid batches, each cut at every byte.
const CASES_TRUNCATED: u32 = 64;
/// Random valid batches with one forbidden field value.
const CASES_FORBIDDEN_FIELD: u32 = 256;
/// Random valid batches with one random byte changed.
const CASES_BYTE_MUTATED: u32 = 512;
/// Random byte strings sent through the real JNI `step` entry.
const CASES_JNI_GARBAGE: u32 = 64;

const K: usize = 2;

fn res() -> impl Strategy<Value = Resources> {
    (any::<i64>(), any::<i64>()).prop_map(|(m, v)| {
        let mut r = Resources::ZERO;
        r.0[0] = m;
        r.0[1] = v;
        r
    })
}

/// Free text: any printable Unicode, commas included.
fn text() -> impl Strategy<Value = String> {
    "\\PC{0,12}"
}

/// Items of the comma-separated list fields (labels, tags, attribute parts).
fn item() -> impl Strategy<Value = String> {
    "[a-zA-Z0-9_./:-]{1,8}"
}

fn key() -> impl Strategy<Value = SchedulerKey> {
    (any::<i32>(), any::<i64>()).prop_map(|(priority, allocation_request_id)| SchedulerKey { priority, allocation_request_id })
}

fn execution() -> impl Strategy<Value = ExecutionType> {
    prop_oneof![Just(ExecutionType::Guaranteed), Just(ExecutionType::Opportunistic)]
}

fn event() -> impl Strategy<Value = Event> {
    prop_oneof![
        (any::<u32>(), text(), text(), res(), prop::collection::vec(item(), 0..3), prop::collection::vec((item(), item()), 0..3)).prop_map(
            |(node, host, rack, capacity, labels, attributes)| Event::NodeAdded { node, host, rack, capacity, labels, attributes }
        ),
        any::<u32>().prop_map(|node| Event::NodeRemoved { node }),
        (any::<u32>(), res()).prop_map(|(node, capacity)| Event::NodeResourceUpdated { node, capacity }),
        (any::<u32>(), res()).prop_map(|(node, used)| Event::NodeUtilization { node, used }),
        (any::<u32>(), text(), text(), text(), text(), text(), prop::collection::vec(item(), 0..3), any::<i64>(), any::<i32>()).prop_map(
            |(app, yarn_id, queue, user, name, app_type, tags, submit_ms, priority)| Event::AppAdded {
                app,
                yarn_id,
                queue,
                user,
                name,
                app_type,
                tags,
                submit_ms,
                priority
            }
        ),
        any::<u32>().prop_map(|app| Event::AppRemoved { app }),
        (any::<u32>(), any::<u32>()).prop_map(|(app, attempt)| Event::AttemptAdded { app, attempt }),
        (any::<u32>(), any::<i32>()).prop_map(|(app, priority)| Event::AppPriorityChanged { app, priority }),
        (any::<u32>(), any::<u32>()).prop_map(|(app, attempt)| Event::AttemptRemoved { app, attempt }),
        (any::<u32>(), key(), res(), any::<i32>(), any::<bool>(), execution(), text(), prop::collection::vec((text(), any::<i32>()), 0..3))
            .prop_map(|(app, key, capability, count, relax_locality, execution, label, locations)| Event::AskUpdated {
                app,
                ask: Ask { key, capability, count, relax_locality, execution, locations, label, placement: None },
            }),
        (any::<u64>(), any::<i64>()).prop_map(|(container, at_ms)| Event::ContainerLaunched { container, at_ms }),
        (any::<u64>(), any::<i32>(), any::<i64>()).prop_map(|(container, exit_status, at_ms)| Event::ContainerFinished {
            container,
            exit_status,
            at_ms
        }),
        (any::<u64>(), any::<u32>(), any::<u32>(), key(), res(), execution(), any::<i64>()).prop_map(
            |(container, app, node, key, resources, execution, start_ms)| Event::ContainerRecovered {
                container,
                app,
                node,
                key,
                resources,
                execution,
                start_ms
            }
        ),
        any::<u64>().prop_map(|container| Event::AllocationRejected { container }),
        (text(), res(), any::<i64>()).prop_map(|(host, used, expires_ms)| Event::NodeLoadEstimate { host, used, expires_ms }),
        (text(), text(), text(), any::<i64>()).prop_map(|(app_id, user, name, size_ms)| Event::HistorySample {
            app_id,
            user,
            name,
            size_ms
        }),
    ]
}

/// A batch and where each of its records starts (plus its end).
fn batch() -> impl Strategy<Value = (Vec<Event>, Vec<u8>, Vec<usize>)> {
    prop::collection::vec(event(), 1..6).prop_map(|events| {
        let mut w = EventWriter::default();
        let mut starts = vec![];
        for e in &events {
            starts.push(w.buf.len());
            w.event(e, K);
        }
        starts.push(w.buf.len());
        (events, w.buf, starts)
    })
}

/// What every decoder error must say: a known record kind (or `unknown`
/// with field `tag`), a field, and offsets inside the batch.
fn assert_names_what_is_wrong(e: &WireError, len: usize) {
    assert!(e.offset <= len && e.record_offset <= e.offset, "{e}");
    assert!(!e.field.is_empty(), "{e}");
    let msg = e.to_string();
    assert!(msg.contains(e.record) && msg.contains(e.field) && msg.contains(&format!("byte {}", e.offset)), "{msg}");
    if e.record == "unknown" {
        assert_eq!(e.field, "tag", "{e}");
    } else {
        assert!((1..=255u8).any(|t| record_name(t) == Some(e.record)), "{e}");
    }
}

fn decode(buf: &[u8]) -> Result<Vec<Event>, WireError> {
    let mut out = vec![];
    decode_events(buf, &mut out).map(|_| out)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: CASES_RANDOM_BYTES, failure_persistence: None, ..ProptestConfig::default() })]
    #[test]
    fn random_bytes_never_panic_and_errors_name_the_field(bytes in prop::collection::vec(any::<u8>(), 0..256)) {
        if let Err(e) = decode(&bytes) {
            assert_names_what_is_wrong(&e, bytes.len());
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: CASES_ROUND_TRIP, failure_persistence: None, ..ProptestConfig::default() })]
    #[test]
    fn valid_batches_round_trip((events, buf, _starts) in batch()) {
        let back = decode(&buf).unwrap();
        prop_assert_eq!(format!("{events:?}"), format!("{back:?}"));
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: CASES_TRUNCATED, failure_persistence: None, ..ProptestConfig::default() })]
    #[test]
    fn truncated_batches_name_the_cut_record((events, buf, starts) in batch()) {
        for cut in 0..buf.len() {
            match starts.iter().position(|s| *s == cut) {
                // On a record boundary: the records before the cut.
                Some(n) => prop_assert_eq!(decode(&buf[..cut]).unwrap().len(), n),
                None => {
                    let e = decode(&buf[..cut]).unwrap_err();
                    assert_names_what_is_wrong(&e, cut);
                    // The record the cut falls in, named by kind and start.
                    let i = starts.iter().rposition(|s| *s < cut).unwrap();
                    prop_assert_eq!(e.record_offset, starts[i]);
                    prop_assert_eq!(Some(e.record), record_name(buf[starts[i]]));
                    prop_assert!(e.what.contains("truncated"), "{}", e);
                    let _ = &events;
                }
            }
        }
    }
}

/// Byte offsets (from a record's start) of fields with forbidden values, for
/// the record kinds whose layout starts with fixed-width fields.
#[derive(Debug, Clone, Copy)]
enum Forbidden {
    /// A tag no record kind has.
    Tag(u8),
    /// A resource count over `MAX_RESOURCE_TYPES`.
    ResourceCount(u8),
    /// `relax_locality` or `execution` of an AskUpdated not 0/1.
    Flag { second: bool, value: u8 },
    /// A string length longer than the rest of the batch.
    StringLength,
    /// A string byte that is not UTF-8 (0xFF never is).
    NotUtf8,
}

fn forbidden() -> impl Strategy<Value = Forbidden> {
    prop_oneof![
        // Any byte no record kind has (the set grows as records are added).
        any::<u8>().prop_filter("a tag no record has", |t| record_name(*t).is_none()).prop_map(Forbidden::Tag),
        (9u8..=255).prop_map(Forbidden::ResourceCount),
        (any::<bool>(), 2u8..=255).prop_map(|(second, value)| Forbidden::Flag { second, value }),
        Just(Forbidden::StringLength),
        Just(Forbidden::NotUtf8),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: CASES_FORBIDDEN_FIELD, failure_persistence: None, ..ProptestConfig::default() })]
    #[test]
    fn one_forbidden_field_value_is_named(
        (before, after) in (prop::collection::vec(event(), 0..3), prop::collection::vec(event(), 0..3)),
        target in event(),
        bad in forbidden(),
    ) {
        let mut w = EventWriter::default();
        for e in &before {
            w.event(e, K);
        }
        let at = w.buf.len();
        w.event(&target, K);
        for e in &after {
            w.event(e, K);
        }
        let mut buf = w.buf;
        // (byte to change, its new value, the record and field to be named)
        let (pos, value, record, field): (usize, u8, &str, &str) = match (bad, &target) {
            (Forbidden::Tag(t), _) => (at, t, "unknown", "tag"),
            // NodeResourceUpdated / NodeUtilization: tag, u32 node, res.
            (Forbidden::ResourceCount(k), Event::NodeResourceUpdated { .. }) => (at + 5, k, "NodeResourceUpdated", "capability"),
            (Forbidden::ResourceCount(k), Event::NodeUtilization { .. }) => (at + 5, k, "NodeUtilization", "used"),
            // AskUpdated: tag, u32 app, i32 priority, i64 request id, res (1 + 16), i32 count, u8 relax, u8 execution.
            (Forbidden::ResourceCount(k), Event::AskUpdated { .. }) => (at + 17, k, "AskUpdated", "capability"),
            (Forbidden::Flag { second, value }, Event::AskUpdated { .. }) => {
                (at + 38 + second as usize, value, "AskUpdated", if second { "execution" } else { "relax_locality" })
            }
            // NodeAdded: tag, u32 node, str host (u16 length, bytes).
            (Forbidden::StringLength, Event::NodeAdded { .. }) => {
                buf[at + 5] = 0xFF;
                (at + 6, 0xFF, "NodeAdded", "host")
            }
            (Forbidden::NotUtf8, Event::NodeAdded { host, .. }) if !host.is_empty() => (at + 7, 0xFF, "NodeAdded", "host"),
            // Other combinations: fall back to the tag, which every record has.
            _ => (at, 0, "unknown", "tag"),
        };
        buf[pos] = value;
        let e = decode(&buf).unwrap_err();
        assert_names_what_is_wrong(&e, buf.len());
        prop_assert_eq!((e.record, e.field), (record, field), "{}", e);
        prop_assert_eq!(e.record_offset, at, "{}", e);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: CASES_BYTE_MUTATED, failure_persistence: None, ..ProptestConfig::default() })]
    #[test]
    fn any_one_byte_changed_never_panics((_events, buf, _starts) in batch(), pick in any::<prop::sample::Index>(), value in any::<u8>()) {
        let mut buf = buf;
        let i = pick.index(buf.len());
        buf[i] = value;
        if let Err(e) = decode(&buf) {
            assert_names_what_is_wrong(&e, buf.len());
        }
    }
}

// ---------------------------------------------------------------- through JNI

/// One JVM for the whole test binary (a process can create only one).
fn jvm() -> &'static JavaVM {
    static JVM: OnceLock<JavaVM> = OnceLock::new();
    JVM.get_or_init(|| {
        let args = InitArgsBuilder::new().version(JNIVersion::V8).option("-Xmx64m").option("-Xss1m").build().expect("JVM arguments");
        JavaVM::new(args).expect("start a JVM in the test process (needs a JDK: java on PATH or JAVA_HOME)")
    })
}

/// The message of the pending Java exception, cleared; None if none is pending.
fn take_exception(env: &mut JNIEnv) -> Option<(String, String)> {
    if !env.exception_check().unwrap() {
        return None;
    }
    let ex: JThrowable = env.exception_occurred().unwrap();
    env.exception_clear().unwrap();
    let class = env.call_method(&ex, "getClass", "()Ljava/lang/Class;", &[]).unwrap().l().unwrap();
    let name = env.call_method(&class, "getName", "()Ljava/lang/String;", &[]).unwrap().l().unwrap();
    let name: String = env.get_string(&name.into()).unwrap().into();
    let msg = env.call_method(&ex, "getMessage", "()Ljava/lang/String;", &[]).unwrap().l().unwrap();
    let msg: String = if msg.is_null() { String::new() } else { env.get_string(&msg.into()).unwrap().into() };
    Some((name, msg))
}

/// `NativeEngine.create(config, ["memory-mb", "vcores"])` through the real entry.
fn create(env: &mut JNIEnv<'_>, config: &str) -> i64 {
    let class = JClass::from(JObject::null());
    let text = env.new_string(config).unwrap();
    let names = env.new_object_array(2, "java/lang/String", JObject::null()).unwrap();
    for (i, n) in ["memory-mb", "vcores"].iter().enumerate() {
        let s = env.new_string(n).unwrap();
        env.set_object_array_element(&names, i as i32, s).unwrap();
    }
    // SAFETY: the clone is used for this one call on this thread.
    entry::Java_org_shepherd_yarn_engine_NativeEngine_create(unsafe { env.unsafe_clone() }, class, text, names)
}

/// `NativeEngine.step(handle, bytes, len, now, node)`: (decisions or None, exception).
fn step(env: &mut JNIEnv<'_>, handle: i64, bytes: &[u8], len: i32, node: i32) -> (Option<Vec<i64>>, Option<(String, String)>) {
    let class = JClass::from(JObject::null());
    let arr = env.byte_array_from_slice(bytes).unwrap();
    let out = entry::Java_org_shepherd_yarn_engine_NativeEngine_step(unsafe { env.unsafe_clone() }, class, handle, arr, len, 1_000, node);
    let ex = take_exception(env);
    if out.is_null() {
        return (None, ex);
    }
    // SAFETY: a non-null return is a local reference to a long[].
    let arr = unsafe { jni::objects::JLongArray::from_raw(out) };
    let n = env.get_array_length(&arr).unwrap() as usize;
    let mut v = vec![0i64; n];
    env.get_long_array_region(&arr, 0, &mut v).unwrap();
    (Some(v), ex)
}

fn events_applied(env: &mut JNIEnv<'_>, handle: i64) -> i64 {
    let class = JClass::from(JObject::null());
    let out = entry::Java_org_shepherd_yarn_engine_NativeEngine_counters(unsafe { env.unsafe_clone() }, class, handle);
    assert!(take_exception(env).is_none());
    let arr = unsafe { jni::objects::JLongArray::from_raw(out) };
    let mut v = [0i64; 6];
    env.get_long_array_region(&arr, 0, &mut v).unwrap();
    v[0]
}

fn destroy(env: &mut JNIEnv<'_>, handle: i64) {
    let class = JClass::from(JObject::null());
    entry::Java_org_shepherd_yarn_engine_NativeEngine_destroy(unsafe { env.unsafe_clone() }, class, handle);
    assert!(take_exception(env).is_none());
}

proptest! {
    #![proptest_config(ProptestConfig { cases: CASES_JNI_GARBAGE, failure_persistence: None, ..ProptestConfig::default() })]
    #[test]
    fn jni_step_with_garbage_throws_and_applies_nothing(bytes in prop::collection::vec(any::<u8>(), 1..128)) {
        let mut env = jvm().attach_current_thread().unwrap();
        let h = create(&mut env, "[scheduler]\npolicy = \"fifo\"\n");
        prop_assert!(h != 0 && take_exception(&mut env).is_none());
        let (out, ex) = step(&mut env, h, &bytes, bytes.len() as i32, -1);
        match decode(&bytes) {
            Ok(_) => prop_assert!(out.is_some() && ex.is_none(), "{:?}", ex),
            Err(e) => {
                prop_assert!(out.is_none());
                let (_class, msg) = ex.expect("a Java exception is pending");
                prop_assert_eq!(msg, e.to_string());
                prop_assert_eq!(events_applied(&mut env, h), 0, "a malformed batch is rejected whole");
            }
        }
        destroy(&mut env, h);
    }
}

#[test]
fn jni_entries_turn_every_failure_into_a_java_exception() {
    let mut env = jvm().attach_current_thread().unwrap();

    // A bad config: create returns 0 with the key named.
    let h = create(&mut env, "[dress]\ntheta = 7.0\n");
    assert_eq!(h, 0);
    let (_, msg) = take_exception(&mut env).expect("exception");
    assert!(msg.contains("dress.theta") && msg.contains('7'), "{msg}");
    // Unparsable TOML: the syntax position.
    assert_eq!(create(&mut env, "[scheduler\n"), 0);
    let (_, msg) = take_exception(&mut env).expect("exception");
    assert!(msg.contains("line 1"), "{msg}");

    // A handle of 0 (destroyed) is an error, not a crash.
    let (out, ex) = step(&mut env, 0, &[], 0, 0);
    assert!(out.is_none() && ex.expect("exception").1.contains("null"));

    // A length beyond the array: the JVM's own bounds check, as an exception.
    let h = create(&mut env, "");
    let (out, ex) = step(&mut env, h, &[2, 0, 0], 1000, -1);
    assert!(out.is_none() && ex.is_some());
    destroy(&mut env, h);

    // An injected panic on the 2nd scheduling call is caught at the boundary;
    // the poisoned engine refuses further calls with an exception.
    let h = create(&mut env, "[scheduler]\npolicy = \"fifo\"\nfault_injection = \"panic-on-schedule\"\nfault_every_n_heartbeats = 2\n");
    let mut w = EventWriter::default();
    w.event(
        &Event::NodeAdded {
            node: 0,
            host: "h".into(),
            rack: "/r".into(),
            capacity: Resources::new(4096, 4),
            labels: vec![],
            attributes: vec![],
        },
        K,
    );
    let (out, ex) = step(&mut env, h, &w.buf, w.buf.len() as i32, 0);
    assert!(out.is_some() && ex.is_none(), "first call schedules: {ex:?}");
    let (out, ex) = step(&mut env, h, &[], 0, 0);
    let (_, msg) = ex.expect("the panic became an exception");
    assert!(out.is_none() && msg.contains("panicked") && msg.contains("fault injected"), "{msg}");
    let (out, ex) = step(&mut env, h, &[], 0, 0);
    assert!(out.is_none() && ex.expect("exception").1.contains("recreate"));
    destroy(&mut env, h);

    // Error mode: every 3rd call errs, the engine stays usable.
    let h = create(&mut env, "[scheduler]\npolicy = \"fifo\"\nfault_injection = \"error-on-schedule\"\nfault_every_n_heartbeats = 3\n");
    let (out, ex) = step(&mut env, h, &w.buf, w.buf.len() as i32, 0);
    assert!(out.is_some() && ex.is_none());
    let failed: Vec<bool> = (0..5).map(|_| step(&mut env, h, &[], 0, 0).0.is_none()).collect();
    assert_eq!(failed, [false, true, false, false, true]);
    destroy(&mut env, h);

    // Nothing is left pending for the JVM.
    assert!(!env.exception_check().unwrap());
}
