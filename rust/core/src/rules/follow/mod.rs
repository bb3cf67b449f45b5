//! The follow ladder (docs/rules.md R5): legality with a reason, the exact number of distinct legal
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
//! (`SlotDp`); its state tracks the runs that can still become a tractor window, so the
//! count is exact without listing the plays. Its order of plays is the order of [`LegalSet::nth`].
//!
//! Under the competition profile (docs/rules.md §10) the ladder's cases T1 and Ladder give way to
//! C4–C5 ([`competition`]): T1 is C5's E (or the unit of C4's first entry), [`Case::Unit`] a
//! unit lead's list entry, [`Case::Key`] the best (L, p, t); their programmes are in `key_dp`.
//! Every entry point below dispatches on the profile, so callers need not know which rule holds.

//!
//! Files: this one is the rule (the cases, the check and its reason, which programme serves a
//! position); `measures` the ladder's measures of a selection; `legal_set` the legal set and
//! its queries; `dense_dp`, `slot_dp` and `key_dp` the programmes, private to the crate.

pub mod competition;
mod dense_dp;
mod key_dp;
mod legal_set;
mod measures;
mod slot_dp;

use competition::Key;
use dense_dp::{DenseDp, Free};
use key_dp::{KSlot, KeyDp, Machine, Partition};
use slot_dp::{Slot, SlotDp};

pub use crate::rules::card::nth_bit;
pub use legal_set::LegalSet;
pub use measures::{longest_tractor, max_run, min_tractor_loss, pairs};

use crate::rules::card::{size, Counts, KINDS};
use crate::rules::combo::{classify, for_each_tractor, tractor, unit, Combo};
use crate::rules::error::{FollowViolation, Tier};
use crate::rules::profile::FollowRule;
use crate::rules::trump::Context;

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
pub(crate) enum Fault {
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

impl<'a> Follow<'a> {
    /// The kinds `hand` may follow a single card of `class` with, as bits over kind ids: one of
    /// the class if it holds any (R5.1; R5.3 T1 with N = 1), else any card (R5.2). What
    /// `Follow::new(..).legal_set(&[0; KINDS])` lists for a one-card lead, without building it.
    pub fn single(ctx: &Context, hand: &Counts, class: u8) -> u64 {
        let held = crate::rules::card::held_mask(hand, 1);
        match held & ctx.class_mask[class as usize] {
            0 => held,
            of_class => of_class,
        }
    }

