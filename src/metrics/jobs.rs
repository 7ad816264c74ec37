//! One finished job, as written to `jobs.csv`.

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

    pub const CSV_HEADER: &'static str =
        "id,user,name,category,tasks,work_ms,submit_ms,first_start_ms,finish_ms,jct_ms,wait_ms,estimate_ms";

    pub fn csv_row(&self) -> String {
        format!(
            "{},{},{},{},{},{},{},{},{},{},{},{}",
            csv_field(&self.id),
            csv_field(&self.user),
            csv_field(&self.name),
            csv_field(&self.category),
            self.tasks,
            self.work_ms,
            self.submit_ms,
            self.first_start_ms,
            self.finish_ms,
            self.jct_ms(),
            self.wait_ms(),
            self.estimate_ms.map(|e| format!("{e:.0}")).unwrap_or_default()
        )
    }
}

/// One CSV field, quoted when it holds a comma, quote or newline.
pub fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}
