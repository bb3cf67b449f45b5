//! Brute-force twin of the follow ladder (docs/rules.md R5.2–R5.4) and table tests of docs/rules.md §2–§6.
//!
//! The oracle (`common/oracle.rs`) is written from `docs/rules.md` alone: its own suit
//! classes, its own link predicate, its own "one combination" test and a brute-force
//! enumeration of every N-card selection. The fast code (`Follow`, `LegalSet`) must agree
//! with it on the legal set, its count, `nth`, `sample`, `is_legal` and `completions`.

use crate::common::{oracle, oracle_comp};

use std::collections::HashSet;
use std::time::Instant;

use tractor_core::rules::card::{cards_of, counts_of, format, parse, Card, Counts, KINDS};
use tractor_core::rules::checked::check_follow;
use tractor_core::{classify, legal_leads, trick_winner, Case, Context, Error, Follow, Profile, Rng};

// ---------------------------------------------------------------------------------------
// helpers

fn c(text: &str) -> Counts {
    counts_of(&parse(text).unwrap()).unwrap()
}

fn fmt(x: &Counts) -> String {
    format(&cards_of(x))
}

fn ctx(level: u8, trump: u8, profile: Profile) -> Context {
    Context::new(level, trump, profile).unwrap()
}

fn size(x: &Counts) -> usize {
    x.iter().map(|&v| v as usize).sum()
}

fn rank_name(r: u8) -> String {
    match r {
        11 => "J".into(),
        12 => "Q".into(),
        13 => "K".into(),
        14 => "A".into(),
        n => n.to_string(),
    }
}

fn describe(level: u8, trump: u8, profile: Profile, hand: &Counts, lead: &Counts) -> String {
    format!(
        "level {} ({}), trump {}, profile {}, hand [{}], lead [{}]",
        level,
        rank_name(level),
        ['s', 'h', 'd', 'c'][trump as usize],
        profile.name(),
        fmt(hand),
        fmt(lead)
    )
}

// ---------------------------------------------------------------------------------------
// the twin's own tables agree with the context (R2.2, R2.5, R3.3)

#[test]
fn r2_5_r3_3_oracle_classes_and_links_match_context() {
    for level in 3..=14u8 {
        for trump in 0..4u8 {
            let t = ctx(level, trump, Profile::Guigang);
            let mut trumps = 0;
            for a in 0..54u8 {
                assert_eq!(t.class[a as usize], oracle::class(a, level, trump), "R2.5 class of {} at level {level} trump {trump}", Card(a));
                trumps += (oracle::class(a, level, trump) == oracle::TRUMP) as usize;
                for b in 0..54u8 {
                    assert_eq!(
                        t.linked(Card(a), Card(b)),
                        oracle::linked(a, b, level, trump),
                        "R3.3 link {}–{} at level {level} trump {trump}",
                        Card(a),
                        Card(b)
                    );
                }
            }
            assert_eq!(trumps * 4, 84, "R2.2: 84 trumps");
        }
    }
}

#[test]
fn c1_oracle_links_match_competition_context() {
    for level in 3..=14u8 {
        for trump in 0..4u8 {
            let t = ctx(level, trump, Profile::Competition);
            for a in 0..54u8 {
                for b in 0..54u8 {
                    assert_eq!(
                        t.linked(Card(a), Card(b)),
                        oracle_comp::linked(a, b, level, trump),
                        "C1 link {}–{} at level {level} trump {trump}",
                        Card(a),
                        Card(b)
                    );
                }
            }
        }
    }
}

// ---------------------------------------------------------------------------------------
// random positions

struct Gen {
    rng: Rng,
}

impl Gen {
    fn below(&mut self, n: usize) -> usize {
        self.rng.below_usize(n)
    }
    fn chance(&mut self, num: usize, den: usize) -> bool {
        self.below(den) < num
    }
    fn pick<T: Copy>(&mut self, v: &[T]) -> T {
        v[self.below(v.len())]
    }
    /// Multiplicity 1..=4, weighted toward pairs and triples.
    fn mult(&mut self) -> u8 {
        self.pick(&[1, 2, 2, 2, 3, 3, 4, 4])
    }
    fn level(&mut self) -> u8 {
        match self.below(10) {
            0 | 1 => 3,
            2 | 3 => 14,
            _ => 3 + self.below(12) as u8,
        }
    }

    /// A run of linked kinds of `class` (walking the oracle's own links), 2..=5 long.
    fn run(&mut self, class: u8, level: u8, trump: u8) -> Vec<u8> {
        let kinds: Vec<u8> = (0..54u8).filter(|&k| oracle::class(k, level, trump) == class).collect();
        let start = self.pick(&kinds);
        let len = 2 + self.below(4);
        let mut run = vec![start];
        while run.len() < len {
            let last = *run.last().unwrap();
            let next: Vec<u8> =
                (0..54u8).filter(|&k| !run.contains(&k) && oracle::linked(last, k, level, trump)).collect();
            if next.is_empty() {
                break;
            }
            run.push(self.pick(&next));
        }
        run
    }

    /// Structured kinds of the trump class: jokers, runs through A–2 and through 正L, 副L, 副2.
    fn special(&mut self, level: u8, trump: u8) -> Vec<u8> {
        let t = |r: u8| oracle::kind(trump, r);
        match self.below(6) {
            0 => vec![oracle::SJ, oracle::BJ],
            1 => {
                let w: [&[u8]; 5] = [&[14, 2], &[13, 14, 2], &[14, 2, 3], &[13, 14, 2, 3], &[12, 13, 14, 2]];
                self.pick(&w).iter().map(|&r| t(r)).collect()
            }
            2 => {
                let (p, n) = (oracle::cycle_prev(level), oracle::cycle_next(level));
                let w: [Vec<u8>; 3] = [vec![p, level], vec![level, n], vec![p, level, n]];
                w[self.below(3)].iter().map(|&r| t(r)).collect()
            }
            3 => {
                // 副L of one or two other suits
                let suits: Vec<u8> = (0..4).filter(|&s| s != trump).collect();
                let a = self.pick(&suits);
                let b = self.pick(&suits);
                vec![oracle::kind(a, level), oracle::kind(b, level)]
            }
            4 => {
                let suits: Vec<u8> = (0..4).filter(|&s| s != trump).collect();
                let a = self.pick(&suits);
                let b = self.pick(&suits);
                vec![oracle::kind(a, 2), oracle::kind(b, 2)]
            }
            _ => {
                // the trump-suit 2 and 3: at level 3 the 2233 tractor
                vec![t(2), t(3)]
            }
        }
    }

    /// Adds structured groups of `class` to `x` (within `cap`) until it holds `target` cards of it.
    fn fill_class(&mut self, x: &mut Counts, cap: &Counts, class: u8, level: u8, trump: u8, target: usize) {
        let in_class = |x: &Counts| (0..54u8).filter(|&k| oracle::class(k, level, trump) == class).map(|k| x[k as usize] as usize).sum::<usize>();
        let mut guard = 0;
        while in_class(x) < target && guard < 200 {
            guard += 1;
            let kinds: Vec<u8> = match self.below(10) {
                0..=3 => self.run(class, level, trump),
                4 | 5 if class == oracle::TRUMP => self.special(level, trump),
                _ => {
                    let all: Vec<u8> = (0..54u8).filter(|&k| oracle::class(k, level, trump) == class).collect();
                    vec![self.pick(&all)]
                }
            };
            let same = self.chance(2, 3);
            let m = self.mult().max(2);
            for k in kinds {
                let want = if same { m } else { self.mult() };
                let k = k as usize;
                x[k] = (x[k] + want).min(cap[k]).max(x[k]);
            }
        }
        // trim back to the target, one random card at a time
        while in_class(x) > target {
            let held: Vec<usize> =
                (0..54).filter(|&k| x[k] > 0 && oracle::class(k as u8, level, trump) == class).collect();
            let k = self.pick(&held);
            x[k] -= 1;
        }
    }

