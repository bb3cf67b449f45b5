//! A digest of exact worlds (`Determinizer::new`) over positions of greedy self-play: every
//! phase, every seat, a fresh determinizer per seat and 8 worlds from it; prints the FNV-1a
//! digest of their decks and hands. A faster sampler must print the same digest (the same
//! worlds from the same seeds). `cargo run --release -p tractor-core --example world_digest [hands]`
//! With 24 hands: `a6829e7edfa778af` since the counting programme draws the kinds only one
//! holder's bounds restrict pooled with the free cards, after its other kinds (`pool.rs`: another
//! order of draws, the same law; `a5da3e890b43c64d` before).

use tractor_core::infoset::determinize::Determinizer;
use tractor_core::{Profile, Rng};

#[path = "common/positions.rs"]
mod positions;
use positions::greedy_cuts;

fn main() {
    let hands: u64 = std::env::args().nth(1).and_then(|s| s.parse().ok()).unwrap_or(12);
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let mut eat = |bytes: &[u8]| {
        for &b in bytes {
            h = (h ^ b as u64).wrapping_mul(0x100_0000_01b3);
        }
    };
    let mut worlds = 0;
    for seed in 0..hands {
        let profile = Profile::ALL[(seed % 3) as usize];
        for p in greedy_cuts(seed, profile) {
            for seat in 0..4u8 {
                let mut det = Determinizer::new(p.info(seat));
                let mut r = Rng::new(seed * 4 + seat as u64);
                for _ in 0..8 {
                    let w = det.world(&mut r).unwrap();
                    eat(&w.deck);
                    for hand in &w.pos.hands {
                        eat(hand);
                    }
                    worlds += 1;
                }
            }
        }
    }
    println!("{worlds} worlds, digest {h:016x}");
}
