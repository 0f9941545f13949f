//! Contacts: a particle against a static plane or sphere, `C ≥ 0`, push
//! only, with static friction at the position level.
//!
//! # The constraint
//!
//! Particle `x ∈ ℝ^D` (m) with inverse mass `w` (1/kg) and radius `r` (m);
//! contact compliance `α` (m/N) shared by every contact of a step:
//!
//! - plane `n̂·x ≥ offset + r`: `C = n̂·x − offset − r`, `∇C = n̂`;
//! - sphere `|x − c| ≥ radius + r`: `C = |x − c| − (radius + r)`,
//!   `∇C = (x − c)/|x − c|`;
//! - `α̃ = α / h²` (1/kg); `W = w` (unit gradient);
//! - `λ ≥ 0` (kg·m): `λ' = max(λ + Δλ, 0)`, the applied step `λ' − λ`.
//!
//! Static friction (Müller, Macklin, Chentanez, Jeschke, Kim 2020,
//! *Detailed Rigid Body Simulation with Extended Position Based Dynamics*,
//! §3.5): after the normal correction, the tangential motion since the
//! substep's start `x_prev` is removed when it is shorter than
//! `μ_s · w λ'`. Dynamic friction acts on velocities (in `step`).
//!
//! Contacts are found once per substep after prediction (in `step`),
//! speculatively within a margin of the surface (`C > 0` pushes nothing),
//! and live for that substep: their λ starts at 0 with the substep's reset.

use super::moving::{off_axis, separating, Moving};
use super::{all_finite, update, Bound, Constraint, Evaluated, Evaluation};
use crate::math::{dot, unit_any};
use crate::real::Real;

/// A static half-space: points with `n̂·x ≥ offset` are free (`n̂` is
/// `normal` normalised; `normal` need not be unit length but must not be 0).
/// `#[repr(C)]`: `Plane<f64, 3>` is the C type `XpbdPlane3`, `Plane<f32, 3>`
/// is `XpbdPlane3F32`.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Plane<T, const D: usize> {
    /// Outward normal (any finite non-zero length).
    pub normal: [T; D],
    /// Offset along the unit normal (m).
    pub offset: T,
}

/// A static sphere (a circle in 2D): points with `|x − center| ≥ radius`
/// are free.
/// `#[repr(C)]`: `Sphere<f64, 3>` is the C type `XpbdSphere3`,
/// `Sphere<f32, 3>` is `XpbdSphere3F32`.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Sphere<T, const D: usize> {
    /// Centre (m).
    pub center: [T; D],
    /// Radius (m), finite and ≥ 0.
    pub radius: T,
}

/// One contact of the current substep: a particle against a collider, with
/// its accumulated λ (kg·m, ≥ 0). Colliders are numbered planes first, then
/// spheres (`planes.len() + k`).
/// `#[repr(C)]`: `Contact<f64>` is the C type `XpbdContact`, `Contact<f32>`
/// is `XpbdContactF32`.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Contact<T> {
    /// Index of the particle.
    pub particle: u32,
    /// Index of the collider (planes, then spheres).
    pub collider: u32,
    /// Accumulated multiplier λ (kg·m), ≥ 0; reset each substep.
    pub lambda: T,
}

impl<T: Real> Contact<T> {
    /// A contact of `particle` against `collider` (planes first, then
    /// spheres) with λ = 0.
    #[must_use]
    pub fn new(particle: u32, collider: u32) -> Self {
        Self {
            particle,
            collider,
            lambda: T::ZERO,
        }
    }
}

