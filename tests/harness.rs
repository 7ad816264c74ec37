//! `shepherd yarn-report` on the recorded fixture `tests/fixtures/yarn-run/`:
//! two labels (`shepherd-dress`, `capacity`) × two runs × three jobs, polls
//! every 10 s. Containers are 1024 MB / 1 vcore on a 8192 MB / 16 vcore
//! cluster, so a user's dominant share is (containers ÷ 8) and the expected
//! numbers below are worked out by hand from the files.

use shepherd::harness::{self, derive, input, repeats::Spread};
use std::path::{Path, PathBuf};
use std::process::Command;

const FIXTURE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/yarn-run");

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-9
}

macro_rules! assert_close {
    ($a:expr, $b:expr) => {{
        let (a, b) = ($a as f64, $b as f64);
        assert!(close(a, b), "{} = {a}, expected {b}", stringify!($a));
    }};
}

fn run(label: &str, k: u32) -> derive::RunResult {
    let dir = Path::new(FIXTURE).join(label).join(format!("run-{k}"));
    derive::derive(&input::read_run(&dir, label, k).unwrap()).unwrap()
}

/// (wait, AM wait, JCT) of each job in seconds, in jobs.json order.
fn per_job(r: &derive::RunResult) -> Vec<(i64, i64, i64)> {
    r.jobs
        .iter()
        .map(|j| {
            let rec = j.record.as_ref().unwrap();
            (rec.wait_ms() / 1000, j.am_wait_ms().unwrap() / 1000, rec.jct_ms() / 1000)
        })
        .collect()
}

