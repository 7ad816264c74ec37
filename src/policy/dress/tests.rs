//! DRESS driven through the engine: pools and borrowing, classification,
//! the state view, release estimation end to end, and the paper's Fig. 1.

use crate::config::Config;
use crate::engine::tests::{add_app, add_node, ask};
use crate::engine::{Decision, Engine, Event};

#[test]
fn shipped_config_is_complete_and_defaulted() {
    let text = include_str!("../../../hadoop-conf/shepherd-dress.toml");
    // Every [dress] knob is written out (and documented next to it).
    let table: toml::Table = text.parse().unwrap();
    let dress = table["dress"].as_table().unwrap();
    let knobs = [
        "theta",
        "classify_against",
        "delta_initial",
        "delta_min",
        "delta_max",
        "interval_ms",
        "t_s",
        "t_e",
        "phase_window_ms",
        "borrow_idle_pool",
        "small_borrows_free",
        "start_on",
        "skip_am_container",
        "am_in_request",
    ];
    assert_eq!(dress.len(), knobs.len());
    for k in knobs {
        assert!(dress.contains_key(k), "{k} missing from hadoop-conf/shepherd-dress.toml");
    }
    let c = Config::parse(text).unwrap();
    assert_eq!(c.scheduler.policy, "dress");
    assert_eq!(c.queues.len(), 1);
    assert_eq!(c.queues[0].name, "default");
    assert_eq!(c.dress, crate::config::DressConfig::default());
    let e = Engine::with_config(c).unwrap();
    assert_eq!(e.policy_name(), "dress");
}

fn dress_engine(extra: &str) -> Engine {
    let text = format!("[scheduler]\npolicy = \"dress\"\n[dress]\n{extra}\n");
    Engine::with_config(Config::parse(&text).unwrap()).unwrap()
}

fn allocations(out: &[Decision]) -> Vec<(u32, u64)> {
    out.iter()
        .filter_map(|d| match d {
            Decision::Allocate { app, container, .. } => Some((*app, *container)),
            _ => None,
        })
        .collect()
}

fn count(out: &[Decision], app: u32) -> usize {
    allocations(out).iter().filter(|(a, _)| *a == app).count()
}

fn pstate(e: &Engine) -> serde_json::Value {
    e.state_json()["pipelines"][0]["plugins"]["reserve"]["state"].clone()
}

#[test]
fn idle_small_reserve_is_lent_to_large_apps() {
    // δ pinned at 10 %: the small pool's share (1 slot of 10) is not wasted
    // while no small-demand app has pending demand.
    let mut e = dress_engine("delta_min = 0.1\ndelta_max = 0.1");
    add_node(&mut e, 1, 10 * 1024, 10);
    add_app(&mut e, 1, "default", "alice", 0);
    ask(&mut e, 1, 1, 1024, 1, 12);
    let mut out = vec![];
    e.schedule_node(1, 0, &mut out).unwrap();
    assert_eq!(count(&out, 1), 10, "the large app takes the idle reserve too");
    assert_eq!(pstate(&e)["pools"][1]["used"][1], 10);
}

#[test]
fn idle_large_pool_is_lent_to_small_apps() {
    // Only small-demand apps (θ = 0.5): they use the whole cluster even
    // though δ is pinned at 10 %.
    let mut e = dress_engine("theta = 0.5\ndelta_min = 0.1\ndelta_max = 0.1");
    add_node(&mut e, 1, 10 * 1024, 10);
    for app in 1..=2 {
        add_app(&mut e, app, "default", "alice", app as i64);
        ask(&mut e, app, 1, 1024, 1, 5);
    }
    let mut out = vec![];
    e.schedule_node(1, 0, &mut out).unwrap();
    assert_eq!((count(&out, 1), count(&out, 2)), (5, 5));
    let apps = &pstate(&e)["apps"];
    assert_eq!(apps[0]["category"], "small");
    assert_eq!(apps[1]["category"], "small");
}

