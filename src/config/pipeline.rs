//! Pipelines as an operator writes them: which plugin runs at each extension
//! point of the engine's scheduling pass (see `crate::policy` for the points
//! and their order), the built-in pipelines every existing policy name
//! stands for, and the checks that turn a bad combination into an error
//! naming the key.
//!
//! The names each point accepts are the plugin registry's
//! (`super::plugins`); `crate::policy` builds their implementations.

use super::plugins::{names, Point};
use super::{bad, CarbyneConfig, Config, ConfigError, DressConfig, RoseConfig, SLearnConfig};
use serde::{Deserialize, Serialize};

/// One pipeline: a plugin name per extension point.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct PipelineSpec {
    /// Size estimates (container-ms) the order points read: `none`,
    /// `history` (3Sigma-style distribution of past runs of the same user +
    /// job name), `history-point` (one quantile of it), `oracle` (the
    /// `shepherd.oracle.work_ms` application tag), `tasks` (outstanding asks
    /// × learned task runtime), `slearn` (SLearn: mean runtime of the app's
    /// pilot tasks × its first stage's width).
    pub estimate: String,
    /// Partition of the queue's share: `none`, `dress` (DRESS's two pools
    /// with the dynamic reserve δ for small-demand apps).
    pub reserve: String,
    /// Order of applications: `fifo` (YARN priority, then arrival), `drf`
    /// (lowest dominant share), `sjf` (smallest estimated size), `srtf`
    /// (smallest estimated remaining work), `las` (least attained service),
    /// `tetris` (best alignment of its ask with the node's free resources),
    /// `gs` (SLearn's GS: priority queues by estimated size, FIFO inside,
    /// weighted sharing across queues).
    pub app_order: String,
    /// Orders that replace `app_order` for the apps of one pool of the
    /// reserve plugin, e.g. `{ small = "srtf" }`. Pools are then served in
    /// the reserve's order (DRESS: small before large) and each pool's apps
    /// in its own order.
    pub pool_order: std::collections::BTreeMap<String, String>,
    /// Which outstanding asks are DEFAULT (served in the main phase) and
    /// which ALTRUISTIC (wait for the leftover phase); an ask is DEFAULT
    /// when every listed plugin says so. Empty = all DEFAULT. `pilots`:
    /// while SLearn samples a wide app, only its pilot tasks are DEFAULT.
    pub classify: Vec<String>,
    /// Node-level constraints every placement must pass, in order.
    /// Default `["constraints"]` (placement constraints of asks that came
    /// from YARN `SchedulingRequest`s); a list without it makes the
    /// pipeline refuse every constrained ask rather than ignore its constraint.
    pub filter: Vec<String>,
    /// Order of the leftover phase: `none` = no leftover phase; `fifo` =
    /// arrival order (SLearn's work conservation, §5.1.2).
    pub leftover: String,
    /// Serve strictly in app order: the first app that cannot be placed
    /// ends the pass (head-of-line blocking, the DRESS paper's FIFO).
    pub strict_order: bool,
    /// Serve apps still waiting for their ApplicationMaster container
    /// before every other app of the pipeline (in its own order among
    /// them), within the queue's `max_am_share`. Beyond the papers, for
    /// YARN: an AM's start-up (a JVM, seconds to a minute on a loaded
    /// host) then overlaps other jobs' tasks instead of following them —
    /// what YARN's FairScheduler gets from ranking apps with nothing
    /// running first. Default off.
    pub am_first: bool,
    /// `[dress]` keys this pipeline's DRESS reserve sets differently from
    /// the global `[dress]` section, e.g. `dress = { theta = 0.2 }`.
    pub dress: toml::Table,
    /// `[carbyne]` keys this pipeline's Carbyne plugins set differently
    /// from the global `[carbyne]` section, e.g. `carbyne = { p_altruism = 0.5 }`.
    pub carbyne: toml::Table,
    /// `[slearn]` keys this pipeline's SLearn estimator sets differently
    /// from the global `[slearn]` section, e.g. `slearn = { fixed_ratio =
    /// 0.05 }` (an estimator of its own then, with its own history).
    pub slearn: toml::Table,
    /// Speculative containers on allocated-but-idle capacity: `none`, or
    /// `rose` (ROSE: node load by LLA, node rating by TBAMR, candidates by
    /// multi-phase filtering, a threshold controller that stops placing and
    /// evicts). The per-queue switch: only this pipeline's apps' asks run
    /// speculatively.
    pub oversubscribe: String,
    /// `[rose]` keys this pipeline sets differently, e.g. `rose = { bound_vcores = 0.9 }`.
    pub rose: toml::Table,
}

