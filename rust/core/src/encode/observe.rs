//! The tensor observation of one seat: a fixed-length `f32` vector written into a caller's
//! buffer, at a constant cost whatever the history (it reads the position and the hand's
//! [`crate::game::hand::Tally`], never the record). It holds only what the seat may know:
//! its own hand and selection, and the public state (R8.2: a showing's suit is hidden from
//! the others until the deal ends).
//!
//! Seats are relative to the observer: slot `r` is seat `(observer + r) % 4`. Card blocks
//! are 54 entries in kind-id order holding copies / 4. With `canonical` the suits are renamed
//! so that trump (once the observer knows it) is the first suit, the others keeping their
//! order; jokers stay. [`LAYOUT`] lists every block.

use crate::game::hand::{Game, Phase, Position, Tally, NOBODY};
use crate::rules::card::DECK;
use crate::rules::card::{Counts, KINDS};
use crate::rules::trump::TRUMP;

/// One block of the observation: name, offset, length, what it holds.
pub type Block = (&'static str, usize, usize, &'static str);

macro_rules! layout {
    ($(($name:ident, $len:expr, $doc:expr)),* $(,)?) => {
        /// Offsets of the blocks.
        #[allow(non_upper_case_globals)]
        mod at {
            layout!(@offsets 0usize; $($name, $len;)*);
        }
        /// The blocks in order: (name, offset, length, meaning).
        pub const LAYOUT: &[Block] = &[$((stringify!($name), at::$name, $len, $doc)),*];
    };
    (@offsets $off:expr; $name:ident, $len:expr; $($rest:tt)*) => {
        pub const $name: usize = $off;
        layout!(@offsets $off + $len; $($rest)*);
    };
    (@offsets $off:expr;) => {
        pub const END: usize = $off;
    };
}

layout! {
    (hand, 54, "own hand: copies of each kind / 4"),
    (pending, 54, "the play being built by the observer, when it is to move (/ 4)"),
    (played, 4 * 54, "per relative seat: the cards it has played this hand (/ 4)"),
    (trick, 4 * 54, "per relative seat: its cards in the trick in progress (/ 4)"),
    (trick_leader, 4, "relative seat that led the trick in progress (one-hot; none between tricks)"),
    (to_move, 4, "relative seat to move (one-hot; none once over)"),
    (hand_sizes, 4, "per relative seat: cards held / 54"),
    (void, 4 * 5, "per relative seat, per class (s h d c trump): proven void (R5.2)"),
    (points, 2, "defenders' points so far / 400; points in the trick in progress / 400"),
    (team_levels, 2 * 12, "levels 3..A one-hot: the observer's team, then the other team"),
    (hand_level, 12, "the hand's level L one-hot (3..A)"),
    (trump, 5, "trump suit as the observer knows it: s h d c, or unknown (one-hot)"),
    (banker, 5, "relative seat of the banker, or none yet (one-hot)"),
    (declarer, 5, "relative seat of the current declarer, or none (one-hot; public, R8.2)"),
    (declared_count, 1, "level cards in the current showing / 4"),
    (shown, 4, "per relative seat: the most level cards it has shown this deal / 4"),
    (phase, 4, "declare, lead, follow, over (one-hot)"),
    (dealt, 1, "cards dealt / 216"),
    (redeals, 1, "deals without a showing so far / 3 (R8.5)"),
}

/// Length of the observation.
pub const OBS_DIM: usize = at::END;

/// Copies of a kind (card blocks), level cards shown: n / 4.
const COPIES: u32 = 4;
/// Cards held: n / 54.
const HELD: u32 = 54;
/// Points: n / 400.
const POINTS: u32 = 400;
/// Points come in steps of 5 (R7.1): the `u8` observation holds points / 5.
const POINT_STEP: i32 = 5;
/// Cards dealt: n / 216.
const DEALT: u32 = DECK as u32;
/// Deals without a showing (R8.5): n / 3.
const REDEALS: u32 = 3;

/// Every entry of the observation is a whole number over its block's denominator: the
/// denominators, block by block in [`LAYOUT`]'s order (one-hot blocks: 1).
pub const SCALE: &[(&str, u32)] = &[
    ("hand", COPIES),
    ("pending", COPIES),
    ("played", COPIES),
    ("trick", COPIES),
    ("trick_leader", 1),
    ("to_move", 1),
    ("hand_sizes", HELD),
    ("void", 1),
    ("points", POINTS),
    ("team_levels", 1),
    ("hand_level", 1),
    ("trump", 1),
    ("banker", 1),
    ("declarer", 1),
    ("declared_count", COPIES),
    ("shown", COPIES),
    ("phase", 1),
    ("dealt", DEALT),
    ("redeals", REDEALS),
];

