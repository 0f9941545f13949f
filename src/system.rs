//! Distance constraints in 2D and 3D over shared particles: ropes, loops and
//! cloth, solved by Gauss-Seidel sweeps over caller-owned memory.
//!
//! # The equations
//!
//! Particles `x_i ∈ ℝ^D` (m, `D` = 2 or 3) with inverse masses `w_i` (1/kg).
//! A link between particles `i` and `j` with rest length `rest` (m) and
//! compliance `α` (m/N = s²/kg), for the substep length `h` (s):
//!
//! - Constraint: `C = |x_j − x_i| − rest` (m).
//! - Gradient: `∇_{x_j} C = n`, `∇_{x_i} C = −n`, with the unit direction
//!   `n = (x_j − x_i) / |x_j − x_i|`.
//! - Scaled compliance: `α̃ = α / h²` (1/kg).
//! - One visit of the link (Macklin, Müller, Chentanez 2016, *XPBD:
//!   Position-Based Simulation of Compliant Constrained Dynamics*, eq. 18;
//!   the gradient has unit length, so `|∇C|² w = w_i + w_j`):
//!
//! ```text
//! Δλ  = (−C − α̃ λ) / (w_i + w_j + α̃)
//! x_i ← x_i − w_i Δλ n
//! x_j ← x_j + w_j Δλ n
//! λ   ← λ + Δλ
//! ```
//!
//! λ (kg·m) belongs to the link ([`Link::lambda`]); it is reset to zero by
//! [`System::begin_substep`] and nowhere else. One iteration is one sweep over
//! the links in slice order (Gauss-Seidel): each link sees the corrections of
//! the links before it.
//!
//! For a link along the x axis the arithmetic is the 1D seed solver's, bit
//! for bit: `|x_j − x_i| = sqrt((b − a)²) = b − a` exactly, and
//! `n = (1, 0, 0)` exactly.
//!
//! # Zero length
//!
//! When `|x_j − x_i|²` is below the smallest positive normal number of `T`
//! (f64: lengths under about 1.5e-154 m; f32: under about 1.1e-19 m) the
//! direction `n` is undefined. The caller chooses with [`ZeroLength`]:
//! reject with [`SystemError::ZeroLength`] naming the link, or skip the link
//! and count it in [`SweepStats::skipped_zero_length`]. Never a NaN.

use crate::real::{finite_non_negative, Real};
use core::fmt;

/// One distance constraint of a [`System`]: particle indices, rest length,
/// compliance and its own accumulated multiplier λ.
///
/// `#[repr(C)]`: the same layout as `XpbdLink` (f64) and `XpbdLinkF32` (f32)
/// in the C header.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Link<T> {
    /// Index of the first particle.
    pub i: u32,
    /// Index of the second particle (≠ `i`).
    pub j: u32,
    /// Rest length (m), finite and > 0.
    pub rest: T,
    /// Compliance α (m/N = s²/kg), finite and ≥ 0; 0 is a rigid link.
    pub compliance: T,
    /// Accumulated multiplier λ (kg·m) of the current substep. Reset only by
    /// [`System::begin_substep`].
    pub lambda: T,
    /// Flag bits: 0, or [`Link::TENSION_ONLY`]. Other bits are rejected.
    pub flags: u32,
}

impl<T: Real> Link<T> {
    /// Flag: the link is unilateral, resisting only stretching, as a real
    /// rope does. Its accumulated λ is clamped to `λ ≤ 0` (λ < 0 pulls the
    /// particles together), so it never pushes: a slack link (C < 0) is left
    /// alone. Clamping the *accumulated* value, not each Δλ, keeps the
    /// lifecycle rule intact.
    pub const TENSION_ONLY: u32 = 1;

    /// The same link made tension-only ([`Link::TENSION_ONLY`]).
    #[must_use]
    pub fn tension_only(mut self) -> Self {
        self.flags |= Self::TENSION_ONLY;
        self
    }

    /// A link between particles `i` and `j` with λ = 0.
    #[must_use]
    pub fn new(i: u32, j: u32, rest: T, compliance: T) -> Self {
        Self {
            i,
            j,
            rest,
            compliance,
            lambda: T::ZERO,
            flags: 0,
        }
    }
}

/// What a sweep does with a link whose particles coincide (see the module
/// documentation for the exact threshold).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum ZeroLength {
    /// Stop with [`SystemError::ZeroLength`] naming the link (the default).
    #[default]
    Reject,
    /// Leave the link and its particles untouched and count it in
    /// [`SweepStats::skipped_zero_length`].
    Skip,
}

