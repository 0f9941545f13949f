//! Engine-supplied contacts: a particle against a moving plane the engine's
//! own collision detection found (a triangle of a mesh, a heightfield
//! cell, any collider), `C ≥ 0`, push only, with static and dynamic
//! friction relative to the collider, and its normal force read back.
//!
//! # The constraint
//!
//! Particle `x ∈ ℝ^D` (m), inverse mass `w` (1/kg), radius `r` (m, the
//! step's `particle_radius`); the engine gives a point `p` on the
//! collider's surface at the frame's start (m), the outward normal `n̂`
//! there (normalised by the solver), the surface's velocity `u` at `p`
//! (m/s) and friction coefficients. In the substep ending at `τ` (s after
//! the frame's start) the surface is the plane through `p + u τ`:
//!
//! - `C = n̂·(x − p − u τ) − r` (m), `∇C = n̂`, `W = w`;
//! - `α̃ = α / h²` (1/kg) with the step's `contact_compliance` α (m/N);
//! - `λ ≥ 0` (kg·m): `λ' = max(λ + Δλ, 0)` (a contact never pulls; one
//!   whose plane is not reached stays at λ = 0 and moves nothing).
//!
//! Friction (Müller, Macklin, Chentanez, Jeschke, Kim 2020, *Detailed
//! Rigid Body Simulation with Extended Position Based Dynamics*, §3.5–3.6)
//! is relative to the surface: static friction removes the tangential part
//! of `x − (x_prev + u h)` when it is shorter than `μ_s w λ`; in the
//! velocity update the tangential part of `v − u` drops by
//! `min(μ_k w λ / h, |(v − u)_t|)`.
//!
//! Lifecycle: λ is reset with every other λ at the substep's start and kept
//! across its iterations. The step sums `impulse += λ / h` (N·s) over the
//! substeps and, after a successful frame of length `dt`, writes the mean
//! normal force `force = impulse / dt` (N, on the particle along `n̂`; the
//! engine applies `−force · n̂` to its body). Solved in a step after the
//! contacts of planes, spheres, capsules and boxes, in slice order.

use super::{Bound, Constraint, Evaluated, Evaluation};
use crate::math::{dot, unit_any};
use crate::real::{finite_non_negative, Real};

/// One contact the engine found for a frame: particle `particle` against
/// the plane through `point` with normal `normal`, moving at `velocity`.
///
/// `#[repr(C)]`: `EngineContact<f64, 3>` is the C type
/// `XpbdEngineContact`, `EngineContact<f32, 3>` is `XpbdEngineContactF32`.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct EngineContact<T, const D: usize> {
    /// The particle (index).
    pub particle: u32,
    /// Outward normal of the surface at `point` (any finite non-zero
    /// length; normalised by the solver).
    pub normal: [T; D],
    /// A point on the surface at the frame's start (m), finite.
    pub point: [T; D],
    /// The surface's velocity at `point` over the frame (m/s), finite.
    pub velocity: [T; D],
    /// Static friction coefficient μ_s, finite and ≥ 0.
    pub static_friction: T,
    /// Dynamic friction coefficient μ_k, finite and ≥ 0.
    pub dynamic_friction: T,
    /// Accumulated multiplier λ (kg·m, ≥ 0) of the current substep.
    pub lambda: T,
    /// The normal impulse on the particle over the current or last frame,
    /// `Σ λ / h` (N·s): the step's working sum.
    pub impulse: T,
    /// The mean normal force on the particle over the last successful
    /// frame, `impulse / dt` (N, finite and ≥ 0, along the unit normal);
    /// written only after a successful frame (a force beyond the float
    /// range fails the step, naming the particle).
    pub force: T,
}

