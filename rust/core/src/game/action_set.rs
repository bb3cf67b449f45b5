//! One set of legal actions for every phase: count, nth, uniform sample, contains. It serves
//! `LegalPlays` in Python, the policies and the search trees alike.
//!
//! Order: while dealing, pass first, then the showings (R8.1) by suit and count; leading, the
//! order of `combo::nth_lead` (R3.4); following, the follow ladder's order (R5).

use crate::game::hand::{Action, Phase, Position};
use crate::rules::card::{contains as holds, size, Counts, KINDS};
use crate::rules::combo::{classify, count_leads, nth_lead};
use crate::rules::follow::{Follow, LegalSet};
use crate::rules::trump::Context;
use crate::util::rng::Rng;

pub enum ActionSet {
    /// The hand is over: nothing to do.
    Empty,
    /// While dealing: pass, then each allowed showing.
    Declare(Vec<Action>),
    /// Leading: every combination of the hand.
    Leads { ctx: &'static Context, hand: Counts, count: usize },
    /// Following: the ladder's legal set.
    Follows { follow: Follow<'static>, set: LegalSet<'static> },
}

impl ActionSet {
    /// The legal actions of the player to move in `pos`.
    pub fn of(pos: &Position) -> ActionSet {
        match pos.phase {
            Phase::Declare => {
                let mut v = vec![Action::Pass];
                v.extend(pos.showings(pos.to_move).map(|s| Action::Declare { suit: s.suit, count: s.count }));
                ActionSet::Declare(v)
            }
            Phase::Play => match pos.follow() {
                None => {
                    let (ctx, hand) = (pos.ctx(), pos.hands[pos.to_move as usize]);
                    ActionSet::Leads { ctx, hand, count: count_leads(ctx, &hand) }
                }
                Some(follow) => {
                    let set = follow.legal_set(&[0; KINDS]);
                    ActionSet::Follows { follow, set }
                }
            },
            Phase::Over | Phase::Stopped => ActionSet::Empty,
        }
    }

    /// The exact number of distinct legal actions.
    pub fn count(&mut self) -> u128 {
        match self {
            ActionSet::Empty => 0,
            ActionSet::Declare(v) => v.len() as u128,
            ActionSet::Leads { count, .. } => *count as u128,
            ActionSet::Follows { set, .. } => set.count(),
        }
    }

    /// The `r`-th action in the set's order.
    pub fn nth(&mut self, r: u128) -> Option<Action> {
        match self {
            ActionSet::Empty => None,
            ActionSet::Declare(v) => usize::try_from(r).ok().and_then(|i| v.get(i)).copied(),
            ActionSet::Leads { ctx, hand, count } => {
                let i = usize::try_from(r).ok().filter(|&i| i < *count)?;
                nth_lead(ctx, hand, i).map(|c| Action::Play(c.counts(ctx)))
            }
            ActionSet::Follows { set, .. } => set.nth(r).map(Action::Play),
        }
    }

    /// One action, uniform over the distinct legal actions.
    pub fn sample(&mut self, rng: &mut Rng) -> Option<Action> {
        let n = self.count();
        if n == 0 {
            return None;
        }
        let r = rng.below(n);
        self.nth(r)
    }

    /// Is `a` one of the legal actions?
    pub fn contains(&self, a: &Action) -> bool {
        match (self, a) {
            (ActionSet::Declare(v), _) => v.contains(a),
            (ActionSet::Leads { ctx, hand, .. }, Action::Play(c)) => {
                holds(hand, c) && classify(ctx, c).is_some()
            }
            (ActionSet::Follows { follow, .. }, Action::Play(c)) => {
                size(c) == follow.n as usize && holds(&follow.hand, c) && follow.is_legal(c)
            }
            _ => false,
        }
    }

    /// Every action when there are at most `limit`, else `None`.
    pub fn all(&mut self, limit: u128) -> Option<Vec<Action>> {
        let n = self.count();
        if n > limit {
            return None;
        }
        match self {
            ActionSet::Follows { set, .. } => set.all(limit).ok().map(|v| v.into_iter().map(Action::Play).collect()),
            _ => Some((0..n).filter_map(|r| self.nth(r)).collect()),
        }
    }
}
