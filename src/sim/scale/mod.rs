//! The scale simulator: allocation latency (ask → the task holds its
//! resources on a node) of three allocation architectures and their zero-cost floor on the same
//! trace, at tens of thousands of nodes — issue 14 item 3, after Megha
//! (Thiyyakat et al., §III–VI; `shared/papers/megha-decentralized-federated-scheduling.txt`).
//!
//! * [`megha`]   — partitioned, optimistic: GMs place from stale views, LMs
//!   validate and commit (§IV); repartitioning, rescheduling, optional
//!   fair-share preemption (Algorithm 2).
//! * [`sparrow`] — batch sampling with late binding (Ousterhout et al., SOSP '13).
//! * [`central`] — one scheduler driven by node heartbeats (YARN's and
//!   heartbeat-driven Shepherd's architecture).
//! * [`ideal`]   — a zero-cost scheduler with an exact view: the floor of
//!   the others, where tasks wait for capacity only.
//!
//! Shared pieces: [`workload`] (the trace as flat arrays; stages asked when
//! their parents finish), [`crate::sim::event_queue`] (the time-ordered queue), [`server`]
//! (a scheduling component as a single FIFO server: its queue is the
//! paper's Framework_Queuing_Delay, §III eq. 2), [`report`] (percentiles,
//! counters, an independent per-node capacity ledger).
//!
//! A discrete-event simulation, single-threaded and deterministic: time in
//! whole microseconds, every random draw from the seed, ties broken by
//! insertion order, so the same trace, options and seed give the same
//! [`ScaleReport`]. It does not drive Shepherd's engine: the `central`
//! model stands for it with a per-heartbeat service time measured on it
//! (`shepherd bench-heartbeat`).
//!
//! What the latency includes, per architecture (one-way delay `d`):
//! megha = GM queue + match + d + LM queue + validate + d (launch);
//! sparrow = scheduler queue + probes + d + worker queue + d (get-task) +
//! scheduler queue + d (the task); central = wait for the node's next
//! heartbeat (periodic, a round, or out of band after a container ended
//! there) + scheduler queue + heartbeat service + d (launch); ideal =
//! nothing but the wait for resources. Time waiting for resources (a full
//! cluster) is in all four.

pub mod central;
pub mod ideal;
pub mod megha;
pub mod queues;
pub mod report;
pub mod server;
pub mod sparrow;
pub mod workload;

use crate::model::Resources;
use crate::workload::{ClusterSpec, Trace};
pub use central::CentralOptions;
pub use ideal::IdealOptions;
pub use megha::MeghaOptions;
pub use queues::QueueOrder;
pub use report::{ArchReport, ScaleReport};
pub use sparrow::SparrowOptions;
use workload::Workload;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Arch {
    Megha,
    Sparrow,
    Central,
    Ideal,
}

impl Arch {
    pub const ALL: [Arch; 4] = [Arch::Megha, Arch::Sparrow, Arch::Central, Arch::Ideal];

