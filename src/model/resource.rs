//! Multi-dimensional resource vectors, as YARN's `Resource` is.
//!
//! Index 0 is memory (MB) and index 1 is vcores, as in YARN's `ResourceUtils`
//! ordering; further indices are the cluster's extra resource types (GPU, FPGA,
//! ...) in the order the shim announced them when the engine was created.

use serde::{Deserialize, Serialize};
use std::ops::{Add, AddAssign, Sub, SubAssign};

/// Most resource types one engine handles: memory, vcores and six extra types.
pub const MAX_RESOURCE_TYPES: usize = 8;
pub const MEMORY: usize = 0;
pub const VCORES: usize = 1;

/// A resource amount per type. Unused trailing types are zero, so arithmetic
/// never needs to know how many types the cluster has.
#[derive(Clone, Copy, Eq, Default, Serialize, Deserialize)]
pub struct Resources(pub [i64; MAX_RESOURCE_TYPES]);

/// Equal when every type is: all eight compared without a branch. The
/// derived comparison calls `memcmp` for the 64 bytes, and the simulator
/// compares a node's use on every heartbeat of every quiet node (~80
/// million on `bench-sim` under ROSE), where the call cost 4% of the run.
impl PartialEq for Resources {
    fn eq(&self, other: &Resources) -> bool {
        self.0.iter().zip(&other.0).fold(0, |differ, (a, b)| differ | (a ^ b)) == 0
    }
}

/// Hashes the amounts, as equality compares them.
impl std::hash::Hash for Resources {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.0.hash(state);
    }
}

impl Resources {
    pub const ZERO: Resources = Resources([0; MAX_RESOURCE_TYPES]);

    pub fn new(memory_mb: i64, vcores: i64) -> Self {
        let mut v = [0; MAX_RESOURCE_TYPES];
        v[MEMORY] = memory_mb;
        v[VCORES] = vcores;
        Resources(v)
    }

    pub fn from_slice(values: &[i64]) -> Self {
        let mut v = [0; MAX_RESOURCE_TYPES];
        for (dst, src) in v.iter_mut().zip(values) {
            *dst = *src;
        }
        Resources(v)
    }

    pub fn memory_mb(&self) -> i64 {
        self.0[MEMORY]
    }

    pub fn vcores(&self) -> i64 {
        self.0[VCORES]
    }

    /// True when every type of `self` is at most the same type of `other`.
    pub fn fits_in(&self, other: &Resources) -> bool {
        self.0.iter().zip(other.0.iter()).all(|(a, b)| a <= b)
    }

    /// Component-wise minimum: the smallest shape that either could take.
    pub fn min_each(&self, other: &Resources) -> Resources {
        let mut m = *self;
        for (v, o) in m.0.iter_mut().zip(other.0.iter()) {
            *v = (*v).min(*o);
        }
        m
    }

    /// Component-wise maximum: the smallest shape that holds either.
    pub fn max_each(&self, other: &Resources) -> Resources {
        let mut m = *self;
        for (v, o) in m.0.iter_mut().zip(other.0.iter()) {
            *v = (*v).max(*o);
        }
        m
    }

    pub fn is_zero(&self) -> bool {
        self.0.iter().all(|v| *v == 0)
    }

    /// Any type strictly positive.
    pub fn any_positive(&self) -> bool {
        self.0.iter().any(|v| *v > 0)
    }

    pub fn times(&self, n: i64) -> Resources {
        let mut r = *self;
        r.0.iter_mut().for_each(|v| *v *= n);
        r
    }

    /// Component-wise max(0, self - other).
    pub fn saturating_sub(&self, other: &Resources) -> Resources {
        let mut r = *self;
        for (a, b) in r.0.iter_mut().zip(other.0.iter()) {
            *a = (*a - *b).max(0);
        }
        r
    }

    /// Dominant share of `self` against `total`: max over types of self/total
    /// (Ghodsi et al., DRF). Types the cluster has none of are ignored.
    pub fn dominant_share(&self, total: &Resources) -> f64 {
        self.0.iter().zip(total.0.iter()).filter(|(_, t)| **t > 0).map(|(a, t)| *a as f64 / *t as f64).fold(0.0, f64::max)
    }

    /// How many copies of `unit` fit in `self` (the binding type decides).
    pub fn count_fitting(&self, unit: &Resources) -> i64 {
        self.0.iter().zip(unit.0.iter()).filter(|(_, u)| **u > 0).map(|(a, u)| (*a).max(0) / *u).min().unwrap_or(i64::MAX)
    }
}

impl Add for Resources {
    type Output = Resources;
    fn add(mut self, rhs: Resources) -> Resources {
        self += rhs;
        self
    }
}

impl AddAssign for Resources {
    fn add_assign(&mut self, rhs: Resources) {
        for (a, b) in self.0.iter_mut().zip(rhs.0.iter()) {
            *a += *b;
        }
    }
}

impl Sub for Resources {
    type Output = Resources;
    fn sub(mut self, rhs: Resources) -> Resources {
        self -= rhs;
        self
    }
}

impl SubAssign for Resources {
    fn sub_assign(&mut self, rhs: Resources) {
        for (a, b) in self.0.iter_mut().zip(rhs.0.iter()) {
            *a -= *b;
        }
    }
}

impl std::fmt::Debug for Resources {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "<memory:{}, vCores:{}", self.0[MEMORY], self.0[VCORES])?;
        for (i, v) in self.0.iter().enumerate().skip(2) {
            if *v != 0 {
                write!(f, ", r{}:{}", i, v)?;
            }
        }
        write!(f, ">")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fits_and_dominant_share() {
        let total = Resources::new(1000, 10);
        let a = Resources::new(100, 5);
        assert!(a.fits_in(&total));
        assert!(!Resources::new(1001, 1).fits_in(&total));
        assert_eq!(a.dominant_share(&total), 0.5);
        assert_eq!(total.count_fitting(&Resources::new(300, 1)), 3);
        assert_eq!(total.count_fitting(&Resources::new(10, 4)), 2);
        assert_eq!((total - a).memory_mb(), 900);
    }

    #[test]
    fn component_wise_min_and_max() {
        let a = Resources::new(2048, 1);
        let b = Resources::new(1024, 4);
        assert_eq!(a.min_each(&b), Resources::new(1024, 1));
        assert_eq!(a.max_each(&b), Resources::new(2048, 4));
        assert_eq!(Resources::ZERO.max_each(&a), a);
    }

    /// Equal exactly when every type is, whichever type differs (the
    /// extra types too) and by whatever bits (a difference in the low bit, a
    /// middle one or the sign).
    #[test]
    fn equal_exactly_when_every_type_is() {
        let base = Resources::from_slice(&[4096, 4000, 1, 0, 0, 0, 0, 7]);
        assert_eq!(base, base);
        for i in 0..MAX_RESOURCE_TYPES {
            for other in [base.0[i] + 1, base.0[i] ^ (1 << 40), base.0[i] ^ i64::MIN, i64::MAX] {
                let mut r = base;
                r.0[i] = other;
                assert_ne!(base, r, "type {i}: {} vs {other}", base.0[i]);
            }
        }
    }
}
