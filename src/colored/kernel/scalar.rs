//! The plain one-link-at-a-time kernel.

use super::chunk::candidate;
use super::{link_error, non_finite_particle};
use crate::colored::{max, RawLinks, RawParticles};
use crate::real::Real;
use crate::solver::{SweepStats, SystemError, ZeroLength};

/// The plain kernel for targets without useful SIMD (32-bit ARM, RISC-V,
/// wasm32 without simd128, ...): one link at a time, computed by
/// [`candidate`] and written back at once. The same IEEE operations per
/// link as the chunked kernel; within one color no two links share a
/// particle, so writing each link before reading the next gives the same
/// bits, the same statistics (the maxima ignore the links not applied, and
/// `max` is associative on them) and the same first error. Much smaller
/// than the chunked kernel (no chunk arrays, no second pass), which only
/// pays where LLVM vectorizes it.
///
/// # Safety
/// As [`solve_range`](super::solve_range).
#[cfg_attr(
    any(
        all(target_arch = "x86_64", target_feature = "sse2"),
        target_arch = "aarch64",
        all(target_arch = "wasm32", target_feature = "simd128")
    ),
    allow(dead_code) // used by the unit tests there (compared with the SIMD kernels)
)]
#[inline(always)]
pub(super) unsafe fn scalar_range<T: Real, P: RawParticles<T>>(
    p: P,
    l: RawLinks<T>,
    begin: usize,
    end: usize,
    policy: ZeroLength,
) -> (SweepStats<T>, Option<SystemError>) {
    let mut stats = SweepStats::default();
    let mut first_error = None;
    let reject = policy == ZeroLength::Reject;
    for k in begin..end {
        // SAFETY: `k` is within the link arrays and the indices below the
        // particle count (caller contract, validated at construction);
        // nothing else accesses these particles.
        let (i, j, wi, wj, x) = unsafe {
            let (i, j) = l.ij(k);
            let (wi, wj) = (*l.w.add(i), *l.w.add(j));
            let x = candidate(
                p.get(i),
                p.get(j),
                wi,
                wj,
                *l.rest.add(k),
                *l.alpha.add(k),
                *l.g.add(k),
                *l.lambda.add(k),
            );
            (i, j, wi, wj, x)
        };
        let error = if !x.moving {
            stats.skipped_static += 1;
            None
        } else if !x.long {
            // SAFETY: as above (reads link `k`'s particles only).
            match unsafe { non_finite_particle(p, l, k) } {
                Some(particle) => Some(SystemError::NonFinitePosition { particle }),
                None => {
                    stats.skipped_zero_length += usize::from(!reject);
                    reject.then_some(SystemError::ZeroLength { constraint: k })
                }
            }
        } else if !x.finite {
            // SAFETY: as above.
            Some(unsafe { link_error(p, l, k, false) })
        } else {
            // SAFETY: as above; within one color no other link of this or
            // a concurrent job touches these particles or this λ.
            // A static particle keeps its bits and is not written (it may
            // be shared within a frame's color: see `simd::scatter`).
            unsafe {
                if wi != T::ZERO {
                    p.set(i, x.a);
                }
                if wj != T::ZERO {
                    p.set(j, x.b);
                }
                *l.lambda.add(k) = x.lambda;
            }
            stats.applied += 1;
            stats.max_abs_c = max(stats.max_abs_c, x.c);
            stats.max_residual = max(stats.max_residual, x.residual);
            None
        };
        if first_error.is_none() {
            first_error = error;
        }
    }
    (stats, first_error)
}
