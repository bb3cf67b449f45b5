//! Who was asked while dealing (`InfoSet::asked`, D7) as evidence for a dealt world.
//!
//! In the default deal mode a receiver decides only when it can show (R8.1): before anyone has
//! shown, when it holds a level card; after a showing of k, when it holds more than k of one
//! suit's level card (the declarer: of its own suit). So the sequence of who was asked reads
//! only the level cards' places and the showings, both of which step 3 of the sampler decides
//! ([`super::timing::level_plan`]). Two uses:
//! - the current attempt: each other seat's [`Chain`] weighs the proposed hands by the share of
//!   level-card placements that ask it as the source did and draws one of them exactly
//!   (where the chains would be too large, a uniform plan is drawn and [`Turns::fits`] rejects
//!   it if it asks other seats); the replay checks the whole sequence again, the final round
//!   R8.3 included;
//! - earlier attempts (R8.5): nobody showed, so each other seat was asked from its first level
//!   card on, and once more in the final round: the count of its entries gives the place of its
//!   first level card exactly. Those decks are drawn from their exact law given that (the
//!   places before it hold other cards, the place itself a level card, the rest uniform).

use std::sync::Arc;

use crate::game::deal::positions;
use crate::game::hand::{could_show, NOBODY};
use crate::infoset::info::InfoSet;
use crate::rules::card::{Card, Counts, DECK, SJ};
use crate::util::bignum::{binomial_low, Big};
use crate::util::rng::Rng;

use super::chain_cache::{kept_or_built, Kept};
use super::multisets::Asks;
use super::levels::{pack, Envelopes, PrefixMemo, ENVELOPE};
use super::multisets;
use super::timing::{place_uniform, small_joker_timed, LevelPlan};
use super::holders::Holder;

/// The turn order's evidence, read once per info set.
#[derive(Clone, Debug)]
pub(super) struct Turns {
    /// Current attempt: whether the receiver of the card at deck position t was asked, for
    /// t + 1 < DECK (the last card's receiver shares its time with the final round, left to the
    /// replay).
    asked_at: Vec<bool>,
    /// Current attempt's showings in time order: (cards dealt, seat, count, run index).
    showings: Vec<(u8, u8, u8, usize)>,
    /// Earlier attempts: for each other seat, the index among its deal positions of its first
    /// level card (`None`: it had none).
    first_level: Vec<[Option<usize>; 4]>,
    /// Per seat, its [`Chain`] (the seat's own: none); built at the first draw, `Some(None)`
    /// where they would be too large (then plans are drawn uniformly and `fits` rejects).
    chains: Option<Option<Vec<Option<Arc<Chain>>>>>,
}

impl Turns {
    pub(super) fn new(info: &InfoSet) -> Turns {
        let attempts = info.first_seats.len();
        let current = (attempts - 1) as u8;
        let mut asked_at = vec![false; DECK];
        let mut entries = vec![[0usize; 4]; attempts];
        // (entries a game cannot make, from a hand-built info set, are skipped here: the
        // replay then finds no world that asks as they say)
        for &(attempt, dealt, seat) in &info.asked {
            if attempt == current && (1..DECK).contains(&(dealt as usize)) {
                asked_at[dealt as usize - 1] = true;
            }
            if let Some(e) = entries.get_mut(attempt as usize).and_then(|e| e.get_mut(seat as usize)) {
                *e += 1;
            }
        }
        let mut showings: Vec<(u8, u8, u8, usize)> = info
            .runs
            .iter()
            .enumerate()
            .filter(|(_, r)| r.attempt == current)
            .flat_map(|(ri, r)| r.showings.iter().map(move |&(t, k)| (t, r.seat, k, ri)))
            .collect();
        showings.sort_by_key(|s| s.0); // stable: one seat shows at a time before the final round
        let per_seat = DECK / 4;
        let first_level = entries[..attempts - 1]
            .iter()
            .map(|e| {
                // asked at its j-th place (0-based) and every later one, and once in R8.3
                std::array::from_fn(|q| (e[q] > 0).then(|| (per_seat + 1).saturating_sub(e[q])))
            })
            .collect();
        Turns { asked_at, showings, first_level, chains: None }
    }

    /// Builds the chains once (the first world's cost), or takes them from those kept by
    /// this thread for the same public evidence (`chain_cache.rs`).
    pub(super) fn prepare(&mut self, info: &InfoSet) {
        if self.chains.is_none() {
            let mut budget = MAX_ENTRIES;
            let chains: Option<Vec<Option<Arc<Chain>>>> = (0..4u8)
                .map(|q| {
                    if q == info.seat {
                        return Some(None);
                    }
                    kept_or_built(&KEPT_CHAINS, ChainKey::of(info, self, q), &mut budget, |b| Chain::new(info, self, q, b).map(Arc::new)).map(Some)
                })
                .collect();
            self.chains = Some(chains);
        }
    }

    /// Whether [`Turns::plan`] draws plans (else plans are drawn uniformly and checked by
    /// [`Turns::fits`]).
    pub(super) fn conditions(&self) -> bool {
        matches!(self.chains, Some(Some(_)))
    }

    /// A seat's envelopes by its level counts (held and played, packed): its share of fitting
    /// placements over the best share, rounded up to a multiple of 1 / `ENVELOPE`, in those
    /// parts (0: no placement fits).
    pub(super) fn envelopes(&self, seat: u8) -> &[u32] {
        &self.chains()[seat as usize].as_ref().expect("a chain for every other seat").envelopes[..]
    }

    /// [`Turns::envelopes`], shared: what a level table keeps to weigh its paths again when
    /// it draws.
    pub(super) fn envelope_table(&self, seat: u8) -> Envelopes {
        self.chains()[seat as usize].as_ref().expect("a chain for every other seat").envelopes.clone()
    }

    /// The level counts a seat's chain accepts, packed.
    pub(super) fn valid(&self, seat: u8) -> &[u16] {
        &self.chains()[seat as usize].as_ref().expect("a chain for every other seat").valid
    }

    /// A seat's kept prefix tables of its valid counts (`levels.rs`).
    pub(super) fn prefix_memo(&self, seat: u8) -> &PrefixMemo {
        &self.chains()[seat as usize].as_ref().expect("a chain for every other seat").prefixes
    }

