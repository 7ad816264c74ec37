//! DRESS, SLearn, Carbyne, ROSE and the composed default with Spark's and
//! Tez's asks (the starvation case is in `starvation.rs`).

use super::*;
use crate::policy::Sampling;

fn reserve_app(e: &Engine) -> serde_json::Value {
    e.state_json()["pipelines"][0]["plugins"]["reserve"]["state"]["apps"][0].clone()
}

/// DRESS §IV-C classifies a job by its request; a dynamic-allocation app's
/// request is the peak of its executors (allocated + outstanding). Node of
/// 100 slots, θ = 10 %: the app starts small with 2 executors, becomes
/// large when a wide stage raises its target to 16, and stays large after
/// it releases the idle executors and when a later stage asks for fewer
/// than its peak — a user who once needed 16 % of the cluster is a large
/// job, and one whose executors come and go must not switch pools (and
/// reserve) with every stage. The same in the composed default (DRESS's
/// classification is its reserve's).
#[test]
fn a_dynamic_allocation_app_is_classified_by_its_peak_and_never_downgraded() {
    for policy in ["dress", "composed"] {
        let mut e = engine(&format!("[scheduler]\npolicy = \"{policy}\"\n"));
        node(&mut e, 1, 100);
        app(&mut e, 1, "default", "SPARK", "etl", 0);
        ask(&mut e, 1, EXECUTORS, 2);
        assert_eq!(reserve_app(&e)["category"], "small", "{policy}");
        let first = pass(&mut e, 1, 0);
        assert_eq!(first.len(), 2);
        // A wide stage: target 16, 14 more asked.
        ask(&mut e, 1, EXECUTORS, 14);
        assert_eq!(reserve_app(&e)["category"], "large", "{policy}");
        let wide = pass(&mut e, 1, 1_000);
        assert_eq!(wide.len(), 14, "{policy}");
        // Idle executors released (spark.dynamicAllocation.executorIdleTimeout).
        for (c, _) in &wide {
            finish(&mut e, *c, 60_000);
        }
        ask(&mut e, 1, EXECUTORS, 0);
        assert_eq!(running(&e, 1), 2);
        let st = reserve_app(&e);
        assert_eq!((st["category"].as_str(), st["reclassified"].as_u64()), (Some("large"), Some(1)), "{policy}: {st}");
        // A later, narrower stage: 4 executors, below the peak.
        ask(&mut e, 1, EXECUTORS, 2);
        let st = reserve_app(&e);
        assert_eq!((st["category"].as_str(), st["reclassified"].as_u64()), (Some("large"), Some(1)), "{policy}: {st}");
        assert!((st["demand_share"].as_f64().unwrap() - 0.16).abs() < 1e-9, "{policy}: {st}");
    }
}

fn sampling(e: &Engine, id: u32) -> Option<Sampling> {
    e.policies().sampling(e.state(), &e.state().apps[&id])
}

fn gs_queue(e: &Engine, id: u32) -> u64 {
    e.policies().app_json(e.state(), &e.state().apps[&id])["app_order.gs"]["queue"].as_u64().unwrap()
}

/// Tez's vertex priorities: (distance from the root + 1) × 3.
const V1: i32 = 3;
const V2: i32 = 6;
const V3: i32 = 9;

