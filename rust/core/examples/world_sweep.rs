//! A sweep of the searches' worlds over many deals of every profile: at every play decision
//! of every seat, the search determinizer ([`Determinizer::for_search`], what `pimc` and
//! `ismcts` draw from by default) draws `worlds` worlds; every `exact`-th decision also draws
//! one exact world ([`Determinizer::new`], what `turns=1` and `Game.determinize` use). Prints
//! the proposals a world took (median, p99, max, and the position of the max) and every
//! failure with its deal, seat and decision. Play alternates greedy and random seats, and
//! every fourth deal seats `pimc:worlds=4,rollouts=1` at 0 and 2 (the play that found the
//! panic of issue 41 was a search's).
//!
//! `cargo run --release -p tractor-core --example world_sweep [deals] [worlds] [exact]`

use std::time::Instant;

use tractor_core::game::hand::{Game, Phase, NOBODY};
use tractor_core::infoset::determinize::Determinizer;
use tractor_core::policy::Policy;
use tractor_core::util::seed::{derive, BATCH_HAND, POLICY};
use tractor_core::{Profile, Rng};

fn main() {
    let arg = |i: usize, d: u64| std::env::args().nth(i).and_then(|s| s.parse().ok()).unwrap_or(d);
    let (deals, worlds, exact) = (arg(1, 300), arg(2, 4), arg(3, 8));
    let mixes = [["greedy", "random", "greedy", "random"], ["random", "greedy", "random", "greedy"], ["greedy"; 4]];
    let search = "pimc:worlds=4,rollouts=1,rollout=greedy";
    for profile in Profile::ALL {
        let t = Instant::now();
        let (mut per_world, mut exact_props, mut failures, mut decisions) = (Vec::new(), Vec::new(), Vec::new(), 0u64);
        let mut worst = (0u64, String::new());
        for deal in 0..deals {
            let names: [&str; 4] = if deal % 4 == 3 { [search, "greedy", search, "greedy"] } else { mixes[(deal % 4) as usize % 3] };
            let pol: Vec<Policy> = names.iter().map(|n| Policy::parse(n).expect("a policy")).collect();
            let hand_seed = derive(7, BATCH_HAND, deal);
            let mut g = Game::deal(hand_seed, profile, [3, 3], NOBODY, None).expect("a deal");
            let mut rngs: [Rng; 4] = std::array::from_fn(|p| Rng::new(derive(hand_seed, POLICY, p as u64)));
            loop {
                let seat = g.pos.to_move;
                if g.pos.phase == Phase::Play {
                    for s in 0..4u8 {
                        let mut det = Determinizer::for_search(g.info(s));
                        for w in 0..worlds {
                            let before = det.proposals;
                            let mut r = Rng::new(derive(hand_seed, decisions, w * 4 + s as u64));
                            match det.hands(&mut r) {
                                Ok(_) => {
                                    let p = det.proposals - before;
                                    if p > worst.0 {
                                        worst = (p, format!("deal {deal} seat {s} decision {decisions}"));
                                    }
                                    per_world.push(p);
                                }
                                Err(e) => failures.push(format!("deal {deal} seat {s} decision {decisions}: {e}")),
                            }
                        }
                        if decisions % exact == 0 {
                            let mut det = Determinizer::new(g.info(s));
                            match det.world(&mut Rng::new(derive(hand_seed, decisions, 99 + s as u64))) {
                                Ok(_) => exact_props.push(det.proposals),
                                Err(e) => failures.push(format!("exact: deal {deal} seat {s} decision {decisions}: {e}")),
                            }
                        }
                    }
                }
                let Some(a) = pol[seat as usize].act(&g, &mut rngs[seat as usize]) else { break };
                g.pos_apply(&a);
                decisions += 1;
            }
        }
        per_world.sort_unstable();
        exact_props.sort_unstable();
        let q = |v: &[u64], p: f64| if v.is_empty() { 0 } else { v[((v.len() - 1) as f64 * p) as usize] };
        println!(
            "{:<12} {deals} deals, {} search worlds: proposals median {} p99 {} max {} ({}); {} exact worlds: median {} p99 {} max {}; {} failures; {:.1} s",
            profile.name(),
            per_world.len(),
            q(&per_world, 0.5),
            q(&per_world, 0.99),
            worst.0,
            worst.1,
            exact_props.len(),
            q(&exact_props, 0.5),
            q(&exact_props, 0.99),
            exact_props.last().copied().unwrap_or(0),
            failures.len(),
            t.elapsed().as_secs_f64()
        );
        for f in failures.iter().take(10) {
            println!("  {f}");
        }
    }
}
