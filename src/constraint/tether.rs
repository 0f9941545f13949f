//! Long-range tethers: `C = |x − x_anchor| − d_max ≤ 0`, λ ≤ 0.
//!
//! # The constraint
//!
//! A free particle `x ∈ ℝ^D` (m) held within `d_max` (m) of an anchor
//! particle `x_a` (usually pinned, `w_a = 0`), inverse masses `w, w_a`
//! (1/kg), compliance `α` (m/N = s²/kg), substep `h` (s):
//!
//! - `C = |x − x_a| − d_max` (m); only `C > 0` (too far) is corrected.
//! - `∇_x C = n`, `∇_{x_a} C = −n`, `n = (x − x_a)/|x − x_a|` (unit).
//! - `α̃ = α / h²` (1/kg); `W = w + w_a`.
//! - λ (kg·m) confined to `λ ≤ 0` ([`Bound::NonPositive`]): a tether only
//!   pulls; inside its radius it is slack and changes nothing.
//! - Kim, Chentanez, Müller 2012, *Long Range Attachments — A Method to
//!   Simulate Inextensible Clothing in Computer Games* (SCA), with the XPBD
//!   update (Macklin, Müller, Chentanez 2016, eq. 18).
//!
//! `d_max` is the rest-shape distance to the anchor (Euclidean:
//! [`tethers`]; along the links: [`tethers_along_links`](crate::tethers_along_links)), so the
//! rest shape is never pulled. A tether is one constraint per free
//! particle: with few substeps a cloth of rigid links stretches because
//! the error travels one link per iteration; the tether bounds it at once.
//!
//! The particles coinciding (`|x − x_a|²` below the smallest normal `T`)
//! is the degenerate case: a tether there is inside its radius (`C ≤ 0`),
//! so it is skipped (counted with the static ones), never a NaN.

use super::{
    finite_sum, update, Bound, Constraint, Count, Evaluated, Evaluation, Fault, Outcome, Particles,
    Scaled,
};
use crate::constraint::distance::index;
use crate::math::length_squared;
use crate::real::{finite_non_negative, finite_normal_positive, Real};

/// One tether: particle `particle` kept within `max_distance` of particle
/// `anchor`, with its own accumulated multiplier λ.
///
/// `#[repr(C)]`: this struct *is* the C type `XpbdTether` (`Tether<f64>`)
/// and `XpbdTetherF32` (`Tether<f32>`).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Tether<T> {
    /// The particle held (index).
    pub particle: u32,
    /// The anchor particle (index, ≠ `particle`), usually pinned.
    pub anchor: u32,
    /// The largest allowed distance `d_max` (m), finite and ≥ 0.
    pub max_distance: T,
    /// Compliance α (m/N = s²/kg), finite and ≥ 0; 0 is inextensible.
    pub compliance: T,
    /// Accumulated multiplier λ (kg·m) of the current substep, ≤ 0.
    pub lambda: T,
}

impl<T: Real> Tether<T> {
    /// A tether with λ = 0.
    #[must_use]
    pub fn new(particle: u32, anchor: u32, max_distance: T, compliance: T) -> Self {
        Self {
            particle,
            anchor,
            max_distance,
            compliance,
            lambda: T::ZERO,
        }
    }

    /// Checks this tether's own parameters: indices below the particle
    /// count and distinct, `max_distance` finite and ≥ 0, compliance finite
    /// and ≥ 0, `α/h²` finite. The caller adds the index.
    // Out of line at every opt-level: the kind's code keeps its name
    // (docs/code-size.md, per kind).
    #[inline(never)]
    pub(crate) fn check(&self, w: &[T], h2: T) -> Result<(), super::Invalid> {
        super::check_particles(&[self.particle, self.anchor], w)?;
        if !finite_non_negative(self.max_distance) {
            return Err(super::Invalid::RestValue);
        }
        super::check_compliance(self.compliance, h2)
    }
}

