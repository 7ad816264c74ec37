//! Pushed inputs → engine events, with validation. What those events do to
//! the cluster state is the engine's (`Engine::apply`).

use super::protocol::SlowInput;
use crate::engine::Event;
use crate::model::Resources;

/// Largest plausible node: 1 PiB of memory, a million vcores. Beyond that an
/// input is garbage, not an estimate.
const MAX_MEMORY_MB: f64 = 1e9;
const MAX_VCORES: f64 = 1e6;

/// Turn a pushed input into the event the engine will see, or say why not.
/// `now_ms` is when the engine received it; the TTL counts from there.
pub fn to_event(input: &SlowInput, now_ms: i64, max_ttl_ms: i64) -> Result<Event, String> {
    match input {
        SlowInput::NodeLoad { host, memory_mb, vcores, ttl_ms } => {
            if host.trim().is_empty() || host.len() > 255 {
                return Err("host must be a non-empty name of at most 255 bytes".into());
            }
            if !(memory_mb.is_finite() && (0.0..=MAX_MEMORY_MB).contains(memory_mb)) {
                return Err(format!("memory_mb {memory_mb} is not a plausible amount"));
            }
            if !(vcores.is_finite() && (0.0..=MAX_VCORES).contains(vcores)) {
                return Err(format!("vcores {vcores} is not a plausible amount"));
            }
            if *ttl_ms <= 0 || *ttl_ms > max_ttl_ms {
                return Err(format!("ttl_ms {ttl_ms} must be within (0, {max_ttl_ms}]"));
            }
            Ok(Event::NodeLoadEstimate {
                host: host.clone(),
                // Units of NodeUtilization: memory MB, vcores in millis.
                used: Resources::new(memory_mb.round() as i64, (vcores * 1000.0).round() as i64),
                expires_ms: now_ms.saturating_add(*ttl_ms),
            })
        }
        SlowInput::History { app_id, user, name, size_ms } => {
            if !app_id.starts_with("application_") {
                return Err(format!("app_id `{app_id}` is not a YARN application id"));
            }
            if user.is_empty() {
                return Err("user must not be empty".into());
            }
            if !(size_ms.is_finite() && *size_ms > 0.0 && *size_ms < 1e15) {
                return Err(format!("size_ms {size_ms} must be a positive number of container-ms"));
            }
            Ok(Event::HistorySample { app_id: app_id.clone(), user: user.clone(), name: name.clone(), size_ms: size_ms.round() as i64 })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Config, Engine};

    fn load(host: &str, mem: f64, ttl: i64) -> SlowInput {
        SlowInput::NodeLoad { host: host.into(), memory_mb: mem, vcores: 1.5, ttl_ms: ttl }
    }

    #[test]
    fn garbage_is_refused_with_a_reason() {
        assert!(to_event(&load("", 1.0, 10), 0, 100).unwrap_err().contains("host"));
        assert!(to_event(&load("h", f64::NAN, 10), 0, 100).unwrap_err().contains("memory_mb"));
        assert!(to_event(&load("h", -1.0, 10), 0, 100).unwrap_err().contains("memory_mb"));
        assert!(to_event(&load("h", 1.0, 0), 0, 100).unwrap_err().contains("ttl_ms"));
        assert!(to_event(&load("h", 1.0, 101), 0, 100).unwrap_err().contains("ttl_ms"));
        let h = SlowInput::History { app_id: "job_1".into(), user: "u".into(), name: "n".into(), size_ms: 5.0 };
        assert!(to_event(&h, 0, 100).unwrap_err().contains("app_id"));
        let h = SlowInput::History { app_id: "application_1_1".into(), user: "u".into(), name: "n".into(), size_ms: 0.0 };
        assert!(to_event(&h, 0, 100).unwrap_err().contains("size_ms"));
    }

    #[test]
    fn estimate_lands_on_the_node_by_host_and_expires() {
        let mut e = Engine::with_config(Config::default()).unwrap();
        e.apply(Event::NodeAdded {
            node: 7,
            host: "nm-a".into(),
            rack: "/r".into(),
            capacity: Resources::new(8192, 8),
            labels: vec![],
            attributes: vec![],
        });
        let ev = to_event(&load("nm-a", 2048.4, 1000), 5000, 60_000).unwrap();
        e.apply(ev);
        let n = &e.state().nodes[&7];
        assert_eq!(n.load_estimate_at(5999), Some(Resources::new(2048, 1500)));
        assert_eq!(n.load_estimate_at(6001), None, "expired: back to defaults");
        // An unknown host changes nothing and is counted.
        e.apply(to_event(&load("nm-zzz", 1.0, 1000), 0, 60_000).unwrap());
        assert_eq!(e.counters().unknown_references, 1);
    }
}
