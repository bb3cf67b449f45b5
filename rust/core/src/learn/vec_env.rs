//! Many games stepped together, for learners: one call steps every environment with its
//! action id (see [`crate::encode::actions`]) and writes observations, masks, seats to act, rewards
//! and done flags into the caller's buffers. No Python here; the binding releases the GIL.
//!
//! Each environment plays matches (R7.4–R7.6) hand after hand; a hand is an episode. Seats
//! whose policy is `None` are the learner's, the others are played by their built-in policy
//! until a learner seat is to move. When a hand ends, `done` is set, `reward` holds the
//! per-seat returns (levels gained by the seat's team minus the other team's, R7.4; zero for
//! a stopped deal, R8.5), and the environment moves on to the next hand of its match (a new
//! match once a team has passed A): the observation returned is of that next hand.
//!
//! Seeds (see [`crate::util::seed`]): environment i has `env_seed = derive(seed, VEC_ENV, i)`.
//! Results depend on the seed only, never on the thread count.

use std::sync::Mutex;

use rayon::prelude::*;

use crate::encode::actions::{Builder, ACTIONS};
use crate::encode::observe::{observe, OBS_DIM};
use crate::game::hand::{Game, Phase};
use crate::game::match_state::Match;
use crate::policy::Policy;
use crate::rules::error::Error;
use crate::rules::profile::Profile;
use crate::util::rng::Rng;
use crate::util::seed::{derive, MATCH, POLICY, VEC_ENV};

/// How the environments play.
#[derive(Clone, Copy, Debug)]
pub struct EnvConfig {
    pub profile: Profile,
    /// Per seat: `None` for the learner, else the policy that plays it.
    pub seats: [Option<Policy>; 4],
    /// Every receiver decides after every card (no information through the turn order, see
    /// [`crate::game::hand::Record::every_receiver`]); `false` skips seats that cannot show.
    pub every_receiver: bool,
    /// Observations with the trump suit renamed first (see [`crate::encode::observe`]).
    pub canonical: bool,
}

/// One environment.
#[derive(Clone, Debug)]
pub struct Env {
    env_seed: u64,
    matches: u64,
    hands: u64,
    m: Match,
    pub game: Game,
    pub builder: Builder,
    rngs: [Rng; 4],
}

impl Env {
    fn new(env_seed: u64, cfg: &EnvConfig) -> Env {
        let (m, game) = Match::new(derive(env_seed, MATCH, 0), cfg.profile);
        let mut e = Env { env_seed, matches: 0, hands: 0, m, game, builder: Builder::default(), rngs: [Rng::new(0); 4] };
        e.begin_hand(cfg);
        e
    }

    /// Prepares the current hand: deal mode and the opponents' streams.
    fn begin_hand(&mut self, cfg: &EnvConfig) {
        if cfg.every_receiver {
            self.game = self.game.clone().with_every_receiver().expect("a fresh dealt hand");
        }
        // room for a whole hand's record at once (about 470 decisions, 54 tricks), instead
        // of growing it step by step; the record's contents are unaffected
        let r = &mut self.game.record;
        r.actions.reserve(512);
        r.dealt_at.reserve(256);
        r.tricks.reserve(64);
        let hs = derive(self.env_seed, POLICY, self.hands);
        self.rngs = std::array::from_fn(|s| Rng::new(derive(hs, POLICY, s as u64)));
        self.builder.clear();
    }

    /// Lets the built-in policies move until a learner seat is to move; returns the returns
    /// if the hand ended on the way (and then starts the next hand).
    fn advance(&mut self, cfg: &EnvConfig) -> Option<[i32; 4]> {
        let mut ended = None;
        loop {
            match self.game.pos.phase {
                Phase::Over | Phase::Stopped => {
                    // only a stopped deal (R8.5, no returns) can end before a learner moves
                    let ret = self.game.pos.returns().unwrap_or([0; 4]);
                    ended.get_or_insert(ret);
                    self.next_hand(cfg);
                    continue;
                }
                _ => {}
            }
            let seat = self.game.pos.to_move as usize;
            match &cfg.seats[seat] {
                None => return ended,
                Some(p) => {
                    let a = p.act(&self.game, &mut self.rngs[seat]).expect("the hand is not over");
                    self.game.apply(&a).expect("policies produce legal actions");
                }
            }
        }
    }

