//! The open-card solver's cache of exact values of its last-two-tricks positions: a small
//! direct-mapped table from a position's exact cards (each hand's two kinds and who leads,
//! [`key`]) to its value less the defenders' points so far, which is all the rest of the hand
//! depends on once the solve's trump, level, profile and banker are fixed.
//!
//! A slot keeps its whole key, so a value read back is always the key's; a newer key takes the
//! slot over. Every step depends only on the sequence of calls: a search is the same on every
//! run and platform.

/// Slots at first use and at most (powers of two; 16 bytes each: 16 KiB and 512 KiB): the
/// table doubles, its entries placed again, each time it has taken a quarter as many values
/// as it has slots, so that a small solve clears a small table.
const FIRST_SLOTS: usize = 1 << 10;
const SLOTS: usize = 1 << 15;

#[derive(Default)]
pub struct ExactCache {
    /// (key + 1, value): key + 1 = 0 marks an empty slot.
    slots: Vec<(u64, i64)>,
    /// 64 less log2 of the slots.
    shift: u32,
    /// Values taken since the table last doubled.
    puts: usize,
}

/// The key of a last-two-tricks position: who leads, and each hand's lower and higher kind id
/// (equal for a pair), 6 bits each.
#[inline]
pub fn key(leader: u8, once: &[u64; 4]) -> u64 {
    let mut k = leader as u64;
    for m in once {
        k = k << 12 | (m.trailing_zeros() as u64) << 6 | (63 - m.leading_zeros() as u64);
    }
    k
}

impl ExactCache {
    #[inline]
    fn at(&self, key: u64) -> usize {
        (key.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> self.shift) as usize
    }

    /// The value kept under `key`, if any.
    #[inline]
    pub fn get(&self, key: u64) -> Option<i32> {
        if self.slots.is_empty() {
            return None;
        }
        let s = self.slots[self.at(key)];
        (s.0 == key + 1).then_some(s.1 as i32)
    }

    /// The whole word kept under `key`, if any (a value and what [`ExactCache::put_word`]
    /// packed above it).
    #[cfg_attr(not(test), allow(dead_code))]
    pub fn get_word(&self, key: u64) -> Option<i64> {
        if self.slots.is_empty() {
            return None;
        }
        let s = self.slots[self.at(key)];
        (s.0 == key + 1).then_some(s.1)
    }

    /// Keeps a whole word under `key` (partition search's relevance packed above the value).
    #[cfg_attr(not(test), allow(dead_code))]
    pub fn put_word(&mut self, key: u64, word: i64) {
        self.put(key, 0);
        let at = self.at(key);
        self.slots[at].1 = word;
    }

    /// Keeps `value` under `key` (over the slot's entry, if any).
    #[inline]
    pub fn put(&mut self, key: u64, value: i32) {
        if self.slots.is_empty() {
            self.slots = vec![(0, 0); FIRST_SLOTS];
            self.shift = 64 - FIRST_SLOTS.trailing_zeros();
        }
        self.puts += 1;
        if 4 * self.puts >= self.slots.len() && self.slots.len() < SLOTS {
            // double, the entries kept placed again in slot order (a later one over an
            // earlier one of the same new slot)
            let doubled = vec![(0, 0); 2 * self.slots.len()];
            let old = std::mem::replace(&mut self.slots, doubled);
            self.shift -= 1;
            self.puts = 0;
            for s in old.into_iter().filter(|s| s.0 != 0) {
                let at = self.at(s.0 - 1);
                self.slots[at] = s;
            }
        }
        let at = self.at(key);
        self.slots[at] = (key + 1, value as i64);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Values come back under their keys only; a later key in the same slot replaces it.
    #[test]
    fn values_come_back_under_their_keys() {
        let mut c = ExactCache::default();
        assert_eq!(c.get(5), None);
        for k in 0..10_000u64 {
            c.put(k * 7919, k as i32 - 500);
        }
        let kept = (0..10_000u64).filter(|&k| c.get(k * 7919) == Some(k as i32 - 500)).count();
        assert!(kept > 7_000, "{kept}");
        assert!((0..10_000u64).all(|k| c.get(k * 7919).is_none_or(|v| v == k as i32 - 500)));
        assert_eq!(c.get(1), None);
    }
}