    /// Adds `target` cards of `class` to `x`, each a new kind while kinds last.
    fn fill_sparse(&mut self, x: &mut Counts, cap: &Counts, class: u8, level: u8, trump: u8, target: usize) {
        let kinds: Vec<usize> = (0..54).filter(|&k| oracle::class(k as u8, level, trump) == class).collect();
        let mut left = target;
        let mut guard = 0;
        while left > 0 && guard < 500 {
            guard += 1;
            let k = self.pick(&kinds);
            if x[k] < cap[k] && (x[k] == 0 || guard > 100) {
                x[k] += 1;
                left -= 1;
            }
        }
    }

    /// Adds `n` random cards outside `class` (within `cap`), often as pairs.
    fn fill_off(&mut self, x: &mut Counts, cap: &Counts, class: u8, level: u8, trump: u8, n: usize) {
        let kinds: Vec<usize> = (0..54).filter(|&k| oracle::class(k as u8, level, trump) != class).collect();
        let mut left = n;
        let mut guard = 0;
        while left > 0 && guard < 500 {
            guard += 1;
            let k = self.pick(&kinds);
            let want = (self.pick(&[1u8, 1, 2, 2, 3]) as usize).min(left);
            let add = want.min((cap[k] - x[k]) as usize);
            x[k] += add as u8;
            left -= add;
        }
    }
}

struct Position {
    level: u8,
    trump: u8,
    profile: Profile,
    hand: Counts,
    lead: Counts,
}

/// Bound on the brute-force enumeration of one position.
const CAP: u128 = 60_000;
/// Above this many N-card selections of the whole hand, `is_legal` is checked on every
/// selection of the led class plus random selections of the hand.
const CAP_HAND: u128 = 8_000;

/// A trump lead against a follower who holds at least two of every trump-suit kind: the
/// unbroken 13-cycle of R3.3, so the ladder's tractors may run through A–2 anywhere.
/// The nanning leads are real (jokers, a 副L bomb); the guigang one (a 3-triple tractor) is a
/// lead no real deal gives against this hand, but the follow rule does not read the lead's kinds.
fn gen_cycle(g: &mut Gen, profile: Profile) -> Option<Position> {
    let level = g.level();
    let trump = g.below(4) as u8;
    let mut hand = [0u8; KINDS];
    for r in 2..=14u8 {
        hand[oracle::kind(trump, r) as usize] = 2;
    }
    for _ in 0..g.below(3) {
        let r = 2 + g.below(13) as u8;
        hand[oracle::kind(trump, r) as usize] += 1;
    }
    if g.chance(1, 3) {
        hand[oracle::SJ as usize] = 1 + g.below(2) as u8;
    }
    let mut lead = [0u8; KINDS];
    let other = (trump + 1 + g.below(3) as u8) % 4;
    match profile {
        Profile::Guigang => {
            let r = 2 + g.below(13) as u8;
            for rr in [r, oracle::cycle_next(r), oracle::cycle_next(oracle::cycle_next(r))] {
                lead[oracle::kind(trump, rr) as usize] = 3;
            }
        }
        Profile::Competition => match g.below(3) {
            // C1: the follower's trump suit is a path 2…A, every kind held twice or more; a
            // 2-triple lead it can rarely answer in shape (E), so L counts its pair tractors
            0 => {
                lead[oracle::SJ as usize] = 3;
                lead[oracle::BJ as usize] = 3;
            }
            1 => lead[oracle::kind(other, level) as usize] = 4,
            _ => {
                let r = 2 + g.below(12) as u8; // r, r+1 ≤ A, no wrap
                for rr in [r, r + 1] {
                    lead[oracle::kind(trump, rr) as usize] = 3;
                }
            }
        },
        Profile::Nanning => match g.below(6) {
            0..=2 => lead[oracle::kind(other, level) as usize] = 4,
            3 | 4 => {
                lead[oracle::SJ as usize] = 3;
                lead[oracle::BJ as usize] = 3;
            }
            _ => {
                lead[oracle::SJ as usize] = 4;
                lead[oracle::BJ as usize] = 4;
            }
        },
    }
    if g.chance(1, 2) {
        let k = oracle::kind(other, 3 + g.below(11) as u8) as usize;
        if oracle::class(k as u8, level, trump) != oracle::TRUMP {
            hand[k] += 1;
        }
    }
    let s: Counts = std::array::from_fn(|k| if oracle::class(k as u8, level, trump) == oracle::TRUMP { hand[k] } else { 0 });
    let n = size(&lead);
    if oracle::count_multisets(&s, n) > 4 * CAP {
        return None;
    }
    Some(Position { level, trump, profile, hand, lead })
}

fn gen_position(g: &mut Gen, profile: Profile) -> Option<Position> {
    if g.chance(1, if profile == Profile::Guigang { 300 } else { 150 }) {
        return gen_cycle(g, profile);
    }
    let level = g.level();
    let trump = g.below(4) as u8;
    let t = ctx(level, trump, profile);
    let plain: Vec<u8> = (0..4).filter(|&s| s != trump).collect();
    let class = if g.chance(1, 2) { oracle::TRUMP } else { g.pick(&plain) };

    // the leader: structured groups of the class, each of one multiplicity, so that long
    // tractors are common; the lead is one of its legal leads
    let mut leader = [0u8; KINDS];
    for _ in 0..1 + g.below(3) {
        let kinds = if class == oracle::TRUMP && g.chance(1, 3) { g.special(level, trump) } else { g.run(class, level, trump) };
        let m = g.pick(&[2u8, 2, 3, 4]);
        for k in kinds {
            leader[k as usize] = leader[k as usize].max(m);
        }
    }
    let extra = g.below(6);
    g.fill_off(&mut leader, &[4; KINDS], 9, level, trump, extra); // any class
    let leads: Vec<_> = legal_leads(&t, &leader).into_iter().filter(|l| l.size() <= 12).collect();
    let in_class: Vec<_> = leads.iter().copied().filter(|l| l.class == class).collect();
    let pool = if !in_class.is_empty() && g.chance(9, 10) { in_class } else { leads };
    if pool.is_empty() {
        return None;
    }
    // pick a size first (so long leads are common), then a lead of that size
    let mut sizes: Vec<usize> = pool.iter().map(|l| l.size()).collect();
    sizes.sort_unstable();
    sizes.dedup();
    let big: Vec<usize> = sizes.iter().copied().filter(|&n| n >= 4).collect();
    let n = if !big.is_empty() && g.chance(3, 4) { g.pick(&big) } else { g.pick(&sizes) };
    let of_size: Vec<_> = pool.iter().copied().filter(|l| l.size() == n).collect();
    let lead_combo = g.pick(&of_size);
    let lead = lead_combo.counts(&t);
    let lclass = lead_combo.class;

    // the follower, from the copies the lead leaves
    let cap: Counts = std::array::from_fn(|k| 4 - lead[k]);
    let mut hand = [0u8; KINDS];
    let short = g.chance(3, 20);
    let s_target = if short { g.below(n + 1) } else { (n + 1 + g.below(n + 4)).min(24) };
    if g.chance(1, 10) {
        g.fill_sparse(&mut hand, &cap, lclass, level, trump, s_target); // few pairs: T3/T4
    } else {
        g.fill_class(&mut hand, &cap, lclass, level, trump, s_target);
    }
    let in_lclass = |k: usize| oracle::class(k as u8, level, trump) == lclass;
    let s_size: usize = (0..54).filter(|&k| in_lclass(k)).map(|k| hand[k] as usize).sum();
    let min_total = 8.max(n);
    let off = if short { min_total.saturating_sub(s_size) + g.below(4) } else { g.below(9) };
    g.fill_off(&mut hand, &cap, lclass, level, trump, off);
    let total = size(&hand);
    if total < n || total > 30 {
        return None;
    }
    // keep brute force fast
    let s: Counts = std::array::from_fn(|k| if in_lclass(k) { hand[k] } else { 0 });
    let work = if s_size > n {
        oracle::count_multisets(&s, n)
    } else {
        let rest: Counts = std::array::from_fn(|k| hand[k] - s[k]);
        oracle::count_multisets(&rest, n - s_size)
    };
    if work > CAP {
        return None;
    }
    Some(Position { level, trump, profile, hand, lead })
}

