//! The C types. A C struct that mirrors a Rust struct *is* that struct:
//! `XpbdLink` is `Link<f64>`, `XpbdSweepStats` is `SweepStats<f64>`, and so
//! on (type aliases; cbindgen writes each monomorph under its C name, see
//! `cbindgen.toml`). The structs only C has — the caller-owned system,
//! world, configuration and colored-system structs naming the caller's
//! buffers — are defined once, generic over the float type `T` (and the
//! dimension `D`), and aliased per precision.

use core::ffi::c_void;

use crate::constraint::attachment::Attachment;
use crate::constraint::bend::Bend;
use crate::constraint::contact::{Contact, Plane, Sphere};
use crate::constraint::engine_contact::EngineContact;
use crate::constraint::field::{Heightfield, Sdf};
use crate::constraint::moving::{Capsule, OrientedBox};
use crate::constraint::particle_contact::ParticleContact;
use crate::constraint::pressure::MeshVolume;
use crate::constraint::skin::SkinConstraint;
use crate::constraint::tether::Tether;
use crate::constraint::volume::Tet;
use crate::solver::{Convergence, Group, Link, SweepStats, ZeroLength};
use crate::step::{AeroTriangle, LocalSpace, StepStats, Transform};

/// Zero-length policy: stop with `XPBD_STATUS_ZERO_LENGTH` naming the link.
pub const XPBD_ZERO_LENGTH_REJECT: i32 = 0;
/// Zero-length policy: skip the link and count it in `skipped_zero_length`.
pub const XPBD_ZERO_LENGTH_SKIP: i32 = 1;

/// SIMD bit (`xpbd_simd_detect`, `XpbdSimdLinks3::simd`): the AVX2
/// colored kernels (x86-64; no FMA, the same bits as the baseline).
pub const XPBD_SIMD_AVX2: u32 = 1;
/// SIMD bit: the AVX-512 (F + DQ) colored kernels (x86-64; the AVX2 ones
/// when the library was built with Rust older than 1.89).
pub const XPBD_SIMD_AVX512: u32 = 2;
/// SIMD bit: the NEON colored kernels (aarch64, where every CPU has them).
pub const XPBD_SIMD_NEON: u32 = 4;

// The C bits are the Rust ones (literals above, for cbindgen).
const _: () = assert!(
    XPBD_SIMD_AVX2 == crate::colored::Isa::AVX2_BIT
        && XPBD_SIMD_AVX512 == crate::colored::Isa::AVX512_BIT
        && XPBD_SIMD_NEON == crate::colored::Isa::NEON_BIT
);

/// Link flag: unilateral, resists only stretching (the accumulated λ is
/// clamped to λ ≤ 0, so the link never pushes).
pub const XPBD_LINK_TENSION_ONLY: u32 = 1;

/// Link flag: the link is off (torn). Every sweep skips it (λ stays 0,
/// nothing moves, it counts as `skipped_static`); only its particle
/// indices are validated. `xpbd_world3_step` sets it on links whose force
/// exceeded `link_max_force`.
pub const XPBD_LINK_DISABLED: u32 = 2;

/// Contact overflow policy: a substep finding more contacts than the
/// contact budget (`XpbdColliders3::contact_budget`) or more pairs than
/// the pair budget fails the step with `XPBD_STATUS_CAPACITY_TOO_SMALL`
/// naming the count needed (the default).
pub const XPBD_CONTACT_OVERFLOW_REJECT: i32 = 0;
/// Contact overflow policy: keep the first `contact_budget` contacts in
/// detection order (particle index, then planes, then spheres) and count
/// the others in `XpbdStepStats::contacts_dropped`.
pub const XPBD_CONTACT_OVERFLOW_KEEP_FIRST: i32 = 1;

/// Links per job chunk: `xpbd_job_range` splits a color on multiples of
/// this many links.
pub const XPBD_JOB_CHUNK: usize = 64;

/// The most colors `xpbd_color_greedy` uses.
pub const XPBD_MAX_GREEDY_COLORS: u32 = 64;

