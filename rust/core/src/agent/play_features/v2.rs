//! Play-features version 2: version 1's 74 features unchanged, then what a small network does
//! not easily work out from card counts: how many kinds the others may still hold that beat
//! the play of its shape, how many opponents still to play have shown they can ruff it, whose
//! the trick is once it is played and the points it then holds for each side, whether it wins
//! as far as the seat can see, the classes it empties, and the cards of its class still out.
//! "Unseen" cards are those neither in the seat's hand nor played this hand (the tally).

use super::{v1, Features};
use crate::agent::view::SeatView;
use crate::encode::observe::suits_renamed;
use crate::game::hand::{Action, Phase};
use crate::rules::card::{Counts, COPIES, KINDS};
use crate::rules::combo::Combo;
use crate::rules::trump::TRUMP;

/// This version's number.
pub const VERSION: u16 = 2;

/// The features in order: version 1's, then those version 2 adds.
pub const LAYOUT: &[super::Feature] = &[
    v1::LAYOUT[0],
    v1::LAYOUT[1],
    v1::LAYOUT[2],
    v1::LAYOUT[3],
    v1::LAYOUT[4],
    v1::LAYOUT[5],
    v1::LAYOUT[6],
    v1::LAYOUT[7],
    v1::LAYOUT[8],
    v1::LAYOUT[9],
    v1::LAYOUT[10],
    v1::LAYOUT[11],
    v1::LAYOUT[12],
    v1::LAYOUT[13],
    v1::LAYOUT[14],
    ("beaters", BEATERS, 1, 16, "as one combination of m copies a kind: kinds of its class stronger than its strongest kind (R2.3) with at least m copies unseen / 16"),
    ("ruffers", RUFFERS, 1, 2, "a play of one plain suit: opponents still to play to the trick shown void in that suit and not in trumps (R5.2) / 2"),
    ("team_best", TEAM_BEST, 1, 1, "once played, the trick's best play is the seat's team's (R6.1-R6.2; a lead: 1)"),
    ("trick_points", TRICK_POINTS, 1, 100, "points in the trick once it is played (R7.1) / 100"),
    ("points_ours", POINTS_OURS, 1, 100, "trick_points when team_best, else 0"),
    ("points_theirs", POINTS_THEIRS, 1, 100, "trick_points when not team_best, else 0"),
    ("safe", SAFE, 1, 1, "it wins the trick as far as the seat can see: the best so far, and the trick's last play or no beaters and no ruffers"),
    ("empties", EMPTIES, 1, 4, "classes (the four suits and trumps) the seat holds cards of and no longer would / 4"),
    ("class_unseen", CLASS_UNSEEN, 1, 108, "a play of one class: unseen cards of that class / 108"),
];
const BEATERS: usize = v1::DIM;
const RUFFERS: usize = BEATERS + 1;
const TEAM_BEST: usize = RUFFERS + 1;
const TRICK_POINTS: usize = TEAM_BEST + 1;
const POINTS_OURS: usize = TRICK_POINTS + 1;
const POINTS_THEIRS: usize = POINTS_OURS + 1;
const SAFE: usize = POINTS_THEIRS + 1;
const EMPTIES: usize = SAFE + 1;
const CLASS_UNSEEN: usize = EMPTIES + 1;
/// Features per candidate.
pub const DIM: usize = CLASS_UNSEEN + 1;

const BEYOND: &[(&str, u32)] = &[
    ("points", 54 * 10),
    ("beaters", KINDS as u32),
    ("trick_points", 400), // every point of the four decks (R7.1)
    ("points_ours", 400),
    ("points_theirs", 400),
    ("empties", 5),
    ("class_unseen", 4 * KINDS as u32),
];

/// Version 2, as an entry of [`super::FEATURES`].
pub const FEATURES: Features = Features { version: VERSION, dim: DIM, layout: LAYOUT, beyond: BEYOND, write };

