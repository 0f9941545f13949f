//! Local-space simulation with inertia scaling: the world's particles
//! live in a moving frame (a character's root), and the frame's motion
//! reaches them only as much as the inertia scales say.
//!
//! # The frame and its motion
//!
//! The engine passes the root transform `T = (q, c)` (a unit quaternion
//! `q = [x, y, z, w]` and a translation `c`, m: world = `R(q)·local + c`)
//! at the frame's start (`previous`) and end (`target`). Substep `s` of
//! `S` runs from `T_s` to `T_{s+1}`, `T_k` interpolated at `k/S`: the
//! translation linearly (exactly `target` at `k = S`), the rotation by
//! normalised linear interpolation (nlerp, on the short arc).
//!
//! Positions, velocities, colliders, attachment and skinned targets are
//! all local (the frame's coordinates); gravity and the wind are world
//! vectors, turned into the frame at each substep
//! (`g_local = R_{s+1}ᵀ g`).
//!
//! # Inertia (discrete, exact at scale 1)
//!
//! The frame's motion over substep `s`, seen from the frame at its end,
//! maps a point `x` fixed in the world to `M(x) = ΔR x + Δc` with
//! `ΔR = R_{s+1}ᵀ R_s` and `Δc = R_{s+1}ᵀ (c_s − c_{s+1})`. Before the
//! prediction every particle with `w > 0` is carried by the scaled
//! motion `M'`:
//!
//! ```text
//! x ← M'(x) = ΔR' x + Δc',   v ← ΔR' v
//! ΔR' = nlerp(1, ΔR, a)      (angular inertia a ∈ [0, 1])
//! Δc' = l Δc                 (linear inertia l ∈ [0, 1])
//! ```
//!
//! then the prediction (`x_prev ← x`, `x ← x + h v + h² g_local`), the
//! constraints, and the velocity update `v ← (x − x_prev)/h` run as in
//! world space. At `l = a = 1` this is the world-space substep written in
//! the moving frame (`x_world = R x + c`): the same positions up to
//! rounding, whatever the motion; the frame's acceleration, its rotation
//! and the centrifugal, Coriolis and Euler effects all come from carrying
//! `x` and `v`. At `l = a = 0`, `M'` is the identity (not computed): the
//! cloth moves rigidly with the root and feels only gravity (turned into
//! the frame) and its own forces, so a root that translates or turns
//! about the gravity axis changes nothing in the frame, bit for bit.
//! In between, a root moving at a constant velocity adds nothing (the
//! stored velocity absorbs it) and a change of the root's velocity
//! reaches the cloth scaled by `l` (NvCloth's "portion of local frame
//! linear acceleration applied to particles"; `a` likewise for the
//! rotation).
//!
//! # Clamps (for cut-scenes)
//!
//! The velocity the frame's motion adds in a substep is the carry seen
//! as a velocity: linear `u = −Δc'/h` (m/s) and angular
//! `ω = −2 vec(ΔR')/h` (rad/s, `ΔR'` with `w ≥ 0`: `2 sin(θ/2)/h` about
//! the axis, within `θ²/24` of `θ/h`, 2e-5 relative at 0.02 rad per
//! substep). Its acceleration is the change of `u` and `ω` from one
//! substep to the next, over `h`. The clamps, each `+∞` (off) by
//! default, in this order:
//!
//! ```text
//! u ← u₋ + (u − u₋) min(1, A h / |u − u₋|)     (max_linear_acceleration A)
//! u ← u min(1, V / |u|)                       (max_linear_velocity V)
//! ```
//!
//! and the same for `ω` (`max_angular_acceleration`,
//! `max_angular_velocity`; `ΔR'` rebuilt as `[−ω h/2, sqrt(1 − |ω h/2|²)]`).
//! `u₋`, `ω₋` are the previous substep's, the frame's first substep taking
//! them from the block (`linear_velocity`, `angular_velocity`, world
//! axes, written after every successful frame; 0 after a teleport and at
//! inertia 0, where the frame adds nothing). The velocity clamp is a
//! projection onto a ball about 0, so it keeps the acceleration bound.
//!
//! A teleport (`teleport` nonzero for one frame) moves the cloth with the
//! root: the jump happens at the frame's start (gravity and the wind are
//! turned by `target` in every substep) and `M'` is the identity, so the
//! local shape and the local velocities are what they were, whatever the
//! jump. After a
//! successful frame the step sets `previous ← target` and
//! `teleport ← false`; a failed frame writes neither.
//!
//! References: NVIDIA NvCloth, `Cloth::setTranslation`, `setRotation`,
//! `setLinearInertia`, `setAngularInertia`, `setCentrifugalInertia`,
//! `teleport`; Unreal Chaos Cloth, "Linear/Angular Velocity Scale",
//! "Fictitious Angular Scale", "Max Velocity" and teleport / reset.

