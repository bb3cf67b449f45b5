//! Exact draws of the cards other seats received before their hidden showings, for the
//! determinizer's shuffle of a hand still being dealt.
//!
//! A seat that showed k cards when t cards had been dealt held k level cards of one suit among
//! the cards it had received by then (R8.1, D7). Early showings make that rare in a uniform
//! shuffle (two cards of one suit's level card among a seat's first four), so most proposals
//! were rejected there. The cards a seat receives at its first e places are, in a uniform
//! shuffle of the unseen cards, an ordered draw without replacement from them; only whether
//! each is a level card, and of which suit, matters to the showings. So those e draws, for
//! every such seat in turn (its *window*: its places before its run's last showing), are drawn
//! here from their exact law given the showings. The rest of the shuffle is then uniform given
//! the windows, so the proposal is the uniform one conditioned on these showings (the other
//! evidence is still checked by rejection).
//!
//! The showings read only how many cards of each symbol (a suit's level card; under C9 also the
//! small joker) a window holds when they are made, so a window is cut at them into *segments*,
//! and within a segment every order of its draws is equally likely: a segment of L draws with
//! c_s cards of each symbol s and o other cards arises from Π_s C(a_s, c_s) · C(b, o) choices
//! of physical cards (a_s, b: the copies still unseen), each in L! orders, the same number for
//! every choice. So the counting chooses a segment's c_s one symbol at a time, N(step, state)
//! over states (cards of each symbol drawn so far, the window's own counts capped at what its
//! showings need, the suits its run can still have, the segment's draws not yet given a
//! symbol), and the segment's draws are then shuffled.
//!
//! Under C9 (a competition match's first hand) every run began with a small joker in the
//! shower's hand: a window then also needs one among its draws before the run's first
//! showing, and the small joker is a draw of its own ([`SMALL_JOKER`]).
//!
//! The seat the deal stopped at is evidence the same way (D7: the deal stops only at a seat
//! that can show, R8.1): its window is then its whole hand so far, which must make a showing
//! now ([`decider`]).

use std::collections::HashMap;
use std::hash::BuildHasherDefault;

use crate::infoset::info::{InfoSet, Run};
use crate::util::bignum::{binomial, Big};
use crate::util::hash::FxHasher;
use crate::util::rng::Rng;

/// Draws in all windows at most, where a window is optional: one of many draws seldom rejects
/// (its seat had many cards to show from), so the rejections are left to meet it.
pub const MAX_DRAWS: usize = 20;

/// Draws in all windows at most under C9, where they must cover every shower or the counting
/// programme weights the small jokers for four holders (milliseconds): their counts stay below
/// 216^48 < 2^512.
pub const MAX_DRAWS_C9: usize = 48;

/// Counted states at most, over all the sets of windows tried: a bound on the first world's
/// cost (up to about 0.2 µs a state, in 512 bits). Windows that would take the count beyond it
/// are left to the rejections.
pub const MAX_STATES: usize = 1 << 15;

/// One seat's window: its deal positions before its run's last showing (the seat the deal
/// stopped at: all its positions so far), in deal order.
#[derive(Clone, Debug)]
pub struct Window {
    pub seat: u8,
    pub positions: Vec<u8>,
    /// (draws of the window made before the showing, cards shown)
    showings: Vec<(usize, u8)>,
    /// Suits the run may have (bit per suit): all four while hidden.
    allowed: u8,
    /// The most cards any of its showings needs.
    k_max: u8,
    /// C9: the draws before the run's first showing must hold a small joker.
    joker_before: Option<usize>,
    /// The seat the deal stopped at, not the declarer: at the window's end it holds this many
    /// level cards of some suit (the declarer's stop is one more showing of its run).
    any_suit: Option<u8>,
}

