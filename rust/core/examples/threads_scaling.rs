//! Two ISMCTS trees on two threads, three ways (benches/HISTORY.md §29): one after the other on
//! this thread; in rayon's `install` on a pool of two (this thread waits: the searches' way
//! before `take_turns`); by `util::parallel::take_turns` (this thread grows one, a helper the
//! other). Each tree is `ismcts(view, 1,500 iterations, trees=1, seed=t)` on one thread, on
//! positions from greedy self-play; prints each way's summed time and each tree's median time.
//! `cargo run --release -p tractor-core --example threads_scaling [positions] [repeats] [gap ms]`

#[path = "common/positions.rs"]
mod positions;

use std::time::{Duration, Instant};

use rayon::prelude::*;

use tractor_core::Agent;
use tractor_core::agent::view::SeatView;
use tractor_core::game::hand::Phase;
use tractor_core::search::ismcts::{ismcts_reusing, IsmctsParams, Tree};
use tractor_core::util::parallel::{pool, take_turns};

/// One tree: its start and its length, from the call's start, and the tree itself (dropped by
/// the calling thread, as the searches drop theirs).
type Timed = (Duration, Duration, Vec<Tree>);

fn tree(view: &SeatView, t: u64, from: Instant) -> Timed {
    let start = from.elapsed();
    let p = IsmctsParams { iterations: 1500, ..IsmctsParams::<Agent>::default() };
    let (r, kept) = ismcts_reusing(view, &p, t, 1, Vec::new()).unwrap();
    std::hint::black_box(r);
    (start, from.elapsed() - start, kept)
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let positions: u64 = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(6);
    let repeats: usize = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(5);
    let gap = Duration::from_millis(args.get(3).and_then(|s| s.parse().ok()).unwrap_or(5));
    let mut games = Vec::new();
    for seed in 0..positions {
        let g = positions::mid_hand(seed);
        if g.pos.phase == Phase::Play && SeatView::of_game(&g).actions().count() > 1 {
            games.push(g);
        }
    }
    let ways = ["one thread", "install, pool of 2", "take_turns"];
    // per way: summed call time, each tree's length, the second tree's start after the first
    let mut total = [0.0f64; 3];
    let mut lengths: [Vec<f64>; 3] = Default::default();
    let mut late: [Vec<f64>; 3] = Default::default();
    let two = pool(2).unwrap();
    for _ in 0..repeats {
        for g in &games {
            let view = SeatView::of_game(g);
            for w in 0..ways.len() {
                std::thread::sleep(gap); // (5 ms: the pools' idle threads asleep again)
                let from = Instant::now();
                let timed: Vec<Timed> = match w {
                    0 => (0..2).map(|t| tree(&view, t, from)).collect(),
                    1 => two.install(|| (0..2u64).into_par_iter().map(|t| tree(&view, t, from)).collect()),
                    _ => take_turns(vec![0u64, 1], 2, |t| tree(&view, t, from)).unwrap(),
                };
                lengths[w].extend(timed.iter().map(|x| x.1.as_secs_f64() * 1e3));
                if w > 0 {
                    late[w].push((timed[0].0.max(timed[1].0) - timed[0].0.min(timed[1].0)).as_secs_f64() * 1e6);
                }
                drop(timed); // the trees, freed on this thread
                total[w] += from.elapsed().as_secs_f64();
            }
        }
    }
    for (w, way) in ways.iter().enumerate() {
        let late = if w > 0 { format!(", second tree started {:.0} µs after the first (median)", median(late[w].clone())) } else { String::new() };
        println!(
            "{way:>20}: {:.3} s in all, {:.2}x one thread's; a tree {:.2} ms (median){late}",
            total[w],
            total[0] / total[w],
            median(lengths[w].clone())
        );
    }
}
