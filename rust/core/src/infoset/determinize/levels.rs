//! The level cards' allocation of a turn-conditioned world drawn whole (who was asked, D7).
//!
//! The proposal deals the level kinds (R8.1) first, split by split over the holders, and the
//! turn chains then accept each other seat's level counts `c` with probability its share of
//! fitting placements over the best share (`turns.rs`). Where the share is small the proposal
//! is rejected many times (about 30 proposals a world mid-hand). This table enumerates every
//! sequence of the level kinds' splits (a *path*) once per info set and weights it by its
//! chance under the proposal (the splits' multinomials times the completions of the rest)
//! times each seat's *envelope*: the share over the best, rounded up to a multiple of
//! 1/`ENVELOPE` (q/`ENVELOPE`). A path drawn in proportion to that weight is then accepted with
//! probability share / envelope per seat (above 1 − 1/q), so the accepted worlds follow exactly
//! the law of the rejection it replaces, at about one proposal per world. C9's small joker,
//! which no chain counts, is left to the proposal after the path. Where the paths would be too
//! many the sampler keeps the plain rejection.
//!
//! The walk tests a split by one mask per node (each holder's allowed copies: room, at most
//! four a suit, the prefixes of its valid counts, a nonzero envelope at the last kind), and
//! the table keeps the paths by *node* (the paths that share all but their last split): each
//! node's summed weight, cumulated; a draw picks the node, then weighs that node's paths again
//! to find the same path a cumulative weight per path would (twin: `plain_table`).

use std::sync::{Arc, Mutex};

use crate::game::hand::NOBODY;
use crate::util::bignum::{quad_add, quad_add_mul, quad_lt, quad_mul, quad_scale, quad_sub, Big, Quad};
use crate::util::rng::Rng;

use super::splits::Splits;

/// The envelope's parts: a seat's share over the best is rounded up to a multiple of
/// 1 / `ENVELOPE`.
pub(super) const ENVELOPE: u32 = 1 << 16;

/// A seat's envelopes by its packed level counts (12 bits: every key has an entry; 0 where no
/// placement fits), shared by its chain and the level tables that read them.
pub(super) type Envelopes = Arc<[u32; 1 << 12]>;

/// A walk's envelope tables as a table keeps them: one of zeros (shared, built once) where a
/// holder has none.
fn kept_envelopes(tables: &[Option<Envelopes>; 4]) -> [Envelopes; 4] {
    static NONE: std::sync::OnceLock<Envelopes> = std::sync::OnceLock::new();
    std::array::from_fn(|h| tables[h].clone().unwrap_or_else(|| NONE.get_or_init(|| Arc::new([0; 1 << 12])).clone()))
}

/// Paths a table holds at most (each a few bytes and a 64-byte cumulative weight). The paths
/// are listed before any is weighed, so a walk with more costs only the listing up to here.
const MAX_PATHS: usize = 1 << 12;

/// Nodes (paths but their last split) a table is first sized for (it grows beyond).
const NODES_HINT: usize = 1 << 8;

/// The walk a table enumerates: the proposal's splits kind by kind from the holders' rooms.
/// Its functions are type parameters, so that the walk calls them directly (the envelope runs
/// at every node of the last kind, the completions at every path's end).
pub(super) struct Walk<'a, E, V>
where
    E: Fn(&[u16; 4]) -> Result<u128, Big>,
    V: Fn(usize, u16) -> u32,
{
    /// Per kind in the proposal's order: its splits over the holders, with their multinomial
    /// weights.
    pub splits: Vec<&'a Splits>,
    /// The level kinds the walk deals, in its order (a level card's suit is its kind / 13).
    pub kinds: Vec<u8>,
    /// Per holder: its seat (`NOBODY`: the pile) and the level cards of each suit it has
    /// played (a chain counts them with those in hand).
    pub holders: Vec<(u8, [u8; 4])>,
    /// Every holder's room before the first kind (the cards it still takes, of every kind):
    /// a split fits where no holder takes more than its room.
    pub rooms: [u16; 4],
    /// The completions of the proposal after the last kind, from the holders' rooms then (in
    /// 128 bits where they fit, else at full width).
    pub end: &'a E,
    /// Where `end` reads a 128-bit layer at an index linear in the rooms (the layer and each
    /// holder's stride): the walk then reads it at a node's index less each last split's
    /// offset (the same values).
    pub linear: Option<(&'a [u128], [usize; 4])>,
    /// A holder's envelope for its level counts, packed (each at most 4; 0: no placement
    /// fits them).
    pub envelope: &'a V,
    /// Per holder: the level counts its chain accepts (packed as `pack`), for pruning.
    pub valid: Vec<&'a [u16]>,
    /// Per holder: where its prefix tables are kept with its chain (`None`: built here).
    pub memos: Vec<Option<&'a PrefixMemo>>,
    /// Per holder: its envelopes as `envelope` reads them (`None`: no chain), kept by the
    /// table for its draws.
    pub tables: [Option<Envelopes>; 4],
}

/// A chain's prefix tables ([`prefixes`]) as built for the walks that read them, by the walk's
/// suits and the holder's counts on the suits it never deals: a cache kept with the chain, so
/// that the info sets of a hand that deal the same level kinds build them once (the same
/// tables: twin in `prefixes` under test).
#[derive(Clone, Debug, Default)]
pub(super) struct PrefixMemo(Arc<Mutex<Vec<(u32, Arc<Vec<[u8; 512]>>)>>>);

/// Kept prefix tables a chain holds at most.
const KEPT_PREFIXES: usize = 8;

/// Cumulative weights: in four limbs (little-endian) while the total fits, else at full width.
#[derive(Clone, Debug)]
enum Cum {
    Narrow(Vec<Quad>),
    Wide(Vec<Big>),
}

/// A node of the walk before the last kind: its paths are its prefix and each split of the
/// last kind that fits, weighed there (`LevelTable::leaves`), so that a table lists only
/// these nodes with the sums of their paths' weights, and a draw weighs again the paths of
/// the one node it lands in.
#[derive(Clone, Copy, Debug)]
struct Node {
    /// The holders' rooms after the prefix.
    rooms: [u16; 4],
    /// The product of the prefix's splits' weights.
    w: u64,
    /// The copies of the last kind each holder may take ([`split_bits`]): room, at most four
    /// a suit, counts some valid count ends with.
    allowed: u32,
    /// Per holder, its level counts after the prefix, packed: a path's envelopes are read
    /// at its end, for the counts its last split gives (a split whose envelope is 0 for some
    /// seat is no path).
    c: [u16; 4],
}

/// What a table's leaves read of the walk: the last kind's suit (its shift in packed counts)
/// and which holders have a chain (all but the pile and those past the last).
#[derive(Clone, Copy, Debug)]
struct Leaves {
    shift: u16,
    seat: [bool; 4],
}

impl Leaves {
    /// The product of the seats' envelopes at the counts `a` gives after `node` (0: some
    /// seat's is 0, no path); below 2^48 (three seats of at most 2^16).
    #[inline(always)]
    fn q(&self, node: &Node, a: &[u8; 4], envelope: &impl Fn(usize, u16) -> u32) -> u64 {
        let mut q = 1u64;
        for h in 0..4 {
            if self.seat[h] {
                q *= envelope(h, node.c[h] + ((a[h] as u16) << self.shift)) as u64;
            }
        }
        q
    }
}

/// Every path of a [`Walk`] with its weight, cumulated by node (the paths that share all but
/// their last split), for a draw in proportion to it.
#[derive(Clone, Debug)]
pub(super) struct LevelTable {
    /// Kinds per path.
    n: usize,
    /// The level kinds, in the paths' order (the first `n`).
    kinds: [u8; 4],
    /// Per kind: its splits (a path names one of each by index; by cells: kept there).
    splits: Vec<Splits>,
    /// The last kind's splits' [`split_bits`].
    last_bits: Vec<u32>,
    /// The nodes of nonzero weight, in the walk's order, with the split index of each of
    /// their prefix's kinds (n − 1 each), node after node.
    nodes: Vec<Node>,
    prefixes: Vec<u8>,
    /// `cum[p]`: the weights of the paths of nodes 0..=p.
    cum: Cum,
    /// How the leaves are weighed.
    leaves: Leaves,
    /// Each holder's envelopes (the walk's `tables`; all 0 where it has none), read again by
    /// a draw.
    env: [Envelopes; 4],
    /// Three seats and no pile (in play): the paths by cells instead ([`Cells`]; the fields
    /// of the nodes above are then empty).
    cells: Option<Box<Cells>>,
}

/// Uniform in `0..t` (`t` > 0) in four limbs: [`Big::below`]'s draws (the limbs up to the top
/// nonzero one, the top masked, rejected at or above `t`) without its eight-limb words.
fn quad_below(t: &Quad, rng: &mut Rng) -> Quad {
    let n = t.iter().rposition(|&l| l != 0).expect("a nonzero bound") + 1;
    let mask = u64::MAX >> t[n - 1].leading_zeros();
    loop {
        let mut r = [0u64; 4];
        for x in &mut r[..n] {
            *x = rng.next_u64();
        }
        r[n - 1] &= mask;
        if quad_lt(&r, t) {
            return r;
        }
    }
}

/// Factors a row of [`Cells`] holds: the first suit's copies 0 ..= 4, then zeros (a power of
/// two: a row is read as an array, by a count masked to it).
const ROW: usize = 8;

/// A seat's factor of the copies c it takes of one suit's level kind: 4! / c! (c ≤ 4).
const FACTOR: [u64; 5] = [24, 24, 12, 4, 1];

/// Copies of suit `s` in counts of 4-bit lanes.
#[inline(always)]
fn lane(c: u16, s: usize) -> u8 {
    (c >> (4 * s) & 15) as u8
}

/// Counts by suit as 4-bit lanes (read back by [`lane`]).
#[inline(always)]
fn lanes(c: [usize; 4]) -> u16 {
    (c[0] | c[1] << 4 | c[2] << 8 | c[3] << 12) as u16
}

/// The paths of three seats' walk (no pile) grouped by *cell*: the level cards each seat
/// takes in all. A path is one count matrix (the copies of each suit's level kind each seat
/// takes), and its weight factors by seat but for the completions after it, which read only
/// the seats' rooms, that is the cell: Π over kinds of c!/Π a! times Π over seats of the
/// envelope is, up to a factor the same for every path (Π over suits of (4!)³ / u!), the
/// product over seats of G(counts) = envelope · Π over suits of 4!/count!. So the paths are
/// listed once per seat 0's counts and seat 1's total (a *record*: the sum of the three seats'
/// products over seat 1's counts of that total), each cell sums its records (in 128 bits:
/// below 2^104 a path, at most `MAX_PATHS`) and is weighed once by its completions. A draw
/// picks the cell by its weight, then a record of it and seat 1's counts by their products
/// (seat 2 takes the rest): the law of a draw over every path by its weight, the paths in
/// another order than the nodes' walk (twin: `plain_table`, the same paths in proportion).
/// Seats 0, 1 and 2 are the walk's holders with the fewest nonzero factors first (`seat`):
/// seat 0's counts are listed one by one and seat 1's rows walked for each, so the fewer
/// the cheaper; another order of the draws than the holders' own, the same law (test
/// `reordered_cells_draw_the_paths_in_proportion`).
#[derive(Clone, Debug)]
struct Cells {
    /// The seats in the cells' order: `seat[i]` is the walk's holder kept as seat i.
    seat: [usize; 3],
    /// The unseen level copies of each suit.
    u: [u8; 4],
    /// The seats' rooms before the level kinds (for the twin).
    #[cfg_attr(not(test), allow(dead_code))]
    rooms: [u16; 4],
    /// Per seat and suit: the copies it may take.
    lo: [[u8; 4]; 3],
    hi: [[u8; 4]; 3],
    /// Per seat: its factor by its counts within its box, index the first suit's count plus Σ
    /// over the other suits of (count − lo) · stride: a *row* of the other suits' counts holds
    /// `ROW` factors, by the first suit's count 0 ..= 4 then zeros (0 outside the box, or where
    /// no path gives it those counts).
    stride: [[usize; 4]; 3],
    /// (seat i's, shared with the thread's kept factors: [`Cells::g`])
    gs: [Arc<Factors>; 3],
    /// Seats 1 and 2: each row's nonzero factors as bits (bit c: the first suit's copies c).
    bits: [[u8; 128]; 2],
    /// The records and their `y` ([`Listed`]), shared with the thread's kept listings.
    listed: Arc<Listed>,
    /// Per cell of nonzero weight, in order: (seat 0's total, seat 1's total, the first record
    /// of seat 0's total, the sum of the cell's `y`).
    cells: Vec<(u8, u8, u32, u128)>,
    /// Per kind of the walk: its splits' copies per holder by index, and its split's index by
    /// seat 0's and seat 1's copies (5 × 5; seat 2 takes the rest).
    splits: [[[u8; 4]; 16]; 4],
    split_at: [[u8; 25]; 4],
    /// The cells' weights, cumulated.
    cum: Cum,
}

/// Seat 0's counts (4-bit lanes, and its factor's index) and seat 1's totals `l1 .. l1 + n`
/// (within the rooms): per total, at `ys[at ..]`, `y`, the sum over seat 1's counts of that
/// total of the three seats' factors' product (0: no path); the next record of seat 0's total
/// (`u32::MAX`: none). A cell's records are those of its seat 0's total whose `y` at its
/// seat 1's total is not 0.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Record {
    c0: u16,
    i0: u16,
    l1: u8,
    n: u8,
    at: u32,
    next: u32,
}

