//! What `shepherd check-config` prints for a valid config. A library
//! function so what it shows can change without touching the CLI.

use super::Config;
use std::fmt::Write;

/// The queue order and each queue's pipeline (`Config::describe`), then the
/// control channel when it is on.
pub fn summary(c: &Config) -> String {
    let mut out = c.describe();
    if c.control.enabled {
        let _ = writeln!(out, "control channel: {}:{} (secret from {})", c.control.bind, c.control.port, c.control.secret_file);
    }
    out
}
