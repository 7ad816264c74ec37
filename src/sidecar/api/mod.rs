//! The sidecar's HTTP server (axum).
//!
//! | route | what |
//! |---|---|
//! | `GET /` | status page (`page/`) |
//! | `GET /metrics` | Prometheus text format |
//! | `GET /healthz` | the process is up (always 200) |
//! | `GET /readyz` | 200 when the RM data (and the engine's, if linked) is fresh, else 503 with the reasons |
//! | `GET /api/v1/status` | freshness of each source, last errors, back-off |
//! | `GET /api/v1/cluster` | RM cluster info and metrics, the engine's cluster summary |
//! | `GET /api/v1/queues` | queues: the engine's (with pipelines) joined with the RM's per-queue figures |
//! | `GET /api/v1/apps` | apps with category, queue, pipeline, estimate, share, pool, split, wait reason (`?state=running\|pending\|finished\|all&queue=Q&limit=N`) |
//! | `GET /api/v1/apps/{id}` | one app, with its time series |
//! | `GET /api/v1/nodes` | nodes: RM report, utilization, the engine's view, the pushed load estimate |
//! | `GET /api/v1/plugins` | each plugin's state and gauges |
//! | `GET /api/v1/engine` | the engine's state JSON as is |
//! | `GET /api/v1/series?key=K&since_s=S`, `GET /api/v1/series/keys?prefix=P` | the in-memory time series |
//! | `GET /api/v1/chart/dress?since_s=S` | DRESS δ and pool use over time (the page's chart) |
//! | `POST /api/v1/poll` | poll the RM now (token) |
//! | `POST /api/v1/history` | push estimator history to the engine (token) |

pub mod auth;
pub mod error;
pub mod read;
pub mod write;

use super::Sidecar;
use axum::extract::{MatchedPath, Request, State};
use axum::http::StatusCode;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::Router;
use error::ApiError;
use std::sync::Arc;

pub type Ctx = State<Arc<Sidecar>>;

pub fn router(s: Arc<Sidecar>) -> Router {
    Router::new()
        .route("/", get(super::page::index))
        .route("/static/{file}", get(super::page::asset))
        .route("/metrics", get(read::metrics))
        .route("/healthz", get(read::healthz))
        .route("/readyz", get(read::readyz))
        .route("/api/v1", get(read::index))
        .route("/api/v1/status", get(read::status))
        .route("/api/v1/cluster", get(read::cluster))
        .route("/api/v1/queues", get(read::queues))
        .route("/api/v1/apps", get(read::apps))
        .route("/api/v1/apps/{id}", get(read::app))
        .route("/api/v1/nodes", get(read::nodes))
        .route("/api/v1/plugins", get(read::plugins))
        .route("/api/v1/engine", get(read::engine))
        .route("/api/v1/series", get(read::series))
        .route("/api/v1/series/keys", get(read::series_keys))
        .route("/api/v1/chart/dress", get(read::dress_chart))
        .route("/api/v1/poll", post(write::poll))
        .route("/api/v1/history", post(write::history))
        .fallback(not_found)
        .method_not_allowed_fallback(method_not_allowed)
        .layer(axum::middleware::from_fn_with_state(s.clone(), count_requests))
        .with_state(s)
}

async fn not_found(req: Request) -> ApiError {
    ApiError::not_found(format!("no such endpoint: {} (see /api/v1)", req.uri().path()))
}

async fn method_not_allowed(req: Request) -> ApiError {
    ApiError::new(StatusCode::METHOD_NOT_ALLOWED, format!("{} is not allowed on {}", req.method(), req.uri().path()))
}

async fn count_requests(State(s): Ctx, req: Request, next: Next) -> Response {
    let route = req.extensions().get::<MatchedPath>().map(|p| p.as_str().to_string()).unwrap_or_else(|| "unmatched".into());
    let timer = s.metrics.http_seconds.with_label_values(&[&route]).start_timer();
    let resp = next.run(req).await;
    timer.observe_duration();
    s.metrics.http_requests.with_label_values(&[&route, resp.status().as_str()]).inc();
    resp.into_response()
}
