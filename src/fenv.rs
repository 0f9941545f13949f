//! The floating-point environment of the calling thread, read from the
//! hardware's control register: the one query [`fp_environment`] (C:
//! `xpbd_fp_environment`).
//!
//! Every golden figure, pinned hash and Rust-vs-C trajectory of this crate
//! is IEEE-754 arithmetic in the default environment: round to nearest
//! (ties to even), subnormal inputs and results kept, no trap on an
//! exception. The solver never reads or changes the environment on its hot
//! paths; an engine that may have changed it (many set flush-to-zero and
//! denormals-are-zero for speed) checks once at start-up. Otherwise:
//!
//! - under flush-to-zero (FTZ) a subnormal *result* becomes ±0, and under
//!   denormals-are-zero (DAZ) a subnormal *input* is read as ±0: statuses
//!   change for subnormal values (a gap `b − a` of 5e-324 m is `OK` by
//!   default and `ENDPOINTS_NOT_ORDERED` under either mode);
//! - under a directed rounding mode every inexact operation rounds another
//!   way: every result changes, the seed's golden 0.3333333333333335 m
//!   included;
//! - with an exception trap enabled the library traps instead of returning
//!   a status (every solve computes inexact results, and some rejected
//!   inputs overflow before they are rejected).
//!
//! | target | register | FTZ | DAZ | rounding | traps |
//! |---|---|---|---|---|---|
//! | x86-64, x86 with SSE2 | MXCSR | FZ, bit 15 | DAZ, bit 6 | RC, bits 13–14 | a mask bit of 7–12 clear |
//! | AArch64 | FPCR | FZ, bit 24 | FZ (unless AH, bit 1) or FIZ, bit 0 | RMode, bits 22–23 | an enable bit of 8–12, 15 set |
//! | 32-bit Arm, hard-float ABI (Cortex-M4F, …) | FPSCR | FZ, bit 24 | FZ | RMode, bits 22–23 | not reported (none on M-profile) |
//! | anything else, and Miri | — | unknown | unknown | unknown | unknown |
//!
//! The floor of this module is 0, beside `real`: it imports nothing from the
//! crate.

/// A rounding mode of IEEE-754 binary arithmetic.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Rounding {
    /// To nearest, ties to even: the default, the one the library needs.
    Nearest,
    /// Toward −∞.
    Down,
    /// Toward +∞.
    Up,
    /// Toward zero (truncation).
    TowardZero,
}

/// The floating-point environment of the calling thread, as far as it
/// changes the library's results (see [`fp_environment`]).
///
/// [`bits`](Self::bits) gives the C encoding of `xpbd_fp_environment()`:
/// `0` is the IEEE default the library's figures need.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct FpEnvironment {
    /// Subnormal results are flushed to ±0 (x86 MXCSR.FZ, Arm FZ).
    pub flush_to_zero: bool,
    /// Subnormal inputs are read as ±0 (x86 MXCSR.DAZ; on Arm FZ does both).
    pub denormals_are_zero: bool,
    /// The rounding mode; `None` when the environment cannot be read on this
    /// target (then every other field is `false`).
    pub rounding: Option<Rounding>,
    /// At least one floating-point exception traps instead of setting its
    /// flag (x86: a mask bit of MXCSR clear; AArch64: an enable bit of FPCR
    /// set).
    pub traps_enabled: bool,
}

impl FpEnvironment {
    /// The C encoding: [`FLUSH_TO_ZERO`](Self::FLUSH_TO_ZERO) |
    /// [`DENORMALS_ARE_ZERO`](Self::DENORMALS_ARE_ZERO) |
    /// [`ROUNDING_NOT_NEAREST`](Self::ROUNDING_NOT_NEAREST) |
    /// [`TRAPS_ENABLED`](Self::TRAPS_ENABLED), or [`UNKNOWN`](Self::UNKNOWN)
    /// alone; `0` is the IEEE default.
    #[must_use]
    pub const fn bits(self) -> u32 {
        let rounding = match self.rounding {
            None => return Self::UNKNOWN,
            Some(Rounding::Nearest) => 0,
            Some(_) => Self::ROUNDING_NOT_NEAREST,
        };
        flag(self.flush_to_zero, Self::FLUSH_TO_ZERO)
            | flag(self.denormals_are_zero, Self::DENORMALS_ARE_ZERO)
            | rounding
            | flag(self.traps_enabled, Self::TRAPS_ENABLED)
    }

