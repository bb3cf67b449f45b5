//! The ladder checks (docs/rules.md R5.3) of one information set, evaluated on candidate
//! hands with a memo. A check reads only the led class of the follower's hand
//! ([`crate::rules::follow::Follow`] looks at nothing else), so its verdict is a function of that
//! class's counts: packed three bits a kind into a `u64`, they key the memo. A verdict is
//! the same however it is found, so the memo changes no draw, only its cost.
//!
//! The memo is a small table per check with one slot per hash of the key (a verdict found
//! later for another key in the same slot replaces it): mid-hand most holdings are new and a
//! lookup must cost little; near the end of a hand few holdings recur and they stay.
//!
//! A verdict is [`crate::rules::follow::Follow`]'s on the holding then, with what it reads of
//! the play (fixed per check: its cards in the led class, whether T1 accepts it, its pairs and
//! what a tractor of each size costs them, R5.3 T1–T3) found once instead of at every hand.

use crate::infoset::info::{FollowCheck, InfoSet};
use crate::rules::card::Counts;
use crate::rules::combo::{classify, Combo};
use crate::rules::follow::{min_tractor_loss, pairs, t1_accepts, Follow};
use crate::rules::profile::FollowRule;
use crate::rules::trump::Context;
use crate::util::memo::{remembered, Memo};

/// Slots per check (a power of two): 8 bytes each.
const SLOTS: usize = 1 << 6;

/// An empty slot (no key reaches it: a key has at most 21 kinds of 3 bits, 63 bits).
const EMPTY: u64 = u64::MAX;

/// `Play::loss` not yet found, and no tractor of that size in the play.
const UNKNOWN: u8 = u8::MAX;
const NO_TRACTOR: u8 = u8::MAX - 1;

/// What the ladder reads of a check's play (R5.2–R5.3), found once.
#[derive(Clone, Debug)]
struct Play {
    /// Its cards of the led class.
    in_class: u8,
    /// Whether T1 accepts it (one combination of the lead's size).
    t1: bool,
    /// Its pairs (R5.3 T3).
    pairs: u8,
    /// Per tractor size l: the least pairs a tractor of l cards inside it costs (`NO_TRACTOR`:
    /// none), found at first need (`UNKNOWN`).
    loss: Vec<u8>,
}

impl Play {
    fn of(ctx: &Context, c: &FollowCheck) -> Play {
        let class = c.lead.class;
        let in_class = ctx.class_kinds(class).iter().map(|&k| c.play[k as usize]).sum();
        let t1 = classify(ctx, &c.play).is_some_and(|x| t1_accepts(ctx, &c.lead, &x));
        Play { in_class, t1, pairs: pairs(ctx, class, &c.play), loss: vec![UNKNOWN; c.lead.size() + 1] }
    }
}

/// Verdicts of `InfoSet::passes_check` kept per thread (a cache: it changes no verdict, only
/// its cost), for the checks a determinizer asks once on the largest hand its bounds allow
/// (`Determinizer::live_checks`): the info sets of one hand, at later decisions or other
/// seats, ask the same follows again, mostly on the same holdings. Keyed by the rules
/// context, the lead, the holding then and the play, both in the led class (three bits a
/// kind: a check reads only its led class, R5.3, and a check's play is N cards of it).
type Kept = Memo<KeptKey, bool>;

/// A kept verdict's key: the rules context, the lead's fields, the holding then and the play,
/// hashed a word at a time.
#[derive(PartialEq, Eq)]
struct KeptKey([u64; 4]);

impl std::hash::Hash for KeptKey {
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        for &w in &self.0 {
            h.write_u64(w);
        }
    }
}

/// Verdicts kept at most per thread (sized once: no growing), the cache emptied when full.
const VERDICTS_KEPT: usize = 1024;

