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
//! **The features** of each candidate are those of the version given
//! ([`crate::agent::play_features`]): a network's file names its version, self-play is given
//! one. The features never draw from the stream: every version has the same candidates.

use crate::agent::greedy;
use crate::agent::play_features::Features;
use crate::agent::view::SeatView;
use crate::agent::weights::Weights;
use crate::game::action_set::ActionSet;
use crate::game::hand::{Action, Phase};
use crate::rules::card::KINDS;
use crate::rules::combo::for_each_lead;
use crate::util::rng::Rng;

/// Following several cards: every legal follow is a candidate when there are at most this many.
pub const LIST_MAX: u128 = 32;
/// Otherwise, this many uniform draws (repeats dropped) beside greedy's fills.
pub const SAMPLES: usize = 16;

/// A decision's candidates and their features (`features[i * dim..][..dim]` is candidate
/// i's), reused from decision to decision.
#[derive(Clone, Debug, Default)]
pub struct Plays {
    pub actions: Vec<Action>,
    pub features: Vec<i16>,
    /// Every legal action is a candidate.
    pub complete: bool,
    /// Features per candidate (the version's).
    pub dim: usize,
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
        &self.features[i * self.dim..][..self.dim]
    }

    fn push(&mut self, a: Action) {
        if !self.actions.iter().any(|b| same(b, &a)) {
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

/// `a == b`, a play's counts compared as seven words with no branch and no call (a lead has
/// dozens of candidates, each compared with those before it).
#[inline]
fn same(a: &Action, b: &Action) -> bool {
    match (a, b) {
        (Action::Play(x), Action::Play(y)) => {
            let (x, y) = (crate::rules::card::words(x), crate::rules::card::words(y));
            x.iter().zip(&y).fold(0, |d, (p, q)| d | (p ^ q)) == 0
        }
        _ => a == b,
    }
}

/// The candidates of the seat to move in `view` (the hand is not over) with their features,
/// in version `feats`, into `out`; the base is greedy scoring with `base`, its action first.
pub fn candidates(view: &SeatView, base: &Weights, feats: &Features, rng: &mut Rng, out: &mut Plays) {
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
        // distinct leads hold distinct cards (twin: `combo`'s `distinct_leads_hold_distinct_cards`)
        (_, None) => for_each_lead(view.ctx(), view.hand(), |c| out.push_distinct(Action::Play(c.counts(view.ctx())))),
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
    out.dim = feats.dim;
    feats.write(view, &out.actions, 0, &mut out.features);
}

/// The index of `a` among `out`'s candidates, adding it (with its features) when it is not
/// one of them: a teacher's action that the generator did not offer (its features in version
/// `feats`, the candidates' own).
pub fn index_of(view: &SeatView, feats: &Features, out: &mut Plays, a: Action) -> usize {
    if let Some(i) = out.actions.iter().position(|x| *x == a) {
        return i;
    }
    debug_assert_eq!(out.dim, feats.dim, "the candidates' own version");
    out.actions.push(a);
    feats.write(view, &out.actions, out.actions.len() - 1, &mut out.features);
    out.actions.len() - 1
}
