//! How many pilot tasks: the sampling ratio r, pilots = ⌈r · n⌉ of a wide
//! app's n first-stage tasks (§5.1.2), chosen by the adaptive algorithm of
//! Fig. 4 or fixed (Table 6's fixed-ratio rows).

use std::collections::{BTreeMap, VecDeque};

/// Sampling ratios in percent the adaptive algorithm chooses among (Fig. 4).
pub const ADAPTIVE_PERCENTS: [u32; 5] = [1, 2, 3, 4, 5];

/// Pilots for a first stage of `width` tasks at ratio `r`: ⌈r · width⌉, at
/// least one, at most the width (§5.1.2; §4.3 samples max(1, 0.03·S)).
pub fn pilot_count(width: u32, r: f64) -> u32 {
    ((r * width as f64 - 1e-9).ceil().max(1.0) as u32).min(width)
}

/// Fig. 4: a running score per ratio — the mean normalized JCT of the last
/// T finished jobs sampled at that ratio — and the choice for the next job.
#[derive(Debug, Clone)]
pub struct AdaptiveRatio {
    /// T (the paper uses 100).
    window: usize,
    /// Jobs that have been given a ratio so far.
    started: u64,
    /// jobWiseSrScoresMap: per ratio (percent), the last T normalized JCTs.
    scores: BTreeMap<u32, VecDeque<f64>>,
}

impl AdaptiveRatio {
    pub fn new(window: usize) -> AdaptiveRatio {
        AdaptiveRatio { window: window.max(1), started: 0, scores: BTreeMap::new() }
    }

    /// srScoreMap[sr].value: the running score of ratio `percent`.
    pub fn score(&self, percent: u32) -> Option<f64> {
        let s = self.scores.get(&percent).filter(|s| !s.is_empty())?;
        Some(s.iter().sum::<f64>() / s.len() as f64)
    }

    /// GetCurrentSamplingPercentage (Fig. 4, lines 1–15) for the next job,
    /// without counting it (for the metrics).
    pub fn peek(&self) -> u32 {
        let t = self.window as u64;
        match self.started {
            k if k < t => return 3,
            k if k < 2 * t => return 2,
            k if k < 3 * t => return 4,
            _ => {}
        }
        // getMinValue(srScoreMap); ties to the smaller ratio.
        let Some((min_sr, min)) =
            ADAPTIVE_PERCENTS.iter().filter_map(|p| self.score(*p).map(|s| (*p, s))).min_by(|a, b| a.1.total_cmp(&b.1).then(a.0.cmp(&b.0)))
        else {
            return 3;
        };
        let three = self.score(3);
        // Lines 9–11: 2 % beats 3 % by more than 10 %: try 1 %.
        if min_sr == 2 && three.is_some_and(|s3| 1.1 * min < s3) {
            return 1;
        }
        // Lines 12–14: 4 % beats 3 % by more than 10 %: try 5 %.
        if min_sr == 4 && three.is_some_and(|s3| s3 > 1.1 * min) {
            return 5;
        }
        min_sr
    }

    /// The ratio (percent) for the next sampled job, counting it.
    pub fn choose(&mut self) -> u32 {
        let p = self.peek();
        self.started += 1;
        p
    }

    /// UpdateScoreOnJobCompletion / UpdateScoreMaps (Fig. 4, lines 16–24):
    /// a job sampled at `percent` finished with `normalized_jct`.
    pub fn record(&mut self, percent: u32, normalized_jct: f64) {
        if !normalized_jct.is_finite() {
            return;
        }
        let s = self.scores.entry(percent).or_default();
        s.push_back(normalized_jct);
        while s.len() > self.window {
            s.pop_front();
        }
    }

    pub fn scores_json(&self) -> serde_json::Value {
        let m: serde_json::Map<String, serde_json::Value> = self
            .scores
            .keys()
            .map(|p| (format!("{p}%"), serde_json::json!({"score": self.score(*p), "jobs": self.scores[p].len()})))
            .collect();
        serde_json::Value::Object(m)
    }

    pub fn scored_percents(&self) -> impl Iterator<Item = (u32, f64)> + '_ {
        self.scores.keys().filter_map(|p| self.score(*p).map(|s| (*p, s)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pilot_count_is_the_ceiling_of_r_times_width() {
        assert_eq!(pilot_count(3, 0.03), 1);
        assert_eq!(pilot_count(33, 0.03), 1);
        assert_eq!(pilot_count(34, 0.03), 2);
        assert_eq!(pilot_count(100, 0.03), 3);
        assert_eq!(pilot_count(150, 0.03), 5);
        assert_eq!(pilot_count(150, 0.01), 2);
        assert_eq!(pilot_count(150, 0.10), 15);
        assert_eq!(pilot_count(101, 0.05), 6);
        assert_eq!(pilot_count(4, 1.0), 4);
    }

    /// Fig. 4 on a scripted score history (T = 2): 3 % for the first T
    /// jobs, 2 % for the next T, 4 % for the third T, then the ratio with
    /// the lowest score, stepping out to 1 % or 5 % when 2 % or 4 % beats
    /// 3 % by more than 10 %.
    #[test]
    fn adaptive_sequence_on_a_scripted_score_history() {
        let mut a = AdaptiveRatio::new(2);
        let mut seq = Vec::new();
        // Start-up: 3, 3, 2, 2, 4, 4; each job finishes at once with the
        // normalized JCT the script gives its ratio.
        let script = |p: u32| match p {
            1 => 1.5,
            2 => 2.0,
            3 => 2.5,
            4 => 3.0,
            _ => 9.0,
        };
        for _ in 0..6 {
            let p = a.choose();
            a.record(p, script(p));
            seq.push(p);
        }
        assert_eq!(seq, vec![3, 3, 2, 2, 4, 4]);
        // Scores: 2 % → 2.0, 3 % → 2.5, 4 % → 3.0. 2 % is lowest and
        // 1.1 · 2.0 = 2.2 < 2.5: try 1 %.
        assert_eq!(a.choose(), 1);
        a.record(1, script(1));
        // 1 % now lowest (1.5): it is chosen from then on.
        assert_eq!(a.choose(), 1);
        // 1 % jobs get slow (the window of 2 drops both 1.5s): 2 % is the
        // minimum again and still beats 3 % by > 10 %: the rule says 1 %
        // once more...
        a.record(1, 6.5);
        a.record(1, 6.5);
        assert_eq!(a.score(1), Some(6.5));
        assert_eq!(a.choose(), 1);
        // ...but once 2 % no longer beats 3 % by 10 %, plain minimum: 2 %.
        a.record(2, 2.4);
        a.record(2, 2.4);
        assert_eq!(a.score(2), Some(2.4));
        assert_eq!(a.choose(), 2);
        // 4 % becomes best by a margin over 3 %: try 5 %.
        a.record(4, 1.0);
        a.record(4, 1.0);
        assert_eq!(a.choose(), 5);
        // 4 % best but within 10 % of 3 %: 4 % itself.
        a.record(3, 1.05);
        a.record(3, 1.05);
        assert_eq!(a.choose(), 4);
    }

    #[test]
    fn start_up_phases_last_t_jobs_each_even_before_any_finishes() {
        let mut a = AdaptiveRatio::new(3);
        let seq: Vec<u32> = (0..10).map(|_| a.choose()).collect();
        // No job finished: after the start-up phases, 3 % (nothing scored).
        assert_eq!(seq, vec![3, 3, 3, 2, 2, 2, 4, 4, 4, 3]);
    }
}
