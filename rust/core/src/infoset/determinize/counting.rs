//! The counting programme: exact integer counts of the physical deals of the unseen cards
//! that meet every per-kind bound, built once per info set, and the uniform draw from it
//! (step 1 of the sampler, where a kind carries a bound). The kinds only one holder's bounds
//! restrict take no layer: the last layer counts them with the unbounded cards in closed form,
//! and they are dealt with those cards after the others (`pool.rs`).

use crate::rules::card::{Card, Counts, DECK, KINDS, SJ};
use crate::rules::error::Error;
use crate::util::bignum::{binomial_low, binomial_rows, binomial_rows_low, Big, BigVec};
use crate::util::rng::Rng;
use super::checks::CheckMemo;
use super::splits::{no_splits, splits, Splits};
use super::levels::{LevelTable, Walk};
use super::turns::Turns;
use super::holders::Holder;
use super::pool::{Entry, Pool};
use super::{Determinizer, WHOLE_CLASS_UNBOUNDED};

/// A split as a step of the walk: the flattened state index falls by `off` (Σ a[d]·stride[d]
/// over the holders but the last), and those holders take `took` cards.
#[derive(Clone, Copy, Debug)]
pub(super) struct Move {
    off: usize,
    took: u16,
    /// The cards each holder takes: the split's, and the folded kinds' after it.
    a: [u8; 4],
}

impl Move {
    fn of(layout: &Layout, nd: usize, a: &[u8; 4]) -> Move {
        let (mut off, mut took) = (0, 0);
        for d in 0..nd {
            off += a[d] as usize * layout.strides[d];
            took += a[d] as u16;
        }
        Move { off, took, a: *a }
    }

    /// The next state's index from state `i` (remaining room `s`) if the split is feasible:
    /// no holder over-filled, and the last holder's implied room within the cards still to
    /// come (without recomputing the index).
    #[inline]
    fn next(&self, nd: usize, s: &[u16; 4], i: usize, used: u16, remaining_next: u16) -> Option<usize> {
        ((0..nd).all(|d| s[d] >= self.a[d] as u16) && used - self.took <= remaining_next).then(|| i - self.off)
    }
}

/// Where a layer keeps each state: holder d's room (d < nd) at stride `strides[d]`, past
/// `pad` entries of zeros below every coordinate. A split then reads the state with a
/// holder's room below its cards for it as a zero: each state sums over every split with no
/// test ([`layer_runs`]).
#[derive(Clone, Copy, Debug)]
pub(super) struct Layout {
    /// The index's stride of each holder (0 for the last and past it).
    pub(super) strides: [usize; 4],
    /// The index of the state of all rooms 0: `pad` times the strides' sum.
    pub(super) base: usize,
    /// Entries of a layer.
    pub(super) len: usize,
    /// The zeros below each coordinate: the most cards a move gives one of those holders, or
    /// 0 (then a split's runs are cut to the states where it fits).
    pad: usize,
}

impl Layout {
    fn new(dims: &[usize], pad: usize) -> Layout {
        let (mut strides, mut stride) = ([0usize; 4], 1);
        for (d, &n) in dims.iter().enumerate() {
            strides[d] = stride;
            stride *= n + pad;
        }
        Layout { strides, base: pad * strides.iter().sum::<usize>(), len: stride, pad }
    }

    /// The index of the state of rooms `s` (the holders but the last).
    #[inline]
    pub(super) fn index(&self, s: &[u16; 4]) -> usize {
        self.base + (0..4).map(|d| s[d] as usize * self.strides[d]).sum::<usize>()
    }
}

#[cfg(test)]
thread_local! {
    /// Tests: layers without pad entries (each split's runs cut to where it fits), as where
    /// the last layer is at full width.
    static NO_PADS: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Whether a test asked for layers without pad entries.
fn no_pads() -> bool {
    #[cfg(test)]
    return NO_PADS.get();
    #[cfg(not(test))]
    false
}

/// One layer's counts, in the narrowest width known to hold them.
#[derive(Clone, Debug)]
pub(super) enum Layer {
    /// Every count below 2^64 (known from a bound before the layer was built).
    Small(Vec<u64>),
    Narrow(Vec<u128>),
    Wide(Vec<Big>),
}

/// A layer's buffer, when the layer is dropped, is kept per thread for the next programme's
/// layers (`zeroed`): a cache of allocations, so that a later info set's programme allocates
/// and frees no layer. At most `SPARE_LAYERS` buffers and `SPARE_BYTES` in all per width.
/// A kept buffer's entries (its `len`) are all 0: a programme's drop zeroes the rows its
/// layers wrote (`Dp::written`) and keeps them at their length, so that the next layer
/// zeroes only what lies past it; any other buffer is kept empty.
impl Drop for Layer {
    fn drop(&mut self) {
        match self {
            Layer::Small(v) => give_back(std::mem::take(v)),
            Layer::Narrow(v) => give_back(std::mem::take(v)),
            Layer::Wide(v) => give_back(std::mem::take(v)),
        }
    }
}

/// Spare layer buffers kept per thread and width (at full width, 64 bytes an entry, twice
/// the bytes: a first trick's programme holds a dozen layers of ~160 KB, which were a fresh
/// allocation each, their pages faulted in on every info set).
const SPARE_LAYERS: usize = 48;
const SPARE_BYTES: usize = 2 << 20;
const SPARE_BYTES_WIDE: usize = 4 << 20;

/// A thread's spare buffers of one width, and their bytes.
type Spares<T> = std::cell::RefCell<(Vec<Vec<T>>, usize)>;

thread_local! {
    static SPARE_64: Spares<u64> = const { std::cell::RefCell::new((Vec::new(), 0)) };
    static SPARE_128: Spares<u128> = const { std::cell::RefCell::new((Vec::new(), 0)) };
    static SPARE_BIG: Spares<Big> = const { std::cell::RefCell::new((Vec::new(), 0)) };
}

/// A width whose layer buffers are kept per thread.
pub(super) trait Spare: Copy + Default + PartialEq + 'static {
    /// The most bytes kept.
    const BYTES: usize = SPARE_BYTES;
    fn spares() -> &'static std::thread::LocalKey<Spares<Self>>;
}

impl Spare for u64 {
    fn spares() -> &'static std::thread::LocalKey<Spares<u64>> {
        &SPARE_64
    }
}

impl Spare for u128 {
    fn spares() -> &'static std::thread::LocalKey<Spares<u128>> {
        &SPARE_128
    }
}

impl Spare for Big {
    const BYTES: usize = SPARE_BYTES_WIDE;
    fn spares() -> &'static std::thread::LocalKey<Spares<Big>> {
        &SPARE_BIG
    }
}

/// Keeps `v`'s buffer for a later layer, where there is room (not while the thread ends),
/// empty: its entries are not known to be 0.
fn give_back<T: Spare>(mut v: Vec<T>) {
    v.clear();
    give_back_zeroed(v);
}

/// [`give_back`] of a buffer whose every entry is 0: kept at its length.
fn give_back_zeroed<T: Spare>(v: Vec<T>) {
    let bytes = v.capacity() * std::mem::size_of::<T>();
    if bytes == 0 {
        return;
    }
    let _ = T::spares().try_with(|s| {
        let mut s = s.borrow_mut();
        if s.0.len() < SPARE_LAYERS && s.1 + bytes <= T::BYTES {
            s.1 += bytes;
            s.0.push(v);
        }
    });
}

/// A kept buffer of room for `len` entries (the last kept such with `len` zeros, else the
/// last with room), else a new one; zeros, at most `len` of them.
fn take_spare<T: Spare>(len: usize) -> Vec<T> {
    let kept = T::spares().try_with(|s| {
        let mut s = s.borrow_mut();
        let at = s.0.iter().rposition(|v| v.len() >= len).or_else(|| s.0.iter().rposition(|v| v.capacity() >= len))?;
        let v = s.0.swap_remove(at);
        s.1 -= v.capacity() * std::mem::size_of::<T>();
        Some(v)
    });
    let mut v = kept.ok().flatten().unwrap_or_else(|| Vec::with_capacity(len));
    // (a kept buffer's entries are zeros: checked in debug builds)
    debug_assert!(v.iter().all(|x| *x == T::default()), "a kept layer buffer holds a nonzero entry");
    v.truncate(len);
    v
}

impl Layer {
    /// Full-width values, narrowed when every one fits in 128 bits.
    fn from_wide(v: Vec<Big>) -> Layer {
        match BigVec::from_wide(v) {
            BigVec::Narrow(v) => Layer::Narrow(v),
            BigVec::Wide(v) => Layer::Wide(v),
        }
    }

    pub(super) fn get(&self, i: usize) -> Big {
        match self {
            Layer::Small(v) => Big::from_u64(v[i]),
            Layer::Narrow(v) => Big::from_u128(v[i]),
            Layer::Wide(v) => v[i],
        }
    }

    /// Entry `i` where it fits in 128 bits.
    #[inline]
    fn to_u128(&self, i: usize) -> Option<u128> {
        match self {
            Layer::Small(v) => Some(v[i] as u128),
            Layer::Narrow(v) => Some(v[i]),
            Layer::Wide(v) => v[i].to_u128(),
        }
    }

    /// The low 128 bits of entry `i` (exact when it is known to be below 2^128).
    #[inline]
    fn low_u128(&self, i: usize) -> u128 {
        match self {
            Layer::Small(v) => v[i] as u128,
            Layer::Narrow(v) => v[i],
            Layer::Wide(v) => v[i].low_u128(),
        }
    }

    /// The largest entry, where every entry fits in 128 bits.
    fn max_u128(&self) -> Option<u128> {
        match self {
            Layer::Small(v) => Some(v.iter().copied().max().unwrap_or(0) as u128),
            Layer::Narrow(v) => Some(v.iter().copied().max().unwrap_or(0)),
            Layer::Wide(_) => None,
        }
    }

    /// Bytes held.
    fn bytes(&self) -> usize {
        match self {
            Layer::Small(v) => v.len() * std::mem::size_of::<u64>(),
            Layer::Narrow(v) => v.len() * std::mem::size_of::<u128>(),
            Layer::Wide(v) => v.len() * std::mem::size_of::<Big>(),
        }
    }
}

/// A layer's box of states and band of rooms used: `(lo, hi, used_lo, used_hi)`.
type Band = ([u16; 4], [u16; 4], u16, u16);

/// The counting programme over bounded kinds.
#[derive(Clone, Debug)]
pub(super) struct Dp {
    /// (kind, allowed allocations over the holders with their weights c!/Π a!).
    kinds: Vec<(u8, Splits)>,
    /// Each split of `kinds` as a step of the walk (with the folded kinds after it), all
    /// kinds' in one list (one allocation): kind j's are `moves[move_at[j]..move_at[j + 1]]`.
    moves: Vec<Move>,
    move_at: Vec<usize>,
    /// Per kind with a layer, the layer read after it (the next kind not folded, or the last);
    /// 0 for a kind of one split of weight one placed by the split before it: no layer.
    next_layer: Vec<usize>,
    /// Radix of each state coordinate (holders but the last).
    dims: Vec<usize>,
    /// Where a layer keeps each state.
    pub(super) layout: Layout,
    /// `table[j][state]`: weighted completions of kinds j.. from that state (for j ≥ `from`;
    /// the layers before it are empty: the level table draws those kinds). The entries of
    /// states no walk reaches hold at most their completions (0 where there are none).
    table: Vec<Layer>,
    /// The first layer built.
    pub(super) from: usize,
    /// Per layer of `table`, the box and band whose rows hold all its nonzero entries where
    /// it is a kept buffer filled there alone (`layer_runs`, `wide_runs`, the last layer's
    /// fill): zeroed there when the programme is dropped, the buffer kept with its zeros
    /// (`give_back_zeroed`); `None`: kept empty.
    written: Vec<Option<Band>>,
    /// Cards still to place after kind j: remaining[j] = Σ_{i ≥ j} c_i + free.
    remaining: Vec<u16>,
    /// The unbounded cards, one entry per physical card.
    free: Vec<u8>,
    /// `after[j]`: the ladder checks (indices into `info.checks`) whose led class is complete
    /// once kind j is placed: a proposal failing one is rejected there, before the rest is
    /// drawn (R5.3; a check reads only its led class).
    after: Vec<Vec<usize>>,
    /// The checks of classes left partly to the shuffle: run on the whole proposal.
    late: Vec<usize>,
    /// The index of the kind before which the showings' timing is checked (right after the
    /// timed kinds; `kinds.len()`: at the end, after the shuffle, where no kind is timed).
    early_at: usize,
    /// `(b, layer)`: table b weighted per state by [`level_fit`] (the timed kinds are 0..b),
    /// read as the next layer by kind b − 1's draw; table b itself stays unweighted.
    boundary: Option<(usize, Layer)>,
    /// The kinds only one holder's bounds restrict, counted by the last layer and dealt with
    /// the free cards (`pool.rs`): not in `kinds`.
    pub(super) pool: Option<Pool>,
}

