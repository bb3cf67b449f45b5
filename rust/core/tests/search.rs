//! Searches decide from what the seat knows: deterministic per seed, the same for 1 and 2
//! threads, and the same for a game and a world the seat cannot tell from it.

use tractor_core::Agent;
use tractor_core::agent::view::SeatView;
use tractor_core::game::hand::{Game, Phase, NOBODY};
use tractor_core::infoset::determinize::Determinizer;
use tractor_core::policy::Policy;
use tractor_core::search::ismcts::{ismcts, IsmctsParams};
use tractor_core::search::pimc::{pimc, PimcParams};
use tractor_core::search::rollout::playouts;
use tractor_core::{Profile, Rng};

/// A dealt hand played by greedy up to its `k`-th play decision.
fn position(seed: u64, k: usize) -> Game {
    let mut g = Game::deal(seed, Profile::Guigang, [3, 3], NOBODY, None).unwrap();
    let mut rng = Rng::new(seed);
    let mut plays = 0;
    while g.pos.phase != Phase::Over {
        if g.pos.phase == Phase::Play {
            if plays == k {
                break;
            }
            plays += 1;
        }
        let a = Policy::Agent(Agent::Greedy).act(&g, &mut rng).unwrap();
        g.apply(&a).unwrap();
    }
    g
}

#[test]
fn searches_are_deterministic_thread_independent_and_see_only_the_info_set() {
    for ((seed, k), turns) in [(1u64, 0usize), (2, 5), (3, 41), (4, 90), (5, 150)].into_iter().flat_map(|p| [(p, false), (p, true)]) {
        let pp = PimcParams { worlds: 4, rollouts: 2, rollout: Agent::Random, solve: 0, time_ms: 0, deal: false, value: None, turns };
        let ip = IsmctsParams { iterations: 120, c_milli: 700, rollout: Agent::Random, trees: 2, time_ms: 0, solve: 0, deal: false, value: None, turns, first: None, prior: None, from: 0 };
        let g = position(seed, k);
        if g.pos.phase != Phase::Play {
            continue;
        }
        let view = SeatView::of_game(&g);
        let a1 = pimc(&view, &pp, 9, 1).unwrap();
        assert_eq!(a1, pimc(&view, &pp, 9, 2).unwrap());
        let b1 = ismcts(&view, &ip, 9, 1).unwrap();
        assert_eq!(b1, ismcts(&view, &ip, 9, 2).unwrap());
        // greedy named as the guide is the default guide
        assert_eq!(ismcts(&view, &IsmctsParams { first: Some(Agent::Greedy), ..ip }, 9, 1).unwrap(), b1);
        assert!(view.actions().contains(&a1.action) && view.actions().contains(&b1.action));
        assert!(b1.stats.iter().map(|s| s.visits).sum::<u64>() as u32 <= ip.iterations);
        // a world the seat cannot tell from the game: the same decisions
        let seat = g.pos.to_move;
        let w = Determinizer::new(g.info(seat)).world(&mut Rng::new(seed)).unwrap();
        assert_ne!(w.pos.hands, g.pos.hands, "a fresh deal of the unseen cards");
        let wv = SeatView::of_game(&w);
        assert_eq!(pimc(&wv, &pp, 9, 1).unwrap(), a1);
        assert_eq!(ismcts(&wv, &ip, 9, 1).unwrap(), b1);
    }
}

