//! tractor._core: thin PyO3 bindings over tractor-core.
//!
//! Count arrays cross the boundary as 54-byte `bytes`; batches as `n × 54` bytes. Every entry
//! point runs inside [`guard`], so a Rust panic surfaces as `tractor.TractorError`, never as
//! pyo3's `PanicException`. Errors become the classes of `tractor.errors`.
// Tuples are the plain shape of values crossing into Python.
#![allow(clippy::type_complexity)]

mod errors;
mod game;
mod net;
mod search;
mod sim;
mod train;
mod vec_env;

use std::panic::{catch_unwind, AssertUnwindSafe};

// The extension's allocator: mimalloc (its v2 series, with the TLS model of a library loaded by
// dlopen) rather than the C library's. A later info set's first exact world makes tens of
// allocations (its counting tables): from Python, mid-hand, 39.1 -> 36.6 us with the same code,
// the hand's first 162 -> 142 us (4 runs each, alternately, BENCHMARKS.md "Since worlds keep who
// was asked"); simulate, searches and the solver unchanged within noise; a simulate's peak RSS
// ~20 MiB higher and still flat.
#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};
use tractor_core as core;
use tractor_core::Error;
use tractor_core::rules::card::{Counts, KINDS};
use tractor_core::rules::checked;
use tractor_core::rules::profile::Switch;

/// Runs `f`, turning a panic into a `TractorError`.
fn guard<T>(py: Python<'_>, f: impl FnOnce() -> PyResult<T>) -> PyResult<T> {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(r) => r,
        Err(payload) => {
            let msg = payload
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown".into());
            Err(raise(py, "TractorError", &format!("internal error (please report): {msg}"), None))
        }
    }
}

pub(crate) use errors::{action_err, bad_arg, follow_err, raise};

/// The Python exception of a core error (see [`errors`], the one place errors are mapped).
pub(crate) fn err(py: Python<'_>, e: Error) -> PyErr {
    errors::to_py(py, e)
}

fn counts(py: Python<'_>, b: &[u8], what: &str) -> PyResult<Counts> {
    let arr: Counts = b.try_into().map_err(|_| {
        raise(py, "InvalidCards", &format!("{what}: a count array needs {KINDS} entries, got {}", b.len()), None)
    })?;
    core::rules::card::check_counts(&arr).map_err(|e| err(py, e))?;
    Ok(arr)
}

/// The rows of an n × 54 byte batch (`what` names the argument in errors).
fn rows(py: Python<'_>, data: &[u8], what: &'static str) -> PyResult<Vec<Counts>> {
    if data.len() % KINDS != 0 {
        return Err(bad_arg(py, what, format!("expected n × {KINDS} bytes, got {}", data.len())));
    }
    Ok(data.chunks_exact(KINDS).map(|r| r.try_into().expect("a row of 54")).collect())
}

fn out(py: Python<'_>, c: &Counts) -> Py<PyBytes> {
    PyBytes::new(py, c).unbind()
}

/// Level, trump suit and profile: the rules of one hand.
#[pyclass(module = "tractor._core", frozen)]
struct Context {
    ctx: core::Context,
}

#[pymethods]
impl Context {
    #[new]
    fn new(py: Python<'_>, level: u8, trump: u8, profile: &str) -> PyResult<Self> {
        guard(py, || {
            let p = core::Profile::parse(profile).map_err(|e| err(py, e))?;
            let ctx = core::Context::new(level, trump, p).map_err(|e| err(py, e))?;
            Ok(Context { ctx })
        })
    }

