//! The open-card solver's transposition table: bounds of positions' values under 128-bit
//! keys (the keys are hashes already, so their low bits pick the bucket directly).
//!
//! Open addressing, linear probing over a window of [`WAYS`] slots. The table starts small and
//! doubles (every entry put again) when half full, up to [`MAX_SLOTS`]; a full window gives up
//! its entry that cost the fewest nodes to find. Every step depends only on the sequence of
//! calls, so a search is the same on every run and platform.

/// Slots a key may occupy (linear probing).
pub const WAYS: usize = 16;

/// The table's first size (slots).
const MIN_SLOTS: usize = 1 << 10;

/// The table's largest size (slots, 32 bytes each: 128 MiB).
pub const MAX_SLOTS: usize = 1 << 22;

/// One entry: bounds of (final score − the defenders' points so far), the best play's index
/// and the nodes its search took (which entry to give up first).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Entry {
    pub lo: i32,
    pub hi: i32,
    pub best: u16,
    pub work: u32,
}

#[derive(Clone, Copy, Default)]
struct Slot {
    /// 0: empty (keys are stored as at least 1).
    key: u128,
    entry: Entry,
}

pub struct Table {
    slots: Vec<Slot>,
    used: usize,
}

impl Default for Table {
    fn default() -> Table {
        Table { slots: vec![Slot::default(); MIN_SLOTS], used: 0 }
    }
}

impl Table {
    /// The slots `key` may occupy: [`WAYS`] from the one its low bits name (wrapping).
    #[inline]
    fn window(&self, key: u128) -> impl Iterator<Item = usize> {
        let mask = self.slots.len() - 1;
        let at = key as usize;
        (0..WAYS).map(move |i| (at + i) & mask)
    }

    /// The entry under `key`, if kept.
    #[inline]
    pub fn get(&self, key: u128) -> Option<Entry> {
        let key = key.max(1);
        for i in self.window(key) {
            let s = &self.slots[i];
            if s.key == key {
                return Some(s.entry);
            }
            if s.key == 0 {
                return None;
            }
        }
        None
    }

    /// Entries kept.
    pub fn len(&self) -> usize {
        self.used
    }

    pub fn is_empty(&self) -> bool {
        self.used == 0
    }

    /// Keeps `entry` under `key` (replacing the key's entry if kept).
    pub fn insert(&mut self, key: u128, entry: Entry) {
        if 2 * self.used >= self.slots.len() && self.slots.len() < MAX_SLOTS {
            self.grow();
        }
        self.put(Slot { key: key.max(1), entry });
    }

    /// Stores `slot` in its window: over its key's entry, else in the first empty slot, else
    /// over the entry that took the fewest nodes if that is no more than its own.
    fn put(&mut self, slot: Slot) {
        let mut cheapest = usize::MAX;
        for i in self.window(slot.key) {
            let s = &self.slots[i];
            if s.key == slot.key || s.key == 0 {
                self.used += (s.key == 0) as usize;
                self.slots[i] = slot;
                return;
            }
            if cheapest == usize::MAX || s.entry.work < self.slots[cheapest].entry.work {
                cheapest = i;
            }
        }
        if self.slots[cheapest].entry.work <= slot.entry.work {
            self.slots[cheapest] = slot;
        }
    }

    /// Doubles the table, every entry put again.
    fn grow(&mut self) {
        let size = 2 * self.slots.len();
        let old = std::mem::replace(&mut self.slots, vec![Slot::default(); size]);
        self.used = 0;
        for s in old.into_iter().filter(|s| s.key != 0) {
            self.put(s);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Entries come back as kept, through growth (a full window may drop one, rarely).
    #[test]
    fn entries_come_back_through_growth() {
        let mut t = Table::default();
        let e = |i: u32| Entry { lo: i as i32, hi: i as i32 + 1, best: (i % 7) as u16, work: i };
        let key = |i: u32| (i as u128).wrapping_mul(0x9e37_79b9_7f4a_7c15_f39c_c060_5ced_c835) | 1 << 127;
        for i in 0..50_000 {
            t.insert(key(i), e(i));
        }
        assert!(t.len() > 49_900, "{}", t.len());
        let kept = (0..50_000).filter(|&i| t.get(key(i)) == Some(e(i))).count();
        assert_eq!(kept, t.len());
        assert_eq!(t.get(key(50_001)), None);
        t.insert(key(3), e(9));
        assert_eq!(t.get(key(3)), Some(e(9)));
    }
}
