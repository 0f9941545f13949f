//! Colored 3D solving: Gauss-Seidel in color order over structure-of-arrays
//! links, with a vectorizable inner loop and job ranges for an engine's
//! thread pool.
//!
//! # What is solved
//!
//! The same distance links as [`crate::system`] (`C = |x_j − x_i| − rest`,
//! the same XPBD update), visited in **colored order**: the links are stored
//! sorted by color (see [`crate::coloring`]) and a sweep solves color 0,
//! then color 1, … . No two links of one color share a particle, so within
//! a color the order of visits does not change any bit: the result is
//! deterministic and bit-identical between runs, between the Rust and C
//! entry points, and whatever the number of threads that split each color.
//!
//! Per substep, [`ColoredSystem::begin_substep`] computes into caller
//! scratch, for every link, `α̃ = α/h²` (`alpha`) and the reciprocal
//! denominator `g = 1/(w_i + w_j + α̃)` (`inv_denominator`; 0 for a link
//! between two static particles). A visit is then, with `d = x_j − x_i`:
//!
//! ```text
//! len = sqrt(d·d)            (d·d summed in x, y, z order)
//! r   = 1 / len
//! C   = len − rest
//! Δλ  = (−C − α̃ λ) · g
//! x_i ← x_i − (w_i Δλ)(d r)    x_j ← x_j + (w_j Δλ)(d r)    λ ← λ + Δλ
//! ```
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
//! finite, and stores them back directly. In f32 over [`Soa`] particles, a
//! group of four links joining neighbours (`(p, p+1), (p+2, p+3), …`: every
//! color of a rope, detected per group from the indices) is loaded and
//! stored with two contiguous loads or stores per array instead of eight
//! scalar ones; the arithmetic and the bits are the same. On aarch64 and
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
//! such link (its colored position). [`ColoredSubstep::iterate`] then stops
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

use core::marker::PhantomData;

use crate::real::{finite_non_negative, Real};
use crate::system::{Convergence, SweepStats, SystemError, ZeroLength};

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

/// Particles as structure of arrays: coordinates `x`, `y`, `z` (m) and
/// inverse masses `w` (1/kg), all of one length.
#[derive(Debug)]
pub struct Soa<'a, T> {
    /// x coordinates (m).
    pub x: &'a mut [T],
    /// y coordinates (m).
    pub y: &'a mut [T],
    /// z coordinates (m).
    pub z: &'a mut [T],
    /// Inverse masses (1/kg), finite and ≥ 0; 0 is static.
    pub w: &'a [T],
}

/// Particles as array of structures: `[x, y, z]` per particle (m), the
/// layout of engines holding `float[3]`/`double[3]`, and inverse masses `w`
/// (1/kg).
#[derive(Debug)]
pub struct Aos<'a, T> {
    /// Positions (m).
    pub positions: &'a mut [[T; 3]],
    /// Inverse masses (1/kg), finite and ≥ 0; 0 is static.
    pub w: &'a [T],
}

mod sealed {
    pub trait Sealed {}
    impl<T> Sealed for super::Soa<'_, T> {}
    impl<T> Sealed for super::Aos<'_, T> {}
    impl<T> Sealed for super::Strided<'_, T> {}
}

/// Raw access to particle positions for the kernel.
///
/// # Safety
/// Implementors read and write exactly the particle named, nothing else.
#[doc(hidden)]
pub unsafe trait RawParticles<T>: Copy + Send + Sync {
    /// Position of particle `k`.
    ///
    /// # Safety
    /// `k` is below the particle count and no other thread writes it.
    unsafe fn get(self, k: usize) -> [T; 3];
    /// Writes the position of particle `k`.
    ///
    /// # Safety
    /// `k` is below the particle count and no other thread accesses it.
    unsafe fn set(self, k: usize, v: [T; 3]);
    /// The coordinate arrays when the layout is [`Soa`], for kernels that
    /// load neighbouring particles together; `None` otherwise.
    #[inline(always)]
    fn soa(self) -> Option<RawSoa<T>> {
        None
    }
}

/// A particle layout the colored solver accepts: [`Soa`] or [`Aos`].
pub trait Particles<T: Real>: sealed::Sealed {
    #[doc(hidden)]
    type Raw: RawParticles<T>;
    /// Number of particles (`None` when the arrays differ in length).
    fn count(&self) -> Option<usize>;
    /// Inverse masses (1/kg).
    fn inverse_masses(&self) -> &[T];
    /// The position of particle `k` (m).
    fn position(&self, k: usize) -> Option<[T; 3]>;
    #[doc(hidden)]
    fn raw(&mut self) -> Self::Raw;
}

#[doc(hidden)]
#[derive(Clone, Copy)]
pub struct RawSoa<T> {
    pub(crate) x: *mut T,
    pub(crate) y: *mut T,
    pub(crate) z: *mut T,
}

// SAFETY: the pointers come from `&mut` slices held by a `ColoredSystem`;
// they are only dereferenced by kernel code under the proper-coloring
// invariant (each particle written by at most one thread at a time).
unsafe impl<T: Send> Send for RawSoa<T> {}
// SAFETY: as for `Send`.
unsafe impl<T: Sync> Sync for RawSoa<T> {}

// SAFETY: reads and writes the three coordinates of particle `k` only.
unsafe impl<T: Real> RawParticles<T> for RawSoa<T> {
    #[inline(always)]
    unsafe fn get(self, k: usize) -> [T; 3] {
        // SAFETY: `k` is in bounds of all three arrays (caller contract).
        unsafe { [*self.x.add(k), *self.y.add(k), *self.z.add(k)] }
    }
    #[inline(always)]
    unsafe fn set(self, k: usize, v: [T; 3]) {
        let [a, b, c] = v;
        // SAFETY: `k` is in bounds and not accessed concurrently (caller contract).
        unsafe {
            *self.x.add(k) = a;
            *self.y.add(k) = b;
            *self.z.add(k) = c;
        }
    }
    #[inline(always)]
    fn soa(self) -> Option<RawSoa<T>> {
        Some(self)
    }
}

#[doc(hidden)]
#[derive(Clone, Copy)]
pub struct RawAos<T> {
    pub(crate) p: *mut [T; 3],
}

// SAFETY: as for `RawSoa`.
unsafe impl<T: Send> Send for RawAos<T> {}
// SAFETY: as for `RawSoa`.
unsafe impl<T: Sync> Sync for RawAos<T> {}

// SAFETY: reads and writes particle `k`'s three coordinates only.
unsafe impl<T: Real> RawParticles<T> for RawAos<T> {
    #[inline(always)]
    unsafe fn get(self, k: usize) -> [T; 3] {
        // SAFETY: `k` is in bounds (caller contract).
        unsafe { *self.p.add(k) }
    }
    #[inline(always)]
    unsafe fn set(self, k: usize, v: [T; 3]) {
        // SAFETY: `k` is in bounds and not accessed concurrently (caller contract).
        unsafe { *self.p.add(k) = v }
    }
}

/// Raw particles of either C layout in one type: coordinate `c` of
/// particle `k` at `xyz[c] + k·stride` (AoS: the three coordinates of one
/// array, stride 3; SoA: three arrays, stride 1). The C API uses it for
/// both layouts, so it has one copy of the kernel and of `begin_substep`
/// per precision instead of two; the same IEEE operations, so the same
/// bits.
#[doc(hidden)]
#[derive(Clone, Copy)]
pub struct RawStrided<T> {
    pub(crate) xyz: [*mut T; 3],
    pub(crate) stride: usize,
}

// SAFETY: as for `RawSoa`.
unsafe impl<T: Send> Send for RawStrided<T> {}
// SAFETY: as for `RawSoa`.
unsafe impl<T: Sync> Sync for RawStrided<T> {}

// SAFETY: reads and writes the three coordinates of particle `k` only.
unsafe impl<T: Real> RawParticles<T> for RawStrided<T> {
    #[inline(always)]
    unsafe fn get(self, k: usize) -> [T; 3] {
        let o = k.wrapping_mul(self.stride);
        let [x, y, z] = self.xyz;
        // SAFETY: `k` is below the particle count, so `o` is in bounds of
        // all three coordinate sequences (caller contract).
        unsafe { [*x.add(o), *y.add(o), *z.add(o)] }
    }
    #[inline(always)]
    unsafe fn set(self, k: usize, v: [T; 3]) {
        let o = k.wrapping_mul(self.stride);
        let [x, y, z] = self.xyz;
        let [a, b, c] = v;
        // SAFETY: in bounds as for `get`, not accessed concurrently (caller
        // contract).
        unsafe {
            *x.add(o) = a;
            *y.add(o) = b;
            *z.add(o) = c;
        }
    }
    /// Three separate arrays (stride 1, the C SoA layout) are [`RawSoa`]:
    /// the same particles, so the neighbour fast path applies from C too.
    #[inline(always)]
    fn soa(self) -> Option<RawSoa<T>> {
        let [x, y, z] = self.xyz;
        (self.stride == 1).then_some(RawSoa { x, y, z })
    }
}

/// The particles of a C colored system, either layout ([`RawStrided`]).
#[derive(Debug)]
pub(crate) struct Strided<'a, T> {
    raw: RawStrided<T>,
    w: &'a [T],
    _borrow: PhantomData<&'a mut [T]>,
}

impl<T> core::fmt::Debug for RawStrided<T> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("RawStrided")
            .field("stride", &self.stride)
            .finish()
    }
}

impl<'a, T> Strided<'a, T> {
    /// Particles `0 .. w.len()` at `raw`.
    ///
    /// # Safety
    /// For every `k < w.len()`, `raw.xyz[c] + k·raw.stride` (c = 0, 1, 2)
    /// is valid for reads and writes for `'a`, these places are distinct,
    /// and nothing else accesses them (or overlaps `w`) meanwhile.
    pub(crate) unsafe fn new(raw: RawStrided<T>, w: &'a [T]) -> Self {
        Self {
            raw,
            w,
            _borrow: PhantomData,
        }
    }
}

impl<T: Real> Particles<T> for Strided<'_, T> {
    type Raw = RawStrided<T>;
    fn count(&self) -> Option<usize> {
        Some(self.w.len())
    }
    fn inverse_masses(&self) -> &[T] {
        self.w
    }
    fn position(&self, k: usize) -> Option<[T; 3]> {
        // SAFETY: `k` is below the particle count (`Strided::new`'s
        // contract makes its coordinates valid); `&self` excludes writes
        // through this value.
        (k < self.w.len()).then(|| unsafe { self.raw.get(k) })
    }
    fn raw(&mut self) -> RawStrided<T> {
        self.raw
    }
}

