//! Built-in policies, mixable per seat. Every policy decides from what its seat knows: it
//! reads the game through a [`SeatView`] (its own hand and the public state; search policies
//! also the seat's [`crate::info::InfoSet`]), never the other hands.
//!
//! - `random`: uniform over the distinct legal actions (see [`crate::playout`]);
//! - `greedy`: a fast heuristic player (see [`greedy`]);
//! - `pimc:worlds=W,rollouts=R,rollout=random|greedy` and
//!   `ismcts:iterations=I,c=C,rollout=random|greedy,trees=T`: the searches of
//!   [`crate::search`]. While cards are dealt they decide as `greedy` does.

pub mod greedy;
mod view;

pub use view::SeatView;

use crate::error::Error;
use crate::hand_state::{Action, Game, Phase};
use crate::rng::Rng;
use crate::search::{ismcts, pimc, IsmctsParams, PimcParams, Rollout};

/// A decision rule over what the seat to move knows.
pub trait Decide {
    /// The action for the seat of `view` (the hand is not over).
    fn decide(&self, view: &SeatView, rng: &mut Rng) -> Action;
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Policy {
    Random,
    Greedy,
    Pimc(PimcParams),
    Ismcts(IsmctsParams),
}

/// Parses `key=value` parameters of a search policy.
fn params(text: &str) -> Result<Vec<(String, String)>, Error> {
    text.split(',')
        .filter(|s| !s.trim().is_empty())
        .map(|kv| match kv.split_once('=') {
            Some((k, v)) => Ok((k.trim().to_string(), v.trim().to_string())),
            None => Err(Error::BadPolicy(format!("policy parameter {kv:?} is not key=value"))),
        })
        .collect()
}

fn count(key: &str, v: &str, lo: u32, hi: u32) -> Result<u32, Error> {
    match v.parse::<u32>() {
        Ok(n) if (lo..=hi).contains(&n) => Ok(n),
        _ => Err(Error::BadPolicy(format!("policy parameter {key}={v:?}: expected a whole number in {lo}..={hi}"))),
    }
}

/// A decimal like `0.7` as thousandths, without floats (the search compares in integers).
fn milli(key: &str, v: &str) -> Result<u32, Error> {
    let bad = || Error::BadPolicy(format!("policy parameter {key}={v:?}: expected a decimal in 0..=100 (e.g. 0.7)"));
    let (int, frac) = v.split_once('.').unwrap_or((v, ""));
    if int.is_empty() && frac.is_empty() || frac.len() > 3 || !int.chars().chain(frac.chars()).all(|c| c.is_ascii_digit()) {
        return Err(bad());
    }
    let i: u32 = if int.is_empty() { 0 } else { int.parse().map_err(|_| bad())? };
    let f: u32 = if frac.is_empty() { 0 } else { format!("{frac:0<3}").parse().map_err(|_| bad())? };
    if i > 100 {
        return Err(bad());
    }
    Ok(i * 1000 + f)
}

impl Policy {
    /// `random`, `greedy`, `pimc[:worlds=32,rollouts=8,rollout=random]` or
    /// `ismcts[:iterations=1000,c=0.7,rollout=random,trees=4]` (case and spaces ignored).
    pub fn parse(name: &str) -> Result<Policy, Error> {
        let lower = name.trim().to_ascii_lowercase();
        let (head, rest) = lower.split_once(':').unwrap_or((lower.as_str(), ""));
        let rollout = |v: &str| match v {
            "random" => Ok(Rollout::Random),
            "greedy" => Ok(Rollout::Greedy),
            _ => Err(Error::BadPolicy(format!("rollout policy {v:?}: expected 'random' or 'greedy'"))),
        };
        match head.trim() {
            "random" | "greedy" if !rest.trim().is_empty() => {
                Err(Error::BadPolicy(format!("policy {head:?} takes no parameters, got {rest:?}")))
            }
            "random" => Ok(Policy::Random),
            "greedy" => Ok(Policy::Greedy),
            "pimc" => {
                let mut p = PimcParams::default();
                for (k, v) in params(rest)? {
                    match k.as_str() {
                        "worlds" => p.worlds = count(&k, &v, 1, 100_000)?,
                        "rollouts" => p.rollouts = count(&k, &v, 1, 100_000)?,
                        "rollout" => p.rollout = rollout(&v)?,
                        _ => return Err(Error::BadPolicy(format!("unknown pimc parameter {k:?}: worlds, rollouts, rollout"))),
                    }
                }
                Ok(Policy::Pimc(p))
            }
            "ismcts" => {
                let mut p = IsmctsParams::default();
                for (k, v) in params(rest)? {
                    match k.as_str() {
                        "iterations" => p.iterations = count(&k, &v, 1, 10_000_000)?,
                        "c" => p.c_milli = milli(&k, &v)?,
                        "rollout" => p.rollout = rollout(&v)?,
                        "trees" => p.trees = count(&k, &v, 1, 1024)?,
                        _ => {
                            return Err(Error::BadPolicy(format!(
                                "unknown ismcts parameter {k:?}: iterations, c, rollout, trees"
                            )))
                        }
                    }
                }
                Ok(Policy::Ismcts(p))
            }
            other => Err(Error::BadPolicy(format!(
                "unknown policy {other:?}: expected 'random', 'greedy', 'pimc[:...]' or 'ismcts[:...]'"
            ))),
        }
    }

    /// The canonical name, with every parameter (parses back to the same policy).
    pub fn name(&self) -> String {
        match self {
            Policy::Random => "random".into(),
            Policy::Greedy => "greedy".into(),
            Policy::Pimc(p) => format!("pimc:worlds={},rollouts={},rollout={}", p.worlds, p.rollouts, p.rollout.name()),
            Policy::Ismcts(p) => format!(
                "ismcts:iterations={},c={}.{:03},rollout={},trees={}",
                p.iterations,
                p.c_milli / 1000,
                p.c_milli % 1000,
                p.rollout.name(),
                p.trees
            ),
        }
    }

    /// Search policies read the seat's info set, so their games keep a record.
    pub fn needs_record(&self) -> bool {
        matches!(self, Policy::Pimc(_) | Policy::Ismcts(_))
    }

    /// The policy's action for the player to move, or `None` once the hand is over.
    pub fn act(&self, game: &Game, rng: &mut Rng) -> Option<Action> {
        let view = SeatView::of_game(game);
        match view.phase() {
            Phase::Declare | Phase::Play => Some(self.decide(&view, rng)),
            Phase::Over | Phase::Stopped => None,
        }
    }
}

impl Decide for Policy {
    fn decide(&self, view: &SeatView, rng: &mut Rng) -> Action {
        match self {
            Policy::Random => crate::playout::random_choice(view, rng).expect("a legal action"),
            Policy::Greedy => greedy::act(view, rng),
            // R8: searches start at the play; while dealing they show as greedy does
            _ if view.phase() == Phase::Declare => greedy::act(view, rng),
            Policy::Pimc(p) => pimc(view, p, rng.next_u64(), 1).expect("a search over a recorded game").action,
            Policy::Ismcts(p) => ismcts(view, p, rng.next_u64(), 1).expect("a search over a recorded game").action,
        }
    }
}