/// Why a system call was rejected. Every variant that concerns one particle
/// or link names its index (position in the caller's slice).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum SystemError {
    /// The substep length h is NaN, infinite, zero or negative.
    InvalidTimeStep,
    /// `positions` and `inverse_masses` have different lengths.
    ParticleCountMismatch,
    /// More particles than `u32` indices can address.
    TooManyParticles,
    /// This particle's position has a NaN or infinite coordinate.
    NonFinitePosition {
        /// Index of the particle.
        particle: usize,
    },
    /// This particle's inverse mass is NaN, infinite or negative.
    InvalidInverseMass {
        /// Index of the particle.
        particle: usize,
    },
    /// This link names a particle index ≥ the particle count.
    IndexOutOfRange {
        /// Index of the link.
        constraint: usize,
    },
    /// This link joins a particle to itself (`i == j`).
    SameParticle {
        /// Index of the link.
        constraint: usize,
    },
    /// This link's rest length is NaN, infinite, negative or zero.
    InvalidRestLength {
        /// Index of the link.
        constraint: usize,
    },
    /// This link's compliance is NaN, infinite or negative.
    InvalidCompliance {
        /// Index of the link.
        constraint: usize,
    },
    /// `α/h²` or `w_i + w_j + α/h²` is not a finite positive number for this link.
    UnrepresentableScale {
        /// Index of the link.
        constraint: usize,
    },
    /// This link's particles coincide and the policy is [`ZeroLength::Reject`].
    ZeroLength {
        /// Index of the link.
        constraint: usize,
    },
    /// This link has flag bits other than [`Link::TENSION_ONLY`].
    InvalidFlags {
        /// Index of the link.
        constraint: usize,
    },
    /// Correcting this link would give a non-finite position or λ.
    InvalidResult {
        /// Index of the link.
        constraint: usize,
    },
    /// The convergence tolerance is NaN, infinite or negative.
    InvalidTolerance,
    /// A grid or rope has too few particles or a particle count that does not
    /// match its dimensions.
    InvalidShape,
    /// The link slice given to a builder is too short.
    CapacityTooSmall {
        /// How many links the builder needs.
        needed: usize,
    },
}

impl SystemError {
    /// The particle or link index this error names, if any.
    #[must_use]
    pub fn index(&self) -> Option<usize> {
        match *self {
            SystemError::NonFinitePosition { particle }
            | SystemError::InvalidInverseMass { particle } => Some(particle),
            SystemError::IndexOutOfRange { constraint }
            | SystemError::SameParticle { constraint }
            | SystemError::InvalidRestLength { constraint }
            | SystemError::InvalidCompliance { constraint }
            | SystemError::UnrepresentableScale { constraint }
            | SystemError::ZeroLength { constraint }
            | SystemError::InvalidFlags { constraint }
            | SystemError::InvalidResult { constraint } => Some(constraint),
            SystemError::CapacityTooSmall { needed } => Some(needed),
            SystemError::InvalidTimeStep
            | SystemError::ParticleCountMismatch
            | SystemError::TooManyParticles
            | SystemError::InvalidTolerance
            | SystemError::InvalidShape => None,
        }
    }
}

impl fmt::Display for SystemError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            SystemError::InvalidTimeStep => {
                f.write_str("the substep length is NaN, infinite, zero or negative")
            }
            SystemError::ParticleCountMismatch => {
                f.write_str("positions and inverse masses have different lengths")
            }
            SystemError::TooManyParticles => {
                f.write_str("more particles than u32 indices can address")
            }
            SystemError::NonFinitePosition { particle } => {
                write!(f, "particle {particle}: position is NaN or infinite")
            }
            SystemError::InvalidInverseMass { particle } => {
                write!(
                    f,
                    "particle {particle}: inverse mass is NaN, infinite or negative"
                )
            }
            SystemError::IndexOutOfRange { constraint } => {
                write!(f, "link {constraint}: particle index out of range")
            }
            SystemError::SameParticle { constraint } => write!(f, "link {constraint}: i == j"),
            SystemError::InvalidRestLength { constraint } => {
                write!(
                    f,
                    "link {constraint}: rest length is NaN, infinite, negative or zero"
                )
            }
            SystemError::InvalidCompliance { constraint } => {
                write!(
                    f,
                    "link {constraint}: compliance is NaN, infinite or negative"
                )
            }
            SystemError::UnrepresentableScale { constraint } => {
                write!(f, "link {constraint}: scaled compliance or denominator is not finite and positive")
            }
            SystemError::ZeroLength { constraint } => {
                write!(f, "link {constraint}: particles coincide (zero length)")
            }
            SystemError::InvalidFlags { constraint } => {
                write!(f, "link {constraint}: unknown flag bits")
            }
            SystemError::InvalidResult { constraint } => {
                write!(f, "link {constraint}: correction would not be finite")
            }
            SystemError::InvalidTolerance => f.write_str("tolerance is NaN, infinite or negative"),
            SystemError::InvalidShape => {
                f.write_str("particle count does not fit the requested shape")
            }
            SystemError::CapacityTooSmall { needed } => {
                write!(f, "link slice too short: {needed} links needed")
            }
        }
    }
}

impl core::error::Error for SystemError {}