/// SLearn-DAG (§6) with Tez's asks: only the first vertex (the app's first
/// task key) is sampled; the later vertices, asked at their own
/// priorities, are predicted from the job's history scaled by how far the
/// history was off on the first vertex, and their tasks are never held
/// back for pilots. A past run of DAG "q7": vertex 1 10 × 10 s, vertex 2
/// 5 × 10 s, vertex 3 2 × 10 s. This run's pilot says vertex-1 tasks take
/// 20 s: d_s = 200 s, d_h = 100 s, later vertices (50 + 20 s) × 2.
#[test]
fn slearn_samples_a_tez_dags_first_vertex_and_predicts_the_others_from_history() {
    let mut e = engine("[scheduler]\npolicy = \"slearn\"\n[slearn]\nfixed_ratio = 0.1\n");
    node(&mut e, 1, 64);
    app(&mut e, 1, "default", "TEZ", "q7", 0);
    let mut now = 0;
    for (vertex, tasks) in [(V1, 10), (V2, 5), (V3, 2)] {
        ask(&mut e, 1, vertex, tasks);
        let got = pass(&mut e, 1, now);
        assert_eq!(got.len(), tasks as usize);
        now += 10_000;
        for (c, _) in got {
            finish(&mut e, c, now);
        }
    }
    e.apply(Event::AppRemoved { app: 1 });

    app(&mut e, 2, "default", "TEZ", "q7", now);
    // A wide MapReduce job wants the whole node too, so what is held back shows.
    app(&mut e, 3, "default", "MAPREDUCE", "other", now);
    ask(&mut e, 3, MAPS, 1_000);
    ask(&mut e, 2, V1, 10);
    assert!(matches!(sampling(&e, 2), Some(Sampling::Pilots { wanted: 1, .. })), "{:?}", sampling(&e, 2));
    let got = pass(&mut e, 1, now);
    let v1 = of(&got, 2);
    assert_eq!(v1.len(), 1, "vertex 1 runs its pilot only while it is sampled: {got:?}");
    finish(&mut e, v1[0], now + 20_000);
    assert_eq!(sampling(&e, 2), Some(Sampling::Estimated));
    assert_eq!(e.estimate_ms(2), Some(200_000.0 + 140_000.0));
    assert_eq!(gs_queue(&e, 2), 0, "340 s: the top queue");
    // Vertex 2 asks while vertex 1's other 9 tasks wait; 14 slots free up:
    // all go to the DAG (top queue, nothing held back), none to the job
    // still being sampled.
    ask(&mut e, 2, V2, 5);
    for c in of(&got, 3).into_iter().take(13) {
        finish(&mut e, c, now + 21_000);
    }
    let got = pass(&mut e, 1, now + 21_000);
    assert_eq!((of(&got, 2).len(), of(&got, 3).len()), (14, 0), "{got:?}");
    assert_eq!(sampling(&e, 2), Some(Sampling::Estimated));
}

/// Spark's executors are not tasks (one runs many tasks, and lives as long
/// as dynamic allocation keeps it), so their runtimes say nothing of the
/// job's size: SLearn does not sample a SPARK app (`[apps]
/// executor_app_types`, default SPARK) and holds none of its executors back for pilots, while a wide MapReduce
/// job beside it runs only its pilots until they finish. GS places the
/// Spark app by the service it attains (§5.1.1's demotion without an
/// estimate): 14 executors held 100 s = 1.4·10⁶ container-ms → Q₁; 800 s
/// → Q₂. A long-lived app sinks, as under least-attained-service, and GS's
/// weighted sharing keeps serving it from there. With the list empty the
/// Spark app is sampled like any wide job.
#[test]
fn slearn_does_not_sample_spark_and_places_it_by_attained_service() {
    let mut e = engine("[scheduler]\npolicy = \"slearn\"\n[slearn]\nfixed_ratio = 0.1\n[apps]\nexecutor_app_types = []\n");
    app(&mut e, 1, "default", "SPARK", "etl", 0);
    ask(&mut e, 1, EXECUTORS, 14);
    assert!(matches!(sampling(&e, 1), Some(Sampling::Pilots { wanted: 2, .. })), "{:?}", sampling(&e, 1));

    let mut e = engine("[scheduler]\npolicy = \"slearn\"\n[slearn]\nfixed_ratio = 0.1\n");
    node(&mut e, 1, 16);
    app(&mut e, 1, "default", "SPARK", "etl", 0);
    app(&mut e, 2, "default", "MAPREDUCE", "sort", 0);
    ask(&mut e, 1, EXECUTORS, 14);
    ask(&mut e, 2, MAPS, 20);
    assert_eq!(sampling(&e, 1), Some(Sampling::FellBack));
    assert!(matches!(sampling(&e, 2), Some(Sampling::Pilots { wanted: 2, .. })));
    let got = pass(&mut e, 1, 0);
    assert_eq!((of(&got, 1).len(), of(&got, 2).len()), (14, 2), "{got:?}");
    assert_eq!(gs_queue(&e, 1), 0);
    e.advance_clock(100_000);
    assert_eq!(gs_queue(&e, 1), 1);
    e.advance_clock(800_000);
    assert_eq!(gs_queue(&e, 1), 2);
    assert_eq!(sampling(&e, 1), Some(Sampling::FellBack));
    assert_eq!(e.estimate_ms(1), None, "no size is predicted for it");
}

