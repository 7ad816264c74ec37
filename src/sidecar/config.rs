//! `shepherd sidecar --config FILE`: the sidecar's TOML config. Every error
//! names the key and the value, like Shepherd's engine config.
//! `hadoop-conf/shepherd-sidecar.toml` lists every key with its default.

use crate::config::ConfigError;
use serde::Deserialize;
use std::net::SocketAddr;

#[derive(Debug, Clone, Deserialize, Default)]
#[serde(deny_unknown_fields, default)]
pub struct SidecarConfig {
    pub server: ServerConfig,
    pub rm: RmConfig,
    pub control: ControlLinkConfig,
    pub series: SeriesConfig,
    pub load: LoadConfig,
    pub history: HistoryPushConfig,
}

/// The sidecar's own HTTP server.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ServerConfig {
    /// Address of the HTTP server (metrics, API, page).
    pub listen: String,
    /// Permit a non-loopback `listen` address.
    pub allow_remote: bool,
    /// File holding the bearer token the write endpoints require (first
    /// line). Empty: write endpoints answer 403.
    pub token_file: String,
}

impl Default for ServerConfig {
    fn default() -> Self {
        ServerConfig { listen: "127.0.0.1:9470".into(), allow_remote: false, token_file: String::new() }
    }
}

/// How the ResourceManager's REST API is reached.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct RmConfig {
    /// RM web addresses (`http://host:8088`, `https://host:8090`); several
    /// for RM HA, in any order: the sidecar follows the active one.
    pub addresses: Vec<String>,
    pub poll_interval_ms: u64,
    /// Per request.
    pub timeout_ms: u64,
    /// Back-off after a failed poll: starts here, doubles, capped at `backoff_max_ms`.
    pub backoff_initial_ms: u64,
    pub backoff_max_ms: u64,
    /// Data older than this is flagged stale; 0 = three poll intervals.
    pub stale_after_ms: u64,
    /// Extra header sent with every request (e.g. `Authorization`, `Cookie`).
    pub auth_header: String,
    /// File holding that header's value (first line), so no credential sits in this config.
    pub auth_value_file: String,
    /// `user.name` query parameter, for RMs with Hadoop's simple (pseudo) HTTP auth.
    pub user_name: String,
    /// PEM file of extra CA certificates for HTTPS.
    pub ca_file: String,
    /// Accept any TLS certificate (test clusters only).
    pub accept_invalid_certs: bool,
    /// Finished apps listed by `/ws/v1/cluster/apps` are bounded by the RM
    /// itself; this bounds how many the sidecar keeps.
    pub max_apps: usize,
}

impl Default for RmConfig {
    fn default() -> Self {
        RmConfig {
            addresses: vec!["http://127.0.0.1:8088".into()],
            poll_interval_ms: 5000,
            timeout_ms: 5000,
            backoff_initial_ms: 1000,
            backoff_max_ms: 60_000,
            stale_after_ms: 0,
            auth_header: String::new(),
            auth_value_file: String::new(),
            user_name: String::new(),
            ca_file: String::new(),
            accept_invalid_certs: false,
            max_apps: 5000,
        }
    }
}

impl RmConfig {
    pub fn stale_after_ms(&self) -> u64 {
        if self.stale_after_ms == 0 {
            3 * self.poll_interval_ms
        } else {
            self.stale_after_ms
        }
    }
}

/// The engine's control channel (`[control]` of the engine's Shepherd config).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ControlLinkConfig {
    /// `host:port` of the engine's control listener; empty = no engine link
    /// (the sidecar then serves what the RM REST API shows).
    pub address: String,
    /// The same secret file as the engine's `control.secret_file`.
    pub secret_file: String,
    pub poll_interval_ms: u64,
    pub timeout_ms: u64,
}

impl Default for ControlLinkConfig {
    fn default() -> Self {
        ControlLinkConfig { address: String::new(), secret_file: String::new(), poll_interval_ms: 5000, timeout_ms: 3000 }
    }
}

/// The in-memory time series.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SeriesConfig {
    /// How far back series reach (the status page charts the last hour).
    pub retention_s: u64,
    /// Most points per series; the oldest are dropped first.
    pub max_points: usize,
}

impl Default for SeriesConfig {
    fn default() -> Self {
        SeriesConfig { retention_s: 3600, max_points: 2000 }
    }
}

/// Per-node load estimates pushed to the engine (what ROSE consumes).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct LoadConfig {
    pub push: bool,
    /// Utilization history one estimate looks at.
    pub window_s: u64,
    /// k, the number of segments the window is split into (ROSE's LLA).
    pub segments: usize,
    /// How long the engine trusts one estimate; then it falls back to its defaults.
    pub ttl_ms: i64,
}

impl Default for LoadConfig {
    fn default() -> Self {
        LoadConfig { push: true, window_s: 300, segments: 5, ttl_ms: 60_000 }
    }
}

/// Estimator history pushed to the engine: runs that finished before the
/// engine was built (an RM restart, a new deployment).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct HistoryPushConfig {
    pub push: bool,
}

impl Default for HistoryPushConfig {
    fn default() -> Self {
        HistoryPushConfig { push: true }
    }
}

fn bad(key: &str, value: impl std::fmt::Display, reason: impl Into<String>) -> ConfigError {
    ConfigError { key: key.into(), value: value.to_string(), reason: reason.into() }
}

impl SidecarConfig {
    pub fn parse(text: &str) -> Result<SidecarConfig, ConfigError> {
        let c: SidecarConfig = toml::from_str(text).map_err(|e| ConfigError {
            key: String::new(),
            value: String::new(),
            reason: e.to_string().trim().replace('\n', " "),
        })?;
        c.validate()?;
        Ok(c)
    }

