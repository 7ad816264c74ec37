//! Megha's optimistic, partitioned allocation under real concurrency: many
//! proposer threads place tasks from stale views; partition authorities
//! validate. No node is ever allocated past its capacity (no resource is
//! given twice), every rejected proposal is retried until the task is
//! placed, and conflicts do happen (the views really are stale).

use shepherd::megha::{Authority, Proposer};
use shepherd::model::Resources;
use std::sync::{Arc, Barrier};

const PARTITIONS: usize = 8;
const NODES_PER_PARTITION: usize = 16;
const SLOTS_PER_NODE: i64 = 8;
const THREADS: usize = 8;

fn cluster() -> Arc<Vec<Authority>> {
    Arc::new(
        (0..PARTITIONS).map(|_| Authority::new(vec![Resources::new(SLOTS_PER_NODE * 1024, SLOTS_PER_NODE); NODES_PER_PARTITION])).collect(),
    )
}

#[test]
fn many_proposers_never_double_allocate_and_retry_every_rejection() {
    let auth = cluster();
    let total_slots = PARTITIONS * NODES_PER_PARTITION * SLOTS_PER_NODE as usize;
    let per_thread = total_slots / THREADS;
    let task = Resources::new(1024, 1);
    // Every proposer's view is taken before any of them starts: all of
    // them believe the whole cluster is free.
    let proposers: Vec<Proposer> = (0..THREADS).map(|t| Proposer::new(&auth, t % 2)).collect();
    let barrier = Arc::new(Barrier::new(THREADS));
    let handles: Vec<_> = proposers
        .into_iter()
        .map(|mut p| {
            let (auth, barrier) = (auth.clone(), barrier.clone());
            std::thread::spawn(move || {
                barrier.wait();
                let mut placed = Vec::new();
                for _ in 0..per_thread {
                    placed.push(p.place(&auth, task, &|_, _| true).expect("the cluster holds exactly every task"));
                }
                (placed, p.proposals, p.rejections)
            })
        })
        .collect();
    let mut per_node = vec![vec![0i64; NODES_PER_PARTITION]; PARTITIONS];
    let (mut proposals, mut rejections, mut tasks) = (0, 0, 0);
    for h in handles {
        let (placed, prop, rej) = h.join().unwrap();
        for x in &placed {
            per_node[x.partition][x.node] += 1;
        }
        tasks += placed.len();
        // Each task's proposals: all rejected but the last, which committed.
        assert_eq!(placed.iter().map(|x| x.proposals as u64).sum::<u64>(), prop);
        assert_eq!(prop, placed.len() as u64 + rej, "every rejection was retried");
        proposals += prop;
        rejections += rej;
    }
    assert_eq!(tasks, THREADS * per_thread);
    for (p, a) in auth.iter().enumerate() {
        for (n, (used, cap)) in a.usage().into_iter().enumerate() {
            assert!(used.fits_in(&cap), "partition {p} node {n} over capacity: {used:?} > {cap:?}");
            assert_eq!(used, task.times(per_node[p][n]), "partition {p} node {n}: authority and placements disagree");
            assert_eq!(per_node[p][n], SLOTS_PER_NODE, "cluster exactly full");
        }
    }
    // The proposers' views were stale from the first commit on: conflicts
    // must have happened (a later proposer always finds an earlier one's
    // nodes full), and were all resolved by retries.
    assert!(rejections > 0 && proposals == tasks as u64 + rejections, "{proposals} proposals, {rejections} rejections");
}

#[test]
fn a_full_cluster_makes_a_task_unplaceable_after_a_fresh_look() {
    let auth = cluster();
    let mut stale = Proposer::new(&auth, 0);
    let mut filler = Proposer::new(&auth, 0);
    let big = Resources::new(SLOTS_PER_NODE * 1024, SLOTS_PER_NODE);
    for _ in 0..PARTITIONS * NODES_PER_PARTITION {
        filler.place(&auth, big, &|_, _| true).unwrap();
    }
    // The stale proposer believes everything is free; it is rejected once
    // per partition it tries, refreshes, and reports the task unplaceable.
    let err = stale.place(&auth, Resources::new(1024, 1), &|_, _| true).unwrap_err();
    assert!(err.proposals >= 1);
    assert!(auth.iter().all(|a| a.usage().iter().all(|(u, c)| u == c)));
}

#[test]
fn constraints_limit_the_nodes_a_proposer_tries() {
    let auth = cluster();
    let mut p = Proposer::new(&auth, 0);
    // Only node 3 of partition 5 is allowed (a candidate bit-vector of one).
    for _ in 0..SLOTS_PER_NODE {
        let x = p.place(&auth, Resources::new(1024, 1), &|part, node| part == 5 && node == 3).unwrap();
        assert_eq!((x.partition, x.node), (5, 3));
    }
    assert!(p.place(&auth, Resources::new(1024, 1), &|part, node| part == 5 && node == 3).is_err());
}
