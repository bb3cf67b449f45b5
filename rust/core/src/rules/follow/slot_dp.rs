//! The ladder's programme for positions that need a tractor (R5.3 T2–T3, D4): the runs that
//! can still become a tractor window of L* cards, and the least pairs such a window costs.

use std::collections::HashMap;
use std::hash::BuildHasherDefault;

use crate::rules::card::{Counts, KINDS};
use crate::util::hash::FxHasher;

/// One kind in the programme's sequence.
#[derive(Clone, Copy, Debug)]
pub struct Slot {
    pub(crate) kind: u8,
    pub(crate) lo: u8,
    pub(crate) hi: u8,
    /// Linked to the previous slot (R3.3): a tractor window may continue.
    pub(crate) linked: bool,
    /// A repeat of a cycle's first kind, to see windows through the wrap; adds no cards.
    pub(crate) ghost: bool,
}

/// Programme state after some slots. Packed into a u64 for the memo.
#[derive(Clone, Copy, Debug, Default)]
struct St {
    cards: u8,
    pairs: u8,
    /// Least loss of a complete tractor window seen so far; `NO_LOSS` if none.
    best: u8,
    /// Current runs of kinds held ≥ 2, = 4, ≥ 3 (with the 4s among the last k3 as bits).
    r2: u8,
    r4: u8,
    r3: u8,
    m3: u16,
}

const NO_LOSS: u8 = 63;

impl St {
    fn pack(&self) -> u64 {
        self.cards as u64
            | (self.pairs as u64) << 6
            | (self.best as u64) << 12
            | (self.r2 as u64) << 18
            | (self.r4 as u64) << 24
            | (self.r3 as u64) << 30
            | (self.m3 as u64) << 36
    }
}

type Memo = HashMap<u64, u128, BuildHasherDefault<FxHasher>>;

/// For one window shape (kinds taken at least t times, t = 2, 3 or 4, in a run of linked
/// slots) and slot i, from each slot's upper bound: whether a whole window fits in the slots
/// from i on, and how far a run already open before slot i can still grow (the slots from i
/// on, each linked to the one before and allowing t copies). An upper bound on what any
/// selection completes, so a state that neither can close is counted 0 without its subtree.
#[derive(Clone, Copy, Debug, Default)]
struct WindowReach {
    window: bool,
    extend: u8,
}

/// Counts, ranks and lists the selections x (lo ≤ x ≤ hi per slot, Σx = n) that hold a
/// tractor window of `l` cards with `pairs − loss ≥ p` (or, when `l = 0`, `pairs ≥ p`).
pub struct SlotDp {
    slots: Vec<Slot>,
    n: u8,
    l: u8,
    p: u8,
    k2: u8,
    k3: u8,
    k4: u8,
    /// Cards, and pairs, the real slots from i on can still give.
    suffix_hi: Vec<u16>,
    suffix_pairs: Vec<u16>,
    /// The least a tractor window can cost in pairs (for pruning).
    least_loss: u8,
    /// Per slot i and window shape (multiplicity ≥ 2, ≥ 3, = 4; see [`WindowReach`]): what the
    /// slots from i on can still give a tractor window (for pruning).
    reach: Vec<[WindowReach; 3]>,
    /// An unbroken cycle: (first slot, how many of its kinds are enumerated outside).
    pub(crate) cycle: Option<(usize, usize)>,
    memo: Memo,
    /// Per assignment of the cycle's first kinds: its count (filled by `total`).
    parts: Option<Vec<(Vec<u8>, u128)>>,
}

