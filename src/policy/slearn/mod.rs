//! SLearn and its generic scheduler GS (Jajoo, Hu, Lin, Deng: "A Case for
//! Task Sampling based Learning for Cluster Job Scheduling", NSDI'22,
//! §5–6), as plugins of the pipeline — one idea per file:
//!
//! * [`estimator`] — `estimate = "slearn"`: a wide app's size is the mean
//!   runtime of its pilot tasks × its first stage's width (§5.1.2); thin
//!   apps are not sampled; apps whose containers are not tasks fall back.
//! * [`ratio`] — how many pilots: the adaptive sampling ratio of Fig. 4.
//! * [`dag`] — later stages of a DAG: history estimates scaled by d_s/d_h (§6).
//! * [`errors`] — every finished app's estimation error, for the state view
//!   and the `shepherd_slearn_*` metrics.
//! * [`gs`] — `app_order = "gs"`: N priority queues by estimated size,
//!   FIFO inside a queue, weighted sharing across queues (§5.1.1).
//! * [`gate`] — `classify = ["pilots"]`: while an app is sampled only its
//!   pilots are DEFAULT; `leftover = "fifo"`: capacity the main phase leaves
//!   idle runs the held-back tasks in arrival order (work conservation, §5.1.2).
//!
//! The built-in policy `slearn` is `estimate = "slearn"`, `app_order = "gs"`,
//! `classify = ["pilots"]`, `leftover = "fifo"`. Any other order that sorts
//! by size (`sjf`, `srtf`, the composed pipeline's pools) reads SLearn's
//! estimate when a pipeline names `estimate = "slearn"`.

pub mod dag;
pub mod errors;
pub mod estimator;
pub mod gate;
pub mod gs;
pub mod ratio;

#[cfg(test)]
mod tests;
