//! SLearn-DAG (§6): sample only a DAG job's first stage and correct the
//! history-based estimates of its later stages by how far the history was
//! off on the first one:
//!
//! ```text
//!   size = d_s + Σ_{k ≥ 1} h_k · d_s / d_h
//! ```
//!
//! d_s is the first stage's work as sampling predicts it (pilots' mean ×
//! width), d_h the first stage's work as history predicts it, h_k the
//! history's estimate of stage k. History is kept per job (user + name, as
//! 3Sigma keys it) and per stage in the order the app asked for them; each
//! stage's estimate is the mean of its recent runs' work (container-ms).

use std::collections::{HashMap, VecDeque};

/// Recent runs' work per stage, per job key.
#[derive(Debug, Default)]
pub struct StageHistory {
    max_runs: usize,
    jobs: HashMap<String, Vec<VecDeque<f64>>>,
}

impl StageHistory {
    pub fn new(max_runs: usize) -> StageHistory {
        StageHistory { max_runs: max_runs.max(1), jobs: HashMap::new() }
    }

    /// A run of `job` finished with these stage works (first stage first).
    pub fn learn(&mut self, job: &str, stage_work_ms: &[f64]) {
        if stage_work_ms.is_empty() {
            return;
        }
        let stages = self.jobs.entry(job.to_string()).or_default();
        if stages.len() < stage_work_ms.len() {
            stages.resize_with(stage_work_ms.len(), VecDeque::new);
        }
        for (runs, w) in stages.iter_mut().zip(stage_work_ms) {
            runs.push_back(*w);
            while runs.len() > self.max_runs {
                runs.pop_front();
            }
        }
    }

    /// h_k: the history's estimate of each stage of `job` (None for a stage
    /// no past run had).
    pub fn stages(&self, job: &str) -> Vec<Option<f64>> {
        self.jobs
            .get(job)
            .map(|s| s.iter().map(|runs| (!runs.is_empty()).then(|| runs.iter().sum::<f64>() / runs.len() as f64)).collect())
            .unwrap_or_default()
    }

    pub fn jobs(&self) -> usize {
        self.jobs.len()
    }
}

/// §6: the later stages' work, h_k scaled by d_s / d_h. `history[0]` is
/// d_h; stages the history does not know are `visible[k]` (the app's own
/// asks for them × a per-task runtime, unscaled), or nothing.
pub fn later_stages(d_s: f64, history: &[Option<f64>], visible: &[f64]) -> f64 {
    let ratio = match history.first().copied().flatten() {
        Some(d_h) if d_h > 0.0 => d_s / d_h,
        _ => 1.0,
    };
    let n = history.len().max(visible.len());
    (1..n)
        .map(|k| match history.get(k).copied().flatten() {
            Some(h) => h * ratio,
            None => visible.get(k).copied().unwrap_or(0.0),
        })
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn later_stages_are_history_scaled_by_the_first_stages_error() {
        let mut h = StageHistory::new(2);
        // Two past runs: first stage 100 / 140 s of work, second 50 / 70,
        // third 10 (only the second run had one).
        h.learn("u\u{1f}j", &[100.0, 50.0]);
        h.learn("u\u{1f}j", &[140.0, 70.0, 10.0]);
        let stages = h.stages("u\u{1f}j");
        assert_eq!(stages, vec![Some(120.0), Some(60.0), Some(10.0)]);
        // Sampling says the first stage is 240 (history said 120): d_s/d_h = 2.
        assert_eq!(later_stages(240.0, &stages, &[]), 2.0 * (60.0 + 10.0));
        // A stage beyond the history counts as the app shows it, unscaled.
        assert_eq!(later_stages(240.0, &stages, &[0.0, 0.0, 0.0, 7.0]), 140.0 + 7.0);
        // No history: the visible later stages only.
        assert_eq!(later_stages(240.0, &[], &[0.0, 30.0]), 30.0);
        // The window keeps the last 2 runs.
        h.learn("u\u{1f}j", &[180.0, 90.0]);
        assert_eq!(h.stages("u\u{1f}j")[0], Some(160.0));
    }
}
