//! The 1D XPBD distance constraint between two particles on a line: the seed
//! solver, exactly as `SPEC.md` fixes it.
//!
//! # The equations
//!
//! Endpoints `a < b` (m), inverse masses `wa`, `wb` (1/kg), rest length
//! `rest` (m), compliance `α` (m/N = s²/kg), substep length `h` (s).
//!
//! - Constraint: `C = b − a − rest` (m). `C > 0` means the link is stretched.
//! - Gradient: `∂C/∂a = −1`, `∂C/∂b = +1`.
//! - Scaled compliance: `α̃ = α / h²` (1/kg).
//! - One iteration (Macklin, Müller, Chentanez 2016, *XPBD: Position-Based
//!   Simulation of Compliant Constrained Dynamics*, eq. 18):
//!
//! ```text
//! Δλ = (−C − α̃ λ) / (wa + wb + α̃)
//! a ← a − wa Δλ
//! b ← b + wb Δλ
//! λ ← λ + Δλ
//! ```
//!
//! λ is the accumulated multiplier (kg·m); `λ / h²` is the constraint force
//! scale (N). After a solve `C + α̃ λ = 0`: a soft link at equilibrium keeps
//! a non-zero stretch, and that is correct.
//!
//! # The lifecycle
//!
//! λ belongs to one [`DistanceConstraint`] instance. It is reset to zero by
//! [`DistanceConstraint::begin_substep`] and nowhere else; the iteration loop
//! calls [`DistanceConstraint::solve`] on the same instance. Resetting λ on
//! every iteration would drop the `α̃ λ` term that stops further tightening,
//! so the iteration budget would silently become a material stiffness.

use crate::real::{finite_non_negative, Real};
use crate::Error;

/// An XPBD distance constraint on a line, holding its accumulated multiplier λ.
///
/// The instance *is* the λ of one constraint for one substep: create one per
/// link, call [`begin_substep`](Self::begin_substep) at each substep entry and
/// [`solve`](Self::solve) once per iteration. `T` is [`f64`] or [`f32`].
///
/// # Examples
///
/// The seed's fixed case: rest 1 m, endpoints 2 m apart, α̃ = 0.01/0.1² = 1.
///
/// ```
/// use xpbd::DistanceConstraint;
///
/// let mut link = DistanceConstraint::<f64>::new();
/// let (mut a, mut b) = (0.0_f64, 2.0_f64);
/// link.begin_substep();
/// for _ in 0..10 {
///     // wa, wb, rest, compliance, h: fixed for the whole substep.
///     assert_eq!(link.solve(&mut a, &mut b, 1.0, 1.0, 1.0, 0.01, 0.1), Ok(true));
/// }
/// // Ten iterations leave the same legal soft stretch as one: 1/3 m.
/// assert_eq!(b - a - 1.0, 0.3333333333333335);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct DistanceConstraint<T: Real> {
    lambda: T,
}

/// The checked result of one solve: the three values to commit.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Candidate<T> {
    pub(crate) a: T,
    pub(crate) b: T,
    pub(crate) lambda: T,
}

impl<T: Real> DistanceConstraint<T> {
    /// A constraint with λ = 0, ready for its first substep.
    #[must_use]
    pub fn new() -> Self {
        Self { lambda: T::ZERO }
    }

    /// The accumulated multiplier λ (kg·m) applied so far in this substep.
    #[must_use]
    pub fn lambda(&self) -> T {
        self.lambda
    }

    /// Starts a substep: λ ← 0. This is the only place λ is reset.
    ///
    /// Call it once at each substep entry, then [`solve`](Self::solve) once per
    /// iteration with the same rest length, compliance, inverse masses and h.
    pub fn begin_substep(&mut self) {
        self.lambda = T::ZERO;
    }

    /// One XPBD iteration: `Δλ = (−C − α̃λ)/(wa + wb + α̃)`, `a −= wa Δλ`,
    /// `b += wb Δλ`, `λ += Δλ`, with `C = b − a − rest` and `α̃ = α/h²`.
    ///
    /// Units: `a`, `b`, `rest` in m; `wa`, `wb` in 1/kg; `compliance` α in
    /// m/N (s²/kg); `dt` is the real **substep** length h in s, never the
    /// render frame time.
    ///
    /// Returns `Ok(true)` when the correction was applied and `Ok(false)` when
    /// both endpoints are static (`wa = wb = 0`; nothing changed).
    ///
    /// # Errors
    ///
    /// The checks run in this order and the first failure is reported:
    /// [`Error::NonFinitePosition`], [`Error::InvalidInverseMass`],
    /// [`Error::InvalidRestLength`], [`Error::InvalidCompliance`],
    /// [`Error::InvalidTimeStep`], [`Error::EndpointsNotOrdered`] (inputs), then
    /// [`Error::UnrepresentableScale`] and [`Error::InvalidResult`]. On any
    /// error `a`, `b` and λ are left bit-identical.
    ///
    /// # Examples
    ///
    /// ```
    /// use xpbd::{DistanceConstraint, Error};
    /// let mut link = DistanceConstraint::<f32>::new();
    /// let (mut a, mut b) = (1.0_f32, 1.0_f32);
    /// // Coincident endpoints are rejected and nothing is written.
    /// assert_eq!(link.solve(&mut a, &mut b, 1.0, 1.0, 1.0, 0.0, 0.1),
    ///            Err(Error::EndpointsNotOrdered));
    /// assert_eq!((a, b), (1.0, 1.0));
    /// ```
    #[allow(clippy::too_many_arguments)]
    pub fn solve(
        &mut self,
        a: &mut T,
        b: &mut T,
        wa: T,
        wb: T,
        rest: T,
        compliance: T,
        dt: T,
    ) -> Result<bool, Error> {
        match candidate(*a, *b, wa, wb, rest, compliance, dt, self.lambda)? {
            None => Ok(false),
            Some(next) => {
                *a = next.a;
                *b = next.b;
                self.lambda = next.lambda;
                Ok(true)
            }
        }
    }
}

