//! Table tests of the competition profile (RULES §10): every example of C1–C9, each checked
//! by the fast code and, for the follows, by the brute-force twin (`common/oracle_comp.rs`).

use crate::common::{oracle, oracle_comp};

use tractor_core::Agent;
use tractor_core::game::hand::{Action, Game, Phase, NOBODY};
use tractor_core::game::match_state::Match;
use tractor_core::policy::Policy;
use tractor_core::rules::card::{cards_of, counts_of, format, parse, Counts, KINDS, SJ};
use tractor_core::rules::checked::check_follow;
use tractor_core::{classify, Context, Error, Follow, Profile, Rng, Tier};

fn c(text: &str) -> Counts {
    counts_of(&parse(text).unwrap()).unwrap()
}

fn fmt(x: &Counts) -> String {
    format(&cards_of(x))
}

fn comp(level: u8, trump: u8) -> Context {
    Context::new(level, trump, Profile::Competition).unwrap()
}

fn c10() -> Context {
    comp(10, 1)
}

fn g10() -> Context {
    Context::new(10, 1, Profile::Guigang).unwrap()
}

fn shape(t: &Context, cards: &str) -> Option<(u8, u8)> {
    classify(t, &c(cards)).map(|x| (x.m, x.k))
}

fn fast_legal(t: &Context, hand: &str, lead: &str) -> Vec<String> {
    let combo = classify(t, &c(lead)).expect("lead is a combination");
    let f = Follow::new(t, &c(hand), combo);
    let mut set = f.legal_set(&[0; KINDS]);
    let n = set.count();
    let mut got = set.all(u128::MAX).unwrap();
    assert_eq!(got.len() as u128, n, "count and all agree");
    got.sort_unstable();
    got.iter().map(fmt).collect()
}

fn oracle_legal(t: &Context, hand: &str, lead: &str) -> Vec<String> {
    let a = if t.rules.profile == Profile::Competition {
        oracle_comp::Position { level: t.level, trump: t.trump, hand: c(hand), lead: c(lead) }.analyse()
    } else {
        oracle::Position { level: t.level, trump: t.trump, t1_any_shape: t.rules.t1_any_shape, hand: c(hand), lead: c(lead) }
            .analyse()
    };
    a.expect("lead is a combination").legal.iter().map(fmt).collect()
}

/// The complete legal set is exactly `plays`, for the fast code and the oracle.
fn exactly(rule: &str, t: &Context, hand: &str, lead: &str, plays: &[&str]) {
    let mut want: Vec<Counts> = plays.iter().map(|p| c(p)).collect();
    want.sort_unstable();
    let want: Vec<String> = want.iter().map(fmt).collect();
    assert_eq!(fast_legal(t, hand, lead), want, "{rule}: fast legal set (hand [{hand}], lead [{lead}])");
    assert_eq!(oracle_legal(t, hand, lead), want, "{rule}: oracle legal set (hand [{hand}], lead [{lead}])");
}

/// `play` is illegal: the checked API names `rule` and the tiers.
fn bad(rule: &str, t: &Context, hand: &str, lead: &str, play: &str, required: &str, met: &str) {
    match check_follow(t, &c(hand), &c(lead), &c(play)) {
        Err(Error::IllegalFollow(v)) => {
            assert_eq!((v.rule, v.required.name(), v.met.name()), (rule, required, met), "[{play}]: {}", v.message);
        }
        other => panic!("{rule}: [{play}] must be illegal, got {other:?} (hand [{hand}], lead [{lead}])"),
    }
}

// ---------------------------------------------------------------------------------------
// C1: links

