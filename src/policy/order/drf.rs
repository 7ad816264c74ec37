//! `app_order = "drf"`: Dominant Resource Fairness between applications
//! (Ghodsi et al., NSDI'11): the app with the lowest dominant share of the
//! cluster first, ties to the earlier submission.

use crate::model::App;
use crate::policy::points::{AppOrder, Capabilities, Ctx, KeyMoves, Plugin};
use crate::policy::SortKey;

pub struct Drf;

impl Plugin for Drf {
    fn name(&self) -> &'static str {
        "drf"
    }

    /// The key is its dominant share of the cluster: only its own containers raise it.
    fn capabilities(&self) -> Capabilities {
        Capabilities { key_moves: KeyMoves::OwnContainersUpward, ..Capabilities::NONE }
    }
}

impl AppOrder for Drf {
    fn key(&self, ctx: &Ctx, app: &App) -> SortKey {
        let share = app.allocated.dominant_share(&ctx.state.capacity);
        SortKey::new(share, app.submit_ms as f64, app.id as i64)
    }
}
