//! What Carbyne's intra-job scheduler needs and YARN does not say: the
//! job's DAG. A YARN ask is a count of containers per scheduler key, with no
//! stage, no dependency and no duration, so the stages are *inferred*:
//!
//! 1. **DAG hint** (`shepherd.dag` tag, [`super::hint`]): the app states its
//!    stages, task counts, dependencies (and durations); stages that have
//!    not asked yet are planned too — what the paper's Tez AM knows (§4.2).
//! 2. **MapReduce** (`applicationType` MAPREDUCE): the MR AM asks maps at
//!    priority 20 (19 for opportunistic maps, 5 for maps re-run after a
//!    failure) and reduces at priority 10; reduces wait for every map (the
//!    shuffle barrier) even when slow-start
//!    (`mapreduce.job.reduce.slowstart.completedmaps`) made them ask early,
//!    so the reduce stage is the map stage's child. Priority 0 is the AM.
//! 3. **Tez** (`applicationType` TEZ): Tez's AM asks every task of a vertex
//!    at one priority its DAG scheduler (`DAGSchedulerNaturalOrder`, Tez
//!    0.10) derives from the vertex's distance from the DAG's roots: a band
//!    of three priorities per vertex, `low = 3 × ((distance + 1) × vertices
//!    plus vertex id)`, first attempts at `low − 1`, re-scheduled attempts
//!    (after a failure) at `low − 2`. So a stage per band, `(priority + 2)
//!    div 3` (an attempt re-run after a failure stays in its vertex's
//!    stage), ordered by priority — by distance from the roots, as Tez
//!    orders its vertices. A stage waits for the earlier stages with work
//!    left, except those first asked at the same moment (Tez starts a DAG's
//!    root vertices together): a vertex's parents are nearer the roots, so
//!    in lower bands; which lower bands are parents and which are only
//!    nearer the roots the priorities do not tell (that needs the vertex
//!    count), and YARN serves an app's lower priorities first anyway. With
//!    Tez's container reuse (on by default), a downstream vertex's tasks
//!    mostly run in containers the AM already holds, got at the upstream
//!    vertex's priority, and never ask YARN: such a vertex is not seen at
//!    all (docs/spark-tez.md).
//! 4. **Any other AM**: each scheduler key is a stage, in the order its
//!    first ask arrived; a key first asked while earlier keys still have
//!    work is taken to wait for them (how slow-start AMs — MapReduce, Tez's
//!    ShuffleVertexManager — ask for a downstream stage early), keys first
//!    asked together are siblings.
//!
//! Task durations come from the pipeline's estimate point (`tasks`: the
//! mean runtime of the app's own finished containers of that key, else its
//! other keys, else past runs of the job, else all jobs) unless the hint
//! gives them. The ApplicationMaster's container (YARN asks it at priority
//! 0, `AM_CONTAINER_PRIORITY`) is held for the whole job: it is not a
//! stage, it only reduces the share the tasks can use. (The simulator's
//! apps ask for theirs at the same priority; with `--no-cluster-model` they
//! have none, and no priority-0 key either.)

use super::amount::Amount;
use super::hint::{self, HintStage};
use crate::config::{AppsConfig, CarbyneConfig};
use crate::event::Event;
use crate::model::ask::AM_PRIORITY;
use crate::model::exit::{outcome, Outcome};
use crate::model::waiting::ascending_minus;
use crate::model::{App, AppId, Ask, ContainerId, Resources, SchedulerKey};
use crate::policy::points::Ctx;
use std::collections::BTreeMap;

/// How a job's stages were found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Inference {
    DagHint,
    MapReduce,
    Tez,
    ArrivalOrder,
}

/// One stage as the planner sees it: identical tasks.
#[derive(Debug, Clone)]
pub struct StageModel {
    /// Its scheduler keys with their outstanding containers, most urgent
    /// key first (DEFAULT containers are handed to keys in this order).
    pub keys: Vec<(SchedulerKey, i64)>,
    /// Outstanding containers (Σ of `keys`).
    pub asked: i64,
    /// Tasks the DAG hint announces that have not been asked for yet.
    pub future: i64,
    /// Remaining ms of each running task, in container order.
    pub running: Vec<f64>,
    /// The same times ascending (by `f64::total_cmp`), when the model read
    /// them in that order from the containers' start index rather than
    /// sorting them: the packings need them sorted, and sorting a large
    /// job's running tasks at each of its replans was 3.5 % of `bench-sim
    /// --policy carbyne`. `None`: the packing sorts `running`.
    pub running_ascending: Option<Vec<f64>>,
    /// One task's demand (Carbyne's view: × (1 + estimate_error)).
    pub demand: Amount,
    /// One task's runtime, ms (× (1 + estimate_error)).
    pub task_ms: f64,
    pub parents: Vec<usize>,
}

impl StageModel {
    pub fn pending(&self) -> i64 {
        self.asked + self.future
    }

    pub fn unfinished(&self) -> i64 {
        self.pending() + self.running.len() as i64
    }
}

#[derive(Debug, Clone)]
pub struct JobModel {
    pub stages: Vec<StageModel>,
    /// Held for the app's whole life (the AM container).
    pub reserved: Amount,
    pub inference: Inference,
    /// A stage with work left whose task runtime nobody knows yet (nothing
    /// has finished anywhere): no plan can be made.
    pub unknown_runtime: bool,
    /// The stage of each key seen, and of keys still to come by their
    /// priority (DAG hint, MapReduce).
    pub key_stage: BTreeMap<SchedulerKey, usize>,
    pub priority_stage: BTreeMap<i32, usize>,
}

impl JobModel {
    /// Remaining work, container-ms: every task not started × its runtime,
    /// plus what the running ones have left — the amount the leftover
    /// scheduler's SRTF orders by.
    pub fn remaining_ms(&self) -> f64 {
        self.stages.iter().map(|s| s.pending() as f64 * s.task_ms + s.running.iter().sum::<f64>()).sum()
    }

    /// Demand of the tasks the DAG hint announces that have not asked yet.
    pub fn future_demand(&self) -> Amount {
        self.stages.iter().fold(Amount::ZERO, |a, s| a.plus(&s.demand.scaled(s.future as f64)))
    }

    pub fn running_demand(&self) -> Amount {
        self.stages.iter().fold(self.reserved, |a, s| a.plus(&s.demand.scaled(s.running.len() as f64)))
    }
}

/// What Carbyne remembers of one app's keys across events (YARN's asks
/// are absolute counts and forget history).
#[derive(Debug, Clone, Default)]
pub struct KeyLog {
    /// Keys in the order of their first ask, with its time.
    pub seen: Vec<(SchedulerKey, i64)>,
    /// Containers per key that finished successfully.
    pub finished: BTreeMap<SchedulerKey, i64>,
    /// Containers that failed (non-zero exit status).
    pub failed: u64,
    /// The current attempt's AM container.
    pub am: Option<ContainerId>,
    pub hint: Option<Result<Vec<HintStage>, String>>,
}

impl KeyLog {
    fn new(app: &App) -> KeyLog {
        KeyLog { hint: hint::of_app(app), ..Default::default() }
    }

