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

use super::jobs::Shared;
use super::StepError;
use crate::colored::{frame_links, Isa, RawLinks};
use crate::constraint::distance::{index, Link};
use crate::constraint::{store_lambda, Particles};
use crate::error::SystemError;
use crate::math::max;
use crate::real::Real;
use crate::solver::{LinkConstants, SweepStats, ZeroLength};

/// `T` entries of the frame's link state per link: α̃, g, λ and the signed
/// rest length, each an array of its own, and two for the link's particle
/// indices (the kernels' compact copy, `colored::store_indices`)
/// ([`LinkState`]).
pub(crate) const STATE: usize = 6;

/// Entries of `T` the link state of `links` links takes ([`STATE`] per
/// link, saturating).
pub(crate) const fn state_len(links: usize) -> usize {
    links.saturating_mul(STATE)
}

/// The frame's link state: four arrays of one entry per link and the
/// links' indices (two entries per link), in the
/// layout the colored SIMD kernels load (`colored::RawLinks`).
pub(crate) struct LinkState<'s, T> {
    /// `α̃ = α/h²` (1/kg).
    pub(crate) alpha: &'s mut [T],
    /// `g = 1/(w_i + w_j + α̃)` (kg); 0 for a link no sweep moves
    /// (disabled, or both particles static).
    pub(crate) g: &'s mut [T],
    /// λ of the current substep (kg·m).
    pub(crate) lambda: &'s mut [T],
    /// The rest length (m), negated for a tension-only link, 0 for a
    /// disabled one (`ColoredLinks::rest`'s convention).
    pub(crate) rest: &'s mut [T],
    /// Two entries per link holding its particle indices `i`, `j` as
    /// `u32`s (`colored::store_indices`), which the kernels read instead
    /// of the caller's links; empty in a task's range of the link pass.
    pub(crate) ij: &'s mut [T],
}

impl<'s, T> LinkState<'s, T> {
    /// The state of `links` links carved from the first
    /// [`state_len`]`(links)` entries of `state` (`None` when it is
    /// shorter).
    pub(crate) fn carve(state: &'s mut [T], links: usize) -> Option<Self> {
        let (alpha, rest) = state.split_at_mut_checked(links)?;
        let (g, rest) = rest.split_at_mut_checked(links)?;
        let (lambda, rest) = rest.split_at_mut_checked(links)?;
        let (rest, ij) = rest.split_at_mut_checked(links)?;
        let ij = ij.get_mut(..links.checked_mul(2)?)?;
        Some(Self {
            alpha,
            g,
            lambda,
            rest,
            ij,
        })
    }

    /// No state (a frame on the checked path's validation).
    pub(crate) fn none() -> Self {
        Self {
            alpha: &mut [],
            g: &mut [],
            lambda: &mut [],
            rest: &mut [],
            ij: &mut [],
        }
    }

    /// The same state, reborrowed.
    pub(crate) fn reborrow(&mut self) -> LinkState<'_, T> {
        LinkState {
            alpha: self.alpha,
            g: self.g,
            lambda: self.lambda,
            rest: self.rest,
            ij: self.ij,
        }
    }

    /// The state as the colored kernels' view of `m` links with inverse
    /// masses `w` ([`frame_links`], `lazy` as [`RawLinks::lazy`]; `None`
    /// when a length differs).
    pub(crate) fn kernel_links(self, m: usize, w: &[T], lazy: bool) -> Option<RawLinks<T>>
    where
        T: Real,
    {
        frame_links(
            m,
            self.ij,
            self.rest,
            self.alpha,
            self.g,
            self.lambda,
            w,
            lazy,
        )
    }

    /// The constants the frame's validation writes.
    pub(crate) fn constants(self) -> LinkConstants<'s, T> {
        LinkConstants {
            alpha: self.alpha,
            g: self.g,
            rest: self.rest,
            ij: self.ij,
        }
    }
}

/// The instruction set the frame's link kernels run at: `isa`, f32 at
/// most AVX2 (sixteen gathered f32 lanes cost more than eight; measured
/// on AoS and on SoA particles, docs/performance.md).
pub(crate) fn kernel_isa<T>(isa: Isa) -> Isa {
    if core::mem::size_of::<T>() == 4 {
        isa.restrict(Isa::AVX2_BIT | Isa::NEON_BIT)
    } else {
        isa
    }
}

/// A [`LinkState`] lent to the tasks of one phase, each taking a disjoint
/// link range.
pub(super) struct SharedState<T> {
    alpha: Shared<T>,
    g: Shared<T>,
    lambda: Shared<T>,
    rest: Shared<T>,
}