/// The denominator of each `u8` entry: the float entry is the `u8` one over this (as
/// [`scales`], points over 400 / 5 = 80).
pub fn scales_u8() -> [u32; OBS_DIM] {
    let mut out = scales();
    for x in &mut out {
        if *x == POINTS {
            *x = POINTS / POINT_STEP as u32;
        }
    }
    out
}

/// The denominator of each entry (see [`SCALE`]).
pub fn scales() -> [u32; OBS_DIM] {
    let mut out = [1u32; OBS_DIM];
    for (&(name, at, len, _), &(sname, d)) in LAYOUT.iter().zip(SCALE) {
        debug_assert_eq!(name, sname);
        out[at..at + len].fill(d);
    }
    out
}

/// The largest whole number each entry can hold (what an integer network's overflow check
/// must assume, `agent::net`): its denominator, every entry being a fraction of at most one,
/// except the deals without a showing, a `u8` count that the competition profile lets run
/// to 255 (its redeal limit, R8.5 and C9: 84.67 over its denominator of 3).
pub fn maxima() -> [u32; OBS_DIM] {
    let mut out = scales();
    out[at::redeals] = u8::MAX as u32;
    out
}

/// A cell of the observation: `f32`, the learner's tensor (n / d); `i16`, the whole
/// numbers n themselves, which integer networks read (no float decides play); or `u8`, the
/// learner's compact copy: n, except points, which are n / 5 (every point count is a multiple
/// of 5, R7.1), so every entry fits (see [`scales_u8`]).
pub trait Entry: Copy + Default {
    /// The entry n / d.
    fn ratio(n: i32, d: u32) -> Self;
}

impl Entry for f32 {
    #[inline]
    fn ratio(n: i32, d: u32) -> f32 {
        n as f32 / d as f32
    }
}

impl Entry for i16 {
    #[inline]
    fn ratio(n: i32, _d: u32) -> i16 {
        n as i16 // |n| is at most a few hundred (points)
    }
}

impl Entry for u8 {
    #[inline]
    fn ratio(n: i32, d: u32) -> u8 {
        let n = if d == POINTS { n / POINT_STEP } else { n };
        n.clamp(0, u8::MAX as i32) as u8
    }
}

/// The version of [`LAYOUT`]: frozen once released; a new layout is a new version beside this
/// one (docs/learning.md keeps the history).
pub const OBS_VERSION: u32 = 1;

/// The suit renaming for `observer` (identity unless `canonical` and trump is known to it).
fn suit_map(pos: &Position, observer: u8, canonical: bool) -> [u8; 4] {
    if canonical {
        suits_renamed(known_trump(pos, observer))
    } else {
        SAME_SUITS
    }
}

/// Suit `s` becomes `m[s]`: trump first, the others in their order; identity for [`NOBODY`].
fn suits_renamed(trump: u8) -> [u8; 4] {
    if trump > 3 {
        return SAME_SUITS;
    }
    let mut m = [0u8; 4];
    let mut next = 1;
    for s in 0..4u8 {
        if s != trump {
            m[s as usize] = next;
            next += 1;
        }
    }
    m
}

/// The action ids renamed as `canonical` observations rename the suits, for a trump suit
/// `trump` known to the seat (anything above 3: unknown, no renaming): entry `id` is the
/// renamed id (cards and showings change suit; 52–55 stay).
pub fn canonical_ids(trump: u8) -> [u8; crate::encode::actions::ACTIONS] {
    let m = suits_renamed(trump);
    std::array::from_fn(|id| {
        let id = id as u8;
        match id {
            0..=51 => m[(id / 13) as usize] * 13 + id % 13,
            56.. => {
                let (s, c) = ((id - 56) / 4, (id - 56) % 4);
                56 + m[s as usize] * 4 + c
            }
            _ => id,
        }
    })
}

/// The trump suit as `observer` knows it: fixed after the deal; during it, the current
/// showing's suit only to its declarer (R8.2).
pub fn known_trump(pos: &Position, observer: u8) -> u8 {
    if pos.phase == Phase::Declare {
        if pos.declarer == observer {
            pos.declared_suit
        } else {
            NOBODY
        }
    } else {
        pos.trump
    }
}

/// No renaming.
const SAME_SUITS: [u8; 4] = [0, 1, 2, 3];

