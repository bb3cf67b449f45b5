//! The showings' timing (step 3 of the sampler, R8.1–R8.2, D7, C9): where each other seat's
//! level cards (and, under C9, small jokers) lie among its deal positions, the suits of the
//! hidden runs, and the exact weights of the revealed run and of single early showings (the
//! decks of a dealt world are `arrange.rs`'s).

use crate::game::deal::positions;
use crate::game::hand::NOBODY;
use crate::infoset::info::{InfoSet, Run};
use crate::rules::card::{Card, Counts, DECK, SJ};
use crate::util::rng::Rng;
use super::early_runs::{self, CanShow};
use super::holders::Holder;

/// Where each other seat's level cards lie among its dealt positions in the current attempt,
/// and a suit for each showing run: step 3's timing, decided on the level cards alone.
#[derive(Clone, Debug)]
pub struct LevelPlan {
    /// (deck position, kind) of every level card of the other seats dealt so far.
    pub(super) placed: Vec<(u8, u8)>,
    pub(super) suits: Vec<u8>,
}

impl LevelPlan {
    pub(super) fn new(placed: Vec<(u8, u8)>, suits: Vec<u8>) -> LevelPlan {
        LevelPlan { placed, suits }
    }
    pub(super) fn placed(&self) -> &[(u8, u8)] {
        &self.placed
    }
    pub(super) fn suits(&self) -> &[u8] {
        &self.suits
    }
}

