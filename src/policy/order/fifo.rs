//! `app_order = "fifo"`: arrival order, higher YARN application priority
//! first, as in YARN's FifoScheduler (and inside each DRESS pool: the
//! paper's first-come-first-serve).

use crate::model::App;
use crate::policy::points::{AppOrder, Capabilities, Ctx, KeyMoves, Plugin};
use crate::policy::SortKey;

pub struct Fifo;

impl Plugin for Fifo {
    fn name(&self) -> &'static str {
        "fifo"
    }

    /// The key is priority and submission time: fixed.
    fn capabilities(&self) -> Capabilities {
        Capabilities { key_moves: KeyMoves::OwnContainersUpward, ..Capabilities::NONE }
    }
}

impl AppOrder for Fifo {
    fn key(&self, _ctx: &Ctx, app: &App) -> SortKey {
        SortKey::new(-(app.priority as f64), app.submit_ms as f64, app.id as i64)
    }
}
