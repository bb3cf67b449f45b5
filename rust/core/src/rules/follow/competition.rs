//! The competition follow rule (docs/rules.md §10, C2–C5): the measures a selection is ranked by.
//!
//! - **Unit leads** (C4) rank a selection by its place in an explicit list ([`unit_tier`]).
//! - **Tractor leads** (C5) rank it by the key (E, L, p, t): E, one combination of the lead's
//!   shape (a bomb too for a 2-pair lead); then, over the partitions of the selection into
//!   tractors (C2: a bomb is a 4-card tractor) and other cards, the greatest (L, p, t), L the
//!   tractors' card counts largest first ([`Key`]).
//!
//! [`best_key`] finds the greatest (L, p, t) of a holding for a given card count by a search
//! over disjoint tractors, largest first, with the other cards chosen in closed form. It serves
//! both the position (the best key S allows, K*) and one play (its own key, every card used).
//!
//! Where §10 is silent (D9: "extends their lists to shapes no text names with one key"):
//! - a triple lead (C4, no text): a triple > a pair and a card > anything;
//! - E of a tractor lead is its own shape only; a bomb counts for a 2-pair lead alone (C5's
//!   text), so a 2-bomb tractor against a 4-pair lead is no E but L = (8), the longest tractor;
//! - a bomb inside any tractor lead's answer is a 4-card tractor in L (C2, and 2-triple lists'
//!   二连拖（或炸弹）加一对), for leads of every length;
//! - leads of three or more units (6-pair, 3-triple, bomb tractors) take the same key; t counts
//!   for every lead of multiplicity ≥ 3, bomb tractors included;
//! - four copies of a kind left among the other cards would count as two pairs: never best,
//!   since as a bomb they lengthen L, so the legal set does not depend on it.

use crate::rules::card::Counts;
use crate::rules::combo::{for_each_tractor, Combo};
use crate::rules::trump::Context;

/// The most tractors a key lists: every tractor has at least 4 cards and a lead at most 52.
pub const L_MAX: usize = 13;

/// C5: (L, p, t) of a selection. `l` lists the tractors' card counts largest first, padded
/// with 0, so the derived order is C5's: element by element, a longer list winning a tie
/// (every real entry is ≥ 4 > 0); then the pairs `p`, then the triples `t` (0 when the lead's
/// multiplicity is 2).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Key {
    pub l: [u8; L_MAX],
    pub p: u8,
    pub t: u8,
}

impl Key {
    /// The tractor card counts, largest first.
    pub fn tractors(&self) -> impl Iterator<Item = u8> + '_ {
        self.l.iter().copied().take_while(|&v| v > 0)
    }
    pub fn has_tractor(&self) -> bool {
        self.l[0] > 0
    }
    /// "L (6, 4), p 1, t 0".
    pub fn describe(&self) -> String {
        let l: Vec<String> = self.tractors().map(|v| v.to_string()).collect();
        format!("L ({}), p {}, t {}", l.join(", "), self.p, self.t)
    }
    /// The key's part that decides against an empty selection: "L", "p", "t" or "any".
    pub fn part(&self) -> &'static str {
        if self.has_tractor() {
            "C5 L"
        } else if self.p > 0 {
            "C5 p"
        } else if self.t > 0 {
            "C5 t"
        } else {
            "C5 any"
        }
    }
}

/// C5's E: is `c` one combination of exactly the lead's shape (for a 2-pair tractor lead, a
/// bomb counts too: 炸弹是拖拉机的一种特殊形式)?
pub fn is_e(lead: &Combo, c: &Combo) -> bool {
    c.class == lead.class && ((c.m, c.k) == (lead.m, lead.k) || ((lead.m, lead.k) == (2, 2) && (c.m, c.k) == (4, 1)))
}

