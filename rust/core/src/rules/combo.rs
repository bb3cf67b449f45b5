//! Combinations: classify, compare, list every lead (docs/rules.md §3–4).

use crate::rules::card::{Card, Counts, KINDS};
use crate::rules::trump::{Context, NONE, TRUMP};

/// One unit (k = 1) or one tractor (k ≥ 2) of multiplicity `m` (R3.1–R3.2).
/// Its kinds are `first` and the next `k − 1` kinds up the links.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Combo {
    /// Multiplicity 1..=4 (single, pair, triple, bomb).
    pub m: u8,
    /// Number of units; 1 for a unit.
    pub k: u8,
    /// The lowest kind in link order.
    pub first: u8,
    /// Suit class (R2.5).
    pub class: u8,
    /// Top for comparison (R4.2).
    pub top: u8,
}

impl Combo {
    /// Card count N = m·k (R3.5).
    pub fn size(&self) -> usize {
        self.m as usize * self.k as usize
    }
    pub fn is_trump(&self) -> bool {
        self.class == TRUMP
    }
    pub fn is_tractor(&self) -> bool {
        self.k >= 2
    }
    /// R4.1 / D3: multiplicity, then trump, then top. Compare only equal sizes.
    pub fn key(&self) -> u32 {
        (self.m as u32) << 16 | (self.is_trump() as u32) << 8 | self.top as u32
    }
    /// The kinds of the combination, in link order.
    pub fn kinds<'c>(&self, ctx: &'c Context) -> impl Iterator<Item = u8> + 'c {
        let mut at = self.first;
        (0..self.k).map(move |_| {
            let k = at;
            at = ctx.up[at as usize];
            k
        })
    }
    /// The combination as a count array.
    pub fn counts(&self, ctx: &Context) -> Counts {
        let mut c = [0u8; KINDS];
        for k in self.kinds(ctx) {
            c[k as usize] = self.m;
        }
        c
    }
    /// "single", "pair", "triple", "bomb" or "tractor".
    pub fn kind_name(&self) -> &'static str {
        match (self.k, self.m) {
            (1, 1) => "single",
            (1, 2) => "pair",
            (1, 3) => "triple",
            (1, _) => "bomb",
            _ => "tractor",
        }
    }
}

/// The top of a tractor whose kinds are given (R4.2), with the level-3 exception.
fn tractor_top(ctx: &Context, first: u8, k: u8) -> u8 {
    if ctx.level == 3 && k == 2 && first == Card::new(ctx.trump, 2).0 {
        return 15; // 2233 at level 3: just below the joker tractor (17), above A (14)
    }
    let mut at = first;
    let mut top = 0;
    for _ in 0..k {
        top = top.max(ctx.tractor_rank[at as usize]);
        at = ctx.up[at as usize];
    }
    top
}

/// The unit of `m` copies of `kind`.
pub fn unit(ctx: &Context, kind: u8, m: u8) -> Combo {
    Combo { m, k: 1, first: kind, class: ctx.class[kind as usize], top: ctx.strength[kind as usize] }
}

/// The tractor of multiplicity `m` over `k` kinds up from `first`; the caller ensures the links.
pub fn tractor(ctx: &Context, first: u8, m: u8, k: u8) -> Combo {
    Combo { m, k, first, class: ctx.class[first as usize], top: tractor_top(ctx, first, k) }
}

/// The combination `(first, m, k)` as [`for_each_lead_shape`] gives it: the unit of `m`
/// copies of `first` when k = 1, else the tractor.
pub fn of_shape(ctx: &Context, first: u8, m: u8, k: u8) -> Combo {
    if k == 1 {
        unit(ctx, first, m)
    } else {
        tractor(ctx, first, m, k)
    }
}

