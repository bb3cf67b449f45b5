//! What a policy may read: the seat to move's own hand and the public state, never the other
//! hands. Policies ([`Decide`]) see the game only through a [`SeatView`].

use crate::encode::actions::{Builder, ACTIONS};
use crate::game::action_set::ActionSet;
use crate::game::hand::{Action, Game, Phase, Position, Showing, Tally, Trick};
use crate::infoset::info::InfoSet;
use crate::rules::card::Counts;
use crate::rules::combo::Combo;
use crate::rules::follow::Follow;
use crate::rules::trump::Context;
use crate::util::rng::Rng;

/// A decision rule over what the seat to move knows.
pub trait Decide {
    /// The action for the seat of `view` (the hand is not over).
    fn decide(&self, view: &SeatView, rng: &mut Rng) -> Action;

    /// Whether it reads the seat's observation ([`SeatView::observe`]): rollouts then keep
    /// the hand's tally as they play (others run on the bare position, at no extra cost).
    fn observes(&self) -> bool {
        false
    }
}

/// The view of the seat to move.
#[derive(Clone, Copy)]
pub struct SeatView<'a> {
    pos: &'a Position,
    game: Option<&'a Game>,
    /// The hand's tally and the match's levels, where known: what an observation reads
    /// beyond the position (both public).
    seen: Option<(&'a Tally, [u8; 2])>,
}

impl<'a> SeatView<'a> {
    /// The seat to move in `game` (search policies read [`SeatView::info`] where the game
    /// keeps its record; network policies read [`SeatView::observe`]).
    pub fn of_game(game: &'a Game) -> SeatView<'a> {
        SeatView { pos: &game.pos, game: Some(game), seen: Some((&game.tally, game.levels)) }
    }

    /// The seat to move in a bare position (rollouts of policies that do not observe): no
    /// record, no info set, no observation.
    pub fn of_position(pos: &'a Position) -> SeatView<'a> {
        SeatView { pos, game: None, seen: None }
    }

    /// The seat to move in a position whose tally and levels are known (a search's world:
    /// rollouts of policies that observe). No record, no info set.
    pub fn of_seen(pos: &'a Position, tally: &'a Tally, levels: [u8; 2]) -> SeatView<'a> {
        SeatView { pos, game: None, seen: Some((tally, levels)) }
    }

    /// The hand's tally and the match's levels, where this view has them.
    pub fn seen(&self) -> Option<(&'a Tally, [u8; 2])> {
        self.seen
    }

    /// This seat's observation in encoding `enc` ([`crate::encode::observe`]; `canonical`:
    /// suits renamed trump-first as the seat knows trump) with the play `pending` it is
    /// building; None in a bare position.
    pub fn observe<T: crate::encode::observe::Entry>(&self, enc: &crate::encode::observe::Encoding, pending: &Counts, canonical: bool, out: &mut [T]) -> Option<()> {
        let (tally, levels) = self.seen?;
        enc.observe_parts(self.pos, tally, levels, pending, self.pos.to_move, canonical, out);
        Some(())
    }

    /// Trump as this seat knows it (R8.2: while dealing, only its own showing's suit); 255
    /// when unknown.
    pub fn known_trump(&self) -> u8 {
        crate::encode::observe::known_trump(self.pos, self.pos.to_move)
    }

    pub fn seat(&self) -> u8 {
        self.pos.to_move
    }
    pub fn phase(&self) -> Phase {
        self.pos.phase
    }
    pub fn hand(&self) -> &'a Counts {
        &self.pos.hands[self.pos.to_move as usize]
    }
    pub fn level(&self) -> u8 {
        self.pos.level
    }
    /// The current declarer (public, R8.2).
    pub fn declarer(&self) -> u8 {
        self.pos.declarer
    }
    pub fn banker(&self) -> u8 {
        self.pos.banker
    }
    pub fn dealt(&self) -> u8 {
        self.pos.dealt
    }
    /// Showings this seat may make (its own suit is known to it; counts are public).
    pub fn showings(&self) -> impl Iterator<Item = Showing> + 'a {
        self.pos.showings(self.pos.to_move)
    }
    /// The rules context (play phase: the trump suit is public).
    #[inline]
    pub fn ctx(&self) -> &'static Context {
        self.pos.ctx()
    }
    pub fn trick(&self) -> &'a Trick {
        &self.pos.trick
    }
    pub fn tricks_done(&self) -> u8 {
        self.pos.tricks_done
    }
    pub fn leads(&self) -> Vec<Combo> {
        self.pos.leads()
    }
    /// The lead of the trick in progress, if any.
    pub fn lead(&self) -> Option<Combo> {
        self.pos.lead()
    }
    pub fn follow(&self) -> Option<Follow<'static>> {
        self.pos.follow()
    }
    /// Every legal action of this seat now.
    pub fn actions(&self) -> ActionSet {
        ActionSet::of(self.pos)
    }
    /// What this seat knows (needs the hand's record).
    pub fn info(&self) -> Option<InfoSet> {
        self.game.filter(|g| !g.light).map(|g| g.info(self.pos.to_move))
    }

    /// The recorded game behind this view, where it has one: what a search draws its worlds
    /// from (only through [`SeatView::info`]'s determinizer: never its hidden cards).
    pub fn recorded_game(&self) -> Option<&'a Game> {
        self.game.filter(|g| !g.light)
    }

    /// The action ids allowed now for this seat, the play `b` holds so far
    /// ([`crate::encode::actions`]).
    pub fn action_mask(&self, b: &mut Builder) -> [bool; ACTIONS] {
        b.mask(self.pos)
    }

    /// Action id `id` for this seat: the action it completes, or None when it added a card
    /// to the play `b` is building ([`Builder::choose`]).
    pub fn choose(&self, b: &mut Builder, id: u8) -> Result<Option<Action>, crate::rules::error::Error> {
        b.choose(self.pos, id)
    }

    /// For search: this position with the other seats' hands replaced by `hands` (a
    /// determinization). The seat's own hand must be unchanged.
    pub fn position_with(&self, hands: &[Counts; 4]) -> Position {
        debug_assert_eq!(hands[self.pos.to_move as usize], *self.hand());
        let mut p = *self.pos;
        p.hands = *hands;
        p
    }
}
