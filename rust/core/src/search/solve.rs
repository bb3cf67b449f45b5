//! The exact solver of open-card positions (all four hands known): Tractor's double-dummy
//! solver. The value of a position is the defenders' final score (R7.3), which the defenders
//! maximise and the banker team minimises; R7.4's levels are a monotone function of it, so
//! the same play is best for both.
//!
//! Alpha-beta over whole plays, with
//! - a transposition table of trick-start positions (hands and who leads, up to renaming the
//!   plain suits' ranks), holding bounds of the points still to come, so that a position
//!   reached with other points already won is found again; at a trick's last card with
//!   `ETC_CARDS` − 1 cards a hand or more to follow, every child's entry is read before any
//!   child is searched (an enhanced transposition cutoff);
//! - move ordering: the table's best play first (else the play that last cut a node at the
//!   same depth, a killer), then plays that leave the mover's team
//!   winning the trick (first a single's trick the next seat cannot take, then the most
//!   points), then the rest (the fewest points first, but the most, and no killer first,
//!   where the window asks the mover's side for no more than its points as they stand:
//!   points shed to an ordinary trick never count N times in the last, R7.2–R7.3);
//! - equivalent single leads merged: single cards of one class that nobody else holds a copy
//!   of, with equal points and no other card left between them in strength (R2.3), are one
//!   lead (which of them leaves the hand changes nothing for the rest of it);
//! - tied kinds renamed: kinds of equal strength that no tractor links (the other suits' level
//!   cards and 2s, R2.3, R3.3, R2.6) are interchangeable, so the table's key sorts each run of
//!   them, and below the root plays that differ only within a swap group (tied kinds with the
//!   same copies in every hand) are one play (the root lists every play);
//! - at a trick start with three cards a hand, a single lead's trick played out over masks
//!   alone (no position made, no table mid-trick), its four cards' outcome read from the last
//!   two tricks' exact values kept by their cards or by their shape (their cards up to a
//!   renaming that keeps every comparison and point), or solved directly;
//! - the root's plays solved one by one (MTD(f)), at a trick start the likely best first (most
//!   points and cards, then strength), each guessed as the best value so far, listed in the
//!   engine's order;
//! - a node budget: past it the search stops, the plays solved keep their exact values and
//!   the others get bounds (the points left, each counted at most the last trick's multiple).
//! - partition search ([`solve_by`] with `partition`; rust/core/PARTITION.md): every search
//!   also returns what its value leaned on (per class the lowest strength a trick it decided
//!   compared, R4.1, R6.1), which its table entry keeps beside it; where that leaves kinds
//!   below it ("small"), the bounds are kept too under a key that names the small kinds only by
//!   each hand's (copies, points) ([`super::partition`]), and serve every position that
//!   differs from this one only there.
//!
//! The table's order is never read and every list is in a fixed order: the result is the same
//! on every platform.

use std::hash::Hasher;

use crate::game::action_set::ActionSet;
use crate::game::hand::{Action, Phase, Position, Trick, NOBODY};
use crate::rules::card::{held_mask, size, words, Card, Counts, KINDS};
use crate::rules::combo::{beats, classify, follow_combo, for_each_lead, unit, Combo};
use crate::rules::error::Error;
use crate::rules::score::{points, KIND_POINTS};
use crate::rules::trump::{Context, NONE, TRUMP};
use crate::util::hash::FxHasher;

use super::exact_cache::{self, ExactCache};
use super::partition::{self, union, Buckets, Classes, Rel, ALL, NOTHING};
use super::table::{Entry, Table, NO_LOWER, NO_UPPER};

mod threads;

#[cfg(test)]
thread_local! {
    // enhanced transposition cutoffs taken (the tests check that theirs are exercised)
    static ETC_CUTS: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
    // the line's steps that took the play the search kept
    static HINTS_TAKEN: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

/// The table's size (slots) from which an enhanced transposition cutoff makes every child's
/// key before it reads their entries: 32 MiB, past the last-level cache (BENCH 10 cards,
/// positions 2-4: user time -6%, the same nodes).
const BATCH_SLOTS: usize = 1 << 21;

#[cfg(test)]
thread_local! {
    // the tests' size from which the keys are made first (the twin reads each key when made)
    static BATCH_FROM: std::cell::Cell<usize> = const { std::cell::Cell::new(BATCH_SLOTS) };
}

/// [`BATCH_SLOTS`] (in the tests, the size they set).
fn batch_slots() -> usize {
    #[cfg(test)]
    return BATCH_FROM.with(|c| c.get());
    #[cfg(not(test))]
    BATCH_SLOTS
}

/// The most plays one node may have (a void follower's discards): past it the node is
/// unsolved, as past the budget.
pub const NODE_PLAYS: u128 = 200_000;

/// Table entries kept at most (past it, the cheapest entry of a bucket gives way).
pub const TABLE_ENTRIES: usize = super::table::MAX_SLOTS;

/// One play at the root and its value: the defenders' final score, exact when
/// `lower == upper`, else the bounds the budget left.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PlayValue {
    pub play: Counts,
    pub lower: i32,
    pub upper: i32,
}

/// What [`solve`] found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Solution {
    /// Every distinct legal play (equivalent single leads merged into their first), in the
    /// engine's order, with its value.
    pub plays: Vec<PlayValue>,
    /// The best play for the side to move (ties: the earlier), and the position's value.
    pub best: Counts,
    pub lower: i32,
    pub upper: i32,
    /// The principal line from here to the end (seat, play) when exact.
    pub line: Vec<(u8, Counts)>,
    /// Nodes searched.
    pub nodes: u64,
    /// Every play's value is exact.
    pub exact: bool,
}

/// A measurement for the partition search port (rust/core/PARTITION.md; feature
/// `partition-hook`, off by default): every trick start the solver searches (not answered by its table or bounds) is reported
/// when its search begins (`best` None, the window it searches with, the nodes so far) and
/// when it ends (`best` its fail-soft value).
#[cfg(feature = "partition-hook")]
pub mod hook {
    use crate::game::hand::Position;
    /// (position, alpha, beta, best, nodes so far)
    pub type Hook = fn(&Position, i32, i32, Option<i32>, u64);
    /// (trick start, alpha, beta): its table entry answered the window (at the node, or as
    /// a child by an enhanced transposition cutoff)
    pub type Hit = fn(&Position, i32, i32);
    thread_local! {
        pub static HOOK: std::cell::Cell<Option<Hook>> = const { std::cell::Cell::new(None) };
        pub static HIT: std::cell::Cell<Option<Hit>> = const { std::cell::Cell::new(None) };
    }
    pub(super) fn hit(pos: &Position, alpha: i32, beta: i32) {
        if let Some(f) = HIT.with(|h| h.get()) {
            f(pos, alpha, beta);
        }
    }
    pub(super) fn call(pos: &Position, alpha: i32, beta: i32, best: Option<i32>, nodes: u64) {
        if let Some(f) = HOOK.with(|h| h.get()) {
            f(pos, alpha, beta, best, nodes);
        }
    }
}

#[cfg(test)]
thread_local! {
    // the twins' own check: 1 drops T1, 2 makes the winner itself small (both must be caught)
    static REL_UNSOUND: std::cell::Cell<u8> = const { std::cell::Cell::new(0) };
}

/// What a search returns besides its value: nothing (`()`, the solver with its table of whole
/// trick starts) or its relevance ([`Rel`], partition search); `()` makes every step below a
/// no-op, so that search's code is as it was.
trait Relevance: Copy {
    const ON: bool;
    fn none() -> Self;
    fn of(rel: Rel) -> Self;
    /// The relevance ([`ALL`] for `()`, never read).
    fn get(&self) -> Rel;
    fn join(&mut self, other: &Self);
    fn trick(&mut self, class: u8, strength: u8);
}

impl Relevance for () {
    const ON: bool = false;
    #[inline(always)]
    fn none() {}
    #[inline(always)]
    fn of(_: Rel) {}
    #[inline(always)]
    fn get(&self) -> Rel {
        ALL
    }
    #[inline(always)]
    fn join(&mut self, _: &()) {}
    #[inline(always)]
    fn trick(&mut self, _: u8, _: u8) {}
}

impl Relevance for Rel {
    const ON: bool = true;
    #[inline(always)]
    fn none() -> Rel {
        [NOTHING; 5]
    }
    #[inline(always)]
    fn of(rel: Rel) -> Rel {
        rel
    }
    #[inline(always)]
    fn get(&self) -> Rel {
        *self
    }
    #[inline(always)]
    fn join(&mut self, other: &Rel) {
        union(self, other);
    }
    #[inline(always)]
    fn trick(&mut self, class: u8, strength: u8) {
        rel_trick(self, class, strength);
    }
}

/// T1 (PARTITION.md): a contested trick's winner of class `class` and strength `strength`
/// makes that strength relevant.
#[inline(always)]
fn rel_trick(rel: &mut Rel, class: u8, strength: u8) {
    #[cfg(test)]
    let strength = match REL_UNSOUND.with(|u| u.get()) {
        1 => return,
        2 => strength + 1,
        _ => strength,
    };
    let r = &mut rel[class as usize];
    *r = (*r).min(strength);
}

struct Budget;

struct Solver {
    table: Table,
    nodes: u64,
    budget: u64,
    /// Each depth's buffers, kept from node to node (no allocation per node).
    plies: Vec<Option<Box<Ply>>>,
    order: Order,
    /// The last two tricks' exact values (less the defenders' points so far) by their cards.
    last: ExactCache,
    /// The follows of a lead of several cards by the hand that follows (the engine's lists).
    follows: Follows,
    /// The shapes of the trumps left ([`trump_shape`]) and their kinds in class order
    /// ([`TrumpsLeft`]) by
    /// their mask + 1, direct-mapped (1,024 slots, made on first use).
    shapes: Vec<TrumpsLeft>,
    /// The trick-start key of the next node searched, when its parent made it already.
    given_key: Option<u128>,
    /// The last two tricks' exact values (less the defenders' points so far) by their shape
    /// ([`two_shape`]), read when [`Solver::last`] has not their cards.
    two_shapes: ExactCache,
    /// [`Solver::two_rel`]'s: the last two tricks' values with their relevance packed above
    /// them, by their cards (the relevance as it is) and by their shape (the relevance by
    /// places, [`rel_to_places`]); empty until read (partition search, being ported).
    last_rel: ExactCache,
    shapes_rel: ExactCache,
    /// The best play of the nodes mid-trick in the trick of each search's root (depth below
    /// [`NEAR_DEPTH`]), by their whole position: the principal line tries it first.
    near: Near,
    /// Partition search (PARTITION.md): the table keeps each trick start's bounds under the
    /// exact part its search leaned on, found through [`Solver::buckets`].
    partition: bool,
    buckets: Buckets,
    /// Each depth's [`Classes`], kept from node to node.
    class_bufs: Vec<Option<Box<Classes>>>,
    /// Where several threads solve one position ([`threads`]): what this thread's search
    /// reads, every [`threads::CHUNK`] nodes, to go on.
    halt: Option<threads::Halt>,
    /// Helping another thread's question: near its root ([`threads::HELP_DEPTH`]) the plays'
    /// order rotated this far, so that the two begin in different places.
    rotate: usize,
    /// The line reads the best plays the search kept ([`Solver::hint`]): not where they came
    /// from several threads' searches, whose timing decides which entries a table kept.
    hints: bool,
}

/// The fewest cards in the mover's hand at a trick's last card for an enhanced transposition
/// cutoff (every child's table entry read first). Measured at 5 (the children with four cards
/// a hand): nodes −10% but the time +5–9% (BENCH 8 × 20, 7 × 60, 9 × 10): a probe is a cache
/// miss, and a child's key costs as much as a few nodes.
const ETC_CARDS: u8 = 6;

/// The depths below a search's root whose mid-trick nodes keep their best play in
/// [`Solver::near`].
const NEAR_DEPTH: usize = 3;

/// The fewest cards in the mover's hand for [`Solver::near`] to keep its best play and for
/// the line to read the best plays kept (nearer the end its searches cost less than that).
const NEAR_CARDS: u8 = 5;

/// Positions mid-trick and the index of their best play among [`search_plays`]', by a hash of
/// the position (a slot keeps one position; the map's order is never read).
type Near = std::collections::HashMap<u64, (Position, u16), std::hash::BuildHasherDefault<FxHasher>>;

/// A hash of what decides a position's play: hands, trick, turn and points so far.
fn near_hash(pos: &Position) -> u64 {
    let mut h = FxHasher::default();
    for hand in &pos.hands {
        for w in words(hand) {
            h.write_u64(w);
        }
    }
    let t = &pos.trick;
    h.write_u64((t.best_key as u64) << 32 | (t.points as u64) << 16 | (t.plays as u64) << 8 | t.best_seat as u64);
    h.write_u64((pos.to_move as u64) << 40 | pos.defender_points as u32 as u64);
    h.finish()
}

/// A hand and the lead it follows: its cards as words (R5's follows depend on nothing else).
#[derive(Clone, Copy, Eq)]
struct FollowKey {
    hand: [u64; 7],
    lead: Combo,
}

impl PartialEq for FollowKey {
    /// Equal hands and leads (the words XOR-ed and OR-ed: no call to compare the arrays).
    fn eq(&self, other: &FollowKey) -> bool {
        self.lead == other.lead && self.hand.iter().zip(&other.hand).fold(0, |a, (x, y)| a | (x ^ y)) == 0
    }
}

impl std::hash::Hash for FollowKey {
    fn hash<H: Hasher>(&self, state: &mut H) {
        for w in self.hand {
            state.write_u64(w);
        }
        self.lead.hash(state);
    }
}

/// The legal follows found so far (most hands meet the same lead in many lines), each with the
/// combination it is where it may win ([`follow_combo`]): read back in the engine's order, the
/// map's order never read. Cleared when it holds [`FOLLOWS_KEPT`].
type Follows = std::collections::HashMap<FollowKey, (Vec<Counts>, Vec<Known>), std::hash::BuildHasherDefault<FxHasher>>;

/// A play of several cards as listed: its combination (a lead's, R3; a follow's where it may
/// win, [`follow_combo`]) and its points (R7.1), read when it is played and ordered.
#[derive(Clone, Copy, Debug, Default)]
struct Known {
    combo: Option<Combo>,
    points: u16,
}

impl Known {
    /// The cards `c`, whose combination is `combo`: a unit's points are its kind's times its
    /// copies (R3.1).
    fn of(c: &Counts, combo: Option<Combo>) -> Known {
        let points = match combo {
            Some(u) if u.k == 1 => u.m as i32 * KIND_POINTS[u.first as usize],
            _ => points(c),
        };
        Known { combo, points: points as u16 }
    }
}

/// The most hands [`Follows`] keeps.
const FOLLOWS_KEPT: usize = 1 << 16;

/// One node's plays, the positions after them and the order they are searched in.
#[derive(Default)]
struct Ply {
    /// The plays, or none where every play is one card (a single lead's follows): then
    /// `singles` alone names them ([`Ply::cards`]).
    moves: Vec<Counts>,
    /// Each play's kind when it is one card, else [`NONE`].
    singles: Vec<u8>,
    /// With `moves`, each play's combination: a lead's (R3), a follow's where it may win
    /// ([`follow_combo`]); what [`play_known`] plays without classifying the cards again.
    combos: Vec<Known>,

    kids: Vec<Position>,
    /// At a trick's last card, the children's held masks and trick-start keys.
    helds: Vec<Held>,
    keys: Vec<u128>,
    /// The plays' indices in search order, each under its [`ranked`] score.
    order: Vec<u64>,
    /// The play that last cut a node at this depth, tried first where the table names none.
    killer: Option<(Counts, u8)>,
    killer2: Option<(Counts, u8)>,
    /// The last multi-card lead's follows listed at this depth and for what (a sibling's
    /// follower often meets the same lead with the same hand): read before [`Follows`].
    follow_key: Option<FollowKey>,
    follow_moves: Vec<Counts>,
    follow_combos: Vec<Known>,
    /// [`search_plays`]' groups: each member's next stronger kind of its interchangeable group
    /// and each swapped kind's next of its swap group, read only at the kinds written.
    prev: KindMap,
    next: KindMap,
    /// The kinds of interchangeable groups left out of the plays (each behind its `prev`):
    /// partition search keeps each group whole (G1).
    members: u64,
}

/// A kind for some kinds (the others never read): kept from node to node, not made again.
struct KindMap([u8; KINDS]);

impl Default for KindMap {
    fn default() -> KindMap {
        KindMap([NONE; KINDS])
    }
}

/// No cards: what [`Ply::play`] gives for a play of one card named by its kind alone.
static NO_CARDS: Counts = [0; KINDS];

/// One card of kind `k`.
fn one_card(k: u8) -> Counts {
    let mut c = [0u8; KINDS];
    c[k as usize] = 1;
    c
}

impl Ply {
    /// The index among this node's plays of its depth's killer (else the second killer) where
    /// legal here, else `u16::MAX`: read in place (a killer is 55 bytes), a single by its kind.
    fn killer_at(&self) -> u16 {
        for (kc, ks) in [&self.killer, &self.killer2].into_iter().flatten() {
            let at = if *ks != NONE { self.singles.iter().position(|k| k == ks) } else { self.moves.iter().position(|c| c == kc) };
            if let Some(i) = at {
                return i as u16;
            }
        }
        u16::MAX
    }

    /// Play `i`, which cut this node, made its depth's killer (the killer before it second).
    fn keep_killer(&mut self, i: usize) {
        let (bc, bs) = (self.moves.get(i).unwrap_or(&NO_CARDS), self.singles[i]);
        // one card's play is its kind: its cards are compared only for a play of several
        let same = self.killer.as_ref().is_some_and(|(kc, ks)| *ks == bs && (bs != NONE || kc == bc));
        if !same {
            self.killer2 = self.killer;
            self.killer = Some((*bc, bs));
        }
    }

    /// The plays listed.
    fn len(&self) -> usize {
        self.singles.len()
    }

    /// The `i`-th play's cards where `moves` keeps them, else [`NO_CARDS`] (a play of one
    /// card, named by `singles[i]`: read by no code that is given its kind).
    fn play(&self, i: usize) -> &Counts {
        self.moves.get(i).unwrap_or(&NO_CARDS)
    }

    /// The `i`-th play's combination where `combos` keeps one (see [`play_known`]).
    fn combo(&self, i: usize) -> Known {
        self.combos.get(i).copied().unwrap_or_default()
    }

    /// The `i`-th play's cards.
    fn cards(&self, i: usize) -> Counts {
        if self.singles[i] == NONE { self.moves[i] } else { one_card(self.singles[i]) }
    }
}

/// Each hand's kinds held at least once and at least twice, as bits over kind ids, and its
/// tallies: cards, cards worth 10 and 5 points (R7.1) and its largest combination's size (R3:
/// a unit, or a run of linked kinds held twice or more). Read by the bounds, the trick-start
/// key and the interchangeable groups of one node, and passed to its children with the
/// mover's hand's made again.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Held {
    once: [u64; 4],
    twice: [u64; 4],
    /// The kinds left in any hand.
    left: u64,
    cards: [u8; 4],
    tens: [u8; 4],
    fives: [u8; 4],
    widest: [u8; 4],
    /// The trick in progress's plays that were one combination, counted by class and
    /// multiplicity ([`unit_slot`], 3 bits each), for partition search's T1; [`UNKNOWN`] where
    /// the search began mid-trick (its earlier plays not seen).
    units: u64,
}

/// [`Held::units`] of a search begun mid-trick: every trick counts as contested.
const UNKNOWN: u64 = u64::MAX;

/// The shift of the count of one-combination plays of class `class` and multiplicity `m`
/// (R3.1, 1 to 4) in [`Held::units`].
#[inline(always)]
fn unit_slot(class: u8, m: u8) -> u32 {
    (class as u32 * 4 + m as u32 - 1) * 3
}

/// `units` after a play of one combination of class `class` and multiplicity `m` (if
/// `combo`) to a trick that goes on (`next` its position after).
#[inline(always)]
fn units_after(units: u64, next: &Position, combo: Option<(u8, u8)>) -> u64 {
    match combo {
        _ if next.trick.plays == 0 => 0,
        _ if units == UNKNOWN => UNKNOWN,
        Some((class, m)) => units + (1 << unit_slot(class, m)),
        None => units,
    }
}

impl Held {
    pub(crate) fn of(pos: &Position) -> Held {
        let once: [u64; 4] = std::array::from_fn(|s| held_mask(&pos.hands[s], 1));
        let twice: [u64; 4] = std::array::from_fn(|s| held_mask(&pos.hands[s], 2));
        let units = if pos.trick.plays == 0 { 0 } else { UNKNOWN };
        let mut h = Held { once, twice, left: once[0] | once[1] | once[2] | once[3], cards: [0; 4], tens: [0; 4], fives: [0; 4], widest: [0; 4], units };
        for s in 0..4 {
            h.tally(s, &pos.hands[s]);
            h.widest[s] = widest(&pos.hands[s], h.twice[s], h.cards[s], pos.ctx());
        }
        h
    }

    /// Seat `s`'s cards and point cards, counted over its kinds held.
    fn tally(&mut self, s: usize, hand: &Counts) {
        let (mut cards, mut tens, mut fives) = (0u8, 0u8, 0u8);
        let mut bits = self.once[s];
        while bits != 0 {
            let k = bits.trailing_zeros() as usize;
            bits &= bits - 1;
            cards += hand[k];
            tens += ((TEN_KINDS >> k & 1) as u8) * hand[k];
            fives += ((FIVE_KINDS >> k & 1) as u8) * hand[k];
        }
        (self.cards[s], self.tens[s], self.fives[s]) = (cards, tens, fives);
    }

    /// [`Held::after`] for a play of one card of kind `single`, when not [`NONE`]: only that
    /// kind's bits and the tallies it is in change (the widest combination is made again only
    /// when the kind was held twice or more).
    #[inline(always)]
    fn after_play(&self, seat: u8, next: &Position, ctx: &Context, single: u8, c: &Counts, combo: Option<Combo>) -> Held {
        if single == NONE {
            return self.after(seat, next, ctx, c, combo);
        }
        let mut h = *self;
        let (s, k) = (seat as usize, single as usize);
        let n = next.hands[s][k];
        h.once[s] &= !(((n == 0) as u64) << k);
        h.twice[s] &= !(((n < 2) as u64) << k);
        h.cards[s] -= 1;
        h.tens[s] -= (TEN_KINDS >> k & 1) as u8;
        h.fives[s] -= (FIVE_KINDS >> k & 1) as u8;
        if n >= 1 || self.cards[s] >= 26 {
            h.widest[s] = if h.twice[s] == 0 && h.cards[s] < 26 { 1 } else { widest(&next.hands[s], h.twice[s], h.cards[s], ctx) };
        }
        h.left = h.once[0] | h.once[1] | h.once[2] | h.once[3];
        h.units = units_after(self.units, next, Some((ctx.class[k], 1)));
        h
    }

    /// The masks of `next`, the position after `seat` played the cards `c` from this one's
    /// (a unit's, R3.1, when `combo` is one: its one kind): only the kinds played are read
    /// again.
    fn after(&self, seat: u8, next: &Position, ctx: &Context, c: &Counts, combo: Option<Combo>) -> Held {
        let mut h = *self;
        let s = seat as usize;
        let hand = &next.hands[s];
        let mut bits = match combo {
            Some(u) if u.k == 1 => 1 << u.first,
            _ => held_mask(c, 1),
        };
        debug_assert_eq!(bits, held_mask(c, 1));
        while bits != 0 {
            let k = bits.trailing_zeros() as usize;
            bits &= bits - 1;
            let (n, p) = (hand[k], c[k]);
            h.once[s] &= !(((n == 0) as u64) << k);
            h.twice[s] &= !(((n < 2) as u64) << k);
            h.cards[s] -= p;
            h.tens[s] -= ((TEN_KINDS >> k & 1) as u8) * p;
            h.fives[s] -= ((FIVE_KINDS >> k & 1) as u8) * p;
        }
        let (twice, cards) = (h.twice[s], h.cards[s]);
        h.widest[s] = if twice == 0 && cards < 26 { 1 } else { widest(hand, twice, cards, ctx) };
        h.left = h.once[0] | h.once[1] | h.once[2] | h.once[3];
        h.units = units_after(self.units, next, combo.map(|c| (c.class, c.m)));
        h
    }
}

/// A hand's largest combination's size: a unit of all copies of a kind held, or a run of
/// linked kinds held twice or more (R3), each kind at all its copies; 1 with no kind held
/// twice (a hand of 26 or more cards: all of them, a whole 13-cycle held twice has no bottom).
fn widest(hand: &Counts, twice: u64, cards: u8, ctx: &Context) -> u8 {
    if cards >= 26 {
        return cards;
    }
    let mut widest = 1u8;
    let mut bits = twice;
    while bits != 0 {
        let k = bits.trailing_zeros() as usize;
        bits &= bits - 1;
        let down = ctx.down[k];
        if down != NONE && twice >> down & 1 == 1 {
            continue;
        }
        let (mut at, mut run) = (k, 0u8);
        loop {
            run += hand[at];
            let up = ctx.up[at];
            if up == NONE || up as usize == k || twice >> up & 1 == 0 {
                break;
            }
            at = up as usize;
        }
        widest = widest.max(run);
    }
    widest
}

impl Solver {
    fn new(budget: u64, ctx: &'static Context) -> Solver {
        Solver { table: Table::default(), nodes: 0, budget, plies: Vec::new(), order: Order::of(ctx), last: ExactCache::default(), follows: Follows::default(), shapes: Vec::new(), given_key: None, two_shapes: ExactCache::default(), last_rel: ExactCache::default(), shapes_rel: ExactCache::default(), near: Near::default(), partition: false, buckets: Buckets::default(), class_bufs: Vec::new(), halt: None, rotate: 0, hints: true }
    }

    /// The solver by partition search: its table keeps each entry's exact part beside it.
    fn partitioned(mut self) -> Solver {
        (self.partition, self.table) = (true, Table::with_words());
        self
    }
}

/// The key of a trick-start position up to renaming the kinds left: each plain suit as its
/// remaining kinds in rank order, each with its copies in every hand, its points (R7.1) and
/// whether it is linked to the remaining kind below it (R3.3); the trump class as its
/// remaining kinds in class order, each with its copies, points, its rank in strength among
/// the trumps left (R2.3, ties kept: R2.6), its rank by tractor top (R4.2) among the linked
/// trumps left, the trump left it links up to (R3.3) and whether it is the trump suit's 2 at
/// level 3 (R4.2's exception). Two positions with one key differ only by a renaming of kinds
/// that keeps every comparison, link, point and count, so the rest of the hand is the same
/// game (the tests compare values of equal keys).
/// (The search reads it through [`Solver::key`], which keeps the trumps' shapes.)
#[cfg(test)]
fn trick_start_key(pos: &Position, order: &Order, held: &Held) -> u128 {
    trick_start_key_with_links(pos, order, held, usable_links(order.ctx, held))
}

/// [`trick_start_key`] with the links up it keeps given (the tests' twin keeps them all).
#[cfg(test)]
fn trick_start_key_with_links(pos: &Position, order: &Order, held: &Held, links: u64) -> u128 {
    let trumps = held.left & pos.ctx().class_mask[TRUMP as usize];
    key_with_shape(pos, order, held, links, trump_shape(order.ctx, order, trumps, links & trumps), &TrumpsLeft::of(order, trumps, 0))
}

