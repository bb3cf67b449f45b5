//! What a seat knows: its information set, derived from the hand's record (never from
//! hidden state), and what the public history proves about the other seats' hidden hands.
//!
//! Public: the deal order (first seat, cards dealt, attempts), every showing (seat, count,
//! when; its suit only where R8.2 makes it public), every trick, both teams' levels, the
//! banker, the hand's index in its match. Private to the seat: its hand, the order in which
//! its cards arrived (in every attempt), its own decisions while dealing.
//!
//! What the history proves, on each other seat's hand as it is now:
//! - **voids**: a follower who played fewer than N cards of the led class had no more of it
//!   (R5.2), and no card of that class comes back in the play phase;
//! - **upper bounds** per kind, from the ladder (R5.3): a follower who played N cards of the
//!   led class that are not one combination, without a tractor and with P < N/2 pairs, held
//!   no more pairs of that class than it played (none, if it played none); one that played no
//!   N-card unit where T1 would take one held none; one that played N ≥ 4 cards without a
//!   tractor held no two linked pairs, so a kind linked to one it played a pair of held at
//!   most one copy (R5.3 T1/T2, D1);
//! - **lower bounds** per kind: the final declarer's revealed showing (R8.2) stays in its
//!   hand until it is played (R8.6);
//! - **checks**: every follow whose legality depended on the rest of the hand, to verify in
//!   a candidate world exactly (the bounds above are necessary, the checks make them exact);
//! - **runs**: each other seat's showings, grouped into runs that share a suit (a declarer
//!   only reinforces its own suit, R8.1), with the suit where it is public.

use crate::game::hand::{Action, Game, Phase, Start, TrickRecord, NOBODY};
use crate::game::deal::shuffle;
use crate::rules::card::DECK;
use crate::rules::card::{Card, Counts, KINDS};
use crate::rules::combo::{classify, Combo};
use crate::rules::follow::{min_tractor_loss, t1_accepts, Follow};
use crate::rules::profile::Profile;
use crate::rules::trump::{Context, NONE};
use crate::util::memo::{remembered, Memo};
use crate::util::seed::{derive, DEAL};

/// A showing as the seat sees it: `suit` is `None` while hidden from it (R8.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SeenShowing {
    pub attempt: u8,
    /// Cards dealt when it was made (216 in the final round, R8.3).
    pub dealt: u8,
    /// Made in the final round (R8.3). Public, and the only way to tell the last receiver's
    /// showing in the final round from one made as it received the last card: both are at
    /// 216 cards dealt.
    pub final_round: bool,
    pub seat: u8,
    pub count: u8,
    pub suit: Option<u8>,
}

/// A follow whose legality depended on the follower's whole hand (R5.3), to recheck in a
/// candidate world: the hand then was the hand now plus `since`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FollowCheck {
    pub seat: u8,
    pub lead: Combo,
    pub play: Counts,
    /// The cards this seat played from this follow on, this one included.
    pub since: Counts,
}

/// Consecutive showings of one seat in one attempt: one suit (R8.1: 不能自反).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Run {
    pub seat: u8,
    pub attempt: u8,
    /// The suit where it is public (the seat's own, or the final revealed run).
    pub suit: Option<u8>,
    /// (cards dealt, count) of each showing in the run.
    pub showings: Vec<(u8, u8)>,
}

/// Everything one seat knows about a hand, and nothing more.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InfoSet {
    pub seat: u8,
    pub profile: Profile,
    pub levels: [u8; 2],
    /// The hand's level L (R2.1).
    pub level: u8,
    /// The banker, or [`NOBODY`] until a first hand's deal ends (R8.4).
    pub banker: u8,
    /// The banker the hand started with ([`NOBODY`]: a match's first hand, R8.4).
    pub start_banker: u8,
    pub hand_index: u32,
    pub phase: Phase,
    /// How the hand began: dealt (true) or from given hands.
    pub dealt_hand: bool,
    /// Every receiver decided after every card (public: the deal's mode, see
    /// [`crate::game::hand::Record::every_receiver`]); then the turn order proves nothing.
    pub every_receiver: bool,
    /// Per deal attempt: the first receiver (public, R1.3).
    pub first_seats: Vec<u8>,
    /// Cards dealt so far in the current attempt.
    pub dealt: u8,
    /// R8.3 chances taken after the deal.
    pub final_round: u8,
    /// The trump suit once public, else [`NOBODY`].
    pub trump: u8,
    /// The current declarer and the count shown (public); the suit only where known.
    pub declarer: u8,
    pub declared_count: u8,
    pub declared_suit: Option<u8>,
    pub showings: Vec<SeenShowing>,
    /// The seat's own cards in arrival order, per attempt.
    pub arrivals: Vec<Vec<u8>>,
    /// The seat's own decisions while dealing, in order: (attempt, cards dealt, action).
    pub own_decisions: Vec<(u8, u8, Action)>,
    /// Who was asked to decide while dealing, in order, the seat asked now last while the
    /// deal goes on: (attempt, cards dealt, seat). Public: in the default deal mode the deal
    /// skips seats with nothing to show (D7), so a seat asked could show then and a seat
    /// skipped could not; with `every_receiver` the sequence follows from the deal's mode.
    pub asked: Vec<(u8, u8, u8)>,
    pub hand: Counts,
    pub hand_sizes: [u8; 4],
    /// Cards each seat has played in this hand (public).
    pub played: [Counts; 4],
    pub tricks: Vec<TrickRecord>,
    pub current: Vec<(u8, Counts)>,
    pub to_move: Option<u8>,
    pub defender_points: i32,
    /// Copies of each kind the seat cannot see: in the other hands or undealt. (In a hand
    /// from given hands the cards in play, the four hands together, are public, and the rest
    /// of the decks is out of play.)
    pub unseen: Counts,
    /// Per seat and kind, what its hand now must hold at least and can hold at most (the
    /// seat's own hand: exactly).
    pub lower: [Counts; 4],
    pub upper: [Counts; 4],
    pub checks: Vec<FollowCheck>,
    pub runs: Vec<Run>,
}

