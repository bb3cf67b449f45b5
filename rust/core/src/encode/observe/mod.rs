//! The tensor observation of one seat: a fixed-length vector written into a caller's buffer,
//! at a constant cost whatever the history (it reads the position and the hand's
//! [`crate::game::hand::Tally`], never the record). It holds only what the seat may know:
//! its own hand and selection, and the public state (R8.2: a showing's suit is hidden from
//! the others until the deal ends).
//!
//! The observation has versions, each frozen once released. An [`Encoding`] is one version:
//! its number, its size, its named blocks, their denominators and its writer, all defined in
//! the version's own file ([`v1`]). [`ENCODINGS`] is the table of them, and [`encoding`]
//! looks one up by number (an unknown number is refused, naming the known ones). Whatever
//! holds an observation takes its size from the encoding in use: a weights file names its own
//! (the header's observation version, [`crate::agent::net`]); a `VecEnv`, the table and the
//! binding are given one ([`DEFAULT_VERSION`] unless the caller chooses). A new version is a
//! new file beside `v1.rs` and one entry of [`ENCODINGS`] (docs/architecture.md, "How to add
//! an observation block").
//!
//! Common to every version: seats are relative to the observer (slot `r` is seat
//! `(observer + r) % 4`); card blocks are 54 entries in kind-id order holding copies / 4;
//! with `canonical` the suits are renamed so that trump (once the observer knows it) is the
//! first suit, the others keeping their order, jokers staying.

use crate::game::hand::{Game, Phase, Position, Tally, NOBODY};
use crate::rules::card::DECK;
use crate::rules::card::{Counts, KINDS};
use crate::rules::error::Error;

/// One block of the observation: name, offset, length, what it holds.
pub type Block = (&'static str, usize, usize, &'static str);

/// Declares a version's blocks, in order: `(name, length, meaning)` rows. Defines, in the
/// module that calls it, `LAYOUT` (the [`Block`]s with their offsets), `DIM` (the length of
/// the observation) and a module `at` with each block's offset by name.
macro_rules! layout {
    ($(($name:ident, $len:expr, $doc:expr)),* $(,)?) => {
        /// Offsets of the blocks.
        #[allow(non_upper_case_globals, dead_code)]
        mod at {
            layout!(@offsets 0usize; $($name, $len;)*);
        }
        /// The blocks in order: (name, offset, length, meaning).
        pub const LAYOUT: &[$crate::encode::observe::Block] = &[$((stringify!($name), at::$name, $len, $doc)),*];
        /// Length of the observation.
        pub const DIM: usize = at::END;
    };
    (@offsets $off:expr; $name:ident, $len:expr; $($rest:tt)*) => {
        pub const $name: usize = $off;
        layout!(@offsets $off + $len; $($rest)*);
    };
    (@offsets $off:expr;) => {
        pub const END: usize = $off;
    };
}

/// A version's [`Writers`] from its generic writer `fn write<T: Entry>(...)`.
macro_rules! writers {
    ($f:ident) => {
        $crate::encode::observe::Writers { f32: $f::<f32>, i16: $f::<i16>, u8: $f::<u8> }
    };
}

pub mod v1;
pub mod v2;

/// A version's writer for one kind of entry: writes `observer`'s observation into
/// `out[..dim]` from the position, the hand's tally, the match's levels and the play
/// `pending` the player to move is building (shown only to that player), suits renamed
/// when `canonical`.
pub type Writer<T> = fn(&Position, &Tally, [u8; 2], &Counts, u8, bool, &mut [T]);

/// A version's writer for each kind of [`Entry`] (one generic function, instantiated three
/// times, so that each stays as fast as a direct call).
pub struct Writers {
    pub f32: Writer<f32>,
    pub i16: Writer<i16>,
    pub u8: Writer<u8>,
}

