//! Observation version 1, frozen (docs/learning.md, "Observation layout (version 1)"): 636
//! entries in the blocks of [`LAYOUT`], each a whole number over its block's denominator in
//! [`SCALE`]. Its writer, [`ENCODING`]'s, reads the position and the hand's tally only.
//! The information-state tensors ([`crate::encode::info_state`], versions 1 and 2) begin
//! with this version's observation.

use super::{known_trump, put_cards, suit_map, Encoding, Entry, COPIES, DEALT, HELD, POINTS, REDEALS};
use crate::game::hand::{Phase, Position, Tally, NOBODY};
use crate::rules::card::{Counts, KINDS};
use crate::rules::trump::TRUMP;

/// This version's number.
pub const VERSION: u32 = 1;

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

/// The denominators, block by block in [`LAYOUT`]'s order (one-hot blocks: 1).
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

/// Version 1, as an entry of [`super::ENCODINGS`].
/// The entries that can pass their denominator: the deals without a showing, a `u8` count
/// that the competition profile lets run to 255 (its redeal limit, R8.5; 84.67 over 3).
const BEYOND: &[(&str, u32)] = &[("redeals", u8::MAX as u32)];

pub const ENCODING: Encoding =
    Encoding { version: VERSION, dim: DIM, layout: LAYOUT, scale: SCALE, beyond: BEYOND, write: writers!(write) };

/// Writes `observer`'s version-1 observation into `out[..DIM]` (see [`super::Writer`]).
pub fn write<T: Entry>(pos: &Position, t: &Tally, levels: [u8; 2], pending: &Counts, observer: u8, canonical: bool, out: &mut [T]) {
    let one = T::ratio(1, 1);
    let out = &mut out[..DIM];
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
