//! Bindings of the hand engine: `Game` (one hand) and `Match`.

use numpy::{PyArray1, PyArrayMethods};
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use tractor_core as core;
use tractor_core::Error;
use tractor_core::encode::actions::{Builder, Stepped};
use tractor_core::game::action_set::ActionSet;
use tractor_core::game::hand::{Action, Game as CoreGame, Phase, NOBODY};
use tractor_core::rules::card::{Counts, KINDS};

use crate::{bad_arg, counts, err, guard, out};

fn seat_opt(s: u8) -> Option<u8> {
    (s != NOBODY).then_some(s)
}

/// A refused action on `g` (see `errors::action_err`); an illegal follow carries one legal
/// example from the position.
fn action_err(py: Python<'_>, g: &CoreGame, e: Error) -> PyErr {
    let example = g.pos.follow().and_then(|f| core::rules::checked::example_follow(&f));
    crate::action_err(py, e, example)
}

#[pyclass(module = "tractor._core", name = "Game")]
#[derive(Clone)]
pub struct PyGame {
    pub g: CoreGame,
    /// The play being built with action ids (cleared by every applied action).
    pub b: Builder,
    /// The determinizer of the last `determinize` call, for the next one on the same info set.
    pub det: crate::search::DetCache,
}

/// A borrow refused: only possible if a call took the object across threads in a way this
/// binding does not (every call that releases the GIL works on a snapshot).
pub(crate) fn busy(py: Python<'_>, e: impl std::fmt::Display) -> PyErr {
    crate::raise(py, "ObjectBusy", &format!("the object is in use by another call: {e}"), None)
}

impl From<CoreGame> for PyGame {
    fn from(g: CoreGame) -> PyGame {
        PyGame { g, b: Builder::default(), det: Default::default() }
    }
}

impl PyGame {
    /// Builds `pending` (a play's cards) with action ids, in the build order (ascending
    /// kinds), as `step` would one id at a time: a world keeps the selection its source had.
    pub(crate) fn build_selection(&mut self, py: Python<'_>, pending: &Counts) -> PyResult<()> {
        for (k, &n) in pending.iter().enumerate() {
            for _ in 0..n {
                let (g, b) = (&mut self.g, &mut self.b);
                if let Err(e) = b.step(g, k as u8) {
                    return Err(action_err(py, g, e));
                }
            }
        }
        Ok(())
    }

    /// Decides for the player to move on a snapshot, the GIL released, and applies the
    /// decision; if another thread moved the game meanwhile, decides again on the game as it
    /// is, so the result is that of the calls taking effect one after another. `decide` also
    /// returns what the decision that took effect leaves behind (a player's stream).
    fn decide_and_apply<T: Send>(
        slf: &Bound<'_, Self>,
        decide: impl Fn(&CoreGame) -> (Option<core::Action>, T) + Sync,
    ) -> PyResult<(bool, T)> {
        let py = slf.py();
        loop {
            let snapshot = {
                let me = slf.try_borrow().map_err(|e| busy(py, e))?;
                me.no_selection(py)?;
                me.g.clone()
            };
            let (a, left) = py.detach(|| decide(&snapshot));
            let mut me = slf.try_borrow_mut().map_err(|e| busy(py, e))?;
            if me.g != snapshot {
                continue; // another thread moved the game: decide for the game as it is
            }
            return Ok((me.apply_decided(py, a)?, left));
        }
    }

    /// Whole actions are refused while a play is being built with action ids: they would
    /// drop the selection silently.
    /// Applies a policy's decision (None: the hand is over): False when over.
    fn apply_decided(&mut self, py: Python<'_>, a: Option<core::Action>) -> PyResult<bool> {
        let Some(a) = a else { return Ok(false) };
        let g = &mut self.g;
        g.apply(&a).map_err(|e| action_err(py, g, e))?;
        self.b.clear();
        Ok(true)
    }

    fn no_selection(&self, py: Python<'_>) -> PyResult<()> {
        if self.b.is_empty() {
            return Ok(());
        }
        let cards = core::rules::card::format(&core::rules::card::cards_of(&self.b.pending));
        Err(err(
            py,
            Error::IllegalAction {
                rule: "actions",
                message: format!("a play is being built with action ids ({cards}): finish it with step() or call clear_pending()"),
            },
        ))
    }
}

