//! GS's priority queues as the pass's levels (`src/engine/candidates.rs`):
//! the pass keeps each GS queue's candidates apart and picks the queue by
//! its usage ÷ weight after every container, where it used to re-key every
//! stale candidate of the queue one by one. The two must make the same
//! decisions. On random clusters and apps, with thresholds low enough that
//! apps spread over the queues and move down them as they attain service,
//! with SLearn's sampling, with the `tasks` estimator (whose estimate, and
//! so an app's queue, moves as its own asks are booked), with `am_first`
//! and with several YARN queues, an engine with levels and one without
//! (`Engine::set_flat_candidates`) are fed the same events and must answer
//! every heartbeat with the same decisions.

use proptest::prelude::*;
use shepherd::model::{Ask, Resources, SchedulerKey};
use shepherd::{Config, Decision, Engine, Event};
use std::collections::{BTreeMap, BTreeSet};

/// GS thresholds of a few container-seconds, so that the apps of a short
/// case spread over the queues (the paper's 10⁶ ms would keep them all in
/// Q₀ and the levels would never differ).
const GS: &str = "[gs]\nfirst_threshold_ms = 3000.0\ngrowth = 2.0\n";

const CONFIGS: &[&str] = &[
    // SLearn as built in: sampling, pilots, FIFO leftover.
    "[scheduler]\npolicy = \"slearn\"\n",
    // GS over the `tasks` estimator, AMs first, flat.
    "[scheduler]\npolicy = \"gt\"\nqueue_order = \"flat\"\n[pipeline.gt]\nestimate = \"tasks\"\napp_order = \"gs\"\nam_first = true\n",
    // The same under DRF between two YARN queues: one candidate group each.
    "[scheduler]\npolicy = \"gt\"\nqueue_order = \"drf\"\n[pipeline.gt]\nestimate = \"tasks\"\napp_order = \"gs\"\n\
     [[queue]]\nname = \"a\"\ncapacity = 0.5\n[[queue]]\nname = \"b\"\ncapacity = 0.5\n",
];

#[derive(Debug, Clone)]
struct AppSpec {
    queue: usize,
    submit_round: usize,
    /// (memory GB, vcores, count, task length in rounds) per ask.
    asks: Vec<(i64, i64, i32, u8)>,
}

#[derive(Debug, Clone)]
struct Case {
    config: usize,
    nodes: Vec<(i64, i64)>,
    apps: Vec<AppSpec>,
    rounds: usize,
}

fn case() -> impl Strategy<Value = Case> {
    let app = (0usize..2, 0usize..4, prop::collection::vec((1i64..4, 1i64..3, 1i32..16, 1u8..4), 1..4))
        .prop_map(|(queue, submit_round, asks)| AppSpec { queue, submit_round, asks });
    (0..CONFIGS.len(), prop::collection::vec((2i64..12, 1i64..8), 1..10), prop::collection::vec(app, 1..24), 2usize..10)
        .prop_map(|(config, nodes, apps, rounds)| Case { config, nodes, apps, rounds })
}

fn engine(c: &Case, flat: bool) -> Engine {
    let cfg = Config::parse(&format!("{GS}{}", CONFIGS[c.config])).unwrap();
    let mut e = Engine::with_config(cfg).unwrap();
    e.set_flat_candidates(flat);
    for (n, &(gb, vc)) in c.nodes.iter().enumerate() {
        e.apply(Event::NodeAdded {
            node: n as u32,
            host: format!("h{n}"),
            rack: "/r".into(),
            capacity: Resources::new(gb * 1024, vc),
            labels: vec![],
            attributes: vec![],
        });
    }
    e
}

/// Every heartbeat's decisions, in order, and the most GS queues that held
/// apps with outstanding asks at once; containers end after their ask's
/// task length, so apps attain service at different rates and the
/// estimators learn task runtimes.
fn run(c: &Case, flat: bool) -> (Vec<Vec<Decision>>, usize) {
    let mut e = engine(c, flat);
    let queues = if c.config == 2 { ["a", "b"] } else { ["default", "default"] };
    let mut ends: BTreeMap<usize, Vec<u64>> = BTreeMap::new();
    let mut out = Vec::new();
    let mut most_levels = 0;
    for r in 0..c.rounds {
        let now = 1_000 * r as i64;
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
                // The first ask at YARN's AM priority: `am_first` applies.
                let key = SchedulerKey { priority: if i == 0 { 0 } else { 10 + i as i32 }, allocation_request_id: 0 };
                let count = if i == 0 { 1 } else { count };
                e.apply(Event::AskUpdated { app, ask: Ask::anywhere(key, Resources::new(gb * 1024, vc), count) });
            }
        }
        for n in 0..c.nodes.len() as u32 {
            let mut d = Vec::new();
            e.schedule_node(n, now + n as i64, &mut d).unwrap();
            for x in &d {
                if let Decision::Allocate { container, app, key, .. } = x {
                    e.apply(Event::ContainerLaunched { container: *container, at_ms: now + n as i64 });
                    let spec = &c.apps[*app as usize - 1];
                    let i = if key.priority == 0 { 0 } else { (key.priority - 10) as usize };
                    let length = if i == 0 { c.rounds } else { spec.asks[i].3 as usize };
                    ends.entry(r + length).or_default().push(*container);
                }
            }
            out.push(d);
        }
        let levels: BTreeSet<u64> = e
            .state()
            .apps
            .values()
            .filter(|a| a.has_pending())
            .filter_map(|a| e.policies().app_json(e.state(), a)["app_order.gs"]["queue"].as_u64())
            .collect();
        most_levels = most_levels.max(levels.len());
    }
    (out, most_levels)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn levels_make_the_decisions_of_one_heap_with_fresh_keys(c in case()) {
        let (levelled, _) = run(&c, false);
        let (flat, _) = run(&c, true);
        prop_assert_eq!(format!("{levelled:?}"), format!("{flat:?}"));
    }
}

/// The levels are not vacuous: with these thresholds apps do sit in
/// several GS queues at once (so the pass's choice between levels decides),
/// in every configuration the property test draws from.
#[test]
fn apps_spread_over_gs_queues() {
    for config in 0..CONFIGS.len() {
        let c = Case {
            config,
            nodes: vec![(8, 4), (8, 4)],
            apps: (0..8)
                .map(|a| AppSpec {
                    queue: a % 2,
                    submit_round: a % 3,
                    asks: vec![(1, 1, 1, 1), (1, 1, 4 + 2 * a as i32, 1 + (a % 3) as u8)],
                })
                .collect(),
            rounds: 8,
        };
        let (levelled, most) = run(&c, false);
        let (flat, _) = run(&c, true);
        assert!(most >= 2, "config {config}: apps in at most {most} GS queue at once");
        assert_eq!(format!("{levelled:?}"), format!("{flat:?}"), "config {config}");
    }
}
