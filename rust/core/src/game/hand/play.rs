//! The tricks and the score (docs/rules.md R5–R7).

use crate::rules::card::{check_counts, contains, size, words, Counts};
use crate::rules::combo::{classify, follow_combo, legal_leads, Combo};
use crate::rules::error::Error;
use crate::rules::follow::Follow;
use crate::rules::score::points;
use super::{Game, Phase, Position, Trick, TrickRecord};

impl Position {
    /// The lead of the trick in progress, if any.
    pub fn lead(&self) -> Option<Combo> {
        if self.trick.plays == 0 {
            None
        } else {
            self.trick.lead
        }
    }

    /// The follow position of the player to move, if a lead is on the table.
    pub fn follow(&self) -> Option<Follow<'static>> {
        let lead = self.lead()?;
        Some(Follow::new(self.ctx(), &self.hands[self.to_move as usize], lead))
    }

    /// Every combination the player to move may lead (R3.4), when leading.
    pub fn leads(&self) -> Vec<Combo> {
        legal_leads(self.ctx(), &self.hands[self.to_move as usize])
    }

    /// Checks a play by the player to move: `Ok(())` if the rules allow it.
    pub fn check_play(&self, cards: &Counts) -> Result<(), Error> {
        if self.phase != Phase::Play {
            return Err(Error::IllegalAction { rule: "R6.3", message: "no trick is being played".into() });
        }
        check_counts(cards)?;
        let hand = &self.hands[self.to_move as usize];
        if !contains(hand, cards) {
            return Err(Error::NotInHand(format!("seat {} does not hold those cards", self.to_move)));
        }
        match self.lead() {
            None => {
                if classify(self.ctx(), cards).is_none() {
                    return Err(Error::IllegalAction {
                        rule: "R3.4",
                        message: "a lead must be one combination (a unit or a tractor); throws are not allowed".into(),
                    });
                }
            }
            Some(lead) => {
                if size(cards) != lead.size() {
                    return Err(Error::WrongCount { expected: lead.size(), got: size(cards) });
                }
                let f = Follow::new(self.ctx(), hand, lead);
                if let Some(v) = f.violation(cards) {
                    return Err(Error::IllegalFollow(v));
                }
            }
        }
        Ok(())
    }

    /// Plays `cards` for the player to move without checking them (for search).
    /// Returns the finished trick's winner when this play completes a trick.
    pub fn play_unchecked(&mut self, cards: &Counts) -> Option<u8> {
        self.play_unchecked_with(cards, None)
    }

    /// [`Position::play_unchecked`] for a play of a trick whose winner is known (R6.2: a
    /// replay of recorded history names it): the lead is classified (it decides the voids,
    /// R5.2), the followers are not.
    pub fn play_unchecked_with(&mut self, cards: &Counts, winner: Option<u8>) -> Option<u8> {
        let seat = self.to_move;
        let ctx = self.ctx();
        let hand = &mut self.hands[seat as usize];
        for (h, c) in hand.iter_mut().zip(cards.iter()) {
            *h -= c;
        }
        let t = &mut self.trick;
        t.points += points(cards) as u16;
        if t.plays == 0 {
            let lead = classify(ctx, cards);
            t.lead = lead;
            t.leader = seat;
            t.best_key = lead.map_or(0, |c| c.key());
            t.best_seat = seat;
        } else if let Some(w) = winner {
            t.best_seat = w;
        } else if let Some(lead) = t.lead {
            // R6.1: only a play all of the led class, or all trumps, can win
            if let Some(c) = follow_combo(ctx, lead.class, cards) {
                if crate::rules::combo::beats(&lead, &c, t.best_key) {
                    t.best_key = c.key();
                    t.best_seat = seat;
                }
            }
        }
        t.plays += 1;
        self.to_move = (seat + 1) % 4;
        if t.plays < 4 {
            return None;
        }
        Some(self.finish_trick())
    }

    /// R6.2–R6.3 and R7.2–R7.3: scores the trick; the winner leads next.
    pub(crate) fn finish_trick(&mut self) -> u8 {
        let t = self.trick;
        let winner = t.best_seat;
        let defenders_won = self.is_defender(winner);
        let p = t.points as i32;
        self.tricks_done += 1;
        self.trick = Trick { leader: winner, ..Trick::default() };
        self.to_move = winner;
        // every word of every hand zero (OR-ed: no call to compare the arrays)
        let last = self.hands.iter().all(|h| words(h).into_iter().fold(0, |a, w| a | w) == 0);
        if !last {
            if defenders_won {
                self.defender_points += p; // R7.2
            }
            return winner;
        }
        // R7.3 / D5: the last trick counts P·N for the side that wins it (抠底);
        // under nanning only when N ≥ 2, else as an ordinary trick.
        let n = t.lead.map_or(1, |c| c.size()) as i32;
        let rules = self.profile.rules();
        self.final_score = if n >= rules.last_trick_min_cards as i32 {
            self.defender_points + if defenders_won { p * n } else { -p * n }
        } else {
            self.defender_points + if defenders_won { p } else { 0 }
        };
        self.phase = Phase::Over;
        self.last_lead_size = n as u8;
        winner
    }
}

