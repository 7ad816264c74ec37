//! The two pools' figures (§IV-C: "each category maintains its own pool of
//! jobs that consists of pending and running jobs"): what each pool's apps
//! hold and still ask for, the inputs of the pool filter and of the
//! borrowing rule.
//!
//! Kept per application, so a pass never rescans every application: each
//! app's share is recounted when that app changes (its asks, a container
//! allocated to it or finished), and the pool sums move by the difference.
//! The sums are integer resource vectors and counts, so they equal a full
//! recount exactly.

use super::classify::units;
use crate::model::{App, AppId, Resources};
use std::collections::HashMap;

/// One app's part of its pool.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Share {
    pub pool: usize,
    pub used: Resources,
    pub pending: Resources,
    pub has_pending: bool,
}

impl Share {
    pub fn of(app: &App, pool: usize) -> Share {
        Share { pool, used: app.allocated, pending: app.pending(), has_pending: app.has_pending() }
    }
}

/// Sums over one pool's apps.
#[derive(Debug, Clone, Copy, Default)]
pub struct PoolFigures {
    pub used: Resources,
    pub pending: Resources,
    /// Apps of the pool with outstanding asks; 0 = "no pending demand", the
    /// condition for the other pool to borrow.
    pub pending_apps: usize,
    /// Classified apps of the pool.
    pub apps: usize,
}

#[derive(Debug, Default)]
pub struct Pools {
    figures: [PoolFigures; 2],
    shares: HashMap<AppId, Share>,
}

impl Pools {
    pub fn figures(&self, pool: usize) -> &PoolFigures {
        &self.figures[pool]
    }

    /// Replace `app`'s share (`None`: it left, or is not classified yet).
    pub fn set(&mut self, app: AppId, share: Option<Share>) {
        if let Some(old) = self.shares.remove(&app) {
            let f = &mut self.figures[old.pool];
            f.used -= old.used;
            f.pending -= old.pending;
            f.pending_apps -= old.has_pending as usize;
            f.apps -= 1;
        }
        if let Some(new) = share {
            let f = &mut self.figures[new.pool];
            f.used += new.used;
            f.pending += new.pending;
            f.pending_apps += new.has_pending as usize;
            f.apps += 1;
            self.shares.insert(app, new);
        }
    }

    pub fn clear(&mut self) {
        *self = Pools::default();
    }

    /// P_k in units: Σ r_i over the pool's apps with outstanding asks, each
    /// app's outstanding asks as one dominant share (Algorithm 3 lines 3–6
    /// sum it so). For the views; Algorithm 3 sums its own from the apps.
    pub fn pending_units(&self, pool: usize, capacity: &Resources) -> f64 {
        // Summed in app order, so the view is the same number every time.
        let mut apps: Vec<(&AppId, &Share)> = self.shares.iter().filter(|(_, s)| s.pool == pool && s.has_pending).collect();
        apps.sort_by_key(|(id, _)| **id);
        apps.iter().map(|(_, s)| units(&s.pending, capacity)).sum()
    }
}
