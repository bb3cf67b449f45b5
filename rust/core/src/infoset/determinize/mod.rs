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
//!    integer counts of the physical deals ([`crate::util::bignum::Big`]), built once per info set: it draws
//!    uniformly among the deals that meet every bound (kinds without a bound are dealt by one
//!    shuffle). For a dealt hand it also weights the final declarer's revealed showings by
//!    the exact share of placements of its trump level cards that fit their timing, and,
//!    under C9 (a competition match's first hand), every other shower's small jokers by the
//!    share of their placements that put one among its cards before its first showing; and
//!    one other seat's hidden run of a single one-card showing by the share of placements of
//!    its level cards that put one before it (`OneEarly`).
//! 2. *Check* the follows whose legality depended on the whole hand (R5.3), exactly; a check
//!    that passes on the largest hand the bounds allow passes on every world and is not run
//!    (legality is monotone in the holding, `Determinizer::live_checks`). A check
//!    reads only its led class, so the counting programme places each checked class's kinds
//!    (all of them, bounded or not) before the other kinds and runs the class's checks as
//!    soon as it is placed: a failing proposal is rejected there, before the rest is drawn
//!    (the same accepted distribution, found sooner; verdicts are memoised per class holding,
//!    `CheckMemo`). A checked class with more than `WHOLE_CLASS_UNBOUNDED` (4) unbounded
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
//!    In the default deal mode who was asked to decide is evidence too (`InfoSet::asked`,
//!    D7): there step 3 draws the other seats' level-card places from their exact law given
//!    that sequence and their showings, after accepting the hands in proportion to the share
//!    of placements that fit, and earlier attempts given each seat's first level card
//!    (`turns.rs`, `multisets.rs` for a seat without showings or with one run of a public
//!    suit); the weights above belong to the uniform placement this replaces and are not used
//!    then. Step 1 then proposes the level kinds' allocation from a table of all its paths
//!    weighted by those shares' envelopes, so that the acceptance almost always passes
//!    (`levels.rs`). The replay compares the whole sequence, the final round included.
//!
//! A rejection at any step starts again from step 1, so the accepted world is an exact draw
//! from the target (for dealt hands: with the hidden-suit choice stated above; the target
//! itself says nothing of why players show when they do).
//!
//! A world depends only on the info set and the seed: it reads nothing else of the game.

mod arrange;
mod chain_cache;
mod checks;
mod counting;
pub mod early_runs;
mod holders;
mod levels;
mod multisets;
mod pool;
mod splits;
mod timing;
mod turns;
mod world;

/// Tests: hand `seed` of profile `seed % 3` played to its end by uniform draws over the legal
/// actions (showings included): the profile, its actions and how many cards were dealt.
#[cfg(test)]
pub(crate) fn random_hand(seed: u64) -> (crate::rules::profile::Profile, Vec<crate::game::hand::Action>, usize) {
    use crate::game::action_set::ActionSet;
    use crate::game::hand::{Game, NOBODY};
    let profile = crate::rules::profile::Profile::ALL[(seed % 3) as usize];
    let mut g = Game::deal(seed, profile, [3, 3], NOBODY, None).expect("a fresh deal");
    let mut rng = crate::util::rng::Rng::new(seed);
    let mut actions = Vec::new();
    while let Some(a) = ActionSet::of(&g.pos).sample(&mut rng) {
        g.apply(&a).expect("a legal action");
        actions.push(a);
    }
    (profile, actions, g.record.dealt_at.len())
}

/// Tests: hand `seed` ([`random_hand`]) stopped at four points (two thirds into the deal, the
/// first play, mid-hand, six actions before the end), each cut with its game.
#[cfg(test)]
pub(crate) fn random_cuts(seed: u64) -> Vec<(usize, crate::game::hand::Game)> {
    let (profile, actions, deal_len) = random_hand(seed);
    let n = actions.len();
    [deal_len * 2 / 3, deal_len + 1, (deal_len + n) / 2, n.saturating_sub(6)]
        .into_iter()
        .map(|cut| {
            let mut p = crate::game::hand::Game::deal(seed, profile, [3, 3], crate::game::hand::NOBODY, None).expect("a fresh deal");
            for a in &actions[..cut.min(n)] {
                p.apply(a).expect("a legal action");
            }
            (cut, p)
        })
        .collect()
}

