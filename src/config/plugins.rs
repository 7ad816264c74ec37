//! The plugin registry: one entry per plugin — its name, the extension
//! points it serves, one line about it, and how its typed configuration
//! ([`PluginConfig`]) is taken from a pipeline's sections. The names each
//! point accepts, `check-config`'s "unknown plugin" messages and the plugin
//! table of `docs/policies/pipelines.md` ([`markdown_table`]) are derived
//! from it.
//!
//! The implementations are `crate::policy`'s: `policy::registry` builds one
//! from a [`PluginConfig`] with one `match` arm per variant, so a variant an
//! entry makes without an implementation does not compile. The table lives
//! on the config side because the config validates names when it is parsed
//! and `crate::policy` depends on the config, not the reverse.
//!
//! One entry may serve several points (Carbyne: classify and leftover); it
//! makes a configuration per point, and the pipeline holds what is built
//! from each at its point.

use super::{AppsConfig, CarbyneConfig, Config, DressConfig, GsConfig, HistoryConfig, RoseConfig, SLearnConfig};

/// The extension points of the engine's pass, in the order it calls them
/// (`crate::policy` shows the pass).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Point {
    Estimate,
    Reserve,
    QueueOrder,
    AppOrder,
    Classify,
    Filter,
    Leftover,
    Oversubscribe,
}

impl Point {
    pub const ALL: [Point; 8] = [
        Point::Estimate,
        Point::Reserve,
        Point::QueueOrder,
        Point::AppOrder,
        Point::Classify,
        Point::Filter,
        Point::Leftover,
        Point::Oversubscribe,
    ];

    /// The key that names the point's plugins: a `[pipeline.NAME]` key, or
    /// `queue_order` (`scheduler.queue_order`, the root's choice).
    pub fn key(self) -> &'static str {
        match self {
            Point::Estimate => "estimate",
            Point::Reserve => "reserve",
            Point::QueueOrder => "queue_order",
            Point::AppOrder => "app_order",
            Point::Classify => "classify",
            Point::Filter => "filter",
            Point::Leftover => "leftover",
            Point::Oversubscribe => "oversubscribe",
        }
    }

    /// What the point decides, for the docs' table.
    pub fn decides(self) -> &'static str {
        match self {
            Point::Estimate => {
                "an app's size and remaining work (container-ms) with a confidence, which size orders read; shared by every \
                 pipeline that names it (it sees those pipelines' apps only), so it keeps its history when a queue switches policy"
            }
            Point::Reserve => "a partition of the queue's share into pools: may the app grow in its pool",
            Point::QueueOrder => {
                "how queues share the cluster: `scheduler.queue_order`, the root's choice (`auto` = what `scheduler.policy` implies)"
            }
            Point::AppOrder => "which app of the queue is served next; `pool_order` names one per pool of the reserve",
            Point::Classify => {
                "which outstanding asks are DEFAULT now, a list: an ask is DEFAULT when every listed classifier agrees \
                 (`[]`: all); the others wait for the leftover phase"
            }
            Point::Filter => {
                "may the ask go on this node, a list checked in order after the engine's own checks (fit, locality, node label, \
                 queue maximum, a recent refusal)"
            }
            Point::Leftover => "after the main phase, which of the asks `classify` held back get what is left of the node, in this order",
            Point::Oversubscribe => {
                "after the leftover phase, speculative (OPPORTUNISTIC) containers beyond the allocated view for this pipeline's apps"
            }
        }
    }
}

/// A plugin's configuration, typed: one variant per implementation, with
/// the section (global, with the pipeline's overrides) it is built from.
/// With the plugin's name it is the plugin's [`Identity`].
#[derive(Debug, Clone, PartialEq)]
pub enum PluginConfig {
    NoEstimate,
    History(HistoryConfig),
    HistoryPoint(HistoryConfig),
    Oracle,
    /// The `[apps]` section in the `tasks`, `slearn` and `carbyne`
    /// variants: which app types' containers they learn nothing from.
    Tasks(AppsConfig),
    SLearn(SLearnConfig, AppsConfig),
    NoReserve,
    Dress(DressConfig),
    FlatQueues,
    DrfQueues,
    CapacityQueues,
    Fifo,
    Drf,
    Sjf,
    Srtf,
    Las,
    Tetris,
    Gs(GsConfig),
    /// Carbyne's classifier: its shares are the queue's under a queue
    /// order and the cluster's under `flat`, so the order is part of it.
    CarbyneClassify(CarbyneConfig, AppsConfig, String),
    Pilots,
    Constraints,
    NoLeftover,
    CarbyneLeftover(CarbyneConfig, AppsConfig),
    ArrivalOrder,
    NoOversubscribe,
    Rose(RoseConfig),
}

/// What a plugin was built from. On `-refreshQueues` a plugin whose
/// identity equals the one the new config gives is kept with what it
/// learned; any other is built fresh.
#[derive(Debug, Clone, PartialEq)]
pub struct Identity {
    pub name: &'static str,
    pub config: PluginConfig,
}

