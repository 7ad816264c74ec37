//! Carbyne end to end: the paper's worked example, a two-job example where
//! altruism lowers the mean JCT against the engine's (work-conserving) DRF
//! without delaying either job, P(Altruism) = 0 reproducing DRF exactly,
//! and Theorem 3.1 over random DAGs submitted together.
//!
//! Jobs run in the simulator, which drives the same engine the YARN shim
//! does; its AMs send the `shepherd.dag` hint (stages, task counts, mean
//! durations), so Carbyne knows each DAG as the paper's Tez AM does.
//! Every task asks g GB and g vcores on nodes of equal GB and vcores, so
//! one resource (the paper's "single bottleneck resource") decides.

use shepherd::sim::{simulate, SimOptions};
use shepherd::workload::{ClusterSpec, Job, Stage, Task, Trace};
use shepherd::Config;
use std::collections::BTreeMap;

/// A stage of `n` tasks of `units` GB and vcores lasting `ms`.
fn stage(after: &[usize], n: usize, units: i64, ms: i64) -> Stage {
    Stage {
        name: String::new(),
        after: after.to_vec(),
        slowstart: None,
        memory_mb: units * 1024,
        vcores: units,
        tasks: vec![Task { duration_ms: ms, used: None }; n],
    }
}

fn job(id: &str, stages: Vec<Stage>) -> Job {
    Job {
        id: id.into(),
        submit_ms: 0,
        user: id.into(),
        name: id.into(),
        queue: "default".into(),
        category: None,
        gang: false,
        app_type: None,
        am: None,
        stages,
    }
}

fn node(units: i64) -> ClusterSpec {
    ClusterSpec { nodes: 1, memory_mb: units * 1024, vcores: units, rack_size: 1 }
}

/// Finish time (ms) of every job under `config`'s policy.
fn finishes(jobs: &[Job], cluster: &ClusterSpec, config: &str) -> BTreeMap<String, i64> {
    let trace = Trace { cluster: None, am: None, jobs: jobs.to_vec() };
    // The idealized cluster (no AM containers, no launch latencies): the
    // hand-derived schedules and Theorem 3.1's offline model have neither.
    let opts = SimOptions { cluster_model: None, ..SimOptions::default() };
    let out = simulate(&trace, cluster, Config::parse(config).unwrap(), &opts).unwrap();
    assert_eq!(out.summary.unfinished_jobs, 0, "{config}");
    out.jobs.iter().map(|j| (j.id.clone(), j.finish_ms)).collect()
}

const CARBYNE: &str = "[scheduler]\npolicy = \"carbyne\"\n";
const DRF: &str = "[scheduler]\npolicy = \"drf\"\n";

/// The paper's Fig. 2 (§2.1), one time unit = 10 s, resources in
/// hundredths of one node: J1 has S0 = 2 tasks of 0.04, S1 = 3 tasks of
/// 0.21 (1 unit each) and S2 after both (1 task, 0.1 unit); J2 has 2 tasks
/// of 0.29 (1 unit). Both arrive at 0; DRF gives each 0.5.
///
/// Carbyne (§3.3): J1's T_1 = 2.1 (S1 takes 2 tasks beside S0's 2 at 0, the
/// third at 1, S2 at 2); reverse packing puts S2 at [2, 2.1], S0 ×2 and
/// S1 ×2 at [1, 2], so only one S1 task must start now: J1 yields 0.29
/// (0.08 + 0.21). J2 (T_2 = 2) must start one task now and yields 0.21.
/// The leftover, 0.5, goes to J2 first (SRTF: 1 task left + 1 running =
/// 20 s of work against J1's 51 s), its second task (0.29), then to J1's
/// best-aligned ask, one more S1 task (0.21): the node is full. At 1, J2 is
/// done; J1 runs S0 ×2 and its last S1 task, at 2 S2: J1 = 2.1, J2 = 1,
/// mean 1.55 units — the paper's 1.55.
///
/// The paper's "traditional" schedule (Fig. 2b: fair shares, each job
/// greedy inside its 0.5, nothing handed across) is each job alone on half
/// the node: J1 = 2.1 (S1 ×2 + S0 ×2, then the third S1, then S2), J2 = 2
/// (one 0.29 task at a time), mean 2.05 — the paper's 2.05. Shepherd's DRF
/// is work-conserving across jobs: at 0 it gives J1 every S0 and S1 task
/// (its first asks come first while J2 cannot fit a second 0.29), so J1 =
/// 1.1 and J2 = 2, also mean 1.55 (the paper's footnote 2: packing across
/// job boundaries also reaches 1.55).
#[test]
fn fig2_worked_example() {
    let j1 = job("J1", vec![stage(&[], 2, 4, 10_000), stage(&[], 3, 21, 10_000), stage(&[0, 1], 1, 10, 1_000)]);
    let j2 = job("J2", vec![stage(&[], 2, 29, 10_000)]);
    let jobs = vec![j1.clone(), j2.clone()];
    let c = finishes(&jobs, &node(100), CARBYNE);
    assert_eq!((c["J1"], c["J2"]), (21_000, 10_000));
    assert_eq!(c.values().sum::<i64>() as f64 / 2.0, 15_500.0);
    let alone = |j: &Job| finishes(std::slice::from_ref(j), &node(50), DRF)[&j.id];
    assert_eq!((alone(&j1), alone(&j2)), (21_000, 20_000));
    let d = finishes(&jobs, &node(100), DRF);
    assert_eq!((d["J1"], d["J2"]), (11_000, 20_000));
}

