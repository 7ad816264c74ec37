//! The trace flattened for the event loops: jobs, stages and tasks as
//! index ranges into flat arrays (millions of tasks, no per-task heap
//! objects), and the readiness of stages by their dependencies.
//!
//! A stage's tasks are *asked* when the job is submitted (stages without
//! `after`) or when every task of all its parent stages has finished: a
//! strict barrier. The trace's MapReduce slow-start fraction is not used
//! here (the scale comparison is about allocation, not about overlapping
//! stages).

use crate::model::Resources;
use crate::workload::Trace;
use std::collections::HashMap;

pub struct JobShape {
    pub submit_us: i64,
    /// The job's user queue (index into `Workload::queue_names`).
    pub queue: u32,
    pub first_stage: u32,
    pub stage_count: u32,
}

pub struct StageShape {
    pub job: u32,
    /// Index into `Workload::shapes`: the demand of each of its tasks.
    pub shape: u32,
    pub first_task: u32,
    pub task_count: u32,
    pub parent_count: u32,
    pub first_child: u32,
    pub child_count: u32,
}

pub struct Workload {
    pub nodes: usize,
    pub node_capacity: Resources,
    /// In submission order (stable for equal times), so a job's index is
    /// its FIFO rank and stage ids increase with (job, stage).
    pub jobs: Vec<JobShape>,
    pub stages: Vec<StageShape>,
    /// Children of stage s: `children[first_child .. first_child + child_count]`.
    pub children: Vec<u32>,
    pub task_duration_us: Vec<i64>,
    pub task_stage: Vec<u32>,
    /// Distinct task demands of the trace.
    pub shapes: Vec<Resources>,
    /// Component-wise minimum of `shapes`: a node whose free resources do
    /// not cover it can take no task at all.
    pub smallest_shape: Resources,
    /// One queue per user (Megha §IV-C: "Each user is assigned a queue").
    pub queue_names: Vec<String>,
}

impl Workload {
    pub fn from_trace(trace: &Trace, nodes: usize, node_capacity: Resources) -> Result<Workload, String> {
        if nodes == 0 {
            return Err("the cluster needs at least one node".into());
        }
        let mut order: Vec<usize> = (0..trace.jobs.len()).collect();
        order.sort_by_key(|&i| trace.jobs[i].submit_ms);
        let mut w = Workload {
            nodes,
            node_capacity,
            jobs: Vec::with_capacity(order.len()),
            stages: Vec::new(),
            children: Vec::new(),
            task_duration_us: Vec::with_capacity(trace.task_count()),
            task_stage: Vec::with_capacity(trace.task_count()),
            shapes: Vec::new(),
            smallest_shape: Resources::ZERO,
            queue_names: Vec::new(),
        };
        let mut shape_ids: HashMap<Resources, u32> = HashMap::new();
        let mut queue_ids: HashMap<String, u32> = HashMap::new();
        let mut child_lists: Vec<Vec<u32>> = Vec::new();
        for i in order {
            let job = &trace.jobs[i];
            let job_id = w.jobs.len() as u32;
            let queue = *queue_ids.entry(job.user.clone()).or_insert_with(|| {
                w.queue_names.push(job.user.clone());
                (w.queue_names.len() - 1) as u32
            });
            let first_stage = w.stages.len() as u32;
            for (k, stage) in job.stages.iter().enumerate() {
                let demand = stage.demand();
                if !demand.fits_in(&node_capacity) {
                    return Err(format!("job {} stage {k}: a task asks {demand:?}, more than a node has ({node_capacity:?})", job.id));
                }
                let next_shape = shape_ids.len() as u32;
                let shape = *shape_ids.entry(demand).or_insert(next_shape);
                if shape == next_shape {
                    w.shapes.push(demand);
                }
                let id = w.stages.len() as u32;
                for &p in &stage.after {
                    child_lists[(first_stage as usize) + p].push(id);
                }
                child_lists.push(Vec::new());
                w.stages.push(StageShape {
                    job: job_id,
                    shape,
                    first_task: w.task_duration_us.len() as u32,
                    task_count: stage.tasks.len() as u32,
                    parent_count: stage.after.len() as u32,
                    first_child: 0,
                    child_count: 0,
                });
                for t in &stage.tasks {
                    w.task_duration_us.push(t.duration_ms.max(0) * 1000);
                    w.task_stage.push(id);
                }
            }
            w.jobs.push(JobShape { submit_us: job.submit_ms.max(0) * 1000, queue, first_stage, stage_count: job.stages.len() as u32 });
        }
        if w.task_duration_us.len() > u32::MAX as usize {
            return Err("more than 2^32 tasks".into());
        }
        for (s, kids) in child_lists.into_iter().enumerate() {
            w.stages[s].first_child = w.children.len() as u32;
            w.stages[s].child_count = kids.len() as u32;
            w.children.extend(kids);
        }
        w.smallest_shape = w.shapes.iter().copied().reduce(|m, s| m.min_each(&s)).unwrap_or(Resources::ZERO);
        Ok(w)
    }

