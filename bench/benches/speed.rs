//! `cargo bench -p xpbd-bench`: the speed benchmark (see bench/src/lib.rs).
//! Fails when a figure is not produced or a result disagrees with its C
//! reference; never because of a timing.

fn main() {
    match xpbd_bench::run() {
        Ok(_) => {}
        Err(e) => {
            eprintln!("xpbd bench FAILED: {e}");
            std::process::exit(1);
        }
    }
}
