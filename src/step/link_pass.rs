//! The frame's link pass: the links of a validated frame solved without
//! per-link checks, their constants prepared once per frame.
//!
//! # The constraint (a link, Macklin, Müller, Chentanez 2016, *XPBD*)
//!
//! `C = |x_j − x_i| − rest` (m), `∇_i C = −n`, `∇_j C = n` with
//! `n = (x_j − x_i)/|x_j − x_i|`, compliance α (m/N) scaled per substep as
//! `α̃ = α/h²`. Once per frame the frame's validation of the links
//! (`solver::validate_links`) writes each link's `α̃` and
//! `g = 1/(w_i + w_j + α̃)` into its state; per visit
//!
//! ```text
//! d = x_j − x_i,  r = 1/|d|,  n = d·r,  C = |d| − rest
//! Δλ = (−C − α̃λ)·g            (λ read as 0 in a substep's first sweep)
//! Δλ = −λ  if TENSION_ONLY and λ + Δλ > 0
//! λ ← λ + Δλ,  x_i ← x_i − (w_i Δλ)·n,  x_j ← x_j + (w_j Δλ)·n
//! ```
//!
//! One square root and one division per visit (the checked path of
//! `System` takes five divisions and a finite test), in the operations
//! and order of the colored SIMD kernels' `candidate`
//! (`colored::kernel::chunk`), so that those kernels can take the frame's
//! colors with the same bits. The links, inverse
//! masses, compliances and `h` cannot change within a frame, and the frame
//! validated them ([`validate`](crate::solver::validate)), so a visit needs
//! no check: a link of zero length (or a NaN position) is skipped under
//! [`ZeroLength::Skip`] and fails the pass under [`ZeroLength::Reject`];
//! a non-finite result is found by the velocity pass's finite check. A
//! failing frame is rolled back and run again on the checked path, which
//! names the cause as before (`step_groups`).
//!
//! # λ reset
//!
//! A substep's first sweep reads every λ as 0 and writes it (a skipped
//! link's as 0): that is the
//! substep's λ reset (the lifecycle rule: λ is reset only at substep entry
//! and kept across the iterations), with no pass of its own.
//!
//! # Statistics
//!
//! A sweep counts and measures ([`SweepStats`]) only when asked: the
//! frame asks for the sweep whose figures it reports (the last) and, with
//! a tolerance, for every sweep.

use super::StepError;
use crate::constraint::distance::{index, Link};
use crate::constraint::{store_lambda, Particles};
use crate::error::SystemError;
use crate::math::max;
use crate::real::Real;
use crate::solver::{SweepStats, ZeroLength};

/// `T` entries of the frame's link state per link: `[α̃, g, λ]`.
pub(crate) const STATE: usize = 3;

/// Entries of `T` the link state of `links` links takes ([`STATE`] per
/// link, saturating).
pub(crate) const fn state_len(links: usize) -> usize {
    links.saturating_mul(STATE)
}

/// One sweep's settings: whether it is the substep's first sweep, and
/// the zero-length policy.
#[derive(Clone, Copy)]
pub(super) struct Pass {
    /// The substep's first sweep: λ read as 0.
    pub(super) first: bool,
    /// What a link of zero length does.
    pub(super) policy: ZeroLength,
}

impl Pass {
    /// [`sweep`] over `links`, the frame's links `base ..`, with their
    /// state `state` ([`STATE`] per link); a failing link is reported as
    /// [`SystemError::ZeroLength`] naming it (the frame is run again on
    /// the checked path, which names the cause).
    #[inline(always)]
    pub(super) fn sweep<T: Real, const D: usize, P: Particles<T, D>>(
        &self,
        x: &mut P,
        links: &[Link<T>],
        state: &mut [T],
        base: usize,
        stats: Option<&mut SweepStats<T>>,
    ) -> Result<(), StepError> {
        // Without statistics a loop of its own with no branch on them (on
        // bare metal one loop: code size).
        let r = if stats.is_none() && !cfg!(target_os = "none") {
            sweep::<T, D, P, false>(x, links, state, self.first, self.policy, None)
        } else {
            sweep::<T, D, P, true>(x, links, state, self.first, self.policy, stats)
        };
        r.map_err(|k| {
            StepError::System(SystemError::ZeroLength {
                constraint: base.saturating_add(k),
            })
        })
    }
}

