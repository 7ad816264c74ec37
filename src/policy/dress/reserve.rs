//! The two pools and Algorithm 3 (Adjusting Reserve Resource Ratio, §IV-C).
//!
//! δ·Tot_R belongs to small-demand apps (SD, category 1), (1 − δ)·Tot_R to
//! large-demand apps (LD, category 2). Quantities are scalars in one unit
//! (the policy uses shares of the cluster, Tot_R = 1; tests may use container
//! counts with Tot_R = the number of containers).

use serde::Serialize;

/// Tolerance for comparing sums of shares (0.1 + 0.2 ≠ 0.3 in f64).
pub const EPS: f64 = 1e-9;

/// What Algorithm 3 sees at one scheduling interval.
#[derive(Debug, Clone, Default)]
pub struct Alg3Input {
    /// Current reserve ratio δ.
    pub delta: f64,
    /// Tot_R.
    pub total: f64,
    /// A_c1, A_c2: currently available resources of each pool.
    pub available: [f64; 2],
    /// F_1(t+1), F_2(t+1): estimated release by the next interval (Eq. 1).
    pub release_next: [f64; 2],
    /// r_i of every pending SD job (line 3).
    pub small_demands: Vec<f64>,
    /// r_j of every pending LD job (line 5).
    pub large_demands: Vec<f64>,
    /// Bounds on δ, applied to the result.
    pub delta_min: f64,
    pub delta_max: f64,
}

/// Which branch of Algorithm 3 decided.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Branch {
    /// Lines 7–8: SD's estimate covers P1; the surplus goes to LD.
    ShrinkReserve,
    /// Lines 9–11: SD is short and LD has a surplus; δ grows by it.
    GrowReserve,
    /// Lines 12–24: both are short; fit the smallest jobs, then move the
    /// combined leftover to further SD jobs.
    Leftover,
}

#[derive(Debug, Clone, Serialize)]
pub struct Alg3Output {
    /// δ before the bounds were applied.
    pub delta_unbounded: f64,
    /// The new δ, within [delta_min, delta_max].
    pub delta: f64,
    pub branch: Branch,
    /// P1, P2.
    pub pending: [f64; 2],
    /// Lines 12–24 only: SD / LD jobs the estimate can serve, SD jobs served
    /// from the combined leftover, and what LD's leftover gave to SD.
    pub fitted: [usize; 2],
    pub leftover_jobs: usize,
    pub moved: f64,
}

/// Algorithm 3. Readings of the pseudo-code (see `docs/policies/dress.md`):
/// * line 14 adds F_1(t+1) to both pools; the second is taken as F_2(t+1);
/// * lines 15–20 assign jobs in ascending demand while they fit, with an
///   exact fit allowed (A − r ≥ 0, the paper writes > 0), and stop at the
///   first that does not fit (every later one is larger), so "J_{i+1}" of
///   lines 21–24 is the first unassigned SD job, as the prose says;
/// * lines 21–24 serve further SD jobs while r_i fits in A_c1 + A_c2 and stop
///   at the first that does not; such a job takes all of SD's leftover and
///   the rest from LD's, and δ grows by the part taken from LD (the paper
///   writes r_i ÷ Tot_R, which would also count SD's own leftover as moved
///   and can drive A_c2 negative).
pub fn adjust_delta(input: &Alg3Input) -> Alg3Output {
    let tot = input.total;
    let mut delta = input.delta;
    // Lines 3–6.
    let p1: f64 = input.small_demands.iter().sum();
    let p2: f64 = input.large_demands.iter().sum();
    let est1 = input.available[0] + input.release_next[0];
    let est2 = input.available[1] + input.release_next[1];
    let mut fitted = [0, 0];
    let mut leftover_jobs = 0;
    let mut moved = 0.0;
    let branch = if est1 + EPS >= p1 {
        // Lines 7–8.
        delta -= (est1 - p1) / tot;
        Branch::ShrinkReserve
    } else if est2 + EPS >= p2 {
        // Lines 10–11.
        delta += (est2 - p2) / tot;
        Branch::GrowReserve
    } else {
        // Lines 13–14.
        let mut sd = input.small_demands.clone();
        let mut ld = input.large_demands.clone();
        sd.sort_by(f64::total_cmp);
        ld.sort_by(f64::total_cmp);
        let (mut a1, mut a2) = (est1, est2);
        // Lines 15–17.
        let mut i = 0;
        while i < sd.len() && a1 - sd[i] >= -EPS {
            a1 -= sd[i];
            i += 1;
        }
        // Lines 18–20.
        let mut j = 0;
        while j < ld.len() && a2 - ld[j] >= -EPS {
            a2 -= ld[j];
            j += 1;
        }
        fitted = [i, j];
        // Lines 21–24: the leftover moves from LD to SD.
        while i < sd.len() && sd[i] <= a1 + a2 + EPS {
            let from_ld = (sd[i] - a1).max(0.0);
            a1 = (a1 - sd[i]).max(0.0);
            a2 -= from_ld;
            delta += from_ld / tot;
            moved += from_ld;
            leftover_jobs += 1;
            i += 1;
        }
        Branch::Leftover
    };
    let bounded = delta.clamp(input.delta_min, input.delta_max);
    Alg3Output { delta_unbounded: delta, delta: bounded, branch, pending: [p1, p2], fitted, leftover_jobs, moved }
}

/// A_c1 and A_c2 (§IV-C: "A_c = A_c1 + A_c2"): each pool's share minus its
/// usage, less whatever the other pool has borrowed from it, and together
/// at most what is actually free (`free`). `used` and the result are in
/// the same unit as `total`.
pub fn pool_available(delta: f64, total: f64, used: [f64; 2], free: f64) -> [f64; 2] {
    let share = [delta * total, (1.0 - delta) * total];
    let over = [(used[0] - share[0]).max(0.0), (used[1] - share[1]).max(0.0)];
    let a1 = (share[0] - used[0] - over[1]).max(0.0).min(free.max(0.0));
    let a2 = (share[1] - used[1] - over[0]).max(0.0).min((free - a1).max(0.0));
    [a1, a2]
}

