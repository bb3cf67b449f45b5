//! Random play over many seeded hands: the invariants of docs/rules.md §1, §5–§7.

use tractor_core::agent::random::{random_action, random_playout};
use tractor_core::game::hand::{Game, Phase, NOBODY};
use tractor_core::rules::card::{size, KINDS};
use tractor_core::rules::checked;
use tractor_core::{outcome, Profile, Rng};

fn play_seed(seed: u64, profile: Profile) -> Game {
    let mut g = Game::deal(seed, profile, [3, 3], NOBODY, None).unwrap();
    let mut rng = Rng::new(seed ^ 0xABCD);
    random_playout(&mut g, &mut rng);
    g
}

#[test]
fn random_hands_keep_the_invariants() {
    let mut over = 0;
    for seed in 0..2000u64 {
        let profile = Profile::ALL[(seed % 3) as usize];
        let g = play_seed(seed, profile);
        if g.pos.phase == Phase::Stopped {
            continue;
        }
        assert_eq!(g.pos.phase, Phase::Over, "seed {seed}");
        over += 1;
        let ctx = g.pos.ctx();
        // 216 cards: every trick takes N from each hand, and the hands end empty.
        let mut played = [0u32; KINDS];
        let mut total_points = 0i32;
        let mut defenders = 0i32;
        for (i, t) in g.record.tricks.iter().enumerate() {
            assert_eq!(t.plays.len(), 4);
            let n = size(&t.plays[0].1);
            assert!(t.plays.iter().all(|p| size(&p.1) == n), "seed {seed} trick {i}");
            for (j, p) in t.plays.iter().enumerate() {
                assert_eq!(p.0, (t.leader + j as u8) % 4);
                for (total, &n) in played.iter_mut().zip(p.1.iter()) {
                    *total += n as u32;
                }
            }
            assert!(checked::lead_combo(ctx, &t.plays[0].1).is_ok(), "R3.4 lead, seed {seed}");
            total_points += t.points as i32;
            if i + 1 < g.record.tricks.len() && t.winner % 2 != g.pos.banker % 2 {
                defenders += t.points as i32;
            }
        }
        assert!(played.iter().all(|&c| c == 4), "216 cards conserved, seed {seed}");
        assert_eq!(total_points, 400, "R7.1, seed {seed}");
        assert_eq!(defenders, g.pos.defender_points, "R7.2, seed {seed}");
        let by_trick = g.defender_points_by_trick();
        assert_eq!(by_trick.len(), g.record.tricks.len());
        assert_eq!(*by_trick.last().unwrap(), g.pos.defender_points, "R7.2 running total, seed {seed}");
        assert!(by_trick.windows(2).all(|w| w[0] <= w[1]));
        // R7.4 returns are zero-sum, and the team that gains has the positive return
        let r = g.pos.returns().unwrap();
        assert_eq!(r.iter().sum::<i32>(), 0);
        assert_eq!(r[0], r[2]);
        assert_eq!(r[1], r[3]);
        let o = g.pos.outcome().unwrap();
        assert_eq!(o, outcome(g.pos.final_score, &profile.rules()));
        assert!(g.pos.hands.iter().all(|h| size(h) == 0));
        // §9: each profile's last trick (R7.3, C6) and result table (R7.4, C7)
        let last = g.record.tricks.last().unwrap();
        let n = size(&last.plays[0].1) as i32;
        let before = g.pos.final_score - if n >= profile.rules().last_trick_min_cards as i32 {
            if last.winner % 2 != g.pos.banker % 2 { last.points as i32 * n } else { -(last.points as i32) * n }
        } else if last.winner % 2 != g.pos.banker % 2 {
            last.points as i32
        } else {
            0
        };
        assert_eq!(before, g.pos.defender_points, "R7.3 / C6 last trick, seed {seed}");
        if profile == Profile::Competition {
            assert!(o.banker_levels <= 3 && o.defender_levels <= 3, "C7: at most 3, seed {seed}");
            // C9: the first hand's declarer showed a small joker: it held one when play began
            let sj = g.record.tricks.iter().flat_map(|t| t.plays.iter()).filter(|p| p.0 == g.pos.banker).map(|p| p.1[tractor_core::SJ.id()]).sum::<u8>();
            assert!(sj >= 1, "C9: the declarer held a small joker, seed {seed}");
        }
    }
    assert!(over > 1900);
}