    /// The memory the chains' layers hold, in bytes (0 before they are built).
    pub(super) fn bytes(&self) -> usize {
        let layer = |l: &Layer| l.keys.len() * 4 + l.counts.len() * 16 + (l.from.len() + l.preds.len()) * 4;
        let chain = |c: &Arc<Chain>| {
            let symmetric = c.symmetric.as_ref().map_or(0, |y| y.layers.len() * 16);
            symmetric + c.programmes.iter().flatten().map(layer).sum::<usize>()
        };
        self.chains.iter().flatten().flatten().flatten().map(chain).sum()
    }

    fn chains(&self) -> &[Option<Arc<Chain>>] {
        self.chains.as_ref().and_then(|c| c.as_ref()).expect("prepared, with chains")
    }

    /// Accepts the other seats' level cards of a proposal in proportion to the share of
    /// their placements that fit who was asked and their showings (each seat's chain):
    /// `None`, rejected. Only the counts are read, so this runs as soon as the level kinds
    /// are drawn, and the placements ([`Turns::place`]) once the whole proposal has passed.
    /// With `scaled` the counts came from a level table, drawn already in proportion to the
    /// seats' envelopes: each is accepted with probability its share over its envelope.
    pub(super) fn accept(&self, info: &InfoSet, holders: &[Holder], alloc: &[Counts], scaled: bool, rng: &mut Rng) -> Option<Accepted> {
        let chains = self.chains();
        let mut accepted = Accepted([None; 3]);
        for (i, (h, a)) in holders.iter().zip(alloc).filter(|(h, _)| h.seat != NOBODY).enumerate() {
            let chain = chains[h.seat as usize].as_ref().expect("a chain for every other seat");
            let c: [u8; 4] = std::array::from_fn(|s| {
                let k = Card::new(s as u8, info.level).id();
                a[k] + info.played[h.seat as usize][k]
            });
            chain.accepts(c, scaled, rng)?;
            accepted.0[i] = Some((h.seat, pack(c)));
        }
        Some(accepted)
    }

    /// Places the other seats' level cards of an accepted proposal exactly given who was
    /// asked and their showings (each seat's chain), and under C9 their small jokers
    /// uniformly over the places left, checked against their runs (a small joker before each
    /// run's first showing). `None`: rejected.
    pub(super) fn place(&self, info: &InfoSet, holders: &[Holder], alloc: &[Counts], accepted: Accepted, rng: &mut Rng) -> Option<LevelPlan> {
        let chains = self.chains();
        let first = *info.first_seats.last().expect("an attempt");
        let mut suits: Vec<u8> = info.runs.iter().map(|r| r.suit.unwrap_or(0)).collect();
        let mut placed = Vec::with_capacity(24);
        for (seat, key) in accepted.0.into_iter().flatten() {
            let chain = chains[seat as usize].as_ref().expect("a chain for every other seat");
            chain.draw(info, chain.final_of(key).expect("an accepted count"), &mut placed, &mut suits, rng);
        }
        if small_joker_timed(info) {
            // C9: each run began with a small joker among the shower's cards
            for (h, a) in holders.iter().zip(alloc).filter(|(h, _)| h.seat != NOBODY) {
                let mut slots = [0u8; DECK / 4 + 1];
                let mut len = 0;
                for t in positions(first, h.seat, info.dealt as usize) {
                    if !placed.iter().any(|&(p, _)| p as usize == t) {
                        slots[len] = t as u8;
                        len += 1;
                    }
                }
                let n = a[SJ.id()] + info.played[h.seat as usize][SJ.id()];
                if n as usize > len {
                    return None;
                }
                place_uniform(&mut slots, &mut len, SJ.0, n, &mut placed, rng);
                let had_one = |t: u8| placed.iter().any(|&(p, k)| k == SJ.0 && p < t && (first + p) % 4 == h.seat);
                if !info.runs.iter().filter(|r| r.seat == h.seat && r.attempt as usize + 1 == info.first_seats.len()).all(|r| had_one(r.showings[0].0)) {
                    return None;
                }
            }
        }
        Some(LevelPlan::new(placed, suits))
    }

    /// Whether the plan's level cards ask the other seats as the source did at every card of
    /// the current attempt but the last (R8.1, D7).
    pub(super) fn fits(&self, info: &InfoSet, plan: &LevelPlan) -> bool {
        let first = *info.first_seats.last().expect("an attempt");
        let dealt = (info.dealt as usize).min(DECK - 1);
        // the suit of the level card at each deck position (other seats' only)
        let mut suit_at = [u8::MAX; DECK];
        for &(t, kind) in plan.placed() {
            let c = Card(kind);
            if c.rank() == Some(info.level) {
                suit_at[t as usize] = c.0 / 13;
            }
        }
        let mut held = [[0u8; 4]; 4];
        let (mut declarer, mut count, mut suit) = (NOBODY, 0u8, 0u8);
        let mut next = self.showings.iter().peekable();
        for t in 0..dealt {
            // showings made before this card was dealt
            while let Some(&&(at, seat, k, ri)) = next.peek() {
                if at as usize > t {
                    break;
                }
                (declarer, count, suit) = (seat, k, plan.suits()[ri]);
                next.next();
            }
            let q = (first as usize + t) % 4;
            if q == info.seat as usize {
                continue;
            }
            if suit_at[t] != u8::MAX {
                held[q][suit_at[t] as usize] += 1;
            }
            if could_show(held[q], q as u8, declarer, suit, count) != self.asked_at[t] {
                return false;
            }
        }
        true
    }

    /// Fills an earlier attempt's deck (R8.5) around the seat's own cards (`deck` and the
    /// cards `left`, from `own_places` of `arrange.rs`): the rest drawn exactly given where
    /// each other seat's first level card lay.
    pub(super) fn earlier_deck(&self, info: &InfoSet, attempt: usize, deck: &mut [u8; DECK], left: Counts, rng: &mut Rng) {
        let first = info.first_seats[attempt];
        let is_level = |k: usize| Card(k as u8).rank() == Some(info.level);
        let (mut level, mut other): (Vec<u8>, Vec<u8>) = (Vec::new(), Vec::new());
        for (k, &n) in left.iter().enumerate() {
            let pile = if is_level(k) { &mut level } else { &mut other };
            pile.extend(std::iter::repeat_n(k as u8, n as usize));
        }
        let take = |pile: &mut Vec<u8>, rng: &mut Rng| pile.swap_remove(rng.below_usize(pile.len()));
        for q in (0..4u8).filter(|&q| q != info.seat) {
            let lead = self.first_level[attempt][q as usize];
            for (j, t) in positions(first, q, DECK).enumerate() {
                match lead {
                    Some(f) if j == f => deck[t] = take(&mut level, rng),
                    Some(f) if j > f => {}
                    _ => deck[t] = take(&mut other, rng),
                }
            }
        }
        let mut rest: Vec<u8> = level.into_iter().chain(other).collect();
        rng.shuffle_by_halves(&mut rest);
        let mut it = rest.into_iter();
        for slot in deck.iter_mut().filter(|s| **s == u8::MAX) {
            *slot = it.next().expect("as many cards as places");
        }
    }
}

