//! Hands of a bulk run where some seats are played from outside (a Python policy, asked in
//! batches): the built-in seats move natively until an outside seat is to act, and the caller
//! gives that seat's action ids. Hand `i` is [`crate::run::sim`]'s hand `i`: the same deal and
//! the same stream per built-in seat, so outside seats that take the actions a built-in policy
//! would take give `simulate`'s results and records exactly.
//!
//! Each outside seat may ask ([`Table::asking`]) for observations with the trump suit renamed
//! first (as [`crate::learn::vec_env::EnvConfig::canonical`]) and for a teacher's ids
//! ([`crate::learn::teacher`]; decision `k` of hand `i` draws from
//! `derive(derive(hand seed, TEACHER, 0), TEACHER, k)`, as a VecEnv's first hand would).

use crate::encode::actions::{Builder, Stepped, ACTIONS};
use crate::encode::observe::Encoding;
use crate::game::hand::{Game, Phase, NOBODY};
use crate::game::record::{encode_action, encode_header, finish};
use crate::learn::teacher::Taught;
use crate::policy::Policy;
use crate::rules::error::Error;
use crate::rules::profile::Profile;
use crate::run::sim::{summarize, HandResult};
use crate::util::pool::Pool;
use crate::util::rng::Rng;
use crate::util::seed::{derive, BATCH_HAND, POLICY, TEACHER};

/// One hand at the table.
struct Hand {
    index: u64,
    hand_seed: u64,
    game: Game,
    builder: Builder,
    rngs: [Rng; 4],
    decisions: u16,
    /// The compact record so far (with `records`).
    record: Option<Vec<u8>>,
    /// The ids taken so far in the decision under way, and the teacher's for it.
    trail: Vec<u8>,
    taught: Taught,
}

impl Hand {
    fn applied(&mut self, action: &crate::game::hand::Action) {
        if let Some(buf) = self.record.as_mut() {
            encode_action(action, buf);
        }
        self.decisions += 1;
    }

    /// Built-in seats move until an outside seat is to act or the hand is over.
    fn advance(&mut self, seats: &[Option<Policy>; 4]) {
        while matches!(self.game.pos.phase, Phase::Declare | Phase::Play) {
            let seat = self.game.pos.to_move as usize;
            let Some(p) = &seats[seat] else { return };
            let a = p.act(&self.game, &mut self.rngs[seat]).expect("the hand is not over");
            self.game.pos_apply(&a);
            self.applied(&a);
        }
    }

    fn waiting(&self, seats: &[Option<Policy>; 4]) -> Option<u8> {
        let live = matches!(self.game.pos.phase, Phase::Declare | Phase::Play);
        let s = self.game.pos.to_move;
        (live && seats[s as usize].is_none()).then_some(s)
    }
}

/// Hands `start .. start + count` of a run with `seed` (rows of a [`Pool`], with its
/// threads), `None` seats played from outside.
pub struct Table {
    seats: [Option<Policy>; 4],
    /// The observation the outside seats are given.
    obs: &'static Encoding,
    hands: Pool<Hand>,
    /// Per outside seat: observations in renamed suits, and its teacher.
    canonical: [bool; 4],
    teachers: [Option<Policy>; 4],
}