#[test]
fn c1_no_a_2_link_in_the_trump_suit() {
    let t = c10();
    assert_eq!(shape(&t, "Ah Ah 2h 2h"), None, "C1: AhAh2h2h is no tractor");
    assert_eq!(shape(&t, "Kh Kh Ah Ah 2h 2h"), None, "C1: KhKhAhAh2h2h is no tractor");
    assert_eq!(shape(&t, "2h 2h 3h 3h"), Some((2, 2)), "C1: 2h2h3h3h still is");
    assert_eq!(shape(&t, "9h 9h 10h 10h"), Some((2, 2)), "C1: at level 10, 9h9h10h10h still is");
    assert_eq!(shape(&t, "Kh Kh Ah Ah"), Some((2, 2)));
    assert_eq!(shape(&comp(4, 1), "3s 3s 5s 5s"), None, "C1: 打4时副牌3与5不算拖拉机");
    assert_eq!(shape(&t, "10s 10s 2s 2s"), None, "C1: 副L and 副2 link with nothing");
    assert_eq!(shape(&t, "2h 2h 2s 2s"), None, "C1: 主2副2不能相连");
    assert_eq!(shape(&t, "10h 10h 10s 10s"), None, "C1: 正L–副L");
    assert_eq!(shape(&t, "2h 2h 3h 3h 3h 3h"), None, "D8/D1: 223333 is no combination");
    assert_eq!(shape(&t, "SJ SJ BJ BJ"), Some((2, 2)));
    // guigang keeps the wrap (R3.3)
    assert_eq!(shape(&g10(), "Ah Ah 2h 2h"), Some((2, 2)));
    // and a 13-kind trump suit is a path: the 26-card pair tractor 2…A, no cycle
    let all = "2h 2h 3h 3h 4h 4h 5h 5h 6h 6h 7h 7h 8h 8h 9h 9h 10h 10h Jh Jh Qh Qh Kh Kh Ah Ah";
    assert_eq!(shape(&t, all), Some((2, 13)));
}

#[test]
fn c1_following_does_not_wrap() {
    // a 2-pair trump lead; the follower's AA22 is two pairs, not a tractor, so any two of its
    // pairs are legal (C5 example ♥5566 vs ♥AA 22 66 9; guigang: ♥AA22 only)
    exactly("C5/C1", &c10(), "Ah Ah 2h 2h 6h 6h 9h", "5h 5h 6h 6h", &["Ah Ah 2h 2h", "Ah Ah 6h 6h", "2h 2h 6h 6h"]);
    let g = g10();
    let combo = classify(&g, &c("5h 5h 6h 6h")).unwrap();
    let f = Follow::new(&g, &c("Ah Ah 2h 2h 6h 6h 9h"), combo);
    let got: Vec<String> = f.legal_set(&[0; KINDS]).all(100).unwrap().iter().map(fmt).collect();
    assert_eq!(got, vec![fmt(&c("Ah Ah 2h 2h"))], "guigang: the A–2 tractor");
}

// ---------------------------------------------------------------------------------------
// C4: unit leads

#[test]
fn c4_pair_and_triple_leads() {
    let t = c10();
    // pair: a pair > anything (出对时必须跟对)
    exactly("C4 pair", &t, "5s 5s 8s Js", "Ks Ks", &["5s 5s"]);
    exactly("C4 pair none", &t, "5s 8s Js", "Ks Ks", &["5s 8s", "5s Js", "8s Js"]);
    bad("C4", &t, "5s 5s 8s Js", "Ks Ks", "8s Js", "C4 a pair", "C4 any two cards");
    // triple: a triple > a pair and a card > anything
    exactly("C4 triple", &t, "5s 5s 5s 8s 8s Js", "Ks Ks Ks", &["5s 5s 5s"]);
    exactly("C4 pair+card", &t, "5s 5s 8s Js", "Ks Ks Ks", &["5s 5s 8s", "5s 5s Js"]);
    exactly("C4 triple any", &t, "5s 8s Js As", "Ks Ks Ks", &["5s 8s Js", "5s 8s As", "5s Js As", "8s Js As"]);
    bad("C4", &t, "5s 5s 8s Js", "Ks Ks Ks", "5s 8s Js", "C4 a pair and a card", "C4 any three cards");
}

