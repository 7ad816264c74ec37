//! Workloads the simulator replays: Shepherd's own trace format ([`trace`]),
//! readers for other tools' formats ([`sls`], [`swim`]) and seeded generators
//! calibrated to the papers ([`gen`]). Every reader produces a [`Trace`].

pub mod gen;
pub mod rng;
pub mod sls;
pub mod swim;
pub mod trace;

pub use trace::{ClusterSpec, Job, Stage, Task, Trace};

/// Read a trace file, choosing the reader by extension / content:
/// `.swim`/`.tsv` → SWIM, `.sls.json` or a JSON object with `job.tasks` → SLS,
/// other JSON → Shepherd's own format. For `X.sls.json`, an SLS nodes file
/// `X.nodes.json` beside it, if there is one, is the trace's cluster.
pub fn load(path: &std::path::Path) -> Result<Trace, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
    let err = |e: String| format!("{}: {e}", path.display());
    if name.ends_with(".swim") || name.ends_with(".tsv") {
        let rows = swim::parse(&text).map_err(err)?;
        return Ok(swim::to_trace(&rows, &swim::SwimModel::default()));
    }
    if name.ends_with(".sls.json") || text.contains("\"job.tasks\"") {
        let jobs = sls::parse(&text).map_err(err)?;
        let mut trace = sls::to_trace(&jobs);
        if let Some(stem) = name.strip_suffix(".sls.json") {
            let nodes = path.with_file_name(format!("{stem}.nodes.json"));
            if nodes.exists() {
                let text = std::fs::read_to_string(&nodes).map_err(|e| format!("cannot read {}: {e}", nodes.display()))?;
                trace.cluster = Some(sls::parse_nodes(&text).map_err(|e| format!("{}: {e}", nodes.display()))?);
            }
        }
        return Ok(trace);
    }
    Trace::from_json(&text).map_err(err)
}
