//! Perfect-information Monte Carlo (PIMC): sample worlds the seat cannot tell from the true
//! one, play every candidate in each world with rollouts, pick the best total.
//!
//! Candidates: every legal play when there are at most [`CANDIDATES`], else that many
//! uniform draws (duplicates dropped) plus greedy's choice. World w is drawn with stream
//! `derive(seed, SEARCH, w)`; candidate c's rollouts in world w use
//! `derive(world seed, SEARCH, c)`. The chosen play has the greatest total return for the
//! seat (ties: the earlier candidate).
//!
//! With `solve=N`, once the seat holds at most N cards each world is solved exactly by the
//! open-card solver ([`crate::search::solve`]): a candidate's value in a world is the return
//! of its minimax score, counted for each of the world's rollouts (a world the solver cannot
//! finish within [`SOLVE_BUDGET`] nodes falls back to rollouts for the candidates left).
//!
//! With `value=net:PATH`, a candidate's value in a world (where the solver gives none) is the
//! return of the defenders' final score that network's value head predicts after the play,
//! from the observation of the seat to move then, counted for each rollout likewise.
//!
//! With `time_ms`, the worlds are weighed in rounds and no round starts once the time is
//! spent: the worlds weighed, and so the result, then depend on the machine.

use std::time::{Duration, Instant};

use crate::agent::net::NetPolicy;
use crate::agent::view::{Decide, SeatView};
use crate::game::hand::{Action, Phase, Position};
use crate::rules::error::Error;
use crate::util::parallel::take_turns;
use crate::util::rng::Rng;
use crate::util::seed::{derive, SEARCH};
use super::decision::{candidates, determinizer, flat_result, seen, ActionStats, SearchResult};
use super::rollout::rollout;
use super::solve::values;
use crate::rules::card::{size, Counts};

/// Candidates weighed at most (a void follower can have millions of plays).
pub const CANDIDATES: u128 = 24;

/// Nodes the solver may spend on one world (`solve=N`): past it that world's candidates
/// left unsolved are played out by rollouts.
pub const SOLVE_BUDGET: u64 = 2_000_000;

/// PIMC's parameters; `R` is the policy that plays the rollouts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PimcParams<R> {
    pub worlds: u32,
    pub rollouts: u32,
    pub rollout: R,
    /// With N > 0, when the seat holds at most N cards each world is solved exactly (the
    /// open-card solver, [`crate::search::solve`]) instead of played out by rollouts.
    pub solve: u8,
    /// A time budget in milliseconds (0: none): worlds are weighed in rounds of [`ROUND`] and
    /// no new round starts once it is spent (the first always runs). Only without one is the
    /// result a function of the seed alone.
    pub time_ms: u32,
    /// Search while dealing too (R8.1, [`crate::search::deal`]); else the searches show as
    /// greedy does.
    pub deal: bool,
    /// A network's value head ([`NetPolicy::score`]) values each candidate's position in each
    /// world in place of its rollouts (`value=net:PATH`; after the solver, where `solve`
    /// applies).
    pub value: Option<NetPolicy>,
    /// Worlds that keep who was asked to decide while dealing (`turns=1`, D7): exact, the
    /// worlds of `Game::determinize`, at several times the cost of a world; else hands from the
    /// play's evidence alone ([`crate::infoset::determinize::Determinizer::for_search`]).
    pub turns: bool,
}

/// Worlds weighed per round under a time budget.
pub const ROUND: usize = 4;

impl<R: Default> Default for PimcParams<R> {
    fn default() -> Self {
        PimcParams::new(R::default())
    }
}

impl<R> PimcParams<R> {
    /// The defaults: 32 worlds, 8 rollouts per candidate per world.
    pub fn new(rollout: R) -> Self {
        PimcParams { worlds: 32, rollouts: 8, rollout, solve: 0, time_ms: 0, deal: false, value: None, turns: false }
    }
}

