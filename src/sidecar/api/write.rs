//! Write endpoints: they need the bearer token.

use super::auth::require_token;
use super::error::ApiError;
use super::Ctx;
use axum::extract::rejection::JsonRejection;
use axum::http::{HeaderMap, StatusCode};
use axum::Json;
use serde::Deserialize;
use serde_json::{json, Value};

/// Wake the RM poller now.
pub async fn poll(s: Ctx, headers: HeaderMap) -> Result<(StatusCode, Json<Value>), ApiError> {
    require_token(&s, &headers)?;
    s.poll_now.notify_one();
    Ok((StatusCode::ACCEPTED, Json(json!({"polling": true}))))
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Sample {
    pub app_id: String,
    pub user: String,
    #[serde(default)]
    pub name: String,
    pub size_ms: f64,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HistoryBody {
    pub samples: Vec<Sample>,
}

/// Past runs for the engine's history-based estimators (e.g. exported from
/// a JobHistory server): `{"samples": [{"app_id", "user", "name", "size_ms"}]}`.
pub async fn history(s: Ctx, headers: HeaderMap, body: Result<Json<HistoryBody>, JsonRejection>) -> Result<Json<Value>, ApiError> {
    require_token(&s, &headers)?;
    let Json(body) = body?;
    if body.samples.is_empty() {
        return Err(ApiError::bad_request("`samples` is empty"));
    }
    if body.samples.len() > 10_000 {
        return Err(ApiError::new(StatusCode::PAYLOAD_TOO_LARGE, "at most 10000 samples per request"));
    }
    let Some(link) = &s.engine else {
        return Err(ApiError::new(StatusCode::CONFLICT, "no engine link: set control.address"));
    };
    let inputs: Vec<Value> = body
        .samples
        .iter()
        .map(|x| json!({"kind": "history", "app_id": x.app_id, "user": x.user, "name": x.name, "size_ms": x.size_ms}))
        .collect();
    let answer = link.call("push", inputs).await.map_err(|e| ApiError::unavailable(format!("engine unavailable: {e}")))?;
    let accepted = answer.get("accepted").cloned().unwrap_or(json!(0));
    let rejected = answer.get("rejected").cloned().unwrap_or(json!([]));
    if accepted == json!(0) {
        // Nothing usable: the caller sent garbage (or duplicates).
        return Err(ApiError::new(StatusCode::UNPROCESSABLE_ENTITY, format!("no sample accepted: {rejected}")));
    }
    Ok(Json(json!({"accepted": accepted, "rejected": rejected})))
}
