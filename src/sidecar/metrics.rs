//! `/metrics`: Prometheus text format, names by Prometheus conventions
//! (`shepherd_` prefix, base units — bytes, seconds —, `_total` counters,
//! `_seconds` histograms).
//!
//! Two sources: the sidecar's own counters and histograms (registered once,
//! updated as things happen), and families built at scrape time from what
//! the sidecar last saw (RM figures, the engine's gauges and decision-time
//! histogram, the shim's JNI counters), so a scrape always shows the latest
//! values and a series disappears when its source does.

use super::join;
use super::state::{age_seconds, is_stale, Observed};
use super::{now_ms, Sidecar};
use crate::policy::GaugeKind;
use prometheus::proto::{Bucket, Counter, Gauge, Histogram, LabelPair, Metric, MetricFamily, MetricType};
use prometheus::{Encoder, HistogramOpts, HistogramVec, IntCounter, IntCounterVec, Opts, Registry, TextEncoder};
use std::collections::BTreeMap;

const MIB: f64 = 1024.0 * 1024.0;

pub struct Metrics {
    pub registry: Registry,
    pub rm_polls: IntCounterVec,
    pub rm_request_errors: IntCounterVec,
    pub rm_malformed: IntCounterVec,
    pub rm_failovers: IntCounter,
    pub rm_poll_seconds: prometheus::Histogram,
    pub rm_backoff_seconds: prometheus::Gauge,
    pub engine_requests: IntCounterVec,
    pub engine_malformed: IntCounter,
    pub engine_inputs: IntCounterVec,
    pub http_requests: IntCounterVec,
    pub http_seconds: HistogramVec,
}

impl Default for Metrics {
    fn default() -> Self {
        Self::new()
    }
}

impl Metrics {
    pub fn new() -> Metrics {
        let registry = Registry::new();
        let counter_vec = |name: &str, help: &str, labels: &[&str]| {
            let c = IntCounterVec::new(Opts::new(name, help), labels).expect("valid metric");
            registry.register(Box::new(c.clone())).expect("unique metric");
            c
        };
        let m = Metrics {
            rm_polls: counter_vec("shepherd_sidecar_rm_polls_total", "Polls of the ResourceManager REST API, by outcome", &["outcome"]),
            rm_request_errors: counter_vec(
                "shepherd_sidecar_rm_request_errors_total",
                "Failed RM REST requests, by endpoint and kind (unreachable, standby, http_status, malformed, no_active_rm)",
                &["endpoint", "kind"],
            ),
            rm_malformed: counter_vec(
                "shepherd_sidecar_rm_malformed_responses_total",
                "RM REST responses that could not be parsed (not JSON, truncated, unexpected shape), by endpoint",
                &["endpoint"],
            ),
            rm_failovers: IntCounter::new("shepherd_sidecar_rm_failovers_total", "Times the sidecar switched to another (newly active) RM")
                .unwrap(),
            rm_poll_seconds: prometheus::Histogram::with_opts(
                HistogramOpts::new("shepherd_sidecar_rm_poll_duration_seconds", "Time of one full RM poll")
                    .buckets(vec![0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0]),
            )
            .unwrap(),
            rm_backoff_seconds: prometheus::Gauge::new(
                "shepherd_sidecar_rm_backoff_seconds",
                "Current back-off before the next RM poll (0 when polls succeed)",
            )
            .unwrap(),
            engine_requests: counter_vec(
                "shepherd_sidecar_engine_requests_total",
                "Requests to the engine's control channel, by op and outcome",
                &["op", "outcome"],
            ),
            engine_malformed: IntCounter::new(
                "shepherd_sidecar_engine_malformed_responses_total",
                "Control channel answers that could not be read",
            )
            .unwrap(),
            engine_inputs: counter_vec(
                "shepherd_sidecar_engine_inputs_total",
                "Inputs pushed to the engine, by kind (node_load, history) and outcome (accepted, rejected)",
                &["kind", "outcome"],
            ),
            http_requests: counter_vec(
                "shepherd_sidecar_http_requests_total",
                "HTTP requests served, by route and status code",
                &["route", "code"],
            ),
            http_seconds: HistogramVec::new(
                HistogramOpts::new("shepherd_sidecar_http_request_duration_seconds", "Time to answer an HTTP request, by route")
                    .buckets(vec![0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1.0]),
                &["route"],
            )
            .unwrap(),
            registry,
        };
        m.registry.register(Box::new(m.rm_failovers.clone())).unwrap();
        m.registry.register(Box::new(m.rm_poll_seconds.clone())).unwrap();
        m.registry.register(Box::new(m.rm_backoff_seconds.clone())).unwrap();
        m.registry.register(Box::new(m.engine_malformed.clone())).unwrap();
        m.registry.register(Box::new(m.http_seconds.clone())).unwrap();
        m
    }
}

