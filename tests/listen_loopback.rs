//! Nothing in Shepherd listens beyond this host by default (issue 15 item 7).
//!
//! Shepherd opens exactly two listening sockets: the engine's control
//! channel (`[control]` in `shepherd.toml`, a thread in libshepherd.so inside
//! the RM) and the sidecar's HTTP server (`[server] listen` in the sidecar
//! config: `/metrics`, `/api/v1`, the page). The Java shim opens none (its
//! pages are served by the RM's own web app). This test pins all of that:
//! the defaults and the shipped configs are loopback, a non-loopback address
//! is refused unless `allow_remote` says so, the control listener really
//! binds loopback, and no other listening call exists in the sources (a new
//! one fails this test until it is added here with its own check).

use shepherd::bridge::session::Session;
use shepherd::control::listener;
use shepherd::control::EngineShared;
use shepherd::sidecar::config::SidecarConfig;
use shepherd::Config;
use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;

#[test]
fn engine_control_channel_defaults_to_loopback_and_refuses_others_without_allow_remote() {
    for (name, text) in [
        ("built-in defaults", ""),
        ("hadoop-conf/shepherd.toml", include_str!("../hadoop-conf/shepherd.toml")),
        ("hadoop-conf/shepherd-dress.toml", include_str!("../hadoop-conf/shepherd-dress.toml")),
        ("hadoop-conf/shepherd-dress-reserve.toml", include_str!("../hadoop-conf/shepherd-dress-reserve.toml")),
    ] {
        let c = Config::parse(text).unwrap().control;
        assert!(c.ip().is_loopback(), "{name}: control.bind = {}", c.bind);
        assert!(!c.allow_remote, "{name}");
        assert!(!c.enabled, "{name}: the control channel is off unless asked for");
    }
    for addr in ["0.0.0.0", "::", "192.0.2.7", "2001:db8::1"] {
        let e = Config::parse(&format!("[control]\nbind = \"{addr}\"\n")).unwrap_err().to_string();
        assert!(e.contains("control.bind") && e.contains("allow_remote"), "{e}");
        assert!(Config::parse(&format!("[control]\nbind = \"{addr}\"\nallow_remote = true\n")).is_ok());
    }
}

#[test]
fn the_control_listener_binds_loopback_by_default() {
    let dir = std::env::temp_dir().join(format!("shepherd-listen-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let secret = dir.join("secret");
    std::fs::write(&secret, "loopback-test-secret-0123\n").unwrap();
    // Only what enabling requires: the secret, and port 0 so parallel runs
    // do not collide. The address is the default.
    let text = format!("[control]\nenabled = true\nport = 0\nsecret_file = \"{}\"\n", secret.display());
    let session = Session::new(&text, vec!["memory-mb".into(), "vcores".into()]).unwrap();
    let control = session.engine().config().control.clone();
    let shared = Arc::new(EngineShared::new(session));
    let a = listener::attach(&control, shared).unwrap();
    let local: SocketAddr = a.local_addr();
    assert_eq!(local.ip(), IpAddr::from([127, 0, 0, 1]), "control listener bound {local}");
    drop(a);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn sidecar_http_server_defaults_to_loopback_and_refuses_others_without_allow_remote() {
    for (name, text) in
        [("built-in defaults", ""), ("hadoop-conf/shepherd-sidecar.toml", include_str!("../hadoop-conf/shepherd-sidecar.toml"))]
    {
        let c = SidecarConfig::parse(text).unwrap();
        let addr: SocketAddr = c.server.listen.parse().unwrap();
        assert!(addr.ip().is_loopback(), "{name}: server.listen = {addr}");
        assert!(!c.server.allow_remote, "{name}");
    }
    for addr in ["0.0.0.0:9470", "[::]:9470", "192.0.2.7:9470"] {
        let e = SidecarConfig::parse(&format!("[server]\nlisten = \"{addr}\"\n")).unwrap_err().to_string();
        assert!(e.contains("server.listen") && e.contains("allow_remote"), "{e}");
        assert!(SidecarConfig::parse(&format!("[server]\nlisten = \"{addr}\"\nallow_remote = true\n")).is_ok());
    }
}

/// Every place in the sources that opens a listening socket, so a new one
/// cannot appear without a default-address check here.
#[test]
fn no_other_listening_socket_in_the_sources() {
    const KNOWN: &[&str] = &["src/control/listener.rs", "src/sidecar/mod.rs"];
    let patterns = ["TcpListener::bind", "UdpSocket::bind", "UnixListener::bind", "new ServerSocket", "HttpServer.create"];
    let mut found = vec![];
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut stack = vec![root.join("src"), root.join("java-shim/src/main")];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let p = entry.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else if matches!(p.extension().and_then(|e| e.to_str()), Some("rs" | "java")) {
                let text = std::fs::read_to_string(&p).unwrap();
                if patterns.iter().any(|pat| text.contains(pat)) {
                    found.push(p.strip_prefix(root).unwrap().display().to_string());
                }
            }
        }
    }
    found.sort();
    assert_eq!(found, KNOWN, "listening sockets opened outside the checked places");
}
