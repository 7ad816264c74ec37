//! What `shepherd check-config` prints for a valid config. A library
//! function so what it shows can change without touching the CLI.

use super::Config;
use std::fmt::Write;

pub fn summary(c: &Config) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "policy: {}", c.scheduler.policy);
    for q in &c.queues {
        let _ = writeln!(out, "queue root.{}: weight {} capacity {} max {}", q.name, q.weight, q.capacity, q.max_capacity);
    }
    if c.control.enabled {
        let _ = writeln!(out, "control channel: {}:{} (secret from {})", c.control.bind, c.control.port, c.control.secret_file);
    }
    out
}
