//! Tools with no game knowledge: the random number generator, seed derivation, exact big
//! integers, the memo tables' hasher, integer fixed-point maths, the thread pools, the
//! batch pool of rows stepped together and the per-thread memo tables.

pub mod bignum;
pub mod fixed;
pub mod hash;
pub mod memo;
pub mod parallel;
pub mod pool;
pub mod rng;
pub mod seed;
