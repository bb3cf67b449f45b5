//! Integer networks (`agent::net`): the incremental first layer equals its full computation at
//! every decision of hundreds of hands in every profile; the i32 kernel equals an i64 reference;
//! the integer observation is the tensor's numerators; a value head (format 3) reads back,
//! scores as its formula says and values the searches' leaves.

use tractor_core::agent::net::{Accumulator, Base, Net, ValueHead, ONE, VALUE_SCALE};
use tractor_core::agent::random::random_action;
use tractor_core::encode::actions::ACTIONS;
use tractor_core::encode::observe::{encoding, Encoding, OBS_DIM};
use tractor_core::game::hand::{Game, Phase, NOBODY};
use tractor_core::{Profile, Rng};

/// Observation version 1, which these networks read.
fn v1() -> &'static Encoding {
    encoding(1).unwrap()
}

fn random_net(seed: u64, h1: usize, h2: usize) -> Net {
    let mut r = Rng::new(seed);
    let mut small = |m: u64| (r.next_u64() % (2 * m + 1)) as i64 - m as i64;
    Net {
        obs: v1(),
        h1,
        h2,
        shift1: 6,
        shift2: 6,
        canonical: seed % 2 == 1,
        w1: (0..OBS_DIM * h1).map(|_| small(300) as i16).collect(),
        b1: (0..h1).map(|_| small(4000) as i32).collect(),
        w2: (0..h2 * h1).map(|_| small(127) as i16).collect(),
        b2: (0..h2).map(|_| small(4000) as i32).collect(),
        w3: (0..ACTIONS * h2).map(|_| small(127) as i16).collect(),
        b3: (0..ACTIONS).map(|_| small(4000) as i32).collect(),
        meta: String::new(),
        base: Base::None,
        prior: 0,
        value: None,
    }
}

/// The network in i64, layer by layer, as the module's doc writes it.
fn reference(net: &Net, x: &[i16; OBS_DIM]) -> Vec<i64> {
    let h2 = reference_h2(net, x);
    (0..ACTIONS).map(|a| net.b3[a] as i64 + (0..net.h2).map(|k| net.w3[a * net.h2 + k] as i64 * h2[k]).sum::<i64>()).collect()
}

fn obs_i16(g: &Game, seat: u8) -> [i16; OBS_DIM] {
    let mut x = [0i16; OBS_DIM];
    v1().observe(g, &[0; 54], seat, false, &mut x);
    x
}

#[test]
fn the_integer_observation_is_the_tensors_numerators() {
    let d = v1().scales();
    let mut rng = Rng::new(3);
    for profile in Profile::ALL {
        for seed in 0..6u64 {
            let mut g = Game::deal(seed, profile, [3, 3], NOBODY, None).unwrap();
            loop {
                for seat in 0..4u8 {
                    for canonical in [false, true] {
                        let (mut f, mut n) = ([0f32; OBS_DIM], [0i16; OBS_DIM]);
                        v1().observe(&g, &[0; 54], seat, canonical, &mut f);
                        v1().observe(&g, &[0; 54], seat, canonical, &mut n);
                        for i in 0..OBS_DIM {
                            assert_eq!(f[i], n[i] as f32 / d[i] as f32, "entry {i}");
                            assert!(n[i].unsigned_abs() as u32 <= d[i], "entry {i}: {} over {}", n[i], d[i]);
                        }
                    }
                }
                let Some(a) = random_action(&g, &mut rng) else { break };
                g.apply(&a).unwrap();
            }
        }
    }
}