/// With `turns=1`, PIMC's world w is `Determinizer::new`'s exact world from the stream
/// `derive(seed, SEARCH, w)` (the worlds of `Game::determinize`, tested against rejection
/// sampling in tests/determinize.rs): every candidate's rollout, replayed by hand in those
/// worlds, gives PIMC's per-world returns. Without it the worlds differ (who was asked is not
/// evidence there).
#[test]
fn pimc_with_turns_weighs_the_exact_worlds_of_determinize() {
    use tractor_core::agent::view::Decide;
    use tractor_core::game::hand::Action;
    use tractor_core::search::decision::seen;
    use tractor_core::search::rollout::rollout;
    use tractor_core::util::seed::{derive, SEARCH};
    let (mut checked, mut differ) = (0, 0);
    for (seed, k) in [(11u64, 0usize), (12, 7), (13, 40), (14, 88), (15, 120), (16, 170)] {
        let g = position(seed, k);
        if g.pos.phase != Phase::Play {
            continue;
        }
        let view = SeatView::of_game(&g);
        let seat = g.pos.to_move;
        let (tally, levels) = seen(&view).unwrap();
        assert!(!Agent::Greedy.observes(), "the replay below passes the tally as the search's rollouts do");
        let p = PimcParams { worlds: 5, rollouts: 1, rollout: Agent::Greedy, turns: true, ..PimcParams::default() };
        let r = pimc(&view, &p, 21, 1).unwrap();
        if r.stats.len() < 2 {
            continue;
        }
        let blind = pimc(&view, &PimcParams { turns: false, ..p }, 21, 1).unwrap();
        differ += (blind.worlds != r.worlds) as usize;
        for (w, totals) in r.worlds.iter().enumerate() {
            let wseed = derive(21, SEARCH, w as u64);
            let world = Determinizer::new(g.info(seat)).world(&mut Rng::new(wseed)).unwrap();
            let pos = view.position_with(&world.pos.hands);
            for (c, s) in r.stats.iter().enumerate() {
                let Action::Play(cards) = s.action else { unreachable!("plays") };
                let mut q = pos;
                q.play_unchecked(&cards);
                let ret = rollout(q, tally, levels, &Agent::Greedy, &mut Rng::new(derive(wseed, SEARCH, c as u64)));
                assert_eq!(totals[c], ret[seat as usize] as i64, "seed {seed}, world {w}, candidate {c}");
            }
        }
        checked += 1;
    }
    assert!(checked >= 4 && differ >= 1, "{checked} positions checked, {differ} differing without turns");
}

#[test]
fn search_policies_play_whole_hands() {
    let p = Policy::parse("ismcts:iterations=30,trees=1").unwrap();
    assert_eq!(p, Policy::parse(&p.name()).unwrap());
    assert_eq!(Policy::parse("pimc:worlds=2,rollouts=1,rollout=greedy").unwrap().name(), "pimc:worlds=2,rollouts=1,rollout=greedy");
    for (name, canonical) in [
        ("pimc:worlds=2,rollouts=1,rollout=greedy,turns=1", "pimc:worlds=2,rollouts=1,rollout=greedy,turns=1"),
        ("PIMC:Turns=0,worlds=2,rollouts=1,rollout=greedy", "pimc:worlds=2,rollouts=1,rollout=greedy"),
        ("ismcts:turns=1,iterations=30,trees=1", "ismcts:iterations=30,c=0.700,rollout=random,trees=1,turns=1"),
    ] {
        assert_eq!(Policy::parse(name).unwrap().name(), canonical);
    }
    assert!(Policy::parse("pimc:turns=2").is_err() && Policy::parse("ismcts:turns=yes").is_err());
    assert!(Policy::parse("ismcts:c=abc").is_err());
    assert!(Policy::parse("ismcts:iterations=0").is_err());
    assert!(Policy::parse("greedy:x=1").is_err());
    let policies = [p, Policy::Agent(Agent::Greedy), Policy::parse("pimc:worlds=2,rollouts=1").unwrap(), Policy::Agent(Agent::Random)];
    let r = tractor_core::run::sim::simulate_hand(5, 0, &policies, Profile::Guigang, None);
    assert!(r.tricks > 0 || r.stopped);
}

#[test]
fn playouts_are_deterministic_and_zero_sum() {
    let g = position(7, 20);
    let a = playouts(&g, 16, &Agent::Greedy, 3, 1).unwrap();
    assert_eq!(a, playouts(&g, 16, &Agent::Greedy, 3, 2).unwrap());
    assert!(a.iter().all(|r| r.iter().sum::<i32>() == 0));
    let d = Game::deal(8, Profile::Nanning, [3, 3], NOBODY, None).unwrap();
    let b = playouts(&d, 8, &Agent::Random, 1, 2).unwrap();
    assert_eq!(b.len(), 8);
}

#[test]
fn a_playouts_end_is_the_game_played_step_by_step_with_the_same_stream() {
    use tractor_core::search::rollout::{playout, playout_end};
    for (seed, k) in [(1u64, 0usize), (2, 30), (3, 90), (4, 150)] {
        for agent in [Agent::Greedy, Agent::Random] {
            let g = if k == 0 { Game::deal(seed, Profile::Nanning, [3, 3], NOBODY, None).unwrap() } else { position(seed, k) };
            let end = playout_end(&g, &agent, &mut Rng::new(9));
            assert_eq!(end.returns().unwrap_or([0; 4]), playout(&g, &agent, &mut Rng::new(9)));
            let mut step = g.clone();
            let mut rng = Rng::new(9);
            while let Some(a) = Policy::Agent(agent).act(&step, &mut rng) {
                step.apply(&a).unwrap();
            }
            assert_eq!((end.phase, end.final_score, end.returns()), (step.pos.phase, step.pos.final_score, step.pos.returns()));
        }
    }
}