/// The inputs every tether builder checks first, in this order: `x` and
/// `w` of one length, `u32` indices, at least one anchor and each naming a
/// particle, the compliance finite and ≥ 0, every rest position finite.
pub(crate) fn check_builder_inputs<T: Real, const D: usize>(
    x: &[[T; D]],
    w: &[T],
    anchors: &[u32],
    compliance: T,
) -> Result<(), crate::SystemError> {
    use crate::SystemError;
    if x.len() != w.len() {
        return Err(SystemError::ParticleCountMismatch);
    }
    if u32::try_from(x.len()).is_err() {
        return Err(SystemError::TooManyParticles);
    }
    if anchors.is_empty() || anchors.iter().any(|&a| x.get(index(a)).is_none()) {
        return Err(SystemError::InvalidShape);
    }
    if !finite_non_negative(compliance) {
        return Err(SystemError::InvalidCompliance { constraint: 0 });
    }
    if let Some(particle) = x.iter().position(|p| !p.iter().all(|c| c.is_finite())) {
        return Err(SystemError::NonFinitePosition { particle });
    }
    Ok(())
}

/// Builds one tether per particle of `x` that moves (`w ≠ 0`) and is not
/// itself an anchor, to the nearest particle of `anchors` in the rest
/// shape `x` (Euclidean distance; the first of equals), with `d_max` that
/// distance. Writes `tethers[..n]` and returns `n`.
///
/// # Errors
///
/// [`SystemError::ParticleCountMismatch`](crate::SystemError::ParticleCountMismatch)
/// when `x` and `w` differ in length,
/// [`SystemError::InvalidShape`](crate::SystemError::InvalidShape) when
/// `anchors` is empty or names no particle,
/// [`SystemError::TooManyParticles`](crate::SystemError::TooManyParticles)
/// when `u32` cannot index them,
/// [`SystemError::InvalidCompliance`](crate::SystemError::InvalidCompliance)
/// (constraint 0) for a NaN, infinite or negative compliance,
/// [`SystemError::NonFinitePosition`](crate::SystemError::NonFinitePosition)
/// for a non-finite rest position,
/// [`SystemError::InvalidRestValue`](crate::SystemError::InvalidRestValue)
/// naming the first tether (its position in `tethers`, the tethered
/// particles counted in order) whose distance to its nearest anchor is not
/// finite (`|x − x_a|²` overflows: the maximum distance would be infinite,
/// which `begin_substep` refuses),
/// [`SystemError::CapacityTooSmall`](crate::SystemError::CapacityTooSmall)
/// when `tethers` is too short. Nothing is written on error.
pub fn tethers<T: Real, const D: usize>(
    x: &[[T; D]],
    w: &[T],
    anchors: &[u32],
    compliance: T,
    tethers: &mut [Tether<T>],
) -> Result<usize, crate::SystemError> {
    use crate::SystemError;
    check_builder_inputs(x, w, anchors, compliance)?;
    // The particles tethered: moving ones that are not anchors themselves.
    let tethered = |k: usize, wk: T| wk != T::ZERO && !anchors.iter().any(|&a| index(a) == k);
    let moving = || {
        x.iter()
            .zip(w)
            .enumerate()
            .filter(|&(k, (_, &wk))| tethered(k, wk))
            .map(|(k, (p, _))| (k, p))
    };
    // Every maximum distance finite, as `Tether::check` requires: the
    // square of the distance is finite exactly when its root is.
    if let Some(constraint) = moving().position(|(_, p)| !nearest(x, anchors, p).1.is_finite()) {
        return Err(SystemError::InvalidRestValue { constraint });
    }
    let needed = moving().count();
    if tethers.len() < needed {
        return Err(SystemError::CapacityTooSmall { needed });
    }
    for ((k, p), slot) in moving().zip(tethers.iter_mut()) {
        let (anchor, d2) = nearest(x, anchors, p);
        // `k` < the particle count, which fits `u32` (checked above).
        *slot = Tether::new(
            u32::try_from(k).unwrap_or(u32::MAX),
            anchor,
            d2.sqrt(),
            compliance,
        );
    }
    Ok(needed)
}

/// The anchor of `anchors` nearest to `p` in `x` (the first of equals) and
/// its squared distance (m²), `(0, 0)` for no anchor in range (the builder
/// has checked that there is one).
fn nearest<T: Real, const D: usize>(x: &[[T; D]], anchors: &[u32], p: &[T; D]) -> (u32, T) {
    let mut best: Option<(u32, T)> = None;
    for &a in anchors {
        let Some(xa) = x.get(index(a)) else { continue };
        let d2 = length_squared(xa, p);
        let closer = match best {
            Some((_, b)) => d2 < b,
            None => true,
        };
        if closer {
            best = Some((a, d2));
        }
    }
    best.unwrap_or((0, T::ZERO))
}

