//! What the table has seen of a hand so far, kept up to date as it goes, so that an
//! observation costs the same at the last trick as at the first (see `observe.rs`).
//! Everything here is public: cards played (R5.1), proven voids (R5.2) and how many level
//! cards each seat has shown (R8.2: the count is public, the suit is not).

use crate::rules::card::{and, size, Counts, KINDS};
use super::Position;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Tally {
    /// The cards each seat has played this hand, the trick in progress included.
    pub played: [Counts; 4],
    /// The cards each seat has played to the trick in progress.
    pub trick: [Counts; 4],
    /// Per seat, bit `c` set: proven void in class `c` (0–3 the suits s h d c, 4 trump): the
    /// seat once followed a lead of that class with fewer cards of it than were led (R5.2).
    pub void: [u8; 4],
    /// The most level cards each seat has shown in this deal attempt (R8.1, R8.6).
    pub shown: [u8; 4],
}

impl Default for Tally {
    fn default() -> Tally {
        Tally { played: [[0; KINDS]; 4], trick: [[0; KINDS]; 4], void: [0; 4], shown: [0; 4] }
    }
}

impl Tally {
    /// Notes a play by the player to move in `pos`, before `pos` applies it.
    pub fn note_play(&mut self, pos: &Position, cards: &Counts) {
        let seat = pos.to_move as usize;
        if pos.trick.plays == 0 {
            self.trick = [[0; KINDS]; 4];
        }
        if let Some(lead) = pos.lead() {
            let of_class = size(&and(cards, &pos.ctx().class_bytes[lead.class as usize]));
            if of_class < lead.size() {
                self.void[seat] |= 1 << lead.class; // R5.2: all of the class was played
            }
        }
        for ((p, t), &n) in self.played[seat].iter_mut().zip(self.trick[seat].iter_mut()).zip(cards) {
            *p += n;
            *t += n;
        }
    }

    /// Notes a showing of `count` level cards by `seat`.
    pub fn note_showing(&mut self, seat: u8, count: u8) {
        let s = &mut self.shown[seat as usize];
        *s = (*s).max(count);
    }
}