/// Every link's λ into its state: the caller's λ kept while a failed
/// frame is run again on the checked path (put back by [`commit`] if
/// that fails too).
pub(super) fn keep_lambdas<T: Real>(links: &[Link<T>], state: &mut [T]) {
    for (l, c) in links.iter().zip(state.chunks_exact_mut(STATE)) {
        if let [_, _, lambda] = c {
            store_lambda(lambda, l.lambda);
        }
    }
}

/// The commit of a successful frame: every link's λ of the last substep
/// from its state into the caller's links (or, after a failed frame, the
/// caller's λ kept by [`keep_lambdas`] put back).
pub(super) fn commit<T: Real>(links: &mut [Link<T>], state: &[T]) {
    for (l, c) in links.iter_mut().zip(state.chunks_exact(STATE)) {
        if let [_, _, lambda] = c {
            store_lambda(&mut l.lambda, *lambda);
        }
    }
}

/// One sweep over `links` (in order, each committed before the next:
/// Gauss-Seidel; or one range of a color) with the formula of the module
/// documentation, their λ in `state`. `first`: the substep's first sweep
/// (λ read as 0). Counts into `stats` when given. `Err(k)` when link `k`
/// has zero length (or a NaN position) under [`ZeroLength::Reject`]: the
/// frame fails and is run again on the checked path.
#[inline(always)]
fn sweep<T: Real, const D: usize, P: Particles<T, D>, const STATS: bool>(
    x: &mut P,
    links: &[Link<T>],
    state: &mut [T],
    first: bool,
    policy: ZeroLength,
    mut stats: Option<&mut SweepStats<T>>,
) -> Result<(), usize> {
    if !STATS {
        stats = None;
    }
    for (k, (l, c)) in links.iter().zip(state.chunks_exact_mut(STATE)).enumerate() {
        let [alpha, g, lambda_slot] = c else {
            continue;
        };
        let (i, j) = (index(l.i), index(l.j));
        let (Some((xi, wi)), Some((xj, wj))) = (x.get(i), x.get(j)) else {
            // Never: the frame validated every index.
            return Err(k);
        };
        let weight = wi + wj;
        if l.is_disabled() || weight == T::ZERO {
            if first {
                store_lambda(lambda_slot, T::ZERO);
            }
            if let Some(s) = stats.as_deref_mut() {
                s.skipped_static = s.skipped_static.saturating_add(1);
            }
            continue;
        }
        let mut d = xj;
        for (v, a) in d.iter_mut().zip(&xi) {
            *v = *v - *a;
        }
        let len2 = d.iter().fold(T::ZERO, |acc, v| acc + *v * *v);
        // Below the normal range, or NaN: no direction.
        let long = len2 >= T::MIN_POSITIVE;
        if !long {
            if policy == ZeroLength::Reject {
                return Err(k);
            }
            if first {
                store_lambda(lambda_slot, T::ZERO);
            }
            if let Some(s) = stats.as_deref_mut() {
                s.skipped_zero_length = s.skipped_zero_length.saturating_add(1);
            }
            continue;
        }
        let len = len2.sqrt();
        let r = T::ONE / len;
        let c = len - l.rest;
        let lambda = if first { T::ZERO } else { *lambda_slot };
        let numerator = -c - *alpha * lambda;
        let mut delta = numerator * *g;
        let mut clamped = false;
        if l.flags & Link::<T>::TENSION_ONLY != 0 && lambda + delta > T::ZERO {
            delta = -lambda;
            clamped = true;
        }
        // A slack link whose λ is already 0 moves nothing (and a static
        // particle keeps its bits: `x − 0·n` would turn −0.0 into +0.0).
        let idle = clamped && delta == T::ZERO;
        let mut n = d;
        for v in n.iter_mut() {
            *v = *v * r;
        }
        if wi != T::ZERO && !idle {
            let si = wi * delta;
            let mut ni = xi;
            for (v, nv) in ni.iter_mut().zip(&n) {
                *v = *v - si * *nv;
            }
            x.set(i, ni);
        }
        if wj != T::ZERO && !idle {
            let sj = wj * delta;
            let mut nj = xj;
            for (v, nv) in nj.iter_mut().zip(&n) {
                *v = *v + sj * *nv;
            }
            x.set(j, nj);
        }
        store_lambda(lambda_slot, lambda + delta);
        if let Some(s) = stats.as_deref_mut() {
            s.applied = s.applied.saturating_add(1);
            if !clamped {
                s.max_abs_c = max(s.max_abs_c, c.abs());
                s.max_residual = max(s.max_residual, numerator.abs());
            }
        }
    }
    Ok(())
}