/// The kinds whose link up (R3.3) a tractor may still use: some hand holds two or more of the
/// kind and of the kind it links up to (R3.2: a tractor's units are of one multiplicity m ≥ 2).
/// Hands only lose cards, so a link outside this mask is never read again in the hand (no
/// tractor can hold it: R4.2's tops, R5.3's T1–T2, R6.1), and the key leaves it out.
fn usable_links(ctx: &Context, held: &Held) -> u64 {
    let mut links = 0u64;
    for twice in held.twice {
        let mut bits = twice;
        while bits != 0 {
            let k = bits.trailing_zeros() as usize;
            bits &= bits - 1;
            let up = ctx.up[k];
            if up != NONE && twice >> up & 1 == 1 {
                links |= 1 << k;
            }
        }
    }
    links
}

/// The kinds touching a usable link ([`usable_links`], `links`): each link's lower kind and
/// the kind it links up to (R3.3).
fn touching(ctx: &Context, links: u64) -> u64 {
    let mut touching = links;
    let mut bits = links;
    while bits != 0 {
        let k = bits.trailing_zeros() as usize;
        bits &= bits - 1;
        touching |= 1 << ctx.up[k];
    }
    touching
}

/// The shape of the trumps left (`trumps`, as bits over kind ids) whose usable links up are
/// `links` ([`usable_links`]), which depends on nothing else: in class order, each one's rank
/// in strength among them (R2.3, ties kept: R2.6); for the trumps a tractor may still hold (a
/// usable link up or down), its rank by tractor top (R4.2) among them, and whether it is the
/// trump suit's 2 at level 3 (R4.2's exception); for a usable link up, the place of the trump
/// it links up to (R3.3); hashed.
fn trump_shape(ctx: &Context, order: &Order, trumps: u64, links: u64) -> u64 {
    let mut a = FxHasher::default();
    a.write_u64(0x7f4a_7c15);
    let (mut strengths, mut tops) = (0u32, 0u32);
    // the trumps a tractor may still hold
    let linked = touching(ctx, links);
    let mut bits = trumps;
    while bits != 0 {
        let k = bits.trailing_zeros() as usize;
        bits &= bits - 1;
        strengths |= 1 << ctx.strength[k];
        if linked >> k & 1 == 1 {
            tops |= 1 << ctx.tractor_rank[k];
        }
    }
    // the trumps left as bits over their places in class order
    let start = ctx.pos[ctx.class_kinds(TRUMP)[0] as usize] as u32;
    let mut places = trump_places(ctx, trumps);
    // R4.2's level-3 exception reads the trump suit's 2 by name
    let special = if ctx.level == 3 { Card::new(ctx.trump, 2).id() } else { KINDS };
    let below = |mask: u32, x: u8| (mask & ((1u32 << x) - 1)).count_ones() as u64;
    let (mut w, mut n) = (0u64, 0);
    while places != 0 {
        let k = ctx.order[(start + places.trailing_zeros()) as usize] as usize;
        places &= places - 1;
        let in_tractor = linked >> k & 1 == 1;
        let top = if in_tractor { 1 + below(tops, ctx.tractor_rank[k]) } else { 0 };
        let up = ctx.up[k];
        let up = if links >> k & 1 == 0 { 0 } else { 1 + (trumps & order.before[up as usize]).count_ones() as u64 };
        let unit = below(strengths, ctx.strength[k]) | top << 5 | up << 10 | ((in_tractor && k == special) as u64) << 15;
        w = w << 16 | unit;
        n += 1;
        if n == 4 {
            a.write_u64(w);
            (w, n) = (0, 0);
        }
    }
    a.write_u64(w);
    a.write_u64(trumps.count_ones() as u64);
    a.finish()
}

/// The trumps `trumps` (bits over kind ids) as bits over their places in class order.
fn trump_places(ctx: &Context, trumps: u64) -> u64 {
    let start = ctx.pos[ctx.class_kinds(TRUMP)[0] as usize] as u32;
    let mut places = 0u64;
    let mut bits = trumps;
    while bits != 0 {
        let k = bits.trailing_zeros() as usize;
        bits &= bits - 1;
        places |= 1 << (ctx.pos[k] as u32 - start);
    }
    places
}

/// The trumps left (`mask`, bits over kind ids, kept as its value + 1: 0 marks an unused
/// slot) with their usable links (`links`): their shape ([`trump_shape`]) and their kinds in
/// class order (what [`key_with_shape`] reads).
#[derive(Clone, Copy, Default)]
struct TrumpsLeft {
    mask: u64,
    links: u64,
    shape: u64,
    n: usize,
    kinds: [u8; 24],
    /// Bit i: `kinds[i]` is of equal strength with `kinds[i - 1]` and both are linked to none
    /// ([`Order::swappable`]): the runs [`key_with_shape`] sorts.
    tied: u32,
}

impl TrumpsLeft {
    /// The trumps `trumps` in class order (their shape `shape`).
    fn of(order: &Order, trumps: u64, shape: u64) -> TrumpsLeft {
        let ctx = order.ctx;
        let start = ctx.pos[ctx.class_kinds(TRUMP)[0] as usize] as u32;
        let mut t = TrumpsLeft { mask: trumps + 1, links: 0, shape, n: 0, kinds: [0; 24], tied: 0 };
        let mut places = trump_places(ctx, trumps);
        while places != 0 {
            let k = ctx.order[(start + places.trailing_zeros()) as usize];
            places &= places - 1;
            let prev = t.kinds[t.n.saturating_sub(1)];
            if t.n > 0 && order.swappable >> k & order.swappable >> prev & 1 == 1 && order.ties[k as usize] >> prev & 1 == 1 {
                t.tied |= 1 << t.n;
            }
            t.kinds[t.n] = k;
            t.n += 1;
        }
        t
    }
}

/// [`trick_start_key`] given the usable links ([`usable_links`]), the shape of the trumps left
/// ([`trump_shape`]) and their kinds in class order (`trumps`): the trumps left in class
/// order, each with its copies in every hand and points; then the plain suits.
fn key_with_shape(pos: &Position, order: &Order, held: &Held, links: u64, shape: u64, trumps: &TrumpsLeft) -> u128 {
    let ctx = order.ctx;
    let mut a = FxHasher::default();
    let mut b = FxHasher::default();
    b.write_u64(0x9e37_79b9_7f4a_7c15);
    let mut put = |w: u64| {
        a.write_u64(w);
        b.write_u64(w.rotate_left(17) ^ 0x5555);
    };
    let h = &pos.hands;
    let counts = |k: usize| (h[0][k] as u64) | (h[1][k] as u64) << 3 | (h[2][k] as u64) << 6 | (h[3][k] as u64) << 9;
    put(pos.to_move as u64);
    put(shape);
    let left = held.left;
    // the trumps' units in class order, each run of kinds of equal strength linked to none (the
    // other suits' L, their 2s: R2.3, R3.3) sorted: any kind of a run renamed to any other is
    // the same game (R2.6: between equal strengths the earlier play wins, whichever kinds)
    let mut units = [0u64; 24];
    for (u, &k) in units.iter_mut().zip(&trumps.kinds[..trumps.n]) {
        *u = counts(k as usize) | POINTS_AT_12[k as usize];
    }
    // a run (at most one kind a suit) sorted by insertion
    let mut tied = trumps.tied;
    while tied != 0 {
        let i = tied.trailing_zeros() as usize;
        tied &= tied - 1;
        let (v, mut j) = (units[i], i);
        while trumps.tied >> j & 1 == 1 && units[j - 1] > v {
            units[j] = units[j - 1];
            j -= 1;
        }
        units[j] = v;
    }
    for four in units[..trumps.n.div_ceil(4) * 4].chunks_exact(4) {
        put(four[0] << 42 | four[1] << 28 | four[2] << 14 | four[3]);
    }
    for class in 0..TRUMP {
        let mut prev = NONE;
        let mut w = 1u64;
        // a plain suit's kinds in rank order are in id order (R2.4: no L, no 2)
        let mut bits = left & ctx.class_mask[class as usize];
        while bits != 0 {
            let k = bits.trailing_zeros() as u8;
            bits &= bits - 1;
            let c = counts(k as usize);
            let linked = prev != NONE && ctx.up[prev as usize] == k && links >> prev & 1 == 1;
            let unit = c | POINTS_AT_12[k as usize] | (linked as u64) << 14;
            if w >> 49 != 0 {
                put(w);
                w = 1;
            }
            w = w << 15 | unit;
            prev = k;
        }
        // a suit's last word marked: a suit of four kinds fills its word as one of eight does
        put(w | 1 << 63);
    }
    ((a.finish() as u128) << 64) | b.finish() as u128
}

/// Each kind's points (R7.1) in fives, at bit 12 (its part of a key's unit).
const POINTS_AT_12: [u64; KINDS] = {
    let mut t = [0u64; KINDS];
    let mut k = 0;
    while k < KINDS {
        t[k] = (KIND_POINTS[k] as u64 / 5) << 12;
        k += 1;
    }
    t
};

/// The kinds worth 10 points (10s and Ks) and 5 (5s), as bits over kind ids (R7.1).
const TEN_KINDS: u64 = kinds_worth(10);
const FIVE_KINDS: u64 = kinds_worth(5);

const fn kinds_worth(p: i32) -> u64 {
    let mut m = 0u64;
    let mut k = 0;
    while k < KINDS {
        if KIND_POINTS[k] == p {
            m |= 1 << k;
        }
        k += 1;
    }
    m
}

/// The bounds a search's fail-soft value `best` found in the window (alpha0, beta0) proves:
/// at or below alpha0 an upper bound, at or above beta0 a lower bound, inside it the value.
fn kept_bounds(best: i32, (alpha0, beta0): (i32, i32)) -> (i32, i32) {
    if best <= alpha0 {
        (i32::MIN / 4, best)
    } else if best >= beta0 {
        (best, i32::MAX / 4)
    } else {
        (best, best)
    }
}

/// Sound bounds of the final score of `pos` (the play phase), cheap enough for every node: the
/// points still in the hands and the trick go to either side, and only the last trick's are
/// counted more than once (R7.3): N times, N its lead's size, at most the cards each hand
/// will hold after the trick in progress and at most the largest combination a hand holds
/// (R3: a unit, or a run of linked kinds held twice or more); then its points are at most
/// those of each hand's N best cards. The points already in a trick that is decided (see
/// [`trick_decided`]) go to its winner's side. Third: whether the trick is decided, where the
/// bounds read it (a trick holding points; None where not asked or not decided).
fn bounds(pos: &Position, order: &Order, held: &Held) -> (i32, i32, Option<bool>) {
    let dp = pos.defender_points;
    let t = pos.trick.points as i32;
    let min_cards = order.ctx.rules.last_trick_min_cards as i32;
    let mine = held.cards[pos.to_move as usize] as i32;
    let lead = if pos.trick.plays == 0 { 0 } else { pos.trick.lead.map_or(1, |c| c.size() as i32) };
    // a single lead's trick no follower left can win (R6.1) goes to the current winner's team
    // (no points in the trick yet: whoever takes it adds nothing to either bound)
    let decided = if t == 0 { None } else { trick_decided(pos, order, held) };
    let (won, lost) = match decided {
        Some(true) => (t, 0),
        Some(false) => (0, t),
        None => (0, 0),
    };
    let (tens, fives) = (held.tens, held.fives);
    // the largest combination a team holds: a side wins a last trick of N ≥ 2 cards only by
    // playing one combination of N cards, as its lead or a follow that beats it (R3.4, R6.1)
    let w = held.widest;
    let wide = [w[0].max(w[2]).max(1) as i32, w[1].max(w[3]).max(1) as i32];
    let (wide_defenders, wide_bankers) = if pos.banker == NOBODY {
        (wide[0].max(wide[1]), wide[0].max(wide[1]))
    } else {
        let bankers = Position::team(pos.banker) as usize;
        (wide[1 - bankers], wide[bankers])
    };
    let held = held_points(held);
    if lead > 0 && mine == lead {
        // the trick in progress is the last: all its points, counted N times if N is enough
        let all = t + held;
        return if lead >= min_cards { (dp - all * lead, dp + all * lead, decided) } else { (dp, dp + all, decided) };
    }
    // after the trick in progress each hand holds `mine - lead` cards; the last trick's N ≤ that
    // and at most the largest combination of the side that wins it; its points are at most
    // those of each hand's N best cards
    let last = |n: i32| best_points(tens, fives, n);
    let (n_lo, n_hi) = ((mine - lead).min(wide_bankers), (mine - lead).min(wide_defenders));
    let last_lo = last(n_lo);
    let last_hi = if n_hi == n_lo { last_lo } else { last(n_hi) };
    // the banker team wins the last trick (R7.3: the defenders lose its points N times)
    let lo = if n_lo >= min_cards { dp + won - last_lo * n_lo } else { dp + won };
    // the defenders win it (its points once more for each card past the first)
    let hi = if n_hi >= min_cards { dp + t - lost + held + last_hi * (n_hi - 1) } else { dp + t - lost + held };
    (lo, hi, decided)
}

/// The points still in the hands (R7.1).
fn held_points(held: &Held) -> i32 {
    10 * byte_sum(u32::from_le_bytes(held.tens)) + 5 * byte_sum(u32::from_le_bytes(held.fives))
}

/// Whether the mover's follows that leave the trick to the other team are best tried with the
/// most points first, and before the killers (for ordering only): when the window asks the
/// mover's side for no more than its points as they stand. Points played to an ordinary trick
/// count once, for the defenders if they win it and not at all otherwise (R7.2); only those
/// kept to the last trick can count N times against the side that loses it (R7.3). So where
/// the defenders (`max`) need only their points so far (`beta` at most one above them, as in
/// MTD(f)'s window (g − 1, g + 1) around them), or the banker team needs only to keep the
/// defenders to every point left counted once (`alpha` at most one below that), the point
/// cards shed now, even to the opponents, are the likely proof; kept, each must be followed
/// to the end. (At BENCH 9 × 1, dp 130 and one 5 left: the defenders' half of a root play's
/// proof fell from 1.9M nodes to 2k.)
fn sheds_points(pos: &Position, held: &Held, max: bool, alpha: i32, beta: i32) -> bool {
    let dp = pos.defender_points;
    if max { beta <= dp + 1 } else { alpha >= dp + held_points(held) + pos.trick.points as i32 - 1 }
}

/// The points of each hand's `n` best cards, summed over the hands: a hand holding `tens[i]`
/// cards worth 10 and `fives[i]` worth 5 (R7.1) gives min(tens, n) tens and then fives. The
/// four hands at once, a byte each (every count below 128; `n` from 0 to 127).
fn best_points(tens: [u8; 4], fives: [u8; 4], n: i32) -> i32 {
    let each = (n as u32).wrapping_mul(0x0101_0101);
    let ten = min_bytes(u32::from_le_bytes(tens), each);
    let five = min_bytes(u32::from_le_bytes(fives), each - ten);
    10 * byte_sum(ten) + 5 * byte_sum(five)
}

/// Byte by byte, the lesser of `a`'s and `b`'s (every byte below 128).
fn min_bytes(a: u32, b: u32) -> u32 {
    const HIGH: u32 = 0x8080_8080;
    // a byte's high bit after the subtraction: its a ≥ its b (no byte borrows from the next)
    let at_least = ((a | HIGH) - b) & HIGH;
    let m = (at_least >> 7) * 0xff;
    (b & m) | (a & !m)
}

/// The sum of `x`'s four bytes (at most 255).
fn byte_sum(x: u32) -> i32 {
    (x.wrapping_mul(0x0101_0101) >> 24) as i32
}

/// Whether the trick in progress, led by a unit of m cards (R3.1), goes to the defenders
/// (Some(true)) or the banker team (Some(false)) whatever is still played to it: no follower
/// left holds m copies of a kind it may play (R5.2–R5.3: of the led class if it holds one,
/// else any) whose unit would beat the best so far (R6.1–R6.2: m cards beat a unit of m only
/// as one unit of m, of the led class or trumps on a plain lead, with a greater key; fewer
/// cards of the led class than m are all played, with others). None when one may, or the lead
/// is a tractor.
fn trick_decided(pos: &Position, order: &Order, held: &Held) -> Option<bool> {
    let lead = pos.lead()?;
    if lead.k != 1 {
        return None;
    }
    let ctx = order.ctx;
    let led = ctx.class_mask[lead.class as usize];
    let trumps = if lead.class == TRUMP { 0 } else { ctx.class_mask[TRUMP as usize] };
    // the kinds whose unit of m would beat the best so far, of the led class and of trumps
    let best = pos.trick.best_key;
    let (beat_led, beat_trump) = (order.beating(lead.class, best), order.beating(TRUMP, best) & trumps);
    for i in 0..4 - pos.trick.plays {
        let f = (pos.to_move + i) as usize % 4;
        let of_led = held.once[f] & led;
        let mut bits = if of_led != 0 { of_led & beat_led } else { held.once[f] & beat_trump };
        if lead.m >= 2 {
            bits &= held.twice[f];
        }
        if lead.m <= 2 && bits != 0 {
            return None;
        }
        while bits != 0 {
            let k = bits.trailing_zeros() as u8;
            bits &= bits - 1;
            if pos.hands[f][k as usize] >= lead.m {
                return None;
            }
        }
    }
    Some(pos.is_defender(pos.trick.best_seat))
}

/// Sound bounds of the final score: every point left goes to either side, counted at most
/// the last trick's multiple (its lead's size is at most the largest hand).
pub fn static_bounds(pos: &Position) -> (i32, i32) {
    if pos.phase == Phase::Over {
        return (pos.final_score, pos.final_score);
    }
    let left: i32 = pos.hands.iter().map(points).sum::<i32>() + pos.trick.points as i32;
    let n = pos.hands.iter().map(|h| h.iter().map(|&c| c as i32).sum::<i32>()).max().unwrap_or(0).max(1);
    let n = n.max(pos.trick.lead.map_or(1, |c| c.size() as i32));
    (pos.defender_points - left * n, pos.defender_points + left * n)
}

/// The legal plays at `pos`, equivalent single leads merged (see the module's notes).
pub fn plays(pos: &Position) -> Option<Vec<Counts>> {
    plays_in(pos, &Order::of(pos.ctx()))
}

/// [`plays`] with the solve's strength orders.
fn plays_in(pos: &Position, order: &Order) -> Option<Vec<Counts>> {
    let mut out = legal(pos)?;
    if pos.trick.plays == 0 {
        let rep = single_representatives(pos, order);
        out.retain(|c| {
            let mut it = c.iter().enumerate().filter(|(_, &n)| n > 0);
            match (it.next(), it.next()) {
                (Some((k, &1)), None) => rep[k] == k as u8,
                _ => true,
            }
        });
    }
    Some(out)
}

/// Every legal play at `pos`, in the engine's order; None past [`NODE_PLAYS`].
fn legal(pos: &Position) -> Option<Vec<Counts>> {
    let mut set = ActionSet::of(pos);
    let all = set.all(NODE_PLAYS)?;
    Some(
        all.into_iter()
            .map(|a| match a {
                Action::Play(c) => c,
                _ => unreachable!("the play phase has only plays"),
            })
            .collect(),
    )
}

/// The plays searched below the root, into `out` (false past [`NODE_PLAYS`]): every legal
/// play but those that only swap interchangeable cards for others of their group (see
/// [`interchangeable`]): of each group a play keeps its strongest cards. Leads in the order
/// of `combo::for_each_lead`, a single's follows by kind (the engine's sets, listed directly).
fn search_plays(pos: &Position, order: &Order, held: &Held, follows: &mut Follows, ply: &mut Ply) -> bool {
    let Ply { moves: out, singles, combos, follow_key, follow_moves, follow_combos, prev: KindMap(prev), next: KindMap(next), members: kept_out, .. } = ply;
    *kept_out = 0;
    out.clear();
    singles.clear();
    combos.clear();
    let ctx = order.ctx;
    let hand = &pos.hands[pos.to_move as usize];
    // groups form only among two or more lone cards the mover may play
    let mut candidates = u64::MAX;
    let me = pos.to_move as usize;
    let others = held.once[(me + 1) % 4] | held.once[(me + 2) % 4] | held.once[(me + 3) % 4];
    match pos.lead() {
        None => for_each_lead(ctx, hand, |c| {
            let cards = c.counts(ctx);
            // the whole 13-cycle (R3.3) is classified from its lowest trump by name
            combos.push(Known::of(&cards, if c.k < 13 { Some(c) } else { classify(ctx, &cards) }));
            out.push(cards);
            singles.push(if c.size() == 1 { c.first } else { NONE });
        }),
        Some(lead) if lead.size() == 1 => {
            // R5.2–R5.3 with N = 1: a card of the led class if the hand holds one, else any
            let mine = held.once[pos.to_move as usize];
            let of_led = mine & ctx.class_mask[lead.class as usize];
            let mut bits = if of_led != 0 { of_led } else { mine };
            candidates = bits;
            // one card each: named by its kind alone (`out` left empty, see [`Ply::moves`])
            while bits != 0 {
                let k = bits.trailing_zeros() as usize;
                bits &= bits - 1;
                singles.push(k as u8);
            }
        }
        Some(lead) => {
            let key = FollowKey { hand: words(hand), lead };
            if *follow_key == Some(key) {
                #[cfg(test)]
                assert_eq!(Some(&*follow_moves), legal(pos).as_ref(), "the follows kept are the legal ones");
                out.extend_from_slice(follow_moves);
                combos.extend_from_slice(follow_combos);
            } else {
                if let Some((v, c)) = follows.get(&key) {
                    #[cfg(test)]
                    assert_eq!(Some(v), legal(pos).as_ref(), "the follows kept are the legal ones");
                    out.extend_from_slice(v);
                    combos.extend_from_slice(c);
                } else {
                    let Some(v) = legal(pos) else { return false };
                    out.extend_from_slice(&v);
                    combos.extend(v.iter().map(|c| Known::of(c, follow_combo(ctx, lead.class, c))));
                    if follows.len() >= FOLLOWS_KEPT {
                        follows.clear();
                    }
                    follows.insert(key, (v, combos.clone()));
                }
                *follow_key = Some(key);
                follow_moves.clear();
                follow_moves.extend_from_slice(out);
                follow_combos.clear();
                follow_combos.extend_from_slice(combos);
            }
            singles.resize(out.len(), NONE);
        }
    }
    // groups of interchangeable lone cards (see [`interchangeable`]), then swap groups among
    // the other kinds the mover may play (see [`swaps`]): the two read different kinds, so of
    // the plays equal to one another by either, the one both keep stays
    let lone = held.once[me] & !held.twice[me] & !others;
    let two_lone = (lone & candidates).count_ones() >= 2;
    let may_swap = (held.once[me] & candidates & order.swappable).count_ones() >= 2;
    if !two_lone && !may_swap {
        return true;
    }
    if out.is_empty() && !may_swap {
        // one card each: a group's weaker kind leaves the list
        let members = groups(pos, order, held, candidates, |a, b| prev[b as usize] = a);
        *kept_out = members;
        if members != 0 {
            singles.retain(|&k| members >> k & 1 == 0);
        }
        return true;
    }
    let members = if two_lone { groups(pos, order, held, candidates, |a, b| prev[b as usize] = a) } else { 0 };
    *kept_out = members;
    let mut grouped = members;
    let mut m = members;
    while m != 0 {
        let k = m.trailing_zeros() as usize;
        m &= m - 1;
        grouped |= 1 << prev[k];
    }
    let swapped = swaps(pos, order, held.once[me] & candidates & !grouped, next);
    if members == 0 && swapped == 0 {
        return true;
    }
    // a play keeps a group's weaker card only with the next stronger one, and its cards of a
    // swap group in non-increasing counts in kind order
    let keep = |c: &Counts| {
        let mut m = members;
        while m != 0 {
            let k = m.trailing_zeros() as usize;
            m &= m - 1;
            if c[k] > 0 && c[prev[k] as usize] == 0 {
                return false;
            }
        }
        let mut m = swapped;
        while m != 0 {
            let k = m.trailing_zeros() as usize;
            m &= m - 1;
            if c[k] < c[next[k] as usize] {
                return false;
            }
        }
        true
    };
    if out.is_empty() {
        // one card each, named by its kind: a group's member leaves the list, and a swap
        // group's kind after its first (what `keep` tells of one card)
        let mut dropped = members;
        let mut m = swapped;
        while m != 0 {
            let k = m.trailing_zeros() as usize;
            m &= m - 1;
            dropped |= 1 << next[k];
        }
        #[cfg(test)]
        let want: Vec<u8> = singles.iter().copied().filter(|&k| keep(&one_card(k))).collect();
        singles.retain(|&k| dropped >> k & 1 == 0);
        #[cfg(test)]
        assert_eq!(*singles, want, "one card left out as keep leaves it");
        return true;
    }
    let mut n = 0;
    for i in 0..out.len() {
        if keep(&out[i]) {
            out[n] = out[i];
            singles[n] = singles[i];
            combos[n] = combos[i];
            n += 1;
        }
    }
    out.truncate(n);
    singles.truncate(n);
    combos.truncate(n);
    true
}

/// Swap groups among `mine` (kinds the mover holds): kinds of equal strength in one class,
/// linked to none (R2.3, R3.3: the other suits' L, their 2s), with equal points (R7.1) and the
/// same copies in every hand. Renaming one of a group to another leaves the position as it is
/// (R2.6: between equal strengths the earlier play wins, whichever kinds they are), so a play
/// and the play with its cards of the group permuted have one value. For each kind with a
/// next member of its group (in kind order), that member, into `next` (no other kind written);
/// and those kinds, as bits.
fn swaps(pos: &Position, order: &Order, mine: u64, next: &mut [u8; KINDS]) -> u64 {
    let mut swapped = 0u64;
    let cand = mine & order.swappable;
    if cand.count_ones() < 2 {
        return swapped;
    }
    let h = &pos.hands;
    let counts = |k: usize| (h[0][k] as u32) | (h[1][k] as u32) << 8 | (h[2][k] as u32) << 16 | (h[3][k] as u32) << 24;
    let mut bits = cand;
    while bits != 0 {
        let a = bits.trailing_zeros() as usize;
        bits &= bits - 1;
        // the next kind above a of a's tie with a's copies
        let mut rest = bits & order.ties[a];
        while rest != 0 {
            let b = rest.trailing_zeros() as usize;
            rest &= rest - 1;
            if counts(a) == counts(b) && KIND_POINTS[a] == KIND_POINTS[b] {
                next[a] = b as u8;
                swapped |= 1 << a;
                break;
            }
        }
    }
    swapped
}

/// What a play changes in a position besides the mover's hand: kept to take it back.
#[derive(Clone, Copy)]
struct Undo {
    trick: Trick,
    to_move: u8,
    tricks_done: u8,
    defender_points: i32,
    final_score: i32,
    phase: Phase,
    last_lead_size: u8,
}

impl Undo {
    fn of(p: &Position) -> Undo {
        Undo { trick: p.trick, to_move: p.to_move, tricks_done: p.tricks_done, defender_points: p.defender_points, final_score: p.final_score, phase: p.phase, last_lead_size: p.last_lead_size }
    }

    /// Takes back `seat`'s play of `c` (one card of kind `single` when not [`NONE`]).
    #[inline(always)]
    fn back(self, p: &mut Position, seat: u8, c: &Counts, single: u8) {
        let hand = &mut p.hands[seat as usize];
        if single != NONE {
            hand[single as usize] += 1;
        } else {
            for (h, n) in hand.iter_mut().zip(c) {
                *h += n;
            }
        }
        p.trick = self.trick;
        p.to_move = self.to_move;
        p.tricks_done = self.tricks_done;
        p.defender_points = self.defender_points;
        p.final_score = self.final_score;
        p.phase = self.phase;
        p.last_lead_size = self.last_lead_size;
    }
}

