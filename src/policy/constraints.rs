//! The `constraints` filter: an ask that came from a YARN
//! `SchedulingRequest` goes only on nodes its placement constraint allows.
//!
//! Megha's match (§IV-B, Algorithm 1) compiles a task's constraints to one
//! candidate bit-vector (AND of the partition's per-constraint vectors) and
//! then scans only the candidates. Shepherd's pass is driven by node
//! heartbeats, so the question is the other way round — "may this ask go on
//! this node?" — and is asked for every (ask, node) pair the pass tries. The
//! filter therefore compiles an ask's candidate set once, from the index the
//! engine keeps in `ClusterState`, caches it per ask, and answers each
//! `fits` with one bit test. The cache entry is rebuilt when the index
//! moves (a node joined or left, attributes changed, a tagged container
//! started or ended) or the AM re-sent the ask.
//!
//! It is in every pipeline by default (`PipelineSpec::default`, and so every
//! built-in): a constrained ask placed on a node that violates it breaks
//! the AM's contract (anti-affinity exists to keep replicas apart), so
//! there is no policy reason to switch it off. Asks without a placement
//! pass at the cost of one `Option` test; an ask whose form was rejected
//! never fits.

use super::points::{Ctx, Filter, Plugin};
use super::Gauge;
use crate::model::constraint::{Candidates, Placement};
use crate::model::{App, AppId, Ask, Node, SchedulerKey};
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

struct Compiled {
    generation: u64,
    placement: Arc<Placement>,
    /// `None`: no node is in the ask's partition.
    candidates: Option<Candidates>,
}

#[derive(Default)]
pub struct Constraints {
    /// Compiled candidate sets per outstanding ask. `fits` takes `&self`,
    /// hence the lock (contended only by a parallel round's proposers,
    /// `engine::propose`; an entry compiled on one proposer's copy of the
    /// index carries that copy's generation, so another never trusts it).
    cache: Mutex<HashMap<(AppId, SchedulerKey), Compiled>>,
    compiled: AtomicU64,
    tests: AtomicU64,
    refused: AtomicU64,
}

impl Constraints {
    fn cache(&self) -> std::sync::MutexGuard<'_, HashMap<(AppId, SchedulerKey), Compiled>> {
        self.cache.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl Plugin for Constraints {
    fn name(&self) -> &'static str {
        "constraints"
    }

    fn on_app_removed(&mut self, _ctx: &Ctx, app: &App) {
        self.cache().retain(|(a, _), _| *a != app.id);
    }

    fn on_app_moved_out(&mut self, ctx: &Ctx, app: &App) {
        self.on_app_removed(ctx, app);
    }

    fn state_json(&self, ctx: &Ctx) -> serde_json::Value {
        serde_json::json!({
            "index": ctx.state.constraints.state_json(),
            "compiled_asks": self.cache().len(),
            "compilations": self.compiled.load(Ordering::Relaxed),
            "node_tests": self.tests.load(Ordering::Relaxed),
            "node_refusals": self.refused.load(Ordering::Relaxed),
        })
    }

    fn app_json(&self, _ctx: &Ctx, app: &App) -> Option<serde_json::Value> {
        let asks: Vec<_> = app
            .asks
            .values()
            .filter_map(|a| a.placement.as_ref().map(|p| (a, p)))
            .map(|(a, p)| {
                serde_json::json!({
                    "priority": a.key.priority,
                    "allocation_request_id": a.key.allocation_request_id,
                    "tags": p.tags,
                    "constraint": p.text,
                    "rejected": p.rejected,
                })
            })
            .collect();
        (!asks.is_empty()).then(|| serde_json::json!(asks))
    }

    fn gauges(&self, ctx: &Ctx) -> Vec<Gauge> {
        let idx = &ctx.state.constraints;
        vec![
            Gauge::new("constraints_bit_vectors", idx.vector_count() as f64, "Placement-constraint bit-vectors kept over all partitions"),
            Gauge::new(
                "constraints_partitions",
                idx.partition_count() as f64,
                "Node partitions (labels) the constraint index keeps vectors for",
            ),
            Gauge::counter(
                "constraints_compilations_total",
                self.compiled.load(Ordering::Relaxed) as f64,
                "Candidate sets compiled (AND/OR of bit-vectors) for constrained asks",
            ),
            Gauge::counter(
                "constraints_refusals_total",
                self.refused.load(Ordering::Relaxed) as f64,
                "Node tests a constrained ask failed (the node violates its placement constraint)",
            ),
        ]
    }
}

impl Filter for Constraints {
    fn fits(&self, ctx: &Ctx, app: &App, ask: &Ask, node: &Node) -> bool {
        let Some(p) = &ask.placement else { return true };
        if p.rejected.is_some() {
            return false;
        }
        let Some(constraint) = &p.constraint else { return true };
        let idx = &ctx.state.constraints;
        self.tests.fetch_add(1, Ordering::Relaxed);
        let mut cache = self.cache();
        let fresh = |c: &Compiled| c.generation == idx.generation() && Arc::ptr_eq(&c.placement, p);
        let entry =
            cache.entry((app.id, ask.key)).or_insert_with(|| Compiled { generation: u64::MAX, placement: p.clone(), candidates: None });
        if !fresh(entry) {
            let _span = tracing::trace_span!("constraints_compile", app = app.id).entered();
            self.compiled.fetch_add(1, Ordering::Relaxed);
            *entry =
                Compiled { generation: idx.generation(), placement: p.clone(), candidates: idx.candidates(&ask.label, app.id, constraint) };
        }
        let ok = entry.candidates.as_ref().is_some_and(|c| idx.contains(c, node.id));
        if !ok {
            self.refused.fetch_add(1, Ordering::Relaxed);
        }
        ok
    }
}
