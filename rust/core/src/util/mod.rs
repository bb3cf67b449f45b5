//! Tools with no game knowledge: the random number generator, seed derivation, exact big
//! integers, the memo tables' hasher, integer fixed-point maths and the thread pools.

pub mod bignum;
pub mod fixed;
pub mod hash;
pub mod parallel;
pub mod rng;
pub mod seed;
