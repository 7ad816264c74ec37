//! Seeded workload generators calibrated to the papers. Each returns a
//! [`Trace`] with its cluster; the same parameters and seed give the same
//! trace on every machine.
//!
//! * `hibench`    — DRESS §V: HiBench MapReduce/Spark mix, settable small-job share.
//! * `hibench-local` — the same experiment shrunk to a real YARN cluster on one machine.
//! * `local-burst`, `local-mix` — SleepJob mixes for that cluster that nothing was tuned on.
//! * `tpcds`      — Carbyne §2.2 Tables 1–2 / §5: TPC-DS-like DAGs with barriers.
//! * `google`, `google2019` — SLearn §4: Google 2011/2019-like widths and skew, load ≈ 1.
//! * `facebook`   — Carbyne §5: the Facebook trace's scale (7 000 jobs, 650 000 tasks,
//!   6 hours, 3 000 machines; MapReduce, many map-only jobs).

pub mod burst;
pub mod facebook;
pub mod google;
pub mod hibench;
pub mod local;
pub mod local_sleep;
pub mod tpcds;

use super::rng::Rng;
use super::trace::{ClusterSpec, Job, Trace};

pub const KINDS: &[&str] = &["hibench", "hibench-local", "local-burst", "local-mix", "tpcds", "google", "google2019", "facebook"];

/// Generator parameters; `None` means the generator's paper-derived default.
#[derive(Debug, Clone, Default)]
pub struct GenParams {
    pub seed: u64,
    pub jobs: Option<usize>,
    /// Target number of tasks (facebook only).
    pub tasks: Option<usize>,
    pub nodes: Option<u32>,
    /// Offered load: total task work ÷ (cluster vcores × arrival span).
    pub load: Option<f64>,
    /// Share of small jobs (hibench: DRESS §V uses 10–40 %).
    pub small_share: Option<f64>,
    /// Submit every job at time 0 (Carbyne §5's "offline" case).
    pub offline: bool,
    /// Submit job i at i × this many ms instead of the generator's Poisson
    /// arrivals (DRESS §V-A2: jobs "are submitted to the system one by one
    /// with a 5 seconds interval"). `load` then no longer sets the span.
    pub interval_ms: Option<i64>,
    /// Bursty arrivals: re-time the arrivals by a rate multiplier per 100 s
    /// slot, lognormal with this σ ([`burst::modulate`]; SLearn's Table 5
    /// load fluctuation). `None`: the generator's own arrivals.
    pub burst: Option<f64>,
}

pub fn generate(kind: &str, p: &GenParams) -> Result<Trace, String> {
    let mut rng = Rng::seeded(p.seed);
    let t = match kind {
        "hibench" => hibench::generate(&mut rng, p),
        "hibench-local" => local::generate(&mut rng, p),
        "local-burst" => local_sleep::burst(&mut rng, p),
        "local-mix" => local_sleep::mix(&mut rng, p),
        "tpcds" => tpcds::generate(&mut rng, p),
        "google" => google::generate(&mut rng, p, &google::GOOGLE_2011),
        "google2019" => google::generate(&mut rng, p, &google::GOOGLE_2019),
        "facebook" => facebook::generate(&mut rng, p),
        other => return Err(format!("unknown generator `{other}`; expected one of {}", KINDS.join(", "))),
    };
    let mut t = t;
    if let Some(gap) = p.interval_ms {
        if gap < 0 {
            return Err(format!("interval must be >= 0 ms, got {gap}"));
        }
        t.jobs.sort_by_key(|j| j.submit_ms);
        t.jobs.iter_mut().enumerate().for_each(|(i, j)| j.submit_ms = i as i64 * gap);
    }
    if let Some(sigma) = p.burst {
        if !(sigma > 0.0 && sigma.is_finite()) {
            return Err(format!("burst must be a positive σ, got {sigma}"));
        }
        // Its own stream, so the jobs are those of the Poisson trace.
        let mut rng = Rng::seeded(p.seed ^ 0xB0B5_7A11);
        t.jobs.sort_by_key(|j| j.submit_ms);
        burst::modulate(&mut rng, &mut t.jobs, sigma);
    }
    if p.offline {
        t.jobs.iter_mut().for_each(|j| j.submit_ms = 0);
    }
    t.validate()?;
    Ok(t)
}

/// Work of a job in node-milliseconds: Σ task duration × the task's
/// dominant share of one node (so memory-bound tasks count as such).
pub fn node_ms(job: &Job, cluster: &ClusterSpec) -> f64 {
    let node = cluster.capacity();
    job.stages.iter().map(|s| s.demand().dominant_share(&node) * s.tasks.iter().map(|t| t.duration_ms as f64).sum::<f64>()).sum()
}

/// Offered load of a trace on a cluster over [first, last submission].
pub fn offered_load(jobs: &[Job], cluster: &ClusterSpec) -> f64 {
    let span = jobs.iter().map(|j| j.submit_ms).max().unwrap_or(0) - jobs.iter().map(|j| j.submit_ms).min().unwrap_or(0);
    jobs.iter().map(|j| node_ms(j, cluster)).sum::<f64>() / (span.max(1) as f64 * cluster.nodes as f64)
}

/// Poisson arrivals whose span makes the offered load `load`:
/// span = Σ work ÷ (load × nodes), work in node-ms; mean gap = span ÷ jobs.
pub fn poisson_arrivals(rng: &mut Rng, jobs: &mut [Job], cluster: &ClusterSpec, load: f64) {
    let work: f64 = jobs.iter().map(|j| node_ms(j, cluster)).sum();
    let mean_gap = work / (load * cluster.nodes as f64) / jobs.len().max(1) as f64;
    let mut t = 0.0;
    for (i, j) in jobs.iter_mut().enumerate() {
        if i > 0 {
            t += rng.exp(mean_gap);
        }
        j.submit_ms = t as i64;
    }
}

/// A task duration in ms from seconds, at least 1 ms.
pub fn ms(seconds: f64) -> i64 {
    ((seconds * 1000.0) as i64).max(1)
}
