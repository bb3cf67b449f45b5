//! Bindings of bulk simulation: index ranges of hands or matches, columns as bytes.

use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};
use tractor_core as core;
use tractor_core::policy::Policy;
use tractor_core::run::columns::{Column, HAND_COLUMNS, MATCH_COLUMNS};
use tractor_core::run::sim;

use std::fs::File;
use std::io::{BufReader, BufWriter};

use tractor_core::game::record::RecordError;
use tractor_core::game::records_file::{Reader, WriteError, Writer};

use crate::game::PyGame;
use crate::{err, guard, raise};

/// The four seats' policies and the profile of a run.
fn setup(py: Python<'_>, names: Vec<String>, profile: &str) -> PyResult<([Policy; 4], core::Profile)> {
    if names.len() != 4 {
        return Err(err(py, core::Error::BadPolicy(format!("four policies are needed, one per seat, got {}", names.len()))));
    }
    let mut out = [Policy::Agent(core::Agent::Random); 4];
    for (i, n) in names.iter().enumerate() {
        out[i] = Policy::parse(n).map_err(|e| err(py, e))?;
    }
    Ok((out, core::Profile::parse(profile).map_err(|e| err(py, e))?))
}

/// The columns of `rows` as a dict name -> little-endian bytes (the core's tables).
fn columns<'py, T>(py: Python<'py>, table: &[Column<T>], rows: &[T]) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    let mut buf = Vec::with_capacity(rows.len() * 8);
    for c in table {
        c.bytes(rows, &mut buf);
        d.set_item(c.name, PyBytes::new(py, &buf))?;
    }
    Ok(d)
}

/// The result columns as (name, numpy dtype) pairs: `("hands" | "matches")`, the core's
/// `run::columns` tables.
#[pyfunction]
pub fn result_schema(py: Python<'_>, kind: &str) -> PyResult<Vec<(&'static str, &'static str)>> {
    match kind {
        "hands" => Ok(HAND_COLUMNS.iter().map(|c| (c.name, c.dtype)).collect()),
        "matches" => Ok(MATCH_COLUMNS.iter().map(|c| (c.name, c.dtype)).collect()),
        _ => Err(crate::bad_arg(py, "kind", format!("no result schema {kind:?}: 'hands' or 'matches'"))),
    }
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
        let d = columns(py, &HAND_COLUMNS, &rows)?;
        let blob: Vec<u8> = recs.concat();
        Ok((d, PyBytes::new(py, &blob)))
    })
}

/// Hands of a run where the `None` seats are played from Python (tractor.sim's callables):
/// `waiting()`, `write(rows)` and `step(rows, ids)` until every hand is over, then `results()`
/// as `simulate_hands` returns them.
#[pyclass(module = "tractor._core", name = "Table")]
pub struct PyTable {
    t: core::run::table::Table,
}

#[pymethods]
impl PyTable {
    /// `obs_version`: the observation version (`OBS_ENCODINGS`) the Python seats are given;
    /// `canonical` (4 flags, or empty) and `teachers` (4 policy names or None, or empty): per
    /// Python seat, observations in renamed suits and the teacher whose ids `teacher_ids` gives.
    #[new]
    #[allow(clippy::too_many_arguments)]
    #[pyo3(signature = (seed, start, count, seats, profile, records, threads, obs_version=1, canonical=Vec::new(), teachers=Vec::new()))]
    fn new(
        py: Python<'_>,
        seed: u64,
        start: u64,
        count: u64,
        seats: Vec<Option<String>>,
        profile: &str,
        records: bool,
        threads: usize,
        obs_version: u32,
        canonical: Vec<bool>,
        teachers: Vec<Option<String>>,
    ) -> PyResult<Self> {
        guard(py, || {
            let ps = crate::vec_env::parse_seats(py, &seats)?;
            let profile = core::Profile::parse(profile).map_err(|e| err(py, e))?;
            let enc = core::encode::observe::encoding(obs_version).map_err(|e| err(py, e))?;
            let canon: [bool; 4] = match canonical.len() {
                0 => [false; 4],
                _ => canonical.try_into().map_err(|c: Vec<bool>| crate::bad_arg(py, "canonical", format!("{} flags, not 4 (one per seat)", c.len())))?,
            };
            let teach: [Option<core::Policy>; 4] = match teachers.len() {
                0 => [None; 4],
                4 => {
                    let mut t = [None; 4];
                    for (s, name) in teachers.iter().enumerate() {
                        if let Some(n) = name {
                            t[s] = Some(core::Policy::parse(n).map_err(|e| err(py, e))?);
                        }
                    }
                    t
                }
                k => return Err(crate::bad_arg(py, "teachers", format!("{k} entries, not 4 (one per seat)"))),
            };
            let t = py
                .detach(|| core::run::table::Table::new(seed, start, count, ps, enc, profile, records, threads).and_then(|t| t.asking(canon, teach)))
                .map_err(|e| err(py, e))?;
            Ok(PyTable { t })
        })
    }

