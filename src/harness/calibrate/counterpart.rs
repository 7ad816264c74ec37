//! The engine's stand-in for each scheduler the harness ran (its
//! counterpart, configured as the harness configured the real one), and
//! what of the run its simulation must reproduce: the NodeManagers'
//! heartbeat interval and allocation rounds between heartbeats.

use crate::config::Config;
use crate::harness::input::JobsFile;
use crate::sim::SimOptions;
use std::path::Path;

/// How a scheduler the harness ran with allocation rounds between node
/// heartbeats allocated: its label then ends in `-async<ms>` (`SchedulerSpec`'s
/// `@async=<ms>`) or, for Shepherd with heartbeats that only report,
/// `-asynconly<ms>` (`@async-only=<ms>`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Rounds<'a> {
    /// The label without the suffix.
    pub base: &'a str,
    pub interval_ms: i64,
    /// Node heartbeats also allocate: Shepherd's `@async=`. The
    /// CapacityScheduler's heartbeats only report while its asynchronous
    /// thread runs (its `nodeUpdate` allocates only without one), and so do
    /// Shepherd's with `@async-only=`.
    pub heartbeats_allocate: bool,
}

pub(super) fn rounds_of(label: &str) -> Option<Rounds<'_>> {
    let (base, rest) = label.rsplit_once("-async")?;
    let (ms, rounds_only) = match rest.strip_prefix("only") {
        Some(ms) => (ms, true),
        None => (rest, false),
    };
    if ms.is_empty() || !ms.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let heartbeats_allocate = !rounds_only && base.starts_with("shepherd");
    Some(Rounds { base, interval_ms: ms.parse().ok()?, heartbeats_allocate })
}

/// The NodeManagers' heartbeat interval of a run (`jobs.json`'s
/// `nm_heartbeat_ms`, the harness's `--nm-heartbeat-ms`), which its
/// simulation must use; outputs from before the harness recorded it ran at
/// YARN's default, the simulator's default too.
pub(super) fn heartbeat_ms(jobs: &JobsFile) -> i64 {
    jobs.nm_heartbeat_ms.filter(|ms| *ms > 0).unwrap_or(SimOptions::default().heartbeat_ms)
}

/// The engine's stand-in for a harness scheduler, configured as the harness
/// configured the real one.
pub(super) fn counterpart(label: &str, run_dir: &Path) -> Result<(String, Config), String> {
    if label.starts_with("shepherd") {
        let path = run_dir.join("work").join("shepherd.toml");
        let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        let c = Config::parse(&text).map_err(|e| format!("{}: {e}", path.display()))?;
        return Ok((c.scheduler.policy.clone(), c));
    }
    // A run that says which Shepherd config stands in for its scheduler
    // (the SLS runner writes one with the CapacityScheduler's or
    // FairScheduler's queues).
    let path = run_dir.join("work").join("counterpart.toml");
    if path.exists() {
        let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        let c = Config::parse(&text).map_err(|e| format!("{}: {e}", path.display()))?;
        return Ok((c.scheduler.policy.clone(), c));
    }
    // The CapacityScheduler keeps YARN's default of one off-switch container
    // per node heartbeat (`per-node-heartbeat.maximum-offswitch-assignments`
    // = 1), and a SleepJob's asks are all off-switch (its splits name no
    // hosts), so its stand-in places at most one container per heartbeat.
    // Node-local asks (other programs' input splits) are not under that cap
    // in YARN; the stand-in caps them too, an approximation. The harness
    // sets the FairScheduler's `assignmultiple` (no per-heartbeat cap), as
    // Shepherd's default.
    let (policy, per_heartbeat) = match label {
        "capacity" => ("capacity", 1),
        "fair" => ("drf", 0),
        other => return Err(format!("{other}: no engine counterpart (expected shepherd-*, capacity or fair)")),
    };
    let text = format!(
        "[scheduler]\npolicy = \"{policy}\"\nmax_assignments_per_heartbeat = {per_heartbeat}\n[[queue]]\nname = \"default\"\ncapacity = 1.0\nmax_am_share = 0.5\n"
    );
    Ok((policy.to_string(), Config::parse(&text).map_err(|e| e.to_string())?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn async_labels_are_the_ones_with_a_round_interval() {
        let rounds = |base, interval_ms, heartbeats_allocate| Some(Rounds { base, interval_ms, heartbeats_allocate });
        assert_eq!(rounds_of("shepherd-drf-async20"), rounds("shepherd-drf", 20, true));
        assert_eq!(rounds_of("shepherd-composed-asynconly5"), rounds("shepherd-composed", 5, false));
        // The CapacityScheduler's heartbeats only report while its thread runs.
        assert_eq!(rounds_of("capacity-async5"), rounds("capacity", 5, false));
        assert_eq!(rounds_of("shepherd-carbyne-holds-async1000"), rounds("shepherd-carbyne-holds", 1000, true));
        for label in [
            "shepherd-drf",
            "capacity",
            "fair",
            "shepherd-async",
            "shepherd-async-x",
            "capacity-async20b",
            "shepherd-drf-asynconly",
            "shepherd-drf-asyncx5",
        ] {
            assert_eq!(rounds_of(label), None, "{label}");
        }
    }

    #[test]
    fn runs_are_simulated_with_the_heartbeat_interval_they_had() {
        let jobs = |extra: &str| -> JobsFile {
            serde_json::from_str(&format!(r#"{{"scheduler": "capacity", "poll_ms": 500{extra}, "jobs": []}}"#)).unwrap()
        };
        assert_eq!(heartbeat_ms(&jobs(r#", "nm_heartbeat_ms": 3000"#)), 3000);
        // Outputs from before the harness recorded it: YARN's default.
        assert_eq!(heartbeat_ms(&jobs("")), 1000);
        assert_eq!(SimOptions::default().heartbeat_ms, 1000);
    }
}
