//! Hadoop Scheduler Load Simulator (SLS, hadoop-sls 3.4) JSON traces: a
//! stream of job objects (`job.id`, `job.start.ms`, `job.end.ms`,
//! `job.queue.name`, `job.user`, the AM's size as `am.memory-mb` /
//! `am.vcores`, and `job.tasks`, each task with `container.duration.ms` (or
//! SLS's legacy `duration.ms`, or `container.start.ms` / `container.end.ms`),
//! `container.priority`, `container.type`, optional `container.count`, and
//! its size as `container.memory-mb` / `container.vcores` — SLS reads a
//! resource as its prefix + the resource's name; older files' spelling
//! `container.memory` is read too). SLS ignores keys it does not know, so
//! Shepherd adds `job.name` and `job.category`. Read with `--tracetype SLS`.
//!
//! Mapping to a [`Trace`]: one stage per distinct (type, priority), ordered by
//! descending priority value (MapReduce maps are 20, reduces 10), each stage
//! after the previous one (the map→reduce barrier). Container size defaults
//! to SLS's 1024 MB / 1 vcore, an AM named by neither key to SLS's default.
//!
//! Writing ([`from_trace`]): SLS's MapReduce AM (`MRAMSimulator`) forces
//! maps to priority 20 and reduces to 10 and asks for the reduces only once
//! every map finished, so only map-only and map→reduce jobs can be written;
//! a stage's slow-start below 1 is written anyway but SLS runs it as a
//! barrier, gang jobs start task by task, and tasks use their whole request
//! (`used` is dropped). `job.end.ms` is the job's earliest possible end
//! (submission + critical path), which SLS only reports. The cluster goes
//! to a nodes file ([`write_nodes`], SLS's `-nodes`); [`super::load`] reads
//! `X.nodes.json` beside `X.sls.json` back as the trace's cluster.

use super::trace::{AmSpec, ClusterSpec, Job, Stage, Task, Trace, DEFAULT_RACK_SIZE, MAX_NODES, MAX_TASKS_PER_JOB};
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
    /// Shepherd's reporting category (`small`, `large`, ...); SLS ignores it.
    #[serde(rename = "job.category", default, skip_serializing_if = "Option::is_none")]
    pub category: Option<String>,
    /// The ApplicationMaster container's memory (absent: SLS's
    /// `yarn.sls.am.container.memory`, 1024 MB by default).
    #[serde(rename = "am.memory-mb", default, skip_serializing_if = "Option::is_none")]
    pub am_memory_mb: Option<i64>,
    #[serde(rename = "am.vcores", default, skip_serializing_if = "Option::is_none")]
    pub am_vcores: Option<i64>,
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
    #[serde(rename = "container.duration.ms", alias = "duration.ms", default, skip_serializing_if = "Option::is_none")]
    pub duration_ms: Option<i64>,
    #[serde(rename = "container.priority", default = "default_priority")]
    pub priority: i32,
    #[serde(rename = "container.type", default = "map")]
    pub kind: String,
    #[serde(rename = "container.count", default, skip_serializing_if = "Option::is_none")]
    pub count: Option<u32>,
    #[serde(rename = "container.memory-mb", alias = "container.memory", default, skip_serializing_if = "Option::is_none")]
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
            let am = (j.am_memory_mb.is_some() || j.am_vcores.is_some())
                .then(|| AmSpec { memory_mb: j.am_memory_mb.unwrap_or(SLS_AM_MEMORY_MB), vcores: j.am_vcores.unwrap_or(SLS_AM_VCORES) });
            Job {
                id: j.id.clone(),
                submit_ms: j.start_ms,
                user: j.user.clone(),
                name: j.name.clone().unwrap_or_else(|| j.am_type.clone()),
                queue: j.queue.clone(),
                category: j.category.clone(),
                gang: false,
                app_type: None,
                am,
                stages,
            }
        })
        .collect();
    Trace { cluster: None, am: None, jobs }
}

/// SLS's defaults for what a trace or nodes file leaves out
/// (`SLSConfiguration`: `yarn.sls.am.container.*`, `yarn.sls.nm.*`).
pub const SLS_AM_MEMORY_MB: i64 = 1024;
pub const SLS_AM_VCORES: i64 = 1;
pub const SLS_NM_MEMORY_MB: i64 = 10240;
pub const SLS_NM_VCORES: i64 = 10;

