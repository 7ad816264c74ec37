//! Several proposers in one scheduling round (issue 14 item 2): Megha's
//! partitioned, optimistic allocation inside one ResourceManager.
//!
//! With `scheduler.round_proposers` = k > 1, a round between heartbeats
//! splits the nodes it visits into k partitions (node id mod k, so a node
//! always belongs to the same proposer). Each proposer — Megha's GM —
//! runs the pass every heartbeat runs, on its own partition, on its own
//! thread, against its **own copy** of the cluster state taken at the start
//! of the round (apps and the constraint index shared copy-on-write, so a
//! copy costs what the proposer changes): it books its placements in that
//! copy, so it never double-books its own nodes, but it does not see what
//! the other proposers book (its view is stale as soon as they start, §IV-B).
//!
//! **Demand is split as the nodes are.** Every proposer sees every app, so
//! without more each would hand the app at the head of its order all of its
//! asks, and all but one proposer's proposals would conflict. Megha avoids
//! that by giving each GM its own jobs; here each proposer gets a *share* of
//! every outstanding ask, in proportion to its partition's part of the
//! round's free capacity (`Share`): an ask of 10 containers over two equal
//! partitions is 5 + 5, a single-container ask falls to one of them (which,
//! drawn from the ask, so single asks spread). A proposer passes over an ask
//! whose share it has used up (not a reason for a strict FIFO to stop); the
//! node it was on is offered again after the commits if it still has room,
//! so a share that one partition could not use is not lost for the round.
//! A proposer whose shares are all used stops, and its nodes not visited
//! are offered again the same way (the serial round stops when nothing is
//! outstanding; so do the retries).
//!
//! A proposer costs a thread and a copy, and its proposals are checked and
//! booked again by the authority, so a round gets only as many as have
//! `scheduler.round_min_work_per_proposer` node × pending-app visits each
//! (`Engine::round_proposers_for`); a small round stays serial.
//!
//! The engine is the authority — Megha's LM, the CapacityScheduler's single
//! committer behind its asynchronous proposal threads. It takes the
//! proposals one at a time, proposers in turn, and validates each against
//! the *current* state with the checks the pass applies (the ask is still
//! outstanding, the node's free capacity holds it, locality, label, queue
//! maximum, AM limit, no recent refusal, and the pipeline's classify,
//! reserve and filter points — so a placement constraint is re-checked on
//! the index every earlier commit updated, DRESS's pool limit on the pools
//! earlier commits filled, and Carbyne's DEFAULT budget on the plan earlier
//! commits advanced). A valid proposal is committed as any allocation is
//! (the plugins see it); an invalid one is a **conflict**: it is dropped,
//! and the node it named is offered again, serially, on the fresh state
//! once all proposals are through (the GM's retry on the LM's fresh state).
//! Nothing is ever allocated twice: only the authority books.
//!
//! What the stale views cost: within a round, each proposer orders apps by
//! the keys of its own copy (its own bookings move an app's DRF share, not
//! the others'), so shares drift by at most what k partitions give one app
//! in one round; the next round keys from committed state. Plugins do not
//! see a proposer's bookings, so a pipeline whose plugins cannot work from
//! one `prepare` and the round-start state is scheduled by the serial round
//! instead: Tetris (scores apps against the node's free capacity), ROSE
//! (evicts from the live node), GS (its levels' usage moves with every
//! allocation). The proposers' copies do not record why an app waited
//! (`blocked` in the state view); the retry passes do.
//!
//! The result does not depend on thread timing: every proposer works from
//! the same snapshot and the commit order is fixed, so a parallel round
//! gives the same decisions as running its proposers one after another.

use super::pass::{self, Host, Phase, Queued};
use super::{Decision, Engine};
use crate::model::{AppId, Blocked, ClusterState, ContainerId, NodeId, Resources, SchedulerKey, WaitReason};
use crate::policy::PolicySet;
use std::cell::Cell;
use std::collections::{BTreeSet, HashMap};

/// One placement a proposer made in its copy of the state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Proposal {
    pub app: AppId,
    pub key: SchedulerKey,
    pub node: NodeId,
    pub phase: Phase,
}

/// Which slice of every outstanding ask a proposer may place: its share of
/// the round's free capacity, as an interval of [0, 1) (see [`Share::of`]).
#[derive(Debug, Clone, Copy, PartialEq)]
struct Share {
    from: f64,
    to: f64,
}