    /// Per hand of `rows`, the teacher's next id for its seat to act (int32; -1: no teacher,
    /// or the ids taken in the decision have left the teacher's).
    fn teacher_ids<'py>(&mut self, py: Python<'py>, rows: Vec<usize>) -> PyResult<Bound<'py, numpy::PyArray1<i32>>> {
        guard(py, || {
            let t = &mut self.t;
            let ids = py.detach(|| t.teacher_ids(&rows)).map_err(|e| err(py, e))?;
            Ok(numpy::PyArray1::from_vec(py, ids))
        })
    }

    /// Per hand, the Python seat to act, or 255 once the hand is over.
    fn waiting<'py>(&self, py: Python<'py>) -> Bound<'py, numpy::PyArray1<u8>> {
        numpy::PyArray1::from_vec(py, self.t.waiting())
    }

    /// The observations (k, dim of the table's encoding) float32 and masks (k, 72) bool of
    /// hands `rows`.
    #[allow(clippy::type_complexity)]
    fn write<'py>(&mut self, py: Python<'py>, rows: Vec<usize>) -> PyResult<(Bound<'py, numpy::PyArray2<f32>>, Bound<'py, numpy::PyArray2<bool>>)> {
        use core::encode::actions::ACTIONS;
        use numpy::PyArrayMethods;
        guard(py, || {
            let dim = self.t.encoding().dim;
            let (mut obs, mut mask) = (vec![0f32; rows.len() * dim], vec![false; rows.len() * ACTIONS]);
            self.t.write(&rows, &mut obs, &mut mask).map_err(|e| err(py, e))?;
            let k = rows.len();
            let o = numpy::PyArray1::from_vec(py, obs).reshape([k, dim])?;
            let m = numpy::PyArray1::from_vec(py, mask).reshape([k, ACTIONS])?;
            Ok((o, m))
        })
    }

    /// Takes `ids[j]` for hand `rows[j]` (each checked first: a refused id changes nothing).
    fn step(&mut self, py: Python<'_>, rows: Vec<usize>, ids: Vec<i64>) -> PyResult<()> {
        guard(py, || {
            let t = &mut self.t;
            py.detach(|| t.step(&rows, &ids)).map_err(|e| err(py, e))
        })
    }

    /// (columns, records) as `simulate_hands` returns them, once every hand is over.
    fn results<'py>(&self, py: Python<'py>) -> PyResult<(Bound<'py, PyDict>, Bound<'py, PyBytes>)> {
        guard(py, || {
            let (rows, recs) = self.t.results().map_err(|e| err(py, e))?;
            let d = columns(py, &HAND_COLUMNS, &rows)?;
            Ok((d, PyBytes::new(py, &recs.concat())))
        })
    }
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
        columns(py, &MATCH_COLUMNS, &rows)
    })
}