    /// Whether this is the IEEE default the library's figures need (read,
    /// not unknown, and [`bits`](Self::bits) is 0).
    #[must_use]
    pub const fn is_ieee_default(self) -> bool {
        self.bits() == 0
    }

    /// Whether the environment could be read on this target.
    #[must_use]
    pub const fn is_known(self) -> bool {
        self.rounding.is_some()
    }
}

// cbindgen reads every `pub const` under `src/` into the C header, also
// associated ones; these are the Rust names (C has its `XPBD_FP_*` in
// `ffi/fenv.rs`), so the block is hidden from it by the annotation below.
/// cbindgen:ignore
mod constants {
    use super::{FpEnvironment, Rounding};

    impl FpEnvironment {
        /// Bit of [`bits`](Self::bits): subnormal results are flushed to zero.
        pub const FLUSH_TO_ZERO: u32 = 1;
        /// Bit of [`bits`](Self::bits): subnormal inputs are read as zero.
        pub const DENORMALS_ARE_ZERO: u32 = 1 << 1;
        /// Bit of [`bits`](Self::bits): the rounding mode is not to nearest.
        pub const ROUNDING_NOT_NEAREST: u32 = 1 << 2;
        /// Bit of [`bits`](Self::bits): a floating-point exception traps.
        pub const TRAPS_ENABLED: u32 = 1 << 3;
        /// Bit of [`bits`](Self::bits): this target's environment cannot be read
        /// (no other bit is then set).
        pub const UNKNOWN: u32 = 1 << 31;

        /// The environment of a target whose register cannot be read.
        pub const UNREADABLE: FpEnvironment = FpEnvironment {
            flush_to_zero: false,
            denormals_are_zero: false,
            rounding: None,
            traps_enabled: false,
        };

        /// The IEEE-754 default: to nearest, subnormals kept, no trap.
        pub const IEEE_DEFAULT: FpEnvironment = FpEnvironment {
            flush_to_zero: false,
            denormals_are_zero: false,
            rounding: Some(Rounding::Nearest),
            traps_enabled: false,
        };
    }
}

const fn flag(on: bool, bit: u32) -> u32 {
    if on {
        bit
    } else {
        0
    }
}

/// Whether bit `n` of `reg` is set.
#[cfg_attr(not(test), allow(dead_code))] // each target reads one register; the tests decode all
const fn bit(reg: u64, n: u32) -> bool {
    (reg >> n) & 1 == 1
}

/// The rounding mode of an Arm `RMode` field (FPCR, FPSCR bits 22–23).
#[cfg_attr(not(test), allow(dead_code))] // each target reads one register; the tests decode all
const fn arm_rounding(reg: u64) -> Rounding {
    match (reg >> 22) & 3 {
        0 => Rounding::Nearest,
        1 => Rounding::Up,
        2 => Rounding::Down,
        _ => Rounding::TowardZero,
    }
}

/// Decodes x86 MXCSR: DAZ bit 6, exception masks bits 7–12 (IM, DM, ZM,
/// OM, UM, PM: a clear mask bit traps), RC bits 13–14 (nearest, down, up,
/// toward zero), FZ bit 15.
#[cfg_attr(not(test), allow(dead_code))] // each target reads one register; the tests decode all
#[must_use]
pub(crate) fn from_mxcsr(mxcsr: u32) -> FpEnvironment {
    let reg = u64::from(mxcsr);
    FpEnvironment {
        flush_to_zero: bit(reg, 15),
        denormals_are_zero: bit(reg, 6),
        rounding: Some(match (reg >> 13) & 3 {
            0 => Rounding::Nearest,
            1 => Rounding::Down,
            2 => Rounding::Up,
            _ => Rounding::TowardZero,
        }),
        traps_enabled: (reg >> 7) & 0x3f != 0x3f,
    }
}

