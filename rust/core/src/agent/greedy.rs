//! The `greedy` policy: a sensible, fast, deterministic-given-its-stream player.
//!
//! - Declaring: shows with the suit it holds most of (level cards count double), the most
//!   cards it can; overturns opponents, never its partner; reinforces its own showing.
//! - Leading: plain-suit aces and combinations topped by an ace first (the leader wins ties),
//!   then tractors, then pairs; otherwise its cheapest single, avoiding point cards; it keeps
//!   its strongest trump combination for the last trick (×N, R7.3) once few cards remain.
//! - Following: gives points to a partner who is winning; wins a trick cheaply when it
//!   carries points (or it plays last); otherwise throws its cheapest cards, keeping points
//!   away from the opponents and high trumps and pairs for later.
//!
//! Every score is a sum of whole-number weights ([`Weights`]); `greedy` is
//! [`Weights::GREEDY`], and [`act_with`] plays any other set (a tuned greedy).

use crate::agent::view::SeatView;
use crate::agent::weights::Weights;
use crate::game::hand::{Action, Phase, NOBODY};
use crate::rules::card::{Card, Counts, KINDS};
use crate::rules::combo::{classify, for_each_lead_in_class, Combo};
use crate::rules::follow::{Case, Follow, LegalSet};
use crate::rules::score::{points, KIND_POINTS};
use crate::rules::trump::{Context, TRUMP};
use crate::util::rng::Rng;

/// The greedy policy's action for the seat of `view` (the hand is not over).
pub fn act(view: &SeatView, rng: &mut Rng) -> Action {
    act_with(view, rng, &Weights::GREEDY)
}

/// The action of greedy scoring with the weights `w` (`greedy` itself with
/// [`Weights::GREEDY`]).
pub fn act_with(view: &SeatView, rng: &mut Rng, w: &Weights) -> Action {
    match view.phase() {
        Phase::Declare => declare(view, w),
        _ => match view.lead() {
            None => lead(view, w),
            // a single led needs no analysis of the follower's position: its legal follows
            // are the kinds of one mask (R5.1, R5.3 T1 with N = 1; R5.2)
            Some(l) if l.size() == 1 => follow_single(view, &l, w),
            Some(_) => follow(view, &view.follow().expect("a lead on the table"), rng, w),
        },
    }
}

fn declare(pos: &SeatView, w: &Weights) -> Action {
    let seat = pos.seat();
    let declarer = pos.declarer();
    if declarer != NOBODY && declarer != seat && declarer % 2 == seat % 2 {
        return Action::Pass; // never overturn the partner
    }
    let hand = pos.hand();
    // per suit: its cards, level cards twice (computed once, not per showing)
    let per_suit: [u32; 4] = std::array::from_fn(|suit| {
        let suit = suit as u8;
        let cards = &hand[Card::new(suit, 2).id()..=Card::new(suit, 14).id()];
        cards.iter().map(|&c| c as u32).sum::<u32>() + hand[Card::new(suit, pos.level()).id()] as u32
    });
    let support = |suit: u8| per_suit[suit as usize];
    let held = crate::rules::card::size(hand) as u32;
    let best = pos.showings().max_by_key(|s| (support(s.suit), s.count, 3 - s.suit));
    match best {
        // wait for a suit longer than a quarter of the cards held, unless the deal is done
        Some(s) if (support(s.suit) * 4) as i64 >= held as i64 + w.show_margin as i64 || pos.dealt() as usize >= crate::rules::card::DECK => {
            Action::Declare { suit: s.suit, count: s.count }
        }
        _ => Action::Pass,
    }
}

/// What a card is worth keeping: its strength, trumps far above plain cards.
fn keep_value(w: &Weights, ctx: &Context, kind: usize) -> i32 {
    let s = ctx.strength[kind] as i32;
    if ctx.class[kind] == TRUMP {
        w.trump_keep + w.trump_strength * s
    } else {
        s
    }
}

