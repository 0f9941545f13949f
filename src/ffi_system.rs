//! The C ABI of constraint systems (ropes, loops, cloth in 2D and 3D, f64
//! and f32): the `#[repr(C)]` types and the generic functions behind the
//! `xpbd_system*` and `xpbd_build_*` entry points.
//!
//! Conventions, beyond those of [`crate::ffi`]:
//!
//! - A system is a caller-owned struct (`XpbdSystem3` etc.) naming the
//!   caller's buffers: positions (`double (*)[3]`), inverse masses, links.
//!   Zero-initialise it, fill in the buffer fields and the zero-length policy,
//!   then call `xpbd_system3_begin_substep(&sys, h)` at each substep entry
//!   and `xpbd_system3_iterate` once per iteration.
//! - The lifecycle rule in C: between `begin_substep` and the end of the
//!   substep's iterations, do not change rest lengths, compliances, inverse
//!   masses or the buffer fields. What can be checked is checked: `iterate`
//!   without a successful `begin_substep` returns `XPBD_STATUS_NO_SUBSTEP`;
//!   h is stored by `begin_substep` and cannot be passed to `iterate`; every
//!   index is bounds-checked on every visit, and every result is checked
//!   finite before it is written.
//! - Buffers must not overlap each other or the system struct
//!   (`XPBD_STATUS_ALIASED_BUFFERS`); a NULL buffer is accepted only with a
//!   zero count.
//! - On error, `error_index` names the particle or link (when the error
//!   concerns one); it is the only field written on a validation error,
//!   besides `substep_active` being cleared by a failed `begin_substep`.

use core::mem::{align_of, size_of};
use core::ptr;

use crate::ffi::XpbdStatus;
use crate::real::Real;
use crate::system::{self, Convergence, Link, SweepStats, SystemError, ZeroLength};

/// Zero-length policy: stop with `XPBD_STATUS_ZERO_LENGTH` naming the link.
pub const XPBD_ZERO_LENGTH_REJECT: i32 = 0;
/// Zero-length policy: skip the link and count it in `skipped_zero_length`.
pub const XPBD_ZERO_LENGTH_SKIP: i32 = 1;

/// Link flag: unilateral, resists only stretching (the accumulated λ is
/// clamped to λ ≤ 0, so the link never pushes).
pub const XPBD_LINK_TENSION_ONLY: u32 = 1;

/// A distance link between two particles (f64): `C = |x_j − x_i| − rest`.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct XpbdLink {
    /// Index of the first particle.
    pub i: u32,
    /// Index of the second particle (≠ `i`).
    pub j: u32,
    /// Rest length (m), finite and > 0.
    pub rest: f64,
    /// Compliance α (m/N = s²/kg), finite and ≥ 0; 0 is rigid.
    pub compliance: f64,
    /// Accumulated multiplier λ (kg·m); reset only by begin_substep.
    pub lambda: f64,
    /// 0, or `XPBD_LINK_TENSION_ONLY` (resists stretching only: λ ≤ 0).
    pub flags: u32,
}

/// A distance link between two particles (f32): see `XpbdLink`.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct XpbdLinkF32 {
    /// Index of the first particle.
    pub i: u32,
    /// Index of the second particle (≠ `i`).
    pub j: u32,
    /// Rest length (m), finite and > 0.
    pub rest: f32,
    /// Compliance α (m/N = s²/kg), finite and ≥ 0; 0 is rigid.
    pub compliance: f32,
    /// Accumulated multiplier λ (kg·m); reset only by begin_substep.
    pub lambda: f32,
    /// 0, or `XPBD_LINK_TENSION_ONLY` (resists stretching only: λ ≤ 0).
    pub flags: u32,
}

/// Diagnostics of one sweep (f64). `max_abs_c` and `max_residual` are taken
/// as each link is visited, before its correction.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct XpbdSweepStats {
    /// Links corrected.
    pub applied: usize,
    /// Links skipped because both particles are static.
    pub skipped_static: usize,
    /// Links skipped for zero length (policy `XPBD_ZERO_LENGTH_SKIP`).
    pub skipped_zero_length: usize,
    /// Largest |C| (m).
    pub max_abs_c: f64,
    /// Largest compliance residual |C + α̃λ| (m): the convergence measure.
    pub max_residual: f64,
}

