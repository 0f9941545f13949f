//! [`Lanes`]: one SIMD register of `f64` or `f32` values, each operation a
//! single instruction; here for SSE/SSE2 (`__m128d`, `__m128`), in `wide`
//! for AVX2 and AVX-512.

use crate::real::Real;
#[cfg(target_arch = "x86_64")]
use core::arch::x86_64::*;
use core::ops::IndexMut;

/// One SIMD register of `LANES` values of `T`. Every method is a single
/// instruction (or a few for `set`/`get`). SSE2 is part of the x86-64
/// baseline, so the SSE impls are always available; the AVX2 and AVX-512
/// impls (`wide`) only inside the kernels compiled for them.
pub(crate) trait Lanes<T: Real>: Copy {
    const LANES: usize;
    /// The mask with every lane set (`LANES` low bits).
    const ALL: u32;
    /// `LANES` scalars.
    type Scalars: Copy + Default + AsRef<[T]> + IndexMut<usize, Output = T>;
    /// `LANES` particle indices.
    type Indices: Copy + Default + IndexMut<usize, Output = usize>;
    fn splat(v: T) -> Self;
    /// From `LANES` scalars.
    fn set(v: &Self::Scalars) -> Self;
    /// To `LANES` scalars.
    fn get(self, out: &mut Self::Scalars);
    /// # Safety
    /// `p` is valid for `LANES` reads.
    unsafe fn load(p: *const T) -> Self;
    /// # Safety
    /// `p` is valid for `LANES` writes.
    unsafe fn store(self, p: *mut T);
    fn add(self, o: Self) -> Self;
    fn sub(self, o: Self) -> Self;
    fn mul(self, o: Self) -> Self;
    fn div(self, o: Self) -> Self;
    fn sqrt(self) -> Self;
    fn and(self, o: Self) -> Self;
    fn andnot(self, o: Self) -> Self;
    fn or(self, o: Self) -> Self;
    fn xor(self, o: Self) -> Self;
    fn max(self, o: Self) -> Self;
    fn ne(self, o: Self) -> Self;
    fn ge(self, o: Self) -> Self;
    fn eq(self, o: Self) -> Self;
    fn mask(self) -> u32;
}

macro_rules! lanes {
    ($v:ty, $t:ty, $n:literal, $all:literal, $s:ident, $set1:ident, $ld:ident, $st:ident,
     $add:ident, $sub:ident, $mul:ident, $div:ident, $sqrt:ident, $and:ident,
     $andn:ident, $or:ident, $xor:ident, $max:ident, $ne:ident, $ge:ident, $eq:ident,
     $mm:ident) => {
        // SAFETY (every method): the instructions are available: SSE/SSE2
        // are enabled at compile time (cfg of the module), and the AVX2
        // and AVX-512 impls (`wide`) are used only by the kernels compiled
        // with `#[target_feature]` for them, which run only when an `Isa`
        // (cpuid and xgetbv) showed the CPU and OS support them. The
        // intrinsics touch no memory except `load` and `store`, whose
        // pointers the caller vouches for, and `set`/`get`, which use
        // arrays of `LANES` values.
        impl Lanes<$t> for $v {
            const LANES: usize = $n;
            const ALL: u32 = $all;
            type Scalars = [$t; $n];
            type Indices = [usize; $n];
            #[inline(always)]
            fn splat(v: $t) -> Self {
                unsafe { $set1(v) }
            }
            #[inline(always)]
            fn set(v: &[$t; $n]) -> Self {
                unsafe { $ld(v.as_ptr()) }
            }
            #[inline(always)]
            fn get(self, out: &mut [$t; $n]) {
                unsafe { $st(out.as_mut_ptr(), self) }
            }
            #[inline(always)]
            unsafe fn load(p: *const $t) -> Self {
                unsafe { $ld(p) }
            }
            #[inline(always)]
            unsafe fn store(self, p: *mut $t) {
                unsafe { $st(p, self) }
            }
            #[inline(always)]
            fn add(self, o: Self) -> Self {
                unsafe { $add(self, o) }
            }
            #[inline(always)]
            fn sub(self, o: Self) -> Self {
                unsafe { $sub(self, o) }
            }
            #[inline(always)]
            fn mul(self, o: Self) -> Self {
                unsafe { $mul(self, o) }
            }
            #[inline(always)]
            fn div(self, o: Self) -> Self {
                unsafe { $div(self, o) }
            }
            #[inline(always)]
            fn sqrt(self) -> Self {
                unsafe { $sqrt(self) }
            }
            #[inline(always)]
            fn and(self, o: Self) -> Self {
                unsafe { $and(self, o) }
            }
            #[inline(always)]
            fn andnot(self, o: Self) -> Self {
                unsafe { $andn(self, o) }
            }
            #[inline(always)]
            fn or(self, o: Self) -> Self {
                unsafe { $or(self, o) }
            }
            #[inline(always)]
            fn xor(self, o: Self) -> Self {
                unsafe { $xor(self, o) }
            }
            #[inline(always)]
            fn max(self, o: Self) -> Self {
                unsafe { $max(self, o) }
            }
            #[inline(always)]
            fn ne(self, o: Self) -> Self {
                unsafe { $ne(self, o) }
            }
            #[inline(always)]
            fn ge(self, o: Self) -> Self {
                unsafe { $ge(self, o) }
            }
            #[inline(always)]
            fn eq(self, o: Self) -> Self {
                unsafe { $eq(self, o) }
            }
            #[inline(always)]
            #[allow(clippy::as_conversions)] // a movemask is a small non-negative bit set
            fn mask(self) -> u32 {
                unsafe { $mm(self) as u32 & $all }
            }
        }
    };
}

pub(super) use lanes;

#[cfg(target_arch = "x86_64")]
#[allow(clippy::undocumented_unsafe_blocks)] // documented once at the impl
mod impls {
    use super::*;
    lanes!(
        __m128d,
        f64,
        2,
        3,
        f64,
        _mm_set1_pd,
        _mm_loadu_pd,
        _mm_storeu_pd,
        _mm_add_pd,
        _mm_sub_pd,
        _mm_mul_pd,
        _mm_div_pd,
        _mm_sqrt_pd,
        _mm_and_pd,
        _mm_andnot_pd,
        _mm_or_pd,
        _mm_xor_pd,
        _mm_max_pd,
        _mm_cmpneq_pd,
        _mm_cmpge_pd,
        _mm_cmpeq_pd,
        _mm_movemask_pd
    );
    lanes!(
        __m128,
        f32,
        4,
        15,
        f32,
        _mm_set1_ps,
        _mm_loadu_ps,
        _mm_storeu_ps,
        _mm_add_ps,
        _mm_sub_ps,
        _mm_mul_ps,
        _mm_div_ps,
        _mm_sqrt_ps,
        _mm_and_ps,
        _mm_andnot_ps,
        _mm_or_ps,
        _mm_xor_ps,
        _mm_max_ps,
        _mm_cmpneq_ps,
        _mm_cmpge_ps,
        _mm_cmpeq_ps,
        _mm_movemask_ps
    );
}
