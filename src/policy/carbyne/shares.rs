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
use crate::model::ClusterState;
use crate::policy::Scope;

/// Progressive filling of `total` among `(demand, weight)` entries:
/// each entry's allocation (a multiple of its demand, at most the demand).
pub fn progressive_filling(total: &Amount, entries: &[(Amount, f64)]) -> Vec<Amount> {
    let n = entries.len();
    let mut out = vec![Amount::ZERO; n];
    // Level at which each entry's demand is met: dominant share ÷ weight.
    let ds: Vec<f64> = entries.iter().map(|(d, _)| d.dominant_share(total)).collect();
    let mut active: Vec<usize> = (0..n).filter(|i| ds[*i] > 0.0 && entries[*i].1 > 0.0).collect();
    active.sort_by(|a, b| (ds[*a] / entries[*a].1).total_cmp(&(ds[*b] / entries[*b].1)).then(a.cmp(b)));
    let mut fixed = Amount::ZERO;
    let mut level = 0.0_f64;
    let types: Vec<usize> = (0..total.0.len()).filter(|r| total.0[*r] > 0.0).collect();
    while !active.is_empty() {
        // Usage per type grows at `rate` per unit of level.
        let mut rate = Amount::ZERO;
        for &i in &active {
            rate = rate.plus(&entries[i].0.scaled(entries[i].1 / ds[i]));
        }
        let cap_level = ds[active[0]] / entries[active[0]].1;
        let mut sat: Option<(f64, usize)> = None;
        for &r in &types {
            if rate.0[r] > 0.0 {
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
                let (stop, go): (Vec<usize>, Vec<usize>) = active.iter().partition(|i| entries[**i].0 .0[r] > 0.0);
                for i in stop {
                    out[i] = entries[i].0.scaled(level * entries[i].1 / ds[i]);
                    fixed = fixed.plus(&out[i]);
                }
                active = go;
            }
            _ => {
                // The least-demanding entry is satisfied.
                level = cap_level;
                let i = active.remove(0);
                out[i] = entries[i].0;
                fixed = fixed.plus(&out[i]);
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
}