/// C4's lists for unit leads of `n` = 2, 3, 4 cards, best last; the index is the tier.
pub fn unit_tier_name(n: u8, tier: u8) -> &'static str {
    const PAIR: [&str; 2] = ["C4 any two cards", "C4 a pair"];
    const TRIPLE: [&str; 3] = ["C4 any three cards", "C4 a pair and a card", "C4 a triple"];
    const BOMB: [&str; 6] = [
        "C4 any four cards",
        "C4 a pair and two cards",
        "C4 two pairs",
        "C4 a triple and a card",
        "C4 a 2-pair tractor",
        "C4 a bomb",
    ];
    match n {
        2 => PAIR[tier as usize],
        3 => TRIPLE[tier as usize],
        _ => BOMB[tier as usize],
    }
}

/// The best tier of C4's list for a unit lead of `n` cards.
pub fn unit_top(n: u8) -> u8 {
    match n {
        2 => 1,
        3 => 2,
        _ => 5,
    }
}

/// C4: the tier of an `n`-card selection by the multiset of its copies per kind (`shape`:
/// how many kinds hold 1, 2, 3, 4 copies) and whether it is a 2-pair tractor.
pub fn tier_of_shape(n: u8, shape: [u8; 4], tractor: bool) -> u8 {
    let [n1, n2, n3, n4] = shape;
    match n {
        2 => (n2 == 1) as u8,
        3 => match (n3, n2) {
            (1, _) => 2,
            (_, 1) => 1,
            _ => 0,
        },
        _ => {
            if n4 == 1 {
                5
            } else if tractor {
                4
            } else if n3 == 1 {
                3
            } else if n2 == 2 {
                2
            } else if n2 == 1 && n1 == 2 {
                1
            } else {
                0
            }
        }
    }
}

/// C4: the tier of `x` (n cards of `class`) for a unit lead.
pub fn unit_tier(ctx: &Context, class: u8, x: &Counts, n: u8) -> u8 {
    let mut shape = [0u8; 4];
    for &k in ctx.class_kinds(class) {
        let v = x[k as usize];
        if v > 0 {
            shape[v as usize - 1] += 1;
        }
    }
    let tractor = n == 4 && shape[1] == 2 && crate::rules::combo::classify(ctx, x).is_some_and(|c| c.k == 2);
    tier_of_shape(n, shape, tractor)
}

/// C4: the best tier an `n`-card selection of `s` (more than `n` cards of `class`) can reach.
pub fn unit_best(ctx: &Context, class: u8, s: &Counts, n: u8) -> u8 {
    let (mut k2, mut k3, mut k4) = (0u8, 0u8, 0u8);
    for &k in ctx.class_kinds(class) {
        let v = s[k as usize];
        k2 += (v >= 2) as u8;
        k3 += (v >= 3) as u8;
        k4 += (v >= 4) as u8;
    }
    // |S| > n, so a unit or pair can always be completed with other cards of S.
    match n {
        2 => (k2 > 0) as u8,
        3 => {
            if k3 > 0 {
                2
            } else {
                (k2 > 0) as u8
            }
        }
        _ => {
            let mut tractor = false;
            for_each_tractor(ctx, class, s, 2, 2, 2, |_, _| tractor = true);
            if k4 > 0 {
                5
            } else if tractor {
                4
            } else if k3 > 0 {
                3
            } else if k2 >= 2 {
                2
            } else if k2 == 1 {
                1
            } else {
                0
            }
        }
    }
}

/// One tractor a holding can give: card count, multiplicity, first kind, units.
#[derive(Clone, Copy, Debug)]
struct Cand {
    size: u8,
    m: u8,
    first: u8,
    k: u8,
}

