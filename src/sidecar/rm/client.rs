//! HTTP access to the ResourceManager(s): TLS (rustls), an optional auth
//! header and `user.name`, and RM HA — the active RM among the configured
//! addresses is found through `/ws/v1/cluster/info` (`haState`), and a
//! standby that answers a request with a redirect sends the sidecar looking
//! again.

use super::model::{self, ClusterInfo};
use crate::sidecar::config::{read_first_line, RmConfig};
use reqwest::{StatusCode, Url};
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use std::time::Duration;

#[derive(Debug, Clone, thiserror::Error)]
pub enum FetchError {
    /// Connection refused, timeout, TLS failure, ...
    #[error("{address}: unreachable: {reason}")]
    Unreachable { address: String, reason: String },
    /// A standby RM (redirect or `haState` STANDBY).
    #[error("{address}: standby ResourceManager")]
    Standby { address: String },
    #[error("{address}{path}: HTTP {status}")]
    Status { address: String, path: String, status: u16 },
    #[error(transparent)]
    Malformed(#[from] model::Malformed),
    #[error("no active ResourceManager among {0}")]
    NoActive(String),
}

impl FetchError {
    /// Label for `shepherd_sidecar_rm_request_errors_total{kind}`.
    pub fn kind(&self) -> &'static str {
        match self {
            FetchError::Unreachable { .. } => "unreachable",
            FetchError::Standby { .. } => "standby",
            FetchError::Status { .. } => "http_status",
            FetchError::Malformed(_) => "malformed",
            FetchError::NoActive(_) => "no_active_rm",
        }
    }
}

pub struct RmClient {
    http: reqwest::Client,
    addresses: Vec<Url>,
    active: AtomicUsize,
    user_name: String,
}

impl RmClient {
    pub fn new(c: &RmConfig) -> Result<RmClient, String> {
        let mut headers = reqwest::header::HeaderMap::new();
        headers.insert(reqwest::header::ACCEPT, "application/json".parse().expect("static header"));
        if !c.auth_header.is_empty() {
            let value = read_first_line(&c.auth_value_file, "rm.auth_value_file")?;
            let name = reqwest::header::HeaderName::from_bytes(c.auth_header.as_bytes())
                .map_err(|e| format!("rm.auth_header = {}: {e}", c.auth_header))?;
            let mut v = reqwest::header::HeaderValue::from_str(&value)
                .map_err(|_| format!("rm.auth_value_file = {}: not a valid header value", c.auth_value_file))?;
            v.set_sensitive(true);
            headers.insert(name, v);
        }
        let mut b = reqwest::Client::builder()
            .default_headers(headers)
            .timeout(Duration::from_millis(c.timeout_ms))
            .connect_timeout(Duration::from_millis(c.timeout_ms))
            // Redirects are how a standby RM points elsewhere: handled here, not followed blindly.
            .redirect(reqwest::redirect::Policy::none())
            .danger_accept_invalid_certs(c.accept_invalid_certs)
            .user_agent(concat!("shepherd-sidecar/", env!("CARGO_PKG_VERSION")));
        if !c.ca_file.is_empty() {
            let pem = std::fs::read(&c.ca_file).map_err(|e| format!("rm.ca_file = {}: {e}", c.ca_file))?;
            for cert in reqwest::Certificate::from_pem_bundle(&pem).map_err(|e| format!("rm.ca_file = {}: {e}", c.ca_file))? {
                b = b.add_root_certificate(cert);
            }
        }
        let http = b.build().map_err(|e| format!("HTTP client: {e}"))?;
        let addresses =
            c.addresses.iter().map(|a| Url::parse(a).map_err(|e| format!("rm.addresses: {a}: {e}"))).collect::<Result<Vec<_>, _>>()?;
        Ok(RmClient { http, addresses, active: AtomicUsize::new(0), user_name: c.user_name.clone() })
    }

    pub fn active_address(&self) -> &Url {
        &self.addresses[self.active.load(Relaxed) % self.addresses.len()]
    }

    fn url(&self, base: &Url, path: &str) -> Url {
        let mut u = base.join(path).unwrap_or_else(|_| base.clone());
        if !self.user_name.is_empty() {
            u.query_pairs_mut().append_pair("user.name", &self.user_name);
        }
        u
    }

