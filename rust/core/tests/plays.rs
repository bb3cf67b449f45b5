//! Whole plays as candidates (`agent::plays`), the networks that score them
//! (`agent::play_net`) and native self-play (`learn::self_play`).

use tractor_core::agent::play_net::{best, Fast, PlayNet, PlayNetPolicy};
use tractor_core::agent::play_features::{features, v1, v2, Features};
use tractor_core::agent::plays::{candidates, Plays, LIST_MAX};
use tractor_core::agent::view::{Decide, SeatView};
use tractor_core::agent::weights::Weights;
use tractor_core::encode::observe::default_encoding;
use tractor_core::game::action_set::ActionSet;
use tractor_core::learn::self_play::{hand_levels, self_play, Samples, SelfPlayConfig};
use tractor_core::run::sim::simulate_range;
use tractor_core::rules::card::size;
use tractor_core::search::ismcts::{ismcts, IsmctsParams, Prior};
use tractor_core::util::seed::{derive, BATCH_HAND};
use tractor_core::{Action, Agent, Game, Phase, Policy, Profile, Rng, NOBODY};

const PROFILES: [Profile; 3] = [Profile::Guigang, Profile::Nanning, Profile::Competition];

/// Every candidate is legal and named once; a complete set is every legal action; an
/// incomplete one stands for more than `LIST_MAX` follows; the `wins` feature is what the
/// rules make of the play once played (the seat leads the trick after it), and the cards and
/// size features count the play. Over the decisions of hands of random and greedy play.
#[test]
fn candidates_are_legal_complete_where_said_and_their_features_true() {
    let base = Weights::GREEDY;
    let mut plays = Plays::default();
    let (mut decisions, mut complete, mut incomplete) = (0, 0, 0);
    for profile in PROFILES {
        for hand in 0..6u64 {
            let mut game = Game::deal(derive(31, BATCH_HAND, hand), profile, [3, 3], NOBODY, None).unwrap();
            let mut rng = Rng::new(hand);
            let players = [Policy::Agent(Agent::Greedy), Policy::Agent(Agent::Random)];
            while matches!(game.pos.phase, Phase::Declare | Phase::Play) {
                let view = SeatView::of_game(&game);
                candidates(&view, &base, &v1::FEATURES, &mut Rng::new(decisions), &mut plays);
                let mut set = ActionSet::of(&game.pos);
                for (i, a) in plays.actions.iter().enumerate() {
                    assert!(set.contains(a), "{profile:?}: candidate {a:?} is not legal");
                    assert!(!plays.actions[..i].contains(a), "{a:?} named twice");
                }
                if plays.complete {
                    let n = set.count();
                    assert_eq!(n, plays.len() as u128, "{profile:?}: a complete set of {} for {n} legal actions", plays.len());
                    complete += 1;
                } else {
                    assert!(set.count() > LIST_MAX, "an incomplete set stands for many follows");
                    incomplete += 1;
                }
                let seat = game.pos.to_move;
                for (i, a) in plays.actions.iter().enumerate() {
                    let row = plays.row(i);
                    assert_eq!(row[71], (i == 0) as i16, "the base's action is first");
                    if let Action::Play(x) = a {
                        let size: i32 = x.iter().map(|&n| n as i32).sum();
                        assert_eq!(row[54] as i32, size);
                        assert_eq!(row[..54].iter().map(|&n| n as i32).sum::<i32>(), size);
                        // wins: after the play, the seat holds the trick (or took it)
                        let mut g = game.clone();
                        g.apply(a).unwrap();
                        let holds = if g.pos.trick.plays == 0 {
                            g.record.tricks.last().unwrap().winner == seat
                        } else {
                            g.pos.trick.best_seat == seat
                        };
                        let led = game.pos.lead().is_none();
                        if led || row[55] == 1 {
                            assert_eq!(row[63] == 1, holds, "{profile:?}: wins of {a:?}");
                        } else {
                            assert!(!holds || row[63] == 0, "no combination never wins");
                        }
                    }
                }
                decisions += 1;
                let a = players[(seat % 2) as usize].act(&game, &mut rng).unwrap();
                game.apply(&a).unwrap();
            }
        }
    }
    assert!(complete > 1000 && incomplete > 0, "{complete} complete, {incomplete} incomplete of {decisions}");
}

/// A random small play network within the overflow bound, reading play features version 1.
fn random_net(seed: u64, h1: usize, h2: usize) -> PlayNet {
    random_net_of(seed, h1, h2, &v1::FEATURES)
}

