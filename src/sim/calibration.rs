//! What a real YARN cluster adds around the scheduler's decisions, as the
//! simulator models it: ApplicationMaster containers, and the times between
//! an allocation and useful work. Each time is an empirical distribution
//! measured on real runs (`shepherd calibrate` fits them from the engine's
//! activity log of the comparison harness; see docs/simulator.md, "Simulator
//! fidelity").
//!
//! A job's life in the simulator, with these times:
//!
//! ```text
//!  submit ─ am_ask ─► AM ask ══ scheduler ══► AM allocated ─ am_launch ─► RUNNING ─ am_startup ─► first task asks
//!  task allocated ─ task_launch ─► RUNNING, work starts ─ duration + task_overhead ─► container finished
//!  last task finished ─ am_exit ─► AM container finished, job done
//! ```

use crate::workload::rng::Rng;
use serde::{Deserialize, Serialize};

/// An empirical distribution: quantiles at evenly spaced probabilities
/// (`q[0]` the minimum, `q[n−1]` the maximum), drawn by inverse transform
/// with linear interpolation. Empty = always 0.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Dist(pub Vec<f64>);

impl Dist {
    /// Quantiles of `samples` at `points` evenly spaced probabilities.
    pub fn of(samples: &[f64], points: usize) -> Dist {
        let mut v: Vec<f64> = samples.iter().copied().filter(|x| x.is_finite()).collect();
        if v.is_empty() {
            return Dist::default();
        }
        v.sort_by(f64::total_cmp);
        let n = points.max(2);
        Dist((0..n).map(|i| crate::metrics::stats::percentile(&v, 100.0 * i as f64 / (n - 1) as f64)).collect())
    }

    pub fn constant(v: f64) -> Dist {
        Dist(vec![v, v])
    }

    pub fn draw(&self, rng: &mut Rng) -> f64 {
        match self.0.len() {
            0 => 0.0,
            1 => self.0[0],
            n => {
                let x = rng.unit() * (n - 1) as f64;
                let i = (x.floor() as usize).min(n - 2);
                let f = x - i as f64;
                self.0[i] + f * (self.0[i + 1] - self.0[i])
            }
        }
        .max(0.0)
    }

    pub fn median(&self) -> f64 {
        crate::metrics::stats::median_sorted(&self.0).unwrap_or(0.0)
    }

    pub fn is_zero(&self) -> bool {
        self.0.iter().all(|v| *v == 0.0)
    }
}

/// The cluster-side times, all in ms, and the ApplicationMaster's size.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Calibration {
    /// Where and how it was measured.
    pub source: String,
    /// The ApplicationMaster container of a job that names none
    /// (MapReduce's `yarn.app.mapreduce.am.resource.*`).
    pub am_memory_mb: i64,
    pub am_vcores: i64,
    /// Submission → the RM asks for the AM container.
    pub am_ask_ms: Dist,
    /// AM container allocated → RUNNING.
    pub am_launch_ms: Dist,
    /// AM RUNNING → its first task asks.
    pub am_startup_ms: Dist,
    /// Task container allocated → RUNNING (work starts).
    pub task_launch_ms: Dist,
    /// Task container RUNNING → finished, beyond the task's own duration
    /// (JVM start, task set-up, tear-down).
    pub task_overhead_ms: Dist,
    /// Last task finished → job done (the AM commits, unregisters, exits).
    pub am_exit_ms: Dist,
    /// Each NodeManager's heartbeat offset within the interval, as a
    /// fraction of it; empty = every node on the same grid.
    pub heartbeat_phase: Dist,
    /// All NodeManagers share one machine's CPUs (the local cluster the
    /// harness runs): AM start-up and task overhead then slow down with the
    /// number of containers running. `None`: separate machines, the times
    /// are drawn as measured on an idle host.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shared_host: Option<SharedHost>,
}

/// CPU contention of NodeManagers on one host. A JVM's start-up is CPU
/// work; a host that runs k of them at full speed runs n > k at about k / n
/// of that speed each (processor sharing). Two ways to apply it:
/// [`HostModel::Snapshot`] stretches a start-up drawn from the idle-host
/// distribution by max(1, n / k), n = the containers running when it
/// begins, fixed from then on; [`HostModel::ProcessorSharing`] counts the
/// start-ups in progress as load, plus each other running container at
/// weight w (`background_weight`; 0 = only start-ups load the host), and
/// re-times every start-up whenever the load changes (`crate::sim::host`).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SharedHost {
    /// k: containers (snapshot) or start-ups (processor sharing) the host
    /// runs at full speed.
    pub containers_at_full_speed: f64,
    #[serde(default, skip_serializing_if = "HostModel::is_snapshot")]
    pub model: HostModel,
    /// w (processor sharing only): the CPU load of a running container that
    /// is not starting up (a sleeping task, an AM between its asks, a task
    /// waiting for its shuffle), as a fraction of a start-up's. 0 (the
    /// default, and every calibration written before it existed): such a
    /// container costs nothing.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub background_weight: f64,
}