/// Families under construction, by name.
#[derive(Default)]
pub struct Families(BTreeMap<String, MetricFamily>);

fn labels(pairs: &[(&str, &str)]) -> Vec<LabelPair> {
    pairs
        .iter()
        .map(|(k, v)| {
            let mut l = LabelPair::default();
            l.set_name(k.to_string());
            l.set_value(v.to_string());
            l
        })
        .collect()
}

impl Families {
    fn family(&mut self, name: &str, help: &str, kind: MetricType) -> &mut MetricFamily {
        self.0.entry(name.to_string()).or_insert_with(|| {
            let mut f = MetricFamily::default();
            f.set_name(name.to_string());
            f.set_help(if help.is_empty() { name.to_string() } else { help.to_string() });
            f.set_field_type(kind);
            f
        })
    }

    pub fn gauge(&mut self, name: &str, help: &str, l: &[(&str, &str)], v: f64) {
        let mut m = Metric::default();
        m.set_label(labels(l));
        let mut g = Gauge::default();
        g.set_value(v);
        m.set_gauge(g);
        self.family(name, help, MetricType::GAUGE).mut_metric().push(m);
    }

    pub fn counter(&mut self, name: &str, help: &str, l: &[(&str, &str)], v: f64) {
        let mut m = Metric::default();
        m.set_label(labels(l));
        let mut c = Counter::default();
        c.set_value(v);
        m.set_counter(c);
        self.family(name, help, MetricType::COUNTER).mut_metric().push(m);
    }

    pub fn histogram(&mut self, name: &str, help: &str, buckets: &[(f64, u64)], sum: f64, count: u64) {
        let mut h = Histogram::default();
        h.set_bucket(
            buckets
                .iter()
                .map(|(le, c)| {
                    let mut b = Bucket::default();
                    b.set_upper_bound(*le);
                    b.set_cumulative_count(*c);
                    b
                })
                .collect(),
        );
        h.set_sample_sum(sum);
        h.set_sample_count(count);
        let mut m = Metric::default();
        m.set_histogram(h);
        self.family(name, help, MetricType::HISTOGRAM).mut_metric().push(m);
    }

    pub fn into_vec(self) -> Vec<MetricFamily> {
        self.0.into_values().collect()
    }
}

/// An engine gauge's name in base units: `_memory_mb` → `_memory_bytes`
/// (× 2^20), `_ms` → `_seconds` (÷ 1000); everything else unchanged.
pub fn engine_metric_name(name: &str) -> (String, f64) {
    let clean: String = name.chars().map(|c| if c.is_ascii_alphanumeric() || c == '_' { c } else { '_' }).collect();
    let (base, factor) = if let Some(stem) = clean.strip_suffix("_memory_mb") {
        (format!("{stem}_memory_bytes"), MIB)
    } else if let Some(stem) = clean.strip_suffix("_mb") {
        (format!("{stem}_bytes"), MIB)
    } else if let Some(stem) = clean.strip_suffix("_ms") {
        (format!("{stem}_seconds"), 0.001)
    } else {
        (clean, 1.0)
    };
    (format!("shepherd_{base}"), factor)
}

