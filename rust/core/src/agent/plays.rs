//! Whole plays as a learner's actions: the candidate actions of a decision, each with a
//! feature row, for networks that score plays (DouZero's "action as input",
//! [`crate::agent::play_net`]) and for self-play samples ([`crate::learn::self_play`]).
//!
//! **The candidates** of the seat to move, in this order, without repeats:
//! 1. the **base**'s action (greedy scoring with the weights given, [`greedy::act_with`]),
//!    first, so that of equal scores it is kept;
//! 2. while dealing: every legal action (pass, and each showing the seat can make, R8.1);
//! 3. leading: every legal lead, one combination each (R3.4: no throws), in
//!    [`for_each_lead`]'s order;
//! 4. following a single: one card of every kind the seat may play (R5.3 T1, else R5.2);
//! 5. following several cards: every legal follow when there are at most [`LIST_MAX`];
//!    otherwise [`SAMPLES`] drawn uniformly from the legal follows, and greedy's R5.2 fills
//!    and cheapest ruff ([`greedy::short_fills`]).
//!
//! The set is **complete** (every legal action present) in cases 2–4 and in case 5 with at
//! most [`LIST_MAX`] follows. The draws come from the stream given, so the candidates are a
//! function of the position, the weights and the stream.
//!
//! **The features** of a candidate ([`DIM`] whole numbers, each over its denominator in
//! [`scales`], as the observation's entries are; [`LAYOUT`] names them): its cards (copies of
//! each kind, suits renamed trump-first as the seat knows trump, as a canonical observation
//! renames them), its size, whether it is one combination (R3.1–R3.2) and of which shape
//! (copies per kind, tractor length), whether it is of trumps, whether it would become the
//! trick's best play so far (R6.1–R6.2), the points it carries (R7.1), for a declaring
//! decision whether it passes or shows (how many cards, which suit) and whether it is the
//! base's action. A candidate's features read only the position as the seat knows it.

use crate::agent::greedy;
use crate::agent::view::SeatView;
use crate::agent::weights::Weights;
use crate::encode::observe::suits_renamed;
use crate::game::action_set::ActionSet;
use crate::game::hand::{Action, Phase};
use crate::rules::card::{Counts, KINDS};
use crate::rules::combo::{beats, classify, for_each_lead};
use crate::rules::score::points;
use crate::rules::trump::TRUMP;
use crate::util::rng::Rng;

/// The version of the candidate features (a play network's file names it).
pub const VERSION: u16 = 1;

/// Following several cards: every legal follow is a candidate when there are at most this many.
pub const LIST_MAX: u128 = 32;
/// Otherwise, this many uniform draws (repeats dropped) beside greedy's fills.
pub const SAMPLES: usize = 16;

