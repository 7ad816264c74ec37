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
//!
//! Knobs for sizing a workload to another tool (e.g. Hadoop's SLS, which runs
//! in real time), none of which changes the default output:
//!
//! * `span_ms` (`--span-s`): facebook, google and hibench spread their
//!   arrivals over this span instead of their own (facebook's six hours;
//!   google's and hibench's span that the load sets), and scale every task's
//!   runtime so the offered load — each generator's own definition, total
//!   task work in node-ms ÷ (nodes × span) — is still `load`.
//! * `queues` (`--queues N`): after generation (and after any re-timing),
//!   job i in submission order goes to queue `q<k>` with user `u<k>`,
//!   k = i mod N + 1: every queue gets the same mix of job sizes and one
//!   user, so fairness across users is fairness across queues.
//! * `max_rounds` (`--max-rounds N`): hibench keeps at most N MapReduce
//!   rounds per job (1: every job map-only or map→reduce, the shapes SLS's
//!   MapReduce AM replays).

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
    /// Arrival span (ms) for facebook, google and hibench; runtimes are
    /// scaled so the offered load over it is `load` (module docs).
    pub span_ms: Option<i64>,
    /// Spread the jobs round-robin, in submission order, over queues
    /// `q1..qN`, each with its own user `u1..uN` (module docs).
    pub queues: Option<usize>,
    /// hibench: at most this many MapReduce rounds per job.
    pub max_rounds: Option<usize>,
}

pub fn generate(kind: &str, p: &GenParams) -> Result<Trace, String> {
    if let Some(span) = p.span_ms {
        if span <= 0 {
            return Err(format!("span must be > 0 ms, got {span}"));
        }
        if !matches!(kind, "facebook" | "google" | "google2019" | "hibench") {
            return Err(format!("a span is for facebook, google, google2019 and hibench, not `{kind}`"));
        }
    }
    if p.queues == Some(0) {
        return Err("queues must be at least 1".into());
    }
    if let Some(r) = p.max_rounds {
        if r == 0 || kind != "hibench" {
            return Err(format!("max rounds is for hibench and must be at least 1 (got {r} for `{kind}`)"));
        }
    }
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
    if let Some(n) = p.queues {
        spread_over_queues(&mut t.jobs, n);
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

/// Job i in submission order (stable) to queue `q<k>` with user `u<k>`,
/// k = i mod `n` + 1.
pub fn spread_over_queues(jobs: &mut [Job], n: usize) {
    jobs.sort_by_key(|j| j.submit_ms);
    for (i, j) in jobs.iter_mut().enumerate() {
        let k = i % n.max(1) + 1;
        j.queue = format!("q{k}");
        j.user = format!("u{k}");
    }
}

/// Scale every task's runtime so the jobs' work (node-ms) is `load` ×
/// nodes × `span_ms`: offered load `load` over that span. Runtimes stay in
/// [1, `max_ms`].
pub fn scale_to_load(jobs: &mut [Job], cluster: &ClusterSpec, load: f64, span_ms: i64, max_ms: i64) {
    let work: f64 = jobs.iter().map(|j| node_ms(j, cluster)).sum();
    let capacity = cluster.nodes as f64 * span_ms as f64;
    let f = load * capacity / work;
    for t in jobs.iter_mut().flat_map(|j| j.stages.iter_mut()).flat_map(|s| s.tasks.iter_mut()) {
        t.duration_ms = ((t.duration_ms as f64 * f) as i64).clamp(1, max_ms);
    }
}

/// Poisson arrivals at offered load `load`. Without a span, the span is
/// what the load makes it: span = Σ work ÷ (load × nodes), work in node-ms.
/// With `span_ms`, runtimes are first scaled so that this span is
/// `span_ms` ([`scale_to_load`], capped at `max_ms`) and arrivals come
/// `span_ms` ÷ jobs apart on average. Mean gap = span ÷ jobs.
pub fn arrivals_at_load(rng: &mut Rng, jobs: &mut [Job], cluster: &ClusterSpec, load: f64, span_ms: Option<i64>, max_ms: i64) {
    match span_ms {
        None => poisson_arrivals(rng, jobs, cluster, load),
        Some(span) => {
            scale_to_load(jobs, cluster, load, span, max_ms);
            poisson_with_gap(rng, jobs, span as f64 / jobs.len().max(1) as f64);
        }
    }
}

/// Poisson arrivals whose span makes the offered load `load`:
/// span = Σ work ÷ (load × nodes), work in node-ms; mean gap = span ÷ jobs.
pub fn poisson_arrivals(rng: &mut Rng, jobs: &mut [Job], cluster: &ClusterSpec, load: f64) {
    let work: f64 = jobs.iter().map(|j| node_ms(j, cluster)).sum();
    let mean_gap = work / (load * cluster.nodes as f64) / jobs.len().max(1) as f64;
    poisson_with_gap(rng, jobs, mean_gap);
}

/// Poisson arrivals with this mean gap (ms), the first at 0.
fn poisson_with_gap(rng: &mut Rng, jobs: &mut [Job], mean_gap: f64) {
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
