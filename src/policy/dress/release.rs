//! Release-pattern estimation (DRESS §III-B and §IV-A/B): per-application
//! phase detection from container start and finish events, and the release
//! functions built on it.
//!
//! * Algorithm 1 (starting variation) finds where a phase starts (ps_f) and
//!   where its last task started (ps_l): Δps = ps_l − ps_f.
//! * Algorithm 2 (start of release) finds γ, the earliest finish time of a
//!   phase, filtering heading tasks with the threshold t_e, and moves
//!   trailing tasks into the next phase (§III-A2/3).
//! * Equation 9 (`eq9_release`) is a phase's release ramp, Equation 5
//!   (`JobRelease::f`) a job's release, and Equation 1 is summed per category
//!   by the policy (`super::Dress`).
//!
//! Quantities of containers are kept in "units" chosen by the caller (the
//! policy uses the dominant share of each container, see `classify.rs`; the
//! tests use 1.0 per container so numbers read as container counts).
//!
//! Readings of the pseudo-code (all documented in `docs/policies/dress.md`):
//! * Algorithm 1's window test counts task *starts* inside the window. The
//!   paper writes RT(t) = |R_Ji| (running tasks), but Algorithm 2 removes
//!   finished tasks from R_Ji, so a running count also moves when a phase's
//!   first tasks finish and line 14's "no change within the window" would
//!   fire late or never. The starting variation is about starts.
//! * ps_f (line 13) is the earliest start among the tasks not yet in a phase
//!   that started inside the triggering window (a heading task that already
//!   finished included), so an ApplicationMaster or a lone earlier task does
//!   not stretch Δps.
//! * γ (Algorithm 2 line 10) is the earliest finish among the completions
//!   inside the triggering window, which is what lets t_e filter heading
//!   tasks: a heading task finished long before the burst of completions.
//! * Trailing tasks (line 12) join the next phase of the job; when it does
//!   not exist yet they wait and join it when Algorithm 1 opens it.

use serde::Serialize;
use std::collections::BTreeMap;

/// The thresholds of Algorithms 1 and 2.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PhaseParams {
    /// t_s: a phase starts when more than t_s tasks start within the window.
    pub t_s: u32,
    /// t_e: a phase starts releasing when more than t_e tasks finish within
    /// the window.
    pub t_e: u32,
    /// pw, the phase window, ms.
    pub window_ms: i64,
}

impl Default for PhaseParams {
    /// The paper's §V-A1 values: t_s = t_e = 5, pw = 10 s.
    fn default() -> Self {
        PhaseParams { t_s: 5, t_e: 5, window_ms: 10_000 }
    }
}

/// One phase p_j of a job, as Algorithms 1 and 2 detect it.
#[derive(Debug, Clone, Serialize)]
pub struct Phase {
    pub index: usize,
    /// ps_jf: start of the phase's first task.
    pub first_start_ms: i64,
    /// ps_jl: start of the phase's last task (provisional while `closed` is
    /// false).
    pub last_start_ms: i64,
    /// Algorithm 1 lines 14–17 fired: Δps is final.
    pub closed: bool,
    /// γ_pj, the start of release (Algorithm 2 line 10).
    pub gamma_ms: Option<i64>,
    /// E_pj (Algorithm 2 line 9).
    pub ended: bool,
    /// c_pj: containers of the phase, including trailing tasks moved in.
    pub containers: u32,
    /// c_pj in the caller's units.
    pub units: f64,
    /// Trailing tasks moved in from the previous phase (Algorithm 2 line 12).
    pub trailing_in: u32,
    /// Trailing tasks moved out to the next phase.
    pub trailing_out: u32,
    /// Units released so far by finished tasks of the phase.
    pub released_units: f64,
    /// Completed tasks of the phase (|CT_pj|).
    pub completed: u32,
    /// CT_pj's finish times within the last window (older ones pruned).
    #[serde(skip)]
    finishes: Vec<i64>,
    /// R_pj: running tasks of the phase.
    #[serde(skip)]
    /// (its units: what it releases when it finishes, kept here so Eq. 9's
    /// cap sums without looking each task up).
    running: BTreeMap<u64, f64>,
}