pub use arrange::Arrangement;
pub use holders::Draw;

use checks::CheckMemo;
use arrange::arrange;
use counting::Dp;
use splits::{splits, Splits};
use crate::util::bignum::Big;
use levels::{LevelTable, PrefixMemo, Walk};
use early_runs::{EarlyRuns, SMALL_JOKER};
use holders::Holder;
use timing::{joker_fits, level_fit, level_plan, plan_kinds, small_joker_timed, LevelPlan, OneEarly, Revealed};
use turns::Turns;
use world::{build_world, PlayTemplate};

use crate::game::hand::{Game, Phase, NOBODY};
use crate::infoset::info::InfoSet;
use crate::rules::card::{Card, Counts, KINDS, SJ};
use crate::rules::error::Error;
use crate::util::rng::Rng;

/// A checked class is drawn whole by the counting programme when at most this many of its
/// kinds carry no bound.
const WHOLE_CLASS_UNBOUNDED: usize = 4;

/// Rejections before giving up (never reached by consistent info sets in testing).
const MAX_TRIES: usize = 2_000_000;

/// A proposal's level cards (step 3): not drawn (no timing), placed, accepted by the turn
/// chains (placed by [`Turns::place`] once the whole proposal has passed), or rejected.
enum LevelDraw {
    NotTimed,
    Plan(LevelPlan),
    Accepted(turns::Accepted),
    Rejected,
}

impl LevelDraw {
    fn of_plan(p: Option<LevelPlan>) -> LevelDraw {
        p.map_or(LevelDraw::Rejected, LevelDraw::Plan)
    }

    fn of_accepted(a: Option<turns::Accepted>) -> LevelDraw {
        a.map_or(LevelDraw::Rejected, LevelDraw::Accepted)
    }
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
    /// Whether a world must ask the same seats at the same times as the source while dealing
    /// (`InfoSet::asked`; evidence in the default deal mode, D7): the level cards' plan is
    /// drawn given it (`turns.rs`), and the replayed deal is checked against it.
    turns: Option<Turns>,
    /// The level cards' allocations drawn whole with the turn chains' envelopes
    /// (`levels.rs`), built at the first draw; `Some(None)`: too many, plain rejection.
    levels: Option<Option<LevelTable>>,
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
    /// Whether the counting programme draws the kinds only one holder's bounds restrict with
    /// the free cards (`pool.rs`); off: a layer each, the law's twin.
    pooling: bool,
    /// The holder of each ladder check's follower.
    check_holder: Vec<usize>,
    /// The ladder checks (indices into `info.checks`) that some hand within the bounds could
    /// fail: the others pass on every world the bounds allow and are never run (see
    /// `Determinizer::live_checks`).
    live: Vec<usize>,
    /// The checks' verdicts so far (a cache: it changes no draw).
    memo: CheckMemo,
    /// The public play history as replayed in the first world (a cache: it changes no world).
    play: Option<PlayTemplate>,
    /// Proposals made and worlds accepted so far (the acceptance rate of the rejection steps).
    pub proposals: u64,
    pub accepted: u64,
}

impl Determinizer {
    /// Hands only from the play's evidence (voids, ladder bounds and checks, the revealed
    /// trumps), ignoring when showings were made: what the search policies use. Exact for a
    /// hand from given hands; for a dealt hand it leaves out the showings' timing (see
    /// BENCHMARKS.md for the difference). [`Determinizer::world`] needs the exact sampler.
    pub fn for_search(info: InfoSet) -> Determinizer {
        let mut d = Self::build(info, false);
        d.timing = false;
        d.turns = None;
        d.timed.clear();
        d.revealed = None;
        d.jokers.clear();
        d.level_fit = None;
        d.early = None;
        d.use_dp = d.compute_needs_dp();
        d
    }

    pub fn new(info: InfoSet) -> Determinizer {
        Self::build(info, true)
    }