/// Build the scrape-time families from `o`.
pub fn snapshot_families(s: &Sidecar, o: &Observed, now: i64) -> Families {
    let mut f = Families::default();
    let stale_after = s.config.rm.stale_after_ms();
    let rm_stale = is_stale(o.rm.last_success_ms, now, stale_after);
    f.gauge(
        "shepherd_sidecar_rm_stale",
        "1 when the RM data served is older than rm.stale_after_ms (or was never read)",
        &[],
        rm_stale as i32 as f64,
    );
    f.gauge(
        "shepherd_sidecar_rm_up",
        "1 when the last RM poll succeeded",
        &[],
        (o.rm.consecutive_failures == 0 && o.rm.last_success_ms.is_some()) as i32 as f64,
    );
    // Which RM of an HA list the sidecar reads (the active one): an alert or
    // a dashboard sees a failover as the address changing.
    if !o.rm.active_address.is_empty() {
        let ha = o.rm.info.as_ref().map(|i| i.ha_state.as_str()).unwrap_or("");
        f.gauge(
            "shepherd_sidecar_rm_active",
            "1 for the RM address the sidecar follows (the active RM of an HA list), with its haState",
            &[("address", &o.rm.active_address), ("ha_state", ha)],
            1.0,
        );
    }
    if let Some(age) = age_seconds(o.rm.last_success_ms, now) {
        f.gauge("shepherd_sidecar_rm_data_age_seconds", "Age of the RM data served", &[], age);
        f.gauge(
            "shepherd_sidecar_rm_last_success_timestamp_seconds",
            "Unix time of the last successful RM poll",
            &[],
            o.rm.last_success_ms.unwrap_or(0) as f64 / 1000.0,
        );
    }
    f.gauge("shepherd_sidecar_series", "Time series kept in memory", &[], o.series.len() as f64);
    if o.engine.configured {
        let engine_stale = is_stale(o.engine.last_success_ms, now, 3 * s.config.control.poll_interval_ms);
        f.gauge(
            "shepherd_sidecar_engine_stale",
            "1 when the engine data served is older than three control polls",
            &[],
            engine_stale as i32 as f64,
        );
        f.gauge(
            "shepherd_sidecar_engine_up",
            "1 when the last control-channel exchange succeeded",
            &[],
            (o.engine.consecutive_failures == 0 && o.engine.last_success_ms.is_some()) as i32 as f64,
        );
        if let Some(age) = age_seconds(o.engine.last_success_ms, now) {
            f.gauge("shepherd_sidecar_engine_data_age_seconds", "Age of the engine data served", &[], age);
        }
    }
    rm_families(&mut f, o);
    engine_families(&mut f, o);
    f
}