impl Phase {
    /// Δps_j = ps_jl − ps_jf (Algorithm 1 line 16).
    pub fn delta_ps_ms(&self) -> i64 {
        self.last_start_ms - self.first_start_ms
    }

    pub fn running_count(&self) -> usize {
        self.running.len()
    }

    pub fn completed_count(&self) -> usize {
        self.completed as usize
    }

    /// Nothing can change any more: γ is known and no task runs (trailing
    /// tasks moved in would make it live again).
    fn settled(&self) -> bool {
        self.gamma_ms.is_some() && self.running.is_empty()
    }
}

#[derive(Debug, Clone)]
struct Task {
    start_ms: i64,
    units: f64,
    phase: Option<usize>,
    /// Finish time once completed.
    finished: Option<i64>,
}

/// Equation 9: containers released by phase p_j by time `t`, a linear ramp
/// from γ over Δps to c_pj, and 0 outside [γ, γ + Δps] as the paper writes
/// it (before γ nothing has been released; after γ + Δps the phase's
/// containers are counted in A_c, and what still runs is a trailing task
/// Algorithm 2 moves to the next phase). With Δps = 0 (every task started
/// at once) the ramp is a step: all c_pj at γ.
pub fn eq9_release(t_ms: i64, gamma_ms: i64, delta_ps_ms: i64, c: f64) -> f64 {
    if t_ms < gamma_ms {
        return 0.0;
    }
    if delta_ps_ms <= 0 {
        return if t_ms == gamma_ms { c } else { 0.0 };
    }
    if t_ms <= gamma_ms + delta_ps_ms {
        (t_ms - gamma_ms) as f64 / delta_ps_ms as f64 * c
    } else {
        0.0
    }
}

/// Per-job state of Algorithms 1 and 2 and the job's release function f_i.
#[derive(Debug, Clone, Default)]
pub struct JobRelease {
    /// α_i: start of the job's first task (Algorithm 1 line 10).
    pub alpha_ms: Option<i64>,
    /// β_i: the job had no running task left (Algorithm 2 line 14); cleared
    /// when a task starts again.
    pub beta_ms: Option<i64>,
    tasks: BTreeMap<u64, Task>,
    /// |R_Ji|: tasks started and not finished.
    running: usize,
    /// Finished tasks still in `tasks`: the only ones `tick` may drop.
    finished: Vec<u64>,
    /// Start times of all tasks, for the window count of Algorithm 1.
    starts: Vec<i64>,
    /// `starts` is in time order (as events arrive in a run), so the
    /// window count is two binary searches instead of a scan.
    starts_unsorted: bool,
    /// The phase Algorithm 1 has opened and not closed (S_pj = true).
    open: Option<usize>,
    pub phases: Vec<Phase>,
    /// Trailing tasks waiting for the job's next phase.
    carry: Vec<u64>,
    /// Latest task start or finish: once the window has moved past it, one
    /// tick brings the job to a fixed point that only a new start or finish
    /// can leave, so later ticks are skipped (same result, less work).
    last_event_ms: i64,
    at_fixed_point: bool,
}

impl JobRelease {
    /// |R_Ji|: the job's running tasks (Algorithms 1–2).
    pub fn running_tasks(&self) -> usize {
        self.running
    }

    /// Algorithm 1 lines 4–10: task `id` entered RUNNING at `at_ms`.
    pub fn on_start(&mut self, id: u64, at_ms: i64, units: f64, p: &PhaseParams) {
        if self.tasks.contains_key(&id) {
            return;
        }
        self.alpha_ms.get_or_insert(at_ms);
        self.beta_ms = None;
        self.touch(at_ms);
        self.starts_unsorted |= self.starts.last().is_some_and(|l| *l > at_ms);
        self.starts.push(at_ms);
        self.running += 1;
        self.tasks.insert(id, Task { start_ms: at_ms, units, phase: None, finished: None });
        if let Some(j) = self.open {
            self.join(id, j);
            let ph = &mut self.phases[j];
            ph.last_start_ms = ph.last_start_ms.max(at_ms);
        }
        self.algorithm1(at_ms, p);
    }