#[test]
fn borrowing_stops_while_the_other_pool_has_demand() {
    // δ pinned at 30 %: large pool 7 slots, small pool 3 slots.
    let mut e = dress_engine("delta_initial = 0.3\ndelta_min = 0.3\ndelta_max = 0.3");
    add_node(&mut e, 1, 10 * 1024, 10);
    add_app(&mut e, 1, "default", "large", 0);
    ask(&mut e, 1, 1, 1024, 1, 5);
    let mut out = vec![];
    e.schedule_node(1, 0, &mut out).unwrap();
    assert_eq!(count(&out, 1), 5);
    // A small app (1 slot = 10 % ≤ θ) arrives; the large app wants 5 more.
    add_app(&mut e, 2, "default", "small", 1000);
    ask(&mut e, 2, 1, 1024, 1, 1);
    ask(&mut e, 1, 1, 1024, 1, 5);
    let mut out = vec![];
    e.schedule_node(1, 1000, &mut out).unwrap();
    assert_eq!(count(&out, 1), 2, "large stops at its 7-slot share: the small pool has demand");
    assert_eq!(count(&out, 2), 1);
    // The small app is served; its pool has no demand left, so the large
    // app may borrow the rest on the next heartbeat.
    let mut out = vec![];
    e.schedule_node(1, 2000, &mut out).unwrap();
    assert_eq!(count(&out, 1), 2);
    assert!(e.state().nodes[&1].free().is_zero());
}

#[test]
fn borrowing_can_be_switched_off() {
    let mut e = dress_engine("delta_initial = 0.3\ndelta_min = 0.3\ndelta_max = 0.3\nborrow_idle_pool = false");
    add_node(&mut e, 1, 10 * 1024, 10);
    add_app(&mut e, 1, "default", "large", 0);
    ask(&mut e, 1, 1, 1024, 1, 10);
    let mut out = vec![];
    e.schedule_node(1, 0, &mut out).unwrap();
    assert_eq!(count(&out, 1), 7);
}

#[test]
fn category_is_decided_on_first_asks_and_redecided_when_demand_grows() {
    let mut e = dress_engine("");
    add_node(&mut e, 1, 100 * 1024, 100);
    add_app(&mut e, 1, "default", "alice", 0);
    // A MapReduce-like app: 5 maps first (5 % ≤ θ = 10 %): small.
    ask(&mut e, 1, 20, 1024, 1, 5);
    let apps = &pstate(&e)["apps"];
    assert_eq!(apps[0]["category"], "small");
    let mut out = vec![];
    e.schedule_node(1, 0, &mut out).unwrap();
    assert_eq!(count(&out, 1), 5);
    // Then 20 reduces: total request 25 % > θ: large.
    ask(&mut e, 1, 10, 1024, 1, 20);
    let st = pstate(&e);
    assert_eq!(st["apps"][0]["category"], "large");
    assert_eq!(st["apps"][0]["reclassified"], 1);
    assert!((st["apps"][0]["demand_share"].as_f64().unwrap() - 0.25).abs() < 1e-9);
    // Finishing maps shrink the remaining demand but do not downgrade it.
    let Decision::Allocate { container, .. } = out[0] else { panic!() };
    e.apply(Event::ContainerFinished { container, exit_status: 0, at_ms: 500 });
    ask(&mut e, 1, 10, 1024, 1, 1);
    assert_eq!(pstate(&e)["apps"][0]["category"], "large");
}

#[test]
fn classify_against_available_uses_free_capacity() {
    // 8 of 10 slots busy: A_c = 20 % free, θ·A_c = 2 %; a 1-slot app (10 %)
    // is large under the literal §IV-C rule and small against the total.
    for (mode, expected) in [("available", "large"), ("total", "small")] {
        let mut e = dress_engine(&format!("classify_against = \"{mode}\""));
        add_node(&mut e, 1, 10 * 1024, 10);
        add_app(&mut e, 1, "default", "busy", 0);
        ask(&mut e, 1, 1, 1024, 1, 8);
        let mut out = vec![];
        e.schedule_node(1, 0, &mut out).unwrap();
        add_app(&mut e, 2, "default", "alice", 1);
        ask(&mut e, 2, 1, 1024, 1, 1);
        assert_eq!(pstate(&e)["apps"][1]["category"], expected, "{mode}");
    }
}

