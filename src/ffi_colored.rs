//! The C ABI of colored solving (3D, f64 and f32): colorings into caller
//! memory, the colored system struct, whole sweeps, and job ranges an
//! engine's thread pool runs concurrently.
//!
//! Conventions are those of [`crate::ffi`] and [`crate::ffi_system`]
//! (status codes, NULL checks, outputs written only on success, buffers
//! must not overlap). In addition:
//!
//! - Particles are given either as AoS `positions` (`double (*)[3]`) or as
//!   SoA `x`, `y`, `z`: set exactly one of the two (the other NULL),
//!   otherwise `XPBD_STATUS_INVALID_ARGUMENT`.
//! - `xpbd_colored3_begin_substep` checks that the coloring is proper (no
//!   particle twice within a color), using the caller's `stamp` scratch.
//!   Between `begin_substep` and the end of the substep the link arrays,
//!   `color_starts` and the counts must not change (the C form of the
//!   lifecycle rule). Every index is still bounds-checked by every call that
//!   solves, so a violation cannot make the library write out of bounds.
//! - `xpbd_colored3_solve_job` only reads the system struct and writes its
//!   own link range's particles and λ plus its outputs: jobs of one color
//!   may run on different threads at the same time. Run all jobs of color
//!   0, wait for all (a barrier), then color 1, and so on; never two colors
//!   at once. The result is bit-identical to `xpbd_colored3_iterate` and to
//!   Rust's `ColoredSubstep::iterate`, whatever the job count.
//! - A link that cannot be applied (non-finite result, or zero length
//!   under `XPBD_ZERO_LENGTH_REJECT`) is left untouched, the rest of its
//!   color is applied, and the call reports the first such link
//!   (`error_index` / `*out_error_index`, a colored position).
//!   `xpbd_colored3_iterate` then stops before the next color.

use core::ptr;

use crate::colored::{self, ColoredLinks, ColoredSystem, RawLinks, RawStrided, Strided};
use crate::ffi::XpbdStatus;
use crate::ffi_system::{
    check_buffers, policy_of, read_system, slice, slice_mut, write_opt, Buf, XpbdLink, XpbdLinkF32,
    XpbdSweepStats, XpbdSweepStatsF32,
};
use crate::real::Real;
use crate::system::{Link, SweepStats, SystemError, ZeroLength};

/// Links per job chunk: `xpbd_job_range` splits a color on multiples of
/// this many links.
pub const XPBD_JOB_CHUNK: usize = 64;

/// The most colors `xpbd_color_greedy` uses.
pub const XPBD_MAX_GREEDY_COLORS: u32 = 64;

// Literal values so that cbindgen can export them; they must match Rust's.
const _: () = assert!(XPBD_JOB_CHUNK == colored::CHUNK);
const _: () = assert!(XPBD_MAX_GREEDY_COLORS == crate::coloring::MAX_GREEDY_COLORS);

/// A colored 3D f64 system over caller-owned buffers (see the module
/// documentation of `ffi_colored` for the rules).
///
/// Zero-initialise, fill in the buffer fields, counts and
/// `zero_length_policy`; the library writes only `substep_active`, `h` and
/// `error_index`, and the buffers' contents.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct XpbdColoredSystem3 {
    /// AoS particle positions (m), `particle_count` entries, or NULL when
    /// `x`, `y`, `z` are used.
    pub positions: *mut [f64; 3],
    /// SoA x coordinates (m), or NULL with `positions`.
    pub x: *mut f64,
    /// SoA y coordinates (m), or NULL with `positions`.
    pub y: *mut f64,
    /// SoA z coordinates (m), or NULL with `positions`.
    pub z: *mut f64,
    /// Inverse masses (1/kg), `particle_count` entries; 0 = static.
    pub inverse_masses: *const f64,
    /// Number of particles.
    pub particle_count: usize,
    /// First particle of each link, `link_count` entries, in colored order.
    pub i: *const u32,
    /// Second particle of each link.
    pub j: *const u32,
    /// Rest lengths (m), > 0.
    pub rest: *const f64,
    /// Compliances α (m/N), ≥ 0.
    pub compliance: *const f64,
    /// Multipliers λ (kg·m); reset by begin_substep.
    pub lambda: *mut f64,
    /// Scratch, `link_count` entries: α̃ = α/h² (1/kg), written by begin_substep.
    pub alpha: *mut f64,
    /// Scratch, `link_count` entries: 1/(w_i + w_j + α̃) (kg), written by begin_substep.
    pub inv_denominator: *mut f64,
    /// Number of links.
    pub link_count: usize,
    /// Color boundaries, `color_count + 1` entries: color c is links
    /// `color_starts[c] .. color_starts[c + 1]`.
    pub color_starts: *const usize,
    /// Number of colors.
    pub color_count: usize,
    /// Scratch, `particle_count` entries, for the proper-coloring check.
    pub stamp: *mut u32,
    /// `XPBD_ZERO_LENGTH_REJECT` (0) or `XPBD_ZERO_LENGTH_SKIP` (1).
    pub zero_length_policy: i32,
    /// Written by the library: 1 after a successful begin_substep, else 0.
    pub substep_active: u32,
    /// Written by the library: the substep length h (s).
    pub h: f64,
    /// Written by the library on error: the particle or link (colored
    /// position) the error names, 0 when none.
    pub error_index: usize,
}

