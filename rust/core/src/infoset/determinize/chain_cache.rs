//! The turn chains kept per thread, keyed by the public evidence they read (a cache: it
//! changes no world, only its cost).
//!
//! A seat's [`Chain`] reads only public evidence of the current attempt (D7, R8.1): its deal
//! positions, who was asked at them, every showing's time, seat and count, and its own runs
//! with their suits as shown (R8.2: the same to every other seat). So every other seat's info
//! set, at every decision of the hand's play (the deal is over: none of it changes), builds
//! the same chain; kept, it is built once a hand instead of three times a decision.

use std::cell::RefCell;
use std::sync::Arc;

use crate::infoset::info::InfoSet;

use super::turns::{Chain, Turns};

/// What [`Chain::build`] reads of the info set and the turns for one seat.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct ChainKey {
    seat: u8,
    attempt: u8,
    first: u8,
    dealt: u8,
    /// Whether it was asked at each of its deal positions, in order (at most 54).
    asked: u64,
    /// The current attempt's showings: (cards dealt, seat, count, run index).
    showings: Vec<(u8, u8, u8, usize)>,
    /// Its runs of the current attempt: (run index, suit as shown).
    runs: Vec<(usize, Option<u8>)>,
    /// How many runs the info set lists (a placement's suits are written by run index).
    all_runs: usize,
}

impl ChainKey {
    pub(super) fn of(info: &InfoSet, turns: &Turns, seat: u8) -> ChainKey {
        let attempt = (info.first_seats.len() - 1) as u8;
        let first = info.first_seats[attempt as usize];
        let asked = crate::game::deal::positions(first, seat, info.dealt as usize)
            .enumerate()
            .fold(0u64, |m, (j, t)| m | (turns.asked(t) as u64) << j);
        let runs = (0..info.runs.len()).filter(|&i| info.runs[i].seat == seat && info.runs[i].attempt == attempt).map(|i| (i, info.runs[i].suit)).collect();
        ChainKey { seat, attempt, first, dealt: info.dealt, asked, showings: turns.showings().to_vec(), runs, all_runs: info.runs.len() }
    }
}

/// A kept chain and the entries it took from the budget when built (`MAX_ENTRIES` in
/// `turns.rs`): a chain kept is used only where the budget left covers them, as a new
/// build would have been.
struct Kept {
    key: ChainKey,
    chain: Arc<Chain>,
    entries: usize,
}

/// Chains kept at most per thread (a hand has four, one a seat: a thread that interleaves
/// hands keeps those of the last four), and the entries they may hold together (those of one
/// info set at most, `MAX_ENTRIES`; about 30 bytes each, so some 30 MB a thread at worst, a
/// few MB after the deal): the least recently used goes first.
const KEPT: usize = 16;
const KEPT_ENTRIES: usize = 1 << 20;

thread_local! {
    static CHAINS: RefCell<Vec<Kept>> = const { RefCell::new(Vec::new()) };
}

/// The chain of `key`, kept or built by `build` (which takes its entries from `budget`, or
/// gives `None` past it, keeping nothing).
pub(super) fn chain(key: ChainKey, budget: &mut usize, build: impl FnOnce(&mut usize) -> Option<Chain>) -> Option<Arc<Chain>> {
    let found = CHAINS.with(|c| {
        let mut c = c.borrow_mut();
        let i = c.iter().position(|k| k.key == key)?;
        let k = c.remove(i);
        let out = (k.chain.clone(), k.entries);
        c.push(k);
        Some(out)
    });
    if let Some((chain, entries)) = found {
        // (a build takes its entries one layer at a time and fails once they pass the budget)
        *budget = budget.checked_sub(entries)?;
        return Some(chain);
    }
    // (room is made before the build, so that it reuses the memory of the chain it replaces
    // rather than growing the heap: fresh pages cost a cold first world more than they save)
    CHAINS.with(|c| {
        let mut c = c.borrow_mut();
        while c.len() >= KEPT {
            c.remove(0);
        }
    });
    let before = *budget;
    let chain = Arc::new(build(budget)?);
    let entries = before - *budget;
    CHAINS.with(|c| {
        let mut c = c.borrow_mut();
        c.push(Kept { key, chain: chain.clone(), entries });
        let mut held: usize = c.iter().map(|k| k.entries).sum();
        while held > KEPT_ENTRIES && c.len() > 1 {
            held -= c.remove(0).entries;
        }
    });
    Some(chain)
}
