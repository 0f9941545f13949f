//! The floating-point environment (issue 14, class 9): `fp_environment()`
//! reports the default state as the IEEE default, and reports flush-to-zero,
//! denormals-are-zero, directed rounding and traps once they are set; and
//! the reason it matters: in those states a status and the seed's golden
//! figure change.
//!
//! The register is set per thread (MXCSR on x86-64, FPCR on AArch64) and put
//! back by a guard before each test returns or unwinds; every other test
//! thread keeps its own, default, register. Rust, like C without
//! `#pragma STDC FENV_ACCESS ON`, assumes the default environment: code run
//! under another one is outside the language's guarantees, which is why the
//! library promises its figures only in the default. The computations run
//! under another one here keep every operand opaque (`black_box`, functions
//! never inlined), so nothing is evaluated at compile time: the library runs
//! as it does for a C caller (`ffi-tests/c/test_fenv.c` does the same from C).

use std::hint::black_box;

use xpbd::{fp_environment, DistanceConstraint, Error, FpEnvironment, Rounding};

#[test]
fn the_default_environment_is_the_ieee_default() {
    let env = fp_environment();
    if cfg!(miri) {
        // Miri runs no inline assembly: nothing can be read.
        assert_eq!(env.bits(), FpEnvironment::UNKNOWN);
        assert!(!env.is_known());
    } else if cfg!(any(target_arch = "x86_64", target_arch = "aarch64")) {
        assert_eq!(env, FpEnvironment::IEEE_DEFAULT);
        assert_eq!(env.bits(), 0);
        assert_eq!(xpbd::ffi::xpbd_fp_environment(), 0);
        assert!(env.is_ieee_default());
    }
    assert_eq!(xpbd::ffi::xpbd_fp_environment(), env.bits());
}

/// In the default environment: a gap of one subnormal step (`b − a` is
/// 4.9e-324 m) is ordered, and the solve applies.
#[test]
fn by_default_a_subnormal_gap_is_ordered() {
    assert_eq!(tiny_gap(f64::MIN_POSITIVE), Ok(true));
    assert_eq!(tiny_gap(0.0), Ok(true));
}

/// The seed's golden figures of `docs/spec.md`.
#[test]
fn by_default_the_seed_gives_its_golden_figures() {
    assert_eq!(figures(), GOLDEN);
}

/// One solve whose gap `b − a` is the smallest subnormal, 4.9e-324 m, above
/// `a` (rest 1 m, wa = wb = 1/kg, rigid, h = 0.1 s).
#[inline(never)]
fn tiny_gap(a: f64) -> Result<bool, Error> {
    let mut a = black_box(a);
    let mut b = black_box(f64::from_bits(a.to_bits() + 1));
    let mut link = DistanceConstraint::<f64>::new();
    let r = link.solve(
        &mut a,
        &mut b,
        black_box(1.0),
        black_box(1.0),
        black_box(1.0),
        black_box(0.0),
        black_box(0.1),
    );
    black_box((a, b, link));
    r
}

/// The seed's four golden figures (`docs/spec.md`), computed in the
/// current environment: a = 0, b = 2 m, wa = wb = 1/kg, rest 1 m,
/// α = 0.01 m/N, h = 0.1 s; C = b − a − rest after one solve, after 10
/// with λ kept, after 10 with λ reset each time, and after one with h = 0.05 s.
#[inline(never)]
fn figures() -> [f64; 4] {
    let run = |iterations: usize, reset_every_time: bool, h: f64| {
        let (mut a, mut b) = (black_box(0.0), black_box(2.0));
        let rest = black_box(1.0);
        let mut link = DistanceConstraint::<f64>::new();
        link.begin_substep();
        for _ in 0..iterations {
            if reset_every_time {
                link.begin_substep();
            }
            let r = link.solve(
                &mut a,
                &mut b,
                black_box(1.0),
                black_box(1.0),
                rest,
                black_box(0.01),
                black_box(h),
            );
            black_box(r).expect("the seed case solves");
        }
        black_box(b - a - rest)
    };
    [
        run(1, false, 0.1),
        run(10, false, 0.1),
        run(10, true, 0.1),
        run(1, false, 0.05),
    ]
}

/// The endpoints (m) after the 10 solves of retained_10, in the current
/// environment.
#[inline(never)]
fn endpoints() -> (f64, f64) {
    let (mut a, mut b) = (black_box(0.0), black_box(2.0));
    let mut link = DistanceConstraint::<f64>::new();
    link.begin_substep();
    for _ in 0..10 {
        let r = link.solve(
            &mut a,
            &mut b,
            black_box(1.0),
            black_box(1.0),
            black_box(1.0),
            black_box(0.01),
            black_box(0.1),
        );
        black_box(r).expect("the seed case solves");
    }
    black_box((a, b))
}