/// `pos` after the mover plays `c`, whose kind is `single` when it is one card (else
/// [`NONE`]): [`Position::play_unchecked`], for one card without classifying it.
#[cfg(test)]
fn child(pos: &Position, ctx: &Context, c: &Counts, single: u8) -> Position {
    let mut q = *pos;
    play(&mut q, ctx, c, single);
    q
}

/// `child` (its tests' form) in place.
#[inline(always)]
fn play(q: &mut Position, ctx: &Context, c: &Counts, single: u8) {
    #[cfg(test)]
    let want = {
        let mut w = *q;
        w.play_unchecked(&if single == NONE { *c } else { one_card(single) });
        w
    };
    if single == NONE {
        q.play_unchecked(c);
    } else {
        play_single(q, ctx, single);
    }
    #[cfg(test)]
    assert_eq!(*q, want, "one card played as play_unchecked plays it");
}

/// [`play`] of a play whose combination is known (`combo`: a lead's, a follow's where it may
/// win, [`follow_combo`]; read only for a play of several cards): the cards are not
/// classified again. The trick's best changes only to a combination that beats it (R6.1).
#[inline(always)]
fn play_known(q: &mut Position, ctx: &Context, c: &Counts, single: u8, known: Known) {
    if single != NONE {
        return play(q, ctx, c, single);
    }
    #[cfg(test)]
    let want = {
        let mut w = *q;
        w.play_unchecked(c);
        w
    };
    for (h, n) in q.hands[q.to_move as usize].iter_mut().zip(c) {
        *h -= n;
    }
    to_trick(q, known.combo, known.points);
    #[cfg(test)]
    assert_eq!(*q, want, "a known combination played as play_unchecked plays it");
}

/// The mover's play, already taken from its hand, added to the trick: its combination where
/// it may win (a lead's, R3; a follow's, [`follow_combo`]) and its points (R7.1); it takes the
/// trick when it beats the best so far (R6.1–R6.2), and the fourth play ends the trick.
#[inline(always)]
fn to_trick(q: &mut Position, combo: Option<Combo>, points: u16) {
    let seat = q.to_move;
    let t = &mut q.trick;
    t.points += points;
    if t.plays == 0 {
        t.lead = combo;
        t.leader = seat;
        t.best_key = combo.map_or(0, |u| u.key());
        t.best_seat = seat;
    } else if let (Some(lead), Some(u)) = (t.lead, combo) {
        if beats(&lead, &u, t.best_key) {
            t.best_key = u.key();
            t.best_seat = seat;
        }
    }
    t.plays += 1;
    q.to_move = (seat + 1) % 4;
    if t.plays == 4 {
        q.finish_trick();
    }
}

/// The mover plays one card of kind `k`: [`Position::play_unchecked`] without classifying it
/// (one card is a unit of one, R3.1; it takes the trick when it beats the best so far, R6.1).
#[inline(always)]
fn play_single(q: &mut Position, ctx: &Context, k: u8) {
    q.hands[q.to_move as usize][k as usize] -= 1;
    to_trick(q, Some(unit(ctx, k, 1)), KIND_POINTS[k as usize] as u16);
}

/// The leads [`Solver::three`] searches at `pos`, a trick start with three cards a hand, into
/// `ply`'s moves and singles: every unit of the leader's (R3.1: a single, a pair, a triple
/// of one kind; a tractor or a bomb needs four cards or more, R3.2), in kind order, less the
/// single leads that stand behind an interchangeable stronger one (as [`interchangeable`]: a
/// lone card, the next stronger kind left in its class lone too, with equal points, R7.1,
/// neither tied with a kind left outside the group, R2.3).
fn three_leads(pos: &Position, order: &Order, held: &Held, ply: &mut Ply) {
    let ctx = order.ctx;
    let me = pos.to_move as usize;
    let hand = &pos.hands[me];
    let others = held.once[(me + 1) % 4] | held.once[(me + 2) % 4] | held.once[(me + 3) % 4];
    let lone = held.once[me] & !held.twice[me] & !others;
    let left = held.left;
    let tied = |k: usize| order.ties[k] & left & !lone != 0;
    ply.moves.clear();
    ply.singles.clear();
    ply.combos.clear();
    ply.members = 0;
    let mut bits = held.once[me];
    while bits != 0 {
        let k = bits.trailing_zeros() as usize;
        bits &= bits - 1;
        // the next stronger kind left in k's class: a plain suit's kinds strongest first are
        // in falling id order (R2.4); the trumps left by their places in strength order
        let a = if order.trumps >> k & 1 == 0 {
            let above = left & ctx.class_mask[ctx.class[k] as usize] & (u64::MAX << k << 1);
            (above != 0).then(|| above.trailing_zeros() as usize)
        } else {
            let before = order.trump_places(left) & ((1u64 << order.place[k]) - 1);
            (before != 0).then(|| order.kinds[TRUMP as usize][63 - before.leading_zeros() as usize] as usize)
        };
        let merged = a.is_some_and(|a| lone >> k & 1 == 1 && lone >> a & 1 == 1 && !tied(a) && !tied(k) && KIND_POINTS[a] == KIND_POINTS[k]);
        if let (true, Some(a)) = (merged, a) {
            ply.prev.0[k] = a as u8;
            ply.members |= 1 << k;
        }
        for m in 1..=hand[k] {
            if m == 1 && merged {
                continue;
            }
            let mut c = [0u8; KINDS];
            c[k] = m;
            ply.moves.push(c);
            ply.singles.push(if m == 1 { k as u8 } else { NONE });
            ply.combos.push(Known::of(&c, Some(unit(ctx, k as u8, m))));
        }
    }
    #[cfg(test)]
    {
        // every lead listed is legal, and every legal lead left out is a lone plain single
        let all = legal(pos).expect("the leads");
        assert!(ply.moves.iter().all(|c| all.contains(c)), "{pos:?}");
        for c in all.iter().filter(|c| !ply.moves.contains(c)) {
            let k = c.iter().position(|&n| n > 0).expect("a card");
            assert!(size(c) == 1 && lone >> k & 1 == 1 && single_representatives(pos, order)[k] as usize != k, "{pos:?}");
        }
    }
}

/// The shape of a last-two-tricks position led by `leader` whose hands hold the kinds
/// `once` at least once and `twice` twice (two cards a hand), which its value depends on
/// alone: each hand's two cards, as their places among the distinct (class, strength) of the
/// eight cards (R2.3, ties kept: R2.6) and their points (R7.1), the lower first, and whether
/// they are one kind (a pair, R3.1); which places start a class, and whether the first is the
/// trump class (R2.5: a card beats only one of its class, or a trump a plain card, R6.1).
fn two_shape(ctx: &Context, leader: u8, once: &[u64; 4], twice: &[u64; 4]) -> u64 {
    let (kinds, values) = two_values(ctx, once);
    // each card's value with its index below, sorted
    let mut sorted: [u32; 8] = std::array::from_fn(|i| (values[i] as u32) << 3 | i as u32);
    sorted.sort_unstable();
    // each card's place among the distinct values, and the places that start a class
    let mut place = [0u64; 8];
    let (mut rank, mut starts) = (0u64, 0u64);
    let first = sorted[0] >> 3;
    let mut prev = first;
    for &x in &sorted {
        let v = x >> 3;
        if v != prev {
            rank += 1;
            starts |= ((v >> 8 != prev >> 8) as u64) << rank;
            prev = v;
        }
        place[(x & 7) as usize] = rank;
    }
    let mut key = (leader as u64) << 1 | (first >> 8 == 0) as u64;
    key = key << 8 | starts;
    for s in 0..4 {
        let code = |i: usize| place[i] << 2 | (KIND_POINTS[kinds[i]] / 5) as u64;
        let (a, b) = (code(2 * s), code(2 * s + 1));
        key = key << 11 | a.min(b) << 6 | a.max(b) << 1 | (twice[s] != 0) as u64;
    }
    #[cfg(test)]
    assert_eq!(key, two_shape_by_search(ctx, leader, once, twice), "the places by rank are the places found");
    key
}

/// The last two tricks' eight cards (each hand's two, the lower kind id first) and each card's
/// value, its class named in the order the classes first appear (the trump class 0) above its
/// strength (R2.3): what [`two_shape`] and its twin rank.
fn two_values(ctx: &Context, once: &[u64; 4]) -> ([usize; 8], [u16; 8]) {
    let kinds: [usize; 8] = std::array::from_fn(|i| {
        let m = once[i / 2];
        if i % 2 == 0 { m.trailing_zeros() as usize } else { 63 - m.leading_zeros() as usize }
    });
    let mut names = [0u8; 5];
    let mut next = 1u8;
    let mut values = [0u16; 8];
    for (i, &k) in kinds.iter().enumerate() {
        let c = ctx.class[k] as usize;
        if c != TRUMP as usize && names[c] == 0 {
            names[c] = next;
            next += 1;
        }
        values[i] = (names[c] as u16) << 8 | ctx.strength[k] as u16;
    }
    (kinds, values)
}

/// Each of the last two tricks' eight cards' place among their distinct values (as
/// [`two_shape`] ranks them: class named in order of appearance, then strength).
#[cfg_attr(not(test), allow(dead_code))]
fn two_places(values: &[u16; 8]) -> [u8; 8] {
    let mut sorted = *values;
    sorted.sort_unstable();
    std::array::from_fn(|i| {
        let mut place = 0u8;
        for j in 1..8 {
            if sorted[j] <= values[i] && sorted[j] != sorted[j - 1] {
                place += 1;
            }
        }
        place
    })
}

/// A last-two position's relevance (each strength one of its eight cards', T1) as 4 bits a
/// class name of [`two_values`] (5 names): the place + 1 of the relevant card, 0 for none. Two
/// positions of one [`two_shape`] are one game up to a renaming that keeps names and places,
/// so the relevance read back through the other's cards ([`rel_from_places`]) is its own.
#[cfg_attr(not(test), allow(dead_code))]
fn rel_to_places(ctx: &Context, rel: &Rel, kinds: &[usize; 8], values: &[u16; 8], places: &[u8; 8]) -> u64 {
    let mut code = 0u64;
    for i in 0..8 {
        let (name, strength) = (values[i] >> 8, (values[i] & 0xff) as u8);
        if rel[ctx.class[kinds[i]] as usize] == strength {
            code |= (places[i] as u64 + 1) << (4 * name);
        }
    }
    #[cfg(test)]
    if REL_UNSOUND.with(|u| u.get()) == 0 {
        assert_eq!(rel_from_places(ctx, code, kinds, values, places), *rel, "a relevant strength is a card's");
    }
    code
}

/// [`rel_to_places`] read back through a position's cards.
#[cfg_attr(not(test), allow(dead_code))]
fn rel_from_places(ctx: &Context, code: u64, kinds: &[usize; 8], values: &[u16; 8], places: &[u8; 8]) -> Rel {
    let mut rel = [NOTHING; 5];
    #[cfg(test)]
    if REL_UNSOUND.with(|u| u.get()) == 3 {
        return rel; // the twin's own check: the shape's relevance dropped must be caught
    }
    for i in 0..8 {
        let name = values[i] >> 8;
        if code >> (4 * name) & 15 == places[i] as u64 + 1 {
            rel[ctx.class[kinds[i]] as usize] = (values[i] & 0xff) as u8;
        }
    }
    rel
}

/// A relevance in 25 bits (5 a class), and back.
#[cfg_attr(not(test), allow(dead_code))]
fn rel_bits(rel: &Rel) -> u64 {
    rel.iter().enumerate().fold(0, |w, (c, &r)| w | (r as u64) << (5 * c))
}

#[cfg_attr(not(test), allow(dead_code))]
fn rel_of_bits(w: u64) -> Rel {
    std::array::from_fn(|c| (w >> (5 * c) & 31) as u8)
}

/// [`two_shape`] with each card's place found by a search of the distinct values (its twin in
/// the tests).
#[cfg(test)]
fn two_shape_by_search(ctx: &Context, leader: u8, once: &[u64; 4], twice: &[u64; 4]) -> u64 {
    let (kinds, values) = two_values(ctx, once);
    let mut sorted = values;
    sorted.sort_unstable();
    let mut distinct = [0u16; 8];
    let mut n = 0;
    for &v in &sorted {
        if n == 0 || distinct[n - 1] != v {
            distinct[n] = v;
            n += 1;
        }
    }
    let place = |v: u16| distinct[..n].iter().position(|&d| d == v).expect("listed") as u64;
    let mut starts = 0u64;
    for j in 1..n {
        starts |= ((distinct[j] >> 8 != distinct[j - 1] >> 8) as u64) << j;
    }
    let mut key = (leader as u64) << 1 | (distinct[0] >> 8 == 0) as u64;
    key = key << 8 | starts;
    for s in 0..4 {
        let code = |i: usize| place(values[i]) << 2 | (KIND_POINTS[kinds[i]] / 5) as u64;
        let (a, b) = (code(2 * s), code(2 * s + 1));
        key = key << 11 | a.min(b) << 6 | a.max(b) << 1 | (twice[s] != 0) as u64;
    }
    key
}

/// A single's trick led at three cards a hand, as [`Solver::follow`] plays it out: the led
/// class (R2.5) and the kinds played so far, in play order.
#[derive(Clone, Copy)]
struct Trick3 {
    class: u8,
    path: [u8; 4],
}

#[cfg(test)]
impl Trick3 {
    /// `pos` after the trick's four cards.
    fn played(&self, pos: &Position, ctx: &Context) -> Position {
        let mut q = *pos;
        for &k in &self.path {
            play(&mut q, ctx, &{
                let mut c = [0u8; KINDS];
                c[k as usize] = 1;
                c
            }, k);
        }
        q
    }
}

/// The final score when the rest of the hand is forced: the last trick, each hand holding
/// just the cards it must play (R5.2: N cards of N held; a last single lead); with its
/// relevance: T1 of each trick it ends ([`trick_ends`], the trick's plays so far counted in
/// `held.units`).
fn forced_end<R: Relevance>(pos: &Position, held: &Held, ctx: &Context) -> Option<(i32, R)> {
    let mine = held.cards[pos.to_move as usize] as usize;
    let forced = match pos.lead() {
        None => mine == 1,
        Some(lead) => mine == lead.size(),
    };
    if !forced {
        return None;
    }
    let (mut q, mut rel, mut units) = (*pos, R::none(), held.units);
    if mine == 1 {
        // one card a hand: each seat still to play plays its kind (its one card, R5.2)
        while q.phase == Phase::Play {
            let k = held.once[q.to_move as usize].trailing_zeros() as u8;
            if R::ON {
                if q.trick.plays == 3 {
                    if let Some((class, strength)) = trick_ends(&q, ctx, units, k, Known::default()) {
                        rel.trick(class, strength);
                    }
                }
                play(&mut q, ctx, &NO_CARDS, k);
                units = units_after(units, &q, Some((ctx.class[k as usize], 1)));
            } else {
                play(&mut q, ctx, &NO_CARDS, k);
            }
        }
        return Some((q.final_score, rel));
    }
    while q.phase == Phase::Play {
        let c = q.hands[q.to_move as usize];
        if R::ON {
            let combo = classify(ctx, &c);
            if q.trick.plays == 3 {
                if let Some((class, strength)) = trick_ends(&q, ctx, units, NONE, Known { combo, ..Known::default() }) {
                    rel.trick(class, strength);
                }
            }
            q.play_unchecked(&c);
            units = units_after(units, &q, combo.map(|u| (u.class, u.m)));
        } else {
            q.play_unchecked(&c);
        }
    }
    Some((q.final_score, rel))
}

/// The final score of `pos`, a trick start with two cards a hand, if inside (alpha, beta);
/// else a bound on the side it fails (alpha-beta, fail-soft), without making positions. The
/// leader leads a single or, holding one kind twice, its pair (R3.1), which makes the trick
/// the last, every hand played whole; on a single lead a follower plays a card of the led
/// class if it holds one, else either (R5.2 with N = 1); the greatest key wins, ties to the
/// earlier play (R6.1–R6.2, as `combo::beats`); the winner leads the last trick, whose cards
/// are forced; the last trick counts N times for the side that wins it when N cards are
/// enough for the profile's rule, else once for the defenders if they win it (R7.2–R7.3).
/// The same score as [`Position::play_unchecked`]'s (twin: `last_two_agrees_with_minimax`).
/// (The search reads it through [`last_two_of`], from masks.)
#[cfg(test)]
fn last_two(pos: &Position, held: &Held, alpha: i32, beta: i32) -> i32 {
    last_two_of(pos, pos.to_move, pos.defender_points, &held.once, &held.twice, alpha, beta)
}

/// [`last_two`] of the position with the deal's trump, level, profile and banker of `pos`,
/// whose `leader` leads, the defenders having `base` points so far, and each hand's kinds
/// held at least once and at least twice `once` and `twice` (two cards a hand).
fn last_two_of(pos: &Position, leader: u8, base: i32, once: &[u64; 4], twice: &[u64; 4], alpha: i32, beta: i32) -> i32 {
    last_two_game::<()>(pos, leader, base, once, twice, alpha, beta).0
}

/// [`last_two_of`] and the relevance of its result (PARTITION.md: T1 for each trick, C1 at a
/// cutoff): every position that matches it on that relevance has a value on the same side
/// of the window, equal inside it (twin: `last_two_relevance_holds_for_every_match`).
#[cfg_attr(not(test), allow(dead_code))]
pub(crate) fn last_two_rel(pos: &Position, leader: u8, base: i32, once: &[u64; 4], twice: &[u64; 4], alpha: i32, beta: i32) -> (i32, Rel) {
    last_two_game::<Rel>(pos, leader, base, once, twice, alpha, beta)
}

/// [`last_two_of`], with its relevance when `R` is [`Rel`] (with `()` nothing more is computed:
/// the same code as before relevance).
fn last_two_game<R: Relevance>(pos: &Position, leader: u8, base: i32, once: &[u64; 4], twice: &[u64; 4], alpha: i32, beta: i32) -> (i32, R) {
    /// A single card: its key (R4.1), class (R2.5), whether it is a trump, its points (R7.1).
    #[derive(Clone, Copy)]
    struct Card1 {
        key: u32,
        class: u8,
        trump: bool,
        points: i32,
    }
    impl Card1 {
        /// Whether this card, played to a single trick led by `lead` whose best key is
        /// `best`, wins it so far (R6.1–R6.2, as `combo::beats`).
        fn beats(&self, lead: &Card1, best: u32) -> bool {
            (self.class == lead.class || (self.trump && !lead.trump)) && self.key > best
        }
    }
    /// A child's value `v` taken at a node of the defenders (`max`) or of the banker team:
    /// the node's value so far and its window moved; whether the window closed (a cut).
    /// With the relevance: the child's joins the node's, and at a cut the node's is the
    /// cutting child's alone (C1: the bound returned is that child's value).
    fn take<R: Relevance>(max: bool, (v, r): (i32, R), out: &mut (i32, R), alpha: &mut i32, beta: &mut i32) -> bool {
        if max {
            out.0 = out.0.max(v);
            *alpha = (*alpha).max(v);
        } else {
            out.0 = out.0.min(v);
            *beta = (*beta).min(v);
        }
        let cut = alpha >= beta;
        if R::ON {
            if cut {
                out.1 = r;
            } else {
                out.1.join(&r);
            }
        }
        cut
    }
    /// T1 (PARTITION.md) for a trick won by `w`: its strength (R2.3, a unit's top: R4.2) is
    /// relevant when another play of the trick was one combination of its class and
    /// multiplicity (`contested`: only then did R4.1 compare them).
    fn trick<R: Relevance>(rel: &mut R, w: &Card1, contested: impl FnOnce() -> bool) {
        if R::ON && contested() {
            rel.trick(w.class, (w.key & 0xff) as u8);
        }
    }
    struct Game2 {
        cards: [[Card1; 2]; 4],
        pairs: [Option<Card1>; 4],
        defender: [bool; 4],
        leader: usize,
        multiplied: bool,
        multiplied2: bool,
        base: i32,
    }
    impl Game2 {
        /// The first trick's play of the `i`-th seat in play order on, with the cards played
        /// so far (`played[s]`: which of seat s's two), if inside (alpha, beta); else a bound
        /// on the side it fails (alpha-beta, fail-soft).
        #[allow(clippy::too_many_arguments)]
        fn play<R: Relevance>(&self, i: usize, played: &mut [usize; 4], lead: Card1, best: (u32, usize), p: i32, mut alpha: i32, mut beta: i32) -> (i32, R) {
            if i == 4 {
                let mut out = self.last::<R>(played, best.1, p);
                // the first trick: contested by another card of its winner's class (singles)
                let w = self.cards[best.1][played[best.1]];
                trick(&mut out.1, &w, || (0..4).any(|s| s != best.1 && self.cards[s][played[s]].class == w.class));
                return out;
            }
            let seat = (self.leader + i) % 4;
            let max = self.defender[seat];
            let mut out = (if max { i32::MIN } else { i32::MAX }, R::none());
            let c = &self.cards[seat];
            if i == 0 {
                if let Some(pair) = self.pairs[seat] {
                    // the pair led: the last trick, every hand played whole
                    if take(max, self.pair_trick::<R>(pair), &mut out, &mut alpha, &mut beta) {
                        return out;
                    }
                }
            }
            // a pair's two cards are one play
            let n = if self.pairs[seat].is_some() { 1 } else { 2 };
            for j in 0..n {
                let u = c[j];
                let (lead, best) = if i == 0 {
                    (u, (u.key, seat))
                } else {
                    // R5.2: a card of the led class while the hand holds one
                    if u.class != lead.class && c[1 - j].class == lead.class {
                        continue;
                    }
                    (lead, if u.beats(&lead, best.0) { (u.key, seat) } else { best })
                };
                played[seat] = j;
                let v = self.play::<R>(i + 1, played, lead, best, p + u.points, alpha, beta);
                if take(max, v, &mut out, &mut alpha, &mut beta) {
                    break;
                }
            }
            out
        }

        /// The score of a pair led by the leader as the last trick: each follower plays its
        /// two cards, which win only as a pair of the led class or, on a plain lead, of
        /// trumps with a greater key (R5.2, R6.1–R6.2); the trick counts N = 2 times when
        /// two cards are enough for the last trick's rule, else once for the defenders (R7.3).
        fn pair_trick<R: Relevance>(&self, lead: Card1) -> (i32, R) {
            let (mut best, mut seat, mut q) = (lead.key, self.leader, 0);
            let mut w = lead;
            for i in 0..4 {
                let s = (self.leader + i) % 4;
                q += self.cards[s][0].points + self.cards[s][1].points;
                if i > 0 {
                    if let Some(u) = self.pairs[s] {
                        if u.beats(&lead, best) {
                            (best, seat, w) = (u.key, s, u);
                        }
                    }
                }
            }
            let mut rel = R::none();
            // contested by another pair of the winner's class (the lead or a follower's two
            // cards of one kind; two kinds are not one combination, R3.1)
            let pair_of = |s: usize| if s == self.leader { Some(lead) } else { self.pairs[s] };
            trick(&mut rel, &w, || (0..4).any(|s| s != seat && pair_of(s).is_some_and(|u| u.class == w.class)));
            let v = self.base
                + match (self.defender[seat], self.multiplied2) {
                    (true, true) => 2 * q,
                    (false, true) => -2 * q,
                    (true, false) => q,
                    (false, false) => 0,
                };
            (v, rel)
        }

        /// The score once the first trick, won by `winner` with `p` points, is done.
        fn last<R: Relevance>(&self, played: &[usize; 4], winner: usize, p: i32) -> (i32, R) {
            let first = self.base + if self.defender[winner] { p } else { 0 };
            let card = |s: usize| self.cards[s][1 - played[s]];
            let lead = card(winner);
            let (mut best, mut seat, mut q) = (lead.key, winner, lead.points);
            for i in 1..4 {
                let s = (winner + i) % 4;
                let u = card(s);
                if u.beats(&lead, best) {
                    (best, seat) = (u.key, s);
                }
                q += u.points;
            }
            let mut rel = R::none();
            let w = card(seat);
            trick(&mut rel, &w, || (0..4).any(|s| s != seat && card(s).class == w.class));
            let v = first
                + match (self.defender[seat], self.multiplied) {
                    (true, _) => q,
                    (false, true) => -q,
                    (false, false) => 0,
                };
            (v, rel)
        }
    }
    let ctx = pos.ctx();
    let card = |k: u8| {
        let u = unit(ctx, k, 1);
        Card1 { key: u.key(), class: u.class, trump: u.is_trump(), points: KIND_POINTS[k as usize] }
    };
    let cards = std::array::from_fn(|s| {
        let m = once[s];
        [card(m.trailing_zeros() as u8), card(63 - m.leading_zeros() as u8)]
    });
    // each hand's pair, if its two cards are one kind (R3.1): its unit of two
    let pairs = std::array::from_fn(|s| {
        let m = twice[s];
        (m != 0).then(|| {
            let u = unit(ctx, m.trailing_zeros() as u8, 2);
            Card1 { key: u.key(), class: u.class, trump: u.is_trump(), points: 2 * KIND_POINTS[m.trailing_zeros() as usize] }
        })
    });
    let g = Game2 {
        cards,
        pairs,
        defender: std::array::from_fn(|s| pos.is_defender(s as u8)),
        leader: leader as usize,
        multiplied: 1 >= ctx.rules.last_trick_min_cards as i32,
        multiplied2: 2 >= ctx.rules.last_trick_min_cards as i32,
        base,
    };
    let none = Card1 { key: 0, class: 0, trump: false, points: 0 };
    g.play::<R>(0, &mut [0; 4], none, (0, 0), 0, alpha, beta)
}

/// For each kind the mover may lead as an interchangeable single, the kind that stands for
/// its group; every other kind maps to itself.
fn single_representatives(pos: &Position, order: &Order) -> [u8; KINDS] {
    let (prev, _) = interchangeable(pos, order, &Held::of(pos), u64::MAX);
    std::array::from_fn(|k| {
        let mut r = k;
        while prev[r] != NONE {
            r = prev[r] as usize;
        }
        r as u8
    })
}

/// Each suit class's kinds strongest first (R2.3; ties by id, a fixed order), and each kind's
/// others of equal strength in its class: what [`interchangeable`] reads, made once a solve.
pub(crate) struct Order {
    /// The solve's context (read here rather than looked up from each position).
    ctx: &'static Context,
    kinds: [[u8; KINDS]; 5],
    ties: [u64; KINDS],
    /// For each trump, the trumps before it in class order (the trick-start key's places).
    before: [u64; KINDS],
    /// For each class and strength, the class's kinds of greater strength (R2.3).
    above: [[u64; 32]; 5],
    /// The trump class's kinds, as bits.
    trumps: u64,
    /// The kinds tied in strength with another of their class and linked to none (R2.3, R3.3:
    /// the other suits' L and 2s): any of a tie renamed to any other is the same game.
    swappable: u64,
    /// Each kind's place in its class's `kinds`.
    place: [u8; KINDS],
    /// The trumps among eight kind ids as bits over their places in the trump class's `kinds`,
    /// by byte of a mask over kind ids (the places of any set of trumps in seven reads).
    trump_places: Box<[[u64; 256]; 7]>,
}

impl Order {
    /// The kinds of `class` whose unit beats a unit of the same size with key `best` (R4.1:
    /// trumps over plain cards, then strength, R2.3), when played to a lead of that class or,
    /// for trumps, to a plain lead.
    #[inline]
    fn beating(&self, class: u8, best: u32) -> u64 {
        let best_trump = (best >> 8) & 1 == 1;
        match (class == TRUMP, best_trump) {
            (true, false) => self.trumps,
            (false, true) => 0,
            _ => self.above[class as usize][(best & 0xff).min(31) as usize],
        }
    }

