//! The splits of one kind's unseen copies over the holders of unseen cards, each weighted by
//! the physical deals it stands for: the steps of the counting programme (`counting.rs`) and
//! of the level table's paths (`levels.rs`).

/// The splits of one kind's unseen copies over the holders, each with its weight.
pub(super) type Splits = Vec<([u8; 4], u128)>;

pub(super) fn factorial(n: u8) -> u64 {
    // (read from a table: a kind has at most a few copies, and 20! is the last that fits)
    const F: [u64; 21] = {
        let mut f = [1u64; 21];
        let mut i = 1;
        while i < 21 {
            f[i] = f[i - 1] * i as u64;
            i += 1;
        }
        f
    };
    F[n as usize]
}

/// Every split of `c` copies over the holders within their bounds (`lo[h] ..= hi[h]` each),
/// with its weight c! / Π a! (the copies are distinct cards).
pub(super) fn splits(c: u8, lo: &[u8], hi: &[u8]) -> Splits {
    fn rec(h: usize, left: u8, a: &mut [u8; 4], lo: &[u8], hi: &[u8], c: u8, out: &mut Splits) {
        if h + 1 == lo.len() {
            if left >= lo[h] && left <= hi[h] {
                a[h] = left;
                let w = factorial(c) / a[..lo.len()].iter().map(|&x| factorial(x)).product::<u64>();
                out.push((*a, w as u128));
            }
            return;
        }
        for x in lo[h]..=hi[h].min(left) {
            a[h] = x;
            rec(h + 1, left - x, a, lo, hi, c, out);
        }
    }
    // (room for every split without bounds, C(c + n − 1, n − 1) over n holders: no regrowth)
    let n = lo.len();
    let mut out = Vec::with_capacity((1..n).fold(1, |m, i| m * (c as usize + i) / i));
    rec(0, c, &mut [0u8; 4], lo, hi, c, &mut out);
    out
}
