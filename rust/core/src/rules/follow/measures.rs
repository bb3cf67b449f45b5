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

/// The longest run of linked kinds of `class` each held at least `m` times.
pub fn max_run(ctx: &Context, class: u8, x: &Counts, m: u8) -> u8 {
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

/// R5.3 T2: the card count of the longest tractor of at most `n` cards that `x` can give in
/// `class` (any multiplicity, D1), or 0.
pub fn longest_tractor(ctx: &Context, class: u8, x: &Counts, n: u8) -> u8 {
    let mut l = 0u8;
    for m in 2..=4u8 {
        if n / m < 2 {
            break; // no tractor of multiplicity m (nor any higher) fits in n cards
        }
        let k = max_run(ctx, class, x, m).min(n / m);
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
