//! The scalar type the solver is generic over: [`f32`] or [`f64`].
//!
//! Every solver in this crate is written once against [`Real`] and
//! instantiated for both IEEE-754 binary32 and binary64. The trait is sealed:
//! only `f32` and `f64` implement it, so the arithmetic (and therefore every
//! golden figure) is plain IEEE-754 with round-to-nearest and no fused
//! multiply-add.

use core::fmt::{Debug, Display};
use core::ops::{Add, Div, Mul, Neg, Sub};

mod sealed {
    /// A computation written once per IEEE format, reached from code
    /// generic over [`Real`](super::Real) through [`Sealed::per_format`]:
    /// `In<T>` and `Out<T>` are its argument and result at format `T`, so
    /// the `f32` arm sees `In<f32>` (and the `f64` arm `In<f64>`) with no
    /// cast. Only types of this module appear here, so the module imports
    /// nothing from the rest of the crate; the crate's per-type kernels
    /// (`colored::kernel`) implement it.
    pub trait PerFormat {
        /// The argument at format `T`.
        type In<T: super::Real>;
        /// The result at format `T`.
        type Out<T: super::Real>;
        /// The computation for binary32.
        ///
        /// # Safety
        /// As the implementor documents.
        unsafe fn f32(x: Self::In<f32>) -> Self::Out<f32>;
        /// The computation for binary64.
        ///
        /// # Safety
        /// As the implementor documents.
        unsafe fn f64(x: Self::In<f64>) -> Self::Out<f64>;
    }

    /// Seals [`Real`](super::Real): the IEEE-754 encoding for the crate's
    /// bit-level input checks, and the hook that runs a per-format
    /// computation for this type (not nameable outside the crate).
    pub trait Sealed: Copy + Sized {
        /// The sign bit of the format.
        const SIGN: u64;
        /// The bit pattern of +∞: every exponent bit set, mantissa zero.
        const INF: u64;
        /// The IEEE-754 bit pattern, zero-extended to 64 bits.
        fn raw(self) -> u64;
        /// The gap from `|self|` to the next larger value of the format
        /// (its ulp; +∞ past the largest finite value, NaN for NaN).
        fn spacing(self) -> Self;
        /// Runs `F`'s computation for this format: [`PerFormat::f32`] for
        /// `f32`, [`PerFormat::f64`] for `f64`.
        ///
        /// # Safety
        /// As `F::f32` or `F::f64`.
        unsafe fn per_format<F: PerFormat>(x: F::In<Self>) -> F::Out<Self>
        where
            Self: super::Real;
    }

    impl Sealed for f32 {
        const SIGN: u64 = 0x8000_0000;
        const INF: u64 = 0x7f80_0000;
        #[inline]
        fn raw(self) -> u64 {
            u64::from(self.to_bits())
        }
        #[inline]
        fn spacing(self) -> Self {
            let a = f32::from_bits(self.to_bits() & 0x7fff_ffff);
            f32::from_bits(a.to_bits().wrapping_add(1)) - a
        }
        #[inline(always)]
        unsafe fn per_format<F: PerFormat>(x: F::In<f32>) -> F::Out<f32> {
            // SAFETY: forwarded caller contract.
            unsafe { F::f32(x) }
        }
    }

    impl Sealed for f64 {
        const SIGN: u64 = 0x8000_0000_0000_0000;
        const INF: u64 = 0x7ff0_0000_0000_0000;
        #[inline]
        fn raw(self) -> u64 {
            self.to_bits()
        }
        #[inline]
        fn spacing(self) -> Self {
            let a = f64::from_bits(self.to_bits() & 0x7fff_ffff_ffff_ffff);
            f64::from_bits(a.to_bits().wrapping_add(1)) - a
        }
        #[inline(always)]
        unsafe fn per_format<F: PerFormat>(x: F::In<f64>) -> F::Out<f64> {
            // SAFETY: forwarded caller contract.
            unsafe { F::f64(x) }
        }
    }
}

