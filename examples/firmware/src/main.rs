//! The bare-metal test program of xpbd, for Cortex-M4F
//! (`thumbv7em-none-eabihf`), run under
//! `qemu-system-arm -machine mps2-an386 -cpu cortex-m4` with semihosting.
//!
//! It runs, from the shared `xpbd-scenarios` crate (the same code the host
//! tests run):
//!
//! - the seed's golden figures in f64 and f32, bit-exact;
//! - the rejection checks (every error code, through the Rust API and the
//!   C entry points, state kept bit-identical; null and aliased pointers;
//!   status strings);
//! - the bit-identity scenario (a random sequence of 1D C-ABI solves and a
//!   fixed 1D chain and a fixed 3D rope stepped by `xpbd::step::step` with
//!   gravity, a ground plane, a sphere, tension-only links and friction,
//!   the colored cloth, the constraint-groups scene, the tearing sheet and
//!   the engine scene: moving colliders, engine contacts, kinematic
//!   particles)
//!   in f64 and f32, asserting the very constants the x86-64 test asserts
//!   (and that the sheet tore along its perforation);
//! - the floating-point environment: `xpbd::fp_environment()` reads FPSCR
//!   and finds the IEEE default (FZ off, round to nearest), then FZ and
//!   round toward zero once they are set.
//!
//! It prints every result over semihosting and exits with status 0 only if
//! everything passed (1 otherwise; a panic also exits 1 through
//! `panic-semihosting`'s `exit` feature).
//!
//! It also shows that a `#![no_std]` application can depend on `xpbd` and
//! bring its own panic handler: the library declares none.
//!
//! Run from the repository root: `cargo qemu-test`
//! (or `cd examples/firmware && cargo run --release`).

#![no_std]
#![no_main]

use cortex_m_rt::entry;
use cortex_m_semihosting::{debug, hprintln};
use panic_semihosting as _;
use xpbd_scenarios::{checks, hash, Scalar};

/// Runs the hash scenario for `T`; prints it and returns whether it matches.
fn hash_check<T: Scalar>() -> bool {
    let out = hash::run::<T>();
    let want = hash::expected::<T>();
    let clean = !out.unknown_status
        && !out.written_on_error
        && out.chain_errors == 0
        && out.rope_errors == 0
        && out.cloth_errors == 0
        && out.cloth_mismatches == 0
        && out.groups_errors == 0
        && out.tearing_errors == 0
        && out.tearing_list_mismatches == 0
        && out.tearing_torn > 0
        && out.tearing_line
        && out.engine_errors == 0
        && out.engine_inside == 0
        && out.engine_contacts > 0
        && out.engine_max_pairs > 0
        && out.character_errors == 0;
    let ok = out.hashes == want && clean;
    hprintln!(
        "hash {}: random_1d {:#018x} (want {:#018x}), chain_1d {:#018x} (want {:#018x}), rope_3d {:#018x} (want {:#018x}), cloth_3d {:#018x} (want {:#018x}), groups_3d {:#018x} (want {:#018x}), tearing_3d {:#018x} (want {:#018x}), engine_3d {:#018x} (want {:#018x}), character_3d {:#018x} (want {:#018x}), statuses {:?}, chain errors {}, chain stretch bits {:#x}, rope errors {}, rope max contacts {}, rope lowest bits {:#x}, cloth errors {}, cloth C/Rust mismatches {}, cloth lowest bits {:#x}, groups errors {}, tearing errors {}, sheet torn {} from frame {} along the line {}, engine scene errors {} inside {}: {}",
        T::NAME,
        out.hashes.random_1d,
        want.random_1d,
        out.hashes.chain_1d,
        want.chain_1d,
        out.hashes.rope_3d,
        want.rope_3d,
        out.hashes.cloth_3d,
        want.cloth_3d,
        out.hashes.groups_3d,
        want.groups_3d,
        out.hashes.tearing_3d,
        want.tearing_3d,
        out.hashes.engine_3d,
        want.engine_3d,
        out.hashes.character_3d,
        want.character_3d,
        out.statuses,
        out.chain_errors,
        out.chain_stretch_bits,
        out.rope_errors,
        out.rope_max_contacts,
        out.rope_lowest_bits,
        out.cloth_errors,
        out.cloth_mismatches,
        out.cloth_lowest_bits,
        out.groups_errors,
        out.tearing_errors,
        out.tearing_torn,
        out.tearing_first_frame,
        out.tearing_line,
        out.engine_errors,
        out.engine_inside,
        if ok { "ok" } else { "FAILED" }
    );
    ok
}

/// `xpbd_fp_environment()` with FPSCR |= `set` (FPSCR restored before the
/// return; nothing but the register read runs in between).
fn fp_environment_under(set: u32) -> u32 {
    let saved: u32;
    // SAFETY: FPSCR is read into a register and written back with extra
    // mode bits; no floating-point operation runs until it is restored.
    unsafe { core::arch::asm!("vmrs {}, fpscr", out(reg) saved, options(nomem, nostack)) };
    // SAFETY: as above.
    unsafe { core::arch::asm!("vmsr fpscr, {}", in(reg) saved | set, options(nomem, nostack)) };
    let env = xpbd::ffi::xpbd_fp_environment();
    // SAFETY: as above: the saved value back.
    unsafe { core::arch::asm!("vmsr fpscr, {}", in(reg) saved, options(nomem, nostack)) };
    env
}

#[entry]
fn main() -> ! {
    hprintln!("xpbd bare-metal tests on Cortex-M4F (thumbv7em-none-eabihf)");
    let (mut passed, mut failed) = checks::run_all(&mut |group, name, ok| {
        hprintln!("{} {}: {}", group, name, if ok { "ok" } else { "FAILED" });
    });
    // FPSCR after reset: FZ off, round to nearest (issue 14, class 9).
    let env = xpbd::fp_environment();
    let env_ok = env.is_ieee_default()
        && xpbd::ffi::xpbd_fp_environment() == 0
        // FZ (bit 24) flushes inputs and results; RMode 3 (bits 22-23) is
        // round toward zero.
        && fp_environment_under(1 << 24)
            == xpbd::ffi::XPBD_FP_FLUSH_TO_ZERO | xpbd::ffi::XPBD_FP_DENORMALS_ARE_ZERO
        && fp_environment_under(3 << 22) == xpbd::ffi::XPBD_FP_ROUNDING_NOT_NEAREST
        && xpbd::ffi::xpbd_fp_environment() == 0;
    hprintln!(
        "fp environment (FPSCR): {:?}: {}",
        env,
        if env_ok { "ok" } else { "FAILED" }
    );
    for ok in [env_ok, hash_check::<f64>(), hash_check::<f32>()] {
        if ok {
            passed += 1;
        } else {
            failed += 1;
        }
    }
    hprintln!("{} passed, {} failed", passed, failed);
    debug::exit(if failed == 0 {
        debug::EXIT_SUCCESS
    } else {
        debug::EXIT_FAILURE
    });
    loop {
        cortex_m::asm::nop();
    }
}