#[test]
fn the_incremental_first_layer_is_the_full_one_at_every_decision() {
    let net = random_net(7, 32, 16);
    let mut decisions = 0;
    for profile in Profile::ALL {
        for seed in 0..70u64 {
            let mut g = Game::deal(seed, profile, [3, 3], NOBODY, None).unwrap();
            let mut rng = Rng::new(seed);
            // each seat keeps its accumulator from its last decision, as a network player does
            let mut accs: Vec<Option<Accumulator>> = vec![None; 4];
            while matches!(g.pos.phase, Phase::Declare | Phase::Play) {
                let seat = g.pos.to_move;
                let x = obs_i16(&g, seat);
                let acc = accs[seat as usize].get_or_insert_with(|| net.accumulator(&x));
                net.update(acc, &x);
                assert_eq!(*acc, net.accumulator(&x), "{profile:?} seed {seed}");
                if decisions % 37 == 0 {
                    assert_eq!(net.logits(acc).iter().map(|&l| l as i64).collect::<Vec<_>>(), reference(&net, &x));
                }
                decisions += 1;
                let a = random_action(&g, &mut rng).unwrap();
                g.apply(&a).unwrap();
            }
        }
    }
    assert!(decisions > 30_000, "{decisions}");
}

fn net_file(name: &str, net: &Net) -> String {
    let path = std::env::temp_dir().join(format!("tractor-net-test-{}-{name}.tnet", std::process::id()));
    std::fs::write(&path, net.to_bytes()).unwrap();
    path.to_str().unwrap().to_string()
}

#[test]
fn a_network_policy_plays_legal_actions_whatever_the_threads() {
    use tractor_core::policy::{Agent, Policy};
    use tractor_core::run::sim::simulate_range;
    let path = net_file("policy", &random_net(11, 32, 16));
    let net = Policy::parse(&format!("net:{path}")).unwrap();
    assert_eq!(net.name(), format!("net:{path}"));
    assert_eq!(Policy::parse(&net.name()).unwrap(), net, "the same file is the same policy");
    let greedy = Policy::Agent(Agent::Greedy);
    for profile in Profile::ALL {
        let ps = [net, greedy, net, greedy];
        let one = simulate_range(5, 0, 24, ps, profile, 1, false).unwrap().0;
        assert_eq!(simulate_range(5, 0, 24, ps, profile, 2, false).unwrap().0, one);
        assert!(one.iter().all(|r| r.stopped || r.tricks > 0));
        // checked: every action the network chooses is legal (simulate applies unchecked)
        for seed in 0..8u64 {
            let mut g = Game::deal(seed, profile, [3, 3], NOBODY, None).unwrap();
            let mut rng = Rng::new(seed);
            while let Some(a) = ps[g.pos.to_move as usize].act(&g, &mut rng) {
                g.apply(&a).unwrap_or_else(|e| panic!("{profile:?} seed {seed}: {a:?}: {e}"));
            }
        }
    }
    let e = Policy::parse("net:/no/such/file.tnet").unwrap_err().to_string();
    assert!(e.contains("cannot read the weights file"), "{e}");
    assert!(Policy::parse("ismcts:rollout=net:x").is_err() && Policy::parse("net:").is_err() && Policy::parse("né").is_err());
}

#[test]
fn a_file_reads_back_as_its_network_and_damage_is_refused() {
    let net = random_net(1, 16, 8);
    let bytes = net.to_bytes();
    assert_eq!(Net::parse(&bytes).unwrap(), net);
    let mut cut = bytes.clone();
    cut.pop();
    assert!(Net::parse(&cut).is_err());
    for at in [0, 9, 30, bytes.len() / 2, bytes.len() - 1] {
        let mut bad = bytes.clone();
        bad[at] ^= 1;
        assert!(Net::parse(&bad).is_err(), "a flipped bit at {at}");
    }
    let mut huge = net.clone();
    huge.w1[0] = i16::MAX;
    huge.w1[huge.h1] = i16::MAX; // input 1: hand copies (× 4)
    huge.b1[0] = i32::MAX - 10;
    let e = Net::parse(&huge.to_bytes()).unwrap_err().to_string();
    assert!(e.contains("past i32"), "{e}");
}

#[test]
fn choose_takes_the_best_allowed_id_and_the_lowest_on_ties() {
    let mut l = [0i32; ACTIONS];
    let mut m = [false; ACTIONS];
    assert_eq!(Net::choose(&l, &m), None);
    l[3] = 9;
    l[5] = 9;
    l[7] = 100;
    m[3] = true;
    m[5] = true;
    assert_eq!(Net::choose(&l, &m), Some(3));
    m[7] = true;
    assert_eq!(Net::choose(&l, &m), Some(7));
}

