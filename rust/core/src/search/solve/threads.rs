//! Several threads solving one position's plays ([`super::solve_threads`]): one table and one
//! set of partition buckets shared by all (a thread's entries serve every other's search),
//! each thread its own solver otherwise.
//!
//! The work is a set of questions "does play r reach b?" (a null-window search of the
//! position after r, as MTD(f) asks them alone). A free thread takes, in this order:
//! 1. a play's next question by MTD(f) from the bounds known of it, if nobody asks it;
//! 2. the next play not begun (in the order the plays are solved alone), guessed as the best
//!    value solved so far (a trick start) or the latest (mid-trick), as alone;
//! 3. a question that may come next: whether a play reaches the score above the one asked
//!    of it (most plays' values are their guess, which takes both), then the score below;
//! 4. a question another thread asks, searched beside it with the plays near its root in
//!    another order ([`HELP_DEPTH`]): the two fill one table, each finding what the other
//!    proved (a question whose value one play holds up would otherwise keep one thread busy
//!    while the others wait).
//!
//! The table and buckets start at a size that suits a short search and grow, four times the
//! slots, once the nodes spent pass eight a slot ([`Grow`]): one thread copies every entry into
//! the new ones while the others go on in the old, and each moves over at its next look.
//!
//! Each answer is a bound of the play's value, whoever found it. A search stops (it looks
//! every [`CHUNK`] nodes) once the bounds known answer its question, or once the nodes of all
//! threads pass the budget. The table's slots are read and written whole or seen as another
//! key's (a torn slot: [`SharedSlots`]), so every answer is sound and every value exact
//! whatever the threads' timing; only the nodes spent depend on it.
//!
//! Measured (benches/HISTORY.md §52–§53, 2 cores): two threads against one about 1.5× at the
//! median of 9–10 cards a hand (the nodes and the gain vary from run to run with the threads'
//! timing), no faster below about 200 ms; [`super::solve_threads`] solves alone first within
//! its first nodes.

use std::sync::atomic::{AtomicI32, AtomicU64, Ordering::Relaxed};
use std::sync::{Arc, Condvar, Mutex};

use super::{static_bounds, Position, Solver};
use crate::rules::card::{size, Counts};
use crate::rules::error::Error;
use crate::search::partition::{Buckets, SharedBuckets};
use crate::search::table::{SharedSlots, Table, MAX_SLOTS};

/// The nodes a thread's solver searches between two looks at the budget and its question.
pub(super) const CHUNK: u64 = 1024;

/// The depths below a question's root where a helping thread ([`Solver::rotate`]) orders the
/// plays from another place: through the rest of the root's trick and the next lead.
pub(super) const HELP_DEPTH: usize = 4;

/// What every thread reads as it searches: the nodes all spent, each play's bounds, and the
/// table and buckets they share.
struct Pool {
    spent: AtomicU64,
    budget: u64,
    /// Each play's bounds known so far (by its place in the solving order): lo, hi; solved
    /// once lo = hi.
    bounds: Vec<(AtomicI32, AtomicI32)>,
    /// The table and buckets now, and how many times they have grown.
    shared: Mutex<(Arc<SharedSlots>, Arc<SharedBuckets>)>,
    generation: AtomicU64,
    /// The nodes spent past which the table grows (`u64::MAX`: at its largest, or growing).
    grow_at: AtomicU64,
    grow: Grow,
}

/// When the threads' table grows: past [`Grow::per_slot`] nodes a slot (of the table now), to
/// four times the slots. One thread alone doubles its table when it is half full (about a
/// node a slot); the threads' table starts at a size that suits short searches
/// ([`shared_slots`]). Growing costs a copy of every entry (from 2^21 to 2^23 slots 0.13 s
/// inside a two-thread solve, two thirds of it the new table's pages, while the other threads
/// go on; §53 once saw 0.7 s), and a larger table costs every probe more (cache and TLB
/// misses), so it grows late and far (measured from 2^21 slots at 10 cards, past 16.8M nodes:
/// BENCH 10 position 5, 2 threads, 0.69× the time; at two nodes a slot, doubling, position 3
/// took 1.5× the time; four times at two nodes a slot, from 2^19, 1.21× at the median of
/// BENCH 10 × 5; benches/HISTORY.md §53–§54).
#[derive(Clone, Copy)]
pub(super) struct Grow {
    /// Nodes a slot, in sixteenths.
    pub(super) per_slot: u64,
}

impl Grow {
    pub(super) const AT: Grow = Grow { per_slot: 8 * 16 };

