//! Moving colliders: capsules and oriented boxes with a linear and an
//! angular velocity over the frame, and the separating plane a contact
//! with one of them solves.
//!
//! # Motion over a frame
//!
//! A collider is given by its pose at the start of the frame (centre `c`,
//! m; its axes), a linear velocity `v` (m/s) and an angular velocity `ω`
//! (rad/s, about the centre). At time `τ` (s) after the frame's start its
//! centre is `c + v τ` and its axes are rotated by `R(τ)`, the Cayley
//! rotation of `t = ω τ / 2`:
//!
//! ```text
//! R(τ) u = u + 2/(1 + |t|²) · (t × u + t × (t × u))
//! ```
//!
//! a rotation about `ω` by `2·atan(|ω| τ / 2)` (within 0.1 % of `|ω| τ`
//! for `|ω| τ ≤ 0.1 rad`), exact to rounding as a rotation and computed
//! with `+ − × ÷` only, so it has the same bits on every target. In 2D the
//! rotation is about z and only `ω[2]` is used.
//!
//! # The contact: a separating plane from the substep's start
//!
//! A substep runs from `τ_a` to `τ_b = τ_a + h`. The particle's start
//! `x_prev` is carried with the collider from its pose at `τ_a` to its
//! pose at `τ_b` (`x̂ = c_b + R_b R_aᵀ (x_prev − c_a)`: where the particle
//! would be had it moved with the collider). The closest point of the
//! collider at `τ_b` to `x̂` gives a point `s` on the surface and the
//! outward unit normal `n̂` there (inside: the nearest face of a box, the
//! direction from the axis of a capsule). The contact is the plane
//!
//! ```text
//! C = n̂·(x − s) − r ≥ 0,   ∇C = n̂,   λ ≥ 0
//! ```
//!
//! with `r` the particle radius. A collider is convex, so it lies behind
//! the plane: a particle that satisfies `C ≥ 0` is outside it by at least
//! `r`, and a particle that moved through a thin fast collider within the
//! substep is still pushed back to the side it came from (the plane
//! depends on where it started, not where it ended). The contact exists
//! for a substep when the predicted position is within the contact margin
//! of the plane, `C ≤ r + 2 d` with `d = |x − x̂| + |x̂ − x_prev|` (its path
//! relative to the collider plus the collider's own motion there), and
//! that path comes within the collider's bounding sphere: a speculative
//! contact, inactive (λ = 0) while `C > 0`, so that a particle resting on
//! the collider, or one its links drag in during the substep (a cloth
//! wrapping a capsule it rides on), is held too (and a particle crossing
//! the plane's extension beside the collider within one substep is held
//! for that substep). A particle carried onto a capsule's core segment has
//! no direction from it: it is pushed out perpendicular to the axis,
//! towards the first world axis least aligned with it.
//!
//! Friction is relative to the collider: static friction removes the
//! tangential part of `x − x̂`, dynamic friction acts on `v − (x̂ − x_prev)/h`.

use super::field::{
    axes_valid, heightfield_surface, identity, sdf_surface, to_local, to_world, Field, Fields,
    Shape,
};
use crate::math::{add_scaled, cross as cross3, dot, max, sub, unit, unit_any};
use crate::real::{finite_non_negative, Real};

/// A capsule: the points within `radius` of the segment
/// `center ± half_axis`, moving with `velocity` and `angular_velocity`
/// over the frame.
///
/// `#[repr(C)]`: `Capsule<f64, 3>` is the C type `XpbdCapsule3`,
/// `Capsule<f32, 3>` is `XpbdCapsule3F32`.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Capsule<T, const D: usize> {
    /// Centre at the frame's start (m).
    pub center: [T; D],
    /// From the centre to one end of the core segment (m), at the frame's
    /// start; the segment is `center ± half_axis` (zero: a sphere).
    pub half_axis: [T; D],
    /// Radius around the segment (m), finite and ≥ 0.
    pub radius: T,
    /// Linear velocity of the centre over the frame (m/s).
    pub velocity: [T; D],
    /// Angular velocity about the centre over the frame (rad/s; in 2D only
    /// the z component, `[2]`, is used).
    pub angular_velocity: [T; 3],
    /// Static friction coefficient μ_s against it, finite and ≥ 0.
    pub static_friction: T,
    /// Dynamic friction coefficient μ_k against it, finite and ≥ 0.
    pub dynamic_friction: T,
}