#[test]
fn category_follows_cluster_capacity() {
    // 5 slots of a 10-slot cluster is large; once 90 more slots register it
    // is 5 % of the cluster: small.
    let mut e = dress_engine("");
    add_node(&mut e, 1, 10 * 1024, 10);
    add_app(&mut e, 1, "default", "alice", 0);
    ask(&mut e, 1, 1, 1024, 1, 5);
    assert_eq!(pstate(&e)["apps"][0]["category"], "large");
    add_node(&mut e, 2, 90 * 1024, 90);
    let mut out = vec![];
    e.schedule_node(2, 0, &mut out).unwrap();
    assert_eq!(pstate(&e)["apps"][0]["category"], "small");
    assert_eq!(count(&out, 1), 5);
}

#[test]
fn algorithm3_moves_delta_and_state_view_shows_it() {
    let mut e = dress_engine("delta_min = 0.0\ndelta_max = 1.0");
    add_node(&mut e, 1, 10 * 1024, 10);
    let st = pstate(&e);
    assert_eq!(st["delta"], 0.1);
    // Only a large app pending: lines 7–8 hand the idle reserve to LD.
    add_app(&mut e, 1, "default", "large", 0);
    ask(&mut e, 1, 1, 1024, 1, 4);
    let mut out = vec![];
    e.schedule_node(1, 0, &mut out).unwrap();
    let st = pstate(&e);
    assert_eq!(st["last_adjustment"]["branch"], "shrink_reserve");
    assert!(st["delta"].as_f64().unwrap().abs() < 1e-9, "{st}");
    // A small app (1 slot) arrives: SD has nothing, LD has 6 idle slots and
    // no pending demand: lines 9–11 grow δ by LD's surplus.
    add_app(&mut e, 2, "default", "small", 1000);
    ask(&mut e, 2, 1, 1024, 1, 1);
    let mut out = vec![];
    e.schedule_node(1, 1000, &mut out).unwrap();
    let st = pstate(&e);
    assert_eq!(st["last_adjustment"]["branch"], "grow_reserve");
    assert!((st["delta"].as_f64().unwrap() - 0.6).abs() < 1e-9, "{st}");
    assert_eq!(count(&out, 2), 1);
    // The operator's view: δ, pools with capacity / usage / pending, F(t+1).
    for key in ["delta", "delta_min", "delta_max", "theta", "f_next_share", "available_share", "pools", "apps"] {
        assert!(!st[key].is_null(), "missing {key} in {st}");
    }
    let small = &st["pools"][0];
    assert_eq!(small["pool"], "small");
    assert_eq!(small["capacity"][1], 6);
    assert_eq!(small["used"][1], 1);
    for key in ["share", "used_share", "available_share", "pending", "pending_share", "release_next_share"] {
        assert!(!small[key].is_null(), "missing pools[0].{key} in {st}");
    }
    assert_eq!(st["apps"][1]["category"], "small");
}