/// Diagnostics of one Gauss-Seidel sweep (or of [`Substep::measure`]).
///
/// `max_abs_c` and `max_residual` are taken when each link is visited,
/// before its correction: they describe the state the sweep started from as
/// Gauss-Seidel sees it. `max_residual = max |C + α̃λ|` is the XPBD
/// convergence measure (zero at a soft equilibrium even when `C ≠ 0`).
/// Links with two static particles or skipped for zero length are not
/// included in the maxima.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct SweepStats<T> {
    /// Links corrected.
    pub applied: usize,
    /// Links skipped because both particles are static (`w_i = w_j = 0`).
    pub skipped_static: usize,
    /// Links skipped for zero length under [`ZeroLength::Skip`].
    pub skipped_zero_length: usize,
    /// Largest |C| (m).
    pub max_abs_c: T,
    /// Largest compliance residual |C + α̃λ| (m).
    pub max_residual: T,
}

/// The result of [`Substep::iterate_until`].
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Convergence<T> {
    /// Sweeps run.
    pub iterations: u32,
    /// 1 when the last sweep's `max_residual` was ≤ the tolerance, else 0.
    pub converged: u32,
    /// The last sweep's diagnostics (all zero when no sweep ran).
    pub last: SweepStats<T>,
}

/// Checks everything a substep relies on, in this order: h; the particle
/// counts; each particle (position, then inverse mass); each link (indices,
/// `i ≠ j`, rest length, compliance, scale, and zero length under
/// [`ZeroLength::Reject`]). Writes nothing.
pub(crate) fn validate<T: Real, const D: usize>(
    positions: &[[T; D]],
    inverse_masses: &[T],
    links: &[Link<T>],
    h: T,
    policy: ZeroLength,
) -> Result<(), SystemError> {
    validate_flat(
        positions.as_flattened(),
        positions.len(),
        inverse_masses,
        links,
        h,
        policy,
    )
}

/// [`validate`] over flattened positions (`count` particles of
/// `x.len() / count` coordinates): one copy per float type, whatever the
/// dimension (a cold path: once per substep).
#[inline(never)]
fn validate_flat<T: Real>(
    x: &[T],
    count: usize,
    inverse_masses: &[T],
    links: &[Link<T>],
    h: T,
    policy: ZeroLength,
) -> Result<(), SystemError> {
    if !h.is_finite() || h <= T::ZERO {
        return Err(SystemError::InvalidTimeStep);
    }
    if count != inverse_masses.len() {
        return Err(SystemError::ParticleCountMismatch);
    }
    if u32::try_from(count).is_err() {
        return Err(SystemError::TooManyParticles);
    }
    let d = x.len().checked_div(count).unwrap_or(0);
    for (particle, w) in inverse_masses.iter().enumerate() {
        if !coords(x, d, particle)
            .unwrap_or(&[])
            .iter()
            .all(|c| c.is_finite())
        {
            return Err(SystemError::NonFinitePosition { particle });
        }
        if !finite_non_negative(*w) {
            return Err(SystemError::InvalidInverseMass { particle });
        }
    }
    let h2 = h * h;
    for (constraint, link) in links.iter().enumerate() {
        // `inverse_masses` has `count` entries: its bounds are the particles'.
        let (Some(&wi), Some(&wj)) = (get(inverse_masses, link.i), get(inverse_masses, link.j))
        else {
            return Err(SystemError::IndexOutOfRange { constraint });
        };
        if link.i == link.j {
            return Err(SystemError::SameParticle { constraint });
        }
        if !finite_non_negative(link.rest) || link.rest == T::ZERO {
            return Err(SystemError::InvalidRestLength { constraint });
        }
        if !finite_non_negative(link.compliance) {
            return Err(SystemError::InvalidCompliance { constraint });
        }
        if link.flags & !Link::<T>::TENSION_ONLY != 0 {
            return Err(SystemError::InvalidFlags { constraint });
        }
        let w = wi + wj;
        if w != T::ZERO {
            let alpha = link.compliance / h2;
            let denominator = w + alpha;
            if !alpha.is_finite() || !denominator.is_finite() || denominator <= T::ZERO {
                return Err(SystemError::UnrepresentableScale { constraint });
            }
            if policy == ZeroLength::Reject {
                let (xi, xj) = (
                    coords(x, d, index(link.i)).unwrap_or(&[]),
                    coords(x, d, index(link.j)).unwrap_or(&[]),
                );
                if length_squared(xi, xj) < T::MIN_POSITIVE {
                    return Err(SystemError::ZeroLength { constraint });
                }
            }
        }
    }
    Ok(())
}

/// A `u32` index as `usize` (`usize::MAX` where it does not fit, which no
/// slice reaches).
#[inline]
fn index(i: u32) -> usize {
    usize::try_from(i).unwrap_or(usize::MAX)
}

#[inline]
fn get<U>(items: &[U], index: u32) -> Option<&U> {
    usize::try_from(index).ok().and_then(|k| items.get(k))
}

#[inline]
fn get_mut<U>(items: &mut [U], index: u32) -> Option<&mut U> {
    usize::try_from(index).ok().and_then(|k| items.get_mut(k))
}

