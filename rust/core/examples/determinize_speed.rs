//! Microseconds per determinized world, by phase, on positions from greedy self-play.
//! `cargo run --release -p tractor-core --example determinize_speed [hands] [profile]`
//! (profile: guigang, the default, nanning or competition)
//!
//! For each position and seat: the time of the first world (info set, counting programme if
//! needed, and the world) and of 16 more from the same determinizer (what a search pays per
//! world). Prints medians and p99 per phase, and beside them the same for the sampler that
//! ignores who was asked while dealing (`Determinizer::ignoring_turns`, the baseline of the
//! turn-conditioned worlds: the ratio is the cost of that evidence).

use std::time::Instant;

use tractor_core::infoset::determinize::Determinizer;
use tractor_core::{Profile, Rng};

#[path = "common/positions.rs"]
mod positions;
use positions::greedy_cuts;

fn pct(v: &mut [f64], p: f64) -> f64 {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    v[((v.len() - 1) as f64 * p) as usize]
}

fn main() {
    let hands: u64 = std::env::args().nth(1).and_then(|s| s.parse().ok()).unwrap_or(40);
    let profile = std::env::args().nth(2).map_or(Ok(Profile::Guigang), |p| Profile::parse(&p)).unwrap();
    let phases = ["mid-deal", "first trick", "mid-hand", "last trick"];
    let mut first: Vec<Vec<f64>> = vec![Vec::new(); 4];
    let mut more: Vec<Vec<f64>> = vec![Vec::new(); 4];
    let mut hands_only: Vec<Vec<f64>> = vec![Vec::new(); 4];
    let (mut props, mut accs) = ([0u64; 4], [0u64; 4]);
    let mut search: Vec<Vec<f64>> = vec![Vec::new(); 4];
    let mut blind_first: Vec<Vec<f64>> = vec![Vec::new(); 4];
    let mut blind_more: Vec<Vec<f64>> = vec![Vec::new(); 4];
    for seed in 0..hands {
        for (ph, p) in greedy_cuts(seed, profile).iter().enumerate() {
            for seat in 0..4u8 {
                let mut r = Rng::new(seed * 4 + seat as u64);
                let t = Instant::now();
                let mut det = Determinizer::new(p.info(seat));
                let w = det.world(&mut r).unwrap();
                first[ph].push(t.elapsed().as_secs_f64() * 1e6);
                std::hint::black_box(w);
                let t = Instant::now();
                for _ in 0..16 {
                    std::hint::black_box(det.world(&mut r).unwrap());
                }
                more[ph].push(t.elapsed().as_secs_f64() * 1e6 / 16.0);
                let t = Instant::now();
                for _ in 0..16 {
                    std::hint::black_box(det.sample(&mut r).unwrap());
                }
                hands_only[ph].push(t.elapsed().as_secs_f64() * 1e6 / 16.0);
                props[ph] += det.proposals;
                accs[ph] += det.accepted;
                let t = Instant::now();
                let mut blind = Determinizer::ignoring_turns(p.info(seat));
                std::hint::black_box(blind.world(&mut r).unwrap());
                blind_first[ph].push(t.elapsed().as_secs_f64() * 1e6);
                let t = Instant::now();
                for _ in 0..16 {
                    std::hint::black_box(blind.world(&mut r).unwrap());
                }
                blind_more[ph].push(t.elapsed().as_secs_f64() * 1e6 / 16.0);
                let mut sd = Determinizer::for_search(p.info(seat));
                std::hint::black_box(sd.sample(&mut r).unwrap());
                let t = Instant::now();
                for _ in 0..16 {
                    std::hint::black_box(sd.sample(&mut r).unwrap());
                }
                search[ph].push(t.elapsed().as_secs_f64() * 1e6 / 16.0);
            }
        }
    }
    println!("phase        first world µs (median / p99)   next worlds µs (median / p99)   hands only µs (median / p99)");
    for ph in 0..4 {
        println!(
            "{:<12} {:>10.1} / {:>10.1}          {:>10.1} / {:>10.1}          {:>10.1} / {:>10.1}",
            phases[ph],
            pct(&mut first[ph], 0.5),
            pct(&mut first[ph], 0.99),
            pct(&mut more[ph], 0.5),
            pct(&mut more[ph], 0.99),
            pct(&mut hands_only[ph], 0.5),
            pct(&mut hands_only[ph], 0.99)
        );
        println!(
            "             proposals per accepted hands: {:.1}; search hands (no timing) µs median / p99: {:.1} / {:.1}",
            props[ph] as f64 / accs[ph] as f64,
            pct(&mut search[ph], 0.5),
            pct(&mut search[ph], 0.99)
        );
        let (f, m) = (pct(&mut first[ph], 0.5), pct(&mut more[ph], 0.5));
        let (bf, bm) = (pct(&mut blind_first[ph], 0.5), pct(&mut blind_more[ph], 0.5));
        println!(
            "             ignoring who was asked: first world µs median / p99 {:.1} / {:.1}, next {:.1} / {:.1}; with it / without: first {:.2}x, next {:.2}x",
            bf,
            pct(&mut blind_first[ph], 0.99),
            bm,
            pct(&mut blind_more[ph], 0.99),
            f / bf,
            m / bm
        );
    }
}
