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

use crate::game::hand::{Game, Phase, Position, NOBODY};
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
fn put_cards(out: &mut [f32], at: usize, c: &Counts, suits: &[u8; 4]) {
    let out = &mut out[at..at + KINDS];
    if *suits == SAME_SUITS {
        // kind ids in order: one straight loop
        for (o, &n) in out.iter_mut().zip(c) {
            *o = n as f32 * 0.25;
        }
        return;
    }
    for (s, &to) in suits.iter().enumerate() {
        let (dst, src) = (&mut out[to as usize * 13..][..13], &c[s * 13..][..13]);
        for (o, &n) in dst.iter_mut().zip(src) {
            *o = n as f32 * 0.25;
        }
    }
    out[52] = c[52] as f32 * 0.25;
    out[53] = c[53] as f32 * 0.25;
}

/// Writes `observer`'s observation of `game` into `out[..OBS_DIM]`; `pending` is the play
/// the player to move is building (shown only to that player).
pub fn observe(game: &Game, pending: &Counts, observer: u8, canonical: bool, out: &mut [f32]) {
    let out = &mut out[..OBS_DIM];
    let pos = &game.pos;
    let t = &game.tally;
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
        out[at::pending..][..KINDS].fill(0.0);
    }
    let in_trick = pos.phase == Phase::Play && pos.trick.plays > 0;
    if !in_trick {
        out[at::trick..][..4 * KINDS].fill(0.0);
    }
    out[at::trick_leader..].fill(0.0);
    for r in 0..4 {
        let s = seat_of(r) as usize;
        put_cards(out, at::played + r * KINDS, &t.played[s], &suits);
        if in_trick {
            put_cards(out, at::trick + r * KINDS, &t.trick[s], &suits);
        }
        out[at::hand_sizes + r] = crate::rules::card::size(&pos.hands[s]) as f32 / 54.0;
        for c in 0..5u8 {
            if t.void[s] & (1 << c) != 0 {
                let mc = if c == TRUMP { c } else { suits[c as usize] };
                out[at::void + r * 5 + mc as usize] = 1.0;
            }
        }
        out[at::shown + r] = t.shown[s] as f32 * 0.25;
    }
    if in_trick {
        out[at::trick_leader + rel(pos.trick.leader)] = 1.0;
    }
    if live {
        out[at::to_move + rel(pos.to_move)] = 1.0;
    }
    out[at::points] = pos.defender_points as f32 / 400.0;
    out[at::points + 1] = if in_trick { pos.trick.points as f32 / 400.0 } else { 0.0 };
    let team = (observer % 2) as usize;
    out[at::team_levels + (game.levels[team] - 3) as usize] = 1.0;
    out[at::team_levels + 12 + (game.levels[1 - team] - 3) as usize] = 1.0;
    out[at::hand_level + (pos.level - 3) as usize] = 1.0;
    let tr = known_trump(pos, observer);
    out[at::trump + if tr == NOBODY { 4 } else { suits[tr as usize] as usize }] = 1.0;
    out[at::banker + if pos.banker == NOBODY { 4 } else { rel(pos.banker) }] = 1.0;
    out[at::declarer + if pos.declarer == NOBODY { 4 } else { rel(pos.declarer) }] = 1.0;
    out[at::declared_count] = pos.declared_count as f32 * 0.25;
    let phase = match pos.phase {
        Phase::Declare => 0,
        Phase::Play if pos.trick.plays == 0 => 1,
        Phase::Play => 2,
        Phase::Over | Phase::Stopped => 3,
    };
    out[at::phase + phase] = 1.0;
    out[at::dealt] = pos.dealt as f32 / DECK as f32;
    out[at::redeals] = pos.redeals as f32 / 3.0;
}
