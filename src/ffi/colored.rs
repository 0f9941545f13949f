//! The C ABI of colored solving (3D, f64 and f32): colorings into caller
//! memory, the SIMD link system struct, whole sweeps, and job ranges an
//! engine's thread pool runs concurrently.
//!
//! Conventions are those of [`crate::ffi`]
//! (status codes, NULL checks, outputs written only on success, buffers
//! must not overlap). In addition:
//!
//! - Particles are given either as AoS `positions` (`double (*)[3]`) or as
//!   SoA `x`, `y`, `z`: set exactly one of the two (the other NULL),
//!   otherwise `XPBD_STATUS_INVALID_ARGUMENT`.
//! - `xpbd_simd_links3_begin_substep` checks that the coloring is proper (no
//!   particle twice within a color), using the caller's `stamp` scratch.
//!   Between `begin_substep` and the end of the substep the link arrays,
//!   `color_starts` and the counts must not change (the C form of the
//!   lifecycle rule). Every index is still bounds-checked by every call that
//!   solves, so a violation cannot make the library write out of bounds.
//! - `xpbd_simd_links3_solve_job` only reads the system struct and writes its
//!   own link range's particles and λ plus its outputs: jobs of one color
//!   may run on different threads at the same time. Run all jobs of color
//!   0, wait for all (a barrier), then color 1, and so on; never two colors
//!   at once. The result is bit-identical to `xpbd_simd_links3_iterate` and to
//!   Rust's `SimdLinksSubstep::iterate`, whatever the job count.
//! - A link that cannot be applied (non-finite result, or zero length
//!   under `XPBD_ZERO_LENGTH_REJECT`) is left untouched, the rest of its
//!   color is applied, and the call reports the first such link
//!   (`error_index` / `*out_error_index`, a colored position).
//!   `xpbd_simd_links3_iterate` then stops before the next color.

use core::ptr;

use super::check::{check_buffers, check_groups, read, slice, slice_mut, write_opt, Buf};
use super::status::XpbdStatus;
use super::types::{policy_of, SimdLinksC};
use crate::colored::coloring::{self, Instance};
use crate::colored::{self, ColoredLinks, Isa, RawLinks, RawStrided, SimdLinks, Strided};
use crate::real::{finite_positive, Real};
use crate::solver::{Link, SweepStats, ZeroLength};
use crate::SystemError;

/// Which particle layout the struct uses.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Layout {
    Aos,
    Soa,
}

/// Checks every buffer of a SIMD link system: NULL only with count 0,
/// aligned, bounded, exactly one layout, and no two buffers (or the struct)
/// overlapping. Returns the layout and the policy.
fn check<T>(
    f: &SimdLinksC<T>,
    sys: *const SimdLinksC<T>,
    outs: &[Buf],
) -> Result<(Layout, ZeroLength), XpbdStatus> {
    let policy = policy_of(f.zero_length_policy).ok_or(XpbdStatus::InvalidArgument)?;
    if f.simd & !Isa::KNOWN_BITS != 0 {
        return Err(XpbdStatus::InvalidArgument);
    }
    let (n, m) = (f.particle_count, f.link_count);
    let soa = !f.x.is_null() || !f.y.is_null() || !f.z.is_null();
    let layout = match (f.positions.is_null(), soa) {
        (false, false) => Layout::Aos,
        (true, true) => Layout::Soa,
        (true, false) if n == 0 => Layout::Aos,
        _ => return Err(XpbdStatus::InvalidArgument),
    };
    let starts = f
        .color_count
        .checked_add(1)
        .ok_or(XpbdStatus::InvalidArgument)?;
    let (p0, p1, p2) = match layout {
        Layout::Aos => (Buf::of(f.positions, n), Buf::of(f.x, 0), Buf::of(f.x, 0)),
        Layout::Soa => (Buf::of(f.x, n), Buf::of(f.y, n), Buf::of(f.z, n)),
    };
    let bufs = [
        p0,
        p1,
        p2,
        Buf::of(f.inverse_masses, n),
        Buf::of(f.i, m),
        Buf::of(f.j, m),
        Buf::of(f.rest, m),
        Buf::of(f.compliance, m),
        Buf::of(f.lambda, m),
        Buf::of(f.alpha, m),
        Buf::of(f.inv_denominator, m),
        Buf::of(f.color_starts, starts),
        Buf::of(f.stamp, n),
        Buf::of(sys, 1),
    ];
    check_groups(&[&bufs, outs])?;
    Ok((layout, policy))
}

