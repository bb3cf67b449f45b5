//! Native self-play that writes training samples for networks that score whole plays
//! ([`crate::agent::plays`], [`crate::agent::play_net`]).
//!
//! Hand `i` of a run with seed `s` is `simulate`'s hand `i`: the first hand of a fresh match
//! dealt from `derive(s, BATCH_HAND, i)`, seat `p` deciding with its policy's stream
//! `derive(hand_seed, POLICY, p)`. Without exploration the hands are played exactly as
//! `simulate` plays them with the same policies. With `drawn_levels` the same cards are dealt
//! at levels and a banker drawn for the hand ([`hand_levels`]), as a match reaches them.
//!
//! At a decision of a learner seat with more than one candidate, drawn with probability
//! `label_rate / 65536`, the decision is **labelled**: the seat's observation is kept, and up
//! to `per_decision` of its candidates (the base's action always, the others drawn uniformly)
//! are each played and then rolled out to the end of the hand `rollouts` times by the
//! `rollout` policy on every seat. Every candidate's r-th rollout draws from the same
//! streams (common random numbers), so the differences between candidates' values are the
//! effect of the candidate, not of the luck of the rollout. A rollout plays the true hands:
//! its value is that of the position, which the seat does not see; a network that sees only
//! the observation learns the value's expectation over what the seat cannot tell apart. The
//! value of a candidate is the mean over its rollouts of the seat's return (levels, R7.4) and
//! of its team's points margin (the defenders' final score R7.3 past the take-over score 160
//! for a defending seat, short of it for the banker's team: the same for either role).
//!
//! With `worlds > 0`, a labelled play decision is valued as a search values it instead: in
//! `worlds` worlds the seat cannot tell from the game (the searches' determinizer,
//! [`crate::search::decision::determinizer`]), each candidate rolled out `rollouts` times in
//! each world (the candidates of one world sharing its streams). The value is then an
//! estimate of what the seat's information is worth, not of one deal's: far less spread for
//! the same number of samples, at `worlds` times the rollouts. Declaring decisions are valued
//! from the true state still.
//!
//! With `solve = N > 0`, a labelled play decision where the seat holds at most N cards is valued
//! by the open-card solver ([`crate::search::solve`]) instead of rollouts: each candidate's
//! exact minimax score in the true state (with `worlds` 0: a privileged critic's target, as
//! PerfectDou's, from what the seat cannot see) or in each world (as PIMC with `solve=N` values
//! it), counted as each of the rollouts' value. A world or state the solver cannot finish
//! within [`SOLVE_BUDGET`] nodes is rolled out for the candidates left, as without `solve`.
//!
//! With `rollouts == 0` a labelled decision is valued as Deep Monte-Carlo values it (DouZero):
//! only the candidate played is written, and its value is the seat's own return and margin at
//! the end of this hand. Nothing is rolled out (the cheapest samples, and the noisiest:
//! everything that happens after the decision is in the target); `worlds` must be 0.
//!
//! With a `teacher` (a search, say), its action at each labelled decision is recorded and
//! valued beside the others (drawn from `derive(derive(hand_seed, SELF_PLAY, 2^64 - 1),
//! SELF_PLAY, k)`'s stream): targets for imitation. A search teacher at a play decision also
//! gives its root's visits: each valued candidate's (`visits`, 0 for a play it did not try) and
//! the decision's total (`searched`), how sure the search was; with `value_visited > 0` every
//! play it visited at least `value_visited / 65536` of the time is valued too (most visited
//! first), so that its preferences among its likely plays are targets as well.
//!
//! With `explore / 65536` a learner seat plays a candidate drawn uniformly instead of its
//! policy's action (so the samples see positions its policy avoids).
//!
//! Streams (see [`crate::util::seed`]): decision `k` of hand `hand_seed` (the k-th action of
//! the hand) draws its labelling coin, its candidates, its exploration and its choice of
//! candidates from `derive(derive(hand_seed, SELF_PLAY, 0), SELF_PLAY, k)`'s stream, and its
//! r-th rollout's seat `p` from `derive(derive(hand_seed, SELF_PLAY, 1 + k), SELF_PLAY, 4r + p)`;
//! valued in worlds, world `w` is drawn from `ws = derive(derive(hand_seed, SELF_PLAY, 1 + k),
//! SELF_PLAY, w)`'s stream and its r-th rollout plays from `derive(ws, SELF_PLAY, 1 + r)`'s.
//! With drawn levels, the hand's levels and banker come from `derive(hand_seed, SELF_PLAY,
//! 2^64 - 2)`'s stream ([`hand_levels`]).
//! The samples depend on the seed and range only, never on the thread count.

