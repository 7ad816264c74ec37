//! Hadoop Scheduler Load Simulator (SLS) JSON traces: a stream of job objects
//! (`job.id`, `job.start.ms`, `job.tasks` with `container.start.ms` /
//! `container.end.ms` or `duration.ms`, `container.priority`,
//! `container.type`, optional `container.count`, `container.memory`,
//! `container.vcores`), as `hadoop-sls` reads with `--tracetype SLS`.
//!
//! Mapping to a [`Trace`]: one stage per distinct (type, priority), ordered by
//! descending priority value (MapReduce maps are 20, reduces 10), each stage
//! after the previous one (the map→reduce barrier). Container size defaults
//! to SLS's 1024 MB / 1 vcore.

use super::trace::{Job, Stage, Task, Trace, MAX_TASKS_PER_JOB};
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SlsJob {
    #[serde(rename = "am.type", default = "mapreduce")]
    pub am_type: String,
    #[serde(rename = "job.start.ms")]
    pub start_ms: i64,
    #[serde(rename = "job.end.ms", default, skip_serializing_if = "Option::is_none")]
    pub end_ms: Option<i64>,
    #[serde(rename = "job.queue.name", default = "default_queue")]
    pub queue: String,
    #[serde(rename = "job.id")]
    pub id: String,
    #[serde(rename = "job.user", default = "default_user")]
    pub user: String,
    #[serde(rename = "job.name", default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(rename = "job.tasks")]
    pub tasks: Vec<SlsTask>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SlsTask {
    #[serde(rename = "container.host", default, skip_serializing_if = "Option::is_none")]
    pub host: Option<String>,
    #[serde(rename = "container.start.ms", default, skip_serializing_if = "Option::is_none")]
    pub start_ms: Option<i64>,
    #[serde(rename = "container.end.ms", default, skip_serializing_if = "Option::is_none")]
    pub end_ms: Option<i64>,
    #[serde(rename = "duration.ms", default, skip_serializing_if = "Option::is_none")]
    pub duration_ms: Option<i64>,
    #[serde(rename = "container.priority", default = "default_priority")]
    pub priority: i32,
    #[serde(rename = "container.type", default = "map")]
    pub kind: String,
    #[serde(rename = "container.count", default, skip_serializing_if = "Option::is_none")]
    pub count: Option<u32>,
    #[serde(rename = "container.memory", default, skip_serializing_if = "Option::is_none")]
    pub memory_mb: Option<i64>,
    #[serde(rename = "container.vcores", default, skip_serializing_if = "Option::is_none")]
    pub vcores: Option<i64>,
}

fn mapreduce() -> String {
    "mapreduce".into()
}
fn default_queue() -> String {
    "default".into()
}
fn default_user() -> String {
    "default".into()
}
fn default_priority() -> i32 {
    20
}
fn map() -> String {
    "map".into()
}

impl SlsTask {
    pub fn duration(&self) -> i64 {
        self.duration_ms.unwrap_or_else(|| self.end_ms.unwrap_or(0) - self.start_ms.unwrap_or(0)).max(0)
    }
}

/// Parse a stream of SLS job objects (concatenated or a JSON array).
pub fn parse(text: &str) -> Result<Vec<SlsJob>, String> {
    let jobs: Vec<SlsJob> = if text.trim_start().starts_with('[') {
        serde_json::from_str(text).map_err(|e| e.to_string())?
    } else {
        serde_json::Deserializer::from_str(text).into_iter::<SlsJob>().collect::<Result<Vec<_>, _>>().map_err(|e| e.to_string())?
    };
    // `container.count` repeats a task: bound the expansion (a u32 count
    // would otherwise let one entry ask for billions of tasks).
    for j in &jobs {
        let total: u64 = j.tasks.iter().map(|t| u64::from(t.count.unwrap_or(1))).sum();
        if total > MAX_TASKS_PER_JOB {
            return Err(format!("job {}: `container.count` adds up to {total} tasks, over {MAX_TASKS_PER_JOB}", j.id));
        }
    }
    Ok(jobs)
}

/// Write jobs as SLS does: one pretty-printed object after another.
pub fn write(jobs: &[SlsJob]) -> String {
    let mut s = String::new();
    for j in jobs {
        s.push_str(&serde_json::to_string_pretty(j).expect("sls serializes"));
        s.push('\n');
    }
    s
}

pub fn to_trace(jobs: &[SlsJob]) -> Trace {
    let jobs = jobs
        .iter()
        .map(|j| {
            let mut keys: Vec<(i32, &str)> = j.tasks.iter().map(|t| (t.priority, t.kind.as_str())).collect();
            keys.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(b.1)));
            keys.dedup();
            let stages = keys
                .iter()
                .enumerate()
                .map(|(i, (prio, kind))| {
                    let ts: Vec<&SlsTask> = j.tasks.iter().filter(|t| t.priority == *prio && t.kind == *kind).collect();
                    let first = ts[0];
                    Stage {
                        name: kind.to_string(),
                        after: if i == 0 { vec![] } else { vec![i - 1] },
                        slowstart: None,
                        memory_mb: first.memory_mb.unwrap_or(1024),
                        vcores: first.vcores.unwrap_or(1),
                        tasks: ts
                            .iter()
                            .flat_map(|t| {
                                std::iter::repeat_n(Task { duration_ms: t.duration(), used: None }, t.count.unwrap_or(1) as usize)
                            })
                            .collect(),
                    }
                })
                .collect();
            Job {
                id: j.id.clone(),
                submit_ms: j.start_ms,
                user: j.user.clone(),
                name: j.name.clone().unwrap_or_else(|| j.am_type.clone()),
                queue: j.queue.clone(),
                category: None,
                gang: false,
                am: None,
                stages,
            }
        })
        .collect();
    Trace { cluster: None, am: None, jobs }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn example_round_trips() {
        let text = include_str!("../../examples/traces/sls-jobs.json");
        let jobs = parse(text).unwrap();
        assert_eq!(jobs.len(), 2);
        assert_eq!(parse(&write(&jobs)).unwrap(), jobs);
        let t = to_trace(&jobs);
        assert_eq!(t.jobs[0].stages.len(), 2);
        assert_eq!(t.jobs[0].stages[0].name, "map");
        assert_eq!(t.jobs[0].stages[1].after, vec![0]);
        assert_eq!(t.jobs[0].stages[0].tasks[0].duration_ms, 17043);
        assert_eq!(t.jobs[1].task_count(), 4);
        t.validate().unwrap();
    }
}