impl Window {
    /// The window of `seat` over its first `upto` cards dealt: its run's showings (if any), and
    /// the stop's condition (if it is the seat the deal stopped at).
    fn new(info: &InfoSet, seat: u8, run: Option<&Run>, joker: bool, upto: usize, stop: Option<CanShow>) -> Window {
        let first = info.first_seats[info.first_seats.len() - 1];
        let positions: Vec<u8> = crate::game::deal::positions(first, seat, upto).map(|p| p as u8).collect();
        let mut showings: Vec<(usize, u8)> = run.map_or(Vec::new(), |r| r.showings.iter().map(|&(t, k)| (positions.iter().filter(|&&p| p < t).count(), k)).collect());
        let allowed = run.and_then(|r| r.suit).map_or(0b1111, |s| 1 << s);
        let joker_before = (joker && run.is_some()).then(|| showings[0].0);
        let any_suit = match stop {
            Some(CanShow::Own(k)) => {
                showings.push((positions.len(), k));
                None
            }
            Some(CanShow::Any(k)) => Some(k),
            None => None,
        };
        let k_max = showings.iter().map(|s| s.1).chain(any_suit).max().unwrap_or(0);
        Window { seat, positions, showings, allowed, k_max, joker_before, any_suit }
    }
}

/// What the deal's stop proves of the seat it stopped at: it can show now (R8.1, D7).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CanShow {
    /// It holds this many level cards of some suit (nobody has shown: one; else one more than
    /// the showing to beat).
    Any(u8),
    /// It is the declarer: this many of its own suit, one more than it has shown.
    Own(u8),
}

/// The seat another than `info.seat` that the deal stopped at while dealing, and what that
/// proves; `None` when the seat itself decides, nothing is dealt yet, or every receiver decides
/// (the stop then proves nothing, R8.3's `every_receiver`).
pub fn decider(info: &InfoSet) -> Option<(u8, CanShow)> {
    let dealt = info.dealt as usize;
    if info.phase != crate::game::hand::Phase::Declare || info.to_move.is_some() || dealt == 0 || info.every_receiver {
        return None;
    }
    let first = info.first_seats[info.first_seats.len() - 1] as usize;
    let deck = crate::rules::card::DECK;
    let seat = if dealt < deck { (first + dealt - 1) % 4 } else { (first + deck - 1 + info.final_round as usize) % 4 } as u8;
    if seat == info.seat {
        return None;
    }
    Some((
        seat,
        match info.declarer {
            crate::game::hand::NOBODY => CanShow::Any(1),
            d if d == seat => CanShow::Own(info.declared_count + 1),
            _ => CanShow::Any(info.declared_count + 1),
        },
    ))
}

/// The draw that is a small joker (under C9; the suits are 0..4).
pub const SMALL_JOKER: u8 = 4;

/// One draw: a level card of a suit, a small joker ([`SMALL_JOKER`], under C9), or another
/// card.
pub type Drawn = Option<u8>;

/// A window's draws from..to, between two of its showings (or its start).
#[derive(Clone, Copy, Debug)]
struct Segment {
    window: usize,
    from: usize,
    to: usize,
    /// Draws of all windows before this segment.
    before: usize,
}

/// A counting state, packed in one word: the level cards of each symbol drawn so far (3 bits
/// each, at most 4 copies), the window's own counts of each suit capped at its need and of
/// small jokers capped at one (3 bits each), the suits its run can still have (4 bits), the
/// segment's draws not yet given a symbol (6 bits, at most [`MAX_DRAWS_C9`]), and the level
/// cards drawn before the segment (5 bits, at most 20). In the last segment a symbol's count is
/// forgotten once chosen (nothing after it reads it), so states differing only there merge.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct State(u64);

const M: u32 = 15;
const MASK: u32 = 30;
const LEFT: u32 = 34;
const ENTRY: u32 = 40;

impl State {
    fn new(n: [u8; 5], mask: u8, left: u8) -> State {
        let entry: u64 = n.iter().map(|&x| x as u64).sum();
        let n = n.iter().enumerate().fold(0u64, |a, (j, &x)| a | (x as u64) << (3 * j));
        State(n | (mask as u64) << MASK | (left as u64) << LEFT | entry << ENTRY)
    }
    fn n(self, j: usize) -> u8 {
        (self.0 >> (3 * j) & 7) as u8
    }
    fn m(self) -> [u8; 5] {
        std::array::from_fn(|j| (self.0 >> (M as usize + 3 * j) & 7) as u8)
    }
    fn mask(self) -> u8 {
        (self.0 >> MASK & 15) as u8
    }
    fn left(self) -> u8 {
        (self.0 >> LEFT & 63) as u8
    }
    fn entry(self) -> usize {
        (self.0 >> ENTRY) as usize
    }
    /// `c` more of symbol j, its window's count capped at `cap`.
    fn take(self, j: usize, c: u8, cap: u8) -> State {
        let m = (self.0 >> (M as usize + 3 * j) & 7) as u8;
        let m2 = (m + c).min(cap);
        let cleared = self.0 & !(7u64 << (M as usize + 3 * j));
        State((cleared | (m2 as u64) << (M as usize + 3 * j)) + ((c as u64) << (3 * j)) - ((c as u64) << LEFT))
    }
    fn with_mask(self, mask: u8) -> State {
        State(self.0 & !(15u64 << MASK) | (mask as u64) << MASK)
    }
    /// The start of the window's next segment, of `left` draws.
    fn next_segment(self, left: u8) -> State {
        let entry: u64 = (0..5).map(|j| self.n(j) as u64).sum();
        State(self.0 & !(63u64 << LEFT | 31u64 << ENTRY) | (left as u64) << LEFT | entry << ENTRY)
    }
    fn forget(self, j: usize) -> State {
        State(self.0 & !(7u64 << (3 * j)))
    }
    /// The same level cards drawn, for another window: its counts from zero.
    fn n_only(self) -> [u8; 5] {
        std::array::from_fn(|j| self.n(j))
    }
}

