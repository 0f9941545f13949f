//! # xpbd
//!
//! A `#![no_std]` XPBD (extended position-based dynamics) constraint solver
//! with a C ABI, built around one rule:
//!
//! **The accumulated multiplier λ belongs to one constraint instance, is reset
//! only at substep entry, and is kept across solver iterations.** Then the
//! stiffness of a link depends on its compliance α and the real substep
//! length h (through α̃ = α/h²), not on how many iterations were run.
//!
//! - [`DistanceConstraint`]: the 1D seed solver of `docs/spec.md`, generic over
//!   [`f32`] and [`f64`] ([`Real`]), with [`Error`] for every rejected input.
//! - [`System`]: distance constraints in 2D and 3D over shared particles
//!   (ropes, loops, cloth; see [`solver`]), solved by Gauss-Seidel sweeps
//!   inside a [`Substep`] that fixes h and owns the λ lifecycle.
//! - [`step`]: full XPBD stepping around the systems: prediction with
//!   gravity, substeps, tension-only links, plane and sphere contacts with
//!   friction, velocity update.
//! - [`SimdLinks`]: the same links solved in colored order (no two
//!   links of one color share a particle; see [`coloring`]) by a
//!   vectorizable structure-of-arrays kernel, with job ranges an engine's
//!   thread pool can run concurrently (see [`colored`]).
//! - [`ffi`]: the C ABI declared in `include/xpbd.h`.
//! - [`fp_environment`]: whether the thread's floating-point environment is
//!   the IEEE default the results are defined for (C: `xpbd_fp_environment`).
//! - [`VERSION`] and friends: the version from `Cargo.toml`, the same as the
//!   C header's `XPBD_VERSION_*` macros and the C function
//!   [`xpbd_version()`](ffi::xpbd_version).
//!
//! The crate uses no heap, no `std`, no global state, and never panics: every
//! input is validated and a rejected call leaves all state bit-identical.
//!
//! # Features
//!
//! | feature | enables | cost | needs `std` |
//! |---|---|---|---|
//! | *(default: none)* | the whole solver, for `f32` and `f64`, and the C ABI functions | — | no |
//! | `c-lib-panic-handler` | a `#[panic_handler]` (an endless spin loop; no exported function can reach it) for the C static library built by `cargo c-lib` | a few bytes of code | no |
//!
//! Never enable `c-lib-panic-handler` in a Rust program or firmware: an
//! application has exactly one panic handler, and it is the application's.
//! The minimum supported Rust version is 1.81 (`rust-version` in
//! `Cargo.toml`, checked in CI).
//!
//! # Examples
//!
//! ```
//! use xpbd::DistanceConstraint;
//!
//! let mut link = DistanceConstraint::<f64>::new();
//! let (mut a, mut b) = (0.0, 2.0); // rest 1 m: stretched by 1 m
//! let (wa, wb, rest, compliance, h) = (1.0, 1.0, 1.0, 0.01, 0.1);
//!
//! link.begin_substep(); // λ = 0: at substep entry, and only there
//! for _ in 0..10 {
//!     link.solve(&mut a, &mut b, wa, wb, rest, compliance, h).unwrap();
//! }
//! let c = b - a - rest;
//! let alpha_tilde = compliance / (h * h);
//! // The soft equilibrium C + α̃λ = 0, whatever the iteration count.
//! assert!((c + alpha_tilde * link.lambda()).abs() < 1e-15);
//! assert_eq!(c, 0.3333333333333335);
//! ```
#![cfg_attr(not(test), no_std)]
#![deny(missing_docs)]
#![deny(unsafe_op_in_unsafe_fn)]
#![deny(clippy::undocumented_unsafe_blocks)]
#![deny(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    clippy::unreachable,
    clippy::todo,
    clippy::unimplemented,
    clippy::panic_in_result_fn,
    clippy::float_cmp_const,
    clippy::as_conversions
)]

// The floors, bottom up: `real`, `fenv` and `error` import nothing above them
// (`math`, the vector helpers and atan2, only `real`);
// `constraint` (kinds and the one update) imports only those; `solver`
// (systems, substeps, sweeps) builds on `constraint`; `step` (the frame
// loop) and `colored` (colored order, kernels) on `solver`; `ffi` (the C
// ABI) on everything, and nothing imports `ffi`.
pub mod build;
pub mod colored;
pub mod constraint;
mod error;
mod fenv;
pub mod ffi;
mod math;
mod real;
pub mod solver;
pub mod step;
mod version;

use colored::coloring;

pub use build::{
    bends_count_for_cloth, bends_for_cloth, bends_for_triangles, closed_loop, cloth,
    cloth_link_count, enclosed_volume, icosphere, icosphere_counts, links_for_tets,
    links_for_triangles, mesh_volume, rope, surface_links, tet_block, tet_block_counts,
    tet_block_link_count, tet_block_links, tet_rest_volumes, tet_volume, tethers_along_links,
    tets_for_mesh, MeshParticles,
};
pub use colored::{
    fill_colored_links, job_range, Aos, ColorJob, ColorJobs, ColoredGroups, ColoredLinks,
    GroupColors, GroupJob, GroupJobs, Particles, SimdLinks, SimdLinksSubstep, Soa,
};
pub use coloring::{
    check_coloring, check_instance_coloring, cloth_coloring, color_instances,
    color_moving_instances, color_order, fill_in_order, greedy_coloring, rope_coloring, Instance,
};
pub use constraint::attachment::Attachment;
pub use constraint::bend::Bend;
pub use constraint::pressure::{MeshVolume, MeshVolumes};
pub use constraint::seed::DistanceConstraint;
pub use constraint::skin::SkinConstraint;
pub use constraint::tether::{tethers, Tether};
pub use constraint::volume::Tet;
pub use error::{Error, Field, StepError, SystemError};
pub use fenv::{fp_environment, FpEnvironment, Rounding};
pub use real::Real;
pub use solver::{
    Constraints, Convergence, Group, Link, Substep, SweepStats, System, ZeroLength, MAX_ITERATIONS,
    MAX_SUBSTEPS, MAX_WORK,
};
pub use version::{VERSION, VERSION_MAJOR, VERSION_MINOR, VERSION_NUMBER, VERSION_PATCH};

/// The README's Rust example, compiled and run as a doctest.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
