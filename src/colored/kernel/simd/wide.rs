//! The AVX2 and AVX-512 kernels: the same generic code as the SSE2 one
//! ([`range_strided`](super::range_strided)) over wider
//! registers (AVX2: 4 f64 or 8 f32 links, AVX-512: 8 or 16), compiled in
//! functions with `#[target_feature]` that the dispatch calls only when an
//! [`Isa`](crate::colored::Isa) holds the bit (cpuid and xgetbv showed the
//! CPU and OS support it).
//!
//! Same bits as SSE2: every lane runs the same IEEE operations in the same
//! order (`vsqrtpd`/`vdivpd` are correctly rounded like `sqrtpd`/`divpd`;
//! no FMA is written and Rust never contracts `a * b + c`), the
//! comparisons use the predicates of the SSE ones (`cmpneq` = `NEQ_UQ`,
//! `cmpge` = `GE_OS`, `cmpeq` = `EQ_OQ`), and the links of one color share
//! no particle, so how many go in one register changes nothing. The
//! statistics' maxima are of non-negative values, the same whatever the
//! grouping; the first link not applied is the lowest position in every
//! kernel (groups in order, lowest lane first, then the tail).
//!
//! AVX-512 comparisons give mask registers; here they are widened back to
//! all-ones lanes (`vpbroadcastq` under a zero mask) so that the generic
//! code, written for SSE's vector masks, runs unchanged. The AVX-512
//! intrinsics are stable since Rust 1.89: `build.rs` sets `xpbd_avx512`
//! from that version on, and older compilers (the MSRV) build without the
//! AVX-512 kernels (the bit then runs the AVX2 kernel).

// Clippy measures the intrinsics against the MSRV; the AVX-512 items exist
// only under `xpbd_avx512`, which `build.rs` sets for Rust ≥ 1.89 (the
// MSRV build, step 86, checks the rest of the file).
#![allow(clippy::incompatible_msrv)]

use super::lanes::{lanes, Lanes};
use super::neighbours::{decide, shape4, Pairs, Shape};
use crate::colored::{RawLinks, RawParticles};
use crate::solver::{SweepStats, SystemError, ZeroLength};
use core::arch::x86_64::*;

/// The result of a kernel: statistics and the first link not applied.
type Out<T> = (SweepStats<T>, Option<SystemError>);

// Comparisons with the SSE predicates (see the module documentation).
// SAFETY (every function): only called from the AVX2 or AVX-512 kernels
// (see `lanes!`); register operations only.
#[allow(clippy::undocumented_unsafe_blocks)]
mod cmp {
    use core::arch::x86_64::*;
    #[inline(always)]
    pub(super) unsafe fn ne_pd256(a: __m256d, b: __m256d) -> __m256d {
        unsafe { _mm256_cmp_pd::<_CMP_NEQ_UQ>(a, b) }
    }
    #[inline(always)]
    pub(super) unsafe fn ge_pd256(a: __m256d, b: __m256d) -> __m256d {
        unsafe { _mm256_cmp_pd::<_CMP_GE_OS>(a, b) }
    }
    #[inline(always)]
    pub(super) unsafe fn eq_pd256(a: __m256d, b: __m256d) -> __m256d {
        unsafe { _mm256_cmp_pd::<_CMP_EQ_OQ>(a, b) }
    }
    #[inline(always)]
    pub(super) unsafe fn ne_ps256(a: __m256, b: __m256) -> __m256 {
        unsafe { _mm256_cmp_ps::<_CMP_NEQ_UQ>(a, b) }
    }
    #[inline(always)]
    pub(super) unsafe fn ge_ps256(a: __m256, b: __m256) -> __m256 {
        unsafe { _mm256_cmp_ps::<_CMP_GE_OS>(a, b) }
    }
    #[inline(always)]
    pub(super) unsafe fn eq_ps256(a: __m256, b: __m256) -> __m256 {
        unsafe { _mm256_cmp_ps::<_CMP_EQ_OQ>(a, b) }
    }
}