/// A random small play network within the overflow bound, reading play features `feats`.
fn random_net_of(seed: u64, h1: usize, h2: usize, feats: &'static Features) -> PlayNet {
    let mut r = Rng::new(seed);
    let enc = default_encoding();
    let mut v = |n: usize, lo: i64, hi: i64| -> Vec<i64> { (0..n).map(|_| lo + r.below((hi - lo + 1) as u128) as i64).collect() };
    let mut net = PlayNet {
        obs: enc,
        feats,
        canonical: true,
        base_declares: false,
        base_plays: false,
        h1,
        h2,
        shift1: 6,
        shift2: 6,
        w1: v(enc.dim * h1, -40, 40).into_iter().map(|x| x as i16).collect(),
        wp: v(feats.dim * h1, -40, 40).into_iter().map(|x| x as i16).collect(),
        b1: v(h1, -3000, 3000).into_iter().map(|x| x as i32).collect(),
        w2: v(h2 * h1, -127, 127).into_iter().map(|x| x as i16).collect(),
        fast: Fast::default(),
        b2: v(h2, -5000, 5000).into_iter().map(|x| x as i32).collect(),
        w3: v(h2, -127, 127).into_iter().map(|x| x as i16).collect(),
        b3: 17,
        prior: 300,
        base: Weights::parse("feed=12/show_margin=20").unwrap(),
        meta: "{\"name\": \"test\"}".into(),
    };
    net.fast = Fast::of(&net);
    net
}

/// The file holds the network exactly; a damaged or refused one is named; the score is the
/// network's arithmetic written out (i64, no shortcuts); the policy plays the best-scored
/// candidate, and the incremental first layer equals the full one. In either play-features
/// version.
#[test]
fn a_play_network_reads_back_and_scores_as_written() {
    for feats in [&v1::FEATURES, &v2::FEATURES] {
        a_play_network_of_reads_back_and_scores_as_written(feats);
    }
}

fn a_play_network_of_reads_back_and_scores_as_written(feats: &'static Features) {
    let net = random_net_of(5, 24, 8, feats);
    let bytes = net.to_bytes();
    assert_eq!(PlayNet::parse(&bytes).unwrap(), net);
    let mut cut = bytes.clone();
    cut.pop();
    let Err(damaged) = PlayNet::parse(&cut) else { panic!("a cut file is refused") };
    assert!(damaged.to_string().contains("CRC"), "{damaged}");
    let mut big = net.clone();
    big.wp[64 * big.h1] = i16::MAX; // the points feature can reach 540
    big.b1[0] = i32::MAX - 1_000_000; // 540 * 32767 more passes i32
    let Err(refused) = PlayNet::parse(&big.to_bytes()) else { panic!("a file that could overflow is refused") };
    assert!(refused.to_string().contains("past i32"), "{refused}");
    big.wp[64 * big.h1] = 1;
    assert!(PlayNet::parse(&big.to_bytes()).is_ok(), "within the bound");

    let enc = default_encoding();
    let mut plays = Plays::default();
    let mut game = Game::deal(derive(9, BATCH_HAND, 0), Profile::Guigang, [3, 3], NOBODY, None).unwrap();
    let p = PlayNetPolicy::keep(&format!("test-play-net-{}", feats.version), net.clone());
    let mut acc = net.accumulator(&vec![0; enc.dim]);
    let mut scored = 0;
    while matches!(game.pos.phase, Phase::Declare | Phase::Play) {
        let view = SeatView::of_game(&game);
        candidates(&view, &net.base, feats, &mut Rng::new(scored), &mut plays);
        let mut x = vec![0i16; enc.dim];
        view.observe(enc, &[0; 54], true, &mut x).unwrap();
        net.update(&mut acc, &x);
        assert_eq!(acc, net.accumulator(&x), "the update is the full first layer");
        let scores: Vec<i32> = (0..plays.len()).map(|i| net.score(&acc, plays.row(i)) + if i == 0 { net.prior } else { 0 }).collect();
        for (i, &s) in scores.iter().enumerate() {
            // written out
            let f = plays.row(i);
            let h1: Vec<i64> = (0..net.h1)
                .map(|j| {
                    let z = net.b1[j] as i64
                        + (0..enc.dim).map(|k| x[k] as i64 * net.w1[k * net.h1 + j] as i64).sum::<i64>()
                        + (0..feats.dim).map(|k| f[k] as i64 * net.wp[k * net.h1 + j] as i64).sum::<i64>();
                    (z >> net.shift1).clamp(0, 127)
                })
                .collect();
            let q = net.b3 as i64
                + (0..net.h2)
                    .map(|k| {
                        let z = net.b2[k] as i64 + (0..net.h1).map(|j| net.w2[k * net.h1 + j] as i64 * h1[j]).sum::<i64>();
                        net.w3[k] as i64 * (z >> net.shift2).clamp(0, 127)
                    })
                    .sum::<i64>();
            assert_eq!(s as i64, q + if i == 0 { net.prior as i64 } else { 0 });
        }
        let seat = game.pos.to_move;
        let mut r2 = Rng::new(scored);
        let a = Policy::Agent(Agent::PlayNet(p)).act(&game, &mut r2).unwrap();
        if plays.len() > 1 {
            assert_eq!(a, plays.actions[best(&scores)], "seat {seat}");
        }
        game.apply(&a).unwrap();
        scored += 1;
    }
    assert!(scored > 100);
}

fn config(seats: [Policy; 4], explore: u32) -> SelfPlayConfig {
    SelfPlayConfig {
        profile: Profile::Guigang,
        seats,
        learners: [true, false, true, true],
        base: Weights::GREEDY,
        rollout: Policy::Agent(Agent::Greedy),
        label_rate: 8000,
        per_decision: 4,
        rollouts: 2,
        explore,
        worlds: 0,
        teacher: None,
        value_visited: 0,
        solve: 0,
        obs: default_encoding(),
        features: &v1::FEATURES,
        canonical: true,
        drawn_levels: false,
    }
}