/// Two jobs, equal shares of a 10-slot node (1 GB + 1 vcore per task):
/// J1 = S0 (1 task, 40 s), S1 (8 tasks, 10 s), S2 after both (1 task,
/// 10 s) — a barrier behind a long pole; J2 = 9 tasks of 10 s.
///
/// DRF + greedy intra-job (the `drf` policy): DRF alternates containers
/// between the two equal-share jobs: at 0 J1 gets S0 and 4 S1 tasks, J2 5
/// tasks; at 10 the other 4 each; J2 ends at 20, J1's S1 at 20 but S2 waits
/// for S0 (40) and ends at 50. Mean (50 + 20) / 2 = 35 s.
///
/// Carbyne: both shares are 5. J1's T_1 = 40 + 10 = 50 under 5 slots;
/// reverse packing: S2 at [40, 50], S0 at [0, 40], S1 in two waves of 4
/// ending by 40 (latest starts 20 and 30): only S0 must start now, J1
/// yields 4 slots. J2 (T_2 = 20: waves of 5 and 4) must start 4 now and
/// yields 1. Leftover = 5 slots, SRTF: J2 (90 s of work left) before J1
/// (8 × 10 + 40 + 10 = 130 s): J2 runs all 9 at once and ends at 10. Then
/// J1 is alone; its S1 tasks still may wait (latest start 20) and get the
/// leftover at 10; S0 ends at 40, S2 at 50. J1 = 50 (not delayed), J2 = 10
/// (2× faster), mean 30 s.
#[test]
fn altruism_lowers_mean_jct_without_delaying_either_job() {
    let j1 = job("J1", vec![stage(&[], 1, 1, 40_000), stage(&[], 8, 1, 10_000), stage(&[0, 1], 1, 1, 10_000)]);
    let j2 = job("J2", vec![stage(&[], 9, 1, 10_000)]);
    let jobs = vec![j1, j2];
    let d = finishes(&jobs, &node(10), DRF);
    assert_eq!((d["J1"], d["J2"]), (50_000, 20_000));
    let c = finishes(&jobs, &node(10), CARBYNE);
    assert_eq!((c["J1"], c["J2"]), (50_000, 10_000));
    let mean = |m: &BTreeMap<String, i64>| m.values().sum::<i64>() as f64 / m.len() as f64;
    assert_eq!((mean(&d), mean(&c)), (35_000.0, 30_000.0));
}

fn times_of(exp: &shepherd::sim::experiment::Experiment, policy: &str) -> Vec<(String, i64, i64)> {
    exp.run(policy).unwrap().jobs.into_iter().map(|j| (j.id, j.first_start_ms, j.finish_ms)).collect()
}

