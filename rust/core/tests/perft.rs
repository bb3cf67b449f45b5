//! Perft: move-generation counts of fixed positions (`tests/data/perft.txt`).
//!
//! Each line of the file holds a hand, a lead and the exact number of distinct legal leads of
//! the hand (R3.4) and of distinct legal follows to the lead (R5.2–R5.4), with the tier the
//! ladder demands. The counts were checked by an independent oracle when the file was made
//! (`tests/data/make_perft.py`); here the engine must reproduce every one of them:
//! `legal_leads(..).len()`, `count_leads`, `Follow::new(..).legal_set(&[0; 54]).count()` and
//! `required_tier()`. Lines whose follows were brute-forced over few selections are also
//! re-checked against the brute-force twin in `common/oracle.rs`.

use crate::common::{oracle, oracle_comp};

use std::path::PathBuf;

use tractor_core::rules::card::{counts_of, parse, Counts, KINDS};
use tractor_core::rules::combo::count_leads;
use tractor_core::rules::trump::{parse_level, parse_suit};
use tractor_core::{classify, legal_leads, Context, Follow, Profile};

struct Line {
    at: usize,
    text: String,
    profile: Profile,
    level: u8,
    trump: u8,
    hand: Counts,
    lead: Counts,
    leads: usize,
    follows: u128,
    tier: String,
    verified: String,
}

fn perft_path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/data/perft.txt")
}

fn counts(text: &str, at: usize) -> Counts {
    let cards = parse(text).unwrap_or_else(|e| panic!("perft.txt line {at}: bad cards [{text}]: {e}"));
    counts_of(&cards).unwrap_or_else(|e| panic!("perft.txt line {at}: bad cards [{text}]: {e}"))
}

fn read_perft() -> Vec<Line> {
    let path = perft_path();
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    let mut out = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let at = i + 1;
        if raw.trim().is_empty() || raw.starts_with('#') {
            continue;
        }
        let f: Vec<&str> = raw.split(" | ").map(str::trim).collect();
        assert_eq!(f.len(), 10, "perft.txt line {at}: expected 10 fields, got {}: {raw}", f.len());
        out.push(Line {
            at,
            text: raw.to_string(),
            profile: Profile::parse(f[0]).unwrap_or_else(|e| panic!("line {at}: {e}")),
            level: parse_level(f[1]).unwrap_or_else(|e| panic!("line {at}: {e}")),
            trump: parse_suit(f[2]).unwrap_or_else(|e| panic!("line {at}: {e}")),
            hand: counts(f[3], at),
            lead: counts(f[4], at),
            leads: f[5].parse().unwrap_or_else(|e| panic!("line {at}: leads {:?}: {e}", f[5])),
            follows: f[6].parse().unwrap_or_else(|e| panic!("line {at}: follows {:?}: {e}", f[6])),
            tier: f[7].to_string(),
            verified: f[8].to_string(),
        });
    }
    out
}

#[test]
fn perft_file_is_complete() {
    let lines = read_perft();
    assert!(lines.len() >= 140, "perft.txt holds only {} positions", lines.len());
    for tier in ["R5.2", "T1", "T2", "T3", "T4"] {
        assert!(lines.iter().any(|l| l.tier == tier), "no position of tier {tier}");
    }
    assert!(lines.iter().any(|l| l.profile == Profile::Nanning));
    assert!(lines.iter().filter(|l| l.profile == Profile::Competition).count() >= 50, "competition lines");
    assert!(lines.iter().any(|l| l.level == 3) && lines.iter().any(|l| l.level == 14));
    assert!(lines.iter().any(|l| l.follows > u64::MAX as u128 / 1_000_000_000), "no astronomically large count");
}

#[test]
fn perft_counts() {
    let lines = read_perft();
    let mut failures = Vec::new();
    for l in &lines {
        let ctx = Context::new(l.level, l.trump, l.profile).unwrap();
        let listed = legal_leads(&ctx, &l.hand).len();
        let counted = count_leads(&ctx, &l.hand);
        let Some(combo) = classify(&ctx, &l.lead) else {
            failures.push(format!("line {}: the lead is not one combination: {}", l.at, l.text));
            continue;
        };
        let f = Follow::new(&ctx, &l.hand, combo);
        let follows = f.legal_set(&[0; KINDS]).count();
        let tier = f.required_tier().name();
        if (listed, counted, follows, tier) != (l.leads, l.leads, l.follows, l.tier.as_str()) {
            failures.push(format!(
                "line {}: legal_leads {listed}, count_leads {counted}, follows {follows}, tier {tier}; \
                 the file says leads {}, follows {}, tier {}\n    {}",
                l.at, l.leads, l.follows, l.tier, l.text
            ));
        }
    }
    println!("perft: {} positions", lines.len());
    assert!(failures.is_empty(), "{} of {} perft positions disagree:\n{}", failures.len(), lines.len(), failures.join("\n"));
}

/// The brute-force twin (`common/oracle.rs`) agrees with the file on the small positions.
#[test]
fn perft_small_follows_match_the_oracle_twin() {
    let mut checked = 0;
    for l in read_perft() {
        let Some(n) = l.verified.strip_prefix("bf:").and_then(|n| n.parse::<u64>().ok()) else { continue };
        if n > 20_000 {
            continue;
        }
        let a = if l.profile == Profile::Competition {
            oracle_comp::Position { level: l.level, trump: l.trump, hand: l.hand, lead: l.lead }.analyse()
        } else {
            oracle::Position { level: l.level, trump: l.trump, t1_any_shape: l.profile == Profile::Guigang, hand: l.hand, lead: l.lead }
                .analyse()
        };
        let a = a.expect("the lead is one combination");
        assert_eq!(a.legal.len() as u128, l.follows, "line {}: oracle twin {} legal follows\n    {}", l.at, a.legal.len(), l.text);
        checked += 1;
    }
    assert!(checked >= 100, "only {checked} positions re-checked");
}
