//! `later_bench` with mimalloc (v2) as the allocator, as the Python extension has it.
//! `cargo run --release -p tractor-core --example later_bench_mi [phase] [positions] [repeats] [rounds]`

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[path = "later_bench.rs"]
mod later_bench;

fn main() {
    later_bench::main();
}