/// The most substeps one `xpbd_world3_step` may run
/// (`XPBD_STATUS_WORK_LIMIT` above it).
pub const XPBD_MAX_SUBSTEPS: u32 = 4096;

/// The most sweeps per substep (`iterations`) and per
/// `xpbd_system*_iterate_until` call (`max_iterations`).
pub const XPBD_MAX_ITERATIONS: u32 = 65_536;

/// The most visits one call may make: `max_iterations` × (links + group
/// instances) for `iterate_until`; for a step, sweeps × (links + contact
/// capacity + engine contacts + particle contact capacity + group
/// instances) plus substeps × particles × (1 + planes + spheres +
/// capsules + boxes + heightfields + SDFs). Over it the call fails at
/// once with `XPBD_STATUS_WORK_LIMIT`, writing nothing. What a step has
/// left bounds its self-collision pair searches (one visit per candidate,
/// each entry of the hash buckets of the 27 cells around a particle, and
/// per linked neighbour compared): a search that would go over fails the
/// step with `XPBD_STATUS_WORK_LIMIT`, positions and velocities restored.
pub const XPBD_MAX_WORK: u64 = 1_073_741_824;

/// The most tasks `xpbd_world3_step_colored` splits one phase into
/// (`XpbdJobSystem::split` is clamped to it).
pub const XPBD_MAX_JOBS: u32 = 32;

/// The spacing ratio above which `xpbd_world3_precision` reports a world
/// too far from its origin for the lengths it simulates.
pub const XPBD_PRECISION_LIMIT: f64 = 1e-3;

// Literal values so that cbindgen can export them; they must match Rust's.
const _: () = assert!(XPBD_MAX_SUBSTEPS == crate::solver::MAX_SUBSTEPS);
const _: () = assert!(XPBD_MAX_ITERATIONS == crate::solver::MAX_ITERATIONS);
const _: () = assert!(XPBD_MAX_WORK == crate::solver::MAX_WORK);
const _: () = assert!(Link::<f64>::TENSION_ONLY == XPBD_LINK_TENSION_ONLY);
const _: () = assert!(Link::<f64>::DISABLED == XPBD_LINK_DISABLED);
const _: () = assert!(XPBD_JOB_CHUNK == crate::colored::CHUNK);
const _: () = assert!(XPBD_MAX_JOBS == 32 && crate::step::MAX_JOBS == 32);
const _: () = assert!(XPBD_MAX_GREEDY_COLORS == crate::colored::coloring::MAX_GREEDY_COLORS);

/// The zero-length policy of a C code, `None` for an unknown code.
pub(crate) fn policy_of(code: i32) -> Option<ZeroLength> {
    match code {
        XPBD_ZERO_LENGTH_REJECT => Some(ZeroLength::Reject),
        XPBD_ZERO_LENGTH_SKIP => Some(ZeroLength::Skip),
        _ => None,
    }
}

/// One 1D distance constraint: the accumulated multiplier λ (kg·m) of one
/// link for the current substep (`XpbdDistanceConstraint`: double,
/// `XpbdDistanceConstraintF32`: float).
///
/// Zero-initialise it or call `xpbd_distance_begin_substep`; keep one per
/// link and pass the same one to every iteration of a substep.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct DistanceConstraintC<T> {
    /// Accumulated multiplier λ (kg·m). Reset only by
    /// `xpbd_distance_begin_substep`.
    pub lambda: T,
}

/// A constraint system over caller-owned buffers, `D` = 2 or 3
/// coordinates per particle (`XpbdSystem2`, `XpbdSystem3`: double;
/// `XpbdSystem2F32`, `XpbdSystem3F32`: float).
///
/// Zero-initialise, set the buffer fields and `zero_length_policy`, then
/// begin a substep. The library writes only `substep_active`, `h` and
/// `error_index`, and the buffers' contents.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct SystemC<T, const D: usize> {
    /// Particle positions (m), `particle_count` entries; read and written.
    pub positions: *mut [T; D],
    /// Inverse masses (1/kg), `particle_count` entries; 0 = static.
    pub inverse_masses: *const T,
    /// Number of particles (at most 2^32 − 1).
    pub particle_count: usize,
    /// Links, `link_count` entries, solved in array order; λ written.
    pub links: *mut Link<T>,
    /// Number of links.
    pub link_count: usize,
    /// `XPBD_ZERO_LENGTH_REJECT` (0) or `XPBD_ZERO_LENGTH_SKIP` (1).
    pub zero_length_policy: i32,
    /// Written by the library: 1 after a successful begin_substep, else 0.
    pub substep_active: u32,
    /// Written by the library: the substep length h (s) of the substep.
    pub h: T,
    /// Written by the library on error: the particle or link index the
    /// error names (0 when it names none).
    pub error_index: usize,
}

