//! The applications a pass may still serve on its node, in app order: one
//! group's (a YARN queue's, or every app's when the queue order is flat).
//!
//! Most app orders key an app by what the app itself holds, so a key stays
//! right until the app gets a container, and one heap by key serves them.
//! Some keys also move when *other* apps get containers (GS: an app's key
//! is its priority queue's usage, which every container in that queue
//! raises). With one heap those keys go stale, and the pass re-keys a
//! candidate when it comes up, putting it back if its key grew; with
//! hundreds of apps in one GS queue that is hundreds of re-keys per
//! container. An order that ranks by *levels* (`AppOrder::levels`: every
//! app of a level shares the moving part of the key) gets one heap per
//! level instead, ordered by the part of the key that does not move, and
//! the level to serve is chosen by each level's current `primary`: the
//! same app comes up as with one heap and every key fresh, for O(levels)
//! work per container.

use crate::model::{App, AppId, ClusterState, QueueId};
use crate::policy::{PolicySet, SortKey};
use std::cmp::Reverse;
use std::collections::BinaryHeap;

type Heap = BinaryHeap<Reverse<(SortKey, AppId)>>;

pub(super) struct Candidates {
    /// The queue whose pipeline keys these apps (any queue's when flat:
    /// then every queue runs the one pipeline).
    queue: QueueId,
    kind: Kind,
}

enum Kind {
    /// By each app's key when it was computed.
    Keyed(Heap),
    /// One heap per level, by key with `primary` left out (it is the
    /// level's, read when choosing the level).
    Levelled(Vec<Heap>),
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
        let levels = policies.app_levels(queue);
        let kind = if levels > 0 {
            let mut lists = vec![Vec::new(); levels];
            for app in apps {
                let (level, key) = levelled(s, policies, app);
                lists[level.min(levels - 1)].push(Reverse((in_level(key), app.id)));
            }
            Kind::Levelled(lists.into_iter().map(Heap::from).collect())
        } else {
            Kind::Keyed(apps.map(|app| Reverse((policies.app_key(s, app), app.id))).collect())
        };
        Candidates { queue, kind }
    }

    pub(super) fn is_empty(&self) -> bool {
        match &self.kind {
            Kind::Keyed(h) => h.is_empty(),
            Kind::Levelled(hs) => hs.iter().all(BinaryHeap::is_empty),
        }
    }

    pub(super) fn ids(&self) -> impl Iterator<Item = AppId> + '_ {
        let heaps: &[Heap] = match &self.kind {
            Kind::Keyed(h) => std::slice::from_ref(h),
            Kind::Levelled(hs) => hs,
        };
        heaps.iter().flat_map(|h| h.iter().map(|Reverse((_, id))| *id))
    }

    /// Add `app` with its key as it stands now.
    pub(super) fn push(&mut self, s: &ClusterState, policies: &PolicySet, app: &App) {
        match &mut self.kind {
            Kind::Keyed(h) => h.push(Reverse((policies.app_key(s, app), app.id))),
            Kind::Levelled(hs) => {
                let (level, key) = levelled(s, policies, app);
                let level = level.min(hs.len() - 1);
                hs[level].push(Reverse((in_level(key), app.id)));
            }
        }
    }

    /// The app to serve next: the lowest key as keys stand now. A key that
    /// grew since it was stored (an order whose keys go stale) goes back
    /// in with its new value and the next one is tried.
    pub(super) fn pop(&mut self, s: &ClusterState, policies: &PolicySet) -> Option<AppId> {
        loop {
            let (key, id) = match &mut self.kind {
                Kind::Keyed(h) => h.pop().map(|Reverse(e)| e)?,
                Kind::Levelled(hs) => {
                    let q = self.queue;
                    let (key, level) = hs
                        .iter()
                        .enumerate()
                        .filter_map(|(l, h)| h.peek().map(|Reverse((k, _))| (SortKey { primary: policies.level_primary(q, l), ..*k }, l)))
                        .min()?;
                    let Reverse((_, id)) = hs[level].pop()?;
                    (key, id)
                }
            };
            let Some(app) = s.apps.get(&id) else { return Some(id) };
            let fresh = match &self.kind {
                Kind::Keyed(_) if policies.keys_go_stale(app) => policies.app_key(s, app),
                Kind::Keyed(_) => return Some(id),
                // The level's part is fresh; the app's own part, or its
                // level, moves only with its own containers, but check.
                Kind::Levelled(_) => levelled(s, policies, app).1,
            };
            if fresh > key {
                self.push(s, policies, app);
                continue;
            }
            return Some(id);
        }
    }
}

fn levelled(s: &ClusterState, policies: &PolicySet, app: &App) -> (usize, SortKey) {
    // An order with levels keys every app by level (`AppOrder::levelled_key`);
    // should one not, the top level with its plain key keeps it served.
    policies.levelled_app_key(s, app).unwrap_or_else(|| (0, policies.app_key(s, app)))
}
