//! One hand (盘) as a state machine: the deal with hidden declaring (docs/rules.md §8), the tricks
//! (§5–6) and the score (§7).
//!
//! [`Position`] is what the rules need to continue: fixed size, `Copy`, no heap, no history —
//! cheap to clone in a search. [`Game`] adds the deck being dealt and the append-only
//! [`Record`] of what happened, from which observations and JSON are derived.

mod declare;
mod play;
mod tally;

pub use declare::{could_show, Showing};
pub use tally::Tally;

use crate::game::deal::shuffle;
use crate::rules::card::DECK;
use crate::rules::card::{Counts, KINDS};
use crate::rules::combo::Combo;
use crate::rules::error::Error;
use crate::rules::profile::Profile;
use crate::rules::score::{outcome, Outcome};
use crate::rules::trump::Context;
use crate::util::seed::{derive, DEAL};

/// No seat / no suit yet.
pub const NOBODY: u8 = u8::MAX;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Phase {
    /// Dealing, with declaring (R8.1–R8.3).
    Declare,
    /// The tricks (R5–R6).
    Play,
    /// Scored (R7).
    Over,
    /// Three deals in a row without a showing: no result (R8.5).
    Stopped,
}

impl Phase {
    pub fn name(self) -> &'static str {
        match self {
            Phase::Declare => "declare",
            Phase::Play => "play",
            Phase::Over | Phase::Stopped => "over",
        }
    }
}

/// A decision: while dealing, pass or show `count` level cards of `suit`; then a play.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Action {
    Pass,
    Declare { suit: u8, count: u8 },
    Play(Counts),
}

/// The trick in progress: what deciding its winner needs (R6), not its cards.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Trick {
    pub lead: Option<Combo>,
    pub leader: u8,
    pub plays: u8,
    pub best_key: u32,
    pub best_seat: u8,
    pub points: u16,
}

/// The state the rules need to continue a hand. `Copy`, no heap.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Position {
    pub profile: Profile,
    /// The hand's level L (R2.1).
    pub level: u8,
    /// Trump suit 0..4 once fixed, else [`NOBODY`].
    pub trump: u8,
    pub phase: Phase,
    pub hands: [Counts; 4],
    /// The banker, or [`NOBODY`] in a match's first hand until the deal ends (R8.4).
    pub banker: u8,
    /// The current declarer, suit and number of cards shown (R8.1).
    pub declarer: u8,
    pub declared_suit: u8,
    pub declared_count: u8,
    /// Whose decision it is.
    pub to_move: u8,
    /// Cards dealt so far in this attempt, and the first receiver (R1.3).
    pub dealt: u8,
    pub first_seat: u8,
    /// R8.3: how many seats have had their last chance after the deal.
    pub final_round: u8,
    /// Deals without a showing so far (R8.5).
    pub redeals: u8,
    pub trick: Trick,
    pub tricks_done: u8,
    /// Defenders' points so far, before the last-trick bonus (R7.2).
    pub defender_points: i32,
    /// The final score once [`Phase::Over`] (R7.3).
    pub final_score: i32,
    /// The card count N of the last trick's lead, once over.
    pub last_lead_size: u8,
}

impl Position {
    /// The rules tables of this hand (valid once the trump suit is fixed).
    #[inline]
    pub fn ctx(&self) -> &'static Context {
        Context::of(self.level, self.trump, self.profile) // panics if the trump is not fixed yet
    }

    /// Team 0 (seats 0, 2) or 1 (seats 1, 3) (R1.1).
    pub fn team(seat: u8) -> u8 {
        seat % 2
    }

    pub fn is_defender(&self, seat: u8) -> bool {
        self.banker != NOBODY && Self::team(seat) != Self::team(self.banker)
    }

    /// The R7.4 result once the hand is over.
    pub fn outcome(&self) -> Option<Outcome> {
        (self.phase == Phase::Over).then(|| outcome(self.final_score, &self.profile.rules()))
    }

    /// Per seat, once over: levels gained by the seat's team minus the other team's (R7.4),
    /// so the four returns sum to zero.
    pub fn returns(&self) -> Option<[i32; 4]> {
        (self.phase == Phase::Over).then(|| self.returns_for(self.final_score))
    }

    /// Per seat: the returns (as [`Position::returns`]) of a final score `score` of this hand.
    pub fn returns_for(&self, score: i32) -> [i32; 4] {
        let o = outcome(score, &self.profile.rules());
        let bteam = Self::team(self.banker);
        let mut gain = [0i32; 2];
        if o.defenders_take_over {
            gain[1 - bteam as usize] = o.defender_levels as i32;
        } else {
            gain[bteam as usize] = o.banker_levels as i32;
        }
        std::array::from_fn(|s| gain[s % 2] - gain[1 - s % 2])
    }

    /// R7.6: the next hand's banker.
    pub fn next_banker(&self) -> Option<u8> {
        let o = self.outcome()?;
        Some(if o.defenders_take_over { (self.banker + 1) % 4 } else { (self.banker + 2) % 4 })
    }
}

