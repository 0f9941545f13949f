//! Full XPBD stepping: prediction, substeps, constraint iterations, contacts
//! with friction, velocity update.
//!
//! # The substep loop
//!
//! For a frame of length `dt` (s) split into `n` substeps, `h = dt / n` and
//! each substep does (Macklin, Storey, Lu, Terdiman, Chentanez, Jeschke,
//! Müller 2019, *Small Steps in Physics Simulation*, Algorithm 1):
//!
//! ```text
//! x_prev ← x
//! x      ← x + h v + h² g          (particles with w > 0; w = 0 never moves)
//! contacts ← particles inside a plane or sphere at x
//! begin_substep(h): every λ ← 0     (links and contacts)
//! k times: sweep links, then contacts (Gauss-Seidel)
//! v      ← (x − x_prev) / h, then dynamic friction, then damping
//! ```
//!
//! `g` is an acceleration (m/s²), so gravity needs no mass. α̃ = α/h² always
//! uses the substep `h`, never `dt`.
//!
//! ## Why many substeps with one iteration
//!
//! For a fixed budget of `n·k` sweeps, Small Steps shows that `n` substeps of
//! one iteration usually beat one substep of `n·k` iterations: the
//! discretisation error of the implicit-Euler-like update shrinks with h², and
//! Gauss-Seidel's slow convergence on long chains matters less when every
//! substep starts close to the solution. With λ kept across iterations (this
//! crate's lifecycle rule) more iterations never change the material, only
//! how close each substep gets to its own solution.
//!
//! # Contacts (inequality constraints)
//!
//! Plane `n·x ≥ offset + r` and static sphere `|x − c| ≥ radius + r`, with
//! `r` the particle radius. `C` is the signed gap (m), the gradient is the
//! unit normal, and the accumulated contact λ is clamped to `λ ≥ 0` (push
//! only): `λ_new = max(λ + Δλ, 0)` with the usual
//! `Δλ = (−C − α̃λ)/(w + α̃)`. Contacts are found once per substep after
//! prediction and live for that substep (their λ starts at 0).
//!
//! Friction follows Müller, Macklin, Chentanez, Jeschke, Kim 2020
//! (*Detailed Rigid Body Simulation with Extended Position Based Dynamics*,
//! §3.5–3.6): static friction at the position level (the tangential motion
//! since `x_prev` is removed when it is below `μ_s` times the normal
//! correction `w λ`), dynamic friction in the velocity update (the
//! tangential speed drops by `min(h μ_k w |f_n|, |v_t|)` with the normal
//! force `f_n = λ / h²`).
//!
//! # Damping
//!
//! Optional, and it is what it is: a non-physical loss of velocity,
//! `v ← v · max(0, 1 − c·h)` per substep with `c` in 1/s. It drains energy
//! so that a rope comes to rest; it is not air drag and not material damping.

use crate::real::{finite_non_negative, Real};
use crate::system::{self, Link, SweepStats, SystemError, ZeroLength};
use core::fmt;

/// A static half-space: points with `n̂·x ≥ offset` are free (`n̂` is
/// `normal` normalised; `normal` need not be unit length but must not be 0).
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

/// How to advance one frame.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StepConfig<T, const D: usize> {
    /// Gravity as an acceleration (m/s²), applied to every particle with w > 0.
    pub gravity: [T; D],
    /// Substeps per frame, ≥ 1: `h = dt / substeps`.
    pub substeps: u32,
    /// Solver iterations per substep, ≥ 1 (the budget when `tolerance > 0`).
    pub iterations: u32,
    /// 0: run exactly `iterations` sweeps. > 0: stop a substep early when a
    /// sweep's max |C + α̃λ| over the links is ≤ `tolerance` (m).
    pub tolerance: T,
    /// Velocity damping coefficient c (1/s), ≥ 0: `v ← v·max(0, 1 − c h)`.
    ///
    /// In f32, short substeps defeat it: a position near 1 m moves in ulps
    /// of 1.2e-7 m, so `v = Δx/h` comes in quanta of ulp/h, and the
    /// damping's change to the next `x + h v` is lost to rounding below
    /// about 0.5/(c h) quanta (0.5 m/s at c = 2/s, h = 1/3840 s). Use fewer,
    /// longer substeps, small coordinates, or f64 (README, the C++ cloth).
    pub damping: T,
    /// Particle radius r (m), ≥ 0, used by contacts.
    pub particle_radius: T,
    /// Contact compliance (m/N), ≥ 0; 0 = rigid contact.
    pub contact_compliance: T,
    /// Static friction coefficient μ_s, ≥ 0.
    pub static_friction: T,
    /// Dynamic friction coefficient μ_k, ≥ 0.
    pub dynamic_friction: T,
    /// What link sweeps do with coincident particles.
    pub zero_length: ZeroLength,
}

