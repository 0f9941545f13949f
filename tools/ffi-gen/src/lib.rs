//! The generator of `src/ffi/generated.rs`: every `extern "C"` entry point
//! of the xpbd C ABI that exists once per precision (f64, f32) — and, for
//! systems, per dimension (2D, 3D) — written from one template per
//! function. Each wrapper is one call of a generic function in its area's
//! file (`src/ffi/{distance,system,step,colored,constraints}.rs`), where
//! the checks live.
//!
//! Why generated and committed rather than `macro_rules!`: cbindgen reads
//! the source text and does not expand macros, so the header needs the
//! literal functions. `cargo run -p xpbd-ffi-gen` rewrites the file; the
//! test `tests/drift.rs` (part of `cargo test --workspace`) fails when the
//! committed file differs from what this generator writes.

use std::fmt::Write as _;

mod groups;
use groups::{COLORED_GROUPS, GROUPS};

/// One precision: the Rust type, its C name, the suffix of C functions.
#[derive(Clone, Copy)]
struct Precision {
    t: &'static str,
    c: &'static str,
    suffix: &'static str,
}

const F64: Precision = Precision {
    t: "f64",
    c: "double",
    suffix: "",
};
const F32: Precision = Precision {
    t: "f32",
    c: "float",
    suffix: "_f32",
};
const PRECISIONS: [Precision; 2] = [F64, F32];

/// Replaces every `{KEY}` of `template` by its value.
fn fill(template: &str, vars: &[(&str, String)]) -> String {
    let mut out = template.to_string();
    for (key, value) in vars {
        out = out.replace(&format!("{{{key}}}"), value);
    }
    assert!(
        !out.contains("{T}") && !out.contains("{S}") && !out.contains("{D}"),
        "unfilled placeholder in template"
    );
    out
}

/// The 1D seed solver's C entry points.
const DISTANCE: &str = r#"
/// Starts a substep for one {C} 1D constraint: `c->lambda = 0`.
///
/// Call it at each substep entry, and nowhere else: λ must survive every
/// solver iteration of the substep.
///
/// Returns `XPBD_STATUS_OK`, or `XPBD_STATUS_NULL_POINTER` if `c` is NULL.
///
/// # Safety
/// `c` is NULL or points to a valid, aligned constraint.
#[no_mangle]
pub unsafe extern "C" fn xpbd_distance_begin_substep{S}(c: *mut DistanceConstraintC<{T}>) -> XpbdStatus {
    // SAFETY: forwarded caller contract (see the function's Safety section).
    unsafe { distance_begin(c) }
}

/// One XPBD iteration of a 1D distance constraint in {C}.
///
/// With `C = *b - *a - rest` and `α̃ = compliance / (dt * dt)`:
/// `Δλ = (-C - α̃ λ) / (wa + wb + α̃)`, then `*a -= wa Δλ`, `*b += wb Δλ`,
/// `λ += Δλ`.
///
/// Units: positions and `rest` in m, `wa`/`wb` in 1/kg, `compliance` in m/N
/// (s²/kg), `dt` the real substep length in s (never the frame time).
///
/// Returns `XPBD_STATUS_OK` (applied), `XPBD_STATUS_SKIPPED` (`wa = wb = 0`,
/// nothing changed) or a negative code, checked in this order:
/// `NULL_POINTER`, `NON_FINITE_POSITION`, `INVALID_INVERSE_MASS`,
/// `INVALID_REST_LENGTH`, `INVALID_COMPLIANCE`, `INVALID_TIME_STEP`,
/// `ENDPOINTS_NOT_ORDERED` (also when `a == b`), `UNREPRESENTABLE_SCALE`,
/// `INVALID_RESULT`. On any error `*c`, `*a` and `*b` are unchanged.
///
/// # Safety
/// Each pointer is NULL or points to a valid, aligned value; they may alias.
#[no_mangle]
pub unsafe extern "C" fn xpbd_distance_solve{S}(
    c: *mut DistanceConstraintC<{T}>,
    a: *mut {T},
    b: *mut {T},
    wa: {T},
    wb: {T},
    rest: {T},
    compliance: {T},
    dt: {T},
) -> XpbdStatus {
    // SAFETY: forwarded caller contract (see the function's Safety section).
    unsafe { distance_solve(c, a, b, wa, wb, rest, compliance, dt) }
}
"#;

/// The system entry points, per dimension and precision.
const SYSTEM: &str = r#"
/// Starts a substep of length `h` (s) for a {D}D {C} system: validates
/// every particle and link, then sets every λ to 0 and records `h`.
///
/// Returns `XPBD_STATUS_OK` or an error naming the bad particle or link in
/// `system->error_index`; on error no position or λ is written and
/// `system->substep_active` is cleared.
///
/// # Safety
/// `system` is NULL or valid; its buffers are NULL (with count 0) or valid
/// for their counts, and do not overlap each other or `*system`.
#[no_mangle]
pub unsafe extern "C" fn xpbd_system{D}_begin_substep{S}(system: *mut SystemC<{T}, {D}>, h: {T}) -> XpbdStatus {
    // SAFETY: forwarded caller contract (see the function's Safety section).
    unsafe { begin_substep_raw(system, h) }
}

