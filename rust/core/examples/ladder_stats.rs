//! Per-position timings of the follow ladder over the seeded corpus of `benches/corpus.rs`.
//!
//! Every position is timed on its own: each call is repeated until a batch takes
//! `--batch-us` (default 40 µs), and the per-call time of a position is the median of
//! `--repeats` (default 7) such batches. Per stratum the report gives the median, p99 and max
//! of those per-position times, in ns, for
//! - `new`: `Follow::new` (the analysis every query starts with);
//! - `check+`/`check-`: `Follow::new` + `is_legal` on a legal / an illegal play;
//! - `count`: `Follow::new` + `legal_set(&[0; 54]).count()`;
//! - `sample`: `Follow::new` + `legal_set(..).sample(&mut rng)`;
//! - `classify`: `classify` of the lead's N cards;
//! - `leads`: `legal_leads` of the follower's hand (by hand size), and `count_leads`;
//! - `oracle`: the brute-force twin of `tests/common/oracle.rs` (its `analyse`: the full legal
//!   set by enumeration), only on positions with at most `--oracle-max` candidate selections;
//!   the engine must agree with it there (count, the legal play in, the illegal play out).
//!
//! `cargo run --release -p tractor-core --example ladder_stats -- [--hands 160] [--cap 150]
//!  [--seed S] [--repeats 7] [--batch-us 40] [--oracle-max 20000] [--quick] [--profile P]`
//!
//! `--profile competition` (or `nanning`) times the same hands and leads under that profile
//! (`corpus::for_profile`: the same strata, leads that are no combination there dropped), for
//! side-by-side tables with the default guigang run.

#[path = "../benches/corpus.rs"]
mod corpus;
#[path = "../tests/common/oracle.rs"]
mod oracle;
#[path = "../tests/common/oracle_comp.rs"]
mod oracle_comp;

use std::collections::BTreeMap;
use std::hint::black_box;
use std::time::Instant;

use corpus::{Options, Position, Stratum};
use tractor_core::rules::card::{size, KINDS};
use tractor_core::rules::combo::{classify, count_leads, legal_leads};
use tractor_core::{Case, Follow, Rng};

struct Args {
    opt: Options,
    repeats: usize,
    batch_ns: u64,
    oracle_max: u128,
    save: Option<String>,
    load: Option<String>,
    tsv: Option<String>,
    profile: tractor_core::Profile,
}

fn args() -> Args {
    let mut a = Args {
        opt: Options::default(),
        repeats: 7,
        batch_ns: 40_000,
        oracle_max: 20_000,
        save: None,
        load: None,
        tsv: None,
        profile: tractor_core::Profile::Guigang,
    };
    let v: Vec<String> = std::env::args().skip(1).collect();
    let mut i = 0;
    while i < v.len() {
        let next = |i: usize| v.get(i + 1).unwrap_or_else(|| panic!("{} needs a value", v[i])).clone();
        match v[i].as_str() {
            "--hands" => a.opt.hands = next(i).parse().unwrap(),
            "--cap" => a.opt.cap = next(i).parse().unwrap(),
            "--seed" => a.opt.seed = next(i).parse().unwrap(),
            "--repeats" => a.repeats = next(i).parse().unwrap(),
            "--batch-us" => a.batch_ns = next(i).parse::<u64>().unwrap() * 1000,
            "--oracle-max" => a.oracle_max = next(i).parse().unwrap(),
            "--save" => a.save = Some(next(i)),
            "--load" => a.load = Some(next(i)),
            "--tsv" => a.tsv = Some(next(i)),
            "--profile" => a.profile = tractor_core::Profile::parse(&next(i)).unwrap(),
            "--quick" => {
                a.opt.hands = 12;
                a.opt.cap = 12;
                a.repeats = 3;
                a.batch_ns = 10_000;
                i += 1;
                continue;
            }
            other => panic!("unknown argument {other}"),
        }
        i += 2;
    }
    a
}