/// What [`Chain::build`] reads of the info set and the turns for one seat: the public
/// evidence of the current attempt (R8.2: its runs' suits as every other seat sees them).
#[derive(Clone, Debug, PartialEq, Eq)]
struct ChainKey {
    seat: u8,
    attempt: u8,
    first: u8,
    dealt: u8,
    /// Whether it was asked at each of its deal positions, in order (at most 54).
    asked: u64,
    /// The current attempt's showings: (cards dealt, seat, count, run index).
    showings: Vec<(u8, u8, u8, usize)>,
    /// Its runs of the current attempt: (run index, suit as shown).
    runs: Vec<(usize, Option<u8>)>,
    /// How many runs the info set lists (a placement's suits are written by run index).
    all_runs: usize,
}

impl ChainKey {
    fn of(info: &InfoSet, turns: &Turns, seat: u8) -> ChainKey {
        let attempt = (info.first_seats.len() - 1) as u8;
        let first = info.first_seats[attempt as usize];
        let asked = positions(first, seat, info.dealt as usize).enumerate().fold(0u64, |m, (j, t)| m | (turns.asked_at[t] as u64) << j);
        let runs = (0..info.runs.len()).filter(|&i| info.runs[i].seat == seat && info.runs[i].attempt == attempt).map(|i| (i, info.runs[i].suit)).collect();
        ChainKey { seat, attempt, first, dealt: info.dealt, asked, showings: turns.showings.clone(), runs, all_runs: info.runs.len() }
    }
}

thread_local! {
    /// The chains this thread built last, by what they read (`chain_cache.rs`).
    static KEPT_CHAINS: std::cell::RefCell<Kept<ChainKey, Arc<Chain>>> = const { std::cell::RefCell::new(Kept::new()) };
}

/// The chains' verdict on a proposal: each other seat and its accepted level counts (packed,
/// the key of its chain's `by_count`), in the holders' order.
#[derive(Clone, Copy, Debug)]
pub(super) struct Accepted([Option<(u8, u16)>; 3]);

/// The 24 permutations of the four suits.
const PERMUTATIONS: [[u8; 4]; 24] = {
    let mut out = [[0u8; 4]; 24];
    let mut n = 0;
    let mut a = 0;
    while a < 4 {
        let mut b = 0;
        while b < 4 {
            let mut c = 0;
            while c < 4 {
                if a != b && a != c && b != c {
                    out[n] = [a, b, c, 6 - a - b - c];
                    n += 1;
                }
                c += 1;
            }
            b += 1;
        }
        a += 1;
    }
    out
};

/// Entries all the chains of one info set may hold (each 24 bytes): beyond it the sampler
/// keeps the plain rejection of [`Turns::fits`].
const MAX_ENTRIES: usize = 1 << 20;

/// Runs of one seat a chain tracks at most (its suit choices multiply the programmes).
const MAX_RUNS: usize = 3;

/// 12 / |allowed|: the weight of a hidden run's suit drawn uniformly among the `allowed` that
/// fit its showings (12 is a multiple of 1, 2, 3 and 4).
const SUIT_SHARE: [u128; 5] = [0, 12, 6, 4, 3];

/// One programme's states after one position: packed states, sorted, their weighted counts,
/// and where each came from, so that the placement draw walks back by index, never searching.
#[derive(Clone, Debug, Default)]
struct Layer {
    keys: Vec<u32>,
    counts: Vec<u128>,
    /// State i's predecessors are `preds[from[i]..from[i + 1]]` (empty for the first layer).
    from: Vec<u32>,
    /// A predecessor: its index in the layer before, with the symbol that led from it (a level
    /// card of suit x, or none: 4) above [`SYMBOL_SHIFT`]; in symbol order, then state order.
    /// A state's count is the sum of its predecessors'.
    preds: Vec<u32>,
}

/// Where a predecessor's symbol starts (a layer has fewer than `MAX_ENTRIES` = 2^20 states).
const SYMBOL_SHIFT: u32 = 28;

impl Layer {
    fn of(entries: &[(u32, u128)], (from, preds): (Vec<u32>, Vec<u32>)) -> Layer {
        Layer { keys: entries.iter().map(|e| e.0).collect(), counts: entries.iter().map(|e| e.1).collect(), from, preds }
    }
}

/// The five streams of (state, index in `cur` of the state it came from), stream x for symbol
/// x, each sorted by state and ended by [`STREAM_END`], merged into `out`: the counts of one
/// state's sources added, its sources listed in `preds` (symbol above [`SYMBOL_SHIFT`]) from
/// `from[i]` on.
fn merge_add(streams: &[Vec<(u32, u32)>; 5], cur: &[(u32, u128)], out: &mut Vec<(u32, u128)>, from: &mut Vec<u32>, preds: &mut Vec<u32>) {
    out.clear();
    from.clear();
    preds.clear();
    debug_assert!(streams.iter().all(|s| s.last() == Some(&STREAM_END)));
    let mut at = [0usize; 5];
    let mut heads: [u32; 5] = std::array::from_fn(|x| streams[x][0].0);
    loop {
        let least = heads.iter().fold(u32::MAX, |m, &h| m.min(h));
        from.push(preds.len() as u32);
        if least == STREAM_END.0 {
            return;
        }
        let mut sum = 0u128;
        for x in 0..5 {
            // (no state is the end's: a stream stops at its end)
            while heads[x] == least {
                let i = streams[x][at[x]].1;
                sum += cur[i as usize].1;
                preds.push(i | (x as u32) << SYMBOL_SHIFT);
                at[x] += 1;
                heads[x] = streams[x][at[x]].0;
            }
        }
        out.push((least, sum));
    }
}

