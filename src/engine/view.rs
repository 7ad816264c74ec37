//! The typed views the engine shows of itself: its state
//! ([`EngineView`], what `Engine::state_json` serializes) and its per-node
//! list ([`NodeView`], what the control channel's `state` answer carries
//! next to it). The shim, the control channel and the sidecar all see these
//! types, serialized with serde; the sidecar deserializes exactly these, so
//! renaming a field here changes what both sides compile against instead
//! of silently dropping a key from its API and `/metrics`.
//!
//! Numbers keep the engine's own types: resource vectors are `i64` per
//! resource type (in `resource_types` order, [`MAX_RESOURCE_TYPES`] long),
//! counts are `usize`, app and node numbers are [`AppId`] and [`NodeId`].
//!
//! What each policy's plugins report (an app's `pipeline`, the
//! `queue_order` and `pipelines` entries) differs per policy and plugin and
//! is defined by the plugins, not the engine: it stays
//! [`serde_json::Value`].
//!
//! Fields are declared in the order the JSON has always listed them; the
//! JSON text is the same either way, because `state_json` goes through
//! `serde_json::to_value`, whose maps sort their keys.
//!
//! [`MAX_RESOURCE_TYPES`]: crate::model::resource::MAX_RESOURCE_TYPES

use super::Counters;
use crate::model::{AppId, NodeId};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;

/// The engine's state: cluster summary, counters, queues, apps (with what
/// their pipeline knows of them and why they wait), the queue order and
/// every pipeline with each plugin's state.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EngineView {
    /// `scheduler.policy`.
    pub policy: String,
    pub now_ms: i64,
    /// Names of the resource types, in the order of every resource vector.
    pub resource_types: Vec<String>,
    pub cluster: ClusterView,
    pub counters: Counters,
    /// Nodes held for a leftover ask (`engine::pass`): who waits where.
    pub leftover_holds: Vec<LeftoverHoldView>,
    pub queues: Vec<QueueView>,
    /// Each configured queue's ACLs, by queue name.
    pub queue_acls: BTreeMap<String, QueueAcl>,
    pub apps: Vec<AppView>,
    /// The queue-order plugin: `{"name", "state"}`, its state per plugin
    /// (untyped: plugin-defined).
    pub queue_order: Value,
    /// Every pipeline: queue, scope, policy, spec and each plugin's state
    /// (untyped: the plugins and their states differ per policy).
    pub pipelines: Value,
    /// Queue-guarantee preemption, when a queue has it on: its settings,
    /// what each queue looked like in the last round, and the marks.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preemption: Option<super::preemption::PreemptionView>,
}

/// The cluster as a whole.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ClusterView {
    pub nodes: usize,
    pub capacity: Vec<i64>,
    pub allocated: Vec<i64>,
    pub containers: usize,
}

/// A node held for an app's leftover ask, or reserved for its ask
/// (`scheduler.reservable_nodes`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LeftoverHoldView {
    /// The node's host; `None` if the node is gone.
    pub node: Option<String>,
    pub app: AppId,
    /// The held ask's priority.
    pub priority: i32,
    pub since_ms: i64,
    /// A YARN-style reservation rather than a leftover hold (listed only
    /// when true).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub reservation: bool,
}

/// One queue.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct QueueView {
    /// Leaf name (`alpha`).
    pub name: String,
    /// Full path (`root.alpha`).
    pub path: String,
    /// The policy of the pipeline that serves it.
    pub policy: String,
    pub weight: f64,
    pub capacity: f64,
    pub max_capacity: f64,
    pub allocated: Vec<i64>,
    pub pending: Vec<i64>,
    /// Running apps.
    pub apps: u32,
}

/// A queue's ACLs (`submit_acl`, `admin_acl` of its config).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct QueueAcl {
    pub submit: String,
    pub admin: String,
}

/// One application.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AppView {
    /// The engine's app number.
    pub app: AppId,
    /// The YARN application id; empty until the shim sends it.
    pub yarn_id: String,
    /// Leaf queue name.
    pub queue: String,
    pub user: String,
    pub name: String,
    /// Current attempt id; `null` until the RM adds the first attempt.
    pub attempt: Option<u32>,
    pub allocated: Vec<i64>,
    pub pending: Vec<i64>,
    pub pending_containers: i64,
    pub running_containers: usize,
    pub dominant_share: f64,
    pub attained_ms: i64,
    /// Why it waits, as of the last pass that could not place it; `None`
    /// when it is not waiting.
    pub blocked: Option<BlockedView>,
    /// What its pipeline knows of it (policy, estimate, pool, each plugin's
    /// per-app view; untyped: plugin-defined).
    pub pipeline: Value,
}

/// Why an app waits: the last node it could not be placed on, and why.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BlockedView {
    pub at_ms: i64,
    /// The node's host; `None` if the node is gone.
    pub node: Option<String>,
    pub reason: String,
}

/// One NodeManager, for the sidecar's join with the RM's node list (by host).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NodeView {
    pub node: NodeId,
    pub host: String,
    pub rack: String,
    pub capacity: Vec<i64>,
    pub allocated: Vec<i64>,
    /// Its last reported utilization, if any.
    pub utilization: Option<Vec<i64>>,
    /// The load estimate pushed for it (it may have expired).
    pub load_estimate: Option<LoadEstimateView>,
    /// Whether `load_estimate` is still valid now.
    pub load_estimate_valid: bool,
    /// Running containers.
    pub containers: usize,
    pub last_heartbeat_ms: i64,
}

