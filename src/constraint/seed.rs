//! The 1D XPBD distance constraint between two particles on a line: the seed
//! solver, exactly as `docs/spec.md` fixes it.
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

use crate::real::{
    both_zero, finite, finite_non_negative, finite_positive, negative, positive, Real,
};
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
/// `docs/spec.md` (left to right, no fused multiply-add) so the golden figures are
/// reproduced bit for bit.
///
/// Two paths, one result. The fast path computes the candidate first and
/// then accepts it with one combined test (below); anything it does not
/// accept, valid or not, goes to [`checked`], which runs the checks one by
/// one in the documented order. Accepting means `checked` would return
/// `Ok(Some(_))` with the same three values: the arithmetic is the same
/// expressions in the same order, so the bits are too.
///
/// Why the combined test implies every check of `checked` (all values are
/// IEEE-754, `S` is the sign bit):
///
/// - `wa`, `wb`, `rest`, `compliance`, `dt` have `S` clear: `≥ +0` or NaN.
/// - `s = ((a' + b') + (λ' + den)) + dt` is finite. A sum with a ±∞ or NaN
///   term is ±∞ or NaN, so `a'`, `b'`, `λ'`, `den` and `dt` are finite.
///   `den = (wa + wb) + α̃` adds non-negatives (or NaN): finite `den` means
///   `wa`, `wb` and `α̃` are finite. `α̃ = compliance / dt²` finite with `dt`
///   finite means `compliance` is finite. `λ' = λ + Δλ` finite means `Δλ`
///   is finite, which rules out `den = 0` (`x / 0` is ±∞ or NaN), so
///   `den > 0`; and `a' = a − wa Δλ`, `b' = b + wb Δλ` finite with finite
///   products mean `a`, `b` are finite. `Δλ = (−(gap − rest) − α̃ λ) / den`
///   finite with finite `den` means `rest` is finite (an infinite `rest`
///   makes the numerator ±∞ or NaN).
/// - `dt > 0`: `dt = +0` makes `α̃` +∞ or NaN, excluded above.
/// - `rest`, `wa + wb` and `gap = b − a` are not `+0` (bit pattern not 0)
///   and `gap` and `b' − a'` have `S` clear: `rest > 0`, not both masses
///   zero, `b > a`, and `b' − a'` is not negative.
///
/// `-0.0` inputs, overflowing sums and every invalid input take the slow
/// path, which decides exactly as before. The unit tests below compare both
/// paths on millions of inputs built from special values.
#[allow(clippy::too_many_arguments)]
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
    if FAST_PATH {
        if let Some(next) = accept(a, b, wa, wb, rest, compliance, dt, lambda) {
            return Ok(Some(next));
        }
    }
    checked(a, b, wa, wb, rest, compliance, dt, lambda)
}

/// Whether [`candidate`] and the C solve try [`accept`] first. On hosted
/// targets it makes the 1D solve about 15 % faster (`docs/performance.md`); on
/// bare metal (`target_os = "none"`, e.g. Cortex-M) it is left out, because
/// there it would duplicate the soft-float arithmetic in every image
/// (issue 6's 1D size targets). The results are the same bits either way.
pub(crate) const FAST_PATH: bool = cfg!(not(target_os = "none"));

/// The fast path of [`candidate`]: `Some` only when every check passes (see
/// there why the combined test implies each one); `None` says nothing about
/// validity, only "decide with [`checked`]".
#[allow(clippy::too_many_arguments)]
#[inline]
pub(crate) fn accept<T: Real>(
    a: T,
    b: T,
    wa: T,
    wb: T,
    rest: T,
    compliance: T,
    dt: T,
    lambda: T,
) -> Option<Candidate<T>> {
    let gap = b - a;
    let alpha = compliance / (dt * dt);
    let masses = wa + wb;
    let denominator = masses + alpha;
    let c = gap - rest;
    let delta = (-c - alpha * lambda) / denominator;
    let next = Candidate {
        a: a - wa * delta,
        b: b + wb * delta,
        lambda: lambda + delta,
    };
    let span = next.b - next.a;
    let signs =
        wa.raw() | wb.raw() | rest.raw() | compliance.raw() | dt.raw() | gap.raw() | span.raw();
    let sum = ((next.a + next.b) + (next.lambda + denominator)) + dt;
    let zero = (rest.raw() == 0) | (masses.raw() == 0) | (gap.raw() == 0);
    if ((signs & T::SIGN) == 0) & finite(sum) & !zero {
        Some(next)
    } else {
        None
    }
}

