//! Bindings of the integer networks (`tractor_core::agent::net`): a weights file read and
//! checked, and its logits for a seat of a game (the first layer computed in full).

use pyo3::prelude::*;
use pyo3::types::PyBytes;
use tractor_core::agent::net::{read_weights, Accumulator, Base, Net, ValueHead};
use tractor_core::encode::observe::{encoding, known_trump};
use tractor_core::rules::card::KINDS;
use tractor_core::Error;

use crate::game::PyGame;
use crate::{err, guard};

#[pyclass(module = "tractor._core", name = "Net", frozen)]
pub struct PyNet {
    net: Net,
}

#[pymethods]
impl PyNet {
    /// A network from the bytes of a weights file; InvalidPolicy if it is not one (magic,
    /// versions, sizes, CRC) or a sum could overflow.
    #[new]
    fn new(py: Python<'_>, data: &[u8]) -> PyResult<Self> {
        guard(py, || Ok(PyNet { net: Net::parse(data).map_err(|e| err(py, e))? }))
    }

    /// A network from the weights file at `path`: a regular file only, read no further than
    /// its header declares; InvalidPolicy otherwise (as for the bytes).
    #[staticmethod]
    fn read(py: Python<'_>, path: &str) -> PyResult<Self> {
        guard(py, || {
            let bytes = read_weights(path).map_err(|e| err(py, e))?;
            Ok(PyNet { net: Net::parse(&bytes).map_err(|e| err(py, e))? })
        })
    }

    /// A network from its quantized arrays (W1 input-major) over observation version
    /// `obs_version` (W1 has its `dim` inputs); InvalidPolicy if they do not make one (sizes,
    /// int8 range, overflow), InvalidArgument for an unknown version.
    #[staticmethod]
    #[allow(clippy::too_many_arguments)]
    #[pyo3(signature = (h1, h2, shift1, canonical, w1, b1, w2, b2, w3, b3, meta, base="none", prior=0, value=None, obs_version=1))]
    fn from_parts(
        py: Python<'_>,
        h1: usize,
        h2: usize,
        shift1: u8,
        canonical: bool,
        w1: Vec<i16>,
        b1: Vec<i32>,
        w2: Vec<i16>,
        b2: Vec<i32>,
        w3: Vec<i16>,
        b3: Vec<i32>,
        meta: String,
        base: &str,
        prior: i32,
        value: Option<(Vec<i16>, i32)>,
        obs_version: u32,
    ) -> PyResult<Self> {
        guard(py, || {
            let obs = encoding(obs_version).map_err(|e| err(py, e))?;
            let base = Base::parse(base).map_err(|e| err(py, e))?;
            let value = value.map(|(w, b)| ValueHead { w, b });
            Net::from_parts(obs, h1, h2, shift1, canonical, w1, b1, w2, b2, w3, b3, meta, base, prior, value)
                .map(|net| PyNet { net })
                .map_err(|e| err(py, e))
        })
    }

    /// The weights file's bytes.
    fn to_bytes<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, &self.net.to_bytes())
    }

    /// (h1, h2, shift1, shift2).
    #[getter]
    fn shape(&self) -> (usize, usize, u8, u8) {
        (self.net.h1, self.net.h2, self.net.shift1, self.net.shift2)
    }

    /// Does it read the observation with the suits renamed trump-first?
    #[getter]
    fn canonical(&self) -> bool {
        self.net.canonical
    }

    /// The observation version it reads (its weights file's header names it).
    #[getter]
    fn obs_version(&self) -> u32 {
        self.net.obs.version
    }

    #[getter]
    fn meta(&self) -> String {
        self.net.meta.clone()
    }

    /// The agent it corrects ("none" or "greedy") and the prior its next id gets.
    #[getter]
    fn base(&self) -> (&'static str, i32) {
        (self.net.base.name(), self.net.prior)
    }

    /// Does it have a value head (weights format 3)?
    #[getter]
    fn has_value(&self) -> bool {
        self.net.value.is_some()
    }

    /// The integer logits of the 72 (real) action ids for `seat` of `game` (its observation
    /// with the play it is building, when it is to move), before any base agent's prior.
    fn logits(&self, py: Python<'_>, game: &PyGame, seat: u8) -> PyResult<Vec<i32>> {
        guard(py, || {
            let acc = self.accumulator(py, game, seat)?;
            let trump = known_trump(&game.g.pos, seat);
            Ok(self.net.real_logits(&acc, trump).to_vec())
        })
    }

    /// The value head's integer output and the defenders' final score it predicts (R7.3),
    /// for `seat` of `game` (the same observation as `logits`); None without a value head.
    fn value(&self, py: Python<'_>, game: &PyGame, seat: u8) -> PyResult<Option<(i32, i32)>> {
        guard(py, || {
            let acc = self.accumulator(py, game, seat)?;
            Ok(self.net.value_out(&acc).map(|out| (out, Net::points(out))))
        })
    }
}

impl PyNet {
    /// The first layer for `seat`'s observation of `game`, computed in full.
    fn accumulator(&self, py: Python<'_>, game: &PyGame, seat: u8) -> PyResult<Accumulator> {
        if seat > 3 {
            return Err(err(py, Error::BadSeat { what: "seat", seat: seat as i64 }));
        }
        let pending = if game.g.pos.to_move == seat { game.b.pending } else { [0; KINDS] };
        let mut x = vec![0i16; self.net.obs.dim];
        self.net.obs.observe(&game.g, &pending, seat, self.net.canonical, &mut x);
        Ok(self.net.accumulator(&x))
    }
}
