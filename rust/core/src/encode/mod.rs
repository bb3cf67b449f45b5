//! The frozen encodings a learner reads: action ids with card-by-card masks, and the
//! observation tensor layout (versioned).

pub mod actions;
pub mod observe;
