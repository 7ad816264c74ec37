//! LEFTOVERSCHEDULER of Pseudocode 1 (§3.3, §4.2): the leftover — what
//! DRF left unallocated plus what altruistic jobs yielded, i.e. whatever the
//! main phase left on the node — goes to the held-back (ALTRUISTIC) asks:
//!
//! * `leftover_order = "srtf"` (the paper's): "jobs sorted ascending based
//!   on the amount of remaining work (emulating SRTF)", and within a job
//!   its asks packed — the one whose demand aligns best with the node's
//!   free resources first (Tetris' alignment);
//! * `"pack"`: alignment first over every job's asks, remaining work
//!   breaking ties ("their order can be reversed").
//!
//! Remaining work is the same job model the classifier plans with
//! ([`super::stages`]): outstanding and hinted tasks × their runtime, plus
//! what the running ones have left. The pass re-keys an ask after it gets
//! a container, and re-evaluates a key when it reaches the top (the node's
//! free vector shrinks as the phase allocates, so alignments only fall).

use super::amount::Amount;
use super::stages::{self, KeyLogs};
use crate::config::{AppsConfig, CarbyneConfig};
use crate::event::Event;
use crate::model::{App, AppId, Ask, Container, Node, NodeId};
use crate::policy::points::{Ctx, Leftover, Plugin};
use crate::policy::SortKey;
use std::collections::HashMap;
use std::sync::Mutex;
use std::thread::ThreadId;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Order {
    /// Least remaining work first, then best alignment.
    Srtf,
    /// Best alignment first, then least remaining work.
    Pack,
}

pub struct CarbyneLeftover {
    cfg: CarbyneConfig,
    /// `[apps]`: an executor app's remaining work is unknown, as in the plan.
    apps_cfg: AppsConfig,
    order: Order,
    logs: KeyLogs,
    /// Remaining work per app, valid for one pass (cleared by `prepare`,
    /// an app's entry by its allocations). Keyed by the pass's thread too:
    /// the proposers of a parallel round (`engine::propose`) each pass over
    /// their own copy of the state, and one's value must not leak into
    /// another's order.
    remaining: Mutex<HashMap<(ThreadId, AppId), f64>>,
}

impl CarbyneLeftover {
    pub fn new(cfg: &CarbyneConfig, apps_cfg: &AppsConfig) -> CarbyneLeftover {
        let order = if cfg.leftover_order == "pack" { Order::Pack } else { Order::Srtf };
        CarbyneLeftover {
            cfg: cfg.clone(),
            apps_cfg: apps_cfg.clone(),
            order,
            logs: KeyLogs::default(),
            remaining: Mutex::new(HashMap::new()),
        }
    }

    fn remaining_ms(&self, ctx: &Ctx, app: &App) -> f64 {
        let at = (std::thread::current().id(), app.id);
        if let Some(v) = self.remaining.lock().unwrap_or_else(|e| e.into_inner()).get(&at).copied() {
            return v;
        }
        let v = match self.logs.get(app.id) {
            Some(log) => stages::remaining_ms(ctx, app, log, &self.cfg, &self.apps_cfg),
            // Not seen arrive (built by -refreshQueues): the estimator's view.
            None => ctx.estimate(app).map_or(f64::INFINITY, |e| e.remaining_ms),
        };
        self.remaining.lock().unwrap_or_else(|e| e.into_inner()).insert(at, v);
        v
    }
}

impl Plugin for CarbyneLeftover {
    fn name(&self) -> &'static str {
        "carbyne"
    }

    fn on_event(&mut self, ctx: &Ctx, event: &Event) {
        self.logs.on_event(ctx, event);
    }

    fn on_app_moved_out(&mut self, _ctx: &Ctx, app: &App) {
        self.logs.forget(app.id);
        self.remaining.get_mut().unwrap_or_else(|e| e.into_inner()).retain(|(_, a), _| *a != app.id);
    }

    fn on_allocated(&mut self, ctx: &Ctx, c: &Container) {
        self.logs.on_allocated(ctx, c);
        self.remaining.get_mut().unwrap_or_else(|e| e.into_inner()).retain(|(_, app), _| *app != c.app);
    }

    fn on_container_finished(&mut self, _ctx: &Ctx, c: &Container, exit_status: i32, _at_ms: i64) {
        self.logs.on_container_finished(c, exit_status);
    }

    fn on_app_removed(&mut self, _ctx: &Ctx, app: &App) {
        self.logs.forget(app.id);
    }

    fn prepare(&mut self, _ctx: &Ctx, _node: NodeId) {
        self.remaining.get_mut().unwrap_or_else(|e| e.into_inner()).clear();
    }

    fn state_json(&self, _ctx: &Ctx) -> serde_json::Value {
        serde_json::json!({
            "order": self.cfg.leftover_order,
            "apps_known": self.logs.len(),
        })
    }
}

impl Leftover for CarbyneLeftover {
    fn key(&self, ctx: &Ctx, app: &App, ask: &Ask, node: &Node) -> SortKey {
        let remaining = self.remaining_ms(ctx, app);
        let align = Amount::of(&ask.capability).alignment(&Amount::of(&node.free()), &Amount::of(&node.capacity));
        match self.order {
            Order::Srtf => SortKey::new(remaining, -align, app.id as i64),
            Order::Pack => SortKey::new(-align, remaining, app.id as i64),
        }
    }

    fn holds(&self) -> usize {
        self.cfg.leftover_holds as usize
    }
}