#[test]
fn container_timeline_feeds_release_estimate() {
    // One large app, 8 tasks on 8 slots launched 1 s apart and running 20 s:
    // Algorithm 1 finds the phase (Δps = 7 s), Algorithm 2 finds γ = 20 s at
    // the 6th completion (25 s), and Eq. 1 gives F_2(t+1) > 0 at t = 25 s.
    let mut e = dress_engine("skip_am_container = false");
    add_node(&mut e, 1, 8 * 1024, 8);
    add_app(&mut e, 1, "default", "alice", 0);
    ask(&mut e, 1, 1, 1024, 1, 8);
    let mut out = vec![];
    e.schedule_node(1, 0, &mut out).unwrap();
    let containers: Vec<u64> = allocations(&out).iter().map(|(_, c)| *c).collect();
    assert_eq!(containers.len(), 8);
    let mut t = 0;
    while t <= 25_000 {
        for (i, c) in containers.iter().enumerate() {
            let start = i as i64 * 1000;
            if start == t {
                e.apply(Event::ContainerLaunched { container: *c, at_ms: t });
            }
            if start + 20_000 == t {
                e.apply(Event::ContainerFinished { container: *c, exit_status: 0, at_ms: t });
            }
        }
        let mut out = vec![];
        e.schedule_node(1, t, &mut out).unwrap();
        t += 1000;
    }
    let st = pstate(&e);
    let phase = &st["apps"][0]["phases"][0];
    assert_eq!(phase["first_start_ms"], 0);
    assert_eq!(phase["last_start_ms"], 7000);
    assert_eq!(phase["closed"], true);
    assert_eq!(phase["gamma_ms"], 20_000);
    assert_eq!(phase["containers"], 8);
    // Eq. 9 at t+1 = 26 s: 6/7 of the phase (8 × 0.125 share) released
    // cumulatively, 6 × 0.125 already free ⇒ 0.857 − 0.75 expected anew.
    let f2 = st["pools"][1]["release_next_share"].as_f64().unwrap();
    assert!((f2 - (6.0 / 7.0 - 0.75)).abs() < 1e-9, "{st}");
    let free = st["available_share"].as_f64().unwrap();
    assert!((free - 0.75).abs() < 1e-9);
    assert!((st["f_next_share"].as_f64().unwrap() - (free + f2)).abs() < 1e-9);
}

/// Outcome of one `fig1_time_stepped_run`: per job waiting time (s), the
/// makespan (s), and δ after each second.
struct Fig1Outcome {
    waits: Vec<i64>,
    makespan: i64,
    deltas: Vec<f64>,
}

/// Test helper, not a simulator: a deterministic one-second time-stepped
/// driver for the paper's Fig. 1 example. One node of 6 slots heartbeats
/// every second; job j arrives at second j asking for `n` slots for `len`
/// seconds. A job starts when it holds all its containers (they start
/// together, as in the figure; containers allocated earlier wait for the
/// rest) and all of them finish `len` seconds later. Within a second: finishes, then
/// arrivals, then the heartbeat.
fn fig1_time_stepped_run(mut e: Engine) -> Fig1Outcome {
    const JOBS: [(i64, i32, i64); 4] = [(0, 3, 10), (1, 4, 20), (2, 3, 10), (3, 2, 10)];
    add_node(&mut e, 1, 6 * 1024, 6);
    let mut held: Vec<Vec<u64>> = vec![Vec::new(); 4];
    let mut start: Vec<Option<i64>> = vec![None; 4];
    let mut done = [false; 4];
    let mut deltas = Vec::new();
    for t in 0..=200i64 {
        let now = t * 1000;
        for j in 0..4 {
            if !done[j] && start[j].is_some_and(|s| s + JOBS[j].2 == t) {
                for c in &held[j] {
                    e.apply(Event::ContainerFinished { container: *c, exit_status: 0, at_ms: now });
                }
                e.apply(Event::AppRemoved { app: j as u32 + 1 });
                done[j] = true;
            }
        }
        for (j, (arrive, n, _)) in JOBS.iter().enumerate() {
            if *arrive == t {
                add_app(&mut e, j as u32 + 1, "default", "user", now);
                ask(&mut e, j as u32 + 1, 1, 1024, 1, *n);
            }
        }
        let mut out = vec![];
        e.schedule_node(1, now, &mut out).unwrap();
        for (app, c) in allocations(&out) {
            held[app as usize - 1].push(c);
        }
        for j in 0..4 {
            if start[j].is_none() && held[j].len() == JOBS[j].1 as usize {
                start[j] = Some(t);
                for c in &held[j] {
                    e.apply(Event::ContainerLaunched { container: *c, at_ms: now });
                }
            }
        }
        deltas.push(e.state_json()["pipelines"][0]["plugins"]["reserve"]["state"]["delta"].as_f64().unwrap_or(f64::NAN));
        if done.iter().all(|d| *d) {
            break;
        }
    }
    let waits: Vec<i64> = (0..4).map(|j| start[j].expect("job never started") - JOBS[j].0).collect();
    let makespan = (0..4).map(|j| start[j].unwrap() + JOBS[j].2).max().unwrap();
    Fig1Outcome { waits, makespan, deltas }
}

