//! Steps a self-play `VecEnv` with uniformly drawn legal ids, then times the observation
//! alone over the environments' positions, for profiling:
//! `cargo run --release -p tractor-core --example vec_env_speed -- [envs] [steps] [threads]`.

use std::time::Instant;

use tractor_core::encode::actions::ACTIONS;
use tractor_core::learn::vec_env::{Buffers, EnvConfig, VecEnv};
use tractor_core::{Profile, Rng};

fn main() {
    let args: Vec<usize> = std::env::args().skip(1).map(|a| a.parse().expect("a number")).collect();
    let (n, steps, threads) = (args.first().copied().unwrap_or(256), args.get(1).copied().unwrap_or(2000), args.get(2).copied().unwrap_or(1));
    let cfg = EnvConfig::new(Profile::Guigang, [None; 4]);
    let mut env = VecEnv::new(n, 1, cfg, threads).unwrap();
    let (mut obs, mut mask, mut seat, mut reward, mut done) =
        (vec![0f32; n * cfg.obs.dim], vec![false; n * ACTIONS], vec![0i32; n], vec![0f32; n * 4], vec![false; n]);
    let mut info = vec![0i32; n * tractor_core::learn::vec_env::INFO];
    env.reset(Buffers { obs: &mut obs, mask: &mut mask, seat: &mut seat, reward: &mut reward, done: &mut done, info: &mut info }).unwrap();
    let mut rng = Rng::new(7);
    let mut actions = vec![0i64; n];
    let (mut ends, t0) = (0usize, Instant::now());
    for _ in 0..steps {
        for (i, a) in actions.iter_mut().enumerate() {
            let m = &mask[i * ACTIONS..][..ACTIONS];
            let k = m.iter().filter(|&&x| x).count();
            *a = m.iter().enumerate().filter(|(_, &x)| x).nth(rng.below_usize(k)).unwrap().0 as i64;
        }
        env.step(&actions, Buffers { obs: &mut obs, mask: &mut mask, seat: &mut seat, reward: &mut reward, done: &mut done, info: &mut info }).unwrap();
        ends += done.iter().filter(|&&d| d).count();
    }
    let dt = t0.elapsed().as_secs_f64();
    println!("{n} envs x {steps} steps on {threads} thread(s): {:.0} steps/s, {ends} hands ended", (n * steps) as f64 / dt);
    // observe alone: every environment's seat to move, in turn, many times
    let (rounds, t0) = (200usize, Instant::now());
    let mut buf = vec![0f32; cfg.obs.dim];
    let mut sum = 0f32;
    for r in 0..rounds {
        for e in &env.envs {
            cfg.obs.observe(&e.game, &e.builder.pending, ((e.game.pos.to_move as usize + r) % 4) as u8, r % 2 == 1, &mut buf);
            sum += buf[r % cfg.obs.dim];
        }
    }
    let dt = t0.elapsed().as_secs_f64();
    println!("observe: {:.0} calls/s (check {sum})", (rounds * env.envs.len()) as f64 / dt);
}
