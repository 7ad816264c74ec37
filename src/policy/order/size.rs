//! Size orders, reading the pipeline's estimate point:
//!
//! * `sjf` — smallest estimated total size first (the SJF baseline of
//!   Carbyne §5 with the oracle estimator; 3Sigma's point-estimate variant
//!   with `history-point`).
//! * `srtf` — smallest estimated remaining work first (the oracle bound of
//!   SLearn §5 with `oracle`; 3Sigma with `history`).
//!
//! An app the estimator knows nothing about goes last, in arrival order.

use crate::model::App;
use crate::policy::points::{AppOrder, Capabilities, Ctx, KeyMoves, Plugin};
use crate::policy::SortKey;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum By {
    Size,
    Remaining,
}

pub struct SizeOrder(pub By);

impl Plugin for SizeOrder {
    fn name(&self) -> &'static str {
        match self.0 {
            By::Size => "sjf",
            By::Remaining => "srtf",
        }
    }

    /// The key is the app's estimate, which (with an estimator that says
    /// so) moves only with its own containers: down as its outstanding
    /// asks start, or up when a started task's learned runtime exceeds the
    /// ask's.
    fn capabilities(&self) -> Capabilities {
        Capabilities { key_moves: KeyMoves::OwnContainers, ..Capabilities::NONE }
    }
}

impl AppOrder for SizeOrder {
    fn key(&self, ctx: &Ctx, app: &App) -> SortKey {
        let v = ctx.estimate(app).map_or(f64::INFINITY, |e| match self.0 {
            By::Size => e.size_ms,
            By::Remaining => e.remaining_ms,
        });
        SortKey::new(v, app.submit_ms as f64, app.id as i64)
    }
}
