//! Bindings of self-play: whole-play candidates' features and samples valued by rollouts
//! (`learn::self_play`), as numpy arrays.

use numpy::{PyArray1, PyArrayMethods};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use tractor_core as core;
use tractor_core::agent::play_features::{features as feature_version, Features};
use tractor_core::agent::plays;
use tractor_core::agent::weights::Weights;
use tractor_core::learn::self_play::{self_play as run, SelfPlayConfig};
use tractor_core::policy::{Agent, Policy};

use crate::{err, guard};

/// Play-features version `version`: an unknown one is refused, naming the known ones.
fn features_of(py: Python<'_>, version: u32) -> PyResult<&'static Features> {
    feature_version(version).map_err(|e| err(py, e))
}

/// Play-features version `version`'s layout: (name, offset, length, denominator, meaning) rows.
#[pyfunction]
#[pyo3(signature = (version=1))]
pub fn play_features(py: Python<'_>, version: u32) -> PyResult<Vec<(&'static str, usize, usize, u32, &'static str)>> {
    Ok(features_of(py, version)?.layout.to_vec())
}

/// The play-features versions this engine writes, oldest first.
#[pyfunction]
pub fn play_feature_versions() -> Vec<u16> {
    tractor_core::agent::play_features::FEATURES.iter().map(|f| f.version).collect()
}

/// The base weights named by an agent name: greedy, a tuned set or a shipped tuned name.
fn base_weights(py: Python<'_>, name: &str) -> PyResult<Weights> {
    match Agent::parse(name).map_err(|e| err(py, e))? {
        Agent::Greedy => Ok(Weights::GREEDY),
        Agent::Tuned(t) => Ok(*t.weights()),
        other => Err(crate::errors::bad_arg(py, "base", format!("{:?} is not greedy's weights (greedy, greedy:NAME=V/... or a tuned name)", other.name()))),
    }
}

/// Self-play of hands `start .. start + count` (see `learn::self_play`): a dict of numpy
/// arrays, decisions (`obs` (d, dim) uint8, `hand`, `seat`, `step`, `candidates`,
/// `complete`, `searched`), valued candidates (`decision`, `features` (c, the play-features
/// version's dim) int16,
/// `levels`, `points`, `is_base`, `played`, `taught`, `visits`) and per hand `returns` (hands, 4).
#[pyfunction]
#[pyo3(signature = (seed, start, count, seats, learners, base, rollout, label_rate, per_decision, rollouts, explore, profile, obs_version, canonical, threads, worlds=0, teacher=None, drawn_levels=false, value_visited=0, play_features=1, solve=0))]
#[allow(clippy::too_many_arguments)]
pub fn self_play<'py>(
    py: Python<'py>,
    seed: u64,
    start: u64,
    count: u64,
    seats: Vec<String>,
    learners: Vec<bool>,
    base: &str,
    rollout: &str,
    label_rate: u32,
    per_decision: usize,
    rollouts: u32,
    explore: u32,
    profile: &str,
    obs_version: u32,
    canonical: bool,
    threads: usize,
    worlds: u32,
    teacher: Option<String>,
    drawn_levels: bool,
    value_visited: u32,
    play_features: u32,
    solve: u8,
) -> PyResult<Bound<'py, PyDict>> {
    guard(py, || {
        if seats.len() != 4 || learners.len() != 4 {
            return Err(crate::errors::bad_arg(py, "seats", "four seats and four learner flags are needed"));
        }
        let mut ps = [Policy::Agent(Agent::Random); 4];
        for (i, n) in seats.iter().enumerate() {
            ps[i] = Policy::parse(n).map_err(|e| err(py, e))?;
        }
        let cfg = SelfPlayConfig {
            profile: core::Profile::parse(profile).map_err(|e| err(py, e))?,
            seats: ps,
            learners: [learners[0], learners[1], learners[2], learners[3]],
            base: base_weights(py, base)?,
            rollout: Policy::parse(rollout).map_err(|e| err(py, e))?,
            label_rate,
            per_decision,
            rollouts,
            explore,
            worlds,
            teacher: teacher.map(|t| Policy::parse(&t)).transpose().map_err(|e| err(py, e))?,
            value_visited,
            solve,
            obs: core::encode::observe::encoding(obs_version).map_err(|e| err(py, e))?,
            features: features_of(py, play_features)?,
            canonical,
            drawn_levels,
        };
        let s = py.detach(|| run(seed, start, count, &cfg, threads)).map_err(|e| err(py, e))?;
        let (d, c, dim) = (s.seat.len(), s.decision.len(), cfg.obs.dim);
        let out = PyDict::new(py);
        out.set_item("obs", PyArray1::from_vec(py, s.obs).reshape([d, dim])?)?;
        out.set_item("hand", PyArray1::from_vec(py, s.hand))?;
        out.set_item("seat", PyArray1::from_vec(py, s.seat))?;
        out.set_item("step", PyArray1::from_vec(py, s.step))?;
        out.set_item("candidates", PyArray1::from_vec(py, s.candidates))?;
        out.set_item("complete", PyArray1::from_vec(py, s.complete))?;
        out.set_item("searched", PyArray1::from_vec(py, s.searched))?;
        out.set_item("decision", PyArray1::from_vec(py, s.decision))?;
        out.set_item("features", PyArray1::from_vec(py, s.features).reshape([c, cfg.features.dim])?)?;
        out.set_item("levels", PyArray1::from_vec(py, s.levels))?;
        out.set_item("points", PyArray1::from_vec(py, s.points))?;
        out.set_item("is_base", PyArray1::from_vec(py, s.is_base))?;
        out.set_item("played", PyArray1::from_vec(py, s.played))?;
        out.set_item("taught", PyArray1::from_vec(py, s.taught))?;
        out.set_item("visits", PyArray1::from_vec(py, s.visits))?;
        let h = s.returns.len();
        let flat: Vec<i16> = s.returns.into_iter().flatten().collect();
        out.set_item("returns", PyArray1::from_vec(py, flat).reshape([h, 4])?)?;
        Ok(out)
    })
}

