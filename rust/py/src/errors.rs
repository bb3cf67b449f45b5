//! The one place where core errors become Python exceptions.
//!
//! The exception classes are defined once, in `python/tractor/errors.py` (all of them
//! `TractorError`, a `ValueError`); [`class_of`] names the class of each core error variant,
//! and [`to_py`] builds it. Every binding maps errors through here: `err(py, e)` for a plain
//! error, [`follow_err`] for an illegal follow (it carries the rule, the tiers and an example),
//! [`action_err`] for a refused game action.

use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};
use tractor_core::Error;
use tractor_core::game::record_json::Refusal;
use tractor_core::rules::card::Counts;

/// The `tractor.errors` class of a core error: one class per kind of fault.
pub fn class_of(e: &Error) -> &'static str {
    match e {
        Error::BadToken(_) | Error::BadCard(_) => "CardParseError",
        Error::TooManyCopies { .. } => "TooManyCopies",
        Error::BadLevel(_) | Error::BadSuit(_) | Error::BadProfile(_) => "InvalidContext",
        Error::NotACombination(_) => "NotACombination",
        Error::BadTrick(_) => "InvalidPlays",
        Error::NotInHand(_) => "CardsNotInHand",
        Error::WrongCount { .. } => "WrongCardCount",
        Error::TooMany { .. } => "TooManyFollows",
        Error::IllegalFollow(_) => "IllegalFollow",
        Error::IllegalAction { .. } => "IllegalAction",
        Error::BadSeat { .. } => "InvalidSeat",
        Error::BadDeal(_) => "InvalidDeal",
        Error::BadPolicy(_) => "InvalidPolicy",
        Error::BadArgument { .. } => "InvalidArgument",
        Error::ForeignHand(_) => "ForeignHand",
        Error::CorruptRecord(_) => "InvalidRecord",
        Error::NoWorld(_) => "NoConsistentWorld",
        Error::Resource(_) => "ResourceError",
        Error::InRow { error, .. } => class_of(error),
    }
}

/// Builds an exception of class `name` from `tractor.errors`.
pub fn raise(py: Python<'_>, name: &str, msg: &str, kwargs: Option<Bound<'_, PyDict>>) -> PyErr {
    let made = (|| -> PyResult<PyErr> {
        let cls = py.import("tractor.errors")?.getattr(name)?;
        let exc = cls.call((msg,), kwargs.as_ref())?;
        Ok(PyErr::from_value(exc))
    })();
    made.unwrap_or_else(|e| e)
}

/// The Python exception of a core error.
pub fn to_py(py: Python<'_>, e: Error) -> PyErr {
    if let Error::IllegalFollow(_) = e {
        return follow_err(py, e, None);
    }
    raise(py, class_of(&e), &e.to_string(), None)
}

/// An `IllegalFollow` with its attributes (rule, required and met tiers, one legal example);
/// any other error as [`to_py`].
pub fn follow_err(py: Python<'_>, e: Error, example: Option<Counts>) -> PyErr {
    let msg = e.to_string();
    follow_err_saying(py, e, example, &msg)
}

/// [`follow_err`] with another message (the error's place in front of it).
fn follow_err_saying(py: Python<'_>, e: Error, example: Option<Counts>, msg: &str) -> PyErr {
    let Error::IllegalFollow(v) = &e else {
        return to_py(py, e);
    };
    let kw = PyDict::new(py);
    let set = || -> PyResult<()> {
        kw.set_item("rule", v.rule)?;
        kw.set_item("required_tier", v.required.name())?;
        kw.set_item("met_tier", v.met.name())?;
        kw.set_item("example", example.map(|c| PyBytes::new(py, &c)))?;
        Ok(())
    };
    if let Err(x) = set() {
        return x;
    }
    raise(py, "IllegalFollow", msg, Some(kw))
}

/// A refused game action: every refusal is an `IllegalAction` (or a subclass: an illegal
/// follow, cards not held, a wrong count), except malformed cards, which keep their class.
pub fn action_err(py: Python<'_>, e: Error, example: Option<Counts>) -> PyErr {
    match e {
        Error::IllegalFollow(_) => follow_err(py, e, example),
        Error::BadToken(_) | Error::BadCard(_) | Error::TooManyCopies { .. } | Error::NotInHand(_) | Error::WrongCount { .. } => {
            to_py(py, e)
        }
        e => raise(py, "IllegalAction", &e.to_string(), None),
    }
}

/// A JSON hand record that was not read: `InvalidRecord`, but for a decision the rules
/// refused, which keeps the class a game action's refusal has ([`action_err`]: an illegal
/// follow, cards not held, a wrong count, another `IllegalAction`), its place in front.
pub fn record_err(py: Python<'_>, r: Refusal) -> PyErr {
    let msg = r.to_string();
    let Refusal::Refused { error, before, .. } = r else {
        return raise(py, "InvalidRecord", &msg, None);
    };
    match error {
        Error::IllegalFollow(_) => {
            let example = before.pos.follow().and_then(|f| tractor_core::rules::checked::example_follow(&f));
            follow_err_saying(py, error, example, &msg)
        }
        Error::NotInHand(_) | Error::WrongCount { .. } | Error::IllegalAction { .. } | Error::BadSeat { .. } => {
            raise(py, class_of(&error), &msg, None)
        }
        Error::BadToken(_) | Error::BadCard(_) | Error::TooManyCopies { .. } | Error::BadSuit(_) | Error::BadArgument { .. } => {
            raise(py, "InvalidRecord", &msg, None)
        }
        // any other refusal of Game::apply is an IllegalAction, as action_err makes it
        _ => raise(py, "IllegalAction", &msg, None),
    }
}

/// An argument error of the binding itself (a wrong length, a value out of range).
pub fn bad_arg(py: Python<'_>, what: &'static str, message: impl Into<String>) -> PyErr {
    to_py(py, Error::BadArgument { what, message: message.into() })
}
