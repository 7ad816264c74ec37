//! Why each app waits: the state view's "why is this pending", kept off the
//! heartbeat's hot path.
//!
//! A pass records a reason for every app it considers and cannot serve,
//! and when its node fills up, `Outranked` for every candidate still
//! queued behind the ones it served. With thousands of apps that last
//! note is most of the notes: writing it into each app costs a cache miss
//! (and a copy-on-write check) per app per heartbeat, about 1 ms of the
//! pass at 6 000 apps (`shepherd bench-heartbeat --apps 6000`), for a view
//! that is read only when someone asks. So the fill keeps one list of the
//! ids it left waiting instead, and a reason is resolved when it is read:
//! the newest of the app's own note and the latest fill that listed it.
//! When a newer fill replaces the list, the apps it no longer lists get
//! the older fill written as their own note, so what the view shows is
//! exactly what writing every note at once would have shown.

use super::app::{AppId, Blocked};
use super::node::NodeId;
use std::collections::HashMap;

/// When and where an app was last refused a container, and why.
pub type WaitReason = (i64, NodeId, Blocked);

/// The ids of `all` that `gone` does not hold, both ascending (slices, or
/// a B-tree's keys): one walk over the two, no lookup per id.
pub fn ascending_minus<A, G>(all: A, gone: G) -> impl Iterator<Item = AppId>
where
    A: IntoIterator<Item = AppId>,
    G: IntoIterator<Item = AppId>,
{
    let mut gone = gone.into_iter().peekable();
    let mut last: Option<AppId> = None;
    all.into_iter().filter(move |id| {
        debug_assert!(last.replace(*id).is_none_or(|l| l < *id), "ascending ids");
        while gone.next_if(|g| g < id).is_some() {}
        gone.peek() != Some(id)
    })
}

#[derive(Debug, Default)]
pub struct WaitReasons {
    /// Orders notes, clears and fills: the higher stamp is the newer.
    clock: u64,
    /// Each app's own latest note (`None`: cleared by a container), stamped.
    own: HashMap<AppId, (u64, Option<WaitReason>)>,
    /// The latest pass whose node filled, and the apps it left queued.
    filled: Option<Fill>,
}

#[derive(Debug)]
struct Fill {
    stamp: u64,
    at_ms: i64,
    node: NodeId,
    /// Sorted, for lookups by id.
    apps: Vec<AppId>,
}

impl Fill {
    fn lists(&self, app: AppId) -> bool {
        self.apps.binary_search(&app).is_ok()
    }
}

impl WaitReasons {
    fn tick(&mut self) -> u64 {
        self.clock += 1;
        self.clock
    }

    /// A pass could not serve `app`'s most urgent ask, for `reason`.
    pub fn note(&mut self, app: AppId, reason: WaitReason) {
        let stamp = self.tick();
        self.own.insert(app, (stamp, Some(reason)));
    }

    /// `app` got a container: it waits for nothing until a pass notes it again.
    pub fn clear(&mut self, app: AppId) {
        let stamp = self.tick();
        self.own.insert(app, (stamp, None));
    }

    /// The node of a pass at `at_ms` filled before `apps`' turn; `apps`
    /// ascending (a pass lists its candidates in id order). Returns the
    /// fill's stamp, for `outranked_again`.
    pub fn outranked(&mut self, at_ms: i64, node: NodeId, apps: Vec<AppId>) -> u64 {
        debug_assert!(apps.windows(2).all(|w| w[0] < w[1]), "fill lists must be ascending");
        let stamp = self.tick();
        let newer = Fill { stamp, at_ms, node, apps };
        if let Some(older) = self.filled.take() {
            // The apps only the older fill lists (the two are mostly the same
            // hundreds of apps each time).
            for app in ascending_minus(older.apps.iter().copied(), newer.apps.iter().copied()) {
                self.outranked_before(app, &older);
            }
        }
        self.filled = Some(newer);
        stamp
    }

    /// `outranked` with the list of the latest fill, if its stamp is
    /// `latest`, without `leaving` and with `joining` (each ascending;
    /// `leaving` must hold every app the new list drops and none it keeps,
    /// `joining` every app it adds and none it drops). A scheduling round
    /// fills node after node over candidates that change by a few apps
    /// from one fill to the next (`engine::pass::MainQueue`), so it edits
    /// the list instead of handing over a new one. `None` (nothing
    /// recorded) when the latest fill is another one.
    pub fn outranked_again(&mut self, latest: u64, at_ms: i64, node: NodeId, leaving: &[AppId], joining: &[AppId]) -> Option<u64> {
        let mut fill = self.filled.take_if(|f| f.stamp == latest)?;
        for &app in leaving {
            if let Ok(i) = fill.apps.binary_search(&app) {
                fill.apps.remove(i);
                self.outranked_before(app, &fill);
            }
        }
        for &app in joining {
            if let Err(i) = fill.apps.binary_search(&app) {
                fill.apps.insert(i, app);
            }
        }
        let stamp = self.tick();
        self.filled = Some(Fill { stamp, at_ms, node, ..fill });
        Some(stamp)
    }

