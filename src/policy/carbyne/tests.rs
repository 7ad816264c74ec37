//! Carbyne inside the engine: the leftover phase's order, stage inference
//! from YARN asks (MapReduce, arrival order), P(Altruism) = 0, task
//! failures, queue guarantees, the state view and metrics.

use crate::config::Config;
use crate::engine::tests::{add_node, ask};
use crate::engine::{Decision, Engine, Event};
use crate::model::{App, Resources};

/// An app record with nothing asked yet.
pub(super) fn bare_app(id: u32, app_type: &str) -> App {
    App {
        id,
        yarn_id: format!("application_0_{id}"),
        queue: 0,
        user: "u".into(),
        name: format!("app{id}"),
        app_type: app_type.into(),
        tags: vec![],
        submit_ms: 0,
        priority: 0,
        attempt: Some(1),
        asks: Default::default(),
        allocated: Resources::ZERO,
        containers: Default::default(),
        first_allocation_ms: None,
        allocations_total: 0,
        service_done_ms: 0,
        live_start_sum_ms: 0,
        am_container: None,
        am_ask_ms: None,
        first_task_ask_ms: None,
    }
}

fn carbyne(extra: &str) -> Engine {
    Engine::with_config(Config::parse(&format!("[scheduler]\npolicy = \"carbyne\"\n{extra}")).unwrap()).unwrap()
}

fn app(e: &mut Engine, id: u32, app_type: &str, tags: &[&str]) {
    e.apply(Event::AppAdded {
        app: id,
        yarn_id: format!("application_0_{id}"),
        queue: "default".into(),
        user: "u".into(),
        name: format!("app{id}"),
        app_type: app_type.into(),
        tags: tags.iter().map(|t| t.to_string()).collect(),
        submit_ms: 0,
        priority: 0,
    });
    e.apply(Event::AttemptAdded { app: id, attempt: 1 });
}

/// One pass on node 1 at `now`: (app, priority) of each container, in order.
fn pass(e: &mut Engine, now: i64) -> Vec<(u32, i32, u64)> {
    let mut out = vec![];
    e.schedule_node(1, now, &mut out).unwrap();
    out.iter()
        .filter_map(|d| match d {
            Decision::Allocate { app, key, container, .. } => Some((*app, key.priority, *container)),
            _ => None,
        })
        .collect()
}

fn finish(e: &mut Engine, container: u64, at_ms: i64, exit_status: i32) {
    e.advance_clock(at_ms);
    e.apply(Event::ContainerFinished { container, exit_status, at_ms });
}

fn view(e: &Engine, app: u32) -> serde_json::Value {
    e.state_json()["apps"].as_array().unwrap().iter().find(|a| a["app"] == app).unwrap()["pipeline"]["classify.carbyne"].clone()
}

/// The pass re-evaluates a leftover key when it reaches the top of the
/// heap (the node's free vector shrinks with every container, so packing
/// keys go stale). (Tasks use priorities ≥ 1: YARN asks the AM at 0.)
/// Node 10 GB / 10 vcores; apps 1–3 each run a 100 s task (of nothing, so
/// it does not crowd the numbers) that gates a 1 s task (their DAG hint),
/// so the 1 s tasks may wait: ALTRUISTIC. App 4 (no runtime known: all
/// DEFAULT) takes 1 GB / 4 vcores. Left: 9 GB, 6 vcores. With
/// `leftover_order = "pack"` (alignment first): app 1's and 2's 4 GB / 1
/// vcore tasks align 0.4·0.9 + 0.1·0.6 = 0.42, app 3's 1 GB / 5 vcores
/// 0.1·0.9 + 0.5·0.6 = 0.39; app 1 first (tie to the lower id). Then 5 GB
/// / 5 vcores are free: app 2 aligns 0.4·0.5 + 0.1·0.5 = 0.25 but app 3
/// 0.1·0.5 + 0.5·0.5 = 0.30, so app 3 goes next — with keys computed once,
/// app 2 would (stale 0.42), and then app 3 would not fit (4 vcores
/// left). After app 3 no vcores are left for app 2.
#[test]
fn leftover_keys_are_reevaluated_as_the_node_fills() {
    let mut e = carbyne("[carbyne]\nleftover_order = \"pack\"\n");
    add_node(&mut e, 1, 10 * 1024, 10);
    for id in 1..=3 {
        app(&mut e, id, "TEZ", &["shepherd.dag=1:1:100000:-:1x0;2:1:1000:-;3:1:1000:0+1"]);
        ask(&mut e, id, 1, 0, 0, 1);
    }
    ask(&mut e, 1, 2, 4096, 1, 1);
    ask(&mut e, 2, 2, 4096, 1, 1);
    ask(&mut e, 3, 2, 1024, 5, 1);
    app(&mut e, 4, "TEZ", &[]);
    ask(&mut e, 4, 5, 1024, 4, 1);
    let got: Vec<(u32, i32)> = pass(&mut e, 0).into_iter().map(|(a, p, _)| (a, p)).collect();
    assert_eq!(got, vec![(1, 1), (2, 1), (3, 1), (4, 5), (1, 2), (3, 2)]);
    assert_eq!(view(&e, 2)["altruistic_containers"], 1);
    assert_eq!(view(&e, 1)["leftover_received"], 1);
}