    #[getter]
    fn level(&self) -> u8 {
        self.ctx.level
    }
    #[getter]
    fn trump(&self) -> u8 {
        self.ctx.trump
    }
    #[getter]
    fn profile(&self) -> &'static str {
        self.ctx.rules.profile.name()
    }

    /// Suit class (0..3 plain suits, 4 trump) of each kind, as 54 bytes.
    fn classes<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, &self.ctx.class)
    }

    /// Strength of each kind for comparing units (R2.3, R2.4), as 54 bytes.
    fn strengths<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, &self.ctx.strength)
    }

    /// The kind linked above each kind (R3.3), 255 for none, as 54 bytes.
    fn links<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, &self.ctx.up)
    }

    /// (kind, multiplicity, units, is_trump, key) or None.
    fn classify(&self, py: Python<'_>, cards: &[u8]) -> PyResult<Option<(&'static str, u8, u8, bool, u32)>> {
        guard(py, || {
            let c = counts(py, cards, "cards")?;
            Ok(core::classify(&self.ctx, &c).map(|x| (x.kind_name(), x.m, x.k, x.is_trump(), x.key())))
        })
    }

    /// Batch classify over n×54 bytes: (kind code 0 none/1 single/2 pair/3 triple/4 bomb/5 tractor,
    /// multiplicity, units, is_trump), each n bytes. Releases the GIL.
    fn classify_batch(&self, py: Python<'_>, data: &[u8]) -> PyResult<(Py<PyBytes>, Py<PyBytes>, Py<PyBytes>, Py<PyBytes>)> {
        guard(py, || {
            let rows = rows(py, data, "counts")?;
            let ctx = self.ctx;
            let res = py.detach(|| checked::classify_batch(&ctx, &rows)).map_err(|e| err(py, e))?;
            let code = |x: &Option<core::Combo>| -> [u8; 4] {
                match x {
                    None => [0, 0, 0, 0],
                    Some(x) => [if x.k >= 2 { 5 } else { x.m }, x.m, x.k, x.is_trump() as u8],
                }
            };
            let coded: Vec<[u8; 4]> = res.iter().map(code).collect();
            let col = |j: usize| PyBytes::new(py, &coded.iter().map(|r| r[j]).collect::<Vec<u8>>()).unbind();
            Ok((col(0), col(1), col(2), col(3)))
        })
    }

    /// Every distinct combination in the hand.
    fn legal_leads(&self, py: Python<'_>, hand: &[u8]) -> PyResult<Vec<Py<PyBytes>>> {
        guard(py, || {
            let h = counts(py, hand, "hand")?;
            Ok(core::legal_leads(&self.ctx, &h).iter().map(|c| out(py, &c.counts(&self.ctx))).collect())
        })
    }

    /// Index of the winning play (R6).
    fn trick_winner(&self, py: Python<'_>, plays: Vec<Vec<u8>>) -> PyResult<usize> {
        guard(py, || {
            let mut cs = Vec::with_capacity(plays.len());
            for (i, p) in plays.iter().enumerate() {
                cs.push(counts(py, p, &format!("plays[{i}]"))?);
            }
            checked::trick_winner(&self.ctx, &cs).map_err(|e| err(py, e))
        })
    }

    /// Raises the IllegalFollow (with rule, tiers, example) or an input error; None if legal.
    fn follow_check(&self, py: Python<'_>, hand: &[u8], lead: &[u8], play: &[u8]) -> PyResult<()> {
        guard(py, || {
            let (h, l, p) = (counts(py, hand, "hand")?, counts(py, lead, "lead")?, counts(py, play, "play")?);
            let f = checked::follow(&self.ctx, &h, &l).map_err(|e| err(py, e))?;
            checked::play_in_hand(&f, &p).map_err(|e| err(py, e))?;
            match f.violation(&p) {
                None => Ok(()),
                Some(v) => Err(follow_err(py, Error::IllegalFollow(v), checked::example_follow(&f))),
            }
        })
    }

    fn is_legal_follow(&self, py: Python<'_>, hand: &[u8], lead: &[u8], play: &[u8]) -> PyResult<bool> {
        guard(py, || {
            let (h, l, p) = (counts(py, hand, "hand")?, counts(py, lead, "lead")?, counts(py, play, "play")?);
            let f = checked::follow(&self.ctx, &h, &l).map_err(|e| err(py, e))?;
            checked::play_in_hand(&f, &p).map_err(|e| err(py, e))?;
            Ok(f.is_legal(&p))
        })
    }

    /// Batch legality over n×54 hands, leads and plays; 1 legal, 0 illegal (including plays
    /// of the wrong size or not in the hand). Raises on invalid hands or leads. Releases the GIL.
    fn is_legal_follow_batch(&self, py: Python<'_>, hands: &[u8], leads: &[u8], plays: &[u8]) -> PyResult<Py<PyBytes>> {
        guard(py, || {
            let (h, l, p) = (rows(py, hands, "hands")?, rows(py, leads, "leads")?, rows(py, plays, "plays")?);
            let ctx = self.ctx;
            let res = py.detach(|| checked::is_legal_follow_batch(&ctx, &h, &l, &p)).map_err(|e| err(py, e))?;
            let v: Vec<u8> = res.iter().map(|&b| b as u8).collect();
            Ok(PyBytes::new(py, &v).unbind())
        })
    }

    /// Every distinct legal follow; raises TooManyFollows past `limit`.
    fn legal_follows(&self, py: Python<'_>, hand: &[u8], lead: &[u8], limit: u128) -> PyResult<Vec<Py<PyBytes>>> {
        guard(py, || {
            let (h, l) = (counts(py, hand, "hand")?, counts(py, lead, "lead")?);
            let f = checked::follow(&self.ctx, &h, &l).map_err(|e| err(py, e))?;
            let all = f.legal_set(&[0; KINDS]).all(limit).map_err(|count| err(py, Error::TooMany { limit, count }))?;
            Ok(all.iter().map(|c| out(py, c)).collect())
        })
    }

    fn count_legal_follows(&self, py: Python<'_>, hand: &[u8], lead: &[u8]) -> PyResult<u128> {
        guard(py, || {
            let (h, l) = (counts(py, hand, "hand")?, counts(py, lead, "lead")?);
            let f = checked::follow(&self.ctx, &h, &l).map_err(|e| err(py, e))?;
            Ok(f.legal_set(&[0; KINDS]).count())
        })
    }

    /// The `index`-th legal follow in the engine's fixed order (0 ≤ index < count).
    fn nth_legal_follow(&self, py: Python<'_>, hand: &[u8], lead: &[u8], index: u128) -> PyResult<Py<PyBytes>> {
        guard(py, || {
            let (h, l) = (counts(py, hand, "hand")?, counts(py, lead, "lead")?);
            let f = checked::follow(&self.ctx, &h, &l).map_err(|e| err(py, e))?;
            let mut set = f.legal_set(&[0; KINDS]);
            let total = set.count();
            match set.nth(index) {
                Some(c) => Ok(out(py, &c)),
                None => Err(bad_arg(py, "index", format!("{index} is out of range: {total} legal follows"))),
            }
        })
    }

    /// One legal follow, uniform over the distinct ones, from xoshiro256** seeded with `seed`.
    fn random_follow(&self, py: Python<'_>, hand: &[u8], lead: &[u8], seed: u64) -> PyResult<Py<PyBytes>> {
        guard(py, || {
            let (h, l) = (counts(py, hand, "hand")?, counts(py, lead, "lead")?);
            let f = checked::follow(&self.ctx, &h, &l).map_err(|e| err(py, e))?;
            let mut rng = core::Rng::new(seed);
            let c = f.legal_set(&[0; KINDS]).sample(&mut rng).expect("a position always has a legal follow");
            Ok(out(py, &c))
        })
    }

    /// 54 bytes: 1 where adding one card of that kind to `partial` can still be completed.
    fn follow_completions(&self, py: Python<'_>, hand: &[u8], lead: &[u8], partial: &[u8]) -> PyResult<Py<PyBytes>> {
        guard(py, || {
            let (h, l, p) = (counts(py, hand, "hand")?, counts(py, lead, "lead")?, counts(py, partial, "partial")?);
            let f = checked::follow(&self.ctx, &h, &l).map_err(|e| err(py, e))?;
            let ok = f.completions(&p);
            let v: Vec<u8> = ok.iter().map(|&b| b as u8).collect();
            Ok(PyBytes::new(py, &v).unbind())
        })
    }

    /// The ladder's demand here: (tier, longest tractor L*, pairs P*).
    fn follow_requirement(&self, py: Python<'_>, hand: &[u8], lead: &[u8]) -> PyResult<(&'static str, u8, u8)> {
        guard(py, || {
            let (h, l) = (counts(py, hand, "hand")?, counts(py, lead, "lead")?);
            let f = checked::follow(&self.ctx, &h, &l).map_err(|e| err(py, e))?;
            let (tl, tp) = match f.case {
                core::Case::Ladder { l, p } => (l, p),
                core::Case::Key(k) => (k.l[0], k.p), // C5: the longest tractor of L*, and p*
                _ => (0, 0),
            };
            Ok((f.required_tier().name(), tl, tp))
        })
    }
}

