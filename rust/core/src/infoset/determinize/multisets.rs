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

#[cfg(test)]
use crate::game::hand::could_show;
use crate::game::hand::NOBODY;
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
    /// Per class: what a programme's step reads of it (`Step`).
    steps: Vec<Step>,
}

/// One class's step of the programme, read from its vector `h` once when the table is built:
/// the classes of the counts just before the seat received a card that ends at `h` (`h`
/// itself: none of the level kinds; then `h` less one of each suit it holds), each with its
/// count of the fixed suit (the showings before the card read it, R8.1), and what "could
/// show" reads of `h` (D7, through [`Asks`]).
#[derive(Debug, Clone, Copy)]
struct Step {
    /// The classes before, the first `len` of them.
    from: [u16; 5],
    /// Each one's count of the fixed suit (0 where none is fixed).
    fixed: [u8; 5],
    len: u8,
    /// `h`'s largest count.
    most: u8,
    /// `h`'s count of the fixed suit (of suit 0 where none is fixed).
    own: u8,
}

impl Step {
    /// What `asks` reads of the class's vector `h` ([`Asks::reads`], kept: `h` not read).
    #[inline]
    fn reads(&self, asks: &Asks) -> u8 {
        if asks.by_own { self.own } else { self.most }
    }
}

/// `could_show(h, seat, declarer, own suit, count)` (D7) for one position, as one comparison:
/// `reads(h) > above`, where it reads the declared suit's count when the seat is the declarer
/// (its own run), else the largest count (anyone: one at least; another declarer: more than
/// its count).
#[derive(Clone, Copy, Debug)]
pub(super) struct Asks {
    by_own: bool,
    own: usize,
    /// It asks where what it reads is above this.
    pub(super) above: u8,
}

impl Asks {
    pub(super) fn new(seat: u8, declarer: u8, own_suit: u8, count: u8) -> Asks {
        match declarer {
            NOBODY => Asks { by_own: false, own: own_suit as usize, above: 0 },
            d if d == seat => Asks { by_own: true, own: own_suit as usize, above: count },
            _ => Asks { by_own: false, own: own_suit as usize, above: count },
        }
    }

    #[inline]
    pub(super) fn reads(&self, h: [u8; 4]) -> u8 {
        if self.by_own {
            h[self.own]
        } else {
            h[0].max(h[1]).max(h[2]).max(h[3])
        }
    }

