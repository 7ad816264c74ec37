//! `shepherd compare`: several policies on the same workload, factors of
//! improvement over a baseline; with `--seeds N`, over N generated workloads.

use crate::workload_args::WorkloadArgs;
use shepherd::sim::experiment::Experiment;
use std::collections::HashMap;
use std::path::PathBuf;

fn policy_list(p: &str) -> Vec<String> {
    p.split(',').map(|s| s.trim().to_string()).collect()
}

pub fn compare(
    w: &WorkloadArgs,
    policies: &str,
    baseline: &str,
    out: Option<PathBuf>,
    seeds: Option<u64>,
    threads: usize,
) -> Result<(), String> {
    if threads == 0 {
        return Err("--threads 0: at least one simulation must run at a time".into());
    }
    if let Some(n) = seeds {
        if out.is_some() {
            return Err("--seeds needs --generate KIND (and no --trace or --out)".into());
        }
        return compare_seeds(w, policies, baseline, n, threads);
    }
    let exp = w.experiment(None)?;
    let jobs = exp.trace.jobs.len();
    let tasks = exp.trace.task_count();
    println!(
        "workload: {jobs} jobs, {tasks} tasks on {} nodes ({} MB, {} vcores each)\n",
        exp.cluster.nodes, exp.cluster.memory_mb, exp.cluster.vcores
    );
    let cmp =
        Experiment::compare_each(std::slice::from_ref(&exp), &policy_list(policies), baseline, threads)?.pop().expect("one comparison");
    print!("{}", cmp.text());
    if let Some(dir) = out {
        cmp.write(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        println!("wrote {}/comparison.json, factors.csv, speedups.csv, jct_cdf.svg and one directory per policy", dir.display());
    }
    Ok(())
}

/// `compare --seeds N`: the same comparison on the generator's workloads of
/// seeds FIRST .. FIRST + N − 1, summarized per (policy, category) row.
fn compare_seeds(w: &WorkloadArgs, policies: &str, baseline: &str, n: u64, threads: usize) -> Result<(), String> {
    if n == 0 {
        return Err("--seeds needs a positive count".into());
    }
    if w.trace.is_some() || w.generate.is_none() {
        return Err("--seeds needs --generate KIND (and no --trace or --out)".into());
    }
    let first = w.seed.unwrap_or(1);
    let policies = policy_list(policies);
    let (mut per_seed, mut ideal, mut errors) = (Vec::new(), Vec::new(), Vec::new());
    // Jain's index (mean over the windows) per policy and seed, and its
    // difference from the baseline's on the same workload.
    let mut jain: Vec<(String, Vec<f64>, Vec<f64>)> = Vec::new();
    let exps =
        (first..first + n).map(|seed| WorkloadArgs { seed: Some(seed), ..w.clone() }.experiment(None)).collect::<Result<Vec<_>, _>>()?;
    println!(
        "workload: {} on {} nodes ({} MB, {} vcores each), seeds {first}..{}\n",
        w.generate.as_deref().unwrap_or(""),
        exps[0].cluster.nodes,
        exps[0].cluster.memory_mb,
        exps[0].cluster.vcores,
        first + n - 1
    );
    // Every seed's runs in one pool: a slow policy's runs overlap the
    // others' across seeds.
    let comparisons = Experiment::compare_each(&exps, &policies, baseline, threads)?;
    for (exp, cmp) in exps.iter().zip(comparisons) {
        let base_jain = cmp.runs.iter().find(|r| r.summary.policy == baseline).map(|r| r.summary.fairness.mean);
        for run in &cmp.runs {
            let p = &run.summary.policy;
            if !jain.iter().any(|(q, _, _)| q == p) {
                jain.push((p.clone(), Vec::new(), Vec::new()));
            }
            let Some((_, values, diffs)) = jain.iter_mut().find(|(q, _, _)| q == p) else { continue };
            values.push(run.summary.fairness.mean);
            if let Some(b) = base_jain {
                diffs.push(run.summary.fairness.mean - b);
            }
        }
        let critical: HashMap<String, i64> = exp.trace.jobs.iter().map(|j| (j.id.clone(), j.critical_path_ms())).collect();
        ideal.push(shepherd::metrics::compare::ideal_factors(&cmp.runs[0].jobs, &critical));
        for run in &cmp.runs {
            errors.push(shepherd::metrics::compare::seed_errors(&run.summary.policy, &run.jobs));
        }
        per_seed.push(cmp.factors);
    }
    let rows = shepherd::metrics::compare::over_seeds(&per_seed, &ideal);
    let seeds = format!("{n} seeds ({first}..{})", first + n - 1);
    print!("{}", shepherd::report::table::seeds(baseline, &seeds, &rows));
    print!("{}", shepherd::report::table::jain_over_seeds(baseline, &seeds, &jain));
    let errors = shepherd::metrics::compare::errors_over_seeds(&errors);
    if !errors.is_empty() {
        print!("\n{}", shepherd::report::table::seed_errors(&seeds, &errors));
    }
    Ok(())
}