/// One solver iteration of a {D}D {C} system: a Gauss-Seidel sweep over
/// the links in array order with the substep's `h`, keeping every λ.
///
/// `out_stats` may be NULL; it is written only on success and must not
/// overlap the system or its buffers (`ALIASED_BUFFERS`). Errors:
/// `XPBD_STATUS_NO_SUBSTEP` (no successful begin_substep),
/// `INVALID_TIME_STEP` (the struct's `h` is not a positive number),
/// `ZERO_LENGTH`, `INVALID_RESULT` (naming the link in
/// `system->error_index`; the links before it in this sweep were applied,
/// it and the later ones were not).
///
/// # Safety
/// As `xpbd_system{D}_begin_substep{S}`; `out_stats` is NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn xpbd_system{D}_iterate{S}(system: *mut SystemC<{T}, {D}>, out_stats: *mut SweepStats<{T}>) -> XpbdStatus {
    // SAFETY: forwarded caller contract (see the function's Safety section).
    unsafe { iterate_raw(system, out_stats) }
}

/// Iterates a {D}D {C} system until a sweep's `max_residual`
/// (max |C + α̃λ|, m) is at most `tolerance` or `max_iterations` sweeps ran;
/// `out` (may be NULL; must not overlap the system or its buffers)
/// receives the iterations used and the last sweep's diagnostics, on
/// success only.
///
/// # Safety
/// As `xpbd_system{D}_iterate{S}`.
#[no_mangle]
pub unsafe extern "C" fn xpbd_system{D}_iterate_until{S}(
    system: *mut SystemC<{T}, {D}>,
    tolerance: {T},
    max_iterations: u32,
    out: *mut Convergence<{T}>,
) -> XpbdStatus {
    // SAFETY: forwarded caller contract (see the function's Safety section).
    unsafe { iterate_until_raw(system, tolerance, max_iterations, out) }
}

/// The diagnostics a sweep of a {D}D {C} system would report now, with
/// nothing changed; `out_stats` is required, must not overlap the system
/// or its buffers, and is written on success only.
///
/// # Safety
/// As `xpbd_system{D}_iterate{S}`.
#[no_mangle]
pub unsafe extern "C" fn xpbd_system{D}_measure{S}(system: *mut SystemC<{T}, {D}>, out_stats: *mut SweepStats<{T}>) -> XpbdStatus {
    // SAFETY: forwarded caller contract (see the function's Safety section).
    unsafe { measure_raw(system, out_stats) }
}

/// Writes an open rope over `particle_count` {D}D {C} particles into
/// `links`. `positions` holds {D}·particle_count coordinates (x0, y0, …; pass
/// `&x[0][0]` for a `{C} x[n][{D}]` array) and is only read. Links (k, k+1),
/// rest lengths from the positions, the given compliance (m/N), λ = 0.
/// `*out_link_count` = particle_count − 1. Nothing is written on error
/// (`CAPACITY_TOO_SMALL`, `INVALID_REST_LENGTH` for coincident neighbours,
/// `INVALID_ARGUMENT` for < 2 particles, …).
///
/// # Safety
/// `positions` valid for `particle_count` entries, `links` for
/// `link_capacity`, `out_link_count` for one `size_t`; no overlaps.
#[no_mangle]
pub unsafe extern "C" fn xpbd_build_rope{D}{S}(
    positions: *const {T},
    particle_count: usize,
    compliance: {T},
    links: *mut Link<{T}>,
    link_capacity: usize,
    out_link_count: *mut usize,
) -> XpbdStatus {
    // SAFETY: forwarded caller contract (see the function's Safety section).
    unsafe { build_raw(positions, particle_count, {D}, Shape::Rope, compliance, links, link_capacity, out_link_count) }
}

/// Writes a closed loop over `particle_count` {D}D {C} particles: the
/// rope's links plus (n−1, 0). `*out_link_count` = particle_count (≥ 3).
///
/// # Safety
/// As `xpbd_build_rope{D}{S}`.
#[no_mangle]
pub unsafe extern "C" fn xpbd_build_loop{D}{S}(
    positions: *const {T},
    particle_count: usize,
    compliance: {T},
    links: *mut Link<{T}>,
    link_capacity: usize,
    out_link_count: *mut usize,
) -> XpbdStatus {
    // SAFETY: forwarded caller contract (see the function's Safety section).
    unsafe { build_raw(positions, particle_count, {D}, Shape::Loop, compliance, links, link_capacity, out_link_count) }
}