use super::StepError;
use crate::error::Field;
use crate::math::{add3, cross, dot3, scale3, sub3, xyz};
use crate::real::Real;

/// A rigid transform: a unit quaternion and a translation
/// (world = `R(rotation)·local + translation`).
///
/// `#[repr(C)]`: `Transform<f64>` is the C type `XpbdTransform`,
/// `Transform<f32>` is `XpbdTransformF32`.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Transform<T> {
    /// The rotation, a unit quaternion `[x, y, z, w]` (norm within 1e-3
    /// of 1; normalised before use).
    pub rotation: [T; 4],
    /// The translation (m).
    pub translation: [T; 3],
}

impl<T: Real> Transform<T> {
    /// The identity transform.
    #[must_use]
    pub fn identity() -> Self {
        Self {
            rotation: [T::ZERO, T::ZERO, T::ZERO, T::ONE],
            translation: [T::ZERO; 3],
        }
    }

    /// Whether the rotation and translation are finite and the rotation's
    /// norm is within 1e-3 of 1.
    fn valid(&self) -> bool {
        let finite = self
            .rotation
            .iter()
            .chain(&self.translation)
            .all(|c| c.is_finite());
        let n2 = quat_dot(&self.rotation, &self.rotation);
        let tolerance = T::from_f64(2e-3);
        finite && (n2 - T::ONE).abs() <= tolerance
    }
}

/// The local-space block of a 3D world ([`World::local_space`](super::World::local_space)):
/// the root transform at the frame's start and end, the inertia scales,
/// the clamps and the teleport flag (the module documentation of
/// `src/step/local_space.rs` and `docs/character-cloth.md` have the
/// model).
///
/// `#[repr(C)]`: `LocalSpace<f64>` is the C type `XpbdLocalSpace`,
/// `LocalSpace<f32>` is `XpbdLocalSpaceF32`.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LocalSpace<T> {
    /// The root at the frame's start (set to `target` after a successful
    /// frame).
    pub previous: Transform<T>,
    /// The root at the frame's end.
    pub target: Transform<T>,
    /// How much of the root's linear motion the cloth feels, in [0, 1]
    /// (0: it moves rigidly with the root; 1: world space).
    pub linear_inertia: T,
    /// How much of the root's rotation the cloth feels, in [0, 1]
    /// (centrifugal, Coriolis and Euler effects included).
    pub angular_inertia: T,
    /// Most linear velocity the frame's motion may add (m/s, ≥ 0; `+∞`:
    /// no clamp).
    pub max_linear_velocity: T,
    /// Most angular velocity the frame's motion may add (rad/s, ≥ 0;
    /// `+∞`: no clamp).
    pub max_angular_velocity: T,
    /// Most linear acceleration the frame's motion may add (m/s², ≥ 0;
    /// `+∞`: no clamp).
    pub max_linear_acceleration: T,
    /// Most angular acceleration the frame's motion may add (rad/s², ≥ 0;
    /// `+∞`: no clamp).
    pub max_angular_acceleration: T,
    /// The linear velocity the frame's motion added in the last substep of
    /// the last successful frame (m/s, world axes; finite): the
    /// acceleration clamp's reference. Written by the step; 0 to start.
    pub linear_velocity: [T; 3],
    /// The angular velocity the frame's motion added in that substep
    /// (rad/s, world axes; finite), as `linear_velocity`.
    pub angular_velocity: [T; 3],
    /// Nonzero: this frame is a teleport (the cloth moves with the root,
    /// unchanged in the frame); set to 0 after a successful frame.
    pub teleport: u32,
}

impl<T: Real> LocalSpace<T> {
    /// A root at `root` (start and end), full inertia (world-space
    /// behaviour), no clamps, no teleport.
    #[must_use]
    pub fn new(root: Transform<T>) -> Self {
        Self {
            previous: root,
            target: root,
            linear_inertia: T::ONE,
            angular_inertia: T::ONE,
            max_linear_velocity: T::from_f64(f64::INFINITY),
            max_angular_velocity: T::from_f64(f64::INFINITY),
            max_linear_acceleration: T::from_f64(f64::INFINITY),
            max_angular_acceleration: T::from_f64(f64::INFINITY),
            linear_velocity: [T::ZERO; 3],
            angular_velocity: [T::ZERO; 3],
            teleport: 0,
        }
    }