/// The signed gap C (m) and unit normal of particle position `x` against a
/// collider, or `None` when the collider index is out of range. A particle
/// at a sphere's centre (no direction from it) is pushed out along `+x`,
/// the rule of a capsule of zero length.
#[inline]
pub(crate) fn gap<T: Real, const D: usize>(
    x: &[T; D],
    collider: usize,
    planes: &[Plane<T, D>],
    spheres: &[Sphere<T, D>],
    radius: T,
) -> Option<(T, [T; D])> {
    if let Some(p) = planes.get(collider) {
        let n = unit_any(&p.normal)?;
        return Some((dot(&n, x) - p.offset - radius, n));
    }
    let s = spheres.get(collider.checked_sub(planes.len())?)?;
    let mut d = *x;
    for (v, c) in d.iter_mut().zip(&s.center) {
        *v = *v - *c;
    }
    // A particle at the centre has no direction from it: pushed out along
    // the rule of a capsule of zero length (`+x`, `moving::off_axis`).
    let n = match unit_any(&d) {
        Some(n) => n,
        None => off_axis(&[T::ZERO; D])?,
    };
    let len = dot(&d, &d).sqrt();
    Some((len - (s.radius + radius), n))
}

/// What every contact of a substep shares: the colliders, the particles'
/// positions at the substep's start (for static friction), the particle
/// radius, `α̃` and `μ_s`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Colliders<'c, T, const D: usize> {
    /// Static half-spaces (collider indices `0 .. planes.len()`).
    pub(crate) planes: &'c [Plane<T, D>],
    /// Static spheres (collider indices `planes.len() ..`).
    pub(crate) spheres: &'c [Sphere<T, D>],
    /// Positions at the substep's start (m).
    pub(crate) previous: &'c [[T; D]],
    /// Particle radius r (m).
    pub(crate) radius: T,
    /// `α̃ = α / h²` (1/kg) of every contact.
    pub(crate) alpha: T,
    /// Static friction coefficient μ_s (planes and spheres; a moving
    /// collider has its own).
    pub(crate) static_friction: T,
    /// Capsules and boxes (collider indices after the spheres) and the
    /// substep's time.
    pub(crate) moving: Moving<'c, T, D>,
    /// The unit normals of the first `cached` (at most 4) planes
    /// ([`with_units`](Colliders::with_units)): the bits `unit_any` gives
    /// on every call, computed once.
    pub(crate) units: [[T; D]; 4],
    /// How many planes `units` holds (0: none, every gap normalises).
    pub(crate) cached: usize,
}

/// Whether [`Colliders::with_units`] keeps the planes' unit normals: on
/// hosts; on bare metal (`target_os = "none"`) every gap normalises, in
/// less code (docs/code-size.md), with the same bits.
const KEEP_UNITS: bool = !cfg!(target_os = "none");

/// A contact's plane or sphere surface, or a moving collider's separating
/// plane: `(C, n̂, the reference start for friction, μ_s)`.
type Surface<T, const D: usize> = (T, [T; D], Option<[T; D]>, T);