/// Without exploration, self-play plays `simulate`'s hands exactly; its samples do not
/// depend on the thread count; the base's value is a rollout of the base's action, and a
/// candidate the seat played has the value of the rest of the hand as greedy plays it.
#[test]
fn self_play_is_simulate_without_exploration_and_thread_blind() {
    let seats = [Policy::Agent(Agent::Greedy), Policy::Agent(Agent::Random), Policy::Agent(Agent::Greedy), Policy::Agent(Agent::Random)];
    let s1 = self_play(77, 10, 12, &config(seats, 0), 1).unwrap();
    let s2 = self_play(77, 10, 12, &config(seats, 0), 2).unwrap();
    assert_eq!(s1, s2);
    let (want, _) = simulate_range(77, 10, 12, seats, Profile::Guigang, 1, false).unwrap();
    let got: Vec<[i16; 4]> = want.iter().map(|r| r.returns).collect();
    assert_eq!(s1.returns, got);
    assert!(s1.seat.len() > 100, "{} decisions labelled", s1.seat.len());
    assert!(s1.seat.iter().all(|&s| s != 1), "seat 1 is not a learner");
    assert_eq!(s1.obs.len(), s1.seat.len() * default_encoding().dim);
    assert_eq!(s1.features.len(), s1.decision.len() * v1::DIM);
    // every labelled decision's first valued candidate is the base's
    for d in 0..s1.seat.len() as u32 {
        let first = s1.decision.iter().position(|&x| x == d).unwrap();
        assert!(s1.is_base[first]);
        assert!(s1.decision.iter().filter(|&&x| x == d).count() <= 4);
    }
    // exploration changes the hands, deterministically
    let e1 = self_play(77, 10, 12, &config(seats, 20000), 1).unwrap();
    assert_ne!(e1.returns, s1.returns);
    assert_eq!(e1, self_play(77, 10, 12, &config(seats, 20000), 2).unwrap());
    let mut bad = config(seats, 0);
    bad.per_decision = 1;
    assert!(self_play(77, 0, 1, &bad, 1).is_err());
}

/// A network plays every seat and rolls the candidates out in worlds (policy iteration: the
/// targets are the network's own values): its rollouts read their observations in each
/// world, the samples are thread-blind, and they differ from greedy rollouts' values. A
/// search cannot roll out in a world (no record) and is refused, not run into a panic.
#[test]
fn a_network_plays_and_rolls_out_self_play_in_worlds() {
    let net = Policy::Agent(Agent::PlayNet(PlayNetPolicy::keep("test-self-play", random_net(21, 24, 8))));
    let mut cfg = config([net; 4], 0);
    (cfg.rollout, cfg.worlds, cfg.label_rate) = (net, 3, 4000);
    let s1 = self_play(5, 0, 4, &cfg, 1).unwrap();
    assert_eq!(s1, self_play(5, 0, 4, &cfg, 2).unwrap());
    assert!(s1.seat.len() > 10, "{} decisions labelled", s1.seat.len());
    let mut greedy = cfg.clone();
    greedy.rollout = Policy::Agent(Agent::Greedy);
    let s2 = self_play(5, 0, 4, &greedy, 1).unwrap();
    assert_eq!((s1.returns.clone(), s1.features.clone()), (s2.returns.clone(), s2.features.clone()), "the same hands and candidates");
    assert_ne!(s1.points, s2.points, "valued by the network's rollouts");
    let mut search = cfg.clone();
    search.rollout = Policy::parse("pimc:worlds=2,rollouts=1").unwrap();
    let e = self_play(5, 0, 1, &search, 1).unwrap_err();
    assert!(e.to_string().contains("rollout"), "{e}");
}

/// With drawn levels a hand is dealt as a match reaches it: the levels and banker are
/// [`hand_levels`]'s (every level 3..=A and every seat drawn over a run, the same for a hand
/// whatever else changes), the samples thread-blind, the cards those of the fresh hand.
#[test]
fn drawn_levels_deal_hands_as_a_match_reaches_them() {
    let (mut levels, mut bankers) = ([false; 15], [false; 4]);
    for i in 0..400u64 {
        let (l, b) = hand_levels(derive(3, BATCH_HAND, i), true);
        assert!(l.iter().all(|&x| (3..=14).contains(&x)) && b < 4);
        (levels[l[0] as usize], levels[l[1] as usize], bankers[b as usize]) = (true, true, true);
        assert_eq!(hand_levels(derive(3, BATCH_HAND, i), false), ([3, 3], NOBODY));
    }
    assert!(levels[3..].iter().all(|&x| x) && bankers.iter().all(|&x| x));
    let seats = [Policy::Agent(Agent::Greedy); 4];
    let mut cfg = config(seats, 0);
    cfg.drawn_levels = true;
    for p in PROFILES {
        let mut c = cfg;
        c.profile = p;
        assert_eq!(self_play(9, 0, 6, &c, 1).unwrap().returns.len(), 6, "{p:?}");
    }
    let s1 = self_play(9, 0, 8, &cfg, 1).unwrap();
    assert_eq!(s1, self_play(9, 0, 8, &cfg, 2).unwrap());
    assert_ne!(s1.returns, self_play(9, 0, 8, &config(seats, 0), 1).unwrap().returns);
    for i in 0..8u64 {
        let hs = derive(9, BATCH_HAND, i);
        let (l, b) = hand_levels(hs, true);
        let g = Game::deal(hs, Profile::Guigang, l, b, None).unwrap();
        let fresh = Game::deal(hs, Profile::Guigang, [3, 3], NOBODY, None).unwrap();
        assert_eq!((g.pos.level, g.pos.banker), (l[b as usize % 2], b));
        assert_eq!(g.deck, fresh.deck, "the same cards");
    }
}

