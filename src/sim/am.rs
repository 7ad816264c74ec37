//! One ApplicationMaster per job: it asks for a stage's containers once the
//! stage's parents have finished (or, with slow-start, once enough of their
//! tasks have), hands each allocated container the stage's next task, and
//! optionally holds a stage's containers until all are allocated (gang start).
//!
//! [`JobRun`] is the AM's own state; the `impl Sim` below is its lifecycle
//! in the simulator: a job's arrival, the RM's ask for its AM container, the
//! AM's start-up and asks, each allocated container's launch and end, the
//! job's end and the AM's exit (with the SLS model, the AM's clocked steps).

use super::calibration::Calibration;
use super::clock::SimEvent;
use super::host::After;
use super::run::{RunningTask, Sim};
use super::sls;
use crate::engine::Event;
use crate::model::ask::AM_PRIORITY;
use crate::model::{Ask, ContainerId, NodeId, Resources, SchedulerKey};
use crate::workload::{Job, Trace};

#[derive(Debug, Default, Clone)]
pub struct StageRun {
    pub asked: bool,
    /// Next task index to give an allocated container.
    pub next_task: usize,
    pub finished: usize,
    /// All parent stages have finished every task.
    pub parents_done: bool,
    /// Gang start: allocated containers not yet launched.
    pub held: Vec<(ContainerId, NodeId, usize)>,
    /// Slow-start: launched before the parents finished; their work starts
    /// when the parents are done.
    pub waiting: Vec<ContainerId>,
    /// Tasks whose container was evicted (ROSE): they run again, first.
    pub retry: Vec<usize>,
}

#[derive(Debug, Clone)]
pub struct JobRun {
    pub stages: Vec<StageRun>,
    pub children: Vec<Vec<usize>>,
    pub gang: bool,
    pub stages_left: usize,
    pub first_start_ms: Option<i64>,
    pub finish_ms: Option<i64>,
    pub allocated: Resources,
}

/// What the AM wants done after a change.
#[derive(Debug, Default)]
pub struct AmActions {
    /// Stages to ask containers for now.
    pub ask: Vec<usize>,
    /// Stages whose parents just finished: release their waiting tasks.
    pub release_waiting: Vec<usize>,
}

impl JobRun {
    pub fn new(job: &Job, gang: bool) -> JobRun {
        let n = job.stages.len();
        let mut children = vec![Vec::new(); n];
        for (i, s) in job.stages.iter().enumerate() {
            for p in &s.after {
                children[*p].push(i);
            }
        }
        JobRun {
            stages: vec![StageRun::default(); n],
            children,
            gang: gang || job.gang,
            stages_left: n,
            first_start_ms: None,
            finish_ms: None,
            allocated: Resources::ZERO,
        }
    }

    fn stage_complete(&self, job: &Job, i: usize) -> bool {
        self.stages[i].asked && self.stages[i].finished >= job.stages[i].tasks.len()
    }

    /// Ask for every stage whose start condition now holds, marking stages
    /// without tasks complete on the way (fix-point over the DAG).
    pub fn advance(&mut self, job: &Job, default_slowstart: f64, out: &mut AmActions) {
        loop {
            let mut changed = false;
            for i in 0..job.stages.len() {
                let s = &job.stages[i];
                if !self.stages[i].parents_done && s.after.iter().all(|p| self.stage_complete(job, *p)) {
                    self.stages[i].parents_done = true;
                    changed = true;
                    if self.stages[i].asked {
                        out.release_waiting.push(i);
                    }
                }
                if self.stages[i].asked {
                    continue;
                }
                let threshold = s.slowstart.unwrap_or(default_slowstart);
                let ready = self.stages[i].parents_done
                    || (threshold < 1.0 && {
                        let total: usize = s.after.iter().map(|p| job.stages[*p].tasks.len()).sum();
                        let done: usize = s.after.iter().map(|p| self.stages[*p].finished).sum();
                        total == 0 || done as f64 >= threshold * total as f64
                    });
                if ready {
                    self.stages[i].asked = true;
                    changed = true;
                    if s.tasks.is_empty() {
                        self.stages_left -= 1;
                    } else {
                        out.ask.push(i);
                    }
                }
            }
            if !changed {
                break;
            }
        }
    }

    /// A task of `stage` finished. Returns true when the whole job is done.
    pub fn task_finished(&mut self, job: &Job, stage: usize, default_slowstart: f64, out: &mut AmActions) -> bool {
        self.stages[stage].finished += 1;
        if self.stages[stage].finished == job.stages[stage].tasks.len() {
            self.stages_left -= 1;
        }
        let touches_children = !self.children[stage].is_empty();
        if touches_children {
            self.advance(job, default_slowstart, out);
        }
        self.stages_left == 0
    }
}

