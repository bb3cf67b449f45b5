//! scratch (solver23): the bench's point-sparse positions shown, their hands and who holds the
//! points; `sparse_probe K N` (BENCH positions).
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
