//! DRESS's figures as metrics (issue 4 item 7): δ and its bounds, each
//! pool's capacity, usage and pending demand, F_k(t+1) per pool and F(t+1)
//! of Equation 1, so an operator can watch δ move on a dashboard. The same
//! numbers as the reserve plugin's state in `state_json`, computed the same way.
//!
//! Names end in their unit: `_ratio` for shares of the cluster (0–1, the
//! unit Algorithm 3 works in, see `classify.rs`), `_memory_mb` / `_vcores`
//! (or the resource type's name) for resource vectors, `_total` for
//! counters; plain counts (`_apps`) have none. Per-pool series carry a
//! `pool` label, `small` (SD, category 1) or `large` (LD, category 2).

use super::classify::{free_units, units};
use super::Dress;
use crate::model::resource::MAX_RESOURCE_TYPES;
use crate::model::{ClusterState, Resources};
use crate::policy::{metric_part, Ctx, Gauge};

const POOLS: [&str; 2] = ["small", "large"];

/// Names of the resource types the cluster has, in index order (memory and
/// vcores even when the driver announced none).
fn resource_parts(state: &ClusterState) -> Vec<String> {
    let n = state.resource_names.len().clamp(2, MAX_RESOURCE_TYPES);
    (0..n)
        .map(|i| match state.resource_names.get(i) {
            Some(name) => metric_part(name),
            None if i == 0 => "memory_mb".into(),
            None => "vcores".into(),
        })
        .collect()
}

/// One gauge per resource type: `{prefix}_{resource}`.
fn vector(out: &mut Vec<Gauge>, prefix: &str, pool: &str, r: &Resources, parts: &[String], help: &str) {
    for (i, part) in parts.iter().enumerate() {
        out.push(Gauge::new(format!("{prefix}_{part}"), r.0[i] as f64, help).label("pool", pool));
    }
}

impl Dress {
    /// Pool `k`'s series (0 = small, 1 = large).
    fn pool_gauges(&self, k: usize, total: &Resources, cap: &Resources, parts: &[String], out: &mut Vec<Gauge>) {
        let pool = POOLS[k];
        let p = self.pools.figures(k);
        let share = if k == 0 { self.delta } else { 1.0 - self.delta };
        out.push(
            Gauge::new("dress_pool_share_ratio", share, "Share of the cluster the pool owns: delta (small) or 1 - delta (large)")
                .label("pool", pool),
        );
        vector(out, "dress_pool_capacity", pool, cap, parts, "Pool capacity: its share of the cluster's capacity");
        vector(out, "dress_pool_used", pool, &p.used, parts, "Resources allocated to the pool's apps");
        out.push(
            Gauge::new("dress_pool_used_ratio", units(&p.used, total), "Pool usage as a dominant share of the scope (cluster or queue)")
                .label("pool", pool),
        );
        out.push(
            Gauge::new(
                "dress_pool_available_ratio",
                self.available[k],
                "A_c of the pool at the last Algorithm 3 step: its unused share, at most what is free",
            )
            .label("pool", pool),
        );
        vector(out, "dress_pool_pending", pool, &p.pending, parts, "Outstanding asks of the pool's apps (pending demand)");
        out.push(
            Gauge::new(
                "dress_pool_pending_ratio",
                self.pools.pending_units(k, total),
                "Pending demand P_k of the category: sum of its apps' outstanding asks as dominant shares",
            )
            .label("pool", pool),
        );
        out.push(
            Gauge::new("dress_pool_pending_apps", p.pending_apps as f64, "Apps of the pool with outstanding asks").label("pool", pool),
        );
        out.push(Gauge::new("dress_pool_apps", p.apps as f64, "Classified apps of the pool").label("pool", pool));
        out.push(
            Gauge::new(
                "dress_pool_release_next_ratio",
                self.release_next[k],
                "F_k(t+1): share the category's running apps are expected to release by the next interval",
            )
            .label("pool", pool),
        );
    }

