//! The portable chunked kernel ([`generic_range`]) and the one-link
//! equations every kernel follows ([`candidate`]).

use super::link_error;
use crate::colored::{ix, max, RawLinks, RawParticles, CHUNK};
use crate::real::Real;
use crate::solver::{SweepStats, SystemError, ZeroLength};

/// The portable kernel: chunks of [`CHUNK`] links computed into local
/// arrays by a loop LLVM vectorizes (f32: `sqrtps`/`divps`), then
/// scattered. Returns the statistics and the first link not applied.
///
/// # Safety
/// As [`solve_range`](super::solve_range).
#[cfg_attr(
    not(any(
        all(target_arch = "x86_64", target_feature = "sse2"),
        target_arch = "aarch64",
        all(target_arch = "wasm32", target_feature = "simd128")
    )),
    allow(dead_code) // [`scalar_range`](super::scalar::scalar_range) is used there
)]
#[inline(always)]
pub(super) unsafe fn generic_range<T: Real, P: RawParticles<T>>(
    p: P,
    l: RawLinks<T>,
    begin: usize,
    end: usize,
    policy: ZeroLength,
) -> (SweepStats<T>, Option<SystemError>) {
    let mut stats = SweepStats::default();
    let mut first_error = None;
    let mut chunk = Chunk::<T>::new();
    let mut start = begin;
    while start < end {
        let m = (end - start).min(CHUNK);
        // SAFETY: forwarded: `start .. start + m` lies in the range.
        let (part, error) = unsafe { chunk.solve(p, l, start, m, policy) };
        stats = stats.merge(part);
        if first_error.is_none() {
            first_error = error;
        }
        start += m;
    }
    (stats, first_error)
}

/// One link's candidate (the module's equations, in a fixed order, no
/// fused multiply-add).
pub(super) struct Candidate<T> {
    pub(super) a: [T; 3],
    pub(super) b: [T; 3],
    pub(super) lambda: T,
    pub(super) c: T,
    pub(super) residual: T,
    pub(super) moving: bool,
    pub(super) long: bool,
    /// `len2` is not NaN (a NaN input coordinate makes it NaN).
    pub(super) ordered: bool,
    pub(super) finite: bool,
}

/// One link's candidate. `rest < 0` marks a tension-only link of rest
/// length `|rest|` (see [`ColoredLinks::rest`](crate::ColoredLinks::rest)):
/// when `λ + Δλ > 0` the link is slack, the step becomes `Δλ = −λ` and
/// its `|C|` and residual count as 0 (the sequential path's
/// `Bound::NonPositive`); a slack link whose λ is already 0 (idle) moves
/// nothing. A static particle (`w = 0`) keeps its position's bits, as in
/// the sequential path (`x − 0·n` would turn a −0.0 coordinate into +0.0).
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub(super) fn candidate<T: Real>(
    a: [T; 3],
    b: [T; 3],
    wi: T,
    wj: T,
    rest: T,
    alpha: T,
    g: T,
    lambda: T,
) -> Candidate<T> {
    let [a0, a1, a2] = a;
    let [b0, b1, b2] = b;
    let (d0, d1, d2) = (b0 - a0, b1 - a1, b2 - a2);
    let len2 = T::ZERO + d0 * d0 + d1 * d1 + d2 * d2;
    let len = len2.sqrt();
    let r = T::ONE / len;
    let c = len - rest.abs();
    let numerator = -c - alpha * lambda;
    let mut delta = numerator * g;
    let slack = rest < T::ZERO && lambda + delta > T::ZERO;
    if slack {
        delta = -lambda;
    }
    let idle = slack && delta == T::ZERO;
    let si = wi * delta;
    let sj = wj * delta;
    let (n0, n1, n2) = (d0 * r, d1 * r, d2 * r);
    let mut na = [a0 - si * n0, a1 - si * n1, a2 - si * n2];
    let mut nb = [b0 + sj * n0, b1 + sj * n1, b2 + sj * n2];
    if wi == T::ZERO || idle {
        na = a;
    }
    if wj == T::ZERO || idle {
        nb = b;
    }
    let nl = lambda + delta;
    // x − x is 0 for finite x and NaN otherwise: one sum checks all seven.
    let f = probe(na[0])
        + probe(na[1])
        + probe(na[2])
        + probe(nb[0])
        + probe(nb[1])
        + probe(nb[2])
        + probe(nl);
    Candidate {
        a: na,
        b: nb,
        lambda: nl,
        c: pick(slack, T::ZERO, c.abs()),
        residual: pick(slack, T::ZERO, numerator.abs()),
        // `g = 0` exactly when both particles are static (`begin_substep`
        // writes 0 then, and a finite non-zero reciprocal otherwise) or
        // the link is disabled: skipped either way.
        moving: g != T::ZERO,
        long: len2 >= T::MIN_POSITIVE,
        ordered: ordered(len2),
        finite: f == T::ZERO,
    }
}

/// `x == x`: false exactly for NaN.
#[inline(always)]
#[allow(clippy::eq_op)] // x == x is the point: it is false exactly when x is NaN
fn ordered<T: Real>(x: T) -> bool {
    x == x
}

/// `x − x`: 0 for finite `x`, NaN for infinite or NaN `x`.
#[inline(always)]
#[allow(clippy::eq_op)] // x − x is the point: it is NaN exactly when x is not finite
pub(super) fn probe<T: Real>(x: T) -> T {
    x - x
}