/// A colored 3D f32 system: see `XpbdColoredSystem3`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct XpbdColoredSystem3F32 {
    /// AoS particle positions (m), or NULL when `x`, `y`, `z` are used.
    pub positions: *mut [f32; 3],
    /// SoA x coordinates (m), or NULL with `positions`.
    pub x: *mut f32,
    /// SoA y coordinates (m), or NULL with `positions`.
    pub y: *mut f32,
    /// SoA z coordinates (m), or NULL with `positions`.
    pub z: *mut f32,
    /// Inverse masses (1/kg); 0 = static.
    pub inverse_masses: *const f32,
    /// Number of particles.
    pub particle_count: usize,
    /// First particle of each link, in colored order.
    pub i: *const u32,
    /// Second particle of each link.
    pub j: *const u32,
    /// Rest lengths (m), > 0.
    pub rest: *const f32,
    /// Compliances α (m/N), ≥ 0.
    pub compliance: *const f32,
    /// Multipliers λ (kg·m).
    pub lambda: *mut f32,
    /// Scratch: α̃ = α/h² (1/kg).
    pub alpha: *mut f32,
    /// Scratch: 1/(w_i + w_j + α̃) (kg).
    pub inv_denominator: *mut f32,
    /// Number of links.
    pub link_count: usize,
    /// Color boundaries, `color_count + 1` entries.
    pub color_starts: *const usize,
    /// Number of colors.
    pub color_count: usize,
    /// Scratch, `particle_count` entries.
    pub stamp: *mut u32,
    /// `XPBD_ZERO_LENGTH_REJECT` (0) or `XPBD_ZERO_LENGTH_SKIP` (1).
    pub zero_length_policy: i32,
    /// Written by the library: 1 after a successful begin_substep, else 0.
    pub substep_active: u32,
    /// Written by the library: the substep length h (s).
    pub h: f32,
    /// Written by the library on error: the index the error names.
    pub error_index: usize,
}

/// Field access shared by the two colored system structs.
pub(crate) trait RawColored<T>: Copy {
    fn fields(&self) -> Fields<T>;
    /// # Safety
    /// `p` is non-null and valid.
    unsafe fn state(p: *mut Self) -> (*mut u32, *mut T, *mut usize);
}

/// The fields of a colored system struct.
#[derive(Clone, Copy)]
pub(crate) struct Fields<T> {
    positions: *mut [T; 3],
    x: *mut T,
    y: *mut T,
    z: *mut T,
    w: *const T,
    n: usize,
    i: *const u32,
    j: *const u32,
    rest: *const T,
    compliance: *const T,
    lambda: *mut T,
    alpha: *mut T,
    g: *mut T,
    m: usize,
    starts: *const usize,
    colors: usize,
    stamp: *mut u32,
    policy: i32,
    active: bool,
}

