//! What every integer network of the engine shares ([`crate::agent::net`]'s over action ids,
//! [`crate::agent::play_net`]'s over whole plays): the weights file's magic, the activations'
//! ceiling and widest layer, and the first layer kept as an accumulator.

/// The first bytes of a weights file.
pub const MAGIC: &[u8; 8] = b"TRACTNET";

/// The ceiling of a ClippedReLU: activations are 0..=127.
pub const ONE: i32 = 127;
/// The widest hidden layer a file may declare.
pub const MAX_WIDTH: usize = 1024;

/// The first layer for one input: the input it was computed for (the network's encoding's
/// `dim` entries) and `b1 + W1·x`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Accumulator {
    pub x: Vec<i16>,
    pub acc: Vec<i32>,
}

/// Reads little-endian values off the front of a weights file's bytes; `bad` names what is
/// wrong (each format says whose weights).
pub struct Bytes<'a> {
    pub rest: &'a [u8],
    pub bad: fn(String) -> crate::rules::error::Error,
}

impl<'a> Bytes<'a> {
    /// The body of a weights file after its magic, once the magic and the CRC of every byte
    /// before the last four are checked.
    pub fn of_file(bytes: &'a [u8], bad: fn(String) -> crate::rules::error::Error) -> Result<Bytes<'a>, crate::rules::error::Error> {
        if bytes.len() < MAGIC.len() + 4 || &bytes[..MAGIC.len()] != MAGIC {
            return Err(bad("not a weights file (it does not start with \"TRACTNET\")".into()));
        }
        let (body, crc) = bytes.split_at(bytes.len() - 4);
        if crate::game::record::crc32(body) != u32::from_le_bytes(crc.try_into().expect("4 bytes")) {
            return Err(bad("the CRC does not match: the file is damaged or cut short".into()));
        }
        Ok(Bytes { rest: &body[MAGIC.len()..], bad })
    }

    pub fn take(&mut self, n: usize, what: &str) -> Result<&'a [u8], crate::rules::error::Error> {
        if self.rest.len() < n {
            return Err((self.bad)(format!("the file ends inside {what}")));
        }
        let (head, rest) = self.rest.split_at(n);
        self.rest = rest;
        Ok(head)
    }
    pub fn u8(&mut self, what: &str) -> Result<u8, crate::rules::error::Error> {
        Ok(self.take(1, what)?[0])
    }
    pub fn u16(&mut self, what: &str) -> Result<u16, crate::rules::error::Error> {
        Ok(u16::from_le_bytes(self.take(2, what)?.try_into().expect("2 bytes")))
    }
    pub fn u32(&mut self, what: &str) -> Result<u32, crate::rules::error::Error> {
        Ok(u32::from_le_bytes(self.take(4, what)?.try_into().expect("4 bytes")))
    }
    pub fn i16s(&mut self, n: usize, what: &str) -> Result<Vec<i16>, crate::rules::error::Error> {
        Ok(self.take(2 * n, what)?.chunks_exact(2).map(|c| i16::from_le_bytes([c[0], c[1]])).collect())
    }
    pub fn i32s(&mut self, n: usize, what: &str) -> Result<Vec<i32>, crate::rules::error::Error> {
        Ok(self.take(4 * n, what)?.chunks_exact(4).map(|c| i32::from_le_bytes(c.try_into().expect("4 bytes"))).collect())
    }
    /// int8 values, widened so that dot products are i16 × i16 → i32.
    pub fn i8s(&mut self, n: usize, what: &str) -> Result<Vec<i16>, crate::rules::error::Error> {
        Ok(self.take(n, what)?.iter().map(|&b| b as i8 as i16).collect())
    }
}

/// Σ w·h over weights (int8, or a value head's int16) and activations 0..=127: a file whose
/// sums could pass an i32 is refused when it is read.
#[inline]
pub fn dot(w: &[i16], h: &[i16]) -> i32 {
    // eight lanes at a time: full-width multiply-adds of i16 pairs on any x86-64 (SSE2)
    let (wc, wr) = w.as_chunks::<8>();
    let (hc, hr) = h[..w.len()].as_chunks::<8>();
    let mut lanes = [0i32; 8];
    for (w, h) in wc.iter().zip(hc) {
        for l in 0..8 {
            lanes[l] += w[l] as i32 * h[l] as i32;
        }
    }
    lanes.iter().sum::<i32>() + wr.iter().zip(hr).map(|(&w, &h)| w as i32 * h as i32).sum::<i32>()
}

