//! Bad input in workload traces (issue 15 item 4): property-based tests of
//! every reader in `src/workload/` — Shepherd's JSON traces
//! (`Trace::from_json`), Hadoop SLS job streams (`sls::parse`) and SWIM TSV
//! (`swim::parse`) — and of `workload::load`, which picks among them.
//!
//! Properties: random and truncated input never panics a reader nor the
//! conversion of what it accepted into a `Trace`; every error says where
//! (`line N column M` for JSON, `line N` and the field for SWIM, the job and
//! stage for a trace that parses but is inconsistent); a truncated JSON
//! document is always an error; generated SWIM and SLS traces round-trip.
//!
//! Case counts: `CASES_*` below; truncations of the small shipped traces are
//! exhaustive and print how many they tried.

use proptest::prelude::*;
use shepherd::workload::{self, sls, swim, Trace};

/// Random text per reader.
const CASES_RANDOM_TEXT: u32 = 512;
/// Random JSON-looking text (brackets, keys the readers know, numbers).
const CASES_JSON_SHAPED: u32 = 512;
/// Generated SWIM / SLS traces, round trip and every truncation.
const CASES_GENERATED: u32 = 64;
/// Random truncation points of the larger shipped traces.
const CASES_LARGE_TRUNCATED: u32 = 64;

fn json_error(e: &str) -> bool {
    e.contains("line ") && e.contains("column ")
}

/// Trace JSON: a syntax/shape error with its position, or a validation
/// error naming the job.
fn check_trace_json(text: &str) {
    match Trace::from_json(text) {
        Ok(t) => {
            let _ = t.task_count();
            for j in &t.jobs {
                let _ = (j.critical_path_ms(), j.peak_demand(), j.work_ms());
            }
        }
        Err(e) => assert!(json_error(&e) || e.starts_with("job ") || e.starts_with("cluster: "), "unnamed error: {e}"),
    }
}

fn check_sls(text: &str) {
    match sls::parse(text) {
        Ok(jobs) => {
            let _ = sls::to_trace(&jobs);
        }
        Err(e) => assert!(json_error(&e) || e.starts_with("job "), "unnamed error: {e}"),
    }
}

fn check_swim(text: &str) {
    match swim::parse(text) {
        Ok(jobs) => {
            let _ = swim::to_trace(&jobs, &swim::SwimModel::default());
        }
        Err(e) => assert!(e.starts_with("line "), "unnamed error: {e}"),
    }
}

fn check_all(text: &str) {
    check_trace_json(text);
    check_sls(text);
    check_swim(text);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: CASES_RANDOM_TEXT, failure_persistence: None, ..ProptestConfig::default() })]
    #[test]
    fn random_text(text in prop_oneof!["\\PC{0,300}", ".{0,300}", "[0-9\t\n #a-z_.-]{0,300}"]) {
        check_all(&text);
    }
}

/// Keys the readers know, so random documents get past the first byte.
#[rustfmt::skip]
const JSON_KEYS: &[&str] = &[
    "jobs", "id", "submit_ms", "stages", "tasks", "duration_ms", "memory_mb", "vcores", "after", "slowstart", "cluster",
    "nodes", "am", "gang", "queue", "user", "name", "category", "rack_size", "job.id", "job.start.ms", "job.tasks",
    "job.end.ms", "container.start.ms", "container.end.ms", "duration.ms", "container.priority", "container.type",
    "container.count", "container.memory", "container.vcores", "job.queue.name", "job.user", "am.type",
];

fn json_value() -> impl Strategy<Value = String> {
    let leaf = prop_oneof![
        any::<i64>().prop_map(|v| v.to_string()),
        prop_oneof![Just(-1i64), Just(0), Just(1), Just(2)].prop_map(|v| v.to_string()),
        any::<f64>().prop_filter("JSON has no NaN/inf", |v| v.is_finite()).prop_map(|v| v.to_string()),
        any::<bool>().prop_map(|v| v.to_string()),
        Just("null".to_string()),
        "[a-z0-9_]{0,6}".prop_map(|s| format!("{s:?}")),
    ];
    leaf.prop_recursive(4, 48, 5, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..5).prop_map(|v| format!("[{}]", v.join(","))),
            prop::collection::vec((prop::sample::select(JSON_KEYS), inner), 0..6)
                .prop_map(|kv| { format!("{{{}}}", kv.iter().map(|(k, v)| format!("{k:?}:{v}")).collect::<Vec<_>>().join(",")) }),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: CASES_JSON_SHAPED, failure_persistence: None, ..ProptestConfig::default() })]
    #[test]
    fn json_shaped_documents(doc in json_value()) {
        check_trace_json(&doc);
        check_sls(&doc);
    }
}

