//! Bindings of bulk simulation: index ranges of hands or matches, columns as bytes.

use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};
use tractor_core as core;
use tractor_core::policy::Policy;
use tractor_core::sim;

use std::fs::File;
use std::io::BufReader;

use tractor_core::record::{Reader, RecordError};

use crate::game::PyGame;
use crate::{err, guard, raise};

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

/// Decodes and replays the compact hand record (one frame) at the start of `data`: (game, bytes used).
#[pyfunction]
pub fn replay_record(py: Python<'_>, data: &[u8]) -> PyResult<(PyGame, usize)> {
    guard(py, || {
        let (rec, used) = core::record::decode(data).map_err(|e| records_error(py, "record", e))?;
        let g = core::record::replay(&rec).map_err(|e| err(py, e))?;
        Ok((PyGame { g }, used))
    })
}

/// The header of a records file that carries `meta` (JSON text describing the run).
#[pyfunction]
pub fn records_file_header<'py>(py: Python<'py>, meta: &str) -> Bound<'py, PyBytes> {
    PyBytes::new(py, &core::record::encode_file_header(meta.as_bytes()))
}

fn records_error(py: Python<'_>, path: &str, e: RecordError) -> PyErr {
    let kw = PyDict::new(py);
    let set = || -> PyResult<()> {
        kw.set_item("path", path)?;
        kw.set_item("index", e.index)?;
        kw.set_item("offset", e.offset)?;
        kw.set_item("truncated", e.truncated)?;
        Ok(())
    };
    if let Err(x) = set() {
        return x;
    }
    raise(py, "RecordsError", &format!("{path}: {e}"), Some(kw))
}

/// A records file read frame by frame (see `tractor_core::record`): constant memory, linear
/// time. A fault ends the stream: the records before it are returned first, the next call
/// raises `RecordsError` with the record's index and byte offset.
#[pyclass(module = "tractor._core", name = "RecordReader")]
pub struct PyRecordReader {
    path: String,
    r: Option<Reader<BufReader<File>>>,
    pending: Option<RecordError>,
}

impl PyRecordReader {
    fn raise_pending(&mut self, py: Python<'_>) -> PyResult<()> {
        match self.pending.take() {
            Some(e) => {
                self.r = None;
                Err(records_error(py, &self.path, e))
            }
            None => Ok(()),
        }
    }
}

#[pymethods]
impl PyRecordReader {
    #[new]
    fn new(py: Python<'_>, path: std::path::PathBuf) -> PyResult<Self> {
        guard(py, || {
            let name = path.display().to_string();
            let f = File::open(&path).map_err(|e| {
                records_error(py, &name, RecordError { index: None, offset: 0, truncated: false, message: format!("cannot open: {e}") })
            })?;
            let r = Reader::new(BufReader::with_capacity(1 << 16, f)).map_err(|e| records_error(py, &name, e))?;
            Ok(PyRecordReader { path: name, r: Some(r), pending: None })
        })
    }

    /// The file layout's version.
    #[getter]
    fn version(&self) -> u16 {
        self.r.as_ref().map_or(core::record::FILE_VERSION, |r| r.version)
    }

    /// The header's metadata (JSON text).
    #[getter]
    fn meta(&self) -> String {
        self.r.as_ref().map_or(String::new(), |r| String::from_utf8_lossy(&r.meta).into_owned())
    }

    /// Up to `n` next records, each (index, offset, hand_seed, profile, level0, level1,
    /// banker, decisions, frame bytes), checked, not replayed; an empty list at the end of
    /// the file.
    #[allow(clippy::type_complexity)]
    fn read(&mut self, py: Python<'_>, n: usize) -> PyResult<Vec<(u64, u64, u64, &'static str, u8, u8, u8, usize, Py<PyBytes>)>> {
        guard(py, || {
            self.raise_pending(py)?;
            let mut out = Vec::new();
            let Some(r) = self.r.as_mut() else { return Ok(out) };
            while out.len() < n {
                let (index, offset) = (r.index, r.offset);
                match r.next_frame() {
                    Ok(None) => break,
                    Ok(Some(frame)) => match core::record::check_body(&frame[4..frame.len() - 4]) {
                        Ok(h) => out.push((
                            index,
                            offset,
                            h.hand_seed,
                            h.profile.name(),
                            h.levels[0],
                            h.levels[1],
                            h.banker,
                            h.actions,
                            PyBytes::new(py, frame).unbind(),
                        )),
                        Err(mut e) => {
                            e.index = Some(index);
                            e.offset = offset;
                            self.pending = Some(e);
                            break;
                        }
                    },
                    Err(e) => {
                        self.pending = Some(e);
                        break;
                    }
                }
            }
            if out.is_empty() {
                self.raise_pending(py)?;
            }
            Ok(out)
        })
    }

    /// Up to `n` next hands replayed into games (in parallel, without the GIL), each action
    /// checked; an empty list at the end of the file.
    fn games(&mut self, py: Python<'_>, n: usize) -> PyResult<Vec<PyGame>> {
        guard(py, || {
            self.raise_pending(py)?;
            let Some(r) = self.r.as_mut() else { return Ok(Vec::new()) };
            let mut recs = Vec::new();
            let mut at = Vec::new();
            while recs.len() < n {
                let (index, offset) = (r.index, r.offset);
                match r.next_record() {
                    Ok(None) => break,
                    Ok(Some(h)) => {
                        recs.push(h);
                        at.push((index, offset));
                    }
                    Err(e) => {
                        self.pending = Some(e);
                        break;
                    }
                }
            }
            let played = py.detach(|| core::record::replay_many(&recs));
            let mut out = Vec::with_capacity(played.len());
            for (g, (index, offset)) in played.into_iter().zip(at) {
                match g {
                    Ok(g) => out.push(PyGame { g }),
                    Err(e) => {
                        self.pending = Some(RecordError {
                            index: Some(index),
                            offset,
                            truncated: false,
                            message: format!("does not replay: {e}"),
                        });
                        break;
                    }
                }
            }
            if out.is_empty() {
                self.raise_pending(py)?;
            }
            Ok(out)
        })
    }
}