#[test]
fn a_network_from_its_parts_is_checked_as_a_file_is() {
    let n = random_net(3, 16, 8);
    let parts = |w2: Vec<i16>, b3: Vec<i32>| {
        Net::from_parts(n.obs, n.h1, n.h2, n.shift1, n.canonical, n.w1.clone(), n.b1.clone(), w2, n.b2.clone(), n.w3.clone(), b3, n.meta.clone(), n.base, n.prior, None)
    };
    assert_eq!(parts(n.w2.clone(), n.b3.clone()).unwrap(), n);
    let mut wide = n.w2.clone();
    wide[5] = 200;
    assert!(parts(wide, n.b3.clone()).unwrap_err().to_string().contains("int8"));
    assert!(parts(n.w2.clone(), vec![0; 3]).unwrap_err().to_string().contains("b3 has 3 values"));
}

#[test]
fn a_network_plays_rollouts_keeping_the_tally_as_the_game_does() {
    use tractor_core::agent::view::SeatView;
    use tractor_core::policy::{Agent, Policy};
    use tractor_core::search::rollout::rollout;
    let path = net_file("rollout", &random_net(3, 32, 16));
    let Policy::Agent(net @ Agent::Net(_)) = Policy::parse(&format!("net:{path}")).unwrap() else { panic!("a network is an agent") };
    assert_eq!(Agent::parse(&format!(" net:{path}")).unwrap(), net);
    let mut checked = 0;
    for profile in Profile::ALL {
        for seed in 0..12u64 {
            let mut g = Game::deal(seed, profile, [3, 3], NOBODY, None).unwrap();
            let mut rng = Rng::new(seed);
            // into the play by greedy, then a few random plays
            while g.pos.phase == Phase::Declare {
                let a = Policy::Agent(Agent::Greedy).act(&g, &mut rng).unwrap();
                g.apply(&a).unwrap();
            }
            for _ in 0..(seed * 7 % 40) {
                if g.pos.phase != Phase::Play {
                    break;
                }
                g.apply(&random_action(&g, &mut rng).unwrap()).unwrap();
            }
            if g.pos.phase != Phase::Play {
                continue;
            }
            // the rollout on the bare position with the tally equals the network playing the game
            let got = rollout(g.pos, g.tally, g.levels, &net, &mut Rng::new(1));
            let mut full = g.clone();
            while let Some(a) = Policy::Agent(net).act(&full, &mut rng) {
                assert_eq!(SeatView::of_game(&full).seen().map(|(t, _)| *t), Some(full.tally));
                full.apply(&a).unwrap();
            }
            assert_eq!(Some(got), full.pos.returns(), "{profile:?} seed {seed}");
            checked += 1;
        }
    }
    assert!(checked >= 30, "{checked}");
}

#[test]
fn searches_roll_out_with_a_network_legally_and_whatever_the_threads() {
    use tractor_core::policy::{Agent, Policy};
    use tractor_core::search::ismcts::{ismcts, IsmctsParams};
    use tractor_core::search::pimc::{pimc, PimcParams};
    use tractor_core::agent::view::SeatView;
    let path = net_file("search", &random_net(5, 32, 16));
    let Policy::Agent(net) = Policy::parse(&format!("net:{path}")).unwrap() else { panic!("an agent") };
    let named = Policy::parse(&format!("ismcts:iterations=40,rollout=net:{path},trees=2")).unwrap();
    assert_eq!(Policy::parse(&named.name()).unwrap(), named, "the name spells the rollout network's path");
    assert!(named.name().contains(&format!("rollout=net:{path}")), "{}", named.name());
    for profile in Profile::ALL {
        let mut g = Game::deal(7, profile, [3, 3], NOBODY, None).unwrap();
        let mut rng = Rng::new(7);
        let mut searched = 0;
        while let Some(a) = Policy::Agent(Agent::Greedy).act(&g, &mut rng) {
            if g.pos.phase == Phase::Play && g.pos.tricks_done % 6 == 1 && g.pos.trick.plays == 1 {
                let view = SeatView::of_game(&g);
                let pp = PimcParams { worlds: 3, rollouts: 1, rollout: net, solve: 0, time_ms: 0, deal: false, value: None, turns: false };
                let ip = IsmctsParams { iterations: 30, c_milli: 700, rollout: net, trees: 2, time_ms: 0, solve: 0, deal: false, value: None, turns: false, first: None, prior: None, from: 0 };
                let p1 = pimc(&view, &pp, 9, 1).unwrap();
                assert_eq!(pimc(&view, &pp, 9, 2).unwrap(), p1);
                let i1 = ismcts(&view, &ip, 9, 1).unwrap();
                assert_eq!(ismcts(&view, &ip, 9, 2).unwrap(), i1);
                for r in [p1, i1] {
                    g.clone().apply(&r.action).unwrap();
                    assert!(r.stats.len() == 1 || r.stats.iter().any(|s| s.visits > 0), "a forced play or a searched one");
                }
                searched += 1;
            }
            g.apply(&a).unwrap();
        }
        assert!(searched >= 3, "{profile:?}: {searched}");
    }
}