fn swim_job() -> impl Strategy<Value = swim::SwimJob> {
    // Sizes up to 1 TiB (8192 maps) keep each case cheap; `random_text`
    // and `swim_sizes_beyond_u64_or_the_cap` cover the extremes.
    ("job[0-9]{1,4}", 0i64..1_000_000, 0i64..10_000, 0u64..1 << 40, 0u64..1 << 40, 0u64..1 << 40).prop_map(
        |(id, submit_s, gap_s, input_bytes, shuffle_bytes, output_bytes)| swim::SwimJob {
            id,
            submit_s,
            gap_s,
            input_bytes,
            shuffle_bytes,
            output_bytes,
        },
    )
}

fn sls_task() -> impl Strategy<Value = sls::SlsTask> {
    (
        prop::option::of("[a-z]{1,5}"),
        prop::option::of(any::<i64>()),
        prop::option::of(any::<i64>()),
        prop::option::of(any::<i64>()),
        any::<i32>(),
        prop::sample::select(&["map", "reduce", "other"][..]),
        prop::option::of(0u32..1000),
        prop::option::of(any::<i64>()),
        prop::option::of(any::<i64>()),
    )
        .prop_map(|(host, start_ms, end_ms, duration_ms, priority, kind, count, memory_mb, vcores)| sls::SlsTask {
            host,
            start_ms,
            end_ms,
            duration_ms,
            priority,
            kind: kind.into(),
            count,
            memory_mb,
            vcores,
        })
}

fn sls_job() -> impl Strategy<Value = sls::SlsJob> {
    (
        "[a-z]{1,6}",
        any::<i64>(),
        prop::option::of(any::<i64>()),
        "[a-z]{1,6}",
        "job_[0-9]{1,4}",
        "[a-z]{1,6}",
        prop::option::of("[a-z ]{0,6}"),
        prop::option::of("[a-z]{1,6}"),
        prop::option::of(any::<i64>()),
        prop::option::of(any::<i64>()),
        prop::collection::vec(sls_task(), 0..4),
    )
        .prop_map(|(am_type, start_ms, end_ms, queue, id, user, name, category, am_memory_mb, am_vcores, tasks)| sls::SlsJob {
            am_type,
            start_ms,
            end_ms,
            queue,
            id,
            user,
            name,
            category,
            am_memory_mb,
            am_vcores,
            tasks,
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: CASES_GENERATED, failure_persistence: None, ..ProptestConfig::default() })]
    #[test]
    fn generated_swim_round_trips_and_every_truncation_is_safe(jobs in prop::collection::vec(swim_job(), 1..6)) {
        let text = swim::write(&jobs);
        prop_assert_eq!(swim::parse(&text).unwrap(), jobs);
        for cut in (0..text.len()).filter(|i| text.is_char_boundary(*i)) {
            check_swim(&text[..cut]);
        }
    }

    #[test]
    fn generated_sls_round_trips_and_every_truncation_is_an_error(jobs in prop::collection::vec(sls_job(), 1..4)) {
        let text = sls::write(&jobs);
        prop_assert_eq!(sls::parse(&text).unwrap(), jobs.clone());
        // Object boundaries: where a prefix is a whole, shorter stream.
        let mut ends = vec![0usize];
        let mut acc = 0;
        for j in &jobs {
            acc += sls::write(std::slice::from_ref(j)).len();
            ends.push(acc - 1); // before the newline
            ends.push(acc);
        }
        for cut in (0..text.len()).filter(|i| text.is_char_boundary(*i)) {
            check_sls(&text[..cut]);
            if !ends.contains(&cut) {
                let e = sls::parse(&text[..cut]).unwrap_err();
                prop_assert!(json_error(&e), "{}", e);
            }
        }
    }
}

/// Every truncation of a whole-document JSON trace is an error.
fn truncations_of_trace_json(name: &str, text: &str) -> usize {
    assert!(Trace::from_json(text).is_ok(), "{name} parses whole");
    let whole = text.trim_end();
    let mut n = 0;
    for cut in (0..text.len()).filter(|i| text.is_char_boundary(*i)) {
        let part = &text[..cut];
        n += 1;
        if part.trim_end() == whole {
            continue;
        }
        let e = Trace::from_json(part).unwrap_err();
        assert!(json_error(&e), "{name} cut at {cut}: {e}");
    }
    n
}