/// How to advance one frame (`XpbdStepConfig3`: double,
/// `XpbdStepConfig3F32`: float). Start from `xpbd_step_config3_default()`.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StepConfigC<T> {
    /// Gravity as an acceleration (m/s²).
    pub gravity: [T; 3],
    /// Substeps per frame (≥ 1): h = dt / substeps.
    pub substeps: u32,
    /// Solver iterations per substep (≥ 1; the budget when tolerance > 0).
    pub iterations: u32,
    /// 0: exactly `iterations` sweeps; > 0: stop a substep when max |C + α̃λ| ≤ tolerance (m).
    pub tolerance: T,
    /// Velocity damping c (1/s): v ← v·max(0, 1 − c h) per substep. Not
    /// physical. In float, short substeps defeat it: v = Δx/h comes in
    /// quanta of ulp(x)/h, and below about 0.5/(c h) quanta the damping's
    /// change to x + h v is lost to rounding. Prefer fewer, longer substeps.
    pub damping: T,
    /// Particle radius for contacts (m).
    pub particle_radius: T,
    /// Contact compliance (m/N); 0 = rigid.
    pub contact_compliance: T,
    /// Static friction coefficient μ_s.
    pub static_friction: T,
    /// Dynamic friction coefficient μ_k.
    pub dynamic_friction: T,
    /// `XPBD_ZERO_LENGTH_REJECT` or `XPBD_ZERO_LENGTH_SKIP`; other values
    /// are `XPBD_STATUS_INVALID_CONFIG` with `XPBD_FIELD_ZERO_LENGTH_POLICY`.
    pub zero_length_policy: i32,
    /// `XPBD_CONTACT_OVERFLOW_REJECT` (0, the default) or
    /// `XPBD_CONTACT_OVERFLOW_KEEP_FIRST` (1); other values are
    /// `XPBD_STATUS_INVALID_CONFIG` with `XPBD_FIELD_CONTACT_OVERFLOW`.
    pub contact_overflow: i32,
    /// The global scale of every skinned constraint's max distance
    /// (unitless, finite, ≥ 0; 1 by default; 0 pins the skinned particles
    /// to their skinned positions); else `XPBD_STATUS_INVALID_CONFIG`
    /// with `XPBD_FIELD_MAX_DISTANCE_SCALE`.
    pub max_distance_scale: T,
}

