//! The colored kernels and the choice between them per float type and
//! target.
//!
//! | target | f32 | f64 |
//! |---|---|---|
//! | x86-64 (SSE2 baseline) | `simd::range_strided` over `__m128` | `simd::range_strided` over `__m128d` |
//! | x86-64, `Isa` with AVX2 | `simd::range_f32_avx2` (`__m256`) | `simd::range_f64_avx2` (`__m256d`) |
//! | x86-64, `Isa` with AVX-512 | `simd::range_f32_avx512` (`__m512`) | `simd::range_f64_avx512` (`__m512d`) |
//! | aarch64, `Isa` with NEON | `simd::neon_range_f32` (`float32x4_t`) | `simd::neon_range_f64` (`float64x2_t`) |
//! | aarch64 baseline, wasm32 + `simd128` | `chunk::generic_range` | `chunk::generic_range` |
//! | others (32-bit ARM, RISC-V, wasm32, ...) | `scalar::scalar_range` | `scalar::scalar_range` |
//!
//! Every `simd` kernel takes the contiguous loads of runs and neighbour
//! pairs over SoA particles (`simd::neighbours`) and gathers elsewhere.
//!
//! The [`Isa`] (see its documentation) is chosen at run time by one
//! `match` per range; the x86-64 wider kernels are `#[target_feature]`
//! functions over the same generic code as the SSE2 one (`simd`), so every
//! row gives the same bits.
//!
//! # How the float type picks its kernel
//!
//! [`solve_range`] is generic over `T: Real`, but the x86-64 kernels exist
//! for `f32` and `f64` separately. The choice is made by
//! `crate::real::PerFormat`, a crate-private hook of `Real`'s sealed
//! supertrait: `T::per_format::<F>(x)` calls `F::f32` when `T` is `f32` and
//! `F::f64` when it is `f64`, where the argument and result types are
//! generic associated types of `F` (`F::In<T>`, `F::Out<T>`), so the
//! compiler sees `F::In<f32>` when `T = f32` without any cast. [`Kernel`]
//! is that `F` for the colored kernels; its argument names the particle
//! view by its layout's family (`RawFamily::Raw<T>`, which every
//! `RawParticles<T>` view states equal to itself), so the f32 and f64 arms
//! know the concrete view type at their format too.
//!
//! Why this shape: `crate::real` defines `PerFormat` with types of its own
//! only, so it imports nothing from the crate (before, the sealed trait had
//! a `colored_range` method naming the colored and system types, a circle
//! colored → coloring → real → colored); the kernel choice lives here with
//! the kernels; and `Real` keeps its bounds, so user code generic over
//! `T: xpbd::Real` calls the colored API as before. Every step is
//! `#[inline(always)]` and resolved at compile time, so each call site
//! still compiles to the one kernel it did before.

use core::marker::PhantomData;

#[cfg(any(
    all(target_arch = "x86_64", target_feature = "sse2"),
    all(target_arch = "aarch64", target_feature = "neon")
))]
use super::isa::Level;
#[cfg(doc)]
use super::CHUNK;
use super::{Isa, RawFamily, RawLinks, RawParticles};
use crate::real::{PerFormat, Real};
use crate::solver::{SweepStats, SystemError, ZeroLength};

mod chunk;
mod scalar;
#[cfg(any(
    all(target_arch = "x86_64", target_feature = "sse2"),
    all(target_arch = "aarch64", target_feature = "neon")
))]
mod simd;