    /// A log for an app met mid-life (the plugin was built by
    /// `-refreshQueues`): its current keys, its earliest priority-0
    /// container as the AM.
    fn rebuilt(app: &App) -> KeyLog {
        let mut log = KeyLog::new(app);
        for k in app.asks.keys() {
            log.seen.push((*k, app.submit_ms));
        }
        log.am = app.containers.iter().find(|(_, c)| c.key.priority == AM_PRIORITY).map(|(id, _)| *id);
        log
    }

    /// Is `key` the AM's ask (always DEFAULT: the job cannot run without it)?
    pub fn is_am_ask(&self, key: &SchedulerKey) -> bool {
        self.am.is_none() && key.priority == AM_PRIORITY
    }
}

/// Key logs of the apps a plugin serves.
#[derive(Debug, Default)]
pub struct KeyLogs {
    /// Ordered, not hashed: the share update looks every app of the scope
    /// up at each event, and a B-tree search over integer ids costs less
    /// than SipHash.
    apps: BTreeMap<AppId, KeyLog>,
}

impl KeyLogs {
    pub fn get(&self, app: AppId) -> Option<&KeyLog> {
        self.apps.get(&app)
    }

    /// A log for each of `apps` (ascending ids), rebuilt from the app's
    /// record when the plugin never saw it arrive: one walk over the logs
    /// instead of a search per app.
    pub fn ensure_all(&mut self, apps: &[&App]) {
        let missing: Vec<AppId> = ascending_minus(apps.iter().map(|a| a.id), self.apps.keys().copied()).collect();
        for id in missing {
            // Apps new to the plugin are few: a search for each.
            if let Ok(i) = apps.binary_search_by_key(&id, |a| a.id) {
                self.apps.insert(id, KeyLog::rebuilt(apps[i]));
            }
        }
    }

    pub fn len(&self) -> usize {
        self.apps.len()
    }

    /// The app left (finished, or moved to another queue).
    pub fn forget(&mut self, app: AppId) {
        self.apps.remove(&app);
    }

    pub fn is_empty(&self) -> bool {
        self.apps.is_empty()
    }

    /// Record what `event` tells about an app's keys; returns the app it
    /// concerns, if any.
    pub fn on_event(&mut self, ctx: &Ctx, event: &Event) -> Option<AppId> {
        match event {
            Event::AppAdded { app, .. } => {
                let a = ctx.state.apps.get(app)?;
                self.apps.insert(*app, KeyLog::new(a));
                Some(*app)
            }
            // Moved in from another queue: its keys so far, from its record.
            Event::AppMoved { app, .. } => {
                let a = ctx.state.apps.get(app)?;
                self.apps.entry(*app).or_insert_with(|| KeyLog::rebuilt(a));
                Some(*app)
            }
            Event::AskUpdated { app, ask } => {
                let log = match ctx.state.apps.get(app) {
                    Some(a) => self.apps.entry(*app).or_insert_with(|| KeyLog::rebuilt(a)),
                    None => return Some(*app),
                };
                if ask.count > 0 && !log.is_am_ask(&ask.key) && !log.seen.iter().any(|(k, _)| *k == ask.key) {
                    log.seen.push((ask.key, ctx.state.now_ms));
                }
                Some(*app)
            }
            Event::AttemptAdded { app, .. } => {
                if let Some(log) = self.apps.get_mut(app) {
                    log.am = None;
                }
                Some(*app)
            }
            Event::AttemptRemoved { app, .. } => Some(*app),
            Event::ContainerRecovered { container, app, key, .. } => {
                if let Some(log) = self.apps.get_mut(app) {
                    if log.am.is_none() && key.priority == AM_PRIORITY {
                        log.am = Some(*container);
                    }
                }
                Some(*app)
            }
            _ => None,
        }
    }

    /// A container was committed: the app's first priority-0 container is its AM.
    pub fn on_allocated(&mut self, ctx: &Ctx, c: &crate::model::Container) {
        if let Some(log) = self.apps.get_mut(&c.app) {
            if log.am.is_none() && c.key.priority == AM_PRIORITY {
                log.am = Some(c.id);
            }
        } else if let Some(a) = ctx.state.apps.get(&c.app) {
            self.apps.insert(c.app, KeyLog::rebuilt(a));
        }
    }

    /// A container of a logged app finished with `exit_status`: one more
    /// task of its key ended, or failed.
    pub fn on_container_finished(&mut self, c: &crate::model::Container, exit_status: i32) {
        if let Some(log) = self.apps.get_mut(&c.app) {
            if log.am == Some(c.id) {
                // The attempt's AM ended; a new attempt asks again.
            } else {
                match outcome(exit_status) {
                    Outcome::Ended => *log.finished.entry(c.key).or_default() += 1,
                    Outcome::Failed => log.failed += 1,
                    Outcome::Released => {}
                }
            }
        }
    }
}

/// MapReduce's request priorities (`RMContainerAllocator`).
const MR_FAST_FAIL_MAP: i32 = 5;
const MR_REDUCE: i32 = 10;
const MR_OPPORTUNISTIC_MAP: i32 = 19;
const MR_MAP: i32 = 20;

/// Tez's vertex of a request priority: the band of three priorities
/// (`low − 2 ..= low`, `low` a multiple of 3) `DAGSchedulerNaturalOrder`
/// gives each vertex, as `low / 3`.
pub fn tez_vertex_band(priority: i32) -> i32 {
    (priority + 2).div_euclid(3)
}

/// Where each key's tasks go: a stage index, found by the inference rule.
struct Layout {
    /// Each stage's parents: one entry per stage found so far.
    parents: Vec<Vec<usize>>,
    hinted: Vec<Option<HintStage>>,
    of_key: BTreeMap<SchedulerKey, usize>,
    inference: Inference,
}

impl Layout {
    fn stage_of(&mut self, key: SchedulerKey, by_priority: &dyn Fn(i32) -> Option<usize>) -> usize {
        if let Some(i) = self.of_key.get(&key) {
            return *i;
        }
        let i = match by_priority(key.priority) {
            Some(i) => i,
            None => {
                // A key the rule does not place: a stage of its own, no parents.
                self.parents.push(Vec::new());
                self.hinted.push(None);
                self.parents.len() - 1
            }
        };
        self.of_key.insert(key, i);
        i
    }
}

/// The keys `app`'s running task containers (all but its AM's) run
/// under, with how many each: counted as containers start and end
/// ([`LiveContainers::per_key`](crate::model::LiveContainers::per_key)),
/// so finding them walks no container.
fn task_keys(app: &App, log: &KeyLog) -> Vec<(SchedulerKey, usize)> {
    let am_key = log.am.and_then(|id| app.containers.get(&id)).map(|c| c.key);
    app.containers
        .per_key()
        .filter_map(|(k, n)| {
            let n = if Some(k) == am_key { n - 1 } else { n };
            (n > 0).then_some((k, n))
        })
        .collect()
}

/// The stages an app's keys fall into by the rule its type allows (a DAG
/// hint, MapReduce's priorities, Tez's vertex bands, else arrival order),
/// with the keys seen before placed.
struct Inferred {
    layout: Layout,
    by_priority: Box<dyn Fn(i32) -> Option<usize>>,
    priority_stage: BTreeMap<i32, usize>,
}

