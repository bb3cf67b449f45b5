//! Integer networks over a seat's observation, after Stockfish's NNUE: trained in floats,
//! quantized to integers on export, evaluated with integer arithmetic only (the same result on
//! every CPU and thread count: no float decides play), the first layer kept as an
//! accumulator that is updated from the inputs that changed instead of recomputed.
//!
//! The input is the observation in the encoding the weights file names (its header's
//! observation version, looked up in [`crate::encode::observe::ENCODINGS`]; a version this
//! engine does not know is refused) as whole numbers: each entry's numerator over its block's
//! denominator (`Encoding::observe::<i16>`, the encoding's `scale`), with the suits renamed
//! trump-first when the file says so (its outputs are then ids in the renamed suits, mapped
//! back to the real ones). The network's input buffers are sized from that encoding. The
//! network:
//! ```text
//! a   = b1 + W1·x                      (i32, h1 of them: the accumulator)
//! h1  = clamp(a >> shift1, 0, 127)     (ClippedReLU)
//! h2  = clamp((b2 + W2·h1) >> shift2, 0, 127)
//! out = b3 + W3·h2                     (i32: one logit per action id, 72)
//! ```
//! A float network `clamp(W·x/d + b, 0, 1)` layer by layer quantizes to this with
//! `W1 = round(s1·W/d)`, `b1 = round(s1·b)`, `s1 = 127·2^shift1`, and `W2 = round(64·W)`,
//! `b2 = round(64·127·b)`, `shift2 = 6`, the last layer likewise (`tractor.nets` does it).
//!
//! The weights file (format version 1), little-endian:
//! ```text
//! 8 bytes "TRACTNET", u16 format version (1), u16 observation version, u16 inputs (that
//! version's size; 636 for version 1),
//! u16 outputs (72), u16 h1, u16 h2, u8 shift1, u8 shift2, u8 flags (bit 0: the observation's
//! suits renamed trump-first, `canonical`; no other bit is set), u32 n, n bytes of metadata
//! (UTF-8, JSON by convention), then W1 (i16, input-major: the h1 weights of input 0, then of input
//! 1, …), b1 (i32 × h1), W2 (i8, row-major h2 × h1), b2 (i32 × h2), W3 (i8, row-major 72 × h2),
//! b3 (i32 × 72), and a u32 CRC-32 of every byte before it.
//! ```
//! Format version 2 is version 1 with two fields after the flags: u8 base (0: none, 1: the
//! `greedy` agent) and i32 prior. A network with a base corrects that agent: at each id, the
//! id the base's action takes next (while the play built so far is the base's) gets `prior`
//! added to its logit, so the network departs from the base only where it rates another id
//! higher by more than the prior. A network without a base is written as version 1; both
//! versions are read.
//!
//! Format version 3 is version 2 with a value head after b3: Wv (i16 × h2) and bv (i32). It
//! reads the same second hidden layer as the logits and predicts the hand's outcome as the
//! defenders' final score (R7.3): `score = ⌊100 · (bv + Wv·h2) / VALUE_SCALE⌋`, at least 0
//! ([`Net::score`]). A float head `v = wv·h2 + bv` in hundreds of points quantizes to it with
//! `Wv = round(64·wv)`, `bv = round(64·127·bv)`. The searches use it in place of a rollout
//! (`value=net:PATH`: [`crate::search::pimc`], [`crate::search::ismcts`]); as a policy the
//! file plays by its logits as any other. Only a network with a value head is written as
//! version 3.

use std::hash::{Hash, Hasher};
use std::sync::Mutex;

use crate::agent::view::{Decide, SeatView};
use crate::agent::greedy;
pub use crate::agent::quant::{Accumulator, MAGIC, MAX_WIDTH, ONE};
use crate::agent::quant::{dot, keep, Bytes};
use crate::agent::play_net;
use crate::encode::actions::{encode, Builder, ACTIONS};
use crate::encode::observe::{canonical_ids, encoding, versions, Encoding};
use crate::game::hand::{Action, Phase};
use crate::game::record::crc32;
use crate::rules::error::Error;
use crate::util::rng::Rng;

