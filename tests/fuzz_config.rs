//! Bad input in Shepherd's config files (issue 15 item 4): property-based
//! tests of the engine config parser (`Config::parse`, then building an
//! engine from what it accepted and applying it in place as
//! `-refreshQueues` does) and of the sidecar's config parser.
//!
//! Properties: no input panics; every error either names a key and its value
//! (`key `K` has value `V``, with K under a real section) or, for text that
//! is not TOML of the right shape, the TOML error's line and column.
//!
//! Case counts: `CASES_*` below; the truncation tests are exhaustive (every
//! char boundary of every shipped config) and print how many they tried.

use proptest::prelude::*;
use shepherd::config::ConfigError;
use shepherd::sidecar::config::SidecarConfig;
use shepherd::{Config, Engine};

/// Random documents built from the real key set.
const CASES_KEY_SET_DOCS: u32 = 512;
/// Random text (printable and arbitrary Unicode).
const CASES_GARBAGE: u32 = 256;
/// Random sidecar documents built from its key set.
const CASES_SIDECAR_DOCS: u32 = 256;

/// Every section and key `Config` reads (see `src/config/`, `src/control/config.rs`).
#[rustfmt::skip] // one line per section, read as a table
const ENGINE_KEYS: &[(&str, &[&str])] = &[
    ("scheduler", &["policy", "queue_order", "fault_injection", "fault_every_n_heartbeats", "max_assignments_per_heartbeat", "refused_placement_backoff_ms"]),
    ("apps", &["executor_app_types"]),
    ("fifo", &["strict_order"]),
    ("dress", &["theta", "classify_against", "delta_initial", "delta_min", "delta_max", "interval_ms", "t_s", "t_e", "phase_window_ms", "borrow_idle_pool", "small_borrows_free", "start_on", "skip_am_container", "am_in_request"]),
    ("history", &["max_samples", "point_quantile"]),
    ("carbyne", &["p_altruism", "greedy_within_share", "keep_t_k", "commit_t_k", "leftover_order", "leftover_holds", "leftover_cap", "horizon_ms", "estimate_error", "dag_hint", "protect_lenders", "seed"]),
    ("slearn", &["thin_limit", "fixed_ratio", "window", "pilot_timeout_ms"]),
    ("gs", &["queues", "first_threshold_ms", "growth", "weight_ratio"]),
    ("rose", &["segments", "fence", "window_ms", "max_samples", "stale_ms", "bound_memory", "bound_vcores", "evict_memory", "evict_vcores", "evict_after_ms", "settle_ms", "max_ratio", "top_k", "rating_window_ms", "straggler_factor", "straggler_min_samples", "candidates", "candidates_factor", "refresh_ms"]),
    ("control", &["enabled", "bind", "port", "secret_file", "allow_remote", "max_pending_inputs", "max_ttl_ms"]),
    ("preemption", &["interval_ms", "wait_before_kill_ms", "dead_zone", "max_per_round", "spare_finishing"]),
];
#[rustfmt::skip]
const QUEUE_KEYS: &[&str] = &["name", "policy", "weight", "capacity", "max_capacity", "max_am_share", "submit_acl", "admin_acl", "preemption"];
#[rustfmt::skip]
const PIPELINE_KEYS: &[&str] = &["estimate", "reserve", "app_order", "pool_order", "classify", "filter", "leftover", "strict_order", "am_first", "oversubscribe", "dress", "carbyne", "slearn", "rose"];
/// Where a named error's key may start.
#[rustfmt::skip]
const ENGINE_SECTIONS: &[&str] = &["scheduler", "apps", "fifo", "dress", "history", "carbyne", "slearn", "gs", "rose", "control", "preemption", "queue", "pipeline", "yarn.resource-types"];

#[rustfmt::skip] // one line per section, read as a table
const SIDECAR_KEYS: &[(&str, &[&str])] = &[
    ("server", &["listen", "allow_remote", "token_file"]),
    ("rm", &["addresses", "poll_interval_ms", "timeout_ms", "backoff_initial_ms", "backoff_max_ms", "stale_after_ms", "auth_header", "auth_value_file", "user_name", "ca_file", "accept_invalid_certs", "max_apps"]),
    ("control", &["address", "secret_file", "poll_interval_ms", "timeout_ms"]),
    ("series", &["retention_s", "max_points"]),
    ("load", &["push", "window_s", "segments", "ttl_ms"]),
    ("history", &["push"]),
];
#[rustfmt::skip]
const SIDECAR_SECTIONS: &[&str] = &["server", "rm", "control", "series", "load", "history"];

