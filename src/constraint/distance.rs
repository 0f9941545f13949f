//! Distance links: `C = |x_j − x_i| − rest`, bilateral or tension only.
//!
//! # The constraint
//!
//! Particles `x_i, x_j ∈ ℝ^D` (m), inverse masses `w_i, w_j` (1/kg), rest
//! length `rest` (m), compliance `α` (m/N = s²/kg), substep `h` (s):
//!
//! - `C = |x_j − x_i| − rest` (m); `C > 0` is stretched.
//! - `∇_{x_j} C = n`, `∇_{x_i} C = −n`, `n = (x_j − x_i)/|x_j − x_i|` (unit).
//! - `α̃ = α / h²` (1/kg); `W = w_i + w_j` (the gradient has unit length).
//! - λ (kg·m) free, or `λ ≤ 0` with [`Link::TENSION_ONLY`] (the link only
//!   pulls; a slack link is left alone).
//! - Macklin, Müller, Chentanez 2016, *XPBD: Position-Based Simulation of
//!   Compliant Constrained Dynamics*, eq. 18; tension-only as a unilateral
//!   constraint with the accumulated λ clamped (Müller et al. 2020, §3.5).
//!
//! For a link along the x axis the arithmetic is the 1D seed solver's, bit
//! for bit: `|x_j − x_i| = sqrt((b − a)²) = b − a` exactly, `n = (1, 0, 0)`.
//!
//! # Zero length
//!
//! When `|x_j − x_i|²` is below the smallest positive normal number of `T`
//! (f64: lengths under about 1.5e-154 m; f32: under about 1.1e-19 m) the
//! direction is undefined: the instance evaluates as degenerate and the
//! sweep's [`ZeroLength`](crate::ZeroLength) policy rejects or skips it.

use super::{
    all_finite, finite_sum, update, Bound, Constraint, Count, Evaluated, Evaluation, Fault,
    Outcome, Particles, Scaled,
};
use crate::math::length_squared;
use crate::real::{finite_non_negative, Real};
use crate::SystemError;

/// One distance constraint of a [`System`](crate::System): particle indices, rest length,
/// compliance and its own accumulated multiplier λ.
///
/// `#[repr(C)]`: this struct *is* the C type `XpbdLink` (`Link<f64>`) and
/// `XpbdLinkF32` (`Link<f32>`) of `include/xpbd.h`.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Link<T> {
    /// Index of the first particle.
    pub i: u32,
    /// Index of the second particle (≠ `i`).
    pub j: u32,
    /// Rest length (m), finite and > 0.
    pub rest: T,
    /// Compliance α (m/N = s²/kg), finite and ≥ 0; 0 is a rigid link.
    pub compliance: T,
    /// Accumulated multiplier λ (kg·m) of the current substep. Reset only by
    /// [`System::begin_substep`](crate::System::begin_substep).
    pub lambda: T,
    /// Flag bits: 0, [`Link::TENSION_ONLY`], [`Link::DISABLED`], or both.
    /// Other bits are rejected.
    pub flags: u32,
}

impl<T: Real> Link<T> {
    /// Flag: the link is unilateral, resisting only stretching, as a real
    /// rope does. Its accumulated λ is clamped to `λ ≤ 0` (λ < 0 pulls the
    /// particles together), so it never pushes: a slack link (C < 0) is left
    /// alone. Clamping the *accumulated* value, not each Δλ, keeps the
    /// lifecycle rule intact.
    pub const TENSION_ONLY: u32 = 1;

    /// Flag: the link is off (torn). Every sweep, sequential or colored,
    /// skips it: its λ stays at the 0 `begin_substep` wrote, nothing moves,
    /// and it counts as `skipped_static` (never as applied, nor in
    /// `max_abs_c` or `max_residual`). Only its particle indices are
    /// validated (in range, `i ≠ j`); its rest length and compliance are
    /// not read. Clearing the bit turns it back on (nothing to recolor).
    /// [`step`](crate::step::step) sets it on links whose force exceeded
    /// their maximum ([`Tearing::max_force`](crate::step::Tearing::max_force)).
    pub const DISABLED: u32 = 2;