    /// The nodes spent past which a table of `slots` slots grows (never past [`MAX_SLOTS`]).
    fn at(self, slots: usize) -> u64 {
        if slots >= MAX_SLOTS { u64::MAX } else { (slots as u64 * self.per_slot / 16).max(1) }
    }
}

/// Growths in all tests so far (they check theirs happen).
#[cfg(test)]
pub(super) static GROWN: AtomicU64 = AtomicU64::new(0);

#[cfg(test)]
thread_local! {
    // the tests' growth (sixteenths of a node a slot: tables that grow in small searches)
    pub(super) static GROW: std::cell::Cell<Grow> = const { std::cell::Cell::new(Grow::AT) };
}

/// [`Grow::AT`] (in the tests, the growth they set).
fn grow() -> Grow {
    #[cfg(test)]
    return GROW.with(|c| c.get());
    #[cfg(not(test))]
    Grow::AT
}

impl Pool {
    /// The table and buckets grown, every entry put again, if `spent` passes the nodes that
    /// call for it and no other thread is growing them now. The threads still write the old
    /// ones meanwhile (an entry missed is a cost, never a value) and move to the new ones as
    /// they next look ([`Halt::newer`]).
    fn grow(&self, spent: u64) {
        let at = self.grow_at.load(Relaxed);
        if spent < at || self.grow_at.compare_exchange(at, u64::MAX, Relaxed, Relaxed).is_err() {
            return;
        }
        let (table, buckets) = lock(&self.shared).clone();
        let size = (4 * table.capacity()).min(MAX_SLOTS);
        let (t, b) = (Arc::new(SharedSlots::new(size)), Arc::new(SharedBuckets::new(size / 8)));
        t.take_shared(&table);
        b.take_shared(&buckets);
        *lock(&self.shared) = (t, b);
        self.generation.fetch_add(1, Relaxed);
        #[cfg(test)]
        GROWN.fetch_add(1, Relaxed);
        self.grow_at.store(self.grow.at(size), Relaxed);
    }

    fn bounds(&self, r: usize) -> (i32, i32) {
        (self.bounds[r].0.load(Relaxed), self.bounds[r].1.load(Relaxed))
    }

    /// Play r is not solved yet (its bounds have not met).
    fn open(&self, r: usize) -> bool {
        let (lo, hi) = self.bounds(r);
        lo < hi
    }
}

/// A thread's search: the play it solves and the score b it asks whether the play reaches;
/// `seen`: the table's generation the thread searches with.
pub(super) struct Halt {
    pool: Arc<Pool>,
    root: usize,
    b: i32,
    seen: u64,
}

impl Halt {
    /// Spends [`CHUNK`] more nodes: whether all threads' nodes stay within the budget and the
    /// question is still open (lo < b ≤ hi). The table grows here when the nodes call for it.
    pub(super) fn go_on(&self) -> bool {
        let spent = self.pool.spent.fetch_add(CHUNK, Relaxed) + CHUNK;
        self.pool.grow(spent);
        let (lo, hi) = self.pool.bounds(self.root);
        spent <= self.pool.budget && lo < self.b && self.b <= hi
    }

    /// The table and buckets the threads share now, if they grew since the thread last looked.
    pub(super) fn newer(&mut self) -> Option<(Arc<SharedSlots>, Arc<SharedBuckets>)> {
        let g = self.pool.generation.load(Relaxed);
        if g == self.seen {
            return None;
        }
        self.seen = g;
        Some(lock(&self.pool.shared).clone())
    }
}

/// The score a question "reaches b?" asks about: the least multiple of 5 at or above b
/// (scores are multiples of 5, R7.1, so questions between two of them are one question).
/// Only which questions to ask reads it, never a value.
fn score_of(b: i32) -> i32 {
    b.div_euclid(5) * 5 + if b.rem_euclid(5) == 0 { 0 } else { 5 }
}

/// What the threads share under one lock: who asks what, and what the answers gave.
struct Board {
    /// Plays begun (a prefix of the solving order).
    begun: usize,
    /// Each play's latest value found (MTD(f)'s next guess).
    guess: Vec<i32>,
    /// Each play's questions searched now, one b for each thread searching it.
    asked: Vec<Vec<i32>>,
    solved: usize,
    /// The best value solved so far for the side to move, and the latest solved.
    best: Option<i32>,
    latest: Option<i32>,
    out_of_budget: bool,
}

/// The position's facts that [`Board::pick`] reads.
struct Root {
    plays: usize,
    threads: usize,
    /// The side to move maximises (the defenders).
    max: bool,
    trick_start: bool,
    defender_points: i32,
}

