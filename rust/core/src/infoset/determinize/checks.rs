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
const SLOTS: usize = 1 << 7;

/// An empty slot (no key reaches it: a key has at most 21 kinds of 3 bits, 63 bits).
const EMPTY: u64 = u64::MAX;

#[derive(Clone, Debug, Default)]
pub struct CheckMemo {
    /// Per check: the led class's kinds, or `None` when they do not fit in a key.
    kinds: Vec<Option<&'static [u8]>>,
    /// Per check, `SLOTS` slots: a key shifted left by one with its verdict in bit 0.
    slots: Vec<u64>,
}

impl CheckMemo {
    pub fn new(info: &InfoSet) -> CheckMemo {
        if info.checks.is_empty() {
            return CheckMemo::default();
        }
        let ctx = info.ctx();
        let kinds: Vec<Option<&'static [u8]>> = info
            .checks
            .iter()
            .map(|c| Some(ctx.class_kinds(c.lead.class)).filter(|k| k.len() * 3 < 64))
            .collect();
        let slots = vec![EMPTY; kinds.len() * SLOTS];
        CheckMemo { kinds, slots }
    }

    /// Does check `ci` of `info` pass on the follower's hand now (`hand`)?
    pub fn passes(&mut self, info: &InfoSet, ci: usize, hand: &Counts) -> bool {
        let c = &info.checks[ci];
        let Some(kinds) = self.kinds[ci] else { return info.passes_check(c, hand) };
        let key = kinds.iter().fold(0u64, |acc, &k| acc << 3 | hand[k as usize] as u64);
        // (Fibonacci hashing: the top bits of the key times 2^64 / φ)
        let at = ci * SLOTS + (key.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> (64 - SLOTS.trailing_zeros())) as usize;
        let slot = self.slots[at];
        if slot >> 1 == key && slot != EMPTY {
            return slot & 1 == 1;
        }
        let v = info.passes_check(c, hand);
        self.slots[at] = key << 1 | v as u64;
        v
    }
}
