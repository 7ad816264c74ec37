//! INTERJOBSCHEDULER of Pseudocode 1 (lines 8–15): each job's share A_k by
//! DRF over every resource type — in closed form by progressive filling
//! (Ghodsi et al., NSDI'11, §4; the paper cites the closed form of [46])
//! rather than container by container — and what DRF itself leaves
//! unallocated, L_DRF = R − Σ A_k.
//!
//! A job's demand is what it holds plus what it asks for now (a DAG job's
//! later stages cannot use resources yet). Raising one "water level" s,
//! each job's dominant share grows as s·w_k until its demand is met (then
//! it keeps its demand) or some resource it uses runs out (then it stops
//! there, and the others go on with the types left).
//!
//! R is the pipeline's scope: the cluster when one pipeline serves every
//! queue; a queue's guarantee when each queue has its own — the queue's
//! own share of the cluster by the same filling across queues (weighted by
//! `weight` under `queue_order = "drf"`, by `capacity` under `capacity`),
//! never beyond its `max_capacity`. "DRF inside each queue's guarantee."

use super::amount::Amount;
use super::float_order::total_order_key;
use crate::model::resource::MAX_RESOURCE_TYPES;
use crate::model::ClusterState;
use crate::policy::Scope;

/// Progressive filling of `total` among `(demand, weight)` entries:
/// each entry's allocation (a multiple of its demand, at most the demand).
///
/// The level rises through events of two kinds: the least-demanding active
/// entry is satisfied, or a resource type runs out and every active entry
/// using it stops. Between events the usage of each type grows at a fixed
/// `rate` per unit of level (Σ over the active entries of their demand ÷
/// the level at which it is met). The rate is kept up to date by taking out
/// what each entry that leaves contributed, so a satisfied entry costs
/// O(types), not a pass over every entry still active: in a cluster of
/// many small jobs and a few large ones, each small job is satisfied on its
/// own, and re-summing the rate at each made this quadratic in the jobs
/// (450 small and 50 large jobs: ~4 M instructions per share update, and
/// the share update runs at every task completion). When a
/// type runs out (at most once per type) the rate is summed afresh, so
/// the rounding of the subtractions never builds up across those events;
/// and a type no active entry uses is skipped by count, not by its rate
/// (which subtraction may leave at a rounding residue instead of 0).
pub fn progressive_filling(total: &Amount, entries: &[(Amount, f64)]) -> Vec<Amount> {
    let n = entries.len();
    let mut out = vec![Amount::ZERO; n];
    // Level at which each entry's demand is met: dominant share ÷ weight.
    let ds: Vec<f64> = entries.iter().map(|(d, _)| d.dominant_share(total)).collect();
    let met_at = |i: usize| ds[i] / entries[i].1;
    // Usage of entry i per unit of level.
    let rate_of = |i: usize| entries[i].0.scaled(entries[i].1 / ds[i]);
    // Active entries, in the order they would be satisfied; `next` is the
    // first that may still be active, `stopped` marks those a type's
    // running out stopped further on.
    // Sorted by (level, index) computed once per entry, not per
    // comparison: the index makes every pair distinct, so the unstable
    // sort gives the one order a stable sort would. The level as its
    // `total_cmp` integer: the same order, compared as integers.
    let mut keyed: Vec<(i64, usize)> =
        (0..n).filter(|i| ds[*i] > 0.0 && entries[*i].1 > 0.0).map(|i| (total_order_key(met_at(i)), i)).collect();
    keyed.sort_unstable();
    let order: Vec<usize> = keyed.into_iter().map(|(_, i)| i).collect();
    let mut stopped = vec![false; n];
    let mut next = 0;
    let mut active = order.len();
    let types: Vec<usize> = (0..total.0.len()).filter(|r| total.0[*r] > 0.0).collect();
    // Active entries using each type.
    let mut users = [0usize; MAX_RESOURCE_TYPES];
    let sum_rates = |order: &[usize], stopped: &[bool], users: &mut [usize; MAX_RESOURCE_TYPES]| {
        users.iter_mut().for_each(|u| *u = 0);
        let mut rate = Amount::ZERO;
        for &i in order.iter().filter(|i| !stopped[**i]) {
            rate = rate.plus(&rate_of(i));
            for (u, d) in users.iter_mut().zip(entries[i].0 .0.iter()) {
                *u += usize::from(*d > 0.0);
            }
        }
        rate
    };
    let mut rate = sum_rates(&order, &stopped, &mut users);
    let mut fixed = Amount::ZERO;
    let mut level = 0.0_f64;
    while active > 0 {
        while stopped[order[next]] {
            next += 1;
        }
        let first = order[next];
        let cap_level = met_at(first);
        let mut sat: Option<(f64, usize)> = None;
        for &r in &types {
            if users[r] > 0 && rate.0[r] > 0.0 {
                let l = ((total.0[r] - fixed.0[r]) / rate.0[r]).max(level);
                if sat.is_none_or(|(best, _)| l < best) {
                    sat = Some((l, r));
                }
            }
        }
        match sat {
            Some((l, r)) if l < cap_level => {
                // Type r runs out: every active entry using it stops at l.
                level = l;
                for &i in &order[next..] {
                    if !stopped[i] && entries[i].0 .0[r] > 0.0 {
                        stopped[i] = true;
                        active -= 1;
                        out[i] = entries[i].0.scaled(level * entries[i].1 / ds[i]);
                        fixed = fixed.plus(&out[i]);
                    }
                }
                rate = sum_rates(&order[next..], &stopped, &mut users);
            }
            _ => {
                // The least-demanding entry is satisfied.
                level = cap_level;
                stopped[first] = true;
                active -= 1;
                next += 1;
                out[first] = entries[first].0;
                fixed = fixed.plus(&out[first]);
                rate = rate.minus(&rate_of(first));
                for (u, d) in users.iter_mut().zip(entries[first].0 .0.iter()) {
                    *u -= usize::from(*d > 0.0);
                }
            }
        }
    }
    out
}

