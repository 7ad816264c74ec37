//! One scheduling component as a single FIFO server (an LM, a Sparrow
//! scheduler): requests wait in arrival order while the server is busy and
//! each operation takes a service time. The wait is the paper's
//! Framework_Queuing_Delay (Megha §III, eq. 2); the service time its
//! Processing_Delay.
//!
//! The service time is decided by the caller when an operation begins
//! (it may depend on the state at that moment, e.g. how many words a match
//! scanned), so the server only hands out the next operation and keeps the
//! books.

use std::collections::VecDeque;

pub struct Server<Op> {
    waiting: VecDeque<(i64, Op)>,
    busy: bool,
    /// Total service time given (µs): busy_us / makespan is the utilization.
    pub busy_us: i64,
    pub served: u64,
}

impl<Op> Default for Server<Op> {
    fn default() -> Self {
        Server { waiting: VecDeque::new(), busy: false, busy_us: 0, served: 0 }
    }
}

impl<Op> Server<Op> {
    pub fn enqueue(&mut self, now_us: i64, op: Op) {
        self.waiting.push_back((now_us, op));
    }

    /// If the server is idle and something waits, take the oldest request:
    /// the server is busy from now on. Returns it with how long it waited.
    pub fn begin(&mut self, now_us: i64) -> Option<(Op, i64)> {
        if self.busy {
            return None;
        }
        let (arrived, op) = self.waiting.pop_front()?;
        self.busy = true;
        Some((op, now_us - arrived))
    }

    /// Book the service time of the operation `begin` handed out.
    pub fn charge(&mut self, service_us: i64) {
        self.busy_us += service_us;
        self.served += 1;
    }

    /// The operation is done: the server may begin the next one.
    pub fn finish(&mut self) {
        self.busy = false;
    }

    pub fn is_busy(&self) -> bool {
        self.busy
    }

    pub fn queued(&self) -> usize {
        self.waiting.len()
    }
}

/// A modelled cost in µs (parameters are fractional, the clock is whole
/// microseconds): rounded to the nearest microsecond.
pub fn whole_us(cost_us: f64) -> i64 {
    cost_us.round().max(0.0) as i64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fifo_and_waits() {
        let mut s = Server::default();
        s.enqueue(0, 'a');
        s.enqueue(1, 'b');
        let (op, waited) = s.begin(0).unwrap();
        assert_eq!((op, waited), ('a', 0));
        s.charge(10);
        assert!(s.begin(5).is_none(), "busy until finished");
        s.finish();
        assert_eq!(s.begin(10), Some(('b', 9)));
        assert_eq!((s.busy_us, s.served), (10, 1));
        assert_eq!(whole_us(5.01), 5);
        assert_eq!(whole_us(1.6), 2);
    }
}
