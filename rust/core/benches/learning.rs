//! Criterion benches of the learning paths: the tensor observation (`observe`) at the start,
//! middle and end of hands, the action mask of a fresh decision, and `VecEnv::step` over
//! 256 environments on one thread with actions drawn from the masks.
//!
//! `cargo bench -p tractor-core --bench learning`. Each bench checks what it computes (the
//! observation's one-hot blocks, a non-empty mask, every step's mask).

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use tractor_core::encode::actions::{Builder, ACTIONS};
use tractor_core::encode::observe::default_encoding;
use tractor_core::game::action_set::ActionSet;
use tractor_core::game::hand::{Game, Phase, NOBODY};
use tractor_core::learn::vec_env::{Buffers, EnvConfig, VecEnv};
use tractor_core::{Profile, Rng};

/// Games at play decisions: `(early, middle, late)` by cards left in the hand to move.
fn positions() -> [Vec<Game>; 3] {
    let mut out = [Vec::new(), Vec::new(), Vec::new()];
    for seed in 0..60u64 {
        let mut g = Game::deal(seed, Profile::Guigang, [3, 3], NOBODY, None).unwrap();
        let mut rng = Rng::new(seed);
        while matches!(g.pos.phase, Phase::Declare | Phase::Play) {
            if g.pos.phase == Phase::Play {
                let left = tractor_core::rules::card::size(&g.pos.hands[g.pos.to_move as usize]);
                let bucket = if left > 40 { 0 } else if left > 15 { 1 } else { 2 };
                if out[bucket].len() < 200 && rng.below(4) == 0 {
                    out[bucket].push(g.clone());
                }
            }
            let a = ActionSet::of(&g.pos).sample(&mut rng).unwrap();
            g.apply(&a).unwrap();
        }
    }
    out
}

fn benches(c: &mut Criterion) {
    let ps = positions();
    let mut grp = c.benchmark_group("observe");
    for (name, games) in ["early", "middle", "late"].iter().zip(&ps) {
        grp.throughput(Throughput::Elements(games.len() as u64));
        let enc = default_encoding();
        let mut buf = vec![0f32; enc.dim];
        let phase = enc.block("phase").unwrap().0;
        grp.bench_function(*name, |b| {
            b.iter(|| {
                let mut ones = 0.0;
                for g in games {
                    enc.observe(g, &[0; 54], g.pos.to_move, false, black_box(&mut buf));
                    ones += buf[phase..][..4].iter().sum::<f32>(); // phase one-hot
                }
                assert_eq!(ones as usize, games.len());
            })
        });
    }
    grp.finish();

    let mut grp = c.benchmark_group("mask");
    for (name, games) in ["early", "middle", "late"].iter().zip(&ps) {
        grp.throughput(Throughput::Elements(games.len() as u64));
        grp.bench_function(*name, |b| {
            b.iter(|| {
                for g in games {
                    let m = Builder::default().mask(black_box(&g.pos));
                    assert!(m.iter().any(|&x| x));
                }
            })
        });
    }
    grp.finish();

    let mut grp = c.benchmark_group("vec_env");
    for (name, every) in [("step_every_receiver", true), ("step_fast_deal", false)] {
        let n = 256;
        let cfg = EnvConfig { every_receiver: every, ..EnvConfig::new(Profile::Guigang, [None; 4]) };
        let mut env = VecEnv::new(n, 1, cfg, 1).unwrap();
        let (mut obs, mut mask, mut seat, mut reward, mut done) =
            (vec![0f32; n * cfg.obs.dim], vec![false; n * ACTIONS], vec![0i32; n], vec![0f32; n * 4], vec![false; n]);
        let mut info = vec![0i32; n * tractor_core::learn::vec_env::INFO];
        env.reset(Buffers { obs: &mut obs, mask: &mut mask, seat: &mut seat, reward: &mut reward, done: &mut done, info: &mut info }).unwrap();
        let mut rng = Rng::new(7);
        let mut actions = vec![0i64; n];
        grp.throughput(Throughput::Elements(n as u64));
        grp.bench_function(name, |b| {
            b.iter(|| {
                for (i, a) in actions.iter_mut().enumerate() {
                    let m = &mask[i * ACTIONS..][..ACTIONS];
                    let k = m.iter().filter(|&&x| x).count();
                    let pick = rng.below_usize(k);
                    *a = m.iter().enumerate().filter(|(_, &x)| x).nth(pick).unwrap().0 as i64;
                }
                env.step(&actions, Buffers { obs: &mut obs, mask: &mut mask, seat: &mut seat, reward: &mut reward, done: &mut done, info: &mut info })
                    .unwrap();
            })
        });
    }
    grp.finish();
}

criterion_group! {
    name = learning;
    config = Criterion::default().sample_size(20).measurement_time(std::time::Duration::from_secs(3));
    targets = benches
}
criterion_main!(learning);