use crate::agent::play_features::Features;
use crate::agent::plays::{candidates, index_of, Plays};
use crate::agent::view::{Decide, SeatView};
use crate::agent::weights::Weights;
use crate::encode::observe::Encoding;
use crate::game::hand::{Action, Game, Phase, Position, NOBODY};
use crate::rules::score::outcome;
use crate::rules::card::{size, Counts};
use crate::policy::Policy;
use crate::rules::error::Error;
use crate::rules::profile::Profile;
use crate::search::decision::determinizer;
use crate::search::pimc::SOLVE_BUDGET;
use crate::search::rollout::play_out;
use crate::search::solve::values;
use crate::util::parallel::over_range;
use crate::util::rng::Rng;
use crate::util::seed::{derive, BATCH_HAND, POLICY, SELF_PLAY};

/// How self-play plays and what it labels.
#[derive(Clone, Copy, Debug)]
pub struct SelfPlayConfig {
    pub profile: Profile,
    /// The policy that plays each seat.
    pub seats: [Policy; 4],
    /// The seats whose decisions are labelled (and explore).
    pub learners: [bool; 4],
    /// The candidates' base weights (its action is every decision's first candidate).
    pub base: Weights,
    /// The policy that plays every seat of a rollout.
    pub rollout: Policy,
    /// Probability, in 65536ths, that a learner decision is labelled.
    pub label_rate: u32,
    /// Most candidates valued per labelled decision (at least 2).
    pub per_decision: usize,
    /// Rollouts per candidate; 0 writes the candidate played only, valued by the hand's own
    /// outcome (Deep Monte-Carlo; `worlds` 0).
    pub rollouts: u32,
    /// Probability, in 65536ths, that a learner seat plays a uniformly drawn candidate.
    pub explore: u32,
    /// Worlds per labelled play decision (0: roll out the true state).
    pub worlds: u32,
    /// A policy (a search, typically) whose action at each labelled decision is recorded
    /// (`taught`), from its own stream; it is added to the candidates when the generator did
    /// not offer it, and always valued (with `rollouts` 0, only when it is the one played).
    pub teacher: Option<Policy>,
    /// With a search teacher, the share of its root's visits (in 65536ths) from which a play
    /// it tried is valued too (0: its action only).
    pub value_visited: u32,
    /// The observation kept, and whether its suits are renamed trump-first.
    pub obs: &'static Encoding,
    /// The candidates' features written ([`crate::agent::play_features`]; they do not change
    /// the candidates, the decisions or the values).
    pub features: &'static Features,
    pub canonical: bool,
    /// With N > 0, a labelled play decision where the seat holds at most N cards is valued by
    /// the open-card solver (in the true state, or in each world) instead of rollouts.
    pub solve: u8,
    /// Deal hands as a match reaches them: each team's level drawn from 3..=A and the banker
    /// from the four seats (R2.1), instead of the first hand of a fresh match (both teams at
    /// 3, no banker: `simulate`'s hands).
    pub drawn_levels: bool,
}