fn infer(app: &App, log: &KeyLog, cfg: &CarbyneConfig, task_keys: &[(SchedulerKey, usize)]) -> Inferred {
    let hinted = match (&log.hint, cfg.dag_hint.as_str()) {
        (_, "ignore") => None,
        (Some(Ok(h)), _) => Some(h.as_slice()),
        _ => None,
    };
    let mapreduce = app.app_type.eq_ignore_ascii_case("MAPREDUCE");
    let mut layout = Layout { parents: Vec::new(), hinted: Vec::new(), of_key: BTreeMap::new(), inference: Inference::ArrivalOrder };
    let by_priority: Box<dyn Fn(i32) -> Option<usize>>;
    let mut priority_stage: BTreeMap<i32, usize> = BTreeMap::new();
    if let Some(h) = hinted {
        layout.inference = Inference::DagHint;
        for st in h {
            layout.parents.push(st.parents.clone());
            layout.hinted.push(Some(st.clone()));
        }
        let prio: Vec<i32> = h.iter().map(|st| st.priority).collect();
        for (i, p) in prio.iter().enumerate() {
            priority_stage.entry(*p).or_insert(i);
        }
        by_priority = Box::new(move |p| prio.iter().position(|q| *q == p));
    } else if mapreduce {
        layout.inference = Inference::MapReduce;
        layout.parents = vec![Vec::new(), vec![0]]; // map; reduce, after every map
        layout.hinted = vec![None, None];
        priority_stage = [(MR_FAST_FAIL_MAP, 0), (MR_OPPORTUNISTIC_MAP, 0), (MR_MAP, 0), (MR_REDUCE, 1)].into_iter().collect();
        by_priority = Box::new(|p| match p {
            MR_FAST_FAIL_MAP | MR_OPPORTUNISTIC_MAP | MR_MAP => Some(0),
            MR_REDUCE => Some(1),
            _ => None,
        });
    } else if app.app_type.eq_ignore_ascii_case("TEZ") {
        layout.inference = Inference::Tez;
        // Every vertex band the app has asked or run at, ascending: Tez's
        // order of its vertices (distance from the roots, then vertex id).
        let mut bands: Vec<i32> = log
            .seen
            .iter()
            .map(|(k, _)| k)
            .map(|k| k.priority)
            .chain(task_asks(app, log).map(|a| a.key.priority))
            .chain(task_keys.iter().map(|(k, _)| k.priority))
            .map(tez_vertex_band)
            .collect();
        bands.sort_unstable();
        bands.dedup();
        for (i, b) in bands.iter().enumerate() {
            layout.parents.push(Vec::new()); // set once the stages' work is known
            layout.hinted.push(None);
            for p in 3 * b - 2..=3 * b {
                priority_stage.insert(p, i);
            }
        }
        by_priority = Box::new(move |p| bands.binary_search(&tez_vertex_band(p)).ok());
        // Keys seen before, of vertices done, keep their stage.
        for (k, _) in &log.seen {
            layout.stage_of(*k, &*by_priority);
        }
    } else {
        by_priority = Box::new(|_| None);
        // One stage per key in first-ask order (keys first, so indices follow arrival).
        for (k, _) in &log.seen {
            layout.stage_of(*k, &|_| None);
        }
    }
    Inferred { layout, by_priority, priority_stage }
}

/// A stage's task runtime, ms: the first of `keys` the estimator knows a
/// task time for, else the app's; a key repeated in a row (running
/// containers mostly share one) is asked once.
///
/// An app whose containers are executors (`[apps] executor_app_types`:
/// Spark's run many tasks each and live as long as dynamic allocation
/// keeps them) has no task runtime to plan with: the plan needs each
/// task's duration (§3.1, §4.1), and one learned from other apps' tasks
/// says nothing of an executor's lifetime. Its runtime is unknown
/// (`opaque`), as when nothing has finished anywhere: no plan, every ask
/// DEFAULT.
fn task_runtime(ctx: &Ctx, app: &App, opaque: bool, keys: &mut dyn Iterator<Item = SchedulerKey>) -> Option<f64> {
    if opaque {
        return None;
    }
    let mut last = None;
    keys.filter(|k| last.replace(*k) != Some(*k))
        .find_map(|k| ctx.estimator.task_ms(app, Some(k)).map(|(d, _)| d))
        .or_else(|| ctx.estimator.task_ms(app, None).map(|(d, _)| d))
}

/// A hinted stage's tasks still to come: the hint's count less those
/// finished, running (`running`) and asked (`asked`).
fn future_tasks(hint: Option<&HintStage>, log: &KeyLog, running: i64, asked: i64) -> i64 {
    let Some(h) = hint else { return 0 };
    let done: i64 = log.finished.iter().filter(|(k, _)| k.priority == h.priority).map(|(_, c)| *c).sum();
    (h.tasks - done - running - asked).max(0)
}

/// The hint's task runtime, read only with `dag_hint = "full"`.
fn hinted_ms(hint: Option<&HintStage>, cfg: &CarbyneConfig) -> Option<f64> {
    hint.and_then(|h| h.task_ms).filter(|_| cfg.dag_hint == "full")
}

/// What a replan reads of an app that asks for nothing: how its stages
/// were inferred, how many there are, and whether one with work has no
/// known task runtime. No plan can be made for it (Pseudocode 1 has no
/// task of it to schedule), so the replan stops there; these are what
/// [`model`] would give, found from the running containers' counts per
/// key rather than by walking every container for its age.
pub struct Outline {
    pub inference: Inference,
    pub stages: usize,
    pub unknown_runtime: bool,
}

/// The app's outstanding asks for task containers (its AM's ask aside).
fn task_asks<'a>(app: &'a App, log: &'a KeyLog) -> impl Iterator<Item = &'a Ask> + 'a {
    app.asks.values().filter(|a| a.count > 0 && !log.is_am_ask(&a.key))
}

/// Whether `app` asks for a task container: a job model of an app that
/// does not has no plan.
pub fn asks_for_tasks(app: &App, log: &KeyLog) -> bool {
    task_asks(app, log).next().is_some()
}

/// The [`Outline`] of an app that asks for nothing.
pub fn outline(ctx: &Ctx, app: &App, log: &KeyLog, cfg: &CarbyneConfig, apps: &AppsConfig) -> Outline {
    debug_assert!(!asks_for_tasks(app, log), "an app that asks is modelled in full");
    let keys = task_keys(app, log);
    let Inferred { mut layout, by_priority, .. } = infer(app, log, cfg, &keys);
    // Per stage: its running tasks, and their keys.
    let mut running: Vec<(i64, Vec<SchedulerKey>)> = Vec::new();
    for (k, n) in &keys {
        let i = layout.stage_of(*k, &*by_priority);
        grow(&mut running, layout.parents.len());
        running[i].0 += *n as i64;
        running[i].1.push(*k);
    }
    let n = layout.parents.len();
    grow(&mut running, n);
    let opaque = apps.runs_executors(&app.app_type);
    let unknown_runtime = (0..n).any(|i| {
        let hint = layout.hinted[i].as_ref();
        let (count, keys) = &running[i];
        let has_work = future_tasks(hint, log, *count, 0) > 0 || *count > 0;
        has_work && hinted_ms(hint, cfg).is_none() && task_runtime(ctx, app, opaque, &mut keys.iter().copied()).is_none()
    });
    Outline { inference: layout.inference, stages: n, unknown_runtime }
}

