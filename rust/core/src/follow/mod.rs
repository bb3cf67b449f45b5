//! The follow ladder (RULES R5): legality with a reason, the exact number of distinct legal
//! follows, their enumeration, uniform sampling, and the per-card completion query.
//!
//! A follower's choice falls in one of three cases:
//! - **Short** (R5.2): at most N cards of the led class: all of them, plus any N − |S| others.
//! - **T1** (R5.3): the class holds an N-card combination: the legal plays are those combinations.
//! - **Ladder** (R5.3 T2–T4, R5.4, D4): the legal plays are the N-card selections of the class
//!   that hold a tractor of L* cards (the longest the class can give, at most N) and, beside it,
//!   P* pairs (the most possible). A selection X is legal exactly when some tractor T ⊆ X with
//!   |T| = L* leaves `pairs(X − T) ≥ P*`, where `pairs(Y) = Σ ⌊y/2⌋`.
//!
//! Counting and sampling run a dynamic programme over the class's kinds in link order
//! ([`SlotDp`]); its state tracks the runs that can still become a tractor window, so the
//! count is exact without listing the plays. Its order of plays is the order of [`LegalSet::nth`].
//!
//! Under the competition profile (RULES §10) the ladder's cases T1 and Ladder give way to
//! C4–C5 ([`competition`]): T1 is C5's E (or the unit of C4's first entry), [`Case::Unit`] a
//! unit lead's list entry, [`Case::Key`] the best (L, p, t); their programmes are in `key_dp`.
//! Every entry point below dispatches on the profile, so callers need not know which rule holds.

pub mod competition;
mod key_dp;

use competition::Key;
use key_dp::{KSlot, KeyDp, Machine, Partition};
use crate::rules::FollowRule;

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use crate::card::{size, Counts, KINDS};
use crate::combo::{classify, for_each_tractor, tractor, unit, Combo};
use crate::error::{FollowViolation, Tier};
use crate::rng::Rng;
use crate::trump::Context;

/// Which case of the ladder a position is in, with the targets of the Ladder case.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Case {
    /// R5.2: play all of the class (|S| ≤ N) and any others.
    Short,
    /// R5.3 T1: play one N-card combination of the class.
    T1,
    /// R5.3 T2–T4: a tractor of `l` cards (0: none possible) and `p` pairs beside it.
    Ladder { l: u8, p: u8 },
    /// C4 (competition, unit lead of 2–4 cards, no unit of N held): the best list entry the
    /// class allows ([`competition::unit_tier_name`]).
    Unit { tier: u8 },
    /// C5 (competition, tractor lead, no combination of its shape held): the best key (L, p, t).
    Key(Key),
}

/// Which rule a follow breaks (see [`Follow::violation`] for the words).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Fault {
    /// R5.2: at most N held in the class, not all of them played.
    NotAllOfClass,
    /// R5.2: more than N held in the class, a card from outside played.
    OutsideClass,
    /// R5.3 T1: not one combination (of the lead's shape, under nanning).
    NoCombination,
    /// R5.3 T2: without the longest tractor.
    NoTractor,
    /// R5.3 T3: fewer pairs than the most possible (beside the tractor); how many it holds.
    FewPairs(u8),
    /// C4: a lower entry of a unit lead's list than the class allows.
    UnitTier(u8),
    /// C5: a lower key than the class allows (the play's key).
    LowKey(Key),
}

/// A follower's position: hand and lead, analysed once.
#[derive(Clone, Debug)]
pub struct Follow<'a> {
    pub ctx: &'a Context,
    pub lead: Combo,
    pub n: u8,
    pub hand: Counts,
    /// The hand's cards of the led class.
    pub s: Counts,
    pub s_size: u8,
    pub case: Case,
}

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

