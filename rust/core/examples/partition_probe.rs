//! An experiment, not the solver: what partition search (a table entry serving every position
//! that agrees with it on the cards its subtree's result depended on, as bridge's DDS does)
//! would save over the solver's transposition table of trick starts. A plain reference
//! solver, alpha-beta over whole plays (every legal play; `MERGE=1`: equivalent single leads
//! merged), a table of trick starts holding bounds of the points to come, and simple move
//! ordering, in four table modes:
//! - `exact`: keyed by the hands and the leader;
//! - `iso`: keyed as the real solver keys: the kinds held renamed, a plain suit's by their
//!   order, every hand's copies, points and usable links; the trumps by their order in
//!   strength with its ties (each run of equal strength sorted), copies and points, a trump
//!   touching a usable link by id;
//! - `part`: `iso` plus partition entries (below);
//! - `part-id`: partition entries whose exact part names the kinds themselves (not renamed).
//!
//! Partition entries. A search at a trick start returns, with its bounds, its relevance: per
//! class (the plain suits and the trumps) the lowest strength that decided a trick. A trick's
//! winner (R6.1–R6.2) makes its strength relevant when another play of the trick was one
//! combination of the winner's class and multiplicity (only then did R4.1 compare tops; a
//! tractor's kinds are linked, so exact anyway): every kind at or above it stays exact, every
//! loser it beat stays below it in a matching position (R4.1), and no small kind may tie an
//! exact one (R2.6: the earlier play would decide). An uncontested or ruffed trick makes
//! nothing of the led suit relevant. Legality (R5.2–R5.4) reads counts, copies and links only.
//! A node's relevance is the union (per class the lowest strength) of its children's and of
//! the tricks they finished, or at a cutoff the cutting child's alone (`CUTREL=0`: every
//! child searched); a table hit's is its entry's, and an entry that narrowed the window adds
//! its own.
//! An entry keeps, per class, the top j kinds still held exact (at or above the relevance;
//! `part` renamed as `iso`, `part-id` by id) and of the kinds below ("small") only each hand's
//! multiset of (copies, points) (R7.1). No small kind may touch a usable link (some hand holds
//! two or more of both linked kinds: the only links a tractor lead or follow can use, R3.2,
//! R5.3), in the stored position nor in the probed one: the stored j covers every such kind.
//! Entries are found by a bucket per (leader, every hand's cards and points of each class),
//! holding the distinct exact parts (j per class) stored there; a probe makes the position's
//! key under each that fits it and looks it up, and stops at the first entry that answers
//! (`FIRSTCUT=0`: tries them all). `TRUMPS_EXACT=1`: the trumps always exact (partition over
//! the plain suits only); `CONTESTED=0`: every trick's winner relevant.
//! `MTDF=1`: the root searched as `solve::solve` searches it: every root play's exact value by
//! null-window searches around a guess (MTD(f)), the best so far, one table shared across
//! the root plays; every play's value `solve::solve` lists checked too.
//! Every value is checked against `solve::solve` (`CHECK=0`: not run). `UNSOUND=1/2/3` drop
//! the relevance, the link rule or the tie rule: the checker's own check (a value mismatch
//! on `RANDOM=1`'s deals).
//! `cargo run --release -p tractor-core --example partition_probe [k] [positions] [modes]`
//! (modes: comma-separated, default `iso,part`; `BENCH=1`: `benches/solve_speed.py`'s
//! positions; `RANDOM=1`: random deals over few kinds, every profile).

use std::collections::HashMap;

/// The tables' maps (their keys are hashes already; the map's order is never read).
type Map<K, V> = HashMap<K, V, std::hash::BuildHasherDefault<tractor_core::util::hash::FxHasher>>;
use std::time::Instant;

use tractor_core::game::action_set::ActionSet;
use tractor_core::rules::combo::{beats, classify};
use tractor_core::rules::score::{points, KIND_POINTS};
use tractor_core::rules::trump::{Context, NONE};
use tractor_core::search::solve::solve;
use tractor_core::{Action, Counts, Phase, Position, KINDS, TRUMP};

#[path = "common/positions.rs"]
mod positions;
use positions::{bench_endgames, endgames};

/// The positions: `solve_frontier`'s own, with `BENCH=1` those of `benches/solve_speed.py`,
/// with `RANDOM=1` random deals of `k` cards a hand over few kinds (pairs, triples, bombs and
/// tractors: the partition's links and structure exercised), every profile.
fn positions(k: usize, n: usize) -> Vec<Position> {
    if std::env::var("RANDOM").is_ok_and(|v| v == "1") {
        return random_positions(k, n);
    }
    if std::env::var("BENCH").is_ok_and(|v| v == "1") { bench_endgames(k, n) } else { endgames(k, n) }
}

/// `n` trick starts of `k` cards a hand dealt from 4 to 15 random kinds (4 copies each),
/// random level, trump, banker and profile, some tricks played at random first.
fn random_positions(k: usize, n: usize) -> Vec<Position> {
    let mut rng = tractor_core::Rng::new(0x5eed);
    let mut out = Vec::new();
    while out.len() < n {
        let profile = tractor_core::Profile::ALL[out.len() % 3];
        let (level, trump, banker) = (3 + rng.below_usize(12) as u8, rng.below_usize(4) as u8, rng.below_usize(4) as u8);
        let spread = 4 + rng.below_usize(12);
        let mut kinds: Vec<usize> = (0..KINDS).collect();
        for i in 0..spread {
            let j = i + rng.below_usize(KINDS - i);
            kinds.swap(i, j);
        }
        // every other deal: a run of one suit's ranks and the jokers first (links, R3.3)
        if out.len() % 2 == 1 {
            let (suit, from) = (rng.below_usize(4), 2 + rng.below_usize(9));
            let run: Vec<usize> = (from..(from + 6).min(15)).map(|r| suit * 13 + r - 2).chain([52, 53]).collect();
            for (i, &r) in run.iter().enumerate() {
                let at = kinds.iter().position(|&x| x == r).expect("a kind");
                kinds.swap(i, at);
            }
        }
        let spread = spread.max(8);
        // each hand filled by units of 1-3 copies of the pool's kinds (pairs and triples)
        let extra = rng.below_usize(3);
        let mut left = [4u8; KINDS];
        let mut hands = [[0u8; KINDS]; 4];
        for hand in hands.iter_mut() {
            let mut room = k + extra;
            while room > 0 {
                let c = kinds[rng.below_usize(spread)];
                let most = (left[c] as usize).min(room).min(3);
                if most == 0 {
                    continue;
                }
                let m = 1 + rng.below_usize(most);
                hand[c] += m as u8;
                left[c] -= m as u8;
                room -= m;
            }
        }
        let mut pos = tractor_core::Game::from_hands(hands, level, trump, banker, profile).expect("a deal").pos;
        // whole tricks played at random until k cards a hand are left
        while pos.phase == Phase::Play && tractor_core::rules::card::size(&pos.hands[pos.to_move as usize]) > k {
            let Some(Action::Play(c)) = ActionSet::of(&pos).sample(&mut rng) else { unreachable!("plays") };
            pos.play_unchecked(&c);
        }
        if pos.phase == Phase::Play && pos.trick.plays == 0 {
            out.push(pos);
        }
    }
    out
}

