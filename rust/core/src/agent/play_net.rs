//! Integer networks that score whole plays (weights format 4): the seat's observation and one
//! candidate's features in ([`crate::agent::plays`]), one score out; the policy plays the
//! candidate with the highest score. Evaluated with integer arithmetic only, as
//! [`crate::agent::net`]'s networks are (the same result on every CPU and thread count).
//!
//! ```text
//! s   = b1 + W1·x                      (i32, h1: the observation's part, an accumulator
//!                                       updated from the inputs that changed, once a decision)
//! a   = s + Wp·p                       (per candidate: its features p, mostly zeros)
//! h1  = clamp(a >> shift1, 0, 127)
//! h2  = clamp((b2 + W2·h1) >> shift2, 0, 127)
//! q   = b3 + w3·h2 (+ prior, the base's action only)   (i32: the candidate's score)
//! ```
//! A float network `q(x, p) = w3·relu1(W2·relu1(Wx·x/dx + Wp·p/dp + b1) + b2) + b3` (each
//! `relu1` a clamp to 0..1) quantizes to this as [`crate::agent::net`] describes: `W1 =
//! round(s1·Wx/dx)`, `Wp = round(s1·Wp/dp)`, `b1 = round(s1·b1)`, `s1 = 127·2^shift1`; `W2 =
//! round(64·W2)`, `b2 = round(64·127·b2)`, `shift2 = 6`; `w3 = round(64·w3)`, `b3 =
//! round(64·127·b3)` (`tractor.train` does it). The candidates are those of
//! [`crate::agent::plays::candidates`] with the file's base weights; of equal scores the
//! earlier candidate is played (the base's action is first). The `prior` is a margin: the
//! network departs from the base only for a candidate it scores higher by more than it (a
//! learner's estimates are noisy, and the best of many noisy estimates is too high).
//!
//! The weights file, format version 4, little-endian (the magic and CRC of every version):
//! ```text
//! 8 bytes "TRACTNET", u16 format version (4), u16 observation version, u16 inputs (its size),
//! u16 play-features version, u16 play inputs (its size), u16 h1, u16 h2, u8 shift1, u8 shift2,
//! u8 flags (bit 0: observation suits renamed trump-first; bit 1: the base declares, bit 2: the
//! base plays, the network deciding only the other phase; no other bit), i32 prior, u32 b (base length),
//! u32 n (metadata length), b bytes of base (UTF-8: greedy's weights as `greedy:NAME=V/...`
//! reads them after the colon, "" for greedy's own), n bytes of metadata (UTF-8, JSON by
//! convention), W1 (i16, inputs × h1, input-major), Wp (i16, play inputs × h1, input-major),
//! b1 (i32 × h1), W2 (i8, row-major h2 × h1), b2 (i32 × h2), w3 (i8 × h2), b3 (i32), u32
//! CRC-32 of every byte before it.
//! ```

use std::cell::RefCell;
use std::sync::Mutex;

use crate::agent::quant::{add_row, kernel, Changes, keep, Accumulator, Kernel, Bytes, MAGIC, MAX_WIDTH, ONE};
use crate::agent::play_features::{self, Features};
use crate::agent::plays::{candidates, Plays};
use crate::agent::view::{Decide, SeatView};
use crate::agent::weights::Weights;
use crate::encode::observe::{encoding, versions, Encoding};
use crate::game::hand::Action;
use crate::game::record::crc32;
use crate::rules::error::Error;
use crate::util::rng::Rng;

/// This format's version in the weights file's header.
pub const FORMAT_VERSION: u16 = 4;
/// The header's fixed part, before the base and metadata texts.
pub const HEAD: usize = 8 + 2 * 7 + 3 + 4 + 8;

fn bad(m: impl Into<String>) -> Error {
    Error::BadPolicy(format!("play network weights: {}", m.into()))
}

