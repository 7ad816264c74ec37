//! A GM's view of the whole cluster's free resources (Megha §IV-A: "each
//! GM maintains a (possibly stale) local copy of the global view"): per
//! node what the GM last heard it has free, and per partition a bit-vector
//! of the nodes that can still take the smallest task, which is what the
//! match operation scans (§IV-B3, Algorithm 1; the trace has no placement
//! constraints, so the AND over constraint vectors reduces to this one).
//!
//! The view changes in three ways:
//! * the GM's own decisions: a proposed task is deducted at once, so the
//!   GM does not offer the same capacity twice;
//! * completion notices of its own tasks (the freed resources come back);
//! * an LM's state (a periodic update, or piggy-backed on an answer,
//!   §IV-B6), which *replaces* the GM's picture of that LM's nodes with
//!   the LM's true state at the moment it was sent.
//!
//! The GM keeps its own proposals that the LM has not yet processed
//! deducted across a replacement: it knows them (§IV-B6's conflicts come
//! from *other* GMs, not from a GM forgetting what it just sent). Every
//! LM message says how many of this GM's launch requests the LM has
//! processed; requests travel and are served in order, so those are the
//! oldest ones the GM sent.
//!
//! The replacement is done without copying a whole LM's state: the LM
//! sends the nodes that changed since its last message to this GM (with
//! their free resources now), and the GM fixes up only those nodes and the
//! nodes of the requests the message reports processed. The result is
//! exactly the LM's state at sending time minus the GM's requests still in
//! flight, at a cost proportional to what changed.
//!
//! `generation` counts the changes that freed something in the view: a
//! request that found no node keeps not finding one until it moves.

use super::layout::Layout;
use crate::model::Resources;
use std::collections::VecDeque;

pub struct View {
    pub free: Vec<Resources>,
    nonfull: Vec<u64>,
    nonfull_count: Vec<u32>,
    /// Per LM: the launch requests sent to it that no message of it has
    /// reported processed yet (node, demand), oldest first ...
    in_flight: Vec<VecDeque<(u32, Resources)>>,
    /// ... and how many requests its messages reported processed so far.
    processed: Vec<u64>,
    stamp: Vec<u32>,
    epoch: u32,
    pub generation: u64,
    smallest: Resources,
}

impl View {
    /// Everything free (the state every LM reports at start).
    pub fn new(layout: &Layout, capacity: Resources, smallest: Resources) -> View {
        let nodes = layout.partition_of_node.len();
        let mut v = View {
            free: vec![capacity; nodes],
            nonfull: vec![0; layout.total_words],
            nonfull_count: vec![0; layout.partitions.len()],
            in_flight: vec![VecDeque::new(); layout.lms],
            processed: vec![0; layout.lms],
            stamp: vec![0; nodes],
            epoch: 0,
            generation: 1,
            smallest,
        };
        if smallest.fits_in(&capacity) {
            for n in 0..nodes as u32 {
                let (w, b) = layout.bit_of(n);
                v.nonfull[w] |= 1 << b;
                v.nonfull_count[layout.partition_of_node[n as usize] as usize] += 1;
            }
        }
        v
    }

    /// Set a node's free resources; true if any resource grew.
    fn write(&mut self, layout: &Layout, node: u32, value: Resources) -> bool {
        let n = node as usize;
        let old = self.free[n];
        self.free[n] = value;
        let (was, is) = (self.smallest.fits_in(&old), self.smallest.fits_in(&value));
        if was != is {
            let (w, b) = layout.bit_of(node);
            let p = layout.partition_of_node[n] as usize;
            if is {
                self.nonfull[w] |= 1 << b;
                self.nonfull_count[p] += 1;
            } else {
                self.nonfull[w] &= !(1 << b);
                self.nonfull_count[p] -= 1;
            }
        }
        value.0.iter().zip(old.0.iter()).any(|(new, old)| new > old)
    }

    /// The GM sends a launch request for `demand` on `node`: deduct it now.
    pub fn take(&mut self, layout: &Layout, node: u32, demand: Resources) {
        let value = self.free[node as usize] - demand;
        self.write(layout, node, value);
        self.in_flight[layout.lm_of(node)].push_back((node, demand));
    }

    /// One of the GM's own tasks finished on `node`. (The LM freed it before
    /// sending the notice, so its next message lists the node as changed.)
    pub fn completion_notice(&mut self, layout: &Layout, node: u32, demand: Resources) {
        let value = self.free[node as usize] + demand;
        self.write(layout, node, value);
        self.generation += 1;
    }