/// `|x_j − x_i|²`, summed in coordinate order (any dimension: the sweeps
/// pass `[T; D]` arrays, the builders and the flat validation slices).
#[inline]
fn length_squared<T: Real>(xi: &[T], xj: &[T]) -> T {
    xi.iter().zip(xj).fold(T::ZERO, |acc, (a, b)| {
        let d = *b - *a;
        acc + d * d
    })
}

/// What visiting one link would do, computed without writing.
enum Visit<T, const D: usize> {
    Static,
    /// A slack tension-only link with λ = 0: nothing to do.
    Slack,
    ZeroLength,
    Apply {
        xi: [T; D],
        xj: [T; D],
        lambda: T,
        c: T,
        residual: T,
    },
}

/// Computes one link's correction (the module's equations, evaluated in a
/// fixed order with no fused multiply-add).
#[inline]
fn visit<T: Real, const D: usize>(
    positions: &[[T; D]],
    inverse_masses: &[T],
    link: &Link<T>,
    constraint: usize,
    h2: T,
) -> Result<Visit<T, D>, SystemError> {
    let (Some(xi), Some(xj), Some(&wi), Some(&wj)) = (
        get(positions, link.i),
        get(positions, link.j),
        get(inverse_masses, link.i),
        get(inverse_masses, link.j),
    ) else {
        return Err(SystemError::IndexOutOfRange { constraint });
    };
    let w = wi + wj;
    if w == T::ZERO {
        return Ok(Visit::Static);
    }
    let len2 = length_squared(xi, xj);
    // `!(len2 >= MIN_POSITIVE)`: also true for NaN, which cannot occur for
    // validated finite positions but must never produce a direction.
    match len2.partial_cmp(&T::MIN_POSITIVE) {
        Some(core::cmp::Ordering::Greater | core::cmp::Ordering::Equal) => {}
        Some(core::cmp::Ordering::Less) | None => return Ok(Visit::ZeroLength),
    }
    let len = len2.sqrt();
    let alpha = link.compliance / h2;
    let c = len - link.rest;
    let numerator = -c - alpha * link.lambda;
    let mut delta = numerator / (w + alpha);
    let mut residual = numerator.abs();
    let mut c_abs = c.abs();
    if link.flags & Link::<T>::TENSION_ONLY != 0 && link.lambda + delta > T::ZERO {
        // Unilateral: the accumulated λ may not become positive (pushing).
        // Clamp it to 0; the link is slack, so it has no residual.
        delta = -link.lambda;
        residual = T::ZERO;
        c_abs = T::ZERO;
        if delta == T::ZERO {
            return Ok(Visit::Slack);
        }
    }
    let si = wi * delta;
    let sj = wj * delta;
    let mut nxi = *xi;
    let mut nxj = *xj;
    // A static particle (w = 0) is not written at all, so it keeps its bits
    // (x − 0·n would turn −0.0 into +0.0).
    let (move_i, move_j) = (wi != T::ZERO, wj != T::ZERO);
    for (((pi, pj), a), b) in nxi.iter_mut().zip(nxj.iter_mut()).zip(xi).zip(xj) {
        let n = (*b - *a) / len;
        if move_i {
            *pi = *a - si * n;
        }
        if move_j {
            *pj = *b + sj * n;
        }
    }
    let lambda = link.lambda + delta;
    if !lambda.is_finite() || !nxi.iter().chain(nxj.iter()).all(|v| v.is_finite()) {
        return Err(SystemError::InvalidResult { constraint });
    }
    Ok(Visit::Apply {
        xi: nxi,
        xj: nxj,
        lambda,
        c: c_abs,
        residual,
    })
}

/// One Gauss-Seidel sweep in link order. Each link is all-or-nothing; on
/// error the links before it in this sweep have been applied.
pub(crate) fn sweep<T: Real, const D: usize>(
    positions: &mut [[T; D]],
    inverse_masses: &[T],
    links: &mut [Link<T>],
    h: T,
    policy: ZeroLength,
) -> Result<SweepStats<T>, SystemError> {
    let h2 = h * h;
    let mut stats = SweepStats::default();
    for (constraint, link) in links.iter_mut().enumerate() {
        match visit(positions, inverse_masses, link, constraint, h2)? {
            Visit::Static => stats.skipped_static = stats.skipped_static.saturating_add(1),
            Visit::Slack => stats.applied = stats.applied.saturating_add(1),
            Visit::ZeroLength => match policy {
                ZeroLength::Reject => return Err(SystemError::ZeroLength { constraint }),
                ZeroLength::Skip => {
                    stats.skipped_zero_length = stats.skipped_zero_length.saturating_add(1)
                }
            },
            Visit::Apply {
                xi,
                xj,
                lambda,
                c,
                residual,
            } => {
                if let Some(p) = get_mut(positions, link.i) {
                    *p = xi;
                }
                if let Some(p) = get_mut(positions, link.j) {
                    *p = xj;
                }
                link.lambda = lambda;
                stats.applied = stats.applied.saturating_add(1);
                stats.max_abs_c = max(stats.max_abs_c, c);
                stats.max_residual = max(stats.max_residual, residual);
            }
        }
    }
    Ok(stats)
}

