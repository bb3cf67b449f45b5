//! The rules of docs/rules.md, and nothing of a game in progress: cards and hands (§1), the
//! trump order (§2–3), combinations and the trick winner (§3–4, §6), the follow ladder (§5),
//! the score (§7), the profiles' variant switches (§9–10), the checked API that validates
//! user input once, and the typed errors.

pub mod card;
pub mod checked;
pub mod combo;
pub mod error;
pub mod follow;
pub mod profile;
pub mod score;
pub mod trump;
