//! The one hasher of the engine's memo tables: deterministic, fast, and never iterated (no
//! table's order is ever read, so no hash-map order can decide anything).

use std::hash::Hasher;

/// A deterministic multiply-rotate hasher for the memo (its iteration order is never read).
#[derive(Default)]
pub struct FxHasher(u64);

impl Hasher for FxHasher {
    /// The state through splitmix64's finaliser: the tables take their bucket from the hash's
    /// low bits, which after one multiply depend on the key's low bits alone (packed keys put
    /// their last fields there, so most keys would share a few buckets).
    fn finish(&self) -> u64 {
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(b as u64);
        }
    }
    fn write_u64(&mut self, v: u64) {
        self.0 = (self.0.rotate_left(5) ^ v).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
}