/// Diagnostics of one sweep (f32): see `XpbdSweepStats`.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct XpbdSweepStatsF32 {
    /// Links corrected.
    pub applied: usize,
    /// Links skipped because both particles are static.
    pub skipped_static: usize,
    /// Links skipped for zero length (policy `XPBD_ZERO_LENGTH_SKIP`).
    pub skipped_zero_length: usize,
    /// Largest |C| (m).
    pub max_abs_c: f32,
    /// Largest compliance residual |C + α̃λ| (m).
    pub max_residual: f32,
}

/// Result of `xpbd_system*_iterate_until` (f64).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct XpbdConvergence {
    /// Sweeps run.
    pub iterations: u32,
    /// 1 when the last sweep's `max_residual` ≤ tolerance, else 0.
    pub converged: u32,
    /// The last sweep's diagnostics (zero when no sweep ran).
    pub last: XpbdSweepStats,
}

/// Result of `xpbd_system*_iterate_until_f32` (f32): see `XpbdConvergence`.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct XpbdConvergenceF32 {
    /// Sweeps run.
    pub iterations: u32,
    /// 1 when the last sweep's `max_residual` ≤ tolerance, else 0.
    pub converged: u32,
    /// The last sweep's diagnostics (zero when no sweep ran).
    pub last: XpbdSweepStatsF32,
}

// The C structs are layout-identical to the generic Rust ones, so caller
// buffers are used in place (pointer casts, no copies).
const _: () = {
    assert!(size_of::<XpbdLink>() == size_of::<Link<f64>>());
    assert!(crate::system::Link::<f64>::TENSION_ONLY == XPBD_LINK_TENSION_ONLY);
    assert!(align_of::<XpbdLink>() == align_of::<Link<f64>>());
    assert!(size_of::<XpbdLinkF32>() == size_of::<Link<f32>>());
    assert!(align_of::<XpbdLinkF32>() == align_of::<Link<f32>>());
    assert!(size_of::<XpbdSweepStats>() == size_of::<SweepStats<f64>>());
    assert!(size_of::<XpbdSweepStatsF32>() == size_of::<SweepStats<f32>>());
    assert!(size_of::<XpbdConvergence>() == size_of::<Convergence<f64>>());
    assert!(size_of::<XpbdConvergenceF32>() == size_of::<Convergence<f32>>());
};

/// A 2D f64 constraint system over caller-owned buffers.
///
/// Zero-initialise, set the buffer fields and `zero_length_policy`, then
/// begin a substep. The library writes only `substep_active`, `h` and
/// `error_index`, and the buffers' contents.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct XpbdSystem2 {
    /// Particle positions (m), `particle_count` entries; read and written.
    pub positions: *mut [f64; 2],
    /// Inverse masses (1/kg), `particle_count` entries; 0 = static.
    pub inverse_masses: *const f64,
    /// Number of particles (at most 2^32).
    pub particle_count: usize,
    /// Links, `link_count` entries, solved in array order; λ written.
    pub links: *mut XpbdLink,
    /// Number of links.
    pub link_count: usize,
    /// `XPBD_ZERO_LENGTH_REJECT` (0) or `XPBD_ZERO_LENGTH_SKIP` (1).
    pub zero_length_policy: i32,
    /// Written by the library: 1 after a successful begin_substep, else 0.
    pub substep_active: u32,
    /// Written by the library: the substep length h (s) of the substep.
    pub h: f64,
    /// Written by the library on error: the particle or link index the
    /// error names (0 when it names none).
    pub error_index: usize,
}

