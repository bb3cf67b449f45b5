//! The competition programmes (C4–C5): count, rank and list the selections of the led class
//! that reach a given target, one kind at a time in link order.
//!
//! A selection is read kind by kind; a [`Machine`] carries what the kinds read so far decide:
//! - [`Machine::Shape`] (C4 unit leads): how many kinds hold 1, 2, 3, 4 copies;
//! - [`Machine::Pairs`] (C5 without any tractor): the pairs and triples so far;
//! - [`Machine::Partition`] (C5 with tractors, where every tractor counts in L): the set of
//!   partial partitions still alive — which of the target's tractor lengths are still to be
//!   placed, the tractors under way and the pairs and triples so far. A selection reaches the
//!   target exactly when one of its partitions realises L* with p ≥ p* and t ≥ t*: since no
//!   selection beats the target, that is exactly "its key is K*". The set is a deterministic
//!   state (subset construction), so each selection is counted once.
//!
//! The programme memoises (kind, cards so far, state) → number of completions, so the exact
//! count needs no listing; `nth` walks the same table (uniform sampling is `nth` of a uniform
//! rank).

use std::collections::HashMap;
use std::hash::BuildHasherDefault;

use crate::rules::card::{Counts, KINDS};
use crate::util::hash::FxHasher;
use super::competition::{tier_of_shape, Key};

type Map<K, V> = HashMap<K, V, BuildHasherDefault<FxHasher>>;

/// One kind of the led class in link order.
#[derive(Clone, Copy, Debug)]
pub(crate) struct KSlot {
    pub kind: u8,
    pub lo: u8,
    pub hi: u8,
    /// Linked to the previous slot (C1 / R3.3): a tractor may run on.
    pub linked: bool,
}

/// What a programme tracks while reading a selection.
pub(crate) enum Machine {
    /// C4: accept when the shape's tier is `tier` (unit lead of `n` cards).
    Shape { n: u8, tier: u8 },
    /// C5 without tractors: at least `p` kinds with 2–3 copies, `t` with 3 (when counted).
    Pairs { p: u8, t: u8, m3: bool },
    /// C5 with tractors: the subset construction over partial partitions.
    Partition(Box<Partition>),
}

/// Partial partitions, packed in a u64:
/// bits 0..12 two tractors under way (2 bits multiplicity − 1, 4 bits units still to come);
/// bits 12..36 the tractor lengths still to place (mixed radix over the target's lengths);
/// bits 36..44 pairs (capped at p*), 44..52 triples (capped at t*).
pub(crate) struct Partition {
    /// The target's distinct tractor lengths and how many of each.
    lengths: Vec<(u8, u8)>,
    radix: Vec<u32>,
    p: u8,
    t: u8,
    m3: bool,
    sets: Vec<Vec<u64>>,
    ids: Map<Vec<u64>, u32>,
    next: Map<(u32, u8, bool), u32>,
    accepting: Vec<bool>,
    /// Per set: the fewest cards any of its partial partitions still needs (see `need`).
    min_need: Vec<u8>,
    scratch: Vec<u64>,
}

/// The fewest cards still needed for `dp` more pairs and `dt` more triples among the other
/// cards: a triple is also a pair (C5), so `dt ≤ dp` triples cost one card more than pairs.
fn rest_need(dp: u8, dt: u8) -> u8 {
    (2 * dp + dt).max(3 * dt)
}

const OPEN_BITS: u64 = (1 << 12) - 1;

fn open_of(st: u64) -> [(u8, u8); 2] {
    let one = |v: u64| (((v & 3) as u8) + 1, ((v >> 2) & 15) as u8);
    let a = one(st & 63);
    let b = one((st >> 6) & 63);
    [if a.1 == 0 { (0, 0) } else { a }, if b.1 == 0 { (0, 0) } else { b }]
}

fn pack_open(mut v: [(u8, u8); 2]) -> u64 {
    v.sort_unstable();
    let one = |(m, u): (u8, u8)| if u == 0 { 0 } else { (m as u64 - 1) | (u as u64) << 2 };
    one(v[0]) | one(v[1]) << 6
}