/// The sections a pipeline's plugins are configured from: the global ones
/// with the pipeline's own keys over them (`PipelineSpec::dress_config`
/// and the like), and the whole config for the rest (`[history]`, `[gs]`,
/// the queue order).
pub struct Sections<'a> {
    pub config: &'a Config,
    pub dress: DressConfig,
    pub slearn: SLearnConfig,
    pub carbyne: CarbyneConfig,
    pub rose: RoseConfig,
}

impl<'a> Sections<'a> {
    /// The global sections, for plugins outside any pipeline (the queue order).
    pub fn global(config: &'a Config) -> Sections<'a> {
        Sections {
            config,
            dress: config.dress.clone(),
            slearn: config.slearn.clone(),
            carbyne: config.carbyne.clone(),
            rose: config.rose.clone(),
        }
    }
}

/// One plugin.
pub struct PluginEntry {
    /// The name a pipeline gives it.
    pub name: &'static str,
    /// The points it may be named at.
    pub points: &'static [Point],
    /// One line for the docs' table (Markdown; links relative to `docs/policies/`).
    pub about: &'static str,
    /// Its configuration at `point` in a pipeline with these sections.
    pub configure: fn(Point, &Sections) -> PluginConfig,
}

impl PluginEntry {
    /// Its identity at `point` in a pipeline with these sections.
    pub fn identity(&self, point: Point, s: &Sections) -> Identity {
        Identity { name: self.name, config: (self.configure)(point, s) }
    }
}

use PluginConfig as C;
use Point as P;

const fn entry(
    name: &'static str,
    points: &'static [Point],
    about: &'static str,
    configure: fn(Point, &Sections) -> PluginConfig,
) -> PluginEntry {
    PluginEntry { name, points, about, configure }
}

/// Every plugin. Per point, the order here is the order names are listed in
/// (messages, docs).
pub const PLUGINS: &[PluginEntry] = &[
    entry("none", &[P::Estimate], "knows nothing (size orders put every app last)", |_, _| C::NoEstimate),
    entry(
        "history",
        &[P::Estimate],
        "3Sigma-style: the distribution of sizes of past runs of the same user + job name (`[history]`)",
        |_, s| C::History(s.config.history.clone()),
    ),
    entry("history-point", &[P::Estimate], "one quantile of `history`'s distribution as the size (`[history] point_quantile`)", |_, s| {
        C::HistoryPoint(s.config.history.clone())
    }),
    entry("oracle", &[P::Estimate], "the true size, from the `shepherd.oracle.work_ms` application tag (the simulator sets it)", |_, _| {
        C::Oracle
    }),
    entry(
        "tasks",
        &[P::Estimate],
        "outstanding asks × task runtime learned from the app's own finished containers, else the job's past runs, else all jobs",
        |_, s| C::Tasks(s.config.apps.clone()),
    ),
    entry(
        "slearn",
        &[P::Estimate],
        "SLearn's estimate: the mean runtime of the app's sampled pilot tasks × its first stage's width ([SLearn](slearn.md); `[slearn]`, or \
         per pipeline `slearn = { ... }`)",
        |_, s| C::SLearn(s.slearn.clone(), s.config.apps.clone()),
    ),
    entry("none", &[P::Reserve], "no partition", |_, _| C::NoReserve),
    entry(
        "dress",
        &[P::Reserve],
        "DRESS's two pools (small, large) with the dynamic reserve δ for small-demand apps ([DRESS](dress.md); `[dress]`, or \
         per pipeline `dress = { ... }`)",
        |_, s| C::Dress(s.dress.clone()),
    ),
    entry("flat", &[P::QueueOrder], "no queue level (one pipeline orders the apps of every queue together)", |_, _| C::FlatQueues),
    entry("drf", &[P::QueueOrder], "hierarchical DRF (the queue with the lowest dominant share ÷ weight first)", |_, _| C::DrfQueues),
    entry(
        "capacity",
        &[P::QueueOrder],
        "the CapacityScheduler's order (the queue with the lowest used ÷ guaranteed share first)",
        |_, _| C::CapacityQueues,
    ),
    entry("fifo", &[P::AppOrder], "YARN priority, then arrival", |_, _| C::Fifo),
    entry("drf", &[P::AppOrder], "lowest dominant share first", |_, _| C::Drf),
    entry("sjf", &[P::AppOrder], "smallest estimated size first", |_, _| C::Sjf),
    entry("srtf", &[P::AppOrder], "smallest estimated remaining work first", |_, _| C::Srtf),
    entry("las", &[P::AppOrder], "least attained service first", |_, _| C::Las),
    entry("tetris", &[P::AppOrder], "best alignment of the app's ask with the node's free resources (packing)", |_, _| C::Tetris),
    entry(
        "gs",
        &[P::AppOrder],
        "SLearn's GS: priority queues by estimated size, FIFO inside, weighted sharing across them ([SLearn](slearn.md); `[gs]`)",
        |_, s| C::Gs(s.config.gs.clone()),
    ),
    entry("none", &[P::Leftover], "no leftover phase", |_, _| C::NoLeftover),
    entry(
        "carbyne",
        &[P::Classify, P::Leftover],
        "Carbyne ([Carbyne](carbyne.md); `[carbyne]`, or per pipeline `carbyne = { ... }`): classify splits each app's asks by \
         reverse packing from its earliest completion into DEFAULT and ALTRUISTIC; leftover serves them least remaining work \
         first, then packed",
        |point, s| match point {
            P::Classify => C::CarbyneClassify(s.carbyne.clone(), s.config.apps.clone(), s.config.queue_order().to_string()),
            _ => C::CarbyneLeftover(s.carbyne.clone(), s.config.apps.clone()),
        },
    ),
    entry(
        "pilots",
        &[P::Classify],
        "while SLearn samples an app, only its pilot tasks are DEFAULT (with `estimate = \"slearn\"`)",
        |_, _| C::Pilots,
    ),
    entry(
        "constraints",
        &[P::Filter],
        "YARN placement constraints (node attributes, partition, allocation-tag affinity, anti-affinity and cardinality) \
         matched as bit-vectors ([Megha](megha.md)); in every pipeline unless its `filter` list leaves it out, and then that \
         pipeline refuses constrained asks rather than ignore their constraints",
        |_, _| C::Constraints,
    ),
    entry("fifo", &[P::Leftover], "arrival order (SLearn's work conservation)", |_, _| C::ArrivalOrder),
    entry("none", &[P::Oversubscribe], "no speculative containers", |_, _| C::NoOversubscribe),
    entry(
        "rose",
        &[P::Oversubscribe],
        "ROSE's speculative containers on nodes whose measured load leaves room under the bound, chosen by LLA, TBAMR and \
         multi-phase filtering, taken back newest first when measured use crosses the eviction bound ([ROSE](rose.md); \
         `[rose]`, or per pipeline `rose = { ... }`)",
        |_, s| C::Rose(s.rose.clone()),
    ),
];

/// The plugins `point` accepts, in table order.
pub fn at(point: Point) -> impl Iterator<Item = &'static PluginEntry> {
    PLUGINS.iter().filter(move |e| e.points.contains(&point))
}