impl<T: Real> Particles<T> for Soa<'_, T> {
    type Raw = RawSoa<T>;
    fn count(&self) -> Option<usize> {
        let n = self.w.len();
        (self.x.len() == n && self.y.len() == n && self.z.len() == n).then_some(n)
    }
    fn inverse_masses(&self) -> &[T] {
        self.w
    }
    fn position(&self, k: usize) -> Option<[T; 3]> {
        Some([*self.x.get(k)?, *self.y.get(k)?, *self.z.get(k)?])
    }
    fn raw(&mut self) -> RawSoa<T> {
        RawSoa {
            x: self.x.as_mut_ptr(),
            y: self.y.as_mut_ptr(),
            z: self.z.as_mut_ptr(),
        }
    }
}

impl<T: Real> Particles<T> for Aos<'_, T> {
    type Raw = RawAos<T>;
    fn count(&self) -> Option<usize> {
        (self.positions.len() == self.w.len()).then_some(self.w.len())
    }
    fn inverse_masses(&self) -> &[T] {
        self.w
    }
    fn position(&self, k: usize) -> Option<[T; 3]> {
        self.positions.get(k).copied()
    }
    fn raw(&mut self) -> RawAos<T> {
        RawAos {
            p: self.positions.as_mut_ptr(),
        }
    }
}

/// Links in colored order, structure of arrays, all of one length (the
/// link count): link `k` joins particles `i[k]` and `j[k]`. Memory per link:
/// 8 bytes of indices and five `T` (48 bytes in f64, 28 in f32).
///
/// Fill them with [`crate::greedy_coloring`] (or the rope/cloth colorings),
/// [`crate::color_order`] and [`fill_colored_links`].
#[derive(Debug)]
pub struct ColoredLinks<'a, T> {
    /// First particle of each link.
    pub i: &'a [u32],
    /// Second particle of each link (≠ `i[k]`).
    pub j: &'a [u32],
    /// Rest lengths (m), finite and > 0.
    pub rest: &'a [T],
    /// Compliances α (m/N = s²/kg), finite and ≥ 0.
    pub compliance: &'a [T],
    /// Accumulated multipliers λ (kg·m); reset by `begin_substep` only.
    pub lambda: &'a mut [T],
    /// Scratch: `begin_substep` writes `α̃ = α/h²` (1/kg) here.
    pub alpha: &'a mut [T],
    /// Scratch: `begin_substep` writes `g = 1/(w_i + w_j + α̃)` (kg) here
    /// (0 when both particles are static).
    pub inv_denominator: &'a mut [T],
    /// Color boundaries: color `c` is links `color_starts[c] ..
    /// color_starts[c + 1]`; `color_starts[0] = 0`, the last entry is the
    /// link count.
    pub color_starts: &'a [usize],
}

/// Copies links into colored structure-of-arrays storage: colored position
/// `k` receives link `order[k]` (indices, rest length, compliance; λ = 0).
/// All output slices must have `order.len()` entries.
///
/// # Errors
///
/// [`SystemError::InvalidShape`] when lengths differ,
/// [`SystemError::IndexOutOfRange`] naming the colored position whose
/// `order` entry names no link. Nothing is written on error.
#[allow(clippy::too_many_arguments)]
pub fn fill_colored_links<T: Real>(
    links: &[crate::Link<T>],
    order: &[u32],
    i: &mut [u32],
    j: &mut [u32],
    rest: &mut [T],
    compliance: &mut [T],
    lambda: &mut [T],
) -> Result<(), SystemError> {
    let n = order.len();
    if [i.len(), j.len(), rest.len(), compliance.len(), lambda.len()]
        .iter()
        .any(|&l| l != n)
    {
        return Err(SystemError::InvalidShape);
    }
    // Check every entry before writing anything.
    if let Some(constraint) = order.iter().position(|&src| links.get(ix(src)).is_none()) {
        return Err(SystemError::IndexOutOfRange { constraint });
    }
    let outs = i
        .iter_mut()
        .zip(j.iter_mut())
        .zip(rest.iter_mut().zip(compliance.iter_mut()))
        .zip(lambda.iter_mut());
    for (k, ((((oi, oj), (orest, oc)), ol), &src)) in outs.zip(order).enumerate() {
        let link = links
            .get(ix(src))
            .ok_or(SystemError::IndexOutOfRange { constraint: k })?;
        *oi = link.i;
        *oj = link.j;
        *orest = link.rest;
        *oc = link.compliance;
        *ol = T::ZERO;
    }
    Ok(())
}

/// The link range of job `job` of `jobs` for a color spanning links
/// `begin .. end`: the color's chunks ([`CHUNK`] links each, counted from
/// `begin`) are split as evenly as possible, so every job range starts on a
/// chunk boundary and different jobs never overlap. `None` when `jobs` is 0
/// or `job ≥ jobs`.
#[must_use]
pub fn job_range(begin: usize, end: usize, job: usize, jobs: usize) -> Option<(usize, usize)> {
    if jobs == 0 || job >= jobs || end < begin {
        return None;
    }
    let len = end.saturating_sub(begin);
    let chunks = len.div_ceil(CHUNK);
    let first = chunks.checked_mul(job)?.checked_div(jobs)?;
    let last = chunks.checked_mul(job.checked_add(1)?)?.checked_div(jobs)?;
    let lo = begin.saturating_add(first.saturating_mul(CHUNK)).min(end);
    let hi = begin.saturating_add(last.saturating_mul(CHUNK)).min(end);
    Some((lo, hi))
}

#[inline(always)]
fn max<T: Real>(a: T, b: T) -> T {
    if b > a {
        b
    } else {
        a
    }
}

/// Raw pointers to the link arrays, for the kernel.
#[doc(hidden)]
#[derive(Clone, Copy)]
pub struct RawLinks<T> {
    pub(crate) i: *const u32,
    pub(crate) j: *const u32,
    pub(crate) rest: *const T,
    pub(crate) alpha: *const T,
    pub(crate) g: *const T,
    pub(crate) lambda: *mut T,
    pub(crate) w: *const T,
}

// SAFETY: read-only arrays except `lambda`, whose entries are written only
// for the link range a job owns (disjoint between concurrent jobs).
unsafe impl<T: Send> Send for RawLinks<T> {}
// SAFETY: as for `Send`.
unsafe impl<T: Sync> Sync for RawLinks<T> {}

/// Solves links `begin .. end` (all of one color) in chunks of [`CHUNK`].
/// Every link is visited; a link that cannot be applied (non-finite result,
/// or zero length under [`ZeroLength::Reject`]) is left untouched and the
/// first such link (lowest position) is reported after the whole range.
///
/// # Safety
/// Every index `i[k]`, `j[k]` for `k` in the range is below the particle
/// count of `p` and `w`; the range is within the link arrays; the links of
/// the range share no particle with each other; and no other thread
/// accesses the particles of these links or their λ during the call.
#[inline(always)]
pub(crate) unsafe fn solve_range<T: Real, P: RawParticles<T>>(
    p: P,
    l: RawLinks<T>,
    begin: usize,
    end: usize,
    policy: ZeroLength,
) -> Result<SweepStats<T>, SystemError> {
    // SAFETY: forwarded caller contract.
    let (stats, error) = unsafe { T::colored_range(p, l, begin, end, policy) };
    match error {
        Some(e) => Err(e),
        None => Ok(stats),
    }
}

/// The portable kernel: chunks of [`CHUNK`] links computed into local
/// arrays by a loop LLVM vectorizes (f32: `sqrtps`/`divps`), then
/// scattered. Returns the statistics and the first link not applied.
///
/// # Safety
/// As [`solve_range`].
#[cfg_attr(
    not(any(
        all(target_arch = "x86_64", target_feature = "sse2"),
        target_arch = "aarch64",
        all(target_arch = "wasm32", target_feature = "simd128")
    )),
    allow(dead_code) // [`scalar_range`] is used there
)]
#[inline(always)]
pub(crate) unsafe fn generic_range<T: Real, P: RawParticles<T>>(
    p: P,
    l: RawLinks<T>,
    begin: usize,
    end: usize,
    policy: ZeroLength,
) -> (SweepStats<T>, Option<SystemError>) {
    let mut stats = SweepStats::default();
    let mut first_error = None;
    let mut chunk = Chunk::<T>::new();
    let mut start = begin;
    while start < end {
        let m = (end - start).min(CHUNK);
        // SAFETY: forwarded: `start .. start + m` lies in the range.
        let (part, error) = unsafe { chunk.solve(p, l, start, m, policy) };
        stats = stats.merge(part);
        if first_error.is_none() {
            first_error = error;
        }
        start += m;
    }
    (stats, first_error)
}

/// The plain kernel for targets without useful SIMD (32-bit ARM, RISC-V,
/// wasm32 without simd128, ...): one link at a time, computed by
/// [`candidate`] and written back at once. The same IEEE operations per
/// link as the chunked kernel; within one color no two links share a
/// particle, so writing each link before reading the next gives the same
/// bits, the same statistics (the maxima ignore the links not applied, and
/// `max` is associative on them) and the same first error. Much smaller
/// than the chunked kernel (no chunk arrays, no second pass), which only
/// pays where LLVM vectorizes it.
///
/// # Safety
/// As [`solve_range`].
#[cfg_attr(
    any(
        all(target_arch = "x86_64", target_feature = "sse2"),
        target_arch = "aarch64",
        all(target_arch = "wasm32", target_feature = "simd128")
    ),
    allow(dead_code) // used by the unit tests there (compared with the SIMD kernels)
)]
#[inline(always)]
pub(crate) unsafe fn scalar_range<T: Real, P: RawParticles<T>>(
    p: P,
    l: RawLinks<T>,
    begin: usize,
    end: usize,
    policy: ZeroLength,
) -> (SweepStats<T>, Option<SystemError>) {
    let mut stats = SweepStats::default();
    let mut first_error = None;
    let reject = policy == ZeroLength::Reject;
    for k in begin..end {
        // SAFETY: `k` is within the link arrays and the indices below the
        // particle count (caller contract, validated at construction);
        // nothing else accesses these particles.
        let (i, j, x) = unsafe {
            let i = ix(*l.i.add(k));
            let j = ix(*l.j.add(k));
            let x = candidate(
                p.get(i),
                p.get(j),
                *l.w.add(i),
                *l.w.add(j),
                *l.rest.add(k),
                *l.alpha.add(k),
                *l.g.add(k),
                *l.lambda.add(k),
            );
            (i, j, x)
        };
        let error = if !x.moving {
            stats.skipped_static += 1;
            None
        } else if !x.long {
            stats.skipped_zero_length += usize::from(!reject);
            reject.then_some(SystemError::ZeroLength { constraint: k })
        } else if !x.finite {
            Some(SystemError::InvalidResult { constraint: k })
        } else {
            // SAFETY: as above; within one color no other link of this or
            // a concurrent job touches these particles or this λ.
            unsafe {
                p.set(i, x.a);
                p.set(j, x.b);
                *l.lambda.add(k) = x.lambda;
            }
            stats.applied += 1;
            stats.max_abs_c = max(stats.max_abs_c, x.c);
            stats.max_residual = max(stats.max_residual, x.residual);
            None
        };
        if first_error.is_none() {
            first_error = error;
        }
    }
    (stats, first_error)
}