impl Partition {
    pub fn new(target: &Key, m3: bool) -> Partition {
        let mut lengths: Vec<(u8, u8)> = Vec::new();
        for v in target.tractors() {
            match lengths.last_mut() {
                Some((l, c)) if *l == v => *c += 1,
                _ => lengths.push((v, 1)),
            }
        }
        let mut radix = Vec::with_capacity(lengths.len());
        let mut r = 1u32;
        for &(_, c) in &lengths {
            radix.push(r);
            r = r.checked_mul(c as u32 + 1).expect("tractor lengths fit");
        }
        assert!(r < 1 << 24, "too many tractor lengths to track");
        let mut part = Partition {
            lengths,
            radix,
            p: target.p,
            t: target.t,
            m3,
            sets: Vec::new(),
            ids: Map::default(),
            next: Map::default(),
            accepting: Vec::new(),
            min_need: Vec::new(),
            scratch: Vec::new(),
        };
        let all: u64 = part.lengths.iter().zip(&part.radix).map(|(&(_, c), &r)| c as u64 * r as u64).sum();
        part.intern(vec![all << 12]);
        part
    }

    fn remaining(&self, st: u64, i: usize) -> u8 {
        let rem = ((st >> 12) & ((1 << 24) - 1)) as u32;
        ((rem / self.radix[i]) % (self.lengths[i].1 as u32 + 1)) as u8
    }

    fn intern(&mut self, mut set: Vec<u64>) -> u32 {
        set.sort_unstable();
        set.dedup();
        // Keep the Pareto front: a state with as many pairs and triples and the same rest
        // accepts whatever the other accepts.
        let mut keep = Vec::with_capacity(set.len());
        for (i, &a) in set.iter().enumerate() {
            let (ra, pa, ta) = (a & ((1 << 36) - 1), (a >> 36) & 255, (a >> 44) & 255);
            let dominated = set.iter().enumerate().any(|(j, &b)| {
                j != i && (b & ((1 << 36) - 1)) == ra && {
                    let (pb, tb) = ((b >> 36) & 255, (b >> 44) & 255);
                    pb >= pa && tb >= ta && (pb, tb) != (pa, ta)
                }
            });
            if !dominated {
                keep.push(a);
            }
        }
        if let Some(&id) = self.ids.get(&keep) {
            return id;
        }
        let id = self.sets.len() as u32;
        let acc = keep.iter().any(|&s| {
            (s & ((1 << 36) - 1)) == 0 && ((s >> 36) & 255) as u8 >= self.p && ((s >> 44) & 255) as u8 >= self.t
        });
        self.accepting.push(acc);
        let need = keep.iter().map(|&st| self.need(st)).min().unwrap_or(u8::MAX);
        self.min_need.push(need);
        self.ids.insert(keep.clone(), id);
        self.sets.push(keep);
        id
    }

    /// A lower bound on the cards partial partition `st` still needs: the tractor lengths not
    /// placed, the units of the tractors under way, and the pairs and triples still missing.
    fn need(&self, st: u64) -> u8 {
        let lengths: u32 = (0..self.lengths.len()).map(|i| self.remaining(st, i) as u32 * self.lengths[i].0 as u32).sum();
        let open: u32 = open_of(st).iter().map(|&(m, u)| m as u32 * u as u32).sum();
        let (p, t) = (((st >> 36) & 255) as u8, ((st >> 44) & 255) as u8);
        (lengths + open + rest_need(self.p - p, self.t - t) as u32).min(255) as u8
    }

    /// The set after reading `x` copies of a kind (`linked` to the previous one), or `None`
    /// when no partial partition survives.
    fn step(&mut self, id: u32, x: u8, linked: bool) -> Option<u32> {
        if let Some(&n) = self.next.get(&(id, x, linked)) {
            return (!self.sets[n as usize].is_empty()).then_some(n);
        }
        let mut out = std::mem::take(&mut self.scratch);
        out.clear();
        for si in 0..self.sets[id as usize].len() {
            let st = self.sets[id as usize][si];
            self.successors(st, x, linked, &mut out);
        }
        let n = self.intern(out.clone());
        self.scratch = out;
        self.next.insert((id, x, linked), n);
        (!self.sets[n as usize].is_empty()).then_some(n)
    }

