//! `[rose]`: ROSE (Sun, Hu, Yang, Garraghan, Wo, Xu, Zhu, Li, "ROSE: Cluster
//! Resource Scheduling via Speculative Over-subscription", ICDCS'18;
//! `papers/rose-speculative-oversubscription.txt`). The paper gives k = 5
//! segments and Tukey's 1.5 IQR fence (Algorithm 1); the stored text ends in
//! §IV-B, before the threshold controller's numbers (§V-B) and the
//! evaluation's settings, so every other default here is ours and says why.
//! A pipeline may set its own values with `rose = { ... }`.

use super::{bad, ConfigError};
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct RoseConfig {
    /// Algorithm 1's k: segments of the utilization window (paper: 5).
    pub segments: usize,
    /// Tukey fence of `eliminateOutlierMean`, in IQRs (paper: 1.5).
    pub fence: f64,
    /// LLA's sliding window: samples older than this are dropped (ms).
    pub window_ms: i64,
    /// At most this many samples per node in the window.
    pub max_samples: usize,
    /// A node whose newest utilization sample is older than this (and
    /// whose sidecar estimate expired) is stale: never over-subscribed,
    /// excluded as "disconnected" (Algorithm 3, B2). ms.
    pub stale_ms: i64,
    /// Placement bound: speculative containers go on a node only while
    /// capacity × bound − estimate leaves room, and not at all while the
    /// newest measured memory use is above capacity × this (fraction).
    pub bound_memory: f64,
    /// The same for vcores (fraction of the node's vcores).
    pub bound_vcores: f64,
    /// Eviction bound: when the newest measured memory use crosses
    /// capacity × this, speculative containers are taken back, newest
    /// first, until the use is expected to be back under `bound_memory`.
    pub evict_memory: f64,
    /// The same for vcores.
    pub evict_vcores: f64,
    /// Evict only once measured use has stayed over the eviction bound
    /// this long (ms; 0 = at the first sample over it). The paper's
    /// controller settings are not in the stored text; 0 reacts fastest. A
    /// node too small to absorb a container's start-up (a JVM burning a core
    /// for seconds) needs a few seconds here, or every speculative container
    /// is evicted by its own start-up.
    pub evict_after_ms: i64,
    /// A speculative container younger than this counts at its full
    /// request against the headroom: the utilization samples do not show
    /// its use yet (ms).
    pub settle_ms: i64,
    /// At most this × the node's capacity in speculative containers.
    pub max_ratio: f64,
    /// Algorithm 2/3's topK: the K most penalised nodes are excluded (B1);
    /// also the K nodes each app's penalties count for (Algorithm 2 line 7).
    pub top_k: usize,
    /// TBAMR looks at task outcomes of this recent window (ms).
    pub rating_window_ms: i64,
    /// A container that ran longer than this × the median runtime of its
    /// (app, scheduler key)'s finished containers is a straggler ("tailed").
    pub straggler_factor: f64,
    /// Finished containers of the same (app, key) needed before stragglers
    /// are judged.
    pub straggler_min_samples: usize,
    /// Algorithm 3's mL: candidate nodes kept after both rankings.
    pub candidates: usize,
    /// Algorithm 3's d: C′ keeps d·mL nodes by load index before the
    /// queue-index ranking keeps mL.
    pub candidates_factor: usize,
    /// How often the candidate set (Algorithm 3) is recomputed (ms).
    pub refresh_ms: i64,
}

impl Default for RoseConfig {
    fn default() -> Self {
        RoseConfig {
            segments: 5,
            fence: 1.5,
            window_ms: 60_000,
            max_samples: 60,
            stale_ms: 10_000,
            bound_memory: 0.8,
            bound_vcores: 0.8,
            evict_memory: 0.95,
            evict_vcores: 0.95,
            evict_after_ms: 0,
            settle_ms: 5_000,
            max_ratio: 1.0,
            top_k: 3,
            rating_window_ms: 600_000,
            straggler_factor: 2.0,
            straggler_min_samples: 3,
            candidates: 100,
            candidates_factor: 2,
            refresh_ms: 3_000,
        }
    }
}

