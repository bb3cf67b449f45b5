//! ISMCTS and PIMC decisions on positions from greedy self-play, one thread.
//! `cargo run --release -p tractor-core --example search_speed [positions] [iterations]`

#[path = "common/positions.rs"]
mod positions;

use std::time::Instant;

use tractor_core::Agent;
use tractor_core::agent::view::SeatView;
use tractor_core::game::hand::Phase;
use tractor_core::search::ismcts::{ismcts, IsmctsParams};
use tractor_core::search::pimc::{pimc, PimcParams};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let positions: u64 = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(10);
    let iterations: u32 = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(1000);
    let (mut it_s, mut pimc_s, mut n) = (0.0, 0.0, 0);
    for seed in 0..positions {
        let g = positions::mid_hand(seed);
        if g.pos.phase != Phase::Play {
            continue;
        }
        let view = SeatView::of_game(&g);
        let t = Instant::now();
        let p = IsmctsParams { iterations, ..IsmctsParams::<Agent>::default() };
        std::hint::black_box(ismcts(&view, &p, seed, 1).unwrap());
        it_s += t.elapsed().as_secs_f64();
        let t = Instant::now();
        std::hint::black_box(pimc(&view, &PimcParams::<Agent>::default(), seed, 1).unwrap());
        pimc_s += t.elapsed().as_secs_f64();
        n += 1;
    }
    println!("ISMCTS: {:.0} iterations/s; PIMC 32x8: {:.2} decisions/s ({n} positions)", n as f64 * iterations as f64 / it_s, n as f64 / pimc_s);
}