/// The end of a stream of [`merge_add`]: a state has at most 24 bits, so u32::MAX is none.
const STREAM_END: (u32, u32) = (u32::MAX, 0);

/// One other seat's level cards over its deal positions in the current attempt, conditioned
/// on who was asked (D7) and on its showings (R8.1): a counting programme over its positions
/// whose state is its level cards of each suit so far and, per run, the suits still fitting
/// its showings; one programme per choice of its runs' suits. It gives, for every count of
/// level cards the seat may hold, the weighted number of placements that fit, so the hands
/// can be accepted in proportion to it, and draws a fitting placement exactly.
#[derive(Clone, Debug)]
pub(super) struct Chain {
    /// Its deal positions, in order.
    positions: Vec<u8>,
    /// Its runs (indices into `info.runs`).
    runs: Vec<usize>,
    /// Per suit choice (one suit per run): the choice, the programme that counts it and the
    /// renaming of the suits that takes that programme's to the choice's.
    choices: Vec<(Vec<u8>, usize, [u8; 4])>,
    /// The programmes counted, one per class of choices alike up to renaming the suits: the
    /// states after each position, sorted.
    programmes: Vec<Vec<Layer>>,
    /// A seat without showings, or with one run of a public suit: its one programme over
    /// classes of count vectors instead (`multisets.rs`).
    symmetric: Option<Symmetric>,
    /// Per count of level cards (packed), in order: its weight, its chance of acceptance, and
    /// the final states (programme, state, weight) in a fixed order.
    by_count: Vec<(u16, Final)>,
    /// Per count (packed, 4096 entries): its index in `by_count` (`u16::MAX`: none), so that
    /// a world's acceptance and placement find it by one read.
    slots: Vec<u16>,
    /// Per entry of `by_count` not always accepted: its acceptance over its envelope, for
    /// counts drawn from a level table (num · `ENVELOPE`, den · `envelope`), computed once.
    scaled: Vec<(Big, Big)>,
    /// Per count (packed, 4096 entries): its envelope (0: no placement fits), read by the
    /// level table at every path's end.
    envelopes: Envelopes,
    /// The final states (programme, state, weight) of every entry of `by_count`, each entry's
    /// together (`Final::ends`), in the order found.
    ends: Vec<(usize, u32, u128)>,
    /// The counts of `by_count`, in order.
    valid: Vec<u16>,
    /// The level tables' prefix tables of `valid` (a cache: it changes no table).
    prefixes: PrefixMemo,
}

/// The programme of a chain counted over classes of count vectors (`multisets.rs`).
#[derive(Clone, Debug)]
struct Symmetric {
    classes: &'static multisets::Classes,
    /// The layers one after the other (`Symmetric::layer`).
    layers: Vec<u128>,
    /// Per position: the most cards of the seat's own showings just before it (0: none).
    need: Vec<u8>,
}

impl Symmetric {
    /// The layer after `j` positions.
    fn layer(&self, j: usize) -> &multisets::Layer {
        let n = self.classes.len();
        &self.layers[j * n..(j + 1) * n]
    }
}

#[derive(Clone, Debug)]
struct Final {
    weight: u128,
    /// Accepted with probability `accept.0 / accept.1` (≥ 1: always): this count's share of
    /// fitting placements (weight / placements) over the best share, set once the chain is built.
    accept: (Big, Big),
    /// The share over the best rounded up to parts of `ENVELOPE` (`ENVELOPE` where always
    /// accepted): the weight of these counts in a level table's proposal.
    envelope: u32,
    /// Its final states' entries in the chain's `ends`.
    ends: std::ops::Range<usize>,
}

/// The entry of `items` at which a uniform pick below the sum of their weights lands.
fn pick<'a, T>(items: &'a [T], weight: impl Fn(&T) -> u128, total: u128, rng: &mut Rng) -> &'a T {
    let mut r = rng.below(total);
    items.iter().find(|e| {
        let hit = r < weight(e);
        if !hit {
            r -= weight(e);
        }
        hit
    }).expect("a pick below the total")
}

/// The entry of counts `key` (packed) in `by_count`, added (weight 0) if new, with its
/// index in `slots`.
fn final_at<'a>(by_count: &'a mut Vec<(u16, Final)>, slots: &mut [u16], key: u16) -> &'a mut Final {
    let i = &mut slots[key as usize];
    if *i == u16::MAX {
        *i = by_count.len() as u16;
        by_count.push((key, Final { weight: 0, accept: (Big::ZERO, Big::ONE), envelope: ENVELOPE, ends: 0..0 }));
    }
    &mut by_count[*i as usize].1
}

/// `a · b` as (its high 128 bits, its low 128): ordered as the products are.
fn wide(a: u128, b: u128) -> (u128, u128) {
    let (a0, a1) = (a as u64 as u128, a >> 64);
    let (b0, b1) = (b as u64 as u128, b >> 64);
    let (ll, lh, hl, hh) = (a0 * b0, a0 * b1, a1 * b0, a1 * b1);
    // (three parts below 2^64 each: the middle column is below 2^66)
    let mid = (ll >> 64) + (lh as u64 as u128) + (hl as u64 as u128);
    (hh + (lh >> 64) + (hl >> 64) + (mid >> 64), mid << 64 | (ll as u64 as u128))
}

/// `a · b` exactly, as [`wide`] computes it.
fn product(a: u128, b: u128) -> Big {
    let (high, low) = wide(a, b);
    Big::from_limbs(&[low as u64, (low >> 64) as u64, high as u64, (high >> 64) as u64])
}

fn h_of(state: u32, s: usize) -> u8 {
    ((state >> (3 * s)) & 7) as u8
}

fn mask_of(state: u32, r: usize) -> u8 {
    ((state >> (12 + 4 * r)) & 15) as u8
}

fn with_mask(state: u32, r: usize, m: u8) -> u32 {
    (state & !(15 << (12 + 4 * r))) | (m as u32) << (12 + 4 * r)
}

/// The suits of a run that fail its showing of `k` with the state's counts.
fn failing(state: u32, k: u8) -> u8 {
    (0..4).filter(|&s| h_of(state, s) < k).fold(0, |m, s| m | 1 << s)
}

fn apply(state: u32, showings: &[(usize, u8)]) -> u32 {
    showings.iter().fold(state, |st, &(r, k)| with_mask(st, r, mask_of(st, r) & !failing(st, k)))
}