/// Solves links `begin .. end` (all of one color) in chunks of [`CHUNK`].
/// Every link is visited; a link that cannot be applied (non-finite result,
/// or zero length under [`ZeroLength::Reject`]) is left untouched and the
/// first such link (lowest position) is reported after the whole range.
///
/// # Safety
/// Every index `i[k]`, `j[k]` for `k` in the range is below the particle
/// count of `p` and `w`; the range is within the link arrays; the links of
/// the range share no moving particle (`w ≠ 0`) with each other (a static
/// one may be shared: every kernel reads it and none writes it); and no
/// other thread writes the particles of these links or accesses their λ
/// during the call.
#[inline(always)]
pub(crate) unsafe fn solve_range<T: Real, P: RawParticles<T>>(
    p: P,
    l: RawLinks<T>,
    begin: usize,
    end: usize,
    policy: ZeroLength,
    isa: Isa,
) -> Result<SweepStats<T>, SystemError> {
    // SAFETY: forwarded caller contract.
    let (stats, error) = unsafe { range(p, l, begin, end, policy, isa) };
    match error {
        Some(e) => Err(e),
        None => Ok(stats),
    }
}

/// The particle of link `k` whose position has a NaN or infinite
/// coordinate (first `i`, then `j`), if any: a C caller may change
/// positions inside a substep. Only called on the rare path of a link that
/// was not applied.
///
/// # Safety
/// As [`solve_range`], for link `k`.
#[cold]
#[inline(never)]
pub(super) unsafe fn non_finite_particle<T: Real, P: RawParticles<T>>(
    p: P,
    l: RawLinks<T>,
    k: usize,
) -> Option<usize> {
    // SAFETY: `k` is a link of the range and its indices are below the
    // particle count (caller contract); reads only.
    let (i, j) = unsafe { l.ij(k) };
    // SAFETY: as above.
    let (a, b) = unsafe { (p.get(i), p.get(j)) };
    if !a.iter().all(|v| v.is_finite()) {
        Some(i)
    } else if !b.iter().all(|v| v.is_finite()) {
        Some(j)
    } else {
        None
    }
}

/// The error of link `k`, which was not applied: a non-finite input
/// position names its particle; otherwise zero length (`zero_length`) or an
/// invalid result.
///
/// # Safety
/// As [`solve_range`], for link `k`.
#[cold]
#[inline(never)]
pub(super) unsafe fn link_error<T: Real, P: RawParticles<T>>(
    p: P,
    l: RawLinks<T>,
    k: usize,
    zero_length: bool,
) -> SystemError {
    // SAFETY: forwarded.
    match unsafe { non_finite_particle(p, l, k) } {
        Some(particle) => SystemError::NonFinitePosition { particle },
        None if zero_length => SystemError::ZeroLength { constraint: k },
        None => SystemError::InvalidResult { constraint: k },
    }
}

/// The target's kernel for `T` and `isa` (see the module documentation):
/// returns the statistics and the first link not applied.
///
/// # Safety
/// As [`solve_range`].
#[inline(always)]
unsafe fn range<T: Real, P: RawParticles<T>>(
    p: P,
    l: RawLinks<T>,
    begin: usize,
    end: usize,
    policy: ZeroLength,
    isa: Isa,
) -> (SweepStats<T>, Option<SystemError>) {
    // SAFETY: forwarded caller contract (`Kernel`'s arms require it).
    unsafe { T::per_format::<Kernel<P::Family>>((p, l, begin, end, policy, isa)) }
}

/// The colored kernel as a per-format computation: the arguments of
/// [`solve_range`] over the particle view of layout family `F`, and the
/// statistics with the first link not applied.
///
/// `f32` and `f64` are `unsafe`: their caller upholds the contract of
/// [`solve_range`] for the arguments.
struct Kernel<F>(PhantomData<F>);

impl<F: RawFamily> PerFormat for Kernel<F> {
    type In<T: Real> = (F::Raw<T>, RawLinks<T>, usize, usize, ZeroLength, Isa);
    type Out<T: Real> = (SweepStats<T>, Option<SystemError>);