impl<T: Real, const D: usize> Colliders<'_, T, D> {
    /// The same colliders keeping the unit normals of their first
    /// 4 planes (a substep's many contacts need them each
    /// time; the values are those of [`unit_any`], so no bit changes).
    #[must_use]
    pub(crate) fn with_units(mut self) -> Self {
        self.cached = 0;
        if !KEEP_UNITS {
            return self;
        }
        for (u, p) in self.units.iter_mut().zip(self.planes) {
            let Some(n) = unit_any(&p.normal) else {
                break;
            };
            *u = n;
            self.cached = self.cached.saturating_add(1);
        }
        self
    }

    /// [`gap`] for this substep's colliders, from the kept unit normal
    /// when there is one (the same arithmetic, the same bits).
    #[inline(always)]
    pub(crate) fn gap(&self, x: &[T; D], collider: usize) -> Option<(T, [T; D])> {
        if KEEP_UNITS && collider < self.cached {
            if let (Some(n), Some(p)) = (self.units.get(collider), self.planes.get(collider)) {
                return Some((dot(n, x) - p.offset - self.radius, *n));
            }
        }
        gap(x, collider, self.planes, self.spheres, self.radius)
    }

    /// The number of static colliders (planes and spheres).
    #[inline(always)]
    pub(crate) fn fixed(&self) -> usize {
        self.planes.len().saturating_add(self.spheres.len())
    }

    /// The gap C (m), the unit normal, the start the collider carried the
    /// particle to (moving colliders only; static ones leave it where it
    /// was) and μ_s of particle position `x` with start `prev` against
    /// `collider`; `None` as [`gap`] or when the separating plane is
    /// undefined.
    #[inline]
    pub(crate) fn surface(
        &self,
        x: &[T; D],
        prev: &[T; D],
        collider: usize,
    ) -> Option<Surface<T, D>> {
        let fixed = self.fixed();
        if collider < fixed {
            let (c, n) = self.gap(x, collider)?;
            return Some((c, n, None, self.static_friction));
        }
        self.moving_surface(x, prev, collider.saturating_sub(fixed))
    }

    /// [`surface`](Self::surface) for moving collider `k` (out of line:
    /// the static colliders' path stays small).
    #[inline(never)]
    fn moving_surface(&self, x: &[T; D], prev: &[T; D], k: usize) -> Option<Surface<T, D>> {
        let s = separating(&self.moving, k, prev)?;
        let mut d = *x;
        for (di, pi) in d.iter_mut().zip(&s.point) {
            *di = *di - *pi;
        }
        let c = dot(&s.normal, &d) - self.radius;
        Some((c, s.normal, Some(s.carried), s.static_friction))
    }
}

impl<T: Real, const D: usize> Constraint<T, D, 1> for Contact<T> {
    type Shared<'s> = Colliders<'s, T, D>;

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
        Bound::NonNegative
    }

    #[inline(always)]
    fn alpha(&self, shared: &Colliders<'_, T, D>, _h2: T) -> T {
        shared.alpha
    }

    #[inline(always)]
    fn evaluate(&self, x: &[[T; D]], w: &[T], shared: &Colliders<'_, T, D>) -> Evaluation<T, D, 1> {
        let (Ok(k), Ok(collider)) = (
            usize::try_from(self.particle),
            usize::try_from(self.collider),
        ) else {
            return Evaluation::OutOfRange;
        };
        let (Some(&xk), Some(&wk), Some(prev)) = (x.get(k), w.get(k), shared.previous.get(k))
        else {
            return Evaluation::OutOfRange;
        };
        let Some((c, n, _, _)) = shared.surface(&xk, prev, collider) else {
            return Evaluation::Degenerate;
        };
        Evaluation::Active(Evaluated {
            particles: [k],
            x: [xk],
            w: [wk],
            gradient: [n],
            c,
            weight: wk,
        })
    }

    /// Static friction: undo the tangential motion of this substep (relative
    /// to a moving collider: from the start it carried) when it is within
    /// the cone `μ_s · (normal correction w λ)`.
    #[inline(always)]
    fn finish(
        &self,
        e: &Evaluated<T, D, 1>,
        lambda: T,
        next: &mut [[T; D]; 1],
        shared: &Colliders<'_, T, D>,
    ) {
        let [x] = next;
        let ([n], [w], [k]) = (&e.gradient, e.w, e.particles);
        let Some(start) = shared.previous.get(k) else {
            return;
        };
        let (mut prev, mut mu) = (*start, shared.static_friction);
        if let Ok(collider) = usize::try_from(self.collider) {
            if collider >= shared.fixed() {
                match shared.surface(x, start, collider) {
                    Some((_, _, Some(carried), m)) => (prev, mu) = (carried, m),
                    _ => return,
                }
            }
        }
        static_friction(x, &prev, n, w, lambda, mu);
    }
}

