//! Search over what a seat knows: rollouts, PIMC ([`pimc()`]) and single-observer ISMCTS
//! ([`ismcts()`]), generic over the policies of [`crate::policy`].
//!
//! Every search decides from the seat's [`SeatView`] and [`crate::info::InfoSet`]: worlds
//! come from [`Determinizer::for_search`] (hands from the play's evidence), so two games the
//! seat cannot tell apart get the same decision for the same seed. Each search stream is
//! `Rng::new(derive(seed, SEARCH, i))`, and totals are integers summed in a fixed order, so
//! results are identical for any thread count. No floats decide anything.

mod ismcts;
mod pimc;

pub use ismcts::{ismcts, IsmctsParams};
pub use pimc::{pimc, PimcParams};

use crate::action_set::ActionSet;
use crate::determinize::Determinizer;
use crate::error::Error;
use crate::hand_state::{Action, Game, Phase, Position};
use crate::policy::{greedy, SeatView};
use crate::rng::Rng;
use crate::seed::{derive, SEARCH};

/// The policy that plays rollouts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Rollout {
    Random,
    Greedy,
}

impl Rollout {
    pub fn name(self) -> &'static str {
        match self {
            Rollout::Random => "random",
            Rollout::Greedy => "greedy",
        }
    }

    fn choose(self, view: &SeatView, rng: &mut Rng) -> Action {
        match self {
            Rollout::Random => crate::playout::random_choice(view, rng).expect("a legal action"),
            Rollout::Greedy => greedy::act(view, rng),
        }
    }
}

/// One candidate's statistics: how often it was tried and the sum of the searching seat's
/// returns (levels, zero-sum per hand, R7.4).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ActionStats {
    pub action: Action,
    pub visits: u64,
    pub total: i64,
}

/// A search's decision and the statistics of every candidate it weighed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SearchResult {
    pub action: Action,
    pub stats: Vec<ActionStats>,
}

/// Plays a play-phase position to its end with `policy` for every seat; per-seat returns
/// (zero for a hand that cannot be scored).
pub fn rollout(mut pos: Position, policy: Rollout, rng: &mut Rng) -> [i32; 4] {
    while pos.phase == Phase::Play {
        let a = policy.choose(&SeatView::of_position(&pos), rng);
        let Action::Play(c) = a else { unreachable!("plays in the play phase") };
        pos.play_unchecked(&c);
    }
    pos.returns().unwrap_or([0; 4])
}

/// Plays `game` (any phase) to its end from its true state with `policy` for every seat,
/// keeping no record; per-seat returns (zero if the deal stops, R8.5).
pub fn playout(game: &Game, policy: Rollout, rng: &mut Rng) -> [i32; 4] {
    if game.pos.phase == Phase::Play {
        return rollout(game.pos, policy, rng);
    }
    let mut g = game.clone();
    g.light = true;
    g.record.actions.clear();
    g.record.tricks.clear();
    while matches!(g.pos.phase, Phase::Declare | Phase::Play) {
        let a = policy.choose(&SeatView::of_position(&g.pos), rng);
        g.pos_apply(&a);
    }
    g.pos.returns().unwrap_or([0; 4])
}

/// `n` playouts of `game`, playout i with the stream `derive(seed, SEARCH, i)`, on
/// `threads` threads (0: all cores); returns in index order.
pub fn playouts(game: &Game, n: u64, policy: Rollout, seed: u64, threads: usize) -> Result<Vec<[i32; 4]>, Error> {
    crate::sim::over_range(0, n, threads, |i| playout(game, policy, &mut Rng::new(derive(seed, SEARCH, i))))
}

/// The candidates a search weighs at a decision: every legal action when there are at most
/// `limit`, else `limit` draws (uniform over the distinct actions, duplicates dropped) plus
/// greedy's choice. In a fixed order for a given stream.
fn candidates(view: &SeatView, set: &mut ActionSet, limit: u128, rng: &mut Rng) -> Vec<Action> {
    if let Some(all) = set.all(limit) {
        return all;
    }
    let mut v = vec![greedy::act(view, rng)];
    for _ in 0..limit {
        let a = set.sample(rng).expect("a legal action");
        if !v.contains(&a) {
            v.push(a);
        }
    }
    v
}

/// The determinizer of the seat to move, with its counting programme built (so that it can
/// be cloned into threads).
fn determinizer(view: &SeatView) -> Result<Determinizer, Error> {
    if view.phase() != Phase::Play {
        return Err(Error::IllegalAction {
            rule: "R6.3",
            message: "a search decides plays: the hand is not in its play phase".into(),
        });
    }
    let info = view
        .info()
        .ok_or_else(|| Error::BadArgument { what: "game", message: "a search needs the hand's record (a game kept without one)".into() })?;
    Ok(Determinizer::for_search(info))
}

/// Integer square root.
fn isqrt(x: u64) -> u64 {
    if x < 2 {
        return x;
    }
    let mut r = (x as f64).sqrt() as u64; // a first guess, corrected exactly below
    let sq = |r: u64| r as u128 * r as u128;
    while sq(r) > x as u128 {
        r -= 1;
    }
    while sq(r + 1) <= x as u128 {
        r += 1;
    }
    r
}

/// ln(n) in Q32 fixed point, by integer arithmetic only (the same bits on every platform).
fn ln_q32(n: u64) -> u64 {
    debug_assert!(n >= 1);
    let e = 63 - n.leading_zeros() as u64; // integer part of log2
    // mantissa in [1, 2) as Q62
    let mut m: u128 = ((n as u128) << 62) >> e;
    let mut frac: u64 = 0;
    for _ in 0..32 {
        m = (m * m) >> 62;
        frac <<= 1;
        if m >= 2u128 << 62 {
            m >>= 1;
            frac |= 1;
        }
    }
    let log2_q32 = (e << 32) | frac;
    const LN2_Q32: u128 = 2_977_044_472; // ln 2 · 2^32
    ((log2_q32 as u128 * LN2_Q32) >> 32) as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fixed_point_ln_and_sqrt() {
        for n in [1u64, 2, 3, 10, 1000, 123_456_789] {
            let want = (n as f64).ln() * 4294967296.0;
            let got = ln_q32(n) as f64;
            assert!((got - want).abs() < 4.0 + want * 1e-8, "ln {n}: {got} vs {want}");
        }
        for x in [0u64, 1, 2, 3, 4, 15, 16, 17, u32::MAX as u64, 1 << 60] {
            let r = isqrt(x);
            assert!(r * r <= x && (r + 1) * (r + 1) > x);
        }
    }
}
