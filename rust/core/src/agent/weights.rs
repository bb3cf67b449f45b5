//! The weights of [`crate::agent::greedy`]: the whole numbers its choices are scored with,
//! named, so that they can be tuned (learned by self-play: `examples/tune_greedy.py`) and a
//! tuned set played as a policy, `greedy:NAME=V/NAME=V/...` ([`Tuned`]). [`Weights::GREEDY`]
//! is the `greedy` policy itself. Integers only: no float decides play.
//!
//! The names and greedy's values are frozen like the action ids (a shipped tuned agent is a
//! list of them): a new weight enters with the value that leaves every decision unchanged.

use std::sync::Mutex;

use crate::rules::error::Error;

/// Defines [`Weights`] and its table of names, defaults and ranges from one list.
macro_rules! weights {
    ($($(#[$doc:meta])* $field:ident: $default:literal in $lo:literal..=$hi:literal;)*) => {
        /// The weights greedy scores with (see each field); [`Weights::GREEDY`] is `greedy`.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub struct Weights {
            $($(#[$doc])* pub $field: i32,)*
        }

        /// Each weight's allowed values (lowest, highest), by the weight's name
        /// ([`Weights::RANGE`]).
        #[derive(Clone, Copy, Debug)]
        pub struct Ranges {
            $(pub $field: (i32, i32),)*
        }

        impl Weights {
            /// The `greedy` policy's weights.
            pub const GREEDY: Weights = Weights { $($field: $default,)* };
            /// Each weight's name, in the order names are written.
            pub const NAMES: &'static [&'static str] = &[$(stringify!($field)),*];
            /// Each weight's allowed values, in the order of [`Weights::NAMES`].
            pub const RANGES: &'static [(i32, i32)] = &[$(($lo, $hi)),*];
            /// Each weight's allowed values by name.
            pub const RANGE: Ranges = Ranges { $($field: ($lo, $hi),)* };

            /// The weight at `i` in [`Weights::NAMES`].
            pub fn get(&self, i: usize) -> i32 {
                [$(self.$field),*][i]
            }

            /// Sets the weight at `i` in [`Weights::NAMES`] (unchecked: [`Weights::parse`]
            /// checks the ranges).
            fn set(&mut self, i: usize, v: i32) {
                let slots = [$(&mut self.$field),*];
                *slots[i] = v;
            }
        }
    };
}

weights! {
    /// Leading: the strongest trump combination is kept for the last trick (×N, R7.3) once
    /// this many cards or fewer are held.
    keep_left: 12 in 0..=54;
    /// Leading: a plain combination topped by an ace (ties go to the earlier play, R6.2)
    /// scores this, plus `ace_size` per card.
    ace: 500 in -100000..=100000;
    ace_size: 40 in -100000..=100000;
    /// Leading: another tractor (R3.2) scores this, plus `tractor_size` per card and its top
    /// rank, less `tractor_trump` when it is of trumps.
    tractor: 300 in -100000..=100000;
    tractor_size: 30 in -100000..=100000;
    tractor_trump: 100 in -100000..=100000;
    /// Leading: a plain pair or more of queens or kings scores this, plus `pair_size` per card
    /// and its rank.
    pair: 200 in -100000..=100000;
    pair_size: 20 in -100000..=100000;
    /// Leading: a single scores `single`; another unit of copies of one kind (R3.1, not an
    /// ace's and not a high pair) scores `unit` plus `unit_size` per card; both less the
    /// cards' keep value and `lead_points` per point (R7.1) they carry.
    single: 100 in -100000..=100000;
    unit: 50 in -100000..=100000;
    unit_size: 10 in -100000..=100000;
    lead_points: 3 in -1000..=1000;
    /// Following a partner who is winning the trick: `feed` per point given, less `feed_risk`
    /// per point while an opponent plays after (the trick is not yet the partner's).
    feed: 8 in -1000..=1000;
    feed_risk: 0 in -1000..=1000;
    /// Following, a play that becomes the trick's best while the trick carries points or is
    /// the last play: `win`, plus `win_points` per point in the trick.
    win: 2000 in -100000..=100000;
    win_points: 20 in -1000..=1000;
    /// Following, a play that becomes the best of a trick without points, not last: less this.
    win_empty: 40 in -100000..=100000;
    /// Following, a play that does not win: less this per point given to the opponents.
    lose_points: 12 in -1000..=1000;
    /// A card's keep value: its strength (rank order, R2), and for a trump `trump_keep` plus
    /// `trump_strength` times its strength.
    trump_keep: 20 in -10000..=10000;
    trump_strength: 2 in -100..=100;
    /// Showing (R8.1): a suit is shown once its cards (level cards twice) times four reach
    /// the cards held plus this.
    show_margin: 4 in -216..=216;
    /// Following a play of more than one card: the legal follows are all scored when there
    /// are at most `list_max` of them; otherwise `samples` of them drawn uniformly are, beside
    /// the fills and the ruff of R5.2 (at least one where those do not apply). Effort: fewer
    /// cost less and see less. (Set directly, outside their ranges, they are held inside them.)
    list_max: 32 in 1..=1024;
    samples: 16 in 0..=256;
}

impl Weights {
    /// `NAME=V/NAME=V/...` (names as in [`Weights::NAMES`], any order, each at most once;
    /// unnamed weights keep greedy's value).
    pub fn parse(text: &str) -> Result<Weights, Error> {
        let bad = |m: String| Error::BadPolicy(format!("greedy weights {text:?}: {m}"));
        let mut w = Weights::GREEDY;
        let mut seen = vec![false; Weights::NAMES.len()];
        for part in text.split('/').map(str::trim).filter(|p| !p.is_empty()) {
            let (k, v) = part.split_once('=').ok_or_else(|| bad(format!("{part:?} is not NAME=VALUE")))?;
            let k = k.trim().to_ascii_lowercase();
            let i = Weights::NAMES.iter().position(|n| *n == k).ok_or_else(|| {
                bad(format!("unknown weight {k:?}: expected one of {}", Weights::NAMES.join(", ")))
            })?;
            if std::mem::replace(&mut seen[i], true) {
                return Err(bad(format!("weight {k:?} is given twice")));
            }
            let (lo, hi) = Weights::RANGES[i];
            let v: i32 = v.trim().parse().ok().filter(|v| (lo..=hi).contains(v)).ok_or_else(|| {
                bad(format!("weight {k}={:?}: expected a whole number in {lo}..={hi}", v.trim()))
            })?;
            w.set(i, v);
        }
        Ok(w)
    }

    /// The weights that differ from greedy's, as [`Weights::parse`] reads them, in the order
    /// of [`Weights::NAMES`] ("" for greedy's own).
    pub fn text(&self) -> String {
        let parts: Vec<String> = (0..Weights::NAMES.len())
            .filter(|&i| self.get(i) != Weights::GREEDY.get(i))
            .map(|i| format!("{}={}", Weights::NAMES[i], self.get(i)))
            .collect();
        parts.join("/")
    }
}

/// A weights set kept for the process, so that its policy is `Copy` and has a `&'static`
/// name (as networks are kept).
#[derive(Debug, PartialEq, Eq, Hash)]
pub struct Entry {
    /// `greedy:` and [`Weights::text`].
    pub name: String,
    pub weights: Weights,
}

/// A tuned greedy as a policy: `greedy:NAME=V/...`, greedy scoring with other weights. Two are
/// equal when their weights are.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Tuned(pub &'static Entry);

static KEPT: Mutex<Vec<&'static Entry>> = Mutex::new(Vec::new());

impl Tuned {
    /// The policy of `weights` (the same weights give the same policy).
    pub fn new(weights: Weights) -> Tuned {
        let mut all = KEPT.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(e) = all.iter().find(|e| e.weights == weights) {
            return Tuned(e);
        }
        let name = format!("greedy:{}", weights.text());
        let e: &'static Entry = Box::leak(Box::new(Entry { name, weights }));
        all.push(e);
        Tuned(e)
    }

    pub fn name(&self) -> &'static str {
        &self.0.name
    }

    pub fn weights(&self) -> &'static Weights {
        &self.0.weights
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn weights_parse_back_from_their_text_and_bad_text_is_named() {
        assert_eq!(Weights::GREEDY.text(), "");
        let w = Weights::parse(" Feed=3 / feed_risk=-7/keep_left=0 ").unwrap();
        assert_eq!((w.feed, w.feed_risk, w.keep_left, w.win), (3, -7, 0, 2000));
        assert_eq!(w.text(), "keep_left=0/feed=3/feed_risk=-7");
        assert_eq!(Weights::parse(&w.text()).unwrap(), w);
        for i in 0..Weights::NAMES.len() {
            let mut v = Weights::GREEDY;
            v.set(i, Weights::RANGES[i].0);
            assert_eq!(v.get(i), Weights::RANGES[i].0);
            assert_eq!(Weights::parse(&v.text()).unwrap(), v, "{}", Weights::NAMES[i]);
        }
        for (text, says) in [
            ("feed", "not NAME=VALUE"),
            ("feeds=1", "unknown weight \"feeds\""),
            ("feed=1/feed=2", "given twice"),
            ("feed=1.5", "whole number in -1000..=1000"),
            ("keep_left=55", "0..=54"),
            ("win=99999999999", "whole number"),
            ("feed=", "whole number"),
        ] {
            let e = Weights::parse(text).unwrap_err().to_string();
            assert!(e.contains(says), "{text}: {e}");
        }
    }

    #[test]
    fn the_same_weights_are_one_policy() {
        let a = Tuned::new(Weights::parse("feed=5").unwrap());
        let b = Tuned::new(Weights { feed: 5, ..Weights::GREEDY });
        assert_eq!(a, b);
        assert_eq!(a.name(), "greedy:feed=5");
        assert_ne!(a, Tuned::new(Weights { feed: 6, ..Weights::GREEDY }));
    }
}