/// Card ids of a text in notation.
#[pyfunction]
fn parse(py: Python<'_>, text: &str) -> PyResult<Vec<u8>> {
    guard(py, || core::rules::card::parse(text).map(|v| v.iter().map(|c| c.0).collect()).map_err(|e| err(py, e)))
}

/// The 54-byte count array of card ids (`what` names the argument in errors).
#[pyfunction]
fn counts_of_ids<'py>(py: Python<'py>, ids: Vec<i64>, what: &str) -> PyResult<Bound<'py, PyBytes>> {
    guard(py, || {
        let mut c = [0u8; KINDS];
        for id in ids {
            if !(0..KINDS as i64).contains(&id) {
                return Err(err(py, Error::BadCard(id)));
            }
            c[id as usize] += 1;
            if c[id as usize] > core::rules::card::COPIES {
                let card = core::Card(id as u8);
                let msg = format!("R1.2: {what} holds {} copies of {card}, but four decks hold only 4", c[id as usize]);
                return Err(raise(py, "TooManyCopies", &msg, None));
            }
        }
        Ok(PyBytes::new(py, &c))
    })
}

/// The count array of a text in notation.
#[pyfunction]
fn counts_of_text<'py>(py: Python<'py>, text: &str, what: &str) -> PyResult<Bound<'py, PyBytes>> {
    let ids: Vec<i64> = guard(py, || {
        core::rules::card::parse(text).map(|v| v.iter().map(|c| c.0 as i64).collect()).map_err(|e| err(py, e))
    })?;
    counts_of_ids(py, ids, what)
}