    /// Checks the block ([`StepError::InvalidLocalSpace`] names the value).
    pub(crate) fn check(&self) -> Result<(), StepError> {
        let bad = |field| Err(StepError::InvalidLocalSpace { field });
        if !self.previous.valid() || !self.target.valid() {
            return bad(Field::RootTransform);
        }
        let unit = |s: T| s.is_finite() && s >= T::ZERO && s <= T::ONE;
        if !unit(self.linear_inertia) || !unit(self.angular_inertia) {
            return bad(Field::InertiaScale);
        }
        // +∞ is off; NaN and negative values are not.
        let limit = |s: T| s >= T::ZERO;
        if !limit(self.max_linear_velocity) || !limit(self.max_angular_velocity) {
            return bad(Field::FrameVelocityLimit);
        }
        if !limit(self.max_linear_acceleration) || !limit(self.max_angular_acceleration) {
            return bad(Field::FrameAccelerationLimit);
        }
        let state = self.linear_velocity.iter().chain(&self.angular_velocity);
        if !state.into_iter().all(|c| c.is_finite()) {
            return bad(Field::FrameVelocity);
        }
        Ok(())
    }

    /// The velocities the frame's motion added last (the clamps'
    /// reference at the frame's start).
    pub(crate) fn added(&self) -> Added<T> {
        Added {
            linear: self.linear_velocity,
            angular: self.angular_velocity,
        }
    }

    /// After a successful frame: `previous ← target`, the last substep's
    /// added velocities (`added`, from [`frame_added`](Self::frame_added)
    /// before the frame), no teleport.
    pub(crate) fn end_frame(&mut self, added: Added<T>) {
        self.linear_velocity = added.linear;
        self.angular_velocity = added.angular;
        self.previous = self.target;
        self.teleport = 0;
    }

    /// The last substep's added velocities of a frame of `substeps`
    /// substeps of `h` seconds (the frame's carries, a few operations
    /// each; what [`end_frame`](Self::end_frame) writes), computed before
    /// the frame: they depend on the block alone. Not finite (a root
    /// motion too large for `T`: a finite jump whose velocity overflows),
    /// the frame fails before anything is written, instead of leaving a
    /// block the next frame refuses.
    pub(crate) fn frame_added(&self, substeps: u32, h: T) -> Result<Added<T>, StepError> {
        let mut a = self.added();
        for s in 0..substeps {
            self.substep(s, substeps, h, &mut a);
        }
        if a.linear.iter().chain(&a.angular).all(|c| c.is_finite()) {
            Ok(a)
        } else {
            Err(StepError::InvalidLocalSpace {
                field: Field::RootTransform,
            })
        }
    }

    /// The root's rotation at the boundary `k` of `substeps` (the
    /// frame's start at 0; unit).
    fn rotation_at(&self, k: u32, substeps: u32) -> [T; 4] {
        let a = normalized(&self.previous.rotation);
        let mut b = normalized(&self.target.rotation);
        if quat_dot(&a, &b) < T::ZERO {
            b = b.map(|c| T::ZERO - c);
        }
        if k >= substeps {
            return b;
        }
        let f = T::from_f64(f64::from(k)) / T::from_f64(f64::from(substeps));
        nlerp(&a, &b, f)
    }

    /// The root's translation at the boundary `k` (m): exactly `target`
    /// at `k = substeps`.
    fn translation_at(&self, k: u32, substeps: u32) -> [T; 3] {
        let (p, t) = (self.previous.translation, self.target.translation);
        let left =
            T::from_f64(f64::from(substeps.saturating_sub(k))) / T::from_f64(f64::from(substeps));
        add3(&t, &scale3(&sub3(&p, &t), left))
    }