impl Default for PipelineSpec {
    fn default() -> Self {
        PipelineSpec {
            estimate: "none".into(),
            reserve: "none".into(),
            app_order: "drf".into(),
            pool_order: Default::default(),
            classify: Vec::new(),
            filter: vec!["constraints".into()],
            leftover: "none".into(),
            strict_order: false,
            am_first: false,
            dress: toml::Table::new(),
            carbyne: toml::Table::new(),
            slearn: toml::Table::new(),
            oversubscribe: "none".into(),
            rose: toml::Table::new(),
        }
    }
}

/// A built-in pipeline: the policy name it stands for, the queue order
/// that name has always implied, and its spec.
pub struct BuiltIn {
    pub name: &'static str,
    pub queue_order: &'static str,
    pub summary: &'static str,
    build: fn(&Config) -> PipelineSpec,
}

fn spec(estimate: &str, reserve: &str, app_order: &str) -> PipelineSpec {
    PipelineSpec { estimate: estimate.into(), reserve: reserve.into(), app_order: app_order.into(), ..Default::default() }
}

/// Every policy name `scheduler.policy` and `[[queue]] policy` accept
/// without a `[pipeline.NAME]` table.
pub const BUILT_INS: &[BuiltIn] = &[
    BuiltIn {
        name: "composed",
        queue_order: "drf",
        summary: "DRESS reserve as a floor for small-demand apps, small pool served first; shortest estimated \
                  remaining work first (outstanding asks × learned task runtime) in both pools (the default)",
        build: |_| PipelineSpec {
            pool_order: [("small".to_string(), "srtf".to_string())].into_iter().collect(),
            dress: [("small_borrows_free".to_string(), toml::Value::Boolean(true))].into_iter().collect(),
            ..spec("tasks", "dress", "srtf")
        },
    },
    BuiltIn {
        name: "fifo",
        queue_order: "flat",
        summary: "arrival order (YARN priority first); [fifo] strict_order = head-of-line blocking",
        build: |c| PipelineSpec { strict_order: c.fifo.strict_order, ..spec("none", "none", "fifo") },
    },
    BuiltIn { name: "drf", queue_order: "drf", summary: "hierarchical DRF: queues, then apps", build: |_| spec("none", "none", "drf") },
    BuiltIn {
        name: "carbyne",
        queue_order: "drf",
        summary: "Carbyne: DRF shares; each app's asks split by reverse packing from its earliest completion into DEFAULT \
                  (served by DRF) and ALTRUISTIC (served from the leftover, least remaining work first, then packed)",
        build: |_| PipelineSpec { classify: vec!["carbyne".into()], leftover: "carbyne".into(), ..spec("tasks", "none", "drf") },
    },
    BuiltIn { name: "dress", queue_order: "flat", summary: "DRESS pools, FIFO inside", build: |_| spec("none", "dress", "fifo") },
    BuiltIn {
        name: "capacity",
        queue_order: "capacity",
        summary: "queues by used ÷ guaranteed, FIFO inside",
        build: |_| spec("none", "none", "fifo"),
    },
    BuiltIn { name: "sjf", queue_order: "flat", summary: "smallest oracle size first", build: |_| spec("oracle", "none", "sjf") },
    BuiltIn { name: "tetris", queue_order: "flat", summary: "packing by alignment", build: |_| spec("none", "none", "tetris") },
    BuiltIn { name: "las", queue_order: "flat", summary: "least attained service first", build: |_| spec("none", "none", "las") },
    BuiltIn {
        name: "3sigma",
        queue_order: "flat",
        summary: "expected remaining size from history, smallest first",
        build: |_| spec("history", "none", "srtf"),
    },
    BuiltIn {
        name: "3sigma-point",
        queue_order: "flat",
        summary: "one history quantile as the size, smallest first",
        build: |_| spec("history-point", "none", "sjf"),
    },
    BuiltIn {
        name: "oracle",
        queue_order: "flat",
        summary: "true remaining size, smallest first",
        build: |_| spec("oracle", "none", "srtf"),
    },
    BuiltIn {
        name: "slearn",
        queue_order: "flat",
        summary: "SLearn: sizes from sampled pilot tasks (thin apps bypass), GS priority queues with weighted \
                  sharing, idle capacity to non-pilot tasks in arrival order",
        build: |_| PipelineSpec { classify: vec!["pilots".into()], leftover: "fifo".into(), ..spec("slearn", "none", "gs") },
    },
    BuiltIn {
        name: "rose",
        queue_order: "drf",
        summary: "ROSE: hierarchical DRF, plus speculative (OPPORTUNISTIC) containers on nodes whose measured load \
                  leaves room under the bound, chosen by LLA, TBAMR and multi-phase filtering; evicted newest first \
                  when measured use crosses the eviction bound",
        build: |_| PipelineSpec { oversubscribe: "rose".into(), ..spec("none", "none", "drf") },
    },
];