impl Table {
    /// Deals the hands and lets the built-in seats move; the outside seats are given
    /// observations in encoding `obs`; `threads` 0 for all cores.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        seed: u64,
        start: u64,
        count: u64,
        seats: [Option<Policy>; 4],
        obs: &'static Encoding,
        profile: Profile,
        records: bool,
        threads: usize,
    ) -> Result<Table, Error> {
        if count > 0 && start.checked_add(count - 1).is_none() {
            return Err(Error::BadArgument { what: "start", message: format!("start + count = {start} + {count} runs past 2**64") });
        }
        let make = |k: usize| {
            let index = start + k as u64;
            let hand_seed = derive(seed, BATCH_HAND, index);
            let game = Game::deal(hand_seed, profile, [3, 3], NOBODY, None).expect("valid levels and banker");
            let record = records.then(|| {
                let mut buf = Vec::new();
                encode_header(index, hand_seed, profile, [3, 3], NOBODY, &mut buf);
                buf
            });
            let rngs = std::array::from_fn(|p| Rng::new(derive(hand_seed, POLICY, p as u64)));
            let mut h = Hand { index, hand_seed, game, builder: Builder::default(), rngs, decisions: 0, record, trail: Vec::new(), taught: Taught::default() };
            h.advance(&seats);
            h
        };
        let count = usize::try_from(count).map_err(|_| Error::BadArgument { what: "count", message: format!("{count} hands do not fit in memory") })?;
        Ok(Table { seats, obs, hands: Pool::build(count, threads, make)?, canonical: [false; 4], teachers: [None; 4] })
    }

    /// Per seat, what an outside seat asks for: observations in renamed suits (trump first),
    /// and a teacher whose ids [`Table::teacher_ids`] gives. A built-in seat asks for nothing.
    pub fn asking(mut self, canonical: [bool; 4], teachers: [Option<Policy>; 4]) -> Result<Table, Error> {
        if let Some(s) = (0..4).find(|&s| self.seats[s].is_some() && (canonical[s] || teachers[s].is_some())) {
            return Err(Error::BadArgument { what: "seats", message: format!("seat {s} is played by a built-in policy: it asks for no observations nor teacher") });
        }
        (self.canonical, self.teachers) = (canonical, teachers);
        Ok(self)
    }

    pub fn len(&self) -> usize {
        self.hands.len()
    }

    pub fn is_empty(&self) -> bool {
        self.hands.is_empty()
    }

    /// Per hand, the outside seat to act, or 255 when the hand is over.
    pub fn waiting(&self) -> Vec<u8> {
        self.hands.iter().map(|h| h.waiting(&self.seats).unwrap_or(NOBODY)).collect()
    }

    /// The observation the outside seats are given.
    pub fn encoding(&self) -> &'static Encoding {
        self.obs
    }

    /// The observations (`rows.len() ×` the encoding's `dim`) and masks (`× ACTIONS`) of
    /// hands `rows`, each for its seat to act (an outside seat).
    pub fn write(&mut self, rows: &[usize], obs: &mut [f32], mask: &mut [bool]) -> Result<(), Error> {
        self.check(rows)?;
        let (enc, dim) = (self.obs, self.obs.dim);
        if obs.len() != rows.len() * dim || mask.len() != rows.len() * ACTIONS {
            return Err(Error::BadArgument { what: "buffers", message: format!("they do not fit {} rows", rows.len()) });
        }
        for (j, &i) in rows.iter().enumerate() {
            let h = &mut self.hands[i];
            let to = h.game.pos.to_move;
            enc.observe(&h.game, &h.builder.pending, to, self.canonical[to as usize], &mut obs[j * dim..][..dim]);
            mask[j * ACTIONS..][..ACTIONS].copy_from_slice(&h.builder.mask(&h.game.pos));
        }
        Ok(())
    }

    /// Per hand of `rows`, the teacher's next id for its seat to act (see
    /// [`crate::learn::teacher::Taught::next`]), or -1: the seat has no teacher, or the ids
    /// taken so far in the decision have left the teacher's.
    pub fn teacher_ids(&mut self, rows: &[usize]) -> Result<Vec<i32>, Error> {
        self.check(rows)?;
        Ok(rows
            .iter()
            .map(|&i| {
                let h = &mut self.hands[i];
                match &self.teachers[h.game.pos.to_move as usize] {
                    Some(t) => h.taught.next(t, &h.game, derive(h.hand_seed, TEACHER, 0), &h.trail),
                    None => -1,
                }
            })
            .collect())
    }

    fn check(&self, rows: &[usize]) -> Result<(), Error> {
        self.hands.pick(rows)?;
        for &i in rows {
            if self.hands[i].waiting(&self.seats).is_none() {
                return Err(Error::BadArgument { what: "rows", message: format!("hand {i} does not wait for an outside seat") });
            }
        }
        Ok(())
    }

    /// Takes `ids[j]` for hand `rows[j]`'s outside seat, then lets the built-in seats move.
    /// Every id is checked against its mask first: if any is refused, nothing changes.
    pub fn step(&mut self, rows: &[usize], ids: &[i64]) -> Result<(), Error> {
        self.check(rows)?;
        if ids.len() != rows.len() {
            return Err(Error::BadArgument { what: "ids", message: format!("{} ids for {} rows", ids.len(), rows.len()) });
        }
        for (&i, &a) in rows.iter().zip(ids) {
            let h = &mut self.hands[i];
            if !((0..ACTIONS as i64).contains(&a) && h.builder.mask(&h.game.pos)[a as usize]) {
                return Err(Error::IllegalAction {
                    rule: "actions",
                    message: format!("hand {}: action id {a} is not allowed by its mask (seat {} to move)", h.index, h.game.pos.to_move),
                });
            }
        }
        let mut take = vec![None; self.hands.len()];
        for (&i, &a) in rows.iter().zip(ids) {
            take[i] = Some(a as u8);
        }
        let seats = self.seats;
        // if no pool could be started, nothing was stepped
        self.hands.each(&take, (), |h, a, ()| match h.builder.step(&mut h.game, a).expect("checked against the mask") {
            Stepped::Added => h.trail.push(a),
            Stepped::Applied(action) => {
                h.trail.clear();
                h.taught.clear();
                h.applied(&action);
                h.advance(&seats);
            }
        })?;
        Ok(())
    }

    /// Every hand's summary and (with `records`) its compact record, in index order, once
    /// every hand is over.
    pub fn results(&self) -> Result<(Vec<HandResult>, Vec<Vec<u8>>), Error> {
        if let Some(h) = self.hands.iter().find(|h| h.waiting(&self.seats).is_some()) {
            return Err(Error::BadArgument { what: "table", message: format!("hand {} is not over", h.index) });
        }
        Ok(self
            .hands
            .iter()
            .map(|h| {
                let rec = h.record.clone().map(|mut buf| {
                    finish(&mut buf, 0);
                    buf
                });
                (summarize(&h.game, h.index, h.hand_seed, h.decisions), rec.unwrap_or_default())
            })
            .unzip())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::encode::actions::encode;
    use crate::encode::observe::{default_encoding, v1::DIM};
    use crate::policy::Agent;
    use crate::run::sim::simulate_range;

    /// Outside seats that take, id by id, the actions the built-in policy draws from the
    /// seat's stream give `simulate`'s results and records exactly, in every profile.
    #[test]
    fn outside_seats_playing_a_policy_are_simulate() {
        let (g, r) = (Policy::Agent(Agent::Greedy), Policy::Agent(Agent::Random));
        for (profile, all, outside) in [
            (Profile::Guigang, [g, r, g, r], [false, true, false, true]),
            (Profile::Nanning, [g, g, g, g], [true, false, false, false]),
            (Profile::Competition, [r, g, r, g], [true, true, true, true]),
        ] {
            let seats: [Option<Policy>; 4] = std::array::from_fn(|s| (!outside[s]).then_some(all[s]));
            let (seed, start, count) = (17, 40, 24);
            let mut t = Table::new(seed, start, count, seats, default_encoding(), profile, true, 2).unwrap();
            let mut rngs: Vec<[Rng; 4]> = (0..count)
                .map(|k| std::array::from_fn(|p| Rng::new(derive(derive(seed, BATCH_HAND, start + k), POLICY, p as u64))))
                .collect();
            let mut plans: Vec<Vec<u8>> = vec![Vec::new(); count as usize];
            let mut rounds = 0;
            loop {
                let waiting = t.waiting();
                let rows: Vec<usize> = (0..waiting.len()).filter(|&i| waiting[i] != NOBODY).collect();
                if rows.is_empty() {
                    break;
                }
                let mut ids = Vec::new();
                for &i in &rows {
                    if plans[i].is_empty() {
                        let h = &t.hands[i];
                        let s = h.game.pos.to_move as usize;
                        let a = all[s].act(&h.game, &mut rngs[i][s]).unwrap();
                        let lead = h.game.pos.phase == Phase::Play && h.game.pos.lead().is_none();
                        plans[i] = encode(&a, lead);
                        plans[i].reverse();
                    }
                    ids.push(plans[i].pop().unwrap() as i64);
                }
                let (mut obs, mut mask) = (vec![0f32; rows.len() * DIM], vec![false; rows.len() * ACTIONS]);
                t.write(&rows, &mut obs, &mut mask).unwrap();
                for (j, &a) in ids.iter().enumerate() {
                    assert!(mask[j * ACTIONS + a as usize], "the policy's id is allowed");
                }
                t.step(&rows, &ids).unwrap();
                rounds += 1;
            }
            assert!(rounds > 50, "{profile:?}: {rounds} rounds");
            let (got, recs) = t.results().unwrap();
            let (want, wrecs) = simulate_range(seed, start, count, all, profile, 1, true).unwrap();
            assert_eq!(got, want, "{profile:?}");
            assert_eq!(recs, wrecs, "{profile:?}");
        }
    }

    /// An outside seat that asks for renamed suits gets the observation `observe` writes with
    /// them; one that asks for a teacher gets allowed ids it can follow to the end of every
    /// decision (-1 once it leaves them); asking changes no hand.
    #[test]
    fn outside_seats_ask_for_renamed_suits_and_a_teacher() {
        let g = Some(Policy::Agent(Agent::Greedy));
        let seats = [None, g, None, g];
        let plain = Table::new(5, 0, 6, seats, default_encoding(), Profile::Guigang, true, 1).unwrap();
        let asked = Table::new(5, 0, 6, seats, default_encoding(), Profile::Guigang, true, 2).unwrap();
        let mut asked = asked.asking([true, false, false, false], [g, None, None, None]).unwrap();
        let mut plain = plain;
        let (mut followed, mut left, mut renamed) = (0, 0, 0);
        let mut rng = Rng::new(1);
        loop {
            let waiting = asked.waiting();
            assert_eq!(waiting, plain.waiting());
            let rows: Vec<usize> = (0..waiting.len()).filter(|&i| waiting[i] != NOBODY).collect();
            if rows.is_empty() {
                break;
            }
            let (mut obs, mut mask) = (vec![0f32; rows.len() * DIM], vec![false; rows.len() * ACTIONS]);
            let (mut pobs, mut pmask) = (obs.clone(), mask.clone());
            asked.write(&rows, &mut obs, &mut mask).unwrap();
            plain.write(&rows, &mut pobs, &mut pmask).unwrap();
            assert_eq!(mask, pmask, "masks are in real ids");
            let teach = asked.teacher_ids(&rows).unwrap();
            let mut ids = Vec::new();
            for (j, &i) in rows.iter().enumerate() {
                let h = &asked.hands[i];
                let mut want = vec![0f32; DIM];
                default_encoding().observe(&h.game, &h.builder.pending, waiting[i], waiting[i] == 0, &mut want);
                assert_eq!(obs[j * DIM..][..DIM], want[..]);
                renamed += (waiting[i] == 0 && obs[j * DIM..][..DIM] != pobs[j * DIM..][..DIM]) as usize;
                let allowed: Vec<i64> = (0..ACTIONS).filter(|&a| mask[j * ACTIONS + a]).map(|a| a as i64).collect();
                let t = teach[j];
                if waiting[i] == 2 {
                    assert_eq!(t, -1, "seat 2 has no teacher");
                } else if h.trail.is_empty() {
                    assert!(t >= 0 && mask[j * ACTIONS + t as usize], "a fresh decision: the teacher's id {t} is allowed");
                }
                let pick = if t >= 0 && rng.below_usize(5) > 0 { t as i64 } else { allowed[rng.below_usize(allowed.len())] };
                followed += (t >= 0 && pick == t as i64) as usize;
                left += (t >= 0 && pick != t as i64) as usize;
                ids.push(pick);
            }
            asked.step(&rows, &ids).unwrap();
            plain.step(&rows, &ids).unwrap();
        }
        assert!(followed > 200 && left > 20 && renamed > 100, "followed {followed}, left {left}, renamed {renamed}");
        assert_eq!(asked.results().unwrap(), plain.results().unwrap());
        let t = Table::new(5, 0, 1, seats, default_encoding(), Profile::Guigang, false, 1).unwrap();
        let e = t.asking([false, true, false, false], [None; 4]).err().unwrap();
        assert!(e.to_string().contains("seat 1 is played by a built-in policy"), "{e}");
    }

    #[test]
    fn refused_ids_and_rows_change_nothing() {
        let seats = [None, Some(Policy::Agent(Agent::Greedy)), Some(Policy::Agent(Agent::Greedy)), Some(Policy::Agent(Agent::Greedy))];
        let mut t = Table::new(3, 0, 2, seats, default_encoding(), Profile::Guigang, false, 1).unwrap();
        let before: Vec<_> = t.hands.iter().map(|h| h.game.record.clone()).collect();
        let (mut obs, mut mask) = (vec![0f32; 2 * DIM], vec![false; 2 * ACTIONS]);
        t.write(&[0, 1], &mut obs, &mut mask).unwrap();
        let ok = (0..ACTIONS).find(|&a| mask[a]).unwrap() as i64;
        let bad = (0..ACTIONS).find(|&a| !mask[ACTIONS + a]).unwrap() as i64;
        assert!(t.step(&[0, 1], &[ok, bad]).unwrap_err().to_string().contains("hand 1"));
        assert!(t.step(&[0, 0], &[ok, ok]).is_err());
        assert!(t.step(&[2], &[ok]).is_err());
        assert!(t.step(&[0], &[ok, ok]).is_err());
        assert!(t.write(&[0], &mut obs, &mut mask).is_err(), "buffers of the wrong size");
        assert!(t.results().is_err(), "hands not over");
        let after: Vec<_> = t.hands.iter().map(|h| h.game.record.clone()).collect();
        assert_eq!(before, after);
        assert_eq!(t.waiting(), vec![0, 0]);
    }
}
