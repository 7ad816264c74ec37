//! A scheduling round keeps one candidate heap over every node it visits
//! (`src/engine/pass.rs`, `MainQueue`), where a heartbeat builds one per
//! node, keying every app with outstanding asks. The round must make the
//! decisions it made with a fresh heap per node, and leave the same reasons
//! why each app waits. On random clusters and apps arriving over time, with
//! containers finishing between rounds, bounded and unbounded rounds and
//! heartbeats in between, under every built-in pipeline that allows it
//! (DRF and FIFO, with one and with two YARN queues; Carbyne's classify and
//! leftover phase, with and without leftover holds; least attained service
//! with AMs first; DRESS's reserve; the CapacityScheduler's queues; the
//! composed default, whose remaining-work keys fall as apps get containers,
//! in DRESS's pools; 3Sigma and SJF; nodes joining mid-case), an engine
//! keeping its candidates and one rebuilding them per node
//! (`Engine::set_per_node_round_candidates`) are fed the same events and
//! must answer alike.

use proptest::prelude::*;
use shepherd::model::{Ask, Resources, SchedulerKey};
use shepherd::{Config, Decision, Engine, Event};
use std::collections::BTreeMap;

const TWO_QUEUES: &str = "[[queue]]\nname = \"a\"\ncapacity = 0.5\n[[queue]]\nname = \"b\"\ncapacity = 0.5\n";

/// `configs()[CARBYNE_HOLDS]`: Carbyne with leftover holds.
const CARBYNE_HOLDS: usize = 5;
/// `configs()[COMPOSED]`: the composed default.
const COMPOSED: usize = 10;

fn configs() -> Vec<String> {
    vec![
        "[scheduler]\npolicy = \"drf\"\n".into(),
        "[scheduler]\npolicy = \"fifo\"\n".into(),
        format!("[scheduler]\npolicy = \"drf\"\nqueue_order = \"drf\"\n{TWO_QUEUES}"),
        format!("[scheduler]\npolicy = \"fifo\"\nqueue_order = \"capacity\"\n{TWO_QUEUES}"),
        "[scheduler]\npolicy = \"carbyne\"\n".into(),
        "[scheduler]\npolicy = \"carbyne\"\n[carbyne]\nleftover_holds = 2\n".into(),
        "[scheduler]\npolicy = \"carbyne\"\n[carbyne]\np_altruism = 0.5\ncommit_t_k = true\n".into(),
        "[scheduler]\npolicy = \"dress\"\n".into(),
        format!("[scheduler]\npolicy = \"capacity\"\n{TWO_QUEUES}"),
        "[scheduler]\npolicy = \"l\"\nqueue_order = \"flat\"\n[pipeline.l]\napp_order = \"las\"\nam_first = true\n".into(),
        // The default: DRESS's pools, each by estimated remaining work
        // (keys that fall as the app gets containers), alone, with δ fixed,
        // over two queues, and with categories against the free capacity.
        "[scheduler]\npolicy = \"composed\"\n".into(),
        // δ's interval longer than a case: categories are re-decided after a
        // node joins only in a pass's `prepare`, not in a periodic step.
        "[scheduler]\npolicy = \"composed\"\n[dress]\ninterval_ms = 3600000\n".into(),
        format!("[scheduler]\npolicy = \"composed\"\nqueue_order = \"drf\"\n{TWO_QUEUES}"),
        "[scheduler]\npolicy = \"composed\"\n[dress]\nclassify_against = \"available\"\ntheta = 0.3\n".into(),
        "[scheduler]\npolicy = \"3sigma\"\n".into(),
        "[scheduler]\npolicy = \"sjf\"\n".into(),
        // Carbyne's queue beside a composed one: the leftover phase serves
        // only Carbyne's apps, so the composed queue's falling keys stay exact.
        format!(
            "[scheduler]\npolicy = \"composed\"\nqueue_order = \"drf\"\n[[queue]]\nname = \"a\"\ncapacity = 0.5\npolicy = \"carbyne\"\n[[queue]]\nname = \"b\"\ncapacity = 0.5\n"
        ),
    ]
}

#[derive(Debug, Clone)]
struct AppSpec {
    queue: usize,
    submit_round: usize,
    /// (memory GB, vcores, count, task length in rounds) per ask; the first
    /// is the AM (one container, for the whole case).
    asks: Vec<(i64, i64, i32, u8)>,
}

#[derive(Debug, Clone)]
struct Case {
    config: usize,
    nodes: Vec<(i64, i64)>,
    apps: Vec<AppSpec>,
    rounds: usize,
    /// Nodes a round visits at most (0 = all), per round in turn.
    bounds: Vec<usize>,
    /// Heartbeat this node before each round (its index modulo the nodes).
    heartbeat: Option<usize>,
    /// A node (memory GB, vcores) joining before this round's events: the
    /// capacity moves, and DRESS re-decides categories in the next pass's
    /// `prepare`.
    joins: Option<(usize, i64, i64)>,
    /// Rounds with two proposers (`round_proposers = 2`, for every round),
    /// each keeping its candidates over its partition or building them per
    /// node; the configurations that need the serial round stay serial.
    proposers: bool,
}