/// Step t (segment t / 5, symbol t % 5) and a state: the memo's key. Its iteration order is
/// never read, so the hasher decides nothing.
fn key(t: usize, st: State) -> u64 {
    (t as u64) << 48 | st.0
}

/// The integer the counts are kept in: `u128` where every count fits (most positions), else
/// the 512-bit [`Big`].
trait Count: Copy + PartialOrd {
    const ZERO: Self;
    const ONE: Self;
    /// C(n, k), or `None` when it does not fit.
    fn binomial(n: usize, k: usize) -> Option<Self>;
    /// `self + w · x`, or `None` when it does not fit.
    fn add_product(self, w: Self, x: Self) -> Option<Self>;
    /// `w · x`, known to fit (it is at most the count it is drawn against).
    fn product(w: Self, x: Self) -> Self;
    /// `self − x` for `x ≤ self`.
    fn minus(self, x: Self) -> Self;
    /// Uniform in `0..self`.
    fn below(&self, rng: &mut Rng) -> Self;
    fn is_zero(&self) -> bool;
}

impl Count for u128 {
    const ZERO: u128 = 0;
    const ONE: u128 = 1;
    fn binomial(n: usize, k: usize) -> Option<u128> {
        // C(n, k) for n ≤ 216 and k ≤ MAX_DRAWS_C9 (a segment's draws), `None` past 128 bits
        use std::sync::OnceLock;
        static TABLE: OnceLock<Vec<[Option<u128>; MAX_DRAWS_C9 + 1]>> = OnceLock::new();
        let t = TABLE.get_or_init(|| {
            let mut rows: Vec<[Option<u128>; MAX_DRAWS_C9 + 1]> = Vec::with_capacity(217);
            for n in 0..=216usize {
                let mut row = [Some(0); MAX_DRAWS_C9 + 1];
                row[0] = Some(1);
                for k in 1..=MAX_DRAWS_C9.min(n) {
                    let (a, b) = (rows[n - 1][k - 1], rows[n - 1][k]);
                    row[k] = a.zip(b).and_then(|(a, b)| a.checked_add(b));
                }
                rows.push(row);
            }
            rows
        });
        t[n][k]
    }
    fn add_product(self, w: u128, x: u128) -> Option<u128> {
        self.checked_add(w.checked_mul(x)?)
    }
    fn product(w: u128, x: u128) -> u128 {
        w * x
    }
    fn minus(self, x: u128) -> u128 {
        self - x
    }
    fn below(&self, rng: &mut Rng) -> u128 {
        rng.below(*self)
    }
    fn is_zero(&self) -> bool {
        *self == 0
    }
}

impl Count for Big {
    const ZERO: Big = Big::ZERO;
    const ONE: Big = Big::ONE;
    fn binomial(n: usize, k: usize) -> Option<Big> {
        Some(binomial(n, k))
    }
    fn add_product(self, w: Big, x: Big) -> Option<Big> {
        // every count is below 216^MAX_DRAWS_C9 < 2^512
        Some(self.add(&w.mul(&x)))
    }
    fn product(w: Big, x: Big) -> Big {
        w.mul(&x)
    }
    fn minus(self, x: Big) -> Big {
        self.sub(&x)
    }
    fn below(&self, rng: &mut Rng) -> Big {
        Big::below(self, rng)
    }
    fn is_zero(&self) -> bool {
        Big::is_zero(self)
    }
}

