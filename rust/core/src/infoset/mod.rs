//! What one seat knows (its information set, and what the public history proves about the
//! other hands), and the worlds consistent with it (determinization).

pub mod determinize;
pub mod info;