/// SLS's MapReduce AM's priorities (`MRAMSimulator` forces them).
const MAP_PRIORITY: i32 = 20;
const REDUCE_PRIORITY: i32 = 10;

/// A job's stages as `name`, `name after [i, ..]`, for messages.
fn shape(j: &Job) -> String {
    let stages: Vec<String> =
        j.stages.iter().map(|s| if s.after.is_empty() { s.name.clone() } else { format!("{} after {:?}", s.name, s.after) }).collect();
    format!("[{}]", stages.join(", "))
}

/// One SLS MapReduce job per job of `t`: its id, submission, user, queue,
/// name, category (the trace's, else the one Shepherd's simulator derives
/// on the trace's cluster with the default θ; none without a cluster), AM
/// size (the job's, else the trace's, else SLS's default) and one task
/// entry per task, with its own duration and its stage's size. An error,
/// naming the job and its stages, for a job that is not map-only or
/// map→reduce (module docs).
pub fn from_trace(t: &Trace) -> Result<Vec<SlsJob>, String> {
    let theta = super::trace::DEFAULT_SMALL_THETA;
    let total = t.cluster.as_ref().map(ClusterSpec::total);
    t.jobs
        .iter()
        .map(|j| {
            let map_reduce = match j.stages.as_slice() {
                [m] => m.after.is_empty(),
                [m, r] => m.after.is_empty() && r.after == [0],
                _ => false,
            };
            if !map_reduce {
                return Err(format!(
                    "job {}: stages {} are not [map] or [map, reduce after map], the only shapes SLS's MapReduce AM replays \
                     (a DAG such as a TPC-DS query cannot be an SLS MapReduce job)",
                    j.id,
                    shape(j)
                ));
            }
            if j.task_count() == 0 {
                return Err(format!("job {}: no tasks (SLS refuses a job without tasks)", j.id));
            }
            let tasks = j
                .stages
                .iter()
                .zip([("map", MAP_PRIORITY), ("reduce", REDUCE_PRIORITY)])
                .flat_map(|(s, (kind, priority))| {
                    s.tasks.iter().map(move |task| SlsTask {
                        host: None,
                        start_ms: None,
                        end_ms: None,
                        duration_ms: Some(task.duration_ms),
                        priority,
                        kind: kind.into(),
                        count: None,
                        memory_mb: Some(s.memory_mb),
                        vcores: Some(s.vcores),
                    })
                })
                .collect();
            let am = j.am.or(t.am);
            Ok(SlsJob {
                am_type: mapreduce(),
                start_ms: j.submit_ms,
                end_ms: Some(j.submit_ms + j.critical_path_ms()),
                queue: j.queue.clone(),
                id: j.id.clone(),
                user: j.user.clone(),
                name: Some(j.name.clone()),
                category: match &total {
                    Some(total) => Some(j.category_or_derived(total, theta)),
                    None => j.category.clone(),
                },
                am_memory_mb: am.map(|a| a.memory_mb),
                am_vcores: am.map(|a| a.vcores),
                tasks,
            })
        })
        .collect()
}

/// One rack of an SLS nodes file (`-nodes`): SLS names its nodes
/// `/<rack>/<node>`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SlsRack {
    pub rack: String,
    pub nodes: Vec<SlsNode>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SlsNode {
    pub node: String,
    /// Absent: SLS's `yarn.sls.nm.memory.mb` (10240 MB by default).
    #[serde(rename = "memory-mb", default, skip_serializing_if = "Option::is_none")]
    pub memory_mb: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vcores: Option<i64>,
}

/// The cluster as an SLS nodes file: racks `rack-<r>` of `rack_size` nodes,
/// one pretty-printed rack object after another. Node `i` (numbered across
/// racks) is named by a loopback address, `127.0.<i / 250>.<i % 250 + 1>`:
/// SLS's RM resolves every container's host when it makes the container's
/// token, and a name such as `node-3` does not resolve (every AM container
/// then fails with UnknownHostException); distinct loopback addresses need
/// no DNS and keep the hosts distinct.
pub fn write_nodes(c: &ClusterSpec) -> String {
    let per_rack = c.rack_size.max(1);
    let mut s = String::new();
    for r in 0..c.nodes.div_ceil(per_rack) {
        let rack = SlsRack {
            rack: format!("rack-{r}"),
            nodes: (r * per_rack..((r + 1) * per_rack).min(c.nodes))
                .map(|i| SlsNode { node: loopback_host(i), memory_mb: Some(c.memory_mb), vcores: Some(c.vcores) })
                .collect(),
        };
        s.push_str(&serde_json::to_string_pretty(&rack).expect("nodes serialize"));
        s.push('\n');
    }
    s
}

