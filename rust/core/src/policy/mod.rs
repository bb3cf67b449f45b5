//! Built-in policies, mixable per seat: `random` (uniform over the distinct legal actions,
//! see [`crate::playout`]) and `greedy` (see [`greedy`]).

pub mod greedy;

use crate::error::Error;
use crate::hand_state::{Action, Game};
use crate::rng::Rng;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Policy {
    Random,
    Greedy,
}

impl Policy {
    pub fn parse(name: &str) -> Result<Policy, Error> {
        match name.trim().to_ascii_lowercase().as_str() {
            "random" => Ok(Policy::Random),
            "greedy" => Ok(Policy::Greedy),
            other => Err(Error::BadPlays(format!("unknown policy {other:?}: expected 'random' or 'greedy'"))),
        }
    }
    pub fn name(self) -> &'static str {
        match self {
            Policy::Random => "random",
            Policy::Greedy => "greedy",
        }
    }

    /// The policy's action for the player to move, or `None` once the hand is over.
    pub fn act(self, game: &Game, rng: &mut Rng) -> Option<Action> {
        if !matches!(game.pos.phase, crate::hand_state::Phase::Declare | crate::hand_state::Phase::Play) {
            return None;
        }
        match self {
            Policy::Random => crate::playout::random_action(game, rng),
            Policy::Greedy => Some(greedy::act(game, rng)),
        }
    }
}