fn profile(py: Python<'_>, name: &str) -> PyResult<core::Profile> {
    core::Profile::parse(name).map_err(|e| err(py, e))
}

#[pymethods]
impl PyGame {
    /// A hand dealt from `hand_seed`; `banker` None in a match's first hand; `deck` (216 kind
    /// ids) and `first_seat` override the first deal.
    #[staticmethod]
    #[pyo3(signature = (hand_seed, profile_name, levels, banker=None, deck=None, first_seat=0, redeal_decks=None, hand_index=0, every_receiver=false))]
    #[allow(clippy::too_many_arguments)]
    fn deal(
        py: Python<'_>,
        hand_seed: u64,
        profile_name: &str,
        levels: (u8, u8),
        banker: Option<u8>,
        deck: Option<Vec<u8>>,
        first_seat: u8,
        redeal_decks: Option<Vec<(Vec<u8>, u8)>>,
        hand_index: u32,
        every_receiver: bool,
    ) -> PyResult<Self> {
        guard(py, || {
            let p = profile(py, profile_name)?;
            let one = |d: Vec<u8>, first: u8| -> PyResult<([u8; core::rules::card::DECK], u8)> {
                let arr: [u8; core::rules::card::DECK] = d.as_slice().try_into().map_err(|_| {
                    err(py, Error::BadDeal(format!("R1.2: a deck has 216 cards, got {}", d.len())))
                })?;
                Ok((arr, first))
            };
            let mut decks = Vec::new();
            if let Some(d) = deck {
                decks.push(one(d, first_seat)?);
            }
            for (d, f) in redeal_decks.unwrap_or_default() {
                if decks.is_empty() {
                    return Err(err(py, Error::BadDeal("redeal decks need the first deck".into())));
                }
                decks.push(one(d, f)?);
            }
            // None is the only "no banker": a number must be a seat (255 is not NOBODY here)
            let banker = match banker {
                None => NOBODY,
                Some(b) if b <= 3 => b,
                Some(b) => return Err(err(py, Error::BadSeat { what: "banker", seat: b as i64 })),
            };
            let mut g = CoreGame::deal_decks(hand_seed, p, [levels.0, levels.1], banker, decks)
                .map_err(|e| err(py, e))?;
            if every_receiver {
                g = g.with_every_receiver().map_err(|e| err(py, e))?;
            }
            g.hand_index = hand_index;
            Ok(PyGame::from(g))
        })
    }

    /// A hand from given hands at the play phase.
    #[staticmethod]
    fn from_hands(py: Python<'_>, hands: Vec<Vec<u8>>, level: u8, trump: u8, banker: u8, profile_name: &str) -> PyResult<Self> {
        guard(py, || {
            if hands.len() != 4 {
                return Err(err(py, Error::BadDeal(format!("four hands are needed, got {}", hands.len()))));
            }
            let mut hs = [[0u8; KINDS]; 4];
            for (i, h) in hands.iter().enumerate() {
                hs[i] = counts(py, h, &format!("hands[{i}]"))?;
            }
            let p = profile(py, profile_name)?;
            Ok(PyGame::from(CoreGame::from_hands(hs, level, trump, banker, p).map_err(|e| err(py, e))?))
        })
    }

    fn clone(&self) -> Self {
        Clone::clone(self)
    }

    /// Decisions applied so far (a LegalPlays snapshot checks it to refuse stale use).
    fn action_count(&self) -> usize {
        self.g.record.actions.len()
    }