/// The golden figures, bit-exact in the IEEE default.
const GOLDEN: [f64; 4] = [
    0.3333333333333335,
    0.3333333333333335,
    1.6935087808533922e-05,
    0.6666666666666665,
];

/// The control register of this thread, read and written by inline
/// assembly, with the bits the tests set.
#[cfg(all(not(miri), any(target_arch = "x86_64", target_arch = "aarch64")))]
mod reg {
    use std::arch::asm;

    #[cfg(target_arch = "x86_64")]
    pub fn read() -> u64 {
        let mut mxcsr: u32 = 0;
        // SAFETY: stores MXCSR into a local through a valid pointer.
        unsafe { asm!("stmxcsr [{}]", in(reg) &mut mxcsr, options(nostack)) };
        u64::from(mxcsr)
    }

    #[cfg(target_arch = "x86_64")]
    pub fn write(value: u64) {
        let mxcsr = u32::try_from(value).expect("MXCSR is 32 bits");
        // SAFETY: loads MXCSR from a local; the caller restores it.
        unsafe { asm!("ldmxcsr [{}]", in(reg) &mxcsr, options(nostack)) };
    }

    /// MXCSR: FZ bit 15, DAZ bit 6, RC bits 13–14, precision mask bit 12.
    #[cfg(target_arch = "x86_64")]
    pub mod bits {
        pub const FTZ: u64 = 1 << 15;
        pub const DAZ: u64 = 1 << 6;
        pub const FTZ_DAZ: u64 = FTZ | DAZ;
        pub const ROUNDING: u64 = 3 << 13;
        pub const DOWN: u64 = 1 << 13;
        pub const UP: u64 = 2 << 13;
        pub const TOWARD_ZERO: u64 = 3 << 13;
        /// The inexact (precision) exception's mask: clear, it traps.
        pub const PRECISION_MASK: u64 = 1 << 12;
    }

    #[cfg(target_arch = "aarch64")]
    pub fn read() -> u64 {
        let fpcr: u64;
        // SAFETY: reads FPCR, allowed at EL0.
        unsafe { asm!("mrs {}, fpcr", out(reg) fpcr, options(nomem, nostack)) };
        fpcr
    }

    #[cfg(target_arch = "aarch64")]
    pub fn write(value: u64) {
        // SAFETY: writes FPCR, allowed at EL0; the caller restores it.
        unsafe { asm!("msr fpcr, {}", in(reg) value, options(nomem, nostack)) };
    }

    /// FPCR: FZ bit 24 (flushes inputs and results), RMode bits 22–23.
    #[cfg(target_arch = "aarch64")]
    pub mod bits {
        pub const FTZ_DAZ: u64 = 1 << 24;
        pub const ROUNDING: u64 = 3 << 22;
        pub const UP: u64 = 1 << 22;
        pub const DOWN: u64 = 2 << 22;
        pub const TOWARD_ZERO: u64 = 3 << 22;
    }

    /// Puts the register back when dropped (also when a check panics).
    pub struct Restore(u64);

    impl Drop for Restore {
        fn drop(&mut self) {
            write(self.0);
        }
    }

    /// Runs `f` with `set` bits set and `clear` bits cleared in the
    /// register, then restores it; returns `f`'s result and what
    /// `fp_environment()` read inside.
    pub fn with<R>(set: u64, clear: u64, f: impl FnOnce() -> R) -> (R, xpbd::FpEnvironment) {
        let saved = read();
        let restore = Restore(saved);
        write((saved & !clear) | set);
        let env = std::hint::black_box(xpbd::fp_environment());
        let r = f();
        drop(restore);
        assert_eq!(read(), saved);
        (r, env)
    }
}

#[cfg(all(not(miri), any(target_arch = "x86_64", target_arch = "aarch64")))]
mod states {
    use super::reg::{bits, with};
    use super::*;

    #[test]
    fn flush_to_zero_and_denormals_are_zero_are_reported() {
        let ((), env) = with(bits::FTZ_DAZ, 0, || ());
        assert!(env.flush_to_zero && env.denormals_are_zero, "{env:?}");
        assert_eq!(
            env.bits(),
            FpEnvironment::FLUSH_TO_ZERO | FpEnvironment::DENORMALS_ARE_ZERO
        );
        assert_eq!(xpbd::ffi::xpbd_fp_environment(), 0, "restored");
    }

    #[cfg(target_arch = "x86_64")]
    #[test]
    fn flush_to_zero_and_denormals_are_zero_are_two_bits_on_x86() {
        let ((), env) = with(bits::FTZ, 0, || ());
        assert_eq!(env.bits(), FpEnvironment::FLUSH_TO_ZERO);
        let ((), env) = with(bits::DAZ, 0, || ());
        assert_eq!(env.bits(), FpEnvironment::DENORMALS_ARE_ZERO);
    }