#[test]
fn every_truncation_of_the_small_shipped_traces() {
    let mut total = 0;
    for (name, text) in [
        ("examples/traces/small.json", include_str!("../examples/traces/small.json")),
        ("examples/traces/yarn-quick.json", include_str!("../examples/traces/yarn-quick.json")),
    ] {
        let n = truncations_of_trace_json(name, text);
        println!("trace truncations: {name}: {n}");
        total += n;
    }
    let sls_text = include_str!("../examples/traces/sls-jobs.json");
    assert!(sls::parse(sls_text).is_ok());
    let cuts: Vec<usize> = (0..sls_text.len()).filter(|i| sls_text.is_char_boundary(*i)).collect();
    for &cut in &cuts {
        check_sls(&sls_text[..cut]);
    }
    println!("trace truncations: examples/traces/sls-jobs.json: {}", cuts.len());
    total += cuts.len();
    let swim_text = include_str!("../examples/traces/fb-sample.swim");
    assert!(swim::parse(swim_text).is_ok());
    let cuts: Vec<usize> = (0..swim_text.len()).filter(|i| swim_text.is_char_boundary(*i)).collect();
    for &cut in &cuts {
        check_swim(&swim_text[..cut]);
    }
    println!("trace truncations: examples/traces/fb-sample.swim: {}", cuts.len());
    total += cuts.len();
    println!("trace truncations: total {total}");
}

const LARGE: &[(&str, &str)] = &[
    ("examples/traces/yarn-burst.json", include_str!("../examples/traces/yarn-burst.json")),
    ("examples/traces/yarn-hibench-20.json", include_str!("../examples/traces/yarn-hibench-20.json")),
    ("examples/traces/yarn-mix.json", include_str!("../examples/traces/yarn-mix.json")),
];

proptest! {
    #![proptest_config(ProptestConfig { cases: CASES_LARGE_TRUNCATED, failure_persistence: None, ..ProptestConfig::default() })]
    #[test]
    fn random_truncations_of_the_larger_shipped_traces(which in 0..LARGE.len(), at in any::<prop::sample::Index>()) {
        let (name, text) = LARGE[which];
        let mut cut = at.index(text.len());
        while !text.is_char_boundary(cut) {
            cut -= 1;
        }
        let part = &text[..cut];
        if part.trim_end() != text.trim_end() {
            let e = Trace::from_json(part).unwrap_err();
            prop_assert!(json_error(&e), "{} cut at {}: {}", name, cut, e);
        }
    }
}

#[test]
fn load_picks_the_reader_and_names_the_file_in_errors() {
    let dir = std::env::temp_dir().join(format!("shepherd-fuzz-traces-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for (file, body) in [("t.swim", "job1\t0\t1\n"), ("t.sls.json", "{\"job.id\": \"a\", \"job.tasks\": ["), ("t.json", "{\"jobs\": [{")] {
        let p = dir.join(file);
        std::fs::write(&p, body).unwrap();
        let e = workload::load(&p).unwrap_err();
        assert!(e.contains(file) && e.contains("line"), "{e}");
    }
    let e = workload::load(&dir.join("missing.json")).unwrap_err();
    assert!(e.contains("missing.json"), "{e}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Found by `random_text` / the generated traces: a SWIM input size or an
/// SLS `container.count` expanded into billions of tasks and the process
/// aborted on allocation. Now bounded: SWIM maps are capped like reduces,
/// an SLS job over `MAX_TASKS_PER_JOB` is an error naming it.
#[test]
fn huge_sizes_and_counts_are_bounded() {
    let line = format!("big\t0\t0\t{}\t{}\t{}\n", u64::MAX, u64::MAX, u64::MAX);
    let t = swim::to_trace(&swim::parse(&line).unwrap(), &swim::SwimModel::default());
    assert_eq!(t.jobs[0].stages[0].tasks.len(), 100_000);
    assert_eq!(t.jobs[0].stages[1].tasks.len(), 999);
    let e = swim::parse(&format!("big\t0\t0\t{}0\t0\t0\n", u64::MAX)).unwrap_err();
    assert!(e.starts_with("line 1 field 4"), "{e}");
    let e = sls::parse(r#"{"job.id": "j7", "job.start.ms": 0, "job.tasks": [{"container.count": 4000000000}]}"#).unwrap_err();
    assert!(e.contains("job j7") && e.contains("container.count"), "{e}");
    let e = Trace::from_json(r#"{"cluster": {"nodes": 4000000000, "memory_mb": 1, "vcores": 1}, "jobs": []}"#).unwrap_err();
    assert!(e.contains("nodes"), "{e}");
}