/// Writes the card block `c` (copies / 4) into `out[at..at + 54]`, suits renamed by `suits`.
#[inline]
fn put_cards<T: Entry>(out: &mut [T], at: usize, c: &Counts, suits: &[u8; 4]) {
    let out = &mut out[at..at + KINDS];
    if *suits == SAME_SUITS {
        // kind ids in order: one straight loop
        for (o, &n) in out.iter_mut().zip(c) {
            *o = T::ratio(n as i32, COPIES);
        }
        return;
    }
    for (s, &to) in suits.iter().enumerate() {
        let (dst, src) = (&mut out[to as usize * 13..][..13], &c[s * 13..][..13]);
        for (o, &n) in dst.iter_mut().zip(src) {
            *o = T::ratio(n as i32, COPIES);
        }
    }
    out[52] = T::ratio(c[52] as i32, COPIES);
    out[53] = T::ratio(c[53] as i32, COPIES);
}

/// Writes `observer`'s observation of `game` into `out[..OBS_DIM]`; `pending` is the play
/// the player to move is building (shown only to that player). As `f32` the entries are the
/// tensor of [`LAYOUT`]; as `i16` their numerators over [`SCALE`].
pub fn observe<T: Entry>(game: &Game, pending: &Counts, observer: u8, canonical: bool, out: &mut [T]) {
    observe_parts(&game.pos, &game.tally, game.levels, pending, observer, canonical, out)
}

/// [`observe`] from the parts it reads: the position, the hand's tally and the match's
/// levels (a search's worlds share the tally and levels of the true game: both are public).
pub fn observe_parts<T: Entry>(pos: &Position, t: &Tally, levels: [u8; 2], pending: &Counts, observer: u8, canonical: bool, out: &mut [T]) {
    let one = T::ratio(1, 1);
    let out = &mut out[..OBS_DIM];
    let suits = suit_map(pos, observer, canonical);
    let rel = |seat: u8| ((seat + 4 - observer) % 4) as usize;
    let seat_of = |r: usize| ((observer as usize + r) % 4) as u8;
    let live = matches!(pos.phase, Phase::Declare | Phase::Play);

    // The card blocks are written whole (or zeroed), then everything after them is zeroed
    // and its entries set.
    put_cards(out, at::hand, &pos.hands[observer as usize], &suits);
    if live && pos.to_move == observer {
        put_cards(out, at::pending, pending, &suits);
    } else {
        out[at::pending..][..KINDS].fill(T::default());
    }
    let in_trick = pos.phase == Phase::Play && pos.trick.plays > 0;
    if !in_trick {
        out[at::trick..][..4 * KINDS].fill(T::default());
    }
    out[at::trick_leader..].fill(T::default());
    for r in 0..4 {
        let s = seat_of(r) as usize;
        put_cards(out, at::played + r * KINDS, &t.played[s], &suits);
        if in_trick {
            put_cards(out, at::trick + r * KINDS, &t.trick[s], &suits);
        }
        out[at::hand_sizes + r] = T::ratio(crate::rules::card::size(&pos.hands[s]) as i32, HELD);
        for c in 0..5u8 {
            if t.void[s] & (1 << c) != 0 {
                let mc = if c == TRUMP { c } else { suits[c as usize] };
                out[at::void + r * 5 + mc as usize] = one;
            }
        }
        out[at::shown + r] = T::ratio(t.shown[s] as i32, COPIES);
    }
    if in_trick {
        out[at::trick_leader + rel(pos.trick.leader)] = one;
    }
    if live {
        out[at::to_move + rel(pos.to_move)] = one;
    }
    out[at::points] = T::ratio(pos.defender_points, POINTS);
    out[at::points + 1] = if in_trick { T::ratio(pos.trick.points as i32, POINTS) } else { T::default() };
    let team = (observer % 2) as usize;
    out[at::team_levels + (levels[team] - 3) as usize] = one;
    out[at::team_levels + 12 + (levels[1 - team] - 3) as usize] = one;
    out[at::hand_level + (pos.level - 3) as usize] = one;
    let tr = known_trump(pos, observer);
    out[at::trump + if tr == NOBODY { 4 } else { suits[tr as usize] as usize }] = one;
    out[at::banker + if pos.banker == NOBODY { 4 } else { rel(pos.banker) }] = one;
    out[at::declarer + if pos.declarer == NOBODY { 4 } else { rel(pos.declarer) }] = one;
    out[at::declared_count] = T::ratio(pos.declared_count as i32, COPIES);
    let phase = match pos.phase {
        Phase::Declare => 0,
        Phase::Play if pos.trick.plays == 0 => 1,
        Phase::Play => 2,
        Phase::Over | Phase::Stopped => 3,
    };
    out[at::phase + phase] = one;
    out[at::dealt] = T::ratio(pos.dealt as i32, DEALT);
    out[at::redeals] = T::ratio(pos.redeals as i32, REDEALS);
}