/// # Safety
/// `p` is non-null and valid for writes.
unsafe fn fail<T>(p: *mut SimdLinksC<T>, e: SystemError) -> XpbdStatus {
    // SAFETY: forwarded; `addr_of_mut!` forms no reference.
    unsafe { ptr::write(ptr::addr_of_mut!((*p).error_index), e.index().unwrap_or(0)) };
    XpbdStatus::from(e)
}

/// # Safety
/// See `xpbd_simd_links3_begin_substep`.
pub(crate) unsafe fn colored_begin_raw<T: Real>(system: *mut SimdLinksC<T>, h: T) -> XpbdStatus {
    // SAFETY: forwarded caller contract.
    let f = match unsafe { read(system) } {
        Ok(s) => s,
        Err(status) => return status,
    };
    // SAFETY: `system` is non-null (read above) and valid.
    unsafe { ptr::write(ptr::addr_of_mut!((*system).substep_active), 0) };
    let (layout, policy) = match check(&f, system, &[]) {
        Ok(x) => x,
        Err(status) => return status,
    };
    // SAFETY: every buffer was checked non-null (or empty), aligned,
    // bounded and disjoint from the others and from the struct; valid for
    // its count by the caller's contract; this call is the only user. So
    // the `n` particles' coordinates of the checked layout (AoS: `n`
    // `[T; 3]`, SoA: three arrays of `n`) are valid, distinct and
    // unaliased, as `Strided::new` requires.
    let result = unsafe {
        let links = ColoredLinks {
            i: slice(f.i, f.link_count),
            j: slice(f.j, f.link_count),
            rest: slice(f.rest, f.link_count),
            compliance: slice(f.compliance, f.link_count),
            lambda: slice_mut(f.lambda, f.link_count),
            alpha: slice_mut(f.alpha, f.link_count),
            inv_denominator: slice_mut(f.inv_denominator, f.link_count),
            color_starts: slice(f.color_starts, f.color_count.saturating_add(1)),
        };
        let w = slice(f.inverse_masses, f.particle_count);
        let stamp = slice_mut(f.stamp, f.particle_count);
        let p = Strided::new(strided(&f, layout), w);
        // No detection here (cpuid per substep): begin_substep runs no
        // kernel.
        SimdLinks::new_with_isa(p, links, stamp, Isa::BASELINE).and_then(|sys| {
            let mut sys = sys.with_zero_length(policy);
            sys.begin_substep(h).map(|_| ())
        })
    };
    match result {
        // SAFETY: `system` is non-null and valid; the fields are in the
        // struct, disjoint from every buffer (checked).
        Ok(()) => unsafe {
            // The job-contract word starts fresh with every substep.
            if f.particle_count != 0 {
                ptr::write(f.stamp, 0);
            }
            ptr::write(ptr::addr_of_mut!((*system).h), h);
            ptr::write(ptr::addr_of_mut!((*system).substep_active), 1);
            XpbdStatus::Ok
        },
        // SAFETY: `system` is non-null and valid.
        Err(e) => unsafe { fail(system, e) },
    }
}

/// The layout and policy of an active system, after checking its buffers
/// and the call's outputs, and re-checking h (the struct may have been
/// copied or forged).
///
/// # Safety
/// The struct's buffers are valid for their counts.
unsafe fn active<T: Real>(
    f: &SimdLinksC<T>,
    sys: *const SimdLinksC<T>,
    outs: &[Buf],
) -> Result<(Layout, ZeroLength), XpbdStatus> {
    if f.substep_active != 1 {
        return Err(XpbdStatus::NoSubstep);
    }
    if !finite_positive(f.h) {
        return Err(XpbdStatus::InvalidTimeStep);
    }
    check(f, sys, outs)
}

