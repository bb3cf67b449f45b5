//! Determinization: complete worlds consistent with what one seat knows ([`InfoSet`]).
//!
//! **The target.** A uniformly random deal of the cards the seat cannot see, conditioned on
//! its observation: what rejection sampling over random physical deals gives (each world
//! weighted by the number of physical deals that produce it; the four copies of a kind are
//! distinct cards). Holders of unseen cards are the other three hands and, while dealing,
//! the undealt cards. (A hand from given hands puts only the four hands in play and they are
//! public as a whole: its unseen cards are exactly the other three hands.)
//!
//! **The sampler**, exact by construction:
//! 1. *Propose* each holder's cards: where no kind carries a bound, a plain shuffle of the
//!    unseen cards (for a dealt hand, its level cards first, so that step 3's timing, which
//!    reads only them, can reject before the rest is dealt; while dealing, the cards other
//!    seats received before their hidden showings come first of all, drawn from their exact
//!    law given those showings, [`EarlyRuns`], under C9 with the small jokers, where they
//!    cover every other shower); otherwise a dynamic programme over the kinds that carry a bound, with exact
//!    integer counts of the physical deals ([`Big`]), built once per info set: it draws
//!    uniformly among the deals that meet every bound (kinds without a bound are dealt by one
//!    shuffle). For a dealt hand it also weights the final declarer's revealed showings by
//!    the exact share of placements of its trump level cards that fit their timing, and,
//!    under C9 (a competition match's first hand), every other shower's small jokers by the
//!    share of their placements that put one among its cards before its first showing; and
//!    one other seat's hidden run of a single one-card showing by the share of placements of
//!    its level cards that put one before it ([`OneEarly`]).
//! 2. *Check* the follows whose legality depended on the whole hand (R5.3), exactly; a check
//!    that passes on the largest hand the bounds allow passes on every world and is not run
//!    (legality is monotone in the holding, [`Determinizer::live_checks`]). A check
//!    reads only its led class, so the counting programme places each checked class's kinds
//!    (all of them, bounded or not) before the other kinds and runs the class's checks as
//!    soon as it is placed: a failing proposal is rejected there, before the rest is drawn
//!    (the same accepted distribution, found sooner; verdicts are memoised per class holding,
//!    [`CheckMemo`]). A checked class with more than `WHOLE_CLASS_UNBOUNDED` (4) unbounded
//!    kinds stays with the shuffle, and its checks run on the whole proposal.
//! 3. For a dealt hand, *arrange* each hand's cards over its deal positions uniformly and
//!    check every showing's timing: a seat that showed k cards at time t held k level cards of
//!    that suit among the cards dealt to it by then (R8.1, D7), and under C9 a small joker
//!    when its run began (the final declarer's small jokers are left to the replay). A showing whose suit is hidden
//!    takes a suit uniformly among those its world allows (runs of one seat's consecutive
//!    showings share a suit, R8.1). Earlier attempts (R8.5) keep the seat's own cards and deal
//!    the rest uniformly. The world is then replayed from its decks; its deal must stop where
//!    the seat saw it stop.
//!
//! A rejection at any step starts again from step 1, so the accepted world is an exact draw
//! from the target (for dealt hands: with the hidden-suit choice stated above; the target
//! itself says nothing of why players show when they do).
//!
//! A world depends only on the info set and the seed: it reads nothing else of the game.

use crate::bignum::{binomial, Big, BigVec};
use crate::card::{Card, Counts, KINDS, SJ};
use crate::check_memo::CheckMemo;
use crate::early_runs::{self, CanShow, EarlyRuns, SMALL_JOKER};
use crate::error::Error;
use crate::hand_state::{Action, Game, Phase, Position, Tally, TrickRecord, NOBODY};
use crate::info::{InfoSet, Run};
use crate::rng::Rng;
use crate::seed::DECK;

/// A checked class is drawn whole by the counting programme when at most this many of its
/// kinds carry no bound.
const WHOLE_CLASS_UNBOUNDED: usize = 4;

/// Rejections before giving up (never reached by consistent info sets in testing).
const MAX_TRIES: usize = 2_000_000;

/// One holder of unseen cards: a seat's hand now, or the pile (undealt / out of play).
#[derive(Clone, Debug)]
struct Holder {
    seat: u8,
    size: u16,
    lo: Counts,
    hi: Counts,
}

/// The splits of one kind's unseen copies over the holders, each with its weight.
type Splits = Vec<([u8; 4], u128)>;

/// A split as a step of the walk: the flattened state index falls by `off` (Σ a[d]·stride[d]
/// over the holders but the last), and those holders take `took` cards.
#[derive(Clone, Copy, Debug)]
struct Move {
    off: usize,
    took: u16,
}

impl Move {
    fn of(dims: &[usize], a: &[u8; 4]) -> Move {
        let (mut off, mut stride, mut took) = (0, 1, 0);
        for (d, &n) in dims.iter().enumerate() {
            off += a[d] as usize * stride;
            stride *= n;
            took += a[d] as u16;
        }
        Move { off, took }
    }

    /// The next state's index from state `i` (remaining room `s`) if the split is feasible:
    /// no holder over-filled, and the last holder's implied room within the cards still to
    /// come (without recomputing the index).
    #[inline]
    fn next(&self, nd: usize, a: &[u8; 4], s: &[u16; 4], i: usize, used: u16, remaining_next: u16) -> Option<usize> {
        ((0..nd).all(|d| s[d] >= a[d] as u16) && used - self.took <= remaining_next).then(|| i - self.off)
    }
}

/// The counting programme over bounded kinds.
#[derive(Clone, Debug)]
struct Dp {
    /// (kind, allowed allocations over the holders with their weights c!/Π a!).
    kinds: Vec<(u8, Splits)>,
    /// Each split of `kinds` as a step of the walk.
    moves: Vec<Vec<Move>>,
    /// Radix of each state coordinate (holders but the last).
    dims: Vec<usize>,
    /// `table[j][state]`: weighted completions of kinds j.. from that state.
    table: Vec<BigVec>,
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
    boundary: Option<(usize, BigVec)>,
}

/// Hands drawn for a world: each seat's hand now and the pile.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Draw {
    pub hands: [Counts; 4],
    pub pile: Counts,
}

/// Samples worlds for one info set; the counting programme is built on first need and reused.
#[derive(Clone, Debug)]
pub struct Determinizer {
    pub info: InfoSet,
    holders: Vec<Holder>,
    pool: Vec<u8>,
    dp: Option<Dp>,
    /// The level kinds (R8.1) when other seats' showings are timed evidence: the counting
    /// programme takes them first, so their timing rejects a proposal before the rest is drawn.
    timed: Vec<u8>,
    /// Whether the showings' timing is evidence (exact worlds of a dealt hand).
    timing: bool,
    /// The final declarer's revealed run, weighted exactly into the counting programme.
    revealed: Option<Revealed>,
    /// C9's small jokers of the other showers (all but the revealed run's), weighted likewise.
    jokers: Vec<OneEarly>,
    /// One other seat's hidden run of a single one-card showing, weighted likewise.
    level_fit: Option<OneEarly>,
    /// While dealing, the windows of other seats' hidden runs, drawn exactly by the shuffle.
    early: Option<EarlyRuns>,
    /// Whether the counting programme can propose better than a plain shuffle.
    use_dp: bool,
    /// The holder of each ladder check's follower.
    check_holder: Vec<usize>,
    /// The ladder checks (indices into `info.checks`) that some hand within the bounds could
    /// fail: the others pass on every world the bounds allow and are never run (see
    /// [`Determinizer::live_checks`]).
    live: Vec<usize>,
    /// The checks' verdicts so far (a cache: it changes no draw).
    memo: CheckMemo,
    /// The public play history as replayed in the first world (a cache: it changes no world).
    play: Option<PlayTemplate>,
    /// Proposals made and worlds accepted so far (the acceptance rate of the rejection steps).
    pub proposals: u64,
    pub accepted: u64,
}

fn factorial(n: u8) -> u64 {
    (1..=n as u64).product()
}

impl Determinizer {
    /// Hands only from the play's evidence (voids, ladder bounds and checks, the revealed
    /// trumps), ignoring when showings were made: what the search policies use. Exact for a
    /// hand from given hands; for a dealt hand it leaves out the showings' timing (see
    /// BENCHMARKS.md for the difference). [`Determinizer::world`] needs the exact sampler.
    pub fn for_search(info: InfoSet) -> Determinizer {
        let mut d = Determinizer::new(info);
        d.timing = false;
        d.timed.clear();
        d.revealed = None;
        d.jokers.clear();
        d.level_fit = None;
        d.early = None;
        d.use_dp = d.compute_needs_dp();
        d
    }

