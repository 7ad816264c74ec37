//! INTRAJOBSCHEDULER of Pseudocode 1 (lines 16–25): given the job's share
//! A_k, its earliest completion T_k, the latest start of every task not yet
//! started, which of them must start now (DEFAULT, line 21: Actual(t) = 0)
//! and what the job yields to the leftover (line 23: L_k = A_k − Req of
//! the tasks that must start, and of those already running).

use super::amount::Amount;
use super::packing;
use super::stages::JobModel;
use crate::model::SchedulerKey;

/// One stage's part of a plan.
#[derive(Debug, Clone, PartialEq)]
pub struct StagePlan {
    /// Its keys with outstanding asks, most urgent first.
    pub keys: Vec<SchedulerKey>,
    /// Tasks that may start now (DEFAULT): those whose latest start has
    /// come, and those due within `horizon_ms` that the share has room for
    /// now (a task may start a heartbeat early, not beside tasks that still
    /// hold the share).
    pub due: i64,
    /// The other tasks not yet started (asked, or announced by the DAG
    /// hint): (latest start ms from now, count), ascending.
    pub later: Vec<(f64, i64)>,
    pub task_ms: f64,
    pub demand: Amount,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Plan {
    /// T_k, ms from now.
    pub t_k_ms: f64,
    pub stages: Vec<StagePlan>,
    /// Σ demand of the DEFAULT tasks that are asked.
    pub default_demand: Amount,
    /// L_k: the share the job leaves to others now, ≥ 0 per type.
    pub yielded: Amount,
    /// Work not yet done (container-ms), the leftover order's key.
    pub remaining_ms: f64,
    /// The plan as usage over time: (from ms, to ms, amount), relative to
    /// now — running tasks until their expected end, the others from their
    /// latest start, the AM until T_k (the leftover lease's profile). Empty
    /// unless [`Options::usage`] asked for it.
    pub usage: Vec<(f64, f64, Amount)>,
}

/// How a plan is made beyond the job and its share.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Options {
    /// How early a task may become DEFAULT (see [`StagePlan::due`]).
    pub horizon_ms: f64,
    /// Fill [`Plan::usage`]. Only the leftover lease (`protect_lenders`)
    /// reads it, and it lists every running task: a plan on the heartbeat
    /// path builds it only for that.
    pub usage: bool,
}

impl Plan {
    /// DEFAULT containers of the asked tasks, per stage (at most what is asked).
    pub fn default_asked(&self, model: &JobModel) -> i64 {
        self.stages.iter().zip(&model.stages).map(|(p, s)| p.due.min(s.asked)).sum()
    }
}

/// What a plan does with the T_k of the job's previous plan (ms from now).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Target {
    /// Plan a new T_k from now: Pseudocode 1 read literally
    /// (`keep_t_k = false`), or the job's first plan.
    Fresh,
    /// Keep it when the greedy recomputation comes out later and a reverse
    /// packing under the current share still reaches it (`keep_t_k`, the
    /// default): a job's held-back tasks do not slide with the clock.
    Keep(f64),
    /// Keep it whenever a reverse packing reaches it, also when the greedy
    /// recomputation comes out earlier because the share grew
    /// (`commit_t_k`): T_k is the completion the job was promised under its
    /// fair share, and what a larger share would gain on it is yielded.
    Commit(f64),
}

/// Plan `model` under `share` (A_k). The share is first reduced by what the
/// job holds for its whole life (its AM) and raised, type by type, to the
/// largest task so one task always fits. `target`: the previous plan's
/// T_k, kept when a reverse packing fits before it (per [`Target`]), else
/// the new T_k. `None` without durations, or when nothing is outstanding.
pub fn intra_job(model: &JobModel, share: &Amount, options: Options, target: Target) -> Option<Plan> {
    if !plannable(model) {
        return None;
    }
    let capacity = packing_capacity(model, share);
    let job = packing::Job::new(&model.stages);
    let greedy = job.forward(&capacity)?;
    let previous = match target {
        Target::Fresh => None,
        Target::Keep(ms) => Some(ms).filter(|ms| *ms < greedy.span),
        Target::Commit(ms) => Some(ms).filter(|ms| *ms != greedy.span),
    };
    // Keep the target the job had when a reverse packing reaches it. The
    // reverse packing from the new T_k is needed only when it does not (a
    // job is replanned at each of its events, on the heartbeat path), and
    // a target before a running task's expected end is never reached
    // (`reaches`), so it is not packed at all; nor is one before the job's
    // tasks still to place can be done (`may_reach`).
    let running_until = job.running_until();
    let kept =
        previous.filter(|ms| *ms > 0.0 && *ms >= running_until && packing::may_reach(&model.stages, &capacity, *ms)).and_then(|target| {
            let kept = job.reverse(&capacity, target);
            reaches(running_until, &kept, target).then_some((target, kept))
        });
    let (t_k, reversed) = match kept {
        Some(k) => k,
        None => (greedy.span, job.reverse(&capacity, greedy.span)),
    };
    // A reverse packing that needs longer than T_k would have tasks start
    // before now — more than the share holds. The forward schedule meets
    // T_k inside the share: keep it then (its tasks that start at once are
    // the DEFAULT ones, the others may wait until the greedy schedule
    // reaches them).
    let feasible = reaches(running_until, &reversed, t_k);
    let starts = if feasible { reversed } else { greedy.starts };
    Some(from_starts(model, share, &capacity, t_k, starts, options))
}

