//! The one named union of the engine's policies: every policy name is spelled here, and only
//! here. The binding, Python, the CLI and the adapters ask this module ([`Policy::parse`],
//! [`Policy::name`], [`Agent::ALL`], [`Policy::SEARCHES`]); nothing else lists the names.
//!
//! - An **agent** decides without search ([`crate::agent`]): `random` (uniform over the
//!   distinct legal actions), `greedy` (a fast heuristic player), greedy with other weights,
//!   `greedy:NAME=V/...` ([`crate::agent::weights`]), or an integer network read from a
//!   weights file, `net:PATH` ([`crate::agent::net`]). Any agent can also play a
//!   search's rollouts (a network's rollouts carry the hand's public tally:
//!   [`Decide::observes`]).
//! - A **search** decides by looking ahead over worlds the seat cannot tell apart
//!   ([`crate::search`]): `pimc:worlds=W,rollouts=R,rollout=AGENT` and
//!   `ismcts:iterations=I,c=C,rollout=AGENT,trees=T`, each with `value=net:PATH` to value
//!   positions by a network's value head instead of rollouts. While cards are dealt a search
//!   shows as `greedy` does unless `deal=1` (R8.1).
//!
//! - A **shipped name** stands for a policy spelled out: the search presets the ladder rates
//!   ([`Policy::PRESETS`], `pimc-16`, `ismcts-1000`) and greedy's weights learned by self-play
//!   ([`Agent::TUNED`], `tuned-greedy-v1`); each is a policy name wherever one is taken, and a
//!   tuned set also a search's `rollout=`. A policy is named back by its canonical name
//!   ([`Policy::name`]), the same as the text it stands for would be.
//!
//! **Adding an agent** is one file in `agent/` with `pub fn act(&SeatView, &mut Rng) -> Action`
//! and one line in the `agents!` list below: its variant, its name and its `act`. It is then
//! a policy everywhere (`simulate`, `VecEnv` opponents, the CLI, the searches' `rollout=`).

use crate::agent::view::{Decide, SeatView};
use crate::agent::net::{read_weights, NetPolicy};
use crate::agent::play_net::{PlayNet, PlayNetPolicy};
use crate::agent::weights::{Tuned, Weights};
use crate::agent::{greedy, random};
use crate::game::hand::{Action, Game, Phase};
use crate::rules::error::Error;
use crate::search::ismcts::{ismcts, IsmctsParams, Prior};
use crate::search::deal::{ismcts_deal, pimc_deal};
use crate::search::decision::SearchResult;
use crate::search::pimc::{pimc, PimcParams};
use crate::util::rng::Rng;

