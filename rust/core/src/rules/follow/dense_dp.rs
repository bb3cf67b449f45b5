//! The dense programme of R5.2 and of ladders without a tractor: selections of n cards with
//! at least q pairs among the free kinds.

use std::cell::OnceCell;

use crate::rules::card::{size, Counts, KINDS};
use crate::util::bignum::binomial;

/// Counts and ranks the selections `base + y` (0 ≤ y_i ≤ span_i on the free kinds) of `n`
/// cards with at least `q` pairs among the free kinds: a table over (slot, cards still
/// needed, pairs still needed), built when a count or a rank is first asked for. Short lists
/// come without it ([`DenseDp::list`]).
pub struct DenseDp {
    base: Counts,
    /// (kind, lower bound, span).
    free: Free,
    need: usize,
    q: usize,
    /// The base alone holds more than n cards: no selection.
    impossible: bool,
    /// Every free kind's lower bound is 0 (a whole set, no partial selection): a slot that
    /// takes nothing then leaves the cards and pairs still needed as they were, so runs of
    /// such slots are skipped at once ([`DenseDp::nth`], [`DenseDp::list`]).
    zero_lo: bool,
    /// The free kinds of span 2 or more (the small programmes' count and rank read it).
    twos: usize,
    table: OnceCell<Vec<u128>>,
}

/// The free kinds of a [`DenseDp`] in slot order, (kind, lower bound, span) each: at most one
/// per kind, kept inline (no allocation).
#[derive(Clone, Copy)]
pub(crate) struct Free {
    slots: [(u8, u8, u8); KINDS],
    len: u8,
}

impl Free {
    pub(crate) fn new() -> Free {
        Free { slots: [(0, 0, 0); KINDS], len: 0 }
    }
    #[inline]
    pub(crate) fn push(&mut self, slot: (u8, u8, u8)) {
        self.slots[self.len as usize] = slot;
        self.len += 1;
    }
}

impl std::ops::Deref for Free {
    type Target = [(u8, u8, u8)];
    fn deref(&self) -> &[(u8, u8, u8)] {
        &self.slots[..self.len as usize]
    }
}

/// What the free kinds from some slot on can still give a selection: cards, the pairs their
/// lower bounds already hold, and how more pairs come: one card completes a pair on an odd
/// lower bound (at most once per kind), otherwise two cards make one.
#[derive(Clone, Copy, Default)]
struct Reach {
    cards: usize,
    pairs: usize,
    one_card: usize,
    two_card: usize,
}

impl Reach {
    fn of(lo: u8, span: u8) -> Reach {
        let odd = (lo % 2 == 1 && span >= 1) as u8;
        Reach { cards: span as usize, pairs: (lo / 2) as usize, one_card: odd as usize, two_card: ((span - odd) / 2) as usize }
    }
    fn plus(self, r: Reach) -> Reach {
        Reach {
            cards: self.cards + r.cards,
            pairs: self.pairs + r.pairs,
            one_card: self.one_card + r.one_card,
            two_card: self.two_card + r.two_card,
        }
    }
    fn minus(self, r: Reach) -> Reach {
        Reach {
            cards: self.cards - r.cards,
            pairs: self.pairs - r.pairs,
            one_card: self.one_card - r.one_card,
            two_card: self.two_card - r.two_card,
        }
    }
    /// Can exactly `c` more cards bring `q` more pairs? The most pairs `c` cards can make take
    /// the one-card pairs first, then two cards a pair; cards beyond those only add pairs.
    fn can(&self, c: usize, q: usize) -> bool {
        let ones = c.min(self.one_card);
        c <= self.cards && self.pairs + ones + ((c - ones) / 2).min(self.two_card) >= q
    }
}

impl DenseDp {
    pub(crate) fn new(base: Counts, free: Free, n: u8, q: u8) -> DenseDp {
        let have = size(&base);
        let need = (n as usize).saturating_sub(have);
        let zero_lo = free.iter().all(|f| f.1 == 0);
        let twos = free.iter().filter(|f| f.2 >= 2).count();
        DenseDp { base, free, need, q: q as usize, impossible: have > n as usize, zero_lo, twos, table: OnceCell::new() }
    }