/// Writes a `rows × cols` cloth over row-major {D}D {C} particles
/// (`rows·cols` of them, {D} coordinates each, only read): horizontal, then
/// vertical links, then with `shear != 0` both diagonals of each cell.
/// `xpbd_cloth_link_count` gives the count.
///
/// # Safety
/// `positions` valid for `rows·cols` entries; otherwise as `xpbd_build_rope{D}{S}`.
#[no_mangle]
pub unsafe extern "C" fn xpbd_build_cloth{D}{S}(
    positions: *const {T},
    rows: usize,
    cols: usize,
    shear: i32,
    compliance: {T},
    links: *mut Link<{T}>,
    link_capacity: usize,
    out_link_count: *mut usize,
) -> XpbdStatus {
    let Some(count) = rows.checked_mul(cols) else {
        return XpbdStatus::InvalidArgument;
    };
    // SAFETY: forwarded caller contract (see the function's Safety section).
    unsafe { build_raw(positions, count, {D}, Shape::Cloth { rows, cols, shear: shear != 0 }, compliance, links, link_capacity, out_link_count) }
}
"#;

/// The stepping entry points, per precision.
const STEP: &str = r#"
/// The default step configuration ({C}), the values of the Rust
/// `StepConfig::default()`: gravity (0, −9.81, 0) m/s²,
/// `XPBD_DEFAULT_SUBSTEPS` (20) substeps of `XPBD_DEFAULT_ITERATIONS` (1)
/// iteration (a rigid 20-link rope released horizontally stretches at most
/// 1.0 % over 2 s at 60 frames/s), no tolerance, damping 0.1/s (Jolt's
/// soft-body default: a swinging cloth settles, free fall barely
/// notices), particle radius 0.01 m (a cloth's half-thickness;
/// self-collision needs a radius), rigid contacts with static friction
/// 0.6 and dynamic friction 0.3, `XPBD_ZERO_LENGTH_REJECT`,
/// `XPBD_CONTACT_OVERFLOW_REJECT`.
#[no_mangle]
pub extern "C" fn xpbd_step_config3_default{S}() -> StepConfigC<{T}> {
    default_config()
}

/// An empty 3D {C} world: no particles, links, memory or blocks. Set
/// `positions`, `velocities`, `inverse_masses`, `particle_count`, `links`,
/// `link_count`, add blocks with `xpbd_world3_add{S}`, then size the memory
/// with `xpbd_world3_requirements{S}`.
#[no_mangle]
pub extern "C" fn xpbd_world3_default{S}() -> WorldC<{T}> {
    default_world()
}

/// A colliders block ({C}) with no collider and the default contact budget
/// (particles × colliders: never exceeded); set the arrays you use.
#[no_mangle]
pub extern "C" fn xpbd_colliders3_default{S}() -> CollidersC<{T}> {
    default_colliders()
}

/// A self-collision block ({C}): no rest positions, the default pair budget
/// (`XPBD_DEFAULT_PAIRS_PER_PARTICLE` × particles). Its buffers come from
/// the world's memory; it needs `particle_radius > 0`.
#[no_mangle]
pub extern "C" fn xpbd_self_collision3_default{S}() -> SelfCollisionC<{T}> {
    default_self_collision()
}

/// A tearing block ({C}): set `max_force` (one per link, N); `torn` is an
/// optional output.
#[no_mangle]
pub extern "C" fn xpbd_tearing3_default{S}() -> TearingC<{T}> {
    default_tearing()
}

/// An engine contacts block ({C}) with no contact; set `contacts` and
/// `count` each frame.
#[no_mangle]
pub extern "C" fn xpbd_engine_contacts3_default{S}() -> EngineContactsC<{T}> {
    default_engine_contacts()
}

/// A constraint groups block ({C}) with no group; set the arrays of
/// `groups` you use (bends, tets, tethers, mesh volumes, attachments,
/// skinned constraints).
#[no_mangle]
pub extern "C" fn xpbd_groups3_default{S}() -> GroupsC<{T}> {
    default_groups()
}

/// A skinned constraint ({C}) of particle `particle` at the skinned
/// position (`x`, `y`, `z`) (m, previous and target) with the skinned
/// normal (`nx`, `ny`, `nz`) (any length; only a backstop reads it): no
/// max distance (`max_distance` +∞), no backstop (`backstop_radius` 0),
/// rigid, λ 0. Set `max_distance` (0 pins the particle to the skin) and
/// the backstop fields you want. A zeroed struct instead has max distance
/// 0: pinned.
#[no_mangle]
pub extern "C" fn xpbd_skin_constraint_default{S}(
    particle: u32,
    x: {T},
    y: {T},
    z: {T},
    nx: {T},
    ny: {T},
    nz: {T},
) -> SkinConstraint<{T}> {
    SkinConstraint::new(particle, [x, y, z], [nx, ny, nz])
}