impl Chain {
    /// The chain of `seat`, or `None` when its programmes would pass `budget` entries (then
    /// taken from it) or its runs are too many.
    fn new(info: &InfoSet, turns: &Turns, seat: u8, budget: &mut usize) -> Option<Chain> {
        Self::build(info, turns, seat, budget, true)
    }

    /// [`Chain::new`]; without `shortcuts` every choice of the runs' suits gets its own
    /// programme over count vectors (no renaming, no classes): the twin the tests compare.
    fn build(info: &InfoSet, turns: &Turns, seat: u8, budget: &mut usize, shortcuts: bool) -> Option<Chain> {
        let current = (info.first_seats.len() - 1) as u8;
        let first = info.first_seats[current as usize];
        let dealt = info.dealt as usize;
        let positions: Vec<u8> = positions(first, seat, dealt).map(|t| t as u8).collect();
        let runs: Vec<usize> = (0..info.runs.len()).filter(|&i| info.runs[i].seat == seat && info.runs[i].attempt == current).collect();
        if runs.len() > MAX_RUNS {
            return None;
        }
        let mut before = vec![Vec::new(); positions.len()];
        let mut after = Vec::new();
        for (slot, &ri) in runs.iter().enumerate() {
            for &(at, k) in &info.runs[ri].showings {
                match positions.iter().position(|&t| t >= at) {
                    Some(j) => before[j].push((slot, k)),
                    None => after.push((slot, k)),
                }
            }
        }
        // the public state at each position: (declarer, count, run) of the showings before it
        let mut public = Vec::with_capacity(positions.len());
        let mut next = turns.showings.iter().peekable();
        let mut now = (NOBODY, 0u8, 0usize);
        for &t in &positions {
            while let Some(&&(at, s, k, ri)) = next.peek() {
                if at > t {
                    break;
                }
                now = (s, k, ri);
                next.next();
            }
            public.push(now);
        }
        // suit choices: each run's own suit where public, else any
        let mut choices: Vec<Vec<u8>> = vec![Vec::new()];
        for &ri in &runs {
            let suits: Vec<u8> = info.runs[ri].suit.map_or((0..4).collect(), |s| vec![s]);
            choices = choices.iter().flat_map(|c| suits.iter().map(move |&s| [c.clone(), vec![s]].concat())).collect();
        }
        let init_masks = runs.iter().enumerate().fold(0u32, |st, (slot, &ri)| with_mask(st, slot, info.runs[ri].suit.map_or(15, |s| 1 << s)));
        // Renaming the suits by a permutation p maps the placements that fit a choice onto
        // those that fit p(choice): who was asked reads a seat's counts only through "any",
        // "more than k of one suit" and "more than k of its own (chosen) suit", and the
        // showings' masks follow the renaming (a public run's suit is its choice's, which p
        // then keeps). So one programme counts every choice p(σ): the others read it through p.
        let mut programmes: Vec<Vec<Layer>> = Vec::new();
        let mut reps: Vec<Vec<u8>> = Vec::new();
        let mut mapped: Vec<(Vec<u8>, usize, [u8; 4])> = Vec::with_capacity(choices.len());
        // the counts found, each at its index in `slots` (in key order once sorted, below)
        let mut by_count: Vec<(u16, Final)> = Vec::new();
        let mut slots = vec![u16::MAX; 1 << 12];
        // their final states as found: (counts, end), gathered by counts below (one vector, not
        // one a count)
        let mut found: Vec<(u16, (usize, u32, u128))> = Vec::new();
        // a seat without showings, or with one run of a public suit: counted over classes of
        // count vectors (`multisets.rs`)
        let public_run = if runs.len() == 1 { info.runs[runs[0]].suit } else { None };
        let symmetric = if shortcuts && (runs.is_empty() || public_run.is_some()) {
            let classes = multisets::classes(public_run);
            let public: Vec<(u8, u8)> = public.iter().map(|&(d, k, _)| (d, k)).collect();
            let shows: Vec<Vec<u8>> = before.iter().map(|b| b.iter().map(|&(_, k)| k).collect()).collect();
            let layers = classes.programme(&positions, &public, &shows, &turns.asked_at, seat, budget)?;
            let last = &layers[positions.len() * classes.len()..];
            let after: Vec<u8> = after.iter().map(|&(_, k)| k).collect();
            // a public run's suit is its one choice: the share of a mask of one suit
            let share = if public_run.is_some() { SUIT_SHARE[1] } else { 1 };
            for c in multisets::vectors() {
                let w = classes.count(last, c) * share;
                if w > 0 && classes.passes(c, &after) {
                    let f = final_at(&mut by_count, &mut slots, pack(c));
                    f.weight = w;
                    found.push((pack(c), (0, pack(c) as u32, w)));
                }
            }
            mapped.push((public_run.into_iter().collect(), 0, [0, 1, 2, 3]));
            let need = shows.iter().map(|k| k.iter().copied().max().unwrap_or(0)).collect();
            Some(Symmetric { classes, layers, need })
        } else {
            for sigma in choices {
                let found = reps.iter().enumerate().filter(|_| shortcuts).find_map(|(r, rep)| {
                    PERMUTATIONS.iter().find(|p| rep.iter().zip(&sigma).all(|(&a, &b)| p[a as usize] == b)).map(|p| (r, *p))
                });
                let (r, p) = match found {
                    Some(f) => f,
                    None => {
                        programmes.push(Self::programme(&sigma, &positions, &before, &public, &runs, turns, seat, init_masks, budget)?);
                        reps.push(sigma.clone());
                        (reps.len() - 1, [0, 1, 2, 3])
                    }
                };
                mapped.push((sigma, r, p));
            }
            for (pi, &(_, r, p)) in mapped.iter().enumerate() {
                let last = programmes[r].last().expect("a layer");
                for (&st, &n) in last.keys.iter().zip(&last.counts) {
                    let end = apply(st, &after);
                    let mut w = n;
                    for (slot, &s) in reps[r].iter().enumerate() {
                        let m = mask_of(end, slot);
                        w *= if m & 1 << s != 0 { SUIT_SHARE[m.count_ones() as usize] } else { 0 };
                    }
                    if w > 0 {
                        // renamed: suit p[s] holds what the programme's suit s holds
                        let mut c = [0u8; 4];
                        for s in 0..4 {
                            c[p[s] as usize] = h_of(st, s);
                        }
                        let f = final_at(&mut by_count, &mut slots, pack(c));
                        f.weight += w;
                        found.push((pack(c), (pi, st, w)));
                    }
                }
            }
            None
        };
        let choices = mapped;
        let n = positions.len();
        // (in key order: the first best share found is kept, and the acceptances are written
        // over it)
        by_count.sort_unstable_by_key(|e| e.0);
        for (i, e) in by_count.iter().enumerate() {
            slots[e.0 as usize] = i as u16;
        }
        // each count's ends together, in key order, each count's in the order found
        let mut start = vec![0usize; by_count.len() + 1];
        for &(key, _) in &found {
            start[slots[key as usize] as usize + 1] += 1;
        }
        for i in 0..by_count.len() {
            start[i + 1] += start[i];
            by_count[i].1.ends = start[i]..start[i + 1];
        }
        let mut ends = vec![(0, 0, 0); found.len()];
        for &(key, e) in &found {
            let at = &mut start[slots[key as usize] as usize];
            ends[*at] = e;
            *at += 1;
        }
        let mut best = (0u128, 1u128);
        let mut placements = Vec::with_capacity(by_count.len());
        for &(key, ref f) in &by_count {
            // the placements of these counts on n ≤ `DECK` / 4 positions: below C(54, 4)^4 < 2^74
            let mut left = n;
            let mut m = 1u128;
            for s in 0..4 {
                let c = ((key >> (3 * s)) & 7) as usize;
                m *= binomial_low(left, c);
                left -= c;
            }
            // a larger share weight / placements than the best so far
            if wide(f.weight, best.1) > wide(best.0, m) {
                best = (f.weight, m);
            }
            placements.push(m);
        }
        // per entry, its share scaled to compare with its envelope: (num · ENVELOPE, den ·
        // envelope), or (0, 1) where it is accepted whole (beside the entries, not in them: the
        // map moves its entries as it grows)
        let mut scaled = Vec::with_capacity(by_count.len());
        for ((_, f), m) in by_count.iter_mut().zip(placements) {
            f.accept = (product(f.weight, best.1), product(best.0, m));
            let (num, den) = &f.accept;
            let mut share = (Big::ZERO, Big::ONE);
            if num < den {
                // the least q with q / ENVELOPE ≥ num / den: from the top 64 bits of both (exact
                // where nothing is shifted out), num / den < (n + 1) / d, so q0 = ⌈ENVELOPE
                // (n + 1) / d⌉ is at most one above it (d ≥ 2^63 where bits were shifted out)
                let shift = den.bits().saturating_sub(64);
                let (n, d) = (num.shr_u64(shift) as u128, den.shr_u64(shift) as u128);
                let e = ENVELOPE as u128;
                let q0 = ((e * (n + (shift > 0) as u128)).div_ceil(d)).clamp(1, e) as u32;
                // (the products kept for `scaled`: num · ENVELOPE, and den · q at the q taken)
                let num_e = num.mul_small(ENVELOPE as u64);
                let below = if q0 > 1 { Some(den.mul_small(q0 as u64 - 1)) } else { None };
                (f.envelope, share) = match below {
                    Some(den_q) if den_q >= num_e => (q0 - 1, (num_e, den_q)),
                    _ => (q0, (num_e, den.mul_small(q0 as u64))),
                };
            }
            debug_assert!(
                f.envelope == ENVELOPE && num >= den
                    || den.mul_small(f.envelope as u64) >= num.mul_small(ENVELOPE as u64) && den.mul_small(f.envelope as u64 - 1) < num.mul_small(ENVELOPE as u64),
                "the envelope is the least multiple of 1 / ENVELOPE at or above the share"
            );
            debug_assert!(num >= den || share == (num.mul_small(ENVELOPE as u64), den.mul_small(f.envelope as u64)), "the kept products are the share scaled");
            scaled.push(share);
        }
        let mut envelopes = Box::new([0u32; 1 << 12]);
        for &(key, ref f) in &by_count {
            envelopes[key as usize] = f.envelope;
        }
        let valid = by_count.iter().map(|e| e.0).collect();
        Some(Chain { positions, runs, choices, programmes, symmetric, by_count, slots, scaled, envelopes: Envelopes::from(envelopes), ends, valid, prefixes: PrefixMemo::default() })
    }

