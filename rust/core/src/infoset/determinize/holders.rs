//! Who holds the cards a seat cannot see: the other hands and the pile (the sampler's holders),
//! and the hands a world draws for them.

use crate::rules::card::Counts;

/// One holder of unseen cards: a seat's hand now, or the pile (undealt / out of play).
#[derive(Clone, Debug)]
pub(super) struct Holder {
    pub(super) seat: u8,
    pub(super) size: u16,
    pub(super) lo: Counts,
    pub(super) hi: Counts,
}

/// Hands drawn for a world: each seat's hand now and the pile.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Draw {
    pub hands: [Counts; 4],
    pub pile: Counts,
}
