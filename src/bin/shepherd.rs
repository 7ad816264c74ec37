//! `shepherd` command-line tool.
//!
//! Subcommands:
//! * `check-config FILE` — parse and validate a Shepherd config, print the
//!   effective policy and queues, exit non-zero with the offending key.
//! * `bench-heartbeat [--nodes N] [--pending N] [--apps N] [--heartbeats N] [--policy P]`
//!   — engine decision time per node heartbeat (P50/P99/max, µs).

use std::process::ExitCode;

fn usage() -> ExitCode {
    eprintln!("usage: shepherd check-config FILE");
    eprintln!("       shepherd bench-heartbeat [--nodes 1000] [--pending 10000] [--apps 500] [--heartbeats 20000] [--policy drf]");
    ExitCode::from(2)
}

/// Value of `--name` in `args`, parsed, or `default`.
fn flag<T: std::str::FromStr>(args: &[String], name: &str, default: T) -> T {
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn bench_heartbeat(args: &[String]) -> ExitCode {
    let b = shepherd::bench::heartbeat::HeartbeatBench {
        nodes: flag(args, "--nodes", 1000),
        pending: flag(args, "--pending", 10_000),
        apps: flag(args, "--apps", 500),
        heartbeats: flag(args, "--heartbeats", 20_000),
        policy: flag(args, "--policy", "drf".to_string()),
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
    ExitCode::SUCCESS
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("check-config") => {
            let Some(path) = args.get(1) else { return usage() };
            let text = match std::fs::read_to_string(path) {
                Ok(t) => t,
                Err(e) => {
                    eprintln!("cannot read {path}: {e}");
                    return ExitCode::FAILURE;
                }
            };
            match shepherd::Config::parse(&text) {
                Ok(c) => {
                    println!("policy: {}", c.scheduler.policy);
                    for q in &c.queues {
                        println!("queue root.{}: weight {} capacity {} max {}", q.name, q.weight, q.capacity, q.max_capacity);
                    }
                    ExitCode::SUCCESS
                }
                Err(e) => {
                    eprintln!("{e}");
                    ExitCode::FAILURE
                }
            }
        }
        Some("bench-heartbeat") => bench_heartbeat(&args[1..]),
        _ => usage(),
    }
}
