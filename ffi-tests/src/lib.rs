//! The C test program of xpbd, linked into Rust tests.
//!
//! `build.rs` compiles `c/*.c` (C99, `-Wall -Wextra -Wpedantic -Werror
//! -ffp-contract=off`) against the committed `include/xpbd.h`; this crate
//! links it with the `xpbd` rlib and exposes its entry point.

use xpbd as _;

extern "C" {
    /// Runs every C test; returns the number of failed checks (0 = pass).
    fn run_c_tests() -> i32;
    /// One solve through the header compiled as C++11; 0 = pass.
    fn xpbd_cpp_header_check() -> i32;
}

/// Runs the C++ translation unit that includes the header; 0 = pass.
#[must_use]
pub fn cpp_header_check() -> i32 {
    // SAFETY: takes no arguments and calls the C ABI with its own locals.
    unsafe { xpbd_cpp_header_check() }
}

/// Runs the C test program through the C ABI and returns its failure count.
#[must_use]
pub fn c_test_failures() -> i32 {
    // SAFETY: `run_c_tests` takes no arguments and only calls the xpbd C ABI
    // with pointers to its own locals.
    unsafe { run_c_tests() }
}

/// The header cbindgen generates from the current source.
#[must_use]
pub fn generated_header() -> &'static str {
    include_str!(concat!(env!("OUT_DIR"), "/xpbd.h"))
}