    fn next_hand(&mut self, cfg: &EnvConfig) {
        self.hands += 1;
        let next = if self.m.winner.is_some() { None } else { self.m.next_hand(&self.game).ok() };
        self.game = match next {
            Some(g) => g,
            None => {
                // a team has passed A: a new match
                self.matches += 1;
                let (m, g) = Match::new(derive(self.env_seed, MATCH, self.matches), cfg.profile);
                self.m = m;
                g
            }
        };
        self.m.history.clear(); // unbounded matches keep no history here
        self.begin_hand(cfg);
    }

    fn write(&mut self, cfg: &EnvConfig, obs: &mut [f32], mask: &mut [bool], seat: &mut i32) {
        let s = self.game.pos.to_move;
        *seat = s as i32;
        observe(&self.game, &self.builder.pending, s, cfg.canonical, obs);
        mask.copy_from_slice(&self.builder.mask(&self.game.pos));
    }
}

/// One environment's part of the buffers.
struct Slot<'a> {
    obs: &'a mut [f32],
    mask: &'a mut [bool],
    seat: &'a mut i32,
    reward: &'a mut [f32],
    done: &'a mut bool,
}

/// How the environments are cut for the threads.
struct Parts;

impl Parts {
    /// Fewest environments worth a run of their own: below this, waking a thread costs
    /// more than the steps it would take over.
    const MIN: usize = 32;
    /// Runs per thread: a few, so that a thread the machine holds back is made up for by the
    /// others taking more runs.
    const PER_THREAD: usize = 4;

    /// Environments per run for `n` environments on `threads` threads (contiguous runs, so
    /// each thread writes its own stretches of every buffer), or all `n` on the calling
    /// thread.
    fn of(n: usize, threads: usize) -> usize {
        if threads <= 1 || n < 2 * Self::MIN {
            return n;
        }
        n.div_ceil(threads * Self::PER_THREAD).max(Self::MIN)
    }
}

/// `run` on every part of `queue`, taken one at a time by this thread and by `helpers`
/// tasks spawned on the scope's pool (this thread then waits for them).
fn spread<'s, P: Send + 's>(s: &rayon::Scope<'s>, helpers: usize, queue: &'s Mutex<Vec<P>>, run: &'s (impl Fn(P) + Sync)) {
    let take = move || queue.lock().unwrap_or_else(|e| e.into_inner()).pop();
    for _ in 0..helpers {
        s.spawn(move |_| {
            while let Some(p) = take() {
                run(p);
            }
        });
    }
    while let Some(p) = take() {
        run(p);
    }
}

/// The environments, their configuration and their threads.
pub struct VecEnv {
    pub cfg: EnvConfig,
    pub envs: Vec<Env>,
    seed: u64,
    threads: usize,
}

/// The caller's buffers for `n` environments.
pub struct Buffers<'a> {
    /// (n, OBS_DIM)
    pub obs: &'a mut [f32],
    /// (n, ACTIONS)
    pub mask: &'a mut [bool],
    /// (n,)
    pub seat: &'a mut [i32],
    /// (n, 4)
    pub reward: &'a mut [f32],
    /// (n,)
    pub done: &'a mut [bool],
}

impl VecEnv {
    /// `n` environments; `threads` 0 for all cores.
    pub fn new(n: usize, seed: u64, cfg: EnvConfig, threads: usize) -> Result<VecEnv, Error> {
        if n == 0 {
            return Err(Error::BadArgument { what: "num_envs", message: "must be at least 1".into() });
        }
        if cfg.seats.iter().all(|s| s.is_some()) {
            return Err(Error::BadArgument { what: "seats", message: "at least one seat must be the learner's (None)".into() });
        }
        let mut v = VecEnv { cfg, envs: Vec::new(), seed, threads };
        v.envs = v.run(|| (0..n as u64).into_par_iter().map(|i| Env::new(derive(seed, VEC_ENV, i), &cfg)).collect())?;
        Ok(v)
    }

    pub fn len(&self) -> usize {
        self.envs.len()
    }

    pub fn is_empty(&self) -> bool {
        self.envs.is_empty()
    }

    fn run<T: Send>(&self, f: impl FnOnce() -> T + Send) -> Result<T, Error> {
        if self.threads == 0 {
            Ok(f())
        } else {
            Ok(crate::util::parallel::pool(self.threads)?.install(f))
        }
    }

