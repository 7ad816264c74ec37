//! `shepherd calibrate`: fit the simulator's cluster model to real harness
//! runs and check it (`shepherd::harness::calibrate`), or, with
//! `--cluster-model sls`, check the simulator's SLS model without fitting.

use clap::Args;
use std::path::PathBuf;

/// `calibrate --cluster-model sls`: check against the simulator's SLS model, no fitting.
#[derive(Args)]
pub struct CalibrateSls {
    /// `sls`: no fitting; simulate the trace (durations as given) with the simulator's SLS model for every
    /// scheduler of OUT (e.g. runs in Hadoop's SLS), counterparts from each run's work/shepherd.toml or
    /// work/counterpart.toml, and print the same per-job JCT errors and rankings.
    #[arg(long, value_name = "MODEL", value_parser = ["sls"])]
    pub cluster_model: Option<String>,
    /// With --cluster-model sls: the AM simulators' heartbeat, ms (default 1000).
    #[arg(long, value_name = "MS", requires = "cluster_model")]
    am_heartbeat_ms: Option<i64>,
    /// With --cluster-model sls: nodes (overrides jobs.json's and the trace's cluster).
    #[arg(long, requires = "cluster_model")]
    nodes: Option<u32>,
    /// With --cluster-model sls: memory per node, MB.
    #[arg(long, requires = "cluster_model")]
    node_memory_mb: Option<i64>,
    /// With --cluster-model sls: vcores per node.
    #[arg(long, requires = "cluster_model")]
    node_vcores: Option<i64>,
}

pub fn calibrate(
    out: &std::path::Path,
    trace: &std::path::Path,
    use_file: Option<PathBuf>,
    write: Option<PathBuf>,
    also: &[String],
    seed: u64,
    // The host model's three options, as `--host-model`, `--host-speed`
    // and `--background-weight` give them.
    (host_model, host_speed, background_weight): (&str, Option<f64>, String),
) -> Result<(), String> {
    use shepherd::harness::calibrate;
    let background_weight = match background_weight.as_str() {
        "fit" => None,
        w => Some(w.parse::<f64>().map_err(|_| format!("--background-weight {w}: expected a number ≥ 0 or `fit`"))?),
    };
    let host_model = shepherd::sim::calibration::HostModel::parse(host_model)?;
    let trace = shepherd::workload::load(trace)?;
    let mut more = Vec::new();
    for a in also {
        let (dir, t) = a.split_once('=').ok_or_else(|| format!("--also {a}: expected DIR=TRACE"))?;
        more.push((PathBuf::from(dir), shepherd::workload::load(std::path::Path::new(t))?));
    }
    let mut sources: Vec<(&std::path::Path, &shepherd::workload::Trace)> = vec![(out, &trace)];
    sources.extend(more.iter().map(|(d, t)| (d.as_path(), t)));
    let (fitted, work) = calibrate::fit(&sources, host_model, host_speed, background_weight)?;
    let cal = match use_file {
        Some(p) => shepherd::sim::calibration::Calibration::load(&p)?,
        None => {
            let path = write.unwrap_or_else(|| calibrate::default_output(out));
            let text = serde_json::to_string_pretty(&fitted).map_err(|e| e.to_string())? + "\n";
            std::fs::write(&path, text).map_err(|e| format!("{}: {e}", path.display()))?;
            println!("fitted: {}\nwrote {}", fitted.source, path.display());
            fitted
        }
    };
    let m = |d: &shepherd::sim::calibration::Dist| d.median() / 1000.0;
    println!(
        "model: AM {} MB / {} vcores; medians (s): AM ask {:.2}, AM launch {:.2}, AM start-up {:.2}, task launch {:.2}, task overhead {:.2}, AM exit {:.2}; heartbeat phases {:?}",
        cal.am_memory_mb, cal.am_vcores, m(&cal.am_ask_ms), m(&cal.am_launch_ms), m(&cal.am_startup_ms),
        m(&cal.task_launch_ms), m(&cal.task_overhead_ms), m(&cal.am_exit_ms), cal.heartbeat_phase.0.iter().map(|p| (p * 100.0).round() / 100.0).collect::<Vec<_>>()
    );
    match cal.shared_host {
        Some(h) if h.model.is_snapshot() => println!(
            "shared host: start-up times (idle-host medians above) slow down by max(1, running containers / {})",
            h.containers_at_full_speed
        ),
        Some(h) => println!(
            "shared host: start-ups in progress share the CPU, each at min(1, {} / (start-ups + {} × other running containers)), re-timed at every change",
            h.containers_at_full_speed, h.background_weight
        ),
        None => println!("shared host: none (start-up times independent of load)"),
    }
    let report = calibrate::check(out, &trace, &cal, &work, seed)?;
    print!("{}", report.text());
    Ok(())
}

/// `calibrate --cluster-model sls`: every scheduler of `out` against the simulator's SLS model.
pub fn calibrate_sls(out: &std::path::Path, trace: &std::path::Path, seed: u64, a: &CalibrateSls) -> Result<(), String> {
    use shepherd::harness::calibrate;
    let trace = shepherd::workload::load(trace)?;
    let model = shepherd::sim::sls::SlsModel { am_heartbeat_ms: a.am_heartbeat_ms.unwrap_or(1000) };
    let cluster = calibrate::ClusterFlags { nodes: a.nodes, memory_mb: a.node_memory_mb, vcores: a.node_vcores };
    println!(
        "model: SLS (hadoop-sls 3.4 mechanics): AM heartbeat {} ms, NM heartbeat from jobs.json (default 1000 ms), AM container 1024 MB / 1 vcore unless the trace names one, trace durations as given",
        model.am_heartbeat_ms
    );
    let report = calibrate::check_sls(out, &trace, model, cluster, seed)?;
    print!("{}", report.text());
    Ok(())
}
