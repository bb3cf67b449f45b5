//! The integration tests of `tractor-core`, one file per concept, built as one binary: one
//! link instead of one per file, and one harness that spreads every test over the threads
//! (`cargo test -p tractor-core --test integration determinize::` runs one file's tests).

/// The brute-force twins the files share (written from `docs/rules.md` alone).
mod common {
    pub mod oracle;
    pub mod oracle_comp;
}

/// The examples' positions (greedy hands cut at four points) and their world digest.
#[path = "../examples/common/positions.rs"]
mod positions;

mod actions;
mod competition;
mod determinize;
mod greedy_digest;
mod greedy_twin;
mod hand;
mod layers;
mod net;
mod oracle;
mod perft;
mod plays;
mod perft_lines;
mod properties;
mod record_json;
mod records;
mod search;
mod tuned;
mod vec_env_digest;