fn rm_families(f: &mut Families, o: &Observed) {
    if let Some(m) = &o.rm.metrics {
        let mem = "Cluster memory by state (from the RM), bytes";
        for (state, mb) in
            [("allocated", m.allocated_mb), ("available", m.available_mb), ("reserved", m.reserved_mb), ("total", m.total_mb)]
        {
            f.gauge("shepherd_cluster_memory_bytes", mem, &[("state", state)], mb as f64 * MIB);
        }
        let vc = "Cluster vcores by state (from the RM)";
        for (state, v) in [
            ("allocated", m.allocated_virtual_cores),
            ("available", m.available_virtual_cores),
            ("reserved", m.reserved_virtual_cores),
            ("total", m.total_virtual_cores),
        ] {
            f.gauge("shepherd_cluster_vcores", vc, &[("state", state)], v as f64);
        }
        let leftover = if m.total_mb > 0 { m.available_mb as f64 / m.total_mb as f64 } else { 0.0 };
        f.gauge(
            "shepherd_cluster_leftover_memory_ratio",
            "Unallocated share of cluster memory: what a leftover (altruistic) scheduler can hand out",
            &[],
            leftover,
        );
        for (state, v) in [("running", m.apps_running), ("pending", m.apps_pending)] {
            f.gauge("shepherd_cluster_apps", "Applications by state (from the RM)", &[("state", state)], v as f64);
        }
        for (state, v) in
            [("submitted", m.apps_submitted), ("completed", m.apps_completed), ("failed", m.apps_failed), ("killed", m.apps_killed)]
        {
            f.counter(
                "shepherd_cluster_apps_total",
                "Applications since the RM started, by outcome (resets with the RM)",
                &[("outcome", state)],
                v as f64,
            );
        }
        for (state, v) in [("allocated", m.containers_allocated), ("pending", m.containers_pending), ("reserved", m.containers_reserved)] {
            f.gauge("shepherd_cluster_containers", "Containers by state (from the RM)", &[("state", state)], v as f64);
        }
        for (state, v) in [
            ("active", m.active_nodes),
            ("lost", m.lost_nodes),
            ("unhealthy", m.unhealthy_nodes),
            ("decommissioned", m.decommissioned_nodes),
        ] {
            f.gauge("shepherd_cluster_nodes", "NodeManagers by state (from the RM)", &[("state", state)], v as f64);
        }
    }
    // Per queue, from the RM's app list (works for every scheduler).
    let mut queues: BTreeMap<&str, [f64; 5]> = BTreeMap::new();
    for a in o.rm.apps.iter().filter(|a| !a.is_finished()) {
        let q = queues.entry(a.queue.as_str()).or_default();
        if a.awaiting_am() {
            q[1] += 1.0;
        } else {
            q[0] += 1.0;
        }
        q[2] += a.allocated_mb.max(0) as f64 * MIB;
        q[3] += a.allocated_vcores.max(0) as f64;
        q[4] += a.running_containers.max(0) as f64;
    }
    for (q, v) in &queues {
        f.gauge(
            "shepherd_queue_apps",
            "Applications per queue: running, or pending (waiting for their AM)",
            &[("queue", q), ("state", "running")],
            v[0],
        );
        f.gauge(
            "shepherd_queue_apps",
            "Applications per queue: running, or pending (waiting for their AM)",
            &[("queue", q), ("state", "pending")],
            v[1],
        );
        f.gauge("shepherd_queue_allocated_memory_bytes", "Memory allocated to a queue's applications", &[("queue", q)], v[2]);
        f.gauge("shepherd_queue_allocated_vcores", "Vcores allocated to a queue's applications", &[("queue", q)], v[3]);
        f.gauge("shepherd_queue_running_containers", "Running containers of a queue's applications", &[("queue", q)], v[4]);
    }
    // Per node: allocation and actual use (what ROSE over-subscribes).
    for n in &o.rm.nodes {
        let h = n.node_host_name.as_str();
        f.gauge(
            "shepherd_node_allocated_memory_bytes",
            "Memory allocated to containers on a node",
            &[("host", h)],
            n.used_memory_mb as f64 * MIB,
        );
        f.gauge(
            "shepherd_node_capacity_memory_bytes",
            "A node's schedulable memory",
            &[("host", h)],
            (n.used_memory_mb + n.avail_memory_mb) as f64 * MIB,
        );
        if let Some(u) = &n.resource_utilization {
            f.gauge(
                "shepherd_node_used_memory_bytes",
                "Physical memory in use on a node (NodeManager utilization)",
                &[("host", h)],
                u.node_physical_memory_mb * MIB,
            );
            f.gauge(
                "shepherd_node_used_vcores",
                "CPU in use on a node, in vcores (NodeManager utilization)",
                &[("host", h)],
                u.node_cpu_usage,
            );
        }
    }
    for (h, l) in &o.pushed_load {
        f.gauge(
            "shepherd_node_load_estimate_memory_bytes",
            "Memory use the sidecar estimated for a node (ROSE LLA) and pushed to the engine",
            &[("host", h)],
            l.memory_mb * MIB,
        );
        f.gauge(
            "shepherd_node_load_estimate_vcores",
            "CPU use the sidecar estimated for a node (ROSE LLA) and pushed to the engine",
            &[("host", h)],
            l.vcores,
        );
    }
    // Apps per category (the engine's classification, e.g. DRESS small/large).
    let views = join::app_views(&o.rm.apps, o.engine.state.as_ref());
    let mut per_cat: BTreeMap<(String, &str), f64> = BTreeMap::new();
    for v in views.iter().filter(|v| !matches!(v.state.as_str(), "FINISHED" | "FAILED" | "KILLED")) {
        let cat = v.category.as_ref().and_then(|c| c.as_str()).unwrap_or("unclassified").to_string();
        let state = if v.wait_reason.is_some() { "pending" } else { "running" };
        *per_cat.entry((cat, state)).or_default() += 1.0;
    }
    for ((cat, state), n) in per_cat {
        f.gauge(
            "shepherd_apps",
            "Unfinished applications by the engine's category and whether they wait",
            &[("category", &cat), ("state", state)],
            n,
        );
    }
    // Sizes of finished runs: what history-based estimators learn from.
    let finished: Vec<f64> = o.rm.apps.iter().filter(|a| a.state == "FINISHED").map(|a| a.vcore_seconds as f64).collect();
    if !finished.is_empty() {
        let bounds = [1.0, 10.0, 30.0, 60.0, 300.0, 600.0, 1800.0, 3600.0, 36000.0];
        let buckets: Vec<(f64, u64)> = bounds.iter().map(|b| (*b, finished.iter().filter(|x| **x <= *b).count() as u64)).collect();
        f.histogram(
            "shepherd_finished_app_size_container_seconds",
            "Sizes of the finished applications the RM lists (vcore-seconds = container-seconds for 1-vcore containers)",
            &buckets,
            finished.iter().sum(),
            finished.len() as u64,
        );
    }
    if let Some(sh) = &o.rm.shim {
        // The shim's counters (`ShepherdMetrics`), one series each.
        let counters = [
            (
                "shepherd_jni_engine_allocations_total",
                "Containers placed by the Rust engine (shim counter, RM /jmx)",
                sh.engine_allocations,
            ),
            (
                "shepherd_jni_fallback_allocations_total",
                "Containers placed by the safe FIFO while the engine was unavailable",
                sh.fallback_allocations,
            ),
            ("shepherd_jni_engine_failures_total", "JNI calls into the engine that failed (exception or panic)", sh.engine_failures),
            (
                "shepherd_jni_fallback_heartbeats_total",
                "NodeManager heartbeats scheduled by the safe FIFO because the engine failed or was degraded",
                sh.fallback_heartbeats,
            ),
            ("shepherd_jni_engine_rebuilds_total", "Engine rebuilds after a failure", sh.engine_rebuilds),
            ("shepherd_jni_rejected_decisions_total", "Engine decisions YARN could no longer carry out", sh.rejected_decisions),
            ("shepherd_jni_crossings_total", "Heartbeat crossings into the engine", sh.crossings),
            (
                "shepherd_jni_recovered_containers_total",
                "Containers NodeManagers reported after a work-preserving RM restart, handed to the engine",
                sh.recovered_containers,
            ),
            ("shepherd_jni_async_rounds_total", "Scheduling rounds between heartbeats that crossed into the engine", sh.async_rounds),
            (
                "shepherd_jni_async_allocations_total",
                "Containers placed by rounds between heartbeats that YARN carried out",
                sh.async_allocations,
            ),
        ];
        for (name, help, value) in counters {
            f.counter(name, help, &[], value);
        }
        f.gauge(
            "shepherd_jni_crossing_mean_seconds",
            "Mean heartbeat crossing time over the RM metrics system's last interval",
            &[],
            sh.crossing_avg_nanos / 1e9,
        );
    }
}

