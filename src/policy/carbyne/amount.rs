//! Resource amounts as real vectors. DRF shares (a job's `A_k` of
//! Pseudocode 1) are fractions of a cluster, so Carbyne's planning works in
//! `f64` per resource type, index-aligned with [`Resources`].

use crate::model::resource::MAX_RESOURCE_TYPES;
use crate::model::Resources;

/// Amount per resource type (memory MB, vcores, extra types), real-valued.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Amount(pub [f64; MAX_RESOURCE_TYPES]);

/// Below this an amount counts as zero (rounding of shares).
const EPS: f64 = 1e-9;

impl Amount {
    pub const ZERO: Amount = Amount([0.0; MAX_RESOURCE_TYPES]);

    pub fn of(r: &Resources) -> Amount {
        let mut a = [0.0; MAX_RESOURCE_TYPES];
        for (d, s) in a.iter_mut().zip(r.0.iter()) {
            *d = *s as f64;
        }
        Amount(a)
    }

    pub fn scaled(&self, f: f64) -> Amount {
        let mut a = *self;
        a.0.iter_mut().for_each(|v| *v *= f);
        a
    }

    pub fn plus(&self, o: &Amount) -> Amount {
        let mut a = *self;
        a.0.iter_mut().zip(o.0.iter()).for_each(|(v, w)| *v += *w);
        a
    }

    pub fn minus(&self, o: &Amount) -> Amount {
        let mut a = *self;
        a.0.iter_mut().zip(o.0.iter()).for_each(|(v, w)| *v -= *w);
        a
    }

    /// Component-wise maximum.
    pub fn max(&self, o: &Amount) -> Amount {
        let mut a = *self;
        a.0.iter_mut().zip(o.0.iter()).for_each(|(v, w)| *v = v.max(*w));
        a
    }

    /// Component-wise max(0, ·).
    pub fn clamped(&self) -> Amount {
        let mut a = *self;
        a.0.iter_mut().for_each(|v| *v = v.max(0.0));
        a
    }

    /// Every type at most `o`'s (up to rounding).
    pub fn fits_in(&self, o: &Amount) -> bool {
        self.0.iter().zip(o.0.iter()).all(|(v, w)| *v <= *w + EPS * w.abs().max(1.0))
    }

    /// Dominant share against `total` (DRF): max over types with a
    /// positive total of self ÷ total.
    pub fn dominant_share(&self, total: &Amount) -> f64 {
        self.0.iter().zip(total.0.iter()).filter(|(_, t)| **t > 0.0).map(|(v, t)| v / t).fold(0.0, f64::max)
    }

    /// How many copies of `unit` fit (the binding type decides); a unit
    /// with no positive type fits any number of times (`i64::MAX`).
    pub fn count_fitting(&self, unit: &Amount) -> i64 {
        // The floor of the least quotient: floor is monotone, so that is
        // the least of the floors. It is taken by the cast below, which
        // truncates, and truncation is the floor on n ≥ 0 (below 0 the
        // count is 0 either way): no `floor` per type, a libm call on the
        // baseline x86-64 target, and a packing asks this at every step.
        // A NaN quotient is ignored by `min`.
        let mut n = f64::INFINITY;
        for (have, need) in self.0.iter().zip(unit.0.iter()) {
            if *need > 0.0 {
                n = n.min((have + EPS * have.abs().max(1.0)) / need);
            }
        }
        if n.is_infinite() {
            i64::MAX
        } else {
            n.max(0.0) as i64
        }
    }

    /// Whether one `unit` fits: `count_fitting(unit) >= 1`, without the
    /// division's floor (a packing asks this far more often than how many).
    pub fn fits_once(&self, unit: &Amount) -> bool {
        // floor(h ÷ n) ≥ 1 ⇔ h ÷ n ≥ 1 ⇔ h ≥ n for n > 0 (the division
        // is correctly rounded and 1 is a double, so the last step holds
        // in floats too); a NaN is ignored by the minimum in
        // `count_fitting`, so it does not refuse here either.
        self.0
            .iter()
            .zip(unit.0.iter())
            .all(|(have, need)| *need <= 0.0 || (have + EPS * have.abs().max(1.0)).partial_cmp(need) != Some(std::cmp::Ordering::Less))
    }

    /// Tetris' alignment (Grandl et al., SIGCOMM'14): Σ_r (demand_r ÷
    /// capacity_r)·(free_r ÷ capacity_r), the dot product of the normalised
    /// demand and free vectors; larger = a better fit.
    pub fn alignment(&self, free: &Amount, capacity: &Amount) -> f64 {
        self.0
            .iter()
            .zip(free.0.iter())
            .zip(capacity.0.iter())
            .filter(|(_, c)| **c > 0.0)
            .map(|((d, f), c)| (d / c) * (f.max(0.0) / c))
            .sum()
    }