impl Record {
    /// Its `y` at seat 1's total `l1` (0 outside its totals).
    #[inline(always)]
    fn y(&self, ys: &[u128], l1: u8) -> u128 {
        let i = l1.wrapping_sub(self.l1);
        if i < self.n {
            ys[self.at as usize + i as usize]
        } else {
            0
        }
    }
}

/// What [`Cells::list_records`] lists: the records, linked by seat 0's total (the last listed
/// first, from `head`), and their `y` by seat 1's total, record after record; per seat 0's
/// total the seat 1's totals of its records as bits (`cells`); the paths, counted until they
/// pass `MAX_PATHS`.
#[derive(Debug, PartialEq, Eq)]
struct Listed {
    records: Vec<Record>,
    ys: Vec<u128>,
    head: [u32; 17],
    cells: [u32; 17],
    paths: usize,
}

/// Listings kept per thread by what they read (a cache: it changes no record, only its cost):
/// the three seats' factors in the cells' order (kept alive here, so that the same factors
/// are the same allocation), the unseen level copies, the seats' boxes and their rooms, each
/// at most the level cards in all (a room of more changes no record: a seat's total is at
/// most that). The info sets of a hand ask the same listing again while no level card is
/// played and the seats' boxes stay.
type KeptListed = Vec<ListedAt>;

/// A kept listing with what it read ([`KeptListed`]).
type ListedAt = ([Arc<Factors>; 3], [u8; 4], [[u8; 4]; 3], [[u8; 4]; 3], [u16; 3], Arc<Listed>);

/// Listings kept at most per thread (the four seats' info sets of two hands, a few tens of
/// kilobytes each), the oldest dropped first.
const LISTED_KEPT: usize = 8;

thread_local! {
    static KEPT_LISTED: std::cell::RefCell<KeptListed> = const { std::cell::RefCell::new(Vec::new()) };
}

