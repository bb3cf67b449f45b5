//! A fixed-width unsigned integer for exact counting of deals (determinization): the
//! number of ways to deal up to 215 unseen cards to four holders is below 4^215 < 2^512.
//! Integers only, so sampling is exact and the same on every platform.

use std::cmp::Ordering;

use crate::util::rng::Rng;

const LIMBS: usize = 8;

/// An unsigned 512-bit integer, little-endian limbs. Overflow is a bug (checked in debug).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Big([u64; LIMBS]);

impl Big {
    pub const ZERO: Big = Big([0; LIMBS]);
    pub const ONE: Big = Big([1, 0, 0, 0, 0, 0, 0, 0]);
    /// Limbs in all: the widest `n` the `_within` operations take.
    pub const LIMBS: usize = LIMBS;

    pub fn from_u64(x: u64) -> Big {
        let mut b = Big::ZERO;
        b.0[0] = x;
        b
    }

    pub fn from_u128(x: u128) -> Big {
        let mut b = Big::ZERO;
        b.0[0] = x as u64;
        b.0[1] = (x >> 64) as u64;
        b
    }

    /// The value of the little-endian limbs `l` (at most `LIMBS`).
    pub fn from_limbs(l: &[u64]) -> Big {
        let mut b = Big::ZERO;
        b.0[..l.len()].copy_from_slice(l);
        b
    }

    /// Limb `i` (little-endian).
    pub fn limb(&self, i: usize) -> u64 {
        self.0[i]
    }

    /// `self · m` for a multiplier of up to 128 bits.
    pub fn mul_u128(&self, m: u128) -> Big {
        if m >> 64 == 0 {
            self.mul_small(m as u64)
        } else {
            self.mul(&Big::from_u128(m))
        }
    }

    pub fn is_zero(&self) -> bool {
        self.0.iter().all(|&l| l == 0)
    }

    /// Limbs in use.
    fn len(&self) -> usize {
        self.0.iter().rposition(|&l| l != 0).map_or(0, |i| i + 1)
    }

    pub fn add(&self, o: &Big) -> Big {
        let mut r = *self;
        r.add_within(o, LIMBS);
        r
    }

    /// `self − o`; `o ≤ self`.
    pub fn sub(&self, o: &Big) -> Big {
        let mut r = *self;
        r.sub_within(o, LIMBS);
        r
    }

    pub fn mul_small(&self, m: u64) -> Big {
        let mut r = Big::ZERO;
        let mut carry = 0u128;
        for i in 0..self.len() {
            let v = self.0[i] as u128 * m as u128 + carry;
            r.0[i] = v as u64;
            carry = v >> 64;
        }
        let n = self.len();
        if n < LIMBS {
            r.0[n] = carry as u64;
        } else {
            debug_assert_eq!(carry, 0, "Big overflow");
        }
        r
    }

    pub fn mul(&self, o: &Big) -> Big {
        let (na, nb) = (self.len(), o.len());
        let mut r = [0u64; LIMBS];
        for i in 0..na {
            let mut carry = 0u128;
            for j in 0..nb {
                if i + j >= LIMBS {
                    debug_assert!(self.0[i] as u128 * o.0[j] as u128 + carry == 0, "Big overflow");
                    break;
                }
                let v = self.0[i] as u128 * o.0[j] as u128 + r[i + j] as u128 + carry;
                r[i + j] = v as u64;
                carry = v >> 64;
            }
            if i + nb < LIMBS {
                r[i + nb] = carry as u64;
            } else {
                debug_assert_eq!(carry, 0, "Big overflow");
            }
        }
        Big(r)
    }

    /// `self · o` where `self` takes at most `na` limbs and `o` at most `nb`, `na + nb ≤ LIMBS`
    /// (no scan for the limbs in use: the counting programme's multinomials, a row's part
    /// times each binomial of the row).
    pub fn mul_limbs(&self, o: &Big, na: usize, nb: usize) -> Big {
        debug_assert!(na + nb <= LIMBS && self.len() <= na && o.len() <= nb, "Big: limbs beyond {na} and {nb}");
        let mut r = [0u64; LIMBS];
        for i in 0..na {
            let mut carry = 0u128;
            for j in 0..nb {
                let v = self.0[i] as u128 * o.0[j] as u128 + r[i + j] as u128 + carry;
                r[i + j] = v as u64;
                carry = v >> 64;
            }
            // (below 2^64: the partial product of `na` and `nb` limbs)
            if i + nb < LIMBS {
                r[i + nb] = carry as u64;
            }
        }
        Big(r)
    }