/// The apps of the hold tests: apps 1 and 2 each run a task of nothing
/// (50 s, 100 s) that gates the rest of their DAG (the hint), so their
/// other tasks may wait (ALTRUISTIC); app 1 has the least remaining work and
/// asks `a1` tasks of 1 GB / 6 vcores, app 2 `a2` of 1 GB / 1 vcore; app 3
/// (no runtime known: DEFAULT) asks `a3` of 1 GB / 6 vcores.
fn hold_scenario(e: &mut Engine, a1: i32, a2: i32, a3: i32) {
    app(e, 1, "TEZ", &[&format!("shepherd.dag=1:1:50000:-:1x0;2:{a1}:1000:-;3:1:1000:0+1")]);
    app(e, 2, "TEZ", &[&format!("shepherd.dag=1:1:100000:-:1x0;2:{a2}:1000:-;3:1:1000:0+1")]);
    for id in 1..=2 {
        ask(e, id, 1, 0, 0, 1);
    }
    ask(e, 1, 2, 1024, 6, a1);
    ask(e, 2, 2, 1024, 1, a2);
    app(e, 3, "TEZ", &[]);
    ask(e, 3, 5, 1024, 6, a3);
}

/// `leftover_holds`: when the leftover order's first ask does not fit the
/// node, the node is held for it, so smaller asks of longer jobs do not
/// take every piece. Node 10 GB / 10 vcores. Apps 1 and 2 each run a task
/// of nothing (50 s, 100 s) that gates the rest of their DAG (the hint),
/// so their other tasks may wait: ALTRUISTIC (app 1's may start as late
/// as 49 s). App 1 has the least remaining work (50 + 1 + 1 s against
/// 100 + 5 + 1 s) and asks 1 GB / 6 vcores; app 2 five of 1 GB / 1 vcore.
/// App 3 (no runtime known: DEFAULT) takes 1 GB / 6 vcores first: 4
/// vcores left. Without holds app 1 does not fit and app 2 takes all four
/// pieces; with a hold the node waits (nothing at 30 s) and serves app 1
/// first, before the main phase, once app 3's container ends.
#[test]
fn a_leftover_hold_keeps_the_pieces_for_the_first_ask() {
    let setup = |extra: &str| {
        let mut e = carbyne(extra);
        add_node(&mut e, 1, 10 * 1024, 10);
        hold_scenario(&mut e, 1, 5, 1);
        e
    };
    let got = |e: &mut Engine, now| pass(e, now).into_iter().map(|(a, p, _)| (a, p)).collect::<Vec<_>>();

    let mut free = setup("");
    assert_eq!(got(&mut free, 0), vec![(1, 1), (2, 1), (3, 5), (2, 2), (2, 2), (2, 2), (2, 2)]);
    assert_eq!(free.state_json()["leftover_holds"], serde_json::json!([]));

    let mut held = setup("[carbyne]\nleftover_holds = 1\n");
    let first = pass(&mut held, 0);
    assert_eq!(first.iter().map(|(a, p, _)| (*a, *p)).collect::<Vec<_>>(), vec![(1, 1), (2, 1), (3, 5)]);
    let holds = held.state_json()["leftover_holds"].clone();
    assert_eq!((holds[0]["app"].as_u64(), holds[0]["priority"].as_i64(), holds[0]["since_ms"].as_i64()), (Some(1), Some(2), Some(0)));
    let view: crate::engine::view::EngineView = serde_json::from_value(held.state_json()).unwrap();
    assert_eq!((view.leftover_holds.len(), view.leftover_holds[0].app), (1, 1));
    assert_eq!(view, held.view(), "the state JSON reads back as the engine's view");
    assert_eq!(got(&mut held, 30_000), vec![], "the held node waits for app 1");
    finish(&mut held, first[2].2, 40_000, 0);
    assert_eq!(got(&mut held, 40_000), vec![(1, 2), (2, 2), (2, 2), (2, 2), (2, 2)]);
    assert_eq!(held.state_json()["leftover_holds"], serde_json::json!([]));
}