/// Observation version 2 begins with version 1's entries, unchanged, at every decision; its
/// added blocks say who holds the trick (as the rules decide after the play) and what the
/// observer has not seen (copies that, with its hand and every played card, make four).
#[test]
fn observation_version_2_extends_version_1() {
    use tractor_core::encode::observe::encoding;
    let (v1, v2) = (encoding(1).unwrap(), encoding(2).unwrap());
    let (at_best, _) = v2.block("trick_best").unwrap();
    let (at_unseen, _) = v2.block("unseen").unwrap();
    assert_eq!(at_best, v1.dim);
    for profile in PROFILES {
        let mut game = Game::deal(derive(5, BATCH_HAND, 1), profile, [3, 3], NOBODY, None).unwrap();
        let mut rng = Rng::new(1);
        while matches!(game.pos.phase, Phase::Declare | Phase::Play) {
            let seat = game.pos.to_move;
            for canonical in [false, true] {
                let (mut a, mut b) = (vec![0i16; v1.dim], vec![0i16; v2.dim]);
                v1.observe(&game, &[0; 54], seat, canonical, &mut a);
                v2.observe(&game, &[0; 54], seat, canonical, &mut b);
                assert_eq!(a[..], b[..v1.dim]);
                if !canonical {
                    for k in 0..54 {
                        let played: i16 = game.tally.played.iter().map(|p| p[k] as i16).sum();
                        assert_eq!(b[at_unseen + k] + game.pos.hands[seat as usize][k] as i16 + played, 4);
                    }
                }
                if game.pos.phase == Phase::Play && game.pos.trick.plays > 0 {
                    let rel = ((game.pos.trick.best_seat + 4 - seat) % 4) as usize;
                    assert_eq!(b[at_best + rel], 1);
                } else {
                    assert_eq!(b[at_best + 4], 1);
                }
            }
            let a = Policy::Agent(Agent::Greedy).act(&game, &mut rng).unwrap();
            game.apply(&a).unwrap();
        }
    }
}

/// A network whose base declares (or plays) takes the base's action in that phase, as the
/// first of its candidates: the shortcut that skips listing them changes no decision.
#[test]
fn a_base_phase_is_the_base_s_action() {
    for (declares, plays) in [(true, false), (false, true)] {
        let mut net = random_net(11, 16, 8);
        (net.base_declares, net.base_plays) = (declares, plays);
        let p = PlayNetPolicy::keep(&format!("phases-{declares}"), net.clone());
        let mut game = Game::deal(derive(4, BATCH_HAND, 2), Profile::Guigang, [3, 3], NOBODY, None).unwrap();
        let mut k = 0u64;
        while matches!(game.pos.phase, Phase::Declare | Phase::Play) {
            let view = SeatView::of_game(&game);
            let dealing = game.pos.phase == Phase::Declare;
            let a = Policy::Agent(Agent::PlayNet(p)).act(&game, &mut Rng::new(k)).unwrap();
            let mut plays = Plays::default();
            let mut scores = Vec::new();
            p.score_all(&view, &mut Rng::new(k), &mut plays, &mut scores);
            assert_eq!(a, plays.actions[best(&scores)], "decision {k}");
            if dealing == declares {
                assert_eq!(plays.len(), 1, "the base's only");
                assert_eq!(a, tractor_core::agent::greedy::act_with(&view, &mut Rng::new(k), &net.base));
            }
            game.apply(&a).unwrap();
            k += 1;
        }
    }
}

/// On six mid-hand positions, `guided` is the same on any thread count, legal, and decides
/// from the seat's information set only (a world it cannot tell from the game gives the same
/// result); per search of `others`, how many of the six it decides otherwise.
fn guided_searches_from_the_information_set(guided: &IsmctsParams<Agent>, others: &[IsmctsParams<Agent>]) -> Vec<u32> {
    use tractor_core::infoset::determinize::Determinizer;
    let mut changed = vec![0; others.len()];
    for seed in 0..6u64 {
        let mut g = Game::deal(derive(seed, BATCH_HAND, 0), Profile::Guigang, [3, 3], NOBODY, None).unwrap();
        let mut rng = Rng::new(seed);
        let mut plays = 0;
        while g.pos.phase != Phase::Play || plays < 20 + 15 * seed {
            if g.pos.phase == Phase::Play {
                plays += 1;
            }
            let a = Policy::Agent(Agent::Greedy).act(&g, &mut rng).unwrap();
            g.apply(&a).unwrap();
        }
        let view = SeatView::of_game(&g);
        let r = ismcts(&view, guided, 5, 1).unwrap();
        assert_eq!(r, ismcts(&view, guided, 5, 2).unwrap(), "thread-blind");
        assert!(view.actions().contains(&r.action));
        let w = Determinizer::new(g.info(g.pos.to_move)).world(&mut Rng::new(seed)).unwrap();
        assert_ne!(w.pos.hands, g.pos.hands);
        assert_eq!(ismcts(&SeatView::of_game(&w), guided, 5, 1).unwrap(), r, "the information set only");
        for (n, other) in changed.iter_mut().zip(others) {
            *n += (ismcts(&view, other, 5, 1).unwrap() != r) as u32;
        }
    }
    changed
}