impl<'a> Follow<'a> {
    /// Analyses a follower's `hand` against `lead` (both already validated).
    pub fn new(ctx: &'a Context, hand: &Counts, lead: Combo) -> Follow<'a> {
        let n = lead.size() as u8;
        let mut s = [0u8; KINDS];
        let mut s_size = 0u8;
        for &k in ctx.class_kinds(lead.class) {
            s[k as usize] = hand[k as usize];
            s_size += hand[k as usize];
        }
        let mut f = Follow { ctx, lead, n, hand: *hand, s, s_size, case: Case::Short };
        f.case = f.find_case();
        f
    }

    fn find_case(&self) -> Case {
        let (ctx, n, class, s) = (self.ctx, self.n, self.lead.class, &self.s);
        if self.s_size <= n {
            return Case::Short; // R5.2
        }
        if n == 1 {
            return Case::T1; // any single card of the class is a combination of one card
        }
        if self.t1_exists() {
            return Case::T1;
        }
        if ctx.rules.follow == FollowRule::Competition {
            return if self.lead.k == 1 {
                Case::Unit { tier: competition::unit_best(ctx, class, s, n) } // C4
            } else {
                let key = competition::best_key(ctx, class, s, n, false, self.lead.m >= 3);
                Case::Key(key.expect("|S| > N: some selection exists")) // C5
            };
        }
        let l = longest_tractor(ctx, class, s, n); // R5.3 T2
        // R5.3 T3: the most pairs beside it.
        let base = pairs(ctx, class, s);
        let avail = if l == 0 { base } else { base - min_tractor_loss(ctx, class, s, l).unwrap_or(0) };
        Case::Ladder { l, p: avail.min((n - l) / 2) }
    }

    /// R5.3 T1: does the class hold a single combination of exactly N cards (of the lead's own
    /// shape only, under the nanning profile)?
    fn t1_exists(&self) -> bool {
        let mut found = false;
        self.each_t1(|_| found = true);
        found
    }

    /// Every distinct N-card combination of the class that T1 accepts (competition: C4's first
    /// entry, the unit of N, or C5's E).
    fn each_t1(&self, mut f: impl FnMut(Combo)) {
        let (ctx, n, class, lead) = (self.ctx, self.n, self.lead.class, self.lead);
        if ctx.rules.follow == FollowRule::Competition {
            if lead.k == 1 || (lead.m, lead.k) == (2, 2) {
                for &k in ctx.class_kinds(class) {
                    if self.s[k as usize] >= n {
                        f(unit(ctx, k, n)); // C4: the unit of N; C5: a bomb answers a 2-pair lead
                    }
                }
            }
            if lead.k >= 2 {
                for_each_tractor(ctx, class, &self.s, lead.m, lead.k, lead.k, |first, k| f(tractor(ctx, first, lead.m, k)));
            }
            return;
        }
        let any = ctx.rules.t1_any_shape;
        if n <= 4 && (any || lead.k == 1) {
            for &k in ctx.class_kinds(class) {
                if self.s[k as usize] >= n {
                    f(unit(ctx, k, n));
                }
            }
        }
        for m in 2..=4u8 {
            if n % m != 0 || n / m < 2 || !(any || (lead.k >= 2 && lead.m == m)) {
                continue;
            }
            for_each_tractor(ctx, class, &self.s, m, n / m, n / m, |first, k| f(tractor(ctx, first, m, k)));
        }
    }

    /// Does T1 (competition: C4's unit of N or C5's E) accept the combination `c`?
    fn t1_accepts(&self, c: &Combo) -> bool {
        let rules = self.ctx.rules;
        if rules.follow == FollowRule::Competition {
            return if self.lead.k == 1 {
                c.class == self.lead.class && (c.m, c.k) == (self.n, 1)
            } else {
                competition::is_e(&self.lead, c)
            };
        }
        c.class == self.lead.class && (rules.t1_any_shape || (c.m, c.k) == (self.lead.m, self.lead.k))
    }

    /// Competition: the first entry of C4's list, or C5's E.
    fn top_tier(&self) -> Tier {
        match (self.n, self.lead.k) {
            (1, _) => Tier::C4("C4 any card"),
            (n, 1) => Tier::C4(competition::unit_tier_name(n, competition::unit_top(n))),
            _ => Tier::C5("C5 E"),
        }
    }

    /// The tier the ladder demands here.
    pub fn required_tier(&self) -> Tier {
        let competition = self.ctx.rules.follow == FollowRule::Competition;
        match self.case {
            Case::Short => Tier::AllOfClass,
            Case::T1 if competition => self.top_tier(),
            Case::T1 => Tier::T1,
            Case::Unit { tier } => Tier::C4(competition::unit_tier_name(self.n, tier)),
            Case::Key(key) => Tier::C5(key.part()),
            Case::Ladder { l, .. } if l > 0 => Tier::T2,
            Case::Ladder { p, .. } if p > 0 => Tier::T3,
            Case::Ladder { .. } => Tier::T4,
        }
    }

    /// The highest tier a play of N cards of the class meets.
    fn met_tier(&self, play: &Counts) -> Tier {
        let (ctx, class) = (self.ctx, self.lead.class);
        if ctx.rules.follow == FollowRule::Competition {
            let in_class = ctx.class_kinds(class).iter().map(|&k| play[k as usize] as u32).sum::<u32>();
            if in_class != self.n as u32 {
                return Tier::AllOfClass; // cards from outside the led class: no entry of C4/C5
            }
            if classify(ctx, play).is_some_and(|c| self.t1_accepts(&c)) {
                return self.top_tier();
            }
            return if self.lead.k == 1 {
                Tier::C4(competition::unit_tier_name(self.n, competition::unit_tier(ctx, class, play, self.n)))
            } else {
                let key = competition::best_key(ctx, class, play, self.n, true, self.lead.m >= 3).unwrap_or_default();
                Tier::C5(key.part())
            };
        }
        if let Some(c) = classify(ctx, play) {
            if self.t1_accepts(&c) {
                return Tier::T1;
            }
        }
        if longest_tractor(ctx, class, play, self.n) > 0 {
            return Tier::T2;
        }
        if pairs(ctx, class, play) > 0 {
            Tier::T3
        } else {
            Tier::T4
        }
    }

    /// Is `play` (N cards held in the hand) a legal follow? Hot path: no allocation.
    pub fn is_legal(&self, play: &Counts) -> bool {
        self.fault(play).is_none()
    }

    /// Which rule `play` (N cards held in the hand) breaks, if any, without building a
    /// message: the verdict of both [`Follow::is_legal`] and [`Follow::violation`].
    fn fault(&self, play: &Counts) -> Option<Fault> {
        let (ctx, class, n) = (self.ctx, self.lead.class, self.n);
        let in_class = ctx.class_kinds(class).iter().map(|&k| play[k as usize] as u32).sum::<u32>();
        match self.case {
            Case::Short => (in_class != self.s_size as u32).then_some(Fault::NotAllOfClass),
            _ if in_class != n as u32 => Some(Fault::OutsideClass),
            Case::T1 => {
                let ok = classify(ctx, play).is_some_and(|c| self.t1_accepts(&c));
                (!ok).then_some(Fault::NoCombination)
            }
            Case::Unit { tier } => {
                let got = competition::unit_tier(ctx, class, play, n);
                (got < tier).then_some(Fault::UnitTier(got))
            }
            Case::Key(best) => {
                let got = competition::best_key(ctx, class, play, n, true, self.lead.m >= 3).unwrap_or_default();
                (got < best).then_some(Fault::LowKey(got))
            }
            Case::Ladder { l, p } => {
                let base = pairs(ctx, class, play);
                if l == 0 {
                    return (base < p).then_some(Fault::FewPairs(base));
                }
                match min_tractor_loss(ctx, class, play, l) {
                    None => Some(Fault::NoTractor),
                    Some(loss) => (base - loss < p).then_some(Fault::FewPairs(base - loss)),
                }
            }
        }
    }

    /// `None` when `play` (N cards held in the hand) is legal, else why (R5.2–R5.3).
    pub fn violation(&self, play: &Counts) -> Option<FollowViolation> {
        let (n, s) = (self.n, self.s_size);
        let (rule, message) = match self.fault(play)? {
            Fault::NotAllOfClass => (
                "R5.2",
                format!("the follower holds {s} card(s) of the led class, at most N = {n}: all of them must be played"),
            ),
            Fault::OutsideClass => (
                "R5.2",
                format!("the follower holds {s} cards of the led class, more than N = {n}: all {n} must come from it"),
            ),
            Fault::NoCombination if self.ctx.rules.follow == FollowRule::Competition => {
                if self.lead.k == 1 {
                    ("C4", format!("the led class holds a unit of {n} cards: one must be played"))
                } else {
                    let bomb = if (self.lead.m, self.lead.k) == (2, 2) { " (or a bomb)" } else { "" };
                    ("C5", format!("the led class holds a combination of the lead's shape{bomb}: one must be played (E)"))
                }
            }
            Fault::NoCombination => {
                let what = if self.ctx.rules.t1_any_shape { "a single combination" } else { "a combination of the lead's shape" };
                ("R5.3 T1", format!("the led class holds {what} of {n} cards: one must be played"))
            }
            Fault::UnitTier(got) => {
                let Case::Unit { tier } = self.case else { unreachable!("unit tiers only under C4") };
                let name = |t| competition::unit_tier_name(n, t).trim_start_matches("C4 ");
                ("C4", format!("the led class allows {}, the play is {}", name(tier), name(got)))
            }
            Fault::LowKey(got) => {
                let Case::Key(best) = self.case else { unreachable!("keys only under C5") };
                ("C5", format!("the led class allows the key {}, the play reaches {}", best.describe(), got.describe()))
            }
            Fault::NoTractor => {
                let Case::Ladder { l, .. } = self.case else { unreachable!("a tractor is demanded only by the ladder") };
                ("R5.3 T2", format!("the play must include a tractor of {l} cards, the longest the led class gives"))
            }
            Fault::FewPairs(held) => match self.case {
                Case::Ladder { l: 0, p } => ("R5.3 T3", format!("the play must hold {p} pair(s), it holds {held}")),
                Case::Ladder { l, p } => (
                    "R5.3 T3",
                    format!("beside the {l}-card tractor the play must hold {p} pair(s), it holds {held}"),
                ),
                _ => unreachable!("pairs are demanded only by the ladder"),
            },
        };
        Some(FollowViolation { rule, required: self.required_tier(), met: self.met_tier(play), message })
    }

    /// The distinct legal follows whose selection contains `lo` (the empty selection: all).
    pub fn legal_set(&self, lo: &Counts) -> LegalSet<'a> {
        self.legal_set_within(lo, &self.hand)
    }

