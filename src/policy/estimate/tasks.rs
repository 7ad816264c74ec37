//! `estimate = "tasks"`: an app's remaining work from what it still asks
//! for. YARN tells the scheduler an app's width exactly (its outstanding
//! asks) but not how long its tasks run; this estimator learns task
//! runtimes and multiplies:
//!
//! ```text
//!   remaining = outstanding containers × d  +  max(0, running × d − age of the running ones)
//!   size      = attained service + remaining
//! ```
//!
//! where `d`, the expected task runtime, is the mean runtime of the app's
//! own finished task containers (never its AM's) of the same scheduler key
//! (its stage, the passive form of SLearn's pilot-task sampling, §3);
//! before any has finished, the mean over its other keys; then the mean task
//! runtime of past runs of the same job (user + name, as 3Sigma keys
//! history); then of every job seen. Confidence follows the source: 1 − 1/(n+1) for n own
//! tasks, ½ of that for the job's history, ¼ for everyone's, 0 (a prior:
//! no runtime known yet, remaining = 0) before any task has finished.
//!
//! An AM's lifetime is its job's and teaches no runtime. An app whose type
//! is in `[apps] executor_app_types` (Spark, YARN services) runs executors,
//! which live as long as dynamic allocation or the service keeps them: their
//! lifetimes price that app (and its job key's later runs), the
//! container-time it holds, but stay out of everyone's mean.

use crate::config::AppsConfig;
use crate::model::{App, AppId, ClusterState, Container, SchedulerKey};
use crate::policy::points::{Capabilities, Ctx, Estimate, Estimator, Plugin};
use std::collections::{BTreeMap, HashMap};

/// Running mean of task runtimes.
#[derive(Debug, Default, Clone, Copy)]
struct Mean {
    sum_ms: f64,
    n: u64,
}

impl Mean {
    fn add(&mut self, ms: f64) {
        self.sum_ms += ms;
        self.n += 1;
    }

    fn merge(&mut self, other: Mean) {
        self.sum_ms += other.sum_ms;
        self.n += other.n;
    }

    fn get(&self) -> Option<f64> {
        (self.n > 0).then(|| self.sum_ms / self.n as f64)
    }

    fn trust(&self) -> f64 {
        self.n as f64 / (self.n as f64 + 1.0)
    }
}

/// What the estimator knows of one live app.
#[derive(Default)]
struct AppTasks {
    /// Finished tasks per scheduler key, and over all keys.
    by_key: BTreeMap<SchedulerKey, Mean>,
    total: Mean,
    /// Index of its job key (user + name) in `jobs`.
    job: Option<usize>,
}

pub struct TaskRuntimes {
    /// `[apps]`: whose containers are executors, not tasks.
    apps_cfg: AppsConfig,
    apps: HashMap<AppId, AppTasks>,
    /// Task runtimes of past runs, per job key (user + name), interned.
    jobs: Vec<Mean>,
    job_index: HashMap<String, usize>,
    all: Mean,
}

fn job_key(app: &App) -> String {
    format!("{}\u{1f}{}", app.user, app.name)
}

impl TaskRuntimes {
    pub fn new(apps_cfg: &AppsConfig) -> TaskRuntimes {
        TaskRuntimes { apps_cfg: apps_cfg.clone(), apps: HashMap::new(), jobs: Vec::new(), job_index: HashMap::new(), all: Mean::default() }
    }

    fn job_of(&mut self, app: &App) -> usize {
        let next = self.jobs.len();
        let i = *self.job_index.entry(job_key(app)).or_insert(next);
        if i == next {
            self.jobs.push(Mean::default());
        }
        i
    }

    /// Expected runtime of one more task of `key` (None: of any key), and
    /// the confidence in it.
    fn runtime(&self, app: &App, key: Option<SchedulerKey>) -> Option<(f64, f64)> {
        let own = self.apps.get(&app.id);
        if let Some(own) = own {
            if let Some(m) = key.and_then(|k| own.by_key.get(&k)).filter(|m| m.n > 0) {
                return m.get().map(|d| (d, m.trust()));
            }
            if let Some(d) = own.total.get() {
                return Some((d, own.total.trust()));
            }
        }
        // An app this estimator met only now (built by -refreshQueues) has
        // no interned job yet.
        let job = own.and_then(|o| o.job).or_else(|| self.job_index.get(&job_key(app)).copied());
        if let Some(m) = job.map(|j| &self.jobs[j]) {
            if let Some(d) = m.get() {
                return Some((d, 0.5 * m.trust()));
            }
        }
        self.all.get().map(|d| (d, 0.25 * self.all.trust()))
    }
}