/// An oriented box: the points `center + Σ q_k axes[k]` with
/// `|q_k| ≤ half_extents[k]`, moving with `velocity` and
/// `angular_velocity` over the frame.
///
/// `#[repr(C)]`: `OrientedBox<f64, 3>` is the C type `XpbdBox3`,
/// `OrientedBox<f32, 3>` is `XpbdBox3F32`.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct OrientedBox<T, const D: usize> {
    /// Centre at the frame's start (m).
    pub center: [T; D],
    /// The box's axes in world coordinates at the frame's start: unit
    /// length and pairwise orthogonal within 1e-3, that is
    /// `| |axes[i]| − 1 | ≤ 1e-3` and `|axes[i] · axes[j]| ≤ 1e-3` for
    /// `i ≠ j` (a rotation matrix's rows, e.g. from the engine's
    /// quaternion).
    pub axes: [[T; D]; D],
    /// Half the box's size along each axis (m), finite and ≥ 0.
    pub half_extents: [T; D],
    /// Linear velocity of the centre over the frame (m/s).
    pub velocity: [T; D],
    /// Angular velocity about the centre over the frame (rad/s; in 2D only
    /// the z component, `[2]`, is used).
    pub angular_velocity: [T; 3],
    /// Static friction coefficient μ_s against it, finite and ≥ 0.
    pub static_friction: T,
    /// Dynamic friction coefficient μ_k against it, finite and ≥ 0.
    pub dynamic_friction: T,
}

impl<T: Real, const D: usize> Capsule<T, D> {
    /// A capsule around `center ± half_axis` with `radius` (m), at rest
    /// and frictionless (set the other fields to move it).
    #[must_use]
    pub fn new(center: [T; D], half_axis: [T; D], radius: T) -> Self {
        Self {
            center,
            half_axis,
            radius,
            velocity: [T::ZERO; D],
            angular_velocity: [T::ZERO; 3],
            static_friction: T::ZERO,
            dynamic_friction: T::ZERO,
        }
    }
}

impl<T: Real, const D: usize> OrientedBox<T, D> {
    /// An axis-aligned box around `center` with `half_extents` (m), at rest
    /// and frictionless (set `axes` to turn it, the other fields to move
    /// it).
    #[must_use]
    pub fn new(center: [T; D], half_extents: [T; D]) -> Self {
        Self {
            center,
            axes: identity(),
            half_extents,
            velocity: [T::ZERO; D],
            angular_velocity: [T::ZERO; 3],
            static_friction: T::ZERO,
            dynamic_friction: T::ZERO,
        }
    }
}

/// The moving colliders of a step and the substep's time.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Moving<'c, T, const D: usize> {
    /// Capsules (collider indices after the static planes and spheres).
    pub(crate) capsules: &'c [Capsule<T, D>],
    /// Boxes (collider indices after the capsules).
    pub(crate) boxes: &'c [OrientedBox<T, D>],
    /// Heightfields and signed distance fields (collider indices after
    /// the boxes, in that order) and their samples.
    pub(crate) fields: Fields<'c, T, D>,
    /// The substep's end `τ_b` (s after the frame's start).
    pub(crate) time: T,
    /// The substep length h (s).
    pub(crate) h: T,
    /// The substep's poses of the first moving colliders
    /// ([`Moving::prepare`]; empty: each contact computes its own).
    pub(crate) prepared: &'c [Prepared<T, D>],
}

