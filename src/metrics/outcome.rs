//! Everything one run produces, as plain data: its summary, per-job
//! records, utilization timeline and fairness windows. The simulator builds
//! it (`sim::recorder`); `report` writes it to files.

use super::summary::Summary;
use super::timeline::UtilizationPoint;
use super::JobRecord;

/// Everything a run produces.
pub struct RunOutcome {
    pub summary: Summary,
    pub jobs: Vec<JobRecord>,
    pub utilization: Vec<UtilizationPoint>,
    pub fairness: Vec<(i64, f64)>,
    /// Simulator events handled (arrivals, task ends, node passes).
    pub sim_events: u64,
    /// Heartbeats of quiet nodes the simulator folded (handed to the
    /// engine together, without a pass each; `sim::quiet`), among the
    /// passes and events counted above.
    pub heartbeats_folded: u64,
    /// The engine's activity log, in the harness's `activity.json` format
    /// (times in simulated ms), when `SimOptions::activity_log` asked for it.
    pub activity: Option<serde_json::Value>,
}
