//! `shepherd calibrate` on a recorded harness output with a scheduler run
//! with rounds between heartbeats (`tests/fixtures/yarn-run-rounds/`: one
//! run each of `shepherd:composed` and `shepherd:composed@async=20` on
//! `examples/traces/yarn-burst.json` with 3 s NodeManager heartbeats,
//! 2026-12-01, and of `shepherd:composed@async-only=20`, heartbeats that
//! only report, 2026-12-02; `samples.jsonl` thinned to every 25th poll).

use std::path::{Path, PathBuf};
use std::process::Command;

const FIXTURE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/yarn-run-rounds");
const TRACE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/traces/yarn-burst.json");

fn calibrate(out: &Path, write: &Path) -> String {
    let o = Command::new(env!("CARGO_BIN_EXE_shepherd"))
        .args(["calibrate", out.to_str().unwrap(), "--trace", TRACE, "--write", write.to_str().unwrap()])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&o.stdout).to_string();
    assert!(o.status.success(), "{stdout}\n{}", String::from_utf8_lossy(&o.stderr));
    stdout
}

fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("shepherd-calibrate-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let target = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_dir(&e.path(), &target);
        } else {
            std::fs::copy(e.path(), target).unwrap();
        }
    }
}

/// The simulated mean JCT of all jobs in `label`'s row, and its counterpart.
fn row(report: &str, label: &str) -> (String, f64) {
    let line = report.lines().find(|l| l.split_whitespace().next() == Some(label)).unwrap_or_else(|| panic!("no row {label}:\n{report}"));
    let t: Vec<&str> = line.split_whitespace().collect();
    // label counterpart runs jobs p50% p90% real / sim real / sim
    let slash = t.iter().position(|s| *s == "/").unwrap();
    (t[1].to_string(), t[slash + 1].parse().unwrap())
}

/// A run with rounds is simulated with the engine's rounds at its interval
/// (counterpart `composed@20ms`; `composed@20ms-rounds-only` where its
/// heartbeats only reported), not left out; its simulation differs from
/// the heartbeat-only run's; and neither run's activity enters the fit
/// (the model fitted without them is the same).
#[test]
fn runs_with_rounds_are_simulated_with_rounds_and_left_out_of_the_fit() {
    let dir = scratch("both");
    let report = calibrate(Path::new(FIXTURE), &dir.join("cal.json"));
    assert!(!report.contains("not simulated"), "{report}");
    let (plain, plain_sim) = row(&report, "shepherd-composed");
    let (rounds, rounds_sim) = row(&report, "shepherd-composed-async20");
    assert_eq!(plain, "composed");
    assert_eq!(rounds, "composed@20ms");
    assert!(plain_sim > 0.0 && rounds_sim > 0.0);
    assert_ne!(plain_sim, rounds_sim, "the rounds changed nothing in the simulation:\n{report}");
    let (rounds_only, rounds_only_sim) = row(&report, "shepherd-composed-asynconly20");
    assert_eq!(rounds_only, "composed@20ms-rounds-only");
    assert!(rounds_only_sim > 0.0);

    let only = scratch("plain");
    copy_dir(&Path::new(FIXTURE).join("shepherd-composed"), &only.join("out").join("shepherd-composed"));
    let alone = calibrate(&only.join("out"), &only.join("cal.json"));
    assert_eq!(row(&alone, "shepherd-composed"), (plain, plain_sim), "{alone}");
    // The same model, but for the line that names the directory it came from.
    let fitted = |d: &Path| {
        let mut v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(d.join("cal.json")).unwrap()).unwrap();
        v.as_object_mut().unwrap().remove("source");
        v
    };
    assert_eq!(fitted(&dir), fitted(&only));
    let _ = std::fs::remove_dir_all(dir);
    let _ = std::fs::remove_dir_all(only);
}