/// A 3D f64 constraint system over caller-owned buffers.
///
/// Zero-initialise, set the buffer fields and `zero_length_policy`, then
/// begin a substep. The library writes only `substep_active`, `h` and
/// `error_index`, and the buffers' contents.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct XpbdSystem3 {
    /// Particle positions (m), `particle_count` entries; read and written.
    pub positions: *mut [f64; 3],
    /// Inverse masses (1/kg), `particle_count` entries; 0 = static.
    pub inverse_masses: *const f64,
    /// Number of particles (at most 2^32).
    pub particle_count: usize,
    /// Links, `link_count` entries, solved in array order; λ written.
    pub links: *mut XpbdLink,
    /// Number of links.
    pub link_count: usize,
    /// `XPBD_ZERO_LENGTH_REJECT` (0) or `XPBD_ZERO_LENGTH_SKIP` (1).
    pub zero_length_policy: i32,
    /// Written by the library: 1 after a successful begin_substep, else 0.
    pub substep_active: u32,
    /// Written by the library: the substep length h (s) of the substep.
    pub h: f64,
    /// Written by the library on error: the particle or link index the
    /// error names (0 when it names none).
    pub error_index: usize,
}

/// A 2D f32 constraint system over caller-owned buffers.
///
/// Zero-initialise, set the buffer fields and `zero_length_policy`, then
/// begin a substep. The library writes only `substep_active`, `h` and
/// `error_index`, and the buffers' contents.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct XpbdSystem2F32 {
    /// Particle positions (m), `particle_count` entries; read and written.
    pub positions: *mut [f32; 2],
    /// Inverse masses (1/kg), `particle_count` entries; 0 = static.
    pub inverse_masses: *const f32,
    /// Number of particles (at most 2^32).
    pub particle_count: usize,
    /// Links, `link_count` entries, solved in array order; λ written.
    pub links: *mut XpbdLinkF32,
    /// Number of links.
    pub link_count: usize,
    /// `XPBD_ZERO_LENGTH_REJECT` (0) or `XPBD_ZERO_LENGTH_SKIP` (1).
    pub zero_length_policy: i32,
    /// Written by the library: 1 after a successful begin_substep, else 0.
    pub substep_active: u32,
    /// Written by the library: the substep length h (s) of the substep.
    pub h: f32,
    /// Written by the library on error: the particle or link index the
    /// error names (0 when it names none).
    pub error_index: usize,
}

/// A 3D f32 constraint system over caller-owned buffers.
///
/// Zero-initialise, set the buffer fields and `zero_length_policy`, then
/// begin a substep. The library writes only `substep_active`, `h` and
/// `error_index`, and the buffers' contents.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct XpbdSystem3F32 {
    /// Particle positions (m), `particle_count` entries; read and written.
    pub positions: *mut [f32; 3],
    /// Inverse masses (1/kg), `particle_count` entries; 0 = static.
    pub inverse_masses: *const f32,
    /// Number of particles (at most 2^32).
    pub particle_count: usize,
    /// Links, `link_count` entries, solved in array order; λ written.
    pub links: *mut XpbdLinkF32,
    /// Number of links.
    pub link_count: usize,
    /// `XPBD_ZERO_LENGTH_REJECT` (0) or `XPBD_ZERO_LENGTH_SKIP` (1).
    pub zero_length_policy: i32,
    /// Written by the library: 1 after a successful begin_substep, else 0.
    pub substep_active: u32,
    /// Written by the library: the substep length h (s) of the substep.
    pub h: f32,
    /// Written by the library on error: the particle or link index the
    /// error names (0 when it names none).
    pub error_index: usize,
}

