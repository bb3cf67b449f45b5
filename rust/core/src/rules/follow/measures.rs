//! The ladder's measures of a selection (docs/rules.md R5.3–R5.4): pairs, runs, the longest tractor
//! and the least pairs a tractor of a given size costs.

use crate::rules::card::Counts;
use crate::rules::combo::{for_each_tractor, Combo};
use crate::rules::trump::Context;

/// ⌊x/2⌋ − ⌊(x−m)/2⌋: the pairs a tractor unit of multiplicity `m` takes from `x` held copies.
#[inline]
fn unit_loss(x: u8, m: u8) -> u8 {
    x / 2 - (x - m) / 2
}

/// Number of pairs in a selection (R5.3 T3: a triple gives one, a bomb two).
#[inline]
pub fn pairs(ctx: &Context, class: u8, x: &Counts) -> u8 {
    ctx.class_kinds(class).iter().map(|&k| x[k as usize] / 2).sum()
}

/// The longest run of linked kinds of `class` each held at least `m` times (R3.3: on a
/// cyclic chain a run may pass through A–2). Read from the kinds held `m` times as bits over
/// kind ids, cut chain by chain ([`crate::rules::trump::Chain::bits_of`]).
pub fn max_run(ctx: &Context, class: u8, x: &Counts, m: u8) -> u8 {
    max_run_in(ctx, class, crate::rules::card::held_mask(x, m))
}

/// [`max_run`] from the kinds held `m` times (`ids`, bits over kind ids).
#[inline]
fn max_run_in(ctx: &Context, class: u8, ids: u64) -> u8 {
    let mut best = 0u8;
    for chain in ctx.chains_of(class) {
        let (len, bits) = (chain.len as u32, chain.bits_of(ids));
        if bits == 0 {
            continue;
        }
        let all = (1u64 << len) - 1;
        if chain.cyclic && bits == all {
            best = best.max(chain.len);
            continue;
        }
        // on the cycle the chain repeated once after itself: a run through A–2 reads straight
        // on (none reaches the whole cycle, some kind is not held)
        let mut ext = if chain.cyclic { bits | bits << len } else { bits };
        // the longest run of ones: how many times ext & (ext >> 1) leaves a bit set
        let mut run = 0u8;
        while ext != 0 {
            ext &= ext >> 1;
            run += 1;
        }
        best = best.max(run);
    }
    best
}

/// R5.3 T2: the card count of the longest tractor of at most `n` cards that `x` can give in
/// `class` (any multiplicity, D1), or 0.
pub fn longest_tractor(ctx: &Context, class: u8, x: &Counts, n: u8) -> u8 {
    let mut l = 0u8;
    if n / 2 < 2 {
        return 0; // no tractor fits in n cards
    }
    let ids = crate::rules::card::held_at_least(x);
    for m in 2..=4u8 {
        if n / m < 2 {
            break; // no tractor of multiplicity m (nor any higher) fits in n cards
        }
        let k = max_run_in(ctx, class, ids[m as usize - 2]).min(n / m);
        if k >= 2 {
            l = l.max(m * k);
        }
    }
    l
}

/// The least pairs lost to a tractor of exactly `l` cards inside `x`, over every such tractor
/// (any multiplicity, D1), or `None` if `x` holds none.
pub fn min_tractor_loss(ctx: &Context, class: u8, x: &Counts, l: u8) -> Option<u8> {
    let mut best: Option<u8> = None;
    for m in 2..=4u8 {
        if l % m != 0 || l / m < 2 {
            continue;
        }
        let k = l / m;
        for_each_tractor(ctx, class, x, m, k, k, |first, _| {
            let t = Combo { m, k, first, class, top: 0 };
            let loss: u8 = t.kinds(ctx).map(|kind| unit_loss(x[kind as usize], m)).sum();
            best = Some(best.map_or(loss, |b| b.min(loss)));
        });
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::card::KINDS;
    use crate::rules::profile::Profile;
    use crate::util::rng::Rng;

    /// [`max_run`]'s twin: the chain's kinds read one by one in link order.
    fn max_run_by_kinds(ctx: &Context, class: u8, x: &Counts, m: u8) -> u8 {
        let mut best = 0u8;
        for chain in ctx.chains_of(class) {
            let kinds = ctx.chain_kinds(chain);
            let (mut run, mut first_run, mut all) = (0u8, 0u8, true);
            for &k in kinds {
                if x[k as usize] >= m {
                    run += 1;
                } else {
                    if all {
                        first_run = run;
                    }
                    all = false;
                    run = 0;
                }
                best = best.max(run);
            }
            if chain.cyclic {
                if all {
                    best = best.max(chain.len);
                } else {
                    best = best.max(run + first_run); // a run through A–2
                }
            }
        }
        best
    }

    /// The masks' runs against the kinds read one by one, in every profile, level and trump
    /// (no trump too), every class and multiplicity, on random holdings (sparse and dense).
    #[test]
    fn max_run_by_masks_is_the_kinds_run() {
        let mut rng = Rng::new(31);
        let mut contexts = 0;
        for profile in Profile::ALL {
            for level in 2..=14u8 {
                for trump in 0..=4u8 {
                    let Ok(ctx) = Context::get(level, trump, profile) else { continue };
                    contexts += 1;
                    for t in 0..60 {
                        let top = [2, 3, 5][t % 3];
                        let x: Counts = std::array::from_fn(|_| rng.below_usize(top) as u8);
                        let mut full = [4u8; KINDS];
                        if t % 7 == 0 {
                            full[rng.below_usize(KINDS)] = 0;
                        }
                        for x in [&x, &full] {
                            for class in 0..5u8 {
                                for m in 1..=4u8 {
                                    assert_eq!(max_run(ctx, class, x, m), max_run_by_kinds(ctx, class, x, m), "{profile:?} level {level} trump {trump} class {class} m {m}");
                                }
                            }
                        }
                    }
                }
            }
        }
        assert!(contexts >= 3 * 12 * 4, "{contexts} contexts");
    }
}