/// The residuals of the current state, without changing anything.
pub(crate) fn measure<T: Real, const D: usize>(
    positions: &[[T; D]],
    inverse_masses: &[T],
    links: &[Link<T>],
    h: T,
    policy: ZeroLength,
) -> Result<SweepStats<T>, SystemError> {
    let h2 = h * h;
    let mut stats = SweepStats::default();
    for (constraint, link) in links.iter().enumerate() {
        match visit(positions, inverse_masses, link, constraint, h2) {
            Ok(Visit::Static) => stats.skipped_static = stats.skipped_static.saturating_add(1),
            Ok(Visit::Slack) => stats.applied = stats.applied.saturating_add(1),
            Ok(Visit::ZeroLength) => match policy {
                ZeroLength::Reject => return Err(SystemError::ZeroLength { constraint }),
                ZeroLength::Skip => {
                    stats.skipped_zero_length = stats.skipped_zero_length.saturating_add(1)
                }
            },
            Ok(Visit::Apply { c, residual, .. }) => {
                stats.applied = stats.applied.saturating_add(1);
                stats.max_abs_c = max(stats.max_abs_c, c);
                stats.max_residual = max(stats.max_residual, residual);
            }
            Err(e) => return Err(e),
        }
    }
    Ok(stats)
}

/// Sweeps until `max_residual ≤ tolerance` or `max_iterations` sweeps ran.
pub(crate) fn iterate_until<T: Real, const D: usize>(
    positions: &mut [[T; D]],
    inverse_masses: &[T],
    links: &mut [Link<T>],
    h: T,
    policy: ZeroLength,
    tolerance: T,
    max_iterations: u32,
) -> Result<Convergence<T>, SystemError> {
    if !finite_non_negative(tolerance) {
        return Err(SystemError::InvalidTolerance);
    }
    let mut result = Convergence::default();
    while result.iterations < max_iterations {
        result.last = sweep(positions, inverse_masses, links, h, policy)?;
        result.iterations = result.iterations.saturating_add(1);
        if result.last.max_residual <= tolerance {
            result.converged = 1;
            break;
        }
    }
    Ok(result)
}

#[inline]
fn max<T: Real>(a: T, b: T) -> T {
    if b > a {
        b
    } else {
        a
    }
}

/// Particles and links over caller-owned memory, between substeps.
///
/// The system borrows the caller's slices: positions (`[T; D]` per particle,
/// m), inverse masses (1/kg) and links. It never allocates; the slices can
/// live on the stack, in a static, or in a fixed-capacity container such as
/// `heapless::Vec` (which dereferences to a slice).
///
/// Between substeps the caller may move particles ([`positions_mut`]) and
/// edit links ([`links_mut`]). [`begin_substep`] validates everything, resets
/// every λ and returns a [`Substep`] that mutably borrows the system: while
/// it lives, nothing can change rest lengths, compliances, inverse masses or
/// h, so the lifecycle rule holds by construction.
///
/// [`positions_mut`]: Self::positions_mut
/// [`links_mut`]: Self::links_mut
/// [`begin_substep`]: Self::begin_substep
///
/// # Examples
///
/// A 3D rope of three particles, stretched, solved for one substep:
///
/// ```
/// use xpbd::{rope, Link, System};
///
/// let mut x = [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [2.0, 0.0, 0.0]];
/// let w = [0.0, 1.0, 1.0]; // particle 0 pinned
/// let mut links = [Link::default(); 2];
/// let n = rope(&x, 1e-8, &mut links).unwrap(); // rest lengths 1 m, α = 1e-8 m/N
/// assert_eq!(n, 2);
/// x[2] = [3.0, 0.0, 0.0]; // stretch the last link by 1 m
///
/// let mut system = System::new(&mut x, &w, &mut links).unwrap();
/// let mut substep = system.begin_substep(1.0 / 240.0).unwrap();
/// let result = substep.iterate_until(1e-12, 100).unwrap();
/// assert_eq!(result.converged, 1);
/// // Nearly rigid links (α̃ = 1e-8 · 240² ≈ 5.8e-4 /kg): the stretch is gone.
/// let end = substep.positions()[2][0];
/// assert!(end > 2.0 && end < 2.01, "{end}");
/// ```
#[derive(Debug)]
pub struct System<'a, T: Real, const D: usize> {
    positions: &'a mut [[T; D]],
    inverse_masses: &'a [T],
    links: &'a mut [Link<T>],
    zero_length: ZeroLength,
}

