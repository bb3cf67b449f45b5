//! The dense programme of R5.2 and of ladders without a tractor: selections of n cards with
//! at least q pairs among the free kinds.

use crate::card::{size, Counts};

/// Counts and ranks the selections `base + y` (0 ≤ y_i ≤ span_i on the free kinds) of `n`
/// cards with at least `q` pairs among the free kinds: a table over (slot, cards still
/// needed, pairs still needed).
pub struct DenseDp {
    base: Counts,
    /// (kind, lower bound, span).
    free: Vec<(u8, u8, u8)>,
    need: usize,
    q: usize,
    table: Vec<u128>,
}

impl DenseDp {
    pub(crate) fn new(base: Counts, free: Vec<(u8, u8, u8)>, n: u8, q: u8) -> DenseDp {
        let have = size(&base);
        let need = (n as usize).saturating_sub(have);
        let impossible = have > n as usize;
        let (nf, q) = (free.len(), q as usize);
        let mut dp = DenseDp { base, free, need, q, table: vec![0; (nf + 1) * (need + 1) * (q + 1)] };
        if impossible {
            return dp;
        }
        let end = dp.at(nf, 0, 0);
        dp.table[end] = 1;
        for i in (0..nf).rev() {
            let (_, lo, span) = dp.free[i];
            for c in 0..=need {
                for qq in 0..=q {
                    let mut t = 0u128;
                    for y in 0..=span.min(c as u8) {
                        let got = ((lo + y) / 2) as usize;
                        t += dp.table[dp.at(i + 1, c - y as usize, qq.saturating_sub(got))];
                    }
                    let idx = dp.at(i, c, qq);
                    dp.table[idx] = t;
                }
            }
        }
        dp
    }

    #[inline]
    fn at(&self, i: usize, c: usize, q: usize) -> usize {
        (i * (self.need + 1) + c) * (self.q + 1) + q
    }

    pub fn total(&self) -> u128 {
        self.table[self.at(0, self.need, self.q)]
    }

    pub fn nth(&self, mut r: u128) -> Option<Counts> {
        if r >= self.total() {
            return None;
        }
        let mut out = self.base;
        let (mut c, mut q) = (self.need, self.q);
        for (i, &(kind, lo, span)) in self.free.iter().enumerate() {
            for y in 0..=span.min(c as u8) {
                let q2 = q.saturating_sub(((lo + y) / 2) as usize);
                let w = self.table[self.at(i + 1, c - y as usize, q2)];
                if r < w {
                    out[kind as usize] = lo + y;
                    c -= y as usize;
                    q = q2;
                    break;
                }
                r -= w;
            }
        }
        Some(out)
    }

    pub fn all(&self) -> Vec<Counts> {
        let mut out = Vec::new();
        let mut cur = self.base;
        self.walk(0, self.need, self.q, &mut cur, &mut out);
        out
    }

    fn walk(&self, i: usize, c: usize, q: usize, cur: &mut Counts, out: &mut Vec<Counts>) {
        if self.table[self.at(i, c, q)] == 0 {
            return;
        }
        if i == self.free.len() {
            out.push(*cur);
            return;
        }
        let (kind, lo, span) = self.free[i];
        for y in 0..=span.min(c as u8) {
            cur[kind as usize] = lo + y;
            self.walk(i + 1, c - y as usize, q.saturating_sub(((lo + y) / 2) as usize), cur, out);
        }
        cur[kind as usize] = lo;
    }
}
