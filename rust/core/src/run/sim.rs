//! Bulk simulation: many hands or matches with built-in policies, in parallel, with results
//! identical whatever the thread count.
//!
//! Hand `i` of a run with seed `s` is the first hand of a fresh match (both teams at level 3,
//! the final declarer becomes banker) dealt from `derive(s, BATCH_HAND, i)`; seat `p` decides
//! with its own stream `Rng::new(derive(hand_seed, POLICY, p))`. So any index range can run
//! anywhere, in any order, and merge into one run.

use crate::game::hand::{Game, Phase, NOBODY};
use crate::game::match_state::Match;
use crate::policy::Policy;
use crate::rules::error::Error;
use crate::rules::profile::Profile;
use crate::util::parallel::over_range;
use crate::util::rng::Rng;
use crate::util::seed::{derive, BATCH_HAND, POLICY};

/// The summary of one simulated hand.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct HandResult {
    pub index: u64,
    pub hand_seed: u64,
    /// 255 when the hand stopped without a showing (R8.5).
    pub banker: u8,
    pub declarer: u8,
    pub trump: u8,
    pub level: u8,
    pub tricks: u8,
    pub score: i32,
    pub last_trick_cards: u8,
    pub banker_levels: u16,
    pub defender_levels: u16,
    pub defenders_take_over: bool,
    pub redeals: u8,
    pub stopped: bool,
    /// Decisions taken, and cards played.
    pub decisions: u16,
    /// Per seat: levels gained by its team minus the other's (R7.4; zero when stopped).
    pub returns: [i16; 4],
}

/// Plays one hand with `policies` per seat; optionally records its compact action stream.
pub fn play_hand(game: &mut Game, policies: &[Policy; 4], hand_seed: u64, mut record: Option<&mut Vec<u8>>) -> u16 {
    let mut rngs: [Rng; 4] = std::array::from_fn(|p| Rng::new(derive(hand_seed, POLICY, p as u64)));
    let mut decisions = 0u16;
    // no policy reads the tally: a light game need not keep it
    let blind = game.light && !policies.iter().any(|p| p.reads_tally());
    loop {
        let seat = game.pos.to_move as usize;
        let Some(action) = policies[seat].act(game, &mut rngs[seat]) else { break };
        if let Some(buf) = record.as_deref_mut() {
            crate::game::record::encode_action(&action, buf);
        }
        if blind {
            game.pos_apply_blind(&action);
        } else {
            game.pos_apply(&action);
        }
        decisions += 1;
    }
    decisions
}

/// Simulates hand `index` of a run.
pub fn simulate_hand(seed: u64, index: u64, policies: &[Policy; 4], profile: Profile, record: Option<&mut Vec<u8>>) -> HandResult {
    let hand_seed = derive(seed, BATCH_HAND, index);
    // search policies read the seat's info set, which comes from the hand's record
    let mut game = if policies.iter().any(|p| p.needs_record()) {
        Game::deal(hand_seed, profile, [3, 3], NOBODY, None).expect("valid levels and banker")
    } else {
        Game::deal_fast(hand_seed, profile, [3, 3], NOBODY)
    };
    let header_at = record.as_ref().map(|b| b.len());
    let mut record = record;
    if let Some(buf) = record.as_deref_mut() {
        crate::game::record::encode_header(index, hand_seed, profile, [3, 3], NOBODY, buf);
    }
    let decisions = play_hand(&mut game, policies, hand_seed, record.as_deref_mut());
    if let (Some(buf), Some(at)) = (record, header_at) {
        crate::game::record::finish(buf, at);
    }
    summarize(&game, index, hand_seed, decisions)
}

