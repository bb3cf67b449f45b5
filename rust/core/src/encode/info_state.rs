//! The information-state tensor of one seat: its observation (version 1, frozen with these
//! layouts: [`crate::encode::observe::v1`]),
//! then what it saw over the whole hand (OpenSpiel's perfect-recall view, which the OpenSpiel
//! adapter presents). Written into a caller's `f32` buffer; [`INFO_LAYOUT`] lists the blocks,
//! [`INFO_VERSION`] is their version (frozen like the observation's).
//!
//! Seats are relative to the observer (slot `r` is seat `(observer + r) % 4`). The deal
//! attempts kept are the last [`ATTEMPTS`]: every attempt of a guigang or nanning hand (R8.5
//! stops after three), and the last three of a competition hand, which redeals without limit
//! (C9). Showings are all made in the hand's last attempt (an attempt with one is not redealt),
//! at most four (R8.1: each shows more level cards than the one before).

use crate::encode::observe::v1;
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
    ("observation", &[v1::DIM], "the observation tensor: the state as the seat sees it now"),
    ("first_seat", &[ATTEMPTS, 4], "per kept deal attempt: the relative seat that received the first card"),
    ("arrivals", &[ATTEMPTS, KINDS, KINDS], "per kept attempt: the kind of the seat's i-th card (one-hot)"),
    ("decisions", &[ATTEMPTS], "per kept attempt: the seat's own decisions so far / 55"),
    ("showings", &[SHOWINGS, SHOWING_ROW], "per showing in order: attempt, seat, count, suit or hidden, dealt / 216, present"),
    ("tricks", &[KINDS, TRICK_ROW], "per finished trick: its leader (one-hot), each seat's cards / 4"),
];

/// The version of [`INFO_LAYOUT`].
pub const INFO_VERSION: u32 = 1;

/// Length of the tensor.
pub const INFO_DIM: usize = v1::DIM + ATTEMPTS * 4 + ATTEMPTS * KINDS * KINDS + ATTEMPTS + SHOWINGS * SHOWING_ROW + KINDS * TRICK_ROW;

/// The compact layout (version 2): the same facts as [`INFO_LAYOUT`] in about a ninth of the
/// floats (each card's arrival and trick as a number instead of one-hot rows), for learners and
/// OpenSpiel's `rl_environment`, which copy the whole tensor at every step.
pub const INFO_LAYOUT_COMPACT: &[(&str, &[usize], &str)] = &[
    ("observation", &[v1::DIM], "the observation tensor: the state as the seat sees it now"),
    ("first_seat", &[ATTEMPTS, 4], "per kept deal attempt: the relative seat that received the first card"),
    (
        "arrivals",
        &[ATTEMPTS, KINDS, 4],
        "per kept attempt, per kind: when its copies reached the seat, ascending: (i + 1) / 54 for the seat's i-th card, 0 for copies not received",
    ),
    ("decisions", &[ATTEMPTS], "per kept attempt: the seat's own decisions so far / 55"),
    ("showings", &[SHOWINGS, SHOWING_ROW], "per showing in order: attempt, seat, count, suit or hidden, dealt / 216, present"),
    (
        "plays",
        &[4, KINDS, 4],
        "per relative seat, per kind: the finished tricks it played its copies in, ascending: (t + 1) / 54 for trick t, 0 for copies not played",
    ),
    ("leaders", &[KINDS, 4], "per finished trick: its leader (one-hot)"),
];

/// The version of [`INFO_LAYOUT_COMPACT`].
pub const INFO_VERSION_COMPACT: u32 = 2;

/// Length of the compact tensor.
pub const INFO_DIM_COMPACT: usize =
    v1::DIM + ATTEMPTS * 4 + ATTEMPTS * KINDS * 4 + ATTEMPTS + SHOWINGS * SHOWING_ROW + 4 * KINDS * 4 + KINDS * 4;

/// The seat's i-th card or trick `t` as the compact layout writes it: (i + 1) / 54.
fn ordinal(i: usize) -> f32 {
    ((i + 1) as f64 / KINDS as f64) as f32
}

/// Writes `observer`'s information state into `out[..INFO_DIM]` (`pending`: the play it is
/// building, when it is to move).
pub fn write(game: &Game, pending: &Counts, observer: u8, out: &mut [f32]) {
    write_layout(game, pending, observer, false, out)
}

/// As [`write()`] in the compact layout, into `out[..INFO_DIM_COMPACT]`.
pub fn write_compact(game: &Game, pending: &Counts, observer: u8, out: &mut [f32]) {
    write_layout(game, pending, observer, true, out)
}