macro_rules! impl_raw_colored {
    ($name:ident, $t:ty) => {
        impl RawColored<$t> for $name {
            fn fields(&self) -> Fields<$t> {
                Fields {
                    positions: self.positions,
                    x: self.x,
                    y: self.y,
                    z: self.z,
                    w: self.inverse_masses,
                    n: self.particle_count,
                    i: self.i,
                    j: self.j,
                    rest: self.rest,
                    compliance: self.compliance,
                    lambda: self.lambda,
                    alpha: self.alpha,
                    g: self.inv_denominator,
                    m: self.link_count,
                    starts: self.color_starts,
                    colors: self.color_count,
                    stamp: self.stamp,
                    policy: self.zero_length_policy,
                    active: self.substep_active == 1,
                }
            }
            unsafe fn state(p: *mut Self) -> (*mut u32, *mut $t, *mut usize) {
                // SAFETY: `p` is non-null and valid (caller contract);
                // `addr_of_mut!` forms no reference.
                unsafe {
                    (
                        ptr::addr_of_mut!((*p).substep_active),
                        ptr::addr_of_mut!((*p).h),
                        ptr::addr_of_mut!((*p).error_index),
                    )
                }
            }
        }
    };
}

impl_raw_colored!(XpbdColoredSystem3, f64);
impl_raw_colored!(XpbdColoredSystem3F32, f32);

/// Which particle layout the struct uses.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Layout {
    Aos,
    Soa,
}

/// Checks every buffer of a colored system: NULL only with count 0,
/// aligned, bounded, exactly one layout, and no two buffers (or the struct)
/// overlapping. Returns the layout and the policy.
fn check<T, S>(f: &Fields<T>, sys: *const S) -> Result<(Layout, ZeroLength), XpbdStatus> {
    let policy = policy_of(f.policy).ok_or(XpbdStatus::InvalidArgument)?;
    let (n, m) = (f.n, f.m);
    let soa = !f.x.is_null() || !f.y.is_null() || !f.z.is_null();
    let layout = match (f.positions.is_null(), soa) {
        (false, false) => Layout::Aos,
        (true, true) => Layout::Soa,
        (true, false) if n == 0 => Layout::Aos,
        _ => return Err(XpbdStatus::InvalidArgument),
    };
    let starts = f.colors.checked_add(1).ok_or(XpbdStatus::InvalidArgument)?;
    let (p0, p1, p2) = match layout {
        Layout::Aos => (Buf::of(f.positions, n), Buf::of(f.x, 0), Buf::of(f.x, 0)),
        Layout::Soa => (Buf::of(f.x, n), Buf::of(f.y, n), Buf::of(f.z, n)),
    };
    check_buffers(&[
        p0,
        p1,
        p2,
        Buf::of(f.w, n),
        Buf::of(f.i, m),
        Buf::of(f.j, m),
        Buf::of(f.rest, m),
        Buf::of(f.compliance, m),
        Buf::of(f.lambda, m),
        Buf::of(f.alpha, m),
        Buf::of(f.g, m),
        Buf::of(f.starts, starts),
        Buf::of(f.stamp, n),
        Buf::of(sys, 1),
    ])?;
    Ok((layout, policy))
}

/// # Safety
/// `p` is non-null and valid for writes.
unsafe fn fail<T, S: RawColored<T>>(p: *mut S, e: SystemError) -> XpbdStatus {
    // SAFETY: forwarded.
    unsafe {
        let (_, _, index) = S::state(p);
        ptr::write(index, e.index().unwrap_or(0));
    }
    XpbdStatus::from(e)
}