impl SlotDp {
    pub(crate) fn new(slots: Vec<Slot>, n: u8, l: u8, p: u8) -> SlotDp {
        let shape = |m: u8| if l > 0 && l % m == 0 && l / m >= 2 { l / m } else { 0 };
        let mut suffix_hi = vec![0u16; slots.len() + 1];
        let mut suffix_pairs = vec![0u16; slots.len() + 1];
        for i in (0..slots.len()).rev() {
            let real = !slots[i].ghost;
            suffix_hi[i] = suffix_hi[i + 1] + if real { slots[i].hi as u16 } else { 0 };
            suffix_pairs[i] = suffix_pairs[i + 1] + if real { slots[i].hi as u16 / 2 } else { 0 };
        }
        let (k2, k3, k4) = (shape(2), shape(3), shape(4));
        let least_loss = [k2, k3, 2 * k4].into_iter().filter(|&v| v > 0).min().unwrap_or(0);
        let mut reach = vec![[WindowReach::default(); 3]; slots.len() + 1];
        let mut run = [0u8; 3]; // linked slots allowing t copies from i on (slot i need not be linked)
        for i in (0..slots.len()).rev() {
            let next_linked = slots.get(i + 1).is_some_and(|s| s.linked);
            for (j, (t, k)) in [(2u8, k2), (3, k3), (4, k4)].into_iter().enumerate() {
                let ok = slots[i].hi >= t;
                run[j] = if !ok { 0 } else if next_linked { run[j] + 1 } else { 1 };
                let extend = if ok && slots[i].linked { run[j] } else { 0 };
                reach[i][j] = WindowReach { window: k > 0 && (run[j] >= k || reach[i + 1][j].window), extend };
            }
        }
        SlotDp {
            slots,
            n,
            l,
            p,
            k2,
            k3,
            k4,
            suffix_hi,
            suffix_pairs,
            least_loss,
            reach,
            cycle: None,
            memo: Memo::with_capacity_and_hasher(128, Default::default()), // most programmes' states (a few grow)
            parts: None,
        }
    }

    fn step(&self, st: St, slot: &Slot, x: u8) -> St {
        let mut s = st;
        if !slot.ghost {
            s.cards += x;
            s.pairs += x / 2;
        }
        if self.l == 0 {
            return s;
        }
        if !slot.linked {
            s.r2 = 0;
            s.r4 = 0;
            s.r3 = 0;
            s.m3 = 0;
        }
        if self.k2 > 0 {
            s.r2 = if x >= 2 { (s.r2 + 1).min(self.k2) } else { 0 };
            if s.r2 == self.k2 {
                s.best = s.best.min(self.k2); // each pair unit costs one pair
            }
        }
        if self.k4 > 0 {
            s.r4 = if x == 4 { (s.r4 + 1).min(self.k4) } else { 0 };
            if s.r4 == self.k4 {
                s.best = s.best.min(2 * self.k4); // each bomb unit costs two pairs
            }
        }
        if self.k3 > 0 {
            if x >= 3 {
                s.r3 = (s.r3 + 1).min(self.k3);
                s.m3 = ((s.m3 << 1) | (x == 4) as u16) & ((1u16 << self.k3) - 1);
                if s.r3 == self.k3 {
                    // a triple unit costs one pair from 3 copies, two from 4
                    s.best = s.best.min(self.k3 + s.m3.count_ones() as u8);
                }
            } else {
                s.r3 = 0;
                s.m3 = 0;
            }
        }
        s
    }

    /// Can the slots from `i` on still complete a tractor window of L* cards after `st` (a
    /// whole one of their own, or the run open before slot i grown)? Only false when no
    /// selection can ([`WindowReach`]).
    #[inline]
    fn window_reachable(&self, i: usize, st: &St) -> bool {
        let r = &self.reach[i];
        (self.k2 > 0 && (r[0].window || st.r2 + r[0].extend >= self.k2))
            || (self.k3 > 0 && (r[1].window || st.r3 + r[1].extend >= self.k3))
            || (self.k4 > 0 && (r[2].window || st.r4 + r[2].extend >= self.k4))
    }

    fn accept(&self, s: &St) -> bool {
        s.cards == self.n && if self.l == 0 { s.pairs >= self.p } else { s.best != NO_LOSS && s.pairs >= self.p + s.best }
    }

    fn start() -> St {
        St { best: NO_LOSS, ..St::default() }
    }

