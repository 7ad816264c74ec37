//! What the JNI handle and the control listener share: the engine's driver
//! behind its lock, the inbox of pushed inputs and the decision timing.

use super::inbox::Inbox;
use super::timing::DecisionTiming;
use crate::engine::Engine;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

static NEXT_INSTANCE: AtomicU64 = AtomicU64::new(1);

/// Whoever drives the engine (the JNI session) as the control channel sees
/// it: something that owns an engine. The driver hands itself to `control`
/// behind this trait, so `control` does not depend on the driver's module.
pub trait EngineDriver: Send {
    fn engine(&self) -> &Engine;
}

/// `D` is the driver's concrete type where it is known (the JNI handle
/// steps a `bridge::session::Session`); the listener and the handlers see
/// `EngineShared<dyn EngineDriver>`, the default.
pub struct EngineShared<D: ?Sized + EngineDriver = dyn EngineDriver> {
    pub inbox: Inbox,
    pub timing: DecisionTiming,
    /// Distinct for every engine this process builds: tells the sidecar that
    /// the RM built a new engine (restart, queue refresh, rebuild).
    pub instance: u64,
    /// Wall-clock ms when this engine was built.
    pub started_ms: i64,
    /// Last, so `EngineShared<Session>` coerces to `EngineShared<dyn EngineDriver>`.
    pub session: Mutex<D>,
}

impl<D: EngineDriver> EngineShared<D> {
    pub fn new(session: D) -> EngineShared<D> {
        let c = &session.engine().config().control;
        let inbox = Inbox::new(c.max_pending_inputs, c.max_ttl_ms);
        EngineShared {
            session: Mutex::new(session),
            inbox,
            timing: DecisionTiming::default(),
            instance: NEXT_INSTANCE.fetch_add(1, Ordering::Relaxed),
            started_ms: now_ms(),
        }
    }
}

pub fn now_ms() -> i64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_millis() as i64).unwrap_or(0)
}
