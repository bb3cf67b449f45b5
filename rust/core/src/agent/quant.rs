//! What every integer network of the engine shares ([`crate::agent::net`]'s over action ids,
//! [`crate::agent::play_net`]'s over whole plays): the weights file's magic, the activations'
//! ceiling and widest layer, and the first layer kept as an accumulator.

/// The first bytes of a weights file.
pub const MAGIC: &[u8; 8] = b"TRACTNET";

/// The ceiling of a ClippedReLU: activations are 0..=127.
pub const ONE: i32 = 127;
/// The widest hidden layer a file may declare.
pub const MAX_WIDTH: usize = 1024;

/// The first layer for one input: the input it was computed for (the network's encoding's
/// `dim` entries) and `b1 + W1·x`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Accumulator {
    pub x: Vec<i16>,
    pub acc: Vec<i32>,
}
