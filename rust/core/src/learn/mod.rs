//! Learning: many games stepped together, writing observations and masks into the caller's
//! buffers ([`vec_env::VecEnv`]), and the teacher that names a policy's next id at a
//! decision ([`teacher::Taught`]).

pub mod teacher;
pub mod vec_env;
