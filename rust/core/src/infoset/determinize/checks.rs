//! The ladder checks (docs/rules.md R5.3) of one information set, evaluated on candidate
//! hands with a memo. A check reads only the led class of the follower's hand
//! ([`crate::rules::follow::Follow`] looks at nothing else), so its verdict is a function of that
//! class's counts: packed three bits a kind into a `u64`, they key the memo. A verdict is
//! the same however it is found, so the memo changes no draw, only its cost.
//!
//! The memo is a small table per check with one slot per hash of the key (a verdict found
//! later for another key in the same slot replaces it): mid-hand most holdings are new and a
//! lookup must cost little; near the end of a hand few holdings recur and they stay.

use crate::infoset::info::InfoSet;
use crate::rules::card::Counts;

/// Slots per check (a power of two): 8 bytes each.
const SLOTS: usize = 1 << 6;

/// An empty slot (no key reaches it: a key has at most 21 kinds of 3 bits, 63 bits).
const EMPTY: u64 = u64::MAX;

#[derive(Clone, Debug, Default)]
pub struct CheckMemo {
    /// Per check: the led class's kinds and where its slots begin, or `None` when they do not
    /// fit in a key or the check is never run.
    kinds: Vec<Option<(&'static [u8], usize)>>,
    /// Per memoised check, `SLOTS` slots: a key shifted left by one with its verdict in bit 0.
    slots: Vec<u64>,
}

impl CheckMemo {
    /// The memo of the checks `live` (indices into `info.checks`): the others are never run.
    pub fn new(info: &InfoSet, live: &[usize]) -> CheckMemo {
        if live.is_empty() {
            return CheckMemo { kinds: vec![None; info.checks.len()], slots: Vec::new() };
        }
        let ctx = info.ctx();
        let mut kinds = vec![None; info.checks.len()];
        let mut n = 0;
        for &ci in live {
            let k = ctx.class_kinds(info.checks[ci].lead.class);
            if k.len() * 3 < 64 {
                kinds[ci] = Some((k, n * SLOTS));
                n += 1;
            }
        }
        CheckMemo { kinds, slots: vec![EMPTY; n * SLOTS] }
    }

    /// Does check `ci` of `info` pass on the follower's hand now (`hand`)?
    pub fn passes(&mut self, info: &InfoSet, ci: usize, hand: &Counts) -> bool {
        let c = &info.checks[ci];
        let Some((kinds, first)) = self.kinds[ci] else { return info.passes_check(c, hand) };
        let key = kinds.iter().fold(0u64, |acc, &k| acc << 3 | hand[k as usize] as u64);
        // (Fibonacci hashing: the top bits of the key times 2^64 / φ)
        let at = first + (key.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> (64 - SLOTS.trailing_zeros())) as usize;
        let slot = self.slots[at];
        if slot >> 1 == key && slot != EMPTY {
            return slot & 1 == 1;
        }
        let v = info.passes_check(c, hand);
        self.slots[at] = key << 1 | v as u64;
        v
    }
}