    #[inline(always)]
    unsafe fn f32(x: Self::In<f32>) -> Self::Out<f32> {
        let (p, l, begin, end, policy, isa) = x;
        #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
        // SAFETY: forwarded caller contract; each wider kernel runs only
        // when `isa` holds its bit, which an `Isa` holds only when cpuid
        // and xgetbv showed the CPU and OS support it.
        unsafe {
            match isa.level() {
                #[cfg(xpbd_avx512)]
                Level::Avx512 => simd::range_f32_avx512::<F::Raw<f32>>(p, l, begin, end, policy),
                #[cfg(not(xpbd_avx512))]
                Level::Avx512 => simd::range_f32_avx2::<F::Raw<f32>>(p, l, begin, end, policy),
                Level::Avx2 => simd::range_f32_avx2::<F::Raw<f32>>(p, l, begin, end, policy),
                Level::Baseline | Level::Neon => {
                    simd::range_strided::<f32, core::arch::x86_64::__m128, F::Raw<f32>>(
                        p, l, begin, end, policy,
                    )
                }
            }
        }
        #[cfg(all(target_arch = "aarch64", target_feature = "neon"))]
        // SAFETY: forwarded caller contract; NEON is enabled at compile
        // time.
        unsafe {
            match isa.level() {
                Level::Neon => simd::neon_range_f32(p, l, begin, end, policy),
                _ => chunk::generic_range(p, l, begin, end, policy),
            }
        }
        #[cfg(any(
            all(target_arch = "aarch64", not(target_feature = "neon")),
            all(target_arch = "wasm32", target_feature = "simd128")
        ))]
        // SAFETY: forwarded caller contract.
        unsafe {
            let _ = isa;
            chunk::generic_range(p, l, begin, end, policy)
        }
        #[cfg(not(any(
            all(target_arch = "x86_64", target_feature = "sse2"),
            target_arch = "aarch64",
            all(target_arch = "wasm32", target_feature = "simd128")
        )))]
        // SAFETY: forwarded caller contract.
        unsafe {
            let _ = isa;
            scalar::scalar_range(p, l, begin, end, policy)
        }
    }

    #[inline(always)]
    unsafe fn f64(x: Self::In<f64>) -> Self::Out<f64> {
        let (p, l, begin, end, policy, isa) = x;
        #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
        // SAFETY: as for `f32`.
        unsafe {
            match isa.level() {
                #[cfg(xpbd_avx512)]
                Level::Avx512 => simd::range_f64_avx512::<F::Raw<f64>>(p, l, begin, end, policy),
                #[cfg(not(xpbd_avx512))]
                Level::Avx512 => simd::range_f64_avx2::<F::Raw<f64>>(p, l, begin, end, policy),
                Level::Avx2 => simd::range_f64_avx2::<F::Raw<f64>>(p, l, begin, end, policy),
                Level::Baseline | Level::Neon => {
                    simd::range_strided::<f64, core::arch::x86_64::__m128d, F::Raw<f64>>(
                        p, l, begin, end, policy,
                    )
                }
            }
        }
        #[cfg(all(target_arch = "aarch64", target_feature = "neon"))]
        // SAFETY: as for `f32`.
        unsafe {
            match isa.level() {
                Level::Neon => simd::neon_range_f64(p, l, begin, end, policy),
                _ => chunk::generic_range(p, l, begin, end, policy),
            }
        }
        #[cfg(any(
            all(target_arch = "aarch64", not(target_feature = "neon")),
            all(target_arch = "wasm32", target_feature = "simd128")
        ))]
        // SAFETY: forwarded caller contract.
        unsafe {
            let _ = isa;
            chunk::generic_range(p, l, begin, end, policy)
        }
        #[cfg(not(any(
            all(target_arch = "x86_64", target_feature = "sse2"),
            target_arch = "aarch64",
            all(target_arch = "wasm32", target_feature = "simd128")
        )))]
        // SAFETY: forwarded caller contract.
        unsafe {
            let _ = isa;
            scalar::scalar_range(p, l, begin, end, policy)
        }
    }
}

/// The scalar kernel against the chunked and the target's kernel, bit for
/// bit, on ranges with static (−0.0 coordinates), zero-length,
/// overflowing and tension-only (stretched, slack, idle) links.
#[cfg(test)]
#[allow(clippy::indexing_slicing, clippy::as_conversions)]
mod tests {
    use super::*;
    use crate::colored::RawAos;