    /// LM `lm`'s state: `changed` lists (node, free) for every node of its
    /// cluster that changed since its previous message to this GM;
    /// `processed` is how many of this GM's launch requests it has served.
    pub fn apply_state(&mut self, layout: &Layout, lm: usize, changed: &[(u32, Resources)], processed: u64) {
        self.epoch = self.epoch.wrapping_add(1);
        if self.epoch == 0 {
            self.stamp.fill(0);
            self.epoch = 1;
        }
        let mut grew = false;
        let before: Vec<Resources> = changed.iter().map(|&(n, _)| self.free[n as usize]).collect();
        for &(n, _) in changed {
            self.stamp[n as usize] = self.epoch;
        }
        // Requests the LM has now served: a commit changed its node (so the
        // state below says it); a rejected one on an unchanged node gives
        // its deduction back.
        let served = processed.saturating_sub(self.processed[lm]);
        self.processed[lm] = processed.max(self.processed[lm]);
        for _ in 0..served {
            let Some((n, demand)) = self.in_flight[lm].pop_front() else { break };
            if self.stamp[n as usize] != self.epoch {
                let value = self.free[n as usize] + demand;
                grew |= self.write(layout, n, value);
            }
        }
        for &(n, value) in changed {
            self.write(layout, n, value);
        }
        // Requests still on their way stay deducted: the LM's state does not
        // include them yet, so a node it reports gets them taken off again
        // (without this the GM would offer the same capacity twice and
        // conflict with itself).
        for i in 0..self.in_flight[lm].len() {
            let (n, demand) = self.in_flight[lm][i];
            if self.stamp[n as usize] == self.epoch {
                let value = self.free[n as usize] - demand;
                self.write(layout, n, value);
            }
        }
        for (&(n, _), old) in changed.iter().zip(&before) {
            grew |= self.free[n as usize].0.iter().zip(old.0.iter()).any(|(new, old)| new > old);
        }
        if grew {
            self.generation += 1;
        }
    }

    /// Algorithm 1 on one partition: the first node (in node order) whose
    /// free resources hold `demand`. Adds the bit-vector words examined to
    /// `words` (the modelled cost); a partition with no candidate at all is
    /// charged in full without being walked.
    pub fn first_fit(&self, layout: &Layout, partition: usize, demand: &Resources, words: &mut u64) -> Option<u32> {
        let p = &layout.partitions[partition];
        if self.nonfull_count[partition] == 0 {
            *words += p.words as u64;
            return None;
        }
        let first = p.first_word as usize;
        for i in 0..p.words as usize {
            let mut bits = self.nonfull[first + i];
            while bits != 0 {
                let node = p.first_node + (i as u32) * 64 + bits.trailing_zeros();
                if demand.fits_in(&self.free[node as usize]) {
                    *words += i as u64 + 1;
                    return Some(node);
                }
                bits &= bits - 1;
            }
        }
        *words += p.words as u64;
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(v: i64) -> Resources {
        Resources::new(v * 1024, v)
    }

    #[test]
    fn state_message_replaces_the_view_but_keeps_requests_in_flight() {
        let layout = Layout::new(130, 1, 1);
        let mut v = View::new(&layout, r(4), r(1));
        let mut words = 0;
        assert_eq!(v.first_fit(&layout, 0, &r(4), &mut words), Some(0));
        assert_eq!(words, 1);
        // Launch requests for nodes 0, 1 and 5, in that order.
        v.take(&layout, 0, r(4));
        v.take(&layout, 1, r(2));
        v.take(&layout, 5, r(1));
        let g = v.generation;
        // The LM served the first two: it committed 0 and rejected 1 (another
        // GM had taken 3 of node 1); the request for 5 is still on its way.
        v.apply_state(&layout, 0, &[(0, r(0)), (1, r(1))], 2);
        assert_eq!((v.free[0], v.free[1], v.free[5]), (r(0), r(1), r(3)));
        assert_eq!(v.generation, g, "nothing grew");
        // It serves the third (commits 5) and tells us; node 1 was freed meanwhile.
        v.apply_state(&layout, 0, &[(5, r(3)), (1, r(4))], 3);
        assert_eq!((v.free[1], v.free[5], v.generation), (r(4), r(3), g + 1));
        // The task on 5 ends: the notice frees it, the LM's next message agrees.
        v.completion_notice(&layout, 5, r(1));
        assert_eq!((v.free[5], v.generation), (r(4), g + 2));
        v.apply_state(&layout, 0, &[(5, r(4))], 3);
        assert_eq!((v.free[5], v.generation), (r(4), g + 2), "nothing grew");
        // A request rejected on a node that did not change gives its deduction back.
        v.take(&layout, 7, r(4));
        v.apply_state(&layout, 0, &[], 4);
        assert_eq!((v.free[7], v.generation), (r(4), g + 3));
        let mut words = 0;
        assert_eq!(v.first_fit(&layout, 0, &r(4), &mut words), Some(1));
        // Nothing fits 5: every word of the partition is charged.
        let mut words = 0;
        assert_eq!(v.first_fit(&layout, 0, &r(5), &mut words), None);
        assert_eq!(words, 3);
        // The LM reports node 9 (all free) before it has served our request
        // for 3 of it: the request stays deducted, or the GM would offer the
        // same capacity again and conflict with itself.
        v.take(&layout, 9, r(3));
        v.apply_state(&layout, 0, &[(9, r(4))], 4);
        assert_eq!(v.free[9], r(1));
    }
}