    fn origin(u: &Url) -> String {
        u.origin().ascii_serialization()
    }

    /// GET `path` from `base`; a 3xx is a standby pointing elsewhere.
    async fn get(&self, base: &Url, path: &str) -> Result<(Vec<u8>, Option<Url>), FetchError> {
        let address = Self::origin(base);
        let resp = self
            .http
            .get(self.url(base, path))
            .send()
            .await
            .map_err(|e| FetchError::Unreachable { address: address.clone(), reason: error_chain(&e) })?;
        let status = resp.status();
        if status.is_redirection() {
            let to = resp.headers().get(reqwest::header::LOCATION).and_then(|l| l.to_str().ok()).and_then(|l| base.join(l).ok());
            return Ok((Vec::new(), to.or_else(|| Some(base.clone()))));
        }
        if status != StatusCode::OK {
            return Err(FetchError::Status { address, path: path.into(), status: status.as_u16() });
        }
        let body = resp.bytes().await.map_err(|e| FetchError::Unreachable { address, reason: error_chain(&e) })?;
        Ok((body.to_vec(), None))
    }

    /// Find the active RM, starting with the one that was active last.
    /// Returns its `/cluster/info` and what went wrong with the addresses
    /// tried before it (for the error counters).
    pub async fn find_active(&self) -> Result<(ClusterInfo, Vec<FetchError>), FetchError> {
        let n = self.addresses.len();
        let start = self.active.load(Relaxed);
        let mut tried = Vec::new();
        let mut failed = Vec::new();
        let mut last_error = None;
        let mut order: Vec<usize> = (0..n).map(|k| (start + k) % n).collect();
        let mut i = 0;
        while i < order.len() {
            let idx = order[i];
            i += 1;
            let base = &self.addresses[idx];
            match self.get(base, "ws/v1/cluster/info").await {
                Ok((_, Some(to))) => {
                    tried.push(format!("{}: redirect", Self::origin(base)));
                    failed.push(FetchError::Standby { address: Self::origin(base) });
                    // A standby naming another configured RM: try that one next.
                    if let Some(j) = self.addresses.iter().position(|a| Self::origin(a) == Self::origin(&to)) {
                        if j != idx && !order[i..].contains(&j) && !order[..i].contains(&j) {
                            order.insert(i, j);
                        } else if let Some(p) = order[i..].iter().position(|x| *x == j) {
                            order.remove(i + p);
                            order.insert(i, j);
                        }
                    }
                }
                Ok((body, None)) => {
                    let info = match model::parse_info(&body) {
                        Ok(i) => i,
                        Err(m) => {
                            let e = FetchError::from(m);
                            tried.push(format!("{}: {e}", Self::origin(base)));
                            failed.push(e.clone());
                            last_error = Some(e);
                            continue;
                        }
                    };
                    if info.ha_state.eq_ignore_ascii_case("STANDBY") {
                        tried.push(format!("{}: standby", Self::origin(base)));
                        failed.push(FetchError::Standby { address: Self::origin(base) });
                        continue;
                    }
                    self.active.store(idx, Relaxed);
                    return Ok((info, failed));
                }
                Err(e) => {
                    tried.push(e.to_string());
                    failed.push(e.clone());
                    last_error = Some(e);
                }
            }
        }
        if n == 1 {
            // One RM: report its own failure rather than a summary.
            return Err(last_error.unwrap_or(FetchError::Standby { address: Self::origin(&self.addresses[0]) }));
        }
        Err(FetchError::NoActive(tried.join("; ")))
    }

    /// GET `path` from the active RM. A redirect means it turned standby.
    pub async fn fetch(&self, path: &str) -> Result<Vec<u8>, FetchError> {
        let base = self.active_address().clone();
        match self.get(&base, path).await? {
            (_, Some(_)) => Err(FetchError::Standby { address: Self::origin(&base) }),
            (body, None) => Ok(body),
        }
    }
}

/// reqwest's error with its sources ("error sending request: connection refused").
fn error_chain(e: &dyn std::error::Error) -> String {
    let mut s = e.to_string();
    let mut cur = e.source();
    while let Some(c) = cur {
        s.push_str(": ");
        s.push_str(&c.to_string());
        cur = c.source();
    }
    s
}