#[inline(always)]
fn pick<T: Real>(yes: bool, a: T, b: T) -> T {
    if yes {
        a
    } else {
        b
    }
}

/// Chunk-local output arrays (about 3.5 KB of stack in f64).
struct Chunk<T> {
    xi: [[T; CHUNK]; 3],
    xj: [[T; CHUNK]; 3],
    lambda: [T; CHUNK],
}

impl<T: Real> Chunk<T> {
    fn new() -> Self {
        let z = [T::ZERO; CHUNK];
        Self {
            xi: [z; 3],
            xj: [z; 3],
            lambda: z,
        }
    }

    /// Computes `m ≤ CHUNK` links from `start` into the chunk arrays (old
    /// values for links not applied), then scatters them back. Returns the
    /// statistics and the first link that could not be applied, if any.
    ///
    /// # Safety
    /// As [`solve_range`](super::solve_range), for the links `start .. start + m`.
    // Indexing is into fixed `[_; CHUNK]` arrays with `t < m ≤ CHUNK`: LLVM
    // removes the checks, and none can fail.
    #[allow(clippy::indexing_slicing)]
    #[inline(always)]
    unsafe fn solve<P: RawParticles<T>>(
        &mut self,
        p: P,
        l: RawLinks<T>,
        start: usize,
        m: usize,
        policy: ZeroLength,
    ) -> (SweepStats<T>, Option<SystemError>) {
        let m = m.min(CHUNK);
        let (mut applied, mut skipped_static, mut skipped_zero, mut failed) =
            (0u32, 0u32, 0u32, 0u32);
        let (mut max_c, mut max_r) = (T::ZERO, T::ZERO);
        let reject = policy == ZeroLength::Reject;
        for t in 0..m {
            let k = start + t;
            // SAFETY: `k` is within the link arrays and the indices below
            // the particle count (caller contract, validated at
            // construction); nothing else writes these particles.
            let (a, b, wi, wj, rest, alpha, g, lambda) = unsafe {
                let (i, j) = l.ij(k);
                (
                    p.get(i),
                    p.get(j),
                    *l.w.add(i),
                    *l.w.add(j),
                    *l.rest.add(k),
                    *l.alpha.add(k),
                    *l.g.add(k),
                    *l.lambda.add(k),
                )
            };
            let x = candidate(a, b, wi, wj, rest, alpha, g, lambda);
            let solvable = x.moving & x.long;
            let apply = solvable & x.finite;
            self.xi[0][t] = pick(apply, x.a[0], a[0]);
            self.xi[1][t] = pick(apply, x.a[1], a[1]);
            self.xi[2][t] = pick(apply, x.a[2], a[2]);
            self.xj[0][t] = pick(apply, x.b[0], b[0]);
            self.xj[1][t] = pick(apply, x.b[1], b[1]);
            self.xj[2][t] = pick(apply, x.b[2], b[2]);
            self.lambda[t] = pick(apply, x.lambda, lambda);
            let is_zero = x.moving & !x.long;
            applied += u32::from(apply);
            skipped_static += u32::from(!x.moving);
            skipped_zero += u32::from(is_zero);
            // A NaN length (a NaN input position) fails under either policy.
            failed += u32::from((solvable & !x.finite) | (is_zero & (reject | !x.ordered)));
            max_c = max(max_c, pick(apply, x.c, T::ZERO));
            max_r = max(max_r, pick(apply, x.residual, T::ZERO));
        }
        // The rare path: name the first link of the chunk that failed, from
        // the unchanged particle memory (nothing of this chunk is written yet).
        let mut error = None;
        if failed != 0 {
            for t in 0..m {
                let k = start + t;
                // SAFETY: as above.
                let x = unsafe {
                    let (i, j) = l.ij(k);
                    candidate(
                        p.get(i),
                        p.get(j),
                        *l.w.add(i),
                        *l.w.add(j),
                        *l.rest.add(k),
                        *l.alpha.add(k),
                        *l.g.add(k),
                        *l.lambda.add(k),
                    )
                };
                if x.moving && !x.long && (reject || !x.ordered) {
                    // SAFETY: as above (reads link `k`'s particles only).
                    error = Some(unsafe { link_error(p, l, k, true) });
                    break;
                }
                if x.moving && x.long && !x.finite {
                    // SAFETY: as above.
                    error = Some(unsafe { link_error(p, l, k, false) });
                    break;
                }
            }
        }
        // Scatter (links not applied get their old values back).
        for t in 0..m {
            let k = start + t;
            // SAFETY: as above; within one color no other link of this or a
            // concurrent job touches these particles.
            // A static particle keeps its bits and is not written (it may
            // be shared within a frame's color: see `simd::scatter`).
            unsafe {
                let (i, j) = l.ij(k);
                if *l.w.add(i) != T::ZERO {
                    p.set(i, [self.xi[0][t], self.xi[1][t], self.xi[2][t]]);
                }
                if *l.w.add(j) != T::ZERO {
                    p.set(j, [self.xj[0][t], self.xj[1][t], self.xj[2][t]]);
                }
                *l.lambda.add(k) = self.lambda[t];
            }
        }
        let stats = SweepStats {
            applied: ix(applied),
            skipped_static: ix(skipped_static),
            skipped_zero_length: if reject { 0 } else { ix(skipped_zero) },
            max_abs_c: max_c,
            max_residual: max_r,
        };
        (stats, error)
    }
}