impl Determinizer {
    pub(super) fn build_dp(&self) -> Result<Dp, Error> {
        self.build_dp_from(false)
    }

    /// The counting programme; with `lazy`, where the level table will draw the level kinds
    /// (they come first), without the layers before them: only the table reads those (and
    /// [`Determinizer::build_dp`] builds them where it is not built, `Dp::from`).
    pub(super) fn build_dp_from(&self, lazy: bool) -> Result<Dp, Error> {
        self.build_dp_over(lazy, None)
    }

    /// [`Determinizer::build_dp_from`], taking the layers `kept` holds from a lazy build of
    /// this programme (the same counts in every layer it built, `Dp::layers_match`) as they
    /// are: only the layers before its `from` are built (where its level table was refused).
    pub(super) fn build_dp_over(&self, lazy: bool, kept: Option<Dp>) -> Result<Dp, Error> {
        let mut kept = kept.filter(|k| k.from > 0);
        let hs = &self.holders;
        let nh = hs.len();
        // (each list at its full length at once: no growing)
        let mut kinds: Vec<(u8, Splits)> = Vec::with_capacity(KINDS);
        let mut free = Vec::with_capacity(self.info.unseen.iter().map(|&c| c as usize).sum());
        // Order: the timed kinds, then every kind of each checked class (bounded or not, so
        // that its checks run as soon as the class is placed), then the other bounded kinds.
        // Any order counts the same deals; this one rejects early. A checked class with many
        // unbounded kinds stays with the shuffle (each such kind would cost the programme up
        // to 35 splits per state) and its checks run on the whole proposal. Without a hidden
        // run's boundary layer (it reads a seat's level cards off its room, so the timed kinds
        // must come first), the checked classes without a timed kind (the side suits) come
        // first of all: their checks then reject before the timing is drawn
        let checked = self.checked_classes();
        // (sets of kinds as bits, kind k at bit k: no searches of short lists)
        let mask = |ks: &mut dyn Iterator<Item = u8>| ks.fold(0u64, |m, k| m | 1 << k);
        let timed = mask(&mut self.timed.iter().copied());
        let bounded = |k: usize| timed >> k & 1 == 1 || hs.iter().any(|h| h.lo[k] > 0 || h.hi[k] < self.info.unseen[k]);
        // (checks come from tricks: the trump is public whenever there is one)
        let ctx = (!checked.is_empty()).then(|| self.info.ctx());
        let whole: Vec<u8> = match ctx {
            Some(ctx) => {
                let unbounded = |cl: u8| ctx.class_kinds(cl).iter().filter(|&&k| self.info.unseen[k as usize] > 0 && !bounded(k as usize)).count();
                checked.iter().copied().filter(|&cl| unbounded(cl) <= WHOLE_CLASS_UNBOUNDED).collect()
            }
            None => Vec::new(),
        };
        let class_kinds = |cl: u8| ctx.map_or(&[][..], |ctx| ctx.class_kinds(cl));
        let in_checked: Vec<u8> = whole.iter().flat_map(|&cl| class_kinds(cl).iter().copied()).collect();
        let checked_kinds = mask(&mut in_checked.iter().copied());
        // (and only where the timing cannot reject: every other seat's run is the revealed
        // one, placed among the fitting placements; a hidden run's suit may fit no placement,
        // and those rejections are better found before the side suits are drawn)
        let hidden_run = self.info.runs.iter().enumerate().any(|(ri, r)| r.seat != self.info.seat && !(self.revealed.is_some() && ri + 1 == self.info.runs.len()));
        let first: Vec<u8> = if self.level_fit.is_some() || hidden_run {
            Vec::new()
        } else {
            whole.iter().filter(|&&cl| !class_kinds(cl).iter().any(|&k| timed >> k & 1 == 1)).flat_map(|&cl| class_kinds(cl).iter().copied()).collect()
        };
        // (with who was asked as evidence the level kinds come first of all: the level table
        // draws them whole, `levels.rs`)
        let first = if self.turns.is_some() { Vec::new() } else { first };
        // (each kind once, at its first place: a mask of the kinds placed, no search; on the
        // stack)
        let (mut order, mut n_order, mut placed) = ([0usize; KINDS], 0, [false; KINDS]);
        for k in first.iter().chain(&self.timed).chain(&in_checked).map(|&k| k as usize).chain(0..KINDS) {
            if !std::mem::replace(&mut placed[k], true) {
                (order[n_order], n_order) = (k, n_order + 1);
            }
        }
        // (the kinds of the same copies and bounds have the same splits: each listed once,
        // then copied; `(copies, lo, hi, index in kinds)`, of kinds whose weights are the
        // splits' own; on the stack, with how many)
        type Seen = ([(u8, [u8; 4], [u8; 4], usize); KINDS], usize);
        let mut seen: Seen = ([(0, [0; 4], [0; 4], 0); KINDS], 0);
        let bounds = |k: usize| {
            let (mut lo, mut hi) = ([0u8; 4], [0u8; 4]);
            for (h, x) in hs.iter().enumerate() {
                (lo[h], hi[h]) = (x.lo[k], x.hi[k]);
            }
            (lo, hi)
        };
        // (kind k's splits, to be kinds[at]'s)
        let splits_of = |k: usize, at: usize, seen: &mut Seen, kinds: &[(u8, Splits)], weighted: bool| {
            let (c, (lo, hi)) = (self.info.unseen[k], bounds(k));
            match seen.0[..seen.1].iter().find(|x| (x.0, x.1, x.2) == (c, lo, hi)) {
                Some(x) => kinds[x.3].1.clone(),
                None => {
                    if !weighted {
                        (seen.0[seen.1], seen.1) = ((c, lo, hi, at), seen.1 + 1);
                    }
                    splits(c, &lo[..nh], &hi[..nh])
                }
            }
        };
        // a kind only one holder's bounds restrict may go to the pool (`pool_of`): its splits
        // are made only if it does not (`cand`: that holder, else 4; `saved`: per holder, the
        // splits its pool would save)
        let (mut cand, mut saved) = ([4u8; KINDS], [0usize; 4]);
        for &k in &order[..n_order] {
            let c = self.info.unseen[k];
            if c == 0 {
                continue;
            }
            if !bounded(k) && checked_kinds >> k & 1 == 0 {
                free.extend(std::iter::repeat_n(k as u8, c as usize));
                continue;
            }
            let weighted = self.revealed.as_ref().is_some_and(|r| r.kind as usize == k) || (k == SJ.id() && !self.jokers.is_empty());
            if let Some((h, n)) = self.pool_candidate(k, checked_kinds | timed, weighted) {
                (cand[kinds.len()], saved[h]) = (h as u8, saved[h] + n);
                kinds.push((k as u8, no_splits()));
                continue;
            }
            let mut allocs = splits_of(k, kinds.len(), &mut seen, &kinds, weighted);
            if let Some(r) = self.revealed.as_ref().filter(|r| r.kind as usize == k) {
                // R8.2: the revealed showings' timing, exactly: weight each split by the share of
                // the declarer's placements of its copies that fit them (scaled to integers)
                let allocs = std::sync::Arc::make_mut(&mut allocs);
                for (a, w) in allocs.iter_mut() {
                    *w *= r.fit[(a[r.holder] + r.played) as usize];
                }
                allocs.retain(|(_, w)| *w > 0);
            }
            if k == SJ.id() && !self.jokers.is_empty() {
                // C9: each weighted shower's small jokers, by the share of their placements
                // that put one before its first showing
                let allocs = std::sync::Arc::make_mut(&mut allocs);
                for (a, w) in allocs.iter_mut() {
                    for j in &self.jokers {
                        *w *= j.fit[(a[j.holder] + j.played) as usize];
                    }
                }
                allocs.retain(|(_, w)| *w > 0);
            }
            if allocs.is_empty() {
                return Err(Error::NoWorld("no world is consistent with this information set".into()));
            }
            kinds.push((k as u8, allocs));
        }
        let pool = self.pool_of(&kinds, &cand, &saved, free.len() as u16);
        // the candidates left out of the pool take their splits now, the pool's leave `kinds`
        let holder = pool.as_ref().map_or(4, |p| p.holder as u8);
        for j in 0..kinds.len() {
            if cand[j] < 4 && cand[j] != holder {
                kinds[j].1 = splits_of(kinds[j].0 as usize, j, &mut seen, &kinds, false);
            }
        }
        if pool.is_some() {
            let mut j = 0;
            kinds.retain(|_| {
                j += 1;
                cand[j - 1] != holder
            });
        }
        // (the kinds dealt with the shuffle at the end: free or pooled)
        let shuffled = mask(&mut free.iter().copied()) | pool.as_ref().map_or(0, |p| mask(&mut p.kinds.iter().map(|x| x.0)));
        // each check runs after the last placed kind of its class (at once if none is unseen:
        // then the hand is known in that class, and the check is decided here)
        let mut after = vec![Vec::new(); kinds.len()];
        let mut late = Vec::new();
        for (ci, c) in self.live.iter().map(|&ci| (ci, &self.info.checks[ci])) {
            let class = mask(&mut self.info.ctx().class_kinds(c.lead.class).iter().copied());
            if class & shuffled != 0 {
                late.push(ci);
                continue;
            }
            match kinds.iter().rposition(|&(k, _)| class >> k & 1 == 1) {
                Some(j) => after[j].push(ci),
                None => {
                    if !self.info.passes_check(c, &[0; KINDS]) {
                        return Err(Error::NoWorld("no world is consistent with this information set".into()));
                    }
                }
            }
        }
        let dims: Vec<usize> = hs[..nh - 1].iter().map(|h| h.size as usize + 1).collect();
        let nd = dims.len();
        let j_max = kinds.len();
        // the hidden run's weight applies once its seat's level cards are all placed: after the
        // timed kinds, which come first
        let n_timed = self.timed.iter().filter(|&&k| self.info.unseen[k as usize] > 0).count();
        let first = mask(&mut first.iter().copied());
        let placed_first = kinds.iter().filter(|&&(k, _)| first >> k & 1 == 1).count();
        let early_at = if n_timed == 0 { j_max } else { placed_first + n_timed };
        // (with a hidden run's fit nothing comes before the timed kinds: they are 0..n_timed)
        let fit = self.level_fit.as_ref().filter(|_| n_timed > 0);
        // (the conditions of `dp_levels`, where the chains condition the worlds and no table
        // was refused yet)
        let (level_kinds, n_level) = self.level_kinds_listed();
        let level_kinds = &level_kinds[..n_level];
        // A kind of one split of weight one (e.g. every copy with the one holder not void in it)
        // takes no layer: the split before it carries its cards (in its move's offset and
        // rooms), and the draw places it without a draw (it drew none: the same draws). Not the
        // first kind, nor the level kinds or the one after them (the level table reads that
        // layer), nor with a hidden run's boundary layer.
        let folded = |j: usize| j > n_level && fit.is_none() && kinds[j].1.len() == 1 && kinds[j].1[0].1 == 1;
        // per kind with a layer: the layer read after it, and the folded kinds' cards before
        // that (a folded kind's: 0, no layer)
        let (mut next_layer, mut shift) = (vec![j_max; j_max], [[0u8; 4]; KINDS]);
        let (mut l, mut sh) = (j_max, [0u8; 4]);
        for j in (0..j_max).rev() {
            (next_layer[j], shift[j]) = (l, sh);
            if folded(j) {
                next_layer[j] = 0;
                for (x, &y) in sh.iter_mut().zip(&kinds[j].1[0].0) {
                    *x += y;
                }
            } else {
                (l, sh) = (j, [0; 4]);
            }
        }
        // (with zeros below each coordinate, the most cards a move gives one of those holders,
        // where the last layer fits in 128 bits: the layers at full width take no zeros)
        let f = free.len() as u16;
        let in_pool = pool.as_ref().map_or(0, |p| p.copies);
        // (each count of the last layer at most nh^(f + the pool's copies))
        let cap = (nh as u128).checked_pow((f + in_pool) as u32);
        let pad = match cap {
            Some(_) if !no_pads() => kinds.iter().zip(&shift).flat_map(|((_, sp), sh)| sp.iter().map(move |(a, _)| (0..nd).map(|d| a[d] + sh[d]).max().unwrap_or(0))).max().unwrap_or(0) as usize,
            _ => 0,
        };
        let layout = Layout::new(&dims, pad);
        let len = layout.len;
        let mut move_at = Vec::with_capacity(j_max + 1);
        let mut all_moves = Vec::with_capacity(kinds.iter().map(|(_, sp)| sp.len()).sum());
        for ((_, sp), sh) in kinds.iter().zip(&shift) {
            move_at.push(all_moves.len());
            all_moves.extend(sp.iter().map(|(a, _)| Move::of(&layout, nd, &std::array::from_fn(|h| a[h] + sh[h]))));
        }
        move_at.push(all_moves.len());
        let moves = |j: usize| &all_moves[move_at[j]..move_at[j + 1]];
        let mut remaining = vec![free.len() as u16 + in_pool; j_max + 1];
        for j in (0..j_max).rev() {
            remaining[j] = remaining[j + 1] + self.info.unseen[kinds[j].0 as usize] as u16;
        }
        // Only states the walk can reach are counted: before kind j, the holders but the last
        // have taken at most the copies of kinds 0..j, T_j in all (the others stay zero, never
        // read). They lie in the box size − T_j ..= size per holder, walked without division.
        let mut sizes = [0u16; 4];
        for (x, h) in sizes.iter_mut().zip(&hs[..nh - 1]) {
            *x = h.size;
        }
        let sizes = &sizes[..nh - 1];
        let start: u16 = sizes.iter().sum();
        let taken_max = |j: usize| remaining[0] - remaining[j];
        let reachable = |j: usize, f: &mut dyn FnMut(usize, &[u16; 4])| {
            let t = taken_max(j);
            let lo: Vec<u16> = sizes.iter().map(|&x| x.saturating_sub(t)).collect();
            for_box(&dims, &layout, &lo, &sizes, &mut |i, s| {
                let used: u16 = s[..nh - 1].iter().sum();
                if start - used <= t && used <= remaining[j] {
                    f(i, s);
                }
            });
        };
        // A tighter box per layer, holder by holder: before kind j a holder has taken between
        // Σ lo and Σ min(hi, c) of the kinds before j (else the state is not reached), and its
        // room is between Σ lo and Σ min(hi, c) + f of the kinds from j on (else it cannot be
        // filled: its count is 0, and so is the box's outside). The last holder's room bounds
        // the cards the others have room for. `None`: no state.
        // (on the stack: at most one kind a layer, KINDS + 1 bounds each, no allocation)
        let (mut took_lo, mut took_hi) = ([[0u16; 4]; KINDS + 1], [[0u16; 4]; KINDS + 1]);
        let (mut rest_lo, mut rest_hi) = ([[0u16; 4]; KINDS + 1], [[f + in_pool; 4]; KINDS + 1]);
        if let Some(p) = &pool {
            // (the pool's holder takes lo ..= hi of each of its kinds)
            rest_lo[j_max][p.holder] = p.kinds.iter().map(|x| x.2 as u16).sum();
            rest_hi[j_max][p.holder] = f + p.kinds.iter().map(|x| x.3 as u16).sum::<u16>();
        }
        for (j, &(k, _)) in kinds.iter().enumerate() {
            for (h, x) in hs.iter().enumerate() {
                took_lo[j + 1][h] = took_lo[j][h] + x.lo[k as usize] as u16;
                took_hi[j + 1][h] = took_hi[j][h] + x.hi[k as usize].min(self.info.unseen[k as usize]) as u16;
            }
        }
        for (j, &(k, _)) in kinds.iter().enumerate().rev() {
            for (h, x) in hs.iter().enumerate() {
                rest_lo[j][h] = rest_lo[j + 1][h] + x.lo[k as usize] as u16;
                rest_hi[j][h] = rest_hi[j + 1][h] + x.hi[k as usize].min(self.info.unseen[k as usize]) as u16;
            }
        }
        let tight = |j: usize| -> Option<([u16; 4], [u16; 4], u16, u16)> {
            let mut room = [(0u16, 0u16); 4];
            for (h, x) in hs.iter().enumerate() {
                let lo = x.size.saturating_sub(took_hi[j][h]).max(rest_lo[j][h]);
                let hi = x.size.checked_sub(took_lo[j][h])?.min(rest_hi[j][h]);
                if lo > hi {
                    return None;
                }
                room[h] = (lo, hi);
            }
            let t = taken_max(j);
            let (l_lo, l_hi) = room[nh - 1];
            let used_lo = start.saturating_sub(t).max(remaining[j].saturating_sub(l_hi));
            let used_hi = remaining[j].checked_sub(l_lo)?;
            (used_lo <= used_hi).then(|| (std::array::from_fn(|d| room[d].0), std::array::from_fn(|d| room[d].1), used_lo, used_hi))
        };
        // terminal: the free cards fill the remaining room exactly, in every way (in 128 bits
        // where every count fits, else at full width)
        let mut table: Vec<Layer> = Vec::with_capacity(j_max + 1);
        // (per layer pushed, its rows where a kept buffer's entries may be nonzero)
        let mut written: Vec<Option<Band>> = Vec::with_capacity(j_max + 1);
        // (the bits of the last layer's widest count: the width of the next layer's sums)
        let mut bits = 128u32;
        // an upper bound of every count of the last narrow layer (`None`: not known), so that
        // a layer's arithmetic is known not to overflow without scanning the layer below
        let mut bound: Option<u128> = None;
        // (in 64 bits where every count fits)
        let small = cap.is_some_and(|c| c >> 64 == 0);
        if let Some(p) = &pool {
            // the pool's holder's ways times the others' multinomial (`Pool::count`), each at
            // most nh^(f + copies), which fits (`Pool::new`)
            let all = remaining[j_max];
            let (lo, hi, used_lo, used_hi) = tight(j_max).unwrap_or(([1; 4], [0; 4], 1, 0));
            let mut top = 0u128;
            let mut fill = |last: &mut dyn FnMut(usize, u16, u16, &[u16]) -> u128| {
                for_row_ranges(&dims, &layout, &lo, &hi, used_lo, used_hi.min(all), |base, rest_coords, row_lo, row_hi| {
                    top = top.max(last(base, row_lo, row_hi, rest_coords));
                });
            };
            if small {
                let mut last = zeroed::<u64>(len);
                fill(&mut |base, row_lo, row_hi, rest| p.fill_row(rest, all, row_lo, &mut last[base + row_lo as usize..=base + row_hi as usize]));
                table.push(Layer::Small(last));
            } else {
                let mut last = zeroed::<u128>(len);
                fill(&mut |base, row_lo, row_hi, rest| p.fill_row(rest, all, row_lo, &mut last[base + row_lo as usize..=base + row_hi as usize]));
                table.push(Layer::Narrow(last));
            }
            written.push(Some((lo, hi, used_lo, used_hi.min(all))));
            bound = Some(top);
        } else if cap.is_some() {
            // row by row (the first coordinate fastest): f! / (Π s! · (f − Σ s)!), the other
            // coordinates' part once a row, each count at most nh^f (no product overflows;
            // each binomial below it, read from the 128-bit table)
            let rows = binomial_rows_low();
            let mut top = 0u128;
            let (lo, hi, used_lo, used_hi) = tight(j_max).unwrap_or(([1; 4], [0; 4], 1, 0));
            let mut fill = |put: &mut dyn FnMut(usize, u128)| {
                for_row_ranges(&dims, &layout, &lo, &hi, used_lo, used_hi.min(f), |base, rest_coords, row_lo, row_hi| {
                    let mut left = f as usize;
                    let mut k = 1u128;
                    for &x in rest_coords {
                        k *= rows[left][x as usize];
                        left -= x as usize;
                    }
                    for (s0, b) in (row_lo as usize..=row_hi as usize).zip(&rows[left][row_lo as usize..]) {
                        let c = k * b;
                        put(base + s0, c);
                        top = top.max(c);
                    }
                });
            };
            if small {
                let mut last = zeroed::<u64>(len);
                fill(&mut |i, c| last[i] = c as u64);
                table.push(Layer::Small(last));
            } else {
                let mut last = zeroed::<u128>(len);
                fill(&mut |i, c| last[i] = c);
                table.push(Layer::Narrow(last));
            }
            written.push(Some((lo, hi, used_lo, used_hi.min(f))));
            bound = Some(top);
        } else {
            // row by row over the tight box, as in 128 bits: the other coordinates' part
            // once a row, then one product a state
            let mut last = zeroed::<Big>(len);
            bits = 0;
            let rows = binomial_rows();
            let (lo, hi, used_lo, used_hi) = tight(j_max).unwrap_or(([1; 4], [0; 4], 1, 0));
            for_row_ranges(&dims, &layout, &lo, &hi, used_lo, used_hi.min(f), |base, rest_coords, row_lo, row_hi| {
                let mut left = f as usize;
                let mut k = Big::ONE;
                for &x in rest_coords {
                    k = k.mul(&rows[left][x as usize]);
                    left -= x as usize;
                }
                // (C(left, s0) < 2^left: at most ⌈left / 64⌉ limbs)
                let (na, nb) = (k.limbs(), left.div_ceil(64).max(1));
                for (s0, b) in (row_lo as usize..=row_hi as usize).zip(&rows[left][row_lo as usize..]) {
                    let w = if na + nb <= Big::LIMBS { k.mul_limbs(b, na, nb) } else { k.mul(b) };
                    bits = bits.max(w.bits());
                    last[base + s0] = w;
                }
            });
            // (narrowed where every count fits in 128 bits: known from the widest)
            table.push(if bits > 128 { Layer::Wide(last) } else { Layer::from_wide(last) });
            written.push((bits > 128).then_some((lo, hi, used_lo, used_hi.min(f))));
        }
        let skip = lazy
            && self.levels.is_none()
            && self.turns.as_ref().is_some_and(|t| t.conditions())
            && fit.is_none()
            && n_level <= early_at
            && kinds[..n_level].iter().all(|(k, _)| level_kinds.contains(k));
        let from = if skip { n_level } else { 0 };
        let mut boundary: Option<(usize, Layer)> = None;
        for j in (from..j_max).rev() {
            if next_layer[j] == 0 {
                // (never read)
                table.push(Layer::Narrow(Vec::new()));
                written.push(None);
                continue;
            }
            if let Some(lf) = fit.filter(|_| j + 1 == n_timed) {
                let layer = table.last().expect("layer n_timed");
                let t = taken_max(n_timed);
                let mut cur = vec![Big::ZERO; len];
                let mut wide = 0;
                reachable(n_timed, &mut |i, s| {
                    let took: u16 = sizes.iter().zip(s).map(|(&z, &x)| z - x).sum();
                    let m = if lf.holder < nh - 1 { sizes[lf.holder] - s[lf.holder] } else { t - took };
                    let v = layer.get(i).mul_u128(lf.fit[m as usize + lf.played as usize]);
                    wide = wide.max(v.bits());
                    cur[i] = v;
                });
                bits = wide;
                bound = None;
                boundary = Some((n_timed, Layer::from_wide(cur)));
            }
            // (a layer the kept build holds, taken as it is)
            let mut reuse = kept.as_mut().filter(|k| j >= k.from).map(|k| std::mem::replace(&mut k.table[j], Layer::Narrow(Vec::new())));
            // (the table is pushed from the last layer on)
            let next = match &boundary {
                Some((b, layer)) if *b == j + 1 => layer,
                _ => &table[j_max - next_layer[j]],
            };
            // in 64 or 128 bits while every count fits (checked; a layer that overflows is
            // redone at full width)
            let (splits, moves, rem) = (&kinds[j].1, moves(j), remaining[next_layer[j]]);
            // (the rows `layer_runs` wrote into a kept buffer)
            let mut band = None;
            let narrow = if matches!(next, Layer::Wide(_)) {
                None
            } else {
                // no term and no sum overflows when the largest entry of `next` times the
                // weights' sum fits: then plain arithmetic is exact, else every step is
                // checked (the bound carried from the layers below first, the layer's
                // largest entry where that bound is too loose)
                let ws = splits.iter().try_fold(0u128, |acc, (_, w)| acc.checked_add(*w));
                let fits = |m: u128| ws.and_then(|ws| m.checked_mul(ws));
                let safe = bound.and_then(fits).or_else(|| next.max_u128().and_then(fits));
                bound = safe;
                match safe {
                    Some(b) => {
                        let (lo, hi, used_lo, used_hi) = tight(j).unwrap_or(([1; 4], [0; 4], 1, 0));
                        // every entry and partial sum below `b`: in 64 bits where that fits
                        // (but the layer the level table reads, in 128)
                        // (the layer's runs over the narrow layer below, in either width)
                        macro_rules! runs_into {
                            ($cur:expr) => {
                                match next {
                                    Layer::Small(next) => layer_runs(&dims, &layout, &lo, &hi, used_lo, used_hi, splits, moves, rem, $cur, next),
                                    Layer::Narrow(next) => layer_runs(&dims, &layout, &lo, &hi, used_lo, used_hi, splits, moves, rem, $cur, next),
                                    Layer::Wide(_) => unreachable!("a narrow layer below"),
                                }
                            };
                        }
                        if let Some(layer) = reuse {
                            Some(layer)
                        } else if b >> 64 == 0 && !(n_level > 0 && j == n_level) {
                            let mut cur = zeroed::<u64>(len);
                            runs_into!(&mut cur);
                            band = Some((lo, hi, used_lo, used_hi));
                            Some(Layer::Small(cur))
                        } else {
                            let mut cur = zeroed::<u128>(len);
                            runs_into!(&mut cur);
                            band = Some((lo, hi, used_lo, used_hi));
                            Some(Layer::Narrow(cur))
                        }
                    }
                    // (a kept layer that fit 128 bits; one at full width is built again)
                    None if reuse.as_ref().is_some_and(|l| !matches!(l, Layer::Wide(_))) => reuse.take(),
                    None => {
                        let mut cur = vec![0u128; len];
                        let mut fits = true;
                        reachable(j, &mut |i, s| {
                            if !fits {
                                return;
                            }
                            let used: u16 = s[..nd].iter().sum();
                            let mut acc = 0u128;
                            for (m, (_, w)) in moves.iter().zip(splits.iter()) {
                                let Some(ni) = m.next(nd, s, i, used, rem) else { continue };
                                match next.low_u128(ni).checked_mul(*w).and_then(|v| acc.checked_add(v)) {
                                    Some(v) => acc = v,
                                    None => {
                                        fits = false;
                                        return;
                                    }
                                }
                            }
                            cur[i] = acc;
                        });
                        fits.then_some(Layer::Narrow(cur))
                    }
                }
            };
            if let Some(cur) = narrow {
                bits = 128;
                table.push(cur);
                written.push(band);
                continue;
            }
            bound = None;
            let mut cur = zeroed::<Big>(len);
            // every sum is below the widest cell of `next` times the weights' sum: the
            // arithmetic runs in the limbs of that bound (weights beyond 64 bits, the revealed
            // run's, take the full width)
            let small = kinds[j].1.iter().all(|(_, w)| *w >> 64 == 0);
            let n = if small {
                // (at most 35 weights below 2^64 each: the sum fits)
                let sum_bits = 128 - kinds[j].1.iter().map(|(_, w)| *w).sum::<u128>().leading_zeros();
                (bits + sum_bits).div_ceil(64).clamp(2, 8) as usize
            } else {
                8
            };
            // (the tight box's states, as in 64 and 128 bits: the others are never reached or
            // count 0)
            let (lo, hi, used_lo, used_hi) = tight(j).unwrap_or(([1; 4], [0; 4], 1, 0));
            let rem = remaining[next_layer[j]];
            let wide = if small {
                // split by split over the runs where each fits, in a constant width
                macro_rules! in_limbs {
                    ($($n:literal)*) => {
                        match n {
                            $($n => wide_runs::<$n>(&dims, &layout, (lo, hi, used_lo, used_hi), splits, moves, rem, &mut cur, next),)*
                            _ => unreachable!("2 to 8 limbs"),
                        }
                    };
                }
                in_limbs!(2 3 4 5 6 7 8)
            } else {
                let mut wide = 0;
                let mut s = [0u16; 4];
                for_row_ranges(&dims, &layout, &lo, &hi, used_lo, used_hi, |base, rest_coords, row_lo, row_hi| {
                    s[1..nd].copy_from_slice(rest_coords);
                    let others: u16 = rest_coords.iter().sum();
                    for s0 in row_lo..=row_hi {
                        s[0] = s0;
                        let i = base + s0 as usize;
                        let mut acc = Big::ZERO;
                        for (m, (_, w)) in moves.iter().zip(splits.iter()) {
                            let Some(ni) = m.next(nd, &s, i, others + s0, rem) else { continue };
                            let v = next.get(ni);
                            if !v.is_zero() {
                                acc = acc.add(&v.mul_u128(*w));
                            }
                        }
                        wide = wide.max(acc.bits());
                        cur[i] = acc;
                    }
                });
                wide
            };
            bits = wide;
            table.push(Layer::Wide(cur));
            written.push(Some((lo, hi, used_lo, used_hi)));
        }
        // (the layers before `from`, never read: empty)
        debug_assert_eq!(written.len(), table.len(), "a band per layer pushed");
        table.extend((0..from).map(|_| Layer::Narrow(Vec::new())));
        written.resize(table.len(), None);
        table.reverse();
        written.reverse();
        Ok(Dp { kinds, moves: all_moves, move_at, next_layer, dims, layout, from, table, written, remaining, free, after, late, early_at, boundary, pool })
    }

