//! The C ABI of constraint systems (ropes, loops, cloth in 2D and 3D, f64
//! and f32): the generic functions behind the `xpbd_system*` and
//! `xpbd_build_*` entry points (the wrappers are in `generated.rs`). Every
//! call goes through the Rust [`System`] and [`Substep`](crate::Substep):
//! `begin_substep` validates and resets λ there, `iterate` resumes the
//! substep the struct records.
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
//! - The `xpbd_system3_*_groups` calls run the same bodies with the
//!   system's constraint groups attached: each body takes a [`Source`],
//!   the system struct alone or with its groups
//!   ([`Grouped`](super::constraints::Grouped)), so there is one
//!   implementation of each call for both.

use core::ptr;

use super::check::{check_buffers, check_groups, read, slice, slice_mut, write_opt, Buf};
use super::status::XpbdStatus;
use super::types::{policy_of, SystemC};
use crate::real::Real;
use crate::solver::{Convergence, Link, Substep, SweepStats, System};
use crate::SystemError;

/// Writes the error index of `e` into the system and returns its status.
///
/// # Safety
/// `p` is non-null and valid for writes.
pub(crate) unsafe fn fail<T, const D: usize>(p: *mut SystemC<T, D>, e: SystemError) -> XpbdStatus {
    // SAFETY: `p` is non-null and valid; `addr_of_mut!` forms no reference.
    unsafe { ptr::write(ptr::addr_of_mut!((*p).error_index), e.index().unwrap_or(0)) };
    XpbdStatus::from(e)
}

/// The struct's buffers, then the struct itself, for the overlap check.
pub(crate) fn system_buffers<T, const D: usize>(
    s: &SystemC<T, D>,
    sys: *mut SystemC<T, D>,
) -> [Buf; 4] {
    let n = s.particle_count;
    [
        Buf::of(s.positions, n),
        Buf::of(s.inverse_masses, n),
        Buf::of(s.links, s.link_count),
        Buf::of(sys, 1),
    ]
}

/// Checks the struct's buffers, the struct itself and the outputs
/// (`outs`), then views the buffers as a [`System`].
///
/// # Safety
/// `s` was read from `sys`; each non-null buffer pointer is valid for its
/// count (reads, and writes for positions and links) for `'a`, and nothing
/// else accesses them meanwhile.
pub(crate) unsafe fn system<'a, T: Real, const D: usize>(
    s: &SystemC<T, D>,
    sys: *mut SystemC<T, D>,
    outs: &[Buf],
) -> Result<System<'a, T, D>, XpbdStatus> {
    let policy = policy_of(s.zero_length_policy).ok_or(XpbdStatus::InvalidArgument)?;
    let n = s.particle_count;
    check_groups(&[&system_buffers(s, sys), outs])?;
    // SAFETY: each pointer is non-null (or its count is 0), aligned, spans
    // at most isize::MAX bytes, is valid for its count by the caller's
    // contract, and the three buffers do not overlap each other, the
    // system struct or the outputs (checked above), so the one mutable and
    // two other slices never alias.
    let (x, w, l) = unsafe {
        (
            slice_mut(s.positions, n),
            slice(s.inverse_masses, n),
            slice_mut(s.links, s.link_count),
        )
    };
    match System::new(x, w, l) {
        Ok(system) => Ok(system.with_zero_length(policy)),
        // SAFETY: `sys` is non-null (it was read) and valid.
        Err(e) => Err(unsafe { fail(sys, e) }),
    }
}

/// Where the [`System`] of a system call comes from: the system struct
/// alone (`*mut SystemC`: the `xpbd_system*` calls) or with its
/// constraint groups ([`Grouped`](super::constraints::Grouped): the
/// `xpbd_system3_*_groups` calls). Every call has one body for both
/// (`begin_substep_raw`, `iterate_raw`, `iterate_until_raw`,
/// `measure_raw`).
pub(crate) trait Source<T: Real, const D: usize>: Copy {
    /// Whether the source holds constraint groups (the substep then sweeps
    /// them; a constant, so a plain call carries no group code).
    const GROUPS: bool;

    /// The system struct (the library writes its `substep_active`, `h`
    /// and `error_index`).
    fn sys(self) -> *mut SystemC<T, D>;

    /// Whether a required pointer (the system struct, the groups struct)
    /// is NULL.
    fn missing(self) -> bool;

