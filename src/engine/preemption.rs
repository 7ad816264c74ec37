//! Queue-guarantee preemption: a queue below its guaranteed share, with
//! demand waiting, takes capacity back from queues above theirs.
//!
//! Why: the pass never takes back what it gave. A queue that borrowed idle
//! capacity with long-running containers (Spark executors, long reduces)
//! could otherwise hold another queue's guarantee indefinitely. YARN's
//! CapacityScheduler restores guarantees with its preemption monitor
//! (`ProportionalCapacityPreemptionPolicy`) and the FairScheduler with
//! fair-share preemption; this is the same contract for Shepherd's queues,
//! in YARN's two steps:
//!
//! 1. **mark**: the container's AM is told in its allocate responses
//!    (`Decision::MarkForPreemption`, YARN's `PreemptionMessage`) and may
//!    give it back itself;
//! 2. **kill**: a container still selected `wait_before_kill_ms` after its
//!    first mark is killed (`Decision::Preempt`; its AM sees it exit as
//!    PREEMPTED and re-runs its work).
//!
//! Every `interval_ms` a round recomputes the selection from scratch (as the
//! CapacityScheduler's monitor does): a container no longer needed (the
//! starved queue's demand went away, or free capacity covers it) loses its
//! mark and is never killed.
//!
//! The selection, per round:
//! - **need**: for each queue with `preemption = true` below its guarantee,
//!   its pending demand up to its guarantee; minus the cluster's free
//!   capacity and what kills already sent will free;
//! - **victims**: queues whose dominant share is above guarantee × (1 +
//!   `dead_zone`), the most over-share first (share ÷ guarantee);
//! - **containers** of a victim, in order: ROSE's speculative containers,
//!   then ordinary containers newest first, ApplicationMasters last (those
//!   marked in an earlier round go first in each class, so a selection is
//!   stable and its wait runs out); one is taken only while it helps the
//!   need, keeps its queue at or above its guarantee and the round's cap
//!   (`max_per_round` of the cluster) has room left;
//! - with `spare_finishing`, a container whose learned duration (the mean of
//!   its app's finished containers at the same priority) says it ends within
//!   the wait anyway is left alone and its room counted as coming: killing it
//!   loses its work and frees its room no sooner.

use crate::config::Config;
use crate::event::Decision;
use crate::model::{AppId, ClusterState, Container, ContainerId, QueueId, Resources, SchedulerKey};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// A container marked in an earlier round.
#[derive(Debug, Clone, Copy)]
struct Mark {
    first_ms: i64,
    for_queue: QueueId,
}

/// The preemption monitor's state: marks, kills in flight, learned task
/// durations and what it did.
#[derive(Debug, Default)]
pub(super) struct Preemption {
    next_round_ms: i64,
    marked: BTreeMap<ContainerId, Mark>,
    /// Kills sent; the container's `ContainerFinished` has not arrived yet.
    killed: BTreeSet<ContainerId>,
    /// Containers left alone at least once as ending within the wait.
    spared: BTreeSet<ContainerId>,
    /// Per (app, priority): finished containers and their mean duration, ms.
    durations: HashMap<(AppId, SchedulerKey), (u32, f64)>,
    stats: PreemptionStats,
    /// The last round's view of each queue.
    last: Vec<QueueReport>,
}

/// What the monitor did, since the engine started.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct PreemptionStats {
    pub rounds: u64,
    /// Containers marked for the first time.
    pub marked: u64,
    /// Containers killed after their wait.
    pub killed: u64,
    /// Marks dropped because the container was no longer needed.
    pub withdrawn: u64,
    /// Containers left alone as ending within the wait (`spare_finishing`).
    pub spared: u64,
}

/// One queue as the last round saw it (the state view's "why").
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct QueueReport {
    pub queue: String,
    /// `preemption = true`: it may take its guarantee back.
    pub reclaims: bool,
    pub guaranteed_share: f64,
    pub dominant_share: f64,
    /// Starved: below its guarantee with demand waiting; what it lacks.
    pub starved_for: Vec<i64>,
    /// Over its guarantee beyond the dead zone: a victim.
    pub over_share: bool,
    /// Its containers marked now (including those killed this round).
    pub marked: usize,
}