/// Decodes and replays the compact hand record (one frame) at the start of `data`: (game,
/// bytes used). `legacy`: a frame of a version-2 file (no run tag, no hand index).
#[pyfunction]
#[pyo3(signature = (data, legacy=false))]
pub fn replay_record(py: Python<'_>, data: &[u8], legacy: bool) -> PyResult<(PyGame, usize)> {
    guard(py, || {
        let bad = |e| records_error(py, "record", e);
        let (rec, used) = if legacy {
            let (body, used) = core::game::record::frame_v2(data).map_err(bad)?;
            (core::game::record::decode_body(body).map_err(bad)?, used)
        } else {
            core::game::record::decode(data).map_err(bad)?
        };
        let g = core::game::record::replay(&rec).map_err(|e| err(py, e))?;
        Ok((PyGame::from(g), used))
    })
}

/// A records file being written (see `tractor_core::game::records_file`): the header at once,
/// then frames in hand order, each checked and stamped, then the footer at `finish`. An
/// output error raises OSError and spends the writer; frames out of place raise
/// InvalidArgument and change nothing.
#[pyclass(module = "tractor._core", name = "RecordsWriter")]
pub struct PyRecordsWriter {
    path: String,
    w: Option<Writer<BufWriter<File>>>,
}

fn write_error(py: Python<'_>, path: &str, e: WriteError) -> PyErr {
    match e {
        WriteError::Frames(e) => raise(py, "InvalidArgument", &format!("{path}: frames that are not the file's next: {e}"), None),
        WriteError::Io(e) => PyErr::from(e),
    }
}

#[pymethods]
impl PyRecordsWriter {
    #[new]
    fn new(py: Python<'_>, path: std::path::PathBuf, first: u64, meta: &str) -> PyResult<Self> {
        guard(py, || {
            let name = path.display().to_string();
            let f = File::create(&path)?;
            let w = Writer::new(BufWriter::with_capacity(1 << 16, f), first, meta.as_bytes()).map_err(|e| write_error(py, &name, e))?;
            Ok(PyRecordsWriter { path: name, w: Some(w) })
        })
    }

    /// Appends frames (the bytes a run's `records` gives): returns how many.
    fn write(&mut self, py: Python<'_>, frames: &[u8]) -> PyResult<u64> {
        guard(py, || {
            let path = self.path.clone();
            let Some(w) = self.w.as_mut() else {
                return Err(raise(py, "InvalidArgument", &format!("{path}: the records file is closed"), None));
            };
            let r = py.detach(|| w.append(frames));
            r.map_err(|e| {
                if matches!(e, WriteError::Io(_)) {
                    self.w = None;
                }
                write_error(py, &path, e)
            })
        })
    }

    /// Writes the footer (`stopped`: the run ended before its planned hands), flushes and
    /// closes: returns the number of frames.
    fn finish(&mut self, py: Python<'_>, stopped: bool) -> PyResult<u64> {
        guard(py, || {
            let Some(w) = self.w.take() else {
                return Err(raise(py, "InvalidArgument", &format!("{}: the records file is closed", self.path), None));
            };
            let n = w.frames();
            let out = w.finish(stopped).map_err(|e| write_error(py, &self.path, e))?;
            let f = out.into_inner().map_err(|e| PyErr::from(e.into_error()))?;
            f.sync_all()?;
            Ok(n)
        })
    }

    /// Closes without a footer (an abandoned file).
    fn close(&mut self) {
        self.w = None;
    }

    /// Frames written so far.
    #[getter]
    fn frames(&self) -> u64 {
        self.w.as_ref().map_or(0, |w| w.frames())
    }

    /// The index of the next hand the file expects.
    #[getter]
    fn next_index(&self) -> Option<u64> {
        self.w.as_ref().map(|w| w.next_index())
    }
}