/// Places the other seats' level cards (their hands now plus their plays) uniformly over
/// their dealt positions and checks every showing run against them (R8.1, D7); a run whose
/// suit is hidden takes one uniformly among those that fit. `None`: the timing rejects.
///
/// With `revealed` (the counting programme already weighted the final declarer's copies of the
/// trump level card by how often their timing fits), those copies are placed uniformly among
/// the placements that fit, and that run is not checked again.
///
/// With `jokers` (C9, weighted likewise), each such shower's small jokers are placed first,
/// uniformly among the placements that put one before its first showing.
#[allow(clippy::too_many_arguments)]
pub(super) fn level_plan(
    info: &InfoSet,
    holders: &[Holder],
    alloc: &[Counts],
    revealed: Option<&Revealed>,
    jokers: &[OneEarly],
    level_fit: Option<&OneEarly>,
    (fixed, taken): (&[(u8, u8)], &[u8]),
    rng: &mut Rng,
) -> Option<LevelPlan> {
    let attempt = info.first_seats.len() - 1;
    let first = info.first_seats[attempt];
    let dealt = info.dealt as usize;
    // the runs' suits: the seat's own and the revealed one are known; each other run's is
    // drawn once its seat's level cards are placed (a run reads only its seat's cards)
    let mut suits = vec![0u8; info.runs.len()];
    let drawn = |ri: usize, run: &Run| !(run.seat == info.seat || (revealed.is_some() && ri + 1 == info.runs.len()));
    for (ri, run) in info.runs.iter().enumerate() {
        if !drawn(ri, run) {
            suits[ri] = run.suit.expect("the seat's own suits and the revealed run's are known");
        }
    }
    // at most 16 level cards (R8.1: four kinds of four copies) and 4 small jokers; a seat has
    // at most 54 positions
    let joker = small_joker_timed(info);
    let mut placed = Vec::with_capacity(20);
    placed.extend_from_slice(fixed);
    for (hi, (h, a)) in holders.iter().zip(alloc).enumerate() {
        if h.seat == NOBODY {
            continue;
        }
        // the seat's deal positions, in a fixed array (this runs once per proposal), but for
        // those the windows filled
        let mut slots = [0u8; DECK / 4 + 1];
        let mut len = 0usize;
        // (the filter only where there are windows: it costs the plain loop its speed)
        let mut push = |t: usize| {
            slots[len] = t as u8;
            len += 1;
        };
        if taken.is_empty() {
            positions(first, h.seat, dealt).for_each(&mut push);
        } else {
            positions(first, h.seat, dealt).filter(|&t| !taken.contains(&(t as u8))).for_each(&mut push);
        }
        let fixed_of = |k: u8| fixed.iter().filter(|&&(t, x)| x == k && (first + t) % 4 == h.seat).count() as u8;
        let weighted = jokers.iter().find(|j| j.holder == hi);
        if let Some(j) = weighted {
            // its small jokers first, one at least among its first `before` places (slots are
            // in deal order here): uniform among those placements, by rejection of this step
            // alone (the counting programme weighted the count by their share)
            let m = (a[SJ.id()] + j.played) as usize;
            if j.fit[m] == 0 {
                return None; // no placement fits (only where the kind is not drawn: never weighted)
            }
            place_fitting(&mut slots, &mut len, &[SJ.0; 4][..m], |pick| pick.iter().any(|&p| p < j.before), &mut placed, rng);
        }
        if let Some(r) = revealed.filter(|r| r.holder == hi) {
            // slot indices (into this seat's positions) that fit the revealed showings
            let m = (a[r.kind as usize] + r.played) as usize;
            if r.fit[m] == 0 {
                return None; // as above
            }
            let fits = |pick: &[u8]| r.showings.iter().all(|&(j, k)| pick.iter().filter(|&&p| p < j).count() >= k as usize);
            place_fitting(&mut slots, &mut len, &[r.kind; 4][..m], fits, &mut placed, rng);
        }
        if let Some(lf) = level_fit.filter(|lf| lf.holder == hi) {
            // all its level cards at once, one at least among its first `before` places
            let mut cards = [0u8; 16];
            let mut m = 0;
            for suit in 0..4u8 {
                let k = Card::new(suit, info.level).0;
                for _ in 0..a[k as usize] + info.played[h.seat as usize][k as usize] {
                    cards[m] = k;
                    m += 1;
                }
            }
            if lf.fit[m] == 0 {
                return None;
            }
            place_fitting(&mut slots, &mut len, &cards[..m], |pick| pick.iter().any(|&p| p < lf.before), &mut placed, rng);
        }
        for suit in 0..4u8 {
            let k = Card::new(suit, info.level).0;
            if revealed.is_some_and(|r| r.holder == hi && r.kind == k) || level_fit.is_some_and(|lf| lf.holder == hi) {
                continue;
            }
            place_uniform(&mut slots, &mut len, k, a[k as usize] + info.played[h.seat as usize][k as usize] - fixed_of(k), &mut placed, rng);
        }
        if joker && weighted.is_none() && revealed.is_none_or(|r| r.holder != hi) {
            // C9: its small jokers too, uniformly over the places left; each of its runs began
            // with one among the cards it had received (positions before the run's first showing).
            // (The revealed run's declarer's are left to the replay: with the counting programme
            // weighting its level cards, rejecting here would make one draw's tries run out where
            // a world's plays are rare.)
            let k = SJ.0;
            place_uniform(&mut slots, &mut len, k, a[k as usize] + info.played[h.seat as usize][k as usize] - fixed_of(k), &mut placed, rng);
            let had_one = |t: u8| placed.iter().any(|&(p, kind)| kind == k && p < t && (first + p) % 4 == h.seat);
            if !info.runs.iter().filter(|r| r.seat == h.seat && r.attempt as usize == attempt).all(|r| had_one(r.showings[0].0)) {
                return None;
            }
        }
        // this seat's runs: a suit among those its placed cards fit (R8.1, D7), else reject
        for (ri, run) in info.runs.iter().enumerate().filter(|(ri, r)| r.seat == h.seat && drawn(*ri, r)) {
            debug_assert_eq!(run.attempt as usize, attempt, "earlier attempts had no showings (R8.5)");
            let run_first = info.first_seats[run.attempt as usize];
            let held_by = |suit: u8, t: u8| -> u8 {
                let kind = Card::new(suit, info.level).0;
                placed
                    .iter()
                    .filter(|&&(p, k)| k == kind && (p as usize) < t as usize && (run_first + p) % 4 == run.seat)
                    .count() as u8
            };
            let ok = |suit: u8| run.showings.iter().all(|&(t, k)| held_by(suit, t) >= k);
            let mut feasible = [0u8; 4];
            let mut nf = 0;
            let candidates = match run.suit {
                Some(s) => s..s + 1,
                None => 0..4,
            };
            for s in candidates.filter(|&s| ok(s)) {
                feasible[nf] = s;
                nf += 1;
            }
            if nf == 0 {
                return None;
            }
            suits[ri] = feasible[rng.below_usize(nf)];
        }
    }
    // Mid-deal, with another seat deciding: the deal stopped there, so that seat can show
    // (R8.1, D7) in the world too; the replay would reject it later, this rejects it early
    // (where the windows drew its hand, it always can).
    if let Some((seat, can)) = early_runs::decider(info) {
        let held = |suit: u8| {
            let kind = Card::new(suit, info.level).0;
            placed.iter().filter(|&&(p, k)| k == kind && (first as usize + p as usize) % 4 == seat as usize).count() as u8
        };
        let can = match can {
            CanShow::Any(k) => (0..4).any(|s| held(s) >= k),
            CanShow::Own(k) => info.runs.iter().rposition(|r| r.seat == seat).is_some_and(|i| held(suits[i]) >= k),
        };
        if !can {
            return None;
        }
    }
    Some(LevelPlan { placed, suits })
}

