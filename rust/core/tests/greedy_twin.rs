//! Brute-force twin of the `greedy` policy: greedy as it was first written (commit d4dfca5),
//! plainly — every lead listed with `legal_leads` and ranked by `max_by_key`, every follow
//! candidate listed or sampled from the legal set — against the fast `policy::greedy::act`,
//! on every decision of real hands (declaring, leading, following; guigang, nanning and
//! competition rules; several levels). Both must choose the same action and leave the seat's
//! stream in the same state (the determinism contract: a seed gives the same hand).

use tractor_core::Agent;
use tractor_core::agent::greedy;
use tractor_core::agent::view::SeatView;
use tractor_core::game::hand::{Action, Game, Phase, NOBODY};
use tractor_core::policy::Policy;
use tractor_core::rules::card::{for_each_held, Card, Counts, KINDS};
use tractor_core::rules::combo::{beats, classify, for_each_tractor, legal_leads, tractor, unit, Combo};
use tractor_core::rules::follow::{Case, Follow};
use tractor_core::rules::score::points;
use tractor_core::rules::trump::{Context, TRUMP};
use tractor_core::{Profile, Rng};

/// The reference greedy, unchanged in what it decides.
mod reference {
    use super::*;

    const SAMPLES: usize = 16;
    const LIST_MAX: u128 = 32;

    pub fn act(view: &SeatView, rng: &mut Rng) -> Action {
        match view.phase() {
            Phase::Declare => declare(view),
            _ => match view.follow() {
                None => lead(view),
                Some(f) => follow(view, &f, rng),
            },
        }
    }

    fn declare(pos: &SeatView) -> Action {
        let seat = pos.seat();
        let declarer = pos.declarer();
        if declarer != NOBODY && declarer != seat && declarer % 2 == seat % 2 {
            return Action::Pass;
        }
        let hand = pos.hand();
        let support = |suit: u8| -> u32 {
            (2..=14).map(|r| hand[Card::new(suit, r).id()] as u32).sum::<u32>() + hand[Card::new(suit, pos.level()).id()] as u32
        };
        let held: u32 = hand.iter().map(|&c| c as u32).sum();
        let best = pos.showings().max_by_key(|s| (support(s.suit), s.count, 3 - s.suit));
        match best {
            Some(s) if support(s.suit) * 4 >= held + 4 || pos.dealt() as usize >= tractor_core::rules::card::DECK => {
                Action::Declare { suit: s.suit, count: s.count }
            }
            _ => Action::Pass,
        }
    }

    fn keep_value(ctx: &Context, kind: usize) -> i32 {
        let s = ctx.strength[kind] as i32;
        if ctx.class[kind] == TRUMP {
            20 + 2 * s
        } else {
            s
        }
    }

    fn cost(ctx: &Context, x: &Counts) -> i32 {
        let mut c = 0;
        for_each_held(x, |k, n| c += n as i32 * keep_value(ctx, k));
        c
    }

    fn point_value(kind: usize) -> i32 {
        if kind >= 52 {
            return 0;
        }
        match kind % 13 + 2 {
            5 => 5,
            10 | 13 => 10,
            _ => 0,
        }
    }

    fn combo_points_cost(ctx: &Context, c: &Combo) -> (i32, i32) {
        let (mut p, mut v) = (0, 0);
        for k in c.kinds(ctx) {
            p += point_value(k as usize);
            v += keep_value(ctx, k as usize);
        }
        (p * c.m as i32, v * c.m as i32)
    }

    fn lead(pos: &SeatView) -> Action {
        let ctx = pos.ctx();
        let hand = pos.hand();
        let left: usize = hand.iter().map(|&c| c as usize).sum();
        let leads = legal_leads(ctx, hand);
        let keep = if left <= 12 {
            leads.iter().filter(|c| c.is_trump()).max_by_key(|c| (c.size(), c.key())).copied()
        } else {
            None
        };
        let value = |c: &Combo| -> i32 {
            if Some(*c) == keep && c.size() < left {
                return -1000;
            }
            let (pts, combo_cost) = combo_points_cost(ctx, c);
            let size = c.size() as i32;
            if c.size() == left {
                return 10_000;
            }
            if !c.is_trump() && c.top == 14 {
                return 500 + 40 * size;
            }
            if c.is_tractor() {
                return 300 + 30 * size + c.top as i32 - if c.is_trump() { 100 } else { 0 };
            }
            if c.m >= 2 && !c.is_trump() && c.top >= 12 {
                return 200 + 20 * size + c.top as i32;
            }
            if c.m == 1 {
                return 100 - keep_value(ctx, c.first as usize) - 3 * pts;
            }
            50 + 10 * size - combo_cost / size - 3 * pts
        };
        // Iterator::max_by_key keeps the last of equal maxima
        let best = leads.iter().max_by_key(|c| (value(c), std::cmp::Reverse(c.first), c.m)).expect("a hand to lead from");
        Action::Play(best.counts(ctx))
    }