/// Words the config accepts somewhere, and some it does not.
#[rustfmt::skip]
const WORDS: &[&str] = &[
    "composed", "fifo", "drf", "dress", "capacity", "sjf", "srtf", "tetris", "las", "gs", "3sigma", "3sigma-point", "oracle",
    "slearn", "carbyne", "pilots", "history", "history-point", "tasks", "none", "flat", "auto", "total", "available",
    "launched", "allocated", "full", "structure", "ignore", "pack", "panic-on-schedule", "error-on-schedule", "default",
    "small", "large", "rose", "constraints", "p1", "127.0.0.1", "0.0.0.0", "::1", "localhost", "http://127.0.0.1:8088", "https://rm:8090",
    "127.0.0.1:9470", "*", "alice bob", "a.b", "", " ", "lottery", "SPARK",
];

/// A TOML value of a random type, as text.
fn value() -> BoxedStrategy<String> {
    let leaf = prop_oneof![
        any::<i64>().prop_map(|v| v.to_string()),
        prop_oneof![Just(-1i64), Just(0), Just(1), Just(2), Just(3), Just(100), Just(65536)].prop_map(|v| v.to_string()),
        any::<f64>().prop_map(|v| format!("{v:?}")),
        prop_oneof![Just("nan"), Just("inf"), Just("-inf"), Just("0.0"), Just("0.1"), Just("0.5"), Just("1.0"), Just("1.5"), Just("-0.2")]
            .prop_map(String::from),
        any::<bool>().prop_map(|v| v.to_string()),
        prop::sample::select(WORDS).prop_map(|w| format!("{w:?}")),
        "\\PC{0,10}".prop_map(|s| format!("{s:?}")),
    ];
    leaf.prop_recursive(2, 8, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(|v| format!("[{}]", v.join(", "))),
            prop::collection::vec(
                (prop::sample::select(&["theta", "small", "large", "p_altruism", "fixed_ratio", "nokey"][..]), inner),
                0..3
            )
            .prop_map(|kv| format!("{{ {} }}", kv.iter().map(|(k, v)| format!("{k} = {v}")).collect::<Vec<_>>().join(", "))),
        ]
    })
    .boxed()
}

/// `[section]` with some of its keys (sometimes a key it does not have).
fn section(name: &'static str, keys: &'static [&'static str]) -> impl Strategy<Value = String> {
    prop::collection::vec((prop_oneof![9 => prop::sample::select(keys), 1 => Just("not_a_key")], value()), 0..4).prop_map(move |kv| {
        let mut s = format!("[{name}]\n");
        for (k, v) in kv {
            s.push_str(&format!("{k} = {v}\n"));
        }
        s
    })
}

fn engine_doc() -> impl Strategy<Value = String> {
    let sections: Vec<BoxedStrategy<String>> = ENGINE_KEYS.iter().map(|(n, k)| section(n, k).boxed()).collect();
    let queue = prop::collection::vec((prop::sample::select(QUEUE_KEYS), value()), 0..4).prop_map(|kv| {
        let mut s = String::from("[[queue]]\n");
        for (k, v) in kv {
            s.push_str(&format!("{k} = {v}\n"));
        }
        s
    });
    let pipeline = (
        prop::sample::select(&["p1", "composed", "mine"][..]),
        prop::collection::vec((prop::sample::select(PIPELINE_KEYS), value()), 0..4),
    )
        .prop_map(|(name, kv)| {
            let mut s = format!("[pipeline.{name}]\n");
            for (k, v) in kv {
                s.push_str(&format!("{k} = {v}\n"));
            }
            s
        });
    (
        prop::sample::subsequence(sections, 0..=ENGINE_KEYS.len()).prop_flat_map(|v| v),
        prop::collection::vec(queue, 0..3),
        prop::collection::vec(pipeline, 0..2),
    )
        .prop_map(|(secs, queues, pipelines)| [secs, queues, pipelines].concat().join(""))
}

fn sidecar_doc() -> impl Strategy<Value = String> {
    let sections: Vec<BoxedStrategy<String>> = SIDECAR_KEYS.iter().map(|(n, k)| section(n, k).boxed()).collect();
    prop::sample::subsequence(sections, 0..=SIDECAR_KEYS.len()).prop_flat_map(|v| v).prop_map(|v| v.join(""))
}

/// The error says what is wrong: a key under a real section and its value,
/// or the TOML syntax/shape error with its position.
fn assert_named(e: &ConfigError, sections: &[&str], doc: &str) {
    let msg = e.to_string();
    if e.key.is_empty() {
        assert!(msg.contains("TOML parse error at line") && msg.contains("column"), "no key and no position: {msg}\n--- doc:\n{doc}");
    } else {
        assert!(msg.contains(&format!("key `{}` has value `{}`", e.key, e.value)), "{msg}");
        assert!(sections.iter().any(|s| e.key.starts_with(s)), "key `{}` is under no section: {msg}\n--- doc:\n{doc}", e.key);
        assert!(!e.reason.is_empty(), "{msg}");
    }
}

/// Parse, and carry what parses as far as the RM would: build an engine
/// (every plugin) and apply the config in place to a running engine.
fn check_engine_text(doc: &str) {
    match Config::parse(doc) {
        Err(e) => assert_named(&e, ENGINE_SECTIONS, doc),
        Ok(cfg) => {
            match Engine::new(cfg.clone(), vec!["memory-mb".into(), "vcores".into()]) {
                Ok(_) => {}
                Err(e) => assert_named(&e, ENGINE_SECTIONS, doc),
            }
            let mut running = Engine::with_config(Config::default()).unwrap();
            if let Err(e) = running.reconfigure(cfg) {
                assert_named(&e, ENGINE_SECTIONS, doc);
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: CASES_KEY_SET_DOCS, failure_persistence: None, ..ProptestConfig::default() })]
    #[test]
    fn documents_of_real_keys_and_random_values(doc in engine_doc()) {
        check_engine_text(&doc);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: CASES_GARBAGE, failure_persistence: None, ..ProptestConfig::default() })]
    #[test]
    fn garbage_text(doc in prop_oneof!["\\PC{0,200}", ".{0,200}", "[\\[\\]a-z_=.\" \n0-9{},]{0,200}"]) {
        check_engine_text(&doc);
        if let Err(e) = SidecarConfig::parse(&doc) {
            assert_named(&e, SIDECAR_SECTIONS, &doc);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: CASES_SIDECAR_DOCS, failure_persistence: None, ..ProptestConfig::default() })]
    #[test]
    fn sidecar_documents_of_real_keys_and_random_values(doc in sidecar_doc()) {
        if let Err(e) = SidecarConfig::parse(&doc) {
            assert_named(&e, SIDECAR_SECTIONS, &doc);
        }
    }
}