/// The constraint groups of a 3D system or world beyond its links
/// (`XpbdConstraints3`: double, `XpbdConstraints3F32`: float): bending,
/// tetrahedral volume, tethers and closed-mesh volumes, each an array the
/// caller owns (in Rust, `xpbd::Constraints`). The units of each field of
/// an instance are in its struct (`XpbdBend`, `XpbdTet`, `XpbdTether`,
/// `XpbdMeshVolume`).
///
/// Zero-initialise it and set the groups you use; a NULL array is allowed
/// only with a zero count. The library never writes the struct itself: it
/// writes each instance's λ, and `mesh_scratch` during a sweep or a
/// validation. No array
/// may overlap another, the system's or world's buffers, the system or
/// world struct, the configuration, this struct or an output
/// (`XPBD_STATUS_ALIASED_BUFFERS`).
///
/// Each iteration sweeps the links, then the bends, tets, tethers, meshes
/// and attachments, each in array order. An error naming a constraint
/// counts the links first: with `L` links, `B` bends, `V` tets, `E`
/// tethers and `M` meshes, `error_index` `L + k` is bend `k`, `L + B + k`
/// tet `k`, `L + B + V + k` tether `k`, `L + B + V + E + k` mesh `k` and
/// `L + B + V + E + M + k` attachment `k`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct ConstraintsC<T> {
    /// Dihedral bending constraints, `bend_count` entries; λ written.
    /// Rest angle φ₀ in rad.
    pub bends: *mut Bend<T>,
    /// Number of bends (count, no unit).
    pub bend_count: usize,
    /// Tetrahedral volume constraints, `tet_count` entries; λ written.
    /// Rest volume V₀ in m³ (signed).
    pub tets: *mut Tet<T>,
    /// Number of tets.
    pub tet_count: usize,
    /// Long-range tethers, `tether_count` entries; λ (kg·m, ≤ 0) written.
    /// Maximum distance in m, compliance in m/N
    /// (`xpbd_build_tethers3` writes them).
    pub tethers: *mut Tether<T>,
    /// Number of tethers.
    pub tether_count: usize,
    /// Closed-mesh volume constraints, `mesh_volume_count` entries, each
    /// naming a range of `triangles`; λ written. Rest volume in m³,
    /// pressure factor unitless.
    pub mesh_volumes: *mut MeshVolume<T>,
    /// Number of mesh volume constraints.
    pub mesh_volume_count: usize,
    /// Triangles `{a, b, c}` (particle indices, counter-clockwise seen from
    /// outside), `triangle_count` entries; only read.
    pub triangles: *const [u32; 3],
    /// Number of triangles.
    pub triangle_count: usize,
    /// Scratch for the mesh volumes' gradients (m²), `mesh_scratch_count`
    /// entries, at least `particle_count` when `mesh_volume_count > 0`
    /// (else `XPBD_STATUS_CAPACITY_TOO_SMALL` naming the count needed);
    /// the library's during a sweep: never read it.
    pub mesh_scratch: *mut [T; 3],
    /// Number of scratch entries.
    pub mesh_scratch_count: usize,
    /// Kinematic attachments, `attachment_count` entries (the last fields:
    /// every earlier field keeps its offset); λ written, `impulse` (N·s)
    /// during `xpbd_world3_step` (groups block), and after a successful one `force`
    /// (N) and `previous ← target`. Points in m, compliance in m/N.
    pub attachments: *mut Attachment<T>,
    /// Number of attachments.
    pub attachment_count: usize,
    /// The mesh volumes' particle lists (particle indices),
    /// `mesh_particle_count` entries; only read. Each mesh names its
    /// distinct particles once, in the order they first appear in its
    /// triangles (`xpbd_build_mesh_volume3` writes them; checked when a
    /// substep or step begins). The last fields: every earlier field keeps
    /// its offset.
    pub mesh_particles: *const u32,
    /// Number of particle list entries.
    pub mesh_particle_count: usize,
    /// Skinned constraints (max distance and backstop of character
    /// cloth), `skin_constraint_count` entries (the last fields: every
    /// earlier field keeps its offset); λ written, and after a successful
    /// `xpbd_world3_step` (groups block) `previous ← target` and
    /// `previous_normal ← target_normal`. Positions and distances in m,
    /// compliances in m/N; the max distances scaled by
    /// `XpbdStepConfig3::max_distance_scale`.
    pub skin_constraints: *mut SkinConstraint<T>,
    /// Number of skinned constraints.
    pub skin_constraint_count: usize,
}

