//! `shepherd` command-line tool.
//!
//! Subcommands:
//! * `check-config FILE` — parse and validate a Shepherd config, print the
//!   effective policy and queues, exit non-zero with the offending key.

use std::process::ExitCode;

fn usage() -> ExitCode {
    eprintln!("usage: shepherd check-config FILE");
    ExitCode::from(2)
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
        _ => usage(),
    }
}
