//! What a container's exit status says about its task.
//!
//! YARN reports a container's end as an exit status: the process's own
//! code, or one of `ContainerExitStatus`'s negative values when the
//! framework ended it. Policies that learn from outcomes (Carbyne counts
//! a stage's finished tasks and recomputes T_k after failures, ROSE rates
//! nodes by the tasks that failed on them) must not read every non-zero
//! status as a failed task: an unmodified MapReduce AM stops each task's
//! container once the task has reported success, and the NodeManager
//! then reports `KILLED_BY_APPMASTER` (-105) for a task that succeeded.
//! On the local harness about one map in six ended that way.

/// `ContainerExitStatus.SUCCESS`.
pub const SUCCESS: i32 = 0;
/// `ContainerExitStatus.ABORTED`: released by its AM or its app finished
/// (often before it ran anything).
pub const ABORTED: i32 = -100;
/// `ContainerExitStatus.PREEMPTED`: taken back by the scheduler.
pub const PREEMPTED: i32 = -102;
/// `ContainerExitStatus.KILLED_BY_APPMASTER`: the AM stopped it (for
/// MapReduce, normally after the task succeeded).
pub const KILLED_BY_APPMASTER: i32 = -105;
/// `ContainerExitStatus.KILLED_AFTER_APP_COMPLETION`.
pub const KILLED_AFTER_APP_COMPLETION: i32 = -107;

/// How a container's task ended, as far as the scheduler can tell.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// Exited cleanly, or its own app stopped it (the AM's decision: the
    /// task reported success, or the app no longer needed it).
    Ended,
    /// Released before or without doing work (ABORTED): neither.
    Released,
    /// Failed or killed by the cluster (non-zero exit, preempted, lost
    /// node, memory limits...): the task has to run again.
    Failed,
}

pub fn outcome(exit_status: i32) -> Outcome {
    match exit_status {
        SUCCESS | KILLED_BY_APPMASTER | KILLED_AFTER_APP_COMPLETION => Outcome::Ended,
        ABORTED => Outcome::Released,
        _ => Outcome::Failed,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_app_stopping_its_own_container_is_not_a_failure() {
        assert_eq!(outcome(0), Outcome::Ended);
        assert_eq!(outcome(KILLED_BY_APPMASTER), Outcome::Ended);
        assert_eq!(outcome(KILLED_AFTER_APP_COMPLETION), Outcome::Ended);
        assert_eq!(outcome(ABORTED), Outcome::Released);
        assert_eq!(outcome(PREEMPTED), Outcome::Failed);
        assert_eq!(outcome(1), Outcome::Failed);
        assert_eq!(outcome(143), Outcome::Failed);
        assert_eq!(outcome(-104), Outcome::Failed); // KILLED_EXCEEDED_PMEM
    }
}
