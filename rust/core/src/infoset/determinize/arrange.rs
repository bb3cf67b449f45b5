//! Step 3 completed: the decks of a dealt world, every attempt's, from the plan of its level
//! cards (`timing.rs`) and, where who was asked is evidence, the earlier attempts' decks drawn
//! by the turn chains (`turns.rs`).

use crate::game::deal::positions;
use crate::infoset::info::InfoSet;
use crate::rules::card::{held_mask, Counts, DECK, KINDS};
use crate::util::rng::Rng;
use super::timing::LevelPlan;
use super::turns::Turns;
use super::holders::Draw;

/// The decks of every attempt and the suit of each showing run, for a dealt hand.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Arrangement {
    pub decks: Vec<([u8; DECK], u8)>,
    /// One suit per run of `info.runs`.
    pub suits: Vec<u8>,
}

/// Attempt `attempt`'s whole deck with the seat's own cards in their places (`u8::MAX`
/// elsewhere), and the cards left for the other places (R8.5: an earlier attempt was dealt
/// out in full).
pub(super) fn own_places(info: &InfoSet, attempt: usize) -> ([u8; DECK], Counts) {
    let mut deck = [u8::MAX; DECK];
    let mut left = [4u8; KINDS];
    for (t, &k) in positions(info.first_seats[attempt], info.seat, DECK).zip(&info.arrivals[attempt]) {
        deck[t] = k;
        left[k as usize] -= 1;
    }
    (deck, left)
}

/// Step 3 completed: every attempt's deck, the level cards where the plan put them and every
/// other card uniformly over the remaining positions.
pub(super) fn arrange(info: &InfoSet, d: &Draw, plan: LevelPlan, turns: Option<&Turns>, rng: &mut Rng) -> Arrangement {
    let attempts = info.first_seats.len();
    let mut decks = Vec::with_capacity(attempts);
    // one card per entry, in kind order, then shuffled (a deck's worth at most; four copies
    // of a kind at most, each kind written as four with the next kind's over the spare ones)
    let mut buf = [0u8; DECK + 4];
    // (only the kinds held are visited: their bits over kind ids, in kind order)
    let fill = |buf: &mut [u8; DECK + 4], c: &Counts| -> usize {
        let mut n = 0;
        let mut held = held_mask(c, 1);
        while held != 0 {
            let k = held.trailing_zeros() as usize;
            held &= held - 1;
            debug_assert!(c[k] <= 4, "four copies of a kind");
            buf[n..n + 4].copy_from_slice(&[k as u8; 4]);
            n += c[k] as usize;
        }
        n
    };
    for (r, &first) in info.first_seats.iter().enumerate() {
        if r + 1 < attempts {
            // an earlier attempt: the seat's own cards in place, the rest drawn
            let (mut deck, left) = own_places(info, r);
            match turns {
                // who was asked to decide is evidence
                Some(turns) => turns.earlier_deck(info, r, &mut deck, left, rng),
                None => {
                    let n = fill(&mut buf, &left);
                    rng.shuffle_by_halves(&mut buf[..n]);
                    let mut it = buf[..n].iter();
                    for slot in deck.iter_mut().filter(|s| **s == u8::MAX) {
                        *slot = *it.next().expect("cards for positions");
                    }
                }
            }
            decks.push((deck, first));
            continue;
        }
        let own = &info.arrivals[r];
        let dealt = info.dealt as usize;
        let mut deck = [u8::MAX; DECK];
        for (t, &k) in positions(first, info.seat, dealt).zip(own) {
            deck[t] = k;
        }
        for &(t, k) in &plan.placed {
            deck[t as usize] = k;
        }
        for q in (0..4u8).filter(|&q| q != info.seat) {
            let mut cards = d.hands[q as usize];
            for (x, y) in cards.iter_mut().zip(&info.played[q as usize]) {
                *x += y;
            }
            for &(t, k) in &plan.placed {
                if (first + t) % 4 == q {
                    cards[k as usize] -= 1; // placed by the plan
                }
            }
            let n = fill(&mut buf, &cards);
            rng.shuffle_by_halves(&mut buf[..n]);
            let mut it = buf[..n].iter();
            for t in positions(first, q, dealt) {
                if deck[t] == u8::MAX {
                    deck[t] = *it.next().expect("as many cards as positions");
                }
            }
        }
        let n = fill(&mut buf, &d.pile);
        rng.shuffle_by_halves(&mut buf[..n]);
        deck[dealt..].copy_from_slice(&buf[..n]);
        decks.push((deck, first));
    }
    Arrangement { decks, suits: plan.suits }
}

