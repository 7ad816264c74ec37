//! An app's live containers by id, kept in flat arrays.
//!
//! Policies walk all of an app's live containers each time they plan it
//! (Carbyne's job model reads every running task's age at each replan, and a
//! large job runs over a thousand). In a B-tree that walk chases a pointer
//! per node, scattered over the heap; here it streams through an array of
//! small heads (id, key, start), with the sizes (an eight-type resource
//! vector each) in an array of their own. Containers are allocated in
//! ascending id order, so an insert appends; an ended container leaves a
//! hole that later walks skip, and the holes are squeezed out once they
//! outnumber the live containers (amortized O(1) per removal). Iteration is
//! in ascending id order, as a `BTreeMap`'s, so every walk sees the
//! containers in the order it did before.

use super::app::LiveContainer;
use super::ask::SchedulerKey;
use super::resource::Resources;
use super::start_index::StartIndex;
use serde::ser::{Serialize, SerializeMap, Serializer};
use std::sync::OnceLock;

#[derive(Debug, Clone, Default)]
pub struct LiveContainers {
    /// Ascending by id: what a walk over the containers reads first.
    heads: Vec<Head>,
    /// `sizes[i]` is the size of `heads[i]`'s container. Apart from the
    /// heads because a size is as large as the rest of a head twice over
    /// and most walks (a job model's task ages) do not read it.
    sizes: Vec<Resources>,
    /// How many heads are not holes.
    live: usize,
    /// Every head before this one is a hole: containers mostly end oldest
    /// first, and walks start here rather than step over them.
    first: usize,
    /// How many live containers each key has (an app asks under a few):
    /// what a walk that needs only the keys reads instead of every head.
    per_key: Vec<(SchedulerKey, usize)>,
    /// `start_index[i]`: the start times of `per_key[i]`'s containers,
    /// sorted (what a sum over their ages reads instead of every head).
    /// Built at the first read and kept up from then on: only the policies
    /// that ask (Carbyne's leftover order and job model) pay for its upkeep.
    start_index: OnceLock<Vec<StartIndex>>,
}

#[derive(Debug, Clone, Copy)]
struct Head {
    id: u64,
    key: SchedulerKey,
    started_ms: i64,
    /// False: the container has ended (a hole).
    live: bool,
}

/// Fewer slots than this are never squeezed: holes in a small array cost
/// less than moving it.
const SQUEEZE_FROM: usize = 32;

impl LiveContainers {
    pub fn new() -> LiveContainers {
        LiveContainers::default()
    }

    pub fn len(&self) -> usize {
        self.live
    }

    pub fn is_empty(&self) -> bool {
        self.live == 0
    }

    fn slot(&self, id: u64) -> Result<usize, usize> {
        self.heads.binary_search_by_key(&id, |h| h.id)
    }

    /// Where live container `id` is. Searched from `first` outwards in
    /// doubling steps (a galloping search): the containers that end and are
    /// looked up are mostly the oldest, a few slots from `first`.
    fn live_slot(&self, id: u64) -> Option<usize> {
        let heads = &self.heads[self.first..];
        let mut end = 1;
        while end < heads.len() && heads[end - 1].id < id {
            end *= 2;
        }
        let range = &heads[end / 2..end.min(heads.len())];
        let i = range.binary_search_by_key(&id, |h| h.id).ok()?;
        let i = self.first + end / 2 + i;
        self.heads[i].live.then_some(i)
    }

    fn at(&self, i: usize) -> LiveContainer {
        let h = &self.heads[i];
        LiveContainer { key: h.key, resources: self.sizes[i], started_ms: h.started_ms }
    }

    pub fn get(&self, id: &u64) -> Option<LiveContainer> {
        self.live_slot(*id).map(|i| self.at(i))
    }

    pub fn contains_key(&self, id: &u64) -> bool {
        self.live_slot(*id).is_some()
    }

