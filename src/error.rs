//! The error type of the 1D distance solve: one variant per failed check.

use core::fmt;

/// Why a [`DistanceConstraint::solve`](crate::DistanceConstraint::solve) was
/// rejected. On every error the positions and λ are left bit-identical.
///
/// The variants are listed in the order the checks run (the order of
/// `SPEC.md`); when several inputs are bad at once, the first failing check
/// is the one reported.
///
/// # Examples
///
/// ```
/// use xpbd::{DistanceConstraint, Error};
/// let mut c = DistanceConstraint::<f64>::new();
/// let (mut a, mut b) = (0.0, 2.0);
/// // A negative inverse mass *and* a zero dt: the inverse mass is checked first.
/// let r = c.solve(&mut a, &mut b, -1.0, 1.0, 1.0, 0.01, 0.0);
/// assert_eq!(r, Err(Error::InvalidInverseMass));
/// assert_eq!((a, b, c.lambda()), (0.0, 2.0, 0.0));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Error {
    /// Check 1: an endpoint position `a` or `b` is NaN or infinite.
    NonFinitePosition,
    /// Check 2: an inverse mass `wa` or `wb` is NaN, infinite or negative.
    InvalidInverseMass,
    /// Check 3: the rest length is NaN, infinite, negative or zero.
    InvalidRestLength,
    /// Check 4: the compliance α is NaN, infinite or negative.
    InvalidCompliance,
    /// Check 5: the substep length h is NaN, infinite, zero or negative.
    InvalidTimeStep,
    /// Check 6: `b > a` does not hold (coincident or swapped endpoints).
    EndpointsNotOrdered,
    /// α̃ = α/h² or the denominator `wa + wb + α̃` is not a finite positive
    /// number (for example `h = 1e-200`, whose square underflows to zero).
    UnrepresentableScale,
    /// The candidate `a'`, `b'` or `λ'` is not finite, or `b' < a'`
    /// (for example `a = -1e308, b = 1e308`, whose gap overflows).
    InvalidResult,
}

impl Error {
    /// A static English description of the error (no allocation).
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Error::NonFinitePosition => "an endpoint position is NaN or infinite",
            Error::InvalidInverseMass => "an inverse mass is NaN, infinite or negative",
            Error::InvalidRestLength => "the rest length is NaN, infinite, negative or zero",
            Error::InvalidCompliance => "the compliance is NaN, infinite or negative",
            Error::InvalidTimeStep => "the substep length is NaN, infinite, zero or negative",
            Error::EndpointsNotOrdered => "the endpoints are not strictly ordered (b > a fails)",
            Error::UnrepresentableScale => {
                "the scaled compliance or the denominator is not a finite positive number"
            }
            Error::InvalidResult => {
                "the corrected positions or multiplier would not be finite or ordered"
            }
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl core::error::Error for Error {}