/// The card ids of a count array, in kind order.
#[pyfunction]
fn ids_of_counts(counts: &[u8]) -> Vec<u8> {
    let mut v = Vec::with_capacity(KINDS);
    for (k, &n) in counts.iter().enumerate().take(KINDS) {
        for _ in 0..n {
            v.push(k as u8);
        }
    }
    v
}

/// Canonical text of card ids.
#[pyfunction]
fn format(py: Python<'_>, ids: Vec<i64>) -> PyResult<String> {
    guard(py, || {
        let mut cards = Vec::with_capacity(ids.len());
        for id in ids {
            if !(0..KINDS as i64).contains(&id) {
                return Err(err(py, Error::BadCard(id)));
            }
            cards.push(core::Card(id as u8));
        }
        Ok(core::rules::card::format(&cards))
    })
}

/// Parses a level (3..14 or "3".."10", "J", "Q", "K", "A").
#[pyfunction]
fn parse_level(py: Python<'_>, text: &str) -> PyResult<u8> {
    guard(py, || core::rules::trump::parse_level(text).map_err(|e| err(py, e)))
}

/// Parses a suit letter or symbol to 0..3.
#[pyfunction]
fn parse_suit(py: Python<'_>, text: &str) -> PyResult<u8> {
    guard(py, || core::rules::trump::parse_suit(text).map_err(|e| err(py, e)))
}

/// R7.4: (score read, banker levels, defender levels, defenders take over).
#[pyfunction]
fn outcome(py: Python<'_>, score: i64, profile: &str) -> PyResult<(i64, u32, u32, bool)> {
    guard(py, || {
        let rules = core::Profile::parse(profile).map_err(|e| err(py, e))?.rules();
        // The most a hand can score is 400 + 400·54 either way; refuse rather than truncate.
        let s = i32::try_from(score)
            .ok()
            .filter(|s| s.abs() <= 1_000_000)
            .ok_or_else(|| bad_arg(py, "score", format!("{score} is out of range (|score| ≤ 1000000)")))?;
        let o = core::outcome(s, &rules);
        Ok((o.score as i64, o.banker_levels, o.defender_levels, o.defenders_take_over))
    })
}

/// The canonical name of a profile (case and surrounding spaces ignored); raises for an
/// unknown one.
#[pyfunction]
fn profile_name(py: Python<'_>, name: &str) -> PyResult<&'static str> {
    guard(py, || core::Profile::parse(name).map(|p| p.name()).map_err(|e| err(py, e)))
}

/// The most levels one hand of `profile` can give a team (R7.4).
#[pyfunction]
fn max_levels(py: Python<'_>, profile: &str) -> PyResult<u32> {
    guard(py, || Ok(core::rules::score::max_levels(&core::Profile::parse(profile).map_err(|e| err(py, e))?.rules())))
}

/// The most action ids one hand of `profile` can take (OpenSpiel's max game length).
#[pyfunction]
fn max_steps(py: Python<'_>, profile: &str) -> PyResult<usize> {
    guard(py, || Ok(core::encode::actions::max_steps(&core::Profile::parse(profile).map_err(|e| err(py, e))?.rules())))
}

/// Every variant switch of a profile (docs/rules.md §9–10), by its field name in
/// `tractor_core::rules::profile::Rules`.
#[pyfunction]
fn profile_rules<'py>(py: Python<'py>, name: &str) -> PyResult<Bound<'py, PyDict>> {
    guard(py, || {
        let r = core::Profile::parse(name).map_err(|e| err(py, e))?.rules();
        let d = PyDict::new(py);
        for (field, value) in r.switches() {
            match value {
                Switch::Flag(b) => d.set_item(field, b)?,
                Switch::Count(n) => d.set_item(field, n)?,
                Switch::Name(s) => d.set_item(field, s)?,
            }
        }
        Ok(d)
    })
}

