//! `[apps]`: what the engine knows of applications by their YARN
//! application type, the same for every policy that reads it.
//!
//! `executor_app_types` names the types whose containers are executors, not
//! tasks: a Spark executor runs many tasks and lives as long as dynamic
//! allocation keeps it, a YARN service's component as long as the service.
//! A container's lifetime there says nothing of how long a task runs or how
//! big the job is, so SLearn does not sample such an app, Carbyne makes it
//! no plan, and the `tasks` estimator learns no task runtime from its
//! containers. The name is the operator's word for them (Spark's
//! "executors", as in `spark.dynamicAllocation.*`); one setting, since the
//! three readers used to have a key each that had to be kept equal.
//!
//! It was `[slearn] no_sampling_app_types` and `[carbyne]
//! no_runtime_app_types`; [`reject_moved_keys`] turns either into an error
//! that says where it went rather than the TOML's "unknown field".

use super::{bad, ConfigError};
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct AppsConfig {
    /// YARN application types whose containers are executors or service
    /// components rather than one task each, compared case-insensitively
    /// with the application's type (`yarn application -list` shows it).
    /// Empty = every container is a task.
    pub executor_app_types: Vec<String>,
}

impl Default for AppsConfig {
    fn default() -> Self {
        AppsConfig { executor_app_types: vec!["SPARK".into(), "yarn-service".into()] }
    }
}

impl AppsConfig {
    pub fn validate(&self) -> Result<(), ConfigError> {
        // YARN gives an app submitted without a type "YARN", never "": an
        // empty entry is a typo that would silently match nothing.
        if let Some(t) = self.executor_app_types.iter().find(|t| t.trim().is_empty()) {
            return Err(bad("apps.executor_app_types", format!("{t:?}"), "an application type must not be empty"));
        }
        Ok(())
    }

    /// Whether `app_type`'s containers are executors, not tasks.
    pub fn runs_executors(&self, app_type: &str) -> bool {
        self.executor_app_types.iter().any(|t| t.eq_ignore_ascii_case(app_type))
    }
}

/// Keys that moved to `[apps] executor_app_types`: (section, key), also
/// as a pipeline's own `slearn = { ... }` / `carbyne = { ... }` key.
const MOVED: &[(&str, &str)] = &[("slearn", "no_sampling_app_types"), ("carbyne", "no_runtime_app_types")];

/// An error naming a moved key of `doc` (the whole config file) and where
/// it went. A pipeline cannot set it either: which app types run executors
/// is a fact about the cluster's apps, not a policy's choice.
pub(super) fn reject_moved_keys(doc: &toml::Table) -> Result<(), ConfigError> {
    let moved = |at: String, value: &toml::Value| {
        bad(
            &at,
            value,
            "this key was replaced by `[apps] executor_app_types`, which SLearn, Carbyne and the tasks estimator all \
             read; move the list there (and set it once)",
        )
    };
    for (section, key) in MOVED {
        if let Some(v) = doc.get(*section).and_then(|s| s.get(*key)) {
            return Err(moved(format!("{section}.{key}"), v));
        }
        let pipelines = doc.get("pipeline").and_then(|p| p.as_table()).into_iter().flatten();
        for (name, p) in pipelines {
            if let Some(v) = p.get(*section).and_then(|s| s.get(*key)) {
                return Err(moved(format!("pipeline.{name}.{section}.{key}"), v));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use crate::config::Config;

    #[test]
    fn defaults_are_spark_and_yarn_services() {
        let a = Config::parse("").unwrap().apps;
        assert!(a.runs_executors("SPARK") && a.runs_executors("spark") && a.runs_executors("YARN-SERVICE"));
        assert!(!a.runs_executors("MAPREDUCE") && !a.runs_executors("TEZ"));
        let a = Config::parse("[apps]\nexecutor_app_types = []\n").unwrap().apps;
        assert!(!a.runs_executors("SPARK"));
        let e = Config::parse("[apps]\nexecutor_app_types = [\"SPARK\", \" \"]\n").unwrap_err().to_string();
        assert!(e.contains("apps.executor_app_types") && e.contains("\" \""), "{e}");
    }

    /// The two keys `[apps] executor_app_types` replaced fail with an error
    /// that names the old key, its value and the new key.
    #[test]
    fn the_old_keys_are_rejected_naming_the_new_one() {
        for (text, old) in [
            ("[slearn]\nno_sampling_app_types = [\"SPARK\"]\n", "slearn.no_sampling_app_types"),
            ("[carbyne]\nno_runtime_app_types = []\n", "carbyne.no_runtime_app_types"),
            (
                "[pipeline.s]\nestimate = \"slearn\"\nslearn = { no_sampling_app_types = [\"SPARK\"] }\n",
                "pipeline.s.slearn.no_sampling_app_types",
            ),
            (
                "[pipeline.c]\nestimate = \"tasks\"\nclassify = [\"carbyne\"]\ncarbyne = { no_runtime_app_types = [] }\n",
                "pipeline.c.carbyne.no_runtime_app_types",
            ),
        ] {
            let e = Config::parse(text).unwrap_err().to_string();
            assert!(e.contains(&format!("key `{old}`")), "{text}: {e}");
            assert!(e.contains("[apps] executor_app_types"), "{text}: {e}");
            assert!(e.contains("SPARK") || e.contains("[]"), "the value: {e}");
        }
    }
}
