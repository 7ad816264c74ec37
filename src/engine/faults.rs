//! Test-only fault injection: `scheduler.fault_injection` (`panic-on-schedule`
//! or `error-on-schedule`) makes scheduling calls fail on purpose, and
//! `scheduler.fault_every_n_heartbeats` (N, default 1) makes only every Nth
//! call of an engine fail. Tests set them to prove the shim's guarantee: a
//! failing engine never costs the ResourceManager or a job (the JNI guard
//! turns the fault into a Java exception, the shim schedules with its safe
//! FIFO and rebuilds the engine). Operators keep `fault_injection = "none"`.
//!
//! The count of injected faults is process-wide, not per engine: a panic
//! poisons the engine that raised it and the shim replaces that engine, so
//! a per-engine count would vanish with the engine it describes.

use super::EngineError;
use crate::config::SchedulerConfig;
use std::sync::atomic::{AtomicU64, Ordering};

static INJECTED: AtomicU64 = AtomicU64::new(0);

/// Faults injected by every engine of this process since it started.
pub fn injected_total() -> u64 {
    INJECTED.load(Ordering::Relaxed)
}

/// Called at the start of each scheduling call with the engine's count of
/// such calls (`calls`, incremented here): fails the call when the config
/// asks for a fault and this is the Nth, 2Nth, ... call.
pub(super) fn before_schedule(cfg: &SchedulerConfig, calls: &mut u64) -> Result<(), EngineError> {
    if cfg.fault_injection == "none" {
        return Ok(());
    }
    *calls += 1;
    let every = u64::from(cfg.fault_every_n_heartbeats.max(1));
    if !(*calls).is_multiple_of(every) {
        return Ok(());
    }
    INJECTED.fetch_add(1, Ordering::Relaxed);
    match cfg.fault_injection.as_str() {
        "panic-on-schedule" => {
            panic!("engine fault injected by scheduler.fault_injection = panic-on-schedule (scheduling call {calls}, every {every})")
        }
        _ => Err(EngineError::InjectedFault),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg(mode: &str, every: u32) -> SchedulerConfig {
        SchedulerConfig { fault_injection: mode.into(), fault_every_n_heartbeats: every, ..Default::default() }
    }

    #[test]
    fn every_nth_call_fails_and_is_counted() {
        let c = cfg("error-on-schedule", 3);
        let mut calls = 0;
        let before = injected_total();
        let failed: Vec<bool> = (0..9).map(|_| before_schedule(&c, &mut calls).is_err()).collect();
        assert_eq!(failed, [false, false, true, false, false, true, false, false, true]);
        // Other tests may inject concurrently: at least our three.
        assert!(injected_total() >= before + 3);
    }

    #[test]
    fn none_never_fails_and_panic_mode_panics_on_the_nth() {
        let mut calls = 0;
        assert!((0..10).all(|_| before_schedule(&cfg("none", 1), &mut calls).is_ok()));
        let c = cfg("panic-on-schedule", 2);
        let mut calls = 0;
        assert!(before_schedule(&c, &mut calls).is_ok());
        let r = std::panic::catch_unwind(move || {
            let mut calls = calls;
            let _ = before_schedule(&c, &mut calls);
        });
        assert!(r.is_err());
    }
}
