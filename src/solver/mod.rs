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
//! | `build.rs` | [`rope`], [`closed_loop`], [`cloth`] builders |

mod build;
mod stats;
mod substep;
mod sweep;
mod system;

pub use crate::constraint::distance::Link;
pub use crate::error::SystemError;
pub(crate) use build::{build, Shape};
pub use build::{closed_loop, cloth, cloth_link_count, rope};
pub use stats::{Convergence, SweepStats};
pub use substep::Substep;
pub(crate) use substep::{reset_lambdas, ContactGroup};
pub(crate) use sweep::{iterate_until, measure, sweep, sweep_links};
pub(crate) use system::validate;
pub use system::System;

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