// ---------------------------------------------------------------------------------------
// one position: the fast code against the oracle

#[derive(Default, Debug)]
struct Stats {
    positions: usize,
    short: usize,
    t1: usize,
    ladder_tractor: usize,
    ladder_pairs: usize,
    ladder_free: usize,
    trump_leads: usize,
    legal_plays: u128,
    is_legal_checks: usize,
    completions: usize,
    failures: usize,
    /// Disagreements by what was compared.
    by_check: std::collections::BTreeMap<&'static str, usize>,
    by_n: [usize; 13],
    work_ladder: usize,
    messages: Vec<String>,
}

impl Stats {
    fn fail(&mut self, check: &'static str, msg: String) {
        self.failures += 1;
        let seen = self.by_check.entry(check).or_insert(0);
        *seen += 1;
        if *seen <= 3 && self.messages.len() < 15 {
            self.messages.push(msg);
        }
    }
}

fn random_subset(rng: &mut Rng, x: &Counts, n: usize) -> Counts {
    let mut cards = cards_of(x);
    for i in (1..cards.len()).rev() {
        let j = rng.below_usize(i + 1);
        cards.swap(i, j);
    }
    let mut out = [0u8; KINDS];
    for card in cards.iter().take(n) {
        out[card.id()] += 1;
    }
    out
}

fn check_position(p: &Position, rng: &mut Rng, stats: &mut Stats) {
    let t = ctx(p.level, p.trump, p.profile);
    let what = describe(p.level, p.trump, p.profile, &p.hand, &p.lead);
    let combo = classify(&t, &p.lead).expect("generated leads are combinations");
    let a = if p.profile == Profile::Competition {
        oracle_comp::Position { level: p.level, trump: p.trump, hand: p.hand, lead: p.lead }.analyse()
    } else {
        oracle::Position { level: p.level, trump: p.trump, t1_any_shape: p.profile == Profile::Guigang, hand: p.hand, lead: p.lead }
            .analyse()
    };
    let a = a.expect("oracle: the lead is one combination");
    if (combo.m, combo.k) != a.shape || combo.class != a.class {
        stats.fail("lead", format!("lead shape/class: fast ({},{}) class {} vs oracle {:?} class {} — {what}", combo.m, combo.k, combo.class, a.shape, a.class));
        return;
    }
    stats.positions += 1;
    stats.by_n[combo.size()] += 1;
    if let oracle::Case::Ladder(v) = &a.case {
        stats.work_ladder += v.len();
    }
    stats.trump_leads += (a.class == oracle::TRUMP) as usize;

    let f = Follow::new(&t, &p.hand, combo);
    match f.case {
        Case::Short => stats.short += 1,
        Case::T1 => stats.t1 += 1,
        Case::Ladder { l, .. } if l > 0 => stats.ladder_tractor += 1,
        Case::Ladder { p, .. } if p > 0 => stats.ladder_pairs += 1,
        Case::Ladder { .. } => stats.ladder_free += 1,
        Case::Key(k) if k.has_tractor() => stats.ladder_tractor += 1,
        Case::Key(k) if k.p > 0 || k.t > 0 => stats.ladder_pairs += 1,
        Case::Key(_) | Case::Unit { .. } => stats.ladder_free += 1,
    }
    if matches!(f.case, Case::Short) != matches!(a.case, oracle::Case::Short) {
        stats.fail("case", format!("fast case {:?}, oracle |S| = {} for N = {} — {what}", f.case, size(&a.s), a.n));
    }

    // the full legal set, its count and nth
    let mut set = f.legal_set(&[0; KINDS]);
    let count = set.count();
    let listed = set.all(u128::MAX).expect("no limit");
    if count != a.legal.len() as u128 || listed.len() as u128 != count {
        stats.fail("count", format!("count: fast count() {count}, all() {} vs oracle {} — {what}", listed.len(), a.legal.len()));
    }
    let nth_rs: Vec<usize> = if listed.len() <= 2000 {
        (0..listed.len()).collect()
    } else {
        (0..300).map(|_| rng.below_usize(listed.len())).collect()
    };
    for r in nth_rs {
        let got = set.nth(r as u128);
        if got != Some(listed[r]) {
            stats.fail("nth", format!("nth({r}) = {:?} but all()[{r}] = [{}] — {what}", got.map(|x| fmt(&x)), fmt(&listed[r])));
            break;
        }
    }
    if set.nth(count).is_some() {
        stats.fail("nth", format!("nth(count = {count}) is Some — {what}"));
    }
    let mut sorted = listed.clone();
    sorted.sort_unstable();
    let before = sorted.len();
    sorted.dedup();
    if sorted.len() != before {
        stats.fail("all", format!("all() lists {} duplicate plays — {what}", before - sorted.len()));
    }
    if sorted != a.legal {
        let fast: HashSet<Counts> = sorted.iter().copied().collect();
        let orc: HashSet<Counts> = a.legal.iter().copied().collect();
        let mut extra: Vec<String> = sorted.iter().filter(|x| !orc.contains(*x)).map(fmt).collect();
        let mut missing: Vec<String> = a.legal.iter().filter(|x| !fast.contains(*x)).map(fmt).collect();
        let (ne, nm) = (extra.len(), missing.len());
        extra.truncate(6);
        missing.truncate(6);
        stats.fail("legal set", format!(
            "legal set differs — {what}; fast case {:?}; fast-only ({ne}): {:?}; oracle-only ({nm}): {:?}",
            f.case, extra, missing
        ));
    }
    stats.legal_plays += a.legal.len() as u128;
    // the oracle's inner loop (bitmask links) against its plain definitions, on a sample
    if let (oracle::Case::Ladder(scored), false) = (&a.case, p.profile == Profile::Competition) {
        for _ in 0..4 {
            let (x, _, sc) = scored[rng.below_usize(scored.len())];
            let def = (oracle::combination(&x, p.level, p.trump), oracle::score(&x, p.level, p.trump));
            let local = oracle::Local::new(&a.s, p.level, p.trump);
            assert_eq!(def, (local.combination(&x), sc), "oracle self-check on [{}] — {what}", fmt(&x));
        }
    }
    let legal: HashSet<Counts> = a.legal.iter().copied().collect();

    // sample
    for _ in 0..4 {
        match set.sample(rng) {
            Some(x) if legal.contains(&x) => {}
            other => {
                stats.fail("sample", format!("sample() returned {:?}, not an oracle-legal play — {what}", other.map(|x| fmt(&x))));
                break;
            }
        }
    }

    // is_legal on every N-card selection of the hand (or, for big hands, of the class plus a sample)
    let n = a.n;
    let zero = [0u8; KINDS];
    let mut plays: Vec<Counts> = Vec::new();
    if oracle::count_multisets(&p.hand, n) <= CAP_HAND {
        plays = oracle::multisets(&zero, &p.hand, n);
    } else {
        match &a.case {
            oracle::Case::Ladder(scored) => plays.extend(scored.iter().map(|e| e.0)),
            oracle::Case::Short => plays.extend(a.legal.iter().copied()),
        }
        for _ in 0..1500 {
            plays.push(random_subset(rng, &p.hand, n));
        }
    }
    for x in &plays {
        stats.is_legal_checks += 1;
        let fast = f.is_legal(x);
        if fast != legal.contains(x) {
            stats.fail("is_legal", format!(
                "is_legal([{}]) = {fast}, oracle says {} — {what}; fast case {:?}",
                fmt(x),
                !fast,
                f.case
            ));
            break;
        }
    }

    // completions of a few partial selections
    for i in 0..3 {
        let len = rng.below_usize(n);
        let partial = if i < 2 {
            let base = a.legal[rng.below_usize(a.legal.len())];
            random_subset(rng, &base, len)
        } else {
            random_subset(rng, &p.hand, len)
        };
        let mut want = [false; KINDS];
        let mut containing = 0u128;
        for x in &a.legal {
            if (0..KINDS).all(|k| x[k] >= partial[k]) {
                containing += 1;
                for k in 0..KINDS {
                    want[k] |= x[k] > partial[k];
                }
            }
        }
        let fast_containing = f.legal_set(&partial).count();
        if fast_containing != containing {
            stats.fail("legal_set(lo)", format!(
                "legal_set([{}]).count() = {fast_containing}, oracle {containing} — {what}; fast case {:?}",
                fmt(&partial),
                f.case
            ));
        }
        let got = f.completions(&partial);
        stats.completions += 1;
        if got != want {
            let show = |v: &[bool; KINDS]| format(&(0..KINDS).filter(|&k| v[k]).map(|k| Card(k as u8)).collect::<Vec<_>>());
            stats.fail("completions", format!(
                "completions([{}]): fast offers [{}], oracle [{}] — {what}; fast case {:?}",
                fmt(&partial),
                show(&got),
                show(&want),
                f.case
            ));
        }
    }
}

