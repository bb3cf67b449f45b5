//! Hands per second on one thread: `cargo run --release --example throughput -- random 2000`
//! (arguments: policy, hands, threads, profile — `competition` for the §10 rules).
use std::time::Instant;

use tractor_core::Profile;
use tractor_core::policy::Policy;
use tractor_core::run::sim::simulate_range;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let p = Policy::parse(args.get(1).map_or("random", |s| s.as_str())).expect("policy");
    let n: u64 = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(2000);
    let threads: usize = args.get(3).and_then(|s| s.parse().ok()).unwrap_or(1);
    let profile = Profile::parse(args.get(4).map_or("guigang", |s| s.as_str())).expect("profile");
    let t = Instant::now();
    let (res, _) = simulate_range(1, 0, n, [p; 4], profile, threads, false).expect("run");
    let dt = t.elapsed().as_secs_f64();
    let cards: u64 = res.iter().filter(|r| !r.stopped).count() as u64 * 216;
    println!("{} {}: {} hands in {:.3}s: {:.0} hands/s, {:.2} M cards/s", profile.name(), args.get(1).map_or("random", |s| s.as_str()), n, dt, n as f64 / dt, cards as f64 / dt / 1e6);
}