/// Checks that links `begin .. end` name particles below `n` and are not
/// self-links (reads only).
///
/// # Safety
/// `f.i` and `f.j` are valid for `f.link_count` reads and not written concurrently.
unsafe fn check_range<T>(f: &SimdLinksC<T>, begin: usize, end: usize) -> Result<(), SystemError> {
    // SAFETY: checked buffers, read only (shared reads across threads are fine).
    let (i, j) = unsafe { (slice(f.i, f.link_count), slice(f.j, f.link_count)) };
    let (Some(i), Some(j)) = (i.get(begin..end), j.get(begin..end)) else {
        return Err(SystemError::InvalidShape);
    };
    let n = f.particle_count;
    // Branch-free over the range, in 32-bit lanes so that it vectorizes
    // (an index is a u32: with more than u32::MAX particles every index is
    // in range, and only `a == c` is tested); the precise culprit only on
    // failure.
    let limit = u32::try_from(n).ok();
    let bad = match limit {
        Some(lim) => i.iter().zip(j).fold(0u32, |b, (&a, &c)| {
            b | u32::from(a == c) | u32::from(a >= lim) | u32::from(c >= lim)
        }),
        None => i
            .iter()
            .zip(j)
            .fold(0u32, |b, (&a, &c)| b | u32::from(a == c)),
    };
    if bad != 0 {
        for (k, (&a, &c)) in i.iter().zip(j).enumerate() {
            let constraint = begin.saturating_add(k);
            if colored_ix(a) >= n || colored_ix(c) >= n {
                return Err(SystemError::IndexOutOfRange { constraint });
            }
            if a == c {
                return Err(SystemError::SameParticle { constraint });
            }
        }
    }
    Ok(())
}

#[inline(always)]
fn colored_ix(v: u32) -> usize {
    usize::try_from(v).unwrap_or(usize::MAX)
}

/// Solves links `begin .. end` (within one color) through raw pointers.
///
/// # Safety
/// Buffers valid (checked by `active`), indices of the range checked by
/// `check_range`, the range within one color of a proper coloring, and no
/// other thread touching this range's links or particles.
unsafe fn solve<T: Real>(
    f: &SimdLinksC<T>,
    layout: Layout,
    policy: ZeroLength,
    begin: usize,
    end: usize,
) -> Result<SweepStats<T>, SystemError> {
    let l = RawLinks {
        i: f.i,
        j: f.j,
        stride: 1,
        rest: f.rest,
        alpha: f.alpha,
        g: f.inv_denominator,
        lambda: f.lambda,
        w: f.inverse_masses,
        lazy: false,
    };
    // The bits were checked known by `check`; their support was checked
    // by `xpbd_simd_links3_set_simd` (the caller's contract for a value
    // written directly: see `XpbdSimdLinks3::simd`).
    let isa = Isa::trusted(f.simd);
    // SAFETY: forwarded caller contract.
    unsafe { colored::solve_range(strided(f, layout), l, begin, end, policy, isa) }
}

/// Either layout's positions as one strided view ([`RawStrided`]): one
/// copy of the kernel and of `begin_substep` per precision.
fn strided<T>(f: &SimdLinksC<T>, layout: Layout) -> RawStrided<T> {
    match layout {
        Layout::Aos => {
            // The coordinates of particle k at x + 3k, x + 3k + 1, x + 3k + 2
            // (`wrapping_add`: the pointer may be NULL when there are no
            // particles; it is then never dereferenced).
            let x = f.positions.cast::<T>();
            RawStrided {
                xyz: [x, x.wrapping_add(1), x.wrapping_add(2)],
                stride: 3,
            }
        }
        Layout::Soa => RawStrided {
            xyz: [f.x, f.y, f.z],
            stride: 1,
        },
    }
}

/// The first particle with a NaN or infinite coordinate, in either layout.
///
/// # Safety
/// The position buffers of `layout` passed the checks (valid for
/// `particle_count` reads) and are not written meanwhile.
#[inline(never)]
unsafe fn first_non_finite<T: Real>(f: &SimdLinksC<T>, layout: Layout) -> Option<usize> {
    let n = f.particle_count;
    match layout {
        // SAFETY: forwarded.
        Layout::Aos => crate::solver::first_non_finite(unsafe { slice(f.positions, n) }),
        Layout::Soa => {
            // SAFETY: forwarded.
            let (x, y, z) = unsafe { (slice(f.x, n), slice(f.y, n), slice(f.z, n)) };
            x.iter()
                .zip(y)
                .zip(z)
                .position(|((a, b), c)| !(a.is_finite() && b.is_finite() && c.is_finite()))
        }
    }
}