/// A computation of the integer kernels, run by [`kernel`]. Its `run` must be
/// `#[inline(always)]`, so that the AVX2 build compiles its body and not a call to it.
pub trait Kernel {
    type Out;
    fn run(self) -> Self::Out;
}

/// `k.run()` compiled for AVX2 where the CPU has it (x86-64; `std` checks once and keeps the
/// answer), else as it is. The AVX2 build is the same Rust code in wider registers, and
/// integer sums in another order of instructions are the same sums, so every CPU gives the
/// same results (twin: `play_net`'s `avx2_builds_score_as_the_plain_build`).
#[inline(always)]
pub fn kernel<K: Kernel>(k: K) -> K::Out {
    #[cfg(target_arch = "x86_64")]
    if std::is_x86_feature_detected!("avx2") {
        return with_avx2(k);
    }
    k.run()
}

/// `k.run()` inlined into a function compiled for AVX2: call only where the CPU has it.
#[cfg(target_arch = "x86_64")]
#[allow(unsafe_code)]
pub(crate) fn with_avx2<K: Kernel>(k: K) -> K::Out {
    #[target_feature(enable = "avx2")]
    unsafe fn avx2<K: Kernel>(k: K) -> K::Out {
        k.run()
    }
    assert!(std::is_x86_feature_detected!("avx2"), "AVX2 code on a CPU without it");
    // SAFETY: the CPU has AVX2 (asserted above; `std` keeps the answer, so this costs a
    // load); `avx2` itself only runs `k`.
    unsafe { avx2(k) }
}

/// The indices at which an input `x` differs from `old` (or is not 0, with no `old`), in
/// order: 64 entries compared at a time into a bit mask, whose bits are then visited (inputs
/// change few at a time, and features are mostly 0). An iterator rather than a callback, so
/// that a kernel's AVX2 build inlines it.
pub struct Changes<'a> {
    x: &'a [i16],
    old: Option<&'a [i16]>,
    /// The first index past the entries compared so far; the mask's bit 0 is `base`.
    next: usize,
    base: usize,
    mask: u64,
}

impl<'a> Changes<'a> {
    #[inline(always)]
    pub fn of(x: &'a [i16], old: Option<&'a [i16]>) -> Changes<'a> {
        if let Some(o) = old {
            assert_eq!(o.len(), x.len(), "inputs of one size");
        }
        Changes { x, old, next: 0, base: 0, mask: 0 }
    }
}

impl Iterator for Changes<'_> {
    type Item = usize;
    #[inline(always)]
    fn next(&mut self) -> Option<usize> {
        while self.mask == 0 {
            let at = self.next;
            if at >= self.x.len() {
                return None;
            }
            let end = (at + 64).min(self.x.len());
            let x = &self.x[at..end];
            let mut m = 0u64;
            match (self.old, <&[i16; 64]>::try_from(x)) {
                (Some(o), Ok(x)) => {
                    let o: &[i16; 64] = o[at..end].try_into().expect("64 entries");
                    for l in 0..64 {
                        m |= ((x[l] != o[l]) as u64) << l;
                    }
                }
                (None, Ok(x)) => {
                    for l in 0..64 {
                        m |= ((x[l] != 0) as u64) << l;
                    }
                }
                (old, Err(_)) => {
                    for (l, &v) in x.iter().enumerate() {
                        m |= ((v != old.map_or(0, |o| o[at + l])) as u64) << l;
                    }
                }
            }
            (self.base, self.next, self.mask) = (at, end, m);
        }
        let i = self.base + self.mask.trailing_zeros() as usize;
        self.mask &= self.mask - 1;
        Some(i)
    }
}

/// `acc += n · w`, one first-layer row (an input's weights) scaled by the input (most inputs
/// and changes are ±1: no multiply then).
#[inline(always)]
pub fn add_row(acc: &mut [i32], w: &[i16], n: i32) {
    match n {
        1 => acc.iter_mut().zip(w).for_each(|(a, &w)| *a += w as i32),
        -1 => acc.iter_mut().zip(w).for_each(|(a, &w)| *a -= w as i32),
        _ => acc.iter_mut().zip(w).for_each(|(a, &w)| *a += n * w as i32),
    }
}

