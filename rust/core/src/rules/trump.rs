//! The hand's context: level L and trump suit → suit class, strength and links,
//! as precomputed tables (docs/rules.md §2–3).

use crate::rules::card::{Card, Counts, BJ, KINDS, SJ};
use crate::rules::error::Error;
use crate::rules::profile::{Profile, Rules};

/// Suit class of every trump (R2.5); classes 0..4 are the plain suits s, h, d, c.
pub const TRUMP: u8 = 4;
/// No linked kind.
pub const NONE: u8 = u8::MAX;

/// A maximal run of linked kinds (R3.3): a path, or the trump suit's 13-cycle.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Chain {
    /// Index of the first kind in [`Context::order`].
    pub start: u8,
    pub len: u8,
    pub cyclic: bool,
    /// The chain's kinds are the ids `id_first ..` in order but for at most one left out (a
    /// suit's level rank, R3.3): the span of ids, and the position left out ([`NONE`] if none).
    pub id_first: u8,
    pub id_span: u8,
    pub id_skip: u8,
}

impl Chain {
    /// The chain's bits (bit i: its i-th kind) of `ids`, a mask over kind ids.
    #[inline]
    pub fn bits_of(&self, ids: u64) -> u64 {
        let x = (ids >> self.id_first) & ((1u64 << self.id_span) - 1);
        match self.id_skip {
            NONE => x,
            s => (x & ((1u64 << s) - 1)) | ((x >> (s + 1)) << s),
        }
    }
}

/// Level, trump suit and profile, with the tables every rule query reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Context {
    pub level: u8,
    pub trump: u8,
    pub rules: Rules,
    /// Suit class of each kind (R2.5).
    pub class: [u8; KINDS],
    /// The kinds of each class, as bits over kind ids.
    pub class_mask: [u64; 5],
    /// The kinds of each class as a count array: 0xFF on its kinds, 0 elsewhere (a hand's
    /// cards of a class are the hand AND this, byte by byte: [`crate::rules::card::and`]).
    pub class_bytes: [Counts; 5],
    /// Strength of each kind for comparing units (R2.3, R2.4); equal for 副L, equal for 副2.
    pub strength: [u8; KINDS],
    /// Rank used for a tractor's top (R4.2): natural rank 2..14, SJ 16, BJ 17.
    pub tractor_rank: [u8; KINDS],
    /// The kind linked above this one in natural order (R3.3), or [`NONE`].
    pub up: [u8; KINDS],
    /// The kind linked below this one (the inverse of `up`), or [`NONE`].
    pub down: [u8; KINDS],
    /// All kinds, class by class, each class as its chains in link order.
    pub order: [u8; KINDS],
    /// Chains; `class_chains[c]` is the range of chains of class `c`.
    pub chains: [Chain; 20],
    pub class_chains: [(u8, u8); 5],
    /// Where each kind stands in `order`.
    pub pos: [u8; KINDS],
    /// The trump class's kinds in `order` as runs of ascending kind ids, each as bits over kind
    /// ids (the jokers, the trump suit, the other suits' level cards, their 2s: at most four;
    /// unused runs 0). The r-th kind of a set in class order is found run by run
    /// ([`Context::nth_trump`]).
    pub trump_runs: [u64; 4],
}

/// Strength values of trumps above the plain ranks 3..14 (R2.3).
const S_OFF_2: u8 = 15;
const S_TRUMP_2: u8 = 16;
const S_OFF_L: u8 = 17;
const S_TRUMP_L: u8 = 18;
const S_SJ: u8 = 19;
const S_BJ: u8 = 20;

