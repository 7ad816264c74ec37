//! What Carbyne shows the operator: the state JSON (plugin and per app)
//! and the `shepherd_carbyne_*` metrics — each app's share A_k, its T_k,
//! its DEFAULT and ALTRUISTIC containers, the leftover (yielded and left
//! by DRF) and who got it.

use super::amount::Amount;
use super::{Carbyne, Status};
use crate::model::App;
use crate::policy::points::Ctx;
use crate::policy::{metric_part, Gauge};

/// Σ L_k over the planned apps (what altruism yields now), and L_DRF (what
/// the shares leave unallocated).
fn leftovers(c: &Carbyne) -> (Amount, Amount) {
    let yielded = c.apps.values().filter_map(|e| e.live.as_ref()).fold(Amount::ZERO, |a, l| a.plus(&l.yielded));
    let shares = c.apps.values().fold(Amount::ZERO, |a, e| a.plus(&e.share));
    (yielded, c.total.minus(&shares).clamped())
}

fn vector(a: &Amount, names: &[String]) -> serde_json::Value {
    let m: serde_json::Map<String, serde_json::Value> =
        names.iter().enumerate().map(|(i, n)| (n.clone(), serde_json::json!(a.0[i]))).collect();
    serde_json::Value::Object(m)
}

pub(super) fn state_json(c: &Carbyne, ctx: &Ctx) -> serde_json::Value {
    let names = &ctx.state.resource_names;
    let (yielded, drf_left) = leftovers(c);
    let planned = c.apps.values().filter(|e| e.status == Status::Planned).count();
    serde_json::json!({
        "config": c.cfg,
        "total": vector(&c.total, names),
        "apps": c.apps.len(),
        "apps_planned": planned,
        "leftover": {
            "yielded": vector(&yielded, names),
            "drf_unallocated": vector(&drf_left, names),
            "ratio": yielded.plus(&drf_left).dominant_share(&c.total),
        },
        "recent_leftover_grants": c.grants,
        "next_start_ms": c.next_due_ms,
        "counters": c.counters,
    })
}

/// The app's stage log (its keys in first-ask order, with the containers
/// of each that finished) and the stages inferred from it now: each one's
/// priorities, parents, outstanding, running and finished containers.
fn stage_views(c: &Carbyne, ctx: &Ctx, app: &App) -> (serde_json::Value, serde_json::Value) {
    let Some(log) = c.logs.get(app.id) else { return (serde_json::Value::Null, serde_json::Value::Null) };
    let finished = |k: &crate::model::SchedulerKey| log.finished.get(k).copied().unwrap_or(0);
    let seen: Vec<serde_json::Value> = log
        .seen
        .iter()
        .map(|(k, at)| {
            serde_json::json!({
                "priority": k.priority,
                "allocation_request_id": k.allocation_request_id,
                "first_ask_ms": at,
                "finished": finished(k),
            })
        })
        .collect();
    let model = super::stages::model(ctx, app, log, &c.cfg, &c.apps_cfg);
    let stages: Vec<serde_json::Value> = model
        .stages
        .iter()
        .enumerate()
        .map(|(i, st)| {
            let keys: Vec<_> = model.key_stage.iter().filter(|(_, s)| **s == i).map(|(k, _)| *k).collect();
            let mut priorities: Vec<i32> = keys.iter().map(|k| k.priority).collect();
            priorities.sort_unstable();
            priorities.dedup();
            serde_json::json!({
                "priorities": priorities,
                "parents": st.parents,
                "asked": st.asked,
                "running": st.running.len(),
                "finished": keys.iter().map(finished).sum::<i64>(),
            })
        })
        .collect();
    (serde_json::Value::Array(seen), serde_json::json!({"inference": model.inference, "stages": stages}))
}

