//! tractor-core: the rules of Guigang Tractor (贵港拖拉机), four decks, no kitty.
//!
//! The rules are `docs/rules.md`; every rule here cites its id (R…) or decision (D…).
//! Hot paths take and return count arrays and never allocate per call; [`checked`]
//! validates user input once and explains what was wrong.

pub mod action_set;
pub mod actions;
pub mod bignum;
pub mod card;
pub mod check_memo;
pub mod checked;
pub mod combo;
pub mod determinize;
pub mod early_runs;
pub mod error;
pub mod follow;
pub mod hand_state;
pub mod info;
pub mod match_state;
pub mod observe;
pub mod perft;
pub mod playout;
pub mod policy;
pub mod record;
pub mod rng;
pub mod rules;
pub mod score;
pub mod search;
pub mod seed;
pub mod sim;
pub mod trump;
pub mod vec_env;

pub use card::{Card, Counts, BJ, KINDS, SJ};
pub use combo::{classify, legal_leads, trick_winner, Combo};
pub use error::{Error, FollowViolation, Tier};
pub use follow::{Case, Follow, LegalSet};
pub use hand_state::{Action, Game, Phase, Position, Record, NOBODY};
pub use match_state::Match;
pub use rng::Rng;
pub use rules::{Profile, Rules};
pub use score::{outcome, Outcome};
pub use trump::{Context, TRUMP};

/// The engine version, carried by records.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