    /// The value when it fits in 128 bits.
    pub fn to_u128(&self) -> Option<u128> {
        self.0[2..].iter().all(|&l| l == 0).then(|| self.0[0] as u128 | (self.0[1] as u128) << 64)
    }

    /// The low 128 bits (exact when the value is known to be below 2^128).
    pub fn low_u128(&self) -> u128 {
        self.0[0] as u128 | (self.0[1] as u128) << 64
    }

    /// Bits in use (0 for zero).
    pub fn bits(&self) -> u32 {
        let n = self.len();
        if n == 0 { 0 } else { 64 * n as u32 - self.0[n - 1].leading_zeros() }
    }

    /// The top bits: `self >> s` when it fits in 64 bits (for `s ≥ bits − 64`).
    pub fn shr_u64(&self, s: u32) -> u64 {
        let (a, b) = ((s / 64) as usize, s % 64);
        let lo = self.0.get(a).copied().unwrap_or(0) >> b;
        let hi = if b == 0 { 0 } else { self.0.get(a + 1).copied().unwrap_or(0) << (64 - b) };
        debug_assert!(s + 64 >= self.bits(), "Big: more than 64 bits above the shift");
        lo | hi
    }

    /// Limbs in use (0 for zero): the width the `_within` operations below may be given.
    pub fn limbs(&self) -> usize {
        self.len()
    }

    /// `self · m` when the product is known to fit in `n` limbs (the hot loop of sampling,
    /// where every product is bounded by the total it is drawn against).
    pub fn mul_small_within(&self, m: u64, n: usize) -> Big {
        let mut r = Big::ZERO;
        let mut carry = 0u128;
        for i in 0..n {
            let v = self.0[i] as u128 * m as u128 + carry;
            r.0[i] = v as u64;
            carry = v >> 64;
        }
        debug_assert!(carry == 0 && self.0[n..].iter().all(|&l| l == 0), "Big: product wider than {n} limbs");
        r
    }

    /// `self += o · m`, the result known to fit in `n` limbs (the counting programme's inner
    /// loop: one pass, no temporary).
    #[inline]
    pub fn add_mul_small_within(&mut self, o: &Big, m: u64, n: usize) {
        let mut carry = 0u128;
        for i in 0..n {
            // at most (2^64 − 1)^2 + 2 (2^64 − 1) = 2^128 − 1
            let v = o.0[i] as u128 * m as u128 + self.0[i] as u128 + carry;
            self.0[i] = v as u64;
            carry = v >> 64;
        }
        debug_assert!(carry == 0 && o.0[n..].iter().all(|&l| l == 0), "Big: result wider than {n} limbs");
    }

    /// `self += o · m`, the result known to fit in `N` limbs (`add_mul_small_within` with the
    /// width a constant: unrolled).
    #[inline(always)]
    pub fn add_mul_small_n<const N: usize>(&mut self, o: &Big, m: u64) {
        self.add_mul_small_within(o, m, N);
    }

    /// `self += x · m` for `x` of up to 128 bits, the result known to fit in `n ≥ 2` limbs
    /// (the counting programme's wide layers over a narrow one, without widening `x`).
    #[inline]
    pub fn add_mul_u128_within(&mut self, x: u128, m: u64, n: usize) {
        let (x0, x1) = (x as u64 as u128, x >> 64);
        // each step at most (2^64 − 1)^2 + 2 (2^64 − 1) = 2^128 − 1
        let v = x0 * m as u128 + self.0[0] as u128;
        self.0[0] = v as u64;
        let v = x1 * m as u128 + self.0[1] as u128 + (v >> 64);
        self.0[1] = v as u64;
        let mut carry = (v >> 64) as u64;
        for l in &mut self.0[2..n] {
            if carry == 0 {
                break;
            }
            let (v, c) = l.overflowing_add(carry);
            (*l, carry) = (v, c as u64);
        }
        debug_assert!(carry == 0, "Big: result wider than {n} limbs");
    }

    /// `self |= o` in the low `n` limbs (the widest of many values: the limbs of their or).
    #[inline]
    pub fn or_within(&mut self, o: &Big, n: usize) {
        for i in 0..n {
            self.0[i] |= o.0[i];
        }
    }