macro_rules! impl_raw_system {
    ($name:ident, $t:ty, $d:literal) => {
        impl RawSystem<$t, $d> for $name {
            fn positions(&self) -> *mut [$t; $d] {
                self.positions
            }
            fn inverse_masses(&self) -> *const $t {
                self.inverse_masses
            }
            fn particle_count(&self) -> usize {
                self.particle_count
            }
            fn links(&self) -> *mut Link<$t> {
                self.links.cast()
            }
            fn link_count(&self) -> usize {
                self.link_count
            }
            fn policy(&self) -> i32 {
                self.zero_length_policy
            }
            fn active(&self) -> bool {
                self.substep_active == 1
            }
            fn h(&self) -> $t {
                self.h
            }
            unsafe fn state(p: *mut Self) -> (*mut u32, *mut $t, *mut usize) {
                // SAFETY: `p` is non-null and valid (the caller's contract);
                // `addr_of_mut!` on a raw place computes addresses and forms
                // no reference.
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

impl_raw_system!(XpbdSystem2, f64, 2);
impl_raw_system!(XpbdSystem3, f64, 3);
impl_raw_system!(XpbdSystem2F32, f32, 2);
impl_raw_system!(XpbdSystem3F32, f32, 3);

/// Field access shared by the four system structs.
pub(crate) trait RawSystem<T, const D: usize>: Copy {
    fn positions(&self) -> *mut [T; D];
    fn inverse_masses(&self) -> *const T;
    fn particle_count(&self) -> usize;
    fn links(&self) -> *mut Link<T>;
    fn link_count(&self) -> usize;
    fn policy(&self) -> i32;
    fn active(&self) -> bool;
    fn h(&self) -> T;
    /// Pointers to the library-written fields of `*p`.
    ///
    /// # Safety
    /// `p` is non-null and valid.
    unsafe fn state(p: *mut Self) -> (*mut u32, *mut T, *mut usize);
}

impl From<SystemError> for XpbdStatus {
    fn from(e: SystemError) -> Self {
        match e {
            SystemError::InvalidTimeStep => XpbdStatus::InvalidTimeStep,
            SystemError::NonFinitePosition { .. } => XpbdStatus::NonFinitePosition,
            SystemError::InvalidInverseMass { .. } => XpbdStatus::InvalidInverseMass,
            SystemError::IndexOutOfRange { .. } => XpbdStatus::IndexOutOfRange,
            SystemError::SameParticle { .. } => XpbdStatus::SameParticle,
            SystemError::InvalidRestLength { .. } => XpbdStatus::InvalidRestLength,
            SystemError::InvalidCompliance { .. } => XpbdStatus::InvalidCompliance,
            SystemError::UnrepresentableScale { .. } => XpbdStatus::UnrepresentableScale,
            SystemError::ZeroLength { .. } => XpbdStatus::ZeroLength,
            SystemError::InvalidResult { .. } => XpbdStatus::InvalidResult,
            SystemError::CapacityTooSmall { .. } => XpbdStatus::CapacityTooSmall,
            SystemError::InvalidFlags { .. } => XpbdStatus::InvalidArgument,
            SystemError::ParticleCountMismatch
            | SystemError::TooManyParticles
            | SystemError::InvalidTolerance
            | SystemError::InvalidShape => XpbdStatus::InvalidArgument,
        }
    }
}

/// A byte range `[start, end)` of a caller buffer, for the overlap check.
#[derive(Clone, Copy)]
struct Span(usize, usize);

impl Span {
    fn overlaps(self, other: Span) -> bool {
        self.0 < other.1 && other.0 < self.1 && self.0 != self.1 && other.0 != other.1
    }
}

/// A caller buffer for the checks, independent of its element type: address,
/// element count, element size and alignment.
#[derive(Clone, Copy)]
pub(crate) struct Buf {
    addr: usize,
    count: usize,
    size: usize,
    align: usize,
}

impl Buf {
    /// `count` elements of `U` at `p`.
    #[inline(always)]
    pub(crate) fn of<U>(p: *const U, count: usize) -> Buf {
        Buf {
            #[allow(clippy::as_conversions)]
            // the address only, for comparison (MSRV 1.81 lacks `addr()`)
            addr: p as usize,
            count,
            size: size_of::<U>(),
            align: align_of::<U>(),
        }
    }

    /// Checks the buffer: NULL only with count 0, aligned, and no larger
    /// than a Rust slice may be; its byte range.
    fn span(self) -> Result<Span, XpbdStatus> {
        if self.count == 0 {
            return Ok(Span(0, 0));
        }
        if self.addr == 0 {
            return Err(XpbdStatus::NullPointer);
        }
        // `align` is a power of two.
        if self.addr & self.align.wrapping_sub(1) != 0 {
            return Err(XpbdStatus::InvalidArgument);
        }
        let len = self
            .count
            .checked_mul(self.size)
            .ok_or(XpbdStatus::InvalidArgument)?;
        let end = self
            .addr
            .checked_add(len)
            .ok_or(XpbdStatus::InvalidArgument)?;
        if isize::try_from(len).is_err() {
            return Err(XpbdStatus::InvalidArgument);
        }
        Ok(Span(self.addr, end))
    }
}

/// Checks caller buffers in order (the first failing one names the status:
/// NULL with a non-zero count, misaligned, or too large), then that no two
/// of them overlap (`XPBD_STATUS_ALIASED_BUFFERS`). One copy for every
/// entry point, whatever the element types.
#[inline(never)]
pub(crate) fn check_buffers(bufs: &[Buf]) -> Result<(), XpbdStatus> {
    for b in bufs {
        b.span()?;
    }
    for (k, a) in bufs.iter().enumerate() {
        let a = a.span()?;
        for b in bufs.iter().skip(k.saturating_add(1)) {
            if a.overlaps(b.span()?) {
                return Err(XpbdStatus::AliasedBuffers);
            }
        }
    }
    Ok(())
}

/// Safe views of a system's buffers.
struct Parts<'a, T, const D: usize> {
    positions: &'a mut [[T; D]],
    inverse_masses: &'a [T],
    links: &'a mut [Link<T>],
    policy: ZeroLength,
}

pub(crate) fn policy_of(code: i32) -> Option<ZeroLength> {
    match code {
        XPBD_ZERO_LENGTH_REJECT => Some(ZeroLength::Reject),
        XPBD_ZERO_LENGTH_SKIP => Some(ZeroLength::Skip),
        _ => None,
    }
}

/// Builds slices over a system's buffers after checking them.
///
/// # Safety
/// Each non-null buffer pointer is valid for its count (reads, and writes for
/// positions and links) for the lifetime `'a`, and nothing else accesses
/// them meanwhile; `sys_addr` is the address of the system struct.
unsafe fn parts<'a, T: Real, const D: usize, S: RawSystem<T, D>>(
    s: &S,
    sys_addr: *const S,
) -> Result<Parts<'a, T, D>, XpbdStatus> {
    let policy = policy_of(s.policy()).ok_or(XpbdStatus::InvalidArgument)?;
    let n = s.particle_count();
    check_buffers(&[
        Buf::of(s.positions(), n),
        Buf::of(s.inverse_masses(), n),
        Buf::of(s.links(), s.link_count()),
        Buf::of(sys_addr, 1),
    ])?;
    // SAFETY: each pointer is non-null (or its count is 0, when a dangling
    // aligned pointer is used), aligned, spans at most isize::MAX bytes, is
    // valid for its count by the caller's contract, and the three buffers do
    // not overlap each other or the system struct (checked above), so the
    // one mutable and two other slices never alias.
    unsafe {
        Ok(Parts {
            positions: slice_mut(s.positions(), n),
            inverse_masses: slice(s.inverse_masses(), n),
            links: slice_mut(s.links(), s.link_count()),
            policy,
        })
    }
}

/// # Safety
/// `p` is valid for `count` reads (any pointer when `count == 0`).
pub(crate) unsafe fn slice<'a, U>(p: *const U, count: usize) -> &'a [U] {
    if count == 0 {
        &[]
    } else {
        // SAFETY: forwarded from the caller (non-null, aligned, valid, ≤ isize::MAX bytes).
        unsafe { core::slice::from_raw_parts(p, count) }
    }
}

/// # Safety
/// `p` is valid for `count` reads and writes, unaliased (any pointer when
/// `count == 0`).
pub(crate) unsafe fn slice_mut<'a, U>(p: *mut U, count: usize) -> &'a mut [U] {
    if count == 0 {
        &mut []
    } else {
        // SAFETY: forwarded from the caller (non-null, aligned, valid, unaliased).
        unsafe { core::slice::from_raw_parts_mut(p, count) }
    }
}

/// Reads `*p` or reports NULL.
///
/// # Safety
/// `p` is NULL or valid for reads.
pub(crate) unsafe fn read_system<S: Copy>(p: *const S) -> Result<S, XpbdStatus> {
    if p.is_null() {
        Err(XpbdStatus::NullPointer)
    } else {
        // SAFETY: non-null and valid by the caller's contract; S is Copy.
        Ok(unsafe { ptr::read(p) })
    }
}

/// Writes the error index of `e` into the system and returns its status.
///
/// # Safety
/// `p` is non-null and valid for writes.
unsafe fn fail<T, const D: usize, S: RawSystem<T, D>>(p: *mut S, e: SystemError) -> XpbdStatus {
    // SAFETY: `p` is non-null and valid; `index` points into `*p`.
    unsafe {
        let (_, _, index) = S::state(p);
        ptr::write(index, e.index().unwrap_or(0));
    }
    XpbdStatus::from(e)
}

/// # Safety
/// See `xpbd_system3_begin_substep`.
pub(crate) unsafe fn begin_substep_raw<T: Real, const D: usize, S: RawSystem<T, D>>(
    system: *mut S,
    h: T,
) -> XpbdStatus {
    // SAFETY: forwarded caller contract.
    let s = match unsafe { read_system(system) } {
        Ok(s) => s,
        Err(status) => return status,
    };
    // SAFETY: `system` is non-null (read above) and valid; `active` points into it.
    let (active, h_field, _) = unsafe { S::state(system) };
    // SAFETY: as above.
    unsafe { ptr::write(active, 0) };
    // SAFETY: buffers valid by the caller's contract, checked by `parts`.
    let p = match unsafe { parts::<T, D, S>(&s, system) } {
        Ok(p) => p,
        Err(status) => return status,
    };
    if let Err(e) = system::validate(p.positions, p.inverse_masses, p.links, h, p.policy) {
        // SAFETY: `system` is non-null and valid.
        return unsafe { fail::<T, D, S>(system, e) };
    }
    for link in p.links.iter_mut() {
        link.lambda = T::ZERO;
    }
    // SAFETY: `system` is non-null and valid; the pointers point into it and
    // not into any buffer (checked by `parts`).
    unsafe {
        ptr::write(h_field, h);
        ptr::write(active, 1);
    }
    XpbdStatus::Ok
}

/// Reads an active system and views its buffers.
///
/// # Safety
/// As `begin_substep_raw`.
unsafe fn active_parts<'a, T: Real, const D: usize, S: RawSystem<T, D>>(
    system: *mut S,
) -> Result<(Parts<'a, T, D>, T), XpbdStatus> {
    // SAFETY: forwarded caller contract.
    let s = unsafe { read_system(system) }?;
    if !s.active() {
        return Err(XpbdStatus::NoSubstep);
    }
    // SAFETY: forwarded caller contract.
    let p = unsafe { parts::<T, D, S>(&s, system) }?;
    Ok((p, s.h()))
}

