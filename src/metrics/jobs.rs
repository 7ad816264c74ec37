//! One finished job: what `jobs.csv` holds (`report::files`).

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JobRecord {
    pub id: String,
    pub user: String,
    pub name: String,
    pub category: String,
    pub tasks: usize,
    /// Sum of task durations (container-ms): the job's size.
    pub work_ms: i64,
    pub submit_ms: i64,
    pub first_start_ms: i64,
    pub finish_ms: i64,
    /// The policy's size estimate at admission, if it makes one.
    pub estimate_ms: Option<f64>,
}

impl JobRecord {
    /// Job completion time: submission → last task end.
    pub fn jct_ms(&self) -> i64 {
        self.finish_ms - self.submit_ms
    }

    /// Waiting time: submission → first task start (DRESS §V).
    pub fn wait_ms(&self) -> i64 {
        self.first_start_ms - self.submit_ms
    }

    /// Relative estimation error |estimate − actual| / actual (SLearn §4.3).
    pub fn estimation_error(&self) -> Option<f64> {
        let e = self.estimate_ms?;
        (self.work_ms > 0).then(|| (e - self.work_ms as f64).abs() / self.work_ms as f64)
    }
}