/// The boundaries of color `c`, checked ascending and within the links.
///
/// # Safety
/// `f.color_starts` valid for `f.color_count + 1` reads.
unsafe fn color_bounds<T>(f: &SimdLinksC<T>, c: usize) -> Option<(usize, usize)> {
    // SAFETY: checked buffer of `colors + 1` entries.
    let starts = unsafe { slice(f.color_starts, f.color_count.saturating_add(1)) };
    let (b, e) = (*starts.get(c)?, *starts.get(c.checked_add(1)?)?);
    (b <= e && e <= f.link_count).then_some((b, e))
}

/// # Safety
/// See `xpbd_simd_links3_iterate`.
pub(crate) unsafe fn colored_iterate_raw<T: Real>(
    system: *mut SimdLinksC<T>,
    out: *mut SweepStats<T>,
) -> XpbdStatus {
    // SAFETY: forwarded caller contract.
    let f = match unsafe { read(system) } {
        Ok(s) => s,
        Err(status) => return status,
    };
    // SAFETY: forwarded caller contract.
    let (layout, policy) = match unsafe { active(&f, system, &[Buf::out(out)]) } {
        Ok(x) => x,
        Err(status) => return status,
    };
    // A C caller may move particles inside a substep: a non-finite one is
    // named before anything is written (O(particles), a fraction of a sweep).
    // SAFETY: buffers checked by `active`; read only, this thread only.
    if let Some(particle) = unsafe { first_non_finite(&f, layout) } {
        // SAFETY: `system` non-null and valid.
        return unsafe { fail(system, SystemError::NonFinitePosition { particle }) };
    }
    let mut total = SweepStats::default();
    for c in 0..f.color_count {
        // SAFETY: buffers checked by `active`.
        let Some((b, e)) = (unsafe { color_bounds(&f, c) }) else {
            return XpbdStatus::InvalidArgument;
        };
        // SAFETY: buffers checked; indices of the color checked just
        // before; one thread; the coloring was checked proper by
        // begin_substep and may not change during the substep (contract).
        let r = unsafe { check_range(&f, b, e).and_then(|()| solve(&f, layout, policy, b, e)) };
        match r {
            Ok(part) => total = total.merge(part),
            // SAFETY: `system` non-null and valid.
            Err(e) => return unsafe { fail(system, e) },
        }
    }
    // SAFETY: NULL or valid and disjoint from every buffer (checked).
    unsafe { write_opt(out, total) };
    XpbdStatus::Ok
}

/// # Safety
/// See `xpbd_simd_links3_solve_job`.
pub(crate) unsafe fn colored_job_raw<T: Real>(
    system: *const SimdLinksC<T>,
    color: usize,
    job: usize,
    job_count: usize,
    out: *mut SweepStats<T>,
    out_error_index: *mut usize,
) -> XpbdStatus {
    // SAFETY: forwarded caller contract.
    let f = match unsafe { read(system) } {
        Ok(s) => s,
        Err(status) => return status,
    };
    let outs = [Buf::out(out), Buf::out(out_error_index)];
    // SAFETY: forwarded caller contract.
    let (layout, policy) = match unsafe { active(&f, system, &outs) } {
        Ok(x) => x,
        Err(status) => return status,
    };
    // SAFETY: buffers checked by `active`.
    let Some((b, e)) = (unsafe { color_bounds(&f, color) }) else {
        return XpbdStatus::InvalidArgument;
    };
    let Some((lo, hi)) = colored::job_range(b, e, job, job_count) else {
        return XpbdStatus::InvalidArgument;
    };
    // SAFETY: `stamp` was checked (aligned, `particle_count` entries, not
    // overlapping any other buffer); during a substep it is the library's
    // job-contract word, accessed only atomically.
    if !unsafe { job_contract(f.stamp, f.particle_count, color, job_count) } {
        return XpbdStatus::JobContract;
    }
    // SAFETY: buffers checked; indices of the range checked just before;
    // the range is this job's share of one color of a proper coloring
    // (checked by begin_substep), so concurrent jobs of the color touch
    // disjoint particles and λ.
    let r = unsafe { check_range(&f, lo, hi).and_then(|()| solve(&f, layout, policy, lo, hi)) };
    match r {
        Ok(stats) => {
            // SAFETY: NULL or valid and disjoint from every buffer (checked).
            unsafe { write_opt(out, stats) };
            XpbdStatus::Ok
        }
        Err(e) => {
            // SAFETY: NULL or valid and disjoint from every buffer (checked).
            unsafe { write_opt(out_error_index, e.index().unwrap_or(0)) };
            XpbdStatus::from(e)
        }
    }
}