/// The kernels on x86-64: two f64 or four f32 links per SSE register
/// (`sqrtpd`/`divpd`, `sqrtps`/`divps`), particles gathered and scattered
/// directly (or, for f32 groups of links joining neighbours in SoA
/// particles, loaded and stored contiguously: `Neighbours`), the same IEEE
/// operations per lane as [`candidate`] (so the same bits as the portable
/// kernel). LLVM does not vectorize the portable fused loop on the baseline
/// ISA (its cost model rejects the emulated gathers), hence the explicit
/// code, written once over [`sse::Lanes`].
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
pub(crate) mod sse {
    use super::{ix, max, RawLinks, RawParticles, RawSoa};
    use crate::real::Real;
    use crate::system::{SweepStats, SystemError, ZeroLength};
    use core::arch::x86_64::*;

    /// One SSE register of `LANES` values of `T`. Every method is a single
    /// SSE/SSE2 instruction (or a few for `set`/`get`); SSE2 is part of the
    /// x86-64 baseline, so all are always available.
    pub(crate) trait Lanes<T: Real>: Copy {
        const LANES: usize;
        fn splat(v: T) -> Self;
        /// From `LANES` scalars.
        fn set(v: &[T; 4]) -> Self;
        /// To `LANES` scalars (the rest of the array untouched).
        fn get(self, out: &mut [T; 4]);
        /// # Safety
        /// `p` is valid for `LANES` reads.
        unsafe fn load(p: *const T) -> Self;
        /// # Safety
        /// `p` is valid for `LANES` writes.
        unsafe fn store(self, p: *mut T);
        fn add(self, o: Self) -> Self;
        fn sub(self, o: Self) -> Self;
        fn mul(self, o: Self) -> Self;
        fn div(self, o: Self) -> Self;
        fn sqrt(self) -> Self;
        fn and(self, o: Self) -> Self;
        fn andnot(self, o: Self) -> Self;
        fn or(self, o: Self) -> Self;
        fn xor(self, o: Self) -> Self;
        fn max(self, o: Self) -> Self;
        fn ne(self, o: Self) -> Self;
        fn ge(self, o: Self) -> Self;
        fn eq(self, o: Self) -> Self;
        fn mask(self) -> u32;
    }

    macro_rules! lanes {
        ($v:ty, $t:ty, $n:literal, $all:literal, $s:ident, $set1:ident, $ld:ident, $st:ident,
         $add:ident, $sub:ident, $mul:ident, $div:ident, $sqrt:ident, $and:ident,
         $andn:ident, $or:ident, $xor:ident, $max:ident, $ne:ident, $ge:ident, $eq:ident,
         $mm:ident) => {
            // SAFETY (every method): SSE/SSE2 are enabled at compile time
            // (cfg above); the intrinsics touch no memory except `load` and
            // `store`, whose pointers the caller vouches for, and `set`/`get`,
            // which use local arrays of at least `LANES` values.
            impl Lanes<$t> for $v {
                const LANES: usize = $n;
                #[inline(always)]
                fn splat(v: $t) -> Self {
                    unsafe { $set1(v) }
                }
                #[inline(always)]
                fn set(v: &[$t; 4]) -> Self {
                    unsafe { $ld(v.as_ptr()) }
                }
                #[inline(always)]
                fn get(self, out: &mut [$t; 4]) {
                    unsafe { $st(out.as_mut_ptr(), self) }
                }
                #[inline(always)]
                unsafe fn load(p: *const $t) -> Self {
                    unsafe { $ld(p) }
                }
                #[inline(always)]
                unsafe fn store(self, p: *mut $t) {
                    unsafe { $st(p, self) }
                }
                #[inline(always)]
                fn add(self, o: Self) -> Self {
                    unsafe { $add(self, o) }
                }
                #[inline(always)]
                fn sub(self, o: Self) -> Self {
                    unsafe { $sub(self, o) }
                }
                #[inline(always)]
                fn mul(self, o: Self) -> Self {
                    unsafe { $mul(self, o) }
                }
                #[inline(always)]
                fn div(self, o: Self) -> Self {
                    unsafe { $div(self, o) }
                }
                #[inline(always)]
                fn sqrt(self) -> Self {
                    unsafe { $sqrt(self) }
                }
                #[inline(always)]
                fn and(self, o: Self) -> Self {
                    unsafe { $and(self, o) }
                }
                #[inline(always)]
                fn andnot(self, o: Self) -> Self {
                    unsafe { $andn(self, o) }
                }
                #[inline(always)]
                fn or(self, o: Self) -> Self {
                    unsafe { $or(self, o) }
                }
                #[inline(always)]
                fn xor(self, o: Self) -> Self {
                    unsafe { $xor(self, o) }
                }
                #[inline(always)]
                fn max(self, o: Self) -> Self {
                    unsafe { $max(self, o) }
                }
                #[inline(always)]
                fn ne(self, o: Self) -> Self {
                    unsafe { $ne(self, o) }
                }
                #[inline(always)]
                fn ge(self, o: Self) -> Self {
                    unsafe { $ge(self, o) }
                }
                #[inline(always)]
                fn eq(self, o: Self) -> Self {
                    unsafe { $eq(self, o) }
                }
                #[inline(always)]
                #[allow(clippy::as_conversions)] // a movemask is a small non-negative bit set
                fn mask(self) -> u32 {
                    unsafe { $mm(self) as u32 & $all }
                }
            }
        };
    }

    #[allow(clippy::undocumented_unsafe_blocks)] // documented once at the impl
    mod impls {
        use super::*;
        lanes!(
            __m128d,
            f64,
            2,
            3,
            f64,
            _mm_set1_pd,
            _mm_loadu_pd,
            _mm_storeu_pd,
            _mm_add_pd,
            _mm_sub_pd,
            _mm_mul_pd,
            _mm_div_pd,
            _mm_sqrt_pd,
            _mm_and_pd,
            _mm_andnot_pd,
            _mm_or_pd,
            _mm_xor_pd,
            _mm_max_pd,
            _mm_cmpneq_pd,
            _mm_cmpge_pd,
            _mm_cmpeq_pd,
            _mm_movemask_pd
        );
        lanes!(
            __m128,
            f32,
            4,
            15,
            f32,
            _mm_set1_ps,
            _mm_loadu_ps,
            _mm_storeu_ps,
            _mm_add_ps,
            _mm_sub_ps,
            _mm_mul_ps,
            _mm_div_ps,
            _mm_sqrt_ps,
            _mm_and_ps,
            _mm_andnot_ps,
            _mm_or_ps,
            _mm_xor_ps,
            _mm_max_ps,
            _mm_cmpneq_ps,
            _mm_cmpge_ps,
            _mm_cmpeq_ps,
            _mm_movemask_ps
        );
    }

    /// The per-link inputs of one group of `LANES` links (colored positions
    /// `k .. k + LANES`).
    struct LinkLanes<V> {
        rest: V,
        alpha: V,
        g: V,
        lambda: V,
    }

