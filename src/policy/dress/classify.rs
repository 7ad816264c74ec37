//! Classification of applications into small-demand (SD) and large-demand
//! (LD), DRESS §IV-C: "if the resource request is larger than A_c × θ, the
//! job will be classified to large demand, otherwise small demand".
//!
//! **How "containers" are measured on multi-resource YARN.** The paper counts
//! containers of one size. YARN apps ask for containers of different shapes
//! (memory, vcores, GPUs, ...), and Algorithm 3 must *add* demands of
//! different apps (P1, P2) and compare them with pool capacities, so every
//! quantity needs one unit shared by all apps. DRESS-in-Shepherd measures a
//! resource vector by its **dominant share** of the cluster's capacity
//! (max over resource types of amount / cluster total, as in DRF):
//!
//! * it is additive enough to sum across apps, and a pool's vector capacity
//!   δ·Tot_R admits a vector exactly when its dominant share is ≤ δ, so the
//!   scalar Algorithm 3 works with and the vector the filter enforces agree;
//! * for the paper's setting (one container size c, Tot_R such containers)
//!   r containers have dominant share r·ds(c) = r / Tot_R, so "r ≤ θ·Tot_R"
//!   is the paper's rule exactly. The alternative, counting Tot_R in units
//!   of each app's own container size, gives the same number up to rounding
//!   but is a different unit for every app, which Algorithm 3 cannot add.
//!
//! **The request** of an app is its total demand: allocated plus
//! outstanding (the AM sends outstanding counts per scheduler key, the
//! engine keeps what is already allocated).
//!
//! **A_c** (`classify_against`): `total` (default) compares against the
//! whole cluster, Tot_R — §V's evaluation names small jobs by a fixed size
//! ("less than 10 containers") and, in the congested clusters DRESS targets,
//! the instantaneous free capacity is near zero, which would make every app
//! large. `available` compares against the currently unallocated capacity,
//! the literal §IV-C text.
//!
//! **When.** The category is decided when the app's first asks arrive
//! (before it can get a container) and re-decided whenever its total request
//! grows past the largest seen so far (the component-wise peak of allocated
//! plus outstanding; e.g. a MapReduce AM asks for its maps after the AM
//! container, then for its reduces). With A_c = `total` it is also
//! re-decided when the cluster's capacity changed since the last decision
//! (NodeManagers registering after an RM restart). It is never downgraded
//! because the app's remaining work shrinks: the paper classifies jobs by
//! their request, and a finishing large job must not jump into the small
//! pool.

use crate::model::{App, Resources};
use crate::policy::Ctx;
use serde::Serialize;

use super::reserve::EPS;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Category {
    /// SD, category 1.
    Small,
    /// LD, category 2.
    Large,
}

impl Category {
    pub fn index(self) -> usize {
        match self {
            Category::Small => 0,
            Category::Large => 1,
        }
    }

    pub fn other(self) -> Category {
        match self {
            Category::Small => Category::Large,
            Category::Large => Category::Small,
        }
    }
}

/// A resource vector in the common unit: its dominant share of `capacity`.
pub fn units(r: &Resources, capacity: &Resources) -> f64 {
    r.dominant_share(capacity)
}

/// The app's total request, allocated plus outstanding, in units.
pub fn demand_units(app: &App, capacity: &Resources) -> f64 {
    units(&(app.allocated + app.pending()), capacity)
}

/// A_c in units: the largest share of the scope (cluster or queue) still
/// free in every resource type (the binding type decides, as for fitting a
/// container).
pub fn free_units(ctx: &Ctx) -> f64 {
    let free = ctx.scope.free(ctx.state);
    ctx.scope
        .capacity(ctx.state)
        .0
        .iter()
        .zip(free.0.iter())
        .filter(|(c, _)| **c > 0)
        .map(|(c, f)| (*f).max(0) as f64 / *c as f64)
        .fold(None, |m: Option<f64>, v| Some(m.map_or(v, |m| m.min(v))))
        .unwrap_or(0.0)
        .clamp(0.0, 1.0)
}

/// The rule: small iff request ≤ θ·A_c (`base` is A_c in units: 1.0 for
/// `total`, `free_units` for `available`).
pub fn classify(demand: f64, theta: f64, base: f64) -> Category {
    if demand <= theta * base + EPS {
        Category::Small
    } else {
        Category::Large
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dominant_share_matches_container_count_for_one_size() {
        // 100 containers of <1 GB, 1 core>; 10 of them = θ·Tot_R exactly.
        let cap = Resources::new(100 * 1024, 100);
        let ten = Resources::new(1024, 1).times(10);
        assert!((units(&ten, &cap) - 0.10).abs() < 1e-12);
        assert_eq!(classify(units(&ten, &cap), 0.10, 1.0), Category::Small);
        let eleven = Resources::new(1024, 1).times(11);
        assert_eq!(classify(units(&eleven, &cap), 0.10, 1.0), Category::Large);
        // A memory-light but core-heavy request is measured by its cores.
        let cores = Resources::new(1024, 20);
        assert!((units(&cores, &cap) - 0.20).abs() < 1e-12);
        // Against the free capacity instead: 30 % free ⇒ cut-off 3 %.
        assert_eq!(classify(0.05, 0.10, 0.30), Category::Large);
        assert_eq!(classify(0.03, 0.10, 0.30), Category::Small);
    }
}
