//! One ApplicationMaster per job: it asks for a stage's containers once the
//! stage's parents have finished (or, with slow-start, once enough of their
//! tasks have), hands each allocated container the stage's next task, and
//! optionally holds a stage's containers until all are allocated (gang start).

use crate::model::{ContainerId, NodeId, Resources};
use crate::workload::Job;

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
