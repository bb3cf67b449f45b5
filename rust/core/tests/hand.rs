//! Random play over many seeded hands: the invariants of docs/rules.md §1, §5–§7.

use tractor_core::card::{size, KINDS};
use tractor_core::checked;
use tractor_core::hand_state::{Game, Phase, NOBODY};
use tractor_core::playout::{random_action, random_playout};
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
        let profile = if seed % 4 == 3 { Profile::Nanning } else { Profile::Guigang };
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
    }
    assert!(over > 1900);
}

#[test]
fn replaying_the_record_follows_the_rules_core() {
    // Every play in the record is legal under the rules core, replayed from the start.
    for seed in 0..200u64 {
        let g = play_seed(seed, Profile::Guigang);
        let mut r = Game::deal(seed, Profile::Guigang, [3, 3], NOBODY, None).unwrap();
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