/// The first draw of xoshiro256** seeded with `seed`, uniform in 0..n.
#[pyfunction]
fn uniform_below(py: Python<'_>, seed: u64, n: u128) -> PyResult<u128> {
    guard(py, || {
        if n == 0 {
            return Err(bad_arg(py, "n", "must be positive"));
        }
        Ok(core::Rng::new(seed).below(n))
    })
}

/// `derive(seed, tag, index)` of tractor_core::util::seed: the documented seed derivation.
#[pyfunction]
fn derive_seed(seed: u64, tag: u64, index: u64) -> u64 {
    core::util::seed::derive(seed, tag, index)
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", core::VERSION)?;
    m.add_class::<Context>()?;
    m.add_class::<game::PyGame>()?;
    m.add_class::<game::PyMatch>()?;
    m.add_class::<game::PyPlayer>()?;
    m.add_class::<vec_env::PyVecEnv>()?;
    m.add_class::<net::PyNet>()?;
    // the facts Python, the CLI and the adapters read instead of spelling them again
    m.add("PROFILES", core::Profile::ALL.map(|p| p.name()).to_vec())?;
    m.add("SUITS", core::rules::card::SUITS.iter().collect::<String>())?;
    m.add("AGENTS", core::Agent::ALL.iter().map(|a| a.name()).collect::<Vec<_>>())?;
    m.add("SEARCHES", core::Policy::SEARCHES.to_vec())?;
    m.add("SOLVE_PARTITION_FROM", core::search::solve::PARTITION_FROM)?;
    m.add("POLICIES", core::Policy::names())?;
    m.add("PRESETS", core::Policy::PRESETS.to_vec())?;
    m.add("TUNED", core::Agent::TUNED.to_vec())?;
    m.add("KINDS", core::KINDS)?;
    m.add("NUM_ACTIONS", core::encode::actions::ACTIONS)?;
    m.add("END_LEAD", core::encode::actions::END_LEAD)?;
    m.add("PASS", core::encode::actions::PASS)?;
    m.add("SHOW", core::encode::actions::SHOW)?;
    m.add_function(wrap_pyfunction!(profile_rules, m)?)?;
    {
        // every observation version the core writes: {version: {"dim", "layout", "scale",
        // "scale_u8"}}; Python sizes observations from this table
        use core::encode::observe::{encoding, DEFAULT_VERSION, ENCODINGS, OBS_DIM, OBS_VERSION};
        let table = PyDict::new(m.py());
        for e in ENCODINGS {
            table.set_item(e.version, encoding_dict(m.py(), e)?)?;
        }
        m.add("OBS_ENCODINGS", table)?;
        m.add("OBS_DEFAULT_VERSION", DEFAULT_VERSION)?;
        // version 1's, under the names it had before there were versions (public API)
        let v1 = encoding(OBS_VERSION).expect("version 1 is in the table");
        m.add("OBS_VERSION", OBS_VERSION)?;
        m.add("OBS_DIM", OBS_DIM)?;
        m.add("OBS_SCALE", v1.scales())?;
        m.add("OBS_SCALE_U8", v1.scales_u8())?;
        m.add("OBS_LAYOUT", v1.layout.iter().map(|b| (b.0, b.1, b.2, b.3)).collect::<Vec<_>>())?;
    }
    m.add("VEC_ENV_INFO", core::learn::vec_env::INFO_FIELDS.iter().map(|f| (f.0, f.1)).collect::<Vec<_>>())?;
    m.add("NET_FORMAT_VERSION", core::agent::net::FORMAT_VERSION)?;
    {
        use core::agent::weights::Weights;
        let w = (0..Weights::NAMES.len()).map(|i| (Weights::NAMES[i], Weights::GREEDY.get(i), Weights::RANGES[i].0, Weights::RANGES[i].1));
        m.add("GREEDY_WEIGHTS", w.collect::<Vec<_>>())?;
    }
    m.add("INFO_DIM", core::encode::info_state::INFO_DIM)?;
    m.add("INFO_VERSION", core::encode::info_state::INFO_VERSION)?;
    m.add("INFO_LAYOUT", core::encode::info_state::INFO_LAYOUT.iter().map(|b| (b.0, b.1.to_vec(), b.2)).collect::<Vec<_>>())?;
    m.add("INFO_LAYOUT_COMPACT", core::encode::info_state::INFO_LAYOUT_COMPACT.iter().map(|b| (b.0, b.1.to_vec(), b.2)).collect::<Vec<_>>())?;
    m.add("INFO_DIM_COMPACT", core::encode::info_state::INFO_DIM_COMPACT)?;
    m.add("INFO_VERSION_COMPACT", core::encode::info_state::INFO_VERSION_COMPACT)?;
    m.add_function(wrap_pyfunction!(max_steps, m)?)?;
    m.add_function(wrap_pyfunction!(max_levels, m)?)?;
    m.add_function(wrap_pyfunction!(encode_action, m)?)?;
    m.add_function(wrap_pyfunction!(canonical_ids, m)?)?;
    m.add_function(wrap_pyfunction!(obs_encoding, m)?)?;
    m.add_function(wrap_pyfunction!(decode_action, m)?)?;
    m.add_function(wrap_pyfunction!(parse, m)?)?;
    m.add_function(wrap_pyfunction!(format, m)?)?;
    m.add_function(wrap_pyfunction!(counts_of_ids, m)?)?;
    m.add_function(wrap_pyfunction!(counts_of_text, m)?)?;
    m.add_function(wrap_pyfunction!(ids_of_counts, m)?)?;
    m.add_function(wrap_pyfunction!(parse_level, m)?)?;
    m.add_function(wrap_pyfunction!(parse_suit, m)?)?;
    m.add_function(wrap_pyfunction!(outcome, m)?)?;
    m.add_function(wrap_pyfunction!(profile_name, m)?)?;
    m.add_function(wrap_pyfunction!(uniform_below, m)?)?;
    m.add_function(wrap_pyfunction!(sim::simulate_hands, m)?)?;
    m.add_function(wrap_pyfunction!(train::self_play, m)?)?;
    m.add_function(wrap_pyfunction!(train::play_features, m)?)?;
    m.add_function(wrap_pyfunction!(train::base_weights_text, m)?)?;
    m.add_function(wrap_pyfunction!(train::check_play_net, m)?)?;
    m.add_function(wrap_pyfunction!(train::play_candidates, m)?)?;
    m.add("PLAY_DIM", core::agent::play_features::v1::DIM)?; // version 1's, frozen: ask play_features(version)
    m.add_function(wrap_pyfunction!(train::play_feature_versions, m)?)?;
    m.add_function(wrap_pyfunction!(sim::simulate_matches, m)?)?;
    m.add_function(wrap_pyfunction!(sim::replay_record, m)?)?;
    m.add_function(wrap_pyfunction!(sim::result_schema, m)?)?;
    m.add_class::<sim::PyRecordReader>()?;
    m.add_class::<sim::PyRecordsWriter>()?;
    m.add_class::<sim::PyTable>()?;
    m.add_function(wrap_pyfunction!(derive_seed, m)?)?;
    m.add_function(wrap_pyfunction!(search::info, m)?)?;
    m.add_function(wrap_pyfunction!(search::determinize, m)?)?;
    m.add_function(wrap_pyfunction!(search::search_seeds, m)?)?;
    m.add_function(wrap_pyfunction!(search::rollouts, m)?)?;
    m.add_function(wrap_pyfunction!(search::run_search, m)?)?;
    m.add_function(wrap_pyfunction!(search::solve, m)?)?;
    m.add_class::<search::PySearcher>()?;
    m.add_function(wrap_pyfunction!(search::policy_name, m)?)?;
    m.add("RECORD_FORMAT", core::game::record_json::FORMAT)?;
    let suites: Vec<(&str, u64, u64, u64)> = core::run::suite::SUITES.iter().map(|s| (s.name, s.seed, s.deals, s.matches)).collect();
    m.add("DEAL_SUITES", suites)?;
    m.add("RECORD_VERSION", core::game::record_json::VERSION)?;
    m.add("DEAL_TAG", core::util::seed::DEAL)?;
    m.add("MATCH_HAND_TAG", core::util::seed::MATCH_HAND)?;
    m.add("BATCH_HAND_TAG", core::util::seed::BATCH_HAND)?;
    m.add("POLICY_TAG", core::util::seed::POLICY)?;
    m.add("SEARCH_TAG", core::util::seed::SEARCH)?;
    m.add("VEC_ENV_TAG", core::util::seed::VEC_ENV)?;
    m.add("MATCH_TAG", core::util::seed::MATCH)?;
    m.add("TEACHER_TAG", core::util::seed::TEACHER)?;
    Ok(())
}