pub fn built_in(name: &str) -> Option<&'static BuiltIn> {
    BUILT_INS.iter().find(|b| b.name == name)
}

/// Names of the built-in pipelines, for messages.
pub fn built_in_names() -> Vec<&'static str> {
    BUILT_INS.iter().map(|b| b.name).collect()
}

impl Config {
    /// The spec a policy name stands for: a built-in, or `[pipeline.NAME]`.
    pub fn pipeline(&self, name: &str) -> Option<PipelineSpec> {
        built_in(name).map(|b| (b.build)(self)).or_else(|| self.pipelines.get(name).cloned())
    }

    /// The policy name queue `i` runs: its own `policy`, else `scheduler.policy`.
    pub fn queue_policy(&self, i: usize) -> &str {
        let own = &self.queues[i].policy;
        if own.is_empty() {
            &self.scheduler.policy
        } else {
            own
        }
    }

    /// `scheduler.queue_order` with `auto` resolved: the order the default
    /// policy has always implied (`drf` for `drf` and `composed`, `capacity`
    /// for `capacity`, `flat` for single-order policies), `drf` for a
    /// `[pipeline.NAME]` of the operator's.
    pub fn queue_order(&self) -> &str {
        match self.scheduler.queue_order.as_str() {
            "auto" => built_in(&self.scheduler.policy).map_or("drf", |b| b.queue_order),
            other => other,
        }
    }

    /// What `shepherd check-config` prints: the queue order and, per queue,
    /// its weights and capacities, its policy and the plugin at each point.
    pub fn describe(&self) -> String {
        let mut out = format!(
            "default policy: {}\nqueue order: {}{}\n",
            self.scheduler.policy,
            self.queue_order(),
            if self.scheduler.queue_order == "auto" { " (auto)" } else { "" }
        );
        for (i, q) in self.queues.iter().enumerate() {
            let policy = self.queue_policy(i);
            let spec = self.pipeline(policy).map(|p| p.describe()).unwrap_or_default();
            out.push_str(&format!(
                "queue root.{}: weight {} capacity {} max {}\n  policy {}{}: {}\n",
                q.name,
                q.weight,
                q.capacity,
                q.max_capacity,
                policy,
                if q.policy.is_empty() { " (default)" } else { "" },
                spec
            ));
        }
        if self.queue_order() == "flat" && self.queues.len() > 1 {
            out.push_str("(flat queue order: one pipeline serves all queues' apps in one order)\n");
        }
        out
    }