type Memo<C> = HashMap<u64, C, BuildHasherDefault<FxHasher>>;

/// The counted states, in the narrowest width that holds them.
#[derive(Clone, Debug)]
enum Memos {
    Narrow(Memo<u128>),
    Wide(Memo<Big>),
}

/// Why counting stopped: a count over the width's bits, or more than [`MAX_STATES`] states.
enum Stop {
    Overflow,
    States,
}

/// The windows and the counts to draw them.
#[derive(Clone, Debug)]
pub struct EarlyRuns {
    pub windows: Vec<Window>,
    /// Unseen copies of each suit's level card and of the small joker (counted as a symbol of
    /// its own only under C9, else 0 and among the others), and unseen other cards.
    level: [u8; 5],
    other: u16,
    segments: Vec<Segment>,
    counts: Memos,
}

impl EarlyRuns {
    /// The windows of the other seats whose hand is being dealt, each with one hidden run in
    /// this attempt, and the window of the seat the deal stopped at, taken smallest first while
    /// the draws stay within [`MAX_DRAWS`] and the counting of every set tried within
    /// [`MAX_STATES`] states; `None` when there is none. Under C9 (`joker`), the windows of
    /// every other seat that showed in this attempt, or `None`.
    pub fn of(info: &InfoSet, joker: bool) -> Option<EarlyRuns> {
        let attempt = info.first_seats.len() - 1;
        // (under C9 the stop's window is left to the rejections: with the small joker a symbol
        // of its own, counting it cost more than the rejections it saved)
        let decider = if joker { None } else { decider(info) };
        let mut windows: Vec<Window> = Vec::new();
        let mut stop: Option<Window> = None;
        for seat in (0..4u8).filter(|&s| s != info.seat) {
            let runs: Vec<&Run> = info.runs.iter().filter(|r| r.seat == seat && r.attempt as usize == attempt).collect();
            let run = match runs.as_slice() {
                [] => None,
                [run] => Some(*run),
                _ if joker => return None, // under C9 every shower or none (see below)
                _ => continue,
            };
            if let Some(run) = run {
                // the seat's positions before its last showing (t_last ≤ DECK cards dealt)
                let t_last = run.showings.last().expect("a run has a showing").0;
                windows.push(Window::new(info, seat, Some(run), joker, t_last as usize, None));
            }
            if let Some((_, can)) = decider.filter(|d| d.0 == seat) {
                stop = Some(Window::new(info, seat, run, joker, info.dealt as usize, Some(can)));
            }
        }
        let level: [u8; 5] = std::array::from_fn(|s| match s {
            4 if joker => info.unseen[crate::rules::card::SJ.id()],
            4 => 0,
            _ => info.unseen[crate::rules::card::Card::new(s as u8, info.level).id()],
        });
        let pool: u16 = info.unseen.iter().map(|&c| c as u16).sum();
        let other = pool - level.iter().map(|&c| c as u16).sum::<u16>();
        let draws = |set: &[Window]| set.iter().map(|w| w.positions.len()).sum::<usize>();
        // a set with window `w` in place of its seat's (the stop's window holds the run's)
        let with = |set: &[Window], w: Window| {
            let mut v: Vec<Window> = set.iter().filter(|x| x.seat != w.seat).cloned().collect();
            v.push(w);
            v
        };
        let mut budget = MAX_STATES;
        if joker {
            // C9: the windows replace the counting programme's weights for the small jokers
            // only where they cover every shower; so all of them, counted once, or none
            if windows.is_empty() || draws(&windows) > MAX_DRAWS_C9 {
                return None;
            }
            return EarlyRuns::counted(windows, level, other, &mut budget);
        }
        // smallest first, each kept while the draws and the counting stay within bounds (a
        // seat's run window before its stop's, which replaces it)
        windows.extend(stop);
        windows.sort_by_key(|w| (w.positions.len(), w.seat));
        let mut kept: Option<EarlyRuns> = None;
        for w in windows {
            let set = with(kept.as_ref().map_or(&[][..], |k| &k.windows[..]), w);
            if draws(&set) > MAX_DRAWS {
                continue;
            }
            if let Some(e) = EarlyRuns::counted(set, level, other, &mut budget) {
                kept = Some(e);
            }
        }
        kept
    }

