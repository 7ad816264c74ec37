//! Scheduling between heartbeats (issue 14 item 2): a *round* runs the same
//! pass a NodeManager heartbeat runs, on the nodes that have room, without
//! waiting for those nodes to heartbeat — what the CapacityScheduler's
//! asynchronous scheduling threads do, and what Megha's GMs do when a task
//! arrives (§IV-B: a request is matched against the GM's view of every
//! partition at once, not against the one node that happens to report).
//!
//! The engine *proposes* from its view (every event the shim pushed), and
//! the shim commits each proposal under YARN's scheduler lock, against
//! YARN's own node (the authority that validates, as Megha's LMs do); a
//! proposal YARN refuses comes back as `AllocationRejected` and the engine
//! forgets it. So a round can never double-allocate: the engine books its
//! proposals at once, and YARN re-checks each.
//!
//! A round is cheap when there is nothing to do: it runs only after an
//! event that can make a new placement possible (asks grew, capacity was
//! released or added, an app or attempt arrived) or a periodic step that
//! may change decisions (DRESS's δ moved). It visits the nodes that can
//! hold the smallest outstanding ask, starting where the last round
//! stopped so that no node is always offered first, and at most
//! `max_nodes` of them, which bounds how long the shim holds YARN's lock;
//! a round cut short by that bound leaves the rest to the next one.

use super::{pass, Decision, Engine, EngineError, Event};
use crate::model::NodeId;

/// What the engine keeps between rounds.
#[derive(Debug, Default, Clone, Copy)]
pub(super) struct RoundState {
    /// Something happened since the last complete round that may let a
    /// pass place a container.
    due: bool,
    /// The node the next round starts from.
    cursor: NodeId,
    /// Tests and benches only (`Engine::set_per_node_round_candidates`).
    per_node_candidates: bool,
}

impl RoundState {
    /// Whether `event` may make a placement possible that the last round
    /// could not make (node utilization and launches cannot).
    pub(super) fn note(&mut self, event: &Event) {
        self.due |= matches!(
            event,
            Event::AskUpdated { .. }
                | Event::ContainerFinished { .. }
                | Event::AllocationRejected { .. }
                | Event::AppAdded { .. }
                | Event::AttemptAdded { .. }
                | Event::AppRemoved { .. }
                | Event::AppMoved { .. }
                | Event::AppPriorityChanged { .. }
                | Event::NodeAdded { .. }
                | Event::NodeResourceUpdated { .. }
                | Event::NodeAttributesUpdated { .. }
        );
    }
}