impl Context {
    /// `level` 3..=14 (A = 14), `trump` suit 0..4 (s h d c).
    pub fn new(level: u8, trump: u8, profile: Profile) -> Result<Context, Error> {
        if !(3..=14).contains(&level) {
            return Err(Error::BadLevel(level.to_string()));
        }
        if trump > 3 {
            return Err(Error::BadSuit(trump.to_string()));
        }
        let mut ctx = Context {
            level,
            trump,
            rules: profile.rules(),
            class: [0; KINDS],
            class_mask: [0; 5],
            class_bytes: [[0; KINDS]; 5],
            strength: [0; KINDS],
            tractor_rank: [0; KINDS],
            up: [NONE; KINDS],
            down: [NONE; KINDS],
            order: [0; KINDS],
            chains: [Chain { start: 0, len: 0, cyclic: false, id_first: 0, id_span: 0, id_skip: NONE }; 20],
            class_chains: [(0, 0); 5],
            pos: [0; KINDS],
            trump_runs: [0; 4],
        };
        for id in 0..52u8 {
            let card = Card(id);
            let (suit, rank) = (id / 13, id % 13 + 2);
            ctx.tractor_rank[card.id()] = rank;
            let (class, strength) = if rank == level {
                (TRUMP, if suit == trump { S_TRUMP_L } else { S_OFF_L })
            } else if rank == 2 {
                (TRUMP, if suit == trump { S_TRUMP_2 } else { S_OFF_2 })
            } else if suit == trump {
                (TRUMP, rank)
            } else {
                (suit, rank)
            };
            ctx.class[card.id()] = class;
            ctx.strength[card.id()] = strength;
        }
        for (j, s) in [(SJ, S_SJ), (BJ, S_BJ)] {
            ctx.class[j.id()] = TRUMP;
            ctx.strength[j.id()] = s;
            ctx.tractor_rank[j.id()] = s - 3; // SJ 16, BJ 17
        }
        for (k, &c) in ctx.class.iter().enumerate() {
            ctx.class_mask[c as usize] |= 1 << k;
            ctx.class_bytes[c as usize][k] = 0xFF;
        }
        // R3.3 / D2: links follow natural rank inside one suit, never strength order.
        ctx.up[SJ.id()] = BJ.0;
        for rank in 2..=14u8 {
            if rank == 14 && !ctx.rules.trump_wrap {
                continue; // C1 / D8: no A–2 link, the trump suit is the path 2-3-…-A
            }
            let next = if rank == 14 { 2 } else { rank + 1 };
            ctx.up[Card::new(trump, rank).id()] = Card::new(trump, next).0; // the 13-cycle
        }
        for suit in (0..4u8).filter(|&s| s != trump) {
            for rank in 3..14u8 {
                if rank != level && rank + 1 != level {
                    ctx.up[Card::new(suit, rank).id()] = Card::new(suit, rank + 1).0;
                }
            }
        }
        for k in 0..KINDS {
            if ctx.up[k] != NONE {
                ctx.down[ctx.up[k] as usize] = k as u8;
            }
        }
        ctx.build_chains();
        Ok(ctx)
    }

    fn build_chains(&mut self) {
        let (trump, level) = (self.trump, self.level);
        let mut per_class: Vec<Vec<(Vec<u8>, bool)>> = vec![Vec::new(); 5];
        for suit in (0..4u8).filter(|&s| s != trump) {
            let mut run: Vec<u8> = Vec::new();
            for rank in (3..=14u8).filter(|&r| r != level) {
                let k = Card::new(suit, rank).0;
                if let Some(&prev) = run.last() {
                    if self.up[prev as usize] != k {
                        per_class[suit as usize].push((std::mem::take(&mut run), false));
                    }
                }
                run.push(k);
            }
            per_class[suit as usize].push((run, false));
        }
        let t = &mut per_class[TRUMP as usize];
        t.push((vec![SJ.0, BJ.0], false));
        t.push(((2..=14).map(|r| Card::new(trump, r).0).collect(), self.rules.trump_wrap));
        for rank in [level, 2] {
            for suit in (0..4u8).filter(|&s| s != trump) {
                t.push((vec![Card::new(suit, rank).0], false));
            }
        }
        let (mut n_order, mut n_chains) = (0usize, 0usize);
        for (class, chains) in per_class.iter().enumerate() {
            let first_chain = n_chains as u8;
            for (kinds, cyclic) in chains {
                // a run of ids in order, but for at most one left out (by construction above)
                let first = kinds[0];
                let skip = kinds.iter().enumerate().position(|(i, &k)| k as usize != first as usize + i);
                let gap = |i: usize| skip.is_some_and(|s| i >= s) as usize;
                assert!(kinds.iter().enumerate().all(|(i, &k)| k as usize == first as usize + i + gap(i)), "a chain is a run of kind ids but for at most one: {kinds:?}");
                let (id_span, id_skip) = (kinds.len() as u8 + skip.is_some() as u8, skip.map_or(NONE, |s| s as u8));
                self.chains[n_chains] = Chain { start: n_order as u8, len: kinds.len() as u8, cyclic: *cyclic, id_first: first, id_span, id_skip };
                n_chains += 1;
                for &k in kinds {
                    self.order[n_order] = k;
                    self.pos[k as usize] = n_order as u8;
                    n_order += 1;
                }
            }
            self.class_chains[class] = (first_chain, n_chains as u8);
        }
        debug_assert_eq!(n_order, KINDS);
        // the trump class's order cut where a kind id falls below the one before it
        let (mut run, mut prev) = (0usize, None::<u8>);
        let (a, b) = (self.chains[self.class_chains[TRUMP as usize].0 as usize].start as usize, n_order);
        let order = self.order;
        for &k in &order[a..b] {
            // (the trump class is the last in `order`)
            if prev.is_some_and(|p| k < p) {
                run += 1;
            }
            assert!(run < 4, "the trump class is at most four runs of ascending kind ids");
            self.trump_runs[run] |= 1 << k;
            prev = Some(k);
        }
    }