    /// The inputs of one group: the particles of each lane's link and the
    /// link's values.
    struct Group<'a, V> {
        a: [V; 3],
        b: [V; 3],
        wi: V,
        wj: V,
        link: &'a LinkLanes<V>,
    }

    /// One group's outputs: positions and λ to write (the old values in
    /// lanes not applied), and what the statistics need.
    struct Solved<V> {
        a: [V; 3],
        b: [V; 3],
        lambda: V,
        /// `apply.mask()`.
        applied: u32,
        apply: V,
        moving: V,
        long: V,
        finite: V,
        c: V,
        numerator: V,
    }

    /// The mask with every lane set.
    #[inline(always)]
    fn all_lanes<T: Real, V: Lanes<T>>() -> u32 {
        if V::LANES == 2 {
            3
        } else {
            15
        }
    }

    /// All ones in the lanes where all seven values are finite, zero
    /// elsewhere. The portable kernel's test sums `v − v` (+0 for a finite
    /// v, NaN otherwise). Here each `v · 0` is ±0 for a finite v and NaN
    /// otherwise, and the bitwise OR of such values is ±0 exactly when all
    /// are ±0 (a NaN keeps its all-ones exponent and non-zero mantissa in
    /// the OR): the same decision, with multiplications and bitwise ORs
    /// instead of subtractions and additions (measured a few per cent
    /// faster in f32) and a shallower tree.
    #[inline(always)]
    fn all_finite<T: Real, V: Lanes<T>>(v: [V; 7]) -> V {
        let zero = V::splat(T::ZERO);
        let z = |x: V| x.mul(zero);
        let [a, b, c, d, e, f, g] = v;
        (z(a).or(z(b)))
            .or(z(c).or(z(d)))
            .or(z(e).or(z(f)).or(z(g)))
            .eq(zero)
    }

    /// All ones in the lanes where the sum of the seven values is finite:
    /// then each is (a sum with a ±∞ or NaN term is ±∞ or NaN). A lane
    /// whose finite values overflow in the sum gets zero although it might
    /// apply: a conservative test, for callers that leave such groups to
    /// the exact one ([`all_finite`]). Fewer instructions than the exact
    /// test (six additions instead of seven products and six ORs).
    #[inline(always)]
    fn sum_finite<T: Real, V: Lanes<T>>(v: [V; 7]) -> V {
        let zero = V::splat(T::ZERO);
        let [a, b, c, d, e, f, g] = v;
        (a.add(b).add(c.add(d)))
            .add(e.add(f).add(g))
            .mul(zero)
            .eq(zero)
    }

    /// The colored equations for `LANES` links at once: per lane the same
    /// IEEE operations in the same order as [`super::candidate`], and the
    /// same decision (apply or not). With `keep_old`, lanes not applied get
    /// their old values back; without, the outputs are the candidates in
    /// every lane (for a caller that writes only when all lanes apply), and
    /// the finiteness test is the conservative [`sum_finite`]: a lane it
    /// rejects may still apply, so that caller must leave the group to one
    /// with `keep_old`.
    #[inline(always)]
    fn solve<T: Real, V: Lanes<T>>(x: &Group<'_, V>, keep_old: bool) -> Solved<V> {
        let zero = V::splat(T::ZERO);
        let one = V::splat(T::ONE);
        let min_pos = V::splat(T::MIN_POSITIVE);
        let sign = V::splat(-T::ZERO);
        let [ax, ay, az] = x.a;
        let [bx, by, bz] = x.b;
        let (wi, wj) = (x.wi, x.wj);
        let LinkLanes {
            rest,
            alpha,
            g,
            lambda,
        } = *x.link;
        let dx = bx.sub(ax);
        let dy = by.sub(ay);
        let dz = bz.sub(az);
        let len2 = zero.add(dx.mul(dx)).add(dy.mul(dy)).add(dz.mul(dz));
        let len = len2.sqrt();
        let r = one.div(len);
        let c = len.sub(rest);
        let numerator = c.xor(sign).sub(alpha.mul(lambda));
        let delta = numerator.mul(g);
        let si = wi.mul(delta);
        let sj = wj.mul(delta);
        let nx = dx.mul(r);
        let ny = dy.mul(r);
        let nz = dz.mul(r);
        let mut nax = ax.sub(si.mul(nx));
        let mut nay = ay.sub(si.mul(ny));
        let mut naz = az.sub(si.mul(nz));
        let mut nbx = bx.add(sj.mul(nx));
        let mut nby = by.add(sj.mul(ny));
        let mut nbz = bz.add(sj.mul(nz));
        let mut nl = lambda.add(delta);
        let finite = if keep_old {
            all_finite::<T, V>([nax, nay, naz, nbx, nby, nbz, nl])
        } else {
            sum_finite::<T, V>([nax, nay, naz, nbx, nby, nbz, nl])
        };
        let moving = wi.add(wj).ne(zero);
        let long = len2.ge(min_pos);
        let apply = moving.and(long).and(finite);
        let applied = apply.mask();
        if keep_old && applied != all_lanes::<T, V>() {
            let sel = |new: V, old: V| apply.and(new).or(apply.andnot(old));
            nax = sel(nax, ax);
            nay = sel(nay, ay);
            naz = sel(naz, az);
            nbx = sel(nbx, bx);
            nby = sel(nby, by);
            nbz = sel(nbz, bz);
            nl = sel(nl, lambda);
        }
        Solved {
            a: [nax, nay, naz],
            b: [nbx, nby, nbz],
            lambda: nl,
            applied,
            apply,
            moving,
            long,
            finite,
            c,
            numerator,
        }
    }

    /// A way to load, solve and store some groups without the general
    /// gather and scatter.
    ///
    /// # Safety
    /// Implementations read and write only the particles of the group's
    /// links and the group's λ; they return `Some` only when every lane was
    /// applied (and written), and `None` having written nothing.
    unsafe trait FastPath<T: Real, V: Lanes<T>>: Copy {
        /// Solves the groups `k .. k + LANES`, `k + LANES .. k + 2 LANES`,
        /// … (all within `.. end`) while each takes the fast path, writes
        /// their results, adds their statistics to `acc`, and returns the
        /// first group position it did not write (`k` itself when none).
        ///
        /// # Safety
        /// As [`super::solve_range`], for the links `k .. end`.
        unsafe fn run(self, k: usize, end: usize, acc: &mut Acc<V>) -> usize;
    }

    /// The statistics of groups where every lane applied: their count and
    /// the lane-wise maxima of `|C|` and `|C + α̃λ|`.
    struct Acc<V> {
        applied: u32,
        max_c: V,
        max_r: V,
    }

    /// A gathered group: first and second particles' coordinates, inverse
    /// masses.
    type Gathered<V> = ([V; 3], [V; 3], V, V);

    /// Gathers the group `k .. k + LANES`: particle indices and values.
    ///
    /// # Safety
    /// `k .. k + LANES` are link positions of a range of
    /// [`super::solve_range`], whose indices are below the particle count.
    #[inline(always)]
    #[allow(clippy::indexing_slicing)] // fixed [_; 4] arrays indexed by lane < LANES ≤ 4
    unsafe fn gather<T: Real, V: Lanes<T>, P: RawParticles<T>>(
        p: P,
        l: RawLinks<T>,
        k: usize,
    ) -> ([usize; 4], [usize; 4], Gathered<V>) {
        let z4 = [T::ZERO; 4];
        let mut pi = [0usize; 4];
        let mut pj = [0usize; 4];
        let (mut ax, mut ay, mut az, mut bx, mut by, mut bz, mut wi, mut wj) =
            (z4, z4, z4, z4, z4, z4, z4, z4);
        for t in 0..V::LANES {
            // SAFETY: `k + t` is a link position of the range, its indices
            // are below the particle count (caller contract).
            unsafe {
                let i = ix(*l.i.add(k + t));
                let j = ix(*l.j.add(k + t));
                pi[t] = i;
                pj[t] = j;
                let a = p.get(i);
                let b = p.get(j);
                ax[t] = a[0];
                ay[t] = a[1];
                az[t] = a[2];
                bx[t] = b[0];
                by[t] = b[1];
                bz[t] = b[2];
                wi[t] = *l.w.add(i);
                wj[t] = *l.w.add(j);
            }
        }
        (
            pi,
            pj,
            (
                [V::set(&ax), V::set(&ay), V::set(&az)],
                [V::set(&bx), V::set(&by), V::set(&bz)],
                V::set(&wi),
                V::set(&wj),
            ),
        )
    }

    /// Writes a solved group's positions (particles `pi`, `pj`) and λ.
    ///
    /// # Safety
    /// As [`gather`], for the same group; no other lane or thread writes
    /// these particles (proper coloring).
    #[inline(always)]
    #[allow(clippy::indexing_slicing)] // fixed [_; 4] arrays indexed by lane < LANES ≤ 4
    unsafe fn scatter<T: Real, V: Lanes<T>, P: RawParticles<T>>(
        p: P,
        l: RawLinks<T>,
        k: usize,
        pi: &[usize; 4],
        pj: &[usize; 4],
        o: &Solved<V>,
    ) {
        let z4 = [T::ZERO; 4];
        let (mut oax, mut oay, mut oaz, mut obx, mut oby, mut obz) = (z4, z4, z4, z4, z4, z4);
        o.a[0].get(&mut oax);
        o.a[1].get(&mut oay);
        o.a[2].get(&mut oaz);
        o.b[0].get(&mut obx);
        o.b[1].get(&mut oby);
        o.b[2].get(&mut obz);
        // SAFETY: caller contract.
        unsafe {
            o.lambda.store(l.lambda.add(k));
            for t in 0..V::LANES {
                p.set(pi[t], [oax[t], oay[t], oaz[t]]);
                p.set(pj[t], [obx[t], oby[t], obz[t]]);
            }
        }
    }

    /// Gathered groups two at a time (two independent dependency chains
    /// side by side, so the core overlaps their square roots and
    /// divisions), while both apply in every lane.
    #[derive(Clone, Copy)]
    struct GatherPairs<T, P> {
        p: P,
        l: RawLinks<T>,
    }

    // SAFETY: writes only the particles and λ of the groups it returns past,
    // and only after both groups of a pair applied in every lane.
    unsafe impl<T: Real, V: Lanes<T>, P: RawParticles<T>> FastPath<T, V> for GatherPairs<T, P> {
        #[inline(always)]
        unsafe fn run(self, k: usize, end: usize, acc: &mut Acc<V>) -> usize {
            let (p, l) = (self.p, self.l);
            let n = V::LANES;
            let all = all_lanes::<T, V>();
            let sign = V::splat(-T::ZERO);
            let mut k = k;
            while k + 2 * n <= end {
                // SAFETY: `k .. k + 2n` are link positions of the range
                // (caller contract for the indices); the two groups share
                // no particle (proper coloring), so gathering the second
                // before writing the first reads the same values.
                let ((pa, qa, ga), (pb, qb, gb), la, lb) = unsafe {
                    (
                        gather::<T, V, P>(p, l, k),
                        gather::<T, V, P>(p, l, k + n),
                        load_link::<T, V>(l, k),
                        load_link::<T, V>(l, k + n),
                    )
                };
                let oa = solve::<T, V>(
                    &Group {
                        a: ga.0,
                        b: ga.1,
                        wi: ga.2,
                        wj: ga.3,
                        link: &la,
                    },
                    false,
                );
                let ob = solve::<T, V>(
                    &Group {
                        a: gb.0,
                        b: gb.1,
                        wi: gb.2,
                        wj: gb.3,
                        link: &lb,
                    },
                    false,
                );
                if oa.applied != all || ob.applied != all {
                    // Nothing written: the general path takes group `k`.
                    return k;
                }
                // SAFETY: as for the gathers.
                unsafe {
                    scatter::<T, V, P>(p, l, k, &pa, &qa, &oa);
                    scatter::<T, V, P>(p, l, k + n, &pb, &qb, &ob);
                }
                acc.applied += 2 * all.count_ones();
                acc.max_c = acc.max_c.max(sign.andnot(oa.c)).max(sign.andnot(ob.c));
                acc.max_r = acc
                    .max_r
                    .max(sign.andnot(oa.numerator))
                    .max(sign.andnot(ob.numerator));
                k += 2 * n;
            }
            k
        }
    }

    /// The f32 fast path for groups of four links that join neighbours in
    /// structure-of-arrays particles: link `t` of the group joins particles
    /// `i0 + 2t` and `i0 + 2t + 1`. Every color of an open rope in colored
    /// order has that shape (links (0,1), (2,3), … and (1,2), (3,4), …), and
    /// so do the horizontal links of a cloth row. The group's particles are
    /// then the 8 consecutive entries from `i0` of each particle array: two
    /// unaligned loads and two `shufps` per array instead of eight scalar
    /// loads, and two `unpcklps`/`unpckhps` and two stores instead of eight
    /// scalar stores.
    ///
    /// Not used for f64 (two links per register): measured on the rope
    /// benchmark, the same path for `__m128d` was slower than the gather
    /// (5–20 %: it saves only the index loads there, and costs the
    /// pattern check).
    #[derive(Clone, Copy)]
    struct Neighbours {
        soa: RawSoa<f32>,
        l: RawLinks<f32>,
    }

    /// `Some(i0)` when `i[t] = i0 + 2t` and `j[t] = i0 + 2t + 1` for
    /// `t < 4`, all as exact integers (no wrap-around); `None` otherwise.
    ///
    /// # Safety
    /// `i` and `j` are valid for 4 reads.
    #[inline(always)]
    unsafe fn neighbours(i: *const u32, j: *const u32) -> Option<usize> {
        // SAFETY: SSE2 is enabled at compile time; `i` and `j` are valid for
        // 4 reads of `u32` (caller contract), which is what the scalar read
        // and the unaligned 16-byte loads touch.
        unsafe {
            let i0 = *i;
            // i0 + 7 must not wrap: then the lane comparisons below compare
            // exact integers.
            if i0 > u32::MAX - 7 {
                return None;
            }
            let vi = _mm_loadu_si128(i.cast());
            let vj = _mm_loadu_si128(j.cast());
            let base = _mm_shuffle_epi32::<0>(vi);
            let want_i = _mm_add_epi32(base, _mm_set_epi32(6, 4, 2, 0));
            let want_j = _mm_add_epi32(base, _mm_set_epi32(7, 5, 3, 1));
            let eq = _mm_and_si128(_mm_cmpeq_epi32(vi, want_i), _mm_cmpeq_epi32(vj, want_j));
            (_mm_movemask_epi8(eq) == 0xffff).then_some(ix(i0))
        }
    }

    /// Lane `t` of the first register gets `p[2t]`, of the second
    /// `p[2t + 1]`, for `t < 4`.
    ///
    /// # Safety
    /// `p .. p + 8` is valid for reads.
    #[inline(always)]
    unsafe fn load_pairs(p: *const f32) -> (__m128, __m128) {
        // SAFETY: SSE at compile time; `p .. p + 8` readable (caller
        // contract): two unaligned 16-byte loads.
        unsafe {
            let a = _mm_loadu_ps(p);
            let b = _mm_loadu_ps(p.add(4));
            (
                _mm_shuffle_ps::<0b10_00_10_00>(a, b),
                _mm_shuffle_ps::<0b11_01_11_01>(a, b),
            )
        }
    }

    /// Writes `p[2t] = even[t]` and `p[2t + 1] = odd[t]` for `t < 4`: the
    /// inverse of [`load_pairs`].
    ///
    /// # Safety
    /// `p .. p + 8` is valid for writes.
    #[inline(always)]
    unsafe fn store_pairs(p: *mut f32, even: __m128, odd: __m128) {
        // SAFETY: SSE at compile time; `p .. p + 8` writable (caller
        // contract): two unaligned 16-byte stores.
        unsafe {
            _mm_storeu_ps(p, _mm_unpacklo_ps(even, odd));
            _mm_storeu_ps(p.add(4), _mm_unpackhi_ps(even, odd));
        }
    }

    // SAFETY: `group` touches particles only when the group's links are
    // exactly (i0 + 2t, i0 + 2t + 1) for t < 4, and then exactly the
    // particles i0 .. i0 + 8 (those links' particles) and the group's λ;
    // otherwise it returns `None` having written nothing.
    unsafe impl FastPath<f32, __m128> for Neighbours {
        /// Two groups per step where it can (two independent dependency
        /// chains side by side, so the core overlaps their square roots and
        /// divisions), one group otherwise.
        #[inline(always)]
        unsafe fn run(self, k: usize, end: usize, acc: &mut Acc<__m128>) -> usize {
            let (s, l) = (self.soa, self.l);
            let mut k = k;
            loop {
                while k + 8 <= end {
                    // SAFETY: `k .. k + 8` are link positions of the range.
                    let (Some(ia), Some(ib)) = (unsafe {
                        (
                            neighbours(l.i.add(k), l.j.add(k)),
                            neighbours(l.i.add(k + 4), l.j.add(k + 4)),
                        )
                    }) else {
                        break;
                    };
                    // SAFETY: as for the single group below, for both groups (they share no
                    // particle: proper coloring).
                    let (oa, ob) = unsafe {
                        (
                            solve_group(load_group(s, l, ia), load_link(l, k)),
                            solve_group(load_group(s, l, ib), load_link(l, k + 4)),
                        )
                    };
                    if oa.applied != 15 || ob.applied != 15 {
                        break;
                    }
                    // SAFETY: as for the single group below.
                    unsafe {
                        store_group(s, l, ia, k, &oa, acc);
                        store_group(s, l, ib, k + 4, &ob, acc);
                    }
                    k += 8;
                }
                if k + 4 > end {
                    return k;
                }
                // SAFETY: `k .. k + 4` are link positions of the range.
                let Some(i0) = (unsafe { neighbours(l.i.add(k), l.j.add(k)) }) else {
                    return k;
                };
                // SAFETY: the group's links join particles i0 + 2t and
                // i0 + 2t + 1 (t < 4), each below the particle count
                // (caller contract): the 8 entries from i0 of each particle
                // array are in bounds and belong to no other link of the
                // color (proper coloring), so no other thread touches them.
                let o = unsafe { solve_group(load_group(s, l, i0), load_link(l, k)) };
                if o.applied != 15 {
                    // Rare: leave the group (nothing written) to the general
                    // path, which keeps the old values in the lanes not
                    // applied.
                    return k;
                }
                // SAFETY: as for the loads; λ of the links `k .. k + 4`.
                unsafe { store_group(s, l, i0, k, &o, acc) };
                k += 4;
            }
        }
    }

    /// The particles of one neighbour group and its links' values, solved.
    #[inline(always)]
    #[allow(clippy::type_complexity)]
    fn solve_group(
        p: (
            (__m128, __m128),
            (__m128, __m128),
            (__m128, __m128),
            (__m128, __m128),
        ),
        link: LinkLanes<__m128>,
    ) -> Solved<__m128> {
        let ((ax, bx), (ay, by), (az, bz), (wi, wj)) = p;
        solve::<f32, __m128>(
            &Group {
                a: [ax, ay, az],
                b: [bx, by, bz],
                wi,
                wj,
                link: &link,
            },
            false,
        )
    }

    /// Writes a solved neighbour group (particles from `i0`, λ of the links
    /// `k .. k + 4`) and adds it to the statistics.
    ///
    /// # Safety
    /// As for [`load_group`]; `k .. k + 4` are link positions of the range.
    #[inline(always)]
    unsafe fn store_group(
        s: RawSoa<f32>,
        l: RawLinks<f32>,
        i0: usize,
        k: usize,
        o: &Solved<__m128>,
        acc: &mut Acc<__m128>,
    ) {
        let sign = <__m128 as Lanes<f32>>::splat(-0.0);
        let ([nax, nay, naz], [nbx, nby, nbz]) = (o.a, o.b);
        // SAFETY: caller contract.
        unsafe {
            store_pairs(s.x.add(i0), nax, nbx);
            store_pairs(s.y.add(i0), nay, nby);
            store_pairs(s.z.add(i0), naz, nbz);
            o.lambda.store(l.lambda.add(k));
        }
        acc.applied += 4;
        acc.max_c = acc.max_c.max(sign.andnot(o.c));
        acc.max_r = acc.max_r.max(sign.andnot(o.numerator));
    }

    /// The particles of a neighbour group from `i0`: (x, y, z, w), each as
    /// (first, second) particles of the four links.
    ///
    /// # Safety
    /// `i0 .. i0 + 8` are particle indices, as in [`Neighbours`].
    #[inline(always)]
    #[allow(clippy::type_complexity)]
    unsafe fn load_group(
        s: RawSoa<f32>,
        l: RawLinks<f32>,
        i0: usize,
    ) -> (
        (__m128, __m128),
        (__m128, __m128),
        (__m128, __m128),
        (__m128, __m128),
    ) {
        // SAFETY: `i0 .. i0 + 8` readable in each array (caller contract).
        unsafe {
            (
                load_pairs(s.x.add(i0)),
                load_pairs(s.y.add(i0)),
                load_pairs(s.z.add(i0)),
                load_pairs(l.w.add(i0)),
            )
        }
    }

    /// # Safety
    /// As [`super::solve_range`].
    #[inline(always)]
    pub(crate) unsafe fn range<T: Real, V: Lanes<T>, P: RawParticles<T>>(
        p: P,
        l: RawLinks<T>,
        begin: usize,
        end: usize,
        policy: ZeroLength,
    ) -> (SweepStats<T>, Option<SystemError>) {
        // SAFETY: forwarded caller contract.
        unsafe {
            range_with::<T, V, P, GatherPairs<T, P>>(p, l, begin, end, policy, GatherPairs { p, l })
        }
    }

    /// [`range`] for f32, with the fast path for links joining neighbours
    /// when the particles are [`super::Soa`].
    ///
    /// # Safety
    /// As [`super::solve_range`].
    #[inline(always)]
    pub(crate) unsafe fn range_f32<P: RawParticles<f32>>(
        p: P,
        l: RawLinks<f32>,
        begin: usize,
        end: usize,
        policy: ZeroLength,
    ) -> (SweepStats<f32>, Option<SystemError>) {
        // SAFETY: forwarded caller contract (for `Neighbours` too: the SoA
        // arrays are those of `p`).
        unsafe {
            match p.soa() {
                Some(soa) => range_with::<f32, __m128, P, Neighbours>(
                    p,
                    l,
                    begin,
                    end,
                    policy,
                    Neighbours { soa, l },
                ),
                None => range_with::<f32, __m128, P, GatherPairs<f32, P>>(
                    p,
                    l,
                    begin,
                    end,
                    policy,
                    GatherPairs { p, l },
                ),
            }
        }
    }

    /// The link values of the group `k .. k + LANES`.
    ///
    /// # Safety
    /// `k .. k + LANES` are positions of the link arrays.
    #[inline(always)]
    unsafe fn load_link<T: Real, V: Lanes<T>>(l: RawLinks<T>, k: usize) -> LinkLanes<V> {
        // SAFETY: in bounds (caller contract); only λ is ever written, by
        // the thread that owns these links.
        unsafe {
            LinkLanes {
                rest: V::load(l.rest.add(k)),
                alpha: V::load(l.alpha.add(k)),
                g: V::load(l.g.add(k)),
                lambda: V::load(l.lambda.add(k)),
            }
        }
    }

    /// # Safety
    /// As [`super::solve_range`]; `fast` accesses the particles of `p` (or
    /// nothing).
    #[inline(always)]
    #[allow(clippy::indexing_slicing)] // fixed [_; 4] arrays indexed by lane < LANES ≤ 4
    unsafe fn range_with<T: Real, V: Lanes<T>, P: RawParticles<T>, F: FastPath<T, V>>(
        p: P,
        l: RawLinks<T>,
        begin: usize,
        end: usize,
        policy: ZeroLength,
        fast: F,
    ) -> (SweepStats<T>, Option<SystemError>) {
        let n = V::LANES;
        let all = all_lanes::<T, V>();
        let reject = policy == ZeroLength::Reject;
        let mut error: Option<SystemError> = None;
        let (mut applied, mut skipped_static, mut skipped_zero) = (0u32, 0u32, 0u32);
        let zero = V::splat(T::ZERO);
        let sign = V::splat(-T::ZERO);
        let mut acc = Acc {
            applied: 0,
            max_c: zero,
            max_r: zero,
        };
        let mut k = begin;
        let z4 = [T::ZERO; 4];
        loop {
            // Groups the fast path takes (every lane applied, so the
            // statistics are a count and the maxima), in a tight loop of
            // their own. It stops at the end of the range or at the first
            // group left to the general path.
            // SAFETY: forwarded caller contract, for the links `k .. end`.
            k = unsafe { fast.run(k, end, &mut acc) };
            if k + n > end {
                break;
            }
            // SAFETY: `k .. k + n` are link positions of the range.
            let link = unsafe { load_link::<T, V>(l, k) };
            // The general path: gather, solve, scatter.
            // SAFETY: `k .. k + n` are link positions of the range (caller
            // contract for the indices).
            let (pi, pj, g) = unsafe { gather::<T, V, P>(p, l, k) };
            let o = solve::<T, V>(
                &Group {
                    a: g.0,
                    b: g.1,
                    wi: g.2,
                    wj: g.3,
                    link: &link,
                },
                true,
            );
            // SAFETY: as for the loads; the links of the range share no
            // particle, so no two lanes write the same particle.
            unsafe { scatter::<T, V, P>(p, l, k, &pi, &pj, &o) };
            if o.applied == all {
                // Every lane applied: nothing skipped, nothing failed.
                applied += all.count_ones();
            } else {
                let am = o.applied;
                let mm = o.moving.mask();
                let lm = o.long.mask();
                let fm = o.finite.mask();
                applied += am.count_ones();
                skipped_static += (!mm & all).count_ones();
                let zm = mm & !lm & all;
                skipped_zero += zm.count_ones();
                let failed = (mm & lm & !fm & all) | if reject { zm } else { 0 };
                if failed != 0 && error.is_none() {
                    let t = failed.trailing_zeros();
                    let at = k + ix(t);
                    error = Some(if zm & (1 << t) != 0 {
                        SystemError::ZeroLength { constraint: at }
                    } else {
                        SystemError::InvalidResult { constraint: at }
                    });
                }
            }
            acc.max_c = acc.max_c.max(o.apply.and(sign.andnot(o.c)));
            acc.max_r = acc.max_r.max(o.apply.and(sign.andnot(o.numerator)));
            k += n;
        }
        applied += acc.applied;
        let (mut mc, mut mr) = (z4, z4);
        acc.max_c.get(&mut mc);
        acc.max_r.get(&mut mr);
        let mut stats = SweepStats {
            applied: ix(applied),
            skipped_static: ix(skipped_static),
            skipped_zero_length: if reject { 0 } else { ix(skipped_zero) },
            max_abs_c: mc.iter().fold(T::ZERO, |a, b| max(a, *b)),
            max_residual: mr.iter().fold(T::ZERO, |a, b| max(a, *b)),
        };
        if k < end {
            // SAFETY: forwarded caller contract, for the remaining links.
            let (last, e) = unsafe { super::generic_range(p, l, k, end, policy) };
            stats = stats.merge(last);
            if error.is_none() {
                error = e;
            }
        }
        (stats, error)
    }

    #[cfg(test)]
    #[allow(clippy::indexing_slicing, clippy::as_conversions)]
    mod tests {
        use super::*;

        fn specials<T: Real>() -> [T; 12] {
            let big = T::from_f64(f64::MAX);
            let inf = T::ONE / T::ZERO;
            let nan = inf * T::ZERO;
            [
                T::ZERO,
                -T::ZERO,
                T::ONE,
                -T::from_f64(2.5),
                big,
                -big,
                T::MIN_POSITIVE,
                T::MIN_POSITIVE / T::from_f64(1024.0),
                inf,
                -inf,
                nan,
                -nan,
            ]
        }

        /// `all_finite` against the portable kernel's test (`Σ (v − v) == 0`),
        /// one special value at a time in every one of the seven inputs
        /// and every lane, and two at once.
        fn all_finite_matches<T: Real, V: Lanes<T>>() {
            let values = specials::<T>();
            let fill = [T::ONE, -T::from_f64(3.0), T::from_f64(0.5), T::ZERO];
            let mut cases = Vec::new();
            for (p, &s) in (0..7).flat_map(|p| values.iter().map(move |s| (p, s))) {
                for lane in 0..V::LANES {
                    let mut v = [fill; 7];
                    v[p][lane] = s;
                    cases.push(v);
                    if cfg!(miri) {
                        continue; // the pairs below: thousands of cases
                    }
                    for (q, &u) in (0..7).flat_map(|q| values.iter().map(move |u| (q, u))) {
                        let mut w = v;
                        w[q][(lane + 1) % V::LANES] = u;
                        cases.push(w);
                    }
                }
            }
            for v in cases {
                let got = all_finite::<T, V>(v.map(|x| V::set(&x))).mask();
                let want = (0..V::LANES).fold(0u32, |m, lane| {
                    let sum = v
                        .iter()
                        .fold(T::ZERO, |acc, x| acc + super::super::probe(x[lane]));
                    m | (u32::from(sum == T::ZERO) << lane)
                });
                assert_eq!(got, want, "{v:?}");
            }
        }

        #[test]
        fn all_finite_is_the_portable_finiteness_test() {
            all_finite_matches::<f32, __m128>();
            all_finite_matches::<f64, __m128d>();
        }

        fn check(i: [u32; 4], j: [u32; 4]) -> Option<usize> {
            // SAFETY: both arrays hold 4 values.
            unsafe { neighbours(i.as_ptr(), j.as_ptr()) }
        }

        #[test]
        fn neighbour_groups_are_recognised_exactly() {
            assert_eq!(check([0, 2, 4, 6], [1, 3, 5, 7]), Some(0));
            assert_eq!(check([7, 9, 11, 13], [8, 10, 12, 14]), Some(7));
            let m = u32::MAX;
            assert_eq!(
                check([m - 7, m - 5, m - 3, m - 1], [m - 6, m - 4, m - 2, m]),
                Some(ix(m - 7))
            );
            // i0 + 7 would wrap: never recognised, even where the lanes
            // match modulo 2^32.
            assert_eq!(
                check([m - 6, m - 4, m - 2, m], [m - 5, m - 3, m - 1, 0]),
                None
            );
            assert_eq!(check([m - 1, 1, 3, 5], [m, 2, 4, 6]), None);
            assert_eq!(check([m, 1, 3, 5], [0, 2, 4, 6]), None);
            // Every lane of either array off by one in either direction.
            let (i0, j0): ([u32; 4], [u32; 4]) = ([10, 12, 14, 16], [11, 13, 15, 17]);
            assert_eq!(check(i0, j0), Some(10));
            for lane in 0..4 {
                for d in [1, u32::MAX] {
                    let (mut i, mut j) = (i0, j0);
                    i[lane] = i[lane].wrapping_add(d);
                    assert_eq!(check(i, j0), None, "i {i:?}");
                    j[lane] = j[lane].wrapping_add(d);
                    assert_eq!(check(i0, j), None, "j {j:?}");
                }
            }
            // Reversed links, or another order of the same links.
            assert_eq!(check([1, 3, 5, 7], [0, 2, 4, 6]), None);
            assert_eq!(check([0, 4, 2, 6], [1, 5, 3, 7]), None);
        }
    }
}