    pub fn new(info: InfoSet) -> Determinizer {
        let mut holders: Vec<Holder> = (0..4u8)
            .filter(|&s| s != info.seat)
            .map(|s| Holder {
                seat: s,
                size: info.hand_sizes[s as usize] as u16,
                lo: info.lower[s as usize],
                hi: info.upper[s as usize],
            })
            .collect();
        let unseen_total: u16 = info.unseen.iter().map(|&c| c as u16).sum();
        let in_hands: u16 = holders.iter().map(|h| h.size).sum();
        if unseen_total > in_hands {
            holders.push(Holder { seat: NOBODY, size: unseen_total - in_hands, lo: [0; KINDS], hi: info.unseen });
        }
        // the largest holder last: the programme's states range over the others
        holders.sort_by_key(|h| (h.size, h.seat));
        let mut pool = Vec::with_capacity(unseen_total as usize);
        for (k, &c) in info.unseen.iter().enumerate() {
            pool.extend(std::iter::repeat_n(k as u8, c as usize));
        }
        let timed = if info.dealt_hand && info.runs.iter().any(|r| r.seat != info.seat) { plan_kinds(&info) } else { Vec::new() };
        let revealed = if timed.is_empty() { None } else { Revealed::of(&info, &holders) };
        let jokers = if timed.is_empty() || !small_joker_timed(&info) { Vec::new() } else { joker_fits(&info, &holders, revealed.as_ref()) };
        let level_fit = if timed.is_empty() || small_joker_timed(&info) { None } else { level_fit(&info, &holders, revealed.as_ref()) };
        let memo = CheckMemo::new(&info);
        let check_holder: Vec<usize> = info.checks.iter().map(|c| holders.iter().position(|h| h.seat == c.seat).expect("a follower is another seat")).collect();
        let live = Self::live_checks(&info, &holders, &check_holder);
        let mut d = Determinizer { info, holders, pool, dp: None, timed, timing: true, revealed, jokers, level_fit, early: None, use_dp: false, check_holder, live, memo, play: None, proposals: 0, accepted: 0 };
        d.use_dp = d.compute_needs_dp();
        // the shuffle's windows while dealing (other seats' hidden runs, the seat the deal
        // stopped at), where the counting programme is not used
        let stopped = d.info.dealt_hand && !small_joker_timed(&d.info) && early_runs::decider(&d.info).is_some();
        if (!d.timed.is_empty() || stopped) && d.info.phase == Phase::Declare {
            if !small_joker_timed(&d.info) {
                if !d.use_dp {
                    d.early = EarlyRuns::of(&d.info, false);
                }
            } else if let Some(e) = EarlyRuns::of(&d.info, true) {
                // C9: the windows cover every other shower (`of` gives all or none) and draw
                // its small joker before its first showing exactly, so neither the programme's
                // weights for them (`jokers`) nor the showers' lower bound of one small joker
                // are needed
                let mut plain = d.clone();
                plain.jokers.clear();
                for h in plain.holders.iter_mut().filter(|h| e.windows.iter().any(|w| w.seat == h.seat)) {
                    h.lo[SJ.id()] = 0;
                }
                if !plain.compute_needs_dp() {
                    plain.use_dp = false;
                    plain.early = Some(e);
                    d = plain;
                }
            }
        }
        d
    }

    /// The checks a world within the bounds could fail. A follow's legality is monotone in
    /// the follower's holding of the led class: the ladder (R5.3; C3 in the competition
    /// profile) makes legal the N-card selections whose key is the best the holding allows,
    /// and a smaller holding that still contains the play allows no better key (its selections
    /// are the larger one's), so a play legal from a holding is legal from every holding
    /// between the play and it. Every hand a world gives the follower lies below the bounds
    /// (its upper bound per kind, at most the unseen copies), and its holding then contains
    /// the play (the cards played since are added back): a check that passes on that largest
    /// hand passes on all of them and cannot reject. Dropping it changes no accepted world's
    /// distribution, only the cost (tested against brute force, `tests/determinize.rs`).
    fn live_checks(info: &InfoSet, holders: &[Holder], check_holder: &[usize]) -> Vec<usize> {
        (0..info.checks.len())
            .filter(|&ci| {
                let h = &holders[check_holder[ci]];
                let mut largest = [0u8; KINDS];
                for (k, x) in largest.iter_mut().enumerate() {
                    *x = h.hi[k].min(info.unseen[k]);
                }
                !info.passes_check(&info.checks[ci], &largest)
            })
            .collect()
    }

    /// The seats whose early cards the shuffle draws exactly ([`EarlyRuns`]; empty when none).
    pub fn early_windows(&self) -> Vec<u8> {
        self.early.as_ref().map_or(Vec::new(), |e| e.windows.iter().map(|w| w.seat).collect())
    }

    /// The ladder checks (indices into `info.checks`) a world must still pass; the others
    /// pass on every hand within the bounds.
    pub fn live_checks_run(&self) -> &[usize] {
        &self.live
    }

    fn bounded(&self, k: usize) -> bool {
        let c = self.info.unseen[k];
        self.timed.contains(&(k as u8)) || self.holders.iter().any(|h| h.lo[k] > 0 || h.hi[k] < c)
    }

    /// The led classes of the ladder checks, in order of first appearance.
    fn checked_classes(&self) -> Vec<u8> {
        let mut v: Vec<u8> = Vec::new();
        for c in self.live.iter().map(|&ci| &self.info.checks[ci]) {
            if !v.contains(&c.lead.class) {
                v.push(c.lead.class);
            }
        }
        v
    }

    /// The counting programme helps where some kind carries a real bound, where it weights
    /// the revealed showings, or where ladder checks can reject a class early; otherwise its
    /// proposal is the plain shuffle's.
    fn compute_needs_dp(&self) -> bool {
        self.revealed.is_some()
            || !self.jokers.is_empty()
            // the hidden run's weight pays once the deal is over; mid-deal, with the undealt
            // cards a fourth holder, building the programme costs more than the rejections
            || (self.level_fit.is_some() && self.holders.len() <= 3)
            || !self.live.is_empty()
            || (0..KINDS).any(|k| self.info.unseen[k] > 0 && self.holders.iter().any(|h| h.lo[k] > 0 || h.hi[k] < self.info.unseen[k]))
    }

    fn within_bounds(&self, alloc: &[Counts]) -> bool {
        self.holders.iter().zip(alloc).all(|(h, a)| (0..KINDS).all(|k| a[k] >= h.lo[k] && a[k] <= h.hi[k]))
    }

    /// Deals `cards` (one entry per physical card) into the holders' `room`, uniformly.
    fn deal_free(cards: &mut [u8], room: &[u16], out: &mut [Counts], rng: &mut Rng) {
        let n = cards.len();
        for i in (1..n).rev() {
            let j = rng.below_usize(i + 1);
            cards.swap(i, j);
        }
        let mut at = 0;
        for (h, &r) in room.iter().enumerate() {
            for &k in &cards[at..at + r as usize] {
                out[h][k as usize] += 1;
            }
            at += r as usize;
        }
        debug_assert_eq!(at, n);
    }

    fn propose_uniform(&self, rng: &mut Rng) -> Vec<Counts> {
        let mut cards = self.pool.clone();
        let room: Vec<u16> = self.holders.iter().map(|h| h.size).collect();
        let mut out = vec![[0u8; KINDS]; self.holders.len()];
        Self::deal_free(&mut cards, &room, &mut out, rng);
        out
    }