#[cfg(test)]
thread_local! {
    /// Tests: the kept listings found.
    static LISTED_FOUND: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// A seat's factors over its box ([`Cells::factors`]): G by its counts, `ROW` to a row, each
/// row's nonzero ones as bits, and how many are not 0.
#[derive(Debug)]
struct Factors {
    g: Vec<u64>,
    bits: [u8; 128],
    nonzero: usize,
}

/// Factors kept per thread by what they read (a cache: it changes no factor, only its cost):
/// the seat's envelopes (its chain's table, kept alive here, so that the same table is the
/// same allocation), the level cards it played (packed) and its box. The info sets of a hand
/// ask the same seats' factors again while no level card is played.
type KeptFactors = Vec<(Envelopes, u16, [u8; 4], [u8; 4], Arc<Factors>)>;

/// Factors kept at most per thread (three seats of a few info sets), the oldest dropped first.
const FACTORS_KEPT: usize = 12;

thread_local! {
    static KEPT_FACTORS: std::cell::RefCell<KeptFactors> = const { std::cell::RefCell::new(Vec::new()) };
}

impl Factors {
    /// The factors of a seat with envelopes `env`, level cards played `played` (packed) and
    /// box `lo ..= hi`: kept, or made and kept.
    fn kept(env: &Envelopes, played: u16, lo: [u8; 4], hi: [u8; 4]) -> Arc<Factors> {
        let found = KEPT_FACTORS.with(|k| k.borrow().iter().find(|x| Arc::ptr_eq(&x.0, env) && (x.1, x.2, x.3) == (played, lo, hi)).map(|x| x.4.clone()));
        if let Some(f) = found {
            return f;
        }
        let len = ROW * (1..4).map(|su| (hi[su] - lo[su] + 1) as usize).product::<usize>();
        let (mut g, mut bits) = (Vec::with_capacity(len), [0u8; 128]);
        let nonzero = Cells::factors(env, played, lo, hi, &mut bits, &mut g);
        let f = Arc::new(Factors { g, bits, nonzero });
        KEPT_FACTORS.with(|k| {
            let mut k = k.borrow_mut();
            if k.len() >= FACTORS_KEPT {
                k.remove(0);
            }
            k.push((env.clone(), played, lo, hi, f.clone()));
        });
        f
    }
}

impl Cells {
    /// Seat i's factors.
    #[inline(always)]
    fn g(&self, i: usize) -> &[u64] {
        &self.gs[i].g
    }

    /// Seat 1's counts per suit given seat 0's `c0` (`v` left of each suit): within its box
    /// with seat 2's rest within its own (`None`: none).
    #[inline(always)]
    fn seat1_box(&self, c0: [usize; 4]) -> Option<([usize; 4], [usize; 4], [usize; 4])> {
        let v: [usize; 4] = std::array::from_fn(|su| self.u[su] as usize - c0[su]);
        let (lo1, hi1, lo2, hi2) = (self.lo[1], self.hi[1], self.lo[2], self.hi[2]);
        let a: [usize; 4] = std::array::from_fn(|su| (lo1[su] as usize).max(v[su].saturating_sub(hi2[su] as usize)));
        let b: [usize; 4] = std::array::from_fn(|su| (hi1[su] as usize).min(v[su].wrapping_sub(lo2[su] as usize)));
        ((0..4).all(|su| v[su] >= lo2[su] as usize && a[su] <= b[su])).then_some((a, b, v))
    }

    /// Seat 1's and seat 2's factors' indices when seat 1 takes `x` of each suit (within its
    /// box given `v`, seat 2 the rest) but the first suit: add `x[0]` to the first and take
    /// `x[0]` from the second. (Within the box a ≥ lo1 and v − b ≥ lo2 suit by suit: no term
    /// goes below 0.)
    #[inline(always)]
    fn rows(&self, x: [usize; 4], v: &[usize; 4]) -> (usize, usize) {
        let (s1, s2) = (self.stride[1], self.stride[2]);
        let (lo1, lo2) = (self.lo[1].map(|y| y as usize), self.lo[2].map(|y| y as usize));
        let i = (x[3] - lo1[3]) * s1[3] + (x[2] - lo1[2]) * s1[2] + (x[1] - lo1[1]) * s1[1];
        let j = (v[3] - x[3] - lo2[3]) * s2[3] + (v[2] - x[2] - lo2[2]) * s2[2] + (v[1] - x[1] - lo2[1]) * s2[1] + v[0];
        (i, j)
    }

    /// The records (seat 0's counts within its room, seat 1's totals within its own and
    /// seat 2's), linked by seat 0's total from `head`, in order of seat 0's counts (the
    /// first suit fastest), and the cells that have any (by seat 0's total, bits by seat 1's);
    /// the paths listed (of nonzero product), counted until they pass `MAX_PATHS`.
    ///
    /// Seat 0's counts are taken a *group* at a time, those that differ only in the first
    /// suit: a group fixes what is left of the other suits for seats 1 and 2, so it walks
    /// seat 1's rows of the other suits' counts once, each with seat 2's row of the rest. Each
    /// row keeps its nonzero factors as bits (by the first suit's copies), so a pair of
    /// rows gives the first-suit copies x0 of its nonzero products at once (seat 1's bits and
    /// seat 2's reversed at v0 − x0, v0 the copies seat 0 leaves): only the paths are weighed.
    #[inline(never)]
    fn list_records(&self, total: usize) -> Listed {
        let rooms = self.rooms.map(|r| r as usize);
        let mut paths = 0;
        let (mut records, mut ys) = (Vec::with_capacity(NODES_HINT), Vec::with_capacity(NODES_HINT));
        let (mut head, mut cells) = ([u32::MAX; 17], [0u32; 17]);
        // per seat 1 and 2, each row's nonzero factors (bit x0: the first suit's copies),
        // the second reversed (bit 4 − x0)
        // (a box holds at most 5³ rows: four copies a suit)
        const REVERSED: [u8; 32] = {
            let mut t = [0u8; 32];
            let mut m = 0;
            while m < 32 {
                t[m] = ((m as u32).reverse_bits() >> 27) as u8;
                m += 1;
            }
            t
        };
        let (bits1, mut bits2) = (&self.bits[0], [0u8; 128]);
        for (r, &m) in self.bits[1][..self.g(2).len() / ROW].iter().enumerate() {
            bits2[r] = REVERSED[m as usize & 31];
        }
        let u = self.u.map(|x| x as usize);
        let [lo0, lo1, lo2] = self.lo.map(|l| l.map(|x| x as usize));
        let [hi0, hi1, hi2] = self.hi.map(|l| l.map(|x| x as usize));
        let (s1, s2) = (self.stride[1], self.stride[2]);
        let (g0, g1, g2) = (self.g(0), self.g(1), self.g(2));
        // per first-suit count of the group: its copies, seat 0's total, the copies it leaves
        // (v0) and seat 1's totals within the rooms as bits (`window`); per count, seat 1's
        // sums by its total and the totals it reached as bits
        let mut ks = [(0usize, 0usize, 0usize, 0usize); 5];
        // (20: seat 1's totals on the other suits, at most 12, and a row's `ROW` from there;
        // each group zeroes the totals it may write)
        let mut s = [[0u128; 20]; 5];
        let mut nonzero = [[0u32; 20]; 5];
        let mut row0 = 0;
        for y3 in lo0[3]..hi0[3] + 1 {
            for y2 in lo0[2]..hi0[2] + 1 {
                for y1 in lo0[1]..hi0[1] + 1 {
                    let at0 = row0;
                    row0 += ROW;
                    if paths > MAX_PATHS {
                        continue;
                    }
                    // seat 1's box on the other suits, given seat 0's (seat 2 the rest)
                    let v = [0, u[1] - y1, u[2] - y2, u[3] - y3];
                    let a: [usize; 4] = std::array::from_fn(|su| lo1[su].max(v[su].saturating_sub(hi2[su])));
                    let b: [usize; 4] = std::array::from_fn(|su| hi1[su].min(v[su].wrapping_sub(lo2[su])));
                    if (1..4).any(|su| v[su] < lo2[su] || a[su] > b[su]) {
                        continue;
                    }
                    let mut nk = 0;
                    let (sa, sb) = (a[1] + a[2] + a[3], b[1] + b[2] + b[3]);
                    for y0 in lo0[0]..hi0[0] + 1 {
                        let l0 = y0 + y1 + y2 + y3;
                        // (seat 1's first-suit copies within its box, seat 2's rest within its own)
                        let v0 = u[0] - y0;
                        let (a0, b0) = (lo1[0].max(v0.saturating_sub(hi2[0])), hi1[0].min(v0.wrapping_sub(lo2[0])));
                        if g0[at0 + y0] == 0 || l0 > rooms[0] || v0 < lo2[0] || a0 > b0 {
                            continue;
                        }
                        ks[nk] = (y0, l0, sa + a0, sb + b0);
                        // (only seat 1's totals within its box are written: x0 within a0 ..=
                        // b0, the other suits' within sa ..= sb)
                        s[nk][sa + a0..=sb + b0].fill(0);
                        nonzero[nk][sa + a0..=sb + b0].fill(0);
                        nk += 1;
                    }
                    if nk == 0 {
                        continue;
                    }
                    for x3 in a[3]..b[3] + 1 {
                        for x2 in a[2]..b[2] + 1 {
                            let (r, q) = self.rows([0, a[1], x2, x3], &v);
                            for x1 in a[1]..b[1] + 1 {
                                // (the rows of seat 1 at x and of seat 2 at the rest)
                                let (r, q) = (r + (x1 - a[1]) * s1[1], q - (x1 - a[1]) * s2[1]);
                                let (m1, m2) = (bits1[r / ROW], bits2[q / ROW]);
                                if m1 == 0 || m2 == 0 {
                                    continue;
                                }
                                let xs = x1 + x2 + x3;
                                let p: &[u64; ROW] = g1[r..r + ROW].try_into().expect("a row");
                                let q: &[u64; ROW] = g2[q..q + ROW].try_into().expect("a row");
                                for (k, &(y0, ..)) in ks[..nk].iter().enumerate() {
                                    // (x0 of seat 1's nonzero factors where seat 2's at
                                    // v0 − x0 is nonzero too: bit 4 − v0 + x0 of its reversed
                                    // bits; v0 ≤ 4)
                                    let v0 = u[0] - y0;
                                    let mut hit = m1 & (m2 >> (4 - v0));
                                    if hit == 0 {
                                        continue;
                                    }
                                    // (seat 1's totals xs + x0, x0 ≤ 4)
                                    let s: &mut [u128; ROW] = (&mut s[k][xs..xs + ROW]).try_into().expect("a row's sums");
                                    let nonzero: &mut [u32; ROW] = (&mut nonzero[k][xs..xs + ROW]).try_into().expect("a row's counts");
                                    while hit != 0 {
                                        let x0 = hit.trailing_zeros() as usize & (ROW - 1);
                                        hit &= hit - 1;
                                        s[x0] += p[x0] as u128 * q[(v0 - x0) & (ROW - 1)] as u128;
                                        nonzero[x0] += 1;
                                    }
                                }
                            }
                        }
                    }
                    // the records of the group's counts in order, seat 1's totals within its
                    // box, within its room and leaving seat 2 at most its own
                    for (k, &(y0, l0, la, lb)) in ks[..nk].iter().enumerate() {
                        let (l1_lo, l1_hi) = ((total - l0).saturating_sub(rooms[2]).max(la), rooms[1].min(lb));
                        if l1_lo > l1_hi {
                            continue;
                        }
                        let nonzero = &nonzero[k][l1_lo..l1_hi + 1];
                        paths += nonzero.iter().sum::<u32>() as usize;
                        // (the totals of any path, as bits)
                        let m = nonzero.iter().enumerate().fold(0, |m, (i, &x)| m | ((x != 0) as u32) << i) << l1_lo;
                        if m == 0 {
                            continue;
                        }
                        let (lo, hi) = (m.trailing_zeros() as usize, 31 - m.leading_zeros() as usize);
                        cells[l0] |= m;
                        let at = ys.len();
                        let g = g0[at0 + y0] as u128;
                        ys.extend(s[k][lo..hi + 1].iter().map(|&x| x * g));
                        let c0 = lanes([y0, y1, y2, y3]);
                        records.push(Record { c0, i0: (at0 + y0) as u16, l1: lo as u8, n: (hi + 1 - lo) as u8, at: at as u32, next: head[l0] });
                        head[l0] = (records.len() - 1) as u32;
                    }
                }
            }
        }
        Listed { records, ys, head, cells, paths }
    }

    /// [`Cells::list_records`], kept per thread ([`KeptListed`]) for the hand's next info sets.
    fn listed_kept(&self, total: usize) -> Arc<Listed> {
        let rooms: [u16; 3] = std::array::from_fn(|i| self.rooms[i].min(total as u16));
        let same = |x: &ListedAt| {
            (0..3).all(|i| Arc::ptr_eq(&x.0[i], &self.gs[i])) && (x.1, x.2, x.3, x.4) == (self.u, self.lo, self.hi, rooms)
        };
        if let Some(l) = KEPT_LISTED.with(|k| k.borrow().iter().find(|x| same(x)).map(|x| x.5.clone())) {
            // (the twin, in every test that builds a level table by cells)
            #[cfg(test)]
            {
                assert_eq!(*l, self.list_records(total), "a kept listing is the listing");
                LISTED_FOUND.with(|n| n.set(n.get() + 1));
            }
            return l;
        }
        let l = Arc::new(self.list_records(total));
        KEPT_LISTED.with(|k| {
            let mut k = k.borrow_mut();
            if k.len() >= LISTED_KEPT {
                k.remove(0);
            }
            k.push((self.gs.clone(), self.u, self.lo, self.hi, rooms, l.clone()));
        });
        l
    }

    /// Seat h's factors G(counts) = envelope · Π over suits of 4!/count! over its box `lo ..=
    /// hi`, the first suit fastest, `ROW` to a row of the other suits' counts (0 outside the box
    /// and where the envelope is: no path gives it those counts), each row's nonzero ones as
    /// bits (bit c: the first suit's copies c) in `bits`, and how many are not 0.
    #[inline(never)]
    fn factors(envelope: &[u32; 1 << 12], played: u16, lo: [u8; 4], hi: [u8; 4], bits: &mut [u8; 128], g: &mut Vec<u64>) -> usize {
        let (lo, hi) = (lo.map(usize::from), hi.map(usize::from));
        let (mut nonzero, mut r) = (0, 0);
        // (4!/c! by the first suit's copies c within its range, 0 outside)
        let mut f0 = [0u64; ROW];
        f0[lo[0]..hi[0] + 1].copy_from_slice(&FACTOR[lo[0]..hi[0] + 1]);
        for c3 in lo[3]..hi[3] + 1 {
            for c2 in lo[2]..hi[2] + 1 {
                for c1 in lo[1]..hi[1] + 1 {
                    let f = FACTOR[c1] * FACTOR[c2] * FACTOR[c3];
                    let key = (played + pack([0, c1 as u8, c2 as u8, c3 as u8])) as usize;
                    // (every first-suit count 0 ..= 4, those outside the box by a factor 0;
                    // the envelope's key masked there)
                    let (mut row, mut m) = ([0; ROW], 0u8);
                    for c0 in 0..5 {
                        let x = envelope[(key + c0) & 0xfff] as u64 * f * f0[c0];
                        m |= ((x != 0) as u8) << c0;
                        row[c0] = x;
                    }
                    g.extend_from_slice(&row);
                    nonzero += m.count_ones() as usize;
                    bits[r & 127] = m;
                    r += 1;
                }
            }
        }
        nonzero
    }

    /// The cells of a walk of three seats (`None` past `MAX_PATHS` paths within the rooms
    /// whose envelopes are all nonzero, as the nodes' walk, or with none of weight).
    fn build<E, V>(walk: &Walk<E, V>) -> Option<Cells>
    where
        E: Fn(&[u16; 4]) -> Result<u128, Big>,
        V: Fn(usize, u16) -> u32,
    {
        // per seat and suit, the copies its splits give it (the splits are every count within
        // these ranges that sums to the kind's copies), at most four with those it played
        let (mut lo, mut hi) = ([[0u8; 4]; 3], [[0u8; 4]; 3]);
        let mut u = [0u8; 4];
        // (and per kind its splits' copies by index, at most 15: four copies over three seats)
        let mut splits = [[[0u8; 4]; 16]; 4];
        for (j, &k) in walk.kinds.iter().enumerate() {
            let su = (k / 13) as usize;
            let sp = walk.splits[j];
            if sp.len() > 16 {
                return None;
            }
            u[su] = sp[0].0.iter().sum();
            let (mut l, mut m) = ([u8::MAX; 3], [0u8; 3]);
            for (x, (a, _)) in sp.iter().enumerate() {
                splits[j][x] = *a;
                for h in 0..3 {
                    (l[h], m[h]) = (l[h].min(a[h]), m[h].max(a[h]));
                }
            }
            for h in 0..3 {
                lo[h][su] = l[h];
                hi[h][su] = m[h].min(4u8.saturating_sub(walk.holders[h].1[su]));
                if lo[h][su] > hi[h][su] {
                    return None;
                }
            }
        }
        let total: usize = u.iter().map(|&x| x as usize).sum();
        // (the envelopes as the walk's `envelope` reads them: three seats, three chains)
        let env = [walk.tables[0].as_ref()?, walk.tables[1].as_ref()?, walk.tables[2].as_ref()?];
        let gs: [Arc<Factors>; 3] = std::array::from_fn(|h| Factors::kept(env[h], pack(walk.holders[h].1), lo[h], hi[h]));
        let nonzero = gs.each_ref().map(|f| f.nonzero);
        // the seats in the cells' order: fewest nonzero factors first (seat 0's counts are
        // listed one by one, seat 1's rows walked for each; the same paths and weights in
        // another order of draws)
        let mut seat = [0usize, 1, 2];
        seat.sort_by_key(|&h| (nonzero[h], h));
        let gs = seat.map(|h| gs[h].clone());
        let bits = [gs[1].bits, gs[2].bits];
        let (lo, hi) = (seat.map(|h| lo[h]), seat.map(|h| hi[h]));
        let rooms: [u16; 4] = std::array::from_fn(|i| if i < 3 { walk.rooms[seat[i]] } else { walk.rooms[3] });
        // (a row of `ROW` factors by the first suit's copies)
        let stride: [[usize; 4]; 3] = std::array::from_fn(|h| {
            let mut st = [1, ROW, ROW, ROW];
            for su in 2..4 {
                st[su] = st[su - 1] * (hi[h][su - 1] - lo[h][su - 1] + 1) as usize;
            }
            st
        });
        let mut split_at = [[u8::MAX; 25]; 4];
        for (t, sp) in split_at.iter_mut().zip(&walk.splits) {
            for (x, (a, _)) in sp.iter().enumerate() {
                t[a[0] as usize * 5 + a[1] as usize] = x as u8;
            }
        }
        let mut cells = Cells { seat, u, rooms, lo, hi, stride, gs, bits, listed: Arc::new(Listed { records: Vec::new(), ys: Vec::new(), head: [u32::MAX; 17], cells: [0; 17], paths: 0 }), cells: Vec::new(), splits, split_at, cum: Cum::Narrow(Vec::new()) };
        cells.listed = cells.listed_kept(total);
        if cells.listed.paths > MAX_PATHS {
            return None;
        }
        let (head, listed) = (cells.listed.head, cells.listed.cells);
        // (the cells' lists at their full length at once: no growing)
        let n = listed.iter().map(|m| m.count_ones() as usize).sum();
        cells.cells.reserve_exact(n);
        if let Cum::Narrow(c) = &mut cells.cum {
            c.reserve_exact(n);
        }
        // the cells with records in order, those of no completions left out, each weighed: in
        // four limbs while every completion fits 128 bits (the sums then fit: below 2^116 ·
        // 2^128 a cell, at most 289 cells)
        let (mut narrow, mut wide) = (Some([0u64; 4]), Big::ZERO);
        let mut z = [0u128; 17];
        for (l0, (&first, mut m)) in head.iter().zip(listed).enumerate().filter(|(_, (_, m))| *m != 0) {
            // (the sums of seat 0's total l0 by seat 1's)
            z.fill(0);
            let mut at = first;
            while let Some(r) = cells.listed.records.get(at as usize) {
                let ys = &cells.listed.ys[r.at as usize..r.at as usize + r.n as usize];
                for (z, &y) in z[r.l1 as usize..].iter_mut().zip(ys) {
                    *z += y;
                }
                at = r.next;
            }
            while m != 0 {
                let l1 = m.trailing_zeros() as u16;
                m &= m - 1;
                let (l0, z) = (l0 as u16, z[l1 as usize]);
                let e = (walk.end)(&cells.real([rooms[0] - l0, rooms[1] - l1, rooms[2] - (total as u16 - l0 - l1)], rooms[3]));
                if matches!(e, Ok(0)) {
                    continue;
                }
                cells.cells.push((l0 as u8, l1 as u8, first, z));
                match (narrow, e) {
                    (Some(t), Ok(e)) => {
                        let t2 = quad_add(&t, &quad_mul(z, e)).expect("289 cells below 2^244 fit four limbs");
                        narrow = Some(t2);
                        if let Cum::Narrow(c) = &mut cells.cum {
                            c.push(t2);
                        }
                    }
                    (_, e) => {
                        if let Some(t) = narrow.take() {
                            wide = Big::from_limbs(&t);
                            if let Cum::Narrow(c) = &cells.cum {
                                cells.cum = Cum::Wide(c.iter().map(|q| Big::from_limbs(q)).collect());
                            }
                        }
                        let e = match e {
                            Ok(e) => Big::from_u128(e),
                            Err(e) => e,
                        };
                        wide = wide.add(&e.mul_u128(z));
                        if let Cum::Wide(c) = &mut cells.cum {
                            c.push(wide);
                        }
                    }
                }
            }
        }
        (!cells.cells.is_empty()).then_some(cells)
    }

    /// A cell's records from the first of its seat 0's total, with their `y` at its seat 1's
    /// total `l1` (0: not the cell's).
    fn cell_records(&self, first: u32, l1: u8) -> impl Iterator<Item = (&Record, u128)> + '_ {
        let mut at = first;
        std::iter::from_fn(move || {
            let r = self.listed.records.get(at as usize)?;
            at = r.next;
            Some((r, r.y(&self.listed.ys, l1)))
        })
    }

    /// `f` for each of seat 1's counts of its record's total given seat 0's (its counts in
    /// lanes and the product of seats 1 and 2's factors, nonzero), in order, until `f` is
    /// true: one count a row of the other suits, the first suit's copies what is left.
    fn record_paths(&self, r: &Record, l1: u8, mut f: impl FnMut(u16, u128) -> bool) {
        let c0: [usize; 4] = std::array::from_fn(|su| lane(r.c0, su) as usize);
        let Some((a, b, v)) = self.seat1_box(c0) else { return };
        let (l1, g1, g2) = (l1 as usize, self.g(1), self.g(2));
        for x3 in a[3]..b[3] + 1 {
            for x2 in a[2]..b[2] + 1 {
                // (x1 where the first suit's copies l1 − x1 − x2 − x3 lie within a[0] ..= b[0])
                let Some(rest) = l1.checked_sub(x2 + x3) else { continue };
                for x1 in a[1].max(rest.saturating_sub(b[0]))..b[1].min(rest.saturating_sub(a[0])) + 1 {
                    let Some(x0) = rest.checked_sub(x1).filter(|x0| (a[0]..=b[0]).contains(x0)) else { continue };
                    let (i, j) = self.rows([0, x1, x2, x3], &v);
                    let w = g1[i + x0] as u128 * g2[j - x0] as u128;
                    if w != 0 && f(lanes([x0, x1, x2, x3]), w) {
                        return;
                    }
                }
            }
        }
    }

    /// A cell by its weight, then a record of it and seat 1's counts by their products (times
    /// seat 0's factor): the counts per seat, in 4-bit lanes.
    fn sample(&self, rng: &mut Rng) -> [u16; 3] {
        let k = match &self.cum {
            Cum::Narrow(cum) => {
                let r = quad_below(cum.last().expect("a table holds a cell"), rng);
                cum.partition_point(|c| !quad_lt(&r, c))
            }
            Cum::Wide(cum) => {
                let r = cum.last().expect("a table holds a cell").below(rng);
                cum.partition_point(|c| *c <= r)
            }
        };
        let (_, l1, first, z) = self.cells[k];
        let mut r = rng.below(z);
        let (rec, _) = self
            .cell_records(first, l1)
            .find(|&(_, y)| {
                let hit = r < y;
                if !hit {
                    r -= y;
                }
                hit
            })
            .expect("a record passes the draw");
        // (what is left of the draw is uniform below the record's y = g0 · s: the paths by
        // g0 times their products, one draw for the record and the path)
        let g0 = self.g(0)[rec.i0 as usize] as u128;
        let mut c1 = None;
        self.record_paths(rec, l1, |c, w| {
            let w = w * g0;
            if r < w {
                c1 = Some(c);
                return true;
            }
            r -= w;
            false
        });
        let c1 = c1.expect("a path passes the draw");
        let u = (0..4).fold(0u16, |m, su| m | (self.u[su] as u16) << (4 * su));
        let c = [rec.c0, c1, u - rec.c0 - c1];
        let mut out = [0; 3];
        for i in 0..3 {
            out[self.seat[i]] = c[i];
        }
        out
    }

    /// The walk's holders' rooms (and the fourth's) from the seats' in the cells' order.
    fn real(&self, r: [u16; 3], fourth: u16) -> [u16; 4] {
        let mut out = [fourth; 4];
        for i in 0..3 {
            out[self.seat[i]] = r[i];
        }
        out
    }
}

