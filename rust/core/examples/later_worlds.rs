//! A fixed workload of first worlds at later info sets of a hand, for instruction counts
//! (callgrind) by difference, as a search meets them: for each greedy hand, the seat to move
//! halfway through the play (phase 2 of `greedy_cuts`), the info set there (its turn chains
//! built), then its next `later` decisions (greedy on every seat in between), at each a fresh
//! info set (`Game::info`), a fresh determinizer and its first world. Every position is found
//! before any is determinized: runs that differ in `later` differ only in those worlds, so
//! (Ir at `later` 3 − Ir at 0) / (3 × hands) is one later info set's first world.
//! `cut` picks the starting point among `greedy_cuts` (default 2, mid-hand; 1 is the first
//! trick, its later decisions the hand's first few tricks, as the bench's first-trick rows).
//! `rounds` (default 1) runs the whole workload again that many times in one process (the
//! allocator and the thread's kept buffers in a steady state, as a long search's; the
//! per-info-set memos hold too few info sets to serve the next round); with
//! `LATER_WORLDS_SHOW=1` the last round's worlds are timed.
//! `cargo run --release -p tractor-core --example later_worlds [hands] [later] [cut] [rounds]`
//! e.g. `valgrind --tool=callgrind target/release/examples/later_worlds 12 3`.

use tractor_core::infoset::determinize::Determinizer;
use tractor_core::policy::Policy;
use tractor_core::{Agent, Profile, Rng};

#[path = "common/positions.rs"]
mod positions;
use positions::greedy_cuts;

pub fn main() {
    let arg = |i: usize, d: u64| std::env::args().nth(i).and_then(|s| s.parse().ok()).unwrap_or(d);
    let (hands, later, cut, rounds) = (arg(1, 12), arg(2, 3) as usize, arg(3, 2) as usize, arg(4, 1));
    // per hand: the seat and its positions (the cut, then its next decisions)
    let mut hands_at = Vec::new();
    for seed in 0..hands {
        let mut g = greedy_cuts(seed, Profile::Guigang)[cut].clone();
        let seat = g.pos.to_move;
        let mut at = vec![g.clone()];
        let mut rng = Rng::new(seed);
        while at.len() <= 3 {
            let Some(a) = Policy::Agent(Agent::Greedy).act(&g, &mut rng) else { break };
            g.apply(&a).unwrap();
            if g.pos.to_move == seat && g.pos.phase == tractor_core::game::hand::Phase::Play {
                at.push(g.clone());
            }
        }
        hands_at.push((seed, seat, at));
    }
    // (`LATER_WORLDS_SHOW=1`: each world's wall-clock time, to find the dear ones)
    let show = std::env::var_os("LATER_WORLDS_SHOW").is_some();
    // (`LATER_WORLDS_GAP_MS=g`: g ms idle before each world, as the bench's Python work between
    // calls: an allocator may give freed memory back to the system meanwhile)
    let gap: u64 = std::env::var("LATER_WORLDS_GAP_MS").ok().and_then(|s| s.parse().ok()).unwrap_or(0);
    // (`LATER_WORLDS_EVICT_MB=m`: an m MB buffer written before each world, so that the
    // world meets cold caches, as after the bench's Python work)
    let evict_mb: usize = std::env::var("LATER_WORLDS_EVICT_MB").ok().and_then(|s| s.parse().ok()).unwrap_or(0);
    let mut evict = vec![0u64; evict_mb << 17];
    let mut n = 0u64;
    for round in 0..rounds {
        for (seed, seat, at) in &hands_at {
            for (i, p) in at.iter().enumerate().take(later + 1) {
                let mut r = Rng::new(seed * 1000 + i as u64);
                if gap > 0 {
                    std::thread::sleep(std::time::Duration::from_millis(gap));
                }
                if !evict.is_empty() {
                    // (other work between calls: every cache line of the buffer written)
                    for x in evict.iter_mut().step_by(8) {
                        *x = x.wrapping_add(1);
                    }
                    std::hint::black_box(&evict);
                }
                let faults = if show { minor_faults() } else { 0 };
                let t = std::time::Instant::now();
                let mut det = Determinizer::new(p.info(*seat));
                std::hint::black_box(det.world(&mut r).unwrap());
                if show && round + 1 == rounds {
                    let us = t.elapsed().as_secs_f64() * 1e6;
                    println!("hand {seed} decision {i}: {us:.1} µs, {} minor faults", minor_faults() - faults);
                }
                n += 1;
            }
        }
    }
    println!("{hands} hands, {n} first worlds");
}

/// The process's minor page faults so far (Linux, `/proc/self/stat`; 0 elsewhere).
fn minor_faults() -> u64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    // (the fields after the command's closing parenthesis; minflt is the 10th field)
    stat.rsplit_once(')').and_then(|(_, rest)| rest.split_whitespace().nth(7)?.parse().ok()).unwrap_or(0)
}