/// The weights w `shepherd calibrate --host-model processor-sharing` tries
/// for a running container's load (0: none, 1: as much as a start-up).
pub const BACKGROUND_WEIGHTS: &[f64] = &[0.0, 0.02, 0.05, 0.1, 0.15, 0.2, 0.3, 0.5, 0.75, 1.0];

fn is_zero(w: &f64) -> bool {
    *w == 0.0
}

/// How a shared host's contention is applied (see [`SharedHost`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum HostModel {
    /// Slow down by the containers running when the start-up begins.
    #[default]
    Snapshot,
    /// Processor sharing among the start-ups in progress, re-timed.
    ProcessorSharing,
}

impl HostModel {
    pub fn is_snapshot(&self) -> bool {
        *self == HostModel::Snapshot
    }

    pub fn parse(s: &str) -> Result<HostModel, String> {
        match s {
            "snapshot" => Ok(HostModel::Snapshot),
            "processor-sharing" => Ok(HostModel::ProcessorSharing),
            other => Err(format!("unknown host model `{other}`; expected snapshot or processor-sharing")),
        }
    }
}

/// The load a start-up saw on a shared host (measured from a real run's
/// activity log): the containers running when it began (what the snapshot
/// model reads) and, over its time, the start-ups in progress (count
/// including itself) and the containers running (start-ups included), as
/// steps (ms from its beginning, start-ups, containers; what processor
/// sharing reads). Past the last step the last counts hold.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct StartLoad {
    pub running_at_start: usize,
    pub busy: Vec<(f64, usize, usize)>,
}

impl StartLoad {
    /// The start-ups in progress `dt` ms after the beginning (at least 1)
    /// and the other containers running then.
    fn busy_at(&self, dt: f64) -> (usize, usize) {
        self.busy.iter().take_while(|(t, _, _)| *t <= dt).last().map_or((1, 0), |&(_, n, c)| (n.max(1), c.saturating_sub(n.max(1))))
    }

    /// The most start-ups and containers seen at once.
    fn peak(&self) -> usize {
        self.busy.iter().map(|&(_, n, c)| n.max(c)).max().unwrap_or(1)
    }
}

impl SharedHost {
    /// The snapshot slowdown with `running` containers on the host.
    pub fn slowdown(&self, running: usize) -> f64 {
        (running as f64 / self.containers_at_full_speed).max(1.0)
    }

    /// Idle-host work of a start-up that took `duration_ms` under `load`.
    pub fn work_of(&self, duration_ms: f64, load: &StartLoad) -> f64 {
        match self.model {
            HostModel::Snapshot => duration_ms / self.slowdown(load.running_at_start),
            HostModel::ProcessorSharing => self.work_done(load, duration_ms),
        }
    }

    /// Processor sharing's rate of a start-up `dt` ms into `load`:
    /// min(1, k / (n + w·m)).
    fn rate_at(&self, load: &StartLoad, dt: f64) -> f64 {
        let (n, m) = load.busy_at(dt);
        crate::sim::host::SharedCpu::rate(self.containers_at_full_speed, n as f64 + self.background_weight * m as f64)
    }

    /// How long `work_ms` of idle-host start-up work takes under `load`.
    pub fn duration_of(&self, work_ms: f64, load: &StartLoad) -> f64 {
        match self.model {
            HostModel::Snapshot => work_ms * self.slowdown(load.running_at_start),
            HostModel::ProcessorSharing => {
                let (mut t, mut done) = (0.0, 0.0);
                let mut steps = load.busy.iter().map(|(at, _, _)| *at).filter(|at| *at > 0.0).peekable();
                loop {
                    let rate = self.rate_at(load, t);
                    let end = steps.next().unwrap_or(f64::INFINITY);
                    let can = (end - t) * rate;
                    if done + can >= work_ms {
                        return t + (work_ms - done) / rate;
                    }
                    done += can;
                    t = end;
                }
            }
        }
    }

    /// ∫₀^d rate dt over the load's steps: the work a start-up of
    /// duration `d` did under processor sharing.
    fn work_done(&self, load: &StartLoad, d: f64) -> f64 {
        let mut points: Vec<f64> = load.busy.iter().map(|(at, _, _)| *at).filter(|at| *at > 0.0 && *at < d).collect();
        points.push(d);
        let (mut t, mut work) = (0.0, 0.0);
        for end in points {
            work += (end - t) * self.rate_at(load, t);
            t = end;
        }
        work
    }

