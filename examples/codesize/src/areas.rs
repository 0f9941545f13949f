//! One function per area of the C API, each calling every function of its
//! area the way a firmware would: state and parameters in RAM (opaque to
//! the optimiser), results stored back, statuses kept.
#![allow(dead_code)]

use core::ptr::addr_of_mut;

use crate::common::{opaque, sink};
use xpbd::ffi::*;

/// One link's state and parameters, in RAM.
#[repr(C)]
pub struct Link<C, T> {
    pub c: C,
    pub a: T,
    pub b: T,
    pub wa: T,
    pub wb: T,
    pub rest: T,
    pub compliance: T,
    pub dt: T,
}

static mut LINK_F32: Link<XpbdDistanceConstraintF32, f32> = Link {
    c: XpbdDistanceConstraintF32 { lambda: 0.0 },
    a: 0.0,
    b: 2.0,
    wa: 1.0,
    wb: 1.0,
    rest: 1.0,
    compliance: 0.01,
    dt: 0.1,
};

static mut LINK_F64: Link<XpbdDistanceConstraint, f64> = Link {
    c: XpbdDistanceConstraint { lambda: 0.0 },
    a: 0.0,
    b: 2.0,
    wa: 1.0,
    wb: 1.0,
    rest: 1.0,
    compliance: 0.01,
    dt: 0.1,
};

/// The f32 1D pair: `xpbd_distance_begin_substep_f32` + `xpbd_distance_solve_f32`.
#[inline(always)]
pub fn f32_pair() {
    let l = opaque(addr_of_mut!(LINK_F32));
    // SAFETY: `l` points at a static only this single-threaded image uses;
    // no reference to it is formed.
    let (s0, s1) = unsafe {
        let c = addr_of_mut!((*l).c);
        (
            xpbd_distance_begin_substep_f32(c),
            xpbd_distance_solve_f32(
                c,
                addr_of_mut!((*l).a),
                addr_of_mut!((*l).b),
                (*l).wa,
                (*l).wb,
                (*l).rest,
                (*l).compliance,
                (*l).dt,
            ),
        )
    };
    sink(s0.code() as u32 ^ s1.code() as u32);
}

/// The f64 1D pair: `xpbd_distance_begin_substep` + `xpbd_distance_solve`.
#[inline(always)]
pub fn f64_pair() {
    let l = opaque(addr_of_mut!(LINK_F64));
    // SAFETY: as in `f32_pair`.
    let (s0, s1) = unsafe {
        let c = addr_of_mut!((*l).c);
        (
            xpbd_distance_begin_substep(c),
            xpbd_distance_solve(
                c,
                addr_of_mut!((*l).a),
                addr_of_mut!((*l).b),
                (*l).wa,
                (*l).wb,
                (*l).rest,
                (*l).compliance,
                (*l).dt,
            ),
        )
    };
    sink(s0.code() as u32 ^ s1.code() as u32);
}

/// `xpbd_status_str`.
#[inline(always)]
pub fn status_str() {
    let p = xpbd_status_str(opaque(-3));
    sink(p as usize as u32);
}

/// Keeps each function in the image as a firmware that calls it would: a
/// table of their addresses goes through an opaque value into the sink, so
/// the linker keeps every function and everything it can reach (all of its
/// code, whatever the arguments). The table costs 4 B per function in
/// `.rodata` and a handful of instructions in `.text`, instead of one
/// spelled-out call per function (the 1D pairs above spell theirs out).
macro_rules! keep {
    ($($f:ident),* $(,)?) => {{
        static TABLE: Table<{ [$(stringify!($f)),*].len() }> = Table([$($f as *const ()),*]);
        sink(opaque(&TABLE as *const _ as usize) as u32);
    }};
}

/// Function addresses (only ever passed opaquely to the sink).
pub struct Table<const N: usize>(pub [*const (); N]);
// SAFETY: the table is immutable and its pointers are never dereferenced.
unsafe impl<const N: usize> Sync for Table<N> {}