/// `leftover_cap`: a job takes leftover only while it holds at most `cap`
/// times its DRF share. Node 10 GB / 10 vcores; apps 1 and 2 each run a
/// task of nothing (50 s, 100 s) that gates the rest of their DAG, so
/// their eight 1 GB / 1 vcore tasks each may wait: ALTRUISTIC. DRF gives
/// each half the node (demands 0.8 each). Without a cap the leftover goes
/// to app 1 (least remaining work) until its asks are served, app 2 gets
/// the two vcores left; with `leftover_cap = 1.5` app 1 stops at 0.75 of
/// the node (7 tasks) and app 2 gets 3; with 1.0, five each.
#[test]
fn a_leftover_cap_passes_the_leftover_down_the_srtf_order() {
    let got = |extra: &str| {
        let mut e = carbyne(extra);
        add_node(&mut e, 1, 10 * 1024, 10);
        app(&mut e, 1, "TEZ", &["shepherd.dag=1:1:50000:-:1x0;2:8:1000:-;3:1:1000:0+1"]);
        app(&mut e, 2, "TEZ", &["shepherd.dag=1:1:100000:-:1x0;2:8:1000:-;3:1:1000:0+1"]);
        for id in 1..=2 {
            ask(&mut e, id, 1, 0, 0, 1);
            ask(&mut e, id, 2, 1024, 1, 8);
        }
        let mut n = [0, 0];
        for (a, p, _) in pass(&mut e, 0) {
            if p == 2 {
                n[a as usize - 1] += 1;
            }
        }
        n
    };
    assert_eq!(got(""), [8, 2]);
    assert_eq!(got("[carbyne]\nleftover_cap = 1.5\n"), [7, 3]);
    assert_eq!(got("[carbyne]\nleftover_cap = 1.0\n"), [5, 5]);
}

/// A parallel round's proposers make no holds (each works on a copy of the
/// state that is dropped after the round), so where a hold would begin they
/// pass over the ask, as a pass without holds does, instead of ending the
/// leftover phase there. The setting of the test above on two such nodes,
/// two proposers (one node each): each node gives app 3 its 6-vcore
/// DEFAULT task, app 1's 6-vcore ALTRUISTIC task does not fit the 4 vcores
/// left, and app 2's 1-vcore tasks take them — 4 per node, the same
/// containers as the round without holds — and no node is held.
#[test]
fn proposers_pass_over_the_ask_a_hold_would_be_for() {
    let round = |extra: &str| {
        let mut e = carbyne(&format!("round_proposers = 2\nround_min_work_per_proposer = 0\n{extra}"));
        for n in 1..=2 {
            add_node(&mut e, n, 10 * 1024, 10);
        }
        hold_scenario(&mut e, 2, 10, 2);
        let mut out = vec![];
        e.schedule_round(0, 0, &mut out).unwrap();
        let mut got: Vec<(u32, i32, u32)> = out
            .iter()
            .filter_map(|d| match d {
                Decision::Allocate { app, key, node, .. } => Some((*app, key.priority, *node)),
                _ => None,
            })
            .collect();
        got.sort();
        (got, e)
    };
    let (free, _) = round("");
    let (held, e) = round("[carbyne]\nleftover_holds = 1\n");
    assert_eq!(e.counters().rounds, 1);
    assert!(e.counters().round_proposals > 0, "a parallel round");
    assert_eq!(held.iter().filter(|c| (c.0, c.1) == (2, 2)).count(), 8, "{held:?}");
    assert_eq!(held.iter().filter(|c| (c.0, c.1) == (3, 5)).count(), 2, "{held:?}");
    assert!(!held.iter().any(|c| (c.0, c.1) == (1, 2)), "{held:?}");
    assert_eq!(held, free);
    assert_eq!(e.state_json()["leftover_holds"], serde_json::json!([]));
}

