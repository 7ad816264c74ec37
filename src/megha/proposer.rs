//! A proposer (Megha's GM): places tasks from its own view of every
//! partition's free capacity, which other proposers' commits make stale.
//! It walks the partitions round-robin (§IV-C: internal partitions in
//! round-robin order), proposes the first node its view says fits, and on
//! a rejection takes the fresh state the authority sent and searches again
//! — the retry is what makes the scheme correct without a global lock.

use super::authority::{Authority, Verdict};
use crate::model::Resources;

/// Where a task went, and how many proposals it took.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Placed {
    pub partition: usize,
    pub node: usize,
    pub proposals: u32,
}

/// No node of any partition has room for the task, even on fresh state.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Unplaceable {
    pub proposals: u32,
}

pub struct Proposer {
    /// Free capacity per partition, per node, as this proposer believes.
    view: Vec<Vec<Resources>>,
    next_partition: usize,
    pub proposals: u64,
    pub rejections: u64,
}

impl Proposer {
    /// A proposer whose view is the authorities' state now (it goes stale
    /// as soon as anyone else commits).
    pub fn new(authorities: &[Authority], first_partition: usize) -> Proposer {
        let view = authorities.iter().map(|a| a.snapshot().0).collect();
        Proposer { view, next_partition: first_partition % authorities.len().max(1), proposals: 0, rejections: 0 }
    }

    /// Place one task of size `ask`; `allowed(partition, node)` is its
    /// placement constraint (Megha's candidate bit-vector).
    pub fn place(
        &mut self,
        authorities: &[Authority],
        ask: Resources,
        allowed: &dyn Fn(usize, usize) -> bool,
    ) -> Result<Placed, Unplaceable> {
        let mut proposals = 0u32;
        let mut refreshed = false;
        loop {
            let parts = authorities.len();
            let mut found = None;
            for k in 0..parts {
                let p = (self.next_partition + k) % parts;
                if let Some(n) = self.view[p].iter().enumerate().position(|(n, free)| ask.fits_in(free) && allowed(p, n)) {
                    found = Some((p, n));
                    break;
                }
            }
            let Some((p, n)) = found else {
                if refreshed {
                    return Err(Unplaceable { proposals });
                }
                // Nothing fits in a view that may be stale: refresh it from
                // every authority once before giving up.
                for (v, a) in self.view.iter_mut().zip(authorities) {
                    *v = a.snapshot().0;
                }
                refreshed = true;
                continue;
            };
            proposals += 1;
            self.proposals += 1;
            match authorities[p].propose(n, ask) {
                Verdict::Committed { .. } => {
                    self.view[p][n] -= ask;
                    self.next_partition = (p + 1) % parts;
                    return Ok(Placed { partition: p, node: n, proposals });
                }
                Verdict::Rejected { free, .. } => {
                    // A conflict: another proposer got there first. Retry
                    // on the fresh state of that partition.
                    self.rejections += 1;
                    self.view[p] = free;
                    refreshed = false;
                }
            }
        }
    }
}
