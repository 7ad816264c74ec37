//! The LMs' true state (Megha §IV-A: "the state stored by an LM is always
//! consistent and current"): every node's free resources, and per (LM, GM)
//! the nodes that changed since the LM's last message to that GM, so each
//! message carries the LM's current state as a delta (see `view`).

use super::layout::Layout;
use crate::model::Resources;

pub struct Truth {
    pub free: Vec<Resources>,
    /// Per GM: bit per node, set while the node waits in `changed`.
    dirty: Vec<Vec<u64>>,
    /// Index `lm * gms + gm`.
    changed: Vec<Vec<u32>>,
    /// Index `lm * gms + gm`: launch requests of the GM the LM has served.
    processed: Vec<u64>,
    gms: usize,
}

impl Truth {
    pub fn new(layout: &Layout, capacity: Resources) -> Truth {
        let nodes = layout.partition_of_node.len();
        Truth {
            free: vec![capacity; nodes],
            dirty: vec![vec![0; nodes.div_ceil(64)]; layout.gms],
            changed: vec![Vec::new(); layout.lms * layout.gms],
            processed: vec![0; layout.lms * layout.gms],
            gms: layout.gms,
        }
    }

    pub fn set(&mut self, layout: &Layout, node: u32, value: Resources) {
        let n = node as usize;
        self.free[n] = value;
        let lm = layout.lm_of(node);
        let (word, bit) = (n / 64, 1u64 << (n % 64));
        for g in 0..self.gms {
            if self.dirty[g][word] & bit == 0 {
                self.dirty[g][word] |= bit;
                self.changed[lm * self.gms + g].push(node);
            }
        }
    }

    /// LM `lm` served a launch request of GM `gm`.
    pub fn served(&mut self, lm: usize, gm: usize) {
        self.processed[lm * self.gms + gm] += 1;
    }

    pub fn processed(&self, lm: usize, gm: usize) -> u64 {
        self.processed[lm * self.gms + gm]
    }

    /// LM `lm`'s state for GM `gm`: its nodes that changed since the last
    /// call for this pair, with their free resources now.
    pub fn drain(&mut self, lm: usize, gm: usize) -> Vec<(u32, Resources)> {
        let changed = std::mem::take(&mut self.changed[lm * self.gms + gm]);
        let dirty = &mut self.dirty[gm];
        changed
            .into_iter()
            .map(|n| {
                let i = n as usize;
                dirty[i / 64] &= !(1u64 << (i % 64));
                (n, self.free[i])
            })
            .collect()
    }
}