    /// Every flag bit a link may carry.
    pub const FLAGS: u32 = Self::TENSION_ONLY | Self::DISABLED;

    /// Whether the link is [`Link::DISABLED`].
    #[must_use]
    pub fn is_disabled(&self) -> bool {
        self.flags & Self::DISABLED != 0
    }

    /// The rest length as the colored kernels store it
    /// ([`ColoredLinks::rest`](crate::ColoredLinks::rest)): negated for a
    /// [`Link::TENSION_ONLY`] link, 0 for a [`Link::DISABLED`] one.
    pub(crate) fn signed_rest(&self) -> T {
        if self.is_disabled() {
            T::ZERO
        } else if self.flags & Self::TENSION_ONLY != 0 {
            -self.rest
        } else {
            self.rest
        }
    }

    /// The same link made tension-only ([`Link::TENSION_ONLY`]).
    #[must_use]
    pub fn tension_only(mut self) -> Self {
        self.flags |= Self::TENSION_ONLY;
        self
    }

    /// A link between particles `i` and `j` with λ = 0.
    #[must_use]
    pub fn new(i: u32, j: u32, rest: T, compliance: T) -> Self {
        Self {
            i,
            j,
            rest,
            compliance,
            lambda: T::ZERO,
            flags: 0,
        }
    }
}

/// A `u32` index as `usize` (`usize::MAX` where it does not fit, which no
/// slice reaches).
#[inline]
pub(crate) fn index(i: u32) -> usize {
    usize::try_from(i).unwrap_or(usize::MAX)
}

impl<T: Real, const D: usize> Constraint<T, D, 2> for Link<T> {
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
        if self.flags & Link::<T>::TENSION_ONLY != 0 {
            Bound::NonPositive
        } else {
            Bound::Free
        }
    }

    #[inline(always)]
    fn alpha(&self, _: &(), h2: T) -> T {
        self.compliance / h2
    }

    #[inline(always)]
    fn evaluate(&self, x: &[[T; D]], w: &[T], _: &()) -> Evaluation<T, D, 2> {
        let (i, j) = (index(self.i), index(self.j));
        if self.flags & Link::<T>::DISABLED != 0 {
            // Indices validated by `begin_substep`; nothing to solve.
            return Evaluation::Static;
        }
        let (Some(&xi), Some(&xj), Some(&wi), Some(&wj)) = (x.get(i), x.get(j), w.get(i), w.get(j))
        else {
            return Evaluation::OutOfRange;
        };
        let weight = wi + wj;
        if weight == T::ZERO {
            return Evaluation::Static;
        }
        let len2 = length_squared(&xi, &xj);
        // The rare path: a length below the normal range, NaN or infinite.
        // A non-finite coordinate (set by a C caller after the substep's
        // validation) is named; a NaN never produces a direction.
        let normal = matches!(
            len2.partial_cmp(&T::MIN_POSITIVE),
            Some(core::cmp::Ordering::Greater | core::cmp::Ordering::Equal)
        );
        if !normal || !len2.is_finite() {
            if !xi.iter().all(|v| v.is_finite()) {
                return Evaluation::NonFinitePosition(i);
            }
            if !xj.iter().all(|v| v.is_finite()) {
                return Evaluation::NonFinitePosition(j);
            }
            if !normal {
                return Evaluation::Degenerate;
            }
        }
        let len = len2.sqrt();
        let mut n = xj;
        for (v, a) in n.iter_mut().zip(&xi) {
            *v = (*v - *a) / len;
        }
        Evaluation::Active(Evaluated {
            particles: [i, j],
            x: [xi, xj],
            w: [wi, wj],
            gradient: [n.map(|v| -v), n],
            c: len - self.rest,
            weight,
        })
    }
}