/// The version of the weights file's layout (the newest; every earlier one is read too).
pub const FORMAT_VERSION: u16 = 3;

/// The agent a network corrects (format 2): its action's next id gets the prior.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Base {
    /// None: the network alone decides (format 1).
    None = 0,
    /// The `greedy` agent ([`crate::agent::greedy`]).
    Greedy = 1,
}

impl Base {
    /// The base by its name: "" or "none", "greedy".
    pub fn parse(name: &str) -> Result<Base, Error> {
        match name.trim().to_ascii_lowercase().as_str() {
            "" | "none" => Ok(Base::None),
            "greedy" => Ok(Base::Greedy),
            other => Err(bad(format!("base {other:?}: expected 'none' or 'greedy'"))),
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Base::None => "none",
            Base::Greedy => "greedy",
        }
    }
}

/// The value head's integer output per hundred points of score (64 × 127, as the logits'
/// per unit).
pub const VALUE_SCALE: i64 = 64 * ONE as i64;

/// A value head (format 3): the defenders' final score (R7.3) from the second hidden layer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ValueHead {
    /// One weight per unit of the second hidden layer (i16 in the file).
    pub w: Vec<i16>,
    pub b: i32,
}

/// A network read from a weights file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Net {
    /// The observation it reads: the encoding its file names (the inputs are its `dim`).
    pub obs: &'static Encoding,
    pub h1: usize,
    pub h2: usize,
    pub shift1: u8,
    pub shift2: u8,
    /// Reads the observation with the suits renamed trump-first (its logits are then of the
    /// renamed ids; [`Net::real_logits`] maps them back).
    pub canonical: bool,
    /// Input-major: `w1[i * h1 + j]` is input i's weight into hidden unit j.
    pub w1: Vec<i16>,
    pub b1: Vec<i32>,
    /// Row-major: `w2[k * h1 + j]`; int8 in the file, widened here so that the dot products
    /// are i16 × i16 → i32 (one `pmaddwd` per 8 or 16 of them).
    pub w2: Vec<i16>,
    pub b2: Vec<i32>,
    /// Row-major: `w3[a * h2 + k]`; int8 in the file, widened likewise.
    pub w3: Vec<i16>,
    pub b3: Vec<i32>,
    /// The file's metadata (JSON by convention: name, training, …).
    pub meta: String,
    /// The agent it corrects, and what its next id gets added (format 2; `None` and 0 in a
    /// format 1 file).
    pub base: Base,
    pub prior: i32,
    /// The value head (format 3), if the file has one.
    pub value: Option<ValueHead>,
}


fn bad(m: impl Into<String>) -> Error {
    Error::BadPolicy(format!("network weights: {}", m.into()))
}

