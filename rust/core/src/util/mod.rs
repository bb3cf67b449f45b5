//! Tools with no game knowledge: the random number generator, seed derivation, exact big
//! integers, the memo tables' hasher, integer fixed-point maths, the thread pools and the
//! batch pool of rows stepped together.

pub mod bignum;
pub mod fixed;
pub mod hash;
pub mod parallel;
pub mod pool;
pub mod rng;
pub mod seed;
