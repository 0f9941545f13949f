//! Compiles the hand-written C reference kernels (bench/c/reference.c, and
//! bench/c/spatial.c for self-collision) with
//! `-O3 -fno-math-errno -ffp-contract=off` for the x86-64 baseline: no
//! `-march`, the same ISA level the Rust code is compiled for.

use std::env;
use std::path::PathBuf;

fn main() {
    let manifest = PathBuf::from(env::var("CARGO_MANIFEST_DIR").expect("CARGO_MANIFEST_DIR"));
    let root = manifest.parent().expect("bench has a parent").to_path_buf();
    let src = manifest.join("c/reference.c");
    let spatial = manifest.join("c/spatial.c");
    println!("cargo:rerun-if-changed={}", src.display());
    println!("cargo:rerun-if-changed={}", spatial.display());
    println!(
        "cargo:rerun-if-changed={}",
        root.join("include/xpbd.h").display()
    );
    let mut build = cc::Build::new();
    build
        .file(&src)
        .file(&spatial)
        .include(root.join("include"))
        .std("c99")
        .opt_level(3)
        .flag("-O3")
        .flag("-fno-math-errno")
        .flag("-ffp-contract=off")
        .flag("-Wall")
        .flag("-Wextra");
    build.compile("xpbd_bench_reference");
    println!("cargo:rustc-env=XPBD_BENCH_CFLAGS=-O3 -fno-math-errno -ffp-contract=off (x86-64 baseline, no -march)");
}