/// A path: the split index of each kind.
pub(super) struct Path {
    xs: [u8; 4],
    n: usize,
}

impl std::ops::Deref for Path {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        &self.xs[..self.n]
    }
}

/// Level counts packed 3 bits a suit (the key of a chain's counts).
pub(super) fn pack(c: [u8; 4]) -> u16 {
    (0..4).fold(0, |p, s| p | (c[s] as u16) << (3 * s))
}

/// The copies a split gives each holder as one word: bit 5·h + a[h] for holder h. A node of
/// the walk sets, per holder, the bits of the copies it may still take (room, at most four a
/// suit, counts some valid count begins with, a nonzero envelope at the last kind), and a
/// split fits where its word has no bit outside them: one test a split.
fn split_bits(a: &[u8; 4], nh: usize) -> u32 {
    (0..nh).fold(0, |m, h| m | 1 << (5 * h + a[h] as usize))
}

struct Builder<'w, 'a, E, V>
where
    E: Fn(&[u16; 4]) -> Result<u128, Big>,
    V: Fn(usize, u16) -> u32,
{
    walk: &'w Walk<'a, E, V>,
    /// Kinds per path, holders.
    n: usize,
    nh: usize,
    /// `prefix[h][j]`, indexed by the packed counts on the suits known before kind j
    /// without kind j's suit ([`drop_suit`]): the counts of kind j's suit (as bits) that some
    /// valid count of h begins with. A path whose counts so far begin none is cut there.
    prefix: Vec<Arc<Vec<[u8; 512]>>>,
    /// Per kind j: the packed counts' bits of the suits known after it.
    known: Vec<u16>,
    /// Whether each holder has a chain (all but the pile).
    seat: [bool; 4],
    /// Per kind: each split's [`split_bits`].
    bits: Vec<Vec<u32>>,
    xs: Vec<u8>,
    table: LevelTable,
    /// The running total while it fits in four limbs (`None` after).
    narrow: Option<Quad>,
    /// The running total at full width, once it no longer fits.
    total: Big,
    /// Paths listed (every envelope nonzero), those of no weight included: the table holds
    /// at most `MAX_PATHS`.
    listed: usize,
    full: bool,
    /// With a linear `end`: each last split's offset in its layer.
    last_off: Vec<usize>,
}