fn cost(w: &Weights, ctx: &Context, x: &Counts) -> i32 {
    let mut c = 0;
    crate::rules::card::for_each_held(x, |k, n| c += n as i32 * keep_value(w, ctx, k));
    c
}

/// How a lead ranks: its value, then the lower first kind, then the higher multiplicity, as
/// one integer ordered as the tuple `(v, Reverse(first), m)`: the value above two bytes.
fn lead_rank(v: i32, first: u8, m: u8) -> i64 {
    (v as i64) << 16 | ((255 - first) as i64) << 8 | m as i64
}

/// The strongest trump combination, kept for the last trick near the end (`left` cards at
/// most `keep_left`): the last of the greatest (size, key) in lead order.
fn kept_for_last(ctx: &Context, hand: &[u8; KINDS], left: usize, w: &Weights) -> Option<Combo> {
    let mut keep: Option<(usize, u32, Combo)> = None;
    if left <= w.keep_left as usize {
        for_each_lead_in_class(ctx, hand, TRUMP, |c| {
            if keep.is_none_or(|(size, key, _)| (c.size(), c.key()) >= (size, key)) {
                keep = Some((c.size(), c.key(), c));
            }
        });
    }
    keep.map(|b| b.2)
}

/// How greedy values a lead (one rule for the lead and its twin in the tests).
struct LeadValue<'a> {
    ctx: &'a Context,
    w: &'a Weights,
    /// The cards in hand.
    left: usize,
    keep: Option<Combo>,
    /// The kept combination's kind and multiplicity when it is a unit.
    keep_unit: Option<(u8, u8)>,
}

impl<'a> LeadValue<'a> {
    fn of(ctx: &'a Context, hand: &Counts, w: &'a Weights) -> LeadValue<'a> {
        let left = crate::rules::card::size(hand);
        let keep = kept_for_last(ctx, hand, left, w);
        LeadValue { ctx, w, left, keep, keep_unit: keep.filter(|c| c.k == 1).map(|c| (c.first, c.m)) }
    }

    /// The value of a tractor (R3.2): kept, the whole hand, topped by a plain ace, or by its size.
    #[inline]
    fn tractor(&self, c: &Combo) -> i32 {
        let w = self.w;
        if Some(*c) == self.keep && c.size() < self.left {
            return -1000;
        }
        let size = c.size() as i32;
        if c.size() == self.left {
            return 10_000; // the whole hand in one combination: the last trick
        }
        if !c.is_trump() && c.top == 14 {
            return w.ace + w.ace_size * size; // plain aces: the leader wins ties
        }
        w.tractor + w.tractor_size * size + c.top as i32 - if c.is_trump() { w.tractor_trump } else { 0 }
    }

    /// The value of the unit of `m` copies of `kind` (R3.1), without building it: kept, the
    /// whole hand, a plain ace, high plain pairs and more, the cheapest single, other units.
    #[inline]
    fn unit(&self, kind: u8, m: u8, trump: bool) -> i32 {
        let (w, ctx) = (self.w, self.ctx);
        let size = m as i32;
        if m as usize == self.left {
            return 10_000;
        }
        if self.keep_unit == Some((kind, m)) {
            return -1000;
        }
        let top = ctx.strength[kind as usize];
        if !trump && top == 14 {
            return w.ace + w.ace_size * size;
        }
        if m >= 2 && !trump && top >= 12 {
            return w.pair + w.pair_size * size + top as i32;
        }
        let (pts, kv) = (point_value(kind as usize) * size, keep_value(w, ctx, kind as usize));
        if m == 1 {
            return w.single - kv - w.lead_points * pts;
        }
        w.unit + w.unit_size * size - kv - w.lead_points * pts
    }
}

