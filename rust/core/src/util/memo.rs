//! Values kept per thread by key, the table emptied when full: a cache (it changes no value,
//! only its cost) for work that the info sets of one hand ask for again and again.

use std::cell::RefCell;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hash};
use std::thread::LocalKey;

use super::hash::FxHasher;

/// A thread's kept values (its order is never read).
pub type Memo<K, V> = HashMap<K, V, BuildHasherDefault<FxHasher>>;

/// The value `memo` keeps for `key`, else `make()`'s, then kept (the table emptied first when
/// it holds `limit` and not `key`: no growing past it). One hash a call but when full; `make`
/// runs with the table borrowed and must not ask the same memo.
pub fn remembered<K: Hash + Eq, V: Clone>(memo: &'static LocalKey<RefCell<Memo<K, V>>>, limit: usize, key: K, make: impl FnOnce() -> V) -> V {
    memo.with(|m| {
        let mut m = m.borrow_mut();
        if m.len() >= limit && !m.contains_key(&key) {
            m.clear();
        }
        m.entry(key).or_insert_with(make).clone()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    thread_local! {
        static SQUARES: RefCell<Memo<u32, u64>> = RefCell::new(Memo::default());
    }

    /// Kept values are made once while kept, the table never holds more than its limit, and
    /// a value made again after the table was emptied is the same.
    #[test]
    fn remembered_values_are_made_once_and_bounded() {
        let made = std::cell::Cell::new(0);
        let square = |x: u32| {
            made.set(made.get() + 1);
            x as u64 * x as u64
        };
        for x in 0..4 {
            assert_eq!(remembered(&SQUARES, 4, x, || square(x)), x as u64 * x as u64);
            assert_eq!(remembered(&SQUARES, 4, x, || square(x)), x as u64 * x as u64);
        }
        assert_eq!(made.get(), 4);
        assert_eq!(remembered(&SQUARES, 4, 9, || square(9)), 81);
        assert!(SQUARES.with(|m| m.borrow().len()) <= 4);
        assert_eq!(remembered(&SQUARES, 4, 2, || square(2)), 4);
        assert_eq!(made.get(), 6);
    }
}