impl Share {
    /// The shares of `partitions`: consecutive intervals whose lengths are
    /// each partition's part of the free capacity of all of them (the mean,
    /// over resource types, of its fraction of that type's free total).
    fn split(state: &ClusterState, partitions: &[Vec<NodeId>]) -> Vec<Share> {
        let free: Vec<Resources> = partitions
            .iter()
            .map(|nodes| {
                nodes
                    .iter()
                    .filter_map(|n| state.nodes.get(n))
                    .fold(Resources::ZERO, |sum, n| sum + n.capacity.saturating_sub(&n.allocated))
            })
            .collect();
        let total = free.iter().fold(Resources::ZERO, |sum, f| sum + *f);
        let types: Vec<usize> = (0..total.0.len()).filter(|&r| total.0[r] > 0).collect();
        let weight = |f: &Resources| {
            if types.is_empty() {
                1.0 / partitions.len() as f64
            } else {
                types.iter().map(|&r| f.0[r] as f64 / total.0[r] as f64).sum::<f64>() / types.len() as f64
            }
        };
        let mut from = 0.0;
        let mut shares: Vec<Share> = free
            .iter()
            .map(|f| {
                let s = Share { from, to: from + weight(f) };
                from = s.to;
                s
            })
            .collect();
        if let Some(last) = shares.last_mut() {
            last.to = 1.0; // no rounding gap at the end
        }
        shares
    }

    /// How many of an ask's `count` containers fall to this share: the
    /// whole numbers in (count·from + o, count·to + o], with an offset `o`
    /// in [0, 1) drawn from the ask, so the shares of all proposers add up to
    /// `count` exactly and single-container asks spread over the proposers
    /// instead of all falling to one.
    fn of(&self, app: AppId, key: SchedulerKey, count: i32) -> i32 {
        let mix = (app as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15)
            ^ (key.priority as u64).wrapping_mul(0xBF58_476D_1CE4_E5B9)
            ^ key.allocation_request_id as u64;
        let o = (mix.wrapping_mul(0x94D0_49BB_1331_11EB) >> 11) as f64 / (1u64 << 53) as f64;
        let c = count.max(0) as f64;
        ((c * self.to + o).floor() - (c * self.from + o).floor()) as i32
    }
}

/// A proposer: the pass's host over a private copy of the state.
struct Proposer<'a> {
    state: ClusterState,
    /// The round's state as it was when the proposers started (what the
    /// shares of each ask are taken of).
    base: &'a ClusterState,
    share: Share,
    /// Containers proposed per ask so far.
    taken: HashMap<(AppId, SchedulerKey), i32>,
    /// Did the current node's pass pass over an ask because its share was
    /// used up? Then the node is offered again after the commits.
    share_ran_out: Cell<bool>,
    /// Containers of its shares still to propose; at 0 it stops.
    share_left: i64,
    policies: &'a PolicySet,
    limit: usize,
    /// Container ids for the copy only (the authority assigns the real
    /// ones); far above any id the engine will reach.
    next_id: ContainerId,
    proposals: Vec<Proposal>,
}

impl Host for Proposer<'_> {
    fn state(&self) -> &ClusterState {
        &self.state
    }
    fn policies(&self) -> &PolicySet {
        self.policies
    }
    fn assignment_limit(&self) -> usize {
        self.limit
    }
    fn evictions(&mut self, _node: NodeId) -> Vec<ContainerId> {
        Vec::new() // parallel rounds run only where no pipeline over-subscribes
    }
    fn allocate(&mut self, app: AppId, key: SchedulerKey, node: NodeId, now_ms: i64, phase: Phase) -> Option<Decision> {
        let (_, decision, _) = Engine::book(&mut self.state, self.next_id, app, key, node, now_ms, phase == Phase::Speculative, true)?;
        self.next_id += 1;
        *self.taken.entry((app, key)).or_default() += 1;
        self.share_left -= 1;
        self.proposals.push(Proposal { app, key, node, phase });
        Some(decision)
    }
    fn note_blocked(&mut self, _app: AppId, _at: WaitReason) {
        // The copy is dropped after the round. The retry passes record why
        // apps wait.
    }
    fn note_outranked(&mut self, _now_ms: i64, _node: NodeId, _queued: Queued<'_>) {}
    fn within_share(&self, app: AppId, key: SchedulerKey) -> bool {
        let count = self.base.apps.get(&app).and_then(|a| a.asks.get(&key)).map_or(0, |a| a.count);
        let within = self.taken.get(&(app, key)).copied().unwrap_or(0) < self.share.of(app, key, count);
        if !within {
            self.share_ran_out.set(true);
        }
        within
    }
}

