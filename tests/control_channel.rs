//! The control channel end to end, without the JVM: a session shared with
//! the listener thread exactly as the JNI handle shares it, a real TCP
//! client, pushed inputs reaching the engine only through the step path.

use serde_json::{json, Value};
use shepherd::bridge::session::Session;
use shepherd::control::client::ControlClient;
use shepherd::control::listener::{self, Attachment, ListenerStats, Target};
use shepherd::control::protocol::{GaugesAnswer, Request, StateAnswer};
use shepherd::control::EngineShared;
use shepherd::model::Resources;
use shepherd::Event;
use std::net::TcpListener;
use std::sync::Arc;
use std::time::Duration;

const SECRET: &str = "test-secret-0123456789";

fn secret_file(tag: &str) -> String {
    // Under target/tmp (Cargo's CARGO_TARGET_TMPDIR), not /tmp: the secret
    // must outlive the listener, and `cargo clean` removes it.
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("shepherd-control-{}-{tag}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let f = dir.join("secret");
    std::fs::write(&f, format!("{SECRET}\n")).unwrap();
    f.display().to_string()
}

fn config(policy: &str, port: u16, tag: &str) -> String {
    format!("[scheduler]\npolicy = \"{policy}\"\n[control]\nenabled = true\nport = {port}\nsecret_file = \"{}\"\n", secret_file(tag))
}

fn engine(cfg: &str) -> Arc<EngineShared<Session>> {
    let mut s = Session::new(cfg, vec!["memory-mb".into(), "vcores".into()]).unwrap();
    s.engine_mut().apply(Event::NodeAdded {
        node: 0,
        host: "nm-a".into(),
        rack: "/r".into(),
        capacity: Resources::new(8192, 8),
        labels: vec![],
        attributes: vec![],
    });
    Arc::new(EngineShared::new(s))
}

fn attach(shared: &Arc<EngineShared<Session>>) -> Attachment {
    let c = shared.session.lock().unwrap().engine().config().control.clone();
    listener::attach(&c, shared.clone()).unwrap()
}

fn client(a: &Attachment, secret: &str) -> ControlClient {
    ControlClient::new(a.local_addr().to_string(), secret, Duration::from_secs(5))
}

/// What the JNI `step` does before applying the shim's batch.
fn crossing(shared: &EngineShared<Session>, now_ms: i64) {
    let mut s = shared.session.lock().unwrap();
    shared.inbox.drain_into(s.engine_mut(), now_ms);
}

#[test]
fn state_gauges_and_pushes_reach_the_engine_only_through_the_step_path() {
    let shared = engine(&config("3sigma", 0, "main"));
    let a = attach(&shared);
    let c = client(&a, SECRET);

    let hello = c.call("hello", vec![]).unwrap();
    assert_eq!(hello["policy"], "3sigma");
    assert_eq!(hello["instance"], shared.instance);

    let state = c.call("state", vec![]).unwrap();
    assert_eq!(state["state"]["cluster"]["nodes"], 1);
    assert_eq!(state["nodes"][0]["host"], "nm-a");
    assert!(state["nodes"][0]["load_estimate"].is_null());

    let gauges = c.call("gauges", vec![]).unwrap();
    let names: Vec<&str> = gauges["gauges"].as_array().unwrap().iter().map(|g| g["name"].as_str().unwrap()).collect();
    assert!(names.contains(&"engine_nodes"), "{names:?}");
    assert_eq!(gauges["decision_seconds"]["count"], 0);

    let now = shepherd::control::shared::now_ms();
    let pushed = c
        .call(
            "push",
            vec![
                json!({"kind": "node_load", "host": "nm-a", "memory_mb": 3000.0, "vcores": 2.5, "ttl_ms": 60000}),
                json!({"kind": "node_load", "host": "nm-a", "memory_mb": -5.0, "vcores": 2.5, "ttl_ms": 60000}),
                json!({"kind": "history", "app_id": "application_1_0001", "user": "alice", "name": "wc", "size_ms": 42000.0}),
                json!({"kind": "weather", "rain": true}),
                json!("garbage"),
            ],
        )
        .unwrap();
    assert_eq!(pushed["accepted"], 2, "{pushed}");
    let reasons: Vec<i64> = pushed["rejected"].as_array().unwrap().iter().map(|r| r["index"].as_i64().unwrap()).collect();
    assert_eq!(reasons, vec![1, 3, 4]);

    // Nothing applied yet: the listener never changes the engine.
    let before = c.call("state", vec![]).unwrap();
    assert!(before["nodes"][0]["load_estimate"].is_null());
    assert_eq!(before["state"]["pipelines"][0]["plugins"]["estimate"]["state"]["samples"], 0);
    assert_eq!(before["control"]["inbox"]["pending"], 2);

    crossing(&shared, now);
    let after = c.call("state", vec![]).unwrap();
    assert_eq!(after["nodes"][0]["load_estimate"]["used"][0], 3000);
    assert_eq!(after["nodes"][0]["load_estimate"]["used"][1], 2500);
    assert_eq!(after["state"]["pipelines"][0]["plugins"]["estimate"]["state"]["samples"], 1, "the 3sigma estimator learned the pushed run");
    assert_eq!(after["control"]["inbox"]["applied"], 2);
    assert_eq!(after["control"]["inbox"]["rejected_invalid"], 3);
    // What the sidecar reads: the engine's own types, the same JSON back.
    let typed: StateAnswer = serde_json::from_value(after.clone()).unwrap();
    assert_eq!((typed.nodes[0].host.as_str(), typed.nodes[0].load_estimate_valid, typed.state.cluster.nodes), ("nm-a", true, 1));
    assert_eq!(serde_json::to_value(&typed.state).unwrap(), after["state"]);
    assert_eq!(serde_json::to_value(&typed.nodes).unwrap(), after["nodes"]);
    let typed: GaugesAnswer = serde_json::from_value(c.call("gauges", vec![]).unwrap()).unwrap();
    assert!(typed.gauges.iter().any(|g| g.name == "engine_nodes" && g.value == 1.0));
    assert_eq!(typed.decision_seconds.count, 0, "no crossing through the JNI step here");
    // The same run again is a duplicate, not a second sample.
    let again = c
        .call("push", vec![json!({"kind": "history", "app_id": "application_1_0001", "user": "alice", "name": "wc", "size_ms": 42000.0})])
        .unwrap();
    assert_eq!(again["accepted"], 0);
}

#[test]
fn wrong_secret_bad_json_and_unknown_ops_are_refused() {
    let shared = engine(&config("drf", 0, "auth"));
    let a = attach(&shared);
    let e = client(&a, "not-the-secret-at-all").call("state", vec![]).unwrap_err().to_string();
    assert!(e.contains("unauthorized"), "{e}");
    let e = client(&a, "").call("state", vec![]).unwrap_err().to_string();
    assert!(e.contains("unauthorized"), "{e}");
    let e = client(&a, SECRET).call("reboot", vec![]).unwrap_err().to_string();
    assert!(e.contains("unknown op"), "{e}");

    // Raw bytes that are not JSON: an error line, and the connection stays usable.
    use std::io::{BufRead, BufReader, Write};
    let mut s = std::net::TcpStream::connect(a.local_addr()).unwrap();
    s.write_all(b"{not json\n").unwrap();
    let mut r = BufReader::new(s.try_clone().unwrap());
    let mut line = String::new();
    r.read_line(&mut line).unwrap();
    let v: Value = serde_json::from_str(&line).unwrap();
    assert_eq!(v["ok"], false);
    assert!(v["error"].as_str().unwrap().starts_with("bad request"));
    s.write_all(format!("{}\n", json!({"secret": SECRET, "op": "hello"})).as_bytes()).unwrap();
    line.clear();
    r.read_line(&mut line).unwrap();
    assert_eq!(serde_json::from_str::<Value>(&line).unwrap()["ok"], true);

    let ok = client(&a, SECRET).call("hello", vec![]).unwrap();
    assert_eq!(ok["control"]["listener"]["auth_failures"], 2);
    assert!(ok["control"]["listener"]["bad_requests"].as_u64().unwrap() >= 1);
}

fn panicking(_: &Request, _: &Target, _: &ListenerStats) -> Value {
    panic!("handler bug");
}

#[test]
fn a_panicking_handler_is_answered_counted_and_survived() {
    let shared = engine(&config("drf", 0, "panic"));
    let c = shared.session.lock().unwrap().engine().config().control.clone();
    let a = listener::attach_with(&c, shared.clone(), panicking).unwrap();
    for _ in 0..3 {
        let e = client(&a, SECRET).call("state", vec![]).unwrap_err().to_string();
        assert!(e.contains("panic"), "{e}");
    }
    // The engine's lock is not poisoned: the scheduling path still works.
    assert!(shared.session.lock().is_ok());
    crossing(&shared, 0);
}

#[test]
fn newest_engine_answers_and_the_last_detach_frees_the_port() {
    let port = TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let old = engine(&config("drf", port, "shared"));
    let a_old = attach(&old);
    // A rebuilt engine (or -refreshQueues) attaches before the old one is destroyed.
    let fresh = engine(&config("fifo", port, "shared"));
    let a_fresh = attach(&fresh);
    assert_eq!(a_old.local_addr(), a_fresh.local_addr());
    assert_eq!(client(&a_fresh, SECRET).call("hello", vec![]).unwrap()["instance"], fresh.instance);
    let addr = a_old.local_addr();
    drop(a_fresh);
    assert_eq!(client(&a_old, SECRET).call("hello", vec![]).unwrap()["instance"], old.instance);
    drop(a_old);
    // The thread is gone and the port is free again.
    let c = ControlClient::new(addr.to_string(), SECRET, Duration::from_secs(2));
    assert!(c.call("hello", vec![]).is_err());
    TcpListener::bind(addr).expect("port freed by the last detach");
}

/// The sidecar's side of the channel end to end: it reads the answers as the
/// engine's own types (`StateAnswer`, `GaugesAnswer`), serves the state as
/// the engine sent it and re-exports the gauges.
#[tokio::test]
async fn the_sidecar_reads_the_engines_answers_as_the_engines_types() {
    use shepherd::sidecar::config::SidecarConfig;
    use shepherd::sidecar::{engine_link, metrics, Sidecar};
    let shared = engine(&config("dress", 0, "sidecar"));
    let a = attach(&shared);
    let cfg = format!(
        "[rm]\naddresses = [\"http://127.0.0.1:1\"]\n[control]\naddress = \"{}\"\nsecret_file = \"{}\"\n",
        a.local_addr(),
        secret_file("sidecar")
    );
    let s = Sidecar::new(SidecarConfig::parse(&cfg).unwrap()).unwrap();
    engine_link::exchange(&s).await.unwrap();
    let sent = client(&a, SECRET).call("state", vec![]).unwrap();
    {
        let o = s.read();
        let st = o.engine.state.as_ref().expect("the engine's state");
        assert_eq!((st.policy.as_str(), st.cluster.nodes, st.queues.len()), ("dress", 1, 1));
        assert_eq!(serde_json::to_value(st).unwrap(), sent["state"], "served as the engine sent it");
        assert_eq!(o.engine.nodes.as_ref().unwrap()[0].host, "nm-a");
        assert_eq!(o.engine.instance, Some(shared.instance));
        assert!(o.engine.gauges.iter().any(|g| g.name == "dress_reserve_ratio"));
    }
    let m = metrics::render(&s);
    assert!(m.lines().any(|l| l == "shepherd_engine_nodes 1"), "{m}");
    assert!(m.lines().any(|l| l == "shepherd_sidecar_engine_malformed_responses_total 0"), "{m}");
}
