//! `calibrate --cluster-model sls`: no fitting; every scheduler's runs (in
//! Hadoop's Scheduler Load Simulator) against the simulator's SLS model.

use super::counterpart::{counterpart, heartbeat_ms, rounds_of};
use super::report::{score, CheckReport};
use crate::harness::input::{discover, read_run};
use crate::sim::sls::SlsModel;
use crate::sim::{simulate, SimOptions};
use crate::workload::{ClusterSpec, Trace};
use std::path::Path;

/// The cluster flags of `calibrate --cluster-model sls`: each overrides
/// the cluster of `jobs.json` (else the trace's); all three stand in for a
/// cluster neither names.
#[derive(Debug, Clone, Copy, Default)]
pub struct ClusterFlags {
    pub nodes: Option<u32>,
    pub memory_mb: Option<i64>,
    pub vcores: Option<i64>,
}

impl ClusterFlags {
    fn resolve(&self, base: Option<ClusterSpec>) -> Result<ClusterSpec, String> {
        match (base, self.nodes, self.memory_mb, self.vcores) {
            (Some(c), n, m, v) => Ok(ClusterSpec {
                nodes: n.unwrap_or(c.nodes),
                memory_mb: m.unwrap_or(c.memory_mb),
                vcores: v.unwrap_or(c.vcores),
                rack_size: c.rack_size,
            }),
            (None, Some(nodes), Some(memory_mb), Some(vcores)) => Ok(ClusterSpec { nodes, memory_mb, vcores, rack_size: 40 }),
            (None, ..) => Err("no cluster size in jobs.json or the trace: pass --nodes, --node-memory-mb and --node-vcores".into()),
        }
    }
}

/// `calibrate --cluster-model sls`, no fitting: every scheduler of `out`
/// (runs in Hadoop's Scheduler Load Simulator, or any harness output)
/// simulated with the simulator's SLS model (`crate::sim::sls`) under its
/// counterpart, and compared per job as [`check`](super::check) does. The trace's task
/// durations are used as given: SLS runs each task for exactly that long.
pub fn check_sls(out: &Path, trace: &Trace, model: SlsModel, cluster: ClusterFlags, seed: u64) -> Result<CheckReport, String> {
    let mut rows = Vec::new();
    for (label, dirs) in discover(out)? {
        if rounds_of(&label).is_some() {
            return Err(format!("{label}: allocation rounds between heartbeats have no counterpart in the SLS model"));
        }
        let (policy, config) = counterpart(&label, &dirs[0].1)?;
        let first = read_run(&dirs[0].1, &label, dirs[0].0)?;
        let base = first
            .jobs
            .cluster
            .map(|c| ClusterSpec { nodes: c.nodes as u32, memory_mb: c.memory_mb, vcores: c.vcores, rack_size: 40 })
            .or_else(|| trace.cluster.clone());
        let cluster = cluster.resolve(base).map_err(|e| format!("{label}: {e}"))?;
        let opts = SimOptions { sls: Some(model), seed, heartbeat_ms: heartbeat_ms(&first.jobs), ..SimOptions::default() };
        let outcome = simulate(trace, &cluster, config, &opts)?;
        rows.push(score(label, policy, &dirs, &first.jobs, &outcome)?);
    }
    Ok(CheckReport { calibration: SlsModel::calibration(), rows })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sls_check_uses_the_runs_counterpart_and_the_trace_as_given() {
        use crate::workload::{Job, Stage, Task};
        let out = std::env::temp_dir().join(format!("shepherd-sls-check-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&out);
        for label in ["capacity", "fair"] {
            let run = out.join(label).join("run-1");
            std::fs::create_dir_all(run.join("work")).unwrap();
            let jobs = format!(
                r#"{{"scheduler": "{label}", "nm_heartbeat_ms": 1000, "jobs": [{{"id": "j", "app_id": "application_1_0001", "user": "u", "category": "small", "submit_ms": 5000, "finish_ms": 21000, "state": "FINISHED", "final_status": "SUCCEEDED"}}]}}"#
            );
            std::fs::write(run.join("jobs.json"), jobs).unwrap();
            std::fs::write(run.join("samples.jsonl"), "").unwrap();
        }
        std::fs::write(out.join("capacity/run-1/work/counterpart.toml"), "[scheduler]\npolicy = \"fifo\"\n").unwrap();
        let job = Job {
            id: "j".into(),
            submit_ms: 0,
            user: "u".into(),
            name: "j".into(),
            queue: "default".into(),
            category: Some("small".into()),
            gang: false,
            app_type: None,
            am: None,
            stages: vec![Stage {
                name: "map".into(),
                after: vec![],
                slowstart: None,
                memory_mb: 1024,
                vcores: 1,
                tasks: vec![Task { duration_ms: 10_000, used: None }],
            }],
        };
        let trace = Trace { cluster: None, am: None, jobs: vec![job] };
        let none = check_sls(&out, &trace, SlsModel::default(), ClusterFlags::default(), 1);
        assert!(none.is_err_and(|e| e.contains("--nodes")));
        let flags = ClusterFlags { nodes: Some(1), memory_mb: Some(4096), vcores: Some(4) };
        let report = check_sls(&out, &trace, SlsModel::default(), flags, 1).unwrap();
        let rows: Vec<(&str, &str, f64, f64)> =
            report.rows.iter().map(|r| (r.label.as_str(), r.counterpart.as_str(), r.error_p50, r.sim_mean_all)).collect();
        assert_eq!(rows, vec![("capacity", "fifo", 0.0, 16_000.0), ("fair", "drf", 0.0, 16_000.0)]);
        let _ = std::fs::remove_dir_all(&out);
    }
}