/// A hold a heartbeat made is served by a parallel round's proposer once
/// the ask fits, and the authority then drops it, as the serial pass does.
/// Node 1 is held for app 1's 6-vcore task (as in the test above); app 3's
/// container ends at 40 s; the round over nodes 1 and 2 places two of app
/// 1's three tasks, one on the held node, and leaves no hold behind —
/// node 1's proposer makes none for the third.
#[test]
fn a_round_serves_and_releases_a_hold() {
    let mut e = carbyne("round_proposers = 2\nround_min_work_per_proposer = 0\n[carbyne]\nleftover_holds = 1\n");
    add_node(&mut e, 1, 10 * 1024, 10);
    hold_scenario(&mut e, 3, 5, 1);
    let first = pass(&mut e, 0);
    assert_eq!(first.iter().map(|(a, p, _)| (*a, *p)).collect::<Vec<_>>(), vec![(1, 1), (2, 1), (3, 5)]);
    assert_eq!(e.state_json()["leftover_holds"][0]["app"], 1);
    add_node(&mut e, 2, 10 * 1024, 10);
    finish(&mut e, first[2].2, 40_000, 0);
    let mut out = vec![];
    e.schedule_round(40_000, 0, &mut out).unwrap();
    assert!(e.counters().round_proposals > 0, "a parallel round");
    let on_1 = out.iter().filter(|d| matches!(d, Decision::Allocate { app: 1, node: 1, .. })).count();
    assert_eq!(on_1, 1, "the held ask, on the held node: {out:?}");
    assert_eq!(e.state_json()["leftover_holds"], serde_json::json!([]), "{out:?}");
}

/// MapReduce without a hint: priority 0 is the AM (always DEFAULT, held
/// for the job), 20 the maps, 10 the reduces, which wait for every map.
/// Node of 4 slots (1 GB + 1 vcore each); the AM takes one. 9 maps: before
/// any task has finished nothing is known about runtimes, so all are
/// DEFAULT and 3 start. At 10 s they finish (maps run 10 s) and slow-start
/// asks the 2 reduces. Share: the whole node, 3 slots besides the AM.
/// T = maps 3 + 3 (20 s) + reduces (10 s, the app's mean) = 30 s. Reverse
/// from 30: reduces at [20, 30], maps ×3 at [10, 20], maps ×3 at [0, 10]:
/// 3 maps must start now, 3 maps may wait 10 s, the reduces 20 s.
#[test]
fn mapreduce_maps_before_reduces_and_the_am_held() {
    let mut e = carbyne("");
    add_node(&mut e, 1, 4096, 4);
    app(&mut e, 1, "MAPREDUCE", &[]);
    ask(&mut e, 1, 0, 1024, 1, 1);
    assert_eq!(pass(&mut e, 0).len(), 1, "the AM");
    ask(&mut e, 1, 20, 1024, 1, 9);
    let maps = pass(&mut e, 0);
    assert_eq!(maps.len(), 3);
    assert_eq!(view(&e, 1)["status"], "no_runtime");
    for (_, _, c) in &maps {
        finish(&mut e, *c, 10_000, 0);
    }
    ask(&mut e, 1, 20, 1024, 1, 6);
    ask(&mut e, 1, 10, 1024, 1, 2);
    let got = pass(&mut e, 10_000);
    assert_eq!(got.iter().map(|(_, p, _)| *p).collect::<Vec<_>>(), vec![20, 20, 20]);
    let v = view(&e, 1);
    assert_eq!((v["inference"].as_str(), v["stages"].as_i64(), v["t_k_ms"].as_f64()), (Some("map_reduce"), Some(2), Some(30_000.0)));
    assert_eq!((v["default_containers"].as_i64(), v["altruistic_containers"].as_i64()), (Some(0), Some(5)));
    // A_k is the whole node (the only app); the plan gave the AM's slot to no task.
    assert_eq!(v["share_ratio"].as_f64(), Some(1.0));
}

