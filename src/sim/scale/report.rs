//! What a run measured: every allocation's latency (ask → the task holds
//! its resources on a node, Megha §III eq. 1) and framework queueing
//! (time spent waiting for a busy scheduling component, eq. 2), job
//! completion, utilization, the protocol counters, and an independent
//! ledger of what runs on every node that counts any moment a node holds
//! more than its capacity.
//!
//! Nothing here reads the wall clock: the same inputs give the same report.

use super::workload::{JobTracker, Workload};
use crate::model::Resources;
use serde::Serialize;
use std::collections::HashMap;

/// One run of one task on one node (kept only when asked for: tests).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RunRecord {
    pub task: u32,
    pub node: u32,
    pub ask_us: i64,
    pub start_us: i64,
    /// When it ended or was preempted (-1 if it never did).
    pub end_us: i64,
    pub preempted: bool,
}

/// Protocol events worth counting.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Counters {
    /// Megha: launch or repartition requests an LM rejected (stale view, §IV-B6).
    pub conflicts: u64,
    /// Megha: tasks launched on another GM's partition (§IV-B4).
    pub repartitions: u64,
    /// Megha: tasks preempted for fair share (§IV-C, Algorithm 2).
    pub preemptions: u64,
    /// Megha: preemption requests sent (some are refused by the LM).
    pub preemption_attempts: u64,
    /// Megha: match operations (Algorithm 1) run by the GMs.
    pub matches: u64,
    /// Sparrow: probes sent.
    pub probes: u64,
    /// Sparrow: get-task requests answered with "nothing left" (late binding's price).
    pub probe_cancels: u64,
    /// Central: heartbeats served.
    pub heartbeats: u64,
    /// Central: scheduling rounds between heartbeats that visited a node.
    pub rounds: u64,
    /// Central: out-of-band heartbeats served (included in `heartbeats`).
    pub oob_heartbeats: u64,
}

/// Load of one kind of scheduling component (e.g. the 10 GMs).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ServerLoad {
    pub component: String,
    pub count: usize,
    /// Busy time ÷ makespan, averaged over the components and the busiest one.
    pub mean_utilization: f64,
    pub max_utilization: f64,
}

/// Distribution summary in milliseconds.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Percentiles {
    pub p50: f64,
    pub p90: f64,
    pub p99: f64,
    pub p999: f64,
    pub max: f64,
    pub mean: f64,
}

