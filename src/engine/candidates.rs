//! The applications a pass may still serve on its node, in app order: one
//! group's (a YARN queue's, or every app's when the queue order is flat).
//! A heartbeat's pass builds them for its node; a scheduling round keeps
//! them over every node it visits when the app orders allow it
//! (`super::pass::MainQueue`), checking each key as it comes up.
//!
//! Most app orders key an app by what the app itself holds, so a key stays
//! right until the app gets a container, and one heap by key serves them.
//! Some keys also move when *other* apps get containers (GS: an app's key
//! is its priority queue's usage, which every container in that queue
//! raises). With one heap those keys go stale, and the pass re-keys a
//! candidate when it comes up, putting it back if its key grew; with
//! hundreds of apps in one GS queue that is hundreds of re-keys per
//! container. An order that ranks by *levels* (`Capabilities::levels`: every
//! app of a level shares the moving part of the key) gets one heap per
//! level instead, ordered by the part of the key that does not move, and
//! the level to serve is chosen by each level's current `primary`: the
//! same app comes up as with one heap and every key fresh, for O(levels)
//! work per container. No key needs a re-check when it comes up: by the
//! order's promise only the level's `primary` moves with other apps'
//! containers, and an app's own container puts it back in with a fresh
//! key and level.

use crate::model::{App, AppId, ClusterState, QueueId};
use crate::policy::{PolicySet, SortKey};
use std::cmp::Reverse;
use std::collections::BinaryHeap;

type Heap = BinaryHeap<Reverse<(SortKey, AppId)>>;

pub(super) enum Candidates {
    /// By each app's key when it was computed.
    Keyed(Heap),
    /// One heap per level, by key with `primary` left out (it is the
    /// level's, read when choosing the level); `queue`'s pipeline keys
    /// them (any queue's when flat: then every queue runs the one pipeline).
    Levelled { queue: QueueId, levels: Vec<Heap> },
}

/// A key in a level's heap: the level's `primary` is read when the level
/// is chosen, so the stored key leaves it out.
fn in_level(key: SortKey) -> SortKey {
    SortKey { primary: 0.0, ..key }
}

impl Candidates {
    /// The candidates among `apps` (all of queue `queue`'s group), each
    /// keyed as it stands now; heaps built in one go (O(n)).
    pub(super) fn new<'a>(queue: QueueId, s: &ClusterState, policies: &PolicySet, apps: impl Iterator<Item = &'a App>) -> Candidates {
        let n = policies.app_levels(queue);
        if n == 0 {
            return Candidates::Keyed(apps.map(|app| Reverse((policies.app_key(s, app), app.id))).collect());
        }
        let mut lists = vec![Vec::new(); n];
        for app in apps {
            let (level, key) = policies.levelled_app_key(s, app);
            lists[level.min(n - 1)].push(Reverse((in_level(key), app.id)));
        }
        Candidates::Levelled { queue, levels: lists.into_iter().map(Heap::from).collect() }
    }

    pub(super) fn is_empty(&self) -> bool {
        self.heaps().iter().all(BinaryHeap::is_empty)
    }

    fn heaps(&self) -> &[Heap] {
        match self {
            Candidates::Keyed(h) => std::slice::from_ref(h),
            Candidates::Levelled { levels, .. } => levels,
        }
    }

    /// Add `app` with its key as it stands now.
    pub(super) fn push(&mut self, s: &ClusterState, policies: &PolicySet, app: &App) {
        match self {
            Candidates::Keyed(h) => h.push(Reverse((policies.app_key(s, app), app.id))),
            Candidates::Levelled { levels, .. } => {
                let (level, key) = policies.levelled_app_key(s, app);
                let last = levels.len() - 1;
                levels[level.min(last)].push(Reverse((in_level(key), app.id)));
            }
        }
    }

    /// The app to serve next: the lowest key as keys stand now. With
    /// `recheck`, every key is checked when it comes up, not only those of
    /// orders whose keys go stale: a round's candidates outlive the pass
    /// that keyed them (`engine::round`), and an app served by an earlier
    /// pass's leftover phase keeps its old key in the heap until then. An
    /// app with nothing left to ask comes up as it is (the pass skips it).
    pub(super) fn pop(&mut self, s: &ClusterState, policies: &PolicySet, recheck: bool) -> Option<AppId> {
        match self {
            Candidates::Levelled { queue, levels } => {
                let (_, level) = levels
                    .iter()
                    .enumerate()
                    .filter_map(|(l, h)| h.peek().map(|Reverse((k, _))| (SortKey { primary: policies.level_primary(*queue, l), ..*k }, l)))
                    .min()?;
                levels[level].pop().map(|Reverse((_, id))| id)
            }
            // A key that grew since it was stored (an order whose keys go
            // stale, without levels) goes back in with its new value and
            // the next one is tried.
            Candidates::Keyed(h) => loop {
                let Reverse((key, id)) = h.pop()?;
                let Some(app) = s.apps.get(&id).filter(|a| (recheck && a.has_pending()) || policies.keys_go_stale(a)) else {
                    return Some(id);
                };
                let fresh = policies.app_key(s, app);
                debug_assert!(!recheck || fresh >= key, "app {id}: a kept candidate's key fell ({key:?} to {fresh:?})");
                if fresh > key {
                    h.push(Reverse((fresh, id)));
                    continue;
                }
                return Some(id);
            },
        }
    }
}