/// P(Altruism) = 0 reduces Carbyne to DRF (§3.4): the same decisions, so
/// every job starts and ends when it does under `drf`, on a generated
/// TPC-DS-like DAG mix and on a HiBench-like MapReduce mix.
#[test]
fn p_altruism_zero_is_exactly_drf() {
    use shepherd::sim::experiment::{Experiment, Source};
    use shepherd::workload::gen::GenParams;
    for (kind, seed, jobs, nodes) in [("tpcds", 5, 25, Some(20)), ("hibench", 3, 20, None), ("tpcds", 9, 40, Some(10))] {
        let source = Source::Generate(kind.into(), GenParams { seed, jobs: Some(jobs), nodes, ..Default::default() });
        let config = Config::parse("[carbyne]\np_altruism = 0.0\n").unwrap();
        let exp = Experiment::new(&source, config, None, SimOptions::default()).unwrap();
        // Decisions: when each job started and ended (Carbyne's estimator
        // also reports size estimates; DRF makes none).
        let drf = times_of(&exp, "drf");
        assert_eq!(drf, times_of(&exp, "carbyne"), "{kind} seed {seed}");
        // ...while at P = 1 Carbyne does decide differently.
        let exp = Experiment { config: Config::default(), ..exp };
        assert_ne!(times_of(&exp, "carbyne"), drf, "{kind} seed {seed}");
    }
}

/// A random DAG job: 1–4 stages, each 1–6 one-slot tasks of 1–10 s, each
/// stage waiting for a random subset of the earlier ones.
fn random_dag(rng: &mut shepherd::workload::rng::Rng, id: &str) -> Job {
    let n = rng.int(1, 4) as usize;
    let stages = (0..n)
        .map(|i| {
            let after: Vec<usize> = (0..i).filter(|_| rng.chance(0.5)).collect();
            stage(&after, rng.int(1, 6) as usize, 1, rng.int(1, 10) * 1000)
        })
        .collect();
    job(id, stages)
}

const PROTECTED: &str = "[scheduler]\npolicy = \"carbyne\"\n[carbyne]\nprotect_lenders = true\n";

/// Theorem 3.1 meets YARN: containers are not preempted, so a task started
/// on leftover keeps it until it ends — and the lender may want it back
/// sooner. Node of 4 slots, both jobs' shares 2.
///
/// J1: S0 (1 task, 3 s) and S1 (1 task, 1 s), then S2 (2 tasks, 3 s) after
/// both: T_1 = 6 s; reverse packing puts S2 at [3, 6], S0 at [0, 3], S1 at
/// [2, 3]: S1 may wait 2 s, so J1 yields a slot for [0, 2). J2: 3 tasks of
/// 3 s: T_2 = 6; one must start now, two at 3 s; it yields a slot.
/// Leftover: 2 slots; SRTF: J2 (9 s of work left) before J1 (10 s).
///
/// As the paper states it (faithful default): J2 takes both slots for
/// 3 s; J1's S1, due at 2 s, finds the node full until 3 s; S2 starts at 4
/// and J1 ends at 7 s — later than T_1 = 6 (J2 ends at 3). With
/// `protect_lenders` a loan must end before any plan needs the capacity:
/// J2's first leftover task fits beside the plans until 3 s (usage 2 then
/// 3 of 4 before it), its second would make 5 at [2, 3) and waits; J1's S1
/// takes that slot for [0, 1). At 1 s J2's third task fits until 4 s (J1's
/// S2 needs 2 of the 4 slots from 3 s). J1 ends at T_1 = 6 s, J2 at 4 s.
#[test]
fn a_leftover_loan_must_end_before_the_lender_needs_it() {
    let j1 = job("J1", vec![stage(&[], 1, 1, 3_000), stage(&[], 1, 1, 1_000), stage(&[0, 1], 2, 1, 3_000)]);
    let j2 = job("J2", vec![stage(&[], 3, 1, 3_000)]);
    let jobs = vec![j1, j2];
    let faithful = finishes(&jobs, &node(4), CARBYNE);
    assert_eq!((faithful["J1"], faithful["J2"]), (7_000, 3_000));
    let protected = finishes(&jobs, &node(4), PROTECTED);
    assert_eq!((protected["J1"], protected["J2"]), (6_000, 4_000));
}

