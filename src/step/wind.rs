//! Wind: an aerodynamic force per triangle, from the triangle's velocity
//! relative to the air, applied to the velocities at every substep's entry
//! (before the prediction), in `step` and `step_colored` alike.
//!
//! # The force (the NvCloth / Chaos form)
//!
//! For a triangle with corners `x₀, x₁, x₂` (m), velocities `v₀, v₁, v₂`
//! (m/s) and inverse masses `w₀, w₁, w₂` (1/kg), the wind `u_w` (m/s: the
//! block's [`Wind::velocity`] plus the mean of its corners'
//! [`Wind::particle_velocities`], when given), the fluid density `ρ`
//! (kg/m³) and the triangle's drag and lift coefficients `C_d`, `C_l`
//! (unitless):
//!
//! ```text
//! n  = (x₁ − x₀) × (x₂ − x₀)          |n| = 2A (A the area, m²), n̂ = n/|n|
//! u  = (v₀ + v₁ + v₂)/3 − u_w          the triangle's velocity relative to the air
//! û  = u/|u|,  cos θ = n̂·û
//! F_drag = −½ ρ C_d A |cos θ| |u|² û                       (along −u)
//! F_lift =  ½ ρ C_l A cos θ |u|² (n̂ × û) × û
//!        =  ½ ρ C_l A |u|² cos θ (cos θ û − n̂)          (|(n̂ × û) × û| = sin θ)
//! v_i ← v_i + h w_i Σ (F_drag + F_lift)/3      (over the triangles of particle i)
//! ```
//!
//! Drag acts on the area the flow sees, `A |cos θ|`, against the relative
//! velocity; lift is perpendicular to the relative velocity, in the plane
//! of it and the normal, `∝ cos θ sin θ` (0 face-on and edge-on, largest
//! at 45°), and points away from the side the air comes from. This is
//! the model of NVIDIA NvCloth (`Cloth::setDragCoefficient`,
//! `setLiftCoefficient`, `setFluidDensity`, `setWindVelocity`) and of
//! Unreal's Chaos Cloth (`Chaos::Softs::FVelocityAndPressureField`:
//! drag, lift, fluid density); the thin-plate force decomposition is
//! that of Keckeisen, Kimmerle, Thomaszewski, Wacker, *Modelling Effects
//! of Wind Fields in Cloth Animations* (WSCG 2004).
//!
//! The force is explicit: every triangle's uses the positions and
//! velocities at the substep's entry (the forces are summed per particle,
//! in triangle order, before any velocity changes), and it is applied
//! before the prediction, like gravity. Every triangle's
//! force depends on the substep `h` alone, never on the frame length or
//! the substep count, so the same scene with the same `h` gives the same
//! bits at 30, 60 or 120 frames per second (a constant wind and static
//! inputs; `tests/character_cloth/wind.rs`). A triangle with no area (`|n| = 0`) or no
//! relative velocity gets no force. Kinematic corners (`w = 0`) do not
//! move.
//!
//! The terminal velocity of a flat plate of mass `m` falling face-first
//! (drag only) is `sqrt(2 m g / (ρ C_d A))` (`tests/character_cloth/wind.rs` reaches it
//! within 1 %).

use super::local_space::Substep;
use super::StepError;
use crate::error::Field;
use crate::math::{add3, cross, dot3, scale3, sub3, xyz};
use crate::real::{finite_non_negative, Real};

/// The density of air at 15 °C and 101.325 kPa (kg/m³): the ISO standard
/// atmosphere at sea level, [`Wind::new`]'s density.
pub const AIR_DENSITY: f64 = 1.225;

/// The drag coefficient of [`AeroTriangle::new`] (unitless): a flat plate
/// broadside to the flow, about 1.2 (Hoerner, *Fluid-Dynamic Drag*, 1965).
pub const DEFAULT_DRAG_COEFFICIENT: f64 = 1.2;

/// The lift coefficient of [`AeroTriangle::new`] (unitless): Chaos
/// Cloth's default, 0.1 (a light cloth; a sail or a flag that should
/// climb in the wind wants more).
pub const DEFAULT_LIFT_COEFFICIENT: f64 = 0.1;

