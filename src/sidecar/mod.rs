//! `shepherd sidecar`: runs next to the ResourceManager, watches it through
//! its REST API, talks to the engine over the control channel, and serves
//! Prometheus metrics, a JSON API and a status page.
//!
//! ```text
//!   rm::poller ──► RM REST (/ws/v1/cluster/*, /jmx) ─┐
//!   engine_link ─► engine control channel ───────────┼─► state::Observed (+ series) ─► api (axum): /metrics /api/v1 /
//!        └─ pushes load estimates (load.rs) and history ◄┘
//! ```
//!
//! * [`config`]  — the TOML config, validated by key.
//! * [`rm`]      — RM REST client (HA, TLS, auth header), response models, the poll loop.
//! * [`engine_link`] — polls the engine's state and gauges; pushes inputs.
//! * [`load`]    — ROSE's load level approximation over a node's utilization series.
//! * [`series`]  — bounded in-memory time series.
//! * [`state`]   — what the sidecar knows and how fresh it is.
//! * [`join`]    — RM apps ⋈ engine apps (the one join), plugin facts, wait reasons.
//! * [`metrics`] — the Prometheus registry and the collector built from `state`.
//! * [`api`]     — the HTTP server: routes, JSON errors, the token check.
//! * [`page`]    — the status page's files.

pub mod api;
pub mod backoff;
pub mod config;
pub mod engine_link;
pub mod join;
pub mod load;
pub mod metrics;
pub mod page;
pub mod rm;
pub mod series;
pub mod state;

use config::SidecarConfig;
use std::sync::{Arc, RwLock};
use tokio::sync::Notify;

/// Everything the sidecar's tasks share.
pub struct Sidecar {
    pub config: SidecarConfig,
    pub observed: RwLock<Observed>,
    pub metrics: metrics::Metrics,
    pub rm: rm::client::RmClient,
    pub engine: Option<engine_link::EngineLink>,
    /// Bearer token of the write endpoints; `None` = they are disabled.
    pub token: Option<String>,
    /// Wakes the RM poller before its interval (`POST /api/v1/poll`).
    pub poll_now: Notify,
}

pub use state::Observed;

impl Sidecar {
    pub fn new(config: SidecarConfig) -> Result<Sidecar, String> {
        let rm = rm::client::RmClient::new(&config.rm)?;
        let engine = if config.control.address.is_empty() { None } else { Some(engine_link::EngineLink::new(&config.control)?) };
        let token = match config.server.token_file.as_str() {
            "" => None,
            f => Some(config::read_first_line(f, "server.token_file")?),
        };
        let observed = RwLock::new(Observed::new(config.series.retention_s as i64 * 1000, config.series.max_points, engine.is_some()));
        Ok(Sidecar { metrics: metrics::Metrics::new(), observed, rm, engine, token, poll_now: Notify::new(), config })
    }

    pub fn read(&self) -> std::sync::RwLockReadGuard<'_, Observed> {
        self.observed.read().unwrap_or_else(|p| p.into_inner())
    }

    pub fn write(&self) -> std::sync::RwLockWriteGuard<'_, Observed> {
        self.observed.write().unwrap_or_else(|p| p.into_inner())
    }
}

pub fn now_ms() -> i64 {
    crate::control::shared::now_ms()
}

/// Run the sidecar until SIGINT/SIGTERM. Only a bad config or a port that
/// cannot be bound stop it; the RM or the engine being away never does.
pub fn run(config: SidecarConfig) -> Result<(), String> {
    let rt =
        tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().map_err(|e| format!("tokio runtime: {e}"))?;
    rt.block_on(async move {
        let sidecar = Arc::new(Sidecar::new(config)?);
        let listener = tokio::net::TcpListener::bind(&sidecar.config.server.listen)
            .await
            .map_err(|e| format!("server.listen = {}: {e}", sidecar.config.server.listen))?;
        tracing::info!(
            listen = %sidecar.config.server.listen,
            rm = ?sidecar.config.rm.addresses,
            engine = %sidecar.config.control.address,
            "Shepherd sidecar serving /metrics, /api/v1, / (status page)"
        );
        tokio::spawn(rm::poller::run(sidecar.clone()));
        if sidecar.engine.is_some() {
            tokio::spawn(engine_link::run(sidecar.clone()));
        }
        let app = api::router(sidecar.clone());
        axum::serve(listener, app).with_graceful_shutdown(shutdown_signal()).await.map_err(|e| format!("HTTP server: {e}"))
    })
}

async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let term = async {
        if let Ok(mut s) = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            s.recv().await;
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! { _ = ctrl_c => {}, _ = term => {} }
    tracing::info!("Shepherd sidecar stopping");
}
