//! `shepherd scale-sim`: the Megha scale simulator's flags (workload, cluster,
//! each architecture's parameters) and its report.

use clap::Args;
use shepherd::sim::experiment::peak_rss_kib;
use shepherd::workload::gen::{GenParams, KINDS};
use std::collections::HashMap;
use std::io::IsTerminal;
use std::path::PathBuf;
use std::time::Instant;

/// `scale-sim`: the workload, the cluster and each architecture's parameters.
#[derive(Args, Clone)]
pub struct ScaleSimArgs {
    /// Generate a workload of this kind (google, facebook, ...).
    #[arg(long, help_heading = "Workload", conflicts_with = "trace")]
    generate: Option<String>,
    /// Or read this trace file (Shepherd .json, SLS, SWIM).
    #[arg(long, help_heading = "Workload")]
    trace: Option<PathBuf>,
    /// Nodes (the generator's cluster size; with --trace, overrides the trace's).
    #[arg(long, help_heading = "Workload")]
    nodes: Option<u32>,
    /// Generator: number of jobs (scale it with the nodes to load the cluster).
    #[arg(long, help_heading = "Workload")]
    jobs: Option<usize>,
    /// Generator: offered load.
    #[arg(long, help_heading = "Workload")]
    load: Option<f64>,
    /// Seed of the generator and of the simulator's draws.
    #[arg(long, default_value_t = 1, help_heading = "Workload")]
    seed: u64,
    /// Memory per node (MB), overrides the workload's.
    #[arg(long, help_heading = "Workload")]
    node_memory_mb: Option<i64>,
    /// Vcores per node, overrides the workload's.
    #[arg(long, help_heading = "Workload")]
    node_vcores: Option<i64>,
    /// Architectures to run, comma-separated (ideal: a zero-cost scheduler with an exact view, the
    /// floor of the others: tasks wait for capacity only).
    #[arg(long, value_delimiter = ',', default_value = "megha,sparrow,central,ideal")]
    arch: Vec<String>,
    /// One-way network delay per message, µs (Sparrow's simulator default, kept by Megha §V-B).
    #[arg(long, default_value_t = 500)]
    net_delay_us: i64,
    /// Megha: Global Masters.
    #[arg(long, default_value_t = 10, help_heading = "Megha")]
    gms: usize,
    /// Megha: Local Masters.
    #[arg(long, default_value_t = 10, help_heading = "Megha")]
    lms: usize,
    /// Megha: period of every LM's state update to every GM, ms (§V: 10 s).
    #[arg(long, default_value_t = 10_000, help_heading = "Megha")]
    state_update_ms: i64,
    /// Megha: GM match operation, fixed µs.
    #[arg(long, default_value_t = 5.0, help_heading = "Megha")]
    gm_match_us: f64,
    /// Megha: GM match, µs per 64-node bit-vector word scanned.
    #[arg(long, default_value_t = 0.01, help_heading = "Megha")]
    gm_word_us: f64,
    /// Megha: GM reading one message, fixed µs.
    #[arg(long, default_value_t = 1.0, help_heading = "Megha")]
    gm_message_us: f64,
    /// Megha: GM reading an LM's state, µs per node of that LM.
    #[arg(long, default_value_t = 0.002, help_heading = "Megha")]
    gm_state_node_us: f64,
    /// Megha: LM validate-and-commit, µs.
    #[arg(long, default_value_t = 2.0, help_heading = "Megha")]
    lm_us: f64,
    /// Megha, beyond the paper: tasks of one stage a GM places in one match operation, one request per LM and one answer (1 = the paper's one task per match).
    #[arg(long, default_value_t = 1, help_heading = "Megha")]
    gm_batch: usize,
    /// Megha: with --gm-batch > 1, GM µs per task beyond the first of a batch (its launch request and its verdict in the LM's answer).
    #[arg(long, default_value_t = 1.0, help_heading = "Megha")]
    gm_batch_task_us: f64,
    /// Megha: fair-share preemption under contention (Algorithm 2), equal queue shares.
    #[arg(long, help_heading = "Megha")]
    fair_share: bool,
    /// Sparrow: schedulers (jobs round-robin).
    #[arg(long, default_value_t = 10, help_heading = "Sparrow")]
    schedulers: usize,
    /// Sparrow: probes per task (batch sampling d).
    #[arg(long, default_value_t = 2.0, help_heading = "Sparrow")]
    probe_ratio: f64,
    /// Sparrow: scheduler µs per probe sent and per get-task answered.
    #[arg(long, default_value_t = 1.0, help_heading = "Sparrow")]
    sparrow_message_us: f64,
    /// Central: node heartbeat interval, ms (YARN's default).
    #[arg(long, default_value_t = 1000, help_heading = "Central")]
    heartbeat_ms: i64,
    /// Central: scheduler µs per heartbeat (Shepherd's engine P50 at 10 000 pending asks, bench-heartbeat).
    #[arg(long, default_value_t = 40.0, help_heading = "Central")]
    central_hb_us: f64,
    /// Central: stop and report the scheduler as saturated once a heartbeat waited this long for it, s.
    #[arg(long, default_value_t = 600, help_heading = "Central")]
    central_max_queue_s: i64,
    /// Central: scheduling rounds between heartbeats, a round then this many ms of sleep (Shepherd's
    /// async-scheduling.interval-ms); 0 = heartbeats only.
    #[arg(long, default_value_t = 0, help_heading = "Central", value_name = "MS")]
    central_round_ms: i64,
    /// Central: nodes with room a round visits at most (async-scheduling.max-nodes; 0 = all).
    #[arg(long, default_value_t = 100, help_heading = "Central", value_name = "N")]
    central_round_nodes: usize,
    /// Central: scheduler µs per node a round visits (the heartbeat's pass).
    #[arg(long, default_value_t = 40.0, help_heading = "Central", value_name = "US")]
    central_round_pass_us: f64,
    /// Central: a node also heartbeats out of band when a container on it finishes, as YARN's
    /// NodeManagers do (the RM learns of the end, and schedules on the node, without waiting for
    /// the periodic heartbeat).
    #[arg(long, help_heading = "Central")]
    central_oob_heartbeats: bool,
    /// Central: serve the users' queues round-robin (FIFO within each), as Megha's GMs do; default
    /// one FIFO over every job.
    #[arg(long, help_heading = "Central")]
    central_queues_round_robin: bool,
    /// Central: heartbeats only report (the books learn of ends) and place nothing; only rounds
    /// allocate (async-scheduling.heartbeats-allocate = false); needs --central-round-ms > 0.
    #[arg(long, help_heading = "Central")]
    central_report_only_heartbeats: bool,
    /// Central: scheduler µs per report-only heartbeat (bench-heartbeat --report-only P50).
    #[arg(long, default_value_t = 7.0, help_heading = "Central", value_name = "US")]
    central_report_us: f64,
    /// Ideal: the order waiting tasks get room in: fifo (the central scheduler's), users-round-robin
    /// (Megha's GMs'), smallest-stage-first.
    #[arg(long, default_value = "fifo", help_heading = "Ideal")]
    ideal_order: String,
    /// Write the report (plus wall times and peak memory) as JSON here.
    #[arg(long)]
    json: Option<PathBuf>,
    /// Progress lines on stderr even when it is not a terminal.
    #[arg(long)]
    progress: bool,
}