/// A wind block ({C}): no triangles, no wind (`velocity` 0, no
/// `particle_velocities`), air (`density` `XPBD_AIR_DENSITY`, 1.225
/// kg/m³). Set `triangles` and `triangle_count` (each from
/// `xpbd_aero_triangle_default{S}`), the frame's `velocity` (m/s) and, if
/// the wind varies over the cloth, `particle_velocities` (m/s,
/// `particle_count` entries). A step refuses a non-finite velocity, a
/// negative or non-finite density, a triangle with an index out of range,
/// two equal indices or a negative or non-finite coefficient, and a
/// non-finite per-particle wind: `XPBD_STATUS_INVALID_WIND`,
/// `error_field` naming the value, `error_index` the triangle or particle.
#[no_mangle]
pub extern "C" fn xpbd_wind3_default{S}() -> WindC<{T}> {
    default_wind()
}

/// A triangle of the wind block ({C}) over particles `a`, `b`, `c` with the
/// default drag coefficient `XPBD_DEFAULT_DRAG_COEFFICIENT` (1.2, a flat
/// plate broadside to the flow) and lift coefficient
/// `XPBD_DEFAULT_LIFT_COEFFICIENT` (0.1); both unitless, change them as
/// you like (finite, ≥ 0).
#[no_mangle]
pub extern "C" fn xpbd_aero_triangle_default{S}(a: u32, b: u32, c: u32) -> AeroTriangle<{T}> {
    AeroTriangle::new([a, b, c])
}

/// A local-space block ({C}): the identity root (`xpbd_transform_identity{S}`)
/// at the frame's start (`local.previous`) and end (`local.target`),
/// full inertia (`local.linear_inertia` and `local.angular_inertia` 1:
/// the world-space simulation), no clamps (`local.max_linear_velocity`,
/// m/s, `local.max_angular_velocity`, rad/s,
/// `local.max_linear_acceleration`, m/s², and
/// `local.max_angular_acceleration`, rad/s², +∞), added velocities 0
/// (`local.linear_velocity`, `local.angular_velocity`), no teleport. Set
/// `local.target` to the root's transform at the frame's end before each
/// step; after a successful step the library writes `local.previous ←
/// local.target`, the added velocities of the frame's last substep and
/// `local.teleport ← 0`. A step refuses a transform not finite or a
/// rotation whose norm is not within 1e-3 of 1
/// (`XPBD_FIELD_ROOT_TRANSFORM`), an inertia outside [0, 1]
/// (`XPBD_FIELD_INERTIA_SCALE`), a velocity limit negative or NaN
/// (`XPBD_FIELD_FRAME_VELOCITY_LIMIT`), an acceleration limit negative or
/// NaN (`XPBD_FIELD_FRAME_ACCELERATION_LIMIT`), an added velocity not
/// finite (`XPBD_FIELD_FRAME_VELOCITY`): `XPBD_STATUS_INVALID_LOCAL_SPACE`,
/// nothing written.
#[no_mangle]
pub extern "C" fn xpbd_local_space3_default{S}() -> LocalSpaceC<{T}> {
    default_local_space()
}

/// The identity transform ({C}): rotation `{0, 0, 0, 1}` (a unit
/// quaternion `[x, y, z, w]`), translation 0 (m).
#[no_mangle]
pub extern "C" fn xpbd_transform_identity{S}() -> Transform<{T}> {
    Transform::identity()
}

/// Adds a block (the `block` member of an `XpbdColliders3{S}`,
/// `XpbdSelfCollision3{S}`, `XpbdTearing3{S}`, `XpbdEngineContacts3{S}`,
/// `XpbdGroups3{S}`, `XpbdWind3{S}` or `XpbdLocalSpace3{S}` made by its
/// `_default` function) at the head of the world's chain: writes `block->next` and `world->blocks`. The block
/// must outlive the world's use. Adding the same kind twice makes the
/// step fail with `XPBD_STATUS_INVALID_BLOCK`.
///
/// Errors: `NULL_POINTER`, `ALIASED_BUFFERS` (the block overlaps the
/// world), `INVALID_BLOCK` (the block is already the head).
///
/// # Safety
/// `world` and `block` are NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn xpbd_world3_add{S}(world: *mut WorldC<{T}>, block: *mut XpbdBlock) -> XpbdStatus {
    // SAFETY: forwarded caller contract (see the function's Safety section).
    unsafe { add_raw(world, block) }
}