fn write_layout(game: &Game, pending: &Counts, observer: u8, compact: bool, out: &mut [f32]) {
    let out = &mut out[..if compact { INFO_DIM_COMPACT } else { INFO_DIM }];
    out.fill(0.0);
    v1::ENCODING.observe(game, pending, observer, false, &mut out[..v1::DIM]);
    let rel = |s: u8| ((s + 4 - observer) % 4) as usize;
    let info = game.info(observer);
    let kept = info.first_seats.len().saturating_sub(ATTEMPTS);
    let first_seat = v1::DIM;
    let arrivals = first_seat + ATTEMPTS * 4;
    let decisions = arrivals + ATTEMPTS * KINDS * if compact { 4 } else { KINDS };
    for (a, &first) in info.first_seats.iter().enumerate().skip(kept) {
        let slot = a - kept;
        out[first_seat + slot * 4 + rel(first)] = 1.0;
        let mut copies = [0usize; KINDS];
        for (i, &k) in info.arrivals[a].iter().enumerate() {
            let k = k as usize;
            if compact {
                out[arrivals + (slot * KINDS + k) * 4 + copies[k]] = ordinal(i);
                copies[k] += 1;
            } else {
                out[arrivals + (slot * KINDS + i) * KINDS + k] = 1.0;
            }
        }
        let n = info.own_decisions.iter().filter(|d| d.0 as usize == a).count();
        out[decisions + slot] = (n as f64 / (KINDS + 1) as f64) as f32;
    }
    let mut at = decisions + ATTEMPTS;
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
    let (plays, leaders) = (at, at + 4 * KINDS * 4);
    let mut copies = [[0usize; KINDS]; 4];
    for (t, trick) in info.tricks.iter().enumerate().take(KINDS) {
        let row = at + t * TRICK_ROW;
        if compact {
            out[leaders + t * 4 + rel(trick.leader)] = 1.0;
        } else {
            out[row + rel(trick.leader)] = 1.0;
        }
        for (seat, cards) in &trick.plays {
            let r = rel(*seat);
            for (k, &c) in cards.iter().enumerate() {
                if compact {
                    for _ in 0..c {
                        out[plays + (r * KINDS + k) * 4 + copies[r][k]] = ordinal(t);
                        copies[r][k] += 1;
                    }
                } else {
                    out[row + 4 + r * KINDS + k] = c as f32 / 4.0;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::encode::actions::{Builder, Stepped, ACTIONS};
    use crate::rules::profile::Profile;
    use crate::util::rng::Rng;

    #[test]
    fn the_layouts_add_up() {
        let total: usize = INFO_LAYOUT.iter().map(|(_, shape, _)| shape.iter().product::<usize>()).sum();
        assert_eq!(total, INFO_DIM);
        let total: usize = INFO_LAYOUT_COMPACT.iter().map(|(_, shape, _)| shape.iter().product::<usize>()).sum();
        assert_eq!(total, INFO_DIM_COMPACT);
        const { assert!(INFO_DIM_COMPACT * 8 < INFO_DIM, "the compact layout is under an eighth of the full one") };
    }

    /// The full layout rebuilt from the compact one: each arrival and each trick's cards put
    /// back in their one-hot rows.
    fn expand(c: &[f32]) -> Vec<f32> {
        let mut f = vec![0f32; INFO_DIM];
        let slot = |x: f32| (x * KINDS as f32).round() as usize - 1;
        let head = v1::DIM + ATTEMPTS * 4;
        f[..head].copy_from_slice(&c[..head]);
        let (c_arr, f_arr) = (head, head);
        for a in 0..ATTEMPTS {
            for k in 0..KINDS {
                for x in &c[c_arr + (a * KINDS + k) * 4..][..4] {
                    if *x > 0.0 {
                        f[f_arr + (a * KINDS + slot(*x)) * KINDS + k] = 1.0;
                    }
                }
            }
        }
        let (c_rest, f_rest) = (c_arr + ATTEMPTS * KINDS * 4, f_arr + ATTEMPTS * KINDS * KINDS);
        let rest = ATTEMPTS + SHOWINGS * SHOWING_ROW;
        f[f_rest..][..rest].copy_from_slice(&c[c_rest..][..rest]);
        let (plays, leaders, tricks) = (c_rest + rest, c_rest + rest + 4 * KINDS * 4, f_rest + rest);
        for t in 0..KINDS {
            f[tricks + t * TRICK_ROW..][..4].copy_from_slice(&c[leaders + t * 4..][..4]);
        }
        for r in 0..4 {
            for k in 0..KINDS {
                for x in &c[plays + (r * KINDS + k) * 4..][..4] {
                    if *x > 0.0 {
                        f[tricks + slot(*x) * TRICK_ROW + 4 + r * KINDS + k] += 0.25;
                    }
                }
            }
        }
        f
    }

    /// The compact tensor holds the full one's facts: expanded, it is the full tensor, for
    /// every seat at thousands of positions of random hands in every profile (redeals included).
    #[test]
    fn the_compact_layout_is_the_full_one() {
        let (mut full, mut compact) = (vec![0f32; INFO_DIM], vec![0f32; INFO_DIM_COMPACT]);
        let mut positions = 0;
        for (n, profile) in Profile::ALL.iter().cycle().take(18).enumerate() {
            let mut g = Game::deal(n as u64 * 7 + 1, *profile, [3, 3], crate::game::hand::NOBODY, None).unwrap();
            let (mut rng, mut b) = (Rng::new(n as u64), Builder::default());
            let mut step = 0;
            // random ids (this layer's own way to play; the agents are a layer above)
            while matches!(g.pos.phase, crate::game::hand::Phase::Declare | crate::game::hand::Phase::Play) {
                if b.is_empty() && step % 3 == 0 {
                    for seat in 0..4 {
                        write(&g, &[0; KINDS], seat, &mut full);
                        write_compact(&g, &[0; KINDS], seat, &mut compact);
                        assert_eq!(expand(&compact), full, "{profile:?} hand {n} step {step} seat {seat}");
                        positions += 1;
                    }
                }
                let m = b.mask(&g.pos);
                let ids: Vec<u8> = (0..ACTIONS as u8).filter(|&a| m[a as usize]).collect();
                if let Stepped::Applied(_) = b.step(&mut g, ids[rng.below_usize(ids.len())]).unwrap() {
                    step += 1;
                }
            }
        }
        assert!(positions > 2000, "{positions}");
    }
}
