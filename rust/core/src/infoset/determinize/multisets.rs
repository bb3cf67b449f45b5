//! A turn chain for a seat that has not shown (`turns.rs`), counted over multisets.
//!
//! Who was asked reads such a seat's level cards only through "one at least" (before anyone
//! showed) and "more than k of one suit" (after a showing of k): both are the same for every
//! renaming of the suits. So the number of fitting placements that end at counts `c` (one per
//! suit, 0 to 4) depends only on the multiset of `c`, and so does the number after each
//! position. The programme keeps one number per multiset (70 of them, for each the count of
//! any one of its vectors) instead of one per vector (625), and a draw walks the vectors,
//! reading each one's number from its multiset's.

use std::sync::OnceLock;

use crate::game::hand::could_show;
use crate::rules::card::DECK;

use super::levels::pack;

/// Multisets of four counts 0..=4.
pub(super) const MULTISETS: usize = 70;

/// One layer: per multiset, the fitting placements that end at any one of its vectors.
pub(super) type Layer = [u128; MULTISETS];

struct Table {
    /// Each multiset's counts, largest first.
    reps: [[u8; 4]; MULTISETS],
    /// Per packed counts (3 bits a suit): the index of its multiset.
    index: [u8; 4096],
}

fn table() -> &'static Table {
    static TABLE: OnceLock<Table> = OnceLock::new();
    TABLE.get_or_init(|| {
        let mut t = Table { reps: [[0; 4]; MULTISETS], index: [u8::MAX; 4096] };
        let mut n = 0;
        for a in 0..=4u8 {
            for b in 0..=a {
                for c in 0..=b {
                    for d in 0..=c {
                        t.reps[n] = [a, b, c, d];
                        n += 1;
                    }
                }
            }
        }
        debug_assert_eq!(n, MULTISETS);
        for c in vectors() {
            let mut s = c;
            s.sort_unstable_by(|x, y| y.cmp(x));
            t.index[pack(c) as usize] = t.reps.iter().position(|&r| r == s).expect("every multiset listed") as u8;
        }
        t
    })
}

/// Every vector of four counts 0..=4 (625), in a fixed order.
pub(super) fn vectors() -> impl Iterator<Item = [u8; 4]> {
    (0..625u32).map(|v| [(v % 5) as u8, (v / 5 % 5) as u8, (v / 25 % 5) as u8, (v / 125) as u8])
}

/// The number a layer holds for the counts `c` (each 0 to 4).
pub(super) fn count(layer: &Layer, c: [u8; 4]) -> u128 {
    layer[table().index[pack(c) as usize] as usize]
}

/// The programme of a seat without showings at `positions` (its deal positions in order), with
/// `public[j]` the (declarer, count) before position j and `asked_at` who was asked: the
/// layers after each position (the first is the start), or `None` past the `budget` of
/// entries (its nonzero entries are taken from it).
pub(super) fn programme(positions: &[u8], public: &[(u8, u8)], asked_at: &[bool], seat: u8, budget: &mut usize) -> Option<Vec<Layer>> {
    let t = table();
    let mut layers = Vec::with_capacity(positions.len() + 1);
    let mut cur = [0u128; MULTISETS];
    cur[t.index[0] as usize] = 1;
    for (j, &pos) in positions.iter().enumerate() {
        let (declarer, k) = public[j];
        // (the last card's receiver is asked again in the final round: left to the replay)
        let check = (pos as usize + 1) < DECK;
        let asked = asked_at[pos as usize];
        let mut next = [0u128; MULTISETS];
        for (i, &h) in t.reps.iter().enumerate() {
            // (the seat is never the declarer: it has not shown)
            if check && could_show(h, seat, declarer, 0, k) != asked {
                continue;
            }
            // the card just received: none of the level kinds, or one of suit x
            let mut n = cur[i];
            for x in 0..4 {
                if h[x] > 0 {
                    let mut p = h;
                    p[x] -= 1;
                    n += cur[t.index[pack(p) as usize] as usize];
                }
            }
            next[i] = n;
        }
        *budget = budget.checked_sub(next.iter().filter(|&&n| n > 0).count())?;
        layers.push(cur);
        cur = next;
    }
    layers.push(cur);
    Some(layers)
}
