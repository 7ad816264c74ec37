//! The control listener: a plain thread in the engine's library (no async
//! runtime inside the RM), one per listening address.
//!
//! Several engines can exist in one JVM for a moment: `-refreshQueues` and
//! the rebuild after a failure create the new engine before destroying the
//! old one, and both are configured with the same port. So listeners are
//! shared: an engine *attaches* to the listener of its address (starting it
//! if needed), requests go to the newest attached engine, and when the last
//! engine detaches (`NativeEngine.destroy`) the thread stops and the port is
//! freed.
//!
//! Nothing here may take the RM down: every connection runs in its own
//! thread under `catch_unwind`, and so does every request; panics are
//! counted and answered with an error.

use super::protocol::{Request, MAX_REQUEST_BYTES};
use super::secret::Secret;
use super::shared::EngineShared;
use crate::config::ControlConfig;
use serde::Serialize;
use serde_json::{json, Value};
use std::io::{BufRead, BufReader, ErrorKind, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// Connections served at once; more are closed at once (the sidecar needs one).
const MAX_CONNECTIONS: usize = 8;
/// How often blocked threads look at the stop flag: bounds how long
/// `NativeEngine.destroy` waits for the listener to go away.
const POLL: Duration = Duration::from_millis(100);
/// A connection without a request for this long is closed.
const IDLE: Duration = Duration::from_secs(60);

/// What a request is answered with: `handler::handle` in production; tests
/// substitute their own (e.g. one that panics).
pub type Handler = fn(&Request, &Target, &ListenerStats) -> Value;

/// One engine attached to a listener, with the secret its config named.
pub struct Target {
    pub instance: u64,
    pub secret: Secret,
    pub shared: Arc<EngineShared>,
}

#[derive(Debug, Default)]
pub struct ListenerStats {
    pub connections: AtomicU64,
    pub refused_connections: AtomicU64,
    pub requests: AtomicU64,
    pub bad_requests: AtomicU64,
    pub auth_failures: AtomicU64,
    pub panics: AtomicU64,
}

#[derive(Debug, Clone, Copy, Serialize)]
pub struct ListenerSnapshot {
    pub connections: u64,
    pub refused_connections: u64,
    pub requests: u64,
    pub bad_requests: u64,
    pub auth_failures: u64,
    pub panics: u64,
}

impl ListenerStats {
    pub fn snapshot(&self) -> ListenerSnapshot {
        ListenerSnapshot {
            connections: self.connections.load(Relaxed),
            refused_connections: self.refused_connections.load(Relaxed),
            requests: self.requests.load(Relaxed),
            bad_requests: self.bad_requests.load(Relaxed),
            auth_failures: self.auth_failures.load(Relaxed),
            panics: self.panics.load(Relaxed),
        }
    }
}

type Targets = Arc<Mutex<Vec<Arc<Target>>>>;

struct Listener {
    /// The configured address (port 0 = a private listener per engine).
    requested: SocketAddr,
    local: SocketAddr,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
    targets: Targets,
}

static LISTENERS: Mutex<Vec<Listener>> = Mutex::new(Vec::new());

fn listeners() -> std::sync::MutexGuard<'static, Vec<Listener>> {
    LISTENERS.lock().unwrap_or_else(|p| p.into_inner())
}

/// An engine's place on a listener; dropping it detaches the engine and, if
/// it was the last, stops the thread and frees the port.
pub struct Attachment {
    local: SocketAddr,
    instance: u64,
}

impl Attachment {
    /// The address the listener is bound to (the real port when 0 was configured).
    pub fn local_addr(&self) -> SocketAddr {
        self.local
    }
}

impl Drop for Attachment {
    fn drop(&mut self) {
        let stopped = {
            let mut all = listeners();
            let Some(i) = all.iter().position(|l| l.local == self.local) else { return };
            let mut targets = all[i].targets.lock().unwrap_or_else(|p| p.into_inner());
            targets.retain(|t| t.instance != self.instance);
            let empty = targets.is_empty();
            drop(targets);
            if empty {
                Some(all.remove(i))
            } else {
                None
            }
        };
        // Joined outside the registry's lock: other engines may attach meanwhile.
        if let Some(mut l) = stopped {
            l.stop.store(true, Relaxed);
            if let Some(t) = l.thread.take() {
                let _ = t.join();
            }
        }
    }
}

/// Attach `shared` to the listener `config` names, starting it if needed.
pub fn attach(config: &ControlConfig, shared: Arc<EngineShared>) -> Result<Attachment, String> {
    attach_with(config, shared, super::handler::handle)
}

pub fn attach_with(config: &ControlConfig, shared: Arc<EngineShared>, handler: Handler) -> Result<Attachment, String> {
    let secret = Secret::read(std::path::Path::new(&config.secret_file), "control.secret_file")?;
    let requested = SocketAddr::new(config.ip(), config.port);
    let instance = shared.instance;
    let target = Arc::new(Target { instance, secret, shared });
    let mut all = listeners();
    if config.port != 0 {
        if let Some(l) = all.iter().find(|l| l.requested == requested) {
            l.targets.lock().unwrap_or_else(|p| p.into_inner()).push(target);
            return Ok(Attachment { local: l.local, instance });
        }
    }
    let socket = TcpListener::bind(requested)
        .map_err(|e| format!("control channel cannot listen on {requested} (control.bind, control.port): {e}"))?;
    socket.set_nonblocking(true).map_err(|e| format!("control channel on {requested}: {e}"))?;
    let local = socket.local_addr().map_err(|e| e.to_string())?;
    let stop = Arc::new(AtomicBool::new(false));
    let targets: Targets = Arc::new(Mutex::new(vec![target]));
    let stats = Arc::new(ListenerStats::default());
    let thread = {
        let (stop, targets) = (stop.clone(), targets.clone());
        std::thread::Builder::new()
            .name(format!("shepherd-control-{}", local.port()))
            .spawn(move || {
                let run = catch_unwind(AssertUnwindSafe(|| accept_loop(&socket, &stop, &targets, &stats, handler)));
                if run.is_err() {
                    stats.panics.fetch_add(1, Relaxed);
                }
            })
            .map_err(|e| format!("control channel thread: {e}"))?
    };
    all.push(Listener { requested, local, stop, thread: Some(thread), targets });
    tracing::info!(%local, "Shepherd control channel listening");
    Ok(Attachment { local, instance })
}

