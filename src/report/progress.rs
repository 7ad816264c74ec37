//! Progress bar for long simulations: on stderr, drawn only when stderr is a
//! terminal (indicatif hides it otherwise), so logs and CI output stay clean.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

pub fn bar(total_tasks: u64, enabled: bool) -> ProgressBar {
    if !enabled {
        return ProgressBar::hidden();
    }
    let pb = ProgressBar::with_draw_target(Some(total_tasks), ProgressDrawTarget::stderr_with_hz(5));
    pb.set_style(
        ProgressStyle::with_template("{spinner} simulating [{elapsed_precise}] {wide_bar} {pos}/{len} tasks ({eta})")
            .expect("valid template"),
    );
    pb
}