/// What one proposer proposed, and the nodes to offer again after the
/// commits: where its share of an ask ran out while it placed, and those it
/// did not visit because every share was used.
struct Proposed {
    proposals: Vec<Proposal>,
    offer_again: Vec<NodeId>,
}

/// What one parallel round did, for the counters and the log.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub(super) struct Outcome {
    pub proposals: usize,
    pub committed: usize,
    pub conflicts: usize,
    /// Containers the serial retry passes placed (on nodes with a conflict,
    /// or where a proposer's share of some ask ran out, that still had room).
    pub retried: usize,
    /// Wall time of the proposers (copies and passes, in parallel), then of
    /// the authority's validate-and-commit and the retry passes, ns.
    pub propose_ns: u64,
    pub commit_ns: u64,
}

impl Engine {
    /// How many proposers a round over `nodes` nodes gets: up to
    /// `scheduler.round_proposers`, as many as have
    /// `round_min_work_per_proposer` node × app visits each, none more than
    /// there are nodes; 1 where a pipeline needs the serial round.
    pub(super) fn round_proposers_for(&self, nodes: usize) -> usize {
        let s = &self.config.scheduler;
        let k = (s.round_proposers as usize).min(nodes);
        if k < 2 || !self.policies.allows_parallel_passes() {
            return 1;
        }
        if s.round_min_work_per_proposer == 0 {
            return k;
        }
        let work = nodes as u64 * self.state.pending_apps().count() as u64;
        k.min((work / s.round_min_work_per_proposer) as usize).max(1)
    }

    /// A round over `nodes` with `k` proposers (see the module comment);
    /// `smallest` is the component-wise minimum of the outstanding asks,
    /// which a node must hold to be worth a retry. Decisions go to `out`.
    pub(super) fn parallel_round(
        &mut self,
        nodes: &[NodeId],
        k: usize,
        smallest: Resources,
        now_ms: i64,
        out: &mut Vec<Decision>,
    ) -> Outcome {
        let _span = tracing::debug_span!("parallel_round", proposers = k, nodes = nodes.len()).entered();
        // Every plugin's `prepare` is node-independent here
        // (`allows_parallel_passes`), so one serves all proposers.
        self.policies.prepare(&self.state, nodes[0]);
        let mut partitions: Vec<Vec<NodeId>> = vec![Vec::new(); k];
        for &n in nodes {
            partitions[n as usize % k].push(n);
        }
        partitions.retain(|p| !p.is_empty());
        let started = std::time::Instant::now();
        let proposed = self.propose(&partitions, now_ms);
        let proposing_done = std::time::Instant::now();
        let mut outcome = Outcome { proposals: proposed.iter().map(|p| p.proposals.len()).sum(), ..Outcome::default() };
        outcome.propose_ns = (proposing_done - started).as_nanos() as u64;

        // The authority: proposers' proposals in turn, each validated on the
        // state every earlier commit changed.
        let mut retry: BTreeSet<NodeId> = proposed.iter().flat_map(|p| p.offer_again.iter().copied()).collect();
        let longest = proposed.iter().map(|p| p.proposals.len()).max().unwrap_or(0);
        for i in 0..longest {
            for p in proposed.iter().filter_map(|list| list.proposals.get(i)) {
                let committed = match self.validate(p, now_ms) {
                    Ok(()) => self.allocate(p.app, p.key, p.node, now_ms, false),
                    Err(why) => {
                        tracing::trace!(app = p.app, node = p.node, ?why, "proposal conflicts with a commit");
                        None
                    }
                };
                match committed {
                    Some(d) => {
                        out.push(d);
                        outcome.committed += 1;
                    }
                    None => {
                        outcome.conflicts += 1;
                        retry.insert(p.node);
                    }
                }
            }
        }
        // The retry: a node a conflict or a used-up share left room on is
        // offered again, on the fresh state, by the serial pass, until
        // nothing is outstanding (as the serial round stops).
        for node in retry {
            if self.state.pending_apps().next().is_none() {
                break;
            }
            if self.state.nodes.get(&node).is_some_and(|n| smallest.fits_in(&n.free())) {
                outcome.retried += self.pass_on(node, now_ms, out);
            }
        }
        outcome.commit_ns = proposing_done.elapsed().as_nanos() as u64;
        self.counters.allocations += outcome.committed as u64;
        self.counters.round_proposals += outcome.proposals as u64;
        self.counters.round_conflicts += outcome.conflicts as u64;
        self.counters.round_propose_ns += outcome.propose_ns;
        self.counters.round_commit_ns += outcome.commit_ns;
        tracing::debug!(?outcome, "parallel round");
        outcome
    }