/// One link's candidate (the module's equations, in a fixed order, no
/// fused multiply-add).
struct Candidate<T> {
    a: [T; 3],
    b: [T; 3],
    lambda: T,
    c: T,
    residual: T,
    moving: bool,
    long: bool,
    finite: bool,
}

#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn candidate<T: Real>(
    a: [T; 3],
    b: [T; 3],
    wi: T,
    wj: T,
    rest: T,
    alpha: T,
    g: T,
    lambda: T,
) -> Candidate<T> {
    let [a0, a1, a2] = a;
    let [b0, b1, b2] = b;
    let (d0, d1, d2) = (b0 - a0, b1 - a1, b2 - a2);
    let len2 = T::ZERO + d0 * d0 + d1 * d1 + d2 * d2;
    let len = len2.sqrt();
    let r = T::ONE / len;
    let c = len - rest;
    let numerator = -c - alpha * lambda;
    let delta = numerator * g;
    let si = wi * delta;
    let sj = wj * delta;
    let (n0, n1, n2) = (d0 * r, d1 * r, d2 * r);
    let na = [a0 - si * n0, a1 - si * n1, a2 - si * n2];
    let nb = [b0 + sj * n0, b1 + sj * n1, b2 + sj * n2];
    let nl = lambda + delta;
    // x − x is 0 for finite x and NaN otherwise: one sum checks all seven.
    let f = probe(na[0])
        + probe(na[1])
        + probe(na[2])
        + probe(nb[0])
        + probe(nb[1])
        + probe(nb[2])
        + probe(nl);
    Candidate {
        a: na,
        b: nb,
        lambda: nl,
        c: c.abs(),
        residual: numerator.abs(),
        moving: wi + wj != T::ZERO,
        long: len2 >= T::MIN_POSITIVE,
        finite: f == T::ZERO,
    }
}