/// Samples of a run, decision by decision and candidate by candidate, in hand order.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Samples {
    /// Per labelled decision: the seat's observation (`u8` entries, the encoding's `dim` each).
    pub obs: Vec<u8>,
    /// Per labelled decision: the hand's index, the seat, the decision's index in the hand,
    /// how many candidates it had and whether they were every legal action.
    pub hand: Vec<u64>,
    pub seat: Vec<u8>,
    pub step: Vec<u16>,
    pub candidates: Vec<u16>,
    pub complete: Vec<bool>,
    /// Per labelled decision: the visits of a search teacher's root (0: no teacher, not a
    /// search, or dealing; PIMC weighs every candidate alike, its rollouts).
    pub searched: Vec<u64>,
    /// Per valued candidate: its decision (an index into the decisions above), its
    /// features (the config's `features.dim` each), its value in levels and in points (means over its
    /// rollouts), whether it is the base's action, and whether the seat played it.
    pub decision: Vec<u32>,
    pub features: Vec<i16>,
    pub levels: Vec<f32>,
    pub points: Vec<f32>,
    pub is_base: Vec<bool>,
    pub played: Vec<bool>,
    /// The teacher's action (with a teacher; else all false).
    pub taught: Vec<bool>,
    /// The visits a search teacher's root gave the candidate (0: not tried, or no search).
    pub visits: Vec<u64>,
    /// Per hand: the seats' returns as played (levels, R7.4; zero when stopped, R8.5).
    pub returns: Vec<[i16; 4]>,
}

impl Samples {
    fn append(&mut self, mut o: Samples) {
        let base = self.seat.len() as u32;
        self.obs.append(&mut o.obs);
        self.hand.append(&mut o.hand);
        self.seat.append(&mut o.seat);
        self.step.append(&mut o.step);
        self.candidates.append(&mut o.candidates);
        self.complete.append(&mut o.complete);
        self.searched.append(&mut o.searched);
        self.decision.extend(o.decision.iter().map(|d| d + base));
        self.features.append(&mut o.features);
        self.levels.append(&mut o.levels);
        self.points.append(&mut o.points);
        self.is_base.append(&mut o.is_base);
        self.played.append(&mut o.played);
        self.taught.append(&mut o.taught);
        self.visits.append(&mut o.visits);
        self.returns.append(&mut o.returns);
    }
}

impl SelfPlayConfig {
    fn check(&self) -> Result<(), Error> {
        let bad = |what: &'static str, m: &str| Err(Error::BadArgument { what, message: m.into() });
        if self.per_decision < 2 {
            return bad("per_decision", "must be at least 2 (the base's action and another)");
        }
        if self.rollouts == 0 && self.worlds > 0 {
            return bad("rollouts", "must be at least 1 when decisions are valued in worlds (0 values a decision by the hand's own outcome)");
        }
        if self.worlds > 0 && self.rollout.needs_record() {
            return bad("rollout", "a search cannot roll out in worlds (a world has no record to search): name an agent or a network");
        }
        if self.label_rate > 65536 || self.explore > 65536 {
            return bad("label_rate", "rates are in 65536ths: 0..=65536");
        }
        if self.solve > 0 && self.rollouts == 0 {
            return bad("solve", "values candidates as rollouts do: needs rollouts ≥ 1 (0 values a decision by the hand's own outcome)");
        }
        if self.value_visited > 65536 {
            return bad("value_visited", "a share in 65536ths: 0..=65536");
        }
        if self.value_visited > 0 && !self.teacher.is_some_and(|t| t.needs_record()) {
            return bad("value_visited", "needs a search as the teacher (its root's visits)");
        }
        Ok(())
    }
}

/// Self-play of hands `start .. start + count` of the run with `seed`; `threads` 0 for all
/// cores. The same arguments give the same samples whatever the thread count.
pub fn self_play(seed: u64, start: u64, count: u64, cfg: &SelfPlayConfig, threads: usize) -> Result<Samples, Error> {
    cfg.check()?;
    let parts = over_range(start, count, threads, |i| play(seed, i, cfg))?;
    let mut all = Samples::default();
    for p in parts {
        all.append(p);
    }
    Ok(all)
}

/// The defenders' score at which the result turns: from 160 they take over (R7.4).
const TAKE_OVER: i32 = 160;