    pub(crate) fn of(ctx: &'static Context) -> Order {
        let mut o = Order {
            ctx,
            kinds: [[0; KINDS]; 5],
            ties: [0; KINDS],
            before: [0; KINDS],
            above: [[0; 32]; 5],
            trumps: ctx.class_mask[TRUMP as usize],
            swappable: 0,
            place: [0; KINDS],
            trump_places: Box::new([[0; 256]; 7]),
        };
        let mut seen = 0u64;
        for &k in ctx.class_kinds(TRUMP) {
            o.before[k as usize] = seen;
            seen |= 1 << k;
        }
        for class in 0..5usize {
            let mut kinds: Vec<u8> = ctx.class_kinds(class as u8).to_vec();
            kinds.sort_unstable_by_key(|&k| (std::cmp::Reverse(ctx.strength[k as usize]), k));
            o.kinds[class][..kinds.len()].copy_from_slice(&kinds);
            for (i, &k) in kinds.iter().enumerate() {
                o.place[k as usize] = i as u8;
            }
            for (s, above) in o.above[class].iter_mut().enumerate() {
                for &k in &kinds {
                    if ctx.strength[k as usize] as usize > s {
                        *above |= 1 << k;
                    }
                }
            }
            for &a in &kinds {
                for &b in &kinds {
                    if a != b && ctx.strength[a as usize] == ctx.strength[b as usize] {
                        o.ties[a as usize] |= 1 << b;
                    }
                }
            }
        }
        for k in 0..KINDS {
            if o.ties[k] != 0 && ctx.up[k] == NONE && ctx.down[k] == NONE {
                o.swappable |= 1 << k;
            }
        }
        for (byte, table) in o.trump_places.iter_mut().enumerate() {
            // a byte's places: those of the byte less its lowest bit, and that bit's kind's
            for bits in 1..256usize {
                let k = 8 * byte + bits.trailing_zeros() as usize;
                let own = if k < KINDS && o.trumps >> k & 1 == 1 { 1 << o.place[k] } else { 0 };
                table[bits] = table[bits & (bits - 1)] | own;
            }
        }
        o
    }

    /// The trumps among `kinds` (bits over kind ids) as bits over their places in strength
    /// order (strongest first).
    #[inline]
    fn trump_places(&self, kinds: u64) -> u64 {
        let mut places = 0u64;
        for (byte, table) in self.trump_places.iter().enumerate() {
            places |= table[(kinds >> (8 * byte)) as usize & 0xff];
        }
        places
    }
}

/// Groups of interchangeable kinds of the mover's hand: single cards of one class that nobody
/// else holds a copy of, with equal points (R7.1), no other card left between them in strength
/// nor tied with one of them (R2.3), and, when a single leads the trick in progress, the
/// trick's best card not between them either (R6.1). Playing one of a group or another leaves
/// the same game up to renaming them: such a card is never part of a pair or tractor (R3),
/// and compares alike with every card left. For each kind, the next stronger kind of its
/// group, or [`NONE`]; and the kinds that have one, as bits. Only kinds in `candidates` (the
/// kinds the mover may play) are grouped; one outside them counts as not lone.
fn interchangeable(pos: &Position, order: &Order, held: &Held, candidates: u64) -> ([u8; KINDS], u64) {
    let mut prev = [NONE; KINDS];
    let members = groups(pos, order, held, candidates, |a, b| prev[b as usize] = a);
    (prev, members)
}

/// [`interchangeable`]'s groups, each kind `b` that stands behind the next stronger `a` of its
/// group given to `found(a, b)`; the kinds that have one, as bits.
fn groups(pos: &Position, order: &Order, held: &Held, candidates: u64, mut found: impl FnMut(u8, u8)) -> u64 {
    let ctx = order.ctx;
    let mut members = 0u64;
    let me = pos.to_move as usize;
    let left = held.left;
    let others = (0..4).filter(|&s| s != me).fold(0u64, |m, s| m | held.once[s]);
    let lone_mask = held.once[me] & !held.twice[me] & !others & candidates;
    if lone_mask.count_ones() < 2 {
        return members;
    }
    let lone = |k: u8| lone_mask >> k & 1 == 1;
    // the trick's best single, a card that compares as one left (R6.1)
    let best = match pos.lead() {
        Some(lead) if lead.size() == 1 => {
            let class = if (pos.trick.best_key >> 8) & 1 == 1 { TRUMP } else { lead.class };
            Some((class, (pos.trick.best_key & 0xff) as u8))
        }
        _ => None,
    };
    let strength = |k: u8| ctx.strength[k as usize];
    // a kind tied in strength with one left outside the group compares differently from it
    let tied = |k: u8| order.ties[k as usize] & left & !lone_mask != 0;
    for class in 0..5usize {
        if (ctx.class_mask[class] & lone_mask).count_ones() < 2 {
            continue;
        }
        let split = |hi: u8, lo: u8| best.is_some_and(|(c, s)| c as usize == class && strength(lo) <= s && s <= strength(hi));
        // b stands behind a, the next stronger kind left in its class
        let mut join = |a: u8, b: u8| {
            if lone(a) && lone(b) && !tied(a) && !tied(b) && KIND_POINTS[a as usize] == KIND_POINTS[b as usize] && !split(a, b) {
                found(a, b);
                members |= 1 << b;
            }
        };
        if class == TRUMP as usize {
            // the trumps left by their places in strength order (strongest first): each lone
            // trump's next stronger trump left is the one at the nearest place before its own
            let places = order.trump_places(left);
            let mut lone_places = order.trump_places(lone_mask);
            while lone_places != 0 {
                let p = lone_places.trailing_zeros();
                lone_places &= lone_places - 1;
                let before = places & ((1u64 << p) - 1);
                if before != 0 {
                    join(order.kinds[class][63 - before.leading_zeros() as usize], order.kinds[class][p as usize]);
                }
            }
        } else {
            // a plain suit's kinds strongest first are in falling id order (R2.4): each lone
            // kind's next stronger kind left is the lowest left above it
            let class_left = left & ctx.class_mask[class];
            let mut bits = lone_mask & ctx.class_mask[class];
            while bits != 0 {
                let b = bits.trailing_zeros() as u8;
                bits &= bits - 1;
                let above = class_left & (u64::MAX << b << 1);
                if above != 0 {
                    join(above.trailing_zeros() as u8, b);
                }
            }
        }
    }
    members
}

/// [`interchangeable`] written directly, kind by kind (its twin in the tests): single cards of one class that nobody
/// else holds a copy of, with equal points (R7.1), no other card left between them in strength
/// nor tied with one of them (R2.3), and, when a single leads the trick in progress, the
/// trick's best card not between them either (R6.1). Playing one of a group or another leaves
/// the same game up to renaming them: such a card is never part of a pair or tractor (R3),
/// and compares alike with every card left. For each kind, the next stronger kind of its
/// group, or [`NONE`].
#[cfg(test)]
fn interchangeable_plain(pos: &Position) -> [u8; KINDS] {
    let ctx = pos.ctx();
    let mut prev = [NONE; KINDS];
    let mine = &pos.hands[pos.to_move as usize];
    let left = pos.hands.iter().fold(0u64, |m, h| m | held_mask(h, 1));
    let others = (0..4).filter(|&s| s != pos.to_move as usize).fold(0u64, |m, s| m | held_mask(&pos.hands[s], 1));
    let lone_mask = held_mask(mine, 1) & !held_mask(mine, 2) & !others;
    if lone_mask.count_ones() < 2 {
        return prev;
    }
    let lone = |k: usize| lone_mask >> k & 1 == 1;
    // the trick's best single, a card that compares as one left (R6.1)
    let best = match pos.lead() {
        Some(lead) if lead.size() == 1 => {
            let class = if (pos.trick.best_key >> 8) & 1 == 1 { TRUMP } else { lead.class };
            Some((class, (pos.trick.best_key & 0xff) as u8))
        }
        _ => None,
    };
    for class in 0..5u8 {
        // the kinds left in this class, strongest first (ties by id: a fixed order)
        let mut kinds = [0u8; KINDS];
        let mut n = 0;
        if ctx.class_mask[class as usize] & lone_mask == 0 {
            continue;
        }
        for &k in ctx.class_kinds(class) {
            if left >> k & 1 == 1 {
                kinds[n] = k;
                n += 1;
            }
        }
        let kinds = &mut kinds[..n];
        kinds.sort_unstable_by_key(|&k| (std::cmp::Reverse(ctx.strength[k as usize]), k));
        let strength = |k: u8| ctx.strength[k as usize];
        // a kind tied in strength with one outside the group compares differently from it
        let tied = |i: usize| kinds.iter().any(|&y| y != kinds[i] && strength(y) == strength(kinds[i]) && !lone(y as usize));
        let split = |hi: u8, lo: u8| best.is_some_and(|(c, s)| c == class && strength(lo) <= s && s <= strength(hi));
        for i in 1..n {
            let (a, b) = (kinds[i - 1], kinds[i]);
            if lone(a as usize) && lone(b as usize) && !tied(i - 1) && !tied(i) && KIND_POINTS[a as usize] == KIND_POINTS[b as usize] && !split(a, b) {
                prev[b as usize] = a;
            }
        }
    }
    prev
}

/// A play's place in a node's search order as one integer, smallest first: by falling
/// `score`, then by its index `i` (the order of the pairs `(Reverse(score), i)`).
fn ranked(score: i32, i: u16) -> u64 {
    // the sign bit flipped orders i32s as u32s; all bits flipped, by falling score
    (!(score as u32 ^ 0x8000_0000) as u64) << 16 | i as u64
}

/// How good a play looks for the mover's team, for ordering only: leaving the team winning
/// the trick, with its points (and a lead's size), first where a single's trick stays the
/// team's whatever the next seat (an opponent) plays; otherwise giving away as few points as
/// possible. The twin of [`quick_order_score`], which the search reads.
#[cfg(test)]
fn order_score(pos: &Position, next: &Position, cards: &Counts) -> i32 {
    let team = pos.to_move % 2;
    let p = points(cards);
    if next.trick.plays == 0 {
        // the trick ended: did the team win it?
        let won = next.to_move % 2 == team;
        return if won { 2000 + next.defender_points - pos.defender_points + p } else { -p };
    }
    let winning = next.trick.best_seat % 2 == team;
    let size = size(cards) as i32; // equal for every follow of a node
    if winning {
        1000 + SURE * next_cannot_beat(next) as i32 + p + size
    } else {
        -p
    }
}

/// What `order_score` adds for a trick the next seat cannot take (measured: searched first,
/// fewer nodes).
const SURE: i32 = 500;

/// Whether `next`, a single's trick in progress after a follow, has a mover (an opponent of
/// the seat that just played) with no legal card that beats the best so far (R5.2 with
/// N = 1: of the led class if it holds one, else any; R6.1 as `combo::beats`); false for a
/// lead of several cards or a trick's first card. `order_score`'s plain form, card by card.
#[cfg(test)]
fn next_cannot_beat(next: &Position) -> bool {
    let t = &next.trick;
    let Some(lead) = t.lead.filter(|l| l.size() == 1 && t.plays >= 2) else { return false };
    let ctx = next.ctx();
    let hand = &next.hands[next.to_move as usize];
    let has_led = (0..KINDS).any(|k| hand[k] > 0 && ctx.class[k] == lead.class);
    !(0..KINDS).any(|k| hand[k] > 0 && (!has_led || ctx.class[k] == lead.class) && beats(&lead, &unit(ctx, k as u8, 1), t.best_key))
}

/// Whether seat `opp`, holding the kinds `once` (bits over kind ids), has a legal single that
/// beats the best key `best` of a single's trick led in `class` (R5.2 with N = 1, R6.1):
/// `next_cannot_beat` (the tests' twin) from masks.
fn may_beat(order: &Order, once: u64, class: u8, best: u32) -> bool {
    let of_led = once & order.ctx.class_mask[class as usize];
    // void in the led class: a trump beats a plain best (and a trump best only by a greater
    // trump), never a trump lead
    let beating = if of_led != 0 { of_led & order.beating(class, best) } else { once & order.beating(TRUMP, best) };
    beating != 0
}

/// `order_score` (the tests' twin) of a play without making the child: a lead leaves the mover
/// winning the trick; a follow wins it when its combination (one card of kind `single`, else
/// `combo`, [`follow_combo`]) beats the best so far (R6.1), and the fourth ends the trick (not
/// the hand's last: that one is forced), its points going to the defenders if they win it
/// (R7.2).
#[inline(always)]
fn quick_order_score(pos: &Position, order: &Order, held: &Held, cards: &Counts, single: u8, known: Known) -> i32 {
    let ctx = order.ctx;
    let got = if pos.trick.plays == 0 {
        1000 + points(cards) + size(cards) as i32
    } else {
        let team = pos.to_move % 2;
        let lead = pos.trick.lead.expect("a trick in progress has its lead");
        // one card of kind `single`, or the cards `cards` whose combination where they may win
        // is `combo` ([`follow_combo`])
        let (p, u) = if single != NONE { (KIND_POINTS[single as usize], Some(unit(ctx, single, 1))) } else { (known.points as i32, known.combo) };
        let beats = u.is_some_and(|u| beats(&lead, &u, pos.trick.best_key));
        let winner = if beats { pos.to_move } else { pos.trick.best_seat };
        if pos.trick.plays < 3 && single == NONE {
            // several cards: no sure trick read; the play's size is the lead's (R5.1)
            if winner % 2 == team { 1000 + p + lead.size() as i32 } else { -p }
        } else if pos.trick.plays < 3 {
            let k = single;
            let u = unit(ctx, k, 1);
            if winner % 2 == team {
                // the trick's next seat is an opponent: a trick it cannot take first
                let best = if beats { u.key() } else { pos.trick.best_key };
                let opp = (pos.to_move as usize + 1) % 4;
                1000 + SURE * !may_beat(order, held.once[opp], lead.class, best) as i32 + p + 1
            } else {
                -p
            }
        } else if winner % 2 == team {
            debug_assert!(held.cards[pos.to_move as usize] > 1, "the last trick is forced");
            let gain = if pos.is_defender(winner) { pos.trick.points as i32 + p } else { 0 };
            2000 + gain + p
        } else {
            -p
        }
    };
    #[cfg(test)]
    {
        let cards = if single == NONE { *cards } else { one_card(single) };
        assert_eq!(got, order_score(pos, &child(pos, ctx, &cards, single), &cards), "{pos:?}");
    }
    got
}

/// A lead's order score: [`quick_order_score`] × 64 + [`lead_strength`] of its lowest kind,
/// a unit's (R3.1: m cards of one kind, m times its points, R7.1) read from its combination
/// `combo` without reading the cards.
fn lead_score(order: &Order, pos: &Position, held: &Held, c: &Counts, single: u8, known: Known) -> i32 {
    let ctx = order.ctx;
    let got = match known.combo {
        Some(u) if u.k == 1 => (1000 + u.m as i32 * (KIND_POINTS[u.first as usize] + 1)) * 64 + lead_strength(ctx, u.first),
        _ => {
            let k = if single != NONE { single } else { first_kind(c) };
            quick_order_score(pos, order, held, c, single, Known::default()) * 64 + lead_strength(ctx, k)
        }
    };
    #[cfg(test)]
    {
        let k = if single != NONE { single } else { first_kind(c) };
        assert_eq!(got, quick_order_score(pos, order, held, c, single, Known::default()) * 64 + lead_strength(ctx, k), "{pos:?}");
    }
    got
}

/// A lead's place among leads of one [`quick_order_score`], for ordering only (measured: the
/// stronger first cut sooner): its kind `k`'s strength (R2.3, R2.4), trumps above plain cards;
/// below 64.
fn lead_strength(ctx: &Context, k: u8) -> i32 {
    ctx.strength[k as usize] as i32 + 32 * (ctx.class[k as usize] == TRUMP) as i32
}

/// The lowest kind id of a play's cards.
fn first_kind(c: &Counts) -> u8 {
    let kinds = held_mask(c, 1);
    assert!(kinds != 0, "a play has cards");
    kinds.trailing_zeros() as u8
}

/// What partition search's probe of a trick start's entries found ([`Solver::probe`]).
enum Probe {
    /// An entry's bounds answer the window: the value and its relevance.
    Answer(i32, Rel),
    /// (alpha, beta) as the entries narrowed it, what that leaned on, the best play kept.
    Narrow(i32, i32, Rel, u16),
}

/// T1 (PARTITION.md) of the trick that the mover of `pos` (its last card) ends by playing one
/// card of kind `single` (when not [`NONE`]) or a play of combination `known`, the trick's
/// plays so far counted in `units` ([`Held::units`]): the class and strength of the play that
/// wins it (R6.1–R6.2) when another play of the trick was one combination of its class and
/// multiplicity (only then did R4.1 compare their strengths), else None. A tractor's top
/// stands for its kinds, which are linked, so exact anyway (L1).
fn trick_ends(pos: &Position, ctx: &Context, units: u64, single: u8, known: Known) -> Option<(u8, u8)> {
    let lead = pos.trick.lead?;
    let combo = if single != NONE { Some(unit(ctx, single, 1)) } else { known.combo };
    let best = pos.trick.best_key;
    let (class, m, strength) = match combo {
        Some(c) if beats(&lead, &c, best) => (c.class, c.m, c.top),
        _ => (if best >> 8 & 1 == 1 { TRUMP } else { lead.class }, (best >> 16) as u8, best as u8),
    };
    // the plays of the winner's class and multiplicity, the winner among them
    let like = if units == UNKNOWN { 2 } else { (units >> unit_slot(class, m) & 7) + combo.is_some_and(|c| c.class == class && c.m == m) as u64 };
    (like >= 2).then_some((class, strength))
}

/// G1 (PARTITION.md): where a node searched one play for a group of interchangeable kinds
/// (`ply.members`, each standing behind `ply.prev`, the next stronger of its group), no cut of
/// the relevance `rel` falls inside the group: it moves below the group's weakest member.
fn groups_kept_whole<R: Relevance>(rel: R, ctx: &Context, ply: &Ply) -> R {
    if !R::ON || ply.members == 0 {
        return rel;
    }
    let (mut r, prev) = (rel.get(), &ply.prev.0);
    let mut moved = true;
    while moved {
        moved = false;
        let mut m = ply.members;
        while m != 0 {
            let b = m.trailing_zeros() as usize;
            m &= m - 1;
            let (a, r) = (prev[b] as usize, &mut r[ctx.class[b] as usize]);
            if ctx.strength[a] >= *r && ctx.strength[b] < *r {
                *r = ctx.strength[b];
                moved = true;
            }
        }
    }
    R::of(r)
}

impl Solver {
    /// The value after the mover plays one card of kind `k` as the last card of the
    /// third-last trick, if the last two tricks that leaves are kept ([`ExactCache`]): the
    /// trick goes to the card that beats the best so far, else to the best (R6.1), its points
    /// to the defenders if they win it (R7.2), and the winner leads the last two. With the
    /// relevance the last two were kept with (partition search: [`Solver::last_rel`]; the
    /// trick's own T1 is the caller's).
    fn last_two_child<R: Relevance>(&self, pos: &Position, held: &Held, k: u8) -> Option<(i32, R)> {
        if k == NONE {
            return None;
        }
        let me = pos.to_move as usize;
        let lead = pos.trick.lead?;
        let beat = beats(&lead, &unit(self.order.ctx, k, 1), pos.trick.best_key);
        let winner = if beat { pos.to_move } else { pos.trick.best_seat };
        let mut once = held.once;
        if pos.hands[me][k as usize] == 1 {
            once[me] &= !(1 << k);
        }
        let key = exact_cache::key(winner, &once);
        let (v, rel) = if R::ON {
            let w = self.last_rel.get_word(key)?;
            (w as i32, R::of(rel_of_bits((w as u64) >> 32)))
        } else {
            (self.last.get(key)?, R::none())
        };
        let won = if pos.is_defender(winner) { pos.trick.points as i32 + KIND_POINTS[k as usize] } else { 0 };
        let got = pos.defender_points + won + v;
        #[cfg(test)]
        {
            let mut c = [0u8; KINDS];
            c[k as usize] = 1;
            let q = child(pos, self.order.ctx, &c, k);
            assert_eq!((q.to_move, q.trick.plays, got), (winner, 0, last_two(&q, &Held::of(&q), i32::MIN / 2, i32::MAX / 2)));
        }
        Some((got, rel))
    }

    /// The buffer of [`Classes`] of the node at `depth`, taken out while it searches (put back
    /// into [`Solver::class_bufs`] by the node; lost on a budget's stop).
    fn classes_at(&mut self, depth: usize) -> Box<Classes> {
        if self.class_bufs.len() <= depth {
            self.class_bufs.resize_with(depth + 1, || None);
        }
        self.class_bufs[depth].take().unwrap_or_else(|| Box::new(Classes::new()))
    }

    /// `c` made the kinds left per class, strongest first, and what partition search's entries
    /// read of them at the trick start `pos` ([`Classes`]): a plain suit's kinds strongest first
    /// are in falling id order (R2.4), the trumps by their places in strength order.
    fn fill_classes(&self, c: &mut Classes, pos: &Position, held: &Held) {
        let (ctx, order) = (self.order.ctx, &self.order);
        c.n = [0; 5];
        for class in 0..4 {
            let mut bits = held.left & ctx.class_mask[class];
            while bits != 0 {
                let k = 63 - bits.leading_zeros();
                bits &= !(1u64 << k);
                c.push(class, k as u8);
            }
        }
        let mut places = order.trump_places(held.left);
        while places != 0 {
            let p = places.trailing_zeros() as usize;
            places &= places - 1;
            c.push(TRUMP as usize, order.kinds[TRUMP as usize][p]);
        }
        let links = usable_links(ctx, held);
        c.finish(pos, ctx, links, touching(ctx, links));
    }

    /// Partition search's probe of the entries of bucket `b` that fit the trick start `pos`
    /// (its kinds `classes`) in the window (alpha, beta): the value and what it leaned on when
    /// an entry answers (the first that does moves to the front of its bucket), else the
    /// window the entries narrowed, what the narrowing leaned on (N1) and the first entry's
    /// best play (only an order).
    fn probe(&mut self, pos: &Position, classes: &Classes, b: u64, mut alpha: i32, mut beta: i32) -> Probe {
        let ctx = self.order.ctx;
        let dp = pos.defender_points;
        let mut first = u16::MAX;
        let Some(mut parts) = self.buckets.get(b) else { return Probe::Narrow(alpha, beta, [NOTHING; 5], first) };
        let (mut lo_best, mut hi_best) = ((i32::MIN, [NOTHING; 5]), (i32::MAX, [NOTHING; 5]));
        for i in 0..parts.n as usize {
            let j = parts.js[i];
            if !classes.fits(ctx, &j) {
                continue;
            }
            let Some(e) = self.table.get(partition::key(pos, classes, &j)) else { continue };
            if first == u16::MAX {
                first = e.best;
            }
            let (lo, hi, rel) = (dp + e.lo, dp + e.hi, classes.rel_of(ctx, &j));
            if lo > lo_best.0 {
                lo_best = (lo, rel);
            }
            if hi < hi_best.0 {
                hi_best = (hi, rel);
            }
            if lo >= beta || hi <= alpha || lo == hi {
                if i > 0 {
                    parts.front(j);
                    self.buckets.put(b, parts);
                }
                break;
            }
        }
        if lo_best.0 >= beta {
            return Probe::Answer(lo_best.0, lo_best.1);
        }
        if hi_best.0 <= alpha {
            return Probe::Answer(hi_best.0, hi_best.1);
        }
        let mut rel = [NOTHING; 5];
        if lo_best.0 == hi_best.0 {
            union(&mut rel, &lo_best.1);
            union(&mut rel, &hi_best.1);
            return Probe::Answer(lo_best.0, rel);
        }
        // an entry that narrows the window: a value inside the narrowed window leans on it
        if lo_best.0 > alpha {
            alpha = lo_best.0;
            union(&mut rel, &lo_best.1);
        }
        if hi_best.0 < beta {
            beta = hi_best.0;
            union(&mut rel, &hi_best.1);
        }
        Probe::Narrow(alpha, beta, rel, first)
    }

    /// The relevance of an enhanced transposition cutoff at `pos` (a trick's last card) by its
    /// `i`-th child's entry, kept with the word `w` (C1: the cutting child's, with T1 of the
    /// trick its play ends).
    fn cut_rel<R: Relevance>(&self, pos: &Position, held: &Held, ply: &Ply, i: usize, w: u32) -> R {
        if !R::ON {
            return R::none();
        }
        let mut rel = self.word_rel(w, ply.helds[i].left);
        if let Some((class, strength)) = trick_ends(pos, self.order.ctx, held.units, ply.singles[i], ply.combo(i)) {
            rel_trick(&mut rel, class, strength);
        }
        R::of(rel)
    }

    /// Keeps the value `best` of the trick start `pos` found in `window` ([`Solver::keep`]):
    /// under its key `k` (the entry before `old`, with its word); in partition search with
    /// what it leaned on (`rel`, merged with the old entry's where their bounds merge) beside
    /// it, and where that leaves kinds small, also as a partition entry under the exact part
    /// that covers it (its kinds `part`, put back into [`Solver::class_bufs`]), which its
    /// bucket lists first.
    #[allow(clippy::too_many_arguments)]
    fn keep_both(&mut self, pos: &Position, held: &Held, k: Option<u128>, (old, word): (Option<Entry>, u32), part: Option<(Box<Classes>, u64)>, depth: usize, rel: &Rel, best: i32, window: (i32, i32), best_i: u16, nodes0: u64) {
        let base = pos.defender_points;
        let Some((classes, b)) = part else {
            self.keep(k, old, best, window, base, best_i, nodes0, 0);
            return;
        };
        let ctx = self.order.ctx;
        self.keep_rel(held, k, (old, word), rel, best, window, base, best_i, nodes0);
        let j = classes.exact_part(ctx, rel);
        if j != classes.n {
            let pk = partition::key(pos, &classes, &j);
            let old = self.table.get(pk);
            self.keep(Some(pk), old, best, window, base, best_i, nodes0, 0);
            self.buckets.front(b, j);
        }
        self.class_bufs[depth] = Some(classes);
    }

    /// [`Solver::keep`] in partition search: the value `best` under the whole key `k` with
    /// what it leaned on, `rel`, as its word, joined by the old entry's (with its `word`)
    /// where their bounds merge.
    #[allow(clippy::too_many_arguments)]
    fn keep_rel(&mut self, held: &Held, k: Option<u128>, (old, word): (Option<Entry>, u32), rel: &Rel, best: i32, window: (i32, i32), base: i32, best_i: u16, nodes0: u64) {
        let mut both = *rel;
        // the old entry's relevance where its bounds are kept: where they are bounds (not the
        // table's none) tighter than the new ones
        if let Some(o) = old {
            let (lo, hi) = kept_bounds(best, window);
            if (o.lo != NO_LOWER && o.lo > lo.saturating_sub(base)) || (o.hi != NO_UPPER && o.hi < hi.saturating_sub(base)) {
                union(&mut both, &self.word_rel(word, held.left));
            }
        }
        let w = self.rel_word(&both, held.left);
        self.keep(k, old, best, window, base, best_i, nodes0, w);
    }

