//! The NEON kernels (aarch64): the generic code of the x86-64 ones over
//! `float64x2_t` (2 f64 links) and `float32x4_t` (4 f32 links, with the
//! neighbour fast path: `ld2`/`st2` load and store the even and odd
//! particles of a group directly). NEON is part of the aarch64 baseline
//! (compile-time `target_feature = "neon"`), so nothing is detected; the
//! `Isa`'s NEON bit selects these instead of the portable chunked loop.
//!
//! Same bits as the baseline: `fdiv` and `fsqrt` are correctly rounded, no
//! fused multiply-add is written (Rust never contracts), and the operations
//! whose NEON form differs from SSE are built from comparisons and selects
//! with the SSE semantics: `max(a, b)` is `a > b ? a : b` (SSE's `maxpd`:
//! the second operand for NaN or equal values, where NEON's `fmax` would
//! give NaN or +0), `ne` is `!(a == b)` (true for NaN, as `cmpneqpd`).

use super::lanes::{lanes, Lanes};
use super::neighbours::{decide, shape, Pairs, Shape};
use crate::colored::{RawLinks, RawParticles};
use crate::solver::{SweepStats, SystemError, ZeroLength};
use core::arch::aarch64::*;

/// The result of a kernel: statistics and the first link not applied.
type Out<T> = (SweepStats<T>, Option<SystemError>);

// SAFETY (every function): NEON is enabled at compile time (the module's
// cfg); register operations only.
#[allow(clippy::undocumented_unsafe_blocks)]
mod ops {
    use core::arch::aarch64::*;
    macro_rules! bits {
        ($v:ty, $u:ty, $to:ident, $from:ident, $and:ident, $orr:ident, $eor:ident,
         $bic:ident, $ceq:ident, $cgt:ident, $bsl:ident, $mvn:ident,
         $andf:ident, $orf:ident, $xorf:ident, $andnf:ident, $maxf:ident, $nef:ident) => {
            #[inline(always)]
            pub(super) unsafe fn $andf(a: $v, b: $v) -> $v {
                unsafe { $from($and($to(a), $to(b))) }
            }
            #[inline(always)]
            pub(super) unsafe fn $orf(a: $v, b: $v) -> $v {
                unsafe { $from($orr($to(a), $to(b))) }
            }
            #[inline(always)]
            pub(super) unsafe fn $xorf(a: $v, b: $v) -> $v {
                unsafe { $from($eor($to(a), $to(b))) }
            }
            /// `!a & b`, as SSE's `andnot`.
            #[inline(always)]
            pub(super) unsafe fn $andnf(a: $v, b: $v) -> $v {
                unsafe { $from($bic($to(b), $to(a))) }
            }
            /// `a > b ? a : b`, as SSE's `max`.
            #[inline(always)]
            pub(super) unsafe fn $maxf(a: $v, b: $v) -> $v {
                unsafe { $bsl($cgt(a, b), a, b) }
            }
            /// `!(a == b)`, as SSE's `cmpneq`.
            #[inline(always)]
            pub(super) unsafe fn $nef(a: $v, b: $v) -> $v {
                unsafe { $from($mvn($ceq(a, b))) }
            }
        };
    }
    /// `vmvnq` for 64-bit lanes (NEON has it for 32-bit lanes).
    #[inline(always)]
    unsafe fn mvn64(a: uint64x2_t) -> uint64x2_t {
        unsafe { vreinterpretq_u64_u32(vmvnq_u32(vreinterpretq_u32_u64(a))) }
    }
    bits!(
        float64x2_t,
        uint64x2_t,
        vreinterpretq_u64_f64,
        vreinterpretq_f64_u64,
        vandq_u64,
        vorrq_u64,
        veorq_u64,
        vbicq_u64,
        vceqq_f64,
        vcgtq_f64,
        vbslq_f64,
        mvn64,
        and_f64,
        or_f64,
        xor_f64,
        andnot_f64,
        max_f64,
        ne_f64
    );
    bits!(
        float32x4_t,
        uint32x4_t,
        vreinterpretq_u32_f32,
        vreinterpretq_f32_u32,
        vandq_u32,
        vorrq_u32,
        veorq_u32,
        vbicq_u32,
        vceqq_f32,
        vcgtq_f32,
        vbslq_f32,
        vmvnq_u32,
        and_f32,
        or_f32,
        xor_f32,
        andnot_f32,
        max_f32,
        ne_f32
    );
    #[inline(always)]
    pub(super) unsafe fn ge_f64(a: float64x2_t, b: float64x2_t) -> float64x2_t {
        unsafe { vreinterpretq_f64_u64(vcgeq_f64(a, b)) }
    }
    #[inline(always)]
    pub(super) unsafe fn eq_f64(a: float64x2_t, b: float64x2_t) -> float64x2_t {
        unsafe { vreinterpretq_f64_u64(vceqq_f64(a, b)) }
    }
    #[inline(always)]
    pub(super) unsafe fn ge_f32(a: float32x4_t, b: float32x4_t) -> float32x4_t {
        unsafe { vreinterpretq_f32_u32(vcgeq_f32(a, b)) }
    }
    #[inline(always)]
    pub(super) unsafe fn eq_f32(a: float32x4_t, b: float32x4_t) -> float32x4_t {
        unsafe { vreinterpretq_f32_u32(vceqq_f32(a, b)) }
    }
    /// The sign bits as a lane mask (lane 0 in bit 0).
    #[inline(always)]
    pub(super) unsafe fn mask_f64(a: float64x2_t) -> i32 {
        unsafe {
            let u = vreinterpretq_u64_f64(a);
            i32::from(vgetq_lane_u64::<0>(u) >> 63 != 0)
                | i32::from(vgetq_lane_u64::<1>(u) >> 63 != 0) << 1
        }
    }
    #[inline(always)]
    pub(super) unsafe fn mask_f32(a: float32x4_t) -> i32 {
        unsafe {
            let u = vreinterpretq_u32_f32(a);
            i32::from(vgetq_lane_u32::<0>(u) >> 31 != 0)
                | i32::from(vgetq_lane_u32::<1>(u) >> 31 != 0) << 1
                | i32::from(vgetq_lane_u32::<2>(u) >> 31 != 0) << 2
                | i32::from(vgetq_lane_u32::<3>(u) >> 31 != 0) << 3
        }
    }
}

