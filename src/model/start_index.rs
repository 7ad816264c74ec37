//! The start times of one key's live containers, sorted, with sums: how
//! many started after a time and the sum of their start times, without a
//! walk over every container.
//!
//! Carbyne's leftover order (SRTF over remaining work) asks, per pass, for
//! the time a large job's running tasks have left: Σ max(0, t − age) over
//! thousands of containers. With the start times sorted that is a count
//! and a sum over those that started after now − t. A job's containers
//! start and end at every turn of the simulation, so once built the index
//! is kept up to date rather than rebuilt: sorted blocks of at most
//! [`BLOCK`] × 2 times, each with its sum, so an insert or removal moves
//! one block's times and a query adds one sum per block. Carbyne's job
//! model also reads the times in order: a stage's running tasks by the
//! time they have left, without sorting them at every plan.

/// A block splits in two past twice this many times.
const BLOCK: usize = 64;

#[derive(Debug, Clone, Default)]
pub struct StartIndex {
    /// Non-empty blocks of ascending times; every time of a block is at
    /// most every time of the blocks after it.
    blocks: Vec<Vec<i64>>,
    /// `sums[b]` is the sum of `blocks[b]`.
    sums: Vec<i128>,
}

impl StartIndex {
    /// The index of `times`, which must be ascending.
    pub fn from_sorted(times: Vec<i64>) -> StartIndex {
        debug_assert!(times.is_sorted());
        let blocks: Vec<Vec<i64>> = times.chunks(BLOCK).map(<[i64]>::to_vec).collect();
        let sums = blocks.iter().map(|b| b.iter().map(|t| *t as i128).sum()).collect();
        StartIndex { blocks, sums }
    }

    /// How many times are held (the tests' check; the index itself
    /// needs no count).
    #[cfg(test)]
    fn len(&self) -> usize {
        self.blocks.iter().map(Vec::len).sum()
    }

    /// The first block whose last time is at least `at` (the block `at`
    /// belongs in), or `blocks.len()`.
    fn block_of(&self, at: i64) -> usize {
        self.blocks.partition_point(|b| b[b.len() - 1] < at)
    }

    pub fn insert(&mut self, at: i64) {
        if self.blocks.is_empty() {
            self.blocks.push(vec![at]);
            self.sums.push(at as i128);
            return;
        }
        // Past every block's last: the last block takes it (containers
        // mostly start after every live one).
        let b = self.block_of(at).min(self.blocks.len() - 1);
        let block = &mut self.blocks[b];
        let i = block.partition_point(|t| *t <= at);
        block.insert(i, at);
        self.sums[b] += at as i128;
        if block.len() > 2 * BLOCK {
            let upper = block.split_off(BLOCK);
            let upper_sum: i128 = upper.iter().map(|t| *t as i128).sum();
            self.sums[b] -= upper_sum;
            self.blocks.insert(b + 1, upper);
            self.sums.insert(b + 1, upper_sum);
        }
    }

    /// Takes one `at` out; false when there is none.
    pub fn remove(&mut self, at: i64) -> bool {
        // Equal times may span blocks; the first block whose last is at
        // least `at` holds one if any does.
        let b = self.block_of(at);
        let Some(block) = self.blocks.get_mut(b) else { return false };
        let Ok(i) = block.binary_search(&at) else { return false };
        block.remove(i);
        self.sums[b] -= at as i128;
        if block.is_empty() {
            self.blocks.remove(b);
            self.sums.remove(b);
        }
        true
    }

    /// Every time held, ascending.
    pub fn ascending(&self) -> impl Iterator<Item = i64> + '_ {
        self.blocks.iter().flatten().copied()
    }

    /// How many times are after `after`, and their sum.
    pub fn after(&self, after: i64) -> (usize, i128) {
        let b = self.blocks.partition_point(|bl| bl[bl.len() - 1] <= after);
        let Some(block) = self.blocks.get(b) else { return (0, 0) };
        let i = block.partition_point(|t| *t <= after);
        let mut count = block.len() - i;
        let mut sum: i128 = block[i..].iter().map(|t| *t as i128).sum();
        for (bl, s) in self.blocks[b + 1..].iter().zip(&self.sums[b + 1..]) {
            count += bl.len();
            sum += s;
        }
        (count, sum)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::rng::Rng;

    /// Random inserts (mostly after every time held, some anywhere, many
    /// repeated), removals (mostly the oldest, some of times not held) and
    /// rebuilds from the sorted times answer every query as a sorted
    /// vector does.
    #[test]
    fn it_answers_as_a_sorted_vector_does() {
        let mut rng = Rng::seeded(31);
        let mut queried = 0;
        for round in 0..40 {
            let (mut index, mut want): (StartIndex, Vec<i64>) = (StartIndex::default(), Vec::new());
            let mut now = 0;
            for _ in 0..rng.int(10, 3_000) {
                match rng.int(0, 9) {
                    0..=4 => {
                        now += rng.int(0, 3);
                        let at = if rng.chance(0.8) { now } else { rng.int(-5, now + 5) };
                        index.insert(at);
                        let i = want.partition_point(|t| *t <= at);
                        want.insert(i, at);
                    }
                    5..=7 => {
                        let at = if rng.chance(0.7) && !want.is_empty() {
                            want[rng.int(0, (want.len() as i64 - 1).min(5)) as usize]
                        } else {
                            rng.int(-5, now + 5)
                        };
                        let held = want.iter().position(|t| *t == at);
                        assert_eq!(index.remove(at), held.is_some(), "round {round}: remove {at}");
                        if let Some(i) = held {
                            want.remove(i);
                        }
                    }
                    8 if rng.chance(0.02) => index = StartIndex::from_sorted(want.clone()),
                    _ => {
                        let after = rng.int(-6, now + 6);
                        let tail: Vec<i64> = want.iter().copied().filter(|t| *t > after).collect();
                        assert_eq!(index.after(after), (tail.len(), tail.iter().map(|t| *t as i128).sum()), "round {round}: after {after}");
                        queried += usize::from(!tail.is_empty());
                    }
                }
                assert_eq!(index.len(), want.len());
                assert_eq!(index.blocks.concat(), want, "round {round}");
                assert!(index.ascending().eq(want.iter().copied()), "round {round}");
                assert!(index.blocks.iter().all(|b| !b.is_empty() && b.len() <= 2 * BLOCK));
                assert!(index.blocks.iter().zip(&index.sums).all(|(b, s)| b.iter().map(|t| *t as i128).sum::<i128>() == *s));
            }
        }
        assert!(queried > 1_000, "only {queried} queries found times");
    }
}