    fn successors(&self, st: u64, x: u8, linked: bool, out: &mut Vec<u64>) {
        let open = open_of(st);
        let busy = open.iter().filter(|o| o.1 > 0).count();
        if busy > 0 && !linked {
            return; // a tractor under way needs the next kind linked (C1 / R3.3)
        }
        let need: u8 = open.iter().filter(|o| o.1 > 0).map(|o| o.0).sum();
        if need > x {
            return;
        }
        let r0 = x - need;
        let cont = open.map(|(m, u)| if u > 1 { (m, u - 1) } else { (0, 0) });
        let base = st & !OPEN_BITS & ((1 << 36) - 1);
        let (p, t) = (((st >> 36) & 255) as u8, ((st >> 44) & 255) as u8);
        let mut emit = |rem_bits: u64, open: [(u8, u8); 2], used: u8| {
            let r = r0 - used;
            if r == 4 {
                return; // four other copies of a kind: never best, a bomb would lengthen L
            }
            let p2 = (p + (r >= 2) as u8).min(self.p);
            let t2 = (t + (r == 3 && self.m3) as u8).min(self.t);
            out.push(pack_open(open) | rem_bits | (p2 as u64) << 36 | (t2 as u64) << 44);
        };
        emit(base, cont, 0);
        let free_slot = cont.iter().position(|o| o.1 == 0);
        // one new tractor from this kind
        for (i, &(len, _)) in self.lengths.iter().enumerate() {
            if self.remaining(st, i) == 0 {
                continue;
            }
            let bits = base - ((self.radix[i] as u64) << 12);
            for m in 2..=4u8.min(r0) {
                if len % m != 0 {
                    continue;
                }
                let k = len / m;
                if k == 1 && m != 4 {
                    continue;
                }
                if k == 1 {
                    emit(bits, cont, m); // C2: a bomb, a 4-card tractor, done at once
                } else if let Some(f) = free_slot {
                    let mut o = cont;
                    o[f] = (m, k - 1);
                    emit(bits, o, m);
                }
            }
            // two new pair tractors (or a pair tractor and a bomb is impossible: 6 copies)
            if r0 >= 4 && cont.iter().all(|o| o.1 == 0) && len % 2 == 0 && len >= 4 {
                for (j, &(len2, _)) in self.lengths.iter().enumerate().skip(i) {
                    let avail = self.remaining(st, j);
                    if len2 % 2 != 0 || len2 < 4 || avail < if j == i { 2 } else { 1 } {
                        continue;
                    }
                    let bits2 = bits - ((self.radix[j] as u64) << 12);
                    emit(bits2, [(2, len / 2 - 1), (2, len2 / 2 - 1)], 4);
                }
            }
        }
    }
}

impl Machine {
    fn start(&self) -> u64 {
        0
    }

    fn step(&mut self, st: u64, x: u8, linked: bool) -> Option<u64> {
        match self {
            Machine::Shape { n, .. } => {
                if x == 0 {
                    return Some(st);
                }
                let s2 = st + (1u64 << (8 * (x as u64 - 1)));
                let cards: u64 = (0..4).map(|i| ((s2 >> (8 * i)) & 255) * (i + 1)).sum();
                (cards <= *n as u64).then_some(s2)
            }
            Machine::Pairs { p, t, m3 } => {
                let (pp, tt) = ((st & 255) as u8, (st >> 8) as u8);
                if x == 4 {
                    return None; // no tractor: no kind holds 4 here
                }
                let p2 = (pp + (x >= 2) as u8).min(*p);
                let t2 = (tt + (x == 3 && *m3) as u8).min(*t);
                Some(p2 as u64 | (t2 as u64) << 8)
            }
            Machine::Partition(part) => part.step(st as u32, x, linked).map(|id| id as u64),
        }
    }

    /// A lower bound on the cards a selection in state `st` still needs to be accepted.
    fn need(&self, st: u64) -> u8 {
        match self {
            Machine::Shape { .. } => 0,
            Machine::Pairs { p, t, .. } => rest_need(*p - (st & 255) as u8, *t - (st >> 8) as u8),
            Machine::Partition(part) => part.min_need[st as usize],
        }
    }

