//! Agents: the seat's view ([`view::SeatView`]) and the [`view::Decide`] trait every policy
//! implements, and the policies that decide without search (random, greedy). Each is one file;
//! [`crate::policy`] names them. [`net`] holds the integer networks that network policies
//! evaluate (weights files, the incremental first layer).

pub mod greedy;
pub mod net;
pub mod play_net;
pub mod play_features;
pub mod plays;
pub mod quant;
pub mod random;
pub mod weights;
pub mod view;
