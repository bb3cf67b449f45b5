//! Bindings of the batched environment: `VecEnv` steps many games in Rust, with the GIL
//! released, into numpy buffers it owns and returns (they are reused by the next call).

use numpy::{Element, PyArray1, PyArray2, PyArrayMethods};
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use tractor_core as core;
use tractor_core::Error;
use tractor_core::encode::actions::ACTIONS;
use tractor_core::encode::observe::{encoding, Entry};
use tractor_core::learn::vec_env::{Buffers, EnvConfig, VecEnv, INFO};
use tractor_core::policy::Policy;

use crate::{err, guard};

/// The observation buffer: `f32` (the learner's tensor) or `u8` (its compact copy).
enum Obs {
    F32(Py<PyArray2<f32>>),
    U8(Py<PyArray2<u8>>),
}

/// Four seats' policies by name, `None` for a seat played from outside the core (the learner's,
/// or a Python policy's).
pub(crate) fn parse_seats(py: Python<'_>, seats: &[Option<String>]) -> PyResult<[Option<Policy>; 4]> {
    if seats.len() != 4 {
        return Err(crate::bad_arg(py, "seats", format!("four entries, got {}", seats.len())));
    }
    let mut ps = [None; 4];
    for (i, s) in seats.iter().enumerate() {
        if let Some(name) = s {
            ps[i] = Some(Policy::parse(name).map_err(|e| err(py, e))?);
        }
    }
    Ok(ps)
}

#[pyclass(module = "tractor._core", name = "VecEnv")]
pub struct PyVecEnv {
    v: VecEnv,
    obs: Obs,
    mask: Py<PyArray2<bool>>,
    seat: Py<PyArray1<i32>>,
    reward: Py<PyArray2<f32>>,
    done: Py<PyArray1<bool>>,
    info: Py<PyArray2<i32>>,
}

type Out = (Py<PyAny>, Py<PyArray2<bool>>, Py<PyArray1<i32>>, Py<PyArray2<f32>>, Py<PyArray1<bool>>);

/// What a call does with the buffers (the same for either observation type).
trait Call: Send {
    fn call<T: Entry + Send>(self, v: &mut VecEnv, b: Buffers<T>) -> Result<(), Error>;
}

struct Reset(Option<Vec<usize>>);
impl Call for Reset {
    fn call<T: Entry + Send>(self, v: &mut VecEnv, b: Buffers<T>) -> Result<(), Error> {
        v.reset_rows(self.0.as_deref(), b)
    }
}

struct Step(Option<Vec<usize>>, Vec<i64>);
impl Call for Step {
    fn call<T: Entry + Send>(self, v: &mut VecEnv, b: Buffers<T>) -> Result<(), Error> {
        match self.0 {
            None => v.step(&self.1, b),
            Some(rows) => v.step_rows(&rows, &self.1, b),
        }
    }
}

impl PyVecEnv {
    /// Runs `f` over the buffers with the GIL released; returns the buffers.
    fn with_buffers(&mut self, py: Python<'_>, f: impl Call) -> PyResult<Out> {
        match &self.obs {
            Obs::F32(o) => {
                let o = o.clone_ref(py);
                self.run(py, &o, f)?;
            }
            Obs::U8(o) => {
                let o = o.clone_ref(py);
                self.run(py, &o, f)?;
            }
        }
        let obs = match &self.obs {
            Obs::F32(o) => o.clone_ref(py).into_any(),
            Obs::U8(o) => o.clone_ref(py).into_any(),
        };
        Ok((obs, self.mask.clone_ref(py), self.seat.clone_ref(py), self.reward.clone_ref(py), self.done.clone_ref(py)))
    }

    fn run<T: Entry + Send + Element>(&mut self, py: Python<'_>, obs: &Py<PyArray2<T>>, f: impl Call) -> PyResult<()> {
        // a buffer borrowed elsewhere (a view of it passed in, or another thread's call) is
        // refused with an error, never a panic
        let taken = |e: numpy::BorrowError| crate::bad_arg(py, "buffer", format!("the VecEnv's output buffers are in use: {e}"));
        let (mut o, mut m, mut s, mut r, mut d, mut i) = (
            obs.bind(py).try_readwrite().map_err(taken)?,
            self.mask.bind(py).try_readwrite().map_err(taken)?,
            self.seat.bind(py).try_readwrite().map_err(taken)?,
            self.reward.bind(py).try_readwrite().map_err(taken)?,
            self.done.bind(py).try_readwrite().map_err(taken)?,
            self.info.bind(py).try_readwrite().map_err(taken)?,
        );
        let contiguous = |e: numpy::AsSliceError| crate::bad_arg(py, "buffer", e.to_string());
        let b = Buffers {
            obs: o.as_slice_mut().map_err(contiguous)?,
            mask: m.as_slice_mut().map_err(contiguous)?,
            seat: s.as_slice_mut().map_err(contiguous)?,
            reward: r.as_slice_mut().map_err(contiguous)?,
            done: d.as_slice_mut().map_err(contiguous)?,
            info: i.as_slice_mut().map_err(contiguous)?,
        };
        let v = &mut self.v;
        py.detach(|| f.call(v, b)).map_err(|e| err(py, e))
    }
}

