//! SWIM (Statistical Workload Injector for MapReduce) traces: one job per
//! line, tab-separated —
//! `job_id  submit_time_s  inter_job_gap_s  map_input_bytes  shuffle_bytes  output_bytes`
//! (the format of SWIM's `FB-2009_samples_24_times_1hr_*.tsv` files).
//!
//! SWIM records bytes, not tasks; [`SwimModel`] turns bytes into a MapReduce
//! job the way Hadoop would split it:
//! * maps = ⌈input ÷ split size⌉ (HDFS block, 128 MiB), at least 1, at
//!   most `max_maps` (so one absurd input size cannot expand into billions
//!   of tasks);
//! * reduces = ⌈shuffle ÷ bytes per reducer⌉ (Hive's
//!   `hive.exec.reducers.bytes.per.reducer`, 256 MiB), 0 when nothing is
//!   shuffled (map-only job), at most `max_reduces`;
//! * map duration = overhead + (input ÷ maps) ÷ map throughput;
//! * reduce duration = overhead + (shuffle ÷ reduces) ÷ shuffle throughput
//!   + (output ÷ reduces) ÷ write throughput.

use super::trace::{Job, Stage, Task, Trace};

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SwimJob {
    pub id: String,
    pub submit_s: i64,
    pub gap_s: i64,
    pub input_bytes: u64,
    pub shuffle_bytes: u64,
    pub output_bytes: u64,
}

#[derive(Debug, Clone)]
pub struct SwimModel {
    pub split_bytes: u64,
    pub bytes_per_reduce: u64,
    pub max_reduces: u64,
    pub max_maps: u64,
    pub task_overhead_ms: i64,
    /// Bytes per second one map task reads and processes.
    pub map_bytes_per_s: f64,
    pub shuffle_bytes_per_s: f64,
    pub write_bytes_per_s: f64,
    pub memory_mb: i64,
    pub vcores: i64,
}

impl Default for SwimModel {
    fn default() -> Self {
        SwimModel {
            split_bytes: 128 << 20,
            bytes_per_reduce: 256 << 20,
            max_reduces: 999,
            // 100 000 maps = 12 TiB at 128 MiB splits, beyond the largest
            // FB-2009 job.
            max_maps: 100_000,
            task_overhead_ms: 2_000,
            map_bytes_per_s: 50e6,
            shuffle_bytes_per_s: 25e6,
            write_bytes_per_s: 50e6,
            memory_mb: 1024,
            vcores: 1,
        }
    }
}

pub fn parse(text: &str) -> Result<Vec<SwimJob>, String> {
    let mut jobs = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.trim_end_matches('\r');
        if line.trim().is_empty() || line.starts_with('#') {
            continue;
        }
        let f: Vec<&str> = line.split('\t').collect();
        if f.len() < 6 {
            return Err(format!("line {}: expected 6 tab-separated fields, got {}", n + 1, f.len()));
        }
        let int = |i: usize| -> Result<u64, String> {
            f[i].trim().parse::<u64>().map_err(|e| format!("line {} field {}: `{}`: {e}", n + 1, i + 1, f[i]))
        };
        jobs.push(SwimJob {
            id: f[0].trim().to_string(),
            submit_s: int(1)? as i64,
            gap_s: int(2)? as i64,
            input_bytes: int(3)?,
            shuffle_bytes: int(4)?,
            output_bytes: int(5)?,
        });
    }
    Ok(jobs)
}

pub fn write(jobs: &[SwimJob]) -> String {
    jobs.iter()
        .map(|j| format!("{}\t{}\t{}\t{}\t{}\t{}\n", j.id, j.submit_s, j.gap_s, j.input_bytes, j.shuffle_bytes, j.output_bytes))
        .collect()
}

pub fn to_trace(jobs: &[SwimJob], m: &SwimModel) -> Trace {
    let jobs = jobs
        .iter()
        .map(|j| {
            let maps = j.input_bytes.div_ceil(m.split_bytes).clamp(1, m.max_maps.max(1));
            let reduces = if j.shuffle_bytes == 0 { 0 } else { j.shuffle_bytes.div_ceil(m.bytes_per_reduce).clamp(1, m.max_reduces) };
            let map_ms = m.task_overhead_ms + (j.input_bytes as f64 / maps as f64 / m.map_bytes_per_s * 1000.0) as i64;
            let mut stages = vec![Stage {
                name: "map".into(),
                after: vec![],
                slowstart: None,
                memory_mb: m.memory_mb,
                vcores: m.vcores,
                tasks: vec![Task { duration_ms: map_ms, used: None }; maps as usize],
            }];
            if reduces > 0 {
                let r = reduces as f64;
                let red_ms = m.task_overhead_ms
                    + ((j.shuffle_bytes as f64 / r / m.shuffle_bytes_per_s + j.output_bytes as f64 / r / m.write_bytes_per_s) * 1000.0)
                        as i64;
                stages.push(Stage {
                    name: "reduce".into(),
                    after: vec![0],
                    slowstart: None,
                    memory_mb: m.memory_mb,
                    vcores: m.vcores,
                    tasks: vec![Task { duration_ms: red_ms, used: None }; reduces as usize],
                });
            }
            Job {
                id: j.id.clone(),
                submit_ms: j.submit_s * 1000,
                user: "swim".into(),
                name: j.id.clone(),
                queue: "default".into(),
                category: None,
                gang: false,
                app_type: None,
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
        let text = include_str!("../../examples/traces/fb-sample.swim");
        let jobs = parse(text).unwrap();
        assert_eq!(jobs.len(), 4);
        assert_eq!(write(&jobs), text);
        let t = to_trace(&jobs, &SwimModel::default());
        // 300 MB input → 3 maps; 600 MB shuffle → 3 reduces.
        assert_eq!(t.jobs[1].stages[0].tasks.len(), 3);
        assert_eq!(t.jobs[1].stages[1].tasks.len(), 3);
        // No shuffle → map-only.
        assert_eq!(t.jobs[0].stages.len(), 1);
        t.validate().unwrap();
    }
}