/// The start-up checks: `xpbd_version`, `xpbd_fp_environment`.
#[inline(always)]
pub fn version() {
    keep!(xpbd_version, xpbd_fp_environment);
}

/// Systems: 2D/3D begin_substep, iterate, iterate_until, measure (f64 and
/// f32), the rope, loop and cloth builders, `xpbd_cloth_link_count`.
#[inline(always)]
pub fn systems() {
    keep!(
        xpbd_system2_begin_substep,
        xpbd_system2_begin_substep_f32,
        xpbd_system2_iterate,
        xpbd_system2_iterate_f32,
        xpbd_system2_iterate_until,
        xpbd_system2_iterate_until_f32,
        xpbd_system2_measure,
        xpbd_system2_measure_f32,
        xpbd_system3_begin_substep,
        xpbd_system3_begin_substep_f32,
        xpbd_system3_iterate,
        xpbd_system3_iterate_f32,
        xpbd_system3_iterate_until,
        xpbd_system3_iterate_until_f32,
        xpbd_system3_measure,
        xpbd_system3_measure_f32,
        xpbd_build_rope2,
        xpbd_build_rope2_f32,
        xpbd_build_rope3,
        xpbd_build_rope3_f32,
        xpbd_build_loop2,
        xpbd_build_loop2_f32,
        xpbd_build_loop3,
        xpbd_build_loop3_f32,
        xpbd_build_cloth2,
        xpbd_build_cloth2_f32,
        xpbd_build_cloth3,
        xpbd_build_cloth3_f32,
        xpbd_cloth_link_count,
    );
}

/// Constraint groups in float (what a Cortex-M4F title links for bending,
/// volume, tethers and meshes): the 3D `_groups_f32` system calls, a world
/// with a groups block stepped by `xpbd_world3_step_f32`
/// (`xpbd_groups3_default_f32`, `xpbd_world3_add_f32`,
/// `xpbd_world3_requirements_f32`) and the group builders.
#[inline(always)]
pub fn groups_f32() {
    keep!(
        xpbd_system3_begin_substep_groups_f32,
        xpbd_system3_iterate_groups_f32,
        xpbd_system3_iterate_until_groups_f32,
        xpbd_system3_measure_groups_f32,
        xpbd_world3_default_f32,
        xpbd_groups3_default_f32,
        xpbd_world3_add_f32,
        xpbd_world3_requirements_f32,
        xpbd_world3_step_f32,
        xpbd_build_tethers3_f32,
        xpbd_build_tethers_along_links3_f32,
        xpbd_build_bends_cloth3_f32,
        xpbd_build_tet_block3_f32,
        xpbd_build_mesh_volume3_f32,
        xpbd_build_icosphere3_f32,
        xpbd_skin_constraint_default_f32,
    );
}

/// Constraint groups in double: the `_groups` calls, the groups block of a
/// world (`xpbd_groups3_default`) and the group builders.
#[inline(always)]
pub fn groups() {
    keep!(
        xpbd_system3_begin_substep_groups,
        xpbd_system3_iterate_groups,
        xpbd_system3_iterate_until_groups,
        xpbd_system3_measure_groups,
        xpbd_groups3_default,
        xpbd_world3_step,
        xpbd_build_tethers3,
        xpbd_build_tethers_along_links3,
        xpbd_build_bends_cloth3,
        xpbd_build_tet_block3,
        xpbd_build_mesh_volume3,
        xpbd_build_icosphere3,
        xpbd_skin_constraint_default,
        xpbd_bends_cloth_count,
        xpbd_tet_block_counts,
        xpbd_icosphere_counts,
    );
}

/// The mesh builders (links, bends and tets of any triangle or tet mesh),
/// f64 and f32.
#[inline(always)]
pub fn mesh_builders() {
    keep!(
        xpbd_build_links_from_triangles3,
        xpbd_build_links_from_triangles3_f32,
        xpbd_build_bends_from_triangles3,
        xpbd_build_bends_from_triangles3_f32,
        xpbd_build_links_from_tets3,
        xpbd_build_links_from_tets3_f32,
        xpbd_build_tets3,
        xpbd_build_tets3_f32,
    );
}

