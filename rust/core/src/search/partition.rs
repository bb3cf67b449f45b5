//! The open-card solver's partition entries (rust/core/PARTITION.md): a trick start's bounds
//! kept for every position that agrees with it on the cards its search depended on, as bridge's
//! double-dummy solvers keep them. A search returns, with its value, its relevance (`Rel`):
//! per class the lowest strength (R2.3–R2.4) a result read. An entry keeps, per class, the
//! top `j` kinds left exact (renamed as the solver's key renames them) and of the rest
//! ("small") only each hand's multiset of (copies, points) (R7.1); `j` covers the relevance,
//! every kind touching a usable link (L1: R3.2–R3.3, R5.3) and never ends inside a run of equal
//! strength (E1: R2.6). Entries are found through their bucket (the leader, and every hand's
//! cards and points of each class), which lists the exact parts (`j` per class) stored there.

use crate::game::hand::Position;
use crate::rules::card::KINDS;
use crate::rules::score::KIND_POINTS;
use crate::rules::trump::{Context, TRUMP};
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::Arc;

/// Per class (the plain suits 0..4, the trumps 4) the lowest strength (R2.3–R2.4) a search's
/// result depended on, [`NOTHING`] where none did.
pub(crate) type Rel = [u8; 5];

/// Above every strength (BJ is 20): no kind of the class relevant.
pub(crate) const NOTHING: u8 = 21;

/// Every kind relevant (strength 0 is at or below every kind's).
pub(crate) const ALL: Rel = [0; 5];

/// `a` joined by `b`: per class the lower strength.
#[inline]
pub(crate) fn union(a: &mut Rel, b: &Rel) {
    for (x, y) in a.iter_mut().zip(b) {
        *x = (*x).min(*y);
    }
}

/// The most kinds a class holds (a plain suit 12, the trumps at most 18).
const CLASS_KINDS: usize = 24;

/// The bit of [`Classes`]' words that marks a trump tied in strength with the one before.
const TIE: u32 = 63;

/// A trick start's kinds left per class, strongest first (equal strengths in a fixed order),
/// how many of the strongest an entry must keep exact to cover every kind touching a usable
/// link (L1), and what [`key`] reads of each kind: its word as an exact kind and its code in
/// each hand as a small one.
pub(crate) struct Classes {
    pub(crate) kinds: [[u8; CLASS_KINDS]; 5],
    pub(crate) n: [u8; 5],
    pub(crate) link_need: [u8; 5],
    /// Each kind's word as an exact kind: every hand's copies (a byte each), its points (in
    /// fives) and its usable links (a plain kind's up to the next stronger, a trump touching
    /// one by id); each run of equal strength among the trumps sorted (E1 keeps runs whole, so
    /// any exact part is a prefix).
    words: [[u64; CLASS_KINDS]; 5],
    /// Each kind's code in each hand as a small kind, a byte a hand: 0 not held, else
    /// 1 + (copies − 1) · 3 + points / 5 (at most 12).
    codes: [[u32; CLASS_KINDS]; 5],
    /// The bucket: a hash of the leader and every hand's cards and points (in fives) of each
    /// class, what every position matching one of its entries shares.
    pub(crate) bucket: u64,
}

impl Classes {
    /// An empty list, filled by [`Classes::push`] strongest first then [`Classes::finish`].
    pub(crate) fn new() -> Classes {
        Classes { kinds: [[0; CLASS_KINDS]; 5], n: [0; 5], link_need: [0; 5], words: [[0; CLASS_KINDS]; 5], codes: [[0; CLASS_KINDS]; 5], bucket: 0 }
    }

    #[inline]
    pub(crate) fn push(&mut self, class: usize, k: u8) {
        self.kinds[class][self.n[class] as usize] = k;
        self.n[class] += 1;
    }

