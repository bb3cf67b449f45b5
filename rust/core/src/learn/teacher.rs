//! The teacher: a built-in policy that names, at a decision of a seat it does not play, the
//! action id it would take next, without changing the game. It decides once per decision,
//! from the game without the selection built so far, with its own stream; its whole ids are
//! its action (see [`crate::encode::actions::encode`]), so a seat that follows it id by id
//! plays the teacher's action.

use crate::encode::actions::encode;
use crate::game::hand::{Game, Phase};
use crate::policy::Policy;
use crate::util::rng::Rng;
use crate::util::seed::{derive, TEACHER};

/// One decision's teacher ids, asked once and kept until the decision is taken.
#[derive(Clone, Debug, Default)]
pub struct Taught {
    ids: Vec<u8>,
}

impl Taught {
    /// Forgets the ids: the decision was taken (or a new hand began).
    pub fn clear(&mut self) {
        self.ids.clear();
    }

    /// `t`'s next id for the seat to move in `game`, after the ids `trail` taken so far in
    /// this decision; -1 once `trail` has left `t`'s ids (or the hand is over). The first ask
    /// of a decision draws from `Rng::new(derive(stream, TEACHER, k))`, `k` the actions in the
    /// record so far.
    pub fn next(&mut self, t: &Policy, game: &Game, stream: u64, trail: &[u8]) -> i32 {
        if self.ids.is_empty() {
            let k = game.record.actions.len() as u64;
            let mut rng = Rng::new(derive(stream, TEACHER, k));
            if let Some(a) = t.act(game, &mut rng) {
                let lead = game.pos.phase == Phase::Play && game.pos.lead().is_none();
                self.ids = encode(&a, lead);
            }
        }
        match self.ids.strip_prefix(trail) {
            Some([next, ..]) => *next as i32,
            _ => -1,
        }
    }
}