impl<'a, T: Real, const D: usize> System<'a, T, D> {
    /// A system over the caller's slices, with [`ZeroLength::Reject`].
    ///
    /// # Errors
    ///
    /// [`SystemError::ParticleCountMismatch`] when the two particle slices
    /// differ in length, [`SystemError::TooManyParticles`] when `u32` indices
    /// cannot address them. Everything else is checked by
    /// [`begin_substep`](Self::begin_substep).
    pub fn new(
        positions: &'a mut [[T; D]],
        inverse_masses: &'a [T],
        links: &'a mut [Link<T>],
    ) -> Result<Self, SystemError> {
        if positions.len() != inverse_masses.len() {
            return Err(SystemError::ParticleCountMismatch);
        }
        if u32::try_from(positions.len()).is_err() {
            return Err(SystemError::TooManyParticles);
        }
        Ok(Self {
            positions,
            inverse_masses,
            links,
            zero_length: ZeroLength::Reject,
        })
    }

    /// The same system with another zero-length policy.
    #[must_use]
    pub fn with_zero_length(mut self, policy: ZeroLength) -> Self {
        self.zero_length = policy;
        self
    }

    /// The zero-length policy.
    #[must_use]
    pub fn zero_length(&self) -> ZeroLength {
        self.zero_length
    }

    /// Particle positions (m).
    #[must_use]
    pub fn positions(&self) -> &[[T; D]] {
        self.positions
    }

    /// Particle positions (m), mutable between substeps (for prediction).
    pub fn positions_mut(&mut self) -> &mut [[T; D]] {
        self.positions
    }

    /// Inverse masses (1/kg).
    #[must_use]
    pub fn inverse_masses(&self) -> &[T] {
        self.inverse_masses
    }

    /// The links, with their λ from the last substep.
    #[must_use]
    pub fn links(&self) -> &[Link<T>] {
        self.links
    }

    /// The links, mutable between substeps (rest lengths, compliances).
    pub fn links_mut(&mut self) -> &mut [Link<T>] {
        self.links
    }

    /// Starts a substep of length `h` (s): validates every particle and link,
    /// then sets every λ to zero. `h` is the real substep length, never the
    /// render frame time (with n substeps per frame, `h = frame / n`).
    ///
    /// # Errors
    ///
    /// In the order checked: [`SystemError::InvalidTimeStep`],
    /// [`SystemError::NonFinitePosition`], [`SystemError::InvalidInverseMass`]
    /// (naming the particle), [`SystemError::IndexOutOfRange`],
    /// [`SystemError::SameParticle`], [`SystemError::InvalidRestLength`],
    /// [`SystemError::InvalidCompliance`], [`SystemError::UnrepresentableScale`],
    /// and [`SystemError::ZeroLength`] under [`ZeroLength::Reject`] (naming
    /// the link). On error nothing is written: positions and every λ stay
    /// bit-identical.
    pub fn begin_substep(&mut self, h: T) -> Result<Substep<'_, 'a, T, D>, SystemError> {
        validate(
            self.positions,
            self.inverse_masses,
            self.links,
            h,
            self.zero_length,
        )?;
        for link in self.links.iter_mut() {
            link.lambda = T::ZERO;
        }
        Ok(Substep { system: self, h })
    }
}

/// One substep in progress: h is fixed, every λ started at zero, and the
/// system is borrowed so that nothing else can change it until the substep
/// ends (when this value is dropped).
#[derive(Debug)]
pub struct Substep<'s, 'a, T: Real, const D: usize> {
    system: &'s mut System<'a, T, D>,
    h: T,
}

impl<T: Real, const D: usize> Substep<'_, '_, T, D> {
    /// The substep length h (s) fixed by `begin_substep`.
    #[must_use]
    pub fn h(&self) -> T {
        self.h
    }

    /// One solver iteration: a Gauss-Seidel sweep over the links in slice
    /// order, keeping every λ (see the module documentation for the update).
    ///
    /// # Errors
    ///
    /// [`SystemError::ZeroLength`] (under [`ZeroLength::Reject`]) or
    /// [`SystemError::InvalidResult`], naming the link. Each link is applied
    /// all-or-nothing: the failing link and the ones after it are untouched,
    /// the ones before it in this sweep have been applied.
    pub fn iterate(&mut self) -> Result<SweepStats<T>, SystemError> {
        let s = &mut *self.system;
        sweep(
            s.positions,
            s.inverse_masses,
            s.links,
            self.h,
            s.zero_length,
        )
    }

    /// Iterates until the compliance residual `max |C + α̃λ|` of a sweep is at
    /// most `tolerance` (m) or `max_iterations` sweeps have run: the
    /// iteration budget is a convergence resource, not a stiffness knob.
    ///
    /// # Errors
    ///
    /// [`SystemError::InvalidTolerance`] (nothing written), or the errors of
    /// [`iterate`](Self::iterate).
    pub fn iterate_until(
        &mut self,
        tolerance: T,
        max_iterations: u32,
    ) -> Result<Convergence<T>, SystemError> {
        let s = &mut *self.system;
        iterate_until(
            s.positions,
            s.inverse_masses,
            s.links,
            self.h,
            s.zero_length,
            tolerance,
            max_iterations,
        )
    }