#[test]
fn c4_bomb_lead_list() {
    let t = c10();
    let lead = "Ks Ks Ks Ks";
    // bomb > 2-pair tractor > a triple and a card > two pairs > a pair and two cards > any
    exactly("C4 bomb", &t, "3s 3s 3s 3s 4s 4s 5s 5s", lead, &["3s 3s 3s 3s"]);
    exactly("C4 2-pair tractor", &t, "4s 4s 5s 5s 7s 7s 7s 9s", lead, &["4s 4s 5s 5s"]);
    // the seed's example: ♠555 888 vs ♠KKKK → ♠5558 or ♠8885 (guigang: ♠5588)
    exactly("C4 triple and a card", &t, "5s 5s 5s 8s 8s 8s", lead, &["5s 5s 5s 8s", "8s 8s 8s 5s"]);
    exactly("R5.3 T3 (guigang)", &g10(), "5s 5s 5s 8s 8s 8s", lead, &["5s 5s 8s 8s"]);
    exactly("C4 two pairs", &t, "5s 5s 8s 8s Js As", lead, &["5s 5s 8s 8s"]);
    exactly("C4 a pair and two cards", &t, "5s 5s 8s Js As", lead, &["5s 5s 8s Js", "5s 5s 8s As", "5s 5s Js As"]);
    exactly("C4 any four", &t, "3s 5s 8s Js As", lead, &["3s 5s 8s Js", "3s 5s 8s As", "3s 5s Js As", "3s 8s Js As", "5s 8s Js As"]);
    bad("C4", &t, "5s 5s 5s 8s 8s 8s", lead, "5s 5s 8s 8s", "C4 a triple and a card", "C4 two pairs");
    bad("C4", &t, "4s 4s 5s 5s 7s 7s 7s 9s", lead, "7s 7s 7s 9s", "C4 a 2-pair tractor", "C4 a triple and a card");
    bad("C4", &t, "3s 3s 3s 3s 4s 4s 5s 5s", lead, "4s 4s 5s 5s", "C4 a bomb", "C4 a 2-pair tractor");
}

// ---------------------------------------------------------------------------------------
// C2, C5: tractor leads

#[test]
fn c5_examples_of_rules() {
    let t = c10();
    // ♠334455 vs ♠666777 JJQQKK → ♠JJQQKK only (E; guigang: either)
    exactly("C5 E", &t, "6s 6s 6s 7s 7s 7s Js Js Qs Qs Ks Ks", "3s 3s 4s 4s 5s 5s", &["Js Js Qs Qs Ks Ks"]);
    exactly(
        "R5.3 T1 (guigang)",
        &g10(),
        "6s 6s 6s 7s 7s 7s Js Js Qs Qs Ks Ks",
        "3s 3s 4s 4s 5s 5s",
        &["Js Js Qs Qs Ks Ks", "6s 6s 6s 7s 7s 7s"],
    );
    // ♠334455 vs ♠JJQQ 66 88 A → ♠JJQQ66 or ♠JJQQ88
    exactly("C5 L", &t, "Js Js Qs Qs 6s 6s 8s 8s As", "3s 3s 4s 4s 5s 5s", &["Js Js Qs Qs 6s 6s", "Js Js Qs Qs 8s 8s"]);
    // ♠44556677 vs ♠JJQQ 8888 33 A K → ♠JJQQ8888 only (C2; guigang: also ♠JJQQ8833)
    exactly("C2/C5", &t, "Js Js Qs Qs 8s 8s 8s 8s 3s 3s As Ks", "4s 4s 5s 5s 6s 6s 7s 7s", &["Js Js Qs Qs 8s 8s 8s 8s"]);
    let guigang = fast_legal(&g10(), "Js Js Qs Qs 8s 8s 8s 8s 3s 3s As Ks", "4s 4s 5s 5s 6s 6s 7s 7s");
    assert!(guigang.contains(&fmt(&c("Js Js Qs Qs 8s 8s 3s 3s"))), "guigang: D4 allows JJQQ8833");
    // ♠333444 vs ♠777 999 QQ K → ♠7799QQ (three pairs > two triples)
    exactly("C5 p", &t, "7s 7s 7s 9s 9s 9s Qs Qs Ks", "3s 3s 3s 4s 4s 4s", &["7s 7s 9s 9s Qs Qs"]);
    // ♠333444 vs ♠777 999 K A → ♠777999 only (t counts for a triple lead)
    exactly("C5 t", &t, "7s 7s 7s 9s 9s 9s Ks As", "3s 3s 3s 4s 4s 4s", &["7s 7s 7s 9s 9s 9s"]);
    // ♥5566 vs ♥AA 22 66 9 → any two of the pairs (C1; guigang: ♥AA22)
    exactly("C5/C1", &t, "Ah Ah 2h 2h 6h 6h 9h", "5h 5h 6h 6h", &["Ah Ah 2h 2h", "Ah Ah 6h 6h", "2h 2h 6h 6h"]);
    bad("C5", &t, "Js Js Qs Qs 6s 6s 8s 8s As", "3s 3s 4s 4s 5s 5s", "6s 6s 8s 8s Js Qs", "C5 L", "C5 p");
    bad("C5", &t, "6s 6s 6s 7s 7s 7s Js Js Qs Qs Ks Ks", "3s 3s 4s 4s 5s 5s", "6s 6s 6s 7s 7s 7s", "C5 E", "C5 L");
}

