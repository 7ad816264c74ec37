//! What a run records, beside its decisions: each job's record (its JCT and
//! the estimate it was scheduled by), the utilization timeline (allocated and
//! actually used share of the cluster), each job's dominant share over time
//! (fairness), every task container's allocation latency, what
//! over-subscription did, and at the end the [`RunOutcome`] built from them.
//! Nothing here feeds back into the simulator's decisions.

use super::am::JobRun;
use crate::engine::Engine;
use crate::metrics::fairness::{self, JobShares, ShareTrack};
use crate::metrics::summary::{self, CategorySummary, Oversubscription, Summary, Utilization};
use crate::metrics::timeline::Timeline;
use crate::metrics::{JobRecord, RunOutcome};
use crate::model::{NodeId, Resources};
use crate::workload::{Job, Trace};
use std::collections::{HashMap, VecDeque};

pub(super) struct Recorder {
    /// The fairness window, ms.
    window_ms: i64,
    /// The whole cluster's capacity: what the timeline's and the shares'
    /// fractions are of.
    capacity: Resources,
    /// One node's vcores in millis: the most CPU a node can use.
    node_vcores_millis: f64,
    timeline: Timeline,
    tracks: Vec<ShareTrack>,
    estimates: Vec<Option<f64>>,
    records: Vec<Option<JobRecord>>,
    /// Jobs whose record is written (their last task ended).
    jobs_done: usize,
    oversub: Oversubscription,
    /// Per node: vcore-ms actually used (capped at the node's vcores) up
    /// to `used_at`.
    cpu_used: Vec<f64>,
    used_at: Vec<i64>,
    /// Per (job, stage): when its outstanding containers were asked for,
    /// oldest first, as (time, count): a stage's tasks are alike, so its
    /// k-th allocation answers its k-th ask.
    asked_at: HashMap<(u32, usize), VecDeque<(i64, i64)>>,
    /// Ask → allocation of every task container, ms (u32: 49 days at most,
    /// half the memory of f64 on a 650 000-task trace).
    latencies: Vec<u32>,
    /// The users' side of fairness, as `yarn-report` measures a real run:
    /// each job's user (an index into `user_tracks`), what the job holds now,
    /// what each user holds and the user's dominant share over time (from
    /// the first submission, `start`).
    user_of: Vec<usize>,
    job_alloc: Vec<Resources>,
    user_alloc: Vec<Resources>,
    user_tracks: Vec<ShareTrack>,
    start: i64,
}

impl Recorder {
    /// The recorder of a run of `trace` from `start` (ms) on `nodes` nodes
    /// of `node_capacity`, the whole cluster's being `capacity`.
    pub fn new(trace: &Trace, window_ms: i64, start: i64, capacity: Resources, node_capacity: Resources, nodes: usize) -> Recorder {
        let mut users: Vec<String> = trace.jobs.iter().map(|j| j.user.clone()).collect();
        users.sort();
        users.dedup();
        let user_of = trace.jobs.iter().map(|j| users.binary_search(&j.user).unwrap_or(0)).collect();
        Recorder {
            window_ms,
            capacity,
            node_vcores_millis: node_capacity.0[1] as f64 * 1000.0,
            timeline: Timeline::new(window_ms, start),
            tracks: trace.jobs.iter().map(|j| ShareTrack::new(j.submit_ms)).collect(),
            estimates: vec![None; trace.jobs.len()],
            records: vec![None; trace.jobs.len()],
            jobs_done: 0,
            oversub: Default::default(),
            cpu_used: vec![0.0; nodes],
            used_at: vec![start; nodes],
            asked_at: HashMap::new(),
            latencies: Vec::new(),
            user_of,
            job_alloc: vec![Resources::ZERO; trace.jobs.len()],
            user_alloc: vec![Resources::ZERO; users.len()],
            user_tracks: users.iter().map(|_| ShareTrack::new(0)).collect(),
            start,
        }
    }

    /// A container of `res` allocated at `t`.
    pub fn allocated(&mut self, t: i64, res: Resources) {
        let cap = &self.capacity;
        self.timeline.add(t, [frac(res.0[0], cap.0[0]), frac(res.0[1], cap.0[1]), 0.0, 0.0]);
    }

    /// A container of `res` released at `t` (evicted: its use, if it ran,
    /// stopped apart).
    pub fn released(&mut self, t: i64, res: Resources) {
        let cap = &self.capacity;
        self.timeline.add(t, [-frac(res.0[0], cap.0[0]), -frac(res.0[1], cap.0[1]), 0.0, 0.0]);
    }