impl<T: Real, const D: usize> StepConfig<T, D> {
    /// A configuration with the given gravity, 1 substep, 1 iteration, no
    /// tolerance, no damping, no radius, rigid frictionless contacts.
    #[must_use]
    pub fn new(gravity: [T; D]) -> Self {
        Self {
            gravity,
            substeps: 1,
            iterations: 1,
            tolerance: T::ZERO,
            damping: T::ZERO,
            particle_radius: T::ZERO,
            contact_compliance: T::ZERO,
            static_friction: T::ZERO,
            dynamic_friction: T::ZERO,
            zero_length: ZeroLength::Reject,
        }
    }
}

/// The caller's memory for [`step`]: particles, links, colliders and the
/// scratch the step needs (no allocation).
#[derive(Debug)]
pub struct World<'a, T, const D: usize> {
    /// Positions (m), one per particle; advanced by the step.
    pub positions: &'a mut [[T; D]],
    /// Velocities (m/s), one per particle; advanced by the step.
    pub velocities: &'a mut [[T; D]],
    /// Inverse masses (1/kg); 0 = the particle never moves.
    pub inverse_masses: &'a [T],
    /// Links (with their λ of the last substep).
    pub links: &'a mut [Link<T>],
    /// Static half-spaces.
    pub planes: &'a [Plane<T, D>],
    /// Static spheres.
    pub spheres: &'a [Sphere<T, D>],
    /// Contact storage for one substep (its capacity bounds the contacts).
    pub contacts: &'a mut [Contact<T>],
    /// Scratch, at least [`scratch_len`]`(particles)` entries: the frame's
    /// starting state (for the all-or-nothing rollback) and `x_prev`.
    pub scratch: &'a mut [[T; D]],
}

/// Scratch entries [`step`] needs for `particles` particles: `3 · particles`
/// (saturating).
#[must_use]
pub const fn scratch_len(particles: usize) -> usize {
    particles.saturating_mul(3)
}

/// Why a step was rejected. On every error positions and velocities are as
/// they were before the step (λ and contacts may hold the failed substep's
/// values: they are per-substep state).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum StepError {
    /// The frame time is NaN, infinite, zero or negative.
    InvalidFrameTime,
    /// `substeps` or `iterations` is 0.
    InvalidBudget,
    /// A configuration value (gravity, tolerance, damping, radius, contact
    /// compliance, friction) is NaN, infinite or out of its domain.
    InvalidConfig,
    /// `velocities` has a different length from `positions`.
    VelocityCountMismatch,
    /// This particle's velocity is NaN or infinite.
    NonFiniteVelocity {
        /// Index of the particle.
        particle: usize,
    },
    /// This collider (planes, then spheres) has a non-finite value, a zero
    /// normal or a negative radius.
    InvalidCollider {
        /// Index of the collider.
        collider: usize,
    },
    /// `scratch` is shorter than [`scratch_len`].
    ScratchTooSmall {
        /// Entries needed.
        needed: usize,
    },
    /// A substep found more contacts than `contacts` can hold.
    ContactCapacity,
    /// Correcting this contact (index in `contacts`) would not be finite.
    InvalidContactResult {
        /// Index of the contact.
        contact: usize,
    },
    /// A position or velocity would not be finite at the end of a substep.
    InvalidResult {
        /// Index of the particle.
        particle: usize,
    },
    /// The constraint system rejected the substep or a sweep.
    System(SystemError),
}

impl From<SystemError> for StepError {
    fn from(e: SystemError) -> Self {
        StepError::System(e)
    }
}