impl Net {
    /// Reads a weights file, checking its magic, versions, sizes and CRC, and that no sum
    /// of the network can overflow its `i32` for any observation.
    pub fn parse(bytes: &[u8]) -> Result<Net, Error> {
        let mut b = Bytes::of_file(bytes, |m| bad(m))?;
        let version = b.u16("the header")?;
        if !(1..=FORMAT_VERSION).contains(&version) {
            if version == crate::agent::play_net::FORMAT_VERSION {
                return Err(bad(format!(
                    "format version {version} is a network over whole plays (agent::play_net): it plays as net:PATH, \
                     but is not a network over action ids (formats 1..={FORMAT_VERSION})"
                )));
            }
            return Err(bad(format!("format version {version} (this engine reads 1..={FORMAT_VERSION})")));
        }
        let version_obs = b.u16("the header")?;
        let obs = encoding(version_obs as u32)
            .map_err(|_| bad(format!("observation version {version_obs} is unknown (this engine reads {})", versions())))?;
        let (inputs, outputs) = (b.u16("the header")? as usize, b.u16("the header")? as usize);
        if (inputs, outputs) != (obs.dim, ACTIONS) {
            return Err(bad(format!(
                "{inputs} inputs and {outputs} outputs (expected {} for observation version {version_obs}, and {ACTIONS})",
                obs.dim
            )));
        }
        let (h1, h2) = (b.u16("the header")? as usize, b.u16("the header")? as usize);
        if !(1..=MAX_WIDTH).contains(&h1) || !(1..=MAX_WIDTH).contains(&h2) {
            return Err(bad(format!("hidden widths {h1} and {h2} (1..={MAX_WIDTH})")));
        }
        let (shift1, shift2) = (b.u8("the header")?, b.u8("the header")?);
        if shift1 > 30 || shift2 > 30 {
            return Err(bad(format!("shifts {shift1} and {shift2} (at most 30)")));
        }
        let flags = b.u8("the header")?;
        if flags > 1 {
            return Err(bad(format!("flags {flags:#04x}: only bit 0 (canonical suits) is defined")));
        }
        let (base, prior) = if version >= 2 {
            let base = match b.u8("the header")? {
                0 => Base::None,
                1 => Base::Greedy,
                other => return Err(bad(format!("base {other} (0: none, 1: greedy)"))),
            };
            let prior = b.u32("the header")? as i32;
            if base == Base::None && prior != 0 {
                return Err(bad(format!("a prior ({prior}) needs a base agent")));
            }
            (base, prior)
        } else {
            (Base::None, 0)
        };
        let n = b.u32("the header")? as usize;
        let meta = String::from_utf8(b.take(n, "the metadata")?.to_vec()).map_err(|_| bad("the metadata is not UTF-8"))?;
        let net = Net {
            obs,
            h1,
            h2,
            shift1,
            shift2,
            canonical: flags & 1 != 0,
            w1: b.i16s(obs.dim * h1, "W1")?,
            b1: b.i32s(h1, "b1")?,
            w2: b.i8s(h2 * h1, "W2")?,
            b2: b.i32s(h2, "b2")?,
            w3: b.i8s(ACTIONS * h2, "W3")?,
            b3: b.i32s(ACTIONS, "b3")?,
            meta,
            base,
            prior,
            value: None,
        };
        let net = if version >= 3 {
            let w = b.i16s(net.h2, "Wv")?;
            let bv = b.u32("bv")? as i32;
            Net { value: Some(ValueHead { w, b: bv }), ..net }
        } else {
            net
        };
        if !b.rest.is_empty() {
            return Err(bad(format!("{} bytes after the last layer", b.rest.len())));
        }
        net.check_bounds()?;
        Ok(net)
    }

    /// A network over observation encoding `obs` from its parts, checked as [`Net::parse`]
    /// checks a file: the arrays' sizes (W1 has `obs.dim` inputs), W2 and W3 within int8, the
    /// shifts, and that no sum can overflow.
    #[allow(clippy::too_many_arguments)]
    pub fn from_parts(
        obs: &'static Encoding,
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
        base: Base,
        prior: i32,
        value: Option<ValueHead>,
    ) -> Result<Net, Error> {
        if !(1..=MAX_WIDTH).contains(&h1) || !(1..=MAX_WIDTH).contains(&h2) {
            return Err(bad(format!("hidden widths {h1} and {h2} (1..={MAX_WIDTH})")));
        }
        let sizes = [(w1.len(), obs.dim * h1, "W1"), (b1.len(), h1, "b1"), (w2.len(), h2 * h1, "W2"), (b2.len(), h2, "b2"),
            (w3.len(), ACTIONS * h2, "W3"), (b3.len(), ACTIONS, "b3")];
        if let Some((got, want, name)) = sizes.into_iter().find(|(got, want, _)| got != want) {
            return Err(bad(format!("{name} has {got} values, expected {want}")));
        }
        if let Some(v) = value.as_ref().filter(|v| v.w.len() != h2) {
            return Err(bad(format!("Wv has {} values, expected {h2}", v.w.len())));
        }
        if shift1 > 30 {
            return Err(bad(format!("shift1 {shift1} (at most 30)")));
        }
        if let Some(w) = w2.iter().chain(&w3).find(|w| i8::try_from(**w).is_err()) {
            return Err(bad(format!("W2 and W3 hold int8 values, got {w}")));
        }
        if base == Base::None && prior != 0 {
            return Err(bad(format!("a prior ({prior}) needs a base agent")));
        }
        let net = Net { obs, h1, h2, shift1, shift2: 6, canonical, w1, b1, w2, b2, w3, b3, meta, base, prior, value };
        net.check_bounds()?;
        Ok(net)
    }

