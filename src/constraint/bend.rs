//! Dihedral bending over two triangles sharing an edge: `C = φ − φ₀`.
//!
//! (Skeleton: the helper implementing issue 15's bending fills in the
//! header — C, ∇C, α̃ = α/h², units, λ bound, paper — and `evaluate`.)

use super::{Bound, Constraint, Evaluation};
use crate::constraint::distance::index;
use crate::real::{finite_non_negative, Real};

/// One dihedral bending constraint: triangles `(p0, p1, p2)` and
/// `(p1, p0, p3)` share the edge `p0–p1`; `p2` and `p3` are the wing
/// particles.
///
/// `#[repr(C)]`: this struct *is* the C type `XpbdBend` (`Bend<f64>`) and
/// `XpbdBendF32` (`Bend<f32>`).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Bend<T> {
    /// `[p0, p1, p2, p3]`: the shared edge, then the two wings (indices,
    /// all distinct).
    pub particles: [u32; 4],
    /// Rest dihedral angle φ₀ (rad), finite, in `[−π, π]`.
    pub rest_angle: T,
    /// Compliance α (rad²/J = 1/(N·m)), finite and ≥ 0; 0 is rigid.
    pub compliance: T,
    /// Accumulated multiplier λ (N·m·s², i.e. J·s²/rad) of the current
    /// substep.
    pub lambda: T,
}

impl<T: Real> Bend<T> {
    /// A bending constraint with λ = 0.
    #[must_use]
    pub fn new(particles: [u32; 4], rest_angle: T, compliance: T) -> Self {
        Self {
            particles,
            rest_angle,
            compliance,
            lambda: T::ZERO,
        }
    }

    /// Checks this constraint's own parameters (indices below the particle
    /// count and distinct, rest angle, compliance, `α/h²` finite).
    pub(crate) fn check(&self, w: &[T], h2: T) -> Result<(), super::Invalid> {
        super::check_particles(&self.particles, w)?;
        let pi = T::from_f64(core::f64::consts::PI);
        if !self.rest_angle.is_finite() || self.rest_angle.abs() > pi {
            return Err(super::Invalid::RestValue);
        }
        super::check_compliance(self.compliance, h2)
    }
}

impl<T: Real, const D: usize> Constraint<T, D, 4> for Bend<T> {
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
        let _ = (
            x,
            w,
            finite_non_negative(self.compliance),
            index(self.particles[0]),
        );
        Evaluation::Static
    }
}