/// The job model of `app` now: Pseudocode 1's J_k as far as YARN lets us see it.
pub fn model(ctx: &Ctx, app: &App, log: &KeyLog, cfg: &CarbyneConfig, apps: &AppsConfig) -> JobModel {
    let s = ctx.state;
    let now = s.now_ms;
    let scale = 1.0 + cfg.estimate_error;
    let running_keys = task_keys(app, log);
    let Inferred { mut layout, by_priority, priority_stage } = infer(app, log, cfg, &running_keys);

    // Outstanding asks and running containers, per stage.
    let mut asked_keys: Vec<Vec<(SchedulerKey, i64)>> = Vec::new();
    // Running containers per stage: their ages (ms; turned into their
    // remaining times once the stage's runtime is known), their keys with
    // repeats in a row left out (what `task_runtime` asks the estimator about),
    // and the first one's size.
    let mut running: Vec<Running> = Vec::new();
    for ask in task_asks(app, log) {
        let i = layout.stage_of(ask.key, &*by_priority);
        grow(&mut asked_keys, layout.parents.len());
        asked_keys[i].push((ask.key, ask.count as i64));
    }
    let mut reserved = Amount::ZERO;
    let am_key = log.am.and_then(|id| app.containers.get(&id)).map(|c| c.key);
    // An app's running containers mostly share a few keys: remember the
    // last key's stage rather than look every container's up.
    let mut last: Option<(SchedulerKey, usize)> = None;
    // The walk reads each container's key and start only; the sizes (the
    // AM's, each stage's first) are looked up by id.
    for (id, key, started_ms) in app.containers.starts() {
        if log.am == Some(id) {
            reserved = reserved.plus(&Amount::of(&app.containers.get(&id).map_or(Resources::ZERO, |c| c.resources)));
            continue;
        }
        let i = match last {
            Some((k, i)) if k == key => i,
            _ => {
                let i = layout.stage_of(key, &*by_priority);
                last = Some((key, i));
                i
            }
        };
        if i >= running.len() {
            grow(&mut running, layout.parents.len());
        }
        let stage = &mut running[i];
        if stage.ages.capacity() == 0 {
            // Room for every container at once: a large job's stage runs
            // hundreds, and growing by doubling copied them ~9 times.
            stage.ages.reserve(app.containers.len());
        }
        stage.add(age_ms(now, started_ms), key);
        if stage.first.is_none() {
            stage.first = app.containers.get(&id).map(|c| c.resources);
        }
    }
    let n = layout.parents.len();
    grow(&mut asked_keys, n);
    grow(&mut running, n);

    let opaque = apps.runs_executors(&app.app_type);
    let mut unknown_runtime = false;
    let mut stages = Vec::with_capacity(n);
    for i in 0..n {
        let mut keys = std::mem::take(&mut asked_keys[i]);
        keys.sort_by_key(|(k, _)| *k);
        let asked: i64 = keys.iter().map(|(_, c)| *c).sum();
        let hint = layout.hinted[i].as_ref();
        let future = future_tasks(hint, log, running[i].ages.len() as i64, asked);
        let mut own_keys = keys.iter().map(|(k, _)| *k).chain(running[i].keys.iter().copied());
        let has_work = asked + future > 0 || !running[i].ages.is_empty();
        let task_ms = match hinted_ms(hint, cfg).or_else(|| task_runtime(ctx, app, opaque, &mut own_keys)) {
            Some(d) => d,
            None => {
                unknown_runtime |= has_work;
                0.0
            }
        };
        let demand = keys
            .first()
            .and_then(|(k, _)| app.asks.get(k).map(|a| a.capability))
            .or_else(|| running[i].first)
            .or_else(|| hint.and_then(|h| h.demand))
            .unwrap_or_else(|| {
                // Only a stage with tasks still to come (`future`, from a
                // DAG hint without sizes) packs with this size. A stage
                // with no tasks at all (a MapReduce job's reduces before
                // their first ask) enters a plan only multiplied by its
                // task counts, all zero, and not in the share it packs
                // into (`unfinished`): its size is not looked for.
                if future > 0 {
                    largest_task(app, log)
                } else {
                    Resources::ZERO
                }
            });
        let task_ms = task_ms * scale;
        let running_ascending = ascending_remaining(app, &running[i], am_key, task_ms, now);
        let mut remaining = std::mem::take(&mut running[i].ages);
        for age in remaining.iter_mut() {
            *age = time_left(task_ms, *age);
        }
        stages.push(StageModel {
            keys,
            asked,
            future,
            running: remaining,
            running_ascending,
            demand: Amount::of(&demand).scaled(scale),
            task_ms,
            parents: layout.parents[i].clone(),
        });
    }
    // Each stage's first ask, ms (None: none of its keys was seen asking).
    let first: BTreeMap<SchedulerKey, i64> = log.seen.iter().map(|(k, t)| (*k, *t)).collect();
    let when: Vec<Option<i64>> =
        (0..n).map(|i| layout.of_key.iter().filter(|(_, s)| **s == i).filter_map(|(k, _)| first.get(k)).min().copied()).collect();
    if layout.inference == Inference::Tez {
        // A vertex waits for the vertices nearer the roots (lower bands,
        // lower stage indices) that still have work, unless both first
        // asked at once: Tez starts a DAG's root vertices together, and a
        // child asks only once its parents have run.
        for b in 0..n {
            let together = |a: usize| matches!((when[a], when[b]), (Some(ta), Some(tb)) if ta == tb);
            stages[b].parents = (0..b).filter(|a| stages[*a].unfinished() > 0 && !together(*a)).collect();
        }
    }
    if layout.inference == Inference::ArrivalOrder {
        // A key first asked while earlier keys still had work waits for them.
        for b in 0..n {
            let Some(tb) = when[b] else { continue };
            let parents: Vec<usize> =
                (0..n).filter(|a| *a != b && when[*a].is_some_and(|ta| ta < tb) && stages[*a].unfinished() > 0).collect();
            stages[b].parents = parents;
        }
    }
    JobModel { stages, reserved, inference: layout.inference, unknown_runtime, key_stage: layout.of_key, priority_stage }
}