    fn touch(&mut self, at_ms: i64) {
        self.last_event_ms = self.last_event_ms.max(at_ms);
        self.at_fixed_point = false;
    }

    /// Algorithm 2 lines 4–7: task `id` completed at `at_ms`.
    pub fn on_finish(&mut self, id: u64, at_ms: i64, p: &PhaseParams) {
        if self.tasks.get(&id).is_none_or(|t| t.finished.is_some()) {
            return;
        }
        self.touch(at_ms);
        let task = self.tasks.get_mut(&id).expect("checked");
        task.finished = Some(at_ms);
        self.running -= 1;
        self.finished.push(id);
        if let Some(j) = task.phase {
            let ph = &mut self.phases[j];
            ph.running.remove(&id);
            ph.finishes.push(at_ms);
            ph.completed += 1;
            ph.released_units += task.units;
        }
        self.carry.retain(|c| *c != id);
        self.algorithm2(at_ms, p);
    }

    /// Re-evaluate the window conditions at `now_ms` (once per scheduling
    /// interval): the "nothing changed within the window" branches of
    /// Algorithm 1 (line 14) and Algorithm 2 (lines 11 and 13) need time to
    /// pass without events.
    pub fn tick(&mut self, now_ms: i64, p: &PhaseParams) {
        // Every window is empty: the branches that fire without events
        // (closing a phase, moving trailing tasks) fired on the first such
        // tick; nothing changes until the next start or finish.
        let windows_empty = now_ms - p.window_ms > self.last_event_ms;
        if windows_empty && self.at_fixed_point {
            return;
        }
        self.algorithm1(now_ms, p);
        self.algorithm2(now_ms, p);
        // Forget start times older than the window; the tasks keep theirs.
        let horizon = now_ms - p.window_ms;
        self.starts.retain(|s| *s > horizon);
        for ph in self.phases.iter_mut() {
            ph.finishes.retain(|f| *f > horizon);
        }
        self.at_fixed_point = windows_empty;
        // Drop finished tasks nobody will look at again: counted in a phase
        // already, or too old to be part of a phase Algorithm 1 opens.
        let tasks = &mut self.tasks;
        self.finished.retain(|id| {
            let keep = tasks.get(id).is_some_and(|t| t.phase.is_none() && t.start_ms > horizon);
            if !keep {
                tasks.remove(id);
            }
            keep
        });
    }

    /// Task `id` becomes part of phase `j`: c_pj += 1 (Algorithm 1 line 8,
    /// Algorithm 2 line 12 for trailing tasks).
    fn join(&mut self, id: u64, j: usize) {
        let Some(task) = self.tasks.get_mut(&id) else { return };
        task.phase = Some(j);
        let ph = &mut self.phases[j];
        ph.containers += 1;
        ph.units += task.units;
        match task.finished {
            None => {
                ph.running.insert(id, task.units);
            }
            // A task that finished before its phase was recognised (a
            // heading task, say) counts as a completion of the phase.
            Some(f) => {
                ph.finishes.push(f);
                ph.completed += 1;
                ph.released_units += task.units;
            }
        }
    }

