//! The information-state tensor of one seat: its observation ([`crate::encode::observe`]),
//! then what it saw over the whole hand (OpenSpiel's perfect-recall view, which the OpenSpiel
//! adapter presents). Written into a caller's `f32` buffer; [`INFO_LAYOUT`] lists the blocks,
//! [`INFO_VERSION`] is their version (frozen like the observation's).
//!
//! Seats are relative to the observer (slot `r` is seat `(observer + r) % 4`). The deal
//! attempts kept are the last [`ATTEMPTS`]: every attempt of a guigang or nanning hand (R8.5
//! stops after three), and the last three of a competition hand, which redeals without limit
//! (C9). Showings are all made in the hand's last attempt (an attempt with one is not redealt),
//! at most four (R8.1: each shows more level cards than the one before).

use crate::encode::observe::{observe, OBS_DIM};
use crate::game::hand::Game;
use crate::rules::card::{Counts, DECK, KINDS};

/// Deal attempts the tensor keeps (the last ones).
pub const ATTEMPTS: usize = 3;
/// Showings of one attempt at most (R8.1).
pub const SHOWINGS: usize = 4;
/// One showing's row: attempt (one-hot over the kept attempts), relative seat (4), count
/// 1..4 (4), suit s h d c or hidden (5), cards dealt then / 216, present.
const SHOWING_ROW: usize = ATTEMPTS + 4 + 4 + 5 + 2;
/// One trick's row: its leader (one-hot), each relative seat's cards / 4.
const TRICK_ROW: usize = 4 + 4 * KINDS;

/// The blocks in order: (name, shape, meaning).
pub const INFO_LAYOUT: &[(&str, &[usize], &str)] = &[
    ("observation", &[OBS_DIM], "the observation tensor: the state as the seat sees it now"),
    ("first_seat", &[ATTEMPTS, 4], "per kept deal attempt: the relative seat that received the first card"),
    ("arrivals", &[ATTEMPTS, KINDS, KINDS], "per kept attempt: the kind of the seat's i-th card (one-hot)"),
    ("decisions", &[ATTEMPTS], "per kept attempt: the seat's own decisions so far / 55"),
    ("showings", &[SHOWINGS, SHOWING_ROW], "per showing in order: attempt, seat, count, suit or hidden, dealt / 216, present"),
    ("tricks", &[KINDS, TRICK_ROW], "per finished trick: its leader (one-hot), each seat's cards / 4"),
];

/// The version of [`INFO_LAYOUT`].
pub const INFO_VERSION: u32 = 1;

/// Length of the tensor.
pub const INFO_DIM: usize = OBS_DIM + ATTEMPTS * 4 + ATTEMPTS * KINDS * KINDS + ATTEMPTS + SHOWINGS * SHOWING_ROW + KINDS * TRICK_ROW;

/// Writes `observer`'s information state into `out[..INFO_DIM]` (`pending`: the play it is
/// building, when it is to move).
pub fn write(game: &Game, pending: &Counts, observer: u8, out: &mut [f32]) {
    let out = &mut out[..INFO_DIM];
    out.fill(0.0);
    observe(game, pending, observer, false, &mut out[..OBS_DIM]);
    let rel = |s: u8| ((s + 4 - observer) % 4) as usize;
    let info = game.info(observer);
    let kept = info.first_seats.len().saturating_sub(ATTEMPTS);
    let mut at = OBS_DIM;
    let (first_seat, decisions) = (at, at + ATTEMPTS * 4 + ATTEMPTS * KINDS * KINDS);
    let arrivals = at + ATTEMPTS * 4;
    for (a, &first) in info.first_seats.iter().enumerate().skip(kept) {
        let slot = a - kept;
        out[first_seat + slot * 4 + rel(first)] = 1.0;
        for (i, &k) in info.arrivals[a].iter().enumerate() {
            out[arrivals + (slot * KINDS + i) * KINDS + k as usize] = 1.0;
        }
        let n = info.own_decisions.iter().filter(|d| d.0 as usize == a).count();
        out[decisions + slot] = (n as f64 / (KINDS + 1) as f64) as f32;
    }
    at = decisions + ATTEMPTS;
    for (n, s) in info.showings.iter().enumerate().take(SHOWINGS) {
        let row = at + n * SHOWING_ROW;
        out[row + (s.attempt as usize).saturating_sub(kept).min(ATTEMPTS - 1)] = 1.0;
        out[row + ATTEMPTS + rel(s.seat)] = 1.0;
        out[row + ATTEMPTS + 4 + s.count as usize - 1] = 1.0;
        out[row + ATTEMPTS + 8 + s.suit.map_or(4, |x| x as usize)] = 1.0;
        out[row + ATTEMPTS + 13] = (s.dealt as f64 / DECK as f64) as f32;
        out[row + ATTEMPTS + 14] = 1.0;
    }
    at += SHOWINGS * SHOWING_ROW;
    for (t, trick) in info.tricks.iter().enumerate().take(KINDS) {
        let row = at + t * TRICK_ROW;
        out[row + rel(trick.leader)] = 1.0;
        for (seat, cards) in &trick.plays {
            let base = row + 4 + rel(*seat) * KINDS;
            for (k, &c) in cards.iter().enumerate() {
                out[base + k] = c as f32 / 4.0;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_layout_adds_up() {
        let total: usize = INFO_LAYOUT.iter().map(|(_, shape, _)| shape.iter().product::<usize>()).sum();
        assert_eq!(total, INFO_DIM);
    }
}