impl InfoSet {
    /// The suit classes (0..4 plain suits, 4 trump) in which `seat` is proven void, once
    /// the trump suit is public.
    pub fn voids(&self) -> [[bool; 5]; 4] {
        let mut v = [[false; 5]; 4];
        if self.trump == NOBODY {
            return v;
        }
        let ctx = self.ctx();
        for (p, row) in v.iter_mut().enumerate() {
            for (class, cell) in row.iter_mut().enumerate() {
                *cell = ctx.class_kinds(class as u8).iter().all(|&k| self.upper[p][k as usize] == 0);
            }
        }
        v
    }

    /// The rules context (the trump suit must be public).
    pub fn ctx(&self) -> &'static Context {
        Context::get(self.level, self.trump, self.profile).expect("trump public")
    }
}

/// Shuffled decks kept per thread, by their seed (the last few hands' attempts): every info
/// set of a hand reads the seat's arrivals from its attempts' decks (R1.3), each a shuffle of
/// 216 cards.
const DECKS_KEPT: usize = 4;

thread_local! {
    static DECKS: std::cell::RefCell<Vec<(u64, ([u8; DECK], u8))>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// `g.attempt_deck(r)` of a dealt hand; a shuffled one kept per thread by its seed (a cache:
/// `shuffle` is a function of the seed alone).
fn kept_deck(g: &Game, r: u8) -> ([u8; DECK], u8) {
    let seed = match &g.record.start {
        Start::Deal { hand_seed, decks, .. } if decks.get(r as usize).is_none() => derive(*hand_seed, DEAL, r as u64),
        _ => return g.attempt_deck(r).expect("a dealt hand"),
    };
    DECKS.with(|d| {
        let mut d = d.borrow_mut();
        if let Some(k) = d.iter().find(|k| k.0 == seed) {
            return k.1;
        }
        let deck = shuffle(seed);
        if d.len() == DECKS_KEPT {
            d.remove(0);
        }
        d.push((seed, deck));
        deck
    })
}

impl Game {
    /// What `seat` knows now (see the module documentation).
    pub fn info(&self, seat: u8) -> InfoSet {
        let pos = &self.pos;
        let dealing = pos.phase == Phase::Declare;
        let (attempts, start_banker) = match &self.record.start {
            // a stopped hand (R8.5) counted its last attempt as a redeal
            Start::Deal { banker, .. } => (pos.redeals as usize + (pos.phase != Phase::Stopped) as usize, *banker),
            Start::Hands { banker, .. } => (0, *banker),
        };
        let mut first_seats = Vec::with_capacity(attempts);
        let mut arrivals = Vec::with_capacity(attempts);
        for r in 0..attempts {
            let (deck, first) = kept_deck(self, r as u8);
            let dealt = if r + 1 == attempts { pos.dealt as usize } else { DECK };
            first_seats.push(first);
            // (the cards t with (first + t) % 4 == seat: every fourth from the seat's first)
            let own = (seat as usize + 4 - first as usize % 4) % 4;
            arrivals.push((own..dealt).step_by(4).map(|t| deck[t]).collect());
        }
        let showings = seen_showings(self, seat, &first_seats);
        let own_decisions = own_decisions(self, seat);
        let mut asked: Vec<(u8, u8, u8)> =
            self.record.dealt_at.iter().zip(&self.record.actions).map(|(t, (s, _))| (t.0, t.1, *s)).collect();
        if dealing {
            asked.push((pos.redeals, pos.dealt, pos.to_move));
        }
        let mut played = [[0u8; KINDS]; 4];
        for t in &self.record.tricks {
            for (s, c) in &t.plays {
                add(&mut played[*s as usize], c);
            }
        }
        for (s, c) in &self.record.current {
            add(&mut played[*s as usize], c);
        }
        let hand = pos.hands[seat as usize];
        // A hand from given hands: the cards in play (the four hands) are public, the rest
        // of the four decks is out of play; a dealt hand plays all 216 cards (R1.3).
        let mut unseen = match &self.record.start {
            Start::Hands { hands, .. } => std::array::from_fn(|k| hands.iter().map(|h| h[k]).sum::<u8>()),
            Start::Deal { .. } => [4u8; KINDS],
        };
        for k in 0..KINDS {
            unseen[k] -= hand[k] + played.iter().map(|p| p[k]).sum::<u8>();
        }
        let hand_sizes = std::array::from_fn(|s| crate::rules::card::size(&pos.hands[s]) as u8);
        let mut lower = [[0u8; KINDS]; 4];
        let mut upper = [unseen; 4];
        lower[seat as usize] = hand;
        upper[seat as usize] = hand;
        let trump_public = !dealing && pos.trump != NOBODY;
        let mut info = InfoSet {
            seat,
            profile: pos.profile,
            levels: self.levels,
            level: pos.level,
            banker: pos.banker,
            start_banker,
            hand_index: self.hand_index,
            phase: pos.phase,
            dealt_hand: attempts > 0,
            every_receiver: self.record.every_receiver,
            first_seats,
            dealt: pos.dealt,
            final_round: pos.final_round,
            trump: if trump_public { pos.trump } else { NOBODY },
            declarer: pos.declarer,
            declared_count: pos.declared_count,
            declared_suit: (pos.declarer != NOBODY && (pos.declarer == seat || trump_public))
                .then_some(pos.declared_suit),
            showings,
            arrivals,
            own_decisions,
            asked,
            hand,
            hand_sizes,
            played,
            tricks: self.record.tricks.clone(),
            current: self.record.current.clone(),
            to_move: (matches!(pos.phase, Phase::Declare | Phase::Play) && (!dealing || pos.to_move == seat))
                .then_some(pos.to_move),
            defender_points: pos.defender_points,
            unseen,
            lower,
            upper,
            checks: Vec::new(),
            runs: Vec::new(),
        };
        info.runs = runs(&info.showings);
        info.prove_from_small_joker();
        if trump_public {
            info.prove_from_play();
            info.prove_from_reveal();
        }
        info
    }
}

fn add(a: &mut Counts, b: &Counts) {
    for (x, y) in a.iter_mut().zip(b) {
        *x += y;
    }
}

/// Per kind of the led class: the most copies a follower who played `x` (N cards of the led
/// class, not one combination T1 accepts) can have held then, as the ladder itself decides
/// (R5.3; C4/C5 under the competition follow rule). Legality is monotone in the holding: a
/// play legal from a holding is legal from every smaller holding that still contains it
/// (tested, `tests/determinize.rs`), so the play is illegal from every holding with `h`
/// copies of kind `k` once it is illegal from the play with copies of `k` added up to `h`.
/// Each cap is the largest `h` that stays legal: the exact bound one kind alone can give
/// (T1's unit, T3's pairs, the tractors a pair beside a played one would make, C5's keys, and
/// T3's pairs beside a played tractor, which no hand-written bound covered). What no single
/// kind shows (two unplayed linked pairs, say) is left to the follow's check.
///
/// The legal counts of a kind being those up to its cap, the cap of a kind the play holds
/// none of is found from two counts first (a pair held then, R5.3 T3): two illegal leaves 1
/// (one copy is always legal, `kind_cap`), else four legal is the cap, else three or two;
/// these are most of the follows' kinds (mid-hand the caps 1 and 3 most often), at one to
/// three legality calls instead of up to four. Other kinds count up from the play's copies.
/// The play's side of each legality call (`Follow::fault_from`) is read once.
///
/// A kind with no linked kind (R3.3) held twice in the play is in no tractor of any holding
/// that adds copies of it alone (a tractor's units hold two copies or more, R3.2), so such a
/// holding is the play's plus one unit standing alone: its ladder (R5.3 T1–T4, C4–C5) reads
/// the kind only through its count. Such kinds with the same count in the play have one cap,
/// found once (`ladder_caps_plain`, the twin, asks every kind).
pub fn ladder_caps(ctx: &Context, lead: &Combo, x: &Counts) -> Counts {
    // what the ladder reads of the play (R5.2–R5.3: its cards of the class, T1's verdict, its
    // pairs, what a tractor of l cards in it costs them), found once for every holding asked
    let in_class = ctx.class_kinds(lead.class).iter().map(|&k| x[k as usize] as u32).sum::<u32>();
    let t1 = classify(ctx, x).is_some_and(|c| t1_accepts(ctx, lead, &c));
    let pairs = crate::rules::follow::pairs(ctx, lead.class, x);
    let mut loss = [None; 64];
    let mut legal = |then: &Counts| {
        let f = Follow::new(ctx, then, *lead);
        f.fault_from(x, in_class, || t1, || pairs, |l| match loss.get_mut(l as usize) {
            Some(known) => *known.get_or_insert_with(|| min_tractor_loss(ctx, lead.class, x, l)),
            None => min_tractor_loss(ctx, lead.class, x, l),
        })
        .is_none()
    };
    let mut caps = *x;
    let mut then = *x;
    // the cap of the lone kinds by their count in the play (u8::MAX: not found yet)
    let mut lone = [u8::MAX; 5];
    for &k in ctx.class_kinds(lead.class) {
        let k = k as usize;
        // (a play holds at most four copies of a kind, R1.2: `lone` has a place for each)
        let alone = x[k] < 5 && [ctx.up[k], ctx.down[k]].iter().all(|&j| j == NONE || x[j as usize] < 2);
        if alone && lone[x[k] as usize] != u8::MAX {
            caps[k] = lone[x[k] as usize];
            continue;
        }
        caps[k] = kind_cap(&mut legal, x, &mut then, k, false);
        if alone {
            lone[x[k] as usize] = caps[k];
        }
    }
    caps
}

/// The cap of kind `k` (see [`ladder_caps`]) by `legal` on holdings: `then` is the play, left
/// so. One copy of a kind the play holds none of is always legal (a single card adds no unit,
/// pair or tractor, R3.1–R3.2: the play keeps every measure the holding allows, R5.3, C4–C5);
/// `ask_one` asks it all the same (the twin).
fn kind_cap(legal: &mut impl FnMut(&Counts) -> bool, x: &Counts, then: &mut Counts, k: usize, ask_one: bool) -> u8 {
    let mut legal = |h: u8| {
        then[k] = h;
        legal(then)
    };
    let cap = if x[k] == 0 {
        if !legal(2) {
            if ask_one {
                legal(1) as u8
            } else {
                1
            }
        } else if legal(4) {
            4
        } else {
            2 + legal(3) as u8
        }
    } else {
        let mut cap = x[k];
        while cap < 4 && legal(cap + 1) {
            cap += 1;
        }
        cap
    };
    then[k] = x[k];
    cap
}

/// The twin of [`ladder_caps`]: every kind of the led class asked on its own, every count by
/// the whole follow ([`Follow::is_legal`]).
#[cfg(test)]
fn ladder_caps_plain(ctx: &Context, lead: &Combo, x: &Counts) -> Counts {
    let mut caps = *x;
    let mut then = *x;
    let mut legal = |then: &Counts| Follow::new(ctx, then, *lead).is_legal(x);
    for &k in ctx.class_kinds(lead.class) {
        caps[k as usize] = kind_cap(&mut legal, x, &mut then, k as usize, true);
    }
    caps
}

/// The caps of a follow kept per thread (a cache: it changes no bound, only its cost). Every
/// decision's info set proves every follow of the hand again, and asking the ladder costs
/// tens of legality calls a follow; kept, each follow is asked once. Keyed by the rules
/// context, the lead and the play's led-class counts (three bits a kind: at most 21 kinds).
type CapsMemo = Memo<(usize, Combo, u64), Counts>;

/// Caps kept at most per thread (about 1 MB), the memo emptied when full.
const CAPS_KEPT: usize = 8192;

thread_local! {
    static CAPS: std::cell::RefCell<CapsMemo> = std::cell::RefCell::new(CapsMemo::default());
}

fn remembered_caps(ctx: &'static Context, lead: &Combo, x: &Counts) -> Counts {
    let kinds = ctx.class_kinds(lead.class);
    if kinds.len() * 3 > 64 {
        return ladder_caps(ctx, lead, x);
    }
    let packed = kinds.iter().fold(0u64, |acc, &k| acc << 3 | x[k as usize] as u64);
    remembered(&CAPS, CAPS_KEPT, (ctx as *const Context as usize, *lead, packed), || ladder_caps(ctx, lead, x))
}

/// R8.2: the showings as `seat` sees them. Its own carry their suits; after the deal the
/// final declarer's last uninterrupted run in the final attempt is revealed with the trump
/// suit; every other suit stays hidden.
fn seen_showings(g: &Game, seat: u8, first_seats: &[u8]) -> Vec<SeenShowing> {
    let log = &g.record.showings;
    let mut revealed = 0; // the last `revealed` entries of the log
    if g.pos.phase != Phase::Declare {
        if let Some(last) = log.last() {
            revealed =
                log.iter().rev().take_while(|s| s.attempt == last.attempt && s.seat == g.pos.declarer).count();
        }
    }
    let finals = final_round_showings(g, first_seats);
    log.iter()
        .zip(finals)
        .enumerate()
        .map(|(i, (s, final_round))| SeenShowing {
            attempt: s.attempt,
            dealt: s.dealt,
            final_round,
            seat: s.seat,
            count: s.count,
            suit: (s.seat == seat || i >= log.len() - revealed).then_some(s.suit),
        })
        .collect()
}

/// For each showing in the log, whether it was made in the final round (R8.3). At 216 cards
/// dealt the deal asks the last receiver first, as it receives (when it may show, D7), then
/// each seat in the final round: so a decision there is in the final round unless it is the
/// first at 216 of its attempt and the last receiver's. (Skipped as it received, the last
/// receiver is asked in the final round only after another seat's showing changed what it
/// may show, which comes first.) `first_seats`: each attempt's first receiver.
fn final_round_showings(g: &Game, first_seats: &[u8]) -> Vec<bool> {
    let mut out = Vec::with_capacity(g.record.showings.len());
    let mut at_end: Option<u8> = None; // the attempt whose first decision at 216 was seen
    for ((seat, a), &(attempt, dealt)) in g.record.actions.iter().zip(&g.record.dealt_at) {
        let mut final_round = false;
        if dealt as usize == DECK {
            final_round = true;
            if at_end != Some(attempt) {
                at_end = Some(attempt);
                let first = first_seats.get(attempt as usize).copied().unwrap_or(0);
                final_round = *seat != ((first as usize + DECK - 1) % 4) as u8;
            }
        }
        if matches!(a, Action::Declare { .. }) {
            out.push(final_round);
        }
    }
    out
}

/// The seat's own decisions while dealing, with the attempt and cards dealt at each.
fn own_decisions(g: &Game, seat: u8) -> Vec<(u8, u8, Action)> {
    g.record.actions.iter().zip(&g.record.dealt_at).filter(|((s, _), _)| *s == seat).map(|((_, a), t)| (t.0, t.1, *a)).collect()
}

/// Groups the showing log into runs: consecutive showings of one seat in one attempt.
fn runs(showings: &[SeenShowing]) -> Vec<Run> {
    let mut out: Vec<Run> = Vec::new();
    for s in showings {
        match out.last_mut() {
            Some(r) if r.seat == s.seat && r.attempt == s.attempt => {
                r.showings.push((s.dealt, s.count));
                r.suit = r.suit.or(s.suit);
            }
            _ => out.push(Run { seat: s.seat, attempt: s.attempt, suit: s.suit, showings: vec![(s.dealt, s.count)] }),
        }
    }
    out
}

/// The proof of a hand's finished tricks (R5.2–R5.3) for one seat, the other seats' follows,
/// read forwards: a
/// follow of seat s at trick i bounds s's hand now by `caps − since` (saturating), `since`
/// the cards s played from trick i on, that is `played now − before` with `before` what s
/// played in the tricks before i. So every follow's bound is `(caps + before) − played now`
/// (saturating, monotone in the first term): the least `caps + before` over the follows
/// (`most`; 0 for a void) gives every bound at once, and it changes only with new follows.
/// Kept per thread (a cache: it changes no bound and no check), each later info set of the
/// hand proves only the tricks finished since.
#[derive(Clone, Debug)]
struct Proven {
    /// The rules context the tricks were read in, and the seat whose follows are not read.
    ctx: usize,
    seat: u8,
    tricks: Vec<TrickRecord>,
    /// Per seat and kind: the least `caps + before` of its follows (`u8::MAX`: no bound).
    most: [Counts; 4],
    /// Per seat: the cards it played in `tricks`.
    before: [Counts; 4],
    /// The checks in the info set's order (tricks in order, each trick's followers last to
    /// first), each with `since` holding its `before`.
    checks: Vec<FollowCheck>,
}

impl Proven {
    fn new(ctx: &'static Context, seat: u8) -> Proven {
        Proven { ctx: ctx as *const Context as usize, seat, tricks: Vec::new(), most: [[u8::MAX; KINDS]; 4], before: [[0; KINDS]; 4], checks: Vec::new() }
    }

    /// Proves the follows of one trick (finished or not) after those proved: `most` and the
    /// checks; `before` is left to the caller.
    fn prove_trick(&mut self, ctx: &'static Context, plays: &[(u8, Counts)]) {
        let Some((_, lead_cards)) = plays.first() else { return };
        let lead = classify(ctx, lead_cards).expect("a recorded lead is a combination");
        for &(s, ref x) in plays.iter().skip(1).rev() {
            if s != self.seat {
                self.prove_follow(ctx, s, lead, x);
            }
        }
    }

    fn prove_follow(&mut self, ctx: &'static Context, s: u8, lead: Combo, x: &Counts) {
        let n = lead.size() as u8;
        let kinds = ctx.class_kinds(lead.class);
        let in_class: u8 = kinds.iter().map(|&k| x[k as usize]).sum();
        let (most, before) = (&mut self.most[s as usize], &self.before[s as usize]);
        if in_class < n {
            // R5.2: all of the class was played; none can come back
            for &k in kinds {
                most[k as usize] = 0;
            }
            return;
        }
        if classify(ctx, x).is_some_and(|c| t1_accepts(ctx, &lead, &c)) {
            return; // one combination that T1 accepts: legal whatever else was held
        }
        // Otherwise the play met the ladder (R5.3; C4/C5 in the competition profile) from the
        // class as it was held then, and the ladder itself bounds every kind of it.
        let caps = remembered_caps(ctx, &lead, x);
        for &k in kinds {
            let k = k as usize;
            // (caps ≤ 4 and before ≤ 4: no overflow)
            most[k] = most[k].min(caps[k] + before[k]);
        }
        self.checks.push(FollowCheck { seat: s, lead, play: *x, since: *before });
    }
}

/// Proofs kept per thread: the last few hands' seats' (a search or a game asks one hand's info
/// sets in turn).
const PROOFS_KEPT: usize = 8;

thread_local! {
    // (boxed: the list reorders pointers, not proofs of a kilobyte)
    #[allow(clippy::vec_box)]
    static PROOFS: std::cell::RefCell<Vec<Box<Proven>>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// The kept proof of `tricks` in `ctx` for `seat`, extended by the tricks finished since; a proof whose
/// tricks are not the first of these is not read (the longest that is, else a new one).
fn proven_with<T>(ctx: &'static Context, seat: u8, tricks: &[TrickRecord], read: impl FnOnce(&Proven) -> T) -> T {
    PROOFS.with(|p| {
        let mut p = p.borrow_mut();
        let key = ctx as *const Context as usize;
        let best = (0..p.len()).filter(|&i| p[i].ctx == key && p[i].seat == seat && tricks.starts_with(&p[i].tricks)).max_by_key(|&i| p[i].tricks.len());
        let mut e = match best {
            Some(i) => p.remove(i),
            None => {
                if p.len() == PROOFS_KEPT {
                    p.remove(0);
                }
                Box::new(Proven::new(ctx, seat))
            }
        };
        // (the lists grown once for the new tricks: no copies as they grow)
        let new = &tricks[e.tricks.len()..];
        e.tricks.reserve(new.len());
        e.checks.reserve(3 * new.len());
        for t in new {
            e.prove_trick(ctx, &t.plays);
            for (s, c) in &t.plays {
                add(&mut e.before[*s as usize], c);
            }
            e.tricks.push(*t);
        }
        let out = read(&e);
        p.push(e);
        out
    })
}

impl InfoSet {
    /// Voids, ladder bounds and checks from every follow of the other seats (R5.2–R5.3): the
    /// finished tricks' proof kept per thread ([`Proven`]), then the trick in progress.
    fn prove_from_play(&mut self) {
        let ctx = self.ctx();
        let (seat, current) = (self.seat, std::mem::take(&mut self.current));
        let (most, checks) = proven_with(ctx, seat, &self.tricks, |e| {
            let mut e2 = Proven { tricks: Vec::new(), checks: Vec::new(), ..*e };
            e2.prove_trick(ctx, &current);
            let checks: Vec<FollowCheck> = e.checks.iter().chain(&e2.checks).copied().collect();
            (e2.most, checks)
        });
        self.current = current;
        for s in (0..4).filter(|&s| s != seat as usize) {
            for ((up, m), p) in self.upper[s].iter_mut().zip(&most[s]).zip(&self.played[s]) {
                *up = (*up).min(m.saturating_sub(*p));
            }
        }
        self.checks = checks;
        for c in self.checks.iter_mut() {
            // since = played now − before
            for (x, p) in c.since.iter_mut().zip(&self.played[c.seat as usize]) {
                *x = p - *x;
            }
        }
    }

    /// The twin of [`InfoSet::prove_from_play`]: every follow proved again, walking the
    /// tricks backwards with the cards played since (the proof before it was kept).
    #[cfg(test)]
    fn prove_from_play_plain(&mut self) {
        let ctx = self.ctx();
        let tricks = std::mem::take(&mut self.tricks);
        let current = std::mem::take(&mut self.current);
        let mut since = [[0u8; KINDS]; 4];
        let mut found: Vec<FollowCheck> = Vec::new();
        for plays in tricks.iter().map(|t| t.plays.as_slice()).chain(std::iter::once(current.as_slice())).rev() {
            let Some((_, lead_cards)) = plays.first() else { continue };
            let lead = classify(ctx, lead_cards).expect("a recorded lead is a combination");
            for (s, x) in plays.iter().rev() {
                add(&mut since[*s as usize], x);
            }
            for &(s, ref x) in plays.iter().skip(1) {
                if s == self.seat {
                    continue;
                }
                self.prove_follow_plain(ctx, s, lead, x, &since[s as usize], &mut found);
            }
        }
        found.reverse();
        self.checks = found;
        self.tricks = tricks;
        self.current = current;
    }

    #[cfg(test)]
    fn prove_follow_plain(&mut self, ctx: &'static Context, s: u8, lead: Combo, x: &Counts, since: &Counts, checks: &mut Vec<FollowCheck>) {
        let n = lead.size() as u8;
        let kinds = ctx.class_kinds(lead.class);
        let in_class: u8 = kinds.iter().map(|&k| x[k as usize]).sum();
        let up = &mut self.upper[s as usize];
        if in_class < n {
            for &k in kinds {
                up[k as usize] = 0;
            }
            return;
        }
        if classify(ctx, x).is_some_and(|c| t1_accepts(ctx, &lead, &c)) {
            return;
        }
        let caps = ladder_caps(ctx, &lead, x);
        for &k in kinds {
            let k = k as usize;
            up[k] = up[k].min(caps[k].saturating_sub(since[k]));
        }
        checks.push(FollowCheck { seat: s, lead, play: *x, since: *since });
    }
}

impl InfoSet {
    /// C9: in a competition match's first hand, a showing that sets or overturns the suit
    /// includes a small joker from the shower's hand. Every run of showings begins with one
    /// (a run is one seat's consecutive showings), so each other seat that showed in this
    /// attempt held a small joker then, and holds one now unless it has played one since.
    fn prove_from_small_joker(&mut self) {
        if !self.dealt_hand || !self.profile.rules().first_hand_small_joker || self.start_banker != NOBODY {
            return;
        }
        let attempt = self.first_seats.len() as u8 - 1;
        let k = crate::rules::card::SJ.id();
        for r in 0..self.runs.len() {
            let s = self.runs[r].seat as usize;
            if s != self.seat as usize && self.runs[r].attempt == attempt {
                self.lower[s][k] = self.lower[s][k].max(1u8.saturating_sub(self.played[s][k]));
            }
        }
    }

    /// R8.2/R8.6: the final declarer showed `count` level cards of the trump suit; they stay
    /// in its hand until played.
    fn prove_from_reveal(&mut self) {
        if !self.dealt_hand || self.declarer == NOBODY || self.declarer == self.seat {
            return;
        }
        let Some(run) = self.runs.last() else { return };
        let Some(suit) = run.suit else { return };
        let shown = run.showings.last().map_or(0, |s| s.1);
        let k = Card::new(suit, self.level).id();
        let d = self.declarer as usize;
        self.lower[d][k] = self.lower[d][k].max(shown.saturating_sub(self.played[d][k]));
    }

    /// Does `hands` (each seat's hand now) satisfy every bound and check this seat knows?
    pub fn admits(&self, hands: &[Counts; 4]) -> bool {
        for ((hand, lo), hi) in hands.iter().zip(&self.lower).zip(&self.upper) {
            if hand.iter().zip(lo).zip(hi).any(|((h, l), u)| h < l || h > u) {
                return false;
            }
        }
        self.passes_checks(hands)
    }

    /// The ladder checks alone (R5.3), on hands that meet the bounds.
    pub fn passes_checks(&self, hands: &[Counts; 4]) -> bool {
        if self.checks.is_empty() {
            return true;
        }
        self.checks.iter().all(|c| self.passes_check(c, &hands[c.seat as usize]))
    }

    /// One ladder check (R5.3) on the follower's hand now: the follow was legal from that
    /// hand plus the cards played since. Reads only the led class's kinds of `hand`.
    pub fn passes_check(&self, c: &FollowCheck, hand: &Counts) -> bool {
        let mut then = *hand;
        add(&mut then, &c.since);
        crate::rules::follow::Follow::new(self.ctx(), &then, c.lead).is_legal(&c.play)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `g.info(seat)` with its play proved from scratch ([`InfoSet::prove_from_play_plain`]).
    fn info_plain(g: &Game, seat: u8) -> InfoSet {
        let mut i = g.info(seat);
        if i.trump != NOBODY && i.phase != Phase::Declare {
            for s in (0..4).filter(|&s| s != seat as usize) {
                i.upper[s] = i.unseen;
            }
            i.checks.clear();
            i.prove_from_play_plain();
        }
        i
    }

    /// The twin of the kept proofs ([`Proven`]): every seat's info set at every decision of
    /// hundreds of random hands (every profile) equals the one proved from scratch, with the
    /// hands taken in turns of more than are kept, each decision also asked after one from
    /// the hand's past (a proof that is not a prefix, or a longer one than asked).
    #[test]
    fn kept_proofs_equal_proofs_from_scratch() {
        let hands = if cfg!(debug_assertions) { 24 } else { 300 };
        let per_turn = PROOFS_KEPT as u64 + 2;
        let (mut decisions, mut checks) = (0, 0);
        for first in (0..hands).step_by(per_turn as usize) {
            let mut games: Vec<(Game, Vec<Action>, Vec<Game>)> = (first..(first + per_turn).min(hands))
                .map(|seed| {
                    // (hand `seed` of profile `seed % 3` played by uniform draws over the legal
                    // actions, showings included)
                    let profile = Profile::ALL[(seed % 3) as usize];
                    let start = Game::deal(seed, profile, [3, 3], NOBODY, None).unwrap();
                    let (mut g, mut rng, mut actions) = (start.clone(), crate::util::rng::Rng::new(seed), Vec::new());
                    while let Some(a) = crate::game::action_set::ActionSet::of(&g.pos).sample(&mut rng) {
                        g.apply(&a).unwrap();
                        actions.push(a);
                    }
                    (start, actions, Vec::new())
                })
                .collect();
            let longest = games.iter().map(|g| g.1.len()).max().unwrap_or(0);
            for step in 0..longest {
                for (g, actions, past) in games.iter_mut() {
                    let Some(a) = actions.get(step) else { continue };
                    g.apply(a).unwrap();
                    if g.pos.phase != Phase::Play {
                        continue;
                    }
                    past.push(g.clone());
                    let back = &past[(step * 7919) % past.len()];
                    for seat in 0..4u8 {
                        for h in [&*g, back, &*g] {
                            let (kept, plain) = (h.info(seat), info_plain(h, seat));
                            assert_eq!(kept, plain);
                            checks += kept.checks.len();
                        }
                        decisions += 1;
                    }
                }
            }
        }
        assert!(decisions > 1000 && checks > 1000, "{decisions} decisions, {checks} checks");
    }

    /// The twin of [`ladder_caps`]'s lone kinds found once: the caps equal those of every
    /// kind asked on its own ([`ladder_caps_plain`]), for thousands of plays of N cards of
    /// the led class that T1 does not accept (R5.3; C4–C5), in every profile: each lead any
    /// leader of random hands could make (every shape they hold), against random plays of its
    /// class (singles, pairs, linked pairs, triples and bombs mixed) and the follows drawn.
    #[test]
    fn ladder_caps_equal_every_kind_asked() {
        use crate::game::action_set::ActionSet;
        let (mut plays, mut lone) = (0usize, 0usize);
        for seed in 0..if cfg!(debug_assertions) { 6 } else { 30 } {
            let profile = Profile::ALL[(seed % 3) as usize];
            let mut g = Game::deal(seed ^ 0x1ad, profile, [3, 3], NOBODY, None).unwrap();
            let mut rng = crate::util::rng::Rng::new(seed ^ 0x1ad);
            while let Some(a) = ActionSet::of(&g.pos).sample(&mut rng) {
                if g.pos.phase == Phase::Play {
                    let ctx = g.pos.ctx();
                    let mut leads = match g.pos.lead() {
                        Some(lead) => vec![lead],
                        None => g.pos.leads(),
                    };
                    // and a tractor of any shape of a random class (the bombs' too)
                    let (class, m, k) = (rng.below_usize(5) as u8, 2 + rng.below_usize(3) as u8, 2 + rng.below_usize(3) as u8);
                    let mut all = Vec::new();
                    crate::rules::combo::for_each_tractor(ctx, class, &[4; KINDS], m, k, k, |first, k| all.push(crate::rules::combo::tractor(ctx, first, m, k)));
                    if !all.is_empty() {
                        leads.push(all[rng.below_usize(all.len())]);
                    }
                    for (i, lead) in leads.iter().enumerate() {
                        if lead.size() < 2 || (i % 3 != 0 && i + 1 < leads.len() && leads.len() > 12) {
                            continue;
                        }
                        let class = ctx.class_kinds(lead.class);
                        let n = lead.size();
                        let mut xs: Vec<Counts> = Vec::new();
                        if let (Some(_), Action::Play(x)) = (g.pos.lead(), &a) {
                            xs.push(*x);
                        }
                        for _ in 0..if n >= 6 { 24 } else { 6 } {
                            // n cards of the class: runs of 1-4 copies of a kind, at times its
                            // linked kind next
                            let mut x = [0u8; KINDS];
                            let mut left = n;
                            let mut k = class[rng.below_usize(class.len())] as usize;
                            while left > 0 {
                                if rng.below_usize(3) == 0 || x[k] == 4 || ctx.up[k] == NONE {
                                    k = class[rng.below_usize(class.len())] as usize;
                                } else if ctx.class[ctx.up[k] as usize] == lead.class {
                                    k = ctx.up[k] as usize;
                                }
                                let c = (1 + rng.below_usize(4)).min(left).min(4 - x[k] as usize);
                                x[k] += c as u8;
                                left -= c;
                            }
                            xs.push(x);
                        }
                        for x in xs {
                            let in_class: usize = class.iter().map(|&k| x[k as usize] as usize).sum();
                            if in_class != n || classify(ctx, &x).is_some_and(|c| t1_accepts(ctx, lead, &c)) {
                                continue;
                            }
                            let caps = ladder_caps(ctx, lead, &x);
                            assert_eq!(caps, ladder_caps_plain(ctx, lead, &x), "{profile:?} lead {lead:?} play {x:?}");
                            plays += 1;
                            lone += class.iter().filter(|&&k| [ctx.up[k as usize], ctx.down[k as usize]].iter().all(|&j| j == NONE || x[j as usize] < 2)).count();
                        }
                    }
                }
                g.apply(&a).unwrap();
            }
        }
        eprintln!("{plays} plays, {lone} lone kinds");
        assert!(plays > if cfg!(debug_assertions) { 1000 } else { 5000 }, "{plays} plays");
    }

    /// A seat's arrivals are the cards dealt to it, by the deal's order (R1.3): the plain
    /// filter over every card dealt, at every decision of hands dealt with redeals.
    #[test]
    fn arrivals_are_the_cards_dealt_to_the_seat() {
        let mut seen = 0;
        for seed in 0..24u64 {
            let profile = Profile::ALL[(seed % 3) as usize];
            let mut g = Game::deal(seed, profile, [3, 3], NOBODY, None).unwrap();
            let mut rng = crate::util::rng::Rng::new(seed);
            while let Some(a) = crate::game::action_set::ActionSet::of(&g.pos).sample(&mut rng) {
                for seat in 0..4u8 {
                    let info = g.info(seat);
                    for (r, got) in info.arrivals.iter().enumerate() {
                        let (deck, first) = g.attempt_deck(r as u8).unwrap();
                        let dealt = if r + 1 == info.arrivals.len() { g.pos.dealt as usize } else { DECK };
                        let want: Vec<u8> = (0..dealt).filter(|&t| (first as usize + t) % 4 == seat as usize).map(|t| deck[t]).collect();
                        assert_eq!(*got, want, "seed {seed}, seat {seat}, attempt {r}");
                        seen += 1;
                    }
                }
                g.apply(&a).unwrap();
                if g.pos.phase == Phase::Play {
                    break;
                }
            }
        }
        assert!(seen > 1000, "{seen} arrivals");
    }

    #[test]
    fn kept_decks_are_the_attempts_decks() {
        // more hands than are kept, each asked twice in turn; a given first deck is read
        // from the record, not the cache
        let hands: Vec<Game> = (0..2 * DECKS_KEPT as u64).map(|s| Game::deal(s, Profile::Guigang, [3, 3], NOBODY, None).unwrap()).collect();
        let given = crate::game::deal::shuffle(99);
        let fixed = Game::deal(0, Profile::Guigang, [3, 3], NOBODY, Some(given)).unwrap();
        for _ in 0..2 {
            for g in &hands {
                for r in 0..3 {
                    assert_eq!(kept_deck(g, r), g.attempt_deck(r).unwrap());
                }
            }
            assert_eq!(kept_deck(&fixed, 0), given);
            assert_eq!(kept_deck(&fixed, 1), fixed.attempt_deck(1).unwrap());
        }
    }
}