/// Every length a 3D {C} world needs: `out->memory_size` (bytes) for
/// `world->memory`, and how it is carved (scratch, contacts, pairs, hash
/// table, ids, adjacency, stamp; entries). Reads the counts and the
/// blocks (the colliders' `contact_budget`, the self-collision's
/// `pair_budget`); call it again when they change.
///
/// Errors: `NULL_POINTER`, `ALIASED_BUFFERS`, `INVALID_BLOCK` (the chain;
/// `world->error_index` its position).
///
/// # Safety
/// `world` is NULL or valid, its blocks valid; `out` is NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn xpbd_world3_requirements{S}(world: *mut WorldC<{T}>, out: *mut XpbdRequirements) -> XpbdStatus {
    // SAFETY: forwarded caller contract (see the function's Safety section).
    unsafe { requirements_raw(world, out) }
}

/// Advances a 3D {C} world by one frame of `dt` seconds, whatever its
/// blocks: `config->substeps` substeps of h = dt / substeps, each
/// (after a local-space block's carry of the particles by the root's
/// scaled motion and a wind block's drag and lift on the velocities)
/// predicting
/// x ← x + h v + h² g, finding contacts, resetting every λ,
/// running `config->iterations` sweeps (links, then the groups, then
/// contacts), and updating v = (x − x_prev)/h with friction and damping.
/// With a tearing block a successful step then disables every enabled
/// link whose |λ|/h² exceeds its maximum (`XPBD_LINK_DISABLED`, indices
/// in `torn`, count in `torn`); with a local-space block it writes the
/// block's `local.previous ← local.target` and `local.teleport ← 0`.
/// `out_stats` may be NULL (written on success only).
///
/// Errors: `NULL_POINTER`, `INVALID_TIME_STEP` (dt), `INVALID_CONFIG`
/// (`error_field` names the value), `INVALID_BLOCK`,
/// `INVALID_SELF_COLLISION`, `INVALID_MAX_FORCE` (naming the link),
/// `INVALID_WIND` (`error_field` and `error_index` name the value),
/// `INVALID_LOCAL_SPACE` (`error_field` names the value),
/// `NON_FINITE_VELOCITY`, `INVALID_COLLIDER`, `CAPACITY_TOO_SMALL`
/// (`error_field` `XPBD_FIELD_MEMORY`, `_CONTACTS` or `_PAIRS`,
/// `error_index` the size or count needed), `ALIASED_BUFFERS`,
/// `WORK_LIMIT`, every system and group error, and `INVALID_RESULT`. On
/// every error positions, velocities, link flags and a local-space block
/// are as before the call, and `world->error_index` / `error_field` name
/// what is concerned.
///
/// # Safety
/// `world` and `config` are NULL or valid; the world's buffers and blocks
/// are NULL (with count 0) or valid for their counts; `out_stats` is NULL
/// or valid.
#[no_mangle]
pub unsafe extern "C" fn xpbd_world3_step{S}(
    world: *mut WorldC<{T}>,
    dt: {T},
    config: *const StepConfigC<{T}>,
    out_stats: *mut StepStats<{T}>,
) -> XpbdStatus {
    // SAFETY: forwarded caller contract (see the function's Safety section).
    unsafe { step_raw(world, dt, config, out_stats) }
}

/// Advances a 3D {C} world by one frame in **colored order**, its phases
/// run as tasks on the engine's job system: `xpbd_world3_step{S}` with the
/// links and the bends, tets and tethers of the groups block solved color
/// by color (each stored in colored order, its boundaries in `*colors`),
/// the phases (prediction, each color of each group, the velocity update)
/// split into at most `jobs->split` tasks (≤ `XPBD_MAX_JOBS`) that
/// `jobs->run` runs on the engine's threads (`jobs` NULL: this thread).
/// The result is bit-identical to `xpbd_world3_step{S}` on the same world
/// and to the Rust `xpbd::step::step_colored`, for every split and thread
/// count. The coloring is checked proper once per frame. `out_stats` may
/// be NULL (written on success only).
///
/// Errors: those of `xpbd_world3_step{S}`; `NULL_POINTER` for a NULL
/// `colors`; `INVALID_ARGUMENT` for bad boundaries or an improper color;
/// `INDEX_OUT_OF_RANGE` / `SAME_PARTICLE` from the coloring check;
/// `JOB_CONTRACT` when `jobs->run` returned without running a task;
/// `ALIASED_BUFFERS` when the boundaries or `*jobs` overlap another
/// buffer. On every error positions and velocities are as before the call.
///
/// # Safety
/// As `xpbd_world3_step{S}`; `colors` valid with its arrays; `jobs` NULL or
/// valid, its `run` NULL or a function that runs every task once and
/// returns after all have returned (running one after it returned, or two
/// at once with the same index, is undefined behaviour).
#[no_mangle]
pub unsafe extern "C" fn xpbd_world3_step_colored{S}(
    world: *mut WorldC<{T}>,
    colors: *const XpbdGroupColors,
    dt: {T},
    config: *const StepConfigC<{T}>,
    jobs: *const XpbdJobSystem,
    out_stats: *mut StepStats<{T}>,
) -> XpbdStatus {
    // SAFETY: forwarded caller contract (see the function's Safety section).
    unsafe { step_colored_raw(world, colors, dt, config, jobs, out_stats) }
}

