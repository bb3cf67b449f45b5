//! The frozen action ids, and building a play card by card (for learners).
//!
//! | id | meaning |
//! |---|---|
//! | `0..=53` | add one card of that kind (the card ids) to the play being built |
//! | `54` | end the lead: play the cards chosen (legal when they form one combination, R3.4) |
//! | `55` | pass (while dealing, R8.1) |
//! | `56..=71` | show `count` level cards of `suit`: `56 + suit × 4 + (count − 1)` (R8.1) |
//!
//! A play is built in ascending kind order, so every legal play is exactly one sequence of
//! ids: its cards by kind id, repeats adjacent, then `54` when it is a lead. A follow is
//! played as soon as its N-th card is chosen (R5.1). [`Builder::mask`] allows exactly the ids
//! after which the selection can still be completed to a legal play in that order.

use crate::game::hand::{Action, Game, Phase, Position};
use crate::rules::card::{contains, size, Card, Counts, DECK, KINDS};
use crate::rules::combo::{classify, for_each_lead_in_class};
use crate::rules::error::Error;
use crate::rules::follow::{Case, Follow};
use crate::rules::profile::Rules;

/// Number of action ids.
pub const ACTIONS: usize = 72;
/// End the lead (play the cards chosen).
pub const END_LEAD: u8 = 54;
/// Pass while dealing.
pub const PASS: u8 = 55;
/// The first showing id.
pub const SHOW: u8 = 56;

/// The most action ids one hand can take under `rules`: per deal attempt one per card dealt
/// and one per seat after the last (R8.3, at most `redeal_limit` attempts, R8.5), then one per
/// card played and one end of lead per trick (at most 54 tricks).
pub fn max_steps(rules: &Rules) -> usize {
    rules.redeal_limit as usize * (DECK + 4) + DECK + KINDS
}

/// A follow position with more legal plays than this is masked by counting, not by list.
const LIST_LIMIT: u128 = 1024;

/// The id of showing `count` (1–4) level cards of `suit` (0–3).
pub fn show_id(suit: u8, count: u8) -> u8 {
    SHOW + suit * 4 + (count - 1)
}

/// The ids of `action` in order; a play is led when `lead` (it then ends with [`END_LEAD`]).
pub fn encode(action: &Action, lead: bool) -> Vec<u8> {
    match action {
        Action::Pass => vec![PASS],
        Action::Declare { suit, count } => vec![show_id(*suit, *count)],
        Action::Play(c) => {
            let mut v: Vec<u8> = (0..KINDS).flat_map(|k| std::iter::repeat_n(k as u8, c[k] as usize)).collect();
            if lead {
                v.push(END_LEAD);
            }
            v
        }
    }
}

/// The action a complete id sequence stands for (the inverse of [`encode`]).
pub fn decode(ids: &[u8]) -> Result<Action, Error> {
    let bad = |why: String| Error::BadArgument { what: "ids", message: format!("action ids {ids:?}: {why}") };
    match ids {
        [] => Err(bad("no ids".into())),
        [PASS] => Ok(Action::Pass),
        [id] if (SHOW..SHOW + 16).contains(id) => Ok(Action::Declare { suit: (id - SHOW) / 4, count: (id - SHOW) % 4 + 1 }),
        _ => {
            let cards = match ids.last() {
                Some(&END_LEAD) => &ids[..ids.len() - 1],
                _ => ids,
            };
            let mut c = [0u8; KINDS];
            for (i, &id) in cards.iter().enumerate() {
                if id as usize >= KINDS {
                    return Err(bad(format!("id {id} at {i} is not a card id (0..=53); 54 only ends a lead")));
                }
                if i > 0 && id < cards[i - 1] {
                    return Err(bad("card ids must be in ascending order".into()));
                }
                c[id as usize] += 1;
                if c[id as usize] > 4 {
                    return Err(bad(format!("more than 4 copies of {}", Card(id))));
                }
            }
            if cards.is_empty() {
                return Err(bad("a play needs at least one card".into()));
            }
            Ok(Action::Play(c))
        }
    }
}

/// What `step` did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stepped {
    /// A card was added to the play being built; the same seat decides again.
    Added,
    /// A whole action was applied to the game.
    Applied(Action),
}

/// How the legal plays of the current decision are known.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Listing {
    /// Not looked at yet.
    NotYet,
    /// Listed in [`Builder::plays`].
    Listed,
    /// Too many to list: the follow mask is counted by the ladder's programme.
    Counted,
}

/// The play being built by the player to move, and the legal plays it can still become.
#[derive(Clone, Debug)]
pub struct Builder {
    /// The cards chosen so far.
    pub pending: Counts,
    size: u8,
    /// The highest kind chosen so far (the build order's floor), or 0.
    floor: u8,
    /// The legal plays (as counts) that agree with `pending` in the build order, when
    /// `listing` is [`Listing::Listed`]; kept allocated from decision to decision.
    plays: Vec<Counts>,
    listing: Listing,
    /// The mask of the current selection, once computed.
    mask: Option<[bool; ACTIONS]>,
}