    /// The table, built on first use.
    fn table(&self) -> &[u128] {
        self.table.get_or_init(|| {
            let (nf, need, q) = (self.free.len(), self.need, self.q);
            let mut table = vec![0; (nf + 1) * (need + 1) * (q + 1)];
            if self.impossible {
                return table;
            }
            table[self.at(nf, 0, 0)] = 1;
            // slot i's row from slot i + 1's: taking y more cards of the slot leaves c − y to
            // place after it and gives (lo + y) / 2 of the pairs still needed
            let row = (need + 1) * (q + 1);
            for i in (0..nf).rev() {
                let (_, lo, span) = self.free[i];
                let (head, tail) = table.split_at_mut((i + 1) * row);
                let (cur, next) = (&mut head[i * row..], &tail[..row]);
                if q == 0 {
                    // no pair asked for: slot i's row is a sum over a window of the next row,
                    // cur[c] = next[c] + next[c − 1] + … + next[c − min(span, c)], slid along c
                    let mut window = 0u128;
                    for c in 0..=need {
                        window += next[c];
                        if c > span as usize {
                            window -= next[c - span as usize - 1];
                        }
                        cur[c] = window;
                    }
                    continue;
                }
                for c in 0..=need {
                    let dst = &mut cur[c * (q + 1)..(c + 1) * (q + 1)];
                    for y in 0..=(span as usize).min(c) {
                        let got = (lo as usize + y) / 2;
                        let src = &next[(c - y) * (q + 1)..(c - y + 1) * (q + 1)];
                        for (qq, d) in dst.iter_mut().enumerate() {
                            *d += src[qq.saturating_sub(got)];
                        }
                    }
                }
            }
            table
        })
    }

    #[inline]
    fn at(&self, i: usize, c: usize, q: usize) -> usize {
        (i * (self.need + 1) + c) * (self.q + 1) + q
    }

    /// Selections of at most two more cards with no pair asked for (every follow of a lead
    /// of one or two cards): counted and ranked in closed form, without the table.
    fn small(&self) -> bool {
        self.q == 0 && self.need <= 2 && !self.impossible
    }

    pub fn total(&self) -> u128 {
        if self.small() {
            // every span is at least 1: one more card from any slot; two from two slots or
            // both from one slot of span ≥ 2
            // (at most C(54, 2) + 54: machine words)
            let nf = self.free.len();
            return match self.need {
                0 => 1,
                1 => nf as u128,
                _ => (nf * nf.saturating_sub(1) / 2 + self.twos) as u128,
            };
        }
        self.table()[self.at(0, self.need, self.q)]
    }

    /// [`DenseDp::nth`] of a [`DenseDp::small`] programme, in the table's order: slot by slot,
    /// the selections that take nothing from a slot before those that take one, then two.
    /// Taking one card from the slots after `i` counts `nf − 1 − i` selections, the r-th of
    /// them from slot `nf − 1 − r`.
    fn small_nth(&self, r: u128) -> Counts {
        let (free, nf) = (&self.free, self.free.len());
        let mut r = r as usize; // below the count: machine words
        let mut out = self.base;
        let one = |out: &mut Counts, r: usize| {
            let (kind, lo, _) = free[nf - 1 - r];
            out[kind as usize] = lo + 1;
        };
        match self.need {
            0 => {}
            1 => one(&mut out, r),
            _ => {
                let mut twos = self.twos;
                for (i, &(kind, lo, span)) in free.iter().enumerate() {
                    twos -= (span >= 2) as usize;
                    let after = nf - 1 - i;
                    let skip = after * after.saturating_sub(1) / 2 + twos; // two cards after slot i
                    if r < skip {
                        continue;
                    }
                    r -= skip;
                    if r < after {
                        out[kind as usize] = lo + 1; // one here, one after
                        one(&mut out, r);
                    } else {
                        out[kind as usize] = lo + 2; // both here
                    }
                    break;
                }
            }
        }
        out
    }

    /// Every selection of a [`DenseDp::small`] programme, in [`DenseDp::small_nth`]'s order,
    /// without ranking each: the slots that give the first card from the last to the first,
    /// and from each, one card beside one from each later slot (the last first), then two.
    fn small_each(&self, mut f: impl FnMut(Counts)) {
        let free = &self.free;
        match self.need {
            0 => f(self.base),
            1 => {
                for &(kind, lo, _) in free.iter().rev() {
                    let mut x = self.base;
                    x[kind as usize] = lo + 1;
                    f(x);
                }
            }
            _ => {
                for (i, &(kind, lo, span)) in free.iter().enumerate().rev() {
                    let mut x = self.base;
                    x[kind as usize] = lo + 1;
                    for &(other, lo2, _) in free[i + 1..].iter().rev() {
                        let mut y = x;
                        y[other as usize] = lo2 + 1;
                        f(y);
                    }
                    if span >= 2 {
                        x[kind as usize] = lo + 2;
                        f(x);
                    }
                }
            }
        }
    }

