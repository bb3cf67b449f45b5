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

/// The table's largest size (slots, 16 bytes each, 20 with words: 256 MiB, 320 MiB), reached
/// only by searches of tens of millions of nodes.
pub const MAX_SLOTS: usize = 1 << 24;

/// One entry: bounds of (final score − the defenders' points so far), the best play's index
/// and the nodes its search took (which entry to give up first; read back as its log2).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Entry {
    pub lo: i32,
    pub hi: i32,
    pub best: u16,
    pub work: u32,
}

/// A slot of 16 bytes (four to a cache line: the probes are the search's cache misses): 80
/// bits of the key (its high 64, at least 1, and 16 of its low half; the slot's place is
/// computed from them, so the table can double), the bounds as i16 (a bound past the range
/// is stored widened to none), the best play's index (255: none kept) and log2 of the work;
/// with a word `W` beside them in the slot (20 bytes with a `u32`: partition search's exact
/// part, in the same cache line as the entry it belongs to).
#[derive(Clone, Copy, Default)]
#[repr(C, packed(4))]
struct Slot<W> {
    /// 0: empty.
    check: u64,
    tag: u16,
    lo: i16,
    hi: i16,
    best: u8,
    work: u8,
    word: W,
}

/// What a slot keeps besides its entry: nothing (`()`) or a `u32`.
trait Word: Copy + Default {
    fn of(w: u32) -> Self;
    fn get(self) -> u32;
}

impl Word for () {
    #[inline(always)]
    fn of(_: u32) {}
    #[inline(always)]
    fn get(self) -> u32 {
        0
    }
}

impl Word for u32 {
    #[inline(always)]
    fn of(w: u32) -> u32 {
        w
    }
    #[inline(always)]
    fn get(self) -> u32 {
        self
    }
}

/// The bounds read back for "none" (far past any score, with room to add the points won).
pub const NO_LOWER: i32 = i32::MIN / 4;
pub const NO_UPPER: i32 = i32::MAX / 4;

impl<W: Word> Slot<W> {
    fn of(key: u128, e: Entry, word: W) -> Slot<W> {
        let lo = if e.lo <= i16::MIN as i32 { i16::MIN } else { e.lo.min(i16::MAX as i32) as i16 };
        let hi = if e.hi >= i16::MAX as i32 { i16::MAX } else { e.hi.max(i16::MIN as i32) as i16 };
        let (check, tag) = split(key);
        Slot { check, tag, lo, hi, best: e.best.min(255) as u8, work: (32 - e.work.leading_zeros()) as u8, word }
    }

    fn entry(&self) -> Entry {
        let (lo, hi, best, work) = (self.lo, self.hi, self.best, self.work);
        let lo = if lo == i16::MIN { NO_LOWER } else { lo as i32 };
        let hi = if hi == i16::MAX { NO_UPPER } else { hi as i32 };
        let best = if best == 255 { u16::MAX } else { best as u16 };
        Entry { lo, hi, best, work: work as u32 }
    }

    /// Where the slot's window starts (before masking to the table's size).
    #[inline]
    fn place(&self) -> usize {
        let (check, tag) = (self.check, self.tag);
        (check.rotate_left(16) ^ tag as u64) as usize
    }

    #[inline]
    fn holds(&self, check: u64, tag: u16) -> bool {
        let (c, t) = (self.check, self.tag);
        c == check && t == tag
    }
}

/// What a slot keeps of a key: its high 64 bits (at least 1) and 16 of its low.
#[inline]
fn split(key: u128) -> (u64, u16) {
    (((key >> 64) as u64).max(1), key as u16)
}

/// The slots, with or without a word each.
struct Slots<W> {
    slots: Vec<Slot<W>>,
    used: usize,
}

impl<W: Word> Slots<W> {
    fn new() -> Slots<W> {
        Slots { slots: vec![Slot::default(); MIN_SLOTS], used: 0 }
    }

    /// The slots a slot placed at `at` may occupy: [`WAYS`] from there (wrapping).
    #[inline]
    fn window(&self, at: usize) -> impl Iterator<Item = usize> {
        let mask = self.slots.len() - 1;
        (0..WAYS).map(move |i| (at + i) & mask)
    }

    #[inline]
    fn get(&self, key: u128) -> Option<(Entry, u32)> {
        let (c, tag) = split(key);
        let at = Slot::<W> { check: c, tag, ..Slot::default() }.place();
        for i in self.window(at) {
            let s = &self.slots[i];
            if s.holds(c, tag) {
                let word = s.word;
                return Some((s.entry(), word.get()));
            }
            let check = s.check;
            if check == 0 {
                return None;
            }
        }
        None
    }

    fn insert(&mut self, key: u128, entry: Entry, word: u32) {
        if 2 * self.used >= self.slots.len() && self.slots.len() < MAX_SLOTS {
            self.grow();
        }
        self.put(Slot::of(key, entry, W::of(word)));
    }

    /// Stores `slot` in its window: over its key's entry, else in the first empty slot, else
    /// over the entry that took the fewest nodes. Always kept: a table at its largest size
    /// that kept the dearer entry instead filled with an earlier search's and kept no new
    /// one (BENCH 10 position 7 in 2^20 slots: 474M nodes, 123M when the new entry is kept;
    /// benches/HISTORY.md §50).
    fn put(&mut self, slot: Slot<W>) {
        let (c, tag) = (slot.check, slot.tag);
        let mut cheapest = usize::MAX;
        for i in self.window(slot.place()) {
            let s = &self.slots[i];
            let check = s.check;
            if s.holds(c, tag) || check == 0 {
                self.used += (check == 0) as usize;
                self.slots[i] = slot;
                return;
            }
            if cheapest == usize::MAX || s.work < self.slots[cheapest].work {
                cheapest = i;
            }
        }
        self.slots[cheapest] = slot;
    }