/// The ids of an action: ("pass" | "declare" | "play", suit, count, cards, lead).
#[pyfunction]
#[pyo3(signature = (kind, suit, count, cards, lead))]
fn encode_action(py: Python<'_>, kind: &str, suit: u8, count: u8, cards: Option<Vec<u8>>, lead: bool) -> PyResult<Vec<u8>> {
    guard(py, || {
        let a = match kind {
            "pass" => core::Action::Pass,
            "declare" if suit < 4 && (1..=4).contains(&count) => core::Action::Declare { suit, count },
            "declare" => return Err(bad_arg(py, "action", format!("a showing is 1..=4 cards of suit 0..3, got {count} of {suit}"))),
            _ => {
                let c = counts(py, &cards.unwrap_or_default(), "play")?;
                if core::rules::card::size(&c) == 0 {
                    return Err(bad_arg(py, "action", "a play needs at least one card"));
                }
                core::Action::Play(c)
            }
        };
        Ok(core::encode::actions::encode(&a, lead))
    })
}

/// The action of a complete id sequence: ("pass" | "declare" | "play", suit, count, cards).
#[pyfunction]
fn decode_action(py: Python<'_>, ids: Vec<i64>) -> PyResult<(&'static str, u8, u8, Option<Py<PyBytes>>)> {
    guard(py, || {
        let mut v = Vec::with_capacity(ids.len());
        for (i, &id) in ids.iter().enumerate() {
            v.push(u8::try_from(id).ok().filter(|&x| (x as usize) < core::encode::actions::ACTIONS).ok_or_else(|| {
                bad_arg(py, "ids", format!("ids[{i}] = {id} is not an action id (0..={})", core::encode::actions::ACTIONS - 1))
            })?);
        }
        Ok(match core::encode::actions::decode(&v).map_err(|e| err(py, e))? {
            core::Action::Pass => ("pass", 0, 0, None),
            core::Action::Declare { suit, count } => ("declare", suit, count, None),
            core::Action::Play(c) => ("play", 0, 0, Some(out(py, &c))),
        })
    })
}

