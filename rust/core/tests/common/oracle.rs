//! A brute-force twin of the follow rules, written from `docs/rules.md` alone.
//!
//! Nothing here reads the crate's tables (`Context::class`, `up`, chains) or calls
//! `follow.rs` / `combo::classify` / `combo::for_each_tractor`: kinds are plain ids
//! (`suit × 13 + rank − 2`, SJ = 52, BJ = 53) and every rule is restated from its id.

#![allow(dead_code)]

pub type Counts = [u8; 54];

/// Suit class of every trump (R2.5).
pub const TRUMP: u8 = 4;
pub const SJ: u8 = 52;
pub const BJ: u8 = 53;

/// (suit, rank) of a non-joker kind; rank 2..=14.
pub fn suit_rank(k: u8) -> Option<(u8, u8)> {
    if k >= 52 {
        None
    } else {
        Some((k / 13, k % 13 + 2))
    }
}

pub fn kind(suit: u8, rank: u8) -> u8 {
    suit * 13 + rank - 2
}

/// R2.2 / R2.5: jokers, every L, every 2 and the trump suit are one class, "trump";
/// every other card is in the class of its suit.
pub fn class(k: u8, level: u8, trump: u8) -> u8 {
    match suit_rank(k) {
        None => TRUMP,
        Some((s, r)) if r == level || r == 2 || s == trump => TRUMP,
        Some((s, _)) => s,
    }
}

/// The next rank in the natural cycle 2-3-…-K-A-2 (R3.3).
pub fn cycle_next(r: u8) -> u8 {
    if r == 14 {
        2
    } else {
        r + 1
    }
}

pub fn cycle_prev(r: u8) -> u8 {
    if r == 2 {
        14
    } else {
        r - 1
    }
}

/// R3.3: the link predicate.
/// - BJ and SJ;
/// - two trump-suit kinds whose natural ranks are consecutive in the cycle 2-3-…-A-2
///   (the trump suit's 2 and L keep their natural places);
/// - two kinds of one non-trump suit, neither an L nor a 2, with consecutive ranks (no wrap).
///
/// 副L and 副2 link with nothing.
pub fn linked(a: u8, b: u8, level: u8, trump: u8) -> bool {
    if a == b {
        return false;
    }
    if (a == SJ && b == BJ) || (a == BJ && b == SJ) {
        return true;
    }
    let (Some((sa, ra)), Some((sb, rb))) = (suit_rank(a), suit_rank(b)) else {
        return false;
    };
    if sa != sb {
        return false;
    }
    if sa == trump {
        return cycle_next(ra) == rb || cycle_next(rb) == ra;
    }
    let plain = |r: u8| r != level && r != 2;
    plain(ra) && plain(rb) && (ra + 1 == rb || rb + 1 == ra)
}

/// Are `kinds` connected under `linked` (BFS)?
pub fn connected(kinds: &[u8], level: u8, trump: u8) -> bool {
    connected_by(kinds, |a, b| linked(a, b, level, trump))
}

/// Are `kinds` connected under the link rule `link` (BFS)? (The competition twin passes C1's.)
pub fn connected_by(kinds: &[u8], link: impl Fn(u8, u8) -> bool) -> bool {
    if kinds.is_empty() {
        return false;
    }
    let mut seen = vec![false; kinds.len()];
    let mut queue = vec![0usize];
    seen[0] = true;
    let mut reached = 1;
    while let Some(i) = queue.pop() {
        for j in 0..kinds.len() {
            if !seen[j] && link(kinds[i], kinds[j]) {
                seen[j] = true;
                reached += 1;
                queue.push(j);
            }
        }
    }
    reached == kinds.len()
}

/// R3.1–R3.4, D1: is `x` one combination? Returns its shape (m, k).
/// One multiplicity m for every kind; k = 1 is a unit; k ≥ 2 needs m ≥ 2 and linked kinds.
pub fn combination(x: &Counts, level: u8, trump: u8) -> Option<(u8, u8)> {
    combination_by(x, |a, b| linked(a, b, level, trump))
}

/// [`combination`] under the link rule `link`.
pub fn combination_by(x: &Counts, link: impl Fn(u8, u8) -> bool) -> Option<(u8, u8)> {
    let kinds: Vec<u8> = (0..54u8).filter(|&k| x[k as usize] > 0).collect();
    let m = x[*kinds.first()? as usize];
    if kinds.iter().any(|&k| x[k as usize] != m) {
        return None;
    }
    let k = kinds.len() as u8;
    if k == 1 {
        return Some((m, 1));
    }
    if m < 2 || !connected_by(&kinds, link) {
        return None;
    }
    Some((m, k))
}

