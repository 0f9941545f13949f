//! The C ABI of constraint groups (issue 15): the caller's
//! `XpbdConstraints3` ([`ConstraintsC`]) checked and viewed as the Rust
//! [`Constraints`] a 3D system or world carries, the [`Grouped`] source
//! through which the `xpbd_system3_*_groups` calls share the bodies of
//! `system.rs`, and the bodies of the group builders
//! (`xpbd_build_tethers3`, `xpbd_build_bends_cloth3`, `xpbd_build_tet_block3`,
//! `xpbd_build_mesh_volume3`, `xpbd_build_icosphere3`, and the mesh builders
//! `xpbd_build_links_from_triangles3`, `xpbd_build_bends_from_triangles3`,
//! `xpbd_build_links_from_tets3`, `xpbd_build_tets3`, each `[_f32]`). Those
//! entry points are generated (`generated.rs`); the precision-free count
//! functions are here.
//!
//! Conventions, beyond those of [`crate::ffi`]:
//!
//! - The groups struct is only read; the library writes each instance's
//!   λ and, during a sweep, `mesh_scratch`; a successful
//!   `xpbd_world3_step` writes each attachment's `force` and
//!   `previous`.
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
//!   (`solver::groups`): links, then bends, tets, tethers, meshes,
//!   attachments.

use core::ptr;

use super::check::{check_buffers, check_groups, read, slice, slice_mut, Buf};
use super::status::XpbdStatus;
use super::system::{system, system_buffers, Source};
use super::types::{ConstraintsC, SystemC};
use crate::build::{
    bends_count_for_cloth, bends_for_cloth, bends_for_triangles, icosphere, icosphere_counts,
    links_for_tets, links_for_triangles, mesh_volume, tet_block, tet_block_counts,
    tethers_along_links, tets_for_mesh, MeshParticles,
};
use crate::constraint::bend::Bend;
use crate::constraint::pressure::{MeshVolume, MeshVolumes};
use crate::constraint::tether::{tethers, Tether};
use crate::constraint::volume::Tet;
use crate::real::Real;
use crate::solver::{Constraints, System};
use crate::{Link, SystemError};