    /// Fit k to measured (load, duration) samples of start-up work, in
    /// groups of one kind each (AM start-ups, task overheads): the k for
    /// which the implied idle-host works vary least around their group's
    /// mean (pooled variance of their logarithm), among k = 0.5, 1, 1.5, …
    /// up to the largest load seen. `None` when no k explains the spread
    /// clearly better than no contention at all. w stays 0;
    /// [`SharedHost::fit_weights`] fits it with k.
    pub fn fit(groups: &[&[(StartLoad, f64)]], model: HostModel) -> Option<SharedHost> {
        Self::fit_weights(groups, model, &[0.0])
    }

    /// [`SharedHost::fit`] with w chosen from `weights` together with k
    /// (processor sharing; the snapshot model has no w).
    pub fn fit_weights(groups: &[&[(StartLoad, f64)]], model: HostModel, weights: &[f64]) -> Option<SharedHost> {
        let groups: Vec<Vec<&(StartLoad, f64)>> = groups
            .iter()
            .map(|g| g.iter().filter(|(_, d)| d.is_finite() && *d > 0.0).collect::<Vec<_>>())
            .filter(|g| g.len() >= 3)
            .collect();
        let max_n = groups
            .iter()
            .flatten()
            .map(|(l, _)| match model {
                HostModel::Snapshot => l.running_at_start,
                HostModel::ProcessorSharing => l.peak(),
            })
            .max()?;
        let weights: &[f64] = if model == HostModel::ProcessorSharing { weights } else { &[0.0] };
        let spread = |h: Option<SharedHost>| {
            let (mut sum, mut count) = (0.0, 0usize);
            for g in &groups {
                let logs: Vec<f64> = g.iter().map(|(l, d)| h.map_or(*d, |h| h.work_of(*d, l)).max(1e-9).ln()).collect();
                let mean = logs.iter().sum::<f64>() / logs.len() as f64;
                sum += logs.iter().map(|l| (l - mean).powi(2)).sum::<f64>();
                count += logs.len();
            }
            sum / count as f64
        };
        let none = spread(None);
        let mut best = (f64::INFINITY, None);
        for &w in weights {
            let mut k = 0.5;
            while k < max_n as f64 {
                let h = Some(SharedHost { containers_at_full_speed: k, model, background_weight: w });
                let v = spread(h);
                if v < best.0 {
                    best = (v, h);
                }
                k += 0.5;
            }
        }
        // Contention must explain a real part of the spread (a fifth of the
        // variance), not the noise of one or two samples.
        if best.0 < 0.8 * none {
            best.1
        } else {
            None
        }
    }
}

impl Calibration {
    /// No cluster-side times and no AMs' own delays: an AM container is
    /// still placed and held (its size as MapReduce's default).
    pub fn instant() -> Calibration {
        Calibration {
            source: "none: every cluster-side time is 0".into(),
            am_memory_mb: 1536,
            am_vcores: 1,
            am_ask_ms: Dist::default(),
            am_launch_ms: Dist::default(),
            am_startup_ms: Dist::default(),
            task_launch_ms: Dist::default(),
            task_overhead_ms: Dist::default(),
            am_exit_ms: Dist::default(),
            heartbeat_phase: Dist::default(),
            shared_host: None,
        }
    }

    /// The simulator's default: the times measured on this project's local
    /// YARN cluster (`examples/calibration/local.json`) as they are on an
    /// idle host, without its shared-host contention — a simulated cluster
    /// is one of separate machines.
    pub fn measured() -> Calibration {
        Calibration { shared_host: None, ..Calibration::local_host() }
    }

    /// `examples/calibration/local.json` as fitted, with the contention of
    /// its NodeManagers sharing one 2-core machine (what the comparison
    /// harness runs; `--calibration examples/calibration/local.json`).
    pub fn local_host() -> Calibration {
        serde_json::from_str(include_str!("../../examples/calibration/local.json")).expect("shipped calibration parses")
    }