impl fmt::Display for StepError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            StepError::InvalidFrameTime => {
                f.write_str("frame time is NaN, infinite, zero or negative")
            }
            StepError::InvalidBudget => f.write_str("substeps and iterations must be at least 1"),
            StepError::InvalidConfig => {
                f.write_str("a step configuration value is out of its domain")
            }
            StepError::VelocityCountMismatch => {
                f.write_str("velocities and positions have different lengths")
            }
            StepError::NonFiniteVelocity { particle } => {
                write!(f, "particle {particle}: velocity is NaN or infinite")
            }
            StepError::InvalidCollider { collider } => {
                write!(f, "collider {collider}: invalid shape")
            }
            StepError::ScratchTooSmall { needed } => {
                write!(f, "scratch too short: {needed} entries needed")
            }
            StepError::ContactCapacity => {
                f.write_str("more contacts than the contact buffer holds")
            }
            StepError::InvalidContactResult { contact } => {
                write!(f, "contact {contact}: correction would not be finite")
            }
            StepError::InvalidResult { particle } => {
                write!(f, "particle {particle}: state would not be finite")
            }
            StepError::System(e) => write!(f, "{e}"),
        }
    }
}

impl core::error::Error for StepError {}

/// What a [`step`] did.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct StepStats<T> {
    /// Substeps run.
    pub substeps: u32,
    /// Link sweeps run in all substeps.
    pub iterations: u32,
    /// Substeps whose last sweep met the tolerance (when tolerance > 0).
    pub converged_substeps: u32,
    /// Most contacts found in one substep.
    pub max_contacts: usize,
    /// Diagnostics of the last link sweep.
    pub last: SweepStats<T>,
}

/// Dot product in coordinate order.
#[inline]
fn dot<T: Real, const D: usize>(a: &[T; D], b: &[T; D]) -> T {
    a.iter().zip(b).fold(T::ZERO, |acc, (x, y)| acc + *x * *y)
}

/// `normal / |normal|`, or `None` when the normal is not finite or too
/// short to normalise.
#[inline]
fn unit<T: Real, const D: usize>(normal: &[T; D]) -> Option<[T; D]> {
    let len2 = dot(normal, normal);
    if !len2.is_finite() || len2 < T::MIN_POSITIVE {
        return None;
    }
    let len = len2.sqrt();
    Some(normal.map(|v| v / len))
}

fn validate_config<T: Real, const D: usize>(c: &StepConfig<T, D>) -> Result<(), StepError> {
    if c.substeps == 0 || c.iterations == 0 {
        return Err(StepError::InvalidBudget);
    }
    let ok = c.gravity.iter().all(|g| g.is_finite())
        && finite_non_negative(c.tolerance)
        && finite_non_negative(c.damping)
        && finite_non_negative(c.particle_radius)
        && finite_non_negative(c.contact_compliance)
        && finite_non_negative(c.static_friction)
        && finite_non_negative(c.dynamic_friction);
    if ok {
        Ok(())
    } else {
        Err(StepError::InvalidConfig)
    }
}

fn validate_colliders<T: Real, const D: usize>(
    planes: &[Plane<T, D>],
    spheres: &[Sphere<T, D>],
) -> Result<(), StepError> {
    for (collider, p) in planes.iter().enumerate() {
        if unit(&p.normal).is_none() || !p.offset.is_finite() {
            return Err(StepError::InvalidCollider { collider });
        }
    }
    for (k, s) in spheres.iter().enumerate() {
        if !s.center.iter().all(|v| v.is_finite()) || !finite_non_negative(s.radius) {
            return Err(StepError::InvalidCollider {
                collider: planes.len().saturating_add(k),
            });
        }
    }
    Ok(())
}

/// The signed gap C (m) and unit normal of particle position `x` against a
/// collider, or `None` when the direction is undefined (a particle at a
/// sphere's centre) or the collider index is out of range.
#[inline]
fn gap<T: Real, const D: usize>(
    x: &[T; D],
    collider: usize,
    planes: &[Plane<T, D>],
    spheres: &[Sphere<T, D>],
    radius: T,
) -> Option<(T, [T; D])> {
    if let Some(p) = planes.get(collider) {
        let n = unit(&p.normal)?;
        return Some((dot(&n, x) - p.offset - radius, n));
    }
    let s = spheres.get(collider.checked_sub(planes.len())?)?;
    let mut d = *x;
    for (v, c) in d.iter_mut().zip(&s.center) {
        *v = *v - *c;
    }
    let n = unit(&d)?;
    let len = dot(&d, &d).sqrt();
    Some((len - (s.radius + radius), n))
}