    #[getter]
    fn phase(&self) -> &'static str {
        self.g.pos.phase.name()
    }
    #[getter]
    fn stopped(&self) -> bool {
        self.g.pos.phase == Phase::Stopped
    }
    #[getter]
    fn current_player(&self) -> Option<u8> {
        matches!(self.g.pos.phase, Phase::Declare | Phase::Play).then_some(self.g.pos.to_move)
    }
    #[getter]
    fn level(&self) -> u8 {
        self.g.pos.level
    }
    #[getter]
    fn trump(&self) -> Option<u8> {
        seat_opt(self.g.pos.trump)
    }
    #[getter]
    fn banker(&self) -> Option<u8> {
        seat_opt(self.g.pos.banker)
    }
    #[getter]
    fn declarer(&self) -> Option<u8> {
        seat_opt(self.g.pos.declarer)
    }
    /// (declarer, suit, count) of the current showing, or None.
    #[getter]
    fn declaration(&self) -> Option<(u8, u8, u8)> {
        let p = &self.g.pos;
        (p.declarer != NOBODY).then_some((p.declarer, p.declared_suit, p.declared_count))
    }
    #[getter]
    fn profile(&self) -> &'static str {
        self.g.pos.profile.name()
    }
    #[getter]
    fn levels(&self) -> (u8, u8) {
        (self.g.levels[0], self.g.levels[1])
    }
    #[getter]
    fn defender_points(&self) -> i32 {
        self.g.pos.defender_points
    }
    #[getter]
    fn dealt(&self) -> u8 {
        self.g.pos.dealt
    }
    #[getter]
    fn redeals(&self) -> u8 {
        self.g.pos.redeals
    }
    #[getter]
    fn first_seat(&self) -> u8 {
        self.g.pos.first_seat
    }
    #[getter]
    fn tricks_done(&self) -> u8 {
        self.g.pos.tricks_done
    }
    /// (raw score, score as read, banker_levels, defender_levels, defenders_take_over,
    /// next_banker) once over.
    #[getter]
    fn result(&self) -> Option<(i32, i32, u32, u32, bool, u8)> {
        let p = &self.g.pos;
        let o = p.outcome()?;
        Some((p.final_score, o.score, o.banker_levels, o.defender_levels, o.defenders_take_over, p.next_banker()?))
    }

    /// Per seat, once over: levels gained by the seat's team minus the other's (R7.4).
    #[getter]
    fn returns(&self) -> Option<(i32, i32, i32, i32)> {
        self.g.pos.returns().map(|r| (r[0], r[1], r[2], r[3]))
    }

    #[getter]
    fn hand_index(&self) -> u32 {
        self.g.hand_index
    }

    /// The exact number of legal actions now (every phase).
    fn legal_count(&self, py: Python<'_>) -> PyResult<u128> {
        guard(py, || Ok(ActionSet::of(&self.g.pos).count()))
    }

    /// Plays `start..stop` of the legal set in its order (play phase), as count arrays.
    fn play_range(&self, py: Python<'_>, start: u128, stop: u128) -> PyResult<Vec<Py<PyBytes>>> {
        guard(py, || {
            let mut set = ActionSet::of(&self.g.pos);
            let mut v = Vec::new();
            let mut i = start;
            while i < stop {
                match set.nth(i) {
                    Some(Action::Play(c)) => v.push(out(py, &c)),
                    _ => break,
                }
                i += 1;
            }
            Ok(v)
        })
    }

    /// One legal play, uniform over the distinct ones, from `Rng::new(seed)` (play phase).
    fn play_sample(&self, py: Python<'_>, seed: u64) -> PyResult<Option<Py<PyBytes>>> {
        guard(py, || {
            let mut rng = core::Rng::new(seed);
            Ok(match ActionSet::of(&self.g.pos).sample(&mut rng) {
                Some(Action::Play(c)) => Some(out(py, &c)),
                _ => None,
            })
        })
    }

    /// One playout of the true state to the end with the agent `policy` for every seat, from
    /// `Rng::new(seed)`; per-seat returns.
    fn playout(&self, py: Python<'_>, policy: &str, seed: u64) -> PyResult<(i32, i32, i32, i32)> {
        guard(py, || {
            let p = core::Agent::parse(policy).map_err(|e| err(py, e))?;
            let r = core::search::rollout::playout(&self.g, &p, &mut core::Rng::new(seed));
            Ok((r[0], r[1], r[2], r[3]))
        })
    }

    /// The defenders' final score (R7.3) after one playout of the true state with the agent
    /// `policy` (as `playout`: the same stream gives the same game); None if the deal stops.
    fn playout_score(&self, py: Python<'_>, policy: &str, seed: u64) -> PyResult<Option<i32>> {
        guard(py, || {
            let p = core::Agent::parse(policy).map_err(|e| err(py, e))?;
            let end = core::search::rollout::playout_end(&self.g, &p, &mut core::Rng::new(seed));
            Ok((end.phase == core::game::hand::Phase::Over).then_some(end.final_score))
        })
    }

    /// One action of `policy` (any built-in policy, e.g. "ismcts:iterations=200") for the
    /// player to move, from `Rng::new(seed)`, applied; False when the hand is over.
    ///
    /// The policy decides on a snapshot with the GIL released, so other threads may use the
    /// game meanwhile; if one changed it, the policy decides again on the game as it is, so
    /// the result is the one of the calls taking effect one after another.
    fn step_policy(slf: &Bound<'_, Self>, policy: &str, seed: u64) -> PyResult<bool> {
        let py = slf.py();
        guard(py, || {
            let p = core::policy::Policy::parse(policy).map_err(|e| err(py, e))?;
            PyGame::decide_and_apply(slf, |g| (p.act(g, &mut core::Rng::new(seed)), ())).map(|(applied, _)| applied)
        })
    }

    /// The ids of the action `policy` would take for the player to move, drawn with `seed`
    /// as `step_policy` draws it, without applying it; None when the hand is over. The
    /// selection being built is not part of the decision. Decided on a snapshot, the GIL
    /// released.
    fn policy_ids(slf: &Bound<'_, Self>, policy: &str, seed: u64) -> PyResult<Option<Vec<u8>>> {
        let py = slf.py();
        guard(py, || {
            let p = core::policy::Policy::parse(policy).map_err(|e| err(py, e))?;
            let g = slf.try_borrow().map_err(|e| busy(py, e))?.g.clone();
            let a = py.detach(|| p.act(&g, &mut core::Rng::new(seed)));
            let lead = g.pos.phase == Phase::Play && g.pos.lead().is_none();
            Ok(a.map(|a| core::encode::actions::encode(&a, lead)))
        })
    }

    fn hand<'py>(&self, py: Python<'py>, seat: u8) -> PyResult<Bound<'py, PyBytes>> {
        if seat > 3 {
            return Err(err(py, Error::BadSeat { what: "seat", seat: seat as i64 }));
        }
        Ok(PyBytes::new(py, &self.g.pos.hands[seat as usize]))
    }

    /// Showings the player to move may make now: [(suit, count)].
    fn showings(&self) -> Vec<(u8, u8)> {
        if self.g.pos.phase != Phase::Declare {
            return Vec::new();
        }
        self.g.pos.showings(self.g.pos.to_move).map(|s| (s.suit, s.count)).collect()
    }

    fn is_leading(&self) -> bool {
        self.g.pos.phase == Phase::Play && self.g.pos.lead().is_none()
    }

    /// Is this play allowed now (lead or follow)?
    fn is_legal_play(&self, py: Python<'_>, cards: &[u8]) -> PyResult<bool> {
        guard(py, || {
            let c = counts(py, cards, "play")?;
            Ok(self.g.pos.check_play(&c).is_ok())
        })
    }

    fn apply_pass(&mut self, py: Python<'_>) -> PyResult<()> {
        guard(py, || {
            self.no_selection(py)?;
            let g = &mut self.g;
            g.apply(&Action::Pass).map_err(|e| action_err(py, g, e))?;
            self.b.clear();
            Ok(())
        })
    }

    fn apply_declare(&mut self, py: Python<'_>, suit: u8, count: u8) -> PyResult<()> {
        guard(py, || {
            self.no_selection(py)?;
            let g = &mut self.g;
            g.apply(&Action::Declare { suit, count }).map_err(|e| action_err(py, g, e))?;
            self.b.clear();
            Ok(())
        })
    }

    fn apply_play(&mut self, py: Python<'_>, cards: &[u8]) -> PyResult<()> {
        guard(py, || {
            self.no_selection(py)?;
            let c: Counts = match cards.try_into() {
                Ok(c) => c,
                Err(_) => return Err(bad_arg(py, "play", "a play is a 54-entry count array")),
            };
            let g = &mut self.g;
            g.apply(&Action::Play(c)).map_err(|e| action_err(py, g, e))?;
            self.b.clear();
            Ok(())
        })
    }

    /// A uniformly random legal action (the `random` policy), applied; returns False when over.
    fn step_random(&mut self, py: Python<'_>, seed: u64) -> PyResult<bool> {
        guard(py, || {
            self.no_selection(py)?;
            let a = core::agent::random::random_action(&self.g, &mut core::Rng::new(seed));
            self.apply_decided(py, a)
        })
    }

    /// Plays the hand to its end with the random policy, one stream from `seed` (on a
    /// snapshot with the GIL released, as `step_policy` does).
    fn play_random(slf: &Bound<'_, Self>, seed: u64) -> PyResult<()> {
        let py = slf.py();
        guard(py, || loop {
            let snapshot = {
                let me = slf.try_borrow().map_err(|e| busy(py, e))?;
                me.no_selection(py)?;
                me.g.clone()
            };
            let mut g = snapshot.clone();
            py.detach(|| core::agent::random::random_playout(&mut g, &mut core::Rng::new(seed)));
            let mut me = slf.try_borrow_mut().map_err(|e| busy(py, e))?;
            if me.g == snapshot {
                me.g = g;
                me.b.clear();
                return Ok(());
            }
        })
    }

    /// The action ids allowed now (72 bytes, 1 allowed, 0 not; see `tractor.actions`).
    fn action_mask<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        guard(py, || {
            let m = self.b.mask(&self.g.pos);
            let bytes: Vec<u8> = m.iter().map(|&x| x as u8).collect();
            Ok(PyBytes::new(py, &bytes))
        })
    }

    /// Takes one action id; True when it completed an action, False when it added a card to
    /// the play being built. A refused id changes nothing.
    fn step(&mut self, py: Python<'_>, id: i64) -> PyResult<bool> {
        guard(py, || {
            let id = u8::try_from(id).map_err(|_| bad_arg(py, "action", format!("action id {id} is not one of 0..=71")))?;
            let (g, b) = (&mut self.g, &mut self.b);
            match b.step(g, id) {
                Ok(Stepped::Added) => Ok(false),
                Ok(Stepped::Applied(_)) => Ok(true),
                Err(e) => Err(action_err(py, g, e)),
            }
        })
    }

    /// Drops the play being built with action ids.
    fn clear_pending(&mut self) {
        self.b.clear();
    }

    /// The cards chosen so far for the play being built (a count array).
    #[getter]
    fn pending<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, &self.b.pending)
    }

    /// Writes `seat`'s tensor observation in version `obs_version` into `out` (float32, at
    /// least that version's `dim` long).
    #[pyo3(signature = (seat, out, canonical, obs_version=1))]
    fn observation_tensor(&self, py: Python<'_>, seat: u8, out: &Bound<'_, PyArray1<f32>>, canonical: bool, obs_version: u32) -> PyResult<()> {
        guard(py, || {
            if seat > 3 {
                return Err(err(py, Error::BadSeat { what: "seat", seat: seat as i64 }));
            }
            let enc = core::encode::observe::encoding(obs_version).map_err(|e| err(py, e))?;
            let mut rw = out.try_readwrite().map_err(|e| bad_arg(py, "out", e.to_string()))?;
            let buf = rw.as_slice_mut().map_err(|e| bad_arg(py, "out", e.to_string()))?;
            if buf.len() < enc.dim {
                return Err(bad_arg(py, "out", format!("it holds {} floats, the observation {}", buf.len(), enc.dim)));
            }
            let pending = if self.g.pos.to_move == seat { self.b.pending } else { [0; KINDS] };
            enc.observe(&self.g, &pending, seat, canonical, buf);
            Ok(())
        })
    }

    /// Writes `seat`'s information-state tensor into `out` (float32, at least INFO_DIM long).
    #[pyo3(signature = (seat, out, compact=false))]
    fn information_state_tensor(&self, py: Python<'_>, seat: u8, out: &Bound<'_, PyArray1<f32>>, compact: bool) -> PyResult<()> {
        guard(py, || {
            if seat > 3 {
                return Err(err(py, Error::BadSeat { what: "seat", seat: seat as i64 }));
            }
            let mut rw = out.try_readwrite().map_err(|e| bad_arg(py, "out", e.to_string()))?;
            let buf = rw.as_slice_mut().map_err(|e| bad_arg(py, "out", e.to_string()))?;
            use core::encode::info_state as info;
            let need = if compact { info::INFO_DIM_COMPACT } else { info::INFO_DIM };
            if buf.len() < need {
                return Err(bad_arg(py, "out", format!("it holds {} floats, the information state {need}", buf.len())));
            }
            let pending = if self.g.pos.to_move == seat { self.b.pending } else { [0; KINDS] };
            if compact {
                info::write_compact(&self.g, &pending, seat, buf);
            } else {
                info::write(&self.g, &pending, seat, buf);
            }
            Ok(())
        })
    }

    /// The trump suit as `seat` knows it (R8.2), or None.
    fn known_trump(&self, py: Python<'_>, seat: u8) -> PyResult<Option<u8>> {
        if seat > 3 {
            return Err(err(py, Error::BadSeat { what: "seat", seat: seat as i64 }));
        }
        Ok(seat_opt(core::encode::observe::known_trump(&self.g.pos, seat)))
    }

    /// Was the hand dealt with every receiver deciding after every card?
    #[getter]
    fn every_receiver(&self) -> bool {
        self.g.record.every_receiver
    }

    /// Finished tricks: (leader, [(seat, counts)], winner, points).
    fn tricks(&self, py: Python<'_>) -> Vec<(u8, Vec<(u8, Py<PyBytes>)>, u8, u16)> {
        self.g
            .record
            .tricks
            .iter()
            .map(|t| (t.leader, t.plays.iter().map(|(s, c)| (*s, out(py, c))).collect(), t.winner, t.points))
            .collect()
    }

    /// The defenders' points after each finished trick (R7.2; the last trick of a finished
    /// hand repeats the total before it, R7.3).
    fn defender_points_by_trick(&self) -> Vec<i32> {
        self.g.defender_points_by_trick()
    }

    fn current_trick(&self, py: Python<'_>) -> Vec<(u8, Py<PyBytes>)> {
        self.g.record.current.iter().map(|(s, c)| (*s, out(py, c))).collect()
    }

    /// Showings made: (attempt, cards dealt, seat, suit, count).
    fn showing_log(&self) -> Vec<(u8, u8, u8, u8, u8)> {
        self.g.record.showings.iter().map(|s| (s.attempt, s.dealt, s.seat, s.suit, s.count)).collect()
    }

    /// The hand's JSON record (`tractor_core::game::record_json`).
    fn to_json(&self, py: Python<'_>) -> PyResult<String> {
        guard(py, || Ok(core::game::record_json::to_json(&self.g)))
    }

    /// A hand replayed from its JSON record; InvalidRecord (or the refused decision's
    /// IllegalAction) if it does not read or replay.
    #[staticmethod]
    fn from_json(py: Python<'_>, text: &str) -> PyResult<Self> {
        guard(py, || {
            core::game::record_json::from_json(text).map(PyGame::from).map_err(|r| crate::errors::record_err(py, r))
        })
    }

    /// The deck of the current deal attempt (216 kind ids), for tests of R1.3.
    fn deck(&self) -> Vec<u8> {
        self.g.deck.to_vec()
    }

    fn __eq__(&self, other: &Self) -> bool {
        self.g.pos == other.g.pos && self.g.record == other.g.record && self.b.pending == other.b.pending
    }
}

