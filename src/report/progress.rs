//! Progress of long runs on stderr: the one mechanism the simulator and the
//! scale simulator use. On a terminal it is a bar (indicatif); elsewhere
//! (logs, CI) a line every few seconds of wall time. Callers report tasks
//! done and simulated time as often as they like, once per event if they
//! wish: the wall clock is looked at every 4 096 reports only. Nothing it
//! reads goes into a report.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;
use std::time::{Duration, Instant};

/// A line at most this often when stderr is not a terminal.
const LINE_EVERY: Duration = Duration::from_secs(3);
/// Reports between two looks at the wall clock.
const LOOK_EVERY: u32 = 4096;

pub struct Progress {
    label: &'static str,
    total: u64,
    mode: Mode,
    started: Instant,
    last_line: Instant,
    reports: u32,
}

enum Mode {
    Off,
    Bar(ProgressBar),
    Lines,
}

impl Progress {
    /// Progress of `total_tasks` tasks, named `label` (e.g. "simulating",
    /// "scale-sim central"); nothing at all unless `enabled`.
    pub fn new(label: &'static str, total_tasks: u64, enabled: bool) -> Progress {
        let mode = match (enabled, std::io::stderr().is_terminal()) {
            (false, _) => Mode::Off,
            (true, true) => {
                let pb = ProgressBar::with_draw_target(Some(total_tasks), ProgressDrawTarget::stderr_with_hz(5));
                let template = format!("{{spinner}} {label} [{{elapsed_precise}}] {{wide_bar}} {{pos}}/{{len}} tasks ({{eta}})");
                pb.set_style(ProgressStyle::with_template(&template).expect("valid template"));
                Mode::Bar(pb)
            }
            (true, false) => Mode::Lines,
        };
        let now = Instant::now();
        Progress { label, total: total_tasks, mode, started: now, last_line: now, reports: 0 }
    }

    /// `tasks_done` of the total are done at simulated time `sim_s` seconds.
    pub fn report(&mut self, tasks_done: u64, sim_s: f64) {
        if matches!(self.mode, Mode::Off) {
            return;
        }
        self.reports = self.reports.wrapping_add(1);
        if !self.reports.is_multiple_of(LOOK_EVERY) {
            return;
        }
        match &self.mode {
            Mode::Off => {}
            Mode::Bar(pb) => pb.set_position(tasks_done),
            Mode::Lines => {
                if self.last_line.elapsed() < LINE_EVERY {
                    return;
                }
                self.last_line = Instant::now();
                eprintln!(
                    "{}: simulated {:.0} s, {}/{} tasks done ({:.1} %), wall {:.0} s",
                    self.label,
                    sim_s,
                    tasks_done,
                    self.total,
                    100.0 * tasks_done as f64 / self.total.max(1) as f64,
                    self.started.elapsed().as_secs_f64()
                );
            }
        }
    }

    /// Clear the bar (a finished run's output follows on the terminal).
    pub fn finish(self) {
        if let Mode::Bar(pb) = self.mode {
            pb.finish_and_clear();
        }
    }
}
