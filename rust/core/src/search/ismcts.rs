//! Single-observer information-set MCTS (SO-ISMCTS, Cowling, Powley & Whitehouse 2012) over
//! whole plays, with availability counts.
//!
//! Each iteration draws a world from what the seat knows, walks the tree from the root
//! through the actions that are legal in that world (every seat's decisions are nodes), and
//! picks among the available children by UCB1 with availability counts:
//! `mean + c · sqrt(ln(availability) / visits)`, computed in integer fixed point. A node
//! expands one untried action of the world when it has one (the `first` policy's choice
//! first, greedy's unless told, then uniformly among the rest); then a rollout plays to the
//! end and every node on the path adds the return of the seat that chose it.
//!
//! **A guide.** With `first=AGENT` (a play network, say) each new node first tries that
//! policy's play in the iteration's world, seen as the seat to move sees it: the tree grows
//! along the guide's line, and a node's early value is that of the guide's choice.
//!
//! **Wide nodes.** A void follower can have millions of plays. Where a node's world offers
//! more than [`WIDE`] actions, the untried candidates are a few uniform draws from the legal
//! set, and the node grows only while it has fewer than `1 + sqrt(visits)` children
//! (progressive widening), or when none of its children is legal in the world at hand.
//!
//! **Trees and threads.** `trees` independent trees split the iterations (tree t uses the
//! stream `derive(seed, SEARCH, t)`) and run in parallel; their root statistics are summed.
//! The result depends on `trees`, never on the thread count. The decision is the most
//! visited root action (ties: the higher mean, then the first found).
//!
//! **Reuse.** [`ismcts_reusing`] keeps the trees: after the seat's play and the others', the
//! subtree under the plays actually made ([`Tree::follow`]) starts its next search, with the
//! statistics gathered below it so far (they were drawn from the worlds of the earlier,
//! less informed, information set).
//!
//! **Leaf evaluator.** With `solve=N`, a leaf whose hands hold at most N cards each is
//! valued exactly by the open-card solver in that iteration's world instead of played out
//! (past [`LEAF_BUDGET`] nodes it is played out after all). With `value=net:PATH`, a leaf the
//! solver does not value is valued by that network's value head: the returns of the
//! defenders' final score it predicts from the observation of the seat to move there.
//!
//! **Time budget.** With `time_ms` each tree also stops when its time is spent (after at
//! least one iteration): the number of iterations, and so the result, then depend on the
//! machine. Without it the result is a function of the seed alone.

use std::time::{Duration, Instant};

use crate::agent::greedy;
use crate::agent::net::NetPolicy;
use crate::agent::play_net::PlayNetPolicy;
use crate::agent::plays::Plays;
use crate::agent::view::{Decide, SeatView};
use crate::game::action_set::ActionSet;
use crate::game::hand::{Action, Phase};
use crate::infoset::determinize::Determinizer;
use crate::rules::error::Error;
use crate::util::fixed::{isqrt, ln_q32};
use crate::util::parallel::take_turns;
use crate::util::rng::Rng;
use crate::util::seed::{derive, SEARCH};
use super::decision::{determinizer, seen, ActionStats, SearchResult};
use super::rollout::rollout;
use super::solve::value;
use crate::rules::card::size;

/// Nodes offering more actions than this widen progressively.
pub const WIDE: u128 = 48;
/// Draws tried per visit for an untried action of a wide node.
const DRAWS: usize = 4;

