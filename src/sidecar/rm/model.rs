//! The ResourceManager's REST responses as the sidecar reads them
//! (`/ws/v1/cluster/{info,metrics,apps,nodes,scheduler}` and the shim's
//! `/jmx` bean). Fields the sidecar does not use are ignored; missing fields
//! take defaults (RM versions differ). A body that is not JSON, is
//! truncated, or lacks the expected top-level object is a [`Malformed`]
//! error, which the poller counts and logs.

use serde::{Deserialize, Serialize};
use serde_json::Value;

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("malformed {endpoint} response: {reason}")]
pub struct Malformed {
    pub endpoint: &'static str,
    pub reason: String,
}

fn malformed(endpoint: &'static str, reason: impl Into<String>) -> Malformed {
    Malformed { endpoint, reason: reason.into() }
}

/// Parse `body` and take the object under `key` (`{"clusterInfo": {...}}`).
fn envelope(endpoint: &'static str, body: &[u8], key: &str) -> Result<Value, Malformed> {
    let v: Value = serde_json::from_slice(body).map_err(|e| malformed(endpoint, e.to_string()))?;
    match v.get(key) {
        Some(inner) => Ok(inner.clone()),
        None => Err(malformed(endpoint, format!("no `{key}` object"))),
    }
}

fn typed<T: for<'de> Deserialize<'de>>(endpoint: &'static str, v: Value) -> Result<T, Malformed> {
    serde_json::from_value(v).map_err(|e| malformed(endpoint, e.to_string()))
}

#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
#[serde(rename_all = "camelCase", default)]
pub struct ClusterInfo {
    pub id: i64,
    pub started_on: i64,
    pub state: String,
    /// `ACTIVE`, `STANDBY`, `INITIALIZING`, `STOPPING`; `ACTIVE` without HA.
    pub ha_state: String,
    pub resource_manager_version: String,
    pub hadoop_version: String,
}

pub fn parse_info(body: &[u8]) -> Result<ClusterInfo, Malformed> {
    typed("info", envelope("info", body, "clusterInfo")?)
}

#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
#[serde(rename_all = "camelCase", default)]
pub struct ClusterMetrics {
    pub apps_submitted: i64,
    pub apps_completed: i64,
    pub apps_pending: i64,
    pub apps_running: i64,
    pub apps_failed: i64,
    pub apps_killed: i64,
    #[serde(rename = "allocatedMB")]
    pub allocated_mb: i64,
    #[serde(rename = "availableMB")]
    pub available_mb: i64,
    #[serde(rename = "reservedMB")]
    pub reserved_mb: i64,
    #[serde(rename = "totalMB")]
    pub total_mb: i64,
    pub allocated_virtual_cores: i64,
    pub available_virtual_cores: i64,
    pub reserved_virtual_cores: i64,
    pub total_virtual_cores: i64,
    pub containers_allocated: i64,
    pub containers_pending: i64,
    pub containers_reserved: i64,
    pub total_nodes: i64,
    pub active_nodes: i64,
    pub lost_nodes: i64,
    pub unhealthy_nodes: i64,
    pub decommissioned_nodes: i64,
}

pub fn parse_metrics(body: &[u8]) -> Result<ClusterMetrics, Malformed> {
    typed("metrics", envelope("metrics", body, "clusterMetrics")?)
}

#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
#[serde(rename_all = "camelCase", default)]
pub struct App {
    pub id: String,
    pub user: String,
    pub name: String,
    pub queue: String,
    pub state: String,
    pub final_status: String,
    pub progress: f64,
    pub application_type: String,
    pub application_tags: String,
    pub priority: i64,
    pub started_time: i64,
    pub launch_time: i64,
    pub finished_time: i64,
    pub elapsed_time: i64,
    #[serde(rename = "allocatedMB")]
    pub allocated_mb: i64,
    #[serde(rename = "allocatedVCores")]
    pub allocated_vcores: i64,
    pub running_containers: i64,
    pub memory_seconds: i64,
    pub vcore_seconds: i64,
    pub queue_usage_percentage: f64,
    pub cluster_usage_percentage: f64,
    pub diagnostics: String,
}

