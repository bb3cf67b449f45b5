//! Bindings of what a seat knows, determinization and the searches (GIL released).

use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};
use tractor_core as core;
use tractor_core::Error;
use tractor_core::agent::view::SeatView;
use tractor_core::game::hand::{Action, Phase, NOBODY};
use tractor_core::infoset::determinize::Determinizer;
use tractor_core::policy::{Agent, Policy};
use tractor_core::rules::card::Counts;
use tractor_core::search::decision::SearchResult;
use tractor_core::util::seed::{derive, SEARCH};

use crate::game::PyGame;
use crate::{err, guard, out};

fn seat_check(py: Python<'_>, seat: u8) -> PyResult<u8> {
    if seat > 3 {
        return Err(err(py, Error::BadSeat { what: "seat", seat: seat as i64 }));
    }
    Ok(seat)
}

fn opt(s: u8) -> Option<u8> {
    (s != NOBODY).then_some(s)
}

/// `g.info(seat)` as a dict of plain values and bytes (Python turns it into numpy).
#[pyfunction]
pub fn info<'py>(py: Python<'py>, game: &PyGame, seat: u8) -> PyResult<Bound<'py, PyDict>> {
    guard(py, || {
        let seat = seat_check(py, seat)?;
        let i = game.g.info(seat);
        let d = PyDict::new(py);
        d.set_item("seat", i.seat)?;
        d.set_item("profile", i.profile.name())?;
        d.set_item("levels", (i.levels[0], i.levels[1]))?;
        d.set_item("level", i.level)?;
        d.set_item("banker", opt(i.banker))?;
        d.set_item("hand_index", i.hand_index)?;
        d.set_item("phase", i.phase.name())?;
        d.set_item("first_seats", i.first_seats.clone())?;
        d.set_item("dealt", i.dealt)?;
        d.set_item("trump", opt(i.trump))?;
        d.set_item("declarer", opt(i.declarer))?;
        d.set_item("declared_count", i.declared_count)?;
        d.set_item("declared_suit", i.declared_suit)?;
        let shows: Vec<(u8, u8, u8, u8, Option<u8>)> =
            i.showings.iter().map(|s| (s.attempt, s.dealt, s.seat, s.count, s.suit)).collect();
        d.set_item("showings", shows)?;
        d.set_item("arrivals", i.arrivals.iter().map(|a| PyBytes::new(py, a)).collect::<Vec<_>>())?;
        let own: Vec<(u8, u8, &str, Option<(u8, u8)>)> = i
            .own_decisions
            .iter()
            .map(|(a, t, act)| match act {
                Action::Declare { suit, count } => (*a, *t, "declare", Some((*suit, *count))),
                _ => (*a, *t, "pass", None),
            })
            .collect();
        d.set_item("own_decisions", own)?;
        d.set_item("asked", i.asked.clone())?;
        d.set_item("hand", out(py, &i.hand))?;
        d.set_item("hand_sizes", (i.hand_sizes[0], i.hand_sizes[1], i.hand_sizes[2], i.hand_sizes[3]))?;
        let flat = |a: &[Counts; 4]| PyBytes::new(py, &a.concat()).unbind();
        d.set_item("played", flat(&i.played))?;
        d.set_item("unseen", out(py, &i.unseen))?;
        d.set_item("lower", flat(&i.lower))?;
        d.set_item("upper", flat(&i.upper))?;
        let voids: Vec<u8> = i.voids().iter().flatten().map(|&b| b as u8).collect();
        d.set_item("voids", PyBytes::new(py, &voids))?;
        d.set_item("to_move", i.to_move)?;
        d.set_item("defender_points", i.defender_points)?;
        d.set_item("checks", i.checks.len())?;
        let runs: Vec<(u8, u8, Option<u8>, Vec<(u8, u8)>)> =
            i.runs.iter().map(|r| (r.seat, r.attempt, r.suit, r.showings.clone())).collect();
        d.set_item("runs", runs)?;
        Ok(d)
    })
}

