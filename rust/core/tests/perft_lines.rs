//! Multi-level perft: the number of lines of 1 to 3 plays from small endgames, against a brute
//! force that knows nothing of the engine's move generation. The brute force tries every
//! sub-multiset of the mover's hand, keeps those `Position::check_play` accepts (the checked
//! legality: R3.4 for a lead, R5.1–R5.4 for a follow), plays each and recurses. `perft` counts
//! with the legal-action sets (`ActionSet`: the lead enumeration and the follow ladder's
//! counting), so the two share only the rules' checker.

use tractor_core::agent::random::random_action;
use tractor_core::game::hand::{Game, Phase, Position};
use tractor_core::game::perft::perft;
use tractor_core::rules::card::{counts_of, parse, Counts, KINDS};
use tractor_core::{Profile, Rng};

/// Every sub-multiset of `hand` (each kind 0..=held), as count arrays.
fn sub_multisets(hand: &Counts) -> Vec<Counts> {
    let mut out = vec![[0u8; KINDS]];
    for k in 0..KINDS {
        if hand[k] == 0 {
            continue;
        }
        let mut next = Vec::with_capacity(out.len() * (hand[k] as usize + 1));
        for c in &out {
            for n in 0..=hand[k] {
                let mut x = *c;
                x[k] = n;
                next.push(x);
            }
        }
        out = next;
    }
    out
}

fn brute(pos: &Position, depth: u32) -> u128 {
    if depth == 0 {
        return 1;
    }
    if pos.phase != Phase::Play {
        return 0;
    }
    let hand = pos.hands[pos.to_move as usize];
    let mut total = 0;
    for x in sub_multisets(&hand) {
        if pos.check_play(&x).is_ok() {
            let mut next = *pos;
            next.play_unchecked(&x);
            total += brute(&next, depth - 1);
        }
    }
    total
}

fn hands(texts: [&str; 4]) -> [Counts; 4] {
    texts.map(|t| counts_of(&parse(t).expect("cards")).expect("counts"))
}

/// Small endgames with their perft counts at depths 1, 2 and 3 (pinned: any change in the
/// rules or the move generation shows up here; each is also checked by the brute force).
#[test]
fn perft_of_fixed_endgames_matches_brute_force() {
    let cases: [([&str; 4], u8, u8, u8, Profile); 6] = [
        (["As Ks", "Qs 3h", "4d 5d", "10h 9c"], 10, 1, 0, Profile::Guigang),
        (["As As Ks", "Qs Qs 3s", "4s 4s 5s", "10h 9h 9h"], 10, 1, 1, Profile::Guigang),
        (["3s 3s 4s 4s", "5s 5s 6s 6s", "7s 8s 8s SJ", "BJ BJ 2h 2h"], 10, 1, 2, Profile::Guigang),
        (["9h 9h 10h 10h", "Jh Jh Qh 2s", "Kc Kc Ac Ac", "5d 5d 5d 6d"], 10, 1, 3, Profile::Nanning),
        (["2h 2h 3h 3h", "Ah Ah 4h 5h", "SJ SJ BJ 3s", "6c 7c 8c 9c"], 3, 1, 0, Profile::Guigang),
        (["As Ks Qs", "Js Js 10c", "3d 3d 3d", "4h 5h 6h"], 14, 2, 1, Profile::Nanning),
    ];
    let mut got = Vec::new();
    for (i, (h, level, trump, banker, profile)) in cases.iter().enumerate() {
        let g = Game::from_hands(hands(*h), *level, *trump, *banker, *profile).expect("a valid endgame");
        let mut row = Vec::new();
        for depth in 1..=3 {
            let p = perft(&g.pos, depth).expect("perft");
            assert_eq!(p, brute(&g.pos, depth), "case {i} depth {depth}");
            row.push(p);
        }
        got.push(row);
    }
    // The counts, as the brute force above verified them when they were written down.
    let pinned: Vec<Vec<u128>> = PINNED.iter().map(|r| r.to_vec()).collect();
    assert_eq!(got, pinned, "perft counts moved: {got:?}");
}

const PINNED: [[u128; 3]; 6] = [[2, 2, 4], [3, 5, 10], [4, 9, 18], [4, 9, 30], [5, 9, 21], [3, 3, 9]];

/// Endgames from real deals (random play until every hand holds at most 2 to 6 cards), in every
/// profile, at trick boundaries and mid-trick.
#[test]
fn perft_of_dealt_endgames_matches_brute_force() {
    let mut checked = 0;
    for seed in 0..200u64 {
        let profile = if seed % 2 == 0 { Profile::Guigang } else { Profile::Nanning };
        let mut g = Game::deal(seed, profile, [3 + (seed % 12) as u8, 3 + (seed % 12) as u8], (seed % 4) as u8, None)
            .expect("a deal");
        let mut rng = Rng::new(seed ^ 0x5eed);
        let cap = 2 + (seed % 5) as usize; // 2 to 6 cards a hand
        let big = |g: &Game| g.pos.hands.iter().any(|h| h.iter().map(|&c| c as usize).sum::<usize>() > cap);
        while g.pos.phase == Phase::Declare || (g.pos.phase == Phase::Play && big(&g)) {
            let a = random_action(&g, &mut rng).expect("an action");
            g.apply(&a).expect("legal");
        }
        if g.pos.phase != Phase::Play {
            continue;
        }
        for depth in 1..=3 {
            assert_eq!(perft(&g.pos, depth).expect("perft"), brute(&g.pos, depth), "seed {seed} depth {depth}");
        }
        checked += 1;
    }
    assert!(checked >= 180, "only {checked} endgames reached");
}

#[test]
fn perft_refuses_the_deal() {
    let g = Game::deal(1, Profile::Guigang, [3, 3], tractor_core::NOBODY, None).expect("a deal");
    assert!(perft(&g.pos, 2).is_err());
    assert_eq!(perft(&g.pos, 0).ok(), None);
}
