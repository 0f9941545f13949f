//! Constraint systems in 2D and 3D over shared particles: ropes, loops and
//! cloth, solved by Gauss-Seidel sweeps over caller-owned memory.
//!
//! # The substep
//!
//! A [`System`] borrows the caller's positions (m), inverse masses (1/kg)
//! and links. [`System::begin_substep`] fixes the substep length h (s),
//! validates everything and resets every λ to zero — in
//! `reset_lambdas`, the one λ reset of every system, sequential, stepped
//! and colored — then returns a [`Substep`]: one iteration is one sweep over
//! the links in slice order (Gauss-Seidel), each link seeing the
//! corrections of the links before it, λ kept from iteration to iteration.
//! The update itself is `constraint::update`, the same for every kind (the
//! equations are in [`crate::constraint::distance`]):
//!
//! ```text
//! Δλ  = (−C − α̃ λ) / (w_i + w_j + α̃)        α̃ = α / h²
//! x_i ← x_i − w_i Δλ n      x_j ← x_j + w_j Δλ n      λ ← λ + Δλ
//! ```
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
//!
//! # Rooms
//!
//! | file | holds |
//! |---|---|
//! | `system.rs` | [`System`] and the validation of a substep's inputs |
//! | `substep.rs` | [`Substep`] and `reset_lambdas`, the only λ reset |
//! | `sweep.rs` | the Gauss-Seidel sweep over any constraint kind, measure, iterate-until |
//! | `stats.rs` | [`SweepStats`], [`Convergence`] |
//! | `groups.rs`, `kinds.rs` | [`Constraints`] and the kinds table that walks every group kind |
//!
//! The shape builders are in [`crate::build`].

/// The most substeps one step may run (`StepConfig::substeps`).
pub const MAX_SUBSTEPS: u32 = 4096;

/// The most sweeps one substep may run (`StepConfig::iterations`,
/// `max_iterations` of `iterate_until`).
pub const MAX_ITERATIONS: u32 = 65_536;

/// The most work one call may do, in visits: 2^30 (about 10 s at today's
/// sweep speeds, a constraint solved being the costliest visit; a
/// particle advanced or a self-collision candidate costs less).
///
/// - A system's `iterate_until`: sweeps × (links + group constraints).
/// - A world step (`step`, `step_colored` and their C
///   entries), counted before anything is written: sweeps (substeps ×
///   iterations) × (links + contact capacity + engine contacts +
///   self-collision pair capacity + group constraints), plus substeps ×
///   particles × (1 + planes + spheres + capsules + boxes) (each substep
///   predicts every particle, tests it against every collider and
///   updates its velocity). A call over it fails at once with
///   `WorkLimit`, so a bad configuration (`substeps = UINT32_MAX`, 4096
///   substeps of 10^6 particles) cannot run for hours.
/// - With self-collision on, the rest of the limit is the budget of the
///   frame's pair searches, all substeps together: every candidate (each
///   entry of the hash buckets of the 27 cells around a particle, 139–144
///   a particle in the bench's four-layer slab) and every linked neighbour
///   compared with one counts one visit, paid before the search makes it.
///   When the budget is spent the search stops and the step fails with
///   `WorkLimit`, positions and velocities rolled back (all particles in
///   one cell make the search quadratic in the particle count: it ends
///   in that status, not in minutes of work).
pub const MAX_WORK: u64 = 1 << 30;

/// Whether `sweeps` sweeps over `per_sweep` instances stay within
/// [`MAX_WORK`].
#[inline]
pub(crate) fn within_work(sweeps: u64, per_sweep: usize) -> bool {
    sweep_work(sweeps, per_sweep) <= MAX_WORK
}

/// The visits of `sweeps` sweeps over `per_sweep` instances (saturating).
#[inline]
pub(crate) fn sweep_work(sweeps: u64, per_sweep: usize) -> u64 {
    let per = u64::try_from(per_sweep).unwrap_or(u64::MAX);
    sweeps.saturating_mul(per)
}

mod groups;
mod kinds;
mod stats;
mod substep;
mod sweep;
mod system;

pub use crate::constraint::distance::Link;
pub use crate::error::SystemError;
pub(crate) use groups::stop_error;
pub use groups::{Constraints, Group};
pub(crate) use kinds::{group_kinds, GROUPS};
pub use stats::{Convergence, SweepStats};
pub use substep::Substep;
pub(crate) use substep::{
    contact_at, contact_error, reset_lambdas, ContactGroup, PairColors, PAIR_COLORS,
};
pub(crate) use sweep::{count_visit, iterate_until, measure, sweep, sweep_links, Stop, Tally};
pub use system::System;
pub(crate) use system::{
    coords, first_non_finite, first_zero_length, index_entries, validate, validate_links,
    validate_particles, LinkConstants,
};

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