    /// Names, combinations and the queue-order rule, each error naming its key.
    pub(super) fn validate_pipelines(&self) -> Result<(), ConfigError> {
        let known = || {
            let mut v: Vec<String> = built_in_names().into_iter().map(String::from).collect();
            v.extend(self.pipelines.keys().cloned());
            v.join(", ")
        };
        for (name, p) in &self.pipelines {
            if built_in(name).is_some() {
                return Err(bad(&format!("pipeline.{name}"), name, "a built-in policy has this name; choose another"));
            }
            p.validate(&format!("pipeline.{name}"))?;
            p.dress_config(&self.dress, &format!("pipeline.{name}"))?;
            p.carbyne_config(&self.carbyne, &format!("pipeline.{name}"))?;
            p.slearn_config(&self.slearn, &format!("pipeline.{name}"))?;
            p.rose_config(&self.rose, &format!("pipeline.{name}"))?;
        }
        if self.pipeline(&self.scheduler.policy).is_none() {
            return Err(bad("scheduler.policy", &self.scheduler.policy, format!("expected one of {}", known())));
        }
        for (i, q) in self.queues.iter().enumerate() {
            if !q.policy.is_empty() && self.pipeline(&q.policy).is_none() {
                return Err(bad(&format!("queue[{i}].policy"), &q.policy, format!("expected one of {}", known())));
            }
            let policy = self.queue_policy(i);
            if let Some(p) = self.pipeline(policy) {
                p.dress_config(&self.dress, &format!("pipeline `{policy}`"))?;
            }
        }
        let order = self.scheduler.queue_order.as_str();
        let orders = names(Point::QueueOrder);
        if order != "auto" && !orders.contains(&order) {
            return Err(bad("scheduler.queue_order", order, format!("expected one of auto, {}", orders.join(", "))));
        }
        // A flat queue order puts every app in one order: only meaningful
        // when every queue runs the same pipeline (one for the cluster).
        if self.queue_order() == "flat" {
            let first = self.pipeline(self.queue_policy(0));
            for i in 1..self.queues.len() {
                if self.pipeline(self.queue_policy(i)) != first {
                    return Err(bad(
                        &format!("queue[{i}].policy"),
                        self.queue_policy(i),
                        format!(
                            "differs from queue `{}`'s `{}`, but scheduler.queue_order is flat (`{}` implies it): \
                             with one order for all apps every queue must run the same pipeline; \
                             set scheduler.queue_order = \"drf\" or \"capacity\"",
                            self.queues[0].name,
                            self.queue_policy(0),
                            self.scheduler.policy
                        ),
                    ));
                }
            }
        }
        Ok(())
    }
}