    /// The uniform proposal of a dealt hand with its level cards first (the showings' timing
    /// and the deal's stop read only them, R8.1, D7): each unseen level card takes a uniformly
    /// random place among the holders' rooms, [`level_plan`] may reject there, and only then
    /// are the other cards dealt, shuffled, into the places left. A uniform bijection of
    /// cards to places, as [`Determinizer::propose_uniform`]'s shuffle, found sooner.
    fn propose_uniform_timed(&self, rng: &mut Rng, plan: &mut Option<LevelPlan>) -> Option<Vec<Counts>> {
        let n = self.pool.len();
        let kinds = plan_kinds(&self.info);
        let (mut lv, mut rest): (Vec<u8>, Vec<u8>) = self.pool.iter().partition(|k| kinds.contains(k));
        let mut ends = [0u16; 5];
        for (h, x) in self.holders.iter().enumerate() {
            ends[h + 1] = ends[h] + x.size;
        }
        let mut out = vec![[0u8; KINDS]; self.holders.len()];
        // the windows before early hidden showings first, exactly ([`EarlyRuns`]): window
        // draw r of a seat is the r-th place of its room (its r-th card dealt), a level card of
        // the drawn suit or a uniform other card
        let mut places: Vec<u16> = (0..n as u16).collect();
        let mut fixed: Vec<(u8, u8)> = Vec::new();
        let mut taken: Vec<u8> = Vec::new();
        if let Some(e) = self.early.as_ref() {
            let mut used = vec![false; n];
            for (win, draws) in e.windows.iter().zip(e.draw(rng)) {
                let h = self.holders.iter().position(|x| x.seat == win.seat).expect("a window's seat is a holder");
                for (r, d) in draws.into_iter().enumerate() {
                    used[ends[h] as usize + r] = true;
                    taken.push(win.positions[r]);
                    let k = match d {
                        Some(suit) => {
                            let k = if suit == SMALL_JOKER { SJ.0 } else { Card::new(suit, self.info.level).0 };
                            let i = lv.iter().position(|&x| x == k).expect("an unseen copy of the drawn level card");
                            lv.swap_remove(i);
                            fixed.push((win.positions[r], k));
                            k
                        }
                        None => rest.swap_remove(rng.below_usize(rest.len())),
                    };
                    out[h][k as usize] += 1;
                }
            }
            places.retain(|&p| !used[p as usize]);
        }
        let free = places.len();
        for i in 0..lv.len() {
            let j = i + rng.below_usize(free - i);
            places.swap(i, j);
        }
        let owner = |p: u16| (0..self.holders.len()).find(|&h| p < ends[h + 1]).expect("a place in some room");
        for (&k, &p) in lv.iter().zip(&places) {
            out[owner(p)][k as usize] += 1;
        }
        *plan = level_plan(&self.info, &self.holders, &out, None, &[], None, (&fixed, &taken), rng);
        plan.as_ref()?;
        rng.shuffle_by_halves(&mut rest);
        for (&k, &p) in rest.iter().zip(&places[lv.len()..]) {
            out[owner(p)][k as usize] += 1;
        }
        Some(out)
    }

