//! The deal and hidden declaring (docs/rules.md R1.3, R8.1–R8.6, D7).

use crate::rules::card::Card;
use crate::rules::card::DECK;
use crate::rules::error::Error;
use super::{Game, Phase, Position, ShowingRecord, NOBODY};

/// A showing the player to move may make: `count` cards of rank L of `suit`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Showing {
    pub suit: u8,
    pub count: u8,
}

impl Position {
    /// R8.1 / R8.6: every showing `seat` may make now. A showing counts all the cards of that
    /// suit shown so far (they stay in the hand), so it is any count up to what is held that
    /// beats the current declaration; the declarer may only reinforce its own suit.
    pub fn showings(&self, seat: u8) -> impl Iterator<Item = Showing> + '_ {
        let counts = self.showing_counts(seat);
        (0..4u8).flat_map(move |suit| {
            let (from, held) = counts[suit as usize];
            (from..held.saturating_add(1)).map(move |count| Showing { suit, count }) // from..=held
        })
    }

    /// The showings of [`Position::showings`] per suit s h d c, as the counts `from..=held`
    /// (empty when `from > held`): the mask's form, without the iterator.
    pub fn showing_counts(&self, seat: u8) -> [(u8, u8); 4] {
        let joker_missing = self.lacks_small_joker(seat);
        std::array::from_fn(|suit| {
            let suit = suit as u8;
            let held = self.hands[seat as usize][Card::new(suit, self.level).id()];
            let from = match self.declarer {
                NOBODY if joker_missing => u8::MAX, // C9: setting the suit needs a small joker
                NOBODY => 1,
                d if d == seat && suit != self.declared_suit => u8::MAX, // 不能自反
                d if d != seat && joker_missing => u8::MAX, // C9: so does overturning
                _ => self.declared_count + 1,
            };
            (from, held)
        })
    }

    /// C9: in a match's first hand (banker not yet known) under the competition profile, a
    /// showing that sets or overturns the suit must include a small joker: does `seat` lack one?
    fn lacks_small_joker(&self, seat: u8) -> bool {
        self.banker == NOBODY
            && self.profile.rules().first_hand_small_joker
            && self.hands[seat as usize][crate::rules::card::SJ.id()] == 0
    }

    /// Same as `showings(seat).next().is_some()`, without the iterator (once per dealt card).
    ///
    /// C9 does not enter here: a seat whose level cards would make a showing but who lacks the
    /// small joker is still asked (D7), and `showings` offers it only the pass; so the deal
    /// stops at the same cards under every profile.
    fn can_show(&self, seat: u8) -> bool {
        let hand = &self.hands[seat as usize];
        let held = std::array::from_fn(|suit| hand[Card::new(suit as u8, self.level).id()]);
        could_show(held, seat, self.declarer, self.declared_suit, self.declared_count)
    }
}

/// Whether `seat`, holding `held` level cards of each suit s h d c, can show (R8.1, D7; C9
/// left out, as in the deal's stops): before anyone has shown, with one; else with more than
/// the showing to beat, the declarer only of its own suit. Also read by the worlds' sampler
/// (who was asked is evidence, `InfoSet::asked`).
#[inline]
pub fn could_show(held: [u8; 4], seat: u8, declarer: u8, declared_suit: u8, declared_count: u8) -> bool {
    match declarer {
        NOBODY => held.iter().any(|&n| n >= 1),
        d if d == seat => held[declared_suit as usize] > declared_count,
        _ => held.iter().any(|&n| n > declared_count),
    }
}

impl Game {
    /// Deals until a player who may show has just received a card (D7), then through the
    /// final round (R8.3); then fixes trump and banker, or redeals (R8.5).
    pub(super) fn advance_deal(&mut self) {
        let every = self.record.every_receiver;
        let p = &mut self.pos;
        // each seat's level cards by suit, kept as the cards arrive (`can_show` reads only them)
        let lowest = Card::new(0, p.level).0;
        let mut held: [[u8; 4]; 4] = std::array::from_fn(|q| std::array::from_fn(|suit| p.hands[q][(lowest + 13 * suit as u8) as usize]));
        // whether each seat could show: the declaration does not change while dealing here,
        // so a seat's answer changes only when it receives a level card (then asked again)
        let (declarer, suit, count) = (p.declarer, p.declared_suit, p.declared_count);
        let mut can: [bool; 4] = std::array::from_fn(|q| every || could_show(held[q], q as u8, declarer, suit, count));
        // (the place and its receiver in locals, written back where the deal stops; the level
        // kinds as bits of the 54)
        let (mut t, mut seat) = (p.dealt as usize, (p.first_seat as usize + p.dealt as usize) % 4);
        let level_kinds: u64 = (0..4).fold(0, |m, suit| m | 1 << (lowest + 13 * suit));
        while t < DECK {
            let k = self.deck[t];
            p.hands[seat][k as usize] += 1;
            t += 1;
            if level_kinds >> k & 1 == 1 {
                held[seat][(k / 13) as usize] += 1;
                can[seat] = every || could_show(held[seat], seat as u8, declarer, suit, count);
            }
            if can[seat] {
                (p.dealt, p.to_move) = (t as u8, seat as u8);
                return;
            }
            seat = (seat + 1) % 4;
        }
        p.dealt = DECK as u8;
        // R8.3: one more chance each, in play order from the seat after the last receiver.
        let last = (p.first_seat + (DECK - 1) as u8) % 4;
        while p.final_round < 4 {
            let seat = (last + 1 + p.final_round) % 4;
            p.final_round += 1;
            if every || p.can_show(seat) {
                p.to_move = seat;
                return;
            }
        }
        if p.declarer == NOBODY {
            // R8.5: nobody showed: redeal; the third such deal in a row stops the game.
            // C9: redeal without limit (up to the attempt counter's 255, see `Rules::redeal_limit`).
            p.redeals += 1;
            if p.redeals >= p.profile.rules().redeal_limit {
                p.phase = Phase::Stopped;
                return;
            }
            self.start_attempt();
            return;
        }
        // R8.2: the final suit is public now; R8.4: a first hand's declarer becomes banker.
        p.trump = p.declared_suit;
        if p.banker == NOBODY {
            p.banker = p.declarer;
        }
        self.begin_play();
    }

