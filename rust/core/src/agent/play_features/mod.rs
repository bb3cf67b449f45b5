//! The features of a whole-play candidate ([`crate::agent::plays`]), by version: what a
//! network that scores plays ([`crate::agent::play_net`]) reads of each candidate beside the
//! seat's observation, and what self-play writes per valued candidate
//! ([`crate::learn::self_play`]).
//!
//! The features have versions, each frozen once released, as the observation's are
//! ([`crate::encode::observe`]). A [`Features`] is one version: its number, its size, its
//! named features, their denominators, the largest whole number each can hold and its writer,
//! all defined in the version's own file ([`v1`], [`v2`]). [`FEATURES`] is the table of them
//! and [`features`] looks one up by number (an unknown number is refused, naming the known
//! ones). A play network's weights file names its version (the header's play-features
//! version); self-play and the binding are given one ([`DEFAULT_VERSION`] unless the caller
//! chooses). A new version is a new file beside `v2.rs` and one entry of [`FEATURES`].
//!
//! Common to every version: every feature is a whole number (`i16`) over its denominator; a
//! candidate's features read only the position as the seat knows it (its hand, the public
//! state and what the hand's tally holds: the cards played, the voids shown); the candidates'
//! stream is never drawn from, so every version's candidates are the same.

use crate::agent::view::SeatView;
use crate::game::hand::Action;
use crate::rules::error::Error;

pub mod v1;
pub mod v2;

/// One feature block: (name, offset, length, denominator, meaning).
pub type Feature = (&'static str, usize, usize, u32, &'static str);

/// Writes the rows of the candidates `actions[from..]` (the base's action is `actions[0]`),
/// appending `dim` entries per candidate to `out`.
pub type Writer = fn(&SeatView, &[Action], usize, &mut Vec<i16>);

/// One version of the candidate features.
pub struct Features {
    /// The version number (a play network's file names it).
    pub version: u16,
    /// Features per candidate.
    pub dim: usize,
    /// The features in order.
    pub layout: &'static [Feature],
    /// The features that can pass their denominator, with the largest whole number they hold
    /// (an integer network's overflow check, [`Features::maxima`]).
    pub beyond: &'static [(&'static str, u32)],
    pub write: Writer,
}

/// Every version, oldest first.
pub static FEATURES: &[Features] = &[v1::FEATURES, v2::FEATURES];

/// The version used where the caller names none (the binding's and `tractor.train`'s default).
pub const DEFAULT_VERSION: u16 = 1;

/// The features of version `version`; an unknown version is refused, naming the known ones.
pub fn features(version: u32) -> Result<&'static Features, Error> {
    FEATURES.iter().find(|f| f.version as u32 == version).ok_or_else(|| Error::BadArgument {
        what: "play_features",
        message: format!("play-features version {version} is unknown (this engine writes {})", versions()),
    })
}

/// The known versions, as text: "1, 2".
pub fn versions() -> String {
    FEATURES.iter().map(|f| f.version.to_string()).collect::<Vec<_>>().join(", ")
}

impl Features {
    /// The denominator of each feature (a float learner reads feature / denominator).
    pub fn scales(&self) -> Vec<u32> {
        let mut out = vec![1u32; self.dim];
        for &(_, at, len, d, _) in self.layout {
            out[at..at + len].fill(d);
        }
        out
    }

    /// The largest whole number each feature can hold: its denominator, but for `beyond`.
    pub fn maxima(&self) -> Vec<u32> {
        let mut out = self.scales();
        for &(name, m) in self.beyond {
            let (at, len) = self.block(name).expect("a feature of the layout");
            out[at..at + len].fill(m);
        }
        out
    }

    /// The feature called `name`: (offset, length).
    pub fn block(&self, name: &str) -> Option<(usize, usize)> {
        self.layout.iter().find(|f| f.0 == name).map(|f| (f.1, f.2))
    }

    /// The rows of `actions[from..]` appended to `out` (see [`Writer`]).
    pub fn write(&self, view: &SeatView, actions: &[Action], from: usize, out: &mut Vec<i16>) {
        (self.write)(view, actions, from, out)
    }
}

impl std::fmt::Debug for Features {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Features {{ version: {}, dim: {} }}", self.version, self.dim)
    }
}

/// Versions are the same when their numbers are (a version is frozen).
impl PartialEq for Features {
    fn eq(&self, other: &Self) -> bool {
        self.version == other.version
    }
}
impl Eq for Features {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_layout_is_contiguous_and_fills_the_row() {
        for f in FEATURES {
            let mut at = 0;
            for &(name, off, len, d, _) in f.layout {
                assert_eq!(off, at, "version {} {name}", f.version);
                assert!(d >= 1);
                at += len;
            }
            assert_eq!(at, f.dim, "version {}", f.version);
            assert!(f.maxima().iter().zip(f.scales()).all(|(m, d)| *m >= d));
        }
    }

    #[test]
    fn version_2_begins_with_version_1() {
        assert_eq!(&v2::FEATURES.layout[..v1::LAYOUT.len()], v1::LAYOUT);
        assert!(features(3).is_err_and(|e| e.to_string().contains("1, 2")));
    }
}
