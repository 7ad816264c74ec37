//! YARN-style node reservations (`scheduler.reservable_nodes`), for the
//! engine's stand-ins for the CapacityScheduler and the FairScheduler in
//! Shepherd's simulator (a `counterpart.toml` that sets the key). Shepherd's
//! own policies do not reserve, and the SLS runner's counterparts do not
//! yet either: docs/results/sls.md measures what the model gets right and
//! where it reserves more than YARN does.
//!
//! Both YARN schedulers, when the app they serve next on a node has an ask
//! that fits the node but not what is free on it, reserve the node for that
//! ask: the node's free room then goes to no one else until the ask fits
//! (FairScheduler: `FSAppAttempt.reserve`, then `attemptScheduling` serves
//! only the reservation; CapacityScheduler: `RegularContainerAllocator`,
//! then `allocateContainersToNode` serves only the reservation). On a
//! workload of mixed container sizes that is a tenth of the memory neither
//! free nor running tasks (docs/results/sls.md, Google-like trace); a
//! stand-in without it runs with all of it.
//!
//! The pass (`super::pass`) makes and serves reservations; this file says
//! when one may begin:
//! - the ask fits the node's capacity and not its free room;
//! - a queue capped below the whole cluster stays under its cap with it
//!   (the FairScheduler's `fitsInMaxShare`);
//! - the app reserves fewer than `ceil(reservable_nodes × nodes)` nodes
//!   (the FairScheduler's `reservable-nodes`) and fewer than it still has
//!   containers outstanding for the ask (the CapacityScheduler's
//!   `shouldAllocOrReserveNewContainer`, without its re-reservation term).
//!
//! Not modelled: the FairScheduler reserves only for an app below its fair
//! share (`isStarved`) — the app its order serves next nearly always is;
//! the CapacityScheduler's `reservations-continue-look-all-nodes`, which
//! lets a reserving app take room elsewhere and drop the reservation.

use crate::model::{App, Ask, ClusterState, Node};

/// The most nodes one app may reserve: `fraction` of `nodes`, rounded up,
/// at least one; 0 when reservations are off (`fraction` 0).
pub(super) fn per_app_limit(fraction: f64, nodes: usize) -> usize {
    if fraction <= 0.0 || nodes == 0 {
        return 0;
    }
    ((fraction * nodes as f64).ceil() as usize).max(1)
}

/// May `app` reserve `node` for `ask`, which does not fit what is free on
/// it (module doc)? Locality and labels are the caller's checks.
pub(super) fn may_reserve(s: &ClusterState, app: &App, ask: &Ask, node: &Node, per_app: usize) -> bool {
    if per_app == 0 || !ask.capability.fits_in(&node.capacity) || ask.capability.fits_in(&node.free()) {
        return false;
    }
    // A queue capped below the cluster reserves only within its cap (a
    // queue that may use the whole cluster always may: what it holds plus
    // the ask exceeds the cluster exactly when the cluster is full).
    let queue = &s.queues[app.queue];
    if queue.max_capacity < 1.0 && !(queue.allocated + ask.capability).fits_in(&queue.max_capacity_of(&s.capacity)) {
        return false;
    }
    let held = s.leftover_holds.values().filter(|h| h.reservation && h.app == app.id).count();
    held < per_app.min(ask.count.max(0) as usize)
}

#[cfg(test)]
mod tests {
    use super::super::tests::{add_app, add_node, allocs, ask};
    use super::super::{Decision, Engine, Event};
    use super::*;
    use crate::config::Config;

    fn fifo(reservable_nodes: f64) -> Engine {
        let text = format!("[scheduler]\npolicy = \"fifo\"\nreservable_nodes = {reservable_nodes}\n");
        Engine::with_config(Config::parse(&text).unwrap()).unwrap()
    }