#[allow(clippy::undocumented_unsafe_blocks)] // documented once in `lanes!`
mod impls {
    use super::ops::*;
    use super::{lanes, Lanes};
    use core::arch::aarch64::*;
    lanes!(
        float64x2_t,
        f64,
        2,
        3,
        f64,
        vdupq_n_f64,
        vld1q_f64,
        vst1q_f64,
        vaddq_f64,
        vsubq_f64,
        vmulq_f64,
        vdivq_f64,
        vsqrtq_f64,
        and_f64,
        andnot_f64,
        or_f64,
        xor_f64,
        max_f64,
        ne_f64,
        ge_f64,
        eq_f64,
        mask_f64
    );
    lanes!(
        float32x4_t,
        f32,
        4,
        15,
        f32,
        vdupq_n_f32,
        vld1q_f32,
        vst1q_f32,
        vaddq_f32,
        vsubq_f32,
        vmulq_f32,
        vdivq_f32,
        vsqrtq_f32,
        and_f32,
        andnot_f32,
        or_f32,
        xor_f32,
        max_f32,
        ne_f32,
        ge_f32,
        eq_f32,
        mask_f32
    );
}

/// [`shape`] for 4 links in NEON integer lanes.
///
/// # Safety
/// `i` and `j` are valid for 4 reads.
#[inline(always)]
unsafe fn shape4(i: *const u32, j: *const u32) -> Option<Shape> {
    // SAFETY: NEON at compile time; 4 reads each (caller contract).
    unsafe {
        let vi = vld1q_u32(i);
        let vj = vld1q_u32(j);
        let bi = vdupq_laneq_u32::<0>(vi);
        let di = vsubq_u32(vi, bi);
        let dj = vsubq_u32(vj, vdupq_laneq_u32::<0>(vj));
        let step = vld1q_u32([0u32, 1, 2, 3].as_ptr());
        let run = vandq_u32(vceqq_u32(di, step), vceqq_u32(dj, step));
        let pair = vandq_u32(
            vceqq_u32(di, vld1q_u32([0u32, 2, 4, 6].as_ptr())),
            vceqq_u32(vsubq_u32(vj, bi), vld1q_u32([1u32, 3, 5, 7].as_ptr())),
        );
        decide(
            vgetq_lane_u32::<0>(vi),
            vgetq_lane_u32::<0>(vj),
            4,
            vminvq_u32(run) == u32::MAX,
            vminvq_u32(pair) == u32::MAX,
        )
    }
}