impl<'c, T: Real, const D: usize> Moving<'c, T, D> {
    /// The moving colliders of the substep ending at `time` (s), of
    /// length `h` (s), without prepared poses.
    pub(crate) fn new(
        capsules: &'c [Capsule<T, D>],
        boxes: &'c [OrientedBox<T, D>],
        fields: Fields<'c, T, D>,
        time: T,
        h: T,
    ) -> Self {
        Self {
            capsules,
            boxes,
            fields,
            time,
            h,
            prepared: &[],
        }
    }

    /// Field `k` of the moving colliders (its index among capsules,
    /// boxes and fields), if it is a field.
    pub(crate) fn field(&self, k: usize) -> Option<Field<'c, T, D>> {
        let j = k
            .checked_sub(self.capsules.len())?
            .checked_sub(self.boxes.len())?;
        self.fields.get(j)
    }

    /// The number of moving colliders.
    pub(crate) fn len(&self) -> usize {
        self.capsules
            .len()
            .saturating_add(self.boxes.len())
            .saturating_add(self.fields.len())
    }

    /// The substep's poses of the first `out.len()` moving colliders into
    /// `out` (capsules, then boxes): the part of [`separating`] that does
    /// not depend on the particle, computed once per substep instead of
    /// for every contact and every visit (three to five divisions and up
    /// to three rotations each). The same operations on the same values,
    /// so the same bits. Returns the entries written.
    pub(crate) fn prepare<'p>(&self, out: &'p mut [Prepared<T, D>]) -> &'p [Prepared<T, D>] {
        let ta = self.time - self.h;
        let mut count = 0usize;
        for (k, slot) in out.iter_mut().enumerate() {
            let (center, velocity, omega, axes) = if let Some(c) = self.capsules.get(k) {
                let mut axes = [[T::ZERO; D]; D];
                if let Some(a) = axes.first_mut() {
                    *a = c.half_axis;
                }
                (&c.center, &c.velocity, &c.angular_velocity, axes)
            } else if let Some(b) = k
                .checked_sub(self.capsules.len())
                .and_then(|j| self.boxes.get(j))
            {
                (&b.center, &b.velocity, &b.angular_velocity, b.axes)
            } else if let Some(f) = self.field(k) {
                (f.center, f.velocity, f.angular_velocity, *f.axes)
            } else {
                break;
            };
            let a = pose(center, velocity, omega, ta);
            let b = pose(center, velocity, omega, self.time);
            let (ka, kb) = (scale(&a.t), scale(&b.t));
            *slot = Prepared {
                a,
                b,
                ka,
                kb,
                axes: axes.map(|u| rotate_with(&b.t, kb, &u, false)),
            };
            count = k.saturating_add(1);
        }
        out.get(..count).unwrap_or(&[])
    }
}

/// How many moving colliders a step prepares per substep
/// ([`Moving::prepare`], on the stack: 2.9 KiB in f64 on hosts); the
/// others compute their poses per contact. None on bare metal (stack and
/// code size; the same bits).
pub(crate) const PREPARED: usize = if cfg!(target_os = "none") { 0 } else { 16 };

/// A moving collider's substep ([`Moving::prepare`]): its poses at the
/// substep's start and end, their rotations' factors `2/(1 + |t|²)`, and
/// its axes at the end (a capsule: the half axis first; a box: its three).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Prepared<T, const D: usize> {
    a: Pose<T, D>,
    b: Pose<T, D>,
    ka: T,
    kb: T,
    axes: [[T; D]; D],
}

impl<T: Real, const D: usize> Default for Prepared<T, D> {
    fn default() -> Self {
        let pose = Pose {
            center: [T::ZERO; D],
            t: [T::ZERO; 3],
        };
        Self {
            a: pose,
            b: pose,
            ka: T::ZERO,
            kb: T::ZERO,
            axes: [[T::ZERO; D]; D],
        }
    }
}

/// A contact plane of a moving collider: `C = n̂·(x − s) − r`, the
/// particle's start carried by the collider (`x̂`, m) and the collider's
/// friction coefficients.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Separating<T, const D: usize> {
    /// The outward unit normal n̂.
    pub(crate) normal: [T; D],
    /// A point on the surface (m).
    pub(crate) point: [T; D],
    /// The particle's start carried with the collider, `x̂` (m).
    pub(crate) carried: [T; D],
    /// μ_s.
    pub(crate) static_friction: T,
    /// μ_k.
    pub(crate) dynamic_friction: T,
}

