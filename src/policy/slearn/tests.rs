//! SLearn and GS in the engine: thin bypass, pilot count per ratio, work
//! conservation, pilots placing a job, fall-backs, DAG scaling, metrics,
//! and no starvation under GS's weighted sharing.

use crate::config::Config;
use crate::engine::tests::{add_app, add_node, ask};
use crate::engine::{Decision, Engine, Event};
use crate::policy::Sampling;

fn engine(extra: &str) -> Engine {
    let text = format!("[scheduler]\npolicy = \"slearn\"\n{extra}");
    Engine::with_config(Config::parse(&text).unwrap()).unwrap()
}

fn app(e: &mut Engine, id: u32, name: &str, app_type: &str, tags: Vec<String>, submit_ms: i64) {
    e.apply(Event::AppAdded {
        app: id,
        yarn_id: format!("application_0_{id}"),
        queue: "default".into(),
        user: "u".into(),
        name: name.into(),
        app_type: app_type.into(),
        tags,
        submit_ms,
        priority: 0,
    });
    e.apply(Event::AttemptAdded { app: id, attempt: 1 });
}

/// (container, app) of every allocation of one pass.
fn pass(e: &mut Engine, node: u32, now: i64) -> Vec<(u64, u32)> {
    let mut out = vec![];
    e.schedule_node(node, now, &mut out).unwrap();
    out.iter().filter_map(|d| if let Decision::Allocate { container, app, .. } = d { Some((*container, *app)) } else { None }).collect()
}

fn finish(e: &mut Engine, c: u64, at_ms: i64) {
    e.apply(Event::ContainerFinished { container: c, exit_status: 0, at_ms });
}

fn sampling(e: &Engine, id: u32) -> Option<Sampling> {
    e.policies().sampling(e.state(), &e.state().apps[&id])
}

fn gs_queue(e: &Engine, id: u32) -> u64 {
    e.policies().app_json(e.state(), &e.state().apps[&id])["app_order.gs"]["queue"].as_u64().unwrap()
}

fn count(allocs: &[(u64, u32)], id: u32) -> usize {
    allocs.iter().filter(|(_, a)| *a == id).count()
}

#[test]
fn thin_apps_bypass_sampling_and_start_in_the_top_queue() {
    let mut e = engine("");
    add_node(&mut e, 1, 16 * 1024, 16);
    app(&mut e, 1, "thin", "MAPREDUCE", vec![], 0);
    app(&mut e, 2, "wide", "MAPREDUCE", vec![], 0);
    ask(&mut e, 1, 1, 1024, 1, 2);
    ask(&mut e, 2, 1, 1024, 1, 3);
    assert_eq!(sampling(&e, 1), Some(Sampling::Thin));
    // Width 3 = thinLimit: sampled, in the sampling queue (Q1).
    assert!(matches!(sampling(&e, 2), Some(Sampling::Pilots { wanted: 1, placed: 0, .. })), "{:?}", sampling(&e, 2));
    assert_eq!((gs_queue(&e, 1), gs_queue(&e, 2)), (0, 1));
    // thinLimit 4 (Table 9): the 3-task app is thin too.
    let mut e4 = engine("[slearn]\nthin_limit = 4\n");
    app(&mut e4, 2, "wide", "MAPREDUCE", vec![], 0);
    ask(&mut e4, 2, 1, 1024, 1, 3);
    assert_eq!(sampling(&e4, 2), Some(Sampling::Thin));
    assert_eq!(gs_queue(&e4, 2), 0);
}

/// Only ⌈r·n⌉ pilots of a wide app run while it is sampled, whatever else
/// wants the node (equal GS weights so the sampling queue gets its turns).
#[test]
fn pilot_count_follows_the_ratio() {
    for (r, wanted) in [(0.01, 1u32), (0.03, 3), (0.05, 5), (0.10, 10)] {
        let mut e = engine(&format!("[slearn]\nfixed_ratio = {r}\n[gs]\nweight_ratio = 1.0\n"));
        add_node(&mut e, 1, 24 * 1024, 24);
        add_node(&mut e, 2, 24 * 1024, 24);
        // A Spark app (not sampled: its executors are not tasks) wants everything.
        app(&mut e, 1, "etl", "SPARK", vec![], 0);
        ask(&mut e, 1, 1, 1024, 1, 500);
        app(&mut e, 2, "wide", "MAPREDUCE", vec![], 0);
        ask(&mut e, 2, 1, 1024, 1, 100);
        assert_eq!(sampling(&e, 1), Some(Sampling::FellBack));
        let mut got = pass(&mut e, 1, 0);
        got.extend(pass(&mut e, 2, 0));
        assert_eq!(got.len(), 48, "both nodes full");
        assert_eq!(count(&got, 2) as u32, wanted, "ratio {r}");
        assert!(matches!(sampling(&e, 2), Some(Sampling::Pilots { wanted: w, placed: p, .. }) if w == wanted && p == wanted));
    }
}

