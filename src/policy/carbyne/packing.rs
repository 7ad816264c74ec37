//! Packing a job's remaining tasks in time under a fixed share — lines
//! 17–20 of Pseudocode 1.
//!
//! * [`forward`]: T_k, the job's earliest completion under its share
//!   ("given A_k, calculate T_k using Tetris", line 17), and the schedule
//!   that reaches it: list scheduling in time — at every completion the
//!   runnable stages (all parents finished) take as many tasks as fit in
//!   what the share has free.
//! * [`reverse`]: the same packing on the reversed DAG from T_k backwards
//!   (lines 18–19): children before parents, every task as close to T_k as
//!   the share allows, so the earlier times stay free. A task placed at
//!   reverse time τ with duration d starts at Actual = T_k − τ − d in
//!   forward time (line 20; the paper prints it as Rev + T_k − Dur with Rev
//!   counted backwards from T_k). Running tasks are fixed: they hold their
//!   part of the share for the time they have left — [0, remaining] forward,
//!   [T_k − remaining, T_k] in reverse time.
//!
//! Order among runnable stages: the longest path ahead first (in forward
//! time the stage's longest chain to the job's end, in reverse its longest
//! chain from the job's start), then Tetris' alignment of one task's demand
//! with the share's free part, then the earlier stage — the critical-path
//! priorities the paper's YARN implementation folds into its packing
//! (§4.2, "similar to DAGPS"). A greedy list schedule is not optimal, so
//! the reverse packing can need longer than T_k; [`plan`](super::plan)
//! then keeps the forward schedule, which fits by construction.
//!
//! Tasks of one stage are identical, so both work on counts: one event per
//! batch of tasks that start together, not per task.

use super::amount::Amount;
use super::float_order::{from_total_order_key, total_order_key};
use super::stages::StageModel;
use std::cmp::Ordering;
use std::collections::VecDeque;

/// The ends of the steps a packing has placed, stage by stage: each
/// stage's `(end, count)` in the order a heap of `(end, stage, count)`
/// would give them up (ends under `total_cmp`, then the stage, then the
/// count), so that what is freed is subtracted in the same order.
///
/// A stage's steps are placed at growing times and all last its task
/// time, so they end in the order they were placed and each stage's
/// queue takes a new step at its back; a heap over every step paid a
/// logarithm per step, and a large job's packing places a step at each
/// of its running tasks' ends. The ends of two stages are merged by
/// looking at every stage's first: a job has few stages.
struct Ends {
    queues: Vec<VecDeque<(f64, i64)>>,
}

impl Ends {
    fn new(stages: usize) -> Ends {
        Ends { queues: vec![VecDeque::new(); stages] }
    }

    /// Stage `s` placed `k` tasks that end at `end`.
    fn push(&mut self, s: usize, end: f64, k: i64) {
        let q = &mut self.queues[s];
        // Usually at the back; two steps rounded to the same end are kept
        // in count order, as the heap gave them up.
        let mut at = q.len();
        while at > 0 && q[at - 1].0.total_cmp(&end).then(q[at - 1].1.cmp(&k)) == Ordering::Greater {
            at -= 1;
        }
        q.insert(at, (end, k));
    }

    /// The earliest end and its stage (the lower stage among equal ends).
    fn first(&self) -> Option<(f64, usize)> {
        let mut best: Option<(f64, usize)> = None;
        for (s, q) in self.queues.iter().enumerate() {
            if let Some(&(e, _)) = q.front() {
                if best.is_none_or(|(b, _)| e.total_cmp(&b) == Ordering::Less) {
                    best = Some((e, s));
                }
            }
        }
        best
    }

    /// The end of stage `s`'s last step (the latest, its queue being in
    /// end order).
    fn last(&self, s: usize) -> Option<f64> {
        self.queues[s].back().map(|(e, _)| *e)
    }

    /// Take stage `s`'s first step: its count.
    fn pop(&mut self, s: usize) -> i64 {
        self.queues[s].pop_front().map_or(0, |(_, k)| k)
    }
}

/// A list schedule: when it ends, and per stage the start times of its
/// not-yet-started tasks, ascending `(ms, count)`.
#[derive(Debug, Clone, PartialEq)]
pub struct Schedule {
    pub span: f64,
    pub starts: Vec<Vec<(f64, i64)>>,
}

/// One direction's packing problem.
struct Problem<'a> {
    stages: &'a [StageModel],
    capacity: Amount,
    /// Stages that must be complete before a stage may start.
    before: &'a [Vec<usize>],
    /// Capacity held by tasks already placed (running).
    held: Holds<'a>,
    /// A stage is not complete before this time (its running tasks' end).
    done_at: Vec<f64>,
    /// Priority: the longest path ahead (larger first).
    rank: &'a [f64],
    /// Take the shortcuts that change no packing: forward, skip the marks
    /// before the first with room ([`first_mark_with_room`]) and run a
    /// lone stage's steps in a loop of their own ([`lone_stage`]); both
    /// ways, skip the ends before a stage that gates one with tasks left
    /// completes ([`next_completion`]). Off, every mark and end is a step
    /// of the one loop (the walk the shortcuts are tested against).
    shortcuts: bool,
}

/// Longest path through `next` from each stage, its own duration included.
fn longest_paths(stages: &[StageModel], next: &[Vec<usize>]) -> Vec<f64> {
    longest_weighted_paths(stages.len(), &|s| stages[s].task_ms, &|s| next[s].as_slice())
}

/// Longest path through `next` from each of `n` stages, `weight(s)` of
/// every stage on it included.
fn longest_weighted_paths<'a>(n: usize, weight: &dyn Fn(usize) -> f64, next: &dyn Fn(usize) -> &'a [usize]) -> Vec<f64> {
    let mut memo: Vec<Option<f64>> = vec![None; n];
    fn visit<'a>(s: usize, weight: &dyn Fn(usize) -> f64, next: &dyn Fn(usize) -> &'a [usize], memo: &mut Vec<Option<f64>>) -> f64 {
        if let Some(v) = memo[s] {
            return v;
        }
        let tail = next(s).iter().map(|c| visit(*c, weight, next, memo)).fold(0.0, f64::max);
        let v = weight(s) + tail;
        memo[s] = Some(v);
        v
    }
    (0..n).map(|s| visit(s, weight, next, &mut memo)).collect()
}