    /// The metrics view; see the module comment.
    pub(super) fn gauges_of(&self, ctx: &Ctx) -> Vec<Gauge> {
        let parts = resource_parts(ctx.state);
        let total = ctx.scope.capacity(ctx.state);
        let caps = self.pool_capacity(ctx);
        let free = free_units(ctx);
        let mut out = vec![
            Gauge::new("dress_reserve_ratio", self.delta, "delta: share of the cluster reserved for small-demand apps"),
            Gauge::new("dress_reserve_min_ratio", self.cfg.delta_min, "Lower bound on delta (dress.delta_min)"),
            Gauge::new("dress_reserve_max_ratio", self.cfg.delta_max, "Upper bound on delta (dress.delta_max)"),
            Gauge::new(
                "dress_small_threshold_ratio",
                self.cfg.theta,
                "theta: an app is small-demand when its request is at most theta times A_c",
            ),
            Gauge::counter("dress_adjustments_total", self.adjustments as f64, "Algorithm 3 steps (one per scheduling interval)"),
            Gauge::new("dress_available_ratio", free, "A_c: share of the cluster currently unallocated"),
            Gauge::new(
                "dress_release_next_ratio",
                free + self.release_next[0] + self.release_next[1],
                "F(t+1) of Equation 1: A_c plus the release both categories are expected to make by the next interval",
            ),
        ];
        for (k, cap) in caps.iter().enumerate() {
            self.pool_gauges(k, &total, cap, &parts, &mut out);
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use crate::config::Config;
    use crate::engine::tests::{add_app, add_node, ask};
    use crate::engine::{Engine, Event};
    use crate::policy::{Gauge, GaugeKind};

    fn dress_engine(extra: &str) -> Engine {
        let text = format!("[scheduler]\npolicy = \"dress\"\n[dress]\n{extra}\n");
        Engine::with_config(Config::parse(&text).unwrap()).unwrap()
    }

    fn find<'a>(gauges: &'a [Gauge], name: &str, pool: Option<&str>) -> &'a Gauge {
        gauges
            .iter()
            .find(|g| g.name == name && g.label_value("pool") == pool)
            .unwrap_or_else(|| panic!("no gauge {name} pool={pool:?} in {gauges:#?}"))
    }

    fn value(gauges: &[Gauge], name: &str, pool: Option<&str>) -> f64 {
        find(gauges, name, pool).value
    }

    /// Every gauge agrees with the state view (the reserve's state), which the
    /// DRESS tests check against the paper.
    fn assert_matches_state_view(e: &Engine) {
        let g = e.gauges();
        let st = &e.state_json()["pipelines"][0]["plugins"]["reserve"]["state"];
        let f = |v: &serde_json::Value| v.as_f64().unwrap();
        assert_eq!(value(&g, "dress_reserve_ratio", None), f(&st["delta"]));
        assert_eq!(value(&g, "dress_reserve_min_ratio", None), f(&st["delta_min"]));
        assert_eq!(value(&g, "dress_reserve_max_ratio", None), f(&st["delta_max"]));
        assert_eq!(value(&g, "dress_small_threshold_ratio", None), f(&st["theta"]));
        assert_eq!(value(&g, "dress_adjustments_total", None), f(&st["adjustments"]));
        assert_eq!(value(&g, "dress_available_ratio", None), f(&st["available_share"]));
        assert_eq!(value(&g, "dress_release_next_ratio", None), f(&st["f_next_share"]));
        for p in st["pools"].as_array().unwrap() {
            let pool = Some(p["pool"].as_str().unwrap());
            assert_eq!(value(&g, "dress_pool_share_ratio", pool), f(&p["share"]));
            for (i, res) in ["memory_mb", "vcores"].iter().enumerate() {
                assert_eq!(value(&g, &format!("dress_pool_capacity_{res}"), pool), f(&p["capacity"][i]));
                assert_eq!(value(&g, &format!("dress_pool_used_{res}"), pool), f(&p["used"][i]));
                assert_eq!(value(&g, &format!("dress_pool_pending_{res}"), pool), f(&p["pending"][i]));
            }
            assert_eq!(value(&g, "dress_pool_used_ratio", pool), f(&p["used_share"]));
            assert_eq!(value(&g, "dress_pool_available_ratio", pool), f(&p["available_share"]));
            assert_eq!(value(&g, "dress_pool_pending_ratio", pool), f(&p["pending_share"]));
            assert_eq!(value(&g, "dress_pool_pending_apps", pool), f(&p["pending_apps"]));
            assert_eq!(value(&g, "dress_pool_apps", pool), f(&p["apps"]));
            assert_eq!(value(&g, "dress_pool_release_next_ratio", pool), f(&p["release_next_share"]));
        }
    }