    /// What the entries read of `pos`'s kinds listed, given `links`: the kinds whose link up
    /// (R3.3) is usable (some hand holds two or more of both), and `touching`: those kinds and
    /// the kinds they link up to, as bits over kind ids.
    pub(crate) fn finish(&mut self, pos: &Position, ctx: &Context, links: u64, touching: u64) {
        let hands = &pos.hands;
        // every hand's cards and points (in fives) of each class: the bucket
        let mut h = H::new();
        h.put(pos.to_move as u64);
        let mut ties = false;
        for class in 0..5 {
            let n = self.n[class] as usize;
            let trumps = class == TRUMP as usize;
            // the four hands' copies and points a byte each (no byte overflows: at most 4
            // copies of a kind, 24 kinds of a class, 2 fives a card)
            let (mut cards, mut fives, mut need, mut before) = (0u32, 0u32, 0u8, u8::MAX);
            let (kinds, words, codes) = (&self.kinds[class][..n], &mut self.words[class][..n], &mut self.codes[class][..n]);
            for (i, ((&k, w), code)) in kinds.iter().zip(words.iter_mut()).zip(codes.iter_mut()).enumerate() {
                let k = k as usize;
                let points = KIND_POINTS[k] as u32 / 5;
                let x = u32::from_le_bytes([hands[0][k], hands[1][k], hands[2][k], hands[3][k]]);
                let touches = touching >> k & 1;
                need = if touches == 1 { i as u8 + 1 } else { need };
                let links = if trumps {
                    // a trump touching a usable link by id (tractors keep their kinds); a tie
                    // with the one before marked, for the runs' sort below
                    let strength = ctx.strength[k];
                    let tie = strength == before;
                    before = strength;
                    ties |= tie;
                    (tie as u64) << TIE | touches * ((k as u64 + 1) << 40)
                } else {
                    // linked up to the next stronger kind left (a plain suit's up is its next rank)
                    (links >> k & 1) << 34
                };
                *w = x as u64 | (points as u64) << 32 | links;
                let held = (x | x >> 1 | x >> 2) & 0x0101_0101;
                *code = 3 * (x - held) + (1 + points) * held;
                cards += x;
                fives += x * points;
            }
            self.link_need[class] = need;
            h.put((cards as u64) << 32 | fives as u64);
        }
        self.bucket = h.finish() as u64;
        if !ties {
            return;
        }
        // each run of equal strength among the trumps sorted (its first kind carries no tie bit)
        let (n, words) = (self.n[TRUMP as usize] as usize, &mut self.words[TRUMP as usize]);
        let mut i = 0;
        while i < n {
            let mut e = i + 1;
            while e < n && words[e] >> TIE == 1 {
                e += 1;
            }
            if e - i >= 2 {
                let run = &mut words[i..e];
                for u in run.iter_mut() {
                    *u &= !(1 << TIE);
                }
                run.sort_unstable();
                for u in run.iter_mut().skip(1) {
                    *u |= 1 << TIE;
                }
            }
            i = e;
        }
    }

    /// The top `j` kinds of `class` end between two strengths (E1: no small kind ties an exact
    /// one, R2.6's earlier play would decide between them).
    #[inline]
    fn cut_between(&self, ctx: &Context, class: usize, j: u8) -> bool {
        let (j, kinds) = (j as usize, &self.kinds[class]);
        j == 0 || j >= self.n[class] as usize || ctx.strength[kinds[j] as usize] < ctx.strength[kinds[j - 1] as usize]
    }

    /// The exact part an entry found leaning on `rel` keeps: per class the kinds at or above
    /// its strength, raised to cover the links (L1) and to a strength boundary (E1).
    pub(crate) fn exact_part(&self, ctx: &Context, rel: &Rel) -> [u8; 5] {
        std::array::from_fn(|class| {
            let kinds = &self.kinds[class][..self.n[class] as usize];
            let by_rel = kinds.iter().take_while(|&&k| ctx.strength[k as usize] >= rel[class]).count() as u8;
            let mut j = by_rel.max(self.link_need[class]);
            while !self.cut_between(ctx, class, j) {
                j += 1;
            }
            j
        })
    }

    /// Whether an entry keeping the top `j` kinds exact may match this position: it holds
    /// that many, and no small kind touches a usable link (L1) or ties an exact one (E1).
    #[inline]
    pub(crate) fn fits(&self, ctx: &Context, j: &[u8; 5]) -> bool {
        (0..5).all(|c| j[c] <= self.n[c] && j[c] >= self.link_need[c] && self.cut_between(ctx, c, j[c]))
    }

    /// The relevance of an entry's exact part `j` at a position it matches: per class the
    /// strength of its lowest exact kind.
    pub(crate) fn rel_of(&self, ctx: &Context, j: &[u8; 5]) -> Rel {
        std::array::from_fn(|c| if j[c] == 0 { NOTHING } else { ctx.strength[self.kinds[c][j[c] as usize - 1] as usize] })
    }
}

/// A small kind's code counted in a hand's histogram ([`key`]): code c at bit 5 · (c − 1),
/// code 0 (not held) not counted.
const COUNTED: [u64; 13] = {
    let mut t = [0u64; 13];
    let mut c = 1;
    while c < 13 {
        t[c] = 1 << (5 * (c - 1));
        c += 1;
    }
    t
};