    struct Rng(u64);
    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }
        fn below(&mut self, n: u64) -> u64 {
            self.next() % n
        }
        fn unit(&mut self) -> f64 {
            (self.next() >> 11) as f64 / (1u64 << 53) as f64
        }
    }

    /// One random range of links sharing no particle (one color).
    struct Case<T> {
        pos: Vec<[T; 3]>,
        w: Vec<T>,
        i: Vec<u32>,
        j: Vec<u32>,
        rest: Vec<T>,
        alpha: Vec<T>,
        g: Vec<T>,
        lambda: Vec<T>,
    }

    fn case<T: Real>(r: &mut Rng, m: usize) -> Case<T> {
        let n = 2 * m + 3;
        let mut perm: Vec<u32> = (0..n as u32).collect();
        for k in (1..n).rev() {
            perm.swap(k, r.below(k as u64 + 1) as usize);
        }
        let mut pos: Vec<[T; 3]> = (0..n)
            .map(|_| [0; 3].map(|_| T::from_f64(r.unit() * 4.0 - 2.0)))
            .collect();
        let w: Vec<T> = (0..n)
            .map(|_| match r.below(5) {
                0 => T::ZERO,
                _ => T::from_f64(r.unit() * 2.0),
            })
            .collect();
        // Signed zeros, which a static particle and an idle link keep bit
        // for bit.
        for x in pos.iter_mut() {
            if r.below(3) == 0 {
                x[r.below(3) as usize] = -T::ZERO;
            }
        }
        let (mut i, mut j) = (Vec::new(), Vec::new());
        let (mut rest, mut alpha, mut g, mut lambda) = (vec![], vec![], vec![], vec![]);
        for k in 0..m {
            let (a, b) = (perm[2 * k], perm[2 * k + 1]);
            i.push(a);
            j.push(b);
            let kind = r.below(20);
            if kind == 0 {
                pos[b as usize] = pos[a as usize]; // zero length
            }
            // Tension-only links (negative rest), some slack (rest longer
            // than the link), some idle (λ = 0 as well).
            let tension = matches!(kind, 4..=9);
            let long_rest = if kind == 5 || kind == 6 { 4.0 } else { 0.0 };
            let length = T::from_f64(0.1 + r.unit() + long_rest);
            rest.push(if tension { -length } else { length });
            alpha.push(T::from_f64(r.unit() * 1e-2));
            let wi = w[a as usize] + w[b as usize];
            g.push(if wi == T::ZERO { T::ZERO } else { T::ONE / wi });
            lambda.push(match kind {
                1 => T::from_f64(1e300), // f64: finite, f32: +inf → non-finite result
                2 => T::from_f64(-1e308),
                _ => T::from_f64(r.unit() - 0.5),
            });
            if kind == 6 || kind == 10 {
                lambda[k] = T::ZERO;
            }
            if kind == 3 {
                alpha[k] = T::from_f64(1e308);
                lambda[k] = T::from_f64(1e10);
            }
        }
        Case {
            pos,
            w,
            i,
            j,
            rest,
            alpha,
            g,
            lambda,
        }
    }

    type Kernel<T> = unsafe fn(
        RawAos<T>,
        RawLinks<T>,
        usize,
        usize,
        ZeroLength,
    ) -> (SweepStats<T>, Option<SystemError>);

    /// The target's kernel at `isa`.
    fn run_isa<T: Real>(
        c: &Case<T>,
        isa: Isa,
        b: usize,
        e: usize,
        policy: ZeroLength,
    ) -> (Vec<u64>, SweepStats<u64>, Option<SystemError>) {
        // SAFETY: `run` passes its contract on.
        run_with(c, b, e, policy, |p, l, b, e, z| unsafe {
            range(p, l, b, e, z, isa)
        })
    }

    fn run<T: Real>(
        c: &Case<T>,
        kernel: Kernel<T>,
        b: usize,
        e: usize,
        policy: ZeroLength,
    ) -> (Vec<u64>, SweepStats<u64>, Option<SystemError>) {
        // SAFETY: `run_with` passes its contract on.
        run_with(c, b, e, policy, |p, l, b, e, z| unsafe {
            kernel(p, l, b, e, z)
        })
    }

    /// Runs `kernel` on a copy of the case; `kernel` must uphold the
    /// contract of [`solve_range`] for valid arguments (it gets only such).
    fn run_with<T: Real>(
        c: &Case<T>,
        b: usize,
        e: usize,
        policy: ZeroLength,
        kernel: impl Fn(
            RawAos<T>,
            RawLinks<T>,
            usize,
            usize,
            ZeroLength,
        ) -> (SweepStats<T>, Option<SystemError>),
    ) -> (Vec<u64>, SweepStats<u64>, Option<SystemError>) {
        let mut pos = c.pos.clone();
        let mut lambda = c.lambda.clone();
        let l = RawLinks {
            i: c.i.as_ptr(),
            j: c.j.as_ptr(),
            stride: 1,
            rest: c.rest.as_ptr(),
            alpha: c.alpha.as_ptr(),
            g: c.g.as_ptr(),
            lambda: lambda.as_mut_ptr(),
            w: c.w.as_ptr(),
            lazy: false,
        };
        let p = RawAos {
            p: pos.as_mut_ptr(),
        };
        // Every index is below the particle count, the range within the
        // links, no particle shared, nothing else touches the buffers.
        let (s, err) = kernel(p, l, b, e, policy);
        let mut bits: Vec<u64> = pos.iter().flatten().map(|v| v.raw()).collect();
        bits.extend(lambda.iter().map(|v| v.raw()));
        let s = SweepStats {
            applied: s.applied,
            skipped_static: s.skipped_static,
            skipped_zero_length: s.skipped_zero_length,
            max_abs_c: s.max_abs_c.raw(),
            max_residual: s.max_residual.raw(),
        };
        (bits, s, err)
    }

    /// Each kernel level this machine runs: the baseline and every single
    /// bit of [`Isa::detect`] (under Miri none: it cannot run cpuid).
    pub(crate) fn levels() -> Vec<Isa> {
        let d = Isa::detect();
        let mut v = vec![Isa::BASELINE];
        for bit in [Isa::AVX2_BIT, Isa::AVX512_BIT, Isa::NEON_BIT] {
            if d.bits() & bit != 0 {
                v.push(d.restrict(bit));
            }
        }
        v
    }

    fn compare<T: Real>() {
        let mut r = Rng(0x9e37_79b9_7f4a_7c15);
        let mut errors = 0;
        // Under Miri (CI time) four trials, the chunk remainders and at
        // most two chunks first (the sizes 0, 1, 3 and 64 add no path).
        let trials = if cfg!(miri) { 4 } else { 300 };
        let sizes = if cfg!(miri) {
            [65, 130, 5, 63, 0, 1, 3, 64]
        } else {
            [0, 1, 3, 63, 64, 65, 130, 200]
        };
        for trial in 0..trials {
            let m = sizes[trial % 8];
            let c = case::<T>(&mut r, m);
            let b = if m > 0 { r.below(m as u64) as usize } else { 0 };
            let e = b + r.below((m - b) as u64 + 1) as usize;
            for policy in [ZeroLength::Reject, ZeroLength::Skip] {
                let s = run(&c, scalar::scalar_range::<T, RawAos<T>>, b, e, policy);
                let g = run(&c, chunk::generic_range::<T, RawAos<T>>, b, e, policy);
                assert_eq!(s, g, "trial {trial}");
                // The target's kernel at every level this machine has.
                for isa in levels() {
                    let t = run_isa(&c, isa, b, e, policy);
                    assert_eq!(s, t, "trial {trial}, {}", isa.kernel_name());
                }
                errors += usize::from(s.2.is_some());
            }
        }
        assert!(cfg!(miri) || errors > 50, "{errors}");
    }

    #[test]
    fn scalar_kernel_matches_f64() {
        compare::<f64>();
    }

    #[test]
    fn scalar_kernel_matches_f32() {
        compare::<f32>();
    }
}
