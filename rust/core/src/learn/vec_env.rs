//! Many games stepped together, for learners: one call steps every environment with its
//! action id (see [`crate::encode::actions`]) and writes observations, masks, seats to act, rewards,
//! done flags and [`INFO_FIELDS`] into the caller's buffers. No Python here; the binding
//! releases the GIL.
//!
//! Each environment plays matches (R7.4–R7.6) hand after hand; a hand is an episode. Seats
//! whose policy is `None` are the learner's, the others are played by their built-in policy
//! until a learner seat is to move. When a hand ends, `done` is set, `reward` holds the
//! per-seat returns (levels gained by the seat's team minus the other team's, R7.4; zero for
//! a stopped deal, R8.5), and the environment moves on to the next hand of its match (a new
//! match once a team has passed A, or after every hand with `first_hand_only`): the
//! observation returned is of that next hand.
//!
//! - `auto_forced`: a learner seat whose decision has exactly one allowed id takes it without
//!   being asked, so every step returned is a real choice. The same ids are taken as a learner
//!   that always takes the only id would take, in the same order: the game, its record and
//!   every other seat's view are unchanged; returns earned on the way are added to the step's.
//! - `teacher`: a built-in policy that, at each learner decision, names the id it would take
//!   (info column `teacher`), from its own stream ([`crate::util::seed::TEACHER`]) and without
//!   changing the game.
//! - [`VecEnv::step_rows`] steps only some environments and adds to their buffers (a
//!   Python policy at the table is a learner seat to the core, stepped this way).
//!
//! Seeds (see [`crate::util::seed`]): environment i has `env_seed = derive(seed, VEC_ENV, i)`.
//! Results depend on the seed only, never on the thread count.

use crate::encode::actions::{Builder, Stepped, ACTIONS};
use crate::encode::observe::{default_encoding, Encoding, Entry};
use crate::game::hand::{Game, Phase, Position};
use crate::game::match_state::Match;
use crate::learn::teacher::Taught;
use crate::policy::Policy;
use crate::rules::error::Error;
use crate::rules::profile::Profile;
use crate::util::pool::{Col, Pool};
use crate::util::rng::Rng;
use crate::util::seed::{derive, MATCH, POLICY, TEACHER, VEC_ENV};

/// How the environments play.
#[derive(Clone, Copy, Debug)]
pub struct EnvConfig {
    pub profile: Profile,
    /// Per seat: `None` for the learner, else the policy that plays it.
    pub seats: [Option<Policy>; 4],
    /// Every receiver decides after every card (no information through the turn order, see
    /// [`crate::game::hand::Record::every_receiver`]); `false` skips seats that cannot show.
    pub every_receiver: bool,
    /// The observation written (its version; the buffers hold its `dim` entries per
    /// environment).
    pub obs: &'static Encoding,
    /// Observations with the trump suit renamed first (see [`crate::encode::observe`]).
    pub canonical: bool,
    /// Learner seats take their forced ids (exactly one allowed) without being asked.
    pub auto_forced: bool,
    /// Every hand is the first of a fresh match (both teams at level 3), as the adapters'
    /// episodes are.
    pub first_hand_only: bool,
    /// A policy that names, at each learner decision, the id it would take.
    pub teacher: Option<Policy>,
    /// `None` seats played from outside the core (a Python policy), not by the learner: they
    /// are stepped like the learner's, but neither counted in `forced` nor taught.
    pub outside: [bool; 4],
}

impl EnvConfig {
    /// `seats` in `profile`, every receiver deciding, the default observation version, real
    /// suits, nothing else.
    pub fn new(profile: Profile, seats: [Option<Policy>; 4]) -> EnvConfig {
        EnvConfig {
            profile,
            seats,
            every_receiver: true,
            obs: default_encoding(),
            canonical: false,
            auto_forced: false,
            first_hand_only: false,
            teacher: None,
            outside: [false; 4],
        }
    }
}

/// The `i32` columns written beside the reward, per environment: (name, meaning).
pub const INFO_FIELDS: &[(&str, &str)] = &[
    ("end", "how the last hand that ended during the call ended: 0 none ended, 1 played out, 2 stopped without a showing (R8.5)"),
    ("score", "that hand's defenders' final score (R7.3); 0 when it stopped or none ended"),
    ("take_over", "1 when in that hand the defenders took over (R7.4), else 0"),
    ("teacher", "the teacher's next id for the seat to act; -1 without a teacher, or once the play built so far has left the teacher's"),
    ("forced", "forced ids taken for learner seats during the call (auto_forced)"),
];
/// Number of info columns.
pub const INFO: usize = 5;
const END: usize = 0;
const SCORE: usize = 1;
const TAKE_OVER: usize = 2;
const TEACHER_ID: usize = 3;
const FORCED: usize = 4;
/// Info `end`: a hand was played out; a deal stopped without a showing (R8.5).
pub const PLAYED_OUT: i32 = 1;
pub const STOPPED: i32 = 2;