/// Places `n` copies of `kind` on slots of one seat (`slots[..len]`), each uniformly among
/// those left (the slots' order is not kept).
pub(super) fn place_uniform(slots: &mut [u8; DECK / 4 + 1], len: &mut usize, kind: u8, n: u8, placed: &mut Vec<(u8, u8)>, rng: &mut Rng) {
    for _ in 0..n {
        let i = rng.below_usize(*len);
        placed.push((slots[i], kind));
        *len -= 1;
        slots[i] = slots[*len];
    }
}

/// Places `cards` (at most 16) on slots of one seat (`slots[..len]`, in deal order): the
/// ordered choice of slot indices uniform among those `fits` accepts (by rejection of this step
/// alone: the counting programme weighted the count by their share), card i on the i-th chosen
/// slot; the chosen slots are removed, keeping the order of the rest. Some choice must fit (the
/// callers check the share first), else this would not return.
pub(super) fn place_fitting(
    slots: &mut [u8; DECK / 4 + 1],
    len: &mut usize,
    cards: &[u8],
    fits: impl Fn(&[u8]) -> bool,
    placed: &mut Vec<(u8, u8)>,
    rng: &mut Rng,
) {
    let m = cards.len();
    let mut pick = [0u8; 16];
    loop {
        let mut idx = [0u8; DECK / 4 + 1];
        for (i, x) in idx.iter_mut().enumerate().take(*len) {
            *x = i as u8;
        }
        let mut left = *len;
        for p in pick.iter_mut().take(m) {
            let i = rng.below_usize(left);
            *p = idx[i];
            left -= 1;
            idx[i] = idx[left];
        }
        if fits(&pick[..m]) {
            break;
        }
    }
    let mut by_slot = [(0u8, 0u8); 16];
    for (x, (&p, &k)) in by_slot.iter_mut().zip(pick[..m].iter().zip(cards)) {
        *x = (p, k);
    }
    // removed from the highest slot index down
    by_slot[..m].sort_unstable_by_key(|x| std::cmp::Reverse(x.0));
    for &(p, k) in &by_slot[..m] {
        placed.push((slots[p as usize], k));
        slots.copy_within(p as usize + 1..*len, p as usize);
        *len -= 1;
    }
}

/// The kinds [`level_plan`] places: the level cards (R8.1), and the small jokers under C9.
pub(super) fn plan_kinds(info: &InfoSet) -> Vec<u8> {
    let mut v: Vec<u8> = (0..4).map(|s| Card::new(s, info.level).0).collect();
    if small_joker_timed(info) {
        v.push(SJ.0);
    }
    v
}

/// C9 applies: a competition match's first hand, dealt, where every run began with a small joker
/// in the shower's hand; the small jokers' places are then evidence like the level cards'.
pub(super) fn small_joker_timed(info: &InfoSet) -> bool {
    info.dealt_hand && info.profile.rules().first_hand_small_joker && info.start_banker == NOBODY
}

/// Evidence that one other seat held, among its cards dealt before some time, at least one of
/// its m copies of a set of kinds (m counted with the copies it has played since): a function
/// of m alone, weighted into the counting programme by the share of placements of m cards over
/// its n dealt positions that put one among the first `before`. Two uses:
/// - C9, [`joker_fits`]: a shower's small jokers before its first showing (a run needs one
///   when it begins, and nothing leaves a hand while dealing), per kind;
/// - [`level_fit`]: a hidden run of a single one-card showing needs one level card, of any
///   suit, before it (R8.1): the seat's level cards in all, applied once the timed kinds (the
///   level cards) are placed.
#[derive(Clone, Debug)]
pub(super) struct OneEarly {
    pub(super) holder: usize,
    /// Copies the seat has played since.
    pub(super) played: u8,
    /// Its positions dealt before the time.
    pub(super) before: u8,
    /// `fit[m]` = P(one of m among the first `before` | m) · n!/(n − mmax)!, exact integers
    /// (below 2^93 for n ≤ 54 and mmax ≤ 16); zero beyond mmax.
    pub(super) fit: [u128; 17],
}

impl OneEarly {
    fn new(holder: usize, played: u8, n: usize, before: usize, mmax: usize) -> OneEarly {
        // P(none early | m) · D = Π_{i<m} (n − before − i) · Π_{m ≤ i < mmax} (n − i), with
        // D = Π_{i<mmax} (n − i); a factor below zero makes its term zero (m cards cannot all
        // miss the first `before` places when fewer than m others exist)
        let fall = |from: usize, lo: usize, hi: usize| -> u128 { (lo..hi).map(|i| from.saturating_sub(i) as u128).product() };
        let mmax = mmax.min(n);
        let d = fall(n, 0, mmax);
        let mut fit = [0u128; 17];
        for (m, f) in fit.iter_mut().enumerate().take(mmax + 1) {
            *f = d - fall(n - before, 0, m) * fall(n, m, mmax);
        }
        OneEarly { holder, played, before: before as u8, fit }
    }
}