/// A colored 3D system over caller-owned buffers (`XpbdSimdLinks3`:
/// double, `XpbdSimdLinks3F32`: float; see `docs/c-api.md` for the
/// rules).
///
/// Zero-initialise, fill in the buffer fields, counts and
/// `zero_length_policy` (and `simd` through `xpbd_simd_links3_set_simd`); the
/// library writes only `substep_active`, `h`, `error_index` and `simd`,
/// and the buffers' contents.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct SimdLinksC<T> {
    /// AoS particle positions (m), `particle_count` entries, or NULL when
    /// `x`, `y`, `z` are used.
    pub positions: *mut [T; 3],
    /// SoA x coordinates (m), or NULL with `positions`.
    pub x: *mut T,
    /// SoA y coordinates (m), or NULL with `positions`.
    pub y: *mut T,
    /// SoA z coordinates (m), or NULL with `positions`.
    pub z: *mut T,
    /// Inverse masses (1/kg), `particle_count` entries; 0 = static.
    pub inverse_masses: *const T,
    /// Number of particles.
    pub particle_count: usize,
    /// First particle of each link, `link_count` entries, in colored order.
    pub i: *const u32,
    /// Second particle of each link.
    pub j: *const u32,
    /// Rest lengths (m), finite: `rest[k] > 0` is a bilateral link,
    /// `rest[k] < 0` a tension-only link (`XPBD_LINK_TENSION_ONLY`: it only
    /// pulls) of rest length `-rest[k]`, `rest[k] = 0` a disabled link
    /// (`XPBD_LINK_DISABLED`: skipped, λ stays 0);
    /// `xpbd_colored_links_fill` writes all three.
    pub rest: *const T,
    /// Compliances α (m/N), ≥ 0.
    pub compliance: *const T,
    /// Multipliers λ (kg·m); reset by begin_substep.
    pub lambda: *mut T,
    /// Scratch, `link_count` entries: α̃ = α/h² (1/kg), written by begin_substep.
    pub alpha: *mut T,
    /// Scratch, `link_count` entries: 1/(w_i + w_j + α̃) (kg), written by begin_substep.
    pub inv_denominator: *mut T,
    /// Number of links.
    pub link_count: usize,
    /// Color boundaries, `color_count + 1` entries: color c is links
    /// `color_starts[c] .. color_starts[c + 1]`.
    pub color_starts: *const usize,
    /// Number of colors.
    pub color_count: usize,
    /// Scratch, `particle_count` entries, the library's for the whole
    /// substep: `begin_substep` clobbers it on every call (a rejected one
    /// included) for the proper-coloring check, and the jobs keep their
    /// contract word in `stamp[0]`. Never read or write it yourself.
    pub stamp: *mut u32,
    /// `XPBD_ZERO_LENGTH_REJECT` (0) or `XPBD_ZERO_LENGTH_SKIP` (1).
    pub zero_length_policy: i32,
    /// Written by the library: 1 after a successful begin_substep, else 0.
    pub substep_active: u32,
    /// Written by the library: the substep length h (s).
    pub h: T,
    /// Written by the library on error: the particle or link (colored
    /// position) the error names, 0 when none.
    pub error_index: usize,
    /// The SIMD kernels of the solving calls (the last field: every
    /// earlier field keeps its offset): `XPBD_SIMD_*` bits, 0 (a
    /// zero-initialised struct) for the baseline kernel; every value gives
    /// the same bits. Set it with `xpbd_simd_links3_set_simd`, which refuses
    /// bits this CPU lacks. The solving calls do not detect the CPU again
    /// (cpuid is slow under a hypervisor, and the library keeps no global
    /// state): a value written directly must be a subset of
    /// `xpbd_simd_detect()`, otherwise the CPU stops the program at an
    /// instruction it lacks. Bits this version does not define are
    /// `XPBD_STATUS_INVALID_ARGUMENT`.
    pub simd: u32,
}

