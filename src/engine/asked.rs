//! The smallest outstanding ask, per resource, kept across passes.
//!
//! A pass on a node starts by asking whether the node has room for the
//! smallest of all outstanding asks (`pass::MainQueue::build`); finding it
//! walks every app with pending asks. Most heartbeats come from full nodes,
//! and a driver that sends every heartbeat (the RM; the simulator under an
//! over-subscribing policy, whose samples ride on heartbeats) would walk
//! the backlog on each of them only to learn that nothing fits.
//!
//! Between two events that may change what is asked, only a pass's own
//! allocations change the asks, and an allocation can only take a
//! container off an ask, never add one or make one smaller. The minimum
//! found after the last such event therefore stays a lower bound of the
//! current one in every resource: when it does not fit a node's free room,
//! no ask does, and the pass can end exactly where the walk would have
//! ended it. `ClusterState::asks_epoch` marks those events.
//!
//! A pass that walks the backlog anyway (the bound fit the node's room,
//! `MainQueue::build`) finds the minimum as it stands and hands it back
//! ([`SmallestAsk::found`]): a lower bound again until the next such event,
//! and tighter than the one kept since the epoch began, which the pass's
//! allocations may have left below every ask still outstanding. Without
//! it, once the smallest asks of an epoch are served, every node with room
//! for them but not for what is left would walk the backlog to learn that
//! nothing fits (under ROSE, about four in ten of the default
//! `bench-sim`'s passes).

use crate::model::{App, ClusterState, Resources};

/// The per-resource minimum of every outstanding ask, as found at one
/// `asks_epoch`.
#[derive(Debug, Default)]
pub(super) struct SmallestAsk {
    /// `(asks_epoch, minimum)`; the inner `None`: nothing was asked.
    found: Option<(u64, Option<Resources>)>,
}

impl SmallestAsk {
    /// A lower bound of every outstanding ask in each resource (`None`:
    /// nothing is asked). Walks the pending apps at most once per
    /// `asks_epoch`.
    pub(super) fn bound(&mut self, s: &ClusterState) -> Option<Resources> {
        match self.found {
            Some((at, min)) if at == s.asks_epoch => min,
            _ => {
                let min = minimum(s);
                self.found(s.asks_epoch, min);
                min
            }
        }
    }

    /// `min` is the per-resource minimum of every ask outstanding now, at
    /// `asks_epoch`: the bound from here on, until the epoch moves.
    pub(super) fn found(&mut self, asks_epoch: u64, min: Option<Resources>) {
        self.found = Some((asks_epoch, min));
    }
}

/// The per-resource minimum over every outstanding ask, as
/// `MainQueue::build` finds it.
fn minimum(s: &ClusterState) -> Option<Resources> {
    s.pending_apps().fold(None, with_asks_of)
}

/// `smallest` lowered, per resource, to every outstanding ask of `app`.
pub(super) fn with_asks_of(smallest: Option<Resources>, app: &App) -> Option<Resources> {
    app.asks.values().filter(|a| a.count > 0).fold(smallest, |m, ask| Some(m.map_or(ask.capability, |m| m.min_each(&ask.capability))))
}

#[cfg(test)]
mod tests {
    use super::super::tests::{add_app, add_node, ask, engine};
    use super::*;

    /// The bound is found again after an event that changes the asks, and
    /// kept (a lower bound) while only allocations change them.
    #[test]
    fn the_bound_is_found_again_after_an_ask_and_kept_over_allocations() {
        let mut e = engine("fifo", &[]);
        add_node(&mut e, 1, 8192, 8);
        add_app(&mut e, 1, "default", "alice", 0);
        let mut cache = SmallestAsk::default();
        assert_eq!(cache.bound(&e.state), None);
        ask(&mut e, 1, 1, 2048, 2, 1);
        assert_eq!(cache.bound(&e.state), Some(Resources::new(2048, 2)));
        ask(&mut e, 1, 2, 4096, 1, 1);
        assert_eq!(cache.bound(&e.state), Some(Resources::new(2048, 1)));
        // A pass takes both containers: no new event, so the bound stays
        // (what is asked now, nothing, is above it in every resource).
        let mut out = vec![];
        e.schedule_node(1, 10, &mut out).unwrap();
        assert_eq!(out.len(), 2);
        assert_eq!(minimum(&e.state), None);
        assert_eq!(cache.bound(&e.state), Some(Resources::new(2048, 1)));
        // A node's utilization report changes no ask; a new ask does.
        e.apply(crate::event::Event::NodeUtilization { node: 1, used: Resources::new(1024, 1000) });
        assert_eq!(cache.bound(&e.state), Some(Resources::new(2048, 1)));
        ask(&mut e, 1, 3, 1024, 4, 1);
        assert_eq!(cache.bound(&e.state), Some(Resources::new(1024, 4)));
    }

    /// A pass that walks the backlog leaves the engine's bound at what it
    /// found. The smallest ask is served on a node, whose room then still
    /// holds it but not the ask left: the node's next pass walks once,
    /// places nothing, and from then on the bound says so without a walk.
    #[test]
    fn a_pass_that_walks_the_backlog_tightens_the_bound() {
        let mut e = engine("fifo", &[]);
        add_node(&mut e, 1, 4096, 4);
        add_app(&mut e, 1, "default", "alice", 0);
        add_app(&mut e, 2, "default", "bob", 0);
        ask(&mut e, 1, 1, 2048, 2, 1);
        ask(&mut e, 2, 1, 3072, 3, 1);
        assert_eq!(e.smallest_ask(), Some(Resources::new(2048, 2)));
        let mut out = vec![];
        e.schedule_node(1, 10, &mut out).unwrap();
        assert_eq!(super::super::tests::allocs(&out), vec![(1, 1)]);
        // Served, but no event since: the bound still fits the node's room.
        assert_eq!(e.smallest_ask(), Some(Resources::new(2048, 2)));
        out.clear();
        e.schedule_node(1, 20, &mut out).unwrap();
        assert!(out.is_empty());
        assert_eq!(e.smallest_ask(), Some(Resources::new(3072, 3)), "what the pass found outstanding");
        assert_eq!(minimum(&e.state), Some(Resources::new(3072, 3)));
    }
}