/// [`candidate`] with every check first, one at a time, in the documented
/// order: the definition of the result. Slow inputs and all errors end here.
#[allow(clippy::too_many_arguments)]
#[inline]
pub(crate) fn checked<T: Real>(
    a: T,
    b: T,
    wa: T,
    wb: T,
    rest: T,
    compliance: T,
    dt: T,
    lambda: T,
) -> Result<Option<Candidate<T>>, Error> {
    // The checks are exact bit-level forms of the SPEC's float conditions
    // (see `real.rs`): finite, finite and >= 0, finite and > 0, b > a, == 0.
    if !finite(a) || !finite(b) {
        return Err(Error::NonFinitePosition);
    }
    if !finite_non_negative(wa) || !finite_non_negative(wb) {
        return Err(Error::InvalidInverseMass);
    }
    if !finite_positive(rest) {
        return Err(Error::InvalidRestLength);
    }
    if !finite_non_negative(compliance) {
        return Err(Error::InvalidCompliance);
    }
    if !finite_positive(dt) {
        return Err(Error::InvalidTimeStep);
    }
    // `b > a` strictly: coincident endpoints are rejected. Both are finite
    // here, so `b − a > 0` is exactly `b > a` (see `positive`), and the gap
    // is the first operation of `C = b − a − rest` anyway.
    let gap = b - a;
    if !positive(gap) {
        return Err(Error::EndpointsNotOrdered);
    }
    if both_zero(wa, wb) {
        return Ok(None);
    }
    let alpha = compliance / (dt * dt);
    let denominator = wa + wb + alpha;
    // `denominator > 0` and finite also excludes NaN.
    if !finite(alpha) || !finite_positive(denominator) {
        return Err(Error::UnrepresentableScale);
    }
    let c = gap - rest; // = b - a - rest, evaluated left to right
    let delta = (-c - alpha * lambda) / denominator;
    let next = Candidate {
        a: a - wa * delta,
        b: b + wb * delta,
        lambda: lambda + delta,
    };
    // `b' < a'` as `b' − a' < 0`: exact for finite values, as above.
    if !finite(next.a) || !finite(next.b) || !finite(next.lambda) || negative(next.b - next.a) {
        return Err(Error::InvalidResult);
    }
    Ok(Some(next))
}

/// The fast path against the checked path, bit for bit: every input drawn
/// from special values (±0, subnormals, ±∞, NaN, extremes, near-equal
/// endpoints) and ordinary numbers, f64 and f32.
#[cfg(test)]
#[allow(clippy::indexing_slicing, clippy::as_conversions)]
mod tests {
    use super::*;

    struct Rng(u64);
    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }
    }

    fn pick<T: Real>(r: &mut Rng, near: T) -> T {
        let specials = [
            0.0,
            -0.0,
            1.0,
            -1.0,
            0.5,
            2.0,
            3.0,
            1e-3,
            f64::MIN_POSITIVE,
            5e-324,
            1e-160,
            1e160,
            1e300,
            f64::MAX,
            -f64::MAX,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NAN,
            1e-40,
            1e38,
            3.4e38,
        ];
        match r.next() % 4 {
            0 => T::from_f64(specials[(r.next() % specials.len() as u64) as usize]),
            // A neighbour of `near` (coincident or crossing endpoints).
            1 => T::from_f64(near.to_f64() + ((r.next() % 5) as f64 - 2.0) * 1e-12),
            _ => T::from_f64(((r.next() >> 11) as f64 / (1u64 << 53) as f64) * 8.0 - 2.0),
        }
    }

    fn same<T: Real>(
        x: Result<Option<Candidate<T>>, Error>,
        y: Result<Option<Candidate<T>>, Error>,
    ) -> bool {
        match (x, y) {
            (Ok(Some(p)), Ok(Some(q))) => {
                [p.a, p.b, p.lambda].map(T::raw) == [q.a, q.b, q.lambda].map(T::raw)
            }
            (p, q) => {
                matches!((p, q), (Ok(None), Ok(None)))
                    || matches!((p, q), (Err(e), Err(f)) if e == f)
            }
        }
    }

    fn compare<T: Real>(seed: u64, cases: usize) -> usize {
        let mut r = Rng(seed);
        let mut fast = 0;
        for _ in 0..cases {
            let a: T = pick(&mut r, T::ZERO);
            let b: T = pick(&mut r, a);
            let v: [T; 6] = [0; 6].map(|_| pick(&mut r, T::ONE));
            let [wa, wb, rest, compliance, dt, lambda] = v;
            let both = candidate(a, b, wa, wb, rest, compliance, dt, lambda);
            let slow = checked(a, b, wa, wb, rest, compliance, dt, lambda);
            assert!(
                same(both, slow),
                "{a:?} {b:?} {v:?}: fast+checked {both:?}, checked {slow:?}"
            );
            fast += usize::from(accept(a, b, wa, wb, rest, compliance, dt, lambda).is_some());
        }
        fast
    }

    // Safe Rust only: natively (the interpreter adds nothing here).
    #[test]
    #[cfg_attr(miri, ignore)]
    fn fast_path_equals_checked_path() {
        // Safe Rust only: under Miri a few hundred cases (2,000 took 46 s).
        let cases = if cfg!(miri) { 300 } else { 1_000_000 };
        for seed in [1, 0x9e37_79b9_7f4a_7c15] {
            // The fast path must really be taken, or the test shows nothing.
            assert!(compare::<f64>(seed, cases) > cases / 100);
            assert!(compare::<f32>(seed, cases) > cases / 100);
        }
    }
}