/// `UNSOUND`'s value (0 unset), read once.
fn unsound() -> u8 {
    static V: std::sync::OnceLock<u8> = std::sync::OnceLock::new();
    *V.get_or_init(|| std::env::var("UNSOUND").ok().and_then(|v| v.parse().ok()).unwrap_or(0))
}

/// Per class (the plain suits 0..4, the trump suit's empty; the trumps 4) the lowest strength
/// a result depended on; [`NOTHING`] where none did.
type Rel = [u8; 5];
const NOTHING: u8 = 21; // above BJ (20): no kind exact

fn union(a: &mut Rel, b: &Rel) {
    for s in 0..5 {
        a[s] = a[s].min(b[s]);
    }
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Mode {
    Exact,
    Iso,
    Part,
    PartId,
}

/// A 128-bit hash of words (two multiply-rotate lanes; a collision among a few million keys
/// is unlikely, and would show as a value mismatch).
struct H(u64, u64);

impl H {
    fn new() -> H {
        H(0x243f_6a88_85a3_08d3, 0x1319_8a2e_0370_7344)
    }
    fn put(&mut self, w: u64) {
        self.0 = (self.0 ^ w).wrapping_mul(0x9e37_79b9_7f4a_7c15).rotate_left(29);
        self.1 = (self.1.rotate_left(17) ^ w.wrapping_mul(0xc2b2_ae3d_27d4_eb4f)).wrapping_mul(0x1656_67b1_9e37_79f9);
    }
    fn finish(&self) -> u128 {
        let a = (self.0 ^ self.1 >> 31).wrapping_mul(0xff51_afd7_ed55_8ccd);
        let b = (self.1 ^ self.0 >> 29).wrapping_mul(0xc4ce_b9fe_1a85_ec53);
        (a as u128) << 64 | (a ^ b >> 33) as u128
    }
}

/// Every hand's copies of kind `k`, 3 bits a hand.
fn counts(pos: &Position, k: usize) -> u64 {
    let h = &pos.hands;
    (h[0][k] as u64) | (h[1][k] as u64) << 3 | (h[2][k] as u64) << 6 | (h[3][k] as u64) << 9
}

/// Some hand holds two or more of both kinds (a link a tractor could still use, R3.3).
fn usable(pos: &Position, a: u8, b: u8) -> bool {
    a != NONE && b != NONE && pos.hands.iter().any(|h| h[a as usize] >= 2 && h[b as usize] >= 2)
}

/// A trick start's classes (the plain suits 0..4, the trumps 4): the kinds still held,
/// strongest first (R2.3–R2.4; equal strengths by id), and how many of the strongest must be
/// exact to cover every kind touching a usable link.
struct Suits {
    kinds: [[u8; 24]; 5],
    n: [u8; 5],
    link_need: [u8; 5],
}

impl Suits {
    fn of(pos: &Position, ctx: &Context) -> Suits {
        let mut s = Suits { kinds: [[0; 24]; 5], n: [0; 5], link_need: [0; 5] };
        let held = pos.hands.iter().fold(0u64, |m, h| m | tractor_core::rules::card::held_mask(h, 1));
        for class in 0..5 {
            let mut bits = held & ctx.class_mask[class];
            let n = bits.count_ones() as usize;
            let kinds = &mut s.kinds[class];
            for slot in kinds[..n].iter_mut() {
                *slot = bits.trailing_zeros() as u8;
                bits &= bits - 1;
            }
            kinds[..n].sort_by_key(|&k| std::cmp::Reverse((ctx.strength[k as usize], k)));
            s.n[class] = n as u8;
            for (i, &k) in kinds[..n].iter().enumerate() {
                if (usable(pos, k, ctx.up[k as usize]) || usable(pos, k, ctx.down[k as usize])) && unsound() != 2 {
                    s.link_need[class] = i as u8 + 1;
                }
            }
        }
        s
    }

    /// How many of class `class`'s kinds held are at or above strength `t`.
    fn at_or_above(&self, ctx: &Context, class: usize, t: u8) -> u8 {
        self.kinds[class][..self.n[class] as usize].iter().take_while(|&&k| ctx.strength[k as usize] >= t).count() as u8
    }

    /// The top `j` kinds of `class` end between two strengths (no small kind ties an exact
    /// one: R2.6's earlier play would then decide between them).
    fn cut_between(&self, ctx: &Context, class: usize, j: u8) -> bool {
        if unsound() == 3 {
            return true; // the checker's own check: ties split must be caught
        }
        let (j, kinds) = (j as usize, &self.kinds[class]);
        j == 0 || j >= self.n[class] as usize || ctx.strength[kinds[j] as usize] < ctx.strength[kinds[j - 1] as usize]
    }
}

/// The bucket of a trick start: leader, every hand's cards and points of each class (what
/// every position matching an entry shares).
fn bucket(pos: &Position, ctx: &Context) -> u64 {
    let mut h = H::new();
    h.put(pos.to_move as u64);
    // per hand, each class's cards and points (in fives) as one word of 5 x 12 bits
    for hand in &pos.hands {
        let mut w = 0u64;
        tractor_core::rules::card::for_each_held(hand, |k, n| {
            let shift = 12 * ctx.class[k] as u64;
            w += (n as u64 | (n as u64 * KIND_POINTS[k] as u64 / 5) << 5) << shift;
        });
        h.put(w);
    }
    h.finish() as u64
}

/// The key of a trick start with the top `j[c]` kinds held of each class exact and the rest
/// as each hand's multiset of (copies, points). The exact kinds by id when `ids`, else renamed
/// as the real solver's key renames them: a plain suit's by their order, copies, points and
/// usable links (R2.4, R3.3); the trumps by their order in strength with its ties (R2.3,
/// R2.6), each run of equal strength sorted, copies and points, those touching a usable link
/// by id (R3.3, R4.2: tractors keep their kinds).
fn key(pos: &Position, ctx: &Context, suits: &Suits, j: &[u8; 5], ids: bool) -> u128 {
    let mut h = H::new();
    h.put(pos.to_move as u64);
    for class in 0..5 {
        let kinds = &suits.kinds[class][..suits.n[class] as usize];
        let j = j[class] as usize;
        h.put(0xabcd_0000 | (class as u64) << 8 | j as u64);
        if class == TRUMP as usize && !ids {
            let mut units = [0u64; 24];
            for (i, &k) in kinds[..j].iter().enumerate() {
                let k = k as usize;
                let linked = usable(pos, k as u8, ctx.up[k]) || usable(pos, k as u8, ctx.down[k]);
                let tie = i > 0 && ctx.strength[k] == ctx.strength[kinds[i - 1] as usize];
                units[i] = (tie as u64) << 40 | counts(pos, k) | (KIND_POINTS[k] as u64 / 5) << 12 | if linked { (k as u64 + 1) << 16 } else { 0 };
            }
            // each run of equal strength sorted (its first kind carries no tie bit)
            let mut i = 0;
            while i < j {
                let mut e = i + 1;
                while e < j && units[e] >> 40 == 1 {
                    e += 1;
                }
                let run = &mut units[i..e];
                for u in run.iter_mut() {
                    *u &= (1 << 40) - 1;
                }
                run.sort_unstable();
                for u in run.iter_mut().skip(1) {
                    *u |= 1 << 40;
                }
                i = e;
            }
            for &u in &units[..j] {
                h.put(u);
            }
        } else {
            for (i, &k) in kinds[..j].iter().enumerate() {
                let linked = !ids && i > 0 && ctx.up[k as usize] == kinds[i - 1] && usable(pos, k, kinds[i - 1]);
                let id = if ids { k as u64 } else { 0 };
                h.put(counts(pos, k as usize) | (KIND_POINTS[k as usize] as u64 / 5) << 12 | (linked as u64) << 14 | id << 16);
            }
        }
        // each hand's small kinds as a histogram of (copies, points): 12 codes, 4 bits each
        // (at most 10 cards a hand: no code overflows)
        let mut hist = [0u64; 4];
        for &k in &kinds[j..] {
            for (s, hand) in pos.hands.iter().enumerate() {
                let c = hand[k as usize] as u64;
                if c > 0 {
                    let code = (c - 1) * 3 + KIND_POINTS[k as usize] as u64 / 5;
                    hist[s] += 1 << (code * 4);
                }
            }
        }
        for w in hist {
            h.put(w);
        }
    }
    h.finish()
}

/// The single leads merged into a stronger one (bits over kind ids): the mover's kinds held
/// once and by nobody else, each next (in strength, among every kind left) to a stronger such
/// kind of its class with equal points (R7.1), neither tied with a kind left (R2.3, R2.6).
/// Leading either leaves the same game up to renaming the two.
fn merged_leads(pos: &Position, ctx: &Context, suits: &Suits) -> u64 {
    let me = pos.to_move as usize;
    let lone = |k: u8| pos.hands[me][k as usize] == 1 && (0..4).all(|s| s == me || pos.hands[s][k as usize] == 0);
    let mut out = 0u64;
    for class in 0..5 {
        let kinds = &suits.kinds[class][..suits.n[class] as usize];
        let st = |i: usize| ctx.strength[kinds[i] as usize];
        let untied = |i: usize| (i == 0 || st(i - 1) != st(i)) && (i + 1 >= kinds.len() || st(i + 1) != st(i));
        for i in 1..kinds.len() {
            let (a, b) = (kinds[i - 1], kinds[i]);
            if lone(a) && lone(b) && untied(i - 1) && untied(i) && KIND_POINTS[a as usize] == KIND_POINTS[b as usize] {
                out |= 1 << b;
            }
        }
    }
    out
}

#[derive(Default, Clone, Copy, Debug)]
struct Stats {
    nodes: u64,
    starts: u64,
    hits: u64,
    compared: u64,
    keys_made: u64,
    stored: u64,
    /// Trick starts searched (not answered by the table) by cards a hand.
    searched: [u64; 16],
    /// Kinds held at the entries stored, kinds kept small, and small only but for links.
    held: u64,
    small: u64,
    link_lost: u64,
}

struct Solver {
    mode: Mode,
    ctx: &'static Context,
    exact: Map<u128, (i32, i32)>,
    /// The distinct exact parts (top kinds per class) stored in each bucket.
    buckets: Map<u64, Vec<[u8; 5]>>,
    /// Partition entries by their key (which holds their exact parts).
    entries: Map<u128, (i32, i32)>,
    st: Stats,
    /// The plays of the trick in progress (the lead first).
    trick: [Counts; 4],
    /// Tricks count as relevant only when contested (`CONTESTED=0`: every trick won in its
    /// plain suit).
    contested: bool,
    /// At a cutoff only the cutting child's relevance counts (`CUTREL=0`: every child's).
    cut_paths: bool,
    /// `TRUMPS_EXACT=1`: the trumps always exact (partition over the plain suits only).
    trumps_exact: bool,
    /// `MERGE=1`: equivalent single leads merged ([`merged_leads`]).
    merge: bool,
    /// A probe stops at the first entry that answers (`FIRSTCUT=0`: it compares them all).
    first_cut: bool,
}

/// The exact key (hands and leader).
fn raw_key(pos: &Position) -> u128 {
    let mut h = H::new();
    h.put(pos.to_move as u64);
    for hand in &pos.hands {
        for w in tractor_core::rules::card::words(hand) {
            h.put(w);
        }
    }
    h.finish()
}

impl Solver {
    fn new(mode: Mode, ctx: &'static Context) -> Solver {
        let contested = !std::env::var("CONTESTED").is_ok_and(|v| v == "0");
        let cut_paths = !std::env::var("CUTREL").is_ok_and(|v| v == "0");
        let trumps_exact = std::env::var("TRUMPS_EXACT").is_ok_and(|v| v == "1");
        let merge = std::env::var("MERGE").is_ok_and(|v| v == "1");
        let first_cut = !std::env::var("FIRSTCUT").is_ok_and(|v| v == "0");
        Solver { mode, ctx, exact: Map::default(), buckets: Map::default(), entries: Map::default(), st: Stats::default(), trick: [[0; KINDS]; 4], contested, cut_paths, trumps_exact, merge, first_cut }
    }

    /// The relevance of the trick just finished ([`Solver::trick`], four plays). Its winner
    /// (R6.1–R6.2), of class c (the led suit, or trumps on a ruff), makes its strength
    /// relevant (a tractor's: its weakest kind's) when another play of the trick was one
    /// combination of c of the same multiplicity: only then did R4.1 compare their tops
    /// (a play of lower multiplicity, or of a plain suit against trumps, or not one
    /// combination, loses whatever its ranks). An uncontested trick makes nothing relevant:
    /// any position with the same structure gives it to the same play. A tractor's kinds are
    /// linked, so exact anyway (see [`Suits::link_need`]).
    fn trick_rel(&self, first: &[Option<tractor_core::Combo>; 3]) -> Rel {
        let ctx = self.ctx;
        let mut rel = [NOTHING; 5];
        let lead = first[0].expect("a lead");
        let combos = [first[0], first[1], first[2], classify(ctx, &self.trick[3])];
        let mut best = (lead, 0usize);
        for (i, c) in combos.iter().enumerate().skip(1) {
            if let Some(c) = c {
                if beats(&lead, c, best.0.key()) {
                    best = (*c, i);
                }
            }
        }
        let (w, wi) = best;
        let contested = combos.iter().enumerate().any(|(i, c)| i != wi && c.is_some_and(|c| c.class == w.class && c.m == w.m));
        if unsound() == 1 {
            return rel; // the checker's own check: no relevance at all must be caught
        }
        if contested || !self.contested {
            let weakest = w.kinds(ctx).map(|k| ctx.strength[k as usize]).min().expect("a kind");
            rel[w.class as usize] = weakest;
        }
        rel
    }

    /// The relevance, in strengths, of an entry's exact kinds at a position it matches.
    fn rel_of(&self, suits: &Suits, th: &[u8; 5]) -> Rel {
        std::array::from_fn(|s| if th[s] == 0 { NOTHING } else { self.ctx.strength[suits.kinds[s][th[s] as usize - 1] as usize] })
    }

    /// Whether an entry's exact kinds `th` fit `suits`: no small kind touches a usable link or
    /// ties an exact kind.
    fn fits(&self, suits: &Suits, th: &[u8; 5]) -> bool {
        (0..5).all(|s| th[s] <= suits.n[s] && th[s] >= suits.link_need[s] && suits.cut_between(self.ctx, s, th[s]))
    }

    /// `part`'s store: the bounds (lo, hi) of the points to come at `pos` (its classes
    /// `suits`, bucket `b`), found leaning on `rel`, kept as a partition entry.
    fn store(&mut self, pos: &Position, suits: &Suits, b: u64, rel: &Rel, lo: i32, hi: i32) {
        let ctx = self.ctx;
        let mut j = [0u8; 5];
        for s in 0..5 {
            let need = suits.link_need[s];
            let mut by_rel = suits.at_or_above(ctx, s, rel[s]);
            if s == TRUMP as usize && self.trumps_exact {
                by_rel = suits.n[s];
            }
            j[s] = by_rel.max(need);
            // whole runs of equal strength (R2.6)
            while !suits.cut_between(ctx, s, j[s]) {
                j[s] += 1;
            }
            self.st.held += suits.n[s] as u64;
            self.st.small += (suits.n[s] - j[s]) as u64;
            self.st.link_lost += (need > by_rel) as u64;
        }
        let th = j;
        let k = key(pos, ctx, suits, &j, self.mode == Mode::PartId);
        let list = self.buckets.entry(b).or_default();
        if !list.contains(&th) {
            list.push(th);
        }
        let e = self.entries.entry(k).or_insert((i32::MIN / 2, i32::MAX / 2));
        *e = (e.0.max(lo), e.1.min(hi));
    }

    /// `part`'s probe of the partition entries in bucket `b` fitting `pos` (its classes
    /// `suits`) within (alpha, beta): Ok(the value and its relevance) when an entry answers,
    /// else Err(the window the entries narrowed, what the narrowing leaned on).
    fn lookup(&mut self, pos: &Position, suits: &Suits, b: u64, mut alpha: i32, mut beta: i32) -> Result<(i32, Rel), (i32, i32, Rel)> {
        let mut rel = [NOTHING; 5];
        let dp = pos.defender_points;
        let (mut lo_best, mut hi_best) = ((i32::MIN, [NOTHING; 5]), (i32::MAX, [NOTHING; 5]));
        // the bucket's list taken out while it is read (no copy), put back after
        let mut list: Vec<[u8; 5]> = self.buckets.get_mut(&b).map(std::mem::take).unwrap_or_default();
        for i in 0..list.len() {
            let th = &list[i].clone();
            self.st.compared += 1;
            if !self.fits(suits, th) {
                continue;
            }
            self.st.keys_made += 1;
            let k = key(pos, self.ctx, suits, th, self.mode == Mode::PartId);
            let Some(&(lo, hi)) = self.entries.get(&k) else { continue };
            let (lo, hi) = (lo + dp, hi + dp);
            if lo > lo_best.0 {
                lo_best = (lo, self.rel_of(suits, th));
            }
            if hi < hi_best.0 {
                hi_best = (hi, self.rel_of(suits, th));
            }
            // the first entry that answers ends the probe, and its exact part moves
            // to the front of its bucket (`FIRSTCUT=0`: every one compared)
            if self.first_cut && (lo >= beta || hi <= alpha || lo == hi) {
                list[..=i].rotate_right(1);
                if lo == hi {
                    (lo_best, hi_best) = ((lo, self.rel_of(suits, th)), (hi, self.rel_of(suits, th)));
                }
                break;
            }
        }
        if !list.is_empty() {
            self.buckets.insert(b, list);
        }
        if lo_best.0 >= beta {
            self.st.hits += 1;
            return Ok(lo_best);
        }
        if hi_best.0 <= alpha {
            self.st.hits += 1;
            return Ok(hi_best);
        }
        if lo_best.0 == hi_best.0 {
            self.st.hits += 1;
            union(&mut rel, &lo_best.1);
            union(&mut rel, &hi_best.1);
            return Ok((lo_best.0, rel));
        }
        // an entry that narrows the window: its relevance joins (a value inside
        // the narrowed window leans on its bound)
        if lo_best.0 > alpha {
            alpha = lo_best.0;
            union(&mut rel, &lo_best.1);
        }
        if hi_best.0 < beta {
            beta = hi_best.0;
            union(&mut rel, &hi_best.1);
        }
        Err((alpha, beta, rel))
    }

    /// Value (the final score) of `pos` within (alpha, beta), fail-soft, and its relevance.
    fn search(&mut self, pos: &Position, mut alpha: i32, mut beta: i32) -> (i32, Rel) {
        self.st.nodes += 1;
        if pos.phase == Phase::Over {
            return (pos.final_score, [NOTHING; 5]);
        }
        let mut rel = [NOTHING; 5];
        let start = pos.trick.plays == 0;
        let dp = pos.defender_points;
        // the trick start's table: (bucket, key) for `exact`/`iso`, the suits for the others
        let mut slot: Option<(u64, u128, Suits)> = None;
        if start {
            self.st.starts += 1;
            let suits = Suits::of(pos, self.ctx);
            match self.mode {
                Mode::Exact | Mode::Iso => {
                    let k = if self.mode == Mode::Exact { raw_key(pos) } else { key(pos, self.ctx, &suits, &suits.n, false) };
                    if let Some(&(lo, hi)) = self.exact.get(&k) {
                        self.st.compared += 1;
                        let (lo, hi) = (lo + dp, hi + dp);
                        if lo >= beta || hi <= alpha || lo == hi {
                            self.st.hits += 1;
                            return (if lo >= beta || lo == hi { lo } else { hi }, rel);
                        }
                        alpha = alpha.max(lo);
                        beta = beta.min(hi);
                    }
                    slot = Some((0, k, suits));
                }
                Mode::Part | Mode::PartId => {
                    let b = bucket(pos, self.ctx);
                    match self.lookup(pos, &suits, b, alpha, beta) {
                        Ok(answer) => return answer,
                        Err((a, bt, r)) => {
                            (alpha, beta) = (a, bt);
                            union(&mut rel, &r);
                        }
                    }
                    slot = Some((b, 0, suits));
                }
            }
        }
        let (a0, b0) = (alpha, beta);
        let max = pos.is_defender(pos.to_move);
        let mut moves: Vec<(i32, Position, Counts)> = Vec::new();
        let Some(all) = ActionSet::of(pos).all(u128::MAX) else { unreachable!() };
        let ctx = self.ctx;
        // `MERGE=1`: equivalent single leads merged, as the real solver merges them
        let merged = match &slot {
            Some((_, _, suits)) if self.merge => merged_leads(pos, ctx, suits),
            _ => 0,
        };
        for a in all {
            let Action::Play(c) = a else { unreachable!("plays") };
            if merged != 0 && tractor_core::rules::card::size(&c) == 1 {
                let k = c.iter().position(|&n| n > 0).expect("a card");
                if merged >> k & 1 == 1 {
                    continue;
                }
            }
            let mut q = *pos;
            let winner = q.play_unchecked(&c);
            let mine = Position::is_defender(pos, pos.to_move);
            // ordering: plays that leave the mover's team winning the trick first, with most
            // points; then the rest, fewest points given away first; leads by size and strength
            let score = if start {
                let cc = classify(ctx, &c).expect("a lead");
                cc.size() as i32 * 64 + ctx.strength[cc.first as usize] as i32 + if cc.class == TRUMP { -32 } else { 0 }
            } else {
                let w = winner.unwrap_or(q.trick.best_seat);
                let pts = points(&c);
                if q.is_defender(w) == mine { 1000 + pts } else { -pts }
            };
            moves.push((score, q, c));
        }
        moves.sort_by_key(|m| std::cmp::Reverse(m.0));
        let mut best = if max { i32::MIN } else { i32::MAX };
        // the trick's plays so far (a child's search writes over them)
        let (saved, at) = (self.trick, pos.trick.plays as usize);
        // at a trick's last play, its first three plays classified once
        let partition = matches!(self.mode, Mode::Part | Mode::PartId);
        let first: [Option<tractor_core::Combo>; 3] = if at == 3 && partition { std::array::from_fn(|i| classify(ctx, &saved[i])) } else { [None; 3] };
        // what the window's narrowing leaned on (the table's entries), and the children's
        let narrowed = rel;
        for (_, q, c) in &moves {
            self.trick = saved;
            self.trick[at] = *c;
            // the trick's relevance when this play finishes it (see the module's notes)
            let mut child = if at == 3 && partition { self.trick_rel(&first) } else { [NOTHING; 5] };
            let (v, r) = self.search(q, alpha, beta);
            union(&mut child, &r);
            union(&mut rel, &child);
            if max {
                best = best.max(v);
                alpha = alpha.max(v);
            } else {
                best = best.min(v);
                beta = beta.min(v);
            }
            if alpha >= beta {
                // a cutoff: the bound returned is this child's alone (the earlier children
                // stayed on the other side of the window), so only its path is relevant
                if self.cut_paths {
                    rel = narrowed;
                    union(&mut rel, &child);
                }
                break;
            }
        }
        if merged != 0 {
            // a merge leans on its group's kinds being next to each other in strength: no cut
            // of the relevance may fall inside a group (all exact: the same kinds left next to
            // each other in any matching position; all small: either lead leaves the same
            // multisets)
            if let Some((_, _, suits)) = &slot {
                for (class, r) in rel.iter_mut().enumerate() {
                    let kinds = &suits.kinds[class][..suits.n[class] as usize];
                    for (i, &k) in kinds.iter().enumerate() {
                        // k merged into kinds[i - 1]: a cut between them moves below k
                        if merged >> k & 1 == 1 && ctx.strength[kinds[i - 1] as usize] >= *r && ctx.strength[k as usize] < *r {
                            *r = ctx.strength[k as usize];
                        }
                    }
                }
            }
        }
        if let Some((b, k, suits)) = slot {
            // bounds of the points to come (fail-soft)
            let (lo, hi) = if best <= a0 {
                (i32::MIN / 2, best - dp)
            } else if best >= b0 {
                (best - dp, i32::MAX / 2)
            } else {
                (best - dp, best - dp)
            };
            self.st.stored += 1;
            self.st.searched[tractor_core::rules::card::size(&pos.hands[pos.to_move as usize]).min(15)] += 1;
            match self.mode {
                Mode::Exact | Mode::Iso => {
                    let e = self.exact.entry(k).or_insert((i32::MIN / 2, i32::MAX / 2));
                    *e = (e.0.max(lo), e.1.min(hi));
                }
                Mode::Part | Mode::PartId => self.store(pos, &suits, b, &rel, lo, hi),
            }
        }
        (best, rel)
    }
}

impl Solver {
    /// The exact value of `pos` by null-window searches around `guess`, as `solve.rs`'s
    /// `Solver::mtdf` finds it: each search's window holds the guess alone, the guess then
    /// the value returned, until the bounds meet.
    fn mtdf(&mut self, pos: &Position, guess: i32, trick: [Counts; 4]) -> i32 {
        let (mut lo, mut hi) = (i32::MIN / 2, i32::MAX / 2);
        let mut g = guess.clamp(lo + 1, hi);
        while lo < hi {
            self.trick = trick;
            let (v, _) = self.search(pos, g - 1, g + 1);
            if v < g {
                hi = v;
            } else if v > g {
                lo = v;
            } else {
                (lo, hi) = (v, v);
            }
            g = v;
        }
        lo
    }

    /// `MTDF=1`: every root play's exact value by [`Solver::mtdf`], one table shared, as
    /// `solve::solve` finds them: leads in the probe's lead order (most cards first, stronger
    /// first), each guessed as the best so far (the first as the points taken). The position's
    /// value and every play's.
    fn solve_root(&mut self, pos: &Position) -> (i32, Vec<(Counts, i32)>) {
        self.st.nodes += 1;
        let ctx = self.ctx;
        let Some(all) = ActionSet::of(pos).all(u128::MAX) else { unreachable!() };
        let mut plays: Vec<(i32, Counts)> = all
            .into_iter()
            .map(|a| {
                let Action::Play(c) = a else { unreachable!("plays") };
                let cc = classify(ctx, &c).expect("a lead");
                (cc.size() as i32 * 64 + ctx.strength[cc.first as usize] as i32 + if cc.class == TRUMP { -32 } else { 0 }, c)
            })
            .collect();
        plays.sort_by_key(|m| std::cmp::Reverse(m.0));
        let max = pos.is_defender(pos.to_move);
        let mut guess: Option<i32> = None;
        let mut out = Vec::new();
        for (_, c) in plays {
            let mut q = *pos;
            q.play_unchecked(&c);
            let mut trick = [[0; KINDS]; 4];
            trick[0] = c;
            let v = self.mtdf(&q, guess.unwrap_or(pos.defender_points), trick);
            guess = Some(match guess {
                Some(g) if max => g.max(v),
                Some(g) => g.min(v),
                None => v,
            });
            out.push((c, v));
        }
        (guess.expect("a play"), out)
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let k: usize = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(5);
    let n: usize = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(10);
    #[cfg(feature = "partition-hook")]
    if std::env::var("HOOK").is_ok_and(|v| v == "1") {
        return hook_main(k, n);
    }
    let modes: Vec<Mode> = args
        .get(3)
        .map_or("iso,part", |s| s.as_str())
        .split(',')
        .map(|m| match m {
            "exact" => Mode::Exact,
            "iso" => Mode::Iso,
            "part" => Mode::Part,
            "part-id" => Mode::PartId,
            _ => panic!("mode {m}"),
        })
        .collect();
    let check = !std::env::var("CHECK").is_ok_and(|v| v == "0");
    let mut per_mode: Vec<Vec<(u64, Stats, f64)>> = vec![Vec::new(); modes.len()];
    let mut solver_nodes = Vec::new();
    let mut solver_plays = Vec::new();
    let mtdf = std::env::var("MTDF").is_ok_and(|v| v == "1");
    for (i, p) in positions(k, n).iter().enumerate() {
        let want = if check {
            let t = Instant::now();
            let s = solve(p, u64::MAX).expect("solved");
            solver_nodes.push(s.nodes);
            solver_plays.push(s.plays.iter().map(|v| (v.play, v.lower)).collect::<Vec<_>>());
            Some((s.lower, t.elapsed().as_secs_f64()))
        } else {
            None
        };
        let mut line = format!("pos {i}:");
        {
            let ctx = p.ctx();
            let (mut tr, mut pl) = (0, 0);
            for h in &p.hands {
                for (kk, &c) in h.iter().enumerate() {
                    if ctx.class[kk] == TRUMP { tr += c as usize } else { pl += c as usize }
                }
            }
            let su = Suits::of(p, ctx);
            let pairs: usize = p.hands.iter().map(|h| h.iter().filter(|&&c| c >= 2).count()).sum();
            let tractors: usize = p.hands.iter().map(|h| tractor_core::legal_leads(ctx, h).iter().filter(|c| c.k >= 2).count()).sum();
            line += &format!(" trumps {tr} plain {pl} pairs {pairs} tractors {tractors} link_need {:?}", su.link_need);
        }
        if let Some((v, t)) = want {
            line += &format!(" solve {v} ({} nodes, {:.3} s)", solver_nodes[i], t);
        }
        for (mi, &m) in modes.iter().enumerate() {
            let t = Instant::now();
            let mut s = Solver::new(m, p.ctx());
            let (v, root) = if mtdf { s.solve_root(p) } else { (s.search(p, i32::MIN, i32::MAX).0, Vec::new()) };
            let dt = t.elapsed().as_secs_f64();
            if let Some((w, _)) = want {
                assert_eq!(v, w, "mode {m:?} position {i}: {p:?}");
                // every root play `solve::solve` lists (merged leads: their first) has its value
                for (c, w) in solver_plays[i].iter().filter(|_| mtdf) {
                    let got = root.iter().find(|x| x.0 == *c).expect("a play solved").1;
                    assert_eq!(got, *w, "mode {m:?} position {i} play {c:?}: {p:?}");
                }
            }
            let entries: usize = s.entries.len() + s.exact.len();
            let longest = s.buckets.values().map(|l| l.len()).max().unwrap_or(0);
            line += &format!(" | {m:?} {v} nodes {} starts {} hits {} cmp/probe {:.2} entries {entries} longest {longest} {:.3} s", s.st.nodes, s.st.starts, s.st.hits, s.st.compared as f64 / s.st.starts as f64, dt);
            per_mode[mi].push((s.st.nodes, s.st, dt));
        }
        eprintln!("{line}");
    }
    let median = |mut v: Vec<u64>| {
        v.sort();
        v[v.len() / 2]
    };
    for (mi, &m) in modes.iter().enumerate() {
        let r = &per_mode[mi];
        let sum: u64 = r.iter().map(|x| x.0).sum();
        let starts: u64 = r.iter().map(|x| x.1.starts).sum();
        let compared: u64 = r.iter().map(|x| x.1.compared).sum();
        let keys: u64 = r.iter().map(|x| x.1.keys_made).sum();
        let time: f64 = r.iter().map(|x| x.2).sum();
        let (held, small, lost): (u64, u64, u64) = r.iter().fold((0, 0, 0), |a, x| (a.0 + x.1.held, a.1 + x.1.small, a.2 + x.1.link_lost));
        if held > 0 {
            println!("k={k} {m:?}: kinds held at stored entries {held}, small {small} ({:.1}%), exact for links only {lost}", 100.0 * small as f64 / held as f64);
        }
        println!(
            "k={k} n={} {m:?}: nodes sum {sum} median {} trick starts {starts} entries compared/probe {:.2} keys made/probe {:.2} time {:.2} s",
            r.len(),
            median(r.iter().map(|x| x.0).collect()),
            compared as f64 / starts as f64,
            keys as f64 / starts as f64,
            time
        );
    }
    for (mi, &m) in modes.iter().enumerate() {
        let mut by = [0u64; 16];
        for x in &per_mode[mi] {
            for (b, n) in by.iter_mut().zip(x.1.searched) {
                *b += n;
            }
        }
        let parts: Vec<String> = (1..=k.min(15)).map(|c| format!("{c}:{}", by[c])).collect();
        println!("k={k} {m:?}: trick starts searched by cards a hand {}", parts.join(" "));
        if mi > 0 {
            let mut a = [0u64; 16];
            for x in &per_mode[0] {
                for (b, n) in a.iter_mut().zip(x.1.searched) {
                    *b += n;
                }
            }
            let parts: Vec<String> = (1..=k.min(15)).filter(|&c| by[c] > 0).map(|c| format!("{c}:{:.2}", a[c] as f64 / by[c] as f64)).collect();
            println!("k={k} {:?}/{m:?}: trick starts searched by cards, ratio {}", modes[0], parts.join(" "));
        }
    }
    if modes.len() >= 2 {
        let a = &per_mode[0];
        for (mi, &m) in modes.iter().enumerate().skip(1) {
            let b = &per_mode[mi];
            let mut ratios: Vec<f64> = a.iter().zip(b).map(|(x, y)| x.0 as f64 / y.0 as f64).collect();
            ratios.sort_by(|x, y| x.partial_cmp(y).unwrap());
            let sa: u64 = a.iter().map(|x| x.0).sum();
            let sb: u64 = b.iter().map(|x| x.0).sum();
            let ta: u64 = a.iter().map(|x| x.1.starts).sum();
            let tb: u64 = b.iter().map(|x| x.1.starts).sum();
            println!(
                "k={k} nodes {:?}/{m:?}: sum {:.2} median {:.2} (min {:.2} max {:.2}); trick starts {:.2}",
                modes[0],
                sa as f64 / sb as f64,
                ratios[ratios.len() / 2],
                ratios[0],
                ratios[ratios.len() - 1],
                ta as f64 / tb as f64
            );
        }
    }
    if check {
        let s: u64 = solver_nodes.iter().sum();
        println!("k={k} solve::solve nodes sum {s} median {}", median(solver_nodes));
    }
}

/// `HOOK=1` (feature `partition-hook`, off by default: a measurement for the port): the real
/// solver (`solve::solve`) runs, and every trick start it searches (past its table and bounds)
/// at the levels `HOOK_LEVELS` (cards a hand, default 4,5) is checked against a table of
/// partition entries holding only what the solver's own earlier searches at those levels would
/// have stored: would one of them have answered the window the solver searched with? A
/// searched start's entry gets its bounds and relevance from the reference search (`part`,
/// one table for the whole solve) run with the solver's window, its value checked against the
/// solver's (fail-soft on the same side, equal inside the window). A start answered this way
/// would not be searched: its subtree's nodes count as saved, and nothing inside it is
/// checked or stored (a port would never have searched it).
/// The solver's table entries stored inside such a subtree would not exist in a port: a later
/// table answer (or enhanced transposition cutoff) of the solver's outside an answered
/// subtree is "lost" when the port's entries would not give it: at a tracked level when no
/// partition entry answers its window, at another level when its key (the probe's `iso`) was
/// stored only inside answered subtrees. A lost answer costs, once a key, the nodes the search
/// that stored that key took (then the port has it: at a tracked level the reference's entry
/// is stored).
#[cfg(feature = "partition-hook")]
mod hooked {
    use super::*;
    use std::cell::RefCell;

    #[derive(Default, Clone, Copy, Debug)]
    pub struct Level {
        /// Trick starts the solver searched at this level (all), outside an answered subtree.
        pub searched: u64,
        pub counted: u64,
        /// Of `counted`, those a partition entry answers.
        pub answered: u64,
        /// Nodes below the `counted` starts, below the outermost answered ones.
        pub below: u64,
        pub saved: u64,
        /// The solver's table answers outside answered subtrees, those lost, their cost.
        pub hits: u64,
        pub lost: u64,
        pub lost_nodes: u64,
        /// Of `lost`: keys a search outside answered subtrees stored too (the port's entry
        /// from the reference is weaker than the solver's: fail-soft differences).
        pub lost_real: u64,
    }

    struct Frame {
        level: usize,
        tracked: bool,
        answered: bool,
        nodes0: u64,
        bucket: u64,
    }

    pub struct State {
        reference: Solver,
        port: Solver,
        levels: u32,
        stack: Vec<Frame>,
        open: usize,
        pub by: [Level; 16],
        pub checked: u64,
        answers: Vec<i32>,
        /// Every trick start searched, by its `iso` key: stored outside answered subtrees
        /// (real), and the nodes of its last search (0 once a lost answer paid them).
        stored: Map<u128, (bool, u64)>,
    }

    thread_local! {
        static STATE: RefCell<Option<State>> = const { RefCell::new(None) };
    }

    fn levels() -> u32 {
        let v = std::env::var("HOOK_LEVELS").unwrap_or_else(|_| "4,5".into());
        v.split(',').filter_map(|x| x.parse::<u32>().ok()).fold(0, |m, l| m | 1 << l)
    }

    fn iso_key(pos: &Position, ctx: &'static Context) -> u128 {
        let suits = Suits::of(pos, ctx);
        key(pos, ctx, &suits, &suits.n, false)
    }

    impl State {
        /// The reference's entry for `pos` searched in (alpha, beta), stored in the port's
        /// table; the solver's value `v` (if known) checked against the reference's.
        fn store(&mut self, pos: &Position, alpha: i32, beta: i32, v: Option<i32>) {
            let ctx = self.port.ctx;
            self.reference.trick = [[0; KINDS]; 4];
            let (r, rel) = self.reference.search(pos, alpha, beta);
            if let Some(v) = v {
                let ok = if v <= alpha { r <= alpha } else if v >= beta { r >= beta } else { r == v };
                assert!(ok, "solver {v} reference {r} window ({alpha}, {beta}): {pos:?}");
                self.checked += 1;
            }
            let dp = pos.defender_points;
            let (lo, hi) = if r <= alpha {
                (i32::MIN / 2, r - dp)
            } else if r >= beta {
                (r - dp, i32::MAX / 2)
            } else {
                (r - dp, r - dp)
            };
            let suits = Suits::of(pos, ctx);
            self.port.store(pos, &suits, bucket(pos, ctx), &rel, lo, hi);
        }
    }

    fn hit(pos: &Position, alpha: i32, beta: i32) {
        STATE.with(|s| {
            let mut s = s.borrow_mut();
            let s = s.as_mut().expect("a state");
            if s.open > 0 {
                return;
            }
            let level = tractor_core::rules::card::size(&pos.hands[pos.to_move as usize]).min(15);
            let ctx = s.port.ctx;
            s.by[level].hits += 1;
            let k = iso_key(pos, ctx);
            let known = s.stored.get(&k).copied();
            let tracked = s.levels >> level & 1 == 1;
            let lost = if tracked {
                let suits = Suits::of(pos, ctx);
                s.port.lookup(pos, &suits, bucket(pos, ctx), alpha, beta).is_err()
            } else {
                known.is_some_and(|(real, _)| !real)
            };
            if lost {
                let x = &mut s.by[level];
                x.lost += 1;
                x.lost_real += known.is_some_and(|(real, _)| real) as u64;
                x.lost_nodes += known.map_or(0, |(_, n)| n);
                s.stored.insert(k, (true, 0));
                if tracked {
                    s.store(pos, alpha, beta, None);
                }
            }
        });
    }

    fn event(pos: &Position, alpha: i32, beta: i32, best: Option<i32>, nodes: u64) {
        STATE.with(|s| {
            let mut s = s.borrow_mut();
            let s = s.as_mut().expect("a state");
            let level = tractor_core::rules::card::size(&pos.hands[pos.to_move as usize]).min(15);
            let ctx = s.port.ctx;
            match best {
                None => {
                    let tracked = s.levels >> level & 1 == 1;
                    s.by[level].searched += tracked as u64;
                    let (mut answered, mut bucket) = (false, 0);
                    let outside = s.open == 0;
                    if tracked && outside {
                        let suits = Suits::of(pos, ctx);
                        bucket = super::bucket(pos, ctx);
                        let got = s.port.lookup(pos, &suits, bucket, alpha, beta);
                        answered = got.is_ok();
                        if let Ok((a, _)) = got {
                            s.answers.push(a);
                        }
                        s.by[level].counted += 1;
                        s.by[level].answered += answered as u64;
                        s.open += answered as usize;
                    }
                    s.stack.push(Frame { level, tracked: tracked && outside, answered, nodes0: nodes, bucket });
                }
                Some(v) => {
                    let f = s.stack.pop().expect("a frame");
                    assert_eq!(f.level, level, "frames nest");
                    // the solver's table entry for this start: a port's too only outside
                    // answered subtrees
                    let k = iso_key(pos, ctx);
                    let real = s.open == 0;
                    let e = s.stored.entry(k).or_insert((real, 0));
                    if real || !e.0 {
                        *e = (real, nodes - f.nodes0);
                    }
                    if !f.tracked {
                        return;
                    }
                    s.by[level].below += nodes - f.nodes0;
                    if f.answered {
                        // the answer is the solver's on the same side of the window (fail-soft)
                        let a = s.answers.pop().expect("an answer");
                        let ok = if a <= alpha { v <= alpha } else if a >= beta { v >= beta } else { v == a };
                        assert!(ok, "solver {v} partition answer {a} window ({alpha}, {beta}): {pos:?}");
                        s.checked += 1;
                        s.open -= 1;
                        if s.open == 0 {
                            s.by[level].saved += nodes - f.nodes0;
                        }
                        return;
                    }
                    // the entry this search would keep: the reference's bounds and relevance
                    // in the solver's window
                    let _ = f.bucket;
                    s.store(pos, alpha, beta, Some(v));
                }
            }
        });
    }

    /// Solves `pos` with the hook on: the solver's nodes, the levels' counts, the reference's
    /// nodes and the values checked.
    pub fn run(pos: &Position) -> (u64, [Level; 16], u64, u64) {
        let ctx = pos.ctx();
        STATE.with(|s| {
            *s.borrow_mut() = Some(State { reference: Solver::new(Mode::Part, ctx), port: Solver::new(Mode::Part, ctx), levels: levels(), stack: Vec::new(), open: 0, by: [Level::default(); 16], checked: 0, answers: Vec::new(), stored: Map::default() });
        });
        let hook = &tractor_core::search::solve::hook::HOOK;
        let hits = &tractor_core::search::solve::hook::HIT;
        hook.with(|h| h.set(Some(event)));
        hits.with(|h| h.set(Some(hit)));
        let sol = solve(pos, u64::MAX).expect("solved");
        hook.with(|h| h.set(None));
        hits.with(|h| h.set(None));
        let s = STATE.with(|s| s.borrow_mut().take()).expect("a state");
        assert!(s.stack.is_empty());
        (sol.nodes, s.by, s.reference.st.nodes, s.checked)
    }
}

/// `HOOK=1`'s report: per position and in all, per level the trick starts the solver searched,
/// the share a partition entry answers, the nodes below, the table answers lost, and the
/// estimated node ratio: nodes / (nodes − saved + lost).
#[cfg(feature = "partition-hook")]
fn hook_main(k: usize, n: usize) {
    let skip: usize = std::env::var("SKIP").ok().and_then(|v| v.parse().ok()).unwrap_or(0);
    let mut all = [hooked::Level::default(); 16];
    let (mut total, mut saved_all, mut lost_all) = (0u64, 0u64, 0u64);
    let mut ratios = Vec::new();
    for (i, p) in positions(k, n).iter().enumerate().skip(skip) {
        let t = Instant::now();
        let (nodes, by, ref_nodes, checked) = hooked::run(p);
        let saved: u64 = by.iter().map(|l| l.saved).sum();
        let lost: u64 = by.iter().map(|l| l.lost_nodes).sum();
        let ratio = nodes as f64 / (nodes - saved + lost) as f64;
        let mut line = format!("pos {i}: dp {} nodes {nodes} saved {saved} lost {lost} ratio {ratio:.3} (no loss {:.3}) ref nodes {ref_nodes} checked {checked} {:.1} s |", p.defender_points, nodes as f64 / (nodes - saved) as f64, t.elapsed().as_secs_f64());
        for (l, x) in by.iter().enumerate().filter(|(_, x)| x.searched > 0 || x.lost > 0) {
            line += &format!(" L{l}: searched {} counted {} answered {} ({:.1}%) below {} saved {} hits {} lost {} ({} real) {}", x.searched, x.counted, x.answered, 100.0 * x.answered as f64 / x.counted.max(1) as f64, x.below, x.saved, x.hits, x.lost, x.lost_real, x.lost_nodes);
            let a = &mut all[l];
            (a.searched, a.counted, a.answered, a.below, a.saved) = (a.searched + x.searched, a.counted + x.counted, a.answered + x.answered, a.below + x.below, a.saved + x.saved);
            (a.hits, a.lost, a.lost_real, a.lost_nodes) = (a.hits + x.hits, a.lost + x.lost, a.lost_real + x.lost_real, a.lost_nodes + x.lost_nodes);
        }
        eprintln!("{line}");
        total += nodes;
        saved_all += saved;
        lost_all += lost;
        ratios.push(ratio);
    }
    ratios.sort_by(|a, b| a.partial_cmp(b).unwrap());
    println!(
        "k={k} n={} HOOK_LEVELS={}: nodes {total} saved {saved_all} lost {lost_all}: ratio sum {:.3} median {:.3} (without the losses: sum {:.3})",
        ratios.len(),
        std::env::var("HOOK_LEVELS").unwrap_or_else(|_| "4,5".into()),
        total as f64 / (total - saved_all + lost_all) as f64,
        ratios[ratios.len() / 2],
        total as f64 / (total - saved_all) as f64
    );
    for (l, x) in all.iter().enumerate().filter(|(_, x)| x.searched > 0 || x.lost > 0) {
        println!(
            "k={k} level {l}: searched {} counted {} answered {} ({:.1}%), nodes below counted {} ({:.1}% of all), below answered (outermost) {} ({:.1}%); table answers {} lost {} ({} real) costing {} ({:.1}%)",
            x.searched,
            x.counted,
            x.answered,
            100.0 * x.answered as f64 / x.counted.max(1) as f64,
            x.below,
            100.0 * x.below as f64 / total as f64,
            x.saved,
            100.0 * x.saved as f64 / total as f64,
            x.hits,
            x.lost,
            x.lost_real,
            x.lost_nodes,
            100.0 * x.lost_nodes as f64 / total as f64
        );
    }
}