/// The plan of a job whose P(Altruism) draw said greedy: it yields nothing
/// it can use, but still runs inside its share A_k (Pseudocode 1 line 4:
/// every job's INTRAJOBSCHEDULER is given A_k; what a job does not run of
/// it, and whatever the jobs' shares leave, is the LEFTOVERSCHEDULER's).
/// Its tasks start as early as the share allows (the forward packing that
/// gives T_k): DEFAULT now are those the share holds now; the others are
/// ALTRUISTIC until their greedy start, so beyond its share the job
/// competes for the leftover in its SRTF order. `None` as for
/// [`intra_job`].
pub fn greedy(model: &JobModel, share: &Amount, options: Options) -> Option<Plan> {
    if !plannable(model) {
        return None;
    }
    let capacity = packing_capacity(model, share);
    let forward = packing::Job::new(&model.stages).forward(&capacity)?;
    Some(from_starts(model, share, &capacity, forward.span, forward.starts, options))
}

/// Whether a reverse packing from `t_k` fits between now and `t_k`: no
/// task starts before now, and no running task is expected to end after
/// `t_k` (the packing places running tasks before T_k without checking;
/// a kept target can be earlier when a stage's runtime was relearned
/// longer since it was set).
fn reaches(running_until: f64, starts: &[Vec<(f64, i64)>], t_k: f64) -> bool {
    t_k >= running_until && starts.iter().flatten().all(|(start, _)| *start >= -1e-6)
}

/// A plan needs every stage's runtime and something asked to schedule.
fn plannable(model: &JobModel) -> bool {
    !model.unknown_runtime && model.stages.iter().any(|s| s.asked > 0)
}

/// The share a plan packs into: A_k less what the job holds for its whole
/// life (its AM), raised type by type to the largest unfinished task so
/// one task always fits.
fn packing_capacity(model: &JobModel, share: &Amount) -> Amount {
    let largest = model.stages.iter().filter(|s| s.unfinished() > 0).fold(Amount::ZERO, |a, s| a.max(&s.demand));
    share.minus(&model.reserved).clamped().max(&largest)
}

/// A plan from every unstarted task's start (ms from now, per stage):
/// those at 0 are DEFAULT (line 21), those within the horizon too when the
/// share has room beside what runs and must start; L_k = A_k − Req (line 23).
fn from_starts(model: &JobModel, share: &Amount, capacity: &Amount, t_k: f64, starts: Vec<Vec<(f64, i64)>>, options: Options) -> Plan {
    let horizon_ms = options.horizon_ms;
    let usage = if options.usage { usage(model, t_k, &starts) } else { Vec::new() };
    // What the share has free now beside the running tasks and those that
    // must start now: room for tasks due within the horizon.
    let mut room = capacity.minus(&model.stages.iter().fold(Amount::ZERO, |a, s| a.plus(&s.demand.scaled(s.running.len() as f64))));
    for (stage, st) in model.stages.iter().zip(&starts) {
        let now: i64 = st.iter().filter(|(start, _)| *start <= 1e-6).map(|(_, c)| *c).sum();
        room = room.minus(&stage.demand.scaled(now.min(stage.asked) as f64));
    }
    let mut stages = Vec::with_capacity(model.stages.len());
    let mut default_demand = Amount::ZERO;
    for (stage, st) in model.stages.iter().zip(starts) {
        let mut due = 0;
        let mut later = Vec::new();
        for (start, count) in st {
            if start <= 1e-6 {
                due += count;
            } else if start <= horizon_ms && due < stage.asked {
                let fit = room.count_fitting(&stage.demand).clamp(0, count.min(stage.asked - due));
                room = room.minus(&stage.demand.scaled(fit as f64));
                due += fit;
                if fit < count {
                    later.push((start, count - fit));
                }
            } else {
                later.push((start, count));
            }
        }
        default_demand = default_demand.plus(&stage.demand.scaled(due.min(stage.asked) as f64));
        stages.push(StagePlan {
            keys: stage.keys.iter().map(|(k, _)| *k).collect(),
            due,
            later,
            task_ms: stage.task_ms,
            demand: stage.demand,
        });
    }
    let yielded = share.minus(&model.running_demand()).minus(&default_demand).clamped();
    Plan { t_k_ms: t_k, stages, default_demand, yielded, remaining_ms: model.remaining_ms(), usage }
}