/// Colored constraint groups: coloring a group, the colored substep entry
/// and iteration, the group jobs, colored stepping (f64 and f32).
#[inline(always)]
pub fn colored_groups() {
    keep!(
        xpbd_world3_step_colored,
        xpbd_world3_step_colored_f32,
        xpbd_color_group,
        xpbd_color_group_f32,
        xpbd_color_group_moving,
        xpbd_color_group_moving_f32,
        xpbd_system3_begin_substep_colored,
        xpbd_system3_begin_substep_colored_f32,
        xpbd_system3_iterate_colored,
        xpbd_system3_iterate_colored_f32,
        xpbd_system3_solve_group_job,
        xpbd_system3_solve_group_job_f32,
    );
}

/// Stepping: `xpbd_world3_step(_f32)`, the world and its blocks
/// (`xpbd_world3_default`, `xpbd_world3_add`, `xpbd_world3_requirements`,
/// the colliders, self-collision, tearing, engine contacts, wind and
/// local-space blocks' `_default`, `xpbd_aero_triangle_default` and
/// `xpbd_transform_identity`, each `(_f32)`),
/// `xpbd_step_config3_default(_f32)`,
/// `xpbd_step_scratch_len`, `xpbd_self_collision_{table,adjacency}_len`,
/// `xpbd_world3_precision(_f32)`.
#[inline(always)]
pub fn stepping() {
    keep!(
        xpbd_world3_step,
        xpbd_world3_step_f32,
        xpbd_world3_default,
        xpbd_world3_default_f32,
        xpbd_world3_add,
        xpbd_world3_add_f32,
        xpbd_world3_requirements,
        xpbd_world3_requirements_f32,
        xpbd_colliders3_default,
        xpbd_colliders3_default_f32,
        xpbd_self_collision3_default,
        xpbd_self_collision3_default_f32,
        xpbd_tearing3_default,
        xpbd_tearing3_default_f32,
        xpbd_engine_contacts3_default,
        xpbd_engine_contacts3_default_f32,
        xpbd_wind3_default,
        xpbd_wind3_default_f32,
        xpbd_aero_triangle_default,
        xpbd_aero_triangle_default_f32,
        xpbd_local_space3_default,
        xpbd_local_space3_default_f32,
        xpbd_transform_identity,
        xpbd_transform_identity_f32,
        xpbd_step_config3_default,
        xpbd_step_config3_default_f32,
        xpbd_step_scratch_len,
        xpbd_self_collision_table_len,
        xpbd_self_collision_adjacency_len,
        xpbd_world3_precision,
        xpbd_world3_precision_f32,
    );
}

/// Colored solving: `xpbd_simd_links3_*`, colorings, job ranges, stats merge,
/// colored link fill.
#[inline(always)]
pub fn colored() {
    keep!(
        xpbd_simd_links3_begin_substep,
        xpbd_simd_links3_begin_substep_f32,
        xpbd_simd_links3_iterate,
        xpbd_simd_links3_iterate_f32,
        xpbd_simd_links3_solve_job,
        xpbd_simd_links3_solve_job_f32,
        xpbd_simd_links3_set_simd,
        xpbd_simd_links3_set_simd_f32,
        xpbd_simd_detect,
        xpbd_color_cloth,
        xpbd_color_greedy,
        xpbd_color_greedy_f32,
        xpbd_color_greedy_moving,
        xpbd_color_greedy_moving_f32,
        xpbd_color_order,
        xpbd_color_rope,
        xpbd_job_range,
        xpbd_sweep_stats_merge,
        xpbd_sweep_stats_merge_f32,
        xpbd_colored_links_fill,
        xpbd_colored_links_fill_f32,
    );
}

/// Colored constraint groups in float: coloring a group, the colored
/// substep entry and iteration, the group jobs (step 75 splits this image's
/// code by kind too).
#[inline(always)]
pub fn colored_groups_f32() {
    keep!(
        xpbd_color_group_f32,
        xpbd_system3_begin_substep_colored_f32,
        xpbd_system3_iterate_colored_f32,
        xpbd_system3_solve_group_job_f32,
    );
}