/// `x − x`: 0 for finite `x`, NaN for infinite or NaN `x`.
#[inline(always)]
#[allow(clippy::eq_op)] // x − x is the point: it is NaN exactly when x is not finite
fn probe<T: Real>(x: T) -> T {
    x - x
}

#[inline(always)]
fn pick<T: Real>(yes: bool, a: T, b: T) -> T {
    if yes {
        a
    } else {
        b
    }
}

/// Chunk-local output arrays (about 3.5 KB of stack in f64).
struct Chunk<T> {
    xi: [[T; CHUNK]; 3],
    xj: [[T; CHUNK]; 3],
    lambda: [T; CHUNK],
}

impl<T: Real> Chunk<T> {
    fn new() -> Self {
        let z = [T::ZERO; CHUNK];
        Self {
            xi: [z; 3],
            xj: [z; 3],
            lambda: z,
        }
    }

    /// Computes `m ≤ CHUNK` links from `start` into the chunk arrays (old
    /// values for links not applied), then scatters them back. Returns the
    /// statistics and the first link that could not be applied, if any.
    ///
    /// # Safety
    /// As [`solve_range`], for the links `start .. start + m`.
    // Indexing is into fixed `[_; CHUNK]` arrays with `t < m ≤ CHUNK`: LLVM
    // removes the checks, and none can fail.
    #[allow(clippy::indexing_slicing)]
    #[inline(always)]
    unsafe fn solve<P: RawParticles<T>>(
        &mut self,
        p: P,
        l: RawLinks<T>,
        start: usize,
        m: usize,
        policy: ZeroLength,
    ) -> (SweepStats<T>, Option<SystemError>) {
        let m = m.min(CHUNK);
        let (mut applied, mut skipped_static, mut skipped_zero, mut failed) =
            (0u32, 0u32, 0u32, 0u32);
        let (mut max_c, mut max_r) = (T::ZERO, T::ZERO);
        let reject = policy == ZeroLength::Reject;
        for t in 0..m {
            let k = start + t;
            // SAFETY: `k` is within the link arrays and the indices below
            // the particle count (caller contract, validated at
            // construction); nothing else writes these particles.
            let (a, b, wi, wj, rest, alpha, g, lambda) = unsafe {
                let i = ix(*l.i.add(k));
                let j = ix(*l.j.add(k));
                (
                    p.get(i),
                    p.get(j),
                    *l.w.add(i),
                    *l.w.add(j),
                    *l.rest.add(k),
                    *l.alpha.add(k),
                    *l.g.add(k),
                    *l.lambda.add(k),
                )
            };
            let x = candidate(a, b, wi, wj, rest, alpha, g, lambda);
            let solvable = x.moving & x.long;
            let apply = solvable & x.finite;
            self.xi[0][t] = pick(apply, x.a[0], a[0]);
            self.xi[1][t] = pick(apply, x.a[1], a[1]);
            self.xi[2][t] = pick(apply, x.a[2], a[2]);
            self.xj[0][t] = pick(apply, x.b[0], b[0]);
            self.xj[1][t] = pick(apply, x.b[1], b[1]);
            self.xj[2][t] = pick(apply, x.b[2], b[2]);
            self.lambda[t] = pick(apply, x.lambda, lambda);
            let is_zero = x.moving & !x.long;
            applied += u32::from(apply);
            skipped_static += u32::from(!x.moving);
            skipped_zero += u32::from(is_zero);
            failed += u32::from((solvable & !x.finite) | (is_zero & reject));
            max_c = max(max_c, pick(apply, x.c, T::ZERO));
            max_r = max(max_r, pick(apply, x.residual, T::ZERO));
        }
        // The rare path: name the first link of the chunk that failed, from
        // the unchanged particle memory (nothing of this chunk is written yet).
        let mut error = None;
        if failed != 0 {
            for t in 0..m {
                let k = start + t;
                // SAFETY: as above.
                let x = unsafe {
                    let i = ix(*l.i.add(k));
                    let j = ix(*l.j.add(k));
                    candidate(
                        p.get(i),
                        p.get(j),
                        *l.w.add(i),
                        *l.w.add(j),
                        *l.rest.add(k),
                        *l.alpha.add(k),
                        *l.g.add(k),
                        *l.lambda.add(k),
                    )
                };
                if x.moving && !x.long && reject {
                    error = Some(SystemError::ZeroLength { constraint: k });
                    break;
                }
                if x.moving && x.long && !x.finite {
                    error = Some(SystemError::InvalidResult { constraint: k });
                    break;
                }
            }
        }
        // Scatter (links not applied get their old values back).
        for t in 0..m {
            let k = start + t;
            // SAFETY: as above; within one color no other link of this or a
            // concurrent job touches these particles.
            unsafe {
                p.set(
                    ix(*l.i.add(k)),
                    [self.xi[0][t], self.xi[1][t], self.xi[2][t]],
                );
                p.set(
                    ix(*l.j.add(k)),
                    [self.xj[0][t], self.xj[1][t], self.xj[2][t]],
                );
                *l.lambda.add(k) = self.lambda[t];
            }
        }
        let stats = SweepStats {
            applied: ix(applied),
            skipped_static: ix(skipped_static),
            skipped_zero_length: if reject { 0 } else { ix(skipped_zero) },
            max_abs_c: max_c,
            max_residual: max_r,
        };
        (stats, error)
    }
}

