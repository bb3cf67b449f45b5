//! Bulk runs: many hands or matches with any policies, in parallel, with results identical
//! whatever the thread count.

pub mod columns;
pub mod sim;
pub mod suite;
pub mod table;