/// Constraint groups in float, solving only: the 3D `_groups_f32` system
/// calls and a world with a groups block stepped by `xpbd_world3_step_f32`,
/// without the builders (step 75 splits this image's code by kind;
/// docs/code-size.md).
#[inline(always)]
pub fn groups_solve_f32() {
    keep!(
        xpbd_system3_begin_substep_groups_f32,
        xpbd_system3_iterate_groups_f32,
        xpbd_system3_iterate_until_groups_f32,
        xpbd_system3_measure_groups_f32,
        xpbd_world3_default_f32,
        xpbd_groups3_default_f32,
        xpbd_world3_add_f32,
        xpbd_world3_requirements_f32,
        xpbd_world3_step_f32,
    );
}

/// The bend builder in float: `xpbd_build_bends_cloth3_f32`.
#[inline(always)]
pub fn build_bends_f32() {
    keep!(xpbd_build_bends_cloth3_f32);
}

/// The tet builder in float: `xpbd_build_tet_block3_f32`.
#[inline(always)]
pub fn build_tets_f32() {
    keep!(xpbd_build_tet_block3_f32);
}

/// The tether builders in float: `xpbd_build_tethers3_f32`,
/// `xpbd_build_tethers_along_links3_f32`.
#[inline(always)]
pub fn build_tethers_f32() {
    keep!(xpbd_build_tethers3_f32, xpbd_build_tethers_along_links3_f32);
}

/// The closed-mesh builders in float: `xpbd_build_mesh_volume3_f32`,
/// `xpbd_build_icosphere3_f32`.
#[inline(always)]
pub fn build_meshes_f32() {
    keep!(xpbd_build_mesh_volume3_f32, xpbd_build_icosphere3_f32);
}

static mut WX: [[f32; 3]; 8] = [[0.0; 3]; 8];
static mut WV: [[f32; 3]; 8] = [[0.0; 3]; 8];
static mut WW: [f32; 8] = [1.0; 8];
static mut WL: [XpbdLinkF32; 7] = [XpbdLinkF32 {
    i: 0,
    j: 1,
    rest: 0.1,
    compliance: 0.0,
    lambda: 0.0,
    flags: 0,
}; 7];
static mut WMEM: [u64; 128] = [0; 128];
static WPLANE: [XpbdPlane3F32; 1] = [XpbdPlane3F32 {
    normal: [0.0, 1.0, 0.0],
    offset: 0.0,
}];

/// A firmware's frame (issue 33 §6): an f32 3D world with links and one
/// plane, from the defaults, stepped by `xpbd_world3_step_f32`.
#[inline(always)]
pub fn world_plane_f32() {
    // SAFETY: the statics are used by this single-threaded image only; no
    // reference to them is formed, the library gets raw pointers.
    let s = unsafe {
        let mut world = xpbd_world3_default_f32();
        world.positions = opaque(addr_of_mut!(WX)).cast();
        world.velocities = opaque(addr_of_mut!(WV)).cast();
        world.inverse_masses = opaque(core::ptr::addr_of!(WW)).cast();
        world.particle_count = opaque(8);
        world.links = opaque(addr_of_mut!(WL)).cast();
        world.link_count = opaque(7);
        world.memory = opaque(addr_of_mut!(WMEM)).cast();
        world.memory_size = opaque(1024);
        let mut colliders = xpbd_colliders3_default_f32();
        colliders.planes = opaque(WPLANE.as_ptr());
        colliders.plane_count = opaque(1);
        let added = xpbd_world3_add_f32(&mut world, addr_of_mut!(colliders).cast());
        let config = xpbd_step_config3_default_f32();
        let stepped = xpbd_world3_step_f32(
            &mut world,
            opaque(1.0 / 60.0),
            &config,
            opaque(core::ptr::null_mut()),
        );
        added.code() ^ stepped.code()
    };
    sink(s as u32);
}