impl Plugin for TaskRuntimes {
    fn name(&self) -> &'static str {
        "tasks"
    }

    /// Runtimes are learned from finished containers (events); the rest
    /// is the app's own asks and containers.
    fn capabilities(&self) -> Capabilities {
        Capabilities { estimates_move_only_with_own_containers: true, ..Capabilities::NONE }
    }

    fn on_event(&mut self, ctx: &Ctx, event: &crate::event::Event) {
        if let crate::event::Event::AppAdded { app, .. } = event {
            if let Some(a) = ctx.state.apps.get(app) {
                let job = self.job_of(a);
                self.apps.entry(*app).or_default().job = Some(job);
            }
        }
    }

    fn on_container_finished(&mut self, ctx: &Ctx, c: &Container, _exit_status: i32, at_ms: i64) {
        // An ApplicationMaster's container lives as long as its job: its
        // lifetime is not a task runtime and would inflate every `d` it
        // entered (the app's, its job's history, everyone's).
        if c.am {
            return;
        }
        // An executor (a Spark app's, released by dynamic allocation after
        // minutes of tasks) lives as long as its app keeps it. For its own
        // app, and the same app's later runs, that lifetime is the right
        // price: the container-time the app will hold, which SRTF weighs.
        // For everyone else's fallback it is not a task runtime: it would
        // price every new MapReduce job with no history of its own as
        // minutes long. The engine passes a container on before it
        // releases it, and an app's containers before the app, so the app
        // is in the state.
        let executor = ctx.state.apps.get(&c.app).is_some_and(|a| self.apps_cfg.runs_executors(&a.app_type));
        let ran = (at_ms - c.launched_ms.unwrap_or(c.allocated_ms)).max(0) as f64;
        let own = self.apps.entry(c.app).or_default();
        own.by_key.entry(c.key).or_default().add(ran);
        own.total.add(ran);
        if !executor {
            self.all.add(ran);
        }
    }

    /// Its tasks so far are not a finished run: nothing is merged.
    fn on_app_moved_out(&mut self, _ctx: &Ctx, app: &App) {
        self.apps.remove(&app.id);
    }

    fn on_app_removed(&mut self, _ctx: &Ctx, app: &App) {
        if let Some(own) = self.apps.remove(&app.id) {
            let job = match own.job {
                Some(j) => j,
                None => self.job_of(app),
            };
            self.jobs[job].merge(own.total);
        }
    }

    fn state_json(&self, _ctx: &Ctx) -> serde_json::Value {
        serde_json::json!({
            "live_apps": self.apps.len(),
            "job_keys": self.job_index.len(),
            "tasks_seen": self.all.n,
            "mean_task_ms": self.all.get(),
        })
    }
}

impl Estimator for TaskRuntimes {
    fn estimate(&self, state: &ClusterState, app: &App) -> Option<Estimate> {
        let now = state.now_ms;
        let attained = app.attained_ms(now) as f64;
        let Some((any, any_trust)) = self.runtime(app, None) else {
            return Some(Estimate { size_ms: attained, remaining_ms: 0.0, confidence: 0.0 });
        };
        let mut remaining = 0.0;
        let mut confidence = any_trust;
        for ask in app.asks.values().filter(|a| a.count > 0) {
            let (d, trust) = self.runtime(app, Some(ask.key)).unwrap_or((any, any_trust));
            remaining += ask.count as f64 * d;
            confidence = confidence.min(trust);
        }
        // Running containers: Σ (d − age), approximated in aggregate.
        let running = app.containers.len() as f64;
        let age = running * now as f64 - app.live_start_sum_ms as f64;
        remaining += (running * any - age).max(0.0);
        Some(Estimate { size_ms: attained + remaining, remaining_ms: remaining, confidence })
    }

    /// The per-key runtime the estimate above multiplies by (Carbyne plans
    /// each stage with it).
    fn task_ms(&self, app: &App, key: Option<SchedulerKey>) -> Option<(f64, f64)> {
        self.runtime(app, key)
    }
}

#[cfg(test)]
mod tests {
    use crate::config::Config;
    use crate::engine::tests::{add_app, add_node, ask};
    use crate::engine::{Decision, Engine, Event};

    fn engine() -> Engine {
        let text = "[scheduler]\npolicy = \"mine\"\n[pipeline.mine]\nestimate = \"tasks\"\napp_order = \"srtf\"\n";
        let mut e = Engine::with_config(Config::parse(text).unwrap()).unwrap();
        add_node(&mut e, 1, 16 * 1024, 16);
        e
    }