/// Finds the contacts of the predicted positions; returns how many.
fn detect<T: Real, const D: usize>(
    positions: &[[T; D]],
    inverse_masses: &[T],
    planes: &[Plane<T, D>],
    spheres: &[Sphere<T, D>],
    radius: T,
    contacts: &mut [Contact<T>],
) -> Result<usize, StepError> {
    let colliders = planes.len().saturating_add(spheres.len());
    let mut count = 0usize;
    for (particle, (x, w)) in positions.iter().zip(inverse_masses).enumerate() {
        if *w == T::ZERO {
            continue;
        }
        for collider in 0..colliders {
            let Some((c, _)) = gap(x, collider, planes, spheres, radius) else {
                continue;
            };
            if c < T::ZERO {
                let (Ok(particle), Ok(collider)) =
                    (u32::try_from(particle), u32::try_from(collider))
                else {
                    return Err(StepError::ContactCapacity);
                };
                let slot = contacts.get_mut(count).ok_or(StepError::ContactCapacity)?;
                *slot = Contact {
                    particle,
                    collider,
                    lambda: T::ZERO,
                };
                count = count.saturating_add(1);
            }
        }
    }
    Ok(count)
}

/// Parameters shared by every contact visit of a substep.
struct ContactParams<'c, T, const D: usize> {
    planes: &'c [Plane<T, D>],
    spheres: &'c [Sphere<T, D>],
    previous: &'c [[T; D]],
    radius: T,
    alpha: T,
    static_friction: T,
}

/// One sweep over the substep's contacts (Gauss-Seidel, in contact order).
fn sweep_contacts<T: Real, const D: usize>(
    positions: &mut [[T; D]],
    inverse_masses: &[T],
    contacts: &mut [Contact<T>],
    p: &ContactParams<'_, T, D>,
) -> Result<(), StepError> {
    for (index, contact) in contacts.iter_mut().enumerate() {
        let k = usize::try_from(contact.particle)
            .map_err(|_| StepError::InvalidContactResult { contact: index })?;
        let collider = usize::try_from(contact.collider)
            .map_err(|_| StepError::InvalidContactResult { contact: index })?;
        let (Some(x), Some(&w), Some(prev)) =
            (positions.get(k), inverse_masses.get(k), p.previous.get(k))
        else {
            return Err(StepError::InvalidContactResult { contact: index });
        };
        let Some((c, n)) = gap(x, collider, p.planes, p.spheres, p.radius) else {
            continue;
        };
        let delta = (-c - p.alpha * contact.lambda) / (w + p.alpha);
        let mut lambda = contact.lambda + delta;
        if lambda < T::ZERO {
            lambda = T::ZERO;
        }
        let applied = lambda - contact.lambda;
        let s = w * applied;
        let mut next = *x;
        for (v, ni) in next.iter_mut().zip(&n) {
            *v = *v + s * *ni;
        }
        // Static friction: undo the tangential motion of this substep when it
        // is within the cone μ_s · (normal correction w λ).
        if p.static_friction > T::ZERO && lambda > T::ZERO {
            let mut moved = next;
            for (m, q) in moved.iter_mut().zip(prev) {
                *m = *m - *q;
            }
            let along = dot(&moved, &n);
            let mut tangential = moved;
            for (t, ni) in tangential.iter_mut().zip(&n) {
                *t = *t - along * *ni;
            }
            let t2 = dot(&tangential, &tangential);
            let limit = p.static_friction * w * lambda;
            if t2 < limit * limit {
                for (v, t) in next.iter_mut().zip(&tangential) {
                    *v = *v - *t;
                }
            }
        }
        if !lambda.is_finite() || !next.iter().all(|v| v.is_finite()) {
            return Err(StepError::InvalidContactResult { contact: index });
        }
        if let Some(slot) = positions.get_mut(k) {
            *slot = next;
        }
        contact.lambda = lambda;
    }
    Ok(())
}

