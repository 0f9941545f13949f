//! The C ABI of constraint groups (issue 15): the caller's
//! `XpbdConstraints3` ([`ConstraintsC`]) checked and viewed as the Rust
//! [`Constraints`] a 3D system or world carries, the [`Grouped`] source
//! through which the `xpbd_system3_*_groups` calls share the bodies of
//! `system.rs`, and the body of `xpbd_build_tethers3[_f32]`. The entry
//! points themselves are generated (`generated.rs`).
//!
//! Conventions, beyond those of [`crate::ffi`]:
//!
//! - The groups struct is only read; the library writes each instance's
//!   λ and, during a sweep, `mesh_scratch`.
//! - Every array of the groups struct is checked (NULL only with a zero
//!   count, aligned, bounded) and against every other buffer of the call:
//!   the other arrays, this struct, the system's or world's buffers and
//!   struct, the configuration and the outputs, in one `check_groups`
//!   call (`XPBD_STATUS_ALIASED_BUFFERS` for any overlap).
//! - λ: `xpbd_system3_begin_substep_groups` resets the links' and every
//!   group's λ through the Rust `System::begin_substep` (the one reset);
//!   the other calls resume the substep (`System::resume_substep`) and
//!   never reset.
//! - An error naming a constraint names it by its index after the links
//!   (`solver::groups`): links, then bends, tets, tethers, meshes.

use core::ptr;

use super::check::{check_buffers, check_groups, read, slice, slice_mut, Buf};
use super::status::XpbdStatus;
use super::system::{system, system_buffers, Source};
use super::types::{ConstraintsC, SystemC};
use crate::constraint::pressure::MeshVolumes;
use crate::constraint::tether::{tethers, Tether};
use crate::real::Real;
use crate::solver::{Constraints, System};

/// The arrays of a groups struct, then the struct itself, for the one
/// overlap check.
fn buffers<T>(g: &ConstraintsC<T>, groups: *const ConstraintsC<T>) -> [Buf; 7] {
    [
        Buf::of(g.bends, g.bend_count),
        Buf::of(g.tets, g.tet_count),
        Buf::of(g.tethers, g.tether_count),
        Buf::of(g.mesh_volumes, g.mesh_volume_count),
        Buf::of(g.triangles, g.triangle_count),
        Buf::of(g.mesh_scratch, g.mesh_scratch_count),
        Buf::of(groups, 1),
    ]
}

/// Reads `*groups`, checks its arrays against each other, the struct and
/// every buffer listed in `with` (the system's or world's buffers and
/// struct, the configuration, the call's outputs) in one
/// [`check_groups`], then views them as the Rust [`Constraints`].
///
/// `NULL_POINTER` for a NULL `groups` or an array NULL with a non-zero
/// count, `INVALID_ARGUMENT` for a misaligned or oversized array,
/// `ALIASED_BUFFERS` for any overlap. Writes nothing.
///
/// # Safety
/// `groups` is NULL or valid for one read; each array of it is valid for
/// its count for `'a` (reads, and writes for the bends, tets, tethers,
/// mesh volumes and scratch); `with` lists every other buffer the call
/// forms a slice over or writes, and nothing else accesses the arrays
/// meanwhile.
pub(crate) unsafe fn view<'a, T: Real>(
    groups: *const ConstraintsC<T>,
    with: [&[Buf]; 2],
) -> Result<Constraints<'a, T>, XpbdStatus> {
    // SAFETY: forwarded caller contract (NULL-checked by `read`).
    let g = unsafe { read(groups) }?;
    let [owner, outs] = with;
    check_groups(&[owner, outs, &buffers(&g, groups)])?;
    // SAFETY: every array is non-null (or its count is 0), aligned, spans
    // at most isize::MAX bytes and is valid for its count by the caller's
    // contract; none overlaps another, the groups struct, or any buffer of
    // `with` (checked above), so the mutable slices never alias.
    Ok(unsafe {
        Constraints {
            bends: slice_mut(g.bends, g.bend_count),
            tets: slice_mut(g.tets, g.tet_count),
            tethers: slice_mut(g.tethers, g.tether_count),
            meshes: MeshVolumes {
                volumes: slice_mut(g.mesh_volumes, g.mesh_volume_count),
                triangles: slice(g.triangles, g.triangle_count),
                scratch: slice_mut(g.mesh_scratch, g.mesh_scratch_count),
            },
        }
    })
}