fn lead(pos: &SeatView, w: &Weights) -> Action {
    let ctx = pos.ctx();
    let hand = pos.hand();
    let value = LeadValue::of(ctx, hand, w);
    // The greatest (value, lowest first kind, multiplicity); of equals, the last in lead order
    // (that of `for_each_lead`, R3.4). The rank is packed into one integer ([`lead_rank`]).
    // Two leads of equal rank share their first kind and multiplicity: the unit and the
    // tractors up from it, listed in that order (a class's units before its tractors, a
    // start's windows shortest first). So the units are ranked from the hand's masks in any
    // order (their ranks are distinct), and the tractors after them, each kept on a tie.
    let held = crate::rules::card::held_masks(hand);
    let trumps = ctx.class_mask[TRUMP as usize];
    let (mut best, mut best_k) = (i64::MIN, 1u8);
    // (one copy of the scan per multiplicity, each with its `m` known)
    #[inline(always)]
    fn scan(mut kinds: u64, m: u8, best: &mut i64, value: &impl Fn(u8, u8) -> i32) {
        while kinds != 0 {
            let kind = kinds.trailing_zeros() as u8;
            kinds &= kinds - 1;
            *best = (*best).max(lead_rank(value(kind, m), kind, m));
        }
    }
    let unit = |kind: u8, m: u8| value.unit(kind, m, trumps >> kind & 1 == 1);
    scan(held[0], 1, &mut best, &unit);
    scan(held[1], 2, &mut best, &unit);
    scan(held[2], 3, &mut best, &unit);
    scan(held[3], 4, &mut best, &unit);
    crate::rules::combo::for_each_tractor_shape(ctx, &[held[1], held[2], held[3]], |first, m, k| {
        let key = lead_rank(value.tractor(&crate::rules::combo::tractor(ctx, first, m, k)), first, m);
        if key >= best {
            (best, best_k) = (key, k);
        }
    });
    assert!(best > i64::MIN, "a hand to lead from");
    let (first, m) = (255 - (best >> 8 & 0xFF) as u8, (best & 0xFF) as u8);
    Action::Play(crate::rules::combo::of_shape(ctx, first, m, best_k).counts(ctx))
}

/// Would `x` become the trick's best play (R6.1–R6.2, [`crate::rules::combo::beats`])?
fn wins(pos: &SeatView, lead: &Combo, x: &Counts) -> bool {
    classify(pos.ctx(), x).is_some_and(|c| crate::rules::combo::beats(lead, &c, pos.trick().best_key))
}