#[pymethods]
impl PyVecEnv {
    /// `seats`: four policy names, None for the learner's seats and the `outside` ones
    /// (stepped from Python); `teacher` a policy name or None; `obs_dtype` "float32" or "uint8";
    /// `obs_version` the observation version (`OBS_ENCODINGS`), whose size the buffers take.
    #[new]
    #[allow(clippy::too_many_arguments)]
    #[pyo3(signature = (num_envs, seed, profile, seats, every_receiver, canonical, threads, auto_forced=false, first_hand_only=false, teacher=None, obs_dtype="float32", outside=Vec::new(), obs_version=1))]
    fn new(
        py: Python<'_>,
        num_envs: usize,
        seed: u64,
        profile: &str,
        seats: Vec<Option<String>>,
        every_receiver: bool,
        canonical: bool,
        threads: usize,
        auto_forced: bool,
        first_hand_only: bool,
        teacher: Option<String>,
        obs_dtype: &str,
        outside: Vec<usize>,
        obs_version: u32,
    ) -> PyResult<Self> {
        guard(py, || {
            let profile = core::Profile::parse(profile).map_err(|e| err(py, e))?;
            let ps = parse_seats(py, &seats)?;
            let teacher = match teacher {
                None => None,
                Some(name) => Some(Policy::parse(&name).map_err(|e| err(py, e))?),
            };
            let enc = encoding(obs_version).map_err(|e| err(py, e))?;
            let obs = match obs_dtype {
                "float32" => Obs::F32(PyArray2::zeros(py, [num_envs, enc.dim], false).unbind()),
                "uint8" => Obs::U8(PyArray2::zeros(py, [num_envs, enc.dim], false).unbind()),
                other => return Err(crate::bad_arg(py, "obs_dtype", format!("{other:?}: expected 'float32' or 'uint8'"))),
            };
            let mut out = [false; 4];
            for s in outside {
                match (out.get_mut(s), ps.get(s)) {
                    (Some(o), Some(None)) => *o = true,
                    _ => return Err(crate::bad_arg(py, "outside", format!("seat {s} is not a seat without a policy"))),
                }
            }
            let cfg = EnvConfig { obs: enc, every_receiver, canonical, auto_forced, first_hand_only, teacher, outside: out, ..EnvConfig::new(profile, ps) };
            let v = py.detach(|| VecEnv::new(num_envs, seed, cfg, threads)).map_err(|e| err(py, e))?;
            Ok(PyVecEnv {
                v,
                obs,
                mask: PyArray2::from_vec2(py, &vec![vec![false; ACTIONS]; num_envs]).map_err(|e| crate::bad_arg(py, "num_envs", e.to_string()))?.unbind(),
                seat: PyArray1::zeros(py, num_envs, false).unbind(),
                reward: PyArray2::zeros(py, [num_envs, 4], false).unbind(),
                done: PyArray1::from_vec(py, vec![false; num_envs]).unbind(),
                info: PyArray2::zeros(py, [num_envs, INFO], false).unbind(),
            })
        })
    }

    fn __len__(&self) -> usize {
        self.v.len()
    }

    /// Starts environments `rows` (every one when None) anew, from `seed` when given (it
    /// then stays the seed of later resets); (obs, mask, seat, reward, done).
    #[pyo3(signature = (seed=None, rows=None))]
    fn reset(&mut self, py: Python<'_>, seed: Option<u64>, rows: Option<Vec<usize>>) -> PyResult<Out> {
        guard(py, || {
            let before = self.v.seed();
            if let Some(s) = seed {
                self.v.set_seed(s);
            }
            let out = self.with_buffers(py, Reset(rows));
            if out.is_err() {
                self.v.set_seed(before); // a refused reset changes nothing
            }
            out
        })
    }

    /// Steps every environment with its action id, or only `rows` (adding to their rewards,
    /// done flags and forced counts); (obs, mask, seat, reward, done).
    #[pyo3(signature = (actions, rows=None))]
    fn step(&mut self, py: Python<'_>, actions: &Bound<'_, PyArray1<i64>>, rows: Option<Vec<usize>>) -> PyResult<Out> {
        guard(py, || {
            // the ids are copied and the array let go before the buffers are written: the
            // actions may be a view of one of them
            let a = {
                let r = actions.try_readonly().map_err(|e| crate::bad_arg(py, "actions", e.to_string()))?;
                r.as_slice().map_err(|e| crate::bad_arg(py, "actions", e.to_string()))?.to_vec()
            };
            self.with_buffers(py, Step(rows, a))
        })
    }

    /// The info columns of the last call, (n, INFO) int32 (see INFO_FIELDS).
    fn info(&self, py: Python<'_>) -> Py<PyArray2<i32>> {
        self.info.clone_ref(py)
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