/// Theorem 3.1: in the offline case (all jobs submitted together)
/// altruism does not inflate any job's completion time T_k — its
/// completion under the inter-job schedule alone (its DRF share, its
/// tasks packed greedily, Pseudocode 1 line 17). Over random DAGs
/// submitted together, with `protect_lenders`, every job ends by the T_k
/// Carbyne computed for it at arrival.
///
/// Why the property is asserted for `protect_lenders` and not for the
/// default: the theorem's proof needs each job's allocation to stay A_k
/// until T_k. YARN does not preempt, so with the paper's mechanism as
/// stated (the default) a task started on leftover keeps its container
/// past the moment its lender's plan needs it back (test above), and a
/// job's DRF share can drop between its stages while it asks for nothing;
/// a few percent of the jobs then end a few seconds after T_k. The switch
/// restores the premise — loans must end before any plan needs the
/// capacity, hinted future stages count as demand, a plan stands while
/// followed, no early starts (see `docs/policies/carbyne.md`) — so every job must
/// meet its T_k. The default is also run, and must have late jobs: the
/// workloads do exercise what the switch prevents, so the first assertion
/// is not vacuous.
#[test]
fn theorem_3_1_offline_altruism_never_delays_a_job() {
    let late = late_jobs(PROTECTED, 31, 300);
    assert!(late.is_empty(), "{} late with protect_lenders:\n{}", late.len(), late.join("\n"));
    let late = late_jobs(CARBYNE, 31, 300);
    assert!(!late.is_empty() && late.len() < 60, "the faithful version: {} late of ~900", late.len());
}

/// Each job's T_k when all are submitted at 0 (Pseudocode 1 line 17: its
/// completion under its DRF share, its tasks packed greedily): the
/// engine's plan at its first pass, read from the state view. The jobs
/// arrive as the simulator's AMs send them (without the cluster model: no
/// AM container): one key per stage (`stage_key`), the DAG hint, the root
/// stages asked.
fn t_k_at_arrival(jobs: &[Job], cluster: &ClusterSpec, config: &str) -> BTreeMap<String, f64> {
    use shepherd::model::{Ask, ExecutionType};
    use shepherd::policy::carbyne::hint::{format, HintStage};
    use shepherd::{Engine, Event};
    let mut e = Engine::with_config(Config::parse(config).unwrap()).unwrap();
    e.apply(Event::NodeAdded {
        node: 0,
        host: "n0".into(),
        rack: "/r".into(),
        capacity: cluster.capacity(),
        labels: vec![],
        attributes: vec![],
    });
    for (i, j) in jobs.iter().enumerate() {
        let hint: Vec<HintStage> = j
            .stages
            .iter()
            .enumerate()
            .map(|(s, st)| HintStage {
                priority: shepherd::sim::run::stage_key(s).priority,
                tasks: st.tasks.len() as i64,
                task_ms: Some(st.tasks[0].duration_ms as f64),
                parents: st.after.clone(),
                demand: Some(st.demand()),
            })
            .collect();
        let app = i as u32;
        e.apply(Event::AppAdded {
            app,
            yarn_id: j.id.clone(),
            queue: "default".into(),
            user: j.user.clone(),
            name: j.name.clone(),
            app_type: "SIMULATED".into(),
            tags: vec![format(&hint)],
            submit_ms: 0,
            priority: 0,
        });
        e.apply(Event::AttemptAdded { app, attempt: 1 });
        for (s, st) in j.stages.iter().enumerate().filter(|(_, st)| st.after.is_empty()) {
            let key = shepherd::sim::run::stage_key(s);
            let ask = Ask {
                key,
                capability: st.demand(),
                count: st.tasks.len() as i32,
                relax_locality: true,
                execution: ExecutionType::Guaranteed,
                locations: vec![],
                label: String::new(),
                placement: None,
            };
            e.apply(Event::AskUpdated { app, ask });
        }
    }
    e.schedule_node(0, 0, &mut Vec::new()).unwrap();
    e.state_json()["apps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| (a["yarn_id"].as_str().unwrap().to_string(), a["pipeline"]["classify.carbyne"]["t_k_ms"].as_f64().unwrap()))
        .collect()
}

/// Random offline workloads: 2–4 jobs of random DAGs sharing one node of
/// 2–5 slots per job. Returns the jobs that finished later than their T_k.
fn late_jobs(config: &str, seed: u64, cases: usize) -> Vec<String> {
    let mut rng = shepherd::workload::rng::Rng::seeded(seed);
    let mut late = Vec::new();
    for case in 0..cases {
        let n = rng.int(2, 4) as usize;
        let share = rng.int(2, 5);
        let jobs: Vec<Job> = (0..n).map(|j| random_dag(&mut rng, &format!("c{case}j{j}"))).collect();
        let cluster = node(share * n as i64);
        let t_k = t_k_at_arrival(&jobs, &cluster, config);
        let done = finishes(&jobs, &cluster, config);
        for j in &jobs {
            if done[&j.id] as f64 > t_k[&j.id] + 1e-6 {
                late.push(format!("{} ends at {} ms, T_k {} ms", j.id, done[&j.id], t_k[&j.id]));
            }
        }
    }
    late
}