#[pyclass(module = "tractor._core", name = "Match")]
#[derive(Clone)]
pub struct PyMatch {
    m: core::Match,
}

#[pymethods]
impl PyMatch {
    /// Returns the match and its first hand.
    #[staticmethod]
    fn create(py: Python<'_>, seed: u64, profile_name: &str) -> PyResult<(Self, PyGame)> {
        guard(py, || {
            let (m, g) = core::Match::new(seed, profile(py, profile_name)?);
            Ok((PyMatch { m }, PyGame::from(g)))
        })
    }

    /// Raises ForeignHand unless `game` is this match's own current hand.
    fn check_own(&self, py: Python<'_>, game: &PyGame) -> PyResult<()> {
        guard(py, || self.m.check_own(&game.g).map_err(|e| err(py, e)))
    }

    /// Scores the finished hand `game` and deals the next.
    fn next_hand(&mut self, py: Python<'_>, game: &PyGame) -> PyResult<PyGame> {
        guard(py, || {
            let g = self.m.next_hand(&game.g).map_err(|e| err(py, e))?;
            Ok(PyGame::from(g))
        })
    }

    /// The match's whole state, for pickling: (seed, profile, levels, banker, index, history,
    /// winner), read back by `from_state`.
    fn state(&self) -> (u64, &'static str, (u8, u8), u8, u32, Vec<(u32, u8, u8, u8, Option<i32>, (u8, u8), Option<u8>)>, Option<(u8, u32)>) {
        let m = &self.m;
        let h = m.history.iter().map(|h| (h.index, h.banker, h.level, h.trump, h.score, (h.levels_after[0], h.levels_after[1]), h.passed_a)).collect();
        (m.seed, m.profile.name(), (m.levels[0], m.levels[1]), m.banker, m.index, h, m.winner)
    }