/// What happened during one call, beside the observation.
#[derive(Default)]
struct Happened {
    ret: [i32; 4],
    ended: bool,
    end: i32,
    score: i32,
    take_over: bool,
    forced: i32,
}

impl Happened {
    fn hand_ended(&mut self, pos: &Position) {
        self.ended = true;
        if let Some(r) = pos.returns() {
            for (x, y) in self.ret.iter_mut().zip(r) {
                *x += y; // two hands can end in one call (a stopped deal, then a forced hand)
            }
        }
        (self.end, self.score, self.take_over) = match pos.outcome() {
            Some(o) => (PLAYED_OUT, o.score, o.defenders_take_over),
            None => (STOPPED, 0, false),
        };
    }
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
    /// The ids taken so far in the decision under way.
    trail: Vec<u8>,
    /// The teacher's ids for the decision under way.
    teacher: Taught,
}

impl Env {
    fn new(env_seed: u64, cfg: &EnvConfig) -> Env {
        let (m, game) = Match::new(derive(env_seed, MATCH, 0), cfg.profile);
        let mut e = Env {
            env_seed,
            matches: 0,
            hands: 0,
            m,
            game,
            builder: Builder::default(),
            rngs: [Rng::new(0); 4],
            trail: Vec::new(),
            teacher: Taught::default(),
        };
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
        self.trail.clear();
        self.teacher.clear();
    }

    /// The only id allowed to the seat to move, if there is exactly one.
    fn forced(&mut self) -> Option<u8> {
        let m = self.builder.mask(&self.game.pos);
        let mut allowed = (0..ACTIONS as u8).filter(|&a| m[a as usize]);
        match (allowed.next(), allowed.next()) {
            (Some(only), None) => Some(only),
            _ => None,
        }
    }

    /// Takes id `a` (allowed by the mask) for the seat to move.
    fn take(&mut self, a: u8) {
        match self.builder.step(&mut self.game, a).expect("checked against the mask") {
            Stepped::Added => self.trail.push(a),
            Stepped::Applied(_) => {
                self.trail.clear();
                self.teacher.clear();
            }
        }
    }

    /// Lets the built-in policies move (and, with `auto_forced`, the learner's forced ids be
    /// taken) until a learner seat has a choice; notes the hands that end on the way (and
    /// starts the next).
    fn advance(&mut self, cfg: &EnvConfig, h: &mut Happened) {
        loop {
            if matches!(self.game.pos.phase, Phase::Over | Phase::Stopped) {
                h.hand_ended(&self.game.pos);
                self.next_hand(cfg);
                continue;
            }
            let seat = self.game.pos.to_move as usize;
            match &cfg.seats[seat] {
                None => match self.forced().filter(|_| cfg.auto_forced) {
                    Some(a) => {
                        self.take(a);
                        h.forced += !cfg.outside[seat] as i32;
                    }
                    None => return,
                },
                Some(p) => {
                    let a = p.act(&self.game, &mut self.rngs[seat]).expect("the hand is not over");
                    self.game.apply(&a).expect("policies produce legal actions");
                }
            }
        }
    }

    fn next_hand(&mut self, cfg: &EnvConfig) {
        self.hands += 1;
        let next = if self.m.winner.is_some() || cfg.first_hand_only { None } else { self.m.next_hand(&self.game).ok() };
        self.game = match next {
            Some(g) => g,
            None => {
                // a team has passed A (or every hand is a match's first): a new match
                self.matches += 1;
                let (m, g) = Match::new(derive(self.env_seed, MATCH, self.matches), cfg.profile);
                self.m = m;
                g
            }
        };
        self.m.history.clear(); // unbounded matches keep no history here
        self.begin_hand(cfg);
    }

    /// The teacher's next id for the seat to move, or -1 (no teacher, or the play built so
    /// far is not the teacher's). The teacher decides once per decision, from the game
    /// without the selection, with its own stream.
    fn teacher_id(&mut self, cfg: &EnvConfig) -> i32 {
        let Some(t) = cfg.teacher.filter(|_| !cfg.outside[self.game.pos.to_move as usize]) else { return -1 };
        self.teacher.next(&t, &self.game, derive(self.env_seed, TEACHER, self.hands), &self.trail)
    }

    fn write<T: Entry>(&mut self, cfg: &EnvConfig, s: Slot<T>, h: Happened, add: bool) {
        let to = self.game.pos.to_move;
        *s.seat = to as i32;
        cfg.obs.observe(&self.game, &self.builder.pending, to, cfg.canonical, s.obs);
        s.mask.copy_from_slice(&self.builder.mask(&self.game.pos));
        if !add {
            s.reward.fill(0.0);
            *s.done = false;
            s.info.fill(0);
        }
        for (x, y) in s.reward.iter_mut().zip(h.ret) {
            *x += y as f32;
        }
        *s.done |= h.ended;
        if h.ended {
            s.info[END] = h.end;
            s.info[SCORE] = h.score;
            s.info[TAKE_OVER] = h.take_over as i32;
        }
        s.info[FORCED] += h.forced;
        s.info[TEACHER_ID] = self.teacher_id(cfg);
    }
}