fn mean(v: &[i64]) -> f64 {
    v.iter().sum::<i64>() as f64 / v.len() as f64
}

#[test]
fn fig1_fifo_baseline_is_reproduced_by_the_harness() {
    // Strict FIFO (head-of-line blocking), the paper's baseline: waits
    // 0, 9, 28, 27 s (mean 16 s), makespan 40 s.
    let e = Engine::with_config(Config::parse("[scheduler]\npolicy = \"fifo\"\n[fifo]\nstrict_order = true\n").unwrap()).unwrap();
    let r = fig1_time_stepped_run(e);
    assert_eq!(r.waits, vec![0, 9, 28, 27]);
    assert_eq!(mean(&r.waits), 16.0);
    assert_eq!(r.makespan, 40);
}

/// The paper's Fig. 1 under DRESS. With θ = 10 % nothing in a 6-slot
/// cluster is small (the smallest job is 2/6 = 33 %), so the example needs
/// a larger θ: θ = 0.5 makes the jobs of at most 3 slots (J1, J3, J4) small
/// and J2 (4 slots × 20 s) large — the paper's story. Other knobs default.
///
/// What DRESS does (δ after each step; P, A_c, F in shares of the cluster;
/// F stays 0 because jobs of ≤ 5 tasks never form a phase with t_s = 5):
/// * t=0: J1 (small, 0.5) arrives. Algorithm 3: SD short (A_c1 0.1 < P1 0.5),
///   LD idle (A_c2 0.9 ≥ P2 0) ⇒ lines 9–11 grow δ to 1.0 (δ's default
///   bounds are the paper's whole [0, 1]).
///   J1 gets 3 slots and starts (wait 0).
/// * t=1: J2 (large, 0.67) arrives. Nothing small is pending: lines 7–8
///   hand SD's idle 0.4 to LD, δ = 0.5. J2 gets the 3 free slots and waits
///   for a 4th (its containers start together).
/// * t=2, 3: J3 (small, 0.5), J4 (small, 0.33) arrive; both pools are full,
///   lines 12–24 find nothing to fit or move, δ stays 0.5.
/// * t=10: J1 ends. Lines 12–24: A_c1 = 0.5 fits J4 (smallest first), not
///   J3; LD's A_c2 = 0; the 0.17 leftover is less than J3: δ stays 0.5. In
///   arrival order J2 is refused (LD is at its 3 slots and SD has demand, so
///   no borrowing), J3 takes SD's 3 slots and starts (wait 8).
/// * t=20: J3 ends. Lines 7–8: A_c1 0.5 ≥ P1 0.33 ⇒ δ = 0.33: LD has 4
///   slots, J2 gets its 4th and starts (wait 19); J4 gets 2 and starts
///   (wait 17).
/// * t=30: J4 ends, δ falls to 0 (no small demand); t=40: J2 ends.
///
/// Result: waits 0, 19, 8, 17 s — mean 11 s against FIFO's 16 s —
/// makespan 40 s (FIFO 40 s). The paper's hand schedule (≈30 s, 5.75 s) also
/// keeps J2 from taking the 3 idle slots at t=1; Algorithm 3 cannot know at
/// t=1 that small jobs will arrive, so it lends them to J2 (line 8).
#[test]
fn fig1_dress_beats_fifo_waiting_time() {
    let r = fig1_time_stepped_run(dress_engine("theta = 0.5"));
    assert!(mean(&r.waits) < 16.0, "waits {:?}", r.waits);
    assert!(r.makespan <= 40, "makespan {}", r.makespan);
    // The run recorded above, exactly.
    assert_eq!(r.waits, vec![0, 19, 8, 17]);
    assert_eq!(mean(&r.waits), 11.0);
    assert_eq!(r.makespan, 40);
    let d = |t: usize| r.deltas[t];
    assert!((d(0) - 1.0).abs() < 1e-9 && (d(1) - 0.5).abs() < 1e-9 && (d(19) - 0.5).abs() < 1e-9, "{:?}", r.deltas);
    assert!((d(20) - 1.0 / 3.0).abs() < 1e-9 && d(30).abs() < 1e-9, "{:?}", r.deltas);
}