/// Writes `value` to `out` when `out` is not NULL.
///
/// # Safety
/// `out` is NULL or valid for writes, and overlaps no live slice.
pub(crate) unsafe fn write_opt<U>(out: *mut U, value: U) {
    if !out.is_null() {
        // SAFETY: non-null and valid by the caller's contract.
        unsafe { ptr::write(out, value) };
    }
}

/// # Safety
/// See `xpbd_system3_iterate`; `out` is NULL or a valid `SweepStats<T>`.
pub(crate) unsafe fn iterate_raw<T: Real, const D: usize, S: RawSystem<T, D>>(
    system: *mut S,
    out: *mut SweepStats<T>,
) -> XpbdStatus {
    // SAFETY: forwarded caller contract.
    let (p, h) = match unsafe { active_parts::<T, D, S>(system) } {
        Ok(x) => x,
        Err(status) => return status,
    };
    match system::sweep(p.positions, p.inverse_masses, p.links, h, p.policy) {
        // SAFETY: `out` is NULL or valid by contract.
        Ok(stats) => unsafe {
            write_opt(out, stats);
            XpbdStatus::Ok
        },
        // SAFETY: `system` is non-null (read above) and valid.
        Err(e) => unsafe { fail::<T, D, S>(system, e) },
    }
}