/// Whether a [`reverse`] packing from `t_k` inside `capacity` may have
/// every task start at or after now; `false` only when it cannot, so a
/// caller may skip it. Three lower bounds on the time the packing needs
/// before `t_k`, each beyond the 10⁻⁶ ms that `plan::reaches` forgives
/// (and, with a relative margin, the float error of the sums):
///
/// * Chains. In the reverse packing a stage starts only once the stages
///   after it (its children) have placed all their tasks and seen them
///   end, so a chain of stages with tasks to place takes at least the sum
///   of their task times from T_k backwards: its first task starts,
///   forward, at or before T_k − that sum. Running tasks hold capacity but
///   do not order stages in reverse, and a stage with nothing to place
///   costs nothing.
/// * Waves. At most k tasks of a stage run at once, k the count of its
///   tasks that fit in the share (with a 10⁻⁶ margin over the rounding
///   the packing forgives): sorted by start, task j starts at least a task
///   time after task j − k (else k + 1 would run together), so its p
///   tasks need ⌈p ÷ k⌉ task times.
/// * Work. The placed tasks never use more than the share, so their work
///   per resource type, Σ tasks × task time × demand, needs at least that
///   work ÷ the share's amount of the type.
///
/// This is what a kept T_k usually meets: the target slid with the clock
/// and the job's tasks no longer fit before it, and the packing would run
/// only to say so (under the chain bound alone, 1 306 such packings took
/// 3.9 % of `bench-sim --policy carbyne`'s instructions, each a large
/// job's; the waves and work bounds refuse 383 of them, and the 923 left
/// pass all three).
pub fn may_reach(stages: &[StageModel], capacity: &Amount, t_k: f64) -> bool {
    let beyond = |needed: f64| needed > t_k + 1e-6 + 1e-9 * needed.abs();
    let placed = |s: usize| if stages[s].pending() > 0 { stages[s].task_ms } else { 0.0 };
    let chain = longest_weighted_paths(stages.len(), &placed, &|s| stages[s].parents.as_slice()).into_iter().fold(0.0, f64::max);
    if beyond(chain) {
        return false;
    }
    let roomy = capacity.scaled(1.0 + 1e-6);
    let mut work = Amount::ZERO;
    for s in stages.iter().filter(|s| s.pending() > 0 && s.task_ms > 0.0) {
        let k = roomy.count_fitting(&s.demand);
        if k > 0 && k < i64::MAX && beyond(((s.pending() + k - 1) / k) as f64 * s.task_ms) {
            return false;
        }
        work = work.plus(&s.demand.scaled(s.pending() as f64 * s.task_ms));
    }
    !roomy.0.iter().zip(&work.0).any(|(c, w)| *c > 0.0 && beyond(w / c))
}

fn children_of(stages: &[StageModel]) -> Vec<Vec<usize>> {
    let mut children = vec![Vec::new(); stages.len()];
    for (i, s) in stages.iter().enumerate() {
        for p in &s.parents {
            children[*p].push(i);
        }
    }
    children
}

/// Every stage's running tasks' remaining times, ascending: what both
/// directions' holds are made of. Sorted once per plan and shared by its
/// forward and reverse packings.
struct RunningTimes {
    /// The times of all stages, stage after stage, each stage's ascending.
    times: Vec<f64>,
    /// Stage `s`'s times are `times[bounds[s]..bounds[s + 1]]`.
    bounds: Vec<usize>,
    /// The stages with running tasks, ascending: the only ones that hold
    /// anything (a job runs few of its stages at once, and a packing asks
    /// what they hold at every step for every runnable stage).
    running: Vec<usize>,
}

impl RunningTimes {
    fn of(stages: &[StageModel]) -> RunningTimes {
        let mut times: Vec<f64> = Vec::with_capacity(stages.iter().map(|s| s.running.len()).sum());
        let mut bounds = Vec::with_capacity(stages.len() + 1);
        bounds.push(0);
        // A stage's times come sorted from the model when it could read them
        // in order (`running_ascending`); the others are sorted here, each
        // time as the integer that orders as `f64::total_cmp` does: the same
        // order, and a sort of integers is several times faster than one
        // that compares floats through `total_cmp` (these sorts were 7 % of
        // `bench-sim --policy carbyne`). Equal keys are equal bits, so
        // stable or not, and read in order or sorted, the times are the same.
        let mut keys: Vec<i64> = Vec::new();
        for s in stages {
            match &s.running_ascending {
                Some(sorted) => {
                    debug_assert!(sorted.is_sorted_by(|a, b| a.total_cmp(b).is_le()) && sorted.len() == s.running.len());
                    times.extend_from_slice(sorted);
                }
                None => {
                    keys.clear();
                    keys.extend(s.running.iter().map(|r| total_order_key(*r)));
                    keys.sort_unstable();
                    times.extend(keys.iter().map(|k| from_total_order_key(*k)));
                }
            }
            bounds.push(times.len());
        }
        let running = (0..stages.len()).filter(|s| bounds[*s + 1] > bounds[*s]).collect();
        RunningTimes { times, bounds, running }
    }

    fn of_stage(&self, s: usize) -> &[f64] {
        &self.times[self.bounds[s]..self.bounds[s + 1]]
    }

    /// When stage `s`'s last running task is expected to end (0 when none
    /// runs): its last time, the times being ascending.
    fn stage_until(&self, s: usize) -> f64 {
        self.of_stage(s).last().map_or(0.0, |r| r.max(0.0))
    }
}

/// Where a running task with `r` ms left holds its stage's demand.
#[derive(Clone, Copy)]
enum HoldWindow {
    /// Forward time: over [0, r).
    FromNow,
    /// Reverse time from T_k: over [T_k − r, T_k).
    UntilTarget(f64),
}

/// The running tasks' holds (a, b, demand of the task's stage), and what
/// they hold over a window.
///
/// A hold overlaps [from, to) when a < to and b > from. Every task of a
/// stage holds the same demand, so the answer is Σ over stages of the
/// demand times how many of its holds overlap, and with each stage's
/// remaining times sorted that count is a binary search: forward, a = 0
/// and b = r, so it counts r > from; in reverse, b = T_k and a = T_k − r,
/// which (rounded) does not grow with r, so it counts the r whose T_k − r
/// is below `to`. Both test every hold's own a and b, as a scan of the
/// holds would. Amounts are whole resources (halves under `estimate_error`
/// ± 0.5), so demand × count is exact and the sum equals the scan's bit
/// for bit; under other error factors the two may differ in the last
/// bits, as the prefix sums this replaced could.
///
/// This replaced a scan of every hold per query (prefix sums after 32
/// queries): a stage of a large job runs hundreds of tasks, and with 50
/// such jobs among 450 small ones the scans and sums took about a third
/// of a heartbeat's CPU samples (`perf`); without them its CPU time
/// halved (`shepherd bench-heartbeat --policy carbyne --pending 10000
/// --small-apps 450`: CPU P50 1.6–1.7 ms before, 0.82–0.87 ms after, and
/// 0.76–0.78 ms with `Job::running_until` and the marks' T_k given once).
struct Holds<'a> {
    stages: &'a [StageModel],
    times: &'a RunningTimes,
    window: HoldWindow,
}

impl Holds<'_> {
    /// Gives `f` the times at which what the holds cover may change: each
    /// hold's start and end, some more than once (the caller keeps those
    /// after 0, each once). Forward every start is 0, so only the ends are
    /// given: the times themselves, each stage's ascending. In reverse the
    /// starts T_k − r, each stage's ascending (from its largest r), then
    /// the ends, all T_k, given once.
    fn each_bound(&self, mut f: impl FnMut(f64)) {
        match self.window {
            HoldWindow::FromNow => self.times.times.iter().for_each(|r| f(*r)),
            HoldWindow::UntilTarget(t_k) => {
                for s in 0..self.stages.len() {
                    self.times.of_stage(s).iter().rev().for_each(|r| f(t_k - r));
                }
                if !self.times.times.is_empty() {
                    f(t_k);
                }
            }
        }
    }

    /// The latest end of a hold (0 without holds).
    fn last_end(&self) -> f64 {
        match self.window {
            HoldWindow::FromNow => (0..self.stages.len()).map(|s| self.times.stage_until(s)).fold(0.0, f64::max),
            HoldWindow::UntilTarget(_) if self.times.times.is_empty() => 0.0,
            HoldWindow::UntilTarget(t_k) => t_k.max(0.0),
        }
    }

    /// How many of stage `s`'s holds overlap [from, to).
    fn count_overlapping(&self, s: usize, from: f64, to: f64) -> usize {
        let rs = self.times.of_stage(s);
        match self.window {
            HoldWindow::FromNow if 0.0 < to => rs.len() - rs.partition_point(|r| *r <= from),
            HoldWindow::UntilTarget(t_k) if t_k > from => rs.len() - rs.partition_point(|r| t_k - *r >= to),
            _ => 0,
        }
    }

    /// Σ demand over the holds with a < to and b > from.
    fn overlapping(&self, from: f64, to: f64) -> Amount {
        let mut acc = Amount::ZERO;
        for &s in &self.times.running {
            let n = self.count_overlapping(s, from, to);
            if n > 0 {
                acc = acc.plus(&self.stages[s].demand.scaled(n as f64));
            }
        }
        acc
    }
}

