//! Enables the AVX-512 kernels (`cfg(xpbd_avx512)`) when the compiler has
//! the AVX-512 intrinsics of `core::arch` (stable since Rust 1.89). The
//! crate's MSRV (1.81) builds without them: there the AVX-512 bit of
//! `Isa` runs the AVX2 kernel, with the same bits. Reads only `$RUSTC
//! --version`; nothing else.

use std::env;
use std::process::Command;

fn main() {
    println!("cargo:rustc-check-cfg=cfg(xpbd_avx512)");
    println!("cargo:rerun-if-changed=build.rs");
    let rustc = env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    let minor = Command::new(rustc)
        .arg("--version")
        .output()
        .ok()
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .and_then(|v| {
            // "rustc 1.89.0 (...)" or "rustc 1.90.0-nightly (...)".
            let mut parts = v.split_whitespace().nth(1)?.split('.');
            let major: u32 = parts.next()?.parse().ok()?;
            let minor: u32 = parts.next()?.parse().ok()?;
            (major == 1).then_some(minor)
        });
    if minor.is_some_and(|m| m >= 89) {
        println!("cargo:rustc-cfg=xpbd_avx512");
    }
}
