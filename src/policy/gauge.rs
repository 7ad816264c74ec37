//! Metrics in Prometheus terms, as every plugin and the engine report them.

/// Whether a metric only goes up (Prometheus `counter`) or moves both ways.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GaugeKind {
    Gauge,
    Counter,
}

/// One metric sample in Prometheus terms: a snake_case `name` ending in its
/// unit (`_ratio`, `_memory_mb`, `_vcores`, `_total`, ...), `labels` that
/// tell series of one name apart (e.g. `pool="small"`), the value and a
/// one-line help text. The control channel sends it as JSON and the
/// sidecar reads it back as this very type.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Gauge {
    pub name: String,
    pub labels: Vec<(String, String)>,
    /// JSON has no NaN or infinities: a value that is not finite is sent
    /// as `null`, which reads back as NaN.
    #[serde(deserialize_with = "nan_from_null")]
    pub value: f64,
    pub help: String,
    pub kind: GaugeKind,
}

impl Gauge {
    pub fn new(name: impl Into<String>, value: f64, help: impl Into<String>) -> Gauge {
        Gauge { name: name.into(), labels: Vec::new(), value, help: help.into(), kind: GaugeKind::Gauge }
    }

    pub fn counter(name: impl Into<String>, value: f64, help: impl Into<String>) -> Gauge {
        Gauge { kind: GaugeKind::Counter, ..Gauge::new(name, value, help) }
    }

    pub fn label(mut self, key: impl Into<String>, value: impl Into<String>) -> Gauge {
        self.labels.push((key.into(), value.into()));
        self
    }

    /// The value of label `key`, if set.
    pub fn label_value(&self, key: &str) -> Option<&str> {
        self.labels.iter().find(|(k, _)| k == key).map(|(_, v)| v.as_str())
    }
}

fn nan_from_null<'de, D: serde::Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
    Ok(<Option<f64> as serde::Deserialize>::deserialize(d)?.unwrap_or(f64::NAN))
}

/// A resource type's name as a metric-name part: `memory-mb` → `memory_mb`,
/// `yarn.io/gpu` → `yarn_io_gpu` (Prometheus names allow `[a-zA-Z0-9_]`).
pub fn metric_part(resource_name: &str) -> String {
    let mut out = String::with_capacity(resource_name.len());
    for c in resource_name.chars() {
        if c.is_ascii_alphanumeric() {
            out.push(c.to_ascii_lowercase());
        } else if !out.ends_with('_') {
            out.push('_');
        }
    }
    out.trim_matches('_').to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gauges_round_trip_through_json_and_nan_through_null() {
        let g = Gauge::counter("dress_pool_used_memory_mb", 2048.5, "help").label("pool", "small").label("queue", "root");
        let json = serde_json::to_value(&g).unwrap();
        assert_eq!(
            json,
            serde_json::json!({"name": "dress_pool_used_memory_mb", "labels": [["pool", "small"], ["queue", "root"]], "value": 2048.5, "help": "help", "kind": "counter"})
        );
        assert_eq!(serde_json::from_value::<Gauge>(json).unwrap(), g);
        let nan = Gauge::new("x_ratio", f64::NAN, "h");
        let json = serde_json::to_string(&nan).unwrap();
        assert!(json.contains(r#""value":null"#), "{json}");
        let back: Gauge = serde_json::from_str(&json).unwrap();
        assert!(back.value.is_nan() && back.kind == GaugeKind::Gauge && back.name == "x_ratio");
    }
}