    #[test]
    fn directed_rounding_is_reported() {
        for (mode, rounding) in [
            (bits::DOWN, Rounding::Down),
            (bits::UP, Rounding::Up),
            (bits::TOWARD_ZERO, Rounding::TowardZero),
        ] {
            let ((), env) = with(mode, bits::ROUNDING, || ());
            assert_eq!(env.rounding, Some(rounding));
            assert_eq!(env.bits(), FpEnvironment::ROUNDING_NOT_NEAREST);
            assert_eq!(
                xpbd::ffi::xpbd_fp_environment(),
                0,
                "restored after {rounding:?}"
            );
        }
    }

    /// Traps cannot be enabled on most AArch64 cores (and not under
    /// qemu-user: the enable bits read as zero), so this is x86-64 only.
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn an_unmasked_exception_is_reported() {
        let ((), env) = with(0, bits::PRECISION_MASK, || ());
        assert!(env.traps_enabled);
        assert_eq!(env.bits(), FpEnvironment::TRAPS_ENABLED);
    }

    /// Why it matters, statuses: under flush-to-zero the gap `b − a` of
    /// 4.9e-324 m between two normal endpoints rounds to 0, under
    /// denormals-are-zero the subnormal endpoint b = 4.9e-324 m is read as 0:
    /// either way `OK` becomes `ENDPOINTS_NOT_ORDERED`.
    #[test]
    fn under_ftz_or_daz_a_subnormal_gap_is_not_ordered() {
        let (r, env) = with(bits::FTZ_DAZ, 0, || tiny_gap(f64::MIN_POSITIVE));
        assert_ne!(env.bits(), 0);
        assert_eq!(r, Err(Error::EndpointsNotOrdered));
        let (r, _) = with(bits::FTZ_DAZ, 0, || tiny_gap(0.0));
        assert_eq!(r, Err(Error::EndpointsNotOrdered));
        // Restored: the default again.
        assert_eq!(tiny_gap(f64::MIN_POSITIVE), Ok(true));
    }

    /// The same, one mode at a time (x86 has both bits): FTZ flushes the
    /// subnormal result `b − a` in both cases, DAZ only the subnormal input.
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn flush_to_zero_flushes_results_and_daz_inputs() {
        let ordered = |set, a| with(set, 0, || tiny_gap(a)).0;
        // Normal endpoints, subnormal gap: only FTZ changes the status.
        assert_eq!(
            ordered(bits::FTZ, f64::MIN_POSITIVE),
            Err(Error::EndpointsNotOrdered)
        );
        assert_eq!(ordered(bits::DAZ, f64::MIN_POSITIVE), Ok(true));
        // A subnormal endpoint b = 4.9e-324 m (a = 0): DAZ reads it as 0,
        // FTZ flushes the gap it makes.
        assert_eq!(ordered(bits::DAZ, 0.0), Err(Error::EndpointsNotOrdered));
        assert_eq!(ordered(bits::FTZ, 0.0), Err(Error::EndpointsNotOrdered));
    }

    /// Why it matters, results: under each directed rounding mode the
    /// seed's endpoints end elsewhere, and its golden figures change (every
    /// one under round down and toward zero; half_dt_residual under round
    /// up, where the other three happen to round back). IEEE-754 defines
    /// directed rounding exactly, so these are the same bits on every ISA.
    #[test]
    fn under_directed_rounding_the_golden_figures_change() {
        let nearest = endpoints();
        for (mode, want) in [
            (
                bits::DOWN,
                [
                    0.33333333333333304,
                    0.33333333333333326,
                    1.6935087808311877e-5,
                    0.6666666666666665,
                ],
            ),
            (
                bits::UP,
                [
                    0.3333333333333335,
                    0.3333333333333335,
                    1.6935087808533922e-5,
                    0.666666666666667,
                ],
            ),
            (
                bits::TOWARD_ZERO,
                [
                    0.33333333333333304,
                    0.3333333333333328,
                    1.6935087808311877e-5,
                    0.6666666666666665,
                ],
            ),
        ] {
            let (got, env) = with(mode, bits::ROUNDING, figures);
            assert_eq!(env.bits(), FpEnvironment::ROUNDING_NOT_NEAREST);
            assert_ne!(got, GOLDEN, "{mode:#x}");
            assert_eq!(got, want, "{mode:#x}");
            let (ends, _) = with(mode, bits::ROUNDING, endpoints);
            assert_ne!(
                ends.0.to_bits(),
                nearest.0.to_bits(),
                "{mode:#x}: a = {}",
                ends.0
            );
            assert_ne!(
                ends.1.to_bits(),
                nearest.1.to_bits(),
                "{mode:#x}: b = {}",
                ends.1
            );
        }
        assert_eq!(figures(), GOLDEN, "restored");
        assert_eq!(endpoints(), (0.33333333333333337, 1.6666666666666667));
    }
}