fn run_random(profile: Profile, seed: u64, positions: usize) {
    let start = Instant::now();
    let mut g = Gen { rng: Rng::new(seed) };
    let mut rng = Rng::new(seed ^ 0x5eed);
    let mut stats = Stats::default();
    let mut tried = 0usize;
    let mut cycles = 0usize; // positions whose follower holds the whole trump cycle, in the ladder
    while stats.positions < positions && tried < 4 * positions {
        tried += 1;
        if let Some(p) = gen_position(&mut g, profile) {
            let t = ctx(p.level, p.trump, profile);
            let whole = (2..=14).all(|r| p.hand[oracle::kind(p.trump, r) as usize] >= 2);
            let combo = classify(&t, &p.lead).expect("a combination");
            let ladder = match Follow::new(&t, &p.hand, combo).case {
                Case::Ladder { l, .. } => l > 0,
                Case::Key(k) => k.has_tractor(),
                _ => false,
            };
            cycles += (whole && ladder && combo.class == oracle::TRUMP) as usize;
            check_position(&p, &mut rng, &mut stats);
        }
    }
    println!(
        "{}: {} positions ({} generated) in {:.1}s: short {}, T1 {}, ladder with tractor {}, pairs {}, free {}; trump leads {}; {} legal plays, {} is_legal checks, {} completions",
        profile.name(),
        stats.positions,
        tried,
        start.elapsed().as_secs_f64(),
        stats.short,
        stats.t1,
        stats.ladder_tractor,
        stats.ladder_pairs,
        stats.ladder_free,
        stats.trump_leads,
        stats.legal_plays,
        stats.is_legal_checks,
        stats.completions
    );
    println!(
        "{}: positions by lead size N {:?}; {} ladder selections scored by brute force; {cycles} ladder positions over the whole trump cycle",
        profile.name(),
        stats.by_n,
        stats.work_ladder
    );
    assert!(
        stats.failures == 0,
        "{} disagreement(s) between the fast code and the RULES oracle ({}), by check {:?}; first ones:\n{}",
        stats.failures,
        profile.name(),
        stats.by_check,
        stats.messages.join("\n")
    );
    // the generator must exercise every case
    assert_eq!(stats.positions, positions, "the generator gives too few positions");
    assert!(cycles > 0 && stats.short > 0 && stats.t1 > 0 && stats.ladder_tractor > 0 && stats.ladder_pairs > 0 && stats.ladder_free > 0, "{stats:?}");
}

#[test]
fn r5_oracle_twin_guigang() {
    run_random(Profile::Guigang, 0x6017_6A46, 12_000);
}

#[test]
fn r5_oracle_twin_nanning() {
    run_random(Profile::Nanning, 0x4A4E_4E49, 12_000);
}

/// C3–C5 against the brute-force twin: check, count, enumeration, nth, sample support,
/// `legal_set(lo)` and completions on 20,000 random competition positions, in two tests of
/// 10,000 (their own seeds) that the harness runs on two threads.
#[test]
fn c5_oracle_twin_competition() {
    run_random(Profile::Competition, 0xC0_4D_50_11, 10_000);
}

#[test]
fn c5_oracle_twin_competition_more_positions() {
    run_random(Profile::Competition, 0xC0_4D_50_12, 10_000);
}

// ---------------------------------------------------------------------------------------
// LegalSet::sample is uniform over the distinct legal follows

/// Draws 200 samples per legal play and checks Pearson's χ² against the uniform law with a
/// threshold far in the tail (df + 6·√(2·df) + 10: beyond 5 standard deviations). The seed
/// is fixed, so the test cannot flake; a sampler that doubles one play's weight adds ≈ 200.
fn chi_square(name: &str, level: u8, trump: u8, profile: Profile, hand: &str, lead: &str, seed: u64) -> usize {
    let t = ctx(level, trump, profile);
    let (hand, lead) = (c(hand), c(lead));
    let combo = classify(&t, &lead).expect("lead is a combination");
    let f = Follow::new(&t, &hand, combo);
    let mut set = f.legal_set(&[0; KINDS]);
    let all = set.all(u128::MAX).unwrap();
    let k = all.len();
    let want = if profile == Profile::Competition {
        oracle_comp::Position { level, trump, hand, lead }.analyse()
    } else {
        oracle::Position { level, trump, t1_any_shape: profile == Profile::Guigang, hand, lead }.analyse()
    };
    let mut sorted = all.clone();
    sorted.sort_unstable();
    assert_eq!(sorted, want.unwrap().legal, "{name}: legal set vs oracle");
    assert!(k >= 10, "{name}: only {k} legal plays");
    let index: std::collections::HashMap<Counts, usize> = all.iter().enumerate().map(|(i, x)| (*x, i)).collect();
    let per = 200usize;
    let mut seen = vec![0usize; k];
    let mut rng = Rng::new(seed);
    for _ in 0..per * k {
        let x = set.sample(&mut rng).expect("a legal play");
        seen[*index.get(&x).unwrap_or_else(|| panic!("{name}: sample [{}] is not legal", fmt(&x)))] += 1;
    }
    let e = per as f64;
    let chi2: f64 = seen.iter().map(|&o| (o as f64 - e).powi(2) / e).sum();
    let df = (k - 1) as f64;
    let limit = df + 6.0 * (2.0 * df).sqrt() + 10.0;
    println!("{name}: {k} plays, case {:?}, chi2 {chi2:.1} (df {df}, limit {limit:.1})", f.case);
    assert!(chi2 < limit, "{name}: χ² = {chi2:.1} over {k} plays (limit {limit:.1}); counts {seen:?}");
    assert!(seen.iter().all(|&o| o > 0), "{name}: some legal play is never drawn: {seen:?}");
    k
}

