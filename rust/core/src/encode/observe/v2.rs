//! Observation version 2, for learners that score whole plays ([`crate::agent::play_net`]):
//! version 1's 636 entries unchanged, then what a small network cannot easily work out from
//! them: who holds the trick so far, the led combination's shape, and what the observer has
//! not seen (cards, trumps and points still out). Its writer writes version 1 and adds these.

use super::{known_trump, put_cards, suit_map, v1, Encoding, Entry, COPIES, DEALT, HELD, POINTS, REDEALS};
use crate::game::hand::{Phase, Position, Tally, NOBODY};
use crate::rules::card::{Counts, KINDS};
use crate::rules::score::KIND_POINTS;
use crate::rules::trump::TRUMP;

/// This version's number.
pub const VERSION: u32 = 2;

layout! {
    // version 1's blocks, frozen there (docs/learning.md); repeated here because the layout
    // names every block of the vector
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
    // added in version 2
    (trick_best, 5, "relative seat whose play is the trick's best so far (R6.1-R6.2), or none (one-hot)"),
    (lead_copies, 4, "the led combination: copies per kind, 1-4 (one-hot; none between tricks)"),
    (lead_kinds, 1, "the led combination: kinds in it (1 for a unit) / 16"),
    (lead_trump, 1, "the led combination is of trumps"),
    (unseen, 54, "copies of each kind neither in the observer's hand nor played / 4"),
    (trumps_unseen, 1, "trump cards neither in the observer's hand nor played / 108"),
    (points_unseen, 1, "points neither in the observer's hand nor played (R7.1) / 400"),
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
    ("trick_best", 1),
    ("lead_copies", 1),
    ("lead_kinds", 16),
    ("lead_trump", 1),
    ("unseen", COPIES),
    ("trumps_unseen", 108),
    ("points_unseen", POINTS),
];

const BEYOND: &[(&str, u32)] = &[("redeals", u8::MAX as u32)];

/// Version 2, as an entry of [`super::ENCODINGS`].
pub const ENCODING: Encoding =
    Encoding { version: VERSION, dim: DIM, layout: LAYOUT, scale: SCALE, beyond: BEYOND, write: writers!(write) };

/// Writes `observer`'s version-2 observation into `out[..DIM]`: version 1's, then the blocks
/// version 2 adds.
pub fn write<T: Entry>(pos: &Position, t: &Tally, levels: [u8; 2], pending: &Counts, observer: u8, canonical: bool, out: &mut [T]) {
    v1::write(pos, t, levels, pending, observer, canonical, out);
    let one = T::ratio(1, 1);
    let out = &mut out[..DIM];
    out[at::trick_best..].fill(T::default());
    let rel = |seat: u8| ((seat + 4 - observer) % 4) as usize;
    let in_trick = pos.phase == Phase::Play && pos.trick.plays > 0;
    match pos.lead().filter(|_| in_trick) {
        Some(lead) => {
            out[at::trick_best + rel(pos.trick.best_seat)] = one;
            out[at::lead_copies + (lead.m as usize - 1).min(3)] = one;
            out[at::lead_kinds] = T::ratio(lead.k as i32, 16);
            out[at::lead_trump] = if lead.is_trump() { one } else { T::default() };
        }
        None => out[at::trick_best + 4] = one,
    }
    let suits = suit_map(pos, observer, canonical);
    let mut unseen: Counts = [0; KINDS];
    let own = &pos.hands[observer as usize];
    // trumps are counted once trump is fixed (after the deal, R8.4)
    let ctx = (pos.phase != Phase::Declare && known_trump(pos, observer) != NOBODY).then(|| pos.ctx());
    let (mut trumps, mut pts) = (0i32, 0i32);
    for k in 0..KINDS {
        let played: u8 = t.played.iter().map(|p| p[k]).sum();
        let n = crate::rules::card::COPIES.saturating_sub(own[k] + played);
        unseen[k] = n;
        pts += n as i32 * KIND_POINTS[k];
        if ctx.is_some_and(|c| c.class[k] == TRUMP) {
            trumps += n as i32;
        }
    }
    put_cards(out, at::unseen, &unseen, &suits);
    out[at::trumps_unseen] = T::ratio(trumps, 108);
    out[at::points_unseen] = T::ratio(pts, POINTS);
}