/// Forward, what the holds take over [t, t + d) is what they hold at t, for
/// any d with t + d > 0: every hold starts at 0, so it overlaps exactly when
/// its end r is after t. So it is summed once per step rather than once per
/// runnable stage, and because a packing's t only grows, each stage's count
/// of r > t moves a cursor instead of a binary search. The sum runs over the
/// same stages in the same order with the same counts as
/// `Holds::overlapping`, so it is the same bits (the decisions do not move).
struct HeldFromNow {
    /// Per entry of `RunningTimes::running`: its first time after `at`.
    cursor: Vec<usize>,
    /// The last step's t and what was held then.
    at: Option<(f64, Amount)>,
}

impl HeldFromNow {
    fn new(holds: &Holds) -> HeldFromNow {
        HeldFromNow { cursor: vec![0; holds.times.running.len()], at: None }
    }

    /// What the holds take over [t, t + d) for any d with t + d > 0; `t`
    /// never below an earlier call's.
    fn at(&mut self, holds: &Holds, t: f64) -> Amount {
        if let Some((at, held)) = self.at {
            if at == t {
                return held;
            }
        }
        let mut acc = Amount::ZERO;
        for (c, &s) in self.cursor.iter_mut().zip(&holds.times.running) {
            let rs = holds.times.of_stage(s);
            while *c < rs.len() && rs[*c] <= t {
                *c += 1;
            }
            let n = rs.len() - *c;
            if n > 0 {
                acc = acc.plus(&holds.stages[s].demand.scaled(n as f64));
            }
        }
        self.at = Some((t, acc));
        acc
    }
}

fn schedule(p: &Problem) -> Option<Schedule> {
    schedule_counting_steps(p).0
}

/// How many steps (distinct times) a packing took: all of them, and those
/// a lone stage's loop ran.
#[derive(Debug, Clone, Copy, Default)]
struct Steps {
    all: usize,
    lone: usize,
}

