//! The open-card solver's transposition table: bounds of positions' values under 128-bit
//! keys (the keys are hashes already, so their low bits pick the bucket directly).
//!
//! Open addressing, linear probing over a window of [`WAYS`] slots. The table starts small and
//! doubles (every entry put again) when half full, up to [`MAX_SLOTS`]; a full window gives up
//! its entry that cost the fewest nodes to find. Every step depends only on the sequence of
//! calls, so a search is the same on every run and platform.

use std::sync::atomic::{AtomicU32, Ordering::Relaxed};
use std::sync::Arc;

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

    /// The slot with its word as a `u32` (0 for none).
    fn with_u32(&self) -> Slot<u32> {
        let (check, tag, lo, hi, best, work, word) = (self.check, self.tag, self.lo, self.hi, self.best, self.work, self.word);
        Slot { check, tag, lo, hi, best, work, word: word.get() }
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

/// The slots a slot placed at `at` may occupy in a table of `len` slots (a power of two):
/// [`WAYS`] from there (wrapping).
#[inline]
fn window(at: usize, len: usize) -> impl Iterator<Item = usize> {
    let mask = len - 1;
    (0..WAYS).map(move |i| (at + i) & mask)
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

    #[inline]
    fn window(&self, at: usize) -> impl Iterator<Item = usize> {
        window(at, self.slots.len())
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

/// Slots that several threads read and write at once (the solver's threads, one table): a
/// fixed size, each slot five 32-bit words stored apart, the key's check XOR a mix of the
/// other words, so that a slot read while another thread writes it (torn) reads as another
/// key's, never as a wrong entry of this one: a lost entry is a cost, never a value.
pub struct SharedSlots {
    slots: Vec<[AtomicU32; 5]>,
}

/// A slot's entry words mixed (what the check is XORed with): any change to them changes
/// the mix as a hash would, so words of two writes read together match no key's check but by
/// a chance of about 2^-64.
#[inline]
fn mix(d: [u32; 3]) -> u64 {
    let mut x = ((d[1] as u64) << 32 | d[0] as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    x ^= x >> 29;
    x = x.wrapping_add((d[2] as u64 | 1 << 32).wrapping_mul(0xbf58_476d_1ce4_e5b9));
    x = (x ^ x >> 32).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ x >> 29
}

impl SharedSlots {
    /// `slots` slots (a power of two, at least [`WAYS`]).
    pub fn new(slots: usize) -> SharedSlots {
        assert!(slots.is_power_of_two() && slots >= WAYS, "a power of two, at least WAYS");
        SharedSlots { slots: (0..slots).map(|_| Default::default()).collect() }
    }

    /// The slot at `i` as written (check 0: empty).
    #[inline]
    fn read(&self, i: usize) -> Slot<u32> {
        let w = self.slots[i].each_ref().map(|x| x.load(Relaxed));
        let check = if w == [0; 5] { 0 } else { ((w[1] as u64) << 32 | w[0] as u64) ^ mix([w[2], w[3], w[4]]) };
        Slot { check, tag: w[2] as u16, lo: (w[2] >> 16) as i16, hi: w[3] as i16, best: (w[3] >> 16) as u8, work: (w[3] >> 24) as u8, word: w[4] }
    }

    #[inline]
    fn write(&self, i: usize, s: &Slot<u32>) {
        let d = [s.tag as u32 | (s.lo as u16 as u32) << 16, s.hi as u16 as u32 | (s.best as u32) << 16 | (s.work as u32) << 24, s.word];
        let c = s.check ^ mix(d);
        for (x, v) in self.slots[i].iter().zip([c as u32, (c >> 32) as u32, d[0], d[1], d[2]]) {
            x.store(v, Relaxed);
        }
    }

    #[inline]
    fn window(&self, at: usize) -> impl Iterator<Item = usize> {
        window(at, self.slots.len())
    }

    /// The entry under `key` and its word, if kept (and read whole).
    pub fn get(&self, key: u128) -> Option<(Entry, u32)> {
        let (c, tag) = split(key);
        let at = Slot::<u32> { check: c, tag, ..Slot::default() }.place();
        for i in self.window(at) {
            let s = self.read(i);
            if s.holds(c, tag) {
                return Some((s.entry(), s.word));
            }
            let check = s.check;
            if check == 0 {
                return None;
            }
        }
        None
    }

    /// Keeps `entry` under `key` with `word`, as [`Table::insert_word`] does (over its key's
    /// entry, else an empty slot, else the window's cheapest), without growing.
    pub fn insert(&self, key: u128, entry: Entry, word: u32) {
        self.put(Slot::of(key, entry, word));
    }

    /// Every entry of `table` kept here too (a thread's table handed to the threads).
    pub fn take_in(&self, table: &Table) {
        match &table.0 {
            Kind::Plain(t) => self.take_slots(t),
            Kind::Words(t) => self.take_slots(t),
            Kind::Shared(t) => self.take_shared(t),
        }
    }

    /// Every entry of `other` kept here too, read as the threads write it (a slot written
    /// meanwhile may be missed, or read torn: then kept under no key any search makes).
    pub fn take_shared(&self, other: &SharedSlots) {
        for i in 0..other.slots.len() {
            let s = other.read(i);
            let check = s.check;
            if check != 0 {
                self.put(s);
            }
        }
    }

    /// Slots (the table's size).
    pub fn capacity(&self) -> usize {
        self.slots.len()
    }

    fn take_slots<W: Word>(&self, t: &Slots<W>) {
        for s in t.slots.iter().filter(|s| {
            let check = s.check;
            check != 0
        }) {
            self.put(s.with_u32());
        }
    }

    fn put(&self, slot: Slot<u32>) {
        let (c, tag) = (slot.check, slot.tag);
        let (mut cheapest, mut least) = (usize::MAX, u8::MAX);
        for i in self.window(slot.place()) {
            let s = self.read(i);
            let check = s.check;
            if s.holds(c, tag) || check == 0 {
                self.write(i, &slot);
                return;
            }
            if cheapest == usize::MAX || s.work < least {
                (cheapest, least) = (i, s.work);
            }
        }
        self.write(cheapest, &slot);
    }
}

/// The table: its slots keep a word each (partition search's) or none, or are shared with
/// other threads' tables (a word each).
pub struct Table(Kind);

enum Kind {
    Plain(Slots<()>),
    Words(Slots<u32>),
    Shared(Arc<SharedSlots>),
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

    /// A table over `slots`, shared with the other tables made over them (a word each).
    pub fn sharing(slots: &Arc<SharedSlots>) -> Table {
        Table(Kind::Shared(slots.clone()))
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
            Kind::Shared(s) => s.get(key),
        }
    }

    /// Slots (the table's size now).
    pub fn capacity(&self) -> usize {
        match &self.0 {
            Kind::Plain(s) => s.slots.len(),
            Kind::Words(s) => s.slots.len(),
            Kind::Shared(s) => s.slots.len(),
        }
    }

    /// Entries kept.
    pub fn len(&self) -> usize {
        match &self.0 {
            Kind::Plain(s) => s.used,
            Kind::Words(s) => s.used,
            Kind::Shared(s) => (0..s.slots.len()).filter(|&i| s.read(i).check != 0).count(),
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
            Kind::Shared(s) => s.insert(key, entry, word),
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

    /// A shared table gives back what it kept, by one thread or four at once; a slot whose
    /// words come from two writes (as a read between another thread's stores sees it) reads
    /// as no entry, and a full window keeps the new entry over its cheapest.
    #[test]
    fn shared_slots_keep_entries_and_refuse_torn_ones() {
        let e = |i: u32| Entry { lo: (i % 9000) as i32 - 4000, hi: (i % 9000) as i32, best: (i % 7) as u16, work: i % 2 };
        let key = |i: u32| (i as u128).wrapping_mul(0x9e37_79b9_7f4a_7c15_f39c_c060_5ced_c835) | 1 << 127;
        let t = SharedSlots::new(1 << 16);
        std::thread::scope(|sc| {
            for part in 0..4u32 {
                let t = &t;
                sc.spawn(move || (part * 5_000..(part + 1) * 5_000).for_each(|i| t.insert(key(i), e(i), i)));
            }
        });
        let kept = (0..20_000).filter(|&i| t.get(key(i)) == Some((e(i), i))).count();
        assert!(kept > 19_900, "{kept}");
        assert_eq!(t.get(key(20_001)), None);
        // the words of two writes of one key: its check with the other entry's words
        let (a, b) = (Entry { lo: 0, hi: 50, best: 1, work: 9 }, Entry { lo: 10, hi: 20, best: 2, work: 9 });
        let k = key(7);
        let mut torn = 0;
        for word in 0..5 {
            let t = SharedSlots::new(1 << 10);
            t.insert(k, a, 3);
            let at = (0..t.slots.len()).find(|&i| t.read(i).holds(split(k).0, split(k).1)).expect("kept");
            let first: [u32; 5] = t.slots[at].each_ref().map(|x| x.load(Relaxed));
            t.insert(k, b, 4);
            t.slots[at][word].store(first[word], Relaxed);
            let got = t.get(k);
            assert!(got.is_none() || got == Some((b, 4)), "{word}: {got:?}");
            torn += got.is_none() as usize;
        }
        assert_eq!(torn, 5);
        // a full window: the cheapest gives way
        let w = SharedSlots::new(WAYS);
        let wk = |j: u64| (((5u64 << 48) | (j << 20)) as u128) << 64;
        for j in 0..WAYS as u64 {
            w.insert(wk(j), Entry { lo: 0, hi: 5, best: 0, work: 1_000 << j }, 0);
        }
        w.insert(wk(99), Entry { lo: 0, hi: 5, best: 0, work: 1 }, 0);
        assert!(w.get(wk(99)).is_some() && w.get(wk(0)).is_none());
        assert!((1..WAYS as u64).all(|j| w.get(wk(j)).is_some()));
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