/// A follow of a lead of more than one card ([`follow_single`] takes a single).
fn follow(pos: &SeatView, f: &Follow, rng: &mut Rng, w: &Weights) -> Action {
    let ctx = pos.ctx();
    let lead = f.lead;
    let trick = pos.trick();
    let value = FollowValue::of(pos, w);
    let score = |x: &Counts, wins: bool| -> i32 { value.of_play(points(x), cost(w, ctx, x), wins) };
    // Plays that cannot become the trick's best need no classifying: all of the led class
    // beside other cards is no combination (R3.1–R3.3), and a ladder position under any-shape
    // T1 holds no N-card combination of the class (else R5.3 T1 would be its case).
    let mixed = f.case == Case::Short && f.s_size > 0 && f.s_size < f.n;
    let no_combination = ctx.rules.t1_any_shape && matches!(f.case, Case::Ladder { .. });
    let can_win = !value.partner_winning && !mixed && !no_combination;
    let wins = |x: &Counts| can_win && wins(pos, &lead, x);
    let mut set = f.legal_set(&[0; KINDS]);
    // the effort weights held inside their ranges (a set built directly may lie outside them)
    let (lo, hi) = Weights::RANGE.list_max;
    let list_max = w.list_max.clamp(lo, hi) as u128;
    if matches!(set, LegalSet::Units(..)) && set.count() <= list_max {
        // R5.3 T1 of two or three cards: each play is the unit of N copies of its one kind,
        // scored from the kind (its points and cost N times the kind's), in the list's order
        let n = f.n as i32;
        let mut best = (i32::MIN, 0u8);
        set.for_each_unit(|kind| {
            let c = crate::rules::combo::unit(ctx, kind, f.n);
            let wins = can_win && crate::rules::combo::beats(&lead, &c, trick.best_key);
            let k = kind as usize;
            let v = value.of_play(n * point_value(k), n * keep_value(w, ctx, k), wins);
            if v > best.0 {
                best = (v, kind); // ties keep the earlier candidate
            }
        });
        return Action::Play(crate::rules::card::UNITS[f.n as usize - 1][best.1 as usize]);
    }
    let mut best = (i32::MIN, [0u8; KINDS]);
    let mut offer = |x: &Counts, wins: bool| {
        let v = score(x, wins);
        if v > best.0 {
            best = (v, *x); // ties keep the earlier candidate
        }
    };
    match set.all(list_max) {
        Ok(all) => {
            // Every legal follow is a candidate: the fills and the ruff below are legal
            // follows too, so they cannot do better than the first best of the list.
            if let LegalSet::Combos(_, combos) = &set {
                // R5.3 T1: the plays are combinations already
                for (x, c) in all.iter().zip(combos) {
                    offer(x, can_win && crate::rules::combo::beats(&lead, c, trick.best_key));
                }
            } else {
                for x in &all {
                    offer(x, wins(x));
                }
            }
        }
        Err(_) => {
            // `samples` drawn uniformly, then (R5.2) all of the class filled with the cheapest
            // others or with the most points, and the cheapest winning ruff
            // (at least one where R5.2's fills do not apply: a candidate is always offered)
            let (lo, hi) = Weights::RANGE.samples;
            let samples = w.samples.clamp(if f.case == Case::Short { lo } else { lo.max(1) }, hi);
            for _ in 0..samples {
                if let Some(x) = set.sample(rng) {
                    offer(&x, wins(&x));
                }
            }
            if f.case == Case::Short {
                let cheap = fill(f, |k| keep_value(w, ctx, k) + 5 * point_value(k));
                offer(&cheap, wins(&cheap));
                let rich = fill(f, |k| keep_value(w, ctx, k) - 12 * point_value(k));
                offer(&rich, wins(&rich));
                if f.s_size == 0 && !lead.is_trump() {
                    if let Some(r) = cheapest_ruff(pos, f, w) {
                        offer(&r, wins(&r));
                    }
                }
            }
        }
    }
    Action::Play(best.1)
}

/// The same choice as [`follow`] for a single led (`lead`), over the kinds directly: one card
/// of the led class if held (R5.3 T1), else any card (R5.2): [`Follow::single`]'s kinds.
fn follow_single(pos: &SeatView, lead: &Combo, w: &Weights) -> Action {
    let ctx = pos.ctx();
    let trick = pos.trick();
    let value = FollowValue::of(pos, w);
    let mut best = (i32::MIN, 0usize);
    // the kinds in kind order, as the count arrays were walked
    let mut kinds = Follow::single(ctx, pos.hand(), lead.class);
    while kinds != 0 {
        let k = kinds.trailing_zeros() as usize;
        kinds &= kinds - 1;
        let wins = !value.partner_winning
            && crate::rules::combo::beats(lead, &crate::rules::combo::unit(ctx, k as u8, 1), trick.best_key);
        let v = value.of_play(point_value(k), keep_value(w, ctx, k), wins);
        if v > best.0 {
            best = (v, k);
        }
    }
    Action::Play(crate::rules::card::UNITS[0][best.1])
}