/// A game's last determinizer, kept for its next `determinize` call: a call for the same seat
/// on the very same game (compared whole, a copy kept) reuses it without deriving the info set
/// again, and a call whose info set is the same (compared whole) reuses it too: its counting
/// programme and replayed play history are not built again. A cache only: a world depends on
/// the info set and its seed alone (see `infoset/determinize`), so a kept determinizer gives the
/// worlds a new one would. Copies and pickles of a game start without one, and a determinizer
/// whose tables exceed `KEEP_BYTES` is not kept, nor one that would take the tables of all
/// kept determinizers of the process past `KEEP_TOTAL`: the cache's memory is bounded however
/// many games live (without the total, each live game held up to `KEEP_BYTES`, and a program
/// cycling over many live games grew as their tables filled).
///
/// Boxed: a kept game is a whole `Game` (1.3 kB), and every `PyGame` (each world too) holds a
/// cache, zeroed by Python's allocation and written at its creation.
#[derive(Default)]
pub struct DetCache(std::sync::Mutex<Option<Box<Kept>>>);

/// The most table memory a kept determinizer may hold.
const KEEP_BYTES: usize = 16 << 20;
/// The most table memory all kept determinizers together may hold.
const KEEP_TOTAL: usize = 256 << 20;
/// The table memory kept now.
static KEPT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

pub struct Kept {
    game: core::Game,
    /// Whether it conditions on who was asked (`Determinizer::new`) or not (`ignoring_turns`).
    exact: bool,
    det: Box<Determinizer>,
    _share: Share,
}

/// A kept determinizer's share of `KEPT`, given back when it is dropped or taken for use.
struct Share(usize);

impl Share {
    /// Takes `bytes` of the budget, if it allows.
    fn take(bytes: usize) -> Option<Share> {
        use std::sync::atomic::Ordering::Relaxed;
        if bytes > KEEP_BYTES {
            return None;
        }
        let before = KEPT.fetch_add(bytes, Relaxed);
        if before + bytes > KEEP_TOTAL {
            KEPT.fetch_sub(bytes, Relaxed);
            return None;
        }
        Some(Share(bytes))
    }
}

impl Drop for Share {
    fn drop(&mut self) {
        KEPT.fetch_sub(self.0, std::sync::atomic::Ordering::Relaxed);
    }
}

impl Clone for DetCache {
    fn clone(&self) -> DetCache {
        DetCache::default()
    }
}

/// Worlds for `seat`: world i from the stream `Rng::new(seeds[i])`, one determinizer shared
/// (the game's kept one where its info set is this one); each world holds the play being built
/// when `seat` is to move.
#[pyfunction]
pub fn determinize(game: &Bound<'_, PyGame>, seat: u8, seeds: Vec<u64>, exact: bool) -> PyResult<Vec<PyGame>> {
    let py = game.py();
    guard(py, || {
        let seat = seat_check(py, seat)?;
        // a snapshot of the game, and its kept determinizer (another thread determinizing
        // this game holds it: that call then uses a new one); the GIL is released on these
        // (and the play the seat is building, when it is the player to move: its worlds hold
        // the same selection)
        let (g, kept, pending) = {
            let me = game.try_borrow().map_err(|e| crate::game::busy(py, e))?;
            let kept = me.det.0.try_lock().ok().and_then(|mut s| s.take());
            let to_move = matches!(me.g.pos.phase, Phase::Declare | Phase::Play) && me.g.pos.to_move == seat;
            (me.g.clone(), kept, (to_move && me.b.pending.iter().any(|&n| n > 0)).then_some(me.b.pending))
        };
        let (worlds, keep) = py.detach(|| {
            // the kept one for this very game and seat, else for the same info set (derived once)
            let mut det = match kept {
                Some(k) if k.exact == exact && k.det.info.seat == seat && k.game == g => k.det,
                kept => {
                    let info = g.info(seat);
                    match kept {
                        Some(k) if k.exact == exact && k.det.info == info => k.det,
                        _ if exact => Box::new(Determinizer::new(info)),
                        _ => Box::new(Determinizer::ignoring_turns(info)),
                    }
                }
            };
            let worlds: Result<Vec<PyGame>, Error> = seeds.iter().map(|&s| Ok(PyGame::from(det.world(&mut core::Rng::new(s))?))).collect();
            // a counting programme over many states (mid-deal, with the undealt cards a
            // fourth holder) is not kept: a game would hold it for as long as it lives
            let keep = Share::take(det.table_bytes()).map(|share| Box::new(Kept { game: g, exact, det, _share: share }));
            (worlds, keep)
        });
        if let Some(k) = keep {
            if let Ok(me) = game.try_borrow() {
                if let Ok(mut s) = me.det.0.try_lock() {
                    *s = Some(k);
                }
            }
        }
        let mut worlds = worlds.map_err(|e| err(py, e))?;
        if let Some(p) = pending {
            for w in &mut worlds {
                w.build_selection(py, &p)?;
            }
        }
        Ok(worlds)
    })
}

