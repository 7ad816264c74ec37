//! `shepherd` command-line tool (clap). Every subcommand's `--help` explains
//! its flags; an unknown or misspelled flag is an error with a suggestion.
//!
//! This file holds the subcommands' flags (`Command`) and the dispatch; each
//! subcommand's work is in a module of its own (the bench-* ones share
//! `bench`), and the flags several share are in `workload_args` (the
//! simulated workload, cluster and engine) and `bench` (the busy cluster).

mod bench;
mod calibrate;
mod check_config;
mod compare;
mod generate;
mod scale_sim;
mod sidecar;
mod simulate;
mod workload_args;
mod yarn_report;

use bench::BusyClusterArgs;
use calibrate::CalibrateSls;
use clap::{Parser, Subcommand};
use scale_sim::ScaleSimArgs;
use std::path::PathBuf;
use std::process::ExitCode;
use workload_args::WorkloadArgs;

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
        Command::CheckConfig { file, .. } => check_config::check_config(&file.expect("clap requires it without --plugins")),
        Command::Simulate { w, policy, out } => simulate::simulate(&w, policy, out),
        Command::Compare { w, policies, baseline, out, seeds, threads } => {
            compare::compare(&w, &policies, &baseline, out, seeds, threads.unwrap_or_else(shepherd::sim::parallel::default_workers))
        }
        Command::Generate { w, out } => generate::generate(&w, &out),
        Command::BenchSim { w, policy } => bench::sim(&w, &policy),
        Command::BenchHeartbeat { cluster, heartbeats, policy, config, target_us, report_only } => {
            bench::heartbeat(cluster, heartbeats, policy, config, target_us, report_only)
        }
        Command::BenchRound { cluster, batch, per_node, fresh_candidates, rounds, policy, proposers } => {
            bench::round(cluster, batch, per_node, fresh_candidates, rounds, &policy, &proposers)
        }
        Command::BenchConstraints { nodes, containers } => bench::constraints(&nodes, containers),
        Command::BenchOptimistic { nodes, partition_size, proposers, fill } => bench::optimistic(&nodes, partition_size, proposers, fill),
        Command::ScaleSim { s } => scale_sim::scale_sim(&s),
        Command::YarnReport { out, baseline, require_success } => yarn_report::yarn_report(&out, baseline.as_deref(), require_success),
        Command::Calibrate { out, trace, seed, sls, .. } if sls.cluster_model.is_some() => {
            calibrate::calibrate_sls(&out, &trace, seed, &sls)
        }
        Command::Calibrate { out, trace, use_calibration, write, also, seed, host_model, host_speed, background_weight, .. } => {
            calibrate::calibrate(&out, &trace, use_calibration, write, &also, seed, (&host_model, host_speed, background_weight))
        }
        Command::Sidecar { config, check, log } => sidecar::sidecar(&config, check, &log),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("shepherd {name}: {e}");
            ExitCode::FAILURE
        }
    }
}
