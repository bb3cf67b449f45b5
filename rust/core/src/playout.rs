//! The uniform random policy: uniform over the distinct legal actions of each decision.
//!
//! While dealing: uniform over "pass" and every allowed showing. Leading: uniform over the
//! distinct combinations of the hand (`legal_leads`). Following: uniform over the distinct
//! legal follows (multisets), by the follow ladder's exact sampler. One xoshiro256** stream.

use crate::hand_state::{Action, Game};
use crate::policy::SeatView;
use crate::rng::Rng;

/// A uniformly random legal action for the player to move, or `None` when the hand is over.
pub fn random_action(game: &Game, rng: &mut Rng) -> Option<Action> {
    random_choice(&SeatView::of_game(game), rng)
}

/// The random policy's choice for the seat of `view`: uniform over its legal actions, one
/// draw from the engine's [`crate::action_set::ActionSet`].
pub fn random_choice(view: &SeatView, rng: &mut Rng) -> Option<Action> {
    view.actions().sample(rng)
}

/// Plays the hand to its end with [`random_action`].
pub fn random_playout(game: &mut Game, rng: &mut Rng) {
    while let Some(a) = random_action(game, rng) {
        game.apply(&a).expect("random actions are legal");
    }
}
