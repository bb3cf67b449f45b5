//! A fixed, seeded corpus of follow positions taken from real 54-card hands, shared by the
//! criterion bench (`benches/rules.rs`) and `examples/ladder_stats.rs` (both include this
//! file with `#[path]`).
//!
//! Hands are dealt with `Game::deal` at every level 3..A (a match's first hand: the final
//! declarer becomes banker) and played to the end, alternately by the `random` and the
//! `greedy` policy. Two kinds of position are taken:
//! - **played**: every follow decision of the hand, as the policy met it (the lead on the
//!   table, the follower's hand at that moment);
//! - **crafted**: at every lead decision, one lead of each shape (m, k) with N = m·k ≤ 12 that
//!   the leader's hand can give (singles, pairs, triples, bombs, pair/triple/bomb tractors),
//!   against each of the three other hands as they stand.
//!
//! Positions are stratified by (N, m, long) where `long` means the follower holds more than N
//! cards of the led class (only then does the ladder R5.3 work; otherwise R5.2 applies).
//! Each stratum keeps a seeded reservoir sample of at most `cap` positions, so the corpus is
//! the same on every machine for the same (seed, hands, cap).

#![allow(dead_code)]

use std::collections::BTreeMap;

use tractor_core::Agent;
use tractor_core::game::hand::{Game, Phase, NOBODY};
use tractor_core::policy::Policy;
use tractor_core::rules::card::{size, Counts, KINDS};
use tractor_core::rules::combo::{legal_leads, Combo};
use tractor_core::rules::follow::{Case, Follow};
use tractor_core::{Context, Profile, Rng};

/// Where a position came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Source {
    Played,
    Crafted,
}

/// A stratum: lead size N, lead multiplicity m, and whether |S| > N (S: the follower's cards of
/// the led class; names write "S>N" to stay inside markdown table cells).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Stratum {
    pub n: u8,
    pub m: u8,
    pub long: bool,
}

impl Stratum {
    pub fn name(&self) -> String {
        let shape = match (self.m, self.n / self.m) {
            (1, _) => "single".to_string(),
            (2, 1) => "pair".to_string(),
            (3, 1) => "triple".to_string(),
            (4, 1) => "bomb".to_string(),
            (2, k) => format!("{k}-pair tractor"),
            (3, k) => format!("{k}-triple tractor"),
            (_, k) => format!("{k}-bomb tractor"),
        };
        format!("N={} {} {}", self.n, shape, if self.long { "S>N" } else { "S≤N" })
    }
    /// The ladder positions of the goals: N ≥ 4 and more than N cards of the led class.
    pub fn is_ladder(&self) -> bool {
        self.long && self.n >= 4
    }
}

/// One follow position, with a legal and (where one exists) an illegal play of N cards.
#[derive(Clone, Debug)]
pub struct Position {
    pub ctx: &'static Context,
    pub hand: Counts,
    pub lead: Combo,
    pub lead_counts: Counts,
    pub stratum: Stratum,
    pub source: Source,
    pub s_size: u8,
    pub case: Case,
    /// A legal follow (uniform over the legal ones, seeded).
    pub legal: Counts,
    /// A play of N cards from the hand that breaks the rules, if the hand has one.
    pub illegal: Option<Counts>,
    /// The exact number of legal follows (from the engine; the stats example checks it
    /// against the brute-force oracle where that is fast).
    pub count: u128,
}

impl Position {
    pub fn follow(&self) -> Follow<'static> {
        Follow::new(self.ctx, &self.hand, self.lead)
    }
    pub fn case_name(&self) -> &'static str {
        match self.case {
            Case::Short => "short",
            Case::T1 => "T1",
            Case::Ladder { l, .. } if l > 0 => "T2",
            Case::Ladder { p, .. } if p > 0 => "T3",
            Case::Ladder { .. } => "T4",
            Case::Unit { .. } => "C4",
            Case::Key(k) if k.has_tractor() => "C5 L",
            Case::Key(_) => "C5 p/t",
        }
    }
}

/// Options of a corpus build.
#[derive(Clone, Copy, Debug)]
pub struct Options {
    pub seed: u64,
    /// Hands dealt and played.
    pub hands: u64,
    /// Most positions kept per stratum.
    pub cap: usize,
}

impl Default for Options {
    fn default() -> Self {
        Options { seed: 20240601, hands: 160, cap: 150 }
    }
}

struct Reservoir {
    seen: u64,
    items: Vec<Position>,
}

