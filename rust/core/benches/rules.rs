//! Criterion benches of the rules core over the seeded corpus of `corpus.rs` (positions from
//! real hands, grouped by lead size and whether the ladder works), plus whole hands.
//!
//! `cargo bench -p tractor-core --bench rules` (filter: `-- follow/ladder`; with
//! `TRACTOR_CORPUS=path` the positions are read from a saved corpus). Each follow bench
//! runs every position of its group once per iteration; with `Throughput::Elements` criterion
//! reports positions per second, so time per element is the mean time per position. Every
//! bench checks the answer it computes (counts, legality) against the corpus.

#[path = "corpus.rs"]
mod corpus;

use std::hint::black_box;
use std::sync::OnceLock;
use std::time::Duration;

use corpus::{Options, Position};
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use tractor_core::Agent;
use tractor_core::game::hand::{Game, Phase, NOBODY};
use tractor_core::policy::Policy;
use tractor_core::rules::card::KINDS;
use tractor_core::rules::combo::{classify, count_leads, legal_leads};
use tractor_core::run::sim::simulate_hand;
use tractor_core::{Follow, Profile, Rng};

/// The corpus: built from seeded hands, or read from `$TRACTOR_CORPUS` (a file written by
/// `ladder_stats --save`), so that two builds of the engine are timed on the same positions.
fn corpus() -> &'static [Position] {
    static C: OnceLock<Vec<Position>> = OnceLock::new();
    C.get_or_init(|| match std::env::var("TRACTOR_CORPUS") {
        Ok(path) => corpus::load(&path).unwrap_or_else(|e| panic!("cannot read the corpus {path}: {e}")),
        Err(_) => corpus::build(Options { hands: 120, cap: 60, ..Options::default() }),
    })
}

fn group(name: &str) -> Vec<&'static Position> {
    corpus().iter().filter(|p| corpus::group_of(&p.stratum) == name).collect()
}

/// Most legal follows a position may have to be enumerated in the `enumerate` bench.
const ENUM_LIMIT: u128 = 2_000;

fn follow_benches(c: &mut Criterion) {
    for name in corpus::GROUPS {
        let ps = group(name);
        if ps.is_empty() {
            continue;
        }
        let mut g = c.benchmark_group(format!("follow/{name}"));
        g.throughput(Throughput::Elements(ps.len() as u64));
        g.bench_function("new", |b| {
            b.iter(|| {
                for p in &ps {
                    black_box(Follow::new(p.ctx, black_box(&p.hand), p.lead));
                }
            })
        });
        g.bench_function("check_legal", |b| {
            b.iter(|| {
                let ok =
                    ps.iter().filter(|p| Follow::new(p.ctx, black_box(&p.hand), p.lead).is_legal(&p.legal)).count();
                assert_eq!(ok, ps.len());
            })
        });
        let bad: Vec<(&Position, [u8; KINDS])> = ps.iter().filter_map(|p| p.illegal.map(|x| (*p, x))).collect();
        if !bad.is_empty() {
            g.throughput(Throughput::Elements(bad.len() as u64));
            g.bench_function("check_illegal", |b| {
                b.iter(|| {
                    let ok =
                        bad.iter().filter(|(p, x)| Follow::new(p.ctx, black_box(&p.hand), p.lead).is_legal(x)).count();
                    assert_eq!(ok, 0);
                })
            });
            g.throughput(Throughput::Elements(ps.len() as u64));
        }
        let expected: u128 = ps.iter().map(|p| p.count).sum();
        g.bench_function("count", |b| {
            b.iter(|| {
                let total: u128 = ps
                    .iter()
                    .map(|p| Follow::new(p.ctx, black_box(&p.hand), p.lead).legal_set(&[0; KINDS]).count())
                    .sum();
                assert_eq!(total, expected);
            })
        });
        let mut rng = Rng::new(11);
        g.bench_function("sample", |b| {
            b.iter(|| {
                for p in &ps {
                    let x = Follow::new(p.ctx, black_box(&p.hand), p.lead).legal_set(&[0; KINDS]).sample(&mut rng);
                    assert!(black_box(x).is_some());
                }
            })
        });
        let small: Vec<&Position> = ps.iter().copied().filter(|p| p.count <= ENUM_LIMIT).collect();
        if !small.is_empty() {
            let listed: u128 = small.iter().map(|p| p.count).sum();
            // throughput in legal follows listed
            g.throughput(Throughput::Elements(listed as u64));
            g.bench_function(BenchmarkId::new("enumerate", format!("{}pos", small.len())), |b| {
                b.iter(|| {
                    let n: usize = small
                        .iter()
                        .map(|p| {
                            Follow::new(p.ctx, &p.hand, p.lead)
                                .legal_set(&[0; KINDS])
                                .all(ENUM_LIMIT)
                                .map_or(0, |v| v.len())
                        })
                        .sum();
                    assert_eq!(n as u128, listed);
                })
            });
        }
        g.finish();
    }
}