/// One triangle the wind acts on: three particle indices and its drag and
/// lift coefficients.
///
/// `#[repr(C)]`: `AeroTriangle<f64>` is the C type `XpbdAeroTriangle`,
/// `AeroTriangle<f32>` is `XpbdAeroTriangleF32`.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AeroTriangle<T> {
    /// The corners (particle indices, distinct; the normal follows their
    /// order, but the force does not depend on which side it points to).
    pub particles: [u32; 3],
    /// Drag coefficient `C_d` (unitless, finite, ≥ 0).
    pub drag: T,
    /// Lift coefficient `C_l` (unitless, finite, ≥ 0).
    pub lift: T,
}

impl<T: Real> AeroTriangle<T> {
    /// The triangle `particles` with [`DEFAULT_DRAG_COEFFICIENT`] and
    /// [`DEFAULT_LIFT_COEFFICIENT`].
    #[must_use]
    pub fn new(particles: [u32; 3]) -> Self {
        Self {
            particles,
            drag: T::from_f64(DEFAULT_DRAG_COEFFICIENT),
            lift: T::from_f64(DEFAULT_LIFT_COEFFICIENT),
        }
    }

    /// Whether the triangle is valid for `particles` particles: indices in
    /// range and distinct, coefficients finite and ≥ 0.
    fn valid(&self, particles: usize) -> bool {
        let [a, b, c] = self.particles;
        let in_range = |i: u32| usize::try_from(i).is_ok_and(|i| i < particles);
        in_range(a)
            && in_range(b)
            && in_range(c)
            && a != b
            && b != c
            && a != c
            && finite_non_negative(self.drag)
            && finite_non_negative(self.lift)
    }
}

/// The wind block of a 3D world ([`World::wind`](super::World::wind)):
/// the triangles the wind acts on, the wind of the frame and the fluid.
///
/// The force and its references are in the module documentation of
/// `xpbd::step` ("Wind") and `docs/character-cloth.md`.
#[derive(Debug, Clone, Copy)]
pub struct Wind<'a, T> {
    /// The triangles (each with its coefficients), applied in this order.
    pub triangles: &'a [AeroTriangle<T>],
    /// The wind velocity of the frame (m/s, world frame, finite).
    pub velocity: [T; 3],
    /// Optional wind per particle (m/s, added to `velocity`; a triangle
    /// takes the mean of its corners'): empty for none, else one finite
    /// entry per particle.
    pub particle_velocities: &'a [[T; 3]],
    /// The fluid density `ρ` (kg/m³, finite, ≥ 0; air 1.225, water 1000).
    pub density: T,
}

impl<'a, T: Real> Wind<'a, T> {
    /// No wind (velocity 0) in air ([`AIR_DENSITY`]) on `triangles`.
    #[must_use]
    pub fn new(triangles: &'a [AeroTriangle<T>]) -> Self {
        Self {
            triangles,
            velocity: [T::ZERO; 3],
            particle_velocities: &[],
            density: T::from_f64(AIR_DENSITY),
        }
    }

    /// Checks the block for a world of `particles` particles, naming the
    /// first bad value ([`StepError::InvalidWind`]).
    pub(crate) fn check(&self, particles: usize) -> Result<(), StepError> {
        let bad = |field, index| Err(StepError::InvalidWind { field, index });
        if !self.velocity.iter().all(|c| c.is_finite()) {
            return bad(Field::WindVelocity, 0);
        }
        if !finite_non_negative(self.density) {
            return bad(Field::FluidDensity, 0);
        }
        if !self.particle_velocities.is_empty() {
            if self.particle_velocities.len() != particles {
                return bad(Field::ParticleWind, self.particle_velocities.len());
            }
            if let Some(k) = self
                .particle_velocities
                .iter()
                .position(|u| !u.iter().all(|c| c.is_finite()))
            {
                return bad(Field::ParticleWind, k);
            }
        }
        match self.triangles.iter().position(|t| !t.valid(particles)) {
            Some(k) => bad(Field::AeroTriangles, k),
            None => Ok(()),
        }
    }
}