/// # Safety
/// See `xpbd_colored3_begin_substep`.
pub(crate) unsafe fn colored_begin_raw<T: Real, S: RawColored<T>>(
    system: *mut S,
    h: T,
) -> XpbdStatus {
    // SAFETY: forwarded caller contract.
    let s = match unsafe { read_system(system) } {
        Ok(s) => s,
        Err(status) => return status,
    };
    // SAFETY: `system` is non-null (read above) and valid.
    let (active, h_field, _) = unsafe { S::state(system) };
    // SAFETY: as above.
    unsafe { ptr::write(active, 0) };
    let f = s.fields();
    let (layout, policy) = match check(&f, system) {
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
            i: slice(f.i, f.m),
            j: slice(f.j, f.m),
            rest: slice(f.rest, f.m),
            compliance: slice(f.compliance, f.m),
            lambda: slice_mut(f.lambda, f.m),
            alpha: slice_mut(f.alpha, f.m),
            inv_denominator: slice_mut(f.g, f.m),
            color_starts: slice(f.starts, f.colors.saturating_add(1)),
        };
        let w = slice(f.w, f.n);
        let stamp = slice_mut(f.stamp, f.n);
        let p = Strided::new(strided(&f, layout), w);
        ColoredSystem::new(p, links, stamp).and_then(|sys| {
            let mut sys = sys.with_zero_length(policy);
            sys.begin_substep(h).map(|_| ())
        })
    };
    match result {
        // SAFETY: `system` is non-null and valid; the fields are in the
        // struct, disjoint from every buffer (checked).
        Ok(()) => unsafe {
            ptr::write(h_field, h);
            ptr::write(active, 1);
            XpbdStatus::Ok
        },
        // SAFETY: `system` is non-null and valid.
        Err(e) => unsafe { fail::<T, S>(system, e) },
    }
}

/// The raw pointers of an active system, after checking the buffers and
/// the index bounds of links `begin .. end`.
///
/// # Safety
/// The struct's buffers are valid for their counts.
unsafe fn active<T: Real, S: RawColored<T>>(
    s: &S,
    sys: *const S,
) -> Result<(Fields<T>, Layout, ZeroLength), XpbdStatus> {
    let f = s.fields();
    if !f.active {
        return Err(XpbdStatus::NoSubstep);
    }
    let (layout, policy) = check(&f, sys)?;
    Ok((f, layout, policy))
}

/// Checks that links `begin .. end` name particles below `n` and are not
/// self-links (reads only).
///
/// # Safety
/// `f.i` and `f.j` are valid for `f.m` reads and not written concurrently.
unsafe fn check_range<T>(f: &Fields<T>, begin: usize, end: usize) -> Result<(), SystemError> {
    // SAFETY: checked buffers, read only (shared reads across threads are fine).
    let (i, j) = unsafe { (slice(f.i, f.m), slice(f.j, f.m)) };
    let (Some(i), Some(j)) = (i.get(begin..end), j.get(begin..end)) else {
        return Err(SystemError::InvalidShape);
    };
    let n = f.n;
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
    f: &Fields<T>,
    layout: Layout,
    policy: ZeroLength,
    begin: usize,
    end: usize,
) -> Result<SweepStats<T>, SystemError> {
    let l = RawLinks {
        i: f.i,
        j: f.j,
        rest: f.rest,
        alpha: f.alpha,
        g: f.g,
        lambda: f.lambda,
        w: f.w,
    };
    // SAFETY: forwarded caller contract.
    unsafe { colored::solve_range(strided(f, layout), l, begin, end, policy) }
}

/// Either layout's positions as one strided view ([`RawStrided`]): one
/// copy of the kernel and of `begin_substep` per precision.
fn strided<T>(f: &Fields<T>, layout: Layout) -> RawStrided<T> {
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

/// The boundaries of color `c`, checked ascending and within the links.
///
/// # Safety
/// `f.starts` valid for `f.colors + 1` reads.
unsafe fn color_bounds<T>(f: &Fields<T>, c: usize) -> Option<(usize, usize)> {
    // SAFETY: checked buffer of `colors + 1` entries.
    let starts = unsafe { slice(f.starts, f.colors.saturating_add(1)) };
    let (b, e) = (*starts.get(c)?, *starts.get(c.checked_add(1)?)?);
    (b <= e && e <= f.m).then_some((b, e))
}

/// # Safety
/// See `xpbd_colored3_iterate`.
pub(crate) unsafe fn colored_iterate_raw<T: Real, S: RawColored<T>>(
    system: *mut S,
    out: *mut SweepStats<T>,
) -> XpbdStatus {
    // SAFETY: forwarded caller contract.
    let s = match unsafe { read_system(system) } {
        Ok(s) => s,
        Err(status) => return status,
    };
    // SAFETY: forwarded caller contract.
    let (f, layout, policy) = match unsafe { active(&s, system) } {
        Ok(x) => x,
        Err(status) => return status,
    };
    let mut total = SweepStats::default();
    for c in 0..f.colors {
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
            Err(e) => return unsafe { fail::<T, S>(system, e) },
        }
    }
    // SAFETY: NULL or valid (contract).
    unsafe { write_opt(out, total) };
    XpbdStatus::Ok
}