impl<E, V> Builder<'_, '_, E, V>
where
    E: Fn(&[u16; 4]) -> Result<u128, Big>,
    V: Fn(usize, u16) -> u32,
{
    /// Kinds j.. (j < n) from the holders' `rooms`, with each holder's level counts so far
    /// packed (`c`, the pile's unused) and the weight `w` of the splits so far.
    fn dfs(&mut self, j: usize, rooms: [u16; 4], c: [u16; 4], w: u64) {
        let walk = self.walk;
        let (n, nh) = (self.n, self.nh);
        let shift = 3 * (walk.kinds[j] / 13) as u16;
        let last = j + 1 == n;
        // per holder, the copies of this kind it may take (at the last kind the envelopes are
        // read path by path, `Leaves::q`)
        let mut allowed = 0u32;
        for h in 0..nh {
            let mut m = (2u32 << rooms[h].min(4)) - 1;
            if self.seat[h] {
                let held = c[h] >> shift & 7;
                let key = drop_suit(c[h] & self.known[j], shift);
                // (a suit already past four copies allows nothing: no bit is left)
                m &= (self.prefix[h][j][key as usize] >> held.min(7)) as u32;
            }
            allowed |= m << (5 * h);
        }
        if last {
            self.node(Node { rooms, w, allowed, c });
            return;
        }
        for x in 0..self.bits[j].len() {
            if self.bits[j][x] & !allowed != 0 {
                continue;
            }
            let (a, wx) = &walk.splits[j][x];
            let mut r2 = rooms;
            let mut c2 = c;
            for h in 0..nh {
                r2[h] -= a[h] as u16;
                c2[h] += (a[h] as u16) << shift;
            }
            self.xs.push(x as u8);
            self.dfs(j + 1, r2, c2, w * *wx as u64);
            self.xs.pop();
            if self.full {
                return;
            }
        }
    }

    /// Lists the paths of a node (its prefix: `xs`), weighed, and keeps it where they weigh
    /// anything; sets `full` past `MAX_PATHS` paths.
    fn node(&mut self, node: Node) {
        let bits = &self.table.last_bits;
        // (the paths are counted as the sum lists them, the same count as a pass over the
        // last kind's splits; past `MAX_PATHS` the table is refused whatever the sums)
        let (mut listed, mut counted) = (0, false);
        // (in four limbs while the sums fit, checked: the same exact sums)
        let (last, leaves, envelope) = (&self.table.splits[self.n - 1], self.table.leaves, self.walk.envelope);
        if let Some(t) = self.narrow {
            let count = |_: usize, _: &Quad| {
                listed += 1;
                false
            };
            let sum = match self.walk.linear {
                Some((layer, st)) => {
                    let base: usize = (0..4).map(|h| node.rooms[h] as usize * st[h]).sum();
                    let off = &self.last_off;
                    LevelTable::leaves_narrow(last, bits, leaves, &node, |x, _| Some(layer[base - off[x]]), envelope, count)
                }
                None => LevelTable::leaves_narrow(last, bits, leaves, &node, end_of(self.walk.end, &node), envelope, count),
            };
            // (a sum that stopped early did not count every path)
            if sum.is_none() {
                listed = last.iter().zip(bits).filter(|((a, _), &b)| b & !node.allowed == 0 && leaves.q(&node, a, envelope) != 0).count();
            }
            (self.listed, counted) = (self.listed + listed, true);
            if self.listed > MAX_PATHS {
                self.full = true;
                return;
            }
            match sum.and_then(|s| quad_scale(&s, node.w)).and_then(|s| quad_add(&s, &t)) {
                Some(t2) if t2 == t => return,
                Some(t2) => {
                    self.narrow = Some(t2);
                    if let Cum::Narrow(c) = &mut self.table.cum {
                        c.push(t2);
                    }
                    self.keep(node);
                    return;
                }
                None => {
                    // the total no longer fits: every sum so far at full width
                    self.narrow = None;
                    self.total = Big::from_limbs(&t);
                    if let Cum::Narrow(c) = &self.table.cum {
                        self.table.cum = Cum::Wide(c.iter().map(|q| Big::from_limbs(q)).collect());
                    }
                }
            }
        }
        let sum = LevelTable::leaves_wide(last, bits, leaves, &node, self.walk.end, envelope, |_, _| {
            listed += 1;
            false
        });
        // (counted already where the narrow sum ran first)
        if !counted {
            self.listed += listed;
            if self.listed > MAX_PATHS {
                self.full = true;
                return;
            }
        }
        if sum.is_zero() {
            return;
        }
        self.total = self.total.add(&sum);
        if let Cum::Wide(c) = &mut self.table.cum {
            c.push(self.total);
        }
        self.keep(node);
    }

    fn keep(&mut self, node: Node) {
        for &x in &self.xs {
            self.table.prefixes.push(x);
        }
        self.table.nodes.push(node);
    }
}

/// A walk's completions after a node's last split, in 128 bits (`None` where they do not fit).
#[inline(always)]
fn end_of<'e>(end: &'e impl Fn(&[u16; 4]) -> Result<u128, Big>, node: &'e Node) -> impl Fn(usize, &[u8; 4]) -> Option<u128> + 'e {
    move |_, a| end(&std::array::from_fn(|h| node.rooms[h] - a[h] as u16)).ok()
}

/// Packed counts without the 3 bits at `shift` (one suit's): 9 bits.
#[inline(always)]
fn drop_suit(c: u16, shift: u16) -> u16 {
    (c & ((1 << shift) - 1)) | (c >> (shift + 3)) << shift
}

/// Per holder h and kind j: by the packed counts of the suits known before kind j (those
/// dealt before it and those the walk never deals; [`drop_suit`] of kind j's), the counts of
/// kind j's suit (as bits) of the valid counts of h that begin so (taken from the holder's
/// [`PrefixMemo`] where it keeps them); and per kind the bits of the suits known after it.
/// (A valid count that differs from `start` on a suit the walk never deals is left out: no
/// path's counts differ there.)
fn prefixes(kinds: &[u8], valid: &[&[u16]], memos: &[Option<&PrefixMemo>], seat: &[bool], start: &[u16; 4]) -> (Vec<Arc<Vec<[u8; 512]>>>, Vec<u16>) {
    let n = kinds.len();
    let known: Vec<u16> = (0..n)
        .map(|j| {
            // a suit no kind of the walk deals is known from the start (its played cards)
            (0..4u16).filter(|&su| kinds.iter().position(|&k| (k / 13) as u16 == su).is_none_or(|at| at <= j)).fold(0, |m, su| m | 7 << (3 * su))
        })
        .collect();
    let never = (0..4u16).filter(|&su| !kinds.iter().any(|&k| (k / 13) as u16 == su)).fold(0, |m, su| m | 7 << (3 * su));
    // (the tables read the walk's suits in order and the counts on the suits never dealt)
    let suits = kinds.iter().fold(n as u32, |m, &k| m << 2 | (k / 13) as u32);
    let prefix = (0..seat.len())
        .map(|h| {
            if !seat[h] {
                return Arc::new(Vec::new());
            }
            let key = suits << 16 | (start[h] & never) as u32;
            let Some(memo) = memos.get(h).copied().flatten() else { return Arc::new(holder_prefixes(kinds, &known, valid[h], never, start[h])) };
            let kept = memo.0.lock().expect("a prefix memo").iter().find(|e| e.0 == key).map(|e| e.1.clone());
            if let Some(t) = kept {
                #[cfg(test)]
                assert_eq!(*t, holder_prefixes(kinds, &known, valid[h], never, start[h]), "kept prefix tables");
                return t;
            }
            let t = Arc::new(holder_prefixes(kinds, &known, valid[h], never, start[h]));
            let mut m = memo.0.lock().expect("a prefix memo");
            if m.len() >= KEPT_PREFIXES {
                m.remove(0);
            }
            m.push((key, t.clone()));
            t
        })
        .collect();
    (prefix, known)
}

/// One holder's prefix tables, kind by kind ([`prefixes`]).
fn holder_prefixes(kinds: &[u8], known: &[u16], valid: &[u16], never: u16, start: u16) -> Vec<[u8; 512]> {
    let mut prefix = vec![[0u8; 512]; kinds.len()];
    // (a copy only where some suit is never dealt)
    let kept: Vec<u16>;
    let keys: &[u16] = if never == 0 {
        valid
    } else {
        kept = valid.iter().copied().filter(|&key| key & never == start & never).collect();
        &kept
    };
    for (j, &k) in known.iter().enumerate() {
        let shift = 3 * (kinds[j] / 13) as u16;
        let t = &mut prefix[j];
        for &key in keys.iter() {
            let c = key >> shift & 7;
            if c <= 4 {
                t[drop_suit(key & k, shift) as usize] |= 1 << c;
            }
        }
    }
    prefix
}