    /// Refuses weights for which some observation could overflow an `i32` sum (every input
    /// entry at most its largest value, [`Encoding::maxima`], every activation at most [`ONE`]).
    fn check_bounds(&self) -> Result<(), Error> {
        let d = self.obs.maxima();
        let worst1 = (0..self.h1).map(|j| {
            self.b1[j].unsigned_abs() as i64
                + (0..self.obs.dim).map(|i| d[i] as i64 * self.w1[i * self.h1 + j].unsigned_abs() as i64).sum::<i64>()
        });
        let worst2 = (0..self.h2).map(|k| {
            self.b2[k].unsigned_abs() as i64 + self.w2[k * self.h1..][..self.h1].iter().map(|&w| ONE as i64 * w.unsigned_abs() as i64).sum::<i64>()
        });
        let worst3 = (0..ACTIONS).map(|a| {
            self.b3[a].unsigned_abs() as i64
                + self.prior.unsigned_abs() as i64
                + self.w3[a * self.h2..][..self.h2].iter().map(|&w| ONE as i64 * w.unsigned_abs() as i64).sum::<i64>()
        });
        let worstv = self.value.iter().map(|v| {
            v.b.unsigned_abs() as i64 + v.w.iter().map(|&w| ONE as i64 * w.unsigned_abs() as i64).sum::<i64>()
        });
        let worst = worst1.chain(worst2).chain(worst3).chain(worstv).max().unwrap_or(0);
        if worst > i32::MAX as i64 {
            return Err(bad(format!("a sum could reach {worst}, past i32 (quantize with smaller weights)")));
        }
        Ok(())
    }

    /// The weights file of this network (W2 and W3 must hold int8 values).
    pub fn to_bytes(&self) -> Vec<u8> {
        let int8 = |w: &i16| i8::try_from(*w).expect("W2 and W3 hold int8 values") as u8;
        let mut out = Vec::with_capacity(64 + 2 * self.w1.len() + self.w2.len() + self.w3.len());
        out.extend_from_slice(MAGIC);
        let version: u16 = if self.value.is_some() {
            3
        } else if self.base == Base::None {
            1
        } else {
            2
        };
        for v in [version, self.obs.version as u16, self.obs.dim as u16, ACTIONS as u16, self.h1 as u16, self.h2 as u16] {
            out.extend_from_slice(&v.to_le_bytes());
        }
        out.extend_from_slice(&[self.shift1, self.shift2, self.canonical as u8]);
        if version >= 2 {
            out.push(self.base as u8);
            out.extend_from_slice(&self.prior.to_le_bytes());
        }
        out.extend_from_slice(&(self.meta.len() as u32).to_le_bytes());
        out.extend_from_slice(self.meta.as_bytes());
        self.w1.iter().for_each(|w| out.extend_from_slice(&w.to_le_bytes()));
        self.b1.iter().for_each(|w| out.extend_from_slice(&w.to_le_bytes()));
        self.w2.iter().for_each(|w| out.push(int8(w)));
        self.b2.iter().for_each(|w| out.extend_from_slice(&w.to_le_bytes()));
        self.w3.iter().for_each(|w| out.push(int8(w)));
        self.b3.iter().for_each(|w| out.extend_from_slice(&w.to_le_bytes()));
        if let Some(v) = &self.value {
            v.w.iter().for_each(|w| out.extend_from_slice(&w.to_le_bytes()));
            out.extend_from_slice(&v.b.to_le_bytes());
        }
        let crc = crc32(&out);
        out.extend_from_slice(&crc.to_le_bytes());
        out
    }

