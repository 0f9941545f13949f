//! Skinned constraints (character cloth, issue 35): a particle kept within
//! a max distance of its animated (skinned) position, and outside a
//! backstop sphere behind it.
//!
//! # The constraints
//!
//! Per frame the engine writes each constrained particle's skinned
//! position `target` (m) and, for a backstop, the skinned surface normal
//! `target_normal` (any length, not 0); a step moves both from `previous`
//! and `previous_normal` over its substeps as attachment points move
//! (`p(s)`, `n(s)` normalised: see `constraint::lagged`). Particle
//! `x` (m), inverse mass `w` (1/kg), substep `h` (s):
//!
//! - **Max distance** (NvCloth's motion constraints, Chaos's and Jolt's
//!   max distance): `C = |x − p| − R·k ≤ 0` with `R = max_distance` (m)
//!   and `k` the frame's global scale
//!   ([`StepConfig::max_distance_scale`](crate::step::StepConfig::max_distance_scale));
//!   `∇C = (x − p)/|x − p|` (any unit vector, the normal or `e_x`, when
//!   `x = p`); λ ≤ 0 ([`Bound::NonPositive`]): it only pulls. `R = 0`
//!   pins the particle to the skin; `R = +∞` turns it off.
//! - **Backstop** (Chaos's backstop, NvCloth's separation constraint,
//!   Jolt's back stop sphere): a sphere of radius `r = backstop_radius`
//!   (m) centred `c = p − n̂·(d + r)`, `d = backstop_distance` (m) behind
//!   the skinned position along the unit normal `n̂`; the particle stays
//!   outside it: `C = |x − c| − r ≥ 0`, `∇C = (x − c)/|x − c|` (`n̂` when
//!   `x = c`); λ ≥ 0 ([`Bound::NonNegative`]): it only pushes. `r = 0`
//!   turns it off.
//! - Each has its own compliance (`compliance`, `backstop_compliance`,
//!   m/N = s²/kg), `α̃ = α/h²` (1/kg), and its own λ (kg·m) in `lambda`
//!   (max distance, backstop), reset at each substep's entry and kept
//!   across its iterations like every kind's (Macklin, Müller, Chentanez
//!   2016, *XPBD*, eq. 18; `W = w`): stiffness does not depend on the
//!   iteration count. At a compliant equilibrium `C + α̃λ = 0`.
//!
//! Within one visit the max distance is solved first, then the backstop
//! at the corrected position (a particle between both at once, with
//! overlapping limits, ends where the backstop puts it); the particle and
//! both λ are committed together, or nothing. A static particle (`w = 0`)
//! is skipped and counted with the static ones.
//!
//! Only the particles that have skinned data take an instance: the list
//! may be partial (a cape's top rows), each particle at most once is the
//! usual use (twice is allowed: solved in order).

pub(crate) mod lanes;

use super::distance::index;
use super::lagged::{between, Lagged, Motion, Planned};
use super::lanes::{Widen, LANES};
use super::{visit, Bound, Constraint, Evaluated, Evaluation, Fault, Invalid, Outcome, Visit};
use crate::math::{max, unit_any};
use crate::real::Real;

/// One skinned constraint: particle `particle` within `max_distance` of
/// its skinned position and outside its backstop sphere, both points
/// moving from `previous` to `target` over a frame.
///
/// `#[repr(C)]`: this struct *is* the C type `XpbdSkinConstraint`
/// (`SkinConstraint<f64>`) and `XpbdSkinConstraintF32`
/// (`SkinConstraint<f32>`).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct SkinConstraint<T> {
    /// The particle constrained (index).
    pub particle: u32,
    /// The skinned position at the start of the frame (m), finite; the
    /// step sets it to `target` after each successful frame.
    pub previous: [T; 3],
    /// The skinned position at the end of the frame (m), finite; the
    /// caller's to set.
    pub target: [T; 3],
    /// The skinned normal at the start of the frame (any length),
    /// finite, not 0 when `backstop_radius > 0`; the step sets it to
    /// `target_normal` after each successful frame.
    pub previous_normal: [T; 3],
    /// The skinned normal at the end of the frame (any length), finite,
    /// not 0 when `backstop_radius > 0`; the caller's to set.
    pub target_normal: [T; 3],
    /// The max distance `R` from the skinned position (m), ≥ 0; `+∞`
    /// (the default of `SkinConstraint::new` and
    /// `xpbd_skin_constraint_default`) turns it off; 0 pins the particle
    /// to the skin (a zeroed struct's value).
    pub max_distance: T,
    /// The backstop distance `d` (m), finite: the backstop sphere's
    /// surface is `d` behind the skinned position along the normal
    /// (negative: in front of it).
    pub backstop_distance: T,
    /// The backstop sphere's radius `r` (m), finite and ≥ 0; 0 turns the
    /// backstop off.
    pub backstop_radius: T,
    /// The max distance's compliance α (m/N = s²/kg), finite and ≥ 0; 0
    /// is rigid.
    pub compliance: T,
    /// The backstop's compliance α (m/N = s²/kg), finite and ≥ 0; 0 is
    /// rigid.
    pub backstop_compliance: T,
    /// Accumulated multipliers λ (kg·m) of the current substep: the max
    /// distance's (≤ 0), the backstop's (≥ 0).
    pub lambda: [T; 2],
}