    pub fn validate(&self) -> Result<(), ConfigError> {
        let s = &self.server;
        let addr: SocketAddr = s.listen.parse().map_err(|_| bad("server.listen", &s.listen, "expected IP:PORT, e.g. 127.0.0.1:9470"))?;
        if !addr.ip().is_loopback() && !s.allow_remote {
            return Err(bad("server.listen", &s.listen, "not a loopback address; set server.allow_remote = true"));
        }
        let r = &self.rm;
        if r.addresses.is_empty() {
            return Err(bad("rm.addresses", "[]", "at least one ResourceManager address is required"));
        }
        for (i, a) in r.addresses.iter().enumerate() {
            let ok = reqwest::Url::parse(a).ok().filter(|u| matches!(u.scheme(), "http" | "https") && u.host().is_some());
            if ok.is_none() {
                return Err(bad(&format!("rm.addresses[{i}]"), a, "expected http://host:port or https://host:port"));
            }
        }
        if r.poll_interval_ms < 100 {
            return Err(bad("rm.poll_interval_ms", r.poll_interval_ms, "must be at least 100"));
        }
        if r.timeout_ms == 0 {
            return Err(bad("rm.timeout_ms", r.timeout_ms, "must be positive"));
        }
        if r.backoff_initial_ms == 0 || r.backoff_max_ms < r.backoff_initial_ms {
            return Err(bad(
                "rm.backoff_max_ms",
                r.backoff_max_ms,
                format!("must be at least rm.backoff_initial_ms ({}), which must be positive", r.backoff_initial_ms),
            ));
        }
        if r.auth_header.is_empty() != r.auth_value_file.is_empty() {
            return Err(bad("rm.auth_header", &r.auth_header, "rm.auth_header and rm.auth_value_file go together"));
        }
        if !r.auth_header.is_empty() && reqwest::header::HeaderName::from_bytes(r.auth_header.as_bytes()).is_err() {
            return Err(bad("rm.auth_header", &r.auth_header, "not a valid HTTP header name"));
        }
        if r.max_apps == 0 {
            return Err(bad("rm.max_apps", 0, "must be at least 1"));
        }
        let c = &self.control;
        if !c.address.is_empty() {
            let a: SocketAddr =
                c.address.parse().map_err(|_| bad("control.address", &c.address, "expected IP:PORT of the engine's control listener"))?;
            if a.port() == 0 {
                return Err(bad("control.address", &c.address, "needs the port of the engine's [control]"));
            }
            if c.secret_file.is_empty() {
                return Err(bad("control.secret_file", "", "required with control.address"));
            }
            if c.poll_interval_ms < 100 {
                return Err(bad("control.poll_interval_ms", c.poll_interval_ms, "must be at least 100"));
            }
        }
        if self.series.retention_s == 0 {
            return Err(bad("series.retention_s", 0, "must be positive"));
        }
        if self.series.max_points < 2 {
            return Err(bad("series.max_points", self.series.max_points, "must be at least 2"));
        }
        let l = &self.load;
        if l.segments == 0 || l.segments > 100 {
            return Err(bad("load.segments", l.segments, "must be within 1..=100"));
        }
        if l.window_s == 0 {
            return Err(bad("load.window_s", 0, "must be positive"));
        }
        if l.ttl_ms <= 0 {
            return Err(bad("load.ttl_ms", l.ttl_ms, "must be a positive number of ms"));
        }
        Ok(())
    }
}

/// First line of a secret-bearing file, trimmed; errors name the key.
pub fn read_first_line(path: &str, key: &str) -> Result<String, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{key} = {path}: {e}"))?;
    let line = text.lines().next().unwrap_or("").trim().to_string();
    if line.is_empty() {
        return Err(format!("{key} = {path}: the file is empty"));
    }
    Ok(line)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_valid_and_loopback() {
        let c = SidecarConfig::parse("").unwrap();
        assert_eq!(c.server.listen, "127.0.0.1:9470");
        assert_eq!(c.rm.stale_after_ms(), 15_000);
    }

    #[test]
    fn bad_values_name_key_and_value() {
        let cases = [
            ("[server]\nlisten = \"0.0.0.0:9470\"\n", "server.listen", "0.0.0.0:9470"),
            ("[server]\nlisten = \"nine\"\n", "server.listen", "nine"),
            ("[rm]\naddresses = [\"http://a:8088\", \"ftp://b\"]\n", "rm.addresses[1]", "ftp://b"),
            ("[rm]\naddresses = []\n", "rm.addresses", "[]"),
            ("[rm]\npoll_interval_ms = 5\n", "rm.poll_interval_ms", "5"),
            ("[rm]\nbackoff_initial_ms = 10\nbackoff_max_ms = 5\n", "rm.backoff_max_ms", "5"),
            ("[rm]\nauth_header = \"Authorization\"\n", "rm.auth_header", "Authorization"),
            ("[control]\naddress = \"127.0.0.1:9471\"\n", "control.secret_file", ""),
            ("[control]\naddress = \"engine\"\nsecret_file = \"s\"\n", "control.address", "engine"),
            ("[load]\nsegments = 0\n", "load.segments", "0"),
        ];
        for (text, key, value) in cases {
            let e = SidecarConfig::parse(text).unwrap_err();
            assert_eq!((e.key.as_str(), e.value.as_str()), (key, value), "{text}: {e}");
        }
        let e = SidecarConfig::parse("[rm]\npoll_intervall_ms = 5\n").unwrap_err().to_string();
        assert!(e.contains("poll_intervall_ms"), "{e}");
    }
}