    /// `self += o`, the sum known to fit in `n` limbs.
    pub fn add_within(&mut self, o: &Big, n: usize) {
        let mut carry = 0u64;
        for i in 0..n {
            let (s1, c1) = self.0[i].overflowing_add(o.0[i]);
            let (s2, c2) = s1.overflowing_add(carry);
            self.0[i] = s2;
            carry = (c1 | c2) as u64;
        }
        debug_assert!(carry == 0 && o.0[n..].iter().all(|&l| l == 0), "Big: sum wider than {n} limbs");
    }

    /// `self < o`, both known to fit in `n` limbs.
    pub fn lt_within(&self, o: &Big, n: usize) -> bool {
        for i in (0..n).rev() {
            if self.0[i] != o.0[i] {
                return self.0[i] < o.0[i];
            }
        }
        false
    }

    /// `self −= o` (`o ≤ self`), both known to fit in `n` limbs.
    pub fn sub_within(&mut self, o: &Big, n: usize) {
        let mut borrow = 0u64;
        for i in 0..n {
            let (d1, b1) = self.0[i].overflowing_sub(o.0[i]);
            let (d2, b2) = d1.overflowing_sub(borrow);
            self.0[i] = d2;
            borrow = (b1 | b2) as u64;
        }
        debug_assert_eq!(borrow, 0, "Big underflow");
    }

    /// Uniform in `0..self` (`self` > 0), by rejection on the top bits.
    pub fn below(&self, rng: &mut Rng) -> Big {
        debug_assert!(!self.is_zero());
        let n = self.len();
        let top = self.0[n - 1];
        let mask = if top.leading_zeros() == 0 { u64::MAX } else { (1u64 << (64 - top.leading_zeros())) - 1 };
        loop {
            let mut r = Big::ZERO;
            for i in 0..n {
                r.0[i] = rng.next_u64();
            }
            r.0[n - 1] &= mask;
            if r < *self {
                return r;
            }
        }
    }

    /// The value as a decimal string.
    pub fn to_decimal(&self) -> String {
        if self.is_zero() {
            return "0".into();
        }
        let mut digits = Vec::new();
        let mut x = *self;
        while !x.is_zero() {
            let mut rem = 0u128;
            for i in (0..LIMBS).rev() {
                let v = (rem << 64) | x.0[i] as u128;
                x.0[i] = (v / 10) as u64;
                rem = v % 10;
            }
            digits.push(b'0' + rem as u8);
        }
        digits.reverse();
        String::from_utf8(digits).expect("ascii digits")
    }
}

/// A vector of counts, held in 128 bits each where every one fits (a quarter of the memory
/// of full width, and read without conversion), else at full width.
#[derive(Clone, Debug)]
pub enum BigVec {
    Narrow(Vec<u128>),
    Wide(Vec<Big>),
}

impl BigVec {
    /// Full-width values, narrowed when every one fits in 128 bits.
    pub fn from_wide(v: Vec<Big>) -> BigVec {
        if v.iter().all(|x| x.to_u128().is_some()) {
            BigVec::Narrow(v.iter().map(|x| x.low_u128()).collect())
        } else {
            BigVec::Wide(v)
        }
    }

    pub fn get(&self, i: usize) -> Big {
        match self {
            BigVec::Narrow(v) => Big::from_u128(v[i]),
            BigVec::Wide(v) => v[i],
        }
    }

    /// The low 128 bits of entry `i` (exact when it is known to be below 2^128).
    pub fn low_u128(&self, i: usize) -> u128 {
        match self {
            BigVec::Narrow(v) => v[i],
            BigVec::Wide(v) => v[i].low_u128(),
        }
    }

    /// Bytes held.
    pub fn bytes(&self) -> usize {
        match self {
            BigVec::Narrow(v) => v.len() * std::mem::size_of::<u128>(),
            BigVec::Wide(v) => v.len() * std::mem::size_of::<Big>(),
        }
    }
}

impl PartialOrd for Big {
    fn partial_cmp(&self, o: &Big) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}

impl Ord for Big {
    fn cmp(&self, o: &Big) -> Ordering {
        for i in (0..LIMBS).rev() {
            match self.0[i].cmp(&o.0[i]) {
                Ordering::Equal => continue,
                c => return c,
            }
        }
        Ordering::Equal
    }
}

/// Binomial coefficients C(n, k) for n ≤ 216, by Pascal's rule (computed once).
pub fn binomial(n: usize, k: usize) -> Big {
    if k > n {
        Big::ZERO
    } else {
        binomials()[n][k]
    }
}

