//! Kinds whose copies only one holder's bounds restrict, drawn with the free cards after the
//! counting programme's kinds (step 1 of the sampler): the programme's last layer counts them in
//! closed form, so they take no layer of their own.
//!
//! With `y` standing for every holder but the one, a kind that holder may take `lo ..= hi` of
//! (and the others any of) counts its splits as Σ_a C(c, a) x^a y^(c − a), and the free cards
//! as (x + y)^f: the product over the pool and the free cards is a polynomial in x and y alone.
//! So the physical deals that leave the holders rooms `r` are the ways the one holder fills its
//! room from the pool and the free cards ([`Pool::ways`]), times the ways the others share the
//! rest (a multinomial): no state of the programme ranges over the pool's kinds one by one.

use crate::rules::card::{Counts, DECK};
use crate::util::bignum::{binomial_low, binomial_rows_low};
use crate::util::rng::Rng;
use super::Determinizer;

/// An entry of a counting layer (`counting.rs`): 64 or 128 bits.
pub(super) trait Entry: Copy + Default + Ord + Into<u128> + std::ops::AddAssign + std::ops::Add<Output = Self> + std::ops::Mul<Output = Self> {
    /// `x`, known to fit.
    fn of(x: u128) -> Self;
}

impl Entry for u64 {
    #[inline(always)]
    fn of(x: u128) -> u64 {
        x as u64
    }
}

impl Entry for u128 {
    #[inline(always)]
    fn of(x: u128) -> u128 {
        x
    }
}

/// The kinds of one holder's bounds only, with the free cards.
#[derive(Clone, Debug)]
pub(super) struct Pool {
    /// The holder (index into the holders) whose bounds restrict the pool's kinds.
    pub(super) holder: usize,
    /// `(kind, copies, lo, hi)`: the holder takes `lo ..= hi` copies (hi ≤ copies).
    pub(super) kinds: Vec<(u8, u8, u8, u8)>,
    /// Table i, `prefix[i][t]`: the ways the holder takes `t` copies of the first `i` kinds within its
    /// bounds, Σ Π C(c, a) (the copies are distinct cards).
    /// The tables one after the other (one allocation): table i, of 1 + Σ_{m < i} hi_m
    /// entries, at the sum of the earlier ones' lengths; the last at `top_at`.
    prefix: Vec<u128>,
    top_at: usize,
    /// `ways[r]`: the ways the holder takes `r` cards of the pool's kinds and the free cards,
    /// Σ_t prefix[m][t] · C(free, r − t).
    ways: Vec<u128>,
    /// The pool's copies.
    pub(super) copies: u16,
}

impl Pool {
    /// The pool of `kinds` at `holder` beside `free` free cards among `nh` holders; `None` where
    /// a count could pass 128 bits (nh^(free + copies), the ways to place those cards, does not
    /// fit: every count here is at most that).
    pub(super) fn new(holder: usize, kinds: Vec<(u8, u8, u8, u8)>, free: u16, nh: usize) -> Option<Pool> {
        let copies: u16 = kinds.iter().map(|x| x.1 as u16).sum();
        (nh as u128).checked_pow((free + copies) as u32)?;
        let rows = binomial_rows_low();
        let mut lens = 1;
        let total: usize = 1 + kinds.iter().map(|x| { lens += x.3 as usize; lens }).sum::<usize>();
        let mut prefix: Vec<u128> = Vec::with_capacity(total);
        prefix.push(1);
        // (table i − 1 at `at`, of `len` entries)
        let (mut at, mut len) = (0, 1);
        for &(_, c, lo, hi) in &kinds {
            let next = prefix.len();
            prefix.resize(next + len + hi as usize, 0);
            let choose = &rows[c as usize];
            for t in 0..len {
                let v = prefix[at + t];
                if v > 0 {
                    for a in lo as usize..=hi as usize {
                        prefix[next + t + a] += v * choose[a];
                    }
                }
            }
            (at, len) = (next, len + hi as usize);
        }
        let top = &prefix[at..];
        let f = free as usize;
        // (ways[r] = Σ_t top[t] · C(f, r − t), term by term)
        let row = &binomial_rows_low()[f];
        let mut ways = vec![0u128; top.len() + f];
        for (t, &v) in top.iter().enumerate().filter(|x| *x.1 > 0) {
            for (w, b) in ways[t..].iter_mut().zip(row) {
                *w += v * b;
            }
        }
        Some(Pool { holder, kinds, prefix, top_at: at, ways, copies })
    }

    /// The physical deals of the pool's kinds and the free cards that leave every holder its
    /// room (`rooms`, all holders, summing to the free cards and the pool's copies).
    #[inline]
    pub(super) fn count(&self, rooms: &[u16]) -> u128 {
        let h = self.holder;
        let Some(&w) = self.ways.get(rooms[h] as usize) else { return 0 };
        let mut left: usize = rooms.iter().map(|&r| r as usize).sum::<usize>() - rooms[h] as usize;
        let mut v = w;
        for (g, &r) in rooms.iter().enumerate() {
            if g != h && v > 0 {
                v *= binomial_low(left, r as usize);
                left -= r as usize;
            }
        }
        v
    }