    fn accept(&self, st: u64) -> bool {
        match self {
            Machine::Shape { n, tier } => {
                let shape = [0, 1, 2, 3].map(|i| ((st >> (8 * i)) & 255) as u8);
                // a 2-pair tractor is never this tier's shape: that tier is a list (see `legal_set`)
                tier_of_shape(*n, shape, false) == *tier
            }
            Machine::Pairs { p, t, .. } => (st & 255) as u8 >= *p && (st >> 8) as u8 >= *t,
            Machine::Partition(part) => part.accepting[st as usize],
        }
    }
}

/// Counts, ranks and lists the selections `lo ≤ x ≤ hi` (per slot, Σx = n) that the machine
/// accepts.
pub struct KeyDp {
    slots: Vec<KSlot>,
    n: u8,
    machine: Machine,
    suffix_hi: Vec<u16>,
    memo: Map<u64, u128>,
}

impl KeyDp {
    pub(crate) fn new(slots: Vec<KSlot>, n: u8, machine: Machine) -> KeyDp {
        let mut suffix_hi = vec![0u16; slots.len() + 1];
        for i in (0..slots.len()).rev() {
            suffix_hi[i] = suffix_hi[i + 1] + slots[i].hi as u16;
        }
        // room for a small programme's states without growing the memo step by step
        KeyDp { slots, n, machine, suffix_hi, memo: Map::with_capacity_and_hasher(64, Default::default()) }
    }

    fn count_from(&mut self, i: usize, cards: u8, st: u64) -> u128 {
        if i == self.slots.len() {
            return (cards == self.n && self.machine.accept(st)) as u128;
        }
        if (cards as u16 + self.suffix_hi[i]) < self.n as u16 || cards as u16 + self.machine.need(st) as u16 > self.n as u16 {
            return 0; // too few cards left to reach n, or too few of n left for what is missing
        }
        let key = (i as u64) << 56 | (cards as u64) << 48 | st;
        if let Some(&v) = self.memo.get(&key) {
            return v;
        }
        let slot = self.slots[i];
        let mut total = 0u128;
        for x in slot.lo..=slot.hi {
            if cards + x > self.n {
                break;
            }
            if let Some(s2) = self.machine.step(st, x, slot.linked) {
                total += self.count_from(i + 1, cards + x, s2);
            }
        }
        self.memo.insert(key, total);
        total
    }

    /// Exact number of accepted selections.
    pub fn total(&mut self) -> u128 {
        let s = self.machine.start();
        self.count_from(0, 0, s)
    }

    /// The `r`-th accepted selection, in order of slot values ascending, first slot slowest.
    pub fn nth(&mut self, mut r: u128) -> Option<Counts> {
        if r >= self.total() {
            return None;
        }
        let mut out = [0u8; KINDS];
        let (mut cards, mut st) = (0u8, self.machine.start());
        for i in 0..self.slots.len() {
            let slot = self.slots[i];
            let mut chosen = None;
            for x in slot.lo..=slot.hi {
                if cards + x > self.n {
                    break;
                }
                if let Some(s2) = self.machine.step(st, x, slot.linked) {
                    let c = self.count_from(i + 1, cards + x, s2);
                    if r < c {
                        chosen = Some((x, s2));
                        break;
                    }
                    r -= c;
                }
            }
            let (x, s2) = chosen?;
            out[slot.kind as usize] = x;
            cards += x;
            st = s2;
        }
        Some(out)
    }

    /// Every accepted selection, in `nth` order.
    pub fn all(&mut self) -> Vec<Counts> {
        let mut out = Vec::new();
        let s = self.machine.start();
        if self.count_from(0, 0, s) > 0 {
            let mut cur = [0u8; KINDS];
            self.walk(0, 0, s, &mut cur, &mut out);
        }
        out
    }

    fn walk(&mut self, i: usize, cards: u8, st: u64, cur: &mut Counts, out: &mut Vec<Counts>) {
        if i == self.slots.len() {
            out.push(*cur);
            return;
        }
        let slot = self.slots[i];
        for x in slot.lo..=slot.hi {
            if cards + x > self.n {
                break;
            }
            if let Some(s2) = self.machine.step(st, x, slot.linked) {
                if self.count_from(i + 1, cards + x, s2) == 0 {
                    continue;
                }
                cur[slot.kind as usize] = x;
                self.walk(i + 1, cards + x, s2, cur, out);
                cur[slot.kind as usize] = 0;
            }
        }
    }
}