    /// The substep's motion: the scaled carry `M'` (`None`: the identity)
    /// and the root's rotation at the substep's end (for gravity and the
    /// wind). `added` holds the velocities the previous substep's carry
    /// added (world axes) and is set to this one's.
    pub(crate) fn substep(&self, s: u32, substeps: u32, h: T, added: &mut Added<T>) -> Substep<T> {
        let end = s.saturating_add(1);
        // A teleport jumps at the frame's start: the root is `target`
        // for all its substeps.
        let q1 = if self.teleport != 0 {
            self.rotation_at(substeps, substeps)
        } else {
            self.rotation_at(end, substeps)
        };
        let identity = self.teleport != 0
            || (self.linear_inertia == T::ZERO && self.angular_inertia == T::ZERO);
        if identity {
            *added = Added::default();
            return Substep {
                carry: None,
                root: q1,
            };
        }
        let q0 = self.rotation_at(s, substeps);
        let (c0, c1) = (
            self.translation_at(s, substeps),
            self.translation_at(end, substeps),
        );
        // ΔR = R1ᵀ R0, Δc = R1ᵀ (c0 − c1).
        let mut dq = quat_mul(&conjugate(&q1), &q0);
        if dq[3] < T::ZERO {
            dq = dq.map(|c| T::ZERO - c);
        }
        let dc = rotate(&conjugate(&q1), &sub3(&c0, &c1));
        let one = [T::ZERO, T::ZERO, T::ZERO, T::ONE];
        let mut q = if self.angular_inertia == T::ONE {
            dq
        } else {
            nlerp(&one, &dq, self.angular_inertia)
        };
        let mut c = scale3(&dc, self.linear_inertia);
        // The clamps (module documentation), in the frame at the
        // substep's end; the previous added velocities turned into it.
        // An infinite clamp (off, the default) limits nothing and is not
        // computed.
        let back = conjugate(&q1);
        let two = T::ONE + T::ONE;
        let accelerations = [self.max_linear_acceleration, self.max_angular_acceleration];
        let [linear_step, angular_step] = accelerations.map(|a| a * h);
        if linear_step.is_finite() {
            let u = scale3(&c, T::ZERO - T::ONE / h);
            let clamped = toward(&rotate(&back, &added.linear), &u, linear_step);
            c = scale3(&clamped, T::ZERO - h);
        }
        let reach = self.max_linear_velocity * h;
        if reach.is_finite() {
            let length = dot3(&c, &c).sqrt();
            if length > reach {
                c = scale3(&c, reach / length);
            }
        }
        let [qx, qy, qz, _] = q;
        let omega = scale3(&[qx, qy, qz], (T::ZERO - two) / h);
        let mut turned = omega;
        if angular_step.is_finite() {
            turned = toward(&rotate(&back, &added.angular), &turned, angular_step);
        }
        let spin = self.max_angular_velocity;
        if spin.is_finite() {
            turned = toward(&[T::ZERO; 3], &turned, spin);
        }
        if turned != omega {
            let [x, y, z] = scale3(&turned, (T::ZERO - h) / two);
            let n2 = x * x + y * y + z * z;
            q = if n2 <= T::ONE {
                [x, y, z, (T::ONE - n2).sqrt()]
            } else {
                let n = n2.sqrt();
                [x / n, y / n, z / n, T::ZERO]
            };
        }
        // The added velocities, back in world axes (`R1`).
        let [qx, qy, qz, _] = q;
        *added = Added {
            linear: rotate(&q1, &scale3(&c, T::ZERO - T::ONE / h)),
            angular: rotate(&q1, &scale3(&[qx, qy, qz], (T::ZERO - two) / h)),
        };
        Substep {
            carry: Some((q, c)),
            root: q1,
        }
    }
}

/// The velocities a substep's carry added (world axes): the linear (m/s)
/// and the angular (rad/s), the clamps' reference for the next substep.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Added<T> {
    linear: [T; 3],
    angular: [T; 3],
}

/// `from + (to − from) min(1, step / |to − from|)`: `to`, or the point
/// `step` from `from` on the way to it.
fn toward<T: Real>(from: &[T; 3], to: &[T; 3], step: T) -> [T; 3] {
    let d = sub3(to, from);
    let length = dot3(&d, &d).sqrt();
    if length > step {
        add3(from, &scale3(&d, step / length))
    } else {
        *to
    }
}

/// One substep of a local-space frame.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Substep<T> {
    /// The scaled motion `(ΔR', Δc')`; `None`: the identity.
    carry: Option<([T; 4], [T; 3])>,
    /// The root's rotation at the substep's end.
    root: [T; 4],
}

impl<T: Real> Substep<T> {
    /// A world vector (gravity, wind) in the frame at the substep's end.
    pub(crate) fn in_frame<const D: usize>(&self, v: &[T; D]) -> [T; D] {
        let mut out = *v;
        let local = rotate(&conjugate(&self.root), &xyz(v));
        for (o, l) in out.iter_mut().zip(local) {
            *o = l;
        }
        out
    }

