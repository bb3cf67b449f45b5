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
use tractor_core::search::solve::solve;

#[path = "../examples/common/positions.rs"]
mod positions;
use positions::endgames;

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