    fn count_from(&mut self, i: usize, st: St) -> u128 {
        if i == self.slots.len() {
            return self.accept(&st) as u128;
        }
        if st.cards as u16 + self.suffix_hi[i] < self.n as u16 {
            return 0;
        }
        // not enough pairs left for P* beside even the cheapest window: the slots from i on
        // give at most their pairs, and at most one pair per two of the cards still to place
        let more_pairs = self.suffix_pairs[i].min((self.n - st.cards) as u16 / 2);
        let least_loss = if self.l == 0 || self.window_reachable(i, &st) {
            self.least_loss
        } else if st.best == NO_LOSS {
            return 0; // no window now, and none can still be completed
        } else {
            st.best // no better window can still be completed
        };
        if st.pairs as u16 + more_pairs < self.p as u16 + least_loss as u16 {
            return 0;
        }
        let key = (i as u64) << 52 | st.pack();
        if let Some(&v) = self.memo.get(&key) {
            return v;
        }
        let slot = self.slots[i];
        let mut total = 0u128;
        for x in slot.lo..=slot.hi {
            if !slot.ghost && st.cards + x > self.n {
                break;
            }
            let next = self.step(st, &slot, x);
            total += self.count_from(i + 1, next);
        }
        self.memo.insert(key, total);
        total
    }

    /// Fixes the cycle's first kinds (and their ghosts) to `vals`.
    fn fix_cycle(&mut self, vals: &[u8]) {
        if let Some((start, g)) = self.cycle {
            let cycle_len = self.slots[start..].iter().take_while(|s| !s.ghost).count();
            for (j, &v) in vals.iter().enumerate() {
                for idx in [start + j, start + cycle_len + j] {
                    self.slots[idx].lo = v;
                    self.slots[idx].hi = v;
                }
            }
            debug_assert_eq!(vals.len(), g);
            self.memo.clear();
        }
    }

    /// Every assignment of the cycle's enumerated kinds, each with its count.
    fn cycle_parts(&mut self) -> Vec<(Vec<u8>, u128)> {
        if let Some(p) = &self.parts {
            return p.clone();
        }
        let (start, g) = self.cycle.expect("cycle");
        let bounds: Vec<(u8, u8)> = (0..g).map(|j| (self.slots[start + j].lo, self.slots[start + j].hi)).collect();
        let mut parts = Vec::new();
        let mut vals: Vec<u8> = bounds.iter().map(|b| b.0).collect();
        loop {
            self.fix_cycle(&vals);
            let c = self.count_from(0, Self::start());
            if c > 0 {
                parts.push((vals.clone(), c));
            }
            // next assignment, odometer order (first kind slowest)
            let mut j = g;
            loop {
                if j == 0 {
                    self.parts = Some(parts.clone());
                    return parts;
                }
                j -= 1;
                if vals[j] < bounds[j].1 {
                    vals[j] += 1;
                    for (v, b) in vals[j + 1..].iter_mut().zip(&bounds[j + 1..]) {
                        *v = b.0;
                    }
                    break;
                }
            }
        }
    }

    /// Exact number of accepted selections.
    pub fn total(&mut self) -> u128 {
        if self.cycle.is_some() {
            return self.cycle_parts().iter().map(|p| p.1).sum();
        }
        self.count_from(0, Self::start())
    }

    fn unrank(&mut self, mut r: u128) -> Option<Counts> {
        let mut out = [0u8; KINDS];
        let mut st = Self::start();
        for i in 0..self.slots.len() {
            let slot = self.slots[i];
            let mut chosen = None;
            for x in slot.lo..=slot.hi {
                if !slot.ghost && st.cards + x > self.n {
                    break;
                }
                let next = self.step(st, &slot, x);
                let c = self.count_from(i + 1, next);
                if r < c {
                    chosen = Some((x, next));
                    break;
                }
                r -= c;
            }
            let (x, next) = chosen?;
            if !slot.ghost {
                out[slot.kind as usize] = x;
            }
            st = next;
        }
        Some(out)
    }

    /// The `r`-th accepted selection, in order of (cycle assignment, slot values ascending).
    pub fn nth(&mut self, mut r: u128) -> Option<Counts> {
        if self.cycle.is_none() {
            return if r < self.total() { self.unrank(r) } else { None };
        }
        for (vals, c) in self.cycle_parts() {
            if r < c {
                self.fix_cycle(&vals);
                return self.unrank(r);
            }
            r -= c;
        }
        None
    }

