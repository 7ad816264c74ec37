//! The DAG hint: an application tag in which an application that knows its
//! DAG (Tez, Spark, a workflow engine) tells Carbyne its stages, beyond
//! what YARN's untyped asks say. Carbyne's paper gets the DAG from its
//! modified Tez AM (§4.2); this tag is how an unmodified YARN RPC carries
//! it.
//!
//! ```text
//! shepherd.dag=<stage>;<stage>;...
//! stage = <priority>:<tasks>[:<task_ms>[:<parents>[:<memory_mb>x<vcores>]]]
//! ```
//!
//! * `priority` — the YARN priority of the scheduler key the stage's tasks
//!   are asked under (how an ask is matched to its stage);
//! * `tasks` — the stage's number of tasks;
//! * `task_ms` — expected runtime of one task, or `-` (then learned from
//!   the app's finished containers of that key);
//! * `parents` — indices (0-based, in this list) of the stages this one
//!   waits for, joined by `+`, or `-` for none;
//! * `memory_mb`x`vcores` — one task's demand, needed only for stages that
//!   have not asked yet (default: the largest task the app asks for or
//!   runs, type by type).
//!
//! YARN lower-cases tags and by default accepts at most 10 tags of at most
//! 100 characters (`yarn.resourcemanager.application.max-tag.length`), so a
//! long DAG continues in `shepherd.dag.1=...`, `shepherd.dag.2=...`; the
//! pieces are joined in suffix order. No commas: MapReduce and Tez split
//! `mapreduce.job.tags` / `tez.application.tags` on them.
//!
//! Example — a WordCount with 40 maps of ~9 s and 8 reduces of ~30 s:
//! `shepherd.dag=20:40:9000:-;10:8:30000:0`.

use crate::model::{App, Resources};

/// The tag's key; continuation pieces are `shepherd.dag.<n>`.
pub const DAG_TAG: &str = "shepherd.dag";

/// One stage of a hinted DAG.
#[derive(Debug, Clone, PartialEq)]
pub struct HintStage {
    pub priority: i32,
    pub tasks: i64,
    pub task_ms: Option<f64>,
    pub parents: Vec<usize>,
    pub demand: Option<Resources>,
}

/// The app's DAG hint: `None` without a `shepherd.dag` tag, `Some(Err)`
/// naming what is wrong with a malformed one (the app is then scheduled as
/// if it had none, and the state view says why).
pub fn of_app(app: &App) -> Option<Result<Vec<HintStage>, String>> {
    let mut pieces: Vec<(u32, &str)> = Vec::new();
    for t in &app.tags {
        let Some(rest) = t.strip_prefix(DAG_TAG) else { continue };
        if let Some(v) = rest.strip_prefix('=') {
            pieces.push((0, v));
        } else if let Some((n, v)) = rest.strip_prefix('.').and_then(|r| r.split_once('=')) {
            match n.parse::<u32>() {
                Ok(n) => pieces.push((n, v)),
                Err(_) => return Some(Err(format!("tag `{t}`: expected {DAG_TAG}.<n>=..."))),
            }
        }
    }
    if pieces.is_empty() {
        return None;
    }
    pieces.sort_by_key(|(n, _)| *n);
    let text: Vec<&str> = pieces.iter().map(|(_, v)| v.trim().trim_end_matches(';')).collect();
    Some(parse(&text.join(";")))
}