/// Defines [`Agent`] from one list: its variants, [`Agent::ALL`], [`Agent::name`] and the
/// dispatch of [`Decide`]; one line per agent, `Variant => "name", path::to::act;`.
macro_rules! agents {
    ($($(#[$doc:meta])* $variant:ident => $name:literal, $act:path;)*) => {
        /// A policy that decides without search; each can also play a search's rollouts.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum Agent {
            $($(#[$doc])* $variant,)*
            /// An integer network read from a weights file (`net:PATH`, [`crate::agent::net`]).
            Net(NetPolicy),
            /// An integer network that scores whole plays (`net:PATH` of a format-4 file,
            /// [`crate::agent::play_net`]).
            PlayNet(PlayNetPolicy),
            /// Greedy scoring with other weights (`greedy:NAME=V/...`, [`crate::agent::weights`]).
            Tuned(Tuned),
        }

        impl Agent {
            /// Every built-in agent, in the order users are offered them (networks are
            /// named by their files).
            pub const ALL: &'static [Agent] = &[$(Agent::$variant),*];

            /// The agent's name (what [`Policy::parse`] reads): `net:PATH` for a network.
            pub fn name(self) -> &'static str {
                match self {
                    $(Agent::$variant => $name,)*
                    Agent::Net(n) => n.name(),
                    Agent::PlayNet(n) => n.name(),
                    Agent::Tuned(t) => t.name(),
                }
            }
        }

        impl Decide for Agent {
            #[inline]
            fn decide(&self, view: &SeatView, rng: &mut Rng) -> Action {
                match self {
                    $(Agent::$variant => $act(view, rng),)*
                    Agent::Net(n) => n.decide(view, rng),
                    Agent::PlayNet(n) => n.decide(view, rng),
                    Agent::Tuned(t) => greedy::act_with(view, rng, t.weights()),
                }
            }

            fn observes(&self) -> bool {
                matches!(self, Agent::Net(_) | Agent::PlayNet(_))
            }
        }
    };
}

agents! {
    /// Uniform over the distinct legal actions of each decision ([`random`]).
    Random => "random", random::act;
    /// A fast heuristic player ([`greedy`]).
    Greedy => "greedy", greedy::act;
}

/// `tuned-greedy-v1`'s weights: learned by self-play (`examples/tune_greedy.py`; the command
/// that made them is in docs/arena.md). Frozen: `tests/tuned.rs` pins how they play.
macro_rules! tuned_greedy_v1 {
    () => {
        "greedy:keep_left=11/ace=484/ace_size=79/tractor=-29/tractor_size=49/tractor_trump=19/pair=45/pair_size=28/single=8/unit=78/unit_size=17/lead_points=0/feed=12/feed_risk=7/win=2639/win_points=10/win_empty=24/lose_points=25/show_margin=20"
    };
}

impl Agent {
    /// The tuned greedy weights that ship, by name: each name stands for its
    /// `greedy:NAME=V/...` (its canonical name) as a policy and as a search's `rollout=`.
    pub const TUNED: &'static [(&'static str, &'static str)] = &[
        ("tuned-greedy-v1", tuned_greedy_v1!()),
        // the same weights sampling 4 follows instead of 16 where there are too many to list:
        // cheaper rollouts for the searches (docs/arena.md, learned weights as ISMCTS's rollout)
        ("tuned-greedy-v1-fast", concat!(tuned_greedy_v1!(), "/samples=4")),
    ];
}

/// The text a shipped name in `table` stands for (case and spaces ignored), or None.
fn shipped(name: &str, table: &[(&str, &'static str)]) -> Option<&'static str> {
    let key = name.trim().to_ascii_lowercase();
    table.iter().find(|(n, _)| *n == key).map(|&(_, text)| text)
}

/// The agent a search rolls out with unless told otherwise.
impl Default for Agent {
    fn default() -> Self {
        Agent::Random
    }
}

/// Any policy: an agent (a network included) or a search whose rollouts an agent plays.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Policy {
    Agent(Agent),
    Pimc(PimcParams<Agent>),
    Ismcts(IsmctsParams<Agent>),
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
    match thousandths(v) {
        Some((i, f)) if i <= 100 => Ok(i * 1000 + f),
        _ => Err(bad()),
    }
}

/// A time budget in seconds with at most three decimals (`time=0.1`), as milliseconds
/// 1..=3,600,000 (`time=0` is no budget).
fn time_ms(key: &str, v: &str) -> Result<u32, Error> {
    let bad = || Error::BadPolicy(format!("policy parameter {key}={v:?}: expected seconds in 0..=3600 with at most three decimals (e.g. 0.1)"));
    match thousandths(v) {
        Some((i, f)) if v.split('.').next().is_some_and(|int| int.len() <= 4) && (i < 3600 || (i, f) == (3600, 0)) => Ok(i * 1000 + f),
        _ => Err(bad()),
    }
}

/// A decimal with at most three decimals, `"0.7"`, `"12"`, `".05"`: (whole part, thousandths),
/// or None for anything else (signs, exponents, more decimals, no digits).
fn thousandths(v: &str) -> Option<(u32, u32)> {
    let (int, frac) = v.split_once('.').unwrap_or((v, ""));
    if int.is_empty() && frac.is_empty() || frac.len() > 3 || !int.chars().chain(frac.chars()).all(|c| c.is_ascii_digit()) {
        return None;
    }
    let i: u32 = if int.is_empty() { 0 } else { int.parse().ok()? };
    let f: u32 = if frac.is_empty() { 0 } else { format!("{frac:0<3}").parse().ok()? };
    Some((i, f))
}

/// `,time=S.SSS` for a time budget, nothing without one (names from before it stay the same).
fn time_name(ms: u32) -> String {
    if ms == 0 {
        String::new()
    } else {
        format!(",time={}.{:03}", ms / 1000, ms % 1000)
    }
}

/// "'a', 'b' or 'c'".
fn quoted_list(names: &[&str]) -> String {
    let q: Vec<String> = names.iter().map(|n| format!("'{n}'")).collect();
    match q.split_last() {
        None => String::new(),
        Some((last, [])) => last.clone(),
        Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
    }
}

impl Agent {
    /// An agent by name (case and spaces ignored, except inside a network's path), for a
    /// search's `rollout=`: a built-in agent, `greedy:NAME=V/...`, a shipped tuned set's name
    /// ([`Agent::TUNED`]) or `net:PATH`.
    pub fn parse(name: &str) -> Result<Agent, Error> {
        if let Some(text) = shipped(name, Agent::TUNED) {
            return Agent::parse(text);
        }
        if let Some(n) = net(name)? {
            return Ok(n);
        }
        if let Some(t) = tuned(name)? {
            return Ok(t);
        }
        let lower = name.trim().to_ascii_lowercase();
        Agent::ALL.iter().copied().find(|a| a.name() == lower).ok_or_else(|| {
            let mut names: Vec<&str> = Agent::ALL.iter().map(|a| a.name()).collect();
            names.extend(["greedy:NAME=V/...", "net:PATH"]);
            Error::BadPolicy(format!("rollout policy {lower:?}: expected {}", quoted_list(&names)))
        })
    }
}

/// `net:PATH` read now (the path keeps its case and inner spaces): a network over action ids
/// (weights formats 1-3) or over whole plays (format 4); None for another name.
fn net(name: &str) -> Result<Option<Agent>, Error> {
    let name = name.trim();
    if !name.get(..4).is_some_and(|head| head.eq_ignore_ascii_case("net:")) {
        return Ok(None);
    }
    let path = name[4..].trim();
    if path.is_empty() {
        return Err(Error::BadPolicy("policy \"net:\" needs the path of a weights file: net:PATH".into()));
    }
    let bytes = read_weights(path).map_err(|e| Error::BadPolicy(format!("net:{path}: {e}")))?;
    if bytes.get(8..10) == Some(&crate::agent::play_net::FORMAT_VERSION.to_le_bytes()[..]) {
        let n = PlayNet::parse(&bytes).map_err(|e| Error::BadPolicy(format!("net:{path}: {e}")))?;
        return Ok(Some(Agent::PlayNet(PlayNetPolicy::keep(path, n))));
    }
    NetPolicy::load(path).map(|n| Some(Agent::Net(n)))
}

/// `greedy:NAME=V/...` (weights as [`Weights::parse`] reads them): `greedy` itself when they
/// are greedy's own, else a tuned greedy; None for another name.
fn tuned(name: &str) -> Result<Option<Agent>, Error> {
    let Some((head, rest)) = name.trim().split_once(':') else { return Ok(None) };
    if !head.trim().eq_ignore_ascii_case(Agent::Greedy.name()) {
        return Ok(None);
    }
    let w = Weights::parse(rest)?;
    Ok(Some(if w == Weights::GREEDY { Agent::Greedy } else { Agent::Tuned(Tuned::new(w)) }))
}

/// A search's `value=net:PATH`: a network with a value head (weights format 3).
fn value_net(v: &str) -> Result<NetPolicy, Error> {
    match net(v)? {
        Some(Agent::Net(n)) if n.0.net.value.is_some() => Ok(n),
        Some(n) => Err(Error::BadPolicy(format!("value={}: the network has no value head (weights format 3)", n.name()))),
        None => Err(Error::BadPolicy(format!("value={:?}: expected net:PATH, a network with a value head", v.trim()))),
    }
}

fn prior_net(v: &str) -> Result<PlayNetPolicy, Error> {
    match net(v)? {
        Some(Agent::PlayNet(n)) => Ok(n),
        Some(n) => Err(Error::BadPolicy(format!("prior={}: the network does not score whole plays (weights format 4)", n.name()))),
        None => Err(Error::BadPolicy(format!("prior={:?}: expected net:PATH, a play network (weights format 4)", v.trim()))),
    }
}

/// `,prior=net:PATH,bias=B,temp=T`, or nothing.
fn prior_name(p: Option<Prior>) -> String {
    p.map(|p| format!(",prior={},bias={}.{:03},temp={}.{:03}", p.net.name(), p.bias_milli / 1000, p.bias_milli % 1000, p.temp_milli / 1000, p.temp_milli % 1000))
        .unwrap_or_default()
}

/// `,value=net:PATH`, or nothing.
fn value_name(v: Option<NetPolicy>) -> String {
    v.map(|n| format!(",value={}", n.name())).unwrap_or_default()
}

impl Policy {
    /// The searches' names, each followed by `[:key=value,...]`.
    pub const SEARCHES: [&'static str; 2] = ["pimc", "ismcts"];

    /// The search presets that ship, by name (the settings the ladder rates, docs/arena.md):
    /// each name stands for its search as a policy.
    pub const PRESETS: &'static [(&'static str, &'static str)] = &[
        ("pimc-16", "pimc:worlds=16,rollouts=1,rollout=greedy"),
        ("ismcts-1000", "ismcts:iterations=1000,rollout=greedy"),
    ];

    /// Every policy's name as a user writes it: the agents, then the searches
    /// (`"pimc[:...]"`), then `"greedy:NAME=V/..."` and `"net:PATH"`.
    pub fn names() -> Vec<String> {
        let agents = Agent::ALL.iter().map(|a| a.name().to_string());
        let searches = Self::SEARCHES.iter().map(|s| format!("{s}[:...]"));
        agents.chain(searches).chain(["greedy:NAME=V/...".to_string(), "net:PATH".to_string()]).collect()
    }

    /// An agent's name, `pimc[:worlds=32,rollouts=8,rollout=random,solve=0,time=0,deal=0,turns=0]` or
    /// `ismcts[:iterations=1000,c=0.7,rollout=random,trees=4,solve=0,time=0,deal=0,turns=0,first=AGENT]`
    /// (case and spaces ignored; `time` in seconds, `solve` in cards a hand; `turns=1`: worlds
    /// that keep who was asked while dealing; `first`: the policy whose play a new node tries
    /// first; or `prior=net:PATH,bias=1.0,temp=0.1`, a play network as the tree's prior
    /// ([`crate::search::ismcts::Prior`]), in place of `first`; `from=N`: search only once the
    /// seat holds at most N cards, the guide deciding alone before, declaring included), either
    /// with `value=net:PATH` (a network's value head in place of rollouts); or a shipped name
    /// ([`Policy::PRESETS`], [`Agent::TUNED`]), the policy it stands for.
    pub fn parse(name: &str) -> Result<Policy, Error> {
        if let Some(text) = shipped(name, Policy::PRESETS).or_else(|| shipped(name, Agent::TUNED)) {
            return Policy::parse(text);
        }
        if let Some(n) = net(name)? {
            return Ok(Policy::Agent(n));
        }
        if let Some(t) = tuned(name)? {
            return Ok(Policy::Agent(t));
        }
        // the head and the keys ignore case; values keep theirs (a rollout network's path)
        let (head, rest) = name.trim().split_once(':').unwrap_or((name.trim(), ""));
        let head = head.trim().to_ascii_lowercase();
        let head = head.as_str();
        if let Some(a) = Agent::ALL.iter().copied().find(|a| a.name() == head) {
            if !rest.trim().is_empty() {
                return Err(Error::BadPolicy(format!("policy {head:?} takes no parameters, got {rest:?}")));
            }
            return Ok(Policy::Agent(a));
        }
        match head {
            "pimc" => {
                let mut p = PimcParams::<Agent>::default();
                for (k, v) in params(rest)? {
                    let k = k.to_ascii_lowercase();
                    match k.as_str() {
                        "worlds" => p.worlds = count(&k, &v, 1, 100_000)?,
                        "rollouts" => p.rollouts = count(&k, &v, 1, 100_000)?,
                        "rollout" => p.rollout = Agent::parse(&v)?,
                        "solve" => p.solve = count(&k, &v, 0, 54)? as u8,
                        "time" => p.time_ms = time_ms(&k, &v)?,
                        "deal" => p.deal = count(&k, &v, 0, 1)? == 1,
                        "value" => p.value = Some(value_net(&v)?),
                        "turns" => p.turns = count(&k, &v, 0, 1)? == 1,
                        _ => return Err(Error::BadPolicy(format!("unknown pimc parameter {k:?}: worlds, rollouts, rollout, solve, time, deal, value, turns"))),
                    }
                }
                Ok(Policy::Pimc(p))
            }
            "ismcts" => {
                let mut p = IsmctsParams::<Agent>::default();
                let (mut bias, mut temp) = (None, None);
                for (k, v) in params(rest)? {
                    let k = k.to_ascii_lowercase();
                    match k.as_str() {
                        "iterations" => p.iterations = count(&k, &v, 1, 10_000_000)?,
                        "c" => p.c_milli = milli(&k, &v)?,
                        "rollout" => p.rollout = Agent::parse(&v)?,
                        "trees" => p.trees = count(&k, &v, 1, 1024)?,
                        "time" => p.time_ms = time_ms(&k, &v)?,
                        "solve" => p.solve = count(&k, &v, 0, 54)? as u8,
                        "deal" => p.deal = count(&k, &v, 0, 1)? == 1,
                        "value" => p.value = Some(value_net(&v)?),
                        "turns" => p.turns = count(&k, &v, 0, 1)? == 1,
                        "first" => p.first = Some(Agent::parse(&v)?),
                        "from" => p.from = count(&k, &v, 0, 54)? as u8,
                        "prior" => p.prior = Some(Prior::new(prior_net(&v)?)),
                        "bias" => bias = Some(milli(&k, &v)?),
                        "temp" => match milli(&k, &v)? {
                            0 => return Err(Error::BadPolicy(format!("policy parameter temp={v:?}: expected a decimal in 0.001..=100"))),
                            t => temp = Some(t),
                        },
                        _ => {
                            return Err(Error::BadPolicy(format!(
                                "unknown ismcts parameter {k:?}: iterations, c, rollout, trees, solve, time, deal, value, turns, first, prior, bias, temp, from"
                            )))
                        }
                    }
                }
                match &mut p.prior {
                    Some(prior) => {
                        if p.first.is_some() {
                            return Err(Error::BadPolicy("ismcts: first= and prior= both choose a new node's first play: give one".into()));
                        }
                        prior.bias_milli = bias.unwrap_or(prior.bias_milli);
                        prior.temp_milli = temp.unwrap_or(prior.temp_milli);
                    }
                    None if bias.is_some() || temp.is_some() => {
                        return Err(Error::BadPolicy("ismcts: bias= and temp= weigh a prior: give prior=net:PATH too".into()))
                    }
                    None => {}
                }
                if p.from > 0 && p.first.is_none() && p.prior.is_none() {
                    return Err(Error::BadPolicy("ismcts: from= leaves the decisions before it to a guide: give first= or prior= too".into()));
                }
                Ok(Policy::Ismcts(p))
            }
            other => {
                let names: Vec<String> = Self::names();
                let names: Vec<&str> = names.iter().map(String::as_str).collect();
                Err(Error::BadPolicy(format!("unknown policy {other:?}: expected {}", quoted_list(&names))))
            }
        }
    }

    /// The canonical name, with every parameter (parses back to the same policy).
    pub fn name(&self) -> String {
        match self {
            Policy::Agent(a) => a.name().into(),
            Policy::Pimc(p) => {
                let solve = if p.solve > 0 { format!(",solve={}", p.solve) } else { String::new() };
                let time = time_name(p.time_ms);
                let deal = if p.deal { ",deal=1" } else { "" };
                let value = value_name(p.value);
                let turns = if p.turns { ",turns=1" } else { "" };
                format!("pimc:worlds={},rollouts={},rollout={}{solve}{time}{deal}{value}{turns}", p.worlds, p.rollouts, p.rollout.name())
            }
            Policy::Ismcts(p) => format!(
                "ismcts:iterations={},c={}.{:03},rollout={},trees={}{}{}{}{}{}{}{}{}",
                p.iterations,
                p.c_milli / 1000,
                p.c_milli % 1000,
                p.rollout.name(),
                p.trees,
                if p.solve > 0 { format!(",solve={}", p.solve) } else { String::new() },
                time_name(p.time_ms),
                if p.deal { ",deal=1" } else { "" },
                value_name(p.value),
                if p.turns { ",turns=1" } else { "" },
                p.first.map(|f| format!(",first={}", f.name())).unwrap_or_default(),
                prior_name(p.prior),
                if p.from > 0 { format!(",from={}", p.from) } else { String::new() }
            ),
        }
    }

    /// Search policies read the seat's info set, so their games keep a record.
    pub fn needs_record(&self) -> bool {
        matches!(self, Policy::Pimc(_) | Policy::Ismcts(_))
    }

    /// Whether the policy may read the game's tally (an observation, or a search's worlds):
    /// every policy but the agents that do not observe.
    pub fn reads_tally(&self) -> bool {
        match self {
            Policy::Agent(a) => a.observes(),
            _ => true,
        }
    }

    /// A search's whole result at a play decision of `view` (its root's statistics beside
    /// its action), drawing from `rng` exactly as [`Decide::decide`] does, so its action is the
    /// one `act` would take; `None` for an agent and while dealing.
    pub fn search(&self, view: &SeatView, rng: &mut Rng) -> Option<SearchResult> {
        if view.phase() != Phase::Play {
            return None;
        }
        match self {
            Policy::Agent(_) => None,
            Policy::Pimc(p) => Some(pimc(view, p, rng.next_u64(), 1).expect("a search over a recorded game")),
            Policy::Ismcts(p) => Some(ismcts(view, p, rng.next_u64(), 1).expect("a search over a recorded game")),
        }
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
    /// A network reads its observation in a rollout's world too (a search's world, a
    /// self-play world): the tally must be kept for it there.
    fn observes(&self) -> bool {
        matches!(self, Policy::Agent(a) if a.observes())
    }

    fn decide(&self, view: &SeatView, rng: &mut Rng) -> Action {
        match self {
            Policy::Agent(a) => a.decide(view, rng),
            // R8.1: a search with deal=1 searches while dealing; otherwise it shows as greedy does
            Policy::Pimc(p) if view.phase() == Phase::Declare && p.deal => match view.recorded_game() {
                Some(g) => pimc_deal(g, p, rng.next_u64(), 1).expect("a search over a recorded game").action,
                None => greedy::act(view, rng),
            },
            Policy::Ismcts(p) if view.phase() == Phase::Declare && p.deal => match view.recorded_game() {
                Some(g) => ismcts_deal(g, p, rng.next_u64(), 1).expect("a search over a recorded game").action,
                None => greedy::act(view, rng),
            },
            // `from=N`: the guide decides before the search begins, while dealing too
            Policy::Ismcts(p) if view.phase() == Phase::Declare && p.from > 0 => match p.guide(view, rng) {
                Some(a) => a,
                None => greedy::act(view, rng),
            },
            _ if view.phase() == Phase::Declare => greedy::act(view, rng),
            Policy::Pimc(p) => pimc(view, p, rng.next_u64(), 1).expect("a search over a recorded game").action,
            Policy::Ismcts(p) => ismcts(view, p, rng.next_u64(), 1).expect("a search over a recorded game").action,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_name_parses_back_to_its_policy() {
        for &a in Agent::ALL {
            assert_eq!(Policy::parse(a.name()), Ok(Policy::Agent(a)));
            assert_eq!(Agent::parse(&format!(" {} ", a.name().to_uppercase())), Ok(a));
            for s in ["pimc:rollout=", "ismcts:iterations=7,rollout="] {
                let p = Policy::parse(&format!("{s}{}", a.name())).unwrap();
                assert_eq!(Policy::parse(&p.name()), Ok(p));
            }
        }
        for s in Policy::SEARCHES {
            let p = Policy::parse(s).unwrap();
            assert!(p.needs_record() && p.name().starts_with(s));
            assert_eq!(Policy::parse(&p.name()), Ok(p));
        }
    }

    #[test]
    fn bad_names_say_what_is_expected() {
        // every name listed, in order, the last after "or"
        let e = Policy::parse("minimax").unwrap_err().to_string();
        let names: Vec<String> = Agent::ALL.iter().map(|a| format!("'{}'", a.name())).collect();
        let agents = names.join(", ");
        assert_eq!(e, format!("unknown policy \"minimax\": expected {agents}, 'pimc[:...]', 'ismcts[:...]', 'greedy:NAME=V/...' or 'net:PATH'"));
        assert!(e.starts_with("unknown policy \"minimax\": expected 'random', 'greedy'"), "{e}");
        let e = Policy::parse("pimc:rollout=ismcts").unwrap_err().to_string();
        assert_eq!(e, format!("rollout policy \"ismcts\": expected {}, 'greedy:NAME=V/...' or 'net:PATH'", names.join(", ")));
        assert!(Policy::parse("greedy:x=1").is_err() && Policy::parse("ismcts:c=1.2345").is_err());
        for bad in ["random:feed=1", "greedy:feed=1,win=2", "pimc:rollout=greedy:feed=9999", "greedy:feed"] {
            assert!(Policy::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn tuned_greedy_names_round_trip_and_greedys_own_weights_are_greedy() {
        let p = Policy::parse(" GREEDY: feed_risk=4 / Win=1500 ").unwrap();
        assert_eq!(p.name(), "greedy:feed_risk=4/win=1500");
        assert_eq!(Policy::parse(&p.name()), Ok(p));
        let Policy::Agent(Agent::Tuned(t)) = p else { panic!("{p:?}") };
        assert_eq!((t.weights().feed_risk, t.weights().win, t.weights().feed), (4, 1500, 8));
        for same in ["greedy:", "greedy:feed=8", "greedy: win=2000 / keep_left=12"] {
            assert_eq!(Policy::parse(same), Ok(Policy::Agent(Agent::Greedy)), "{same}");
        }
        let s = Policy::parse("ismcts:iterations=7,rollout=greedy:feed=3").unwrap();
        assert_eq!(s.name(), "ismcts:iterations=7,c=0.700,rollout=greedy:feed=3,trees=1");
        assert_eq!(Policy::parse(&s.name()), Ok(s));
        let s = Policy::parse("ismcts:iterations=7,first=greedy:feed=3").unwrap();
        assert_eq!(s.name(), "ismcts:iterations=7,c=0.700,rollout=random,trees=1,first=greedy:feed=3");
        assert_eq!(Policy::parse(&s.name()), Ok(s));
        assert!(Policy::parse("ismcts:first=pimc").is_err());
    }

    #[test]
    fn a_shipped_name_is_the_policy_it_stands_for_wherever_a_name_is_taken() {
        for &(name, text) in Policy::PRESETS.iter().chain(Agent::TUNED) {
            let p = Policy::parse(text).unwrap();
            assert_eq!(Policy::parse(name), Ok(p), "{name}");
            assert_eq!(Policy::parse(&format!(" {} ", name.to_uppercase())), Ok(p), "{name}: case and spaces ignored");
            assert_ne!(p.name(), name, "{name} is named back by what it stands for");
        }
        assert!(matches!(Policy::parse("pimc-16"), Ok(Policy::Pimc(_))));
        assert!(matches!(Policy::parse("ismcts-1000"), Ok(Policy::Ismcts(_))));
        // a tuned set is an agent: it plays a search's rollouts; a preset is not an agent
        for &(name, text) in Agent::TUNED {
            let Ok(Policy::Agent(a @ Agent::Tuned(_))) = Policy::parse(name) else { panic!("{name}") };
            assert_eq!((Agent::parse(name), a.name()), (Ok(a), text));
            let s = Policy::parse(&format!("ismcts:iterations=7,rollout={name}")).unwrap();
            assert_eq!(s.name(), format!("ismcts:iterations=7,c=0.700,rollout={text},trees=1"));
        }
        for &(name, _) in Policy::PRESETS {
            assert!(Agent::parse(name).is_err() && Policy::parse(&format!("pimc:rollout={name}")).is_err(), "{name}");
        }
        assert_eq!(Agent::TUNED[1].1, format!("{}/samples=4", Agent::TUNED[0].1));
    }

    #[test]
    fn time_budgets_and_solve_round_trip() {
        for (text, name) in [
            ("ismcts:time=0.1", "ismcts:iterations=1000,c=0.700,rollout=random,trees=1,time=0.100"),
            ("ismcts:time=2", "ismcts:iterations=1000,c=0.700,rollout=random,trees=1,time=2.000"),
            ("ismcts:time=0", "ismcts:iterations=1000,c=0.700,rollout=random,trees=1"),
            ("pimc:time=.05,solve=5", "pimc:worlds=32,rollouts=8,rollout=random,solve=5,time=0.050"),
            ("pimc:solve=0", "pimc:worlds=32,rollouts=8,rollout=random"),
            ("pimc:deal=1,rollout=greedy", "pimc:worlds=32,rollouts=8,rollout=greedy,deal=1"),
            ("ismcts:deal=1,time=0.5", "ismcts:iterations=1000,c=0.700,rollout=random,trees=1,time=0.500,deal=1"),
            ("ismcts:time=1,solve=3", "ismcts:iterations=1000,c=0.700,rollout=random,trees=1,solve=3,time=1.000"),
        ] {
            let p = Policy::parse(text).unwrap();
            assert_eq!(p.name(), name);
            assert_eq!(Policy::parse(name), Ok(p));
        }
        for bad in ["ismcts:time=-1", "ismcts:time=0.0001", "ismcts:time=3601", "pimc:time=x", "pimc:time=", "pimc:solve=55"] {
            assert!(Policy::parse(bad).is_err(), "{bad}");
        }
    }
}