/// One version of the observation: everything that reads or sizes an observation asks it.
pub struct Encoding {
    /// The version number (a weights file's header names it).
    pub version: u32,
    /// Length of the observation.
    pub dim: usize,
    /// The blocks in order: (name, offset, length, meaning).
    pub layout: &'static [Block],
    /// Every entry is a whole number over its block's denominator: the denominators, block
    /// by block in `layout`'s order (one-hot blocks: 1).
    pub scale: &'static [(&'static str, u32)],
    /// The blocks whose entries can pass their denominator, with the largest whole number
    /// they hold (every other entry is a fraction of at most one): what an integer network's
    /// overflow check must assume ([`Encoding::maxima`], `agent::net`).
    pub beyond: &'static [(&'static str, u32)],
    /// The writer.
    pub write: Writers,
}

/// Every observation version this engine writes, oldest first.
pub static ENCODINGS: &[Encoding] = &[v1::ENCODING, v2::ENCODING];

/// The version used where the caller names none.
pub const DEFAULT_VERSION: u32 = 1;

/// Version 1's size, kept under its old name for what is frozen to version 1 (tests that pin
/// digests of version-1 buffers) and for the binding's public `OBS_DIM`; nothing else sizes
/// a buffer from it (a test greps for it): ask the [`Encoding`] in use for its `dim`.
pub const OBS_DIM: usize = v1::DIM;
/// Version 1's number, kept under its old name as [`OBS_DIM`] is.
pub const OBS_VERSION: u32 = v1::VERSION;

/// The encoding of observation version `version`; an unknown version is refused, naming the
/// known ones.
pub fn encoding(version: u32) -> Result<&'static Encoding, Error> {
    ENCODINGS.iter().find(|e| e.version == version).ok_or_else(|| Error::BadArgument {
        what: "obs_version",
        message: format!("observation version {version} is unknown (this engine writes {})", versions()),
    })
}

/// The known versions, as text: "1, 2".
pub fn versions() -> String {
    ENCODINGS.iter().map(|e| e.version.to_string()).collect::<Vec<_>>().join(", ")
}

/// The encoding of [`DEFAULT_VERSION`].
pub fn default_encoding() -> &'static Encoding {
    encoding(DEFAULT_VERSION).expect("the default version is in the table")
}

impl Encoding {
    /// Writes `observer`'s observation of `game` into `out[..dim]`; `pending` is the play
    /// the player to move is building (shown only to that player). As `f32` the entries are
    /// the tensor of `layout`; as `i16` their numerators over `scale`; as `u8` see [`Entry`].
    #[inline]
    pub fn observe<T: Entry>(&self, game: &Game, pending: &Counts, observer: u8, canonical: bool, out: &mut [T]) {
        self.observe_parts(&game.pos, &game.tally, game.levels, pending, observer, canonical, out)
    }

    /// [`Encoding::observe`] from the parts it reads: the position, the hand's tally and the
    /// match's levels (a search's worlds share the tally and levels of the true game: both
    /// are public).
    #[inline]
    #[allow(clippy::too_many_arguments)]
    pub fn observe_parts<T: Entry>(&self, pos: &Position, t: &Tally, levels: [u8; 2], pending: &Counts, observer: u8, canonical: bool, out: &mut [T]) {
        T::writer(&self.write)(pos, t, levels, pending, observer, canonical, out)
    }

    /// The denominator of each entry (see `scale`).
    pub fn scales(&self) -> Vec<u32> {
        let mut out = vec![1u32; self.dim];
        for (&(name, at, len, _), &(sname, d)) in self.layout.iter().zip(self.scale) {
            debug_assert_eq!(name, sname);
            out[at..at + len].fill(d);
        }
        out
    }

    /// The largest whole number each entry can hold: its denominator, but for the blocks of
    /// `beyond`.
    pub fn maxima(&self) -> Vec<u32> {
        let mut out = self.scales();
        for &(name, m) in self.beyond {
            let (at, len) = self.block(name).expect("a block of the layout");
            out[at..at + len].fill(m);
        }
        out
    }