/// A play network guiding ISMCTS (`first=`, the play each new node tries first): the search
/// is the same on any thread count and decides from the seat's information set only; the
/// guide changes the search.
#[test]
fn a_play_network_guides_ismcts_from_the_information_set() {
    let guide = Agent::PlayNet(PlayNetPolicy::keep("test-guide", random_net(8, 24, 8)));
    let guided = IsmctsParams { iterations: 80, trees: 2, first: Some(guide), ..IsmctsParams::new(Agent::Greedy) };
    let changed = guided_searches_from_the_information_set(&guided, &[IsmctsParams { first: None, ..guided }]);
    assert!(changed[0] > 0, "{changed:?} of 6 searches changed by the guide");
}

/// A play network as ISMCTS's prior (`prior=`, its best untried candidate expanded first and
/// its scores in the selection): thread-blind, from the information set only, and it changes
/// the search; its weight in the selection (`bias`) matters beside the order of expansions.
#[test]
fn a_play_network_as_ismcts_prior_decides_from_the_information_set() {
    let net = PlayNetPolicy::keep("test-prior", random_net(9, 24, 8));
    let prior = IsmctsParams { iterations: 80, trees: 2, prior: Some(Prior::new(net)), ..IsmctsParams::new(Agent::Greedy) };
    let ordered = IsmctsParams { prior: Some(Prior { bias_milli: 0, ..Prior::new(net) }), ..prior };
    let changed = guided_searches_from_the_information_set(&prior, &[IsmctsParams { prior: None, ..prior }, ordered]);
    assert!(changed[0] > 0 && changed[1] > 0, "{changed:?} of 6 searches changed by the prior, by its weight");
}

/// A small play network written to a temporary file: its path and its policy name, `net:PATH`.
fn net_file(tag: &str) -> (std::path::PathBuf, String) {
    let path = std::env::temp_dir().join(format!("tractor-{tag}-{}.tnet", std::process::id()));
    std::fs::write(&path, random_net(3, 16, 8).to_bytes()).unwrap();
    let net = format!("net:{}", path.display());
    (path, net)
}

/// `prior=net:PATH,bias=B,temp=T` parses back to itself and is refused where it makes no sense.
#[test]
fn an_ismcts_prior_by_name_round_trips_and_bad_ones_say_why() {
    let (path, net) = net_file("prior");
    let p = Policy::parse(&format!("ismcts:iterations=7,prior={net},temp=0.25")).unwrap();
    assert_eq!(p.name(), format!("ismcts:iterations=7,c=0.700,rollout=random,trees=1,prior={net},bias=1.000,temp=0.250"));
    assert_eq!(Policy::parse(&p.name()), Ok(p));
    for (bad, why) in [
        (format!("ismcts:prior={net},first=greedy"), "give one"),
        ("ismcts:bias=2".to_string(), "prior=net:PATH"),
        (format!("ismcts:prior={net},temp=0"), "temp"),
        ("ismcts:prior=greedy".to_string(), "prior"),
    ] {
        let e = Policy::parse(&bad).unwrap_err().to_string();
        assert!(e.contains(why), "{bad}: {e}");
    }
    std::fs::remove_file(&path).unwrap();
}