/// The seat's return and its team's points margin once `pos` is over (zero for a stopped
/// deal): the defenders' final score (R7.3) past [`TAKE_OVER`] for a defending seat, short of
/// it for the banker's team, so that the margin does not depend on the team's role.
fn value(pos: &Position, seat: u8) -> (i32, i32) {
    match pos.phase {
        Phase::Over => value_of(pos, seat, pos.final_score),
        _ => (0, 0),
    }
}

/// [`value`] of the defenders' final score `score` (R7.3) of the hand `pos` is in.
fn value_of(pos: &Position, seat: u8, score: i32) -> (i32, i32) {
    let o = outcome(score, &pos.profile.rules());
    let defends = seat % 2 != pos.banker % 2;
    (pos.returns_for(score)[seat as usize], if defends { o.score - TAKE_OVER } else { TAKE_OVER - o.score })
}

/// The `picked` candidates' exact values at `pos` (the play phase, every hand known) by the
/// open-card solver when the mover holds at most `solve` cards (one table for all of them):
/// per candidate, the seat's return and points margin, None where the solver gave none
/// (past its budget, or `solve` 0 or too few).
fn solved(pos: &Position, plays: &Plays, picked: &[usize], solve: u8, seat: u8) -> Vec<Option<(i32, i32)>> {
    if solve == 0 || size(&pos.hands[pos.to_move as usize]) > solve as usize {
        return vec![None; picked.len()];
    }
    let cards: Vec<Counts> = picked
        .iter()
        .map(|&c| match plays.actions[c] {
            Action::Play(cards) => cards,
            _ => unreachable!("a play decision's candidates are plays"),
        })
        .collect();
    values(pos, &cards, SOLVE_BUDGET).into_iter().map(|v| v.map(|score| value_of(pos, seat, score))).collect()
}

/// Plays `game` to its end with `policy` on every seat, each seat drawing from `rngs`.
fn roll_out(game: &mut Game, policy: &Policy, rngs: &mut [Rng; 4]) {
    while matches!(game.pos.phase, Phase::Declare | Phase::Play) {
        let seat = game.pos.to_move as usize;
        let a = policy.act(game, &mut rngs[seat]).expect("the hand is not over");
        game.pos_apply(&a);
    }
}

/// The sums of the seat's returns and points over the `picked` candidates' rollouts in
/// `cfg.worlds` worlds of its information set (None when no world can be drawn: the decision
/// is then valued from the true state).
fn in_worlds(view: &SeatView, plays: &Plays, picked: &[usize], cfg: &SelfPlayConfig, seed: u64) -> Option<Vec<(i64, i64)>> {
    let mut det = determinizer(view, false).ok()?;
    let (tally, levels) = view.seen()?;
    let seat = view.seat();
    let observes = cfg.rollout.observes();
    let mut sums = vec![(0i64, 0i64); picked.len()];
    for w in 0..cfg.worlds as u64 {
        let wseed = derive(seed, SELF_PLAY, w);
        let draw = det.hands(&mut Rng::new(wseed)).ok()?;
        let pos = view.position_with(&draw.hands);
        let exact = solved(&pos, plays, picked, cfg.solve, seat);
        for (j, &c) in picked.iter().enumerate() {
            let Action::Play(cards) = plays.actions[c] else { return None };
            if let Some((l, p)) = exact[j] {
                // the world's exact value, counted as each rollout's
                sums[j].0 += l as i64 * cfg.rollouts as i64;
                sums[j].1 += p as i64 * cfg.rollouts as i64;
                continue;
            }
            for r in 0..cfg.rollouts as u64 {
                let (mut q, mut t) = (pos, *tally);
                if observes {
                    t.note_play(&q, &cards);
                }
                q.play_unchecked(&cards);
                let end = play_out(q, t, levels, &cfg.rollout, &mut Rng::new(derive(wseed, SELF_PLAY, 1 + r)));
                let (l, p) = value(&end, seat);
                sums[j].0 += l as i64;
                sums[j].1 += p as i64;
            }
        }
    }
    Some(sums)
}