    /// Container `id` started at `at_ms` (it launched); false if it is not live.
    pub fn set_started(&mut self, id: &u64, at_ms: i64) -> bool {
        match self.live_slot(*id) {
            Some(i) => {
                let Head { key, started_ms, .. } = self.heads[i];
                let slot = self.key_slot(key);
                if let Some(index) = self.start_index.get_mut() {
                    let k = slot.expect("a live container's key is counted");
                    let held = index[k].remove(started_ms);
                    debug_assert!(held, "a live container's start is indexed");
                    index[k].insert(at_ms);
                }
                self.heads[i].started_ms = at_ms;
                true
            }
            None => false,
        }
    }

    /// Adds (or replaces) container `id`; returns what it replaced.
    pub fn insert(&mut self, id: u64, c: LiveContainer) -> Option<LiveContainer> {
        let head = Head { id, key: c.key, started_ms: c.started_ms, live: true };
        self.count(c.key, c.started_ms, true);
        if self.heads.last().is_none_or(|h| h.id < id) {
            self.heads.push(head);
            self.sizes.push(c.resources);
            self.live += 1;
            return None;
        }
        match self.slot(id) {
            Ok(i) => {
                let old = self.heads[i].live.then(|| self.at(i));
                match old {
                    Some(old) => self.count(old.key, old.started_ms, false),
                    None => self.live += 1,
                }
                self.heads[i] = head;
                self.sizes[i] = c.resources;
                self.first = self.first.min(i);
                old
            }
            Err(i) => {
                self.heads.insert(i, head);
                self.sizes.insert(i, c.resources);
                self.live += 1;
                self.first = self.first.min(i);
                None
            }
        }
    }

    pub fn remove(&mut self, id: &u64) -> Option<LiveContainer> {
        let i = self.live_slot(*id)?;
        let old = self.at(i);
        self.heads[i].live = false;
        self.live -= 1;
        self.count(old.key, old.started_ms, false);
        if i == self.first {
            while self.heads.get(self.first).is_some_and(|h| !h.live) {
                self.first += 1;
            }
        }
        if self.heads.len() >= SQUEEZE_FROM && self.heads.len() > 2 * self.live {
            let mut keep = self.heads.iter().map(|h| h.live);
            self.sizes.retain(|_| keep.next() == Some(true));
            self.heads.retain(|h| h.live);
            self.first = 0;
        }
        Some(old)
    }

    /// One more (`up`) or one fewer live container under `key`, started
    /// at `started_ms`.
    fn count(&mut self, key: SchedulerKey, started_ms: i64, up: bool) {
        let slot = self.key_slot(key);
        let index = self.start_index.get_mut();
        match slot {
            Some(i) if up => {
                self.per_key[i].1 += 1;
                if let Some(index) = index {
                    index[i].insert(started_ms);
                }
            }
            Some(i) => {
                self.per_key[i].1 -= 1;
                if let Some(index) = index {
                    let held = index[i].remove(started_ms);
                    debug_assert!(held, "a live container's start is indexed");
                }
                if self.per_key[i].1 == 0 {
                    self.per_key.swap_remove(i);
                    if let Some(index) = self.start_index.get_mut() {
                        index.swap_remove(i);
                    }
                }
            }
            None if up => {
                self.per_key.push((key, 1));
                if let Some(index) = index {
                    index.push(StartIndex::from_sorted(vec![started_ms]));
                }
            }
            None => debug_assert!(false, "a live container's key is counted"),
        }
    }

    /// How many of `key`'s live containers started after `after_ms`, and
    /// the sum of their start times. The first call builds the index
    /// (sorting every key's start times); later ones read it.
    pub fn started_after(&self, key: SchedulerKey, after_ms: i64) -> (usize, i128) {
        let [after] = self.started_after_each(key, [after_ms]);
        after
    }

    /// [`started_after`](Self::started_after) for each of several times,
    /// finding the key once.
    pub fn started_after_each<const N: usize>(&self, key: SchedulerKey, after_ms: [i64; N]) -> [(usize, i128); N] {
        match self.key_slot(key) {
            Some(i) => {
                let index = &self.start_index.get_or_init(|| self.build_start_index())[i];
                after_ms.map(|at| index.after(at))
            }
            None => [(0, 0); N],
        }
    }