/// The list schedule, and how many steps it took.
fn schedule_counting_steps(p: &Problem) -> (Option<Schedule>, Steps) {
    let stages = p.stages;
    let n = stages.len();
    let mut left: Vec<i64> = stages.iter().map(StageModel::pending).collect();
    let mut open: Vec<i64> = left.clone();
    let mut to_place: i64 = left.iter().sum();
    let mut used = Amount::ZERO;
    let mut ends = Ends::new(n);
    let mut out: Vec<Vec<(f64, i64)>> = vec![Vec::new(); n];
    // Times at which what is held changes, sorted: every hold's start and
    // end after 0. Forward with one stage running (a large job's usual
    // case) they are that stage's times after 0, already sorted, read in
    // place (each time repeated as often as tasks end then: the cursors
    // below pass repeats, and the search for the first mark with room
    // lands on the first of equal marks, so the steps see the same
    // times). Otherwise they are gathered, a run of equal values kept
    // once as it comes (equal under `total_cmp` means the same bits, so
    // the unstable sort orders them as a stable one would). Each stage's
    // come ascending, starts before ends, so when one stage runs tasks
    // they arrive sorted and the sort only checks that.
    let gathered: Vec<f64>;
    let marks: &[f64] = match (p.held.window, p.held.times.running.as_slice()) {
        // A NaN sorts to an end (by its sign), and the gathering below
        // leaves it out: such times are gathered.
        (HoldWindow::FromNow, &[s]) if !ends_in_nan(p.held.times.of_stage(s)) => {
            let times = p.held.times.of_stage(s);
            &times[times.partition_point(|t| *t <= 0.0)..]
        }
        _ => {
            let mut marks: Vec<f64> = Vec::with_capacity(p.held.times.times.len() + 1);
            p.held.each_bound(|t| {
                if t > 0.0 && marks.last() != Some(&t) {
                    marks.push(t);
                }
            });
            marks.sort_unstable_by(f64::total_cmp);
            marks.dedup();
            gathered = marks;
            &gathered
        }
    };
    // And those at which a stage's gate opens (`done_at`), apart, so as
    // not to break that order.
    let mut gates: Vec<f64> = p.done_at.iter().copied().filter(|t| *t > 0.0).collect();
    gates.sort_unstable_by(f64::total_cmp);
    gates.dedup();
    // `t` only grows, so the next mark and gate are found by moving cursors.
    let (mut next_mark_at, mut next_gate_at) = (0, 0);
    let complete = |s: usize, t: f64, open: &[i64]| open[s] == 0 && p.done_at[s] <= t;
    let mut span = p.done_at.iter().copied().fold(p.held.last_end(), f64::max);
    let mut t = 0.0;
    let mut keyed: Vec<(f64, f64, usize)> = Vec::with_capacity(n);
    // A stage once runnable stays so (`open` only falls and `t` only
    // grows), so its parents are checked only until they are complete.
    let mut runnable = vec![false; n];
    let mut held_from_now = matches!(p.held.window, HoldWindow::FromNow).then(|| HeldFromNow::new(&p.held));
    let mut steps = Steps::default();
    while to_place > 0 {
        steps.all += 1;
        // The runnable stages with their sort keys, computed once per stage
        // rather than per comparison.
        let mut free = p.capacity.minus(&used);
        keyed.clear();
        for s in 0..n {
            if left[s] > 0 && !runnable[s] {
                runnable[s] = p.before[s].iter().all(|b| complete(*b, t, &open));
            }
            // A stage with no room for one task beside what is placed
            // places nothing this step (the placements below only take
            // room), so it is left out of the order.
            if left[s] > 0 && runnable[s] && free.fits_once(&stages[s].demand) {
                keyed.push((p.rank[s], 0.0, s));
            }
        }
        // Tetris' alignment only breaks ties of rank between stages, so a
        // lone runnable stage (most steps of a large job) needs none.
        if keyed.len() > 1 {
            for (_, alignment, s) in keyed.iter_mut() {
                *alignment = stages[*s].demand.alignment(&free, &p.capacity);
            }
            keyed.sort_by(|a, b| b.0.total_cmp(&a.0).then(b.1.total_cmp(&a.1)).then(a.2.cmp(&b.2)));
        }
        let mut placed = false;
        for &(_, _, s) in &keyed {
            // What the holds take only lowers the room: without a task's
            // room beside the placed tasks alone, none fits (and the holds
            // need not be summed).
            let unheld = p.capacity.minus(&used);
            if !unheld.fits_once(&stages[s].demand) {
                continue;
            }
            let d = stages[s].task_ms;
            let held = match held_from_now.as_mut() {
                Some(h) if t + d > 0.0 => h.at(&p.held, t),
                _ => p.held.overlapping(t, t + d),
            };
            let room = unheld.minus(&held);
            let k = left[s].min(room.count_fitting(&stages[s].demand));
            if k > 0 {
                placed = true;
                left[s] -= k;
                to_place -= k;
                used = used.plus(&stages[s].demand.scaled(k as f64));
                ends.push(s, t + d, k);
                out[s].push((t, k));
                span = span.max(t + d);
            }
        }
        if to_place == 0 {
            break;
        }
        while next_mark_at < marks.len() && marks[next_mark_at] <= t {
            next_mark_at += 1;
        }
        while next_gate_at < gates.len() && gates[next_gate_at] <= t {
            next_gate_at += 1;
        }
        // Forward, a stage that is the only one both runnable and with
        // tasks left, and the only one with tasks in flight, stays so until
        // the next mark or gate (see `lone_stage`), and what the holds take
        // stays what they take now: its steps before then go on in a loop
        // of their own, each what a step of this loop does there, the same
        // operations on the same values (most steps of a large job's
        // packing).
        if let (true, Some(h), Some(s)) = (p.shortcuts, held_from_now.as_mut(), lone_stage(&left, &runnable, &ends)) {
            let (demand, d) = (&stages[s].demand, stages[s].task_ms);
            let until = match (marks.get(next_mark_at), gates.get(next_gate_at)) {
                (Some(m), Some(g)) => m.min(*g),
                (m, g) => m.or(g).copied().unwrap_or(f64::INFINITY),
            };
            // Held over [t, t + d) for d > 0 is held at t, the same sum
            // at every t before the next mark (`HeldFromNow::at`).
            let mut held = None;
            // So the count that fits is a function of what is free beside
            // the placed tasks, and in a stretch where each step places
            // what its ends freed, that comes back to the same bits step
            // after step: the last step's count is reused when it does
            // (the count's divisions were most of a step's time).
            let mut last: Option<(Amount, i64)> = None;
            // The next step is at the stage's first end, when that comes
            // before the next mark and gate (no other stage's end comes
            // before it; the skips below change nothing then). A task time
            // that is not above 0 is left to this loop.
            while let Some(&(next, _)) = ends.queues[s].front().filter(|(e, _)| *e < until && d > 0.0) {
                t = next;
                end_steps_due(t, stages, &mut ends, &mut open, &mut used);
                steps.all += 1;
                steps.lone += 1;
                // The step: where no task fits beside the placed ones
                // (`fits_once` false: the stage is not keyed), none fits
                // beside the holds either, and the count that fits is 0.
                free = p.capacity.minus(&used);
                let fitting = match last {
                    Some((at, n)) if same_bits(&at, &free) => n,
                    _ => {
                        let n = free.minus(held.get_or_insert_with(|| h.at(&p.held, t))).count_fitting(demand);
                        last = Some((free, n));
                        n
                    }
                };
                let k = left[s].min(fitting);
                placed = k > 0;
                if placed {
                    left[s] -= k;
                    to_place -= k;
                    used = used.plus(&demand.scaled(k as f64));
                    ends.push(s, t + d, k);
                    out[s].push((t, k));
                    span = span.max(t + d);
                } else {
                    // What a step that placed nothing leaves for the skip
                    // below: the stage keyed where a task fits beside the
                    // placed ones.
                    keyed.clear();
                    if free.fits_once(demand) {
                        keyed.push((p.rank[s], 0.0, s));
                    }
                }
                if to_place == 0 {
                    return (Some(Schedule { span, starts: out }), steps);
                }
                if left[s] == 0 {
                    break;
                }
            }
        }
        let next_end = ends.first().map(|(e, _)| e);
        if !placed && p.shortcuts && held_from_now.is_some() {
            // Nothing was placed, and until the next end or gate only the
            // holds change, and they only shrink: the steps at the marks
            // before the first at which a runnable stage's task fits would
            // place nothing either, so they are skipped.
            let bound = match (next_end, gates.get(next_gate_at)) {
                (Some(e), Some(g)) => Some(e.min(*g)),
                (e, g) => e.or(g.copied()),
            };
            next_mark_at = first_mark_with_room(p, &keyed, &free, marks, next_mark_at, bound);
        }
        let next_mark = match (marks.get(next_mark_at), gates.get(next_gate_at)) {
            (Some(m), Some(g)) => Some(m.min(*g)),
            (m, g) => m.or(g).copied(),
        };
        let next = match (next_end, next_mark) {
            (Some(a), Some(b)) => a.min(b),
            (a, b) => match a.or(b) {
                Some(next) => next,
                None => return (None, steps),
            },
        };
        // With no stage that has tasks left runnable, nothing is placed
        // until one becomes so, which needs a stage it waits for to
        // complete: go to the first such completion at once, the ends
        // before it subtracted below in the order the steps would have.
        let next = match p.shortcuts && !placed && (0..n).all(|s| left[s] == 0 || !runnable[s]) {
            true => next_completion(p, &left, &open, &ends, t).map_or(next, |c| c.max(next)),
            false => next,
        };
        t = next;
        end_steps_due(t, stages, &mut ends, &mut open, &mut used);
    }
    (Some(Schedule { span, starts: out }), steps)
}

/// Whether `a` and `b` are the same bits in every type: then any
/// arithmetic on them gives the same result.
fn same_bits(a: &Amount, b: &Amount) -> bool {
    a.0.iter().zip(&b.0).all(|(x, y)| x.to_bits() == y.to_bits())
}

/// The placed steps that end by `t` end, earliest first: their tasks are
/// no longer open and no longer use room.
fn end_steps_due(t: f64, stages: &[StageModel], ends: &mut Ends, open: &mut [i64], used: &mut Amount) {
    while let Some((e, s)) = ends.first() {
        if e > t {
            break;
        }
        let k = ends.pop(s);
        open[s] -= k;
        *used = used.minus(&stages[s].demand.scaled(k as f64));
    }
}

/// Forward, after a step at `t`: the stage that is the only one both
/// runnable and with tasks left, if no other stage has tasks in flight.
/// It stays so until the next mark or gate or its last task is placed:
/// only its own ends change anything then, and they do not complete it
/// while it has tasks left. Another stage with tasks left is not runnable
/// because a parent is not complete at `t`: that parent's gate (`done_at`)
/// is still ahead, or it has tasks open, and then it is this stage (open
/// until its last task ends) or one with nothing in flight (open for good
/// until it is placed, which needs it runnable).
fn lone_stage(left: &[i64], runnable: &[bool], ends: &Ends) -> Option<usize> {
    let mut lone = None;
    for s in 0..left.len() {
        if left[s] > 0 && runnable[s] {
            if lone.is_some() {
                return None;
            }
            lone = Some(s);
        }
    }
    let s = lone?;
    ends.queues.iter().enumerate().all(|(r, q)| r == s || q.is_empty()).then_some(s)
}

/// Whether times sorted by `total_cmp` hold a NaN: one would be first
/// (negative) or last (positive).
fn ends_in_nan(sorted: &[f64]) -> bool {
    sorted.first().is_some_and(|t| t.is_nan()) || sorted.last().is_some_and(|t| t.is_nan())
}