/// A pushed load estimate: expected use, valid until `expires_ms`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LoadEstimateView {
    pub used: Vec<i64>,
    pub expires_ms: i64,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn roundtrip(v: &EngineView) -> EngineView {
        let json = serde_json::to_value(v).unwrap();
        serde_json::from_value(json).unwrap()
    }

    #[test]
    fn a_state_with_an_app_a_queue_a_blocked_reason_and_a_hold_round_trips() {
        let v = EngineView {
            policy: "dress".into(),
            now_ms: 12_345,
            resource_types: vec!["memory-mb".into(), "vcores".into()],
            cluster: ClusterView { nodes: 2, capacity: vec![8192, 8, 0], allocated: vec![2048, 2, 0], containers: 2 },
            counters: Counters { events: 9, passes: 4, allocations: 2, round_propose_ns: 17, ..Counters::default() },
            leftover_holds: vec![LeftoverHoldView { node: Some("nm-1".into()), app: 3, priority: 1, since_ms: 12_000, reservation: false }],
            queues: vec![QueueView {
                name: "alpha".into(),
                path: "root.alpha".into(),
                policy: "dress".into(),
                weight: 1.5,
                capacity: 0.25,
                max_capacity: 1.0,
                allocated: vec![2048, 2, 0],
                pending: vec![1024, 1, 0],
                apps: 1,
            }],
            queue_acls: BTreeMap::from([("alpha".into(), QueueAcl { submit: "ann,bob".into(), admin: "*".into() })]),
            apps: vec![AppView {
                app: 3,
                yarn_id: "application_1_0004".into(),
                queue: "alpha".into(),
                user: "ann".into(),
                name: "wordcount".into(),
                attempt: Some(1),
                allocated: vec![2048, 2, 0],
                pending: vec![1024, 1, 0],
                pending_containers: 1,
                running_containers: 2,
                dominant_share: 0.25,
                attained_ms: 4_000,
                blocked: Some(BlockedView { at_ms: 12_300, node: None, reason: "no room on the node".into() }),
                pipeline: serde_json::json!({"policy": "dress", "pool": "small", "estimate": {"ms": 3000.5}}),
            }],
            queue_order: serde_json::json!({"name": "fifo", "state": null}),
            pipelines: serde_json::json!([{"queue": "root", "plugins": {"reserve": {"name": "dress", "state": {"delta": 0.25}}}}]),
            preemption: None,
        };
        assert_eq!(roundtrip(&v), v);
        assert!(!serde_json::to_string(&v).unwrap().contains("\"preemption\":"), "absent while no queue preempts");
        let text = serde_json::to_string(&serde_json::to_value(&v).unwrap()).unwrap();
        assert!(text.contains(r#""blocked":{"at_ms":12300,"node":null,"reason":"no room on the node"}"#), "{text}");
        assert!(text.contains(r#""leftover_holds":[{"app":3,"node":"nm-1","priority":1,"since_ms":12000}]"#), "{text}");
        // Not waiting, no hold, a node gone: still the same after the trip.
        let mut idle = v.clone();
        idle.apps[0].blocked = None;
        idle.leftover_holds[0].node = None;
        assert_eq!(roundtrip(&idle), idle);
        // With preemption on: its settings, a queue's last round and a mark.
        let mut pre = v.clone();
        pre.preemption = Some(super::super::preemption::PreemptionView {
            interval_ms: 3_000,
            wait_before_kill_ms: 15_000,
            dead_zone: 0.1,
            max_per_round: 0.1,
            spare_finishing: true,
            stats: super::super::preemption::PreemptionStats { rounds: 4, marked: 2, killed: 1, withdrawn: 0, spared: 1 },
            queues: vec![super::super::preemption::QueueReport {
                queue: "alpha".into(),
                reclaims: true,
                guaranteed_share: 0.25,
                dominant_share: 0.1,
                starved_for: vec![1024, 1],
                over_share: false,
                marked: 0,
            }],
            marked: vec![super::super::preemption::MarkView {
                container: 7,
                app: 3,
                from_queue: "beta".into(),
                for_queue: "alpha".into(),
                marked_ms: 12_000,
                kill_at_ms: 27_000,
            }],
            kills_in_flight: 1,
        });
        assert_eq!(roundtrip(&pre), pre);
    }

    #[test]
    fn a_node_round_trips_with_and_without_utilization_and_estimate() {
        let n = NodeView {
            node: 0,
            host: "nm-1".into(),
            rack: "/default-rack".into(),
            capacity: vec![4096, 4],
            allocated: vec![1024, 1],
            utilization: Some(vec![900, 1]),
            load_estimate: Some(LoadEstimateView { used: vec![1000, 2], expires_ms: 60_000 }),
            load_estimate_valid: true,
            containers: 1,
            last_heartbeat_ms: 59_000,
        };
        let bare = NodeView { utilization: None, load_estimate: None, load_estimate_valid: false, ..n.clone() };
        for n in [n, bare] {
            let back: NodeView = serde_json::from_value(serde_json::to_value(&n).unwrap()).unwrap();
            assert_eq!(back, n);
        }
    }
}