impl Accumulator {
    /// `b1 + W1·x` computed in full, `w1` input-major with `b1.len()` weights per input.
    pub fn of(w1: &[i16], b1: &[i32], x: &[i16]) -> Accumulator {
        let h1 = b1.len();
        let mut acc = b1.to_vec();
        for (i, &n) in x.iter().enumerate() {
            if n != 0 {
                add_row(&mut acc, &w1[i * h1..][..h1], n as i32);
            }
        }
        Accumulator { x: x.to_vec(), acc }
    }

    /// Moves to input `x` (as long as the one it holds), touching only the inputs that
    /// changed: equal to [`Accumulator::of`] of `x`.
    pub fn update(&mut self, w1: &[i16], x: &[i16]) {
        assert_eq!(x.len(), self.x.len(), "an input of the network's size");
        kernel(Update { a: self, w1, x })
    }

    /// [`Accumulator::update`] as written (whichever instruction set compiles it).
    #[inline(always)]
    pub(crate) fn update_body(&mut self, w1: &[i16], x: &[i16]) {
        let h1 = self.acc.len();
        for i in Changes::of(x, Some(&self.x)) {
            add_row(&mut self.acc, &w1[i * h1..][..h1], x[i] as i32 - self.x[i] as i32);
        }
        self.x.copy_from_slice(x);
    }
}

/// [`Accumulator::update`] as a [`Kernel`].
struct Update<'a> {
    a: &'a mut Accumulator,
    w1: &'a [i16],
    x: &'a [i16],
}

impl Kernel for Update<'_> {
    type Out = ();
    #[inline(always)]
    fn run(self) {
        self.a.update_body(self.w1, self.x)
    }
}

/// A network loaded from a weights file for play (`net:PATH` policies): the path it was named
/// by and the network. Kept once per distinct (path, content) for the life of the process,
/// so that policies stay `Copy`.
#[derive(Debug)]
pub struct Loaded<T> {
    pub id: u32,
    pub path: String,
    /// `net:PATH`.
    pub name: String,
    pub net: T,
}

/// The kept network `net` named by `path` in `registry` (the same path and network give the
/// same entry).
pub fn keep<T: PartialEq + Send + Sync>(registry: &std::sync::Mutex<Vec<&'static Loaded<T>>>, path: &str, net: T) -> &'static Loaded<T> {
    let mut all = registry.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(l) = all.iter().find(|l| l.path == path && l.net == net) {
        return l;
    }
    let l: &'static Loaded<T> = Box::leak(Box::new(Loaded { id: all.len() as u32, path: path.to_string(), name: format!("net:{path}"), net }));
    all.push(l);
    l
}

/// A thread's (network kind, network id, seat, accumulator, input buffer).
type Kept = (u8, u32, u8, Accumulator, Vec<i16>);

thread_local! {
    /// Per thread, each (network, seat)'s accumulator from its last decision, and a buffer of
    /// the network's input size for the next observation. The update is exact, so what a
    /// thread last computed never changes a decision, only its cost.
    static ACCUMULATORS: std::cell::RefCell<Vec<Kept>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// Runs `f` on this thread's accumulator of network `id` of kind `kind` (each kind numbers
/// its networks) for `seat`, and its input buffer; `fresh` gives both for a first call (the
/// bias alone, for an all-zero input).
pub fn with_accumulator<R>(kind: u8, id: u32, seat: u8, fresh: impl FnOnce() -> (Accumulator, Vec<i16>), f: impl FnOnce(&mut Accumulator, &mut [i16]) -> R) -> R {
    ACCUMULATORS.with(|cell| {
        let mut accs = cell.borrow_mut();
        let at = accs.iter().position(|k| (k.0, k.1, k.2) == (kind, id, seat)).unwrap_or_else(|| {
            let (a, x) = fresh();
            accs.push((kind, id, seat, a, x));
            accs.len() - 1
        });
        let (_, _, _, acc, x) = &mut accs[at];
        f(acc, x)
    })
}
