//! Generators reproduce the papers' workload statistics they claim.

use shepherd::workload::gen::{generate, offered_load, GenParams};

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

#[test]
fn hibench_small_share_is_exact() {
    for share in [0.1, 0.2, 0.3, 0.4] {
        let t = generate("hibench", &GenParams { seed: 3, small_share: Some(share), ..Default::default() }).unwrap();
        let small = t.jobs.iter().filter(|j| j.category.as_deref() == Some("small")).count();
        assert_eq!(small, (share * 20.0).round() as usize);
        let c = t.cluster.as_ref().unwrap();
        let cap = (c.vcores * c.nodes as i64) as f64;
        for j in t.jobs.iter().filter(|j| j.category.as_deref() == Some("small")) {
            assert!(j.peak_demand().vcores() as f64 <= 0.1 * cap, "DRESS θ = 10 %");
        }
    }
}

#[test]
fn tpcds_dags_follow_carbyne_table1() {
    let t = generate("tpcds", &GenParams { seed: 1, jobs: Some(400), ..Default::default() }).unwrap();
    let stages = median(t.jobs.iter().map(|j| j.stages.len() as f64).collect());
    assert!((6.0..=10.0).contains(&stages), "median stages {stages}");
    let barriers = median(t.jobs.iter().map(|j| j.stages.iter().filter(|s| s.after.len() > 1).count() as f64).collect());
    assert!((1.0..=2.0).contains(&barriers), "median barriers {barriers}");
}

#[test]
fn google_load_is_about_one() {
    let t = generate("google", &GenParams { seed: 9, ..Default::default() }).unwrap();
    let load = offered_load(&t.jobs, t.cluster.as_ref().unwrap());
    assert!((0.8..1.25).contains(&load), "load {load}");
    assert!(t.jobs.iter().all(|j| j.task_count() <= 150));
}

#[test]
fn facebook_scale() {
    let t = generate("facebook", &GenParams { seed: 1, jobs: Some(700), ..Default::default() }).unwrap();
    let tasks = t.task_count() as f64;
    assert!((tasks - 65_000.0).abs() / 65_000.0 < 0.05, "{tasks}");
    let map_only = t.jobs.iter().filter(|j| j.stages.len() == 1).count();
    assert!(map_only > 200);
}

#[test]
fn generated_traces_round_trip_through_the_trace_format() {
    for kind in shepherd::workload::gen::KINDS {
        let t = generate(kind, &GenParams { seed: 2, jobs: Some(30), ..Default::default() }).unwrap();
        let back = shepherd::workload::Trace::from_json(&t.to_json()).unwrap();
        assert_eq!(t, back, "{kind}");
    }
}

#[test]
fn fixed_interval_replaces_poisson_arrivals_only() {
    // DRESS §V-A2: jobs "submitted to the system one by one with a 5 seconds interval".
    let poisson = generate("hibench", &GenParams { seed: 4, ..Default::default() }).unwrap();
    let fixed = generate("hibench", &GenParams { seed: 4, interval_ms: Some(5000), ..Default::default() }).unwrap();
    let submits: Vec<i64> = fixed.jobs.iter().map(|j| j.submit_ms).collect();
    assert_eq!(submits, (0..20).map(|i| i * 5000).collect::<Vec<i64>>());
    assert_eq!(poisson.jobs.len(), fixed.jobs.len());
    for (p, f) in poisson.jobs.iter().zip(&fixed.jobs) {
        assert_eq!((&p.id, &p.stages, &p.category), (&f.id, &f.stages, &f.category), "same jobs, only arrivals differ");
    }
    assert!(generate("hibench", &GenParams { seed: 4, interval_ms: Some(-1), ..Default::default() }).is_err());
}