impl RoseConfig {
    pub fn validate(&self) -> Result<(), ConfigError> {
        if self.segments == 0 {
            return Err(bad("rose.segments", self.segments, "must be at least 1"));
        }
        if !(self.fence >= 0.0 && self.fence.is_finite()) {
            return Err(bad("rose.fence", self.fence, "must be a finite number ≥ 0 (IQRs)"));
        }
        for (k, v) in [
            ("window_ms", self.window_ms),
            ("stale_ms", self.stale_ms),
            ("rating_window_ms", self.rating_window_ms),
            ("refresh_ms", self.refresh_ms),
        ] {
            if v <= 0 {
                return Err(bad(&format!("rose.{k}"), v, "must be above 0 ms"));
            }
        }
        if self.evict_after_ms < 0 {
            return Err(bad("rose.evict_after_ms", self.evict_after_ms, "must be at least 0 ms"));
        }
        if self.settle_ms < 0 {
            return Err(bad("rose.settle_ms", self.settle_ms, "must be at least 0 ms"));
        }
        if self.max_samples == 0 {
            return Err(bad("rose.max_samples", self.max_samples, "must be at least 1"));
        }
        for (k, v) in [("bound_memory", self.bound_memory), ("bound_vcores", self.bound_vcores)] {
            if !(v > 0.0 && v <= 1.0) {
                return Err(bad(&format!("rose.{k}"), v, "must be within (0, 1]"));
            }
        }
        for (k, v, b) in [("evict_memory", self.evict_memory, self.bound_memory), ("evict_vcores", self.evict_vcores, self.bound_vcores)] {
            if !(v >= b && v.is_finite()) {
                return Err(bad(&format!("rose.{k}"), v, format!("must be at least the placement bound ({b})")));
            }
        }
        if !(self.max_ratio >= 0.0 && self.max_ratio.is_finite()) {
            return Err(bad("rose.max_ratio", self.max_ratio, "must be a finite number ≥ 0"));
        }
        if !(self.straggler_factor > 1.0 && self.straggler_factor.is_finite()) {
            return Err(bad("rose.straggler_factor", self.straggler_factor, "must be a finite number above 1"));
        }
        if self.candidates == 0 {
            return Err(bad("rose.candidates", self.candidates, "must be at least 1 (Algorithm 3's mL)"));
        }
        if self.candidates_factor == 0 {
            return Err(bad("rose.candidates_factor", self.candidates_factor, "must be at least 1 (Algorithm 3's d)"));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use crate::config::Config;

    #[test]
    fn defaults_are_the_papers() {
        let c = Config::parse("").unwrap().rose;
        assert_eq!((c.segments, c.fence), (5, 1.5));
    }

    #[test]
    fn every_error_names_key_and_value() {
        for (text, key, value) in [
            ("segments = 0", "rose.segments", "0"),
            ("fence = -1.0", "rose.fence", "-1"),
            ("window_ms = 0", "rose.window_ms", "0"),
            ("bound_vcores = 1.5", "rose.bound_vcores", "1.5"),
            ("evict_memory = 0.5", "rose.evict_memory", "0.5"),
            ("straggler_factor = 1.0", "rose.straggler_factor", "1"),
            ("candidates = 0", "rose.candidates", "0"),
        ] {
            let e = Config::parse(&format!("[rose]\n{text}\n")).unwrap_err().to_string();
            assert!(e.contains(key) && e.contains(value), "{text}: {e}");
        }
        let e = Config::parse("[pipeline.mine]\noversubscribe = \"rose\"\nrose = { bound_vcores = 2.0 }\n").unwrap_err().to_string();
        assert!(e.contains("pipeline.mine.rose.bound_vcores") && e.contains('2'), "{e}");
    }
}