impl Board {
    /// The next question (play, b, threads already asking it), if any now.
    fn pick(&mut self, pool: &Pool, root: &Root) -> Option<(usize, i32, usize)> {
        if self.out_of_budget {
            return None;
        }
        let open: Vec<usize> = (0..self.begun).filter(|&r| pool.open(r)).collect();
        // 1. MTD(f)'s next question of a play begun
        for &r in &open {
            let (lo, hi) = pool.bounds(r);
            let b = self.guess[r].clamp(lo + 1, hi);
            if !self.asked[r].iter().any(|&a| score_of(a) == score_of(b)) {
                self.asked[r].push(b);
                return Some((r, b, 0));
            }
        }
        // 2. the next play (past those solved before the threads began)
        while self.begun < root.plays && !pool.open(self.begun) {
            self.begun += 1;
        }
        if self.begun < root.plays {
            let r = self.begun;
            self.begun += 1;
            let g = if root.trick_start { self.best } else { self.latest }.unwrap_or(root.defender_points);
            let (lo, hi) = pool.bounds(r);
            self.guess[r] = g;
            let b = g.clamp(lo + 1, hi);
            self.asked[r].push(b);
            return Some((r, b, 0));
        }
        // 3. the score above the one asked of a play, then the one below
        for step in [5, -5] {
            for &r in &open {
                let (lo, hi) = pool.bounds(r);
                let b = score_of(self.guess[r].clamp(lo + 1, hi)) + step;
                if lo < b && b <= hi && !self.asked[r].iter().any(|&a| score_of(a) == b) {
                    self.asked[r].push(b);
                    return Some((r, b, 0));
                }
            }
        }
        // 4. a question asked, beside the threads asking it (the fewest first, then the
        // earliest play)
        let mut help: Option<(usize, i32, usize)> = None;
        for &r in &open {
            let (lo, hi) = pool.bounds(r);
            for &b in self.asked[r].iter().filter(|&&b| lo < b && b <= hi) {
                let n = self.asked[r].iter().filter(|&&a| a == b).count();
                if n < root.threads && help.is_none_or(|(_, _, m)| n < m) {
                    help = Some((r, b, n));
                }
            }
        }
        let (r, b, n) = help?;
        self.asked[r].push(b);
        Some((r, b, n))
    }

    /// Records the answer `v` (the search's fail-soft value) to "does play r reach b?".
    fn answer(&mut self, pool: &Pool, r: usize, b: i32, v: i32, max: bool) {
        let (lo, hi) = &pool.bounds[r];
        let was_open = pool.open(r);
        if v < b {
            hi.fetch_min(v, Relaxed);
        } else {
            lo.fetch_max(v, Relaxed);
        }
        self.guess[r] = v;
        let (l, h) = pool.bounds(r);
        debug_assert!(l <= h, "the bounds of sound searches meet, never cross");
        if was_open && l >= h {
            self.solved_at(l, max);
        }
    }

    /// A play solved at `v`: one more, the best so far for the side to move (`max`: the
    /// defenders) and the latest.
    fn solved_at(&mut self, v: i32, max: bool) {
        self.solved += 1;
        self.best = Some(match self.best {
            Some(x) if max => x.max(v),
            Some(x) => x.min(v),
            None => v,
        });
        self.latest = Some(v);
    }
}

