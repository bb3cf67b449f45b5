//! The distinct legal follows of a position and their queries: count, nth, sample, all.

use crate::rules::card::{nth_bit, Counts, SOME_UNITS, UNITS};
use crate::rules::combo::Combo;
use crate::rules::trump::{Context, TRUMP};
use crate::util::rng::Rng;
use super::dense_dp::DenseDp;
use super::key_dp::KeyDp;
use super::slot_dp::SlotDp;

/// The distinct legal follows of a position.
pub enum LegalSet<'a> {
    /// A single led: one card of any kind the class holds (T1 with N = 1), or of any kind the
    /// hand holds when the class is void (R5.2), in kind order: the kinds as bits over kind ids.
    Singles(u64),
    /// R5.3 T1: the N-card combinations, in generation order.
    Combos(&'a Context, Vec<Combo>),
    /// R5.3 T1 for a lead of two or three cards: a unit of N (of the led `class`, N = the
    /// third field) of a kind in the mask (bits over kind ids), in class order.
    Units(&'a Context, u8, u8, u64),
    /// R5.2 with one card to add: `base` plus one card of a kind in the mask, in kind order.
    PlusOne(Counts, u64),
    /// R5.2 and ladders without a tractor: a dense programme over (cards, pairs).
    Dense(DenseDp),
    /// Ladders that need a tractor: the programme over runs (see `SlotDp`).
    Dp(Box<SlotDp>),
    /// Competition C4–C5: the programme over the key (see `key_dp`).
    Key(Box<KeyDp>),
}

#[cfg(test)]
mod tests {
    /// `for_each_unit` against `nth`, rank by rank, on the sets of one-kind plays of random
    /// hands and leads of one to three cards of every profile, level and trump (trump leads
    /// included: that class is not in kind order).
    #[test]
    fn unit_kinds_are_the_plays_in_nth_order() {
        use crate::rules::card::{Counts, KINDS, UNITS};
        use crate::rules::follow::Follow;
        use crate::rules::trump::Context;
        let mut rng = crate::util::rng::Rng::new(43);
        let mut seen = [0usize; 2];
        for profile in crate::rules::profile::Profile::ALL {
            for level in [3u8, 9, 14] {
                for trump in 0..4u8 {
                    let ctx = Context::new(level, trump, profile).unwrap();
                    for _ in 0..200 {
                        let hand = crate::rules::follow::tests::random_hand(&mut rng, 60);
                        let n = 1 + rng.below_usize(3) as u8;
                        let led = crate::rules::combo::unit(&ctx, rng.below_usize(KINDS) as u8, n);
                        let mut set = Follow::new(&ctx, &hand, led).legal_set(&[0; KINDS]);
                        let mut got: Vec<Counts> = Vec::new();
                        let Some(m) = set.for_each_unit(|k| got.push(UNITS[n as usize - 1][k as usize])) else { continue };
                        assert_eq!(m, n);
                        let want: Vec<Counts> = (0..set.count()).map(|r| set.nth(r).unwrap()).collect();
                        assert_eq!(got, want);
                        assert_eq!(set.all(u128::MAX).unwrap(), want);
                        seen[(n > 1) as usize] += 1;
                    }
                }
            }
        }
        assert!(seen.iter().all(|&s| s > 500), "sets seen: {seen:?}");
    }
}

impl LegalSet<'_> {
    /// Exact number of distinct legal follows.
    pub fn count(&mut self) -> u128 {
        match self {
            LegalSet::Singles(mask) => mask.count_ones() as u128,
            LegalSet::PlusOne(_, mask) | LegalSet::Units(.., mask) => mask.count_ones() as u128,
            LegalSet::Combos(_, v) => v.len() as u128,
            LegalSet::Dense(dp) => dp.total(),
            LegalSet::Dp(dp) => dp.total(),
            LegalSet::Key(dp) => dp.total(),
        }
    }
    /// The `r`-th legal follow (`r < count()`), in a fixed order.
    pub fn nth(&mut self, r: u128) -> Option<Counts> {
        match self {
            LegalSet::Singles(mask) => SOME_UNITS[0][nth_bit(*mask, u32::try_from(r).ok()?)? as usize],
            LegalSet::Combos(ctx, v) => usize::try_from(r).ok().and_then(|i| v.get(i)).map(|c| c.counts(ctx)),
            LegalSet::Units(ctx, class, n, mask) => {
                let r = u32::try_from(r).ok().filter(|&r| r < mask.count_ones())?;
                // the trump class is not in kind order (jokers first, the level cards after
                // the trump suit): run by run; a plain suit's kinds are in kind order
                let k = if *class == TRUMP { ctx.nth_trump(*mask, r)? } else { nth_bit(*mask, r)? };
                SOME_UNITS[*n as usize - 1][k as usize]
            }
            LegalSet::PlusOne(base, mask) => {
                // `base` plus a unit, added kind by kind: no byte stored into a copy that is
                // then read back whole (a store-forwarding stall)
                let unit = &UNITS[0][nth_bit(*mask, u32::try_from(r).ok()?)? as usize];
                Some(std::array::from_fn(|k| base[k] + unit[k]))
            }
            LegalSet::Dense(dp) => dp.nth(r),
            LegalSet::Dp(dp) => dp.nth(r),
            LegalSet::Key(dp) => dp.nth(r),
        }
    }
    /// One legal follow, uniform over the distinct ones.
    pub fn sample(&mut self, rng: &mut Rng) -> Option<Counts> {
        // the sets of a mask (a plain suit in kind order, the trump class run by run): the same draw as below,
        // the rank taken inline
        match *self {
            LegalSet::Singles(mask) if mask != 0 => {
                let k = nth_bit(mask, rng.below_u32(mask.count_ones()))?;
                return SOME_UNITS[0][k as usize];
            }
            LegalSet::Units(ctx, class, n, mask) if mask != 0 => {
                let r = rng.below_u32(mask.count_ones());
                let k = if class == TRUMP { ctx.nth_trump(mask, r)? } else { nth_bit(mask, r)? };
                return SOME_UNITS[n as usize - 1][k as usize];
            }
            LegalSet::PlusOne(ref base, mask) if mask != 0 => {
                let unit = &UNITS[0][nth_bit(mask, rng.below_u32(mask.count_ones()))? as usize];
                return Some(std::array::from_fn(|k| base[k] + unit[k]));
            }
            _ => {}
        }
        let total = self.count();
        if total == 0 {
            return None;
        }
        let r = rng.below(total);
        self.nth(r)
    }
    /// A set of one-kind plays ([`LegalSet::Singles`], [`LegalSet::Units`]): `f(kind)` for
    /// each play in the order of [`LegalSet::nth`], and the copies each takes; `None` (and
    /// no call) for another set.
    pub fn for_each_unit(&self, mut f: impl FnMut(u8)) -> Option<u8> {
        let (mask, n) = match *self {
            LegalSet::Singles(mask) => (mask, 1),
            LegalSet::Units(ctx, class, n, mask) => {
                if class == TRUMP {
                    // the trump class is not in kind order (see `nth`): walk it
                    for &k in ctx.class_kinds(TRUMP) {
                        if mask >> k & 1 == 1 {
                            f(k);
                        }
                    }
                    return Some(n);
                }
                (mask, n)
            }
            _ => return None,
        };
        let mut m = mask;
        while m != 0 {
            f(m.trailing_zeros() as u8);
            m &= m - 1;
        }
        Some(n)
    }

    /// All legal follows in order, or `Err(count)` if there are more than `limit`.
    pub fn all(&mut self, limit: u128) -> Result<Vec<Counts>, u128> {
        if let LegalSet::Dense(dp) = self {
            // a short list needs no table: it is walked directly, and counted only if long
            return dp.list(limit).ok_or_else(|| dp.total());
        }
        let total = self.count();
        if total > limit {
            return Err(total);
        }
        match self {
            LegalSet::Singles(_) | LegalSet::Units(..) => {
                let n = match *self {
                    LegalSet::Units(_, _, n, _) => n,
                    _ => 1,
                };
                let mut out = Vec::with_capacity(total as usize);
                self.for_each_unit(|k| out.push(UNITS[n as usize - 1][k as usize]));
                Ok(out)
            }
            LegalSet::PlusOne(..) => Ok((0..total).filter_map(|r| self.nth(r)).collect()),
            LegalSet::Combos(ctx, v) => Ok(v.iter().map(|c| c.counts(ctx)).collect()),
            LegalSet::Dense(_) => unreachable!("listed above"),
            LegalSet::Dp(dp) => Ok(dp.all()),
            LegalSet::Key(dp) => Ok(dp.all()),
        }
    }
}