/// A colored 3D system over caller memory: particles ([`Soa`] or [`Aos`])
/// and links in colored order ([`ColoredLinks`]).
///
/// # Examples
///
/// A rope of 5 particles, even/odd colored, one substep:
///
/// ```
/// use xpbd::{color_order, fill_colored_links, rope, rope_coloring, Aos,
///            ColoredLinks, ColoredSystem, Link};
///
/// let mut x = [[0.0_f64, 0.0, 0.0], [1.0, 0.0, 0.0], [2.0, 0.0, 0.0], [3.0, 0.0, 0.0], [4.0, 0.0, 0.0]];
/// let w = [0.0, 1.0, 1.0, 1.0, 1.0];
/// let mut links = [Link::default(); 4];
/// rope(&x, 1e-6, &mut links).unwrap();
/// x[4][0] = 4.5; // stretch the last link
///
/// let mut colors = [0u32; 4];
/// let count = rope_coloring(4, false, &mut colors).unwrap(); // 2 colors
/// let (mut order, mut starts) = ([0u32; 4], [0usize; 3]);
/// color_order(&colors, count, &mut starts, &mut order).unwrap();
/// let (mut i, mut j) = ([0u32; 4], [0u32; 4]);
/// let (mut rest, mut comp, mut lambda) = ([0.0; 4], [0.0; 4], [0.0; 4]);
/// let (mut alpha, mut g) = ([0.0; 4], [0.0; 4]); // per-substep scratch
/// fill_colored_links(&links, &order, &mut i, &mut j, &mut rest, &mut comp, &mut lambda).unwrap();
///
/// let mut stamp = [0u32; 5]; // scratch for the proper-coloring check
/// let mut sys = ColoredSystem::new(
///     Aos { positions: &mut x, w: &w },
///     ColoredLinks { i: &i, j: &j, rest: &rest, compliance: &comp,
///                    lambda: &mut lambda, alpha: &mut alpha, inv_denominator: &mut g,
///                    color_starts: &starts },
///     &mut stamp,
/// ).unwrap();
/// let mut sub = sys.begin_substep(1.0 / 60.0).unwrap();
/// let r = sub.iterate_until(1e-9, 200).unwrap();
/// assert_eq!(r.converged, 1);
/// ```
#[derive(Debug)]
pub struct ColoredSystem<'a, T: Real, P: Particles<T>> {
    particles: P,
    links: ColoredLinks<'a, T>,
    zero_length: ZeroLength,
}

impl<'a, T: Real, P: Particles<T>> ColoredSystem<'a, T, P> {
    /// A colored system, with [`ZeroLength::Reject`]. Checks once what the
    /// kernel relies on: all arrays consistent in length, every index below
    /// the particle count, `i ≠ j`, the color boundaries, and that the
    /// coloring is proper (`stamp`: scratch, one `u32` per particle).
    ///
    /// # Errors
    ///
    /// [`SystemError::ParticleCountMismatch`], [`SystemError::TooManyParticles`],
    /// [`SystemError::InvalidShape`] (array lengths, boundaries, or an
    /// improper coloring), [`SystemError::IndexOutOfRange`],
    /// [`SystemError::SameParticle`].
    pub fn new(
        particles: P,
        links: ColoredLinks<'a, T>,
        stamp: &mut [u32],
    ) -> Result<Self, SystemError> {
        let n = particles
            .count()
            .ok_or(SystemError::ParticleCountMismatch)?;
        if u32::try_from(n).is_err() {
            return Err(SystemError::TooManyParticles);
        }
        let m = links.i.len();
        if [
            links.j.len(),
            links.rest.len(),
            links.compliance.len(),
            links.lambda.len(),
            links.alpha.len(),
            links.inv_denominator.len(),
        ]
        .iter()
        .any(|&l| l != m)
        {
            return Err(SystemError::InvalidShape);
        }
        crate::coloring::check_coloring(links.i, links.j, links.color_starts, n, stamp)?;
        Ok(Self {
            particles,
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

    /// The particles (positions may be changed between substeps).
    pub fn particles_mut(&mut self) -> &mut P {
        &mut self.particles
    }

    /// The particles.
    #[must_use]
    pub fn particles(&self) -> &P {
        &self.particles
    }

    /// λ of every link (kg·m), in colored order.
    #[must_use]
    pub fn lambdas(&self) -> &[T] {
        self.links.lambda
    }

    /// Number of colors.
    #[must_use]
    pub fn color_count(&self) -> usize {
        self.links.color_starts.len().saturating_sub(1)
    }

    /// Starts a substep of length `h` (s): validates every particle (finite
    /// position, finite non-negative inverse mass) and link (rest length,
    /// compliance, scale, zero length under [`ZeroLength::Reject`]) exactly
    /// as [`crate::System::begin_substep`] does, then writes `α̃ = α/h²` into
    /// `alpha` and sets every λ to 0.
    ///
    /// # Errors
    ///
    /// As [`crate::System::begin_substep`] (link indices are colored
    /// positions). Nothing is written on error.
    pub fn begin_substep(&mut self, h: T) -> Result<ColoredSubstep<'_, 'a, T, P>, SystemError> {
        if !h.is_finite() || h <= T::ZERO {
            return Err(SystemError::InvalidTimeStep);
        }
        let w = self.particles.inverse_masses();
        for (particle, &wk) in w.iter().enumerate() {
            let x = self
                .particles
                .position(particle)
                .ok_or(SystemError::ParticleCountMismatch)?;
            if !x.iter().all(|c| c.is_finite()) {
                return Err(SystemError::NonFinitePosition { particle });
            }
            if !finite_non_negative(wk) {
                return Err(SystemError::InvalidInverseMass { particle });
            }
        }
        let h2 = h * h;
        let l = &self.links;
        for (constraint, (((&i, &j), &rest), &compliance)) in
            l.i.iter()
                .zip(l.j)
                .zip(l.rest)
                .zip(l.compliance)
                .enumerate()
        {
            if !finite_non_negative(rest) || rest == T::ZERO {
                return Err(SystemError::InvalidRestLength { constraint });
            }
            if !finite_non_negative(compliance) {
                return Err(SystemError::InvalidCompliance { constraint });
            }
            let (Some(&wi), Some(&wj), Some(xi), Some(xj)) = (
                w.get(ix(i)),
                w.get(ix(j)),
                self.particles.position(ix(i)),
                self.particles.position(ix(j)),
            ) else {
                return Err(SystemError::IndexOutOfRange { constraint });
            };
            let ws = wi + wj;
            if ws != T::ZERO {
                let alpha = compliance / h2;
                let denominator = ws + alpha;
                if !alpha.is_finite() || !denominator.is_finite() || denominator <= T::ZERO {
                    return Err(SystemError::UnrepresentableScale { constraint });
                }
                let len2 = xi
                    .iter()
                    .zip(&xj)
                    .fold(T::ZERO, |acc, (a, b)| acc + (*b - *a) * (*b - *a));
                if self.zero_length == ZeroLength::Reject && len2 < T::MIN_POSITIVE {
                    return Err(SystemError::ZeroLength { constraint });
                }
            }
        }
        let links = &mut self.links;
        for (((a, g), &c), (&i, &j)) in links
            .alpha
            .iter_mut()
            .zip(links.inv_denominator.iter_mut())
            .zip(links.compliance)
            .zip(links.i.iter().zip(links.j))
        {
            *a = c / h2;
            let ws =
                w.get(ix(i)).copied().unwrap_or(T::ZERO) + w.get(ix(j)).copied().unwrap_or(T::ZERO);
            *g = if ws == T::ZERO {
                T::ZERO
            } else {
                T::ONE / (ws + *a)
            };
        }
        crate::solver::reset_lambdas(links.lambda);
        Ok(ColoredSubstep { system: self, h })
    }
}

/// A colored substep in progress: h fixed, every λ started at zero, α̃
/// computed; the system is borrowed until it is dropped.
#[derive(Debug)]
pub struct ColoredSubstep<'s, 'a, T: Real, P: Particles<T>> {
    system: &'s mut ColoredSystem<'a, T, P>,
    h: T,
}

impl<T: Real, P: Particles<T>> ColoredSubstep<'_, '_, T, P> {
    /// The substep length h (s).
    #[must_use]
    pub fn h(&self) -> T {
        self.h
    }

    /// Number of colors.
    #[must_use]
    pub fn color_count(&self) -> usize {
        self.system.color_count()
    }

    /// The links `begin .. end` of color `c` (colored positions).
    #[must_use]
    pub fn color_range(&self, c: usize) -> Option<(usize, usize)> {
        let s = self.system.links.color_starts;
        Some((*s.get(c)?, *s.get(c.checked_add(1)?)?))
    }

    fn raw(&mut self) -> (P::Raw, RawLinks<T>) {
        let s = &mut *self.system;
        let l = &mut s.links;
        let links = RawLinks {
            i: l.i.as_ptr(),
            j: l.j.as_ptr(),
            rest: l.rest.as_ptr(),
            alpha: l.alpha.as_ptr(),
            g: l.inv_denominator.as_ptr(),
            lambda: l.lambda.as_mut_ptr(),
            w: s.particles.inverse_masses().as_ptr(),
        };
        (s.particles.raw(), links)
    }

    /// One solver iteration: every color in order (see the module
    /// documentation for the equations).
    ///
    /// # Errors
    ///
    /// [`SystemError::ZeroLength`] (under [`ZeroLength::Reject`]) or
    /// [`SystemError::InvalidResult`] naming the colored position of the
    /// first link that could not be applied: that link is untouched, the
    /// rest of its color was applied, the later colors were not run.
    pub fn iterate(&mut self) -> Result<SweepStats<T>, SystemError> {
        let policy = self.system.zero_length;
        let (p, l) = self.raw();
        let mut stats = SweepStats::default();
        for w in self.system.links.color_starts.windows(2) {
            let (Some(&b), Some(&e)) = (w.first(), w.get(1)) else {
                continue;
            };
            // SAFETY: `new` checked every index below the particle count,
            // the boundaries ascending within the link arrays, and the
            // coloring proper; `&mut self` excludes any other access.
            stats = stats.merge(unsafe { solve_range(p, l, b, e, policy)? });
        }
        Ok(stats)
    }

    /// Iterates until a sweep's `max |C + α̃λ|` is at most `tolerance` (m)
    /// or `max_iterations` sweeps ran.
    ///
    /// # Errors
    ///
    /// [`SystemError::InvalidTolerance`], or those of
    /// [`iterate`](Self::iterate).
    pub fn iterate_until(
        &mut self,
        tolerance: T,
        max_iterations: u32,
    ) -> Result<Convergence<T>, SystemError> {
        if !finite_non_negative(tolerance) {
            return Err(SystemError::InvalidTolerance);
        }
        let mut result = Convergence::default();
        while result.iterations < max_iterations {
            result.last = self.iterate()?;
            result.iterations = result.iterations.saturating_add(1);
            if result.last.max_residual <= tolerance {
                result.converged = 1;
                break;
            }
        }
        Ok(result)
    }

    /// The jobs of color `color` split into `jobs` disjoint ranges
    /// ([`job_range`]) for an engine's job system: each [`ColorJob`] is
    /// `Send` and can run on any thread, all of them concurrently. Run every
    /// job of color 0, wait for all, then color 1, and so on: that is one
    /// iteration, bit-identical to [`iterate`](Self::iterate) whatever
    /// `jobs` is. The jobs borrow the substep, so two colors can never be in
    /// flight at once.
    ///
    /// # Errors
    ///
    /// [`SystemError::InvalidShape`] when `color ≥ color_count()` or
    /// `jobs == 0`.
    pub fn jobs(
        &mut self,
        color: usize,
        jobs: usize,
    ) -> Result<ColorJobs<'_, T, P::Raw>, SystemError> {
        let (begin, end) = self.color_range(color).ok_or(SystemError::InvalidShape)?;
        if jobs == 0 {
            return Err(SystemError::InvalidShape);
        }
        let policy = self.system.zero_length;
        let (p, l) = self.raw();
        Ok(ColorJobs {
            p,
            l,
            policy,
            begin,
            end,
            next: 0,
            jobs,
            _borrow: PhantomData,
        })
    }

    /// The links with their current λ, in colored order.
    #[must_use]
    pub fn lambdas(&self) -> &[T] {
        self.system.links.lambda
    }

    /// The particles.
    #[must_use]
    pub fn particles(&self) -> &P {
        &self.system.particles
    }
}

/// The disjoint jobs of one color (an iterator of [`ColorJob`]).
pub struct ColorJobs<'s, T, R> {
    p: R,
    l: RawLinks<T>,
    policy: ZeroLength,
    begin: usize,
    end: usize,
    next: usize,
    jobs: usize,
    _borrow: PhantomData<&'s mut ()>,
}

impl<'s, T: Real, R: RawParticles<T>> Iterator for ColorJobs<'s, T, R> {
    type Item = ColorJob<'s, T, R>;
    fn next(&mut self) -> Option<Self::Item> {
        let (begin, end) = job_range(self.begin, self.end, self.next, self.jobs)?;
        self.next = self.next.saturating_add(1);
        Some(ColorJob {
            p: self.p,
            l: self.l,
            policy: self.policy,
            begin,
            end,
            _borrow: PhantomData,
        })
    }
}

/// One range of one color: run it on any thread with [`run`](Self::run).
pub struct ColorJob<'s, T, R> {
    p: R,
    l: RawLinks<T>,
    policy: ZeroLength,
    begin: usize,
    end: usize,
    _borrow: PhantomData<&'s mut ()>,
}

