//! Pins what `VecEnv` writes: a digest of every buffer (observations, masks, seats to act,
//! rewards, done flags) after every step, with ids drawn uniformly from the masks, for 1, 2
//! and 3 threads: 64 environments over 2,000 steps (self-play with every receiver; against
//! policies with canonical suits), and 300 environments over 700 steps (several runs per
//! thread; competition profile, one built-in seat). The expected digests were computed with
//! the engine at commit d4dfca5 (before the VecEnv speed work), so a faster step must write
//! byte-identical buffers, whatever the thread count.

use tractor_core::Agent;
use tractor_core::encode::actions::ACTIONS;
use tractor_core::encode::observe::OBS_DIM;
use tractor_core::learn::vec_env::{Buffers, EnvConfig, VecEnv};
use tractor_core::policy::Policy;
use tractor_core::{Profile, Rng};

/// FNV-1a, 64 bits, over bytes.
struct Fnv(u64);

impl Fnv {
    fn bytes(&mut self, b: &[u8]) {
        for &x in b {
            self.0 ^= x as u64;
            self.0 = self.0.wrapping_mul(0x100_0000_01b3);
        }
    }
}

/// The digest of every buffer after every step, and the number of hands ended.
fn digest(cfg: EnvConfig, n: usize, steps: usize, threads: usize) -> (u64, usize) {
    let mut env = VecEnv::new(n, 2024, cfg, threads).unwrap();
    let (mut obs, mut mask, mut seat, mut reward, mut done) =
        (vec![0f32; n * OBS_DIM], vec![false; n * ACTIONS], vec![0i32; n], vec![0f32; n * 4], vec![false; n]);
    let mut info = vec![0i32; n * tractor_core::learn::vec_env::INFO];
    env.reset(Buffers { obs: &mut obs, mask: &mut mask, seat: &mut seat, reward: &mut reward, done: &mut done, info: &mut info }).unwrap();
    let mut h = Fnv(0xcbf2_9ce4_8422_2325);
    let mut rng = Rng::new(11);
    let mut actions = vec![0i64; n];
    let mut ends = 0;
    for _ in 0..steps {
        for (i, a) in actions.iter_mut().enumerate() {
            let ids: Vec<usize> = (0..ACTIONS).filter(|&k| mask[i * ACTIONS + k]).collect();
            *a = ids[rng.below_usize(ids.len())] as i64;
        }
        env.step(&actions, Buffers { obs: &mut obs, mask: &mut mask, seat: &mut seat, reward: &mut reward, done: &mut done, info: &mut info })
            .unwrap();
        for x in &obs {
            h.bytes(&x.to_bits().to_le_bytes());
        }
        h.bytes(&mask.iter().map(|&m| m as u8).collect::<Vec<u8>>());
        for x in &seat {
            h.bytes(&x.to_le_bytes());
        }
        for x in &reward {
            h.bytes(&x.to_bits().to_le_bytes());
        }
        h.bytes(&done.iter().map(|&d| d as u8).collect::<Vec<u8>>());
        ends += done.iter().filter(|&&d| d).count();
    }
    (h.0, ends)
}

#[test]
fn self_play_every_receiver_is_pinned() {
    let cfg = EnvConfig::new(Profile::Guigang, [None; 4]);
    let want = (12711578478482325514, 256);
    for threads in [1, 2, 3] {
        assert_eq!(digest(cfg, 64, 2000, threads), want, "{threads} thread(s)");
    }
}

#[test]
fn opponents_and_canonical_suits_are_pinned() {
    let cfg = EnvConfig {
        every_receiver: false,
        canonical: true,
        ..EnvConfig::new(Profile::Nanning, [None, Some(Policy::Agent(Agent::Greedy)), None, Some(Policy::Agent(Agent::Random))])
    };
    let want = (17220712418654024266, 962);
    for threads in [1, 2, 3] {
        assert_eq!(digest(cfg, 64, 2000, threads), want, "{threads} thread(s)");
    }
}

#[test]
fn many_runs_per_thread_are_pinned() {
    // 300 environments: several runs per thread, taken in whatever order the threads come
    let cfg = EnvConfig::new(Profile::Competition, [None, None, Some(Policy::Agent(Agent::Greedy)), None]);
    let want = (17928610281345841917, 312);
    for threads in [1, 2, 3] {
        assert_eq!(digest(cfg, 300, 700, threads), want, "{threads} thread(s)");
    }
}