/// Classifies a set of cards as one unit or one tractor, or `None` (R3.1–R3.4, D1).
pub fn classify(ctx: &Context, cards: &Counts) -> Option<Combo> {
    let (mut m, mut k, mut top_end, mut edges, mut mixed) = (0u8, 0u8, NONE, 0u8, false);
    crate::rules::card::for_each_held(cards, |kind, n| {
        if m == 0 {
            m = n;
        } else if n != m {
            mixed = true; // D1: one multiplicity
        }
        k += 1;
        let up = ctx.up[kind];
        if up != NONE && cards[up as usize] > 0 {
            edges += 1;
        } else {
            top_end = kind as u8; // the end of a run; in a tractor, the only one
        }
    });
    if mixed {
        return None;
    }
    match k {
        0 => None,
        1 => Some(unit(ctx, top_end, m)),
        _ if m < 2 => None,
        _ => {
            // R3.3: the kinds form one run of links: k − 1 links, or exactly the full 13-cycle.
            // (The whole cycle plus other kinds also has k − 1 links, in two pieces.)
            let whole_cycle = edges >= 13 && (2..=14).all(|r| cards[Card::new(ctx.trump, r).id()] > 0);
            let full_cycle = whole_cycle && k == 13;
            if (edges + 1 != k || whole_cycle) && !full_cycle {
                return None;
            }
            let first = if full_cycle { Card::new(ctx.trump, 2).0 } else { first_of_run(ctx, cards, top_end, k) };
            Some(tractor(ctx, first, m, k))
        }
    }
}

/// The lowest kind of a linked run of `k` kinds whose top end is `top_end`.
fn first_of_run(ctx: &Context, cards: &Counts, top_end: u8, k: u8) -> u8 {
    let mut at = top_end;
    for _ in 1..k {
        let below = ctx.down[at as usize];
        if below == NONE || cards[below as usize] == 0 {
            break;
        }
        at = below;
    }
    at
}

/// Every distinct combination in `hand` (R3.4): each unit at every multiplicity it can be
/// played at, each tractor and every sub-tractor at every multiplicity.
pub fn legal_leads(ctx: &Context, hand: &Counts) -> Vec<Combo> {
    let mut out = Vec::new();
    for_each_lead(ctx, hand, |c| out.push(c));
    out
}

/// Calls `f` with every combination of [`legal_leads`], in its order, without listing them.
pub fn for_each_lead(ctx: &Context, hand: &Counts, mut f: impl FnMut(Combo)) {
    for class in 0..5u8 {
        for_each_lead_in_class(ctx, hand, class, &mut f);
    }
}

/// Calls `f` with the combinations of [`legal_leads`] in suit class `class` (R2.5), in its
/// order: the units in the class's kind order, each at multiplicity 1 up to the copies held,
/// then the tractors by multiplicity.
pub fn for_each_lead_in_class(ctx: &Context, hand: &Counts, class: u8, mut f: impl FnMut(Combo)) {
    for_each_lead_shape(ctx, hand, class, |first, m, k| f(of_shape(ctx, first, m, k)));
}

/// The same enumeration as [`for_each_lead_in_class`], giving each combination as
/// `(first, m, k)` without building it (k = 1: the unit of `m` copies of `first`).
pub fn for_each_lead_shape(ctx: &Context, hand: &Counts, class: u8, mut f: impl FnMut(u8, u8, u8)) {
    let kinds = ctx.class_kinds(class);
    let Some(&first) = kinds.first() else { return };
    // the class's kinds held, as bits over their places in link order (the class's kinds are
    // one run of `ctx.order`): only they are read
    let start = ctx.pos[first as usize] as u32;
    let mut places = 0u64;
    let mut bits = crate::rules::card::held_mask(hand, 1) & ctx.class_mask[class as usize];
    while bits != 0 {
        let k = bits.trailing_zeros();
        bits &= bits - 1;
        places |= 1 << (ctx.pos[k as usize] as u32 - start);
    }
    // bit j of at_least[m]: the class's j-th kind in link order is held at least m times
    let mut at_least = [0u64; 5];
    while places != 0 {
        let j = places.trailing_zeros();
        places &= places - 1;
        let kind = kinds[j as usize];
        let held = hand[kind as usize];
        for m in 1..=held {
            f(kind, m, 1);
            at_least[m.min(4) as usize] |= 1 << j;
        }
    }
    let chains = ctx.chains_of(class);
    let start = chains.first().map_or(0, |c| c.start);
    for m in 2..=4u8 {
        if at_least[m as usize].count_ones() < 2 {
            continue; // a tractor needs two kinds held m times
        }
        for chain in chains {
            let bits = (at_least[m as usize] >> (chain.start - start)) & ((1u64 << chain.len) - 1);
            chain_windows(ctx.chain_kinds(chain), chain.cyclic, bits, 2, u8::MAX, |first, k| f(first, m, k));
        }
    }
}