/// The names `point` accepts, in table order.
pub fn names(point: Point) -> Vec<&'static str> {
    at(point).map(|e| e.name).collect()
}

/// The plugin `name` at `point`.
pub fn find(point: Point, name: &str) -> Option<&'static PluginEntry> {
    at(point).find(|e| e.name == name)
}

/// The docs' plugin table (`docs/policies/pipelines.md`, between its
/// `plugin table` markers): a row per point, its plugins with their line.
pub fn markdown_table() -> String {
    let mut out = String::from("| point | plugins | what it decides |\n|---|---|---|\n");
    for point in Point::ALL {
        let plugins: Vec<String> = at(point).map(|e| format!("`{}`: {}", e.name, e.about)).collect();
        out.push_str(&format!("| `{}` | {} | {} |\n", point.key(), plugins.join("<br>"), point.decides()));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_name_means_one_plugin_at_each_point() {
        for point in Point::ALL {
            let names = names(point);
            assert!(!names.is_empty(), "{point:?}");
            for (i, n) in names.iter().enumerate() {
                assert!(!names[..i].contains(n), "{n} twice at {point:?}");
            }
        }
        for e in PLUGINS {
            assert!(!e.points.is_empty() && !e.about.is_empty() && !e.about.contains('|'), "{}", e.name);
        }
    }

    #[test]
    fn names_keep_their_order() {
        assert_eq!(names(Point::Estimate), ["none", "history", "history-point", "oracle", "tasks", "slearn"]);
        assert_eq!(names(Point::Reserve), ["none", "dress"]);
        assert_eq!(names(Point::QueueOrder), ["flat", "drf", "capacity"]);
        assert_eq!(names(Point::AppOrder), ["fifo", "drf", "sjf", "srtf", "las", "tetris", "gs"]);
        assert_eq!(names(Point::Classify), ["carbyne", "pilots"]);
        assert_eq!(names(Point::Filter), ["constraints"]);
        assert_eq!(names(Point::Leftover), ["none", "carbyne", "fifo"]);
        assert_eq!(names(Point::Oversubscribe), ["none", "rose"]);
    }

    /// `docs/policies/pipelines.md` shows the table this registry makes;
    /// regenerate it with `shepherd check-config --plugins`.
    #[test]
    fn the_docs_show_the_registry() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/docs/policies/pipelines.md");
        let doc = std::fs::read_to_string(path).expect("docs/policies/pipelines.md");
        let (_, rest) = doc.split_once(TABLE_BEGIN).expect("the table's begin marker");
        let (table, _) = rest.split_once(TABLE_END).expect("the table's end marker");
        assert_eq!(
            table.trim(),
            markdown_table().trim(),
            "docs/policies/pipelines.md's plugin table differs from the registry: replace it with the output of \
             `shepherd check-config --plugins`"
        );
    }

    const TABLE_BEGIN: &str = "<!-- plugin table: generated by `shepherd check-config --plugins` from src/config/plugins.rs -->";
    const TABLE_END: &str = "<!-- end of the plugin table -->";
}
