//! Rollouts: a position played to its end with one policy for every seat, and playouts of a
//! whole game from its true state. Generic over any policy that decides without search
//! ([`crate::policy::Agent`] names them).

use crate::agent::view::{Decide, SeatView};
use crate::game::hand::{Action, Game, Phase, Position, Tally};
use crate::rules::error::Error;
use crate::util::parallel::over_range;
use crate::util::rng::Rng;
use crate::util::seed::{derive, SEARCH};

/// Plays a play-phase position to its end with `policy` for every seat; per-seat returns
/// (zero for a hand that cannot be scored). `tally` and `levels` are the hand's public
/// record so far: a policy that observes ([`Decide::observes`], a network) reads them, and
/// the tally is then kept up to date play by play; for the others the position alone moves.
pub fn rollout<R: Decide>(pos: Position, tally: Tally, levels: [u8; 2], policy: &R, rng: &mut Rng) -> [i32; 4] {
    play_out(pos, tally, levels, policy, rng).returns().unwrap_or([0; 4])
}

/// [`rollout`]'s play, returning the final position (its phase is `Over`; its
/// `final_score` is the defenders' score, R7.3).
pub fn play_out<R: Decide>(mut pos: Position, mut tally: Tally, levels: [u8; 2], policy: &R, rng: &mut Rng) -> Position {
    let observes = policy.observes();
    while pos.phase == Phase::Play {
        let a = if observes {
            policy.decide(&SeatView::of_seen(&pos, &tally, levels), rng)
        } else {
            policy.decide(&SeatView::of_position(&pos), rng)
        };
        let Action::Play(c) = a else { unreachable!("plays in the play phase") };
        if observes {
            tally.note_play(&pos, &c);
        }
        pos.play_unchecked(&c);
    }
    pos
}

/// Plays `game` (any phase) to its end from its true state with `policy` for every seat,
/// keeping no record; per-seat returns (zero if the deal stops, R8.5).
pub fn playout<R: Decide>(game: &Game, policy: &R, rng: &mut Rng) -> [i32; 4] {
    playout_end(game, policy, rng).returns().unwrap_or([0; 4])
}

/// [`playout`]'s final position (its phase is `Over`, or `Stopped` if the deal stopped; its
/// `final_score` is the defenders' score, R7.3).
pub fn playout_end<R: Decide>(game: &Game, policy: &R, rng: &mut Rng) -> Position {
    if game.pos.phase == Phase::Play {
        return play_out(game.pos, game.tally, game.levels, policy, rng);
    }
    let mut g = game.clone();
    g.light = true;
    g.record.actions.clear();
    g.record.tricks.clear();
    while matches!(g.pos.phase, Phase::Declare | Phase::Play) {
        let a = policy.decide(&SeatView::of_game(&g), rng);
        g.pos_apply(&a);
    }
    g.pos
}

/// `n` playouts of `game`, playout i with the stream `derive(seed, SEARCH, i)`, on
/// `threads` threads (0: all cores); returns in index order.
pub fn playouts<R: Decide + Sync>(game: &Game, n: u64, policy: &R, seed: u64, threads: usize) -> Result<Vec<[i32; 4]>, Error> {
    Ok(over_range(0, n, threads, |i| playout(game, policy, &mut Rng::new(derive(seed, SEARCH, i))))?)
}

/// The defenders' final scores (R7.3) of the same playouts as [`playouts`] (None for a deal
/// that stops, R8.5): a finer signal than the returns, which step every 80 points (R7.4).
pub fn playout_scores<R: Decide + Sync>(game: &Game, n: u64, policy: &R, seed: u64, threads: usize) -> Result<Vec<Option<i32>>, Error> {
    Ok(over_range(0, n, threads, |i| {
        let end = playout_end(game, policy, &mut Rng::new(derive(seed, SEARCH, i)));
        (end.phase == Phase::Over).then_some(end.final_score)
    })?)
}