impl<T: Real, const D: usize> Constraint<T, D, 2> for Tether<T> {
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
        Bound::NonPositive
    }

    #[inline(always)]
    fn alpha(&self, _: &(), h2: T) -> T {
        self.compliance / h2
    }

    #[inline(always)]
    fn evaluate(&self, x: &[[T; D]], w: &[T], _: &()) -> Evaluation<T, D, 2> {
        let (a, p) = (index(self.anchor), index(self.particle));
        let (Some(&xa), Some(&xp), Some(&wa), Some(&wp)) = (x.get(a), x.get(p), w.get(a), w.get(p))
        else {
            return Evaluation::OutOfRange;
        };
        let weight = wa + wp;
        if weight == T::ZERO {
            return Evaluation::Static;
        }
        let len2 = length_squared(&xa, &xp);
        if !len2.is_finite() || len2 < T::MIN_POSITIVE {
            if !xa.iter().all(|v| v.is_finite()) {
                return Evaluation::NonFinitePosition(a);
            }
            if !xp.iter().all(|v| v.is_finite()) {
                return Evaluation::NonFinitePosition(p);
            }
            // Coincident: inside the radius (d_max ≥ 0), nothing to do; a
            // distance whose square overflows has no usable direction.
            return if len2.is_finite() {
                Evaluation::Static
            } else {
                Evaluation::Degenerate
            };
        }
        let len = len2.sqrt();
        let mut n = xp;
        for (v, o) in n.iter_mut().zip(&xa) {
            *v = (*v - *o) / len;
        }
        Evaluation::Active(Evaluated {
            particles: [a, p],
            x: [xa, xp],
            w: [wa, wp],
            gradient: [n.map(|v| -v), n],
            c: len - self.max_distance,
            weight,
        })
    }
}

/// One tether solved in place: the operations of `constraint::visit` and
/// `solve` for this kind (the same bits, faults and outcome), reading and
/// writing only its particles and λ, and writing nothing on a fault. The
/// kernel of the host sweep (`solver::groups`) and of the colored ranges
/// (`colored::groups`); bare metal keeps the shared path (code size).
/// `alpha` gives `α̃ = α/h²` (the same bits as that division, which it
/// skips for a tether with the previous one's compliance).
///
/// `evaluate` turns away a `|x − x_a|²` that is NaN, infinite or below
/// the smallest normal: here one unsigned comparison of its encoding
/// ([`finite_normal_positive`]), made before the square root, so that
/// `|x − x_a|²` is not kept past it.
#[inline(always)]
pub(crate) fn solve_in_place<T: Real, const D: usize, P: Particles<T, D>, C: Count<T>>(
    t: &mut Tether<T>,
    x: &mut P,
    alpha: &mut Scaled<T>,
    tally: &mut C,
) -> Result<(), C::Stop> {
    let (a, p) = (index(t.anchor), index(t.particle));
    let (Some((xa, wa)), Some((xp, wp))) = (x.get(a), x.get(p)) else {
        return Err(tally.fault(Fault::OutOfRange));
    };
    let weight = wa + wp;
    if weight == T::ZERO {
        return tally.count(Outcome::Static);
    }
    let len2 = length_squared(&xa, &xp);
    if !finite_normal_positive(len2) {
        return settle(unusable(&xa, &xp, a, p, len2), tally);
    }
    let len = len2.sqrt();
    let mut n = xp;
    for (v, o) in n.iter_mut().zip(&xa) {
        *v = (*v - *o) / len;
    }
    let u = update(
        len - t.max_distance,
        t.lambda,
        weight,
        alpha.of(t.compliance),
        Bound::NonPositive,
    );
    if u.idle {
        return tally.count(Outcome::Idle);
    }
    // Each moved particle is written first and tested after (its old
    // bits put back on a fault, which so writes nothing): the store need
    // not wait on the test (as for bends and tets).
    // `Σ v·0` over λ' and the coordinates of each moved particle: ±0 when
    // all are finite, NaN otherwise. A finite `|x − x_a|²` makes every
    // coordinate of both particles finite, so an unmoved particle (which
    // keeps its bits) needs no test; the sum's order decides nothing (a
    // NaN anywhere makes it NaN). One branch per pair of moved particles
    // (with `w = 0` the anchor is the usual case). In that usual case a
    // plain sum `(x + y) + (z + λ')` is tested first: finite, it proves every
    // term finite (finite terms can only overflow it, which the exact
    // test then clears), with fewer operations than `Σ v·0`.
    let finite = || u.lambda * T::ZERO;
    match (wa != T::ZERO, wp != T::ZERO) {
        (false, true) => {
            let np = moved(xp, wp * u.delta, &n);
            x.set(p, np);
            let sum = pairwise(&np, u.lambda);
            if !sum.is_finite() && finite_sum(finite(), &np) != T::ZERO {
                x.set(p, xp);
                return Err(tally.fault(Fault::NonFinite));
            }
        }
        (true, false) => {
            let na = moved_back(xa, wa * u.delta, &n);
            x.set(a, na);
            if finite_sum(finite(), &na) != T::ZERO {
                x.set(a, xa);
                return Err(tally.fault(Fault::NonFinite));
            }
        }
        (true, true) => {
            let na = moved_back(xa, wa * u.delta, &n);
            let np = moved(xp, wp * u.delta, &n);
            x.set(a, na);
            x.set(p, np);
            if finite_sum(finite_sum(finite(), &na), &np) != T::ZERO {
                x.set(p, xp);
                x.set(a, xa);
                return Err(tally.fault(Fault::NonFinite));
            }
        }
        (false, false) => {
            if finite() != T::ZERO {
                return Err(tally.fault(Fault::NonFinite));
            }
        }
    }
    super::store_lambda(&mut t.lambda, u.lambda);
    tally.count(Outcome::Applied {
        c_abs: u.c_abs,
        residual: u.residual,
    })
}