    pub(super) fn pass(&mut self) {
        self.advance_deal();
    }

    pub(super) fn declare(&mut self, suit: u8, count: u8) -> Result<(), Error> {
        let p = &mut self.pos;
        let seat = p.to_move;
        if !p.showings(seat).any(|s| s == super::Showing { suit, count }) {
            let held = if suit < 4 { p.hands[seat as usize][Card::new(suit, p.level).id()] } else { 0 };
            let why = if suit > 3 {
                format!("bad suit {suit}")
            } else if count > held {
                format!("seat {seat} holds {held} level card(s) of that suit, not {count}")
            } else if p.declarer == seat && suit != p.declared_suit {
                "the declarer cannot overturn its own showing with another suit (不能自反)".to_string()
            } else if p.declarer != seat && p.lacks_small_joker(seat) {
                let what = if p.declarer == NOBODY { "sets the suit" } else { "overturns" };
                return Err(Error::IllegalAction {
                    rule: "C9",
                    message: format!("in a match's first hand a showing that {what} must include a small joker; seat {seat} holds none"),
                });
            } else {
                format!("a showing must show more than the current {} card(s)", p.declared_count)
            };
            return Err(Error::IllegalAction { rule: "R8.1", message: why });
        }
        p.declarer = seat;
        p.declared_suit = suit;
        p.declared_count = count;
        self.tally.note_showing(seat, count);
        self.record.showings.push(ShowingRecord { attempt: p.redeals, dealt: p.dealt, seat, suit, count });
        self.advance_deal();
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::hand::{Action, Game, Phase};
    use crate::rules::profile::Profile;
    use crate::util::rng::Rng;

    /// Twin: the deal's stops (D7, R8.3) against a plain deal card by card, each receiver
    /// asked by `Position::can_show` from its whole hand: at every decision of many deals
    /// (passes and random showings, every profile, with and without every receiver asked),
    /// the position after the decision deals the same cards to the same seats and stops at
    /// the same place.
    #[test]
    fn deal_stops_match_a_plain_deal() {
        let mut rng = Rng::new(11);
        for seed in 0..240u64 {
            let profile = [Profile::Guigang, Profile::Nanning, Profile::Competition][seed as usize % 3];
            let level = 3 + (seed % 12) as u8;
            let mut g = Game::deal(seed, profile, [level, level], NOBODY, None).unwrap();
            if seed % 5 == 4 {
                g = g.with_every_receiver().unwrap();
            }
            let every = g.record.every_receiver;
            while g.pos.phase == Phase::Declare {
                let seat = g.pos.to_move;
                let shows: Vec<Showing> = g.pos.showings(seat).collect();
                let action = if !shows.is_empty() && rng.below_usize(4) == 0 {
                    let s = shows[rng.below_usize(shows.len())];
                    Action::Declare { suit: s.suit, count: s.count }
                } else {
                    Action::Pass
                };
                let mut before = g.clone();
                g.apply(&action).unwrap();
                // the plain deal from the same place, the decision's showing made first
                if let Action::Declare { suit, count } = action {
                    (before.pos.declarer, before.pos.declared_suit, before.pos.declared_count) = (seat, suit, count);
                }
                let p = &mut before.pos;
                let mut t = p.dealt as usize;
                let mut stop = None;
                while t < DECK {
                    let s = ((p.first_seat as usize + t) % 4) as u8;
                    p.hands[s as usize][before.deck[t] as usize] += 1;
                    t += 1;
                    if every || p.can_show(s) {
                        stop = Some(s);
                        break;
                    }
                }
                if g.pos.redeals != p.redeals {
                    // nobody showed: a redeal (R8.5), after the deck was dealt out
                    assert_eq!(t, DECK, "seed {seed}");
                    continue;
                }
                match stop {
                    Some(s) => {
                        assert_eq!((g.pos.dealt as usize, g.pos.to_move, g.pos.hands), (t, s, p.hands), "seed {seed}");
                    }
                    None => {
                        assert_eq!(g.pos.dealt as usize, DECK, "seed {seed}");
                        assert!(g.pos.phase != Phase::Declare || g.pos.final_round > 0, "seed {seed}");
                        assert_eq!(g.pos.hands.iter().flatten().map(|&x| x as usize).sum::<usize>(), p.hands.iter().flatten().map(|&x| x as usize).sum::<usize>(), "seed {seed}");
                    }
                }
            }
        }
    }
}
