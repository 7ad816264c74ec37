//! `shepherd simulate`: one policy on a workload, its metrics tables and, with
//! `--out`, its files.

use crate::workload_args::WorkloadArgs;
use std::path::PathBuf;

pub fn simulate(w: &WorkloadArgs, policy: Option<String>, out_dir: Option<PathBuf>) -> Result<(), String> {
    let exp = w.experiment(None)?;
    let policy = policy.unwrap_or_else(|| exp.config.scheduler.policy.clone());
    let out = exp.run(&policy)?;
    print!("{}", shepherd::report::table::absolute(std::slice::from_ref(&out.summary)));
    print!("{}", shepherd::report::table::oversubscription(std::slice::from_ref(&out.summary)));
    print!("{}", shepherd::report::table::allocation_latency(std::slice::from_ref(&out.summary)));
    if let Some(dir) = out_dir {
        shepherd::report::files::write_run(&dir, &out).map_err(|e| format!("{}: {e}", dir.display()))?;
        println!("wrote {}/metrics.json, jobs.csv, utilization.csv, fairness.csv, jct_cdf.svg, utilization.svg", dir.display());
    }
    Ok(())
}