/// Greedy's weights named by `name` (greedy, `greedy:NAME=V/...` or a tuned name) as the text a
/// play network's file holds ("" for greedy's own).
#[pyfunction]
pub fn base_weights_text(py: Python<'_>, name: &str) -> PyResult<String> {
    Ok(base_weights(py, name)?.text())
}

/// Reads a play network's weights file (format 4) from bytes as the core does, raising what
/// is wrong with it.
#[pyfunction]
pub fn check_play_net(py: Python<'_>, data: &[u8]) -> PyResult<()> {
    core::agent::play_net::PlayNet::parse(data).map(|_| ()).map_err(|e| err(py, e))
}

/// The whole-play candidates of the seat to move in `game` with the base weights `base` and a
/// stream seeded `seed`: (actions as count lists or "pass"/(suit, count), features (k, the
/// play-features version's dim) int16, complete).
#[pyfunction]
#[pyo3(signature = (game, base, seed, play_features=1))]
pub fn play_candidates<'py>(py: Python<'py>, game: &crate::game::PyGame, base: &str, seed: u64, play_features: u32) -> PyResult<(Vec<Vec<u8>>, Bound<'py, numpy::PyArray2<i16>>, bool)> {
    guard(py, || {
        let w = base_weights(py, base)?;
        let feats = features_of(py, play_features)?;
        let g = &game.g;
        if !matches!(g.pos.phase, core::Phase::Declare | core::Phase::Play) {
            return Err(crate::errors::bad_arg(py, "game", "the hand is over"));
        }
        let mut out = plays::Plays::default();
        plays::candidates(&core::agent::view::SeatView::of_game(g), &w, feats, &mut core::Rng::new(seed), &mut out);
        let ids = out.actions.iter().map(|a| core::encode::actions::encode(a, g.pos.phase == core::Phase::Play && g.pos.lead().is_none())).collect();
        let k = out.len();
        Ok((ids, PyArray1::from_vec(py, out.features).reshape([k, feats.dim])?, out.complete))
    })
}
