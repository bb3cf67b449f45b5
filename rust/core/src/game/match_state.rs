//! A match (局): hands in a row, levels and banker carried over (docs/rules.md R7.4–R7.6, R8.4–R8.5).

use crate::game::hand::{Game, Phase, Start, NOBODY};
use crate::rules::error::Error;
use crate::rules::profile::Profile;
use crate::util::seed::{derive, MATCH_HAND};

/// One finished hand of a match.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HandSummary {
    pub index: u32,
    pub banker: u8,
    pub level: u8,
    pub trump: u8,
    /// The defenders' final score, or `None` if the game stopped (R8.5).
    pub score: Option<i32>,
    pub levels_after: [u8; 2],
    /// The team that passed A in this hand, if any.
    pub passed_a: Option<u8>,
}

/// R7.5: levels run 3 → … → A → 3. Returns the new level and whether it passed A.
pub fn advance_level(level: u8, by: u32) -> (u8, bool) {
    let raw = level as u64 + by as u64;
    ((((raw - 3) % 12) + 3) as u8, raw > 14)
}

/// C8: levels stop at A (a gain past A leaves the team at A).
pub fn advance_level_to_a(level: u8, by: u32) -> u8 {
    (level as u64 + by as u64).min(14) as u8
}

#[derive(Clone, Debug)]
pub struct Match {
    pub seed: u64,
    pub profile: Profile,
    /// Levels of team 0 (seats 0, 2) and team 1 (seats 1, 3).
    pub levels: [u8; 2],
    /// The next hand's banker; [`NOBODY`] until the first hand fixes it (R8.4).
    pub banker: u8,
    /// Index of the current hand.
    pub index: u32,
    pub history: Vec<HandSummary>,
    /// The first team to pass A, and in which hand. Under R7.5 a team passes A when its
    /// level wraps past A; under C8 (competition) when it wins a hand as the banker team at
    /// level A (D11), and the match ends there.
    pub winner: Option<(u8, u32)>,
}

impl Match {
    /// Both teams at 3 (R2.1); hand i is dealt from `derive(seed, MATCH_HAND, i)`.
    /// Returns the match and its first hand.
    pub fn new(seed: u64, profile: Profile) -> (Match, Game) {
        let m = Match { seed, profile, levels: [3, 3], banker: NOBODY, index: 0, history: Vec::new(), winner: None };
        let game = m.deal_current().expect("valid start");
        (m, game)
    }

    fn deal_current(&self) -> Result<Game, Error> {
        let mut g =
            Game::deal(derive(self.seed, MATCH_HAND, self.index as u64), self.profile, self.levels, self.banker, None)?;
        g.hand_index = self.index;
        Ok(g)
    }

    /// Is `game` this match's current hand: dealt from its seed for the current index, at its
    /// levels and banker, with its profile, from the seeded decks (not given ones)? Another
    /// match's hand, a `from_deal` game, a world drawn by `determinize` or a hand already scored
    /// (the index has moved on) is not, and a match scores only its own hand (R7.4–R7.6).
    pub fn check_own(&self, game: &Game) -> Result<(), Error> {
        let seed = derive(self.seed, MATCH_HAND, self.index as u64);
        let why = match &game.record.start {
            Start::Hands { .. } => Some("a hand from given hands (from_deal)".to_string()),
            Start::Deal { .. } if game.record.profile != self.profile => {
                Some(format!("a {} hand in a {} match", game.record.profile.name(), self.profile.name()))
            }
            Start::Deal { hand_seed, levels, banker, decks } => {
                if !decks.is_empty() {
                    Some("a hand dealt from given decks".to_string())
                } else if game.hand_index != self.index || *hand_seed != seed {
                    Some(format!(
                        "hand {} of its match, dealt from seed {hand_seed} (this match's hand {} is dealt from seed {seed})",
                        game.hand_index, self.index
                    ))
                } else if *levels != self.levels || *banker != self.banker {
                    Some(format!("a hand at levels {levels:?}, banker {banker} (the match: {:?}, banker {})", self.levels, self.banker))
                } else {
                    None
                }
            }
        };
        match why {
            None => Ok(()),
            Some(w) => Err(Error::ForeignHand(format!(
                "R7.4: the game is not this match's current hand {} ({w}); a match scores only its own hand",
                self.index
            ))),
        }
    }

