//! The RM poll loop: every `rm.poll_interval_ms`, find the active RM and
//! read info, metrics, apps, nodes, scheduler and the shim's `/jmx` bean.
//! A failed poll backs off exponentially; the sidecar keeps serving what it
//! last saw, flagged stale. Nothing here returns an error to its caller:
//! failures are counted, logged and retried.

use super::client::FetchError;
use super::model;
use crate::sidecar::backoff::Backoff;
use crate::sidecar::{now_ms, Sidecar};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Endpoints every poll needs; `scheduler` and `jmx` are optional extras.
const METRICS: &str = "ws/v1/cluster/metrics";
const APPS: &str = "ws/v1/cluster/apps";
const NODES: &str = "ws/v1/cluster/nodes";
const SCHEDULER: &str = "ws/v1/cluster/scheduler";
const JMX: &str = "jmx?qry=Hadoop:service=ResourceManager,name=ShepherdScheduler*";

pub async fn run(s: Arc<Sidecar>) {
    let c = &s.config.rm;
    let mut backoff = Backoff::new(Duration::from_millis(c.backoff_initial_ms), Duration::from_millis(c.backoff_max_ms));
    let interval = Duration::from_millis(c.poll_interval_ms);
    loop {
        let started = Instant::now();
        let outcome = poll_once(&s).await;
        s.metrics.rm_poll_seconds.observe(started.elapsed().as_secs_f64());
        let wait = match outcome {
            Ok(()) => {
                backoff.reset();
                s.metrics.rm_polls.with_label_values(&["ok"]).inc();
                s.write().rm.next_retry_ms = None;
                interval
            }
            Err(e) => {
                let delay = backoff.next_delay();
                s.metrics.rm_polls.with_label_values(&["error"]).inc();
                let failures = {
                    let mut o = s.write();
                    o.rm.last_error = Some(e.to_string());
                    o.rm.consecutive_failures += 1;
                    o.rm.next_retry_ms = Some(now_ms() + delay.as_millis() as i64);
                    o.rm.consecutive_failures
                };
                // First failures and then every tenth: an RM down for an hour must not flood the log.
                if failures <= 3 || failures % 10 == 0 {
                    tracing::warn!(error = %e, failures, retry_in_ms = delay.as_millis() as u64, "ResourceManager poll failed; serving stale data");
                }
                delay
            }
        };
        s.metrics.rm_backoff_seconds.set(if wait == interval { 0.0 } else { wait.as_secs_f64() });
        tokio::select! {
            _ = tokio::time::sleep(wait) => {}
            _ = s.poll_now.notified() => {}
        }
    }
}

fn count(s: &Sidecar, endpoint: &str, e: &FetchError) {
    s.metrics.rm_request_errors.with_label_values(&[endpoint, e.kind()]).inc();
    if let FetchError::Malformed(m) = e {
        s.metrics.rm_malformed.with_label_values(&[endpoint]).inc();
        tracing::warn!(endpoint, error = %m, "malformed ResourceManager response ignored");
    }
}

async fn get<T>(s: &Sidecar, endpoint: &'static str, path: &str, parse: fn(&[u8]) -> Result<T, model::Malformed>) -> Result<T, FetchError> {
    let r = match s.rm.fetch(path).await {
        Ok(body) => parse(&body).map_err(FetchError::from),
        Err(e) => Err(e),
    };
    if let Err(e) = &r {
        count(s, endpoint, e);
    }
    r
}

/// One poll. Succeeds when info, metrics, apps and nodes were all read;
/// whatever was read is stored even when the poll fails.
pub async fn poll_once(s: &Sidecar) -> Result<(), FetchError> {
    let attempt = now_ms();
    s.write().rm.last_attempt_ms = Some(attempt);
    let before = s.rm.active_address().to_string();
    let (info, passed_over) = s.rm.find_active().await.inspect_err(|e| count(s, "info", e))?;
    for e in &passed_over {
        count(s, "info", e);
    }
    let active = s.rm.active_address().to_string();
    // A switch after the first successful poll is a failover; before it,
    // just finding the active RM.
    if active != before && s.read().rm.last_success_ms.is_some() {
        s.metrics.rm_failovers.inc();
        tracing::info!(from = %before, to = %active, "following the active ResourceManager");
    }
    let metrics = get(s, "metrics", METRICS, model::parse_metrics).await;
    let apps = get(s, "apps", APPS, model::parse_apps).await;
    let nodes = get(s, "nodes", NODES, model::parse_nodes).await;
    let scheduler = get(s, "scheduler", SCHEDULER, model::parse_scheduler).await.ok();
    let shim = get(s, "jmx", JMX, model::parse_shim_jmx).await.ok().flatten();

    let now = now_ms();
    let mut o = s.write();
    let o = &mut *o;
    o.rm.active_address = active;
    o.rm.info = Some(info);
    if let Some(sv) = scheduler {
        o.rm.scheduler = Some(sv);
    }
    o.rm.shim = shim.or(o.rm.shim.take());
    let mut first_error = None;
    match metrics {
        Ok(m) => {
            let series = &mut o.series;
            series.record("cluster.allocated_memory_mb", now, m.allocated_mb as f64);
            series.record("cluster.total_memory_mb", now, m.total_mb as f64);
            series.record("cluster.allocated_vcores", now, m.allocated_virtual_cores as f64);
            series.record("cluster.total_vcores", now, m.total_virtual_cores as f64);
            series.record("cluster.apps_running", now, m.apps_running as f64);
            series.record("cluster.apps_pending", now, m.apps_pending as f64);
            o.rm.metrics = Some(m);
        }
        Err(e) => first_error = first_error.or(Some(e)),
    }
    match apps {
        Ok(mut a) => {
            for app in a.iter().filter(|a| !a.is_finished()) {
                o.series.record(&format!("app.{}.allocated_memory_mb", app.id), now, app.allocated_mb as f64);
                o.series.record(&format!("app.{}.running_containers", app.id), now, app.running_containers as f64);
            }
            // Newest first, bounded.
            a.sort_by(|x, y| y.started_time.cmp(&x.started_time).then(y.id.cmp(&x.id)));
            a.truncate(s.config.rm.max_apps);
            o.rm.apps = a;
        }
        Err(e) => first_error = first_error.or(Some(e)),
    }
    match nodes {
        Ok(n) => {
            for node in &n {
                let h = &node.node_host_name;
                o.series.record(&format!("node.{h}.allocated_memory_mb"), now, node.used_memory_mb as f64);
                if let Some(u) = &node.resource_utilization {
                    o.series.record(&format!("node.{h}.memory_mb"), now, u.node_physical_memory_mb);
                    o.series.record(&format!("node.{h}.vcores"), now, u.node_cpu_usage);
                }
            }
            o.rm.nodes = n;
        }
        Err(e) => first_error = first_error.or(Some(e)),
    }
    o.series.prune(now);
    if let Some(e) = first_error {
        return Err(e);
    }
    o.rm.last_success_ms = Some(now);
    o.rm.last_error = None;
    o.rm.consecutive_failures = 0;
    Ok(())
}