/// R of the pipeline serving `scope`: the cluster, or what the queue can
/// count on — its share when it wants everything up to its
/// `max_capacity` and the other queues want what they hold and ask for.
/// (Its own demand does not cap it: its apps' shares are capped by theirs,
/// and what they leave is L_DRF, the leftover.)
pub fn scope_total(state: &ClusterState, scope: Scope, by_capacity: bool) -> Amount {
    let cluster = Amount::of(&state.capacity);
    let Scope::Queue(q) = scope else { return cluster };
    let entries: Vec<(Amount, f64)> = state
        .queues
        .iter()
        .map(|queue| {
            let demand = if queue.id == q { cluster } else { Amount::of(&(queue.allocated + queue.pending)) };
            let cap = queue.max_capacity.min(1.0);
            let ds = demand.dominant_share(&cluster);
            let demand = if ds > cap { demand.scaled(cap / ds) } else { demand };
            let weight = if by_capacity { queue.capacity.max(1e-6) } else { queue.weight };
            (demand, weight)
        })
        .collect();
    progressive_filling(&cluster, &entries).get(q).copied().unwrap_or(Amount::ZERO)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Resources;

    fn a(m: i64, c: i64) -> Amount {
        Amount::of(&Resources::new(m, c))
    }

    /// DRF's own example (Ghodsi et al. §4): 9 CPUs, 18 GB; user A's tasks
    /// need <1 CPU, 4 GB>, B's <3 CPUs, 1 GB>, both with unbounded demand.
    /// DRF gives A three tasks <3 CPUs, 12 GB> and B two <6 CPUs, 2 GB>:
    /// dominant shares 12/18 = 2/3 and 6/9 = 2/3. As demands, 10 tasks each.
    #[test]
    fn drf_paper_example() {
        let total = a(18, 9); // memory GB, CPUs
        let out = progressive_filling(&total, &[(a(40, 10), 1.0), (a(10, 30), 1.0)]);
        // Level s: A holds (40, 10)·s/2.22, B (10, 30)·s/3.33; CPUs run out
        // at s = 9 ÷ (4.5 + 9) = 2/3 (memory would at 18 ÷ 21): both stop.
        assert!((out[0].0[0] - 12.0).abs() < 1e-9 && (out[0].0[1] - 3.0).abs() < 1e-9, "{out:?}");
        assert!((out[1].0[0] - 2.0).abs() < 1e-9 && (out[1].0[1] - 6.0).abs() < 1e-9, "{out:?}");
    }

    /// A job that wants less than an equal share keeps its demand; the
    /// rest is split: 10 units, demands 2, 6, 6 → 2, 4, 4.
    #[test]
    fn satisfied_jobs_leave_the_rest_to_others() {
        let out = progressive_filling(&a(10, 10), &[(a(2, 2), 1.0), (a(6, 6), 1.0), (a(6, 6), 1.0)]);
        let got: Vec<f64> = out.iter().map(|x| (x.0[0] * 1e6).round() / 1e6).collect();
        assert_eq!(got, vec![2.0, 4.0, 4.0]);
        // Weights: 2 : 1 between two hungry entries → 2/3 and 1/3.
        let out = progressive_filling(&a(9, 9), &[(a(9, 9), 2.0), (a(9, 9), 1.0)]);
        assert!((out[0].0[0] - 6.0).abs() < 1e-9 && (out[1].0[0] - 3.0).abs() < 1e-9, "{out:?}");
        // Total demand below capacity: everyone gets its demand (L_DRF > 0).
        let out = progressive_filling(&a(10, 10), &[(a(3, 1), 1.0), (a(0, 0), 1.0)]);
        assert_eq!(out, vec![a(3, 1), Amount::ZERO]);
    }

    /// The filling as Ghodsi et al. state it, re-summing the active
    /// entries' rates at every event (what `progressive_filling` did until
    /// it kept the rate up to date): the reference for the test below.
    fn filling_by_resumming(total: &Amount, entries: &[(Amount, f64)]) -> Vec<Amount> {
        let mut out = vec![Amount::ZERO; entries.len()];
        let ds: Vec<f64> = entries.iter().map(|(d, _)| d.dominant_share(total)).collect();
        let mut active: Vec<usize> = (0..entries.len()).filter(|i| ds[*i] > 0.0 && entries[*i].1 > 0.0).collect();
        active.sort_by(|a, b| (ds[*a] / entries[*a].1).total_cmp(&(ds[*b] / entries[*b].1)).then(a.cmp(b)));
        let (mut fixed, mut level) = (Amount::ZERO, 0.0_f64);
        while !active.is_empty() {
            let rate = active.iter().fold(Amount::ZERO, |r, &i| r.plus(&entries[i].0.scaled(entries[i].1 / ds[i])));
            let cap_level = ds[active[0]] / entries[active[0]].1;
            let sat = (0..total.0.len())
                .filter(|r| total.0[*r] > 0.0 && rate.0[*r] > 0.0)
                .map(|r| (((total.0[r] - fixed.0[r]) / rate.0[r]).max(level), r))
                .min_by(|a, b| a.0.total_cmp(&b.0));
            match sat {
                Some((l, r)) if l < cap_level => {
                    level = l;
                    let (stop, go): (Vec<usize>, Vec<usize>) = active.iter().partition(|i| entries[**i].0 .0[r] > 0.0);
                    for i in stop {
                        out[i] = entries[i].0.scaled(level * entries[i].1 / ds[i]);
                        fixed = fixed.plus(&out[i]);
                    }
                    active = go;
                }
                _ => {
                    level = cap_level;
                    let i = active.remove(0);
                    out[i] = entries[i].0;
                    fixed = fixed.plus(&out[i]);
                }
            }
        }
        out
    }

    /// Keeping the rate up to date gives the allocations re-summing gives,
    /// up to rounding (10⁻⁹ of the type's total), on random clusters of 1–4
    /// resource types and 1–300 entries: small and large demands, some
    /// zero, some types unused, weights 0–3 (0: no share). Each case also
    /// keeps DRF's invariants: no type over its total, no entry beyond its
    /// demand.
    #[test]
    fn keeping_the_rate_up_to_date_fills_as_re_summing_does() {
        let mut rng = crate::workload::rng::Rng::seeded(7);
        let (mut satisfied, mut stopped) = (0usize, 0usize);
        for _ in 0..400 {
            let types = rng.int(1, 4) as usize;
            let mut total = Amount::ZERO;
            for r in 0..types {
                total.0[r] = rng.int(1, 10_000) as f64;
            }
            let n = rng.int(1, 300) as usize;
            let entries: Vec<(Amount, f64)> = (0..n)
                .map(|_| {
                    let mut d = Amount::ZERO;
                    let scale = if rng.chance(0.7) { 20 } else { 2_000 };
                    for r in 0..types {
                        if rng.chance(0.8) {
                            d.0[r] = rng.int(0, scale) as f64;
                        }
                    }
                    (d, [0.0, 0.5, 1.0, 1.0, 2.0, 3.0][rng.int(0, 5) as usize])
                })
                .collect();
            let got = progressive_filling(&total, &entries);
            let want = filling_by_resumming(&total, &entries);
            for (i, (g, w)) in got.iter().zip(&want).enumerate() {
                for r in 0..types {
                    assert!((g.0[r] - w.0[r]).abs() <= 1e-9 * total.0[r], "entry {i} type {r}: {} vs {}", g.0[r], w.0[r]);
                    assert!(g.0[r] <= entries[i].0 .0[r] * (1.0 + 1e-12));
                }
                if entries[i].0 .0.iter().any(|v| *v > 0.0) && entries[i].1 > 0.0 {
                    if g == &entries[i].0 {
                        satisfied += 1;
                    } else {
                        stopped += 1;
                    }
                }
            }
            let used = got.iter().fold(Amount::ZERO, |a, g| a.plus(g));
            for r in 0..types {
                assert!(used.0[r] <= total.0[r] * (1.0 + 1e-9), "type {r} over its total: {} > {}", used.0[r], total.0[r]);
            }
        }
        // Both kinds of event occur often.
        assert!(satisfied > 5_000 && stopped > 5_000, "satisfied {satisfied}, stopped {stopped}");
    }
}