/// The low 128 bits of C(n, k) (exact where it is known to fit), read in place.
pub fn binomial_low(n: usize, k: usize) -> u128 {
    if k > n {
        0
    } else {
        binomial_rows_low()[n][k]
    }
}

/// [`binomial_rows`]' low 128 bits (exact where they fit, as every count of a programme in
/// 128 bits): 16 bytes an entry, not 64, so that a row read along is a quarter of the cache
/// lines (a later info set's programme meets the table cold).
pub fn binomial_rows_low() -> &'static [Vec<u128>] {
    use std::sync::OnceLock;
    static TABLE: OnceLock<Vec<Vec<u128>>> = OnceLock::new();
    TABLE.get_or_init(|| binomials().iter().map(|row| row.iter().map(Big::low_u128).collect()).collect())
}

/// Every row of Pascal's triangle, C(n, 0 ..= n) for n ≤ 216, read in place (the table looked
/// up once).
pub fn binomial_rows() -> &'static [Vec<Big>] {
    binomials()
}

fn binomials() -> &'static [Vec<Big>] {
    use std::sync::OnceLock;
    static TABLE: OnceLock<Vec<Vec<Big>>> = OnceLock::new();
    TABLE.get_or_init(|| {
        let mut rows: Vec<Vec<Big>> = Vec::with_capacity(217);
        for n in 0..=216usize {
            let mut row = vec![Big::ONE; n + 1];
            for k in 1..n {
                row[k] = rows[n - 1][k - 1].add(&rows[n - 1][k]);
            }
            rows.push(row);
        }
        rows
    })
}

/// A 256-bit unsigned integer, little-endian limbs: fixed-width sums for counts known to fit
/// (the level table's path weights and running totals), cheaper than a [`Big`].
pub type Quad = [u64; 4];

/// `v · u` in four limbs (always fits).
pub fn quad_mul(v: u128, u: u128) -> Quad {
    let (a, b) = ([v as u64, (v >> 64) as u64], [u as u64, (u >> 64) as u64]);
    let mut r = [0u64; 4];
    for i in 0..2 {
        let mut carry = 0u128;
        for j in 0..2 {
            let x = a[i] as u128 * b[j] as u128 + r[i + j] as u128 + carry;
            r[i + j] = x as u64;
            carry = x >> 64;
        }
        r[i + 2] = carry as u64;
    }
    r
}

/// `a · m` in four limbs, `None` where it does not fit.
pub fn quad_scale(a: &Quad, m: u64) -> Option<Quad> {
    let mut r = [0u64; 4];
    let mut carry = 0u128;
    for l in 0..4 {
        let x = a[l] as u128 * m as u128 + carry;
        r[l] = x as u64;
        carry = x >> 64;
    }
    (carry == 0).then_some(r)
}

/// `a + b` in four limbs, `None` where it does not fit.
pub fn quad_add(a: &Quad, b: &Quad) -> Option<Quad> {
    let mut r = [0u64; 4];
    let mut carry = false;
    for l in 0..4 {
        let (s1, c1) = a[l].overflowing_add(b[l]);
        let (s2, c2) = s1.overflowing_add(carry as u64);
        r[l] = s2;
        carry = c1 | c2;
    }
    (!carry).then_some(r)
}

/// `a + v · u` in four limbs, `None` where it does not fit (a 128-bit count times a 64-bit
/// weight takes two multiplications, not four).
#[inline]
pub fn quad_add_mul(a: &Quad, v: u128, u: u64) -> Option<Quad> {
    let lo = v as u64 as u128 * u as u128;
    let hi = (v >> 64) as u64 as u128 * u as u128 + (lo >> 64);
    quad_add(a, &[lo as u64, hi as u64, (hi >> 64) as u64, 0])
}

/// `a − b` (`b ≤ a`).
pub fn quad_sub(a: &Quad, b: &Quad) -> Quad {
    let mut r = [0u64; 4];
    let mut borrow = false;
    for l in 0..4 {
        let (d1, b1) = a[l].overflowing_sub(b[l]);
        let (d2, b2) = d1.overflowing_sub(borrow as u64);
        r[l] = d2;
        borrow = b1 | b2;
    }
    r
}

