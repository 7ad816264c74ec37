//! Who owns which nodes (Megha §IV-A): the cluster is split into `lms`
//! Local Master clusters of consecutive nodes, and each LM's nodes into
//! `gms` partitions, partition (l, g) being GM g's *internal* partition in
//! LM l (eq. 3: partitions per LM = GMs). Every GM's bit-vector of a
//! partition starts on a 64-bit word boundary so a partition is scanned
//! word by word, as Algorithm 1's AND over bit-vectors is.

pub struct Partition {
    pub lm: u32,
    /// The GM whose internal partition this is.
    pub owner: u32,
    pub first_node: u32,
    pub len: u32,
    /// Where its bits start in a GM's bit-vector, and how many words it spans.
    pub first_word: u32,
    pub words: u32,
}

pub struct Layout {
    pub lms: usize,
    pub gms: usize,
    /// Index `lm * gms + gm`.
    pub partitions: Vec<Partition>,
    pub partition_of_node: Vec<u32>,
    pub total_words: usize,
}

impl Layout {
    pub fn new(nodes: usize, lms: usize, gms: usize) -> Layout {
        let (lms, gms) = (lms.max(1), gms.max(1));
        let mut partitions = Vec::with_capacity(lms * gms);
        let mut partition_of_node = vec![0u32; nodes];
        let mut word = 0u32;
        for l in 0..lms {
            let (lm_first, lm_end) = (l * nodes / lms, (l + 1) * nodes / lms);
            let lm_len = lm_end - lm_first;
            for g in 0..gms {
                let first = lm_first + g * lm_len / gms;
                let end = lm_first + (g + 1) * lm_len / gms;
                let len = (end - first) as u32;
                let words = len.div_ceil(64);
                let id = partitions.len() as u32;
                partition_of_node[first..end].fill(id);
                partitions.push(Partition { lm: l as u32, owner: g as u32, first_node: first as u32, len, first_word: word, words });
                word += words;
            }
        }
        Layout { lms, gms, partitions, partition_of_node, total_words: word as usize }
    }

    pub fn partition(&self, lm: usize, gm: usize) -> usize {
        lm * self.gms + gm
    }

    pub fn lm_of(&self, node: u32) -> usize {
        self.partitions[self.partition_of_node[node as usize] as usize].lm as usize
    }

    /// Nodes in LM `lm`'s cluster (what one state message describes).
    pub fn lm_nodes(&self, lm: usize) -> u32 {
        self.partitions[lm * self.gms..(lm + 1) * self.gms].iter().map(|p| p.len).sum()
    }

    /// (word, bit) of `node` in a GM's bit-vector.
    pub fn bit_of(&self, node: u32) -> (usize, u32) {
        let p = &self.partitions[self.partition_of_node[node as usize] as usize];
        let offset = node - p.first_node;
        ((p.first_word + offset / 64) as usize, offset % 64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_node_in_one_partition_words_aligned() {
        let l = Layout::new(1000, 3, 4);
        assert_eq!(l.partitions.len(), 12);
        assert_eq!(l.partitions.iter().map(|p| p.len).sum::<u32>(), 1000);
        for (i, p) in l.partitions.iter().enumerate() {
            assert_eq!(l.partition(p.lm as usize, p.owner as usize), i);
            for n in p.first_node..p.first_node + p.len {
                assert_eq!(l.partition_of_node[n as usize] as usize, i);
                let (w, b) = l.bit_of(n);
                assert!(w >= p.first_word as usize && w < (p.first_word + p.words) as usize && b < 64);
            }
        }
        assert_eq!((0..3).map(|lm| l.lm_nodes(lm)).sum::<u32>(), 1000);
        // Fewer nodes than partitions: some partitions are empty, none breaks.
        let tiny = Layout::new(2, 1, 3);
        assert_eq!(tiny.partitions.iter().map(|p| p.len).sum::<u32>(), 2);
    }
}
