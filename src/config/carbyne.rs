//! `[carbyne]`: Carbyne (Grandl, Chowdhury, Akella, Ananthanarayanan,
//! "Altruistic Scheduling in Multi-Resource Clusters", OSDI'16;
//! `papers/carbyne-altruistic-scheduling.txt`). Defaults are the paper's
//! where it gives one; `docs/policies/carbyne.md` explains every knob. A pipeline may
//! set its own values with `carbyne = { ... }` (see `PipelineSpec::carbyne`).

use super::{bad, ConfigError};
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct CarbyneConfig {
    /// P(Altruism), §3.4: the probability that a job yields resources at a
    /// scheduling event (each time its plan is recomputed). 1 = always
    /// (the paper's default), 0 = never (exactly DRF's decisions).
    pub p_altruism: f64,
    /// What a job whose P(Altruism) draw says greedy asks for as DEFAULT
    /// when 0 < P < 1. `true` (default, Pseudocode 1 as written: every
    /// job's intra-job scheduler works inside its share A_k, and the rest
    /// of the cluster is the leftover scheduler's): the tasks its share
    /// holds now; beyond that it competes for the leftover in SRTF order
    /// like any job. `false` (this project's first reading): every ask is
    /// DEFAULT, so the DRF main phase serves a greedy job beyond its share
    /// before the leftover scheduler runs — the greedy jobs take what the
    /// altruistic ones yield. P = 0 is DRF's decisions either way.
    pub greedy_within_share: bool,
    /// Beyond the paper (default on): a yielding job keeps the T_k of its
    /// previous plan while a reverse packing under its current share still
    /// reaches it. `false` is Pseudocode 1 read literally: T_k is recomputed
    /// from now at every event, so the latest starts of the tasks a job holds
    /// back slide with the clock and the job may end after the T_k it was
    /// first planned to meet (`docs/policies/carbyne.md`, Deviations).
    pub keep_t_k: bool,
    /// Beyond the paper (default off; needs `keep_t_k`): keep the previous
    /// T_k also when the job's share grew and a fresh plan would finish it
    /// earlier. T_k is then the completion the job was promised under its
    /// fair share when it planned ("not delay any job beyond its
    /// fair-share-calculated completion time", §5.2), and what the larger
    /// share would gain on it goes to the leftover, in SRTF order.
    pub commit_t_k: bool,
    /// Order of the leftover scheduler (§3.3, §4.2): `srtf` = the job with
    /// the least remaining work first, its asks packed (best alignment with
    /// the node's free resources first) — the paper's order; `pack` = best
    /// alignment first over all jobs, least remaining work breaking ties —
    /// "the order of (a) and (b) can be reversed to prioritize efficiency".
    pub leftover_order: String,
    /// Beyond the paper (default 0, off): at most this many nodes are held
    /// at once for the leftover order's first ask when it does not fit the
    /// node's free space. The leftover reaches the leftover phase as the
    /// pieces DEFAULT asks left on each node, so without a hold a job with
    /// the least remaining work but larger tasks waits while smaller asks
    /// of longer jobs take every piece; a held node gives what frees on it
    /// to that ask first (main phase included), as YARN's schedulers
    /// reserve a node for a large container. A hold ends when the ask
    /// fits, is gone, or after a minute (`engine::pass`).
    pub leftover_holds: u32,
    /// Beyond the paper (default 0, off): a job takes leftover only while
    /// its allocation, with the container, stays within this many times its
    /// DRF share A_k (as dominant shares of the scope). The LEFTOVERSCHEDULER
    /// (§3.3) hands the leftover to the job with the least remaining work
    /// first, and on a contended cluster that is ~half of every container:
    /// the first jobs of the SRTF order run at several times their fair
    /// share, which is what costs Carbyne's Jain index its distance from
    /// DRF's ("jobs can get more ... than their fair share", §5.2). With a
    /// cap the leftover passes down the SRTF order once a job holds `cap`
    /// shares. E.g. 2 = at most twice its fair share.
    pub leftover_cap: f64,
    /// A task whose latest start time (Actual(t) of Pseudocode 1 line 20)
    /// is at most this far from now is DEFAULT: the pass after this one
    /// comes a NodeManager heartbeat later, too late for it. ms; default
    /// 1000, YARN's heartbeat interval. 0 = the literal `Actual == 0`.
    pub horizon_ms: i64,
    /// §5.4.2's misestimation X/100: Carbyne's intra-job scheduler sees every
    /// task's demand and duration multiplied by (1 + X/100). The paper
    /// sweeps X over [−50, 50] %; must be > −1. Allocation itself always
    /// uses the demand YARN was asked for. Default 0 (no error).
    pub estimate_error: f64,
    /// What to take from an app's `shepherd.dag` tag (the DAG hint, see
    /// `docs/policies/carbyne.md`): `full` = stages, task counts, dependencies and
    /// durations; `structure` = all but the durations (learned from the
    /// app's finished containers instead); `ignore` = infer the stages as
    /// for an app without a hint.
    pub dag_hint: String,
    /// Beyond the paper (default off): make Theorem 3.1 — altruism delays
    /// no job, offline — hold with YARN's non-preemptible containers and
    /// greedy packing. (a) The leftover is lent, not given: a held-back task
    /// takes leftover only if it is expected to end before any job's plan
    /// needs that capacity back; (b) a plan is not recomputed when only the
    /// job's share grew; (c) its DRF
    /// demand counts the tasks its DAG hint announces, so its share does
    /// not drop between stages; (d) a plan stands while the job follows it
    /// (re-planned only when it deviates: a failure, a task over its
    /// expected time, an ask outside the plan, a smaller share); (e) tasks
    /// start at their latest start, not `horizon_ms` early (an early start
    /// takes capacity another plan counts on). See `docs/policies/carbyne.md`.
    pub protect_lenders: bool,
    /// Seed of the P(Altruism) draws (they are a deterministic function of
    /// the seed, the app and how many times its plan was recomputed, so a
    /// simulation is reproducible).
    pub seed: u64,
}