    /// Draws from the counting programme; after the timed kinds, `early` may reject.
    pub(super) fn propose_dp(
        &self,
        dp: &Dp,
        memo: &mut CheckMemo,
        rng: &mut Rng,
        early: &mut dyn FnMut(&[Counts], &mut Rng) -> bool,
        levels: Option<&LevelTable>,
    ) -> Option<Vec<Counts>> {
        let nh = self.holders.len();
        let (mut s, mut i) = dp.start(&self.holders);
        let mut out = vec![[0u8; KINDS]; nh];
        let mut from = 0;
        if let Some(table) = levels {
            // the timed kinds' splits as one path of the level table (drawn with the turn
            // chains' envelopes; `early` accepts within them)
            let path = table.sample(rng, &|r: &[u16; 4]| dp.completions(table.kinds().len(), r));
            for (j, &x) in path.iter().enumerate() {
                let k = dp.kinds[j].0 as usize;
                let a = table.split(j, x);
                for h in 0..nh {
                    out[h][k] += a[h];
                }
                (s, i) = dp.step(j, x as usize, &s, i).expect("a path's splits fit");
                for &ci in &dp.after[j] {
                    if !memo.passes(&self.info, ci, &out[self.check_holder[ci]]) {
                        return None;
                    }
                }
            }
            from = path.len();
        }
        for (j, (k, allocs)) in dp.kinds.iter().enumerate().skip(from) {
            if j == dp.early_at && !early(&out, rng) {
                return None;
            }
            if dp.folded(j) {
                // (its cards already off the rooms, by the split before it)
                for h in 0..nh {
                    out[h][*k as usize] += allocs[0].0[h];
                }
            } else {
                let (x, ni, m) = dp.pick(j, i, &s, rng);
                let a = &allocs[x].0;
                for h in 0..nh {
                    out[h][*k as usize] += a[h];
                    if h + 1 < nh {
                        s[h] -= m[h] as u16;
                    }
                }
                i = ni;
            }
            for &ci in &dp.after[j] {
                if !memo.passes(&self.info, ci, &out[self.check_holder[ci]]) {
                    return None;
                }
            }
        }
        let placed: u16 = s[..nh - 1].iter().sum();
        // (the rooms and the free cards' copy on the stack: no allocation per proposal)
        let mut room = [0u16; 4];
        room[..nh - 1].copy_from_slice(&s[..nh - 1]);
        room[nh - 1] = dp.remaining[dp.kinds.len()] - placed;
        if let Some(p) = &dp.pool {
            p.deal(&dp.free, &mut room[..nh], &mut out, rng);
        } else {
            let mut buf = [0u8; DECK];
            let cards = &mut buf[..dp.free.len()];
            cards.copy_from_slice(&dp.free);
            Self::deal_free(cards, &room[..nh], &mut out, rng);
        }
        if dp.late.iter().any(|&ci| !memo.passes(&self.info, ci, &out[self.check_holder[ci]])) {
            return None;
        }
        if dp.early_at == dp.kinds.len() && !early(&out, rng) {
            return None;
        }
        Some(out)
    }