/// What greedy offers beside its samples when a follow has too many legal plays to list
/// (R5.2, short of the led class): all of the class filled with the cheapest others, with the
/// most points, and the cheapest winning ruff where the follower is void. Empty for another
/// case. The whole-play candidates ([`crate::agent::plays`]) offer them too.
pub fn short_fills(view: &SeatView, f: &Follow, w: &Weights) -> Vec<Counts> {
    let mut out = Vec::new();
    if f.case != Case::Short {
        return out;
    }
    let ctx = view.ctx();
    out.push(fill(f, |k| keep_value(w, ctx, k) + 5 * point_value(k)));
    out.push(fill(f, |k| keep_value(w, ctx, k) - 12 * point_value(k)));
    if f.s_size == 0 && !f.lead.is_trump() {
        out.extend(cheapest_ruff(view, f, w));
    }
    out
}

/// How greedy values a follow, from the trick so far (one rule for every kind of follow).
struct FollowValue<'w> {
    w: &'w Weights,
    partner_winning: bool,
    last: bool,
    /// The points on the table.
    table: i32,
    feed: i32,
}

impl<'w> FollowValue<'w> {
    fn of(pos: &SeatView, w: &'w Weights) -> FollowValue<'w> {
        let trick = pos.trick();
        let last = trick.plays == 3;
        FollowValue {
            w,
            partner_winning: trick.best_seat % 2 == pos.seat() % 2,
            last,
            table: trick.points as i32,
            feed: feeding(w, last),
        }
    }

    /// A play's value from its points `pts`, its cost `c` ([`cost`]) and whether it becomes
    /// the trick's best (`wins`, read only when the partner is not winning).
    fn of_play(&self, pts: i32, c: i32, wins: bool) -> i32 {
        let w = self.w;
        if self.partner_winning {
            return self.feed * pts - c;
        }
        if wins {
            if self.table + pts > 0 || self.last {
                return w.win + w.win_points * (self.table + pts) - c;
            }
            return -c - w.win_empty; // winning a pointless trick early is rarely worth high cards
        }
        -c - w.lose_points * pts
    }
}

/// Points given to a winning partner are worth `feed` each, less `feed_risk` while an
/// opponent plays after (the next seat is always an opponent, R1.1).
fn feeding(w: &Weights, last: bool) -> i32 {
    if last {
        w.feed
    } else {
        w.feed - w.feed_risk
    }
}

/// A kind's points (R7.1).
fn point_value(kind: usize) -> i32 {
    KIND_POINTS[kind]
}

/// R5.2 (short): all of the led class plus the N − |S| other cards that `price` ranks lowest
/// (of equal prices, the lower kind first).
fn fill(f: &Follow, price: impl Fn(usize) -> i32) -> Counts {
    let mut x = f.s;
    let mut need = f.n - f.s_size;
    let mut used = 0u64; // kinds already taken
    while need > 0 {
        let mut cheapest: Option<(i32, usize)> = None;
        for k in 0..KINDS {
            if f.hand[k] > f.s[k] && used & 1 << k == 0 && cheapest.is_none_or(|c| (price(k), k) < c) {
                cheapest = Some((price(k), k));
            }
        }
        let Some((_, k)) = cheapest else { break };
        used |= 1 << k;
        let take = (f.hand[k] - x[k]).min(need);
        x[k] += take;
        need -= take;
    }
    x
}

/// A void follower's cheapest trump combination of the lead's shape that beats the trick.
fn cheapest_ruff(pos: &SeatView, f: &Follow, w: &Weights) -> Option<Counts> {
    let ctx = pos.ctx();
    let hand = &f.hand;
    let mut best: Option<(i32, Counts)> = None;
    let mut consider = |c: Combo| {
        if c.m == f.lead.m && c.k == f.lead.k && c.is_trump() {
            let x = c.counts(ctx);
            if wins(pos, &f.lead, &x) {
                let v = cost(w, ctx, &x);
                if best.as_ref().is_none_or(|b| v < b.0) {
                    best = Some((v, x));
                }
            }
        }
    };
    if f.lead.k == 1 {
        for &k in ctx.class_kinds(TRUMP) {
            if hand[k as usize] >= f.lead.m {
                consider(crate::rules::combo::unit(ctx, k, f.lead.m));
            }
        }
    } else {
        crate::rules::combo::for_each_tractor(ctx, TRUMP, hand, f.lead.m, f.lead.k, f.lead.k, |first, k| {
            consider(crate::rules::combo::tractor(ctx, first, f.lead.m, k))
        });
    }
    best.map(|b| b.1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::hand::Game;
    use crate::rules::combo::for_each_lead_shape;
    use crate::rules::profile::Profile;

    /// `lead` as it was written before the units were ranked from masks: every lead of
    /// `for_each_lead_shape`, class by class in lead order, the last of the greatest kept.
    fn lead_in_order(pos: &SeatView, w: &Weights) -> Action {
        let ctx = pos.ctx();
        let hand = pos.hand();
        let lead_value = LeadValue::of(ctx, hand, w);
        let value = |c: &Combo| if c.k >= 2 { lead_value.tractor(c) } else { lead_value.unit(c.first, c.m, c.is_trump()) };
        let mut best: Option<(i32, std::cmp::Reverse<u8>, u8, Combo)> = None;
        for class in 0..5u8 {
            for_each_lead_shape(ctx, hand, class, |first, m, k| {
                let c = crate::rules::combo::of_shape(ctx, first, m, k);
                let key = (value(&c), std::cmp::Reverse(first), m, c);
                if best.is_none_or(|b| (key.0, key.1, key.2) >= (b.0, b.1, b.2)) {
                    best = Some(key);
                }
            });
        }
        Action::Play(best.expect("a hand to lead from").3.counts(ctx))
    }

    /// The leads ranked from masks against the plain order, on every lead of random hands of
    /// every profile and several levels, with greedy's weights and with small weights that
    /// make many ranks equal (units against tractors up from the same kind included).
    #[test]
    fn leads_ranked_from_masks_match_the_lead_order() {
        let mut rng = Rng::new(17);
        let mut leads = 0;
        for profile in Profile::ALL {
            for (i, level) in [3u8, 7, 14, 12, 10].into_iter().enumerate() {
                for seed in 0..12u64 {
                    let mut g = Game::deal_fast(seed * 7 + i as u64, profile, [level, level], NOBODY);
                    let mut seats: [Rng; 4] = std::array::from_fn(|p| Rng::new(seed + 100 * p as u64));
                    while matches!(g.pos.phase, Phase::Declare | Phase::Play) {
                        let view = SeatView::of_game(&g);
                        if view.phase() == Phase::Play && view.lead().is_none() {
                            for t in 0..6 {
                                let mut w = Weights::GREEDY;
                                if t > 0 {
                                    let mut small = |lo: i32, hi: i32| lo + rng.below_usize((hi - lo + 1) as usize) as i32;
                                    w.keep_left = small(0, 30);
                                    (w.ace, w.ace_size, w.pair, w.pair_size) = (small(-3, 3), small(-2, 2), small(-3, 3), small(-2, 2));
                                    (w.tractor, w.tractor_size, w.tractor_trump) = (small(-3, 3), small(-2, 2), small(-3, 3));
                                    (w.single, w.unit, w.unit_size, w.lead_points) = (small(-3, 3), small(-3, 3), small(-2, 2), small(-1, 1));
                                    (w.trump_keep, w.trump_strength) = (small(-3, 3), small(-1, 1));
                                }
                                assert_eq!(lead(&view, &w), lead_in_order(&view, &w), "{} seed {seed} level {level} weights {w:?}", profile.name());
                                leads += 1;
                            }
                        }
                        let seat = g.pos.to_move as usize;
                        let a = crate::agent::random::act(&view, &mut seats[seat]);
                        g.pos_apply(&a);
                    }
                }
            }
        }
        assert!(leads > 10_000, "leads compared: {leads}");
    }
}