impl<T: Real> SkinConstraint<T> {
    /// A skinned constraint of `particle` at skinned position `at` (m)
    /// with normal `normal`: no max distance (`+∞`), no backstop, rigid,
    /// λ 0. Set `max_distance` and the backstop fields for the ones
    /// wanted.
    #[must_use]
    pub fn new(particle: u32, at: [T; 3], normal: [T; 3]) -> Self {
        Self {
            particle,
            previous: at,
            target: at,
            previous_normal: normal,
            target_normal: normal,
            max_distance: T::from_f64(f64::INFINITY),
            backstop_distance: T::ZERO,
            backstop_radius: T::ZERO,
            compliance: T::ZERO,
            backstop_compliance: T::ZERO,
            lambda: [T::ZERO; 2],
        }
    }

    /// Checks this instance's own parameters: the index below the
    /// particle count; the positions finite; `max_distance` ≥ 0 (`+∞`
    /// allowed); `backstop_distance` finite; `backstop_radius` finite and
    /// ≥ 0, and when > 0 both normals finite and not 0 and
    /// `backstop_distance + backstop_radius` finite; both compliances
    /// finite and ≥ 0 with `α/h²` finite. The caller adds the index.
    pub(crate) fn check(&self, w: &[T], h2: T) -> Result<(), Invalid> {
        super::check_particles(&[self.particle], w)?;
        let finite = |p: &[T; 3]| p.iter().all(|c| c.is_finite());
        if !finite(&self.previous) || !finite(&self.target) {
            return Err(Invalid::RestValue);
        }
        let (r, d) = (self.backstop_radius, self.backstop_distance);
        let ok = self.max_distance >= T::ZERO
            && d.is_finite()
            && crate::real::finite_non_negative(r)
            && (r == T::ZERO
                || ((d + r).is_finite()
                    && unit_any(&self.previous_normal).is_some()
                    && unit_any(&self.target_normal).is_some()));
        if !ok {
            return Err(Invalid::RestValue);
        }
        super::check_compliance(self.compliance, h2)?;
        super::check_compliance(self.backstop_compliance, h2)
    }

    /// The end of a successful frame: `previous ← target`,
    /// `previous_normal ← target_normal`.
    #[inline]
    pub(crate) fn end_frame(&mut self) {
        self.previous = self.target;
        self.previous_normal = self.target_normal;
    }

    /// The unit normal of a substep: `n(s)` normalised, or the target's
    /// when `n(s)` is 0 (opposite normals half-way); `None` when neither
    /// has a direction (only without a backstop: the check refuses it).
    #[inline]
    fn normal(&self, lag: T) -> Option<[T; 3]> {
        unit_any(&between(&self.previous_normal, &self.target_normal, lag))
            .or_else(|| unit_any(&self.target_normal))
    }
}

/// One of the two as a scalar constraint of one particle: `C = |x − c| −
/// radius`, one-sided by `bound` (the one update's unit of work).
struct Limit<T> {
    particle: u32,
    center: [T; 3],
    radius: T,
    /// The gradient where `x = c`.
    fallback: [T; 3],
    compliance: T,
    lambda: T,
    bound: Bound,
}

impl<T: Real, const D: usize> Constraint<T, D, 1> for Limit<T> {
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
        self.bound
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
        let mut v = [T::ZERO; D];
        for ((vd, &xd), &cd) in v.iter_mut().zip(&xp).zip(&self.center) {
            *vd = xd - cd;
        }
        if !v.iter().all(|c| c.is_finite()) {
            // Finite points whose difference overflows (beyond 1e308 m in
            // f64): no distance to compare (the caller's policy decides).
            return Evaluation::Degenerate;
        }
        let (gradient, length) = match unit_any(&v) {
            Some(g) => {
                let length = v.iter().zip(&g).fold(T::ZERO, |s, (a, b)| s + *a * *b);
                (g, length)
            }
            None => {
                let mut g = [T::ZERO; D];
                for (gd, &fd) in g.iter_mut().zip(&self.fallback) {
                    *gd = fd;
                }
                (g, T::ZERO)
            }
        };
        Evaluation::Active(Evaluated {
            particles: [p],
            x: [xp],
            w: [wp],
            gradient: [gradient],
            c: length - self.radius,
            weight: wp,
        })
    }
}

