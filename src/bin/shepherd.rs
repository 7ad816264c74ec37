//! `shepherd` command-line tool.
//!
//! Subcommands:
//! * `check-config FILE` — parse and validate a Shepherd config, print the
//!   effective policy and queues, exit non-zero with the offending key.
//! * `simulate` — replay a trace (or a generated workload) through the engine.
//! * `compare`  — run several policies on the same workload, print factors of improvement.
//! * `generate` — write a generated workload as a Shepherd trace file.
//! * `bench-sim` — simulator speed: events per second and peak memory.
//! * `bench-heartbeat` — engine decision time per node heartbeat (P50/P99/max, µs).

use shepherd::sim::experiment::{peak_rss_kib, Experiment, Source};
use shepherd::sim::SimOptions;
use shepherd::workload::gen::{GenParams, KINDS};
use shepherd::workload::ClusterSpec;
use std::collections::HashMap;
use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

const USAGE: &str = "usage:
  shepherd check-config FILE
  shepherd simulate (--trace FILE | --generate KIND) [--policy P] [--out DIR] [options]
  shepherd compare  (--trace FILE | --generate KIND) --policies P1,P2,.. [--baseline P] [--out DIR] [options]
  shepherd compare  --generate KIND --seeds N [--seed FIRST] --policies .. [--baseline P] [options]   (median [min, max] over seeds)
  shepherd generate --generate KIND --out FILE [generator options]
  shepherd bench-sim [--jobs 7000] [--tasks 650000] [--nodes 3000] [--policy drf] [options]
  shepherd bench-heartbeat [--nodes 1000] [--pending 10000] [--apps 500] [--heartbeats 20000] [--policy drf]
  shepherd yarn-report OUT [--baseline LABEL] [--require-success]
             (OUT/<label>/run-<k>/{jobs.json,samples.jsonl} from the YARN harness -> per-run metrics.json,
              jobs.csv; OUT/summary.json, summary.csv, jct-cdf.svg, wait-cdf.svg, utilization.svg;
              --require-success: exit non-zero if any job did not finish SUCCEEDED)

workload:   --trace FILE (Shepherd .json, SLS .sls.json, SWIM .swim/.tsv) | --generate KIND
generator:  --seed N --jobs N --tasks N --nodes N --load F --small-share F --offline
            --interval-ms N (fixed gap between submissions instead of Poisson arrivals)
