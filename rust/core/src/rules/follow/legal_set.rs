//! The distinct legal follows of a position and their queries: count, nth, sample, all.

use crate::rules::card::{Counts, KINDS};
use crate::rules::combo::Combo;
use crate::rules::trump::Context;
use crate::util::rng::Rng;
use super::dense_dp::DenseDp;
use super::key_dp::KeyDp;
use super::slot_dp::SlotDp;

/// The distinct legal follows of a position.
pub enum LegalSet<'a> {
    /// A single led: one card of any kind the class holds (T1 with N = 1), in kind order.
    Singles(Counts),
    /// R5.3 T1: the N-card combinations, in generation order.
    Combos(&'a Context, Vec<Combo>),
    /// R5.2 with one card to add: `base` plus one card of a kind in the mask, in kind order.
    PlusOne(Counts, u64),
    /// R5.2 and ladders without a tractor: a dense programme over (cards, pairs).
    Dense(DenseDp),
    /// Ladders that need a tractor: the programme over runs (see `SlotDp`).
    Dp(Box<SlotDp>),
    /// Competition C4–C5: the programme over the key (see `key_dp`).
    Key(Box<KeyDp>),
}

impl LegalSet<'_> {
    /// Exact number of distinct legal follows.
    pub fn count(&mut self) -> u128 {
        match self {
            LegalSet::Singles(s) => s.iter().filter(|&&n| n > 0).count() as u128,
            LegalSet::PlusOne(_, mask) => mask.count_ones() as u128,
            LegalSet::Combos(_, v) => v.len() as u128,
            LegalSet::Dense(dp) => dp.total(),
            LegalSet::Dp(dp) => dp.total(),
            LegalSet::Key(dp) => dp.total(),
        }
    }
    /// The `r`-th legal follow (`r < count()`), in a fixed order.
    pub fn nth(&mut self, r: u128) -> Option<Counts> {
        match self {
            LegalSet::Singles(s) => {
                let k = s.iter().enumerate().filter(|(_, &n)| n > 0).nth(usize::try_from(r).ok()?)?.0;
                let mut c = [0u8; KINDS];
                c[k] = 1;
                Some(c)
            }
            LegalSet::Combos(ctx, v) => usize::try_from(r).ok().and_then(|i| v.get(i)).map(|c| c.counts(ctx)),
            LegalSet::PlusOne(base, mask) => {
                let mut m = *mask;
                for _ in 0..u32::try_from(r).ok().filter(|&r| r < mask.count_ones())? {
                    m &= m - 1; // drop the lowest kinds until the r-th
                }
                let mut c = *base;
                c[m.trailing_zeros() as usize] += 1;
                Some(c)
            }
            LegalSet::Dense(dp) => dp.nth(r),
            LegalSet::Dp(dp) => dp.nth(r),
            LegalSet::Key(dp) => dp.nth(r),
        }
    }
    /// One legal follow, uniform over the distinct ones.
    pub fn sample(&mut self, rng: &mut Rng) -> Option<Counts> {
        let total = self.count();
        if total == 0 {
            return None;
        }
        let r = rng.below(total);
        self.nth(r)
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
            LegalSet::Singles(_) | LegalSet::PlusOne(..) => Ok((0..total).filter_map(|r| self.nth(r)).collect()),
            LegalSet::Combos(ctx, v) => Ok(v.iter().map(|c| c.counts(ctx)).collect()),
            LegalSet::Dense(_) => unreachable!("listed above"),
            LegalSet::Dp(dp) => Ok(dp.all()),
            LegalSet::Key(dp) => Ok(dp.all()),
        }
    }
}
