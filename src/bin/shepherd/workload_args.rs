//! The flags `simulate`, `compare`, `generate` and `bench-sim` share: where
//! the workload comes from (a trace or a generator), the simulated cluster,
//! the engine's config and the simulator's options, and the experiment they
//! make.

use clap::Args;
use shepherd::sim::experiment::{Experiment, Source};
use shepherd::sim::SimOptions;
use shepherd::workload::gen::{GenParams, KINDS};
use shepherd::workload::ClusterSpec;
use std::io::IsTerminal;
use std::path::PathBuf;

/// Where the workload comes from and how the simulated cluster and engine are set up.
#[derive(Args, Clone, Default)]
pub struct WorkloadArgs {
    /// Workload file: Shepherd .json, Hadoop SLS .sls.json, SWIM .swim/.tsv.
    #[arg(long, help_heading = "Workload")]
    pub trace: Option<PathBuf>,
    /// Generate a workload of this kind instead (hibench, hibench-local, facebook, google, google2019, tpcds, ...).
    #[arg(long, help_heading = "Workload")]
    pub generate: Option<String>,
    /// Generator seed.
    #[arg(long, help_heading = "Generator")]
    pub seed: Option<u64>,
    /// Generator: number of jobs.
    #[arg(long, help_heading = "Generator")]
    pub jobs: Option<u32>,
    /// Generator: total tasks.
    #[arg(long, help_heading = "Generator")]
    pub tasks: Option<u64>,
    /// Generator: nodes; with --trace, overrides the trace's cluster size.
    #[arg(long, help_heading = "Generator")]
    pub nodes: Option<u32>,
    /// Generator: offered load (1.0 = the cluster's capacity).
    #[arg(long, help_heading = "Generator")]
    pub load: Option<f64>,
    /// Generator: share of small jobs.
    #[arg(long, help_heading = "Generator")]
    pub small_share: Option<f64>,
    /// Generator: submit every job at time 0.
    #[arg(long, help_heading = "Generator")]
    pub offline: bool,
    /// Generator: fixed gap between submissions (ms) instead of Poisson arrivals.
    #[arg(long, help_heading = "Generator")]
    pub interval_ms: Option<i64>,
    /// Generator: bursty arrivals — the arrival rate changes every 100 s by a lognormal factor of this σ
    /// (SLearn's Table 5 load fluctuation; 2 ≈ its Google-2011 window P50 ÷ mean).
    #[arg(long, help_heading = "Generator", value_name = "SIGMA")]
    pub burst: Option<f64>,
    /// Generator (facebook, google, google2019, hibench): spread the arrivals over this many seconds instead of the
    /// generator's own span, scaling task runtimes so the offered load over it is still --load.
    #[arg(long, help_heading = "Generator", value_name = "S")]
    pub span_s: Option<f64>,
    /// Generator: job i in submission order goes to queue q<k> with user u<k>, k = i mod N + 1 (every queue the
    /// same job-size mix, one user per queue).
    #[arg(long, help_heading = "Generator", value_name = "N")]
    pub queues: Option<usize>,
    /// Generator (hibench): at most this many MapReduce rounds per job (1 = map-only or map→reduce jobs, as SLS replays).
    #[arg(long, help_heading = "Generator", value_name = "N")]
    pub max_rounds: Option<usize>,
    /// Cluster: memory per node (MB), overrides the workload's.
    #[arg(long, help_heading = "Cluster")]
    pub node_memory_mb: Option<i64>,
    /// Cluster: vcores per node, overrides the workload's.
    #[arg(long, help_heading = "Cluster")]
    pub node_vcores: Option<i64>,
    /// Shepherd TOML config for the engine (--policy overrides scheduler.policy).
    #[arg(long, help_heading = "Engine")]
    pub config: Option<PathBuf>,
    /// Simulator: NodeManager heartbeat interval, ms (default 1000).
    #[arg(long, help_heading = "Simulator")]
    pub heartbeat_ms: Option<i64>,
    /// Simulator: MapReduce slow-start — a stage asks once this fraction of its parents' tasks finished.
    #[arg(long, help_heading = "Simulator")]
    pub slowstart: Option<f64>,
    /// Simulator: gang start — hold a stage's containers until all are allocated.
    #[arg(long, help_heading = "Simulator")]
    pub gang: bool,
    /// Simulator: tasks use this fraction of their request (utilization studies).
    #[arg(long, help_heading = "Simulator")]
    pub usage_factor: Option<f64>,
    /// Simulator: fairness window, ms.
    #[arg(long, help_heading = "Simulator")]
    pub window_ms: Option<i64>,
    /// Simulator: heartbeat every node every interval (slower, same results).
    #[arg(long, help_heading = "Simulator")]
    pub naive_heartbeats: bool,
    /// Simulator: no progress bar.
    #[arg(long, help_heading = "Simulator")]
    pub no_progress: bool,
    /// Simulator: submit each job to the queue named after its category.
    #[arg(long, help_heading = "Simulator")]
    pub queue_by_category: bool,
    /// Simulator: the cluster-side model (AM containers, launch, start-up, exit and task overhead times,
    /// heartbeat phases) from this calibration file (`shepherd calibrate --out`); default: the one measured
    /// on the local YARN cluster (examples/calibration/local.json).
    #[arg(long, help_heading = "Simulator", conflicts_with = "no_cluster_model")]
    pub calibration: Option<PathBuf>,
    /// Simulator: no cluster-side model — no AM containers, tasks start the instant they are allocated
    /// (the simulator before calibration; the golden tests use it).
    #[arg(long, help_heading = "Simulator")]
    pub no_cluster_model: bool,
    /// Simulator: the cluster model — `calibrated` (default: --calibration's, else the shipped one), `none` (as
    /// --no-cluster-model) or `sls`: the mechanics of Hadoop's Scheduler Load Simulator (each AM a process stepping
    /// every --am-heartbeat-ms, NodeManagers every --heartbeat-ms at seeded phases, tasks running exactly their
    /// durations), to predict the JCTs a scheduler has in SLS.
    #[arg(long, help_heading = "Simulator", value_name = "MODEL", default_value = "calibrated", value_parser = ["calibrated", "none", "sls"])]
    pub cluster_model: String,
    /// Simulator, --cluster-model sls: the AM simulators' heartbeat, ms (yarn.sls.am.heartbeat.interval.ms, default 1000).
    #[arg(long, help_heading = "Simulator", value_name = "MS")]
    pub am_heartbeat_ms: Option<i64>,
    /// Simulator: with --out, also write each run's activity.json — every container's allocation, launch and end,
    /// every app's submission, AM ask and first task ask, in simulated ms — the log a harness run keeps, to set a
    /// simulated timeline beside a real one.
    #[arg(long, help_heading = "Simulator")]
    pub activity_log: bool,
    /// Simulator: scheduling rounds between heartbeats every this many ms, as the shim's
    /// yarn.scheduler.shepherd.async-scheduling.interval-ms (default 0 = heartbeats only); use with
    /// --oob-heartbeats, as YARN's NodeManagers report ends at once.
    #[arg(long, help_heading = "Simulator", value_name = "MS")]
    pub round_ms: Option<i64>,
    /// Simulator: nodes a scheduling round visits at most (async-scheduling.max-nodes, default 100; 0 = all).
    #[arg(long, help_heading = "Simulator", value_name = "N")]
    pub round_max_nodes: Option<usize>,
    /// Simulator: the RM learns that a task's container ended at its node's next periodic heartbeat,
    /// instead of at once (the AM still learns at once). YARN's NodeManagers heartbeat out of band
    /// when a container ends instead: --oob-heartbeats.
    #[arg(long, help_heading = "Simulator")]
    pub ends_at_heartbeat: bool,
    /// Simulator: a node heartbeats out of band when a container on it ends, as YARN's NodeManagers
    /// do: the RM learns of the end, and runs the node's pass, at once.
    #[arg(long, help_heading = "Simulator")]
    pub oob_heartbeats: bool,
    /// Simulator: heartbeats only report and run no pass; only rounds allocate (the shim's
    /// async-scheduling.heartbeats-allocate = false). Needs --round-ms > 0.
    #[arg(long, help_heading = "Simulator")]
    pub report_only_heartbeats: bool,
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

    pub fn experiment(&self, default_kind: Option<&str>) -> Result<Experiment, String> {
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