/// Advances the world by one frame of `frame_dt` seconds (see the module
/// documentation for the loop).
///
/// # Errors
///
/// Configuration and input errors ([`StepError::InvalidFrameTime`],
/// [`StepError::InvalidBudget`], [`StepError::InvalidConfig`],
/// [`StepError::VelocityCountMismatch`], [`StepError::ScratchTooSmall`],
/// [`StepError::NonFiniteVelocity`], [`StepError::InvalidCollider`], and the
/// system's [`SystemError`]s) are found before anything is written. Errors
/// during the substeps ([`StepError::ContactCapacity`],
/// [`StepError::InvalidContactResult`], [`StepError::InvalidResult`], a
/// system sweep error) roll positions and velocities back to the start of
/// the frame. Either way the caller's positions and velocities are
/// bit-identical to before the call.
///
/// # Examples
///
/// A particle falling onto the ground plane y = 0:
///
/// ```
/// use xpbd::step::{step, Contact, Plane, StepConfig, World};
///
/// let mut x = [[0.0_f64, 1.0, 0.0]];
/// let mut v = [[0.0, 0.0, 0.0]];
/// let mut contacts = [Contact::default(); 4];
/// let mut scratch = [[0.0; 3]; 3];
/// let ground = [Plane { normal: [0.0, 1.0, 0.0], offset: 0.0 }];
/// let mut config = StepConfig::new([0.0, -9.81, 0.0]);
/// config.substeps = 10;
/// let mut world = World {
///     positions: &mut x, velocities: &mut v, inverse_masses: &[1.0], links: &mut [],
///     planes: &ground, spheres: &[], contacts: &mut contacts, scratch: &mut scratch,
/// };
/// for _ in 0..120 {
///     step(&mut world, 1.0 / 60.0, &config).unwrap();
/// }
/// assert!(world.positions[0][1].abs() < 1e-9); // resting on the plane
/// ```
pub fn step<T: Real, const D: usize>(
    world: &mut World<'_, T, D>,
    frame_dt: T,
    config: &StepConfig<T, D>,
) -> Result<StepStats<T>, StepError> {
    if !frame_dt.is_finite() || frame_dt <= T::ZERO {
        return Err(StepError::InvalidFrameTime);
    }
    validate_config(config)?;
    let n = world.positions.len();
    if world.velocities.len() != n {
        return Err(StepError::VelocityCountMismatch);
    }
    let needed = scratch_len(n);
    if world.scratch.len() < needed || u32::try_from(n).is_err() {
        return Err(StepError::ScratchTooSmall { needed });
    }
    for (particle, v) in world.velocities.iter().enumerate() {
        if !v.iter().all(|c| c.is_finite()) {
            return Err(StepError::NonFiniteVelocity { particle });
        }
    }
    validate_colliders(world.planes, world.spheres)?;
    let substeps = T::from_f64(f64::from(config.substeps));
    let h = frame_dt / substeps;
    system::validate(
        world.positions,
        world.inverse_masses,
        world.links,
        h,
        config.zero_length,
    )?;

    // Keep the frame's start for an all-or-nothing step.
    // (Checked splits and zip copies: on a 32-bit target the length checks
    // above do not prove `2n ≤ scratch.len()` to the compiler, and
    // `split_at_mut` / `copy_from_slice` would keep a panic path.)
    let too_small = StepError::ScratchTooSmall { needed };
    let (saved, previous) = world
        .scratch
        .split_at_mut_checked(n.checked_mul(2).ok_or(too_small)?)
        .ok_or(too_small)?;
    let (saved_x, saved_v) = saved.split_at_mut_checked(n).ok_or(too_small)?;
    copy(saved_x, world.positions);
    copy(saved_v, world.velocities);
    let previous = previous.get_mut(..n).ok_or(too_small)?;

    let result = run_substeps(
        world.positions,
        world.velocities,
        world.inverse_masses,
        world.links,
        world.planes,
        world.spheres,
        world.contacts,
        previous,
        h,
        config,
    );
    if result.is_err() {
        copy(world.positions, saved_x);
        copy(world.velocities, saved_v);
    }
    result
}

/// `dst ← src` element by element over the common length (the callers pass
/// equal lengths); unlike `copy_from_slice` it has no panic path.
#[inline]
fn copy<E: Copy>(dst: &mut [E], src: &[E]) {
    for (d, s) in dst.iter_mut().zip(src) {
        *d = *s;
    }
}