#[cfg(xpbd_avx512)]
#[allow(clippy::undocumented_unsafe_blocks)] // as `cmp`
mod cmp512 {
    use core::arch::x86_64::*;
    /// All-ones lanes where `k` is set.
    #[inline(always)]
    unsafe fn pd(k: __mmask8) -> __m512d {
        unsafe { _mm512_castsi512_pd(_mm512_maskz_set1_epi64(k, -1)) }
    }
    #[inline(always)]
    unsafe fn ps(k: __mmask16) -> __m512 {
        unsafe { _mm512_castsi512_ps(_mm512_maskz_set1_epi32(k, -1)) }
    }
    #[inline(always)]
    pub(super) unsafe fn ne_pd512(a: __m512d, b: __m512d) -> __m512d {
        unsafe { pd(_mm512_cmp_pd_mask::<_CMP_NEQ_UQ>(a, b)) }
    }
    #[inline(always)]
    pub(super) unsafe fn ge_pd512(a: __m512d, b: __m512d) -> __m512d {
        unsafe { pd(_mm512_cmp_pd_mask::<_CMP_GE_OS>(a, b)) }
    }
    #[inline(always)]
    pub(super) unsafe fn eq_pd512(a: __m512d, b: __m512d) -> __m512d {
        unsafe { pd(_mm512_cmp_pd_mask::<_CMP_EQ_OQ>(a, b)) }
    }
    #[inline(always)]
    pub(super) unsafe fn ne_ps512(a: __m512, b: __m512) -> __m512 {
        unsafe { ps(_mm512_cmp_ps_mask::<_CMP_NEQ_UQ>(a, b)) }
    }
    #[inline(always)]
    pub(super) unsafe fn ge_ps512(a: __m512, b: __m512) -> __m512 {
        unsafe { ps(_mm512_cmp_ps_mask::<_CMP_GE_OS>(a, b)) }
    }
    #[inline(always)]
    pub(super) unsafe fn eq_ps512(a: __m512, b: __m512) -> __m512 {
        unsafe { ps(_mm512_cmp_ps_mask::<_CMP_EQ_OQ>(a, b)) }
    }
    /// The sign bits of the lanes.
    #[inline(always)]
    pub(super) unsafe fn mask_pd512(a: __m512d) -> i32 {
        unsafe { i32::from(_mm512_movepi64_mask(_mm512_castpd_si512(a))) }
    }
    #[inline(always)]
    pub(super) unsafe fn mask_ps512(a: __m512) -> i32 {
        unsafe { i32::from(_mm512_movepi32_mask(_mm512_castps_si512(a))) }
    }
}

#[allow(clippy::undocumented_unsafe_blocks)] // documented once in `lanes!`
mod impls {
    use super::cmp::*;
    #[cfg(xpbd_avx512)]
    use super::cmp512::*;
    use super::{lanes, Lanes};
    use core::arch::x86_64::*;
    lanes!(
        __m256d,
        f64,
        4,
        15,
        f64,
        _mm256_set1_pd,
        _mm256_loadu_pd,
        _mm256_storeu_pd,
        _mm256_add_pd,
        _mm256_sub_pd,
        _mm256_mul_pd,
        _mm256_div_pd,
        _mm256_sqrt_pd,
        _mm256_and_pd,
        _mm256_andnot_pd,
        _mm256_or_pd,
        _mm256_xor_pd,
        _mm256_max_pd,
        ne_pd256,
        ge_pd256,
        eq_pd256,
        _mm256_movemask_pd
    );
    lanes!(
        __m256,
        f32,
        8,
        0xff,
        f32,
        _mm256_set1_ps,
        _mm256_loadu_ps,
        _mm256_storeu_ps,
        _mm256_add_ps,
        _mm256_sub_ps,
        _mm256_mul_ps,
        _mm256_div_ps,
        _mm256_sqrt_ps,
        _mm256_and_ps,
        _mm256_andnot_ps,
        _mm256_or_ps,
        _mm256_xor_ps,
        _mm256_max_ps,
        ne_ps256,
        ge_ps256,
        eq_ps256,
        _mm256_movemask_ps
    );
    #[cfg(xpbd_avx512)]
    lanes!(
        __m512d,
        f64,
        8,
        0xff,
        f64,
        _mm512_set1_pd,
        _mm512_loadu_pd,
        _mm512_storeu_pd,
        _mm512_add_pd,
        _mm512_sub_pd,
        _mm512_mul_pd,
        _mm512_div_pd,
        _mm512_sqrt_pd,
        _mm512_and_pd,
        _mm512_andnot_pd,
        _mm512_or_pd,
        _mm512_xor_pd,
        _mm512_max_pd,
        ne_pd512,
        ge_pd512,
        eq_pd512,
        mask_pd512
    );
    #[cfg(xpbd_avx512)]
    lanes!(
        __m512,
        f32,
        16,
        0xffff,
        f32,
        _mm512_set1_ps,
        _mm512_loadu_ps,
        _mm512_storeu_ps,
        _mm512_add_ps,
        _mm512_sub_ps,
        _mm512_mul_ps,
        _mm512_div_ps,
        _mm512_sqrt_ps,
        _mm512_and_ps,
        _mm512_andnot_ps,
        _mm512_or_ps,
        _mm512_xor_ps,
        _mm512_max_ps,
        ne_ps512,
        ge_ps512,
        eq_ps512,
        mask_ps512
    );
}