/// # Safety
/// See `xpbd_simd_links3_set_simd`.
pub(crate) unsafe fn colored_set_simd_raw<T: Copy>(
    system: *mut SimdLinksC<T>,
    simd: u32,
) -> XpbdStatus {
    // SAFETY: forwarded caller contract.
    if let Err(status) = unsafe { read(system) } {
        return status;
    }
    if Isa::from_bits(simd).is_none() {
        return XpbdStatus::UnsupportedFlag;
    }
    // SAFETY: `system` is non-null (read above) and valid; `addr_of_mut!`
    // forms no reference.
    unsafe { ptr::write(ptr::addr_of_mut!((*system).simd), simd) };
    XpbdStatus::Ok
}

/// The SIMD kernels this CPU and its operating system support, as
/// `XPBD_SIMD_*` bits: x86-64 `XPBD_SIMD_AVX2` and `XPBD_SIMD_AVX512`
/// (cpuid and xgetbv: call it once, not per frame, as cpuid is slow under
/// a hypervisor), aarch64 `XPBD_SIMD_NEON`, 0 elsewhere. The library
/// keeps no copy: store the value (or a subset) in a SIMD link system with
/// `xpbd_simd_links3_set_simd`.
#[no_mangle]
pub extern "C" fn xpbd_simd_detect() -> u32 {
    Isa::detect().bits()
}

/// The cheap part of the job contract (`docs/c-api.md`), kept in
/// `stamp[0]` during a substep: bit 31 set while a color is in flight,
/// bits 20–30 its color, 10–19 its job count, 0–9 the jobs still to come.
/// The first job of a color starts it; each job of it counts down; a job
/// whose job count differs from the one its color started with, or a job
/// of another color while one is in flight, is refused (`false`). Colors
/// above 2047 and job counts above 1023 are not tracked (always `true`).
/// Best effort: it catches every mismatch a job can see when it starts.
///
/// # Safety
/// `stamp` is valid and aligned for `particles` u32 (any pointer when
/// `particles == 0`), accessed only atomically by concurrent callers.
unsafe fn job_contract(stamp: *mut u32, particles: usize, color: usize, jobs: usize) -> bool {
    use core::sync::atomic::{AtomicU32, Ordering};
    const ACTIVE: u32 = 1 << 31;
    let (Ok(c), Ok(j)) = (u32::try_from(color), u32::try_from(jobs)) else {
        return true;
    };
    if particles == 0 || c > 0x7ff || j == 0 || j > 0x3ff {
        return true;
    }
    // SAFETY: valid, aligned for u32 (= AtomicU32's alignment), and only
    // accessed atomically while jobs run (caller contract).
    let word = unsafe { AtomicU32::from_ptr(stamp) };
    let mut current = word.load(Ordering::Acquire);
    loop {
        let in_flight = current & ACTIVE != 0 && current & 0x3ff != 0;
        let next = if !in_flight {
            // A new color (the previous one, if any, ran all its jobs).
            ACTIVE | (c << 20) | (j << 10) | (j - 1)
        } else if (current >> 20) & 0x7ff == c && (current >> 10) & 0x3ff == j {
            current - 1
        } else {
            return false;
        };
        match word.compare_exchange_weak(current, next, Ordering::AcqRel, Ordering::Acquire) {
            Ok(_) => return true,
            Err(seen) => current = seen,
        }
    }
}

/// The link range `[*out_begin, *out_end)` of job `job` of `job_count` for
/// a color spanning links `begin .. end` (64-link chunks split evenly).
/// `XPBD_STATUS_INVALID_ARGUMENT` when `job_count == 0`, `job ≥ job_count`
/// or `end < begin`.
///
/// # Safety
/// The output pointers are NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn xpbd_job_range(
    begin: usize,
    end: usize,
    job: usize,
    job_count: usize,
    out_begin: *mut usize,
    out_end: *mut usize,
) -> XpbdStatus {
    if out_begin.is_null() || out_end.is_null() {
        return XpbdStatus::NullPointer;
    }
    if let Err(e) = check_buffers(&[Buf::of(out_begin, 1), Buf::of(out_end, 1)]) {
        return e;
    }
    match colored::job_range(begin, end, job, job_count) {
        Some((b, e)) => {
            // SAFETY: non-null and valid (contract).
            unsafe {
                ptr::write(out_begin, b);
                ptr::write(out_end, e);
            }
            XpbdStatus::Ok
        }
        None => XpbdStatus::InvalidArgument,
    }
}