/// The borrowing rule (issue 4 item 2, §V-B2 "unused resources not only
/// distributes to the queue of small jobs, but also to the queue that
/// targets on regular jobs"): a pool may go beyond its share only while the
/// other pool has no pending demand at all. Its borrowed containers are not
/// preempted; once the other pool has demand again, borrowing stops and the
/// borrowed capacity returns as those containers finish (and Algorithm 3
/// sees it through A_c and F(t+1)).
pub fn may_borrow(enabled: bool, other_pool_has_demand: bool) -> bool {
    enabled && !other_pool_has_demand
}

#[cfg(test)]
mod tests {
    use super::*;

    fn input(delta: f64, avail: [f64; 2], release: [f64; 2], sd: &[f64], ld: &[f64]) -> Alg3Input {
        Alg3Input {
            delta,
            total: 100.0,
            available: avail,
            release_next: release,
            small_demands: sd.to_vec(),
            large_demands: ld.to_vec(),
            delta_min: 0.0,
            delta_max: 1.0,
        }
    }

    #[test]
    fn surplus_in_small_pool_shrinks_delta() {
        // 100 containers, δ = 0.2: A_c1 = 6, F_1 = 4, P1 = 3 ⇒ δ −= 7/100.
        let out = adjust_delta(&input(0.2, [6.0, 10.0], [4.0, 0.0], &[1.0, 2.0], &[50.0]));
        assert_eq!(out.branch, Branch::ShrinkReserve);
        assert!((out.delta - 0.13).abs() < 1e-12, "{out:?}");
        assert_eq!(out.pending, [3.0, 50.0]);
    }

    #[test]
    fn short_small_pool_takes_large_surplus() {
        // A_c1 + F_1 = 2 < P1 = 8; A_c2 + F_2 = 30 ≥ P2 = 20 ⇒ δ += 10/100.
        let out = adjust_delta(&input(0.2, [2.0, 25.0], [0.0, 5.0], &[3.0, 5.0], &[20.0]));
        assert_eq!(out.branch, Branch::GrowReserve);
        assert!((out.delta - 0.30).abs() < 1e-12, "{out:?}");
    }

    #[test]
    fn both_short_fits_smallest_then_moves_leftover() {
        // SD pending 12, 5, 8 (sorted 5, 8, 12), A_c1 + F_1 = 10;
        // LD pending 50, 30, A_c2 + F_2 = 20 + 5 = 25.
        // Lines 15–17: 5 fits (A_c1 = 5); 8 does not.
        // Lines 18–20: 30 does not fit in 25.
        // Lines 21–24: 8 ≤ 5 + 25: takes 5 from SD and 3 from LD, δ += 0.03;
        //              12 ≤ 0 + 22: takes 12 from LD, δ += 0.12;
        //              (no more SD jobs).
        let out = adjust_delta(&input(0.2, [8.0, 20.0], [2.0, 5.0], &[12.0, 5.0, 8.0], &[50.0, 30.0]));
        assert_eq!(out.branch, Branch::Leftover);
        assert_eq!(out.fitted, [1, 0]);
        assert_eq!(out.leftover_jobs, 2);
        assert!((out.moved - 15.0).abs() < 1e-12);
        assert!((out.delta - 0.35).abs() < 1e-12, "{out:?}");
    }

    #[test]
    fn leftover_stops_at_first_job_too_large() {
        // A_c1 = 4 (smallest SD job is 5: the paper's own example), A_c2 = 3
        // with LD's only job needing 40. 5 ≤ 4 + 3: moved 1; then 9 > 2 stops.
        let out = adjust_delta(&input(0.1, [4.0, 3.0], [0.0, 0.0], &[5.0, 9.0], &[40.0]));
        assert_eq!(out.branch, Branch::Leftover);
        assert_eq!(out.fitted, [0, 0]);
        assert_eq!(out.leftover_jobs, 1);
        assert!((out.delta - 0.11).abs() < 1e-12, "{out:?}");
    }

    #[test]
    fn bounds_clamp_delta() {
        let mut i = input(0.5, [50.0, 0.0], [0.0, 0.0], &[], &[80.0]);
        i.delta_min = 0.1;
        let out = adjust_delta(&i);
        assert!((out.delta_unbounded - 0.0).abs() < 1e-12);
        assert_eq!(out.delta, 0.1);
        let mut i = input(0.5, [0.0, 50.0], [0.0, 0.0], &[30.0], &[]);
        i.delta_max = 0.9;
        let out = adjust_delta(&i);
        assert_eq!(out.branch, Branch::GrowReserve);
        assert_eq!(out.delta, 0.9);
    }

    #[test]
    fn pool_available_accounts_for_borrowing() {
        // δ = 0.1 of 1.0; LD uses 0.95 (borrowed 0.05 of SD's 0.1); free 0.05.
        let a = pool_available(0.1, 1.0, [0.0, 0.95], 0.05);
        assert!((a[0] - 0.05).abs() < 1e-12 && a[1] == 0.0, "{a:?}");
        // Nobody borrowed: each pool's own headroom.
        let a = pool_available(0.5, 1.0, [0.25, 0.5], 0.25);
        assert!((a[0] - 0.25).abs() < 1e-12 && a[1].abs() < 1e-12, "{a:?}");
        assert!(may_borrow(true, false) && !may_borrow(true, true) && !may_borrow(false, false));
    }
}