#[test]
fn sample_is_uniform_chi_square() {
    // R5.3 T3/T4, a plain suit: ♠99 + any two of the other singles (and their pairs) — the DP.
    chi_square("ladder T3", 10, 1, Profile::Guigang, "As Ks Qs Js 9s 9s 8s 7s 5s 3s 4d", "4s 4s 5s 5s", 11);
    // R5.2: one spade, then any two of the other cards — the DP over every class.
    chi_square("short", 10, 1, Profile::Guigang, "As Kd Qc 3d 4c 5c 6d 7d Jc 8h", "5s 5s 5s", 12);
    // A tractor through A–2 in the trump suit (the cycle cut at 4h into a path) + two free cards.
    chi_square(
        "ladder through A-2",
        10,
        1,
        Profile::Nanning,
        "Kh Kh Ah Ah 2h 2h 3h 5h 6h 8h 9h Jh Qh 4s",
        "SJ SJ SJ SJ BJ BJ BJ BJ",
        13,
    );
    // The unbroken trump cycle (ghost kinds): a 4-pair window anywhere, plus one free card.
    chi_square(
        "ladder unbroken cycle",
        10,
        1,
        Profile::Guigang,
        "2h 2h 3h 3h 4h 4h 5h 5h 6h 6h 7h 7h 8h 8h 9h 9h 10h 10h Jh Jh Qh Qh Kh Kh Ah Ah",
        "Qh Qh Qh Kh Kh Kh Ah Ah Ah",
        14,
    );
    // C5 with tractors (the partition programme): a 3-pair lead, none of three kinds held:
    // one of three 2-pair tractors and one pair beside it.
    chi_square("C5 L", 10, 1, Profile::Competition, "7s 7s 8s 8s Js Js Qs Qs 3s 3s 4s 4s As As 9s Ks 4d", "5s 5s 6s 6s 7s 7s", 21);
    // C5 without a tractor (the pairs programme): a 3-pair lead, three of the pairs.
    chi_square("C5 p", 10, 1, Profile::Competition, "3s 3s 5s 5s 7s 7s 9s 9s Js Js Ks Ks 4d", "6s 6s 7s 7s 8s 8s", 22);
    // C4 (the shape programme): a bomb lead, a pair and two cards.
    chi_square("C4", 10, 1, Profile::Competition, "3s 3s 4s 6s 8s 9s Js Qs Ks As", "5s 5s 5s 5s", 23);
    // R5.3 T1 with N = 1: one card of any spade kind.
    chi_square("T1 single", 10, 1, Profile::Guigang, "3s 4s 5s 6s 6s 7s 8s 9s Js Qs Ks As 4d", "5s", 16);
    // R5.3 T1: the listed combinations (every pair of the trump class).
    chi_square(
        "T1 list",
        10,
        1,
        Profile::Guigang,
        "3h 3h 4h 4h 6h 6h 8h 8h Jh Jh Kh Kh 2h 2h 2s 2s 2d 2d 10s 10s 10c 10c SJ SJ BJ BJ 4c",
        "Ah Ah",
        15,
    );
}

// ---------------------------------------------------------------------------------------
// table tests: the examples of docs/rules.md §2–§6

fn g10() -> Context {
    ctx(10, 1, Profile::Guigang)
}

fn n10() -> Context {
    ctx(10, 1, Profile::Nanning)
}

/// The fast verdict via the checked API: `Ok` or the violated rule id.
fn verdict(t: &Context, hand: &str, lead: &str, play: &str) -> Result<(), &'static str> {
    match check_follow(t, &c(hand), &c(lead), &c(play)) {
        Ok(()) => Ok(()),
        Err(Error::IllegalFollow(v)) => Err(v.rule),
        Err(e) => panic!("unexpected error {e}: hand [{hand}] lead [{lead}] play [{play}]"),
    }
}

fn oracle_legal(t: &Context, hand: &str, lead: &str) -> Vec<Counts> {
    let p = oracle::Position {
        level: t.level,
        trump: t.trump,
        t1_any_shape: t.rules.t1_any_shape,
        hand: c(hand),
        lead: c(lead),
    };
    p.analyse().expect("lead is a combination").legal
}

/// `play` is legal (fast and oracle agree).
fn ok(rule: &str, t: &Context, hand: &str, lead: &str, play: &str) {
    assert_eq!(verdict(t, hand, lead, play), Ok(()), "{rule}: [{play}] must be legal (hand [{hand}], lead [{lead}])");
    assert!(oracle_legal(t, hand, lead).contains(&c(play)), "{rule}: oracle rejects [{play}]");
}

/// `play` is illegal, the fast code naming `why` (fast and oracle agree).
fn bad(rule: &str, t: &Context, hand: &str, lead: &str, play: &str, why: &str) {
    assert_eq!(verdict(t, hand, lead, play), Err(why), "{rule}: [{play}] must break {why} (hand [{hand}], lead [{lead}])");
    assert!(!oracle_legal(t, hand, lead).contains(&c(play)), "{rule}: oracle accepts [{play}]");
}

/// The complete legal set is exactly `plays` (fast and oracle).
fn exactly(rule: &str, t: &Context, hand: &str, lead: &str, plays: &[&str]) {
    let mut want: Vec<Counts> = plays.iter().map(|p| c(p)).collect();
    want.sort_unstable();
    let combo = classify(t, &c(lead)).expect("lead is a combination");
    let f = Follow::new(t, &c(hand), combo);
    let mut got = f.legal_set(&[0; KINDS]).all(u128::MAX).unwrap();
    got.sort_unstable();
    let show = |v: &[Counts]| v.iter().map(fmt).collect::<Vec<_>>();
    assert_eq!(show(&got), show(&want), "{rule}: fast legal set (hand [{hand}], lead [{lead}])");
    assert_eq!(show(&oracle_legal(t, hand, lead)), show(&want), "{rule}: oracle legal set");
}

fn winner(t: &Context, plays: &[&str]) -> usize {
    let v: Vec<Counts> = plays.iter().map(|p| c(p)).collect();
    trick_winner(t, &v).expect("the lead is a combination")
}

fn shape(t: &Context, cards: &str) -> Option<(u8, u8)> {
    let fast = classify(t, &c(cards)).map(|x| (x.m, x.k));
    assert_eq!(fast, oracle::combination(&c(cards), t.level, t.trump), "classify vs oracle on [{cards}]");
    fast
}

#[test]
fn r2_3_r2_4_strength_order() {
    let t = g10();
    // R2.3: BJ > SJ > 正L > 副L > 正2 > 副2 > trump A > … > 3
    let order = ["BJ", "SJ", "10h", "10s", "2h", "2c", "Ah", "Kh", "Qh", "Jh", "9h", "3h"];
    for w in order.windows(2) {
        assert_eq!(winner(&t, &[w[1], w[0]]), 1, "R2.3: {} beats {}", w[0], w[1]);
        assert_eq!(winner(&t, &[w[0], w[1]]), 0, "R2.3: {} holds against {}", w[0], w[1]);
    }
    // R2.4: a plain suit A > K > … > 3 without L and 2
    for w in ["As", "Ks", "Qs", "Js", "9s", "8s", "3s"].windows(2) {
        assert_eq!(winner(&t, &[w[1], w[0]]), 1, "R2.4: {} beats {}", w[0], w[1]);
    }
}

#[test]
fn r2_5_off_suit_level_is_a_trump_lead() {
    let t = g10();
    ok("R2.5", &t, "As Ks 3h 4d", "10s", "3h");
    bad("R2.5", &t, "As Ks 3h 4d", "10s", "As", "R5.2");
    ok("R2.5 void in trump", &t, "As 4d", "10s", "4d");
    ok("R2.5 2s is trump", &t, "2s Ks 4d", "3h", "2s");
    bad("R2.5 2s is trump", &t, "2s Ks 4d", "3h", "Ks", "R5.2");
}