/// A 128-bit hash of words (two multiply-rotate lanes).
struct H(u64, u64);

impl H {
    fn new() -> H {
        H(0x243f_6a88_85a3_08d3, 0x1319_8a2e_0370_7344)
    }
    #[inline]
    fn put(&mut self, w: u64) {
        self.0 = (self.0 ^ w).wrapping_mul(0x9e37_79b9_7f4a_7c15).rotate_left(29);
        self.1 = (self.1.rotate_left(17) ^ w.wrapping_mul(0xc2b2_ae3d_27d4_eb4f)).wrapping_mul(0x1656_67b1_9e37_79f9);
    }
    fn finish(&self) -> u128 {
        let a = (self.0 ^ self.1 >> 31).wrapping_mul(0xff51_afd7_ed55_8ccd);
        let b = (self.1 ^ self.0 >> 29).wrapping_mul(0xc4ce_b9fe_1a85_ec53);
        (a as u128) << 64 | (a ^ b >> 33) as u128
    }
}

/// The key of a trick start keeping the top `j[c]` kinds of each class exact and of the rest
/// each hand's multiset of (copies, points) (R7.1). The exact kinds renamed: a plain suit's by
/// their order, copies, points and usable links (R2.4, R3.3); the trumps by their order in
/// strength with its ties (R2.3, R2.6), each run of equal strength sorted, copies and points,
/// those touching a usable link by id (R3.3, R4.2: tractors keep their kinds). `j` must fit
/// ([`Classes::fits`]: no run of equal strength cut).
pub(crate) fn key(pos: &Position, classes: &Classes, j: &[u8; 5]) -> u128 {
    let mut h = H::new();
    h.put(0x7061_7274 << 8 | pos.to_move as u64);
    for class in 0..5 {
        let (j, n) = (j[class] as usize, classes.n[class] as usize);
        // a class with no kind left, or none small, adds no histogram (told apart by `j < n`)
        h.put(0xabcd_0000 | (class as u64) << 8 | j as u64 | ((j < n) as u64) << 7);
        for &w in &classes.words[class][..j] {
            h.put(w);
        }
        if j == n {
            continue;
        }
        // each hand's small kinds of the class as a histogram of their codes: 12 codes, 5
        // bits each (a class has at most 18 kinds: no count overflows)
        let mut hist = [0u64; 4];
        for &code in &classes.codes[class][j..n] {
            for (s, x) in hist.iter_mut().enumerate() {
                *x += COUNTED[(code >> (8 * s) & 0xff) as usize];
            }
        }
        for w in hist {
            h.put(w);
        }
    }
    h.finish()
}

/// The exact parts stored in one bucket, the one that last answered first: at most
/// [`PARTS`] (an older one is forgotten, its entries then found no more: a cost, never a value).
#[derive(Clone, Copy, Default)]
pub(crate) struct Parts {
    pub(crate) n: u8,
    pub(crate) js: [[u8; 5]; PARTS],
}

/// The exact parts a bucket lists: 6, not 4 (nodes BENCH 9 × 10 −6.3%, 10 × 5 −8.1%; the time
/// a position 0.94–0.96× at 10 cards, within the noise at 8 and 9: benches/HISTORY.md §51).
pub(crate) const PARTS: usize = 6;

impl Parts {
    /// `j` listed first (moved there if listed).
    pub(crate) fn front(&mut self, j: [u8; 5]) {
        let n = self.n as usize;
        let at = self.js[..n].iter().position(|x| *x == j).unwrap_or(n.min(PARTS - 1));
        self.js[..=at].rotate_right(1);
        self.js[0] = j;
        self.n = (n + (at == n) as usize).min(PARTS) as u8;
    }
}

/// The buckets' lists, direct-mapped by bucket: a slot keeps one bucket (a newer one takes
/// it: its entries then found no more, a cost, never a value). Starts small and doubles when
/// as many buckets were kept as it has slots, up to [`BUCKET_SLOTS`].
#[derive(Default)]
pub(crate) struct Buckets {
    /// (bucket + 1, its parts); 0: empty.
    slots: Vec<(u64, Parts)>,
    shift: u32,
    kept: usize,
    /// The lists shared with other threads' (then the slots above stay empty).
    shared: Option<Arc<SharedBuckets>>,
}