/// The AM lifecycle in the simulator: the RM asks for a job's AM container
/// once it arrives, the AM starts up, asks for its tasks stage by stage and
/// hands each allocated container its task; the job is done at its last
/// task's end, and its AM exits after it.
impl<'a> Sim<'a> {
    /// The slow-start fraction of stages without their own (SLS: none).
    fn slowstart(&self) -> f64 {
        if self.sls.is_some() {
            1.0
        } else {
            self.opts.slowstart
        }
    }

    pub(super) fn arrive(&mut self, j: u32, t: i64) {
        let trace: &'a Trace = self.trace;
        let job = &trace.jobs[j as usize];
        let tags = vec![
            format!("shepherd.oracle.work_ms={}", job.work_ms()),
            format!("shepherd.oracle.tasks={}", job.task_count()),
            dag_hint(job),
        ];
        let category = self.category(j);
        let queue = match self.opts.queue_by_category && self.engine.state().queue_id(&category).is_some() {
            true => category,
            false => job.queue.clone(),
        };
        self.engine.apply(Event::AppAdded {
            app: j,
            yarn_id: job.id.clone(),
            queue,
            user: job.user.clone(),
            name: job.name.clone(),
            app_type: job.app_type.clone().unwrap_or_else(|| "SIMULATED".into()),
            tags,
            submit_ms: job.submit_ms,
            priority: 0,
        });
        self.engine.apply(Event::AttemptAdded { app: j, attempt: 1 });
        match self.model {
            // The RM asks for the AM's container; the AM asks for tasks once
            // it runs.
            Some(m) => {
                let d = m.am_ask_ms.draw(&mut self.rng) as i64;
                self.clock.push(t + d, SimEvent::AmAsk(j));
            }
            None => self.am_ready(j, t),
        }
    }

    /// The RM asks for job `j`'s ApplicationMaster container.
    pub(super) fn am_ask(&mut self, j: u32) {
        let size = am_size(self.trace, &self.trace.jobs[j as usize], self.model);
        self.pending += 1;
        *self.shapes.entry((size.0[0], size.0[1])).or_default() += 1;
        self.engine.apply(Event::AskUpdated {
            app: j,
            ask: Ask::anywhere(SchedulerKey { priority: AM_PRIORITY, allocation_request_id: -1 }, size, 1),
        });
    }

    /// Job `j`'s AM runs and asks for the stages it can start (SLS: it
    /// asks at its next step).
    pub(super) fn am_ready(&mut self, j: u32, t: i64) {
        if self.sls.is_some() {
            return self.am_wake(j, t);
        }
        self.first_asks(j, t);
    }

    /// Job `j`'s AM asks for the stages it can start.
    fn first_asks(&mut self, j: u32, t: i64) {
        let trace: &'a Trace = self.trace;
        let job = &trace.jobs[j as usize];
        let mut actions = std::mem::take(&mut self.actions);
        let slowstart = self.slowstart();
        self.runs[j as usize].advance(job, slowstart, &mut actions);
        self.act(j, t, &mut actions);
        self.actions = actions;
        // The prediction at admission: once the AM's first asks are in, as
        // an estimator that reads widths sees the job.
        self.rec.estimated(j, self.engine.estimate_ms(j));
        if self.runs[j as usize].stages_left == 0 {
            self.job_done(j, t);
        }
    }

    /// SLS: job `j`'s AM has a step on the clock after `t` (its first step
    /// strictly after `t`; a step already on the clock comes no later).
    pub(super) fn am_wake(&mut self, j: u32, t: i64) {
        let s = self.sls.as_mut().expect("the SLS model");
        let am = &mut s.ams[j as usize];
        if am.step_at.is_none() {
            let at = sls::next_step(am.origin, s.am_ms, t);
            am.step_at = Some(at);
            self.clock.push(at, SimEvent::AmStep(j));
        }
    }

