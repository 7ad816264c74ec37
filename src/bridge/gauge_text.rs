//! Text format the engine's gauges cross JNI in (`NativeEngine.gauges`),
//! read by the Java `ShepherdPolicyMetrics`. One line per sample, five
//! tab-separated fields:
//!
//! ```text
//! kind \t name \t labels \t value \t help \n
//! ```
//!
//! * `kind`: `g` (gauge) or `c` (counter);
//! * `name`: Prometheus-style, `[a-z0-9_]`, without the `shepherd_` prefix;
//! * `labels`: `k=v` pairs separated by `,`, empty when none;
//! * `value`: a decimal number as Rust prints an `f64` (no exponent), or
//!   `NaN`, `Infinity`, `-Infinity` (what Java's `Double.parseDouble` reads);
//! * `help`: free text to the end of the line.
//!
//! Tabs and newlines inside help text, and `,` `=` tabs and newlines inside
//! labels, are replaced so a line always splits into exactly five fields.
//! Gauges are produced on request (a metrics scrape), not every heartbeat,
//! so a readable text costs nothing that matters.

use crate::policy::{Gauge, GaugeKind};
use std::fmt::Write;

fn clean(s: &str, bad: &[char], with: char) -> String {
    s.chars().map(|c| if bad.contains(&c) { with } else { c }).collect()
}

fn value_text(v: f64) -> String {
    if v.is_nan() {
        "NaN".into()
    } else if v.is_infinite() {
        if v > 0.0 {
            "Infinity".into()
        } else {
            "-Infinity".into()
        }
    } else {
        format!("{v}")
    }
}

pub fn encode(gauges: &[Gauge]) -> String {
    let mut out = String::with_capacity(gauges.len() * 96);
    for g in gauges {
        let kind = match g.kind {
            GaugeKind::Gauge => 'g',
            GaugeKind::Counter => 'c',
        };
        let labels: Vec<String> = g
            .labels
            .iter()
            .map(|(k, v)| {
                let bad = ['\t', '\n', '\r', ',', '='];
                format!("{}={}", clean(k, &bad, '_'), clean(v, &bad, '_'))
            })
            .collect();
        let _ = writeln!(
            out,
            "{kind}\t{}\t{}\t{}\t{}",
            clean(&g.name, &['\t', '\n', '\r'], '_'),
            labels.join(","),
            value_text(g.value),
            clean(&g.help, &['\t', '\n', '\r'], ' ')
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_line_of_five_fields_per_gauge() {
        let gauges = vec![
            Gauge::new("dress_reserve_ratio", 0.25, "delta"),
            Gauge::new("dress_pool_used_memory_mb", 1536.0, "used\tby\nthe pool").label("pool", "small"),
            Gauge::counter("engine_events_total", 42.0, "events").label("a,b", "x=y"),
            Gauge::new("odd", f64::NAN, "").label("k", "v").label("k2", "v2"),
            Gauge::new("tiny", 1e-7, "no exponent"),
            Gauge::new("inf", f64::NEG_INFINITY, "h"),
        ];
        let text = encode(&gauges);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 6);
        for l in &lines {
            assert_eq!(l.split('\t').count(), 5, "{l:?}");
        }
        assert_eq!(lines[0], "g\tdress_reserve_ratio\t\t0.25\tdelta");
        assert_eq!(lines[1], "g\tdress_pool_used_memory_mb\tpool=small\t1536\tused by the pool");
        assert_eq!(lines[2], "c\tengine_events_total\ta_b=x_y\t42\tevents");
        assert_eq!(lines[3], "g\todd\tk=v,k2=v2\tNaN\t");
        assert_eq!(lines[4], "g\ttiny\t\t0.0000001\tno exponent");
        assert_eq!(lines[5], "g\tinf\t\t-Infinity\th");
    }
}
