//! Diagnostics of sweeps.

use crate::math::max;
use crate::real::Real;

/// Diagnostics of one Gauss-Seidel sweep (or of [`Substep::measure`](crate::Substep::measure)).
///
/// `max_abs_c` and `max_residual` are taken when each link is visited,
/// before its correction: they describe the state the sweep started from as
/// Gauss-Seidel sees it. `max_residual = max |C + α̃λ|` is the XPBD
/// convergence measure (zero at a soft equilibrium even when `C ≠ 0`).
/// Links with two static particles or skipped for zero length are not
/// included in the maxima.
///
/// `#[repr(C)]`: `SweepStats<f64>` is the C type `XpbdSweepStats`,
/// `SweepStats<f32>` is `XpbdSweepStatsF32`.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct SweepStats<T> {
    /// Links corrected.
    pub applied: usize,
    /// Links skipped because both particles are static (`w_i = w_j = 0`).
    pub skipped_static: usize,
    /// Links skipped for zero length under [`ZeroLength::Skip`](crate::ZeroLength::Skip).
    pub skipped_zero_length: usize,
    /// Largest |C| (m).
    pub max_abs_c: T,
    /// Largest compliance residual |C + α̃λ| (m).
    pub max_residual: T,
}

/// The result of [`Substep::iterate_until`](crate::Substep::iterate_until).
///
/// `#[repr(C)]`: `Convergence<f64>` is the C type `XpbdConvergence`,
/// `Convergence<f32>` is `XpbdConvergenceF32`.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Convergence<T> {
    /// Sweeps run.
    pub iterations: u32,
    /// 1 when the last sweep's `max_residual` was ≤ the tolerance, else 0.
    pub converged: u32,
    /// The last sweep's diagnostics (all zero when no sweep ran).
    pub last: SweepStats<T>,
}

impl<T: Real> SweepStats<T> {
    /// Combines the diagnostics of two parts of one sweep (counts add,
    /// maxima take the larger): the result does not depend on how a sweep
    /// was split into jobs.
    #[must_use]
    pub fn merge(self, other: Self) -> Self {
        Self {
            applied: self.applied.saturating_add(other.applied),
            skipped_static: self.skipped_static.saturating_add(other.skipped_static),
            skipped_zero_length: self
                .skipped_zero_length
                .saturating_add(other.skipped_zero_length),
            max_abs_c: max(self.max_abs_c, other.max_abs_c),
            max_residual: max(self.max_residual, other.max_residual),
        }
    }
}
