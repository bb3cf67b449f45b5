//! The action ids against brute force: on positions from real play (leads and follows, void
//! followers included, both profiles), the id sequences reachable through the masks are
//! exactly the legal plays. Small sets are walked in full and compared with the engine's
//! enumeration and with a brute-force enumeration of every N-card selection of the hand
//! checked by `check_play`, under all three profiles; large ones (void followers with thousands of plays) are checked by
//! counting: the masks computed by listing and by the ladder's programme agree at every node
//! visited, random walks through the masks always end in a legal play, and uniformly drawn
//! legal plays always pass the masks id by id.

use std::collections::BTreeSet;

use tractor_core::encode::actions::{encode, Builder, Stepped, ACTIONS, END_LEAD};
use tractor_core::game::action_set::ActionSet;
use tractor_core::game::hand::{Action, Game, Phase, NOBODY};
use tractor_core::rules::card::{Counts, KINDS};
use tractor_core::{Profile, Rng};

/// Positions at play decisions from random hands.
fn positions(seed: u64, profile: Profile, every: usize) -> Vec<Game> {
    let mut g = Game::deal(seed, profile, [3, 3], NOBODY, None).unwrap();
    let mut rng = Rng::new(seed ^ 0x5eed);
    let mut out = Vec::new();
    let mut i = 0;
    while matches!(g.pos.phase, Phase::Declare | Phase::Play) {
        if g.pos.phase == Phase::Play {
            if i % every == 0 {
                out.push(g.clone());
            }
            i += 1;
        }
        let a = ActionSet::of(&g.pos).sample(&mut rng).unwrap();
        g.apply(&a).unwrap();
    }
    out
}

/// Every complete play reachable through the masks from `b` (at most `limit`), checking at
/// every node that listing and counting give the same follow mask.
fn walk(g: &Game, b: &mut Builder, out: &mut BTreeSet<Counts>, limit: usize) -> bool {
    let m = b.mask(&g.pos);
    if let Some(counted) = b.counted_follow_mask(&g.pos) {
        assert_eq!(&m[..KINDS], &counted[..KINDS], "listing and counting disagree at {:?}", b.pending);
    }
    for id in 0..ACTIONS as u8 {
        if !m[id as usize] {
            continue;
        }
        let mut g2 = g.clone();
        let mut b2 = b.clone();
        match b2.step(&mut g2, id).unwrap_or_else(|e| panic!("masked id {id} refused: {e}")) {
            Stepped::Applied(Action::Play(c)) => {
                out.insert(c);
                if out.len() > limit {
                    return false;
                }
            }
            Stepped::Applied(a) => panic!("a play phase id applied {a:?}"),
            Stepped::Added => {
                if !walk(&g2, &mut b2, out, limit) {
                    return false;
                }
            }
        }
    }
    true
}

/// Every N-card selection of `hand` (if at most `limit`).
fn selections(hand: &Counts, n: usize, limit: usize) -> Option<Vec<Counts>> {
    fn rec(hand: &Counts, k: usize, left: usize, cur: &mut Counts, out: &mut Vec<Counts>, limit: usize) -> bool {
        if left == 0 {
            out.push(*cur);
            return out.len() <= limit;
        }
        if k == KINDS {
            return true;
        }
        for c in (0..=hand[k].min(left as u8)).rev() {
            cur[k] = c;
            if !rec(hand, k + 1, left - c as usize, cur, out, limit) {
                cur[k] = 0;
                return false;
            }
        }
        cur[k] = 0;
        true
    }
    let mut out = Vec::new();
    rec(hand, 0, n, &mut [0; KINDS], &mut out, limit).then_some(out)
}

/// Follow positions with big leads: the banker leads a spade tractor of 3-5 pairs (level A,
/// hearts trump: spades 3..K link); the next seat holds `short` spades (void followers with
/// thousands of plays) or many (long ladders); 30-card hands otherwise random.
fn big_leads(seed: u64, profile: Profile) -> Option<Game> {
    let mut rng = Rng::new(seed);
    let k = 3 + rng.below_usize(3);
    let mut hands = [[0u8; KINDS]; 4];
    let mut pool = [4u8; KINDS];
    for r in 0..k {
        hands[0][1 + r] = 2; // spades 3, 4, ...
        pool[1 + r] -= 2;
    }
    let spades = if seed % 3 == 0 { 9 + rng.below_usize(6) } else { rng.below_usize(4) };
    let mut deck: Vec<u8> = (0..KINDS as u8).flat_map(|c| std::iter::repeat_n(c, pool[c as usize] as usize)).collect();
    for i in (1..deck.len()).rev() {
        deck.swap(i, rng.below_usize(i + 1));
    }
    let is_spade = |c: u8| c < 13 && c != 12 && c != 0; // spades other than A (level) and 2
    let mut given = 0;
    deck.retain(|&c| {
        if given < spades && is_spade(c) {
            hands[1][c as usize] += 1;
            given += 1;
            false
        } else {
            true
        }
    });
    let mut it = deck.into_iter();
    for (seat, h) in hands.iter_mut().enumerate() {
        while h.iter().map(|&x| x as usize).sum::<usize>() < 30 {
            let c = it.next()?;
            if seat == 1 && is_spade(c) {
                continue; // dropped: out of play
            }
            h[c as usize] += 1;
        }
    }
    let mut g = Game::from_hands(hands, 14, 1, 0, profile).ok()?;
    let lead = g.legal_leads().into_iter().filter(|c| c.class == 0).max_by_key(|c| c.size())?;
    let ctx = g.pos.ctx();
    g.apply(&Action::Play(lead.counts(ctx))).ok()?;
    Some(g)
}

