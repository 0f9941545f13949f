//! Particle–particle contacts: two particles of radius `r` may not come
//! closer than `2r` (self-collision of a cloth, collision between two
//! bodies of one world), `C ≥ 0`, push only, with static and dynamic
//! friction.
//!
//! # The constraint
//!
//! Particles `x_i, x_j ∈ ℝ^D` (m), inverse masses `w_i, w_j` (1/kg),
//! radius `r` (m, the step's `particle_radius`), contact compliance `α`
//! (m/N, the step's `contact_compliance`):
//!
//! - `C = |x_i − x_j| − d` (m) with the contact distance
//!   `d = 2r (1 + 1/64)` ([`contact_distance`]: `2r` plus a skin of
//!   1.6 %), `∇_i C = n̂ = (x_i − x_j)/|x_i − x_j|`,
//!   `∇_j C = −n̂`, `W = w_i + w_j`;
//! - `α̃ = α / h²` (1/kg); `λ ≥ 0` (kg·m): `λ' = max(λ + Δλ, 0)`;
//! - coincident particles have no direction: the pair is skipped
//!   (degenerate) that iteration.
//!
//! Friction (as for the other contacts, Müller et al. 2020 §3.5–3.6, and
//! Ten Minute Physics' self-collision, Müller 2022): static friction
//! removes the relative tangential motion since the substep's start,
//! `d = (x_i − x_i,prev) − (x_j − x_j,prev)`, when `|d_t| < μ_s W λ'`,
//! split by inverse mass; in the velocity update the relative tangential
//! velocity drops by `min(μ_k W λ / h, |v_t|)`, split the same way.
//!
//! The pairs are found every substep after prediction by a spatial hash
//! (`step::spatial`), with the lifecycle of every λ: reset at the substep's
//! start, kept across its iterations.

use super::{Bound, Constraint, Evaluated, Evaluation};
use crate::math::dot;
use crate::real::Real;

/// The distance a particle contact is solved to for particle radius `r`:
/// `2r + 2r/64`. The skin keeps what one Gauss-Seidel sweep leaves of a
/// stacked contact (a layer of cloth resting on another under gravity:
/// tens of µm at 20 substeps of 1/1200 s with 5 mm particles, see
/// `docs/self-collision.md`) outside `2r`, so no two particles are ever
/// closer than `2r`; it costs a visible thickness 1.6 % above `2r`.
#[must_use]
pub fn contact_distance<T: Real>(r: T) -> T {
    let d = r + r;
    d + d / T::from_f64(64.0)
}

/// One particle–particle contact of the current substep: particles `i < j`
/// with their accumulated λ (kg·m, ≥ 0).
///
/// `#[repr(C)]`: `ParticleContact<f64>` is the C type
/// `XpbdParticleContact`, `ParticleContact<f32>` is
/// `XpbdParticleContactF32`.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct ParticleContact<T> {
    /// The first particle (index, the smaller).
    pub i: u32,
    /// The second particle (index).
    pub j: u32,
    /// Accumulated multiplier λ (kg·m), ≥ 0; reset each substep.
    pub lambda: T,
}

/// What every particle contact of a substep shares.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Pairs<'c, T, const D: usize> {
    /// Positions at the substep's start (m).
    pub(crate) previous: &'c [[T; D]],
    /// The contact distance `2r` (m).
    pub(crate) distance: T,
    /// `α̃ = α / h²` (1/kg).
    pub(crate) alpha: T,
    /// μ_s.
    pub(crate) static_friction: T,
}

impl<T: Real, const D: usize> Constraint<T, D, 2> for ParticleContact<T> {
    type Shared<'s> = Pairs<'s, T, D>;

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
    fn alpha(&self, shared: &Pairs<'_, T, D>, _h2: T) -> T {
        shared.alpha
    }

    #[inline(always)]
    fn evaluate(&self, x: &[[T; D]], w: &[T], shared: &Pairs<'_, T, D>) -> Evaluation<T, D, 2> {
        let (a, b) = (
            super::distance::index(self.i),
            super::distance::index(self.j),
        );
        let (Some(&xa), Some(&xb), Some(&wa), Some(&wb)) = (x.get(a), x.get(b), w.get(a), w.get(b))
        else {
            return Evaluation::OutOfRange;
        };
        if wa == T::ZERO && wb == T::ZERO {
            return Evaluation::Static;
        }
        let mut d = xa;
        for (di, bi) in d.iter_mut().zip(&xb) {
            *di = *di - *bi;
        }
        let len2 = dot(&d, &d);
        if !len2.is_finite() || len2 < T::MIN_POSITIVE {
            return Evaluation::Degenerate;
        }
        let len = len2.sqrt();
        let n = d.map(|c| c / len);
        Evaluation::Active(Evaluated {
            particles: [a, b],
            x: [xa, xb],
            w: [wa, wb],
            gradient: [n, n.map(|c| -c)],
            c: len - shared.distance,
            weight: wa + wb,
        })
    }