/// Median per-call time (ns) of `f`: batches of calls long enough to time, `repeats` batches.
fn per_call<R>(mut f: impl FnMut() -> R, batch_ns: u64, repeats: usize) -> f64 {
    let mut iters = 1u64;
    loop {
        let t = Instant::now();
        for _ in 0..iters {
            black_box(f());
        }
        let e = t.elapsed().as_nanos() as u64;
        if e >= batch_ns / 2 || iters >= 1 << 26 {
            // aim the real batches at batch_ns
            if e > 0 && e < batch_ns {
                iters = (iters as u128 * batch_ns as u128 / e as u128).max(1) as u64;
            }
            break;
        }
        iters *= if e < batch_ns / 64 { 16 } else { 2 };
    }
    let mut v: Vec<f64> = (0..repeats)
        .map(|_| {
            let t = Instant::now();
            for _ in 0..iters {
                black_box(f());
            }
            t.elapsed().as_nanos() as f64 / iters as f64
        })
        .collect();
    median(&mut v)
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    let n = v.len();
    if n == 0 {
        return f64::NAN;
    }
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

/// (median, p99 nearest-rank, max) of per-position times.
fn summary(v: &[f64]) -> (f64, f64, f64) {
    let mut s: Vec<f64> = v.iter().copied().filter(|x| x.is_finite()).collect();
    if s.is_empty() {
        return (f64::NAN, f64::NAN, f64::NAN);
    }
    let med = median(&mut s);
    let n = s.len();
    let p99 = s[((0.99 * n as f64).ceil() as usize).clamp(1, n) - 1];
    (med, p99, s[n - 1])
}

fn ns(x: f64) -> String {
    if !x.is_finite() {
        "–".into()
    } else if x >= 10_000.0 {
        format!("{:.1}k", x / 1000.0)
    } else if x >= 100.0 {
        format!("{x:.0}")
    } else {
        format!("{x:.1}")
    }
}

const OPS: [&str; 6] = ["new", "check+", "check-", "count", "sample", "classify"];

#[derive(Default, Clone)]
struct Times {
    /// op → per-position time (NaN when not applicable)
    op: BTreeMap<&'static str, f64>,
    oracle: Option<f64>,
}

fn oracle_cost(p: &Position) -> u128 {
    let n = p.stratum.n as usize;
    let mut s = [0u8; KINDS];
    let mut rest = p.hand;
    for k in 0..KINDS {
        if p.ctx.class[k] == p.lead.class {
            s[k] = p.hand[k];
            rest[k] = 0;
        }
    }
    if p.case == Case::Short {
        oracle::count_multisets(&rest, n - p.s_size as usize)
    } else {
        oracle::count_multisets(&s, n)
    }
}

fn main() {
    let a = args();
    let t0 = Instant::now();
    let corpus = match &a.load {
        Some(path) => corpus::load(path).expect("read the corpus"),
        None => corpus::build(a.opt),
    };
    let corpus = if a.profile == tractor_core::Profile::Guigang {
        corpus
    } else {
        let c = corpus::for_profile(&corpus, a.profile, a.opt.seed);
        println!("profile {}: {} positions with the same hands and leads", a.profile.name(), c.len());
        c
    };
    let build_s = t0.elapsed().as_secs_f64();
    match &a.load {
        Some(path) => println!("corpus: {} positions loaded from {path} in {:.1} s", corpus.len(), build_s),
        None => println!(
            "corpus: {} positions from {} hands (seed {}, cap {} per stratum), built in {:.1} s",
            corpus.len(),
            a.opt.hands,
            a.opt.seed,
            a.opt.cap,
            build_s
        ),
    }
    if let Some(path) = &a.save {
        corpus::save(path, &corpus).expect("write the corpus");
        println!("corpus saved to {path}");
    }
    println!("timing: median of {} batches of ≥{} µs per position and op\n", a.repeats, a.batch_ns / 1000);

    let mut rng = Rng::new(1);
    let mut times: Vec<Times> = Vec::with_capacity(corpus.len());
    let mut mismatches = 0usize;
    let mut oracle_checked = 0usize;
    let (batch, reps) = (a.batch_ns, a.repeats);
    for p in &corpus {
        let mut t = Times::default();
        let (ctx, hand, lead) = (p.ctx, p.hand, p.lead);
        // the answers first: the timed calls must compute these
        let f = Follow::new(ctx, &hand, lead);
        assert!(f.is_legal(&p.legal), "the corpus's legal play is legal");
        if let Some(x) = &p.illegal {
            assert!(!f.is_legal(x), "the corpus's illegal play is illegal");
        }
        assert_eq!(f.legal_set(&[0; KINDS]).count(), p.count);
        t.op.insert("new", per_call(|| Follow::new(ctx, &hand, lead).case, batch, reps));
        t.op.insert("check+", per_call(|| Follow::new(ctx, &hand, lead).is_legal(&p.legal), batch, reps));
        t.op.insert(
            "check-",
            match &p.illegal {
                Some(x) => per_call(|| Follow::new(ctx, &hand, lead).is_legal(x), batch, reps),
                None => f64::NAN,
            },
        );
        t.op.insert("count", per_call(|| Follow::new(ctx, &hand, lead).legal_set(&[0; KINDS]).count(), batch, reps));
        t.op.insert(
            "sample",
            per_call(|| Follow::new(ctx, &hand, lead).legal_set(&[0; KINDS]).sample(&mut rng), batch, reps),
        );
        t.op.insert("classify", per_call(|| classify(ctx, &p.lead_counts), batch, reps));
        t.op.insert("leads", per_call(|| legal_leads(ctx, &hand), batch, reps));
        t.op.insert("count_leads", per_call(|| count_leads(ctx, &hand), batch, reps));
        if oracle_cost(p) <= a.oracle_max {
            let competition = ctx.rules.profile == tractor_core::Profile::Competition;
            let op = oracle::Position {
                level: ctx.level,
                trump: ctx.trump,
                t1_any_shape: ctx.rules.t1_any_shape,
                hand,
                lead: p.lead_counts,
            };
            let oc = oracle_comp::Position { level: ctx.level, trump: ctx.trump, hand, lead: p.lead_counts };
            let analyse = || if competition { oc.analyse() } else { op.analyse() };
            let an = analyse().expect("the lead is one combination");
            oracle_checked += 1;
            let ok = an.legal.len() as u128 == p.count
                && an.legal.binary_search(&p.legal).is_ok()
                && p.illegal.is_none_or(|x| an.legal.binary_search(&x).is_err());
            if !ok {
                mismatches += 1;
                eprintln!(
                    "MISMATCH with the oracle: {} level {} trump {} hand {} lead {}: engine count {} oracle {}",
                    p.stratum.name(),
                    ctx.level,
                    ctx.trump,
                    tractor_core::rules::card::format(&tractor_core::rules::card::cards_of(&hand)),
                    tractor_core::rules::card::format(&tractor_core::rules::card::cards_of(&p.lead_counts)),
                    p.count,
                    an.legal.len()
                );
            }
            t.oracle = Some(per_call(|| analyse().map(|a| a.legal.len()), batch.max(200_000), reps.min(5)));
        }
        times.push(t);
    }
    let total_s = t0.elapsed().as_secs_f64();
    if let Some(path) = &a.tsv {
        use std::io::Write;
        let mut f = std::io::BufWriter::new(std::fs::File::create(path).expect("create the tsv"));
        writeln!(f, "index\tn\tm\tlong\tcase\tcount\top\tns").unwrap();
        for (i, (p, t)) in corpus.iter().zip(&times).enumerate() {
            let ops = t.op.iter().map(|(k, v)| (*k, *v)).chain(t.oracle.map(|v| ("oracle", v)));
            for (op, v) in ops {
                let s = p.stratum;
                writeln!(f, "{i}\t{}\t{}\t{}\t{}\t{}\t{op}\t{v:.2}", s.n, s.m, s.long as u8, p.case_name(), p.count)
                    .unwrap();
            }
        }
    }

    // ---- per stratum ------------------------------------------------------------------
    let mut strata: BTreeMap<Stratum, Vec<usize>> = BTreeMap::new();
    for (i, p) in corpus.iter().enumerate() {
        strata.entry(p.stratum).or_default().push(i);
    }
    let col = |idx: &[usize], op: &str| -> Vec<f64> { idx.iter().map(|&i| times[i].op[op]).collect() };

    println!("## Follow queries per stratum (ns per call: median / p99 / max over positions)\n");
    print!("| stratum | pos | cases |");
    for op in OPS {
        print!(" {op} |");
    }
    println!();
    print!("|---|---:|---|");
    for _ in OPS {
        print!("---:|");
    }
    println!();
    let row = |name: &str, idx: &[usize]| {
        let mut cases: BTreeMap<&str, usize> = BTreeMap::new();
        for &i in idx {
            *cases.entry(corpus[i].case_name()).or_default() += 1;
        }
        let cases: Vec<String> = cases.iter().map(|(k, v)| format!("{k} {v}")).collect();
        print!("| {name} | {} | {} |", idx.len(), cases.join(", "));
        for op in OPS {
            let (m, p, x) = summary(&col(idx, op));
            print!(" {} / {} / {} |", ns(m), ns(p), ns(x));
        }
        println!();
    };
    for (s, idx) in &strata {
        row(&s.name(), idx);
    }
    let all: Vec<usize> = (0..corpus.len()).collect();
    let small: Vec<usize> = all.iter().copied().filter(|&i| corpus[i].stratum.n <= 2).collect();
    let ladder: Vec<usize> = all.iter().copied().filter(|&i| corpus[i].stratum.is_ladder()).collect();
    let ladder_tier: Vec<usize> =
        ladder.iter().copied().filter(|&i| matches!(corpus[i].case, Case::Ladder { .. } | Case::Unit { .. } | Case::Key(_))).collect();
    let short4: Vec<usize> =
        all.iter().copied().filter(|&i| !corpus[i].stratum.long && corpus[i].stratum.n >= 3).collect();
    row("**all N ≤ 2**", &small);
    row("**ladder: N ≥ 4, S > N**", &ladder);
    row("**… of which T2–T4 (no T1; competition: C4 below the unit, C5 below E)**", &ladder_tier);
    row("**short: N ≥ 3, S ≤ N**", &short4);
    row("**all**", &all);

    // ---- leads by hand size --------------------------------------------------------------
    println!("\n## Leads of the follower's hand, by hand size (ns per call: median / p99 / max)\n");
    println!("| hand size | pos | legal_leads | count_leads |\n|---|---:|---:|---:|");
    for (lo, hi) in [(1usize, 13usize), (14, 27), (28, 41), (42, 54)] {
        let idx: Vec<usize> = all.iter().copied().filter(|&i| (lo..=hi).contains(&size(&corpus[i].hand))).collect();
        if idx.is_empty() {
            continue;
        }
        let (m, p, x) = summary(&col(&idx, "leads"));
        let (m2, p2, x2) = summary(&col(&idx, "count_leads"));
        println!(
            "| {lo}–{hi} | {} | {} / {} / {} | {} / {} / {} |",
            idx.len(),
            ns(m),
            ns(p),
            ns(x),
            ns(m2),
            ns(p2),
            ns(x2)
        );
    }

    // ---- oracle ----------------------------------------------------------------------------
    println!("\n## Against the brute-force oracle (positions with ≤ {} candidate selections)\n", a.oracle_max);
    println!(
        "| stratum | pos timed | oracle median ns | oracle / check+ (median ratio) | oracle / count | oracle / sample |\n|---|---:|---:|---:|---:|---:|"
    );
    let ratio_row = |name: &str, idx: &[usize]| {
        let with: Vec<usize> = idx.iter().copied().filter(|&i| times[i].oracle.is_some()).collect();
        if with.is_empty() {
            return;
        }
        let orc: Vec<f64> = with.iter().map(|&i| times[i].oracle.unwrap()).collect();
        let r = |op: &str| -> f64 {
            let mut v: Vec<f64> = with.iter().map(|&i| times[i].oracle.unwrap() / times[i].op[op]).collect();
            median(&mut v)
        };
        println!(
            "| {name} | {} | {} | {:.0}× | {:.0}× | {:.0}× |",
            with.len(),
            ns(summary(&orc).0),
            r("check+"),
            r("count"),
            r("sample")
        );
    };
    for (s, idx) in &strata {
        ratio_row(&s.name(), idx);
    }
    ratio_row("**ladder: N ≥ 4, S > N**", &ladder);
    ratio_row("**all**", &all);
    println!("\noracle agreement: {oracle_checked} positions checked, {mismatches} mismatches");

    // ---- goals -----------------------------------------------------------------------------
    println!("\n## Goals\n");
    let verdict = |ok: bool| if ok { "MET" } else { "NOT MET" };
    for op in ["check+", "check-", "count", "sample"] {
        let (m, _, _) = summary(&col(&small, op));
        println!("- N ≤ 2, {op}: median {} ns (goal ≤ 50 ns): {}", ns(m), verdict(m <= 50.0));
    }
    for op in ["check+", "check-", "count", "sample"] {
        let (m, p, x) = summary(&col(&ladder, op));
        println!(
            "- ladder (N ≥ 4, S > N), {op}: median {} ns (≤ 1000: {}), p99 {} ns (≤ 5000: {}), max {} ns (≤ 20000: {})",
            ns(m),
            verdict(m <= 1000.0),
            ns(p),
            verdict(p <= 5000.0),
            ns(x),
            verdict(x <= 20_000.0)
        );
    }

    // ---- slowest positions ------------------------------------------------------------------
    println!("\n## Slowest positions (count)\n");
    let mut order: Vec<usize> = all.clone();
    order.sort_by(|&i, &j| times[j].op["count"].partial_cmp(&times[i].op["count"]).unwrap());
    for &i in order.iter().take(8) {
        let p = &corpus[i];
        println!(
            "- {} ns count / {} ns sample / {} ns check+: {} ({}, |S| = {}, {} legal), level {} trump {}, hand [{}], lead [{}]",
            ns(times[i].op["count"]),
            ns(times[i].op["sample"]),
            ns(times[i].op["check+"]),
            p.stratum.name(),
            p.case_name(),
            p.s_size,
            p.count,
            p.ctx.level,
            "shdc".as_bytes()[p.ctx.trump as usize] as char,
            tractor_core::rules::card::format(&tractor_core::rules::card::cards_of(&p.hand)),
            tractor_core::rules::card::format(&tractor_core::rules::card::cards_of(&p.lead_counts)),
        );
    }
    println!("\ntotal {:.1} s", total_s);
    if mismatches > 0 {
        std::process::exit(1);
    }
}