thread_local! {
    static KEPT: std::cell::RefCell<Kept> = std::cell::RefCell::new(Kept::with_capacity_and_hasher(VERDICTS_KEPT, Default::default()));
}

/// `info.passes_check(c, hand)`, kept per thread for the next info sets of the hand.
pub(super) fn passes_kept(info: &InfoSet, c: &FollowCheck, hand: &Counts) -> bool {
    let ctx = info.ctx();
    let kinds = ctx.class_kinds(c.lead.class);
    if kinds.len() * 3 >= 64 {
        return info.passes_check(c, hand);
    }
    // (the holding then: the hand and the cards played since, at most four a kind; the play's
    // cards of the led class, all of them where they are N, R5.1)
    let (mut then, mut play, mut in_class) = (0u64, 0u64, 0usize);
    for &k in kinds {
        let k = k as usize;
        then = then << 3 | (hand[k] + c.since[k]) as u64;
        play = play << 3 | c.play[k] as u64;
        in_class += c.play[k] as usize;
    }
    if in_class != c.lead.size() {
        return info.passes_check(c, hand);
    }
    let Combo { m, k, first, class, top } = c.lead;
    let lead = u64::from_le_bytes([m, k, first, class, top, 0, 0, 0]);
    let key = KeptKey([ctx as *const Context as u64, lead, then, play]);
    remembered(&KEPT, VERDICTS_KEPT, key, || info.passes_check(c, hand))
}

#[derive(Clone, Debug, Default)]
pub struct CheckMemo {
    /// Per check: the led class's kinds and where its slots begin, or `None` when they do not
    /// fit in a key or the check is never run.
    kinds: Vec<Option<(&'static [u8], usize)>>,
    /// Per memoised check, `SLOTS` slots: a key shifted left by one with its verdict in bit 0.
    slots: Vec<u64>,
    /// The rules context (the ladder's, R5.3) where the plays are read once; `None`: every
    /// verdict is `InfoSet::passes_check`'s (the competition profile's C4–C5).
    ctx: Option<&'static Context>,
    /// Per check run: its play as the ladder reads it.
    plays: Vec<Option<Play>>,
}

impl CheckMemo {
    /// The memo of the checks `live` (indices into `info.checks`): the others are never run.
    pub fn new(info: &InfoSet, live: &[usize]) -> CheckMemo {
        let mut m = CheckMemo { kinds: vec![None; info.checks.len()], slots: Vec::new(), ctx: None, plays: vec![None; info.checks.len()] };
        if live.is_empty() {
            return m;
        }
        let ctx = info.ctx();
        let mut n = 0;
        for &ci in live {
            let k = ctx.class_kinds(info.checks[ci].lead.class);
            if k.len() * 3 < 64 {
                m.kinds[ci] = Some((k, n * SLOTS));
                n += 1;
            }
        }
        m.slots = vec![EMPTY; n * SLOTS];
        if ctx.rules.follow == FollowRule::Ladder {
            m.ctx = Some(ctx);
            for &ci in live {
                m.plays[ci] = Some(Play::of(ctx, &info.checks[ci]));
            }
        }
        m
    }

    /// Does check `ci` of `info` pass on the follower's hand now (`hand`)?
    pub fn passes(&mut self, info: &InfoSet, ci: usize, hand: &Counts) -> bool {
        let Some((kinds, first)) = self.kinds[ci] else { return self.verdict(info, ci, hand) };
        let key = kinds.iter().fold(0u64, |acc, &k| acc << 3 | hand[k as usize] as u64);
        // (Fibonacci hashing: the top bits of the key times 2^64 / φ)
        let at = first + (key.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> (64 - SLOTS.trailing_zeros())) as usize;
        let slot = self.slots[at];
        if slot >> 1 == key && slot != EMPTY {
            return slot & 1 == 1;
        }
        let v = self.verdict(info, ci, hand);
        self.slots[at] = key << 1 | v as u64;
        v
    }