    /// Bytes held by the counting programme's tables, the turn chains and the level table (0
    /// until built):
    /// what keeping this determinizer for later calls costs.
    pub fn table_bytes(&self) -> usize {
        let dp = self.dp.as_ref().map_or(0, |dp| dp.table.iter().chain(dp.boundary.as_ref().map(|b| &b.1)).map(Layer::bytes).sum());
        let turns = self.turns.as_ref().map_or(0, Turns::bytes);
        dp + turns + self.levels.as_ref().and_then(|l| l.as_ref()).map_or(0, LevelTable::bytes)
    }

    /// The level table over the programme's level kinds (`None`: too many paths, or the
    /// level kinds are not the programme's first).
    pub(super) fn dp_levels(&self, dp: &Dp, envelope: &impl Fn(usize, u16) -> u32, valid: Vec<&[u16]>) -> Option<LevelTable> {
        // the level kinds with unseen copies come first (then C9's small joker, which no chain
        // counts, drawn by the programme as before), all before the chains accept; no hidden
        // run's boundary layer
        let (kinds, n) = self.level_kinds_listed();
        let kinds = &kinds[..n];
        if n > dp.early_at || !dp.kinds[..n].iter().all(|(k, _)| kinds.contains(k)) || dp.boundary.is_some() {
            return None;
        }
        match &dp.table[n] {
            // (a layer in 128 bits read in place at every path's end: `Dp::completions`
            // without its choice of width)
            Layer::Narrow(layer) => {
                // (from the state of all rooms 0 on: an index linear in the rooms)
                let (st, layer) = (dp.layout.strides, &layer[dp.layout.base..]);
                let end = move |r: &[u16; 4]| Ok(layer[r[0] as usize * st[0] + r[1] as usize * st[1] + r[2] as usize * st[2] + r[3] as usize * st[3]]);
                self.dp_levels_with(dp, n, &end, Some((layer, st)), envelope, valid)
            }
            Layer::Small(_) | Layer::Wide(_) => self.dp_levels_with(dp, n, &|rooms: &[u16; 4]| dp.completions(n, rooms), None, envelope, valid),
        }
    }

    /// [`Determinizer::dp_levels`] with the completions after the level kinds read by `end`.
    fn dp_levels_with<E: Fn(&[u16; 4]) -> Result<u128, Big>>(&self, dp: &Dp, n: usize, end: &E, linear: Option<(&[u128], [usize; 4])>, envelope: &impl Fn(usize, u16) -> u32, valid: Vec<&[u16]>) -> Option<LevelTable> {
        let memos = self.level_memos();
        let mut rooms = [0u16; 4];
        for (r, h) in rooms.iter_mut().zip(&self.holders) {
            *r = h.size;
        }
        let walk = Walk {
            splits: dp.kinds[..n].iter().map(|(_, sp)| sp).collect(),
            kinds: dp.kinds[..n].iter().map(|&(k, _)| k).collect(),
            holders: self.level_holders(),
            rooms,
            end,
            linear,
            envelope,
            valid,
            memos,
            tables: self.level_envelope_tables(),
        };
        LevelTable::build(&walk)
    }