    /// Checks every buffer of the call — the struct's, the struct itself,
    /// the groups' if any, and `outs` — then views them as a [`System`].
    ///
    /// # Safety
    /// As [`system`], for the groups' arrays too; `s` was read from
    /// [`sys`](Self::sys).
    unsafe fn view<'a>(
        self,
        s: &SystemC<T, D>,
        outs: &[Buf],
    ) -> Result<System<'a, T, D>, XpbdStatus>;
}

impl<T: Real, const D: usize> Source<T, D> for *mut SystemC<T, D> {
    const GROUPS: bool = false;

    #[inline(always)]
    fn sys(self) -> *mut SystemC<T, D> {
        self
    }

    #[inline(always)]
    fn missing(self) -> bool {
        self.is_null()
    }

    #[inline(always)]
    unsafe fn view<'a>(
        self,
        s: &SystemC<T, D>,
        outs: &[Buf],
    ) -> Result<System<'a, T, D>, XpbdStatus> {
        // SAFETY: forwarded caller contract.
        unsafe { system(s, self, outs) }
    }
}

/// `xpbd_system{2,3}_begin_substep[_f32]` and
/// `xpbd_system3_begin_substep_groups[_f32]`.
///
/// # Safety
/// See `xpbd_system3_begin_substep` (and `_groups`).
pub(crate) unsafe fn begin_substep_raw<T: Real, const D: usize, S: Source<T, D>>(
    src: S,
    h: T,
) -> XpbdStatus {
    let sys = src.sys();
    // SAFETY: forwarded caller contract.
    let s = match unsafe { read(sys) } {
        Ok(s) => s,
        Err(status) => return status,
    };
    // SAFETY: `sys` is non-null (read above) and valid.
    unsafe { ptr::write(ptr::addr_of_mut!((*sys).substep_active), 0) };
    if src.missing() {
        return XpbdStatus::NullPointer;
    }
    // SAFETY: buffers valid by the caller's contract, checked by `view`.
    let mut system = match unsafe { src.view(&s, &[]) } {
        Ok(system) => system,
        Err(status) => return status,
    };
    // The one λ reset, links (and groups): `System::begin`, with the
    // groups' code only for a source that has them.
    let begun = if S::GROUPS {
        system.begin::<true>(h).map(|_| ())
    } else {
        system.begin::<false>(h).map(|_| ())
    };
    if let Err(e) = begun {
        // SAFETY: `sys` is non-null and valid.
        return unsafe { fail(sys, e) };
    }
    // SAFETY: `sys` is non-null and valid; the fields are in the struct and
    // not in any buffer (checked by `view`).
    unsafe {
        ptr::write(ptr::addr_of_mut!((*sys).h), h);
        ptr::write(ptr::addr_of_mut!((*sys).substep_active), 1);
    }
    XpbdStatus::Ok
}

/// Runs `f` on the substep an active system struct records: the buffers
/// and outputs checked, h re-checked (the struct may be copied or forged),
/// no λ reset. Writes `error_index` on an error of `f`.
///
/// # Safety
/// As `begin_substep_raw`; `outs` are the call's output buffers.
#[inline(always)]
unsafe fn with_substep<T: Real, const D: usize, S: Source<T, D>, O: Op<T, D>>(
    src: S,
    outs: &[Buf],
    op: O,
) -> Result<O::Out, XpbdStatus> {
    // SAFETY: forwarded caller contract.
    let (mut system, h) = unsafe { resumed(src, outs) }?;
    let result = if S::GROUPS {
        system
            .resume_substep::<true>(h)
            .and_then(|mut sub| op.run(&mut sub))
    } else {
        system
            .resume_substep::<false>(h)
            .and_then(|mut sub| op.run(&mut sub))
    };
    // SAFETY: `sys` is non-null (read by `resumed`) and valid.
    result.map_err(|e| unsafe { fail(src.sys(), e) })
}

/// The common start of every call on an active system: read the struct,
/// require `substep_active`, check the buffers and outputs, view them as a
/// [`System`]; returns it with the struct's `h`. One copy per precision,
/// dimension and source, shared by `iterate`, `iterate_until` and
/// `measure`.
///
/// # Safety
/// As `begin_substep_raw`.
#[inline(never)]
pub(crate) unsafe fn resumed<'a, T: Real, const D: usize, S: Source<T, D>>(
    src: S,
    outs: &[Buf],
) -> Result<(System<'a, T, D>, T), XpbdStatus> {
    // SAFETY: forwarded caller contract.
    let s = unsafe { read(src.sys()) }?;
    if src.missing() {
        return Err(XpbdStatus::NullPointer);
    }
    if s.substep_active != 1 {
        return Err(XpbdStatus::NoSubstep);
    }
    // SAFETY: forwarded caller contract.
    let system = unsafe { src.view(&s, outs) }?;
    Ok((system, s.h))
}