/// # Safety
/// Each pointer is NULL or valid.
pub(crate) unsafe fn merge_raw<T: Real>(
    acc: *mut SweepStats<T>,
    part: *const SweepStats<T>,
) -> XpbdStatus {
    if acc.is_null() || part.is_null() {
        return XpbdStatus::NullPointer;
    }
    // SAFETY: non-null and valid (contract); read by value, so aliasing is fine.
    unsafe {
        let merged = ptr::read(acc).merge(ptr::read(part));
        ptr::write(acc, merged);
    }
    XpbdStatus::Ok
}

/// Writes the even/odd coloring of a rope (`closed = 0`, links (k, k+1)) or
/// closed loop (`closed != 0`, plus (n−1, 0); 3 colors when the link count
/// is odd) into `colors` (`link_count` entries); `*out_color_count`
/// receives the color count. Nothing is written on error.
///
/// # Safety
/// `colors` valid for `capacity` writes, `out_color_count` NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn xpbd_color_rope(
    link_count: usize,
    closed: i32,
    colors: *mut u32,
    capacity: usize,
    out_color_count: *mut u32,
) -> XpbdStatus {
    // SAFETY: forwarded caller contract.
    unsafe {
        coloring_raw(colors, capacity, out_color_count, |c| {
            crate::colored::coloring::rope_coloring(link_count, closed != 0, c)
        })
    }
}

/// Writes the fixed coloring of `xpbd_build_cloth3`'s links for a
/// `rows × cols` grid (4 colors, 8 with `shear != 0`).
///
/// # Safety
/// As `xpbd_color_rope`.
#[no_mangle]
pub unsafe extern "C" fn xpbd_color_cloth(
    rows: usize,
    cols: usize,
    shear: i32,
    colors: *mut u32,
    capacity: usize,
    out_color_count: *mut u32,
) -> XpbdStatus {
    // SAFETY: forwarded caller contract.
    unsafe {
        coloring_raw(colors, capacity, out_color_count, |c| {
            crate::colored::coloring::cloth_coloring(rows, cols, shear != 0, c)
        })
    }
}

/// Stable counting sort by color: `order[k]` (`link_count` entries) is the
/// original link at colored position k, `color_starts` (`color_count + 1`
/// entries) the boundaries. Nothing is written on error.
///
/// # Safety
/// `colors` valid for `link_count` reads, `color_starts` for
/// `color_count + 1` writes, `order` for `link_count` writes.
#[no_mangle]
pub unsafe extern "C" fn xpbd_color_order(
    colors: *const u32,
    link_count: usize,
    color_count: u32,
    color_starts: *mut usize,
    order: *mut u32,
) -> XpbdStatus {
    let Ok(cc) = usize::try_from(color_count) else {
        return XpbdStatus::InvalidArgument;
    };
    if let Err(e) = check_buffers(&[
        Buf::of(colors, link_count),
        Buf::of(color_starts, cc.saturating_add(1)),
        Buf::of(order, link_count),
    ]) {
        return e;
    }
    // SAFETY: checked non-null (or empty), aligned, bounded, disjoint.
    let r = unsafe {
        crate::colored::coloring::color_order(
            slice(colors, link_count),
            color_count,
            slice_mut(color_starts, cc.saturating_add(1)),
            slice_mut(order, link_count),
        )
    };
    match r {
        Ok(()) => XpbdStatus::Ok,
        Err(e) => XpbdStatus::from(e),
    }
}