    fn wins(pos: &SeatView, lead: &Combo, x: &Counts) -> bool {
        classify(pos.ctx(), x).is_some_and(|c| beats(lead, &c, pos.trick().best_key))
    }

    fn follow(pos: &SeatView, f: &Follow, rng: &mut Rng) -> Action {
        if f.n == 1 {
            return follow_single(pos, f);
        }
        let ctx = pos.ctx();
        let lead = f.lead;
        let seat = pos.seat();
        let mut candidates: Vec<Counts> = Vec::new();
        let mut set = f.legal_set(&[0; KINDS]);
        let total = set.count();
        if total <= LIST_MAX {
            candidates = set.all(LIST_MAX).unwrap_or_default();
        } else {
            for _ in 0..SAMPLES {
                if let Some(x) = set.sample(rng) {
                    candidates.push(x);
                }
            }
        }
        if f.case == Case::Short {
            candidates.push(fill(f, |k| keep_value(ctx, k) + 5 * point_value(k)));
            candidates.push(fill(f, |k| keep_value(ctx, k) - 12 * point_value(k)));
            if f.s_size == 0 && !lead.is_trump() {
                if let Some(r) = cheapest_ruff(pos, f) {
                    candidates.push(r);
                }
            }
        }
        let trick = pos.trick();
        let partner_winning = trick.best_seat % 2 == seat % 2;
        let last = trick.plays == 3;
        let table = trick.points as i32;
        let score = |x: &Counts| -> i32 {
            let pts = points(x);
            let c = cost(ctx, x);
            if partner_winning {
                return 8 * pts - c;
            }
            if wins(pos, &lead, x) {
                if table + pts > 0 || last {
                    return 2000 + 20 * (table + pts) - c;
                }
                return -c - 40;
            }
            -c - 12 * pts
        };
        let mut best = (i32::MIN, 0usize);
        for (i, x) in candidates.iter().enumerate() {
            let v = score(x);
            if v > best.0 {
                best = (v, i);
            }
        }
        Action::Play(candidates[best.1])
    }

    fn follow_single(pos: &SeatView, f: &Follow) -> Action {
        let ctx = pos.ctx();
        let trick = pos.trick();
        let partner_winning = trick.best_seat % 2 == pos.seat() % 2;
        let last = trick.plays == 3;
        let table = trick.points as i32;
        let pool = if f.s_size > 0 { &f.s } else { &f.hand };
        let mut best = (i32::MIN, 0usize);
        for_each_held(pool, |k, _| {
            let (pts, c) = (point_value(k), keep_value(ctx, k));
            let one = unit(ctx, k as u8, 1);
            let v = if partner_winning {
                8 * pts - c
            } else if beats(&f.lead, &one, trick.best_key) {
                if table + pts > 0 || last {
                    2000 + 20 * (table + pts) - c
                } else {
                    -c - 40
                }
            } else {
                -c - 12 * pts
            };
            if v > best.0 {
                best = (v, k);
            }
        });
        let mut x = [0u8; KINDS];
        x[best.1] = 1;
        Action::Play(x)
    }

    fn fill(f: &Follow, price: impl Fn(usize) -> i32) -> Counts {
        let mut x = f.s;
        let mut need = f.n as usize - f.s_size as usize;
        let mut others: Vec<(i32, usize)> = (0..KINDS).filter(|&k| f.hand[k] > f.s[k]).map(|k| (price(k), k)).collect();
        others.sort_unstable();
        for (_, k) in others {
            while need > 0 && x[k] < f.hand[k] {
                x[k] += 1;
                need -= 1;
            }
        }
        x
    }