    /// What it reads of `h` with one more of suit `x`, from `r`, what it reads of `h`.
    #[inline]
    pub(super) fn reads_more(&self, h: [u8; 4], r: u8, x: usize) -> u8 {
        if !self.by_own {
            r.max(h[x] + 1)
        } else if x == self.own {
            r + 1
        } else {
            r
        }
    }
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
        let mut t = Classes { fixed, reps: vec![[0; 4]; keys.len()], index: Box::new([u16::MAX; 4096]), steps: Vec::new() };
        for c in vectors() {
            let i = keys.binary_search(&key(c)).expect("every class listed");
            t.index[pack(c) as usize] = i as u16;
            t.reps[i] = c;
        }
        let own = fixed.unwrap_or(0) as usize;
        t.steps = t.reps.iter().map(|&h| {
            let mut step = Step { from: [0; 5], fixed: [0; 5], len: 0, most: h.iter().copied().max().unwrap_or(0), own: h[own] };
            let before = std::iter::once(h).chain((0..4).filter(|&x| h[x] > 0).map(|x| {
                let mut p = h;
                p[x] -= 1;
                p
            }));
            for p in before {
                step.from[step.len as usize] = t.index[pack(p) as usize];
                step.fixed[step.len as usize] = if fixed.is_some() { p[own] } else { 0 };
                step.len += 1;
            }
            step
        }).collect();
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
        let n = self.reps.len();
        let mut layers = Vec::with_capacity((positions.len() + 1) * n);
        layers.resize(n, 0u128);
        layers[self.index[0] as usize] = 1;
        for (j, &pos) in positions.iter().enumerate() {
            let (declarer, k) = public[j];
            // (the last card's receiver is asked again in the final round: left to the replay)
            let check = (pos as usize + 1) < DECK;
            let asked = asked_at[pos as usize];
            // the showings just before the card read the fixed suit only (R8.1): at least the
            // largest of them
            let need = if self.fixed.is_some() { shows[j].iter().copied().max().unwrap_or(0) } else { 0 };
            let asks = Asks::new(seat, declarer, self.fixed.unwrap_or(0), k);
            layers.resize((j + 2) * n, 0);
            let (done, next) = layers.split_at_mut((j + 1) * n);
            let cur = &done[j * n..];
            let mut nonzero = 0;
            for (step, out) in self.steps.iter().zip(next.iter_mut()) {
                // (the declared suit is read only where the seat is the declarer: its own run's)
                if check && (step.reads(&asks) > asks.above) != asked {
                    continue;
                }
                // the card just received: none of the level kinds, or one of suit x, from
                // counts that passed the showings before it
                let mut w = 0;
                for m in 0..step.len as usize {
                    if step.fixed[m] >= need {
                        w += cur[step.from[m] as usize];
                    }
                }
                *out = w;
                nonzero += (w > 0) as usize;
            }
            *budget = budget.checked_sub(nonzero)?;
        }
        Some(layers)
    }

    /// [`Classes::programme`] computed plainly from each class's vector: the twin the tests
    /// compare.
    #[cfg(test)]
    fn programme_plain(&self, positions: &[u8], public: &[(u8, u8)], shows: &[Vec<u8>], asked_at: &[bool], seat: u8, budget: &mut usize) -> Option<Vec<u128>> {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::util::rng::Rng;

    /// [`Asks`] against `could_show` (D7) on every count vector, seat, declarer, declared
    /// suit and count, with the one-more-of-suit-x reading the programme derives from `reads`.
    #[test]
    fn asks_is_could_show() {
        for seat in 0..4u8 {
            for declarer in [NOBODY, 0, 1, 2, 3] {
                for own_suit in 0..4u8 {
                    for count in 0..5u8 {
                        let asks = Asks::new(seat, declarer, own_suit, count);
                        for h in vectors() {
                            let r = asks.reads(h);
                            assert_eq!(r > asks.above, could_show(h, seat, declarer, own_suit, count));
                            for x in 0..4usize {
                                if h[x] == 4 {
                                    continue;
                                }
                                let mut g = h;
                                g[x] += 1;
                                assert_eq!(asks.reads_more(h, r, x), asks.reads(g));
                            }
                        }
                    }
                }
            }
        }
    }

    /// [`merge_add`] against a plain merge (every source of a state gathered in a sorted map)
    /// on random sorted streams, some empty, with repeated states.
    /// Each class's step against its vector read plainly: the classes before (the vector
    /// itself, then less one of each suit it holds) with their counts of the fixed suit, and
    /// `could_show` (D7) for every seat, declarer and count.
    #[test]
    fn class_steps_are_their_vectors() {
        for fixed in [None, Some(0), Some(1), Some(2), Some(3)] {
            let t = classes(fixed);
            let own = fixed.unwrap_or(0);
            for (i, &h) in t.reps.iter().enumerate() {
                let step = &t.steps[i];
                let mut plain = vec![(t.index[pack(h) as usize], h[own as usize])];
                for x in 0..4 {
                    if h[x] > 0 {
                        let mut p = h;
                        p[x] -= 1;
                        plain.push((t.index[pack(p) as usize], p[own as usize]));
                    }
                }
                let got: Vec<(u16, u8)> = (0..step.len as usize).map(|m| (step.from[m], step.fixed[m])).collect();
                let want: Vec<(u16, u8)> = plain.iter().map(|&(c, f)| (c, if fixed.is_some() { f } else { 0 })).collect();
                assert_eq!(got, want, "{fixed:?} {h:?}");
                for seat in 0..4 {
                    for declarer in [NOBODY, 0, 1, 2, 3] {
                        for k in 0..5 {
                            let asks = Asks::new(seat, declarer, own, k);
                            assert_eq!(step.reads(&asks) > asks.above, could_show(h, seat, declarer, own, k), "{fixed:?} {h:?} {seat} {declarer} {k}");
                        }
                    }
                }
            }
        }
    }

    /// [`Classes::programme`] against [`Classes::programme_plain`] on random seats: positions,
    /// declarations before each, showings, who was asked, and budgets that run out.
    #[test]
    fn programme_is_its_plain_twin() {
        let mut rng = Rng::new(15);
        let mut live = 0;
        for case in 0..600 {
            let fixed = match rng.below_usize(5) {
                4 => None,
                s => Some(s as u8),
            };
            let t = classes(fixed);
            let seat = rng.below_usize(4) as u8;
            let mut positions: Vec<u8> = (0..DECK as u8).filter(|_| rng.below_usize(4) == 0).collect();
            positions.truncate(26);
            let public: Vec<(u8, u8)> = positions.iter().map(|_| match rng.below_usize(6) {
                0 | 1 => (NOBODY, 0),
                d => ((d - 2) as u8, rng.below_usize(4) as u8),
            }).collect();
            // who was asked follows one real path of counts (so most cases keep placements),
            // with some answers flipped; showings of the fixed suit no larger than the path's
            let own = fixed.unwrap_or(0);
            let (mut held, mut shows, mut asked_at) = ([0u8; 4], Vec::new(), vec![false; DECK]);
            for (j, &pos) in positions.iter().enumerate() {
                shows.push(match fixed {
                    Some(s) if held[s as usize] > 0 && rng.below_usize(4) == 0 => vec![1 + rng.below_usize(held[s as usize] as usize) as u8],
                    _ => Vec::new(),
                });
                let x = rng.below_usize(8);
                if x < 4 && held[x] < 4 {
                    held[x] += 1;
                }
                let (declarer, k) = public[j];
                asked_at[pos as usize] = could_show(held, seat, declarer, own, k) != (case % 4 == 0 && rng.below_usize(12) == 0);
            }
            let start = if case % 3 == 0 { rng.below_usize(2000) } else { usize::MAX };
            let (mut a, mut b) = (start, start);
            let fast = t.programme(&positions, &public, &shows, &asked_at, seat, &mut a);
            let plain = t.programme_plain(&positions, &public, &shows, &asked_at, seat, &mut b);
            assert_eq!(fast, plain, "case {case}");
            if let Some(layers) = fast {
                assert_eq!(a, b, "case {case}");
                live += layers[positions.len() * t.len()..].iter().any(|&w| w > 0) as usize;
            }
        }
        // (most cases end with some placements left to count)
        assert!(live > 200, "{live} live cases");
    }
}
