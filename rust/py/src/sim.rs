//! Bindings of bulk simulation: index ranges of hands or matches, columns as bytes.

use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};
use tractor_core as core;
use tractor_core::policy::Policy;
use tractor_core::sim;

use crate::game::PyGame;
use crate::{err, guard};

/// The four seats' policies and the profile of a run.
fn setup(py: Python<'_>, names: Vec<String>, profile: &str) -> PyResult<([Policy; 4], core::Profile)> {
    if names.len() != 4 {
        return Err(err(py, core::Error::BadPlays(format!("four policies are needed, one per seat, got {}", names.len()))));
    }
    let mut out = [Policy::Random; 4];
    for (i, n) in names.iter().enumerate() {
        out[i] = Policy::parse(n).map_err(|e| err(py, e))?;
    }
    Ok((out, core::Profile::parse(profile).map_err(|e| err(py, e))?))
}

fn column<'py, T: Copy>(py: Python<'py>, d: &Bound<'py, PyDict>, name: &str, rows: &[T], f: impl Fn(&T) -> Vec<u8>) -> PyResult<()> {
    let mut buf = Vec::with_capacity(rows.len() * 8);
    for r in rows {
        buf.extend_from_slice(&f(r));
    }
    d.set_item(name, PyBytes::new(py, &buf))
}

/// Simulates hands `start .. start + count`; returns little-endian columns (see tractor.sim)
/// and, with `records`, the compact records of the hands in order.
#[pyfunction]
#[pyo3(signature = (seed, start, count, policy_names, profile_name, threads, records=false))]
#[allow(clippy::too_many_arguments)]
pub fn simulate_hands<'py>(
    py: Python<'py>,
    seed: u64,
    start: u64,
    count: u64,
    policy_names: Vec<String>,
    profile_name: &str,
    threads: usize,
    records: bool,
) -> PyResult<(Bound<'py, PyDict>, Bound<'py, PyBytes>)> {
    guard(py, || {
        let (p, profile) = setup(py, policy_names, profile_name)?;
        let (rows, recs) = py
            .detach(|| sim::simulate_range(seed, start, count, p, profile, threads, records))
            .map_err(|e| err(py, e))?;
        let d = PyDict::new(py);
        column(py, &d, "index", &rows, |r| r.index.to_le_bytes().to_vec())?;
        column(py, &d, "seed", &rows, |r| r.hand_seed.to_le_bytes().to_vec())?;
        column(py, &d, "banker", &rows, |r| vec![r.banker])?;
        column(py, &d, "declarer", &rows, |r| vec![r.declarer])?;
        column(py, &d, "trump", &rows, |r| vec![r.trump])?;
        column(py, &d, "level", &rows, |r| vec![r.level])?;
        column(py, &d, "tricks", &rows, |r| vec![r.tricks])?;
        column(py, &d, "score", &rows, |r| r.score.to_le_bytes().to_vec())?;
        column(py, &d, "last_trick_cards", &rows, |r| vec![r.last_trick_cards])?;
        column(py, &d, "banker_levels", &rows, |r| vec![r.banker_levels])?;
        column(py, &d, "defender_levels", &rows, |r| vec![r.defender_levels])?;
        column(py, &d, "defenders_take_over", &rows, |r| vec![r.defenders_take_over as u8])?;
        column(py, &d, "redeals", &rows, |r| vec![r.redeals])?;
        column(py, &d, "stopped", &rows, |r| vec![r.stopped as u8])?;
        column(py, &d, "decisions", &rows, |r| r.decisions.to_le_bytes().to_vec())?;
        let blob: Vec<u8> = recs.concat();
        Ok((d, PyBytes::new(py, &blob)))
    })
}

/// Simulates matches `start .. start + count` (until a team passes A, at most `max_hands`).
#[pyfunction]
#[allow(clippy::too_many_arguments)]
pub fn simulate_matches<'py>(
    py: Python<'py>,
    seed: u64,
    start: u64,
    count: u64,
    policy_names: Vec<String>,
    profile_name: &str,
    threads: usize,
    max_hands: u32,
) -> PyResult<Bound<'py, PyDict>> {
    guard(py, || {
        let (p, profile) = setup(py, policy_names, profile_name)?;
        let rows = py
            .detach(|| sim::simulate_matches(seed, start, count, p, profile, threads, max_hands))
            .map_err(|e| err(py, e))?;
        let d = PyDict::new(py);
        column(py, &d, "index", &rows, |r| r.index.to_le_bytes().to_vec())?;
        column(py, &d, "winner", &rows, |r| vec![r.winner])?;
        column(py, &d, "hands", &rows, |r| r.hands.to_le_bytes().to_vec())?;
        column(py, &d, "level0", &rows, |r| vec![r.levels[0]])?;
        column(py, &d, "level1", &rows, |r| vec![r.levels[1]])?;
        column(py, &d, "stops", &rows, |r| r.stops.to_le_bytes().to_vec())?;
        Ok(d)
    })
}

/// Decodes and replays the compact hand record at the start of `data`: (game, bytes used).
#[pyfunction]
pub fn replay_record(py: Python<'_>, data: &[u8]) -> PyResult<(PyGame, usize)> {
    guard(py, || {
        let (rec, used) = core::record::decode(data).map_err(|e| err(py, e))?;
        let g = core::record::replay(&rec).map_err(|e| err(py, e))?;
        Ok((PyGame { g }, used))
    })
}
