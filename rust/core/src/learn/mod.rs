//! Learning: many games stepped together, writing observations and masks into the caller's
//! buffers ([`vec_env::VecEnv`]).

pub mod vec_env;
