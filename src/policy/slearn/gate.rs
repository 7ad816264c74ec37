//! Pilot gating and work conservation (§5.1.2), at the classify and
//! leftover points.
//!
//! * `classify = ["pilots"]`: while SLearn samples an app, its first
//!   stage's ask is DEFAULT only until the app's pilots have containers;
//!   the rest of that stage waits. Every other ask (the AM's, thin apps',
//!   placed apps', later stages) is DEFAULT.
//! * `leftover = "fifo"`: what the main phase leaves on a node goes to the
//!   held-back asks in the order their apps arrived ("Work conservation:
//!   ... the jobs are scheduled in the FIFO order of their arrival"), so
//!   capacity that would sit idle at low load runs non-pilot tasks.

use crate::model::{App, Ask, Node};
use crate::policy::points::{AskClassifier, Ctx, Leftover, Plugin, Sampling};
use crate::policy::SortKey;

pub struct PilotGate;

impl Plugin for PilotGate {
    fn name(&self) -> &'static str {
        "pilots"
    }
}

impl AskClassifier for PilotGate {
    fn is_default(&self, ctx: &Ctx, app: &App, ask: &Ask) -> bool {
        match ctx.sampling(app) {
            Some(Sampling::Pilots { key, wanted, placed }) if key == ask.key && !app.is_am_ask(ask) => placed < wanted,
            _ => true,
        }
    }
}

/// `leftover = "fifo"`: arrival order.
pub struct ArrivalOrder;

impl Plugin for ArrivalOrder {
    fn name(&self) -> &'static str {
        "fifo"
    }
}

impl Leftover for ArrivalOrder {
    fn key(&self, _ctx: &Ctx, app: &App, _ask: &Ask, _node: &Node) -> SortKey {
        SortKey::new(app.submit_ms as f64, 0.0, app.id as i64)
    }
}