/// `derive(seed, SEARCH, i)` for i < n: the seeds of `determinize_many` and `rollouts`.
#[pyfunction]
pub fn search_seeds(seed: u64, n: u64) -> Vec<u64> {
    (0..n).map(|i| derive(seed, SEARCH, i)).collect()
}

/// `n` playouts from the game's true state: an (n × 4) little-endian i32 buffer of returns,
/// or with `points` the n defenders' final scores (i32::MIN for a deal that stopped).
#[pyfunction]
#[pyo3(signature = (game, n, policy, seed, threads, points = false))]
pub fn rollouts(game: &Bound<'_, PyGame>, n: u64, policy: &str, seed: u64, threads: usize, points: bool) -> PyResult<Py<PyBytes>> {
    let py = game.py();
    guard(py, || {
        let p = Agent::parse(policy).map_err(|e| err(py, e))?;
        let g = game.try_borrow().map_err(|e| crate::game::busy(py, e))?.g.clone();
        let bytes: Vec<u8> = if points {
            // the defenders' final score per playout, i32::MIN for a deal that stopped
            let r = py.detach(|| core::search::rollout::playout_scores(&g, n, &p, seed, threads)).map_err(|e| err(py, e))?;
            r.iter().flat_map(|x| x.unwrap_or(i32::MIN).to_le_bytes()).collect()
        } else {
            let r = py.detach(|| core::search::rollout::playouts(&g, n, &p, seed, threads)).map_err(|e| err(py, e))?;
            r.iter().flat_map(|row| row.iter().flat_map(|x| x.to_le_bytes())).collect()
        };
        Ok(PyBytes::new(py, &bytes).unbind())
    })
}

/// A search's decision as Python gets it: (play, [(play, visits, total, total of squares)],
/// PIMC's per-world totals).
type Searched = (Py<PyBytes>, Vec<(Py<PyBytes>, u64, i64, i64)>, Vec<Vec<i64>>);

fn result(py: Python<'_>, r: SearchResult) -> Searched {
    let cards = |a: &Action| match a {
        Action::Play(c) => out(py, c),
        _ => unreachable!("searches decide plays"),
    };
    (cards(&r.action), r.stats.iter().map(|s| (cards(&s.action), s.visits, s.total, s.total_sq)).collect(), r.worlds)
}

/// A search policy's decision for the player to move.
#[pyfunction]
pub fn run_search(game: &Bound<'_, PyGame>, policy: &str, seed: u64, threads: usize) -> PyResult<Searched> {
    let py = game.py();
    guard(py, || {
        let p = Policy::parse(policy).map_err(|e| err(py, e))?;
        let g = game.try_borrow().map_err(|e| crate::game::busy(py, e))?.g.clone();
        let r = py.detach(|| {
            let view = SeatView::of_game(&g);
            match p {
                Policy::Pimc(pp) => core::search::pimc::pimc(&view, &pp, seed, threads),
                Policy::Ismcts(ip) => core::search::ismcts::ismcts(&view, &ip, seed, threads),
                _ => Err(Error::BadPolicy(format!("{} is not a search policy", p.name()))),
            }
        });
        Ok(result(py, r.map_err(|e| err(py, e))?))
    })
}

/// The canonical name of a policy (raises for an unknown one).
#[pyfunction]
pub fn policy_name(py: Python<'_>, name: &str) -> PyResult<String> {
    Policy::parse(name).map(|p| p.name()).map_err(|e| err(py, e))
}