    /// The kind of the `r`-th set bit of `mask` (kinds of the trump class) in the trump
    /// class's order (`class_kinds(TRUMP)`), or `None` past the last: run by run, each run in
    /// kind order.
    #[inline]
    pub fn nth_trump(&self, mask: u64, mut r: u32) -> Option<u8> {
        for run in self.trump_runs {
            let x = mask & run;
            let c = x.count_ones();
            if r < c {
                return crate::rules::card::nth_bit(x, r);
            }
            r -= c;
        }
        None
    }

    pub fn is_trump(&self, card: Card) -> bool {
        self.class[card.id()] == TRUMP
    }

    /// Are `a` and `b` linked (R3.3)? Symmetric.
    pub fn linked(&self, a: Card, b: Card) -> bool {
        a != b && (self.up[a.id()] == b.0 || self.up[b.id()] == a.0)
    }

    /// The chains of suit class `class`.
    pub fn chains_of(&self, class: u8) -> &[Chain] {
        let (a, b) = self.class_chains[class as usize];
        &self.chains[a as usize..b as usize]
    }

    /// The kinds of a chain, in link order.
    pub fn chain_kinds(&self, chain: &Chain) -> &[u8] {
        &self.order[chain.start as usize..(chain.start + chain.len) as usize]
    }

    /// All kinds of suit class `class`, chain by chain.
    pub fn class_kinds(&self, class: u8) -> &[u8] {
        let chains = self.chains_of(class);
        match (chains.first(), chains.last()) {
            (Some(f), Some(l)) => &self.order[f.start as usize..(l.start + l.len) as usize],
            _ => &[],
        }
    }
}

static TABLE: std::sync::OnceLock<Vec<Context>> = std::sync::OnceLock::new();

impl Context {
    /// The shared, precomputed context of (level, trump, profile): positions store only
    /// these three bytes and look the tables up here.
    pub fn get(level: u8, trump: u8, profile: Profile) -> Result<&'static Context, Error> {
        if !(3..=14).contains(&level) {
            return Err(Error::BadLevel(level.to_string()));
        }
        if trump > 3 {
            return Err(Error::BadSuit(trump.to_string()));
        }
        Ok(Context::of(level, trump, profile))
    }

    /// [`Context::get`] for a level and trump already known valid (a position's): the hot
    /// path, with no error to build. Panics if they are out of range.
    #[inline]
    pub fn of(level: u8, trump: u8, profile: Profile) -> &'static Context {
        assert!((3..=14).contains(&level) && trump <= 3, "level {level} and trump {trump} out of range");
        let table = TABLE.get_or_init(|| {
            let mut v = Vec::with_capacity(48 * Profile::ALL.len());
            for p in Profile::ALL {
                for l in 3..=14 {
                    for t in 0..4 {
                        v.push(Context::new(l, t, p).expect("valid"));
                    }
                }
            }
            v
        });
        &table[profile.index() * 48 + (level as usize - 3) * 4 + trump as usize]
    }
}

