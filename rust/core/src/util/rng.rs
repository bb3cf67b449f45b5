//! The engine's one PRNG: xoshiro256** 1.0 (Blackman & Vigna, 2018), seeded from a
//! u64 by four SplitMix64 outputs. Both algorithms are fixed here, in this file, and
//! never change between versions: a seed gives the same stream on every platform.
//!
//! `below(n)` draws uniformly in `0..n` by masked rejection: take the low
//! `bits(n − 1)` bits of fresh output (two words, high word second, for n > 2^64)
//! and retry while the value is ≥ n. No floats anywhere.

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rng {
    s: [u64; 4],
}

/// One SplitMix64 step (Steele, Lea & Flood 2014): advances `state`, returns the output.
pub fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

impl Rng {
    pub fn new(seed: u64) -> Rng {
        let mut sm = seed;
        Rng { s: [splitmix64(&mut sm), splitmix64(&mut sm), splitmix64(&mut sm), splitmix64(&mut sm)] }
    }

    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        let s = &mut self.s;
        let result = s[1].wrapping_mul(5).rotate_left(7).wrapping_mul(9);
        let t = s[1] << 17;
        s[2] ^= s[0];
        s[3] ^= s[1];
        s[1] ^= s[2];
        s[0] ^= s[3];
        s[2] ^= t;
        s[3] = s[3].rotate_left(45);
        result
    }

    /// Uniform in `0..n`; `n` must be positive.
    #[inline]
    pub fn below(&mut self, n: u128) -> u128 {
        debug_assert!(n > 0);
        if n <= 1 {
            return 0;
        }
        if n <= 1 << 64 {
            return self.below_word((n - 1) as u64) as u128;
        }
        let bits = 128 - (n - 1).leading_zeros();
        let mask = if bits == 128 { u128::MAX } else { (1u128 << bits) - 1 };
        loop {
            let lo = self.next_u64() as u128;
            let v = if bits > 64 { lo | (self.next_u64() as u128) << 64 } else { lo };
            let v = v & mask;
            if v < n {
                return v;
            }
        }
    }

    /// `below(n)` for a bound that fits 32 bits: the same draws, without the 128-bit tests.
    #[inline]
    pub fn below_u32(&mut self, n: u32) -> u32 {
        if n <= 1 {
            return 0;
        }
        self.below_word(n as u64 - 1) as u32
    }

    /// `below(max + 1)` for a bound that fits one word: the same bits, mask and test in
    /// 64-bit arithmetic (one word of output per try), so the same stream.
    #[inline]
    fn below_word(&mut self, max: u64) -> u64 {
        let bits = 64 - max.leading_zeros();
        let mask = if bits == 64 { u64::MAX } else { (1u64 << bits) - 1 };
        loop {
            let v = self.next_u64() & mask;
            if v <= max {
                return v;
            }
        }
    }

    /// Uniform in `0..n` for small n.
    #[inline]
    pub fn below_usize(&mut self, n: usize) -> usize {
        self.below(n as u128) as usize
    }

    /// Fisher–Yates over `v` (at most 2^32 entries), two draws to a word: each draw below
    /// n takes the next 32-bit half of the stream (the high half first) by Lemire's
    /// multiply-shift, rejecting the low products below 2^32 mod n, so every draw is exactly
    /// uniform. A half left over at the end is dropped. (Determinization's deal orders: about
    /// a third of the words `below_usize` would take.)
    pub fn shuffle_by_halves<T>(&mut self, v: &mut [T]) {
        debug_assert!(v.len() as u64 <= 1 << 32);
        let mut spare: Option<u32> = None;
        for i in (1..v.len()).rev() {
            let n = (i + 1) as u32;
            let j = loop {
                let x = match spare.take() {
                    Some(x) => x,
                    None => {
                        let w = self.next_u64();
                        spare = Some(w as u32);
                        (w >> 32) as u32
                    }
                };
                let m = x as u64 * n as u64;
                let low = m as u32;
                // low ≥ n implies low ≥ 2^32 mod n (< n): the division only near the edge
                if low >= n || low >= n.wrapping_neg() % n {
                    break (m >> 32) as usize;
                }
            };
            v.swap(i, j);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splitmix64_reference_vector() {
        // First outputs of SplitMix64 from seed 1234567 (reference C implementation).
        let mut s = 1234567u64;
        assert_eq!(splitmix64(&mut s), 6457827717110365317);
        assert_eq!(splitmix64(&mut s), 3203168211198807973);
    }

    /// `below` as first written, in 128-bit arithmetic only: the word path must match it.
    fn below_wide(r: &mut Rng, n: u128) -> u128 {
        if n <= 1 {
            return 0;
        }
        let bits = 128 - (n - 1).leading_zeros();
        let mask = if bits == 128 { u128::MAX } else { (1u128 << bits) - 1 };
        loop {
            let lo = r.next_u64() as u128;
            let v = if bits > 64 { lo | (r.next_u64() as u128) << 64 } else { lo };
            let v = v & mask;
            if v < n {
                return v;
            }
        }
    }

    #[test]
    fn below_keeps_its_stream() {
        let (mut a, mut b) = (Rng::new(99), Rng::new(99));
        let mut bounds: Vec<u128> = (1..300).collect();
        bounds.extend([1 << 63, (1 << 63) + 1, u64::MAX as u128, 1 << 64, (1 << 64) + 1, u128::MAX]);
        for _ in 0..20 {
            for &n in &bounds {
                assert_eq!(a.below(n), below_wide(&mut b, n), "n = {n}");
            }
            for n in 1..300u32 {
                assert_eq!(a.below_u32(n) as u128, below_wide(&mut b, n as u128), "n = {n}");
            }
        }
        assert_eq!(a, b);
    }

    #[test]
    fn shuffle_by_halves_is_uniform_and_pinned() {
        // every permutation of 4 equally often (chi-square, 24 cells), and a pinned stream
        let mut r = Rng::new(5);
        let mut seen = std::collections::BTreeMap::new();
        let draws = 48_000;
        for _ in 0..draws {
            let mut v = [0u8, 1, 2, 3];
            r.shuffle_by_halves(&mut v);
            *seen.entry(v).or_insert(0u32) += 1;
        }
        assert_eq!(seen.len(), 24);
        let e = draws as f64 / 24.0;
        let chi: f64 = seen.values().map(|&o| (o as f64 - e).powi(2) / e).sum();
        assert!(chi < 60.0, "chi-square {chi} on 23 degrees of freedom");
        // n = 3 puts the rejection threshold (2^32 mod 3 = 1) in play: draws stay in range
        let mut v: Vec<u16> = (0..216).collect();
        Rng::new(9).shuffle_by_halves(&mut v);
        let mut sorted = v.clone();
        sorted.sort();
        assert_eq!(sorted, (0..216).collect::<Vec<u16>>());
        // the same as an independent Python reimplementation of xoshiro256** and this draw
        assert_eq!(&v[..8], &[212, 151, 141, 200, 177, 111, 8, 69]);
    }

    #[test]
    fn xoshiro_reference_vector() {
        // xoshiro256** with state {1, 2, 3, 4}: reference outputs.
        let mut r = Rng { s: [1, 2, 3, 4] };
        let out: Vec<u64> = (0..4).map(|_| r.next_u64()).collect();
        assert_eq!(out, vec![11520, 0, 1509978240, 1215971899390074240]);
    }

    #[test]
    fn below_stays_in_range_and_is_pinned() {
        let mut r = Rng::new(7);
        let v: Vec<u128> = (0..6).map(|_| r.below(10)).collect();
        assert!(v.iter().all(|&x| x < 10));
        let big = 1u128 << 100;
        let mut r = Rng::new(7);
        assert!(r.below(big) < big);
    }
}