    /// The distinct legal follows `x` with `lo ≤ x ≤ hi` kind by kind (legality is still
    /// judged against the whole hand: `hi` only narrows which of its plays are listed).
    pub fn legal_set_within(&self, lo: &Counts, hi: &Counts) -> LegalSet<'a> {
        let (ctx, class) = (self.ctx, self.lead.class);
        let lo_size = size(lo);
        let narrowed = (0..KINDS).any(|k| hi[k] < self.hand[k]);
        let mut s_hi = self.s;
        let mut hand = self.hand;
        for k in 0..KINDS {
            s_hi[k] = s_hi[k].min(hi[k]);
            hand[k] = hand[k].min(hi[k]);
        }
        if lo_size > 0 && self.case != Case::Short && (0..KINDS).any(|k| lo[k] > 0 && ctx.class[k] != class) {
            return LegalSet::Combos(ctx, Vec::new()); // R5.2: only the led class may be played
        }
        match self.case {
            Case::T1 if self.n == 1 && lo_size == 0 && !narrowed => LegalSet::Singles(self.s),
            Case::T1 => {
                // generation order: units in class order, then tractors by multiplicity
                let mut v = Vec::new();
                self.each_t1(|c| {
                    let covered: usize = c.kinds(ctx).map(|k| lo[k as usize].min(c.m) as usize).sum();
                    if covered == lo_size && c.kinds(ctx).all(|k| c.m <= hi[k as usize]) {
                        v.push(c); // the combination contains the partial selection
                    }
                });
                LegalSet::Combos(ctx, v)
            }
            Case::Short if lo_size == 0 && self.n == self.s_size + 1 && !narrowed => {
                // all of the class, and one more card of any other kind held
                let mut mask = 0u64;
                crate::card::for_each_held(&self.hand, |k, _| {
                    if ctx.class[k] != class {
                        mask |= 1 << k;
                    }
                });
                LegalSet::PlusOne(self.s, mask)
            }
            Case::Short => {
                // R5.2: the whole class is fixed; the others fill N − |S|.
                let mut base = [0u8; KINDS];
                let mut free = Vec::new();
                for &k in ctx.class_kinds(class) {
                    if lo[k as usize] > self.s[k as usize] || s_hi[k as usize] < self.s[k as usize] {
                        return LegalSet::Combos(ctx, Vec::new());
                    }
                    base[k as usize] = self.s[k as usize];
                }
                for c in (0..5u8).filter(|&c| c != class) {
                    for &k in ctx.class_kinds(c) {
                        let (l, h) = (lo[k as usize], hand[k as usize]);
                        if l > h {
                            return LegalSet::Combos(ctx, Vec::new());
                        }
                        base[k as usize] = l;
                        if h > l {
                            free.push((k, l, h - l));
                        }
                    }
                }
                LegalSet::Dense(DenseDp::new(base, free, self.n, 0))
            }
            Case::Unit { tier: 4 } => {
                // C4: a bomb lead, no bomb held: the 2-pair tractors of the class
                let mut v = Vec::new();
                for_each_tractor(ctx, class, &self.s, 2, 2, 2, |first, k| {
                    let c = tractor(ctx, first, 2, k);
                    let covered: usize = c.kinds(ctx).map(|k| lo[k as usize].min(2) as usize).sum();
                    if covered == lo_size && c.kinds(ctx).all(|k| hi[k as usize] >= 2) {
                        v.push(c);
                    }
                });
                LegalSet::Combos(ctx, v)
            }
            Case::Unit { tier } => match self.key_slots(lo, &s_hi) {
                None => LegalSet::Combos(ctx, Vec::new()),
                Some(slots) => LegalSet::Key(Box::new(KeyDp::new(slots, self.n, Machine::Shape { n: self.n, tier }))),
            },
            Case::Key(key) => match self.key_slots(lo, &s_hi) {
                None => LegalSet::Combos(ctx, Vec::new()),
                Some(slots) => {
                    let m3 = self.lead.m >= 3;
                    let machine = if key.has_tractor() {
                        Machine::Partition(Box::new(Partition::new(&key, m3)))
                    } else {
                        Machine::Pairs { p: key.p, t: key.t, m3 } // no tractor anywhere: no kind held 4 times
                    };
                    LegalSet::Key(Box::new(KeyDp::new(slots, self.n, machine)))
                }
            },
            Case::Ladder { l: 0, p } => {
                let mut base = [0u8; KINDS];
                let mut free = Vec::new();
                let mut fixed_pairs = 0u8;
                for &k in ctx.class_kinds(class) {
                    let (l, h) = (lo[k as usize], s_hi[k as usize]);
                    if l > h {
                        return LegalSet::Combos(ctx, Vec::new());
                    }
                    base[k as usize] = l;
                    if h > l {
                        free.push((k, l, h - l));
                    } else {
                        fixed_pairs += l / 2;
                    }
                }
                LegalSet::Dense(DenseDp::new(base, free, self.n, p.saturating_sub(fixed_pairs)))
            }
            Case::Ladder { l, p } => {
                let mut slots = Vec::new();
                let m_min = if l % 2 == 0 { 2 } else { 3 };
                // Windows shorter than the cycle can wrap through A–2: the longest needs
                // kmax − 1 kinds repeated after the end.
                let kmax = [2u8, 3, 4]
                    .iter()
                    .filter(|&&m| l % m == 0 && l / m >= 2 && l / m < 13)
                    .map(|&m| l / m)
                    .max()
                    .unwrap_or(0);
                let mut cycle = None;
                for chain in ctx.chains_of(class) {
                    let kinds = ctx.chain_kinds(chain);
                    let slot = |k: u8, linked: bool| Slot { kind: k, lo: lo[k as usize], hi: s_hi[k as usize], linked, ghost: false };
                    if !chain.cyclic || l == 0 {
                        slots.extend(kinds.iter().enumerate().map(|(i, &k)| slot(k, i > 0)));
                    } else if let Some(b) = kinds.iter().position(|&k| s_hi[k as usize] < m_min) {
                        // A kind that can be in no tractor cuts the cycle into a path.
                        let len = kinds.len();
                        slots.extend((0..len).map(|i| slot(kinds[(b + 1 + i) % len], i > 0)));
                    } else {
                        // Unbroken cycle: its first kmax − 1 kinds are enumerated outside the
                        // programme and repeated as ghosts after the last, closing the wraps.
                        let start = slots.len();
                        slots.extend(kinds.iter().enumerate().map(|(i, &k)| slot(k, i > 0)));
                        let ghosts = (kmax as usize).saturating_sub(1).min(kinds.len());
                        for &k in &kinds[..ghosts] {
                            slots.push(Slot { ghost: true, ..slot(k, true) });
                        }
                        cycle = Some((start, ghosts));
                    }
                }
                if cycle.is_none() {
                    // Kinds not held can only be 0: drop them, and the run breaks there.
                    let mut kept: Vec<Slot> = Vec::with_capacity(slots.len());
                    let mut broke = false;
                    for sl in slots {
                        if sl.hi == 0 && sl.lo == 0 {
                            broke = true;
                            continue;
                        }
                        kept.push(Slot { linked: sl.linked && !broke, ..sl });
                        broke = false;
                    }
                    slots = kept;
                }
                let mut dp = SlotDp::new(slots, self.n, l, p);
                dp.cycle = cycle;
                LegalSet::Dp(Box::new(dp))
            }
        }
    }

    /// The led class's kinds in link order for the competition programmes, bounded below by
    /// `lo` and above by `s_hi`; kinds not allowed are dropped (a break in the links). `None`
    /// if `lo` asks too much.
    fn key_slots(&self, lo: &Counts, s_hi: &Counts) -> Option<Vec<KSlot>> {
        let ctx = self.ctx;
        let mut slots = Vec::new();
        for chain in ctx.chains_of(self.lead.class) {
            let mut linked = false;
            for &k in ctx.chain_kinds(chain) {
                let (l, h) = (lo[k as usize], s_hi[k as usize]);
                if l > h {
                    return None;
                }
                if h == 0 {
                    linked = false;
                    continue;
                }
                slots.push(KSlot { kind: k, lo: l, hi: h, linked });
                linked = true;
            }
        }
        Some(slots)
    }

    /// Kinds that can be added to the partial selection `partial` so that it can still be
    /// completed to a legal follow. Empty if `partial` itself cannot be completed.
    pub fn completions(&self, partial: &Counts) -> [bool; KINDS] {
        let mut out = [false; KINDS];
        if size(partial) >= self.n as usize || !crate::card::contains(&self.hand, partial) {
            return out;
        }
        if let Case::T1 = self.case {
            // T1 lists are short: look at every combination that contains `partial`.
            for c in self.legal_set(partial).all(u128::MAX).unwrap_or_default() {
                for k in 0..KINDS {
                    out[k] |= c[k] > partial[k];
                }
            }
            return out;
        }
        let mut lo = *partial;
        for k in 0..KINDS {
            if self.hand[k] > partial[k] {
                lo[k] += 1;
                out[k] = self.legal_set(&lo).count() > 0;
                lo[k] -= 1;
            }
        }
        out
    }
}

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
    /// Ladders that need a tractor: the programme over runs (see [`SlotDp`]).
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
        let total = self.count();
        if total > limit {
            return Err(total);
        }
        match self {
            LegalSet::Singles(_) | LegalSet::PlusOne(..) => Ok((0..total).filter_map(|r| self.nth(r)).collect()),
            LegalSet::Combos(ctx, v) => Ok(v.iter().map(|c| c.counts(ctx)).collect()),
            LegalSet::Dense(dp) => Ok(dp.all()),
            LegalSet::Dp(dp) => Ok(dp.all()),
            LegalSet::Key(dp) => Ok(dp.all()),
        }
    }
}