fn combo_benches(c: &mut Criterion) {
    let ps = corpus();
    let mut g = c.benchmark_group("combo");
    g.throughput(Throughput::Elements(ps.len() as u64));
    g.bench_function("classify_lead", |b| {
        b.iter(|| {
            let n = ps.iter().filter(|p| classify(p.ctx, black_box(&p.lead_counts)) == Some(p.lead)).count();
            assert_eq!(n, ps.len());
        })
    });
    let expect_some = ps.iter().filter(|p| classify(p.ctx, &p.legal).is_some()).count();
    g.bench_function("classify_follow", |b| {
        b.iter(|| {
            let n = ps.iter().filter(|p| classify(p.ctx, black_box(&p.legal)).is_some()).count();
            assert_eq!(n, expect_some);
        })
    });
    let leads_total: usize = ps.iter().map(|p| count_leads(p.ctx, &p.hand)).sum();
    g.bench_function("legal_leads", |b| {
        b.iter(|| {
            let n: usize = ps.iter().map(|p| legal_leads(p.ctx, black_box(&p.hand)).len()).sum();
            assert_eq!(n, leads_total);
        })
    });
    g.bench_function("count_leads", |b| {
        b.iter(|| {
            let n: usize = ps.iter().map(|p| count_leads(p.ctx, black_box(&p.hand))).sum();
            assert_eq!(n, leads_total);
        })
    });
    g.finish();
}

fn hand_benches(c: &mut Criterion) {
    let mut g = c.benchmark_group("hand");
    g.throughput(Throughput::Elements(1));
    for policy in [Policy::Agent(Agent::Random), Policy::Agent(Agent::Greedy)] {
        let mut i = 0u64;
        g.bench_function(format!("simulate_hand_{}", policy.name()), |b| {
            b.iter(|| {
                i += 1;
                let r = simulate_hand(2024, i, &[policy; 4], Profile::Guigang, None);
                // each trick takes at least one card of each seat's 54: 1 to 54 tricks (a greedy
                // hand of big leads has fewer than 18)
                assert!(r.stopped || (1..=54).contains(&r.tricks), "{} tricks", r.tricks);
                r
            })
        });
    }
    // Position and Game clones, in the middle of a hand (trick 10)
    let game = (0u64..)
        .find_map(|seed| {
            let mut game = Game::deal(seed, Profile::Guigang, [3, 3], NOBODY, None).expect("deal");
            let mut rng = Rng::new(seed);
            while game.pos.phase != Phase::Play || game.pos.tricks_done < 10 {
                let a = Policy::Agent(Agent::Random).act(&game, &mut rng)?; // None: the hand stopped (R8.5)
                game.apply(&a).expect("legal");
            }
            Some(game)
        })
        .expect("a hand that reaches trick 10");
    let pos = game.pos;
    g.bench_function("position_clone", |b| {
        b.iter(|| {
            let p: tractor_core::Position = *black_box(&pos);
            assert_eq!(p.tricks_done, 10);
            p
        })
    });
    g.bench_function("game_clone_with_record", |b| b.iter(|| black_box(&game).clone()));
    g.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .sample_size(20)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2));
    targets = combo_benches, follow_benches, hand_benches
}
criterion_main!(benches);