fn case() -> impl Strategy<Value = Case> {
    let app = (0usize..2, 0usize..4, prop::collection::vec((1i64..4, 1i64..3, 1i32..16, 1u8..4), 1..4))
        .prop_map(|(queue, submit_round, asks)| AppSpec { queue, submit_round, asks });
    (
        0..configs().len(),
        prop::collection::vec((2i64..12, 1i64..8), 1..12),
        prop::collection::vec(app, 1..24),
        2usize..10,
        prop::collection::vec(prop_oneof![3 => Just(0usize), 1 => 1usize..4], 1..4),
        prop::option::of(0usize..12),
        prop::option::of((1usize..8, 2i64..24, 1i64..12)),
        prop::bool::weighted(0.3),
    )
        .prop_map(|(config, nodes, apps, rounds, bounds, heartbeat, joins, proposers)| Case {
            config,
            nodes,
            apps,
            rounds,
            bounds,
            heartbeat,
            joins,
            proposers,
        })
}

fn engine(c: &Case, per_node: bool) -> Engine {
    let mut text = configs()[c.config].clone();
    if c.proposers {
        text = text.replacen("[scheduler]\n", "[scheduler]\nround_proposers = 2\nround_min_work_per_proposer = 0\n", 1);
    }
    let mut e = Engine::with_config(Config::parse(&text).unwrap()).unwrap();
    e.set_per_node_round_candidates(per_node);
    for (n, &(gb, vc)) in c.nodes.iter().enumerate() {
        add_node(&mut e, n, gb, vc);
    }
    e
}

fn add_node(e: &mut Engine, n: usize, gb: i64, vc: i64) {
    e.apply(Event::NodeAdded {
        node: n as u32,
        host: format!("h{n}"),
        rack: "/r".into(),
        capacity: Resources::new(gb * 1024, vc),
        labels: vec![],
        attributes: vec![],
    });
}

/// Every round's (and heartbeat's) decisions in order, with, after each
/// round, why each app waits.
fn run(c: &Case, per_node: bool) -> Vec<String> {
    let mut e = engine(c, per_node);
    let two_queues = configs()[c.config].contains("[[queue]]");
    let queues = if two_queues { ["a", "b"] } else { ["default", "default"] };
    let mut ends: BTreeMap<usize, Vec<u64>> = BTreeMap::new();
    let mut log = Vec::new();
    for r in 0..c.rounds {
        let now = 1_000 * r as i64;
        if let Some((_, gb, vc)) = c.joins.filter(|j| j.0 == r) {
            add_node(&mut e, c.nodes.len(), gb, vc);
        }
        for id in ends.remove(&r).unwrap_or_default() {
            e.apply(Event::ContainerFinished { container: id, exit_status: 0, at_ms: now });
        }
        for (a, spec) in c.apps.iter().enumerate().filter(|(_, s)| s.submit_round == r) {
            let app = a as u32 + 1;
            e.apply(Event::AppAdded {
                app,
                yarn_id: format!("application_0_{app}"),
                queue: queues[spec.queue].into(),
                user: format!("u{}", app % 3),
                name: format!("job{}", app % 4),
                app_type: "MAPREDUCE".into(),
                tags: vec![],
                submit_ms: now + a as i64,
                priority: 0,
            });
            e.apply(Event::AttemptAdded { app, attempt: 1 });
            for (i, &(gb, vc, count, _)) in spec.asks.iter().enumerate() {
                // The first ask at YARN's AM priority; the others as
                // MapReduce's maps (20) and reduces (10) and beyond.
                let priority = [0, 20, 10, 5][i];
                let key = SchedulerKey { priority, allocation_request_id: 0 };
                let count = if i == 0 { 1 } else { count };
                e.apply(Event::AskUpdated { app, ask: Ask::anywhere(key, Resources::new(gb * 1024, vc), count) });
            }
        }
        let mut calls: Vec<(Option<u32>, i64)> = Vec::new();
        if let Some(h) = c.heartbeat {
            calls.push((Some((h % c.nodes.len()) as u32), now + 1));
        }
        calls.push((None, now + 2));
        calls.push((None, now + 3));
        for (k, (node, at)) in calls.into_iter().enumerate() {
            let mut d = Vec::new();
            match node {
                Some(n) => e.schedule_node(n, at, &mut d).unwrap(),
                None => {
                    e.schedule_round(at, c.bounds[(r + k) % c.bounds.len()], &mut d).unwrap();
                }
            }
            for x in &d {
                if let Decision::Allocate { container, app, key, .. } = x {
                    e.apply(Event::ContainerLaunched { container: *container, at_ms: at });
                    let spec = &c.apps[*app as usize - 1];
                    let i = [0, 20, 10, 5].iter().position(|p| *p == key.priority).unwrap();
                    let length = if i == 0 { c.rounds } else { spec.asks[i].3 as usize };
                    ends.entry(r + length).or_default().push(*container);
                }
            }
            log.push(format!("{node:?}@{at}: {d:?}"));
        }
        let waits: Vec<_> = e.state().apps.keys().map(|&a| (a, e.state().waiting.of(a))).collect();
        log.push(format!("waits {waits:?}"));
    }
    // Wall times aside (the proposers' and the authority's), which differ
    // from run to run.
    let mut counters = e.counters();
    (counters.round_propose_ns, counters.round_commit_ns) = (0, 0);
    log.push(format!("{counters:?}"));
    log
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn kept_candidates_make_the_decisions_of_fresh_ones(c in case()) {
        let kept = run(&c, false);
        let fresh = run(&c, true);
        prop_assert_eq!(kept, fresh);
    }
}