/// A network that scores whole plays.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlayNet {
    pub obs: &'static Encoding,
    /// The candidates' features the network reads ([`crate::agent::play_features`]).
    pub feats: &'static Features,
    pub canonical: bool,
    /// The base's action is taken while dealing (declaring decisions, R8.1).
    pub base_declares: bool,
    /// The base's action is taken while playing.
    pub base_plays: bool,
    pub h1: usize,
    pub h2: usize,
    pub shift1: u8,
    pub shift2: u8,
    /// Input-major: `w1[i * h1 + j]`.
    pub w1: Vec<i16>,
    /// Input-major: `wp[i * h1 + j]` for play feature i (`feats.dim` of them).
    pub wp: Vec<i16>,
    pub b1: Vec<i32>,
    /// Row-major `w2[k * h1 + j]`, int8 values.
    pub w2: Vec<i16>,
    /// The second layer laid out for scoring ([`Fast::of`]; [`PlayNet::parse`] fills it, and
    /// a network built field by field must set it, `net.fast = Fast::of(&net)`, before it
    /// scores).
    pub fast: Fast,
    pub b2: Vec<i32>,
    /// int8 values.
    pub w3: Vec<i16>,
    pub b3: i32,
    /// Added to the base's action's score (at least 0).
    pub prior: i32,
    /// The base's weights (the candidates' first and their `base` feature).
    pub base: Weights,
    pub meta: String,
}

/// The size a format-4 header (its first [`HEAD`] bytes) declares, every section included.
pub fn declared_size(head: &[u8]) -> Option<u64> {
    if head.len() < HEAD || &head[..8] != MAGIC || u16::from_le_bytes([head[8], head[9]]) != FORMAT_VERSION {
        return None;
    }
    let u16at = |i: usize| u16::from_le_bytes([head[i], head[i + 1]]) as u64;
    let u32at = |i: usize| u32::from_le_bytes(head[i..i + 4].try_into().expect("4 bytes")) as u64;
    let (inputs, pin, h1, h2) = (u16at(12), u16at(16), u16at(18), u16at(20));
    let (b, n) = (u32at(29), u32at(33));
    Some(HEAD as u64 + b + n + 2 * inputs * h1 + 2 * pin * h1 + 4 * h1 + h2 * h1 + 4 * h2 + h2 + 4 + 4)
}

impl PlayNet {
    /// Reads a format-4 weights file, checking what [`crate::agent::net::Net::parse`] checks
    /// (magic, versions, sizes, CRC, no overflow) and that the base weights parse.
    pub fn parse(bytes: &[u8]) -> Result<PlayNet, Error> {
        let mut b = Bytes::of_file(bytes, |m| bad(m))?;
        let version = b.u16("the header")?;
        if version != FORMAT_VERSION {
            return Err(bad(format!("format version {version} (a play network is version {FORMAT_VERSION})")));
        }
        let v = b.u16("the header")?;
        let obs = encoding(v as u32).map_err(|_| bad(format!("observation version {v} is unknown (this engine reads {})", versions())))?;
        let inputs = b.u16("the header")? as usize;
        let (pv, pin) = (b.u16("the header")?, b.u16("the header")? as usize);
        let feats = play_features::features(pv as u32).map_err(|_| bad(format!("play-features version {pv} is unknown (this engine writes {})", play_features::versions())))?;
        if inputs != obs.dim || pin != feats.dim {
            return Err(bad(format!(
                "{inputs} inputs and {pin} play inputs (expected {} for observation version {v} and {} for play-features version {pv})",
                obs.dim, feats.dim
            )));
        }
        let (h1, h2) = (b.u16("the header")? as usize, b.u16("the header")? as usize);
        let (shift1, shift2, flags) = (b.u8("the header")?, b.u8("the header")?, b.u8("the header")?);
        if flags > 7 || flags & 6 == 6 {
            return Err(bad(format!("flags {flags:#04x}: bits 0 (canonical suits), 1 (the base declares) or 2 (the base plays), not both 1 and 2")));
        }
        let prior = b.u32("the header")? as i32;
        if !(0..=1 << 24).contains(&prior) {
            return Err(bad(format!("prior {prior} (0..={})", 1 << 24)));
        }
        let (bl, ml) = (b.u32("the header")? as usize, b.u32("the header")? as usize);
        let base = String::from_utf8(b.take(bl, "the base")?.to_vec()).map_err(|_| bad("the base is not UTF-8"))?;
        let base = Weights::parse(&base).map_err(|e| bad(format!("the base: {e}")))?;
        let meta = String::from_utf8(b.take(ml, "the metadata")?.to_vec()).map_err(|_| bad("the metadata is not UTF-8"))?;
        if !(1..=MAX_WIDTH).contains(&h1) || !(1..=MAX_WIDTH).contains(&h2) {
            return Err(bad(format!("hidden widths {h1} and {h2} (1..={MAX_WIDTH})")));
        }
        let w1 = b.i16s(obs.dim * h1, "W1")?;
        let wp = b.i16s(feats.dim * h1, "Wp")?;
        let b1 = b.i32s(h1, "b1")?;
        let w2 = b.i8s(h2 * h1, "W2")?;
        let b2 = b.i32s(h2, "b2")?;
        let w3 = b.i8s(h2, "w3")?;
        let b3 = b.i32s(1, "b3")?[0];
        if !b.rest.is_empty() {
            return Err(bad(format!("{} bytes after the last layer", b.rest.len())));
        }
        let mut net = PlayNet { obs, feats, canonical: flags & 1 != 0, base_declares: flags & 2 != 0, base_plays: flags & 4 != 0, h1, h2, shift1, shift2, w1, wp, b1, w2, fast: Fast::default(), b2, w3, b3, prior, base, meta };
        net.check()?;
        net.fast = Fast::of(&net);
        Ok(net)
    }