/// The arrays of a groups struct, then the struct itself, for the one
/// overlap check.
pub(crate) fn buffers<T>(g: &ConstraintsC<T>, groups: *const ConstraintsC<T>) -> [Buf; 10] {
    [
        Buf::of(g.bends, g.bend_count),
        Buf::of(g.tets, g.tet_count),
        Buf::of(g.tethers, g.tether_count),
        Buf::of(g.mesh_volumes, g.mesh_volume_count),
        Buf::of(g.triangles, g.triangle_count),
        Buf::of(g.mesh_particles, g.mesh_particle_count),
        Buf::of(g.mesh_scratch, g.mesh_scratch_count),
        Buf::of(g.attachments, g.attachment_count),
        Buf::of(g.skin_constraints, g.skin_constraint_count),
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
                particles: slice(g.mesh_particles, g.mesh_particle_count),
                scratch: slice_mut(g.mesh_scratch, g.mesh_scratch_count),
            },
            attachments: slice_mut(g.attachments, g.attachment_count),
            skin_constraints: slice_mut(g.skin_constraints, g.skin_constraint_count),
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

/// `xpbd_build_tethers_along_links3[_f32]`: one tether per moving particle
/// reached from an anchor along `links`, `d_max` the shortest path length
/// over the links in the rest shape, through [`tethers_along_links`].
/// Writes `out[..n]` and `*out_count = n` on success only; the two scratch
/// arrays (`scratch_count` entries each, at least `particle_count`) are
/// the library's once the inputs are valid.
///
/// # Safety
/// `positions` valid for `3 · particle_count` reads, `inverse_masses` for
/// `particle_count`, `links` for `link_count` and `anchors` for
/// `anchor_count` reads, the scratch arrays for `scratch_count` and `out`
/// for `capacity` writes, `out_count` NULL or valid for a write.
#[inline(never)]
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn build_tethers_along_links_raw<T: Real>(
    positions: *const T,
    inverse_masses: *const T,
    particle_count: usize,
    links: *const Link<T>,
    link_count: usize,
    anchors: *const u32,
    anchor_count: usize,
    compliance: T,
    scratch_distance: *mut T,
    scratch_anchor: *mut u32,
    scratch_count: usize,
    out: *mut Tether<T>,
    capacity: usize,
    out_count: *mut usize,
) -> XpbdStatus {
    if out_count.is_null() {
        return XpbdStatus::NullPointer;
    }
    let n = particle_count;
    let positions = positions.cast::<[T; 3]>();
    if let Err(e) = check_buffers(&[
        Buf::of(positions, n),
        Buf::of(inverse_masses, n),
        Buf::of(links, link_count),
        Buf::of(anchors, anchor_count),
        Buf::of(scratch_distance, scratch_count),
        Buf::of(scratch_anchor, scratch_count),
        Buf::of(out, capacity),
        Buf::of(out_count, 1),
    ]) {
        return e;
    }
    if u32::try_from(n).is_err() {
        return XpbdStatus::InvalidArgument;
    }
    // SAFETY: checked non-null (or empty), aligned, bounded and disjoint;
    // valid for their counts by the caller's contract.
    let (x, w, l, a, d, r, t) = unsafe {
        (
            slice(positions, n),
            slice(inverse_masses, n),
            slice(links, link_count),
            slice(anchors, anchor_count),
            slice_mut(scratch_distance, scratch_count),
            slice_mut(scratch_anchor, scratch_count),
            slice_mut(out, capacity),
        )
    };
    match tethers_along_links(x, w, l, a, compliance, d, r, t) {
        Ok(count) => {
            // SAFETY: non-null, valid, and disjoint from every other buffer.
            unsafe { put(out_count, count) };
            XpbdStatus::Ok
        }
        Err(e) => XpbdStatus::from(e),
    }
}

/// Writes `*out = value` after the checks (non-null, aligned, disjoint).
///
/// # Safety
/// `out` passed [`check_buffers`] with count 1.
#[inline(always)]
unsafe fn put<U>(out: *mut U, value: U) {
    // SAFETY: forwarded caller contract.
    unsafe { ptr::write(out, value) };
}

/// `xpbd_build_bends_cloth3[_f32]`: one dihedral bend per interior edge of
/// the triangulated `rows × cols` cloth grid, rest angles from the flat
/// `positions` (`rows·cols` particles, 3 values each), through
/// [`bends_for_cloth`]. Writes `out[..n]` and `*out_count = n` on success
/// only.
///
/// # Safety
/// `positions` valid for `3·rows·cols` reads, `out` for `capacity` writes,
/// `out_count` NULL or valid for a write.
#[inline(never)]
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn build_bends_cloth_raw<T: Real>(
    positions: *const T,
    rows: usize,
    cols: usize,
    compliance: T,
    out: *mut Bend<T>,
    capacity: usize,
    out_count: *mut usize,
) -> XpbdStatus {
    if out_count.is_null() {
        return XpbdStatus::NullPointer;
    }
    let Some(n) = rows.checked_mul(cols) else {
        return XpbdStatus::InvalidArgument;
    };
    let positions = positions.cast::<[T; 3]>();
    if let Err(e) = check_buffers(&[
        Buf::of(positions, n),
        Buf::of(out, capacity),
        Buf::of(out_count, 1),
    ]) {
        return e;
    }
    // SAFETY: checked non-null (or empty), aligned, bounded and disjoint;
    // valid for their counts by the caller's contract.
    let (x, b) = unsafe { (slice(positions, n), slice_mut(out, capacity)) };
    match bends_for_cloth(x, rows, cols, compliance, b) {
        Ok(count) => {
            // SAFETY: checked, disjoint from every other buffer.
            unsafe { put(out_count, count) };
            XpbdStatus::Ok
        }
        Err(e) => XpbdStatus::from(e),
    }
}

/// `xpbd_build_tet_block3[_f32]`: a block of `nx × ny × nz` cubes, 6 tets
/// each, through [`tet_block`]. `origin` holds 3 values; `out_positions`
/// `position_capacity` particles (3 values each). Writes the particles,
/// the tets and both counts on success only.
///
/// # Safety
/// `origin` valid for 3 reads, `out_positions` for `3·position_capacity`
/// writes, `out_tets` for `tet_capacity`, the counts NULL or valid for a
/// write each.
#[inline(never)]
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn build_tet_block_raw<T: Real>(
    nx: usize,
    ny: usize,
    nz: usize,
    spacing: T,
    origin: *const T,
    compliance: T,
    out_positions: *mut T,
    position_capacity: usize,
    out_tets: *mut Tet<T>,
    tet_capacity: usize,
    out_particle_count: *mut usize,
    out_tet_count: *mut usize,
) -> XpbdStatus {
    if out_particle_count.is_null() || out_tet_count.is_null() || origin.is_null() {
        return XpbdStatus::NullPointer;
    }
    let origin = origin.cast::<[T; 3]>();
    let positions = out_positions.cast::<[T; 3]>();
    if let Err(e) = check_buffers(&[
        Buf::of(origin, 1),
        Buf::of(positions, position_capacity),
        Buf::of(out_tets, tet_capacity),
        Buf::of(out_particle_count, 1),
        Buf::of(out_tet_count, 1),
    ]) {
        return e;
    }
    // SAFETY: checked non-null, aligned, disjoint; `origin` valid for one
    // read of 3 values by the caller's contract.
    let o = unsafe { ptr::read(origin) };
    // SAFETY: checked non-null (or empty), aligned, bounded and disjoint;
    // valid for their counts by the caller's contract.
    let (x, t) = unsafe {
        (
            slice_mut(positions, position_capacity),
            slice_mut(out_tets, tet_capacity),
        )
    };
    match tet_block(nx, ny, nz, spacing, o, x, t, compliance) {
        Ok((particles, tets)) => {
            // SAFETY: checked, disjoint from every other buffer.
            unsafe {
                put(out_particle_count, particles);
                put(out_tet_count, tets);
            }
            XpbdStatus::Ok
        }
        Err(e) => XpbdStatus::from(e),
    }
}

/// The particle list arguments of `xpbd_build_mesh_volume3[_f32]`: the
/// list array (`capacity` entries), its first entry for this mesh and
/// the marks' scratch (3 values per entry, `scratch_count` entries).
#[derive(Debug, Clone, Copy)]
pub(crate) struct MeshList<T> {
    pub(crate) particles: *mut u32,
    pub(crate) capacity: usize,
    pub(crate) first: u32,
    pub(crate) scratch: *mut T,
    pub(crate) scratch_count: usize,
}

/// `xpbd_build_mesh_volume3[_f32]`: one closed-mesh volume constraint over
/// `triangles[first .. first + count]` (flat, 3 indices per triangle),
/// rest volume from the flat `positions`, through [`mesh_volume`], its
/// particle list into `list`. Writes `*out` and the list on success only
/// (the scratch in any case).
///
/// # Safety
/// `triangles` valid for `3·triangle_count` reads, `positions` for
/// `3·particle_count`, `list.particles` for `list.capacity` writes,
/// `list.scratch` for `3·list.scratch_count`, `out` NULL or valid for a
/// write.
#[inline(never)]
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn build_mesh_volume_raw<T: Real>(
    triangles: *const u32,
    triangle_count: usize,
    first: u32,
    count: u32,
    positions: *const T,
    particle_count: usize,
    pressure: T,
    compliance: T,
    list: MeshList<T>,
    out: *mut MeshVolume<T>,
) -> XpbdStatus {
    if out.is_null() {
        return XpbdStatus::NullPointer;
    }
    let triangles = triangles.cast::<[u32; 3]>();
    let positions = positions.cast::<[T; 3]>();
    let scratch = list.scratch.cast::<[T; 3]>();
    if let Err(e) = check_buffers(&[
        Buf::of(triangles, triangle_count),
        Buf::of(positions, particle_count),
        Buf::of(list.particles, list.capacity),
        Buf::of(scratch, list.scratch_count),
        Buf::of(out, 1),
    ]) {
        return e;
    }
    // SAFETY: checked non-null (or empty), aligned, bounded and disjoint;
    // valid for their counts by the caller's contract.
    let (tris, x, particles, scratch) = unsafe {
        (
            slice(triangles, triangle_count),
            slice(positions, particle_count),
            slice_mut(list.particles, list.capacity),
            slice_mut(scratch, list.scratch_count),
        )
    };
    let list = MeshParticles {
        particles,
        first: list.first,
        scratch,
    };
    match mesh_volume(x, tris, first, count, pressure, compliance, list) {
        Ok(m) => {
            // SAFETY: checked, disjoint from every other buffer.
            unsafe { put(out, m) };
            XpbdStatus::Ok
        }
        Err(e) => XpbdStatus::from(e),
    }
}

/// `xpbd_build_icosphere3[_f32]`: a geodesic sphere through [`icosphere`].
/// `center` holds 3 values, `out_positions` `position_capacity` particles
/// (3 values each), `out_triangles` `triangle_capacity` triangles (3
/// indices each). Writes both arrays and both counts on success only.
///
/// # Safety
/// `center` valid for 3 reads, `out_positions` for `3·position_capacity`
/// writes, `out_triangles` for `3·triangle_capacity`, the counts NULL or
/// valid for a write each.
#[inline(never)]
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn build_icosphere_raw<T: Real>(
    frequency: usize,
    radius: T,
    center: *const T,
    out_positions: *mut T,
    position_capacity: usize,
    out_triangles: *mut u32,
    triangle_capacity: usize,
    out_particle_count: *mut usize,
    out_triangle_count: *mut usize,
) -> XpbdStatus {
    if out_particle_count.is_null() || out_triangle_count.is_null() || center.is_null() {
        return XpbdStatus::NullPointer;
    }
    let center = center.cast::<[T; 3]>();
    let positions = out_positions.cast::<[T; 3]>();
    let triangles = out_triangles.cast::<[u32; 3]>();
    if let Err(e) = check_buffers(&[
        Buf::of(center, 1),
        Buf::of(positions, position_capacity),
        Buf::of(triangles, triangle_capacity),
        Buf::of(out_particle_count, 1),
        Buf::of(out_triangle_count, 1),
    ]) {
        return e;
    }
    // SAFETY: checked non-null, aligned, disjoint; valid for one read.
    let c = unsafe { ptr::read(center) };
    // SAFETY: checked non-null (or empty), aligned, bounded and disjoint;
    // valid for their counts by the caller's contract.
    let (x, t) = unsafe {
        (
            slice_mut(positions, position_capacity),
            slice_mut(triangles, triangle_capacity),
        )
    };
    match icosphere(frequency, radius, c, x, t) {
        Ok((particles, tris)) => {
            // SAFETY: checked, disjoint from every other buffer.
            unsafe {
                put(out_particle_count, particles);
                put(out_triangle_count, tris);
            }
            XpbdStatus::Ok
        }
        Err(e) => XpbdStatus::from(e),
    }
}

/// A mesh builder as the C layer calls it: positions, elements of `N`
/// particle indices, compliance, edge-key scratch, output.
type MeshBuilder<T, const N: usize, O> =
    fn(&[[T; 3]], &[[u32; N]], T, &mut [[u32; 3]], &mut [O]) -> Result<usize, SystemError>;

/// The one body of the mesh builders (`xpbd_build_links_from_triangles3`,
/// `xpbd_build_bends_from_triangles3`, `xpbd_build_links_from_tets3`,
/// `xpbd_build_tets3`, each `[_f32]`): checks every buffer (`positions`
/// flat, 3 values per particle; `elements` flat, `N` indices per element;
/// `scratch` flat, 3 `u32` per entry; NULL only with a zero count), then
/// runs `build`. Writes `out[..n]` and `*out_count = n` on success; on
/// `CAPACITY_TOO_SMALL` only `*out_count`, the count needed (scratch
/// entries or output entries, as the Rust error names it), so a NULL `out`
/// with capacity 0 asks the size; nothing on any other error.
///
/// # Safety
/// `positions` valid for `3·particle_count` reads, `elements` for
/// `N·element_count`, `scratch` for `3·scratch_count` writes, `out` for
/// `capacity` writes, `out_count` NULL or valid for a write.
#[inline(never)]
#[allow(clippy::too_many_arguments)]
unsafe fn build_mesh_raw<T: Real, const N: usize, O>(
    build: MeshBuilder<T, N, O>,
    positions: *const T,
    particle_count: usize,
    elements: *const u32,
    element_count: usize,
    compliance: T,
    scratch: *mut u32,
    scratch_count: usize,
    out: *mut O,
    capacity: usize,
    out_count: *mut usize,
) -> XpbdStatus {
    if out_count.is_null() {
        return XpbdStatus::NullPointer;
    }
    // `[u32; N]` and `[T; 3]` have the alignment of their element; on
    // overflow the span check rejects the buffer as it would the flat one.
    let positions = positions.cast::<[T; 3]>();
    let elements = elements.cast::<[u32; N]>();
    let scratch = scratch.cast::<[u32; 3]>();
    if let Err(e) = check_buffers(&[
        Buf::of(positions, particle_count),
        Buf::of(elements, element_count),
        Buf::of(scratch, scratch_count),
        Buf::of(out, capacity),
        Buf::of(out_count, 1),
    ]) {
        return e;
    }
    // SAFETY: checked non-null (or empty), aligned, bounded and disjoint;
    // valid for their counts by the caller's contract.
    let (x, e, k, o) = unsafe {
        (
            slice(positions, particle_count),
            slice(elements, element_count),
            slice_mut(scratch, scratch_count),
            slice_mut(out, capacity),
        )
    };
    let (status, count) = match build(x, e, compliance, k, o) {
        Ok(n) => (XpbdStatus::Ok, n),
        Err(SystemError::CapacityTooSmall { needed }) => (XpbdStatus::CapacityTooSmall, needed),
        Err(e) => return XpbdStatus::from(e),
    };
    // SAFETY: checked, disjoint from every other buffer.
    unsafe { put(out_count, count) };
    status
}

/// `xpbd_build_links_from_triangles3[_f32]`: one link per distinct edge of
/// the triangles, through [`links_for_triangles`] ([`build_mesh_raw`]).
///
/// # Safety
/// As [`build_mesh_raw`] with `N = 3`.
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn build_links_from_triangles_raw<T: Real>(
    positions: *const T,
    particle_count: usize,
    triangles: *const u32,
    triangle_count: usize,
    compliance: T,
    scratch: *mut u32,
    scratch_count: usize,
    out: *mut Link<T>,
    capacity: usize,
    out_count: *mut usize,
) -> XpbdStatus {
    // SAFETY: forwarded caller contract.
    unsafe {
        build_mesh_raw::<T, 3, _>(
            links_for_triangles,
            positions,
            particle_count,
            triangles,
            triangle_count,
            compliance,
            scratch,
            scratch_count,
            out,
            capacity,
            out_count,
        )
    }
}

/// `xpbd_build_bends_from_triangles3[_f32]`: one bend per edge shared by
/// two triangles, through [`bends_for_triangles`] ([`build_mesh_raw`]).
///
/// # Safety
/// As [`build_mesh_raw`] with `N = 3`.
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn build_bends_from_triangles_raw<T: Real>(
    positions: *const T,
    particle_count: usize,
    triangles: *const u32,
    triangle_count: usize,
    compliance: T,
    scratch: *mut u32,
    scratch_count: usize,
    out: *mut Bend<T>,
    capacity: usize,
    out_count: *mut usize,
) -> XpbdStatus {
    // SAFETY: forwarded caller contract.
    unsafe {
        build_mesh_raw::<T, 3, _>(
            |x, t, c, k, o| bends_for_triangles(x, t, c, k, o),
            positions,
            particle_count,
            triangles,
            triangle_count,
            compliance,
            scratch,
            scratch_count,
            out,
            capacity,
            out_count,
        )
    }
}

/// `xpbd_build_links_from_tets3[_f32]`: one link per distinct edge of the
/// tets, through [`links_for_tets`] ([`build_mesh_raw`]).
///
/// # Safety
/// As [`build_mesh_raw`] with `N = 4`.
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn build_links_from_tets_raw<T: Real>(
    positions: *const T,
    particle_count: usize,
    tets: *const u32,
    tet_count: usize,
    compliance: T,
    scratch: *mut u32,
    scratch_count: usize,
    out: *mut Link<T>,
    capacity: usize,
    out_count: *mut usize,
) -> XpbdStatus {
    // SAFETY: forwarded caller contract.
    unsafe {
        build_mesh_raw::<T, 4, _>(
            links_for_tets,
            positions,
            particle_count,
            tets,
            tet_count,
            compliance,
            scratch,
            scratch_count,
            out,
            capacity,
            out_count,
        )
    }
}

/// `xpbd_build_tets3[_f32]`: one tet per entry of `tets` with its rest
/// volume from the positions, through [`tets_for_mesh`]
/// ([`build_mesh_raw`], no scratch).
///
/// # Safety
/// As [`build_mesh_raw`] with `N = 4` and no scratch.
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn build_tets_raw<T: Real>(
    positions: *const T,
    particle_count: usize,
    tets: *const u32,
    tet_count: usize,
    compliance: T,
    out: *mut Tet<T>,
    capacity: usize,
    out_count: *mut usize,
) -> XpbdStatus {
    // SAFETY: forwarded caller contract; the scratch is empty.
    unsafe {
        build_mesh_raw::<T, 4, _>(
            |x, t, c, _, o| tets_for_mesh(x, t, c, o),
            positions,
            particle_count,
            tets,
            tet_count,
            compliance,
            ptr::null_mut(),
            0,
            out,
            capacity,
            out_count,
        )
    }
}

/// Writes two counts through checked, distinct, non-null pointers, or
/// reports why not (`NULL_POINTER`, `INVALID_ARGUMENT` for `None`, a
/// misaligned pointer; `ALIASED_BUFFERS` when they are the same).
///
/// # Safety
/// Each pointer NULL or valid for one write.
unsafe fn counts_raw(
    counts: Option<(usize, usize)>,
    first: *mut usize,
    second: *mut usize,
) -> XpbdStatus {
    if first.is_null() || second.is_null() {
        return XpbdStatus::NullPointer;
    }
    if let Err(e) = check_buffers(&[Buf::of(first, 1), Buf::of(second, 1)]) {
        return e;
    }
    let Some((a, b)) = counts else {
        return XpbdStatus::InvalidArgument;
    };
    // SAFETY: checked non-null, aligned and disjoint.
    unsafe {
        put(first, a);
        put(second, b);
    }
    XpbdStatus::Ok
}

/// The number of bends `xpbd_build_bends_cloth3*` writes for a
/// `rows × cols` grid: `(rows−2)(cols−1) + (rows−1)(cols−2) +
/// (rows−1)(cols−1)`, every interior edge; 0 when `rows < 2` or
/// `cols < 2`, `SIZE_MAX` on overflow.
#[no_mangle]
pub extern "C" fn xpbd_bends_cloth_count(rows: usize, cols: usize) -> usize {
    bends_count_for_cloth(rows, cols)
}

/// The particle and tet counts of `xpbd_build_tet_block3*`:
/// `*out_particles = (nx+1)(ny+1)(nz+1)`, `*out_tets = 6·nx·ny·nz`.
///
/// Errors, with nothing written: `NULL_POINTER`, `ALIASED_BUFFERS` (the
/// two outputs are one), `INVALID_ARGUMENT` (a zero dimension, a count
/// overflowing `size_t`, a misaligned output).
///
/// # Safety
/// Each pointer NULL or valid for one `size_t` write.
#[no_mangle]
pub unsafe extern "C" fn xpbd_tet_block_counts(
    nx: usize,
    ny: usize,
    nz: usize,
    out_particles: *mut usize,
    out_tets: *mut usize,
) -> XpbdStatus {
    // SAFETY: forwarded caller contract.
    unsafe { counts_raw(tet_block_counts(nx, ny, nz), out_particles, out_tets) }
}

/// The particle and triangle counts of `xpbd_build_icosphere3*`:
/// `*out_particles = 10f² + 2`, `*out_triangles = 20f²` for frequency `f`.
///
/// Errors, with nothing written: `NULL_POINTER`, `ALIASED_BUFFERS`,
/// `INVALID_ARGUMENT` (`f = 0`, an overflow, a misaligned output).
///
/// # Safety
/// Each pointer NULL or valid for one `size_t` write.
#[no_mangle]
pub unsafe extern "C" fn xpbd_icosphere_counts(
    frequency: usize,
    out_particles: *mut usize,
    out_triangles: *mut usize,
) -> XpbdStatus {
    // SAFETY: forwarded caller contract.
    unsafe { counts_raw(icosphere_counts(frequency), out_particles, out_triangles) }
}