/// Static friction (§3.5 of the paper above): the tangential part `t` of
/// `x − prev` about `n̂` is removed (`x ← x − t`) when
/// `|t|² < (μ_s · w λ)²`, for `μ_s > 0` and `λ > 0` (`x`, `prev` in m,
/// `w` in 1/kg, `λ` in kg·m).
#[inline(always)]
pub(crate) fn static_friction<T: Real, const D: usize>(
    x: &mut [T; D],
    prev: &[T; D],
    n: &[T; D],
    w: T,
    lambda: T,
    mu: T,
) {
    if mu > T::ZERO && lambda > T::ZERO {
        let mut moved = *x;
        for (m, q) in moved.iter_mut().zip(prev) {
            *m = *m - *q;
        }
        let along = dot(&moved, n);
        let mut tangential = moved;
        for (t, ni) in tangential.iter_mut().zip(n) {
            *t = *t - along * *ni;
        }
        let t2 = dot(&tangential, &tangential);
        let limit = mu * w * lambda;
        if t2 < limit * limit {
            for (v, t) in x.iter_mut().zip(&tangential) {
                *v = *v - *t;
            }
        }
    }
}

/// One Gauss-Seidel sweep over a substep's collider contacts in slice
/// order: `solver::sweep` under `ZeroLength::Skip` (the same bits, λ and
/// stop), with the statistics left out (the step does not report them).
/// A contact against one of the planes whose unit normal is kept
/// ([`Colliders::with_units`], hosts) is solved in place, without the
/// shared evaluation: `C = n̂·x − offset − r`, the update of
/// `constraint::update` with `W = w`, `α̃ = p.alpha`, `λ ≥ 0`, the step
/// `x ← x + (w Δλ) n̂` when `w ≠ 0`, then static friction; every other
/// contact takes `constraint::solve`. `positions`, `inverse_masses` and
/// `p.previous` start at particle `base`: a contact naming particle `k`
/// solves entry `k − base` (wrapping: a particle below `base` is out of
/// range), so a task of the colored step sweeps its slice of the
/// particles without renumbering its contacts. On a fault (an index out
/// of range, a result that is not finite) the contact is left untouched
/// and its index in `items` returned; the contacts before it have been
/// applied.
pub(crate) fn sweep_colliders<T: Real, const D: usize>(
    positions: &mut [[T; D]],
    inverse_masses: &[T],
    items: &mut [Contact<T>],
    p: &Colliders<'_, T, D>,
    h2: T,
    base: u32,
) -> Result<(), usize> {
    // Bare metal keeps no unit normals (`cached` is 0): every contact
    // takes the shared path, and the in-place one compiles away.
    let planes = if KEEP_UNITS {
        p.planes.get(..p.cached).unwrap_or(&[])
    } else {
        &[]
    };
    for (index, item) in items.iter_mut().enumerate() {
        let local = item.particle.wrapping_sub(base);
        let (Ok(k), Ok(j)) = (usize::try_from(local), usize::try_from(item.collider)) else {
            return Err(index);
        };
        let (Some(n), Some(plane), Some(x), Some(&w), Some(prev)) = (
            p.units.get(j),
            planes.get(j),
            positions.get_mut(k),
            inverse_masses.get(k),
            p.previous.get(k),
        ) else {
            // The shared path on a copy naming the local particle (on a
            // fault it changes nothing, so λ is copied back either way).
            let mut shifted = Contact {
                particle: local,
                ..*item
            };
            let r = super::solve(&mut shifted, positions, inverse_masses, p, h2);
            super::store_lambda(&mut item.lambda, shifted.lambda);
            r.map_err(|_| index)?;
            continue;
        };
        let c = dot(n, &*x) - plane.offset - p.radius;
        let u = update(c, item.lambda, w, p.alpha, Bound::NonNegative);
        let mut next = *x;
        if w != T::ZERO {
            let s = w * u.delta;
            for (v, g) in next.iter_mut().zip(n) {
                *v = *v + s * *g;
            }
        }
        static_friction(&mut next, prev, n, w, u.lambda, p.static_friction);
        if !all_finite(&[&[u.lambda], &next]) {
            return Err(index);
        }
        *x = next;
        super::store_lambda(&mut item.lambda, u.lambda);
    }
    Ok(())
}
