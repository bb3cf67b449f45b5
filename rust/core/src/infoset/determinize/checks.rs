//! The ladder checks (docs/rules.md R5.3) of one information set, evaluated on candidate
//! hands with a memo. A check reads only the led class of the follower's hand
//! ([`crate::rules::follow::Follow`] looks at nothing else), so its verdict is a function of that
//! class's counts: packed three bits a kind into a `u64`, they key the memo. A verdict is
//! the same however it is found, so the memo changes no draw, only its cost.

use std::collections::HashMap;
use std::hash::BuildHasherDefault;

use crate::infoset::info::InfoSet;
use crate::rules::card::Counts;
use crate::util::hash::FxHasher;

/// Verdicts kept per check at most (the memo's memory stays bounded: a few hundred KB).
const MAX_ENTRIES: usize = 1 << 13;

type Memo = HashMap<u64, bool, BuildHasherDefault<FxHasher>>;

#[derive(Clone, Debug, Default)]
pub struct CheckMemo {
    /// Per check: the led class's kinds, or `None` when they do not fit in a key.
    kinds: Vec<Option<&'static [u8]>>,
    memo: Vec<Memo>,
}

impl CheckMemo {
    pub fn new(info: &InfoSet) -> CheckMemo {
        if info.checks.is_empty() {
            return CheckMemo::default();
        }
        let ctx = info.ctx();
        let kinds = info
            .checks
            .iter()
            .map(|c| Some(ctx.class_kinds(c.lead.class)).filter(|k| k.len() * 3 <= 64))
            .collect();
        CheckMemo { kinds, memo: vec![Memo::default(); info.checks.len()] }
    }

    /// Does check `ci` of `info` pass on the follower's hand now (`hand`)?
    pub fn passes(&mut self, info: &InfoSet, ci: usize, hand: &Counts) -> bool {
        let c = &info.checks[ci];
        let Some(kinds) = self.kinds[ci] else { return info.passes_check(c, hand) };
        let key = kinds.iter().fold(0u64, |acc, &k| acc << 3 | hand[k as usize] as u64);
        if let Some(&v) = self.memo[ci].get(&key) {
            return v;
        }
        let v = info.passes_check(c, hand);
        if self.memo[ci].len() < MAX_ENTRIES {
            self.memo[ci].insert(key, v);
        }
        v
    }
}
