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

use std::collections::HashMap;
use std::hash::BuildHasherDefault;

use crate::bignum::{binomial, Big};
use crate::follow::FxHasher;
use crate::info::InfoSet;
use crate::rng::Rng;

/// Draws in all windows at most, where a window is optional: one of many draws seldom rejects
/// (its seat had many cards to show from), so the rejections are left to meet it.
pub const MAX_DRAWS: usize = 20;

/// Draws in all windows at most under C9, where they must cover every shower or the counting
/// programme weights the small jokers for four holders (milliseconds): their counts stay below
/// 216^48 < 2^512.
pub const MAX_DRAWS_C9: usize = 48;

/// Counted states at most, over all the sets of windows tried: a bound on the first world's
/// cost (about 0.2 µs a state). Windows that would take the count beyond it are left to the
/// rejections.
pub const MAX_STATES: usize = 1 << 15;

/// One seat's window: its deal positions before its run's last showing, in deal order.
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

/// (level cards of each symbol drawn so far, the window's own counts of each suit capped at
/// its need and of small jokers capped at one, the suits its run can still have, the
/// segment's draws not yet given a symbol)
type State = ([u8; 5], [u8; 5], u8, u8);

/// Step t (segment t / 5, symbol t % 5) and a state, packed (t above 15 + 15 + 4 + 6 bits):
/// the memo's key. Its iteration order is never read, so the hasher decides nothing.
fn key(t: usize, (n, m, mask, left): State) -> u64 {
    let mut k = t as u64;
    for x in n.iter().chain(&m) {
        k = k << 3 | *x as u64;
    }
    (k << 4 | mask as u64) << 6 | left as u64
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
enum Counts {
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
    counts: Counts,
}

impl EarlyRuns {
    /// The windows of the other seats whose hand is being dealt, each with one hidden run in
    /// this attempt, taken smallest first while the draws stay within [`MAX_DRAWS`] and the
    /// counting of every set tried within [`MAX_STATES`] states; `None` when there is none. Under C9 (`joker`),
    /// the windows of every other seat that showed in this attempt, or `None`.
    pub fn of(info: &InfoSet, joker: bool) -> Option<EarlyRuns> {
        let attempt = info.first_seats.len() - 1;
        let first = info.first_seats[attempt];
        let mut windows: Vec<Window> = Vec::new();
        for seat in (0..4u8).filter(|&s| s != info.seat) {
            let runs: Vec<_> = info.runs.iter().filter(|r| r.seat == seat && r.attempt as usize == attempt).collect();
            let [run] = runs.as_slice() else {
                if joker && !runs.is_empty() {
                    return None; // under C9 every shower or none (see below)
                }
                continue;
            };
            let Some(&(t_last, _)) = run.showings.last() else { continue };
            // the seat's positions before its last showing (t_last ≤ DECK cards dealt)
            let positions: Vec<u8> = crate::determinize::positions(first, seat, t_last as usize).map(|p| p as u8).collect();
            let showings: Vec<(usize, u8)> = run.showings.iter().map(|&(t, k)| (positions.iter().filter(|&&p| p < t).count(), k)).collect();
            let allowed = run.suit.map_or(0b1111, |s| 1 << s);
            let k_max = run.showings.iter().map(|s| s.1).max().unwrap_or(0);
            let joker_before = joker.then(|| showings[0].0);
            windows.push(Window { seat, positions, showings, allowed, k_max, joker_before });
        }
        windows.sort_by_key(|w| (w.positions.len(), w.seat));
        let level: [u8; 5] = std::array::from_fn(|s| match s {
            4 if joker => info.unseen[crate::card::SJ.id()],
            4 => 0,
            _ => info.unseen[crate::card::Card::new(s as u8, info.level).id()],
        });
        let pool: u16 = info.unseen.iter().map(|&c| c as u16).sum();
        let other = pool - level.iter().map(|&c| c as u16).sum::<u16>();
        if windows.is_empty() {
            return None;
        }
        if joker {
            // C9: the windows replace the counting programme's weights for the small jokers
            // only where they cover every shower; so all of them, counted once, or none
            if windows.iter().map(|w| w.positions.len()).sum::<usize>() > MAX_DRAWS_C9 {
                return None;
            }
            return EarlyRuns::counted(windows, level, other, &mut { MAX_STATES });
        }
        // smallest first, each kept while the draws and the counting stay within bounds
        let mut kept: Option<EarlyRuns> = None;
        let mut budget = MAX_STATES;
        for w in windows {
            let mut set: Vec<Window> = kept.as_ref().map_or(Vec::new(), |k| k.windows.clone());
            set.push(w);
            if set.iter().map(|w| w.positions.len()).sum::<usize>() > MAX_DRAWS {
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
        let mut e = EarlyRuns { windows, level, other, segments, counts: Counts::Narrow(HashMap::default()) };
        let start = e.enter(0, [0; 5])?;
        let mut narrow: Memo<u128> = Memo::default();
        let counted = e.count(&mut narrow, 0, start, *budget);
        *budget -= narrow.len();
        e.counts = match counted {
            Ok(n) => (n > 0).then_some(Counts::Narrow(narrow))?,
            Err(Stop::States) => return None,
            Err(Stop::Overflow) => {
                let mut wide: Memo<Big> = Memo::default();
                let counted = e.count(&mut wide, 0, start, *budget);
                *budget -= wide.len();
                let n = counted.ok()?;
                (!n.is_zero()).then_some(Counts::Wide(wide))?
            }
        };
        Some(e)
    }

    /// The states counted (what building these windows cost).
    pub fn states(&self) -> usize {
        match &self.counts {
            Counts::Narrow(m) => m.len(),
            Counts::Wide(m) => m.len(),
        }
    }

    /// The state at the start of segment g with `n` level cards drawn (`None` when the window
    /// it begins admits no suit).
    fn enter(&self, g: usize, n: [u8; 5]) -> Option<State> {
        let seg = self.segments[g];
        let win = &self.windows[seg.window];
        let mask = self.apply(win, 0, [0; 5], win.allowed);
        (mask != 0).then_some((n, [0; 5], mask, (seg.to - seg.from) as u8))
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
        mask
    }

    /// The choices at step t from `st`: `f(c, weight, next)` for each count c of the step's
    /// symbol the segment can take (its weight: the choices of physical cards, and at the
    /// segment's last symbol those of its other cards too; `next`: `None` after the last
    /// segment). Stops early when `f` returns true.
    fn choices<C: Count>(&self, t: usize, st: State, mut f: impl FnMut(u8, C, Option<State>) -> Result<bool, Stop>) -> Result<(), Stop> {
        let (g, j) = (t / 5, t % 5);
        let seg = self.segments[g];
        let win = &self.windows[seg.window];
        let (n, m, mask, left) = st;
        let copies = self.level[j] - n[j];
        for c in 0..=copies.min(left) {
            let mut weight = C::binomial(copies as usize, c as usize).ok_or(Stop::Overflow)?;
            let mut n2 = n;
            n2[j] += c;
            let mut m2 = m;
            let cap = if j == SMALL_JOKER as usize { 1 } else { win.k_max };
            m2[j] = (m[j] + c).min(cap);
            let left2 = left - c;
            if j < 4 {
                if f(c, weight, Some((n2, m2, mask, left2)))? {
                    return Ok(());
                }
                continue;
            }
            // the segment's other cards: every draw so far not a level card was one
            let len = seg.to - seg.from;
            let level_drawn: usize = n2.iter().map(|&x| x as usize).sum();
            let others_taken = seg.before + len - left2 as usize - level_drawn;
            let b = self.other as usize - others_taken;
            let ways = C::binomial(b, left2 as usize).ok_or(Stop::Overflow)?;
            weight = C::add_product(C::ZERO, weight, ways).ok_or(Stop::Overflow)?;
            if weight.is_zero() {
                continue;
            }
            let mask2 = self.apply(win, seg.to, m2, mask);
            if mask2 == 0 {
                continue;
            }
            let next = match self.segments.get(g + 1) {
                None => None,
                Some(s) if s.window == seg.window => Some((n2, m2, mask2, (s.to - s.from) as u8)),
                Some(_) => match self.enter(g + 1, n2) {
                    Some(st) => Some(st),
                    None => continue,
                },
            };
            if f(c, weight, next)? {
                return Ok(());
            }
        }
        Ok(())
    }

    /// Whether step t has one choice from `st` (its symbol has no copies left, or the
    /// segment no draws): such steps are neither memoised nor drawn.
    fn forced(&self, t: usize, (n, _, _, left): State) -> bool {
        left == 0 || self.level[t % 5] == n[t % 5]
    }

    /// N(t, st): the weighted ways to make steps t.. from `st`, memoised in `memo` (at most
    /// `limit` states).
    fn count<C: Count>(&self, memo: &mut Memo<C>, t: usize, st: State, limit: usize) -> Result<C, Stop> {
        let forced = self.forced(t, st);
        if !forced {
            if let Some(&c) = memo.get(&key(t, st)) {
                return Ok(c);
            }
            if memo.len() >= limit {
                return Err(Stop::States);
            }
        }
        let mut total = C::ZERO;
        self.choices::<C>(t, st, |_, w, next| {
            let rest = match next {
                Some(st2) => self.count(memo, t + 1, st2, limit)?,
                None => C::ONE,
            };
            total = total.add_product(w, rest).ok_or(Stop::Overflow)?;
            Ok(false)
        })?;
        if !forced {
            memo.insert(key(t, st), total);
        }
        Ok(total)
    }

    /// The windows' draws, exactly from their law given the showings: per window, one draw
    /// per position (`Some(suit)`: that suit's level card, or [`SMALL_JOKER`]; `None`: another
    /// card).
    pub fn draw(&self, rng: &mut Rng) -> Vec<Vec<Drawn>> {
        match &self.counts {
            Counts::Narrow(m) => self.draw_with(m, rng),
            Counts::Wide(m) => self.draw_with(m, rng),
        }
    }

    /// N(t, st) as counted (forced steps are not memoised: their one choice's count).
    fn counted_at<C: Count>(&self, memo: &Memo<C>, t: usize, st: State) -> C {
        if !self.forced(t, st) {
            return memo[&key(t, st)];
        }
        let mut n = C::ZERO;
        let _ = self.choices::<C>(t, st, |_, w, next| {
            n = C::product(w, next.map_or(C::ONE, |s| self.counted_at(memo, t + 1, s)));
            Ok(true)
        });
        n
    }

    fn draw_with<C: Count>(&self, memo: &Memo<C>, rng: &mut Rng) -> Vec<Vec<Drawn>> {
        let mut out: Vec<Vec<Drawn>> = self.windows.iter().map(|w| Vec::with_capacity(w.positions.len())).collect();
        let mut st = self.enter(0, [0; 5]).expect("a window with draws");
        let mut segment: Vec<Drawn> = Vec::new();
        for t in 0..self.segments.len() * 5 {
            let forced = self.forced(t, st);
            let mut x = if forced { C::ZERO } else { memo[&key(t, st)].below(rng) };
            let mut chosen = None;
            let found = self.choices::<C>(t, st, |c, w, next| {
                if forced {
                    chosen = Some((c, next));
                    return Ok(true);
                }
                let v = C::product(w, next.map_or(C::ONE, |s| self.counted_at(memo, t + 1, s)));
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
            match next {
                Some(s) => st = s,
                None => break,
            }
        }
        out
    }
}