    fn containers(out: &[Decision]) -> Vec<u64> {
        out.iter().filter_map(|d| if let Decision::Allocate { container, .. } = d { Some(*container) } else { None }).collect()
    }

    #[test]
    fn remaining_is_outstanding_asks_times_learned_runtime() {
        let mut e = engine();
        add_app(&mut e, 1, "default", "u", 0);
        ask(&mut e, 1, 1, 1024, 1, 10);
        // Nothing has finished anywhere: a prior (not reported).
        assert_eq!(e.estimate_ms(1), None);
        let mut out = vec![];
        e.schedule_node(1, 0, &mut out).unwrap();
        let c = containers(&out);
        assert_eq!(c.len(), 10);
        // Two tasks finish after 4 s and 6 s: d = 5 s for this key.
        e.apply(Event::ContainerFinished { container: c[0], exit_status: 0, at_ms: 4_000 });
        e.apply(Event::ContainerFinished { container: c[1], exit_status: 0, at_ms: 6_000 });
        e.advance_clock(6_000);
        ask(&mut e, 1, 1, 1024, 1, 3);
        let est = e.policies().estimate(e.state(), &e.state().apps[&1]).unwrap();
        // Outstanding 3 × 5 s; 8 running for 6 s each: 8 × 5 − 48 < 0 → 0.
        assert_eq!(est.remaining_ms, 15_000.0);
        // Attained: 4 + 6 finished, 8 × 6 running = 58 s.
        assert_eq!(est.size_ms, 58_000.0 + 15_000.0);
        assert!((est.confidence - 2.0 / 3.0).abs() < 1e-12, "{est:?}");
        // Once the app is gone, a new run of the same job starts from its
        // history (half the trust), then from everyone's.
        for &id in &c[2..] {
            e.apply(Event::ContainerFinished { container: id, exit_status: 0, at_ms: 6_000 });
        }
        e.apply(Event::AppRemoved { app: 1 });
        add_app(&mut e, 2, "default", "u", 7_000);
        e.apply(Event::AppAdded {
            app: 3,
            yarn_id: "application_0_3".into(),
            queue: "default".into(),
            user: "someone".into(),
            name: "else".into(),
            app_type: "MAPREDUCE".into(),
            tags: vec![],
            submit_ms: 7_000,
            priority: 0,
        });
        e.apply(Event::AttemptAdded { app: 3, attempt: 1 });
        // app 2 is named "app2", not "app1": the same user + name is the key.
        let est2 = e.policies().estimate(e.state(), &e.state().apps[&2]).unwrap();
        let est3 = e.policies().estimate(e.state(), &e.state().apps[&3]).unwrap();
        // 10 tasks: 4 s, 6 s and eight of 6 s → mean 5.8 s, everyone's.
        assert_eq!((est2.size_ms, est3.size_ms), (0.0, 0.0), "no asks yet");
        ask(&mut e, 3, 1, 1024, 1, 2);
        let est3 = e.policies().estimate(e.state(), &e.state().apps[&3]).unwrap();
        assert!((est3.remaining_ms - 2.0 * 5_800.0).abs() < 1e-9, "{est3:?}");
        assert!((est3.confidence - 0.25 * 10.0 / 11.0).abs() < 1e-12);
    }

    #[test]
    fn job_history_is_preferred_over_everyone() {
        let mut e = engine();
        // Job "app1" of user u runs 2 s tasks; someone else's job 10 s tasks.
        for (id, secs) in [(1u32, 2i64), (9, 10)] {
            add_app(&mut e, id, "default", "u", 0);
            ask(&mut e, id, 1, 1024, 1, 1);
            let mut out = vec![];
            e.schedule_node(1, 0, &mut out).unwrap();
            e.apply(Event::ContainerFinished { container: containers(&out)[0], exit_status: 0, at_ms: secs * 1000 });
            e.apply(Event::AppRemoved { app: id });
        }
        // A new run of "app1" (same user + name) asks for 4 tasks.
        add_app(&mut e, 1, "default", "u", 20_000);
        ask(&mut e, 1, 1, 1024, 1, 4);
        let est = e.policies().estimate(e.state(), &e.state().apps[&1]).unwrap();
        assert_eq!(est.remaining_ms, 4.0 * 2_000.0);
        assert_eq!(est.confidence, 0.5 * 0.5);
    }

