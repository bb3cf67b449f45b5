//! The uniform random policy: uniform over the distinct legal actions of each decision.
//!
//! While dealing: uniform over "pass" and every allowed showing. Leading: uniform over the
//! distinct combinations of the hand (`legal_leads`). Following: uniform over the distinct
//! legal follows (multisets), by the follow ladder's exact sampler (a single led: by
//! [`Follow::single`], the same draw). One xoshiro256** stream.

use crate::agent::view::SeatView;
use crate::game::hand::{Action, Game, Phase};
use crate::rules::card::{KINDS, UNITS};
use crate::rules::combo::LeadCounts;
use crate::rules::follow::{nth_bit, Follow};
use crate::util::rng::Rng;

/// The random policy's action for the seat of `view` (the hand is not over).
pub fn act(view: &SeatView, rng: &mut Rng) -> Action {
    random_choice(view, rng).expect("a legal action")
}

/// A uniformly random legal action for the player to move, or `None` when the hand is over.
pub fn random_action(game: &Game, rng: &mut Rng) -> Option<Action> {
    random_choice(&SeatView::of_game(game), rng)
}

/// The random policy's choice for the seat of `view`: uniform over its legal actions. It
/// draws exactly what [`crate::game::action_set::ActionSet::sample`] draws from the same stream
/// (tested), without building the set: this is the rollouts' inner loop.
pub fn random_choice(view: &SeatView, rng: &mut Rng) -> Option<Action> {
    match view.phase() {
        Phase::Declare => {
            let n = 1 + view.showings().count();
            Some(match rng.below_usize(n) {
                0 => Action::Pass,
                i => {
                    let s = view.showings().nth(i - 1).expect("i < n");
                    Action::Declare { suit: s.suit, count: s.count }
                }
            })
        }
        Phase::Play => match view.lead() {
            // a single led: a uniform kind among those it may be followed with, in kind order
            // (the follow set's own draw, without building it)
            Some(lead) if lead.size() == 1 => {
                let kinds = Follow::single(view.ctx(), view.hand(), lead.class);
                if kinds == 0 {
                    return None; // (an empty hand: as the set's sample)
                }
                let r = rng.below(kinds.count_ones() as u128) as u32;
                Some(Action::Play(UNITS[0][nth_bit(kinds, r).expect("r < the kinds") as usize]))
            }
            Some(_) => view.follow().expect("a lead").legal_set(&[0; KINDS]).sample(rng).map(Action::Play),
            None => {
                let (ctx, hand) = (view.ctx(), view.hand());
                let leads = LeadCounts::of(ctx, hand);
                let r = rng.below_usize(leads.total);
                leads.nth(ctx, hand, r).map(|c| Action::Play(if c.k == 1 { UNITS[c.m as usize - 1][c.first as usize] } else { c.counts(ctx) }))
            }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::hand::NOBODY;
    use crate::rules::profile::Profile;

    /// The winner `Position::play_unchecked` keeps as a trick goes (plays that cannot win are
    /// not classified, a one-kind play is a unit) against `trick_winner`, which classifies
    /// every play, on random hands of every profile.
    #[test]
    fn the_kept_winner_is_the_trick_winner() {
        let mut tricks = 0;
        for profile in Profile::ALL {
            for seed in 0..40u64 {
                let mut g = Game::deal(seed, profile, [3 + seed as u8 % 12; 2], NOBODY, None).unwrap();
                random_playout(&mut g, &mut Rng::new(seed));
                let ctx = g.pos.ctx();
                for t in &g.record.tricks {
                    let plays = t.plays.map(|p| p.1);
                    assert_eq!(t.plays[crate::rules::combo::trick_winner(ctx, &plays).unwrap()].0, t.winner);
                    tricks += 1;
                }
            }
        }
        assert!(tricks > 1000, "tricks: {tricks}");
    }

    #[test]
    fn random_choice_draws_what_the_action_set_draws() {
        for seed in 0..40u64 {
            let mut g = Game::deal(seed, Profile::Guigang, [3, 3], NOBODY, None).unwrap();
            let mut rng = Rng::new(seed);
            loop {
                let view = SeatView::of_game(&g);
                let (mut a, mut b) = (rng, rng);
                let x = random_choice(&view, &mut a);
                assert_eq!(x, view.actions().sample(&mut b));
                assert_eq!(a.next_u64(), b.next_u64(), "the same draws");
                let Some(x) = x else { break };
                g.apply(&x).unwrap();
                rng.next_u64();
            }
        }
    }
}
