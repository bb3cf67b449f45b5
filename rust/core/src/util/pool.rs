//! A batch pool that knows no game: rows of some `T` (an environment, a hand at the table),
//! the threads they are stepped on, and one call, [`Pool::each`], that runs a closure on every
//! selected row with that row's slots of the caller's buffers ([`Slots`]). The rows are cut
//! into contiguous parts ([`Parts::of`]) that this thread and the pool's threads take in turn;
//! each row writes only its own slots, so nothing depends on which thread took which part.

use std::fmt;
use std::ops::{Deref, DerefMut};
use std::sync::Mutex;

use rayon::prelude::*;

use crate::util::parallel::{pool, ParallelError};

/// Rows named by a caller that the pool refuses.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RowError {
    /// Row `row` of a pool of `n` rows.
    Past { row: usize, n: usize },
    /// Row `row` named twice in one call.
    Twice { row: usize },
}

impl fmt::Display for RowError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RowError::Past { row, n } => write!(f, "row {row} of {n}"),
            RowError::Twice { row } => write!(f, "row {row} is named twice"),
        }
    }
}

impl std::error::Error for RowError {}

/// A caller's buffers, cut by row: each row has its own slots in every buffer.
pub trait Slots: Sized + Send {
    /// The first `k` rows' slots, and the rest.
    fn split(self, k: usize) -> (Self, Self);
    /// Whether these are the slots of exactly `n` rows.
    fn fits(&self, n: usize) -> bool;
}

/// One buffer of `width` entries per row.
pub struct Col<'a, X> {
    pub data: &'a mut [X],
    pub width: usize,
}

impl<'a, X> Col<'a, X> {
    pub fn new(data: &'a mut [X], width: usize) -> Col<'a, X> {
        Col { data, width }
    }
}

impl<X: Send> Slots for Col<'_, X> {
    fn split(self, k: usize) -> (Self, Self) {
        let (a, b) = self.data.split_at_mut(k * self.width);
        (Col { data: a, width: self.width }, Col { data: b, width: self.width })
    }

    fn fits(&self, n: usize) -> bool {
        self.data.len() == n * self.width
    }
}

/// No buffers: the rows only change themselves.
impl Slots for () {
    fn split(self, _: usize) -> (Self, Self) {
        ((), ())
    }

    fn fits(&self, _: usize) -> bool {
        true
    }
}

macro_rules! slots_for_tuples {
    ($($name:ident $idx:tt),+) => {
        impl<$($name: Slots),+> Slots for ($($name,)+) {
            fn split(self, k: usize) -> (Self, Self) {
                $(let $name = self.$idx.split(k);)+
                (($($name.0,)+), ($($name.1,)+))
            }

            fn fits(&self, n: usize) -> bool {
                $(self.$idx.fits(n))&&+
            }
        }
    };
}

#[allow(non_snake_case)]
mod tuples {
    use super::Slots;
    slots_for_tuples!(A 0);
    slots_for_tuples!(A 0, B 1);
    slots_for_tuples!(A 0, B 1, C 2);
    slots_for_tuples!(A 0, B 1, C 2, D 3);
    slots_for_tuples!(A 0, B 1, C 2, D 3, E 4);
    slots_for_tuples!(A 0, B 1, C 2, D 3, E 4, F 5);
}

/// How the rows are cut for the threads.
pub struct Parts;

impl Parts {
    /// Fewest rows worth a part of their own: below this, waking a thread costs more than the
    /// rows it would take over.
    pub const MIN: usize = 32;
    /// Parts per thread: a few, so that a thread the machine holds back is made up for by the
    /// others taking more parts.
    pub const PER_THREAD: usize = 4;

    /// Rows per part for `n` rows on `threads` threads (contiguous parts, so each thread
    /// writes its own stretches of every buffer), or all `n` on the calling thread.
    pub fn of(n: usize, threads: usize) -> usize {
        if threads <= 1 || n < 2 * Self::MIN {
            return n;
        }
        n.div_ceil(threads * Self::PER_THREAD).max(Self::MIN)
    }
}

/// Rows and their threads (0: rayon's global pool, all cores). Reads as a slice of its rows.
#[derive(Clone, Debug)]
pub struct Pool<T> {
    rows: Vec<T>,
    threads: usize,
}

impl<T> Deref for Pool<T> {
    type Target = [T];
    fn deref(&self) -> &[T] {
        &self.rows
    }
}

impl<T> DerefMut for Pool<T> {
    fn deref_mut(&mut self) -> &mut [T] {
        &mut self.rows
    }
}

impl<'a, T> IntoIterator for &'a Pool<T> {
    type Item = &'a T;
    type IntoIter = std::slice::Iter<'a, T>;
    fn into_iter(self) -> Self::IntoIter {
        self.rows.iter()
    }
}

impl<T: Send> Pool<T> {
    /// `n` rows, row `i` made by `make(i)` on the pool's threads.
    pub fn build(n: usize, threads: usize, make: impl Fn(usize) -> T + Sync + Send) -> Result<Pool<T>, ParallelError> {
        let rows = if threads == 0 {
            (0..n).into_par_iter().map(make).collect()
        } else {
            pool(threads)?.install(|| (0..n).into_par_iter().map(make).collect())
        };
        Ok(Pool { rows, threads })
    }

    /// The threads setting (0: rayon's global pool).
    pub fn threads(&self) -> usize {
        self.threads
    }

