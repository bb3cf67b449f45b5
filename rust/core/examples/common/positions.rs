//! Positions that several examples and benches measure on (each includes this file with
//! `#[path]`; it is not an example of its own).

#![allow(dead_code)] // each includer uses what it needs

use tractor_core::agent::greedy;
use tractor_core::agent::view::SeatView;
use tractor_core::game::action_set::ActionSet;
use tractor_core::game::hand::{Game, Phase, Position, NOBODY};
use tractor_core::policy::Policy;
use tractor_core::{Agent, Profile, Rng};

/// The hand greedy plays from `seed` in `profile` on every seat, replayed to four points of
/// it: halfway through the deal, just after it, halfway through the play, two actions from
/// the end.
pub fn greedy_cuts(seed: u64, profile: Profile) -> [Game; 4] {
    let mut g = Game::deal(seed, profile, [3, 3], NOBODY, None).unwrap();
    let mut rng = Rng::new(seed);
    let mut actions = Vec::new();
    while let Some(a) = Policy::Agent(Agent::Greedy).act(&g, &mut rng) {
        g.apply(&a).unwrap();
        actions.push(a);
    }
    let (deal_len, n) = (g.record.dealt_at.len(), actions.len());
    [deal_len / 2, deal_len + 2, deal_len + (n - deal_len) / 2, n - 2].map(|k| {
        let mut p = Game::deal(seed, profile, [3, 3], NOBODY, None).unwrap();
        for a in &actions[..k] {
            p.apply(a).unwrap();
        }
        p
    })
}

/// The FNV-1a digest of exact worlds (`Determinizer::new`) over `hands` greedy hands
/// ([`greedy_cuts`], the profiles in turn): every cut, every seat, a fresh determinizer per seat
/// and 8 worlds from it, their decks and hands; with the number of worlds.
pub fn world_digest(hands: u64) -> (usize, u64) {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let mut eat = |bytes: &[u8]| {
        for &b in bytes {
            h = (h ^ b as u64).wrapping_mul(0x100_0000_01b3);
        }
    };
    let mut worlds = 0;
    for seed in 0..hands {
        let profile = Profile::ALL[(seed % 3) as usize];
        for p in greedy_cuts(seed, profile) {
            for seat in 0..4u8 {
                let mut det = tractor_core::infoset::determinize::Determinizer::new(p.info(seat));
                let mut r = Rng::new(seed * 4 + seat as u64);
                for _ in 0..8 {
                    let w = det.world(&mut r).unwrap();
                    eat(&w.deck);
                    for hand in &w.pos.hands {
                        eat(hand);
                    }
                    worlds += 1;
                }
            }
        }
    }
    (worlds, h)
}

/// The hand greedy plays from `seed` on every seat, stopped at its play `40 + 7·seed mod 60`
/// (or at its end): the mid-hand positions the search examples time.
pub fn mid_hand(seed: u64) -> Game {
    let mut g = Game::deal(seed, Profile::Guigang, [3, 3], NOBODY, None).unwrap();
    let mut rng = Rng::new(seed);
    let mut plays = 0;
    while g.pos.phase != Phase::Over && !(g.pos.phase == Phase::Play && plays == 40 + seed as usize * 7 % 60) {
        if g.pos.phase == Phase::Play {
            plays += 1;
        }
        let a = Policy::Agent(Agent::Greedy).act(&g, &mut rng).unwrap();
        g.apply(&a).unwrap();
    }
    g
}

/// Trick-start positions with `k` cards a hand, one per seed (greedy plays, random showings).
pub fn endgames(k: usize, n: usize) -> Vec<Position> {
    let mut out = Vec::new();
    let mut seed = 0u64;
    while out.len() < n {
        seed += 1;
        let mut g = Game::deal(seed, Profile::Guigang, [3, 3], NOBODY, None).unwrap();
        let mut rng = Rng::new(seed);
        while matches!(g.pos.phase, Phase::Declare | Phase::Play) {
            let p = &g.pos;
            if p.phase == Phase::Play && p.trick.plays == 0 && tractor_core::rules::card::size(&p.hands[p.to_move as usize]) == k {
                out.push(g.pos);
                break;
            }
            let a = if g.pos.phase == Phase::Play {
                greedy::act(&SeatView::of_game(&g), &mut rng)
            } else {
                ActionSet::of(&g.pos).sample(&mut rng).unwrap()
            };
            g.apply(&a).unwrap();
        }
    }
    out
}

/// The trick start with `k` cards a hand of `benches/solve_speed.py`'s `endgame(seed, k)`:
/// `tractor.Game(seed=seed)` (a new match's first hand, `Match::new`), then the greedy policy
/// with `Rng::new(i)` at its i-th action (`Game.step_policy("greedy", i)`), i = 0, 1, 2, …;
/// None when the hand ends first.
pub fn bench_endgame(seed: u64, k: usize) -> Option<Position> {
    let (_, mut g) = tractor_core::Match::new(seed, Profile::Guigang);
    let policy = Policy::parse("greedy").unwrap();
    let mut i = 0u64;
    while matches!(g.pos.phase, Phase::Declare | Phase::Play) {
        let p = &g.pos;
        if p.phase == Phase::Play && p.trick.plays == 0 && tractor_core::rules::card::size(&p.hands[p.to_move as usize]) == k {
            return Some(g.pos);
        }
        let a = policy.act(&g, &mut Rng::new(i))?;
        g.apply(&a).unwrap();
        i += 1;
    }
    None
}

/// [`bench_endgame`] for seeds 1, 2, … until `n` are found (the bench's positions).
pub fn bench_endgames(k: usize, n: usize) -> Vec<Position> {
    let mut out = Vec::new();
    let mut seed = 0u64;
    while out.len() < n {
        seed += 1;
        out.extend(bench_endgame(seed, k));
    }
    out
}