fn accept_loop(socket: &TcpListener, stop: &Arc<AtomicBool>, targets: &Targets, stats: &Arc<ListenerStats>, handler: Handler) {
    let mut workers: Vec<JoinHandle<()>> = Vec::new();
    while !stop.load(Relaxed) {
        match socket.accept() {
            Ok((stream, _peer)) => {
                workers.retain(|w| !w.is_finished());
                if workers.len() >= MAX_CONNECTIONS {
                    stats.refused_connections.fetch_add(1, Relaxed);
                    continue; // dropping the stream closes it
                }
                stats.connections.fetch_add(1, Relaxed);
                let (stop, targets, stats2) = (stop.clone(), targets.clone(), stats.clone());
                let spawned = std::thread::Builder::new().name("shepherd-control-conn".into()).spawn(move || {
                    let run = catch_unwind(AssertUnwindSafe(|| serve(stream, &stop, &targets, &stats2, handler)));
                    if run.is_err() {
                        stats2.panics.fetch_add(1, Relaxed);
                    }
                });
                if let Ok(w) = spawned {
                    workers.push(w);
                }
            }
            Err(e) if e.kind() == ErrorKind::WouldBlock => std::thread::sleep(POLL / 2),
            Err(_) => std::thread::sleep(POLL),
        }
    }
    for w in workers {
        let _ = w.join();
    }
}

fn error(msg: impl Into<String>) -> Value {
    json!({"ok": false, "error": msg.into()})
}

fn write_line(stream: &mut TcpStream, v: &Value) -> std::io::Result<()> {
    let mut text = serde_json::to_vec(v).unwrap_or_else(|_| b"{\"ok\":false}".to_vec());
    text.push(b'\n');
    stream.write_all(&text)?;
    stream.flush()
}

/// One connection: read request lines until the peer closes, idles, sends
/// the wrong secret, or the listener stops.
fn serve(stream: TcpStream, stop: &AtomicBool, targets: &Targets, stats: &ListenerStats, handler: Handler) {
    let _ = stream.set_nonblocking(false);
    let _ = stream.set_read_timeout(Some(POLL));
    let _ = stream.set_write_timeout(Some(Duration::from_secs(10)));
    let Ok(mut out) = stream.try_clone() else { return };
    let mut reader = BufReader::new(stream);
    let mut line = Vec::new();
    let mut last = Instant::now();
    while !stop.load(Relaxed) {
        match reader.by_ref().take((MAX_REQUEST_BYTES + 1 - line.len()) as u64).read_until(b'\n', &mut line) {
            Ok(0) if line.is_empty() => return, // peer closed
            Ok(_) if !line.ends_with(b"\n") && line.len() <= MAX_REQUEST_BYTES => {
                // EOF inside a request: answer it anyway, then close.
                let _ = answer(&line, &mut out, targets, stats, handler);
                return;
            }
            Ok(_) => {
                if line.len() > MAX_REQUEST_BYTES {
                    stats.bad_requests.fetch_add(1, Relaxed);
                    let _ = write_line(&mut out, &error(format!("request longer than {MAX_REQUEST_BYTES} bytes")));
                    return;
                }
                let keep = answer(&line, &mut out, targets, stats, handler);
                line.clear();
                last = Instant::now();
                if !keep {
                    return;
                }
            }
            Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => {
                if last.elapsed() > IDLE {
                    return;
                }
            }
            Err(_) => return,
        }
    }
}

/// Answer one request line; false when the connection must close.
fn answer(line: &[u8], out: &mut TcpStream, targets: &Targets, stats: &ListenerStats, handler: Handler) -> bool {
    stats.requests.fetch_add(1, Relaxed);
    let req: Request = match serde_json::from_slice(line) {
        Ok(r) => r,
        Err(e) => {
            stats.bad_requests.fetch_add(1, Relaxed);
            return write_line(out, &error(format!("bad request: {e}"))).is_ok();
        }
    };
    let Some(target) = targets.lock().unwrap_or_else(|p| p.into_inner()).last().cloned() else {
        // Answer, then close the connection: there is nothing to talk to.
        let _ = write_line(out, &error("no engine is attached"));
        return false;
    };
    if !target.secret.matches(&req.secret) {
        stats.auth_failures.fetch_add(1, Relaxed);
        let _ = write_line(out, &error("unauthorized: wrong or missing secret"));
        return false;
    }
    let reply = match catch_unwind(AssertUnwindSafe(|| handler(&req, &target, stats))) {
        Ok(v) => v,
        Err(_) => {
            stats.panics.fetch_add(1, Relaxed);
            error("internal error in the control channel (a panic, counted; the engine is unaffected)")
        }
    };
    write_line(out, &reply).is_ok()
}