/// Buckets' lists that several threads read and write at once: a fixed size, each slot five
/// 64-bit words stored apart, the bucket + 1 XOR a mix of the parts' words, so a slot read
/// while another thread writes it reads as another bucket's (a list lost: a cost, never a
/// value; an entry is found only under its own exact part's key).
pub struct SharedBuckets {
    slots: Vec<[AtomicU64; 5]>,
    shift: u32,
}

/// The parts a slot's words list (its words 1–4: the count, then each part's five bytes).
fn parts_of(w: &[u64; 5]) -> Parts {
    let mut bytes = [0u8; 32];
    for (i, x) in w[1..].iter().enumerate() {
        bytes[8 * i..8 * i + 8].copy_from_slice(&x.to_le_bytes());
    }
    let mut parts = Parts { n: bytes[0].min(PARTS as u8), ..Parts::default() };
    for (i, j) in parts.js.iter_mut().enumerate() {
        j.copy_from_slice(&bytes[1 + 5 * i..6 + 5 * i]);
    }
    parts
}

/// A list's words mixed (what the bucket + 1 is XORed with).
fn mix_parts(w: &[u64]) -> u64 {
    w.iter().fold(0u64, |h, &x| (h ^ x).wrapping_mul(0x9e37_79b9_7f4a_7c15).rotate_left(29))
}

impl SharedBuckets {
    /// `slots` slots (a power of two).
    pub fn new(slots: usize) -> SharedBuckets {
        assert!(slots.is_power_of_two() && slots > 1, "a power of two");
        SharedBuckets { slots: (0..slots).map(|_| Default::default()).collect(), shift: 64 - slots.trailing_zeros() }
    }

    #[inline]
    fn at(&self, b: u64) -> usize {
        (b.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> self.shift) as usize
    }

    fn get(&self, b: u64) -> Option<Parts> {
        let w = self.slots[self.at(b)].each_ref().map(|x| x.load(Relaxed));
        (w[0] ^ mix_parts(&w[1..]) == b.wrapping_add(1)).then(|| parts_of(&w))
    }

    /// Every list of `buckets` kept here too (a thread's handed to the threads).
    pub(crate) fn take_in(&self, buckets: &Buckets) {
        for (b1, parts) in buckets.slots.iter().filter(|s| s.0 != 0) {
            self.put(b1.wrapping_sub(1), parts);
        }
    }

    /// Every list of `other` kept here too, read as the threads write it (a list written
    /// meanwhile may be missed, or read torn: then kept under a bucket no search reads but by
    /// a 64-bit chance, and even then only an entry's own exact part finds it).
    pub fn take_shared(&self, other: &SharedBuckets) {
        for slot in &other.slots {
            let w = slot.each_ref().map(|x| x.load(Relaxed));
            if w == [0; 5] {
                continue;
            }
            // the bucket + 1 is the first word XOR the parts' mix
            let b = (w[0] ^ mix_parts(&w[1..])).wrapping_sub(1);
            self.put(b, &parts_of(&w));
        }
    }

    fn put(&self, b: u64, parts: &Parts) {
        let mut bytes = [0u8; 32];
        bytes[0] = parts.n;
        for (i, j) in parts.js.iter().enumerate() {
            bytes[1 + 5 * i..6 + 5 * i].copy_from_slice(j);
        }
        let w: [u64; 4] = std::array::from_fn(|i| u64::from_le_bytes(bytes[8 * i..8 * i + 8].try_into().expect("8 bytes")));
        let slot = &self.slots[self.at(b)];
        slot[0].store(b.wrapping_add(1) ^ mix_parts(&w), Relaxed);
        for (x, v) in slot[1..].iter().zip(w) {
            x.store(v, Relaxed);
        }
    }
}

/// The most slots [`Buckets`] grows to (40 bytes each: 80 MiB).
const BUCKET_SLOTS: usize = 1 << 21;

impl Buckets {
    #[inline]
    fn at(&self, b: u64) -> usize {
        (b.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> self.shift) as usize
    }

    /// Lists shared with the other buckets made over `shared`.
    pub(crate) fn sharing(shared: &Arc<SharedBuckets>) -> Buckets {
        Buckets { shared: Some(shared.clone()), ..Buckets::default() }
    }

    /// The parts bucket `b` lists, if kept.
    #[inline]
    pub(crate) fn get(&self, b: u64) -> Option<Parts> {
        if let Some(s) = &self.shared {
            return s.get(b);
        }
        let s = self.slots.get(self.at(b))?;
        (s.0 == b.wrapping_add(1)).then_some(s.1)
    }