    /// An AM container's lifetime is not a task runtime: it enters neither
    /// the app's runtimes nor its job's history nor everyone's.
    #[test]
    fn am_containers_are_not_tasks() {
        use crate::model::ask::AM_PRIORITY;
        let mut e = engine();
        // Job "app1": an AM, then one 2 s task; the AM lives 100 s.
        add_app(&mut e, 1, "default", "u", 0);
        ask(&mut e, 1, AM_PRIORITY, 1024, 1, 1);
        let mut out = vec![];
        e.schedule_node(1, 0, &mut out).unwrap();
        let am = containers(&out)[0];
        assert!(e.state().containers[&am].am);
        ask(&mut e, 1, 1, 1024, 1, 1);
        out.clear();
        e.schedule_node(1, 0, &mut out).unwrap();
        let task = containers(&out)[0];
        e.apply(Event::ContainerFinished { container: task, exit_status: 0, at_ms: 2_000 });
        e.apply(Event::ContainerFinished { container: am, exit_status: 0, at_ms: 100_000 });
        e.apply(Event::AppRemoved { app: 1 });
        // A new run of "app1" asks for tasks: its history is the 2 s task
        // alone (with the AM's 100 s it would be 51 s).
        add_app(&mut e, 1, "default", "u", 120_000);
        ask(&mut e, 1, 1, 1024, 1, 3);
        let est = e.policies().estimate(e.state(), &e.state().apps[&1]).unwrap();
        assert_eq!(est.remaining_ms, 3.0 * 2_000.0);
        // Someone else's new job knows only everyone's mean: 2 s as well.
        add_app(&mut e, 9, "default", "u", 121_000);
        ask(&mut e, 9, 1, 1024, 1, 2);
        assert_eq!(e.policies().estimate(e.state(), &e.state().apps[&9]).unwrap().remaining_ms, 2.0 * 2_000.0);
    }

    fn add_typed_app(e: &mut Engine, id: u32, app_type: &str, at_ms: i64) {
        e.apply(Event::AppAdded {
            app: id,
            yarn_id: format!("application_0_{id}"),
            queue: "default".into(),
            user: "u".into(),
            name: format!("{app_type}{id}"),
            app_type: app_type.into(),
            tags: vec![],
            submit_ms: at_ms,
            priority: 0,
        });
        e.apply(Event::AttemptAdded { app: id, attempt: 1 });
    }

    /// Executors released by Spark's dynamic allocation after 100 s are not
    /// tasks (`[apps] executor_app_types`, default SPARK): the all-jobs mean
    /// holds the MapReduce app's 2 s tasks only (with the executors it would
    /// be 51 s), and the Spark app itself learns no runtime from them.
    #[test]
    fn executor_lifetimes_stay_out_of_the_all_jobs_mean() {
        let mut e = engine();
        add_typed_app(&mut e, 1, "SPARK", 0);
        add_typed_app(&mut e, 2, "MAPREDUCE", 0);
        ask(&mut e, 1, 1, 1024, 1, 2);
        ask(&mut e, 2, 1, 1024, 1, 2);
        let mut out = vec![];
        e.schedule_node(1, 0, &mut out).unwrap();
        let by_app = |app: u32| -> Vec<u64> {
            out.iter()
                .filter_map(|d| match d {
                    Decision::Allocate { app: a, container, .. } if *a == app => Some(*container),
                    _ => None,
                })
                .collect()
        };
        let (executors, tasks) = (by_app(1), by_app(2));
        assert_eq!((executors.len(), tasks.len()), (2, 2));
        for &c in &tasks {
            e.apply(Event::ContainerFinished { container: c, exit_status: 0, at_ms: 2_000 });
        }
        for &c in &executors {
            e.apply(Event::ContainerFinished { container: c, exit_status: 0, at_ms: 100_000 });
        }
        e.advance_clock(100_000);
        let seen = &e.state_json()["pipelines"][0]["plugins"]["estimate"]["state"]["tasks_seen"];
        assert_eq!(seen, 2, "only the MapReduce tasks");
        // A new job knows only everyone's mean: the 2 s tasks.
        add_typed_app(&mut e, 9, "MAPREDUCE", 100_000);
        ask(&mut e, 9, 1, 1024, 1, 3);
        let est = e.policies().estimate(e.state(), &e.state().apps[&9]).unwrap();
        assert_eq!(est.remaining_ms, 3.0 * 2_000.0);
        // The Spark app asking again is priced at its own executors'
        // lifetimes (two seen: confidence 1 − 1/3).
        ask(&mut e, 1, 1, 1024, 1, 1);
        let est = e.policies().estimate(e.state(), &e.state().apps[&1]).unwrap();
        assert_eq!((est.remaining_ms, est.confidence), (100_000.0, 2.0 / 3.0));
    }
}