#[test]
fn r2_6_equal_strength_the_earlier_play_wins() {
    let t = g10();
    assert_eq!(winner(&t, &["10s", "10c", "10d"]), 0, "R2.6: 副L of different suits");
    assert_eq!(winner(&t, &["10c", "10s"]), 0, "R2.6");
    assert_eq!(winner(&t, &["5h", "2s", "2d"]), 1, "R2.6: the first 副2 wins");
    assert_eq!(winner(&t, &["4h4h", "10s10s", "10d10d"]), 1, "R2.6: pairs of 副L");
    assert_eq!(winner(&t, &["4h", "10d", "10h"]), 2, "R2.3: 正L beats 副L");
}

#[test]
fn r3_1_r3_2_units_and_tractors() {
    let t = g10();
    assert_eq!(shape(&t, "As"), Some((1, 1)), "R3.1 single");
    assert_eq!(shape(&t, "As As"), Some((2, 1)), "R3.1 pair");
    assert_eq!(shape(&t, "As As As"), Some((3, 1)), "R3.1 triple");
    assert_eq!(shape(&t, "As As As As"), Some((4, 1)), "R3.1 bomb");
    assert_eq!(shape(&t, "10s 10c"), None, "R3.1: 10s 10c is not a pair");
    assert_eq!(shape(&t, "4s 4s 5s 5s"), Some((2, 2)), "R3.2 pair tractor");
    assert_eq!(shape(&t, "4s 4s 4s 5s 5s 5s"), Some((3, 2)), "R3.2 triple tractor");
    assert_eq!(shape(&t, "As As As As Ks Ks Ks Ks Qs Qs Qs Qs"), Some((4, 3)), "R3.2 bomb tractor");
    assert_eq!(shape(&t, "As As As Ks Ks"), None, "D1: one multiplicity");
    assert_eq!(shape(&t, "4s 5s"), None, "R3.2: singles never form a tractor");
    assert_eq!(shape(&t, "4s 4s 6s 6s"), None, "R3.2: unlinked pairs");
    // R3.5 shape and size
    let x = classify(&t, &c("4s 4s 4s 5s 5s 5s")).unwrap();
    assert_eq!((x.m, x.k, x.size()), (3, 2, 6), "R3.5");
}

#[test]
fn r3_3_links() {
    let t = g10();
    for yes in ["BJ BJ SJ SJ", "2h 2h 3h 3h 4h 4h", "Ah Ah 2h 2h 3h 3h", "Ah Ah Kh Kh Qh Qh", "9h 9h 10h 10h Jh Jh", "9s 9s 8s 8s", "Js Js Qs Qs"] {
        assert!(shape(&t, yes).is_some_and(|s| s.1 >= 2), "R3.3: [{yes}] is a tractor");
    }
    for no in ["SJ SJ 10h 10h", "10h 10h 10s 10s", "10s 10s 2s 2s", "Js Js 9s 9s", "10s 10s 10c 10c", "2s 2s 2d 2d", "As As 2s 2s", "Ah Ah 10s 10s"] {
        assert_eq!(shape(&t, no), None, "R3.3/D2: [{no}] is not linked");
    }
    // 副L and 副2 never link, even in one suit: level 3, hearts trump
    let t3 = ctx(3, 1, Profile::Guigang);
    assert_eq!(shape(&t3, "2s 2s 3s 3s"), None, "R3.3: 2s2s3s3s at level 3 is two pairs");
    assert_eq!(shape(&t3, "2h 2h 3h 3h"), Some((2, 2)), "R3.3: 正2–正L at level 3");
    assert_eq!(shape(&t3, "2s 2s 4s 4s"), None, "R3.3");
    assert_eq!(shape(&t3, "4s 4s 5s 5s"), Some((2, 2)), "R3.3");
    // trump-suit cycle through A–2 and through 正L
    assert_eq!(shape(&t, "Kh Kh Ah Ah 2h 2h 3h 3h"), Some((2, 4)), "R3.3 A–2");
    let t14 = ctx(14, 0, Profile::Guigang);
    assert_eq!(shape(&t14, "Ks Ks As As 2s 2s"), Some((2, 3)), "R3.3: through 正L = A and 2");
    assert_eq!(shape(&t14, "Kh Kh Qh Qh"), Some((2, 2)), "R3.3: K–Q plain at level A");
    assert_eq!(shape(&t14, "Kh Kh Ah Ah"), None, "R3.3: 副A is 副L at level A");
}

#[test]
fn r3_4_every_lead_is_one_combination() {
    let t = g10();
    for lead in ["As Ks", "As As Ks", "10s 10c", "3s 4s 5s"] {
        let got = check_follow(&t, &c("3s 3s 4s 5s 6s"), &c(lead), &c("3s 3s"));
        assert!(matches!(got, Err(Error::NotACombination(_))), "R3.4: [{lead}] is not a lead: {got:?}");
    }
    let got = check_follow(&t, &c("3s 4s 5s 6s"), &c("As As"), &c("3s 4s 5s"));
    assert!(matches!(got, Err(Error::WrongCount { expected: 2, got: 3 })), "R5.1: {got:?}");
}

#[test]
fn r4_1_multiplicity_then_trump_then_top() {
    let t = g10();
    assert_eq!(winner(&t, &["As As Ks Ks", "6s 6s 6s 6s"]), 1, "R4.1: 6s6s6s6s > AsAsKsKs");
    assert_eq!(winner(&t, &["As As Ks Ks Qs Qs", "5s 5s 5s 6s 6s 6s"]), 1, "R4.1: 5s5s5s6s6s6s > AsAsKsKsQsQs");
    assert_eq!(winner(&t, &["Ks", "3h"]), 1, "R4.1: 3h > Ks");
    assert_eq!(winner(&t, &["As As Ks Ks", "5h 5h 6h 6h"]), 1, "R4.1: 5h5h6h6h > AsAsKsKs");
    assert_eq!(winner(&t, &["6s 6s 6s 6s", "As As Ks Ks"]), 0, "R4.1: a pair tractor does not beat a bomb");
    assert_eq!(winner(&t, &["3s 3s", "3s 3s"]), 0, "R4.1: equal keys, the earlier play");
    assert_eq!(winner(&t, &["3s 3s", "Ad Ad"]), 0, "R4.1: another plain suit never wins");
    assert_eq!(winner(&t, &["As As Ks Ks", "3d 3d 3d 3d"]), 0, "R4.1: another plain suit never wins, even a bomb");
    assert_eq!(winner(&t, &["3s 3s", "As Ks"]), 0, "R6.1: not a combination");
    assert_eq!(winner(&t, &["3s 3s", "3h 4h"]), 0, "R6.1: two trumps that are no pair");
}

#[test]
fn d3_higher_multiplicity_beats_a_lower_trump() {
    let t = g10();
    assert_eq!(winner(&t, &["As As Ks Ks", "5h 5h 6h 6h", "3s 3s 3s 3s"]), 2, "D3: a plain bomb beats a trump pair tractor");
    assert_eq!(winner(&t, &["As As Ks Ks", "3s 3s 3s 3s", "5h 5h 6h 6h"]), 1, "D3");
    assert_eq!(winner(&t, &["As As Ks Ks", "5h 5h 6h 6h", "3h 3h 3h 3h"]), 2, "D3: the trump bomb on top");
}