/// A collider's pose at one time: its centre and its rotation's `t`.
#[derive(Debug, Clone, Copy)]
struct Pose<T, const D: usize> {
    center: [T; D],
    t: [T; 3],
}

/// The pose at `τ` of a collider starting at `center` with `velocity`
/// and `angular_velocity` (2D: about z only).
#[inline]
fn pose<T: Real, const D: usize>(
    center: &[T; D],
    velocity: &[T; D],
    angular_velocity: &[T; 3],
    tau: T,
) -> Pose<T, D> {
    let half = tau * T::from_f64(0.5);
    let mut t = angular_velocity.map(|w| w * half);
    if D == 2 {
        t[0] = T::ZERO;
        t[1] = T::ZERO;
    }
    let mut c = *center;
    for (ci, vi) in c.iter_mut().zip(velocity) {
        *ci = *ci + *vi * tau;
    }
    Pose { center: c, t }
}

/// `2/(1 + |t|²)`, the factor of `R(t)` (the same for `−t`: the squares
/// of negated values are the same).
#[inline]
fn scale<T: Real>(t: &[T; 3]) -> T {
    (T::ONE + T::ONE) / (T::ONE + dot(t, t))
}

/// `R(t) u` (see the module documentation) with its factor
/// `k = 2/(1 + |t|²)` ([`scale`], computed once per pose); `inverse`
/// applies `R(t)ᵀ` (the rotation of `−t`, the same factor).
#[inline]
fn rotate_with<T: Real, const D: usize>(t: &[T; 3], k: T, u: &[T; D], inverse: bool) -> [T; D] {
    let t = if inverse { t.map(|v| -v) } else { *t };
    let mut u3 = [T::ZERO; 3];
    for (a, b) in u3.iter_mut().zip(u) {
        *a = *b;
    }
    let tu = cross3(&t, &u3);
    let ttu = cross3(&t, &tu);
    let mut out = *u;
    for ((o, a), b) in out.iter_mut().zip(&tu).zip(&ttu) {
        *o = *o + k * (*a + *b);
    }
    out
}

/// The particle's start `prev` carried from pose `a` to pose `b` (their
/// rotations' factors `ka`, `kb`).
#[inline]
fn carry<T: Real, const D: usize>(
    prev: &[T; D],
    (a, ka): (&Pose<T, D>, T),
    (b, kb): (&Pose<T, D>, T),
) -> [T; D] {
    let local = rotate_with(&a.t, ka, &sub(prev, &a.center), true);
    let r = rotate_with(&b.t, kb, &local, false);
    let mut x = b.center;
    for (x, v) in x.iter_mut().zip(&r) {
        *x = *x + *v;
    }
    x
}

/// Whether a capsule's values are usable: finite, radius ≥ 0, friction
/// finite and ≥ 0.
pub(crate) fn capsule_valid<T: Real, const D: usize>(c: &Capsule<T, D>) -> bool {
    let finite = |v: &[T]| v.iter().all(|x| x.is_finite());
    finite(&c.center)
        && finite(&c.half_axis)
        && finite(&c.velocity)
        && finite(&c.angular_velocity)
        && finite_non_negative(c.radius)
        && finite_non_negative(c.static_friction)
        && finite_non_negative(c.dynamic_friction)
}

/// Whether a box's values are usable: finite, extents ≥ 0, friction ≥ 0,
/// axes unit and pairwise orthogonal within 1e-3, the rule of
/// [`OrientedBox::axes`]: `| |a_i| − 1 | ≤ 1e-3` on each axis's length (not
/// its square) and `|a_i · a_j| ≤ 1e-3` for `i ≠ j`.
pub(crate) fn box_valid<T: Real, const D: usize>(b: &OrientedBox<T, D>) -> bool {
    let finite = |v: &[T]| v.iter().all(|x| x.is_finite());
    finite(&b.center)
        && finite(&b.velocity)
        && finite(&b.angular_velocity)
        && b.half_extents.iter().all(|e| finite_non_negative(*e))
        && finite_non_negative(b.static_friction)
        && finite_non_negative(b.dynamic_friction)
        && axes_valid(&b.axes)
}