    /// Run one proposer per partition, each on its own thread and its own
    /// copy of the state, with its share of every ask; what they proposed,
    /// in partition order.
    fn propose(&self, partitions: &[Vec<NodeId>], now_ms: i64) -> Vec<Proposed> {
        let limit = self.config.scheduler.max_assignments_per_heartbeat as usize;
        let keep = self.keeps_round_candidates();
        let (state, policies) = (&self.state, &self.policies);
        let shares = Share::split(state, partitions);
        std::thread::scope(|scope| {
            let workers: Vec<_> = partitions
                .iter()
                .zip(shares)
                .enumerate()
                .map(|(i, (nodes, share))| {
                    scope.spawn(move || {
                        let share_left = state
                            .pending_apps()
                            .flat_map(|a| a.asks.values().filter(|ask| ask.count > 0).map(|ask| share.of(a.id, ask.key, ask.count) as i64))
                            .sum();
                        let mut p = Proposer {
                            state: state.fork_for(nodes),
                            base: state,
                            share,
                            taken: HashMap::new(),
                            share_ran_out: Cell::new(false),
                            share_left,
                            policies,
                            limit,
                            next_id: (1 << 62) + ((i as ContainerId) << 40),
                            proposals: Vec::new(),
                        };
                        let mut scratch = Vec::new();
                        let mut offer_again = Vec::new();
                        // Its candidates kept over its nodes, as a serial
                        // round keeps them (`pass::MainQueue`; its copy
                        // changes only by its own bookings).
                        let mut kept = keep.then(|| pass::MainQueue::for_round(&p.state, policies)).flatten();
                        for (visited, &node) in nodes.iter().enumerate() {
                            if p.share_left <= 0 {
                                offer_again.extend_from_slice(&nodes[visited..]);
                                break;
                            }
                            p.share_ran_out.set(false);
                            match kept.as_mut() {
                                Some(main) => pass::run_on(&mut p, node, now_ms, &mut scratch, main),
                                None => pass::run(&mut p, node, now_ms, &mut scratch),
                            };
                            if p.share_ran_out.get() {
                                offer_again.push(node);
                            }
                        }
                        Proposed { proposals: p.proposals, offer_again }
                    })
                })
                .collect();
            // A proposer's panic is the engine's: re-raised here, it reaches
            // the JNI helper like any other and becomes a Java exception.
            workers.into_iter().map(|w| w.join().unwrap_or_else(|e| std::panic::resume_unwind(e))).collect()
        })
    }

