//! `shepherd` command-line tool (clap). Every subcommand's `--help` explains
//! its flags; an unknown or misspelled flag is an error with a suggestion.

use clap::{Args, Parser, Subcommand};
use shepherd::sim::experiment::{peak_rss_kib, Experiment, Source};
use shepherd::sim::SimOptions;
use shepherd::workload::gen::{GenParams, KINDS};
use shepherd::workload::ClusterSpec;
use std::collections::HashMap;
use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

#[derive(Parser)]
#[command(
    name = "shepherd",
    version,
    about = "Shepherd: YARN-compatible pluggable scheduler — config check, simulator, comparisons, benchmarks, sidecar"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Parse and validate a Shepherd config; print the effective policy and queues, or the offending key and value.
    CheckConfig {
        /// Shepherd TOML config (e.g. hadoop-conf/shepherd.toml).
        #[arg(required_unless_present = "plugins")]
        file: Option<PathBuf>,
        /// Print the plugin table (Markdown, from the plugin registry) instead, as docs/policies/pipelines.md shows it.
        #[arg(long)]
        plugins: bool,
    },
    /// Replay a trace (or a generated workload) through the engine.
    Simulate {
        #[command(flatten)]
        w: WorkloadArgs,
        /// Policy to run (default: the config's scheduler.policy).
        #[arg(long)]
        policy: Option<String>,
        /// Write metrics.json, jobs.csv, utilization.csv, fairness.csv and plots here.
        #[arg(long)]
        out: Option<PathBuf>,
    },
    /// Run several policies on the same workload and print factors of improvement.
    Compare {
        #[command(flatten)]
        w: WorkloadArgs,
        /// Policies to compare, comma-separated.
        #[arg(long, default_value = "fifo,capacity,drf,sjf")]
        policies: String,
        /// Policy the others are compared against.
        #[arg(long, default_value = "fifo")]
        baseline: String,
        /// Write comparison.json, factors.csv, speedups.csv, jct_cdf.svg and one directory per policy here.
        #[arg(long)]
        out: Option<PathBuf>,
        /// Repeat on the generator's workloads of seeds --seed .. --seed + N − 1 and print median [min, max] (needs --generate; no --trace, no --out).
        #[arg(long)]
        seeds: Option<u64>,
        /// Simulations run at once (each keeps one core busy; default: the host's cores).
        #[arg(long)]
        threads: Option<usize>,
    },
    /// Write a generated workload (--generate) or convert a trace (--trace) to a Shepherd trace file, or, for
    /// --out X.sls.json, to Hadoop SLS input: the jobs (SLS trace type) and X.nodes.json beside it (SLS -nodes).
    Generate {
        #[command(flatten)]
        w: WorkloadArgs,
        /// File to write: X.sls.json = Hadoop SLS jobs + X.nodes.json (map-only and map→reduce jobs only; needs a
        /// cluster, the trace's or --nodes), any other name = Shepherd JSON.
        #[arg(long)]
        out: PathBuf,
    },
    /// Simulator speed: events per second and peak memory (default workload: --generate facebook).
    BenchSim {
        #[command(flatten)]
        w: WorkloadArgs,
        /// Policy to run.
        #[arg(long, default_value = "drf")]
        policy: String,
    },
    /// Engine decision time per node heartbeat (P50/P90/P99/max, µs).
    BenchHeartbeat {
        #[command(flatten)]
        cluster: BusyClusterArgs,
        /// Heartbeats to time.
        #[arg(long, default_value_t = 20_000)]
        heartbeats: u32,
        /// Policy to run.
        #[arg(long, default_value = "drf")]
        policy: String,
        /// Shepherd TOML config for the engine (its scheduler.policy is replaced by --policy).
        #[arg(long)]
        config: Option<PathBuf>,
        /// The P99 target to print the verdict against, µs (an issue's bar:
        /// Carbyne's is 1 000 at 10 000 pending asks, 3 000 at 50 000).
        #[arg(long, default_value_t = 1000.0)]
        target_us: f64,
        /// Time heartbeats that only report the node's completions, without a pass (the shim's
        /// async-scheduling.heartbeats-allocate = false, rounds allocating); the node is refilled
        /// after each, untimed.
        #[arg(long)]
        report_only: bool,
    },
    /// Scheduling rounds between heartbeats with 1 and more proposers (scheduler.round_proposers,
    /// without round_min_work_per_proposer): wall time per round, containers per second of round
    /// time, conflicts.
    BenchRound {
        #[command(flatten)]
        cluster: BusyClusterArgs,
        /// Nodes whose containers finish before each round (the round refills them).
        #[arg(long, default_value_t = 100)]
        batch: u32,
        /// Containers that finish on each of those nodes, oldest first (0 = all of them).
        #[arg(long, default_value_t = 0)]
        per_node: u32,
        /// Build the candidates afresh on every node a serial round visits, as a heartbeat does (to measure what keeping them saves).
        #[arg(long)]
        fresh_candidates: bool,
        /// Rounds to time per setting.
        #[arg(long, default_value_t = 200)]
        rounds: u32,
        /// Policy to run.
        #[arg(long, default_value = "drf")]
        policy: String,
        /// Proposer counts to compare, comma-separated.
        #[arg(long, value_delimiter = ',', default_value = "1,2,4")]
        proposers: Vec<u32>,
    },
    /// Placement-constraint matching (Megha bit-vectors): compile, bit test and per-node scan times.
    BenchConstraints {
        /// Cluster sizes (NodeManagers), comma-separated.
        #[arg(long, value_delimiter = ',', default_value = "1000,10000,50000")]
        nodes: Vec<u32>,
        /// Live tagged containers.
        #[arg(long, default_value_t = 20_000)]
        containers: u32,
    },
    /// Megha's optimistic allocation: partitioned authorities vs one, proposer threads from stale views.
    BenchOptimistic {
        /// Cluster sizes (NodeManagers), comma-separated.
        #[arg(long, value_delimiter = ',', default_value = "10000,50000")]
        nodes: Vec<usize>,
        /// Nodes per partition (authority); the central baseline uses one partition.
        #[arg(long, default_value_t = 1000)]
        partition_size: usize,
        /// Proposer threads (Megha's GMs).
        #[arg(long, default_value_t = 4)]
        proposers: usize,
        /// Fraction of all slots to fill.
        #[arg(long, default_value_t = 0.5)]
        fill: f64,
    },
    /// Megha scale simulator: allocation latency (ask → container) of partitioned optimistic GMs/LMs, Sparrow-style
    /// sampling and a central heartbeat-driven scheduler on the same trace (discrete-event, deterministic).
    ScaleSim {
        #[command(flatten)]
        s: ScaleSimArgs,
    },
    /// Metrics, tables and plots of repeated runs on a real YARN cluster (the output of scripts/compare-yarn.sh).
    YarnReport {
        /// Harness output directory: OUT/<label>/run-<k>/{jobs.json,samples.jsonl}.
        out: PathBuf,
        /// Label the others are compared against (default: the first starting with `shepherd`).
        #[arg(long)]
        baseline: Option<String>,
        /// Exit non-zero if any job did not finish SUCCEEDED.
        #[arg(long)]
        require_success: bool,
    },
    /// Fit the simulator's cluster model (AM containers, launch, start-up, exit and task-overhead times,
    /// heartbeat phases) to real runs of scripts/compare-yarn.sh, then simulate the same trace for every
    /// scheduler of the run and print the per-job JCT error and whether the schedulers rank the same.
    Calibrate {
        /// Harness output directory (OUT/<label>/run-<k>/ with jobs.json; Shepherd runs also activity.json).
        out: PathBuf,
        /// The trace the harness ran.
        #[arg(long)]
        trace: PathBuf,
        /// Check with this calibration instead of fitting one from OUT.
        #[arg(long = "use")]
        use_calibration: Option<PathBuf>,
        /// Write the fitted calibration here (default OUT/calibration.json).
        #[arg(long)]
        write: Option<PathBuf>,
        /// Fit from these harness runs too (DIR=TRACE, repeatable): one model for several workloads.
        #[arg(long = "also", value_name = "DIR=TRACE")]
        also: Vec<String>,
        /// Seed of the simulator's draws.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// How a shared host slows start-ups down: `snapshot` (by the containers running when one begins)
        /// or `processor-sharing` (start-ups in progress share the CPU, re-timed at every change).
        #[arg(long, default_value = "snapshot")]
        host_model: String,
        /// How many start-ups the shared host runs at full speed, instead of fitting it
        /// (e.g. its cores); the idle-host times are derived with this value.
        #[arg(long, value_name = "K")]
        host_speed: Option<f64>,
        /// Processor sharing: the CPU load of a running container that is not starting up, as a
        /// fraction of a start-up's (w): a number, or `fit` to fit it with K. Default 0: only
        /// start-ups load the host.
        #[arg(long, value_name = "W|fit", default_value = "0")]
        background_weight: String,
        #[command(flatten)]
        sls: CalibrateSls,
    },
    /// The REST sidecar: polls the ResourceManager, talks to the engine, serves /metrics, /api/v1 and a status page.
    Sidecar {
        /// Sidecar TOML config (see hadoop-conf/shepherd-sidecar.toml).
        #[arg(long)]
        config: PathBuf,
        /// Only validate the config and exit.
        #[arg(long)]
        check: bool,
        /// Log filter (tracing EnvFilter syntax, e.g. `info`, `shepherd=debug`); RUST_LOG overrides it.
        #[arg(long, default_value = "info")]
        log: String,
    },
}