/// An observation encoding as Python reads it: {"version", "dim", "layout", "scale",
/// "scale_u8"}.
fn encoding_dict<'py>(py: Python<'py>, e: &core::encode::observe::Encoding) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("version", e.version)?;
    d.set_item("dim", e.dim)?;
    d.set_item("layout", e.layout.iter().map(|b| (b.0, b.1, b.2, b.3)).collect::<Vec<_>>())?;
    d.set_item("scale", e.scales())?;
    d.set_item("scale_u8", e.scales_u8())?;
    Ok(d)
}

/// The encoding of observation version `version` (as in `OBS_ENCODINGS`); InvalidArgument
/// naming the known versions if there is none.
#[pyfunction]
fn obs_encoding(py: Python<'_>, version: u32) -> PyResult<Bound<'_, PyDict>> {
    let e = core::encode::observe::encoding(version).map_err(|e| err(py, e))?;
    encoding_dict(py, e)
}

/// Action ids renamed as canonical observations rename suits, for a known trump 0..3 (4:
/// unknown, unchanged).
#[pyfunction]
fn canonical_ids(py: Python<'_>, trump: u8) -> PyResult<Vec<u8>> {
    if trump > 4 {
        return Err(err(py, Error::BadArgument { what: "trump", message: format!("0..3 or 4 (unknown), got {trump}") }));
    }
    Ok(core::encode::observe::canonical_ids(trump).to_vec())
}