    /// The start times of `key`'s live containers, ascending (from the
    /// index [`started_after`](Self::started_after) reads, built at the
    /// first read): a job model's running tasks in the order of their
    /// remaining times, without a sort.
    pub fn starts_ascending(&self, key: SchedulerKey) -> impl Iterator<Item = i64> + '_ {
        let index = self.key_slot(key).map(|i| &self.start_index.get_or_init(|| self.build_start_index())[i]);
        index.into_iter().flat_map(StartIndex::ascending)
    }

    /// Where `key` sits in `per_key` (and in the start index), if any live
    /// container runs under it.
    fn key_slot(&self, key: SchedulerKey) -> Option<usize> {
        self.per_key.iter().position(|(k, _)| *k == key)
    }

    /// Every key's start times, sorted, in `per_key`'s order.
    fn build_start_index(&self) -> Vec<StartIndex> {
        self.per_key
            .iter()
            .map(|(key, _)| {
                let mut times: Vec<i64> = self.starts().filter(|(_, k, _)| k == key).map(|(_, _, at)| at).collect();
                times.sort_unstable();
                StartIndex::from_sorted(times)
            })
            .collect()
    }

    /// Each key the live containers run under, with how many, in no
    /// particular order.
    pub fn per_key(&self) -> impl Iterator<Item = (SchedulerKey, usize)> + '_ {
        self.per_key.iter().copied()
    }

    /// `(id, container)` in ascending id order.
    pub fn iter(&self) -> impl DoubleEndedIterator<Item = (&u64, LiveContainer)> + Clone + '_ {
        let (heads, sizes) = (&self.heads[self.first..], &self.sizes[self.first..]);
        heads
            .iter()
            .zip(sizes)
            .filter(|(h, _)| h.live)
            .map(|(h, r)| (&h.id, LiveContainer { key: h.key, resources: *r, started_ms: h.started_ms }))
    }

    /// `(id, key, started_ms)` of each, in ascending id order: a walk that
    /// needs no sizes reads a third of the memory.
    pub fn starts(&self) -> impl DoubleEndedIterator<Item = (u64, SchedulerKey, i64)> + Clone + '_ {
        self.heads[self.first..].iter().filter(|h| h.live).map(|h| (h.id, h.key, h.started_ms))
    }

    pub fn keys(&self) -> impl DoubleEndedIterator<Item = &u64> + Clone + '_ {
        self.heads[self.first..].iter().filter(|h| h.live).map(|h| &h.id)
    }

    pub fn values(&self) -> impl DoubleEndedIterator<Item = LiveContainer> + Clone + '_ {
        self.iter().map(|(_, c)| c)
    }
}

/// Equal when they hold the same containers, wherever their holes are.
impl PartialEq for LiveContainers {
    fn eq(&self, other: &LiveContainers) -> bool {
        self.live == other.live && self.iter().eq(other.iter())
    }
}

impl FromIterator<(u64, LiveContainer)> for LiveContainers {
    /// As a `BTreeMap`: a repeated id keeps its last container.
    fn from_iter<I: IntoIterator<Item = (u64, LiveContainer)>>(iter: I) -> LiveContainers {
        let mut m = LiveContainers::new();
        for (id, c) in iter {
            m.insert(id, c);
        }
        m
    }
}