impl Percentiles {
    /// Nearest-rank percentiles of microsecond samples, in ms.
    pub fn of_us(samples: &mut [i64]) -> Percentiles {
        if samples.is_empty() {
            return Percentiles::default();
        }
        samples.sort_unstable();
        let n = samples.len();
        // Integer arithmetic: the rank of P99.9 must not round up past its sample.
        let rank = |per_mille: usize| samples[(per_mille * n).div_ceil(1000).clamp(1, n) - 1] as f64 / 1000.0;
        let mean = samples.iter().map(|&v| v as f64).sum::<f64>() / n as f64 / 1000.0;
        Percentiles { p50: rank(500), p90: rank(900), p99: rank(990), p999: rank(999), max: rank(1000), mean }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ArchReport {
    pub arch: String,
    /// The architecture's parameters in a few words.
    pub setup: String,
    pub jobs: u64,
    pub jobs_finished: u64,
    pub tasks: u64,
    pub tasks_finished: u64,
    /// Allocations made (tasks + re-allocations of preempted tasks).
    pub allocations: u64,
    /// Set when the run was stopped because a scheduling component's queue
    /// grew without bound (simulated seconds at the stop).
    pub saturated_at_s: Option<f64>,
    /// Asked tasks still waiting at such a stop: counted in `latency_ms`
    /// with their wait so far, so the percentiles are lower bounds.
    pub censored: u64,
    /// Ask → allocation, every allocation.
    pub latency_ms: Percentiles,
    /// Framework queueing per allocation (waits at busy GMs/LMs/schedulers).
    pub queueing_ms: Percentiles,
    /// Ask → allocation by the size of the task's stage (tasks asked
    /// together): where a tail comes from, large stages draining or small
    /// ones waiting.
    pub latency_by_stage_size: Vec<StageSizeLatency>,
    pub mean_jct_s: f64,
    pub makespan_s: f64,
    /// Σ task run time × its dominant share of a node ÷ (nodes × makespan).
    pub mean_utilization: f64,
    /// The same over the arrival window [first, last submission] only: how
    /// loaded the cluster was while jobs kept coming (the drain after the
    /// last arrival dilutes `mean_utilization`).
    pub arrival_utilization: f64,
    pub counters: Counters,
    pub servers: Vec<ServerLoad>,
    /// Moments a node held more than its capacity (must be 0).
    pub capacity_violations: u64,
    /// Tasks not allocated exactly once per time they were asked (must be 0).
    pub allocation_mismatches: u64,
    pub events: u64,
    /// Every run of every task, when `ScaleOptions::keep_runs` (tests).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub runs: Vec<RunRecord>,
}

/// Ask → allocation of the tasks of stages of `min_tasks ..= max_tasks` tasks.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StageSizeLatency {
    pub min_tasks: u32,
    pub max_tasks: u32,
    pub allocations: u64,
    pub latency_ms: Percentiles,
}

/// Upper ends of the stage-size classes of `ArchReport::latency_by_stage_size`.
const STAGE_SIZE_CLASSES: [u32; 6] = [1, 10, 100, 1_000, 10_000, u32::MAX];

fn stage_size_class(tasks: u32) -> u8 {
    STAGE_SIZE_CLASSES.iter().position(|&max| tasks <= max).expect("the last class ends at u32::MAX") as u8
}

/// The ledger and the samples of one run.
pub struct Recorder {
    capacity: Resources,
    node_used: Vec<Resources>,
    capacity_violations: u64,
    ask_us: Vec<i64>,
    start_us: Vec<i64>,
    /// Per task: times allocated, times preempted.
    allocated: Vec<u16>,
    preempted: Vec<u16>,
    finished: Vec<bool>,
    latency_us: Vec<i64>,
    /// Per latency sample: the stage-size class of its task.
    latency_class: Vec<u8>,
    queueing_us: Vec<i64>,
    censored: u64,
    saturated_at_us: Option<i64>,
    node_busy_us: f64,
    /// [first, last submission] and node time busy inside it.
    arrivals: (i64, i64),
    arrival_busy_us: f64,
    keep_runs: bool,
    runs: Vec<RunRecord>,
    open_run: HashMap<u32, usize>,
    pub counters: Counters,
}

impl Recorder {
    pub fn new(w: &Workload, keep_runs: bool) -> Recorder {
        let n = w.task_count();
        Recorder {
            capacity: w.node_capacity,
            node_used: vec![Resources::ZERO; w.nodes],
            capacity_violations: 0,
            ask_us: vec![-1; n],
            start_us: vec![-1; n],
            allocated: vec![0; n],
            preempted: vec![0; n],
            finished: vec![false; n],
            latency_us: Vec::with_capacity(n),
            latency_class: Vec::with_capacity(n),
            queueing_us: Vec::with_capacity(n),
            censored: 0,
            saturated_at_us: None,
            node_busy_us: 0.0,
            arrivals: (w.jobs.first().map_or(0, |j| j.submit_us), w.jobs.last().map_or(0, |j| j.submit_us)),
            arrival_busy_us: 0.0,
            keep_runs,
            runs: Vec::new(),
            open_run: HashMap::new(),
            counters: Counters::default(),
        }
    }

    /// The task enters the framework's request queue (Task_Arrival_Time).
    pub fn ask(&mut self, task: u32, now_us: i64) {
        self.ask_us[task as usize] = now_us;
    }

    pub fn ask_stage(&mut self, w: &Workload, stage: u32, now_us: i64) {
        let s = &w.stages[stage as usize];
        self.ask_us[s.first_task as usize..(s.first_task + s.task_count) as usize].fill(now_us);
    }