    /// The diagnostics a sweep would report for the current state, without
    /// changing anything (`applied` counts the links a sweep would correct).
    ///
    /// # Errors
    ///
    /// As [`iterate`](Self::iterate); nothing is written in any case.
    pub fn measure(&self) -> Result<SweepStats<T>, SystemError> {
        let s = &*self.system;
        measure(
            s.positions,
            s.inverse_masses,
            s.links,
            self.h,
            s.zero_length,
        )
    }

    /// Particle positions (m).
    #[must_use]
    pub fn positions(&self) -> &[[T; D]] {
        self.system.positions
    }

    /// The links with their current λ.
    #[must_use]
    pub fn links(&self) -> &[Link<T>] {
        self.system.links
    }
}

/// The coordinates of particle `k` in a flat array of `d` per particle
/// (`None` when out of range).
#[inline]
fn coords<T>(positions: &[T], d: usize, k: usize) -> Option<&[T]> {
    positions.get(k.checked_mul(d)?..k.checked_add(1)?.checked_mul(d)?)
}

/// Rest length `|x_j − x_i|` of a builder's link, rejected when not a
/// finite positive number.
fn rest_between<T: Real>(
    positions: &[T],
    d: usize,
    i: usize,
    j: usize,
    constraint: usize,
) -> Result<T, SystemError> {
    let (Some(xi), Some(xj)) = (coords(positions, d, i), coords(positions, d, j)) else {
        return Err(SystemError::InvalidShape);
    };
    if !xi.iter().chain(xj.iter()).all(|v| v.is_finite()) {
        return Err(SystemError::NonFinitePosition {
            particle: if xi.iter().all(|v| v.is_finite()) {
                j
            } else {
                i
            },
        });
    }
    let rest = length_squared(xi, xj).sqrt();
    if !rest.is_finite() || rest <= T::ZERO {
        return Err(SystemError::InvalidRestLength { constraint });
    }
    Ok(rest)
}

/// The links a builder writes: [`rope`], [`closed_loop`] or [`cloth`].
#[derive(Clone, Copy)]
pub(crate) enum Shape {
    /// `(k, k + 1)`.
    Rope,
    /// `(k, k + 1)` and `(n − 1, 0)`.
    Loop,
    /// See [`cloth`].
    Cloth {
        /// Grid rows.
        rows: usize,
        /// Grid columns.
        cols: usize,
        /// With both diagonals of each cell.
        shear: bool,
    },
}

/// The one builder behind [`rope`], [`closed_loop`], [`cloth`] and the C
/// `xpbd_build_*` functions: `n` particles of `d` coordinates each in the
/// flat `positions` (`n·d` entries), the dimension a run-time value so
/// that each precision has one copy of the code. Writes the links of
/// `shape` with rest lengths from the positions, all-or-nothing: on error
/// `out` is untouched.
#[inline(never)]
pub(crate) fn build<T: Real>(
    positions: &[T],
    n: usize,
    d: usize,
    shape: Shape,
    compliance: T,
    out: &mut [Link<T>],
) -> Result<usize, SystemError> {
    let needed = match shape {
        Shape::Rope if n >= 2 => n.saturating_sub(1),
        Shape::Loop if n >= 3 => n,
        Shape::Cloth { rows, cols, shear }
            if rows >= 2 && cols >= 2 && rows.checked_mul(cols) == Some(n) =>
        {
            cloth_link_count(rows, cols, shear).ok_or(SystemError::InvalidShape)?
        }
        _ => return Err(SystemError::InvalidShape),
    };
    let pair = |k: usize| match shape {
        Shape::Rope => (k, k.saturating_add(1)),
        Shape::Loop => (
            k,
            if k.saturating_add(1) == n {
                0
            } else {
                k.saturating_add(1)
            },
        ),
        Shape::Cloth { rows, cols, .. } => cloth_pair(k, rows, cols),
    };
    if u32::try_from(n).is_err() {
        return Err(SystemError::TooManyParticles);
    }
    if !finite_non_negative(compliance) {
        return Err(SystemError::InvalidCompliance { constraint: 0 });
    }
    if out.len() < needed {
        return Err(SystemError::CapacityTooSmall { needed });
    }
    // First pass: validate every link without writing.
    for constraint in 0..needed {
        let (i, j) = pair(constraint);
        rest_between(positions, d, i, j, constraint)?;
    }
    for (constraint, slot) in out.iter_mut().take(needed).enumerate() {
        let (i, j) = pair(constraint);
        let rest = rest_between(positions, d, i, j, constraint)?;
        let (Ok(i), Ok(j)) = (u32::try_from(i), u32::try_from(j)) else {
            return Err(SystemError::TooManyParticles);
        };
        *slot = Link::new(i, j, rest, compliance);
    }
    Ok(needed)
}