    /// Refuses shifts past 30 and weights for which some input could overflow an `i32` sum
    /// (every observation entry and feature at its largest, every activation at [`ONE`]).
    fn check(&self) -> Result<(), Error> {
        if self.shift1 > 30 || self.shift2 > 30 {
            return Err(bad(format!("shifts {} and {} (at most 30)", self.shift1, self.shift2)));
        }
        let (dx, dp) = (self.obs.maxima(), self.feats.maxima());
        let worst1 = (0..self.h1).map(|j| {
            self.b1[j].unsigned_abs() as i64
                + (0..self.obs.dim).map(|i| dx[i] as i64 * self.w1[i * self.h1 + j].unsigned_abs() as i64).sum::<i64>()
                + (0..self.feats.dim).map(|i| dp[i] as i64 * self.wp[i * self.h1 + j].unsigned_abs() as i64).sum::<i64>()
        });
        let row = |w: &[i16]| w.iter().map(|&w| ONE as i64 * w.unsigned_abs() as i64).sum::<i64>();
        let worst2 = (0..self.h2).map(|k| self.b2[k].unsigned_abs() as i64 + row(&self.w2[k * self.h1..][..self.h1]));
        let worst3 = self.b3.unsigned_abs() as i64 + self.prior.unsigned_abs() as i64 + row(&self.w3);
        let worst = worst1.chain(worst2).chain([worst3]).max().unwrap_or(0);
        if worst > i32::MAX as i64 {
            return Err(bad(format!("a sum could reach {worst}, past i32 (quantize with smaller weights)")));
        }
        Ok(())
    }

    /// The weights file of this network.
    pub fn to_bytes(&self) -> Vec<u8> {
        let int8 = |w: &i16| i8::try_from(*w).expect("W2 and w3 hold int8 values") as u8;
        let base = self.base.text();
        let mut out = Vec::new();
        out.extend_from_slice(MAGIC);
        for v in [FORMAT_VERSION, self.obs.version as u16, self.obs.dim as u16, self.feats.version, self.feats.dim as u16, self.h1 as u16, self.h2 as u16] {
            out.extend_from_slice(&v.to_le_bytes());
        }
        out.extend_from_slice(&[self.shift1, self.shift2, self.canonical as u8 | (self.base_declares as u8) << 1 | (self.base_plays as u8) << 2]);
        out.extend_from_slice(&self.prior.to_le_bytes());
        out.extend_from_slice(&(base.len() as u32).to_le_bytes());
        out.extend_from_slice(&(self.meta.len() as u32).to_le_bytes());
        out.extend_from_slice(base.as_bytes());
        out.extend_from_slice(self.meta.as_bytes());
        self.w1.iter().chain(&self.wp).for_each(|w| out.extend_from_slice(&w.to_le_bytes()));
        self.b1.iter().for_each(|w| out.extend_from_slice(&w.to_le_bytes()));
        self.w2.iter().for_each(|w| out.push(int8(w)));
        self.b2.iter().for_each(|w| out.extend_from_slice(&w.to_le_bytes()));
        self.w3.iter().for_each(|w| out.push(int8(w)));
        out.extend_from_slice(&self.b3.to_le_bytes());
        let crc = crc32(&out);
        out.extend_from_slice(&crc.to_le_bytes());
        out
    }

