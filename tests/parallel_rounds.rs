//! Several proposers in one scheduling round (`scheduler.round_proposers`,
//! issue 14 items 2 and 6): proposers place from stale copies of the state
//! on their own threads, the engine validates and commits. On random
//! clusters, apps, asks and anti-affinity constraints, under every kind of
//! pipeline, with up to 8 proposers and containers finishing between
//! rounds, an independent ledger of the decisions shows that nothing is
//! ever double-allocated: no node over its capacity, no ask given more
//! containers than it asked for, no container id twice, no anti-affine
//! pair on one node. Conflicting proposals are rejected and their nodes
//! retried (a scenario where conflicts are certain shows both), and a
//! parallel round gives the same decisions however its threads interleave.

use proptest::prelude::*;
use shepherd::model::constraint::Placement;
use shepherd::model::{Ask, Resources, SchedulerKey};
use shepherd::{Config, Decision, Engine, Event};
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

const POLICIES: &[&str] = &["composed", "fifo", "drf", "carbyne", "slearn", "capacity"];

#[derive(Debug, Clone)]
struct AskSpec {
    mem_gb: i64,
    vcores: i64,
    count: i32,
    /// Anti-affinity with itself: at most one live container of this ask's
    /// tag per node (`notin,node,all/<tag>`) or per rack (`notin,rack,…`).
    /// A rack's nodes belong to different proposers, so only the engine's
    /// validation can keep two of them from placing one each.
    anti_affine: Option<Scope>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Scope {
    Node,
    Rack,
}

const RACKS: usize = 3;

#[derive(Debug, Clone)]
struct Case {
    policy: &'static str,
    proposers: u32,
    /// (memory GB, vcores) per node.
    nodes: Vec<(i64, i64)>,
    apps: Vec<Vec<AskSpec>>,
    rounds: usize,
    /// Seed of which live containers finish between rounds.
    churn: u64,
}

fn ask_spec() -> impl Strategy<Value = AskSpec> {
    let scope = prop_oneof![6 => Just(None), 1 => Just(Some(Scope::Node)), 1 => Just(Some(Scope::Rack))];
    (1i64..4, 1i64..3, 1i32..12, scope).prop_map(|(mem_gb, vcores, count, anti_affine)| AskSpec { mem_gb, vcores, count, anti_affine })
}

fn case() -> impl Strategy<Value = Case> {
    (
        prop::sample::select(POLICIES),
        2u32..=8,
        prop::collection::vec((2i64..9, 1i64..6), 2..24),
        prop::collection::vec(prop::collection::vec(ask_spec(), 1..4), 1..8),
        1usize..6,
        any::<u64>(),
    )
        .prop_map(|(policy, proposers, nodes, apps, rounds, churn)| Case { policy, proposers, nodes, apps, rounds, churn })
}

fn engine(policy: &str, proposers: u32) -> Engine {
    // Rounds of a few nodes and apps: proposers however little work each has.
    let cfg =
        Config::parse(&format!("[scheduler]\npolicy = \"{policy}\"\nround_proposers = {proposers}\nround_min_work_per_proposer = 0\n"))
            .unwrap();
    Engine::with_config(cfg).unwrap()
}

fn tag(app: u32, i: usize) -> String {
    format!("t{app}x{i}")
}

fn setup(c: &Case) -> Engine {
    let mut e = engine(c.policy, c.proposers);
    for (n, &(gb, vc)) in c.nodes.iter().enumerate() {
        e.apply(Event::NodeAdded {
            node: n as u32,
            host: format!("h{n}"),
            rack: format!("/r{}", n % RACKS),
            capacity: Resources::new(gb * 1024, vc),
            labels: vec![],
            attributes: vec![],
        });
    }
    for (a, asks) in c.apps.iter().enumerate() {
        let app = a as u32 + 1;
        e.apply(Event::AppAdded {
            app,
            yarn_id: format!("application_0_{app}"),
            queue: "default".into(),
            user: format!("u{}", app % 3),
            name: "n".into(),
            app_type: "MAPREDUCE".into(),
            tags: vec![],
            submit_ms: a as i64,
            priority: 0,
        });
        e.apply(Event::AttemptAdded { app, attempt: 1 });
        for (i, s) in asks.iter().enumerate() {
            let key = SchedulerKey { priority: 10 + i as i32, allocation_request_id: 0 };
            let mut ask = Ask::anywhere(key, Resources::new(s.mem_gb * 1024, s.vcores), s.count);
            if let Some(scope) = s.anti_affine {
                let t = tag(app, i);
                let scope = if scope == Scope::Node { "node" } else { "rack" };
                ask.placement = Some(Arc::new(Placement::from_text(vec![t.clone()], &format!("notin,{scope},all/{t}"))));
            }
            e.apply(Event::AskUpdated { app, ask });
        }
    }
    e
}

/// The decisions as an independent ledger, checked as they arrive.
#[derive(Default)]
struct Ledger {
    /// Live container → (app, ask index, node, memory MB, vcores).
    live: BTreeMap<u64, (u32, usize, u32, i64, i64)>,
    ever: BTreeSet<u64>,
    given: BTreeMap<(u32, usize), i32>,
}

impl Ledger {
    fn record(&mut self, c: &Case, decisions: &[Decision]) -> Result<(), String> {
        for d in decisions {
            let Decision::Allocate { container, app, node, key, resources, .. } = d else { continue };
            if !self.ever.insert(*container) {
                return Err(format!("container {container} allocated twice"));
            }
            let i = (key.priority - 10) as usize;
            let given = self.given.entry((*app, i)).or_default();
            *given += 1;
            let spec = &c.apps[*app as usize - 1][i];
            if *given > spec.count {
                return Err(format!("app {app} ask {i} got {given} containers of {}", spec.count));
            }
            self.live.insert(*container, (*app, i, *node, resources.memory_mb(), resources.vcores()));
        }
        for (n, &(gb, vc)) in c.nodes.iter().enumerate() {
            let on: Vec<_> = self.live.values().filter(|l| l.2 == n as u32).collect();
            let (mem, cpu) = on.iter().fold((0, 0), |(m, v), l| (m + l.3, v + l.4));
            if mem > gb * 1024 || cpu > vc {
                return Err(format!("node {n} holds {mem} MB / {cpu} vcores of {} / {vc}", gb * 1024));
            }
        }
        let mut seen = BTreeSet::new();
        for l in self.live.values() {
            let place = match c.apps[l.0 as usize - 1][l.1].anti_affine {
                None => continue,
                Some(Scope::Node) => (Scope::Node, l.2 as usize),
                Some(Scope::Rack) => (Scope::Rack, l.2 as usize % RACKS),
            };
            if !seen.insert((l.0, l.1, place)) {
                return Err(format!("two anti-affine containers of app {} ask {} in {:?} {}", l.0, l.1, place.0, place.1));
            }
        }
        Ok(())
    }
}

/// (app, node) of each allocation, in order.
fn placed(decisions: &[Decision]) -> Vec<(u32, u32)> {
    decisions
        .iter()
        .filter_map(|d| match d {
            Decision::Allocate { app, node, .. } => Some((*app, *node)),
            _ => None,
        })
        .collect()
}

/// Rounds with containers finishing between them; the ledger checks every
/// round's decisions. Returns the engine and every decision, in order.
fn run(c: &Case) -> Result<(Engine, Vec<Decision>), String> {
    let mut e = setup(c);
    let mut ledger = Ledger::default();
    let mut all = Vec::new();
    let mut rng = c.churn;
    for r in 0..c.rounds {
        let now = 1_000 * (r as i64 + 1);
        let mut out = Vec::new();
        e.schedule_round(now, 0, &mut out).map_err(|e| e.to_string())?;
        ledger.record(c, &out)?;
        all.extend(out);
        // About a third of the live containers finish.
        let ids: Vec<u64> = ledger.live.keys().copied().collect();
        for id in ids {
            rng = rng.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            if (rng >> 33).is_multiple_of(3) {
                ledger.live.remove(&id);
                e.apply(Event::ContainerFinished { container: id, exit_status: 0, at_ms: now + 500 });
            }
        }
    }
    Ok((e, all))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn proposers_never_double_allocate(c in case()) {
        let (e, decisions) = run(&c).map_err(TestCaseError::fail)?;
        let counters = e.counters();
        // Every allocation of a round is a commit of a proposal or a retry
        // pass's; a rejected proposal never became a container.
        prop_assert!(counters.round_proposals >= counters.round_conflicts);
        prop_assert_eq!(counters.allocations as usize, decisions.len());
        // Same case, same decisions: the threads' interleaving does not
        // leak into the result.
        let (_, again) = run(&c).map_err(TestCaseError::fail)?;
        prop_assert_eq!(format!("{decisions:?}"), format!("{again:?}"));
    }
}

/// Eight proposers over eight one-slot nodes, one app at the head of FIFO
/// with three containers to go and five apps behind it with one each. Every
/// proposer has the head app first in its order, but each may place only its
/// share of its three containers (split by the partitions' free capacity),
/// so no two proposers propose the same container: no conflict. A proposer
/// whose share of an ask ran out while its node had room has that node
/// offered again after the commits, so all eight slots are used, each once,
/// and every app gets what it asked for.
#[test]
fn asks_are_split_between_proposers_and_leftover_room_retried() {
    let c = Case {
        policy: "fifo",
        proposers: 8,
        nodes: vec![(1, 1); 8],
        apps: std::iter::once(vec![AskSpec { mem_gb: 1, vcores: 1, count: 3, anti_affine: None }])
            .chain((0..5).map(|_| vec![AskSpec { mem_gb: 1, vcores: 1, count: 1, anti_affine: None }]))
            .collect(),
        rounds: 1,
        churn: 0,
    };
    let (e, decisions) = run(&c).unwrap();
    let counters = e.counters();
    assert_eq!(counters.round_conflicts, 0, "{decisions:?}");
    assert!(counters.round_proposals >= 1 && counters.round_proposals <= 8);
    let mut apps: Vec<u32> = placed(&decisions).into_iter().map(|(app, _)| app).collect();
    apps.sort_unstable();
    assert_eq!(apps, vec![1, 1, 1, 2, 3, 4, 5, 6]);
}

/// A conflict the split cannot prevent: two containers of one app that must
/// not share a rack. Two proposers; node 1 too small for them, so the
/// second proposer's first choice is node 3, in node 0's rack, where the
/// first proposer puts the other replica. Each proposer's copy shows the
/// rack free of the tag, so both propose; the engine commits one, rejects
/// the other on the constraint index the first commit updated, and offers
/// the node again on fresh state. The replicas end in different racks and
/// the rejected node goes to the app behind them.
#[test]
fn conflicts_are_rejected_then_retried_on_fresh_state() {
    let replicas = AskSpec { mem_gb: 2, vcores: 1, count: 2, anti_affine: Some(Scope::Rack) };
    let single = AskSpec { mem_gb: 2, vcores: 1, count: 1, anti_affine: None };
    let c = Case {
        policy: "fifo",
        proposers: 2,
        // Racks: node n is in /r{n % 3}; partitions: node n goes to proposer n % 2.
        nodes: vec![(2, 1), (1, 1), (2, 1), (2, 1), (2, 1), (2, 1)],
        apps: vec![vec![replicas], vec![single]],
        rounds: 1,
        churn: 0,
    };
    let (e, decisions) = run(&c).unwrap();
    let counters = e.counters();
    assert!(counters.round_conflicts >= 1, "{counters:?} {decisions:?}");
    let placed = placed(&decisions);
    let racks: BTreeSet<u32> = placed.iter().filter(|(a, _)| *a == 1).map(|(_, n)| n % RACKS as u32).collect();
    assert_eq!(racks.len(), 2, "both replicas placed, in different racks: {placed:?}");
    assert_eq!(placed.iter().filter(|(a, _)| *a == 2).count(), 1, "{placed:?}");
}

/// Anti-affine replicas proposed by different proposers for different
/// nodes are fine; the engine re-checks the constraint against the tags
/// earlier commits added, so two replicas never share a node even when a
/// retry pass places them.
#[test]
fn anti_affinity_holds_across_proposers() {
    let c = Case {
        policy: "composed",
        proposers: 4,
        nodes: vec![(8, 8); 4],
        apps: vec![vec![AskSpec { mem_gb: 1, vcores: 1, count: 6, anti_affine: Some(Scope::Node) }]],
        rounds: 3,
        churn: 7,
    };
    let (_, decisions) = run(&c).unwrap();
    assert!(decisions.len() >= 4, "one replica per node at least: {decisions:?}");
}