/// One finished trick, for the record: fixed size, no heap (a world's history is copied
/// whole).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TrickRecord {
    pub leader: u8,
    /// (seat, cards) in play order: the leader and the three followers (R6.1).
    pub plays: [(u8, Counts); 4],
    pub winner: u8,
    pub points: u16,
}

/// One public showing, for the record and observations (R8.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ShowingRecord {
    pub attempt: u8,
    /// Cards dealt when it was made (216 in the final round).
    pub dealt: u8,
    pub seat: u8,
    pub suit: u8,
    pub count: u8,
}

/// How a hand began.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Start {
    /// Dealt from `hand_seed`: attempt r uses `decks[r]` (deck and first seat) where given,
    /// else `derive(hand_seed, DEAL, r)` (R8.5). A given first deck is how tests and replays
    /// fix a deal; a world from `determinize` gives every attempt's deck.
    Deal { hand_seed: u64, levels: [u8; 2], banker: u8, decks: Vec<([u8; DECK], u8)> },
    /// Given hands at the play phase.
    Hands { hands: [Counts; 4], level: u8, trump: u8, banker: u8 },
}

/// The append-only record of a hand: replaying `actions` from `start` gives the same hand.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Record {
    pub profile: Profile,
    pub start: Start,
    pub actions: Vec<(u8, Action)>,
    /// (attempt, cards dealt) when each decision while dealing was taken (R8.1, D7).
    pub dealt_at: Vec<(u8, u8)>,
    pub showings: Vec<ShowingRecord>,
    pub tricks: Vec<TrickRecord>,
    /// Plays of the trick in progress.
    pub current: Vec<(u8, Counts)>,
    /// Every receiver decides after every card it receives, and every seat in the final
    /// round (R8.3), pass being its only action when it cannot show: the turn order then
    /// tells nobody who holds level cards. Off, the deal skips seats with nothing to show (D7).
    pub every_receiver: bool,
}

/// A hand: position, the deck being dealt, and the record.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Game {
    pub pos: Position,
    pub deck: [u8; DECK],
    pub levels: [u8; 2],
    pub record: Record,
    /// Bulk mode: keep no record of actions and tricks (the position is unaffected).
    pub light: bool,
    /// The hand's index in its match (0 for a lone hand); public.
    pub hand_index: u32,
    /// What the table has seen so far, kept as the hand goes (observations read it at a
    /// constant cost).
    pub tally: Tally,
}

fn blank_position(profile: Profile, level: u8, banker: u8) -> Position {
    Position {
        profile,
        level,
        trump: NOBODY,
        phase: Phase::Declare,
        hands: [[0; KINDS]; 4],
        banker,
        declarer: NOBODY,
        declared_suit: NOBODY,
        declared_count: 0,
        to_move: 0,
        dealt: 0,
        first_seat: 0,
        final_round: 0,
        redeals: 0,
        trick: Trick::default(),
        tricks_done: 0,
        defender_points: 0,
        final_score: 0,
        last_lead_size: 0,
    }
}

impl Game {
    /// A hand dealt from `hand_seed` with team levels `levels` and `banker` ([`NOBODY`] in a
    /// match's first hand: the final declarer becomes banker, R8.4). `deck` overrides the
    /// first deal (for tests and replays).
    pub fn deal(
        hand_seed: u64,
        profile: Profile,
        levels: [u8; 2],
        banker: u8,
        deck: Option<([u8; DECK], u8)>,
    ) -> Result<Game, Error> {
        Game::deal_decks(hand_seed, profile, levels, banker, deck.into_iter().collect())
    }

    /// As [`Game::deal`], with the decks of the first `decks.len()` attempts given.
    pub fn deal_decks(
        hand_seed: u64,
        profile: Profile,
        levels: [u8; 2],
        banker: u8,
        decks: Vec<([u8; DECK], u8)>,
    ) -> Result<Game, Error> {
        Game::check_start(levels, banker)?;
        Game::check_decks(&decks)?;
        Ok(Game::dealt_from(hand_seed, profile, levels, banker, decks))
    }