/// The earliest time at which a stage that is not complete at `t` but has
/// all its tasks placed completes: its last placed task has ended and its
/// running tasks have (`done_at`). `None` when no stage is in that state.
///
/// While no stage with tasks left is runnable, only a completion can make
/// one so (a stage with tasks left completes only after they are placed),
/// so no step before this time places anything, and none changes what a
/// later step sees but the ends it subtracts. A large job's packing meets
/// this after it has placed the last task of a stage whose children wait:
/// it used to take one step per end of that stage's tasks (a third of the
/// steps of `bench-sim --policy carbyne`'s largest job's packings).
fn next_completion(p: &Problem, left: &[i64], open: &[i64], ends: &Ends, t: f64) -> Option<f64> {
    let mut first: Option<f64> = None;
    for b in 0..left.len() {
        if left[b] > 0 || (open[b] == 0 && p.done_at[b] <= t) {
            continue;
        }
        let done = ends.last(b).map_or(p.done_at[b], |e| e.max(p.done_at[b]));
        if first.is_none_or(|f| done < f) {
            first = Some(done);
        }
    }
    first
}

/// Forward, after a step that placed nothing at `free` (nothing placed
/// since, so `free` is the room beside the placed tasks): the index of the
/// first of `marks[from..]` before `bound` at which a task of one of the
/// `keyed` stages fits beside the holds, or of the first mark at or after
/// `bound` (`marks.len()` without one) when none does.
///
/// Exact: what the holds take at a mark is summed as [`HeldFromNow::at`]
/// sums it ([`Holds::overlapping`]: the same stages, order and counts, so
/// the same bits), and it only falls from mark to mark (fewer holds, each
/// term ≥ 0, and float addition and subtraction are monotone), so whether
/// a task fits only turns from no to yes. A gallop then a binary search find the turn:
/// a large job whose running tasks hold more than its share passes
/// thousands of marks at which nothing fits.
fn first_mark_with_room(p: &Problem, keyed: &[(f64, f64, usize)], free: &Amount, marks: &[f64], from: usize, bound: Option<f64>) -> usize {
    let end = bound.map_or(marks.len(), |b| from + marks[from..].partition_point(|m| *m < b));
    // A stage without a task time ≥ 0 is left to the step-by-step walk.
    if keyed.iter().any(|&(_, _, s)| p.stages[s].task_ms.is_nan() || p.stages[s].task_ms < 0.0) {
        return from;
    }
    let fits = |t: f64| {
        // Forward, every hold starts at 0, so what the holds take over a
        // window from `t` > 0 does not depend on its end (the sum
        // `HeldFromNow::at` makes).
        let room = free.minus(&p.held.overlapping(t, t));
        keyed.iter().any(|&(_, _, s)| room.fits_once(&p.stages[s].demand))
    };
    let (mut lo, mut step) = (from, 1);
    while lo < end {
        let probe = (lo + step - 1).min(end - 1);
        if fits(marks[probe]) {
            return lo + marks[lo..probe].partition_point(|m| !fits(*m));
        }
        lo = probe + 1;
        step *= 2;
    }
    end
}

/// One job's packings under a share, for one plan: its stages and their
/// running tasks' remaining times, sorted once for every packing the plan
/// makes (a forward one, then one or two reverse ones).
pub struct Job<'a> {
    stages: &'a [StageModel],
    running: RunningTimes,
    /// Each stage's parents and children: what gates a stage forward and
    /// in reverse.
    parents: Vec<Vec<usize>>,
    children: Vec<Vec<usize>>,
    /// Each stage's longest path to the job's end (the forward priority)
    /// and from its start (the reverse one); neither depends on the share
    /// or the target, so both serve every packing of the plan.
    to_end: Vec<f64>,
    from_start: Vec<f64>,
}

impl<'a> Job<'a> {
    pub fn new(stages: &'a [StageModel]) -> Job<'a> {
        let parents: Vec<Vec<usize>> = stages.iter().map(|s| s.parents.clone()).collect();
        let children = children_of(stages);
        let to_end = longest_paths(stages, &children);
        let from_start = longest_paths(stages, &parents);
        Job { stages, running: RunningTimes::of(stages), parents, children, to_end, from_start }
    }

    /// When the job's last running task is expected to end, ms from now
    /// (0 when none runs).
    pub fn running_until(&self) -> f64 {
        (0..self.stages.len()).map(|s| self.running.stage_until(s)).fold(0.0, f64::max)
    }

    /// T_k and the greedy schedule reaching it, inside `capacity` from now
    /// (0). `None` when some task can never fit.
    pub fn forward(&self, capacity: &Amount) -> Option<Schedule> {
        self.forward_with(capacity, true)
    }

    /// [`Job::forward`], with or without the shortcuts.
    fn forward_with(&self, capacity: &Amount, shortcuts: bool) -> Option<Schedule> {
        schedule(&self.forward_problem(capacity, shortcuts))
    }

    /// The forward packing's problem: parents gate, running tasks hold
    /// from now, the longest path to the job's end ranks.
    fn forward_problem(&self, capacity: &Amount, shortcuts: bool) -> Problem<'_> {
        let stages = self.stages;
        Problem {
            stages,
            capacity: *capacity,
            before: &self.parents,
            held: Holds { stages, times: &self.running, window: HoldWindow::FromNow },
            done_at: (0..stages.len()).map(|s| self.running.stage_until(s)).collect(),
            rank: &self.to_end,
            shortcuts,
        }
    }

    /// The latest forward start of every task not yet started, packing the
    /// reversed DAG from `t_k` (see the module comment): per stage,
    /// ascending `(start ms from now, count)`. A start is negative when the
    /// reverse packing needs more time than `t_k`.
    pub fn reverse(&self, capacity: &Amount, t_k: f64) -> Vec<Vec<(f64, i64)>> {
        let stages = self.stages;
        let Some(rev) = schedule(&self.reverse_problem(capacity, t_k, true)) else {
            // A task larger than the share: cannot happen after `forward`
            // succeeded with the same capacity; start everything now.
            return stages.iter().map(|s| if s.pending() > 0 { vec![(0.0, s.pending())] } else { Vec::new() }).collect();
        };
        rev.starts
            .into_iter()
            .zip(stages)
            .map(|(v, s)| {
                let mut fwd: Vec<(f64, i64)> = v.into_iter().map(|(tau, k)| (t_k - tau - s.task_ms, k)).collect();
                fwd.reverse();
                fwd
            })
            .collect()
    }