/// # Safety
/// See `xpbd_system3_iterate_until`; `out` is NULL or a valid `Convergence<T>`.
pub(crate) unsafe fn iterate_until_raw<T: Real, const D: usize, S: RawSystem<T, D>>(
    system: *mut S,
    tolerance: T,
    max_iterations: u32,
    out: *mut Convergence<T>,
) -> XpbdStatus {
    // SAFETY: forwarded caller contract.
    let (p, h) = match unsafe { active_parts::<T, D, S>(system) } {
        Ok(x) => x,
        Err(status) => return status,
    };
    match system::iterate_until(
        p.positions,
        p.inverse_masses,
        p.links,
        h,
        p.policy,
        tolerance,
        max_iterations,
    ) {
        // SAFETY: `out` is NULL or valid by contract.
        Ok(result) => unsafe {
            write_opt(out, result);
            XpbdStatus::Ok
        },
        // SAFETY: `system` is non-null (read above) and valid.
        Err(e) => unsafe { fail::<T, D, S>(system, e) },
    }
}

/// # Safety
/// See `xpbd_system3_measure`; `out` is NULL or a valid `SweepStats<T>`.
pub(crate) unsafe fn measure_raw<T: Real, const D: usize, S: RawSystem<T, D>>(
    system: *mut S,
    out: *mut SweepStats<T>,
) -> XpbdStatus {
    if out.is_null() {
        return XpbdStatus::NullPointer;
    }
    // SAFETY: forwarded caller contract.
    let (p, h) = match unsafe { active_parts::<T, D, S>(system) } {
        Ok(x) => x,
        Err(status) => return status,
    };
    match system::measure(p.positions, p.inverse_masses, p.links, h, p.policy) {
        // SAFETY: `out` is non-null and valid by contract.
        Ok(stats) => unsafe {
            ptr::write(out, stats);
            XpbdStatus::Ok
        },
        // SAFETY: `system` is non-null (read above) and valid.
        Err(e) => unsafe { fail::<T, D, S>(system, e) },
    }
}