/// # Safety
/// See `xpbd_colored3_solve_job`.
pub(crate) unsafe fn colored_job_raw<T: Real, S: RawColored<T>>(
    system: *const S,
    color: usize,
    job: usize,
    job_count: usize,
    out: *mut SweepStats<T>,
    out_error_index: *mut usize,
) -> XpbdStatus {
    // SAFETY: forwarded caller contract.
    let s = match unsafe { read_system(system) } {
        Ok(s) => s,
        Err(status) => return status,
    };
    // SAFETY: forwarded caller contract.
    let (f, layout, policy) = match unsafe { active(&s, system) } {
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
    // SAFETY: buffers checked; indices of the range checked just before;
    // the range is this job's share of one color of a proper coloring
    // (checked by begin_substep), so concurrent jobs of the color touch
    // disjoint particles and λ.
    let r = unsafe { check_range(&f, lo, hi).and_then(|()| solve(&f, layout, policy, lo, hi)) };
    match r {
        Ok(stats) => {
            // SAFETY: NULL or valid (contract).
            unsafe { write_opt(out, stats) };
            XpbdStatus::Ok
        }
        Err(e) => {
            // SAFETY: NULL or valid (contract).
            unsafe { write_opt(out_error_index, e.index().unwrap_or(0)) };
            XpbdStatus::from(e)
        }
    }
}

/// Starts a substep of length `h` (s) for a colored 3D f64 system: checks
/// the buffers and the coloring (proper, indices in range, boundaries),
/// validates every particle and link as `xpbd_system3_begin_substep` does,
/// then writes α̃ = α/h² and 1/(w_i + w_j + α̃) per link, sets every λ to 0
/// and records `h`.
///
/// Returns `XPBD_STATUS_OK`, or an error naming the particle or link in
/// `system->error_index` (`INVALID_ARGUMENT` for an improper coloring or
/// bad boundaries); on error no position, λ or scratch is written and
/// `substep_active` is cleared.
///
/// # Safety
/// `system` is NULL or valid; its buffers are NULL (with count 0) or valid
/// for their counts.
#[no_mangle]
pub unsafe extern "C" fn xpbd_colored3_begin_substep(
    system: *mut XpbdColoredSystem3,
    h: f64,
) -> XpbdStatus {
    // SAFETY: forwarded caller contract.
    unsafe { colored_begin_raw::<f64, XpbdColoredSystem3>(system, h) }
}

/// `xpbd_colored3_begin_substep` for an f32 system.
///
/// # Safety
/// As `xpbd_colored3_begin_substep`.
#[no_mangle]
pub unsafe extern "C" fn xpbd_colored3_begin_substep_f32(
    system: *mut XpbdColoredSystem3F32,
    h: f32,
) -> XpbdStatus {
    // SAFETY: forwarded caller contract.
    unsafe { colored_begin_raw::<f32, XpbdColoredSystem3F32>(system, h) }
}

/// One colored sweep of a 3D f64 system on the calling thread: colors in
/// order, each link `Δλ = (−C − α̃λ)·g`, `x_i −= w_i Δλ n`, `x_j += w_j Δλ n`,
/// `λ += Δλ` with `n = d/|d|` computed as `d · (1/|d|)`.
///
/// `out_stats` may be NULL; written on success only. Errors:
/// `NO_SUBSTEP`, `ZERO_LENGTH` / `INVALID_RESULT` (the link, in
/// `error_index`, is untouched, the rest of its color applied, later colors
/// not run), `INDEX_OUT_OF_RANGE` / `SAME_PARTICLE` if the links were
/// changed since begin_substep.
///
/// # Safety
/// As `xpbd_colored3_begin_substep`; `out_stats` is NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn xpbd_colored3_iterate(
    system: *mut XpbdColoredSystem3,
    out_stats: *mut XpbdSweepStats,
) -> XpbdStatus {
    // SAFETY: forwarded caller contract.
    unsafe { colored_iterate_raw::<f64, XpbdColoredSystem3>(system, out_stats.cast()) }
}