    /// The authority's check of one proposal against the current state.
    fn validate(&self, p: &Proposal, now_ms: i64) -> Result<(), Blocked> {
        let s = &self.state;
        let app = s.apps.get(&p.app).ok_or(Blocked::NodeFull)?;
        let ask = app.asks.get(&p.key).filter(|a| a.count > 0).ok_or(Blocked::NodeFull)?;
        let node = s.nodes.get(&p.node).ok_or(Blocked::NodeFull)?;
        if s.refused_placements.get(&(p.app, p.node)).is_some_and(|until| now_ms < *until) {
            return Err(Blocked::RefusedHere);
        }
        pass::check_ask(s, &self.policies, app, ask, node, p.phase == Phase::Leftover)
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::{add_app, add_node, allocs as placed, ask};
    use super::*;
    use crate::config::Config;

    fn with_proposers(policy: &str, k: u32, nodes: u32, cores: i64) -> Engine {
        let mut cfg = Config::default();
        cfg.scheduler.policy = policy.into();
        cfg.scheduler.round_proposers = k;
        cfg.scheduler.round_min_work_per_proposer = 0; // these rounds are tiny
        let mut e = Engine::with_config(cfg).unwrap();
        for n in 0..nodes {
            add_node(&mut e, n, 1024 * cores, cores);
        }
        e
    }

    /// Two proposers, one rack of two one-slot nodes, FIFO: the oldest app
    /// asks for two containers that must not share a rack. Each proposer
    /// gets one of the two as its share, and each, from its own copy, sees
    /// the rack still free of the tag: both propose. The authority commits
    /// the first, rejects the second on the constraint index the first
    /// commit updated, and offers the node again on fresh state: the next
    /// app gets it. Nothing is allocated twice.
    #[test]
    fn a_conflicting_proposal_is_rejected_and_its_node_retried() {
        use crate::model::constraint::Placement;
        use crate::model::{Ask, Resources, SchedulerKey};
        let mut e = with_proposers("fifo", 2, 2, 1);
        add_app(&mut e, 1, "default", "alice", 0);
        add_app(&mut e, 2, "default", "bob", 1);
        let mut replicas = Ask::anywhere(SchedulerKey { priority: 1, allocation_request_id: 0 }, Resources::new(1024, 1), 2);
        replicas.placement = Some(std::sync::Arc::new(Placement::from_text(vec!["zk".into()], "notin,rack,all/zk")));
        e.apply(crate::Event::AskUpdated { app: 1, ask: replicas });
        ask(&mut e, 2, 1, 1024, 1, 1);
        let mut out = vec![];
        assert_eq!(e.schedule_round(10, 0, &mut out).unwrap(), 2);
        assert_eq!(placed(&out), vec![(1, 0), (2, 1)]);
        let c = e.counters();
        assert_eq!((c.round_proposals, c.round_conflicts, c.allocations), (2, 1, 2));
    }

    /// FIFO's oldest app at the head of both proposers' order: without the
    /// split of its ask, both would propose all of it and one proposer's
    /// proposals would all conflict. With it each proposes its share, and
    /// the round places every container with no conflict.
    #[test]
    fn the_head_apps_ask_is_split_not_proposed_twice() {
        let mut e = with_proposers("fifo", 2, 4, 2);
        add_app(&mut e, 1, "default", "alice", 0);
        add_app(&mut e, 2, "default", "bob", 1);
        ask(&mut e, 1, 1, 1024, 1, 4);
        ask(&mut e, 2, 1, 1024, 1, 4);
        let mut out = vec![];
        assert_eq!(e.schedule_round(10, 0, &mut out).unwrap(), 8);
        let c = e.counters();
        assert_eq!((c.round_proposals, c.round_conflicts), (8, 0));
        let per_app = |a| placed(&out).iter().filter(|(app, _)| *app == a).count();
        assert_eq!((per_app(1), per_app(2)), (4, 4));
    }

    /// The shares of every ask add up to its count whatever the weights,
    /// and single-container asks are spread over the proposers.
    #[test]
    fn shares_add_up_to_the_ask() {
        use crate::model::SchedulerKey;
        for weights in [vec![1.0], vec![0.5, 0.5], vec![0.1, 0.6, 0.3], vec![0.0, 0.25, 0.25, 0.5]] {
            let mut from = 0.0;
            let shares: Vec<Share> = weights
                .iter()
                .map(|w| {
                    let s = Share { from, to: from + w };
                    from += w;
                    s
                })
                .collect();
            for app in 0..50 {
                for count in [0, 1, 2, 3, 7, 100] {
                    let key = SchedulerKey { priority: app as i32 % 5, allocation_request_id: 0 };
                    let parts: Vec<i32> = shares.iter().map(|s| s.of(app, key, count)).collect();
                    assert_eq!(parts.iter().sum::<i32>(), count, "{weights:?} {parts:?}");
                    assert!(parts.iter().all(|p| *p >= 0));
                }
            }
        }
        let halves = [Share { from: 0.0, to: 0.5 }, Share { from: 0.5, to: 1.0 }];
        let key = crate::model::SchedulerKey { priority: 20, allocation_request_id: 0 };
        let first = (0..100).filter(|app| halves[0].of(*app, key, 1) == 1).count();
        assert!((30..=70).contains(&first), "{first} of 100 single asks fell to the first half");
    }

    /// Without conflicts (each app's asks fit in one partition's share) a
    /// parallel round places what a serial one does.
    #[test]
    fn without_conflicts_it_places_what_the_serial_round_does() {
        let mut parallel = with_proposers("fifo", 4, 4, 2);
        let mut serial = with_proposers("fifo", 1, 4, 2);
        for e in [&mut parallel, &mut serial] {
            add_app(e, 1, "default", "alice", 0);
            ask(e, 1, 1, 1024, 1, 8);
        }
        let (mut a, mut b) = (vec![], vec![]);
        assert_eq!(parallel.schedule_round(10, 0, &mut a).unwrap(), 8);
        assert_eq!(serial.schedule_round(10, 0, &mut b).unwrap(), 8);
        let mut pa = placed(&a);
        let mut pb = placed(&b);
        pa.sort_unstable();
        pb.sort_unstable();
        assert_eq!(pa, pb);
        assert_eq!(parallel.counters().round_conflicts, 0);
        assert_eq!(serial.counters().round_proposals, 0, "the serial round has no proposers");
    }

    /// Tetris keys apps against the node, which one shared `prepare` cannot
    /// give every proposer, and GS's keys move with every allocation, which
    /// proposers' plugins do not see: their rounds stay serial.
    #[test]
    fn node_scored_and_usage_keyed_orders_keep_the_serial_round() {
        for policy in ["tetris", "slearn", "rose"] {
            let mut e = with_proposers(policy, 4, 4, 2);
            add_app(&mut e, 1, "default", "alice", 0);
            ask(&mut e, 1, 1, 1024, 1, 3);
            let mut out = vec![];
            assert_eq!(e.schedule_round(10, 0, &mut out).unwrap(), 3, "{policy}");
            assert_eq!(e.counters().round_proposals, 0, "{policy}");
        }
        let mut e = with_proposers("drf", 4, 4, 2);
        add_app(&mut e, 1, "default", "alice", 0);
        ask(&mut e, 1, 1, 1024, 1, 3);
        let mut out = vec![];
        assert_eq!(e.schedule_round(10, 0, &mut out).unwrap(), 3);
        assert!(e.counters().round_proposals > 0, "drf runs parallel rounds");
    }

    /// By default a proposer needs `DEFAULT_ROUND_MIN_WORK` (20 000) node ×
    /// app visits: two apps on four nodes are a serial round, 100 apps on
    /// 800 nodes (80 000 visits) get the four proposers asked for, on 400
    /// nodes two, on 200 nodes one (serial).
    #[test]
    fn small_rounds_stay_serial() {
        let build = |nodes: u32, apps: u32| {
            let mut cfg = Config::default();
            cfg.scheduler.policy = "drf".into();
            cfg.scheduler.round_proposers = 4;
            assert_eq!(cfg.scheduler.round_min_work_per_proposer, crate::config::DEFAULT_ROUND_MIN_WORK);
            let mut e = Engine::with_config(cfg).unwrap();
            for n in 0..nodes {
                add_node(&mut e, n, 8192, 8);
            }
            for a in 1..=apps {
                add_app(&mut e, a, "default", "alice", a as i64);
                ask(&mut e, a, 1, 1024, 1, 1);
            }
            e
        };
        assert_eq!(build(4, 2).round_proposers_for(4), 1);
        assert_eq!(build(800, 100).round_proposers_for(800), 4);
        assert_eq!(build(400, 100).round_proposers_for(400), 2);
        assert_eq!(build(200, 100).round_proposers_for(200), 1);
        let mut e = build(4, 2);
        let mut out = vec![];
        assert_eq!(e.schedule_round(10, 0, &mut out).unwrap(), 2);
        assert_eq!(e.counters().round_proposals, 0);
    }

    #[test]
    fn the_key_is_checked_at_start() {
        let e = Config::parse("[scheduler]\nround_proposers = 0\n").unwrap_err().to_string();
        assert!(e.contains("scheduler.round_proposers") && e.contains('0'), "{e}");
        let e = Config::parse("[scheduler]\nround_proposers = 65\n").unwrap_err().to_string();
        assert!(e.contains("scheduler.round_proposers") && e.contains("65"), "{e}");
    }
}
