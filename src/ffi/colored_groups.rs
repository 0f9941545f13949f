//! The C ABI of colored group solving (3D, f64 and f32): the greedy
//! coloring of one group of `XpbdConstraints3`, the colored substep entry
//! (which checks the coloring proper), the colored iteration, and the jobs
//! an engine's threads run, over a system struct, its groups struct and an
//! [`XpbdGroupColors`]. The wrappers are generated (`generated.rs`).
//!
//! Conventions, beyond those of [`crate::ffi`] and `constraints.rs`:
//!
//! - Every array of the three structs and every output is checked in one
//!   [`check_groups`] call (NULL only with a zero count, aligned, bounded,
//!   no overlap: `XPBD_STATUS_ALIASED_BUFFERS`).
//! - `xpbd_system3_begin_substep_colored` is the colored form of
//!   `xpbd_system3_begin_substep_groups`: it checks that every coloring is
//!   proper (the caller's `stamp` scratch), then validates and resets λ as
//!   that call does. Between it and the end of the substep the links,
//!   groups and boundaries must not change (the C form of the lifecycle
//!   rule); every index is still bounds-checked on every visit.
//! - `xpbd_system3_solve_group_job` only reads the three structs: the jobs
//!   of one color may run on different threads at once (never two colors).

use core::ptr;

use super::check::{check_groups, read, slice, slice_mut, write_opt, Buf};
use super::colored::color_either;
use super::constraints::{buffers, Grouped};
use super::status::XpbdStatus;
use super::system::{fail, resumed, system_buffers, Source};
use super::types::{group_of, policy_of, ConstraintsC, SystemC, XpbdGroupColors};
use crate::colored::groups::{check_proper, RawGroup, RawGroups};
use crate::colored::{coloring, job_range, GroupColors};
use crate::constraint::lagged::Motion;
use crate::real::{finite_positive, Real};
use crate::solver::{Group, SweepStats};
use crate::SystemError;

/// The boundary arrays of a colors struct (each `count + 1` entries, none
/// for a zero count), then the struct itself, for the overlap check.
pub(crate) fn color_buffers(c: &XpbdGroupColors, colors: *const XpbdGroupColors) -> [Buf; 5] {
    let b = |p: *const usize, count: usize| {
        Buf::of(
            p,
            if count == 0 {
                0
            } else {
                count.saturating_add(1)
            },
        )
    };
    [
        b(c.link_color_starts, c.link_color_count),
        b(c.bend_color_starts, c.bend_color_count),
        b(c.tet_color_starts, c.tet_color_count),
        b(c.tether_color_starts, c.tether_color_count),
        Buf::of(colors, 1),
    ]
}

/// The boundaries as Rust slices (empty for a zero count).
///
/// # Safety
/// The arrays passed [`check_groups`] as [`color_buffers`] lists them and
/// are valid for reads, not written, for `'c`.
pub(crate) unsafe fn color_slices<'c>(c: &XpbdGroupColors) -> GroupColors<'c> {
    // SAFETY: forwarded caller contract (a `count + 1` that overflows was
    // rejected by the span check).
    let s = |p: *const usize, count: usize| unsafe {
        if count == 0 {
            &[][..]
        } else {
            slice(p, count.saturating_add(1))
        }
    };
    GroupColors {
        links: s(c.link_color_starts, c.link_color_count),
        bends: s(c.bend_color_starts, c.bend_color_count),
        tets: s(c.tet_color_starts, c.tet_color_count),
        tethers: s(c.tether_color_starts, c.tether_color_count),
    }
}