    /// The twin of [`Determinizer::dp_levels`]: the plain walk ([`super::levels::plain_table`])
    /// stepped by the programme's own step from its start state, weighed by its table.
    #[cfg(test)]
    pub(super) fn dp_levels_plain(&self, dp: &Dp, envelope: &dyn Fn(usize, u16) -> u32, valid: &[&[u16]]) -> Option<(Vec<u8>, Vec<Big>)> {
        let kinds = self.level_kinds();
        let n = kinds.len();
        if n > dp.early_at || !dp.kinds[..n].iter().all(|(k, _)| kinds.contains(k)) || dp.boundary.is_some() {
            return None;
        }
        let splits: Vec<&Splits> = dp.kinds[..n].iter().map(|(_, sp)| sp).collect();
        let kinds: Vec<u8> = dp.kinds[..n].iter().map(|&(k, _)| k).collect();
        let step = |j: usize, x: usize, s: &([u16; 4], usize)| dp.step(j, x, &s.0, s.1);
        let end = |s: &([u16; 4], usize)| dp.table[n].get(s.1);
        super::levels::plain_table(&splits, &kinds, &self.level_holders(), dp.start(&self.holders), &step, &end, envelope, valid)
    }

    /// Whether kind `k` may go to a [`Pool`] (`pool.rs`): only one holder's bounds restrict it
    /// (every other holder may take all its copies), and it is not a timed kind, nor a level kind
    /// where the turn chains condition the worlds (the level table reads them first), nor
    /// one whose weights carry a showing's (`weighted`, R8.2, C9), nor in `keep` (bit k: a
    /// timed kind, or a checked class's drawn whole: its checks run as soon as it is placed,
    /// R5.3). Then that holder and the number of the kind's splits, Σ over the holder's a of
    /// C(c − a + nh − 2, nh − 2).
    fn pool_candidate(&self, k: usize, keep: u64, weighted: bool) -> Option<(usize, usize)> {
        let (hs, c) = (&self.holders, self.info.unseen[k]);
        let level = self.turns.is_some() && (0..4).any(|s| Card::new(s, self.info.level).id() == k);
        if !self.pooling || hs.len() < 2 || weighted || level || keep >> k & 1 == 1 {
            return None;
        }
        let mut by = hs.iter().enumerate().filter(|(_, x)| x.lo[k] > 0 || x.hi[k] < c).map(|(h, _)| h);
        let (Some(h), None) = (by.next(), by.next()) else { return None };
        let (lo, hi) = (hs[h].lo[k], hs[h].hi[k].min(c));
        // (no split: the programme's own path says there is no world)
        (lo <= hi).then(|| (h, (lo..=hi).map(|a| binomial_low((c - a) as usize + hs.len() - 2, hs.len() - 2) as usize).sum()))
    }

    /// The pool of the holder whose candidates (`cand`, per kind of `kinds`: its holder, else 4)
    /// save the most splits (`saved`), the first such holder on ties; `None` where no kind is a
    /// candidate or a count could pass 128 bits. The pool's kinds are drawn after the others, so
    /// this changes the order of the draws (not their law).
    fn pool_of(&self, kinds: &[(u8, Splits)], cand: &[u8; KINDS], saved: &[usize; 4], free: u16) -> Option<Pool> {
        let hs = &self.holders;
        let h = (0..hs.len()).rev().max_by_key(|&h| saved[h]).filter(|&h| saved[h] > 0)?;
        let mut taken = Vec::with_capacity(kinds.len());
        for (&(k, _), _) in kinds.iter().zip(cand).filter(|(_, &a)| a as usize == h) {
            let c = self.info.unseen[k as usize];
            taken.push((k, c, hs[h].lo[k as usize], hs[h].hi[k as usize].min(c)));
        }
        Pool::new(h, taken, free, hs.len())
    }

    /// The exact number of physical deals of the unseen cards that meet every per-kind bound
    /// (before the ladder checks), as a decimal string: for a hand from given hands. (A dealt
    /// hand's programme also carries the showings' weights, so its count is scaled by them.)
    pub fn bounded_deals(&mut self) -> Result<String, Error> {
        if self.dp.is_none() {
            self.dp = Some(self.build_dp()?);
        }
        let dp = self.dp.as_ref().expect("built");
        let mut s = [0u16; 4];
        let nh = self.holders.len();
        for (h, x) in self.holders[..nh - 1].iter().zip(s.iter_mut()) {
            *x = h.size;
        }
        Ok(dp.table[0].get(dp.layout.index(&s)).to_decimal())
    }

}


/// A programme's kept layer buffers go back zeroed where their entries lie (`written`), with
/// their zeros, so that the next programme's layers (a later info set's) zero only the
/// entries past them: the rows of a layer are a few tenths of its states.
impl Drop for Dp {
    fn drop(&mut self) {
        for (layer, band) in self.table.iter_mut().zip(&self.written) {
            let Some(band) = band else { continue };
            match layer {
                Layer::Small(v) => give_back_rows(std::mem::take(v), &self.dims, &self.layout, band),
                Layer::Narrow(v) => give_back_rows(std::mem::take(v), &self.dims, &self.layout, band),
                Layer::Wide(v) => give_back_rows(std::mem::take(v), &self.dims, &self.layout, band),
            }
        }
    }
}

/// Keeps a dropped layer's buffer `v` for later layers: a whole layer of `layout` with its
/// rows in `band` zeroed, kept with its zeros; any other (a layer taken by a later build
/// leaves an empty one) kept empty.
fn give_back_rows<T: Spare>(mut v: Vec<T>, dims: &[usize], layout: &Layout, band: &Band) {
    if v.len() != layout.len {
        return give_back(v);
    }
    let (lo, hi, used_lo, used_hi) = band;
    for_row_ranges(dims, layout, lo, hi, *used_lo, *used_hi, |base, _, row_lo, row_hi| {
        v[base + row_lo as usize..=base + row_hi as usize].fill(T::default());
    });
    give_back_zeroed(v);
}

impl Dp {
    /// Whether kind `j` is placed by the split before it (no layer of its own).
    #[inline]
    pub(super) fn folded(&self, j: usize) -> bool {
        self.next_layer[j] == 0
    }

    /// Whether every layer this programme built holds the same counts as `full`'s (the twin
    /// of a lazy build, [`Determinizer::build_dp_from`]).
    #[cfg(test)]
    pub(super) fn layers_match(&self, full: &Dp) -> bool {
        let built = |j: usize| j == self.kinds.len() || !self.folded(j);
        self.table.len() == full.table.len() && (self.from..self.table.len()).filter(|&j| built(j)).all(|j| (0..self.layout.len).all(|i| self.table[j].get(i) == full.table[j].get(i)))
    }

    /// The completions of kinds `j..` from the holders' rooms (all of them; the programme's
    /// state reads all but the last): in 128 bits where the table holds them so, else at full
    /// width.
    #[inline]
    pub(super) fn completions(&self, j: usize, rooms: &[u16; 4]) -> Result<u128, Big> {
        let i = self.layout.index(rooms);
        match &self.table[j] {
            Layer::Small(v) => Ok(v[i] as u128),
            Layer::Narrow(v) => Ok(v[i]),
            Layer::Wide(v) => v[i].to_u128().ok_or(v[i]),
        }
    }

    /// The state before the first kind: the rooms of the holders but the last, and its index.
    fn start(&self, holders: &[Holder]) -> ([u16; 4], usize) {
        let mut s = [0u16; 4];
        for (h, x) in holders[..holders.len() - 1].iter().zip(s.iter_mut()) {
            *x = h.size;
        }
        (s, self.layout.index(&s))
    }

    /// Kind `j`'s moves, one per split.
    fn moves(&self, j: usize) -> &[Move] {
        &self.moves[self.move_at[j]..self.move_at[j + 1]]
    }

    /// Kind `j`'s split `x` from state `i` (rooms `s`): the rooms and index after it, if it
    /// fits.
    fn step(&self, j: usize, x: usize, s: &[u16; 4], i: usize) -> Option<([u16; 4], usize)> {
        let nd = self.dims.len();
        let m = &self.moves(j)[x];
        let (a, used) = (&m.a, s[..nd].iter().sum());
        let ni = m.next(nd, s, i, used, self.remaining[self.next_layer[j]])?;
        let mut next = *s;
        for d in 0..nd {
            next[d] -= a[d] as u16;
        }
        Some((next, ni))
    }

    /// Kind `j`'s split from state `i` (remaining room `s`), drawn with probability
    /// w · N_{j+1}(next) / N_j(i), exactly: the index of the split and the next state. The
    /// arithmetic runs in the width of N_j(i), which bounds every term (u128 where it fits).
    /// Also the split's move's cards (its own and the folded kinds' after it).
    fn pick(&self, j: usize, i: usize, s: &[u16; 4], rng: &mut Rng) -> (usize, usize, [u8; 4]) {
        debug_assert!(j >= self.from, "layer {j} was not built");
        let allocs = &self.kinds[j].1;
        let next = match &self.boundary {
            Some((b, layer)) if *b == j + 1 => layer,
            _ => &self.table[self.next_layer[j]],
        };
        let (nd, moves, rem) = (self.dims.len(), self.moves(j), self.remaining[self.next_layer[j]]);
        let used: u16 = s[..nd].iter().sum();
        let feasible = |m: &Move| m.next(nd, s, i, used, rem);
        if allocs.len() == 1 {
            // one split (a forced kind, e.g. two seats void): probability 1, no draw
            return (0, feasible(&moves[0]).expect("a reachable state has a completion"), moves[0].a);
        }
        let narrow = self.table[j].to_u128(i);
        if let Some(t) = narrow {
            let mut r = rng.below(t);
            for (x, (m, (_, w))) in moves.iter().zip(allocs.iter()).enumerate() {
                let Some(ni) = feasible(m) else { continue };
                let v = next.low_u128(ni) * w; // ≤ t: no overflow
                if r < v {
                    return (x, ni, m.a);
                }
                r -= v;
            }
        } else {
            let total = self.table[j].get(i);
            let n = total.limbs();
            let mut r = total.below(rng);
            for (x, (m, (_, w))) in moves.iter().zip(allocs.iter()).enumerate() {
                let Some(ni) = feasible(m) else { continue };
                let v = match u64::try_from(*w) {
                    Ok(w) => next.get(ni).mul_small_within(w, n),
                    Err(_) => next.get(ni).mul_u128(*w),
                };
                if r.lt_within(&v, n) {
                    return (x, ni, m.a);
                }
                r.sub_within(&v, n);
            }
        }
        unreachable!("the splits' weights sum to the state's count")
    }
}