/// Every play's bounds (in `order`'s places; exact where solved), whether every play was
/// solved, and one of the threads' solvers (its nodes all threads', its budget what is left)
/// to find the line with: `moves` at `pos` by `threads` threads, from what one thread found
/// before (`alone`: its table and buckets, and each play's bounds in `order`'s places).
/// Raises Resource when the system starts none of them.
pub(super) fn solve_plays(pos: &Position, moves: &[Counts], order: &[usize], budget: u64, threads: usize, alone: &Solver, known: &[(i32, i32)]) -> Result<(Vec<(i32, i32)>, bool, Solver), Error> {
    let partition = alone.partition;
    let n = order.len();
    let children: Vec<Position> = order
        .iter()
        .map(|&i| {
            let mut q = *pos;
            q.play_unchecked(&moves[i]);
            q
        })
        .collect();
    let cards = pos.hands.iter().map(size).max().unwrap_or(0);
    let table = Arc::new(SharedSlots::new(shared_slots(cards)));
    let buckets = Arc::new(SharedBuckets::new(shared_slots(cards) / 8));
    table.take_in(&alone.table);
    buckets.take_in(&alone.buckets);
    let grow = grow();
    let pool = Arc::new(Pool {
        spent: AtomicU64::new(0),
        budget,
        bounds: known.iter().map(|&(lo, hi)| (AtomicI32::new(lo), AtomicI32::new(hi))).collect(),
        shared: Mutex::new((table.clone(), buckets.clone())),
        generation: AtomicU64::new(0),
        grow_at: AtomicU64::new(grow.at(table.capacity())),
        grow,
    });
    let root = Root { plays: n, threads, max: pos.is_defender(pos.to_move), trick_start: pos.trick.plays == 0, defender_points: pos.defender_points };
    let mut board = Board { begun: 0, guess: vec![0; n], asked: vec![Vec::new(); n], solved: 0, best: None, latest: None, out_of_budget: false };
    for (r, &(lo, hi)) in known.iter().enumerate() {
        board.guess[r] = lo.max(hi.min(pos.defender_points));
        if lo >= hi {
            board.solved_at(lo, root.max);
        }
    }
    let board = Mutex::new(board);
    let changed = Condvar::new();
    let work = |mut s: Solver| -> Solver {
        loop {
            let task = {
                let mut bd = lock(&board);
                loop {
                    if let Some(t) = bd.pick(&pool, &root) {
                        break Some(t);
                    }
                    if bd.solved == n || bd.out_of_budget {
                        break None;
                    }
                    // every question asked is being searched: wait for an answer
                    bd = changed.wait(bd).unwrap_or_else(|e| e.into_inner());
                }
            };
            let Some((r, b, helpers)) = task else { return s };
            let seen = s.halt.take().map_or(0, |h| h.seen);
            s.halt = Some(Halt { pool: pool.clone(), root: r, b, seen });
            s.share_newer();
            s.rotate = helpers;
            let v = s.search(&children[r], b - 1, b, 0);
            let mut bd = lock(&board);
            if let Some(i) = bd.asked[r].iter().position(|&a| a == b) {
                bd.asked[r].swap_remove(i);
            }
            match v {
                Ok(v) => bd.answer(&pool, r, b, v, root.max),
                Err(_) => {
                    s.recover();
                    if pool.spent.load(Relaxed) > budget {
                        bd.out_of_budget = true;
                    }
                }
            }
            changed.notify_all();
        }
    };
    let make = || {
        let mut s = Solver::new(0, pos.ctx());
        s.table = Table::sharing(&table);
        if partition {
            s.partition = true;
            s.buckets = Buckets::sharing(&buckets);
        }
        s.hints = false;
        s
    };
    // a thread the system refuses is one fewer (the others take its share); none: an error
    let mut solvers: Vec<Solver> = std::thread::scope(|sc| {
        let handles: Vec<_> = (0..threads).map_while(|_| std::thread::Builder::new().spawn_scoped(sc, || work(make())).ok()).collect();
        handles.into_iter().map(|h| h.join().expect("a solver's thread returns")).collect()
    });
    if solvers.is_empty() {
        return Err(Error::Resource(format!("the system started none of the solver's {threads} threads")));
    }
    let nodes = solvers.iter().map(|s| s.nodes).sum();
    let bounds: Vec<(i32, i32)> = (0..n)
        .map(|r| {
            let (lo, hi) = pool.bounds(r);
            if lo >= hi {
                return (lo, lo);
            }
            let (slo, shi) = static_bounds(&children[r]);
            (lo.max(slo), hi.min(shi))
        })
        .collect();
    let all_solved = pool.bounds.iter().all(|(lo, hi)| lo.load(Relaxed) >= hi.load(Relaxed));
    let mut s = solvers.swap_remove(0);
    // the line searches in the table as the threads left it (the newest, had it grown since
    // this solver last looked)
    s.share_newer();
    (s.halt, s.rotate, s.nodes) = (None, 0, nodes);
    s.budget = nodes.saturating_add(budget.saturating_sub(pool.spent.load(Relaxed).max(nodes)));
    Ok((bounds, all_solved, s))
}

/// The board (or the shared tables), locked (no thread panics holding it; were one to, it is
/// still whole between two of its calls).
fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// The shared table's first slots for a position whose largest hand holds `cards`: small
/// enough to set up in little time and stay near the caches, since a long search grows it
/// ([`Grow`]): 2^19 slots at 10 cards, a quarter of the fixed size of benches/HISTORY.md §52
/// (two threads, alternately against it: BENCH 10 × 5 median 0.948 and 0.956, 9 × 10 0.931;
/// the ends of about 0.2 s 0.82–0.86, §53).
fn shared_slots(cards: usize) -> usize {
    match cards {
        0..=7 => 1 << 16,
        8 => 1 << 17,
        9 => 1 << 18,
        _ => 1 << 19,
    }
}