#[test]
fn masks_reach_exactly_the_legal_plays() {
    let (mut full, mut brute, mut counted, mut leads, mut voids) = (0, 0, 0, 0, 0);
    for seed in 0..40u64 {
        for profile in [Profile::Guigang, Profile::Nanning, Profile::Competition] {
            let mut ps = positions(seed, profile, 3);
            ps.extend((0..4).filter_map(|i| big_leads(seed * 4 + i, profile)));
            for g in ps {
                let mut set = ActionSet::of(&g.pos);
                let n = set.count();
                let leading = g.pos.lead().is_none();
                leads += leading as usize;
                let follow = g.pos.follow();
                if let Some(f) = &follow {
                    voids += (f.s_size < f.n) as usize;
                }
                let mut reached = BTreeSet::new();
                if n <= 3000 && walk(&g, &mut Builder::default(), &mut reached, 3000) {
                    full += 1;
                    let legal: BTreeSet<Counts> = set
                        .all(u128::MAX)
                        .unwrap()
                        .into_iter()
                        .map(|a| match a {
                            Action::Play(c) => c,
                            _ => unreachable!(),
                        })
                        .collect();
                    assert_eq!(reached, legal, "seed {seed} {profile:?}");
                    if let Some(f) = &follow {
                        let hand = g.pos.hands[g.pos.to_move as usize];
                        if let Some(all) = selections(&hand, f.n as usize, 20_000) {
                            brute += 1;
                            let ok: BTreeSet<Counts> = all.into_iter().filter(|c| g.pos.check_play(c).is_ok()).collect();
                            assert_eq!(reached, ok, "brute force, seed {seed} {profile:?}");
                        }
                    }
                } else {
                    counted += 1;
                    big_set_checks(&g, seed);
                }
            }
        }
    }
    eprintln!("positions: {full} walked in full ({brute} against brute force), {counted} by counting; {leads} leads, {voids} void followers");
    assert!(full + counted >= 2000, "{}", full + counted);
    assert!(counted >= 20 && brute >= 500 && voids >= 100);
}

/// A large legal set: random walks end legal, drawn plays pass the masks.
fn big_set_checks(g: &Game, seed: u64) {
    let mut rng = Rng::new(seed);
    for _ in 0..20 {
        let (mut g2, mut b) = (g.clone(), Builder::default());
        loop {
            let m = b.mask(&g2.pos);
            if let Some(counted) = b.counted_follow_mask(&g2.pos) {
                assert_eq!(&m[..KINDS], &counted[..KINDS]);
            }
            let ids: Vec<u8> = (0..ACTIONS as u8).filter(|&i| m[i as usize]).collect();
            assert!(!ids.is_empty(), "a dead end at {:?}", b.pending);
            let id = ids[rng.below_usize(ids.len())];
            let before = g2.pos;
            match b.step(&mut g2, id).unwrap() {
                Stepped::Added => assert_eq!(g2.pos, before),
                Stepped::Applied(Action::Play(c)) => {
                    assert!(g.pos.check_play(&c).is_ok());
                    break;
                }
                Stepped::Applied(a) => panic!("{a:?}"),
            }
        }
    }
    let mut set = ActionSet::of(&g.pos);
    for _ in 0..20 {
        let Some(Action::Play(c)) = set.sample(&mut rng) else { panic!() };
        let (mut g2, mut b) = (g.clone(), Builder::default());
        let ids = encode(&Action::Play(c), g.pos.lead().is_none());
        for (i, &id) in ids.iter().enumerate() {
            assert!(b.mask(&g2.pos)[id as usize], "id {id} of {ids:?} masked out");
            let r = b.step(&mut g2, id).unwrap();
            assert_eq!(matches!(r, Stepped::Applied(_)), i + 1 == ids.len());
        }
    }
}