/// Any other AM: keys are stages in the order of their first ask; a key
/// first asked while an earlier one still has work waits for it. An app
/// of an unknown type asks 4 tasks at priority 2 (4 slots, 10 s tasks
/// learned from a first wave), then, while they run, 4 at priority 3: T =
/// the running wave (10 s) + 10 s, the second key's tasks may wait until
/// 10 s. (A TEZ app's priorities 2 and 3 would be one vertex's band: see
/// `stages::tests` for Tez's rule.)
#[test]
fn other_ams_keys_in_arrival_order() {
    let mut e = carbyne("");
    add_node(&mut e, 1, 4096, 4);
    app(&mut e, 1, "OTHER", &[]);
    ask(&mut e, 1, 2, 1024, 1, 4);
    let first = pass(&mut e, 0);
    for (_, _, c) in &first {
        finish(&mut e, *c, 10_000, 0);
    }
    ask(&mut e, 1, 2, 1024, 1, 4);
    assert_eq!(pass(&mut e, 10_000).len(), 4);
    e.advance_clock(11_000);
    ask(&mut e, 1, 3, 1024, 1, 4);
    assert!(pass(&mut e, 11_000).is_empty(), "no room anyway");
    let v = view(&e, 1);
    assert_eq!((v["inference"].as_str(), v["stages"].as_i64()), (Some("arrival_order"), Some(2)));
    assert_eq!(v["t_k_ms"].as_f64(), Some(19_000.0), "9 s left on the running wave + 10 s");
    assert_eq!(v["altruistic_containers"].as_i64(), Some(4));
}

/// P(Altruism) = 0: every ask is DEFAULT, nothing waits for the
/// leftover. Node of 9 slots; app 1's DAG hint: a 100 s task gating a 1 s
/// one (both asked) and a 1 s child; app 2 asks 8 tasks (no runtime known:
/// all DEFAULT). Shares: app 1 wants 2 (gets them), app 2 the other 7.
/// P = 1: app 1's 1 s task may wait 99 s: DRF alternates app 1's long
/// task, app 2's tasks — app 1's short one is held back — and app 2 fills
/// the node: app 1 runs 1 task. P = 0: DRF gives app 1 both (at equal
/// shares the lower id goes first), app 2 7.
#[test]
fn p_altruism_zero_never_holds_back() {
    for (p, mine) in [(1.0, 1), (0.0, 2)] {
        let mut e = carbyne(&format!("[carbyne]\np_altruism = {p}\n"));
        add_node(&mut e, 1, 9 * 1024, 9);
        app(&mut e, 1, "TEZ", &["shepherd.dag=1:1:100000:-;2:1:1000:-;3:1:1000:0+1"]);
        ask(&mut e, 1, 1, 1024, 1, 1);
        ask(&mut e, 1, 2, 1024, 1, 1);
        app(&mut e, 2, "TEZ", &[]);
        ask(&mut e, 2, 1, 1024, 1, 8);
        let got = pass(&mut e, 0);
        assert_eq!(got.len(), 9, "p = {p}");
        assert_eq!(got.iter().filter(|(a, _, _)| *a == 1).count(), mine, "p = {p}");
        assert_eq!(view(&e, 1)["altruistic_containers"].as_i64(), Some(2 - mine as i64), "p = {p}");
        assert_eq!(view(&e, 1)["status"], if p == 1.0 { "planned" } else { "greedy" });
    }
}

