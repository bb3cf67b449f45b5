//! Typed errors of the checked API. Hot paths never return them.

use std::fmt;

use crate::util::parallel::ParallelError;
use crate::util::pool::RowError;

/// A tier of the follow ladder (docs/rules.md R5.2–R5.3).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tier {
    /// R5.2: the follower holds at most N cards of the led class: all of them.
    AllOfClass,
    /// R5.3 T1: one combination of exactly N cards.
    T1,
    /// R5.3 T2: the longest tractor.
    T2,
    /// R5.3 T3: the most pairs.
    T3,
    /// R5.3 T4: free cards of the led class.
    T4,
    /// Competition C4: an entry of a unit lead's list (its name, e.g. "C4 a triple and a card").
    C4(&'static str),
    /// Competition C5: the part of the key (E, L, p, t) that decides ("C5 E", "C5 L", "C5 p",
    /// "C5 t", "C5 any").
    C5(&'static str),
}

impl Tier {
    pub fn name(self) -> &'static str {
        match self {
            Tier::AllOfClass => "R5.2",
            Tier::T1 => "T1",
            Tier::T2 => "T2",
            Tier::T3 => "T3",
            Tier::T4 => "T4",
            Tier::C4(name) | Tier::C5(name) => name,
        }
    }
}

/// Why a follow is illegal: the rule, what the ladder required, what the play met.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FollowViolation {
    /// Rule id, e.g. `"R5.3 T2"`.
    pub rule: &'static str,
    pub required: Tier,
    pub met: Tier,
    pub message: String,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Error {
    /// A card token that does not parse.
    BadToken(String),
    /// A card id outside 0..54.
    BadCard(i64),
    /// More than 4 copies of one kind (R1.2); `card` as written (`As`).
    TooManyCopies { card: String, copies: usize },
    /// A level outside 3..=14 (R2.1), as given (a number or a text).
    BadLevel(String),
    /// A trump suit that is not one of s, h, d, c.
    BadSuit(String),
    /// An unknown profile name (docs/rules.md §9): the message names the profiles.
    BadProfile(String),
    /// A lead that is not one combination (R3.4).
    NotACombination(String),
    /// Plays of a trick that cannot be compared: a wrong number of them, unequal sizes, or a
    /// hand smaller than the lead (R5.1).
    BadTrick(String),
    /// A seat outside 0..=3 (R1.1); `what` names the argument (seat, banker, first_seat).
    BadSeat { what: &'static str, seat: i64 },
    /// A deal or a set of hands that cannot start a hand (R1.2–R1.3, R8.4).
    BadDeal(String),
    /// An unknown policy name or a bad policy parameter.
    BadPolicy(String),
    /// An argument out of its range or of the wrong kind; `what` names it.
    BadArgument { what: &'static str, message: String },
    /// A game that is not the match's own current hand (R7.4–R7.6 carry only its result).
    ForeignHand(String),
    /// A binary hand record that does not decode or replay.
    CorruptRecord(String),
    /// No world fits what a seat knows (determinization).
    NoWorld(String),
    /// The error of one row of a batch call.
    InRow { row: usize, error: Box<Error> },
    /// A resource the engine needs (a thread pool) could not be had.
    Resource(String),
    /// A play with cards the player does not hold.
    NotInHand(String),
    /// A play of the wrong size (R5.1).
    WrongCount { expected: usize, got: usize },
    /// An illegal follow (R5.2–R5.3).
    IllegalFollow(FollowViolation),
    /// An action the game does not allow now (the rule id leads the message).
    IllegalAction { rule: &'static str, message: String },
    /// More legal follows than the caller's limit.
    TooMany { limit: u128, count: u128 },
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::BadToken(t) => write!(f, "bad card token {t:?}: expected rank then suit (As, 10h, Th, 2♦) or SJ/BJ"),
            Error::BadCard(i) => write!(f, "bad card id {i}: ids are 0..53"),
            Error::TooManyCopies { card, copies } => {
                write!(f, "R1.2: {copies} copies of {card}, but four decks hold only 4")
            }
            Error::BadLevel(l) => write!(f, "R2.1: bad level {l}: levels are 3..14 (3..10, J, Q, K, A)"),
            Error::BadSuit(s) => write!(f, "bad trump suit {s:?}: expected one of s, h, d, c"),
            Error::BadProfile(m) => write!(f, "{m}"),
            Error::NotACombination(m) => write!(f, "R3.4: {m}"),
            Error::BadTrick(m) => write!(f, "{m}"),
            Error::BadSeat { what, seat } => write!(f, "R1.1: {what} must be a seat 0..3, got {seat}"),
            Error::BadDeal(m) => write!(f, "{m}"),
            Error::BadPolicy(m) => write!(f, "{m}"),
            Error::BadArgument { what, message } => write!(f, "{what}: {message}"),
            Error::ForeignHand(m) => write!(f, "{m}"),
            Error::CorruptRecord(m) => write!(f, "corrupt hand record: {m}"),
            Error::NoWorld(m) => write!(f, "{m}"),
            Error::Resource(m) => write!(f, "{m}"),
            Error::InRow { row, error } => write!(f, "row {row}: {error}"),
            Error::NotInHand(m) => write!(f, "{m}"),
            Error::WrongCount { expected, got } => {
                write!(f, "R5.1: the play must have {expected} cards, it has {got}")
            }
            Error::IllegalFollow(v) => write!(f, "{}: {}", v.rule, v.message),
            Error::IllegalAction { rule, message } => write!(f, "{rule}: {message}"),
            Error::TooMany { limit, count } => {
                write!(f, "{count} legal follows exceed the limit {limit}; use count_legal_follows or random_follow")
            }
        }
    }
}

impl std::error::Error for Error {}

impl From<ParallelError> for Error {
    fn from(e: ParallelError) -> Self {
        match e {
            ParallelError::PastLastIndex { .. } => Error::BadArgument { what: "start", message: e.to_string() },
            ParallelError::Threads { .. } => Error::Resource(e.to_string()),
        }
    }
}

/// Rows a batch call named that its pool refuses (out of range, or twice).
impl From<RowError> for Error {
    fn from(e: RowError) -> Self {
        Error::BadArgument { what: "rows", message: e.to_string() }
    }
}
