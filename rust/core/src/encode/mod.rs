//! The frozen encodings a learner reads: action ids with card-by-card masks, the observation
//! tensor layout, and the information-state tensor (each versioned).

pub mod actions;
pub mod info_state;
pub mod observe;