pub(crate) use sealed::PerFormat;

/// The spacing of the values of `T` at `x`: the gap from `|x|` to the next
/// larger value (one ulp; +∞ at the largest finite value, NaN for NaN).
#[inline]
pub(crate) fn spacing<T: Real>(x: T) -> T {
    sealed::Sealed::spacing(x)
}

/// An IEEE-754 floating-point scalar: implemented for [`f32`] and [`f64`] only.
///
/// The operations are the ones the solvers need and nothing more. `sqrt` is
/// correctly rounded, as IEEE-754 requires: the SSE2 `sqrtsd`/`sqrtss`
/// instruction on x86-64 (part of the baseline ISA, and visible to LLVM's
/// vectorizer, which turns it into `sqrtpd`/`sqrtps` in colored sweeps), and
/// [`libm`]'s software square root elsewhere. Both give the same bits, so
/// the crate needs no `std`.
///
/// # Examples
///
/// ```
/// use xpbd::Real;
/// fn half<T: Real>(x: T) -> T { x / (T::ONE + T::ONE) }
/// assert_eq!(half(3.0_f64), 1.5);
/// assert_eq!(half(3.0_f32), 1.5);
/// ```
pub trait Real:
    sealed::Sealed
    + Copy
    + PartialEq
    + PartialOrd
    + Default
    + Debug
    + Display
    + Add<Output = Self>
    + Sub<Output = Self>
    + Mul<Output = Self>
    + Div<Output = Self>
    + Neg<Output = Self>
    + Send
    + Sync
    + 'static
{
    /// Additive identity, `0`.
    const ZERO: Self;
    /// Multiplicative identity, `1`.
    const ONE: Self;
    /// Smallest positive normal number.
    const MIN_POSITIVE: Self;
    /// `true` when the value is neither infinite nor NaN.
    fn is_finite(self) -> bool;
    /// Correctly rounded square root (SSE2 on x86-64, `libm` elsewhere), NaN
    /// for negative input.
    fn sqrt(self) -> Self;
    /// Absolute value.
    fn abs(self) -> Self;
    /// The value converted to `f64` exactly (`f32` widens without rounding).
    fn to_f64(self) -> f64;
    /// The nearest value of this type to `x` (round to nearest, ties to even).
    fn from_f64(x: f64) -> Self;
}

impl Real for f64 {
    const ZERO: Self = 0.0;
    const ONE: Self = 1.0;
    const MIN_POSITIVE: Self = f64::MIN_POSITIVE;
    #[inline]
    fn is_finite(self) -> bool {
        f64::is_finite(self)
    }
    #[inline]
    fn sqrt(self) -> Self {
        hw::sqrt(self)
    }
    #[inline]
    fn abs(self) -> Self {
        // The sign bit cleared: libm's `fabs`, inlined.
        f64::from_bits(self.to_bits() & !(1 << 63))
    }
    #[inline]
    fn to_f64(self) -> f64 {
        self
    }
    #[inline]
    fn from_f64(x: f64) -> Self {
        x
    }
}

impl Real for f32 {
    const ZERO: Self = 0.0;
    const ONE: Self = 1.0;
    const MIN_POSITIVE: Self = f32::MIN_POSITIVE;
    #[inline]
    fn is_finite(self) -> bool {
        f32::is_finite(self)
    }
    #[inline]
    fn sqrt(self) -> Self {
        hw::sqrtf(self)
    }
    #[inline]
    fn abs(self) -> Self {
        // The sign bit cleared: libm's `fabsf`, inlined.
        f32::from_bits(self.to_bits() & !(1 << 31))
    }
    #[inline]
    fn to_f64(self) -> f64 {
        f64::from(self)
    }
    #[inline]
    #[allow(clippy::as_conversions)] // f64 → f32 rounding is the intent
    fn from_f64(x: f64) -> Self {
        x as f32
    }
}