    fn cheapest_ruff(pos: &SeatView, f: &Follow) -> Option<Counts> {
        let ctx = pos.ctx();
        let hand = &f.hand;
        let mut best: Option<(i32, Counts)> = None;
        let mut consider = |c: Combo| {
            if c.m == f.lead.m && c.k == f.lead.k && c.is_trump() {
                let x = c.counts(ctx);
                if wins(pos, &f.lead, &x) {
                    let v = cost(ctx, &x);
                    if best.as_ref().is_none_or(|b| v < b.0) {
                        best = Some((v, x));
                    }
                }
            }
        };
        if f.lead.k == 1 {
            for &k in ctx.class_kinds(TRUMP) {
                if hand[k as usize] >= f.lead.m {
                    consider(unit(ctx, k, f.lead.m));
                }
            }
        } else {
            for_each_tractor(ctx, TRUMP, hand, f.lead.m, f.lead.k, f.lead.k, |first, k| consider(tractor(ctx, first, f.lead.m, k)));
        }
        best.map(|b| b.1)
    }
}

/// Decisions compared, by kind: (declaring, leading, following).
#[derive(Default, Debug)]
struct Tally {
    declare: usize,
    lead: usize,
    follow: usize,
    follow_multi: usize,
    /// Follows with more than 32 legal plays: greedy samples them from its stream.
    follow_sampled: usize,
}

/// Plays hands from `seed` with `seats`; at every decision, whoever moves, the fast greedy and
/// the reference must agree, on the action and on the stream they leave.
fn compare_hands(profile: Profile, seeds: std::ops::Range<u64>, levels: &[u8], seats: [Policy; 4], tally: &mut Tally) {
    for seed in seeds {
        let level = levels[seed as usize % levels.len()];
        let mut g = Game::deal_fast(seed, profile, [level, level], NOBODY);
        let mut rngs: [Rng; 4] = std::array::from_fn(|p| Rng::new(seed * 31 + p as u64));
        while matches!(g.pos.phase, Phase::Declare | Phase::Play) {
            let seat = g.pos.to_move as usize;
            let view = SeatView::of_game(&g);
            let (mut fast_rng, mut ref_rng) = (rngs[seat], rngs[seat]);
            let fast = greedy::act(&view, &mut fast_rng);
            let want = reference::act(&view, &mut ref_rng);
            assert_eq!(fast, want, "{} seed {seed} level {level}: greedy differs from its reference", profile.name());
            assert_eq!(fast_rng, ref_rng, "{} seed {seed}: greedy draws differently from its stream", profile.name());
            match (view.phase(), view.follow()) {
                (Phase::Declare, _) => tally.declare += 1,
                (_, None) => tally.lead += 1,
                (_, Some(f)) => {
                    tally.follow += 1;
                    tally.follow_multi += (f.n > 1) as usize;
                    tally.follow_sampled += (f.n > 1 && f.legal_set(&[0; KINDS]).count() > 32) as usize;
                }
            }
            let a = seats[seat].act(&g, &mut rngs[seat]).expect("the hand is not over");
            g.pos_apply(&a);
        }
    }
}

fn check_profile(name: &str, hands: u64) {
    let profile = Profile::parse(name).unwrap();
    let mut t = Tally::default();
    let g = Policy::Agent(Agent::Greedy);
    let r = Policy::Agent(Agent::Random);
    compare_hands(profile, 0..hands, &[3, 3, 7, 10, 14], [g; 4], &mut t);
    compare_hands(profile, 1000..1000 + hands / 2, &[3, 5, 12, 14], [g, r, g, r], &mut t);
    compare_hands(profile, 2000..2000 + hands / 2, &[3, 9], [r; 4], &mut t);
    // thousands of positions of each kind
    assert!(t.declare > 2000 && t.lead > 5000 && t.follow_multi > 5000 && t.follow_sampled > 500, "{name}: too few positions {t:?}");
    println!("{name}: {t:?}");
}

#[test]
fn greedy_matches_its_reference_guigang() {
    check_profile("guigang", 400);
}

#[test]
fn greedy_matches_its_reference_competition() {
    check_profile("competition", 400);
}

#[test]
fn greedy_matches_its_reference_nanning() {
    check_profile("nanning", 400);
}