/// The precision diagnostic of a 3D {C} world: `*out_ratio` receives the
/// float spacing (one ulp, m) at the particle farthest from the origin
/// divided by the world's shortest length (the positive
/// `config->particle_radius`, or the shortest rest length of its links if
/// shorter), `*out_particle` that particle. Above `XPBD_PRECISION_LIMIT` (1e-3) the positions are too
/// coarse for the lengths simulated: a rope far from the origin jitters or
/// freezes. Simulate in local coordinates (or in double). Reads only.
///
/// Returns `XPBD_STATUS_OK`, `XPBD_STATUS_SKIPPED` (no particles, or no
/// length: radius 0 and no links; nothing written), `NULL_POINTER`,
/// `NON_FINITE_POSITION`, `ALIASED_BUFFERS` (the outputs overlap a buffer,
/// the world, the configuration or each other), `INVALID_ARGUMENT`.
///
/// # Safety
/// `world` and `config` NULL or valid; the world's positions and links
/// valid for their counts; the outputs NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn xpbd_world3_precision{S}(
    world: *const WorldC<{T}>,
    config: *const StepConfigC<{T}>,
    out_ratio: *mut {T},
    out_particle: *mut usize,
) -> XpbdStatus {
    // SAFETY: forwarded caller contract (see the function's Safety section).
    unsafe { precision_raw(world, config, out_ratio, out_particle) }
}
"#;

/// The colored entry points, per precision.
const COLORED: &str = r#"
/// Starts a substep of length `h` (s) for a colored 3D {C} system: checks
/// the buffers and the coloring (proper, indices in range, boundaries),
/// validates every particle and link as `xpbd_system3_begin_substep{S}`
/// does, then writes α̃ = α/h² and 1/(w_i + w_j + α̃) per link, sets every λ
/// to 0 and records `h`.
///
/// Returns `XPBD_STATUS_OK`, or an error naming the particle or link in
/// `system->error_index` (`INVALID_ARGUMENT` for an improper coloring or
/// bad boundaries); on error no position, λ or α̃ is written and
/// `substep_active` is cleared.
///
/// # Safety
/// `system` is NULL or valid; its buffers are NULL (with count 0) or valid
/// for their counts.
#[no_mangle]
pub unsafe extern "C" fn xpbd_simd_links3_begin_substep{S}(system: *mut SimdLinksC<{T}>, h: {T}) -> XpbdStatus {
    // SAFETY: forwarded caller contract (see the function's Safety section).
    unsafe { colored_begin_raw(system, h) }
}

/// One colored sweep of a 3D {C} system on the calling thread: colors in
/// order, each link `Δλ = (−C − α̃λ)·g`, `x_i −= w_i Δλ n`, `x_j += w_j Δλ n`,
/// `λ += Δλ` with `n = d/|d|` computed as `d · (1/|d|)`.
///
/// `out_stats` may be NULL; written on success only; it must not overlap
/// the system or its buffers. Errors: `NO_SUBSTEP`, `ZERO_LENGTH` /
/// `INVALID_RESULT` (the link, in `error_index`, is untouched, the rest of
/// its color applied, later colors not run), `INDEX_OUT_OF_RANGE` /
/// `SAME_PARTICLE` if the links were changed since begin_substep.
///
/// # Safety
/// As `xpbd_simd_links3_begin_substep{S}`; `out_stats` is NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn xpbd_simd_links3_iterate{S}(system: *mut SimdLinksC<{T}>, out_stats: *mut SweepStats<{T}>) -> XpbdStatus {
    // SAFETY: forwarded caller contract (see the function's Safety section).
    unsafe { colored_iterate_raw(system, out_stats) }
}

/// Solves job `job` of `job_count` of color `color` of an active colored
/// {C} system: the color's links split into `job_count` disjoint ranges on
/// 64-link boundaries (`xpbd_job_range`). Thread-safe between jobs of one
/// color: reads `*system` only, writes this range's particles and λ,
/// `*out_stats` (may be NULL) on success, `*out_error_index` (may be NULL)
/// on a link error; neither output may overlap the system, its buffers or
/// each other. Run every job of a color, wait for all, then the next
/// color: bit-identical to `xpbd_simd_links3_iterate{S}` for any job count.
/// Merge the stats with `xpbd_sweep_stats_merge{S}`.
///
/// Errors: `NO_SUBSTEP`, `INVALID_ARGUMENT` (color or job out of range),
/// and the link errors of `xpbd_simd_links3_iterate{S}` for this range.
///
/// # Safety
/// As `xpbd_simd_links3_iterate{S}`; jobs of different colors never run at once.
#[no_mangle]
pub unsafe extern "C" fn xpbd_simd_links3_solve_job{S}(
    system: *const SimdLinksC<{T}>,
    color: usize,
    job: usize,
    job_count: usize,
    out_stats: *mut SweepStats<{T}>,
    out_error_index: *mut usize,
) -> XpbdStatus {
    // SAFETY: forwarded caller contract (see the function's Safety section).
    unsafe { colored_job_raw(system, color, job, job_count, out_stats, out_error_index) }
}

