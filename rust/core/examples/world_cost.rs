//! A fixed workload of exact worlds (`Determinizer::new`) for instruction counts (callgrind),
//! which a loaded machine does not disturb: the info sets of greedy hands at one phase (0
//! mid-deal, 1 first trick, 2 mid-hand, 3 last trick), every seat of a hand in turn, `fresh`
//! determinizers each, `worlds` worlds from each. Runs that differ in one argument give one
//! cost by difference: `worlds` 1 against 33, the next world (× 32 × info sets); `fresh` 1
//! against 3, a fresh state's first world with the hand's turn chains kept (× 2 × info sets).
//! `cargo run --release -p tractor-core --example world_cost [hands] [phase] [fresh] [worlds]`
//! e.g. `valgrind --tool=callgrind target/release/examples/world_cost 12 2 1 33`.

use tractor_core::infoset::determinize::Determinizer;
use tractor_core::{Profile, Rng};

#[path = "common/positions.rs"]
mod positions;
use positions::greedy_cuts;

fn main() {
    let arg = |i: usize, d: u64| std::env::args().nth(i).and_then(|s| s.parse().ok()).unwrap_or(d);
    let (hands, ph, fresh, worlds) = (arg(1, 12), arg(2, 2) as usize, arg(3, 1), arg(4, 1));
    let mut infos = Vec::new();
    for seed in 0..hands {
        let p = &greedy_cuts(seed, Profile::Guigang)[ph];
        for seat in 0..4u8 {
            infos.push((seed, seat, p.info(seat)));
        }
    }
    let mut n = 0u64;
    for (seed, seat, info) in &infos {
        for f in 0..fresh {
            let mut r = Rng::new(seed * 1000 + *seat as u64 * 10 + f);
            let mut det = Determinizer::new(info.clone());
            for _ in 0..worlds {
                std::hint::black_box(det.world(&mut r).unwrap());
                n += 1;
            }
        }
    }
    println!("{} info sets, {n} worlds", infos.len());
}
