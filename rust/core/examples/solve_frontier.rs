//! The open-card solver by cards left: the median time of `solve` (every play's exact value)
//! on trick-start positions of hands played by greedy, as in `benches/solve.rs`; with a path,
//! also every position's values, one line each (to compare two versions of the solver).
//! `cargo run --release -p tractor-core --example solve_frontier [k] [positions] [values-file]`
//! (`BENCH=1`: the positions of `benches/solve_speed.py`, `endgame(seed, k)` for seeds 1, 2, …;
//! `SKIP=s`: the first s of the positions left out, e.g. one 10-card position under callgrind;
//! `PARTITION=1`: by partition search; `THREADS=t`: by t threads)

use std::io::Write;
use std::time::Instant;

use tractor_core::search::solve::solve_threads;

/// `PARTITION=1`: by partition search; `THREADS=t`: by t threads (default 1).
fn solve(p: &tractor_core::Position, budget: u64) -> Result<tractor_core::search::solve::Solution, tractor_core::Error> {
    let threads = std::env::var("THREADS").ok().and_then(|v| v.parse().ok()).unwrap_or(1);
    solve_threads(p, budget, std::env::var("PARTITION").is_ok_and(|v| v == "1"), threads)
}

#[path = "common/positions.rs"]
mod positions;
use positions::{bench_endgames, endgames};

/// The positions: `solve_frontier`'s own, or with `BENCH=1` those of `benches/solve_speed.py`.
fn positions(k: usize, n: usize) -> Vec<tractor_core::Position> {
    if std::env::var("BENCH").is_ok_and(|v| v == "1") { bench_endgames(k, n) } else { endgames(k, n) }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let k: usize = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(6);
    let n: usize = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(20);
    if let Ok(var) = std::env::var("AB") {
        // A/B pairs: each position solved without and with the variable `var` set, in turn
        let mut ratios = Vec::new();
        let (mut na, mut nb) = (0u64, 0u64);
        for (i, p) in positions(k, n).iter().enumerate() {
            let mut t = [0.0f64; 2];
            for j in 0..2 {
                let side = (i + j) % 2;
                if side == 1 { std::env::set_var(&var, "1") } else { std::env::remove_var(&var) }
                let s0 = Instant::now();
                let s = solve(p, u64::MAX).unwrap();
                t[side] = s0.elapsed().as_secs_f64();
                if side == 0 { na += s.nodes } else { nb += s.nodes }
            }
            ratios.push(t[0] / t[1]);
        }
        ratios.sort_by(|a, b| a.partial_cmp(b).unwrap());
        println!("k={k} A/B {var}: median time ratio A/B {:.3}, nodes A {} B {}", ratios[n / 2], na / n as u64, nb / n as u64);
        return;
    }
    let mut file = args.get(3).map(|p| std::fs::File::create(p).unwrap());
    let mut times = Vec::new();
    let mut nodes = 0u64;
    let skip: usize = std::env::var("SKIP").ok().and_then(|v| v.parse().ok()).unwrap_or(0);
    for p in positions(k, n).into_iter().skip(skip) {
        let t = Instant::now();
        let s = solve(&p, u64::MAX).unwrap();
        let dt = t.elapsed().as_secs_f64() * 1e3;
        times.push(dt);
        nodes += s.nodes;
        assert!(s.exact);
        if let Some(f) = file.as_mut() {
            let v: Vec<String> = s.plays.iter().map(|v| format!("{}", v.lower)).collect();
            writeln!(f, "{} best={:?} line={}", v.join(","), s.best.iter().enumerate().filter(|(_, &c)| c > 0).collect::<Vec<_>>(), s.line.len()).unwrap();
        }
        eprintln!("{dt:.2} ms {} nodes {} plays", s.nodes, s.plays.len());
    }
    let mut sorted = times.clone();
    sorted.sort_by(|a, b| a.partial_cmp(b).unwrap());
    let n = sorted.len();
    println!("k={k} positions={n} median {:.2} ms, max {:.2} ms, mean nodes {}", sorted[n / 2], sorted[n - 1], nodes / n as u64);
}