/// `solve` for a link (the same bits, faults and outcome as the shared
/// path over [`Link`]'s `evaluate`), reading and writing only its two
/// particles and λ, and writing nothing on a fault: the kernel of the
/// colored ranges on hosts (`colored::groups`), as the other kinds' are.
#[inline(always)]
pub(crate) fn solve_in_place<T: Real, const D: usize, P: Particles<T, D>, C: Count<T>>(
    l: &mut Link<T>,
    x: &mut P,
    h2: T,
    tally: &mut C,
) -> Result<(), C::Stop> {
    if l.flags & Link::<T>::DISABLED != 0 {
        return tally.count(Outcome::Static);
    }
    let (i, j) = (index(l.i), index(l.j));
    let (Some((xi, wi)), Some((xj, wj))) = (x.get(i), x.get(j)) else {
        return Err(tally.fault(Fault::OutOfRange));
    };
    let weight = wi + wj;
    if weight == T::ZERO {
        return tally.count(Outcome::Static);
    }
    let len2 = length_squared(&xi, &xj);
    // As `evaluate`: below the normal range (or NaN) or infinite is the
    // rare path; a normal but infinite square goes on (and fails as
    // non-finite, as the shared path does).
    let normal = len2 >= T::MIN_POSITIVE;
    if !normal || finite_sum(T::ZERO, &[len2]) != T::ZERO {
        if let Some(stop) = link_rare(&xi, &xj, i, j, normal, tally) {
            return stop;
        }
    }
    let len = len2.sqrt();
    let mut n = xj;
    for (v, a) in n.iter_mut().zip(&xi) {
        *v = (*v - *a) / len;
    }
    let bound = if l.flags & Link::<T>::TENSION_ONLY != 0 {
        Bound::NonPositive
    } else {
        Bound::Free
    };
    let u = update(len - l.rest, l.lambda, weight, l.compliance / h2, bound);
    if u.idle {
        return tally.count(Outcome::Idle);
    }
    let mut ni = xi;
    if wi != T::ZERO {
        let s = wi * u.delta;
        for (v, g) in ni.iter_mut().zip(&n) {
            *v = *v + s * -*g;
        }
    }
    let mut nj = xj;
    if wj != T::ZERO {
        let s = wj * u.delta;
        for (v, g) in nj.iter_mut().zip(&n) {
            *v = *v + s * *g;
        }
    }
    if !all_finite(&[&[u.lambda], &ni, &nj]) {
        return Err(tally.fault(Fault::NonFinite));
    }
    if wi != T::ZERO {
        x.set(i, ni);
    }
    if wj != T::ZERO {
        x.set(j, nj);
    }
    super::store_lambda(&mut l.lambda, u.lambda);
    tally.count(Outcome::Applied {
        c_abs: u.c_abs,
        residual: u.residual,
    })
}

/// [`solve_in_place`]'s rare path, as `evaluate` decides it: a non-finite
/// position named (particle `i` first), a length below the normal range
/// degenerate; `None` for a normal length whose square overflowed (the
/// caller goes on).
#[cold]
#[inline(never)]
fn link_rare<T: Real, const D: usize, C: Count<T>>(
    xi: &[T; D],
    xj: &[T; D],
    i: usize,
    j: usize,
    normal: bool,
    tally: &mut C,
) -> Option<Result<(), C::Stop>> {
    if !xi.iter().all(|v| v.is_finite()) {
        return Some(Err(tally.fault(Fault::NonFinitePosition(i))));
    }
    if !xj.iter().all(|v| v.is_finite()) {
        return Some(Err(tally.fault(Fault::NonFinitePosition(j))));
    }
    if !normal {
        return Some(tally.count(Outcome::Degenerate));
    }
    None
}