#[test]
fn r4_2_tractor_tops() {
    let t = g10();
    assert_eq!(winner(&t, &["10h 10h 9h 9h", "Ah Ah Kh Kh"]), 1, "R4.2: AhAhKhKh > 10h10h9h9h");
    assert_eq!(winner(&t, &["Ah Ah Kh Kh", "10h 10h 9h 9h"]), 0, "R4.2");
    assert_eq!(winner(&t, &["8h 8h 9h 9h 10h 10h", "9h 9h 10h 10h Jh Jh"]), 1, "R4.2: natural rank, J > 10");
    // a tractor through A–2 has top A
    assert_eq!(winner(&t, &["Kh Kh Ah Ah 2h 2h", "Qh Qh Kh Kh Ah Ah"]), 0, "R4.2: KKAA22 and QQKKAA both top A");
    assert_eq!(winner(&t, &["Qh Qh Kh Kh Ah Ah", "Kh Kh Ah Ah 2h 2h"]), 0, "R4.2: top A, the earlier");
    assert_eq!(winner(&t, &["Kh Kh Ah Ah 2h 2h", "SJ SJ BJ BJ"]), 0, "R4.2: size differs, not compared");
    assert_eq!(winner(&t, &["Ah Ah 2h 2h", "SJ SJ BJ BJ"]), 1, "R4.2: the joker tractor");
    assert_eq!(winner(&t, &["2h 2h 3h 3h", "4h 4h 5h 5h"]), 1, "R4.2: 2233 is low at level 10");
    assert_eq!(winner(&t, &["Qh Qh Kh Kh", "Ah Ah 2h 2h"]), 1, "R4.2: AA22 tops A");
    // units by strength: a pair of 正L beats a pair of 副L
    assert_eq!(winner(&t, &["10s 10s", "10h 10h"]), 1, "R4.2 unit");
}

#[test]
fn r4_2_level_3_exception_2233() {
    let t = ctx(3, 1, Profile::Guigang);
    assert_eq!(winner(&t, &["Ah Ah Kh Kh", "2h 2h 3h 3h"]), 1, "R4.2 level 3: 2233 > AAKK");
    assert_eq!(winner(&t, &["2h 2h 3h 3h", "Ah Ah Kh Kh"]), 0, "R4.2 level 3");
    assert_eq!(winner(&t, &["Ah Ah 2h 2h", "2h 2h 3h 3h"]), 1, "R4.2 level 3: 2233 > AA22");
    assert_eq!(winner(&t, &["2h 2h 3h 3h", "SJ SJ BJ BJ"]), 1, "R4.2 level 3: below the joker tractor");
    assert_eq!(winner(&t, &["Ah Ah Ah Kh Kh Kh", "2h 2h 2h 3h 3h 3h"]), 1, "R4.2 level 3: 222333 too");
    assert_eq!(winner(&t, &["2h 2h 2h 3h 3h 3h", "SJ SJ SJ BJ BJ BJ"]), 1, "R4.2 level 3");
    assert_eq!(winner(&t, &["2h 2h 3h 3h 4h 4h", "Qh Qh Kh Kh Ah Ah"]), 1, "R4.2 level 3: 223344 is not the exception");
    // at another level 2233 is an ordinary tractor with top 3
    let t10 = g10();
    assert_eq!(winner(&t10, &["2h 2h 3h 3h", "4h 4h 5h 5h"]), 1, "R4.2");
    // level 3 with another trump suit: the spade 2–3 is 副2–副L
    assert_eq!(shape(&t, "2s 2s 3s 3s"), None, "R3.3");
}

#[test]
fn r6_2_ruffs() {
    let t = g10();
    assert_eq!(winner(&t, &["As As", "3h 3h"]), 1, "R6.2: a pair ruff");
    assert_eq!(winner(&t, &["As As Ks Ks", "3h 3h 4h 4h"]), 1, "R6.2: a tractor ruff");
    assert_eq!(winner(&t, &["As As Ks Ks", "3h 3h 3h 3h"]), 1, "R6.2: a bomb ruffs a pair tractor");
    assert_eq!(winner(&t, &["3s 3s 3s 3s", "5h 5h 6h 6h"]), 0, "R6.2: multiplicity 2 < 4, no ruff");
    assert_eq!(winner(&t, &["5s 5s 5s 6s 6s 6s", "3h 3h 4h 4h 5h 5h"]), 0, "R6.2: pairs do not ruff triples");
    assert_eq!(winner(&t, &["As As", "3h 3h", "5h 5h"]), 2, "R6.2: the higher ruff");
    assert_eq!(winner(&t, &["As As", "5h 5h", "3h 3h"]), 1, "R6.2: the higher ruff, earlier");
    assert_eq!(winner(&t, &["As As", "3h 4h"]), 0, "R6.1: a ruff must be one combination");
    assert_eq!(winner(&t, &["3h 3h", "As As"]), 0, "R6.1: no ruff of a trump lead");
}

#[test]
fn r5_2_short_and_void() {
    let t = g10();
    let hand = "As Kd Qc 3d";
    exactly("R5.2 short", &t, hand, "5s 5s", &["As Kd", "As Qc", "As 3d"]);
    bad("R5.2 short", &t, hand, "5s 5s", "Kd Qc", "R5.2");
    ok("R5.2: no duty to ruff", &t, "As 3h 4d", "5s 5s", "As 4d");
    ok("R5.2 void", &t, "Kd 3h", "5s", "Kd");
    ok("R5.2 void", &t, "Kd 3h", "5s", "3h");
    exactly("R5.2: |S| = N", &t, "As Ks 3h", "5s 5s", &["As Ks"]);
    bad("R5.2: more than N, all from the class", &t, "As Ks Qs 3h", "5s 5s", "As 3h", "R5.2");
}

#[test]
fn r5_3_t1_examples() {
    let (g, n) = (g10(), n10());
    // ♠666 led, ♠333 held → ♠333
    exactly("R5.3 T1 ♠666", &g, "3s 3s 3s 4s 5s 9s", "6s 6s 6s", &["3s 3s 3s"]);
    bad("R5.3 T1 ♠666", &g, "3s 3s 3s 4s 5s 9s", "6s 6s 6s", "3s 3s 4s", "R5.3 T1");
    // ♠999888 → ♠444555 or ♠445566 (guigang) / only ♠444555 (nanning)
    let hand = "4s 4s 4s 5s 5s 5s 6s 6s Kd";
    exactly("R5.3 T1 ♠999888", &g, hand, "9s 9s 9s 8s 8s 8s", &["4s 4s 4s 5s 5s 5s", "4s 4s 5s 5s 6s 6s"]);
    exactly("§9 nanning T1 ♠999888", &n, hand, "9s 9s 9s 8s 8s 8s", &["4s 4s 4s 5s 5s 5s"]);
    bad("§9 nanning T1 ♠999888", &n, hand, "9s 9s 9s 8s 8s 8s", "4s 4s 5s 5s 6s 6s", "R5.3 T1");
    bad("R5.3 T1 ♠999888", &g, hand, "9s 9s 9s 8s 8s 8s", "4s 4s 4s 5s 5s 6s", "R5.3 T1");
    // ♥KKKK → ♥7777 or ♥8899 (hearts are trump at level 10: a trump lead)
    let hand = "7h 7h 7h 7h 8h 8h 9h 9h 3h 4s";
    // (7h7h8h8h is a 2-pair tractor as well: 7–8 are linked)
    exactly("R5.3 T1 ♥KKKK", &g, hand, "Kh Kh Kh Kh", &["7h 7h 7h 7h", "8h 8h 9h 9h", "7h 7h 8h 8h"]);
    exactly("§9 nanning T1 ♥KKKK", &n, hand, "Kh Kh Kh Kh", &["7h 7h 7h 7h"]);
    // and as a plain suit, level 10 hearts trump
    exactly("R5.3 T1 ♠KKKK", &g, "7s 7s 7s 7s 8s 8s 9s 9s 3s", "Ks Ks Ks Ks", &["7s 7s 7s 7s", "8s 8s 9s 9s", "7s 7s 8s 8s"]);
    exactly("R5.3 T1 ♠KKKK", &g, "7s 7s 7s 7s 9s 9s Js Js 3s", "Ks Ks Ks Ks", &["7s 7s 7s 7s"]);
    bad("R5.3 T1 ♠KKKK", &g, "7s 7s 7s 7s 9s 9s Js Js 3s", "Ks Ks Ks Ks", "9s 9s Js Js", "R5.3 T1");
    // nanning: T1 fails for the lead's shape, the ladder takes over (a bomb gives two pairs)
    exactly("§9 nanning: no 2-pair tractor", &n, "7s 7s 7s 7s 9s 3s", "4s 4s 5s 5s", &["7s 7s 7s 7s"]);
}