    /// The task starts on `node` (Task_Start), having waited `queue_us` for
    /// busy scheduling components on its way.
    pub fn start(&mut self, w: &Workload, task: u32, node: u32, now_us: i64, queue_us: i64) {
        let t = task as usize;
        self.allocated[t] = self.allocated[t].saturating_add(1);
        self.latency_us.push(now_us - self.ask_us[t]);
        self.latency_class.push(class_of(w, task));
        self.queueing_us.push(queue_us);
        self.start_us[t] = now_us;
        let used = &mut self.node_used[node as usize];
        *used += w.task_demand(task);
        if !used.fits_in(&self.capacity) {
            self.capacity_violations += 1;
        }
        if self.keep_runs {
            self.open_run.insert(task, self.runs.len());
            self.runs.push(RunRecord { task, node, ask_us: self.ask_us[t], start_us: now_us, end_us: -1, preempted: false });
        }
    }

    /// The task's run ends on `node`: finished, or preempted (it will be asked again).
    pub fn stop(&mut self, w: &Workload, task: u32, node: u32, now_us: i64, preempted: bool) {
        let t = task as usize;
        let demand = w.task_demand(task);
        self.node_used[node as usize] -= demand;
        let share = demand.dominant_share(&self.capacity);
        let start = self.start_us[t];
        self.node_busy_us += (now_us - start) as f64 * share;
        let inside = now_us.min(self.arrivals.1) - start.max(self.arrivals.0);
        self.arrival_busy_us += inside.max(0) as f64 * share;
        if preempted {
            self.preempted[t] = self.preempted[t].saturating_add(1);
        } else {
            self.finished[t] = true;
        }
        if let Some(i) = self.open_run.remove(&task) {
            self.runs[i].end_us = now_us;
            self.runs[i].preempted = preempted;
        }
    }

    /// The run stops at `now_us` because it cannot keep up: every asked,
    /// unallocated task enters the latency samples with its wait so far.
    pub fn saturated(&mut self, w: &Workload, now_us: i64) {
        self.saturated_at_us = Some(now_us);
        for (t, &ask) in self.ask_us.iter().enumerate() {
            if ask >= 0 && self.allocated[t] == 0 {
                self.latency_us.push(now_us - ask);
                self.latency_class.push(class_of(w, t as u32));
                self.censored += 1;
            }
        }
    }

    /// The latency samples split by stage-size class (before they are sorted).
    fn by_stage_size(&self) -> Vec<StageSizeLatency> {
        let mut classes: Vec<Vec<i64>> = vec![Vec::new(); STAGE_SIZE_CLASSES.len()];
        for (&l, &c) in self.latency_us.iter().zip(&self.latency_class) {
            classes[c as usize].push(l);
        }
        classes
            .into_iter()
            .enumerate()
            .filter(|(_, v)| !v.is_empty())
            .map(|(c, mut v)| StageSizeLatency {
                min_tasks: if c == 0 { 1 } else { STAGE_SIZE_CLASSES[c - 1] + 1 },
                max_tasks: STAGE_SIZE_CLASSES[c],
                allocations: v.len() as u64,
                latency_ms: Percentiles::of_us(&mut v),
            })
            .collect()
    }