impl<T: Real, const D: usize> Default for EngineContact<T, D> {
    /// Particle 0 against the plane through the origin with normal `+x`
    /// (so that a zeroed buffer is valid once its particles are set).
    fn default() -> Self {
        let mut normal = [T::ZERO; D];
        if let Some(n) = normal.first_mut() {
            *n = T::ONE;
        }
        Self::new(0, normal, [T::ZERO; D])
    }
}

impl<T: Real, const D: usize> EngineContact<T, D> {
    /// A contact of `particle` against the static plane through `point`
    /// with normal `normal`, frictionless, λ and force 0.
    #[must_use]
    pub fn new(particle: u32, normal: [T; D], point: [T; D]) -> Self {
        Self {
            particle,
            normal,
            point,
            velocity: [T::ZERO; D],
            static_friction: T::ZERO,
            dynamic_friction: T::ZERO,
            lambda: T::ZERO,
            impulse: T::ZERO,
            force: T::ZERO,
        }
    }

    /// Whether this contact's own values are usable with `particles`
    /// particles: the index in range, the normal finite and non-zero, the
    /// point and velocity finite, the friction finite and ≥ 0.
    pub(crate) fn valid(&self, particles: usize) -> bool {
        let finite = |v: &[T; D]| v.iter().all(|c| c.is_finite());
        super::distance::index(self.particle) < particles
            && unit_any(&self.normal).is_some()
            && finite(&self.point)
            && finite(&self.velocity)
            && finite_non_negative(self.static_friction)
            && finite_non_negative(self.dynamic_friction)
    }

    /// The start of a frame: `impulse ← 0`.
    #[inline]
    pub(crate) fn begin_frame(&mut self) {
        self.impulse = T::ZERO;
    }

    /// The end of a substep of length `h` (s): `impulse += λ / h`.
    #[inline]
    pub(crate) fn end_substep(&mut self, h: T) {
        self.impulse = self.impulse + self.lambda / h;
    }

    /// The particle whose frame force `impulse / dt` would not be finite
    /// (a very heavy particle pushed far in a short frame), `None` when
    /// [`EngineContact::end_frame`] writes a finite force.
    #[inline]
    pub(crate) fn unrepresentable_force(&self, dt: T) -> Option<usize> {
        (!(self.impulse / dt).is_finite()).then(|| super::distance::index(self.particle))
    }

    /// The end of a successful frame of length `dt` (s):
    /// `force ← impulse / dt`.
    #[inline]
    pub(crate) fn end_frame(&mut self, dt: T) {
        self.force = self.impulse / dt;
    }

    /// The plane's point at `time` (s after the frame's start).
    #[inline]
    fn point_at(&self, time: T) -> [T; D] {
        let mut p = self.point;
        for (pi, ui) in p.iter_mut().zip(&self.velocity) {
            *pi = *pi + *ui * time;
        }
        p
    }
}

/// What every engine contact of a substep shares.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Surfaces<'c, T, const D: usize> {
    /// Positions at the substep's start (m).
    pub(crate) previous: &'c [[T; D]],
    /// Particle radius r (m).
    pub(crate) radius: T,
    /// `α̃ = α / h²` (1/kg).
    pub(crate) alpha: T,
    /// The substep's end τ (s after the frame's start).
    pub(crate) time: T,
    /// The substep length h (s).
    pub(crate) h: T,
}

impl<T: Real, const D: usize> Constraint<T, D, 1> for EngineContact<T, D> {
    type Shared<'s> = Surfaces<'s, T, D>;

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
    fn alpha(&self, shared: &Surfaces<'_, T, D>, _h2: T) -> T {
        shared.alpha
    }