    /// Carries every particle with `w > 0`: `x ← ΔR' x + Δc'`,
    /// `v ← ΔR' v`.
    pub(crate) fn carry<const D: usize>(
        &self,
        positions: &mut [[T; D]],
        velocities: &mut [[T; D]],
        inverse_masses: &[T],
    ) {
        let Some(motion) = self.motion() else {
            return;
        };
        for ((x, v), &w) in positions
            .iter_mut()
            .zip(velocities.iter_mut())
            .zip(inverse_masses)
        {
            if w <= T::ZERO {
                continue;
            }
            let (nx, nv) = motion.carry(&xyz(x), &xyz(v));
            for (a, b) in x.iter_mut().zip(nx) {
                *a = b;
            }
            for (a, b) in v.iter_mut().zip(nv) {
                *a = b;
            }
        }
    }

    /// The substep's scaled motion, `None` for the identity (nothing
    /// to carry).
    pub(crate) fn motion(&self) -> Option<Carry<T>> {
        self.carry.map(|(q, c)| Carry { q, c })
    }
}

/// A substep's scaled motion `(ΔR', Δc')`, for the frames that carry
/// their particles themselves (the SoA frame's coordinate arrays).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Carry<T> {
    q: [T; 4],
    c: [T; 3],
}

impl<T: Real> Carry<T> {
    /// One particle carried: `(ΔR' x + Δc', ΔR' v)`.
    #[inline(always)]
    pub(crate) fn carry(&self, x: &[T; 3], v: &[T; 3]) -> ([T; 3], [T; 3]) {
        (add3(&rotate(&self.q, x), &self.c), rotate(&self.q, v))
    }
}

/// `a · b` over four components.
fn quat_dot<T: Real>(a: &[T; 4], b: &[T; 4]) -> T {
    let ([ax, ay, az, aw], [bx, by, bz, bw]) = (*a, *b);
    ax * bx + ay * by + az * bz + aw * bw
}

/// `q / |q|` (the caller checked `|q|` near 1).
fn normalized<T: Real>(q: &[T; 4]) -> [T; 4] {
    let n = quat_dot(q, q).sqrt();
    q.map(|c| c / n)
}

/// `normalize(a + (b − a) f)` (a and b on the same hemisphere).
fn nlerp<T: Real>(a: &[T; 4], b: &[T; 4], f: T) -> [T; 4] {
    let mut q = *a;
    for (qc, (ac, bc)) in q.iter_mut().zip(a.iter().zip(b)) {
        *qc = *ac + (*bc - *ac) * f;
    }
    normalized(&q)
}

/// The conjugate (the inverse of a unit quaternion).
fn conjugate<T: Real>(q: &[T; 4]) -> [T; 4] {
    let [x, y, z, w] = *q;
    [T::ZERO - x, T::ZERO - y, T::ZERO - z, w]
}

/// The Hamilton product `a ⊗ b` (b's rotation first).
fn quat_mul<T: Real>(a: &[T; 4], b: &[T; 4]) -> [T; 4] {
    let ([ax, ay, az, aw], [bx, by, bz, bw]) = (*a, *b);
    [
        aw * bx + ax * bw + ay * bz - az * by,
        aw * by - ax * bz + ay * bw + az * bx,
        aw * bz + ax * by - ay * bx + az * bw,
        aw * bw - ax * bx - ay * by - az * bz,
    ]
}

/// `R(q) v` for a unit quaternion: `v + 2w (u × v) + 2 u × (u × v)`.
fn rotate<T: Real>(q: &[T; 4], v: &[T; 3]) -> [T; 3] {
    let [x, y, z, w] = *q;
    let u = [x, y, z];
    let t = scale3(&cross(&u, v), T::ONE + T::ONE);
    add3(&add3(v, &scale3(&t, w)), &cross(&u, &t))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)] // a test fails by panicking
mod tests {
    use super::*;

    #[test]
    fn rotation_and_product_agree() {
        // 90° about z.
        let h = 0.5f64.sqrt();
        let q = [0.0, 0.0, h, h];
        let v = rotate(&q, &[1.0, 0.0, 0.0]);
        assert!((v[0]).abs() < 1e-15 && (v[1] - 1.0).abs() < 1e-15, "{v:?}");
        let qq = quat_mul(&q, &q);
        let w = rotate(&qq, &[1.0, 0.0, 0.0]);
        assert!((w[0] + 1.0).abs() < 1e-15 && w[1].abs() < 1e-15, "{w:?}");
        let back = rotate(&conjugate(&q), &v);
        assert!((back[0] - 1.0).abs() < 1e-15 && back[1].abs() < 1e-15);
    }
}