impl Game {
    pub(super) fn begin_play(&mut self) {
        let p = &mut self.pos;
        p.phase = Phase::Play;
        p.to_move = p.banker; // R6.3
        p.trick = Trick { leader: p.banker, ..Trick::default() };
    }

    pub(super) fn play(&mut self, cards: &Counts) -> Result<(), Error> {
        self.pos.check_play(cards)?;
        self.record_play(cards, None);
        Ok(())
    }

    /// Plays `cards` (known legal) for the player to move and records the trick.
    fn record_play(&mut self, cards: &Counts, winner: Option<u8>) {
        let seat = self.pos.to_move;
        let points_before = self.pos.trick.points;
        self.tally.note_play(&self.pos, cards);
        self.record.current.push((seat, *cards));
        if let Some(winner) = self.pos.play_unchecked_with(cards, winner) {
            let c = &self.record.current;
            debug_assert_eq!(c.len(), 4, "a trick has four plays (R6.1)");
            let plays = std::array::from_fn(|i| c[i]);
            self.record.current.clear();
            let pts = points_before + points(cards) as u16;
            self.record.tricks.push(TrickRecord { leader: plays[0].0, plays, winner, points: pts });
        }
    }

    /// Plays `cards` for the player to move, recording it, without checking it (replays of
    /// plays known to be legal, such as a world's public history).
    pub fn play_recorded_unchecked(&mut self, cards: &Counts) {
        self.record.actions.push((self.pos.to_move, super::Action::Play(*cards)));
        self.record_play(cards, None);
    }

    /// Replays a finished trick of recorded history without checking it, its winner taken
    /// from the record instead of found again (a world's public history: same cards, same
    /// context, so the same winner, R6.2).
    pub fn replay_trick_unchecked(&mut self, t: &TrickRecord) {
        for (_, c) in &t.plays {
            self.record.actions.push((self.pos.to_move, super::Action::Play(*c)));
            self.record_play(c, Some(t.winner));
        }
    }

    /// The defenders' points after each finished trick (R7.2), as the playthrough shows them;
    /// a finished hand's last trick counts through R7.3 instead, so its entry is the total
    /// before it.
    pub fn defender_points_by_trick(&self) -> Vec<i32> {
        let over = self.pos.phase == Phase::Over;
        let n = self.record.tricks.len();
        let mut running = 0;
        self.record
            .tricks
            .iter()
            .enumerate()
            .map(|(i, t)| {
                if self.pos.is_defender(t.winner) && !(over && i + 1 == n) {
                    running += t.points as i32;
                }
                running
            })
            .collect()
    }

    /// Every combination the player to move may lead.
    pub fn legal_leads(&self) -> Vec<Combo> {
        self.pos.leads()
    }
}