/// A scratch copy of the fixture.
fn scratch(name: &str) -> PathBuf {
    let dst = std::env::temp_dir().join(format!("shepherd-harness-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dst);
    copy_dir(Path::new(FIXTURE), &dst);
    dst
}

fn copy_dir(src: &Path, dst: &Path) {
    std::fs::create_dir_all(dst).unwrap();
    for e in std::fs::read_dir(src).unwrap() {
        let e = e.unwrap();
        if e.path().is_dir() {
            copy_dir(&e.path(), &dst.join(e.file_name()));
        } else {
            std::fs::copy(e.path(), dst.join(e.file_name())).unwrap();
        }
    }
}

fn edit(path: &Path, from: &str, to: &str) {
    let s = std::fs::read_to_string(path).unwrap();
    assert!(s.contains(from), "{} has no `{from}`", path.display());
    std::fs::write(path, s.replacen(from, to, 1)).unwrap();
}

fn shepherd(args: &[&str]) -> (i32, String, String) {
    let o = Command::new(env!("CARGO_BIN_EXE_shepherd")).args(args).output().unwrap();
    (o.status.code().unwrap_or(-1), String::from_utf8_lossy(&o.stdout).into_owned(), String::from_utf8_lossy(&o.stderr).into_owned())
}

#[test]
fn waits_jct_makespan_utilization_of_one_run() {
    // shepherd-dress run-1: jobs submitted at 0, 10, 20 s; first poll with
    // ≥ 2 containers at 10, 20, 40 s; AM launched at 1, 12, 21 s; finished at 40, 90, 60 s.
    let r = run("shepherd-dress", 1);
    assert_eq!(per_job(&r), vec![(10, 1, 40), (10, 2, 80), (20, 1, 40)]);
    let m = &r.metrics;
    assert_eq!(m.origin_epoch_ms, 1_700_000_000_000);
    assert_eq!(m.all.base.makespan_ms, 90_000);
    assert_close!(m.all.base.jct_ms.mean, 160_000.0 / 3.0);
    assert_close!(m.all.base.jct_ms.p50, 40_000.0);
    assert_close!(m.all.base.jct_ms.p95, 80_000.0);
    assert_close!(m.all.base.wait_ms.mean, 40_000.0 / 3.0);
    assert_close!(m.all.base.wait_ms.p95, 20_000.0);
    assert_close!(m.all.am_wait_ms.mean, 4_000.0 / 3.0);
    // small = job-0001 (0 → 40 s) and job-0003 (20 → 60 s).
    assert_eq!(m.categories["small"].base.makespan_ms, 60_000);
    assert_eq!(m.categories["large"].base.makespan_ms, 80_000);
    // Allocated containers per 10 s interval: 1 4 6 7 6 7 6 6 2 = 45 of 8 over 90 s.
    assert_close!(m.utilization.alloc_memory, 45.0 * 10.0 / (8.0 * 90.0));
    assert_close!(m.utilization.alloc_vcores, 45.0 * 10.0 / (16.0 * 90.0));
    assert!(m.wait_from_finish.is_empty());
}

#[test]
fn measured_use_reservations_and_preemptions_when_the_run_recorded_them() {
    // Without measured use in the samples (older harness output, or
    // --utilization off) there is no used share and no preemption count.
    let r = run("shepherd-dress", 1);
    assert_eq!(r.metrics.utilization.used_memory, None);
    assert_eq!(r.metrics.utilization.reserved_memory, None);
    assert_eq!(r.metrics.preempted_containers, None);

    // Measured use at half the allocated memory and a quarter of the
    // allocated vcores in every poll: the used shares are those fractions of
    // the allocated shares above; preemptions 1 + 0 + 2 over the three jobs.
    let out = scratch("used");
    let dir = out.join("shepherd-dress").join("run-1");
    let samples = std::fs::read_to_string(dir.join("samples.jsonl")).unwrap();
    let mut with_use = String::new();
    for line in samples.lines() {
        let mut v: serde_json::Value = serde_json::from_str(line).unwrap();
        let c = v["cluster"].as_object_mut().unwrap();
        let (mb, vc) = (c["allocated_mb"].as_f64().unwrap(), c["allocated_vcores"].as_f64().unwrap());
        c.insert("used_mb".into(), (mb / 2.0).into());
        c.insert("used_vcores".into(), (vc / 4.0).into());
        // Node reservations holding a quarter of the allocated memory (whole MiB).
        c.insert("reserved_mb".into(), ((mb / 4.0) as i64).into());
        with_use.push_str(&format!("{v}\n"));
    }
    std::fs::write(dir.join("samples.jsonl"), with_use).unwrap();
    let jobs = dir.join("jobs.json");
    for (id, n) in [("job-0001", 1), ("job-0002", 0), ("job-0003", 2)] {
        edit(&jobs, &format!("\"id\": \"{id}\","), &format!("\"id\": \"{id}\", \"preempted_containers\": {n},"));
    }
    let r = derive::derive(&input::read_run(&dir, "shepherd-dress", 1).unwrap()).unwrap();
    let u = r.metrics.utilization;
    assert_close!(u.used_memory.unwrap(), 45.0 * 10.0 / (8.0 * 90.0) / 2.0);
    assert_close!(u.used_vcores.unwrap(), 45.0 * 10.0 / (16.0 * 90.0) / 4.0);
    assert_close!(u.reserved_memory.unwrap(), 45.0 * 10.0 / (8.0 * 90.0) / 4.0);
    assert_eq!(r.metrics.preempted_containers, Some(3));
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn wait_falls_back_to_finish_when_no_poll_saw_a_task() {
    // shepherd-dress run-2: job-0003 runs 20 → 35 s; the only poll that sees
    // it (30 s) shows its AM alone.
    let r = run("shepherd-dress", 2);
    assert_eq!(per_job(&r), vec![(10, 1, 40), (10, 2, 90), (15, 2, 15)]);
    assert_eq!(r.metrics.wait_from_finish, vec!["job-0003".to_string()]);
    assert_eq!(r.jobs[2].wait_from, Some(derive::WaitFrom::Finish));
    assert_eq!(r.metrics.all.base.makespan_ms, 100_000);
    assert_close!(r.metrics.utilization.alloc_memory, 46.0 * 10.0 / (8.0 * 100.0));
}

#[test]
fn jain_across_users_per_window() {
    // shepherd-dress run-1, window [0, 60 s): alice (jobs 1 and 3) is present
    // 60 s and holds 1 3 3 4 2 2 containers per 10 s → mean share 0.3125,
    // x = 0.3125 ÷ ½; bob is present 50 s (from 10 s) holding 1 3 3 4 5 →
    // 0.4, x = 0.8. J = (0.625 + 0.8)² / (2 (0.625² + 0.8²)) = 3249/3298.
    // Window [60, 90 s): bob alone → 1.
    let r = run("shepherd-dress", 1);
    assert_eq!(r.fairness_windows.len(), 2);
    assert_eq!(r.fairness_windows[0].0, 0);
    assert_close!(r.fairness_windows[0].1, 3249.0 / 3298.0);
    assert_eq!(r.fairness_windows[1], (60_000, 1.0));
    let f = r.metrics.fairness;
    assert_eq!(f.windows, 2);
    assert_close!(f.mean, (3249.0 / 3298.0 + 1.0) / 2.0);
    assert_close!(f.min, 3249.0 / 3298.0);
    assert_close!(f.max, 1.0);

    // capacity run-2: window 0: alice 1 3 3 4 4 3 over 60 s → x = 0.75; bob
    // 1 1 1 1 3 over 50 s → x = 0.35; J = 1.1² / (2 (0.75² + 0.35²)) = 121/137.
    // Window 1: alice present 60 → 70 s only, 3 containers → x = 0.75; bob
    // 3 5 5 5 5 2 over 60 s → x = 25/24; J = 1849/1898.
    let r = run("capacity", 2);
    let j: Vec<f64> = r.fairness_windows.iter().map(|w| w.1).collect();
    assert_eq!(j.len(), 2);
    assert_close!(j[0], 121.0 / 137.0);
    assert_close!(j[1], 1849.0 / 1898.0);
    // capacity run-1: 961/977 and 121/122.
    let r = run("capacity", 1);
    assert_close!(r.fairness_windows[0].1, 961.0 / 977.0);
    assert_close!(r.fairness_windows[1].1, 121.0 / 122.0);
    assert_close!(r.metrics.utilization.alloc_memory, 47.0 * 10.0 / (8.0 * 110.0));
}

fn spread(s: Option<&Spread>) -> (f64, f64, f64) {
    let s = s.expect("metric present");
    (s.median, s.min, s.max)
}

#[test]
fn repeats_and_ratio_direction() {
    let rep = harness::analyze(Path::new(FIXTURE), None).unwrap();
    // Default baseline: the first label starting with "shepherd", listed first.
    assert_eq!(rep.baseline, "shepherd-dress");
    assert_eq!(rep.labels.iter().map(|l| l.label.as_str()).collect::<Vec<_>>(), vec!["shepherd-dress", "capacity"]);
    let sh = &rep.labels[0].categories["all"];
    let (m, lo, hi) = spread(sh.get("jct_mean_s"));
    assert_close!(lo, 145.0 / 3.0);
    assert_close!(hi, 160.0 / 3.0);
    assert_close!(m, (145.0 / 3.0 + 160.0 / 3.0) / 2.0);
    assert_eq!(spread(sh.get("makespan_s")), (95.0, 90.0, 100.0));
    let (m, _, _) = spread(rep.labels[1].categories["all"].get("wait_mean_s"));
    assert_close!(m, (30.0 + 80.0 / 3.0) / 2.0);

    // capacity ÷ shepherd-dress per run pair: JCT means 70 ÷ 160/3 and
    // (205/3) ÷ (145/3); capacity is slower, so > 1.
    assert_eq!(rep.ratios.len(), 1);
    let r = &rep.ratios[0];
    assert_eq!((r.label.as_str(), r.baseline.as_str(), r.pairs.clone()), ("capacity", "shepherd-dress", vec![1, 2]));
    let (m, lo, hi) = spread(r.categories["all"].get("jct_mean_s"));
    assert_close!(lo, 70.0 / (160.0 / 3.0));
    assert_close!(hi, 205.0 / 145.0);
    assert_close!(m, (lo + hi) / 2.0);
    assert!(m > 1.0);
    let (m, _, _) = spread(r.categories["all"].get("makespan_s"));
    assert_close!(m, (110.0 / 90.0 + 120.0 / 100.0) / 2.0);
    // Utilization: capacity ÷ shepherd < 1 here (capacity keeps less allocated).
    let (m, _, _) = spread(r.categories["all"].get("util_memory"));
    assert_close!(m, ((47.0 / 88.0) / 0.625 + (53.0 / 96.0) / 0.575) / 2.0);
    assert!(!r.categories["all"].contains_key("jobs"));

    // The other way round: shepherd-dress ÷ capacity < 1.
    let rep = harness::analyze(Path::new(FIXTURE), Some("capacity")).unwrap();
    assert_eq!(rep.labels[0].label, "capacity");
    let (m, _, _) = spread(rep.ratios[0].categories["all"].get("jct_mean_s"));
    assert_close!(m, ((160.0 / 3.0) / 70.0 + 145.0 / 205.0) / 2.0);
    assert!(m < 1.0);
    let err = harness::analyze(Path::new(FIXTURE), Some("fair")).err().unwrap();
    assert!(err.contains("--baseline fair") && err.contains("capacity, shepherd-dress"), "{err}");
}

#[test]
fn cli_prints_tables_and_writes_files() {
    let out = scratch("cli");
    let (code, stdout, stderr) = shepherd(&["yarn-report", out.to_str().unwrap()]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("ratio scheduler ÷ shepherd-dress (baseline)"), "{stdout}");
    assert!(stdout.contains("times: > 1 = shepherd-dress faster"), "{stdout}");
    assert!(stdout.contains("every job finished SUCCEEDED in every run"), "{stdout}");
    assert!(stdout.contains("shepherd-dress run-2: no poll saw a task container of job-0003"), "{stdout}");
    let row = stdout.lines().find(|l| l.starts_with("shepherd-dress  all")).expect("absolute row");
    assert!(row.contains("50.8 [48.3–53.3]") && row.contains("0.600 [0.575–0.625]"), "{row}");
    // AM wait P50: run-1's AMs waited 1, 2 and 1 s (P50 1), run-2's 1, 2
    // and 2 s (P50 2).
    assert!(stdout.contains("AM wait P50"), "{stdout}");
    assert!(row.contains("1.5 [1.0–2.0]"), "{row}");
    for f in ["summary.json", "summary.csv", "jct-cdf.svg", "wait-cdf.svg", "utilization.svg"] {
        assert!(out.join(f).is_file(), "{f} missing");
    }
    for run in ["shepherd-dress/run-1", "shepherd-dress/run-2", "capacity/run-1", "capacity/run-2"] {
        for f in ["metrics.json", "jobs.csv", "fairness.csv"] {
            assert!(out.join(run).join(f).is_file(), "{run}/{f} missing");
        }
    }
    let m: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(out.join("capacity/run-1/metrics.json")).unwrap()).unwrap();
    assert_eq!(m["all"]["makespan_ms"], 110_000);
    assert_eq!(m["categories"]["small"]["wait_ms"]["p95"], 40_000.0);
    let csv = std::fs::read_to_string(out.join("summary.csv")).unwrap();
    assert!(csv.contains("absolute,capacity,,all,makespan_s,2,115.000000,110.000000,120.000000"), "{csv}");
    assert!(csv.contains("ratio,capacity,shepherd-dress,all,makespan_s,2,"), "{csv}");
    let jobs = std::fs::read_to_string(out.join("shepherd-dress/run-2/jobs.csv")).unwrap();
    assert!(jobs.lines().nth(3).unwrap().starts_with("job-0003,application_1700000200000_0003,"), "{jobs}");
    assert!(jobs.lines().nth(3).unwrap().contains(",15000,15000,finish,FINISHED,SUCCEEDED,"), "{jobs}");
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn require_success_fails_on_a_failed_job() {
    let out = scratch("failed");
    let o = out.to_str().unwrap();
    let jobs = out.join("capacity/run-2/jobs.json");
    edit(
        &jobs,
        r#""final_status": "SUCCEEDED", "error": null}
  ]"#,
        r#""final_status": "FAILED", "error": "Task failed task_1"}
  ]"#,
    );
    edit(&jobs, r#""state": "FINISHED", "final_status": "FAILED""#, r#""state": "FAILED", "final_status": "FAILED""#);
    // Without the flag: reported, left out of the numbers, exit 0.
    let (code, stdout, stderr) = shepherd(&["yarn-report", o]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("capacity run-2: job-0003 (application_1700000600000_0003, FAILED/FAILED: Task failed task_1)"), "{stdout}");
    let rep = harness::analyze(&out, None).unwrap();
    let cap2 = &rep.runs[1][1].metrics;
    assert_eq!((cap2.label.as_str(), cap2.run, cap2.succeeded), ("capacity", 2, 2));
    assert_eq!(cap2.categories["small"].base.jobs, 1);
    assert_eq!(cap2.all.base.makespan_ms, 120_000);
    // With it: non-zero, naming label, run and job.
    let (code, _, stderr) = shepherd(&["yarn-report", o, "--require-success"]);
    assert_ne!(code, 0);
    assert!(stderr.contains("capacity run-2: job-0003"), "{stderr}");
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn a_job_that_was_never_submitted_is_not_counted() {
    let out = scratch("unsubmitted");
    let jobs = out.join("shepherd-dress/run-1/jobs.json");
    edit(&jobs, r#""app_id": "application_1700000000000_0003""#, r#""app_id": null"#);
    edit(
        &jobs,
        r#""state": "FINISHED", "final_status": "SUCCEEDED", "error": null}
  ]"#,
        r#""state": "", "final_status": "", "error": "submission failed: queue full"}
  ]"#,
    );
    let rep = harness::analyze(&out, None).unwrap();
    let m = &rep.runs[0][0].metrics;
    assert_eq!(m.succeeded, 2);
    assert_eq!(m.not_succeeded[0].id, "job-0003");
    assert!(rep.failure_message().unwrap().contains("shepherd-dress run-1: job-0003"));
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn malformed_input_names_the_file() {
    let out = scratch("malformed");
    let o = out.to_str().unwrap();
    let samples = out.join("shepherd-dress/run-1/samples.jsonl");
    let text = std::fs::read_to_string(&samples).unwrap();
    let mut lines: Vec<&str> = text.lines().collect();
    lines[2] = r#"{"t_ms": 1700000020000, "cluster": {"allocated_mb": "lots"}}"#;
    std::fs::write(&samples, lines.join("\n")).unwrap();
    let (code, _, stderr) = shepherd(&["yarn-report", o]);
    assert_ne!(code, 0);
    assert!(stderr.contains(&format!("{} line 3: malformed sample", samples.display())), "{stderr}");

    std::fs::write(&samples, text).unwrap();
    let jobs = out.join("capacity/run-1/jobs.json");
    edit(&jobs, r#""jobs": ["#, r#""jobs": {"#);
    let err = harness::analyze(&out, None).err().unwrap();
    assert!(err.starts_with(&format!("{}: malformed jobs.json", jobs.display())), "{err}");

    std::fs::remove_file(&jobs).unwrap();
    let err = harness::analyze(&out, None).err().unwrap();
    assert!(err.starts_with(&format!("cannot read {}", jobs.display())), "{err}");

    let empty = std::env::temp_dir().join(format!("shepherd-harness-empty-{}", std::process::id()));
    std::fs::create_dir_all(&empty).unwrap();
    let err = harness::analyze(&empty, None).err().unwrap();
    assert!(err.contains("no <label>/run-<k>/ directories"), "{err}");
    let _ = std::fs::remove_dir_all(&empty);
    let _ = std::fs::remove_dir_all(&out);
}