    /// Doubles the table, every entry put again.
    fn grow(&mut self) {
        let size = 2 * self.slots.len();
        let old = std::mem::replace(&mut self.slots, vec![Slot::default(); size]);
        self.used = 0;
        for s in old.into_iter().filter(|s| {
            let check = s.check;
            check != 0
        }) {
            self.put(s);
        }
    }
}

/// The table: its slots keep a word each (partition search's) or none.
pub struct Table(Kind);

enum Kind {
    Plain(Slots<()>),
    Words(Slots<u32>),
}

impl Default for Table {
    fn default() -> Table {
        Table(Kind::Plain(Slots::new()))
    }
}

impl Table {
    /// A table whose entries keep a word each ([`Table::insert_word`]).
    pub fn with_words() -> Table {
        Table(Kind::Words(Slots::new()))
    }

    /// The entry under `key`, if kept.
    #[inline]
    pub fn get(&self, key: u128) -> Option<Entry> {
        self.get_word(key).map(|(e, _)| e)
    }

    /// The entry under `key` and its word (0 in a table without words), if kept.
    #[inline]
    pub fn get_word(&self, key: u128) -> Option<(Entry, u32)> {
        match &self.0 {
            Kind::Plain(s) => s.get(key),
            Kind::Words(s) => s.get(key),
        }
    }

    /// Slots (the table's size now).
    pub fn capacity(&self) -> usize {
        match &self.0 {
            Kind::Plain(s) => s.slots.len(),
            Kind::Words(s) => s.slots.len(),
        }
    }

    /// Entries kept.
    pub fn len(&self) -> usize {
        match &self.0 {
            Kind::Plain(s) => s.used,
            Kind::Words(s) => s.used,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Keeps `entry` under `key` (replacing the key's entry if kept).
    pub fn insert(&mut self, key: u128, entry: Entry) {
        self.insert_word(key, entry, 0);
    }

    /// Keeps `entry` under `key` with `word` (not kept by a table without words).
    pub fn insert_word(&mut self, key: u128, entry: Entry, word: u32) {
        match &mut self.0 {
            Kind::Plain(s) => s.insert(key, entry, word),
            Kind::Words(s) => s.insert(key, entry, word),
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
        let e = |i: u32| Entry { lo: (i % 9000) as i32 - 4000, hi: (i % 9000) as i32, best: (i % 7) as u16, work: i % 2 };
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
        // bounds past i16 read back as none; a best past 254 as none
        t.insert(key(4), Entry { lo: -40_000, hi: 40_000, best: 300, work: 5 });
        assert_eq!(t.get(key(4)), Some(Entry { lo: NO_LOWER, hi: NO_UPPER, best: u16::MAX, work: 3 }));
    }

    /// A full window keeps the new entry over its cheapest, even where every entry there took
    /// more nodes: a table at its largest size keeps the searches' newest results.
    #[test]
    fn a_full_window_keeps_the_new_entry() {
        let mut t = Table::default();
        // keys whose window starts at slot 5 (the place is the check rotated, XOR the tag)
        let key = |j: u64| (((5u64 << 48) | (j << 20)) as u128) << 64;
        let e = |work: u32| Entry { lo: 0, hi: 5, best: 0, work };
        for j in 0..WAYS as u64 {
            t.insert(key(j), e(1_000 << j));
        }
        assert!((0..WAYS as u64).all(|j| t.get(key(j)).is_some()));
        t.insert(key(99), e(1));
        assert_eq!(t.get(key(99)).map(|x| (x.lo, x.hi)), Some((0, 5)));
        assert_eq!(t.get(key(0)), None, "the cheapest gave way");
        assert!((1..WAYS as u64).all(|j| t.get(key(j)).is_some()));
        assert_eq!(t.len(), WAYS);
    }

    /// Words kept beside the entries come back with them through growth; an entry kept again
    /// without a word loses its old one; a table without words gives none back; slots of 16
    /// and 20 bytes.
    #[test]
    fn words_come_back_with_their_entries() {
        let mut t = Table::with_words();
        let e = |i: u32| Entry { lo: (i % 30_000) as i32, hi: (i % 30_000) as i32 + 5, best: 1, work: i % 3 };
        let key = |i: u32| (i as u128).wrapping_mul(0x9e37_79b9_7f4a_7c15_f39c_c060_5ced_c835) | 1 << 127;
        t.insert(key(0), e(0));
        for i in 1..40_000 {
            t.insert_word(key(i), e(i), i % 7);
        }
        assert_eq!(t.get_word(key(0)), Some((e(0), 0)));
        let kept = (1..40_000).filter(|&i| t.get_word(key(i)) == Some((e(i), i % 7))).count();
        assert_eq!(kept + 1, t.len());
        t.insert(key(8), e(8));
        assert_eq!(t.get_word(key(8)), Some((e(8), 0)));
        let mut plain = Table::default();
        plain.insert_word(key(3), e(3), 5);
        assert_eq!(plain.get_word(key(3)), Some((e(3), 0)));
        assert_eq!((std::mem::size_of::<Slot<()>>(), std::mem::size_of::<Slot<u32>>()), (16, 20));
    }
}
