//! Self-play writing samples on one thread, as `benches/selfplay_speed.py`'s cases run it:
//! `cargo run --release --example selfplay_speed -- rollout net:PATH 300` (`rollout`: 2 % of
//! decisions labelled, 4 candidates each valued by one true-state rollout of tuned-greedy-v1;
//! `mc`: 10 % labelled, Deep Monte-Carlo). For profiles (callgrind) and A/B timings.
use std::time::Instant;

use tractor_core::agent::weights::Weights;
use tractor_core::encode::observe::encoding;
use tractor_core::learn::self_play::{self_play, SelfPlayConfig};
use tractor_core::policy::{Agent, Policy};
use tractor_core::Profile;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let kind = args.get(1).map_or("rollout", |s| s.as_str());
    let seat = Policy::parse(args.get(2).map_or("tuned-greedy-v1", |s| s.as_str())).expect("policy");
    let hands: u64 = args.get(3).and_then(|s| s.parse().ok()).unwrap_or(300);
    let tuned = Policy::parse("tuned-greedy-v1").expect("shipped");
    let Policy::Agent(Agent::Tuned(t)) = tuned else { unreachable!() };
    let base: Weights = *t.weights();
    let mc = kind == "mc";
    let cfg = SelfPlayConfig {
        profile: Profile::Guigang,
        seats: [seat; 4],
        learners: [true; 4],
        base,
        rollout: tuned,
        label_rate: if mc { 6554 } else { 1311 },
        per_decision: 4,
        rollouts: if mc { 0 } else { 1 },
        explore: 0,
        worlds: 0,
        teacher: None,
        value_visited: 0,
        solve: 0,
        obs: encoding(2).expect("version 2"),
        features: tractor_core::agent::play_features::features(std::env::var("PLAY_FEATURES").map_or(1, |v| v.parse().expect("a version"))).expect("a known version"),
        canonical: true,
        drawn_levels: false,
    };
    let t0 = Instant::now();
    let s = self_play(12, 0, hands, &cfg, 1).expect("self-play");
    let dt = t0.elapsed().as_secs_f64();
    println!("{kind}: {hands} hands, {} decisions, {} candidates in {dt:.3}s: {:.0} hands/s", s.seat.len(), s.decision.len(), hands as f64 / dt);
}
