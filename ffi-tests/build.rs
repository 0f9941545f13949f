//! Generates the C header with cbindgen and compiles the C test program.
//!
//! The header is written to `$OUT_DIR/xpbd.h`; `tests/header.rs` compares it
//! with the committed `include/xpbd.h`. With `XPBD_UPDATE_HEADER=1` the
//! committed header is rewritten first. The C tests are compiled against the
//! committed header: that is the file C users get.

use std::env;
use std::fs;
use std::path::PathBuf;

fn main() {
    let manifest = PathBuf::from(env::var("CARGO_MANIFEST_DIR").expect("CARGO_MANIFEST_DIR"));
    let root = manifest
        .parent()
        .expect("ffi-tests has a parent")
        .to_path_buf();
    let out = PathBuf::from(env::var("OUT_DIR").expect("OUT_DIR"));

    println!("cargo:rerun-if-changed={}", root.join("src").display());
    println!(
        "cargo:rerun-if-changed={}",
        root.join("cbindgen.toml").display()
    );
    println!(
        "cargo:rerun-if-changed={}",
        root.join("include/xpbd.h").display()
    );
    println!("cargo:rerun-if-changed={}", manifest.join("c").display());
    println!("cargo:rerun-if-env-changed=XPBD_UPDATE_HEADER");

    let config =
        cbindgen::Config::from_file(root.join("cbindgen.toml")).expect("read cbindgen.toml");
    let bindings = cbindgen::Builder::new()
        .with_crate(&root)
        .with_config(config)
        .generate()
        .expect("cbindgen could not generate the header");
    let generated = out.join("xpbd.h");
    bindings.write_to_file(&generated);
    if env::var_os("XPBD_UPDATE_HEADER").is_some_and(|v| v == "1") {
        fs::copy(&generated, root.join("include/xpbd.h")).expect("rewrite include/xpbd.h");
    }

    let mut files: Vec<PathBuf> = fs::read_dir(manifest.join("c"))
        .expect("read ffi-tests/c")
        .map(|e| e.expect("dir entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "c"))
        .collect();
    files.sort();
    for f in &files {
        println!("cargo:rerun-if-changed={}", f.display());
    }
    cc::Build::new()
        .files(&files)
        .include(root.join("include"))
        .std("c99")
        .flag("-Wall")
        .flag("-Wextra")
        .flag("-Wpedantic")
        .flag("-Werror")
        .flag("-ffp-contract=off")
        .warnings_into_errors(true)
        .compile("xpbd_c_tests");

    // The same header must be clean C++11.
    let cpp = manifest.join("cpp/header_check.cpp");
    println!("cargo:rerun-if-changed={}", cpp.display());
    cc::Build::new()
        .cpp(true)
        .file(&cpp)
        .include(root.join("include"))
        .std("c++11")
        .flag("-Wall")
        .flag("-Wextra")
        .flag("-Wpedantic")
        .flag("-Werror")
        .flag("-ffp-contract=off")
        .compile("xpbd_cpp_header_check");
}