/// At low load the capacity the pilots leave idle runs the other tasks
/// (leftover phase, arrival order); the pilots' mean places the job.
#[test]
fn work_conservation_at_low_load_and_pilots_place_the_job() {
    let mut e = engine("");
    add_node(&mut e, 1, 16 * 1024, 16);
    app(&mut e, 1, "wide", "MAPREDUCE", vec![], 0);
    ask(&mut e, 1, 1, 1024, 1, 10);
    let got = pass(&mut e, 1, 0);
    assert_eq!(got.len(), 10, "idle capacity runs non-pilot tasks");
    // 3 % of 10 → one pilot: the first container.
    assert!(matches!(sampling(&e, 1), Some(Sampling::Pilots { wanted: 1, placed: 1, .. })));
    assert_eq!(e.estimate_ms(1), None, "no prediction before the pilot finishes");
    // A non-pilot finishing first does not place the job.
    finish(&mut e, got[5].0, 2_000);
    assert!(matches!(sampling(&e, 1), Some(Sampling::Pilots { .. })));
    finish(&mut e, got[0].0, 5_000);
    assert_eq!(sampling(&e, 1), Some(Sampling::Estimated));
    let est = e.policies().estimate(e.state(), &e.state().apps[&1]).unwrap();
    assert_eq!(est.size_ms, 5_000.0 * 10.0, "pilot mean × width");
    assert_eq!(est.confidence, 0.5);
    // 50 s of work: the top queue.
    assert_eq!(gs_queue(&e, 1), 0);
}

#[test]
fn pilots_that_never_finish_fall_back_after_the_timeout() {
    let mut e = engine("[slearn]\nfixed_ratio = 0.05\npilot_timeout_ms = 60000\n");
    add_node(&mut e, 1, 100 * 1024, 100);
    app(&mut e, 1, "stuck", "MAPREDUCE", vec![], 0);
    app(&mut e, 2, "slow", "MAPREDUCE", vec![], 0);
    ask(&mut e, 1, 1, 1024, 1, 40);
    ask(&mut e, 2, 1, 1024, 1, 40);
    let got = pass(&mut e, 1, 0);
    assert_eq!(got.len(), 80);
    assert_eq!(e.next_tick_ms(), Some(60_000));
    // App 2: one of its two pilots finishes within the time-out.
    let first_of_2 = got.iter().find(|(_, a)| *a == 2).unwrap().0;
    finish(&mut e, first_of_2, 30_000);
    assert!(e.tick(60_000), "a time-out changes decisions");
    assert_eq!(sampling(&e, 1), Some(Sampling::FellBack));
    assert_eq!(sampling(&e, 2), Some(Sampling::Estimated));
    assert_eq!(e.estimate_ms(2), Some(30_000.0 * 40.0));
    assert_eq!(e.next_tick_ms(), None);
    // Placed by attained service: 40 containers × 60 s = 2.4e6 → Q1.
    e.advance_clock(60_000);
    assert_eq!(gs_queue(&e, 1), 1);
}

#[test]
fn dag_later_stages_scale_history_by_the_first_stages_error() {
    let mut e = engine("[slearn]\nfixed_ratio = 0.1\n");
    add_node(&mut e, 1, 64 * 1024, 64);
    // A past run of job "etl": first stage 10 × 10 s, second 5 × 10 s.
    app(&mut e, 1, "etl", "MAPREDUCE", vec![], 0);
    ask(&mut e, 1, 20, 1024, 1, 10);
    for (c, _) in pass(&mut e, 1, 0) {
        finish(&mut e, c, 10_000);
    }
    ask(&mut e, 1, 10, 1024, 1, 5);
    for (c, _) in pass(&mut e, 1, 10_000) {
        finish(&mut e, c, 20_000);
    }
    e.apply(Event::AppRemoved { app: 1 });
    // This run's pilot says first-stage tasks take 20 s: d_s = 200 s,
    // d_h = 100 s, so the second stage's 50 s of history becomes 100 s.
    app(&mut e, 2, "etl", "MAPREDUCE", vec![], 30_000);
    ask(&mut e, 2, 20, 1024, 1, 10);
    let got = pass(&mut e, 1, 30_000);
    finish(&mut e, got[0].0, 50_000);
    assert_eq!(sampling(&e, 2), Some(Sampling::Estimated));
    assert_eq!(e.estimate_ms(2), Some(200_000.0 + 100_000.0));
}

