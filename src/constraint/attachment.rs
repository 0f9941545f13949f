//! Kinematic attachments: a particle held at a point the caller moves,
//! `C = x − p(s)` (one equation per axis), with its force read back.
//!
//! # The constraint
//!
//! A particle `x ∈ ℝ³` (m), inverse mass `w` (1/kg), attached to a point
//! `p` (m) the caller moves each frame (a bone, an anchor on a rigid body),
//! compliance `α` (m/N = s²/kg), substep `h` (s):
//!
//! - `C_d = x_d − p_d` (m) for each axis `d` (three scalar constraints,
//!   zero rest length): the attachment is the PBD attachment of Müller,
//!   Heidelberger, Hennix, Ratcliff 2007 (*Position Based Dynamics*, §4.4)
//!   made compliant with XPBD (Macklin, Müller, Chentanez 2016, eq. 18).
//! - `∇_x C_d = e_d` (unit axis); `W = w`; `α̃ = α / h²` (1/kg).
//! - λ = `(λ_x, λ_y, λ_z)` (kg·m), each free ([`Bound::Free`]): an
//!   attachment pulls and pushes. The three axes are decoupled (each moves
//!   one coordinate), so solving them one after the other is solving them
//!   at once: each axis goes through the one `update` and the attachment
//!   commits its three coordinates together, or nothing.
//! - The impulse on the particle of a substep is `λ / h` (N·s), its force
//!   `λ / h²` (N); the reaction on the body is the opposite. At a
//!   compliant equilibrium `C + α̃λ = 0`, so `x − p = −α λ/h²`: a mass m
//!   hanging on it sags by `α m g`, whatever h and the iteration count.
//!
//! Written per axis, `C` has no degenerate configuration (no direction to
//! normalise): coincidence is `C = 0`, never a NaN. A static particle
//! (`w = 0`) is skipped and counted with the static ones.
//!
//! # Moving targets
//!
//! The caller writes `target` before a frame; [`step`](crate::step::step)
//! moves the point from `previous` to `target` over the frame's `S`
//! substeps, `p(s) = target + (previous − target)·(S − 1 − s)/S` in
//! substep `s` (exactly `target` in the last one), so a fast attachment
//! neither lags a frame behind nor jumps through the rope in one substep.
//! The step sums the substeps' impulses `λ / h` in `impulse` (N·s) and,
//! after a successful frame of length `dt`, writes the frame's mean force
//! `force = impulse / dt` (N) and `previous ← target`: the engine applies
//! `−impulse` (or `−force` over the frame) to the attached body. The mean,
//! not the last substep's `λ / h²`: the point moves on a straight line
//! within a frame, so a target on a curve turns the rope at frame
//! boundaries, and only the frame's whole impulse carries the centripetal
//! part. Outside a step (a [`System`](crate::System)'s own substeps) the
//! point is `target` and neither `impulse` nor `force` is written.

use super::distance::index;
use super::lagged::{between, Lagged, Motion, Planned};
use super::{visit, Bound, Constraint, Evaluated, Evaluation, Fault, Invalid, Outcome, Visit};
use crate::math::max;
use crate::real::Real;

/// One kinematic attachment: particle `particle` held at a point moving
/// from `previous` to `target` over a frame, with its accumulated
/// multipliers λ and its last force.
///
/// `#[repr(C)]`: this struct *is* the C type `XpbdAttachment`
/// (`Attachment<f64>`) and `XpbdAttachmentF32` (`Attachment<f32>`).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Attachment<T> {
    /// The particle held (index).
    pub particle: u32,
    /// The point at the start of the frame (m), finite; the step sets it
    /// to `target` after each successful frame.
    pub previous: [T; 3],
    /// The point at the end of the frame (m), finite; the caller's to set.
    pub target: [T; 3],
    /// Compliance α (m/N = s²/kg), finite and ≥ 0; 0 is rigid.
    pub compliance: T,
    /// Accumulated multipliers λ (kg·m) of the current substep, per axis.
    pub lambda: [T; 3],
    /// The impulse on the particle over the current or last frame,
    /// `Σ λ / h` over its substeps (N·s): the step's working sum (reset at
    /// a frame's start, also written by a step that fails).
    pub impulse: [T; 3],
    /// The mean force on the particle over the last successful frame,
    /// `impulse / dt` (N, finite), written by the step only after a
    /// successful frame (a force beyond the float range fails the step,
    /// naming the particle); the reaction on the attached body is
    /// `−force`.
    pub force: [T; 3],
}

impl<T: Real> Attachment<T> {
    /// An attachment of `particle` at `at` (m): `previous = target = at`,
    /// λ and the force 0.
    #[must_use]
    pub fn new(particle: u32, at: [T; 3], compliance: T) -> Self {
        Self {
            particle,
            previous: at,
            target: at,
            compliance,
            lambda: [T::ZERO; 3],
            impulse: [T::ZERO; 3],
            force: [T::ZERO; 3],
        }
    }

    /// Checks this attachment's own parameters: the index below the
    /// particle count, `previous` and `target` finite, compliance finite
    /// and ≥ 0, `α/h²` finite. The caller adds the index.
    pub(crate) fn check(&self, w: &[T], h2: T) -> Result<(), Invalid> {
        super::check_particles(&[self.particle], w)?;
        let finite = |p: &[T; 3]| p.iter().all(|c| c.is_finite());
        if !finite(&self.previous) || !finite(&self.target) {
            return Err(Invalid::RestValue);
        }
        super::check_compliance(self.compliance, h2)
    }