    /// App 1 holds half the node; app 2's 3 GiB ask does not fit the rest,
    /// app 3's 1 GiB asks do. Returns app 1's containers and what the
    /// pass after app 2 and 3 asked placed.
    fn half_full(e: &mut Engine) -> (Vec<Decision>, Vec<(u32, u32)>) {
        add_node(e, 1, 4096, 4);
        add_app(e, 1, "default", "alice", 5);
        ask(e, 1, 1, 1024, 1, 2);
        let mut first = vec![];
        e.schedule_node(1, 100, &mut first).unwrap();
        assert_eq!(allocs(&first), vec![(1, 1), (1, 1)]);
        add_app(e, 2, "default", "bob", 10);
        ask(e, 2, 1, 3072, 1, 1);
        add_app(e, 3, "default", "carol", 20);
        ask(e, 3, 1, 1024, 1, 2);
        let mut out = vec![];
        e.schedule_node(1, 200, &mut out).unwrap();
        (first, allocs(&out))
    }

    #[test]
    fn without_reservations_smaller_asks_take_the_room_a_larger_one_waits_for() {
        let mut e = fifo(0.0);
        let (_, placed) = half_full(&mut e);
        assert_eq!(placed, vec![(3, 1), (3, 1)]);
        assert_eq!(e.state_json()["leftover_holds"], serde_json::json!([]));
    }

    #[test]
    fn a_reserved_node_serves_only_its_ask_until_the_ask_fits() {
        let mut e = fifo(1.0);
        let (first, placed) = half_full(&mut e);
        // App 2 comes first in the order and does not fit: the node is
        // reserved for it, and app 3's asks, which would fit, wait.
        assert_eq!(placed, vec![]);
        let holds = e.state_json()["leftover_holds"].clone();
        assert_eq!((holds[0]["app"].clone(), holds[0]["reservation"].clone()), (serde_json::json!(2), serde_json::json!(true)));
        // Still 2 GiB free a minute later: a reservation has no time limit.
        let mut out = vec![];
        e.schedule_node(1, 120_000, &mut out).unwrap();
        assert_eq!(allocs(&out), vec![]);
        // One of app 1's containers ends: the ask fits, goes first, and
        // the reservation ends with it; the node is full again, and the
        // next app in the order, whose ask does not fit, reserves it.
        let Decision::Allocate { container, .. } = first[0] else { panic!() };
        e.apply(Event::ContainerFinished { container, exit_status: 0, at_ms: 120_500 });
        e.schedule_node(1, 121_000, &mut out).unwrap();
        assert_eq!(allocs(&out), vec![(2, 1)]);
        assert_eq!(e.state_json()["leftover_holds"][0]["app"], 3);
    }

    #[test]
    fn an_app_reserves_no_more_nodes_than_its_limit_or_its_outstanding_containers() {
        // Two nodes, each half full; app 2 asks one 3 GiB container.
        let mut e = fifo(1.0);
        half_full(&mut e);
        add_node(&mut e, 2, 4096, 4);
        add_app(&mut e, 4, "default", "dave", 1);
        ask(&mut e, 4, 1, 2048, 1, 1);
        // App 4 comes first and takes half of node 2. App 2's ask does not
        // fit the rest, but app 2 already holds node 1 for its one
        // container, so it reserves no second node and app 3 gets the room.
        let mut out = vec![];
        e.schedule_node(2, 300, &mut out).unwrap();
        assert_eq!(allocs(&out), vec![(4, 2), (3, 2), (3, 2)]);
        assert_eq!(e.state_json()["leftover_holds"].as_array().unwrap().len(), 1);
    }

    #[test]
    fn a_malformed_fraction_names_the_key() {
        let err = Config::parse("[scheduler]\nreservable_nodes = 1.5\n").unwrap_err().to_string();
        assert!(err.contains("scheduler.reservable_nodes") && err.contains("1.5"), "{err}");
    }

    #[test]
    fn an_app_reserves_a_fraction_of_the_nodes_rounded_up_and_at_least_one() {
        assert_eq!(per_app_limit(0.0, 200), 0);
        assert_eq!(per_app_limit(0.05, 200), 10);
        assert_eq!(per_app_limit(0.05, 201), 11);
        assert_eq!(per_app_limit(0.05, 3), 1);
        assert_eq!(per_app_limit(1.0, 20), 20);
        assert_eq!(per_app_limit(0.5, 0), 0);
    }
}