/// One layer of the counting programme: for every state of the box `lo ..= hi` with
/// `used_lo ..= used_hi` cards of room in all, Σ over the splits that fit there of
/// w · `next`[i − off], each bound to fit in `T` (every entry of `next` times the weights' sum).
/// Row by row (the first coordinate's run of states in the box), split by split: a split fits
/// from the states where each holder has room for its cards, one interval of the row, to
/// those where the last holder's room is within the cards still to come (`rem` after the
/// split). Each split's run is a plain multiply-add over two slices, in 64 bits where the
/// layer fits (one add for a weight of one: vectorised).
#[allow(clippy::too_many_arguments)]
#[inline(never)]
fn layer_runs<T: Entry, N: Copy + Into<u128>>(dims: &[usize], layout: &Layout, lo: &[u16; 4], hi: &[u16; 4], used_lo: u16, used_hi: u16, splits: &Splits, moves: &[Move], rem: u16, cur: &mut [T], next: &[N]) {
    // (each run's multiply-add: the same in every shape)
    let mut run = |start: usize, end: usize, m: &Move, w: u128| {
        // (every entry of `next` is 0 where the bound times this weight does not fit)
        if std::mem::size_of::<T>() != 8 || w >> 64 == 0 {
            rows_madd_weight(&[(start, end)], m.off, cur, next, w);
        }
    };
    if layout.pad > 0 {
        // every split over each row's states in the box and the band: where it does not fit
        // it reads a zero (a pad entry, or a state with more room than cards to come); split
        // by split over the rows, found once, where they are at most 64 (per state the
        // splits add in the same order)
        let (mut rows, mut n) = ([(0usize, 0usize); 64], 0);
        for_row_ranges(dims, layout, lo, hi, used_lo, used_hi, |base, _, row_lo, row_hi| {
            if n < rows.len() {
                rows[n] = (base + row_lo as usize, base + row_hi as usize);
            }
            n += 1;
        });
        if n <= rows.len() {
            let rows = &rows[..n];
            // (every entry of `next` is 0 where the bound times a weight does not fit: those
            // splits add nothing)
            let mut each = moves.iter().zip(splits.iter()).map(|(m, &(_, w))| (m.off, w)).filter(|&(_, w)| std::mem::size_of::<T>() != 8 || w >> 64 == 0).peekable();
            while let Some((off, w)) = each.next() {
                // (four splits of weights 1 or 2, the most frequent, in one run)
                let mut four = each.clone();
                if let (Some((o2, w2)), Some((o3, w3)), Some((o4, w4))) = (four.next(), four.next(), four.next()) {
                    macro_rules! quad {
                        ($($a:literal, $b:literal, $c:literal, $d:literal);*) => {
                            match (w, w2, w3, w4) {
                                $(($a, $b, $c, $d) => Some(rows_madd4::<T, N, $a, $b, $c, $d>(rows, [off, o2, o3, o4], cur, next)),)*
                                _ => None,
                            }
                        };
                    }
                    if quad!(1, 1, 1, 1; 1, 1, 1, 2; 1, 1, 2, 1; 1, 1, 2, 2; 1, 2, 1, 1; 1, 2, 1, 2; 1, 2, 2, 1; 1, 2, 2, 2; 2, 1, 1, 1; 2, 1, 1, 2; 2, 1, 2, 1; 2, 1, 2, 2; 2, 2, 1, 1; 2, 2, 1, 2; 2, 2, 2, 1; 2, 2, 2, 2).is_some() {
                        each = four;
                        continue;
                    }
                }
                // two splits of weights 1, 2, 3, 4, 6 or 12 in one run (per-run costs dwarf a short
                // row's adds; a state's sum the same in any order: exact integers, every
                // partial sum within the bound)
                if let Some(&(off2, w2)) = each.peek() {
                    macro_rules! pair {
                        ($($a:literal, $b:literal);*) => {
                            match (w, w2) {
                                $(($a, $b) => Some(rows_madd2::<T, N, $a, $b>(rows, off, off2, cur, next)),)*
                                _ => None,
                            }
                        };
                    }
                    if pair!(1, 1; 1, 2; 1, 3; 1, 4; 1, 6; 1, 12; 2, 1; 2, 2; 2, 3; 2, 4; 2, 6; 2, 12; 3, 1; 3, 2; 3, 3; 3, 4; 3, 6; 3, 12; 4, 1; 4, 2; 4, 3; 4, 4; 4, 6; 4, 12; 6, 1; 6, 2; 6, 3; 6, 4; 6, 6; 6, 12; 12, 1; 12, 2; 12, 3; 12, 4; 12, 6; 12, 12).is_some() {
                        each.next();
                        continue;
                    }
                }
                rows_madd_weight(rows, off, cur, &next[..cur.len() - off], w);
            }
            return;
        }
        for_row_ranges(dims, layout, lo, hi, used_lo, used_hi, |base, _, row_lo, row_hi| {
            for (m, &(_, w)) in moves.iter().zip(splits.iter()) {
                run(base + row_lo as usize, base + row_hi as usize, m, w);
            }
        });
        return;
    }
    let nd = dims.len();
    if nd == 2 && hi[1] - lo[1] < 64 {
        // (three holders, the usual programme: the rows are the second holder's rooms, each
        // row's states within the box and the band first, then split by split its runs from
        // the first row with room for the split's cards; per state the splits add in the same
        // order)
        if lo[0] > hi[0] || lo[1] > hi[1] || used_lo > used_hi {
            return;
        }
        let (lo1, hi1) = (lo[1] as usize, hi[1] as usize);
        let mut rows = [(0i32, -1i32); 64];
        let rows = &mut rows[..hi1 - lo1 + 1];
        for (r, x) in rows.iter_mut().enumerate() {
            let rest = (lo1 + r) as i32;
            *x = ((lo[0] as i32).max(used_lo as i32 - rest), (hi[0] as i32).min(used_hi as i32 - rest));
        }
        for (m, &(_, w)) in moves.iter().zip(splits.iter()) {
            let (a0, a1) = (m.a[0] as i32, m.a[1] as usize);
            // (the last holder's room after the split within the cards still to come)
            let top = rem as i32 + m.took as i32;
            for (r, &(row_lo, row_hi)) in rows.iter().enumerate().skip(a1.saturating_sub(lo1)) {
                let s1 = lo1 + r;
                let (from, to) = (row_lo.max(a0), row_hi.min(top - s1 as i32));
                if from <= to {
                    let base = s1 * dims[0];
                    run(base + from as usize, base + to as usize, m, w);
                }
            }
        }
        return;
    }
    for_row_ranges(dims, layout, lo, hi, used_lo, used_hi, |base, rest, row_lo, row_hi| {
        let others: u16 = rest.iter().sum();
        for (m, &(_, w)) in moves.iter().zip(splits.iter()) {
            if let Some((from, to)) = split_run(m, rest, others, rem, row_lo, row_hi) {
                run(base + from as usize, base + to as usize, m, w);
            }
        }
    });
}

/// The states `s0` of a row (the other coordinates `rest`, their sum `others`, the row's
/// states `row_lo ..= row_hi`) where split `m` fits, as `Move::next` takes them: s0 ≥ a0, the
/// other holders' rooms at least their cards, and s0 + others − took ≤ `rem` (none of the
/// row where the others' rooms after the split already exceed `rem`, s0 = 0 too); one
/// interval, or None.
#[inline(always)]
fn split_run(m: &Move, rest: &[u16], others: u16, rem: u16, row_lo: u16, row_hi: u16) -> Option<(u16, u16)> {
    if rest.iter().zip(&m.a[1..]).any(|(&s, &a)| s < a as u16) {
        return None;
    }
    let room = (rem + m.took).checked_sub(others)?;
    let (from, to) = (row_lo.max(m.a[0] as u16), row_hi.min(room));
    (from <= to).then_some((from, to))
}

/// `cur[i] += W1 · next[i − off1] + W2 · next[i − off2]` over the rows' states, the weights
/// constants.
#[inline(always)]
fn rows_madd2<T: Entry, N: Copy + Into<u128>, const W1: u64, const W2: u64>(rows: &[(usize, usize)], off1: usize, off2: usize, cur: &mut [T], next: &[N]) {
    let (w1, w2) = (T::of(W1 as u128), T::of(W2 as u128));
    let (next1, next2) = (&next[..cur.len() - off1], &next[..cur.len() - off2]);
    for &(start, end) in rows {
        let pairs = next1[start - off1..=end - off1].iter().zip(&next2[start - off2..=end - off2]);
        for (c, (&a, &b)) in cur[start..=end].iter_mut().zip(pairs) {
            *c += T::of(a.into()) * w1 + T::of(b.into()) * w2;
        }
    }
}

/// [`rows_madd2`] of four splits.
#[inline(always)]
fn rows_madd4<T: Entry, N: Copy + Into<u128>, const W1: u64, const W2: u64, const W3: u64, const W4: u64>(rows: &[(usize, usize)], off: [usize; 4], cur: &mut [T], next: &[N]) {
    let w = [W1, W2, W3, W4].map(|w| T::of(w as u128));
    let n = off.map(|o| &next[..cur.len() - o]);
    for &(start, end) in rows {
        let [a, b, c, d] = [0, 1, 2, 3].map(|i| &n[i][start - off[i]..=end - off[i]]);
        for (x, (((&a, &b), &c), &d)) in cur[start..=end].iter_mut().zip(a.iter().zip(b).zip(c).zip(d)) {
            *x += T::of(a.into()) * w[0] + T::of(b.into()) * w[1] + T::of(c.into()) * w[2] + T::of(d.into()) * w[3];
        }
    }
}

/// `cur[i] += w · next[i − off]` over the rows' states: the weights of up to four copies'
/// splits (c! / Π a!: 1, 2, 3, 4, 6, 12) as constants, each product by shifts and adds,
/// vectorised; any other weight multiplied.
#[inline(always)]
fn rows_madd_weight<T: Entry, N: Copy + Into<u128>>(rows: &[(usize, usize)], off: usize, cur: &mut [T], next: &[N], w: u128) {
    match w {
        1 => rows_madd::<T, N, 1>(rows, off, cur, next),
        2 => rows_madd::<T, N, 2>(rows, off, cur, next),
        3 => rows_madd::<T, N, 3>(rows, off, cur, next),
        4 => rows_madd::<T, N, 4>(rows, off, cur, next),
        6 => rows_madd::<T, N, 6>(rows, off, cur, next),
        12 => rows_madd::<T, N, 12>(rows, off, cur, next),
        _ => rows_madd_by(rows, off, cur, next, T::of(w)),
    }
}

/// `cur[i] += W · next[i − off]` over the rows' states, `W` a constant.
#[inline(always)]
fn rows_madd<T: Entry, N: Copy + Into<u128>, const W: u64>(rows: &[(usize, usize)], off: usize, cur: &mut [T], next: &[N]) {
    rows_madd_by(rows, off, cur, next, T::of(W as u128));
}

/// `cur[i] += w · next[i − off]` over the rows' states.
#[inline(always)]
fn rows_madd_by<T: Entry, N: Copy + Into<u128>>(rows: &[(usize, usize)], off: usize, cur: &mut [T], next: &[N], w: T) {
    for &(start, end) in rows {
        for (c, &v) in cur[start..=end].iter_mut().zip(&next[start - off..=end - off]) {
            *c += T::of(v.into()) * w;
        }
    }
}

/// A layer at full width: for every state of the box and band `(lo, hi, used_lo, used_hi)`,
/// Σ over the splits that fit there of w · `next`[i − off], every weight below 2^64 and every
/// sum known to fit in `N` limbs (`cur` zero there before). Split by split over each row's run
/// of states where it fits (as `layer_runs` without pads), the entries below read in place.
/// Returns the bits of the layer's widest entry.
#[allow(clippy::too_many_arguments)]
fn wide_runs<const N: usize>(dims: &[usize], layout: &Layout, bx: ([u16; 4], [u16; 4], u16, u16), splits: &Splits, moves: &[Move], rem: u16, cur: &mut [Big], next: &Layer) -> u32 {
    let (lo, hi, used_lo, used_hi) = bx;
    let mut top = Big::ZERO;
    for_row_ranges(dims, layout, &lo, &hi, used_lo, used_hi, |base, rest, row_lo, row_hi| {
        let others: u16 = rest.iter().sum();
        for (m, &(_, w)) in moves.iter().zip(splits.iter()) {
            let Some((from, to)) = split_run(m, rest, others, rem, row_lo, row_hi) else { continue };
            let (start, end, w) = (base + from as usize, base + to as usize, w as u64);
            let cur = &mut cur[start..=end];
            match next {
                Layer::Small(v) => cur.iter_mut().zip(&v[start - m.off..=end - m.off]).for_each(|(c, &x)| c.add_mul_u128_within(x as u128, w, N)),
                Layer::Narrow(v) => cur.iter_mut().zip(&v[start - m.off..=end - m.off]).for_each(|(c, &x)| c.add_mul_u128_within(x, w, N)),
                Layer::Wide(v) => cur.iter_mut().zip(&v[start - m.off..=end - m.off]).for_each(|(c, x)| c.add_mul_small_n::<N>(x, w)),
            }
        }
        for c in &cur[base + row_lo as usize..=base + row_hi as usize] {
            top.or_within(c, N);
        }
    });
    top.bits()
}

/// `len` zeros, filled a kilobyte at a time (short fills by vector stores, not one long fill
/// by a string instruction, which callgrind counts byte by byte).
/// The buffer is a kept one where the thread holds one (`take_spare`): only the entries past
/// its zeros are filled.
/// (Entries at full width are filled in one pass: no string instruction fills them.)
fn zeroed<T: Spare>(len: usize) -> Vec<T> {
    let step = if std::mem::size_of::<T>() > 16 { len.max(1) } else { 1024 / std::mem::size_of::<T>() };
    let mut v = take_spare::<T>(len);
    while v.len() < len {
        v.resize((v.len() + step).min(len), T::default());
    }
    v
}