    pub fn nth(&self, mut r: u128) -> Option<Counts> {
        if r >= self.total() {
            return None;
        }
        if self.small() {
            return Some(self.small_nth(r));
        }
        let mut out = self.base;
        let (mut c, mut q) = (self.need, self.q);
        let table = self.table();
        let nf = self.free.len();
        let mut i = 0;
        while i < nf {
            if c == 0 {
                break; // the remaining kinds keep their lower bounds, already in `out`
            }
            if self.zero_lo {
                // Taking nothing from slot j leaves (c, q): the selections from the slots after
                // j, `table[j + 1][c][q]`, which does not grow with j. The rank stays below it
                // (slot j takes nothing) up to the first j where it does not: found by halving.
                let (mut a, mut b) = (i, nf - 1); // table[nf][c][q] = 0 ≤ r for c > 0
                while a < b {
                    let mid = (a + b) / 2;
                    if r < table[self.at(mid + 1, c, q)] {
                        a = mid + 1;
                    } else {
                        b = mid;
                    }
                }
                i = a;
            }
            let (kind, lo, span) = self.free[i];
            i += 1;
            for y in 0..=span.min(c as u8) {
                let q2 = q.saturating_sub(((lo + y) / 2) as usize);
                let w = table[self.at(i, c - y as usize, q2)];
                if r < w {
                    out[kind as usize] = lo + y;
                    c -= y as usize;
                    q = q2;
                    break;
                }
                r -= w;
            }
        }
        Some(out)
    }

    pub fn all(&self) -> Vec<Counts> {
        let mut out = Vec::new();
        let mut cur = self.base;
        self.walk(0, self.need, self.q, &mut cur, &mut out);
        out
    }

    fn walk(&self, i: usize, c: usize, q: usize, cur: &mut Counts, out: &mut Vec<Counts>) {
        if self.table()[self.at(i, c, q)] == 0 {
            return;
        }
        if i == self.free.len() {
            out.push(*cur);
            return;
        }
        let (kind, lo, span) = self.free[i];
        for y in 0..=span.min(c as u8) {
            cur[kind as usize] = lo + y;
            self.walk(i + 1, c - y as usize, q.saturating_sub(((lo + y) / 2) as usize), cur, out);
        }
        cur[kind as usize] = lo;
    }

    /// A lower bound on the count, without the table, shows it above `limit`: with a free
    /// kinds (span ≥ 2) as the q pairs and c − 2q others (span ≥ 1) one card each, every
    /// choice of the two sets is a distinct selection with q pairs. Only when the free kinds'
    /// lower bounds are 0 (the pairs are then exactly the kinds taken twice), or no pair is
    /// needed.
    fn surely_more_than(&self, limit: u128) -> bool {
        let (c, q) = (self.need, self.q);
        if self.impossible || q > 0 && self.free.iter().any(|f| f.1 > 0) || c < 2 * q {
            return false;
        }
        let ones = self.free.iter().filter(|f| f.2 >= 1).count();
        let twos = self.free.iter().filter(|f| f.2 >= 2).count();
        // at most C(54, 27) < 2^53 each: exact in u128
        let choose = |n: usize, k: usize| binomial(n, k).to_u128().expect("a binomial of at most 54");
        let pairs = choose(twos, q);
        if pairs == 0 {
            return false;
        }
        let singles = choose(ones - q, c - 2 * q);
        pairs.saturating_mul(singles) > limit
    }

    /// Every selection in [`DenseDp::nth`] order when there are at most `limit`, else `None`,
    /// without the table: a depth-first walk that enters only the choices some selection
    /// completes ([`Reach::can`]), so each step leads to a selection.
    pub fn list(&self, limit: u128) -> Option<Vec<Counts>> {
        if self.small() {
            // counted in closed form, and listed without the walk's bookkeeping
            let total = self.total();
            if total > limit {
                return None;
            }
            let mut out = Vec::with_capacity(total as usize);
            self.small_each(|x| out.push(x));
            return Some(out);
        }
        let mut walk = Walk { dp: self, cur: self.base, out: Vec::with_capacity(limit.min(32) as usize), limit };
        if self.impossible {
            return Some(walk.out);
        }
        let reach = self.free.iter().fold(Reach::default(), |r, &(_, lo, span)| r.plus(Reach::of(lo, span)));
        if !reach.can(self.need, self.q) {
            return Some(walk.out);
        }
        if self.surely_more_than(limit) {
            return None;
        }
        if self.zero_lo {
            // what the free kinds from each slot on can give, once
            let mut suffix = [Reach::default(); KINDS + 1];
            for (i, &(_, lo, span)) in self.free.iter().enumerate().rev() {
                suffix[i] = suffix[i + 1].plus(Reach::of(lo, span));
            }
            return walk.skipping(0, self.need, self.q, &suffix).then_some(walk.out);
        }
        walk.from(0, self.need, self.q, reach).then_some(walk.out)
    }
}