    /// `app` was listed by the fill `older` and is not by the newer one: it
    /// keeps `older` as its own note unless it has a newer one.
    fn outranked_before(&mut self, app: AppId, older: &Fill) {
        if self.own.get(&app).is_none_or(|(own, _)| *own < older.stamp) {
            self.own.insert(app, (older.stamp, Some((older.at_ms, older.node, Blocked::Outranked))));
        }
    }

    /// Why `app` waits: the newer of its own note and the latest fill that
    /// left it queued.
    pub fn of(&self, app: AppId) -> Option<WaitReason> {
        let own = self.own.get(&app);
        if let Some(f) = &self.filled {
            if own.is_none_or(|(stamp, _)| *stamp < f.stamp) && f.lists(app) {
                return Some((f.at_ms, f.node, Blocked::Outranked));
            }
        }
        own.and_then(|(_, reason)| *reason)
    }

    /// `app` left the cluster: nothing of it stays, not even in the latest
    /// fill's list (which a newer fill would otherwise turn into a note).
    pub fn forget(&mut self, app: AppId) {
        self.own.remove(&app);
        if let Some(f) = &mut self.filled {
            if let Ok(i) = f.apps.binary_search(&app) {
                f.apps.remove(i);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fill_outranks_the_apps_it_lists_until_they_are_noted_or_served() {
        let mut w = WaitReasons::default();
        w.note(1, (5, 9, Blocked::Locality));
        w.outranked(10, 3, vec![1, 2]);
        assert_eq!(w.of(1), Some((10, 3, Blocked::Outranked)));
        assert_eq!(w.of(2), Some((10, 3, Blocked::Outranked)));
        assert_eq!(w.of(3), None);
        w.note(2, (11, 4, Blocked::QueueMax));
        w.clear(1);
        assert_eq!(w.of(1), None);
        assert_eq!(w.of(2), Some((11, 4, Blocked::QueueMax)));
    }

    #[test]
    fn a_newer_fill_keeps_what_the_older_one_said_of_apps_it_does_not_list() {
        let mut w = WaitReasons::default();
        w.outranked(10, 3, vec![1, 2, 3]);
        // App 2 gets a container after the first fill, app 3 a note.
        w.clear(2);
        w.note(3, (12, 7, Blocked::Label));
        w.outranked(20, 4, vec![3]);
        assert_eq!(w.of(1), Some((10, 3, Blocked::Outranked)));
        assert_eq!(w.of(2), None);
        assert_eq!(w.of(3), Some((20, 4, Blocked::Outranked)));
        w.outranked(30, 5, vec![]);
        assert_eq!(w.of(1), Some((10, 3, Blocked::Outranked)));
        assert_eq!(w.of(3), Some((20, 4, Blocked::Outranked)));
        w.forget(1);
        assert_eq!(w.of(1), None);
    }

    /// Property: over random notes, clears, fills (new lists, or the last
    /// one edited) and departures, the view equals what writing every note
    /// into every app at once gives.
    #[test]
    fn resolving_on_read_equals_writing_every_note() {
        use crate::workload::rng::Rng;
        for seed in 0..200 {
            let mut rng = Rng::seeded(seed);
            let mut lazy = WaitReasons::default();
            let mut eager: HashMap<AppId, WaitReason> = HashMap::new();
            let mut last: Option<(u64, Vec<AppId>)> = None;
            for t in 0..300 {
                let app = rng.int(0, 11) as AppId;
                let node = rng.int(0, 3) as NodeId;
                match rng.int(0, 9) {
                    0..=2 => {
                        let why = *rng.pick(&[Blocked::Locality, Blocked::NodeFull, Blocked::QueueMax]);
                        lazy.note(app, (t, node, why));
                        eager.insert(app, (t, node, why));
                    }
                    3..=4 => {
                        lazy.clear(app);
                        eager.remove(&app);
                    }
                    5..=8 => {
                        let queued: Vec<AppId> = (0..12).filter(|_| rng.chance(0.5)).collect();
                        for &a in &queued {
                            eager.insert(a, (t, node, Blocked::Outranked));
                        }
                        // Half the time the list is edited from the last
                        // fill's, as a round's kept candidates do.
                        let stamp = match &last {
                            Some((stamp, before)) if rng.chance(0.5) => {
                                let leaving: Vec<AppId> = ascending_minus(before.iter().copied(), queued.iter().copied()).collect();
                                let joining: Vec<AppId> = ascending_minus(queued.iter().copied(), before.iter().copied()).collect();
                                lazy.outranked_again(*stamp, t, node, &leaving, &joining).expect("the latest fill")
                            }
                            _ => lazy.outranked(t, node, queued.clone()),
                        };
                        assert_eq!(lazy.outranked_again(stamp + 1, t, node, &[], &[]), None, "not the latest fill");
                        last = Some((stamp, queued));
                    }
                    _ => {
                        lazy.forget(app);
                        eager.remove(&app);
                        if let Some((_, before)) = &mut last {
                            before.retain(|&a| a != app);
                        }
                    }
                }
                for a in 0..12 {
                    assert_eq!(lazy.of(a), eager.get(&a).copied(), "seed {seed}, step {t}, app {a}");
                }
            }
        }
    }
}