fn write(view: &SeatView, actions: &[Action], from: usize, out: &mut Vec<i16>) {
    let suits = suits_renamed(view.known_trump());
    let (tally, _) = view.seen().expect("play features version 2 read the hand's tally: a game or a search's world, never a bare position");
    // what every candidate reads, once a decision (the play phase only: trump is then fixed)
    let seen = (view.phase() == Phase::Play).then(|| Seen::of(view, tally));
    for (i, a) in actions.iter().enumerate().skip(from) {
        let at = out.len();
        out.resize(at + DIM, 0);
        let row = &mut out[at..];
        let combo = v1::row(view, a, i == 0, &suits, row);
        if let (Action::Play(x), Some(seen)) = (a, &seen) {
            play(view, x, combo, seen, row);
        }
    }
}

/// A decision's part of the features: the seat's unseen cards, by kind and by class, and how
/// many kinds of each class it holds.
struct Seen {
    unseen: Counts,
    class_unseen: [i16; 5],
    held: [u8; 5],
    void: [u8; 4],
}

impl Seen {
    fn of(view: &SeatView, tally: &crate::game::hand::Tally) -> Seen {
        let ctx = view.ctx();
        let hand = view.hand();
        let mut seen = Seen { unseen: [0; KINDS], class_unseen: [0; 5], held: [0; 5], void: tally.void };
        for k in 0..KINDS {
            let played: u8 = tally.played.iter().map(|p| p[k]).sum();
            let u = COPIES.saturating_sub(hand[k] + played);
            let c = ctx.class[k] as usize;
            seen.unseen[k] = u;
            seen.class_unseen[c] += u as i16;
            seen.held[c] += (hand[k] > 0) as u8;
        }
        seen
    }
}

/// `combo`: the play as one combination, where it is one (version 1's row classified it).
fn play(view: &SeatView, x: &Counts, combo: Option<Combo>, seen: &Seen, row: &mut [i16]) {
    let ctx = view.ctx();
    let trick = view.trick();
    let seat = view.seat();
    let hand = view.hand();
    let lead = view.lead().is_none();
    let before = if lead { 0 } else { trick.plays };
    let last = before == 3;
    // the play's class, when all its cards are of one (R2.5), and the kinds of each class it
    // plays every copy of
    let mut class = None;
    let mut gone = [0u8; 5];
    for (k, &n) in x.iter().enumerate() {
        if n > 0 {
            let c = ctx.class[k];
            class = match class {
                None => Some(c),
                Some(d) if d == c => Some(c),
                Some(_) => Some(u8::MAX),
            };
            gone[c as usize] += (n == hand[k]) as u8;
        }
    }
    let class = class.filter(|&c| c != u8::MAX);
    let mut beaters = 0;
    if let Some(c) = combo {
        let top = c.kinds(ctx).map(|k| ctx.strength[k as usize]).max().unwrap_or(0);
        let mut kinds = ctx.class_mask[c.class as usize];
        while kinds != 0 {
            let k = kinds.trailing_zeros() as usize;
            kinds &= kinds - 1;
            beaters += (ctx.strength[k] > top && seen.unseen[k] >= c.m) as i16;
        }
    }
    row[BEATERS] = beaters;
    let mut ruffers = 0i16;
    if let Some(c) = class.filter(|&c| c != TRUMP) {
        for d in 1..=(3 - before) {
            let s = ((seat + d) % 4) as usize;
            if d % 2 == 1 && seen.void[s] & (1 << c) != 0 && seen.void[s] & (1 << TRUMP) == 0 {
                ruffers += 1;
            }
        }
    }
    row[RUFFERS] = ruffers;
    let wins = row[63] != 0;
    let team_best = lead || wins || trick.best_seat % 2 == seat % 2;
    let pts = if lead { 0 } else { trick.points as i16 } + row[64]; // row 64: the play's points (R7.1)
    row[TEAM_BEST] = team_best as i16;
    row[TRICK_POINTS] = pts;
    row[POINTS_OURS] = if team_best { pts } else { 0 };
    row[POINTS_THEIRS] = if team_best { 0 } else { pts };
    row[SAFE] = (wins && (last || (beaters == 0 && ruffers == 0))) as i16;
    row[EMPTIES] = (0..5).filter(|&c| seen.held[c] > 0 && gone[c] == seen.held[c]).count() as i16;
    if let Some(c) = class {
        row[CLASS_UNSEEN] = seen.class_unseen[c as usize];
    }
}
