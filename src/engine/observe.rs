//! What the engine shows of itself: its metrics (counters, cluster size and
//! every plugin's gauges) and the JSON view of its state, both read under
//! the engine's lock by the JNI shim and the control channel.

use super::{faults, Engine};
use crate::policy::Gauge;
use std::collections::HashMap;

impl Engine {
    /// Metrics: the engine's counters and cluster size, then the policy's
    /// gauges (`Policy::gauges`). Names carry no `shepherd_` prefix; the
    /// shim adds it when it publishes them (Hadoop metrics2, `/prom`).
    pub fn gauges(&self) -> Vec<Gauge> {
        let c = &self.counters;
        let s = &self.state;
        let count = |name: &str, n: u64, help: &str| Gauge::counter(name, n as f64, help);
        let seconds = |name: &str, ns: u64, help: &str| Gauge::counter(name, ns as f64 / 1e9, help);
        let mut out = vec![
            count("engine_events_total", c.events, "Events the engine applied"),
            count("engine_passes_total", c.passes, "Scheduling passes (one per NodeManager heartbeat)"),
            count("engine_allocations_total", c.allocations, "Containers the engine allocated"),
            count("engine_preemptions_total", c.preemptions, "Containers the engine preempted"),
            count("engine_rejected_allocations_total", c.rejected_allocations, "Engine allocations the driver could not carry out"),
            count(
                "engine_unknown_references_total",
                c.unknown_references,
                "Events ignored because they named an unknown node, app or container",
            ),
            Gauge::new("engine_nodes", s.nodes.len() as f64, "NodeManagers the engine knows"),
            Gauge::new("engine_apps", s.apps.len() as f64, "Applications the engine knows"),
            Gauge::new("engine_containers", s.containers.len() as f64, "Running containers the engine knows"),
            count("engine_reconfigurations_total", c.reconfigurations, "Configs applied in place (-refreshQueues)"),
            count("engine_app_moves_total", c.app_moves, "Applications moved to another queue (yarn application -movetoqueue)"),
            count("engine_rounds_total", c.rounds, "Scheduling rounds between heartbeats (asynchronous scheduling) that ran passes"),
            count(
                "engine_round_allocations_total",
                c.round_allocations,
                "Containers allocated by scheduling rounds between heartbeats (the rest by heartbeat passes)",
            ),
            count("engine_round_proposals_total", c.round_proposals, "Placements proposed by the proposers of parallel scheduling rounds"),
            count(
                "engine_round_conflicts_total",
                c.round_conflicts,
                "Proposals of parallel scheduling rounds rejected as conflicting with an earlier commit",
            ),
            seconds(
                "engine_round_propose_seconds_total",
                c.round_propose_ns,
                "Wall time parallel scheduling rounds spent in their proposers (state copies and passes, in parallel)",
            ),
            seconds(
                "engine_round_commit_seconds_total",
                c.round_commit_ns,
                "Wall time parallel scheduling rounds spent validating and committing proposals and retrying conflicted nodes",
            ),
        ];
        if self.config.scheduler.fault_injection != "none" || faults::injected_total() > 0 {
            out.push(Gauge::counter(
                "engine_faults_injected_total",
                faults::injected_total() as f64,
                "Faults injected on purpose by scheduler.fault_injection (test-only), by every engine of this process",
            ));
        }
        out.extend(self.policies.gauges(s));
        out
    }

    /// JSON view of the engine: cluster summary, queues, apps (with what
    /// their pipeline knows of them and why they wait), the queue order and
    /// every pipeline with each plugin's state.
    pub fn state_json(&self) -> serde_json::Value {
        let s = &self.state;
        let apps: Vec<_> = s
            .apps
            .values()
            .map(|a| {
                let blocked = s.waiting.of(a.id).map(|(at, node, why)| {
                    serde_json::json!({"at_ms": at, "node": s.nodes.get(&node).map(|n| n.host.as_str()), "reason": why.to_string()})
                });
                serde_json::json!({
                    "app": a.id,
                    "yarn_id": a.yarn_id,
                    "queue": s.queues[a.queue].name,
                    "user": a.user,
                    "name": a.name,
                    "attempt": a.attempt,
                    "allocated": a.allocated.0,
                    "pending": a.pending().0,
                    "pending_containers": a.pending_containers(),
                    "running_containers": a.containers.len(),
                    "dominant_share": a.allocated.dominant_share(&s.capacity),
                    "attained_ms": a.attained_ms(s.now_ms),
                    "blocked": blocked,
                    "pipeline": self.policies.app_json(s, a),
                })
            })
            .collect();
        let queues: Vec<_> = s
            .queues
            .iter()
            .map(|q| {
                serde_json::json!({
                    "name": q.name,
                    "path": format!("root.{}", q.name),
                    "policy": self.policies.pipeline_of(q.id).policy,
                    "weight": q.weight,
                    "capacity": q.capacity,
                    "max_capacity": q.max_capacity,
                    "allocated": q.allocated.0,
                    "pending": q.pending.0,
                    "apps": q.running_apps,
                })
            })
            .collect();
        let acls: HashMap<_, _> = self
            .config
            .queues
            .iter()
            .map(|q| (q.name.clone(), serde_json::json!({"submit": q.submit_acl, "admin": q.admin_acl})))
            .collect();
        let policies = self.policies.state_json(s);
        serde_json::json!({
            "policy": self.config.scheduler.policy,
            "now_ms": s.now_ms,
            "resource_types": s.resource_names,
            "cluster": {
                "nodes": s.nodes.len(),
                "capacity": s.capacity.0,
                "allocated": s.allocated.0,
                "containers": s.containers.len(),
            },
            "counters": self.counters,
            // Nodes held for a leftover ask (`engine::pass`): who waits where.
            "leftover_holds": s.leftover_holds.iter().map(|(node, h)| serde_json::json!({
                "node": s.nodes.get(node).map(|n| n.host.as_str()),
                "app": h.app,
                "priority": h.key.priority,
                "since_ms": h.since_ms,
            })).collect::<Vec<_>>(),
            "queues": queues,
            "queue_acls": acls,
            "apps": apps,
            "queue_order": policies["queue_order"],
            "pipelines": policies["pipelines"],
        })
    }
}
