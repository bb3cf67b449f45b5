//! A game in progress: the deal (R1.2–R1.3), one hand as a state machine (§5–8), its legal
//! actions, a match of hands (R7.4–R7.6), the binary and JSON hand records, and perft.

pub mod action_set;
pub mod deal;
pub mod hand;
pub mod match_state;
pub mod perft;
pub mod record;
pub mod record_json;
pub mod records_file;