/// PIMC for the seat to move in `view` (play phase, recorded game), on `threads` threads
/// (0: all cores; the result does not depend on it).
pub fn pimc<R: Decide + Sync>(view: &SeatView, p: &PimcParams<R>, seed: u64, threads: usize) -> Result<SearchResult, Error> {
    let start = Instant::now();
    let mut det = determinizer(view, p.turns)?;
    let (tally, levels) = seen(view)?;
    let observes = p.rollout.observes() || p.value.is_some();
    let seat = view.seat();
    let mut set = view.actions();
    let mut rng = Rng::new(derive(seed, SEARCH, u64::MAX));
    let cands = candidates(view, &mut set, CANDIDATES, &mut rng);
    if cands.len() == 1 {
        return Ok(SearchResult { action: cands[0], stats: vec![ActionStats::unweighed(cands[0])], worlds: Vec::new() });
    }
    // worlds first, in order (the determinizer is one stream of state), then the rollouts
    // world w from the stream derive(seed, SEARCH, w), drawn in order (the determinizer is
    // one stream of state): all first, or round by round under a time budget
    let mut drawn = 0u64;
    let mut draw_worlds = |n: u64| -> Result<Vec<(u64, Position)>, Error> {
        let mut out = Vec::with_capacity(n as usize);
        for w in drawn..(drawn + n).min(p.worlds as u64) {
            let wseed = derive(seed, SEARCH, w);
            let draw = det.hands(&mut Rng::new(wseed))?;
            out.push((wseed, view.position_with(&draw.hands)));
        }
        drawn += out.len() as u64;
        Ok(out)
    };
    let plays: Vec<Counts> = cands.iter().map(|a| match a { Action::Play(c) => *c, _ => unreachable!("plays") }).collect();
    let solving = p.solve > 0 && size(view.hand()) <= p.solve as usize;
    // per candidate: (sum, sum of squares) of the seat's returns over the world's rollouts
    let per_world = |&(wseed, pos): &(u64, Position)| -> Vec<(i64, i64)> {
        let exact = if solving { values(&pos, &plays, SOLVE_BUDGET) } else { vec![None; plays.len()] };
        let n = p.rollouts as i64;
        cands
            .iter()
            .enumerate()
            .map(|(c, a)| {
                if let Some(score) = exact[c] {
                    // the world's exact value, counted as every rollout's (visits stay comparable)
                    let r = pos.returns_for(score)[seat as usize] as i64;
                    return (r * n, r * r * n);
                }
                let Action::Play(cards) = a else { unreachable!("plays") };
                // the world after the candidate, with the public tally a network reads
                let after = || {
                    let (mut q, mut t) = (pos, tally);
                    if observes {
                        t.note_play(&q, cards);
                    }
                    q.play_unchecked(cards);
                    (q, t)
                };
                if let Some(v) = p.value {
                    let (q, t) = after();
                    let score = if q.phase == Phase::Play { v.score(&SeatView::of_seen(&q, &t, levels)) } else { None };
                    if let Some(r) = score.map(|s| q.returns_for(s)).or_else(|| q.returns()) {
                        let r = r[seat as usize] as i64;
                        return (r * n, r * r * n);
                    }
                }
                let mut rng = Rng::new(derive(wseed, SEARCH, c as u64));
                (0..p.rollouts).fold((0i64, 0i64), |(sum, sq), _| {
                    let (q, t) = after();
                    let r = rollout(q, t, levels, &p.rollout, &mut rng)[seat as usize] as i64;
                    (sum + r, sq + r * r)
                })
            })
            .collect()
    };
    let weigh = |ws: &[(u64, Position)]| -> Result<Vec<Vec<(i64, i64)>>, Error> {
        Ok(take_turns(ws.iter().collect(), threads, per_world)?)
    };
    let totals: Vec<Vec<(i64, i64)>> = if p.time_ms == 0 {
        weigh(&draw_worlds(p.worlds as u64)?)?
    } else {
        let deadline = start + Duration::from_millis(p.time_ms as u64);
        let mut done = Vec::new();
        loop {
            let round = draw_worlds(ROUND as u64)?;
            if round.is_empty() {
                break;
            }
            done.extend(weigh(&round)?);
            if Instant::now() >= deadline {
                break;
            }
        }
        done
    };
    Ok(flat_result(&cands, &totals, p.rollouts))
}