impl Engine {
    /// One scheduling round between heartbeats: a pass on each node (at
    /// most `max_nodes`, 0 = all) that can hold the smallest outstanding
    /// ask. Returns the containers allocated; decisions go to `out`.
    pub fn schedule_round(&mut self, now_ms: i64, max_nodes: usize, out: &mut Vec<Decision>) -> Result<usize, EngineError> {
        super::faults::before_schedule(&self.config.scheduler, &mut self.fault_calls)?;
        let ticked = self.tick(now_ms);
        self.preempt(now_ms, out);
        if !self.round.due && !ticked {
            return Ok(0);
        }
        let _span = tracing::debug_span!("schedule_round", now_ms).entered();
        self.counters.rounds += 1;
        let smallest = self
            .state
            .pending_apps()
            .flat_map(|app| app.asks.values().filter(|a| a.count > 0))
            .map(|ask| ask.capability)
            .reduce(|a, b| a.min_each(&b));
        let Some(smallest) = smallest else {
            self.round.due = false;
            return Ok(0);
        };
        let cursor = self.round.cursor;
        let with_room: Vec<NodeId> = self
            .state
            .nodes
            .range(cursor..)
            .chain(self.state.nodes.range(..cursor))
            .filter(|(_, n)| smallest.fits_in(&n.free()))
            .map(|(&id, _)| id)
            .collect();
        let limit = if max_nodes == 0 { with_room.len() } else { max_nodes.min(with_room.len()) };
        let mut made = 0;
        let mut visited = 0;
        let proposers = self.round_proposers_for(limit);
        if proposers > 1 {
            // Several proposers at once (`super::propose`).
            let outcome = self.parallel_round(&with_room[..limit], proposers, smallest, now_ms, out);
            made = outcome.committed + outcome.retried;
            visited = limit;
        } else {
            // One candidate heap for the whole round where the policies
            // allow it (`pass::MainQueue`): the same decisions as a fresh
            // one per node, without keying every app again on every node.
            // It is built after the first node's `prepare`, as a fresh one
            // would be (DRESS re-decides categories there after nodes
            // joined), and only when a node has room.
            let keep = self.keeps_round_candidates();
            let mut kept = None;
            for &node in &with_room[..limit] {
                visited += 1;
                self.policies.prepare(&self.state, node);
                if keep && kept.is_none() {
                    kept = pass::MainQueue::for_round(&self.state, &self.policies);
                }
                made += self.pass_prepared(node, now_ms, out, kept.as_mut());
                let nothing_left = match &kept {
                    Some(main) => main.is_empty(),
                    None => self.state.pending_apps().next().is_none(),
                };
                if nothing_left {
                    break;
                }
            }
        }
        // Cut short by the bound: the next round goes on from here.
        let complete = visited == with_room.len() || self.state.pending_apps().next().is_none();
        self.round.due = !complete;
        if let Some(&last) = with_room[..visited].last() {
            self.round.cursor = last.wrapping_add(1);
        }
        self.counters.round_allocations += made as u64;
        tracing::debug!(visited, made, complete, "scheduling round");
        Ok(made)
    }

    /// Whether the next round has work to look at: something changed since
    /// the last complete round, or the last one was cut short by its bound.
    pub fn round_due(&self) -> bool {
        self.round.due
    }

    /// Whether a round keeps its candidates over all its nodes (a serial
    /// round, and each proposer of a parallel one over its partition): its
    /// policies allow it and the test switch does not turn it off.
    pub(super) fn keeps_round_candidates(&self) -> bool {
        !self.round.per_node_candidates && self.policies.allows_shared_candidates()
    }

    /// Build a round's candidates afresh on every node, as a heartbeat
    /// does: for tests that check keeping them gives the same decisions,
    /// and `shepherd bench-round --fresh-candidates`.
    pub fn set_per_node_round_candidates(&mut self, per_node: bool) {
        self.round.per_node_candidates = per_node;
    }

    /// The pass every heartbeat (and a parallel round's retry) runs on
    /// one node.
    pub(super) fn pass_on(&mut self, node: NodeId, now_ms: i64, out: &mut Vec<Decision>) -> usize {
        self.policies.prepare(&self.state, node);
        self.pass_prepared(node, now_ms, out, None)
    }