/// Builds the corpus: positions ordered by stratum, then as sampled.
pub fn build(opt: Options) -> Vec<Position> {
    let mut rng = Rng::new(opt.seed ^ 0xC0_4F_05);
    let mut strata: BTreeMap<Stratum, Reservoir> = BTreeMap::new();
    let mut offer = |p: Position, rng: &mut Rng| {
        let r = strata.entry(p.stratum).or_insert(Reservoir { seen: 0, items: Vec::new() });
        r.seen += 1;
        if r.items.len() < opt.cap {
            r.items.push(p);
        } else {
            let j = rng.below(r.seen as u128) as usize;
            if j < opt.cap {
                r.items[j] = p;
            }
        }
    };
    for h in 0..opt.hands {
        let level = 3 + (h % 12) as u8;
        let policy = if h % 2 == 0 { Policy::Agent(Agent::Random) } else { Policy::Agent(Agent::Greedy) };
        let hand_seed = tractor_core::util::seed::derive(opt.seed, 77, h);
        let Ok(mut g) = Game::deal(hand_seed, Profile::Guigang, [level, level], NOBODY, None) else { continue };
        g.light = true;
        let mut prng: [Rng; 4] = std::array::from_fn(|p| Rng::new(hand_seed ^ ((p as u64 + 1) * 0x9E37_79B9)));
        loop {
            let pos = g.pos;
            if pos.phase == Phase::Play {
                let ctx = pos.ctx();
                let seat = pos.to_move as usize;
                match pos.lead() {
                    Some(lead) => {
                        // played: the decision as the policy meets it
                        let lead_counts = lead.counts(ctx);
                        if let Some(p) = make(ctx, &pos.hands[seat], lead, lead_counts, Source::Played, &mut rng) {
                            offer(p, &mut rng);
                        }
                    }
                    None => {
                        // crafted: one lead of each shape the leader holds, against each other hand
                        let leads = legal_leads(ctx, &pos.hands[seat]);
                        let mut by_shape: BTreeMap<(u8, u8), Vec<Combo>> = BTreeMap::new();
                        for c in leads.into_iter().filter(|c| c.size() <= 12) {
                            by_shape.entry((c.m, c.k)).or_default().push(c);
                        }
                        for (_, v) in by_shape {
                            let lead = v[rng.below_usize(v.len())];
                            let lead_counts = lead.counts(ctx);
                            for d in 1..4 {
                                let f = (seat + d) % 4;
                                if let Some(p) = make(ctx, &pos.hands[f], lead, lead_counts, Source::Crafted, &mut rng)
                                {
                                    offer(p, &mut rng);
                                }
                            }
                        }
                    }
                }
            }
            let seat = g.pos.to_move as usize;
            let Some(action) = policy.act(&g, &mut prng[seat]) else { break };
            g.pos_apply(&action);
        }
    }
    strata.into_values().flat_map(|r| r.items).collect()
}

/// The same hands and leads under another profile (for side-by-side timings): each position's
/// (level, trump) under `profile`, re-analysed; a lead that is no combination there (a tractor
/// through A–2 under competition, C1) is left out. Legal and illegal plays are drawn anew.
pub fn for_profile(corpus: &[Position], profile: Profile, seed: u64) -> Vec<Position> {
    let mut rng = Rng::new(seed ^ 0x9F0F_11E5);
    corpus
        .iter()
        .filter_map(|p| {
            let ctx = Context::get(p.ctx.level, p.ctx.trump, profile).expect("valid context");
            let lead = tractor_core::classify(ctx, &p.lead_counts)?;
            let mut q = make(ctx, &p.hand, lead, p.lead_counts, p.source, &mut rng)?;
            q.stratum = p.stratum;
            Some(q)
        })
        .collect()
}

/// Analyses one position; `None` if the follower's hand is empty.
pub fn make(
    ctx: &'static Context,
    hand: &Counts,
    lead: Combo,
    lead_counts: Counts,
    source: Source,
    rng: &mut Rng,
) -> Option<Position> {
    if size(hand) < lead.size() {
        return None;
    }
    let f = Follow::new(ctx, hand, lead);
    let mut set = f.legal_set(&[0; KINDS]);
    let count = set.count();
    let legal = set.sample(rng)?;
    let illegal = find_illegal(&f, hand, &legal, rng);
    let stratum = Stratum { n: f.n, m: lead.m, long: f.s_size > f.n };
    Some(Position {
        ctx,
        hand: *hand,
        lead,
        lead_counts,
        stratum,
        source,
        s_size: f.s_size,
        case: f.case,
        legal,
        illegal,
        count,
    })
}