/// The separating plane of moving collider `k` (capsules first, then
/// boxes) for a particle that started the substep at `prev`, with the
/// radius `r` of the particle and its path's bound: `None` when `k` names
/// no moving collider or the plane is undefined (a box's outside
/// direction too short to normalise). A particle carried onto a capsule's
/// core segment is pushed out along [`off_axis`]. Out of line: one copy per `T` and `D` for every caller
/// (code size; the moving colliders are not the hot path of a cloth).
#[inline(never)]
pub(crate) fn separating<T: Real, const D: usize>(
    m: &Moving<'_, T, D>,
    k: usize,
    prev: &[T; D],
) -> Option<Separating<T, D>> {
    let ta = m.time - m.h;
    // The substep's poses, prepared once or computed here (the same bits).
    let poses = |center, velocity, omega| match m.prepared.get(k) {
        Some(p) => (p.a, p.b, p.ka, p.kb),
        None => {
            let a = pose(center, velocity, omega, ta);
            let b = pose(center, velocity, omega, m.time);
            (a, b, scale(&a.t), scale(&b.t))
        }
    };
    if let Some(c) = m.capsules.get(k) {
        let (a, b, ka, kb) = poses(&c.center, &c.velocity, &c.angular_velocity);
        let carried = carry(prev, (&a, ka), (&b, kb));
        let axis = match m.prepared.get(k).and_then(|p| p.axes.first()) {
            Some(axis) => *axis,
            None => rotate_with(&b.t, kb, &c.half_axis, false),
        };
        let d = sub(&carried, &b.center);
        let aa = dot(&axis, &axis);
        let s = if aa > T::ZERO {
            let s = dot(&d, &axis) / aa;
            if s > T::ONE {
                T::ONE
            } else if s < -T::ONE {
                -T::ONE
            } else {
                s
            }
        } else {
            T::ZERO
        };
        let core = add_scaled(&b.center, &axis, s);
        let normal = match unit_any(&sub(&carried, &core)) {
            Some(n) => n,
            None => off_axis(&axis)?,
        };
        return Some(Separating {
            normal,
            point: add_scaled(&core, &normal, c.radius),
            carried,
            static_friction: c.static_friction,
            dynamic_friction: c.dynamic_friction,
        });
    }
    let Some(bx) = m.boxes.get(k.checked_sub(m.capsules.len())?) else {
        let f = m.field(k)?;
        let (a, b, ka, kb) = poses(f.center, f.velocity, f.angular_velocity);
        let carried = carry(prev, (&a, ka), (&b, kb));
        let axes = match m.prepared.get(k) {
            Some(p) => p.axes,
            None => f.axes.map(|u| rotate_with(&b.t, kb, &u, false)),
        };
        let q = to_local(&carried, &b.center, &axes, f.offset);
        let (s, n) = match f.shape {
            Shape::Heightfield(h) => heightfield_surface(h, m.fields.samples, &q)?,
            Shape::Sdf(g) => sdf_surface(g, m.fields.samples, &q)?,
        };
        let (point, normal) = to_world(&s, &n, &b.center, &axes, f.offset);
        // The turned axes are orthonormal within rounding: renormalised.
        return Some(Separating {
            normal: unit(&normal)?,
            point,
            carried,
            static_friction: f.static_friction,
            dynamic_friction: f.dynamic_friction,
        });
    };
    let (a, b, ka, kb) = poses(&bx.center, &bx.velocity, &bx.angular_velocity);
    let carried = carry(prev, (&a, ka), (&b, kb));
    let d = sub(&carried, &b.center);
    let axes = match m.prepared.get(k) {
        Some(p) => p.axes,
        None => bx.axes.map(|u| rotate_with(&b.t, kb, &u, false)),
    };
    // Local coordinates, the clamped point and the shallowest face.
    let mut outside = [T::ZERO; D];
    let mut out2 = T::ZERO;
    let mut face: Option<(usize, T, T)> = None;
    let mut point = b.center;
    for (k, (u, &e)) in axes.iter().zip(&bx.half_extents).enumerate() {
        let q = dot(&d, u);
        let clamped = if q > e {
            e
        } else if q < -e {
            -e
        } else {
            q
        };
        let o = q - clamped;
        if let Some(v) = outside.get_mut(k) {
            *v = o;
        }
        out2 = out2 + o * o;
        point = add_scaled(&point, u, clamped);
        let depth = e - q.abs();
        let sign = if q < T::ZERO { -T::ONE } else { T::ONE };
        if face.map_or(true, |(_, best, _)| depth < best) {
            face = Some((k, depth, sign));
        }
    }
    let normal = if out2 > T::ZERO {
        // Outside: from the closest point towards the particle.
        let mut n = [T::ZERO; D];
        for (u, o) in axes.iter().zip(&outside) {
            n = add_scaled(&n, u, *o);
        }
        unit(&n)?
    } else {
        // Inside: the nearest face.
        let (k, depth, sign) = face?;
        let u = axes.get(k)?;
        point = add_scaled(&point, u, sign * depth);
        u.map(|v| v * sign)
    };
    Some(Separating {
        normal,
        point,
        carried,
        static_friction: bx.static_friction,
        dynamic_friction: bx.dynamic_friction,
    })
}