fn carbyne_view(e: &Engine, app: u32) -> serde_json::Value {
    e.state_json()["apps"].as_array().unwrap().iter().find(|a| a["app"] == app).unwrap()["pipeline"]["classify.carbyne"].clone()
}

/// Carbyne with a Spark app beside a MapReduce job on 8 slots, after a
/// past job's 5 s maps taught everyone's task runtime. Carbyne's plan
/// needs task durations (§3.1); an executor has none (it runs tasks until
/// dynamic allocation releases it), and with the 5 s maps as its runtime
/// the planner held 4 of the 8 executors back as if they could start 5 s
/// later and still meet T_k. With `[apps] executor_app_types` (default SPARK)
/// its runtime is unknown: no plan (status `no_runtime`), every executor
/// DEFAULT, served by DRF — its main-phase share, 4 of 8 slots — and none
/// waits for the leftover; the MapReduce job is planned as before.
/// `executor_app_types = []` gives the old plan back.
#[test]
fn carbyne_plans_no_altruism_for_spark_executors_but_serves_their_drf_share() {
    for (extra, status, held) in [("", "no_runtime", 0), ("[apps]\nexecutor_app_types = []\n", "planned", 4)] {
        let mut e = engine(&format!("[scheduler]\npolicy = \"carbyne\"\n{extra}"));
        node(&mut e, 1, 8);
        app(&mut e, 9, "default", "MAPREDUCE", "old", 0);
        ask(&mut e, 9, MAPS, 8);
        for (c, _) in pass(&mut e, 1, 0) {
            finish(&mut e, c, 5_000);
        }
        e.apply(Event::AppRemoved { app: 9 });
        app(&mut e, 1, "default", "SPARK", "etl", 5_000);
        app(&mut e, 2, "default", "MAPREDUCE", "sort", 5_000);
        ask(&mut e, 2, MAPS, 16);
        ask(&mut e, 1, EXECUTORS, 8);
        let got = pass(&mut e, 1, 5_000);
        assert_eq!((of(&got, 1).len(), of(&got, 2).len()), (4, 4), "{extra}: {got:?}");
        let spark = carbyne_view(&e, 1);
        assert_eq!(spark["status"], status, "{extra}: {spark}");
        assert_eq!(spark["altruistic_containers"], held, "{extra}: {spark}");
        let mr = carbyne_view(&e, 2);
        assert_eq!((mr["status"].as_str(), mr["altruistic_containers"].as_i64()), (Some("planned"), Some(12)), "{mr}");
    }
}

/// A heartbeat of node 1 at `now` carrying measured use of `vcores`.
fn heartbeat(e: &mut Engine, now: i64, vcores: f64) -> Vec<Decision> {
    e.tick(now);
    e.apply(Event::NodeUtilization { node: 1, used: Resources::new(2048, (vcores * 1000.0) as i64) });
    let mut out = vec![];
    e.schedule_node(1, now, &mut out).unwrap();
    out
}

fn speculative(d: &[Decision]) -> Vec<u64> {
    use crate::model::ExecutionType;
    d.iter()
        .filter_map(|d| match d {
            Decision::Allocate { container, execution: ExecutionType::Opportunistic, app: 1, .. } => Some(*container),
            _ => None,
        })
        .collect()
}

fn preempted(d: &[Decision]) -> Vec<u64> {
    d.iter().filter_map(|d| if let Decision::Preempt { container } = d { Some(*container) } else { None }).collect()
}