/// Sets the SIMD kernels of a colored {C} system's solving calls
/// (`system->simd`): `simd` is a set of `XPBD_SIMD_*` bits, 0 for the
/// baseline kernel; every set gives the same bits. Checks the bits against
/// the CPU (cpuid and xgetbv, as `xpbd_simd_detect`: call it once, not per
/// substep) and refuses, writing nothing, a bit the CPU or OS lacks or
/// this version does not define: `XPBD_STATUS_UNSUPPORTED_FLAG`. May be
/// called at any time except while a job of the system runs (the struct is
/// written).
///
/// # Safety
/// `system` is NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn xpbd_simd_links3_set_simd{S}(system: *mut SimdLinksC<{T}>, simd: u32) -> XpbdStatus {
    // SAFETY: forwarded caller contract (see the function's Safety section).
    unsafe { colored_set_simd_raw(system, simd) }
}

/// `*acc` ← the merge of `*acc` and `*part` ({C} stats; counts add, maxima
/// take the larger): combines the stats of the jobs of one sweep,
/// independent of how it was split. `acc` and `part` may be the same.
///
/// # Safety
/// Each pointer is NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn xpbd_sweep_stats_merge{S}(acc: *mut SweepStats<{T}>, part: *const SweepStats<{T}>) -> XpbdStatus {
    // SAFETY: forwarded caller contract (see the function's Safety section).
    unsafe { merge_raw(acc, part) }
}

/// Greedy coloring of any {C} link list (each link takes the smallest color
/// neither particle has; at most 64 colors). `scratch`: `particle_count`
/// `uint64_t`; `colors`: `link_count` entries. On error nothing but the
/// scratch is written.
///
/// # Safety
/// `links` valid for `link_count` reads, `scratch` for `particle_count`
/// writes, `colors` for `link_count` writes, `out_color_count` valid.
#[no_mangle]
pub unsafe extern "C" fn xpbd_color_greedy{S}(
    links: *const Link<{T}>,
    link_count: usize,
    particle_count: usize,
    scratch: *mut u64,
    colors: *mut u32,
    out_color_count: *mut u32,
) -> XpbdStatus {
    // SAFETY: forwarded caller contract (see the function's Safety section).
    unsafe { greedy_raw(links, link_count, None, particle_count, scratch, colors, out_color_count) }
}

/// Greedy coloring of a {C} link list over the moving particles, for
/// `xpbd_world3_step_colored{S}`: as `xpbd_color_greedy{S}` (each link takes
/// the smallest color neither particle has; at most 64 colors), except
/// that a particle whose inverse mass is exactly 0 is static (no kernel of
/// the colored step writes it) and no conflict, so links that share only
/// static particles may take one color (every link hanging from one
/// pinned particle, say). `inverse_masses`: `particle_count` values in
/// 1/kg (the world's); `scratch`: `particle_count` `uint64_t`; `colors`:
/// `link_count` entries (`colors[k]` the color of link k);
/// `*out_color_count` the number of colors.
///
/// Such a coloring is proper for `xpbd_world3_step_colored{S}` while those
/// particles keep inverse mass 0 (its coloring check ignores them). The
/// other colored paths, `XpbdSimdLinks3` and the colored group system
/// (`xpbd_system3_begin_substep_colored{S}`), refuse a particle twice in a
/// color even when static: color for them with `xpbd_color_greedy{S}`.
///
/// Errors, with nothing but the scratch written: `NULL_POINTER` (NULL
/// `out_color_count`, or an array NULL with a non-zero count:
/// `inverse_masses` with `particle_count > 0`), `ALIASED_BUFFERS`,
/// `INVALID_ARGUMENT` (more than 64 colors, a misaligned buffer),
/// `INDEX_OUT_OF_RANGE` and `SAME_PARTICLE` (a bad link).
///
/// # Safety
/// `links` valid for `link_count` reads, `inverse_masses` for
/// `particle_count` reads, `scratch` for `particle_count` writes, `colors`
/// for `link_count` writes, `out_color_count` NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn xpbd_color_greedy_moving{S}(
    links: *const Link<{T}>,
    link_count: usize,
    inverse_masses: *const {T},
    particle_count: usize,
    scratch: *mut u64,
    colors: *mut u32,
    out_color_count: *mut u32,
) -> XpbdStatus {
    // SAFETY: forwarded caller contract (see the function's Safety section).
    unsafe { greedy_raw(links, link_count, Some(inverse_masses), particle_count, scratch, colors, out_color_count) }
}

