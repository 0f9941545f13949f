//! The C test program of xpbd, linked into Rust tests.
//!
//! `build.rs` compiles `c/*.c` (C99, `-Wall -Wextra -Wpedantic -Werror
//! -ffp-contract=off`) against the committed `include/xpbd.h`; this crate
//! links it with the `xpbd` rlib and exposes its entry point.

use xpbd as _;

extern "C" {
    /// Runs every C test; returns the number of failed checks (0 = pass).
    fn run_c_tests() -> i32;
    fn xpbd_c_rope_scenario(frames: i32, out_x: *mut f64, out_v: *mut f64) -> i32;
    fn xpbd_c_rope_scenario_f32(frames: i32, out_x: *mut f32, out_v: *mut f32) -> i32;
    fn xpbd_c_fields_scenario(frames: i32, out_x: *mut f64, out_v: *mut f64) -> i32;
    fn xpbd_c_fields_scenario_f32(frames: i32, out_x: *mut f32, out_v: *mut f32) -> i32;
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

/// Particles in the C rope scenario (`ffi-tests/c/test_step.c`).
pub const ROPE_N: usize = 12;

/// Runs the fixed C rope scenario (f64) for `frames` frames through the C
/// ABI; returns (status, positions, velocities).
#[must_use]
pub fn c_rope_scenario(frames: i32) -> (i32, Vec<[f64; 3]>, Vec<[f64; 3]>) {
    let (mut x, mut v) = (vec![[0.0; 3]; ROPE_N], vec![[0.0; 3]; ROPE_N]);
    // SAFETY: both buffers hold 3·ROPE_N doubles, as the C function writes.
    let status =
        unsafe { xpbd_c_rope_scenario(frames, x.as_mut_ptr().cast(), v.as_mut_ptr().cast()) };
    (status, x, v)
}

/// The same scenario in f32.
#[must_use]
pub fn c_rope_scenario_f32(frames: i32) -> (i32, Vec<[f32; 3]>, Vec<[f32; 3]>) {
    let (mut x, mut v) = (vec![[0.0; 3]; ROPE_N], vec![[0.0; 3]; ROPE_N]);
    // SAFETY: both buffers hold 3·ROPE_N floats, as the C function writes.
    let status =
        unsafe { xpbd_c_rope_scenario_f32(frames, x.as_mut_ptr().cast(), v.as_mut_ptr().cast()) };
    (status, x, v)
}

/// Particles in the C field scenario (`ffi-tests/c/fields_impl.h`): a
/// 3 × 3 cloth over a heightfield, then free particles over a signed
/// distance field.
pub const FIELDS_N: usize = 14;

/// Runs the fixed C field scenario (f64) for `frames` frames through the
/// C ABI; returns (status, positions, velocities).
#[must_use]
pub fn c_fields_scenario(frames: i32) -> (i32, Vec<[f64; 3]>, Vec<[f64; 3]>) {
    let (mut x, mut v) = (vec![[0.0; 3]; FIELDS_N], vec![[0.0; 3]; FIELDS_N]);
    // SAFETY: both buffers hold 3·FIELDS_N doubles, as the C function writes.
    let status =
        unsafe { xpbd_c_fields_scenario(frames, x.as_mut_ptr().cast(), v.as_mut_ptr().cast()) };
    (status, x, v)
}

/// The same scenario in f32.
#[must_use]
pub fn c_fields_scenario_f32(frames: i32) -> (i32, Vec<[f32; 3]>, Vec<[f32; 3]>) {
    let (mut x, mut v) = (vec![[0.0; 3]; FIELDS_N], vec![[0.0; 3]; FIELDS_N]);
    // SAFETY: both buffers hold 3·FIELDS_N floats, as the C function writes.
    let status =
        unsafe { xpbd_c_fields_scenario_f32(frames, x.as_mut_ptr().cast(), v.as_mut_ptr().cast()) };
    (status, x, v)
}
