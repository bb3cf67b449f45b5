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

use crate::game::hand::NOBODY;
use crate::util::bignum::Big;
use crate::util::rng::Rng;

use super::splits::Splits;

/// The envelope's parts: a seat's share over the best is rounded up to a multiple of
/// 1 / `ENVELOPE`.
pub(super) const ENVELOPE: u32 = 1 << 16;

/// Paths a table holds at most (each a few bytes and a 64-byte cumulative weight). The paths
/// are listed before any is weighed, so a walk with more costs only the listing up to here.
const MAX_PATHS: usize = 1 << 12;

/// Paths a table is first sized for (it grows beyond).
const PATHS_HINT: usize = 1 << 10;

/// The walk a table enumerates: the proposal's splits kind by kind from a start state. Its
/// functions are type parameters, so that the walk calls them directly (the step and the
/// envelope run at every node and every path's end).
pub(super) struct Walk<'a, S, E, V>
where
    S: Fn(usize, usize, &[u16; 4], usize) -> Option<([u16; 4], usize)>,
    E: Fn(&[u16; 4], usize) -> Big,
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
    /// The state before the first kind: the holders' rooms and an index (the counting
    /// programme's state, 0 for the shuffle).
    pub start: ([u16; 4], usize),
    /// Kind j's split x from a state (rooms, index): the next state, if the split fits.
    pub step: &'a S,
    /// The completions of the proposal after the last kind, from a state.
    pub end: &'a E,
    /// A holder's envelope for its level counts, packed (each at most 4; 0: no placement
    /// fits them).
    pub envelope: &'a V,
    /// Per holder: the level counts its chain accepts (packed as `pack`), for pruning.
    pub valid: Vec<&'a [u16]>,
}

/// Every path of a [`Walk`] with its weight, cumulated, for a draw in proportion to it.
#[derive(Clone, Debug)]
pub(super) struct LevelTable {
    /// Kinds per path.
    n: usize,
    /// The level kinds, in the paths' order.
    kinds: Vec<u8>,
    /// Per kind: its splits (a path names one of each by index).
    splits: Vec<Splits>,
    /// The split index of each kind, path after path.
    paths: Vec<u8>,
    /// `cum[p]`: the weights of paths 0..=p.
    cum: Vec<Big>,
}

/// Level counts packed 3 bits a suit (the key of a chain's counts).
pub(super) fn pack(c: [u8; 4]) -> u16 {
    (0..4).fold(0, |p, s| p | (c[s] as u16) << (3 * s))
}

struct Builder<'w, 'a, S, E, V>
where
    S: Fn(usize, usize, &[u16; 4], usize) -> Option<([u16; 4], usize)>,
    E: Fn(&[u16; 4], usize) -> Big,
    V: Fn(usize, u16) -> u32,
{
    walk: &'w Walk<'a, S, E, V>,
    /// `prefix[h * n + j]`: bit `pack(c)` set for the counts of a valid `c` on the suits known
    /// after kind j (the others 0): a path whose counts so far match none is cut there.
    prefix: Vec<[u64; 64]>,
    /// Per kind j: the packed counts' bits of the suits known after it.
    known: Vec<u16>,
    /// The holders with a chain (all but the pile).
    seats: Vec<usize>,
    xs: Vec<u8>,
    table: LevelTable,
    /// Per path listed: its end state, the product of its splits' weights (below 2^23: at
    /// most 24 each, five kinds) and that of its envelopes (2^48 at most).
    ends: Vec<([u16; 4], usize, u64, u64)>,
    full: bool,
}

impl<S, E, V> Builder<'_, '_, S, E, V>
where
    S: Fn(usize, usize, &[u16; 4], usize) -> Option<([u16; 4], usize)>,
    E: Fn(&[u16; 4], usize) -> Big,
    V: Fn(usize, u16) -> u32,
{
    /// Kinds j.. from the state (`s`, `i`), with each holder's level counts so far packed
    /// (`c`, the pile's unused) and the weight `w` of the splits so far.
    fn dfs(&mut self, j: usize, s: [u16; 4], i: usize, c: [u16; 4], w: u64) {
        if self.full {
            return;
        }
        let walk = self.walk;
        let n = walk.kinds.len();
        if j == n {
            // (no level kind to deal: the one path is empty)
            self.end(s, i, c, w, None);
            return;
        }
        let shift = 3 * (walk.kinds[j] / 13) as u16;
        for (x, (a, wx)) in walk.splits[j].iter().enumerate() {
            // every chain's counts at most 4 a suit, and among those of its valid counts on
            // the suits known so far (only this kind's suit changes)
            let mut c2 = c;
            let fits = self.seats.iter().all(|&h| {
                let held = (c[h] >> shift & 7) + a[h] as u16;
                c2[h] = (c[h] & !(7 << shift)) | held << shift;
                let key = c2[h] & self.known[j];
                held <= 4 && self.prefix[h * n + j][key as usize / 64] >> (key % 64) & 1 == 1
            });
            if !fits {
                continue;
            }
            let Some((s2, i2)) = (walk.step)(j, x, &s, i) else { continue };
            if j + 1 == n {
                // the last kind: the path ends here (listed without a call for it)
                if !self.end(s2, i2, c2, w * *wx as u64, Some(x as u8)) {
                    return;
                }
                continue;
            }
            self.xs.push(x as u8);
            self.dfs(j + 1, s2, i2, c2, w * *wx as u64);
            self.xs.pop();
        }
    }

    /// Lists a path that ends at (`s`, `i`) with the seats' counts `c` and its splits' weight
    /// `w` (its splits: `xs`, then `last`), weighted by the seats' envelopes (none where one
    /// is 0); false once the table is full.
    #[inline(always)]
    fn end(&mut self, s: [u16; 4], i: usize, c: [u16; 4], w: u64, last: Option<u8>) -> bool {
        let mut q = 1u64;
        for &h in &self.seats {
            let e = (self.walk.envelope)(h, c[h]);
            if e == 0 {
                return true;
            }
            q *= e as u64;
        }
        if self.ends.len() == MAX_PATHS {
            self.full = true;
            return false;
        }
        self.table.paths.extend_from_slice(&self.xs);
        self.table.paths.extend(last);
        self.ends.push((s, i, w, q));
        true
    }
}

