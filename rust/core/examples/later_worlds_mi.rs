//! `later_worlds` with mimalloc (v2) as the allocator, as the Python extension has it: the
//! same workload, for wall-clock and page-fault counts (`perf stat -e page-faults,task-clock`)
//! under the allocator the bench meets.
//! `cargo run --release -p tractor-core --example later_worlds_mi [hands] [later] [cut]`

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[path = "later_worlds.rs"]
mod later_worlds;

fn main() {
    later_worlds::main();
}