impl PipelineSpec {
    /// Plugin names and combinations; `key` is the spec's table (e.g. `pipeline.mine`).
    pub fn validate(&self, key: &str) -> Result<(), ConfigError> {
        let one = |at: &str, value: &str, point: Point| {
            let allowed = names(point);
            if allowed.contains(&value) {
                Ok(())
            } else {
                Err(bad(&format!("{key}.{at}"), value, format!("unknown plugin; expected one of {}", allowed.join(", "))))
            }
        };
        one("estimate", &self.estimate, Point::Estimate)?;
        one("reserve", &self.reserve, Point::Reserve)?;
        one("app_order", &self.app_order, Point::AppOrder)?;
        for (point, listed) in [(Point::Classify, &self.classify), (Point::Filter, &self.filter)] {
            let allowed = names(point);
            for n in listed {
                if !allowed.contains(&n.as_str()) {
                    let list = if allowed.is_empty() { "none yet".to_string() } else { allowed.join(", ") };
                    return Err(bad(&format!("{key}.{}", point.key()), n, format!("unknown plugin; available: {list}")));
                }
            }
        }
        one("leftover", &self.leftover, Point::Leftover)?;
        one("oversubscribe", &self.oversubscribe, Point::Oversubscribe)?;
        if !self.rose.is_empty() && self.oversubscribe != "rose" {
            return Err(bad(
                &format!("{key}.rose"),
                toml::Value::Table(self.rose.clone()),
                format!("{key}.oversubscribe is `{}`, not rose", self.oversubscribe),
            ));
        }
        let by_size = |order: &str| matches!(order, "sjf" | "srtf");
        if by_size(&self.app_order) && self.estimate == "none" {
            return Err(bad(
                &format!("{key}.app_order"),
                &self.app_order,
                format!("orders by estimated size, but {key}.estimate is `none`; choose history, history-point, tasks, slearn or oracle"),
            ));
        }
        let pools: &[&str] = match self.reserve.as_str() {
            "dress" => &["small", "large"],
            _ => &[],
        };
        for (pool, order) in &self.pool_order {
            let k = format!("{key}.pool_order.{pool}");
            if !pools.contains(&pool.as_str()) {
                let why = if pools.is_empty() {
                    format!("{key}.reserve = `{}` makes no pools", self.reserve)
                } else {
                    format!("the `{}` reserve's pools are {}", self.reserve, pools.join(", "))
                };
                return Err(bad(&k, pool, why));
            }
            one(&format!("pool_order.{pool}"), order, Point::AppOrder)?;
            if by_size(order) && self.estimate == "none" {
                return Err(bad(&k, order, format!("orders by estimated size, but {key}.estimate is `none`")));
            }
        }
        if !self.classify.is_empty() && self.leftover == "none" {
            return Err(bad(
                &format!("{key}.leftover"),
                &self.leftover,
                format!(
                    "{key}.classify = [{}] holds ALTRUISTIC asks back for the leftover phase; without one they never run",
                    self.classify.join(", ")
                ),
            ));
        }
        let carbyne = self.classify.iter().any(|c| c == "carbyne");
        if carbyne && self.estimate != "tasks" {
            return Err(bad(
                &format!("{key}.estimate"),
                &self.estimate,
                format!("{key}.classify names carbyne, which plans with per-stage task runtimes; only `tasks` learns them"),
            ));
        }
        if !self.carbyne.is_empty() && !carbyne && self.leftover != "carbyne" {
            return Err(bad(
                &format!("{key}.carbyne"),
                toml::Value::Table(self.carbyne.clone()),
                format!("neither {key}.classify nor {key}.leftover is carbyne"),
            ));
        }
        if self.classify.iter().any(|c| c == "pilots") && self.estimate != "slearn" {
            return Err(bad(
                &format!("{key}.classify"),
                "pilots",
                format!("holds back non-pilot tasks while SLearn samples an app, but {key}.estimate is `{}`, not slearn", self.estimate),
            ));
        }
        if !self.slearn.is_empty() && self.estimate != "slearn" {
            return Err(bad(
                &format!("{key}.slearn"),
                toml::Value::Table(self.slearn.clone()),
                format!("{key}.estimate is `{}`, not slearn", self.estimate),
            ));
        }
        if !self.dress.is_empty() && self.reserve != "dress" {
            return Err(bad(
                &format!("{key}.dress"),
                toml::Value::Table(self.dress.clone()),
                format!("{key}.reserve is `{}`, not dress", self.reserve),
            ));
        }
        if self.strict_order && self.app_order == "tetris" {
            return Err(bad(
                &format!("{key}.strict_order"),
                "true",
                "tetris orders apps by the node at hand; head-of-line blocking on it would idle nodes for no order",
            ));
        }
        Ok(())
    }

    /// The `[dress]` settings of this pipeline: the global section with
    /// this pipeline's `dress` keys over it. `key` names the pipeline for
    /// errors (e.g. `pipeline.mine`).
    pub fn dress_config(&self, global: &DressConfig, key: &str) -> Result<DressConfig, ConfigError> {
        overlay(global, &self.dress, &format!("{key}.dress"), DressConfig::validate)
    }