/// ISMCTS's parameters; `R` is the policy that plays the rollouts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct IsmctsParams<R> {
    pub iterations: u32,
    /// The exploration constant c in thousandths (0.7 → 700).
    pub c_milli: u32,
    pub rollout: R,
    pub trees: u32,
    /// A time budget in milliseconds (0: none): each tree stops at `iterations` or when its
    /// time is spent, whichever comes first. Only without one is the result a function of
    /// the seed alone.
    pub time_ms: u32,
    /// With N > 0, a leaf whose hands hold at most N cards each is valued by the open-card
    /// solver ([`crate::search::solve`]) in place of a rollout.
    pub solve: u8,
    /// Search while dealing too ([`crate::search::deal::ismcts_deal`]); else show as greedy does.
    pub deal: bool,
    /// A network's value head ([`NetPolicy::score`]) values a leaf in place of a rollout
    /// (`value=net:PATH`; after the solver, where `solve` applies).
    pub value: Option<NetPolicy>,
    /// Worlds that keep who was asked to decide while dealing (`turns=1`), as
    /// [`crate::search::pimc::PimcParams::turns`].
    pub turns: bool,
    /// The policy whose play a new node tries first (`first=AGENT`; None: greedy's).
    pub first: Option<R>,
    /// A play network as the prior (`prior=net:PATH`, [`Prior`]); None: no prior.
    pub prior: Option<Prior>,
    /// With N > 0 (`from=N`), search only once the seat holds at most N cards: before that
    /// the guide decides alone ([`IsmctsParams::guide`]), declaring included unless `deal`.
    pub from: u8,
}

/// A play network's scores as the tree's prior (`prior=net:PATH,bias=B,temp=T`): a node
/// expands the untried candidate the network scores highest, in the world at hand as the seat
/// to move sees it, and keeps `P = 2^(-(best - score) / temp)` (1 for the network's choice);
/// the selection adds `bias · P · sqrt(availability) / (1 + visits)` to UCB1 (the PUCT term of
/// AlphaZero, with availability counts as the parent's visits).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Prior {
    pub net: PlayNetPolicy,
    /// The weight of the prior's term in thousandths of a level (1.0 → 1000).
    pub bias_milli: u32,
    /// Score units per halving of P, in thousandths of a level (0.1 → 100).
    pub temp_milli: u32,
}

impl Prior {
    /// `net` with the default weight and temperature.
    pub fn new(net: PlayNetPolicy) -> Prior {
        Prior { net, bias_milli: 1000, temp_milli: 100 }
    }
}

/// Nodes the solver may spend on one leaf (`solve=N`): past it the leaf is played out.
pub const LEAF_BUDGET: u64 = 200_000;

impl<R: Default> Default for IsmctsParams<R> {
    fn default() -> Self {
        IsmctsParams::new(R::default())
    }
}

impl<R> IsmctsParams<R> {
    /// The defaults: 1,000 iterations, c = 0.7, one tree.
    pub fn new(rollout: R) -> Self {
        IsmctsParams { iterations: 1000, c_milli: 700, rollout, trees: 1, time_ms: 0, solve: 0, deal: false, value: None, turns: false, first: None, prior: None, from: 0 }
    }
}

impl<R: Decide> IsmctsParams<R> {
    /// The guide's decision: the `first` policy's, else the prior network's top-scored
    /// candidate; None without either.
    pub fn guide(&self, view: &SeatView, rng: &mut Rng) -> Option<Action> {
        match (&self.first, &self.prior) {
            (Some(f), _) => Some(f.decide(view, rng)),
            (None, Some(prior)) => Some(prior.net.decide(view, rng)),
            (None, None) => None,
        }
    }
}

#[derive(Clone)]
struct Node {
    action: Action,
    /// The seat that chose `action`.
    player: u8,
    visits: u32,
    avail: u32,
    reward: i64,
    reward_sq: i64,
    /// The prior's P of `action` in Q16 where the tree has a prior (1.0 without one).
    prior: u32,
    children: Vec<u32>,
}

/// One search tree, kept between one seat's consecutive decisions ([`ismcts_reusing`]).
#[derive(Clone)]
pub struct Tree {
    nodes: Vec<Node>,
}

impl Tree {
    /// The visits of its root's children: what a reused tree carries into the next search.
    pub fn visits(&self) -> u64 {
        self.nodes[0].children.iter().map(|&c| self.nodes[c as usize].visits as u64).sum()
    }

