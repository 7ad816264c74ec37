//! What the engine shows of itself: its metrics (counters, cluster size and
//! every plugin's gauges) and the typed views of its state and nodes
//! (`engine::view`), read under the engine's lock by the JNI shim and the
//! control channel.

use super::view::{AppView, BlockedView, ClusterView, EngineView, LeftoverHoldView, LoadEstimateView, NodeView, QueueAcl, QueueView};
use super::{faults, Engine};
use crate::model::NodeId;
use crate::policy::Gauge;

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
        if super::preemption::enabled(&self.config) {
            let p = self.preemption.stats();
            out.extend([
                count("preemption_rounds_total", p.rounds, "Rounds of queue-guarantee preemption"),
                count("preemption_marked_containers_total", p.marked, "Containers marked for a queue's guarantee (the AM was told)"),
                count("preemption_killed_containers_total", p.killed, "Marked containers killed after preemption.wait_before_kill_ms"),
                count("preemption_withdrawn_containers_total", p.withdrawn, "Marks dropped because the container was no longer needed"),
                count(
                    "preemption_spared_containers_total",
                    p.spared,
                    "Containers left alone as ending within the wait anyway (preemption.spare_finishing)",
                ),
            ]);
        }
        out.extend(self.policies.gauges(s));
        out
    }

    /// The engine's state as the shim, the control channel and the sidecar
    /// see it: cluster summary, queues, apps (with what their pipeline knows
    /// of them and why they wait), the queue order and every pipeline with
    /// each plugin's state.
    pub fn view(&self) -> EngineView {
        let s = &self.state;
        let host = |node: &NodeId| s.nodes.get(node).map(|n| n.host.clone());
        let apps = s
            .apps
            .values()
            .map(|a| AppView {
                app: a.id,
                yarn_id: a.yarn_id.clone(),
                queue: s.queues[a.queue].name.clone(),
                user: a.user.clone(),
                name: a.name.clone(),
                attempt: a.attempt,
                allocated: a.allocated.0.to_vec(),
                pending: a.pending().0.to_vec(),
                pending_containers: a.pending_containers(),
                running_containers: a.containers.len(),
                dominant_share: a.allocated.dominant_share(&s.capacity),
                attained_ms: a.attained_ms(s.now_ms),
                blocked: s.waiting.of(a.id).map(|(at, node, why)| BlockedView { at_ms: at, node: host(&node), reason: why.to_string() }),
                pipeline: self.policies.app_json(s, a),
            })
            .collect();
        let queues = s
            .queues
            .iter()
            .map(|q| QueueView {
                name: q.name.clone(),
                path: format!("root.{}", q.name),
                policy: self.policies.pipeline_of(q.id).policy.clone(),
                weight: q.weight,
                capacity: q.capacity,
                max_capacity: q.max_capacity,
                allocated: q.allocated.0.to_vec(),
                pending: q.pending.0.to_vec(),
                apps: q.running_apps,
            })
            .collect();
        let queue_acls = self
            .config
            .queues
            .iter()
            .map(|q| (q.name.clone(), QueueAcl { submit: q.submit_acl.clone(), admin: q.admin_acl.clone() }))
            .collect();
        let mut policies = self.policies.state_json(s);
        EngineView {
            policy: self.config.scheduler.policy.clone(),
            now_ms: s.now_ms,
            resource_types: s.resource_names.clone(),
            cluster: ClusterView {
                nodes: s.nodes.len(),
                capacity: s.capacity.0.to_vec(),
                allocated: s.allocated.0.to_vec(),
                containers: s.containers.len(),
            },
            counters: self.counters,
            leftover_holds: s
                .leftover_holds
                .iter()
                .map(|(node, h)| LeftoverHoldView {
                    node: host(node),
                    app: h.app,
                    priority: h.key.priority,
                    since_ms: h.since_ms,
                    reservation: h.reservation,
                })
                .collect(),
            queues,
            queue_acls,
            apps,
            queue_order: policies["queue_order"].take(),
            pipelines: policies["pipelines"].take(),
            preemption: super::preemption::enabled(&self.config).then(|| self.preemption.view(s, &self.config)),
        }
    }

    /// [`Engine::view`] as JSON: what the JNI shim's `stateJson` and the
    /// control channel's `state` answer carry.
    pub fn state_json(&self) -> serde_json::Value {
        serde_json::to_value(self.view()).expect("the engine's view serializes")
    }

    /// Every node, for the sidecar's join with the RM's node list (by host).
    pub fn nodes_view(&self) -> Vec<NodeView> {
        let now = self.state.now_ms;
        self.state
            .nodes
            .values()
            .map(|n| NodeView {
                node: n.id,
                host: n.host.clone(),
                rack: n.rack.clone(),
                capacity: n.capacity.0.to_vec(),
                allocated: n.allocated.0.to_vec(),
                utilization: n.utilization.map(|u| u.0.to_vec()),
                load_estimate: n.load_estimate.map(|l| LoadEstimateView { used: l.used.0.to_vec(), expires_ms: l.expires_ms }),
                load_estimate_valid: n.load_estimate_at(now).is_some(),
                containers: n.containers.len(),
                last_heartbeat_ms: n.last_heartbeat_ms,
            })
            .collect()
    }
}