    /// `f` over every environment with its slices of the buffers (and its action), the
    /// environments cut into [`Parts::of`] contiguous runs, taken in turn by this thread and
    /// the pool's (all on this thread when there is one run: one thread, or few
    /// environments). Each environment writes only its own slots, so the result does not
    /// depend on which thread took which run.
    fn each(&mut self, actions: &[i64], b: Buffers, f: impl Fn(&mut Env, i64, Slot) + Sync) -> Result<(), Error> {
        let n = self.envs.len();
        let threads = if self.threads == 0 { rayon::current_num_threads() } else { self.threads };
        let per = Parts::of(n, threads);
        // the pool first: if it cannot be started, nothing has been touched
        let pool = if per < n && self.threads > 0 { Some(crate::util::parallel::pool(self.threads)?) } else { None };
        let mut envs = std::mem::take(&mut self.envs);
        let run = |envs: &mut [Env], first: usize, b: Buffers| {
            for (j, e) in envs.iter_mut().enumerate() {
                let slot = Slot {
                    obs: &mut b.obs[j * OBS_DIM..][..OBS_DIM],
                    mask: &mut b.mask[j * ACTIONS..][..ACTIONS],
                    seat: &mut b.seat[j],
                    reward: &mut b.reward[j * 4..][..4],
                    done: &mut b.done[j],
                };
                f(e, actions.get(first + j).copied().unwrap_or(0), slot);
            }
        };
        if per >= n {
            run(&mut envs, 0, b);
        } else {
            let parts: Vec<(usize, &mut [Env], Buffers)> = envs
                .chunks_mut(per)
                .zip(b.obs.chunks_mut(per * OBS_DIM))
                .zip(b.mask.chunks_mut(per * ACTIONS))
                .zip(b.seat.chunks_mut(per))
                .zip(b.reward.chunks_mut(per * 4))
                .zip(b.done.chunks_mut(per))
                .enumerate()
                .map(|(i, (((((e, obs), mask), seat), reward), done))| (i * per, e, Buffers { obs, mask, seat, reward, done }))
                .collect();
            let helpers = (threads - 1).min(parts.len() - 1);
            let queue = Mutex::new(parts);
            let part = |(first, e, b): (usize, &mut [Env], Buffers)| run(e, first, b);
            match pool {
                Some(pool) => pool.in_place_scope(|s| spread(s, helpers, &queue, &part)),
                None => rayon::in_place_scope(|s| spread(s, helpers, &queue, &part)), // rayon's global pool
            }
        }
        self.envs = envs;
        Ok(())
    }

    fn check(&self, b: &Buffers) -> Result<(), Error> {
        let n = self.envs.len();
        let ok = b.obs.len() == n * OBS_DIM
            && b.mask.len() == n * ACTIONS
            && b.seat.len() == n
            && b.reward.len() == n * 4
            && b.done.len() == n;
        if ok {
            Ok(())
        } else {
            Err(Error::BadArgument { what: "buffers", message: format!("they do not fit {n} environments") })
        }
    }

    /// Starts every environment anew from the seed and writes the first observations.
    pub fn reset(&mut self, b: Buffers) -> Result<(), Error> {
        self.check(&b)?;
        let (seed, cfg) = (self.seed, self.cfg);
        let n = self.envs.len() as u64;
        self.envs = self.run(|| (0..n).into_par_iter().map(|i| Env::new(derive(seed, VEC_ENV, i), &cfg)).collect())?;
        self.each(&[], b, |e, _, s| {
            e.advance(&cfg);
            s.reward.fill(0.0);
            *s.done = false;
            e.write(&cfg, s.obs, s.mask, s.seat);
        })
    }