    /// SLS: job `j`'s AM steps at `t` (`AMSimulator.middleStep` once the AM
    /// container runs): `processResponseQueue`, then `sendContainerRequest`.
    pub(super) fn am_step(&mut self, j: u32, t: i64) {
        let Some(s) = self.sls.as_mut() else { return };
        let am = &mut s.ams[j as usize];
        if am.step_at != Some(t) || self.runs[j as usize].finish_ms.is_some() {
            return;
        }
        am.step_at = None;
        let response = std::mem::take(&mut am.queued);
        let first = !std::mem::replace(&mut am.asked, true);
        // `MRAMSimulator.processResponseQueue`: the completions, counted
        // (the last one's `lastStep` unregisters the AM: the job is done);
        // a stage they complete is asked in this step's allocate call ...
        for (_, stage, res) in response.completed {
            if self.task_done(j, stage, res, t) {
                return;
            }
        }
        // ... then the containers allocated, each started with its task's
        // lifetime (`NMSimulator.addNewContainer`).
        for c in response.allocated {
            self.launch(c, t);
        }
        // `sendContainerRequest`: the maps in the first step after the AM
        // runs (`pendingMaps`, filled by `notifyAMContainerLaunched`).
        if first {
            self.first_asks(j, t);
            if self.runs[j as usize].finish_ms.is_some() {
                return;
            }
        }
        // The allocate call returns what the RM holds for the app now; a
        // completion reported at this very instant comes after this step.
        let s = self.sls.as_mut().expect("the SLS model");
        let am = &mut s.ams[j as usize];
        let (now, later): (Vec<_>, Vec<_>) = std::mem::take(&mut am.at_rm.completed).into_iter().partition(|(at, _, _)| *at < t);
        am.queued = sls::Response { allocated: std::mem::take(&mut am.at_rm.allocated), completed: now };
        am.at_rm.completed = later;
        if !am.queued.is_empty() || !am.at_rm.is_empty() {
            let at = t + s.am_ms;
            am.step_at = Some(at);
            self.clock.push(at, SimEvent::AmStep(j));
        }
    }

    /// Carry out what the AM decided: ask for stages, release waiting tasks.
    fn act(&mut self, j: u32, t: i64, actions: &mut AmActions) {
        let trace: &'a Trace = self.trace;
        let job = &trace.jobs[j as usize];
        for s in actions.ask.drain(..) {
            let stage = &job.stages[s];
            let count = stage.tasks.len() as i32;
            self.rec.asked(j, s, t, count as i64);
            self.pending += count as i64;
            *self.shapes.entry((stage.memory_mb, stage.vcores)).or_default() += count as i64;
            self.engine.apply(Event::AskUpdated { app: j, ask: Ask::anywhere(stage_key(s), stage.demand(), count) });
        }
        for s in actions.release_waiting.drain(..) {
            let waiting = std::mem::take(&mut self.runs[j as usize].stages[s].waiting);
            for c in waiting {
                self.start_work(c, t);
            }
        }
    }

    pub(super) fn allocated(&mut self, c: ContainerId, app: u32, node: NodeId, key: SchedulerKey, res: Resources, t: i64) {
        self.pending -= 1;
        let shape = (res.0[0], res.0[1]);
        if let Some(n) = self.shapes.get_mut(&shape) {
            *n -= 1;
            if *n <= 0 {
                self.shapes.remove(&shape);
            }
        }
        if key.priority == AM_PRIORITY {
            return self.am_allocated(c, app, node, res, t);
        }
        let s = key.allocation_request_id as usize;
        self.rec.task_allocated(app, s, t);
        let trace: &'a Trace = self.trace;
        let job = &trace.jobs[app as usize];
        let run = &mut self.runs[app as usize];
        let task = match run.stages[s].retry.pop() {
            Some(task) => task,
            None => {
                run.stages[s].next_task += 1;
                run.stages[s].next_task - 1
            }
        };
        run.allocated += res;
        let gang = run.gang;
        self.rec.share(app, t, run.allocated);
        self.rec.allocated(t, res);
        let spec = &job.stages[s].tasks[task];
        let used = match spec.used {
            Some([m, v]) => Resources::new(m.min(res.0[0]), v.min(res.0[1]) * 1000),
            None => Resources::new(
                (res.0[0] as f64 * self.opts.usage_factor) as i64,
                (res.0[1] as f64 * self.opts.usage_factor * 1000.0).round() as i64,
            ),
        };
        self.tasks.insert(c, RunningTask { job: app, stage: s, task, node, resources: res, used, speculative: false, launched_ms: None });
        if gang {
            let st = &mut self.runs[app as usize].stages[s];
            st.held.push((c, node, task));
            if st.next_task == job.stages[s].tasks.len() {
                let held = std::mem::take(&mut st.held);
                for (hc, _, _) in held {
                    self.start_launch(hc, t);
                }
            }
        } else {
            self.start_launch(c, t);
        }
    }