/// [`shape`](super::neighbours::shape) for 8 links in AVX2 integer lanes.
///
/// # Safety
/// `i` and `j` are valid for 8 reads; only called from the AVX2 and
/// AVX-512 kernels.
#[inline(always)]
#[allow(clippy::as_conversions)] // the bits of a lane, as u32
unsafe fn shape8(i: *const u32, j: *const u32) -> Option<Shape> {
    // SAFETY: AVX2 is available (caller contract); the unaligned 32-byte
    // loads read the 8 entries the contract names.
    unsafe {
        let vi = _mm256_loadu_si256(i.cast());
        let vj = _mm256_loadu_si256(j.cast());
        let (i0, j0) = (
            _mm256_cvtsi256_si32(vi) as u32,
            _mm256_cvtsi256_si32(vj) as u32,
        );
        let bi = _mm256_broadcastd_epi32(_mm256_castsi256_si128(vi));
        let di = _mm256_sub_epi32(vi, bi);
        let all = |m: __m256i| _mm256_movemask_epi8(m) == -1;
        // As `shape4`: `i` picks the shape, `j` confirms it.
        if all(_mm256_cmpeq_epi32(
            di,
            _mm256_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14),
        )) {
            let pair = all(_mm256_cmpeq_epi32(
                _mm256_sub_epi32(vj, bi),
                _mm256_setr_epi32(1, 3, 5, 7, 9, 11, 13, 15),
            ));
            return decide(i0, j0, 8, false, pair);
        }
        let step = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
        if !all(_mm256_cmpeq_epi32(di, step)) {
            return None;
        }
        let dj = _mm256_sub_epi32(vj, _mm256_broadcastd_epi32(_mm256_castsi256_si128(vj)));
        decide(i0, j0, 8, all(_mm256_cmpeq_epi32(dj, step)), false)
    }
}

/// [`shape`](super::neighbours::shape) for 16 links in AVX-512 integer
/// lanes.
///
/// # Safety
/// `i` and `j` are valid for 16 reads; only called from the AVX-512
/// kernels.
#[cfg(xpbd_avx512)]
#[inline(always)]
#[allow(clippy::as_conversions)] // the bits of a lane, as u32
unsafe fn shape16(i: *const u32, j: *const u32) -> Option<Shape> {
    // SAFETY: AVX-512 F is available (caller contract); the unaligned
    // 64-byte loads read the 16 entries the contract names.
    unsafe {
        let vi = _mm512_loadu_si512(i.cast());
        let vj = _mm512_loadu_si512(j.cast());
        let (i0, j0) = (
            _mm512_cvtsi512_si32(vi) as u32,
            _mm512_cvtsi512_si32(vj) as u32,
        );
        let bi = _mm512_broadcastd_epi32(_mm512_castsi512_si128(vi));
        let di = _mm512_sub_epi32(vi, bi);
        // As `shape4`: `i` picks the shape, `j` confirms it.
        let even = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
        if _mm512_cmpeq_epi32_mask(di, even) == 0xffff {
            let odd = _mm512_setr_epi32(1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31);
            let pair = _mm512_cmpeq_epi32_mask(_mm512_sub_epi32(vj, bi), odd) == 0xffff;
            return decide(i0, j0, 16, false, pair);
        }
        let step = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
        if _mm512_cmpeq_epi32_mask(di, step) != 0xffff {
            return None;
        }
        let dj = _mm512_sub_epi32(vj, _mm512_broadcastd_epi32(_mm512_castsi512_si128(vj)));
        decide(
            i0,
            j0,
            16,
            _mm512_cmpeq_epi32_mask(dj, step) == 0xffff,
            false,
        )
    }
}