    /// `rel` as a word kept beside an entry: per class (5 bits each) how many of the kinds
    /// left (`left`) are at or above its strength (R2.3–R2.4); bit 31 set (0 is none kept).
    fn rel_word(&self, rel: &Rel, left: u64) -> u32 {
        let (ctx, order) = (self.order.ctx, &self.order);
        let mut w = 1 << 31;
        for (c, &r) in rel.iter().enumerate() {
            let at = if r == 0 { ctx.class_mask[c] } else { order.above[c][(r - 1).min(31) as usize] };
            w |= (left & at).count_ones() << (5 * c);
        }
        w
    }

    /// The relevance a word of [`Solver::rel_word`] stands for where the kinds left are
    /// `left`: per class the strength of its `j`-th strongest kind left (an entry is found
    /// at the position it was kept for, up to a renaming that keeps the order of strengths);
    /// every kind where none was kept.
    fn word_rel(&self, w: u32, left: u64) -> Rel {
        if w == 0 {
            return ALL;
        }
        let (ctx, order) = (self.order.ctx, &self.order);
        std::array::from_fn(|c| {
            let j = w >> (5 * c) & 31;
            if j == 0 {
                return NOTHING;
            }
            // (fewer kinds left than the word counts cannot be, the key being equal; were it so,
            // every kind of the class would count)
            let k = if c == TRUMP as usize {
                // the trumps by their places in strength order, strongest first
                let mut places = order.trump_places(left);
                for _ in 1..j {
                    places &= places.wrapping_sub(1);
                }
                if places == 0 {
                    return 0;
                }
                order.kinds[TRUMP as usize][places.trailing_zeros() as usize]
            } else {
                // a plain suit's kinds strongest first are in falling id order (R2.4)
                let mut bits = left & ctx.class_mask[c];
                for _ in 1..j {
                    bits &= !(1u64 << (63 - bits.leading_zeros().min(63)));
                }
                if bits == 0 {
                    return 0;
                }
                63 - bits.leading_zeros() as u8
            };
            ctx.strength[k as usize]
        })
    }

    /// Puts back the buffers of the node at `depth`, taken out while it searched (no drop of
    /// the empty slot).
    #[inline(always)]
    fn give_back(&mut self, depth: usize, ply: Box<Ply>) {
        let slot = self.plies[depth].replace(ply);
        debug_assert!(slot.is_none(), "one node a depth at a time");
        std::mem::forget(slot);
    }

    /// [`trick_start_key`] of `pos`, the trumps' shape kept by their mask.
    fn key(&mut self, pos: &Position, held: &Held) -> u128 {
        let ctx = self.order.ctx;
        let trumps = held.left & ctx.class_mask[TRUMP as usize];
        if self.shapes.is_empty() {
            self.shapes = vec![TrumpsLeft::default(); 1024];
        }
        let links = usable_links(ctx, held);
        let trump_links = links & trumps;
        let at = ((trumps ^ trump_links.rotate_left(29)).wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 54) as usize;
        let slot = &mut self.shapes[at];
        if slot.mask != trumps + 1 || slot.links != trump_links {
            *slot = TrumpsLeft { links: trump_links, ..TrumpsLeft::of(&self.order, trumps, trump_shape(ctx, &self.order, trumps, trump_links)) };
        }
        let slot = &self.shapes[at];
        let k = key_with_shape(pos, &self.order, held, links, slot.shape, slot);
        #[cfg(test)]
        assert_eq!(k, trick_start_key(pos, &self.order, held), "the shape kept is the shape");
        k
    }

    /// The final score of `pos` if inside (alpha, beta); else a bound on the side it fails.
    /// `depth`: plays from the search's root, the index of this node's buffers. With
    /// [`Solver::partition`], by partition search (its relevance read by nothing here).
    fn search(&mut self, pos: &Position, alpha: i32, beta: i32, depth: usize) -> Result<i32, Budget> {
        if self.partition {
            Ok(self.node::<Rel>(&mut pos.clone(), &Held::of(pos), alpha, beta, depth)?.0)
        } else {
            Ok(self.node::<()>(&mut pos.clone(), &Held::of(pos), alpha, beta, depth)?.0)
        }
    }

    /// [`Solver::node`] of the position after `pos`'s mover plays `c` (one card of kind
    /// `single` when not [`NONE`]: then `c` is not read), the play made in `pos` and taken
    /// back after (no copy of the position).
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn node_after<R: Relevance>(&mut self, pos: &mut Position, held: &Held, (c, single, known): (&Counts, u8, Known), alpha: i32, beta: i32, depth: usize) -> Result<(i32, R), Budget> {
        #[cfg(test)]
        let before = *pos;
        let (seat, undo) = (pos.to_move, Undo::of(pos));
        play_known(pos, self.order.ctx, c, single, known);
        let h = held.after_play(seat, pos, self.order.ctx, single, c, known.combo);
        let v = self.node::<R>(pos, &h, alpha, beta, depth);
        undo.back(pos, seat, c, single);
        #[cfg(test)]
        assert!(v.is_err() || *pos == before, "a play taken back leaves the position as it was");
        v
    }

    /// [`Solver::search`] with `pos`'s held masks, and the relevance of the value (`R`: `()`
    /// for the search with the table of whole trick starts, [`Rel`] for partition search,
    /// PARTITION.md: every exit returns what its value read).
    fn node<R: Relevance>(&mut self, pos: &mut Position, held: &Held, mut alpha: i32, mut beta: i32, depth: usize) -> Result<(i32, R), Budget> {
        let given = self.given_key.take();
        if pos.phase == Phase::Over {
            return Ok((pos.final_score, R::none()));
        }
        self.nodes += 1;
        if self.nodes > self.budget && !self.go_on() {
            return Err(Budget);
        }
        if let Some(x) = forced_end::<R>(pos, held, self.order.ctx) {
            return Ok(x);
        }
        #[cfg(test)]
        assert_eq!(*held, Held { units: held.units, ..Held::of(pos) }, "the masks passed down");
        if pos.trick.plays == 0 && held.cards[pos.to_move as usize] == 2 {
            // the last two tricks: solved directly, cheaper than a probe of the table, and their
            // exact values kept by their cards (about five calls in six find theirs)
            if R::ON {
                let (v, rel) = self.two_rel(pos, pos.to_move, pos.defender_points, &held.once, &held.twice);
                return Ok((v, R::of(rel)));
            }
            return Ok((self.two(pos, pos.to_move, pos.defender_points, &held.once, || held.twice), R::none()));
        }
        let base = pos.defender_points;
        // the table at trick starts only: a probe is a cache miss, dearer than the nodes the
        // table saves mid-trick (HISTORY.md §29); partition search's entries by their bucket
        let k = (pos.trick.plays == 0).then(|| match given {
            Some(k) => {
                #[cfg(test)]
                assert_eq!(k, self.key(pos, held), "the key given is the position's");
                k
            }
            None => self.key(pos, held),
        });
        let mut first = u16::MAX;
        // partition search: the entry's exact part kept beside it (what its value leaned on)
        let (old, word) = match k.and_then(|k| self.table.get_word(k)) {
            Some((e, w)) => (Some(e), w),
            None => (None, 0),
        };
        let nodes0 = self.nodes;
        // N1: what the window's narrowing by an entry leaned on
        let mut narrowed = R::none();
        if let Some(e) = old {
            let (lo, hi) = (base + e.lo, base + e.hi);
            #[cfg(feature = "partition-hook")]
            if lo == hi || lo >= beta || hi <= alpha {
                hook::hit(pos, alpha, beta);
            }
            let rel = || if R::ON { R::of(self.word_rel(word, held.left)) } else { R::none() };
            if lo == hi || lo >= beta {
                return Ok((lo, rel()));
            }
            if hi <= alpha {
                return Ok((hi, rel()));
            }
            if R::ON && (lo > alpha || hi < beta) {
                narrowed = rel();
            }
            alpha = alpha.max(lo);
            beta = beta.min(hi);
            first = e.best;
        }
        // the bounds after the table: most nodes the table cuts need no bounds (partition
        // search's probe, dearer than the bounds, after them, which it may narrow further)
        let (lo, hi, decided) = bounds(pos, &self.order, held);
        let cut = |alpha: i32, beta: i32| (lo == hi || hi <= alpha || lo >= beta).then_some(if lo == hi || hi <= alpha { hi } else { lo });
        let part = if R::ON && pos.trick.plays == 0 && cut(alpha, beta).is_none() {
            let mut classes = self.classes_at(depth);
            self.fill_classes(&mut classes, pos, held);
            let b = classes.bucket;
            match self.probe(pos, &classes, b, alpha, beta) {
                Probe::Answer(v, rel) => {
                    self.class_bufs[depth] = Some(classes);
                    // kept under the whole key too: the next visit is one probe of the table, not
                    // a partition probe's keys (BENCH 10 position 4: 739k partition probes a
                    // solve, 84% answered, against 173k once kept)
                    self.keep_rel(held, k, (old, word), &rel, v, (alpha, beta), base, first, nodes0);
                    return Ok((v, R::of(rel)));
                }
                Probe::Narrow(a, bt, rel, f) => {
                    (alpha, beta) = (a, bt);
                    narrowed.join(&R::of(rel));
                    if first == u16::MAX {
                        first = f;
                    }
                }
            }
            Some((classes, b))
        } else {
            None
        };
        if let Some(v) = cut(alpha, beta) {
            let mut rel = narrowed;
            if R::ON && decided.is_some() {
                // the decided trick read its best's strength: nobody holds a unit above it
                let (lead, best) = (pos.trick.lead.expect("mid-trick"), pos.trick.best_key);
                rel.trick(if best >> 8 & 1 == 1 { TRUMP } else { lead.class }, best as u8);
            }
            if let Some((classes, _)) = part {
                self.class_bufs[depth] = Some(classes);
            }
            return Ok((v, rel));
        }
        let (alpha0, beta0) = (alpha, beta);
        if self.plies.len() <= depth {
            self.plies.resize_with(depth + 1, || Some(Box::default()));
        }
        #[cfg(feature = "partition-hook")]
        if pos.trick.plays == 0 {
            hook::call(pos, alpha0, beta0, None, self.nodes);
        }
        if pos.trick.plays == 0 && held.cards[pos.to_move as usize] == 3 {
            // three cards a hand: a single lead's trick played out without making positions
            let (best, best_i, mut rel) = self.three::<R>(pos, held, first, alpha, beta, depth)?;
            rel.join(&narrowed);
            self.keep_both(pos, held, k, (old, word), part, depth, &rel.get(), best, (alpha0, beta0), best_i, nodes0);
            #[cfg(feature = "partition-hook")]
            hook::call(pos, alpha0, beta0, Some(best), self.nodes);
            return Ok((best, rel));
        }
        // this node's buffers, taken out while its children use theirs
        let mut ply = self.plies[depth].take().expect("one node a depth at a time");
        if !search_plays(pos, &self.order, held, &mut self.follows, &mut ply) {
            return Err(Budget);
        }
        let max = pos.is_defender(pos.to_move);
        let mut best = if max { i32::MIN } else { i32::MAX };
        // the table's best play first, before the other children are made: it cuts most nodes;
        // else the play that last cut a node at this depth (a killer), if legal here: a lead
        // (BENCH 10 × 5 nodes 103.1M -> 80.0M, 9 × 10 -27%, 8 × 20 -12%, 7 × 60 about the
        // same), or mid-trick unless the mover's side would shed its points ([`sheds_points`]:
        // then the order alone)
        if first == u16::MAX && (pos.trick.plays == 0 || !sheds_points(pos, held, max, alpha, beta)) {
            first = ply.killer_at();
        }
        let ctx = self.order.ctx;
        // a trick's last card that leaves ETC_CARDS - 1 cards a hand or more: every child is a
        // trick start, and one whose table entry already cuts this node ends it before any is
        // searched (an enhanced transposition cutoff); the play to be searched first is probed
        // first (most nodes it cuts need no other key), and the children, their masks and keys
        // are kept; nearer the end the keys and probes (cache misses) of children never searched
        // cost more than the cuts save
        let etc = pos.trick.plays == 3 && held.cards[pos.to_move as usize] >= ETC_CARDS;
        if etc {
            ply.kids.clear();
            ply.helds.clear();
            ply.keys.clear();
            let n = ply.len();
            let pre = (first as usize) < n;
            // a table larger than the caches: the other plays' keys all made before their
            // entries are read one after another (the reads' cache misses overlap), in the same
            // order, so the same cut
            let batch = self.table.capacity() >= batch_slots();
            // each child made in its place: the play to be searched first, then the others in order
            ply.kids.resize(n, *pos);
            ply.helds.resize(n, *held);
            ply.keys.resize(n, 0);
            for j in 0..n {
                let i = if !pre { j } else if j == 0 { first as usize } else if j <= first as usize { j - 1 } else { j };
                let (c, single, known) = (ply.moves.get(i).unwrap_or(&NO_CARDS), ply.singles[i], ply.combos.get(i).copied().unwrap_or_default());
                let q = &mut ply.kids[i];
                play_known(q, ctx, c, single, known);
                ply.helds[i] = held.after_play(pos.to_move, q, ctx, single, c, known.combo);
                let k = self.key(q, &ply.helds[i]);
                ply.keys[i] = k;
                if !batch || (pre && j == 0) {
                    if let Some((v, w)) = self.child_cuts(&ply.kids[i], k, max, alpha, beta) {
                        let rel = self.cut_rel::<R>(pos, held, &ply, i, w);
                        self.give_back(depth, ply);
                        return Ok((v, rel));
                    }
                }
            }
            if batch {
                for i in (0..n).filter(|&i| !pre || i != first as usize) {
                    if let Some((v, w)) = self.child_cuts(&ply.kids[i], ply.keys[i], max, alpha, beta) {
                        let rel = self.cut_rel::<R>(pos, held, &ply, i, w);
                        self.give_back(depth, ply);
                        return Ok((v, rel));
                    }
                }
            }
        }
        // the third-last trick's last card: a child's last two tricks may be kept, its value
        // then known without making it
        let ends = pos.trick.plays == 3 && held.cards[pos.to_move as usize] == 3;
        if self.rotate > 0 && depth < threads::HELP_DEPTH {
            // a thread helping another's question: near its root every play in turn from the
            // rotate-th on, the table's first too
            first = u16::MAX;
        }
        let mut best_i = first;
        let first_i = (first as usize) < ply.len();
        // C1: the union of the children searched (each with T1 of the trick its play ends), or
        // at a cutoff the cutting child's alone
        let (mut rel, mut cut) = (R::none(), None);
        if first_i {
            let f = first as usize;
            let (v, mut r) = match if ends { self.last_two_child::<R>(pos, held, ply.singles[f]) } else { None } {
                Some(x) => x,
                None if etc => {
                    self.given_key = Some(ply.keys[f]);
                    self.node::<R>(&mut ply.kids[f], &ply.helds[f], alpha, beta, depth + 1)?
                }
                None => self.node_after::<R>(pos, held, (ply.play(f), ply.singles[f], ply.combo(f)), alpha, beta, depth + 1)?,
            };
            if R::ON && pos.trick.plays == 3 {
                if let Some((class, strength)) = trick_ends(pos, ctx, held.units, ply.singles[f], ply.combo(f)) {
                    r.trick(class, strength);
                }
            }
            best = v;
            rel.join(&r);
            if max {
                alpha = alpha.max(best);
            } else {
                beta = beta.min(best);
            }
            if alpha >= beta {
                cut = Some(r);
            }
        }
        if alpha < beta {
            if !etc {
                ply.kids.clear();
            }
            ply.order.clear();
            let shed = pos.trick.plays > 0 && sheds_points(pos, held, max, alpha, beta);
            // every play's order known without making the child: a follow's from its
            // combination where it may win
            for i in 0..ply.len() {
                let c = ply.moves.get(i).unwrap_or(&NO_CARDS);
                if i as u16 == first {
                    continue;
                }
                let score = if pos.trick.plays == 0 {
                    // a lead: by its score, then stronger first
                    lead_score(&self.order, pos, held, c, ply.singles[i], ply.combo(i))
                } else {
                    let score = quick_order_score(pos, &self.order, held, c, ply.singles[i], ply.combo(i));
                    // a follow that leaves the trick to the opponents (score -p): with `shed`,
                    // the most points first
                    if shed && score <= 0 { -score } else { score }
                };
                ply.order.push(ranked(score, i as u16));
            }
            ply.order.sort_unstable();
            if self.rotate > 0 && depth < threads::HELP_DEPTH {
                let n = ply.order.len();
                ply.order.rotate_left(self.rotate % n.max(1));
            }
            if !first_i {
                best_i = ply.order[0] as u16;
            }
            for &r in &ply.order {
                let i = r as u16 as usize;
                let (v, mut r) = match if ends { self.last_two_child::<R>(pos, held, ply.singles[i]) } else { None } {
                    Some(x) => x,
                    None if etc => {
                        self.given_key = Some(ply.keys[i]);
                        self.node::<R>(&mut ply.kids[i], &ply.helds[i], alpha, beta, depth + 1)?
                    }
                    None => self.node_after::<R>(pos, held, (ply.play(i), ply.singles[i], ply.combo(i)), alpha, beta, depth + 1)?,
                };
                if R::ON && pos.trick.plays == 3 {
                    if let Some((class, strength)) = trick_ends(pos, ctx, held.units, ply.singles[i], ply.combo(i)) {
                        r.trick(class, strength);
                    }
                }
                rel.join(&r);
                if (max && v > best) || (!max && v < best) {
                    best = v;
                    best_i = i as u16;
                }
                if max {
                    alpha = alpha.max(v);
                } else {
                    beta = beta.min(v);
                }
                if alpha >= beta {
                    cut = Some(r);
                    break;
                }
            }
        }
        if alpha >= beta {
            ply.keep_killer(best_i as usize);
        }
        let mut rel = cut.unwrap_or(rel);
        rel.join(&narrowed);
        let rel = groups_kept_whole(rel, ctx, &ply);
        self.give_back(depth, ply);
        // mid-trick there is no table entry to keep
        if k.is_some() {
            self.keep_both(pos, held, k, (old, word), part, depth, &rel.get(), best, (alpha0, beta0), best_i, nodes0);
        }
        #[cfg(feature = "partition-hook")]
        if pos.trick.plays == 0 {
            hook::call(pos, alpha0, beta0, Some(best), self.nodes);
        }
        if pos.trick.plays > 0 && depth < NEAR_DEPTH && held.cards[pos.to_move as usize] >= NEAR_CARDS {
            // a play that cut or reached the value inside the window is kept over an older one;
            // the best of a node that failed on its mover's side only where none is kept
            let found = if max { best > alpha0 } else { best < beta0 };
            let h = near_hash(pos);
            if found || !self.near.get(&h).is_some_and(|(q, _)| q == pos) {
                self.near.insert(h, (*pos, best_i));
            }
        }
        Ok((best, rel))
    }

    /// The value that ends a node at a trick's last card (its mover a maximiser when `max`,
    /// window (alpha, beta)) before any child is searched, if the table's entry of its child
    /// `q` (key `k`) shows that child alone cuts it: an enhanced transposition cutoff.
    fn child_cuts(&self, q: &Position, k: u128, max: bool, alpha: i32, beta: i32) -> Option<(i32, u32)> {
        let (e, word) = self.table.get_word(k)?;
        // the child is worth at least e.lo, at most e.hi (past its points so far)
        let b = q.defender_points;
        let cut = if max { (b + e.lo >= beta).then_some(b + e.lo) } else { (b + e.hi <= alpha).then_some(b + e.hi) };
        #[cfg(test)]
        ETC_CUTS.with(|c| c.set(c.get() + cut.is_some() as u64));
        #[cfg(feature = "partition-hook")]
        if cut.is_some() {
            hook::hit(q, alpha, beta);
        }
        cut.map(|v| (v, word))
    }

    /// Keeps the value `best` found in the window `(alpha0, beta0)` of the trick start whose
    /// key is `k` (if one), its table entry before the search `old`, in the table: fail-soft
    /// bounds of the points still to come (past `base`, the defenders' points so far), merged
    /// with the old ones, its best play's index and the work it took.
    #[allow(clippy::too_many_arguments)]
    fn keep(&mut self, k: Option<u128>, old: Option<Entry>, best: i32, (alpha0, beta0): (i32, i32), base: i32, best_i: u16, nodes0: u64, word: u32) {
        let (lo, hi) = kept_bounds(best, (alpha0, beta0));
        let (mut lo_d, mut hi_d) = (lo.saturating_sub(base), hi.saturating_sub(base));
        if let Some(o) = old {
            lo_d = lo_d.max(o.lo);
            hi_d = hi_d.min(o.hi);
        }
        let work = (self.nodes - nodes0).min(u32::MAX as u64) as u32;
        if let Some(k) = k {
            self.table.insert_word(k, Entry { lo: lo_d, hi: hi_d, best: best_i, work }, word);
        }
    }

    /// The value of `pos`, a trick start with three cards a hand, if inside (alpha, beta);
    /// else a bound on the side it fails (fail-soft), and the index of its best play among
    /// [`three_leads`]' (`first`, the table's, searched first when one: only an order, so an
    /// index of another list costs time, never a value). A single lead's trick is played out
    /// by [`Solver::follow`] without making positions; a pair or triple (R3.1) is searched as
    /// any play.
    fn three<R: Relevance>(&mut self, pos: &Position, held: &Held, first: u16, mut alpha: i32, mut beta: i32, depth: usize) -> Result<(i32, u16, R), Budget> {
        let mut ply = self.plies[depth].take().expect("one node a depth at a time");
        let ctx = self.order.ctx;
        three_leads(pos, &self.order, held, &mut ply);
        // the table's play first, else the depth's killer (BENCH 8 × 20: nodes -2.8%, 9 × 10
        // -1.3%), then the leads with most points and cards, stronger first
        let first = if first == u16::MAX { ply.killer_at() } else { first };
        ply.order.clear();
        for (i, u) in ply.combos.iter().enumerate() {
            // a unit of m cards of one kind (R3.1): m times its points (R7.1)
            let u = u.combo.expect("a lead is a combination");
            let score = if i as u16 == first { i32::MAX } else { (u.m as i32 * (KIND_POINTS[u.first as usize] + 1)) * 64 + lead_strength(ctx, u.first) };
            #[cfg(test)]
            {
                let c = &ply.moves[i];
                assert!(i as u16 == first || score == (points(c) + size(c) as i32) * 64 + lead_strength(ctx, first_kind(c)));
            }
            ply.order.push(ranked(score, i as u16));
        }
        ply.order.sort_unstable();
        let max = pos.is_defender(pos.to_move);
        let (mut best, mut best_i) = (if max { i32::MIN } else { i32::MAX }, ply.order[0] as u16);
        // C1 as in [`Solver::node`]
        let (mut rel, mut cut) = (R::none(), None);
        for j in 0..ply.order.len() {
            let i = ply.order[j] as u16 as usize;
            let k = ply.singles[i];
            let (v, r) = if k != NONE {
                let me = pos.to_move as usize;
                let mut once = held.once;
                once[me] &= !((1u64 << k) & !held.twice[me]);
                let u = unit(ctx, k, 1);
                let trick = Trick3 { class: u.class, path: [k, 0, 0, 0] };
                self.follow::<R>(pos, held, 1, &mut once, trick, (u.key(), me), KIND_POINTS[k as usize], alpha, beta)
            } else {
                let mut q = *pos;
                play_known(&mut q, ctx, &ply.moves[i], NONE, ply.combos[i]);
                let h = held.after(pos.to_move, &q, ctx, &ply.moves[i], ply.combos[i].combo);
                match self.node::<R>(&mut q, &h, alpha, beta, depth + 1) {
                    Ok(x) => x,
                    Err(b) => {
                        self.give_back(depth, ply);
                        return Err(b);
                    }
                }
            };
            rel.join(&r);
            if (max && v > best) || (!max && v < best) {
                (best, best_i) = (v, i as u16);
            }
            if max {
                alpha = alpha.max(v);
            } else {
                beta = beta.min(v);
            }
            if alpha >= beta {
                cut = Some(r);
                break;
            }
        }
        if cut.is_some() {
            ply.keep_killer(best_i as usize);
        }
        // G1 for the single leads merged
        let rel = groups_kept_whole(cut.unwrap_or(rel), ctx, &ply);
        self.give_back(depth, ply);
        Ok((best, best_i, rel))
    }

    /// The `i`-th play (1 to 3) of a single's trick led at three cards a hand from `pos`, the
    /// hands' kinds left `once`, the best so far `(key, seat)` and the trick's points `p`: the
    /// final score if inside (alpha, beta), else a bound on the side it fails (fail-soft). A
    /// follower plays a card of the led class if it holds one, else any (R5.2 with N = 1); a
    /// card beats the best so far in the led class or as a trump on a plain lead, with a
    /// greater key (R6.1–R6.2, as `combo::beats`); the winner's team takes the points (R7.2)
    /// and leads the last two tricks ([`Solver::after_trick`]).
    #[allow(clippy::too_many_arguments)]
    fn follow<R: Relevance>(&mut self, pos: &Position, held: &Held, i: usize, once: &mut [u64; 4], mut trick: Trick3, best: (u32, usize), p: i32, mut alpha: i32, mut beta: i32) -> (i32, R) {
        self.nodes += 1;
        let ctx = self.order.ctx;
        let seat = (pos.to_move as usize + i) % 4;
        let max = pos.is_defender(seat as u8);
        let mine = once[seat];
        let of_led = mine & ctx.class_mask[trick.class as usize];
        let mut bits = if of_led != 0 { of_led } else { mine };
        // points shed first where the window asks for no more ([`sheds_points`]: `pos` is the
        // trick's start, whose tallies still hold the cards played to the trick so far)
        let shed = sheds_points(pos, held, max, alpha, beta);
        // each play (at most three kinds) with the best after it, the team's winning plays
        // first (the most points), then the others (the fewest points; the most with `shed`)
        let mut plays = [(0i32, 0u8, (0u32, 0usize)); 3];
        let mut n = 0;
        while bits != 0 {
            let x = bits.trailing_zeros() as u8;
            bits &= bits - 1;
            let u = unit(ctx, x, 1);
            let wins = (u.class == trick.class || (u.is_trump() && trick.class != TRUMP)) && u.key() > best.0;
            let after = if wins { (u.key(), seat) } else { best };
            let q = KIND_POINTS[x as usize];
            // a trick the next seat (an opponent) cannot take from the team first
            let sure = i < 3 && !may_beat(&self.order, once[(seat + 1) % 4], trick.class, after.0);
            let score = if after.1 % 2 == seat % 2 { 1000 + SURE * sure as i32 + q } else if shed { q } else { -q };
            // insertion by falling score, ties in kind order
            let mut at = n;
            while at > 0 && plays[at - 1].0 < score {
                plays[at] = plays[at - 1];
                at -= 1;
            }
            plays[at] = (score, x, after);
            n += 1;
        }
        let mut out = if max { i32::MIN } else { i32::MAX };
        // C1 as in [`Solver::node`]
        let (mut rel, mut cut) = (R::none(), None);
        for &(_, x, after) in &plays[..n] {
            let kept = once[seat];
            once[seat] &= !((1u64 << x) & !held.twice[seat]);
            trick.path[i] = x;
            let q = p + KIND_POINTS[x as usize];
            let (v, r) = if i == 3 { self.after_trick::<R>(pos, held, once, &trick, after, q) } else { self.follow::<R>(pos, held, i + 1, once, trick, after, q, alpha, beta) };
            once[seat] = kept;
            rel.join(&r);
            if max {
                out = out.max(v);
                alpha = alpha.max(v);
            } else {
                out = out.min(v);
                beta = beta.min(v);
            }
            if alpha >= beta {
                cut = Some(r);
                break;
            }
        }
        (out, cut.unwrap_or(rel))
    }