#[test]
fn refused_ids_change_nothing_and_name_the_rule() {
    for seed in 0..10u64 {
        for g in positions(seed, Profile::Guigang, 7) {
            let mut b = Builder::default();
            let m = b.mask(&g.pos);
            for id in 0..ACTIONS as u8 {
                if m[id as usize] {
                    continue;
                }
                let mut g2 = g.clone();
                let mut b2 = b.clone();
                let e = b2.step(&mut g2, id).unwrap_err();
                assert!(e.to_string().contains('R'), "{e}");
                assert_eq!(g2.pos, g.pos);
                assert_eq!(g2.record, g.record);
                assert_eq!(b2.pending, b.pending);
            }
            let _ = END_LEAD;
        }
    }
}

#[test]
fn every_receiver_deals_decide_after_every_card() {
    for seed in 0..20u64 {
        let g0 = Game::deal(seed, Profile::Guigang, [3, 3], NOBODY, None).unwrap();
        let mut g = g0.clone().with_every_receiver().unwrap();
        let mut rng = Rng::new(seed);
        let mut stops = 0;
        while g.pos.phase == Phase::Declare {
            let (dealt, fr) = (g.pos.dealt as usize, g.pos.final_round as usize);
            // the seat to move has just received card dealt-1, or is in the final round (R8.3)
            let expect = if fr == 0 { (g.pos.first_seat as usize + dealt - 1) % 4 } else { (g.pos.first_seat as usize + 215 + fr) % 4 };
            assert_eq!(g.pos.to_move as usize, expect);
            stops += 1;
            let a = ActionSet::of(&g.pos).sample(&mut rng).unwrap();
            g.apply(&a).unwrap();
        }
        // at least one attempt's 216 cards and its final round of 4
        assert!(stops >= 220, "{stops}");
        // the same deal plays to the same end as a default deal would with passes elsewhere
        assert!(matches!(g.pos.phase, Phase::Play | Phase::Stopped));
    }
}


/// The fast paths against brute force, on positions from real play under all three
/// profiles: a follow of a single card is masked without listing (every kind whose one card
/// passes `check_play`), and a lead's list after its first card holds only that card's class
/// (the masks equal those derived from every legal lead of the whole hand).
#[test]
fn single_follows_and_lead_lists_match_brute_force() {
    let (mut singles, mut voids, mut firsts) = (0, 0, 0);
    for seed in 0..30u64 {
        for profile in [Profile::Guigang, Profile::Nanning, Profile::Competition] {
            for g in positions(seed, profile, 2) {
                let pos = &g.pos;
                let hand = pos.hands[pos.to_move as usize];
                match pos.lead() {
                    Some(lead) if lead.size() == 1 => {
                        let m = Builder::default().mask(pos);
                        for k in 0..KINDS {
                            let mut one = [0u8; KINDS];
                            one[k] = 1;
                            let legal = hand[k] > 0 && pos.check_play(&one).is_ok();
                            assert_eq!(m[k], legal, "seed {seed} {profile:?}: kind {k} after a single led");
                        }
                        assert!(m[KINDS..].iter().all(|&x| !x), "only card ids follow a single");
                        singles += 1;
                        let f = pos.follow().unwrap();
                        voids += (f.s_size == 0) as usize;
                    }
                    Some(_) => {}
                    None => {
                        let ctx = pos.ctx();
                        let all: Vec<Counts> = tractor_core::legal_leads(ctx, &hand).iter().map(|c| c.counts(ctx)).collect();
                        for k in (0..KINDS).filter(|&k| hand[k] > 0) {
                            let (mut g2, mut b) = (g.clone(), Builder::default());
                            assert_eq!(b.step(&mut g2, k as u8).unwrap(), Stepped::Added);
                            let m = b.mask(&g2.pos);
                            let mut want = [false; ACTIONS];
                            for p in all.iter().filter(|p| p[k] >= 1 && (0..k).all(|j| p[j] == 0)) {
                                match (k..KINDS).find(|&j| p[j] > b.pending[j]) {
                                    Some(j) => want[j] = true,
                                    None => want[END_LEAD as usize] = true,
                                }
                            }
                            assert_eq!(m, want, "seed {seed} {profile:?}: lead after kind {k}");
                            firsts += 1;
                        }
                    }
                }
            }
        }
    }
    eprintln!("{singles} single follows ({voids} void of the led class), {firsts} first cards of leads");
    assert!(singles >= 1000 && voids >= 50 && firsts >= 5000, "{singles} {voids} {firsts}");
}
