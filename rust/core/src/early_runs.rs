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
//! here from their exact law given the showings, by counting: N(i, state), the weighted ways to
//! fill the windows from draw i on, over states (level cards of each suit drawn so far, the
//! window's own counts, the suits its run can still have). The rest of the shuffle is then
//! uniform given the windows, so the proposal is the uniform one conditioned on these showings
//! (the other evidence is still checked by rejection).
//!
//! Under C9 (a competition match's first hand) every run began with a small joker in the
//! shower's hand: a window then also needs one among its draws before the run's first
//! showing, and the small joker is a draw of its own ([`SMALL_JOKER`]).

use std::collections::HashMap;
use std::hash::BuildHasherDefault;

use crate::follow::FxHasher;

use crate::info::InfoSet;
use crate::rng::Rng;

/// Draws in all windows at most (the counts stay below 216^16 < 2^128).
pub const MAX_DRAWS: usize = 16;

/// Counted states at most, a bound on the first world's cost (about 0.2 µs a state): a window
/// that would take the count beyond it is left to the rejections. On 12,129 mid-deal positions
/// of greedy play in all three profiles the mean was 2,423 states, 6% needed 10,000 or more,
/// and the most was 29,336 (6.5 ms).
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

/// (level cards of each suit and small jokers drawn so far, the window's own counts of each
/// suit capped at its need and of small jokers capped at one, the suits its run can still have)
type State = ([u8; 5], [u8; 5], u8);

/// Draw i and a state, packed (5 + 15 + 15 + 4 bits): the memo's key. Its iteration order is
/// never read, so the hasher decides nothing.
fn key(i: usize, (n, m, mask): State) -> u64 {
    let mut k = i as u64;
    for x in n.iter().chain(&m) {
        k = k << 3 | *x as u64;
    }
    k << 4 | mask as u64
}

/// A draw's possible outcomes from one state: at most six (four suits, a small joker, another
/// card).
type Moves = ([(Drawn, u128, Option<State>); 6], usize);

/// The windows and the counts to draw them.
#[derive(Clone, Debug)]
pub struct EarlyRuns {
    pub windows: Vec<Window>,
    /// Unseen copies of each suit's level card and of the small joker (counted as a draw of
    /// its own only under C9, else 0 and among the others), and unseen other cards.
    level: [u8; 5],
    other: u16,
    /// Window and index of draw i.
    at: Vec<(usize, usize)>,
    counts: HashMap<u64, u128, BuildHasherDefault<FxHasher>>,
}

/// One draw: a level card of a suit, a small joker ([`SMALL_JOKER`], under C9), or another
/// card.
pub type Drawn = Option<u8>;

