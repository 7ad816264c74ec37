//! A line on stderr every few seconds of wall time (simulated time, tasks
//! finished) so a long run shows it is alive. The only place the scale
//! simulator reads the wall clock; nothing it reads goes into a report.

use std::time::{Duration, Instant};

pub struct ProgressLine {
    enabled: bool,
    arch: &'static str,
    started: Instant,
    last: Instant,
    calls: u32,
}

const EVERY: Duration = Duration::from_secs(3);

impl ProgressLine {
    pub fn new(enabled: bool, arch: &'static str) -> ProgressLine {
        let now = Instant::now();
        ProgressLine { enabled, arch, started: now, last: now, calls: 0 }
    }

    /// Cheap enough to call once per event: looks at the clock every 64 Ki calls.
    pub fn tick(&mut self, sim_us: i64, tasks_done: u64, tasks: usize) {
        if !self.enabled {
            return;
        }
        self.calls = self.calls.wrapping_add(1);
        if !self.calls.is_multiple_of(65_536) || self.last.elapsed() < EVERY {
            return;
        }
        self.last = Instant::now();
        eprintln!(
            "scale-sim {}: simulated {:.0} s, {}/{} tasks done ({:.1} %), wall {:.0} s",
            self.arch,
            sim_us as f64 / 1e6,
            tasks_done,
            tasks,
            100.0 * tasks_done as f64 / tasks.max(1) as f64,
            self.started.elapsed().as_secs_f64()
        );
    }
}