/// Where the workload comes from and how the simulated cluster and engine are set up.
/// The engine benchmarks' busy cluster (`shepherd::bench`): 64 GB nodes
/// kept full, with `pending` asks queued over `apps` applications.
#[derive(Args, Clone, Copy)]
struct BusyClusterArgs {
    /// NodeManagers.
    #[arg(long, default_value_t = 1000)]
    nodes: u32,
    /// Pending asks spread over the apps.
    #[arg(long, default_value_t = 10_000)]
    pending: u32,
    /// Applications.
    #[arg(long, default_value_t = 500)]
    apps: u32,
    /// Of the applications, how many are small: each keeps 3 containers
    /// running or asked (below a fair share, as most jobs of a shared
    /// cluster); the others share the pending asks.
    #[arg(long, default_value_t = 0)]
    small_apps: u32,
}

/// `calibrate --cluster-model sls`: check against the simulator's SLS model, no fitting.
#[derive(Args)]
struct CalibrateSls {
    /// `sls`: no fitting; simulate the trace (durations as given) with the simulator's SLS model for every
    /// scheduler of OUT (e.g. runs in Hadoop's SLS), counterparts from each run's work/shepherd.toml or
    /// work/counterpart.toml, and print the same per-job JCT errors and rankings.
    #[arg(long, value_name = "MODEL", value_parser = ["sls"])]
    cluster_model: Option<String>,
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

#[derive(Args, Clone, Default)]
struct WorkloadArgs {
    /// Workload file: Shepherd .json, Hadoop SLS .sls.json, SWIM .swim/.tsv.
    #[arg(long, help_heading = "Workload")]
    trace: Option<PathBuf>,
    /// Generate a workload of this kind instead (hibench, hibench-local, facebook, google, google2019, tpcds, ...).
    #[arg(long, help_heading = "Workload")]
    generate: Option<String>,
    /// Generator seed.
    #[arg(long, help_heading = "Generator")]
    seed: Option<u64>,
    /// Generator: number of jobs.
    #[arg(long, help_heading = "Generator")]
    jobs: Option<u32>,
    /// Generator: total tasks.
    #[arg(long, help_heading = "Generator")]
    tasks: Option<u64>,
    /// Generator: nodes; with --trace, overrides the trace's cluster size.
    #[arg(long, help_heading = "Generator")]
    nodes: Option<u32>,
    /// Generator: offered load (1.0 = the cluster's capacity).
    #[arg(long, help_heading = "Generator")]
    load: Option<f64>,
    /// Generator: share of small jobs.
    #[arg(long, help_heading = "Generator")]
    small_share: Option<f64>,
    /// Generator: submit every job at time 0.
    #[arg(long, help_heading = "Generator")]
    offline: bool,
    /// Generator: fixed gap between submissions (ms) instead of Poisson arrivals.
    #[arg(long, help_heading = "Generator")]
    interval_ms: Option<i64>,
    /// Generator: bursty arrivals — the arrival rate changes every 100 s by a lognormal factor of this σ
    /// (SLearn's Table 5 load fluctuation; 2 ≈ its Google-2011 window P50 ÷ mean).
    #[arg(long, help_heading = "Generator", value_name = "SIGMA")]
    burst: Option<f64>,
    /// Generator (facebook, google, google2019, hibench): spread the arrivals over this many seconds instead of the
    /// generator's own span, scaling task runtimes so the offered load over it is still --load.
    #[arg(long, help_heading = "Generator", value_name = "S")]
    span_s: Option<f64>,
    /// Generator: job i in submission order goes to queue q<k> with user u<k>, k = i mod N + 1 (every queue the
    /// same job-size mix, one user per queue).
    #[arg(long, help_heading = "Generator", value_name = "N")]
    queues: Option<usize>,
    /// Generator (hibench): at most this many MapReduce rounds per job (1 = map-only or map→reduce jobs, as SLS replays).
    #[arg(long, help_heading = "Generator", value_name = "N")]
    max_rounds: Option<usize>,
    /// Cluster: memory per node (MB), overrides the workload's.
    #[arg(long, help_heading = "Cluster")]
    node_memory_mb: Option<i64>,
    /// Cluster: vcores per node, overrides the workload's.
    #[arg(long, help_heading = "Cluster")]
    node_vcores: Option<i64>,
    /// Shepherd TOML config for the engine (--policy overrides scheduler.policy).
    #[arg(long, help_heading = "Engine")]
    config: Option<PathBuf>,
    /// Simulator: NodeManager heartbeat interval, ms (default 1000).
    #[arg(long, help_heading = "Simulator")]
    heartbeat_ms: Option<i64>,
    /// Simulator: MapReduce slow-start — a stage asks once this fraction of its parents' tasks finished.
    #[arg(long, help_heading = "Simulator")]
    slowstart: Option<f64>,
    /// Simulator: gang start — hold a stage's containers until all are allocated.
    #[arg(long, help_heading = "Simulator")]
    gang: bool,
    /// Simulator: tasks use this fraction of their request (utilization studies).
    #[arg(long, help_heading = "Simulator")]
    usage_factor: Option<f64>,
    /// Simulator: fairness window, ms.
    #[arg(long, help_heading = "Simulator")]
    window_ms: Option<i64>,
    /// Simulator: heartbeat every node every interval (slower, same results).
    #[arg(long, help_heading = "Simulator")]
    naive_heartbeats: bool,
    /// Simulator: no progress bar.
    #[arg(long, help_heading = "Simulator")]
    no_progress: bool,
    /// Simulator: submit each job to the queue named after its category.
    #[arg(long, help_heading = "Simulator")]
    queue_by_category: bool,
    /// Simulator: the cluster-side model (AM containers, launch, start-up, exit and task overhead times,
    /// heartbeat phases) from this calibration file (`shepherd calibrate --out`); default: the one measured
    /// on the local YARN cluster (examples/calibration/local.json).
    #[arg(long, help_heading = "Simulator", conflicts_with = "no_cluster_model")]
    calibration: Option<PathBuf>,
    /// Simulator: no cluster-side model — no AM containers, tasks start the instant they are allocated
    /// (the simulator before calibration; the golden tests use it).
    #[arg(long, help_heading = "Simulator")]
    no_cluster_model: bool,
    /// Simulator: the cluster model — `calibrated` (default: --calibration's, else the shipped one), `none` (as
    /// --no-cluster-model) or `sls`: the mechanics of Hadoop's Scheduler Load Simulator (each AM a process stepping
    /// every --am-heartbeat-ms, NodeManagers every --heartbeat-ms at seeded phases, tasks running exactly their
    /// durations), to predict the JCTs a scheduler has in SLS.
    #[arg(long, help_heading = "Simulator", value_name = "MODEL", default_value = "calibrated", value_parser = ["calibrated", "none", "sls"])]
    cluster_model: String,
    /// Simulator, --cluster-model sls: the AM simulators' heartbeat, ms (yarn.sls.am.heartbeat.interval.ms, default 1000).
    #[arg(long, help_heading = "Simulator", value_name = "MS")]
    am_heartbeat_ms: Option<i64>,
    /// Simulator: with --out, also write each run's activity.json — every container's allocation, launch and end,
    /// every app's submission, AM ask and first task ask, in simulated ms — the log a harness run keeps, to set a
    /// simulated timeline beside a real one.
    #[arg(long, help_heading = "Simulator")]
    activity_log: bool,
    /// Simulator: scheduling rounds between heartbeats every this many ms, as the shim's
    /// yarn.scheduler.shepherd.async-scheduling.interval-ms (default 0 = heartbeats only); use with
    /// --oob-heartbeats, as YARN's NodeManagers report ends at once.
    #[arg(long, help_heading = "Simulator", value_name = "MS")]
    round_ms: Option<i64>,
    /// Simulator: nodes a scheduling round visits at most (async-scheduling.max-nodes, default 100; 0 = all).
    #[arg(long, help_heading = "Simulator", value_name = "N")]
    round_max_nodes: Option<usize>,
    /// Simulator: the RM learns that a task's container ended at its node's next periodic heartbeat,
    /// instead of at once (the AM still learns at once). YARN's NodeManagers heartbeat out of band
    /// when a container ends instead: --oob-heartbeats.
    #[arg(long, help_heading = "Simulator")]
    ends_at_heartbeat: bool,
    /// Simulator: a node heartbeats out of band when a container on it ends, as YARN's NodeManagers
    /// do: the RM learns of the end, and runs the node's pass, at once.
    #[arg(long, help_heading = "Simulator")]
    oob_heartbeats: bool,
    /// Simulator: heartbeats only report and run no pass; only rounds allocate (the shim's
    /// async-scheduling.heartbeats-allocate = false). Needs --round-ms > 0.
    #[arg(long, help_heading = "Simulator")]
    report_only_heartbeats: bool,
}

impl WorkloadArgs {
    fn source(&self, default_kind: Option<&str>) -> Result<Source, String> {
        if let Some(p) = &self.trace {
            return Ok(Source::File(p.clone()));
        }
        let kind = self
            .generate
            .as_deref()
            .or(default_kind)
            .ok_or_else(|| format!("need --trace FILE or --generate KIND ({})", KINDS.join(", ")))?;
        let params = GenParams {
            seed: self.seed.unwrap_or(1),
            jobs: self.jobs.map(|v| v as _),
            tasks: self.tasks.map(|v| v as _),
            nodes: self.nodes.map(|v| v as _),
            load: self.load,
            small_share: self.small_share,
            offline: self.offline,
            interval_ms: self.interval_ms.map(|v| v as _),
            burst: self.burst,
            span_ms: self.span_s.map(|s| (s * 1000.0).round() as i64),
            queues: self.queues,
            max_rounds: self.max_rounds,
        };
        Ok(Source::Generate(kind.to_string(), params))
    }