    /// Every accepted selection, in `nth` order.
    pub fn all(&mut self) -> Vec<Counts> {
        let mut out = Vec::new();
        if self.cycle.is_none() {
            self.total();
            let mut cur = [0u8; KINDS];
            self.walk(0, Self::start(), &mut cur, &mut out);
            return out;
        }
        for (vals, _) in self.cycle_parts() {
            self.fix_cycle(&vals);
            self.count_from(0, Self::start());
            let mut cur = [0u8; KINDS];
            self.walk(0, Self::start(), &mut cur, &mut out);
        }
        out
    }

    fn walk(&mut self, i: usize, st: St, cur: &mut Counts, out: &mut Vec<Counts>) {
        if i == self.slots.len() {
            if self.accept(&st) {
                out.push(*cur);
            }
            return;
        }
        let slot = self.slots[i];
        for x in slot.lo..=slot.hi {
            if !slot.ghost && st.cards + x > self.n {
                break;
            }
            let next = self.step(st, &slot, x);
            if self.count_from(i + 1, next) == 0 {
                continue;
            }
            if !slot.ghost {
                cur[slot.kind as usize] = x;
            }
            self.walk(i + 1, next, cur, out);
            if !slot.ghost {
                cur[slot.kind as usize] = 0;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::util::rng::Rng;

    /// Every selection of the programme's slots, stepped from the start state and accepted or
    /// not at the end: no memo and no pruning, in slot order with values ascending.
    fn plain(dp: &SlotDp) -> Vec<Counts> {
        fn walk(dp: &SlotDp, i: usize, st: St, cur: &mut Counts, out: &mut Vec<Counts>) {
            if i == dp.slots.len() {
                if dp.accept(&st) {
                    out.push(*cur);
                }
                return;
            }
            let slot = dp.slots[i];
            for x in slot.lo..=slot.hi {
                if st.cards + x > dp.n {
                    break;
                }
                cur[slot.kind as usize] = x;
                walk(dp, i + 1, dp.step(st, &slot, x), cur, out);
            }
            cur[slot.kind as usize] = 0;
        }
        let mut out = Vec::new();
        walk(dp, 0, SlotDp::start(), &mut [0; KINDS], &mut out);
        out
    }

    /// The pruned count, ranks and list against the plain enumeration, on random programmes
    /// without a cycle: runs broken at random, bounds of 0 to 4 copies, tractors of pairs,
    /// triples and bombs (L* of 4 to 12 cards) and none.
    #[test]
    fn pruned_programmes_match_the_plain_enumeration() {
        let mut rng = Rng::new(61);
        let (mut nonempty, mut pruned) = (0, 0);
        for _ in 0..4000 {
            let len = 1 + rng.below_usize(11);
            let slots: Vec<Slot> = (0..len)
                .map(|i| {
                    let hi = [0u8, 1, 2, 2, 3, 4, 4][rng.below_usize(7)];
                    let lo = rng.below_usize(hi.min(2) as usize + 1) as u8;
                    Slot { kind: i as u8, lo, hi, linked: i > 0 && rng.below_usize(5) > 0, ghost: false }
                })
                .collect();
            let n = 2 + rng.below_usize(11) as u8;
            let l = [0u8, 4, 4, 6, 6, 8, 9, 12][rng.below_usize(8)].min(n - n % 2);
            let p = rng.below_usize(n as usize / 4 + 1) as u8;
            let mut dp = SlotDp::new(slots, n, l, p);
            let want = plain(&dp);
            assert_eq!(dp.total(), want.len() as u128, "{:?} n {n} l {l} p {p}", dp.slots);
            for (r, x) in want.iter().enumerate() {
                assert_eq!(dp.nth(r as u128).as_ref(), Some(x));
            }
            assert_eq!(dp.nth(want.len() as u128), None);
            assert_eq!(dp.all(), want);
            nonempty += !want.is_empty() as usize;
            pruned += (l > 0 && !(0..=len).all(|i| dp.window_reachable(i, &SlotDp::start()))) as usize;
        }
        assert!(nonempty > 600 && pruned > 1000, "programmes with a selection: {nonempty}, with a slot past every window: {pruned}");
    }
}