/// `from=N`: while the seat holds more than N cards the guide (the prior network, or the
/// `first` policy) decides alone, declaring included, and the result weighs only its action;
/// from N cards on the search is the same as without `from`. Named, it round-trips; without a
/// guide, or past 54 cards, it is refused.
#[test]
fn ismcts_from_n_cards_leaves_the_decisions_before_to_its_guide() {
    let net = PlayNetPolicy::keep("test-from", random_net(12, 24, 8));
    let guides = [
        IsmctsParams { iterations: 40, prior: Some(Prior::new(net)), ..IsmctsParams::new(Agent::Greedy) },
        IsmctsParams { iterations: 40, first: Some(Agent::PlayNet(net)), ..IsmctsParams::new(Agent::Greedy) },
    ];
    let (mut alone, mut searched, mut declared) = (0, 0, 0);
    for (h, base) in guides.iter().enumerate() {
        let from = IsmctsParams { from: 30, ..*base };
        let mut game = Game::deal(derive(31, BATCH_HAND, h as u64), Profile::Guigang, [3, 3], NOBODY, None).unwrap();
        let mut k = 0u64;
        while matches!(game.pos.phase, Phase::Declare | Phase::Play) {
            let view = SeatView::of_game(&game);
            let held = size(view.hand());
            let guide = Agent::PlayNet(net).decide(&view, &mut Rng::new(k));
            let a = Policy::Ismcts(from).act(&game, &mut Rng::new(k)).unwrap();
            if game.pos.phase == Phase::Declare {
                assert_eq!(a, guide, "the guide declares (hand {h}, decision {k})");
                declared += 1;
            } else if k % 3 == 0 {
                let r = ismcts(&view, &from, k, 1).unwrap();
                if held > 30 {
                    assert_eq!((r.action, r.stats.len(), r.stats[0].visits), (guide, 1, 0), "the guide alone at {held} cards");
                    assert_eq!(a, guide);
                    alone += 1;
                } else {
                    assert_eq!(r, ismcts(&view, base, k, 1).unwrap(), "the search as without from= at {held} cards");
                    searched += 1;
                }
            }
            game.apply(&a).unwrap();
            k += 1;
        }
    }
    assert!(alone > 10 && searched > 10 && declared > 10, "{alone} alone, {searched} searched, {declared} declared");
    let (path, net) = net_file("from");
    let p = Policy::parse(&format!("ismcts:iterations=7,prior={net},from=19")).unwrap();
    assert_eq!(p.name(), format!("ismcts:iterations=7,c=0.700,rollout=random,trees=1,prior={net},bias=1.000,temp=0.100,from=19"));
    assert_eq!(Policy::parse(&p.name()), Ok(p));
    assert_eq!(Policy::parse("ismcts:first=greedy,from=0").unwrap().name(), "ismcts:iterations=1000,c=0.700,rollout=random,trees=1,first=greedy");
    for (bad, why) in [("ismcts:from=19".to_string(), "give first= or prior="), (format!("ismcts:prior={net},from=55"), "from"), ("ismcts:first=greedy,from=x".to_string(), "from")] {
        let e = Policy::parse(&bad).unwrap_err().to_string();
        assert!(e.contains(why), "{bad}: {e}");
    }
    std::fs::remove_file(&path).unwrap();
}

/// A search's whole result (`Policy::search`) decides as the search does (`Policy::act`, the
/// same stream): the teacher's action in self-play is the same whether its root's visits are
/// kept or not. Agents, and every policy while dealing, give none.
#[test]
fn a_search_result_decides_as_the_search() {
    let searches = [Policy::parse("ismcts:iterations=40").unwrap(), Policy::parse("pimc:worlds=3,rollouts=1").unwrap()];
    let mut checked = 0;
    for h in 0..2u64 {
        let mut game = Game::deal(derive(21, BATCH_HAND, h), Profile::Guigang, [3, 3], NOBODY, None).unwrap();
        let mut k = 0u64;
        while matches!(game.pos.phase, Phase::Declare | Phase::Play) {
            let view = SeatView::of_game(&game);
            assert!(Policy::Agent(Agent::Greedy).search(&view, &mut Rng::new(k)).is_none());
            if k % 7 == 0 {
                for p in &searches {
                    let got = p.search(&view, &mut Rng::new(k));
                    let want = p.act(&game, &mut Rng::new(k)).unwrap();
                    match game.pos.phase {
                        Phase::Play => {
                            let r = got.expect("a search at a play decision");
                            assert_eq!(r.action, want, "hand {h} action {k}");
                            assert!(r.stats.iter().any(|s| s.action == want));
                            checked += 1;
                        }
                        _ => assert!(got.is_none(), "dealing: the search gives no result"),
                    }
                }
            }
            let a = Policy::Agent(Agent::Greedy).act(&game, &mut Rng::new(k)).unwrap();
            game.apply(&a).unwrap();
            k += 1;
        }
    }
    assert!(checked > 20, "{checked}");
}