    /// The denominator of each `u8` entry: the float entry is the `u8` one over this (as
    /// [`Encoding::scales`], points over 400 / 5 = 80).
    pub fn scales_u8(&self) -> Vec<u32> {
        let mut out = self.scales();
        for x in &mut out {
            if *x == POINTS {
                *x = POINTS / POINT_STEP as u32;
            }
        }
        out
    }

    /// The block called `name`: (offset, length).
    pub fn block(&self, name: &str) -> Option<(usize, usize)> {
        self.layout.iter().find(|b| b.0 == name).map(|b| (b.1, b.2))
    }
}

impl std::fmt::Debug for Encoding {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Encoding {{ version: {}, dim: {} }}", self.version, self.dim)
    }
}

/// Encodings are the same when their versions are (a version is frozen).
impl PartialEq for Encoding {
    fn eq(&self, other: &Self) -> bool {
        self.version == other.version
    }
}
impl Eq for Encoding {}

/// Copies of a kind (card blocks), level cards shown: n / 4.
pub const COPIES: u32 = 4;
/// Cards held: n / 54.
pub const HELD: u32 = 54;
/// Points: n / 400.
pub const POINTS: u32 = 400;
/// Points come in steps of 5 (R7.1): the `u8` observation holds points / 5.
pub const POINT_STEP: i32 = 5;
/// Cards dealt: n / 216.
pub const DEALT: u32 = DECK as u32;
/// Deals without a showing (R8.5): n / 3.
pub const REDEALS: u32 = 3;

/// A cell of the observation: `f32`, the learner's tensor (n / d); `i16`, the whole
/// numbers n themselves, which integer networks read (no float decides play); or `u8`, the
/// learner's compact copy: n, except points, which are n / 5 (every point count is a multiple
/// of 5, R7.1), so every entry fits (see [`Encoding::scales_u8`]).
pub trait Entry: Copy + Default {
    /// The entry n / d.
    fn ratio(n: i32, d: u32) -> Self;
    /// A version's writer of this kind of entry.
    fn writer(w: &Writers) -> Writer<Self>;
}

impl Entry for f32 {
    #[inline]
    fn ratio(n: i32, d: u32) -> f32 {
        n as f32 / d as f32
    }
    #[inline]
    fn writer(w: &Writers) -> Writer<f32> {
        w.f32
    }
}

impl Entry for i16 {
    #[inline]
    fn ratio(n: i32, _d: u32) -> i16 {
        n as i16 // |n| is at most a few hundred (points)
    }
    #[inline]
    fn writer(w: &Writers) -> Writer<i16> {
        w.i16
    }
}

impl Entry for u8 {
    #[inline]
    fn ratio(n: i32, d: u32) -> u8 {
        let n = if d == POINTS { n / POINT_STEP } else { n };
        n.clamp(0, u8::MAX as i32) as u8
    }
    #[inline]
    fn writer(w: &Writers) -> Writer<u8> {
        w.u8
    }
}

/// The suit renaming for `observer` (identity unless `canonical` and trump is known to it).
fn suit_map(pos: &Position, observer: u8, canonical: bool) -> [u8; 4] {
    if canonical {
        suits_renamed(known_trump(pos, observer))
    } else {
        SAME_SUITS
    }
}

/// Suit `s` becomes `m[s]`: trump first, the others in their order; identity for [`NOBODY`].
pub fn suits_renamed(trump: u8) -> [u8; 4] {
    if trump > 3 {
        return SAME_SUITS;
    }
    let mut m = [0u8; 4];
    let mut next = 1;
    for s in 0..4u8 {
        if s != trump {
            m[s as usize] = next;
            next += 1;
        }
    }
    m
}