    /// Analyses a follower's `hand` against `lead` (both already validated).
    pub fn new(ctx: &'a Context, hand: &Counts, lead: Combo) -> Follow<'a> {
        let n = lead.size() as u8;
        let s = crate::rules::card::and(hand, &ctx.class_bytes[lead.class as usize]);
        let s_size = size(&s) as u8;
        // the cases `find_case` decides from the sizes or one mask, set in the value returned
        // (no copy of it made to set the case after)
        let quick = if s_size <= n {
            Some(Case::Short)
        } else if n == 1 || (n <= 3 && crate::rules::card::held_mask(&s, n) != 0) {
            Some(Case::T1)
        } else {
            None
        };
        if let Some(case) = quick {
            return Follow { ctx, lead, n, hand: *hand, s, s_size, case };
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
        if self.n <= 3 {
            // a lead of two or three cards is a unit: T1 (and C4's first entry) is a unit of N
            return crate::rules::card::held_mask(&self.s, self.n) != 0;
        }
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
        t1_accepts(self.ctx, &self.lead, c)
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
        let (ctx, class) = (self.ctx, self.lead.class);
        let in_class = ctx.class_kinds(class).iter().map(|&k| play[k as usize] as u32).sum::<u32>();
        self.fault_from(
            play,
            in_class,
            || classify(ctx, play).is_some_and(|c| self.t1_accepts(&c)),
            || pairs(ctx, class, play),
            |l| min_tractor_loss(ctx, class, play, l),
        )
    }

    /// [`Follow::fault`] from what R5.2–R5.3 read of the play: its cards of the led class
    /// (`in_class`) and, each at first need, T1's verdict, its pairs and the least pairs a
    /// tractor of l cards inside it costs ([`min_tractor_loss`]). A caller that judges one
    /// play against many holdings (exact worlds' follow checks) finds them once.
    pub(crate) fn fault_from(
        &self,
        play: &Counts,
        in_class: u32,
        t1: impl FnOnce() -> bool,
        pairs: impl FnOnce() -> u8,
        loss: impl FnOnce(u8) -> Option<u8>,
    ) -> Option<Fault> {
        let (ctx, class, n) = (self.ctx, self.lead.class, self.n);
        match self.case {
            Case::Short => (in_class != self.s_size as u32).then_some(Fault::NotAllOfClass),
            _ if in_class != n as u32 => Some(Fault::OutsideClass),
            Case::T1 => (!t1()).then_some(Fault::NoCombination),
            Case::Unit { tier } => {
                let got = competition::unit_tier(ctx, class, play, n);
                (got < tier).then_some(Fault::UnitTier(got))
            }
            Case::Key(best) => {
                let got = competition::best_key(ctx, class, play, n, true, self.lead.m >= 3).unwrap_or_default();
                (got < best).then_some(Fault::LowKey(got))
            }
            Case::Ladder { l, p } => {
                let base = pairs();
                if l == 0 {
                    return (base < p).then_some(Fault::FewPairs(base));
                }
                match loss(l) {
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
        self.legal_set_in(lo, None)
    }

    /// R5.2: the whole class is fixed; the others fill N − |S| (`lo` fixed, up to `s_hi` of
    /// the class and `hand` of the others).
    fn short_set(&self, lo: &Counts, s_hi: &Counts, hand: &Counts) -> LegalSet<'a> {
        let (ctx, class) = (self.ctx, self.lead.class);
        let mut base = [0u8; KINDS];
        let mut free = Free::new();
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

    /// The distinct legal follows `x` with `lo ≤ x ≤ hi` kind by kind (legality is still
    /// judged against the whole hand: `hi` only narrows which of its plays are listed).
    pub fn legal_set_within(&self, lo: &Counts, hi: &Counts) -> LegalSet<'a> {
        self.legal_set_in(lo, Some(hi))
    }

    /// `legal_set_within`, `hi` the whole hand where `None` (the random policy's follow, once a
    /// play: no narrowing to find).
    fn legal_set_in(&self, lo: &Counts, hi: Option<&Counts>) -> LegalSet<'a> {
        let (ctx, class) = (self.ctx, self.lead.class);
        let lo_size = size(lo);
        if lo_size == 0 && hi.is_none() && self.n == 1 {
            // the whole set of a single led: the kinds of `single` (R5.1, R5.2), in kind order
            // (T1's; and short of the class, the plays `PlusOne` or `Dense` list, from the
            // same draws: its one card, or any card when void)
            return LegalSet::Singles(Self::single(ctx, &self.hand, class));
        }
        if lo_size == 0 && hi.is_none() && self.case == Case::T1 && self.n <= 3 {
            // the whole set of a lead of two or three cards in T1: a mask (as below, sooner)
            return LegalSet::Units(ctx, class, self.n, crate::rules::card::held_mask(&self.s, self.n));
        }
        let narrowed = hi.is_some_and(|hi| (0..KINDS).any(|k| hi[k] < self.hand[k]));
        let hi = hi.unwrap_or(&self.hand);
        // the class's cards and the hand as `hi` narrows them (read in place when it does not:
        // a copy would read back the bytes just stored)
        let narrow = |c: &Counts| -> Counts { std::array::from_fn(|k| c[k].min(hi[k])) };
        let narrowed_pair = narrowed.then(|| (narrow(&self.s), narrow(&self.hand)));
        let (s_hi, hand) = narrowed_pair.as_ref().map_or((&self.s, &self.hand), |(s, h)| (s, h));
        if lo_size > 0 && self.case != Case::Short && (0..KINDS).any(|k| lo[k] > 0 && ctx.class[k] != class) {
            return LegalSet::Combos(ctx, Vec::new()); // R5.2: only the led class may be played
        }
        match self.case {
            Case::T1 if self.n == 1 && lo_size == 0 && !narrowed => LegalSet::Singles(crate::rules::card::held_mask(&self.s, 1)),
            Case::T1 if self.n <= 3 && lo_size == 0 && !narrowed => {
                // a lead of two or three cards: the units of N, in class order (as below)
                LegalSet::Units(ctx, class, self.n, crate::rules::card::held_mask(&self.s, self.n))
            }
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
                let mask = crate::rules::card::held_mask(&self.hand, 1) & !ctx.class_mask[class as usize];
                LegalSet::PlusOne(self.s, mask)
            }
            Case::Short if lo_size == 0 && !narrowed => {
                // R5.2 as `short_set` with nothing fixed beyond the class: the free kinds are
                // the hand's other kinds in class order (none when the class fills the N
                // cards), a class the hand lacks skipped by its mask
                let mut free = Free::new();
                if self.n > self.s_size {
                    let held = crate::rules::card::held_mask(&self.hand, 1);
                    for c in (0..5u8).filter(|&c| c != class && held & ctx.class_mask[c as usize] != 0) {
                        for &k in ctx.class_kinds(c) {
                            if held >> k & 1 == 1 {
                                free.push((k, 0, self.hand[k as usize]));
                            }
                        }
                    }
                }
                LegalSet::Dense(DenseDp::new(self.s, free, self.n, 0))
            }
            Case::Short => self.short_set(lo, s_hi, hand),
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
            Case::Unit { tier } => match self.key_slots(lo, s_hi) {
                None => LegalSet::Combos(ctx, Vec::new()),
                Some(slots) => LegalSet::Key(Box::new(KeyDp::new(slots, self.n, Machine::Shape { n: self.n, tier }))),
            },
            Case::Key(key) => match self.key_slots(lo, s_hi) {
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
                let mut free = Free::new();
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
        if size(partial) >= self.n as usize || !crate::rules::card::contains(&self.hand, partial) {
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

/// R5.3 T1 (competition: C4's unit of N for a unit lead, C5's E for a tractor lead): is the
/// follow `c`, one combination of the lead's size, the one the ladder takes first? A follow
/// T1 accepts is legal whatever else the hand held; the follow check and what the history
/// proves (`infoset::info`) both ask this.
pub fn t1_accepts(ctx: &Context, lead: &Combo, c: &Combo) -> bool {
    let rules = ctx.rules;
    if rules.follow == FollowRule::Competition {
        return if lead.k == 1 { c.class == lead.class && (c.m, c.k) == (lead.size() as u8, 1) } else { competition::is_e(lead, c) };
    }
    c.class == lead.class && (rules.t1_any_shape || (c.m, c.k) == (lead.m, lead.k))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::util::rng::Rng;
    use crate::rules::profile::Profile;

    /// A random hand of 1 ..= `most` cards drawn by kind, at most four copies of each.
    pub(super) fn random_hand(rng: &mut Rng, most: usize) -> [u8; KINDS] {
        let mut hand = [0u8; KINDS];
        for _ in 0..1 + rng.below_usize(most) {
            let k = rng.below_usize(KINDS);
            hand[k] = (hand[k] + 1).min(4);
        }
        hand
    }

    /// The sets of a lead of one to three cards in the T1 case ([`LegalSet::Singles`],
    /// [`LegalSet::Units`]: masks) against the list `each_t1` generates, in its order (a
    /// single's in kind order), on random hands of every profile, level and trump: the same
    /// plays at the same ranks, so the same draws.
    #[test]
    fn unit_sets_list_the_t1_combinations_in_order() {
        let mut rng = Rng::new(29);
        let mut seen = [0usize; 4];
        for profile in Profile::ALL {
            for level in [3u8, 9, 14] {
                for trump in 0..4u8 {
                    let ctx = Context::new(level, trump, profile).unwrap();
                    for _ in 0..300 {
                        let hand = random_hand(&mut rng, 60);
                        let n = 1 + rng.below_usize(3) as u8;
                        let led = crate::rules::combo::unit(&ctx, rng.below_usize(KINDS) as u8, n);
                        let f = Follow::new(&ctx, &hand, led);
                        if f.case != Case::T1 {
                            continue;
                        }
                        let mut want = Vec::new();
                        f.each_t1(|c| want.push(c.counts(&ctx)));
                        if n == 1 {
                            want.sort_unstable_by_key(|c| std::cmp::Reverse(*c)); // kind order
                        }
                        let mut set = f.legal_set(&[0; KINDS]);
                        assert!(matches!(set, LegalSet::Singles(_) | LegalSet::Units(..)));
                        assert_eq!(set.all(u128::MAX).unwrap(), want);
                        seen[n as usize] += 1;
                    }
                }
            }
        }
        assert!(seen[1..].iter().all(|&n| n > 200), "positions per lead size: {seen:?}");
    }

    /// `sample` against the list: the play at the rank `below(count)` draws from the same
    /// stream (the mask sets' inline rank included), and the same words drawn, on random
    /// hands and leads of one or two cards of every profile.
    #[test]
    fn sample_is_the_listed_play_at_the_drawn_rank() {
        let mut rng = Rng::new(37);
        let mut seen = [0usize; 3]; // Singles, PlusOne, other
        for profile in Profile::ALL {
            let ctx = Context::new(3 + rng.below_usize(12) as u8, rng.below_usize(4) as u8, profile).unwrap();
            for _ in 0..2_000 {
                let hand = random_hand(&mut rng, 25);
                let n = 1 + rng.below_usize(2) as u8;
                let led = crate::rules::combo::unit(&ctx, rng.below_usize(KINDS) as u8, n);
                let f = Follow::new(&ctx, &hand, led);
                let mut set = f.legal_set(&[0; KINDS]);
                seen[match set { LegalSet::Singles(_) => 0, LegalSet::PlusOne(..) => 1, _ => 2 }] += 1;
                let list = set.all(u128::MAX).unwrap();
                let (mut a, mut b) = (rng, rng);
                let got = set.sample(&mut a);
                let want = (!list.is_empty()).then(|| list[b.below(list.len() as u128) as usize]);
                assert_eq!(got, want);
                assert_eq!(a, b, "the same words drawn");
                rng.next_u64();
            }
        }
        assert!(seen.iter().all(|&n| n > 100), "positions per kind of set: {seen:?}");
    }

    /// R5.2 with nothing fixed beyond the class (the whole set of a short follow, found by
    /// masks) against the general programme (`short_set`, every kind walked): the same plays at
    /// the same ranks, so the same draws; on random hands and leads of every size and shape
    /// the rules make, every profile, level and trump (the trump class included, which is not
    /// in kind order).
    #[test]
    fn short_sets_by_masks_are_the_general_programme() {
        let mut rng = Rng::new(41);
        let mut checked = [0usize; 3]; // the class fills the lead, two more cards, more
        for profile in Profile::ALL {
            for level in [3u8, 9, 14] {
                for trump in 0..5u8 {
                    let Ok(ctx) = Context::new(level, trump, profile) else { continue };
                    for _ in 0..600 {
                        let hand = random_hand(&mut rng, 40);
                        let leads = crate::rules::combo::legal_leads(&ctx, &random_hand(&mut rng, 80));
                        let Some(&led) = leads.get(rng.below_usize(leads.len().max(1))) else { continue };
                        let f = Follow::new(&ctx, &hand, led);
                        if f.case != Case::Short {
                            continue;
                        }
                        let (mut fast, mut general) = (f.legal_set(&[0; KINDS]), f.short_set(&[0; KINDS], &f.s, &f.hand));
                        if matches!(fast, LegalSet::PlusOne(..) | LegalSet::Singles(_)) {
                            continue; // one more card: its own set, in kind order
                        }
                        assert_eq!(fast.count(), general.count());
                        if fast.count() <= 5_000 {
                            assert_eq!(fast.all(u128::MAX).unwrap(), general.all(u128::MAX).unwrap(), "{profile:?} level {level} trump {trump}");
                        } else {
                            for _ in 0..50 {
                                let r = rng.below(fast.count());
                                assert_eq!(fast.nth(r), general.nth(r));
                            }
                        }
                        checked[(f.n - f.s_size).min(3) as usize - (f.n > f.s_size) as usize] += 1;
                    }
                }
            }
        }
        assert!(checked.iter().all(|&n| n > 300), "positions checked: {checked:?}");
    }

    /// `Follow::single` against the follow set of a one-card lead, on random hands of every
    /// profile, level and trump: the same kinds.
    #[test]
    fn single_is_the_follow_set_of_a_one_card_lead() {
        let mut rng = Rng::new(23);
        for profile in Profile::ALL {
            for level in [3u8, 9, 14] {
                for trump in 0..4u8 {
                    let ctx = Context::new(level, trump, profile).unwrap();
                    for _ in 0..200 {
                        let hand = random_hand(&mut rng, 30);
                        let led = crate::rules::combo::unit(&ctx, rng.below_usize(KINDS) as u8, 1);
                        let set = Follow::new(&ctx, &hand, led).legal_set(&[0; KINDS]).all(u128::MAX).unwrap();
                        let want = set.iter().fold(0u64, |b, c| {
                            assert_eq!(crate::rules::card::size(c), 1);
                            b | 1 << c.iter().position(|&n| n > 0).unwrap()
                        });
                        assert_eq!(Follow::single(&ctx, &hand, led.class), want);
                    }
                }
            }
        }
    }
}