    /// The AM container of job `j` is allocated: it holds its resources
    /// until the job is done and starts up after its launch time.
    fn am_allocated(&mut self, c: ContainerId, j: u32, node: NodeId, res: Resources, t: i64) {
        self.am_of[j as usize] = Some((c, node, res));
        self.job_of_am.insert(c, j);
        let run = &mut self.runs[j as usize];
        run.allocated += res;
        self.rec.share(j, t, run.allocated);
        self.rec.allocated(t, res);
        let d = self.model.map_or(0.0, |m| m.am_launch_ms.draw(&mut self.rng)) as i64;
        self.clock.push(t + d, SimEvent::Launch(c));
    }

    /// A task container was handed to its AM: it runs after the launch time
    /// (SLS: the AM's next allocate call returns it).
    fn start_launch(&mut self, c: ContainerId, t: i64) {
        if let Some(s) = self.sls.as_mut() {
            let j = self.tasks[&c].job;
            s.ams[j as usize].at_rm.allocated.push(c);
            return self.am_wake(j, t);
        }
        match self.model {
            Some(m) => {
                let d = m.task_launch_ms.draw(&mut self.rng) as i64;
                self.clock.push(t + d, SimEvent::Launch(c));
            }
            None => self.launch(c, t),
        }
    }

    /// Container `c` is RUNNING: an AM starts up, a task starts its work.
    pub(super) fn launch(&mut self, c: ContainerId, t: i64) {
        if !self.job_of_am.contains_key(&c) && !self.tasks.contains_key(&c) {
            // Evicted before it started.
            return;
        }
        self.running += 1;
        self.running_changed(t);
        if let Some(&j) = self.job_of_am.get(&c) {
            if let Some((_, node, r)) = self.am_of[j as usize] {
                self.use_on(node, t, Resources::new(r.0[0], r.0[1] * 1000), true);
            }
            self.engine.apply(Event::ContainerLaunched { container: c, at_ms: t });
            // All of its container, vcores in millis.
            let used = self.am_of[j as usize].map(|(_, _, r)| Resources::new(r.0[0], r.0[1] * 1000)).unwrap_or_default();
            self.rec.launched(t, used);
            let d = self.model.map_or(0.0, |m| m.am_startup_ms.draw(&mut self.rng));
            if self.host.is_some() {
                self.host_begin(t, d, After::AmReady(j));
            } else {
                let d = (d * self.contention()) as i64;
                self.clock.push(t + d, SimEvent::AmReady(j));
            }
            return;
        }
        self.engine.apply(Event::ContainerLaunched { container: c, at_ms: t });
        let rt = self.tasks.get_mut(&c).expect("checked");
        rt.launched_ms = Some(t);
        let (j, s, used, node) = (rt.job, rt.stage, rt.used, rt.node);
        self.use_on(node, t, used, true);
        self.rec.launched(t, used);
        let run = &mut self.runs[j as usize];
        run.first_start_ms.get_or_insert(t);
        if run.stages[s].parents_done {
            self.start_work(c, t);
        } else {
            run.stages[s].waiting.push(c);
        }
    }

    pub(super) fn task_end(&mut self, c: ContainerId, t: i64) {
        let Some(rt) = self.tasks.remove(&c) else { return };
        self.finished_tasks += 1;
        self.running -= 1;
        self.running_changed(t);
        self.use_on(rt.node, t, rt.used, false);
        self.report_end(rt.node, c, t);
        let (res, used) = (rt.resources, rt.used);
        self.rec.ended(t, res, used);
        match self.sls.as_mut() {
            // SLS: the AM counts it once a response carries it.
            Some(s) => {
                s.ended.insert(c, (rt.job, rt.stage, res));
            }
            None => {
                self.task_done(rt.job, rt.stage, res, t);
            }
        }
    }

    /// Job `j`'s AM counts a finished task of `stage` (size `res`) at `t`
    /// and asks what that makes ready; true when that was the job's last.
    fn task_done(&mut self, j: u32, stage: usize, res: Resources, t: i64) -> bool {
        // An estimator that predicts from the job's own first tasks (SLearn)
        // has its prediction once they finish: the first confident one.
        if self.rec.lacks_estimate(j) && self.engine.predicts_after_admission(j) {
            self.rec.estimated(j, self.engine.estimate_ms(j));
        }
        let trace: &'a Trace = self.trace;
        let job = &trace.jobs[j as usize];
        let run = &mut self.runs[j as usize];
        run.allocated -= res;
        self.rec.share(j, t, run.allocated);
        let mut actions = std::mem::take(&mut self.actions);
        let slowstart = if self.sls.is_some() { 1.0 } else { self.opts.slowstart };
        let done = run.task_finished(job, stage, slowstart, &mut actions);
        self.act(j, t, &mut actions);
        self.actions = actions;
        if done {
            self.job_done(j, t);
        }
        done
    }