/// The action ids renamed as `canonical` observations rename the suits, for a trump suit
/// `trump` known to the seat (anything above 3: unknown, no renaming): entry `id` is the
/// renamed id (cards and showings change suit; 52–55 stay).
pub fn canonical_ids(trump: u8) -> [u8; crate::encode::actions::ACTIONS] {
    let m = suits_renamed(trump);
    std::array::from_fn(|id| {
        let id = id as u8;
        match id {
            0..=51 => m[(id / 13) as usize] * 13 + id % 13,
            56.. => {
                let (s, c) = ((id - 56) / 4, (id - 56) % 4);
                56 + m[s as usize] * 4 + c
            }
            _ => id,
        }
    })
}

/// The trump suit as `observer` knows it: fixed after the deal; during it, the current
/// showing's suit only to its declarer (R8.2).
pub fn known_trump(pos: &Position, observer: u8) -> u8 {
    if pos.phase == Phase::Declare {
        if pos.declarer == observer {
            pos.declared_suit
        } else {
            NOBODY
        }
    } else {
        pos.trump
    }
}

/// No renaming.
const SAME_SUITS: [u8; 4] = [0, 1, 2, 3];

/// Writes the card block `c` (copies / 4) into `out[at..at + 54]`, suits renamed by `suits`.
#[inline]
fn put_cards<T: Entry>(out: &mut [T], at: usize, c: &Counts, suits: &[u8; 4]) {
    let out = &mut out[at..at + KINDS];
    if *suits == SAME_SUITS {
        // kind ids in order: one straight loop
        for (o, &n) in out.iter_mut().zip(c) {
            *o = T::ratio(n as i32, COPIES);
        }
        return;
    }
    for (s, &to) in suits.iter().enumerate() {
        let (dst, src) = (&mut out[to as usize * 13..][..13], &c[s * 13..][..13]);
        for (o, &n) in dst.iter_mut().zip(src) {
            *o = T::ratio(n as i32, COPIES);
        }
    }
    out[52] = T::ratio(c[52] as i32, COPIES);
    out[53] = T::ratio(c[53] as i32, COPIES);
}


#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_encoding_s_blocks_tile_its_size_and_name_their_scales() {
        let mut seen = Vec::new();
        for e in ENCODINGS {
            assert!(!seen.contains(&e.version), "version {} twice in the table", e.version);
            seen.push(e.version);
            let mut at = 0;
            for &(name, off, len, _) in e.layout {
                assert_eq!(off, at, "version {}: block {name} starts where the one before ends", e.version);
                at += len;
            }
            assert_eq!(at, e.dim, "version {}: the blocks fill the observation", e.version);
            let names: Vec<_> = e.layout.iter().map(|b| b.0).collect();
            let scaled: Vec<_> = e.scale.iter().map(|s| s.0).collect();
            assert_eq!(names, scaled, "version {}: one denominator per block, in order", e.version);
            assert_eq!(e.scales().len(), e.dim);
        }
        assert!(seen.contains(&DEFAULT_VERSION));
    }

    #[test]
    fn versions_are_looked_up_and_unknown_ones_refused_naming_the_known() {
        assert_eq!(encoding(1).unwrap().dim, 636);
        assert!(std::ptr::eq(encoding(1).unwrap(), &ENCODINGS[0]));
        assert_eq!(default_encoding().version, DEFAULT_VERSION);
        assert_eq!((OBS_DIM, OBS_VERSION), (v1::DIM, v1::VERSION));
        for v in [0, 999, u32::MAX] {
            let e = encoding(v).unwrap_err().to_string();
            assert!(e.starts_with("obs_version: "), "{e}");
            assert!(e.contains(&format!("observation version {v} is unknown")), "{e}");
            assert!(e.contains(&format!("writes {}", versions())), "{e}");
        }
        let listed: Vec<String> = ENCODINGS.iter().map(|e| e.version.to_string()).collect();
        assert_eq!(versions(), listed.join(", "));
    }
}