impl Default for Builder {
    fn default() -> Builder {
        Builder { pending: [0; KINDS], size: 0, floor: 0, plays: Vec::new(), listing: Listing::NotYet, mask: None }
    }
}

impl Builder {
    /// Forgets the selection (a new decision starts); keeps the list's allocation.
    pub fn clear(&mut self) {
        self.pending = [0; KINDS];
        self.size = 0;
        self.floor = 0;
        self.plays.clear();
        self.listing = Listing::NotYet;
        self.mask = None;
    }

    pub fn is_empty(&self) -> bool {
        self.size == 0
    }

    /// The highest kind chosen so far (the build order's floor), or 0.
    fn floor(&self) -> usize {
        self.floor as usize
    }

    /// Lists the legal plays of this decision that agree with the selection, where they are
    /// few enough.
    fn list(&mut self, pos: &Position) {
        if self.listing != Listing::NotYet {
            return;
        }
        let hand = &pos.hands[pos.to_move as usize];
        let (pending, floor) = (self.pending, self.floor());
        self.plays.clear();
        match pos.follow() {
            None => {
                // A lead is one combination (R3.4), and a combination lies in one suit class
                // (R3.1–R3.3): that of the cards chosen (leads are listed only once a card
                // is chosen; the empty selection is masked without a list).
                let ctx = pos.ctx();
                let plays = &mut self.plays;
                for_each_lead_in_class(ctx, hand, ctx.class[floor], |c| {
                    if !c.is_tractor() && c.first as usize != floor {
                        return; // a unit of another kind cannot hold the cards chosen
                    }
                    let p = c.counts(ctx);
                    if agrees(&p, &pending, floor) {
                        plays.push(p);
                    }
                });
                self.listing = Listing::Listed;
            }
            Some(f) => {
                let mut set = f.legal_set(&[0; KINDS]);
                if set.count() <= LIST_LIMIT {
                    self.plays = set.all(LIST_LIMIT).unwrap_or_default();
                    if self.size > 0 {
                        self.plays.retain(|p| agrees(p, &pending, floor));
                    }
                    self.listing = Listing::Listed;
                } else {
                    self.listing = Listing::Counted;
                }
            }
        }
    }

    /// The action ids allowed now for the player to move in `pos`.
    pub fn mask(&mut self, pos: &Position) -> [bool; ACTIONS] {
        if let Some(m) = self.mask {
            return m;
        }
        let mut m = [false; ACTIONS];
        match pos.phase {
            Phase::Declare => {
                m[PASS as usize] = true;
                for (suit, (from, held)) in (0..4u8).zip(pos.showing_counts(pos.to_move)) {
                    for count in from..held.saturating_add(1) {
                        m[show_id(suit, count) as usize] = true; // R8.1: count from..=held
                    }
                }
            }
            Phase::Play => self.play_mask(pos, &mut m),
            Phase::Over | Phase::Stopped => {}
        }
        self.mask = Some(m);
        m
    }

    fn play_mask(&mut self, pos: &Position, m: &mut [bool; ACTIONS]) {
        let hand = &pos.hands[pos.to_move as usize];
        match pos.lead() {
            None if self.size == 0 => {
                // R3.4: any card held is a single lead
                for k in 0..KINDS {
                    m[k] = hand[k] > 0;
                }
                return;
            }
            Some(lead) if lead.size() == 1 => {
                // A single led (the selection is still empty: a follow of one card is played
                // with its first card): a card of the led class if any is held (R5.2 with one
                // card of the class, R5.3 T1 with more), else any card (R5.2).
                let class = pos.ctx().class_kinds(lead.class);
                let in_class = class.iter().any(|&k| hand[k as usize] > 0);
                if in_class {
                    for &k in class {
                        m[k as usize] = hand[k as usize] > 0;
                    }
                } else {
                    for k in 0..KINDS {
                        m[k] = hand[k] > 0;
                    }
                }
                return;
            }
            _ => {}
        }
        self.list(pos);
        let floor = self.floor();
        match self.listing {
            Listing::Listed => {
                for p in &self.plays {
                    match (floor..KINDS).find(|&k| p[k] > self.pending[k]) {
                        Some(k) => m[k] = true,
                        None => m[END_LEAD as usize] = true, // the selection is this lead
                    }
                }
                m[END_LEAD as usize] &= pos.lead().is_none();
            }
            Listing::NotYet | Listing::Counted => {
                let f = pos.follow().expect("only follows are counted");
                for k in floor..KINDS {
                    m[k] = hand[k] > self.pending[k] && self.completes(&f, k);
                }
            }
        }
    }

    /// The follow mask computed by counting for every kind, even where the plays are few
    /// enough to list (the tests compare the two ways).
    #[doc(hidden)]
    pub fn counted_follow_mask(&self, pos: &Position) -> Option<[bool; ACTIONS]> {
        let f = pos.follow()?;
        let hand = &pos.hands[pos.to_move as usize];
        let mut m = [false; ACTIONS];
        for k in self.floor()..KINDS {
            m[k] = hand[k] > self.pending[k] && self.completes(&f, k);
        }
        Some(m)
    }

