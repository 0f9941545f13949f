//! The floating-point environment query of the C ABI: `xpbd_fp_environment`
//! and its `XPBD_FP_*` bits (the Rust query is [`crate::fp_environment`]).

use crate::FpEnvironment;

/// Bit of `xpbd_fp_environment()`: subnormal results are flushed to ±0
/// (flush-to-zero: x86 MXCSR.FZ, Arm FPCR/FPSCR.FZ). A result below
/// 2.2250738585072014e-308 (double) or 1.17549435e-38 (float) in
/// magnitude becomes zero: statuses change for tiny gaps and masses.
pub const XPBD_FP_FLUSH_TO_ZERO: u32 = 1;
/// Bit of `xpbd_fp_environment()`: subnormal inputs are read as ±0
/// (denormals-are-zero: x86 MXCSR.DAZ; on Arm FZ flushes inputs too):
/// statuses change for subnormal positions, masses and lengths.
pub const XPBD_FP_DENORMALS_ARE_ZERO: u32 = 2;
/// Bit of `xpbd_fp_environment()`: the rounding mode is toward −∞, +∞ or
/// zero, not to nearest (x86 MXCSR.RC, Arm RMode): every inexact result,
/// and so every published figure, changes.
pub const XPBD_FP_ROUNDING_NOT_NEAREST: u32 = 4;
/// Bit of `xpbd_fp_environment()`: a floating-point exception traps
/// (x86: an exception mask bit of MXCSR clear; AArch64: a trap enable bit
/// of FPCR set). The library then traps where it would return a status:
/// every solve rounds (inexact), and some rejected inputs overflow first.
pub const XPBD_FP_TRAPS_ENABLED: u32 = 8;
/// Value of `xpbd_fp_environment()`, alone: this target's environment cannot
/// be read (wasm32, soft-float Arm, RISC-V, any target but x86-64, x86 with
/// SSE2, AArch64 and hard-float 32-bit Arm). Not an error: nothing is known.
pub const XPBD_FP_UNKNOWN: u32 = 0x8000_0000;

const _: () = assert!(
    XPBD_FP_FLUSH_TO_ZERO == FpEnvironment::FLUSH_TO_ZERO
        && XPBD_FP_DENORMALS_ARE_ZERO == FpEnvironment::DENORMALS_ARE_ZERO
        && XPBD_FP_ROUNDING_NOT_NEAREST == FpEnvironment::ROUNDING_NOT_NEAREST
        && XPBD_FP_TRAPS_ENABLED == FpEnvironment::TRAPS_ENABLED
        && XPBD_FP_UNKNOWN == FpEnvironment::UNKNOWN
);

/// The floating-point environment of the calling thread: 0 when it is the
/// IEEE-754 default the library's results are defined for (round to
/// nearest, subnormals kept, no trap), else an OR of `XPBD_FP_FLUSH_TO_ZERO`,
/// `XPBD_FP_DENORMALS_ARE_ZERO`, `XPBD_FP_ROUNDING_NOT_NEAREST` and
/// `XPBD_FP_TRAPS_ENABLED`, or `XPBD_FP_UNKNOWN` alone where the target's
/// control register cannot be read.
///
/// Read from MXCSR (x86-64; x86 with SSE2), FPCR (AArch64) or FPSCR (32-bit
/// Arm, hard-float ABI, e.g. Cortex-M4F). The solver never checks or
/// changes the environment itself: call this once at start-up, after the
/// engine has set its own, on each thread that will solve (the state is per
/// thread): `if (xpbd_fp_environment() != 0)` the results are not the
/// published ones (`XPBD_FP_UNKNOWN`: they may or may not be). Never fails,
/// takes no pointer; on a Cortex-M the FPU must be enabled, as for any call.
#[no_mangle]
pub extern "C" fn xpbd_fp_environment() -> u32 {
    crate::fp_environment().bits()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_c_function_is_the_rust_query() {
        assert_eq!(xpbd_fp_environment(), crate::fp_environment().bits());
    }
}