    pub fn name(self) -> &'static str {
        match self {
            Arch::Megha => "megha",
            Arch::Sparrow => "sparrow",
            Arch::Central => "central",
            Arch::Ideal => "ideal",
        }
    }

    pub fn parse(s: &str) -> Result<Arch, String> {
        Arch::ALL
            .into_iter()
            .find(|a| a.name() == s.trim())
            .ok_or_else(|| format!("unknown architecture `{s}`; expected megha, sparrow, central or ideal"))
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct ScaleOptions {
    pub archs: Vec<Arch>,
    /// Node count; default the trace's cluster.
    pub nodes: Option<usize>,
    /// Node size; default the trace's cluster (google/facebook: 32 GiB, 8 vcores).
    pub node_capacity: Option<Resources>,
    /// One-way network delay per message (µs): 500, the Sparrow simulator's
    /// default that Megha's evaluation kept (§V-B).
    pub net_delay_us: i64,
    pub megha: MeghaOptions,
    pub sparrow: SparrowOptions,
    pub central: CentralOptions,
    pub ideal: IdealOptions,
    pub seed: u64,
    /// Where the trace came from, for the report's header.
    pub source: String,
    /// Progress lines on stderr.
    pub progress: bool,
    /// Keep every task run in the report (tests; memory grows with tasks).
    pub keep_runs: bool,
}

impl Default for ScaleOptions {
    fn default() -> Self {
        ScaleOptions {
            archs: Arch::ALL.to_vec(),
            nodes: None,
            node_capacity: None,
            net_delay_us: 500,
            megha: MeghaOptions::default(),
            sparrow: SparrowOptions::default(),
            central: CentralOptions::default(),
            ideal: IdealOptions::default(),
            seed: 1,
            source: "trace".into(),
            progress: false,
            keep_runs: false,
        }
    }
}

/// Run every architecture of `opts.archs` on the trace.
pub fn run(trace: &Trace, opts: &ScaleOptions) -> Result<ScaleReport, String> {
    run_timed(trace, opts).map(|(report, _)| report)
}

/// As [`run`], plus each architecture's simulation wall time in seconds
/// (kept out of the report, which must not depend on the machine).
pub fn run_timed(trace: &Trace, opts: &ScaleOptions) -> Result<(ScaleReport, Vec<f64>), String> {
    let nodes = opts.nodes.or(trace.cluster.as_ref().map(|c| c.nodes as usize)).ok_or("the trace has no cluster: give the node count")?;
    let capacity =
        opts.node_capacity.or(trace.cluster.as_ref().map(ClusterSpec::capacity)).ok_or("the trace has no cluster: give the node size")?;
    validate(opts)?;
    let w = Workload::from_trace(trace, nodes, capacity)?;
    let cluster = ClusterSpec { nodes: nodes as u32, memory_mb: capacity.memory_mb(), vcores: capacity.vcores(), rack_size: 40 };
    let submits = || trace.jobs.iter().map(|j| j.submit_ms);
    let span_ms = submits().max().unwrap_or(0) - submits().min().unwrap_or(0);
    let summary = report::WorkloadSummary {
        source: opts.source.clone(),
        nodes,
        node_memory_mb: capacity.memory_mb(),
        node_vcores: capacity.vcores(),
        jobs: w.jobs.len(),
        tasks: w.task_count(),
        offered_load: crate::workload::gen::offered_load(&trace.jobs, &cluster),
        arrival_span_s: span_ms as f64 / 1000.0,
        user_queues: w.queue_names.len(),
    };
    let mut runs = Vec::new();
    let mut walls = Vec::new();
    for &arch in &opts.archs {
        let started = std::time::Instant::now();
        let (net, seed, keep, progress) = (opts.net_delay_us, opts.seed, opts.keep_runs, opts.progress);
        let r = match arch {
            Arch::Megha => megha::run(&w, &opts.megha, net, seed, keep, progress),
            Arch::Sparrow => sparrow::run(&w, &opts.sparrow, net, seed, keep, progress),
            Arch::Central => central::run(&w, &opts.central, net, seed, keep, progress),
            Arch::Ideal => ideal::run(&w, &opts.ideal, keep, progress),
        };
        walls.push(started.elapsed().as_secs_f64());
        runs.push(r);
    }
    Ok((ScaleReport { workload: summary, net_delay_us: opts.net_delay_us, seed: opts.seed, runs }, walls))
}

fn validate(o: &ScaleOptions) -> Result<(), String> {
    if o.archs.is_empty() {
        return Err("no architecture to run".into());
    }
    if o.net_delay_us < 0 {
        return Err(format!("net delay must be >= 0 µs, got {}", o.net_delay_us));
    }
    let m = &o.megha;
    if m.gms == 0 || m.lms == 0 {
        return Err(format!("megha needs at least one GM and one LM, got {} GMs and {} LMs", m.gms, m.lms));
    }
    if m.state_update_ms <= 0 {
        return Err(format!("state update period must be > 0 ms, got {}", m.state_update_ms));
    }
    if m.gm_batch == 0 {
        return Err("megha's GM batch must be >= 1 task (1 = the paper's one task per match), got 0".into());
    }
    let costs = [
        m.gm_match_us,
        m.gm_word_us,
        m.gm_message_us,
        m.gm_state_node_us,
        m.lm_us,
        m.gm_batch_task_us,
        o.sparrow.message_us,
        o.central.heartbeat_us,
        o.central.round_pass_us,
    ];
    if costs.iter().any(|c| !c.is_finite() || *c < 0.0) {
        return Err("service times must be finite and >= 0".into());
    }
    if o.sparrow.schedulers == 0 {
        return Err("sparrow needs at least one scheduler".into());
    }
    if !(o.sparrow.probe_ratio >= 1.0 && o.sparrow.probe_ratio.is_finite()) {
        return Err(format!("probe ratio must be >= 1, got {}", o.sparrow.probe_ratio));
    }
    if o.central.heartbeat_ms <= 0 {
        return Err(format!("heartbeat interval must be > 0 ms, got {}", o.central.heartbeat_ms));
    }
    if o.central.round_ms < 0 {
        return Err(format!("central rounds need an interval >= 0 ms (0 = none), got {} ms", o.central.round_ms));
    }
    Ok(())
}