    /// The first layer for `x` (an observation in the network's encoding), computed in full.
    pub fn accumulator(&self, x: &[i16]) -> Accumulator {
        assert_eq!(x.len(), self.obs.dim, "an observation of the network's encoding");
        Accumulator::of(&self.w1, &self.b1, x)
    }


    /// Moves `a` to input `x`, touching only the inputs that changed (a decision changes a
    /// few cards and counters of the observation). Equal to [`Net::accumulator`] of `x`.
    pub fn update(&self, a: &mut Accumulator, x: &[i16]) {
        a.update(&self.w1, x);
    }

    /// The second hidden layer's activations from an accumulator (the first `h2` entries).
    fn hidden(&self, a: &Accumulator) -> [i16; MAX_WIDTH] {
        // activations on the stack, as i16: the dot products then vectorize as i16 × i16 → i32
        let mut h1 = [0i16; MAX_WIDTH];
        let h1 = &mut h1[..self.h1];
        for (h, &v) in h1.iter_mut().zip(&a.acc) {
            *h = (v >> self.shift1).clamp(0, ONE) as i16;
        }
        let mut h2 = [0i16; MAX_WIDTH];
        for (k, h) in h2[..self.h2].iter_mut().enumerate() {
            let z = self.b2[k] + dot(&self.w2[k * self.h1..][..self.h1], h1);
            *h = (z >> self.shift2).clamp(0, ONE) as i16;
        }
        h2
    }

    /// The logits of every action id from an accumulator.
    pub fn logits(&self, a: &Accumulator) -> [i32; ACTIONS] {
        let h2 = self.hidden(a);
        let h2 = &h2[..self.h2];
        std::array::from_fn(|act| self.b3[act] + dot(&self.w3[act * self.h2..][..self.h2], h2))
    }

    /// The value head's integer output, `bv + Wv·h2` ([`VALUE_SCALE`] per hundred points);
    /// None without a value head.
    pub fn value_out(&self, a: &Accumulator) -> Option<i32> {
        let v = self.value.as_ref()?;
        let h2 = self.hidden(a);
        Some(v.b + dot(&v.w, &h2[..self.h2]))
    }

    /// The predicted defenders' final score (R7.3), in points ([`Net::points`] of
    /// [`Net::value_out`]); None without a value head.
    pub fn score(&self, a: &Accumulator) -> Option<i32> {
        self.value_out(a).map(Net::points)
    }

    /// The value head's output in points: `⌊100 · out / VALUE_SCALE⌋`, at least 0.
    pub fn points(out: i32) -> i32 {
        (out as i64 * 100).div_euclid(VALUE_SCALE).max(0) as i32
    }

    /// The logits of the real action ids, for a seat that knows trump `trump` (4 or more:
    /// unknown): a canonical network's outputs are of the renamed ids.
    pub fn real_logits(&self, a: &Accumulator, trump: u8) -> [i32; ACTIONS] {
        let l = self.logits(a);
        if !self.canonical {
            return l;
        }
        let to = canonical_ids(trump);
        std::array::from_fn(|id| l[to[id] as usize])
    }

    /// The allowed action id with the highest logit, the lowest id among equals; None when
    /// nothing is allowed.
    pub fn choose(logits: &[i32; ACTIONS], mask: &[bool; ACTIONS]) -> Option<u8> {
        let mut best: Option<(i32, u8)> = None;
        for (id, (&l, &ok)) in logits.iter().zip(mask).enumerate() {
            if ok && best.is_none_or(|(b, _)| l > b) {
                best = Some((l, id as u8));
            }
        }
        best.map(|(_, id)| id)
    }
}

// -- a network as a policy -------------------------------------------------------------------

/// A network loaded from a weights file for play (`net:PATH` policies), kept for the life of
/// the process ([`crate::agent::quant::keep`]).
pub type Loaded = crate::agent::quant::Loaded<Net>;