impl LevelTable {
    /// The table of a walk, or `None` where it would hold more than `MAX_PATHS` paths or none.
    pub(super) fn build<E, V>(walk: &Walk<E, V>) -> Option<LevelTable>
    where
        E: Fn(&[u16; 4]) -> Result<u128, Big>,
        V: Fn(usize, u16) -> u32,
    {
        let n = walk.kinds.len();
        let nh = walk.holders.len();
        let mut seat = [false; 4];
        for (s, h) in seat.iter_mut().zip(&walk.holders[..nh]) {
            *s = h.0 != NOBODY;
        }
        let mut c = [0u16; 4];
        for (h, &(_, played)) in walk.holders.iter().enumerate() {
            c[h] = pack(played);
        }
        let mut kinds = [0u8; 4];
        kinds[..n].copy_from_slice(&walk.kinds);
        if nh == 3 && n > 0 && seat[..3].iter().all(|&x| x) {
            let cells = Cells::build(walk)?;
            let leaves = Leaves { shift: 0, seat };
            return Some(LevelTable { n, kinds, splits: Vec::new(), last_bits: Vec::new(), nodes: Vec::new(), prefixes: Vec::new(), cum: Cum::Narrow(Vec::new()), leaves, env: kept_envelopes(&[None, None, None, None]), cells: Some(Box::new(cells)) });
        }
        let splits: Vec<Splits> = walk.splits.iter().map(|&s| s.clone()).collect();
        if n == 0 {
            // no level kind to deal: the one path is empty, weighed by the envelopes of the
            // played counts (its table: one node with no prefix and an empty last kind)
            let mut q = 1u64;
            for h in (0..nh).filter(|&h| seat[h]) {
                let e = (walk.envelope)(h, c[h]);
                if e == 0 {
                    return None;
                }
                q *= e as u64;
            }
            let v = match (walk.end)(&walk.rooms) {
                Ok(v) => Big::from_u128(v),
                Err(v) => v,
            };
            let v = v.mul_small(q);
            let node = Node { rooms: walk.rooms, w: 1, allowed: 0, c };
            let leaves = Leaves { shift: 0, seat: [false; 4] };
            return (!v.is_zero()).then(|| LevelTable { n, kinds, splits, last_bits: Vec::new(), nodes: vec![node], prefixes: Vec::new(), cum: Cum::Wide(vec![v]), leaves, env: kept_envelopes(&walk.tables), cells: None });
        }
        let (prefix, known) = prefixes(&walk.kinds, &walk.valid, &walk.memos, &seat[..nh], &c);
        let bits: Vec<Vec<u32>> = walk.splits.iter().map(|sp| sp.iter().map(|(a, _)| split_bits(a, nh)).collect()).collect();
        let table = LevelTable {
            n,
            kinds,
            splits,
            last_bits: bits[n - 1].clone(),
            nodes: Vec::with_capacity(NODES_HINT),
            prefixes: Vec::with_capacity(NODES_HINT * (n - 1)),
            cum: Cum::Narrow(Vec::with_capacity(NODES_HINT)),
            leaves: Leaves { shift: 3 * (walk.kinds[n - 1] / 13) as u16, seat },
            env: kept_envelopes(&walk.tables),
            cells: None,
        };
        let last_off = match walk.linear {
            Some((_, st)) => walk.splits[n - 1].iter().map(|(a, _)| (0..4).map(|h| a[h] as usize * st[h]).sum()).collect(),
            None => Vec::new(),
        };
        let mut b = Builder { walk, n, nh, prefix, known, seat, bits, xs: Vec::with_capacity(n), table, narrow: Some([0; 4]), total: Big::ZERO, listed: 0, full: false, last_off };
        b.dfs(0, walk.rooms, c, 1);
        if b.full || b.table.nodes.is_empty() {
            return None;
        }
        Some(b.table)
    }

    /// The sum of a node's paths' weights in four limbs (`None` where a completion or a sum
    /// does not fit), without the prefix's weight; `end(x, split)` is the completions after
    /// last split x ([`end_of`]); `stop(x, sum so far with x)` may end the walk at the path of
    /// last split x (the sum then runs to it).
    #[inline(always)]
    fn leaves_narrow(
        last: &Splits,
        bits: &[u32],
        leaves: Leaves,
        node: &Node,
        end: impl Fn(usize, &[u8; 4]) -> Option<u128>,
        envelope: &impl Fn(usize, u16) -> u32,
        mut stop: impl FnMut(usize, &Quad) -> bool,
    ) -> Option<Quad> {
        let mut sum = [0u64; 4];
        for (x, ((a, wx), &b)) in last.iter().zip(bits).enumerate() {
            if b & !node.allowed != 0 {
                continue;
            }
            // (the envelopes' product is below 2^48, three seats' at most 2^16 each; all four
            // holders' rooms at once: one past the last takes 0 of its room 0)
            let q = leaves.q(node, a, envelope);
            if q == 0 {
                continue;
            }
            let v = end(x, a)?;
            // (the weight times the envelopes fits in 64 bits but for the widest envelopes)
            sum = match (*wx as u64).checked_mul(q) {
                Some(u) => quad_add_mul(&sum, v, u)?,
                None => quad_add(&sum, &quad_mul(v, *wx as u64 as u128 * q as u128))?,
            };
            if stop(x, &sum) {
                break;
            }
        }
        Some(sum)
    }

    /// [`LevelTable::leaves_narrow`] at full width, the prefix's weight included.
    fn leaves_wide(
        last: &Splits,
        bits: &[u32],
        leaves: Leaves,
        node: &Node,
        end: &impl Fn(&[u16; 4]) -> Result<u128, Big>,
        envelope: &impl Fn(usize, u16) -> u32,
        mut stop: impl FnMut(usize, &Big) -> bool,
    ) -> Big {
        let mut sum = Big::ZERO;
        for (x, (a, wx)) in last.iter().enumerate() {
            if bits[x] & !node.allowed != 0 {
                continue;
            }
            let q = leaves.q(node, a, envelope);
            if q == 0 {
                continue;
            }
            let r2: [u16; 4] = std::array::from_fn(|h| node.rooms[h] - a[h] as u16);
            let v = match end(&r2) {
                Ok(v) => Big::from_u128(v),
                Err(v) => v,
            };
            // (in one pass where the weights' product fits in 64 bits)
            let m = node.w * *wx as u64;
            match m.checked_mul(q) {
                Some(mq) => sum.add_mul_small_within(&v, mq, Big::LIMBS),
                None => sum = sum.add(&v.mul_small(m).mul_small(q)),
            }
            if stop(x, &sum) {
                break;
            }
        }
        sum
    }

    /// A path drawn in proportion to its weight (the same draws as one cumulative weight a
    /// path): the node first, then its paths weighed again; `end` is the walk's, the
    /// envelopes those the table keeps.
    #[inline(never)]
    pub(super) fn sample(&self, rng: &mut Rng, end: &impl Fn(&[u16; 4]) -> Result<u128, Big>) -> Path {
        let n = self.n;
        if let Some(cells) = &self.cells {
            let c = cells.sample(rng);
            let mut xs = [0u8; 4];
            for (j, &k) in self.kinds().iter().enumerate() {
                let su = (k / 13) as usize;
                xs[j] = cells.split_at[j][lane(c[0], su) as usize * 5 + lane(c[1], su) as usize];
                debug_assert_eq!(cells.splits[j][xs[j] as usize & 15], [lane(c[0], su), lane(c[1], su), lane(c[2], su), 0], "a path's counts are a split");
            }
            return Path { xs, n };
        }
        let envelope = &|h: usize, key: u16| self.env[h & 3][(key & 0xfff) as usize];
        let mut x = None;
        let k = match &self.cum {
            Cum::Narrow(cum) => {
                let r = quad_below(cum.last().expect("a table holds a node"), rng);
                let k = cum.partition_point(|c| !quad_lt(&r, c));
                let r = if k == 0 { r } else { quad_sub(&r, &cum[k - 1]) };
                let node = &self.nodes[k];
                // the first path whose running sum (times the prefix's weight) passes r
                Self::leaves_narrow(&self.splits[n - 1], &self.last_bits, self.leaves, node, end_of(end, node), envelope, |y, s| {
                    let hit = quad_scale(s, node.w).is_some_and(|s| quad_lt(&r, &s));
                    if hit {
                        x = Some(y);
                    }
                    hit
                });
                k
            }
            Cum::Wide(cum) => {
                let r = cum.last().expect("a table holds a node").below(rng);
                let k = cum.partition_point(|c| *c <= r);
                let r = if k == 0 { r } else { r.sub(&cum[k - 1]) };
                if n > 0 {
                    Self::leaves_wide(&self.splits[n - 1], &self.last_bits, self.leaves, &self.nodes[k], end, envelope, |y, s| {
                        let hit = r < *s;
                        if hit {
                            x = Some(y);
                        }
                        hit
                    });
                }
                k
            }
        };
        let mut xs = [0u8; 4];
        if n > 0 {
            xs[..n - 1].copy_from_slice(&self.prefixes[k * (n - 1)..(k + 1) * (n - 1)]);
            xs[n - 1] = x.expect("a path of the node passes the draw") as u8;
        }
        Path { xs, n }
    }

    /// Whether the paths are drawn by cells ([`Cells`]).
    pub(super) fn by_cells(&self) -> bool {
        self.cells.is_some()
    }

    /// Whether the cells keep their seats in another order than the walk's holders (`None`:
    /// no cells).
    pub(super) fn reordered(&self) -> Option<bool> {
        self.cells.as_ref().map(|c| c.seat != [0, 1, 2])
    }

    /// The level kinds, in the paths' order.
    pub(super) fn kinds(&self) -> &[u8] {
        &self.kinds[..self.n]
    }

    /// Split `x` of kind `j`: its copies per holder.
    pub(super) fn split(&self, j: usize, x: u8) -> &[u8; 4] {
        match &self.cells {
            Some(c) => &c.splits[j][x as usize & 15],
            None => &self.splits[j][x as usize].0,
        }
    }

    /// Bytes held.
    pub(super) fn bytes(&self) -> usize {
        let cells = self.cells.as_ref().map_or(0, |c| {
            c.listed.records.len() * std::mem::size_of::<Record>()
                + c.listed.ys.len() * 16
                + c.cells.len() * 8
                + c.gs.iter().map(|f| f.g.len() * 8).sum::<usize>()
                + match &c.cum {
                    Cum::Narrow(x) => x.len() * std::mem::size_of::<Quad>(),
                    Cum::Wide(x) => x.len() * std::mem::size_of::<Big>(),
                }
        });
        cells + self.prefixes.len()
            + self.nodes.len() * std::mem::size_of::<Node>()
            + match &self.cum {
                Cum::Narrow(c) => c.len() * std::mem::size_of::<Quad>(),
                Cum::Wide(c) => c.len() * std::mem::size_of::<Big>(),
            }
    }

