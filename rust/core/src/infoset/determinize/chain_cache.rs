//! Values kept per thread by the evidence they were built from, the least recently used
//! dropped first (a cache: it changes no world, only its cost). The turn chains (`turns.rs`)
//! are kept here: a seat's chain reads only public evidence of the current attempt (D7,
//! R8.1, R8.2), none of which changes once the deal is over, so every other seat's info set,
//! at every decision of the hand's play, builds the same chain; kept, it is built once a hand
//! instead of three times a decision.

use std::cell::RefCell;
use std::thread::LocalKey;

/// Values kept at most (a hand has four chains, one a seat: a thread that interleaves hands
/// keeps those of the last four), and the budget entries they may hold together (those of one
/// info set at most, `MAX_ENTRIES` of `turns.rs`; about 30 bytes each, so some 30 MB a thread
/// at worst, a few MB after the deal).
const KEPT: usize = 16;
const KEPT_ENTRIES: usize = 1 << 20;

/// The kept values of one thread: (key, value, the budget entries its build took), the most
/// recently used last.
pub(super) struct Kept<K, V>(Vec<(K, V, usize)>);

impl<K, V> Kept<K, V> {
    pub(super) const fn new() -> Kept<K, V> {
        Kept(Vec::new())
    }
}

/// The value of `key`, kept by `cache` or built by `build` (which takes its entries from
/// `budget`, or gives `None` past it, keeping nothing). A kept value is used only where the
/// budget left covers the entries its build took, as a new build would have been (a build
/// takes its entries a step at a time and fails once they pass the budget).
pub(super) fn kept_or_built<K: PartialEq + 'static, V: Clone + 'static>(
    cache: &'static LocalKey<RefCell<Kept<K, V>>>,
    key: K,
    budget: &mut usize,
    build: impl FnOnce(&mut usize) -> Option<V>,
) -> Option<V> {
    let found = cache.with(|c| {
        let c = &mut c.borrow_mut().0;
        let i = c.iter().position(|k| k.0 == key)?;
        let k = c.remove(i);
        let out = (k.1.clone(), k.2);
        c.push(k);
        Some(out)
    });
    if let Some((value, entries)) = found {
        *budget = budget.checked_sub(entries)?;
        return Some(value);
    }
    // (room is made before the build, so that it reuses the memory of the value it replaces
    // rather than growing the heap: fresh pages cost a cold first world more than they save)
    cache.with(|c| {
        let c = &mut c.borrow_mut().0;
        while c.len() >= KEPT {
            c.remove(0);
        }
    });
    let before = *budget;
    let value = build(budget)?;
    let entries = before - *budget;
    cache.with(|c| {
        let c = &mut c.borrow_mut().0;
        c.push((key, value.clone(), entries));
        let mut held: usize = c.iter().map(|k| k.2).sum();
        while held > KEPT_ENTRIES && c.len() > 1 {
            held -= c.remove(0).2;
        }
    });
    Some(value)
}