    /// The subtree reached by `actions` (every seat's plays since this tree's root, in order),
    /// re-rooted for the seat to move then; None if the tree never tried one of them.
    pub fn follow(&self, actions: &[Action], seat: u8) -> Option<Tree> {
        let mut at = 0usize;
        for a in actions {
            at = *self.nodes[at].children.iter().find(|&&c| self.nodes[c as usize].action == *a)? as usize;
        }
        // copy the subtree, children before grandchildren, ids renumbered
        let mut nodes = vec![self.nodes[at].clone()];
        let mut i = 0;
        while i < nodes.len() {
            let kids = std::mem::take(&mut nodes[i].children);
            let mut renamed = Vec::with_capacity(kids.len());
            for c in kids {
                renamed.push(nodes.len() as u32);
                nodes.push(self.nodes[c as usize].clone());
            }
            nodes[i].children = renamed;
            i += 1;
        }
        nodes[0].action = Action::Pass;
        nodes[0].player = seat;
        Some(Tree { nodes })
    }
}

/// UCB1 with availability, in Q16 fixed point, plus the prior's term where there is one.
fn ucb(n: &Node, c_milli: u32, prior: Option<&Prior>) -> i64 {
    let mean = (n.reward << 16) / n.visits as i64;
    let explore = c_milli as u64 * isqrt(ln_q32(n.avail.max(1) as u64) / n.visits as u64) / 1000;
    let bias = prior.map_or(0, |p| {
        // bias · P · sqrt(avail) / (1 + visits), sqrt in Q8: Q16 · Q8 · milli → Q16
        let root = isqrt((n.avail as u64) << 16) as u128;
        (p.bias_milli as u128 * n.prior as u128 * root / (1000 * 256 * (1 + n.visits as u128))) as i64
    });
    mean + explore as i64 + bias
}

/// P in Q16 of a candidate `gap` score units below the best: `2^(-gap / temp)`, the
/// fraction of a halving interpolated linearly.
fn weight(gap: i64, temp: i64) -> u32 {
    let halvings = gap / temp;
    if halvings >= 32 {
        return 0;
    }
    let whole = 65536u64 >> halvings;
    let frac = (gap % temp) as u64; // whole · (1 - frac / (2 temp))
    (whole - whole * frac / (2 * temp as u64)) as u32
}

/// The score units of a level: a play network's scores are its float outputs times 64 · 127.
const LEVEL: i64 = 64 * 127;