/// C9's evidence: each other shower's small jokers (not the revealed run's declarer's, whose
/// level cards are weighted already: the two would not be independent).
pub(super) fn joker_fits(info: &InfoSet, holders: &[Holder], revealed: Option<&Revealed>) -> Vec<OneEarly> {
    let attempt = info.first_seats.len() - 1;
    let first = info.first_seats[attempt];
    let mut v = Vec::new();
    for (hi, h) in holders.iter().enumerate() {
        if h.seat == NOBODY || revealed.is_some_and(|r| r.holder == hi) {
            continue;
        }
        let Some(t0) = info.runs.iter().filter(|r| r.seat == h.seat && r.attempt as usize == attempt).map(|r| r.showings[0].0).min() else {
            continue;
        };
        let n = positions(first, h.seat, info.dealt as usize).count();
        let before = positions(first, h.seat, t0 as usize).count();
        v.push(OneEarly::new(hi, info.played[h.seat as usize][SJ.id()], n, before, 4));
    }
    v
}

/// The first other seat (not the revealed run's, and not under C9, whose small jokers share its
/// early places) whose only run is one hidden one-card showing: its level cards in all. One seat
/// at most: the weights of several would outgrow the counting programme's integers.
pub(super) fn level_fit(info: &InfoSet, holders: &[Holder], revealed: Option<&Revealed>) -> Option<OneEarly> {
    let attempt = info.first_seats.len() - 1;
    let first = info.first_seats[attempt];
    for (hi, h) in holders.iter().enumerate() {
        if h.seat == NOBODY || revealed.is_some_and(|r| r.holder == hi) {
            continue;
        }
        let runs: Vec<&Run> = info.runs.iter().filter(|r| r.seat == h.seat && r.attempt as usize == attempt).collect();
        let [run] = runs.as_slice() else { continue };
        let [(t, 1)] = run.showings.as_slice() else { continue };
        if run.suit.is_some() {
            continue;
        }
        let n = positions(first, h.seat, info.dealt as usize).count();
        let before = positions(first, h.seat, *t as usize).count();
        let played = (0..4).map(|s| info.played[h.seat as usize][Card::new(s, info.level).id()]).sum();
        return Some(OneEarly::new(hi, played, n, before, 16));
    }
    None
}

/// The final declarer's revealed run (R8.2) in the current attempt: the share of placements
/// of its copies of the trump level card that fit the run's timing, as integer weights.
#[derive(Clone, Debug)]
pub(super) struct Revealed {
    /// Index of the declarer among the holders.
    pub(super) holder: usize,
    pub(super) kind: u8,
    /// Copies of the kind the declarer has played since.
    pub(super) played: u8,
    /// (the declarer's positions dealt before the showing, count) per showing.
    pub(super) showings: Vec<(u8, u8)>,
    /// `fit[m]` ∝ (placements of m copies that fit) / (all placements of m copies).
    pub(super) fit: [u128; 5],
}

pub(super) fn gcd(a: u128, b: u128) -> u128 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

impl Revealed {
    pub(super) fn of(info: &InfoSet, holders: &[Holder]) -> Option<Revealed> {
        let run = info.runs.last()?;
        let suit = run.suit?;
        let attempt = info.first_seats.len() - 1;
        if run.seat == info.seat || run.attempt as usize != attempt || info.phase == crate::game::hand::Phase::Declare {
            return None;
        }
        let holder = holders.iter().position(|h| h.seat == run.seat)?;
        let first = info.first_seats[attempt];
        let n = positions(first, run.seat, info.dealt as usize).count();
        let showings: Vec<(u8, u8)> =
            run.showings.iter().map(|&(t, k)| (positions(first, run.seat, t as usize).count() as u8, k)).collect();
        // ways[c]: subsets of the positions so far with c copies that meet every boundary passed
        let mut ways = [0u128; 5];
        ways[0] = 1;
        for p in 0..=n {
            for &(j, k) in &showings {
                if j as usize == p {
                    for w in ways.iter_mut().take(k as usize) {
                        *w = 0;
                    }
                }
            }
            if p < n {
                for c in (1..5).rev() {
                    ways[c] += ways[c - 1];
                }
            }
        }
        let choose = |m: usize| -> u128 { (0..m).fold(1u128, |acc, i| acc * (n - i) as u128 / (i as u128 + 1)) };
        let mut lcm = 1u128;
        for m in 0..=4.min(n) {
            let c = choose(m);
            lcm = lcm / gcd(lcm, c) * c;
        }
        let mut fit = [0u128; 5];
        for m in 0..=4.min(n) {
            fit[m] = ways[m] * (lcm / choose(m));
        }
        let kind = Card::new(suit, info.level).0;
        Some(Revealed { holder, kind, played: info.played[run.seat as usize][kind as usize], showings, fit })
    }
}
