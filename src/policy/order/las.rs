//! `app_order = "las"`: least attained service first (a baseline of SLearn
//! §5): the app that has received the least container time so far goes
//! first; no size knowledge.

use crate::model::App;
use crate::policy::points::{AppOrder, Capabilities, Ctx, KeyMoves, Plugin};
use crate::policy::SortKey;

pub struct Las;

impl Plugin for Las {
    fn name(&self) -> &'static str {
        "las"
    }

    /// The key is attained service up to now: a container started now adds nothing to it.
    fn capabilities(&self) -> Capabilities {
        Capabilities { key_moves: KeyMoves::OwnContainersUpward, ..Capabilities::NONE }
    }
}

impl AppOrder for Las {
    fn key(&self, ctx: &Ctx, app: &App) -> SortKey {
        SortKey::new(app.attained_ms(ctx.state.now_ms) as f64, app.submit_ms as f64, app.id as i64)
    }
}