impl App {
    pub fn is_finished(&self) -> bool {
        matches!(self.state.as_str(), "FINISHED" | "FAILED" | "KILLED")
    }

    /// Submitted but the RM has not launched its ApplicationMaster yet.
    pub fn awaiting_am(&self) -> bool {
        matches!(self.state.as_str(), "NEW" | "NEW_SAVING" | "SUBMITTED" | "ACCEPTED")
    }
}

/// `{"apps": {"app": [...]}}`; the RM writes `{"apps": null}` when there are none.
pub fn parse_apps(body: &[u8]) -> Result<Vec<App>, Malformed> {
    let inner = envelope("apps", body, "apps")?;
    match inner {
        Value::Null => Ok(vec![]),
        Value::Object(mut o) => match o.remove("app") {
            None | Some(Value::Null) => Ok(vec![]),
            Some(list @ Value::Array(_)) => typed("apps", list),
            Some(other) => Err(malformed("apps", format!("`apps.app` is not a list: {:.80}", other.to_string()))),
        },
        other => Err(malformed("apps", format!("`apps` is not an object: {:.80}", other.to_string()))),
    }
}

#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
#[serde(rename_all = "camelCase", default)]
pub struct ResourceUtilization {
    #[serde(rename = "nodePhysicalMemoryMB")]
    pub node_physical_memory_mb: f64,
    #[serde(rename = "nodeVirtualMemoryMB")]
    pub node_virtual_memory_mb: f64,
    /// vcores in use on the whole node (YARN `ResourceUtilization.getCPU`).
    #[serde(rename = "nodeCPUUsage")]
    pub node_cpu_usage: f64,
    #[serde(rename = "aggregatedContainersPhysicalMemoryMB")]
    pub containers_physical_memory_mb: f64,
    #[serde(rename = "containersCPUUsage")]
    pub containers_cpu_usage: f64,
}

#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
#[serde(rename_all = "camelCase", default)]
pub struct NodeReport {
    pub id: String,
    pub rack: String,
    pub state: String,
    pub node_host_name: String,
    #[serde(rename = "nodeHTTPAddress")]
    pub node_http_address: String,
    pub last_health_update: i64,
    pub health_report: String,
    pub num_containers: i64,
    #[serde(rename = "usedMemoryMB")]
    pub used_memory_mb: i64,
    #[serde(rename = "availMemoryMB")]
    pub avail_memory_mb: i64,
    pub used_virtual_cores: i64,
    pub available_virtual_cores: i64,
    pub resource_utilization: Option<ResourceUtilization>,
}

/// `{"nodes": {"node": [...]}}`, or `{"nodes": null}` with no NodeManagers.
pub fn parse_nodes(body: &[u8]) -> Result<Vec<NodeReport>, Malformed> {
    let inner = envelope("nodes", body, "nodes")?;
    match inner {
        Value::Null => Ok(vec![]),
        Value::Object(mut o) => match o.remove("node") {
            None | Some(Value::Null) => Ok(vec![]),
            Some(list @ Value::Array(_)) => typed("nodes", list),
            Some(other) => Err(malformed("nodes", format!("`nodes.node` is not a list: {:.80}", other.to_string()))),
        },
        other => Err(malformed("nodes", format!("`nodes` is not an object: {:.80}", other.to_string()))),
    }
}

/// One queue of the RM's scheduler view (CapacityScheduler and
/// FairScheduler list them; Shepherd shows as a FIFO-type scheduler whose
/// queues the engine's state holds instead).
#[derive(Debug, Clone, Default, Serialize, PartialEq)]
pub struct RmQueue {
    pub name: String,
    pub used_capacity: Option<f64>,
    pub capacity: Option<f64>,
    pub max_capacity: Option<f64>,
    pub apps: Option<i64>,
}

#[derive(Debug, Clone, Default, Serialize, PartialEq)]
pub struct SchedulerView {
    /// `fifoScheduler`, `capacityScheduler`, `fairScheduler`, ...
    pub kind: String,
    pub queues: Vec<RmQueue>,
    /// The whole `schedulerInfo`, passed through.
    pub raw: Value,
}