/// Builds an open rope: links `(k, k + 1)` for `k = 0 … n − 2`, rest lengths
/// from the current positions, compliance α (m/N) for all, λ = 0. Returns the
/// number of links written (`n − 1`) into the front of `links`.
///
/// # Errors
///
/// [`SystemError::InvalidShape`] for fewer than 2 particles,
/// [`SystemError::InvalidCompliance`], [`SystemError::CapacityTooSmall`],
/// [`SystemError::NonFinitePosition`], or [`SystemError::InvalidRestLength`]
/// naming a link whose particles coincide. Nothing is written on error.
///
/// # Examples
///
/// ```
/// let x = [[0.0_f32, 0.0], [0.5, 0.0], [0.5, 0.5]];
/// let mut links = [xpbd::Link::default(); 4];
/// assert_eq!(xpbd::rope(&x, 0.0, &mut links), Ok(2));
/// assert_eq!((links[1].i, links[1].j, links[1].rest), (1, 2, 0.5));
/// ```
pub fn rope<T: Real, const D: usize>(
    positions: &[[T; D]],
    compliance: T,
    links: &mut [Link<T>],
) -> Result<usize, SystemError> {
    build(
        positions.as_flattened(),
        positions.len(),
        D,
        Shape::Rope,
        compliance,
        links,
    )
}

/// Builds a closed loop: the open rope's links plus `(n − 1, 0)`. Returns
/// `n`, the number of links written.
///
/// # Errors
///
/// As [`rope`], with [`SystemError::InvalidShape`] for fewer than 3 particles.
pub fn closed_loop<T: Real, const D: usize>(
    positions: &[[T; D]],
    compliance: T,
    links: &mut [Link<T>],
) -> Result<usize, SystemError> {
    build(
        positions.as_flattened(),
        positions.len(),
        D,
        Shape::Loop,
        compliance,
        links,
    )
}

/// The number of links [`cloth`] writes for a `rows × cols` grid:
/// `rows·(cols − 1) + (rows − 1)·cols` structural, plus `2·(rows − 1)·(cols − 1)`
/// shear links when `shear` is set. `None` when `rows < 2`, `cols < 2` or
/// on overflow.
#[must_use]
pub fn cloth_link_count(rows: usize, cols: usize, shear: bool) -> Option<usize> {
    if rows < 2 || cols < 2 {
        return None;
    }
    let r1 = rows.checked_sub(1)?;
    let c1 = cols.checked_sub(1)?;
    let structural = rows.checked_mul(c1)?.checked_add(r1.checked_mul(cols)?)?;
    if shear {
        structural.checked_add(r1.checked_mul(c1)?.checked_mul(2)?)
    } else {
        Some(structural)
    }
}

/// The particles of cloth link `k` (in [`cloth`]'s order) for a
/// `rows × cols` grid with `rows, cols ≥ 2`: computed from `k` alone, so the
/// builder needs no iterator state.
fn cloth_pair(k: usize, rows: usize, cols: usize) -> (usize, usize) {
    let c1 = cols.saturating_sub(1);
    let at = |r: usize, c: usize| r.saturating_mul(cols).saturating_add(c);
    // `checked_div`/`checked_rem` cannot panic; the divisors are ≥ 1 here.
    let split = |k: usize, d: usize| (k.checked_div(d).unwrap_or(0), k.checked_rem(d).unwrap_or(0));
    let horizontal = rows.saturating_mul(c1);
    if k < horizontal {
        let (r, c) = split(k, c1);
        return (at(r, c), at(r, c.saturating_add(1)));
    }
    let k = k.saturating_sub(horizontal);
    let vertical = rows.saturating_sub(1).saturating_mul(cols);
    if k < vertical {
        let (r, c) = split(k, cols);
        return (at(r, c), at(r.saturating_add(1), c));
    }
    let k = k.saturating_sub(vertical);
    let (cell, second) = split(k, 2);
    let (r, c) = split(cell, c1);
    let (r1, cc1) = (r.saturating_add(1), c.saturating_add(1));
    if second == 0 {
        (at(r, c), at(r1, cc1))
    } else {
        (at(r, cc1), at(r1, c))
    }
}

/// Builds a rectangular cloth over a row-major grid (particle `r·cols + c`):
/// horizontal links `(r, c)–(r, c+1)` row by row, then vertical links
/// `(r, c)–(r+1, c)`, then, with `shear`, both diagonals of each cell
/// (`(r, c)–(r+1, c+1)` and `(r, c+1)–(r+1, c)`). Rest lengths from the
/// current positions, compliance α (m/N), λ = 0. Returns the number of links
/// written ([`cloth_link_count`]).
///
/// # Errors
///
/// [`SystemError::InvalidShape`] unless `rows ≥ 2`, `cols ≥ 2` and
/// `positions.len() == rows·cols`; otherwise as [`rope`]. Nothing is written
/// on error.
pub fn cloth<T: Real, const D: usize>(
    positions: &[[T; D]],
    rows: usize,
    cols: usize,
    shear: bool,
    compliance: T,
    links: &mut [Link<T>],
) -> Result<usize, SystemError> {
    build(
        positions.as_flattened(),
        positions.len(),
        D,
        Shape::Cloth { rows, cols, shear },
        compliance,
        links,
    )
}