    /// The counts for `windows` (in 128 bits, or again in 512 where a count does not fit), or
    /// `None` when they need more than `budget` states (which pays for the states counted) or
    /// admit no draw at all (the rejections then report the inconsistency).
    fn counted(windows: Vec<Window>, level: [u8; 5], other: u16, budget: &mut usize) -> Option<EarlyRuns> {
        let mut segments = Vec::new();
        let mut before = 0;
        for (w, win) in windows.iter().enumerate() {
            let mut cuts: Vec<usize> = win.showings.iter().map(|s| s.0).filter(|&c| c > 0).collect();
            cuts.push(win.positions.len());
            cuts.sort_unstable();
            cuts.dedup();
            let mut from = 0;
            for to in cuts {
                segments.push(Segment { window: w, from, to, before: before + from });
                from = to;
            }
            before += win.positions.len();
        }
        let mut e = EarlyRuns { windows, level, other, segments, counts: Memos::Narrow(HashMap::default()) };
        let st = e.enter(0, [0; 5])?;
        let start = e.skip(0, st);
        let mut narrow: Memo<u128> = Memo::with_capacity_and_hasher(256, Default::default());
        let counted = e.count(&mut narrow, start, st, *budget);
        *budget -= narrow.len(); // at most the budget: `count` never exceeds its limit
        e.counts = match counted {
            Ok(n) => (n > 0).then_some(Memos::Narrow(narrow))?,
            Err(Stop::States) => return None,
            Err(Stop::Overflow) => {
                let mut wide: Memo<Big> = Memo::with_capacity_and_hasher(256, Default::default());
                let counted = e.count(&mut wide, start, st, *budget);
                *budget -= wide.len();
                let n = counted.ok()?;
                (!n.is_zero()).then_some(Memos::Wide(wide))?
            }
        };
        Some(e)
    }

    /// The states counted (what building these windows cost).
    pub fn states(&self) -> usize {
        match &self.counts {
            Memos::Narrow(m) => m.len(),
            Memos::Wide(m) => m.len(),
        }
    }

    /// The state at the start of segment g with `n` level cards drawn (`None` when the window
    /// it begins admits no suit).
    fn enter(&self, g: usize, n: [u8; 5]) -> Option<State> {
        let seg = self.segments[g];
        let win = &self.windows[seg.window];
        let mask = self.apply(win, 0, [0; 5], win.allowed);
        (mask != 0).then_some(State::new(n, mask, (seg.to - seg.from) as u8))
    }

    /// The suits still possible once the window has made r draws: each showing made after
    /// exactly r draws of the window needs its count (and under C9 the first needs a small
    /// joker before it).
    fn apply(&self, win: &Window, r: usize, m: [u8; 5], mut mask: u8) -> u8 {
        for &(cut, k) in &win.showings {
            if cut == r {
                for (s, &c) in m[..4].iter().enumerate() {
                    if c < k {
                        mask &= !(1 << s);
                    }
                }
            }
        }
        if win.joker_before == Some(r) && m[4] == 0 {
            mask = 0;
        }
        if let Some(k) = win.any_suit.filter(|_| r == win.positions.len()) {
            if m[..4].iter().all(|&c| c < k) {
                mask = 0;
            }
        }
        mask
    }

    /// The first step from t on that is a choice: a symbol with no copies left, or any
    /// symbol once the segment's draws are all given one, takes none (an identity step, neither
    /// memoised nor drawn); the segment's last symbol, which places its other cards, never
    /// is skipped.
    fn skip(&self, mut t: usize, st: State) -> usize {
        while t % 5 != 4 && (st.left() == 0 || self.level[t % 5] == st.n(t % 5)) {
            t += 1;
        }
        t
    }