    /// Summarize the run. `servers`: (component, busy µs of each).
    pub fn report(
        mut self,
        arch: &str,
        setup: String,
        w: &Workload,
        jobs: &JobTracker,
        servers: Vec<(&str, Vec<i64>)>,
        events: u64,
    ) -> ArchReport {
        let first_submit = w.jobs.iter().map(|j| j.submit_us).min().unwrap_or(0);
        let last_finish = jobs.job_finish_us.iter().copied().max().unwrap_or(0);
        let makespan_us = (last_finish - first_submit).max(0);
        let finished_jcts: Vec<i64> =
            w.jobs.iter().zip(&jobs.job_finish_us).filter(|(_, &f)| f >= 0).map(|(j, &f)| f - j.submit_us).collect();
        let mean_jct_s = if finished_jcts.is_empty() {
            0.0
        } else {
            finished_jcts.iter().map(|&v| v as f64).sum::<f64>() / finished_jcts.len() as f64 / 1e6
        };
        let allocation_mismatches = self
            .allocated
            .iter()
            .zip(&self.preempted)
            .zip(&self.finished)
            // A saturated run stops with tasks unfinished: only the tasks
            // that finished must have been allocated once per ask.
            .filter(|((&a, &p), &f)| if f { a as u32 != 1 + p as u32 } else { self.saturated_at_us.is_none() })
            .count() as u64;
        let servers = servers
            .into_iter()
            .filter(|(_, busy)| !busy.is_empty())
            .map(|(name, busy)| {
                let util = |b: i64| if makespan_us > 0 { b as f64 / makespan_us as f64 } else { 0.0 };
                ServerLoad {
                    component: name.to_string(),
                    count: busy.len(),
                    mean_utilization: busy.iter().map(|&b| util(b)).sum::<f64>() / busy.len() as f64,
                    max_utilization: busy.iter().map(|&b| util(b)).fold(0.0, f64::max),
                }
            })
            .collect();
        ArchReport {
            arch: arch.to_string(),
            setup,
            jobs: w.jobs.len() as u64,
            jobs_finished: jobs.jobs_finished,
            tasks: w.task_count() as u64,
            tasks_finished: self.finished.iter().filter(|&&f| f).count() as u64,
            allocations: self.queueing_us.len() as u64,
            saturated_at_s: self.saturated_at_us.map(|t| t as f64 / 1e6),
            censored: self.censored,
            latency_by_stage_size: self.by_stage_size(),
            latency_ms: Percentiles::of_us(&mut self.latency_us),
            queueing_ms: Percentiles::of_us(&mut self.queueing_us),
            mean_jct_s,
            makespan_s: makespan_us as f64 / 1e6,
            mean_utilization: if makespan_us > 0 { self.node_busy_us / (w.nodes as f64 * makespan_us as f64) } else { 0.0 },
            arrival_utilization: {
                let span = self.arrivals.1 - self.arrivals.0;
                if span > 0 {
                    self.arrival_busy_us / (w.nodes as f64 * span as f64)
                } else {
                    0.0
                }
            },
            counters: self.counters,
            servers,
            capacity_violations: self.capacity_violations,
            allocation_mismatches,
            events,
            runs: self.runs,
        }
    }
}

fn class_of(w: &Workload, task: u32) -> u8 {
    stage_size_class(w.stages[w.task_stage[task as usize] as usize].task_count)
}

/// The workload as the reader needs it to judge the numbers.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct WorkloadSummary {
    pub source: String,
    pub nodes: usize,
    pub node_memory_mb: i64,
    pub node_vcores: i64,
    pub jobs: usize,
    pub tasks: usize,
    /// Σ task work (node-time, dominant share) ÷ (nodes × arrival span).
    pub offered_load: f64,
    pub arrival_span_s: f64,
    pub user_queues: usize,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ScaleReport {
    pub workload: WorkloadSummary,
    pub net_delay_us: i64,
    pub seed: u64,
    pub runs: Vec<ArchReport>,
}

impl ScaleReport {
    /// The printed table: one row per architecture, then the components' load.
    pub fn table(&self) -> String {
        let w = &self.workload;
        let mut s = format!(
            "workload: {} — {} jobs, {} tasks on {} nodes ({} MB, {} vcores each), {} user queues; \
             offered load {:.2} over {:.0} s of arrivals; one-way network delay {} µs\n\n",
            w.source,
            w.jobs,
            w.tasks,
            w.nodes,
            w.node_memory_mb,
            w.node_vcores,
            w.user_queues,
            w.offered_load,
            w.arrival_span_s,
            self.net_delay_us
        );
        s.push_str(&format!(
            "{:<8} {:<26} {:>9} {:>9} {:>9} {:>9} {:>9} {:>10} {:>9} {:>9} {:>8} {:>10} {:>9} {:>7} {:>7} {:>5} {:>8}\n",
            "arch",
            "setup",
            "tasks",
            "P50 ms",
            "P90 ms",
            "P99 ms",
            "P99.9 ms",
            "max ms",
            "queue P99",
            "queue avg",
            "JCT s",
            "makespan s",
            "conflicts",
            "repart",
            "preempt",
            "util",
            "util arr"
        ));
        for r in &self.runs {
            let l = &r.latency_ms;
            s.push_str(&format!(
                "{:<8} {:<26} {:>9} {:>9.2} {:>9.2} {:>9.2} {:>9.2} {:>10.2} {:>9.3} {:>9.3} {:>8.1} {:>10.1} {:>9} {:>7} {:>7} {:>5.2} {:>8.2}\n",
                if r.saturated_at_s.is_some() { format!("{}*", r.arch) } else { r.arch.clone() },
                r.setup,
                r.tasks,
                l.p50,
                l.p90,
                l.p99,
                l.p999,
                l.max,
                r.queueing_ms.p99,
                r.queueing_ms.mean,
                r.mean_jct_s,
                r.makespan_s,
                r.counters.conflicts,
                r.counters.repartitions,
                r.counters.preemptions,
                r.mean_utilization,
                r.arrival_utilization
            ));
        }
        s.push('\n');
        for r in &self.runs {
            let loads: Vec<String> = r
                .servers
                .iter()
                .map(|l| {
                    format!(
                        "{} × {} busy {:.2} % mean, {:.2} % max",
                        l.count,
                        l.component,
                        100.0 * l.mean_utilization,
                        100.0 * l.max_utilization
                    )
                })
                .collect();
            let c = &r.counters;
            let extra = match r.arch.as_str() {
                "megha" => format!("{} matches, {} preemption attempts", c.matches, c.preemption_attempts),
                "sparrow" => format!("{} probes, {} answered with cancel", c.probes, c.probe_cancels),
                "central" => {
                    let oob = match c.oob_heartbeats {
                        0 => String::new(),
                        n => format!(" ({n} out of band)"),
                    };
                    let rounds = match c.rounds {
                        0 => String::new(),
                        n => format!(", {n} rounds"),
                    };
                    format!("{} heartbeats served{oob}{rounds}", c.heartbeats)
                }
                _ => String::new(),
            };
            let events = format!("{} events", r.events);
            let what: Vec<String> = [loads.join(", "), extra, events].into_iter().filter(|p| !p.is_empty()).collect();
            s.push_str(&format!(
                "{}: {}; finished {}/{} jobs; capacity violations {}, allocation mismatches {}\n",
                r.arch,
                what.join("; "),
                r.jobs_finished,
                r.jobs,
                r.capacity_violations,
                r.allocation_mismatches
            ));
        }
        for r in &self.runs {
            let classes: Vec<String> = r
                .latency_by_stage_size
                .iter()
                .map(|c| {
                    let size = match (c.min_tasks, c.max_tasks) {
                        (lo, hi) if lo == hi => format!("{lo}"),
                        (lo, u32::MAX) => format!("> {}", lo - 1),
                        (lo, hi) => format!("{lo}–{hi}"),
                    };
                    format!("{size}: {} tasks, P50 {:.2} / P99 {:.2} ms", c.allocations, c.latency_ms.p50, c.latency_ms.p99)
                })
                .collect();
            s.push_str(&format!("{} by stage size (tasks): {}\n", r.arch, classes.join("; ")));
        }
        for r in self.runs.iter().filter(|r| r.saturated_at_s.is_some()) {
            s.push_str(&format!(
                "* {}: SATURATED — stopped at {:.0} s simulated: its scheduler's queue grew without bound ({}). \
                 {} asked tasks still waiting are counted with their wait so far, so its latency percentiles are \
                 lower bounds; JCT, makespan and utilization cover what finished before the stop ({}/{} tasks).\n",
                r.arch,
                r.saturated_at_s.unwrap_or(0.0),
                r.setup,
                r.censored,
                r.tasks_finished,
                r.tasks
            ));
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stage_size_classes_cover_every_size_once() {
        let classes: Vec<u8> = [1, 2, 10, 11, 100, 101, 1_000, 1_001, 10_000, 10_001, u32::MAX].map(stage_size_class).to_vec();
        assert_eq!(classes, vec![0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5]);
    }

    #[test]
    fn nearest_rank_percentiles() {
        let mut v: Vec<i64> = (1..=1000).map(|i| i * 1000).collect();
        let p = Percentiles::of_us(&mut v);
        assert_eq!((p.p50, p.p90, p.p99, p.p999, p.max), (500.0, 900.0, 990.0, 999.0, 1000.0));
        assert_eq!(p.mean, 500.5);
        assert_eq!(Percentiles::of_us(&mut []), Percentiles::default());
    }
}