/// A loaded network as a policy: decides, for the seat to move, the allowed action id with
/// the highest logit (the lowest among equals), id after id until the action is complete (a
/// play of several cards takes several ids, each seeing the cards chosen so far). It reads
/// the seat's observation only. A network with a base agent (format 2) first asks the base
/// for its action (from the same view and stream: greedy draws only to break ties) and adds
/// the prior to that action's next id while the play follows it; one without draws nothing.
#[derive(Clone, Copy, Debug)]
pub struct NetPolicy(pub &'static Loaded);

impl PartialEq for NetPolicy {
    fn eq(&self, other: &Self) -> bool {
        self.0.id == other.0.id
    }
}
impl Eq for NetPolicy {}
impl Hash for NetPolicy {
    fn hash<H: Hasher>(&self, h: &mut H) {
        self.0.id.hash(h)
    }
}

/// The size a weights file declares in its header (`head`: its first bytes, at least
/// [`HEAD_BYTES`]), every section included; None where the header is not a weights file's
/// (then [`Net::parse`] names what is wrong).
fn declared_size(head: &[u8]) -> Option<u64> {
    let mut b = Bytes { rest: head.get(MAGIC.len()..)?, bad: |m| bad(m) };
    let version = b.u16("").ok().filter(|v| (1..=FORMAT_VERSION).contains(v))?;
    let (_obs, inputs, outputs) = (b.u16("").ok()?, b.u16("").ok()? as u64, b.u16("").ok()? as u64);
    let (h1, h2) = (b.u16("").ok()? as u64, b.u16("").ok()? as u64);
    let fixed = MAGIC.len() as u64 + 2 * 6 + 3 + if version >= 2 { 5 } else { 0 };
    if version >= 2 {
        b.take(8, "").ok()?; // shifts, flags, base, prior
    } else {
        b.take(3, "").ok()?;
    }
    let meta = b.u32("").ok()? as u64;
    let layers = 2 * inputs * h1 + 4 * h1 + h2 * h1 + 4 * h2 + outputs * h2 + 4 * outputs;
    let value = if version >= 3 { 2 * h2 + 4 } else { 0 };
    Some(fixed + 4 + meta + layers + value + 4)
}

/// The most bytes read of a file whose header declares no size this engine knows.
const UNDECLARED_MAX: u64 = 1 << 26;

/// Bytes read to learn a weights file's declared size: the header of the longest version.
const HEAD_BYTES: usize = play_net::HEAD; // version 4's, the longest (versions 1-3: 32 bytes)

/// The bytes of the weights file at `path`: a regular file only (a FIFO would block, a
/// device such as `/dev/zero` never end), read no further than the size its header declares,
/// and refused where the file's size is not that.
pub fn read_weights(path: &str) -> Result<Vec<u8>, Error> {
    use std::io::Read;
    let cannot = |e: std::io::Error| bad(format!("cannot read the weights file: {e}"));
    let meta = std::fs::metadata(path).map_err(cannot)?;
    if !meta.is_file() {
        return Err(bad("cannot read the weights file: it is not a regular file (one is read from a regular file only)"));
    }
    let mut f = std::fs::File::open(path).map_err(cannot)?;
    let mut head = Vec::with_capacity(HEAD_BYTES);
    (&mut f).take(HEAD_BYTES as u64).read_to_end(&mut head).map_err(cannot)?;
    let Some(size) = declared_size(&head).or_else(|| play_net::declared_size(&head)).filter(|_| head.len() >= MAGIC.len() && &head[..MAGIC.len()] == MAGIC) else {
        // not a weights file of a known version: read it whole (a regular file, bounded by its
        // own size, as large as a file worth naming can be) so that parse says what it is
        // (another format version, damage, no magic)
        if meta.len() > UNDECLARED_MAX {
            return Err(bad(format!("{} bytes, and not a weights file of a known version", meta.len())));
        }
        let mut bytes = head;
        (&mut f).take(UNDECLARED_MAX).read_to_end(&mut bytes).map_err(cannot)?;
        return Ok(bytes);
    };
    if meta.len() != size {
        return Err(bad(format!("the file holds {} bytes where its header declares {size}", meta.len())));
    }
    let mut bytes = head;
    (&mut f).take(size - bytes.len() as u64).read_to_end(&mut bytes).map_err(cannot)?;
    Ok(bytes)
}

static LOADED: Mutex<Vec<&'static Loaded>> = Mutex::new(Vec::new());

impl NetPolicy {
    /// The network in the weights file at `path` (read now; the same path with the same
    /// content gives the same policy).
    pub fn load(path: &str) -> Result<NetPolicy, Error> {
        let bytes = read_weights(path).map_err(|e| Error::BadPolicy(format!("net:{path}: {e}")))?;
        let net = Net::parse(&bytes).map_err(|e| Error::BadPolicy(format!("net:{path}: {e}")))?;
        Ok(NetPolicy(keep(&LOADED, path, net)))
    }

    /// `net:PATH`.
    pub fn name(&self) -> &'static str {
        &self.0.name
    }

    /// The predicted defenders' final score (R7.3) from what the seat to move in `view` knows
    /// (its observation before it acts): the value head's, None without one.
    pub fn score(&self, view: &SeatView) -> Option<i32> {
        let net = &self.0.net;
        net.value.as_ref()?;
        with_accumulator(self.0, view.seat(), |acc, x| {
            view.observe(net.obs, &Builder::default().pending, net.canonical, x)
                .expect("a network values a game or a search's world, never a bare position");
            net.update(acc, x);
            net.score(acc)
        })
    }
}