    pub fn load(path: &std::path::Path) -> Result<Calibration, String> {
        let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
        serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Durations of 4 s on an idle host, on a host that runs 2 containers
    /// at full speed: the fit finds k = 2; without contention in the data
    /// it finds none.
    #[test]
    fn shared_host_fit_recovers_the_contention() {
        let truth = SharedHost { containers_at_full_speed: 2.0, model: HostModel::Snapshot, background_weight: 0.0 };
        let at = |n: usize| StartLoad { running_at_start: n, busy: vec![(0.0, n, n)] };
        let contended: Vec<(StartLoad, f64)> =
            (1..=30).map(|n| (at(n), 4000.0 * truth.slowdown(n) * if n % 2 == 0 { 1.1 } else { 0.9 })).collect();
        let fitted = SharedHost::fit(&[&contended], HostModel::Snapshot).expect("contention found");
        assert_eq!(fitted.containers_at_full_speed, 2.0);
        let flat: Vec<(StartLoad, f64)> = (1..=30).map(|n| (at(n), if n % 2 == 0 { 4400.0 } else { 3600.0 })).collect();
        assert_eq!(SharedHost::fit(&[&flat], HostModel::Snapshot), None);
    }

    /// Processor sharing: 4 s of work under a load that changes during it.
    /// With k = 2, 2 start-ups for the first 2 s (full speed: 2 s of work
    /// done), then 4 (half speed: the other 2 s of work take 4 s): 6 s in
    /// all; the fit recovers k from such samples, and work and duration
    /// are each other's inverse.
    #[test]
    fn processor_sharing_integrates_the_changing_load() {
        let h = SharedHost { containers_at_full_speed: 2.0, model: HostModel::ProcessorSharing, background_weight: 0.0 };
        let load = StartLoad { running_at_start: 9, busy: vec![(0.0, 2, 9), (2000.0, 4, 9)] };
        assert_eq!(h.duration_of(4000.0, &load), 6000.0);
        assert_eq!(h.work_of(6000.0, &load), 4000.0);
        // Loads from idle to heavy, work within ±2 % of 4 s.
        let samples: Vec<(StartLoad, f64)> = (1..=20)
            .map(|n| {
                let l = StartLoad { running_at_start: 0, busy: vec![(0.0, n, n), (1000.0, n + 3, n + 3)] };
                let d = h.duration_of(4000.0 * (1.0 + 0.02 * (n as f64 * 2.7).sin()), &l);
                (l, d)
            })
            .collect();
        let fitted = SharedHost::fit(&[&samples], HostModel::ProcessorSharing).expect("contention found");
        assert_eq!(fitted.containers_at_full_speed, 2.0);
    }

    /// Processor sharing with running containers as background load: k = 2,
    /// w = 0.25; one start-up beside 8 running containers (load 1 + 0.25·8
    /// = 3) runs at 2/3 speed, 4 s of work take 6 s. Samples whose start-ups
    /// are few but whose running containers vary are explained only by
    /// w > 0: the joint fit finds (2, 0.25), the start-ups-only fit does
    /// not explain them as well.
    #[test]
    fn processor_sharing_fits_the_weight_of_running_containers() {
        let h = SharedHost { containers_at_full_speed: 2.0, model: HostModel::ProcessorSharing, background_weight: 0.25 };
        let load = StartLoad { running_at_start: 9, busy: vec![(0.0, 1, 9)] };
        assert!((h.duration_of(4000.0, &load) - 6000.0).abs() < 1e-6);
        assert!((h.work_of(6000.0, &load) - 4000.0).abs() < 1e-6);
        let samples: Vec<(StartLoad, f64)> = (0..24)
            .map(|i| {
                let (n, c) = (1 + i % 3, 4 + 2 * i);
                let l = StartLoad { running_at_start: c, busy: vec![(0.0, n, c)] };
                let d = h.duration_of(4000.0 * (1.0 + 0.02 * (i as f64 * 2.7).sin()), &l);
                (l, d)
            })
            .collect();
        let weights = [0.0, 0.1, 0.25, 0.5];
        let fitted = SharedHost::fit_weights(&[&samples], HostModel::ProcessorSharing, &weights).expect("contention found");
        assert_eq!((fitted.containers_at_full_speed, fitted.background_weight), (2.0, 0.25));
        let without = SharedHost::fit(&[&samples], HostModel::ProcessorSharing);
        assert_ne!(without.map(|h| h.containers_at_full_speed), Some(2.0));
    }

    #[test]
    fn quantiles_draw_within_range_and_reproduce_the_median() {
        let samples: Vec<f64> = (1..=101).map(|i| i as f64 * 10.0).collect();
        let d = Dist::of(&samples, 11);
        assert_eq!(d.0.first(), Some(&10.0));
        assert_eq!(d.0.last(), Some(&1010.0));
        assert_eq!(d.median(), 510.0);
        let mut rng = Rng::seeded(3);
        let mut draws: Vec<f64> = (0..2001).map(|_| d.draw(&mut rng)).collect();
        draws.sort_by(f64::total_cmp);
        assert!(draws.iter().all(|x| (10.0..=1010.0).contains(x)));
        assert!((draws[1000] - 510.0).abs() < 40.0, "median of draws {}", draws[1000]);
        assert_eq!(Dist::default().draw(&mut rng), 0.0);
        assert_eq!(Dist::constant(7.0).draw(&mut rng), 7.0);
    }

    #[test]
    fn shipped_calibration_parses() {
        let c = Calibration::measured();
        assert!(c.am_memory_mb > 0 && !c.source.is_empty());
    }
}