/// `xpbd_color_group[_f32]` (`inverse_masses` `None`):
/// [`coloring::color_instances`] over one group of `*groups` (bends, tets
/// or tethers); `xpbd_color_group_moving[_f32]` (`Some`: the caller's
/// pointer, NULL refused with a non-zero `particle_count`):
/// [`coloring::color_moving_instances`], a particle of inverse mass 0 no
/// conflict. Writes `colors[..count]` and `*out_color_count` on success
/// only (`scratch` always); `*out_error_index` (may be NULL) on an error
/// naming an instance.
///
/// # Safety
/// `groups` NULL or valid, its arrays valid for their counts;
/// `inverse_masses` (when given) valid for `particle_count` reads;
/// `scratch` valid for `particle_count` writes, `colors` for the group's
/// count, `out_color_count` NULL or valid, `out_error_index` NULL or valid.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub(crate) unsafe fn color_group_raw<T: Real>(
    groups: *const ConstraintsC<T>,
    group: i32,
    inverse_masses: Option<*const T>,
    particle_count: usize,
    scratch: *mut u64,
    colors: *mut u32,
    out_color_count: *mut u32,
    out_error_index: *mut usize,
) -> XpbdStatus {
    if out_color_count.is_null() {
        return XpbdStatus::NullPointer;
    }
    // SAFETY: forwarded caller contract.
    let g = match unsafe { read(groups) } {
        Ok(g) => g,
        Err(status) => return status,
    };
    let count = match group_of(group) {
        Some(Group::Bends) => g.bend_count,
        Some(Group::Tets) => g.tet_count,
        Some(Group::Tethers) => g.tether_count,
        _ => return XpbdStatus::InvalidArgument,
    };
    let w = inverse_masses.unwrap_or(ptr::null());
    let w_count = if inverse_masses.is_some() {
        particle_count
    } else {
        0
    };
    let outs = [
        Buf::of(w, w_count),
        Buf::of(scratch, particle_count),
        Buf::of(colors, count),
        Buf::of(out_color_count, 1),
        Buf::out(out_error_index),
    ];
    if let Err(e) = check_groups(&[&buffers(&g, groups), &outs]) {
        return e;
    }
    // SAFETY: every buffer checked non-null (or empty), aligned, bounded
    // and disjoint; valid for its count by the caller's contract. The
    // group's array is only read.
    let r = unsafe {
        let (used, out) = (slice_mut(scratch, particle_count), slice_mut(colors, count));
        let (n, w) = (
            particle_count,
            inverse_masses.map(|_| slice(w, particle_count)),
        );
        match group_of(group) {
            Some(Group::Bends) => color_either(slice(g.bends, count), n, w, used, out),
            Some(Group::Tets) => color_either(slice(g.tets, count), n, w, used, out),
            _ => color_either(slice(g.tethers, count), n, w, used, out),
        }
    };
    match r {
        // SAFETY: checked, disjoint from every other buffer.
        Ok(c) => unsafe {
            ptr::write(out_color_count, c);
            XpbdStatus::Ok
        },
        Err(e) => {
            if let SystemError::IndexOutOfRange { constraint }
            | SystemError::SameParticle { constraint } = e
            {
                // SAFETY: NULL or checked and disjoint.
                unsafe { write_opt(out_error_index, constraint) };
            }
            XpbdStatus::from(e)
        }
    }
}