    #[staticmethod]
    fn from_state(
        py: Python<'_>,
        state: (u64, String, (u8, u8), u8, u32, Vec<(u32, u8, u8, u8, Option<i32>, (u8, u8), Option<u8>)>, Option<(u8, u32)>),
    ) -> PyResult<Self> {
        guard(py, || {
            let (seed, prof, levels, banker, index, hist, winner) = state;
            let history = hist
                .into_iter()
                .map(|(index, banker, level, trump, score, la, passed_a)| core::game::match_state::HandSummary {
                    index,
                    banker,
                    level,
                    trump,
                    score,
                    levels_after: [la.0, la.1],
                    passed_a,
                })
                .collect();
            let m = core::Match { seed, profile: profile(py, &prof)?, levels: [levels.0, levels.1], banker, index, history, winner };
            Ok(PyMatch { m })
        })
    }

    #[getter]
    fn levels(&self) -> (u8, u8) {
        (self.m.levels[0], self.m.levels[1])
    }
    #[getter]
    fn index(&self) -> u32 {
        self.m.index
    }
    #[getter]
    fn banker(&self) -> Option<u8> {
        seat_opt(self.m.banker)
    }
    /// (team, hand index) of the first team to pass A.
    #[getter]
    fn winner(&self) -> Option<(u8, u32)> {
        self.m.winner
    }
    /// C8: the match has ended (the core's `Match::over`).
    #[getter]
    fn over(&self) -> bool {
        self.m.over()
    }
    /// [(index, banker, level, trump, score or None, levels_after, passed_a)].
    fn history(&self) -> Vec<(u32, Option<u8>, u8, Option<u8>, Option<i32>, (u8, u8), Option<u8>)> {
        self.m
            .history
            .iter()
            .map(|h| {
                (h.index, seat_opt(h.banker), h.level, seat_opt(h.trump), h.score, (h.levels_after[0], h.levels_after[1]), h.passed_a)
            })
            .collect()
    }
}