// SAFETY: each method reads or writes only the `LANES` (8) or `2 LANES`
// (16) values its contract names; AVX2 is available (see `lanes!`).
unsafe impl Pairs<f32> for __m256 {
    #[inline(always)]
    unsafe fn shape(i: *const u32, j: *const u32) -> Option<Shape> {
        // SAFETY: forwarded (LANES reads each).
        unsafe { shape8(i, j) }
    }
    #[inline(always)]
    unsafe fn load_pairs(p: *const f32) -> (Self, Self) {
        // SAFETY: `p .. p + 16` readable (caller contract).
        unsafe {
            let a = _mm256_loadu_ps(p);
            let b = _mm256_loadu_ps(p.add(8));
            // Per 128-bit half: [p0 p2 p8 p10 | p4 p6 p12 p14], then the
            // 64-bit pieces in the order 0, 2, 1, 3.
            let even = _mm256_shuffle_ps::<0b10_00_10_00>(a, b);
            let odd = _mm256_shuffle_ps::<0b11_01_11_01>(a, b);
            let fix = |v: __m256| {
                _mm256_castpd_ps(_mm256_permute4x64_pd::<0b11_01_10_00>(_mm256_castps_pd(v)))
            };
            (fix(even), fix(odd))
        }
    }
    #[inline(always)]
    unsafe fn store_pairs(p: *mut f32, even: Self, odd: Self) {
        // SAFETY: `p .. p + 16` writable (caller contract).
        unsafe {
            // [e0 o0 e1 o1 | e4 o4 e5 o5] and [e2 o2 e3 o3 | e6 o6 e7 o7].
            let lo = _mm256_unpacklo_ps(even, odd);
            let hi = _mm256_unpackhi_ps(even, odd);
            _mm256_storeu_ps(p, _mm256_permute2f128_ps::<0x20>(lo, hi));
            _mm256_storeu_ps(p.add(8), _mm256_permute2f128_ps::<0x31>(lo, hi));
        }
    }
}

// SAFETY: each method reads or writes only the `LANES` (16) or `2 LANES`
// (32) values its contract names; AVX-512 F is available (see `lanes!`).
#[cfg(xpbd_avx512)]
unsafe impl Pairs<f32> for __m512 {
    #[inline(always)]
    unsafe fn shape(i: *const u32, j: *const u32) -> Option<Shape> {
        // SAFETY: forwarded (LANES reads each).
        unsafe { shape16(i, j) }
    }
    #[inline(always)]
    unsafe fn load_pairs(p: *const f32) -> (Self, Self) {
        // SAFETY: `p .. p + 32` readable (caller contract).
        unsafe {
            let a = _mm512_loadu_ps(p);
            let b = _mm512_loadu_ps(p.add(16));
            // Indices 16.. pick from `b`.
            let even = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
            let odd = _mm512_setr_epi32(1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31);
            (
                _mm512_permutex2var_ps(a, even, b),
                _mm512_permutex2var_ps(a, odd, b),
            )
        }
    }
    #[inline(always)]
    unsafe fn store_pairs(p: *mut f32, even: Self, odd: Self) {
        // SAFETY: `p .. p + 32` writable (caller contract).
        unsafe {
            // Indices 16.. pick from `odd`.
            let lo = _mm512_setr_epi32(0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23);
            let hi =
                _mm512_setr_epi32(8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31);
            _mm512_storeu_ps(p, _mm512_permutex2var_ps(even, lo, odd));
            _mm512_storeu_ps(p.add(16), _mm512_permutex2var_ps(even, hi, odd));
        }
    }
}