#[test]
fn a_network_with_a_base_reads_back_and_a_large_prior_plays_as_its_base() {
    use tractor_core::policy::{Agent, Policy};
    use tractor_core::run::sim::simulate_range;
    let plain = random_net(8, 32, 16);
    let v1 = plain.to_bytes();
    assert_eq!(u16::from_le_bytes([v1[8], v1[9]]), 1, "a network without a base is written as format 1");
    let mut based = plain.clone();
    based.base = Base::Greedy;
    based.prior = 1 << 30;
    let v2 = based.to_bytes();
    assert_eq!(u16::from_le_bytes([v2[8], v2[9]]), 2);
    assert_eq!(v2.len(), v1.len() + 5);
    assert_eq!(Net::parse(&v2).unwrap(), based);
    let mut bad = v2.clone();
    bad[8 + 2 + 2 + 2 + 2 + 2 + 2 + 3] = 9; // the base byte
    let n = bad.len() - 4;
    let crc = tractor_core::game::record::crc32(&bad[..n]);
    bad[n..].copy_from_slice(&crc.to_le_bytes());
    assert!(Net::parse(&bad).unwrap_err().to_string().contains("base 9"));
    let mut over = based.clone();
    over.prior = i32::MAX;
    assert!(Net::parse(&over.to_bytes()).unwrap_err().to_string().contains("past i32"));
    let r = |n: &Net| Net::from_parts(n.obs, n.h1, n.h2, n.shift1, n.canonical, n.w1.clone(), n.b1.clone(), n.w2.clone(), n.b2.clone(), n.w3.clone(), n.b3.clone(), String::new(), n.base, n.prior, None);
    assert!(r(&Net { base: Base::None, prior: 5, ..plain.clone() }).unwrap_err().to_string().contains("needs a base"));
    // with a prior above any logit gap, the network takes greedy's every id: greedy's games
    let Policy::Agent(net) = Policy::parse(&format!("net:{}", net_file("based", &based))).unwrap() else { panic!() };
    let greedy = Policy::Agent(Agent::Greedy);
    for profile in Profile::ALL {
        let mixed = [Policy::Agent(net), greedy, Policy::Agent(net), Policy::Agent(Agent::Random)];
        let all = [greedy, greedy, greedy, Policy::Agent(Agent::Random)];
        assert_eq!(simulate_range(4, 0, 30, mixed, profile, 2, false).unwrap().0, simulate_range(4, 0, 30, all, profile, 1, false).unwrap().0, "{profile:?}");
    }
    // with no prior it is the network alone: different games
    let zero = Net { prior: 0, ..based.clone() };
    let Policy::Agent(z) = Policy::parse(&format!("net:{}", net_file("zero", &zero))).unwrap() else { panic!() };
    let mixed = [Policy::Agent(z), greedy, Policy::Agent(z), greedy];
    assert_ne!(simulate_range(4, 0, 30, mixed, Profile::Guigang, 1, false).unwrap().0, simulate_range(4, 0, 30, [greedy; 4], Profile::Guigang, 1, false).unwrap().0);
}