/// Values `leftover_order` accepts.
pub const LEFTOVER_ORDERS: &[&str] = &["srtf", "pack"];
/// Values `dag_hint` accepts.
pub const DAG_HINT_MODES: &[&str] = &["full", "structure", "ignore"];

impl Default for CarbyneConfig {
    fn default() -> Self {
        CarbyneConfig {
            p_altruism: 1.0,
            greedy_within_share: true,
            keep_t_k: true,
            commit_t_k: false,
            leftover_order: "srtf".into(),
            leftover_holds: 0,
            leftover_cap: 0.0,
            horizon_ms: 1000,
            estimate_error: 0.0,
            dag_hint: "full".into(),
            protect_lenders: false,
            seed: 0,
        }
    }
}

impl CarbyneConfig {
    pub fn validate(&self) -> Result<(), ConfigError> {
        if !(0.0..=1.0).contains(&self.p_altruism) {
            return Err(bad("carbyne.p_altruism", self.p_altruism, "must be within [0, 1]"));
        }
        if self.commit_t_k && !self.keep_t_k {
            return Err(bad("carbyne.commit_t_k", self.commit_t_k, "needs keep_t_k = true (a committed T_k is a kept one)"));
        }
        if !LEFTOVER_ORDERS.contains(&self.leftover_order.as_str()) {
            return Err(bad("carbyne.leftover_order", &self.leftover_order, format!("expected one of {}", LEFTOVER_ORDERS.join(", "))));
        }
        if !(self.leftover_cap >= 0.0 && self.leftover_cap.is_finite()) {
            return Err(bad(
                "carbyne.leftover_cap",
                self.leftover_cap,
                "must be a finite number ≥ 0 (0 = off; 2 = at most twice the DRF share)",
            ));
        }
        if self.horizon_ms < 0 {
            return Err(bad("carbyne.horizon_ms", self.horizon_ms, "must be at least 0 ms"));
        }
        if !(self.estimate_error > -1.0 && self.estimate_error.is_finite()) {
            return Err(bad(
                "carbyne.estimate_error",
                self.estimate_error,
                "must be a finite number above -1 (X/100 of §5.4.2, e.g. -0.5 or 0.5)",
            ));
        }
        if !DAG_HINT_MODES.contains(&self.dag_hint.as_str()) {
            return Err(bad("carbyne.dag_hint", &self.dag_hint, format!("expected one of {}", DAG_HINT_MODES.join(", "))));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use crate::config::Config;

    #[test]
    fn defaults_are_the_papers() {
        let c = Config::parse("").unwrap().carbyne;
        assert_eq!((c.p_altruism, c.leftover_order.as_str(), c.estimate_error), (1.0, "srtf", 0.0));
    }

    #[test]
    fn every_error_names_key_and_value() {
        for (text, key, value) in [
            ("p_altruism = 1.5", "carbyne.p_altruism", "1.5"),
            ("p_altruism = -0.1", "carbyne.p_altruism", "-0.1"),
            ("leftover_order = \"lifo\"", "carbyne.leftover_order", "lifo"),
            ("horizon_ms = -1", "carbyne.horizon_ms", "-1"),
            ("leftover_cap = -0.5", "carbyne.leftover_cap", "-0.5"),
            ("estimate_error = -1.0", "carbyne.estimate_error", "-1"),
            ("dag_hint = \"maybe\"", "carbyne.dag_hint", "maybe"),
            ("keep_t_k = false\ncommit_t_k = true", "carbyne.commit_t_k", "true"),
        ] {
            let e = Config::parse(&format!("[carbyne]\n{text}\n")).unwrap_err().to_string();
            assert!(e.contains(key) && e.contains(value), "{text}: {e}");
        }
        let e = Config::parse("[carbyne]\np_altrusim = 0.5\n").unwrap_err().to_string();
        assert!(e.contains("p_altrusim"), "{e}");
    }
}