#[test]
fn c5_lists_of_the_texts() {
    let t = c10();
    // 2-pair lead: a 2-pair tractor or a bomb > two pairs > a pair > any
    exactly("C5 2-pair: bomb", &t, "7s 7s 7s 7s 9s Js", "4s 4s 5s 5s", &["7s 7s 7s 7s"]);
    exactly("C5 2-pair: tractor or bomb", &t, "7s 7s 7s 7s 8s 8s 9s 9s", "4s 4s 5s 5s", &["7s 7s 7s 7s", "7s 7s 8s 8s", "8s 8s 9s 9s"]);
    exactly("C5 2-pair: two pairs", &t, "7s 7s 9s 9s Js Js As", "4s 4s 5s 5s", &["7s 7s 9s 9s", "7s 7s Js Js", "9s 9s Js Js"]);
    exactly("C5 2-pair: a pair", &t, "7s 7s 9s Js As", "4s 4s 5s 5s", &["7s 7s 9s Js", "7s 7s 9s As", "7s 7s Js As"]);
    // 4-pair lead: 4-pair tractor > 3-pair or 2-triple tractor and a pair > two 4-card
    // tractors (pairs or a bomb) > … > four pairs
    let lead8 = "3s 3s 4s 4s 5s 5s 6s 6s";
    exactly(
        "C5 4-pair: (6) + pair",
        &t,
        "7s 7s 7s 8s 8s 8s Js Js Qs Qs As As",
        lead8,
        &["7s 7s 7s 8s 8s 8s Js Js", "7s 7s 7s 8s 8s 8s Qs Qs", "7s 7s 7s 8s 8s 8s As As"],
    );
    exactly("C5 4-pair: two 4-card tractors", &t, "7s 7s 7s 7s Js Js Qs Qs As Ks 9s", lead8, &["7s 7s 7s 7s Js Js Qs Qs"]);
    exactly("C5 4-pair: four pairs", &t, "7s 7s 9s 9s Js Js Ks Ks As", lead8, &["7s 7s 9s 9s Js Js Ks Ks"]);
    // 2-triple lead: 2-triple tractor > 3-pair tractor > 4-card tractor and a pair > three
    // pairs > two triples
    let lead6 = "3s 3s 3s 4s 4s 4s";
    exactly("C5 2-triple: E", &t, "7s 7s 7s 8s 8s 8s 9s 9s Js", lead6, &["7s 7s 7s 8s 8s 8s"]);
    exactly("C5 2-triple: 3-pair tractor", &t, "7s 7s 8s 8s 9s 9s Qs Qs Qs As", lead6, &["7s 7s 8s 8s 9s 9s"]);
    exactly("C5 2-triple: (4) + pair", &t, "7s 7s 8s 8s Js Js As Ks", lead6, &["7s 7s 8s 8s Js Js"]);
    exactly("C5 2-triple: bomb + pair", &t, "7s 7s 7s 7s Js Js As Ks", lead6, &["7s 7s 7s 7s Js Js"]);
}

