//! The thread pools and the parallel map over an index range that bulk simulation, the
//! searches and the vectorised environments share. Results come back in index order, so
//! nothing computed here depends on the thread count.

use std::fmt;
use std::sync::{Arc, Mutex};

use rayon::prelude::*;

/// Why a parallel call could not run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ParallelError {
    /// The index range `start .. start + count` runs past index 2^64 − 1.
    PastLastIndex { start: u64, count: u64 },
    /// A pool of `threads` threads could not be started.
    Threads { threads: usize, message: String },
}

impl fmt::Display for ParallelError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParallelError::PastLastIndex { start, count } => {
                write!(f, "the index range {start} + {count} runs past the last index 2**64 - 1")
            }
            ParallelError::Threads { threads, message } => write!(f, "cannot start {threads} threads: {message}"),
        }
    }
}

impl std::error::Error for ParallelError {}

/// The pool of `threads` threads, built once per thread count and kept: a run of many small
/// chunks (the CLI's `--chunk 1`) must not pay for a new pool per chunk.
pub fn pool(threads: usize) -> Result<Arc<rayon::ThreadPool>, ParallelError> {
    static POOLS: Mutex<Vec<(usize, Arc<rayon::ThreadPool>)>> = Mutex::new(Vec::new());
    let mut pools = POOLS.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((_, p)) = pools.iter().find(|(n, _)| *n == threads) {
        return Ok(p.clone());
    }
    let p = Arc::new(
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .map_err(|e| ParallelError::Threads { threads, message: e.to_string() })?,
    );
    if pools.len() >= 4 {
        pools.remove(0);
    }
    pools.push((threads, p.clone()));
    Ok(p)
}

/// `f(i)` for every index of `start .. start + count`, in index order: on this thread when
/// `threads` is 1 or there is one index, else on a pool of `threads` threads (0: all cores,
/// rayon's global pool). A range that runs past index 2^64 − 1 is refused.
pub fn over_range<T: Send>(start: u64, count: u64, threads: usize, f: impl Fn(u64) -> T + Sync + Send) -> Result<Vec<T>, ParallelError> {
    if count == 0 {
        return Ok(Vec::new());
    }
    // inclusive, so that a range may end at the very last index
    let last = start.checked_add(count - 1).ok_or(ParallelError::PastLastIndex { start, count })?;
    if threads == 1 || count == 1 {
        return Ok((start..=last).map(f).collect());
    }
    if threads == 0 {
        return Ok((start..=last).into_par_iter().map(f).collect());
    }
    Ok(pool(threads)?.install(|| (start..=last).into_par_iter().map(f).collect()))
}

/// `f(job)` for every job, results in the jobs' order, on `threads` threads (0: all cores) that
/// take the next job left in turn: this thread and the kept pool of `threads - 1` helpers. A
/// search's few long jobs (ISMCTS's trees, PIMC's worlds) start at once on this thread, which
/// then works instead of waking the pool and waiting for it; only the helpers are woken.
pub fn take_turns<J: Send, T: Send>(jobs: Vec<J>, threads: usize, f: impl Fn(J) -> T + Sync) -> Result<Vec<T>, ParallelError> {
    let threads = if threads == 0 { rayon::current_num_threads() } else { threads };
    let n = jobs.len();
    if threads == 1 || n <= 1 {
        return Ok(jobs.into_iter().map(f).collect());
    }
    // a pool of the helpers alone: no idle thread of it spins beside them
    let helpers = pool(threads - 1)?;
    let left = Mutex::new(jobs.into_iter().enumerate());
    let done: Mutex<Vec<Option<T>>> = Mutex::new((0..n).map(|_| None).collect());
    let work = || loop {
        let Some((i, job)) = left.lock().unwrap_or_else(|e| e.into_inner()).next() else { break };
        let out = f(job);
        done.lock().unwrap_or_else(|e| e.into_inner())[i] = Some(out);
    };
    helpers.in_place_scope(|s| {
        for _ in 1..threads.min(n) {
            s.spawn(|_| work());
        }
        work();
    });
    Ok(done.into_inner().unwrap_or_else(|e| e.into_inner()).into_iter().map(|t| t.expect("every job taken")).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_reach_the_last_index_and_no_further() {
        for threads in [0, 1, 2] {
            assert_eq!(over_range(u64::MAX - 2, 3, threads, |i| i).unwrap(), vec![u64::MAX - 2, u64::MAX - 1, u64::MAX]);
            assert_eq!(over_range(u64::MAX - 2, 4, threads, |i| i), Err(ParallelError::PastLastIndex { start: u64::MAX - 2, count: 4 }));
            assert!(over_range(u64::MAX, 0, threads, |i| i).unwrap().is_empty());
        }
    }

    #[test]
    fn pools_are_kept_and_results_come_in_index_order() {
        let one = over_range(10, 100, 1, |i| i * i).unwrap();
        for threads in [0, 2, 3, 2] {
            assert_eq!(over_range(10, 100, threads, |i| i * i).unwrap(), one);
        }
        assert!(Arc::ptr_eq(&pool(3).unwrap(), &pool(3).unwrap()));
    }

    #[test]
    fn turns_taken_give_results_in_the_jobs_order() {
        let jobs: Vec<u64> = (0..50).collect();
        let one = take_turns(jobs.clone(), 1, |j| j * j + 1).unwrap();
        assert_eq!(one, jobs.iter().map(|j| j * j + 1).collect::<Vec<_>>());
        for threads in [0, 2, 3, 2] {
            assert_eq!(take_turns(jobs.clone(), threads, |j| j * j + 1).unwrap(), one);
            // uneven jobs: later ones finish first
            let slow = |j: u64| {
                std::thread::sleep(std::time::Duration::from_micros(200 * (5 - j % 5)));
                j
            };
            assert_eq!(take_turns(jobs[..10].to_vec(), threads, slow).unwrap(), jobs[..10].to_vec());
        }
        assert!(take_turns(Vec::<u8>::new(), 2, |j| j).unwrap().is_empty());
    }
}