/// 0 < P(Altruism) < 1: a job whose draw says greedy still schedules
/// inside its share A_k (Pseudocode 1: every job's INTRAJOBSCHEDULER gets
/// A_k; the rest is the LEFTOVERSCHEDULER's, in SRTF order). Node of 10
/// slots. App 1 (greedy draw): 20 tasks of 100 s, 2 000 s of work. App 2
/// (yielding draw): a 100 s task, two independent 1 s tasks and a 1 s task
/// after all three — 103 s of work. Both want more than half the node:
/// A_1 = A_2 = 5 slots. App 2's plan: T_k = 101 s; its 1 s tasks may wait
/// until 99 s, so only the 100 s task is DEFAULT and it yields 4 slots.
/// Within its share, app 1 has 5 DEFAULT tasks; the main phase starts 6,
/// and the leftover's 4 go by remaining work: app 2's two 1 s tasks first,
/// then 2 of app 1's: app 2 runs 3, app 1 7. With `greedy_within_share =
/// false` (every greedy ask DEFAULT), DRF's main phase gives app 1 all 9
/// slots app 2's one DEFAULT task leaves, before the leftover phase runs:
/// app 2 runs 1.
#[test]
fn a_greedy_draw_keeps_to_its_share() {
    // A seed whose first draws are: app 1 greedy, app 2 yielding (P = 0.5).
    let seed = (0..1000u64).find(|s| !super::altruism::yields(0.5, *s, 1, 1) && super::altruism::yields(0.5, *s, 2, 1)).unwrap();
    for (within, app2_runs) in [(true, 3), (false, 1)] {
        let mut e = carbyne(&format!("[carbyne]\np_altruism = 0.5\nseed = {seed}\ngreedy_within_share = {within}\n"));
        add_node(&mut e, 1, 10 * 1024, 10);
        app(&mut e, 1, "TEZ", &["shepherd.dag=1:20:100000:-"]);
        ask(&mut e, 1, 1, 1024, 1, 20);
        app(&mut e, 2, "TEZ", &["shepherd.dag=1:1:100000:-;2:2:1000:-;3:1:1000:0+1"]);
        ask(&mut e, 2, 1, 1024, 1, 1);
        ask(&mut e, 2, 2, 1024, 1, 2);
        let got = pass(&mut e, 0);
        assert_eq!(
            (view(&e, 1)["status"].as_str(), view(&e, 2)["status"].as_str()),
            (Some("greedy"), Some("planned")),
            "the draws this test is about"
        );
        assert_eq!(view(&e, 2)["t_k_ms"].as_f64(), Some(101_000.0));
        assert_eq!(got.len(), 10, "within = {within}");
        assert_eq!(got.iter().filter(|(a, _, _)| *a == 2).count(), app2_runs, "within = {within}: {got:?}");
        if within {
            assert_eq!(view(&e, 1)["altruistic_containers"].as_i64(), Some(13), "20 asked, 5 DEFAULT, 2 more got leftover");
        }
    }
}

/// Node 2 GB / 2 vcores; app 1 hints one stage of 3 tasks of 10 s and asks
/// for all three; the first pass at 0 starts two. Returns the engine and
/// those two containers.
fn three_hinted_tasks_two_running() -> (Engine, Vec<(u32, i32, u64)>) {
    let mut e = carbyne("");
    add_node(&mut e, 1, 2048, 2);
    app(&mut e, 1, "TEZ", &["shepherd.dag=1:3:10000:-"]);
    ask(&mut e, 1, 1, 1024, 1, 3);
    let got = pass(&mut e, 0);
    assert_eq!(got.len(), 2);
    (e, got)
}

fn counter(e: &Engine, name: &str) -> Option<u64> {
    e.state_json()["pipelines"][0]["plugins"]["classify"]["state"]["counters"][name].as_u64()
}

/// §3.4: "in case of task failures, CARBYNE must recalculate T_k": a
/// failed container (non-zero exit) is counted and the app replanned; its
/// task is asked again and planned with the others.
#[test]
fn task_failures_replan() {
    let (mut e, got) = three_hinted_tasks_two_running();
    let replans = counter(&e, "replans").unwrap();
    finish(&mut e, got[0].2, 5_000, 1);
    ask(&mut e, 1, 1, 1024, 1, 2);
    assert_eq!(pass(&mut e, 5_000).len(), 1);
    assert_eq!(counter(&e, "task_failures"), Some(1));
    assert!(counter(&e, "replans").unwrap() > replans);
    // 2 tasks asked (the new one, the failed one again) and one running
    // with 5 s left, 2 slots: one starts beside it now, one at 5 s: T = 15 s.
    assert_eq!(view(&e, 1)["t_k_ms"].as_f64(), Some(15_000.0));
}