/// `random_net` with a value head of small random weights.
fn valued_net(seed: u64, h1: usize, h2: usize) -> Net {
    let mut r = Rng::new(seed ^ 0x5a1);
    let w = (0..h2).map(|_| (r.next_u64() % 2001) as i16 - 1000).collect();
    Net { value: Some(ValueHead { w, b: 0 }), ..random_net(seed, h1, h2) }
}

/// The second hidden layer in i64, as the module's doc writes it.
fn reference_h2(net: &Net, x: &[i16; OBS_DIM]) -> Vec<i64> {
    let h1: Vec<i64> = (0..net.h1)
        .map(|j| {
            let a = net.b1[j] as i64 + (0..OBS_DIM).map(|i| net.w1[i * net.h1 + j] as i64 * x[i] as i64).sum::<i64>();
            (a >> net.shift1).clamp(0, ONE as i64)
        })
        .collect();
    (0..net.h2)
        .map(|k| {
            let z = net.b2[k] as i64 + (0..net.h1).map(|j| net.w2[k * net.h1 + j] as i64 * h1[j]).sum::<i64>();
            (z >> net.shift2).clamp(0, ONE as i64)
        })
        .collect()
}

#[test]
fn a_value_head_reads_back_and_scores_as_its_formula_says() {
    let plain = random_net(21, 32, 16);
    let net = valued_net(21, 32, 16);
    let bytes = net.to_bytes();
    assert_eq!(u16::from_le_bytes([bytes[8], bytes[9]]), 3, "a network with a value head is written as format 3");
    assert_eq!(bytes.len(), plain.to_bytes().len() + 5 + 2 * 16 + 4, "the base and prior, Wv and bv");
    assert_eq!(Net::parse(&bytes).unwrap(), net);
    for cut in [bytes.len() - 5, bytes.len() - 40] {
        let mut short = bytes[..cut].to_vec();
        let crc = tractor_core::game::record::crc32(&short);
        short.extend_from_slice(&crc.to_le_bytes());
        assert!(Net::parse(&short).unwrap_err().to_string().contains("ends inside"), "cut at {cut}");
    }
    let mut over = net.clone();
    over.value.as_mut().unwrap().b = i32::MAX - 10;
    assert!(Net::parse(&over.to_bytes()).unwrap_err().to_string().contains("past i32"));
    let short_w = Net::from_parts(net.obs, net.h1, net.h2, net.shift1, net.canonical, net.w1.clone(), net.b1.clone(), net.w2.clone(),
        net.b2.clone(), net.w3.clone(), net.b3.clone(), String::new(), Base::None, 0, Some(ValueHead { w: vec![1; 15], b: 0 }));
    assert!(short_w.unwrap_err().to_string().contains("Wv has 15 values, expected 16"));
    assert_eq!(plain.score(&plain.accumulator(&[0; OBS_DIM])), None, "no value head, no score");
    let mut xs = Vec::new();
    for profile in Profile::ALL {
        for seed in 0..8u64 {
            let mut g = Game::deal(seed, profile, [3, 3], NOBODY, None).unwrap();
            let mut rng = Rng::new(seed);
            while let Some(a) = random_action(&g, &mut rng) {
                xs.push(obs_i16(&g, g.pos.to_move));
                g.apply(&a).unwrap();
            }
        }
    }
    // the bias puts about half the positions below zero points, so that the floor at 0 is tested
    let v0: Vec<i64> = xs.iter().map(|x| reference_h2(&net, x).iter().zip(&net.value.as_ref().unwrap().w).map(|(h, &w)| h * w as i64).sum()).collect();
    let mut sorted = v0.clone();
    sorted.sort();
    let mut net = net;
    net.value.as_mut().unwrap().b = -sorted[sorted.len() / 2] as i32;
    let (mut checked, mut positive, mut zero) = (0, 0, 0);
    for (x, dot) in xs.iter().zip(&v0) {
        let acc = net.accumulator(x);
        let out = net.value.as_ref().unwrap().b as i64 + dot;
        assert_eq!(net.value_out(&acc), Some(out as i32));
        let score = (100 * out).div_euclid(VALUE_SCALE).max(0);
        assert_eq!(net.score(&acc), Some(score as i32));
        assert_eq!(net.logits(&acc), plain.logits(&plain.accumulator(x)), "the value head leaves the logits");
        checked += 1;
        positive += (score > 0) as usize;
        zero += (score == 0) as usize;
    }
    assert!(checked > 3_000 && positive > 100 && zero > 100, "{checked} {positive} {zero}");
}

