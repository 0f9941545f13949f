//! Tetrahedral volume: `C = 6(V − V₀)`.
//!
//! (Skeleton: the helper implementing issue 15's volume fills in the
//! header — C, ∇C, α̃ = α/h², units, λ bound, paper, inverted tets — and
//! `evaluate`.)

use super::{Bound, Constraint, Evaluation};
use crate::real::Real;

/// One tetrahedral volume constraint over particles `p0..p3`, with
/// `V = ((x1 − x0) × (x2 − x0)) · (x3 − x0) / 6` (signed, m³).
///
/// `#[repr(C)]`: this struct *is* the C type `XpbdTet` (`Tet<f64>`) and
/// `XpbdTetF32` (`Tet<f32>`).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Tet<T> {
    /// The four particles (indices, all distinct).
    pub particles: [u32; 4],
    /// Rest volume V₀ (m³, signed as `V` above), finite and non-zero.
    pub rest_volume: T,
    /// Compliance α (m⁶/J = m⁵/N of the constraint `6(V − V₀)`), finite
    /// and ≥ 0; 0 keeps the volume exactly.
    pub compliance: T,
    /// Accumulated multiplier λ of the current substep.
    pub lambda: T,
}

impl<T: Real> Tet<T> {
    /// A tet constraint with λ = 0.
    #[must_use]
    pub fn new(particles: [u32; 4], rest_volume: T, compliance: T) -> Self {
        Self {
            particles,
            rest_volume,
            compliance,
            lambda: T::ZERO,
        }
    }

    /// Checks this constraint's own parameters (indices below the particle
    /// count and distinct, rest volume finite and non-zero, compliance,
    /// `α/h²` finite).
    pub(crate) fn check(&self, w: &[T], h2: T) -> Result<(), super::Invalid> {
        super::check_particles(&self.particles, w)?;
        if !self.rest_volume.is_finite() || self.rest_volume == T::ZERO {
            return Err(super::Invalid::RestValue);
        }
        super::check_compliance(self.compliance, h2)
    }
}

impl<T: Real, const D: usize> Constraint<T, D, 4> for Tet<T> {
    type Shared<'s> = ();

    #[inline(always)]
    fn lambda(&self) -> T {
        self.lambda
    }

    #[inline(always)]
    fn set_lambda(&mut self, lambda: T) {
        self.lambda = lambda;
    }

    #[inline(always)]
    fn bound(&self) -> Bound {
        Bound::Free
    }

    #[inline(always)]
    fn alpha(&self, _: &(), h2: T) -> T {
        self.compliance / h2
    }

    #[inline(always)]
    fn evaluate(&self, x: &[[T; D]], w: &[T], _: &()) -> Evaluation<T, D, 4> {
        // Skeleton: to be implemented (issue 15).
        let _ = (x, w);
        Evaluation::Static
    }
}
