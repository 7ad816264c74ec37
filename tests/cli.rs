//! The `shepherd` CLI (clap): help for every flag, unknown or misspelled
//! flags are errors with a suggestion, bad configs name key and value.

use std::process::Command;

fn shepherd(args: &[&str]) -> (i32, String, String) {
    let o = Command::new(env!("CARGO_BIN_EXE_shepherd")).args(args).output().unwrap();
    (o.status.code().unwrap_or(-1), String::from_utf8_lossy(&o.stdout).into(), String::from_utf8_lossy(&o.stderr).into())
}

fn temp_file(name: &str, text: &str) -> String {
    // Under target/tmp (Cargo's CARGO_TARGET_TMPDIR), not /tmp: every run
    // leaves its files there, and `cargo clean` removes them.
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("shepherd-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p.display().to_string()
}

#[test]
fn misspelled_flags_are_errors_with_a_suggestion() {
    let (code, _, err) = shepherd(&["simulate", "--generate", "hibench", "--polcy", "drf"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("unexpected argument '--polcy'") && err.contains("'--policy'"), "{err}");
    let (code, _, err) = shepherd(&["yarn-report", "/tmp/x", "--require-sucess"]);
    assert_eq!(code, 2);
    assert!(err.contains("--require-success"), "{err}");
    let (code, _, err) = shepherd(&["simulat"]);
    assert_eq!(code, 2);
    assert!(err.contains("simulate"), "{err}");
    let (code, _, err) = shepherd(&["sidecar"]);
    assert_eq!(code, 2);
    assert!(err.contains("--config"), "{err}");
}

/// A negative round interval is an error naming the flag and the value,
/// not a silent "off".
#[test]
fn a_negative_round_interval_is_an_error() {
    let (code, _, err) = shepherd(&["simulate", "--generate", "hibench", "--round-ms=-5", "--no-progress"]);
    assert_ne!(code, 0, "{err}");
    assert!(err.contains("--round-ms -5"), "{err}");
}

#[test]
fn help_explains_every_flag() {
    let (code, out, _) = shepherd(&["compare", "--help"]);
    assert_eq!(code, 0);
    for flag in
        ["--trace", "--generate", "--seed", "--policies", "--baseline", "--seeds", "--heartbeat-ms", "--queue-by-category", "--config"]
    {
        let line = out.lines().find(|l| l.trim_start().starts_with(flag)).unwrap_or_else(|| panic!("{flag} missing:\n{out}"));
        assert!(line.trim().len() > flag.len() + 8, "{flag} has no explanation: {line}");
    }
    let (code, out, _) = shepherd(&["sidecar", "--help"]);
    assert_eq!(code, 0);
    assert!(out.contains("--config") && out.contains("--check") && out.contains("--log"), "{out}");
}

#[test]
fn check_config_prints_the_summary_or_names_key_and_value() {
    let good = temp_file("good.toml", "[scheduler]\npolicy = \"fifo\"\n");
    let (code, out, _) = shepherd(&["check-config", &good]);
    assert_eq!(code, 0);
    assert!(out.contains("policy: fifo") && out.contains("queue root.default"), "{out}");
    let bad = temp_file("bad.toml", "[scheduler]\npolicy = \"lottery\"\n");
    let (code, _, err) = shepherd(&["check-config", &bad]);
    assert_eq!(code, 1);
    assert!(err.contains("scheduler.policy") && err.contains("lottery"), "{err}");
}

#[test]
fn sidecar_config_errors_name_key_and_value() {
    let bad = temp_file("sidecar-bad.toml", "[rm]\naddresses = [\"ftp://rm:21\"]\n");
    let (code, _, err) = shepherd(&["sidecar", "--config", &bad]);
    assert_eq!(code, 1);
    assert!(err.contains("rm.addresses[0]") && err.contains("ftp://rm:21") && err.contains("invalid sidecar config"), "{err}");
    let typo = temp_file("sidecar-typo.toml", "[rm]\npoll_intervall_ms = 100\n");
    let (_, _, err) = shepherd(&["sidecar", "--config", &typo]);
    assert!(err.contains("poll_intervall_ms"), "{err}");
    let missing_secret =
        temp_file("sidecar-secret.toml", "[control]\naddress = \"127.0.0.1:9471\"\nsecret_file = \"/nonexistent/secret\"\n");
    let (code, _, err) = shepherd(&["sidecar", "--config", &missing_secret]);
    assert_eq!(code, 1);
    assert!(err.contains("control.secret_file") && err.contains("/nonexistent/secret"), "{err}");
    let shipped = format!("{}/hadoop-conf/shepherd-sidecar.toml", env!("CARGO_MANIFEST_DIR"));
    let (code, out, err) = shepherd(&["sidecar", "--config", &shipped, "--check"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("sidecar config OK"), "{out}");
}