/// A marked container, for the state view.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MarkView {
    pub container: ContainerId,
    pub app: AppId,
    pub from_queue: String,
    pub for_queue: String,
    pub marked_ms: i64,
    pub kill_at_ms: i64,
}

/// The `preemption` section of the engine's state view.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PreemptionView {
    pub interval_ms: i64,
    pub wait_before_kill_ms: i64,
    pub dead_zone: f64,
    pub max_per_round: f64,
    pub spare_finishing: bool,
    pub stats: PreemptionStats,
    pub queues: Vec<QueueReport>,
    pub marked: Vec<MarkView>,
    pub kills_in_flight: usize,
}

/// Is preemption on for any queue?
pub(super) fn enabled(config: &Config) -> bool {
    config.queues.iter().any(|q| q.preemption)
}

/// `share` of `cluster`, rounded down per resource type.
fn scaled(cluster: &Resources, share: f64) -> Resources {
    let mut out = *cluster;
    out.0.iter_mut().for_each(|v| *v = (*v as f64 * share).floor() as i64);
    out
}

/// Does `r` supply any resource type `need` still lacks?
fn helps(r: &Resources, need: &Resources) -> bool {
    r.0.iter().zip(need.0.iter()).any(|(have, want)| *have > 0 && *want > 0)
}

impl Preemption {
    pub(super) fn stats(&self) -> PreemptionStats {
        self.stats
    }

    /// A container finished (any reason): learn its duration, forget its mark.
    pub(super) fn container_finished(&mut self, c: &Container, at_ms: i64) {
        self.marked.remove(&c.id);
        self.killed.remove(&c.id);
        self.spared.remove(&c.id);
        if c.am || c.speculative {
            return;
        }
        let ran = (at_ms - c.launched_ms.unwrap_or(c.allocated_ms)).max(0) as f64;
        let e = self.durations.entry((c.app, c.key)).or_insert((0, 0.0));
        e.0 += 1;
        e.1 += (ran - e.1) / e.0 as f64;
    }

    pub(super) fn app_removed(&mut self, app: AppId) {
        self.durations.retain(|(a, _), _| *a != app);
    }

    /// Run a round if one is due at `now_ms`; decisions go to `out`.
    pub(super) fn maybe_round(&mut self, state: &ClusterState, config: &Config, now_ms: i64, out: &mut Vec<Decision>) -> usize {
        if now_ms < self.next_round_ms {
            return 0;
        }
        self.next_round_ms = now_ms + config.preemption.interval_ms;
        self.round(state, config, now_ms, out)
    }

    /// One round: select, then mark, re-tell, kill or withdraw. Returns the
    /// containers killed.
    fn round(&mut self, state: &ClusterState, config: &Config, now_ms: i64, out: &mut Vec<Decision>) -> usize {
        let _span = tracing::debug_span!("preemption_round", now_ms).entered();
        self.stats.rounds += 1;
        // Marks of containers that are gone (finished, node lost) go too.
        self.marked.retain(|c, _| state.containers.contains_key(c));
        self.killed.retain(|c| state.containers.contains_key(c));
        let chosen = self.select(state, config, now_ms);
        let wait = config.preemption.wait_before_kill_ms;
        let mut kills = 0;
        let mut keep = BTreeMap::new();
        for (c, for_queue) in chosen {
            match self.marked.get(&c) {
                Some(m) if now_ms - m.first_ms >= wait => {
                    out.push(Decision::Preempt { container: c });
                    self.killed.insert(c);
                    self.stats.killed += 1;
                    kills += 1;
                    tracing::info!(container = c, marked_ms = m.first_ms, "preempted for a queue's guarantee");
                }
                Some(m) => {
                    // YARN's PreemptionMessage lasts one allocate response:
                    // tell the AM again each round, as the CapacityScheduler does.
                    out.push(Decision::MarkForPreemption { container: c });
                    keep.insert(c, *m);
                }
                None => {
                    out.push(Decision::MarkForPreemption { container: c });
                    keep.insert(c, Mark { first_ms: now_ms, for_queue });
                    self.stats.marked += 1;
                }
            }
        }
        self.stats.withdrawn += self.marked.keys().filter(|c| !keep.contains_key(c) && !self.killed.contains(c)).count() as u64;
        self.marked = keep;
        kills
    }