    /// The choices at step t from `st`: `f(c, weight, next)` for each count c of the step's
    /// symbol the segment can take (its weight: the choices of physical cards, and at the
    /// segment's last symbol those of its other cards too; `next`: the next step that is a
    /// choice and its state, `None` after the last segment). Stops early when `f` returns true.
    fn choices<C: Count>(&self, t: usize, st: State, mut f: impl FnMut(u8, C, Option<(usize, State)>) -> Result<bool, Stop>) -> Result<(), Stop> {
        let (g, j) = (t / 5, t % 5);
        let seg = self.segments[g];
        let win = &self.windows[seg.window];
        let copies = self.level[j] - st.n(j);
        let cap = if j == SMALL_JOKER as usize { 1 } else { win.k_max };
        let last = g + 1 == self.segments.len();
        for c in 0..=copies.min(st.left()) {
            let mut weight = C::binomial(copies as usize, c as usize).ok_or(Stop::Overflow)?;
            let st2 = st.take(j, c, cap);
            let st2 = if last { st2.forget(j) } else { st2 };
            if j < 4 {
                if f(c, weight, Some((self.skip(t + 1, st2), st2)))? {
                    return Ok(());
                }
                continue;
            }
            // the segment's other cards, from those left unseen by the draws before it
            let left2 = st2.left() as usize;
            let b = self.other as usize - (seg.before - st.entry());
            let ways = C::binomial(b, left2).ok_or(Stop::Overflow)?;
            weight = C::add_product(C::ZERO, weight, ways).ok_or(Stop::Overflow)?;
            if weight.is_zero() {
                continue;
            }
            let mask2 = self.apply(win, seg.to, st2.m(), st.mask());
            if mask2 == 0 {
                continue;
            }
            let next = match self.segments.get(g + 1) {
                None => None,
                Some(s) if s.window == seg.window => Some(st2.with_mask(mask2).next_segment((s.to - s.from) as u8)),
                Some(_) => match self.enter(g + 1, st2.n_only()) {
                    Some(st) => Some(st),
                    None => continue,
                },
            };
            if f(c, weight, next.map(|st2| (self.skip(t + 1, st2), st2)))? {
                return Ok(());
            }
        }
        Ok(())
    }

    /// N(t, st): the weighted ways to make steps t.. from `st`, memoised in `memo` (at most
    /// `limit` states).
    fn count<C: Count>(&self, memo: &mut Memo<C>, t: usize, st: State, limit: usize) -> Result<C, Stop> {
        if let Some(&c) = memo.get(&key(t, st)) {
            return Ok(c);
        }
        if memo.len() >= limit {
            return Err(Stop::States);
        }
        let mut total = C::ZERO;
        self.choices::<C>(t, st, |_, w, next| {
            let rest = match next {
                Some((t2, st2)) => self.count(memo, t2, st2, limit)?,
                None => C::ONE,
            };
            total = total.add_product(w, rest).ok_or(Stop::Overflow)?;
            Ok(false)
        })?;
        // (the states counted below this one may have filled the memo meanwhile)
        if memo.len() >= limit {
            return Err(Stop::States);
        }
        memo.insert(key(t, st), total);
        Ok(total)
    }

    /// The windows' draws, exactly from their law given the showings: per window, one draw
    /// per position (`Some(suit)`: that suit's level card, or [`SMALL_JOKER`]; `None`: another
    /// card).
    pub fn draw(&self, rng: &mut Rng) -> Vec<Vec<Drawn>> {
        match &self.counts {
            Memos::Narrow(m) => self.draw_with(m, rng),
            Memos::Wide(m) => self.draw_with(m, rng),
        }
    }

    fn draw_with<C: Count>(&self, memo: &Memo<C>, rng: &mut Rng) -> Vec<Vec<Drawn>> {
        let mut out: Vec<Vec<Drawn>> = self.windows.iter().map(|w| Vec::with_capacity(w.positions.len())).collect();
        let st = self.enter(0, [0; 5]).expect("a window with draws");
        let mut at = Some((self.skip(0, st), st));
        let mut segment: Vec<Drawn> = Vec::new();
        while let Some((t, st)) = at {
            let mut x = memo[&key(t, st)].below(rng);
            let mut chosen = None;
            let found = self.choices::<C>(t, st, |c, w, next| {
                let v = C::product(w, next.map_or(C::ONE, |(t2, s)| memo[&key(t2, s)]));
                if x < v {
                    chosen = Some((c, next));
                    return Ok(true);
                }
                x = x.minus(v);
                Ok(false)
            });
            debug_assert!(found.is_ok(), "counted once, so every step fits");
            let (c, next) = chosen.expect("the weights sum to the count");
            let (g, j) = (t / 5, t % 5);
            segment.extend(std::iter::repeat_n(Some(j as u8), c as usize));
            if j == 4 {
                // the segment's other cards, then a uniform order of its draws
                let seg = self.segments[g];
                segment.resize(seg.to - seg.from, None);
                rng.shuffle_by_halves(&mut segment);
                out[seg.window].append(&mut segment);
            }
            at = next;
        }
        out
    }
}