/// Runs the builder over caller buffers: `count` particles of `d`
/// coordinates each at `positions`. One copy per precision (the C builders
/// are thin wrappers over it).
///
/// # Safety
/// `positions` valid for `count·d` reads, `links` for `capacity` reads and
/// writes, `out_count` NULL or valid for a write.
#[inline(never)]
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn build_raw<T: Real>(
    positions: *const T,
    count: usize,
    d: usize,
    shape: system::Shape,
    compliance: T,
    links: *mut Link<T>,
    capacity: usize,
    out_count: *mut usize,
) -> XpbdStatus {
    if out_count.is_null() {
        return XpbdStatus::NullPointer;
    }
    // On overflow `check_buffers` rejects the span as `[T; d]` entries would.
    let coordinates = count.saturating_mul(d);
    if let Err(e) = check_buffers(&[
        Buf::of(positions, coordinates),
        Buf::of(links, capacity),
        Buf::of(out_count, 1),
    ]) {
        return e;
    }
    // SAFETY: checked non-null (or empty), aligned, bounded and disjoint;
    // valid for their counts by the caller's contract.
    let (x, out) = unsafe { (slice(positions, coordinates), slice_mut(links, capacity)) };
    match system::build(x, count, d, shape, compliance, out) {
        Ok(n) => {
            // SAFETY: non-null, valid, and disjoint from the link buffer.
            unsafe { ptr::write(out_count, n) };
            XpbdStatus::Ok
        }
        Err(e) => XpbdStatus::from(e),
    }
}

/// The number of links `xpbd_build_cloth*` writes for a `rows × cols` grid
/// (with both diagonals of every cell when `shear != 0`); 0 when the grid is
/// smaller than 2 × 2 or the count overflows.
#[no_mangle]
pub extern "C" fn xpbd_cloth_link_count(rows: usize, cols: usize, shear: i32) -> usize {
    system::cloth_link_count(rows, cols, shear != 0).unwrap_or(0)
}