    /// Every path of nonzero weight and the cumulative weights, one a path, at full width
    /// (for the twin).
    #[cfg(test)]
    pub(super) fn parts(&self, end: &impl Fn(&[u16; 4]) -> Result<u128, Big>, envelope: &impl Fn(usize, u16) -> u32) -> (Vec<u8>, Vec<Big>) {
        let n = self.n;
        let (mut paths, mut cum, mut total) = (Vec::new(), Vec::new(), Big::ZERO);
        if let Some(c) = &self.cells {
            // (each path's product times its cell's completions, read again; the cells' own
            // cumulative weights are the same sums)
            let u = (0..4).fold(0u16, |m, su| m | (c.u[su] as u16) << (4 * su));
            for (k, &(l0, l1, first, _)) in c.cells.iter().enumerate() {
                let l2 = c.u.iter().map(|&x| x as u16).sum::<u16>() - l0 as u16 - l1 as u16;
                let e = match end(&c.real([c.rooms[0] - l0 as u16, c.rooms[1] - l1 as u16, c.rooms[2] - l2], 0)) {
                    Ok(e) => Big::from_u128(e),
                    Err(e) => e,
                };
                // (each record of seat 0's total: its y at the cell is g0 times the products of
                // its paths there, 0 where it has none; the cell's sum is theirs)
                let mut z = 0u128;
                for (r, y) in c.cell_records(first, l1) {
                    let g0 = c.g(0)[r.i0 as usize];
                    let mut s = 0u128;
                    c.record_paths(r, l1, |_, w| {
                        s += w;
                        false
                    });
                    assert_eq!(y, s * g0 as u128, "cell {k}: a record's y");
                    z += y;
                    if y == 0 {
                        continue;
                    }
                    c.record_paths(r, l1, |c1, w| {
                        let c2 = u - r.c0 - c1;
                        let mut cs = [0u16; 3];
                        for (i, x) in [r.c0, c1, c2].into_iter().enumerate() {
                            cs[c.seat[i]] = x;
                        }
                        for (j, &kind) in self.kinds().iter().enumerate() {
                            let su = (kind / 13) as usize;
                            let a = [lane(cs[0], su), lane(cs[1], su), lane(cs[2], su), 0];
                            paths.push(c.splits[j].iter().position(|b| *b == a).expect("a split") as u8);
                        }
                        total = total.add(&e.mul_u128(w).mul_small(g0));
                        cum.push(total);
                        false
                    });
                }
                assert_eq!(z, c.cells[k].3, "cell {k}: its sum");
                let kept = match &c.cum {
                    Cum::Narrow(x) => Big::from_limbs(&x[k]),
                    Cum::Wide(x) => x[k],
                };
                assert_eq!(kept, total, "cell {k}: the table's cumulative weight");
            }
            let _ = envelope;
            return (paths, cum);
        }
        if n == 0 {
            let Cum::Wide(c) = &self.cum else { unreachable!("an empty path is wide") };
            return (Vec::new(), c.clone());
        }
        for (k, node) in self.nodes.iter().enumerate() {
            let mut before = Big::ZERO;
            Self::leaves_wide(&self.splits[n - 1], &self.last_bits, self.leaves, node, end, envelope, |x, s| {
                if *s != before {
                    paths.extend_from_slice(&self.prefixes[k * (n - 1)..(k + 1) * (n - 1)]);
                    paths.push(x as u8);
                    cum.push(total.add(s));
                }
                before = *s;
                false
            });
            total = total.add(&before);
            // (the table's own cumulative weight, summed as it was built, is the same)
            let kept = match &self.cum {
                Cum::Narrow(c) => Big::from_limbs(&c[k]),
                Cum::Wide(c) => c[k],
            };
            assert_eq!(kept, total, "node {k}: the table's cumulative weight");
        }
        (paths, cum)
    }
}

/// The twin of [`LevelTable::build`]: every sequence of splits from `start`, each stepped by
/// `step` (the proposal's own step: `None` where a split does not fit), kept where every
/// seat's counts are at most four a suit and among its valid counts with a nonzero envelope,
/// weighed at full width (splits' weights × `end` × envelopes); no pruning by prefixes, no
/// bit masks, no 128-bit sums. `None` past `MAX_PATHS` listed paths or with none of weight.
#[cfg(test)]
#[allow(clippy::too_many_arguments)]
pub(super) fn plain_table<S: Copy>(
    splits: &[&Splits],
    kinds: &[u8],
    holders: &[(u8, [u8; 4])],
    start: S,
    step: &dyn Fn(usize, usize, &S) -> Option<S>,
    end: &dyn Fn(&S) -> Big,
    envelope: &dyn Fn(usize, u16) -> u32,
    valid: &[&[u16]],
) -> Option<(Vec<u8>, Vec<Big>)> {
    // (cut where a seat's counts so far, on the suits dealt so far and those never dealt,
    // begin no valid count: a plain scan of the valid counts)
    let begins = |j: usize, xs: &[u8], x: usize| {
        let dealt = |su: u8| kinds.iter().position(|&k| k / 13 == su).is_none_or(|at| at <= j);
        holders.iter().enumerate().filter(|(_, h)| h.0 != NOBODY).all(|(h, &(_, played))| {
            let mut c = played.map(|v| v as u16);
            for (i, &y) in xs.iter().chain([x as u8].iter()).enumerate() {
                c[(kinds[i] / 13) as usize] += splits[i][y as usize].0[h] as u16;
            }
            c.iter().all(|&v| v <= 4) && valid[h].iter().any(|&key| (0..4u8).filter(|&su| dealt(su)).all(|su| (key >> (3 * su) & 7) == c[su as usize]))
        })
    };
    #[allow(clippy::too_many_arguments)]
    fn rec<S: Copy>(j: usize, s: S, xs: &mut Vec<u8>, w: Big, splits: &[&Splits], n: usize, step: &dyn Fn(usize, usize, &S) -> Option<S>, begins: &dyn Fn(usize, &[u8], usize) -> bool, out: &mut Vec<(Vec<u8>, S, Big)>) {
        if j == n {
            out.push((xs.clone(), s, w));
            return;
        }
        for (x, (_, wx)) in splits[j].iter().enumerate() {
            if !begins(j, xs, x) {
                continue;
            }
            let Some(s2) = step(j, x, &s) else { continue };
            xs.push(x as u8);
            rec(j + 1, s2, xs, w.mul_u128(*wx), splits, n, step, begins, out);
            xs.pop();
        }
    }
    let mut all = Vec::new();
    rec(0, start, &mut Vec::new(), Big::ONE, splits, kinds.len(), step, &begins, &mut all);
    let (mut paths, mut cum, mut total, mut listed) = (Vec::new(), Vec::new(), Big::ZERO, 0);
    for (xs, s, w) in all {
        let mut q = Big::ONE;
        let mut ok = true;
        for (h, &(_, played)) in holders.iter().enumerate().filter(|(_, h)| h.0 != NOBODY) {
            let mut c = played;
            for (j, &x) in xs.iter().enumerate() {
                c[(kinds[j] / 13) as usize] += splits[j][x as usize].0[h];
            }
            let key = pack(c.map(|v| v.min(7)));
            let e = envelope(h, key);
            ok &= c.iter().all(|&v| v <= 4) && valid[h].contains(&key) && e > 0;
            q = q.mul_small(e as u64);
        }
        if !ok {
            continue;
        }
        listed += 1;
        if listed > MAX_PATHS {
            return None;
        }
        let v = end(&s).mul(&w).mul(&q);
        if v.is_zero() {
            continue;
        }
        total = total.add(&v);
        paths.extend_from_slice(&xs);
        cum.push(total);
    }
    (!cum.is_empty()).then_some((paths, cum))
}

#[cfg(test)]
mod tests {
    use super::super::Determinizer;

    /// `seat`'s determinizer at `p` with its turn chains prepared, where they condition its
    /// worlds (else `None`).
    fn conditioned(p: &crate::game::hand::Game, seat: u8) -> Option<Determinizer> {
        let mut det = Determinizer::new(p.info(seat));
        det.turns.as_mut()?.prepare(&det.info);
        det.turns.as_ref().expect("turns").conditions().then_some(det)
    }
    use crate::game::hand::NOBODY;
    use crate::util::bignum::Big;

    /// `a · b` in full (twice [`Big::LIMBS`] limbs, least significant first): a cross product
    /// of two weights may pass a `Big`'s width.
    fn wide_mul(a: &Big, b: &Big) -> Vec<u64> {
        let mut r = vec![0u64; 2 * Big::LIMBS];
        for i in 0..Big::LIMBS {
            let mut carry = 0u128;
            for j in 0..Big::LIMBS {
                let v = a.limb(i) as u128 * b.limb(j) as u128 + r[i + j] as u128 + carry;
                r[i + j] = v as u64;
                carry = v >> 64;
            }
            r[i + Big::LIMBS] = carry as u64;
        }
        r
    }

    /// Two tables' paths (split indices, `n` a path) and cumulative weights: the same paths
    /// with weights in the same proportion, whatever their order (or none for both).
    fn same_law(a: &Option<(Vec<u8>, Vec<Big>)>, b: &Option<(Vec<u8>, Vec<Big>)>, n: usize) -> bool {
        let weights = |t: &(Vec<u8>, Vec<Big>)| {
            let mut m = std::collections::BTreeMap::new();
            let mut before = Big::ZERO;
            for (i, c) in t.1.iter().enumerate() {
                m.insert(t.0[i * n..(i + 1) * n].to_vec(), c.sub(&before));
                before = *c;
            }
            (m, before)
        };
        match (a, b) {
            (Some(a), Some(b)) => {
                let ((ma, ta), (mb, tb)) = (weights(a), weights(b));
                ma.len() == mb.len() && ma.iter().all(|(p, w)| mb.get(p).is_some_and(|v| wide_mul(w, &tb) == wide_mul(v, &ta)))
            }
            (a, b) => a.is_none() && b.is_none(),
        }
    }

    /// The thread's kept factors (`Factors::kept`) against `Cells::factors` made afresh, for
    /// random envelope tables (zeros among them), played cards and boxes, each asked twice
    /// (made, then kept) and again after other tables pushed it out of the cache.
    #[test]
    fn kept_factors_are_the_factors() {
        use super::{Cells, Envelopes, Factors, FACTORS_KEPT};
        use crate::util::rng::Rng;
        use std::sync::Arc;
        let mut rng = Rng::new(7);
        let tables: Vec<Envelopes> = (0..3)
            .map(|_| {
                let mut t = [0u32; 1 << 12];
                for x in t.iter_mut() {
                    *x = if rng.below_usize(4) == 0 { 0 } else { rng.below_usize(1 << 16) as u32 + 1 };
                }
                Arc::new(t)
            })
            .collect();
        let mut asked = 0;
        for round in 0..3 {
            for _ in 0..40 {
                let env = &tables[rng.below_usize(3)];
                let (mut lo, mut hi) = ([0u8; 4], [0u8; 4]);
                for su in 0..4 {
                    lo[su] = rng.below_usize(3) as u8;
                    hi[su] = lo[su] + rng.below_usize(5 - lo[su] as usize) as u8;
                }
                let played = rng.below_usize(2) as u16 | (rng.below_usize(2) as u16) << 6;
                let (mut g, mut bits) = (Vec::new(), [0u8; 128]);
                let nonzero = Cells::factors(env, played, lo, hi, &mut bits, &mut g);
                for _ in 0..2 {
                    let f = Factors::kept(env, played, lo, hi);
                    assert!(f.g == g && f.bits == bits && f.nonzero == nonzero, "round {round}, lo {lo:?}, hi {hi:?}");
                    asked += 1;
                }
            }
            // (others push the kept ones out)
            for _ in 0..FACTORS_KEPT {
                let env: Envelopes = Arc::new([1; 1 << 12]);
                Factors::kept(&env, 0, [0; 4], [1; 4]);
            }
        }
        assert_eq!(asked, 240);
    }