    /// The containers to take back now, with the queue each is for, in
    /// order; fills `self.last`.
    fn select(&mut self, state: &ClusterState, config: &Config, now_ms: i64) -> Vec<(ContainerId, QueueId)> {
        let cluster = state.capacity;
        let p = &config.preemption;
        self.last.clear();
        if cluster.is_zero() {
            return Vec::new();
        }
        let share = |r: &Resources| r.dominant_share(&cluster);
        // Need: each starved queue's demand up to its guarantee.
        let mut starved: Vec<(QueueId, Resources)> = Vec::new();
        for q in &state.queues {
            let reclaims = config.queues.get(q.id).is_some_and(|c| c.preemption);
            let lacks = scaled(&cluster, q.capacity).saturating_sub(&q.allocated).min_each(&q.pending);
            let is_starved = reclaims && share(&q.allocated) < q.capacity && lacks.any_positive();
            let over = share(&q.allocated) > q.capacity * (1.0 + p.dead_zone);
            self.last.push(QueueReport {
                queue: q.name.clone(),
                reclaims,
                guaranteed_share: q.capacity,
                dominant_share: share(&q.allocated),
                starved_for: if is_starved { lacks.0[..state.resource_names.len().clamp(2, lacks.0.len())].to_vec() } else { Vec::new() },
                over_share: over,
                marked: 0,
            });
            if is_starved {
                starved.push((q.id, lacks));
            }
        }
        if starved.is_empty() {
            return Vec::new();
        }
        let mut need = starved.iter().fold(Resources::default(), |acc, (_, r)| acc + *r);
        need = need.saturating_sub(&cluster.saturating_sub(&state.allocated));
        for c in self.killed.iter().filter_map(|c| state.containers.get(c)) {
            need = need.saturating_sub(&c.resources);
        }
        if !need.any_positive() {
            return Vec::new();
        }
        // The most starved queue (lowest share ÷ guarantee) is who a mark is for.
        let for_queue = starved
            .iter()
            .map(|(q, _)| (*q, share(&state.queues[*q].allocated) / state.queues[*q].capacity.max(1e-9)))
            .min_by(|a, b| a.1.total_cmp(&b.1))
            .map(|(q, _)| q)
            .expect("starved is not empty");
        let mut victims: Vec<(QueueId, f64)> = state
            .queues
            .iter()
            .filter(|q| self.last[q.id].over_share)
            .map(|q| (q.id, if q.capacity > 0.0 { share(&q.allocated) / q.capacity } else { f64::INFINITY }))
            .collect();
        victims.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        let mut cap = scaled(&cluster, p.max_per_round);
        let mut chosen = Vec::new();
        let durations = &self.durations;
        let marked = &self.marked;
        let killed = &self.killed;
        let mut newly_spared = Vec::new();
        for (v, _) in victims {
            if !need.any_positive() {
                break;
            }
            let q = &state.queues[v];
            let floor = q.capacity;
            let mut held = q.allocated;
            let mut candidates: Vec<&Container> = state
                .apps
                .values()
                .filter(|a| a.queue == v)
                .flat_map(|a| a.containers.keys())
                .filter_map(|c| state.containers.get(c))
                .filter(|c| !killed.contains(&c.id))
                .collect();
            // Speculative, then ordinary, then AMs; within each, earlier
            // marks first, then newest first.
            candidates.sort_by_key(|c| {
                let class = if c.speculative {
                    0
                } else if c.am {
                    2
                } else {
                    1
                };
                (class, !marked.contains_key(&c.id), std::cmp::Reverse(c.allocated_ms), std::cmp::Reverse(c.id))
            });
            for c in candidates {
                if !need.any_positive() {
                    break;
                }
                // As the CapacityScheduler: a container is taken while the
                // round's cap has room left, so the last one may overshoot it
                // (else a cap below one container would take nothing).
                if !helps(&c.resources, &need) || !helps(&c.resources, &cap) {
                    continue;
                }
                if !c.speculative && share(&held.saturating_sub(&c.resources)) < floor - 1e-9 {
                    continue; // would take the queue below its own guarantee
                }
                if p.spare_finishing && !c.am && !c.speculative {
                    if let Some((_, mean)) = durations.get(&(c.app, c.key)) {
                        // Expected to end within the wait (not overdue: one
                        // past its mean may be a straggler): its room frees
                        // in time anyway, so it counts against the need.
                        let left = mean - (now_ms - c.launched_ms.unwrap_or(c.allocated_ms)) as f64;
                        if (0.0..=p.wait_before_kill_ms as f64).contains(&left) {
                            newly_spared.push(c.id);
                            need = need.saturating_sub(&c.resources);
                            continue;
                        }
                    }
                }
                need = need.saturating_sub(&c.resources);
                cap = cap.saturating_sub(&c.resources);
                if !c.speculative {
                    held = held.saturating_sub(&c.resources);
                }
                self.last[v].marked += 1;
                chosen.push((c.id, marked.get(&c.id).map_or(for_queue, |m| m.for_queue)));
            }
        }
        for c in newly_spared {
            if self.spared.insert(c) {
                self.stats.spared += 1;
            }
        }
        chosen
    }

