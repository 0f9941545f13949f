//! Colored 3D solving: Gauss-Seidel in color order over structure-of-arrays
//! links, with a vectorizable inner loop and job ranges for an engine's
//! thread pool.
//!
//! # What is solved
//!
//! The same distance links as [`crate::solver`] (`C = |x_j − x_i| − rest`,
//! the same XPBD update; bilateral or tension-only, a tension-only link
//! stored with a negative `rest`: see [`ColoredLinks::rest`]), visited in
//! **colored order**: the links are stored
//! sorted by color (see [`coloring`]) and a sweep solves color 0,
//! then color 1, … . No two links of one color share a particle, so within
//! a color the order of visits does not change any bit: the result is
//! deterministic and bit-identical between runs, between the Rust and C
//! entry points, and whatever the number of threads that split each color.
//!
//! Per substep, [`SimdLinks::begin_substep`] computes into caller
//! scratch, for every link, `α̃ = α/h²` (`alpha`) and the reciprocal
//! denominator `g = 1/(w_i + w_j + α̃)` (`inv_denominator`; 0 for a link
//! between two static particles). A visit is then, with `d = x_j − x_i`:
//!
//! ```text
//! len = sqrt(d·d)            (d·d summed in x, y, z order)
//! r   = 1 / len
//! C   = len − |rest|
//! Δλ  = (−C − α̃ λ) · g           (tension-only with λ + Δλ > 0: Δλ = −λ)
//! x_i ← x_i − (w_i Δλ)(d r)    x_j ← x_j + (w_j Δλ)(d r)    λ ← λ + Δλ
//! ```
//!
//! A static particle (`w = 0`) keeps its bits, and a slack tension-only
//! link whose λ is already 0 moves nothing, as in the sequential path.
//!
//! Two divisions fewer per visit than the sequential sweep's
//! `(−C − α̃λ)/(w_i + w_j + α̃)` and `d/len` (divisions are the slowest
//! vector instructions); the values agree with the sequential sweep over
//! the links in colored order to a few ulps per visit, not bit for bit.
//!
//! # The inner loop
//!
//! On x86-64 one SSE kernel (two f64 or four f32 links per register)
//! gathers the particles of each lane's link, computes every candidate
//! branch-free (`sqrtpd`/`divpd`, `sqrtps`/`divps`), checks the candidates
//! finite, and stores them back directly. Over [`Soa`] particles a group
//! whose particles are contiguous (detected per group from the indices: a
//! run, link `t` joining `i0 + t` and `j0 + t` as in a cloth's vertical
//! and diagonal colors, or neighbour pairs `(p, p+1), (p+2, p+3), …` as in
//! every color of a rope) is loaded and stored with contiguous loads and
//! stores (and, for pairs, shuffles) instead of scalar ones per lane; the
//! arithmetic and the bits are the same. On aarch64 and
//! wasm32 with `simd128` a portable loop over chunks of [`CHUNK`] links
//! computes into chunk-local arrays (which LLVM vectorizes) and then
//! scatters them; on targets without such SIMD (32-bit ARM, RISC-V, ...) a
//! plain loop solves one link at a time, with the same bits and a fraction
//! of the code. Validation (indices, proper
//! coloring) is done once at construction, finiteness of inputs once per
//! substep; the loop has no bounds checks (see the `SAFETY` notes).
//!
//! # All-or-nothing per link
//!
//! A link whose candidate has a non-finite position or λ
//! ([`SystemError::InvalidResult`]), or whose particles coincide under
//! [`ZeroLength::Reject`] ([`SystemError::ZeroLength`]), is not written; the
//! other links of its range are still solved, and the error names the first
//! such link (its colored position). [`SimdLinksSubstep::iterate`] then stops
//! before the next color. Each link's decision depends only on the state
//! before its color, so even a failed sweep leaves the same bits for every
//! split into jobs and every thread count.
//!
//! # Layouts
//!
//! [`Soa`] (separate `x`, `y`, `z` arrays) and [`Aos`] (`[T; 3]` per
//! particle, what engines with `float[3]` particles hold) use the same
//! kernel; only the gather and scatter differ. Links are always structure of
//! arrays ([`ColoredLinks`]). Memory per particle: three `T` of position and
//! one `T` of inverse mass in both layouts (SoA: three arrays, AoS: one);
//! per link: two `u32` indices and five `T` (rest, compliance, α̃, g, λ).
//!
//! # Files
//!
//! - `layout`: the particle layouts ([`Soa`], [`Aos`], the C API's
//!   `Strided`) and the raw views the kernels read and write through.
//! - `links`: [`ColoredLinks`], [`fill_colored_links`], [`job_range`] and
//!   the raw link view.
//! - `kernel`: `solve_range` and the kernel per float type and target
//!   (scalar, portable chunked, SSE).
//! - `system`: [`SimdLinks`], [`SimdLinksSubstep`], [`ColorJobs`],
//!   [`ColorJob`].
//! - [`groups`]: colored solving of a 3D system's links and constraint
//!   groups through the sequential update, bit for bit ([`GroupColors`],
//!   [`ColoredGroups`], [`GroupJobs`], [`GroupJob`]).

#[cfg(doc)]
use crate::solver::{SystemError, ZeroLength};

pub mod coloring;
pub mod groups;
mod isa;
mod kernel;
mod layout;
mod links;
mod simd_links;

pub use groups::{ColoredGroups, GroupColors, GroupJob, GroupJobs};
pub(crate) use isa::at_level;
pub use isa::Isa;
#[cfg(target_arch = "x86_64")]
pub(crate) use isa::Level;
pub(crate) use kernel::solve_range;
pub(crate) use layout::Strided;
pub use layout::{Aos, Particles, Soa};
#[doc(hidden)]
pub use layout::{
    AosFamily, RawAos, RawFamily, RawParticles, RawSoa, RawStrided, SoaFamily, StridedFamily,
};
#[doc(hidden)]
pub use links::RawLinks;
pub use links::{fill_colored_links, job_range, ColoredLinks};
pub(crate) use links::{frame_links, solve_frame_range};
pub use simd_links::{ColorJob, ColorJobs, SimdLinks, SimdLinksSubstep};

/// Links per chunk of the portable kernel; job ranges start on multiples of
/// it within a color (so jobs never split a chunk).
pub const CHUNK: usize = 64;

const _: () = assert!(core::mem::size_of::<usize>() >= core::mem::size_of::<u32>());

/// `u32` index to `usize`: lossless on every target this crate builds for
/// (checked by the assertion above).
#[inline(always)]
#[allow(clippy::as_conversions)]
fn ix(v: u32) -> usize {
    v as usize
}

use crate::math::max;
