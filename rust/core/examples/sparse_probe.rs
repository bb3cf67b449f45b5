//! The bench's endgames shown (`benches/solve_speed.py`'s positions, `endgame(seed, k)`): each
//! position's profile, trump, banker, mover and points won and left, and every hand with its
//! side and points, to see which seats hold the points the solver fights over (benches/HISTORY.md
//! §47). `cargo run --release -p tractor-core --example sparse_probe K N` (`SKIP=s`: the first s
//! left out).
use tractor_core::rules::card::{cards_of, format};
use tractor_core::rules::score::points;
#[path = "common/positions.rs"]
mod positions;
use positions::bench_endgames;
fn main() {
    let args: Vec<String> = std::env::args().collect();
    let k: usize = args[1].parse().unwrap();
    let n: usize = args[2].parse().unwrap();
    let skip: usize = std::env::var("SKIP").ok().and_then(|v| v.parse().ok()).unwrap_or(0);
    for (i, p) in bench_endgames(k, n).iter().enumerate().skip(skip) {
        let left: i32 = p.hands.iter().map(points).sum();
        println!("pos {} profile {:?} level {} trump {} banker {} to_move {} dp {} left {}", i + 1, p.profile, p.level, p.trump, p.banker, p.to_move, p.defender_points, left);
        for s in 0..4 {
            println!("  seat {s}{} pts {:3}: {}", if p.is_defender(s as u8) { " D" } else { " B" }, points(&p.hands[s]), format(&cards_of(&p.hands[s])));
        }
    }
}