/// Decodes AArch64 FPCR: FIZ bit 0 and AH bit 1 (FEAT_AFP, zero without
/// it), trap enables IOE, DZE, OFE, UFE, IXE bits 8–12 and IDE bit 15,
/// RMode bits 22–23 (nearest, up, down, toward zero), FZ bit 24. FZ
/// flushes results, and inputs too unless AH is set; FIZ flushes inputs.
#[cfg_attr(not(test), allow(dead_code))] // each target reads one register; the tests decode all
#[must_use]
pub(crate) fn from_fpcr(fpcr: u64) -> FpEnvironment {
    let fz = bit(fpcr, 24);
    FpEnvironment {
        flush_to_zero: fz,
        denormals_are_zero: (fz && !bit(fpcr, 1)) || bit(fpcr, 0),
        rounding: Some(arm_rounding(fpcr)),
        traps_enabled: fpcr & 0x9f00 != 0,
    }
}

/// Decodes 32-bit Arm FPSCR: RMode bits 22–23 (nearest, up, down, toward
/// zero), FZ bit 24 (flushes inputs and results). M-profile FPUs have no
/// trap enables; A-profile VFPs rarely implement them: not reported.
#[cfg_attr(not(test), allow(dead_code))] // each target reads one register; the tests decode all
#[must_use]
pub(crate) fn from_fpscr(fpscr: u32) -> FpEnvironment {
    let reg = u64::from(fpscr);
    let fz = bit(reg, 24);
    FpEnvironment {
        flush_to_zero: fz,
        denormals_are_zero: fz,
        rounding: Some(arm_rounding(reg)),
        traps_enabled: false,
    }
}

/// The floating-point environment of the calling thread: flush-to-zero,
/// denormals-are-zero, the rounding mode and the exception traps, read from
/// MXCSR (x86-64, x86 with SSE2), FPCR (AArch64) or FPSCR (32-bit Arm with
/// the hard-float ABI, e.g. Cortex-M4F); [`FpEnvironment::UNREADABLE`]
/// elsewhere (wasm32, soft-float Arm, RISC-V, …) and under Miri.
///
/// The library's figures hold only in [`FpEnvironment::IEEE_DEFAULT`]; the
/// solver neither checks nor changes the environment, so check it once
/// where the engine has set its own (a few instructions, no memory access
/// but the register's). On a Cortex-M the FPU must be enabled (CPACR), as
/// for any call of a hard-float library.
///
/// # Examples
///
/// ```
/// let env = xpbd::fp_environment();
/// if env.is_known() {
///     assert!(env.is_ieee_default(), "the library's figures need the IEEE default: {env:?}");
/// }
/// ```
#[must_use]
#[inline]
pub fn fp_environment() -> FpEnvironment {
    read()
}

#[cfg(all(
    not(miri),
    any(
        target_arch = "x86_64",
        all(target_arch = "x86", target_feature = "sse2")
    )
))]
#[inline]
fn read() -> FpEnvironment {
    let mut mxcsr: u32 = 0;
    // SAFETY: `stmxcsr` stores the 32-bit MXCSR into the local `mxcsr`
    // through a valid, aligned pointer; SSE is part of the target (x86-64's
    // baseline, or the `sse2` feature checked above); no other state changes.
    unsafe {
        core::arch::asm!(
            "stmxcsr [{}]",
            in(reg) core::ptr::addr_of_mut!(mxcsr),
            options(nostack, preserves_flags),
        );
    }
    from_mxcsr(mxcsr)
}

#[cfg(all(not(miri), target_arch = "aarch64", target_feature = "neon"))]
#[inline]
fn read() -> FpEnvironment {
    let fpcr: u64;
    // SAFETY: reading FPCR is allowed at EL0 whenever the FPU is, and the
    // `neon` feature means this code already runs FP instructions; it reads
    // a system register into a general one, touching no memory.
    unsafe {
        core::arch::asm!(
            "mrs {}, fpcr",
            out(reg) fpcr,
            options(nomem, nostack, preserves_flags),
        );
    }
    from_fpcr(fpcr)
}