/// Counts and ranks the selections `base + y` (0 ≤ y_i ≤ span_i on the free kinds) of `n`
/// cards with at least `q` pairs among the free kinds: a table over (slot, cards still
/// needed, pairs still needed).
pub struct DenseDp {
    base: Counts,
    /// (kind, lower bound, span).
    free: Vec<(u8, u8, u8)>,
    need: usize,
    q: usize,
    table: Vec<u128>,
}

impl DenseDp {
    fn new(base: Counts, free: Vec<(u8, u8, u8)>, n: u8, q: u8) -> DenseDp {
        let have = size(&base);
        let need = (n as usize).saturating_sub(have);
        let impossible = have > n as usize;
        let (nf, q) = (free.len(), q as usize);
        let mut dp = DenseDp { base, free, need, q, table: vec![0; (nf + 1) * (need + 1) * (q + 1)] };
        if impossible {
            return dp;
        }
        let end = dp.at(nf, 0, 0);
        dp.table[end] = 1;
        for i in (0..nf).rev() {
            let (_, lo, span) = dp.free[i];
            for c in 0..=need {
                for qq in 0..=q {
                    let mut t = 0u128;
                    for y in 0..=span.min(c as u8) {
                        let got = ((lo + y) / 2) as usize;
                        t += dp.table[dp.at(i + 1, c - y as usize, qq.saturating_sub(got))];
                    }
                    let idx = dp.at(i, c, qq);
                    dp.table[idx] = t;
                }
            }
        }
        dp
    }