    /// Algorithm 1 (Starting Variation of the j-th phase), lines 11–17.
    fn algorithm1(&mut self, now_ms: i64, p: &PhaseParams) {
        let lo = now_ms - p.window_ms;
        let in_window = if self.starts_unsorted {
            self.starts.iter().filter(|s| **s > lo && **s <= now_ms).count() as u32
        } else {
            (self.starts.partition_point(|s| *s <= now_ms) - self.starts.partition_point(|s| *s <= lo)) as u32
        };
        match self.open {
            None if in_window > p.t_s => {
                // Lines 11–13: S_pj = true, ps_jf = min start of R_Ji.
                let members: Vec<(u64, i64)> = self
                    .tasks
                    .iter()
                    .filter(|(id, t)| t.phase.is_none() && !self.carry.contains(id) && t.start_ms > lo && t.start_ms <= now_ms)
                    .map(|(id, t)| (*id, t.start_ms))
                    .collect();
                let Some(first) = members.iter().map(|(_, s)| *s).min() else {
                    return;
                };
                let last = members.iter().map(|(_, s)| *s).max().unwrap_or(first);
                let j = self.phases.len();
                self.phases.push(Phase {
                    index: j,
                    first_start_ms: first,
                    last_start_ms: last,
                    closed: false,
                    gamma_ms: None,
                    ended: false,
                    containers: 0,
                    units: 0.0,
                    trailing_in: 0,
                    trailing_out: 0,
                    completed: 0,
                    released_units: 0.0,
                    finishes: Vec::new(),
                    running: BTreeMap::new(),
                });
                for (id, _) in members {
                    self.join(id, j);
                }
                for id in std::mem::take(&mut self.carry) {
                    self.join(id, j);
                    self.phases[j].trailing_in += 1;
                }
                self.open = Some(j);
                tracing::debug!(phase = j, ps_f = first, "dress: phase started (Algorithm 1 line 11)");
            }
            Some(j) if in_window == 0 => {
                // Lines 14–17: ps_jl = max start, Δps = ps_jl − ps_jf, j += 1.
                let ph = &mut self.phases[j];
                ph.closed = true;
                self.open = None;
                tracing::debug!(phase = j, delta_ps = ph.delta_ps_ms(), "dress: phase closed (Algorithm 1 line 14)");
            }
            _ => {}
        }
    }

    /// Algorithm 2 (Starting Release Time of the j-th phase), lines 8–14.
    fn algorithm2(&mut self, now_ms: i64, p: &PhaseParams) {
        let lo = now_ms - p.window_ms;
        for j in 0..self.phases.len() {
            let ph = &self.phases[j];
            if ph.settled() {
                continue;
            }
            // |CT_pj| within the window and its earliest finish.
            let (in_window, earliest) = ph
                .finishes
                .iter()
                .filter(|f| **f > lo && **f <= now_ms)
                .fold((0u32, None::<i64>), |(n, m), f| (n + 1, Some(m.map_or(*f, |m| m.min(*f)))));
            if ph.gamma_ms.is_none() && in_window > p.t_e {
                // Lines 8–10: E_pj = true, γ_j = min finish (within the window,
                // which leaves heading tasks out).
                let ph = &mut self.phases[j];
                ph.ended = true;
                ph.gamma_ms = earliest;
                tracing::debug!(phase = j, gamma = ?ph.gamma_ms, "dress: phase releasing (Algorithm 2 line 8)");
            } else if ph.gamma_ms.is_some() && in_window == 0 && !ph.running.is_empty() {
                // Lines 11–12: trailing tasks count into the next phase.
                let trailing: Vec<u64> = std::mem::take(&mut self.phases[j].running).into_keys().collect();
                self.phases[j].trailing_out += trailing.len() as u32;
                tracing::debug!(phase = j, n = trailing.len(), "dress: trailing tasks (Algorithm 2 line 11)");
                if j + 1 < self.phases.len() {
                    for id in trailing {
                        self.join(id, j + 1);
                        self.phases[j + 1].trailing_in += 1;
                    }
                } else {
                    for id in trailing {
                        if let Some(t) = self.tasks.get_mut(&id) {
                            t.phase = None;
                        }
                        self.carry.push(id);
                    }
                }
            }
        }
        // Lines 13–14: no running task left, β_i = t.
        if self.alpha_ms.is_some() && self.beta_ms.is_none() && self.running_tasks() == 0 {
            self.beta_ms = Some(now_ms);
        }
    }

    /// Units of phase `j` expected to be released *newly* by `t_ms`: Eq. 9's
    /// cumulative release minus what the phase has already released (those
    /// containers are in A_c already and Eq. 1 must not count them twice),
    /// at most what the phase still runs. A phase without γ releases
    /// nothing yet (Eq. 9's first case); an open phase uses its Δps so far.
    pub fn phase_release(&self, j: usize, t_ms: i64) -> f64 {
        let ph = &self.phases[j];
        let Some(gamma) = ph.gamma_ms else { return 0.0 };
        let cumulative = eq9_release(t_ms, gamma, ph.delta_ps_ms(), ph.units);
        let newly = cumulative - ph.released_units;
        if newly <= 0.0 {
            return 0.0;
        }
        let running: f64 = ph.running.values().sum();
        newly.clamp(0.0, running)
    }