/// A policy with its own stream, as a seat of `simulate` decides: seat p of a bulk hand is
/// `Player(policy, derive(hand_seed, POLICY, p))`, and its decisions in a hand follow one
/// another on that stream.
#[pyclass(module = "tractor._core", name = "Player")]
pub struct PyPlayer {
    policy: core::policy::Policy,
    rng: core::Rng,
}

#[pymethods]
impl PyPlayer {
    #[new]
    fn new(py: Python<'_>, policy: &str, seed: u64) -> PyResult<Self> {
        guard(py, || {
            let policy = core::policy::Policy::parse(policy).map_err(|e| err(py, e))?;
            Ok(PyPlayer { policy, rng: core::Rng::new(seed) })
        })
    }

    /// The policy's canonical name.
    #[getter]
    fn policy(&self) -> String {
        self.policy.name()
    }

    /// Decides for the player to move of `game` and applies it, drawing from this player's
    /// stream; False when the hand is over. Decided on a snapshot, the GIL released; if
    /// another thread moved the game meanwhile, the decision is made again from the same
    /// stream state, so the stream advances once per applied action.
    fn step(&mut self, game: &Bound<'_, PyGame>) -> PyResult<bool> {
        let py = game.py();
        guard(py, || {
            let (policy, start) = (&self.policy, self.rng);
            let (applied, rng) = PyGame::decide_and_apply(game, |g| {
                let mut rng = start; // a retry decides again from the same stream state
                (policy.act(g, &mut rng), rng)
            })?;
            self.rng = rng;
            Ok(applied)
        })
    }
}