    /// R2.1, R8.4: the teams' levels and the banker of a dealt hand.
    fn check_start(levels: [u8; 2], banker: u8) -> Result<(), Error> {
        for &l in &levels {
            if !(3..=14).contains(&l) {
                return Err(Error::BadLevel(l.to_string()));
            }
        }
        if banker != NOBODY && banker > 3 {
            return Err(Error::BadSeat { what: "banker", seat: banker as i64 });
        }
        if banker == NOBODY && levels[0] != levels[1] {
            // R2.1/R8.4: the hand's level is the banker team's; only a match's first hand
            // (both teams at one level) leaves the banker to the declaring.
            return Err(Error::BadDeal(format!(
                "R8.4: without a banker both teams must be at one level (a match's first hand), got {}/{}",
                levels[0], levels[1]
            )));
        }
        Ok(())
    }

    /// R1.2, R1.3: each deck holds every kind four times and names a first receiver.
    fn check_decks(decks: &[([u8; DECK], u8)]) -> Result<(), Error> {
        for (d, first) in decks {
            let mut c = [0u8; KINDS];
            for &k in d.iter() {
                if k as usize >= KINDS {
                    return Err(Error::BadCard(k as i64));
                }
                c[k as usize] += 1;
            }
            if c.iter().any(|&n| n != 4) {
                return Err(Error::BadDeal("R1.2: a deck holds each of the 54 kinds 4 times".into()));
            }
            if *first > 3 {
                return Err(Error::BadSeat { what: "first_seat", seat: *first as i64 });
            }
        }
        Ok(())
    }

    /// [`Game::deal_decks`] of decks known to be whole: a determinized world's
    /// (`infoset::determinize`), whose decks are the unseen cards around the seat's own, so
    /// the count of every kind is skipped (checked in debug builds); levels and banker are
    /// checked.
    pub(crate) fn deal_whole_decks(hand_seed: u64, profile: Profile, levels: [u8; 2], banker: u8, decks: Vec<([u8; DECK], u8)>) -> Result<Game, Error> {
        Game::check_start(levels, banker)?;
        debug_assert!(Game::check_decks(&decks).is_ok(), "whole decks");
        Ok(Game::dealt_from(hand_seed, profile, levels, banker, decks))
    }

    /// The hand dealt from checked levels, banker and decks.
    fn dealt_from(hand_seed: u64, profile: Profile, levels: [u8; 2], banker: u8, decks: Vec<([u8; DECK], u8)>) -> Game {
        let level = if banker == NOBODY { levels[0] } else { levels[Position::team(banker) as usize] };
        let mut g = Game {
            pos: blank_position(profile, level, banker),
            deck: [0; DECK],
            levels,
            record: Record {
                profile,
                start: Start::Deal { hand_seed, levels, banker, decks },
                actions: Vec::new(),
                dealt_at: Vec::new(),
                showings: Vec::new(),
                tricks: Vec::new(),
                current: Vec::new(),
                every_receiver: false,
            },
            light: false,
            hand_index: 0,
            tally: Tally::default(),
        };
        g.start_attempt();
        g
    }

    /// A seeded deal that keeps no record (for bulk simulation); the position evolves
    /// exactly as with [`Game::deal`].
    pub fn deal_fast(hand_seed: u64, profile: Profile, levels: [u8; 2], banker: u8) -> Game {
        let mut g = Game::deal(hand_seed, profile, levels, banker, None).expect("valid levels and banker");
        g.light = true;
        g
    }

    /// The same hand dealt anew with every receiver deciding after every card (see
    /// [`Record::every_receiver`]); only before any decision.
    pub fn with_every_receiver(mut self) -> Result<Game, Error> {
        if !matches!(self.record.start, Start::Deal { .. }) || !self.record.actions.is_empty() {
            return Err(Error::BadDeal("every_receiver is chosen before the first decision of a dealt hand".into()));
        }
        self.record.every_receiver = true;
        self.record.showings.clear();
        self.pos = blank_position(self.pos.profile, self.pos.level, self.pos.banker);
        self.tally = Tally::default();
        self.start_attempt();
        Ok(self)
    }

    /// Applies an action known to be legal (from a policy), without checking it.
    pub fn pos_apply(&mut self, action: &Action) {
        if !self.light {
            self.apply(action).expect("policies produce legal actions");
            return;
        }
        match action {
            Action::Pass => self.pass(),
            Action::Declare { suit, count } => {
                let p = &mut self.pos;
                self.tally.note_showing(p.to_move, *count);
                p.declarer = p.to_move;
                p.declared_suit = *suit;
                p.declared_count = *count;
                self.advance_deal();
            }
            Action::Play(c) => {
                self.tally.note_play(&self.pos, c);
                self.pos.play_unchecked(c);
            }
        }
    }