/// `xpbd_colored3_iterate` for an f32 system.
///
/// # Safety
/// As `xpbd_colored3_iterate`.
#[no_mangle]
pub unsafe extern "C" fn xpbd_colored3_iterate_f32(
    system: *mut XpbdColoredSystem3F32,
    out_stats: *mut XpbdSweepStatsF32,
) -> XpbdStatus {
    // SAFETY: forwarded caller contract.
    unsafe { colored_iterate_raw::<f32, XpbdColoredSystem3F32>(system, out_stats.cast()) }
}

/// Solves job `job` of `job_count` of color `color` of an active colored
/// f64 system: the color's links split into `job_count` disjoint ranges on
/// 64-link boundaries (`xpbd_job_range`). Thread-safe between jobs of one
/// color: reads `*system` only, writes this range's particles and λ,
/// `*out_stats` (may be NULL) on success, `*out_error_index` (may be NULL)
/// on a link error. Run every job of a color, wait for all, then the next
/// color: bit-identical to `xpbd_colored3_iterate` for any job count. Merge
/// the stats with `xpbd_sweep_stats_merge`.
///
/// Errors: `NO_SUBSTEP`, `INVALID_ARGUMENT` (color or job out of range),
/// and the link errors of `xpbd_colored3_iterate` for this range.
///
/// # Safety
/// As `xpbd_colored3_iterate`; jobs of different colors never run at once.
#[no_mangle]
pub unsafe extern "C" fn xpbd_colored3_solve_job(
    system: *const XpbdColoredSystem3,
    color: usize,
    job: usize,
    job_count: usize,
    out_stats: *mut XpbdSweepStats,
    out_error_index: *mut usize,
) -> XpbdStatus {
    // SAFETY: forwarded caller contract.
    unsafe {
        colored_job_raw::<f64, XpbdColoredSystem3>(
            system,
            color,
            job,
            job_count,
            out_stats.cast(),
            out_error_index,
        )
    }
}

/// `xpbd_colored3_solve_job` for an f32 system.
///
/// # Safety
/// As `xpbd_colored3_solve_job`.
#[no_mangle]
pub unsafe extern "C" fn xpbd_colored3_solve_job_f32(
    system: *const XpbdColoredSystem3F32,
    color: usize,
    job: usize,
    job_count: usize,
    out_stats: *mut XpbdSweepStatsF32,
    out_error_index: *mut usize,
) -> XpbdStatus {
    // SAFETY: forwarded caller contract.
    unsafe {
        colored_job_raw::<f32, XpbdColoredSystem3F32>(
            system,
            color,
            job,
            job_count,
            out_stats.cast(),
            out_error_index,
        )
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

/// `*acc` ← the merge of `*acc` and `*part` (counts add, maxima take the
/// larger): combines the stats of the jobs of one sweep, independent of
/// how it was split.
///
/// # Safety
/// Each pointer is NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn xpbd_sweep_stats_merge(
    acc: *mut XpbdSweepStats,
    part: *const XpbdSweepStats,
) -> XpbdStatus {
    // SAFETY: forwarded; layout-identical to SweepStats<f64> (asserted in ffi_system).
    unsafe { merge_raw::<f64>(acc.cast(), part.cast()) }
}

/// `xpbd_sweep_stats_merge` for f32 stats.
///
/// # Safety
/// Each pointer is NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn xpbd_sweep_stats_merge_f32(
    acc: *mut XpbdSweepStatsF32,
    part: *const XpbdSweepStatsF32,
) -> XpbdStatus {
    // SAFETY: as for f64.
    unsafe { merge_raw::<f32>(acc.cast(), part.cast()) }
}

/// # Safety
/// Each pointer is NULL or valid.
unsafe fn merge_raw<T: Real>(acc: *mut SweepStats<T>, part: *const SweepStats<T>) -> XpbdStatus {
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
            crate::coloring::rope_coloring(link_count, closed != 0, c)
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
            crate::coloring::cloth_coloring(rows, cols, shear != 0, c)
        })
    }
}