/// One triangle's force (N) from its corners' positions and velocities
/// and the wind at it (the module's formulas); `None` when it has no area
/// or no relative velocity (no force).
fn force<T: Real>(
    x: [[T; 3]; 3],
    v: [[T; 3]; 3],
    wind: [T; 3],
    rho: T,
    t: &AeroTriangle<T>,
) -> Option<[T; 3]> {
    let [x0, x1, x2] = x;
    let [v0, v1, v2] = v;
    let n = cross(&sub3(&x1, &x0), &sub3(&x2, &x0));
    let double_area = dot3(&n, &n).sqrt();
    let third = T::ONE / T::from_f64(3.0);
    let u = sub3(&scale3(&add3(&add3(&v0, &v1), &v2), third), &wind);
    let speed2 = dot3(&u, &u);
    let speed = speed2.sqrt();
    // Also false for NaN (an overflowing edge or velocity): no force,
    // and the velocity check after the substep names what overflowed.
    if !(double_area > T::ZERO && speed > T::ZERO && double_area.is_finite() && speed.is_finite()) {
        return None;
    }
    let n_hat = scale3(&n, T::ONE / double_area);
    let u_hat = scale3(&u, T::ONE / speed);
    let cos = dot3(&n_hat, &u_hat);
    // ½ ρ A |u|², with A = |n|/2.
    let half = T::ONE / T::from_f64(2.0);
    let q = half * rho * (half * double_area) * speed2;
    let drag = q * t.drag * cos.abs();
    let lift = q * t.lift * cos;
    let across = sub3(&scale3(&u_hat, cos), &n_hat);
    Some(sub3(&scale3(&across, lift), &scale3(&u_hat, drag)))
}

/// Applies the wind to the velocities for one substep of `h` seconds:
/// every triangle's force from the velocities at the substep's entry,
/// summed per particle in `sum` (as long as the velocities: the frame's
/// `x_prev`, free until the prediction writes it), then
/// `v_i ← v_i + h w_i Σ F/3`. In local space (`frame`) the wind, a world
/// velocity, is turned into the frame. The block is valid for the world
/// (checked at the frame's entry).
pub(crate) fn apply<T: Real, const D: usize>(
    wind: &Wind<'_, T>,
    positions: &[[T; D]],
    velocities: &mut [[T; D]],
    inverse_masses: &[T],
    h: T,
    sum: &mut [[T; D]],
    frame: Option<&Substep<T>>,
) {
    for s in sum.iter_mut() {
        *s = [T::ZERO; D];
    }
    let n = positions.len().min(velocities.len()).min(sum.len());
    let positions = positions.get(..n).unwrap_or(&[]);
    let (x, v) = (
        |i: usize| positions.get(i).map(xyz),
        |i: usize| velocities.get(i).map(xyz),
    );
    shares(wind, n, x, v, frame, |i, share| {
        if let Some(s) = sum.get_mut(i) {
            for (sc, fc) in s.iter_mut().zip(share) {
                *sc = *sc + fc;
            }
        }
    });
    for ((v, s), &w) in velocities.iter_mut().zip(sum.iter()).zip(inverse_masses) {
        if w <= T::ZERO {
            continue;
        }
        let k = h * w;
        for (vc, sc) in v.iter_mut().zip(s) {
            *vc = *vc + k * *sc;
        }
    }
}

