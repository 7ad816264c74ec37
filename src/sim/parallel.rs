//! Independent simulations run side by side.
//!
//! Every run of a comparison is deterministic and shares nothing with the
//! others, so `compare` (and `compare --seeds`, whose runs span every seed)
//! hands them to a few worker threads, each taking the next run as soon as
//! it has finished one. Pairing the runs instead (two at a time, the next
//! pair once both ended) kept a core idle while the slower of the two
//! finished: on the TPC-DS-like mix a Carbyne run costs about twelve DRF
//! runs. Results come back in the order of the inputs whatever order the
//! runs end in, so the output does not depend on the number of workers.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;

/// How many runs go at once when the caller does not say: the host's
/// cores (one run keeps one core busy).
pub fn default_workers() -> usize {
    std::thread::available_parallelism().map_or(2, |n| n.get())
}

/// `run(item)` for every item on up to `workers` threads; result `i` is
/// item `i`'s. A run that panics gives `Err` naming its item's index and
/// the others go on. `finished(i, result)` is called on the calling thread
/// as each run ends (in the order they end), for progress lines.
pub fn run_all<I: Sync, T: Send>(
    items: &[I],
    workers: usize,
    run: impl Fn(&I) -> T + Sync,
    mut finished: impl FnMut(usize, &Result<T, String>),
) -> Vec<Result<T, String>> {
    let next = AtomicUsize::new(0);
    let mut out: Vec<Option<Result<T, String>>> = (0..items.len()).map(|_| None).collect();
    std::thread::scope(|scope| {
        let (tx, rx) = mpsc::channel::<(usize, Result<T, String>)>();
        for _ in 0..workers.clamp(1, items.len().max(1)) {
            let (tx, next, run) = (tx.clone(), &next, &run);
            scope.spawn(move || loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(item) = items.get(i) else { break };
                let result = catch_unwind(AssertUnwindSafe(|| run(item))).map_err(|_| format!("run {i} panicked"));
                if tx.send((i, result)).is_err() {
                    break;
                }
            });
        }
        drop(tx);
        // Every item sends exactly one result, so this ends when all have.
        for (i, result) in rx {
            finished(i, &result);
            out[i] = Some(result);
        }
    });
    out.into_iter().map(|r| r.expect("every item sent its result")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;

    #[test]
    fn results_follow_the_inputs_whatever_order_the_runs_end_in() {
        // Earlier items take longer, so they end after later ones.
        let items: Vec<u64> = (0..12).collect();
        let ended = Mutex::new(Vec::new());
        let out = run_all(
            &items,
            3,
            |i| {
                std::thread::sleep(std::time::Duration::from_millis(2 * (12 - i)));
                i * 10
            },
            |i, _| ended.lock().unwrap().push(i),
        );
        assert_eq!(out.into_iter().map(Result::unwrap).collect::<Vec<_>>(), (0..12).map(|i| i * 10).collect::<Vec<_>>());
        let mut ended = ended.into_inner().unwrap();
        assert_eq!(ended.len(), 12, "every run reported once");
        ended.sort();
        assert_eq!(ended, (0..12).collect::<Vec<_>>());
    }

    #[test]
    fn a_panicking_run_is_an_error_and_the_others_finish() {
        let items: Vec<u32> = (0..6).collect();
        let out = run_all(
            &items,
            2,
            |i| {
                if *i == 2 {
                    panic!("boom");
                }
                *i
            },
            |_, _| {},
        );
        assert_eq!(out[2], Err("run 2 panicked".to_string()));
        for i in [0, 1, 3, 4, 5] {
            assert_eq!(out[i], Ok(i as u32));
        }
    }

    #[test]
    fn more_workers_than_items_and_no_items() {
        assert_eq!(run_all(&[7u8], 8, |x| *x + 1, |_, _| {}), vec![Ok(8)]);
        assert!(run_all(&[] as &[u8], 4, |x| *x, |_, _| {}).is_empty());
    }
}