    /// The state view's `preemption` section.
    pub(super) fn view(&self, state: &ClusterState, config: &Config) -> PreemptionView {
        let p = &config.preemption;
        let queue_name = |q: QueueId| state.queues.get(q).map_or_else(String::new, |q| q.name.clone());
        PreemptionView {
            interval_ms: p.interval_ms,
            wait_before_kill_ms: p.wait_before_kill_ms,
            dead_zone: p.dead_zone,
            max_per_round: p.max_per_round,
            spare_finishing: p.spare_finishing,
            stats: self.stats,
            queues: self.last.clone(),
            marked: self
                .marked
                .iter()
                .filter_map(|(id, m)| {
                    let c = state.containers.get(id)?;
                    Some(MarkView {
                        container: *id,
                        app: c.app,
                        from_queue: state.apps.get(&c.app).map_or_else(String::new, |a| queue_name(a.queue)),
                        for_queue: queue_name(m.for_queue),
                        marked_ms: m.first_ms,
                        kill_at_ms: m.first_ms + p.wait_before_kill_ms,
                    })
                })
                .collect(),
            kills_in_flight: self.killed.len(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::{add_app, add_node, allocs, ask};
    use super::super::Engine;
    use crate::config::Config;
    use crate::event::{Decision, Event};
    use crate::model::ContainerId;

    /// Queues `a` and `b` with guarantees `ca` and `cb`; `b` takes its
    /// guarantee back by preemption (rounds every second, 5 s wait, plus
    /// `extra` in `[preemption]`). Two 4 GiB / 4-core nodes.
    fn engine(ca: f64, cb: f64, extra: &str) -> Engine {
        let (extra, policy) = match extra.split_once("[scheduler]\n") {
            Some((p, s)) => (p.to_string(), s.to_string()),
            None => (extra.to_string(), "policy = \"drf\"".to_string()),
        };
        let text = format!(
            "[scheduler]\n{policy}\nqueue_order = \"drf\"\n[preemption]\ninterval_ms = 1000\nwait_before_kill_ms = 5000\n{extra}\n\
             [[queue]]\nname = \"a\"\ncapacity = {ca}\n\
             [[queue]]\nname = \"b\"\ncapacity = {cb}\npreemption = true\n"
        );
        let mut e = Engine::with_config(Config::parse(&text).unwrap()).unwrap();
        add_node(&mut e, 1, 4096, 4);
        add_node(&mut e, 2, 4096, 4);
        e
    }

    /// Queue a's app 1 fills the cluster with 1 GiB containers: its AM
    /// (container 1) at t = 0, tasks 2–4 at t = 10 on node 1, 5–8 at t = 40
    /// on node 2.
    fn fill_with_a(e: &mut Engine) {
        add_app(e, 1, "a", "alice", 0);
        ask(e, 1, 0, 1024, 1, 1);
        let mut out = vec![];
        e.schedule_node(1, 0, &mut out).unwrap();
        ask(e, 1, 1, 1024, 1, 7);
        e.schedule_node(1, 10, &mut out).unwrap();
        e.schedule_node(2, 40, &mut out).unwrap();
        assert_eq!(e.state().queues[0].allocated.memory_mb(), 8192, "queue a holds the cluster");
    }

    fn marks(out: &[Decision]) -> Vec<ContainerId> {
        out.iter().filter_map(|d| if let Decision::MarkForPreemption { container } = d { Some(*container) } else { None }).collect()
    }

    fn kills(out: &[Decision]) -> Vec<ContainerId> {
        out.iter().filter_map(|d| if let Decision::Preempt { container } = d { Some(*container) } else { None }).collect()
    }

    fn round_at(e: &mut Engine, node: u32, t: i64) -> Vec<Decision> {
        let mut out = vec![];
        e.schedule_node(node, t, &mut out).unwrap();
        out
    }

    #[test]
    fn nothing_is_preempted_without_contention() {
        let mut e = engine(0.5, 0.5, "");
        fill_with_a(&mut e);
        // b has no app: a keeps what it borrowed, round after round; nor
        // does an app of b that asks for nothing change that.
        let mut out = vec![];
        for t in [1_000, 2_000, 10_000, 60_000] {
            out.extend(round_at(&mut e, 1, t));
        }
        add_app(&mut e, 2, "b", "bob", 61_000);
        out.extend(round_at(&mut e, 1, 62_000));
        assert!(marks(&out).is_empty() && kills(&out).is_empty(), "{out:?}");
        assert_eq!(e.preemption.stats().rounds, 6, "rounds at 0, 1, 2, 10, 60 and 62 s");
    }

    #[test]
    fn a_starved_queue_marks_newest_first_then_kills_after_the_wait() {
        let mut e = engine(0.5, 0.5, "max_per_round = 1.0");
        fill_with_a(&mut e);
        add_app(&mut e, 2, "b", "bob", 100);
        ask(&mut e, 2, 1, 1024, 1, 2);
        // b lacks 2 GiB: the two newest of a's containers are marked.
        let out = round_at(&mut e, 1, 1_000);
        assert_eq!((marks(&out), kills(&out)), (vec![8, 7], vec![]));
        // Told again each round (a PreemptionMessage lasts one response)...
        assert_eq!(marks(&round_at(&mut e, 1, 3_000)), vec![8, 7]);
        // ...and killed once the 5 s wait from the first mark ran out.
        assert_eq!(kills(&round_at(&mut e, 1, 6_000)), vec![8, 7]);
        assert_eq!(e.counters().preemptions, 2);
        // Kills in flight count as room coming: nothing more is taken.
        let out = round_at(&mut e, 2, 7_000);
        assert!(marks(&out).is_empty() && kills(&out).is_empty(), "{out:?}");
        // The driver carried them out; the pass gives b the room.
        for c in [8, 7] {
            e.apply(Event::ContainerFinished { container: c, exit_status: crate::model::exit::PREEMPTED, at_ms: 7_100 });
        }
        assert_eq!(allocs(&round_at(&mut e, 2, 8_000)), vec![(2, 2), (2, 2)]);
        let v = e.view().preemption.unwrap();
        assert_eq!((v.stats.marked, v.stats.killed, v.stats.withdrawn), (2, 2, 0));
        assert_eq!(v.queues[1].queue, "b");
        assert!(v.queues[1].reclaims);
        assert!(e.gauges().iter().any(|g| g.name == "preemption_killed_containers_total" && g.value == 2.0));
    }

    #[test]
    fn the_round_cap_paces_the_marks() {
        // 10 % of 8 GiB is less than a container: one per round.
        let mut e = engine(0.5, 0.5, "");
        fill_with_a(&mut e);
        add_app(&mut e, 2, "b", "bob", 100);
        ask(&mut e, 2, 1, 1024, 1, 2);
        assert_eq!(marks(&round_at(&mut e, 1, 1_000)), vec![8]);
        assert_eq!(marks(&round_at(&mut e, 1, 2_000)), vec![8]);
        assert_eq!(kills(&round_at(&mut e, 1, 6_000)), vec![8]);
        // With 8 on its way out, the next round takes the next newest.
        assert_eq!(marks(&round_at(&mut e, 1, 7_000)), vec![7]);
    }

    #[test]
    fn the_victim_keeps_its_guarantee_and_its_am_goes_last() {
        // b asks for 6 GiB, but a may only be taken down to its 4 GiB.
        let mut e = engine(0.5, 0.5, "max_per_round = 1.0");
        fill_with_a(&mut e);
        add_app(&mut e, 2, "b", "bob", 100);
        ask(&mut e, 2, 1, 1024, 1, 6);
        assert_eq!(marks(&round_at(&mut e, 1, 1_000)), vec![8, 7, 6, 5]);
        // a without a guarantee and b wanting the whole cluster: every task
        // of a, newest first, and only then its ApplicationMaster.
        let mut e = engine(0.0, 1.0, "max_per_round = 1.0");
        fill_with_a(&mut e);
        add_app(&mut e, 2, "b", "bob", 100);
        ask(&mut e, 2, 1, 1024, 1, 8);
        assert_eq!(marks(&round_at(&mut e, 1, 1_000)), vec![8, 7, 6, 5, 4, 3, 2, 1]);
    }

    #[test]
    fn the_dead_zone_spares_a_queue_slightly_over_its_guarantee() {
        // a at the whole cluster is 2 × its guarantee: within a dead zone of 1.
        let mut e = engine(0.5, 0.5, "max_per_round = 1.0\ndead_zone = 1.0");
        fill_with_a(&mut e);
        add_app(&mut e, 2, "b", "bob", 100);
        ask(&mut e, 2, 1, 1024, 1, 2);
        let out = round_at(&mut e, 1, 1_000);
        assert!(marks(&out).is_empty());
        assert!(!e.view().preemption.unwrap().queues[0].over_share);
    }

    #[test]
    fn a_mark_no_longer_needed_is_withdrawn_and_never_killed() {
        let mut e = engine(0.5, 0.5, "");
        fill_with_a(&mut e);
        add_app(&mut e, 2, "b", "bob", 100);
        ask(&mut e, 2, 1, 1024, 1, 1);
        assert_eq!(marks(&round_at(&mut e, 1, 1_000)), vec![8]);
        // b withdraws its ask: no queue is starved any more.
        ask(&mut e, 2, 1, 1024, 1, 0);
        let mut out = round_at(&mut e, 1, 2_000);
        out.extend(round_at(&mut e, 1, 7_000));
        assert!(marks(&out).is_empty() && kills(&out).is_empty(), "{out:?}");
        assert_eq!(e.preemption.stats().withdrawn, 1);
    }

    #[test]
    fn speculative_containers_go_first() {
        let mut e = engine(0.5, 0.5, "");
        fill_with_a(&mut e);
        // One of a's containers is ROSE's speculative kind.
        e.state.containers.get_mut(&3).unwrap().speculative = true;
        add_app(&mut e, 2, "b", "bob", 100);
        ask(&mut e, 2, 1, 1024, 1, 1);
        assert_eq!(marks(&round_at(&mut e, 1, 1_000)), vec![3]);
    }

    /// a's task 2 finished after `ran_ms`, teaching its app's task length;
    /// b then lacks 1 GiB beyond the room 2 left, at t = 4 020.
    fn marks_after_learning(ran_ms: i64, extra: &str) -> (Vec<ContainerId>, u64) {
        let mut e = engine(0.5, 0.5, extra);
        fill_with_a(&mut e);
        e.apply(Event::ContainerFinished { container: 2, exit_status: 0, at_ms: 10 + ran_ms });
        add_app(&mut e, 2, "b", "bob", 4_000);
        ask(&mut e, 2, 1, 1024, 1, 2);
        let out = round_at(&mut e, 2, 4_020);
        (marks(&out), e.preemption.stats().spared)
    }

    #[test]
    fn a_container_that_ends_within_the_wait_is_spared() {
        // Tasks take 4 s: container 8 (3.98 s old) ends within the 5 s wait.
        assert_eq!(marks_after_learning(4_000, ""), (vec![], 1));
        // Without the switch, newest first as the CapacityScheduler does.
        assert_eq!(marks_after_learning(4_000, "spare_finishing = false"), (vec![8], 0));
        // Tasks take 1 s: container 8 is overdue (a straggler?), not spared.
        assert_eq!(marks_after_learning(1_000, ""), (vec![8], 0));
        // Tasks take 60 s: it would not end within the wait.
        assert_eq!(marks_after_learning(60_000, ""), (vec![8], 0));
    }

    /// Preemption works at the queue level, below every pipeline: with
    /// DRESS's reserve, Carbyne's leftover or the composed default ordering
    /// queue a, the starved queue b still gets a's newest task containers
    /// (never its AM), killed after the wait, and then the room.
    #[test]
    fn it_composes_with_every_pipeline() {
        for policy in ["dress", "carbyne", "composed", "slearn"] {
            let mut e = engine(0.5, 0.5, &format!("max_per_round = 1.0\n[scheduler]\npolicy = \"{policy}\""));
            fill_with_a(&mut e);
            add_app(&mut e, 2, "b", "bob", 100);
            ask(&mut e, 2, 1, 1024, 1, 2);
            let marked = marks(&round_at(&mut e, 1, 1_000));
            assert_eq!(marked, vec![8, 7], "{policy}");
            assert_eq!(kills(&round_at(&mut e, 1, 6_000)), marked, "{policy}");
            for c in &marked {
                e.apply(Event::ContainerFinished { container: *c, exit_status: crate::model::exit::PREEMPTED, at_ms: 6_100 });
            }
            assert_eq!(allocs(&round_at(&mut e, 2, 7_000)), vec![(2, 2), (2, 2)], "{policy}");
        }
    }

    #[test]
    fn off_by_default() {
        let text = "[[queue]]\nname = \"a\"\ncapacity = 0.5\n[[queue]]\nname = \"b\"\ncapacity = 0.5\n";
        let mut e = Engine::with_config(Config::parse(text).unwrap()).unwrap();
        add_node(&mut e, 1, 4096, 4);
        add_app(&mut e, 1, "a", "alice", 0);
        ask(&mut e, 1, 1, 1024, 1, 4);
        let mut out = round_at(&mut e, 1, 0);
        add_app(&mut e, 2, "b", "bob", 1);
        ask(&mut e, 2, 1, 1024, 1, 4);
        for t in [1_000, 20_000, 60_000] {
            out.extend(round_at(&mut e, 1, t));
        }
        assert!(marks(&out).is_empty() && kills(&out).is_empty());
        assert!(e.view().preemption.is_none());
        assert!(!e.gauges().iter().any(|g| g.name.starts_with("preemption_")));
    }

    #[test]
    fn bad_settings_name_their_key() {
        for (text, key) in [
            ("[preemption]\ninterval_ms = 0\n", "preemption.interval_ms"),
            ("[preemption]\nwait_before_kill_ms = -1\n", "preemption.wait_before_kill_ms"),
            ("[preemption]\ndead_zone = -0.1\n", "preemption.dead_zone"),
            ("[preemption]\nmax_per_round = 0\n", "preemption.max_per_round"),
        ] {
            assert_eq!(Config::parse(text).unwrap_err().key, key);
        }
    }
}
