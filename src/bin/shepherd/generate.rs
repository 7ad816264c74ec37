//! `shepherd generate`: a generated or converted workload written as a
//! Shepherd trace, or as Hadoop SLS input.

use crate::workload_args::WorkloadArgs;
use shepherd::workload::gen::KINDS;

/// A generated workload (--generate) or a converted one (--trace) as a Shepherd trace, or for `--out X.sls.json`
/// as Hadoop SLS jobs plus the SLS nodes file `X.nodes.json` beside it. The cluster is the trace's with the
/// cluster flags applied as `simulate` applies them.
pub fn generate(w: &WorkloadArgs, out: &std::path::Path) -> Result<(), String> {
    if w.trace.is_none() && w.generate.is_none() {
        return Err(format!("generate needs --generate KIND ({}) or --trace FILE", KINDS.join(", ")));
    }
    let exp = w.experiment(None)?;
    let mut trace = exp.trace;
    // Without a cluster of its own a trace gets one only from --nodes (the simulator's default is no cluster to write).
    if trace.cluster.is_some() || (w.trace.is_some() && w.nodes.is_some()) {
        trace.cluster = Some(exp.cluster);
    }
    let load = |t: &shepherd::workload::Trace| match &t.cluster {
        Some(c) => {
            let spread = t.jobs.iter().any(|j| j.submit_ms != t.jobs[0].submit_ms);
            let load = if spread {
                format!("offered load {:.2}", shepherd::workload::gen::offered_load(&t.jobs, c))
            } else {
                "all at once".into()
            };
            format!("; {load} on {} nodes ({} MB, {} vcores each)", c.nodes, c.memory_mb, c.vcores)
        }
        None => String::new(),
    };
    let write = |p: &std::path::Path, text: String| std::fs::write(p, text).map_err(|e| format!("{}: {e}", p.display()));
    let name = out.file_name().and_then(|n| n.to_str()).unwrap_or("");
    let Some(stem) = name.strip_suffix(".sls.json") else {
        write(out, trace.to_json())?;
        println!("wrote {}: {} jobs, {} tasks{}", out.display(), trace.jobs.len(), trace.task_count(), load(&trace));
        return Ok(());
    };
    let Some(cluster) = &trace.cluster else {
        return Err(format!(
            "{}: SLS needs a nodes file, but the trace names no cluster; give --nodes N (and --node-memory-mb, --node-vcores)",
            out.display()
        ));
    };
    let jobs = shepherd::workload::sls::from_trace(&trace)?;
    let nodes = out.with_file_name(format!("{stem}.nodes.json"));
    write(out, shepherd::workload::sls::write(&jobs))?;
    write(&nodes, shepherd::workload::sls::write_nodes(cluster))?;
    println!("wrote {}: {} jobs, {} tasks{}", out.display(), trace.jobs.len(), trace.task_count(), load(&trace));
    println!("wrote {}: {} nodes in {} racks", nodes.display(), cluster.nodes, cluster.nodes.div_ceil(cluster.rack_size.max(1)));
    Ok(())
}