/// `model(..).remaining_ms()` to the bit, for the leftover's SRTF order
/// (§4.2), without building the model: one walk over the running
/// containers that adds each one's time left to its stage's sum, where the
/// model collects every age into a vector per stage and sums them after.
/// The leftover asks this of a large job still asking (thousands of
/// running containers) at most once per pass.
///
/// The walk needs each stage's task runtime before it starts. The model
/// takes the first key the estimator knows among the stage's asks, then
/// among its running keys in container order, so the walk's order decides
/// when two running keys of one stage are timed differently. It also
/// decides the stages' order, and so the order of the sum over them, when
/// two running keys each open a stage of their own. Both cases are left to
/// the model.
pub fn remaining_ms(ctx: &Ctx, app: &App, log: &KeyLog, cfg: &CarbyneConfig, apps: &AppsConfig) -> f64 {
    let now = ctx.state.now_ms;
    let scale = 1.0 + cfg.estimate_error;
    let running_keys = task_keys(app, log);
    let Inferred { mut layout, by_priority, .. } = infer(app, log, cfg, &running_keys);
    let mut asked: Vec<StageKeys> = Vec::new();
    for ask in task_asks(app, log) {
        let i = layout.stage_of(ask.key, &*by_priority);
        grow(&mut asked, layout.parents.len());
        asked[i].asked += ask.count as i64;
        asked[i].asked_keys.push(ask.key);
    }
    let placed = layout.parents.len();
    let mut key_stage: Vec<(SchedulerKey, usize)> = Vec::with_capacity(running_keys.len());
    for (k, n) in &running_keys {
        let i = layout.stage_of(*k, &*by_priority);
        grow(&mut asked, layout.parents.len());
        asked[i].running += *n as i64;
        asked[i].running_keys.push(*k);
        key_stage.push((*k, i));
    }
    if layout.parents.len() > placed + 1 {
        return model(ctx, app, log, cfg, apps).remaining_ms();
    }
    let n = layout.parents.len();
    grow(&mut asked, n);
    let opaque = apps.runs_executors(&app.app_type);
    let mut task_ms = vec![0.0; n];
    for (i, StageKeys { asked_keys, running_keys: running, .. }) in asked.iter_mut().enumerate() {
        asked_keys.sort();
        let hinted = hinted_ms(layout.hinted[i].as_ref(), cfg);
        let knows = |k: &SchedulerKey| ctx.estimator.task_ms(app, Some(*k)).map(|(d, _)| d);
        if hinted.is_none() && !opaque && running.len() > 1 && !asked_keys.iter().any(|k| knows(k).is_some()) {
            // The first running key the estimator knows decides; which is
            // first only the walk tells, so two that disagree go to the model.
            let mut known = running.iter().filter_map(knows);
            if let Some(first) = known.next() {
                if known.any(|d| d.to_bits() != first.to_bits()) {
                    return model(ctx, app, log, cfg, apps).remaining_ms();
                }
            }
        }
        task_ms[i] =
            hinted.or_else(|| task_runtime(ctx, app, opaque, &mut asked_keys.iter().chain(running.iter()).copied())).unwrap_or(0.0) * scale;
    }
    // The model's sums start from -0.0 (`Iterator::sum`), these from 0.0:
    // every term is ≥ +0.0, so the results are the same bits.
    let mut running_ms = vec![0.0; n];
    if task_ms.iter().any(|t| *t > 0.0) && !sum_whole_ms(app, log, now, &task_ms, &key_stage, &mut running_ms) {
        // The stage of the last key met, its runtime and its sum so far:
        // consecutive containers mostly share a key, and a sum kept in a
        // local rather than in `running_ms` does not wait on a store each
        // container. The same additions in the same order.
        let mut last: Option<(SchedulerKey, usize)> = None;
        let (mut t, mut sum) = (0.0, 0.0);
        for (id, key, started_ms) in app.containers.starts() {
            if log.am == Some(id) {
                continue;
            }
            if last.is_none_or(|(k, _)| k != key) {
                if let Some((_, j)) = last {
                    running_ms[j] = sum;
                }
                let i = key_stage.iter().find(|(k, _)| *k == key).map(|(_, i)| *i);
                debug_assert!(i.is_some(), "every running key is counted per key");
                let i = i.unwrap_or(0);
                last = Some((key, i));
                (t, sum) = (task_ms[i], running_ms[i]);
            }
            sum += time_left(t, age_ms(now, started_ms));
        }
        if let Some((_, j)) = last {
            running_ms[j] = sum;
        }
    }
    (0..n)
        .map(|i| {
            let StageKeys { asked, running, .. } = &asked[i];
            let future = future_tasks(layout.hinted[i].as_ref(), log, *running, *asked);
            (asked + future) as f64 * task_ms[i] + running_ms[i]
        })
        .sum()
}

/// [`remaining_ms`]'s walk without the walk, when every stage's task time
/// t is a whole number of ms: each running container's time left, max(0,
/// t − age), is then a whole number, and so is every partial sum of the
/// walk's, which stays below 2⁵³ (the containers times the largest time
/// does): the float walk is exact, and the integer sum has its bits in
/// any order. Per key, from its start times sorted
/// ([`LiveContainers::started_after_each`](crate::model::LiveContainers::started_after_each)):
/// those started after now have t left each, those started in (now − t,
/// now] have t − now + start, the others none. The AM, which the walk
/// skips, is taken back out. The walk visited every container of a large
/// job at every pass that ordered it (a tenth of `bench-sim --policy
/// carbyne`'s time). Returns false, leaving `running_ms` alone, when a
/// time is not whole or the bound does not hold.
fn sum_whole_ms(app: &App, log: &KeyLog, now: i64, task_ms: &[f64], key_stage: &[(SchedulerKey, usize)], running_ms: &mut [f64]) -> bool {
    const EXACT: f64 = (1u64 << 53) as f64;
    let largest = task_ms.iter().fold(0.0, |m: f64, t| m.max(t.abs()));
    if task_ms.iter().any(|t| t.fract() != 0.0) || largest * (app.containers.len() as f64 + 1.0) >= EXACT {
        return false;
    }
    let left = |t: i64, started_ms: i64| (t - (now - started_ms).max(0)).max(0) as i128;
    let am = log.am.and_then(|id| app.containers.get(&id));
    let mut sums = vec![0i128; task_ms.len()];
    for (key, _) in app.containers.per_key() {
        // The walk's stage for a key it has none for is the first.
        let i = key_stage.iter().find(|(k, _)| *k == key).map_or(0, |(_, i)| *i);
        let t = task_ms[i] as i64;
        if t <= 0 {
            continue;
        }
        let [(started, started_sum), (ahead, ahead_sum)] = app.containers.started_after_each(key, [now - t, now]);
        let between = (started - ahead) as i128;
        sums[i] += between * (t - now) as i128 + (started_sum - ahead_sum) + ahead as i128 * t as i128;
        if let Some(c) = am.filter(|c| c.key == key) {
            sums[i] -= left(t, c.started_ms);
        }
    }
    for (r, s) in running_ms.iter_mut().zip(sums) {
        *r = s as f64;
    }
    true
}

/// One stage's tasks as [`remaining_ms`] counts them before its walk.
#[derive(Default)]
struct StageKeys {
    /// Containers asked, and the keys asking.
    asked: i64,
    asked_keys: Vec<SchedulerKey>,
    /// Containers running, and their keys (in no particular order).
    running: i64,
    running_keys: Vec<SchedulerKey>,
}

fn grow<T: Default>(v: &mut Vec<T>, n: usize) {
    while v.len() < n {
        v.push(T::default());
    }
}

/// A stage's running containers while its model is built.
#[derive(Default)]
struct Running {
    /// Each one's age, ms.
    ages: Vec<f64>,
    /// Their keys in container order, a key repeated in a row kept once
    /// (the estimator is asked once per run of a key either way).
    keys: Vec<SchedulerKey>,
    /// The first one's size: the stage's demand when nothing is asked.
    first: Option<Resources>,
}

/// A running container's age at `now`, ms (0 for one that starts later).
fn age_ms(now: i64, started_ms: i64) -> f64 {
    (now - started_ms).max(0) as f64
}

/// What a task of `task_ms` has left at `age` ms (0 once overdue). The one
/// formula of the model, the walk without it and the ordered read, so
/// their times are the same bits.
fn time_left(task_ms: f64, age: f64) -> f64 {
    (task_ms - age).max(0.0)
}