/// Play features version 2: the same candidates as version 1 (the features never draw), each
/// row beginning with version 1's; what it adds is what the rules and the deal make of the
/// play: the unseen cards recounted from the hands dealt, `beaters` of a unit recounted with
/// the rules' own comparison (R4.1), whose the trick is and its points once played (the
/// game's own result after the play, R6.1-R6.2, R7.1), `ruffers` only opponents truly void in
/// the suit, `empties` and `class_unseen` recounted.
#[test]
fn play_features_version_2_extends_version_1_and_says_what_the_play_does() {
    use tractor_core::rules::combo::classify;
    let (at, n2) = (v1::DIM, v2::DIM);
    let name = |n: &str| v2::FEATURES.block(n).unwrap().0;
    let (beaters, ruffers, team_best, trick_points) = (name("beaters"), name("ruffers"), name("team_best"), name("trick_points"));
    let (ours, theirs, safe, empties, class_unseen) = (name("points_ours"), name("points_theirs"), name("safe"), name("empties"), name("class_unseen"));
    assert_eq!(beaters, at);
    let base = Weights::GREEDY;
    let (mut p1, mut p2) = (Plays::default(), Plays::default());
    let (mut rows, mut units, mut safe_rows, mut ruff_rows) = (0, 0, 0, 0);
    for profile in PROFILES {
        for hand in 0..4u64 {
            let mut game = Game::deal(derive(41, BATCH_HAND, hand), profile, [3 + hand as u8, 5], (hand % 4) as u8, None).unwrap();
            let mut rng = Rng::new(hand);
            let mut dealt = None;
            let mut k = 0u64;
            while matches!(game.pos.phase, Phase::Declare | Phase::Play) {
                if game.pos.phase == Phase::Play && dealt.is_none() {
                    dealt = Some(game.pos.hands); // no kitty: every card played since was in these
                }
                let view = SeatView::of_game(&game);
                candidates(&view, &base, &v1::FEATURES, &mut Rng::new(k), &mut p1);
                candidates(&view, &base, &v2::FEATURES, &mut Rng::new(k), &mut p2);
                assert_eq!((&p1.actions, p1.complete), (&p2.actions, p2.complete));
                assert_eq!((p1.dim, p2.dim, p2.features.len()), (v1::DIM, n2, p2.len() * n2));
                let seat = game.pos.to_move;
                let hand = game.pos.hands[seat as usize];
                for (i, a) in p2.actions.iter().enumerate() {
                    let r = p2.row(i);
                    assert_eq!(&r[..at], p1.row(i), "version 1's features first");
                    let Action::Play(x) = a else {
                        assert!(r[at..].iter().all(|&v| v == 0), "a declaring action adds nothing");
                        continue;
                    };
                    rows += 1;
                    let ctx = game.pos.ctx();
                    let start = dealt.unwrap();
                    let unseen: Vec<u8> = (0..54).map(|c| 4 - hand[c] - (0..4).map(|s| start[s][c] - game.pos.hands[s][c]).sum::<u8>()).collect();
                    let mut g = game.clone();
                    g.apply(a).unwrap();
                    let (holder, pts) = if g.pos.trick.plays == 0 {
                        let t = g.record.tricks.last().unwrap();
                        (t.winner, t.points as i16)
                    } else {
                        (g.pos.trick.best_seat, g.pos.trick.points as i16)
                    };
                    assert_eq!(r[team_best] == 1, holder % 2 == seat % 2, "{profile:?}: team_best of {a:?}");
                    assert_eq!(r[trick_points], pts);
                    assert_eq!(r[ours] + r[theirs], pts);
                    assert!(r[ours] == 0 || r[team_best] == 1);
                    if r[safe] == 1 {
                        safe_rows += 1;
                        assert_eq!(r[63], 1, "safe plays win so far");
                        if game.pos.trick.plays == 3 {
                            assert_eq!(holder, seat, "the last play, safe, takes the trick");
                        }
                    }
                    let classes: Vec<u8> = (0..54).filter(|&c| x[c] > 0).map(|c| ctx.class[c]).collect();
                    let one = classes.iter().all(|&c| c == classes[0]).then_some(classes[0]);
                    if let Some(c) = classify(ctx, x).filter(|c| c.k == 1) {
                        // a unit: kinds whose m copies would beat it as a lead of its class (R4.1)
                        let want = (0..54)
                            .filter(|&j| unseen[j] >= c.m)
                            .filter(|&j| {
                                let mut y = [0u8; 54];
                                y[j] = c.m;
                                classify(ctx, &y).is_some_and(|d| d.class == c.class && d.key() > c.key())
                            })
                            .count();
                        assert_eq!(r[beaters] as usize, want, "{profile:?}: beaters of {a:?}");
                        units += 1;
                    }
                    let later: Vec<u8> = (1..=(3 - if game.pos.lead().is_none() { 0 } else { game.pos.trick.plays })).filter(|d| d % 2 == 1).map(|d| (seat + d) % 4).collect();
                    match one {
                        Some(c) if c != 4 => {
                            let truly = later.iter().filter(|&&s| (0..54).all(|j| ctx.class[j] != c || game.pos.hands[s as usize][j] == 0)).count();
                            assert!(r[ruffers] as usize <= truly, "ruffers are truly void");
                            ruff_rows += (r[ruffers] > 0) as usize;
                        }
                        _ => assert_eq!(r[ruffers], 0),
                    }
                    let cu: i16 = one.map_or(0, |c| (0..54).filter(|&j| ctx.class[j] == c).map(|j| unseen[j] as i16).sum());
                    assert_eq!(r[class_unseen], cu);
                    let emptied = (0..5u8).filter(|&c| (0..54).any(|j| ctx.class[j] == c && hand[j] > 0) && (0..54).all(|j| ctx.class[j] != c || hand[j] == x[j])).count();
                    assert_eq!(r[empties] as usize, emptied);
                }
                let players = [Policy::Agent(Agent::Greedy), Policy::Agent(Agent::Random)];
                let a = players[(k % 2) as usize].act(&game, &mut rng).unwrap();
                game.apply(&a).unwrap();
                k += 1;
            }
        }
    }
    assert!(rows > 5000 && units > 2000 && safe_rows > 200 && ruff_rows > 10, "{rows} rows, {units} units, {safe_rows} safe, {ruff_rows} with ruffers");
    assert_eq!(features(2).unwrap(), &v2::FEATURES);
}

