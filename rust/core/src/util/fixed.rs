//! Integer maths in fixed point, the same bits on every platform: what the searches use
//! where a float would otherwise decide (no floats decide play).

/// Integer square root: the largest `r` with `r² ≤ x`.
pub fn isqrt(x: u64) -> u64 {
    if x < 2 {
        return x;
    }
    let mut r = (x as f64).sqrt() as u64; // a first guess, corrected exactly below
    let sq = |r: u64| r as u128 * r as u128;
    while sq(r) > x as u128 {
        r -= 1;
    }
    while sq(r + 1) <= x as u128 {
        r += 1;
    }
    r
}

/// ln(n) in Q32 fixed point, by integer arithmetic only (the same bits on every platform).
pub fn ln_q32(n: u64) -> u64 {
    debug_assert!(n >= 1);
    let e = 63 - n.leading_zeros() as u64; // integer part of log2
    // mantissa in [1, 2) as Q62
    let mut m: u128 = ((n as u128) << 62) >> e;
    let mut frac: u64 = 0;
    for _ in 0..32 {
        m = (m * m) >> 62;
        frac <<= 1;
        if m >= 2u128 << 62 {
            m >>= 1;
            frac |= 1;
        }
    }
    let log2_q32 = (e << 32) | frac;
    const LN2_Q32: u128 = 2_977_044_472; // ln 2 · 2^32
    ((log2_q32 as u128 * LN2_Q32) >> 32) as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fixed_point_ln_and_sqrt() {
        for n in [1u64, 2, 3, 10, 1000, 123_456_789] {
            let want = (n as f64).ln() * 4294967296.0;
            let got = ln_q32(n) as f64;
            assert!((got - want).abs() < 4.0 + want * 1e-8, "ln {n}: {got} vs {want}");
        }
        for x in [0u64, 1, 2, 3, 4, 15, 16, 17, u32::MAX as u64, 1 << 60] {
            let r = isqrt(x);
            assert!(r * r <= x && (r + 1) * (r + 1) > x);
        }
    }
}