    /// `info.passes_check` on check `ci`: the ladder's case from the holding then (the hand now
    /// and the cards played since), the play judged by `Follow::fault_from` from what was
    /// read of it once.
    fn verdict(&mut self, info: &InfoSet, ci: usize, hand: &Counts) -> bool {
        let c = &info.checks[ci];
        let (Some(ctx), Some(play)) = (self.ctx, self.plays[ci].as_mut()) else { return info.passes_check(c, hand) };
        let mut then = *hand;
        for (x, y) in then.iter_mut().zip(&c.since) {
            *x += y;
        }
        let f = Follow::new(ctx, &then, c.lead);
        let (t1, pairs, loss) = (play.t1, play.pairs, &mut play.loss);
        f.fault_from(&c.play, play.in_class as u32, || t1, || pairs, |l| {
            let known = &mut loss[l as usize];
            if *known == UNKNOWN {
                *known = min_tractor_loss(ctx, c.lead.class, &c.play, l).unwrap_or(NO_TRACTOR);
            }
            (*known != NO_TRACTOR).then_some(*known)
        })
        .is_none()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::action_set::ActionSet;
    use crate::game::hand::{Game, Phase, NOBODY};
    use crate::rules::card::KINDS;
    use crate::rules::profile::Profile;
    use crate::util::rng::Rng;

    /// The memo's verdicts (the plays read once, the slots) and the thread's kept ones
    /// (`passes_kept`) against `InfoSet::passes_check` on random holdings of the led class (at
    /// most four copies with the cards played since), for every check of info sets along
    /// random hands of every profile: the same, both verdicts seen.
    #[test]
    fn the_memo_gives_the_checks_verdicts() {
        let (mut checks, mut pass, mut fail) = (0, 0, 0);
        for seed in 0..30u64 {
            let profile = Profile::ALL[(seed % 3) as usize];
            let mut g = Game::deal(seed, profile, [3, 3], NOBODY, None).unwrap();
            let mut rng = Rng::new(seed);
            let mut plays = 0;
            while let Some(a) = ActionSet::of(&g.pos).sample(&mut rng) {
                g.apply(&a).unwrap();
                if g.pos.phase != Phase::Play {
                    continue;
                }
                plays += 1;
                if plays % 9 != 0 {
                    continue;
                }
                let info = g.info((seed % 4) as u8);
                let all: Vec<usize> = (0..info.checks.len()).collect();
                let mut memo = CheckMemo::new(&info, &all);
                let ctx = info.ctx();
                for (ci, c) in info.checks.iter().enumerate() {
                    checks += 1;
                    for _ in 0..40 {
                        // (sparse to dense: a kind held with chance (1 + dense) / 3)
                        let dense = rng.below_usize(3);
                        let mut hand = [0u8; KINDS];
                        for &k in ctx.class_kinds(c.lead.class) {
                            let room = 4 - c.since[k as usize];
                            hand[k as usize] = rng.below_usize(room as usize + 1) as u8 * (rng.below_usize(3) <= dense) as u8;
                        }
                        let want = info.passes_check(c, &hand);
                        assert_eq!(memo.passes(&info, ci, &hand), want, "seed {seed}, check {ci}");
                        // (the thread's kept verdicts, found then kept)
                        assert_eq!(passes_kept(&info, c, &hand), want, "seed {seed}, check {ci}: kept");
                        assert_eq!(passes_kept(&info, c, &hand), want, "seed {seed}, check {ci}: kept again");
                        assert_eq!(memo.verdict(&info, ci, &hand), want, "seed {seed}, check {ci}");
                        if want {
                            pass += 1;
                        } else {
                            fail += 1;
                        }
                    }
                }
            }
        }
        eprintln!("{checks} checks, {pass} passed, {fail} failed");
        assert!(checks >= 100 && pass >= 500 && fail >= 500, "{checks} checks, {pass} passed, {fail} failed");
    }
}