#[test]
fn r5_3_t2_t3_t4_examples() {
    let t = g10();
    // T2 (rule 4(5)): the longest tractor must be in the selection
    let hand = "3s 3s 4s 4s 9s 9s Js Qs Ks";
    exactly(
        "R5.3 T2",
        &t,
        hand,
        "5s 5s 6s 6s 7s 7s 8s 8s",
        &["3s 3s 4s 4s 9s 9s Js Qs", "3s 3s 4s 4s 9s 9s Js Ks", "3s 3s 4s 4s 9s 9s Qs Ks"],
    );
    bad("R5.3 T2", &t, hand, "5s 5s 6s 6s 7s 7s 8s 8s", "3s 3s 4s 9s 9s Js Qs Ks", "R5.3 T2");
    // T3: ♠555 ♠888 vs ♠KKKK → ♠5588, not ♠5558
    let hand = "5s 5s 5s 8s 8s 8s 3d";
    ok("R5.3 T3 ♠555 888", &t, hand, "Ks Ks Ks Ks", "5s 5s 8s 8s");
    bad("R5.3 T3 ♠555 888", &t, hand, "Ks Ks Ks Ks", "5s 5s 5s 8s", "R5.3 T3");
    exactly("R5.3 T3 ♠555 888", &t, hand, "Ks Ks Ks Ks", &["5s 5s 8s 8s"]);
    // T3: ♠AQJ9953 vs ♠4455 → ♠99 + any two
    let hand = "As Qs Js 9s 9s 5s 3s";
    let others = ["As", "Qs", "Js", "5s", "3s"];
    let mut plays = Vec::new();
    for i in 0..others.len() {
        for j in i + 1..others.len() {
            plays.push(format!("9s 9s {} {}", others[i], others[j]));
        }
    }
    let refs: Vec<&str> = plays.iter().map(|s| s.as_str()).collect();
    exactly("R5.3 T3 ♠AQJ9953", &t, hand, "4s 4s 5s 5s", &refs);
    bad("R5.3 T3 ♠AQJ9953", &t, hand, "4s 4s 5s 5s", "As Qs Js 5s", "R5.3 T3");
    // T4: ♠AJ953 vs ♠4455 → any four spades
    let hand = "As Js 9s 5s 3s Kd";
    exactly(
        "R5.3 T4 ♠AJ953",
        &t,
        hand,
        "4s 4s 5s 5s",
        &["As Js 9s 5s", "As Js 9s 3s", "As Js 5s 3s", "As 9s 5s 3s", "Js 9s 5s 3s"],
    );
    bad("R5.3 T4 ♠AJ953", &t, hand, "4s 4s 5s 5s", "As Js 9s Kd", "R5.2");
}

#[test]
fn r5_4_triples_serve_as_pairs() {
    let t = g10();
    // ♠33 88 999 J vs ♠AAAA → ♠8899 (T1), not ♠999J (rule 4(7))
    let hand = "3s 3s 8s 8s 9s 9s 9s Js";
    exactly("R5.4 ♠33 88 999 J", &t, hand, "As As As As", &["8s 8s 9s 9s"]);
    bad("R5.4 ♠33 88 999 J", &t, hand, "As As As As", "9s 9s 9s Js", "R5.3 T1");
    bad("R5.4 ♠33 88 999 J", &t, hand, "As As As As", "3s 3s 8s 8s", "R5.3 T1");
    // nanning: the lead is a bomb, no bomb held: the ladder; 8899 is the 4-card tractor
    exactly("R5.4 nanning", &n10(), hand, "As As As As", &["8s 8s 9s 9s"]);
}

#[test]
fn d4_only_the_longest_tractor_counts() {
    let t = g10();
    // longest tractor 6 cards (667788 or JJJQQQ), then three pairs beside it
    let hand = "3s 3s 4s 4s 6s 6s 7s 7s 8s 8s Js Js Js Qs Qs Qs As As 5d";
    let lead = "3s 3s 4s 4s 5s 5s 6s 6s 7s 7s 8s 8s";
    ok("D4: a 6-card tractor + three pairs", &t, hand, lead, "6s 6s 7s 7s 8s 8s 3s 3s 4s 4s As As");
    ok("D4: the triple tractor + three pairs", &t, hand, lead, "Js Js Js Qs Qs Qs 3s 3s 6s 6s As As");
    ok("D4: two 6-card tractors", &t, hand, lead, "6s 6s 7s 7s 8s 8s Js Js Js Qs Qs Qs");
    ok("D4: no second tractor needed", &t, hand, lead, "6s 6s 7s 7s 8s 8s 3s 3s Js Js As As");
    bad("D4: tractors of 4 do not meet T2", &t, hand, lead, "3s 3s 4s 4s Js Js Qs Qs As As 6s 6s", "R5.3 T2");
    bad("D4: T3 beside the tractor", &t, hand, lead, "6s 6s 7s 7s 8s 8s 3s 3s As As Js Qs", "R5.3 T3");
}

/// The per-card query on table positions: kind k is offered after `partial` exactly when some
/// legal follow holds `partial` plus one more k.
fn offers(rule: &str, t: &Context, hand: &str, lead: &str, partial: &str, want: &str) {
    let combo = classify(t, &c(lead)).expect("lead is a combination");
    let f = Follow::new(t, &c(hand), combo);
    let got = f.completions(&c(partial));
    let got: Vec<Card> = (0..KINDS).filter(|&k| got[k]).map(|k| Card(k as u8)).collect();
    assert_eq!(format(&got), fmt(&c(want)), "{rule}: completions of [{partial}] (hand [{hand}], lead [{lead}])");
    // and the oracle says the same
    let legal = oracle_legal(t, hand, lead);
    let p = c(partial);
    let mut o = [false; KINDS];
    for x in legal.iter().filter(|x| (0..KINDS).all(|k| x[k] >= p[k])) {
        for k in 0..KINDS {
            o[k] |= x[k] > p[k];
        }
    }
    let o: Vec<Card> = (0..KINDS).filter(|&k| o[k]).map(|k| Card(k as u8)).collect();
    assert_eq!(format(&o), fmt(&c(want)), "{rule}: oracle completions of [{partial}]");
}

#[test]
fn r5_completions_table() {
    let t = g10();
    // T1 with N = 1: any card of the led class
    offers("R5.3 T1 single", &t, "As Ks Ks 3d 4h", "5s", "", "Ks As");
    offers("R5.3 T1 single, trump", &t, "As 10c 2d 4h SJ", "5h", "", "2d 4h 10c SJ");
    // T1 pairs
    offers("R5.3 T1 pair", &t, "As As Ks Ks Qs 3d", "5s 5s", "", "Ks As");
    offers("R5.3 T1 pair", &t, "As As Ks Ks Qs 3d", "5s 5s", "As", "As");
    // R5.2 short: the spade is forced, the rest free
    offers("R5.2", &t, "As Kd Qc", "5s 5s", "", "As Kd Qc");
    offers("R5.2", &t, "As Kd Qc", "5s 5s", "Kd", "As");
    // T3: ♠AQJ9953 vs ♠4455: 99 + any two
    offers("R5.3 T3", &t, "As Qs Js 9s 9s 5s 3s", "4s 4s 5s 5s", "As Qs", "9s");
    offers("R5.3 T3", &t, "As Qs Js 9s 9s 5s 3s", "4s 4s 5s 5s", "9s 9s", "3s 5s Js Qs As");
}