    /// The final score once the trick [`Solver::follow`] played from `pos` is done, won by
    /// the best `(key, seat)` with `p` points, the hands' kinds left `once`: the last two
    /// tricks' exact value by [`Solver::two`] (partition search: [`Solver::two_rel`], with T1 of
    /// this trick: every card of one combination, a single).
    fn after_trick<R: Relevance>(&mut self, pos: &Position, held: &Held, once: &[u64; 4], trick: &Trick3, (key, winner): (u32, usize), p: i32) -> (i32, R) {
        let dp = pos.defender_points + if pos.is_defender(winner as u8) { p } else { 0 };
        // a kind held twice is held once more after one is played, twice more if three were
        // (read only when the cards' value is not kept)
        let twice = || {
            let mut twice = [0u64; 4];
            for (s, t) in twice.iter_mut().enumerate() {
                let x = trick.path[(s + 4 - pos.to_move as usize) % 4] as usize;
                *t = held.twice[s] & !(((pos.hands[s][x] == 2) as u64) << x);
            }
            twice
        };
        #[cfg(test)]
        {
            let q = trick.played(pos, self.order.ctx);
            let h = Held::of(&q);
            assert_eq!((q.to_move as usize, q.defender_points, h.once, h.twice), (winner, dp, *once, twice()));
        }
        let (v, rel) = if R::ON {
            let (v, mut rel) = self.two_rel(pos, winner as u8, dp, once, &twice());
            let ctx = self.order.ctx;
            let class = if key >> 8 & 1 == 1 { TRUMP } else { trick.class };
            if trick.path.iter().filter(|&&k| ctx.class[k as usize] == class).count() >= 2 {
                rel_trick(&mut rel, class, key as u8);
            }
            (v, R::of(rel))
        } else {
            (self.two(pos, winner as u8, dp, once, twice), R::none())
        };
        #[cfg(test)]
        {
            let q = trick.played(pos, self.order.ctx);
            assert_eq!(v, last_two(&q, &Held::of(&q), i32::MIN / 2, i32::MAX / 2));
        }
        (v, rel)
    }

    /// The final score of the last two tricks of the deal of `pos` led by `leader`, the
    /// defenders having `base` points so far, each hand's kinds held at least once and twice
    /// `once` and `twice()` (two cards a hand; `twice` called only when the cards' value is not
    /// kept): kept by their cards ([`exact_cache::key`]), else by their shape ([`two_shape`]),
    /// else solved by [`last_two_of`] and kept under both.
    fn two(&mut self, pos: &Position, leader: u8, base: i32, once: &[u64; 4], twice: impl FnOnce() -> [u64; 4]) -> i32 {
        let key = exact_cache::key(leader, once);
        if let Some(v) = self.last.get(key) {
            return base + v;
        }
        let twice = &twice();
        let shape = two_shape(self.order.ctx, leader, once, twice);
        if let Some(v) = self.two_shapes.get(shape) {
            self.last.put(key, v);
            return base + v;
        }
        let v = last_two_of(pos, leader, base, once, twice, i32::MIN / 2, i32::MAX / 2);
        self.last.put(key, v - base);
        self.two_shapes.put(shape, v - base);
        v
    }

    /// [`Solver::two`] with the relevance of its value (PARTITION.md step 2): kept with the
    /// value by the cards (as it is) and by the shape (by places, read back through this
    /// position's cards), else found by [`last_two_rel`]'s full-window search.
    fn two_rel(&mut self, pos: &Position, leader: u8, base: i32, once: &[u64; 4], twice: &[u64; 4]) -> (i32, Rel) {
        let ctx = self.order.ctx;
        let key = exact_cache::key(leader, once);
        let unpack = |w: i64| (w as i32, (w as u64) >> 32);
        if let Some(w) = self.last_rel.get_word(key) {
            let (v, r) = unpack(w);
            return (base + v, rel_of_bits(r));
        }
        let (kinds, values) = two_values(ctx, once);
        let places = two_places(&values);
        let shape = two_shape(ctx, leader, once, twice);
        let (v, rel) = match self.shapes_rel.get_word(shape) {
            Some(w) => {
                let (v, code) = unpack(w);
                (v, rel_from_places(ctx, code, &kinds, &values, &places))
            }
            None => {
                let (v, rel) = last_two_rel(pos, leader, base, once, twice, i32::MIN / 2, i32::MAX / 2);
                let v = v - base;
                self.shapes_rel.put_word(shape, (v as u32 as i64) | (rel_to_places(ctx, &rel, &kinds, &values, &places) << 32) as i64);
                (v, rel)
            }
        };
        self.last_rel.put_word(key, (v as u32 as i64) | (rel_bits(&rel) << 32) as i64);
        (base + v, rel)
    }

    /// Past this thread's budget: whether its search goes on (alone: no; beside other
    /// threads: while the nodes all of them spent are within the budget and the question it
    /// asks is still open), its budget then raised by [`threads::CHUNK`].
    #[cold]
    #[inline(never)]
    fn go_on(&mut self) -> bool {
        let go = self.halt.as_ref().is_some_and(|h| h.go_on());
        self.budget += if go { threads::CHUNK } else { 0 };
        self.share_newer();
        go
    }

    /// The threads' table and buckets taken up if they grew since this solver last looked
    /// (its searches go on in them: an entry is a sound bound in any table).
    fn share_newer(&mut self) {
        if let Some((table, buckets)) = self.halt.as_mut().and_then(|h| h.newer()) {
            self.table = Table::sharing(&table);
            if self.partition {
                self.buckets = Buckets::sharing(&buckets);
            }
        }
    }

    /// The solver after a search stopped part way (past its budget, or its question answered
    /// by another thread): each depth's buffers there again, so it can search again.
    fn recover(&mut self) {
        for p in self.plies.iter_mut().filter(|p| p.is_none()) {
            *p = Some(Box::default());
        }
        self.given_key = None;
    }

    /// The exact value of `pos`, by a full-window search.
    fn value(&mut self, pos: &Position) -> Result<i32, Budget> {
        self.search(pos, i32::MIN / 2, i32::MAX / 2, 0)
    }

    /// The exact value of `pos` by null-window searches from a guess (MTD(f)): each asks
    /// whether the value reaches `b` (window (b − 1, b)) and returns a bound past which it moves
    /// the next `b`, until the bounds meet. (A window (g − 1, g + 1), which proves a value equal
    /// to g in one search, searched more nodes: BENCH 10 × 9 1,433M → 1,251M with null windows,
    /// 8 × 20 −4.6%, 9 × 10 +4.3%; benches/HISTORY.md §50.)
    fn mtdf(&mut self, pos: &Position, guess: i32) -> Result<i32, Budget> {
        let (mut lo, mut hi) = (i32::MIN / 2, i32::MAX / 2);
        let mut g = guess.clamp(lo + 1, hi);
        while lo < hi {
            // reaches b? a lower bound kept (g == lo) asks one above it
            let b = g.max(lo + 1);
            let v = self.search(pos, b - 1, b, 0)?;
            if v < b {
                hi = v;
            } else {
                lo = v;
            }
            g = v;
        }
        Ok(lo)
    }

    /// The best play kept for `pos` by the table (a trick start) or [`Solver::near`]
    /// (mid-trick), if any: an index into the plays its node lists, read back from the same
    /// lists (`ply`: scratch buffers). Only an order: a trick start's entry may be an equal
    /// key's, and a best play need not reach the value, so the line checks it by a search.
    fn hint(&mut self, pos: &Position, ply: &mut Ply) -> Option<Counts> {
        if size(&pos.hands[pos.to_move as usize]) < NEAR_CARDS as usize {
            return None;
        }
        let held = Held::of(pos);
        let best = if pos.trick.plays == 0 {
            let k = self.key(pos, &held);
            self.table.get(k)?.best
        } else {
            self.near.get(&near_hash(pos)).filter(|(q, _)| q == pos)?.1
        };
        if !search_plays(pos, &self.order, &held, &mut self.follows, ply) {
            return None;
        }
        ((best as usize) < ply.len()).then(|| ply.cards(best as usize))
    }

    /// The line of best plays from `pos`, whose value is `v`: at each step the best play the
    /// search kept ([`Solver::hint`]) if it keeps the value, else the first in the engine's
    /// order that does.
    fn line(&mut self, pos: &Position, v: i32) -> Result<Vec<(u8, Counts)>, Budget> {
        let mut out = Vec::new();
        let mut scratch = Ply::default();
        let mut pos = *pos;
        while pos.phase == Phase::Play {
            let moves = plays_in(&pos, &self.order).ok_or(Budget)?;
            // a node worth v: the defenders' children are worth at most v, the banker team's
            // at least v, so a null window on one side tells a child worth v from the others
            let max = pos.is_defender(pos.to_move);
            let mut found = None;
            // the play the search kept as this node's best first (most often the one that
            // proved its value), then the engine's order
            let hint = if self.hints { self.hint(&pos, &mut scratch) } else { None };
            for c in hint.iter().chain(moves.iter().filter(|&c| Some(*c) != hint)) {
                let mut q = pos;
                q.play_unchecked(c);
                let worth_v = if max { self.search(&q, v - 1, v, 0)? >= v } else { self.search(&q, v, v + 1, 0)? <= v };
                if worth_v {
                    #[cfg(test)]
                    HINTS_TAKEN.with(|n| n.set(n.get() + (Some(*c) == hint) as u64));
                    found = Some((*c, q));
                    break;
                }
            }
            let (c, q) = found.expect("a position's value is one of its plays'");
            out.push((pos.to_move, c));
            pos = q;
        }
        Ok(out)
    }
}

/// Solves `pos` (the play phase, every hand known) within `budget` nodes: every play's value
/// (the defenders' final score), the best play and the principal line. Raises BadArgument
/// for a position not in its play phase. By partition search where a hand holds
/// [`PARTITION_FROM`] cards or more, else with the table of whole trick starts alone
/// ([`solve_by`]: the same values and best play).
pub fn solve(pos: &Position, budget: u64) -> Result<Solution, Error> {
    solve_by(pos, budget, by_partition(pos))
}

/// The fewest cards in the largest hand from which [`solve`] searches by partition search:
/// measured faster from there (median time ratio a position, plain ÷ partition, one run
/// alternating: 5 cards 0.76, 6 0.87, 7 0.95, 8 1.22, 9 and 10 in benches/HISTORY.md §49).
pub const PARTITION_FROM: usize = 8;

/// Whether [`solve`] searches `pos` by partition search.
pub fn by_partition(pos: &Position) -> bool {
    pos.hands.iter().any(|h| size(h) >= PARTITION_FROM)
}

/// [`solve`] by partition search (rust/core/PARTITION.md) when `partition`, else with the
/// table of whole trick starts alone: the same values and best play. Partition search visits
/// fewer nodes (BENCH 10 × 5: 3× fewer), each dearer (a trick start's probe): faster on the
/// largest ends, slower on small ones (benches/HISTORY.md §48–§49).
pub fn solve_by(pos: &Position, budget: u64, partition: bool) -> Result<Solution, Error> {
    solve_threads(pos, budget, partition, 1)
}

/// [`solve_by`] by `threads` threads (0: one a core; 1: [`solve_by`] itself) sharing one
/// table (the module `solve::threads`): every play's value, the best play and the bounds are the same for any
/// number of threads (each value exact); the nodes searched are not. With two threads or
/// more the line is at each step the first play in the engine's order that keeps the value
/// (the same line for any number of them), where one thread's tries first the play its
/// search kept (so the two lines may differ, both of the value). Past the budget (the nodes
/// of all threads together) which plays were solved may differ from run to run; their
/// bounds hold the values. Raises BadArgument as [`solve_by`], Resource when the system
/// starts none of the threads.
pub fn solve_threads(pos: &Position, budget: u64, partition: bool, threads: usize) -> Result<Solution, Error> {
    let threads = if threads == 0 { std::thread::available_parallelism().map_or(1, |n| n.get()) } else { threads };
    if pos.phase != Phase::Play {
        return Err(Error::BadArgument { what: "game", message: "the solver plays out the tricks: the hand is not in its play phase".into() });
    }
    let mut s = Solver::new(budget, pos.ctx());
    if partition {
        s = s.partitioned();
    }
    let moves = match plays_in(pos, &s.order) {
        Some(m) => m,
        None => {
            let (lo, hi) = static_bounds(pos);
            return Ok(Solution { plays: Vec::new(), best: [0; KINDS], lower: lo, upper: hi, line: Vec::new(), nodes: 0, exact: false });
        }
    };
    let max = pos.is_defender(pos.to_move);
    let mut values: Vec<PlayValue> = moves.iter().map(|c| PlayValue { play: *c, lower: 0, upper: 0 }).collect();
    let mut out_of_budget;
    // the order the plays are solved in: at a trick start the leads with most points and
    // cards first, stronger first (a lead's order at every node): the likely best first, its
    // line in the table before the others' (measured: fewer nodes), each play's value then
    // guessed as the best so far; mid-trick the engine's order, each guessed as the previous one
    let mut solved_order: Vec<usize> = (0..moves.len()).collect();
    if pos.trick.plays == 0 {
        let (order, held) = (&s.order, Held::of(pos));
        solved_order.sort_by_key(|&i| std::cmp::Reverse(quick_order_score(pos, order, &held, &moves[i], NONE, Known::default()) * 64 + lead_strength(order.ctx, first_kind(&moves[i]))));
    }
    if threads > 1 {
        // alone first, within ALONE_FIRST nodes (most ends need fewer: no table to set up),
        // its line as the threads' would be (hint-free); past them by the threads from what it
        // found, the nodes spent alone counted against the budget
        let mut alone = Solver::new(budget.min(alone_first()), pos.ctx());
        if partition {
            alone = alone.partitioned();
        }
        alone.hints = false;
        out_of_budget = solve_alone(&mut alone, pos, &moves, &solved_order, &mut values);
        let spent = alone.nodes;
        // (the line may search to the whole budget)
        alone.budget = budget;
        s = alone;
        if out_of_budget && budget > spent {
            // what it found goes on to the threads: its table, buckets and each play's bounds
            let known: Vec<(i32, i32)> = solved_order.iter().map(|&i| (values[i].lower, values[i].upper)).collect();
            let (bounds, all_solved, by_threads) = threads::solve_plays(pos, &moves, &solved_order, budget - spent, threads, &s, &known)?;
            for (r, &i) in solved_order.iter().enumerate() {
                (values[i].lower, values[i].upper) = bounds[r];
            }
            (s, out_of_budget) = (by_threads, !all_solved);
            s.nodes += spent;
            s.budget = s.budget.saturating_add(spent);
        }
    } else {
        out_of_budget = solve_alone(&mut s, pos, &moves, &solved_order, &mut values);
    }
    // the best by the lower bound for the maximiser, the upper for the minimiser (ties: the earlier)
    let pick = |v: &PlayValue| if max { v.lower } else { -v.upper };
    let best = values.iter().enumerate().max_by_key(|(i, v)| (pick(v), std::cmp::Reverse(*i))).map(|(_, v)| *v).expect("a play");
    let (lower, upper) = if max {
        (best.lower, values.iter().map(|v| v.upper).max().unwrap_or(best.upper))
    } else {
        (values.iter().map(|v| v.lower).min().unwrap_or(best.lower), best.upper)
    };
    let exact = !out_of_budget;
    let mut line = Vec::new();
    if exact {
        let mut q = *pos;
        q.play_unchecked(&best.play);
        if let Ok(rest) = s.line(&q, best.lower) {
            line.push((pos.to_move, best.play));
            line.extend(rest);
        }
    }
    Ok(Solution { plays: values, best: best.play, lower, upper, line, nodes: s.nodes, exact })
}

/// The nodes [`solve_threads`] searches alone before it starts its threads: ends solved within
/// them are not worth the threads' table (set up for each solve: about 20 ms at 8 cards when
/// it was 2^19 slots, §52); past them the threads go on from its table (2^19 measured no better at 10 × 5,
/// benches/HISTORY.md §52).
const ALONE_FIRST: u64 = 1 << 17;

#[cfg(test)]
thread_local! {
    // the tests' nodes alone first (0: the threads at once)
    static ALONE_NODES: std::cell::Cell<u64> = const { std::cell::Cell::new(ALONE_FIRST) };
}

/// [`ALONE_FIRST`] (in the tests, the nodes they set).
fn alone_first() -> u64 {
    #[cfg(test)]
    return ALONE_NODES.with(|c| c.get());
    #[cfg(not(test))]
    ALONE_FIRST
}

/// `moves` at `pos` solved by `s` one by one in `solved_order` (MTD(f), each guessed as the
/// best so far at a trick start, else as the previous), their values or bounds put in
/// `values`: whether the budget ran out.
fn solve_alone(s: &mut Solver, pos: &Position, moves: &[Counts], solved_order: &[usize], values: &mut [PlayValue]) -> bool {
    let max = pos.is_defender(pos.to_move);
    let mut out_of_budget = false;
    let mut guess = None;
    for &i in solved_order {
        let mut q = *pos;
        q.play_unchecked(&moves[i]);
        let (lower, upper) = if out_of_budget {
            static_bounds(&q)
        } else {
            match s.mtdf(&q, guess.unwrap_or(pos.defender_points)) {
                Ok(v) => (v, v),
                Err(Budget) => {
                    out_of_budget = true;
                    static_bounds(&q)
                }
            }
        };
        (values[i].lower, values[i].upper) = (lower, upper);
        guess = Some(match guess {
            Some(g) if pos.trick.plays == 0 => if max { lower.max(g) } else { lower.min(g) },
            _ => lower,
        });
    }
    out_of_budget
}

/// The exact final score after each of `plays` at `pos` (the play phase), one table shared,
/// None for the plays not solved within `budget` nodes in all.
pub fn values(pos: &Position, plays: &[Counts], budget: u64) -> Vec<Option<i32>> {
    let mut s = Solver::new(budget, pos.ctx());
    let mut spent = false;
    let mut guess = pos.defender_points;
    plays
        .iter()
        .map(|c| {
            if spent {
                return None;
            }
            let mut q = *pos;
            q.play_unchecked(c);
            let v = s.mtdf(&q, guess).ok();
            spent = v.is_none();
            guess = v.unwrap_or(guess);
            v
        })
        .collect()
}

/// The exact final score of `pos` (the play phase, or over), None past `budget` nodes: a
/// search's leaf evaluator.
pub fn value(pos: &Position, budget: u64) -> Option<i32> {
    let mut s = Solver::new(budget, pos.ctx());
    s.value(pos).ok()
}

