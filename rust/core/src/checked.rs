//! The checked API: validates user input once, then calls the hot paths.

use crate::card::{check_counts, contains, format, size, cards_of, Counts, KINDS};
use crate::combo::{classify, Combo};
use crate::error::Error;
use crate::follow::{Follow, LegalSet};
use crate::trump::Context;

/// The lead as one combination (R3.4), or why not.
pub fn lead_combo(ctx: &Context, lead: &Counts) -> Result<Combo, Error> {
    check_counts(lead)?;
    classify(ctx, lead).ok_or_else(|| {
        Error::NotACombination(format!(
            "the lead {:?} is not one combination (a unit of one kind, or a tractor of linked kinds \
             of one multiplicity); throws are not allowed",
            format(&cards_of(lead))
        ))
    })
}

/// Validates a follower's hand against a lead and analyses the position.
pub fn follow<'a>(ctx: &'a Context, hand: &Counts, lead: &Counts) -> Result<Follow<'a>, Error> {
    check_counts(hand)?;
    let combo = lead_combo(ctx, lead)?;
    if size(hand) < combo.size() {
        return Err(Error::BadPlays(format!(
            "R5.1: the hand holds {} cards, fewer than the lead's {}",
            size(hand),
            combo.size()
        )));
    }
    Ok(Follow::new(ctx, hand, combo))
}

/// Checks that `play` is N cards from the hand.
pub fn play_in_hand(f: &Follow, play: &Counts) -> Result<(), Error> {
    check_counts(play)?;
    let got = size(play);
    if got != f.n as usize {
        return Err(Error::WrongCount { expected: f.n as usize, got });
    }
    if !contains(&f.hand, play) {
        let missing: Vec<_> = (0..KINDS)
            .filter(|&k| play[k] > f.hand[k])
            .map(|k| crate::card::Card(k as u8).to_string())
            .collect();
        return Err(Error::NotInHand(format!("the play holds cards the hand does not: {}", missing.join(" "))));
    }
    Ok(())
}

/// `Ok(())` for a legal follow, else the error naming the rule.
pub fn check_follow(ctx: &Context, hand: &Counts, lead: &Counts, play: &Counts) -> Result<(), Error> {
    let f = follow(ctx, hand, lead)?;
    play_in_hand(&f, play)?;
    match f.violation(play) {
        None => Ok(()),
        Some(v) => Err(Error::IllegalFollow(v)),
    }
}

/// One legal follow to show as an example (the first in order).
pub fn example_follow(f: &Follow) -> Option<Counts> {
    let mut set: LegalSet<'_> = f.legal_set(&[0; KINDS]);
    set.nth(0)
}