    /// Equation 5: f_i(t) = Σ_j p_j(t) while t ∈ [α_i, β_i], 0 outside.
    pub fn f(&self, t_ms: i64) -> f64 {
        let Some(alpha) = self.alpha_ms else { return 0.0 };
        if t_ms < alpha || self.beta_ms.is_some_and(|b| t_ms > b) {
            return 0.0;
        }
        (0..self.phases.len()).filter(|j| !self.phases[*j].settled()).map(|j| self.phase_release(j, t_ms)).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const S: i64 = 1000;

    /// Drive a job from a synthetic container timeline: (id, start, finish)
    /// in ms, ticking every second as the policy does, until `until_ms`.
    fn replay(timeline: &[(u64, i64, i64)], until_ms: i64) -> JobRelease {
        let p = PhaseParams::default();
        let mut job = JobRelease::default();
        let mut events: Vec<(i64, u8, u64)> = Vec::new();
        for (id, start, finish) in timeline {
            events.push((*start, 1, *id));
            events.push((*finish, 0, *id));
        }
        events.sort();
        let mut next = 0;
        let mut t = 0;
        while t <= until_ms {
            // Events up to the end of this second, then the interval tick.
            while next < events.len() && events[next].0 <= t {
                let (at, kind, id) = events[next];
                if kind == 1 {
                    job.on_start(id, at, 1.0, &p);
                } else {
                    job.on_finish(id, at, &p);
                }
                next += 1;
            }
            job.tick(t, &p);
            t += 500;
        }
        job
    }

    /// Eight tasks starting every 0.5 s from t = 0, running `len` each.
    fn wave(first_id: u64, t0: i64, n: u64, len: i64) -> Vec<(u64, i64, i64)> {
        (0..n).map(|i| (first_id + i, t0 + i as i64 * 500, t0 + i as i64 * 500 + len)).collect()
    }

    #[test]
    fn eq9_ramp_and_step() {
        assert_eq!(eq9_release(9 * S, 10 * S, 4 * S, 8.0), 0.0);
        assert_eq!(eq9_release(10 * S, 10 * S, 4 * S, 8.0), 0.0);
        assert_eq!(eq9_release(12 * S, 10 * S, 4 * S, 8.0), 4.0);
        assert_eq!(eq9_release(14 * S, 10 * S, 4 * S, 8.0), 8.0);
        assert_eq!(eq9_release(15 * S, 10 * S, 4 * S, 8.0), 0.0);
        // Δps = 0: everything at γ.
        assert_eq!(eq9_release(10 * S, 10 * S, 0, 3.0), 3.0);
    }

    #[test]
    fn clean_phase_gives_delta_ps_and_gamma() {
        // 8 tasks start 0.0 .. 3.5 s, each runs 20 s (finish 20.0 .. 23.5 s).
        let tl = wave(1, 0, 8, 20 * S);
        let job = replay(&tl, 12 * S);
        assert_eq!(job.phases.len(), 1, "{:?}", job.phases);
        let ph = &job.phases[0];
        assert_eq!(ph.first_start_ms, 0);
        assert_eq!(ph.containers, 8);
        assert!(!ph.closed, "no quiet window yet at 12 s (last start 3.5 s)");
        let job = replay(&tl, 14 * S);
        let ph = &job.phases[0];
        assert!(ph.closed);
        assert_eq!(ph.delta_ps_ms(), 3500);
        assert_eq!(ph.gamma_ms, None);
        assert_eq!(job.alpha_ms, Some(0));
        // The 6th completion (22.5 s) is more than t_e = 5 in the window.
        let job = replay(&tl, 22 * S);
        assert_eq!(job.phases[0].gamma_ms, None);
        let job = replay(&tl, 22 * S + 500);
        let ph = &job.phases[0];
        assert_eq!(ph.gamma_ms, Some(20 * S));
        assert!(ph.ended);
        // Eq. 9 at t+1 = 23.5 s = γ + Δps: all 8 released, 6 already are,
        // so 2 more are expected (the two still running).
        assert!((job.f(23 * S + 500) - 2.0).abs() < 1e-9, "{}", job.f(23 * S + 500));
        // Half-way, 23.0 s: 8 · 3/3.5 = 6.857 cumulative, 6 released.
        assert!((job.f(23 * S) - (8.0 * 3.0 / 3.5 - 6.0)).abs() < 1e-9);
        // Everything finished: β set, f = 0 afterwards.
        let job = replay(&tl, 25 * S);
        assert_eq!(job.beta_ms, Some(23 * S + 500));
        assert_eq!(job.f(26 * S), 0.0);
        assert_eq!(job.f(-1), 0.0, "before α");
    }

    #[test]
    fn heading_task_does_not_set_gamma() {
        // Task 1 is a heading task: starts at 0, done at 1.5 s (under-loaded
        // last block, §III-A2). The other seven run 20 s.
        let mut tl = wave(1, 0, 8, 20 * S);
        tl[0].2 = 1500;
        let job = replay(&tl, 10 * S);
        assert_eq!(job.phases[0].gamma_ms, None, "one completion is not > t_e");
        assert_eq!(job.phases[0].completed_count(), 1);
        // Completions of tasks 2..8: 20.5 .. 23.5 s; the 6th in the window is
        // at 23.0 s. γ is the earliest finish inside the window: 20.5 s, not
        // the heading task's 1.5 s.
        let job = replay(&tl, 23 * S);
        let ph = &job.phases[0];
        assert_eq!(ph.gamma_ms, Some(20 * S + 500));
        assert_eq!(ph.delta_ps_ms(), 3500);
        assert_eq!(ph.containers, 8);
    }

    #[test]
    fn trailing_task_moves_to_next_phase() {
        // Phase 0: eight tasks from 0 s; seven run 20 s, task 8 is a
        // trailing task (data skew, §III-A3) running 60 s.
        let mut tl = wave(1, 0, 8, 20 * S);
        tl[7].2 = 3500 + 60 * S;
        // Phase 1: six tasks from 40 s, 10 s each.
        tl.extend(wave(100, 40 * S, 6, 10 * S));
        // Completions 20.0 .. 23.0 s; γ at the 6th (22.5 s); nothing more
        // completes for a window after 23.0 s with task 8 still running.
        let job = replay(&tl, 32 * S + 500);
        assert_eq!(job.phases[0].gamma_ms, Some(20 * S));
        assert_eq!(job.phases[0].trailing_out, 0);
        let job = replay(&tl, 33 * S + 500);
        assert_eq!(job.phases[0].trailing_out, 1);
        assert_eq!(job.phases[0].running_count(), 0);
        assert_eq!(job.phases.len(), 1, "next phase not started yet: the trailing task waits");
        // Phase 1 opens at its 6th start (42.5 s) and takes the trailing task.
        let job = replay(&tl, 43 * S);
        assert_eq!(job.phases.len(), 2);
        let p1 = &job.phases[1];
        assert_eq!(p1.first_start_ms, 40 * S);
        assert_eq!(p1.trailing_in, 1);
        assert_eq!(p1.containers, 7, "c_p(i+1) = 6 own + 1 trailing");
        let job = replay(&tl, 53 * S);
        let p1 = &job.phases[1];
        assert!(p1.closed);
        assert_eq!(p1.delta_ps_ms(), 2500, "the trailing task does not stretch Δps");
        // β only once the trailing task is done too (63.5 s).
        let job = replay(&tl, 60 * S);
        assert_eq!(job.beta_ms, None);
        let job = replay(&tl, 64 * S);
        assert_eq!(job.beta_ms, Some(63 * S + 500));
    }

    #[test]
    fn fewer_than_t_s_starts_make_no_phase() {
        // Three tasks (the Fig. 1 jobs are this small): no phase, f = 0.
        let tl = wave(1, 0, 3, 10 * S);
        let job = replay(&tl, 30 * S);
        assert!(job.phases.is_empty());
        assert_eq!(job.f(9 * S), 0.0);
    }
}