/// Plain minimax over every legal play (no table, no pruning, no merging): the solver's
/// brute-force twin for the tests.
pub fn minimax(pos: &Position) -> i32 {
    if pos.phase == Phase::Over {
        return pos.final_score;
    }
    let mut set = ActionSet::of(pos);
    let all = set.all(u128::MAX).expect("every play");
    let vals = all.iter().map(|a| {
        let Action::Play(c) = a else { unreachable!("plays") };
        let mut q = *pos;
        q.play_unchecked(c);
        minimax(&q)
    });
    if pos.is_defender(pos.to_move) {
        vals.max().expect("a play")
    } else {
        vals.min().expect("a play")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::hand::Game;
    use crate::rules::profile::Profile;
    use crate::util::rng::Rng;
    use std::collections::HashMap;

    /// A random open-card position: `h` cards a hand drawn from a few kinds (so that pairs,
    /// triples and tractors are common), then `pre` random plays.
    fn position(rng: &mut Rng, profile: Profile, h: usize, pre: usize) -> Position {
        position_from(rng, profile, h, pre, false)
    }

    /// [`position`], or with `wide` from the whole deck (lone singles, which merge, are common).
    fn position_from(rng: &mut Rng, profile: Profile, h: usize, pre: usize, wide: bool) -> Position {
        loop {
            let level = 3 + rng.below_usize(12) as u8;
            let trump = rng.below_usize(4) as u8;
            let banker = rng.below_usize(4) as u8;
            let spread = if wide { KINDS } else { 4 + rng.below_usize(12) };
            let mut kinds: Vec<usize> = (0..KINDS).collect();
            for i in 0..spread {
                let j = i + rng.below_usize(KINDS - i);
                kinds.swap(i, j);
            }
            let mut deck: Vec<usize> = kinds[..spread].iter().flat_map(|&k| [k; 4]).collect();
            if deck.len() < 4 * h {
                continue;
            }
            for i in 0..4 * h {
                let j = i + rng.below_usize(deck.len() - i);
                deck.swap(i, j);
            }
            let mut hands = [[0u8; KINDS]; 4];
            for (i, &k) in deck[..4 * h].iter().enumerate() {
                hands[i % 4][k] += 1;
            }
            let g = Game::from_hands(hands, level, trump, banker, profile).expect("a valid deal");
            let mut pos = g.pos;
            for _ in 0..pre {
                if pos.phase != Phase::Play {
                    break;
                }
                let mut set = ActionSet::of(&pos);
                let Some(Action::Play(c)) = set.sample(rng) else { unreachable!("plays") };
                pos.play_unchecked(&c);
            }
            if pos.phase == Phase::Play {
                return pos;
            }
        }
    }

    /// The solver against plain minimax on thousands of small endgames of every profile:
    /// the value of every legal play (merged leads included) and of the position; every other
    /// endgame by partition search.
    #[test]
    fn solver_agrees_with_brute_force_minimax() {
        let mut rng = Rng::new(2024);
        let mut checked = 0;
        for profile in Profile::ALL {
            for i in 0..700 {
                let h = 1 + i % 3;
                let pre = rng.below_usize(4);
                let pos = position_from(&mut rng, profile, h, pre, i % 4 == 3);
                let s = solve_by(&pos, u64::MAX, i % 2 == 1).expect("solved");
                assert!(s.exact);
                let want = minimax(&pos);
                assert_eq!((s.lower, s.upper), (want, want), "{profile:?} {pos:?}");
                let mut set = ActionSet::of(&pos);
                let all: Vec<Counts> = set.all(u128::MAX).unwrap().into_iter().map(|a| match a { Action::Play(c) => c, _ => unreachable!() }).collect();
                for v in &s.plays {
                    let mut q = pos;
                    q.play_unchecked(&v.play);
                    assert_eq!((v.lower, v.upper), (minimax(&q), minimax(&q)));
                }
                // every legal play is listed, or stands merged behind an equivalent one of equal value
                for c in &all {
                    let mut q = pos;
                    q.play_unchecked(c);
                    let m = minimax(&q);
                    if !s.plays.iter().any(|v| v.play == *c) {
                        assert_eq!(pos.trick.plays, 0, "only single leads are merged");
                        assert!(s.plays.iter().any(|v| v.lower == m && crate::rules::card::size(&v.play) == 1));
                    }
                }
                // the principal line plays out to the position's value
                let mut q = pos;
                for (seat, c) in &s.line {
                    assert_eq!(q.to_move, *seat);
                    assert!(q.check_play(c).is_ok());
                    q.play_unchecked(c);
                }
                assert_eq!(q.phase, Phase::Over);
                assert_eq!(q.final_score, want);
                checked += 1;
            }
        }
        assert!(checked >= 2000);
    }

    /// The principal line of larger positions, where it tries the plays the search kept
    /// first: every play is legal and leaves a position of the root's value (each solved
    /// again by a fresh solver), and the line plays out to it.
    #[test]
    fn the_line_keeps_the_value_with_the_plays_kept() {
        let mut rng = Rng::new(77);
        HINTS_TAKEN.with(|n| n.set(0));
        let mut steps = 0;
        for i in 0..150 {
            let profile = Profile::ALL[i % Profile::ALL.len()];
            let pre = rng.below_usize(3);
            let pos = position_from(&mut rng, profile, 5 + i % 2, pre, i % 3 == 0);
            let s = solve(&pos, u64::MAX).expect("solved");
            assert!(s.exact);
            let mut q = pos;
            for (seat, c) in &s.line {
                assert_eq!(q.to_move, *seat);
                assert!(q.check_play(c).is_ok());
                q.play_unchecked(c);
                if q.phase == Phase::Play {
                    assert_eq!(value(&q, u64::MAX), Some(s.lower), "{pos:?}");
                    steps += 1;
                }
            }
            assert_eq!((q.phase, q.final_score), (Phase::Over, s.lower));
        }
        let taken = HINTS_TAKEN.with(|n| n.get());
        eprintln!("line steps {steps}, plays kept taken {taken}");
        assert!(taken > 400, "{taken}");
    }

    /// Several threads sharing one table give every play's value, the best play and the
    /// bounds as one thread does, by partition search and without, at trick starts and mid-
    /// trick; their line is the same for 2 and 3 threads (the first play in the engine's order
    /// that keeps the value at each step) and plays out to the value.
    #[test]
    fn threads_give_the_values_of_one_thread() {
        let mut rng = Rng::new(2026);
        for i in 0..160 {
            let profile = Profile::ALL[i % Profile::ALL.len()];
            let pre = rng.below_usize(4);
            let pos = position_from(&mut rng, profile, 4 + i % 3, pre, i % 4 == 0);
            let partition = i % 2 == 0;
            // the threads at once, or alone first within 2,000 nodes (the threads then go on
            // from its table, buckets and plays solved), or as by default
            ALONE_NODES.with(|c| c.set([0, 2_000, 0, ALONE_FIRST][i % 4]));
            let one = solve_by(&pos, u64::MAX, partition).expect("solved");
            let mut lines = Vec::new();
            for threads in [2, 3] {
                let t = solve_threads(&pos, u64::MAX, partition, threads).expect("solved");
                assert_eq!((&t.plays, t.best, t.lower, t.upper, t.exact), (&one.plays, one.best, one.lower, one.upper, true), "{threads} threads: {profile:?} {pos:?}");
                let mut q = pos;
                for (seat, c) in &t.line {
                    assert_eq!(q.to_move, *seat);
                    assert!(q.check_play(c).is_ok());
                    q.play_unchecked(c);
                }
                assert_eq!((q.phase, q.final_score), (Phase::Over, t.lower));
                lines.push(t.line);
            }
            assert_eq!(lines[0], lines[1], "{pos:?}");
        }
    }

    /// The threads' table and buckets grown while they search (here from a few thousand nodes
    /// on, to four times the slots each time) give every play's value as one thread does.
    #[test]
    fn threads_give_the_values_of_one_thread_through_growth() {
        let mut rng = Rng::new(53);
        threads::GROW.with(|c| c.set(threads::Grow { per_slot: 1 }));
        let before = threads::GROWN.load(std::sync::atomic::Ordering::Relaxed);
        for i in 0..60 {
            let profile = Profile::ALL[i % Profile::ALL.len()];
            let pre = rng.below_usize(4);
            let pos = position_from(&mut rng, profile, 6 + i % 2, pre, false);
            let partition = i % 2 == 0;
            ALONE_NODES.with(|c| c.set([0, 2_000][i % 2]));
            let one = solve_by(&pos, u64::MAX, partition).expect("solved");
            let t = solve_threads(&pos, u64::MAX, partition, 2).expect("solved");
            assert_eq!((&t.plays, t.best, t.lower, t.upper, t.exact), (&one.plays, one.best, one.lower, one.upper, true), "{profile:?} {pos:?}");
        }
        threads::GROW.with(|c| c.set(threads::Grow::AT));
        ALONE_NODES.with(|c| c.set(ALONE_FIRST));
        let grown = threads::GROWN.load(std::sync::atomic::Ordering::Relaxed) - before;
        assert!(grown >= 10, "{grown}");
    }

    /// Past the budget of all threads together, every value is a sound bound and the nodes
    /// stay within a chunk a thread of it.
    #[test]
    fn threads_degrade_to_bounds_past_the_budget() {
        let mut rng = Rng::new(12);
        let mut short = 0;
        for i in 0..40 {
            let profile = Profile::ALL[i % Profile::ALL.len()];
            let pos = position_from(&mut rng, profile, 6, 0, false);
            let full = solve(&pos, u64::MAX).expect("solved");
            let budget = full.nodes / 3;
            // the threads at once, or alone first within part of the budget
            ALONE_NODES.with(|c| c.set([0, budget / 2][i % 2]));
            let t = solve_threads(&pos, budget, by_partition(&pos), 2).expect("solved");
            for (a, b) in t.plays.iter().zip(&full.plays) {
                assert_eq!(a.play, b.play);
                assert!(a.lower <= b.lower && b.upper <= a.upper, "{a:?} {b:?}");
            }
            assert!(t.lower <= full.lower && full.upper <= t.upper);
            assert!(t.nodes <= budget + 2 * (threads::CHUNK + 1), "{} {budget}", t.nodes);
            short += !t.exact as usize;
            assert!(!t.exact || t.plays.iter().all(|v| v.lower == v.upper));
            assert!(t.exact || t.line.is_empty());
        }
        assert!(short > 20, "{short}");
    }

    /// Merged single leads are interchangeable: leading either gives the same value.
    #[test]
    fn merged_leads_have_equal_values() {
        let mut rng = Rng::new(7);
        let mut merged = 0;
        for i in 0..600 {
            let profile = Profile::ALL[i % Profile::ALL.len()];
            let pos = position_from(&mut rng, profile, 3, 0, true);
            let rep = single_representatives(&pos, &Order::of(pos.ctx()));
            for (k, &r) in rep.iter().enumerate() {
                if r as usize != k {
                    let lead = |kind: usize| {
                        let mut c = [0u8; KINDS];
                        c[kind] = 1;
                        let mut q = pos;
                        q.play_unchecked(&c);
                        minimax(&q)
                    };
                    assert_eq!(lead(k), lead(r as usize), "{pos:?}");
                    merged += 1;
                }
            }
        }
        assert!(merged > 50, "{merged}");
    }

    /// Past the budget the solver stops and every value is a sound bound.
    #[test]
    fn the_budget_degrades_to_bounds() {
        let mut rng = Rng::new(11);
        for i in 0..60 {
            let pos = position(&mut rng, Profile::ALL[i % 3], 3, 0);
            let s = solve(&pos, 30).expect("solved");
            let full = solve(&pos, u64::MAX).expect("solved");
            for (a, b) in s.plays.iter().zip(&full.plays) {
                assert_eq!(a.play, b.play);
                assert!(a.lower <= b.lower && b.upper <= a.upper, "{a:?} {b:?}");
            }
            assert!(s.lower <= full.lower && full.upper <= s.upper);
            assert!(s.nodes <= 31);
        }
    }

    /// Plain alpha-beta over every legal play (no table, bounds or merging): a reference fast
    /// enough for hands of four cards.
    fn reference(pos: &Position, mut alpha: i32, mut beta: i32) -> i32 {
        if pos.phase == Phase::Over {
            return pos.final_score;
        }
        let max = pos.is_defender(pos.to_move);
        let mut best = if max { i32::MIN } else { i32::MAX };
        for c in legal(pos).expect("plays") {
            let mut q = *pos;
            q.play_unchecked(&c);
            let v = reference(&q, alpha, beta);
            if max {
                best = best.max(v);
                alpha = alpha.max(v);
            } else {
                best = best.min(v);
                beta = beta.min(v);
            }
            if alpha >= beta {
                break;
            }
        }
        best
    }

    /// `pos` solved exactly, every root play's value that of plain alpha-beta after it.
    fn solved_as_the_reference(pos: &Position, profile: Profile) -> Solution {
        let s = solve(pos, u64::MAX).expect("solved");
        assert!(s.exact);
        for v in &s.plays {
            let mut q = *pos;
            q.play_unchecked(&v.play);
            let m = reference(&q, i32::MIN, i32::MAX);
            assert_eq!((v.lower, v.upper), (m, m), "{profile:?} {pos:?}");
        }
        // partition search: the same plays, values and best play
        let p = solve_by(pos, u64::MAX, true).expect("solved");
        assert_eq!((&p.plays, p.best, p.lower, p.upper, p.exact), (&s.plays, s.best, s.lower, s.upper, true), "partition search: {profile:?} {pos:?}");
        s
    }

    /// The solver (bounds, merged follows, renamed keys, MTD(f)) against plain alpha-beta on
    /// larger positions, trick starts and tricks in progress: every root play's value.
    #[test]
    fn solver_agrees_with_plain_alpha_beta_on_larger_positions() {
        let mut rng = Rng::new(4242);
        for i in 0..600 {
            let profile = Profile::ALL[i % Profile::ALL.len()];
            let h = 3 + i % 2;
            let pre = rng.below_usize(6);
            let pos = position_from(&mut rng, profile, h, pre, i % 3 == 2);
            let s = solved_as_the_reference(&pos, profile);
            let want = reference(&pos, i32::MIN, i32::MAX);
            assert_eq!((s.lower, s.upper), (want, want), "{profile:?} {pos:?}");
        }
    }

    /// The solver against plain alpha-beta on positions dealt among the two ties (the other
    /// suits' L and 2s), where keys rename tied kinds and swap groups merge plays (every root
    /// play's value; trick starts and tricks in progress, four and five cards a hand).
    #[test]
    fn solver_agrees_with_plain_alpha_beta_among_ties() {
        let mut rng = Rng::new(4545);
        for i in 0..600 {
            let profile = Profile::ALL[i % Profile::ALL.len()];
            let pre = rng.below_usize(6);
            let pos = tie_position(&mut rng, profile, 4 + i % 2, pre);
            solved_as_the_reference(&pos, profile);
        }
    }

    /// The solver against plain alpha-beta on positions of five and six cards a hand, where a
    /// trick's last card may leave `ETC_CARDS` − 1 or more and its children's table entries may
    /// cut it (the enhanced transposition cutoff): every root play's value, in every profile.
    #[test]
    fn transposition_cutoffs_at_trick_ends_keep_the_values() {
        let mut rng = Rng::new(4343);
        let before = ETC_CUTS.with(|c| c.get());
        for i in 0..120 {
            let profile = Profile::ALL[i % Profile::ALL.len()];
            let h = 5 + i % 2;
            let pre = rng.below_usize(4);
            let pos = position_from(&mut rng, profile, h, pre, false);
            solved_as_the_reference(&pos, profile);
        }
        let cuts = ETC_CUTS.with(|c| c.get()) - before;
        eprintln!("transposition cutoffs at trick ends: {cuts}");
        assert!(cuts > 100, "{cuts}");
    }

    /// Enhanced transposition cutoffs with every child's key made before the entries are read
    /// (as past [`BATCH_SLOTS`]) give the plain alpha-beta values and the same solution, nodes
    /// included, as with each entry read when its key is made.
    #[test]
    fn transposition_cutoffs_read_after_the_keys_are_the_same() {
        let mut rng = Rng::new(4344);
        let before = ETC_CUTS.with(|c| c.get());
        for i in 0..80 {
            let profile = Profile::ALL[i % Profile::ALL.len()];
            let h = 5 + i % 2;
            let pre = rng.below_usize(4);
            let pos = position_from(&mut rng, profile, h, pre, false);
            BATCH_FROM.with(|c| c.set(0));
            let batched = solved_as_the_reference(&pos, profile);
            BATCH_FROM.with(|c| c.set(usize::MAX));
            let plain = solve(&pos, u64::MAX).expect("solved");
            BATCH_FROM.with(|c| c.set(BATCH_SLOTS));
            assert_eq!(batched, plain, "{profile:?} {pos:?}");
        }
        let cuts = ETC_CUTS.with(|c| c.get()) - before;
        assert!(cuts > 100, "{cuts}");
    }

    /// The last two tricks solved directly agree with minimax over the engine's plays, for
    /// full and narrow windows (fail-soft: a value past the window bounds the true one on
    /// that side), pairs led and held included, on every profile.
    /// A position matching the trick start `pos` under the relevance `rel` (PARTITION.md):
    /// per class the kinds held at or above its strength exact, the cut raised to cover every
    /// kind touching a usable link (L1) and out of any run of equal strength (E1); the others
    /// ("small") dealt again at random among the class's kinds below every exact one with the
    /// same points, each hand keeping its multiset of (copies, points), no kind past four
    /// copies. None when the deal found no room; with whether a small kind changed.
    fn matching(pos: &Position, rel: &Rel, rng: &mut Rng) -> Option<(Position, bool)> {
        let ctx = pos.ctx();
        let usable = |h: &[Counts; 4], a: u8, b: u8| b != NONE && h.iter().any(|x| x[a as usize] >= 2 && x[b as usize] >= 2);
        let touches = |h: &[Counts; 4], k: u8| usable(h, k, ctx.up[k as usize]) || usable(h, k, ctx.down[k as usize]);
        let mut q = *pos;
        for (class, &cut) in rel.iter().enumerate() {
            let mut kinds: Vec<u8> = (0..KINDS as u8).filter(|&k| ctx.class[k as usize] as usize == class && pos.hands.iter().any(|h| h[k as usize] > 0)).collect();
            kinds.sort_by_key(|&k| std::cmp::Reverse((ctx.strength[k as usize], k)));
            let st = |i: usize| ctx.strength[kinds[i] as usize];
            let mut j = (0..kinds.len()).take_while(|&i| st(i) >= cut).count();
            for (i, &k) in kinds.iter().enumerate() {
                if touches(&pos.hands, k) {
                    j = j.max(i + 1);
                }
            }
            while j > 0 && j < kinds.len() && st(j) == st(j - 1) {
                j += 1;
            }
            let floor = if j > 0 { st(j - 1) } else { u8::MAX };
            let pool: Vec<u8> = (0..KINDS as u8).filter(|&k| ctx.class[k as usize] as usize == class && ctx.strength[k as usize] < floor).collect();
            for &k in &kinds[j..] {
                for h in q.hands.iter_mut() {
                    h[k as usize] = 0;
                }
            }
            for s in 0..4 {
                for &k in &kinds[j..] {
                    let n = pos.hands[s][k as usize];
                    if n == 0 {
                        continue;
                    }
                    let fits: Vec<u8> = pool
                        .iter()
                        .copied()
                        .filter(|&x| KIND_POINTS[x as usize] == KIND_POINTS[k as usize] && q.hands[s][x as usize] == 0 && q.hands.iter().map(|h| h[x as usize]).sum::<u8>() + n <= 4)
                        .collect();
                    if fits.is_empty() {
                        return None;
                    }
                    q.hands[s][fits[rng.below_usize(fits.len())] as usize] = n;
                }
            }
            // no small kind of the match touches a usable link either (L1)
            if pool.iter().any(|&k| touches(&q.hands, k)) {
                return None;
            }
        }
        let moved = q.hands != pos.hands;
        Some((q, moved))
    }

    /// Every position matching a last-two position on the relevance [`last_two_rel`] returns
    /// (its exact kinds and each hand's multiset of small ones, see [`matching`]) has a value
    /// on the same side of the window, equal inside it: random ends of every profile, the
    /// full window and a random one, four matches each; the search's value is
    /// [`last_two_of`]'s. The check's own check: T1 dropped, or each winner made small
    /// (`REL_UNSOUND` 1 and 2), is caught.
    #[test]
    fn last_two_relevance_holds_for_every_match() {
        let run = |unsound: u8| {
            REL_UNSOUND.with(|u| u.set(unsound));
            let (mut matches, mut moved, mut bad) = (0usize, 0usize, 0usize);
            trick_starts(311, 6000, 2, |pos, held, want, rng| {
                let a = want - 40 + rng.below_usize(80) as i32;
                for (a, b) in [(i32::MIN / 2, i32::MAX / 2), (a, a + 1 + rng.below_usize(30) as i32)] {
                    let (v, rel) = last_two_rel(pos, pos.to_move, pos.defender_points, &held.once, &held.twice, a, b);
                    assert_eq!(v, last_two(pos, held, a, b), "{pos:?}");
                    for _ in 0..4 {
                        let Some((q, m)) = matching(pos, &rel, rng) else { continue };
                        let w = minimax(&q);
                        let ok = if v <= a { w <= v } else if v >= b { w >= v } else { w == v };
                        assert!(ok || unsound != 0, "{v} in ({a}, {b}) but {w} for the match {q:?} of {pos:?} (relevance {rel:?})");
                        (matches, moved, bad) = (matches + 1, moved + m as usize, bad + !ok as usize);
                    }
                }
            });
            REL_UNSOUND.with(|u| u.set(0));
            (matches, moved, bad)
        };
        let (matches, moved, _) = run(0);
        eprintln!("last two tricks' relevance: {matches} matches, {moved} with small kinds dealt again");
        assert!(matches > 20000 && moved > 10000, "{matches} {moved}");
        for unsound in [1, 2] {
            let (matches, _, bad) = run(unsound);
            eprintln!("REL_UNSOUND={unsound}: {bad} of {matches} matches differ");
            assert!(bad > 0, "REL_UNSOUND={unsound} was not caught");
        }
    }

    /// Partition search's relevance (PARTITION.md: T1, C1, N1, G1 and every exit): every
    /// position matching a trick start on the relevance its search returns (see [`matching`])
    /// has a value on the same side of the window, equal inside it. Random trick starts of
    /// three to six cards a hand (six: enhanced transposition cutoffs), every profile, a fresh
    /// solver each, the full window and a
    /// narrow one near the value (as MTD(f) searches); each match valued by the solver with the
    /// table of whole trick starts (twinned with minimax and plain alpha-beta). The check's own
    /// check: T1 dropped, or each winner made small (`REL_UNSOUND` 1 and 2), is caught.
    #[test]
    fn partition_relevance_holds_for_every_match() {
        let run = |unsound: u8, n: usize| {
            let mut rng = Rng::new(707 + unsound as u64);
            let (mut starts, mut matches, mut moved, mut bad) = (0usize, 0usize, 0usize, 0usize);
            for i in 0..n {
                let (profile, h, pre) = (Profile::ALL[i % 3], 3 + i % 4, 4 * (i / 3 % 2));
                let pos = position_from(&mut rng, profile, h + pre / 4, pre, i % 5 == 4);
                if pos.trick.plays != 0 || size(&pos.hands[pos.to_move as usize]) != h {
                    continue;
                }
                let exact = |q: &Position| Solver::new(u64::MAX, q.ctx()).value(q).ok().expect("solved");
                let want = exact(&pos);
                let g = want - 10 + rng.below_usize(21) as i32;
                for (a, b) in [(i32::MIN / 2, i32::MAX / 2), (g - 1, g + 1)] {
                    REL_UNSOUND.with(|u| u.set(unsound));
                    let mut s = Solver::new(u64::MAX, pos.ctx()).partitioned();
                    let (v, rel) = s.node::<Rel>(&mut pos.clone(), &Held::of(&pos), a, b, 0).ok().expect("solved");
                    REL_UNSOUND.with(|u| u.set(0));
                    if unsound == 0 {
                        fail_soft(v, (a, b), want, &pos);
                    }
                    starts += 1;
                    for _ in 0..3 {
                        let Some((q, m)) = matching(&pos, &rel, &mut rng) else { continue };
                        let w = exact(&q);
                        let ok = if v <= a { w <= v } else if v >= b { w >= v } else { w == v };
                        assert!(ok || unsound != 0, "{v} in ({a}, {b}) but {w} for the match {q:?} of {pos:?} (relevance {rel:?})");
                        (matches, moved, bad) = (matches + 1, moved + m as usize, bad + !ok as usize);
                    }
                }
            }
            (starts, matches, moved, bad)
        };
        let cuts = ETC_CUTS.with(|c| c.get());
        let (starts, matches, moved, _) = run(0, 1200);
        let cuts = ETC_CUTS.with(|c| c.get()) - cuts;
        eprintln!("partition search's relevance: {starts} searches, {matches} matches, {moved} with small kinds dealt again, {cuts} enhanced transposition cutoffs");
        assert!(starts > 600 && moved > 500 && cuts > 50, "{starts} {matches} {moved} {cuts}");
        for unsound in [1, 2] {
            let (_, matches, _, bad) = run(unsound, 400);
            eprintln!("REL_UNSOUND={unsound}: {bad} of {matches} matches differ");
            assert!(bad > 0, "REL_UNSOUND={unsound} was not caught");
        }
    }

    #[test]
    fn last_two_agrees_with_minimax() {
        let (checked, with_pairs) = trick_starts(211, 12000, 2, |pos, held, want, rng| {
            assert_eq!(last_two(pos, held, i32::MIN, i32::MAX), want, "{pos:?}");
            let a = want - 40 + rng.below_usize(80) as i32;
            let b = a + 1 + rng.below_usize(30) as i32;
            fail_soft(last_two(pos, held, a, b), (a, b), want, pos);
        });
        eprintln!("last two tricks: {checked} positions, {with_pairs} with a pair");
        assert!(checked > 8000 && with_pairs > 2000, "{checked} {with_pairs}");
    }

    /// Trick starts with `cards` cards a hand from `n` tries seeded `seed` (every profile; a
    /// trick started at `cards` or played from `cards + 1` with earlier points), each with its
    /// holdings and minimax's value given to `f`; returns how many, and how many hold a pair.
    fn trick_starts(seed: u64, n: usize, cards: usize, mut f: impl FnMut(&Position, &Held, i32, &mut Rng)) -> (usize, usize) {
        let mut rng = Rng::new(seed);
        let (mut checked, mut with_pairs) = (0, 0);
        for i in 0..n {
            let profile = Profile::ALL[i % Profile::ALL.len()];
            let (h, pre) = if i % 2 == 0 { (cards, 0) } else { (cards + 1, 4) };
            let pos = position_from(&mut rng, profile, h, pre, i % 3 == 0);
            if pos.trick.plays != 0 || size(&pos.hands[pos.to_move as usize]) != cards {
                continue;
            }
            let held = Held::of(&pos);
            let want = minimax(&pos);
            f(&pos, &held, want, &mut rng);
            checked += 1;
            with_pairs += (held.twice != [0; 4]) as usize;
        }
        (checked, with_pairs)
    }

    /// `v`, a search's result in the window `(a, b)`, is fail-soft for the exact value `want`:
    /// an upper bound at or below `a`, a lower bound at or above `b`, else `want` itself.
    fn fail_soft(v: i32, (a, b): (i32, i32), want: i32, pos: &Position) {
        if v <= a {
            assert!(want <= v, "{a} {b} {v} {want} {pos:?}");
        } else if v >= b {
            assert!(want >= v, "{a} {b} {v} {want} {pos:?}");
        } else {
            assert_eq!(v, want, "{pos:?}");
        }
    }

    /// The trick starts with three cards a hand, searched by [`Solver::three`] (a single
    /// lead's trick played out by [`Solver::follow`]), agree with minimax over the engine's
    /// plays, for full and narrow windows (fail-soft), pairs and triples held and led
    /// included, on every profile; and the best play named is worth the value.
    #[test]
    fn three_cards_agree_with_minimax() {
        let (checked, with_pairs) = trick_starts(313, 6000, 3, |pos, held, want, rng| {
            let pos = *pos;
            let mut s = Solver::new(u64::MAX, pos.ctx());
            s.plies.resize_with(1, || Some(Box::default()));
            let (v, best, ()) = s.three(&pos, held, u16::MAX, i32::MIN / 2, i32::MAX / 2, 0).ok().expect("no budget");
            assert_eq!(v, want, "{pos:?}");
            let plays = s.plies[0].as_ref().expect("kept").moves.clone();
            assert_eq!(minimax(&child(&pos, pos.ctx(), &plays[best as usize], NONE)), want, "{pos:?}");
            for _ in 0..3 {
                let a = want - 40 + rng.below_usize(80) as i32;
                let b = a + 1 + rng.below_usize(30) as i32;
                let first = rng.below_usize(plays.len() + 1) as u16;
                let (v, _, ()) = s.three(&pos, held, first, a, b, 0).ok().expect("no budget");
                fail_soft(v, (a, b), want, &pos);
            }
        });
        eprintln!("three cards a hand: {checked} positions, {with_pairs} with a pair");
        assert!(checked > 3000 && with_pairs > 1000, "{checked} {with_pairs}");
    }

    /// Last-two-tricks positions of one deal (trump, level, profile, banker) and one
    /// [`two_shape`] have one value past the defenders' points so far, minimax's, though their
    /// cards differ: plain suits, trumps, level cards of equal strength (R2.6), points and
    /// pairs mixed.
    /// [`Solver::two_rel`] (the last two tricks' value and relevance, kept by cards and by
    /// shape) on 150,000 deals among ten kinds, a solver per (profile, level, trump, banker):
    /// every value is [`last_two_of`]'s, and every position matching the relevance ([`matching`])
    /// has the same value, the relevance read back from another position's shape included.
    #[test]
    fn two_rel_holds_for_every_match() {
        let (by_shape, matches, shape_matches, moved, bad) = two_rel_matches(0);
        eprintln!("two_rel: {by_shape} relevances read back by shape; {matches} matches ({shape_matches} of a relevance read by shape), {moved} with small kinds dealt again");
        assert!(bad == 0 && by_shape > 1000 && shape_matches > 1000 && moved > 10000, "{by_shape} {shape_matches} {moved}");
        // the check's own check: no T1, the winner small, the shape's relevance dropped
        for unsound in [1, 2, 3] {
            let (_, matches, shape_matches, _, bad) = two_rel_matches(unsound);
            eprintln!("REL_UNSOUND={unsound}: {bad} of {matches} matches differ ({shape_matches} by shape)");
            assert!(bad > 0, "REL_UNSOUND={unsound} was not caught");
        }
    }

    /// The `i`-th two-card deal of the last-two twins: two plain suits and another (the trumps
    /// or a third plain suit), 6 and 7 of equal points, level cards of equal strength, a joker;
    /// the profile, level, trump and banker cycling with `i`.
    fn two_card_deal(rng: &mut Rng, i: usize) -> (Position, (usize, u8, u8, u8)) {
        let p = i % Profile::ALL.len();
        let (level, trump, banker) = (if i / 3 % 2 == 0 { 7 } else { 10 }, 3 * (i / 6 % 2) as u8, (i / 12 % 2) as u8);
        let kinds: Vec<usize> = [(1, 6), (1, 7), (1, 10), (2, 6), (2, 7), (2, 10), (0, 6), (0, 7), (0, 10)].into_iter().map(|(s, r)| Card::new(s, r).id()).chain([53]).collect();
        let hands = deal_among(rng, &kinds, 2);
        (Game::from_hands(hands, level, trump, banker, Profile::ALL[p]).expect("a valid deal").pos, (p, level, trump, banker))
    }

    /// [`two_rel_holds_for_every_match`]'s deals with `REL_UNSOUND` = `unsound`: relevances
    /// read by shape, matches (of them by shape), matches with small kinds dealt again, and
    /// matches whose value differs.
    fn two_rel_matches(unsound: u8) -> (usize, usize, usize, usize, usize) {
        REL_UNSOUND.with(|u| u.set(unsound));
        let mut rng = Rng::new(23);
        let mut solvers: HashMap<(usize, u8, u8, u8), Solver> = HashMap::new();
        let (mut by_shape, mut matches, mut shape_matches, mut moved, mut bad) = (0usize, 0usize, 0usize, 0usize, 0usize);
        for i in 0..150000 {
            let (pos, (p, level, trump, banker)) = two_card_deal(&mut rng, i);
            let held = Held::of(&pos);
            let s = solvers.entry((p, level, trump, banker)).or_insert_with(|| Solver::new(u64::MAX, pos.ctx()));
            let in_cards = s.last_rel.get_word(exact_cache::key(pos.to_move, &held.once)).is_some();
            let in_shape = s.shapes_rel.get_word(two_shape(pos.ctx(), pos.to_move, &held.once, &held.twice)).is_some();
            let (v, rel) = s.two_rel(&pos, pos.to_move, pos.defender_points, &held.once, &held.twice);
            assert_eq!(v, last_two_of(&pos, pos.to_move, pos.defender_points, &held.once, &held.twice, i32::MIN / 2, i32::MAX / 2), "{pos:?}");
            let shape = !in_cards && in_shape;
            by_shape += shape as usize;
            if i % 10 == 0 || shape {
                for _ in 0..4 {
                    let Some((q, m)) = matching(&pos, &rel, &mut rng) else { continue };
                    let ok = minimax(&q) == v;
                    assert!(ok || unsound != 0, "the match {q:?} of {pos:?} (relevance {rel:?})");
                    (matches, shape_matches, moved, bad) = (matches + 1, shape_matches + shape as usize, moved + m as usize, bad + !ok as usize);
                }
            }
        }
        REL_UNSOUND.with(|u| u.set(0));
        (by_shape, matches, shape_matches, moved, bad)
    }

    #[test]
    fn equal_two_shapes_have_equal_values() {
        let mut rng = Rng::new(17);
        let mut seen: HashMap<(u64, usize, u8, u8, u8), (i32, [Counts; 4])> = HashMap::new();
        let mut renamed = 0;
        for i in 0..150000 {
            let (pos, (p, level, trump, banker)) = two_card_deal(&mut rng, i);
            let held = Held::of(&pos);
            let v = minimax(&pos) - pos.defender_points;
            assert_eq!(v + pos.defender_points, last_two_of(&pos, pos.to_move, pos.defender_points, &held.once, &held.twice, i32::MIN / 2, i32::MAX / 2));
            let k = (two_shape(pos.ctx(), pos.to_move, &held.once, &held.twice), p, level, trump, banker);
            match seen.get(&k) {
                Some((w, h)) => {
                    assert_eq!(v, *w, "{pos:?} {h:?}");
                    renamed += (*h != pos.hands) as usize;
                }
                None => {
                    seen.insert(k, (v, pos.hands));
                }
            }
        }
        eprintln!("two-card positions of a shape met again with other cards: {renamed}");
        assert!(renamed > 1000, "{renamed}");
    }

    /// The bounds of every node hold the position's value.
    #[test]
    fn bounds_hold_the_value() {
        let mut rng = Rng::new(99);
        let mut tight = 0;
        for i in 0..2000 {
            let profile = Profile::ALL[i % Profile::ALL.len()];
            let pre = rng.below_usize(4);
            let pos = position_from(&mut rng, profile, 1 + i % 3, pre, i % 4 == 3);
            let (lo, hi, _) = bounds(&pos, &Order::of(pos.ctx()), &Held::of(&pos));
            let v = minimax(&pos);
            assert!(lo <= v && v <= hi, "{lo} {v} {hi} {pos:?}");
            let (slo, shi) = static_bounds(&pos);
            assert!(slo <= lo && hi <= shi);
            tight += (hi - lo < shi - slo) as usize;
        }
        assert!(tight > 500, "{tight}");
    }

    /// The bounds hold the value where the two sides' largest combinations differ, so that
    /// the last trick's multiple is capped by a different N on either side (R6.1, R7.3): small
    /// positions against minimax, four cards a hand against plain alpha-beta, from tricks'
    /// starts and mid-trick; the bounds tighten the ones of the larger N on both sides.
    #[test]
    fn bounds_hold_the_value_with_one_side_combined() {
        let mut rng = Rng::new(4242);
        let (mut split, mut tighter) = (0, 0);
        for i in 0..4000 {
            let profile = Profile::ALL[i % Profile::ALL.len()];
            let h = 2 + i % 3;
            let pre = rng.below_usize(4);
            // a narrow deck: pairs and tractors are common
            let pos = position_from(&mut rng, profile, h, pre, false);
            let held = Held::of(&pos);
            let (lo, hi, _) = bounds(&pos, &Order::of(pos.ctx()), &held);
            let v = if h <= 3 { minimax(&pos) } else { reference(&pos, i32::MIN, i32::MAX) };
            assert!(lo <= v && v <= hi, "{lo} {v} {hi} {pos:?}");
            let side = |t: u8| held.widest[t as usize].max(held.widest[t as usize + 2]);
            if side(0) != side(1) {
                split += 1;
                // the same position with every hand's largest combination the larger side's
                let mut both = held;
                both.widest = [side(0).max(side(1)); 4];
                let (lo2, hi2, _) = bounds(&pos, &Order::of(pos.ctx()), &both);
                assert!(lo2 <= lo && hi <= hi2);
                tighter += (lo2 < lo || hi < hi2) as usize;
            }
        }
        eprintln!("sides' combinations differ {split}, bounds tighter {tighter}");
        assert!(tighter > 400, "{tighter}");
    }

    /// The bounds of tricks in progress (a unit lead's decided trick included) hold the
    /// value on larger positions, against plain alpha-beta.
    #[test]
    fn bounds_hold_the_value_mid_trick() {
        let mut rng = Rng::new(101);
        let (mut decided, mut decided_units) = (0, 0);
        for i in 0..1500 {
            let profile = Profile::ALL[i % Profile::ALL.len()];
            let pre = 1 + rng.below_usize(3) + 4 * (i % 2);
            let pos = position_from(&mut rng, profile, 3 + i % 2, pre, i % 3 != 0);
            let (lo, hi, _) = bounds(&pos, &Order::of(pos.ctx()), &Held::of(&pos));
            let v = reference(&pos, i32::MIN, i32::MAX);
            assert!(lo <= v && v <= hi, "{lo} {v} {hi} {pos:?}");
            let d = trick_decided(&pos, &Order::of(pos.ctx()), &Held::of(&pos)).is_some();
            decided += d as usize;
            decided_units += (d && pos.lead().is_some_and(|l| l.m >= 2)) as usize;
        }
        eprintln!("decided {decided}, by units of two or more {decided_units}");
        assert!(decided > 100, "{decided}");
        assert!(decided_units > 30, "{decided_units}");
    }

    /// The sides that may win the trick in progress, over every way to finish it.
    fn trick_winners(pos: &Position, out: &mut [bool; 2]) {
        for c in legal(pos).expect("plays") {
            let mut q = *pos;
            q.play_unchecked(&c);
            if q.trick.plays == 0 {
                out[q.is_defender(q.to_move) as usize] = true;
            } else {
                trick_winners(&q, out);
            }
        }
    }

    /// A decided trick is won by the side named whatever is still played to it, over every
    /// way to finish it (units of one to four cards led; narrow decks, so pairs are common).
    #[test]
    fn decided_tricks_go_to_the_side_named() {
        let mut rng = Rng::new(107);
        let mut decided = [0usize; 5];
        for i in 0..20000 {
            let profile = Profile::ALL[i % Profile::ALL.len()];
            let pre = 1 + rng.below_usize(3) + 4 * rng.below_usize(2);
            let pos = position_from(&mut rng, profile, 2 + i % 4, pre, i % 4 == 0);
            if pos.trick.plays == 0 {
                continue;
            }
            if let Some(side) = trick_decided(&pos, &Order::of(pos.ctx()), &Held::of(&pos)) {
                let mut out = [false; 2];
                trick_winners(&pos, &mut out);
                assert!(out[side as usize] && !out[!side as usize], "{pos:?}");
                decided[pos.lead().expect("a lead").m as usize] += 1;
            }
        }
        eprintln!("decided tricks by the lead's multiplicity: {decided:?}");
        assert!(decided[1] > 1000 && decided[2] > 300, "{decided:?}");
    }

    /// `h` cards a hand dealt round the table from `kinds` (at most four copies of a kind).
    fn deal_among(rng: &mut Rng, kinds: &[usize], h: usize) -> [Counts; 4] {
        let mut hands = [[0u8; KINDS]; 4];
        let mut dealt = 0;
        while dealt < 4 * h {
            let k = kinds[rng.below_usize(kinds.len())];
            let seat = dealt % 4;
            if hands.iter().map(|x| x[k]).sum::<u8>() < 4 {
                hands[seat][k] += 1;
                dealt += 1;
            }
        }
        hands
    }

    /// Checks that `pos` (value `v`) has the value of the first position seen with key `k`,
    /// else remembers it; whether the two differed in their hands (a renaming met).
    fn same_value_for_key(seen: &mut HashMap<u128, (i32, [Counts; 4])>, k: u128, v: i32, pos: &Position) -> bool {
        match seen.get(&k) {
            Some((w, hands)) => {
                assert_eq!(v, *w, "{pos:?} {hands:?}");
                *hands != pos.hands
            }
            None => {
                seen.insert(k, (v, pos.hands));
                false
            }
        }
    }

    /// A trick-start key with what the solve keeps fixed beside it (level, trump, banker,
    /// profile): two positions of different solves share it only when they share those.
    fn full_key(pos: &Position) -> u128 {
        let profile = Profile::ALL.iter().position(|p| *p == pos.profile).expect("a profile") as u128;
        trick_start_key(pos, &Order::of(pos.ctx()), &Held::of(pos)) ^ (pos.level as u128) << 100 ^ (pos.trump as u128) << 105 ^ (pos.banker as u128) << 110 ^ profile << 120
    }

    /// Positions with one trick-start key have one value (relative to the points won so far):
    /// the key renames plain-suit ranks only where the rest of the hand is the same game.
    #[test]
    fn equal_trick_start_keys_have_equal_values() {
        let mut rng = Rng::new(5);
        let mut seen: HashMap<u128, (i32, [Counts; 4])> = HashMap::new();
        let mut renamed = 0;
        for i in 0..4000 {
            // hands from hearts 3..9 (a plain suit: trump spades, level 3 or 4) and two trumps
            let profile = Profile::ALL[i % Profile::ALL.len()];
            let level = 3 + (i % 2) as u8;
            let kinds: Vec<usize> = (3..=9u8).filter(|&r| r != level).map(|r| Card::new(1, r).id()).chain([Card::new(0, 14).id(), 53]).collect();
            let h = 1 + i % 2;
            let hands = deal_among(&mut rng, &kinds, h);
            let banker = (i % 4) as u8;
            let pos = Game::from_hands(hands, level, 0, banker, profile).expect("a valid deal").pos;
            let v = minimax(&pos) - pos.defender_points;
            let k = full_key(&pos);
            renamed += same_value_for_key(&mut seen, k, v, &pos) as usize;
        }
        eprintln!("renamed positions met: {renamed}");
        assert!(renamed > 20, "{renamed}");
    }

    /// Positions of many trumps with one trick-start key have one value (relative to the
    /// points won so far): the key renames trumps only where the rest of the hand is the same
    /// game (strength ties, tractor tops, links and the level-3 exception kept).
    #[test]
    fn equal_trick_start_keys_have_equal_values_among_trumps() {
        let mut rng = Rng::new(6);
        let mut seen: HashMap<u128, (i32, [Counts; 4])> = HashMap::new();
        let mut renamed = 0;
        for i in 0..6000 {
            let profile = Profile::ALL[i % Profile::ALL.len()];
            let level = [3u8, 4, 10, 14][i / 3 % 4];
            let trump = (i / 12 % 2) as u8;
            // the trump class's kinds (jokers, levels, twos, the trump suit) and one plain 9
            let ctx = Context::new(level, trump, profile).expect("a context");
            let all: Vec<usize> = (0..KINDS).filter(|&k| ctx.class[k] == TRUMP).collect();
            let mut kinds: Vec<usize> = (0..5 + i % 4).map(|_| all[rng.below_usize(all.len())]).collect();
            kinds.push(Card::new(3, 9).id());
            let h = 1 + i % 2;
            let hands = deal_among(&mut rng, &kinds, h);
            let banker = (i % 4) as u8;
            let pos = Game::from_hands(hands, level, trump, banker, profile).expect("a valid deal").pos;
            let v = minimax(&pos) - pos.defender_points;
            let k = full_key(&pos);
            renamed += same_value_for_key(&mut seen, k, v, &pos) as usize;
        }
        eprintln!("renamed trump positions met: {renamed}");
        assert!(renamed > 50, "{renamed}");
    }

    /// Positions of four cards a hand, where tractors can be held, with one trick-start key have
    /// one value (relative to the points won so far, plain alpha-beta): the key leaves out the
    /// links no hand holds two or more of both ends of, and positions that differ only there
    /// (their keys with every link kept differ) are met and agree.
    #[test]
    fn equal_trick_start_keys_have_equal_values_with_unusable_links() {
        let mut rng = Rng::new(7);
        let mut seen: HashMap<u128, (i32, [Counts; 4])> = HashMap::new();
        let mut full: HashMap<u128, u128> = HashMap::new();
        let (mut renamed, mut by_links) = (0, 0);
        for i in 0..6000 {
            // one of 40 deals of the 16 cards of four kinds (three hearts and one trump, or three
            // trumps and one heart), the three drawn with gaps or without: the same deal met with
            // and without links
            let t = i % 40;
            let profile = Profile::ALL[t % Profile::ALL.len()];
            let (level, trump) = ([3u8, 4, 10][t % 3], 0u8);
            let ctx = Context::new(level, trump, profile).expect("a context");
            let template = deal_among(&mut Rng::new(1000 + t as u64), &[0, 1, 2, 3], 4);
            // the banker leads (R6.3): a hand of two pairs of hearts where the deal has one
            let pairs = |s: usize| template[s][..3].iter().filter(|&&n| n >= 2).count();
            let banker = (0..4).find(|&s| pairs(s) >= 2).unwrap_or(t % 4) as u8;
            let hearts: Vec<u8> = (3..=14u8).filter(|&r| r != level).collect();
            let mut ranks: Vec<u8> = Vec::new();
            while ranks.len() < 3 {
                let r = hearts[rng.below_usize(hearts.len())];
                if !ranks.contains(&r) {
                    ranks.push(r);
                }
            }
            ranks.sort_unstable();
            let trumps: Vec<usize> = (0..KINDS).filter(|&k| ctx.class[k] == TRUMP).collect();
            let mut kinds = [Card::new(1, ranks[0]).id(), Card::new(1, ranks[1]).id(), Card::new(1, ranks[2]).id(), trumps[t % trumps.len()]];
            if t % 2 == 1 {
                // three trumps in class order, often neighbours (the jokers, the trump suit's run)
                let at = rng.below_usize(trumps.len() - 2);
                let mut three = [trumps[at], trumps[at + 1], trumps[at + 2]];
                for x in three.iter_mut() {
                    if rng.below_usize(3) == 0 {
                        *x = trumps[rng.below_usize(trumps.len())];
                    }
                }
                if three[0] != three[1] && three[1] != three[2] && three[0] != three[2] {
                    kinds = [three[0], three[1], three[2], Card::new(1, ranks[0]).id()];
                }
            }
            let hands: [Counts; 4] = std::array::from_fn(|s| {
                let mut h = [0u8; KINDS];
                for (j, &k) in kinds.iter().enumerate() {
                    h[k] = template[s][j];
                }
                h
            });
            let pos = Game::from_hands(hands, level, trump, banker, profile).expect("a valid deal").pos;
            let v = reference(&pos, i32::MIN, i32::MAX) - pos.defender_points;
            let k = full_key(&pos);
            let order = Order::of(pos.ctx());
            let all_links = (0..KINDS).filter(|&k| ctx.up[k] != NONE).fold(0u64, |m, k| m | 1 << k);
            let kept = trick_start_key_with_links(&pos, &order, &Held::of(&pos), all_links);
            if same_value_for_key(&mut seen, k, v, &pos) {
                renamed += 1;
                by_links += (full[&k] != kept) as usize;
            } else {
                full.entry(k).or_insert(kept);
            }
        }
        eprintln!("renamed positions met: {renamed}, {by_links} of them by links left out");
        assert!(by_links > 20, "{by_links}");
    }

    /// The hands' best points by bytes are those of each hand's n best cards counted one hand
    /// at a time, for every count a hand of the decks can hold.
    #[test]
    fn best_points_by_bytes_are_the_hand_by_hand_sums() {
        let mut rng = Rng::new(9);
        for i in 0..200_000 {
            let most = if i % 2 == 0 { 4 } else { 33 };
            let tens: [u8; 4] = std::array::from_fn(|_| rng.below_usize(most) as u8);
            let fives: [u8; 4] = std::array::from_fn(|_| rng.below_usize(most.min(17)) as u8);
            let n = rng.below_usize(if i % 3 == 0 { 128 } else { 6 }) as i32;
            let want: i32 = (0..4).map(|h| {
                let ten = (tens[h] as i32).min(n);
                10 * ten + 5 * (fives[h] as i32).min(n - ten)
            }).sum();
            assert_eq!(best_points(tens, fives, n), want, "{tens:?} {fives:?} {n}");
        }
    }

    /// Plays ranked as one integer sort as the pairs (falling score, index) do, scores of
    /// either sign and at the ends of the range included.
    #[test]
    fn ranked_plays_sort_as_the_pairs() {
        let mut rng = Rng::new(5);
        for n in 1..40usize {
            let edges = [i32::MIN, i32::MIN + 1, -1, 0, 1, i32::MAX - 1, i32::MAX];
            let scores: Vec<i32> = (0..n).map(|i| if i % 5 == 0 { edges[rng.below_usize(edges.len())] } else { rng.below_usize(4001) as i32 - 2000 }).collect();
            let mut pairs: Vec<(std::cmp::Reverse<i32>, u16)> = scores.iter().enumerate().map(|(i, &v)| (std::cmp::Reverse(v), i as u16)).collect();
            pairs.sort_unstable();
            let mut ranks: Vec<u64> = scores.iter().enumerate().map(|(i, &v)| ranked(v, i as u16)).collect();
            ranks.sort_unstable();
            assert_eq!(pairs.iter().map(|p| p.1).collect::<Vec<_>>(), ranks.iter().map(|&r| r as u16).collect::<Vec<_>>());
        }
    }

    /// Whether the next seat of a single's trick may beat the best so far, read from masks
    /// ([`may_beat`]), agrees with its plain twin card by card ([`next_cannot_beat`]) after
    /// every legal single follow of the trick's second and third seats; both answers occur.
    #[test]
    fn may_beat_agrees_with_its_plain_twin() {
        let mut rng = Rng::new(31);
        let (mut sure, mut not) = (0, 0);
        for i in 0..6000 {
            let profile = Profile::ALL[i % Profile::ALL.len()];
            let pos = position_from(&mut rng, profile, 2 + i % 7, 1 + i % 2, i % 3 == 0);
            let Some(lead) = pos.trick.lead.filter(|l| l.size() == 1 && (1..=2).contains(&pos.trick.plays)) else { continue };
            let order = Order::of(pos.ctx());
            for c in legal(&pos).expect("the follows") {
                let mut q = pos;
                q.play_unchecked(&c);
                let plain = next_cannot_beat(&q);
                assert_eq!(plain, !may_beat(&order, Held::of(&q).once[q.to_move as usize], lead.class, q.trick.best_key), "{q:?}");
                if plain { sure += 1 } else { not += 1 }
            }
        }
        assert!(sure > 1000 && not > 1000, "{sure} {not}");
    }

    /// The groups of interchangeable kinds, read from each class's strength order made once,
    /// are those found kind by kind.
    #[test]
    fn interchangeable_agrees_with_its_plain_twin() {
        let mut rng = Rng::new(23);
        let mut grouped = 0;
        for i in 0..5000 {
            let profile = Profile::ALL[i % Profile::ALL.len()];
            let pre = rng.below_usize(4);
            let pos = position_from(&mut rng, profile, 1 + i % 8, pre, i % 3 != 0);
            let (prev, members) = interchangeable(&pos, &Order::of(pos.ctx()), &Held::of(&pos), u64::MAX);
            assert_eq!(prev, interchangeable_plain(&pos), "{pos:?}");
            assert_eq!(members, (0..KINDS).filter(|&k| prev[k] != NONE).fold(0u64, |m, k| m | 1 << k));
            grouped += (members != 0) as usize;
        }
        assert!(grouped > 500, "{grouped}");
    }

    /// A play the search leaves out (interchangeable cards, leads and follows) has the value of
    /// the play it stands behind: the same numbers of each group's cards, its strongest.
    #[test]
    fn merged_plays_have_equal_values() {
        let mut rng = Rng::new(17);
        let (mut merged, mut swapped) = (0, 0);
        for i in 0..4000 {
            let profile = Profile::ALL[i % Profile::ALL.len()];
            let pre = rng.below_usize(4);
            // from the whole deck, then among the two ties (the other suits' L and 2s)
            let pos = if i < 2500 { position_from(&mut rng, profile, 1 + i % 3, pre, true) } else { tie_position(&mut rng, profile, 1 + i % 3, pre) };
            let (prev, _) = interchangeable(&pos, &Order::of(pos.ctx()), &Held::of(&pos), u64::MAX);
            let mut ply = Ply::default();
            assert!(search_plays(&pos, &Order::of(pos.ctx()), &Held::of(&pos), &mut Follows::default(), &mut ply));
            let kept: Vec<Counts> = (0..ply.len()).map(|i| ply.cards(i)).collect();
            let singles = ply.singles;
            // each play's kind when it is one card
            for (c, &k) in kept.iter().zip(&singles) {
                let one = (size(c) == 1).then(|| c.iter().position(|&n| n == 1).expect("a card") as u8);
                assert_eq!(one.unwrap_or(NONE), k);
            }
            assert_eq!(kept.len(), singles.len());
            for c in legal(&pos).expect("plays") {
                if kept.contains(&c) {
                    continue;
                }
                // each group's cards moved to its strongest kinds
                let mut canon = c;
                for k in 0..KINDS {
                    if prev[k] == NONE && prev.contains(&(k as u8)) {
                        // k heads a group: gather its members, strongest first
                        let mut group = vec![k];
                        loop {
                            let last = *group.last().expect("a member");
                            match (0..KINDS).find(|&x| prev[x] == last as u8) {
                                Some(x) => group.push(x),
                                None => break,
                            }
                        }
                        let chosen: usize = group.iter().map(|&x| c[x] as usize).sum();
                        for (j, &x) in group.iter().enumerate() {
                            canon[x] = (j < chosen) as u8;
                        }
                    }
                }
                // then each swap group's counts in non-increasing order by kind
                let mut grouped = 0u64;
                for k in 0..KINDS {
                    if prev[k] != NONE {
                        grouped |= 1 << k | 1 << prev[k];
                    }
                }
                for group in swap_groups_plain(&pos, grouped) {
                    let mut n: Vec<u8> = group.iter().map(|&x| canon[x]).collect();
                    n.sort_unstable_by(|a, b| b.cmp(a));
                    for (&x, &m) in group.iter().zip(&n) {
                        canon[x] = m;
                    }
                    swapped += (n.iter().zip(&group).any(|(&m, &x)| c[x] != m)) as usize;
                }
                assert!(kept.contains(&canon), "{c:?} {pos:?}");
                let value = |p: &Counts| {
                    let mut q = pos;
                    q.play_unchecked(p);
                    minimax(&q)
                };
                assert_eq!(value(&c), value(&canon), "{pos:?}");
                merged += 1;
            }
        }
        eprintln!("merged plays checked: {merged}, {swapped} by a swap group");
        assert!(merged > 50, "{merged}");
        assert!(swapped > 20, "{swapped}");
    }

    /// A random position dealt among the kinds of the two ties (the other suits' L and 2s) and
    /// three kinds of the deck, `h` cards a hand, then `pre` random plays.
    fn tie_position(rng: &mut Rng, profile: Profile, h: usize, pre: usize) -> Position {
        let level = 3 + rng.below_usize(12) as u8;
        let trump = rng.below_usize(4) as u8;
        let mut kinds: Vec<usize> = (0..4u8).filter(|&s| s != trump).flat_map(|s| [Card::new(s, level).id(), Card::new(s, 2).id()]).collect();
        kinds.extend((0..3).map(|_| rng.below_usize(KINDS)));
        let hands = deal_among(rng, &kinds, h);
        let mut pos = Game::from_hands(hands, level, trump, rng.below_usize(4) as u8, profile).expect("a valid deal").pos;
        for _ in 0..pre {
            if pos.phase != Phase::Play || crate::rules::card::size(&pos.hands[pos.to_move as usize]) == 1 {
                break;
            }
            let mut set = ActionSet::of(&pos);
            let Some(Action::Play(c)) = set.sample(rng) else { unreachable!("plays") };
            pos.play_unchecked(&c);
        }
        pos
    }

    /// [`swaps`]' groups written directly (its twin in the tests): the kinds the mover holds,
    /// but those of `grouped`, of one class and strength with no link (R2.3, R3.3), equal
    /// points (R7.1) and the same copies in every hand; each group in kind order.
    fn swap_groups_plain(pos: &Position, grouped: u64) -> Vec<Vec<usize>> {
        let ctx = pos.ctx();
        let me = pos.to_move as usize;
        let copies = |k: usize| pos.hands.iter().map(|h| h[k]).collect::<Vec<u8>>();
        let mut groups: Vec<Vec<usize>> = Vec::new();
        for k in 0..KINDS {
            let linked = ctx.up[k] != NONE || ctx.down[k] != NONE;
            if pos.hands[me][k] == 0 || grouped >> k & 1 == 1 || linked {
                continue;
            }
            let same = |x: usize| ctx.class[x] == ctx.class[k] && ctx.strength[x] == ctx.strength[k] && KIND_POINTS[x] == KIND_POINTS[k] && copies(x) == copies(k);
            match groups.iter_mut().find(|g| same(g[0])) {
                Some(g) => g.push(k),
                None => groups.push(vec![k]),
            }
        }
        groups.retain(|g| g.len() > 1);
        groups
    }

    /// The kinds [`swaps`] may rename are the other suits' L and their 2s (R2.3, R3.3).
    #[test]
    fn swappable_kinds_are_the_other_suits_l_and_2s() {
        for profile in Profile::ALL {
            for level in 3..=14u8 {
                for trump in 0..4u8 {
                    let ctx: &'static Context = Box::leak(Box::new(Context::new(level, trump, profile).expect("a context")));
                    let want = (0..4u8).filter(|&s| s != trump).fold(0u64, |m, s| m | 1 << Card::new(s, level).id() | 1 << Card::new(s, 2).id());
                    assert_eq!(Order::of(ctx).swappable, want, "{level} {trump}");
                }
            }
        }
    }

    /// A position and its twin with the kinds of a tie (the other suits' L, their 2s) renamed
    /// among themselves have one trick-start key and one value (plain minimax).
    #[test]
    fn tied_kinds_renamed_have_one_key_and_one_value() {
        let mut rng = Rng::new(99);
        let mut renamed = 0;
        for i in 0..1500 {
            let profile = Profile::ALL[i % Profile::ALL.len()];
            let level = [3u8, 5, 10, 13][i % 4];
            let trump = rng.below_usize(4) as u8;
            let others: Vec<u8> = (0..4u8).filter(|&s| s != trump).collect();
            // the two ties, and three kinds of the deck
            let mut kinds: Vec<usize> = others.iter().flat_map(|&s| [Card::new(s, level).id(), Card::new(s, 2).id()]).collect();
            kinds.extend((0..3).map(|_| rng.below_usize(KINDS)));
            let hands = deal_among(&mut rng, &kinds, 1 + i % 3);
            // each tie's kinds permuted
            let mut twin = hands;
            for rank in [level, 2] {
                let mut to: Vec<u8> = others.clone();
                for j in (1..to.len()).rev() {
                    to.swap(j, rng.below_usize(j + 1));
                }
                for (h, t) in hands.iter().zip(twin.iter_mut()) {
                    for (&a, &b) in others.iter().zip(&to) {
                        t[Card::new(b, rank).id()] = h[Card::new(a, rank).id()];
                    }
                }
            }
            let banker = (i % 4) as u8;
            let pos = Game::from_hands(hands, level, trump, banker, profile).expect("a valid deal").pos;
            let q = Game::from_hands(twin, level, trump, banker, profile).expect("a valid deal").pos;
            assert_eq!(full_key(&pos), full_key(&q), "{pos:?} {q:?}");
            assert_eq!(minimax(&pos), minimax(&q), "{pos:?} {q:?}");
            renamed += (twin != hands) as usize;
        }
        assert!(renamed > 1000, "{renamed}");
    }

    /// Two positions whose plain suits split the same run of units at another place (eight
    /// kinds and four against four and eight) have different keys: a suit of four kinds fills
    /// its key word as a suit of eight does, so each suit's last word is marked (without the
    /// mark the two keys were equal, and the values here differ).
    #[test]
    fn suits_split_at_another_place_have_different_keys() {
        // (suit, rank, seat): u1..u4 pointless to seats 0..3, u5..u8 pointless to seats 1, 2,
        // 3, 0, then v1..v4 (worth 0, 0, 10, 10) to seats 0..3
        let deal = |cards: &[(u8, u8, usize)]| {
            let mut hands = [[0u8; KINDS]; 4];
            for &(suit, rank, seat) in cards {
                hands[seat][Card::new(suit, rank).id()] += 1;
            }
            hands
        };
        let one = deal(&[(1, 3, 0), (1, 4, 1), (1, 6, 2), (1, 7, 3), (1, 8, 1), (1, 9, 2), (1, 11, 3), (1, 12, 0), (2, 3, 0), (2, 4, 1), (2, 10, 2), (2, 13, 3)]);
        let two = deal(&[(1, 3, 0), (1, 4, 1), (1, 6, 2), (1, 7, 3), (2, 3, 1), (2, 4, 2), (2, 6, 3), (2, 7, 0), (2, 8, 0), (2, 9, 1), (2, 10, 2), (2, 13, 3)]);
        let mut differ = 0;
        for profile in Profile::ALL {
            for banker in 0..4u8 {
                let p = Game::from_hands(one, 14, 0, banker, profile).expect("a valid deal").pos;
                let q = Game::from_hands(two, 14, 0, banker, profile).expect("a valid deal").pos;
                assert_ne!(full_key(&p), full_key(&q));
                differ += (minimax(&p) - p.defender_points != minimax(&q) - q.defender_points) as usize;
            }
        }
        assert!(differ > 0, "the two positions are worth the same in every profile");
    }

    /// The root's plays are solved in another order than they are listed: the list is the
    /// engine's ([`plays`]), and the best play is the earliest listed of the best value.
    #[test]
    fn plays_are_listed_in_the_engines_order_with_the_earliest_best() {
        let mut rng = Rng::new(77);
        for i in 0..300 {
            let profile = Profile::ALL[i % Profile::ALL.len()];
            let pre = rng.below_usize(3);
            let pos = position_from(&mut rng, profile, 2 + i % 3, pre, i % 2 == 0);
            let s = solve(&pos, u64::MAX).expect("solved");
            let listed: Vec<Counts> = s.plays.iter().map(|v| v.play).collect();
            assert_eq!(Some(listed), plays(&pos));
            let max = pos.is_defender(pos.to_move);
            let value = if max { s.plays.iter().map(|v| v.lower).max() } else { s.plays.iter().map(|v| v.lower).min() };
            assert_eq!(Some(s.lower), value);
            assert_eq!(Some(s.best), s.plays.iter().find(|v| Some(v.lower) == value).map(|v| v.play));
        }
    }
}
