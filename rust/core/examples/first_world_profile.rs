//! Profiling loop (a `perf` target): fresh determinizers on the info sets of greedy hands at one
//! phase (0 mid-deal, 1 first trick, 2 mid-hand, 3 last trick), `worlds` from each; prints the
//! mean µs per world and per info set built. The order decides what the thread's kept turn
//! chains serve: 0, every seat of a hand in turn (a hand's chains built by its first seat);
//! 1, seat-major; 2, one seat a hand (every first world cold).
//! `cargo run --release -p tractor-core --example first_world_profile [hands] [phase] [loops] [worlds] [order]`
use std::time::Instant;

use tractor_core::infoset::determinize::Determinizer;
use tractor_core::{Profile, Rng};

#[path = "common/positions.rs"]
mod positions;
use positions::greedy_cuts;

fn main() {
    let arg = |i: usize, d: u64| std::env::args().nth(i).and_then(|s| s.parse().ok()).unwrap_or(d);
    let (hands, ph, loops, worlds) = (arg(1, 20), arg(2, 2) as usize, arg(3, 20), arg(4, 1));
    let cold = arg(5, 0);
    let profile = Profile::Guigang;
    let mut infos = Vec::new();
    let mut games = Vec::new();
    for seed in 0..hands {
        let p = greedy_cuts(seed, profile)[ph].clone();
        games.push(p.clone());
        for seat in 0..4u8 {
            infos.push(p.info(seat));
        }
    }
    let t = Instant::now();
    for l in 0..loops {
        // seat-major with `cold`: no hand's chains are still kept when its next seat comes
        let order: Vec<usize> = match cold {
            1 => (0..4).flat_map(|s| (s..infos.len()).step_by(4)).collect(),
            // one seat a hand: every hand's first info set
            2 => (0..infos.len()).step_by(4).collect(),
            _ => (0..infos.len()).collect(),
        };
        for (i, info) in order.into_iter().map(|i| (i, &infos[i])) {
            let mut r = Rng::new(l * 1000 + i as u64);
            let mut det = Determinizer::new(info.clone());
            for _ in 0..worlds {
                std::hint::black_box(det.world(&mut r).unwrap());
            }
        }
    }
    let t2 = Instant::now();
    for _ in 0..loops {
        for g in &games {
            for seat in 0..4u8 {
                std::hint::black_box(g.info(seat));
            }
        }
    }
    println!("info set µs (mean): {:.1}", t2.elapsed().as_secs_f64() * 1e6 / (loops as f64 * infos.len() as f64));
    let n_infos = if cold == 2 { infos.len() / 4 } else { infos.len() };
    println!("µs per world ({worlds} a determinizer, mean): {:.1}", t.elapsed().as_secs_f64() * 1e6 / (loops as f64 * n_infos as f64 * worlds as f64));
}