/// The property is not vacuous: every configuration it draws from does keep
/// its candidates over a round, and those that must not keep them do not.
#[test]
fn which_pipelines_keep_a_rounds_candidates() {
    for (i, text) in configs().iter().enumerate() {
        let e = Engine::with_config(Config::parse(text).unwrap()).unwrap();
        assert!(e.policies().allows_shared_candidates(), "config {i}: {text}");
    }
    // Every built-in policy keeps them but these: Tetris keys apps against
    // each node, SLearn's GS levels move with other apps' containers, and
    // ROSE over-subscribes.
    let per_node = ["tetris", "slearn", "rose"];
    for name in shepherd::config::pipeline::built_in_names() {
        let e = Engine::with_config(Config::parse(&format!("[scheduler]\npolicy = \"{name}\"\n")).unwrap()).unwrap();
        assert_eq!(e.policies().allows_shared_candidates(), !per_node.contains(&name), "{name}");
        // Nor do they allow several proposers, which build per node: for a
        // built-in policy a serial round is the one that keeps candidates.
        assert!(!per_node.contains(&name) || !e.policies().allows_parallel_passes(), "{name}");
    }
    let mut must_not: Vec<String> = Vec::new();
    // Keys that fall as the app gets containers, with a leftover phase
    // that serves apps without re-keying them.
    must_not.push(
        "[scheduler]\npolicy = \"x\"\n[pipeline.x]\nestimate = \"tasks\"\napp_order = \"srtf\"\nclassify = [\"carbyne\"]\nleftover = \"carbyne\"\n"
            .into(),
    );
    // Remaining work from an estimator that books tasks as they are allocated.
    must_not.push("[scheduler]\npolicy = \"x\"\n[pipeline.x]\nestimate = \"slearn\"\napp_order = \"srtf\"\n".into());
    for text in must_not {
        let e = Engine::with_config(Config::parse(&text).unwrap()).unwrap();
        assert!(!e.policies().allows_shared_candidates(), "{text}");
    }
}

/// A busy case: many apps, rounds over every node; both engines must agree,
/// and rounds must place containers on more than one node.
fn busy(config: usize, proposers: bool) -> Vec<String> {
    let c = Case {
        config,
        nodes: vec![(8, 4), (8, 4), (4, 2), (12, 6)],
        apps: (0..16)
            .map(|a| AppSpec {
                queue: a % 2,
                submit_round: a % 4,
                asks: vec![(1, 1, 1, 1), (1 + (a % 2) as i64, 1, 6 + a as i32, 1 + (a % 3) as u8), (2, 1 + (a % 2) as i64, 3, 2)],
            })
            .collect(),
        rounds: 8,
        bounds: vec![0],
        heartbeat: None,
        joins: None,
        proposers,
    };
    let kept = run(&c, false);
    let fresh = run(&c, true);
    assert_eq!(kept, fresh);
    assert!(kept.iter().any(|l| l.starts_with("None") && l.matches("Allocate").count() > 4), "{kept:#?}");
    kept
}

/// Carbyne's leftover phase and holds on the kept heap.
#[test]
fn a_busy_carbyne_round_agrees() {
    busy(CARBYNE_HOLDS, false);
}

/// The composed default with two proposers, each keeping its candidates
/// over its partition: they did propose, and every round agrees with
/// proposers that build per node.
#[test]
fn busy_composed_proposers_agree() {
    assert_eq!(configs()[COMPOSED], "[scheduler]\npolicy = \"composed\"\n");
    let log = busy(COMPOSED, true);
    let counters = log.last().unwrap();
    assert!(!counters.contains("round_proposals: 0,"), "{counters}");
}