#[test]
fn a_value_head_values_the_searches_leaves() {
    use tractor_core::agent::view::SeatView;
    use tractor_core::policy::{Agent, Policy};
    use tractor_core::search::ismcts::ismcts;
    use tractor_core::search::pimc::pimc;
    // a head that predicts 50 points whatever it sees: every leaf not over is worth returns_for(50)
    let mut constant = random_net(23, 32, 16);
    constant.value = Some(ValueHead { w: vec![0; 16], b: (VALUE_SCALE / 2) as i32 });
    let path = net_file("value", &constant);
    let named = Policy::parse(&format!("ismcts:iterations=60,rollout=greedy,value=net:{path}")).unwrap();
    assert_eq!(Policy::parse(&named.name()).unwrap(), named);
    assert!(named.name().ends_with(&format!(",value=net:{path}")), "{}", named.name());
    let Policy::Pimc(pp) = Policy::parse(&format!("pimc:worlds=4,rollouts=3,rollout=greedy,value=net:{path}")).unwrap() else { panic!() };
    let Policy::Ismcts(ip) = named else { panic!() };
    let plain = net_file("no-value", &random_net(23, 32, 16));
    for search in ["pimc", "ismcts"] {
        let e = Policy::parse(&format!("{search}:value=net:{plain}")).unwrap_err().to_string();
        assert!(e.contains("no value head"), "{e}");
        let e = Policy::parse(&format!("{search}:value=greedy")).unwrap_err().to_string();
        assert!(e.contains("expected net:PATH"), "{e}");
    }
    let mut searched = 0;
    for profile in Profile::ALL {
        let mut g = Game::deal(3, profile, [3, 3], NOBODY, None).unwrap();
        let mut rng = Rng::new(3);
        while let Some(a) = Policy::Agent(Agent::Greedy).act(&g, &mut rng) {
            // mid-hand, where no leaf of these searches ends the hand
            let deep = g.pos.hands.iter().all(|h| h.iter().map(|&c| c as usize).sum::<usize>() > 12);
            if g.pos.phase == Phase::Play && g.pos.tricks_done % 5 == 2 && g.pos.trick.plays == 1 && deep {
                let view = SeatView::of_game(&g);
                let r = g.pos.returns_for(50)[g.pos.to_move as usize] as i64;
                let p1 = pimc(&view, &pp, 4, 1).unwrap();
                assert_eq!(pimc(&view, &pp, 4, 2).unwrap(), p1);
                let i1 = ismcts(&view, &ip, 4, 1).unwrap();
                assert_eq!(ismcts(&view, &ip, 4, 2).unwrap(), i1);
                if p1.stats.len() > 1 {
                    for s in &p1.stats {
                        assert_eq!((s.visits, s.total, s.total_sq), (12, 12 * r, 12 * r * r), "pimc, {profile:?}");
                    }
                    assert_eq!(p1.action, p1.stats[0].action, "all equal: the first candidate");
                    for s in &i1.stats {
                        assert_eq!((s.total, s.total_sq), (s.visits as i64 * r, s.visits as i64 * r * r), "ismcts, {profile:?}");
                    }
                    assert_eq!(i1.stats.iter().map(|s| s.visits).sum::<u64>(), 60);
                    searched += 1;
                }
            }
            g.apply(&a).unwrap();
        }
    }
    assert!(searched >= 6, "{searched}");
}