/// [`apply`] over coordinate arrays (the SoA frame's): positions `x`,
/// velocities `v`, the sums in `sum` (three arrays as long as the others),
/// the same operations in the same order, so the same bits.
pub(crate) fn apply_soa<T: Real>(
    wind: &Wind<'_, T>,
    x: [&[T]; 3],
    v: [&mut [T]; 3],
    inverse_masses: &[T],
    h: T,
    sum: [&mut [T]; 3],
    frame: Option<&Substep<T>>,
) {
    // Every array cut to the particle count: the index test in `shares`
    // then covers every access.
    let n = inverse_masses.len();
    let [x0, x1, x2] = x.map(|a| a.get(..n).unwrap_or(&[]));
    let at = |i: usize| Some([*x0.get(i)?, *x1.get(i)?, *x2.get(i)?]);
    let [v0, v1, v2] = v.map(|a| a.get_mut(..n).unwrap_or(&mut []));
    let of = |i: usize| Some([*v0.get(i)?, *v1.get(i)?, *v2.get(i)?]);
    let mut sum = sum.map(|a| a.get_mut(..n).unwrap_or(&mut []));
    for s in sum.iter_mut() {
        s.fill(T::ZERO);
    }
    shares(wind, n, at, of, frame, |i, share| {
        for (s, fc) in sum.iter_mut().zip(share) {
            if let Some(sc) = s.get_mut(i) {
                *sc = *sc + fc;
            }
        }
    });
    // Branch-free (a loop the compiler widens): a static particle keeps
    // its velocity.
    for (vc, s) in [v0, v1, v2].into_iter().zip(&sum) {
        for ((v, s), &w) in vc.iter_mut().zip(s.iter()).zip(inverse_masses) {
            let k = h * w;
            *v = if w > T::ZERO { *v + k * *s } else { *v };
        }
    }
}

/// Every triangle's force in triangle order, a third of it handed to
/// each corner in corner order (`add(particle, F/3)`), from the positions
/// `x(i)` and velocities `v(i)` at the substep's entry; in local space
/// (`frame`) the wind turned into the frame.
#[inline(always)]
fn shares<T: Real>(
    wind: &Wind<'_, T>,
    n: usize,
    x: impl Fn(usize) -> Option<[T; 3]>,
    v: impl Fn(usize) -> Option<[T; 3]>,
    frame: Option<&Substep<T>>,
    mut add: impl FnMut(usize, [T; 3]),
) {
    let third = T::ONE / T::from_f64(3.0);
    let at = |i: u32| usize::try_from(i).unwrap_or(usize::MAX);
    // Without a wind per particle, the wind (in the frame) of every
    // triangle: turned once.
    let gusts = !wind.particle_velocities.is_empty();
    let still = frame.map_or(wind.velocity, |f| f.in_frame(&wind.velocity));
    for t in wind.triangles {
        let [a, b, c] = t.particles.map(at);
        if a >= n || b >= n || c >= n {
            continue;
        }
        let (Some(xa), Some(xb), Some(xc)) = (x(a), x(b), x(c)) else {
            continue;
        };
        let (Some(va), Some(vb), Some(vc)) = (v(a), v(b), v(c)) else {
            continue;
        };
        let mut air = still;
        if gusts {
            air = wind.velocity;
            if let (Some(pa), Some(pb), Some(pc)) = (
                wind.particle_velocities.get(a),
                wind.particle_velocities.get(b),
                wind.particle_velocities.get(c),
            ) {
                air = add3(&air, &scale3(&add3(&add3(pa, pb), pc), third));
            }
            if let Some(frame) = frame {
                air = frame.in_frame(&air);
            }
        }
        let Some(f) = force([xa, xb, xc], [va, vb, vc], air, wind.density, t) else {
            continue;
        };
        let share = scale3(&f, third);
        for i in [a, b, c] {
            add(i, share);
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)] // a test fails by panicking
mod tests {
    use super::*;

    #[test]
    fn lift_is_perpendicular_to_the_flow_in_the_plane_of_flow_and_normal() {
        let t = AeroTriangle {
            particles: [0, 1, 2],
            drag: 0.0,
            lift: 0.7,
        };
        let x = [[0.0, 0.0, 0.0], [1.0, 0.2, 0.0], [0.0, 0.3, 1.0]];
        let v = [[0.3, -1.0, 0.5]; 3];
        let air = [2.0, 0.0, 0.1];
        let f = force(x, v, air, 1.2, &t).unwrap();
        let [x0, x1, x2] = x;
        let u = sub3(&v[0], &air);
        let n = cross(&sub3(&x1, &x0), &sub3(&x2, &x0));
        let norm = |a: &[f64; 3]| dot3(a, a).sqrt();
        assert!(norm(&f) > 0.01);
        assert!(dot3(&f, &u).abs() < 1e-12 * norm(&f) * norm(&u));
        assert!(dot3(&f, &cross(&n, &u)).abs() < 1e-12 * norm(&f) * norm(&n) * norm(&u));
    }
}