    /// Static friction: undo the relative tangential motion of the
    /// substep, split by inverse mass, when it is within `μ_s W λ'`.
    #[inline(always)]
    fn finish(
        &self,
        e: &Evaluated<T, D, 2>,
        lambda: T,
        next: &mut [[T; D]; 2],
        shared: &Pairs<'_, T, D>,
    ) {
        if shared.static_friction <= T::ZERO || lambda <= T::ZERO {
            return;
        }
        let [a, b] = e.particles;
        let (Some(pa), Some(pb)) = (shared.previous.get(a), shared.previous.get(b)) else {
            return;
        };
        let [xa, xb] = next;
        let n = e.gradient[0];
        let mut rel = *xa;
        for (((r, qa), xbi), qb) in rel.iter_mut().zip(pa).zip(xb.iter()).zip(pb) {
            *r = (*r - *qa) - (*xbi - *qb);
        }
        let along = dot(&rel, &n);
        for (r, ni) in rel.iter_mut().zip(&n) {
            *r = *r - along * *ni;
        }
        let weight = e.weight;
        let limit = shared.static_friction * weight * lambda;
        if dot(&rel, &rel) < limit * limit {
            let (sa, sb) = (e.w[0] / weight, e.w[1] / weight);
            for ((va, vb), t) in xa.iter_mut().zip(xb.iter_mut()).zip(&rel) {
                *va = *va - sa * *t;
                *vb = *vb + sb * *t;
            }
        }
    }
}

/// Dynamic friction of the particle contacts with λ > 0: each pair's
/// relative tangential velocity drops by `min(μ_k W λ / h, |v_t|)`, split
/// by inverse mass.
pub(crate) fn dynamic_friction<T: Real, const D: usize>(
    velocities: &mut [[T; D]],
    positions: &[[T; D]],
    inverse_masses: &[T],
    pairs: &[ParticleContact<T>],
    h: T,
    mu: T,
) {
    if mu <= T::ZERO {
        return;
    }
    for p in pairs {
        if p.lambda <= T::ZERO {
            continue;
        }
        let (a, b) = (super::distance::index(p.i), super::distance::index(p.j));
        let (Some(xa), Some(xb), Some(&wa), Some(&wb), Some(&va), Some(&vb)) = (
            positions.get(a),
            positions.get(b),
            inverse_masses.get(a),
            inverse_masses.get(b),
            velocities.get(a),
            velocities.get(b),
        ) else {
            continue;
        };
        let weight = wa + wb;
        let mut d = *xa;
        for (di, bi) in d.iter_mut().zip(xb) {
            *di = *di - *bi;
        }
        let len2 = dot(&d, &d);
        if !len2.is_finite() || len2 < T::MIN_POSITIVE || weight <= T::ZERO {
            continue;
        }
        let len = len2.sqrt();
        let n = d.map(|c| c / len);
        let mut rel = va;
        for (r, vbi) in rel.iter_mut().zip(&vb) {
            *r = *r - *vbi;
        }
        let along = dot(&rel, &n);
        for (r, ni) in rel.iter_mut().zip(&n) {
            *r = *r - along * *ni;
        }
        let speed2 = dot(&rel, &rel);
        if speed2 < T::MIN_POSITIVE {
            continue;
        }
        let speed = speed2.sqrt();
        let drop = mu * weight * p.lambda / h;
        let scale = if drop >= speed { T::ONE } else { drop / speed };
        let (sa, sb) = (scale * wa / weight, scale * wb / weight);
        if let Some(v) = velocities.get_mut(a) {
            for (vi, t) in v.iter_mut().zip(&rel) {
                *vi = *vi - sa * *t;
            }
        }
        if let Some(v) = velocities.get_mut(b) {
            for (vi, t) in v.iter_mut().zip(&rel) {
                *vi = *vi + sb * *t;
            }
        }
    }
}
