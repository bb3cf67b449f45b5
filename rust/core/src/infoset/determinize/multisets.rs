//! Turn chains (`turns.rs`) counted over classes of count vectors alike up to renaming suits.
//!
//! Who was asked reads a seat's level cards only through "one at least" (before anyone
//! showed), "more than k of one suit" (after another seat's showing of k) and "more than k of
//! its own suit" (after its own showing), and its own run of a public suit s drops the
//! placements with fewer than k of s before its showing of k. For a seat that has not shown,
//! all of these are the same for every renaming of the suits; for a seat with one run of a
//! public suit s, for every renaming that keeps s. So the number of fitting placements that
//! end at counts `c` (one per suit, 0 to 4) depends only on `c`'s class: its multiset (70
//! classes), or its count of s and the multiset of the other three (5 × 35 = 175 classes),
//! and so does the number after each position. The programme keeps one number per class (the
//! count of any one of its vectors) instead of one per vector (625), and a draw walks the
//! vectors, reading each one's number from its class's.

use std::sync::OnceLock;

use crate::game::hand::could_show;
use crate::rules::card::DECK;

use super::levels::pack;

/// One layer: per class, the fitting placements that end at any one of its vectors.
pub(super) type Layer = [u128];

/// The classes of count vectors under the renamings that keep `fixed` (all renamings: none).
#[derive(Debug)]
pub(super) struct Classes {
    /// The suit every renaming keeps.
    pub(super) fixed: Option<u8>,
    /// One vector of each class.
    reps: Vec<[u8; 4]>,
    /// Per packed counts (3 bits a suit): the index of its class.
    index: Box<[u16; 4096]>,
}

/// The classes for `fixed` (None: multisets; Some(s): the count of s and the multiset of the
/// others), built once.
pub(super) fn classes(fixed: Option<u8>) -> &'static Classes {
    static TABLES: [OnceLock<Classes>; 5] = [const { OnceLock::new() }; 5];
    TABLES[fixed.map_or(4, |s| s as usize)].get_or_init(|| {
        // a class's key: the fixed count first, then the others largest first
        let key = |c: [u8; 4]| {
            let mut k = c;
            if let Some(s) = fixed {
                k.swap(0, s as usize);
                k[1..].sort_unstable_by(|x, y| y.cmp(x));
            } else {
                k.sort_unstable_by(|x, y| y.cmp(x));
            }
            k
        };
        let mut keys: Vec<[u8; 4]> = vectors().map(key).collect();
        keys.sort_unstable();
        keys.dedup();
        let mut t = Classes { fixed, reps: vec![[0; 4]; keys.len()], index: Box::new([u16::MAX; 4096]) };
        for c in vectors() {
            let i = keys.binary_search(&key(c)).expect("every class listed");
            t.index[pack(c) as usize] = i as u16;
            t.reps[i] = c;
        }
        debug_assert_eq!(t.reps.len(), if fixed.is_some() { 175 } else { 70 });
        t
    })
}

/// Every vector of four counts 0..=4 (625), in a fixed order.
pub(super) fn vectors() -> impl Iterator<Item = [u8; 4]> {
    (0..625u32).map(|v| [(v % 5) as u8, (v / 5 % 5) as u8, (v / 25 % 5) as u8, (v / 125) as u8])
}

impl Classes {
    /// The number a layer holds for the counts `c` (each 0 to 4).
    pub(super) fn count(&self, layer: &Layer, c: [u8; 4]) -> u128 {
        self.count_packed(layer, pack(c))
    }

    /// [`Classes::count`] of counts already packed (`pack`).
    #[inline]
    pub(super) fn count_packed(&self, layer: &Layer, key: u16) -> u128 {
        layer[self.index[key as usize & 0xfff] as usize]
    }

    /// The classes, so the length of a layer.
    pub(super) fn len(&self) -> usize {
        self.reps.len()
    }

    /// Whether counts `c` pass the seat's own showings (`shows`: their counts) of the fixed
    /// suit made just before a position: at least k of it for each.
    pub(super) fn passes(&self, c: [u8; 4], shows: &[u8]) -> bool {
        self.fixed.is_none_or(|s| shows.iter().all(|&k| c[s as usize] >= k))
    }

    /// [`Classes::passes`] of showings of at most `need` cards (0: none).
    #[inline]
    pub(super) fn passes_need(&self, c: [u8; 4], need: u8) -> bool {
        self.fixed.is_none_or(|s| c[s as usize] >= need)
    }

    /// The programme of a seat at `positions` (its deal positions in order), with `public[j]`
    /// the (declarer, count) before position j, `shows[j]` its own showings (of the fixed
    /// suit) just before it and `asked_at` who was asked: the layers after each position (the
    /// first is the start), one after the other in one vector (layer j at `j * self.len()`),
    /// or `None` past the `budget` of entries (its nonzero entries are taken from it).
    pub(super) fn programme(&self, positions: &[u8], public: &[(u8, u8)], shows: &[Vec<u8>], asked_at: &[bool], seat: u8, budget: &mut usize) -> Option<Vec<u128>> {
        let own = self.fixed.unwrap_or(0);
        let mut layers = Vec::with_capacity((positions.len() + 1) * self.reps.len());
        let mut cur = vec![0u128; self.reps.len()];
        cur[self.index[0] as usize] = 1;
        for (j, &pos) in positions.iter().enumerate() {
            let (declarer, k) = public[j];
            // (the last card's receiver is asked again in the final round: left to the replay)
            let check = (pos as usize + 1) < DECK;
            let asked = asked_at[pos as usize];
            let mut next = vec![0u128; self.reps.len()];
            for (i, &h) in self.reps.iter().enumerate() {
                // (the declared suit is read only where the seat is the declarer: its own run's)
                if check && could_show(h, seat, declarer, own, k) != asked {
                    continue;
                }
                // the card just received: none of the level kinds, or one of suit x, from
                // counts that passed the showings before it
                let from = |p: [u8; 4]| if self.passes(p, &shows[j]) { self.count(&cur, p) } else { 0 };
                let mut n = from(h);
                for x in 0..4 {
                    if h[x] > 0 {
                        let mut p = h;
                        p[x] -= 1;
                        n += from(p);
                    }
                }
                next[i] = n;
            }
            *budget = budget.checked_sub(next.iter().filter(|&&n| n > 0).count())?;
            layers.extend_from_slice(&cur);
            cur = next;
        }
        layers.extend_from_slice(&cur);
        Some(layers)
    }
}
