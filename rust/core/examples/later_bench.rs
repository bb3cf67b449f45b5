//! The loop of `benches/compare_search_openspiel.py --determinization-only` in Rust, to time a
//! later info set's first world in the state of the caches the bench leaves (the eviction
//! buffer of `later_worlds` is a guess at it; this is the bench's own work). Per position
//! (`tractor_position(1000 + i, share)`: `Match::new`, greedy `Rng::new(seed * 100 + k)` to
//! the share of cards played, then on to a choice of two plays or more): the hand's first
//! world (seed 999), then per repeat: a copy played greedy to the seat's (rep + 1)-th decision
//! after this one, that copy's first world timed (seed `rep`: info set, determinizer, world, as
//! the binding's `determinize`), then 64 worlds of the position's info set on a fresh copy
//! (`search_seeds(rep, 64)`) and 16 more from that determinizer (`1000 + rep * 16 + k`).
//! Prints the median and mean of the timed worlds (µs), as the bench's "later info set" column.
//! `cargo run --release -p tractor-core --example later_bench [phase] [positions] [repeats] [rounds]`
//! phase 1: first trick (share 0.02), 2: mid-hand (0.5), 3: last trick (0.95); `rounds` runs
//! the whole loop again (the allocator warm), timing the last round only. `LATER_WORLDS_SHOW=1`:
//! each timed world's µs; `LATER_BENCH_EVICT_KB=k`: k KB written before each timed world.
//! The copy's info set is checked after the timed call, as the bench checks its observation
//! only: derived before, it extended the thread's kept proofs (the new tricks' follows) outside
//! the timed call, which the bench's call pays (`LATER_BENCH_INFO_FIRST=1`: derived before).

use tractor_core::game::action_set::ActionSet;
use tractor_core::game::hand::{Game, Phase};
use tractor_core::infoset::determinize::Determinizer;
use tractor_core::policy::Policy;
use tractor_core::util::seed::{derive, SEARCH};
use tractor_core::{Agent, Match, Profile, Rng};

/// The bench's `tractor_position`: None when the hand ends first.
fn position(seed: u64, share: f64) -> Option<Game> {
    let (_, mut g) = Match::new(seed, Profile::Guigang);
    let greedy = |g: &mut Game, k: u64| {
        let a = Policy::Agent(Agent::Greedy).act(g, &mut Rng::new(seed * 100 + k));
        a.map(|a| g.apply(&a).unwrap()).is_some()
    };
    let mut k = 0;
    while g.pos.phase == Phase::Declare {
        greedy(&mut g, k);
        k += 1;
    }
    let left = |g: &Game| g.pos.hands.iter().map(|h| h.iter().map(|&n| n as usize).sum::<usize>()).sum::<usize>();
    while g.pos.phase == Phase::Play && (left(&g) as f64 > 216.0 * (1.0 - share) || ActionSet::of(&g.pos).count() < 2) {
        greedy(&mut g, k);
        k += 1;
    }
    (g.pos.phase == Phase::Play).then_some(g)
}

/// The timed call (its own function: `callgrind --toggle-collect='*later_bench::timed*'`).
#[inline(never)]
fn timed(later: &Game, seat: u8, rep: u64) -> (Game, Box<Determinizer>, Game) {
    let snap = later.clone();
    let mut det = Box::new(Determinizer::new(snap.info(seat)));
    let w = det.world(&mut Rng::new(rep)).unwrap();
    std::hint::black_box(det.table_bytes());
    (snap, det, w)
}

pub fn main() {
    let arg = |i: usize, d: u64| std::env::args().nth(i).and_then(|s| s.parse().ok()).unwrap_or(d);
    let (phase, positions, repeats, rounds) = (arg(1, 2), arg(2, 12), arg(3, 3), arg(4, 1));
    let share = [0.02, 0.5, 0.95][(phase as usize).clamp(1, 3) - 1];
    let show = std::env::var_os("LATER_WORLDS_SHOW").is_some();
    // (`LATER_BENCH_EVICT_KB=k`: k KB written just before each timed world, a stand-in for the
    // Python interpreter's own work between the bench's calls)
    let evict_kb: usize = std::env::var("LATER_BENCH_EVICT_KB").ok().and_then(|s| s.parse().ok()).unwrap_or(0);
    let mut evict = vec![0u64; evict_kb << 7];
    let info_first = std::env::var_os("LATER_BENCH_INFO_FIRST").is_some();
    let mut times = Vec::new();
    for round in 0..rounds {
        times.clear();
        for i in 0..positions {
            let Some(g) = position(1000 + i, share) else { continue };
            let seat = g.pos.to_move;
            let info = g.info(seat);
            // the hand's first info set (the binding keeps its determinizer in the copy)
            let fresh = g.clone();
            let mut det = Box::new(Determinizer::new(fresh.info(seat)));
            let w = det.world(&mut Rng::new(999)).unwrap();
            assert!(w.info(seat) == info);
            let mut kept = Some((fresh, det));
            for rep in 0..repeats {
                let mut later = g.clone();
                let mut k = 0;
                let mut greedy = |g: &mut Game| {
                    let a = Policy::Agent(Agent::Greedy).act(g, &mut Rng::new(7 * i + k));
                    k += 1;
                    a.map(|a| g.apply(&a).unwrap());
                };
                for _ in 0..=rep {
                    greedy(&mut later);
                    while later.pos.phase == Phase::Play && later.pos.to_move != seat {
                        greedy(&mut later);
                    }
                }
                if later.pos.phase == Phase::Play {
                    // (`LATER_BENCH_INFO_FIRST`: the info set derived before the timed call, which
                    // warms the thread's kept proofs for it; the Python bench does not)
                    let info2 = info_first.then(|| later.info(seat));
                    for x in evict.iter_mut().step_by(8) {
                        *x = x.wrapping_add(1);
                    }
                    std::hint::black_box(&evict);
                    let t = std::time::Instant::now();
                    // (as the binding: a snapshot, the info set, a determinizer, its world)
                    let (snap, det, w) = timed(&later, seat, rep);
                    let us = t.elapsed().as_secs_f64() * 1e6;
                    times.push(us);
                    if show && round + 1 == rounds {
                        println!("position {i} repeat {rep}: {us:.1} µs");
                    }
                    let info2 = info2.unwrap_or_else(|| later.info(seat));
                    assert!(w.info(seat) == info2);
                    drop(later);
                    kept.replace((snap, det));
                }
                // 64 worlds of the position's info set on a fresh copy, then 16 one by one
                let fresh = g.clone();
                let mut det = Box::new(Determinizer::new(fresh.info(seat)));
                let ws: Vec<Game> = (0..64).map(|j| det.world(&mut Rng::new(derive(rep, SEARCH, j))).unwrap()).collect();
                std::hint::black_box(&ws);
                drop(ws);
                let mut w = None;
                for k in 0..16 {
                    w = Some(det.world(&mut Rng::new(1000 + rep * 16 + k)).unwrap());
                }
                assert!(w.unwrap().info(seat) == info);
                kept.replace((fresh, det));
            }
            drop(kept);
        }
    }
    let n = times.len();
    let mean = times.iter().sum::<f64>() / n as f64;
    times.sort_by(|a, b| a.partial_cmp(b).unwrap());
    println!("phase {phase}: {n} later first worlds, median {:.1} µs, mean {mean:.1} µs", times[n / 2]);
}