/// `XpbdDistanceConstraint` (C): a 1D constraint's λ, double.
pub type XpbdDistanceConstraint = DistanceConstraintC<f64>;
/// `XpbdDistanceConstraintF32` (C): a 1D constraint's λ, float.
pub type XpbdDistanceConstraintF32 = DistanceConstraintC<f32>;
/// `XpbdLink` (C): a distance link, double.
pub type XpbdLink = Link<f64>;
/// `XpbdLinkF32` (C): a distance link, float.
pub type XpbdLinkF32 = Link<f32>;
/// `XpbdSweepStats` (C): diagnostics of one sweep, double.
pub type XpbdSweepStats = SweepStats<f64>;
/// `XpbdSweepStatsF32` (C): diagnostics of one sweep, float.
pub type XpbdSweepStatsF32 = SweepStats<f32>;
/// `XpbdConvergence` (C): result of `xpbd_system*_iterate_until`, double.
pub type XpbdConvergence = Convergence<f64>;
/// `XpbdConvergenceF32` (C): result of `xpbd_system*_iterate_until_f32`.
pub type XpbdConvergenceF32 = Convergence<f32>;
/// `XpbdSystem2` (C): a 2D double system.
pub type XpbdSystem2 = SystemC<f64, 2>;
/// `XpbdSystem3` (C): a 3D double system.
pub type XpbdSystem3 = SystemC<f64, 3>;
/// `XpbdSystem2F32` (C): a 2D float system.
pub type XpbdSystem2F32 = SystemC<f32, 2>;
/// `XpbdSystem3F32` (C): a 3D float system.
pub type XpbdSystem3F32 = SystemC<f32, 3>;
/// `XpbdPlane3` (C): a static half-space, double.
pub type XpbdPlane3 = Plane<f64, 3>;
/// `XpbdPlane3F32` (C): a static half-space, float.
pub type XpbdPlane3F32 = Plane<f32, 3>;
/// `XpbdSphere3` (C): a static sphere, double.
pub type XpbdSphere3 = Sphere<f64, 3>;
/// `XpbdSphere3F32` (C): a static sphere, float.
pub type XpbdSphere3F32 = Sphere<f32, 3>;
/// `XpbdContact` (C): a contact of the current substep, double.
pub type XpbdContact = Contact<f64>;
/// `XpbdContactF32` (C): a contact of the current substep, float.
pub type XpbdContactF32 = Contact<f32>;
/// `XpbdStepConfig3` (C): how to advance one frame, double.
pub type XpbdStepConfig3 = StepConfigC<f64>;
/// `XpbdStepConfig3F32` (C): how to advance one frame, float.
pub type XpbdStepConfig3F32 = StepConfigC<f32>;
/// `XpbdStepStats` (C): what a step did, double.
pub type XpbdStepStats = StepStats<f64>;
/// `XpbdStepStatsF32` (C): what a step did, float.
pub type XpbdStepStatsF32 = StepStats<f32>;
/// `XpbdBend` (C): a dihedral bending constraint, double.
pub type XpbdBend = Bend<f64>;
/// `XpbdBendF32` (C): a dihedral bending constraint, float.
pub type XpbdBendF32 = Bend<f32>;
/// `XpbdTet` (C): a tetrahedral volume constraint, double.
pub type XpbdTet = Tet<f64>;
/// `XpbdTetF32` (C): a tetrahedral volume constraint, float.
pub type XpbdTetF32 = Tet<f32>;
/// Group code of `xpbd_system3_solve_group_job`: the system's links.
pub const XPBD_GROUP_LINKS: i32 = 0;
/// Group code: the bends of `XpbdConstraints3`.
pub const XPBD_GROUP_BENDS: i32 = 1;
/// Group code: the tets of `XpbdConstraints3`.
pub const XPBD_GROUP_TETS: i32 = 2;
/// Group code: the tethers of `XpbdConstraints3`.
pub const XPBD_GROUP_TETHERS: i32 = 3;
/// Group code: the mesh volumes of `XpbdConstraints3` (one color each).
pub const XPBD_GROUP_MESHES: i32 = 4;
/// Group code: the attachments of `XpbdConstraints3` (one color each).
pub const XPBD_GROUP_ATTACHMENTS: i32 = 5;
/// Group code: the skinned constraints of `XpbdConstraints3` (one color
/// each).
pub const XPBD_GROUP_SKIN_CONSTRAINTS: i32 = 6;

/// The group a C group code names (`None` for an unknown code).
pub(crate) fn group_of(code: i32) -> Option<Group> {
    match code {
        XPBD_GROUP_LINKS => Some(Group::Links),
        XPBD_GROUP_BENDS => Some(Group::Bends),
        XPBD_GROUP_TETS => Some(Group::Tets),
        XPBD_GROUP_TETHERS => Some(Group::Tethers),
        XPBD_GROUP_MESHES => Some(Group::Meshes),
        XPBD_GROUP_ATTACHMENTS => Some(Group::Attachments),
        XPBD_GROUP_SKIN_CONSTRAINTS => Some(Group::SkinConstraints),
        _ => None,
    }
}

