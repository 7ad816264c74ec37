//! The write endpoints' bearer token (`server.token_file`), compared in
//! constant time. No token configured: writes are refused with 403.

use super::error::ApiError;
use crate::control::secret::Secret;
use crate::sidecar::Sidecar;
use axum::http::{HeaderMap, StatusCode};

pub fn require_token(s: &Sidecar, headers: &HeaderMap) -> Result<(), ApiError> {
    let Some(token) = &s.token else {
        return Err(ApiError::new(StatusCode::FORBIDDEN, "write endpoints are disabled: set server.token_file"));
    };
    let offered = headers
        .get(axum::http::header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .ok_or_else(|| ApiError::new(StatusCode::UNAUTHORIZED, "missing `Authorization: Bearer <token>`"))?;
    if !Secret::from_text(token).matches(offered.trim()) {
        return Err(ApiError::new(StatusCode::UNAUTHORIZED, "wrong token"));
    }
    Ok(())
}