    /// Bucket `b`'s parts made `parts`.
    pub(crate) fn put(&mut self, b: u64, parts: Parts) {
        if let Some(s) = &self.shared {
            return s.put(b, &parts);
        }
        if self.slots.is_empty() {
            self.slots = vec![(0, Parts::default()); 1 << 10];
            self.shift = 64 - 10;
        }
        self.kept += 1;
        if self.kept >= self.slots.len() && self.slots.len() < BUCKET_SLOTS {
            let size = 2 * self.slots.len();
            let old = std::mem::replace(&mut self.slots, vec![(0, Parts::default()); size]);
            self.shift -= 1;
            self.kept = 0;
            for s in old.into_iter().filter(|s| s.0 != 0) {
                let at = self.at(s.0.wrapping_sub(1));
                self.slots[at] = s;
            }
        }
        let at = self.at(b);
        self.slots[at] = (b.wrapping_add(1), parts);
    }

    /// `j` listed first in bucket `b`'s parts (moved there if listed).
    pub(crate) fn front(&mut self, b: u64, j: [u8; 5]) {
        let mut parts = self.get(b).unwrap_or_default();
        if parts.n > 0 && parts.js[0] == j {
            return;
        }
        parts.front(j);
        self.put(b, parts);
    }
}

// a class's kinds fit [`Classes`]' lists and [`key`]'s 5-bit counts
const _: () = assert!(KINDS <= 64 && CLASS_KINDS < 32);

#[cfg(test)]
mod tests {
    use super::*;

    /// Shared buckets give back the lists kept; a slot whose words come from two writes
    /// reads as no list.
    #[test]
    fn shared_buckets_keep_lists_and_refuse_torn_ones() {
        let b = SharedBuckets::new(1 << 12);
        let list = |i: u8| {
            let mut p = Parts::default();
            for j in 0..(i % 7) {
                p.front([i, j, 1, 2, 3]);
            }
            p
        };
        for i in 0..200u64 {
            b.put(i * 7919, &list(i as u8));
        }
        let same = |x: &Parts, y: &Parts| x.n == y.n && x.js[..x.n as usize] == y.js[..y.n as usize];
        let kept = (0..200u64).filter(|&i| b.get(i * 7919).is_some_and(|p| same(&p, &list(i as u8)))).count();
        assert!(kept > 190, "{kept}");
        assert!(b.get(1).is_none());
        for word in 0..5 {
            let b = SharedBuckets::new(1 << 4);
            let at = b.at(5);
            b.put(5, &list(3));
            let first: [u64; 5] = b.slots[at].each_ref().map(|x| x.load(Relaxed));
            b.put(5, &list(6));
            b.slots[at][word].store(first[word], Relaxed);
            assert!(b.get(5).is_none(), "{word}");
        }
    }

    /// Buckets come back as kept through growth, or not at all (a slot keeps the later of two
    /// that meet: a cache), never another bucket's parts; the last one kept always.
    #[test]
    fn buckets_come_back_through_growth() {
        let mut b = Buckets::default();
        let key = |i: u64| i.wrapping_mul(0xc2b2_ae3d_27d4_eb4f) ^ 7;
        for i in 0..20_000u64 {
            b.front(key(i), [i as u8; 5]);
            assert!(b.get(key(i)).is_some_and(|p| p.n == 1 && p.js[0] == [i as u8; 5]));
        }
        let kept = (0..20_000u64).filter(|&i| b.get(key(i)).is_some_and(|p| p.n == 1 && p.js[0] == [i as u8; 5])).count();
        assert!(kept > 5_000, "{kept}");
        assert!((0..20_000u64).all(|i| b.get(key(i)).is_none_or(|p| p.js[0] == [i as u8; 5])));
        assert!(b.get(key(99_999)).is_none());
    }

    #[test]
    fn parts_keep_the_latest_first_and_forget_the_oldest() {
        let mut p = Parts::default();
        for i in 0..8u8 {
            p.front([i; 5]);
        }
        assert_eq!(p.n as usize, PARTS);
        assert_eq!(p.js, [[7; 5], [6; 5], [5; 5], [4; 5], [3; 5], [2; 5]]);
        p.front([4; 5]);
        assert_eq!(p.js, [[4; 5], [7; 5], [6; 5], [5; 5], [3; 5], [2; 5]]);
        let mut q = Parts::default();
        q.front([1; 5]);
        q.front([1; 5]);
        assert_eq!((q.n, q.js[0]), (1, [1; 5]));
    }
}