    /// One choice's programme: the weighted states after each position (the first layer is
    /// the start), or `None` past the budget.
    #[allow(clippy::too_many_arguments)]
    fn programme(sigma: &[u8], positions: &[u8], before: &[Vec<(usize, u8)>], public: &[(u8, u8, usize)], runs: &[usize], turns: &Turns, seat: u8, init_masks: u32, budget: &mut usize) -> Option<Vec<Layer>> {
        let mut layers: Vec<Layer> = Vec::with_capacity(positions.len() + 1);
        let mut cur: Vec<(u32, u128)> = vec![(init_masks, 1)];
        let mut cur_from = (Vec::new(), Vec::new());
        // one stream per symbol x (a level card of suit x, or none: 4), each sorted by state
        let mut streams: [Vec<(u32, u32)>; 5] = Default::default();
        let (mut merged, mut from, mut preds) = (Vec::new(), Vec::new(), Vec::new());
        for (j, &t) in positions.iter().enumerate() {
            let (declarer, count, ri) = public[j];
            // the declared suit matters only where this seat is the declarer (its own run)
            let own_suit = runs.iter().position(|&r| r == ri && declarer == seat).map_or(0, |slot| sigma[slot]);
            let check = (t as usize + 1) < DECK;
            let asked = turns.asked_at[t as usize];
            let asks = Asks::new(seat, declarer, own_suit, count);
            for s in streams.iter_mut() {
                s.clear();
            }
            for (i, &(st, _)) in cur.iter().enumerate() {
                let st = apply(st, &before[j]);
                // masks only shrink: a run whose chosen suit no longer fits is dropped
                if sigma.iter().enumerate().any(|(slot, &s)| mask_of(st, slot) & 1 << s == 0) {
                    continue;
                }
                let h = [h_of(st, 0), h_of(st, 1), h_of(st, 2), h_of(st, 3)];
                let r = asks.reads(h);
                // none received (the state kept), then a level card of suit x: its count one
                // more, packed in place (3 bits a suit, as `pack`)
                if !check || (r > asks.above) == asked {
                    streams[4].push((st, i as u32));
                }
                for x in 0..4usize {
                    if h[x] == 4 {
                        continue;
                    }
                    if !check || (asks.reads_more(h, r, x) > asks.above) == asked {
                        streams[x].push((st + (1 << (3 * x)), i as u32));
                    }
                }
            }
            // without showings before this position a stream keeps the layer's order (it
            // adds one to a count below 4); the showings' masks may reorder it and send
            // several states to one
            if !before[j].is_empty() {
                for s in streams.iter_mut() {
                    s.sort_unstable_by_key(|&e| e);
                }
            }
            // (each position's sources are kept: sized once, not grown)
            let sources: usize = streams.iter().map(Vec::len).sum();
            from.reserve_exact(sources + 1);
            preds.reserve_exact(sources);
            for s in streams.iter_mut() {
                s.push(STREAM_END);
            }
            merge_add(&streams, &cur, &mut merged, &mut from, &mut preds);
            *budget = budget.checked_sub(merged.len())?;
            layers.push(Layer::of(&cur, cur_from));
            cur_from = (std::mem::take(&mut from), std::mem::take(&mut preds));
            std::mem::swap(&mut cur, &mut merged);
        }
        layers.push(Layer::of(&cur, cur_from));
        Some(layers)
    }

