//! The arena's frozen deal suites. A suite is a seed and a count: its deal `i` is hand `i` of
//! the bulk run with the suite's seed ([`crate::run::sim`]: the first hand of a fresh match,
//! both teams at level 3, dealt from `derive(seed, BATCH_HAND, i)`), under whichever profile
//! is played; its match `j` is match `j` of the bulk match run with that seed. A pairing plays
//! each deal twice, once with each team in seats 0/2, so the cards' luck cancels.
//!
//! Frozen like the action ids: a suite's seed and counts never change, so a number quoted on
//! `eval-v1` today is comparable next year. A new suite is a new entry with a new name.

/// A named, versioned set of deals (and of matches) that every arena run plays alike.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Suite {
    pub name: &'static str,
    /// The bulk run's seed: the ASCII bytes of the name, big-endian, zero-padded to 8.
    pub seed: u64,
    /// Deals per profile.
    pub deals: u64,
    /// Whole matches (until a team passes A) per profile.
    pub matches: u64,
}

/// The ASCII bytes of `name` (at most 8) as a big-endian u64, zero-padded on the right.
pub const fn name_seed(name: &str) -> u64 {
    let b = name.as_bytes();
    assert!(b.len() <= 8, "a suite's name has at most 8 bytes");
    let mut x = 0u64;
    let mut i = 0;
    while i < 8 {
        x = (x << 8) | if i < b.len() { b[i] as u64 } else { 0 };
        i += 1;
    }
    x
}

/// Every suite, oldest first.
pub const SUITES: &[Suite] = &[Suite { name: "eval-v1", seed: name_seed("eval-v1"), deals: 2000, matches: 200 }];

/// The suite called `name`.
pub fn suite(name: &str) -> Option<Suite> {
    SUITES.iter().copied().find(|s| s.name == name)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::hand::{Game, NOBODY};
    use crate::rules::profile::Profile;
    use crate::util::seed::{derive, BATCH_HAND};

    #[test]
    fn eval_v1_is_frozen() {
        let s = suite("eval-v1").unwrap();
        assert_eq!((s.seed, s.deals, s.matches), (0x6576_616c_2d76_3100, 2000, 200));
        // deal 0 and deal 1999: their first cards in dealing order, and the first seat
        let first = |i: u64| {
            let g = Game::deal(derive(s.seed, BATCH_HAND, i), Profile::Guigang, [3, 3], NOBODY, None).unwrap();
            (g.deck[..8].to_vec(), g.pos.first_seat)
        };
        assert_eq!(first(0), (vec![39, 2, 39, 23, 22, 53, 46, 16], 1));
        assert_eq!(first(1999), (vec![9, 6, 20, 33, 24, 24, 23, 45], 2));
    }
}