/// Greedy coloring of any f64 link list (each link takes the smallest color
/// neither particle has; at most 64 colors). `scratch`: `particle_count`
/// `uint64_t`; `colors`: `link_count` entries. On error nothing but the
/// scratch is written.
///
/// # Safety
/// `links` valid for `link_count` reads, `scratch` for `particle_count`
/// writes, `colors` for `link_count` writes, `out_color_count` valid.
#[no_mangle]
pub unsafe extern "C" fn xpbd_color_greedy(
    links: *const XpbdLink,
    link_count: usize,
    particle_count: usize,
    scratch: *mut u64,
    colors: *mut u32,
    out_color_count: *mut u32,
) -> XpbdStatus {
    // SAFETY: forwarded caller contract.
    unsafe {
        greedy_raw::<f64>(
            links.cast(),
            link_count,
            particle_count,
            scratch,
            colors,
            out_color_count,
        )
    }
}

/// `xpbd_color_greedy` for f32 links.
///
/// # Safety
/// As `xpbd_color_greedy`.
#[no_mangle]
pub unsafe extern "C" fn xpbd_color_greedy_f32(
    links: *const XpbdLinkF32,
    link_count: usize,
    particle_count: usize,
    scratch: *mut u64,
    colors: *mut u32,
    out_color_count: *mut u32,
) -> XpbdStatus {
    // SAFETY: forwarded caller contract.
    unsafe {
        greedy_raw::<f32>(
            links.cast(),
            link_count,
            particle_count,
            scratch,
            colors,
            out_color_count,
        )
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
        crate::coloring::color_order(
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

/// Copies f64 links into colored SoA arrays: position k receives link
/// `order[k]` (i, j, rest, compliance; λ = 0). All outputs have
/// `link_count` entries. Nothing is written on error.
///
/// # Safety
/// `links` valid for `source_count` reads, the others for `link_count`.
#[no_mangle]
pub unsafe extern "C" fn xpbd_colored_links_fill(
    links: *const XpbdLink,
    source_count: usize,
    order: *const u32,
    link_count: usize,
    i: *mut u32,
    j: *mut u32,
    rest: *mut f64,
    compliance: *mut f64,
    lambda: *mut f64,
) -> XpbdStatus {
    // SAFETY: forwarded caller contract; XpbdLink is layout-identical to Link<f64>.
    unsafe {
        fill_raw::<f64>(
            links.cast(),
            source_count,
            order,
            link_count,
            i,
            j,
            rest,
            compliance,
            lambda,
        )
    }
}

/// `xpbd_colored_links_fill` for f32 links.
///
/// # Safety
/// As `xpbd_colored_links_fill`.
#[no_mangle]
pub unsafe extern "C" fn xpbd_colored_links_fill_f32(
    links: *const XpbdLinkF32,
    source_count: usize,
    order: *const u32,
    link_count: usize,
    i: *mut u32,
    j: *mut u32,
    rest: *mut f32,
    compliance: *mut f32,
    lambda: *mut f32,
) -> XpbdStatus {
    // SAFETY: as for f64.
    unsafe {
        fill_raw::<f32>(
            links.cast(),
            source_count,
            order,
            link_count,
            i,
            j,
            rest,
            compliance,
            lambda,
        )
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

/// # Safety
/// See `xpbd_color_greedy`.
unsafe fn greedy_raw<T: Real>(
    links: *const Link<T>,
    m: usize,
    n: usize,
    scratch: *mut u64,
    colors: *mut u32,
    out: *mut u32,
) -> XpbdStatus {
    if out.is_null() {
        return XpbdStatus::NullPointer;
    }
    if let Err(e) = check_buffers(&[
        Buf::of(links, m),
        Buf::of(scratch, n),
        Buf::of(colors, m),
        Buf::of(out, 1),
    ]) {
        return e;
    }
    // SAFETY: checked non-null (or empty), aligned, bounded, disjoint.
    let r = unsafe {
        crate::coloring::greedy_coloring(
            slice(links, m),
            n,
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

/// # Safety
/// See `xpbd_colored_links_fill`.
#[allow(clippy::too_many_arguments)]
unsafe fn fill_raw<T: Real>(
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