/// The direction a particle on a capsule's core segment is pushed out
/// along (no direction from the segment is defined there): the world axis
/// `e_k` least aligned with the capsule's axis `a` (smallest `|a_k|`, the
/// first on ties), made perpendicular to `a`,
/// `n̂ = unit(e_k − (e_k·a / a·a) a)`; `e_0` for a capsule of zero length
/// (a sphere). Deterministic, and a unit vector: `|n|² ≥ 1 − 1/D`.
pub(crate) fn off_axis<T: Real, const D: usize>(axis: &[T; D]) -> Option<[T; D]> {
    let mut k = 0usize;
    let mut least: Option<T> = None;
    for (i, a) in axis.iter().enumerate() {
        if least.map_or(true, |m| a.abs() < m) {
            (k, least) = (i, Some(a.abs()));
        }
    }
    let mut e = [T::ZERO; D];
    *e.get_mut(k)? = T::ONE;
    let aa = dot(axis, axis);
    if aa > T::ZERO {
        let s = dot(&e, axis) / aa;
        e = add_scaled(&e, axis, -s);
    }
    unit(&e)
}

/// Whether a particle predicted at `x` from its start `prev` (radius `r`,
/// m) is certainly too far from moving collider `k` for a contact: then
/// the detection's test (the separating plane's gap within the margin and
/// [`near`] with the carried start) is false, and the plane need not be
/// computed (the detection's cost for the particles far from every
/// collider, most of a cloth).
///
/// Why it holds: the carried start `x̂` is `prev` moved rigidly with the
/// collider, by at most `S = |c_b − c_a| + |ω| h ρ` (`ρ = |prev − c_a|`:
/// the rotation between the two poses turns by at most `|ω| h`). The
/// detection needs the path `x̂ → x` within `B + 2r + 2d` of the centre
/// `c_b` (`B` the bounding radius, `d = |x − x̂| + |x̂ − prev|` the margin's
/// path), and every point of that path is at least `|x − c_b| − |x − x̂|`
/// from it; with `|x − x̂| ≤ |x − prev| + S` and `d ≤ |x − prev| + 2S`:
/// a contact needs `|x − c_b| ≤ B + 2r + 3|x − prev| + 5S`. The test
/// widens that bound for rounding (1 %, and 10⁻⁴ of the largest
/// coordinate); a non-finite value is never far.
#[inline]
pub(crate) fn far<T: Real, const D: usize>(
    m: &Moving<'_, T, D>,
    k: usize,
    x: &[T; D],
    prev: &[T; D],
    r: T,
) -> bool {
    // A collider without a bound (a heightfield) is never far.
    let Some((center, velocity, omega, Some(bound))) = reach_of(m, k) else {
        return false;
    };
    let (a, b) = match m.prepared.get(k) {
        Some(p) => (p.a.center, p.b.center),
        None => (
            pose(center, velocity, omega, m.time - m.h).center,
            pose(center, velocity, omega, m.time).center,
        ),
    };
    let length = |v: &[T; D]| dot(v, v).sqrt();
    let rho = length(&sub(prev, &a));
    let spin = if D == 2 {
        omega.get(2).map_or(T::ZERO, |w| w.abs())
    } else {
        dot(omega, omega).sqrt()
    };
    let shift = length(&sub(&b, &a)) + spin * m.h * rho;
    // Rounding: 1 % of the bound, and 10⁻⁴ of the largest coordinate (the
    // carried start's error is of the coordinates' size, not the
    // distances').
    let largest = [x, prev, &a, &b]
        .iter()
        .flat_map(|v| v.iter())
        .fold(T::ZERO, |m, c| max(m, c.abs()));
    let five = T::from_f64(5.0);
    let limit = (bound + (r + r) + T::from_f64(3.0) * length(&sub(x, prev)) + five * shift)
        * T::from_f64(1.01)
        + largest * T::from_f64(1e-4);
    let d = sub(x, &b);
    dot(&d, &d) > limit * limit
}