// SAFETY: each method reads or writes only the 4 or 8 values its contract
// names; NEON is enabled at compile time.
unsafe impl Pairs<f32> for float32x4_t {
    #[inline(always)]
    unsafe fn shape(i: *const u32, j: *const u32) -> Option<Shape> {
        // SAFETY: forwarded (LANES reads each).
        unsafe { shape4(i, j) }
    }
    #[inline(always)]
    unsafe fn load_pairs(p: *const f32) -> (Self, Self) {
        // SAFETY: `p .. p + 8` readable (caller contract): `ld2`
        // de-interleaves the even and odd entries.
        let v = unsafe { vld2q_f32(p) };
        (v.0, v.1)
    }
    #[inline(always)]
    unsafe fn store_pairs(p: *mut f32, even: Self, odd: Self) {
        // SAFETY: `p .. p + 8` writable (caller contract): `st2`
        // interleaves them back.
        unsafe { vst2q_f32(p, float32x4x2_t(even, odd)) }
    }
}

// SAFETY: each method reads or writes only the 4 values its contract
// names; NEON is enabled at compile time.
unsafe impl Pairs<f64> for float64x2_t {
    #[inline(always)]
    unsafe fn shape(i: *const u32, j: *const u32) -> Option<Shape> {
        // SAFETY: forwarded (LANES reads each).
        unsafe { shape::<2>(i, j) }
    }
    #[inline(always)]
    unsafe fn load_pairs(p: *const f64) -> (Self, Self) {
        // SAFETY: `p .. p + 4` readable (caller contract): `ld2`.
        let v = unsafe { vld2q_f64(p) };
        (v.0, v.1)
    }
    #[inline(always)]
    unsafe fn store_pairs(p: *mut f64, even: Self, odd: Self) {
        // SAFETY: `p .. p + 4` writable (caller contract): `st2`.
        unsafe { vst2q_f64(p, float64x2x2_t(even, odd)) }
    }
}

/// The f64 kernel on NEON (2 links per register).
///
/// # Safety
/// As [`solve_range`](super::super::solve_range).
#[inline(always)]
pub(in crate::colored::kernel) unsafe fn neon_range_f64<P: RawParticles<f64>>(
    p: P,
    l: RawLinks<f64>,
    begin: usize,
    end: usize,
    policy: ZeroLength,
) -> Out<f64> {
    // SAFETY: forwarded caller contract.
    unsafe { super::range_strided::<f64, float64x2_t, P>(p, l, begin, end, policy) }
}

/// The f32 kernel on NEON (4 links per register, the neighbour fast path
/// over SoA particles).
///
/// # Safety
/// As [`neon_range_f64`].
#[inline(always)]
pub(in crate::colored::kernel) unsafe fn neon_range_f32<P: RawParticles<f32>>(
    p: P,
    l: RawLinks<f32>,
    begin: usize,
    end: usize,
    policy: ZeroLength,
) -> Out<f32> {
    // SAFETY: forwarded caller contract.
    unsafe { super::range_strided::<f32, float32x4_t, P>(p, l, begin, end, policy) }
}

#[cfg(test)]
mod tests {
    use super::super::neighbours::tests::agrees;
    use super::*;

    /// The NEON test of 4 lanes against the scalar one.
    #[test]
    fn vector_shape_is_the_scalar_shape() {
        // SAFETY: both arrays hold 4 values; NEON at compile time.
        agrees::<4>(|i, j| unsafe { shape4(i.as_ptr(), j.as_ptr()) });
    }
}