/// ROSE with a Spark app that wants more executors than the node's 8 slots
/// (bounds 0.8 / 0.95 of 8 vcores): speculative executors on the idle
/// capacity, and when the measured load crosses the eviction bound the
/// newest speculative ones are evicted — never a guaranteed executor. YARN
/// reports them PREEMPTED (−102), which Spark's YarnAllocator does not
/// count as executor failures: it asks again for its target minus what
/// runs, and the re-ask gets replacements once the load falls. (The lost
/// tasks are Spark's to retry; the engine sees only the ask.)
#[test]
fn rose_evicts_a_spark_apps_speculative_executors_and_its_re_ask_gets_replacements() {
    let mut e = engine("[scheduler]\npolicy = \"rose\"\n");
    node(&mut e, 1, 8);
    app(&mut e, 1, "default", "SPARK", "etl", 0);
    let target = 20;
    ask(&mut e, 1, EXECUTORS, target);
    let d = heartbeat(&mut e, 0, 2.0);
    let guaranteed = d.len() - speculative(&d).len();
    assert_eq!((guaranteed, speculative(&d).len()), (8, 4), "{d:?}");
    heartbeat(&mut e, 1_000, 2.0);
    for t in [2_000, 3_000, 4_000] {
        heartbeat(&mut e, t, 4.0);
    }
    let newest = speculative(&heartbeat(&mut e, 5_000, 4.0));
    assert_eq!(newest.len(), 2);
    // Measured 7.8 > 0.95 × 8 vcores: the two newest speculative executors go.
    let mut gone = preempted(&heartbeat(&mut e, 6_000, 7.8));
    gone.sort_unstable();
    assert_eq!(gone, newest);
    for c in &gone {
        e.apply(Event::ContainerFinished { container: *c, exit_status: -102, at_ms: 6_500 });
    }
    assert_eq!(running(&e, 1), 12, "8 guaranteed + 4 older speculative executors stay");
    let outstanding = target - running(&e, 1) as i32;
    ask(&mut e, 1, EXECUTORS, outstanding);
    // The load falls: the re-asked executors get speculative containers again.
    let mut replaced = vec![];
    for t in (7_000..=30_000).step_by(1_000) {
        replaced.extend(speculative(&heartbeat(&mut e, t, 3.0)));
    }
    assert!(replaced.len() >= 2, "{replaced:?}");
    assert!(replaced.iter().all(|c| !gone.contains(c)));
    assert_eq!(e.counters().preemptions, 2);
}

/// The composed default's SRTF with a Spark app: `tasks` has no task
/// runtime of an executor until the app releases one, so it first prices
/// the executors it asks for at everyone's task runtime (a 5 s map: 4 × 5 s,
/// it ranks before a 10-map job), then at its own released executors'
/// lifetimes (60 s under `executorIdleTimeout`: 4 × 60 s). An
/// executor's lifetime is the container-time the app will hold, which is
/// what SRTF weighs; the queue level (DRF) keeps its share either way
/// (`a_dynamic_allocation_app_is_not_starved_by_a_mapreduce_stream_in_another_queue`).
/// Those lifetimes stay out of everyone's mean (`[apps] executor_app_types`):
/// a new MapReduce job is still priced at the 5 s map.
#[test]
fn composed_prices_spark_executors_at_their_own_released_lifetimes() {
    let mut e = engine("[scheduler]\npolicy = \"composed\"\n");
    node(&mut e, 1, 100);
    app(&mut e, 9, "default", "MAPREDUCE", "old", 0);
    ask(&mut e, 9, MAPS, 1);
    let (c, _) = pass(&mut e, 1, 0)[0];
    finish(&mut e, c, 5_000);
    e.apply(Event::AppRemoved { app: 9 });
    app(&mut e, 1, "default", "SPARK", "etl", 5_000);
    app(&mut e, 2, "default", "MAPREDUCE", "sort", 5_000);
    ask(&mut e, 1, EXECUTORS, 4);
    ask(&mut e, 2, MAPS, 10);
    let remaining = |e: &Engine, id: u32| e.policies().estimate(e.state(), &e.state().apps[&id]).unwrap().remaining_ms;
    assert_eq!((remaining(&e, 1), remaining(&e, 2)), (20_000.0, 50_000.0));
    let got = pass(&mut e, 1, 5_000);
    assert_eq!(got[0].1, 1, "the Spark app first: {got:?}");
    // Its 4 executors idle out at 65 s; the next stage asks 4 again.
    for c in of(&got, 1) {
        finish(&mut e, c, 65_000);
    }
    ask(&mut e, 1, EXECUTORS, 4);
    assert_eq!(remaining(&e, 1), 240_000.0);
    // A new MapReduce job is priced at the 5 s map alone, not (5 + 4 × 60) ÷ 5 s.
    app(&mut e, 3, "default", "MAPREDUCE", "join", 65_000);
    ask(&mut e, 3, MAPS, 2);
    assert_eq!(remaining(&e, 3), 10_000.0);
}