    /// The `[slearn]` settings of this pipeline's estimator: the global
    /// section with this pipeline's `slearn` keys over it.
    pub fn slearn_config(&self, global: &SLearnConfig, key: &str) -> Result<SLearnConfig, ConfigError> {
        overlay(global, &self.slearn, &format!("{key}.slearn"), SLearnConfig::validate)
    }

    /// The `[rose]` settings of this pipeline: the global section with this
    /// pipeline's `rose` keys over it.
    pub fn rose_config(&self, global: &RoseConfig, key: &str) -> Result<RoseConfig, ConfigError> {
        overlay(global, &self.rose, &format!("{key}.rose"), RoseConfig::validate)
    }

    /// The `[carbyne]` settings of this pipeline: the global section with
    /// this pipeline's `carbyne` keys over it (as [`Self::dress_config`]).
    pub fn carbyne_config(&self, global: &CarbyneConfig, key: &str) -> Result<CarbyneConfig, ConfigError> {
        overlay(global, &self.carbyne, &format!("{key}.carbyne"), CarbyneConfig::validate)
    }

    /// One line for `check-config` and logs.
    pub fn describe(&self) -> String {
        let mut s = format!("estimate={} reserve={} app_order={}", self.estimate, self.reserve, self.app_order);
        for (pool, order) in &self.pool_order {
            s.push_str(&format!(" pool_order.{pool}={order}"));
        }
        s.push_str(&format!(" classify=[{}] filter=[{}] leftover={}", self.classify.join(","), self.filter.join(","), self.leftover));
        if self.strict_order {
            s.push_str(" strict_order");
        }
        if self.am_first {
            s.push_str(" am_first");
        }
        if self.oversubscribe != "none" {
            s.push_str(&format!(" oversubscribe={}", self.oversubscribe));
        }
        if !self.rose.is_empty() {
            let keys: Vec<String> = self.rose.iter().map(|(k, v)| format!("{k}={v}")).collect();
            s.push_str(&format!(" rose{{{}}}", keys.join(",")));
        }
        if !self.dress.is_empty() {
            let keys: Vec<String> = self.dress.iter().map(|(k, v)| format!("{k}={v}")).collect();
            s.push_str(&format!(" dress{{{}}}", keys.join(",")));
        }
        if !self.carbyne.is_empty() {
            let keys: Vec<String> = self.carbyne.iter().map(|(k, v)| format!("{k}={v}")).collect();
            s.push_str(&format!(" carbyne{{{}}}", keys.join(",")));
        }
        if !self.slearn.is_empty() {
            let keys: Vec<String> = self.slearn.iter().map(|(k, v)| format!("{k}={v}")).collect();
            s.push_str(&format!(" slearn{{{}}}", keys.join(",")));
        }
        s
    }
}

/// A plugin section with one pipeline's keys over the global one
/// (`[pipeline.NAME] dress = { ... }` over `[dress]`), validated; errors
/// name `key` (e.g. `pipeline.mine.dress`) and the key at fault.
fn overlay<T>(global: &T, keys: &toml::Table, key: &str, validate: fn(&T) -> Result<(), ConfigError>) -> Result<T, ConfigError>
where
    T: Clone + serde::Serialize + serde::de::DeserializeOwned,
{
    if keys.is_empty() {
        return Ok(global.clone());
    }
    let mut table = toml::Table::try_from(global).expect("a config section serializes");
    for (k, v) in keys {
        table.insert(k.clone(), v.clone());
    }
    let merged: T = toml::Value::Table(table)
        .try_into()
        .map_err(|e: toml::de::Error| bad(key, toml::Value::Table(keys.clone()), e.message().to_string()))?;
    let section = key.rsplit_once('.').map_or(key, |(pipeline, _)| pipeline);
    validate(&merged).map_err(|e| ConfigError { key: format!("{section}.{}", e.key), ..e })?;
    Ok(merged)
}

#[cfg(test)]
mod tests {
    use crate::config::Config;