    /// The observation's part of the first layer, computed in full.
    pub fn accumulator(&self, x: &[i16]) -> Accumulator {
        assert_eq!(x.len(), self.obs.dim, "an observation of the network's encoding");
        Accumulator::of(&self.w1, &self.b1, x)
    }

    /// Moves `a` to observation `x`, touching only the inputs that changed.
    pub fn update(&self, a: &mut Accumulator, x: &[i16]) {
        a.update(&self.w1, x);
    }

    /// The network's output for the candidate with features `p`, the observation's part
    /// being `a` (its score, but for the base's action's prior).
    pub fn score(&self, a: &Accumulator, p: &[i16]) -> i32 {
        self.score_in(a, p, &mut Scratch::default())
    }

    /// [`PlayNet::score`] in buffers kept from candidate to candidate (a decision scores
    /// many: their first layers are not zeroed and allocated each time).
    pub fn score_in(&self, a: &Accumulator, p: &[i16], s: &mut Scratch) -> i32 {
        kernel(Score { net: self, a, p, s })
    }

    /// [`PlayNet::score_in`] as written (whichever instruction set compiles it).
    #[inline(always)]
    fn score_body(&self, a: &Accumulator, p: &[i16], s: &mut Scratch) -> i32 {
        let Scratch { z, z2 } = s;
        z.clear();
        z.extend_from_slice(&a.acc);
        for i in Changes::of(p, None) {
            add_row(z, &self.wp[i * self.h1..][..self.h1], p[i] as i32);
        }
        z.resize(self.h1.next_multiple_of(8), 0);
        z2.clear();
        z2.extend_from_slice(&self.b2);
        self.second_layer(z, z2);
        self.third_layer(z2)
    }

    /// `z2 += W2·h1`, over the first layer's sums `z` (h1 rounded up to eight, the padding 0).
    #[inline(always)]
    fn second_layer(&self, z: &[i32], z2: &mut [i32]) {
        let shift1 = self.shift1 as u32;
        let on_at = 1i32 << shift1;
        let (z8s, _) = z.as_chunks::<8>();
        for (c, z8) in z8s.iter().enumerate() {
            let mut on = 0u32;
            for b in 0..8 {
                on |= ((z8[b] >= on_at) as u32) << b;
            }
            while on != 0 {
                let b = on.trailing_zeros() as usize;
                on &= on - 1;
                let h = (z8[b] >> shift1).min(ONE) as i16;
                let j = c * 8 + b;
                for (z2, &w) in z2.iter_mut().zip(&self.fast.w2t[j * self.h2..][..self.h2]) {
                    *z2 += h.wrapping_mul(w) as i32;
                }
            }
        }
    }

    /// The score from the second layer's sums.
    #[inline(always)]
    fn third_layer(&self, z2: &[i32]) -> i32 {
        let mut q = self.b3;
        for (&w3, &z2) in self.w3.iter().zip(z2) {
            q += w3 as i32 * (z2 >> self.shift2).clamp(0, ONE);
        }
        q
    }
}

/// [`PlayNet::score_in`] as a [`Kernel`].
pub(crate) struct Score<'a> {
    pub net: &'a PlayNet,
    pub a: &'a Accumulator,
    pub p: &'a [i16],
    pub s: &'a mut Scratch,
}

