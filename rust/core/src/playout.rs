//! The uniform random policy: uniform over the distinct legal actions of each decision.
//!
//! While dealing: uniform over "pass" and every allowed showing. Leading: uniform over the
//! distinct combinations of the hand (`legal_leads`). Following: uniform over the distinct
//! legal follows (multisets), by the follow ladder's exact sampler. One xoshiro256** stream.

use crate::card::KINDS;
use crate::combo::{count_leads, nth_lead};
use crate::hand_state::{Action, Game, Phase};
use crate::rng::Rng;

/// A uniformly random legal action for the player to move, or `None` when the hand is over.
pub fn random_action(game: &Game, rng: &mut Rng) -> Option<Action> {
    let pos = &game.pos;
    match pos.phase {
        Phase::Declare => {
            let options: Vec<_> = pos.showings(pos.to_move).collect();
            let r = rng.below_usize(options.len() + 1);
            Some(match r {
                0 => Action::Pass,
                i => Action::Declare { suit: options[i - 1].suit, count: options[i - 1].count },
            })
        }
        Phase::Play => match pos.follow() {
            None => {
                let (ctx, hand) = (pos.ctx(), &pos.hands[pos.to_move as usize]);
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