/// The greatest (L, p, t) of C5 over selections of `budget` cards of `held` (of `class`):
/// with `exact`, the one selection `held` itself (`budget` = its size). `m3`: count triples
/// (the lead's multiplicity is ≥ 3). `None` only if no selection exists.
pub fn best_key(ctx: &Context, class: u8, held: &Counts, budget: u8, exact: bool, m3: bool) -> Option<Key> {
    let mut cands: Vec<Cand> = Vec::new();
    for m in 2..=4u8 {
        if budget / m >= 2 {
            for_each_tractor(ctx, class, held, m, 2, budget / m, |first, k| cands.push(Cand { size: m * k, m, first, k }));
        }
    }
    if budget >= 4 {
        for &k in ctx.class_kinds(class) {
            if held[k as usize] >= 4 {
                cands.push(Cand { size: 4, m: 4, first: k, k: 1 }); // C2: a bomb is a 4-card tractor
            }
        }
    }
    cands.sort_by_key(|c| std::cmp::Reverse(c.size)); // stable: largest first
    let mut search = Search { ctx, class, exact, m3, cands, held: *held, prefix: [0; L_MAX], best: None };
    search.dfs(0, 0, budget);
    search.best
}

struct Search<'a> {
    ctx: &'a Context,
    class: u8,
    exact: bool,
    m3: bool,
    cands: Vec<Cand>,
    held: Counts,
    prefix: [u8; L_MAX],
    best: Option<Key>,
}

impl Search<'_> {
    /// Tractors are taken in candidate order (each multiset of tractors once), so the
    /// prefix stays sorted largest first; a prefix already below the best is cut.
    fn dfs(&mut self, from: usize, depth: usize, left: u8) {
        if let Some((p, t)) = self.rest(left) {
            let key = Key { l: self.prefix, p, t: if self.m3 { t } else { 0 } };
            if self.best.is_none_or(|b| key > b) {
                self.best = Some(key);
            }
        }
        if depth == L_MAX {
            return;
        }
        for i in from..self.cands.len() {
            let c = self.cands[i];
            if c.size > left {
                continue;
            }
            if let Some(b) = self.best {
                // every extension of prefix + [c.size] is below the best: so are the smaller ones
                if self.prefix[..depth].iter().chain(std::iter::once(&c.size)).lt(b.l[..=depth].iter()) {
                    break;
                }
            }
            if !self.fits(&c) {
                continue;
            }
            self.take(&c, true);
            self.prefix[depth] = c.size;
            self.dfs(i, depth + 1, left - c.size);
            self.prefix[depth] = 0;
            self.take(&c, false);
        }
    }

    fn fits(&self, c: &Cand) -> bool {
        let mut at = c.first;
        for _ in 0..c.k {
            if self.held[at as usize] < c.m {
                return false;
            }
            at = self.ctx.up[at as usize];
        }
        true
    }

    fn take(&mut self, c: &Cand, take: bool) {
        let mut at = c.first;
        for _ in 0..c.k {
            if take {
                self.held[at as usize] -= c.m;
            } else {
                self.held[at as usize] += c.m;
            }
            at = self.ctx.up[at as usize];
        }
    }

    /// The most (p, t) among `c` other cards of what is left (C5: a pair or a triple gives one
    /// pair; a triple one triple). A kind left with 4 copies is never best (as a bomb it would
    /// lengthen L), so other cards take at most 3 of a kind. With `exact`, all that is left.
    fn rest(&self, c: u8) -> Option<(u8, u8)> {
        let (mut k1, mut k2, mut k3, mut total) = (0u8, 0u8, 0u8, 0u8);
        for &k in self.ctx.class_kinds(self.class) {
            let v = self.held[k as usize];
            if v == 4 && self.exact {
                return None;
            }
            let a = v.min(3);
            total += a;
            k1 += (a == 1) as u8;
            k2 += (a >= 2) as u8;
            k3 += (a == 3) as u8;
        }
        if total < c || (self.exact && total != c) {
            return None;
        }
        let _ = k1;
        let p = k2.min(c / 2);
        let t = if p < k2 {
            // c/2 pairs bind: one card is left over at most, to make one triple
            (c % 2 == 1 && p >= 1 && k3 >= 1) as u8
        } else {
            k3.min(c - 2 * p) // every pair chosen; the k1 singles and k3 thirds take the rest
        };
        Some((p, t))
    }
}
