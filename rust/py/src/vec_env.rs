//! Bindings of the batched environment: `VecEnv` steps many games in Rust, with the GIL
//! released, into numpy buffers it owns and returns (they are reused by the next call).

use numpy::{PyArray1, PyArray2, PyArrayMethods, PyReadonlyArray1};
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use tractor_core as core;
use tractor_core::Error;
use tractor_core::encode::actions::ACTIONS;
use tractor_core::encode::observe::OBS_DIM;
use tractor_core::learn::vec_env::{Buffers, EnvConfig, VecEnv};
use tractor_core::policy::Policy;

use crate::{err, guard};

#[pyclass(module = "tractor._core", name = "VecEnv")]
pub struct PyVecEnv {
    v: VecEnv,
    obs: Py<PyArray2<f32>>,
    mask: Py<PyArray2<bool>>,
    seat: Py<PyArray1<i32>>,
    reward: Py<PyArray2<f32>>,
    done: Py<PyArray1<bool>>,
}

type Out = (Py<PyArray2<f32>>, Py<PyArray2<bool>>, Py<PyArray1<i32>>, Py<PyArray2<f32>>, Py<PyArray1<bool>>);

impl PyVecEnv {
    /// Runs `f` over the buffers with the GIL released; returns the buffers.
    fn with_buffers(&mut self, py: Python<'_>, f: impl FnOnce(&mut VecEnv, Buffers) -> Result<(), Error> + Send) -> PyResult<Out> {
        let (mut o, mut m, mut s, mut r, mut d) = (
            self.obs.bind(py).readwrite(),
            self.mask.bind(py).readwrite(),
            self.seat.bind(py).readwrite(),
            self.reward.bind(py).readwrite(),
            self.done.bind(py).readwrite(),
        );
        let contiguous = |e: numpy::AsSliceError| crate::bad_arg(py, "buffer", e.to_string());
        let b = Buffers {
            obs: o.as_slice_mut().map_err(contiguous)?,
            mask: m.as_slice_mut().map_err(contiguous)?,
            seat: s.as_slice_mut().map_err(contiguous)?,
            reward: r.as_slice_mut().map_err(contiguous)?,
            done: d.as_slice_mut().map_err(contiguous)?,
        };
        let v = &mut self.v;
        py.detach(|| f(v, b)).map_err(|e| err(py, e))?;
        Ok((
            self.obs.clone_ref(py),
            self.mask.clone_ref(py),
            self.seat.clone_ref(py),
            self.reward.clone_ref(py),
            self.done.clone_ref(py),
        ))
    }
}

#[pymethods]
impl PyVecEnv {
    /// `seats`: four policy names, None for the learner's seats.
    #[new]
    #[allow(clippy::too_many_arguments)]
    #[pyo3(signature = (num_envs, seed, profile, seats, every_receiver, canonical, threads))]
    fn new(
        py: Python<'_>,
        num_envs: usize,
        seed: u64,
        profile: &str,
        seats: Vec<Option<String>>,
        every_receiver: bool,
        canonical: bool,
        threads: usize,
    ) -> PyResult<Self> {
        guard(py, || {
            let profile = core::Profile::parse(profile).map_err(|e| err(py, e))?;
            if seats.len() != 4 {
                return Err(crate::bad_arg(py, "seats", format!("four entries, got {}", seats.len())));
            }
            let mut ps = [None; 4];
            for (i, s) in seats.iter().enumerate() {
                if let Some(name) = s {
                    ps[i] = Some(Policy::parse(name).map_err(|e| err(py, e))?);
                }
            }
            let cfg = EnvConfig { profile, seats: ps, every_receiver, canonical };
            let v = py.detach(|| VecEnv::new(num_envs, seed, cfg, threads)).map_err(|e| err(py, e))?;
            Ok(PyVecEnv {
                v,
                obs: PyArray2::zeros(py, [num_envs, OBS_DIM], false).unbind(),
                mask: PyArray2::from_vec2(py, &vec![vec![false; ACTIONS]; num_envs]).map_err(|e| crate::bad_arg(py, "num_envs", e.to_string()))?.unbind(),
                seat: PyArray1::zeros(py, num_envs, false).unbind(),
                reward: PyArray2::zeros(py, [num_envs, 4], false).unbind(),
                done: PyArray1::from_vec(py, vec![false; num_envs]).unbind(),
            })
        })
    }

    fn __len__(&self) -> usize {
        self.v.len()
    }

    /// Starts every environment anew; (obs, mask, seat, reward, done).
    fn reset(&mut self, py: Python<'_>) -> PyResult<Out> {
        guard(py, || self.with_buffers(py, |v, b| v.reset(b)))
    }

    /// Steps every environment with its action id; (obs, mask, seat, reward, done).
    fn step(&mut self, py: Python<'_>, actions: PyReadonlyArray1<'_, i64>) -> PyResult<Out> {
        guard(py, || {
            let a = actions.as_slice().map_err(|e| crate::bad_arg(py, "actions", e.to_string()))?.to_vec();
            self.with_buffers(py, move |v, b| v.step(&a, b))
        })
    }

    /// Environment `i`'s game as its record JSON is built from (for inspection and tests).
    fn game(&self, py: Python<'_>, i: usize) -> PyResult<crate::game::PyGame> {
        guard(py, || {
            let e = self.v.envs.get(i).ok_or_else(|| crate::bad_arg(py, "index", format!("environment {i} of {}", self.v.len())))?;
            let mut g = crate::game::PyGame::from(e.game.clone());
            g.b = e.builder.clone();
            Ok(g)
        })
    }

    /// Per environment, the trump suit as the seat to act knows it: 0..3, or 4 unknown.
    fn known_trumps<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<i8>> {
        let v: Vec<i8> = self
            .v
            .envs
            .iter()
            .map(|e| match core::encode::observe::known_trump(&e.game.pos, e.game.pos.to_move) {
                t if t < 4 => t as i8,
                _ => 4,
            })
            .collect();
        PyArray1::from_vec(py, v)
    }

    /// The pending selection of environment `i` (count array).
    fn pending<'py>(&self, py: Python<'py>, i: usize) -> PyResult<Bound<'py, PyBytes>> {
        let e = self.v.envs.get(i).ok_or_else(|| crate::bad_arg(py, "index", format!("environment {i} of {}", self.v.len())))?;
        Ok(PyBytes::new(py, &e.builder.pending))
    }
}