/// R5.4: the lexicographic max over every tractor T ⊆ x (k ≥ 2, any multiplicity, and the
/// empty T) of (|T|, Σ ⌊(x_i − t_i)/2⌋).
pub fn score(x: &Counts, level: u8, trump: u8) -> (u8, u8) {
    let base: u8 = x.iter().map(|&c| c / 2).sum();
    let mut best = (0u8, base);
    for m in 2..=4u8 {
        let ks: Vec<u8> = (0..54u8).filter(|&k| x[k as usize] >= m).collect();
        let n = ks.len();
        if n < 2 {
            continue;
        }
        for mask in 1u32..(1u32 << n) {
            if mask.count_ones() < 2 {
                continue;
            }
            let sub: Vec<u8> = (0..n).filter(|&i| mask >> i & 1 == 1).map(|i| ks[i]).collect();
            if !connected(&sub, level, trump) {
                continue;
            }
            let len = m * sub.len() as u8;
            let pairs: u8 = (0..54usize)
                .map(|k| {
                    let t = if sub.contains(&(k as u8)) { m } else { 0 };
                    (x[k] - t) / 2
                })
                .sum();
            best = best.max((len, pairs));
        }
    }
    best
}

/// Number of multisets of size `n` with `x[k] ≤ bounds[k]` (saturating).
pub fn count_multisets(bounds: &Counts, n: usize) -> u128 {
    let mut poly = vec![0u128; n + 1];
    poly[0] = 1;
    for &b in bounds.iter() {
        if b == 0 {
            continue;
        }
        let mut next = vec![0u128; n + 1];
        for (i, &v) in poly.iter().enumerate() {
            if v == 0 {
                continue;
            }
            for j in 0..=b as usize {
                if i + j > n {
                    break;
                }
                next[i + j] = next[i + j].saturating_add(v);
            }
        }
        poly = next;
    }
    poly[n]
}

/// Every multiset of size `n` with `lo ≤ x ≤ hi`, in lexicographic order of kinds.
pub fn multisets(lo: &Counts, hi: &Counts, n: usize) -> Vec<Counts> {
    let kinds: Vec<usize> = (0..54).filter(|&k| hi[k] > 0).collect();
    let mut suffix = vec![0usize; kinds.len() + 1];
    for i in (0..kinds.len()).rev() {
        suffix[i] = suffix[i + 1] + hi[kinds[i]] as usize;
    }
    let mut out = Vec::new();
    let mut cur = [0u8; 54];
    #[allow(clippy::too_many_arguments)]
    fn rec(
        i: usize,
        left: usize,
        kinds: &[usize],
        lo: &Counts,
        hi: &Counts,
        suffix: &[usize],
        cur: &mut Counts,
        out: &mut Vec<Counts>,
    ) {
        if i == kinds.len() {
            if left == 0 {
                out.push(*cur);
            }
            return;
        }
        if suffix[i] < left {
            return;
        }
        let k = kinds[i];
        for v in lo[k]..=hi[k] {
            if v as usize > left {
                break;
            }
            cur[k] = v;
            rec(i + 1, left - v as usize, kinds, lo, hi, suffix, cur, out);
        }
        cur[k] = 0;
    }
    if (0..54).any(|k| lo[k] > hi[k]) {
        return out;
    }
    rec(0, n, &kinds, lo, hi, &suffix, &mut cur, &mut out);
    out
}

/// The oracle's view of a follow position.
pub struct Position {
    pub level: u8,
    pub trump: u8,
    /// R5.3 T1 under guigang: any shape; under nanning: only the lead's own (m, k).
    pub t1_any_shape: bool,
    pub hand: Counts,
    pub lead: Counts,
}

pub enum Case {
    /// |S| ≤ N.
    Short,
    /// |S| > N: every N-multiset of S with its (t1, (tractor, pairs)).
    Ladder(Vec<(Counts, bool, (u8, u8))>),
}

pub struct Analysis {
    pub class: u8,
    pub n: usize,
    pub shape: (u8, u8),
    pub s: Counts,
    pub case: Case,
    /// Sorted legal plays.
    pub legal: Vec<Counts>,
}

/// What a follower faces: the lead's shape (by the link rule's `combination`), its class, N,
/// and S, the hand's cards of that class.
pub struct Led {
    pub shape: (u8, u8),
    pub class: u8,
    pub n: usize,
    pub s: Counts,
}

impl Led {
    /// `None` if the lead is not one combination under `combination`.
    pub fn of(hand: &Counts, lead: &Counts, level: u8, trump: u8, combination: impl Fn(&Counts) -> Option<(u8, u8)>) -> Option<Led> {
        let shape = combination(lead)?;
        let lead_kind = (0..54u8).find(|&k| lead[k as usize] > 0)?;
        let cls = class(lead_kind, level, trump);
        let mut s = [0u8; 54];
        for k in 0..54u8 {
            if class(k, level, trump) == cls {
                s[k as usize] = hand[k as usize];
            }
        }
        Some(Led { shape, class: cls, n: (shape.0 as usize) * (shape.1 as usize), s })
    }