    /// A container launched at `t` uses `used` (memory MB, vcores in millis).
    pub fn launched(&mut self, t: i64, used: Resources) {
        let cap = &self.capacity;
        self.timeline.add(t, [0.0, 0.0, frac(used.0[0], cap.0[0]), frac(used.0[1], cap.0[1] * 1000)]);
    }

    /// A container that used `used` (memory MB, vcores in millis) stopped
    /// at `t` (evicted: its allocation released apart).
    pub fn stopped(&mut self, t: i64, used: Resources) {
        let cap = &self.capacity;
        self.timeline.add(t, [0.0, 0.0, -frac(used.0[0], cap.0[0]), -frac(used.0[1], cap.0[1] * 1000)]);
    }

    /// A container of `res` that used `used` (memory MB, vcores in millis)
    /// ended at `t`.
    pub fn ended(&mut self, t: i64, res: Resources, used: Resources) {
        let cap = &self.capacity;
        self.timeline
            .add(t, [-frac(res.0[0], cap.0[0]), -frac(res.0[1], cap.0[1]), -frac(used.0[0], cap.0[0]), -frac(used.0[1], cap.0[1] * 1000)]);
    }

    /// An AM container of `res`, which used all of it, ended at `t`.
    pub fn am_ended(&mut self, t: i64, res: Resources) {
        // Once the last job is done the makespan is over: an AM still
        // exiting then lies outside the utilization's window.
        if self.jobs_done < self.records.len() {
            self.ended(t, res, Resources::new(res.0[0], res.0[1] * 1000));
        }
    }

    /// Job `j` holds `allocated` from `t` on.
    pub fn share(&mut self, j: u32, t: i64, allocated: Resources) {
        let share = allocated.dominant_share(&self.capacity);
        self.tracks[j as usize].set(t, share, self.window_ms);
        self.user_holds(j, t, allocated);
    }

    /// Job `j`'s user: the job holds `allocated` from `t` on (also once the
    /// job is done and its own track ended, when its AM exits).
    pub fn user_holds(&mut self, j: u32, t: i64, allocated: Resources) {
        let (j, u) = (j as usize, self.user_of[j as usize]);
        self.user_alloc[u] -= self.job_alloc[j];
        self.user_alloc[u] += allocated;
        self.job_alloc[j] = allocated;
        let share = self.user_alloc[u].dominant_share(&self.capacity);
        self.user_tracks[u].set((t - self.start).max(0), share, self.window_ms);
    }

    /// Job `j` asked for `count` containers of `stage` at `t`.
    pub fn asked(&mut self, j: u32, stage: usize, t: i64, count: i64) {
        self.asked_at.entry((j, stage)).or_default().push_back((t, count));
    }

    /// A container of job `j`'s `stage` allocated at `t`: it answers the
    /// stage's oldest outstanding ask.
    pub fn task_allocated(&mut self, j: u32, stage: usize, t: i64) {
        if let Some(q) = self.asked_at.get_mut(&(j, stage)) {
            if let Some(front) = q.front_mut() {
                self.latencies.push((t - front.0).clamp(0, u32::MAX as i64) as u32);
                front.1 -= 1;
                if front.1 <= 0 {
                    q.pop_front();
                }
            }
            if q.is_empty() {
                self.asked_at.remove(&(j, stage));
            }
        }
    }

    /// No estimate of job `j` yet.
    pub fn lacks_estimate(&self, j: u32) -> bool {
        self.estimates[j as usize].is_none()
    }

    /// Job `j`'s estimate is `estimate` (ms).
    pub fn estimated(&mut self, j: u32, estimate: Option<f64>) {
        self.estimates[j as usize] = estimate;
    }

    /// A speculative (OPPORTUNISTIC) container started.
    pub fn speculative(&mut self) {
        self.oversub.speculative_containers += 1;
    }

    /// A speculative container evicted at `t`, launched at `launched_ms`
    /// if it ran.
    pub fn evicted(&mut self, t: i64, launched_ms: Option<i64>) {
        self.oversub.evictions += 1;
        if let Some(l) = launched_ms {
            self.oversub.wasted_container_s += (t - l) as f64 / 1000.0;
        }
    }

    /// Node `n`'s actual use changes at `t`, from `used_millis` vcores in
    /// millis: integrate its capped CPU use up to `t`.
    pub fn node_use(&mut self, n: NodeId, t: i64, used_millis: i64) {
        let i = n as usize;
        let cap_v = self.node_vcores_millis;
        self.cpu_used[i] += (used_millis as f64).min(cap_v) * (t - self.used_at[i]).max(0) as f64;
        self.used_at[i] = t;
    }