/// As the `BTreeMap` it replaced: a map from id to container.
impl Serialize for LiveContainers {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(self.live))?;
        for (id, c) in self.iter() {
            m.serialize_entry(id, &c)?;
        }
        m.end()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Resources, SchedulerKey};
    use std::collections::BTreeMap;

    fn c(started_ms: i64) -> LiveContainer {
        LiveContainer {
            key: SchedulerKey { priority: started_ms.rem_euclid(4) as i32, allocation_request_id: 0 },
            resources: Resources::new(1024, 1),
            started_ms,
        }
    }

    /// Random inserts (mostly ascending, some out of order and repeated)
    /// and removals (mostly the oldest) leave the same containers, in the
    /// same order, as a `BTreeMap` given the same calls.
    #[test]
    fn it_holds_what_a_btree_map_holds() {
        let mut rng = 0x9e37_79b9_7f4a_7c15_u64;
        let mut next = || {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            rng
        };
        let mut ours = LiveContainers::new();
        let mut theirs: BTreeMap<u64, LiveContainer> = BTreeMap::new();
        let mut top = 0u64;
        for step in 0..20_000i64 {
            let r = next() % 10;
            if r < 5 {
                let id = if r == 0 && top > 0 { next() % top } else { top + 1 + next() % 3 };
                top = top.max(id);
                assert_eq!(ours.insert(id, c(step)), theirs.insert(id, c(step)));
            } else {
                let id = match theirs.keys().next() {
                    Some(first) if r < 8 => *first,
                    _ => next() % (top + 1),
                };
                assert_eq!(ours.remove(&id), theirs.remove(&id));
            }
            if step % 97 == 0 {
                let probe = next() % (top + 2);
                assert_eq!(ours.get(&probe), theirs.get(&probe).copied());
                assert_eq!(ours.contains_key(&probe), theirs.contains_key(&probe));
            }
            assert_eq!(ours.len(), theirs.len());
            if step % 89 == 0 {
                if let Some(id) = theirs.keys().nth(theirs.len() / 2).copied() {
                    theirs.get_mut(&id).unwrap().started_ms = -step;
                    assert!(ours.set_started(&id, -step));
                }
            }
            if step % 101 == 0 {
                let mut counted: Vec<(SchedulerKey, usize)> = ours.per_key().collect();
                counted.sort_by_key(|(k, _)| *k);
                let mut walked: BTreeMap<SchedulerKey, usize> = BTreeMap::new();
                for c in theirs.values() {
                    *walked.entry(c.key).or_default() += 1;
                }
                assert_eq!(counted, walked.into_iter().collect::<Vec<_>>());
                // The start times after a time, per key, as a walk counts and
                // sums them: from the index kept up since the first step's
                // query, and from one built now (a copy's, at its first read).
                let after = step - (next() % 400) as i64;
                let copy: LiveContainers = ours.iter().map(|(id, c)| (*id, c)).collect();
                for (key, _) in &counted {
                    let mine = theirs.values().filter(|c| c.key == *key && c.started_ms > after);
                    let want = mine.fold((0, 0i128), |(n, sum), c| (n + 1, sum + c.started_ms as i128));
                    assert_eq!(ours.started_after(*key, after), want, "step {step}, after {after}");
                    assert_eq!(copy.started_after(*key, after), want, "built at step {step}, after {after}");
                    let mut starts: Vec<i64> = theirs.values().filter(|c| c.key == *key).map(|c| c.started_ms).collect();
                    starts.sort_unstable();
                    assert!(ours.starts_ascending(*key).eq(starts.iter().copied()), "step {step}");
                    assert!(copy.starts_ascending(*key).eq(starts.iter().copied()), "built at step {step}");
                }
            }
            assert!(ours.heads[..ours.first].iter().all(|h| !h.live), "only holes before the first slot walked");
            assert_eq!(ours.heads.len(), ours.sizes.len());
        }
        assert!(ours.iter().eq(theirs.iter().map(|(id, c)| (id, *c))));
        assert!(ours.iter().rev().eq(theirs.iter().rev().map(|(id, c)| (id, *c))));
        assert!(ours.starts().eq(theirs.iter().map(|(id, c)| (*id, c.key, c.started_ms))));
        assert!(ours.heads.len() <= (2 * ours.len()).max(SQUEEZE_FROM), "holes are squeezed out");
        assert_eq!(serde_json::to_string(&ours).unwrap(), serde_json::to_string(&theirs).unwrap());
        let copy: LiveContainers = theirs.iter().map(|(id, c)| (*id, *c)).collect();
        assert_eq!(copy, ours, "equal whatever the holes");
    }
}