pub fn scale_sim(a: &ScaleSimArgs) -> Result<(), String> {
    use shepherd::sim::scale::{self, Arch, CentralOptions, IdealOptions, MeghaOptions, QueueOrder, ScaleOptions, SparrowOptions};
    // Options first: a bad one is reported before minutes of generating.
    let archs = a.arch.iter().map(|s| Arch::parse(s)).collect::<Result<Vec<_>, _>>()?;
    let ideal_order = QueueOrder::parse(&a.ideal_order)?;
    if a.central_report_only_heartbeats && a.central_round_ms <= 0 {
        return Err("--central-report-only-heartbeats needs --central-round-ms > 0: without rounds nothing would allocate".into());
    }
    let started = Instant::now();
    let (trace, source, nodes) = match (&a.generate, &a.trace) {
        (Some(kind), None) => {
            let params = GenParams { seed: a.seed, jobs: a.jobs, nodes: a.nodes, load: a.load, ..GenParams::default() };
            (shepherd::workload::gen::generate(kind, &params)?, format!("{kind} (seed {})", a.seed), None)
        }
        (None, Some(path)) => (shepherd::workload::load(path)?, path.display().to_string(), a.nodes.map(|n| n as usize)),
        _ => return Err(format!("need --generate KIND ({}) or --trace FILE", KINDS.join(", "))),
    };
    let generated_s = started.elapsed().as_secs_f64();
    let capacity = match (a.node_memory_mb, a.node_vcores, trace.cluster.as_ref()) {
        (None, None, _) => None,
        (m, v, Some(c)) => Some(shepherd::model::Resources::new(m.unwrap_or(c.memory_mb), v.unwrap_or(c.vcores))),
        (Some(m), Some(v), None) => Some(shepherd::model::Resources::new(m, v)),
        _ => return Err("the trace has no cluster: give both --node-memory-mb and --node-vcores".into()),
    };
    let opts = ScaleOptions {
        archs,
        nodes,
        node_capacity: capacity,
        net_delay_us: a.net_delay_us,
        megha: MeghaOptions {
            gms: a.gms,
            lms: a.lms,
            state_update_ms: a.state_update_ms,
            gm_match_us: a.gm_match_us,
            gm_word_us: a.gm_word_us,
            gm_message_us: a.gm_message_us,
            gm_state_node_us: a.gm_state_node_us,
            lm_us: a.lm_us,
            gm_batch: a.gm_batch,
            gm_batch_task_us: a.gm_batch_task_us,
            fair_share: a.fair_share,
        },
        sparrow: SparrowOptions { schedulers: a.schedulers, probe_ratio: a.probe_ratio, message_us: a.sparrow_message_us },
        central: CentralOptions {
            heartbeat_ms: a.heartbeat_ms,
            heartbeat_us: a.central_hb_us,
            max_queue_s: a.central_max_queue_s,
            round_ms: a.central_round_ms,
            round_nodes: a.central_round_nodes,
            round_pass_us: a.central_round_pass_us,
            oob_heartbeats: a.central_oob_heartbeats,
            queues_round_robin: a.central_queues_round_robin,
            report_only_heartbeats: a.central_report_only_heartbeats,
            report_us: a.central_report_us,
        },
        ideal: IdealOptions { order: ideal_order },
        seed: a.seed,
        source,
        progress: a.progress || std::io::stderr().is_terminal(),
        keep_runs: false,
    };
    let (report, walls) = scale::run_timed(&trace, &opts)?;
    print!("{}", report.table());
    let per_arch: Vec<String> = report.runs.iter().zip(&walls).map(|(r, s)| format!("{} {s:.1} s", r.arch)).collect();
    println!(
        "\nsimulation wall time: {} (total {:.1} s; workload generated/loaded in {generated_s:.1} s)",
        per_arch.join(", "),
        walls.iter().sum::<f64>()
    );
    let peak_mib = peak_rss_kib().map(|k| k as f64 / 1024.0);
    match peak_mib {
        Some(m) => println!("peak memory (VmHWM): {m:.0} MiB"),
        None => println!("peak memory: unavailable (no /proc/self/status)"),
    }
    if let Some(path) = &a.json {
        let host = serde_json::json!({
            "wall_s": report.runs.iter().zip(&walls).map(|(r, s)| (r.arch.clone(), *s)).collect::<HashMap<_, _>>(),
            "generate_s": generated_s,
            "peak_rss_mib": peak_mib,
        });
        let json = serde_json::json!({ "report": report, "host": host });
        let text = serde_json::to_string_pretty(&json).map_err(|e| e.to_string())? + "\n";
        std::fs::write(path, text).map_err(|e| format!("{}: {e}", path.display()))?;
        println!("wrote {}", path.display());
    }
    Ok(())
}