pub(super) fn app_json(c: &Carbyne, ctx: &Ctx, app: &App) -> Option<serde_json::Value> {
    let e = c.apps.get(&app.id)?;
    let (stage_log, inferred) = stage_views(c, ctx, app);
    let names = &ctx.state.resource_names;
    let cluster = Amount::of(&ctx.state.capacity);
    let live = e.live.as_ref();
    Some(serde_json::json!({
        "share": vector(&e.share, names),
        "share_ratio": e.share.dominant_share(&cluster),
        "status": e.status,
        "inference": e.inference,
        "stages": e.stages,
        "t_k_ms": live.map(|l| l.t_k_ms),
        "completion_estimate_ms": live.map(|l| l.planned_ms as f64 + l.t_k_ms),
        "default_containers": c.default_count(app),
        "altruistic_containers": c.altruistic_count(app),
        "yielded": live.map(|l| vector(&l.yielded, names)),
        "remaining_work_ms": live.map(|l| l.remaining_ms),
        "draws": e.draws,
        "leftover_received": e.leftover_allocations,
        "default_received": e.default_allocations,
        "hint_error": c.logs.get(app.id).and_then(|l| l.hint.as_ref()).and_then(|h| h.as_ref().err()),
        "stage_log": stage_log,
        "inferred": inferred,
    }))
}

pub(super) fn gauges(c: &Carbyne, ctx: &Ctx) -> Vec<Gauge> {
    let s = ctx.state;
    let cluster = Amount::of(&s.capacity);
    let (yielded, drf_left) = leftovers(c);
    let mut out = vec![
        Gauge::new("carbyne_p_altruism_ratio", c.cfg.p_altruism, "P(Altruism): probability that a job yields at a scheduling event"),
        Gauge::new("carbyne_apps", c.apps.len() as f64, "Applications Carbyne computes shares for"),
        Gauge::new(
            "carbyne_altruistic_apps",
            c.apps.keys().filter_map(|id| s.apps.get(id)).filter(|a| c.altruistic_count(a) > 0).count() as f64,
            "Applications holding asks back (ALTRUISTIC) now",
        ),
        Gauge::new(
            "carbyne_leftover_ratio",
            yielded.plus(&drf_left).dominant_share(&c.total),
            "Leftover (yielded by altruism + left unallocated by DRF) as a dominant share of the scope",
        ),
        Gauge::counter("carbyne_replans_total", c.counters.replans as f64, "Intra-job plans computed (T_k, reverse packing)"),
        Gauge::counter("carbyne_share_updates_total", c.counters.share_updates as f64, "DRF share recomputations"),
        Gauge::counter("carbyne_default_allocations_total", c.counters.default_allocations as f64, "Containers served as DEFAULT asks"),
        Gauge::counter(
            "carbyne_leftover_allocations_total",
            c.counters.leftover_allocations as f64,
            "Containers served from the leftover (ALTRUISTIC asks)",
        ),
        Gauge::counter("carbyne_task_failures_total", c.counters.task_failures as f64, "Containers that failed (their app was replanned)"),
    ];
    for (i, name) in s.resource_names.iter().enumerate() {
        let part = metric_part(name);
        out.push(Gauge::new(format!("carbyne_yielded_{part}"), yielded.0[i], format!("Σ L_k: {name} yielded by altruistic apps")));
        out.push(Gauge::new(
            format!("carbyne_drf_unallocated_{part}"),
            drf_left.0[i],
            format!("L_DRF: {name} the DRF shares leave unallocated"),
        ));
    }
    for (id, e) in &c.apps {
        let Some(app) = s.apps.get(id) else { continue };
        let label = app.yarn_id.clone();
        out.push(
            Gauge::new(
                "carbyne_app_share_ratio",
                e.share.dominant_share(&cluster),
                "A_k: the app's DRF share (dominant share of the cluster)",
            )
            .label("app", label.clone()),
        );
        if let Some(l) = &e.live {
            let left = (l.planned_ms as f64 + l.t_k_ms - s.now_ms as f64) / 1000.0;
            out.push(
                Gauge::new("carbyne_app_completion_seconds", left, "T_k: time until the app's planned completion under its share")
                    .label("app", label.clone()),
            );
        }
        out.push(
            Gauge::new(
                "carbyne_app_default_containers",
                c.default_count(app) as f64,
                "Outstanding containers that are DEFAULT (must start now)",
            )
            .label("app", label.clone()),
        );
        out.push(
            Gauge::new(
                "carbyne_app_altruistic_containers",
                c.altruistic_count(app) as f64,
                "Outstanding containers held back (ALTRUISTIC)",
            )
            .label("app", label.clone()),
        );
        out.push(
            Gauge::counter(
                "carbyne_app_leftover_received_total",
                e.leftover_allocations as f64,
                "Containers the app got from the leftover",
            )
            .label("app", label),
        );
    }
    out
}