    /// The pass on one node after its `prepare`, on a serial round's kept
    /// candidates if it has them.
    fn pass_prepared(&mut self, node: NodeId, now_ms: i64, out: &mut Vec<Decision>, kept: Option<&mut pass::MainQueue>) -> usize {
        let made = match kept {
            Some(main) => pass::run_on(self, node, now_ms, out, main),
            None => pass::run(self, node, now_ms, out),
        };
        self.counters.allocations += made as u64;
        made
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::{add_app, add_node, allocs as placed, ask, engine};
    use super::*;

    fn cluster(policy: &str, nodes: u32, cores: i64) -> Engine {
        let mut e = engine(policy, &[]);
        for n in 1..=nodes {
            add_node(&mut e, n, 1024 * cores, cores);
        }
        e
    }

    /// New asks get containers on every node with room at once, without
    /// any node heartbeating, and in the same order a heartbeat of each
    /// node in turn would give them.
    #[test]
    fn a_round_places_new_asks_like_heartbeats_of_every_node_with_room() {
        let mut by_round = cluster("fifo", 3, 2);
        let mut by_heartbeats = cluster("fifo", 3, 2);
        for e in [&mut by_round, &mut by_heartbeats] {
            add_app(e, 1, "default", "alice", 0);
            add_app(e, 2, "default", "bob", 1);
            ask(e, 1, 1, 1024, 1, 3);
            ask(e, 2, 1, 1024, 1, 2);
        }
        let mut out = vec![];
        assert_eq!(by_round.schedule_round(10, 0, &mut out).unwrap(), 5);
        let mut expected = vec![];
        for n in 1..=3 {
            by_heartbeats.schedule_node(n, 10, &mut expected).unwrap();
        }
        assert_eq!(placed(&out), placed(&expected));
        assert_eq!(placed(&out), vec![(1, 1), (1, 1), (1, 2), (2, 2), (2, 3)]);
        let c = by_round.counters();
        assert_eq!((c.rounds, c.round_allocations, c.allocations, c.passes), (1, 5, 5, 0));
        // The same counts reach /prom and the sidecar as metrics.
        let g = by_round.gauges();
        let get = |n: &str| g.iter().find(|x| x.name == n).map(|x| x.value);
        assert_eq!((get("engine_rounds_total"), get("engine_round_allocations_total")), (Some(1.0), Some(5.0)));
        assert!(by_round.state.nodes.values().all(|n| n.last_heartbeat_ms != 10), "a round is not a heartbeat");
    }

    /// A round runs only after something that may allow a placement; an ask
    /// that fits nowhere does not make every round walk the cluster.
    #[test]
    fn rounds_run_only_when_something_changed() {
        let mut e = cluster("fifo", 2, 2);
        add_app(&mut e, 1, "default", "alice", 0);
        ask(&mut e, 1, 1, 4096, 4, 1); // bigger than any node
        let mut out = vec![];
        assert_eq!(e.schedule_round(10, 0, &mut out).unwrap(), 0);
        assert_eq!(e.counters().rounds, 1);
        e.schedule_round(20, 0, &mut out).unwrap();
        assert_eq!(e.counters().rounds, 1, "nothing changed: no round");
        ask(&mut e, 1, 2, 1024, 1, 1);
        assert_eq!(e.schedule_round(30, 0, &mut out).unwrap(), 1);
        assert_eq!(e.counters().rounds, 2);
        // A container released between heartbeats (an AM gave it back) makes
        // the next round look again.
        let Some(Decision::Allocate { container, .. }) = out.last().cloned() else { panic!("{out:?}") };
        e.schedule_round(40, 0, &mut out).unwrap();
        assert_eq!(e.counters().rounds, 2);
        e.apply(Event::ContainerFinished { container, exit_status: 0, at_ms: 45 });
        e.schedule_round(50, 0, &mut out).unwrap();
        assert_eq!(e.counters().rounds, 3);
    }

    /// `max_nodes` bounds a round (how long the shim holds YARN's lock); the
    /// next round goes on from the node after the last one visited, so the
    /// nodes take turns being offered first.
    #[test]
    fn a_bounded_round_resumes_where_it_stopped() {
        let mut e = cluster("fifo", 4, 1);
        add_app(&mut e, 1, "default", "alice", 0);
        ask(&mut e, 1, 1, 1024, 1, 3);
        let mut nodes = vec![];
        for t in 0..3 {
            let mut out = vec![];
            assert_eq!(e.schedule_round(10 + t, 1, &mut out).unwrap(), 1);
            nodes.extend(placed(&out).into_iter().map(|(_, n)| n));
        }
        assert_eq!(nodes, vec![1, 2, 3]);
        // Nothing is pending: the round is over, whatever the bound.
        let mut out = vec![];
        assert_eq!(e.schedule_round(20, 1, &mut out).unwrap(), 0);
        assert_eq!(e.counters().rounds, 3);
        // The next ask starts at node 4, not at node 1 again.
        ask(&mut e, 1, 1, 1024, 1, 4);
        e.schedule_round(30, 1, &mut out).unwrap();
        assert_eq!(placed(&out), vec![(1, 4)]);
    }
}