/// What [`solve`] returns: every play with its value bounds, the best play, the position's
/// bounds, the principal line (seat, play), the nodes searched, exact.
type Solved = (Vec<(Py<PyBytes>, i32, i32)>, Py<PyBytes>, i32, i32, Vec<(u8, Py<PyBytes>)>, u64, bool);

/// The exact open-card solver on the game's true hands (GIL released); by partition search
/// when `partition`, by the engine's choice when None (`core::search::solve::solve`); by
/// `threads` threads sharing one table (0: one a core; `core::search::solve::solve_threads`).
#[pyfunction]
#[pyo3(signature = (game, budget, partition=None, threads=1))]
pub fn solve(game: &Bound<'_, PyGame>, budget: u64, partition: Option<bool>, threads: usize) -> PyResult<Solved> {
    let py = game.py();
    guard(py, || {
        let pos = game.try_borrow().map_err(|e| crate::game::busy(py, e))?.g.pos;
        let partition = partition.unwrap_or_else(|| core::search::solve::by_partition(&pos));
        let s = py.detach(|| core::search::solve::solve_threads(&pos, budget, partition, threads)).map_err(|e| err(py, e))?;
        let plays = s.plays.iter().map(|v| (out(py, &v.play), v.lower, v.upper)).collect();
        let line = s.line.iter().map(|(seat, c)| (*seat, out(py, c))).collect();
        Ok((plays, out(py, &s.best), s.lower, s.upper, line, s.nodes, s.exact))
    })
}

/// ISMCTS that keeps its trees between one seat's consecutive decisions in one hand.
#[pyclass(module = "tractor._core", name = "IsmctsSearcher")]
pub struct PySearcher {
    params: core::search::ismcts::IsmctsParams<Agent>,
    /// The game last searched and the trees grown there.
    last: Option<(core::Game, Vec<core::search::ismcts::Tree>)>,
}

#[pymethods]
impl PySearcher {
    #[new]
    fn new(py: Python<'_>, policy: &str) -> PyResult<Self> {
        guard(py, || match Policy::parse(policy).map_err(|e| err(py, e))? {
            Policy::Ismcts(params) => Ok(PySearcher { params, last: None }),
            other => Err(err(py, Error::BadPolicy(format!("a searcher keeps ISMCTS trees: {} is not an ismcts policy", other.name())))),
        })
    }

    /// Searches for the player to move: (decision as run_search gives it, root visits carried
    /// over from the last search: 0 when it started afresh). The trees are kept when `game`
    /// continues the game last searched (the same hand, its record extended) with the same
    /// seat to move and the tree tried every play made since.
    fn search(&mut self, game: &Bound<'_, PyGame>, seed: u64, threads: usize) -> PyResult<(Searched, u64)> {
        let py = game.py();
        guard(py, || {
            let g = game.try_borrow().map_err(|e| crate::game::busy(py, e))?.g.clone();
            let seat = g.pos.to_move;
            let kept: Vec<core::search::ismcts::Tree> = match self.last.take() {
                Some((old, trees))
                    if old.record.start == g.record.start
                        && old.pos.to_move == seat
                        && g.record.actions.len() > old.record.actions.len()
                        && g.record.actions[..old.record.actions.len()] == old.record.actions[..] =>
                {
                    let since: Vec<Action> = g.record.actions[old.record.actions.len()..].iter().map(|(_, a)| *a).collect();
                    trees.iter().map(|t| t.follow(&since, seat)).collect::<Option<Vec<_>>>().unwrap_or_default()
                }
                _ => Vec::new(),
            };
            let carried: u64 = kept.iter().map(|t| t.visits()).sum();
            let params = self.params;
            let r = py.detach(|| core::search::ismcts::ismcts_reusing(&SeatView::of_game(&g), &params, seed, threads, kept));
            let (r, trees) = r.map_err(|e| err(py, e))?;
            // a forced play is not searched: no tree grown, nothing carried
            let carried = if trees.is_empty() { 0 } else { carried };
            self.last = (!trees.is_empty()).then_some((g, trees));
            Ok((result(py, r), carried))
        })
    }
}