#[test]
fn finished_apps_record_their_estimation_error_in_state_and_metrics() {
    let mut e = engine("");
    add_node(&mut e, 1, 16 * 1024, 16);
    app(&mut e, 1, "wide", "MAPREDUCE", vec![], 0);
    ask(&mut e, 1, 1, 1024, 1, 4);
    let got = pass(&mut e, 1, 0);
    // Pilot 4 s → predicted 16 s; the tasks actually take 4+6+6+8 = 24 s.
    for ((c, _), at) in got.iter().zip([4_000, 6_000, 6_000, 8_000]) {
        finish(&mut e, *c, at);
    }
    e.apply(Event::AppRemoved { app: 1 });
    let st = e.policies().state_json(e.state());
    let est = &st["pipelines"][0]["plugins"]["estimate"]["state"];
    assert_eq!(est["estimation_error"]["apps"], 1);
    assert!((est["estimation_error"]["p50"].as_f64().unwrap() - 8.0 / 24.0).abs() < 1e-12, "{est}");
    assert_eq!(est["estimation_error"]["last"][0]["app"], "application_0_1");
    let g = e.gauges();
    let value = |name: &str| g.iter().find(|g| g.name == name).map(|g| g.value);
    assert!((value("slearn_estimation_error_p50_ratio").unwrap() - 1.0 / 3.0).abs() < 1e-12);
    assert_eq!(value("slearn_estimated_apps_total"), Some(1.0));
    assert_eq!(value("slearn_sampling_ratio"), Some(0.03));
    assert!(g.iter().any(|g| g.name == "slearn_gs_queue_apps" && g.label_value("level") == Some("9")));
}

/// GS's weighted sharing: a large job keeps getting containers while a
/// stream of small jobs, each of which SJF would put first, keeps coming.
#[test]
fn no_starvation_of_a_large_job_under_a_stream_of_small_ones() {
    let run = |order: &str| {
        let text = format!("[scheduler]\npolicy = \"mine\"\n[pipeline.mine]\nestimate = \"oracle\"\napp_order = \"{order}\"\n");
        let mut e = Engine::with_config(Config::parse(&text).unwrap()).unwrap();
        add_node(&mut e, 1, 4 * 1024, 4);
        let tag = |ms: f64| vec![format!("shepherd.oracle.work_ms={ms}")];
        app(&mut e, 1, "large", "MAPREDUCE", tag(1e8), 0);
        ask(&mut e, 1, 1, 1024, 1, 1000);
        let mut large = 0;
        for r in 0..10u32 {
            let t = r as i64 * 1_000;
            app(&mut e, 10 + r, "small", "MAPREDUCE", tag(1_000.0), t);
            ask(&mut e, 10 + r, 1, 1024, 1, 4);
            let got = pass(&mut e, 1, t);
            large += count(&got, 1);
            for (c, _) in got {
                finish(&mut e, c, t + 1_000);
            }
            e.apply(Event::AppRemoved { app: 10 + r });
        }
        large
    };
    assert_eq!(run("sjf"), 0, "shortest-first starves the large job");
    assert_eq!(run("gs"), 10, "GS gives the large job's queue a container every round");
}

/// SLearn named by one queue's pipeline sees that queue's apps only: a
/// wide app in a Carbyne queue beside it is not sampled, counted or
/// scored (its asks were never held back for pilots), while one in the
/// SLearn queue is.
#[test]
fn slearn_in_one_queue_leaves_the_other_queues_apps_alone() {
    let cfg = "[scheduler]\nqueue_order = \"drf\"\n\
               [[queue]]\nname = \"learn\"\ncapacity = 0.5\npolicy = \"slearn\"\n\
               [[queue]]\nname = \"alt\"\ncapacity = 0.5\npolicy = \"carbyne\"\n";
    let mut e = Engine::with_config(Config::parse(cfg).unwrap()).unwrap();
    add_node(&mut e, 1, 32 * 1024, 32);
    for (id, queue) in [(1, "learn"), (2, "alt")] {
        add_app(&mut e, id, queue, "u", 0);
        ask(&mut e, id, 1, 1024, 1, 10);
    }
    let got = pass(&mut e, 1, 0);
    assert_eq!((count(&got, 1), count(&got, 2)), (10, 10), "{got:?}");
    for (c, _) in &got {
        finish(&mut e, *c, 5_000);
    }
    let json = e.policies().state_json(e.state());
    let slearn = json["pipelines"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["queue"] == "learn")
        .map(|p| p["plugins"]["estimate"]["state"].clone())
        .unwrap();
    assert_eq!(slearn["sampled_total"], 1, "{slearn}");
    assert_eq!(slearn["estimated_total"], 1, "{slearn}");
    assert_eq!(slearn["live_apps"]["estimated"], 1, "{slearn}");
    assert_eq!(slearn["live_apps"].as_object().unwrap().values().map(|v| v.as_u64().unwrap()).sum::<u64>(), 1, "{slearn}");
    assert_eq!(sampling(&e, 1), Some(Sampling::Estimated));
    assert_eq!(sampling(&e, 2), None, "the Carbyne queue's estimator does not sample");
    let gauges = e.gauges();
    let sampling_apps: f64 = gauges.iter().filter(|g| g.name == "slearn_apps").map(|g| g.value).sum();
    assert_eq!(sampling_apps, 1.0, "one app tracked, in the SLearn queue");
}