    /// Steps environment i with `actions[i]`. Every action is checked against its mask first;
    /// if any is refused, nothing changes and the error names the first such environment.
    pub fn step(&mut self, actions: &[i64], b: Buffers) -> Result<(), Error> {
        self.check(&b)?;
        if actions.len() != self.envs.len() {
            return Err(Error::BadArgument {
                what: "actions",
                message: format!("{} entries for {} environments", actions.len(), self.envs.len()),
            });
        }
        for (i, (e, &a)) in self.envs.iter_mut().zip(actions).enumerate() {
            let allowed = (0..ACTIONS as i64).contains(&a) && e.builder.mask(&e.game.pos)[a as usize];
            if !allowed {
                return Err(Error::IllegalAction {
                    rule: "actions",
                    message: format!("environment {i}: action id {a} is not allowed by its mask (seat {} to move)", e.game.pos.to_move),
                });
            }
        }
        let cfg = self.cfg;
        self.each(actions, b, |e, a, s| {
            e.builder.step(&mut e.game, a as u8).expect("checked against the mask");
            match e.advance(&cfg) {
                Some(ret) => {
                    for (x, y) in s.reward.iter_mut().zip(ret) {
                        *x = y as f32;
                    }
                    *s.done = true;
                }
                None => {
                    s.reward.fill(0.0);
                    *s.done = false;
                }
            }
            e.write(&cfg, s.obs, s.mask, s.seat);
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::Agent;

    /// Runs `steps` steps with ids drawn from the masks; returns every buffer written.
    fn run(threads: usize, cfg: EnvConfig, steps: usize) -> (Vec<f32>, Vec<bool>, Vec<i32>, f32, usize) {
        let n = 5;
        let mut env = VecEnv::new(n, 9, cfg, threads).unwrap();
        let (mut obs, mut mask, mut seat, mut reward, mut done) =
            (vec![0f32; n * OBS_DIM], vec![false; n * ACTIONS], vec![0i32; n], vec![0f32; n * 4], vec![false; n]);
        env.reset(Buffers { obs: &mut obs, mask: &mut mask, seat: &mut seat, reward: &mut reward, done: &mut done }).unwrap();
        let mut rng = Rng::new(1);
        let (mut trace, mut ends, mut total) = (Vec::new(), 0, 0.0);
        for _ in 0..steps {
            let actions: Vec<i64> = (0..n)
                .map(|i| {
                    let ids: Vec<usize> = (0..ACTIONS).filter(|&a| mask[i * ACTIONS + a]).collect();
                    ids[rng.below_usize(ids.len())] as i64
                })
                .collect();
            env.step(&actions, Buffers { obs: &mut obs, mask: &mut mask, seat: &mut seat, reward: &mut reward, done: &mut done })
                .unwrap();
            for i in 0..n {
                assert_eq!(reward[i * 4..][..4].iter().sum::<f32>(), 0.0, "zero-sum");
                if done[i] {
                    ends += 1;
                }
                if let Some(p) = cfg.seats[seat[i] as usize] {
                    panic!("a built-in seat ({}) is to act", p.name());
                }
            }
            total += reward.iter().map(|r| r.abs()).sum::<f32>();
            trace.extend_from_slice(&obs[..OBS_DIM]);
        }
        (trace, mask, seat, total, ends)
    }

    #[test]
    fn results_do_not_depend_on_threads() {
        let selfplay = EnvConfig { profile: Profile::Guigang, seats: [None; 4], every_receiver: true, canonical: false };
        let a = run(1, selfplay, 1200);
        assert_eq!(a, run(2, selfplay, 1200));
        assert!(a.4 >= 5, "hands ended: {}", a.4);
        let vs = EnvConfig {
            profile: Profile::Nanning,
            seats: [None, Some(Policy::Agent(Agent::Greedy)), None, Some(Policy::Agent(Agent::Random))],
            every_receiver: false,
            canonical: true,
        };
        let b = run(1, vs, 900);
        assert_eq!(b, run(3, vs, 900));
        assert!(b.3 > 0.0, "some hand ended with a result");
    }

    #[test]
    fn refused_actions_change_nothing() {
        let cfg = EnvConfig { profile: Profile::Guigang, seats: [None; 4], every_receiver: true, canonical: false };
        let mut env = VecEnv::new(2, 3, cfg, 1).unwrap();
        let (mut obs, mut mask, mut seat, mut reward, mut done) =
            (vec![0f32; 2 * OBS_DIM], vec![false; 2 * ACTIONS], vec![0i32; 2], vec![0f32; 8], vec![false; 2]);
        env.reset(Buffers { obs: &mut obs, mask: &mut mask, seat: &mut seat, reward: &mut reward, done: &mut done }).unwrap();
        let before: Vec<_> = env.envs.iter().map(|e| (e.game.pos, e.game.record.clone())).collect();
        let ok = (0..ACTIONS).find(|&a| mask[a]).unwrap() as i64;
        let bad = (0..ACTIONS).find(|&a| !mask[ACTIONS + a]).unwrap() as i64;
        let (o2, m2) = (obs.clone(), mask.clone());
        let e = env
            .step(&[ok, bad], Buffers { obs: &mut obs, mask: &mut mask, seat: &mut seat, reward: &mut reward, done: &mut done })
            .unwrap_err();
        assert!(e.to_string().contains("environment 1"), "{e}");
        assert_eq!((o2, m2), (obs.clone(), mask.clone()));
        let after: Vec<_> = env.envs.iter().map(|e| (e.game.pos, e.game.record.clone())).collect();
        assert_eq!(before, after);
        assert!(env.step(&[ok], Buffers { obs: &mut obs, mask: &mut mask, seat: &mut seat, reward: &mut reward, done: &mut done }).is_err());
    }
}