    /// The amount as whole resources (rounded), for reports.
    pub fn rounded(&self) -> Resources {
        let mut r = Resources::ZERO;
        r.0.iter_mut().zip(self.0.iter()).for_each(|(d, s)| *d = s.round() as i64);
        r
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fitting_and_shares() {
        let cap = Amount::of(&Resources::new(1000, 10));
        let task = Amount::of(&Resources::new(300, 1));
        assert_eq!(cap.count_fitting(&task), 3);
        assert_eq!(cap.scaled(0.5).count_fitting(&task), 1);
        assert_eq!(task.dominant_share(&cap), 0.3);
        // 0.29 + 0.21 = 0.5 exactly in reals, not in binary: rounding must not lose a task.
        let half = Amount::of(&Resources::new(100, 100)).scaled(0.5);
        let used = Amount::of(&Resources::new(29, 29)).plus(&Amount::of(&Resources::new(21, 21)));
        assert!(used.fits_in(&half));
        assert_eq!(Amount::ZERO.count_fitting(&Amount::ZERO), i64::MAX);
    }

    /// `count_fitting` floors the least quotient by its cast: the same count as
    /// the least of each type's floor, on amounts around whole multiples,
    /// negative ones, and NaN and infinite ones.
    #[test]
    fn one_floor_of_the_least_quotient_is_the_least_floor() {
        let each_floor = |have: &Amount, unit: &Amount| {
            let mut n = f64::INFINITY;
            for (have, need) in have.0.iter().zip(unit.0.iter()) {
                if *need > 0.0 {
                    n = n.min(((have + EPS * have.abs().max(1.0)) / need).floor());
                }
            }
            if n.is_infinite() {
                i64::MAX
            } else {
                n.max(0.0) as i64
            }
        };
        let mut rng = crate::workload::rng::Rng::seeded(5);
        let odd = [f64::NAN, f64::INFINITY, f64::NEG_INFINITY, -0.0, 0.0, 1e-300, -3.0];
        let mut counts = std::collections::BTreeSet::new();
        for _ in 0..50_000 {
            let mut unit = Amount::ZERO;
            let mut have = Amount::ZERO;
            // Some units with no positive type, which fit any number of times.
            let none_positive = rng.chance(0.05);
            for r in 0..MAX_RESOURCE_TYPES {
                unit.0[r] = match (none_positive, rng.chance(0.1)) {
                    (true, _) => *rng.pick(&[f64::NAN, -0.0, 0.0, -3.0]),
                    (false, true) => *rng.pick(&odd),
                    (false, false) => rng.int(0, 6) as f64 * rng.uniform(0.5, 2.0),
                };
                have.0[r] = if rng.chance(0.1) {
                    *rng.pick(&odd)
                } else {
                    unit.0[r] * rng.int(-1, 12) as f64 * (1.0 + rng.uniform(-1e-9, 1e-9)) + rng.uniform(-0.5, 0.5)
                };
            }
            let n = have.count_fitting(&unit);
            assert_eq!(n, each_floor(&have, &unit), "have {have:?} unit {unit:?}");
            counts.insert(n);
        }
        assert!(counts.len() > 10 && counts.contains(&0) && counts.contains(&i64::MAX), "{counts:?}");
    }

    /// `fits_once` answers `count_fitting(·) >= 1` on amounts around one
    /// unit, halves and rounding residues included.
    #[test]
    fn fits_once_is_count_fitting_at_least_one() {
        let mut rng = crate::workload::rng::Rng::seeded(3);
        let (mut fit, mut not) = (0, 0);
        for _ in 0..20_000 {
            let unit = Amount::of(&Resources::new(rng.int(0, 8) * 512, rng.int(0, 4))).scaled(*rng.pick(&[0.5, 1.0, 1.5]));
            // Whole multiples often, so the rounding tolerance decides.
            let u = rng.uniform(0.0, 2.0);
            let times = *rng.pick(&[0.5, 1.0, 2.0, u]);
            let have = unit.scaled(times).plus(&Amount::of(&Resources::new(rng.int(-2, 2), rng.int(-1, 1)))).scaled(1.0 - 1e-12);
            let want = have.count_fitting(&unit) >= 1;
            assert_eq!(have.fits_once(&unit), want, "have {have:?} unit {unit:?}");
            if want {
                fit += 1
            } else {
                not += 1
            }
        }
        assert!(fit > 5000 && not > 5000, "fit {fit}, not {not}");
    }
}
