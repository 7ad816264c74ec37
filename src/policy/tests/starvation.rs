//! A Spark app with dynamic allocation beside a steady stream of MapReduce
//! jobs in another queue, under each policy's queue sharing.

use super::*;

/// Node of 16 slots; queues `spark` and `mr`, half the cluster each. The
/// MapReduce stream fills the node first and never stops: every second a
/// new 16-map job arrives and the previous one's 1 s maps finish. The
/// Spark app arrives at 1 s with a wide stage: its target starts at 1
/// executor and doubles every second while the backlog lasts (Spark's
/// `schedulerBacklogTimeout` ramp) up to 16; its executors stay. Returns
/// the executors it holds after 12 s.
fn executors_beside_a_mapreduce_stream(policy: &str, queue_order: &str) -> usize {
    let mut e = engine(&format!(
        "[scheduler]\npolicy = \"{policy}\"\nqueue_order = \"{queue_order}\"\n\
         [[queue]]\nname = \"spark\"\ncapacity = 0.5\n[[queue]]\nname = \"mr\"\ncapacity = 0.5\n"
    ));
    node(&mut e, 1, 16);
    const SPARK: u32 = 1;
    let mut target = 0;
    let mut maps: Vec<u64> = vec![];
    let mut jobs: Vec<u32> = vec![];
    for round in 0..12u32 {
        let now = round as i64 * 1_000;
        for c in maps.drain(..) {
            finish(&mut e, c, now);
        }
        // A job leaves once its maps have all run.
        jobs.retain(|&j| {
            let a = &e.state().apps[&j];
            let done = !a.has_pending() && a.containers.is_empty();
            if done {
                e.apply(Event::AppRemoved { app: j });
            }
            !done
        });
        let mr = 100 + round;
        app(&mut e, mr, "mr", "MAPREDUCE", "wordcount", now);
        ask(&mut e, mr, MAPS, 16);
        jobs.push(mr);
        if round == 1 {
            app(&mut e, SPARK, "spark", "SPARK", "etl", now);
        }
        if round >= 1 {
            target = (target * 2).clamp(1, 16);
            let outstanding = target - running(&e, SPARK) as i32;
            ask(&mut e, SPARK, EXECUTORS, outstanding);
        }
        maps = pass(&mut e, 1, now).into_iter().filter(|(_, a)| *a != SPARK).map(|(c, _)| c).collect();
    }
    running(&e, SPARK)
}

/// Under every policy whose queues share by DRF (its default queue order,
/// or chosen) the Spark queue reaches its half of the cluster although the
/// MapReduce queue always asks for all of it: each finished map frees a
/// slot and the queue furthest below its share takes it. Carbyne gives it
/// more: the MapReduce jobs' tasks that may wait (ALTRUISTIC) yield to it.
/// DRESS and SLearn default to one flat order over all apps (their papers
/// have no queues): there the Spark app is not starved either but takes
/// far more than half — DRESS serves its pool in arrival order and the
/// Spark app is older than every later MapReduce job; SLearn's GS places
/// it by attained service and holds the sampled MapReduce jobs' non-pilot
/// maps back — so the MapReduce queue gets no share; `queue_order = "drf"`
/// gives both queues theirs.
#[test]
fn a_dynamic_allocation_app_is_not_starved_by_a_mapreduce_stream_in_another_queue() {
    for policy in ["composed", "rose", "drf"] {
        assert_eq!(executors_beside_a_mapreduce_stream(policy, "auto"), 8, "{policy}");
    }
    let carbyne = executors_beside_a_mapreduce_stream("carbyne", "auto");
    assert!(carbyne > 8 && carbyne < 16, "carbyne: {carbyne}");
    for policy in ["dress", "slearn"] {
        assert_eq!(executors_beside_a_mapreduce_stream(policy, "drf"), 8, "{policy} with queue_order = drf");
    }
    assert_eq!(executors_beside_a_mapreduce_stream("dress", "auto"), 16, "dress, flat: arrival order");
    assert_eq!(executors_beside_a_mapreduce_stream("slearn", "auto"), 15, "slearn, flat: all but a pilot's slot");
}