/// The features in order: (name, offset, length, denominator, meaning).
pub const LAYOUT: &[(&str, usize, usize, u32, &str)] = &[
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

/// The denominator of each feature (a float learner reads feature / denominator).
pub fn scales() -> [u32; DIM] {
    let mut out = [1u32; DIM];
    for &(_, at, len, d, _) in LAYOUT {
        out[at..at + len].fill(d);
    }
    out
}

/// The largest whole number each feature can hold (an integer network's overflow check).
pub fn maxima() -> [u32; DIM] {
    let mut out = scales();
    out[64] = 54 * 10; // points: at most 10 a card (R7.1)
    out
}

/// A decision's candidates and their features (`features[i * DIM..][..DIM]` is candidate
/// i's), reused from decision to decision.
#[derive(Clone, Debug, Default)]
pub struct Plays {
    pub actions: Vec<Action>,
    pub features: Vec<i16>,
    /// Every legal action is a candidate.
    pub complete: bool,
}

impl Plays {
    pub fn len(&self) -> usize {
        self.actions.len()
    }

    pub fn is_empty(&self) -> bool {
        self.actions.is_empty()
    }

    /// Candidate i's features.
    pub fn row(&self, i: usize) -> &[i16] {
        &self.features[i * DIM..][..DIM]
    }

    fn push(&mut self, a: Action) {
        if !self.actions.contains(&a) {
            self.actions.push(a);
        }
    }

    /// [`Plays::push`] for a list of distinct actions: only the base's can be among them.
    fn push_distinct(&mut self, a: Action) {
        if self.actions[0] != a {
            self.actions.push(a);
        }
    }
}

/// The candidates of the seat to move in `view` (the hand is not over) with their features,
/// into `out`; the base is greedy scoring with `base`, its action first.
pub fn candidates(view: &SeatView, base: &Weights, rng: &mut Rng, out: &mut Plays) {
    out.actions.clear();
    out.features.clear();
    out.push(greedy::act_with(view, rng, base));
    out.complete = true;
    match (view.phase(), view.follow()) {
        (Phase::Declare, _) => {
            if let ActionSet::Declare(all) = view.actions() {
                all.into_iter().for_each(|a| out.push(a));
            }
        }
        (_, None) => for_each_lead(view.ctx(), view.hand(), |c| out.push(Action::Play(c.counts(view.ctx())))),
        (_, Some(f)) if f.n == 1 => {
            let pool = if f.s_size > 0 { f.s } else { f.hand };
            crate::rules::card::for_each_held(&pool, |k, _| {
                let mut x = [0u8; KINDS];
                x[k] = 1;
                out.push_distinct(Action::Play(x));
            });
        }
        (_, Some(f)) => {
            let mut set = f.legal_set(&[0; KINDS]);
            match set.all(LIST_MAX) {
                Ok(all) => all.into_iter().for_each(|x| out.push_distinct(Action::Play(x))), // a legal set lists each play once
                Err(_) => {
                    out.complete = false;
                    for _ in 0..SAMPLES {
                        if let Some(x) = set.sample(rng) {
                            out.push(Action::Play(x));
                        }
                    }
                    greedy::short_fills(view, &f, base).into_iter().for_each(|x| out.push(Action::Play(x)));
                }
            }
        }
    }
    out.features.resize(out.actions.len() * DIM, 0);
    let suits = suits_renamed(view.known_trump());
    for (i, a) in out.actions.iter().enumerate() {
        features(view, a, i == 0, &suits, &mut out.features[i * DIM..][..DIM]);
    }
}

/// The index of `a` among `out`'s candidates, adding it (with its features) when it is not
/// one of them: a teacher's action that the generator did not offer.
pub fn index_of(view: &SeatView, out: &mut Plays, a: Action) -> usize {
    if let Some(i) = out.actions.iter().position(|x| *x == a) {
        return i;
    }
    out.actions.push(a);
    let at = out.features.len();
    out.features.resize(at + DIM, 0);
    let suits = suits_renamed(view.known_trump());
    features(view, &a, false, &suits, &mut out.features[at..]);
    out.actions.len() - 1
}

/// One candidate's features (see [`LAYOUT`]) into `row` (zeroed).
fn features(view: &SeatView, a: &Action, base: bool, suits: &[u8; 4], row: &mut [i16]) {
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
        Action::Play(x) => play_features(view, x, lead, suits, row),
    }
}

fn play_features(view: &SeatView, x: &Counts, lead: bool, suits: &[u8; 4], row: &mut [i16]) {
    let ctx = view.ctx();
    let mut size = 0i16;
    let mut trumps = 0i16;
    for (k, &n) in x.iter().enumerate() {
        if n == 0 {
            continue;
        }
        let to = if k < 52 { suits[k / 13] as usize * 13 + k % 13 } else { k };
        row[to] = n as i16;
        size += n as i16;
        if ctx.class[k] == TRUMP {
            trumps += n as i16;
        }
    }
    row[54] = size;
    row[61] = (trumps == size) as i16;
    row[62] = trumps;
    row[64] = points(x) as i16;
    if let Some(c) = classify(ctx, x) {
        row[55] = 1;
        row[56 + (c.m as usize - 1).min(3)] = 1;
        row[60] = c.k as i16;
        row[63] = match view.lead() {
            None => lead as i16,
            Some(l) => beats(&l, &c, view.trick().best_key) as i16,
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_layout_is_contiguous_and_fills_the_row() {
        let mut at = 0;
        for &(name, off, len, d, _) in LAYOUT {
            assert_eq!(off, at, "{name}");
            assert!(d >= 1);
            at += len;
        }
        assert_eq!(at, DIM);
    }
}
