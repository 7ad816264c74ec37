//! The sidecar's RM side on recorded responses of a real ResourceManager
//! (`tests/fixtures/rm/`, see its README), including truncated and
//! malformed ones, and RM HA: a standby and an active RM played by local
//! HTTP servers that answer with those recordings.

use shepherd::sidecar::config::SidecarConfig;
use shepherd::sidecar::rm::client::{FetchError, RmClient};
use shepherd::sidecar::rm::model::{self, Malformed};
use shepherd::sidecar::rm::poller::poll_once;
use shepherd::sidecar::Sidecar;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

fn fixture(name: &str) -> Vec<u8> {
    std::fs::read(format!("{}/tests/fixtures/rm/{name}", env!("CARGO_MANIFEST_DIR"))).unwrap()
}

#[test]
fn recorded_responses_parse() {
    let info = model::parse_info(&fixture("info.json")).unwrap();
    assert_eq!((info.ha_state.as_str(), info.state.as_str(), info.resource_manager_version.as_str()), ("ACTIVE", "STARTED", "3.4.3"));
    let m = model::parse_metrics(&fixture("metrics.json")).unwrap();
    assert_eq!((m.total_mb, m.apps_completed, m.active_nodes, m.total_virtual_cores), (8192, 4, 2, 8));
    let apps = model::parse_apps(&fixture("apps.json")).unwrap();
    assert_eq!(apps.len(), 4);
    let carol = apps.iter().find(|a| a.id == "application_1795417010012_0004").unwrap();
    assert_eq!((carol.user.as_str(), carol.queue.as_str(), carol.state.as_str()), ("carol", "root.alpha", "FINISHED"));
    assert_eq!((carol.vcore_seconds, carol.memory_seconds), (171, 109971));
    assert!(carol.is_finished() && !carol.awaiting_am());
    let nodes = model::parse_nodes(&fixture("nodes.json")).unwrap();
    assert_eq!(nodes.len(), 2);
    assert_eq!(nodes[0].node_host_name, "localhost");
    assert_eq!(nodes[0].used_memory_mb + nodes[0].avail_memory_mb, 4096);
    assert!(nodes[0].resource_utilization.is_some());
    let s = model::parse_scheduler(&fixture("scheduler.json")).unwrap();
    assert_eq!(s.kind, "fifoScheduler");
    assert!(s.queues.is_empty(), "Shepherd shows as a FIFO-type scheduler; queues come from the engine");
    let shim = model::parse_shim_jmx(&fixture("jmx-shepherd.json")).unwrap().unwrap();
    assert_eq!((shim.engine_allocations, shim.engine_failures, shim.crossings), (23.0, 0.0, 303.0));
    assert_eq!(model::parse_shim_jmx(br#"{"beans": []}"#).unwrap(), None, "another scheduler: no bean");
    // Recorded before the shim counted rounds and recoveries: zero, not an error.
    assert_eq!((shim.async_rounds, shim.async_allocations, shim.recovered_containers), (0.0, 0.0, 0.0));
}

/// The shim's counters of scheduling between heartbeats, from a real RM's
/// `/jmx` (`AsyncSchedulingTest`'s), reach the sidecar's `/metrics`.
#[test]
fn rounds_between_heartbeats_are_relayed() {
    let shim = model::parse_shim_jmx(&fixture("jmx-shepherd-async.json")).unwrap().unwrap();
    assert_eq!((shim.async_rounds, shim.async_allocations, shim.engine_allocations), (1614.0, 8.0, 8.0));
    let s = sidecar_for(&["http://127.0.0.1:1".to_string()]);
    s.write().rm.shim = Some(shim);
    let m = shepherd::sidecar::metrics::render(&s);
    for line in
        ["shepherd_jni_async_rounds_total 1614", "shepherd_jni_async_allocations_total 8", "shepherd_jni_recovered_containers_total 0"]
    {
        assert!(m.lines().any(|l| l == line), "{line} in\n{m}");
    }
}

#[test]
fn truncated_and_malformed_responses_are_errors_not_crashes() {
    let endpoint = |e: Malformed| e.endpoint;
    assert_eq!(model::parse_apps(&fixture("apps-truncated.json")).map_err(endpoint), Err("apps"));
    assert_eq!(model::parse_nodes(&fixture("nodes-truncated.json")).map_err(endpoint), Err("nodes"));
    assert!(model::parse_apps(&fixture("apps-not-a-list.json")).unwrap_err().reason.contains("not a list"));
    assert!(model::parse_metrics(&fixture("metrics-wrong-type.json")).unwrap_err().reason.contains("invalid type"));
    assert!(model::parse_info(&fixture("info-html.txt")).is_err());
    assert!(model::parse_info(b"{}").unwrap_err().reason.contains("clusterInfo"));
    assert!(model::parse_scheduler(br#"{"scheduler": {"schedulerInfo": 5}}"#).is_err());
    assert!(model::parse_apps(b"").is_err());
    // The RM's own shapes for "nothing": empty lists, not errors.
    assert!(model::parse_apps(&fixture("apps-none.json")).unwrap().is_empty());
    assert!(model::parse_nodes(br#"{"nodes": null}"#).unwrap().is_empty());
    assert!(model::parse_apps(br#"{"apps": {}}"#).unwrap().is_empty());
    // Missing fields take defaults (RM versions differ).
    let a = model::parse_apps(br#"{"apps": {"app": [{"id": "application_1_0001"}]}}"#).unwrap();
    assert_eq!((a[0].id.as_str(), a[0].allocated_mb), ("application_1_0001", 0));
}

/// A local HTTP server answering RM paths with recorded bodies; `role` says
/// whether it is the active RM (0) or a standby (1) that redirects to `peer`.
async fn fake_rm(role: Arc<AtomicUsize>, peer: Arc<std::sync::Mutex<String>>, apps: &'static str) -> String {
    use axum::extract::{Request, State};
    use axum::http::{header, StatusCode};
    use axum::response::{IntoResponse, Response};
    type St = (Arc<AtomicUsize>, Arc<std::sync::Mutex<String>>, &'static str);
    async fn serve(State((role, peer, apps)): State<St>, req: Request) -> Response {
        let path = req.uri().path().to_string();
        let standby = role.load(Ordering::SeqCst) == 1;
        if path == "/ws/v1/cluster/info" {
            let f = if standby { "info-standby.json" } else { "info.json" };
            return (StatusCode::OK, fixture(f)).into_response();
        }
        if standby {
            let to = format!("{}{path}", peer.lock().unwrap());
            let body = String::from_utf8(fixture("standby-redirect.txt")).unwrap().replace("http://ACTIVE", &to);
            return (StatusCode::TEMPORARY_REDIRECT, [(header::LOCATION, to)], body).into_response();
        }
        let f = match path.as_str() {
            "/ws/v1/cluster/metrics" => "metrics.json",
            "/ws/v1/cluster/apps" => apps,
            "/ws/v1/cluster/nodes" => "nodes.json",
            "/ws/v1/cluster/scheduler" => "scheduler.json",
            "/jmx" => "jmx-shepherd.json",
            _ => return StatusCode::NOT_FOUND.into_response(),
        };
        (StatusCode::OK, fixture(f)).into_response()
    }
    let app = axum::Router::new().fallback(serve).with_state((role, peer, apps));
    let l = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = format!("http://{}", l.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(l, app).await.unwrap() });
    addr
}

fn sidecar_for(addresses: &[String]) -> Sidecar {
    let list: Vec<String> = addresses.iter().map(|a| format!("\"{a}\"")).collect();
    let cfg = SidecarConfig::parse(&format!("[rm]\naddresses = [{}]\ntimeout_ms = 2000\n", list.join(", "))).unwrap();
    Sidecar::new(cfg).unwrap()
}

#[tokio::test]
async fn follows_the_active_rm_across_a_failover() {
    let (role_a, role_b) = (Arc::new(AtomicUsize::new(1)), Arc::new(AtomicUsize::new(0)));
    let (peer_a, peer_b) = (Arc::new(std::sync::Mutex::new(String::new())), Arc::new(std::sync::Mutex::new(String::new())));
    let a = fake_rm(role_a.clone(), peer_a.clone(), "apps.json").await;
    let b = fake_rm(role_b.clone(), peer_b.clone(), "apps.json").await;
    *peer_a.lock().unwrap() = b.clone();
    *peer_b.lock().unwrap() = a.clone();

    let s = sidecar_for(&[a.clone(), b.clone()]);
    poll_once(&s).await.unwrap();
    assert_eq!(s.read().rm.active_address, format!("{b}/"), "a is standby: b is followed");
    assert_eq!(s.read().rm.apps.len(), 4);
    let m = shepherd::sidecar::metrics::render(&s);
    assert!(m.contains(r#"shepherd_sidecar_rm_request_errors_total{endpoint="info",kind="standby"} 1"#), "{m}");

    // Failover: b turns standby (it now redirects), a turns active.
    role_b.store(1, Ordering::SeqCst);
    role_a.store(0, Ordering::SeqCst);
    // A request to the (now standby) b is a redirect: reported as Standby, never followed blindly.
    assert!(matches!(s.rm.fetch("ws/v1/cluster/apps").await, Err(FetchError::Standby { .. })));
    poll_once(&s).await.unwrap();
    assert_eq!(s.read().rm.active_address, format!("{a}/"));
    let m = shepherd::sidecar::metrics::render(&s);
    assert!(m.contains("shepherd_sidecar_rm_failovers_total 1"), "{m}");
    let active: Vec<&str> = m.lines().filter(|l| l.starts_with("shepherd_sidecar_rm_active{")).collect();
    assert_eq!(active.len(), 1, "{m}");
    assert!(
        active[0].contains(&format!(r#"address="{a}/""#)) && active[0].contains(r#"ha_state="ACTIVE""#) && active[0].ends_with(" 1"),
        "{m}"
    );
}

#[tokio::test]
async fn a_truncated_response_is_counted_and_the_last_good_data_kept() {
    let role = Arc::new(AtomicUsize::new(0));
    let peer = Arc::new(std::sync::Mutex::new(String::new()));
    let good = fake_rm(role.clone(), peer.clone(), "apps.json").await;
    let bad = fake_rm(role, peer, "apps-truncated.json").await;
    let s = sidecar_for(&[good]);
    poll_once(&s).await.unwrap();
    assert_eq!(s.read().rm.apps.len(), 4);
    let ok_at = s.read().rm.last_success_ms;

    // Same sidecar state, now reading from an RM whose apps response is cut off.
    let s2 = Sidecar { rm: RmClient::new(&sidecar_for(&[bad]).config.rm).unwrap(), ..s };
    let e = poll_once(&s2).await.unwrap_err();
    assert!(matches!(e, FetchError::Malformed(_)), "{e}");
    let o = s2.read();
    assert_eq!(o.rm.apps.len(), 4, "the last good app list is still served");
    assert_eq!(o.rm.last_success_ms, ok_at, "a failed poll does not refresh the data");
    assert_eq!(o.rm.nodes.len(), 2, "what did parse is stored");
    drop(o);
    let m = shepherd::sidecar::metrics::render(&s2);
    assert!(m.contains(r#"shepherd_sidecar_rm_malformed_responses_total{endpoint="apps"} 1"#), "{m}");
}

#[tokio::test]
async fn an_unreachable_rm_is_an_error_with_its_address() {
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let s = sidecar_for(&[format!("http://127.0.0.1:{port}")]);
    let e = poll_once(&s).await.unwrap_err();
    assert!(matches!(e, FetchError::Unreachable { .. }), "{e}");
    assert!(e.to_string().contains(&port.to_string()), "{e}");
    assert!(shepherd::sidecar::metrics::render(&s).contains("shepherd_sidecar_rm_stale 1"));
}
