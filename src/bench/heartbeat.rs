//! Decision time per node heartbeat: a cluster of `nodes` NodeManagers with
//! `pending` outstanding container asks spread over `apps` applications. Each
//! heartbeat finishes the containers on one node (as a real NM heartbeat
//! reports completions) and asks the engine to fill it again, through
//! `Session::step` — the exact path a JNI crossing takes, minus the JVM copy.
//! With `report_only` it times heartbeats that only report (rounds do the
//! allocating), and refills the node untimed.

use super::busy_cluster::{percentile, BusyCluster};
use crate::bridge::session::Session;
use crate::bridge::wire::EventWriter;
use crate::engine::Event;
use std::time::Instant;

pub struct HeartbeatBench {
    pub nodes: u32,
    pub apps: u32,
    pub pending: u32,
    /// Of the apps, how many are small (`busy_cluster`).
    pub small_apps: u32,
    pub heartbeats: u32,
    pub policy: String,
    /// Config text (TOML); its `scheduler.policy` is replaced by `policy`.
    pub config: String,
    /// Time heartbeats that only report (the shim's
    /// `async-scheduling.heartbeats-allocate = false`: the engine applies
    /// the node's completions and runs no pass); a round-like pass on the
    /// node, not timed, refills it after each.
    pub report_only: bool,
}

pub struct HeartbeatReport {
    /// Wall-clock time of each timed heartbeat.
    pub samples_ns: Vec<u64>,
    /// CPU time the benchmark's thread spent in each (what the heartbeat
    /// costs, without the time other processes took the core: on a shared
    /// machine the wall-clock tail is mostly preemption).
    pub cpu_ns: Vec<u64>,
    pub allocations: u64,
    /// How many of the apps were small (`small_apps`, at most `apps` − 1).
    pub small_apps: u32,
}

impl HeartbeatReport {
    pub fn percentile(&self, p: f64) -> f64 {
        percentile(&self.samples_ns, p)
    }

    pub fn cpu_percentile(&self, p: f64) -> f64 {
        percentile(&self.cpu_ns, p)
    }
}

/// The calling thread's CPU time, ns.
fn thread_cpu_ns() -> u64 {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: `ts` is a valid, writable timespec; the clock id is a constant.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    if rc != 0 {
        return 0;
    }
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

impl HeartbeatBench {
    pub fn run(&self) -> HeartbeatReport {
        let mut parsed = crate::config::Config::parse(&self.config).expect("config");
        parsed.scheduler.policy = self.policy.clone();
        let mut s = Session::with_config(parsed, vec!["memory-mb".into(), "vcores".into()]).expect("config");
        let cluster = BusyCluster { nodes: self.nodes, apps: self.apps, pending: self.pending, small_apps: self.small_apps };
        let mut w = EventWriter::default();
        for e in cluster.setup() {
            w.event(&e, 2);
        }
        s.step(&w.buf, 0, None).expect("setup batch");
        // Fill the cluster once.
        let mut on_node: Vec<Vec<u64>> = vec![Vec::new(); self.nodes as usize];
        for n in 0..self.nodes {
            let out = s.step(&[], 0, Some(n)).expect("fill").to_vec();
            collect(&out, &mut on_node);
        }
        // Measured heartbeats: node n reports its containers finished and
        // gets new ones. Top the asks up so `pending` stays constant.
        let mut samples = Vec::with_capacity(self.heartbeats as usize);
        let mut cpu = Vec::with_capacity(self.heartbeats as usize);
        let mut allocations = 0u64;
        for i in 0..self.heartbeats {
            let n = i % self.nodes;
            let mut w = EventWriter::default();
            let finished = std::mem::take(&mut on_node[n as usize]);
            for c in &finished {
                w.event(&Event::ContainerFinished { container: *c, exit_status: 0, at_ms: i as i64 }, 2);
            }
            let (t, c) = (Instant::now(), thread_cpu_ns());
            let mut out = s.step(&w.buf, i as i64, (!self.report_only).then_some(n)).expect("heartbeat").to_vec();
            cpu.push(thread_cpu_ns().saturating_sub(c));
            samples.push(t.elapsed().as_nanos() as u64);
            if self.report_only {
                out = s.step(&[], i as i64, Some(n)).expect("refill").to_vec();
            }
            allocations += collect(&out, &mut on_node) as u64;
            // Replace what ran with new demand from the same apps (not timed).
            let mut w = EventWriter::default();
            for e in cluster.top_up(s.engine().state()) {
                w.event(&e, 2);
            }
            if !w.buf.is_empty() {
                s.step(&w.buf, i as i64, None).expect("top-up");
            }
        }
        HeartbeatReport { samples_ns: samples, cpu_ns: cpu, allocations, small_apps: cluster.small() }
    }
}

/// Record allocations from an encoded decision array per node.
fn collect(out: &[i64], on_node: &mut [Vec<u64>]) -> usize {
    let mut i = 1;
    let mut n = 0;
    for _ in 0..out[0] {
        if out[i] == crate::bridge::wire::DECISION_ALLOCATE {
            let container = out[i + 1] as u64;
            let node = out[i + 3] as usize;
            on_node[node].push(container);
            n += 1;
            i += 8 + 2;
        } else {
            i += 2;
        }
    }
    n
}