impl LevelTable {
    /// The table of a walk, or `None` where it would hold more than `MAX_PATHS` paths or none.
    pub(super) fn build<S, E, V>(walk: &Walk<S, E, V>) -> Option<LevelTable>
    where
        S: Fn(usize, usize, &[u16; 4], usize) -> Option<([u16; 4], usize)>,
        E: Fn(&[u16; 4], usize) -> Big,
        V: Fn(usize, u16) -> u32,
    {
        let n = walk.kinds.len();
        let known: Vec<u16> = (0..n)
            .map(|j| {
                // a suit no kind of the walk deals is known from the start (its played cards)
                (0..4u16).filter(|&su| walk.kinds.iter().position(|&k| (k / 13) as u16 == su).is_none_or(|at| at <= j)).fold(0, |m, su| m | 7 << (3 * su))
            })
            .collect();
        let seats: Vec<usize> = (0..walk.holders.len()).filter(|&h| walk.holders[h].0 != NOBODY).collect();
        let mut prefix = vec![[0u64; 64]; walk.holders.len() * n];
        for &h in &seats {
            for (j, &k) in known.iter().enumerate() {
                let bits = &mut prefix[h * n + j];
                for &key in walk.valid[h].iter() {
                    let p = key & k;
                    bits[p as usize / 64] |= 1 << (p % 64);
                }
            }
        }
        let mut c = [0u16; 4];
        for (h, &(_, played)) in walk.holders.iter().enumerate() {
            c[h] = pack(played);
        }
        let splits = walk.splits.iter().map(|&s| s.clone()).collect();
        // (sized for a typical walk's paths, about a thousand mid-hand, so that they are not
        // copied as they grow)
        let table = LevelTable { n, kinds: walk.kinds.clone(), splits, paths: Vec::with_capacity(PATHS_HINT * n), cum: Vec::new() };
        let mut b = Builder { walk, prefix, known, seats, xs: Vec::with_capacity(n), table, ends: Vec::with_capacity(PATHS_HINT), full: false };
        b.dfs(0, walk.start.0, walk.start.1, c, 1);
        if b.full {
            return None;
        }
        // each path's weight: the completions after it times its splits' weights and envelopes
        let mut table = b.table;
        table.cum.reserve_exact(b.ends.len());
        let mut total = Big::ZERO;
        // the running total while it fits in 128 bits (`total` holds it too)
        let mut narrow = Some(0u128);
        let mut kept = 0;
        for (p, &(s, i, w, q)) in b.ends.iter().enumerate() {
            let v = (walk.end)(&s, i);
            if v.is_zero() {
                continue;
            }
            // (in 128 bits while the product and the running total fit, checked: the same
            // exact sums)
            let fits = narrow.and_then(|t| v.to_u128()?.checked_mul(w as u128)?.checked_mul(q as u128)?.checked_add(t));
            if let Some(t) = fits {
                narrow = Some(t);
                total = Big::from_u128(t);
            } else {
                narrow = None;
                // (w below 2^23, q at most 2^48: each product gains at most one limb, and the
                // arithmetic runs in the limbs in use)
                let width = v.limbs();
                let vwq = v.mul_small_within(w, (width + 1).min(Big::LIMBS)).mul_small_within(q, (width + 2).min(Big::LIMBS));
                total.add_within(&vwq, (total.limbs().max(width + 2) + 1).min(Big::LIMBS));
            }
            table.paths.copy_within(p * n..(p + 1) * n, kept * n);
            table.cum.push(total);
            kept += 1;
        }
        table.paths.truncate(kept * n);
        (kept > 0).then_some(table)
    }

    /// A path drawn in proportion to its weight: the split index of each kind.
    pub(super) fn sample(&self, rng: &mut Rng) -> &[u8] {
        let total = self.cum.last().expect("a table holds a path");
        let r = total.below(rng);
        let p = self.cum.partition_point(|c| *c <= r);
        &self.paths[p * self.n..(p + 1) * self.n]
    }

    /// The level kinds, in the paths' order.
    pub(super) fn kinds(&self) -> &[u8] {
        &self.kinds
    }

    /// Split `x` of kind `j`: its copies per holder.
    pub(super) fn split(&self, j: usize, x: u8) -> &[u8; 4] {
        &self.splits[j][x as usize].0
    }

    /// Bytes held.
    pub(super) fn bytes(&self) -> usize {
        self.paths.len() + self.cum.len() * std::mem::size_of::<Big>()
    }
}
