//! `[control]` in Shepherd's config: whether the engine opens the control
//! channel for the sidecar, where, and with which secret.

use super::ConfigError;
use serde::Deserialize;
use std::net::IpAddr;

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ControlConfig {
    /// Open the control channel. Off by default: without it the engine runs
    /// on its own defaults and nothing listens.
    pub enabled: bool,
    /// Address to listen on. Loopback by default; anything else needs
    /// `allow_remote = true` (the channel is plain TCP, only the secret
    /// protects it).
    pub bind: String,
    /// TCP port. 0 picks a free port (tests); the sidecar must then be told it.
    pub port: u16,
    /// File holding the shared secret (its first line, surrounding space
    /// trimmed; at least 16 bytes). Required when enabled. Keep it readable by
    /// the RM's user and the sidecar's only.
    pub secret_file: String,
    /// Permit a non-loopback `bind`.
    pub allow_remote: bool,
    /// Most pushed inputs waiting for the next crossing; more are dropped and counted.
    pub max_pending_inputs: usize,
    /// Longest time-to-live an input may ask for, ms.
    pub max_ttl_ms: i64,
}

impl Default for ControlConfig {
    fn default() -> Self {
        ControlConfig {
            enabled: false,
            bind: "127.0.0.1".into(),
            port: 9471,
            secret_file: String::new(),
            allow_remote: false,
            max_pending_inputs: 10_000,
            max_ttl_ms: 600_000,
        }
    }
}

fn bad(key: &str, value: impl std::fmt::Display, reason: &str) -> ConfigError {
    ConfigError { key: key.into(), value: value.to_string(), reason: reason.into() }
}

impl ControlConfig {
    pub fn validate(&self) -> Result<(), ConfigError> {
        let ip: IpAddr = self.bind.parse().map_err(|_| bad("control.bind", &self.bind, "expected an IP address"))?;
        if !ip.is_loopback() && !self.allow_remote {
            return Err(bad(
                "control.bind",
                &self.bind,
                "not a loopback address; set control.allow_remote = true to listen beyond this host",
            ));
        }
        if self.enabled && self.secret_file.trim().is_empty() {
            return Err(bad("control.secret_file", "", "required when control.enabled = true"));
        }
        if self.max_pending_inputs == 0 {
            return Err(bad("control.max_pending_inputs", 0, "must be at least 1"));
        }
        if self.max_ttl_ms <= 0 {
            return Err(bad("control.max_ttl_ms", self.max_ttl_ms, "must be a positive number of ms"));
        }
        Ok(())
    }

    pub fn ip(&self) -> IpAddr {
        self.bind.parse().unwrap_or(IpAddr::from([127, 0, 0, 1]))
    }
}

#[cfg(test)]
mod tests {
    use crate::Config;

    #[test]
    fn off_by_default_and_checked_by_key() {
        let c = Config::parse("").unwrap();
        assert!(!c.control.enabled);
        let e = Config::parse("[control]\nenabled = true\n").unwrap_err().to_string();
        assert!(e.contains("control.secret_file"), "{e}");
        let e = Config::parse("[control]\nbind = \"0.0.0.0\"\n").unwrap_err().to_string();
        assert!(e.contains("control.bind") && e.contains("0.0.0.0") && e.contains("allow_remote"), "{e}");
        let e = Config::parse("[control]\nbind = \"localhost\"\n").unwrap_err().to_string();
        assert!(e.contains("control.bind") && e.contains("localhost"), "{e}");
        let e = Config::parse("[control]\nprot = 1\n").unwrap_err().to_string();
        assert!(e.contains("prot"), "{e}");
        assert!(Config::parse("[control]\nbind = \"0.0.0.0\"\nallow_remote = true\n").is_ok());
    }
}