    /// R5.2: with |S| ≤ N, all of S plus any N − |S| other cards; `None` when |S| > N.
    pub fn short(&self, hand: &Counts) -> Option<Analysis> {
        let s_size: usize = self.s.iter().map(|&c| c as usize).sum();
        if s_size > self.n {
            return None;
        }
        let mut legal = multisets(&self.s, hand, self.n);
        legal.sort_unstable();
        Some(Analysis { class: self.class, n: self.n, shape: self.shape, s: self.s, case: Case::Short, legal })
    }
}

impl Position {
    /// R5.2–R5.4, by brute force. `None` if the lead is not one combination.
    pub fn analyse(&self) -> Option<Analysis> {
        let (lv, tr) = (self.level, self.trump);
        let led = Led::of(&self.hand, &self.lead, lv, tr, |x| combination(x, lv, tr))?;
        if let Some(a) = led.short(&self.hand) {
            return Some(a);
        }
        let Led { shape, class: cls, n, s } = led;
        // R5.3: N cards of S; the highest tier any selection meets is mandatory.
        let zero = [0u8; 54];
        let local = Local::new(&s, lv, tr);
        let mut scored = Vec::new();
        for x in multisets(&zero, &s, n) {
            let t1 = match local.combination(&x) {
                Some(sh) => self.t1_any_shape || sh == shape,
                None => false,
            };
            scored.push((x, t1, local.score(&x)));
        }
        let any_t1 = scored.iter().any(|e| e.1);
        let best = scored.iter().map(|e| e.2).max().unwrap_or((0, 0));
        let mut legal: Vec<Counts> =
            scored.iter().filter(|e| if any_t1 { e.1 } else { e.2 == best }).map(|e| e.0).collect();
        legal.sort_unstable();
        Some(Analysis { class: cls, n, shape, s, case: Case::Ladder(scored), legal })
    }
}

/// The same predicates as [`combination`] and [`score`], restricted to the kinds of one
/// class held in a hand, with the links as bitmasks: the brute force's inner loop.
pub struct Local {
    kinds: Vec<u8>,
    /// `adj[i]`: the local kinds linked to kind i (by [`linked`]).
    adj: Vec<u32>,
}

impl Local {
    pub fn new(s: &Counts, level: u8, trump: u8) -> Local {
        let kinds: Vec<u8> = (0..54u8).filter(|&k| s[k as usize] > 0).collect();
        assert!(kinds.len() <= 32);
        let adj = kinds
            .iter()
            .map(|&a| {
                kinds
                    .iter()
                    .enumerate()
                    .filter(|&(_, &b)| linked(a, b, level, trump))
                    .fold(0u32, |m, (j, _)| m | 1 << j)
            })
            .collect();
        Local { kinds, adj }
    }

    /// BFS over the links inside `mask`.
    fn connected(&self, mask: u32) -> bool {
        if mask == 0 {
            return false;
        }
        let mut reach = mask & mask.wrapping_neg();
        loop {
            let mut next = reach;
            let mut r = reach;
            while r != 0 {
                let i = r.trailing_zeros() as usize;
                r &= r - 1;
                next |= self.adj[i] & mask;
            }
            if next == reach {
                return reach == mask;
            }
            reach = next;
        }
    }

    /// [`combination`] for a selection of these kinds.
    pub fn combination(&self, x: &Counts) -> Option<(u8, u8)> {
        let (mut m, mut mask) = (0u8, 0u32);
        for (i, &k) in self.kinds.iter().enumerate() {
            let v = x[k as usize];
            if v == 0 {
                continue;
            }
            if m == 0 {
                m = v;
            } else if v != m {
                return None;
            }
            mask |= 1 << i;
        }
        let k = mask.count_ones() as u8;
        match k {
            0 => None,
            1 => Some((m, 1)),
            _ if m >= 2 && self.connected(mask) => Some((m, k)),
            _ => None,
        }
    }

    /// [`score`] for a selection of these kinds.
    pub fn score(&self, x: &Counts) -> (u8, u8) {
        let xs: Vec<u8> = self.kinds.iter().map(|&k| x[k as usize]).collect();
        let base: u8 = xs.iter().map(|&v| v / 2).sum();
        let mut best = (0u8, base);
        for m in 2..=4u8 {
            let cand = xs.iter().enumerate().filter(|&(_, &v)| v >= m).fold(0u32, |a, (i, _)| a | 1 << i);
            if cand.count_ones() < 2 {
                continue;
            }
            // every sub-mask of the kinds held ≥ m times
            let mut sub = cand;
            while sub != 0 {
                if sub.count_ones() >= 2 && self.connected(sub) {
                    let mut loss = 0u8;
                    let mut r = sub;
                    while r != 0 {
                        let i = r.trailing_zeros() as usize;
                        r &= r - 1;
                        loss += xs[i] / 2 - (xs[i] - m) / 2;
                    }
                    best = best.max((m * sub.count_ones() as u8, base - loss));
                }
                sub = (sub - 1) & cand;
            }
        }
        best
    }
}