impl<T: Real> Lagged<T> for SkinConstraint<T> {
    type Lambda = [T; 2];

    #[inline(always)]
    fn particle(&self) -> u32 {
        self.particle
    }

    #[inline(always)]
    fn with_particle(self, particle: u32) -> Self {
        Self { particle, ..self }
    }

    #[inline(always)]
    fn lambda(&self) -> [T; 2] {
        self.lambda
    }

    #[inline(always)]
    fn lambda_slot(&mut self) -> &mut [T; 2] {
        &mut self.lambda
    }

    fn check(&self, w: &[T], h2: T) -> Result<(), Invalid> {
        SkinConstraint::check(self, w, h2)
    }

    /// Eight at a time over the coordinate arrays ([`lanes`]), in 3D.
    #[inline(always)]
    fn run<const D: usize, W: Widen>(
        items: &mut [Self],
        x: &mut [&mut [T]; D],
        w: &[T],
        at: (Motion<T>, T),
        widen: &W,
    ) -> Option<[Outcome<T>; LANES]> {
        let [x, y, z] = x.as_mut_slice() else {
            return None;
        };
        lanes::run(items, [&mut **x, &mut **y, &mut **z], w, at, widen)
    }

    /// The max distance, then the backstop at the corrected position,
    /// each through the one update, on a copy of the particle. Writes
    /// nothing.
    #[inline]
    fn visit<const D: usize>(
        &self,
        positions: &[[T; D]],
        inverse_masses: &[T],
        at: Motion<T>,
        h2: T,
    ) -> Result<Planned<T, D, [T; 2]>, Fault> {
        let p = index(self.particle);
        let point = between(&self.previous, &self.target, at.lag);
        let backstop = self.backstop_radius > T::ZERO;
        let normal = if backstop { self.normal(at.lag) } else { None };
        let e_x = [T::ONE, T::ZERO, T::ZERO];
        let fallback = normal.unwrap_or(e_x);
        let reach = self.max_distance;
        let mut limits = [None, None];
        if reach.is_finite() {
            limits[0] = Some(Limit {
                particle: 0,
                center: point,
                radius: reach * at.scale,
                fallback,
                compliance: self.compliance,
                lambda: self.lambda[0],
                bound: Bound::NonPositive,
            });
        }
        if let Some(n) = normal {
            let behind = self.backstop_distance + self.backstop_radius;
            let mut center = point;
            for (c, nd) in center.iter_mut().zip(n) {
                *c = *c - nd * behind;
            }
            limits[1] = Some(Limit {
                particle: 0,
                center,
                radius: self.backstop_radius,
                fallback: n,
                compliance: self.backstop_compliance,
                lambda: self.lambda[1],
                bound: Bound::NonNegative,
            });
        }
        // The particle as a window of one (its index checked first, as
        // every kind's evaluation does).
        let (Some(&x0), Some(&w0)) = (positions.get(p), inverse_masses.get(p)) else {
            return Err(Fault::OutOfRange);
        };
        let (mut x, w) = ([x0], [w0]);
        let mut lambda = self.lambda;
        let mut moved = false;
        let (mut c_abs, mut residual) = (T::ZERO, T::ZERO);
        for (limit, l) in limits.iter().zip(lambda.iter_mut()) {
            let Some(limit) = limit else {
                continue;
            };
            match visit(limit, &x, &w, &(), h2).map_err(|f| match f {
                Fault::NonFinitePosition(_) => Fault::NonFinitePosition(p),
                other => other,
            })? {
                Visit::Static => return Ok((Outcome::Static, None)),
                Visit::Degenerate => return Ok((Outcome::Degenerate, None)),
                Visit::Idle => {}
                Visit::Apply {
                    x: [next],
                    lambda: new,
                    c_abs: c,
                    residual: r,
                    ..
                } => {
                    x = [next];
                    *l = new;
                    moved = true;
                    c_abs = max(c_abs, c);
                    residual = max(residual, r);
                }
            }
        }
        let [x] = x;
        let outcome = Outcome::Applied { c_abs, residual };
        Ok((outcome, moved.then_some((p, x, lambda))))
    }
}