// The input checks below are exact IEEE-754 classifications and
// comparisons done on the bit pattern with integer operations. They mean
// exactly what the float expressions in their docs mean, but on a core
// without a double-precision FPU (Cortex-M4F) they need no soft-float
// comparison helper and far less code than the compiler's lowering of the
// float forms (see `docs/code-size.md`).

/// `x.is_finite()`: the exponent bits are not all set.
#[inline]
pub(crate) fn finite<T: Real>(x: T) -> bool {
    x.raw() & !T::SIGN < T::INF
}

/// `x.is_finite() && x >= 0` (so `-0.0` passes, NaN does not): a
/// non-negative encoding below +∞, or exactly −0.
#[inline]
pub(crate) fn finite_non_negative<T: Real>(x: T) -> bool {
    let u = x.raw();
    u < T::INF || u == T::SIGN
}

/// `x.is_finite() && x > 0`: a non-negative encoding strictly between +0
/// and +∞.
#[inline]
pub(crate) fn finite_positive<T: Real>(x: T) -> bool {
    x.raw().wrapping_sub(1) < T::INF - 1
}

/// `x.is_finite() && x >= T::MIN_POSITIVE`: an encoding from the
/// smallest positive normal up to (not including) +∞, in one unsigned
/// comparison (NaN, ±0, subnormals, negatives and +∞ fail).
#[inline(always)]
pub(crate) fn finite_normal_positive<T: Real>(x: T) -> bool {
    let min = T::MIN_POSITIVE.raw();
    x.raw().wrapping_sub(min) < T::INF - min
}

/// `x == 0 && y == 0` (either sign). One test on both encodings: the
/// single-value form is folded back into a float comparison by the
/// optimiser (a soft-float call on Cortex-M4F).
#[inline]
pub(crate) fn both_zero<T: Real>(x: T, y: T) -> bool {
    (x.raw() | y.raw()) & !T::SIGN == 0
}

/// `x > 0` for a non-NaN `x` (+∞ included): a non-negative encoding other
/// than +0. Used on differences: for finite `a`, `b`, `b − a > 0` exactly
/// when `b > a` (with gradual underflow the difference of two distinct
/// finite values never rounds to zero, and an overflow keeps its sign).
#[inline]
pub(crate) fn positive<T: Real>(x: T) -> bool {
    x.raw().wrapping_sub(1) < T::INF
}

/// `x < 0` for a non-NaN `x`: the sign bit set and not −0.
#[inline]
pub(crate) fn negative<T: Real>(x: T) -> bool {
    x.raw() > T::SIGN
}

/// Correctly rounded square roots. On x86-64 SSE2 is part of the baseline
/// target, so the instruction is always there; the `core::arch` intrinsic
/// lowers to LLVM's `sqrt`, which the loop vectorizer can widen (libm's
/// `arch` feature uses inline assembly, which it cannot, and Miri rejects).
mod hw {
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    #[inline(always)]
    pub(super) fn sqrt(x: f64) -> f64 {
        use core::arch::x86_64::{_mm_cvtsd_f64, _mm_set_sd, _mm_sqrt_sd};
        // SAFETY: the intrinsics need SSE2, which `cfg(target_feature =
        // "sse2")` guarantees at compile time; they touch no memory.
        unsafe { _mm_cvtsd_f64(_mm_sqrt_sd(_mm_set_sd(x), _mm_set_sd(x))) }
    }

    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    #[inline(always)]
    pub(super) fn sqrtf(x: f32) -> f32 {
        use core::arch::x86_64::{_mm_cvtss_f32, _mm_set_ss, _mm_sqrt_ss};
        // SAFETY: as for `sqrt`: SSE2 is enabled at compile time, no memory.
        unsafe { _mm_cvtss_f32(_mm_sqrt_ss(_mm_set_ss(x))) }
    }

    #[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
    #[inline]
    pub(super) fn sqrt(x: f64) -> f64 {
        libm::sqrt(x)
    }

    #[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
    #[inline]
    pub(super) fn sqrtf(x: f32) -> f32 {
        libm::sqrtf(x)
    }
}
