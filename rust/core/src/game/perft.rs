//! Perft: the number of distinct lines of play of a given depth from a position, the
//! move-generation check of game engines. A line is a sequence of `depth` plays, each legal
//! where it is made (R3.4 leads, R5 follows); plays are counted as multisets (two copies of
//! one kind are one play), as everywhere in the engine. A hand that ends before `depth`
//! plays contributes no line (as in chess perft). The tests compare it with a brute force
//! that tries every sub-multiset of the mover's hand through [`Position::check_play`].

use crate::game::action_set::ActionSet;
use crate::game::hand::{Action, Phase, Position};
use crate::rules::error::Error;

/// The most plays one node may have: perft enumerates every one of them below the last level.
pub const NODE_LIMIT: u128 = 1_000_000;

/// The number of lines of `depth` plays from `pos` (the play phase; depth 0 counts 1).
pub fn perft(pos: &Position, depth: u32) -> Result<u128, Error> {
    if pos.phase == Phase::Declare {
        return Err(Error::BadArgument { what: "position", message: "perft counts lines of play: the deal is not over".into() });
    }
    count(pos, depth)
}

fn count(pos: &Position, depth: u32) -> Result<u128, Error> {
    if depth == 0 {
        return Ok(1);
    }
    let mut set = ActionSet::of(pos);
    if depth == 1 {
        return Ok(set.count());
    }
    let all = set.all(NODE_LIMIT).ok_or(Error::TooMany { limit: NODE_LIMIT, count: set.count() })?;
    let mut total = 0u128;
    for a in &all {
        let Action::Play(cards) = a else { unreachable!("the play phase has only plays") };
        let mut next = *pos;
        next.play_unchecked(cards);
        total += count(&next, depth - 1)?;
    }
    Ok(total)
}