/// Decisions where §10 is silent, each tested (see the comments in `follow/competition.rs`):
/// - a 4-pair lead's E is a 4-pair tractor only; a bomb tractor of 8 is L = (8), above (6) + a pair;
/// - a bomb inside a 2-triple lead's answer is a 4-card tractor (二连拖（或炸弹）加一对);
/// - three-triple leads use the key with t counted.
#[test]
fn c5_decisions_where_the_rules_are_silent() {
    let t = c10();
    // a 2-bomb tractor against a 4-pair lead: not E, but the longest tractor
    exactly(
        "C5 bomb tractor vs 4-pair lead",
        &t,
        "7s 7s 7s 7s 8s 8s 8s 8s Js Js Js Qs Qs Qs",
        "3s 3s 4s 4s 5s 5s 6s 6s",
        &["7s 7s 7s 7s 8s 8s 8s 8s"],
    );
    // a 3-triple lead: no 3-triple tractor held; (6) + the most triples among the rest
    exactly(
        "C5 3-triple lead",
        &t,
        "7s 7s 7s 8s 8s 8s Qs Qs Qs As",
        "3s 3s 3s 4s 4s 4s 5s 5s 5s",
        &["7s 7s 7s 8s 8s 8s Qs Qs Qs"],
    );
    // a 3-pair lead and two 4-card tractors: (4) + pair beats nothing longer; (4,4) is 8 cards
    exactly(
        "C5 3-pair lead, two short tractors",
        &t,
        "7s 7s 8s 8s Js Js Qs Qs As",
        "3s 3s 4s 4s 5s 5s",
        &["7s 7s 8s 8s Js Js", "7s 7s 8s 8s Qs Qs", "Js Js Qs Qs 7s 7s", "Js Js Qs Qs 8s 8s"],
    );
}

#[test]
fn c5_tiers_of_the_error() {
    let t = c10();
    let f = Follow::new(&t, &c("Js Js Qs Qs 6s 6s 8s 8s As"), classify(&t, &c("3s 3s 4s 4s 5s 5s")).unwrap());
    assert_eq!(f.required_tier(), Tier::C5("C5 L"));
    match check_follow(&t, &c("Js Js Qs Qs 6s 6s 8s 8s As"), &c("3s 3s 4s 4s 5s 5s"), &c("6s 6s 8s 8s Js Qs")) {
        Err(Error::IllegalFollow(v)) => {
            assert!(v.message.contains("L (4), p 1"), "{}", v.message);
            assert!(v.message.contains("L (), p 2"), "{}", v.message);
        }
        other => panic!("{other:?}"),
    }
    let ex = tractor_core::rules::checked::example_follow(&f).unwrap();
    assert!(f.is_legal(&ex));
}

// ---------------------------------------------------------------------------------------
// C6: last trick ×N for every N; C7, C8, C9

/// A one-card hand: the only trick is the last one.
fn last_single(profile: Profile, defender_wins: bool) -> i32 {
    // seat 0 (banker) leads 5s; seat 1 (a defender) follows Ks or 3s; seat 2 (the banker's
    // partner) 6s, seat 3 4s
    let second = if defender_wins { "Ks" } else { "3s" };
    let hands = [c("5s"), c(second), c("6s"), c("4s")];
    let mut g = Game::from_hands(hands, 10, 1, 0, profile).unwrap();
    for card in ["5s", second, "6s", "4s"] {
        g.apply(&Action::Play(c(card))).unwrap();
    }
    assert_eq!(g.pos.phase, Phase::Over);
    g.pos.final_score
}

#[test]
fn c6_last_trick_times_n_for_every_n() {
    // points of the trick: 5 + 10 = 15 (defender wins with Ks), or 5 (banker's 6s wins)
    assert_eq!(last_single(Profile::Competition, true), 15, "C6: ×1 for the defenders");
    assert_eq!(last_single(Profile::Competition, false), -5, "C6/D10: a deduction when the banker team wins");
    assert_eq!(last_single(Profile::Nanning, false), 0, "nanning: a 1-card last trick is ordinary");
}

