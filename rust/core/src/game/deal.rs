//! The deal (R1.2–R1.3): how a hand's seed becomes its deck, and which deck positions each
//! seat receives.
//!
//! A deal from a seed: `rng = Rng::new(seed)`; the 216 cards start sorted (card i has kind
//! i / 4); Fisher–Yates from the top (`for i in (1..216).rev() { swap(i, rng.below(i + 1)) }`);
//! then `first_seat = rng.below(4)`. Card t of the deck goes to seat (first_seat + t) % 4.
//! (How the seed of each attempt is derived: [`crate::util::seed`], tag `DEAL`.)

use crate::rules::card::DECK;
use crate::util::rng::Rng;

/// A shuffled deck of 216 kind ids and the first seat to receive (R1.3).
pub fn shuffle(seed: u64) -> ([u8; DECK], u8) {
    let mut deck = [0u8; DECK];
    for (i, c) in deck.iter_mut().enumerate() {
        *c = (i / 4) as u8;
    }
    let mut rng = Rng::new(seed);
    for i in (1..DECK).rev() {
        let j = rng.below_usize(i + 1);
        deck.swap(i, j);
    }
    let first = rng.below_usize(4) as u8;
    (deck, first)
}

/// The deck positions of `seat` among the first `dealt` cards of an attempt whose first card
/// goes to `first` (R1.3).
pub fn positions(first: u8, seat: u8, dealt: usize) -> impl Iterator<Item = usize> {
    // t ≡ seat − first (mod 4)
    ((seat as usize + 4 - first as usize) % 4..dealt).step_by(4)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shuffle_is_a_permutation_and_pinned() {
        let (deck, first) = shuffle(7);
        let mut counts = [0u8; 54];
        for &c in &deck {
            counts[c as usize] += 1;
        }
        assert!(counts.iter().all(|&n| n == 4));
        assert!(first < 4);
        assert_ne!(shuffle(8).0, deck);
        assert_eq!(shuffle(7), (deck, first));
    }

    #[test]
    fn positions_are_the_seats_cards() {
        for first in 0..4u8 {
            for seat in 0..4u8 {
                let got: Vec<usize> = positions(first, seat, 11).collect();
                let want: Vec<usize> = (0..11).filter(|&t| (first as usize + t) % 4 == seat as usize).collect();
                assert_eq!(got, want);
            }
        }
    }
}