/// An unmodified MapReduce AM stops each task's container once the task
/// has reported success; the NodeManager then says KILLED_BY_APPMASTER
/// (−105). That is a finished task, not a failure: counted as done for
/// the DAG hint, not in `task_failures`. Three hinted 10 s tasks, two
/// running from 0 (`three_hinted_tasks_two_running`). At 10 s the first ends
/// −105 and the third starts. Left: two running, 0 s and 10 s left by
/// their expected time: 10 s of work. Were −105 a failure, the hint would
/// still owe a fourth run (3 tasks − 0 done − 2 running): 20 s.
#[test]
fn a_task_its_am_stopped_is_finished_not_failed() {
    let (mut e, got) = three_hinted_tasks_two_running();
    finish(&mut e, got[0].2, 10_000, crate::model::exit::KILLED_BY_APPMASTER);
    ask(&mut e, 1, 1, 1024, 1, 1);
    assert_eq!(pass(&mut e, 10_000).len(), 1);
    assert_eq!(counter(&e, "task_failures"), Some(0));
    assert_eq!(view(&e, 1)["remaining_work_ms"].as_f64(), Some(10_000.0));
}

/// DRF inside each queue's guarantee: two queues with equal weights, both
/// hungry; each queue's Carbyne plans its apps against half the cluster.
#[test]
fn shares_within_the_queue_guarantee() {
    let text = "[scheduler]\npolicy = \"carbyne\"\n[[queue]]\nname = \"a\"\ncapacity = 0.5\n[[queue]]\nname = \"b\"\ncapacity = 0.5\n";
    let mut e = Engine::with_config(Config::parse(text).unwrap()).unwrap();
    add_node(&mut e, 1, 8192, 8);
    for (id, q) in [(1u32, "a"), (2, "b"), (3, "b")] {
        e.apply(Event::AppAdded {
            app: id,
            yarn_id: format!("application_0_{id}"),
            queue: q.into(),
            user: "u".into(),
            name: "n".into(),
            app_type: "TEZ".into(),
            tags: vec![],
            submit_ms: 0,
            priority: 0,
        });
        e.apply(Event::AttemptAdded { app: id, attempt: 1 });
        ask(&mut e, id, 1, 1024, 1, 8);
    }
    pass(&mut e, 0);
    let share = |id: u32| view(&e, id)["share_ratio"].as_f64().unwrap();
    // Queue a (one app): half the cluster; queue b's two apps: a quarter each.
    assert_eq!((share(1), share(2), share(3)), (0.5, 0.25, 0.25));
    let totals: Vec<f64> = e.state_json()["pipelines"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["plugins"]["classify"]["state"]["total"]["vcores"].as_f64().unwrap())
        .collect();
    assert_eq!(totals, vec![4.0, 4.0]);
}

/// The metrics: per-app share, T_k, DEFAULT and ALTRUISTIC counts and
/// leftover received, the leftover itself; the pipeline adds `queue`.
#[test]
fn gauges_name_their_unit_and_app() {
    let mut e = carbyne("");
    add_node(&mut e, 1, 10 * 1024, 10);
    app(&mut e, 1, "TEZ", &["shepherd.dag=1:1:100000:-;2:4:1000:-;3:1:1000:0+1"]);
    ask(&mut e, 1, 1, 1024, 1, 1);
    ask(&mut e, 1, 2, 1024, 1, 4);
    app(&mut e, 2, "TEZ", &[]);
    ask(&mut e, 2, 1, 1024, 1, 5);
    pass(&mut e, 0);
    let g = e.gauges();
    let find = |name: &str, app: Option<&str>| {
        g.iter().find(|x| x.name == name && app.is_none_or(|a| x.label_value("app") == Some(a))).unwrap_or_else(|| panic!("{name} missing"))
    };
    let s = find("carbyne_app_share_ratio", Some("application_0_1"));
    assert_eq!(s.label_value("queue"), Some("default"), "carbyne orders queues by DRF: a pipeline per queue");
    assert!(find("carbyne_app_completion_seconds", Some("application_0_1")).value > 100.0);
    assert_eq!(find("carbyne_app_altruistic_containers", Some("application_0_1")).value, 0.0, "its short tasks got the leftover");
    assert_eq!(find("carbyne_app_leftover_received_total", Some("application_0_1")).value, 4.0);
    for name in [
        "carbyne_leftover_ratio",
        "carbyne_yielded_vcores",
        "carbyne_drf_unallocated_memory_mb",
        "carbyne_leftover_allocations_total",
        "carbyne_p_altruism_ratio",
    ] {
        find(name, None);
    }
    for x in &g {
        assert!(x.name.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_'), "{}", x.name);
    }
}