#[test]
fn c8_a_match_ends_when_a_team_passes_a_as_banker() {
    let mut ended = 0;
    for seed in 0..6u64 {
        let (mut m, mut g) = Match::new(seed, Profile::Competition);
        let mut rng = Rng::new(seed);
        while m.winner.is_none() && m.index < 400 {
            while let Some(a) = Policy::Agent(Agent::Random).act(&g, &mut rng) {
                g.apply(&a).unwrap();
            }
            let (level, banker, over) = (g.pos.level, g.pos.banker, g.pos.phase == Phase::Over);
            let took_over = g.pos.outcome().is_some_and(|o| o.defenders_take_over);
            let before = m.levels;
            g = m.next_hand(&g).unwrap();
            assert!(m.levels.iter().all(|&l| (3..=14).contains(&l)), "C8: levels stop at A: {:?}", m.levels);
            assert!(m.levels[0] >= before[0] && m.levels[1] >= before[1], "C8: no wrap past A");
            if let Some((team, hand)) = m.winner {
                assert_eq!(hand, m.index - 1);
                assert!(over && level == 14 && !took_over, "D11: won as the banker team at A");
                assert_eq!(team, banker % 2);
            }
        }
        if m.winner.is_some() {
            ended += 1;
            match m.next_hand(&g) {
                Err(Error::IllegalAction { rule: "C8", .. }) => {}
                other => panic!("C8: the match is over, got {other:?}"),
            }
        }
    }
    assert!(ended >= 5, "random matches end at A: {ended} of 6");
}

#[test]
fn c9_first_hand_showings_need_a_small_joker() {
    let mut refused = 0;
    let mut reinforced_without = 0;
    for seed in 0..200u64 {
        let mut g = Game::deal(seed, Profile::Competition, [3, 3], NOBODY, None).unwrap();
        let mut rng = Rng::new(seed);
        while g.pos.phase == Phase::Declare {
            let seat = g.pos.to_move;
            let hand = g.pos.hands[seat as usize];
            let offered: Vec<_> = g.pos.showings(seat).collect();
            let reinforce = g.pos.declarer == seat;
            if !reinforce && hand[SJ.id()] == 0 {
                assert!(offered.is_empty(), "C9: no small joker, no setting or overturning");
                // enough level cards for a showing: it is refused, naming C9, and nothing changes
                let count = g.pos.declared_count + 1;
                if let Some(suit) = (0..4u8).find(|&s| hand[tractor_core::Card::new(s, 3).id()] >= count) {
                    let before = g.pos;
                    match g.apply(&Action::Declare { suit, count }) {
                        Err(Error::IllegalAction { rule: "C9", .. }) => refused += 1,
                        other => panic!("C9: expected the refusal, got {other:?}"),
                    }
                    assert_eq!(g.pos, before, "a rejected action changes nothing");
                }
            } else if reinforce && hand[SJ.id()] == 0 {
                reinforced_without += 1;
            }
            let a = Policy::Agent(Agent::Random).act(&g, &mut rng).unwrap();
            g.apply(&a).unwrap();
        }
        // the final declarer held a small joker when it set or overturned (it stays in hand)
        if g.pos.phase == Phase::Play {
            assert!(g.pos.hands[g.pos.banker as usize][SJ.id()] >= 1, "C9: the first hand's declarer shows a small joker");
        }
    }
    assert!(refused > 50, "{refused} refusals");
    assert!(reinforced_without == 0, "a first-hand declarer always holds the joker it showed");
    // later hands (the banker known): R8 alone, a seat without a small joker may set the suit
    let mut without = 0;
    for seed in 0..50u64 {
        let g = Game::deal(seed, Profile::Competition, [5, 3], 0, None).unwrap();
        let seat = g.pos.to_move;
        if g.pos.phase == Phase::Declare && g.pos.hands[seat as usize][SJ.id()] == 0 {
            assert!(g.pos.showings(seat).next().is_some(), "R8.1 in later hands");
            without += 1;
        }
    }
    assert!(without > 10, "{without}");
}

#[test]
fn c9_redeals_have_no_limit_of_three() {
    // Passing every showing: guigang stops after 3 deals (R8.5); competition redeals on.
    for (profile, stopped_at) in [(Profile::Guigang, Some(3u8)), (Profile::Competition, None)] {
        let mut g = Game::deal(11, profile, [3, 3], NOBODY, None).unwrap();
        let mut steps = 0;
        while g.pos.phase == Phase::Declare && g.pos.redeals < 6 && steps < 100_000 {
            g.apply(&Action::Pass).unwrap();
            steps += 1;
        }
        match stopped_at {
            Some(r) => assert_eq!((g.pos.phase, g.pos.redeals), (Phase::Stopped, r)),
            None => assert_eq!((g.pos.phase, g.pos.redeals), (Phase::Declare, 6), "C9: 如果没有人叫牌，则重新摸牌"),
        }
    }
}