/// Every tractor of a hand whose kinds held at least 2, 3 and 4 times are `ids` (bits over
/// kind ids, [`crate::rules::card::held_at_least`]), as `(first, m, k)`: by multiplicity, then
/// chain by chain over every class, by start, shortest first. Within one chain and
/// multiplicity this is [`for_each_lead_shape`]'s order; the classes are not taken one at a
/// time (a caller that needs the lead order across classes must not use it).
pub fn for_each_tractor_shape(ctx: &Context, ids: &[u64; 3], mut f: impl FnMut(u8, u8, u8)) {
    let used = ctx.class_chains[TRUMP as usize].1 as usize; // the chains past it are blank
    for (i, &b) in ids.iter().enumerate() {
        // A tractor needs two linked kinds held m times. Linked kinds are one or two ids apart
        // (a chain is a run of ids but for one left out), or twelve (the trump suit's wrap
        // from A to 2): `adj` has the lower of every such pair held, and a chain with none of
        // its ids in it holds no tractor.
        let adj = b & (b >> 1 | b >> 2 | b >> 12);
        if adj == 0 {
            continue;
        }
        let m = i as u8 + 2;
        for chain in &ctx.chains[..used] {
            if chain.len < 2 || adj >> chain.id_first & ((1u64 << chain.id_span) - 1) == 0 {
                continue;
            }
            chain_windows(ctx.chain_kinds(chain), chain.cyclic, chain.bits_of(b), 2, u8::MAX, |first, k| f(first, m, k));
        }
    }
}

/// The run of kinds held at least `m` times from chain position `s` (wrapping on the cycle),
/// at most `cap` long: the kind-by-kind scan the bit forms below are tested against.
#[cfg(test)]
fn run_from(kinds: &[u8], cyclic: bool, s: usize, held: &Counts, m: u8, cap: usize) -> usize {
    let len = kinds.len();
    let max_k = (if cyclic { len } else { len - s }).min(cap);
    let (mut run, mut at) = (0usize, s);
    while run < max_k && held[kinds[at] as usize] >= m {
        run += 1;
        at += 1;
        if at == len {
            at = 0;
        }
    }
    run
}

/// The tractor sizes k ≥ 2 starting at position `s` for a run of `run` kinds: 2..=run, except
/// the full cycle, which is listed once, from s = 0.
fn window_sizes(len: usize, cyclic: bool, s: usize, run: usize) -> std::ops::RangeInclusive<usize> {
    let top = if cyclic && run == len && s != 0 { run - 1 } else { run };
    2..=top
}

/// The run of kinds in `bits` from chain position `s` (wrapping on the cycle): `run_from`'s.
fn run_in_bits(len: usize, cyclic: bool, bits: u64, s: usize) -> usize {
    let all = (1u64 << len) - 1;
    if cyclic && bits == all {
        return len;
    }
    let ext = if cyclic { bits | bits << len } else { bits };
    (!(ext >> s)).trailing_zeros() as usize
}

/// Tractor windows of one chain whose kinds are all in `bits`: a maximal run of R linked kinds
/// gives R(R−1)/2 windows (on the cycle a run may wrap through A–2); the whole cycle gives
/// len·(len − 2) + 1 (each window shorter than the cycle from each start, and the cycle once).
fn windows_in_bits(len: usize, cyclic: bool, bits: u64) -> usize {
    let pairs = |r: usize| r * r.saturating_sub(1) / 2;
    if len < 2 || bits == 0 {
        return 0;
    }
    debug_assert!(len <= 32, "a chain is at most 18 kinds");
    let all = (1u64 << len) - 1;
    if bits == all {
        return if cyclic { len * (len - 2) + 1 } else { pairs(len) };
    }
    // on the cycle, turned so that a kind not held is last: no run then wraps
    let mut b = if cyclic {
        let z = (!bits & all).trailing_zeros() as usize + 1;
        (bits >> z | bits << (len - z)) & all
    } else {
        bits
    };
    let mut n = 0;
    while b != 0 {
        b >>= b.trailing_zeros();
        let run = (!b).trailing_zeros() as usize;
        n += pairs(run);
        b >>= run;
    }
    n
}

/// The number of distinct combinations in `hand`: `legal_leads(ctx, hand).len()` without
/// listing them.
pub fn count_leads(ctx: &Context, hand: &Counts) -> usize {
    LeadCounts::of(ctx, hand).total
}