    /// [`Pool::count`] along one row of the last layer: the rooms (`s0 + k`, `rest`, the last
    /// holder's) into `out[k]`, the holders' rooms summing to `all`; with three holders one
    /// binomial a state, read in place. Returns the largest.
    pub(super) fn fill_row<T: Entry>(&self, rest: &[u16], all: u16, s0: u16, out: &mut [T]) -> u128 {
        // (in `T`: every count, each factor too, is at most nh^(all), which the caller's `T`
        // holds)
        let ways = |r: usize| T::of(self.ways.get(r).copied().unwrap_or(0));
        let rows = binomial_rows_low();
        let mut top = T::default();
        let (all, s0, sum) = (all as usize, s0 as usize, rest.iter().map(|&x| x as usize).sum::<usize>());
        let mut put = |c: &mut T, v: T| {
            *c = v;
            top = top.max(v);
        };
        match (rest, self.holder) {
            (&[s1], 0) => {
                let s1 = s1 as usize;
                for (k, c) in out.iter_mut().enumerate() {
                    put(c, ways(s0 + k) * T::of(rows[all - s0 - k][s1]));
                }
            }
            (&[s1], 1) => {
                let (w, row) = (ways(s1 as usize), &rows[all - s1 as usize][s0..]);
                for (c, b) in out.iter_mut().zip(row) {
                    put(c, w * T::of(*b));
                }
            }
            (&[s1], _) => {
                let s1 = s1 as usize;
                for (k, c) in out.iter_mut().enumerate() {
                    put(c, ways(all - s0 - k - s1) * T::of(rows[s0 + k + s1][s0 + k]));
                }
            }
            _ => {
                let mut rooms = [0u16; 4];
                rooms[1..=rest.len()].copy_from_slice(rest);
                for (k, c) in out.iter_mut().enumerate() {
                    rooms[0] = (s0 + k) as u16;
                    rooms[rest.len() + 1] = (all - sum - s0 - k) as u16;
                    put(c, T::of(self.count(&rooms[..rest.len() + 2])));
                }
            }
        }
        top.into()
    }

    /// Deals the pool's kinds and `free` into the holders' rooms (summing to the free cards and
    /// the pool's copies; the holder's set to 0), uniformly among the physical deals within the holder's
    /// bounds: the holder's share `t` of the pool (weight prefix[m][t] · C(free, r − t) out of
    /// ways[r]), each kind's part of it from the last kind back (weight C(c, a) · prefix[i][t − a]
    /// out of prefix[i + 1][t]), the holder's r − t free cards a uniform subset, then the rest
    /// (the other free cards and the pool's copies the holder did not take) dealt to the others
    /// by one shuffle.
    #[inline(never)]
    pub(super) fn deal(&self, free: &[u8], room: &mut [u16], out: &mut [Counts], rng: &mut Rng) {
        let (h, f) = (self.holder, free.len());
        let r = room[h] as usize;
        let top = &self.prefix[self.top_at..];
        let mut x = rng.below(self.ways[r]);
        let mut t = r.saturating_sub(f);
        loop {
            let v = top[t] * binomial_low(f, r - t);
            if x < v {
                break;
            }
            x -= v;
            t += 1;
        }
        let from_free = r - t;
        let mut buf = [0u8; DECK];
        buf[..f].copy_from_slice(free);
        let mut len = f;
        // (table i + 1 at `at`, of `n` entries; table i just before it, of n − hi)
        let (mut at, mut n) = (self.top_at, top.len());
        for &(k, c, lo, hi) in self.kinds.iter().rev() {
            let here = self.prefix[at + t];
            n -= hi as usize;
            at -= n;
            let below = &self.prefix[at..at + n];
            let mut x = rng.below(here);
            let mut a = lo;
            loop {
                let v = if t >= a as usize { binomial_low(c as usize, a as usize) * below.get(t - a as usize).copied().unwrap_or(0) } else { 0 };
                if x < v {
                    break;
                }
                x -= v;
                a += 1;
                debug_assert!(a <= hi, "the parts' weights sum to the share's");
            }
            out[h][k as usize] += a;
            t -= a as usize;
            buf[len..len + (c - a) as usize].fill(k);
            len += (c - a) as usize;
        }
        for i in 0..from_free {
            let j = i + rng.below_usize(f - i);
            buf.swap(i, j);
            out[h][buf[i] as usize] += 1;
        }
        room[h] = 0;
        Determinizer::deal_free(&mut buf[from_free..len], room, out, rng);
    }
}

#[cfg(test)]
mod tests {
    use super::Pool;
    use crate::rules::card::{Counts, KINDS};
    use crate::util::rng::Rng;
    use std::collections::BTreeMap;