impl<T> SharedState<T> {
    /// Lends `state` to one phase.
    pub(super) fn new(state: LinkState<'_, T>) -> Self {
        Self {
            alpha: Shared::new(state.alpha),
            g: Shared::new(state.g),
            lambda: Shared::new(state.lambda),
            rest: Shared::new(state.rest),
        }
    }

    /// The state of links `a .. b` (an empty state when out of bounds:
    /// the state of no link).
    ///
    /// # Safety
    /// As [`Shared::range`]: the phase's tasks take disjoint ranges, and
    /// the lent state is not used until the phase ends.
    pub(super) unsafe fn range(&self, a: usize, b: usize) -> LinkState<'_, T> {
        // SAFETY: forwarded caller contract, for each array.
        let parts = unsafe {
            (
                self.alpha.range(a, b),
                self.g.range(a, b),
                self.lambda.range(a, b),
                self.rest.range(a, b),
            )
        };
        match parts {
            (Some(alpha), Some(g), Some(lambda), Some(rest)) => LinkState {
                alpha,
                g,
                lambda,
                rest,
                ij: &mut [],
            },
            _ => LinkState::none(),
        }
    }
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
    /// state `state`; a failing link is reported as
    /// [`SystemError::ZeroLength`] naming it (the frame is run again on
    /// the checked path, which names the cause).
    #[inline(always)]
    pub(super) fn sweep<T: Real, const D: usize, P: Particles<T, D>>(
        &self,
        x: &mut P,
        links: &[Link<T>],
        state: LinkState<'_, T>,
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
        r.map_err(|k| zero_length(base.saturating_add(k)))
    }
}

/// The error a failing link pass reports for link `constraint` (the frame
/// is run again on the checked path, which names the cause).
pub(super) fn zero_length(constraint: usize) -> StepError {
    StepError::System(SystemError::ZeroLength { constraint })
}

/// The caller's λ kept in the state while a failed frame is run again on
/// the checked path (put back by [`commit`] if that fails too).
pub(super) fn keep_lambdas<T: Real>(links: &[Link<T>], lambda: &mut [T]) {
    for (l, slot) in links.iter().zip(lambda) {
        store_lambda(slot, l.lambda);
    }
}

/// The commit of a successful frame: every link's λ of the last substep
/// from the state into the caller's links (or, after a failed frame, the
/// caller's λ kept by [`keep_lambdas`] put back).
pub(super) fn commit<T: Real>(links: &mut [Link<T>], lambda: &[T]) {
    for (l, &v) in links.iter_mut().zip(lambda) {
        store_lambda(&mut l.lambda, v);
    }
}

/// One sweep over `links` (in order, each committed before the next:
/// Gauss-Seidel; or one range of a color) with the formula of the module
/// documentation, their state in `state`. `first`: the substep's first
/// sweep (λ read as 0). Counts into `stats` when given. `Err(k)` when link
/// `k` has zero length (or a NaN position) under [`ZeroLength::Reject`]:
/// the frame fails and is run again on the checked path.
#[inline(always)]
fn sweep<T: Real, const D: usize, P: Particles<T, D>, const STATS: bool>(
    x: &mut P,
    links: &[Link<T>],
    state: LinkState<'_, T>,
    first: bool,
    policy: ZeroLength,
    mut stats: Option<&mut SweepStats<T>>,
) -> Result<(), usize> {
    if !STATS {
        stats = None;
    }
    let LinkState {
        alpha,
        g,
        lambda,
        rest,
        ..
    } = state;
    let constants = alpha.iter().zip(g.iter()).zip(rest.iter());
    for (k, ((l, lambda_slot), ((&alpha, &g), &rest))) in links
        .iter()
        .zip(lambda.iter_mut())
        .zip(constants)
        .enumerate()
    {
        let (i, j) = (index(l.i), index(l.j));
        let (Some((xi, wi)), Some((xj, wj))) = (x.get(i), x.get(j)) else {
            // Never: the frame validated every index.
            return Err(k);
        };
        // `g = 0`: disabled, or both particles static.
        if g == T::ZERO {
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
        let c = len - rest.abs();
        let lambda = if first { T::ZERO } else { *lambda_slot };
        let numerator = -c - alpha * lambda;
        let mut delta = numerator * g;
        let mut clamped = false;
        if rest < T::ZERO && lambda + delta > T::ZERO {
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
