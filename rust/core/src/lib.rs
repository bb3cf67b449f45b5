//! tractor-core: the rules of Guigang Tractor (贵港拖拉机), four decks, no kitty.
//!
//! The rules are `docs/rules.md`; every rule here cites its id (R…) or decision (D…).
//! Hot paths take and return count arrays and never allocate per call;
//! [`rules::checked`] validates user input once and explains what was wrong.
//!
//! # The layers
//!
//! The crate is ten layers, each a folder (or, for `policy`, a file). A module imports only
//! from its own layer and the layers below it, and the modules of one layer import each other
//! without a cycle; `tests/layers.rs` checks both on every `cargo test`.
//!
//! ```text
//! run/      sim: bulk hands and matches, in parallel; columns: their results' columns; table: such hands
//!           with seats played from outside; suite: the arena's frozen deal suites
//! learn/    teacher: a policy's next id at a decision; vec_env: many games stepped together for learners;
//!           self_play: samples of whole plays valued by rollouts
//! policy    the one named union of every policy: parse, name, decide
//! search/   rollout, decision (candidates, the determinizer), pimc, ismcts, deal (showing while dealing),
//!           solve (open-card positions, exactly), table (the solver's transposition table),
//!           exact_cache (the solver's last two tricks' exact values), partition (its partition
//!           search's entries: what a value leaned on, and the keys that keep the rest small)
//! agent/    view (SeatView, the Decide trait), random, greedy, weights (greedy's, named), quant (what integer networks
//!           share), net (net:PATH over action ids), plays (whole plays as candidates), play_features/ (the
//!           table of their features' versions; v1, v2), play_net (net:PATH over whole plays)
//! encode/   actions (the frozen action ids), observe/ (the table of observation versions; v1, v2), info_state
//!           (the tensors, versioned)
//! infoset/  info (what a seat knows and what the history proves), determinize/ (worlds)
//! game/     deal, hand/ (one hand's state machine), action_set, match_state, record, records_file, record_json, perft
//! rules/    error, profile, card, trump, combo, follow/, score, checked
//! util/     rng, seed, bignum, hash, memo, fixed, parallel, pool (rows stepped together on the threads): no game
//!           knowledge
//! ```
//!
//! A layer's `mod.rs` only declares and documents its modules. The names below are
//! re-exported at the crate root for convenience; everything else is reached through its
//! layer (`tractor_core::game::hand::Game`, `tractor_core::policy::Policy`).

pub mod agent;
pub mod encode;
pub mod game;
pub mod infoset;
pub mod learn;
pub mod policy;
pub mod rules;
pub mod run;
pub mod search;
pub mod util;

pub use game::hand::{Action, Game, Phase, Position, Record, NOBODY};
pub use game::match_state::Match;
pub use policy::{Agent, Policy};
pub use rules::card::{Card, Counts, BJ, KINDS, SJ};
pub use rules::combo::{classify, legal_leads, trick_winner, Combo};
pub use rules::error::{Error, FollowViolation, Tier};
pub use rules::follow::{Case, Follow, LegalSet};
pub use rules::profile::{Profile, Rules};
pub use rules::score::{outcome, Outcome};
pub use rules::trump::{Context, TRUMP};
pub use util::rng::Rng;

/// The engine version, carried by records.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