// SAFETY: each method reads or writes only the `2 LANES` (8) values its
// contract names; AVX2 is available (see `lanes!`).
unsafe impl Pairs<f64> for __m256d {
    #[inline(always)]
    unsafe fn shape(i: *const u32, j: *const u32) -> Option<Shape> {
        // SAFETY: forwarded (LANES reads each).
        unsafe { shape4(i, j) }
    }
    #[inline(always)]
    unsafe fn load_pairs(p: *const f64) -> (Self, Self) {
        // SAFETY: `p .. p + 8` readable (caller contract).
        unsafe {
            let a = _mm256_loadu_pd(p);
            let b = _mm256_loadu_pd(p.add(4));
            // [p0 p4 p2 p6] and [p1 p5 p3 p7], then the 64-bit lanes in
            // the order 0, 2, 1, 3.
            (
                _mm256_permute4x64_pd::<0b11_01_10_00>(_mm256_unpacklo_pd(a, b)),
                _mm256_permute4x64_pd::<0b11_01_10_00>(_mm256_unpackhi_pd(a, b)),
            )
        }
    }
    #[inline(always)]
    unsafe fn store_pairs(p: *mut f64, even: Self, odd: Self) {
        // SAFETY: `p .. p + 8` writable (caller contract).
        unsafe {
            // [e0 o0 e2 o2] and [e1 o1 e3 o3].
            let lo = _mm256_unpacklo_pd(even, odd);
            let hi = _mm256_unpackhi_pd(even, odd);
            _mm256_storeu_pd(p, _mm256_permute2f128_pd::<0x20>(lo, hi));
            _mm256_storeu_pd(p.add(4), _mm256_permute2f128_pd::<0x31>(lo, hi));
        }
    }
}

// SAFETY: each method reads or writes only the `2 LANES` (16) values its
// contract names; AVX-512 F is available (see `lanes!`).
#[cfg(xpbd_avx512)]
unsafe impl Pairs<f64> for __m512d {
    #[inline(always)]
    unsafe fn shape(i: *const u32, j: *const u32) -> Option<Shape> {
        // SAFETY: forwarded (LANES reads each).
        unsafe { shape8(i, j) }
    }
    #[inline(always)]
    unsafe fn load_pairs(p: *const f64) -> (Self, Self) {
        // SAFETY: `p .. p + 16` readable (caller contract).
        unsafe {
            let a = _mm512_loadu_pd(p);
            let b = _mm512_loadu_pd(p.add(8));
            // Indices 8.. pick from `b`.
            let even = _mm512_setr_epi64(0, 2, 4, 6, 8, 10, 12, 14);
            let odd = _mm512_setr_epi64(1, 3, 5, 7, 9, 11, 13, 15);
            (
                _mm512_permutex2var_pd(a, even, b),
                _mm512_permutex2var_pd(a, odd, b),
            )
        }
    }
    #[inline(always)]
    unsafe fn store_pairs(p: *mut f64, even: Self, odd: Self) {
        // SAFETY: `p .. p + 16` writable (caller contract).
        unsafe {
            // Indices 8.. pick from `odd`.
            let lo = _mm512_setr_epi64(0, 8, 1, 9, 2, 10, 3, 11);
            let hi = _mm512_setr_epi64(4, 12, 5, 13, 6, 14, 7, 15);
            _mm512_storeu_pd(p, _mm512_permutex2var_pd(even, lo, odd));
            _mm512_storeu_pd(p.add(8), _mm512_permutex2var_pd(even, hi, odd));
        }
    }
}