/// The color boundaries of a 3D system's links and groups, each stored in
/// colored order (precision-free; see `docs/colored.md`): color `c` of a
/// group is its entries `starts[c] .. starts[c + 1]`, so each `starts`
/// array has `count + 1` entries, from 0 to the group's length,
/// non-decreasing (`xpbd_color_order` writes them). An empty group may
/// have `count` 0 and a NULL array. Mesh volumes need none: each is a
/// color of its own. Only read.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct XpbdGroupColors {
    /// Boundaries of the system's links, `link_color_count + 1` entries.
    pub link_color_starts: *const usize,
    /// Number of link colors.
    pub link_color_count: usize,
    /// Boundaries of the bends, `bend_color_count + 1` entries.
    pub bend_color_starts: *const usize,
    /// Number of bend colors.
    pub bend_color_count: usize,
    /// Boundaries of the tets, `tet_color_count + 1` entries.
    pub tet_color_starts: *const usize,
    /// Number of tet colors.
    pub tet_color_count: usize,
    /// Boundaries of the tethers, `tether_color_count + 1` entries.
    pub tether_color_starts: *const usize,
    /// Number of tether colors.
    pub tether_color_count: usize,
}

/// One task of a phase of `xpbd_world3_step_colored`: call it with the
/// `task_context` the library passed to `XpbdJobSystem::run` and a task
/// index below the count it passed.
pub type XpbdTaskFn = unsafe extern "C" fn(task_context: *mut c_void, task: u32);

/// The engine's job system for `xpbd_world3_step_colored` (the library
/// never creates a thread). The library calls `run` once per phase of a
/// frame (prediction, each color of each group, the velocity update; see
/// `docs/colored.md`) and waits for it to return.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct XpbdJobSystem {
    /// Runs `task(task_context, i)` for every `i` in `0 .. count`, each
    /// once, on any threads in any order, and returns only after all of
    /// them have returned. `user` is this struct's `user`. NULL: the
    /// calling thread runs every phase as one task.
    pub run: Option<
        unsafe extern "C" fn(
            user: *mut c_void,
            count: u32,
            task: XpbdTaskFn,
            task_context: *mut c_void,
        ),
    >,
    /// Passed to `run` unchanged (the engine's pool, say).
    pub user: *mut c_void,
    /// Tasks per phase to ask for: typically the worker count (clamped to
    /// 1 ..= `XPBD_MAX_JOBS`; 0 is 1). No result bit depends on it.
    pub split: u32,
}