/// The levels and banker hand `hand_seed` is dealt at: a fresh match's (both teams at 3, no
/// banker), or with `drawn`, each team's level uniform over 3..=A (R2.1: 2 is never a level) and
/// the banker uniform over the seats, from `derive(hand_seed, SELF_PLAY, 2^64 - 2)`'s stream.
pub fn hand_levels(hand_seed: u64, drawn: bool) -> ([u8; 2], u8) {
    if !drawn {
        return ([3, 3], NOBODY);
    }
    let mut r = Rng::new(derive(hand_seed, SELF_PLAY, u64::MAX - 1));
    let levels = [3 + r.below(12) as u8, 3 + r.below(12) as u8];
    (levels, r.below(4) as u8)
}

fn play(seed: u64, index: u64, cfg: &SelfPlayConfig) -> Samples {
    let hand_seed = derive(seed, BATCH_HAND, index);
    let record = cfg.worlds > 0 || cfg.seats.iter().chain([&cfg.rollout]).chain(&cfg.teacher).any(|p| p.needs_record());
    let (levels, banker) = hand_levels(hand_seed, cfg.drawn_levels);
    let mut game = if record {
        Game::deal(hand_seed, cfg.profile, levels, banker, None).expect("valid levels and banker")
    } else {
        Game::deal_fast(hand_seed, cfg.profile, levels, banker)
    };
    let mut rngs: [Rng; 4] = std::array::from_fn(|p| Rng::new(derive(hand_seed, POLICY, p as u64)));
    let decisions = derive(hand_seed, SELF_PLAY, 0);
    let mut out = Samples::default();
    let mut plays = Plays::default();
    let dim = cfg.obs.dim;
    let mut k = 0u64;
    let monte_carlo = cfg.rollouts == 0;
    while matches!(game.pos.phase, Phase::Declare | Phase::Play) {
        let seat = game.pos.to_move;
        let mut action = None;
        if cfg.learners[seat as usize] {
            let mut rng = Rng::new(derive(decisions, SELF_PLAY, k));
            let label = rng.below(65536) < cfg.label_rate as u128;
            let explore = rng.below(65536) < cfg.explore as u128;
            if label || explore {
                let view = SeatView::of_game(&game);
                candidates(&view, &cfg.base, cfg.features, &mut rng, &mut plays);
                if explore && plays.len() > 1 {
                    action = Some(plays.actions[rng.below_usize(plays.len())]);
                }
                let chosen = action.unwrap_or_else(|| cfg.seats[seat as usize].act(&game, &mut rngs[seat as usize]).expect("the hand is not over"));
                action = Some(chosen);
                if label && plays.len() > 1 {
                    let d = out.seat.len() as u32;
                    let at = out.obs.len();
                    out.obs.resize(at + dim, 0);
                    view.observe(cfg.obs, &[0; crate::rules::card::KINDS], cfg.canonical, &mut out.obs[at..])
                        .expect("a game observes");
                    out.hand.push(index);
                    out.seat.push(seat);
                    out.step.push(k as u16);
                    out.candidates.push(plays.len() as u16);
                    out.complete.push(plays.complete);
                    let mut picked: Vec<usize> = if monte_carlo {
                        // the candidate played, valued once the hand is over
                        vec![index_of(&view, cfg.features, &mut plays, chosen)]
                    } else {
                        // the base's action, then others drawn without repeats
                        let mut others: Vec<usize> = (1..plays.len()).collect();
                        let n = (cfg.per_decision - 1).min(others.len());
                        for j in 0..n {
                            let r = j + rng.below_usize(others.len() - j);
                            others.swap(j, r);
                        }
                        others.truncate(n);
                        others.insert(0, 0);
                        others
                    };
                    // the teacher's action, from its own stream, always valued; a search's root
                    // visits kept (and its often visited plays valued with `value_visited`)
                    let mut root = Vec::new();
                    let taught = cfg.teacher.map(|t| {
                        let mut trng = Rng::new(derive(derive(hand_seed, SELF_PLAY, u64::MAX), SELF_PLAY, k));
                        let a = match t.search(&view, &mut trng) {
                            Some(r) => {
                                root = r.stats;
                                r.action
                            }
                            None => t.act(&game, &mut trng).expect("the hand is not over"),
                        };
                        let i = index_of(&view, cfg.features, &mut plays, a);
                        if !picked.contains(&i) && !monte_carlo {
                            picked.push(i);
                        }
                        i
                    });
                    let searched: u64 = root.iter().map(|r| r.visits).sum();
                    if cfg.value_visited > 0 && !monte_carlo {
                        for r in &root {
                            if r.visits * 65536 >= cfg.value_visited as u64 * searched && searched > 0 {
                                let i = index_of(&view, cfg.features, &mut plays, r.action);
                                if !picked.contains(&i) {
                                    picked.push(i);
                                }
                            }
                        }
                    }
                    out.searched.push(searched);
                    let rollout_seed = derive(hand_seed, SELF_PLAY, 1 + k);
                    let values = if cfg.worlds > 0 && game.pos.phase == Phase::Play {
                        in_worlds(&view, &plays, &picked, cfg, rollout_seed)
                    } else {
                        None
                    };
                    // the true state solved (a privileged critic's values), when no world valued it
                    let exact = if values.is_none() && !monte_carlo && game.pos.phase == Phase::Play {
                        solved(&game.pos, &plays, &picked, cfg.solve, seat)
                    } else {
                        vec![None; picked.len()]
                    };
                    for (j, &c) in picked.iter().enumerate() {
                        let (mut lv, mut pt) = (0i64, 0i64);
                        if let Some(v) = &values {
                            (lv, pt) = v[j];
                        } else if monte_carlo {
                            // valued below, once the hand is over
                        } else if let Some((l, p)) = exact[j] {
                            // its exact value, counted as each rollout's
                            (lv, pt) = (l as i64 * cfg.rollouts as i64, p as i64 * cfg.rollouts as i64);
                        } else {
                            for r in 0..cfg.rollouts as u64 {
                                let mut g = game.clone();
                                g.pos_apply(&plays.actions[c]);
                                let mut rr: [Rng; 4] = std::array::from_fn(|p| Rng::new(derive(rollout_seed, SELF_PLAY, 4 * r + p as u64)));
                                roll_out(&mut g, &cfg.rollout, &mut rr);
                                let (l, p) = value(&g.pos, seat);
                                lv += l as i64;
                                pt += p as i64;
                            }
                        }
                        let n = (cfg.rollouts.max(1) * if values.is_some() { cfg.worlds } else { 1 }) as f32;
                        out.decision.push(d);
                        out.features.extend_from_slice(plays.row(c));
                        out.levels.push(lv as f32 / n);
                        out.points.push(pt as f32 / n);
                        out.is_base.push(c == 0);
                        out.played.push(plays.actions[c] == chosen);
                        out.taught.push(taught == Some(c));
                        out.visits.push(root.iter().find(|r| r.action == plays.actions[c]).map_or(0, |r| r.visits));
                    }
                }
            }
        }
        let a: Action = match action {
            Some(a) => a,
            None => cfg.seats[seat as usize].act(&game, &mut rngs[seat as usize]).expect("the hand is not over"),
        };
        game.pos_apply(&a);
        k += 1;
    }
    if monte_carlo {
        // every row of this hand is the move a seat played, valued by the hand's outcome
        for row in 0..out.levels.len() {
            let (l, p) = value(&game.pos, out.seat[out.decision[row] as usize]);
            (out.levels[row], out.points[row]) = (l as f32, p as f32);
        }
    }
    let r = game.pos.returns().unwrap_or([0; 4]);
    out.returns.push(std::array::from_fn(|s| r[s] as i16));
    debug_assert_eq!(out.features.len(), out.decision.len() * cfg.features.dim);
    out
}
