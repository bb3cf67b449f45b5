//! Seed derivation: how one u64 seed becomes every deal, hand and policy stream.
//!
//! `mix(x)` is the SplitMix64 output function applied to the state `x`
//! (see [`crate::rng::splitmix64`]). A derived seed is
//! `derive(seed, tag, index) = mix(mix(seed ^ tag) ^ index)` with these tags:
//! - [`DEAL`]: the `index`-th deal attempt of a hand (0 first, then each redeal, R8.5);
//! - [`MATCH_HAND`]: the `index`-th hand of a match;
//! - [`BATCH_HAND`]: the hand with global index `index` in a bulk run;
//! - [`POLICY`]: the decision stream of seat `index` in a hand;
//! - [`SEARCH`]: stream `index` of a search decision (worlds, trees, rollouts; see `search`).
//! - [`VEC_ENV`]: environment `index` of a `VecEnv` (its k-th match is
//!   `derive(env_seed, MATCH, k)`, and the opponents' streams of its h-th hand
//!   `derive(derive(env_seed, POLICY, h), POLICY, seat)`).
//!
//! A deal from a seed: `rng = Rng::new(seed)`; the 216 cards start sorted (card i has kind
//! i / 4); Fisher–Yates from the top (`for i in (1..216).rev() { swap(i, rng.below(i + 1)) }`);
//! then `first_seat = rng.below(4)`. Card t of the deck goes to seat (first_seat + t) % 4.

use crate::rng::{splitmix64, Rng};

pub const DEAL: u64 = 1;
pub const MATCH_HAND: u64 = 2;
pub const BATCH_HAND: u64 = 3;
pub const POLICY: u64 = 4;
/// Search streams: world, candidate and rollout indices under a decision's seed.
pub const SEARCH: u64 = 5;
/// Environments of a `VecEnv`, and the matches each plays in turn.
pub const VEC_ENV: u64 = 6;
pub const MATCH: u64 = 7;

/// Number of cards dealt (R1.2).
pub const DECK: usize = 216;

fn mix(x: u64) -> u64 {
    let mut s = x.wrapping_sub(0x9E37_79B9_7F4A_7C15);
    splitmix64(&mut s)
}

/// The seed of stream `tag`, element `index`, under `seed`.
pub fn derive(seed: u64, tag: u64, index: u64) -> u64 {
    mix(mix(seed ^ tag) ^ index)
}

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mix_is_splitmix_output() {
        // mix(x) is the output of SplitMix64 whose state becomes x after its increment.
        let mut s = 1234567u64;
        let first = splitmix64(&mut s);
        assert_eq!(mix(1234567u64.wrapping_add(0x9E37_79B9_7F4A_7C15)), first);
    }

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
}