impl EarlyRuns {
    /// The windows of the other seats whose hand is being dealt, each with one hidden run in
    /// this attempt, taken smallest first while the draws stay within [`MAX_DRAWS`] and the
    /// counting within [`MAX_STATES`] states; `None` when there is none. Under C9 (`joker`),
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
            if windows.iter().map(|w| w.positions.len()).sum::<usize>() > MAX_DRAWS {
                return None;
            }
            return EarlyRuns::counted(windows, level, other);
        }
        // smallest first, each kept while the draws and the counting stay within bounds
        let mut kept: Option<EarlyRuns> = None;
        for w in windows {
            let mut set: Vec<Window> = kept.as_ref().map_or(Vec::new(), |k| k.windows.clone());
            set.push(w);
            if set.iter().map(|w| w.positions.len()).sum::<usize>() > MAX_DRAWS {
                continue;
            }
            if let Some(e) = EarlyRuns::counted(set, level, other) {
                kept = Some(e);
            }
        }
        kept
    }

    /// The counts for `windows`, or `None` when they overflow 128 bits, need more than
    /// [`MAX_STATES`] states, or admit no draw at all (the rejections then report the
    /// inconsistency).
    fn counted(windows: Vec<Window>, level: [u8; 5], other: u16) -> Option<EarlyRuns> {
        let at = windows.iter().enumerate().flat_map(|(w, win)| (0..win.positions.len()).map(move |r| (w, r))).collect();
        let mut e = EarlyRuns { windows, level, other, at, counts: HashMap::default() };
        let start = e.enter(0, [0; 5])?;
        (e.count(0, start)? > 0).then_some(e)
    }

    /// The states counted (what building these windows cost).
    pub fn states(&self) -> usize {
        self.counts.len()
    }

    /// The state at the start of window w (its showings before any draw applied), or `None`.
    fn enter(&self, w: usize, n: [u8; 5]) -> Option<State> {
        let win = &self.windows[w];
        let mask = self.apply(win, 0, [0; 5], win.allowed);
        (mask != 0).then_some((n, [0; 5], mask))
    }

    /// The suits still possible after window draw r: each showing made after exactly r draws
    /// of the window needs its count (and under C9 the first needs a small joker before it).
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

    /// The draws possible at draw i from state `st`: (draw, weight, next state or `None`
    /// at the end of the last window).
    fn moves(&self, i: usize, st: State) -> Moves {
        let (n, m, mask) = st;
        let (w, r) = self.at[i];
        let win = &self.windows[w];
        let taken: u16 = n.iter().map(|&x| x as u16).sum();
        let others_taken = i as u16 - taken;
        let mut out: Moves = ([(None, 0, None); 6], 0);
        for d in (0..5u8).map(Some).chain(std::iter::once(None)) {
            let (weight, n2, m2) = match d {
                Some(s) => {
                    let left = self.level[s as usize] - n[s as usize];
                    let mut n2 = n;
                    n2[s as usize] += 1;
                    let mut m2 = m;
                    let cap = if s == SMALL_JOKER { 1 } else { win.k_max };
                    m2[s as usize] = (m2[s as usize] + 1).min(cap);
                    (left as u128, n2, m2)
                }
                None => ((self.other - others_taken) as u128, n, m),
            };
            if weight == 0 {
                continue;
            }
            let mask2 = self.apply(win, r + 1, m2, mask);
            if mask2 == 0 {
                continue;
            }
            let next = if r + 1 < win.positions.len() {
                Some((n2, m2, mask2))
            } else if w + 1 < self.windows.len() {
                match self.enter(w + 1, n2) {
                    Some(st) => Some(st),
                    None => continue,
                }
            } else {
                None
            };
            out.0[out.1] = (d, weight, next);
            out.1 += 1;
        }
        out
    }

    /// N(i, st): the weighted ways to make draws i.. from `st` (`None`: over 128 bits, or more
    /// than [`MAX_STATES`] states).
    fn count(&mut self, i: usize, st: State) -> Option<u128> {
        if let Some(&c) = self.counts.get(&key(i, st)) {
            return Some(c);
        }
        if self.counts.len() >= MAX_STATES {
            return None;
        }
        let mut total = 0u128;
        let (moves, len) = self.moves(i, st);
        for &(_, weight, next) in &moves[..len] {
            let rest = match next {
                Some(st2) => self.count(i + 1, st2)?,
                None => 1,
            };
            total = total.checked_add(weight.checked_mul(rest)?)?;
        }
        self.counts.insert(key(i, st), total);
        Some(total)
    }

    /// The windows' draws, exactly from their law given the showings: per window, one draw
    /// per position (`Some(suit)`: that suit's level card; `None`: another card).
    pub fn draw(&self, rng: &mut Rng) -> Vec<Vec<Drawn>> {
        let mut out: Vec<Vec<Drawn>> = self.windows.iter().map(|w| Vec::with_capacity(w.positions.len())).collect();
        let mut st = self.enter(0, [0; 5]).expect("a window with draws");
        for i in 0..self.at.len() {
            let total = self.counts[&key(i, st)];
            let mut x = rng.below(total);
            let mut chosen = None;
            let (moves, len) = self.moves(i, st);
            for &(d, weight, next) in &moves[..len] {
                let v = weight * next.map_or(1, |s| self.counts[&key(i + 1, s)]);
                if x < v {
                    chosen = Some((d, next));
                    break;
                }
                x -= v;
            }
            let (d, next) = chosen.expect("the weights sum to the count");
            out[self.at[i].0].push(d);
            match next {
                Some(s) => st = s,
                None => break,
            }
        }
        out
    }
}