/// Moving collider `k`'s centre, velocity and angular velocity at the
/// frame's start, and the radius about its centre that bounds it (`None`:
/// no bound, a heightfield), for [`far`] and [`near`]; `None` when `k` is
/// not a moving collider.
#[inline]
#[allow(clippy::type_complexity)] // the four values [`far`] and [`near`] read
fn reach_of<'m, T: Real, const D: usize>(
    m: &Moving<'m, T, D>,
    k: usize,
) -> Option<(&'m [T; D], &'m [T; D], &'m [T; 3], Option<T>)> {
    if let Some(c) = m.capsules.get(k) {
        let bound = dot(&c.half_axis, &c.half_axis).sqrt() + c.radius;
        return Some((&c.center, &c.velocity, &c.angular_velocity, Some(bound)));
    }
    if let Some(bx) = k.checked_sub(m.capsules.len()).and_then(|j| m.boxes.get(j)) {
        let bound = dot(&bx.half_extents, &bx.half_extents).sqrt();
        return Some((&bx.center, &bx.velocity, &bx.angular_velocity, Some(bound)));
    }
    let f = m.field(k)?;
    Some((f.center, f.velocity, f.angular_velocity, f.bound()))
}

/// Whether the path from `from` to `to` comes within `reach` (m) of moving
/// collider `k`'s bounding sphere at the substep's end (a cheap test that
/// keeps far particles out of the contacts).
#[inline(never)]
pub(crate) fn near<T: Real, const D: usize>(
    m: &Moving<'_, T, D>,
    k: usize,
    from: &[T; D],
    to: &[T; D],
    reach: T,
) -> bool {
    let Some((center, velocity, omega, bound)) = reach_of(m, k) else {
        return false;
    };
    // A collider without a bound (a heightfield) is always near.
    let Some(bound) = bound else {
        return true;
    };
    let center = pose(center, velocity, omega, m.time).center;
    // The closest point of the segment to the centre.
    let seg = sub(to, from);
    let l2 = dot(&seg, &seg);
    let rel = sub(&center, from);
    let s = if l2 > T::ZERO {
        let s = dot(&rel, &seg) / l2;
        max(T::ZERO, if s > T::ONE { T::ONE } else { s })
    } else {
        T::ZERO
    };
    let closest = add_scaled(from, &seg, s);
    let d = sub(&center, &closest);
    let limit = bound + reach;
    dot(&d, &d) <= limit * limit
}
