//! The simulators' one event queue: earliest time first, ties in insertion
//! order, so a run is a pure function of its inputs (no hash order, no wall
//! clock). The trace-driven simulator keeps its [`SimEvent`](super::clock::SimEvent)s
//! in it (times in ms, `sim::clock::Clock`); the scale simulator each
//! architecture's own events (times in µs).
//!
//! The event type needs no ordering of its own: the queue orders by (time,
//! insertion number) only.

use std::cmp::Ordering;
use std::collections::BinaryHeap;

struct Entry<E> {
    at: i64,
    seq: u64,
    event: E,
}

impl<E> PartialEq for Entry<E> {
    fn eq(&self, other: &Self) -> bool {
        self.at == other.at && self.seq == other.seq
    }
}

impl<E> Eq for Entry<E> {}

impl<E> PartialOrd for Entry<E> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl<E> Ord for Entry<E> {
    /// Reversed: `BinaryHeap` is a max-heap and we want the earliest first.
    fn cmp(&self, other: &Self) -> Ordering {
        (other.at, other.seq).cmp(&(self.at, self.seq))
    }
}

pub struct EventQueue<E> {
    heap: BinaryHeap<Entry<E>>,
    seq: u64,
    /// Events popped so far (reported as the run's event count).
    pub popped: u64,
}

impl<E> Default for EventQueue<E> {
    fn default() -> Self {
        EventQueue { heap: BinaryHeap::new(), seq: 0, popped: 0 }
    }
}

impl<E> EventQueue<E> {
    pub fn push(&mut self, at: i64, event: E) {
        self.seq += 1;
        self.heap.push(Entry { at, seq: self.seq, event });
    }

    pub fn pop(&mut self) -> Option<(i64, E)> {
        let e = self.heap.pop()?;
        self.popped += 1;
        Some((e.at, e.event))
    }

    pub fn peek_time(&self) -> Option<i64> {
        self.heap.peek().map(|e| e.at)
    }

    pub fn len(&self) -> usize {
        self.heap.len()
    }

    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn earliest_first_then_insertion_order() {
        let mut q = EventQueue::default();
        q.push(5, "b");
        q.push(3, "a");
        q.push(5, "c");
        assert_eq!(q.pop(), Some((3, "a")));
        assert_eq!(q.pop(), Some((5, "b")));
        assert_eq!(q.pop(), Some((5, "c")));
        assert_eq!(q.pop(), None);
        assert_eq!(q.popped, 3);
    }
}