/// `xpbd_system3_begin_substep_colored[_f32]`.
///
/// # Safety
/// As `xpbd_system3_begin_substep_groups`; `colors` NULL or valid with its
/// arrays; `stamp` valid for `particle_count` writes.
pub(crate) unsafe fn begin_colored_raw<T: Real>(
    system: *mut SystemC<T, 3>,
    groups: *const ConstraintsC<T>,
    colors: *const XpbdGroupColors,
    stamp: *mut u32,
    h: T,
) -> XpbdStatus {
    // SAFETY: forwarded caller contract.
    let s = match unsafe { read(system) } {
        Ok(s) => s,
        Err(status) => return status,
    };
    // SAFETY: `system` is non-null (read above) and valid.
    unsafe { ptr::write(ptr::addr_of_mut!((*system).substep_active), 0) };
    let src = Grouped::new(system, groups);
    if src.missing() {
        return XpbdStatus::NullPointer;
    }
    // SAFETY: forwarded caller contract.
    let c = match unsafe { read(colors) } {
        Ok(c) => c,
        Err(status) => return status,
    };
    let n = s.particle_count;
    let cb = color_buffers(&c, colors);
    let outs = [cb[0], cb[1], cb[2], cb[3], cb[4], Buf::of(stamp, n)];
    // SAFETY: forwarded caller contract; `outs` lists every other buffer.
    let mut sys = match unsafe { src.view(&s, &outs) } {
        Ok(sys) => sys,
        Err(status) => return status,
    };
    // SAFETY: the boundary arrays and `stamp` were checked with every other
    // buffer by `view`; the boundaries are only read.
    let (gc, stamp) = unsafe { (color_slices(&c), slice_mut(stamp, n)) };
    let r = check_proper(&gc, sys.links, &sys.constraints, n, stamp, &[])
        .and_then(|()| sys.begin::<true>(h).map(|_| ()));
    if let Err(e) = r {
        // SAFETY: `system` is non-null and valid.
        return unsafe { fail(system, e) };
    }
    // SAFETY: non-null and valid; the fields are not in any buffer.
    unsafe {
        ptr::write(ptr::addr_of_mut!((*system).h), h);
        ptr::write(ptr::addr_of_mut!((*system).substep_active), 1);
    }
    XpbdStatus::Ok
}

/// `xpbd_system3_iterate_colored[_f32]`: [`crate::Substep::iterate_colored`]
/// on the substep the struct records.
///
/// # Safety
/// As `xpbd_system3_iterate_groups`; `colors` NULL or valid with its
/// arrays; `out` NULL or valid.
pub(crate) unsafe fn iterate_colored_raw<T: Real>(
    system: *mut SystemC<T, 3>,
    groups: *const ConstraintsC<T>,
    colors: *const XpbdGroupColors,
    out: *mut SweepStats<T>,
) -> XpbdStatus {
    if system.is_null() || groups.is_null() {
        return XpbdStatus::NullPointer;
    }
    // SAFETY: forwarded caller contract.
    let c = match unsafe { read(colors) } {
        Ok(c) => c,
        Err(status) => return status,
    };
    let cb = color_buffers(&c, colors);
    let outs = [cb[0], cb[1], cb[2], cb[3], cb[4], Buf::out(out)];
    // SAFETY: forwarded caller contract; `outs` lists every other buffer.
    let (mut sys, h) = match unsafe { resumed(Grouped::new(system, groups), &outs) } {
        Ok(x) => x,
        Err(status) => return status,
    };
    // SAFETY: the boundary arrays were checked with every other buffer.
    let gc = unsafe { color_slices(&c) };
    let r = sys
        .resume_substep::<true>(h)
        .and_then(|mut sub| sub.iterate_colored(&gc));
    match r {
        // SAFETY: NULL or checked and disjoint from every buffer.
        Ok(stats) => unsafe {
            write_opt(out, stats);
            XpbdStatus::Ok
        },
        // SAFETY: `system` is non-null and valid.
        Err(e) => unsafe { fail(system, e) },
    }
}