    #[inline(always)]
    fn evaluate(&self, x: &[[T; D]], w: &[T], shared: &Surfaces<'_, T, D>) -> Evaluation<T, D, 1> {
        let k = super::distance::index(self.particle);
        let (Some(&xk), Some(&wk), Some(_)) = (x.get(k), w.get(k), shared.previous.get(k)) else {
            return Evaluation::OutOfRange;
        };
        if wk == T::ZERO {
            return Evaluation::Static;
        }
        let Some(n) = unit_any(&self.normal) else {
            return Evaluation::Degenerate;
        };
        let p = self.point_at(shared.time);
        let mut d = xk;
        for (di, pi) in d.iter_mut().zip(&p) {
            *di = *di - *pi;
        }
        Evaluation::Active(Evaluated {
            particles: [k],
            x: [xk],
            w: [wk],
            gradient: [n],
            c: dot(&n, &d) - shared.radius,
            weight: wk,
        })
    }

    /// Static friction relative to the surface: undo the tangential part of
    /// `x − (x_prev + u h)` when it is within `μ_s · w λ`.
    #[inline(always)]
    fn finish(
        &self,
        e: &Evaluated<T, D, 1>,
        lambda: T,
        next: &mut [[T; D]; 1],
        shared: &Surfaces<'_, T, D>,
    ) {
        let [x] = next;
        let ([n], [w], [k]) = (&e.gradient, e.w, e.particles);
        let Some(prev) = shared.previous.get(k) else {
            return;
        };
        if self.static_friction > T::ZERO && lambda > T::ZERO {
            let mut moved = *x;
            for ((m, q), u) in moved.iter_mut().zip(prev).zip(&self.velocity) {
                *m = *m - (*q + *u * shared.h);
            }
            let along = dot(&moved, n);
            let mut tangential = moved;
            for (t, ni) in tangential.iter_mut().zip(n) {
                *t = *t - along * *ni;
            }
            let t2 = dot(&tangential, &tangential);
            let limit = self.static_friction * w * lambda;
            if t2 < limit * limit {
                for (v, t) in x.iter_mut().zip(&tangential) {
                    *v = *v - *t;
                }
            }
        }
    }
}

/// Dynamic friction of the engine contacts with λ > 0: the tangential part
/// of each particle's velocity relative to its surface drops by
/// `min(μ_k w λ / h, |(v − u)_t|)`.
pub(crate) fn dynamic_friction<T: Real, const D: usize>(
    velocities: &mut [[T; D]],
    inverse_masses: &[T],
    contacts: &[EngineContact<T, D>],
    h: T,
) {
    for c in contacts {
        if c.lambda <= T::ZERO || c.dynamic_friction <= T::ZERO {
            continue;
        }
        let k = super::distance::index(c.particle);
        let (Some(&w), Some(v), Some(n)) = (
            inverse_masses.get(k),
            velocities.get_mut(k),
            unit_any(&c.normal),
        ) else {
            continue;
        };
        slow_tangential(v, &c.velocity, &n, c.dynamic_friction * w * c.lambda / h);
    }
}

/// `v ← v − s·(v − u)_t` with `s = min(drop / |(v − u)_t|, 1)`: the
/// tangential velocity relative to a surface moving at `u` slowed by
/// `drop` (m/s), at most to rest (shared by every contact kind; one copy
/// on bare metal, inlined into the velocity pass on hosts).
#[cfg_attr(target_os = "none", inline(never))]
#[cfg_attr(not(target_os = "none"), inline)]
pub(crate) fn slow_tangential<T: Real, const D: usize>(
    v: &mut [T; D],
    u: &[T; D],
    n: &[T; D],
    drop: T,
) {
    let mut rel = *v;
    for (r, ui) in rel.iter_mut().zip(u) {
        *r = *r - *ui;
    }
    let along = dot(&rel, n);
    for (t, ni) in rel.iter_mut().zip(n) {
        *t = *t - along * *ni;
    }
    let speed2 = dot(&rel, &rel);
    if speed2 < T::MIN_POSITIVE {
        return;
    }
    let speed = speed2.sqrt();
    let scale = if drop >= speed { T::ONE } else { drop / speed };
    for (vi, t) in v.iter_mut().zip(&rel) {
        *vi = *vi - scale * *t;
    }
}