/// Self-play writing play features version 2 plays and values exactly as with version 1:
/// only the feature rows differ, each beginning with version 1's.
#[test]
fn self_play_samples_in_play_features_version_2_are_version_1_s_extended() {
    let seats = [Policy::Agent(Agent::Greedy); 4];
    let s1 = self_play(78, 0, 6, &config(seats, 3000), 2).unwrap();
    let mut cfg = config(seats, 3000);
    cfg.features = &v2::FEATURES;
    let s2 = self_play(78, 0, 6, &cfg, 2).unwrap();
    assert_eq!(s2.features.len(), s2.decision.len() * v2::DIM);
    for (a, b) in s1.features.chunks(v1::DIM).zip(s2.features.chunks(v2::DIM)) {
        assert_eq!(a, &b[..v1::DIM]);
    }
    assert!(!s1.decision.is_empty());
    assert_eq!(Samples { features: vec![], ..s1 }, Samples { features: vec![], ..s2 });
}

/// With `solve`, a labelled play decision where the seat holds at most N cards is valued by the
/// open-card solver: in the true state, the candidate the seat played is worth exactly the
/// return and margin of the solver's value after it (the hand replayed here as self-play plays
/// it, greedy on every seat); every other decision keeps its rollouts' values. In worlds too,
/// the samples are thread-blind and only the small hands' values change. `solve` needs
/// rollouts (a Monte-Carlo sample has no candidate values to replace).
#[test]
fn solve_values_small_hands_exactly() {
    use tractor_core::rules::card::size;
    use tractor_core::search::solve;
    use tractor_core::util::seed::POLICY;
    const N: u8 = 4;
    let seats = [Policy::Agent(Agent::Greedy); 4];
    let mut cfg = config(seats, 0);
    (cfg.learners, cfg.label_rate, cfg.solve) = ([true; 4], 65536, N);
    let mut rolled = cfg;
    rolled.solve = 0;
    let (s, r) = (self_play(13, 0, 3, &cfg, 1).unwrap(), self_play(13, 0, 3, &rolled, 1).unwrap());
    assert_eq!(s, self_play(13, 0, 3, &cfg, 2).unwrap(), "thread-blind");
    assert_eq!((&s.returns, &s.decision, &s.features), (&r.returns, &r.decision, &r.features), "the same hands and candidates");
    let (mut checked, mut changed) = (0, 0);
    for hand in 0..3u64 {
        let hs = derive(13, BATCH_HAND, hand);
        let mut game = Game::deal(hs, Profile::Guigang, [3, 3], NOBODY, None).unwrap();
        let mut rngs: Vec<Rng> = (0..4).map(|p| Rng::new(derive(hs, POLICY, p))).collect();
        let mut k = 0u16;
        while matches!(game.pos.phase, Phase::Declare | Phase::Play) {
            let seat = game.pos.to_move;
            let a = seats[seat as usize].act(&game, &mut rngs[seat as usize]).unwrap();
            let small = game.pos.phase == Phase::Play && size(&game.pos.hands[seat as usize]) <= N as usize;
            if let Some(d) = (0..s.seat.len()).find(|&d| s.hand[d] == hand && s.step[d] == k) {
                for row in (0..s.decision.len()).filter(|&c| s.decision[c] as usize == d) {
                    if !small {
                        assert_eq!((s.levels[row], s.points[row]), (r.levels[row], r.points[row]), "hand {hand} step {k}: rolled out as without solve");
                        continue;
                    }
                    changed += ((s.levels[row], s.points[row]) != (r.levels[row], r.points[row])) as usize;
                    if s.played[row] {
                        let mut g = game.clone();
                        g.apply(&a).unwrap();
                        let after = g.pos;
                        let score = solve::value(&after, u64::MAX).unwrap();
                        let o = tractor_core::rules::score::outcome(score, &after.profile.rules());
                        let defends = seat % 2 != after.banker % 2;
                        let margin = if defends { o.score - 160 } else { 160 - o.score };
                        assert_eq!((s.levels[row], s.points[row]), (after.returns_for(score)[seat as usize] as f32, margin as f32), "hand {hand} step {k}");
                        checked += 1;
                    }
                }
            }
            game.apply(&a).unwrap();
            k += 1;
        }
    }
    assert!(checked >= 12 && changed > 0, "{checked} played candidates solved, {changed} values changed");
    // in worlds: each world solved, thread-blind, the large hands' values unchanged
    let (mut w, mut wr) = (cfg, rolled);
    (w.worlds, wr.worlds, w.label_rate, wr.label_rate) = (3, 3, 30000, 30000);
    let (sw, rw) = (self_play(14, 0, 2, &w, 1).unwrap(), self_play(14, 0, 2, &wr, 1).unwrap());
    assert_eq!(sw, self_play(14, 0, 2, &w, 2).unwrap());
    assert_eq!(sw.decision, rw.decision);
    let differ = (0..sw.levels.len()).filter(|&i| (sw.levels[i], sw.points[i]) != (rw.levels[i], rw.points[i])).count();
    assert!(differ > 0 && differ < sw.levels.len() / 2, "{differ} of {} values solved", sw.levels.len());
    let mut mc = cfg;
    mc.rollouts = 0;
    assert!(self_play(13, 0, 1, &mc, 1).unwrap_err().to_string().contains("solve"));
}
