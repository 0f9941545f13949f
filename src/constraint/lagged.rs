//! The kinds of one particle held against a point that moves over a
//! frame's substeps: the `lagged` walk of the kinds table
//! (`solver::kinds`). Kinematic attachments ([`attachment`](super::attachment))
//! and skinned constraints ([`skin`](super::skin)) implement [`Lagged`];
//! the sequential sweep, the colored ranges (one color per instance, on
//! the calling thread) and the SoA frame's window of one particle solve
//! them through [`solve_lagged`] and [`solve_lagged_one`], their λ
//! written by `store_lambda`; on the SoA frame a kind may first take
//! runs of [`LANES`] instances at once ([`Lagged::run`]: the skinned
//! constraints, `skin::lanes`), with the same bits.
//!
//! # The point of a substep
//!
//! The caller writes `target` before a frame; a step moves the point from
//! `previous` to `target` over the frame's `S` substeps,
//! `p(s) = target + (previous − target)·(S − 1 − s)/S` in substep `s`
//! (exactly `target` in the last one), and sets `previous ← target` after
//! a successful frame. Outside a step (a [`System`](crate::System)'s own
//! substeps) the point is `target`.

use super::lanes::{Widen, LANES};
use super::{Fault, Invalid, Outcome};
use crate::real::Real;

/// Where a step stands for the lagged kinds in one substep.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Motion<T> {
    /// The weight of `previous` in the point, `(S − 1 − s)/S` (0 in the
    /// last substep and outside a step).
    pub(crate) lag: T,
    /// The skinned constraints' max distance scale
    /// ([`StepConfig::max_distance_scale`](crate::step::StepConfig::max_distance_scale)),
    /// 1 outside a step.
    pub(crate) scale: T,
}

impl<T: Real> Motion<T> {
    /// Outside a step: the point is `target`, the max distances unscaled.
    pub(crate) const fn at_target() -> Self {
        Self {
            lag: T::ZERO,
            scale: T::ONE,
        }
    }

    /// Substep `s` of `substeps` with the max distances scaled by `scale`.
    pub(crate) fn of(s: u32, substeps: u32, scale: T) -> Self {
        Self {
            lag: lag(s, substeps),
            scale,
        }
    }
}

/// The lag of substep `s` of `substeps` (the weight of `previous` in the
/// point: `(S − 1 − s)/S`, 0 in the last substep).
#[inline]
pub(crate) fn lag<T: Real>(s: u32, substeps: u32) -> T {
    let left = substeps.saturating_sub(s).saturating_sub(1);
    T::from_f64(f64::from(left)) / T::from_f64(f64::from(substeps.max(1)))
}

/// `target + (previous − target)·lag`, exactly `target` for `lag = 0`.
#[inline]
pub(crate) fn between<T: Real>(previous: &[T; 3], target: &[T; 3], lag: T) -> [T; 3] {
    if lag == T::ZERO {
        return *target;
    }
    let mut p = *target;
    for (v, q) in p.iter_mut().zip(previous) {
        *v = *v + (*q - *v) * lag;
    }
    p
}

/// What solving one instance would do, writing nothing: the outcome and,
/// when applied, the particle, its corrected position and the new λ.
pub(crate) type Planned<T, const D: usize, L> = (Outcome<T>, Option<(usize, [T; D], L)>);

/// A kind of the `lagged` walk: one particle, a point moving over the
/// frame, its λ committed with the particle or not at all.
pub(crate) trait Lagged<T: Real>: Copy {
    /// The instance's accumulated multipliers (kg·m).
    type Lambda: Copy;
    /// The particle (index).
    fn particle(&self) -> u32;
    /// The same instance naming particle `particle` (the SoA frame's
    /// window of one particle).
    fn with_particle(self, particle: u32) -> Self;
    /// The accumulated multipliers.
    fn lambda(&self) -> Self::Lambda;
    /// Where [`store_lambda`](super::store_lambda) writes them.
    fn lambda_slot(&mut self) -> &mut Self::Lambda;
    /// Checks the instance's own parameters (the caller adds its index).
    fn check(&self, w: &[T], h2: T) -> Result<(), Invalid>;
    /// Visits the instance at `positions` in the substep `at`, through
    /// the one update; writes nothing.
    fn visit<const D: usize>(
        &self,
        positions: &[[T; D]],
        inverse_masses: &[T],
        at: Motion<T>,
        h2: T,
    ) -> Result<Planned<T, D, Self::Lambda>, Fault>;
    /// Solves the first [`LANES`] instances of `items` at once over the
    /// SoA frame's coordinate arrays `x` (inverse masses `w`) in the
    /// substep `at` with `h2`, at the vector level of `widen`, when the
    /// kind has a lane path and they take it: their outcomes in order,
    /// with the bits of [`solve_lagged_one`] one at a time; else `None`,
    /// having written nothing. None by default.
    #[inline(always)]
    fn run<const D: usize, W: Widen>(
        _items: &mut [Self],
        _x: &mut [&mut [T]; D],
        _w: &[T],
        _at: (Motion<T>, T),
        _widen: &W,
    ) -> Option<[Outcome<T>; LANES]> {
        None
    }
}

/// [`Lagged::visit`], then commits the corrected position and λ together,
/// or (on a fault) nothing.
#[inline]
pub(crate) fn solve_lagged<T: Real, const D: usize, K: Lagged<T>>(
    item: &mut K,
    positions: &mut [[T; D]],
    inverse_masses: &[T],
    at: Motion<T>,
    h2: T,
) -> Result<Outcome<T>, Fault> {
    let (outcome, apply) = item.visit(positions, inverse_masses, at, h2)?;
    if let Some((p, x, lambda)) = apply {
        if let Some(slot) = positions.get_mut(p) {
            *slot = x;
        }
        super::store_lambda(item.lambda_slot(), lambda);
    }
    Ok(outcome)
}

/// [`solve_lagged`] with the instance's one particle given by value (the
/// SoA frame's coordinate arrays): its position `x` (m, written when the
/// instance applies) and inverse mass `w` (1/kg). The same operations on
/// the same values (a copy naming particle 0 over a window of that
/// particle), so the same bits; λ is written back.
pub(crate) fn solve_lagged_one<T: Real, const D: usize, K: Lagged<T>>(
    item: &mut K,
    x: &mut [T; D],
    w: T,
    at: Motion<T>,
    h2: T,
) -> Result<Outcome<T>, Fault> {
    let mut local = item.with_particle(0);
    let r = solve_lagged(
        &mut local,
        core::slice::from_mut(x),
        core::slice::from_ref(&w),
        at,
        h2,
    );
    super::store_lambda(item.lambda_slot(), local.lambda());
    r
}