    /// C8: the match has ended (under `stop_at_a`, once a team has passed A as banker); no
    /// hand follows. Without C8 a match goes on after a team passes A (R7.5).
    pub fn over(&self) -> bool {
        self.profile.rules().stop_at_a && self.winner.is_some()
    }

    /// Scores the finished current hand `game` into the match and deals the next. The hand
    /// must be this match's own current hand ([`Match::check_own`]) and be over, or stopped
    /// (then levels and banker stay, R8.5). A refusal changes nothing.
    pub fn next_hand(&mut self, game: &Game) -> Result<Game, Error> {
        self.check_own(game)?;
        let rules = self.profile.rules();
        if self.over() {
            return Err(Error::IllegalAction { rule: "C8", message: "the match is over: a team has passed A".into() });
        }
        let pos = &game.pos;
        let mut passed = None;
        let score = match pos.phase {
            Phase::Over => {
                let o = pos.outcome().expect("over");
                let bteam = (pos.banker % 2) as usize;
                let (team, by) = if o.defenders_take_over { (1 - bteam, o.defender_levels) } else { (bteam, o.banker_levels) };
                let (lvl, over) = if rules.stop_at_a {
                    // C8 / D11: the banker team passes A by winning a hand played at A
                    (advance_level_to_a(self.levels[team], by), !o.defenders_take_over && pos.level == 14)
                } else {
                    advance_level(self.levels[team], by)
                };
                self.levels[team] = lvl;
                if over {
                    passed = Some(team as u8);
                    if self.winner.is_none() {
                        self.winner = Some((team as u8, self.index));
                    }
                }
                self.banker = pos.next_banker().expect("over");
                Some(pos.final_score)
            }
            Phase::Stopped => None,
            _ => {
                return Err(Error::IllegalAction { rule: "R7", message: "the current hand is not finished".into() })
            }
        };
        self.history.push(HandSummary {
            index: self.index,
            banker: pos.banker,
            level: pos.level,
            trump: pos.trump,
            score,
            levels_after: self.levels,
            passed_a: passed,
        });
        self.index += 1;
        self.deal_current()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::action_set::ActionSet;

    /// Plays the hand to its end with uniform legal actions.
    fn finish(mut g: Game, seed: u64) -> Game {
        let mut rng = crate::util::rng::Rng::new(seed);
        while let Some(a) = ActionSet::of(&g.pos).sample(&mut rng) {
            g.apply(&a).expect("a legal action");
        }
        g
    }

    fn snapshot(m: &Match) -> String {
        format!("{m:?}")
    }

    #[test]
    fn r7_4_a_match_scores_only_its_own_hand() {
        let (mut m, g) = Match::new(5, Profile::Guigang);
        let own = finish(g, 1);
        let (_, other) = Match::new(6, Profile::Guigang);
        let before = snapshot(&m);
        for foreign in [finish(other, 1), finish(Match::new(5, Profile::Nanning).1, 1)] {
            assert!(matches!(m.next_hand(&foreign), Err(Error::ForeignHand(_))));
            assert_eq!(snapshot(&m), before);
        }
        m.next_hand(&own).expect("its own hand");
        let after = snapshot(&m);
        // the same finished hand twice
        assert!(matches!(m.next_hand(&own), Err(Error::ForeignHand(_))));
        assert_eq!(snapshot(&m), after);
        let mut hands = [[0u8; crate::rules::card::KINDS]; 4];
        for (i, h) in hands.iter_mut().enumerate() {
            h[i] = 1;
        }
        let fd = finish(Game::from_hands(hands, 14, 0, 0, Profile::Guigang).unwrap(), 1);
        assert!(matches!(m.next_hand(&fd), Err(Error::ForeignHand(_))));
        assert_eq!(snapshot(&m), after);
    }

    #[test]
    fn r7_5_level_wrap() {
        assert_eq!(advance_level(3, 2), (5, false));
        assert_eq!(advance_level(13, 1), (14, false));
        assert_eq!(advance_level(14, 1), (3, true));
        assert_eq!(advance_level(13, 3), (4, true));
        assert_eq!(advance_level(14, 0), (14, false));
    }

    #[test]
    fn c8_levels_stop_at_a() {
        assert_eq!(advance_level_to_a(13, 3), 14);
        assert_eq!(advance_level_to_a(14, 2), 14);
        assert_eq!(advance_level_to_a(3, 2), 5);
    }
}