impl Kernel for Score<'_> {
    type Out = i32;
    #[inline(always)]
    fn run(self) -> i32 {
        self.net.score_body(self.a, self.p, self.s)
    }
}

/// A play network's second layer laid out for scoring: `W2` input-major (`w2t[j * h2 + k]`),
/// for the second layer over the few first-layer activations that are not 0.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Fast {
    pub w2t: Vec<i16>,
}

impl Fast {
    pub fn of(net: &PlayNet) -> Fast {
        let (h1, h2) = (net.h1, net.h2);
        Fast { w2t: (0..h1 * h2).map(|i| net.w2[(i % h2) * h1 + i / h2]).collect() }
    }
}

/// A play network's per-candidate buffers: the first layer's sums, the second layer's sums.
#[derive(Clone, Debug, Default)]
pub struct Scratch {
    z: Vec<i32>,
    z2: Vec<i32>,
}

// -- a play network as a policy --------------------------------------------------------------

/// A play network loaded from a weights file (`net:PATH` of a format-4 file), kept for the
/// life of the process ([`crate::agent::quant::keep`]).
pub type Loaded = crate::agent::quant::Loaded<PlayNet>;

/// A loaded play network as a policy: of the seat's candidates
/// ([`crate::agent::plays::candidates`], from its stream), the one with the highest score
/// (the earliest among equals); a decision with one candidate is taken without scoring.
#[derive(Clone, Copy, Debug)]
pub struct PlayNetPolicy(pub &'static Loaded);

impl PartialEq for PlayNetPolicy {
    fn eq(&self, other: &Self) -> bool {
        self.0.id == other.0.id
    }
}
impl Eq for PlayNetPolicy {}
impl std::hash::Hash for PlayNetPolicy {
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        self.0.id.hash(h)
    }
}

static LOADED: Mutex<Vec<&'static Loaded>> = Mutex::new(Vec::new());

impl PlayNetPolicy {
    /// The play network `net`, named `net:PATH` (the same path and network give the same
    /// policy).
    pub fn keep(path: &str, net: PlayNet) -> PlayNetPolicy {
        PlayNetPolicy(keep(&LOADED, path, net))
    }

    pub fn name(&self) -> &'static str {
        &self.0.name
    }

    /// The candidates of the seat to move in `view` into `plays` and, unless there is only
    /// one, their scores into `scores`.
    pub fn score_all(&self, view: &SeatView, rng: &mut Rng, plays: &mut Plays, scores: &mut Vec<i32>) {
        let net = &self.0.net;
        candidates(view, &net.base, net.feats, rng, plays);
        scores.clear();
        let dealing = view.phase() == crate::game::hand::Phase::Declare;
        if (dealing && net.base_declares) || (!dealing && net.base_plays) {
            plays.actions.truncate(1); // the base's
            plays.features.truncate(net.feats.dim);
        }
        if plays.len() == 1 {
            scores.push(0);
            return;
        }
        with_accumulator(self.0, view.seat(), |acc, x| {
            view.observe(net.obs, &[0; crate::rules::card::KINDS], net.canonical, x)
                .expect("a play network decides from a game or a search's world, never a bare position");
            net.update(acc, x);
            let mut scratch = Scratch::default();
            scores.extend((0..plays.len()).map(|i| net.score_in(acc, plays.row(i), &mut scratch) + if i == 0 { net.prior } else { 0 }));
        });
    }
}

/// The index of the greatest score, the earliest among equals.
pub fn best(scores: &[i32]) -> usize {
    let mut b = 0;
    for (i, &s) in scores.iter().enumerate() {
        if s > scores[b] {
            b = i;
        }
    }
    b
}

thread_local! {
    /// Per thread, the candidates of the decision under way and their scores.
    static SCRATCH: RefCell<(Plays, Vec<i32>)> = RefCell::new((Plays::default(), Vec::new()));
}

