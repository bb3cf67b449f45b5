//! Learning: many games stepped together, writing observations and masks into the caller's
//! buffers ([`vec_env::VecEnv`]), the teacher that names a policy's next id at a decision
//! ([`teacher::Taught`]), and native self-play writing samples of whole plays valued by
//! rollouts ([`self_play`]).

pub mod self_play;
pub mod teacher;
pub mod vec_env;
