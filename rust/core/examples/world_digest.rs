//! A digest of exact worlds (`Determinizer::new`) over positions of greedy self-play: every
//! phase, every seat, a fresh determinizer per seat and 8 worlds from it; prints the FNV-1a
//! digest of their decks and hands. A faster sampler must print the same digest (the same
//! worlds from the same seeds). `cargo run --release -p tractor-core --example world_digest [hands]`
//! With 24 hands: `a2edf1020bbc6605` since the counting programme draws the kinds only one
//! holder's bounds restrict pooled with the free cards, after its other kinds (`pool.rs`), and
//! the level table orders its seats by their nonzero factors (`levels.rs`): another order of
//! draws, the same law (`a5da3e890b43c64d` before). The integration test
//! `determinize::exact_worlds_are_pinned` pins 6 hands' digest.

#[path = "common/positions.rs"]
mod positions;

fn main() {
    let hands: u64 = std::env::args().nth(1).and_then(|s| s.parse().ok()).unwrap_or(12);
    let (worlds, h) = positions::world_digest(hands);
    println!("{worlds} worlds, digest {h:016x}");
}