/// The walk of [`DenseDp::list`]: the selection so far and those found.
struct Walk<'a> {
    dp: &'a DenseDp,
    cur: Counts,
    out: Vec<Counts>,
    limit: u128,
}

impl Walk<'_> {
    /// Lists the completions from slot `i` (`c` cards and `q` pairs still needed, `reach` what
    /// the slots from `i` on can give); false once more than `limit` are found.
    fn from(&mut self, i: usize, c: usize, q: usize, reach: Reach) -> bool {
        if i == self.dp.free.len() || c == 0 {
            // no card left to place: the remaining kinds keep their lower bounds (`reach`
            // admitted this state, so their pairs suffice)
            self.out.push(self.cur);
            return self.out.len() as u128 <= self.limit;
        }
        let (kind, lo, span) = self.dp.free[i];
        let rest = reach.minus(Reach::of(lo, span));
        for y in 0..=span.min(c as u8) {
            let q2 = q.saturating_sub(((lo + y) / 2) as usize);
            if !rest.can(c - y as usize, q2) {
                continue;
            }
            self.cur[kind as usize] = lo + y;
            if !self.from(i + 1, c - y as usize, q2, rest) {
                return false;
            }
        }
        self.cur[kind as usize] = lo;
        true
    }

    /// [`Walk::from`] where every lower bound is 0 (`suffix[i]`: what the slots from i on can
    /// give), the same selections in the same order without stepping through the slots that
    /// take nothing. From slot `i`, `from` lists first what the next slot lists (taking
    /// nothing here, while the slots after can still complete), then one card or more here:
    /// unrolled, the selections whose first card comes from slot j, for j from the last slot
    /// that can still complete down to `i`.
    fn skipping(&mut self, i: usize, c: usize, q: usize, suffix: &[Reach; KINDS + 1]) -> bool {
        let nf = self.dp.free.len();
        if i == nf || c == 0 {
            self.out.push(self.cur);
            return self.out.len() as u128 <= self.limit;
        }
        // `suffix[i]` can complete (c, q) (admitted); what the slots from j on can give only
        // shrinks as j grows, and none can give c > 0 cards from nf on
        let mut last = i;
        while suffix[last + 1].can(c, q) {
            last += 1;
        }
        for j in (i..=last).rev() {
            let (kind, _, span) = self.dp.free[j];
            for y in 1..=span.min(c as u8) {
                let q2 = q.saturating_sub((y / 2) as usize);
                if !suffix[j + 1].can(c - y as usize, q2) {
                    continue;
                }
                self.cur[kind as usize] = y;
                if !self.skipping(j + 1, c - y as usize, q2, suffix) {
                    return false;
                }
            }
            self.cur[kind as usize] = 0;
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::card::KINDS;
    use crate::util::rng::Rng;

    /// Up to `kinds - 1` leading kinds, each with a random lower bound (0..=2, odd ones
    /// included) and span (free when it is above 0).
    fn random_free(rng: &mut Rng, kinds: usize) -> ([u8; KINDS], Free) {
        let mut base = [0u8; KINDS];
        let mut free = Free::new();
        for k in 0..rng.below_usize(kinds) as u8 {
            let lo = rng.below_usize(3) as u8;
            let span = rng.below_usize(5 - lo as usize) as u8;
            base[k as usize] = lo;
            if span > 0 {
                free.push((k, lo, span));
            }
        }
        (base, free)
    }

    /// The walks that skip the slots taking nothing ([`DenseDp::nth`] halving, [`Walk::skipping`],
    /// where every lower bound is 0) against the plain ones: `nth` against the table's walk
    /// rank by rank, the skipping list against [`Walk::from`] at every limit.
    #[test]
    fn skipping_walks_match_the_plain_ones() {
        let mut rng = Rng::new(13);
        let mut seen = 0;
        for _ in 0..3000 {
            let mut base = [0u8; KINDS];
            let mut free = Free::new();
            for k in 0..rng.below_usize(24) as u8 {
                let span = rng.below_usize(5) as u8;
                if span > 0 {
                    free.push((k, 0, span));
                }
            }
            base[50] = rng.below_usize(3) as u8; // a fixed kind outside the programme
            let n = (size(&base) + rng.below_usize(9)) as u8;
            let q = rng.below_usize(4) as u8;
            let dp = DenseDp::new(base, free, n, q);
            assert!(dp.zero_lo);
            let all = dp.all();
            for (r, x) in all.iter().enumerate() {
                assert_eq!(dp.nth(r as u128).as_ref(), Some(x), "rank {r}");
            }
            assert_eq!(dp.nth(all.len() as u128), None);
            for limit in [0u128, 1, 5, 32, u128::MAX] {
                let fresh = DenseDp { table: OnceCell::new(), free: dp.free, ..dp };
                let reach = fresh.free.iter().fold(Reach::default(), |r, &(_, lo, span)| r.plus(Reach::of(lo, span)));
                if fresh.impossible || !reach.can(fresh.need, fresh.q) {
                    continue;
                }
                let mut plain = Walk { dp: &fresh, cur: fresh.base, out: Vec::new(), limit };
                let plain_done = plain.from(0, fresh.need, fresh.q, reach);
                let got = fresh.list(limit);
                if !fresh.surely_more_than(limit) {
                    assert_eq!(got, plain_done.then_some(plain.out), "limit {limit}");
                }
                seen += 1;
            }
        }
        assert!(seen > 5000, "lists compared: {seen}");
    }

    /// The closed form of one or two more cards without pairs ([`DenseDp::small`]) against the
    /// table: the same count, the r-th selection the table's walk lists r-th, and the same
    /// list ([`DenseDp::small_each`]) at every limit.
    #[test]
    fn small_selections_match_the_table() {
        let mut rng = Rng::new(12);
        let mut seen = [0usize; 3];
        for _ in 0..4000 {
            let (base, free) = random_free(&mut rng, 20);
            let need = rng.below_usize(3);
            let dp = DenseDp::new(base, free, (size(&base) + need) as u8, 0);
            assert!(dp.small());
            let table_total = dp.table()[dp.at(0, dp.need, dp.q)];
            assert_eq!(dp.total(), table_total);
            let all = dp.all();
            assert_eq!(all.len() as u128, table_total);
            for (r, x) in all.iter().enumerate() {
                assert_eq!(dp.nth(r as u128).as_ref(), Some(x), "need {need} r {r}");
            }
            assert_eq!(dp.nth(table_total), None);
            for limit in [0u128, 1, 5, 32, u128::MAX] {
                let fresh = DenseDp { table: OnceCell::new(), free: dp.free, ..dp };
                let want = (table_total <= limit).then(|| all.clone());
                assert_eq!(fresh.list(limit), want, "need {need} limit {limit}");
                assert!(fresh.table.get().is_none(), "listing builds no table");
            }
            seen[need] += all.len();
        }
        assert!(seen.iter().all(|&n| n > 1000), "selections per need: {seen:?}");
    }

    /// The walk without the table against the table's count and list, on random free kinds
    /// (odd lower bounds included: a partial selection's kinds).
    #[test]
    fn list_matches_the_table() {
        let mut rng = Rng::new(11);
        let (mut longer, mut bounded) = (0, 0);
        for _ in 0..3000 {
            let (mut base, free) = random_free(&mut rng, 14);
            base[40] = rng.below_usize(3) as u8; // a fixed kind outside the programme
            let n = rng.below_usize(16) as u8;
            let q = rng.below_usize(6) as u8;
            let dp = DenseDp::new(base, free, n, q);
            let total = dp.total();
            let all = dp.all();
            assert_eq!(all.len() as u128, total);
            for limit in [0u128, 1, 5, 32, u128::MAX] {
                if dp.surely_more_than(limit) {
                    assert!(total > limit, "bound above the count {total} at limit {limit}");
                    bounded += 1;
                }
                let got = DenseDp { table: OnceCell::new(), free: dp.free, ..dp };
                match got.list(limit) {
                    Some(v) => assert!(v == all && total <= limit, "limit {limit}"),
                    None => assert!(total > limit, "refused {total} plays under limit {limit}"),
                }
                assert!(got.table.get().is_none(), "listing builds no table");
            }
            longer += (total > 32) as usize;
        }
        assert!(longer > 100, "long lists seen: {longer}");
        assert!(bounded > 100, "lists refused by the bound alone: {bounded}");
    }
}