/// An N-card play from the hand that the ladder rejects: preferably a near miss (one card of
/// a legal play swapped for another card of the led class), else a swap with any card.
fn find_illegal(f: &Follow, hand: &Counts, legal: &Counts, rng: &mut Rng) -> Option<Counts> {
    let ctx = f.ctx;
    let class = f.lead.class;
    let in_play: Vec<usize> = (0..KINDS).filter(|&k| legal[k] > 0).collect();
    let spare: Vec<usize> = (0..KINDS).filter(|&k| hand[k] > legal[k]).collect();
    let spare_in: Vec<usize> = spare.iter().copied().filter(|&k| ctx.class[k] == class).collect();
    for attempt in 0..64 {
        let pool = if attempt < 48 && !spare_in.is_empty() { &spare_in } else { &spare };
        if pool.is_empty() || in_play.is_empty() {
            break;
        }
        let mut x = *legal;
        // swap one or two cards
        let swaps = 1 + (attempt % 2);
        for _ in 0..swaps {
            let out: Vec<usize> = (0..KINDS).filter(|&k| x[k] > 0).collect();
            let o = out[rng.below_usize(out.len())];
            let cand: Vec<usize> = pool.iter().copied().filter(|&k| hand[k] > x[k] && k != o).collect();
            if cand.is_empty() {
                break;
            }
            let i = cand[rng.below_usize(cand.len())];
            x[o] -= 1;
            x[i] += 1;
        }
        if size(&x) == f.n as usize && !f.is_legal(&x) {
            return Some(x);
        }
    }
    None
}

/// Per-stratum positions, in stratum order.
pub fn by_stratum(corpus: &[Position]) -> BTreeMap<Stratum, Vec<&Position>> {
    let mut m: BTreeMap<Stratum, Vec<&Position>> = BTreeMap::new();
    for p in corpus {
        m.entry(p.stratum).or_default().push(p);
    }
    m
}

/// Coarser groups for the criterion bench.
pub fn group_of(s: &Stratum) -> &'static str {
    match (s.n, s.long) {
        (1, _) => "n1",
        (2, _) => "n2",
        (3, true) => "n3_long",
        (n, true) if n <= 6 => "ladder_n4-6",
        (_, true) => "ladder_n8plus",
        (_, false) => "short_n3plus",
    }
}

pub const GROUPS: [&str; 6] = ["n1", "n2", "n3_long", "ladder_n4-6", "ladder_n8plus", "short_n3plus"];

fn hex(c: &Counts) -> String {
    c.iter().map(|&v| char::from(b'0' + v)).collect()
}

fn unhex(s: &str) -> Counts {
    let mut c = [0u8; KINDS];
    assert_eq!(s.len(), KINDS, "a count array has 54 digits");
    for (i, b) in s.bytes().enumerate() {
        c[i] = b - b'0';
    }
    c
}

/// Writes the corpus as text, one position a line:
/// `level trump source hand lead legal illegal|-` (count arrays as 54 digits). Loading it
/// gives the same positions to another build of the engine (a baseline), whatever its
/// policies or sampling order.
pub fn save(path: &str, corpus: &[Position]) -> std::io::Result<()> {
    use std::io::Write;
    let mut f = std::io::BufWriter::new(std::fs::File::create(path)?);
    writeln!(f, "# tractor follow corpus v1: level trump source hand lead legal illegal")?;
    for p in corpus {
        writeln!(
            f,
            "{} {} {} {} {} {} {}",
            p.ctx.level,
            p.ctx.trump,
            if p.source == Source::Played { "played" } else { "crafted" },
            hex(&p.hand),
            hex(&p.lead_counts),
            hex(&p.legal),
            p.illegal.map_or("-".to_string(), |x| hex(&x))
        )?;
    }
    Ok(())
}

/// Reads a corpus written by [`save`]; the case and the count come from this build.
pub fn load(path: &str) -> std::io::Result<Vec<Position>> {
    let text = std::fs::read_to_string(path)?;
    let mut out = Vec::new();
    for line in text.lines().filter(|l| !l.starts_with('#') && !l.trim().is_empty()) {
        let w: Vec<&str> = line.split_whitespace().collect();
        let (level, trump): (u8, u8) = (w[0].parse().unwrap(), w[1].parse().unwrap());
        let ctx = Context::get(level, trump, Profile::Guigang).expect("valid context");
        let source = if w[2] == "played" { Source::Played } else { Source::Crafted };
        let (hand, lead_counts, legal) = (unhex(w[3]), unhex(w[4]), unhex(w[5]));
        let illegal = (w[6] != "-").then(|| unhex(w[6]));
        let lead = tractor_core::rules::combo::classify(ctx, &lead_counts).expect("the lead is one combination");
        let f = Follow::new(ctx, &hand, lead);
        let count = f.legal_set(&[0; KINDS]).count();
        out.push(Position {
            ctx,
            hand,
            lead,
            lead_counts,
            stratum: Stratum { n: f.n, m: lead.m, long: f.s_size > f.n },
            source,
            s_size: f.s_size,
            case: f.case,
            legal,
            illegal,
            count,
        });
    }
    Ok(out)
}