/// `a < b`.
pub fn quad_lt(a: &Quad, b: &Quad) -> bool {
    (a[3], a[2], a[1], a[0]) < (b[3], b[2], b[1], b[0])
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The 128-bit table holds each binomial's low 128 bits, row for row, and those are the
    /// binomial where it fits (C(n, k) by the multiplicative formula in u128, checked).
    #[test]
    fn the_low_binomial_table_matches_the_full_one() {
        let (full, low) = (binomial_rows(), binomial_rows_low());
        assert_eq!(full.len(), low.len());
        let mut exact = 0;
        for (n, (f, l)) in full.iter().zip(low).enumerate() {
            assert_eq!(f.len(), l.len(), "row {n}");
            for (k, (a, &b)) in f.iter().zip(l).enumerate() {
                assert_eq!(a.low_u128(), b, "C({n}, {k})");
                assert_eq!(binomial_low(n, k), b, "C({n}, {k})");
                // (C(n, j + 1) = C(n, j) · (n − j) / (j + 1), exact at each step)
                let plain = (0..k).try_fold(1u128, |c, j| c.checked_mul((n - j) as u128).map(|x| x / (j as u128 + 1)));
                if let Some(c) = plain {
                    assert_eq!(c, b, "C({n}, {k})");
                    exact += 1;
                }
            }
        }
        assert!(exact > 5_000, "{exact} binomials checked by the formula");
    }

    /// The 256-bit words agree with the full-width numbers wherever they fit.
    #[test]
    fn quads_agree_with_full_width_numbers() {
        let mut rng = Rng::new(5);
        let big = |q: &Quad| Big::from_limbs(q);
        for _ in 0..2000 {
            let (v, u) = (rng.next_u64() as u128 | (rng.next_u64() as u128) << 64, rng.next_u64() as u128);
            let a = quad_mul(v, u);
            assert_eq!(big(&a), Big::from_u128(v).mul_u128(u));
            let m = rng.next_u64() >> rng.below(64) as u32;
            let b = quad_mul(rng.next_u64() as u128, rng.next_u64() as u128);
            assert_eq!(quad_scale(&a, m).map(|x| big(&x)), Some(big(&a).mul_small(m)).filter(|x| x.limbs() <= 4));
            assert_eq!(quad_add(&a, &b).map(|x| big(&x)), Some(big(&a).add(&big(&b))).filter(|x| x.limbs() <= 4));
            let w = rng.next_u64() >> rng.below(64) as u32;
            assert_eq!(quad_add_mul(&b, v, w), quad_add(&b, &quad_mul(v, w as u128)));
            assert_eq!(quad_lt(&a, &b), big(&a) < big(&b));
            let (hi, lo) = if quad_lt(&a, &b) { (b, a) } else { (a, b) };
            assert_eq!(big(&quad_sub(&hi, &lo)), big(&hi).sub(&big(&lo)));
        }
    }

    #[test]
    fn arithmetic_and_decimal() {
        let a = Big::from_u64(u64::MAX);
        let b = a.mul(&a).add(&Big::ONE);
        assert_eq!(b.to_decimal(), "340282366920938463426481119284349108226");
        assert_eq!(b.sub(&Big::ONE), a.mul(&a));
        assert_eq!(a.mul_small(10).to_decimal(), "184467440737095516150");
        assert_eq!(binomial(52, 5).to_decimal(), "2598960");
        // 216! / (54!)^4 = C(216,54)·C(162,54)·C(108,54)
        let deals = binomial(216, 54).mul(&binomial(162, 54)).mul(&binomial(108, 54));
        assert!(deals > Big::from_u64(1));
        assert!(Big::from_u64(3) < Big::from_u64(4));
    }

    #[test]
    fn bounded_width_operations_agree_with_the_full_ones() {
        let mut rng = Rng::new(11);
        for _ in 0..2000 {
            let a = binomial(200, 100).below(&mut rng);
            let m = rng.next_u64() >> (rng.below_usize(64) as u32);
            let p = a.mul_small(m);
            if p.is_zero() {
                continue;
            }
            let n = p.limbs().max(a.limbs());
            assert_eq!(a.mul_small_within(m, n), p);
            let b = p.below(&mut rng);
            assert_eq!(b.lt_within(&p, n), b < p);
            assert_eq!(p.lt_within(&b, n), p < b);
            let mut d = p;
            d.sub_within(&b, n);
            assert_eq!(d, p.sub(&b));
            d.add_within(&b, n);
            assert_eq!(d, p);
            assert_eq!(b.to_u128().is_some(), b < Big::from_u128(u128::MAX).add(&Big::ONE));
            if let Some(x) = b.to_u128() {
                assert_eq!(Big::from_u128(x), b);
                assert_eq!(b.low_u128(), x);
            }
        }
    }

    #[test]
    fn a_fused_multiply_add_agrees_with_its_parts() {
        let mut rng = Rng::new(11);
        for _ in 0..500 {
            let a = binomial(200, rng.below_usize(201)).mul_small(rng.next_u64() >> rng.below_usize(64));
            let o = binomial(180, rng.below_usize(181));
            let m = rng.next_u64() >> rng.below_usize(64);
            let want = a.add(&o.mul_small(m));
            let mut got = a;
            got.add_mul_small_within(&o, m, want.limbs().max(o.limbs()));
            assert_eq!(got, want);
        }
    }

    /// The bounded-width forms the counting programme's full-width layers use (`mul_limbs`,
    /// `add_mul_u128_within`, `add_mul_small_n`, `or_within`) against the full ones.
    #[test]
    fn the_counting_programmes_wide_operations_agree_with_the_full_ones() {
        let mut rng = Rng::new(23);
        for _ in 0..2000 {
            let a = binomial(160, rng.below_usize(161)).below(&mut rng);
            let b = binomial(216, rng.below_usize(217)).below(&mut rng);
            let (na, nb) = (a.limbs() + rng.below_usize(2), b.limbs() + rng.below_usize(2));
            if na + nb <= Big::LIMBS {
                assert_eq!(a.mul_limbs(&b, na, nb), a.mul(&b));
            }
            let x = (rng.next_u64() as u128) << 64 | rng.next_u64() as u128;
            let x = x >> rng.below_usize(128);
            let m = rng.next_u64() >> rng.below_usize(64);
            let want = a.add(&Big::from_u128(x).mul_small(m));
            let mut got = a;
            got.add_mul_u128_within(x, m, want.limbs().max(2));
            assert_eq!(got, want);
            let want = a.add(&b.mul_small(m));
            if want.limbs().max(b.limbs()) <= 5 {
                let mut got = a;
                got.add_mul_small_n::<5>(&b, m);
                assert_eq!(got, want);
            }
            let mut or = a;
            or.or_within(&b, Big::LIMBS);
            assert_eq!(or.limbs(), a.limbs().max(b.limbs()));
        }
    }

    #[test]
    fn a_big_vec_narrows_only_when_every_entry_fits() {
        let max = Big::from_u128(u128::MAX);
        let v = BigVec::from_wide(vec![Big::ZERO, max, Big::from_u64(7)]);
        assert!(matches!(v, BigVec::Narrow(_)));
        assert_eq!((v.get(1), v.low_u128(2), v.bytes()), (max, 7, 48));
        let over = max.add(&Big::ONE);
        let w = BigVec::from_wide(vec![Big::from_u64(7), over]);
        assert!(matches!(w, BigVec::Wide(_)));
        assert_eq!((w.get(1), w.low_u128(0)), (over, 7));
    }

    #[test]
    fn the_top_bits_agree_with_division_by_a_power_of_two() {
        let mut rng = Rng::new(5);
        assert_eq!((Big::ZERO.bits(), Big::ONE.bits(), Big::from_u64(u64::MAX).bits()), (0, 1, 64));
        for _ in 0..2000 {
            let a = binomial(200, rng.below_usize(201)).mul_small(rng.next_u64() >> rng.below_usize(64));
            let bits = a.bits();
            assert!(bits == 0 || (a < Big::ONE.mul(&pow2(bits)) && Big::ONE.mul(&pow2(bits - 1)) <= a));
            let s = bits.saturating_sub(64) + rng.below_usize(8) as u32;
            // a >> s, checked as q · 2^s ≤ a < (q + 1) · 2^s
            let q = Big::from_u64(a.shr_u64(s));
            assert!(q.mul(&pow2(s)) <= a && a < q.add(&Big::ONE).mul(&pow2(s)), "{} >> {s}", a.to_decimal());
        }
    }

    fn pow2(s: u32) -> Big {
        (0..s).fold(Big::ONE, |b, _| b.mul_small(2))
    }

    #[test]
    fn below_is_in_range() {
        let mut rng = Rng::new(3);
        let n = binomial(200, 100);
        for _ in 0..100 {
            assert!(n.below(&mut rng) < n);
        }
        let seven = Big::from_u64(7);
        let mut seen = [0u32; 7];
        for _ in 0..7000 {
            seen[seven.below(&mut rng).0[0] as usize] += 1;
        }
        assert!(seen.iter().all(|&c| (850..1150).contains(&c)), "{seen:?}");
    }
}