/// With the paper's θ = 10 % every Fig. 1 job is large: one pool, arrival
/// order; Algorithm 3 lines 7–8 hand the idle 10 % reserve to the large pool
/// at once (nothing small is pending, δ = 0) — the FIFO schedule (without
/// head-of-line blocking it is the same here).
#[test]
fn fig1_with_paper_theta_is_fifo() {
    let r = fig1_time_stepped_run(dress_engine(""));
    assert_eq!(r.waits, vec![0, 9, 28, 27]);
    assert_eq!(r.makespan, 40);
    assert!(r.deltas.iter().all(|d| d.abs() < 1e-9), "{:?}", r.deltas);
}

#[test]
fn algorithm3_leftover_move_serves_one_more_small_job() {
    // 10 slots, δ₀ = 0.3, θ = 0.25. Before the first heartbeat: L1 asks 6,
    // S1 2, S2 2, L2 5 (in that order). Both pools are short (A_c1 0.3 <
    // P1 0.4, A_c2 0.7 < P2 1.1), so lines 12–24: S1 fits SD (leftover 0.1),
    // L1 fits LD (leftover 0.2); S2 (0.2) ≤ 0.1 + 0.2 takes SD's 0.1 and 0.1
    // from LD: δ = 0.4. S2 then gets both its slots (with δ = 0.3 it would
    // get one).
    let mut e = dress_engine("theta = 0.25\ndelta_initial = 0.3\ndelta_min = 0.0\ndelta_max = 1.0");
    add_node(&mut e, 1, 10 * 1024, 10);
    for (app, n) in [(1u32, 6), (2, 2), (3, 2), (4, 5)] {
        add_app(&mut e, app, "default", "user", app as i64);
        ask(&mut e, app, 1, 1024, 1, n);
    }
    let mut out = vec![];
    e.schedule_node(1, 0, &mut out).unwrap();
    let st = pstate(&e);
    let last = &st["last_adjustment"];
    assert_eq!(last["branch"], "leftover", "{st}");
    assert_eq!(last["fitted"], serde_json::json!([1, 1]));
    assert_eq!(last["leftover_jobs"], 1);
    assert!((last["moved_share"].as_f64().unwrap() - 0.1).abs() < 1e-9);
    assert!((st["delta"].as_f64().unwrap() - 0.4).abs() < 1e-9);
    assert_eq!([count(&out, 1), count(&out, 2), count(&out, 3), count(&out, 4)], [6, 2, 2, 0]);
}

/// A one-map job on a 16-container cluster: with its ApplicationMaster it
/// would be 2/16 = 12.5 % > θ; the paper counts its task containers only
/// (1/16), so by default it is small-demand. `am_in_request` counts the AM.
#[test]
fn the_application_master_is_left_out_of_the_request_by_default() {
    for (extra, expected) in [("", "small"), ("am_in_request = true", "large")] {
        let mut e = dress_engine(extra);
        add_node(&mut e, 1, 16 * 512, 16);
        add_app(&mut e, 1, "default", "alice", 0);
        // The RM asks for the AM at YARN's AM priority, the AM for its map.
        ask(&mut e, 1, crate::model::ask::AM_PRIORITY, 512, 1, 1);
        let mut out = vec![];
        e.schedule_node(1, 0, &mut out).unwrap();
        assert!(e.state().apps[&1].am_container.is_some());
        ask(&mut e, 1, 20, 512, 1, 1);
        e.schedule_node(1, 1000, &mut out).unwrap();
        let app = &e.state_json()["apps"][0];
        assert_eq!(app["pipeline"]["pool"], expected, "{extra}: {app}");
    }
}
