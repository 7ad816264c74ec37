//! The status page at `/`: plain HTML and a small script that reads the
//! JSON API, plus uPlot (vendored, MIT) for the DRESS chart. All files are
//! compiled into the binary.

use axum::extract::Path;
use axum::http::{header, StatusCode};
use axum::response::{Html, IntoResponse, Response};

const INDEX: &str = include_str!("index.html");
const SCRIPT: &str = include_str!("page.js");
const STYLE: &str = include_str!("page.css");
const UPLOT_JS: &str = include_str!("vendor/uplot/uPlot.iife.min.js");
const UPLOT_CSS: &str = include_str!("vendor/uplot/uPlot.min.css");

pub async fn index() -> Html<&'static str> {
    Html(INDEX)
}

pub async fn asset(Path(file): Path<String>) -> Response {
    let (body, kind) = match file.as_str() {
        "page.js" => (SCRIPT, "text/javascript; charset=utf-8"),
        "page.css" => (STYLE, "text/css; charset=utf-8"),
        "uPlot.iife.min.js" => (UPLOT_JS, "text/javascript; charset=utf-8"),
        "uPlot.min.css" => (UPLOT_CSS, "text/css; charset=utf-8"),
        _ => return super::api::error::ApiError::not_found(format!("no static file `{file}`")).into_response(),
    };
    (StatusCode::OK, [(header::CONTENT_TYPE, kind), (header::CACHE_CONTROL, "max-age=300")], body).into_response()
}