/// One environment's part of the buffers.
struct Slot<'a, T> {
    obs: &'a mut [T],
    mask: &'a mut [bool],
    seat: &'a mut i32,
    reward: &'a mut [f32],
    done: &'a mut bool,
    info: &'a mut [i32],
}

/// The environments (rows of a [`Pool`], with its threads) and their configuration.
pub struct VecEnv {
    pub cfg: EnvConfig,
    pub envs: Pool<Env>,
    seed: u64,
}

/// The caller's buffers for `n` environments; observations as `f32` or `u8` (see
/// [`crate::encode::observe::Entry`]).
pub struct Buffers<'a, T = f32> {
    /// (n, dim of the configuration's encoding)
    pub obs: &'a mut [T],
    /// (n, ACTIONS)
    pub mask: &'a mut [bool],
    /// (n,)
    pub seat: &'a mut [i32],
    /// (n, 4)
    pub reward: &'a mut [f32],
    /// (n,)
    pub done: &'a mut [bool],
    /// (n, INFO): see [`INFO_FIELDS`].
    pub info: &'a mut [i32],
}

/// What a call does to an environment (`None`: nothing, its slots are left as they are).
#[derive(Clone, Copy)]
enum Op {
    /// Start anew from its seed (it is environment i).
    Reset(usize),
    /// Take this id.
    Take(u8),
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
        let envs = Pool::build(n, threads, |i| Env::new(derive(seed, VEC_ENV, i as u64), &cfg))?;
        Ok(VecEnv { cfg, envs, seed })
    }

    pub fn len(&self) -> usize {
        self.envs.len()
    }

    pub fn is_empty(&self) -> bool {
        self.envs.is_empty()
    }

    /// The seed environments start from.
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// `f` over every environment whose op is `Some`, with its slots of the buffers, on the
    /// pool's threads ([`Pool::each`]).
    fn each<T: Entry + Send>(&mut self, ops: &[Option<Op>], b: Buffers<T>, f: impl Fn(&mut Env, Op, Slot<T>) + Sync) -> Result<(), Error> {
        let cols = (
            Col::new(b.obs, self.cfg.obs.dim),
            Col::new(b.mask, ACTIONS),
            Col::new(b.seat, 1),
            Col::new(b.reward, 4),
            Col::new(b.done, 1),
            Col::new(b.info, INFO),
        );
        self.envs.each(ops, cols, |e, op, (obs, mask, seat, reward, done, info)| {
            let slot = Slot { obs: obs.data, mask: mask.data, seat: &mut seat.data[0], reward: reward.data, done: &mut done.data[0], info: info.data };
            f(e, op, slot)
        })?;
        Ok(())
    }

    fn check<T>(&self, b: &Buffers<T>) -> Result<(), Error> {
        let n = self.envs.len();
        let ok = b.obs.len() == n * self.cfg.obs.dim
            && b.mask.len() == n * ACTIONS
            && b.seat.len() == n
            && b.reward.len() == n * 4
            && b.done.len() == n
            && b.info.len() == n * INFO;
        if ok {
            Ok(())
        } else {
            Err(Error::BadArgument { what: "buffers", message: format!("they do not fit {n} environments") })
        }
    }

    /// Starts every environment anew from the seed and writes the first observations.
    pub fn reset<T: Entry + Send>(&mut self, b: Buffers<T>) -> Result<(), Error> {
        self.reset_rows(None, b)
    }

    /// Starts environments `rows` (every one when None) anew from the seed: environment i
    /// from `derive(seed, VEC_ENV, i)`, as at its creation. Only their slots are written
    /// (reward zero, not done). A bad row changes nothing.
    pub fn reset_rows<T: Entry + Send>(&mut self, rows: Option<&[usize]>, b: Buffers<T>) -> Result<(), Error> {
        self.check(&b)?;
        let ops = self.ops(rows, None)?;
        let (seed, cfg) = (self.seed, self.cfg);
        self.each(&ops, b, |e, op, s| {
            let Op::Reset(i) = op else { unreachable!("a reset resets") };
            *e = Env::new(derive(seed, VEC_ENV, i as u64), &cfg);
            // a deal that stops before a learner decides is not an episode of the learner's
            let mut h = Happened::default();
            e.advance(&cfg, &mut h);
            e.write(&cfg, s, Happened { forced: h.forced, ..Happened::default() }, false);
        })
    }

    /// Sets the seed later resets start from (environment i from `derive(seed, VEC_ENV, i)`).
    pub fn set_seed(&mut self, seed: u64) {
        self.seed = seed;
    }

    /// Steps environment i with `actions[i]`. Every action is checked against its mask first;
    /// if any is refused, nothing changes and the error names the first such environment.
    pub fn step<T: Entry + Send>(&mut self, actions: &[i64], b: Buffers<T>) -> Result<(), Error> {
        self.check(&b)?;
        if actions.len() != self.envs.len() {
            return Err(Error::BadArgument {
                what: "actions",
                message: format!("{} entries for {} environments", actions.len(), self.envs.len()),
            });
        }
        let rows: Vec<usize> = (0..self.envs.len()).collect();
        let ops = self.ops(Some(&rows), Some(actions))?;
        self.apply(&ops, b, false)
    }

    /// Steps only environments `rows[j]` with `actions[j]` (distinct rows), checked first like
    /// [`VecEnv::step`]; their rewards, done flags and `forced` counts are added to what the
    /// buffers hold (the other info columns are set as a step sets them: `end`, `score` and
    /// `take_over` only when a hand ended). Other environments and their slots are untouched.
    pub fn step_rows<T: Entry + Send>(&mut self, rows: &[usize], actions: &[i64], b: Buffers<T>) -> Result<(), Error> {
        self.check(&b)?;
        if actions.len() != rows.len() {
            return Err(Error::BadArgument { what: "actions", message: format!("{} entries for {} rows", actions.len(), rows.len()) });
        }
        let ops = self.ops(Some(rows), Some(actions))?;
        self.apply(&ops, b, true)
    }

    fn apply<T: Entry + Send>(&mut self, ops: &[Option<Op>], b: Buffers<T>, add: bool) -> Result<(), Error> {
        let cfg = self.cfg;
        self.each(ops, b, |e, op, s| {
            let Op::Take(a) = op else { unreachable!("a step takes ids") };
            e.take(a);
            let mut h = Happened::default();
            e.advance(&cfg, &mut h);
            e.write(&cfg, s, h, add);
        })
    }

    /// Per environment, what the call does: `rows` (every one when None) take `actions`
    /// (checked against their masks) or, without actions, reset.
    fn ops(&mut self, rows: Option<&[usize]>, actions: Option<&[i64]>) -> Result<Vec<Option<Op>>, Error> {
        let n = self.envs.len();
        let all: Vec<usize>;
        let rows = match rows {
            Some(r) => r,
            None => {
                all = (0..n).collect();
                &all
            }
        };
        self.envs.pick(rows)?;
        let mut ops = vec![None; n];
        for (j, &i) in rows.iter().enumerate() {
            ops[i] = Some(match actions {
                None => Op::Reset(i),
                Some(acts) => {
                    let (a, e) = (acts[j], &mut self.envs[i]);
                    let allowed = (0..ACTIONS as i64).contains(&a) && e.builder.mask(&e.game.pos)[a as usize];
                    if !allowed {
                        return Err(Error::IllegalAction {
                            rule: "actions",
                            message: format!("environment {i}: action id {a} is not allowed by its mask (seat {} to move)", e.game.pos.to_move),
                        });
                    }
                    Op::Take(a as u8)
                }
            });
        }
        Ok(ops)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::encode::observe::v1::DIM;
    use crate::policy::Agent;

    /// Owned buffers for `n` environments.
    struct Owned<T> {
        obs: Vec<T>,
        mask: Vec<bool>,
        seat: Vec<i32>,
        reward: Vec<f32>,
        done: Vec<bool>,
        info: Vec<i32>,
    }

    impl<T: Entry> Owned<T> {
        fn new(n: usize) -> Owned<T> {
            Owned {
                obs: vec![T::default(); n * DIM],
                mask: vec![false; n * ACTIONS],
                seat: vec![0; n],
                reward: vec![0.0; n * 4],
                done: vec![false; n],
                info: vec![0; n * INFO],
            }
        }

        fn b(&mut self) -> Buffers<'_, T> {
            Buffers {
                obs: &mut self.obs,
                mask: &mut self.mask,
                seat: &mut self.seat,
                reward: &mut self.reward,
                done: &mut self.done,
                info: &mut self.info,
            }
        }

        fn ids(&self, i: usize) -> Vec<i64> {
            (0..ACTIONS).filter(|&a| self.mask[i * ACTIONS + a]).map(|a| a as i64).collect()
        }
    }

    /// Runs `steps` steps with ids drawn from the masks; returns every buffer written.
    fn run(threads: usize, cfg: EnvConfig, steps: usize) -> (Vec<f32>, Vec<bool>, Vec<i32>, f32, usize, Vec<i32>) {
        let n = 5;
        let mut env = VecEnv::new(n, 9, cfg, threads).unwrap();
        let mut o = Owned::<f32>::new(n);
        env.reset(o.b()).unwrap();
        let mut rng = Rng::new(1);
        let (mut trace, mut ends, mut total, mut info) = (Vec::new(), 0, 0.0, Vec::new());
        for _ in 0..steps {
            let actions: Vec<i64> = (0..n)
                .map(|i| {
                    let ids = o.ids(i);
                    ids[rng.below_usize(ids.len())]
                })
                .collect();
            env.step(&actions, o.b()).unwrap();
            for i in 0..n {
                assert_eq!(o.reward[i * 4..][..4].iter().sum::<f32>(), 0.0, "zero-sum");
                if o.done[i] {
                    ends += 1;
                }
                if let Some(p) = cfg.seats[o.seat[i] as usize] {
                    panic!("a built-in seat ({}) is to act", p.name());
                }
            }
            total += o.reward.iter().map(|r| r.abs()).sum::<f32>();
            trace.extend_from_slice(&o.obs[..DIM]);
            info.extend_from_slice(&o.info);
        }
        (trace, o.mask, o.seat, total, ends, info)
    }

    #[test]
    fn results_do_not_depend_on_threads() {
        let selfplay = EnvConfig::new(Profile::Guigang, [None; 4]);
        let a = run(1, selfplay, 1200);
        assert_eq!(a, run(2, selfplay, 1200));
        assert!(a.4 >= 5, "hands ended: {}", a.4);
        let vs = EnvConfig {
            every_receiver: false,
            canonical: true,
            auto_forced: true,
            teacher: Some(Policy::Agent(Agent::Greedy)),
            ..EnvConfig::new(Profile::Nanning, [None, Some(Policy::Agent(Agent::Greedy)), None, Some(Policy::Agent(Agent::Random))])
        };
        let b = run(1, vs, 900);
        assert_eq!(b, run(3, vs, 900));
        assert!(b.3 > 0.0, "some hand ended with a result");
    }

    #[test]
    fn refused_actions_change_nothing() {
        let cfg = EnvConfig::new(Profile::Guigang, [None; 4]);
        let mut env = VecEnv::new(2, 3, cfg, 1).unwrap();
        let mut o = Owned::<f32>::new(2);
        env.reset(o.b()).unwrap();
        let before: Vec<_> = env.envs.iter().map(|e| (e.game.pos, e.game.record.clone())).collect();
        let ok = o.ids(0)[0];
        let bad = (0..ACTIONS).find(|&a| !o.mask[ACTIONS + a]).unwrap() as i64;
        let (o2, m2) = (o.obs.clone(), o.mask.clone());
        let e = env.step(&[ok, bad], o.b()).unwrap_err();
        assert!(e.to_string().contains("environment 1"), "{e}");
        assert!(env.step_rows(&[0, 1], &[ok, bad], o.b()).is_err());
        assert!(env.step_rows(&[0, 0], &[ok, ok], o.b()).is_err(), "a row named twice");
        assert!(env.step_rows(&[2], &[ok], o.b()).is_err(), "no row 2");
        assert!(env.reset_rows(Some(&[0, 5]), o.b()).is_err(), "no row 5");
        assert_eq!((o2, m2), (o.obs.clone(), o.mask.clone()));
        let after: Vec<_> = env.envs.iter().map(|e| (e.game.pos, e.game.record.clone())).collect();
        assert_eq!(before, after);
        assert!(env.step(&[ok], o.b()).is_err());
    }

    /// Steps environment `i` alone with `id` (step_rows adds to what the buffers hold: its
    /// slots are cleared first) and adds its reward and done flag to the running totals.
    fn take_alone(a: &mut VecEnv, oa: &mut Owned<f32>, i: usize, id: i64, ret: &mut [f32], done: &mut [i32]) {
        oa.reward[i * 4..][..4].fill(0.0);
        oa.done[i] = false;
        a.step_rows(&[i], &[id], oa.b()).unwrap();
        for k in 0..4 {
            ret[i * 4 + k] += oa.reward[i * 4 + k];
        }
        done[i] += oa.done[i] as i32;
    }

    /// A learner that takes forced ids itself and draws its choices from one stream, on
    /// environments without and with `auto_forced`: the same games, the same returns.
    #[test]
    fn auto_forced_changes_nothing_but_the_steps() {
        for (profile, seats) in [
            (Profile::Guigang, [None; 4]),
            (Profile::Nanning, [None, Some(Policy::Agent(Agent::Greedy)), None, Some(Policy::Agent(Agent::Greedy))]),
            (Profile::Competition, [Some(Policy::Agent(Agent::Random)), None, Some(Policy::Agent(Agent::Greedy)), Some(Policy::Agent(Agent::Random))]),
        ] {
            let n = 4;
            let plain = EnvConfig::new(profile, seats);
            let auto = EnvConfig { auto_forced: true, ..plain };
            let (mut a, mut b) = (VecEnv::new(n, 5, plain, 1).unwrap(), VecEnv::new(n, 5, auto, 1).unwrap());
            let (mut oa, mut ob) = (Owned::<f32>::new(n), Owned::<f32>::new(n));
            a.reset(oa.b()).unwrap();
            b.reset(ob.b()).unwrap();
            let mut forced_b: Vec<i32> = (0..n).map(|i| ob.info[i * INFO + FORCED]).collect();
            let (mut forced_a, mut ret_a, mut ret_b, mut done_a, mut done_b) = (vec![0; n], vec![0f32; n * 4], vec![0f32; n * 4], vec![0; n], vec![0; n]);
            let mut choices = 0;
            let streams: Vec<Rng> = (0..n).map(|i| Rng::new(100 + i as u64)).collect();
            let (mut sa, mut sb) = (streams.clone(), streams);
            for _ in 0..1500 {
                // every environment of b is at a choice; a steps each until it is at one too
                let mut acts_b = Vec::new();
                for i in 0..n {
                    let ids = ob.ids(i);
                    assert!(ids.len() >= 2, "auto_forced returned a forced step");
                    acts_b.push(ids[sb[i].below_usize(ids.len())]);
                }
                for i in 0..n {
                    while let [only] = oa.ids(i)[..] {
                        take_alone(&mut a, &mut oa, i, only, &mut ret_a, &mut done_a);
                        forced_a[i] += 1;
                    }
                    let ids = oa.ids(i);
                    take_alone(&mut a, &mut oa, i, ids[sa[i].below_usize(ids.len())], &mut ret_a, &mut done_a);
                }
                b.step(&acts_b, ob.b()).unwrap();
                choices += n;
                for i in 0..n {
                    for k in 0..4 {
                        ret_b[i * 4 + k] += ob.reward[i * 4 + k];
                    }
                    done_b[i] += ob.done[i] as i32;
                    forced_b[i] += ob.info[i * INFO + FORCED];
                }
            }
            // a may stand at forced steps that b has already taken: take them
            for (i, forced) in forced_a.iter_mut().enumerate() {
                while let [only] = oa.ids(i)[..] {
                    take_alone(&mut a, &mut oa, i, only, &mut ret_a, &mut done_a);
                    *forced += 1;
                }
            }
            for i in 0..n {
                let (ea, eb) = (&a.envs[i], &b.envs[i]);
                assert_eq!((ea.hands, &ea.game.record, ea.game.pos), (eb.hands, &eb.game.record, eb.game.pos), "{profile:?} env {i}");
            }
            assert_eq!((ret_a, done_a, forced_a.clone()), (ret_b, done_b.clone(), forced_b.clone()), "{profile:?}");
            assert!(done_b.iter().sum::<i32>() >= 2, "{profile:?}: hands ended {done_b:?}");
            assert!(forced_b.iter().sum::<i32>() as usize > choices / 2, "{profile:?}: forced {forced_b:?} of {choices} choices");
        }
    }

    /// The teacher's ids are allowed, a learner that follows them plays the teacher's
    /// actions (-1 once it leaves them), and asking a teacher never changes the game.
    #[test]
    fn teacher_names_its_ids_without_changing_the_game() {
        let seats = [None, Some(Policy::Agent(Agent::Greedy)), None, Some(Policy::Agent(Agent::Random))];
        let plain = EnvConfig::new(Profile::Guigang, seats);
        let taught = EnvConfig { teacher: Some(Policy::Agent(Agent::Greedy)), ..plain };
        let n = 3;
        let (mut a, mut b) = (VecEnv::new(n, 8, plain, 1).unwrap(), VecEnv::new(n, 8, taught, 2).unwrap());
        let (mut oa, mut ob) = (Owned::<f32>::new(n), Owned::<f32>::new(n));
        a.reset(oa.b()).unwrap();
        b.reset(ob.b()).unwrap();
        let mut rng = Rng::new(4);
        let (mut followed, mut left, mut off) = (0, 0, vec![false; n]);
        for _ in 0..3000 {
            assert!(oa.info.iter().skip(TEACHER_ID).step_by(INFO).all(|&t| t == -1), "no teacher, no ids");
            let mut acts = Vec::new();
            for (i, off) in off.iter_mut().enumerate() {
                let t = ob.info[i * INFO + TEACHER_ID];
                let ids = ob.ids(i);
                if *off {
                    assert_eq!(t, -1, "the play built has left the teacher's");
                } else {
                    assert!(t >= 0 && ob.mask[i * ACTIONS + t as usize], "teacher id {t} is allowed");
                }
                let pick = if t >= 0 && rng.below_usize(4) > 0 { t as i64 } else { ids[rng.below_usize(ids.len())] };
                if t >= 0 && pick == t as i64 {
                    followed += 1;
                } else if t >= 0 {
                    left += 1;
                }
                *off = t < 0 || pick != t as i64;
                acts.push(pick);
            }
            a.step(&acts, oa.b()).unwrap();
            b.step(&acts, ob.b()).unwrap();
            assert_eq!((&oa.obs, &oa.mask, &oa.reward), (&ob.obs, &ob.mask, &ob.reward));
            for (i, e) in b.envs.iter().enumerate() {
                if e.trail.is_empty() {
                    off[i] = false; // a new decision: the teacher is asked anew
                }
            }
        }
        assert!(followed > 1000 && left > 100, "followed {followed}, left {left}");
        for i in 0..n {
            assert_eq!(a.envs[i].game.record, b.envs[i].game.record);
        }
    }

    /// The teacher's whole ids are its action: a learner that always follows a greedy
    /// teacher plays greedy's game, as a greedy seat with the teacher's stream would.
    #[test]
    fn following_the_teacher_is_playing_its_actions() {
        let cfg = EnvConfig { teacher: Some(Policy::Agent(Agent::Greedy)), ..EnvConfig::new(Profile::Competition, [None; 4]) };
        let mut env = VecEnv::new(2, 21, cfg, 1).unwrap();
        let mut o = Owned::<f32>::new(2);
        env.reset(o.b()).unwrap();
        for _ in 0..2000 {
            let before: Vec<(Game, u64)> = env.envs.iter().map(|e| (e.game.clone(), e.hands)).collect();
            let acts: Vec<i64> = (0..2).map(|i| o.info[i * INFO + TEACHER_ID] as i64).collect();
            let fresh: Vec<bool> = env.envs.iter().map(|e| e.trail.is_empty()).collect();
            env.step(&acts, o.b()).unwrap();
            for i in 0..2 {
                let e = &env.envs[i];
                if fresh[i] && e.hands == before[i].1 && e.game.record.actions.len() > before[i].0.record.actions.len() {
                    // a whole action was taken from a fresh decision: it is greedy's
                    let g = &before[i].0;
                    let k = g.record.actions.len() as u64;
                    let mut rng = Rng::new(derive(derive(e.env_seed, TEACHER, e.hands), TEACHER, k));
                    let want = Policy::Agent(Agent::Greedy).act(g, &mut rng).unwrap();
                    assert_eq!(e.game.record.actions[k as usize].1, want);
                }
            }
        }
    }

    #[test]
    fn step_rows_adds_to_the_rows_it_steps_only() {
        let cfg = EnvConfig::new(Profile::Guigang, [None; 4]);
        let (mut a, mut b) = (VecEnv::new(3, 2, cfg, 1).unwrap(), VecEnv::new(3, 2, cfg, 1).unwrap());
        let (mut oa, mut ob) = (Owned::<f32>::new(3), Owned::<f32>::new(3));
        a.reset(oa.b()).unwrap();
        b.reset(ob.b()).unwrap();
        let mut rng = Rng::new(3);
        let mut ends = 0;
        for _ in 0..2500 {
            let acts: Vec<i64> = (0..3).map(|i| oa.ids(i)[rng.below_usize(oa.ids(i).len())]).collect();
            a.step(&acts, oa.b()).unwrap();
            // b: row 1 alone, then rows 2 and 0
            let (obs0, rew0) = (ob.obs[..DIM].to_vec(), ob.reward[..4].to_vec());
            ob.reward[4..8].fill(0.0);
            ob.reward[8..].fill(0.0);
            ob.reward[..4].fill(0.0);
            ob.done.fill(false);
            b.step_rows(&[1], &acts[1..2], ob.b()).unwrap();
            assert_eq!((&ob.obs[..DIM], &ob.reward[..4]), (obs0.as_slice(), rew0.iter().map(|_| 0.0).collect::<Vec<_>>().as_slice()));
            b.step_rows(&[2, 0], &[acts[2], acts[0]], ob.b()).unwrap();
            assert_eq!((&oa.obs, &oa.mask, &oa.seat, &oa.reward, &oa.done), (&ob.obs, &ob.mask, &ob.seat, &ob.reward, &ob.done));
            ends += oa.done.iter().filter(|&&d| d).count();
        }
        assert!(ends >= 3, "hands ended: {ends}");
    }

    #[test]
    fn reset_rows_restarts_the_rows_named() {
        let cfg = EnvConfig { first_hand_only: true, ..EnvConfig::new(Profile::Guigang, [None, Some(Policy::Agent(Agent::Greedy)), None, Some(Policy::Agent(Agent::Greedy))]) };
        let mut env = VecEnv::new(3, 6, cfg, 1).unwrap();
        let mut o = Owned::<f32>::new(3);
        env.reset(o.b()).unwrap();
        let start: Vec<Game> = env.envs.iter().map(|e| e.game.clone()).collect();
        let first = o.obs.clone();
        let mut rng = Rng::new(7);
        let mut hands = 0;
        for _ in 0..1500 {
            let acts: Vec<i64> = (0..3).map(|i| o.ids(i)[rng.below_usize(o.ids(i).len())]).collect();
            env.step(&acts, o.b()).unwrap();
            for e in &env.envs {
                assert_eq!(e.game.levels, [3, 3], "first_hand_only: every hand starts a match");
            }
            hands += o.done.iter().filter(|&&d| d).count();
        }
        assert!(hands >= 3, "hands ended: {hands}");
        let kept = env.envs[1].game.clone();
        env.reset_rows(Some(&[0, 2]), o.b()).unwrap();
        assert_eq!(env.envs[0].game.record, start[0].record);
        assert_eq!(env.envs[2].game.record, start[2].record);
        assert_eq!(env.envs[1].game.record, kept.record);
        assert_eq!(o.obs[..DIM], first[..DIM]);
        env.set_seed(7);
        env.reset(o.b()).unwrap();
        assert_ne!(env.envs[0].game.record, start[0].record, "a new seed, new deals");
    }

    /// The `u8` observation is the `f32` one times its scales, exactly.
    #[test]
    fn u8_observations_are_the_f32_ones_scaled() {
        let cfg = EnvConfig { auto_forced: true, ..EnvConfig::new(Profile::Nanning, [None, Some(Policy::Agent(Agent::Greedy)), None, Some(Policy::Agent(Agent::Random))]) };
        let n = 4;
        let (mut a, mut b) = (VecEnv::new(n, 1, cfg, 1).unwrap(), VecEnv::new(n, 1, cfg, 2).unwrap());
        let (mut of, mut ou) = (Owned::<f32>::new(n), Owned::<u8>::new(n));
        a.reset(of.b()).unwrap();
        b.reset(ou.b()).unwrap();
        let scale = cfg.obs.scales_u8();
        let mut rng = Rng::new(2);
        let mut points = 0;
        for _ in 0..2000 {
            for i in 0..n {
                for (k, &d) in scale.iter().enumerate() {
                    let (f, u) = (of.obs[i * DIM + k], ou.obs[i * DIM + k]);
                    assert_eq!(f, u as f32 / d as f32, "entry {k}");
                    assert!(u as u32 <= d, "entry {k}: {u} over its scale {d}");
                }
                points += (ou.obs[i * DIM + cfg.obs.block("points").unwrap().0] > 0) as usize;
            }
            assert_eq!((&of.mask, &of.info), (&ou.mask, &ou.info));
            let acts: Vec<i64> = (0..n).map(|i| of.ids(i)[rng.below_usize(of.ids(i).len())]).collect();
            a.step(&acts, of.b()).unwrap();
            b.step(&acts, ou.b()).unwrap();
        }
        assert!(points > 100, "positions with points: {points}");
    }

    /// A toy observation version for the tests: version 1, then two entries (7 and the
    /// observer), under a version number the table does not have.
    fn write_plus<T: Entry>(pos: &Position, t: &crate::game::hand::Tally, levels: [u8; 2], pending: &crate::rules::card::Counts, observer: u8, canonical: bool, out: &mut [T]) {
        crate::encode::observe::v1::write(pos, t, levels, pending, observer, canonical, out);
        out[DIM] = T::ratio(7, 1);
        out[DIM + 1] = T::ratio(observer as i32, 1);
    }
    static PLUS: Encoding = Encoding {
        version: 999,
        dim: DIM + 2,
        layout: &[("v1", 0, DIM, "version 1"), ("extra", DIM, 2, "7, the observer")],
        scale: &[("v1", 1), ("extra", 1)],
        beyond: &[],
        write: crate::encode::observe::Writers { f32: write_plus::<f32>, i16: write_plus::<i16>, u8: write_plus::<u8> },
    };

    #[test]
    fn the_buffers_take_the_size_of_the_configured_encoding() {
        let v1 = EnvConfig::new(Profile::Guigang, [None, Some(Policy::Agent(Agent::Greedy)), None, Some(Policy::Agent(Agent::Greedy))]);
        let plus = EnvConfig { obs: &PLUS, ..v1 };
        let n = 70; // several runs on two threads
        let (mut a, mut b) = (VecEnv::new(n, 5, v1, 2).unwrap(), VecEnv::new(n, 5, plus, 2).unwrap());
        let mut short = Owned::<f32>::new(n);
        assert!(b.reset(short.b()).unwrap_err().to_string().contains("do not fit"), "version 1's size is refused");
        let mut ob = Owned::<f32>::new(n);
        ob.obs = vec![0.0; n * PLUS.dim];
        let mut oa = Owned::<f32>::new(n);
        a.reset(oa.b()).unwrap();
        b.reset(ob.b()).unwrap();
        let mut rng = Rng::new(4);
        for _ in 0..200 {
            for i in 0..n {
                let row = &ob.obs[i * PLUS.dim..][..PLUS.dim];
                assert_eq!(&row[..DIM], &oa.obs[i * DIM..][..DIM], "environment {i}: version 1's entries first");
                assert_eq!(&row[DIM..], &[7.0, oa.seat[i] as f32], "environment {i}: then the toy's two");
            }
            let acts: Vec<i64> = (0..n).map(|i| oa.ids(i)[rng.below_usize(oa.ids(i).len())]).collect();
            a.step(&acts, oa.b()).unwrap();
            b.step(&acts, ob.b()).unwrap();
        }
    }
}
