//! Beyond the paper, behind `[carbyne] protect_lenders` (default off): the
//! leftover is *lent*, only for as long as its lenders can spare it.
//!
//! Theorem 3.1 says altruism does not delay a job in the offline case
//! because its allocation never shrinks. YARN containers are not
//! preempted, though: a task started on leftover capacity keeps it until
//! it ends, and when the job that yielded that capacity reaches the tasks
//! its plan put later, it may find it still taken. The random-DAG property
//! test (`tests/carbyne.rs`) finds such delays in 17 of 300 offline cases.
//!
//! The lease keeps the theorem's premise. The plans of all jobs, laid end
//! to end, are a usage profile over future time (running tasks until
//! their expected end, planned tasks from their latest start); jobs
//! without a plan keep their whole share. A held-back ask may take
//! leftover only if its task, of its expected duration, fits under the
//! scope's capacity beside that profile until it ends — and then it is
//! in the profile too. Planned, not actual, usage: durations are
//! estimates, so this protects the plans, not every outcome.

use super::amount::Amount;
use std::collections::BTreeMap;

/// Far enough: what a job without a plan keeps "forever".
pub const FOREVER: i64 = i64::MAX / 4;

/// Σ of planned usage over future time, as steps.
#[derive(Debug, Clone, Default)]
pub struct Profile {
    now: i64,
    /// Usage at `now`.
    base: Amount,
    /// Changes of usage after `now`, by absolute time (ms).
    deltas: BTreeMap<i64, Amount>,
}

impl Profile {
    pub fn new(now: i64) -> Profile {
        Profile { now, ..Default::default() }
    }

    /// `r` is used over [from, to).
    pub fn add(&mut self, from: i64, to: i64, r: &Amount) {
        self.step(from, to, r, 1.0);
    }

    /// Undo [`Self::add`].
    pub fn remove(&mut self, from: i64, to: i64, r: &Amount) {
        self.step(from, to, r, -1.0);
    }

    fn step(&mut self, from: i64, to: i64, r: &Amount, sign: f64) {
        if to <= self.now || to <= from {
            return;
        }
        let r = r.scaled(sign);
        if from <= self.now {
            self.base = self.base.plus(&r);
        } else {
            let e = self.deltas.entry(from).or_default();
            *e = e.plus(&r);
        }
        if to < FOREVER {
            let e = self.deltas.entry(to).or_default();
            *e = e.minus(&r);
        }
    }

    /// Move to `now`, folding the steps that happened.
    pub fn advance(&mut self, now: i64) {
        if now <= self.now {
            return;
        }
        let later = self.deltas.split_off(&(now + 1));
        for d in self.deltas.values() {
            self.base = self.base.plus(d);
        }
        self.deltas = later;
        self.now = now;
    }

    /// Does `r` fit under `total` beside the profile from now until `until`?
    pub fn fits(&self, total: &Amount, r: &Amount, until: i64) -> bool {
        let mut used = self.base.plus(r);
        if !used.fits_in(total) {
            return false;
        }
        for (_, d) in self.deltas.range(self.now + 1..until) {
            used = used.plus(d);
            if !used.fits_in(total) {
                return false;
            }
        }
        true
    }

    /// Usage now (for the view).
    pub fn used_now(&self) -> Amount {
        self.base
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Resources;

    fn u(n: i64) -> Amount {
        Amount::of(&Resources::new(n, n))
    }

    /// Capacity 10. Job A runs 6 until 5 s; job B's plan needs 4 from 2 s
    /// to 8 s. A 3-unit leftover task fits for 2 s (6 + 3 ≤ 10) but not
    /// for 3 s (at 2 s: 6 + 4 + 3 > 10); after 5 s, A's 6 are back.
    #[test]
    fn a_loan_must_end_before_the_capacity_is_needed() {
        let mut p = Profile::new(0);
        p.add(0, 5_000, &u(6));
        p.add(2_000, 8_000, &u(4));
        assert!(p.fits(&u(10), &u(3), 2_000));
        assert!(!p.fits(&u(10), &u(3), 3_000));
        p.advance(5_000);
        assert_eq!(p.used_now(), u(4));
        assert!(p.fits(&u(10), &u(6), 9_000));
        p.remove(2_000, 8_000, &u(4));
        assert_eq!(p.used_now(), Amount::ZERO);
        p.add(0, FOREVER, &u(7));
        assert!(!p.fits(&u(10), &u(4), 6_000));
    }
}