    /// The reverse packing's problem: children gate, running tasks hold
    /// until `t_k`, the longest path from the job's start ranks.
    fn reverse_problem(&self, capacity: &Amount, t_k: f64, shortcuts: bool) -> Problem<'_> {
        let stages = self.stages;
        Problem {
            stages,
            capacity: *capacity,
            before: &self.children,
            held: Holds { stages, times: &self.running, window: HoldWindow::UntilTarget(t_k) },
            done_at: vec![0.0; stages.len()],
            rank: &self.from_start,
            shortcuts,
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::model::{Resources, SchedulerKey};

    /// A stage of `n` tasks of `units` of one resource lasting `ms`.
    pub(crate) fn stage(n: i64, units: i64, ms: f64, parents: &[usize], running: &[f64]) -> StageModel {
        StageModel {
            keys: vec![(SchedulerKey { priority: 0, allocation_request_id: 0 }, n)],
            asked: n,
            future: 0,
            running: running.to_vec(),
            running_ascending: None,
            demand: Amount::of(&Resources::new(units, units)),
            task_ms: ms,
            parents: parents.to_vec(),
        }
    }

    fn forward(stages: &[StageModel], capacity: &Amount) -> Option<Schedule> {
        Job::new(stages).forward(capacity)
    }

    fn reverse(stages: &[StageModel], capacity: &Amount, t_k: f64) -> Vec<Vec<(f64, i64)>> {
        Job::new(stages).reverse(capacity, t_k)
    }

    fn share(units: i64) -> Amount {
        Amount::of(&Resources::new(units, units))
    }

    /// The paper's Fig. 2 job J1 with its share of 0.5 (resource in
    /// hundredths, time in tenths): S0 = 2 tasks of 0.04 for 1 unit, S1 =
    /// 3 tasks of 0.21 for 1 unit, S2 (after both) = 1 task for 0.1 unit.
    /// Forward: at 0, S1 (alignment 0.21·0.5 beats S0's 0.04·0.5) takes 2
    /// tasks (0.42), S0 both (0.08): full; at 1 the third S1 task; at 2 S2;
    /// T_1 = 2.1. Reverse from 2.1: S2 at [0, 0.1]; then S1 ×2 and S0 ×2 at
    /// [0.1, 1.1] → Actual = 2.1 − 0.1 − 1 = 1.0; the third S1 at [1.1,
    /// 2.1] → Actual = 0: the one task J1 must start now (§3.3: "CARBYNE
    /// can postpone both tasks from S0 and one task from S1").
    #[test]
    fn fig2_job1_reverse_packing() {
        let j1 = vec![stage(2, 4, 10.0, &[], &[]), stage(3, 21, 10.0, &[], &[]), stage(1, 10, 1.0, &[0, 1], &[])];
        let t = forward(&j1, &share(50)).unwrap().span;
        assert_eq!(t, 21.0);
        let starts = reverse(&j1, &share(50), t);
        assert_eq!(starts[0], vec![(10.0, 2)]);
        assert_eq!(starts[1], vec![(0.0, 1), (10.0, 2)]);
        assert_eq!(starts[2], vec![(20.0, 1)]);
    }

    /// Fig. 2's J2: two tasks of 0.29 for 1 unit under 0.5: one at a time,
    /// T_2 = 2; reverse: one at [0, 1] (Actual 1), one at [1, 2] (Actual 0).
    #[test]
    fn fig2_job2_reverse_packing() {
        let j2 = vec![stage(2, 29, 10.0, &[], &[])];
        let t = forward(&j2, &share(50)).unwrap().span;
        assert_eq!(t, 20.0);
        assert_eq!(reverse(&j2, &share(50), t)[0], vec![(0.0, 1), (10.0, 1)]);
    }

    /// A running task holds its part of the share until it ends. Share 2,
    /// one task running with 30 left, 3 pending tasks of 10 (one stage):
    /// forward: 1 pending beside it at 0, 10, 20 → 30; then T = 30. Reverse
    /// from 30: the running task holds [0, 30] reverse, so one slot is
    /// left: tasks at [0,10], [10,20], [20,30] → Actual 20, 10, 0.
    #[test]
    fn running_tasks_hold_their_share() {
        let s = vec![stage(3, 1, 10.0, &[], &[30.0])];
        let t = forward(&s, &share(2)).unwrap().span;
        assert_eq!(t, 30.0);
        assert_eq!(reverse(&s, &share(2), t)[0], vec![(0.0, 1), (10.0, 1), (20.0, 1)]);
    }

    /// A long running task on the critical path (40 left) and 8 short
    /// tasks (10 each) that only need to finish before the child (10) it
    /// gates: share 5. T = 40 + 10 = 50. Reverse: child at [0,10]; then
    /// the 8 short tasks may use 4 slots (the running task holds one over
    /// [10, 50]): 4 at [10,20] (Actual 30), 4 at [20,30] (Actual 20).
    /// Nothing must start now.
    #[test]
    fn short_tasks_wait_behind_a_long_pole() {
        let s = vec![stage(0, 1, 40.0, &[], &[40.0]), stage(8, 1, 10.0, &[], &[]), stage(1, 1, 10.0, &[0, 1], &[])];
        let t = forward(&s, &share(5)).unwrap().span;
        assert_eq!(t, 50.0);
        let r = reverse(&s, &share(5), t);
        assert_eq!(r[1], vec![(20.0, 4), (30.0, 4)]);
        assert_eq!(r[2], vec![(40.0, 1)]);
    }

    /// Σ demand over the holds (a, b, demand) with a < to and b > from,
    /// by a scan: what [`Holds::overlapping`] must answer.
    fn held_over(holds: &[(f64, f64, Amount)], from: f64, to: f64) -> Amount {
        holds.iter().filter(|(a, b, _)| *a < to && *b > from).fold(Amount::ZERO, |acc, (_, _, r)| acc.plus(r))
    }

    /// One to four stages of up to 40 running tasks each, their remaining
    /// times on a 5 ms grid (plus up to `jitter` ms off it when `jitter` >
    /// 0), each stage with its own random demand.
    fn random_stages(rng: &mut crate::workload::rng::Rng, jitter: f64) -> Vec<StageModel> {
        (0..rng.int(1, 5))
            .map(|_| {
                let running: Vec<f64> = (0..rng.int(0, 40))
                    .map(|_| rng.int(0, 20) as f64 * 5.0 + if jitter > 0.0 { rng.uniform(0.0, jitter) } else { 0.0 })
                    .collect();
                let mut s = stage(0, 1, 10.0, &[], &running);
                s.demand = Amount::of(&Resources::new(rng.int(1, 4096), rng.int(1, 8)));
                s
            })
            .collect()
    }

    /// The sorted-count answer equals a scan of every hold, in both
    /// directions, on random stages (running tasks in any order, times
    /// that repeat, targets on and off their grid) and windows, including
    /// windows that share endpoints with holds, empty and inverted ones.
    #[test]
    fn held_amount_equals_the_scan_of_every_hold() {
        let mut rng = crate::workload::rng::Rng::seeded(7);
        let mut overlapping = 0;
        for _ in 0..300 {
            let stages = random_stages(&mut rng, 0.0);
            let times = RunningTimes::of(&stages);
            // Half the targets on the grid of the times, so ends meet windows.
            let t_k = rng.int(0, 24) as f64 * 5.0 + if rng.chance(0.5) { rng.uniform(0.0, 1.0) } else { 0.0 };
            for window in [HoldWindow::FromNow, HoldWindow::UntilTarget(t_k)] {
                let holds = Holds { stages: &stages, times: &times, window };
                let every: Vec<(f64, f64, Amount)> = stages
                    .iter()
                    .flat_map(|s| {
                        s.running.iter().map(move |r| match window {
                            HoldWindow::FromNow => (0.0, *r, s.demand),
                            HoldWindow::UntilTarget(t_k) => (t_k - r, t_k, s.demand),
                        })
                    })
                    .collect();
                for _ in 0..40 {
                    let from = rng.int(0, 30) as f64 * 5.0 - 10.0;
                    let to = from + rng.int(-2, 10) as f64 * 5.0;
                    let want = held_over(&every, from, to);
                    overlapping += usize::from(want != Amount::ZERO);
                    assert_eq!(holds.overlapping(from, to), want, "window [{from}, {to}), holds {every:?}");
                }
            }
        }
        assert!(overlapping > 5000, "only {overlapping} windows overlapped a hold");
    }

    /// Forward, the per-step sum with cursors is what `Holds::overlapping`
    /// gives for every window [t, t + d) with t + d > 0, bit for bit, over
    /// ascending t (repeats included), as a forward packing asks.
    #[test]
    fn held_from_now_equals_the_overlap_of_every_forward_window() {
        let mut rng = crate::workload::rng::Rng::seeded(5);
        let mut nonzero = 0;
        for _ in 0..300 {
            let stages = random_stages(&mut rng, 0.5);
            let times = RunningTimes::of(&stages);
            let holds = Holds { stages: &stages, times: &times, window: HoldWindow::FromNow };
            let mut cached = HeldFromNow::new(&holds);
            let mut t = 0.0;
            for _ in 0..60 {
                for _ in 0..rng.int(1, 3) {
                    let d = rng.int(1, 30) as f64 * 2.5;
                    let got = cached.at(&holds, t);
                    nonzero += usize::from(got != Amount::ZERO);
                    assert_eq!(got, holds.overlapping(t, t + d), "t {t}, d {d}");
                }
                if rng.chance(0.7) {
                    t += rng.int(0, 6) as f64 * 2.5 + if rng.chance(0.3) { rng.uniform(0.0, 1.0) } else { 0.0 };
                }
            }
        }
        assert!(nonzero > 5000, "only {nonzero} steps held anything");
    }

    /// `may_reach` says no only where the reverse packing starts a task
    /// before now: random DAGs (parents among earlier stages), some stages
    /// with nothing left to place, running tasks, and targets from 0 to
    /// twice the forward span. Both answers occur often enough to count.
    #[test]
    fn may_reach_says_no_only_where_the_reverse_packing_starts_before_now() {
        let mut rng = crate::workload::rng::Rng::seeded(11);
        let (mut refused, mut reached) = (0, 0);
        for _ in 0..2000 {
            let n = rng.int(1, 5) as usize;
            let stages: Vec<StageModel> = (0..n)
                .map(|i| {
                    let parents: Vec<usize> = (0..i).filter(|_| rng.chance(0.4)).collect();
                    let running: Vec<f64> = (0..rng.int(0, 2)).map(|_| rng.int(1, 40) as f64).collect();
                    stage(rng.int(0, 6), rng.int(1, 4), rng.int(1, 50) as f64, &parents, &running)
                })
                .collect();
            if stages.iter().all(|s| s.pending() == 0) {
                continue;
            }
            let capacity = share(rng.int(4, 12));
            let span = forward(&stages, &capacity).unwrap().span;
            let t_k = rng.uniform(0.0, 2.0 * span);
            let starts_now = reverse(&stages, &capacity, t_k).iter().flatten().all(|(start, _)| *start >= -1e-6);
            if !may_reach(&stages, &capacity, t_k) {
                assert!(!starts_now, "may_reach said no, the packing fits: T_k {t_k}, {stages:?}");
                refused += 1;
            } else if starts_now {
                reached += 1;
            }
        }
        assert!(refused > 200 && reached > 200, "refused {refused}, reached {reached}");
    }

    /// A packing's span, and its starts per stage, as bits.
    type Bits = (u64, Vec<Vec<(u64, i64)>>);

    /// A packing as bits, to compare two bit for bit.
    fn bits(s: &Option<Schedule>) -> Option<Bits> {
        s.as_ref().map(|s| (s.span.to_bits(), s.starts.iter().map(|v| v.iter().map(|(t, k)| (t.to_bits(), *k)).collect()).collect()))
    }

    /// Skipping the steps at which nothing fits changes no packing, bit
    /// for bit, forward or reverse: random DAGs of up to five stages whose
    /// running tasks (up to 60 per stage, times on and off a grid) often
    /// hold more than the share, tasks of their own sizes (some of no
    /// time), and shares and sizes scaled by factors that make them whole,
    /// halves or inexact; reverse from the forward span and from a target
    /// on either side of it.
    #[test]
    fn skipping_the_steps_where_nothing_fits_changes_no_packing() {
        let mut rng = crate::workload::rng::Rng::seeded(17);
        let (mut skipped_forward, mut skipped_reverse) = (0, 0);
        for _ in 0..3000 {
            let scale = *rng.pick(&[1.0, 0.5, 1.5, 1.1, 0.3]);
            let n = rng.int(1, 6) as usize;
            let grid = *rng.pick(&[1.0, 5.0]);
            let stages: Vec<StageModel> = (0..n)
                .map(|i| {
                    let parents: Vec<usize> = (0..i).filter(|_| rng.chance(0.3)).collect();
                    let running: Vec<f64> = (0..rng.int(0, 60))
                        .map(|_| rng.int(0, 40) as f64 * grid + if rng.chance(0.3) { rng.uniform(0.0, 1.0) } else { 0.0 })
                        .collect();
                    let mut s = stage(rng.int(0, 30), 1, rng.int(0, 40) as f64 * grid * scale, &parents, &running);
                    s.demand = Amount::of(&Resources::new(rng.int(1, 4) * 512, rng.int(1, 4))).scaled(scale);
                    s
                })
                .collect();
            let capacity = Amount::of(&Resources::new(rng.int(1, 24) * 512, rng.int(1, 24))).scaled(scale);
            let job = Job::new(&stages);
            let (walked, walked_steps) = schedule_counting_steps(&job.forward_problem(&capacity, false));
            let (with_skips, skipping_steps) = schedule_counting_steps(&job.forward_problem(&capacity, true));
            assert_eq!(bits(&with_skips), bits(&walked), "capacity {capacity:?}, {stages:?}");
            skipped_forward += walked_steps.all - skipping_steps.all;
            let Some(span) = walked.map(|w| w.span) else { continue };
            for t_k in [span, span * rng.uniform(0.5, 1.5)] {
                let (walked, walked_steps) = schedule_counting_steps(&job.reverse_problem(&capacity, t_k, false));
                let (with_skips, skipping_steps) = schedule_counting_steps(&job.reverse_problem(&capacity, t_k, true));
                assert_eq!(bits(&with_skips), bits(&walked), "T_k {t_k}, capacity {capacity:?}, {stages:?}");
                skipped_reverse += walked_steps.all - skipping_steps.all;
            }
        }
        assert!(skipped_forward > 100_000 && skipped_reverse > 40, "skipped {skipped_forward} forward, {skipped_reverse} reverse steps");
    }

    /// A lone stage's steps, run in their own loop, pack as the one loop
    /// does, bit for bit: jobs of one to three stages whose first stage
    /// has hundreds to thousands of tasks (the others after it or beside
    /// it, some with tasks running), a share of a few to a few dozen of its
    /// tasks, task times on and off a grid, and sizes and shares scaled
    /// whole, in halves or inexactly.
    #[test]
    fn a_lone_stage_packs_as_the_one_loop_does() {
        let mut rng = crate::workload::rng::Rng::seeded(29);
        let (mut lone, mut all) = (0, 0);
        for _ in 0..400 {
            let scale = *rng.pick(&[1.0, 0.5, 1.1, 0.3]);
            let n = rng.int(1, 3) as usize;
            let stages: Vec<StageModel> = (0..n)
                .map(|i| {
                    let parents: Vec<usize> = (0..i).filter(|_| rng.chance(0.6)).collect();
                    let tasks = if i == 0 { rng.int(100, 3000) } else { rng.int(0, 200) };
                    let running: Vec<f64> = (0..rng.int(0, if i == 0 { 60 } else { 5 }))
                        .map(|_| rng.int(0, 400) as f64 + if rng.chance(0.3) { rng.uniform(0.0, 1.0) } else { 0.0 })
                        .collect();
                    let ms = rng.int(1, 300) as f64 * scale + if rng.chance(0.3) { rng.uniform(0.0, 1.0) } else { 0.0 };
                    let mut s = stage(tasks, 1, ms, &parents, &running);
                    s.demand = Amount::of(&Resources::new(rng.int(1, 4) * 512, rng.int(1, 4))).scaled(scale);
                    s
                })
                .collect();
            let capacity = Amount::of(&Resources::new(rng.int(4, 96) * 512, rng.int(4, 96))).scaled(scale);
            let job = Job::new(&stages);
            let (walked, _) = schedule_counting_steps(&job.forward_problem(&capacity, false));
            let (short, steps) = schedule_counting_steps(&job.forward_problem(&capacity, true));
            assert_eq!(bits(&short), bits(&walked), "capacity {capacity:?}, {stages:?}");
            (lone, all) = (lone + steps.lone, all + steps.all);
        }
        assert!(lone * 2 > all, "{lone} of {all} steps in a lone stage's loop");
    }

    /// Forward with one stage running, the marks are that stage's times
    /// read in place (repeats kept, those at or below 0 cut off); the same
    /// problem with a second running stage, whose one task has no time
    /// left and so holds nothing, gathers them. The packings are the same
    /// bits.
    #[test]
    fn marks_read_in_place_pack_as_gathered_marks_do() {
        let mut rng = crate::workload::rng::Rng::seeded(23);
        let bits = |s: &Schedule, n: usize| {
            (
                s.span.to_bits(),
                s.starts[..n].iter().map(|v| v.iter().map(|(t, k)| (t.to_bits(), *k)).collect::<Vec<_>>()).collect::<Vec<_>>(),
            )
        };
        let mut in_place = 0;
        for _ in 0..2000 {
            let scale = *rng.pick(&[1.0, 0.5, 1.1, 0.3]);
            let n = rng.int(1, 4) as usize;
            let grid = *rng.pick(&[1.0, 5.0]);
            let runs = rng.int(0, n as i64 - 1) as usize;
            let mut stages: Vec<StageModel> = (0..n)
                .map(|i| {
                    let parents: Vec<usize> = (0..i).filter(|_| rng.chance(0.3)).collect();
                    let running: Vec<f64> = match i == runs {
                        // A NaN now and then, of either sign (it sorts to
                        // that end).
                        true => (0..rng.int(1, 80))
                            .map(|_| match rng.chance(0.01) {
                                true => *rng.pick(&[f64::NAN, -f64::NAN]),
                                false => rng.int(0, 40) as f64 * grid + if rng.chance(0.2) { rng.uniform(0.0, 1.0) } else { 0.0 },
                            })
                            .collect(),
                        false => Vec::new(),
                    };
                    let mut s = stage(rng.int(0, 30), 1, rng.int(1, 40) as f64 * grid * scale, &parents, &running);
                    s.demand = Amount::of(&Resources::new(rng.int(1, 4) * 512, rng.int(1, 4))).scaled(scale);
                    s
                })
                .collect();
            let capacity = Amount::of(&Resources::new(rng.int(1, 24) * 512, rng.int(1, 24))).scaled(scale);
            let Some(read) = forward(&stages, &capacity) else { continue };
            stages.push(stage(0, 1, 0.0, &[], &[0.0]));
            let gathered = forward(&stages, &capacity).expect("the inert stage changes no fit");
            assert_eq!(bits(&read, n), bits(&gathered, n), "capacity {capacity:?}, {stages:?}");
            in_place += 1;
        }
        assert!(in_place > 1000, "{in_place} packings compared");
    }

    /// A stage's running tasks, listed in any order, gate its children
    /// until the last of them ends: stage 0 has tasks with 40, 10 and 25
    /// ms left (listed so), stage 1 one task after it. Forward, the child
    /// starts at 40, and the job runs until 40 + its 5 ms; the job's
    /// running tasks end at 40.
    #[test]
    fn a_stage_gates_its_children_until_its_last_running_task_ends() {
        let stages = vec![stage(0, 1, 50.0, &[], &[40.0, 10.0, 25.0]), stage(1, 1, 5.0, &[0], &[])];
        let job = Job::new(&stages);
        assert_eq!(job.running_until(), 40.0);
        let greedy = job.forward(&share(4)).unwrap();
        assert_eq!(greedy.starts[1], vec![(40.0, 1)]);
        assert_eq!(greedy.span, 45.0);
    }

    #[test]
    fn a_task_larger_than_the_share_never_fits() {
        assert_eq!(forward(&[stage(1, 10, 1.0, &[], &[])], &share(5)), None);
    }

    /// The steps' ends come out as a heap of `(end, stage, count)` gives
    /// them up, ends equal within and across stages included, and also
    /// when a stage's ends do not come in order.
    #[test]
    fn ends_come_out_in_the_order_of_a_heap() {
        use crate::policy::SortKey;
        use crate::workload::rng::Rng;
        use std::cmp::Reverse;
        use std::collections::BinaryHeap;
        // The heap's entries as sort keys: (end, stage, count) under
        // `total_cmp`, stages being small whole numbers.
        let entry = |end: f64, s: usize, k: i64| Reverse(SortKey::new(end, s as f64, k));
        let out = |Reverse(key): Reverse<SortKey>| (key.primary, key.secondary as usize, key.tie_break);
        let mut rng = Rng::seeded(7);
        for round in 0..200 {
            let stages = rng.int(1, 4) as usize;
            let in_order = round % 2 == 0;
            let (mut ends, mut heap) = (Ends::new(stages), BinaryHeap::new());
            let (mut got, mut want) = (Vec::new(), Vec::new());
            let mut t = 0.0;
            for _ in 0..rng.int(1, 60) {
                let s = rng.int(0, stages as i64 - 1) as usize;
                // Few distinct values, so that ends repeat.
                let end = if in_order { t + (s + 1) as f64 } else { rng.int(0, 7) as f64 };
                let k = rng.int(1, 3);
                ends.push(s, end, k);
                heap.push(entry(end, s, k));
                if rng.chance(0.3) {
                    t += 1.0;
                    while let Some((e, s)) = ends.first().filter(|(e, _)| *e <= t) {
                        got.push((e, s, ends.pop(s)));
                    }
                    while heap.peek().is_some_and(|Reverse(key)| key.primary <= t) {
                        want.extend(heap.pop().map(out));
                    }
                }
            }
            while let Some((e, s)) = ends.first() {
                got.push((e, s, ends.pop(s)));
            }
            while let Some(top) = heap.pop() {
                want.push(out(top));
            }
            assert_eq!(got, want, "round {round}");
        }
    }
}
