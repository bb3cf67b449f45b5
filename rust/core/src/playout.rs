//! The uniform random policy: uniform over the distinct legal actions of each decision.
//!
//! While dealing: uniform over "pass" and every allowed showing. Leading: uniform over the
//! distinct combinations of the hand (`legal_leads`). Following: uniform over the distinct
//! legal follows (multisets), by the follow ladder's exact sampler. One xoshiro256** stream.

use crate::card::KINDS;
use crate::combo::{count_leads, nth_lead};
use crate::hand_state::{Action, Game, Phase};
use crate::policy::SeatView;
use crate::rng::Rng;

/// A uniformly random legal action for the player to move, or `None` when the hand is over.
pub fn random_action(game: &Game, rng: &mut Rng) -> Option<Action> {
    random_choice(&SeatView::of_game(game), rng)
}

/// The random policy's choice for the seat of `view` (the same draws as
/// [`crate::action_set::ActionSet::sample`], without building the set while dealing).
pub fn random_choice(view: &SeatView, rng: &mut Rng) -> Option<Action> {
    match view.phase() {
        Phase::Declare => {
            let options: Vec<_> = view.showings().collect();
            let r = rng.below_usize(options.len() + 1);
            Some(match r {
                0 => Action::Pass,
                i => Action::Declare { suit: options[i - 1].suit, count: options[i - 1].count },
            })
        }
        Phase::Play => match view.follow() {
            None => {
                let (ctx, hand) = (view.ctx(), view.hand());
                let r = rng.below_usize(count_leads(ctx, hand));
                let c = nth_lead(ctx, hand, r).expect("r < count");
                Some(Action::Play(c.counts(ctx)))
            }
            Some(f) => f.legal_set(&[0; KINDS]).sample(rng).map(Action::Play),
        },
        Phase::Over | Phase::Stopped => None,
    }
}

/// Plays the hand to its end with [`random_action`].
pub fn random_playout(game: &mut Game, rng: &mut Rng) {
    while let Some(a) = random_action(game, rng) {
        game.apply(&a).expect("random actions are legal");
    }
}