fn engine_families(f: &mut Families, o: &Observed) {
    // NaN: a value the engine could not send (not finite).
    for g in o.engine.gauges.iter().filter(|g| !g.value.is_nan()) {
        let v = g.value;
        let (name, factor) = engine_metric_name(&g.name);
        let l: Vec<(&str, &str)> = g.labels.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
        if g.kind == GaugeKind::Counter || name.ends_with("_total") {
            f.counter(&name, &g.help, &l, v * factor);
        } else {
            f.gauge(&name, &g.help, &l, v * factor);
        }
    }
    if let Some(h) = &o.engine.decision_seconds {
        f.histogram(
            "shepherd_engine_decision_seconds",
            "Engine time per heartbeat crossing: apply the batch and run the scheduling pass (measured in the engine)",
            &h.buckets,
            h.sum_seconds,
            h.count,
        );
    }
    if let Some(c) = &o.engine.control {
        let n = |p: &str| c.pointer(p).and_then(|v| v.as_f64()).unwrap_or(0.0);
        for outcome in ["accepted", "applied", "rejected_invalid", "dropped_stale", "dropped_full", "duplicates"] {
            f.counter(
                "shepherd_control_inputs_total",
                "Sidecar inputs at the engine, by outcome",
                &[("outcome", outcome)],
                n(&format!("/inbox/{outcome}")),
            );
        }
        f.gauge("shepherd_control_inputs_pending", "Sidecar inputs waiting for the next heartbeat crossing", &[], n("/inbox/pending"));
        f.counter("shepherd_control_panics_total", "Panics caught in the engine's control-channel thread", &[], n("/listener/panics"));
        f.counter(
            "shepherd_control_auth_failures_total",
            "Control-channel requests with a wrong secret",
            &[],
            n("/listener/auth_failures"),
        );
        f.counter("shepherd_control_requests_total", "Control-channel requests the engine answered", &[], n("/listener/requests"));
    }
}

/// The whole `/metrics` text.
pub fn render(s: &Sidecar) -> String {
    let now = now_ms();
    let mut families = s.metrics.registry.gather();
    {
        let o = s.read();
        families.extend(snapshot_families(s, &o, now).into_vec());
    }
    let mut out = Vec::new();
    if let Err(e) = TextEncoder::new().encode(&families, &mut out) {
        tracing::warn!(error = %e, "metrics encoding failed");
    }
    String::from_utf8(out).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn engine_names_in_base_units() {
        assert_eq!(engine_metric_name("dress_pool_used_memory_mb"), ("shepherd_dress_pool_used_memory_bytes".into(), MIB));
        assert_eq!(engine_metric_name("dress_reserve_ratio"), ("shepherd_dress_reserve_ratio".into(), 1.0));
        assert_eq!(engine_metric_name("x_interval_ms"), ("shepherd_x_interval_seconds".into(), 0.001));
        assert_eq!(engine_metric_name("odd-name"), ("shepherd_odd_name".into(), 1.0));
    }
}