/// Every prefix (at a char boundary) of `text`: how many were tried.
fn every_truncation(text: &str, check: impl Fn(&str)) -> usize {
    let cuts: Vec<usize> = (0..text.len()).filter(|i| text.is_char_boundary(*i)).collect();
    for &i in &cuts {
        check(&text[..i]);
    }
    cuts.len()
}

#[test]
fn every_truncation_of_the_shipped_configs() {
    let engine_files = [
        ("hadoop-conf/shepherd.toml", include_str!("../hadoop-conf/shepherd.toml")),
        ("hadoop-conf/shepherd-dress.toml", include_str!("../hadoop-conf/shepherd-dress.toml")),
        ("hadoop-conf/shepherd-dress-reserve.toml", include_str!("../hadoop-conf/shepherd-dress-reserve.toml")),
        ("examples/configs/slearn.toml", include_str!("../examples/configs/slearn.toml")),
        ("examples/configs/two-queues.toml", include_str!("../examples/configs/two-queues.toml")),
    ];
    let mut total = 0;
    for (name, text) in engine_files {
        assert!(Config::parse(text).is_ok(), "{name} parses whole");
        let n = every_truncation(text, check_engine_text);
        println!("config truncations: {name}: {n}");
        total += n;
    }
    let sidecar = include_str!("../hadoop-conf/shepherd-sidecar.toml");
    let n = every_truncation(sidecar, |t| {
        if let Err(e) = SidecarConfig::parse(t) {
            assert_named(&e, SIDECAR_SECTIONS, t);
        }
    });
    println!("config truncations: hadoop-conf/shepherd-sidecar.toml: {n}");
    println!("config truncations: total {}", total + n);
}

/// Every config shipped under examples/configs parses and builds an engine
/// (what `shepherd check-config` checks), so a comparison that names one
/// (`compare --config`, `compare-yarn.sh --schedulers shepherd:NAME=FILE`)
/// cannot fail on it at start.
#[test]
fn every_example_config_builds_an_engine() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/configs");
    let mut seen = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().and_then(|e| e.to_str()) != Some("toml") {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        let config = Config::parse(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        Engine::with_config(config).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        seen += 1;
    }
    assert!(seen >= 4, "expected the shipped configs in {}", dir.display());
}