    #[inline]
    fn at(&self, i: usize, c: usize, q: usize) -> usize {
        (i * (self.need + 1) + c) * (self.q + 1) + q
    }

    pub fn total(&self) -> u128 {
        self.table[self.at(0, self.need, self.q)]
    }

    pub fn nth(&self, mut r: u128) -> Option<Counts> {
        if r >= self.total() {
            return None;
        }
        let mut out = self.base;
        let (mut c, mut q) = (self.need, self.q);
        for (i, &(kind, lo, span)) in self.free.iter().enumerate() {
            for y in 0..=span.min(c as u8) {
                let q2 = q.saturating_sub(((lo + y) / 2) as usize);
                let w = self.table[self.at(i + 1, c - y as usize, q2)];
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
        if self.table[self.at(i, c, q)] == 0 {
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
}

/// One kind in the programme's sequence.
#[derive(Clone, Copy, Debug)]
pub struct Slot {
    kind: u8,
    lo: u8,
    hi: u8,
    /// Linked to the previous slot (R3.3): a tractor window may continue.
    linked: bool,
    /// A repeat of a cycle's first kind, to see windows through the wrap; adds no cards.
    ghost: bool,
}

/// Programme state after some slots. Packed into a u64 for the memo.
#[derive(Clone, Copy, Debug, Default)]
struct St {
    cards: u8,
    pairs: u8,
    /// Least loss of a complete tractor window seen so far; `NO_LOSS` if none.
    best: u8,
    /// Current runs of kinds held ≥ 2, = 4, ≥ 3 (with the 4s among the last k3 as bits).
    r2: u8,
    r4: u8,
    r3: u8,
    m3: u16,
}

const NO_LOSS: u8 = 63;

impl St {
    fn pack(&self) -> u64 {
        self.cards as u64
            | (self.pairs as u64) << 6
            | (self.best as u64) << 12
            | (self.r2 as u64) << 18
            | (self.r4 as u64) << 24
            | (self.r3 as u64) << 30
            | (self.m3 as u64) << 36
    }
}

/// A deterministic multiply-rotate hasher for the memo (its iteration order is never read).
#[derive(Default)]
pub struct FxHasher(u64);

impl Hasher for FxHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(b as u64);
        }
    }
    fn write_u64(&mut self, v: u64) {
        self.0 = (self.0.rotate_left(5) ^ v).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
}

type Memo = HashMap<u64, u128, BuildHasherDefault<FxHasher>>;

/// Counts, ranks and lists the selections x (lo ≤ x ≤ hi per slot, Σx = n) that hold a
/// tractor window of `l` cards with `pairs − loss ≥ p` (or, when `l = 0`, `pairs ≥ p`).
pub struct SlotDp {
    slots: Vec<Slot>,
    n: u8,
    l: u8,
    p: u8,
    k2: u8,
    k3: u8,
    k4: u8,
    /// Cards, and pairs, the real slots from i on can still give.
    suffix_hi: Vec<u16>,
    suffix_pairs: Vec<u16>,
    /// The least a tractor window can cost in pairs (for pruning).
    least_loss: u8,
    /// An unbroken cycle: (first slot, how many of its kinds are enumerated outside).
    cycle: Option<(usize, usize)>,
    memo: Memo,
    /// Per assignment of the cycle's first kinds: its count (filled by `total`).
    parts: Option<Vec<(Vec<u8>, u128)>>,
}

impl SlotDp {
    fn new(slots: Vec<Slot>, n: u8, l: u8, p: u8) -> SlotDp {
        let shape = |m: u8| if l > 0 && l % m == 0 && l / m >= 2 { l / m } else { 0 };
        let mut suffix_hi = vec![0u16; slots.len() + 1];
        let mut suffix_pairs = vec![0u16; slots.len() + 1];
        for i in (0..slots.len()).rev() {
            let real = !slots[i].ghost;
            suffix_hi[i] = suffix_hi[i + 1] + if real { slots[i].hi as u16 } else { 0 };
            suffix_pairs[i] = suffix_pairs[i + 1] + if real { slots[i].hi as u16 / 2 } else { 0 };
        }
        let (k2, k3, k4) = (shape(2), shape(3), shape(4));
        let least_loss = [k2, k3, 2 * k4].into_iter().filter(|&v| v > 0).min().unwrap_or(0);
        SlotDp {
            slots,
            n,
            l,
            p,
            k2,
            k3,
            k4,
            suffix_hi,
            suffix_pairs,
            least_loss,
            cycle: None,
            memo: Memo::default(),
            parts: None,
        }
    }

    fn step(&self, st: St, slot: &Slot, x: u8) -> St {
        let mut s = st;
        if !slot.ghost {
            s.cards += x;
            s.pairs += x / 2;
        }
        if self.l == 0 {
            return s;
        }
        if !slot.linked {
            s.r2 = 0;
            s.r4 = 0;
            s.r3 = 0;
            s.m3 = 0;
        }
        if self.k2 > 0 {
            s.r2 = if x >= 2 { (s.r2 + 1).min(self.k2) } else { 0 };
            if s.r2 == self.k2 {
                s.best = s.best.min(self.k2); // each pair unit costs one pair
            }
        }
        if self.k4 > 0 {
            s.r4 = if x == 4 { (s.r4 + 1).min(self.k4) } else { 0 };
            if s.r4 == self.k4 {
                s.best = s.best.min(2 * self.k4); // each bomb unit costs two pairs
            }
        }
        if self.k3 > 0 {
            if x >= 3 {
                s.r3 = (s.r3 + 1).min(self.k3);
                s.m3 = ((s.m3 << 1) | (x == 4) as u16) & ((1u16 << self.k3) - 1);
                if s.r3 == self.k3 {
                    // a triple unit costs one pair from 3 copies, two from 4
                    s.best = s.best.min(self.k3 + s.m3.count_ones() as u8);
                }
            } else {
                s.r3 = 0;
                s.m3 = 0;
            }
        }
        s
    }

    fn accept(&self, s: &St) -> bool {
        s.cards == self.n && if self.l == 0 { s.pairs >= self.p } else { s.best != NO_LOSS && s.pairs >= self.p + s.best }
    }

    fn start() -> St {
        St { best: NO_LOSS, ..St::default() }
    }

    fn count_from(&mut self, i: usize, st: St) -> u128 {
        if i == self.slots.len() {
            return self.accept(&st) as u128;
        }
        if st.cards as u16 + self.suffix_hi[i] < self.n as u16 {
            return 0;
        }
        // not enough pairs left for P* beside even the cheapest window
        if (st.pairs as u16 + self.suffix_pairs[i]) < self.p as u16 + self.least_loss as u16 {
            return 0;
        }
        let key = (i as u64) << 52 | st.pack();
        if let Some(&v) = self.memo.get(&key) {
            return v;
        }
        let slot = self.slots[i];
        let mut total = 0u128;
        for x in slot.lo..=slot.hi {
            if !slot.ghost && st.cards + x > self.n {
                break;
            }
            let next = self.step(st, &slot, x);
            total += self.count_from(i + 1, next);
        }
        self.memo.insert(key, total);
        total
    }

    /// Fixes the cycle's first kinds (and their ghosts) to `vals`.
    fn fix_cycle(&mut self, vals: &[u8]) {
        if let Some((start, g)) = self.cycle {
            let cycle_len = self.slots[start..].iter().take_while(|s| !s.ghost).count();
            for (j, &v) in vals.iter().enumerate() {
                for idx in [start + j, start + cycle_len + j] {
                    self.slots[idx].lo = v;
                    self.slots[idx].hi = v;
                }
            }
            debug_assert_eq!(vals.len(), g);
            self.memo.clear();
        }
    }

    /// Every assignment of the cycle's enumerated kinds, each with its count.
    fn cycle_parts(&mut self) -> Vec<(Vec<u8>, u128)> {
        if let Some(p) = &self.parts {
            return p.clone();
        }
        let (start, g) = self.cycle.expect("cycle");
        let bounds: Vec<(u8, u8)> = (0..g).map(|j| (self.slots[start + j].lo, self.slots[start + j].hi)).collect();
        let mut parts = Vec::new();
        let mut vals: Vec<u8> = bounds.iter().map(|b| b.0).collect();
        loop {
            self.fix_cycle(&vals);
            let c = self.count_from(0, Self::start());
            if c > 0 {
                parts.push((vals.clone(), c));
            }
            // next assignment, odometer order (first kind slowest)
            let mut j = g;
            loop {
                if j == 0 {
                    self.parts = Some(parts.clone());
                    return parts;
                }
                j -= 1;
                if vals[j] < bounds[j].1 {
                    vals[j] += 1;
                    for (v, b) in vals[j + 1..].iter_mut().zip(&bounds[j + 1..]) {
                        *v = b.0;
                    }
                    break;
                }
            }
        }
    }

    /// Exact number of accepted selections.
    pub fn total(&mut self) -> u128 {
        if self.cycle.is_some() {
            return self.cycle_parts().iter().map(|p| p.1).sum();
        }
        self.count_from(0, Self::start())
    }

    fn unrank(&mut self, mut r: u128) -> Option<Counts> {
        let mut out = [0u8; KINDS];
        let mut st = Self::start();
        for i in 0..self.slots.len() {
            let slot = self.slots[i];
            let mut chosen = None;
            for x in slot.lo..=slot.hi {
                if !slot.ghost && st.cards + x > self.n {
                    break;
                }
                let next = self.step(st, &slot, x);
                let c = self.count_from(i + 1, next);
                if r < c {
                    chosen = Some((x, next));
                    break;
                }
                r -= c;
            }
            let (x, next) = chosen?;
            if !slot.ghost {
                out[slot.kind as usize] = x;
            }
            st = next;
        }
        Some(out)
    }

    /// The `r`-th accepted selection, in order of (cycle assignment, slot values ascending).
    pub fn nth(&mut self, mut r: u128) -> Option<Counts> {
        if self.cycle.is_none() {
            return if r < self.total() { self.unrank(r) } else { None };
        }
        for (vals, c) in self.cycle_parts() {
            if r < c {
                self.fix_cycle(&vals);
                return self.unrank(r);
            }
            r -= c;
        }
        None
    }

    /// Every accepted selection, in `nth` order.
    pub fn all(&mut self) -> Vec<Counts> {
        let mut out = Vec::new();
        if self.cycle.is_none() {
            self.total();
            let mut cur = [0u8; KINDS];
            self.walk(0, Self::start(), &mut cur, &mut out);
            return out;
        }
        for (vals, _) in self.cycle_parts() {
            self.fix_cycle(&vals);
            self.count_from(0, Self::start());
            let mut cur = [0u8; KINDS];
            self.walk(0, Self::start(), &mut cur, &mut out);
        }
        out
    }

    fn walk(&mut self, i: usize, st: St, cur: &mut Counts, out: &mut Vec<Counts>) {
        if i == self.slots.len() {
            if self.accept(&st) {
                out.push(*cur);
            }
            return;
        }
        let slot = self.slots[i];
        for x in slot.lo..=slot.hi {
            if !slot.ghost && st.cards + x > self.n {
                break;
            }
            let next = self.step(st, &slot, x);
            if self.count_from(i + 1, next) == 0 {
                continue;
            }
            if !slot.ghost {
                cur[slot.kind as usize] = x;
            }
            self.walk(i + 1, next, cur, out);
            if !slot.ghost {
                cur[slot.kind as usize] = 0;
            }
        }
    }
}