fn records_error(py: Python<'_>, path: &str, e: RecordError) -> PyErr {
    let kw = PyDict::new(py);
    let set = || -> PyResult<()> {
        kw.set_item("path", path)?;
        kw.set_item("index", e.index)?;
        kw.set_item("offset", e.offset)?;
        kw.set_item("truncated", e.truncated)?;
        kw.set_item("incomplete", e.incomplete)?;
        Ok(())
    };
    if let Err(x) = set() {
        return x;
    }
    raise(py, "RecordsError", &format!("{path}: {e}"), Some(kw))
}

/// A records file read frame by frame (see `tractor_core::game::record`): constant memory, linear
/// time. A fault ends the stream: the records before it are returned first, the next call
/// raises `RecordsError` with the record's index and byte offset.
#[pyclass(module = "tractor._core", name = "RecordReader")]
pub struct PyRecordReader {
    path: String,
    r: Option<Reader<BufReader<File>>>,
    pending: Option<RecordError>,
    version: u16,
    end: Option<(bool, bool)>,
}

impl PyRecordReader {
    /// Notes how the file ended once the reader says it has.
    fn note_end(&mut self) {
        if let Some(r) = self.r.as_ref() {
            self.end = Some(match r.footer {
                Some(f) => (true, f.stopped),
                None => (false, false),
            });
        }
    }
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
    #[pyo3(signature = (path, partial=false))]
    fn new(py: Python<'_>, path: std::path::PathBuf, partial: bool) -> PyResult<Self> {
        guard(py, || {
            let name = path.display().to_string();
            let f = File::open(&path).map_err(|e| {
                let message = format!("cannot open: {e}");
                records_error(py, &name, RecordError { index: None, offset: 0, truncated: false, incomplete: false, message })
            })?;
            let mut r = Reader::new(BufReader::with_capacity(1 << 16, f)).map_err(|e| records_error(py, &name, e))?;
            r.partial = partial;
            Ok(PyRecordReader { path: name, r: Some(r), pending: None, version: 0, end: None })
        }).map(|mut me| {
            me.version = me.r.as_ref().map_or(0, |r| r.version);
            me
        })
    }

    /// The file layout's version.
    #[getter]
    fn version(&self) -> u16 {
        self.version
    }

    /// Where the file ended, once it has: None while reading (or after an error); else
    /// (complete, stopped): complete, a footer proved the records; stopped, the
    /// footer says the run stopped before its planned hands. A version-2 file is never
    /// complete (it has no footer).
    #[getter]
    fn end(&self) -> Option<(bool, bool)> {
        self.end
    }

    /// The first hand's index (version 3; 0 for version 2).
    #[getter]
    fn first(&self) -> u64 {
        self.r.as_ref().map_or(0, |r| r.first)
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
    fn read(&mut self, py: Python<'_>, n: usize) -> PyResult<Vec<(u64, u64, u64, u64, &'static str, u8, u8, u8, usize, Py<PyBytes>)>> {
        guard(py, || {
            self.raise_pending(py)?;
            let mut out = Vec::new();
            let mut ended = false;
            let Some(r) = self.r.as_mut() else { return Ok(out) };
            while out.len() < n {
                let (index, offset, hand) = (r.index, r.offset, r.first + r.index);
                match r.next_frame() {
                    Ok(None) => {
                        ended = true;
                        break;
                    }
                    Ok(Some((frame, body))) => match core::game::record::check_body(body) {
                        Ok(h) => out.push((
                            index,
                            offset,
                            hand,
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
            if ended {
                self.note_end();
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
            let mut ended = false;
            while recs.len() < n {
                let (index, offset) = (r.index, r.offset);
                match r.next_record() {
                    Ok(None) => {
                        ended = true;
                        break;
                    }
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
            if ended {
                self.note_end();
            }
            let played = py.detach(|| core::game::record::replay_many(&recs));
            let mut out = Vec::with_capacity(played.len());
            for (g, (index, offset)) in played.into_iter().zip(at) {
                match g {
                    Ok(g) => out.push(PyGame::from(g)),
                    Err(e) => {
                        self.pending = Some(RecordError {
                            index: Some(index),
                            offset,
                            truncated: false,
                            incomplete: false,
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