/// `Σ v + extra` as a tree, `(x + y) + (z + extra)` in 3D (a shorter
/// chain of additions than one after the other): finite only when every
/// term is finite, unless finite terms overflow it.
#[inline(always)]
fn pairwise<T: Real, const D: usize>(v: &[T; D], extra: T) -> T {
    match v.as_slice() {
        [x, y, z] => (*x + *y) + (*z + extra),
        _ => v.iter().fold(extra, |acc, &c| acc + c),
    }
}

/// The held particle corrected: `x + s n` (`s = w Δλ`).
#[inline(always)]
fn moved<T: Real, const D: usize>(mut x: [T; D], s: T, n: &[T; D]) -> [T; D] {
    for (v, g) in x.iter_mut().zip(n) {
        *v = *v + s * *g;
    }
    x
}

/// The anchor corrected: `x + s (−n)` (`s = w_a Δλ`).
#[inline(always)]
fn moved_back<T: Real, const D: usize>(mut x: [T; D], s: T, n: &[T; D]) -> [T; D] {
    for (v, g) in x.iter_mut().zip(n) {
        *v = *v + s * -*g;
    }
    x
}

/// A rare path's decision counted (an outcome) or turned into the stop.
#[inline(always)]
fn settle<T: Real, C: Count<T>>(
    decided: Result<Outcome<T>, Fault>,
    tally: &mut C,
) -> Result<(), C::Stop> {
    match decided {
        Ok(outcome) => tally.count(outcome),
        Err(fault) => Err(tally.fault(fault)),
    }
}

/// [`solve_in_place`]'s rare path, as `evaluate` decides it: a non-finite
/// position named (the anchor first), coincident particles static, a
/// distance whose square overflows degenerate. Takes no statistics, so
/// the sweep keeps them in registers; inlined as a cold block rather than
/// called, so that the sweep's registers need not be saved around a call
/// (3–4 % fewer instructions per tether).
#[cold]
#[inline(always)]
fn unusable<T: Real, const D: usize>(
    xa: &[T; D],
    xp: &[T; D],
    a: usize,
    p: usize,
    len2: T,
) -> Result<Outcome<T>, Fault> {
    if !xa.iter().all(|v| v.is_finite()) {
        return Err(Fault::NonFinitePosition(a));
    }
    if !xp.iter().all(|v| v.is_finite()) {
        return Err(Fault::NonFinitePosition(p));
    }
    Ok(if len2.is_finite() {
        Outcome::Static
    } else {
        Outcome::Degenerate
    })
}
