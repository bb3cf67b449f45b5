//! What every search decides from and returns: the seat's determinizer, the candidates it
//! weighs, and the statistics of each.

use crate::agent::greedy;
use crate::agent::view::SeatView;
use crate::game::action_set::ActionSet;
use crate::game::hand::{Action, Phase, Tally};
use crate::infoset::determinize::Determinizer;
use crate::rules::error::Error;
use crate::util::rng::Rng;

/// One candidate's statistics: how often it was tried, the sum of the searching seat's
/// returns (levels, zero-sum per hand, R7.4) and the sum of their squares (the spread).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ActionStats {
    pub action: Action,
    pub visits: u64,
    pub total: i64,
    pub total_sq: i64,
}

impl ActionStats {
    /// A candidate not weighed (the only legal action).
    pub fn unweighed(action: Action) -> ActionStats {
        ActionStats { action, visits: 0, total: 0, total_sq: 0 }
    }
}

/// A search's decision and the statistics of every candidate it weighed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SearchResult {
    pub action: Action,
    pub stats: Vec<ActionStats>,
    /// PIMC: per world weighed, per candidate (in `stats`' order), the sum of the seat's
    /// returns over that world's rollouts; empty for ISMCTS.
    pub worlds: Vec<Vec<i64>>,
}

/// The decision of a flat search (PIMC, while dealing or playing): `totals[w][c]` holds the
/// sum and the sum of squares of the seat's returns over candidate c's `rollouts` playouts
/// in world w. The chosen candidate has the greatest total (ties: the earlier).
pub fn flat_result(cands: &[Action], totals: &[Vec<(i64, i64)>], rollouts: u32) -> SearchResult {
    let visits = totals.len() as u64 * rollouts as u64;
    let stats: Vec<ActionStats> = cands
        .iter()
        .enumerate()
        .map(|(c, a)| ActionStats {
            action: *a,
            visits,
            total: totals.iter().map(|t| t[c].0).sum(),
            total_sq: totals.iter().map(|t| t[c].1).sum(),
        })
        .collect();
    let best = stats.iter().enumerate().max_by_key(|(i, s)| (s.total, std::cmp::Reverse(*i))).expect("candidates").1;
    let worlds = totals.iter().map(|t| t.iter().map(|x| x.0).collect()).collect();
    SearchResult { action: best.action, stats, worlds }
}

/// The candidates a search weighs at a decision: every legal action when there are at most
/// `limit`, else `limit` draws (uniform over the distinct actions, duplicates dropped) plus
/// greedy's choice. In a fixed order for a given stream.
pub fn candidates(view: &SeatView, set: &mut ActionSet, limit: u128, rng: &mut Rng) -> Vec<Action> {
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

/// The determinizer of the seat to move: hands from the play's evidence
/// ([`Determinizer::for_search`]), or with `turns` the exact worlds of
/// [`Determinizer::new`], who was asked while dealing included (D7), whose tables are built
/// here by one world drawn from a fixed stream (the worlds do not depend on it), so that its
/// clones share them.
pub fn determinizer(view: &SeatView, turns: bool) -> Result<Determinizer, Error> {
    if view.phase() != Phase::Play {
        return Err(Error::IllegalAction {
            rule: "R6.3",
            message: "a search decides plays: the hand is not in its play phase".into(),
        });
    }
    let info = view
        .info()
        .ok_or_else(|| Error::BadArgument { what: "game", message: "a search needs the hand's record (a game kept without one)".into() })?;
    if !turns {
        return Ok(Determinizer::for_search(info));
    }
    let mut det = Determinizer::new(info);
    det.hands(&mut Rng::new(0))?;
    Ok(det)
}

/// The true game's tally and levels, which every world shares (both are public): what a
/// rollout policy that observes reads.
pub fn seen(view: &SeatView) -> Result<(Tally, [u8; 2]), Error> {
    view.seen()
        .map(|(t, l)| (*t, l))
        .ok_or_else(|| Error::BadArgument { what: "game", message: "a search needs the hand's tally (a game, not a bare position)".into() })
}