/// `legal_leads(ctx, hand)[r]` without listing the others.
pub fn nth_lead(ctx: &Context, hand: &Counts, r: usize) -> Option<Combo> {
    LeadCounts::of(ctx, hand).nth(ctx, hand, r)
}

/// How many leads each part of [`legal_leads`]'s order holds, counted once so that a draw
/// ([`LeadCounts::nth`]) skips whole parts: the units (one per copy held), and each chain's
/// tractor windows per multiplicity.
#[derive(Clone, Copy, Debug)]
pub struct LeadCounts {
    /// The hand's kinds held at least 2, 3 and 4 times, as bits over kind ids.
    ids: [u64; 3],
    /// Per chain of the context and multiplicity 2, 3, 4: its tractor windows.
    windows: [[u16; 3]; 20],
    /// Every lead: `legal_leads(ctx, hand).len()`.
    pub total: usize,
}

impl LeadCounts {
    pub fn of(ctx: &Context, hand: &Counts) -> LeadCounts {
        let ids = crate::rules::card::held_at_least(hand);
        let mut windows = [[0u16; 3]; 20];
        let mut total = crate::rules::card::size(hand); // every unit at every multiplicity
        for (m, &b) in ids.iter().enumerate() {
            if b & b.wrapping_sub(1) == 0 {
                continue; // a tractor needs two kinds held m times
            }
            let used = ctx.class_chains[TRUMP as usize].1 as usize; // the chains past it are blank
            for (w, chain) in windows.iter_mut().zip(&ctx.chains[..used]) {
                if chain.len >= 2 {
                    // (the chain's kinds held m times, cut from the hand's masks over kind ids)
                    let n = windows_in_bits(chain.len as usize, chain.cyclic, chain.bits_of(b));
                    w[m] = n as u16; // at most 13 · 11 + 1 windows
                    total += n;
                }
            }
        }
        LeadCounts { ids, windows, total }
    }

    /// `legal_leads(ctx, hand)[r]` of the `hand` these counts are of.
    pub fn nth(&self, ctx: &Context, hand: &Counts, mut r: usize) -> Option<Combo> {
        for class in 0..5u8 {
            let units = crate::rules::card::size_and(hand, &ctx.class_bytes[class as usize]);
            if r < units {
                for &kind in ctx.class_kinds(class) {
                    let c = hand[kind as usize] as usize;
                    if r < c {
                        return Some(unit(ctx, kind, r as u8 + 1));
                    }
                    r -= c;
                }
                unreachable!("the class holds `units` cards");
            }
            r -= units;
            let (a, b) = ctx.class_chains[class as usize];
            for m in 2..=4u8 {
                for i in a as usize..b as usize {
                    let w = self.windows[i][m as usize - 2] as usize;
                    if r >= w {
                        r -= w; // skip the whole chain
                        continue;
                    }
                    let chain = &ctx.chains[i];
                    let (len, bits) = (chain.len as usize, chain.bits_of(self.ids[m as usize - 2]));
                    let kinds = ctx.chain_kinds(chain);
                    let starts = if chain.cyclic { len } else { len - 1 };
                    for (s, &first) in kinds[..starts].iter().enumerate() {
                        let n = window_sizes(len, chain.cyclic, s, run_in_bits(len, chain.cyclic, bits, s)).count();
                        if r < n {
                            return Some(tractor(ctx, first, m, r as u8 + 2));
                        }
                        r -= n;
                    }
                    unreachable!("the chain holds `w` windows");
                }
            }
        }
        None
    }
}

/// Calls `f(first, k)` for every tractor of multiplicity `m` with `kmin ≤ k ≤ kmax` units in
/// `class` that `held` can give: every window of linked kinds each held at least `m` times,
/// chain by chain, by start in link order, shortest first.
pub fn for_each_tractor(
    ctx: &Context,
    class: u8,
    held: &Counts,
    m: u8,
    kmin: u8,
    kmax: u8,
    mut f: impl FnMut(u8, u8),
) {
    // (the kinds held m times as bits over kind ids, cut chain by chain)
    let ids = crate::rules::card::held_mask(held, m);
    if ids & ctx.class_mask[class as usize] == 0 {
        return;
    }
    for chain in ctx.chains_of(class) {
        chain_windows(ctx.chain_kinds(chain), chain.cyclic, chain.bits_of(ids), kmin, kmax, &mut f);
    }
}