/// The rows of the states `lo ..= hi` per coordinate with `used_lo ..= used_hi` cards of room
/// in all (what `reachable` walks), first coordinate fastest: `f(base, coordinates but the
/// first, row_lo, row_hi)`, the row's states being `base + s0` for `s0` in `row_lo ..= row_hi`.
pub(super) fn for_row_ranges(dims: &[usize], layout: &Layout, lo: &[u16], hi: &[u16], used_lo: u16, used_hi: u16, mut f: impl FnMut(usize, &[u16], u16, u16)) {
    let nd = dims.len();
    if (0..nd).any(|d| lo[d] > hi[d]) || used_lo > used_hi {
        return;
    }
    let mut s = [0u16; 4];
    s[1..nd].copy_from_slice(&lo[1..nd]);
    loop {
        let rest: i32 = s[1..nd].iter().map(|&x| x as i32).sum();
        let row_lo = (lo[0] as i32).max(used_lo as i32 - rest);
        let row_hi = (hi[0] as i32).min(used_hi as i32 - rest);
        if row_lo <= row_hi {
            f(layout.index(&s) - s[0] as usize, &s[1..nd], row_lo as u16, row_hi as u16);
        }
        if !advance(&mut s, lo, hi, 1..nd) {
            return;
        }
    }
}

/// Calls `f(index, state)` for every state with `lo[d] ..= hi[d]` in each coordinate.
pub(super) fn for_box(dims: &[usize], layout: &Layout, lo: &[u16], hi: &[u16], f: &mut dyn FnMut(usize, &[u16; 4])) {
    let n = dims.len();
    let mut s = [0u16; 4];
    s[..n].copy_from_slice(&lo[..n]);
    loop {
        f(layout.index(&s), &s);
        if !advance(&mut s, lo, hi, 0..n) {
            return;
        }
    }
}

/// The next state of an odometer over the coordinates `ds` of the box `lo ..= hi` (the first
/// fastest); false after the last.
pub(super) fn advance(s: &mut [u16; 4], lo: &[u16], hi: &[u16], ds: std::ops::Range<usize>) -> bool {
    for d in ds {
        if s[d] < hi[d] {
            s[d] += 1;
            return true;
        }
        s[d] = lo[d];
    }
    false
}

#[cfg(test)]
mod tests {
    use super::super::Determinizer;
    use crate::util::bignum::{binomial, Big};

    /// A state's index in a plain layer of every state, first coordinate fastest.
    fn index(dims: &[usize], s: &[u16; 4]) -> usize {
        let mut i = 0;
        for d in (0..dims.len()).rev() {
            i = i * dims[d] + s[d] as usize;
        }
        i
    }

    /// The counting programme's layers (row by row, the carried bound, 64-bit layers, weights of
    /// one, the terminal's binomials read in place, the pooled kinds counted in the last layer)
    /// against a plain programme at full width over every state, no rows, no bounds, no
    /// narrowing, a layer for every bounded kind (the pooled ones last): the same count at every
    /// state the walk can reach, at every seat of random hands of every profile, while dealing
    /// and in play, with and without pooling, with and without the layers' pad entries (each
    /// split over every state of a row, reading zeros where it does not fit; or its runs cut
    /// to where it fits), layers held in 64 bits and in 128.
    #[test]
    fn counting_layers_match_a_plain_full_width_programme() {
        let (mut programmes, mut states_checked, mut small, mut folded, mut pooled) = (0, 0usize, 0, 0, 0);
        // (layers held in 64 bits, and those in 128 bits without pad entries: cut runs)
        let (mut in_64, mut unpadded) = (0, 0);
        for seed in 0..24u64 {
            for (cut, p) in super::super::random_cuts(seed) {
                for (seat, pooling, pads) in (0..4u8).flat_map(|s| [(s, true, true), (s, false, true), (s, true, false)]) {
                    let mut det = Determinizer::new(p.info(seat));
                    det.pooling = pooling;
                    if !det.use_dp || det.holders.len() < 2 {
                        continue;
                    }
                    super::NO_PADS.set(!pads);
                    let built = det.build_dp();
                    super::NO_PADS.set(false);
                    let Ok(dp) = built else { continue };
                    let nh = det.holders.len();
                    let nd = nh - 1;
                    let sizes: Vec<u16> = det.holders[..nd].iter().map(|h| h.size).collect();
                    let states: usize = dp.dims.iter().product();
                    // (the plain programme walks every state: the large ones, while dealing, only
                    // now and then)
                    if states > 4000 && (seed + seat as u64) % 4 != 0 {
                        continue;
                    }
                    let state_of = |mut i: usize| {
                        let mut s = [0u16; 4];
                        for d in 0..nd {
                            s[d] = (i % dp.dims[d]) as u16;
                            i /= dp.dims[d];
                        }
                        s
                    };
                    if (!pooling || !pads) && (seed + seat as u64) % 2 != 0 {
                        continue;
                    }
                    let j_max = dp.kinds.len();
                    let f = dp.free.len();
                    // the pooled kinds' splits over every holder, as plain layers after the others
                    let in_pool: Vec<(u8, u8, super::super::splits::Splits)> = dp.pool.iter().flat_map(|p| &p.kinds).map(|&(k, c, _, _)| {
                        let (lo, hi): (Vec<u8>, Vec<u8>) = det.holders.iter().map(|h| (h.lo[k as usize], h.hi[k as usize])).unzip();
                        (k, c, super::super::splits::splits(c, &lo, &hi))
                    }).collect();
                    pooled += in_pool.len();
                    // terminal: the free cards fill every room exactly
                    let mut next: Vec<Big> = (0..states)
                        .map(|i| {
                            let s = state_of(i);
                            let used: usize = s[..nd].iter().map(|&x| x as usize).sum();
                            if used > f {
                                return Big::ZERO;
                            }
                            let mut left = f;
                            let mut w = Big::ONE;
                            for &x in &s[..nd] {
                                w = w.mul(&binomial(left, x as usize));
                                left -= x as usize;
                            }
                            w
                        })
                        .collect();
                    // one plain layer: kind splits `sp` with `rem` cards from it on, `rem_next` after
                    let plain_layer = |next: &[Big], sp: &[([u8; 4], u128)], rem: u16, rem_next: u16| -> Vec<Big> {
                        (0..states)
                            .map(|i| {
                                let s = state_of(i);
                                let used: u16 = s[..nd].iter().sum();
                                if used > rem {
                                    return Big::ZERO;
                                }
                                let mut acc = Big::ZERO;
                                for (a, w) in sp {
                                    if (0..nd).any(|d| s[d] < a[d] as u16) {
                                        continue;
                                    }
                                    let mut t = s;
                                    for d in 0..nd {
                                        t[d] -= a[d] as u16;
                                    }
                                    let took: u16 = a[..nd].iter().map(|&x| x as u16).sum();
                                    if used - took > rem_next {
                                        continue;
                                    }
                                    acc = acc.add(&next[index(&dp.dims, &t)].mul_u128(*w));
                                }
                                acc
                            })
                            .collect()
                    };
                    let mut rem = f as u16;
                    for (_, c, sp) in in_pool.iter().rev() {
                        next = plain_layer(&next, sp, rem + *c as u16, rem);
                        rem += *c as u16;
                    }
                    assert_eq!(rem, dp.remaining[j_max], "seed {seed}, cut {cut}, seat {seat}: the pool's cards last");
                    let taken = |j: usize| dp.remaining[0] - dp.remaining[j];
                    let start: u16 = sizes.iter().sum();
                    // (and where each holder's cards taken before kind j lie between the least and
                    // the most its splits give: every state a walk reaches, the last holder's
                    // room being what the others leave)
                    let all_sizes: Vec<u16> = det.holders.iter().map(|h| h.size).collect();
                    let took_between = |j: usize, s: &[u16; 4]| {
                        let used: u16 = s[..nd].iter().sum();
                        (0..nh).all(|h| {
                            let room = if h < nd { s[h] } else { dp.remaining[j] - used };
                            let least: u16 = dp.kinds[..j].iter().map(|(_, sp)| sp.iter().map(|(a, _)| a[h] as u16).min().unwrap_or(0)).sum();
                            let most: u16 = dp.kinds[..j].iter().map(|(_, sp)| sp.iter().map(|(a, _)| a[h] as u16).max().unwrap_or(0)).sum();
                            room <= all_sizes[h] && (least..=most).contains(&(all_sizes[h] - room))
                        })
                    };
                    let reachable = |j: usize, s: &[u16; 4]| {
                        let used: u16 = s[..nd].iter().sum();
                        (0..nd).all(|d| s[d] + taken(j) >= sizes[d]) && start - used <= taken(j) && used <= dp.remaining[j] && took_between(j, s)
                    };
                    for j in (dp.from..=j_max).rev() {
                        if j < j_max {
                            next = plain_layer(&next, &dp.kinds[j].1, dp.remaining[j], dp.remaining[j + 1]);
                        }
                        // (a folded kind has no layer: the split before it reads the next one)
                        if j < j_max && dp.folded(j) {
                            folded += 1;
                            continue;
                        }
                        for (i, want) in next.iter().enumerate() {
                            if reachable(j, &state_of(i)) {
                                assert_eq!(dp.table[j].get(dp.layout.index(&state_of(i))), *want, "seed {seed}, cut {cut}, seat {seat}: layer {j}, state {i}");
                                states_checked += 1;
                            }
                        }
                        small += (j < j_max && next.iter().all(|v| v.bits() < 64)) as usize;
                        in_64 += matches!(dp.table[j], super::Layer::Small(_)) as usize;
                        unpadded += (dp.layout.pad == 0 && matches!(dp.table[j], super::Layer::Narrow(_))) as usize;
                    }
                    programmes += 1;
                }
            }
        }
        eprintln!("{programmes} programmes, {states_checked} states, {small} layers below 2^64 ({in_64} held in 64 bits), {folded} kinds folded, {pooled} pooled, {unpadded} 128-bit layers without pads");
        assert!(programmes >= 100 && states_checked >= 100_000 && small >= 100 && in_64 >= 100 && unpadded >= 100 && folded >= 20 && pooled >= 100, "{programmes} programmes, {states_checked} states, {small} small layers ({in_64} in 64 bits), {folded} folded, {pooled} pooled");
    }

    /// Every entry of a layer at full width.
    fn entries(l: &super::Layer) -> Vec<Big> {
        match l {
            super::Layer::Small(v) => v.iter().map(|&x| Big::from_u64(x)).collect(),
            super::Layer::Narrow(v) => v.iter().map(|&x| Big::from_u128(x)).collect(),
            super::Layer::Wide(v) => v.clone(),
        }
    }