    #[test]
    fn gauges_follow_delta_pools_and_demand() {
        let mut e = dress_engine("delta_min = 0.0\ndelta_max = 1.0");
        add_node(&mut e, 1, 10 * 1024, 10);
        let g = e.gauges();
        assert_eq!(value(&g, "dress_reserve_ratio", None), 0.1);
        assert_eq!(value(&g, "dress_pool_capacity_memory_mb", Some("small")), 1024.0);
        assert_eq!(value(&g, "dress_pool_capacity_vcores", Some("large")), 9.0);
        assert_eq!(find(&g, "dress_adjustments_total", None).kind, GaugeKind::Counter);
        assert_matches_state_view(&e);

        // A large app wants 12 slots, a small one 1 slot (θ = 10 %). Pool
        // figures are refreshed by the pass, as in the state view.
        add_app(&mut e, 1, "default", "large", 0);
        ask(&mut e, 1, 1, 1024, 1, 12);
        add_app(&mut e, 2, "default", "small", 1);
        ask(&mut e, 2, 1, 1024, 1, 1);
        let mut out = vec![];
        e.schedule_node(1, 0, &mut out).unwrap();
        let g = e.gauges();
        // The large app stops at its pool (9 slots): the small pool has demand.
        assert_eq!(value(&g, "dress_pool_used_vcores", Some("large")), 9.0);
        assert_eq!(value(&g, "dress_pool_used_memory_mb", Some("small")), 1024.0);
        assert_eq!(value(&g, "dress_pool_pending_memory_mb", Some("large")), 3.0 * 1024.0);
        assert!((value(&g, "dress_pool_pending_ratio", Some("large")) - 0.3).abs() < 1e-12);
        assert_eq!(value(&g, "dress_pool_pending_apps", Some("large")), 1.0);
        assert_eq!(value(&g, "dress_pool_pending_apps", Some("small")), 0.0);
        assert_eq!(value(&g, "dress_pool_apps", Some("small")), 1.0);
        assert!((value(&g, "dress_pool_used_ratio", Some("large")) - 0.9).abs() < 1e-12);
        assert_eq!(value(&g, "dress_adjustments_total", None), 1.0);
        assert_matches_state_view(&e);

        // The small app's container finishes: next interval its pool has a
        // surplus and no demand, so Algorithm 3 shrinks δ (lines 7–8) and
        // the gauges move with it.
        let small_container = out
            .iter()
            .find_map(|d| match d {
                crate::engine::Decision::Allocate { app: 2, container, .. } => Some(*container),
                _ => None,
            })
            .unwrap();
        e.apply(Event::ContainerFinished { container: small_container, exit_status: 0, at_ms: 500 });
        e.schedule_node(1, 1000, &mut out).unwrap();
        let g = e.gauges();
        assert!(value(&g, "dress_reserve_ratio", None) < 0.1, "{g:#?}");
        assert_eq!(value(&g, "dress_adjustments_total", None), 2.0);
        assert!(value(&g, "dress_pool_capacity_memory_mb", Some("small")) < 1024.0);
        assert_matches_state_view(&e);
    }

    #[test]
    fn release_estimate_is_exported() {
        // Two containers per heartbeat, started on allocation: a phase of 6
        // tasks whose starts spread over Δps = 2 s (t_s = 1: more than one
        // start in the window opens it). Two finish at 5 s (t_e = 1): γ.
        // Eq. 9 then ramps the phase's release over [γ, γ + Δps].
        let text = "[scheduler]\npolicy = \"dress\"\nmax_assignments_per_heartbeat = 2\n[dress]\n\
                    t_s = 1\nt_e = 1\nskip_am_container = false\nstart_on = \"allocated\"\n";
        let mut e = Engine::with_config(Config::parse(text).unwrap()).unwrap();
        add_node(&mut e, 1, 10 * 1024, 10);
        add_app(&mut e, 1, "default", "big", 0);
        ask(&mut e, 1, 1, 1024, 1, 6);
        let mut ids = vec![];
        for t in [0, 1000, 2000] {
            let mut out = vec![];
            e.schedule_node(1, t, &mut out).unwrap();
            ids.extend(out.iter().filter_map(|d| match d {
                crate::engine::Decision::Allocate { container, .. } => Some(*container),
                _ => None,
            }));
        }
        assert_eq!(ids.len(), 6);
        for (i, c) in ids.iter().take(2).enumerate() {
            e.apply(Event::ContainerFinished { container: *c, exit_status: 0, at_ms: 5000 + i as i64 });
        }
        let mut seen = 0.0f64;
        for t in [5000, 6000, 7000, 8000] {
            let mut out = vec![];
            e.schedule_node(1, t, &mut out).unwrap();
            assert_matches_state_view(&e);
            let g = e.gauges();
            let total = value(&g, "dress_release_next_ratio", None);
            let large = value(&g, "dress_pool_release_next_ratio", Some("large"));
            let parts = value(&g, "dress_available_ratio", None) + value(&g, "dress_pool_release_next_ratio", Some("small")) + large;
            assert!((total - parts).abs() < 1e-12, "Eq. 1 at {t}: {total} vs {parts}");
            seen = seen.max(large);
        }
        assert!(seen > 0.0, "F_2(t+1) never above 0: {}", e.state_json()["pipelines"][0]["plugins"]["reserve"]["state"]);
    }

    #[test]
    fn extra_resource_types_get_their_own_series() {
        let text = "[scheduler]\npolicy = \"dress\"\n";
        let e = Engine::new(Config::parse(text).unwrap(), vec!["memory-mb".into(), "vcores".into(), "yarn.io/gpu".into()]).unwrap();
        let g = e.gauges();
        for pool in ["small", "large"] {
            for prefix in ["dress_pool_capacity", "dress_pool_used", "dress_pool_pending"] {
                find(&g, &format!("{prefix}_yarn_io_gpu"), Some(pool));
            }
        }
        // Names are Prometheus-safe.
        for x in &g {
            assert!(x.name.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_'), "{}", x.name);
        }
    }
}