/// Calls `f(first, k)` for every window of `kmin ≤ k ≤ kmax` linked kinds of one chain whose
/// kinds all have their bit set in `bits` (bit i: the chain's i-th kind), by start, shortest
/// first (the order of [`for_each_tractor`]).
fn chain_windows(kinds: &[u8], cyclic: bool, bits: u64, kmin: u8, kmax: u8, mut f: impl FnMut(u8, u8)) {
    let len = kinds.len();
    if len < 2 || bits == 0 {
        return;
    }
    debug_assert!(len <= 32, "a chain is at most 18 kinds");
    // on the cycle the chain is repeated once after itself, so that runs through A–2 read
    // straight on
    let all = (1u64 << len) - 1;
    let ext = if cyclic { bits | bits << len } else { bits };
    // a window starts at s when the kinds at s and s + 1 are both held
    let mut starts = ext & (ext >> 1) & if cyclic { all } else { all >> 1 };
    while starts != 0 {
        let s = starts.trailing_zeros() as usize;
        starts &= starts - 1;
        // windows starting at s, growing while linked kinds are held (the run of `run_from`;
        // the whole cycle held is a run of `len` from every start)
        let natural = if cyclic && bits == all { len } else { (!(ext >> s)).trailing_zeros() as usize };
        for k in window_sizes(len, cyclic, s, natural.min(kmax as usize)) {
            if k >= kmin as usize {
                f(kinds[s], k as u8);
            }
        }
    }
}

/// The combination a follow of `cards` to a lead of class `led` is where it may win the trick,
/// else None (R6.1: only a play all of the led class, or all trumps, can win; what else is
/// played needs no classifying, a combination being of one class, R3.1–R3.3). Depends on the
/// cards and the led class alone, so a list of follows may keep it.
pub fn follow_combo(ctx: &Context, led: u8, cards: &Counts) -> Option<Combo> {
    let kinds = crate::rules::card::held_mask(cards, 1);
    let of_one_class = kinds & !ctx.class_mask[led as usize] == 0 || kinds & !ctx.class_mask[TRUMP as usize] == 0;
    match kinds.count_ones() {
        1 => Some(unit(ctx, kinds.trailing_zeros() as u8, cards[kinds.trailing_zeros() as usize])),
        _ if of_one_class => classify(ctx, cards),
        _ => None,
    }
}

/// R6.1–R6.2, written once: does the play `c` (one combination) become the trick's best over
/// `best_key`, the key of the best play so far, on the lead `lead`? It can win only with the
/// lead's card count, in the led class or as a trump ruff of a plain lead (R6.1), and then only
/// with a greater key: ties go to the earlier play (R2.6, R4.1).
pub fn beats(lead: &Combo, c: &Combo, best_key: u32) -> bool {
    let eligible = c.class == lead.class || (c.is_trump() && !lead.is_trump());
    eligible && c.size() == lead.size() && c.key() > best_key
}