#[test]
fn random_matches_keep_the_invariants_of_every_profile() {
    use tractor_core::game::match_state::Match;
    for profile in Profile::ALL {
        for seed in 0..4u64 {
            let (mut m, mut g) = Match::new(seed, profile);
            let mut rng = Rng::new(seed);
            while m.index < 60 && !(profile.rules().stop_at_a && m.winner.is_some()) {
                random_playout(&mut g, &mut rng);
                let before = m.levels;
                g = m.next_hand(&g).unwrap();
                let h = m.history.last().unwrap();
                assert!(m.levels.iter().all(|l| (3..=14).contains(l)), "R2.1");
                if profile.rules().stop_at_a {
                    assert!(m.levels[0] >= before[0] && m.levels[1] >= before[1], "C8: no wrap");
                    assert_eq!(h.passed_a.is_some(), h.level == 14 && h.score.is_some_and(|s| s < 160), "C8/D11");
                } else {
                    // R7.5: a level passes A exactly when it wraps
                    let wrapped = (0..2).any(|t| m.levels[t] < before[t]);
                    assert_eq!(h.passed_a.is_some(), wrapped, "R7.5");
                }
            }
        }
    }
}

#[test]
fn replaying_the_record_follows_the_rules_core() {
    // Every play in the record is legal under the rules core, replayed from the start.
    for seed in 0..300u64 {
        let profile = Profile::ALL[(seed % 3) as usize];
        let g = play_seed(seed, profile);
        let mut r = Game::deal(seed, profile, [3, 3], NOBODY, None).unwrap();
        for (seat, a) in &g.record.actions {
            assert_eq!(r.pos.to_move, *seat);
            if let tractor_core::Action::Play(cards) = a {
                if let Some(f) = r.pos.follow() {
                    assert!(f.is_legal(cards), "seed {seed}");
                }
            }
            r.apply(a).unwrap();
        }
        assert_eq!(r.pos, g.pos);
        assert_eq!(r.record, g.record);
    }
}

#[test]
fn replaying_finished_tricks_with_their_recorded_winners_gives_the_same_game() {
    // Game::replay_trick_unchecked (the worlds' replay) against the checked replay.
    for seed in 0..300u64 {
        let profile = Profile::ALL[(seed % 3) as usize];
        let g = play_seed(seed, profile);
        let mut r = Game::deal(seed, profile, [3, 3], NOBODY, None).unwrap();
        let deal = g.record.actions.len() - g.record.tricks.iter().map(|t| t.plays.len()).sum::<usize>() - g.record.current.len();
        for (_, a) in &g.record.actions[..deal] {
            r.apply(a).unwrap();
        }
        for t in &g.record.tricks {
            r.replay_trick_unchecked(t);
        }
        for (_, c) in &g.record.current {
            r.play_recorded_unchecked(c);
        }
        assert_eq!(r.pos, g.pos, "seed {seed}");
        assert_eq!(r.record, g.record, "seed {seed}");
        assert_eq!(r.tally, g.tally, "seed {seed}");
    }
}

#[test]
fn same_seed_same_hand() {
    for seed in [1u64, 99, 12345] {
        let a = play_seed(seed, Profile::Guigang);
        let b = play_seed(seed, Profile::Guigang);
        assert_eq!(a.record, b.record);
        assert_eq!(a.pos, b.pos);
    }
}

#[test]
fn rejected_actions_change_nothing() {
    let mut g = Game::deal(5, Profile::Guigang, [3, 3], NOBODY, None).unwrap();
    let mut rng = Rng::new(5);
    let mut steps = 0;
    while let Some(a) = random_action(&g, &mut rng) {
        let before = (g.pos, g.record.clone());
        // something illegal: a play while dealing, a showing while playing, a bad card set
        let bad = match g.pos.phase {
            Phase::Declare => tractor_core::Action::Play([0; KINDS]),
            _ => tractor_core::Action::Declare { suit: 0, count: 1 },
        };
        assert!(g.apply(&bad).is_err());
        let mut too_many = [0u8; KINDS];
        too_many[0] = 5;
        assert!(g.apply(&tractor_core::Action::Play(too_many)).is_err());
        assert_eq!((g.pos, g.record.clone()), before);
        g.apply(&a).unwrap();
        steps += 1;
    }
    assert!(steps > 50);
    let before = (g.pos, g.record.clone());
    assert!(g.apply(&tractor_core::Action::Pass).is_err());
    assert_eq!((g.pos, g.record.clone()), before);
}

#[test]
fn position_is_small() {
    assert!(std::mem::size_of::<tractor_core::Position>() <= 512);
}