    fn build_dp(&self) -> Result<Dp, Error> {
        let hs = &self.holders;
        let nh = hs.len();
        let mut kinds = Vec::new();
        let mut free = Vec::new();
        // Order: the timed kinds, then every kind of each checked class (bounded or not, so
        // that its checks run as soon as the class is placed), then the other bounded kinds.
        // Any order counts the same deals; this one rejects early. A checked class with many
        // unbounded kinds stays with the shuffle (each such kind would cost the programme up
        // to 35 splits per state) and its checks run on the whole proposal. Without a hidden
        // run's boundary layer (it reads a seat's level cards off its room, so the timed kinds
        // must come first), the checked classes without a timed kind (the side suits) come
        // first of all: their checks then reject before the timing is drawn
        let checked = self.checked_classes();
        // (checks come from tricks: the trump is public whenever there is one)
        let ctx = (!checked.is_empty()).then(|| self.info.ctx());
        let whole: Vec<u8> = match ctx {
            Some(ctx) => {
                let unbounded = |cl: u8| ctx.class_kinds(cl).iter().filter(|&&k| self.info.unseen[k as usize] > 0 && !self.bounded(k as usize)).count();
                checked.iter().copied().filter(|&cl| unbounded(cl) <= WHOLE_CLASS_UNBOUNDED).collect()
            }
            None => Vec::new(),
        };
        let class_kinds = |cl: u8| ctx.map_or(&[][..], |ctx| ctx.class_kinds(cl));
        let in_checked: Vec<u8> = whole.iter().flat_map(|&cl| class_kinds(cl).iter().copied()).collect();
        // (and only where the timing cannot reject: every other seat's run is the revealed
        // one, placed among the fitting placements; a hidden run's suit may fit no placement,
        // and those rejections are better found before the side suits are drawn)
        let hidden_run = self.info.runs.iter().enumerate().any(|(ri, r)| r.seat != self.info.seat && !(self.revealed.is_some() && ri + 1 == self.info.runs.len()));
        let first: Vec<u8> = if self.level_fit.is_some() || hidden_run {
            Vec::new()
        } else {
            whole.iter().filter(|&&cl| !class_kinds(cl).iter().any(|k| self.timed.contains(k))).flat_map(|&cl| class_kinds(cl).iter().copied()).collect()
        };
        let mut order: Vec<usize> = first.iter().map(|&k| k as usize).collect();
        for k in self.timed.iter().chain(&in_checked).map(|&k| k as usize).chain(0..KINDS) {
            if !order.contains(&k) {
                order.push(k);
            }
        }
        for k in order {
            let c = self.info.unseen[k];
            if c == 0 {
                continue;
            }
            if !self.bounded(k) && !in_checked.contains(&(k as u8)) {
                free.extend(std::iter::repeat_n(k as u8, c as usize));
                continue;
            }
            let mut allocs = Vec::new();
            let mut a = [0u8; 4];
            // every split of c copies over the holders within their bounds
            fn rec(h: usize, left: u8, a: &mut [u8; 4], hs: &[Holder], k: usize, c: u8, out: &mut Splits) {
                if h + 1 == hs.len() {
                    if left >= hs[h].lo[k] && left <= hs[h].hi[k] {
                        a[h] = left;
                        let w = factorial(c) / a[..hs.len()].iter().map(|&x| factorial(x)).product::<u64>();
                        out.push((*a, w as u128));
                    }
                    return;
                }
                for x in hs[h].lo[k]..=hs[h].hi[k].min(left) {
                    a[h] = x;
                    rec(h + 1, left - x, a, hs, k, c, out);
                }
            }
            rec(0, c, &mut a, hs, k, c, &mut allocs);
            if let Some(r) = self.revealed.as_ref().filter(|r| r.kind as usize == k) {
                // R8.2: the revealed showings' timing, exactly: weight each split by the share of
                // the declarer's placements of its copies that fit them (scaled to integers)
                for (a, w) in allocs.iter_mut() {
                    *w *= r.fit[(a[r.holder] + r.played) as usize];
                }
                allocs.retain(|(_, w)| *w > 0);
            }
            if k == SJ.id() && !self.jokers.is_empty() {
                // C9: each weighted shower's small jokers, by the share of their placements
                // that put one before its first showing
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
        // each check runs after the last placed kind of its class (at once if none is unseen:
        // then the hand is known in that class, and the check is decided here)
        let mut after = vec![Vec::new(); kinds.len()];
        let mut late = Vec::new();
        for (ci, c) in self.live.iter().map(|&ci| (ci, &self.info.checks[ci])) {
            let class = self.info.ctx().class_kinds(c.lead.class);
            if free.iter().any(|k| class.contains(k)) {
                late.push(ci);
                continue;
            }
            match kinds.iter().rposition(|(k, _)| class.contains(k)) {
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
        let states: usize = dims.iter().product();
        let moves: Vec<Vec<Move>> = kinds.iter().map(|(_, sp)| sp.iter().map(|(a, _)| Move::of(&dims, a)).collect()).collect();
        let j_max = kinds.len();
        let mut remaining = vec![free.len() as u16; j_max + 1];
        for j in (0..j_max).rev() {
            remaining[j] = remaining[j + 1] + self.info.unseen[kinds[j].0 as usize] as u16;
        }
        // Only states the walk can reach are counted: before kind j, the holders but the last
        // have taken at most the copies of kinds 0..j, T_j in all (the others stay zero, never
        // read). They lie in the box size − T_j ..= size per holder, walked without division.
        let sizes: Vec<u16> = hs[..nh - 1].iter().map(|h| h.size).collect();
        let start: u16 = sizes.iter().sum();
        let taken_max = |j: usize| remaining[0] - remaining[j];
        let reachable = |j: usize, f: &mut dyn FnMut(usize, &[u16; 4])| {
            let t = taken_max(j);
            let lo: Vec<u16> = sizes.iter().map(|&x| x.saturating_sub(t)).collect();
            for_box(&dims, &lo, &sizes, &mut |i, s| {
                let used: u16 = s[..nh - 1].iter().sum();
                if start - used <= t && used <= remaining[j] {
                    f(i, s);
                }
            });
        };
        // terminal: the free cards fill the remaining room exactly, in every way (in 128 bits
        // where every count fits, else at full width)
        let f = free.len() as u16;
        let mut table: Vec<BigVec> = Vec::with_capacity(j_max + 1);
        // (every count is at most nh^f, the ways to put f cards in nh places)
        let mut width = 2;
        if (nh as u128).checked_pow(f as u32).is_some() {
            let mut last = vec![0u128; states];
            reachable(j_max, &mut |i, s| {
                let mut left = f;
                let mut w = 1u128;
                for &x in &s[..nd] {
                    w *= binomial(left as usize, x as usize).low_u128();
                    left -= x;
                }
                last[i] = w;
            });
            table.push(BigVec::Narrow(last));
        } else {
            let mut last = vec![Big::ZERO; states];
            width = 0;
            reachable(j_max, &mut |i, s| {
                let mut left = f;
                let mut w = Big::ONE;
                for &x in &s[..nd] {
                    w = w.mul(&binomial(left as usize, x as usize));
                    left -= x;
                }
                width = width.max(w.limbs());
                last[i] = w;
            });
            table.push(BigVec::from_wide(last));
        }
        // the hidden run's weight applies once its seat's level cards are all placed: after the
        // timed kinds, which come first
        let n_timed = self.timed.iter().filter(|&&k| self.info.unseen[k as usize] > 0).count();
        let placed_first = kinds.iter().filter(|(k, _)| first.contains(k)).count();
        let early_at = if n_timed == 0 { j_max } else { placed_first + n_timed };
        // (with a hidden run's fit nothing comes before the timed kinds: they are 0..n_timed)
        let fit = self.level_fit.as_ref().filter(|_| n_timed > 0);
        let mut boundary: Option<(usize, BigVec)> = None;
        for j in (0..j_max).rev() {
            if let Some(lf) = fit.filter(|_| j + 1 == n_timed) {
                let layer = table.last().expect("layer n_timed");
                let t = taken_max(n_timed);
                let mut cur = vec![Big::ZERO; states];
                let mut wide = 0;
                reachable(n_timed, &mut |i, s| {
                    let took: u16 = sizes.iter().zip(s).map(|(&z, &x)| z - x).sum();
                    let m = if lf.holder < nh - 1 { sizes[lf.holder] - s[lf.holder] } else { t - took };
                    let v = layer.get(i).mul_u128(lf.fit[m as usize + lf.played as usize]);
                    wide = wide.max(v.limbs());
                    cur[i] = v;
                });
                width = wide;
                boundary = Some((n_timed, BigVec::from_wide(cur)));
            }
            let next = match &boundary {
                Some((b, layer)) if *b == j + 1 => layer,
                _ => table.last().expect("the layer after j"),
            };
            // in 128 bits while every count fits (checked; a layer that overflows is redone
            // at full width)
            let narrow = match next {
                BigVec::Narrow(next) => {
                    let (splits, moves, rem) = (&kinds[j].1, &moves[j], remaining[j + 1]);
                    let mut cur = vec![0u128; states];
                    // no term and no sum overflows when the largest cell of `next` times the
                    // weights' sum fits: then plain arithmetic is exact, else every step is
                    // checked
                    let next_max = next.iter().copied().max().unwrap_or(0);
                    let safe = splits.iter().try_fold(0u128, |acc, (_, w)| acc.checked_add(*w)).and_then(|ws| next_max.checked_mul(ws)).is_some();
                    if safe {
                        let t = taken_max(j);
                        let lo: Vec<u16> = sizes.iter().map(|&x| x.saturating_sub(t)).collect();
                        for_rows(&dims, &lo, &sizes, start.saturating_sub(t), remaining[j], splits, moves, rem, |from, to, off, w| {
                            for (c, &v) in cur[from..=to].iter_mut().zip(&next[from - off..=to - off]) {
                                *c += v * w;
                            }
                        });
                        Some(cur)
                    } else {
                        let mut fits = true;
                        reachable(j, &mut |i, s| {
                            if !fits {
                                return;
                            }
                            let used: u16 = s[..nd].iter().sum();
                            let mut acc = 0u128;
                            for (m, (a, w)) in moves.iter().zip(splits) {
                                let Some(ni) = m.next(nd, a, s, i, used, rem) else { continue };
                                match next[ni].checked_mul(*w).and_then(|v| acc.checked_add(v)) {
                                    Some(v) => acc = v,
                                    None => {
                                        fits = false;
                                        return;
                                    }
                                }
                            }
                            cur[i] = acc;
                        });
                        fits.then_some(cur)
                    }
                }
                BigVec::Wide(_) => None,
            };
            if let Some(cur) = narrow {
                width = 2;
                table.push(BigVec::Narrow(cur));
                continue;
            }
            let mut cur = vec![Big::ZERO; states];
            // every term is below 2^64 times a cell of `next`, and a sum of at most 35 terms
            // (splits of 4 copies over 4 holders) gains under a limb: the arithmetic runs in
            // that width (weights beyond 64 bits, the revealed run's, take the full width)
            let small = kinds[j].1.iter().all(|(_, w)| *w >> 64 == 0);
            let n = if small { (width + 2).min(8) } else { 8 };
            let mut wide = 0;
            reachable(j, &mut |i, s| {
                let used: u16 = s[..nd].iter().sum();
                let mut acc = Big::ZERO;
                for (m, (a, w)) in moves[j].iter().zip(&kinds[j].1) {
                    if let Some(ni) = m.next(nd, a, s, i, used, remaining[j + 1]) {
                        let v = next.get(ni);
                        if small {
                            acc.add_mul_small_within(&v, *w as u64, n);
                        } else if !v.is_zero() {
                            acc = acc.add(&v.mul_u128(*w));
                        }
                    }
                }
                wide = wide.max(acc.limbs());
                cur[i] = acc;
            });
            width = wide;
            table.push(BigVec::Wide(cur));
        }
        table.reverse();
        Ok(Dp { kinds, moves, dims, table, remaining, free, after, late, early_at, boundary })
    }

    /// Draws from the counting programme; after the timed kinds, `early` may reject.
    fn propose_dp(
        &self,
        dp: &Dp,
        memo: &mut CheckMemo,
        rng: &mut Rng,
        early: &mut dyn FnMut(&[Counts], &mut Rng) -> bool,
    ) -> Option<Vec<Counts>> {
        let nh = self.holders.len();
        let mut s = [0u16; 4];
        for (h, x) in self.holders[..nh - 1].iter().zip(s.iter_mut()) {
            *x = h.size;
        }
        let mut out = vec![[0u8; KINDS]; nh];
        let mut i = index(&dp.dims, &s);
        for (j, (k, allocs)) in dp.kinds.iter().enumerate() {
            if j == dp.early_at && !early(&out, rng) {
                return None;
            }
            let (x, ni) = dp.pick(j, i, &s, rng);
            let a = &allocs[x].0;
            for h in 0..nh {
                out[h][*k as usize] += a[h];
                if h + 1 < nh {
                    s[h] -= a[h] as u16;
                }
            }
            i = ni;
            for &ci in &dp.after[j] {
                if !memo.passes(&self.info, ci, &out[self.check_holder[ci]]) {
                    return None;
                }
            }
        }
        let placed: u16 = s[..nh - 1].iter().sum();
        let mut room: Vec<u16> = s[..nh - 1].to_vec();
        room.push(dp.free.len() as u16 - placed);
        let mut cards = dp.free.clone();
        Self::deal_free(&mut cards, &room, &mut out, rng);
        if dp.late.iter().any(|&ci| !memo.passes(&self.info, ci, &out[self.check_holder[ci]])) {
            return None;
        }
        if dp.early_at == dp.kinds.len() && !early(&out, rng) {
            return None;
        }
        Some(out)
    }

    /// Bytes held by the counting programme's tables (0 until built): what keeping this
    /// determinizer for later calls costs.
    pub fn table_bytes(&self) -> usize {
        self.dp.as_ref().map_or(0, |dp| dp.table.iter().chain(dp.boundary.as_ref().map(|b| &b.1)).map(BigVec::bytes).sum())
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
        Ok(dp.table[0].get(index(&dp.dims, &s)).to_decimal())
    }

    fn to_draw(&self, alloc: &[Counts]) -> Draw {
        let mut d = Draw { hands: [[0; KINDS]; 4], pile: [0; KINDS] };
        d.hands[self.info.seat as usize] = self.info.hand;
        for (h, a) in self.holders.iter().zip(alloc) {
            if h.seat == NOBODY {
                d.pile = *a;
            } else {
                d.hands[h.seat as usize] = *a;
            }
        }
        d
    }

    /// One proposal that meets the bounds, the showings' timing and the ladder checks
    /// (steps 1–3); `tries` counts proposals made so far, to pick the uniform or the
    /// counting proposal.
    fn draw(&mut self, rng: &mut Rng, tries: &mut usize) -> Result<(Draw, Option<LevelPlan>), Error> {
        loop {
            if *tries >= MAX_TRIES {
                return Err(Error::NoWorld("determinization: no consistent world found".into()));
            }
            *tries += 1;
            self.proposals += 1;
            let mut plan = None;
            // the proposal depends only on the info set (never on earlier draws), so a world
            // depends only on what the seat knows and the seed
            let alloc = if !self.use_dp {
                let a = if self.timing && self.info.dealt_hand {
                    match self.propose_uniform_timed(rng, &mut plan) {
                        Some(a) => a,
                        None => continue,
                    }
                } else {
                    self.propose_uniform(rng)
                };
                if !self.within_bounds(&a) {
                    continue;
                }
                a
            } else {
                if self.dp.is_none() {
                    self.dp = Some(self.build_dp()?);
                }
                let (info, holders, revealed, jokers) = (&self.info, &self.holders, self.revealed.as_ref(), &self.jokers);
                let level_fit = self.level_fit.as_ref();
                let mut early = |a: &[Counts], rng: &mut Rng| {
                    plan = level_plan(info, holders, a, revealed, jokers, level_fit, (&[], &[]), rng);
                    plan.is_some()
                };
                let early: &mut dyn FnMut(&[Counts], &mut Rng) -> bool =
                    if self.timing && info.dealt_hand { &mut early } else { &mut |_: &[Counts], _: &mut Rng| true };
                let mut memo = std::mem::take(&mut self.memo);
                let a = self.propose_dp(self.dp.as_ref().expect("built"), &mut memo, rng, early);
                self.memo = memo;
                match a {
                    Some(a) => a,
                    None => continue,
                }
            };
            let d = self.to_draw(&alloc);
            // the counting programme ran every check (as its class was placed, or at its end)
            let passes = |memo: &mut CheckMemo, info: &InfoSet, live: &[usize]| {
                live.iter().all(|&ci| memo.passes(info, ci, &d.hands[info.checks[ci].seat as usize]))
            };
            if self.use_dp || passes(&mut self.memo, &self.info, &self.live) {
                self.accepted += 1;
                return Ok((d, plan));
            }
        }
    }

    /// Hands for a world (each seat's hand now, the seat's own unchanged), drawn from the
    /// target distribution; for a dealt hand also the decks and hidden suits that go with them.
    pub fn sample(&mut self, rng: &mut Rng) -> Result<(Draw, Option<Arrangement>), Error> {
        let mut tries = 0;
        let (d, plan) = self.draw(rng, &mut tries)?;
        let arr = plan.map(|p| arrange(&self.info, &d, p, rng));
        Ok((d, arr))
    }

    /// A complete world: a [`Game`] whose replayed history is legal and in which this seat
    /// sees exactly what it sees now. `world_seed` becomes the world's own hand seed (for
    /// redeals after a world still being dealt).
    pub fn world(&mut self, rng: &mut Rng) -> Result<Game, Error> {
        if !self.timing && self.info.dealt_hand {
            return Err(Error::BadArgument { what: "determinizer", message: "a search determinizer draws hands only, not dealt worlds".into() });
        }
        let mut tries = 0;
        loop {
            tries += 1;
            if tries > MAX_TRIES {
                return Err(Error::NoWorld("determinization: no consistent world found".into()));
            }
            let (d, arr) = self.sample(rng)?;
            let world_seed = rng.next_u64();
            if let Some(g) = build_world(&self.info, &d, arr.as_ref(), world_seed, &mut self.play)? {
                return Ok(g);
            }
        }
    }
}

impl Dp {
    /// Kind `j`'s split from state `i` (remaining room `s`), drawn with probability
    /// w · N_{j+1}(next) / N_j(i), exactly: the index of the split and the next state. The
    /// arithmetic runs in the width of N_j(i), which bounds every term (u128 where it fits).
    fn pick(&self, j: usize, i: usize, s: &[u16; 4], rng: &mut Rng) -> (usize, usize) {
        let allocs = &self.kinds[j].1;
        let next = match &self.boundary {
            Some((b, layer)) if *b == j + 1 => layer,
            _ => &self.table[j + 1],
        };
        let (nd, moves, rem) = (self.dims.len(), &self.moves[j], self.remaining[j + 1]);
        let used: u16 = s[..nd].iter().sum();
        let feasible = |x: usize| moves[x].next(nd, &allocs[x].0, s, i, used, rem);
        if allocs.len() == 1 {
            // one split (a forced kind, e.g. two seats void): probability 1, no draw
            return (0, feasible(0).expect("a reachable state has a completion"));
        }
        let narrow = match &self.table[j] {
            BigVec::Narrow(v) => Some(v[i]),
            BigVec::Wide(v) => v[i].to_u128(),
        };
        if let Some(t) = narrow {
            let mut r = rng.below(t);
            for (x, (_, w)) in allocs.iter().enumerate() {
                let Some(ni) = feasible(x) else { continue };
                let v = next.low_u128(ni) * w; // ≤ t: no overflow
                if r < v {
                    return (x, ni);
                }
                r -= v;
            }
        } else {
            let total = self.table[j].get(i);
            let n = total.limbs();
            let mut r = total.below(rng);
            for (x, (_, w)) in allocs.iter().enumerate() {
                let Some(ni) = feasible(x) else { continue };
                let v = match u64::try_from(*w) {
                    Ok(w) => next.get(ni).mul_small_within(w, n),
                    Err(_) => next.get(ni).mul_u128(*w),
                };
                if r.lt_within(&v, n) {
                    return (x, ni);
                }
                r.sub_within(&v, n);
            }
        }
        unreachable!("the splits' weights sum to the state's count")
    }
}

/// One layer of the counting programme, row by row: for the states `lo ..= hi` per coordinate
/// with `used_lo ..= used_hi` cards of room in all (what `reachable` walks), and each split
/// feasible there, `add(from, to, off, w)` adds `w · next[i − off]` to `cur[i]` for `i` in
/// `from ..= to`. Along the first coordinate the states a split is feasible from are one
/// interval of the row, so the caller's inner loop is a plain multiply-add over two slices.
#[allow(clippy::too_many_arguments)]
fn for_rows(dims: &[usize], lo: &[u16], hi: &[u16], used_lo: u16, used_hi: u16, splits: &Splits, moves: &[Move], rem: u16, mut add: impl FnMut(usize, usize, usize, u128)) {
    let nd = dims.len();
    // the coordinates but the first, as an odometer over their box
    let mut s = [0u16; 4];
    s[1..nd].copy_from_slice(&lo[1..nd]);
    loop {
        let rest: i32 = s[1..nd].iter().map(|&x| x as i32).sum();
        let base = index(dims, &s) - s[0] as usize;
        let row_lo = (lo[0] as i32).max(used_lo as i32 - rest);
        let row_hi = (hi[0] as i32).min(used_hi as i32 - rest);
        if row_lo <= row_hi {
            for (m, (a, w)) in moves.iter().zip(splits) {
                if (1..nd).any(|d| s[d] < a[d] as u16) {
                    continue;
                }
                // s0 ≥ a0 (no holder over-filled) and s0 + rest − took ≤ rem (the last
                // holder's room within the cards still to come)
                let from = row_lo.max(a[0] as i32);
                let to = row_hi.min(rem as i32 + m.took as i32 - rest);
                if from <= to {
                    add(base + from as usize, base + to as usize, m.off, *w);
                }
            }
        }
        if !advance(&mut s, lo, hi, 1..nd) {
            return;
        }
    }
}

/// Calls `f(index, state)` for every state with `lo[d] ..= hi[d]` in each coordinate.
fn for_box(dims: &[usize], lo: &[u16], hi: &[u16], f: &mut dyn FnMut(usize, &[u16; 4])) {
    let n = dims.len();
    let mut s = [0u16; 4];
    s[..n].copy_from_slice(&lo[..n]);
    loop {
        f(index(dims, &s), &s);
        if !advance(&mut s, lo, hi, 0..n) {
            return;
        }
    }
}

/// The next state of an odometer over the coordinates `ds` of the box `lo ..= hi` (the first
/// fastest); false after the last.
fn advance(s: &mut [u16; 4], lo: &[u16], hi: &[u16], ds: std::ops::Range<usize>) -> bool {
    for d in ds {
        if s[d] < hi[d] {
            s[d] += 1;
            return true;
        }
        s[d] = lo[d];
    }
    false
}

/// Flattened state index.
fn index(dims: &[usize], s: &[u16; 4]) -> usize {
    let mut i = 0;
    for d in (0..dims.len()).rev() {
        i = i * dims[d] + s[d] as usize;
    }
    i
}

/// The decks of every attempt and the suit of each showing run, for a dealt hand.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Arrangement {
    pub decks: Vec<([u8; DECK], u8)>,
    /// One suit per run of `info.runs`.
    pub suits: Vec<u8>,
}

/// Where each other seat's level cards lie among its dealt positions in the current attempt,
/// and a suit for each showing run: step 3's timing, decided on the level cards alone.
#[derive(Clone, Debug)]
pub struct LevelPlan {
    /// (deck position, kind) of every level card of the other seats dealt so far.
    placed: Vec<(u8, u8)>,
    suits: Vec<u8>,
}

/// The deck positions of `seat` among the first `dealt` cards of an attempt.
pub(crate) fn positions(first: u8, seat: u8, dealt: usize) -> impl Iterator<Item = usize> {
    // t ≡ seat − first (mod 4)
    ((seat as usize + 4 - first as usize) % 4..dealt).step_by(4)
}

/// Places the other seats' level cards (their hands now plus their plays) uniformly over
/// their dealt positions and checks every showing run against them (R8.1, D7); a run whose
/// suit is hidden takes one uniformly among those that fit. `None`: the timing rejects.
///
/// With `revealed` (the counting programme already weighted the final declarer's copies of the
/// trump level card by how often their timing fits), those copies are placed uniformly among
/// the placements that fit, and that run is not checked again.
///
/// With `jokers` (C9, weighted likewise), each such shower's small jokers are placed first,
/// uniformly among the placements that put one before its first showing.
#[allow(clippy::too_many_arguments)]
fn level_plan(
    info: &InfoSet,
    holders: &[Holder],
    alloc: &[Counts],
    revealed: Option<&Revealed>,
    jokers: &[OneEarly],
    level_fit: Option<&OneEarly>,
    (fixed, taken): (&[(u8, u8)], &[u8]),
    rng: &mut Rng,
) -> Option<LevelPlan> {
    let attempt = info.first_seats.len() - 1;
    let first = info.first_seats[attempt];
    let dealt = info.dealt as usize;
    // the runs' suits: the seat's own and the revealed one are known; each other run's is
    // drawn once its seat's level cards are placed (a run reads only its seat's cards)
    let mut suits = vec![0u8; info.runs.len()];
    let drawn = |ri: usize, run: &Run| !(run.seat == info.seat || (revealed.is_some() && ri + 1 == info.runs.len()));
    for (ri, run) in info.runs.iter().enumerate() {
        if !drawn(ri, run) {
            suits[ri] = run.suit.expect("the seat's own suits and the revealed run's are known");
        }
    }
    // at most 16 level cards (R8.1: four kinds of four copies) and 4 small jokers; a seat has
    // at most 54 positions
    let joker = small_joker_timed(info);
    let mut placed = Vec::with_capacity(20);
    placed.extend_from_slice(fixed);
    for (hi, (h, a)) in holders.iter().zip(alloc).enumerate() {
        if h.seat == NOBODY {
            continue;
        }
        // the seat's deal positions, in a fixed array (this runs once per proposal), but for
        // those the windows filled
        let mut slots = [0u8; DECK / 4 + 1];
        let mut len = 0usize;
        // (the filter only where there are windows: it costs the plain loop its speed)
        let mut push = |t: usize| {
            slots[len] = t as u8;
            len += 1;
        };
        if taken.is_empty() {
            positions(first, h.seat, dealt).for_each(&mut push);
        } else {
            positions(first, h.seat, dealt).filter(|&t| !taken.contains(&(t as u8))).for_each(&mut push);
        }
        let fixed_of = |k: u8| fixed.iter().filter(|&&(t, x)| x == k && (first + t) % 4 == h.seat).count() as u8;
        let weighted = jokers.iter().find(|j| j.holder == hi);
        if let Some(j) = weighted {
            // its small jokers first, one at least among its first `before` places (slots are
            // in deal order here): uniform among those placements, by rejection of this step
            // alone (the counting programme weighted the count by their share)
            let m = (a[SJ.id()] + j.played) as usize;
            if j.fit[m] == 0 {
                return None; // no placement fits (only where the kind is not drawn: never weighted)
            }
            place_fitting(&mut slots, &mut len, &[SJ.0; 4][..m], |pick| pick.iter().any(|&p| p < j.before), &mut placed, rng);
        }
        if let Some(r) = revealed.filter(|r| r.holder == hi) {
            // slot indices (into this seat's positions) that fit the revealed showings
            let m = (a[r.kind as usize] + r.played) as usize;
            if r.fit[m] == 0 {
                return None; // as above
            }
            let fits = |pick: &[u8]| r.showings.iter().all(|&(j, k)| pick.iter().filter(|&&p| p < j).count() >= k as usize);
            place_fitting(&mut slots, &mut len, &[r.kind; 4][..m], fits, &mut placed, rng);
        }
        if let Some(lf) = level_fit.filter(|lf| lf.holder == hi) {
            // all its level cards at once, one at least among its first `before` places
            let mut cards = [0u8; 16];
            let mut m = 0;
            for suit in 0..4u8 {
                let k = Card::new(suit, info.level).0;
                for _ in 0..a[k as usize] + info.played[h.seat as usize][k as usize] {
                    cards[m] = k;
                    m += 1;
                }
            }
            if lf.fit[m] == 0 {
                return None;
            }
            place_fitting(&mut slots, &mut len, &cards[..m], |pick| pick.iter().any(|&p| p < lf.before), &mut placed, rng);
        }
        for suit in 0..4u8 {
            let k = Card::new(suit, info.level).0;
            if revealed.is_some_and(|r| r.holder == hi && r.kind == k) || level_fit.is_some_and(|lf| lf.holder == hi) {
                continue;
            }
            place_uniform(&mut slots, &mut len, k, a[k as usize] + info.played[h.seat as usize][k as usize] - fixed_of(k), &mut placed, rng);
        }
        if joker && weighted.is_none() && revealed.is_none_or(|r| r.holder != hi) {
            // C9: its small jokers too, uniformly over the places left; each of its runs began
            // with one among the cards it had received (positions before the run's first showing).
            // (The revealed run's declarer's are left to the replay: with the counting programme
            // weighting its level cards, rejecting here would make one draw's tries run out where
            // a world's plays are rare.)
            let k = SJ.0;
            place_uniform(&mut slots, &mut len, k, a[k as usize] + info.played[h.seat as usize][k as usize] - fixed_of(k), &mut placed, rng);
            let had_one = |t: u8| placed.iter().any(|&(p, kind)| kind == k && p < t && (first + p) % 4 == h.seat);
            if !info.runs.iter().filter(|r| r.seat == h.seat && r.attempt as usize == attempt).all(|r| had_one(r.showings[0].0)) {
                return None;
            }
        }
        // this seat's runs: a suit among those its placed cards fit (R8.1, D7), else reject
        for (ri, run) in info.runs.iter().enumerate().filter(|(ri, r)| r.seat == h.seat && drawn(*ri, r)) {
            debug_assert_eq!(run.attempt as usize, attempt, "earlier attempts had no showings (R8.5)");
            let run_first = info.first_seats[run.attempt as usize];
            let held_by = |suit: u8, t: u8| -> u8 {
                let kind = Card::new(suit, info.level).0;
                placed
                    .iter()
                    .filter(|&&(p, k)| k == kind && (p as usize) < t as usize && (run_first + p) % 4 == run.seat)
                    .count() as u8
            };
            let ok = |suit: u8| run.showings.iter().all(|&(t, k)| held_by(suit, t) >= k);
            let mut feasible = [0u8; 4];
            let mut nf = 0;
            let candidates = match run.suit {
                Some(s) => s..s + 1,
                None => 0..4,
            };
            for s in candidates.filter(|&s| ok(s)) {
                feasible[nf] = s;
                nf += 1;
            }
            if nf == 0 {
                return None;
            }
            suits[ri] = feasible[rng.below_usize(nf)];
        }
    }
    // Mid-deal, with another seat deciding: the deal stopped there, so that seat can show
    // (R8.1, D7) in the world too; the replay would reject it later, this rejects it early
    // (where the windows drew its hand, it always can).
    if let Some((seat, can)) = early_runs::decider(info) {
        let held = |suit: u8| {
            let kind = Card::new(suit, info.level).0;
            placed.iter().filter(|&&(p, k)| k == kind && (first as usize + p as usize) % 4 == seat as usize).count() as u8
        };
        let can = match can {
            CanShow::Any(k) => (0..4).any(|s| held(s) >= k),
            CanShow::Own(k) => info.runs.iter().rposition(|r| r.seat == seat).is_some_and(|i| held(suits[i]) >= k),
        };
        if !can {
            return None;
        }
    }
    Some(LevelPlan { placed, suits })
}

/// Places `n` copies of `kind` on slots of one seat (`slots[..len]`), each uniformly among
/// those left (the slots' order is not kept).
fn place_uniform(slots: &mut [u8; DECK / 4 + 1], len: &mut usize, kind: u8, n: u8, placed: &mut Vec<(u8, u8)>, rng: &mut Rng) {
    for _ in 0..n {
        let i = rng.below_usize(*len);
        placed.push((slots[i], kind));
        *len -= 1;
        slots[i] = slots[*len];
    }
}

/// Places `cards` (at most 16) on slots of one seat (`slots[..len]`, in deal order): the
/// ordered choice of slot indices uniform among those `fits` accepts (by rejection of this step
/// alone: the counting programme weighted the count by their share), card i on the i-th chosen
/// slot; the chosen slots are removed, keeping the order of the rest. Some choice must fit (the
/// callers check the share first), else this would not return.
fn place_fitting(
    slots: &mut [u8; DECK / 4 + 1],
    len: &mut usize,
    cards: &[u8],
    fits: impl Fn(&[u8]) -> bool,
    placed: &mut Vec<(u8, u8)>,
    rng: &mut Rng,
) {
    let m = cards.len();
    let mut pick = [0u8; 16];
    loop {
        let mut idx = [0u8; DECK / 4 + 1];
        for (i, x) in idx.iter_mut().enumerate().take(*len) {
            *x = i as u8;
        }
        let mut left = *len;
        for p in pick.iter_mut().take(m) {
            let i = rng.below_usize(left);
            *p = idx[i];
            left -= 1;
            idx[i] = idx[left];
        }
        if fits(&pick[..m]) {
            break;
        }
    }
    let mut by_slot = [(0u8, 0u8); 16];
    for (x, (&p, &k)) in by_slot.iter_mut().zip(pick[..m].iter().zip(cards)) {
        *x = (p, k);
    }
    // removed from the highest slot index down
    by_slot[..m].sort_unstable_by_key(|x| std::cmp::Reverse(x.0));
    for &(p, k) in &by_slot[..m] {
        placed.push((slots[p as usize], k));
        slots.copy_within(p as usize + 1..*len, p as usize);
        *len -= 1;
    }
}

/// The kinds [`level_plan`] places: the level cards (R8.1), and the small jokers under C9.
fn plan_kinds(info: &InfoSet) -> Vec<u8> {
    let mut v: Vec<u8> = (0..4).map(|s| Card::new(s, info.level).0).collect();
    if small_joker_timed(info) {
        v.push(SJ.0);
    }
    v
}

/// C9 applies: a competition match's first hand, dealt, where every run began with a small joker
/// in the shower's hand; the small jokers' places are then evidence like the level cards'.
fn small_joker_timed(info: &InfoSet) -> bool {
    info.dealt_hand && info.profile.rules().first_hand_small_joker && info.start_banker == NOBODY
}

/// Evidence that one other seat held, among its cards dealt before some time, at least one of
/// its m copies of a set of kinds (m counted with the copies it has played since): a function
/// of m alone, weighted into the counting programme by the share of placements of m cards over
/// its n dealt positions that put one among the first `before`. Two uses:
/// - C9, [`joker_fits`]: a shower's small jokers before its first showing (a run needs one
///   when it begins, and nothing leaves a hand while dealing), per kind;
/// - [`level_fit`]: a hidden run of a single one-card showing needs one level card, of any
///   suit, before it (R8.1): the seat's level cards in all, applied once the timed kinds (the
///   level cards) are placed.
#[derive(Clone, Debug)]
struct OneEarly {
    holder: usize,
    /// Copies the seat has played since.
    played: u8,
    /// Its positions dealt before the time.
    before: u8,
    /// `fit[m]` = P(one of m among the first `before` | m) · n!/(n − mmax)!, exact integers
    /// (below 2^93 for n ≤ 54 and mmax ≤ 16); zero beyond mmax.
    fit: [u128; 17],
}

impl OneEarly {
    fn new(holder: usize, played: u8, n: usize, before: usize, mmax: usize) -> OneEarly {
        // P(none early | m) · D = Π_{i<m} (n − before − i) · Π_{m ≤ i < mmax} (n − i), with
        // D = Π_{i<mmax} (n − i); a factor below zero makes its term zero (m cards cannot all
        // miss the first `before` places when fewer than m others exist)
        let fall = |from: usize, lo: usize, hi: usize| -> u128 { (lo..hi).map(|i| from.saturating_sub(i) as u128).product() };
        let mmax = mmax.min(n);
        let d = fall(n, 0, mmax);
        let mut fit = [0u128; 17];
        for (m, f) in fit.iter_mut().enumerate().take(mmax + 1) {
            *f = d - fall(n - before, 0, m) * fall(n, m, mmax);
        }
        OneEarly { holder, played, before: before as u8, fit }
    }
}

/// C9's evidence: each other shower's small jokers (not the revealed run's declarer's, whose
/// level cards are weighted already: the two would not be independent).
fn joker_fits(info: &InfoSet, holders: &[Holder], revealed: Option<&Revealed>) -> Vec<OneEarly> {
    let attempt = info.first_seats.len() - 1;
    let first = info.first_seats[attempt];
    let mut v = Vec::new();
    for (hi, h) in holders.iter().enumerate() {
        if h.seat == NOBODY || revealed.is_some_and(|r| r.holder == hi) {
            continue;
        }
        let Some(t0) = info.runs.iter().filter(|r| r.seat == h.seat && r.attempt as usize == attempt).map(|r| r.showings[0].0).min() else {
            continue;
        };
        let n = positions(first, h.seat, info.dealt as usize).count();
        let before = positions(first, h.seat, t0 as usize).count();
        v.push(OneEarly::new(hi, info.played[h.seat as usize][SJ.id()], n, before, 4));
    }
    v
}

/// The first other seat (not the revealed run's, and not under C9, whose small jokers share its
/// early places) whose only run is one hidden one-card showing: its level cards in all. One seat
/// at most: the weights of several would outgrow the counting programme's integers.
fn level_fit(info: &InfoSet, holders: &[Holder], revealed: Option<&Revealed>) -> Option<OneEarly> {
    let attempt = info.first_seats.len() - 1;
    let first = info.first_seats[attempt];
    for (hi, h) in holders.iter().enumerate() {
        if h.seat == NOBODY || revealed.is_some_and(|r| r.holder == hi) {
            continue;
        }
        let runs: Vec<&Run> = info.runs.iter().filter(|r| r.seat == h.seat && r.attempt as usize == attempt).collect();
        let [run] = runs.as_slice() else { continue };
        let [(t, 1)] = run.showings.as_slice() else { continue };
        if run.suit.is_some() {
            continue;
        }
        let n = positions(first, h.seat, info.dealt as usize).count();
        let before = positions(first, h.seat, *t as usize).count();
        let played = (0..4).map(|s| info.played[h.seat as usize][Card::new(s, info.level).id()]).sum();
        return Some(OneEarly::new(hi, played, n, before, 16));
    }
    None
}

/// The final declarer's revealed run (R8.2) in the current attempt: the share of placements
/// of its copies of the trump level card that fit the run's timing, as integer weights.
#[derive(Clone, Debug)]
struct Revealed {
    /// Index of the declarer among the holders.
    holder: usize,
    kind: u8,
    /// Copies of the kind the declarer has played since.
    played: u8,
    /// (the declarer's positions dealt before the showing, count) per showing.
    showings: Vec<(u8, u8)>,
    /// `fit[m]` ∝ (placements of m copies that fit) / (all placements of m copies).
    fit: [u128; 5],
}

fn gcd(a: u128, b: u128) -> u128 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

impl Revealed {
    fn of(info: &InfoSet, holders: &[Holder]) -> Option<Revealed> {
        let run = info.runs.last()?;
        let suit = run.suit?;
        let attempt = info.first_seats.len() - 1;
        if run.seat == info.seat || run.attempt as usize != attempt || info.phase == crate::hand_state::Phase::Declare {
            return None;
        }
        let holder = holders.iter().position(|h| h.seat == run.seat)?;
        let first = info.first_seats[attempt];
        let n = positions(first, run.seat, info.dealt as usize).count();
        let showings: Vec<(u8, u8)> =
            run.showings.iter().map(|&(t, k)| (positions(first, run.seat, t as usize).count() as u8, k)).collect();
        // ways[c]: subsets of the positions so far with c copies that meet every boundary passed
        let mut ways = [0u128; 5];
        ways[0] = 1;
        for p in 0..=n {
            for &(j, k) in &showings {
                if j as usize == p {
                    for w in ways.iter_mut().take(k as usize) {
                        *w = 0;
                    }
                }
            }
            if p < n {
                for c in (1..5).rev() {
                    ways[c] += ways[c - 1];
                }
            }
        }
        let choose = |m: usize| -> u128 { (0..m).fold(1u128, |acc, i| acc * (n - i) as u128 / (i as u128 + 1)) };
        let mut lcm = 1u128;
        for m in 0..=4.min(n) {
            let c = choose(m);
            lcm = lcm / gcd(lcm, c) * c;
        }
        let mut fit = [0u128; 5];
        for m in 0..=4.min(n) {
            fit[m] = ways[m] * (lcm / choose(m));
        }
        let kind = Card::new(suit, info.level).0;
        Some(Revealed { holder, kind, played: info.played[run.seat as usize][kind as usize], showings, fit })
    }
}

/// Step 3 completed: every attempt's deck, the level cards where the plan put them and every
/// other card uniformly over the remaining positions.
fn arrange(info: &InfoSet, d: &Draw, plan: LevelPlan, rng: &mut Rng) -> Arrangement {
    let attempts = info.first_seats.len();
    let mut decks = Vec::with_capacity(attempts);
    // one card per entry, in kind order, then shuffled (a deck's worth at most)
    let mut buf = [0u8; DECK];
    let fill = |buf: &mut [u8; DECK], c: &Counts| -> usize {
        let mut n = 0;
        for (k, &m) in c.iter().enumerate() {
            buf[n..n + m as usize].fill(k as u8);
            n += m as usize;
        }
        n
    };
    for (r, &first) in info.first_seats.iter().enumerate() {
        let current = r + 1 == attempts;
        let own = &info.arrivals[r];
        let dealt = if current { info.dealt as usize } else { DECK };
        let mut deck = [u8::MAX; DECK];
        for (t, &k) in positions(first, info.seat, dealt).zip(own) {
            deck[t] = k;
        }
        if current {
            for &(t, k) in &plan.placed {
                deck[t as usize] = k;
            }
            for q in (0..4u8).filter(|&q| q != info.seat) {
                let mut cards = d.hands[q as usize];
                for (x, y) in cards.iter_mut().zip(&info.played[q as usize]) {
                    *x += y;
                }
                for &(t, k) in &plan.placed {
                    if (first + t) % 4 == q {
                        cards[k as usize] -= 1; // placed by the plan
                    }
                }
                let n = fill(&mut buf, &cards);
                rng.shuffle_by_halves(&mut buf[..n]);
                let mut it = buf[..n].iter();
                for t in positions(first, q, dealt) {
                    if deck[t] == u8::MAX {
                        deck[t] = *it.next().expect("as many cards as positions");
                    }
                }
            }
            let n = fill(&mut buf, &d.pile);
            rng.shuffle_by_halves(&mut buf[..n]);
            deck[dealt..].copy_from_slice(&buf[..n]);
        } else {
            // an earlier attempt: only the seat's own cards are known
            let mut left = [4u8; KINDS];
            for &k in own {
                left[k as usize] -= 1;
            }
            let n = fill(&mut buf, &left);
            rng.shuffle_by_halves(&mut buf[..n]);
            let mut it = buf[..n].iter();
            for slot in deck.iter_mut() {
                if *slot == u8::MAX {
                    *slot = *it.next().expect("cards for positions");
                }
            }
        }
        decks.push((deck, first));
    }
    Arrangement { decks, suits: plan.suits }
}

/// The play part of a world, the same in every world of one info set: replaying the public
/// tricks changes a game's hands by the cards played and everything else (the trick state,
/// the score so far, R5–R7; the tally of what the table has seen; the record) by public cards
/// alone, read against the position's public fields. So once one world has been replayed,
/// every later world whose deal ends in the same public position (hands aside) and tally
/// takes the rest from here, unreplayed: the same game the replay would give.
#[derive(Clone, Debug)]
struct PlayTemplate {
    /// Where play began (hands cleared) and the tally then.
    start: (Position, Tally),
    /// Where the history leaves it (hands cleared) and the tally then.
    end: (Position, Tally),
    /// The record's plays, finished tricks and the trick in progress.
    actions: Vec<(u8, Action)>,
    tricks: Vec<TrickRecord>,
    current: Vec<(u8, crate::card::Counts)>,
}

fn without_hands(p: &Position) -> Position {
    Position { hands: [[0; KINDS]; 4], ..*p }
}

/// Replays a world from its start; `None` when its deal does not stop where the seat saw it.
/// The play history is taken from `play` where it fits (see [`PlayTemplate`]), else replayed
/// and kept there.
fn build_world(info: &InfoSet, d: &Draw, arr: Option<&Arrangement>, world_seed: u64, play: &mut Option<PlayTemplate>) -> Result<Option<Game>, Error> {
    let plays: usize = info.tricks.iter().map(|t| t.plays.len()).sum::<usize>() + info.current.len();
    let mut g = match arr {
        None => {
            let mut start = d.hands;
            for (h, p) in start.iter_mut().zip(&info.played) {
                for (x, y) in h.iter_mut().zip(p) {
                    *x += y;
                }
            }
            Game::from_hands(start, info.level, info.trump, info.banker, info.profile)?
        }
        Some(a) => {
            let mut g = Game::deal_decks(world_seed, info.profile, info.levels, info.start_banker, a.decks.clone())?;
            if info.every_receiver {
                g = g.with_every_receiver()?;
            }
            // the record grows by the deal's decisions (the seat's own and the others' at
            // least) and then by the plays: reserve it once
            let deal = (info.own_decisions.len() * 4).max(64);
            g.record.actions.reserve(deal + plays);
            g.record.dealt_at.reserve(deal);
            if !replay_deal(info, a, &mut g)? {
                return Ok(None);
            }
            g
        }
    };
    g.hand_index = info.hand_index;
    if g.pos.phase == Phase::Play {
        let start = (without_hands(&g.pos), g.tally);
        if let Some(t) = play.as_ref().filter(|t| t.start == start) {
            g.record.actions.extend_from_slice(&t.actions);
            g.record.tricks = t.tricks.clone();
            g.record.current = t.current.clone();
            g.pos = Position { hands: d.hands, ..t.end.0 };
            g.tally = t.end.1;
            return Ok(Some(g));
        }
        let before = g.record.actions.len();
        g.record.actions.reserve(plays);
        g.record.tricks.reserve(info.tricks.len() + 1);
        for t in &info.tricks {
            g.replay_trick_unchecked(t);
        }
        for (_, c) in &info.current {
            g.play_recorded_unchecked(c);
        }
        if play.is_none() {
            *play = Some(PlayTemplate {
                start,
                end: (without_hands(&g.pos), g.tally),
                actions: g.record.actions[before..].to_vec(),
                tricks: g.record.tricks.clone(),
                current: g.record.current.clone(),
            });
        }
    }
    Ok(Some(g))
}

/// Drives a world's deal: the seat's own decisions as taken, the other seats' showings at
/// their recorded times with the world's suits, passes elsewhere. True when it stops where
/// the seat saw the deal stop.
fn replay_deal(info: &InfoSet, a: &Arrangement, g: &mut Game) -> Result<bool, Error> {
    // showings of other seats in log order, each with its run's suit
    let mut others = Vec::new();
    let mut run_of = Vec::new();
    for (ri, run) in info.runs.iter().enumerate() {
        for &(t, k) in &run.showings {
            run_of.push((run.attempt, t, run.seat, k, a.suits[ri]));
        }
    }
    for s in &run_of {
        if s.2 != info.seat {
            others.push(*s);
        }
    }
    let mut others = others.into_iter().peekable();
    let mut own = info.own_decisions.iter().peekable();
    let target = (info.first_seats.len() as u8 - 1, info.dealt, info.final_round);
    while g.pos.phase == Phase::Declare {
        let p = &g.pos;
        let now = (p.redeals, p.dealt, p.final_round);
        let seat = p.to_move;
        if info.phase == Phase::Declare && now >= target && own.peek().is_none() && others.peek().is_none() {
            // where the seat sees the deal now: someone with a choice is to move
            return Ok(now == target && (info.to_move.is_none() || info.to_move == Some(seat)));
        }
        let action = if seat == info.seat {
            match own.next() {
                Some(&(att, t, act)) if (att, t) == (p.redeals, p.dealt) => act,
                _ => return Ok(false),
            }
        } else {
            match others.peek() {
                Some(&(att, t, s, k, suit)) if (att, t, s) == (p.redeals, p.dealt, seat) => {
                    others.next();
                    Action::Declare { suit, count: k }
                }
                _ => Action::Pass,
            }
        };
        if g.apply(&action).is_err() {
            return Ok(false);
        }
    }
    Ok(info.phase != Phase::Declare && own.peek().is_none() && others.peek().is_none())
}