/// Parse the stage list (`shepherd.dag`'s value).
pub fn parse(text: &str) -> Result<Vec<HintStage>, String> {
    let mut out = Vec::new();
    for (i, s) in text.split(';').map(str::trim).filter(|s| !s.is_empty()).enumerate() {
        let f: Vec<&str> = s.split(':').collect();
        if f.len() < 2 || f.len() > 5 {
            return Err(format!("stage {i} `{s}`: expected priority:tasks[:task_ms[:parents[:MBxV]]]"));
        }
        let num = |what: &str, v: &str| v.parse::<i64>().map_err(|_| format!("stage {i} `{s}`: {what} `{v}` is not a whole number"));
        let priority = num("priority", f[0])? as i32;
        let tasks = num("tasks", f[1])?;
        if tasks < 0 {
            return Err(format!("stage {i} `{s}`: negative task count"));
        }
        let task_ms = match f.get(2).copied() {
            None | Some("-") | Some("") => None,
            Some(v) => match v.parse::<f64>() {
                Ok(ms) if ms >= 0.0 && ms.is_finite() => Some(ms),
                _ => return Err(format!("stage {i} `{s}`: task_ms `{v}` is not a duration in ms")),
            },
        };
        let parents = match f.get(3).copied() {
            None | Some("-") | Some("") => Vec::new(),
            Some(v) => {
                let mut ps = Vec::new();
                for p in v.split('+') {
                    let p = num("parent", p)?;
                    if p < 0 || p as usize >= i {
                        return Err(format!("stage {i} `{s}`: parent {p} must name an earlier stage"));
                    }
                    ps.push(p as usize);
                }
                ps
            }
        };
        let demand = match f.get(4).copied() {
            None | Some("-") | Some("") => None,
            Some(v) => {
                let (m, c) = v.split_once('x').ok_or_else(|| format!("stage {i} `{s}`: demand `{v}` is not <memory_mb>x<vcores>"))?;
                Some(Resources::new(num("memory", m)?, num("vcores", c)?))
            }
        };
        out.push(HintStage { priority, tasks, task_ms, parents, demand });
    }
    if out.is_empty() {
        return Err("no stages".into());
    }
    Ok(out)
}

/// The tag text for `stages` (what an AM, or the simulator, sends).
pub fn format(stages: &[HintStage]) -> String {
    let parts: Vec<String> = stages
        .iter()
        .map(|s| {
            let ms = s.task_ms.map_or("-".to_string(), |v| format!("{}", v.round() as i64));
            let parents =
                if s.parents.is_empty() { "-".to_string() } else { s.parents.iter().map(|p| p.to_string()).collect::<Vec<_>>().join("+") };
            match s.demand {
                Some(d) => format!("{}:{}:{}:{}:{}x{}", s.priority, s.tasks, ms, parents, d.memory_mb(), d.vcores()),
                None => format!("{}:{}:{}:{}", s.priority, s.tasks, ms, parents),
            }
        })
        .collect();
    format!("{DAG_TAG}={}", parts.join(";"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_documented_example_parses() {
        let s = parse("20:40:9000:-;10:8:30000:0").unwrap();
        assert_eq!(s.len(), 2);
        assert_eq!((s[0].priority, s[0].tasks, s[0].task_ms, s[0].parents.len()), (20, 40, Some(9000.0), 0));
        assert_eq!((s[1].priority, s[1].tasks, s[1].task_ms, s[1].parents.clone()), (10, 8, Some(30000.0), vec![0]));
        let round = format(&s);
        assert_eq!(round, "shepherd.dag=20:40:9000:-;10:8:30000:0");
    }

    #[test]
    fn optional_fields_and_continuations() {
        let s = parse("0:2:-;1:3;2:1:100:0+1:2048x2").unwrap();
        assert_eq!(s[0].task_ms, None);
        assert_eq!(s[2].parents, vec![0, 1]);
        assert_eq!(s[2].demand, Some(Resources::new(2048, 2)));
        let mut app = super::super::tests::bare_app(1, "TEZ");
        app.tags = vec!["shepherd.dag.1=1:3;2:1:100:0+1".into(), "other=1".into(), "shepherd.dag=0:2:-".into()];
        assert_eq!(of_app(&app).unwrap().unwrap().len(), 3);
        app.tags = vec!["other".into()];
        assert!(of_app(&app).is_none());
    }

    #[test]
    fn errors_name_the_stage() {
        for (text, what) in [
            ("20", "expected priority:tasks"),
            ("x:1", "priority `x`"),
            ("1:-2", "negative"),
            ("1:2:abc", "task_ms `abc`"),
            ("1:2:3:0", "parent 0 must name an earlier stage"),
            ("1:2;3:4:5:7", "parent 7"),
            ("1:2:3:-:2048", "<memory_mb>x<vcores>"),
            ("", "no stages"),
        ] {
            let e = parse(text).unwrap_err();
            assert!(e.contains(what), "{text}: {e}");
        }
    }
}