    /// Can the selection plus one card of kind `k` still be completed, in build order, to a
    /// legal follow? (Counted by the ladder's programme, not listed.)
    fn completes(&self, f: &Follow, k: usize) -> bool {
        if self.size as usize + 1 > f.n as usize {
            return false;
        }
        let mut lo = self.pending;
        lo[k] += 1;
        let mut hi = f.hand;
        hi[..k].copy_from_slice(&lo[..k]);
        f.legal_set_within(&lo, &hi).count() > 0
    }

    /// Takes action id `id` for the player to move in `game`: adds a card, ends a lead,
    /// passes or shows. A refused id changes nothing.
    pub fn step(&mut self, game: &mut Game, id: u8) -> Result<Stepped, Error> {
        match self.choose(&game.pos, id)? {
            None => Ok(Stepped::Added),
            Some(action) => {
                game.apply(&action)?;
                self.clear();
                Ok(Stepped::Applied(action))
            }
        }
    }

    /// As [`Builder::step`] without applying anything to the game: the action `id`
    /// completes (the selection is then left as it was, for [`Builder::step`] to clear once
    /// applied), or None when it added a card to the selection. A refused id changes nothing.
    pub fn choose(&mut self, pos: &Position, id: u8) -> Result<Option<Action>, Error> {
        let refuse = |rule: &'static str, message: String| Err(Error::IllegalAction { rule, message });
        if id as usize >= ACTIONS {
            return Err(Error::BadArgument { what: "action", message: format!("action id {id} is not one of 0..={}", ACTIONS - 1) });
        }
        match pos.phase {
            Phase::Over | Phase::Stopped => return refuse("R7", "the hand is over".into()),
            Phase::Declare => {
                return match id {
                    PASS => Ok(Some(Action::Pass)),
                    SHOW.. => Ok(Some(Action::Declare { suit: (id - SHOW) / 4, count: (id - SHOW) % 4 + 1 })),
                    _ => refuse("R8.1", format!("action id {id}: the cards are still being dealt: pass (55) or show (56..=71)")),
                };
            }
            Phase::Play => {}
        }
        if id == PASS || id >= SHOW {
            return refuse("R8.3", format!("action id {id}: declaring has ended: choose cards (0..=53) or end the lead (54)"));
        }
        let leading = pos.lead().is_none();
        let mask = self.mask(pos);
        let n = pos.lead().map(|l| l.size());
        if id == END_LEAD {
            if !leading {
                return refuse("R5.1", "action id 54 ends a lead; a follow is played with its N-th card".into());
            }
            if self.size == 0 || classify(pos.ctx(), &self.pending).is_none() {
                return refuse("R3.4", "action id 54: the cards chosen are not one combination (a unit or a tractor)".into());
            }
            return Ok(Some(Action::Play(self.pending)));
        }
        let hand = &pos.hands[pos.to_move as usize];
        if !mask[id as usize] {
            let rule = match pos.follow() {
                None => "R3.4",
                Some(f) if f.case == Case::Short => "R5.2",
                Some(_) => "R5.3",
            };
            let card = Card(id);
            let why = if hand[id as usize] <= self.pending[id as usize] {
                format!("seat {} holds no more {card} to add", pos.to_move)
            } else if (id as usize) < self.floor() {
                format!("{card} comes before the cards chosen: a play is built in ascending kind order")
            } else {
                format!("no legal play holds the cards chosen and {card}")
            };
            return refuse(rule, format!("action id {id}: {why}"));
        }
        let mut next = self.pending;
        next[id as usize] += 1;
        if let Some(n) = n {
            if size(&next) == n {
                return Ok(Some(Action::Play(next)));
            }
        }
        debug_assert!(contains(hand, &next));
        let from = self.floor();
        self.pending = next;
        self.size += 1;
        self.floor = id;
        self.mask = None;
        if self.listing == Listing::Listed {
            self.plays.retain(|p| narrows(p, &next, from, id as usize));
        }
        Ok(None)
    }
}

/// For a play that agrees with the selection before kind `to` was added (floor `from`), does
/// it agree with `pending`, the selection now (floor `to` ≥ `from`)? Only kinds `from..=to`
/// can have changed: below `to` the play must hold what was chosen, at `to` at least that.
fn narrows(play: &Counts, pending: &Counts, from: usize, to: usize) -> bool {
    (from..to).all(|k| play[k] == pending[k]) && play[to] >= pending[to]
}

/// Can `play` still be reached from `pending` in build order: it holds `pending`, and below
/// kind `floor` it holds nothing more.
fn agrees(play: &Counts, pending: &Counts, floor: usize) -> bool {
    (0..floor).all(|k| play[k] == pending[k]) && (floor..KINDS).all(|k| play[k] >= pending[k])
}