/// A 3D system struct with its constraint groups: the [`Source`] of the
/// `xpbd_system3_*_groups` calls, which run the same bodies as the plain
/// `xpbd_system3_*` calls (`begin_substep_raw`, `iterate_raw`, …) with the
/// groups attached to the Rust [`System`].
#[derive(Debug, Clone, Copy)]
pub(crate) struct Grouped<T> {
    /// The system struct (`error_index`, `h`, `substep_active` written).
    pub(crate) system: *mut SystemC<T, 3>,
    /// The groups struct (only read).
    pub(crate) groups: *const ConstraintsC<T>,
}

impl<T: Real> Grouped<T> {
    /// The pair a `_groups` entry point was called with.
    #[inline(always)]
    pub(crate) fn new(system: *mut SystemC<T, 3>, groups: *const ConstraintsC<T>) -> Self {
        Self { system, groups }
    }
}

impl<T: Real> Source<T, 3> for Grouped<T> {
    const GROUPS: bool = true;

    #[inline(always)]
    fn sys(self) -> *mut SystemC<T, 3> {
        self.system
    }

    #[inline(always)]
    fn missing(self) -> bool {
        self.system.is_null() || self.groups.is_null()
    }

    #[inline(never)]
    unsafe fn view<'a>(
        self,
        s: &SystemC<T, 3>,
        outs: &[Buf],
    ) -> Result<System<'a, T, 3>, XpbdStatus> {
        let own = system_buffers(s, self.system);
        // SAFETY: forwarded caller contract; `own` and `outs` are every
        // other buffer of the call.
        let constraints = unsafe { view(self.groups, [&own, outs]) }?;
        // SAFETY: forwarded caller contract; the system's buffers were
        // checked against the groups' arrays above.
        let system = unsafe { system(s, self.system, outs) }?;
        Ok(system.with_constraints(constraints))
    }
}

/// `xpbd_build_tethers3[_f32]`: one tether per moving particle (`w ≠ 0`)
/// to its nearest anchor in the rest shape `positions`, through
/// [`tethers`]. Writes `out[..n]` and `*out_count = n` on success only.
///
/// `positions` is flat (x0, y0, z0, x1, …: `&x[0][0]` of a C `x[n][3]`),
/// as for the other builders: C before C23 does not convert a
/// `double (*)[3]` to a `const double (*)[3]` implicitly.
///
/// # Safety
/// `positions` valid for `3 · particle_count` reads, `inverse_masses` for
/// `particle_count`,
/// `anchors` for `anchor_count` reads, `out` for `capacity` writes,
/// `out_count` NULL or valid for a write.
#[inline(never)]
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn build_tethers_raw<T: Real>(
    positions: *const T,
    inverse_masses: *const T,
    particle_count: usize,
    anchors: *const u32,
    anchor_count: usize,
    compliance: T,
    out: *mut Tether<T>,
    capacity: usize,
    out_count: *mut usize,
) -> XpbdStatus {
    if out_count.is_null() {
        return XpbdStatus::NullPointer;
    }
    let n = particle_count;
    // `[T; 3]` has the alignment of `T`; on overflow the span check
    // rejects the buffer as it would `3 · n` values.
    let positions = positions.cast::<[T; 3]>();
    if let Err(e) = check_buffers(&[
        Buf::of(positions, n),
        Buf::of(inverse_masses, n),
        Buf::of(anchors, anchor_count),
        Buf::of(out, capacity),
        Buf::of(out_count, 1),
    ]) {
        return e;
    }
    // The tethers name particles by u32 index (as every system does).
    if u32::try_from(n).is_err() {
        return XpbdStatus::InvalidArgument;
    }
    // SAFETY: checked non-null (or empty), aligned, bounded and disjoint;
    // valid for their counts by the caller's contract.
    let (x, w, a, t) = unsafe {
        (
            slice(positions, n),
            slice(inverse_masses, n),
            slice(anchors, anchor_count),
            slice_mut(out, capacity),
        )
    };
    match tethers(x, w, a, compliance, t) {
        Ok(count) => {
            // SAFETY: non-null, valid, and disjoint from every other buffer.
            unsafe { ptr::write(out_count, count) };
            XpbdStatus::Ok
        }
        Err(e) => XpbdStatus::from(e),
    }
}