/// Validates every input and computes the candidate without writing anything.
///
/// `Ok(None)`: both endpoints static. The arithmetic is spelled exactly as in
/// `SPEC.md` (left to right, no fused multiply-add) so the golden figures are
/// reproduced bit for bit.
#[allow(clippy::too_many_arguments)]
#[allow(clippy::eq_op)] // `x − x` is the finiteness probe
#[inline]
pub(crate) fn candidate<T: Real>(
    a: T,
    b: T,
    wa: T,
    wb: T,
    rest: T,
    compliance: T,
    dt: T,
    lambda: T,
) -> Result<Option<Candidate<T>>, Error> {
    // Fast path: every input check of SPEC.md at once, without branches
    // (the sum of `x − x` is 0 exactly when every x is finite; NaN fails
    // every comparison). Only when
    // it fails are the checks repeated in SPEC.md's order to name the first
    // failing one, so the reported error is the same either way.
    // Summed as a shallow tree: the parameters' part does not wait for the
    // positions loaded from memory, and the chain before the branch stays
    // short.
    let probe = ((a - a) + (b - b))
        + (((wa - wa) + (wb - wb)) + ((rest - rest) + ((compliance - compliance) + (dt - dt))));
    let inputs_ok = u8::from(probe == T::ZERO)
        & u8::from(wa >= T::ZERO)
        & u8::from(wb >= T::ZERO)
        & u8::from(rest > T::ZERO)
        & u8::from(compliance >= T::ZERO)
        & u8::from(dt > T::ZERO)
        & u8::from(b > a)
        != 0;
    if !inputs_ok {
        return Err(first_input_error(a, b, wa, wb, rest, compliance, dt));
    }
    if wa == T::ZERO && wb == T::ZERO {
        return Ok(None);
    }
    let alpha = compliance / (dt * dt);
    let denominator = wa + wb + alpha;
    let c = b - a - rest;
    let delta = (-c - alpha * lambda) / denominator;
    let next = Candidate {
        a: a - wa * delta,
        b: b + wb * delta,
        lambda: lambda + delta,
    };
    // The scale check before the result check, as SPEC.md orders them (the
    // candidate is computed either way; nothing is written on error).
    if !(finite(alpha) & finite(denominator) & (denominator > T::ZERO)) {
        return Err(Error::UnrepresentableScale);
    }
    let result_probe = ((next.a - next.a) + (next.b - next.b)) + (next.lambda - next.lambda);
    if !((result_probe == T::ZERO) & (next.b >= next.a)) {
        return Err(Error::InvalidResult);
    }
    Ok(Some(next))
}

/// `true` when `x` is neither infinite nor NaN (`x − x` is 0 exactly then),
/// in a form that compiles to one subtraction and one comparison.
#[inline(always)]
#[allow(clippy::eq_op)] // x − x is the point: NaN exactly when x is not finite
fn finite<T: Real>(x: T) -> bool {
    x - x == T::ZERO
}

/// The first failing input check, in SPEC.md's order (called only when one
/// fails).
#[cold]
#[inline(never)]
fn first_input_error<T: Real>(a: T, b: T, wa: T, wb: T, rest: T, compliance: T, dt: T) -> Error {
    if !a.is_finite() || !b.is_finite() {
        return Error::NonFinitePosition;
    }
    if !finite_non_negative(wa) || !finite_non_negative(wb) {
        return Error::InvalidInverseMass;
    }
    if !finite_non_negative(rest) || rest == T::ZERO {
        return Error::InvalidRestLength;
    }
    if !finite_non_negative(compliance) {
        return Error::InvalidCompliance;
    }
    if !dt.is_finite() || dt <= T::ZERO {
        return Error::InvalidTimeStep;
    }
    // `b > a` strictly: coincident endpoints are rejected.
    Error::EndpointsNotOrdered
}