    /// Which rows `rows` names, as one flag per row: each must be a row of the pool, and named
    /// once.
    pub fn pick(&self, rows: &[usize]) -> Result<Vec<bool>, RowError> {
        let n = self.rows.len();
        let mut picked = vec![false; n];
        for &row in rows {
            if row >= n {
                return Err(RowError::Past { row, n });
            }
            if std::mem::replace(&mut picked[row], true) {
                return Err(RowError::Twice { row });
            }
        }
        Ok(picked)
    }

    /// `f(row, op, its slots)` for every row whose op is `Some` (one op per row; `slots` must
    /// fit every row of the pool, see [`Slots::fits`]). The rows are cut into [`Parts::of`]
    /// contiguous parts, taken in turn by this thread and the pool's (all on this thread when
    /// there is one part: one thread, or few rows). If the pool's threads cannot be started,
    /// nothing is touched.
    pub fn each<O: Copy + Sync, S: Slots>(&mut self, ops: &[Option<O>], slots: S, f: impl Fn(&mut T, O, S) + Sync) -> Result<(), ParallelError> {
        let n = self.rows.len();
        assert!(ops.len() == n && slots.fits(n), "one op and one row of slots per row");
        let threads = if self.threads == 0 { rayon::current_num_threads() } else { self.threads };
        let per = Parts::of(n, threads);
        // the pool first: if it cannot be started, nothing has been touched
        let threads_pool = if per < n && self.threads > 0 { Some(pool(self.threads)?) } else { None };
        let run = |rows: &mut [T], first: usize, mut s: S| {
            for (j, r) in rows.iter_mut().enumerate() {
                let (mine, rest) = s.split(1);
                s = rest;
                if let Some(op) = ops[first + j] {
                    f(r, op, mine);
                }
            }
        };
        if per >= n {
            run(&mut self.rows, 0, slots);
            return Ok(());
        }
        let mut parts: Vec<(usize, &mut [T], S)> = Vec::new();
        let mut rest = slots;
        for (i, rows) in self.rows.chunks_mut(per).enumerate() {
            let (s, r) = rest.split(rows.len());
            rest = r;
            parts.push((i * per, rows, s));
        }
        let helpers = (threads - 1).min(parts.len() - 1);
        let queue = Mutex::new(parts);
        let part = |(first, rows, s): (usize, &mut [T], S)| run(rows, first, s);
        match threads_pool {
            Some(p) => p.in_place_scope(|sc| spread(sc, helpers, &queue, &part)),
            None => rayon::in_place_scope(|sc| spread(sc, helpers, &queue, &part)), // rayon's global pool
        }
        Ok(())
    }
}

/// `run` on every part of `queue`, taken one at a time by this thread and by `helpers`
/// tasks spawned on the scope's pool (this thread then waits for them).
fn spread<'s, P: Send + 's>(s: &rayon::Scope<'s>, helpers: usize, queue: &'s Mutex<Vec<P>>, run: &'s (impl Fn(P) + Sync)) {
    let take = move || queue.lock().unwrap_or_else(|e| e.into_inner()).pop();
    for _ in 0..helpers {
        s.spawn(move |_| {
            while let Some(p) = take() {
                run(p);
            }
        });
    }
    while let Some(p) = take() {
        run(p);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parts_cut_few_rows_not_at_all() {
        assert_eq!(Parts::of(1000, 1), 1000);
        assert_eq!(Parts::of(63, 8), 63);
        assert_eq!(Parts::of(64, 2), 32);
        assert_eq!(Parts::of(1024, 2), 128);
    }

    #[test]
    fn picked_rows_are_distinct_rows_of_the_pool() {
        let p = Pool::build(3, 1, |i| i).unwrap();
        assert_eq!(p.pick(&[2, 0]).unwrap(), vec![true, false, true]);
        assert_eq!(p.pick(&[0, 3]).unwrap_err().to_string(), "row 3 of 3");
        assert_eq!(p.pick(&[1, 1]).unwrap_err().to_string(), "row 1 is named twice");
    }

    /// Every selected row gets its own slots of every buffer, whatever the threads; the rows
    /// not selected and their slots are untouched.
    #[test]
    fn each_row_writes_its_own_slots_only() {
        let n = 300;
        let mut want: Option<(Vec<u64>, Vec<u32>, Vec<bool>)> = None;
        for threads in [1, 0, 2, 3] {
            let mut p = Pool::build(n, threads, |i| i as u64).unwrap();
            assert_eq!(p.threads(), threads);
            let ops: Vec<Option<u64>> = (0..n).map(|i| (i % 3 != 1).then_some(i as u64 * 10)).collect();
            let (mut a, mut b) = (vec![7u32; n * 3], vec![false; n]);
            p.each(&ops, (Col::new(&mut a, 3), Col::new(&mut b, 1)), |r, op, (a, b)| {
                *r += op;
                a.data.fill(*r as u32);
                b.data[0] = true;
            })
            .unwrap();
            for i in 0..n {
                let picked = i % 3 != 1;
                assert_eq!(p[i], if picked { i as u64 * 11 } else { i as u64 });
                assert_eq!(a[i * 3..][..3], [if picked { i as u32 * 11 } else { 7 }; 3]);
                assert_eq!(b[i], picked);
            }
            let got = (p.to_vec(), a, b);
            assert_eq!(want.get_or_insert_with(|| got.clone()), &got, "threads {threads}");
        }
    }

    #[test]
    fn rows_without_buffers() {
        let mut p = Pool::build(100, 2, |i| i).unwrap();
        p.each(&vec![Some(1); 100], (), |r, op, ()| *r += op).unwrap();
        assert_eq!(p.iter().sum::<usize>(), (1..=100).sum::<usize>());
    }
}
