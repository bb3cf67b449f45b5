//! The checked API: validates user input once, then calls the hot paths.

use rayon::prelude::*;

use crate::rules::card::{check_counts, contains, format, size, cards_of, Counts, KINDS};
use crate::rules::combo::{classify, Combo};
use crate::rules::error::Error;
use crate::rules::follow::{Follow, LegalSet};
use crate::rules::trump::Context;

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
        return Err(Error::BadTrick(format!(
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
            .map(|k| crate::rules::card::Card(k as u8).to_string())
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

/// R6: the index into `plays` (the lead first) of the trick's winner. A trick has 2 to 4
/// plays (R5.1), the lead is one combination (R3.4) and every play has its size.
pub fn trick_winner(ctx: &Context, plays: &[Counts]) -> Result<usize, Error> {
    if !(2..=4).contains(&plays.len()) {
        return Err(Error::BadTrick(format!("a trick has 2 to 4 plays, got {}", plays.len())));
    }
    for p in plays {
        check_counts(p)?;
    }
    let lead = lead_combo(ctx, &plays[0])?;
    for (i, p) in plays.iter().enumerate().skip(1) {
        let n = size(p);
        if n != lead.size() {
            return Err(Error::BadTrick(format!("R5.1: plays[{i}] has {n} cards, the lead has {}", lead.size())));
        }
    }
    Ok(crate::rules::combo::trick_winner(ctx, plays).expect("the lead is a combination"))
}

/// Row `i` of a batch that failed: the row's own error, naming the row.
fn in_row(i: usize, e: Error) -> Error {
    Error::InRow { row: i, error: Box::new(e) }
}

/// A batch marker: the row raised an error (found again, in order, after the parallel pass).
const FAILED: u8 = u8::MAX;

/// [`classify`] of every row, in parallel (rayon). Each row must be a valid count array;
/// the first bad row (in order) is the error, naming the row.
pub fn classify_batch(ctx: &Context, rows: &[Counts]) -> Result<Vec<Option<Combo>>, Error> {
    if let Some((i, e)) = rows.iter().enumerate().find_map(|(i, r)| check_counts(r).err().map(|e| (i, e))) {
        return Err(in_row(i, e));
    }
    Ok(rows.par_iter().map(|r| classify(ctx, r)).collect())
}

/// The legality of `plays[i]` as a follow from `hands[i]` to `leads[i]`, for every row, in
/// parallel (rayon): true for a legal follow; false for an illegal one, a play of the wrong
/// size or one with cards the hand does not hold. An invalid count array, a lead that is no
/// combination or a hand smaller than its lead is an error naming the first such row.
pub fn is_legal_follow_batch(ctx: &Context, hands: &[Counts], leads: &[Counts], plays: &[Counts]) -> Result<Vec<bool>, Error> {
    if hands.len() != leads.len() || hands.len() != plays.len() {
        return Err(Error::BadArgument {
            what: "batch",
            message: format!("hands, leads and plays need one row count, got {}, {}, {}", hands.len(), leads.len(), plays.len()),
        });
    }
    let one = |i: usize| -> Result<bool, Error> {
        check_counts(&plays[i])?;
        let f = follow(ctx, &hands[i], &leads[i])?;
        Ok(play_in_hand(&f, &plays[i]).is_ok() && f.is_legal(&plays[i]))
    };
    let marks: Vec<u8> = (0..hands.len()).into_par_iter().map(|i| one(i).map_or(FAILED, |b| b as u8)).collect();
    if let Some(i) = marks.iter().position(|&m| m == FAILED) {
        return Err(in_row(i, one(i).expect_err("the row failed")));
    }
    Ok(marks.into_iter().map(|m| m == 1).collect())
}
