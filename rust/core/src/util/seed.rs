//! Seed derivation: how one u64 seed becomes every deal, hand and policy stream. (How a
//! deal's seed becomes its deck: [`crate::game::deal`].)
//!
//! `mix(x)` is the SplitMix64 output function applied to the state `x`
//! (see [`crate::util::rng::splitmix64`]). A derived seed is
//! `derive(seed, tag, index) = mix(mix(seed ^ tag) ^ index)` with these tags:
//! - [`DEAL`]: the `index`-th deal attempt of a hand (0 first, then each redeal, R8.5);
//! - [`MATCH_HAND`]: the `index`-th hand of a match;
//! - [`BATCH_HAND`]: the hand with global index `index` in a bulk run;
//! - [`POLICY`]: the decision stream of seat `index` in a hand;
//! - [`SEARCH`]: stream `index` of a search decision (worlds, trees, rollouts; see `search`).
//! - [`VEC_ENV`]: environment `index` of a `VecEnv` (its k-th match is
//!   `derive(env_seed, MATCH, k)`, and the opponents' streams of its h-th hand
//!   `derive(derive(env_seed, POLICY, h), POLICY, seat)`).
//! - [`TEACHER`]: a `VecEnv` teacher's decision: in environment hand `h`, the decision taken
//!   after `k` actions of the hand draws from `derive(derive(env_seed, TEACHER, h), TEACHER, k)`.
//! - [`SELF_PLAY`]: self-play's labelling, candidates and rollouts under a hand's seed
//!   (`learn::self_play` documents the derivation).

use crate::util::rng::splitmix64;

pub const DEAL: u64 = 1;
pub const MATCH_HAND: u64 = 2;
pub const BATCH_HAND: u64 = 3;
pub const POLICY: u64 = 4;
/// Search streams: world, candidate and rollout indices under a decision's seed.
pub const SEARCH: u64 = 5;
/// Environments of a `VecEnv`, and the matches each plays in turn.
pub const VEC_ENV: u64 = 6;
pub const MATCH: u64 = 7;
/// A `VecEnv` teacher's decisions (they draw from their own streams: asking a teacher never
/// changes the game).
pub const TEACHER: u64 = 8;
/// Self-play's decisions and rollouts (`learn::self_play`).
pub const SELF_PLAY: u64 = 9;

fn mix(x: u64) -> u64 {
    let mut s = x.wrapping_sub(0x9E37_79B9_7F4A_7C15);
    splitmix64(&mut s)
}

/// The seed of stream `tag`, element `index`, under `seed`.
pub fn derive(seed: u64, tag: u64, index: u64) -> u64 {
    mix(mix(seed ^ tag) ^ index)
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
}