    /// [`Game::pos_apply`] for policies that read no observation, in a game that keeps no
    /// record: plays leave the tally as it was (bulk simulation of blind policies; nothing
    /// reads it there), the position evolves exactly as with [`Game::pos_apply`].
    pub fn pos_apply_blind(&mut self, action: &Action) {
        match action {
            Action::Play(c) if self.light => {
                self.pos.play_unchecked(c);
            }
            _ => self.pos_apply(action),
        }
    }

    /// A hand from given hands at the play phase (R6.3: the banker leads).
    pub fn from_hands(hands: [Counts; 4], level: u8, trump: u8, banker: u8, profile: Profile) -> Result<Game, Error> {
        Context::get(level, trump, profile)?;
        if banker > 3 {
            return Err(Error::BadSeat { what: "banker", seat: banker as i64 });
        }
        let n = crate::rules::card::size(&hands[0]);
        for h in &hands {
            crate::rules::card::check_counts(h)?;
            if crate::rules::card::size(h) != n {
                return Err(Error::BadDeal("R1.3: all four hands must hold the same number of cards".into()));
            }
        }
        for k in 0..KINDS {
            let total: u32 = hands.iter().map(|h| h[k] as u32).sum();
            if total > 4 {
                return Err(Error::TooManyCopies { card: crate::rules::card::Card(k as u8).to_string(), copies: total as usize });
            }
        }
        let mut pos = blank_position(profile, level, banker);
        pos.hands = hands;
        pos.trump = trump;
        pos.declared_suit = trump;
        pos.dealt = DECK as u8;
        pos.final_round = 4;
        let levels = [level; 2];
        let mut g = Game {
            pos,
            deck: [0; DECK],
            levels,
            record: Record {
                profile,
                start: Start::Hands { hands, level, trump, banker },
                actions: Vec::new(),
                dealt_at: Vec::new(),
                showings: Vec::new(),
                tricks: Vec::new(),
                current: Vec::new(),
                every_receiver: false,
            },
            light: false,
            hand_index: 0,
            tally: Tally::default(),
        };
        if n == 0 {
            return Err(Error::BadDeal("the hands are empty".into()));
        }
        g.begin_play();
        Ok(g)
    }

    /// Starts deal attempt `pos.redeals` (R1.3, R8.5).
    fn start_attempt(&mut self) {
        let Some((d, first)) = self.attempt_deck(self.pos.redeals) else { return };
        self.deck = d;
        self.tally = Tally::default();
        let p = &mut self.pos;
        p.hands = [[0; KINDS]; 4];
        p.first_seat = first;
        p.dealt = 0;
        p.final_round = 0;
        p.declarer = NOBODY;
        p.declared_suit = NOBODY;
        p.declared_count = 0;
        self.advance_deal();
    }

    /// The deck and first seat of deal attempt `r` (R1.3, R8.5), for a dealt hand.
    pub fn attempt_deck(&self, r: u8) -> Option<([u8; DECK], u8)> {
        let Start::Deal { hand_seed, decks, .. } = &self.record.start else { return None };
        Some(match decks.get(r as usize) {
            Some(given) => *given,
            None => shuffle(derive(*hand_seed, DEAL, r as u64)),
        })
    }

    /// The phase of the hand.
    pub fn phase(&self) -> Phase {
        self.pos.phase
    }

    /// Applies an action of the player to move; on error nothing changes.
    pub fn apply(&mut self, action: &Action) -> Result<(), Error> {
        let seat = self.pos.to_move;
        let at = (self.pos.redeals, self.pos.dealt);
        match (self.pos.phase, action) {
            (Phase::Over | Phase::Stopped, _) => {
                return Err(Error::IllegalAction { rule: "R7", message: "the hand is over".into() })
            }
            (Phase::Declare, Action::Pass) => self.pass(),
            (Phase::Declare, Action::Declare { suit, count }) => self.declare(*suit, *count)?,
            (Phase::Declare, Action::Play(_)) => {
                return Err(Error::IllegalAction {
                    rule: "R8.1",
                    message: "the cards are still being dealt: pass or declare".into(),
                })
            }
            (Phase::Play, Action::Play(cards)) => self.play(cards)?,
            (Phase::Play, _) => {
                return Err(Error::IllegalAction { rule: "R8.3", message: "declaring has ended: play cards".into() })
            }
        }
        if matches!(action, Action::Pass | Action::Declare { .. }) {
            self.record.dealt_at.push(at);
        }
        self.record.actions.push((seat, *action));
        Ok(())
    }
}