    fn err(text: &str) -> String {
        Config::parse(text).unwrap_err().to_string()
    }

    #[test]
    fn every_built_in_is_valid_and_implies_its_queue_order() {
        for b in super::BUILT_INS {
            let c = Config::parse(&format!("[scheduler]\npolicy = \"{}\"\n", b.name)).unwrap();
            assert_eq!(c.queue_order(), b.queue_order, "{}", b.name);
            c.pipeline(b.name).unwrap().validate(b.name).unwrap();
        }
    }

    #[test]
    fn unknown_plugin_names_its_key() {
        let e = err("[pipeline.mine]\napp_order = \"lottery\"\n");
        assert!(e.contains("pipeline.mine.app_order") && e.contains("lottery") && e.contains("srtf"), "{e}");
        let e = err("[pipeline.mine]\nfilter = [\"megha\"]\n");
        assert!(e.contains("pipeline.mine.filter") && e.contains("megha"), "{e}");
        let e = err("[pipeline.mine]\nestimat = \"history\"\n");
        assert!(e.contains("estimat"), "{e}");
    }

    #[test]
    fn impossible_combinations_name_the_key() {
        let e = err("[pipeline.mine]\napp_order = \"srtf\"\n");
        assert!(e.contains("pipeline.mine.app_order") && e.contains("estimate"), "{e}");
        let e = err("[pipeline.mine]\npool_order = { small = \"srtf\" }\nestimate = \"history\"\n");
        assert!(e.contains("pipeline.mine.pool_order.small") && e.contains("no pools"), "{e}");
        let e = err("[pipeline.mine]\nreserve = \"dress\"\npool_order = { tiny = \"fifo\" }\n");
        assert!(e.contains("pool_order.tiny") && e.contains("small, large"), "{e}");
        let e = err("[pipeline.mine]\nreserve = \"dress\"\npool_order = { small = \"sjf\" }\n");
        assert!(e.contains("pipeline.mine.pool_order.small") && e.contains("estimate"), "{e}");
        let e = err("[pipeline.mine]\napp_order = \"tetris\"\nstrict_order = true\n");
        assert!(e.contains("pipeline.mine.strict_order"), "{e}");
        let e = err("[pipeline.drf]\napp_order = \"fifo\"\n");
        assert!(e.contains("pipeline.drf") && e.contains("built-in"), "{e}");
    }

    #[test]
    fn queue_policies_are_checked_against_the_queue_order() {
        let two = "[[queue]]\nname = \"a\"\ncapacity = 0.5\n[[queue]]\nname = \"b\"\ncapacity = 0.5\npolicy = \"las\"\n";
        // drf between queues: each queue runs its own pipeline.
        let c = Config::parse(&format!("[scheduler]\npolicy = \"drf\"\n{two}")).unwrap();
        assert_eq!((c.queue_policy(0), c.queue_policy(1)), ("drf", "las"));
        // fifo implies a flat order: one order for all apps cannot mix pipelines.
        let e = err(&format!("[scheduler]\npolicy = \"fifo\"\n{two}"));
        assert!(e.contains("queue[1].policy") && e.contains("las") && e.contains("queue_order"), "{e}");
        // ...unless the operator picks a queue order.
        Config::parse(&format!("[scheduler]\npolicy = \"fifo\"\nqueue_order = \"capacity\"\n{two}")).unwrap();
        let e = err("[[queue]]\nname = \"a\"\npolicy = \"nope\"\n");
        assert!(e.contains("queue[0].policy") && e.contains("nope") && e.contains("composed"), "{e}");
        let e = err("[scheduler]\nqueue_order = \"round-robin\"\n");
        assert!(e.contains("scheduler.queue_order") && e.contains("round-robin"), "{e}");
    }