    pub fn task_count(&self) -> usize {
        self.task_duration_us.len()
    }

    /// What each task of this stage holds on its node.
    pub fn demand(&self, stage: u32) -> Resources {
        self.shapes[self.stages[stage as usize].shape as usize]
    }

    pub fn task_demand(&self, task: u32) -> Resources {
        self.demand(self.task_stage[task as usize])
    }

    pub fn job_of_task(&self, task: u32) -> u32 {
        self.stages[self.task_stage[task as usize] as usize].job
    }

    pub fn children_of(&self, stage: u32) -> &[u32] {
        let s = &self.stages[stage as usize];
        &self.children[s.first_child as usize..(s.first_child + s.child_count) as usize]
    }
}

/// Which stages are ready and which jobs are done, as tasks finish.
pub struct JobTracker {
    parents_left: Vec<u32>,
    tasks_left: Vec<u32>,
    stages_left: Vec<u32>,
    pub job_finish_us: Vec<i64>,
    pub tasks_finished: u64,
    pub jobs_finished: u64,
}

impl JobTracker {
    pub fn new(w: &Workload) -> JobTracker {
        JobTracker {
            parents_left: w.stages.iter().map(|s| s.parent_count).collect(),
            tasks_left: w.stages.iter().map(|s| s.task_count).collect(),
            stages_left: w.jobs.iter().map(|j| j.stage_count).collect(),
            job_finish_us: vec![-1; w.jobs.len()],
            tasks_finished: 0,
            jobs_finished: 0,
        }
    }

    pub fn all_done(&self, w: &Workload) -> bool {
        self.jobs_finished as usize == w.jobs.len()
    }

    /// The job arrives: its root stages become ready (appended to `ready`;
    /// stages without tasks complete at once and are not listed).
    pub fn submit(&mut self, w: &Workload, job: u32, now_us: i64, ready: &mut Vec<u32>) {
        let j = &w.jobs[job as usize];
        if j.stage_count == 0 {
            self.finish_job(job, now_us);
            return;
        }
        for s in j.first_stage..j.first_stage + j.stage_count {
            if w.stages[s as usize].parent_count == 0 {
                self.stage_ready(w, s, now_us, ready);
            }
        }
    }

    /// A task finished; appends the stages this makes ready.
    pub fn task_finished(&mut self, w: &Workload, task: u32, now_us: i64, ready: &mut Vec<u32>) {
        self.tasks_finished += 1;
        let s = w.task_stage[task as usize];
        let left = &mut self.tasks_left[s as usize];
        debug_assert!(*left > 0, "task {task} finished twice");
        *left -= 1;
        if *left == 0 {
            self.stage_done(w, s, now_us, ready);
        }
    }

    fn stage_ready(&mut self, w: &Workload, s: u32, now_us: i64, ready: &mut Vec<u32>) {
        if w.stages[s as usize].task_count == 0 {
            self.stage_done(w, s, now_us, ready);
        } else {
            ready.push(s);
        }
    }

    fn stage_done(&mut self, w: &Workload, s: u32, now_us: i64, ready: &mut Vec<u32>) {
        let job = w.stages[s as usize].job;
        for &c in w.children_of(s) {
            let p = &mut self.parents_left[c as usize];
            *p -= 1;
            if *p == 0 {
                self.stage_ready(w, c, now_us, ready);
            }
        }
        let left = &mut self.stages_left[job as usize];
        *left -= 1;
        if *left == 0 {
            self.finish_job(job, now_us);
        }
    }

    fn finish_job(&mut self, job: u32, now_us: i64) {
        self.job_finish_us[job as usize] = now_us;
        self.jobs_finished += 1;
    }
}