/// `xpbd_system3_solve_group_job[_f32]`.
///
/// # Safety
/// As `xpbd_system3_iterate_colored`, after a successful
/// `xpbd_system3_begin_substep_colored` with these structs, unchanged
/// since; jobs of different colors never run at once.
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn group_job_raw<T: Real>(
    system: *const SystemC<T, 3>,
    groups: *const ConstraintsC<T>,
    colors: *const XpbdGroupColors,
    group: i32,
    color: usize,
    job: usize,
    job_count: usize,
    out: *mut SweepStats<T>,
    out_error_index: *mut usize,
) -> XpbdStatus {
    // SAFETY: forwarded caller contract (NULL-checked by `read`); the
    // structs are only read, concurrent reads are fine.
    let (s, g, c) = match unsafe { (read(system), read(groups), read(colors)) } {
        (Ok(s), Ok(g), Ok(c)) => (s, g, c),
        _ => return XpbdStatus::NullPointer,
    };
    let Some(group) = group_of(group) else {
        return XpbdStatus::InvalidArgument;
    };
    if s.substep_active != 1 {
        return XpbdStatus::NoSubstep;
    }
    if !finite_positive(s.h) {
        return XpbdStatus::InvalidTimeStep;
    }
    let Some(policy) = policy_of(s.zero_length_policy) else {
        return XpbdStatus::InvalidArgument;
    };
    let outs = [Buf::out(out), Buf::out(out_error_index)];
    if let Err(e) = check_groups(&[
        &system_buffers(&s, system.cast_mut()),
        &buffers(&g, groups),
        &color_buffers(&c, colors),
        &outs,
    ]) {
        return e;
    }
    let n = s.particle_count;
    if group == Group::Meshes && g.mesh_volume_count != 0 && g.mesh_scratch_count < n {
        return XpbdStatus::from(SystemError::CapacityTooSmall { needed: n });
    }
    // SAFETY: the boundary arrays were checked; only read (by every job).
    let gc = unsafe { color_slices(&c) };
    let bounds = match gc.of(group) {
        Some(starts) => {
            let len = match group {
                Group::Links => s.link_count,
                Group::Bends => g.bend_count,
                Group::Tets => g.tet_count,
                _ => g.tether_count,
            };
            coloring::check_starts(starts, len)
                .ok()
                .and_then(|()| Some((*starts.get(color)?, *starts.get(color.checked_add(1)?)?)))
        }
        None => {
            let len = match group {
                Group::Attachments => g.attachment_count,
                Group::SkinConstraints => g.skin_constraint_count,
                _ => g.mesh_volume_count,
            };
            (color < len).then(|| (color, color.saturating_add(1)))
        }
    };
    let Some((lo, hi)) = bounds.and_then(|(b, e)| job_range(b, e, job, job_count)) else {
        return XpbdStatus::InvalidArgument;
    };
    let raw = RawGroups {
        x: s.positions,
        xyz: None,
        w: s.inverse_masses,
        n,
        links: RawGroup {
            p: s.links,
            len: s.link_count,
        },
        bends: RawGroup {
            p: g.bends,
            len: g.bend_count,
        },
        tets: RawGroup {
            p: g.tets,
            len: g.tet_count,
        },
        tethers: RawGroup {
            p: g.tethers,
            len: g.tether_count,
        },
        meshes: RawGroup {
            p: g.mesh_volumes,
            len: g.mesh_volume_count,
        },
        triangles: RawGroup {
            p: g.triangles.cast_mut(),
            len: g.triangle_count,
        },
        particles: RawGroup {
            p: g.mesh_particles.cast_mut(),
            len: g.mesh_particle_count,
        },
        scratch: RawGroup {
            p: g.mesh_scratch,
            len: g.mesh_scratch_count,
        },
        attachments: RawGroup {
            p: g.attachments,
            len: g.attachment_count,
        },
        skin_constraints: RawGroup {
            p: g.skin_constraints,
            len: g.skin_constraint_count,
        },
        motion: Motion::at_target(),
        h2: s.h * s.h,
        policy,
        lanes: crate::colored::Isa::BASELINE,
    };
    // SAFETY: every buffer was checked (non-null or empty, aligned,
    // bounded, disjoint) and is valid by the caller's contract; the range
    // is this job's share of one color of a coloring checked proper by
    // `xpbd_system3_begin_substep_colored` and unchanged since (contract),
    // so concurrent jobs of the color touch disjoint particles and
    // instances; a mesh or attachment color has one non-empty job and runs alone.
    match unsafe { raw.run(group, lo, hi) } {
        // SAFETY: NULL or checked and disjoint from every buffer.
        Ok(stats) => unsafe {
            write_opt(out, stats);
            XpbdStatus::Ok
        },
        Err(e) => {
            // SAFETY: NULL or checked and disjoint from every buffer.
            unsafe { write_opt(out_error_index, e.index().unwrap_or(0)) };
            XpbdStatus::from(e)
        }
    }
}