/// Issue 41: the overflow check assumes every input at its largest value (`Encoding::maxima`: the
/// competition profile's deals without a showing reach 84.67 over their denominator). The
/// worst first layer it admits, every weight of one unit at the largest value the check
/// allows and the bias filling the rest, is evaluated on the observation with every entry at
/// its largest value: the i32 accumulator equals the exact sum (i32::MAX), and one more in
/// the bias is refused. Under the old bound (the denominators) the file was admitted with a
/// larger weight and the sum wrapped.
#[test]
fn the_worst_network_the_check_admits_does_not_wrap() {
    let mx = v1().maxima();
    let sum: i64 = mx.iter().map(|&m| m as i64).sum();
    let w = (i32::MAX as i64 / sum).min(i16::MAX as i64);
    let b = i32::MAX as i64 - w * sum;
    let mut net = random_net(3, 1, 1);
    net.w1 = vec![w as i16; OBS_DIM];
    net.b1 = vec![b as i32];
    let read = Net::parse(&net.to_bytes()).expect("the check admits the worst file");
    let x: [i16; OBS_DIM] = std::array::from_fn(|i| mx[i] as i16);
    assert_eq!(read.accumulator(&x).acc[0] as i64, b + w * sum);
    assert_eq!(b + w * sum, i32::MAX as i64);
    net.b1 = vec![b as i32 + 1];
    assert!(Net::parse(&net.to_bytes()).is_err(), "one more than the worst is refused");
    // the entries' largest values: the denominators but the redeals, a u8 count
    let d = v1().scales();
    assert_eq!((0..OBS_DIM).filter(|&i| mx[i] != d[i]).count(), 1);
}

/// Issue 41: a weights file is read from a regular file only, no further than its header
/// declares (`/dev/zero` read a gigabyte before failing; a FIFO blocked forever), and a
/// version-2 file with a prior and no base is refused as `from_parts` refuses it.
#[test]
fn weights_are_read_from_regular_files_of_their_declared_size() {
    use tractor_core::agent::net::read_weights;
    let net = random_net(4, 8, 4);
    let path = net_file("declared", &net);
    assert_eq!(read_weights(&path).unwrap(), net.to_bytes());
    let err = |p: &str| read_weights(p).unwrap_err().to_string();
    assert!(err("/dev/zero").contains("not a regular file"), "{}", err("/dev/zero"));
    let dir = std::env::temp_dir().join(format!("tractor-fifo-{}", std::process::id()));
    let _ = std::fs::remove_file(&dir);
    if std::process::Command::new("mkfifo").arg(&dir).status().is_ok_and(|s| s.success()) {
        assert!(err(dir.to_str().unwrap()).contains("not a regular file"));
        std::fs::remove_file(&dir).unwrap();
    }
    // a file longer (or shorter) than its header declares
    let mut long = net.to_bytes();
    long.extend_from_slice(&[0; 100]);
    let p = std::env::temp_dir().join(format!("tractor-long-{}.tnet", std::process::id()));
    std::fs::write(&p, &long).unwrap();
    assert!(err(p.to_str().unwrap()).contains("declares"), "{}", err(p.to_str().unwrap()));
    std::fs::write(&p, &long[..long.len() - 150]).unwrap();
    assert!(err(p.to_str().unwrap()).contains("declares"));
    // a file of another format version, whole and CRC-valid, is named as such (not "damaged")
    let mut other = net.to_bytes();
    other[8..10].copy_from_slice(&9u16.to_le_bytes());
    let n = other.len() - 4;
    let crc = tractor_core::game::record::crc32(&other[..n]);
    other[n..].copy_from_slice(&crc.to_le_bytes());
    std::fs::write(&p, &other).unwrap();
    let bytes = read_weights(p.to_str().unwrap()).unwrap();
    assert_eq!(bytes, other);
    assert!(Net::parse(&bytes).unwrap_err().to_string().contains("format version 9"));
    std::fs::remove_file(&p).unwrap();
    // version 2 with a prior and no base
    let mut based = random_net(5, 8, 4);
    based.base = Base::Greedy;
    based.prior = 77;
    let mut bytes = based.to_bytes();
    let at = 8 + 12 + 3; // the base byte
    assert_eq!(bytes[at], 1);
    bytes[at] = 0;
    let n = bytes.len() - 4;
    let crc = tractor_core::game::record::crc32(&bytes[..n]);
    bytes[n..].copy_from_slice(&crc.to_le_bytes());
    let e = Net::parse(&bytes).unwrap_err().to_string();
    assert!(e.contains("needs a base"), "{e}");
}