/// A stage's remaining times ([`time_left`], as [`model`] computes them) in ascending order, read from the app's start index:
/// the later a task started, the younger it is and the more it has left.
/// Only for a stage whose running tasks share one key that the AM's
/// container does not run under (the index holds every live container of
/// a key), and a task time above 0 (then no remaining time is −0 or NaN,
/// and the numeric order is `total_cmp`'s); `None` otherwise.
fn ascending_remaining(app: &App, running: &Running, am_key: Option<SchedulerKey>, task_ms: f64, now: i64) -> Option<Vec<f64>> {
    let &[key] = running.keys.as_slice() else { return None };
    if task_ms.is_nan() || task_ms <= 0.0 || am_key == Some(key) {
        return None;
    }
    let mut times = Vec::with_capacity(running.ages.len());
    times.extend(app.containers.starts_ascending(key).map(|at| time_left(task_ms, age_ms(now, at))));
    debug_assert_eq!(times.len(), running.ages.len(), "every container of the key is the stage's");
    (times.len() == running.ages.len()).then_some(times)
}

impl Running {
    fn add(&mut self, age: f64, key: SchedulerKey) {
        self.ages.push(age);
        if self.keys.last() != Some(&key) {
            self.keys.push(key);
        }
    }
}

/// The largest size among the app's task asks and running task containers
/// (not its AM's): the demand of a hinted stage that has neither asked nor
/// run yet and whose hint gives no size. Found only for such a stage: other
/// models do not visit the containers' sizes.
fn largest_task(app: &App, log: &KeyLog) -> Resources {
    let asked = task_asks(app, log).map(|a| a.capability);
    let running = app.containers.iter().filter(|(id, _)| log.am != Some(**id)).map(|(_, c)| c.resources);
    asked.chain(running).fold(Resources::ZERO, |m, r| m.max_each(&r))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::ask::Ask;
    use crate::model::{ClusterState, LiveContainer};
    use crate::policy::estimate::NoEstimate;
    use crate::policy::Scope;
    use std::sync::Arc;

    fn key(priority: i32) -> SchedulerKey {
        SchedulerKey { priority, allocation_request_id: 0 }
    }

    /// The model of `app` at 5 s, with no estimator (runtimes from the
    /// hint only) and Carbyne's defaults.
    fn model_of(app: &App) -> JobModel {
        let state = ClusterState { now_ms: 5_000, ..Default::default() };
        let ctx = Ctx { state: &state, scope: Scope::Cluster, estimator: &NoEstimate };
        model(&ctx, app, &KeyLog::new(app), &CarbyneConfig::default(), &AppsConfig::default())
    }

    /// A stage the DAG hint announces without a size, none of whose tasks
    /// has asked or run, packs with the job's largest task (here the
    /// running 3 GB / 2-vcore one, larger than the 1 GB / 1-vcore ask):
    /// its tasks to come count in the plan. A stage with no tasks at all —
    /// a MapReduce job's reduces before their first ask — needs no size.
    #[test]
    fn a_stage_still_to_come_takes_the_largest_task_size() {
        let mut app = crate::policy::carbyne::tests::bare_app(1, "TEZ");
        app.tags = vec!["shepherd.dag=1:2:10000:-;2:3:10000:-;3:4:10000:0+1".into()];
        app.asks.insert(key(1), Ask::anywhere(key(1), Resources::new(1024, 1), 1));
        app.containers =
            Arc::new([(7, LiveContainer { key: key(2), resources: Resources::new(3072, 2), started_ms: 0 })].into_iter().collect());
        let m = model_of(&app);
        assert_eq!(m.inference, Inference::DagHint);
        assert_eq!((m.stages[2].future, m.stages[2].asked, m.stages[2].running.len()), (4, 0, 0));
        assert_eq!(m.stages[2].demand, Amount::of(&Resources::new(3072, 2)));
        assert_eq!(m.stages[1].demand, Amount::of(&Resources::new(3072, 2)), "its running task's size");
        assert_eq!(m.stages[0].demand, Amount::of(&Resources::new(1024, 1)), "its ask's size");
        assert_eq!(m.stages[1].running, vec![5_000.0], "10 s task started at 0, now 5 s");

        let mut mr = crate::policy::carbyne::tests::bare_app(2, "MAPREDUCE");
        mr.asks.insert(key(MR_MAP), Ask::anywhere(key(MR_MAP), Resources::new(1024, 1), 4));
        let m = model_of(&mr);
        assert_eq!((m.stages.len(), m.stages[1].unfinished()), (2, 0), "the reduces have no tasks yet");
        assert_eq!(m.stages[1].demand, Amount::ZERO);
    }

    /// An estimator that knows the task time of the keys it lists (by
    /// priority, ms), and of the app's tasks as a whole if `app_ms`.
    struct Knows {
        keys: Vec<(i32, f64)>,
        app_ms: Option<f64>,
    }

    impl Knows {
        /// The keys at `priorities`, each task 1 s × its priority; nothing
        /// of the app as a whole.
        fn keys(priorities: &[i32]) -> Knows {
            Knows { keys: priorities.iter().map(|p| (*p, 1_000.0 * *p as f64)).collect(), app_ms: None }
        }
    }

    impl crate::policy::points::Plugin for Knows {
        fn name(&self) -> &'static str {
            "knows"
        }
    }

    impl crate::policy::points::Estimator for Knows {
        fn estimate(&self, _: &ClusterState, _: &App) -> Option<crate::policy::points::Estimate> {
            None
        }
        fn task_ms(&self, _: &App, key: Option<SchedulerKey>) -> Option<(f64, f64)> {
            match key {
                Some(k) => self.keys.iter().find(|(p, _)| *p == k.priority).map(|(_, ms)| (*ms, 1.0)),
                None => self.app_ms.map(|ms| (ms, 1.0)),
            }
        }
    }

    /// For an app that asks for no task, the outline says what the full
    /// model says: how the stages were inferred, how many there are, and
    /// whether a stage with work has no known runtime. Each inference rule
    /// (MapReduce, Tez, a DAG hint with tasks still to come, arrival
    /// order, an executor app), with the AM running, keys shared by several
    /// containers and a key never seen asking, under estimators that know
    /// no key, some keys or all of them, and each `dag_hint` mode.
    #[test]
    fn an_outline_is_what_the_model_says_of_an_app_that_asks_for_nothing() {
        let r = Resources::new(512, 1);
        let live = |p: i32| LiveContainer { key: key(p), resources: r, started_ms: 1_000 };
        let app = |id: u32, kind: &str, running: &[i32], tags: &[&str]| {
            let mut a = crate::policy::carbyne::tests::bare_app(id, kind);
            a.tags = tags.iter().map(|t| t.to_string()).collect();
            let mut containers = vec![(1, live(AM_PRIORITY))];
            containers.extend(running.iter().enumerate().map(|(i, p)| (2 + i as u64, live(*p))));
            a.containers = Arc::new(containers.into_iter().collect());
            // Asked before, not now.
            a.asks.insert(key(20), Ask::anywhere(key(20), r, 0));
            a
        };
        let hint = "shepherd.dag=1:2:10000:-;2:3:10000:-;3:4:10000:0+1";
        let apps = [
            (app(1, "MAPREDUCE", &[20, 20, 5, 10], &[]), vec![(20, 0), (10, 2_000)]),
            (app(2, "MAPREDUCE", &[], &[]), vec![(20, 0)]),
            (app(3, "TEZ", &[8, 8, 20, 32, 7], &[]), vec![(8, 0), (20, 1_000)]),
            (app(4, "TEZ", &[2, 2], &[hint]), vec![(1, 0), (2, 500)]),
            (app(5, "OTHER", &[3, 3, 9, 4], &[]), vec![(3, 0), (9, 700)]),
            (app(6, "SPARK", &[3, 3], &[]), vec![(3, 0)]),
        ];
        let estimators: Vec<Box<dyn crate::policy::points::Estimator>> =
            vec![Box::new(NoEstimate), Box::new(Knows::keys(&[20, 8, 3])), Box::new(Knows::keys(&[1, 2, 3, 4, 5, 7, 8, 9, 10, 20, 32]))];
        let apps_cfg = AppsConfig { executor_app_types: vec!["SPARK".into()] };
        let mut checked = [0, 0];
        for dag_hint in ["full", "structure", "ignore"] {
            let cfg = CarbyneConfig { dag_hint: dag_hint.into(), ..CarbyneConfig::default() };
            for (e, est) in estimators.iter().enumerate() {
                let state = ClusterState { now_ms: 5_000, ..Default::default() };
                let ctx = Ctx { state: &state, scope: Scope::Cluster, estimator: est.as_ref() };
                for (a, seen) in &apps {
                    let mut log = KeyLog::new(a);
                    log.seen = seen.iter().map(|(p, t)| (key(*p), *t)).collect();
                    log.am = Some(1);
                    assert!(!asks_for_tasks(a, &log));
                    let m = model(&ctx, a, &log, &cfg, &apps_cfg);
                    let o = outline(&ctx, a, &log, &cfg, &apps_cfg);
                    let what = format!("app {} ({}), estimator {e}, dag_hint {dag_hint}", a.id, a.app_type);
                    assert_eq!(o.inference, m.inference, "{what}");
                    assert_eq!(o.stages, m.stages.len(), "{what}");
                    assert_eq!(o.unknown_runtime, m.unknown_runtime, "{what}");
                    checked[m.unknown_runtime as usize] += 1;
                }
            }
        }
        assert!(checked[0] > 0 && checked[1] > 0, "runtimes both known and unknown: {checked:?}");
    }

    /// The leftover's remaining work, summed in one walk, is the full
    /// model's to the bit: each inference rule, asks and running containers
    /// of several keys per stage (some past their runtime, some not), keys
    /// the rule does not place (one, and two: the model's case), running
    /// keys of one stage with different runtimes (the model's case too), an
    /// AM known and not, an executor app, under estimators that know no
    /// key, some, all, and the app as a whole, each `dag_hint` mode and
    /// two estimate errors.
    #[test]
    fn remaining_work_without_a_model_is_the_models_to_the_bit() {
        let r = Resources::new(512, 1);
        let app = |id: u32, kind: &str, running: &[(i32, i64)], asks: &[(i32, i32)], tags: &[&str]| {
            let mut a = crate::policy::carbyne::tests::bare_app(id, kind);
            a.tags = tags.iter().map(|t| t.to_string()).collect();
            let mut containers = vec![(1, LiveContainer { key: key(AM_PRIORITY), resources: r, started_ms: 0 })];
            containers.extend(
                running
                    .iter()
                    .enumerate()
                    .map(|(i, (p, at))| (2 + i as u64, LiveContainer { key: key(*p), resources: r, started_ms: *at })),
            );
            // Launched last id first: the counts per key list the keys in
            // another order than the walk meets them.
            a.containers = Arc::new(containers.into_iter().rev().collect());
            for (p, n) in asks {
                a.asks.insert(key(*p), Ask::anywhere(key(*p), r, *n));
            }
            a
        };
        let hint = "shepherd.dag=1:2:10000:-;2:3:10000:-;3:4:10000:0+1";
        let mr_running = [(20, 1_000), (20, 4_000), (5, 3_000), (10, 4_500), (20, 0)];
        // (app, keys seen with first-ask ms, AM known)
        let apps = [
            (app(1, "MAPREDUCE", &mr_running, &[(20, 3), (10, 2)], &[]), vec![(20, 0), (5, 2_000), (10, 3_000)], true),
            (app(2, "MAPREDUCE", &mr_running, &[(20, 3)], &[]), vec![(20, 0)], false),
            // Keys 7 and 8 each open a stage of their own, in the walk's
            // order; under the last estimator the sum over the stages depends on it.
            (app(3, "MAPREDUCE", &[(20, 1_000), (7, 2_000), (8, 2_500)], &[], &[]), vec![(20, 0)], true),
            (app(4, "MAPREDUCE", &[(7, 1_000), (20, 2_000), (7, 4_000)], &[(20, 1)], &[]), vec![(20, 0)], true),
            // Three map keys the estimator may time differently: the first
            // the walk meets (19) decides.
            (app(5, "MAPREDUCE", &[(19, 0), (5, 1_000), (20, 2_000)], &[], &[]), vec![(20, 0)], true),
            (
                app(6, "TEZ", &[(8, 1_000), (8, 2_000), (20, 1_000), (7, 3_000), (32, 4_900)], &[(20, 2), (32, 1)], &[]),
                vec![(8, 0), (20, 1_000)],
                true,
            ),
            (app(7, "TEZ", &[(2, 500), (2, 4_000)], &[(1, 2)], &[hint]), vec![(1, 0), (2, 400)], true),
            (app(8, "OTHER", &[(3, 0), (9, 100), (3, 4_000), (4, 2_000)], &[(9, 1), (4, 2)], &[]), vec![(3, 0), (9, 50)], true),
            (app(9, "SPARK", &[(3, 0), (3, 10)], &[(3, 2)], &[]), vec![(3, 0)], true),
            // Four maps with 2^52 + 1..4 ms left under the last estimator:
            // the float walk rounds twice past 2^53, once at the end.
            (app(10, "MAPREDUCE", &[(20, 0), (20, 1), (20, 2), (20, 3)], &[], &[]), vec![(20, 0)], true),
            // Containers that start after now (age 0), at now, 1 ms before
            // their time is up (key 20: 20 s under the key estimators), and
            // long before; an AM under a task's key.
            (
                app(11, "MAPREDUCE", &[(20, 5_000), (20, 7_000), (20, 4_999), (20, -14_999), (20, -90_000), (5, 6_000)], &[(20, 1)], &[]),
                vec![(20, 0)],
                true,
            ),
            (app(12, "OTHER", &[(0, 4_000), (0, 1_000)], &[(0, 1)], &[]), vec![(0, 0)], true),
        ];
        let estimators: Vec<Box<dyn crate::policy::points::Estimator>> = vec![
            Box::new(NoEstimate),
            Box::new(Knows::keys(&[20, 8, 3])),
            Box::new(Knows::keys(&[1, 2, 3, 4, 5, 7, 8, 9, 10, 19, 20, 32])),
            Box::new(Knows { app_ms: Some(2_500.0), ..Knows::keys(&[5, 7]) }),
            // 2^53 ms left of app 3's map, 1 and 2 ms of its keys 7 and 8:
            // 2^53 + 1 + 2 is not 2^53 + 2 + 1 in floating point.
            Box::new(Knows { keys: vec![(20, 9_007_199_254_744_992.0), (7, 3_001.0), (8, 2_502.0)], app_ms: None }),
            // Times that are not whole ms (the walk's sum is then in floats);
            // whole ones as large as the integer sum takes (for the apps of
            // up to five containers: six times the largest stays below 2^53); and
            // whole ones whose sum in floats is not exact (app 10).
            Box::new(Knows { keys: vec![(20, 2_500.3), (5, 1_700.7), (10, 3_333.3), (2, 4_100.1), (3, 1_500.5)], app_ms: Some(999.9) }),
            Box::new(Knows { keys: vec![(20, 1_501_199_875_790_165.0), (5, 7.0), (8, 1_501_199_875_790_164.0)], app_ms: Some(3.0) }),
            Box::new(Knows { keys: vec![(20, 4_503_599_627_375_497.0)], app_ms: None }),
        ];
        let apps_cfg = AppsConfig { executor_app_types: vec!["SPARK".into()] };
        let mut some_work = 0;
        let (mut read_in_order, mut sorted_by_packing) = (0, 0);
        for dag_hint in ["full", "structure", "ignore"] {
            for estimate_error in [0.0, 0.3] {
                let cfg = CarbyneConfig { dag_hint: dag_hint.into(), estimate_error, ..CarbyneConfig::default() };
                for (e, est) in estimators.iter().enumerate() {
                    let state = ClusterState { now_ms: 5_000, ..Default::default() };
                    let ctx = Ctx { state: &state, scope: Scope::Cluster, estimator: est.as_ref() };
                    for (a, seen, am_known) in &apps {
                        let mut log = KeyLog::new(a);
                        log.seen = seen.iter().map(|(p, t)| (key(*p), *t)).collect();
                        log.am = am_known.then_some(1);
                        let m = model(&ctx, a, &log, &cfg, &apps_cfg);
                        let want = m.remaining_ms();
                        let got = remaining_ms(&ctx, a, &log, &cfg, &apps_cfg);
                        let what = format!("app {} ({}), estimator {e}, dag_hint {dag_hint}, error {estimate_error}", a.id, a.app_type);
                        // The running times the model read in order from the
                        // start index are its running times sorted.
                        for (i, st) in m.stages.iter().enumerate() {
                            let mut sorted = st.running.clone();
                            sorted.sort_by(f64::total_cmp);
                            let bits = |v: &[f64]| v.iter().map(|t| t.to_bits()).collect::<Vec<_>>();
                            match &st.running_ascending {
                                Some(read) => {
                                    assert_eq!(bits(read), bits(&sorted), "{what}: stage {i}");
                                    read_in_order += 1;
                                }
                                None => sorted_by_packing += usize::from(!st.running.is_empty()),
                            }
                        }
                        assert_eq!(got.to_bits(), want.to_bits(), "{what}: {got} against the model's {want}");
                        some_work += (want > 0.0) as usize;
                    }
                }
            }
        }
        assert!(some_work > 100, "most cases have work left: {some_work}");
        assert!(read_in_order > 100 && sorted_by_packing > 50, "read in order {read_in_order}, sorted {sorted_by_packing}");
    }

    /// The model of `app` at 5 s with a key log that saw `seen` (key
    /// priority, first-ask ms).
    fn model_seen(app: &App, seen: &[(i32, i64)]) -> JobModel {
        let state = ClusterState { now_ms: 5_000, ..Default::default() };
        let ctx = Ctx { state: &state, scope: Scope::Cluster, estimator: &NoEstimate };
        let mut log = KeyLog::new(app);
        log.seen = seen.iter().map(|(p, t)| (key(*p), *t)).collect();
        model(&ctx, app, &log, &CarbyneConfig::default(), &AppsConfig::default())
    }

    fn priorities(m: &JobModel) -> Vec<Vec<i32>> {
        (0..m.stages.len()).map(|i| m.key_stage.iter().filter(|(_, s)| **s == i).map(|(k, _)| k.priority).collect()).collect()
    }

    /// Tez's OrderedWordCount (Tokenizer → Summation → Sorter, 3 vertices)
    /// as its AM asks with container reuse off: DAGSchedulerNaturalOrder
    /// puts vertex v at distance d in the band low = 3((d+1)·3 + v), first
    /// attempts at low − 1 (8, 20, 32), a re-run attempt at low − 2 (7).
    /// One stage per vertex, in Tez's order, the re-run in its vertex's
    /// stage; each waits for the vertices before it that have work left.
    /// The same asks from an unknown AM (arrival order) split the re-run
    /// into a stage of its own.
    #[test]
    fn a_tez_dag_has_a_stage_per_vertex_in_priority_order() {
        let mut app = crate::policy::carbyne::tests::bare_app(3, "TEZ");
        let r = Resources::new(512, 1);
        // Tokenizer: a task re-run at 7 and one still asked at 8 (its other
        // task runs); Summation asked at 20, Sorter at 32 (asked early).
        app.asks.insert(key(7), Ask::anywhere(key(7), r, 1));
        app.asks.insert(key(20), Ask::anywhere(key(20), r, 2));
        app.asks.insert(key(32), Ask::anywhere(key(32), r, 1));
        app.containers = Arc::new([(9, LiveContainer { key: key(8), resources: r, started_ms: 1_000 })].into_iter().collect());
        let seen = [(8, 1_000), (20, 3_000), (7, 3_500), (32, 4_000)];
        let m = model_seen(&app, &seen);
        assert_eq!(m.inference, Inference::Tez);
        assert_eq!(priorities(&m), vec![vec![7, 8], vec![20], vec![32]]);
        assert_eq!((m.stages[0].asked, m.stages[0].running.len(), m.stages[1].asked, m.stages[2].asked), (1, 1, 2, 1));
        assert_eq!(m.stages.iter().map(|s| s.parents.clone()).collect::<Vec<_>>(), vec![vec![], vec![0], vec![0, 1]]);
        // A key at a priority not seen yet (Summation's re-run at 19) goes
        // to its vertex's stage when the plan meets it.
        assert_eq!((m.priority_stage[&19], m.priority_stage[&21], m.priority_stage[&31]), (1, 1, 2));

        // Tokenizer done: Summation has no parent left, Sorter waits for it.
        let mut later = app.clone();
        later.asks.remove(&key(7));
        later.containers = Default::default();
        let m = model_seen(&later, &seen);
        assert_eq!(priorities(&m), vec![vec![7, 8], vec![20], vec![32]], "a finished vertex stays a stage");
        assert_eq!(m.stages.iter().map(|s| s.parents.clone()).collect::<Vec<_>>(), vec![vec![], vec![], vec![1]]);

        let mut other = app.clone();
        other.app_type = "OTHER".into();
        let m = model_seen(&other, &seen);
        assert_eq!(m.inference, Inference::ArrivalOrder);
        assert_eq!(priorities(&m), vec![vec![8], vec![20], vec![7], vec![32]]);
    }

    /// A join's two root vertices (HashJoinExample: stream and hash side at
    /// distance 0, bands 3 and 4; the joiner at distance 1, band 8) ask
    /// together when the DAG starts: siblings, both the joiner's parents.
    #[test]
    fn tez_root_vertices_asked_together_are_siblings() {
        let mut app = crate::policy::carbyne::tests::bare_app(4, "TEZ");
        let r = Resources::new(512, 1);
        for (p, n) in [(8, 2), (11, 1), (23, 1)] {
            app.asks.insert(key(p), Ask::anywhere(key(p), r, n));
        }
        let m = model_seen(&app, &[(8, 1_000), (11, 1_000), (23, 2_000)]);
        assert_eq!(priorities(&m), vec![vec![8], vec![11], vec![23]]);
        assert_eq!(m.stages.iter().map(|s| s.parents.clone()).collect::<Vec<_>>(), vec![vec![], vec![], vec![0, 1]]);
    }
}