fn grow<R: Decide>(view: &SeatView, det: &mut Determinizer, p: &IsmctsParams<R>, iterations: u32, rng: &mut Rng, start: Option<Tree>) -> Result<Vec<Node>, Error> {
    let root_player = view.seat();
    let (tally0, levels) = seen(view)?;
    let observes = p.rollout.observes() || p.value.is_some() || p.prior.is_some() || p.first.as_ref().is_some_and(|f| f.observes());
    let mut nodes = match start {
        Some(t) => t.nodes,
        None => vec![Node { action: Action::Pass, player: root_player, visits: 0, avail: 0, reward: 0, reward_sq: 0, prior: 1 << 16, children: Vec::new() }],
    };
    let (mut plays, mut scores) = (Plays::default(), Vec::new());
    let mut path = Vec::new();
    let mut avail = Vec::new();
    let deadline = (p.time_ms > 0).then(|| Instant::now() + Duration::from_millis(p.time_ms as u64));
    for i in 0..iterations {
        if i > 0 && deadline.is_some_and(|d| Instant::now() >= d) {
            break; // the time budget: at least one iteration, then stop when it is spent
        }
        let draw = det.hands(rng)?;
        let mut pos = view.position_with(&draw.hands);
        let mut tally = tally0;
        path.clear();
        let mut node = 0usize;
        while pos.phase == Phase::Play {
            let mut set = ActionSet::of(&pos);
            let total = set.count();
            avail.clear();
            avail.extend(nodes[node].children.iter().copied().filter(|&c| set.contains(&nodes[c as usize].action)));
            let room = total <= WIDE || (nodes[node].children.len() as u64) < 1 + isqrt(nodes[node].visits as u64);
            let mut untried = None;
            let mut weight_of_new = 1 << 16;
            if (room || avail.is_empty()) && (avail.len() as u128) < total {
                let tried = |a: &Action| avail.iter().any(|&c| nodes[c as usize].action == *a);
                // the prior's best untried candidate, else the guide's play (greedy's unless told)
                let first = match (&p.prior, &p.first) {
                    (Some(prior), _) => {
                        prior.net.score_all(&SeatView::of_seen(&pos, &tally, levels), rng, &mut plays, &mut scores);
                        let top = scores.iter().copied().max().expect("a candidate") as i64;
                        let temp = (LEVEL * prior.temp_milli as i64 / 1000).max(1);
                        let mut pick: Option<usize> = None;
                        for (i, a) in plays.actions.iter().enumerate() {
                            if !tried(a) && pick.is_none_or(|b| scores[i] > scores[b]) {
                                pick = Some(i);
                            }
                        }
                        // every candidate tried (a wide node): a draw below, weighed as the least
                        let low = scores.iter().copied().min().expect("a candidate") as i64;
                        let gap = pick.map_or(top - low, |i| top - scores[i] as i64);
                        weight_of_new = weight(gap, temp);
                        pick.map_or(plays.actions[0], |i| plays.actions[i])
                    }
                    (None, Some(f)) => f.decide(&SeatView::of_seen(&pos, &tally, levels), rng),
                    (None, None) => greedy::act(&SeatView::of_position(&pos), rng),
                };
                if !tried(&first) {
                    untried = Some(first);
                } else if total <= WIDE {
                    let fresh: Vec<Action> =
                        set.all(WIDE).expect("small").into_iter().filter(|a| !tried(a)).collect();
                    untried = Some(fresh[rng.below_usize(fresh.len())]);
                } else {
                    for _ in 0..DRAWS {
                        let a = set.sample(rng).expect("a legal action");
                        if !tried(&a) {
                            untried = Some(a);
                            break;
                        }
                    }
                }
            }
            for &c in &avail {
                nodes[c as usize].avail += 1;
            }
            let player = pos.to_move;
            let next = match untried {
                Some(a) => {
                    nodes.push(Node { action: a, player, visits: 0, avail: 1, reward: 0, reward_sq: 0, prior: weight_of_new, children: Vec::new() });
                    let id = (nodes.len() - 1) as u32;
                    nodes[node].children.push(id);
                    id
                }
                None => *avail.iter().max_by_key(|&&c| ucb(&nodes[c as usize], p.c_milli, p.prior.as_ref())).expect("an available child"),
            };
            let Action::Play(cards) = nodes[next as usize].action else { unreachable!("plays") };
            if observes {
                tally.note_play(&pos, &cards);
            }
            pos.play_unchecked(&cards);
            path.push(next);
            node = next as usize;
            if untried.is_some() {
                break;
            }
        }
        let solved = (p.solve > 0 && pos.phase == Phase::Play && pos.hands.iter().all(|h| size(h) <= p.solve as usize))
            .then(|| value(&pos, LEAF_BUDGET))
            .flatten();
        let valued = solved.or_else(|| {
            // the network's predicted score (value=net:PATH) while the hand is not over
            p.value.filter(|_| pos.phase == Phase::Play).and_then(|v| v.score(&SeatView::of_seen(&pos, &tally, levels)))
        });
        let returns = match valued {
            Some(score) => pos.returns_for(score), // the leaf's exact (solve=N) or predicted value
            None => rollout(pos, tally, levels, &p.rollout, rng),
        };
        for &n in &path {
            let n = &mut nodes[n as usize];
            n.visits += 1;
            let r = returns[n.player as usize] as i64;
            n.reward += r;
            n.reward_sq += r * r;
        }
        nodes[0].visits += 1;
    }
    Ok(nodes)
}

/// ISMCTS for the seat to move in `view` (play phase, recorded game), on `threads` threads
/// (0: all cores; the result does not depend on it).
pub fn ismcts<R: Decide + Sync>(view: &SeatView, p: &IsmctsParams<R>, seed: u64, threads: usize) -> Result<SearchResult, Error> {
    ismcts_reusing(view, p, seed, threads, Vec::new()).map(|(r, _)| r)
}