/// What a call on an active substep does with it, for a substep with or
/// without groups (`G`).
trait Op<T: Real, const D: usize> {
    /// The call's result.
    type Out;
    /// Runs the operation.
    fn run<const G: bool>(
        self,
        sub: &mut Substep<'_, '_, T, D, G>,
    ) -> Result<Self::Out, SystemError>;
}

/// One sweep.
struct Iterate;
/// Sweeps until the tolerance or the budget.
struct IterateUntil<T> {
    tolerance: T,
    max_iterations: u32,
}
/// The statistics, writing nothing.
struct Measure;

impl<T: Real, const D: usize> Op<T, D> for Iterate {
    type Out = SweepStats<T>;
    #[inline(always)]
    fn run<const G: bool>(
        self,
        sub: &mut Substep<'_, '_, T, D, G>,
    ) -> Result<Self::Out, SystemError> {
        sub.iterate()
    }
}

impl<T: Real, const D: usize> Op<T, D> for IterateUntil<T> {
    type Out = Convergence<T>;
    #[inline(always)]
    fn run<const G: bool>(
        self,
        sub: &mut Substep<'_, '_, T, D, G>,
    ) -> Result<Self::Out, SystemError> {
        sub.iterate_until(self.tolerance, self.max_iterations)
    }
}

impl<T: Real, const D: usize> Op<T, D> for Measure {
    type Out = SweepStats<T>;
    #[inline(always)]
    fn run<const G: bool>(
        self,
        sub: &mut Substep<'_, '_, T, D, G>,
    ) -> Result<Self::Out, SystemError> {
        sub.measure()
    }
}

/// `xpbd_system{2,3}_iterate[_f32]` and `xpbd_system3_iterate_groups[_f32]`.
///
/// # Safety
/// See `xpbd_system3_iterate`; `out` is NULL or a valid `SweepStats<T>`.
pub(crate) unsafe fn iterate_raw<T: Real, const D: usize, S: Source<T, D>>(
    src: S,
    out: *mut SweepStats<T>,
) -> XpbdStatus {
    // SAFETY: forwarded caller contract.
    match unsafe { with_substep(src, &[Buf::out(out)], Iterate) } {
        // SAFETY: `out` is NULL or valid and disjoint from every buffer (checked).
        Ok(stats) => unsafe {
            write_opt(out, stats);
            XpbdStatus::Ok
        },
        Err(status) => status,
    }
}

/// `xpbd_system{2,3}_iterate_until[_f32]` and
/// `xpbd_system3_iterate_until_groups[_f32]`.
///
/// # Safety
/// See `xpbd_system3_iterate_until`; `out` is NULL or a valid `Convergence<T>`.
pub(crate) unsafe fn iterate_until_raw<T: Real, const D: usize, S: Source<T, D>>(
    src: S,
    tolerance: T,
    max_iterations: u32,
    out: *mut Convergence<T>,
) -> XpbdStatus {
    // SAFETY: forwarded caller contract.
    let r = unsafe {
        with_substep(
            src,
            &[Buf::out(out)],
            IterateUntil {
                tolerance,
                max_iterations,
            },
        )
    };
    match r {
        // SAFETY: `out` is NULL or valid and disjoint from every buffer (checked).
        Ok(result) => unsafe {
            write_opt(out, result);
            XpbdStatus::Ok
        },
        Err(status) => status,
    }
}

/// `xpbd_system{2,3}_measure[_f32]` and `xpbd_system3_measure_groups[_f32]`
/// (`out` required).
///
/// # Safety
/// See `xpbd_system3_measure`; `out` is NULL or a valid `SweepStats<T>`.
pub(crate) unsafe fn measure_raw<T: Real, const D: usize, S: Source<T, D>>(
    src: S,
    out: *mut SweepStats<T>,
) -> XpbdStatus {
    if out.is_null() {
        return XpbdStatus::NullPointer;
    }
    // SAFETY: forwarded caller contract.
    match unsafe { with_substep(src, &[Buf::of(out, 1)], Measure) } {
        // SAFETY: `out` is non-null, valid and disjoint from every buffer (checked).
        Ok(stats) => unsafe {
            ptr::write(out, stats);
            XpbdStatus::Ok
        },
        Err(status) => status,
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
    shape: crate::build::Shape,
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
    match crate::build::build(x, count, d, shape, compliance, out) {
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
    crate::build::cloth_link_count(rows, cols, shear != 0).unwrap_or(0)
}
