//! Inputs pushed over the control channel, waiting for the next JNI
//! crossing. The listener thread only appends here; the `step` path drains
//! the inbox into the engine, so the engine is only ever changed by events
//! applied on the scheduling path.

use super::inputs;
use super::protocol::SlowInput;
use crate::engine::{Engine, Event};
use serde::Serialize;
use std::collections::{HashSet, VecDeque};
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::Mutex;

/// Application ids of history samples remembered to refuse duplicates; the
/// oldest are forgotten beyond this many.
const REMEMBERED_HISTORY_IDS: usize = 100_000;

#[derive(Debug, Default)]
pub struct InboxCounters {
    pub accepted: AtomicU64,
    pub applied: AtomicU64,
    pub rejected_invalid: AtomicU64,
    pub dropped_stale: AtomicU64,
    pub dropped_full: AtomicU64,
    pub duplicates: AtomicU64,
}

#[derive(Debug, Clone, Copy, Serialize, PartialEq, Eq)]
pub struct InboxSnapshot {
    pub accepted: u64,
    pub applied: u64,
    pub rejected_invalid: u64,
    pub dropped_stale: u64,
    pub dropped_full: u64,
    pub duplicates: u64,
    pub pending: u64,
}

#[derive(Default)]
struct Queued {
    events: VecDeque<Event>,
    history_ids: HashSet<String>,
    history_order: VecDeque<String>,
}

pub struct Inbox {
    queued: Mutex<Queued>,
    capacity: usize,
    max_ttl_ms: i64,
    pub counters: InboxCounters,
}

impl Inbox {
    pub fn new(capacity: usize, max_ttl_ms: i64) -> Inbox {
        Inbox { queued: Mutex::new(Queued::default()), capacity, max_ttl_ms, counters: InboxCounters::default() }
    }

    /// Queue one input received at `now_ms`, or say why it was refused.
    pub fn push(&self, input: &SlowInput, now_ms: i64) -> Result<(), String> {
        let c = &self.counters;
        let event = inputs::to_event(input, now_ms, self.max_ttl_ms).inspect_err(|_| {
            c.rejected_invalid.fetch_add(1, Relaxed);
        })?;
        let mut q = self.queued.lock().unwrap_or_else(|p| p.into_inner());
        if let Event::HistorySample { app_id, .. } = &event {
            if q.history_ids.contains(app_id) {
                c.duplicates.fetch_add(1, Relaxed);
                return Err(format!("history of {app_id} was already received"));
            }
        }
        if q.events.len() >= self.capacity {
            c.dropped_full.fetch_add(1, Relaxed);
            return Err(format!("inbox full ({} inputs wait for the next heartbeat)", self.capacity));
        }
        if let Event::HistorySample { app_id, .. } = &event {
            q.history_ids.insert(app_id.clone());
            q.history_order.push_back(app_id.clone());
            if q.history_order.len() > REMEMBERED_HISTORY_IDS {
                if let Some(old) = q.history_order.pop_front() {
                    q.history_ids.remove(&old);
                }
            }
        }
        q.events.push_back(event);
        c.accepted.fetch_add(1, Relaxed);
        Ok(())
    }

    /// Apply every queued input to `engine` (oldest first), dropping those
    /// whose time-to-live ran out before this crossing at `now_ms`.
    pub fn drain_into(&self, engine: &mut Engine, now_ms: i64) {
        let events: Vec<Event> = {
            let mut q = self.queued.lock().unwrap_or_else(|p| p.into_inner());
            if q.events.is_empty() {
                return;
            }
            q.events.drain(..).collect()
        };
        for e in events {
            if matches!(e, Event::NodeLoadEstimate { expires_ms, .. } if expires_ms < now_ms) {
                self.counters.dropped_stale.fetch_add(1, Relaxed);
                continue;
            }
            engine.apply(e);
            self.counters.applied.fetch_add(1, Relaxed);
        }
    }

    pub fn snapshot(&self) -> InboxSnapshot {
        let c = &self.counters;
        let pending = self.queued.lock().map(|q| q.events.len() as u64).unwrap_or(0);
        InboxSnapshot {
            accepted: c.accepted.load(Relaxed),
            applied: c.applied.load(Relaxed),
            rejected_invalid: c.rejected_invalid.load(Relaxed),
            dropped_stale: c.dropped_stale.load(Relaxed),
            dropped_full: c.dropped_full.load(Relaxed),
            duplicates: c.duplicates.load(Relaxed),
            pending,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Resources;
    use crate::Config;

    fn engine_with_node() -> Engine {
        let mut e = Engine::with_config(Config::default()).unwrap();
        e.apply(Event::NodeAdded {
            node: 0,
            host: "h".into(),
            rack: "/r".into(),
            capacity: Resources::new(4096, 4),
            labels: vec![],
            attributes: vec![],
        });
        e
    }

    #[test]
    fn nothing_changes_until_drained_and_stale_inputs_are_dropped() {
        let mut e = engine_with_node();
        let inbox = Inbox::new(10, 60_000);
        let load = |ttl| SlowInput::NodeLoad { host: "h".into(), memory_mb: 100.0, vcores: 0.5, ttl_ms: ttl };
        inbox.push(&load(1_000), 10_000).unwrap();
        assert!(e.state().nodes[&0].load_estimate.is_none(), "the listener never touches the engine");
        inbox.drain_into(&mut e, 10_500);
        assert_eq!(e.state().nodes[&0].load_estimate_at(10_500), Some(Resources::new(100, 500)));
        // Received at 20 s with a 1 s TTL, but the next crossing is at 25 s.
        inbox.push(&load(1_000), 20_000).unwrap();
        inbox.drain_into(&mut e, 25_000);
        let s = inbox.snapshot();
        assert_eq!((s.accepted, s.applied, s.dropped_stale, s.pending), (2, 1, 1, 0));
        assert_eq!(e.state().nodes[&0].load_estimate_at(25_000), None);
    }

    #[test]
    fn invalid_full_and_duplicate_inputs_are_counted() {
        let inbox = Inbox::new(2, 60_000);
        let hist = |id: &str| SlowInput::History { app_id: id.into(), user: "u".into(), name: "n".into(), size_ms: 10.0 };
        assert!(inbox.push(&hist("nope"), 0).is_err());
        inbox.push(&hist("application_1_0001"), 0).unwrap();
        assert!(inbox.push(&hist("application_1_0001"), 0).unwrap_err().contains("already"));
        inbox.push(&hist("application_1_0002"), 0).unwrap();
        assert!(inbox.push(&hist("application_1_0003"), 0).unwrap_err().contains("full"));
        let s = inbox.snapshot();
        assert_eq!((s.accepted, s.rejected_invalid, s.duplicates, s.dropped_full, s.pending), (2, 1, 1, 1, 2));
    }
}