/// Checks one link's own parameters as a substep relies on them, in this
/// order: rest length, compliance (both skipped for a [`Link::DISABLED`]
/// link, which stops after the flags), flag bits, then (when a particle moves)
/// the scale `α/h²` (`scaled`: the quotients of this `h²`) and `W + α/h²`, and under `reject_zero_length` that the
/// particles do not coincide (`len2 = |x_j − x_i|²`, computed lazily). The
/// one link check for sequential and SIMD link systems; `constraint` names
/// the link in the error. Returns the link's `α̃ = α/h²` when it is
/// enabled and moves a particle (`None` otherwise).
#[inline]
#[allow(clippy::too_many_arguments)]
pub(crate) fn validate_link<T: Real>(
    constraint: usize,
    rest: T,
    compliance: T,
    flags: u32,
    weight: T,
    scaled: &mut Scaled<T>,
    reject_zero_length: bool,
    len2: impl FnOnce() -> T,
) -> Result<Option<T>, SystemError> {
    let disabled = flags & Link::<T>::DISABLED != 0;
    if !disabled && (!finite_non_negative(rest) || rest == T::ZERO) {
        return Err(SystemError::InvalidRestLength { constraint });
    }
    if !disabled && !finite_non_negative(compliance) {
        return Err(SystemError::InvalidCompliance { constraint });
    }
    if flags & !Link::<T>::FLAGS != 0 {
        return Err(SystemError::InvalidFlags { constraint });
    }
    if disabled {
        return Ok(None);
    }
    if weight == T::ZERO {
        return Ok(None);
    }
    let alpha = scaled.of_on_hosts(compliance);
    let denominator = weight + alpha;
    // The reciprocal must be finite too: the colored path multiplies by
    // `1/(W + α̃)`, and one rule holds for every path (a subnormal
    // inverse-mass sum with α = 0 is refused by both). It is for every
    // denominator of at least the smallest normal number (`1/d` is
    // then below 2^126 (f32) or 2^1022 (f64)): only a smaller one is
    // divided.
    if !alpha.is_finite()
        || !denominator.is_finite()
        || denominator <= T::ZERO
        || (denominator < T::MIN_POSITIVE && !(T::ONE / denominator).is_finite())
    {
        return Err(SystemError::UnrepresentableScale { constraint });
    }
    if reject_zero_length && len2() < T::MIN_POSITIVE {
        return Err(SystemError::ZeroLength { constraint });
    }
    Ok(Some(alpha))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `validate_link` refuses a weight whose `1/(W + α̃)` is not finite,
    /// dividing only below the smallest normal number: the same verdicts
    /// as dividing every time, on the subnormals around `1/MAX` and across
    /// the range, in both formats.
    // Safe Rust only: natively (the interpreter adds nothing here).
    #[test]
    #[cfg_attr(miri, ignore)]
    fn the_reciprocal_rule_divides_only_below_the_normals() {
        fn check<T: Real>(weights: impl Iterator<Item = T>) -> usize {
            let mut checked = 0;
            for w in weights {
                let mut scaled = Scaled::new(T::ONE);
                let got = validate_link(0, T::ONE, T::ZERO, 0, w, &mut scaled, false, || T::ONE);
                // A link of two static particles (W = 0) is not checked.
                let refused =
                    w != T::ZERO && (!w.is_finite() || w < T::ZERO || !(T::ONE / w).is_finite());
                assert_eq!(got.is_err(), refused, "weight {:e}", w.to_f64());
                checked += 1;
            }
            checked
        }
        // Under Miri 256 values around each boundary (still both sides).
        let span: u64 = if cfg!(miri) { 256 } else { 4096 };
        let around =
            move |bits: u64, step: u64| (0..span).map(move |k| bits - span / 2 * step + k * step);
        // f64: 1/MAX is about 5.56e-309 (bits near 0x0004_0000_0000_0000).
        let boundary = (1.0 / f64::MAX).to_bits();
        let n = check(
            around(boundary, 1)
                .chain(around(boundary, 1 << 30))
                .map(f64::from_bits),
        );
        let n = n + check((0..2048u64).map(|e| f64::from_bits(e << 52 | 0x8_0000_0000_0000)));
        // f32: 1/MAX about 2.94e-39.
        let boundary = (1.0 / f32::MAX).to_bits();
        let f32s = around(u64::from(boundary), 1).chain(around(u64::from(boundary), 1 << 10));
        let n = n + check(
            f32s.filter_map(|b| u32::try_from(b).ok())
                .map(f32::from_bits),
        );
        let n = n + check((0..256u32).map(|e| f32::from_bits(e << 23 | 0x40_0000)));
        assert_eq!(u64::try_from(n).ok(), Some(4 * span + 2048 + 256));
    }
}
