//! Search over what a seat knows: rollouts, PIMC ([`pimc::pimc`]) and single-observer ISMCTS
//! ([`ismcts::ismcts`]), and the exact open-card solver ([`solve::solve`]), generic over the
//! policy that plays
//! their rollouts (any agent: [`crate::policy::Agent`]).
//!
//! Every search decides from the seat's [`crate::agent::view::SeatView`] and [`crate::infoset::info::InfoSet`]: worlds
//! come from [`crate::infoset::determinize::Determinizer::for_search`] (hands from the play's evidence), or with
//! `turns=1` from the exact worlds of [`crate::infoset::determinize::Determinizer::new`] (who was asked while
//! dealing included, [`decision::determinizer`]), so two games the seat cannot tell apart get the same decision
//! for the same seed. Each search stream is
//! `Rng::new(derive(seed, SEARCH, i))`, and totals are integers summed in a fixed order, so
//! results are identical for any thread count. No floats decide anything.

pub mod deal;
pub mod exact_cache;
pub mod decision;
pub mod ismcts;
pub mod partition;
pub mod pimc;
pub mod rollout;
pub mod solve;
pub mod table;
