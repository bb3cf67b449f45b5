//! Search while dealing (R8.1): whether and what to show is a real decision. PIMC over the
//! actions offered (pass, then each showing): each is weighed in worlds drawn from what the
//! seat knows mid-deal (the other hands so far, the undealt cards and their order, the hidden
//! suits, R8.2; [`Determinizer::new`]), by playing the whole hand out from it with the
//! rollout policy.
//!
//! World w is drawn with the stream `derive(seed, SEARCH, w)` (in order: the determinizer is
//! one stream of state); candidate c's playouts in it use `derive(world seed, SEARCH, c)`. The
//! chosen action has the greatest total return for the seat (ties: the earlier), so passing
//! wins every tie. ISMCTS with `deal=1` runs the same flat search ([`ismcts_deal`]), its
//! iterations spent as two playouts per action per world.

use crate::agent::view::{Decide, SeatView};
use crate::game::hand::{Game, Phase};
use crate::infoset::determinize::Determinizer;
use crate::rules::error::Error;
use crate::util::parallel::take_turns;
use crate::util::rng::Rng;
use crate::util::seed::{derive, SEARCH};
use super::decision::{flat_result, ActionStats, SearchResult};
use super::ismcts::IsmctsParams;
use super::pimc::PimcParams;
use super::rollout::playout_end;

/// PIMC's decision while dealing for the seat to move in `game` (recorded, declare phase),
/// with `p.worlds` worlds and `p.rollouts` playouts per action per world, on `threads`
/// threads (0: all cores; the result does not depend on it).
pub fn pimc_deal<R: Decide + Sync>(game: &Game, p: &PimcParams<R>, seed: u64, threads: usize) -> Result<SearchResult, Error> {
    flat_deal(game, p.rollouts, &p.rollout, seed, threads, |_| p.worlds)
}

/// ISMCTS's decision while dealing (`deal=1`): the same flat search, its `iterations` spent as
/// two playouts per action per world (at least one world, at most [`MAX_DEAL_WORLDS`]).
pub fn ismcts_deal<R: Decide + Sync>(game: &Game, p: &IsmctsParams<R>, seed: u64, threads: usize) -> Result<SearchResult, Error> {
    flat_deal(game, 2, &p.rollout, seed, threads, |actions| (p.iterations / (2 * actions as u32).max(1)).clamp(1, MAX_DEAL_WORLDS))
}

/// The most worlds [`ismcts_deal`] draws (a world mid-deal costs far more than a playout).
pub const MAX_DEAL_WORLDS: u32 = 256;

/// The flat search while dealing: `worlds_for(actions offered)` worlds, `rollouts` playouts
/// of each action in each.
fn flat_deal<R: Decide + Sync>(
    game: &Game,
    rollouts: u32,
    rollout: &R,
    seed: u64,
    threads: usize,
    worlds_for: impl Fn(usize) -> u32,
) -> Result<SearchResult, Error> {
    if game.pos.phase != Phase::Declare {
        return Err(Error::BadArgument { what: "game", message: "search while dealing: the deal is over".into() });
    }
    let view = SeatView::of_game(game);
    let seat = view.seat();
    let cands = view.actions().all(u128::MAX).expect("a few actions while dealing");
    if cands.len() == 1 {
        return Ok(SearchResult { action: cands[0], stats: vec![ActionStats::unweighed(cands[0])], worlds: Vec::new() });
    }
    let info = view.info().ok_or_else(|| Error::BadArgument { what: "game", message: "a search needs the hand's record".into() })?;
    let mut det = Determinizer::new(info);
    let n_worlds = worlds_for(cands.len());
    let mut worlds = Vec::with_capacity(n_worlds as usize);
    for w in 0..n_worlds as u64 {
        let wseed = derive(seed, SEARCH, w);
        worlds.push((wseed, det.world(&mut Rng::new(wseed))?));
    }
    let per_world = |(wseed, world): &(u64, Game)| -> Vec<(i64, i64)> {
        cands
            .iter()
            .enumerate()
            .map(|(c, a)| {
                let mut rng = Rng::new(derive(*wseed, SEARCH, c as u64));
                let mut g = world.clone();
                g.light = true; // no record: the playout only needs the state
                g.pos_apply(a);
                (0..rollouts).fold((0i64, 0i64), |(sum, sq), _| {
                    let end = playout_end(&g, rollout, &mut rng);
                    let r = end.returns().map_or(0, |r| r[seat as usize]) as i64;
                    (sum + r, sq + r * r)
                })
            })
            .collect()
    };
    let totals: Vec<Vec<(i64, i64)>> = take_turns(worlds.iter().collect(), threads, per_world)?;
    Ok(flat_result(&cands, &totals, rollouts))
}