#[cfg(all(not(miri), target_arch = "arm", target_abi = "eabihf"))]
#[inline]
fn read() -> FpEnvironment {
    let fpscr: u32;
    // SAFETY: the hard-float ABI means the FPU is present and enabled (every
    // float argument is passed in its registers); `vmrs` copies FPSCR into a
    // general register, touching no memory and no condition flag.
    unsafe {
        core::arch::asm!(
            "vmrs {}, fpscr",
            out(reg) fpscr,
            options(nomem, nostack, preserves_flags),
        );
    }
    from_fpscr(fpscr)
}

#[cfg(not(all(
    not(miri),
    any(
        target_arch = "x86_64",
        all(target_arch = "x86", target_feature = "sse2"),
        all(target_arch = "aarch64", target_feature = "neon"),
        all(target_arch = "arm", target_abi = "eabihf")
    )
)))]
#[inline]
fn read() -> FpEnvironment {
    FpEnvironment::UNREADABLE
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_power_up_values_decode_to_the_ieee_default() {
        assert_eq!(from_mxcsr(0x1f80), FpEnvironment::IEEE_DEFAULT);
        assert_eq!(from_fpcr(0), FpEnvironment::IEEE_DEFAULT);
        assert_eq!(from_fpscr(0), FpEnvironment::IEEE_DEFAULT);
        // Status flags (sticky exception bits) do not matter.
        assert_eq!(from_mxcsr(0x1fbf).bits(), 0);
        assert_eq!(from_fpscr(0xf000_009f).bits(), 0);
        assert_eq!(FpEnvironment::IEEE_DEFAULT.bits(), 0);
        assert!(FpEnvironment::IEEE_DEFAULT.is_ieee_default());
    }

    #[test]
    fn each_register_bit_decodes_to_its_flag() {
        use FpEnvironment as E;
        let (ftz, daz, rnd, trap) = (
            E::FLUSH_TO_ZERO,
            E::DENORMALS_ARE_ZERO,
            E::ROUNDING_NOT_NEAREST,
            E::TRAPS_ENABLED,
        );
        // MXCSR.
        assert_eq!(from_mxcsr(0x1f80 | (1 << 15)).bits(), ftz);
        assert_eq!(from_mxcsr(0x1f80 | (1 << 6)).bits(), daz);
        assert_eq!(from_mxcsr(0x9fc0).bits(), ftz | daz);
        let rc = [
            Rounding::Nearest,
            Rounding::Down,
            Rounding::Up,
            Rounding::TowardZero,
        ];
        for (k, mode) in (0u32..).zip(rc) {
            let env = from_mxcsr(0x1f80 | (k << 13));
            assert_eq!(env.rounding, Some(mode));
            assert_eq!(env.bits(), if k == 0 { 0 } else { rnd });
        }
        for mask in 7..13 {
            assert_eq!(
                from_mxcsr(0x1f80 & !(1 << mask)).bits(),
                trap,
                "mask {mask}"
            );
        }
        // FPCR: FZ flushes both ways unless AH; FIZ flushes inputs.
        assert_eq!(from_fpcr(1 << 24).bits(), ftz | daz);
        assert_eq!(from_fpcr((1 << 24) | (1 << 1)).bits(), ftz);
        assert_eq!(from_fpcr(1).bits(), daz);
        assert_eq!(from_fpcr(1 << 1).bits(), 0);
        let rmode = [
            Rounding::Nearest,
            Rounding::Up,
            Rounding::Down,
            Rounding::TowardZero,
        ];
        for (k, mode) in (0u32..).zip(rmode) {
            assert_eq!(from_fpcr(u64::from(k) << 22).rounding, Some(mode));
            assert_eq!(from_fpscr(k << 22).rounding, Some(mode));
        }
        for enable in [8, 9, 10, 11, 12, 15] {
            assert_eq!(from_fpcr(1 << enable).bits(), trap, "enable {enable}");
        }
        // FPSCR.
        assert_eq!(from_fpscr(1 << 24).bits(), ftz | daz);
        assert_eq!(from_fpscr(3 << 22).bits(), rnd);
    }

    #[test]
    fn unknown_is_one_bit_alone() {
        let env = FpEnvironment::UNREADABLE;
        assert_eq!(env.bits(), FpEnvironment::UNKNOWN);
        assert!(!env.is_known() && !env.is_ieee_default());
    }
}
