//! A brute-force twin of the competition follow rules (RULES §10, C1–C5), from the text alone.
//!
//! Every N-card selection of the led class is scored by the definition: for unit leads its
//! place in C4's list; for tractor leads the key (E, L, p, t) of C5, with (L, p, t) the
//! greatest over **every** partition of the selection into tractors (any multiplicity, C2: a
//! bomb is a 4-card tractor) and other cards, found by trying every tractor as the next part.
//! The legal follows are the selections with the greatest score (C3). Links are R3.3's without
//! the trump suit's A–2 (C1). Nothing here calls the crate.

#![allow(dead_code)]

use super::oracle::{kind, multisets, suit_rank, Analysis, Case, Counts, Led, BJ, SJ};
use std::collections::HashMap;

/// C1: R3.3's links, except that the trump suit's A and 2 do not link.
pub fn linked(a: u8, b: u8, level: u8, trump: u8) -> bool {
    if !super::oracle::linked(a, b, level, trump) {
        return false;
    }
    let (ta, t2) = (kind(trump, 14), kind(trump, 2));
    !((a == ta && b == t2) || (a == t2 && b == ta))
}

fn connected(kinds: &[u8], level: u8, trump: u8) -> bool {
    super::oracle::connected_by(kinds, |a, b| linked(a, b, level, trump))
}

/// R3.1–R3.2 with C1's links: the shape (m, k) of `x` if it is one combination.
pub fn combination(x: &Counts, level: u8, trump: u8) -> Option<(u8, u8)> {
    super::oracle::combination_by(x, |a, b| linked(a, b, level, trump))
}

/// (E, L padded with 0, p, t): compared as a tuple, C5's order.
pub type Key = (u8, [u8; 13], u8, u8);

/// C4's list position of a selection `x` for a unit lead of `n` cards (greater is better).
pub fn unit_score(x: &Counts, n: usize, level: u8, trump: u8) -> u8 {
    let mut counts: Vec<u8> = x.iter().copied().filter(|&v| v > 0).collect();
    counts.sort_unstable_by(|a, b| b.cmp(a));
    match n {
        1 => 0, // any card
        2 => (counts == [2]) as u8, // 出对时必须跟对
        3 => match counts.as_slice() {
            [3] => 2,    // a triple
            [2, 1] => 1, // a pair and a card
            _ => 0,
        },
        _ => match counts.as_slice() {
            [4] => 5,                                             // 炸弹
            [2, 2] if combination(x, level, trump) == Some((2, 2)) => 4, // 两连拖
            [3, 1] => 3,                                          // 三张加一个
            [2, 2] => 2,                                          // 两对
            [2, 1, 1] => 1,                                       // 一对+二张散牌
            _ => 0,
        },
    }
}

/// Inserts `v` into a list sorted largest first (padded with 0).
fn insert(l: &[u8; 13], v: u8) -> [u8; 13] {
    let mut items: Vec<u8> = l.iter().copied().filter(|&a| a > 0).collect();
    items.push(v);
    items.sort_unstable_by(|a, b| b.cmp(a));
    let mut out = [0u8; 13];
    for (o, a) in out.iter_mut().zip(items) {
        *o = a;
    }
    out
}

/// C5's (L, p, t) of `x`: the greatest over all partitions into tractors and other cards.
pub struct Partitions {
    pub level: u8,
    pub trump: u8,
    pub m3: bool,
    memo: HashMap<Counts, ([u8; 13], u8, u8)>,
}

impl Partitions {
    pub fn new(level: u8, trump: u8, m3: bool) -> Partitions {
        Partitions { level, trump, m3, memo: HashMap::new() }
    }

    /// Every tractor inside `x` (C2: a single kind of 4 copies counts as one).
    fn tractors(&self, x: &Counts) -> Vec<Counts> {
        let mut out = Vec::new();
        for k in 0..54 {
            if x[k] == 4 {
                let mut t = [0u8; 54];
                t[k] = 4;
                out.push(t);
            }
        }
        for m in 2..=4u8 {
            let ks: Vec<u8> = (0..54u8).filter(|&k| x[k as usize] >= m).collect();
            for mask in 1u32..(1u32 << ks.len()) {
                if mask.count_ones() < 2 {
                    continue;
                }
                let sub: Vec<u8> = (0..ks.len()).filter(|&i| mask >> i & 1 == 1).map(|i| ks[i]).collect();
                if connected(&sub, self.level, self.trump) {
                    let mut t = [0u8; 54];
                    for &k in &sub {
                        t[k as usize] = m;
                    }
                    out.push(t);
                }
            }
        }
        out
    }

    pub fn best(&mut self, x: &Counts) -> ([u8; 13], u8, u8) {
        if let Some(v) = self.memo.get(x) {
            return *v;
        }
        // no more tractors: the other cards; "a pair or a triple gives one" pair, four copies two
        let p: u8 = x.iter().map(|&v| match v {
            2 | 3 => 1,
            4 => 2,
            _ => 0,
        }).sum();
        let t: u8 = if self.m3 { x.iter().filter(|&&v| v == 3).count() as u8 } else { 0 };
        let mut best = ([0u8; 13], p, t);
        for tr in self.tractors(x) {
            let mut rest = *x;
            let mut len = 0u8;
            for k in 0..54 {
                rest[k] -= tr[k];
                len += tr[k];
            }
            let (l, p, t) = self.best(&rest);
            let cand = (insert(&l, len), p, t);
            if cand > best {
                best = cand;
            }
        }
        self.memo.insert(*x, best);
        best
    }
}

/// The competition oracle's view of a follow position.
pub struct Position {
    pub level: u8,
    pub trump: u8,
    pub hand: Counts,
    pub lead: Counts,
}

impl Position {
    /// C3–C5 (R5.2 for |S| ≤ N), by brute force. `None` if the lead is not one combination.
    /// The scored list holds each selection with `true` when it is legal.
    pub fn analyse(&self) -> Option<Analysis> {
        let (lv, tr) = (self.level, self.trump);
        let led = Led::of(&self.hand, &self.lead, lv, tr, |x| combination(x, lv, tr))?;
        if let Some(a) = led.short(&self.hand) {
            return Some(a);
        }
        let Led { shape, class: cls, n, s } = led;
        let zero = [0u8; 54];
        let mut parts = Partitions::new(lv, tr, shape.0 >= 3);
        let mut scored: Vec<(Counts, Key)> = Vec::new();
        for x in multisets(&zero, &s, n) {
            let key: Key = if shape.1 == 1 {
                (unit_score(&x, n, lv, tr), [0; 13], 0, 0)
            } else {
                let c = combination(&x, lv, tr);
                let e = c == Some(shape) || (shape == (2, 2) && c == Some((4, 1)));
                let (l, p, t) = parts.best(&x);
                (e as u8, l, p, t)
            };
            scored.push((x, key));
        }
        let best = scored.iter().map(|e| e.1).max()?;
        let mut legal: Vec<Counts> = scored.iter().filter(|e| e.1 == best).map(|e| e.0).collect();
        legal.sort_unstable();
        let scored = scored.into_iter().map(|(x, k)| (x, k == best, (0, 0))).collect();
        Some(Analysis { class: cls, n, shape, s, case: Case::Ladder(scored), legal })
    }
}

/// Kinds helper for generators: is `k` a joker?
pub fn is_joker(k: u8) -> bool {
    k == SJ || k == BJ || suit_rank(k).is_none()
}