/// Copies {C} links into colored SoA arrays: position k receives link
/// `order[k]` (i, j, rest, compliance; λ = 0); a tension-only link's rest
/// length is stored negated, a disabled one's as 0
/// (`XpbdSimdLinks3::rest`). All outputs have `link_count` entries.
/// Flag bits other than `XPBD_LINK_TENSION_ONLY` and `XPBD_LINK_DISABLED`
/// are `XPBD_STATUS_INVALID_ARGUMENT`. Nothing is written on error.
///
/// # Safety
/// `links` valid for `source_count` reads, the others for `link_count`.
#[no_mangle]
pub unsafe extern "C" fn xpbd_colored_links_fill{S}(
    links: *const Link<{T}>,
    source_count: usize,
    order: *const u32,
    link_count: usize,
    i: *mut u32,
    j: *mut u32,
    rest: *mut {T},
    compliance: *mut {T},
    lambda: *mut {T},
) -> XpbdStatus {
    // SAFETY: forwarded caller contract (see the function's Safety section).
    unsafe { fill_raw(links, source_count, order, link_count, i, j, rest, compliance, lambda) }
}
"#;

/// The path of the generated file, relative to the workspace root.
pub const OUTPUT: &str = "src/ffi/generated.rs";

/// The whole text of `src/ffi/generated.rs`.
#[must_use]
pub fn generate() -> String {
    let mut out = String::from(
        r#"//! Generated by `tools/ffi-gen` (`cargo run -p xpbd-ffi-gen`); do not edit.
//! The `extern "C"` entry points that exist once per precision (and per
//! dimension for systems): each is one call of a generic function of its
//! area's file, where the checks are. `tools/ffi-gen/tests/drift.rs` fails
//! when this file differs from what the generator writes.

use super::colored::{colored_begin_raw, colored_iterate_raw, colored_job_raw, colored_set_simd_raw, fill_raw, greedy_raw, merge_raw};
use super::colored_groups::{begin_colored_raw, color_group_raw, group_job_raw, iterate_colored_raw};
use super::constraints::{
    build_bends_cloth_raw, build_icosphere_raw, build_mesh_volume_raw, build_tet_block_raw, MeshList, build_tethers_raw, build_tethers_along_links_raw, Grouped,
    build_bends_from_triangles_raw, build_links_from_tets_raw, build_links_from_triangles_raw, build_tets_raw,
};
use super::distance::{distance_begin, distance_solve};
use super::status::XpbdStatus;
use super::step::{
    add_raw, default_colliders, default_config, default_engine_contacts, default_groups, default_self_collision,
    default_local_space, default_tearing, default_wind, default_world, precision_raw, requirements_raw, step_colored_raw, step_raw,
};
use super::system::{begin_substep_raw, build_raw, iterate_raw, iterate_until_raw, measure_raw};
use super::types::{SimdLinksC, ConstraintsC, DistanceConstraintC, StepConfigC, SystemC, XpbdGroupColors, XpbdJobSystem};
use super::world::{CollidersC, EngineContactsC, GroupsC, LocalSpaceC, SelfCollisionC, TearingC, WindC, WorldC, XpbdBlock, XpbdRequirements};
use crate::constraint::bend::Bend;
use crate::constraint::skin::SkinConstraint;
use crate::constraint::pressure::MeshVolume;
use crate::constraint::tether::Tether;
use crate::constraint::volume::Tet;
use crate::build::Shape;
use crate::solver::{Convergence, Link, SweepStats};
use crate::step::{AeroTriangle, StepStats, Transform};
"#,
    );
    let sections: [(&str, &str, &[usize]); 6] = [
        ("1D seed solver", DISTANCE, &[0]),
        ("systems", SYSTEM, &[2, 3]),
        ("stepping", STEP, &[0]),
        ("colored solving", COLORED, &[0]),
        ("constraint groups", GROUPS, &[3]),
        ("colored constraint groups", COLORED_GROUPS, &[3]),
    ];
    for (title, template, dims) in sections {
        let _ = write!(out, "\n// ---- {title} ----\n");
        for &d in dims {
            for p in PRECISIONS {
                let vars = [
                    ("T", p.t.to_string()),
                    ("C", p.c.to_string()),
                    ("S", p.suffix.to_string()),
                    ("D", d.to_string()),
                ];
                out.push_str(&fill(template, &vars));
            }
        }
    }
    out
}