    /// The point of a substep (m): `target + (previous − target)·lag`,
    /// exactly `target` for `lag = 0`.
    #[inline]
    pub(crate) fn point(&self, lag: T) -> [T; 3] {
        between(&self.previous, &self.target, lag)
    }

    /// The start of a frame: `impulse ← 0`.
    #[inline]
    pub(crate) fn begin_frame(&mut self) {
        self.impulse = [T::ZERO; 3];
    }

    /// The end of a substep of length `h` (s): `impulse += λ / h`.
    #[inline]
    pub(crate) fn end_substep(&mut self, h: T) {
        for (i, l) in self.impulse.iter_mut().zip(&self.lambda) {
            *i = *i + *l / h;
        }
    }

    /// The particle whose frame force `impulse / dt` would not be finite
    /// on some axis (a very heavy particle held far from the point in a
    /// short frame), `None` when [`Attachment::end_frame`] writes a finite
    /// force.
    #[inline]
    pub(crate) fn unrepresentable_force(&self, dt: T) -> Option<usize> {
        let finite = self.impulse.iter().all(|i| (*i / dt).is_finite());
        (!finite).then(|| index(self.particle))
    }

    /// The end of a successful frame of length `dt` (s):
    /// `force ← impulse / dt`, `previous ← target`.
    #[inline]
    pub(crate) fn end_frame(&mut self, dt: T) {
        self.force = self.impulse.map(|i| i / dt);
        self.previous = self.target;
    }
}

/// One axis of an attachment as a scalar constraint (the one update's
/// unit of work).
struct Axis<T> {
    particle: u32,
    compliance: T,
    lambda: T,
    d: usize,
    point: T,
}

impl<T: Real, const D: usize> Constraint<T, D, 1> for Axis<T> {
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
        Bound::Free
    }

    #[inline(always)]
    fn alpha(&self, _: &(), h2: T) -> T {
        self.compliance / h2
    }

    #[inline(always)]
    fn evaluate(&self, x: &[[T; D]], w: &[T], _: &()) -> Evaluation<T, D, 1> {
        let p = index(self.particle);
        let (Some(&xp), Some(&wp)) = (x.get(p), w.get(p)) else {
            return Evaluation::OutOfRange;
        };
        if wp == T::ZERO {
            return Evaluation::Static;
        }
        if !xp.iter().all(|v| v.is_finite()) {
            return Evaluation::NonFinitePosition(p);
        }
        let mut gradient = [T::ZERO; D];
        let mut c = T::ZERO;
        if let (Some(g), Some(&xd)) = (gradient.get_mut(self.d), xp.get(self.d)) {
            *g = T::ONE;
            c = xd - self.point;
        }
        Evaluation::Active(Evaluated {
            particles: [p],
            x: [xp],
            w: [wp],
            gradient: [gradient],
            c,
            weight: wp,
        })
    }
}

impl<T: Real> Lagged<T> for Attachment<T> {
    type Lambda = [T; 3];

    #[inline(always)]
    fn particle(&self) -> u32 {
        self.particle
    }

    #[inline(always)]
    fn with_particle(self, particle: u32) -> Self {
        Self { particle, ..self }
    }

    #[inline(always)]
    fn lambda(&self) -> [T; 3] {
        self.lambda
    }

    #[inline(always)]
    fn lambda_slot(&mut self) -> &mut [T; 3] {
        &mut self.lambda
    }

    fn check(&self, w: &[T], h2: T) -> Result<(), Invalid> {
        Attachment::check(self, w, h2)
    }

    /// Visits the three axes at `positions` with the point of `at.lag`:
    /// each through the one update, against the same positions (an axis
    /// moves only its own coordinate). Writes nothing.
    #[inline]
    fn visit<const D: usize>(
        &self,
        positions: &[[T; D]],
        inverse_masses: &[T],
        at: Motion<T>,
        h2: T,
    ) -> Result<Planned<T, D, [T; 3]>, Fault> {
        visit_attachment(self, positions, inverse_masses, at.lag, h2)
    }
}

/// [`Lagged::visit`] of an attachment at the point of `lag`.
#[inline]
fn visit_attachment<T: Real, const D: usize>(
    item: &Attachment<T>,
    positions: &[[T; D]],
    inverse_masses: &[T],
    lag: T,
    h2: T,
) -> Result<Planned<T, D, [T; 3]>, Fault> {
    let point = item.point(lag);
    let mut next: Option<(usize, [T; D])> = None;
    let mut lambda = item.lambda;
    let (mut c_abs, mut residual) = (T::ZERO, T::ZERO);
    for (d, (&pd, ld)) in point.iter().zip(lambda.iter_mut()).take(D).enumerate() {
        let axis = Axis {
            particle: item.particle,
            compliance: item.compliance,
            lambda: *ld,
            d,
            point: pd,
        };
        match visit(&axis, positions, inverse_masses, &(), h2)? {
            Visit::Static => return Ok((Outcome::Static, None)),
            Visit::Degenerate => return Ok((Outcome::Degenerate, None)),
            Visit::Idle => {}
            Visit::Apply {
                particles: [p],
                x: [x],
                lambda: l,
                c_abs: c,
                residual: r,
            } => {
                let (_, to) = next.get_or_insert((p, positions.get(p).copied().unwrap_or(x)));
                if let (Some(t), Some(&v)) = (to.get_mut(d), x.get(d)) {
                    *t = v;
                }
                *ld = l;
                c_abs = max(c_abs, c);
                residual = max(residual, r);
            }
        }
    }
    let outcome = Outcome::Applied { c_abs, residual };
    Ok((outcome, next.map(|(p, x)| (p, x, lambda))))
}