/// The f64 kernel on AVX2 (4 links per register).
///
/// # Safety
/// As [`solve_range`](super::super::solve_range), and the CPU and OS
/// support AVX2 (an `Isa` with its bit).
#[target_feature(enable = "avx2")]
pub(in crate::colored::kernel) unsafe fn range_f64_avx2<P: RawParticles<f64>>(
    p: P,
    l: RawLinks<f64>,
    begin: usize,
    end: usize,
    policy: ZeroLength,
) -> Out<f64> {
    // SAFETY: forwarded caller contract.
    unsafe { super::range_strided::<f64, __m256d, P>(p, l, begin, end, policy) }
}

/// The f32 kernel on AVX2 (8 links per register).
///
/// # Safety
/// As [`range_f64_avx2`].
#[target_feature(enable = "avx2")]
pub(in crate::colored::kernel) unsafe fn range_f32_avx2<P: RawParticles<f32>>(
    p: P,
    l: RawLinks<f32>,
    begin: usize,
    end: usize,
    policy: ZeroLength,
) -> Out<f32> {
    // SAFETY: forwarded caller contract.
    unsafe { super::range_strided::<f32, __m256, P>(p, l, begin, end, policy) }
}

/// The f64 kernel on AVX-512 (8 links per register).
///
/// # Safety
/// As [`solve_range`](super::super::solve_range), and the CPU and OS
/// support AVX-512 F and DQ (an `Isa` with its bit).
#[cfg(xpbd_avx512)]
#[target_feature(enable = "avx512f,avx512dq")]
pub(in crate::colored::kernel) unsafe fn range_f64_avx512<P: RawParticles<f64>>(
    p: P,
    l: RawLinks<f64>,
    begin: usize,
    end: usize,
    policy: ZeroLength,
) -> Out<f64> {
    // SAFETY: forwarded caller contract.
    unsafe { super::range_strided::<f64, __m512d, P>(p, l, begin, end, policy) }
}

/// The f32 kernel on AVX-512 (16 links per register).
///
/// # Safety
/// As [`range_f64_avx512`].
#[cfg(xpbd_avx512)]
#[target_feature(enable = "avx512f,avx512dq")]
pub(in crate::colored::kernel) unsafe fn range_f32_avx512<P: RawParticles<f32>>(
    p: P,
    l: RawLinks<f32>,
    begin: usize,
    end: usize,
    policy: ZeroLength,
) -> Out<f32> {
    // SAFETY: forwarded caller contract.
    unsafe { super::range_strided::<f32, __m512, P>(p, l, begin, end, policy) }
}

#[cfg(test)]
mod tests {
    use super::super::neighbours::tests::agrees;
    use super::*;

    /// `shape8` in a function compiled for AVX2.
    #[target_feature(enable = "avx2")]
    unsafe fn avx2(i: &[u32; 8], j: &[u32; 8]) -> Option<Shape> {
        // SAFETY: 8 values each; AVX2 (this function's feature).
        unsafe { shape8(i.as_ptr(), j.as_ptr()) }
    }

    /// `shape16` in a function compiled for AVX-512.
    #[cfg(xpbd_avx512)]
    #[target_feature(enable = "avx512f,avx512dq")]
    unsafe fn avx512(i: &[u32; 16], j: &[u32; 16]) -> Option<Shape> {
        // SAFETY: 16 values each; AVX-512 F (this function's feature).
        unsafe { shape16(i.as_ptr(), j.as_ptr()) }
    }

    /// The AVX2 and AVX-512 tests of 8 and 16 lanes against the scalar
    /// one, on the levels this machine has (none under Miri).
    #[test]
    fn vector_shapes_are_the_scalar_shape() {
        if cfg!(miri) || !std::is_x86_feature_detected!("avx2") {
            return;
        }
        // SAFETY: AVX2 detected.
        agrees::<8>(|i, j| unsafe { avx2(i, j) });
        #[cfg(xpbd_avx512)]
        if std::is_x86_feature_detected!("avx512f") && std::is_x86_feature_detected!("avx512dq") {
            // SAFETY: AVX-512 F and DQ detected.
            agrees::<16>(|i, j| unsafe { avx512(i, j) });
        }
    }
}