/// Parses a level: 3..=14 or "3".."10", "J", "Q", "K", "A".
pub fn parse_level(s: &str) -> Result<u8, Error> {
    match crate::rules::card::parse_rank(s.trim()) {
        Some(r) if r >= 3 => Ok(r),
        _ => match s.trim().parse::<i64>() {
            Ok(v) if (3..=14).contains(&v) => Ok(v as u8),
            _ => Err(Error::BadLevel(format!("{s:?}"))),
        },
    }
}

/// Parses a suit letter or symbol: s h d c, ♠ ♥ ♦ ♣.
pub fn parse_suit(s: &str) -> Result<u8, Error> {
    let mut it = s.trim().chars();
    match (it.next(), it.next()) {
        (Some(c), None) => match c.to_ascii_lowercase() {
            's' | '♠' | '♤' => Ok(0),
            'h' | '♥' | '♡' => Ok(1),
            'd' | '♦' | '♢' => Ok(2),
            'c' | '♣' | '♧' => Ok(3),
            _ => Err(Error::BadSuit(s.to_string())),
        },
        _ => Err(Error::BadSuit(s.to_string())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::card::parse_card as c;

    fn ctx(level: u8, trump: u8) -> Context {
        Context::new(level, trump, Profile::Guigang).unwrap()
    }

    /// `nth_trump` against walking the trump class's kinds in order, in every profile, level
    /// and trump, on random sets of trumps (and past the last kind: `None`).
    #[test]
    fn nth_trump_is_the_walk_in_class_order() {
        let mut rng = crate::util::rng::Rng::new(5);
        let mut checked = 0;
        for profile in Profile::ALL {
            for level in 3..=14u8 {
                for trump in 0..4u8 {
                    let ctx = Context::new(level, trump, profile).unwrap();
                    assert_eq!(ctx.trump_runs.iter().fold(0, |a, r| a | r), ctx.class_mask[TRUMP as usize]);
                    for _ in 0..50 {
                        let mask = rng.next_u64() & rng.next_u64() & ctx.class_mask[TRUMP as usize];
                        let walk: Vec<u8> = ctx.class_kinds(TRUMP).iter().copied().filter(|&k| mask >> k & 1 == 1).collect();
                        for r in 0..=walk.len() as u32 {
                            assert_eq!(ctx.nth_trump(mask, r), walk.get(r as usize).copied(), "{mask:x} {r}");
                            checked += 1;
                        }
                    }
                }
            }
        }
        assert!(checked > 20_000, "{checked}");
    }

    /// In every profile, level and trump, `bits_of` reads each chain's kinds' bits in link
    /// order (the chains are built as runs of ids but for at most one).
    #[test]
    fn chains_are_runs_of_ids() {
        let mut rng = crate::util::rng::Rng::new(17);
        for profile in Profile::ALL {
            for level in 3..=14u8 {
                for trump in 0..4u8 {
                    let t = Context::new(level, trump, profile).unwrap();
                    for ch in t.chains.iter().filter(|ch| ch.len >= 2) {
                        assert!(ch.id_span > 0, "{profile:?} level {level} trump {trump}: {:?}", t.chain_kinds(ch));
                        for _ in 0..20 {
                            let ids = rng.next_u64() & ((1u64 << KINDS) - 1);
                            let want = t.chain_kinds(ch).iter().enumerate().fold(0u64, |b, (i, &k)| b | (ids >> k & 1) << i);
                            assert_eq!(ch.bits_of(ids), want);
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn r2_2_trump_count_is_84() {
        for level in 3..=14 {
            for trump in 0..4 {
                let t = ctx(level, trump);
                let n = (0..54).filter(|&k| t.class[k] == TRUMP).count() * 4;
                assert_eq!(n, 84);
                for suit in (0..4).filter(|&s| s != trump) {
                    assert_eq!((0..54).filter(|&k| t.class[k] == suit).count() * 4, 44);
                }
            }
        }
    }

    #[test]
    fn r2_3_trump_strength_order() {
        let t = ctx(10, 1);
        let order = ["BJ", "SJ", "10h", "10s", "2h", "2s", "Ah", "Kh", "Qh", "Jh", "9h", "3h"];
        for w in order.windows(2) {
            assert!(t.strength[c(w[0]).unwrap().id()] > t.strength[c(w[1]).unwrap().id()], "{w:?}");
        }
        // R2.6: equal strength for the off-suit level cards and the off-suit twos
        assert_eq!(t.strength[c("10s").unwrap().id()], t.strength[c("10c").unwrap().id()]);
        assert_eq!(t.strength[c("2d").unwrap().id()], t.strength[c("2c").unwrap().id()]);
        // R2.4: a plain suit without L and 2
        assert!(t.strength[c("As").unwrap().id()] > t.strength[c("Ks").unwrap().id()]);
        assert!(t.strength[c("Js").unwrap().id()] > t.strength[c("9s").unwrap().id()]);
    }

    #[test]
    fn r2_5_off_level_is_trump_class() {
        let t = ctx(10, 1);
        assert!(t.is_trump(c("10s").unwrap()));
        assert!(t.is_trump(c("2c").unwrap()));
        assert!(!t.is_trump(c("As").unwrap()));
    }

    #[test]
    fn r3_3_links() {
        let t = ctx(10, 1);
        let l = |a: &str, b: &str| t.linked(c(a).unwrap(), c(b).unwrap());
        assert!(l("BJ", "SJ"));
        assert!(l("2h", "3h") && l("Ah", "2h") && l("9h", "10h") && l("10h", "Jh") && l("Kh", "Ah"));
        assert!(!l("SJ", "10h"), "D2: SJ-正L");
        assert!(!l("10h", "10s"), "D2: 正L-副L");
        assert!(!l("10s", "2s"), "D2: 副L-2");
        assert!(!l("Js", "9s"), "D2: J-9 across the removed level");
        assert!(l("9s", "8s") && l("Qs", "Js"));
        assert!(!l("As", "2s"), "no wrap in a plain suit");
        let t3 = ctx(3, 1);
        assert!(!t3.linked(c("2s").unwrap(), c("3s").unwrap()), "副2-副L never link");
        assert!(t3.linked(c("2h").unwrap(), c("3h").unwrap()));
    }

    #[test]
    fn c1_no_a_2_link_in_competition() {
        let t = Context::new(10, 1, Profile::Competition).unwrap();
        let l = |a: &str, b: &str| t.linked(c(a).unwrap(), c(b).unwrap());
        assert!(!l("Ah", "2h"), "C1: 2和A不能组合");
        assert!(l("2h", "3h") && l("9h", "10h") && l("10h", "Jh") && l("Kh", "Ah"), "C1: the rest of the trump suit");
        assert!(l("BJ", "SJ") && l("9s", "8s") && !l("Js", "9s") && !l("10s", "2s") && !l("SJ", "10h"));
        let t4 = Context::new(4, 1, Profile::Competition).unwrap();
        assert!(!t4.linked(c("3s").unwrap(), c("5s").unwrap()), "C1: 打4时副牌3与5不算拖拉机");
        assert!(t.chains_of(TRUMP).iter().all(|ch| !ch.cyclic));
    }

    #[test]
    fn chains_cover_every_kind_once() {
        for (level, trump, profile) in (3..=14).flat_map(|l| (0..4).flat_map(move |t| Profile::ALL.map(|p| (l, t, p)))) {
            {
                let t = Context::new(level, trump, profile).unwrap();
                let mut seen = [false; 54];
                for class in 0..5 {
                    for k in t.class_kinds(class) {
                        assert_eq!(t.class[*k as usize], class);
                        assert!(!seen[*k as usize]);
                        seen[*k as usize] = true;
                    }
                    for ch in t.chains_of(class) {
                        let ks = t.chain_kinds(ch);
                        for w in ks.windows(2) {
                            assert!(t.linked(Card(w[0]), Card(w[1])));
                        }
                    }
                }
                assert!(seen.iter().all(|&s| s));
            }
        }
    }

    #[test]
    fn levels_parse() {
        assert_eq!(parse_level("10").unwrap(), 10);
        assert_eq!(parse_level("A").unwrap(), 14);
        assert_eq!(parse_level("q").unwrap(), 12);
        assert!(parse_level("2").is_err());
        assert!(parse_level("15").is_err());
        assert_eq!(parse_suit("♥").unwrap(), 1);
        assert!(parse_suit("x").is_err());
    }
}