    /// Job `j` (`job`, first started at `first_start_ms`, of `category`) is
    /// done at `t` (its last task's end).
    pub fn job_done(&mut self, j: u32, job: &Job, t: i64, first_start_ms: i64, category: String) {
        self.jobs_done += 1;
        self.tracks[j as usize].advance(t, self.window_ms);
        self.records[j as usize] = Some(JobRecord {
            id: job.id.clone(),
            user: job.user.clone(),
            name: job.name.clone(),
            category,
            tasks: job.task_count(),
            work_ms: job.work_ms(),
            submit_ms: job.submit_ms,
            first_start_ms,
            finish_ms: t,
            estimate_ms: self.estimates[j as usize],
        });
    }

    /// The run's outcome: `runs` of `trace`'s jobs under `engine`, after
    /// `sim_events` events; `node_used`, each node's actual use at the end,
    /// when the policy over-subscribes.
    pub fn outcome(self, trace: &Trace, runs: &[JobRun], engine: &Engine, node_used: Option<&[Resources]>, sim_events: u64) -> RunOutcome {
        let unfinished = self.records.iter().filter(|r| r.is_none()).count();
        let jobs: Vec<JobRecord> = self.records.into_iter().flatten().collect();
        let start = jobs.iter().map(|j| j.submit_ms).min().unwrap_or(0);
        let end = jobs.iter().map(|j| j.finish_ms).max().unwrap_or(start);
        let mut timeline = self.timeline;
        timeline.advance(end);
        let mean = timeline.mean(start, end);
        let window = self.window_ms;
        let capacity = self.capacity;
        let finished: Vec<JobShares> = trace
            .jobs
            .iter()
            .zip(runs)
            .zip(&self.tracks)
            .filter_map(|((j, r), tr)| {
                r.finish_ms.map(|f| JobShares {
                    submit_ms: j.submit_ms,
                    finish_ms: f,
                    demand: j.peak_demand().dominant_share(&capacity).min(1.0),
                    track: tr,
                })
            })
            .collect();
        let per_window = fairness::jain_per_window(&finished, window);
        // Across users, from the first submission to the last job's end: a
        // user is present while one of its jobs is (submitted, not done).
        let mut presence: Vec<Vec<(i64, i64)>> = vec![Vec::new(); self.user_tracks.len()];
        for ((j, r), u) in trace.jobs.iter().zip(runs).zip(&self.user_of) {
            presence[*u].push((j.submit_ms - start, r.finish_ms.unwrap_or(end) - start));
        }
        let mut user_tracks = self.user_tracks;
        for tr in user_tracks.iter_mut() {
            tr.advance(end - start, window);
        }
        let users: Vec<(Vec<(i64, i64)>, &ShareTrack)> =
            presence.into_iter().map(fairness::merge_intervals).zip(user_tracks.iter()).collect();
        let users_fairness = fairness::summarize(&fairness::jain_across(&users, end - start, window));
        let counters = engine.counters();
        let all: Vec<&JobRecord> = jobs.iter().collect();
        let mut latencies = self.latencies;
        let summary = Summary {
            policy: engine.policy_name().to_string(),
            tasks: jobs.iter().map(|j| j.tasks).sum(),
            unfinished_jobs: unfinished,
            all: CategorySummary::of(&all),
            categories: summary::by_category(&jobs),
            utilization: Utilization { alloc_memory: mean[0], alloc_vcores: mean[1], used_memory: mean[2], used_vcores: mean[3] },
            fairness: fairness::summarize(&per_window),
            users_fairness,
            estimation_error: summary::estimation_error(&jobs),
            engine_events: counters.events,
            engine_passes: counters.passes,
            allocation_latency: crate::metrics::latency::LatencyDist::of(&mut latencies),
            oversubscription: node_used.map(|node_used| {
                let cap_v = self.node_vcores_millis;
                let mut used = 0.0;
                for ((cpu, at), u) in self.cpu_used.iter().zip(&self.used_at).zip(node_used) {
                    used += cpu + (u.0[1] as f64).min(cap_v) * (end - at).max(0) as f64;
                }
                let span = (end - start).max(1) as f64;
                Oversubscription { used_vcores_capped: used / (cap_v * self.cpu_used.len().max(1) as f64 * span), ..self.oversub }
            }),
        };
        let activity = engine.activity_json();
        RunOutcome {
            summary,
            utilization: timeline.points(start, end),
            fairness: per_window,
            jobs,
            sim_events,
            heartbeats_folded: 0,
            activity,
        }
    }
}

fn frac(v: i64, total: i64) -> f64 {
    if total > 0 {
        v as f64 / total as f64
    } else {
        0.0
    }
}