/// Runs `f` on this thread's accumulator of (network, seat) and its input buffer (sized from
/// the network's encoding).
fn with_accumulator<T>(l: &Loaded, seat: u8, f: impl FnOnce(&mut Accumulator, &mut [i16]) -> T) -> T {
    let fresh = || {
        // the bias alone (an all-zero input); the first update adds the observation
        let zero = vec![0; l.net.obs.dim];
        (l.net.accumulator(&zero), zero)
    };
    crate::agent::quant::with_accumulator(0, l.id, seat, fresh, f)
}

impl Decide for NetPolicy {
    fn observes(&self) -> bool {
        true
    }

    fn decide(&self, view: &SeatView, rng: &mut Rng) -> Action {
        let (net, seat) = (&self.0.net, view.seat());
        // the base's action as ids, and how far the play built so far follows it
        let base: Vec<u8> = match net.base {
            Base::None => Vec::new(),
            Base::Greedy => {
                let lead = view.phase() == Phase::Play && view.follow().is_none();
                encode(&greedy::act(view, rng), lead)
            }
        };
        let mut on_base = !base.is_empty();
        let mut step = 0usize;
        let mut b = Builder::default();
        let trump = view.known_trump();
        let observe = |b: &Builder, x: &mut [i16]| {
            view.observe(net.obs, &b.pending, net.canonical, x).expect("a network decides from a game or a search's world, never a bare position")
        };
        with_accumulator(self.0, seat, |acc, x| {
            loop {
                let mask = view.action_mask(&mut b);
                let mut allowed = mask.iter().enumerate().filter(|(_, &m)| m).map(|(id, _)| id as u8);
                let choice = match (allowed.next(), allowed.next()) {
                    (Some(only), None) => only, // forced: the network would take it too
                    _ => {
                        observe(&b, x);
                        net.update(acc, x);
                        let mut logits = net.real_logits(acc, trump);
                        if on_base {
                            let next = base[step] as usize;
                            logits[next] = logits[next].saturating_add(net.prior);
                        }
                        Net::choose(&logits, &mask).expect("a seat to move has an allowed id")
                    }
                };
                on_base = on_base && base.get(step) == Some(&choice);
                step += 1;
                if let Some(action) = view.choose(&mut b, choice).expect("an allowed id") {
                    return action;
                }
            }
        })
    }
}