    /// `wide_runs` (a full-width layer split by split over each row's runs, the width a
    /// constant) against a plain sum per state: each state of the box and band takes Σ w ·
    /// (the entry below at its rooms less the split's cards) over the splits that fit there
    /// (`Move::next`: every room at least the split's cards, the last holder's room after it
    /// within `rem`), every other entry stays 0; over layers below in 64, 128 and 192 bits.
    #[test]
    fn wide_runs_match_a_plain_sum_per_state() {
        use super::{for_box, wide_runs, Layer, Layout, Move};
        use crate::util::bignum::Big;
        let mut rng = crate::util::rng::Rng::new(0x91de);
        let mut limbs_seen = [0usize; 9];
        for case in 0..300 {
            let nd = 2 + case % 2;
            let dims: Vec<usize> = (0..nd).map(|_| 2 + rng.below_usize(if nd == 2 { 30 } else { 12 })).collect();
            let layout = Layout::new(&dims, 0);
            let mut splits = Vec::new();
            for _ in 0..1 + rng.below_usize(16) {
                let a: [u8; 4] = std::array::from_fn(|d| if d < nd { rng.below_usize(5) as u8 } else { 0 });
                let w = if rng.below_usize(4) == 0 { rng.next_u64() as u128 } else { 1 + rng.below_usize(24) as u128 };
                splits.push((a, w));
            }
            let moves: Vec<Move> = splits.iter().map(|(a, _)| Move::of(&layout, nd, a)).collect();
            let splits = std::sync::Arc::new(splits);
            let top: u16 = dims.iter().map(|&x| x as u16 - 1).sum();
            let rem = rng.below_usize(top as usize + 8) as u16;
            // the layer below: random entries of 1, 2 or 3 limbs
            let kind = case % 3;
            let entries: Vec<Big> = (0..layout.len)
                .map(|_| {
                    let l: [u64; 3] = std::array::from_fn(|k| if k <= kind { rng.next_u64() } else { 0 });
                    Big::from_limbs(&l)
                })
                .collect();
            let next = match kind {
                0 => Layer::Small(entries.iter().map(|x| x.low_u128() as u64).collect()),
                1 => Layer::Narrow(entries.iter().map(|x| x.low_u128()).collect()),
                _ => Layer::Wide(entries.clone()),
            };
            let (mut lo, mut hi) = ([0u16; 4], [0u16; 4]);
            for d in 0..nd {
                let (x, y) = (rng.below_usize(dims[d]) as u16, rng.below_usize(dims[d]) as u16);
                (lo[d], hi[d]) = (x.min(y), x.max(y));
            }
            let (x, y) = (rng.below_usize(top as usize + 1) as u16, rng.below_usize(top as usize + 1) as u16);
            let (used_lo, used_hi) = (x.min(y), x.max(y));
            let want = |s: &[u16; 4], i: usize| -> Big {
                let used: u16 = s[..nd].iter().sum();
                let mut acc = Big::ZERO;
                if (0..nd).any(|d| s[d] < lo[d] || s[d] > hi[d]) || used < used_lo || used > used_hi {
                    return acc;
                }
                for (m, (_, w)) in moves.iter().zip(splits.iter()) {
                    if let Some(ni) = m.next(nd, s, i, used, rem) {
                        acc = acc.add(&entries[ni].mul_u128(*w));
                    }
                }
                acc
            };
            // (the sum's width: the entries' limbs and one for the weight, one for the sum)
            let n = kind + 3;
            let mut cur = vec![Big::ZERO; layout.len];
            let bx = (lo, hi, used_lo, used_hi);
            let top_bits = match n {
                3 => wide_runs::<3>(&dims, &layout, bx, &splits, &moves, rem, &mut cur, &next),
                4 => wide_runs::<4>(&dims, &layout, bx, &splits, &moves, rem, &mut cur, &next),
                _ => wide_runs::<5>(&dims, &layout, bx, &splits, &moves, rem, &mut cur, &next),
            };
            let mut widest = 0;
            let full: Vec<u16> = dims.iter().map(|&x| x as u16 - 1).collect();
            for_box(&dims, &layout, &[0; 4], &full, &mut |i, s| {
                let w = want(s, i);
                assert_eq!(cur[i], w, "case {case}: state {s:?}");
                widest = widest.max(w.bits());
            });
            assert_eq!(top_bits, widest, "case {case}: the widest entry's bits");
            limbs_seen[top_bits.div_ceil(64) as usize] += 1;
        }
        // (the layers below in each width gave sums of 2, 3 and 4 limbs)
        assert!(limbs_seen[2] > 0 && limbs_seen[3] > 0 && limbs_seen[4] > 0, "{limbs_seen:?}");
    }

    /// `layer_runs` (the pad entries' path: a split's runs alone, two or four splits in one
    /// run, the small weights as constants, other weights multiplied; over at most 64 rows or
    /// row by row) against a plain sum per state over random layers below: each state of the
    /// box and band takes Σ w · (the entry below at its rooms less the split's cards, 0 where
    /// a room would fall below 0), every other entry stays 0; in 64 and 128 bits. And without
    /// pad entries (each split's runs cut to where it fits: the two-holder rows, and row by
    /// row with three holders or over 64 rows), `rem` drawn at random: a split adds only where
    /// `Move::next` takes it (every room at least its cards, the last holder's room after it
    /// within `rem`), whatever the layer below holds elsewhere.
    #[test]
    fn layer_runs_match_a_plain_sum_per_state() {
        use super::{layer_runs, Layout, Move};
        let mut rng = crate::util::rng::Rng::new(0x1a7e);
        let weights = [1u128, 2, 3, 4, 6, 12, 1, 2, 5, 24];
        let (mut cases, mut rows_over_64, mut unpadded_over_64) = (0, 0, 0);
        for case in 0..400 {
            let nd = 2 + case % 2;
            // (without pads every other pair of cases; two holders over 64 rows now and then)
            let pad = if case % 4 < 2 { 4 } else { 0 };
            let mut dims: Vec<usize> = (0..nd).map(|_| 2 + rng.below_usize(if nd == 2 { 20 } else { 14 })).collect();
            if nd == 2 && pad == 0 && case % 8 == 2 {
                dims[1] = 66 + rng.below_usize(8);
            }
            let layout = Layout::new(&dims, pad);
            let mut splits = Vec::new();
            for _ in 0..1 + rng.below_usize(16) {
                let a: [u8; 4] = std::array::from_fn(|d| if d < nd { rng.below_usize(5) as u8 } else { 0 });
                let w = if case % 4 == 3 && rng.below_usize(8) == 0 { 1u128 << 70 } else { weights[rng.below_usize(weights.len())] };
                splits.push((a, w));
            }
            let moves: Vec<Move> = splits.iter().map(|(a, _)| Move::of(&layout, nd, a)).collect();
            let splits = std::sync::Arc::new(splits);
            // the layer below: random entries at the states, zeros at the pad entries
            let mut next = vec![0u64; layout.len];
            let mut state = [0u16; 4];
            let mut states = Vec::new();
            loop {
                states.push(state);
                let mut d = 0;
                while d < nd && state[d] as usize + 1 == dims[d] {
                    state[d] = 0;
                    d += 1;
                }
                if d == nd {
                    break;
                }
                state[d] += 1;
            }
            for s in &states {
                next[layout.index(s)] = rng.next_u64() >> 24;
            }
            let (mut lo, mut hi) = ([0u16; 4], [0u16; 4]);
            for d in 0..nd {
                let (x, y) = (rng.below_usize(dims[d]) as u16, rng.below_usize(dims[d]) as u16);
                (lo[d], hi[d]) = (x.min(y), x.max(y));
            }
            let top: u16 = dims.iter().map(|&x| x as u16 - 1).sum();
            let (x, y) = (rng.below_usize(top as usize + 1) as u16, rng.below_usize(top as usize + 1) as u16);
            let (mut used_lo, mut used_hi) = (x.min(y), x.max(y));
            if case % 8 == 1 || case % 8 == 3 {
                // (every state: with three coordinates, more than 64 rows; with pads and without)
                for d in 0..nd {
                    (lo[d], hi[d]) = (0, dims[d] as u16 - 1);
                }
                (used_lo, used_hi) = (0, top);
            }
            let rows: usize = (1..nd).map(|d| (hi[d] - lo[d] + 1) as usize).product();
            rows_over_64 += (rows > 64) as usize;
            unpadded_over_64 += (rows > 64 && pad == 0) as usize;
            // (the cards still to come after the split: with pads not read)
            let rem = rng.below_usize(top as usize + 8) as u16;
            let want = |s: &[u16; 4]| -> u128 {
                let used: u16 = s[..nd].iter().sum();
                if (0..nd).any(|d| s[d] < lo[d] || s[d] > hi[d]) || used < used_lo || used > used_hi {
                    return 0;
                }
                let mut acc = 0u128;
                for (a, w) in splits.iter() {
                    let took: u16 = a[..nd].iter().map(|&x| x as u16).sum();
                    if (0..nd).all(|d| s[d] >= a[d] as u16) && (pad > 0 || used - took <= rem) {
                        let t: [u16; 4] = std::array::from_fn(|d| if d < nd { s[d] - a[d] as u16 } else { 0 });
                        acc += next[layout.index(&t)] as u128 * w;
                    }
                }
                acc
            };
            let big = splits.iter().any(|&(_, w)| w >> 64 != 0);
            let mut wide = vec![0u128; layout.len];
            layer_runs(&dims, &layout, &lo, &hi, used_lo, used_hi, &splits, &moves, rem, &mut wide, &next);
            let mut narrow = vec![0u64; layout.len];
            if !big {
                layer_runs(&dims, &layout, &lo, &hi, used_lo, used_hi, &splits, &moves, rem, &mut narrow, &next);
            }
            let mut at_states = vec![false; layout.len];
            for s in &states {
                let i = layout.index(s);
                at_states[i] = true;
                assert_eq!(wide[i], want(s), "case {case}: state {s:?} (128 bits)");
                if !big {
                    assert_eq!(narrow[i] as u128, want(s), "case {case}: state {s:?} (64 bits)");
                }
            }
            // (the pad entries stay zeros)
            assert!((0..layout.len).filter(|&i| !at_states[i]).all(|i| wide[i] == 0 && narrow[i] == 0), "case {case}: a pad entry written");
            cases += 1;
        }
        assert!(cases == 400 && rows_over_64 >= 40 && unpadded_over_64 >= 20, "{cases} cases, {rows_over_64} over 64 rows, {unpadded_over_64} without pads");
    }

    /// Layers built into buffers kept from dropped layers (`zeroed`: the entries another
    /// programme left there) hold the same counts as layers built into new buffers: at every
    /// seat of random hands, a programme built with no buffer kept, then another seat's built
    /// and dropped, then the first built again, every entry of every layer the same.
    #[test]
    fn layers_in_kept_buffers_match_new_ones() {
        let (mut programmes, mut kept) = (0, 0);
        for seed in 0..8u64 {
            let cuts = super::super::random_cuts(seed);
            for (k, (_, p)) in cuts.iter().enumerate() {
                for seat in 0..4u8 {
                    let det = Determinizer::new(p.info(seat));
                    if !det.use_dp {
                        continue;
                    }
                    super::SPARE_64.with(|s| *s.borrow_mut() = (Vec::new(), 0));
                    super::SPARE_128.with(|s| *s.borrow_mut() = (Vec::new(), 0));
                    let Ok(dp) = det.build_dp() else { continue };
                    let first: Vec<Vec<Big>> = dp.table.iter().map(entries).collect();
                    drop(dp);
                    // another programme's counts in the kept buffers
                    let (_, q) = &cuts[(k + 1) % cuts.len()];
                    let other = Determinizer::new(q.info((seat + 1) % 4));
                    if other.use_dp {
                        drop(other.build_dp());
                    }
                    kept += super::SPARE_64.with(|s| s.borrow().0.len()) + super::SPARE_128.with(|s| s.borrow().0.len());
                    let again = det.build_dp().expect("built before");
                    let second: Vec<Vec<Big>> = again.table.iter().map(entries).collect();
                    assert_eq!(first, second, "seed {seed}, cut {k}, seat {seat}");
                    programmes += 1;
                }
            }
        }
        assert!(programmes >= 50 && kept >= 100, "{programmes} programmes, {kept} buffers kept");
    }

    /// A dropped programme's kept buffers hold zeros only (`Dp::written` covers every entry
    /// its layers wrote), kept at their length: at every cut of random hands, every seat, a
    /// programme built and dropped, then every kept buffer of each width read whole.
    #[test]
    fn kept_buffers_go_back_zeroed() {
        fn all_zero<T: super::Spare>(kept: &mut [usize; 3], w: usize) {
            T::spares().with(|s| {
                for v in &s.borrow().0 {
                    assert!(v.iter().all(|x| *x == T::default()), "a kept buffer of width {w} holds a nonzero entry");
                    kept[w] += (!v.is_empty()) as usize;
                }
            });
        }
        let (mut programmes, mut kept) = (0, [0usize; 3]);
        for seed in 0..8u64 {
            for (_, p) in super::super::random_cuts(seed) {
                for seat in 0..4u8 {
                    let det = Determinizer::new(p.info(seat));
                    if !det.use_dp {
                        continue;
                    }
                    let Ok(dp) = det.build_dp() else { continue };
                    drop(dp);
                    programmes += 1;
                    all_zero::<u64>(&mut kept, 0);
                    all_zero::<u128>(&mut kept, 1);
                    all_zero::<Big>(&mut kept, 2);
                }
            }
        }
        assert!(programmes >= 50 && kept[0] >= 100 && kept[1] >= 10 && kept[2] >= 10, "{programmes} programmes, kept with zeros {kept:?}");
    }
}