/// `XpbdTether` (C): a long-range tether, double.
pub type XpbdTether = Tether<f64>;
/// `XpbdTetherF32` (C): a long-range tether, float.
pub type XpbdTetherF32 = Tether<f32>;
/// `XpbdAttachment` (C): a kinematic attachment, double.
pub type XpbdAttachment = Attachment<f64>;
/// `XpbdAttachmentF32` (C): a kinematic attachment, float.
pub type XpbdAttachmentF32 = Attachment<f32>;
/// `XpbdSkinConstraint` (C): a skinned constraint (max distance and
/// backstop), double.
pub type XpbdSkinConstraint = SkinConstraint<f64>;
/// `XpbdSkinConstraintF32` (C): a skinned constraint, float.
pub type XpbdSkinConstraintF32 = SkinConstraint<f32>;
/// `XpbdAeroTriangle` (C): a triangle of the wind block (three particle
/// indices, drag and lift coefficients), double.
pub type XpbdAeroTriangle = AeroTriangle<f64>;
/// `XpbdAeroTriangleF32` (C): a triangle of the wind block, float.
pub type XpbdAeroTriangleF32 = AeroTriangle<f32>;
/// `XpbdTransform` (C): a rigid transform (unit quaternion `[x, y, z, w]`,
/// translation in m), double.
pub type XpbdTransform = Transform<f64>;
/// `XpbdTransformF32` (C): a rigid transform, float.
pub type XpbdTransformF32 = Transform<f32>;
/// `XpbdLocalSpace` (C): the local-space values of an `XpbdLocalSpace3`
/// block (root transforms, inertia scales, clamps, teleport), double.
pub type XpbdLocalSpace = LocalSpace<f64>;
/// `XpbdLocalSpaceF32` (C): the local-space values, float.
pub type XpbdLocalSpaceF32 = LocalSpace<f32>;
/// `XpbdCapsule3` (C): a moving capsule, double.
pub type XpbdCapsule3 = Capsule<f64, 3>;
/// `XpbdCapsule3F32` (C): a moving capsule, float.
pub type XpbdCapsule3F32 = Capsule<f32, 3>;
/// `XpbdBox3` (C): a moving oriented box, double.
pub type XpbdBox3 = OrientedBox<f64, 3>;
/// `XpbdBox3F32` (C): a moving oriented box, float.
pub type XpbdBox3F32 = OrientedBox<f32, 3>;
/// `XpbdHeightfield3` (C): a moving heightfield (a grid of heights over
/// its local axes 0 and 2, read from `XpbdColliders3::samples`), double.
pub type XpbdHeightfield3 = Heightfield<f64, 3>;
/// `XpbdHeightfield3F32` (C): a moving heightfield, float.
pub type XpbdHeightfield3F32 = Heightfield<f32, 3>;
/// `XpbdSdf3` (C): a moving signed distance field (a regular grid of
/// distances, read from `XpbdColliders3::samples`), double.
pub type XpbdSdf3 = Sdf<f64, 3>;
/// `XpbdSdf3F32` (C): a moving signed distance field, float.
pub type XpbdSdf3F32 = Sdf<f32, 3>;
/// `XpbdParticleContact` (C): a particle–particle contact, double.
pub type XpbdParticleContact = ParticleContact<f64>;
/// `XpbdParticleContactF32` (C): a particle–particle contact, float.
pub type XpbdParticleContactF32 = ParticleContact<f32>;
/// `XpbdEngineContact` (C): a contact the engine found, double.
pub type XpbdEngineContact = EngineContact<f64, 3>;
/// `XpbdEngineContactF32` (C): a contact the engine found, float.
pub type XpbdEngineContactF32 = EngineContact<f32, 3>;
/// `XpbdMeshVolume` (C): a closed-mesh volume constraint, double.
pub type XpbdMeshVolume = MeshVolume<f64>;
/// `XpbdMeshVolumeF32` (C): a closed-mesh volume constraint, float.
pub type XpbdMeshVolumeF32 = MeshVolume<f32>;
/// `XpbdConstraints3` (C): the constraint groups of a 3D double system.
pub type XpbdConstraints3 = ConstraintsC<f64>;
/// `XpbdConstraints3F32` (C): the constraint groups of a 3D float system.
pub type XpbdConstraints3F32 = ConstraintsC<f32>;
/// `XpbdSimdLinks3` (C): a colored 3D double system.
pub type XpbdSimdLinks3 = SimdLinksC<f64>;
/// `XpbdSimdLinks3F32` (C): a colored 3D float system.
pub type XpbdSimdLinks3F32 = SimdLinksC<f32>;

/// `XpbdConstraints3` with no group (every array NULL, every count 0).
pub(crate) fn empty_constraints<T>() -> ConstraintsC<T> {
    ConstraintsC {
        bends: core::ptr::null_mut(),
        bend_count: 0,
        tets: core::ptr::null_mut(),
        tet_count: 0,
        tethers: core::ptr::null_mut(),
        tether_count: 0,
        mesh_volumes: core::ptr::null_mut(),
        mesh_volume_count: 0,
        triangles: core::ptr::null(),
        triangle_count: 0,
        mesh_scratch: core::ptr::null_mut(),
        mesh_scratch_count: 0,
        attachments: core::ptr::null_mut(),
        attachment_count: 0,
        mesh_particles: core::ptr::null(),
        mesh_particle_count: 0,
        skin_constraints: core::ptr::null_mut(),
        skin_constraint_count: 0,
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_precision_limit_is_the_rust_one() {
        assert_eq!(
            super::XPBD_PRECISION_LIMIT.to_bits(),
            crate::step::PRECISION_LIMIT.to_bits()
        );
    }
}