impl<T: Real, R: RawParticles<T>> ColorJob<'_, T, R> {
    /// The colored link positions `begin .. end` this job solves.
    #[must_use]
    pub fn range(&self) -> (usize, usize) {
        (self.begin, self.end)
    }

    /// Solves this job's links (consumes the job: each range runs once).
    ///
    /// # Errors
    ///
    /// As [`ColoredSubstep::iterate`], for this range.
    pub fn run(self) -> Result<SweepStats<T>, SystemError> {
        // SAFETY: the range lies within one color (from `job_range` over the
        // color's boundaries, checked at construction), jobs of one
        // `ColorJobs` are disjoint, the coloring is proper (checked at
        // construction) so their particles are disjoint, and the jobs borrow
        // the substep mutably, so nothing else touches the system meanwhile.
        unsafe { solve_range(self.p, self.l, self.begin, self.end, self.policy) }
    }
}

/// The scalar kernel against the chunked and the target's kernel, bit for
/// bit, on ranges with static, zero-length and overflowing links.
#[cfg(test)]
#[allow(clippy::indexing_slicing, clippy::as_conversions)]
mod tests {
    use super::*;

    struct Rng(u64);
    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }
        fn below(&mut self, n: u64) -> u64 {
            self.next() % n
        }
        fn unit(&mut self) -> f64 {
            (self.next() >> 11) as f64 / (1u64 << 53) as f64
        }
    }

    /// One random range of links sharing no particle (one color).
    struct Case<T> {
        pos: Vec<[T; 3]>,
        w: Vec<T>,
        i: Vec<u32>,
        j: Vec<u32>,
        rest: Vec<T>,
        alpha: Vec<T>,
        g: Vec<T>,
        lambda: Vec<T>,
    }

    fn case<T: Real>(r: &mut Rng, m: usize) -> Case<T> {
        let n = 2 * m + 3;
        let mut perm: Vec<u32> = (0..n as u32).collect();
        for k in (1..n).rev() {
            perm.swap(k, r.below(k as u64 + 1) as usize);
        }
        let mut pos: Vec<[T; 3]> = (0..n)
            .map(|_| [0; 3].map(|_| T::from_f64(r.unit() * 4.0 - 2.0)))
            .collect();
        let w: Vec<T> = (0..n)
            .map(|_| match r.below(5) {
                0 => T::ZERO,
                _ => T::from_f64(r.unit() * 2.0),
            })
            .collect();
        let (mut i, mut j) = (Vec::new(), Vec::new());
        let (mut rest, mut alpha, mut g, mut lambda) = (vec![], vec![], vec![], vec![]);
        for k in 0..m {
            let (a, b) = (perm[2 * k], perm[2 * k + 1]);
            i.push(a);
            j.push(b);
            let kind = r.below(20);
            if kind == 0 {
                pos[b as usize] = pos[a as usize]; // zero length
            }
            rest.push(T::from_f64(0.1 + r.unit()));
            alpha.push(T::from_f64(r.unit() * 1e-2));
            let wi = w[a as usize] + w[b as usize];
            g.push(if wi == T::ZERO { T::ZERO } else { T::ONE / wi });
            lambda.push(match kind {
                1 => T::from_f64(1e300), // f64: finite, f32: +inf → non-finite result
                2 => T::from_f64(-1e308),
                _ => T::from_f64(r.unit() - 0.5),
            });
            if kind == 3 {
                alpha[k] = T::from_f64(1e308);
                lambda[k] = T::from_f64(1e10);
            }
        }
        Case {
            pos,
            w,
            i,
            j,
            rest,
            alpha,
            g,
            lambda,
        }
    }

    type Kernel<T> = unsafe fn(
        RawAos<T>,
        RawLinks<T>,
        usize,
        usize,
        ZeroLength,
    ) -> (SweepStats<T>, Option<SystemError>);

    fn run<T: Real>(
        c: &Case<T>,
        kernel: Kernel<T>,
        b: usize,
        e: usize,
        policy: ZeroLength,
    ) -> (Vec<u64>, SweepStats<u64>, Option<SystemError>) {
        let mut pos = c.pos.clone();
        let mut lambda = c.lambda.clone();
        let l = RawLinks {
            i: c.i.as_ptr(),
            j: c.j.as_ptr(),
            rest: c.rest.as_ptr(),
            alpha: c.alpha.as_ptr(),
            g: c.g.as_ptr(),
            lambda: lambda.as_mut_ptr(),
            w: c.w.as_ptr(),
        };
        let p = RawAos {
            p: pos.as_mut_ptr(),
        };
        // SAFETY: every index is below the particle count, the range within
        // the links, no particle shared, nothing else touches the buffers.
        let (s, err) = unsafe { kernel(p, l, b, e, policy) };
        let mut bits: Vec<u64> = pos.iter().flatten().map(|v| v.raw()).collect();
        bits.extend(lambda.iter().map(|v| v.raw()));
        let s = SweepStats {
            applied: s.applied,
            skipped_static: s.skipped_static,
            skipped_zero_length: s.skipped_zero_length,
            max_abs_c: s.max_abs_c.raw(),
            max_residual: s.max_residual.raw(),
        };
        (bits, s, err)
    }

    fn compare<T: Real>() {
        let mut r = Rng(0x9e37_79b9_7f4a_7c15);
        let mut errors = 0;
        let trials = if cfg!(miri) { 8 } else { 300 };
        for trial in 0..trials {
            let m = [0, 1, 3, 63, 64, 65, 130, 200][trial % 8];
            let c = case::<T>(&mut r, m);
            let b = if m > 0 { r.below(m as u64) as usize } else { 0 };
            let e = b + r.below((m - b) as u64 + 1) as usize;
            for policy in [ZeroLength::Reject, ZeroLength::Skip] {
                let s = run(&c, scalar_range::<T, RawAos<T>>, b, e, policy);
                let g = run(&c, generic_range::<T, RawAos<T>>, b, e, policy);
                let t = run(&c, T::colored_range::<RawAos<T>>, b, e, policy);
                assert_eq!(s, g, "trial {trial}");
                assert_eq!(s, t, "trial {trial}");
                errors += usize::from(s.2.is_some());
            }
        }
        assert!(cfg!(miri) || errors > 50, "{errors}");
    }

    #[test]
    fn scalar_kernel_matches_f64() {
        compare::<f64>();
    }

    #[test]
    fn scalar_kernel_matches_f32() {
        compare::<f32>();
    }
}
