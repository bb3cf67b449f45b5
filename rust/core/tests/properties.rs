//! Property tests (proptest) of the checked core API and the hand state machine on arbitrary
//! input: nothing panics, every answer is an `Ok` or a typed `Error`, the checked queries agree
//! with each other, and a refused action leaves the game (position and record) unchanged.

use proptest::prelude::*;
use tractor_core::agent::random::random_action;
use tractor_core::game::hand::{Action, Game, Phase};
use tractor_core::rules::card::{Counts, KINDS};
use tractor_core::rules::checked;
use tractor_core::{Context, Error, Match, Profile, Rng};

fn counts() -> impl Strategy<Value = Counts> {
    // mostly small counts (valid hands), sometimes anything a byte holds
    let cell = prop_oneof![8 => 0u8..=2, 2 => 0u8..=5, 1 => any::<u8>()];
    proptest::collection::vec(cell, KINDS).prop_map(|v| v.try_into().expect("54"))
}

fn sparse_counts() -> impl Strategy<Value = Counts> {
    proptest::collection::vec((0usize..KINDS, 1u8..=4), 0..8).prop_map(|cells| {
        let mut c = [0u8; KINDS];
        for (k, n) in cells {
            c[k] = n;
        }
        c
    })
}

fn profile() -> impl Strategy<Value = Profile> {
    prop_oneof![Just(Profile::Guigang), Just(Profile::Nanning)]
}

fn action() -> impl Strategy<Value = Action> {
    prop_oneof![
        Just(Action::Pass),
        (any::<u8>(), any::<u8>()).prop_map(|(suit, count)| Action::Declare { suit, count }),
        (0u8..4, 1u8..=4).prop_map(|(suit, count)| Action::Declare { suit, count }),
        sparse_counts().prop_map(Action::Play),
        counts().prop_map(Action::Play),
    ]
}

/// A game after `steps` random actions from the deal of `seed` (any phase).
fn game(seed: u64, steps: usize, profile: Profile) -> Game {
    let mut g = Game::deal(seed, profile, [3, 3], tractor_core::NOBODY, None).expect("a deal");
    let mut rng = Rng::new(seed);
    for _ in 0..steps {
        match random_action(&g, &mut rng) {
            Some(a) => g.apply(&a).expect("random actions are legal"),
            None => break,
        }
    }
    g
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, .. ProptestConfig::default() })]

    #[test]
    fn context_refuses_or_builds(level in any::<u8>(), trump in any::<u8>(), p in profile()) {
        match Context::new(level, trump, p) {
            Ok(ctx) => prop_assert!((3..=14).contains(&ctx.level) && ctx.trump < 4),
            Err(e) => prop_assert!(matches!(e, Error::BadLevel(_) | Error::BadSuit(_))),
        }
    }

    #[test]
    fn checked_follow_queries_agree(level in 3u8..=14, trump in 0u8..4, p in profile(),
                                    hand in sparse_counts(), lead in sparse_counts(), play in sparse_counts()) {
        let ctx = Context::new(level, trump, p).expect("valid");
        let one = checked::check_follow(&ctx, &hand, &lead, &play);
        let batch = checked::is_legal_follow_batch(&ctx, &[hand], &[lead], &[play]);
        match (&one, &batch) {
            (Ok(()), Ok(v)) => prop_assert_eq!(v.as_slice(), &[true]),
            (Err(Error::IllegalFollow(_) | Error::WrongCount { .. } | Error::NotInHand(_)), Ok(v)) => {
                prop_assert_eq!(v.as_slice(), &[false])
            }
            (Err(_), Err(Error::InRow { row: 0, .. })) => {}
            _ => prop_assert!(false, "check_follow {:?} but the batch {:?}", one, batch),
        }
        if let Ok(f) = checked::follow(&ctx, &hand, &lead) {
            let ex = checked::example_follow(&f).expect("a legal follow exists");
            prop_assert!(checked::check_follow(&ctx, &hand, &lead, &ex).is_ok());
        }
    }

    #[test]
    fn checked_api_never_panics(level in 3u8..=14, trump in 0u8..4, p in profile(),
                                a in counts(), b in counts(), c in counts(), n in 0usize..6) {
        let ctx = Context::new(level, trump, p).expect("valid");
        let _ = checked::lead_combo(&ctx, &a);
        let _ = checked::check_follow(&ctx, &a, &b, &c);
        let plays = [a, b, c, a, b, c];
        match checked::trick_winner(&ctx, &plays[..n]) {
            Ok(w) => prop_assert!(w < n),
            Err(e) => {
                let typed = !matches!(e, Error::IllegalAction { .. });
                prop_assert!(typed, "{:?}", e)
            }
        }
        let rows = checked::classify_batch(&ctx, &plays[..n]);
        if let Ok(r) = rows {
            prop_assert_eq!(r.len(), n);
        }
        let _ = checked::is_legal_follow_batch(&ctx, &plays[..n], &plays[..n], &plays[..n]);
        prop_assert!(checked::is_legal_follow_batch(&ctx, &plays[..n], &plays[..1], &plays[..n]).is_err() || n == 1);
    }

    #[test]
    fn refused_actions_leave_the_game_unchanged(seed in any::<u64>(), steps in 0usize..400, p in profile(),
                                                actions in proptest::collection::vec(action(), 1..6)) {
        let mut g = game(seed, steps, p);
        for a in actions {
            let (pos, record) = (g.pos, g.record.clone());
            match g.apply(&a) {
                Ok(()) => prop_assert!(g.record.actions.len() == record.actions.len() + 1),
                Err(_) => {
                    prop_assert!(g.pos == pos, "a refused {:?} changed the position", a);
                    prop_assert!(g.record == record, "a refused {:?} changed the record", a);
                }
            }
        }
    }

    #[test]
    fn from_hands_refuses_or_starts(level in any::<u8>(), trump in any::<u8>(), banker in any::<u8>(), p in profile(),
                                    h in proptest::collection::vec(sparse_counts(), 4)) {
        let hands: [Counts; 4] = h.try_into().expect("4");
        match Game::from_hands(hands, level, trump, banker, p) {
            Ok(g) => prop_assert!(g.pos.phase == Phase::Play && g.pos.to_move == banker),
            Err(e) => {
                let typed = !matches!(e, Error::IllegalAction { .. });
                prop_assert!(typed, "{:?}", e)
            }
        }
    }

    #[test]
    fn a_match_refuses_other_hands_unchanged(seed in any::<u64>(), other in any::<u64>(), played in 0u32..3) {
        let (mut m, mut g) = Match::new(seed, Profile::Guigang);
        for _ in 0..played {
            tractor_core::agent::random::random_playout(&mut g, &mut Rng::new(1));
            g = m.next_hand(&g).expect("its own hand");
        }
        let before = format!("{m:?}");
        let mut foreign = game(other, 10_000, Profile::Guigang);
        foreign.hand_index = m.index;
        if other != seed {
            prop_assert!(m.next_hand(&foreign).is_err());
            prop_assert_eq!(format!("{m:?}"), before.clone());
        }
        prop_assert!(m.next_hand(&g).is_err()); // its own hand, but not played yet
        prop_assert_eq!(format!("{m:?}"), before);
    }
}
