//! Hands of a bulk run where some seats are played from outside (a Python policy, asked in
//! batches): the built-in seats move natively until an outside seat is to act, and the caller
//! gives that seat's action ids. Hand `i` is [`crate::run::sim`]'s hand `i`: the same deal and
//! the same stream per built-in seat, so outside seats that take the actions a built-in policy
//! would take give `simulate`'s results and records exactly.

use crate::encode::actions::{Builder, Stepped, ACTIONS};
use crate::encode::observe::Encoding;
use crate::game::hand::{Game, Phase, NOBODY};
use crate::game::record::{encode_action, encode_header, finish};
use crate::policy::Policy;
use crate::rules::error::Error;
use crate::rules::profile::Profile;
use crate::run::sim::{summarize, HandResult};
use crate::util::pool::Pool;
use crate::util::rng::Rng;
use crate::util::seed::{derive, BATCH_HAND, POLICY};

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
            let mut h = Hand { index, hand_seed, game, builder: Builder::default(), rngs, decisions: 0, record };
            h.advance(&seats);
            h
        };
        let count = usize::try_from(count).map_err(|_| Error::BadArgument { what: "count", message: format!("{count} hands do not fit in memory") })?;
        Ok(Table { seats, obs, hands: Pool::build(count, threads, make)? })
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
            enc.observe(&h.game, &h.builder.pending, h.game.pos.to_move, false, &mut obs[j * dim..][..dim]);
            mask[j * ACTIONS..][..ACTIONS].copy_from_slice(&h.builder.mask(&h.game.pos));
        }
        Ok(())
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
        self.hands.each(&take, (), |h, a, ()| {
            if let Stepped::Applied(action) = h.builder.step(&mut h.game, a).expect("checked against the mask") {
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