pub fn parse_scheduler(body: &[u8]) -> Result<SchedulerView, Malformed> {
    let inner = envelope("scheduler", body, "scheduler")?;
    let info = inner.get("schedulerInfo").cloned().ok_or_else(|| malformed("scheduler", "no `schedulerInfo`"))?;
    if !info.is_object() {
        return Err(malformed("scheduler", "`schedulerInfo` is not an object"));
    }
    let mut queues = Vec::new();
    collect_queues(&info, &mut queues, 0);
    Ok(SchedulerView { kind: info.get("type").and_then(Value::as_str).unwrap_or("").to_string(), queues, raw: info })
}

/// Walk `queues.queue[]` (CapacityScheduler) or `childQueues` (FairScheduler).
fn collect_queues(v: &Value, out: &mut Vec<RmQueue>, depth: usize) {
    if depth > 32 {
        return;
    }
    let children = v
        .get("queues")
        .and_then(|q| q.get("queue"))
        .or_else(|| v.get("childQueues").and_then(|c| c.get("queue").or(Some(c))))
        .or_else(|| v.get("rootQueue"));
    let list: Vec<&Value> = match children {
        Some(Value::Array(a)) => a.iter().collect(),
        Some(o @ Value::Object(_)) => vec![o],
        _ => vec![],
    };
    for q in list {
        let name = q.get("queuePath").or_else(|| q.get("queueName")).and_then(Value::as_str).unwrap_or("").to_string();
        if !name.is_empty() {
            out.push(RmQueue {
                name,
                used_capacity: q.get("usedCapacity").and_then(Value::as_f64),
                capacity: q.get("capacity").and_then(Value::as_f64),
                max_capacity: q.get("maxCapacity").and_then(Value::as_f64),
                apps: q.get("numApplications").or_else(|| q.get("numActiveApps")).and_then(Value::as_i64),
            });
        }
        collect_queues(q, out, depth + 1);
    }
}

/// The shim's own counters from the RM's `/jmx` (metrics2 source
/// `ShepherdScheduler`): what the sidecar re-exports as JNI errors and fallbacks.
#[derive(Debug, Clone, Default, Serialize, PartialEq)]
pub struct ShimCounters {
    pub engine_allocations: f64,
    pub fallback_allocations: f64,
    pub engine_failures: f64,
    /// Heartbeats the safe FIFO scheduled (engine failed or degraded).
    pub fallback_heartbeats: f64,
    pub engine_rebuilds: f64,
    pub rejected_decisions: f64,
    pub crossings: f64,
    /// Mean crossing time over the metrics system's last interval, ns.
    pub crossing_avg_nanos: f64,
    /// Containers the NodeManagers reported after a work-preserving restart.
    pub recovered_containers: f64,
    /// Scheduling rounds between heartbeats that crossed into the engine,
    /// and the containers of theirs YARN carried out.
    pub async_rounds: f64,
    pub async_allocations: f64,
}

/// `{"beans": [{"name": "Hadoop:service=ResourceManager,name=ShepherdScheduler", ...}]}`;
/// `Ok(None)` when the RM runs another scheduler (no such bean).
pub fn parse_shim_jmx(body: &[u8]) -> Result<Option<ShimCounters>, Malformed> {
    let beans = envelope("jmx", body, "beans")?;
    let Value::Array(beans) = beans else { return Err(malformed("jmx", "`beans` is not a list")) };
    let Some(b) = beans.iter().find(|b| b.get("name").and_then(Value::as_str).is_some_and(|n| n.ends_with("name=ShepherdScheduler")))
    else {
        return Ok(None);
    };
    let f = |k: &str| b.get(k).and_then(Value::as_f64).unwrap_or(0.0);
    Ok(Some(ShimCounters {
        engine_allocations: f("EngineAllocations"),
        fallback_allocations: f("FallbackAllocations"),
        engine_failures: f("EngineFailures"),
        fallback_heartbeats: f("FallbackHeartbeats"),
        engine_rebuilds: f("EngineRebuilds"),
        rejected_decisions: f("RejectedDecisions"),
        crossings: f("CrossingNanosNumOps"),
        crossing_avg_nanos: f("CrossingNanosAvgTime"),
        recovered_containers: f("RecoveredContainers"),
        async_rounds: f("AsyncRounds"),
        async_allocations: f("AsyncAllocations"),
    }))
}