/// # Safety
/// `colors` valid for `capacity` writes, `out` NULL or valid.
unsafe fn coloring_raw(
    colors: *mut u32,
    capacity: usize,
    out: *mut u32,
    f: impl FnOnce(&mut [u32]) -> Result<u32, SystemError>,
) -> XpbdStatus {
    if out.is_null() {
        return XpbdStatus::NullPointer;
    }
    if let Err(e) = check_buffers(&[Buf::of(colors, capacity), Buf::of(out, 1)]) {
        return e;
    }
    // SAFETY: checked non-null (or empty), aligned, bounded, disjoint.
    match f(unsafe { slice_mut(colors, capacity) }) {
        Ok(n) => {
            // SAFETY: non-null, valid, disjoint from `colors`.
            unsafe { ptr::write(out, n) };
            XpbdStatus::Ok
        }
        Err(e) => XpbdStatus::from(e),
    }
}

/// `xpbd_color_greedy[_f32]` (`inverse_masses` `None`) and
/// `xpbd_color_greedy_moving[_f32]` (`Some`: the caller's pointer, NULL
/// refused with a non-zero `n`): one body, the buffer checks of both.
///
/// # Safety
/// See `xpbd_color_greedy` and `xpbd_color_greedy_moving`.
#[inline(always)]
pub(crate) unsafe fn greedy_raw<T: Real>(
    links: *const Link<T>,
    m: usize,
    inverse_masses: Option<*const T>,
    n: usize,
    scratch: *mut u64,
    colors: *mut u32,
    out: *mut u32,
) -> XpbdStatus {
    if out.is_null() {
        return XpbdStatus::NullPointer;
    }
    let w = inverse_masses.unwrap_or(ptr::null());
    let w_count = if inverse_masses.is_some() { n } else { 0 };
    if let Err(e) = check_buffers(&[
        Buf::of(links, m),
        Buf::of(w, w_count),
        Buf::of(scratch, n),
        Buf::of(colors, m),
        Buf::of(out, 1),
    ]) {
        return e;
    }
    // SAFETY: checked non-null (or empty), aligned, bounded, disjoint.
    let r = unsafe {
        color_either(
            slice(links, m),
            n,
            inverse_masses.map(|_| slice(w, n)),
            slice_mut(scratch, n),
            slice_mut(colors, m),
        )
    };
    match r {
        Ok(c) => {
            // SAFETY: non-null, valid, disjoint.
            unsafe { ptr::write(out, c) };
            XpbdStatus::Ok
        }
        Err(e) => XpbdStatus::from(e),
    }
}

/// The greedy coloring of the C API: [`color_instances`] over
/// `particle_count` particles, or with `inverse_masses` (one per particle)
/// [`color_moving_instances`], where a particle of inverse mass 0 is no
/// conflict. `colors` is written only on success (`used` always).
///
/// [`color_instances`]: crate::colored::coloring::color_instances
/// [`color_moving_instances`]: crate::colored::coloring::color_moving_instances
#[inline(always)]
pub(crate) fn color_either<const N: usize, K: Instance<N>, T: Real>(
    items: &[K],
    particle_count: usize,
    inverse_masses: Option<&[T]>,
    used: &mut [u64],
    colors: &mut [u32],
) -> Result<u32, SystemError> {
    match inverse_masses {
        None => coloring::color_instances(items, particle_count, used, colors),
        Some(w) => coloring::color_moving_instances(items, w, used, colors),
    }
}

/// # Safety
/// See `xpbd_colored_links_fill`.
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn fill_raw<T: Real>(
    links: *const Link<T>,
    source_count: usize,
    order: *const u32,
    m: usize,
    i: *mut u32,
    j: *mut u32,
    rest: *mut T,
    compliance: *mut T,
    lambda: *mut T,
) -> XpbdStatus {
    if let Err(e) = check_buffers(&[
        Buf::of(links, source_count),
        Buf::of(order, m),
        Buf::of(i, m),
        Buf::of(j, m),
        Buf::of(rest, m),
        Buf::of(compliance, m),
        Buf::of(lambda, m),
    ]) {
        return e;
    }
    // SAFETY: checked non-null (or empty), aligned, bounded, disjoint.
    let r = unsafe {
        colored::fill_colored_links(
            slice(links, source_count),
            slice(order, m),
            slice_mut(i, m),
            slice_mut(j, m),
            slice_mut(rest, m),
            slice_mut(compliance, m),
            slice_mut(lambda, m),
        )
    };
    match r {
        Ok(()) => XpbdStatus::Ok,
        Err(e) => XpbdStatus::from(e),
    }
}