    /// Every deal of the pool's kinds and the free cards into the rooms, by kind counts per
    /// holder, with its physical deals Π c! / Π a! (brute force: every split of every kind, the
    /// pool's holder within its bounds, the rooms filled exactly).
    fn exact(pool: &Pool, free: &[(u8, u8)], rooms: &[u16]) -> BTreeMap<Vec<Counts>, u128> {
        let nh = rooms.len();
        let mut kinds: Vec<(u8, u8, u8, u8)> = pool.kinds.clone();
        kinds.extend(free.iter().map(|&(k, c)| (k, c, 0, c)));
        let fact = |n: u8| (1..=n as u128).product::<u128>();
        fn splits(c: u8, nh: usize) -> Vec<[u8; 4]> {
            let mut out = Vec::new();
            for a in 0..=c {
                for b in 0..=c - a {
                    for d in 0..=c - a - b {
                        let v = [a, b, d, c - a - b - d];
                        if v[nh..].iter().all(|&x| x == 0) {
                            out.push(v);
                        }
                    }
                }
            }
            out
        }
        let mut out = BTreeMap::new();
        let mut rec = vec![(vec![[0u8; KINDS]; nh], 1u128)];
        for &(k, c, lo, hi) in &kinds {
            let mut next = Vec::new();
            for (hands, w) in &rec {
                for a in splits(c, nh) {
                    if a[pool.holder] < lo || a[pool.holder] > hi {
                        continue;
                    }
                    let mut h = hands.clone();
                    for (x, &y) in h.iter_mut().zip(&a) {
                        x[k as usize] = y;
                    }
                    let weight = fact(c) / a[..nh].iter().map(|&x| fact(x)).product::<u128>();
                    next.push((h, w * weight));
                }
            }
            rec = next;
        }
        for (hands, w) in rec {
            if hands.iter().zip(rooms).all(|(h, &r)| h.iter().map(|&x| x as u16).sum::<u16>() == r) {
                *out.entry(hands).or_default() += w;
            }
        }
        out
    }

    /// The pool's draw against brute force on random small pools (2 to 4 holders, 1 to 3 kinds
    /// of 1 to 4 copies bounded at one holder, up to 3 kinds of free cards): `Pool::count`
    /// equals the deals counted one by one, and 6,000 draws of `Pool::deal` fit their exact law
    /// (chi-square, cells pooled to an expected 5; every draw a deal the brute force lists).
    #[test]
    fn the_pools_draw_has_the_exact_law() {
        let mut rng = Rng::new(7);
        let (mut tested, mut cells_in_all) = (0, 0);
        while tested < 60 {
            let nh = 2 + rng.below_usize(3);
            let holder = rng.below_usize(nh);
            let m = 1 + rng.below_usize(3);
            let kinds: Vec<(u8, u8, u8, u8)> = (0..m)
                .map(|i| {
                    let c = 1 + rng.below_usize(4) as u8;
                    let lo = rng.below_usize(c as usize / 2 + 1) as u8;
                    let hi = lo + rng.below_usize((c - lo) as usize + 1) as u8;
                    (i as u8, c, lo, hi)
                })
                .collect();
            let free: Vec<(u8, u8)> = (0..rng.below_usize(4)).map(|i| (10 + i as u8, 1 + rng.below_usize(3) as u8)).collect();
            let n_free: u16 = free.iter().map(|x| x.1 as u16).sum();
            let pool = Pool::new(holder, kinds, n_free, nh).expect("small");
            let all = n_free + pool.copies;
            let mut rooms = vec![0u16; nh];
            for _ in 0..all {
                rooms[rng.below_usize(nh)] += 1;
            }
            let law = exact(&pool, &free, &rooms);
            let total: u128 = law.values().sum();
            assert_eq!(pool.count(&rooms), total, "pool {pool:?}, free {free:?}, rooms {rooms:?}");
            if total == 0 || law.len() < 2 {
                continue;
            }
            let cards: Vec<u8> = free.iter().flat_map(|&(k, c)| std::iter::repeat_n(k, c as usize)).collect();
            let draws = 6_000;
            let mut seen: BTreeMap<Vec<Counts>, u32> = BTreeMap::new();
            for _ in 0..draws {
                let mut out = vec![[0u8; KINDS]; nh];
                let mut room = rooms.clone();
                pool.deal(&cards, &mut room, &mut out, &mut rng);
                assert!(law.contains_key(&out), "a deal outside the law: {out:?}");
                *seen.entry(out).or_default() += 1;
            }
            let (mut chi, mut cells, mut pool_o, mut pool_e) = (0.0f64, 0usize, 0.0f64, 0.0f64);
            for (k, &w) in &law {
                let (o, e) = (*seen.get(k).unwrap_or(&0) as f64, draws as f64 * w as f64 / total as f64);
                if e < 5.0 {
                    (pool_o, pool_e) = (pool_o + o, pool_e + e);
                } else {
                    chi += (o - e) * (o - e) / e;
                    cells += 1;
                }
            }
            if pool_e > 0.0 {
                chi += (pool_o - pool_e) * (pool_o - pool_e) / pool_e.max(1.0);
                cells += 1;
            }
            let dof = cells.saturating_sub(1) as f64;
            assert!(chi < dof + 5.0 * (2.0 * dof).sqrt() + 10.0, "chi2 {chi:.1} over {cells} cells: pool {pool:?}, free {free:?}, rooms {rooms:?}");
            cells_in_all += cells;
            tested += 1;
        }
        assert!(cells_in_all >= 300, "{cells_in_all} cells");
    }
}