/// [`Plan::usage`]: the AM until T_k, running tasks until their expected
/// end, the others from their start (now at the earliest).
fn usage(model: &JobModel, t_k: f64, starts: &[Vec<(f64, i64)>]) -> Vec<(f64, f64, Amount)> {
    let mut usage: Vec<(f64, f64, Amount)> = Vec::new();
    if model.reserved.0.iter().any(|v| *v > 0.0) {
        usage.push((0.0, t_k, model.reserved));
    }
    for (stage, st) in model.stages.iter().zip(starts) {
        for rem in &stage.running {
            usage.push((0.0, *rem, stage.demand));
        }
        for (start, count) in st {
            let from = start.max(0.0);
            usage.push((from, from + stage.task_ms, stage.demand.scaled(*count as f64)));
        }
    }
    usage
}

#[cfg(test)]
mod tests {
    use super::super::packing::tests::stage;
    use super::super::stages::Inference;
    use super::*;
    use crate::model::Resources;

    fn job(stages: Vec<super::super::stages::StageModel>) -> JobModel {
        JobModel {
            stages,
            reserved: Amount::ZERO,
            inference: Inference::DagHint,
            unknown_runtime: false,
            key_stage: Default::default(),
            priority_stage: Default::default(),
        }
    }

    /// Tasks DEFAULT only when their start has come; with the lease's usage.
    const NOW: Options = Options { horizon_ms: 0.0, usage: true };

    fn units(n: i64) -> Amount {
        Amount::of(&Resources::new(n, n))
    }

    fn starts(p: &Plan) -> Vec<(i64, Vec<(f64, i64)>)> {
        p.stages.iter().map(|s| (s.due, s.later.clone())).collect()
    }

    /// A list schedule is not optimal, so a target the job already had can
    /// be earlier than the greedy recomputation and still reachable. Share
    /// 5 units; stages A: 2 tasks of 1 unit × 10 s, B: 2 of 3 × 20 s, C: 2
    /// of 2 × 40 s, one running with 30 s left. Forward (longest path first:
    /// C, B, A): C at [0, 40] beside the running one, 1 unit left: A at 0
    /// and 10; B fits only when the running C ends: [30, 50], [50, 70]:
    /// T_k = 70. Reverse from a kept target of 60 (C, B, A first; running
    /// C holds reverse [30, 60]): C at [0, 40] → Actual 20; one B at [0,
    /// 20] → 40; A ×2 at [20, 30] → 30; the other B when C's hold is gone,
    /// [40, 60] → 0. So the job keeps T_k = 60 and must start one B now.
    #[test]
    fn a_reachable_target_is_kept() {
        let m = job(vec![stage(2, 1, 10_000.0, &[], &[]), stage(2, 3, 20_000.0, &[], &[]), stage(1, 2, 40_000.0, &[], &[30_000.0])]);
        let fresh = intra_job(&m, &units(5), NOW, Target::Fresh).unwrap();
        assert_eq!(fresh.t_k_ms, 70_000.0);
        let kept = intra_job(&m, &units(5), NOW, Target::Keep(60_000.0)).unwrap();
        assert_eq!(kept.t_k_ms, 60_000.0);
        assert_eq!(starts(&kept), vec![(0, vec![(30_000.0, 2)]), (1, vec![(40_000.0, 1)]), (0, vec![(20_000.0, 1)])]);
    }

    /// A target before a running task's expected end is not kept (the
    /// stage's runtime was relearned longer since the target was set): one
    /// task running with 20 s left and one asked (10 s), share 4 units of
    /// which each takes 2: T_k = 20 s, not the old 10.
    #[test]
    fn a_target_before_a_running_task_ends_is_dropped() {
        let m = job(vec![stage(1, 2, 10_000.0, &[], &[20_000.0])]);
        assert_eq!(intra_job(&m, &units(4), NOW, Target::Keep(10_000.0)).unwrap().t_k_ms, 20_000.0);
        assert_eq!(intra_job(&m, &units(4), NOW, Target::Commit(10_000.0)).unwrap().t_k_ms, 20_000.0);
    }

    /// A job's share grew (another job finished): 4 tasks of 1 unit × 10 s,
    /// planned under a share of 2 units (T_k = 20 s), now 4. `Keep` takes
    /// the earlier T_k the larger share allows (10 s: all four start now);
    /// `Commit` holds to 20 s: reversed from 20 s under 4 units, all four
    /// fit in [10, 20], so none must start now and the whole share is
    /// yielded until then.
    #[test]
    fn a_committed_target_yields_what_a_larger_share_gains() {
        let m = job(vec![stage(4, 1, 10_000.0, &[], &[])]);
        assert_eq!(intra_job(&m, &units(2), NOW, Target::Fresh).unwrap().t_k_ms, 20_000.0);
        let keep = intra_job(&m, &units(4), NOW, Target::Keep(20_000.0)).unwrap();
        assert_eq!((keep.t_k_ms, starts(&keep)), (10_000.0, vec![(4, vec![])]));
        let commit = intra_job(&m, &units(4), NOW, Target::Commit(20_000.0)).unwrap();
        assert_eq!((commit.t_k_ms, starts(&commit)), (20_000.0, vec![(0, vec![(10_000.0, 4)])]));
        assert_eq!(commit.yielded, units(4));
    }
}