    /// The job's category: from the trace, else DRESS's demand rule.
    fn category(&self, j: u32) -> String {
        self.trace.jobs[j as usize].category_or_derived(&self.cluster.capacity, self.opts.small_theta)
    }

    /// Every task of job `j` is done, and so is the job for its user: a
    /// MapReduce client reports success when the last task's output is
    /// committed, and the harness measures JCT to that report. With an AM,
    /// its container still holds its resources for the AM's exit time and
    /// the app leaves the scheduler after it.
    fn job_done(&mut self, j: u32, t: i64) {
        self.finish_job(j, t);
        // SLS: `lastStep` hands the AM container to its NM
        // (`NMSimulator.cleanupContainer`), which reports it at its next
        // heartbeat.
        if self.sls.is_some() {
            let at = self.am_of[j as usize].map_or(t, |(_, node, _)| self.next_heartbeat(node, t));
            self.clock.push(at, SimEvent::AmExit(j));
            return;
        }
        match self.model {
            Some(m) => {
                let d = m.am_exit_ms.draw(&mut self.rng) as i64;
                self.clock.push(t + d, SimEvent::AmExit(j));
            }
            None => self.engine.apply(Event::AppRemoved { app: j }),
        }
    }

    /// Job `j`'s AM exits: its container finishes and the app leaves the
    /// scheduler (the job itself was done at its last task's end).
    pub(super) fn am_exit(&mut self, j: u32, t: i64) {
        if let Some((c, node, res)) = self.am_of[j as usize].take() {
            self.job_of_am.remove(&c);
            self.running -= 1;
            self.running_changed(t);
            self.use_on(node, t, Resources::new(res.0[0], res.0[1] * 1000), false);
            self.engine.apply(Event::ContainerFinished { container: c, exit_status: 0, at_ms: t });
            self.cluster.refresh(&self.engine, node);
            if self.opts.oob_heartbeats {
                self.out_of_band_heartbeat_due(node, t);
            }
            self.rec.am_ended(t, res);
            // The job's fairness track ended with the job (`finish_job`);
            // its user's goes on.
            self.runs[j as usize].allocated -= res;
            self.rec.user_holds(j, t, self.runs[j as usize].allocated);
        }
        self.engine.apply(Event::AppRemoved { app: j });
    }

    /// Job `j`'s record: done at `t` (its last task's end).
    fn finish_job(&mut self, j: u32, t: i64) {
        let trace: &'a Trace = self.trace;
        let job = &trace.jobs[j as usize];
        let run = &mut self.runs[j as usize];
        run.finish_ms = Some(t);
        let first_start_ms = run.first_start_ms.unwrap_or(t);
        let category = self.category(j);
        self.rec.job_done(j, job, t, first_start_ms, category);
    }
}

/// The `shepherd.dag` tag an AM that knows its DAG sends (Carbyne's hint):
/// per stage its key's priority, task count, mean task duration (what such
/// an AM estimates from past runs), parents and demand. Only Carbyne reads
/// it (`[carbyne] dag_hint`).
fn dag_hint(job: &crate::workload::Job) -> String {
    use crate::policy::carbyne::hint::{format, HintStage};
    let stages: Vec<HintStage> = job
        .stages
        .iter()
        .enumerate()
        .map(|(i, s)| HintStage {
            priority: stage_key(i).priority,
            tasks: s.tasks.len() as i64,
            task_ms: (!s.tasks.is_empty()).then(|| s.tasks.iter().map(|t| t.duration_ms as f64).sum::<f64>() / s.tasks.len() as f64),
            parents: s.after.clone(),
            demand: Some(s.demand()),
        })
        .collect();
    format(&stages)
}

/// The ApplicationMaster container of `job`: the job's own, else the
/// trace's, else the cluster model's default (MapReduce's).
pub(super) fn am_size(trace: &Trace, job: &crate::workload::Job, model: Option<&Calibration>) -> Resources {
    let (m, v) =
        job.am.or(trace.am).map(|a| (a.memory_mb, a.vcores)).unwrap_or_else(|| model.map_or((1536, 1), |c| (c.am_memory_mb, c.am_vcores)));
    Resources::new(m, v)
}

/// Scheduler key of stage `s`: earlier stages are more urgent (lower YARN
/// priority value), all after the ApplicationMaster's `AM_PRIORITY`; the
/// request id names the stage.
pub fn stage_key(s: usize) -> SchedulerKey {
    SchedulerKey { priority: crate::model::ask::AM_PRIORITY + 1 + s as i32, allocation_request_id: s as i64 }
}