/// Trick winner (R6.1–R6.2): index into `plays` (the lead first) of the winning play.
/// Every play must have the lead's size; returns `None` if the lead is not a combination.
pub fn trick_winner(ctx: &Context, plays: &[Counts]) -> Option<usize> {
    let lead = classify(ctx, plays.first()?)?;
    let mut best = (lead.key(), 0usize);
    for (i, p) in plays.iter().enumerate().skip(1) {
        if let Some(c) = classify(ctx, p) {
            if beats(&lead, &c, best.0) {
                best = (c.key(), i);
            }
        }
    }
    Some(best.1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::profile::Profile;
    use crate::util::rng::Rng;

    /// A hand of fewer than `draws` random cards (at most 4 copies a kind); at every third `i`
    /// the trump suit's cycle held as pairs or more, and with `broken`, at every sixth, broken
    /// once (R3.3: runs through A–2).
    fn random_hand(rng: &mut Rng, ctx: &Context, draws: usize, i: usize, broken: bool) -> [u8; KINDS] {
        let mut hand = [0u8; KINDS];
        for _ in 0..rng.below_usize(draws) {
            let k = rng.below_usize(KINDS);
            if hand[k] < 4 {
                hand[k] += 1;
            }
        }
        if i % 3 == 0 {
            for r in 2..=14 {
                hand[Card::new(ctx.trump, r).id()] = 2 + rng.below_usize(3) as u8;
            }
            if broken && i % 2 == 0 {
                hand[Card::new(ctx.trump, 2 + rng.below_usize(13) as u8).id()] = 1;
            }
        }
        hand
    }

    #[test]
    fn r3_3_whole_cycle_plus_another_kind_is_no_combination() {
        let ctx = Context::new(10, 1, Profile::Guigang).unwrap();
        let mut c = [0u8; KINDS];
        for r in 2..=14 {
            c[Card::new(1, r).id()] = 2;
        }
        assert_eq!(classify(&ctx, &c).map(|x| (x.m, x.k)), Some((2, 13)));
        c[Card::new(0, 3).id()] = 2;
        assert_eq!(classify(&ctx, &c), None);
        c[Card::new(0, 3).id()] = 0;
        c[crate::rules::card::SJ.id()] = 2;
        c[crate::rules::card::BJ.id()] = 2;
        assert_eq!(classify(&ctx, &c), None);
    }

    /// What `for_each_tractor_shape`'s filter assumes: linked kinds of a chain are one or two
    /// ids apart, and a cyclic chain is the 13 ranks of one suit in id order (its wrap twelve
    /// ids apart), in every context.
    #[test]
    fn linked_kinds_are_one_two_or_twelve_ids_apart() {
        for profile in Profile::ALL {
            for level in 3..=14u8 {
                for trump in 0..4u8 {
                    let ctx = Context::new(level, trump, profile).unwrap();
                    for chain in &ctx.chains[..ctx.class_chains[TRUMP as usize].1 as usize] {
                        let kinds = ctx.chain_kinds(chain);
                        assert!(kinds.windows(2).all(|w| w[1] > w[0] && w[1] - w[0] <= 2), "{kinds:?}");
                        if chain.cyclic {
                            assert_eq!((kinds.len(), kinds[12] - kinds[0]), (13, 12), "{kinds:?}");
                        }
                    }
                }
            }
        }
    }

    /// `for_each_tractor_shape` against the tractors of `for_each_lead_shape`, class by class:
    /// the same windows, in its order once sorted by multiplicity alone (stably).
    #[test]
    fn tractor_shapes_are_the_leads_tractors_by_multiplicity() {
        let mut rng = Rng::new(9);
        let mut seen = 0;
        for (level, profile) in [3u8, 10, 14].into_iter().flat_map(|l| Profile::ALL.map(|p| (l, p))) {
            let ctx = Context::new(level, level % 4, profile).unwrap();
            for i in 0..300 {
                let hand = random_hand(&mut rng, &ctx, 150, i, false);
                let mut want = Vec::new();
                for class in 0..5u8 {
                    for_each_lead_shape(&ctx, &hand, class, |first, m, k| {
                        if k >= 2 {
                            want.push((first, m, k));
                        }
                    });
                }
                want.sort_by_key(|w| w.1);
                let mut got = Vec::new();
                for_each_tractor_shape(&ctx, &crate::rules::card::held_at_least(&hand), |first, m, k| got.push((first, m, k)));
                assert_eq!(got, want, "level {level} {}", profile.name());
                seen += got.len();
            }
        }
        assert!(seen > 10_000, "tractors seen: {seen}");
    }

    /// `for_each_lead_shape` against the plain scan of every kind of the class.
    #[test]
    fn lead_shapes_match_the_kind_by_kind_scan() {
        let mut rng = Rng::new(8);
        for (level, profile) in [3u8, 9, 14].into_iter().flat_map(|l| Profile::ALL.map(|p| (l, p))) {
            let ctx = Context::new(level, rng.below_usize(4) as u8, profile).unwrap();
            for i in 0..300 {
                let hand = random_hand(&mut rng, &ctx, 60, i, true);
                for class in 0..5u8 {
                    let mut got = Vec::new();
                    for_each_lead_shape(&ctx, &hand, class, |a, m, k| got.push((a, m, k)));
                    let mut want = Vec::new();
                    let mut at_least = [0u64; 5];
                    for (j, &kind) in ctx.class_kinds(class).iter().enumerate() {
                        for m in 1..=hand[kind as usize] {
                            want.push((kind, m, 1));
                            at_least[m.min(4) as usize] |= 1 << j;
                        }
                    }
                    let chains = ctx.chains_of(class);
                    let start = chains.first().map_or(0, |c| c.start);
                    for m in 2..=4u8 {
                        for chain in chains {
                            let bits = (at_least[m as usize] >> (chain.start - start)) & ((1u64 << chain.len) - 1);
                            chain_windows(ctx.chain_kinds(chain), chain.cyclic, bits, 2, u8::MAX, |first, k| want.push((first, m, k)));
                        }
                    }
                    assert_eq!(got, want, "{hand:?}");
                }
            }
        }
    }

    #[test]
    fn count_and_nth_lead_match_the_list() {
        let mut rng = Rng::new(3);
        for (level, profile) in [3u8, 10, 14].into_iter().flat_map(|l| Profile::ALL.map(|p| (l, p))) {
            let ctx = Context::new(level, level % 4, profile).unwrap();
            for i in 0..300 {
                let hand = random_hand(&mut rng, &ctx, 60, i, true);
                let all = legal_leads(&ctx, &hand);
                assert_eq!(count_leads(&ctx, &hand), all.len());
                for (r, c) in all.iter().enumerate() {
                    assert_eq!(nth_lead(&ctx, &hand, r), Some(*c));
                }
                assert_eq!(nth_lead(&ctx, &hand, all.len()), None);
            }
        }
    }

    /// R3.4: the leads of a hand are distinct as cards, not only as combinations (no two have
    /// the same counts), so a list of them has no repeat to drop (`agent::plays` relies on it).
    #[test]
    fn distinct_leads_hold_distinct_cards() {
        let mut rng = Rng::new(17);
        let mut leads = 0usize;
        for (level, profile) in [3u8, 10, 14].into_iter().flat_map(|l| Profile::ALL.map(|p| (l, p))) {
            for trump in 0..5u8 {
                let Ok(ctx) = Context::new(level, trump, profile) else { continue };
                for i in 0..200 {
                    let hand = random_hand(&mut rng, &ctx, 120, i, true);
                    let mut all: Vec<Counts> = legal_leads(&ctx, &hand).iter().map(|c| c.counts(&ctx)).collect();
                    leads += all.len();
                    all.sort_unstable();
                    assert!(all.windows(2).all(|w| w[0] != w[1]), "{profile:?} level {level} trump {trump}: two leads of the same cards in {hand:?}");
                }
            }
        }
        assert!(leads > 100_000, "{leads} leads");
    }

    /// `for_each_tractor` against the plain scan: every start, its run counted kind by kind.
    #[test]
    fn tractor_windows_match_the_kind_by_kind_scan() {
        let mut rng = Rng::new(5);
        let mut cycles = 0;
        for level in [3u8, 7, 14] {
            for profile in [Profile::Guigang, Profile::Competition] {
                let ctx = Context::new(level, rng.below_usize(4) as u8, profile).unwrap();
                for i in 0..300 {
                    let hand = random_hand(&mut rng, &ctx, 120, i, true);
                    for class in 0..5u8 {
                        for m in 2..=4u8 {
                            for (kmin, kmax) in [(2u8, u8::MAX), (2, 2), (3, 5), (4, 13), (13, 13)] {
                                let mut want = Vec::new();
                                for chain in ctx.chains_of(class) {
                                    let kinds = ctx.chain_kinds(chain);
                                    if kinds.len() < 2 {
                                        continue;
                                    }
                                    let starts = if chain.cyclic { kinds.len() } else { kinds.len() - 1 };
                                    for s in 0..starts {
                                        let run = run_from(kinds, chain.cyclic, s, &hand, m, kmax as usize);
                                        for k in window_sizes(kinds.len(), chain.cyclic, s, run) {
                                            if k >= kmin as usize {
                                                want.push((kinds[s], k as u8));
                                            }
                                        }
                                    }
                                }
                                let mut got = Vec::new();
                                for_each_tractor(&ctx, class, &hand, m, kmin, kmax, |first, k| got.push((first, k)));
                                assert_eq!(got, want, "level {level} class {class} m {m} k {kmin}..={kmax}");
                                cycles += got.iter().filter(|w| w.1 == 13).count();
                            }
                        }
                    }
                }
            }
        }
        assert!(cycles > 100, "whole cycles seen: {cycles}");
    }
}
