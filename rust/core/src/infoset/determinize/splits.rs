//! The splits of one kind's unseen copies over the holders of unseen cards, each weighted by
//! the physical deals it stands for: the steps of the counting programme (`counting.rs`) and
//! of the level table's paths (`levels.rs`).

use std::sync::Arc;

use crate::util::memo::{remembered, Memo};

/// The splits of one kind's unseen copies over the holders, each with its weight; shared
/// (the same copies and bounds give the same splits: [`splits`] keeps them per thread).
pub(super) type Splits = Arc<Vec<([u8; 4], u128)>>;

/// No splits, shared (made once).
pub(super) fn no_splits() -> Splits {
    static NONE: std::sync::OnceLock<Splits> = std::sync::OnceLock::new();
    NONE.get_or_init(|| Arc::new(Vec::new())).clone()
}

/// Splits kept per thread by their copies and bounds (a cache: it changes no split, only
/// its cost): the info sets of a hand ask the same few again and again.
type Kept = Memo<(u64, u64), Splits>;

/// Splits kept at most per thread, the cache emptied when full.
const SPLITS_KEPT: usize = 1024;

thread_local! {
    static KEPT: std::cell::RefCell<Kept> = std::cell::RefCell::new(Kept::default());
}

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
/// with its weight c! / Π a! (the copies are distinct cards): the first holder's count
/// slowest, the last holder taking what is left (twin: `splits_plain` under test); kept per
/// thread.
pub(super) fn splits(c: u8, lo: &[u8], hi: &[u8]) -> Splits {
    // (the copies, the holders and their bounds, a byte each)
    let n = lo.len().min(4);
    let mut b = [0u8; 8];
    b[..n].copy_from_slice(&lo[..n]);
    b[4..4 + n].copy_from_slice(&hi[..n]);
    let key = (c as u64 | (lo.len() as u64) << 8, u64::from_le_bytes(b));
    remembered(&KEPT, SPLITS_KEPT, key, || Arc::new(splits_new(c, lo, hi)))
}

/// [`splits`], made.
fn splits_new(c: u8, lo: &[u8], hi: &[u8]) -> Vec<([u8; 4], u128)> {
    let n = lo.len();
    // (room for every split without bounds, C(c + n − 1, n − 1) over n holders: no regrowth)
    let mut out = Vec::with_capacity((1..n).fold(1, |m, i| m * (c as usize + i) / i));
    if n == 0 {
        return out;
    }
    // the holders before the last as three nested counts (those past them fixed at 0)
    let bound = |h: usize| if h + 1 < n { (lo[h], hi[h]) } else { (0, 0) };
    let (l0, h0) = bound(0);
    let (l1, h1) = bound(1);
    let (l2, h2) = bound(2);
    let (ll, hl) = (lo[n - 1], hi[n - 1]);
    let fc = factorial(c);
    for x0 in l0..=h0.min(c) {
        let f0 = factorial(x0);
        for x1 in l1..=h1.min(c - x0) {
            let f1 = f0 * factorial(x1);
            for x2 in l2..=h2.min(c - x0 - x1) {
                let left = c - x0 - x1 - x2;
                if left < ll || left > hl {
                    continue;
                }
                let mut a = [0u8; 4];
                a[0] = x0;
                if n > 1 {
                    a[1] = x1;
                }
                if n > 2 {
                    a[2] = x2;
                }
                a[n - 1] = left;
                out.push((a, (fc / (f1 * factorial(x2) * factorial(left))) as u128));
            }
        }
    }
    out
}

/// The twin of [`splits`]: holder by holder, recursively.
#[cfg(test)]
fn splits_plain(c: u8, lo: &[u8], hi: &[u8]) -> Splits {
    fn rec(h: usize, left: u8, a: &mut [u8; 4], lo: &[u8], hi: &[u8], c: u8, out: &mut Vec<([u8; 4], u128)>) {
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
    let mut out = Vec::new();
    if !lo.is_empty() {
        rec(0, c, &mut [0u8; 4], lo, hi, c, &mut out);
    }
    Arc::new(out)
}

#[cfg(test)]
mod tests {
    use super::{splits, splits_plain};

    /// The nested loops list the recursive twin's splits, in its order, with its weights, for
    /// every count of copies up to 6 over 1 to 4 holders and every bound up to 4 (and none);
    /// asked again, the kept splits are the same.
    #[test]
    fn splits_match_the_recursive_twin() {
        let mut rng = crate::util::rng::Rng::new(42);
        let mut checked = 0;
        for n in 1..=4usize {
            for c in 0..=6u8 {
                for _ in 0..300 {
                    let lo: Vec<u8> = (0..n).map(|_| [0, 0, 0, 1, 2][rng.below_usize(5)]).collect();
                    let hi: Vec<u8> = (0..n).map(|_| [0, 1, 2, 3, 4, u8::MAX, u8::MAX][rng.below_usize(7)]).collect();
                    assert_eq!(splits(c, &lo, &hi), splits_plain(c, &lo, &hi), "c {c}, lo {lo:?}, hi {hi:?}");
                    assert_eq!(splits(c, &lo, &hi), splits_plain(c, &lo, &hi), "c {c}, lo {lo:?}, hi {hi:?}: kept");
                    checked += 1;
                }
                let free = splits(c, &vec![0; n], &vec![u8::MAX; n]);
                assert_eq!(free, splits_plain(c, &vec![0; n], &vec![u8::MAX; n]));
                assert_eq!(free.len(), (1..n).fold(1, |m, i| m * (c as usize + i) / i), "c {c} over {n}: every split");
            }
        }
        assert!(checked >= 8000);
    }
}