cluster:    --nodes N --node-memory-mb N --node-vcores N (override the trace's cluster)
engine:     --config FILE (Shepherd TOML; --policy overrides scheduler.policy)
simulator:  --heartbeat-ms N --slowstart F --gang --usage-factor F --window-ms N --naive-heartbeats --no-progress
            --queue-by-category (submit each job to the queue named after its category)";

struct Args {
    flags: HashMap<String, String>,
}

impl Args {
    fn parse(raw: &[String]) -> Result<Args, String> {
        let mut flags = HashMap::new();
        let mut it = raw.iter().peekable();
        while let Some(a) = it.next() {
            let Some(key) = a.strip_prefix("--") else { return Err(format!("unexpected argument `{a}`")) };
            let value = match it.peek() {
                Some(v) if !v.starts_with("--") => it.next().cloned().unwrap_or_default(),
                _ => "true".to_string(),
            };
            flags.insert(key.to_string(), value);
        }
        Ok(Args { flags })
    }

    fn get(&self, k: &str) -> Option<&str> {
        self.flags.get(k).map(String::as_str)
    }

    fn num<T: std::str::FromStr>(&self, k: &str) -> Result<Option<T>, String> {
        self.get(k).map(|v| v.parse::<T>().map_err(|_| format!("--{k}: cannot parse `{v}`"))).transpose()
    }

    fn source(&self, default_kind: Option<&str>) -> Result<Source, String> {
        if let Some(p) = self.get("trace") {
            return Ok(Source::File(PathBuf::from(p)));
        }
        let kind = self
            .get("generate")
            .or(default_kind)
            .ok_or_else(|| format!("need --trace FILE or --generate KIND ({})", KINDS.join(", ")))?;
        let params = GenParams {
            seed: self.num("seed")?.unwrap_or(1),
            jobs: self.num("jobs")?,
            tasks: self.num("tasks")?,
            nodes: self.num("nodes")?,
            load: self.num("load")?,
            small_share: self.num("small-share")?,
            offline: self.get("offline").is_some(),
            interval_ms: self.num("interval-ms")?,
        };
        Ok(Source::Generate(kind.to_string(), params))
    }

    fn experiment(&self, default_kind: Option<&str>) -> Result<Experiment, String> {
        let config = match self.get("config") {
            Some(p) => {
                let text = std::fs::read_to_string(p).map_err(|e| format!("cannot read {p}: {e}"))?;
                shepherd::Config::parse(&text).map_err(|e| e.to_string())?
            }
            None => shepherd::Config::default(),
        };
        let d = SimOptions::default();
        let opts = SimOptions {
            heartbeat_ms: self.num("heartbeat-ms")?.unwrap_or(d.heartbeat_ms),
            slowstart: self.num("slowstart")?.unwrap_or(d.slowstart),
            gang: self.get("gang").is_some(),
            usage_factor: self.num("usage-factor")?.unwrap_or(d.usage_factor),
            window_ms: self.num("window-ms")?.unwrap_or(d.window_ms),
            small_theta: d.small_theta,
            naive_heartbeats: self.get("naive-heartbeats").is_some(),
            queue_by_category: self.get("queue-by-category").is_some(),
            progress: self.get("no-progress").is_none() && std::io::stderr().is_terminal(),
        };
        let source = self.source(default_kind)?;
        let mut exp = Experiment::new(&source, config, None, opts)?;
        // Explicit cluster flags override the trace's cluster (with a trace file, --nodes sizes the cluster).
        let (mem, cores) = (self.num::<i64>("node-memory-mb")?, self.num::<i64>("node-vcores")?);
        let nodes = if matches!(source, Source::File(_)) { self.num::<u32>("nodes")? } else { None };
        if mem.is_some() || cores.is_some() || nodes.is_some() {
            let c = &exp.cluster;
            exp.cluster = ClusterSpec {
                nodes: nodes.unwrap_or(c.nodes),
                memory_mb: mem.unwrap_or(c.memory_mb),
                vcores: cores.unwrap_or(c.vcores),
                rack_size: c.rack_size,
            };
        }
        Ok(exp)
    }
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(cmd) = args.first().map(String::as_str) else {
        eprintln!("{USAGE}");
        return ExitCode::from(2);
    };
    let result = match cmd {
        "check-config" => check_config(args.get(1)),
        "yarn-report" => yarn_report(&args[1..]),
        "simulate" | "compare" | "generate" | "bench-sim" | "bench-heartbeat" => Args::parse(&args[1..]).and_then(|a| match cmd {
            "simulate" => simulate(&a),
            "compare" => compare(&a),
            "generate" => generate(&a),
            "bench-heartbeat" => bench_heartbeat(&a),
            _ => bench(&a),
        }),
        _ => {
            eprintln!("{USAGE}");
            return ExitCode::from(2);
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("shepherd {cmd}: {e}");
            ExitCode::FAILURE
        }
    }
}

fn check_config(path: Option<&String>) -> Result<(), String> {
    let path = path.ok_or_else(|| USAGE.to_string())?;
    let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read {path}: {e}"))?;
    let c = shepherd::Config::parse(&text).map_err(|e| e.to_string())?;
    // Building the engine builds every plugin the config names.
    shepherd::Engine::with_config(c.clone()).map_err(|e| e.to_string())?;
    print!("{}", c.describe());
    Ok(())
}

fn yarn_report(raw: &[String]) -> Result<(), String> {
    let Some((out, rest)) = raw.split_first().filter(|(o, _)| !o.starts_with("--")) else {
        return Err("needs the harness output directory: shepherd yarn-report OUT [--baseline LABEL] [--require-success]".into());
    };
    let a = Args::parse(rest)?;
    if let Some(k) = a.flags.keys().find(|k| !["baseline", "require-success"].contains(&k.as_str())) {
        return Err(format!("unknown option --{k} (options: --baseline LABEL, --require-success)"));
    }
    let out = std::path::Path::new(out);
    let report = shepherd::harness::analyze(out, a.get("baseline"))?;
    print!("{}", report.text());
    report.write(out)?;
    println!(
        "wrote {0}/summary.json, summary.csv, jct-cdf.svg, wait-cdf.svg, utilization.svg and metrics.json, jobs.csv, fairness.csv in every {0}/<label>/run-<k>/",
        out.display()
    );
    match report.failure_message() {
        Some(m) if a.get("require-success").is_some() => Err(m),
        _ => Ok(()),
    }
}

fn simulate(a: &Args) -> Result<(), String> {
    let exp = a.experiment(None)?;
    let policy = a.get("policy").map(str::to_string).unwrap_or_else(|| exp.config.scheduler.policy.clone());
    let out = exp.run(&policy)?;
    print!("{}", shepherd::report::table::absolute(std::slice::from_ref(&out.summary)));
    if let Some(dir) = a.get("out") {
        shepherd::report::files::write_run(std::path::Path::new(dir), &out).map_err(|e| format!("{dir}: {e}"))?;
        println!("wrote {dir}/metrics.json, jobs.csv, utilization.csv, fairness.csv, jct_cdf.svg, utilization.svg");
    }
    Ok(())
}

fn compare(a: &Args) -> Result<(), String> {
    if a.get("seeds").is_some() {
        return compare_seeds(a);
    }
    let exp = a.experiment(None)?;
    let policies: Vec<String> = a.get("policies").unwrap_or("fifo,capacity,drf,sjf").split(',').map(|s| s.trim().to_string()).collect();
    let baseline = a.get("baseline").unwrap_or("fifo");
    let jobs = exp.trace.jobs.len();
    let tasks = exp.trace.task_count();
    println!(
        "workload: {jobs} jobs, {tasks} tasks on {} nodes ({} MB, {} vcores each)\n",
        exp.cluster.nodes, exp.cluster.memory_mb, exp.cluster.vcores
    );
    let cmp = exp.compare(&policies, baseline)?;
    print!("{}", cmp.text());
    if let Some(dir) = a.get("out") {
        cmp.write(std::path::Path::new(dir)).map_err(|e| format!("{dir}: {e}"))?;
        println!("wrote {dir}/comparison.json, factors.csv, speedups.csv, jct_cdf.svg and one directory per policy");
    }
    Ok(())
}

/// `compare --seeds N`: the same comparison on the generator's workloads of
/// seeds FIRST .. FIRST + N − 1, summarized per (policy, category) row.
fn compare_seeds(a: &Args) -> Result<(), String> {
    let n: u64 = a.num("seeds")?.filter(|n| *n > 0).ok_or("--seeds needs a positive count")?;
    if a.get("trace").is_some() || a.get("generate").is_none() || a.get("out").is_some() {
        return Err("--seeds needs --generate KIND (and no --trace or --out)".into());
    }
    let first: u64 = a.num("seed")?.unwrap_or(1);
    let policies: Vec<String> = a.get("policies").unwrap_or("fifo,capacity,drf,sjf").split(',').map(|s| s.trim().to_string()).collect();
    let baseline = a.get("baseline").unwrap_or("fifo");
    let (mut per_seed, mut ideal) = (Vec::new(), Vec::new());
    for seed in first..first + n {
        let mut flags = a.flags.clone();
        flags.insert("seed".into(), seed.to_string());
        let exp = Args { flags }.experiment(None)?;
        if seed == first {
            println!("workload: {} on {} nodes ({} MB, {} vcores each), seeds {first}..{}\n", a.get("generate").unwrap_or(""), exp.cluster.nodes, exp.cluster.memory_mb, exp.cluster.vcores, first + n - 1);
        }
        let cmp = exp.compare(&policies, baseline)?;
        let critical: HashMap<String, i64> = exp.trace.jobs.iter().map(|j| (j.id.clone(), j.critical_path_ms())).collect();
        ideal.push(shepherd::metrics::compare::ideal_factors(&cmp.runs[0].jobs, &critical));
        per_seed.push(cmp.factors);
    }
    let rows = shepherd::metrics::compare::over_seeds(&per_seed, &ideal);
    print!("{}", shepherd::report::table::seeds(baseline, &format!("{n} seeds ({first}..{})", first + n - 1), &rows));
    Ok(())
}

fn generate(a: &Args) -> Result<(), String> {
    let Source::Generate(kind, params) = a.source(None)? else { return Err("generate needs --generate KIND".into()) };
    let trace = shepherd::workload::gen::generate(&kind, &params)?;
    let out = a.get("out").ok_or("generate needs --out FILE")?;
    std::fs::write(out, trace.to_json()).map_err(|e| format!("{out}: {e}"))?;
    println!("wrote {out}: {} jobs, {} tasks", trace.jobs.len(), trace.task_count());
    Ok(())
}

fn bench(a: &Args) -> Result<(), String> {
    let t0 = Instant::now();
    let exp = a.experiment(Some("facebook"))?;
    let gen_s = t0.elapsed().as_secs_f64();
    let policy = a.get("policy").unwrap_or("drf");
    println!(
        "workload: {} jobs, {} tasks, {} nodes (generated/loaded in {gen_s:.2} s)",
        exp.trace.jobs.len(),
        exp.trace.task_count(),
        exp.cluster.nodes
    );
    let t1 = Instant::now();
    let out = exp.run(policy)?;
    let wall = t1.elapsed().as_secs_f64();
    let s = &out.summary;
    println!("policy: {policy}; simulated makespan {:.0} s; unfinished jobs {}", s.all.makespan_ms as f64 / 1000.0, s.unfinished_jobs);
    println!("simulation wall time: {wall:.2} s");
    println!(
        "simulator events: {} ({:.0}/s); engine events: {} ({:.0}/s); engine passes: {} ({:.0}/s)",
        out.sim_events,
        out.sim_events as f64 / wall,
        s.engine_events,
        s.engine_events as f64 / wall,
        s.engine_passes,
        s.engine_passes as f64 / wall
    );
    match peak_rss_kib() {
        Some(k) => println!("peak memory (VmHWM): {:.1} MiB", k as f64 / 1024.0),
        None => println!("peak memory: unavailable (no /proc/self/status)"),
    }
    Ok(())
}

fn bench_heartbeat(a: &Args) -> Result<(), String> {
    let b = shepherd::bench::heartbeat::HeartbeatBench {
        nodes: a.num("nodes")?.unwrap_or(1000),
        pending: a.num("pending")?.unwrap_or(10_000),
        apps: a.num("apps")?.unwrap_or(500),
        heartbeats: a.num("heartbeats")?.unwrap_or(20_000),
        policy: a.get("policy").unwrap_or("drf").to_string(),
    };
    let r = b.run();
    println!(
        "engine decision time per heartbeat ({} policy, {} nodes, {} pending asks over {} apps, {} heartbeats, {} allocations):",
        b.policy, b.nodes, b.pending, b.apps, b.heartbeats, r.allocations
    );
    println!(
        "  p50 {:.1} us   p90 {:.1} us   p99 {:.1} us   max {:.1} us   (target: p99 <= 1000 us)",
        r.percentile(50.0),
        r.percentile(90.0),
        r.percentile(99.0),
        r.percentile(100.0)
    );
    Ok(())
}