pub(crate) fn summarize(game: &Game, index: u64, hand_seed: u64, decisions: u16) -> HandResult {
    let p = &game.pos;
    let mut r = HandResult {
        index,
        hand_seed,
        banker: p.banker,
        declarer: p.declarer,
        trump: p.trump,
        level: p.level,
        tricks: p.tricks_done,
        redeals: p.redeals,
        stopped: p.phase == Phase::Stopped,
        decisions,
        last_trick_cards: p.last_lead_size,
        ..HandResult::default()
    };
    if let Some(o) = p.outcome() {
        r.score = o.score; // as the profile reads it (nanning clamps to 0..=400)
        // a hand's score is at least −400 − 400·54 (R7.3), so at most 273 levels (R7.4)
        r.banker_levels = o.banker_levels as u16;
        r.defender_levels = o.defender_levels as u16;
        r.defenders_take_over = o.defenders_take_over;
    }
    if let Some(ret) = p.returns() {
        r.returns = ret.map(|x| x as i16); // |x| ≤ 273 (R7.4)
    }
    r
}

/// Simulates hands `start .. start + count` on `threads` threads (0: all cores), in index
/// order. With `records`, also returns each hand's compact record.
pub fn simulate_range(
    seed: u64,
    start: u64,
    count: u64,
    policies: [Policy; 4],
    profile: Profile,
    threads: usize,
    records: bool,
) -> Result<(Vec<HandResult>, Vec<Vec<u8>>), Error> {
    let out = over_range(start, count, threads, |i| {
        let mut buf = Vec::new();
        let r = simulate_hand(seed, i, &policies, profile, records.then_some(&mut buf));
        (r, buf)
    })?;
    Ok(out.into_iter().unzip())
}

/// The summary of one simulated match.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct MatchResult {
    pub index: u64,
    /// The team that first passed A, or 255 if none within the cap.
    pub winner: u8,
    pub hands: u32,
    pub levels: [u8; 2],
    pub stops: u32,
}

/// Simulates match `index`: hands until a team passes A or `max_hands` are played.
pub fn simulate_match(seed: u64, index: u64, policies: &[Policy; 4], profile: Profile, max_hands: u32) -> MatchResult {
    let mseed = derive(seed, BATCH_HAND, index);
    let (mut m, mut game) = Match::new(mseed, profile);
    let mut stops = 0;
    while m.winner.is_none() && m.index < max_hands {
        let hand_seed = derive(mseed, crate::util::seed::MATCH_HAND, m.index as u64);
        play_hand(&mut game, policies, hand_seed, None);
        if game.pos.phase == Phase::Stopped {
            stops += 1;
        }
        game = m.next_hand(&game).expect("finished hand");
    }
    MatchResult {
        index,
        winner: m.winner.map_or(NOBODY, |w| w.0),
        hands: m.winner.map_or(m.index, |w| w.1 + 1),
        levels: m.levels,
        stops,
    }
}

pub fn simulate_matches(
    seed: u64,
    start: u64,
    count: u64,
    policies: [Policy; 4],
    profile: Profile,
    threads: usize,
    max_hands: u32,
) -> Result<Vec<MatchResult>, Error> {
    Ok(over_range(start, count, threads, |i| simulate_match(seed, i, &policies, profile, max_hands))?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::Agent;

    #[test]
    fn ranges_reach_the_last_index_and_no_further() {
        let p = [Policy::Agent(Agent::Random); 4];
        for threads in [0, 1, 2] {
            let rows = simulate_range(1, u64::MAX - 2, 3, p, Profile::Guigang, threads, false).unwrap().0;
            assert_eq!(rows.iter().map(|r| r.index).collect::<Vec<_>>(), vec![u64::MAX - 2, u64::MAX - 1, u64::MAX]);
            assert!(simulate_range(1, u64::MAX - 2, 4, p, Profile::Guigang, threads, false).is_err());
            assert!(simulate_range(1, u64::MAX, 0, p, Profile::Guigang, threads, false).unwrap().0.is_empty());
        }
    }

    #[test]
    fn results_do_not_depend_on_the_thread_count() {
        let p = [Policy::Agent(Agent::Greedy), Policy::Agent(Agent::Random), Policy::Agent(Agent::Greedy), Policy::Agent(Agent::Random)];
        let one = simulate_range(5, 10, 6, p, Profile::Guigang, 1, false).unwrap().0;
        for threads in [0, 2, 3, 2] {
            assert_eq!(simulate_range(5, 10, 6, p, Profile::Guigang, threads, false).unwrap().0, one);
        }
            }
}