/// [`ismcts`] growing `kept` trees (one per tree of `p.trees`, from [`Tree::follow`]) instead
/// of fresh ones when there are as many; returns the trees for the seat's next decision. The
/// result then depends on the searches before, as well as on the seed.
pub fn ismcts_reusing<R: Decide + Sync>(
    view: &SeatView,
    p: &IsmctsParams<R>,
    seed: u64,
    threads: usize,
    kept: Vec<Tree>,
) -> Result<(SearchResult, Vec<Tree>), Error> {
    if p.from > 0 && size(view.hand()) > p.from as usize {
        // `from=N`: the guide decides alone while the seat holds more than N cards
        if let Some(a) = p.guide(view, &mut Rng::new(derive(seed, SEARCH, 0))) {
            return Ok((SearchResult { action: a, stats: vec![ActionStats::unweighed(a)], worlds: Vec::new() }, Vec::new()));
        }
    }
    let det = determinizer(view, p.turns)?;
    let mut set = view.actions();
    if set.count() == 1 {
        let a = set.nth(0).expect("one action");
        return Ok((SearchResult { action: a, stats: vec![ActionStats::unweighed(a)], worlds: Vec::new() }, Vec::new()));
    }
    let trees = p.trees.max(1);
    let mut kept: Vec<Option<Tree>> = if kept.len() == trees as usize { kept.into_iter().map(Some).collect() } else { vec![None; trees as usize] };
    let share = |t: u32| p.iterations / trees + (t < p.iterations % trees) as u32;
    let run = |(t, start): (u32, Option<Tree>)| -> Result<Tree, Error> {
        let mut det = det.clone();
        let mut rng = Rng::new(derive(seed, SEARCH, t as u64));
        Ok(Tree { nodes: grow(view, &mut det, p, share(t), &mut rng, start)? })
    };
    let jobs: Vec<(u32, Option<Tree>)> = (0..trees).map(|t| (t, kept[t as usize].take())).collect();
    let grown: Vec<Tree> = take_turns(jobs, threads, run)?.into_iter().collect::<Result<_, _>>()?;
    let root_stats = |tree: &Tree| -> Vec<ActionStats> {
        let nodes = &tree.nodes;
        nodes[0]
            .children
            .iter()
            .map(|&c| {
                let n = &nodes[c as usize];
                ActionStats { action: n.action, visits: n.visits as u64, total: n.reward, total_sq: n.reward_sq }
            })
            .collect()
    };
    let mut stats: Vec<ActionStats> = Vec::new();
    for tree in &grown {
        for s in root_stats(tree) {
            match stats.iter_mut().find(|x| x.action == s.action) {
                Some(x) => {
                    x.visits += s.visits;
                    x.total += s.total;
                    x.total_sq += s.total_sq;
                }
                None => stats.push(s),
            }
        }
    }
    // the most visited; ties: the higher mean (cross-multiplied), then the first found
    let mut best = 0;
    for (i, s) in stats.iter().enumerate().skip(1) {
        let b = &stats[best];
        let better_mean = (s.total as i128) * (b.visits as i128) > (b.total as i128) * (s.visits as i128);
        if s.visits > b.visits || (s.visits == b.visits && better_mean) {
            best = i;
        }
    }
    let action = stats[best].action;
    // as documented: most visited first (a stable sort: ties keep the order found)
    stats.sort_by_key(|s| std::cmp::Reverse(s.visits));
    Ok((SearchResult { action, stats, worlds: Vec::new() }, grown))
}

#[cfg(test)]
mod tests {
    use super::weight;

    #[test]
    fn the_priors_weight_halves_every_temperature_and_never_grows_with_the_gap() {
        let temp = 813;
        assert_eq!((weight(0, temp), weight(temp, temp), weight(2 * temp, temp)), (65536, 32768, 16384));
        assert_eq!(weight(32 * temp, temp), 0);
        let mut last = u32::MAX;
        for gap in 0..40 * temp {
            let w = weight(gap, temp);
            assert!(w <= last, "gap {gap}");
            // within one unit of 2^(-gap/temp) interpolated between halvings
            let exact = 65536.0 * 0.5f64.powf(gap as f64 / temp as f64);
            assert!((w as f64 - exact).abs() <= 0.0615 * exact + 1.0, "gap {gap}: {w} vs {exact}");
            last = w;
        }
    }
}
