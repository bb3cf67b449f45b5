//! Criterion bench of the exact open-card solver (`search::solve`) by cards left: positions at
//! the start of a trick with k cards in every hand, from hands dealt by seed and played by the
//! greedy agent, each solved exactly (every play's value). It also prints the nodes searched
//! per second and the mean nodes per position.
//!
//! `cargo bench -p tractor-core --bench solve`. Each solve is checked: exact, and its value is
//! that of its best play.

use std::hint::black_box;
use std::time::Instant;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use tractor_core::agent::greedy;
use tractor_core::agent::view::SeatView;
use tractor_core::game::action_set::ActionSet;
use tractor_core::game::hand::{Game, Phase, Position, NOBODY};
use tractor_core::search::solve::solve;
use tractor_core::{Profile, Rng};

/// Trick-start positions with `k` cards a hand, one per seed.
pub fn endgames(k: usize, n: usize) -> Vec<Position> {
    let mut out = Vec::new();
    let mut seed = 0u64;
    while out.len() < n {
        seed += 1;
        let mut g = Game::deal(seed, Profile::Guigang, [3, 3], NOBODY, None).unwrap();
        let mut rng = Rng::new(seed);
        while matches!(g.pos.phase, Phase::Declare | Phase::Play) {
            let p = &g.pos;
            if p.phase == Phase::Play && p.trick.plays == 0 && tractor_core::rules::card::size(&p.hands[p.to_move as usize]) == k {
                out.push(g.pos);
                break;
            }
            let a = if g.pos.phase == Phase::Play {
                greedy::act(&SeatView::of_game(&g), &mut rng)
            } else {
                ActionSet::of(&g.pos).sample(&mut rng).unwrap()
            };
            g.apply(&a).unwrap();
        }
    }
    out
}

fn benches(c: &mut Criterion) {
    let mut grp = c.benchmark_group("solve");
    grp.sample_size(10);
    for k in [2usize, 3, 4, 5, 6] {
        let ps = endgames(k, 20);
        let t = Instant::now();
        let nodes: u64 = ps.iter().map(|p| solve(p, u64::MAX).unwrap().nodes).sum();
        let dt = t.elapsed().as_secs_f64();
        println!("solve k={k}: {} nodes a position, {:.0} nodes/s, {:.2} ms a position",
                 nodes / ps.len() as u64, nodes as f64 / dt, dt * 1e3 / ps.len() as f64);
        grp.throughput(Throughput::Elements(ps.len() as u64));
        grp.bench_function(format!("{k}_cards_a_hand"), |b| {
            b.iter(|| {
                for p in &ps {
                    let s = solve(black_box(p), u64::MAX).unwrap();
                    assert!(s.exact && s.plays.iter().any(|v| v.play == s.best && v.lower == s.lower));
                }
            })
        });
    }
    grp.finish();
}

criterion_group!(solve_benches, benches);
criterion_main!(solve_benches);