fn with_accumulator<T>(l: &Loaded, seat: u8, f: impl FnOnce(&mut Accumulator, &mut [i16]) -> T) -> T {
    let fresh = || {
        let zero = vec![0; l.net.obs.dim];
        (l.net.accumulator(&zero), zero)
    };
    crate::agent::quant::with_accumulator(1, l.id, seat, fresh, f)
}

impl Decide for PlayNetPolicy {
    fn observes(&self) -> bool {
        true
    }

    fn decide(&self, view: &SeatView, rng: &mut Rng) -> Action {
        let net = &self.0.net;
        let dealing = view.phase() == crate::game::hand::Phase::Declare;
        if (dealing && net.base_declares) || (!dealing && net.base_plays) {
            // the base decides this phase: its action is the first candidate, drawn first from
            // the same stream, so the candidates need not be listed
            return crate::agent::greedy::act_with(view, rng, &net.base);
        }
        SCRATCH.with(|cell| {
            let (plays, scores) = &mut *cell.borrow_mut();
            self.score_all(view, rng, plays, scores);
            plays.actions[best(scores)]
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::quant::Kernel;

    /// The scores and first-layer updates that [`kernel`] runs (the AVX2 build on a CPU that
    /// has it) equal the same code run as written in the baseline instruction set, over random
    /// networks of several widths (h1 not a multiple of 8, 16 or 64 among them), inputs with
    /// few and many changes, and features mostly 0; within the overflow bound of `check`.
    #[test]
    fn avx2_builds_score_as_the_plain_build() {
        let mut r = Rng::new(40);
        let mut scored = 0;
        for (h1, h2) in [(128, 32), (20, 8), (72, 17), (256, 64), (8, 1)] {
            let obs = encoding(2).expect("version 2");
            let feats = play_features::features(2).expect("version 2");
            let mut v = |n: usize, span: i64| -> Vec<i64> { (0..n).map(|_| r.below(2 * span as u128 + 1) as i64 - span).collect() };
            let mut net = PlayNet {
                obs,
                feats,
                canonical: true,
                base_declares: false,
                base_plays: false,
                h1,
                h2,
                shift1: 5,
                shift2: 6,
                w1: v(obs.dim * h1, 60).into_iter().map(|x| x as i16).collect(),
                wp: v(feats.dim * h1, 60).into_iter().map(|x| x as i16).collect(),
                b1: v(h1, 4000).into_iter().map(|x| x as i32).collect(),
                w2: v(h2 * h1, 127).into_iter().map(|x| x as i16).collect(),
                fast: Fast::default(),
                b2: v(h2, 5000).into_iter().map(|x| x as i32).collect(),
                w3: v(h2, 127).into_iter().map(|x| x as i16).collect(),
                b3: 17,
                prior: 0,
                base: Weights::GREEDY,
                meta: String::new(),
            };
            net.check().expect("within the bound");
            net.fast = Fast::of(&net);
            let (mut plain, mut fast) = (net.accumulator(&vec![0; obs.dim]), net.accumulator(&vec![0; obs.dim]));
            let (mut s1, mut s2) = (Scratch::default(), Scratch::default());
            let mut x = vec![0i16; obs.dim];
            for step in 0..200 {
                // a few inputs change, or many
                for _ in 0..if step % 10 == 0 { obs.dim } else { 1 + r.below_usize(40) } {
                    x[r.below_usize(obs.dim)] = r.below(4) as i16;
                }
                plain.update_body(&net.w1, &x);
                net.update(&mut fast, &x);
                assert_eq!(plain, fast, "h1 {h1}: the update");
                assert_eq!(plain, net.accumulator(&x), "h1 {h1}: the update is the full first layer");
                for _ in 0..8 {
                    let mut p = vec![0i16; feats.dim];
                    for _ in 0..r.below_usize(12) {
                        p[r.below_usize(feats.dim)] = r.below(9) as i16 - 2;
                    }
                    let want = Score { net: &net, a: &plain, p: &p, s: &mut s1 }.run();
                    assert_eq!(net.score_in(&fast, &p, &mut s2), want, "h1 {h1} h2 {h2}: a score");
                    scored += 1;
                }
            }
        }
        assert_eq!(scored, 5 * 200 * 8);
    }
}