    fn experiment(&self, default_kind: Option<&str>) -> Result<Experiment, String> {
        let config = match &self.config {
            Some(p) => {
                let text = std::fs::read_to_string(p).map_err(|e| format!("cannot read {}: {e}", p.display()))?;
                shepherd::Config::parse(&text).map_err(|e| e.to_string())?
            }
            None => shepherd::Config::default(),
        };
        let d = SimOptions::default();
        let sls = match self.cluster_model.as_str() {
            "sls" if self.calibration.is_some() || self.no_cluster_model => {
                return Err("--cluster-model sls is a cluster model of its own: no --calibration or --no-cluster-model".into())
            }
            "sls" => Some(shepherd::sim::sls::SlsModel { am_heartbeat_ms: self.am_heartbeat_ms.unwrap_or(1000) }),
            _ if self.am_heartbeat_ms.is_some() => return Err("--am-heartbeat-ms needs --cluster-model sls".into()),
            _ => None,
        };
        if let Some(ms) = self.round_ms.filter(|ms| *ms < 0) {
            return Err(format!("--round-ms {ms}: must be 0 (heartbeats only) or a positive interval"));
        }
        if self.report_only_heartbeats && self.round_ms.unwrap_or(0) <= 0 {
            return Err("--report-only-heartbeats needs --round-ms > 0: without rounds nothing would allocate".into());
        }
        let opts = SimOptions {
            heartbeat_ms: self.heartbeat_ms.unwrap_or(d.heartbeat_ms),
            slowstart: self.slowstart.unwrap_or(d.slowstart),
            gang: self.gang,
            usage_factor: self.usage_factor.unwrap_or(d.usage_factor),
            window_ms: self.window_ms.unwrap_or(d.window_ms),
            small_theta: d.small_theta,
            naive_heartbeats: self.naive_heartbeats,
            queue_by_category: self.queue_by_category,
            progress: !self.no_progress && std::io::stderr().is_terminal(),
            cluster_model: match (&self.calibration, self.no_cluster_model || self.cluster_model == "none") {
                (_, true) => None,
                (Some(p), _) => Some(shepherd::sim::calibration::Calibration::load(p)?),
                (None, false) => d.cluster_model.clone(),
            },
            seed: self.seed.unwrap_or(1),
            activity_log: self.activity_log,
            round_ms: self.round_ms.unwrap_or(d.round_ms),
            round_max_nodes: self.round_max_nodes.unwrap_or(d.round_max_nodes),
            ends_at_heartbeat: self.ends_at_heartbeat,
            oob_heartbeats: self.oob_heartbeats,
            report_only_heartbeats: self.report_only_heartbeats,
            sls,
        };
        let source = self.source(default_kind)?;
        let mut exp = Experiment::new(&source, config, None, opts)?;
        // Explicit cluster flags override the trace's cluster (with a trace file, --nodes sizes the cluster).
        let nodes = if matches!(source, Source::File(_)) { self.nodes } else { None };
        if self.node_memory_mb.is_some() || self.node_vcores.is_some() || nodes.is_some() {
            let c = &exp.cluster;
            exp.cluster = ClusterSpec {
                nodes: nodes.unwrap_or(c.nodes),
                memory_mb: self.node_memory_mb.unwrap_or(c.memory_mb),
                vcores: self.node_vcores.unwrap_or(c.vcores),
                rack_size: c.rack_size,
            };
        }
        Ok(exp)
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let name = match &cli.command {
        Command::CheckConfig { .. } => "check-config",
        Command::Simulate { .. } => "simulate",
        Command::Compare { .. } => "compare",
        Command::Generate { .. } => "generate",
        Command::BenchSim { .. } => "bench-sim",
        Command::BenchHeartbeat { .. } => "bench-heartbeat",
        Command::BenchConstraints { .. } => "bench-constraints",
        Command::BenchOptimistic { .. } => "bench-optimistic",
        Command::BenchRound { .. } => "bench-round",
        Command::ScaleSim { .. } => "scale-sim",
        Command::YarnReport { .. } => "yarn-report",
        Command::Calibrate { .. } => "calibrate",
        Command::Sidecar { .. } => "sidecar",
    };
    if matches!(cli.command, Command::Simulate { .. } | Command::Compare { .. }) {
        // The engine's decision-point spans and events (e.g. Carbyne's
        // plans: RUST_LOG=shepherd::policy::carbyne=debug), on stderr, only
        // when asked for: a simulation makes millions of decisions.
        if let Ok(filter) = tracing_subscriber::EnvFilter::try_from_default_env() {
            tracing_subscriber::fmt().with_env_filter(filter).with_ansi(false).with_writer(std::io::stderr).init();
        }
    }
    let result = match cli.command {
        Command::CheckConfig { plugins: true, .. } => {
            print!("{}", shepherd::config::plugins::markdown_table());
            Ok(())
        }
        Command::CheckConfig { file, .. } => check_config(&file.expect("clap requires it without --plugins")),
        Command::Simulate { w, policy, out } => simulate(&w, policy, out),
        Command::Compare { w, policies, baseline, out, seeds, threads } => {
            compare(&w, &policies, &baseline, out, seeds, threads.unwrap_or_else(shepherd::sim::parallel::default_workers))
        }
        Command::Generate { w, out } => generate(&w, &out),
        Command::BenchSim { w, policy } => bench(&w, &policy),
        Command::BenchHeartbeat {
            cluster: BusyClusterArgs { nodes, pending, apps, small_apps },
            heartbeats,
            policy,
            config,
            target_us,
            report_only,
        } => {
            let config = config.map(|p| std::fs::read_to_string(&p).map_err(|e| format!("cannot read {}: {e}", p.display()))).transpose();
            config.and_then(|config| {
                bench_heartbeat(
                    shepherd::bench::heartbeat::HeartbeatBench {
                        nodes: nodes as _,
                        pending: pending as _,
                        apps: apps as _,
                        small_apps,
                        heartbeats: heartbeats as _,
                        policy,
                        config: config.unwrap_or_default(),
                        report_only,
                    },
                    target_us,
                )
            })
        }
        Command::BenchRound {
            cluster: BusyClusterArgs { nodes, pending, apps, small_apps },
            batch,
            per_node,
            fresh_candidates,
            rounds,
            policy,
            proposers,
        } => {
            println!(
                "{:>9} {:>7} {:>11} {:>9} {:>9} {:>14} {:>10} {:>10} {:>11} {:>10}",
                "proposers",
                "rounds",
                "containers",
                "P50 µs",
                "P99 µs",
                "containers/s",
                "proposals",
                "conflicts",
                "propose ms",
                "commit ms"
            );
            for k in proposers {
                let r = shepherd::bench::round::RoundBench {
                    nodes,
                    apps,
                    pending,
                    small_apps,
                    batch,
                    per_node,
                    fresh_candidates,
                    rounds,
                    policy: policy.clone(),
                    proposers: k.max(1),
                }
                .run();
                println!(
                    "{:>9} {:>7} {:>11} {:>9.0} {:>9.0} {:>14.0} {:>10} {:>10} {:>11.0} {:>10.0}",
                    k,
                    rounds,
                    r.allocations,
                    r.percentile(50.0),
                    r.percentile(99.0),
                    r.allocations_per_s(),
                    r.proposals,
                    r.conflicts,
                    r.propose_ms,
                    r.commit_ms
                );
            }
            Ok(())
        }
        Command::BenchConstraints { nodes, containers } => {
            println!(
                "{:>8} {:>8} {:>10} {:>12} {:>12} {:>16}",
                "nodes", "vectors", "candidates", "compile µs", "bit test ns", "per-node scan µs"
            );
            for n in nodes {
                let r = shepherd::bench::constraints::run(n, containers, 1);
                println!(
                    "{:>8} {:>8} {:>10} {:>12.1} {:>12.1} {:>16.1}",
                    r.nodes,
                    r.vectors,
                    r.candidates,
                    r.compile_ns / 1e3,
                    r.bit_test_ns,
                    r.naive_scan_ns / 1e3
                );
            }
            Ok(())
        }
        Command::BenchOptimistic { nodes, partition_size, proposers, fill } => {
            println!(
                "{:>8} {:>10} {:>8} {:>9} {:>9} {:>14} {:>10} {:>9}",
                "nodes", "partitions", "tasks", "P50 µs", "P99 µs", "proposals/task", "conflicts", "wall ms"
            );
            for n in nodes {
                for parts in [(n / partition_size.max(1)).max(1), 1] {
                    let r = shepherd::bench::optimistic::run(n, parts, proposers.max(1), fill.clamp(0.0, 1.0));
                    println!(
                        "{:>8} {:>10} {:>8} {:>9.1} {:>9.1} {:>14.3} {:>10} {:>9.0}",
                        r.nodes, r.partitions, r.tasks, r.p50_us, r.p99_us, r.proposals_per_task, r.rejections, r.wall_ms
                    );
                }
            }
            Ok(())
        }
        Command::ScaleSim { s } => scale_sim(&s),
        Command::YarnReport { out, baseline, require_success } => yarn_report(&out, baseline.as_deref(), require_success),
        Command::Calibrate { out, trace, seed, sls, .. } if sls.cluster_model.is_some() => calibrate_sls(&out, &trace, seed, &sls),
        Command::Calibrate { out, trace, use_calibration, write, also, seed, host_model, host_speed, background_weight, .. } => {
            calibrate(&out, &trace, use_calibration, write, &also, seed, (&host_model, host_speed, background_weight))
        }
        Command::Sidecar { config, check, log } => sidecar(&config, check, &log),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("shepherd {name}: {e}");
            ExitCode::FAILURE
        }
    }
}

fn calibrate(
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
fn calibrate_sls(out: &std::path::Path, trace: &std::path::Path, seed: u64, a: &CalibrateSls) -> Result<(), String> {
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

fn check_config(path: &std::path::Path) -> Result<(), String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let c = shepherd::Config::parse(&text).map_err(|e| e.to_string())?;
    // Building the engine builds every plugin the config names.
    shepherd::Engine::with_config(c.clone()).map_err(|e| e.to_string())?;
    print!("{}", shepherd::config::summary::summary(&c));
    Ok(())
}

fn sidecar(path: &std::path::Path, check: bool, log: &str) -> Result<(), String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let config = shepherd::sidecar::config::SidecarConfig::parse(&text)
        .map_err(|e| e.to_string().replacen("invalid Shepherd config", "invalid sidecar config", 1))?;
    if check {
        println!(
            "sidecar config OK: listen {}, RM {}, engine {}",
            config.server.listen,
            config.rm.addresses.join(", "),
            if config.control.address.is_empty() { "not linked" } else { &config.control.address }
        );
        return Ok(());
    }
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .or_else(|_| tracing_subscriber::EnvFilter::try_new(log))
        .map_err(|e| format!("--log {log}: {e}"))?;
    tracing_subscriber::fmt().with_env_filter(filter).with_ansi(std::io::stderr().is_terminal()).with_writer(std::io::stderr).init();
    shepherd::sidecar::run(config)
}

fn yarn_report(out: &std::path::Path, baseline: Option<&str>, require_success: bool) -> Result<(), String> {
    let report = shepherd::harness::analyze(out, baseline)?;
    print!("{}", report.text());
    report.write(out)?;
    println!(
        "wrote {0}/summary.json, summary.csv, jct-cdf.svg, wait-cdf.svg, utilization.svg and metrics.json, jobs.csv, fairness.csv in every {0}/<label>/run-<k>/",
        out.display()
    );
    match report.failure_message() {
        Some(m) if require_success => Err(m),
        _ => Ok(()),
    }
}

fn simulate(w: &WorkloadArgs, policy: Option<String>, out_dir: Option<PathBuf>) -> Result<(), String> {
    let exp = w.experiment(None)?;
    let policy = policy.unwrap_or_else(|| exp.config.scheduler.policy.clone());
    let out = exp.run(&policy)?;
    print!("{}", shepherd::report::table::absolute(std::slice::from_ref(&out.summary)));
    print!("{}", shepherd::report::table::oversubscription(std::slice::from_ref(&out.summary)));
    print!("{}", shepherd::report::table::allocation_latency(std::slice::from_ref(&out.summary)));
    if let Some(dir) = out_dir {
        shepherd::report::files::write_run(&dir, &out).map_err(|e| format!("{}: {e}", dir.display()))?;
        println!("wrote {}/metrics.json, jobs.csv, utilization.csv, fairness.csv, jct_cdf.svg, utilization.svg", dir.display());
    }
    Ok(())
}

fn policy_list(p: &str) -> Vec<String> {
    p.split(',').map(|s| s.trim().to_string()).collect()
}

fn compare(
    w: &WorkloadArgs,
    policies: &str,
    baseline: &str,
    out: Option<PathBuf>,
    seeds: Option<u64>,
    threads: usize,
) -> Result<(), String> {
    if threads == 0 {
        return Err("--threads 0: at least one simulation must run at a time".into());
    }
    if let Some(n) = seeds {
        if out.is_some() {
            return Err("--seeds needs --generate KIND (and no --trace or --out)".into());
        }
        return compare_seeds(w, policies, baseline, n, threads);
    }
    let exp = w.experiment(None)?;
    let jobs = exp.trace.jobs.len();
    let tasks = exp.trace.task_count();
    println!(
        "workload: {jobs} jobs, {tasks} tasks on {} nodes ({} MB, {} vcores each)\n",
        exp.cluster.nodes, exp.cluster.memory_mb, exp.cluster.vcores
    );
    let cmp =
        Experiment::compare_each(std::slice::from_ref(&exp), &policy_list(policies), baseline, threads)?.pop().expect("one comparison");
    print!("{}", cmp.text());
    if let Some(dir) = out {
        cmp.write(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        println!("wrote {}/comparison.json, factors.csv, speedups.csv, jct_cdf.svg and one directory per policy", dir.display());
    }
    Ok(())
}

/// `compare --seeds N`: the same comparison on the generator's workloads of
/// seeds FIRST .. FIRST + N − 1, summarized per (policy, category) row.
fn compare_seeds(w: &WorkloadArgs, policies: &str, baseline: &str, n: u64, threads: usize) -> Result<(), String> {
    if n == 0 {
        return Err("--seeds needs a positive count".into());
    }
    if w.trace.is_some() || w.generate.is_none() {
        return Err("--seeds needs --generate KIND (and no --trace or --out)".into());
    }
    let first = w.seed.unwrap_or(1);
    let policies = policy_list(policies);
    let (mut per_seed, mut ideal, mut errors) = (Vec::new(), Vec::new(), Vec::new());
    // Jain's index (mean over the windows) per policy and seed, and its
    // difference from the baseline's on the same workload.
    let mut jain: Vec<(String, Vec<f64>, Vec<f64>)> = Vec::new();
    let exps =
        (first..first + n).map(|seed| WorkloadArgs { seed: Some(seed), ..w.clone() }.experiment(None)).collect::<Result<Vec<_>, _>>()?;
    println!(
        "workload: {} on {} nodes ({} MB, {} vcores each), seeds {first}..{}\n",
        w.generate.as_deref().unwrap_or(""),
        exps[0].cluster.nodes,
        exps[0].cluster.memory_mb,
        exps[0].cluster.vcores,
        first + n - 1
    );
    // Every seed's runs in one pool: a slow policy's runs overlap the
    // others' across seeds.
    let comparisons = Experiment::compare_each(&exps, &policies, baseline, threads)?;
    for (exp, cmp) in exps.iter().zip(comparisons) {
        let base_jain = cmp.runs.iter().find(|r| r.summary.policy == baseline).map(|r| r.summary.fairness.mean);
        for run in &cmp.runs {
            let p = &run.summary.policy;
            if !jain.iter().any(|(q, _, _)| q == p) {
                jain.push((p.clone(), Vec::new(), Vec::new()));
            }
            let Some((_, values, diffs)) = jain.iter_mut().find(|(q, _, _)| q == p) else { continue };
            values.push(run.summary.fairness.mean);
            if let Some(b) = base_jain {
                diffs.push(run.summary.fairness.mean - b);
            }
        }
        let critical: HashMap<String, i64> = exp.trace.jobs.iter().map(|j| (j.id.clone(), j.critical_path_ms())).collect();
        ideal.push(shepherd::metrics::compare::ideal_factors(&cmp.runs[0].jobs, &critical));
        for run in &cmp.runs {
            errors.push(shepherd::metrics::compare::seed_errors(&run.summary.policy, &run.jobs));
        }
        per_seed.push(cmp.factors);
    }
    let rows = shepherd::metrics::compare::over_seeds(&per_seed, &ideal);
    let seeds = format!("{n} seeds ({first}..{})", first + n - 1);
    print!("{}", shepherd::report::table::seeds(baseline, &seeds, &rows));
    print!("{}", shepherd::report::table::jain_over_seeds(baseline, &seeds, &jain));
    let errors = shepherd::metrics::compare::errors_over_seeds(&errors);
    if !errors.is_empty() {
        print!("\n{}", shepherd::report::table::seed_errors(&seeds, &errors));
    }
    Ok(())
}

/// A generated workload (--generate) or a converted one (--trace) as a Shepherd trace, or for `--out X.sls.json`
/// as Hadoop SLS jobs plus the SLS nodes file `X.nodes.json` beside it. The cluster is the trace's with the
/// cluster flags applied as `simulate` applies them.
fn generate(w: &WorkloadArgs, out: &std::path::Path) -> Result<(), String> {
    if w.trace.is_none() && w.generate.is_none() {
        return Err(format!("generate needs --generate KIND ({}) or --trace FILE", KINDS.join(", ")));
    }
    let exp = w.experiment(None)?;
    let mut trace = exp.trace;
    // Without a cluster of its own a trace gets one only from --nodes (the simulator's default is no cluster to write).
    if trace.cluster.is_some() || (w.trace.is_some() && w.nodes.is_some()) {
        trace.cluster = Some(exp.cluster);
    }
    let load = |t: &shepherd::workload::Trace| match &t.cluster {
        Some(c) => {
            let spread = t.jobs.iter().any(|j| j.submit_ms != t.jobs[0].submit_ms);
            let load = if spread {
                format!("offered load {:.2}", shepherd::workload::gen::offered_load(&t.jobs, c))
            } else {
                "all at once".into()
            };
            format!("; {load} on {} nodes ({} MB, {} vcores each)", c.nodes, c.memory_mb, c.vcores)
        }
        None => String::new(),
    };
    let write = |p: &std::path::Path, text: String| std::fs::write(p, text).map_err(|e| format!("{}: {e}", p.display()));
    let name = out.file_name().and_then(|n| n.to_str()).unwrap_or("");
    let Some(stem) = name.strip_suffix(".sls.json") else {
        write(out, trace.to_json())?;
        println!("wrote {}: {} jobs, {} tasks{}", out.display(), trace.jobs.len(), trace.task_count(), load(&trace));
        return Ok(());
    };
    let Some(cluster) = &trace.cluster else {
        return Err(format!(
            "{}: SLS needs a nodes file, but the trace names no cluster; give --nodes N (and --node-memory-mb, --node-vcores)",
            out.display()
        ));
    };
    let jobs = shepherd::workload::sls::from_trace(&trace)?;
    let nodes = out.with_file_name(format!("{stem}.nodes.json"));
    write(out, shepherd::workload::sls::write(&jobs))?;
    write(&nodes, shepherd::workload::sls::write_nodes(cluster))?;
    println!("wrote {}: {} jobs, {} tasks{}", out.display(), trace.jobs.len(), trace.task_count(), load(&trace));
    println!("wrote {}: {} nodes in {} racks", nodes.display(), cluster.nodes, cluster.nodes.div_ceil(cluster.rack_size.max(1)));
    Ok(())
}

fn bench(w: &WorkloadArgs, policy: &str) -> Result<(), String> {
    let t0 = Instant::now();
    let exp = w.experiment(Some("facebook"))?;
    let gen_s = t0.elapsed().as_secs_f64();
    println!(
        "workload: {} jobs, {} tasks, {} nodes (generated/loaded in {gen_s:.2} s)",
        exp.trace.jobs.len(),
        exp.trace.task_count(),
        exp.cluster.nodes
    );
    let t1 = Instant::now();
    let out = exp.run(policy)?;
    let wall = t1.elapsed().as_secs_f64();
    let s = &out.summary;
    println!("policy: {policy}; simulated makespan {:.0} s; unfinished jobs {}", s.all.makespan_ms as f64 / 1000.0, s.unfinished_jobs);
    println!("simulation wall time: {wall:.2} s");
    println!(
        "simulator events: {} ({:.0}/s); engine events: {} ({:.0}/s); engine passes: {} ({:.0}/s)",
        out.sim_events,
        out.sim_events as f64 / wall,
        s.engine_events,
        s.engine_events as f64 / wall,
        s.engine_passes,
        s.engine_passes as f64 / wall
    );
    match peak_rss_kib() {
        Some(k) => println!("peak memory (VmHWM): {:.1} MiB", k as f64 / 1024.0),
        None => println!("peak memory: unavailable (no /proc/self/status)"),
    }
    Ok(())
}

fn bench_heartbeat(b: shepherd::bench::heartbeat::HeartbeatBench, target_us: f64) -> Result<(), String> {
    let r = b.run();
    let cpu_p99 = r.cpu_percentile(99.0);
    println!(
        "engine {} per heartbeat ({} policy, {} nodes, {} pending asks over {} apps{}, {} heartbeats, {} allocations):",
        if b.report_only { "time to take a report-only heartbeat (no pass; refilled untimed)" } else { "decision time" },
        b.policy,
        b.nodes,
        b.pending,
        b.apps,
        if r.small_apps > 0 { format!(" ({} of them small)", r.small_apps) } else { String::new() },
        b.heartbeats,
        r.allocations
    );
    println!(
        "  p50 {:.1} us   p90 {:.1} us   p99 {:.1} us   max {:.1} us   (target: p99 <= {target_us:.0} us)",
        r.percentile(50.0),
        r.percentile(90.0),
        r.percentile(99.0),
        r.percentile(100.0)
    );
    println!(
        "  cpu time: p50 {:.1} us   p90 {:.1} us   p99 {:.1} us   max {:.1} us   (the thread's own CPU time: without preemption by other processes)",
        r.cpu_percentile(50.0),
        r.cpu_percentile(90.0),
        cpu_p99,
        r.cpu_percentile(100.0)
    );
    // The verdict reads the CPU time: on a shared machine the wall-clock
    // tail is other processes' (see the line above).
    println!("  cpu p99 {cpu_p99:.1} us against the target {target_us:.0} us: {}", if cpu_p99 <= target_us { "met" } else { "MISSED" });
    Ok(())
}

/// `scale-sim`: the workload, the cluster and each architecture's parameters.
#[derive(Args, Clone)]
struct ScaleSimArgs {
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

fn scale_sim(a: &ScaleSimArgs) -> Result<(), String> {
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
