//! Play-features version 1: a candidate's cards (copies of each kind, suits renamed
//! trump-first as the seat knows trump, as a canonical observation renames them), its size,
//! whether it is one combination (R3.1-R3.2) and of which shape (copies per kind, tractor
//! length), whether it is of trumps, whether it would become the trick's best play so far
//! (R6.1-R6.2), the points it carries (R7.1), for a declaring decision whether it passes or
//! shows (how many cards, which suit), and whether it is the base's action. Frozen: the
//! shipped play networks read it.

use super::Features;
use crate::agent::view::SeatView;
use crate::encode::observe::suits_renamed;
use crate::game::hand::{Action, Phase};
use crate::rules::card::Counts;
use crate::rules::combo::{beats, classify, Combo};
use crate::rules::score::points;
use crate::rules::trump::TRUMP;

/// This version's number.
pub const VERSION: u16 = 1;

/// The features in order: (name, offset, length, denominator, meaning).
pub const LAYOUT: &[super::Feature] = &[
    ("cards", 0, 54, 4, "copies of each kind / 4, suits renamed trump-first as the seat knows trump"),
    ("size", 54, 1, 54, "cards in the play / 54"),
    ("combination", 55, 1, 1, "the play is one combination (R3.1-R3.2)"),
    ("copies", 56, 4, 1, "as a combination: copies per kind, 1-4 (one-hot)"),
    ("tractor", 60, 1, 16, "as a combination: kinds in the tractor (1 for a unit) / 16"),
    ("trump", 61, 1, 1, "every card of the play is a trump (R2)"),
    ("trumps", 62, 1, 54, "trump cards in the play / 54"),
    ("wins", 63, 1, 1, "it would become the trick's best play so far (R6.1-R6.2; a lead: 1)"),
    ("points", 64, 1, 100, "points the play carries (R7.1) / 100"),
    ("pass", 65, 1, 1, "declaring: the seat passes"),
    ("show", 66, 1, 4, "declaring: level cards shown / 4 (R8.1)"),
    ("show_suit", 67, 4, 1, "declaring: the suit shown, renamed trump-first as the seat knows trump (one-hot)"),
    ("base", 71, 1, 1, "the base's (greedy with the given weights) action"),
    ("lead", 72, 1, 1, "the decision is a lead"),
    ("last", 73, 1, 1, "the decision is the trick's last play"),
];
/// Features per candidate.
pub const DIM: usize = 74;

const BEYOND: &[(&str, u32)] = &[("points", 54 * 10)]; // at most 10 a card (R7.1)

/// Version 1, as an entry of [`super::FEATURES`].
pub const FEATURES: Features = Features { version: VERSION, dim: DIM, layout: LAYOUT, beyond: BEYOND, write };

fn write(view: &SeatView, actions: &[Action], from: usize, out: &mut Vec<i16>) {
    let suits = suits_renamed(view.known_trump());
    for (i, a) in actions.iter().enumerate().skip(from) {
        let at = out.len();
        out.resize(at + DIM, 0);
        let _ = row(view, a, i == 0, &suits, &mut out[at..]);
    }
}

/// One candidate's version-1 features into `row[..DIM]` (zeroed); `base`: it is the base's
/// action (the first candidate). Returns the play as one combination, where it is one (what
/// later versions read again).
pub fn row(view: &SeatView, a: &Action, base: bool, suits: &[u8; 4], row: &mut [i16]) -> Option<Combo> {
    row[71] = base as i16;
    let lead = view.phase() == Phase::Play && view.lead().is_none();
    row[72] = lead as i16;
    row[73] = (view.phase() == Phase::Play && view.trick().plays == 3) as i16;
    match a {
        Action::Pass => row[65] = 1,
        Action::Declare { suit, count } => {
            row[66] = *count as i16;
            row[67 + suits[*suit as usize] as usize] = 1;
        }
        Action::Play(x) => return play(view, x, lead, suits, row),
    }
    None
}

fn play(view: &SeatView, x: &Counts, lead: bool, suits: &[u8; 4], row: &mut [i16]) -> Option<Combo> {
    let ctx = view.ctx();
    let mut size = 0i16;
    crate::rules::card::for_each_held(x, |k, n| {
        let to = if k < 52 { suits[k / 13] as usize * 13 + k % 13 } else { k };
        row[to] = n as i16;
        size += n as i16;
    });
    let trumps = crate::rules::card::size_and(x, &ctx.class_bytes[TRUMP as usize]) as i16;
    row[54] = size;
    row[61] = (trumps == size) as i16;
    row[62] = trumps;
    row[64] = points(x) as i16;
    let combo = classify(ctx, x);
    if let Some(c) = combo {
        row[55] = 1;
        row[56 + (c.m as usize - 1).min(3)] = 1;
        row[60] = c.k as i16;
        row[63] = match view.lead() {
            None => lead as i16,
            Some(l) => beats(&l, &c, view.trick().best_key) as i16,
        };
    }
    combo
}