#[allow(clippy::too_many_arguments)]
fn run_substeps<T: Real, const D: usize>(
    positions: &mut [[T; D]],
    velocities: &mut [[T; D]],
    inverse_masses: &[T],
    links: &mut [Link<T>],
    planes: &[Plane<T, D>],
    spheres: &[Sphere<T, D>],
    contacts: &mut [Contact<T>],
    previous: &mut [[T; D]],
    h: T,
    config: &StepConfig<T, D>,
) -> Result<StepStats<T>, StepError> {
    let h2 = h * h;
    let mut stats = StepStats::default();
    let keep = {
        let k = T::ONE - config.damping * h;
        if k > T::ZERO {
            k
        } else {
            T::ZERO
        }
    };
    let damped = config.damping > T::ZERO;
    for _ in 0..config.substeps {
        copy(previous, positions);
        // Predict: x ← x + h v + h² g for moving particles.
        for ((x, v), w) in positions
            .iter_mut()
            .zip(velocities.iter())
            .zip(inverse_masses)
        {
            if *w == T::ZERO {
                continue;
            }
            for ((xi, vi), gi) in x.iter_mut().zip(v).zip(&config.gravity) {
                *xi = *xi + h * *vi + h2 * *gi;
            }
        }
        let count = detect(
            positions,
            inverse_masses,
            planes,
            spheres,
            config.particle_radius,
            contacts,
        )?;
        stats.max_contacts = stats.max_contacts.max(count);
        let contacts = contacts
            .get_mut(..count)
            .ok_or(StepError::ContactCapacity)?;
        // begin_substep: validate at the predicted positions, every λ ← 0.
        system::validate(positions, inverse_masses, links, h, config.zero_length)?;
        for link in links.iter_mut() {
            link.lambda = T::ZERO;
        }
        let params = ContactParams {
            planes,
            spheres,
            previous,
            radius: config.particle_radius,
            alpha: config.contact_compliance / h2,
            static_friction: config.static_friction,
        };
        for _ in 0..config.iterations {
            stats.last = system::sweep(positions, inverse_masses, links, h, config.zero_length)?;
            stats.iterations = stats.iterations.saturating_add(1);
            sweep_contacts(positions, inverse_masses, contacts, &params)?;
            if config.tolerance > T::ZERO && stats.last.max_residual <= config.tolerance {
                stats.converged_substeps = stats.converged_substeps.saturating_add(1);
                break;
            }
        }
        // Velocity update, dynamic friction, damping.
        for (particle, ((v, x), prev)) in velocities
            .iter_mut()
            .zip(positions.iter())
            .zip(previous.iter())
            .enumerate()
        {
            for ((vi, xi), pi) in v.iter_mut().zip(x).zip(prev) {
                *vi = (*xi - *pi) / h;
            }
            if damped {
                for vi in v.iter_mut() {
                    *vi = *vi * keep;
                }
            }
            if !v.iter().chain(x.iter()).all(|c| c.is_finite()) {
                return Err(StepError::InvalidResult { particle });
            }
        }
        if config.dynamic_friction > T::ZERO {
            dynamic_friction(
                velocities,
                positions,
                inverse_masses,
                contacts,
                &params,
                h,
                config.dynamic_friction,
            );
        }
        stats.substeps = stats.substeps.saturating_add(1);
    }
    Ok(stats)
}

/// Dynamic friction: each contact with λ > 0 slows its particle's tangential
/// velocity by `min(h μ_k w λ/h², |v_t|)`.
fn dynamic_friction<T: Real, const D: usize>(
    velocities: &mut [[T; D]],
    positions: &[[T; D]],
    inverse_masses: &[T],
    contacts: &[Contact<T>],
    p: &ContactParams<'_, T, D>,
    h: T,
    mu: T,
) {
    for contact in contacts {
        if contact.lambda <= T::ZERO {
            continue;
        }
        let (Ok(k), Ok(collider)) = (
            usize::try_from(contact.particle),
            usize::try_from(contact.collider),
        ) else {
            continue;
        };
        let (Some(x), Some(&w), Some(v)) = (
            positions.get(k),
            inverse_masses.get(k),
            velocities.get_mut(k),
        ) else {
            continue;
        };
        let Some((_, n)) = gap(x, collider, p.planes, p.spheres, p.radius) else {
            continue;
        };
        let along = dot(v, &n);
        let mut tangential = *v;
        for (t, ni) in tangential.iter_mut().zip(&n) {
            *t = *t - along * *ni;
        }
        let speed2 = dot(&tangential, &tangential);
        if speed2 < T::MIN_POSITIVE {
            continue;
        }
        let speed = speed2.sqrt();
        // h · μ_k · w · f_n with f_n = λ / h²: a speed (m/s).
        let drop = mu * w * contact.lambda / h;
        let scale = if drop >= speed { T::ONE } else { drop / speed };
        for (vi, t) in v.iter_mut().zip(&tangential) {
            *vi = *vi - scale * *t;
        }
    }
}