/// The host name of node `i` in an SLS nodes file (see [`write_nodes`]).
pub fn loopback_host(i: u32) -> String {
    format!("127.0.{}.{}", i / 250, i % 250 + 1)
}

/// Read an SLS nodes file (a stream or array of rack objects) as a
/// homogeneous cluster: its distinct nodes (SLS keeps one of a repeated
/// name), their size (SLS's defaults for a missing key), `rack_size` the
/// largest rack's (one rack: its nodes, or the default rack size if more). An error when nodes differ in size or there are none.
pub fn parse_nodes(text: &str) -> Result<ClusterSpec, String> {
    let racks: Vec<SlsRack> = if text.trim_start().starts_with('[') {
        serde_json::from_str(text).map_err(|e| e.to_string())?
    } else {
        serde_json::Deserializer::from_str(text).into_iter::<SlsRack>().collect::<Result<Vec<_>, _>>().map_err(|e| e.to_string())?
    };
    let mut seen = std::collections::BTreeSet::new();
    let mut per_rack = std::collections::BTreeMap::<&str, u32>::new();
    let mut size: Option<(String, i64, i64)> = None;
    for r in &racks {
        for n in &r.nodes {
            let name = format!("/{}/{}", r.rack, n.node);
            if !seen.insert(name.clone()) {
                continue;
            }
            *per_rack.entry(&r.rack).or_default() += 1;
            let (m, v) = (n.memory_mb.unwrap_or(SLS_NM_MEMORY_MB), n.vcores.unwrap_or(SLS_NM_VCORES));
            match &size {
                None => size = Some((name, m, v)),
                Some((first, fm, fv)) if (*fm, *fv) != (m, v) => {
                    return Err(format!(
                        "nodes differ in size ({first}: {fm} MB, {fv} vcores; {name}: {m} MB, {v} vcores); Shepherd's cluster is homogeneous"
                    ));
                }
                Some(_) => {}
            }
        }
    }
    let Some((_, memory_mb, vcores)) = size else { return Err("no nodes".into()) };
    if seen.len() > MAX_NODES {
        return Err(format!("{} nodes, over {MAX_NODES}", seen.len()));
    }
    if memory_mb <= 0 || vcores <= 0 {
        return Err(format!("nodes of {memory_mb} MB, {vcores} vcores: sizes must be positive"));
    }
    // One rack: any rack size at least its nodes says so; the default one when it does.
    let rack_size = match per_rack.len() {
        1 => (seen.len() as u32).max(DEFAULT_RACK_SIZE),
        _ => per_rack.values().copied().max().unwrap_or(1),
    };
    Ok(ClusterSpec { nodes: seen.len() as u32, memory_mb, vcores, rack_size })
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

    fn generated(kind: &str, jobs: usize, nodes: u32) -> Trace {
        let p = crate::workload::gen::GenParams { seed: 2, jobs: Some(jobs), nodes: Some(nodes), queues: Some(3), ..Default::default() };
        crate::workload::gen::generate(kind, &p).unwrap()
    }

    /// Generate → SLS jobs and nodes → read back: the same jobs and cluster.
    #[test]
    fn generated_trace_round_trips_through_sls() {
        for (kind, jobs, nodes) in [("facebook", 60, 12), ("google", 40, 10)] {
            let mut t = generated(kind, jobs, nodes);
            t.am = Some(AmSpec { memory_mb: 1536, vcores: 1 });
            t.jobs[1].am = Some(AmSpec { memory_mb: 2048, vcores: 2 });
            let text = write(&from_trace(&t).unwrap());
            for key in ["container.memory-mb", "container.duration.ms", "am.memory-mb", "job.category", "job.name"] {
                assert!(text.contains(&format!("\"{key}\"")), "{key} missing");
            }
            assert!(!text.contains("\"container.memory\""));
            let mut back = to_trace(&parse(&text).unwrap());
            back.cluster = Some(parse_nodes(&write_nodes(t.cluster.as_ref().unwrap())).unwrap());
            assert_eq!(back.cluster, t.cluster);
            let total = t.cluster.as_ref().unwrap().total();
            assert_eq!(back.jobs.len(), t.jobs.len());
            for (a, b) in t.jobs.iter().zip(&back.jobs) {
                assert_eq!((&a.id, a.submit_ms, &a.user, &a.queue, &a.name), (&b.id, b.submit_ms, &b.user, &b.queue, &b.name));
                assert_eq!(b.category.as_deref(), Some(a.category_or_derived(&total, 0.10).as_str()));
                assert_eq!(b.am, a.am.or(t.am));
                assert_eq!(a.stages.len(), b.stages.len());
                for (sa, sb) in a.stages.iter().zip(&b.stages) {
                    assert_eq!((sa.memory_mb, sa.vcores, &sa.after), (sb.memory_mb, sb.vcores, &sb.after));
                    let d = |s: &Stage| s.tasks.iter().map(|t| t.duration_ms).collect::<Vec<_>>();
                    assert_eq!(d(sa), d(sb));
                }
            }
            assert!(t.jobs.iter().any(|j| j.stages.len() == 2) || kind == "google");
            assert_eq!(back.jobs.iter().map(|j| j.queue.as_str()).collect::<std::collections::BTreeSet<_>>().len(), 3);
        }
    }

    #[test]
    fn a_dag_is_an_error_naming_the_job_and_its_stages() {
        let t = crate::workload::gen::generate("tpcds", &crate::workload::gen::GenParams { seed: 1, jobs: Some(5), ..Default::default() })
            .unwrap();
        let j = t.jobs.iter().find(|j| j.stages.len() > 2).unwrap();
        let e = from_trace(&Trace { cluster: None, am: None, jobs: vec![j.clone()] }).unwrap_err();
        assert!(e.starts_with(&format!("job {}: stages [", j.id)) && e.contains("after") && e.contains("TPC-DS"), "{e}");
    }

    #[test]
    fn both_memory_spellings_and_am_keys_are_read() {
        let text = r#"{"job.id": "j", "job.start.ms": 5, "job.category": "small", "am.memory-mb": 2048, "am.vcores": 2,
            "job.tasks": [{"container.memory": 3072, "container.vcores": 2, "duration.ms": 7, "container.type": "map"},
                          {"container.memory-mb": 4096, "container.duration.ms": 9, "container.type": "reduce", "container.priority": 10}]}"#;
        let t = to_trace(&parse(text).unwrap());
        let j = &t.jobs[0];
        assert_eq!(j.category.as_deref(), Some("small"));
        assert_eq!(j.am, Some(AmSpec { memory_mb: 2048, vcores: 2 }));
        assert_eq!((j.stages[0].memory_mb, j.stages[0].vcores, j.stages[0].tasks[0].duration_ms), (3072, 2, 7));
        assert_eq!((j.stages[1].memory_mb, j.stages[1].vcores, j.stages[1].tasks[0].duration_ms), (4096, 1, 9));
    }

    #[test]
    fn nodes_file_beside_the_jobs_is_the_cluster() {
        let dir = std::env::temp_dir().join(format!("shepherd-sls-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let t = generated("facebook", 20, 7);
        let c = ClusterSpec { nodes: 7, memory_mb: 32768, vcores: 16, rack_size: 3 };
        let jobs = dir.join("w.sls.json");
        std::fs::write(&jobs, write(&from_trace(&t).unwrap())).unwrap();
        assert_eq!(crate::workload::load(&jobs).unwrap().cluster, None);
        let nodes = dir.join("w.nodes.json");
        std::fs::write(&nodes, write_nodes(&c)).unwrap();
        assert_eq!(write_nodes(&c).matches("\"rack\"").count(), 3);
        let back = crate::workload::load(&jobs).unwrap();
        assert_eq!(back.cluster, Some(c));
        assert_eq!(back.jobs.len(), 20);
        std::fs::write(&nodes, r#"{"rack": "r", "nodes": [{"node": "a", "memory-mb": 1024}, {"node": "b", "memory-mb": 2048}]}"#).unwrap();
        let e = crate::workload::load(&jobs).unwrap_err();
        assert!(e.contains("w.nodes.json") && e.contains("differ in size") && e.contains("/r/b"), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