    #[test]
    fn a_pipeline_may_set_its_own_dress_keys() {
        let c = Config::parse("[dress]\ntheta = 0.2\n[pipeline.mine]\nreserve = \"dress\"\ndress = { delta_min = 0.05 }\n").unwrap();
        let d = c.pipeline("mine").unwrap().dress_config(&c.dress, "pipeline.mine").unwrap();
        assert_eq!((d.theta, d.delta_min), (0.2, 0.05), "global theta, own delta_min");
        // The composed default's floor switch does not leak into `dress`.
        let composed = c.pipeline("composed").unwrap().dress_config(&c.dress, "composed").unwrap();
        assert!(composed.small_borrows_free && !c.pipeline("dress").unwrap().dress_config(&c.dress, "dress").unwrap().small_borrows_free);
        let e = err("[pipeline.mine]\nreserve = \"dress\"\ndress = { thetta = 0.2 }\n");
        assert!(e.contains("pipeline.mine.dress") && e.contains("thetta"), "{e}");
        let e = err("[pipeline.mine]\nreserve = \"dress\"\ndress = { theta = 2.0 }\n");
        assert!(e.contains("pipeline.mine.dress.theta"), "{e}");
        let e = err("[pipeline.mine]\ndress = { theta = 0.2 }\n");
        assert!(e.contains("pipeline.mine.dress") && e.contains("not dress"), "{e}");
    }

    #[test]
    fn a_pipeline_may_set_its_own_carbyne_keys() {
        let text = "[carbyne]\nhorizon_ms = 500\n[pipeline.half]\nestimate = \"tasks\"\nclassify = [\"carbyne\"]\nleftover = \"carbyne\"\ncarbyne = { p_altruism = 0.5 }\n";
        let c = Config::parse(text).unwrap();
        let k = c.pipeline("half").unwrap().carbyne_config(&c.carbyne, "pipeline.half").unwrap();
        assert_eq!((k.p_altruism, k.horizon_ms), (0.5, 500), "own p_altruism, global horizon");
        let d = c.pipeline("half").unwrap().describe();
        assert!(d.contains("classify=[carbyne] filter=[constraints] leftover=carbyne carbyne{p_altruism=0.5}"), "{d}");
        let e =
            err("[pipeline.x]\nestimate = \"tasks\"\nclassify = [\"carbyne\"]\nleftover = \"carbyne\"\ncarbyne = { p_altruism = 2.0 }\n");
        assert!(e.contains("pipeline.x.carbyne.p_altruism") && e.contains('2'), "{e}");
        let e =
            err("[pipeline.x]\nestimate = \"tasks\"\nclassify = [\"carbyne\"]\nleftover = \"carbyne\"\ncarbyne = { p_altruismm = 0.2 }\n");
        assert!(e.contains("pipeline.x.carbyne") && e.contains("p_altruismm"), "{e}");
        let e = err("[pipeline.x]\ncarbyne = { p_altruism = 0.2 }\n");
        assert!(e.contains("pipeline.x.carbyne") && e.contains("neither"), "{e}");
        // Carbyne plans with per-stage task runtimes: only `tasks` learns them.
        let e = err("[pipeline.x]\nestimate = \"history\"\nclassify = [\"carbyne\"]\nleftover = \"carbyne\"\n");
        assert!(e.contains("pipeline.x.estimate") && e.contains("history") && e.contains("tasks"), "{e}");
        // ALTRUISTIC asks need a leftover phase.
        let e = err("[pipeline.x]\nestimate = \"tasks\"\nclassify = [\"carbyne\"]\n");
        assert!(e.contains("pipeline.x.leftover"), "{e}");
    }

    #[test]
    fn operator_pipelines_are_named_policies() {
        let c = Config::parse(
            "[scheduler]\npolicy = \"mine\"\n[pipeline.mine]\nestimate = \"history\"\nreserve = \"dress\"\napp_order = \"las\"\npool_order = { small = \"srtf\" }\n",
        )
        .unwrap();
        assert_eq!(c.queue_order(), "drf");
        let d = c.describe();
        assert!(d.contains("policy mine (default): estimate=history reserve=dress app_order=las pool_order.small=srtf"), "{d}");
    }
}