    /// The same sampler without the turn order's evidence (`InfoSet::asked`): its worlds may
    /// ask other seats than the source did while dealing (a seat could tell them apart), a
    /// bias towards worlds where a skipped seat held a level card it could have shown. Kept to
    /// measure that bias and as the sampler of record before this evidence was used. The same
    /// as [`Determinizer::new`] for `every_receiver` deals and hands from given hands, where the
    /// order proves nothing.
    pub fn ignoring_turns(info: InfoSet) -> Determinizer {
        Self::build(info, false)
    }

    fn build(info: InfoSet, use_turns: bool) -> Determinizer {
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
        let turns = (use_turns && info.dealt_hand && !info.every_receiver).then(|| Turns::new(&info));
        // (who was asked reads the level cards' places even before anyone showed)
        let timed = if info.dealt_hand && (turns.is_some() || info.runs.iter().any(|r| r.seat != info.seat)) { plan_kinds(&info) } else { Vec::new() };
        // with who was asked as evidence, the level cards' places are drawn by `Turns::plan`
        // (the showings' weights below belong to the uniform placement it replaces)
        let weighted = !timed.is_empty() && turns.is_none();
        let revealed = if !weighted { None } else { Revealed::of(&info, &holders) };
        let jokers = if !weighted || !small_joker_timed(&info) { Vec::new() } else { joker_fits(&info, &holders, revealed.as_ref()) };
        let level_fit = if !weighted || small_joker_timed(&info) { None } else { level_fit(&info, &holders, revealed.as_ref()) };
        let check_holder: Vec<usize> = info.checks.iter().map(|c| holders.iter().position(|h| h.seat == c.seat).expect("a follower is another seat")).collect();
        let live = Self::live_checks(&info, &holders, &check_holder);
        let memo = CheckMemo::new(&info, &live);
        let mut d = Determinizer { info, holders, pool, dp: None, timed, timing: true, turns, levels: None, revealed, jokers, level_fit, early: None, use_dp: false, pooling: true, check_holder, live, memo, play: None, proposals: 0, accepted: 0 };
        d.use_dp = d.compute_needs_dp();
        // the shuffle's windows while dealing (other seats' hidden runs, the seat the deal
        // stopped at), where the counting programme is not used
        let stopped = d.info.dealt_hand && !small_joker_timed(&d.info) && early_runs::decider(&d.info).is_some();
        if (!d.timed.is_empty() || stopped) && d.info.phase == Phase::Declare && d.turns.is_none() {
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
    /// distribution, only the cost (tested against brute force, `tests/determinize.rs`). The
    /// verdicts are kept per thread for the hand's next info sets (`checks::passes_kept`).
    fn live_checks(info: &InfoSet, holders: &[Holder], check_holder: &[usize]) -> Vec<usize> {
        if info.checks.is_empty() {
            return Vec::new();
        }
        // (each holder's largest hand, found once)
        let largest: Vec<Counts> = holders.iter().map(|h| std::array::from_fn(|k| h.hi[k].min(info.unseen[k]))).collect();
        (0..info.checks.len()).filter(|&ci| !checks::passes_kept(info, &info.checks[ci], &largest[check_holder[ci]])).collect()
    }

    /// The same sampler drawing the level cards' allocation by plain rejection (each seat's
    /// counts accepted by its turn chain, about 30 proposals a world mid-hand) instead of from
    /// the level table (`levels.rs`): the same law, the reference of its tests and benchmarks.
    pub fn without_level_table(mut self) -> Determinizer {
        self.levels = Some(None);
        self
    }

    /// The same sampler with a layer of the counting programme for every bounded kind: the kinds
    /// only one holder's bounds restrict are not pooled (`pool.rs`). The same law, other
    /// draws: the twin of the pooled draws' tests.
    pub fn without_pool(mut self) -> Determinizer {
        self.pooling = false;
        self.dp = None;
        self
    }

    /// How many kinds the counting programme draws pooled with the free cards (`pool.rs`;
    /// `None` before the programme is built).
    pub fn pooled_kinds(&self) -> Option<usize> {
        self.dp.as_ref().map(|dp| dp.pool.as_ref().map_or(0, |p| p.kinds.len()))
    }

    /// Whether the level cards' allocation comes from the level table (known after the first
    /// world: `None` before).
    pub fn uses_level_table(&self) -> Option<bool> {
        self.levels.as_ref().map(Option::is_some)
    }

    /// Whether the level table draws its paths by cells (three seats and no pile, `levels.rs`;
    /// `None` before the first world or without a table).
    pub fn level_table_by_cells(&self) -> Option<bool> {
        self.levels.as_ref().and_then(|l| l.as_ref()).map(LevelTable::by_cells)
    }

    /// Whether the level table by cells keeps its seats in another order than the holders'
    /// (fewest nonzero factors first, `levels.rs`; `None` before the first world or without a
    /// table by cells).
    pub fn level_table_reordered(&self) -> Option<bool> {
        self.levels.as_ref().and_then(|l| l.as_ref()).and_then(LevelTable::reordered)
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
    fn propose_uniform_timed(&self, rng: &mut Rng, plan: &mut LevelDraw) -> Option<Vec<Counts>> {
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
        *plan = match &self.turns {
            Some(t) if t.conditions() => LevelDraw::of_accepted(t.accept(&self.info, &self.holders, &out, false, rng)),
            _ => LevelDraw::of_plan(level_plan(&self.info, &self.holders, &out, None, &[], None, (&fixed, &taken), rng)),
        };
        if matches!(plan, LevelDraw::Rejected) {
            return None;
        }
        rng.shuffle_by_halves(&mut rest);
        for (&k, &p) in rest.iter().zip(&places[lv.len()..]) {
            out[owner(p)][k as usize] += 1;
        }
        Some(out)
    }

    /// The level kinds (R8.1) with unseen copies, suit by suit: what the level table deals
    /// (C9's small joker, which no chain counts, is left to the rest of the proposal).
    fn level_kinds(&self) -> Vec<u8> {
        let (k, n) = self.level_kinds_listed();
        k[..n].to_vec()
    }

    /// [`Determinizer::level_kinds`] without an allocation: the kinds, and how many.
    fn level_kinds_listed(&self) -> ([u8; 4], usize) {
        let (mut out, mut n) = ([0u8; 4], 0);
        for k in (0..4).map(|s| Card::new(s, self.info.level).0).filter(|&k| self.info.unseen[k as usize] > 0) {
            out[n] = k;
            n += 1;
        }
        (out, n)
    }

    /// Per holder: its seat and the level cards of each suit it has played.
    fn level_holders(&self) -> Vec<(u8, [u8; 4])> {
        let played = |seat: u8| std::array::from_fn(|s| if seat == NOBODY { 0 } else { self.info.played[seat as usize][Card::new(s as u8, self.info.level).id()] });
        self.holders.iter().map(|h| (h.seat, played(h.seat))).collect()
    }

    /// Per holder: its chain's envelopes by packed level counts (12 bits: every key has an
    /// entry; the pile and the holders past the last, none: 0), as the level table's walk
    /// reads them.
    fn level_envelopes(&self) -> [&[u32; 1 << 12]; 4] {
        static NONE: [u32; 1 << 12] = [0; 1 << 12];
        let t = self.turns.as_ref().expect("a level table comes with the turn chains");
        std::array::from_fn(|h| match self.holders.get(h) {
            Some(x) if x.seat != NOBODY => t.envelopes(x.seat).try_into().expect("an envelope per packed count"),
            _ => &NONE,
        })
    }

    /// Per holder: its chain's envelopes, shared (the pile and the holders past the last: none).
    fn level_envelope_tables(&self) -> [Option<levels::Envelopes>; 4] {
        let t = self.turns.as_ref().expect("a level table comes with the turn chains");
        std::array::from_fn(|h| self.holders.get(h).filter(|x| x.seat != NOBODY).map(|x| t.envelope_table(x.seat)))
    }

    /// Per holder: where its chain keeps the level tables' prefix tables (the pile: none).
    fn level_memos(&self) -> Vec<Option<&PrefixMemo>> {
        let t = self.turns.as_ref().filter(|t| t.conditions());
        self.holders.iter().map(|h| t.filter(|_| h.seat != NOBODY).map(|t| t.prefix_memo(h.seat))).collect()
    }

    /// Builds the level table once, where the turn chains condition the worlds (`levels.rs`).
    fn ensure_levels(&mut self) -> Result<(), Error> {
        let Some(t) = self.turns.as_ref().filter(|t| t.conditions() && self.levels.is_none()) else { return Ok(()) };
        // each seat's envelopes by packed counts, read at every path's end
        let dense = self.level_envelopes();
        let envelope = |h: usize, key: u16| dense[h & 3][(key & 0xfff) as usize];
        let valid: Vec<&[u16]> = self.holders.iter().map(|h| if h.seat == NOBODY { &[][..] } else { t.valid(h.seat) }).collect();
        let table = match (&self.dp, self.use_dp) {
            (Some(dp), true) => self.dp_levels(dp, &envelope, valid),
            (None, true) => return Err(Error::NoWorld("determinization: the counting programme is built first".into())),
            (_, false) if self.early.is_none() => self.shuffle_levels(&envelope, valid),
            _ => None,
        };
        self.levels = Some(table);
        Ok(())
    }

    /// The level table of the plain shuffle: the level cards go to the holders' places
    /// uniformly, so a path of splits weighs Π multinomials × Π falling factorials
    /// size!/(size − l)! of the places each holder's l level cards take.
    fn shuffle_levels(&self, envelope: &impl Fn(usize, u16) -> u32, valid: Vec<&[u16]>) -> Option<LevelTable> {
        let kinds = self.level_kinds();
        let nh = self.holders.len();
        let sizes: Vec<u16> = self.holders.iter().map(|h| h.size).collect();
        let splits: Vec<Splits> = kinds.iter().map(|&k| splits(self.info.unseen[k as usize], &[0; 4][..nh], &[u8::MAX; 4][..nh])).collect();
        let end = self.shuffle_end_by_rooms();
        let mut rooms = [0u16; 4];
        rooms[..nh].copy_from_slice(&sizes);
        let memos = self.level_memos();
        let walk = Walk {
            splits: splits.iter().collect(),
            kinds: kinds.clone(),
            holders: self.level_holders(),
            rooms,
            end: &end,
            linear: None,
            envelope,
            valid,
            memos,
            tables: self.level_envelope_tables(),
        };
        LevelTable::build(&walk)
    }

    /// The completions of the plain shuffle after the level cards, from the holders' rooms:
    /// the places their level cards took, Π size!/(room)! (in 128 bits while the product
    /// fits, checked).
    fn shuffle_end(&self) -> impl Fn(&[u16; 4]) -> Result<u128, Big> + '_ {
        let nh = self.holders.len();
        move |s: &[u16; 4]| {
            let mut v = 1u128;
            for (h, x) in self.holders.iter().enumerate().take(nh) {
                for t in s[h]..x.size {
                    match v.checked_mul(t as u128 + 1) {
                        Some(p) => v = p,
                        None => return Err(Self::falling(s, &self.holders.iter().map(|h| h.size).collect::<Vec<_>>())),
                    }
                }
            }
            Ok(v)
        }
    }

    /// [`Determinizer::shuffle_end`] from each holder's size!/(room)! for every room, computed
    /// once (the level table's walk reads it at every path's end): the same values, a product
    /// of one factor a holder.
    fn shuffle_end_by_rooms(&self) -> impl Fn(&[u16; 4]) -> Result<u128, Big> + '_ {
        let sizes: Vec<u16> = self.holders.iter().map(|h| h.size).collect();
        // (`None` past 128 bits: then so is every product with it)
        let fall: Vec<Vec<Option<u128>>> = sizes
            .iter()
            .map(|&size| {
                let mut row = vec![None; size as usize + 1];
                let mut v = Some(1u128);
                for room in (0..=size as usize).rev() {
                    row[room] = v;
                    v = v.and_then(|v| v.checked_mul(room as u128));
                }
                row
            })
            .collect();
        move |s: &[u16; 4]| {
            let mut v = 1u128;
            for (h, row) in fall.iter().enumerate() {
                match row[s[h] as usize].and_then(|f| v.checked_mul(f)) {
                    Some(p) => v = p,
                    None => return Err(Self::falling(s, &sizes)),
                }
            }
            Ok(v)
        }
    }

    /// Π over the holders of size!/(room)!: the places the holders' level cards take, at full
    /// width.
    fn falling(rooms: &[u16; 4], sizes: &[u16]) -> Big {
        let mut v = Big::ONE;
        for (h, &size) in sizes.iter().enumerate() {
            for t in rooms[h]..size {
                v = v.mul_small(t as u64 + 1);
            }
        }
        v
    }

    /// The twin of [`Determinizer::shuffle_levels`]: the plain walk
    /// ([`levels::plain_table`]), a split fitting where no holder takes more than its room.
    #[cfg(test)]
    fn shuffle_levels_plain(&self, envelope: &dyn Fn(usize, u16) -> u32, valid: &[&[u16]]) -> Option<(Vec<u8>, Vec<Big>)> {
        let kinds = self.level_kinds();
        let nh = self.holders.len();
        let sizes: Vec<u16> = self.holders.iter().map(|h| h.size).collect();
        let splits: Vec<Splits> = kinds.iter().map(|&k| splits(self.info.unseen[k as usize], &[0; 4][..nh], &[u8::MAX; 4][..nh])).collect();
        let step = |j: usize, x: usize, s: &[u16; 4]| {
            let a = &splits[j][x].0;
            (0..nh).all(|h| a[h] as u16 <= s[h]).then(|| std::array::from_fn(|h| if h < nh { s[h] - a[h] as u16 } else { 0 }))
        };
        let end = |s: &[u16; 4]| Self::falling(s, &sizes);
        let mut start = [0u16; 4];
        start[..nh].copy_from_slice(&sizes);
        levels::plain_table(&splits.iter().collect::<Vec<_>>(), &kinds, &self.level_holders(), start, &step, &end, envelope, valid)
    }

    /// The uniform proposal with the level cards' allocation drawn from the level table: a
    /// path's splits, accepted within the turn chains' envelopes, then the other cards
    /// shuffled into the rooms left (the same law as [`Determinizer::propose_uniform_timed`]
    /// with the chains' acceptance, found at about one proposal per world).
    fn propose_levels_shuffled(&self, table: &LevelTable, rng: &mut Rng, plan: &mut LevelDraw) -> Option<Vec<Counts>> {
        let kinds = table.kinds();
        let nh = self.holders.len();
        let mut out = vec![[0u8; KINDS]; nh];
        for (j, &x) in table.sample(rng, &self.shuffle_end()).iter().enumerate() {
            let a = table.split(j, x);
            for h in 0..nh {
                out[h][kinds[j] as usize] += a[h];
            }
        }
        let t = self.turns.as_ref().expect("a level table comes with the turn chains");
        *plan = LevelDraw::of_accepted(t.accept(&self.info, &self.holders, &out, true, rng));
        if matches!(plan, LevelDraw::Rejected) {
            return None;
        }
        let mut rest: Vec<u8> = self.pool.iter().copied().filter(|k| !kinds.contains(k)).collect();
        let room: Vec<u16> = self.holders.iter().zip(&out).map(|(h, a)| h.size - a.iter().map(|&x| x as u16).sum::<u16>()).collect();
        Self::deal_free(&mut rest, &room, &mut out, rng);
        Some(out)
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
            let mut plan = LevelDraw::NotTimed;
            // the proposal depends only on the info set (never on earlier draws), so a world
            // depends only on what the seat knows and the seed
            let alloc = if !self.use_dp {
                let a = if self.timing && self.info.dealt_hand {
                    self.ensure_levels()?;
                    let proposal = match self.levels.as_ref().and_then(|l| l.as_ref()) {
                        Some(table) => self.propose_levels_shuffled(table, rng, &mut plan),
                        None => self.propose_uniform_timed(rng, &mut plan),
                    };
                    match proposal {
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
                let levels_drawn = self.timing && self.info.dealt_hand;
                if self.dp.is_none() {
                    self.dp = Some(self.build_dp_from(levels_drawn)?);
                }
                if levels_drawn {
                    self.ensure_levels()?;
                }
                // (the layers a level table would have stood for, where none was built)
                if self.dp.as_ref().is_some_and(|d| d.from > 0) && !self.levels.as_ref().is_some_and(|l| l.is_some()) {
                    let lazy = self.dp.take();
                    self.dp = Some(self.build_dp_over(false, lazy)?);
                }
                let (info, holders, revealed, jokers) = (&self.info, &self.holders, self.revealed.as_ref(), &self.jokers);
                let (level_fit, turns) = (self.level_fit.as_ref(), self.turns.as_ref().filter(|t| t.conditions()));
                let levels = self.levels.as_ref().and_then(|l| l.as_ref());
                let scaled = levels.is_some();
                let mut early = |a: &[Counts], rng: &mut Rng| {
                    plan = match turns {
                        Some(t) => LevelDraw::of_accepted(t.accept(info, holders, a, scaled, rng)),
                        None => LevelDraw::of_plan(level_plan(info, holders, a, revealed, jokers, level_fit, (&[], &[]), rng)),
                    };
                    !matches!(plan, LevelDraw::Rejected)
                };
                let early: &mut dyn FnMut(&[Counts], &mut Rng) -> bool =
                    if self.timing && info.dealt_hand { &mut early } else { &mut |_: &[Counts], _: &mut Rng| true };
                let mut memo = std::mem::take(&mut self.memo);
                let a = self.propose_dp(self.dp.as_ref().expect("built"), &mut memo, rng, early, levels);
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
                let plan = match plan {
                    LevelDraw::NotTimed => None,
                    LevelDraw::Plan(p) => Some(p),
                    // the placements last, once nothing else can reject the proposal
                    LevelDraw::Accepted(a) => match self.turns.as_ref().expect("chains").place(&self.info, &self.holders, &alloc, a, rng) {
                        Some(p) => Some(p),
                        None => continue,
                    },
                    LevelDraw::Rejected => unreachable!("a rejected plan ends its proposal"),
                };
                self.accepted += 1;
                return Ok((d, plan));
            }
        }
    }

    /// Hands for a world (each seat's hand now, the seat's own unchanged), drawn from the
    /// target distribution; for a dealt hand also the decks and hidden suits that go with them.
    pub fn sample(&mut self, rng: &mut Rng) -> Result<(Draw, Option<Arrangement>), Error> {
        if let Some(t) = self.turns.as_mut() {
            t.prepare(&self.info);
        }
        let mut tries = 0;
        loop {
            let (d, plan) = self.draw(rng, &mut tries)?;
            if let (Some(t), Some(p)) = (&self.turns, &plan) {
                if !t.conditions() && !t.fits(&self.info, p) {
                    continue;
                }
            }
            let arr = plan.map(|p| arrange(&self.info, &d, p, self.turns.as_ref(), rng));
            return Ok((d, arr));
        }
    }

    /// The hands of a world, for a search: [`Determinizer::sample`]'s from a search
    /// determinizer ([`Determinizer::for_search`]) or a hand from given hands, else those of a
    /// complete [`Determinizer::world`] (its replay may still reject a sample, so a sample's
    /// hands alone would not follow the worlds' law). The pile: the unseen cards no hand holds.
    pub fn hands(&mut self, rng: &mut Rng) -> Result<Draw, Error> {
        if !self.timing || !self.info.dealt_hand {
            return Ok(self.sample(rng)?.0);
        }
        let g = self.world(rng)?;
        let mut d = Draw { hands: g.pos.hands, pile: self.info.unseen };
        for (s, h) in d.hands.iter().enumerate() {
            if s != self.info.seat as usize {
                for (p, &x) in d.pile.iter_mut().zip(h) {
                    *p -= x;
                }
            }
        }
        Ok(d)
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
            if let Some(g) = build_world(&self.info, &d, arr, self.turns.is_some(), world_seed, &mut self.play)? {
                return Ok(g);
            }
        }
    }
}