    /// The draws of tables by cells whose seats are kept in another order than the holders''
    /// (fewest nonzero factors first): the paths drawn follow their exact weights (`parts`,
    /// which the twin below checks against the plain walk). For the first 12 such tables of the
    /// plain shuffle at every seat of random hands, 3,000 paths drawn, every one a path of
    /// weight, and a chi-square of their counts against the weights (the paths expected fewer
    /// than five times pooled) at most its 0.9999 quantile.
    #[test]
    fn reordered_cells_draw_the_paths_in_proportion() {
        use crate::util::rng::Rng;
        use std::collections::BTreeMap;
        let to_f64 = |b: &Big| (0..Big::LIMBS).rev().fold(0.0, |v, i| v * 2f64.powi(64) + b.limb(i) as f64);
        let (mut tested, draws) = (0, 3000);
        for seed in 0..30u64 {
            for (cut, p) in super::super::random_cuts(seed) {
                for seat in 0..4u8 {
                    let Some(det) = conditioned(&p, seat).filter(|_| tested < 12) else { continue };
                    let t = det.turns.as_ref().expect("turns");
                    let dense: Vec<&[u32]> = det.holders.iter().map(|h| if h.seat == NOBODY { &[][..] } else { t.envelopes(h.seat) }).collect();
                    let envelope = |h: usize, key: u16| dense[h][key as usize];
                    let valid: Vec<&[u16]> = det.holders.iter().map(|h| if h.seat == NOBODY { &[][..] } else { t.valid(h.seat) }).collect();
                    let Some(table) = det.shuffle_levels(&envelope, valid) else { continue };
                    if table.reordered() != Some(true) {
                        continue;
                    }
                    let end = det.shuffle_end();
                    let (paths, cum) = table.parts(&end, &envelope);
                    let n = table.kinds().len();
                    let total = to_f64(cum.last().expect("a path"));
                    let mut before = Big::ZERO;
                    let mut weight = BTreeMap::new();
                    for (i, c) in cum.iter().enumerate() {
                        weight.insert(paths[i * n..(i + 1) * n].to_vec(), to_f64(&c.sub(&before)) / total);
                        before = *c;
                    }
                    let mut rng = Rng::new(seed * 131 + seat as u64);
                    let mut got: BTreeMap<Vec<u8>, u32> = BTreeMap::new();
                    for _ in 0..draws {
                        let path = table.sample(&mut rng, &end).to_vec();
                        assert!(weight.contains_key(&path), "seed {seed}, cut {cut}, seat {seat}: a path of weight");
                        *got.entry(path).or_default() += 1;
                    }
                    let (mut chi, mut df, mut pooled) = (0.0, 0usize, (0.0, 0.0));
                    for (path, &w) in &weight {
                        let (e, o) = (w * draws as f64, got.get(path).copied().unwrap_or(0) as f64);
                        if e >= 5.0 {
                            chi += (o - e) * (o - e) / e;
                            df += 1;
                        } else {
                            pooled = (pooled.0 + e, pooled.1 + o);
                        }
                    }
                    if pooled.0 >= 5.0 {
                        chi += (pooled.1 - pooled.0) * (pooled.1 - pooled.0) / pooled.0;
                        df += 1;
                    }
                    if df < 2 {
                        continue;
                    }
                    // (Wilson–Hilferty's 0.9999 quantile of chi-square with df − 1 degrees)
                    let k = (df - 1) as f64;
                    let q = k * (1.0 - 2.0 / (9.0 * k) + 3.719 * (2.0 / (9.0 * k)).sqrt()).powi(3);
                    assert!(chi <= q, "seed {seed}, cut {cut}, seat {seat}: chi-square {chi:.1} over {q:.1} ({df} bins)");
                    tested += 1;
                }
            }
        }
        assert!(tested == 12, "{tested} tables");
    }

    /// The twin of the kept listings ([`KeptListed`]): the first world of every decision of
    /// one seat from mid-hand on, in random hands of every profile, each listing found kept
    /// checked against the listing made again (`Cells::listed_kept`), and some found.
    #[test]
    fn kept_listings_are_the_listings() {
        let (hands, mut worlds) = (if cfg!(debug_assertions) { 6 } else { 24 }, 0);
        let found = super::LISTED_FOUND.with(|n| n.get());
        for seed in 0..hands {
            let (profile, actions, _) = super::super::random_hand(seed);
            let mut g = crate::game::hand::Game::deal(seed, profile, [3, 3], NOBODY, None).expect("a fresh deal");
            let half = actions.len() / 2;
            let seat = (seed % 4) as u8;
            for (i, a) in actions.iter().enumerate() {
                g.apply(a).expect("a legal action");
                if i < half || g.pos.phase != crate::game::hand::Phase::Play || g.pos.to_move != seat {
                    continue;
                }
                let mut det = Determinizer::new(g.info(seat));
                det.world(&mut crate::util::rng::Rng::new(seed * 1000 + i as u64)).expect("a world");
                worlds += 1;
            }
        }
        let found = super::LISTED_FOUND.with(|n| n.get()) - found;
        assert!(worlds > 20 && found > 0, "{worlds} worlds, {found} listings found kept");
    }

    /// The level tables, of the counting programme and of the plain shuffle, against their
    /// plain twins (`plain_table`: every split stepped by the proposal's own step, no masks,
    /// full-width sums): the same paths in the same order with the same cumulative weights,
    /// or none for both, at every seat of random hands of every profile, while dealing and in
    /// play (a table by cells, three seats in play: the same paths with weights in the same
    /// proportion, in its own order); and the counting programme built without the level
    /// kinds' layers holds the same counts in every layer it builds.
    #[test]
    fn level_tables_match_the_plain_walk() {
        let (mut shuffled, mut counted, mut paths, mut none, mut lazy_built, mut by_cells, mut reordered) = (0, 0, 0, 0, 0, 0, 0);
        for seed in 0..30u64 {
            for (cut, p) in super::super::random_cuts(seed) {
                for seat in 0..4u8 {
                    let Some(det) = conditioned(&p, seat) else { continue };
                    let t = det.turns.as_ref().expect("turns");
                    let dense: Vec<&[u32]> = det.holders.iter().map(|h| if h.seat == NOBODY { &[][..] } else { t.envelopes(h.seat) }).collect();
                    let envelope = |h: usize, key: u16| dense[h][key as usize];
                    let valid: Vec<&[u16]> = det.holders.iter().map(|h| if h.seat == NOBODY { &[][..] } else { t.valid(h.seat) }).collect();
                    let n = det.level_kinds().len();
                    let table = det.shuffle_levels(&envelope, valid.clone());
                    by_cells += table.as_ref().is_some_and(|t| t.cells.is_some()) as usize;
                    reordered += table.as_ref().and_then(|t| t.reordered()).unwrap_or(false) as usize;
                    let fast = table.map(|t| t.parts(&det.shuffle_end(), &envelope));
                    let plain = det.shuffle_levels_plain(&envelope, &valid);
                    if det.holders.len() == 3 && det.holders.iter().all(|h| h.seat != NOBODY) {
                        assert!(same_law(&fast, &plain, n), "seed {seed}, cut {cut}, seat {seat}: shuffled, by cells");
                    } else {
                        assert_eq!(fast, plain, "seed {seed}, cut {cut}, seat {seat}: shuffled");
                    }
                    shuffled += 1;
                    paths += fast.as_ref().map_or(0, |f| f.1.len());
                    none += fast.is_none() as usize;
                    if !det.use_dp {
                        continue;
                    }
                    let Ok(dp) = det.build_dp() else { continue };
                    // a lazy programme (without the level kinds' layers) holds the same counts
                    let lazy = det.build_dp_from(true).expect("as the full build");
                    assert!(lazy.layers_match(&dp), "seed {seed}, cut {cut}, seat {seat}: lazy layers");
                    // and a full build over the lazy one's layers holds the full build's counts
                    let over = det.build_dp_over(false, Some(lazy.clone())).expect("as the full build");
                    assert!(over.from == 0 && over.layers_match(&dp) && dp.layers_match(&over), "seed {seed}, cut {cut}, seat {seat}: layers kept");
                    lazy_built += (lazy.from > 0) as usize;
                    let table = det.dp_levels(&dp, &envelope, valid.clone());
                    by_cells += table.as_ref().is_some_and(|t| t.cells.is_some()) as usize;
                    reordered += table.as_ref().and_then(|t| t.reordered()).unwrap_or(false) as usize;
                    let fast = table.map(|t| t.parts(&|r: &[u16; 4]| dp.completions(det.level_kinds().len(), r), &envelope));
                    let plain = det.dp_levels_plain(&dp, &envelope, &valid);
                    if det.holders.len() == 3 && det.holders.iter().all(|h| h.seat != NOBODY) {
                        assert!(same_law(&fast, &plain, n), "seed {seed}, cut {cut}, seat {seat}: counted, by cells");
                    } else {
                        assert_eq!(fast, plain, "seed {seed}, cut {cut}, seat {seat}: counted");
                    }
                    counted += 1;
                    paths += fast.as_ref().map_or(0, |f| f.1.len());
                    none += fast.is_none() as usize;
                }
            }
        }
        eprintln!("{shuffled} shuffled tables, {counted} counted ({lazy_built} lazy programmes), {paths} paths, {none} none, {by_cells} by cells ({reordered} with their seats reordered)");
        assert!(shuffled >= 150 && counted >= 60 && lazy_built >= 30 && paths >= 20_000 && none >= 5 && by_cells >= 100 && reordered >= 200, "{shuffled} shuffled tables, {counted} counted ({lazy_built} lazy), {paths} paths, {none} none, {by_cells} by cells ({reordered} reordered)");
    }
}