    /// Accepts the seat's `c` level cards of each suit with probability their share of fitting
    /// placements over the best share: their entry in the programme, or None (reject).
    /// With `scaled`, the counts were proposed in proportion to their envelope q: accepted
    /// with probability (num / den) / (q / ENVELOPE) instead.
    fn accepts(&self, c: [u8; 4], scaled: bool, rng: &mut Rng) -> Option<&Final> {
        if c.iter().any(|&x| x > 4) {
            return None;
        }
        let i = self.slots[pack(c) as usize];
        let f = &self.by_count.get(i as usize)?.1;
        if f.accept.0 < f.accept.1 {
            let (num, den) = if scaled { &self.scaled[i as usize] } else { &f.accept };
            if *num <= den.below(rng) {
                return None;
            }
        }
        Some(f)
    }

    /// The entry of a count of level cards (packed), if any placement fits it.
    #[inline]
    fn final_of(&self, key: u16) -> Option<&Final> {
        let i = self.slots[key as usize];
        (i != u16::MAX).then(|| &self.by_count[i as usize].1)
    }

    /// Draws a fitting placement of an accepted count `f` and its runs' suits: (deck position,
    /// kind) pairs pushed to `placed`, suits written to `suits`.
    fn draw(&self, info: &InfoSet, f: &Final, placed: &mut Vec<(u8, u8)>, suits: &mut [u8], rng: &mut Rng) {
        let &(pi, mut st, _) = pick(&self.ends[f.ends.clone()], |e| e.2, f.weight, rng);
        if let Some(y) = &self.symmetric {
            if let (Some(&ri), Some(s)) = (self.runs.first(), y.classes.fixed) {
                suits[ri] = s;
            }
            // the counts' vector walked back, each predecessor's number read from its class
            // (where it passes the seat's showings before the position)
            // (a state's count is the sum of its predecessors', so the draw below it is made
            // first and the predecessors read in order only until it lands: the same pick)
            let n = self.positions.len();
            let mut c = [h_of(st, 0), h_of(st, 1), h_of(st, 2), h_of(st, 3)];
            let mut key = pack(c);
            // the state's count: at each step after the first, the weight of the predecessor
            // drawn at the step before (read once, not again)
            let mut total = y.classes.count_packed(y.layer(n), key);
            for j in (0..n).rev() {
                if key == 0 {
                    // no level card left to place: one placement (a count of 1, no draw) takes
                    // none at every earlier position, so the walk ends here with the same stream
                    debug_assert_eq!(total, 1, "one placement of no level cards");
                    break;
                }
                let mut r = rng.below(total);
                let (layer, need) = (y.layer(j), y.need[j]);
                // the predecessors in order: a level card of suit 0, 1, 2, 3, then none; their
                // counts sum to the state's, so the draw lands on the last (none, the most
                // frequent) exactly when it is at least the total less that one's count
                let w4 = if y.classes.passes_need(c, need) { y.classes.count_packed(layer, key) } else { 0 };
                debug_assert!(w4 <= total, "a predecessor's count within the state's");
                if r >= total - w4 {
                    total = w4;
                    continue;
                }
                let x = (0..4)
                    .find(|&x| {
                        if c[x] == 0 {
                            return false;
                        }
                        let mut p = c;
                        p[x] -= 1;
                        let w = if y.classes.passes_need(p, need) { y.classes.count_packed(layer, key - (1 << (3 * x))) } else { 0 };
                        let hit = r < w;
                        if hit {
                            total = w;
                        } else {
                            r -= w;
                        }
                        hit
                    })
                    .expect("a pick below the state's count");
                c[x] -= 1;
                key -= 1 << (3 * x);
                placed.push((self.positions[j], Card::new(x as u8, info.level).0));
            }
            return;
        }
        // (the walk runs in the programme's suits; a placed card is renamed by p)
        let (sigma, r, p) = &self.choices[pi];
        let layers = &self.programmes[*r];
        for (slot, &ri) in self.runs.iter().enumerate() {
            suits[ri] = sigma[slot];
        }
        // back through the layers by index: a state's predecessors, each weighed by its count
        // (their sum is the state's), one drawn
        let n = self.positions.len();
        let mut i = layers[n].keys.binary_search(&st).expect("a final state of the programme");
        for j in (0..n).rev() {
            let (layer, prev) = (&layers[j + 1], &layers[j]);
            if st & 0xfff == 0 {
                // no level card left to place: the masks follow the counts, so one path (a
                // count of 1, no draw) leads here from the start, taking none: the walk ends
                // with the same stream
                debug_assert_eq!(layer.counts[i], 1, "one path without level cards");
                return;
            }
            let preds = &layer.preds[layer.from[i] as usize..layer.from[i + 1] as usize];
            let index = |e: u32| (e & ((1 << SYMBOL_SHIFT) - 1)) as usize;
            let e = *pick(preds, |&e| prev.counts[index(e)], layer.counts[i], rng);
            let x = (e >> SYMBOL_SHIFT) as usize;
            if x < 4 {
                placed.push((self.positions[j], Card::new(p[x], info.level).0));
            }
            i = index(e);
            st = prev.keys[i];
        }
        debug_assert_eq!(st, layers[0].keys[0], "the walk ends at the start");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::hand::{Game, Phase};

    #[test]
    fn merge_add_is_a_plain_merge() {
        let mut rng = Rng::new(42);
        for _ in 0..300 {
            let cur: Vec<(u32, u128)> = (0..1 + rng.below_usize(40)).map(|i| (i as u32, rng.below(1 << 100))).collect();
            let mut streams: [Vec<(u32, u32)>; 5] = Default::default();
            for s in streams.iter_mut() {
                let n = [0, 1, 5, 30][rng.below_usize(4)];
                *s = (0..n).map(|_| (rng.below_u32(1 << 24), rng.below_usize(cur.len()) as u32)).collect();
                s.sort_unstable();
            }
            let mut plain: std::collections::BTreeMap<u32, (u128, Vec<u32>)> = Default::default();
            for (x, s) in streams.iter().enumerate() {
                for &(st, i) in s {
                    let e = plain.entry(st).or_default();
                    e.0 += cur[i as usize].1;
                    e.1.push(i | (x as u32) << SYMBOL_SHIFT);
                }
            }
            for s in streams.iter_mut() {
                s.push(STREAM_END);
            }
            let (mut out, mut from, mut preds) = (Vec::new(), Vec::new(), Vec::new());
            merge_add(&streams, &cur, &mut out, &mut from, &mut preds);
            let got: Vec<(u32, (u128, Vec<u32>))> = out.iter().enumerate().map(|(k, &(st, w))| (st, (w, preds[from[k] as usize..from[k + 1] as usize].to_vec()))).collect();
            assert_eq!(got, plain.into_iter().collect::<Vec<_>>());
            assert_eq!(from.len(), out.len() + 1);
        }
    }

    /// [`wide`] and [`product`] against `Big`'s schoolbook product, on edge values (0, 1,
    /// powers of two and their neighbours, all ones) and random ones of every width.
    #[test]
    fn wide_products_are_bigs_products() {
        let mut values = vec![0u128, 1, 2, 3, u64::MAX as u128, u64::MAX as u128 + 1, u128::MAX, u128::MAX - 1];
        for k in [1, 31, 63, 64, 65, 73, 100, 127] {
            values.extend([(1u128 << k) - 1, 1u128 << k, (1u128 << k) + 1]);
        }
        let mut rng = Rng::new(7);
        for _ in 0..400 {
            let x = (rng.next_u64() as u128) << 64 | rng.next_u64() as u128;
            values.push(x >> rng.below_usize(128));
        }
        for &a in &values {
            for &b in &values {
                let big = Big::from_u128(a).mul(&Big::from_u128(b));
                assert_eq!(product(a, b), big, "{a} · {b}");
                for &(c, d) in &[(b, a), (a, b.saturating_add(1)), (a.saturating_sub(1), b)] {
                    let other = Big::from_u128(c).mul(&Big::from_u128(d));
                    assert_eq!(wide(a, b).cmp(&wide(c, d)), big.cmp(&other), "{a} · {b} against {c} · {d}");
                }
            }
        }
    }

    /// The renamed programmes and the programmes over classes (multisets, or a public run's
    /// suit and the multiset of the others) against one programme over count vectors per
    /// choice of the runs' suits: the same weight for every count of level cards, over
    /// positions of random play (uniform over the legal actions, showings included) in every
    /// profile and phase of the deal and the play, every other seat. A chain with one public
    /// run also draws the same placement and suits from the same stream for every count.
    #[test]
    fn the_shortcuts_count_what_every_choice_counts() {
        let (mut chains, mut with_runs, mut hidden, mut public) = (0, 0, 0, 0);
        for seed in 0..24u64 {
            let (profile, actions, deal_len) = super::super::random_hand(seed);
            for cut in [deal_len / 3, deal_len * 2 / 3, deal_len + 1, (deal_len + actions.len()) / 2] {
                let mut p = Game::deal(seed, profile, [3, 3], NOBODY, None).unwrap();
                for a in &actions[..cut.min(actions.len())] {
                    p.apply(a).unwrap();
                }
                let seat = (seed % 4) as u8;
                let info = p.info(seat);
                if info.every_receiver || !info.dealt_hand || (p.pos.phase != Phase::Declare && p.pos.phase != Phase::Play) {
                    continue;
                }
                let turns = Turns::new(&info);
                for q in (0..4u8).filter(|&q| q != seat) {
                    let (mut b1, mut b2) = (MAX_ENTRIES, MAX_ENTRIES);
                    let (Some(fast), Some(plain)) = (Chain::build(&info, &turns, q, &mut b1, true), Chain::build(&info, &turns, q, &mut b2, false)) else { continue };
                    let weights = |c: &Chain| c.by_count.iter().map(|&(k, ref f)| (k, f.weight)).collect::<Vec<_>>();
                    assert_eq!(weights(&fast), weights(&plain), "seed {seed}, cut {cut}, seat {q}");
                    assert!(b1 >= b2, "the shortcuts never hold more entries");
                    if fast.symmetric.is_some() && !fast.runs.is_empty() {
                        for (k, f) in &fast.by_count {
                            let mut a = (Vec::new(), vec![9u8; info.runs.len()]);
                            let mut b = a.clone();
                            fast.draw(&info, f, &mut a.0, &mut a.1, &mut Rng::new(*k as u64));
                            plain.draw(&info, plain.final_of(*k).expect("the same counts"), &mut b.0, &mut b.1, &mut Rng::new(*k as u64));
                            assert_eq!(a, b, "seed {seed}, cut {cut}, seat {q}, counts {k:o}");
                        }
                        public += 1;
                    }
                    chains += 1;
                    with_runs += !fast.runs.is_empty() as usize;
                    hidden += fast.runs.iter().any(|&ri| info.runs[ri].suit.is_none()) as usize;
                }
            }
        }
        eprintln!("{chains} chains, {with_runs} with runs, {hidden} with a hidden suit, {public} with one public run");
        assert!(chains >= 150 && with_runs >= 30 && hidden >= 15 && public >= 10, "{chains} chains, {with_runs} with runs, {hidden} with a hidden suit, {public} with one public run");
    }
}
