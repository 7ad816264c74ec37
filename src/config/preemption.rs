//! `[preemption]`: how a queue below its guaranteed share takes capacity
//! back from queues above theirs (`crate::engine::preemption`). Which
//! queues may do so is per queue (`[[queue]] preemption = true`); with no
//! such queue nothing here runs. The defaults are the CapacityScheduler's
//! `ProportionalCapacityPreemptionPolicy` defaults, but it has no
//! `natural_termination_factor` (0.2 there): at the same defaults the
//! monitor takes at most 0.2 × `total_preemption_per_round` per round and
//! this up to `max_per_round` (`max_per_round = 0.02` comes close to the
//! monitor's pace; docs/operations.md, docs/results/sls.md).

use super::{bad, ConfigError};
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct PreemptionConfig {
    /// How often the engine looks for starved queues (ms; the
    /// CapacityScheduler's `monitoring_interval`, 3000).
    pub interval_ms: i64,
    /// A marked container still running this long after it was first
    /// marked is killed (ms; `max_wait_before_kill`, 15000). The AM hears
    /// of the mark in its allocate responses (YARN's `PreemptionMessage`)
    /// and may give the container back first.
    pub wait_before_kill_ms: i64,
    /// Dead zone: a queue is taken from only while its dominant share is
    /// above guarantee × (1 + this) (`max_ignored_over_capacity`, 0.1).
    pub dead_zone: f64,
    /// At most this fraction of the cluster (per resource type) is marked
    /// in one round (`total_preemption_per_round`, 0.1).
    pub max_per_round: f64,
    /// Beyond the CapacityScheduler: leave alone a container whose learned
    /// task duration (the mean of its app's finished containers at the same
    /// priority) says it ends within `wait_before_kill_ms` anyway — killing
    /// it loses its work and frees its room no sooner.
    pub spare_finishing: bool,
}

impl Default for PreemptionConfig {
    fn default() -> Self {
        PreemptionConfig { interval_ms: 3_000, wait_before_kill_ms: 15_000, dead_zone: 0.1, max_per_round: 0.1, spare_finishing: true }
    }
}

impl PreemptionConfig {
    pub fn validate(&self) -> Result<(), ConfigError> {
        if self.interval_ms <= 0 {
            return Err(bad("preemption.interval_ms", self.interval_ms, "must be a positive number of ms"));
        }
        if self.wait_before_kill_ms < 0 {
            return Err(bad("preemption.wait_before_kill_ms", self.wait_before_kill_ms, "must be at least 0 ms"));
        }
        if !(self.dead_zone >= 0.0 && self.dead_zone.is_finite()) {
            return Err(bad("preemption.dead_zone", self.dead_zone, "must be a fraction at least 0"));
        }
        if !(self.max_per_round > 0.0 && self.max_per_round <= 1.0) {
            return Err(bad("preemption.max_per_round", self.max_per_round, "must be within (0, 1]"));
        }
        Ok(())
    }
}