/// A toy observation version: version 1 then three entries (1, 2, 3), under a number the
/// engine's table does not have.
fn write_plus<T: tractor_core::encode::observe::Entry>(
    pos: &tractor_core::game::hand::Position,
    t: &tractor_core::game::hand::Tally,
    levels: [u8; 2],
    pending: &[u8; 54],
    observer: u8,
    canonical: bool,
    out: &mut [T],
) {
    tractor_core::encode::observe::v1::write(pos, t, levels, pending, observer, canonical, out);
    for k in 0..3 {
        out[OBS_DIM + k] = T::ratio(k as i32 + 1, 1);
    }
}
static PLUS: Encoding = Encoding {
    version: 77,
    dim: OBS_DIM + 3,
    layout: &[("v1", 0, OBS_DIM, "version 1"), ("extra", OBS_DIM, 3, "1, 2, 3")],
    scale: &[("v1", 4), ("extra", 1)],
    beyond: &[],
    write: tractor_core::encode::observe::Writers { f32: write_plus::<f32>, i16: write_plus::<i16>, u8: write_plus::<u8> },
};

#[test]
fn a_weights_file_naming_an_unknown_observation_version_is_refused() {
    // the header's observation version (bytes 10..12) set to a version the engine lacks,
    // the CRC made right again: refused for the version, naming the known ones
    let net = random_net(4, 16, 8);
    for v in [0u16, 77, 999, u16::MAX] {
        let mut bytes = net.to_bytes();
        bytes[10..12].copy_from_slice(&v.to_le_bytes());
        let n = bytes.len() - 4;
        let crc = tractor_core::game::record::crc32(&bytes[..n]);
        bytes[n..].copy_from_slice(&crc.to_le_bytes());
        let e = Net::parse(&bytes).unwrap_err().to_string();
        let known = tractor_core::encode::observe::versions();
        assert!(e.contains(&format!("observation version {v} is unknown (this engine reads {known})")), "{e}");
    }
}

#[test]
fn a_network_reads_and_writes_the_encoding_it_was_made_for() {
    // a network over the toy version: W1 is sized from it, its file names it, and its
    // accumulator takes observations of its size; the engine (which lacks it) refuses the file
    let n = random_net(6, 16, 8);
    let mut w1 = n.w1.clone();
    w1.extend((0..3 * n.h1).map(|k| (k % 7) as i16 - 3));
    let r = |obs: &'static Encoding, w1: Vec<i16>| {
        Net::from_parts(obs, n.h1, n.h2, n.shift1, n.canonical, w1, n.b1.clone(), n.w2.clone(), n.b2.clone(), n.w3.clone(), n.b3.clone(), String::new(), n.base, n.prior, None)
    };
    assert!(r(&PLUS, n.w1.clone()).unwrap_err().to_string().contains(&format!("W1 has {} values, expected {}", n.w1.len(), w1.len())));
    assert!(r(v1(), w1.clone()).is_err(), "version 1 takes 636 inputs");
    let plus = r(&PLUS, w1).unwrap();
    let bytes = plus.to_bytes();
    assert_eq!(u16::from_le_bytes([bytes[10], bytes[11]]), 77, "the header names the network's version");
    assert_eq!(u16::from_le_bytes([bytes[12], bytes[13]]) as usize, OBS_DIM + 3, "and its size");
    assert!(Net::parse(&bytes).unwrap_err().to_string().contains("observation version 77 is unknown"));
    let g = Game::deal(3, Profile::Guigang, [3, 3], NOBODY, None).unwrap();
    let mut x = vec![0i16; PLUS.dim];
    PLUS.observe(&g, &[0; 54], 0, false, &mut x);
    assert_eq!(&x[OBS_DIM..], &[1, 2, 3]);
    let a = plus.accumulator(&x);
    let want: Vec<i32> = (0..plus.h1)
        .map(|j| plus.b1[j] + (0..PLUS.dim).map(|i| x[i] as i32 * plus.w1[i * plus.h1 + j] as i32).sum::<i32>())
        .collect();
    assert_eq!(a.acc, want, "the extra inputs count");
}
