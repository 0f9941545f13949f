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
/// The default step configuration ({C}): gravity (0, −9.81, 0) m/s²,
/// 20 substeps of 1 iteration (a rigid 20-link rope released horizontally
/// stretches at most 1.0 % over 2 s at 60 frames/s; with 1 substep, the
/// default until December 2026, 128 %: set `substeps = 1` for it), no tolerance, no
/// damping, radius 0, rigid frictionless contacts,
/// `XPBD_ZERO_LENGTH_REJECT`, `XPBD_CONTACT_OVERFLOW_REJECT`.
#[no_mangle]
pub extern "C" fn xpbd_step_config3_default{S}() -> StepConfigC<{T}> {
    default_config()
}

/// Advances a 3D {C} world by one frame of `dt` seconds: `config->substeps`
/// substeps of h = dt / substeps, each predicting x ← x + h v + h² g,
/// finding contacts, resetting every λ, running `config->iterations` sweeps
/// (links, then contacts), and updating v = (x − x_prev)/h with friction and
/// damping. More contacts than `contact_capacity`: the step fails, or with
/// `XPBD_CONTACT_OVERFLOW_KEEP_FIRST` the first ones in detection order
/// are kept and the others counted in `contacts_dropped`. With
/// `world->link_max_force`, a successful step then disables every enabled
/// link whose |λ|/h² exceeds its maximum (`XPBD_LINK_DISABLED`, indices
/// in `world->torn`, count in `torn`). `out_stats` may be NULL (written on
/// success only).
///
/// Errors: `NULL_POINTER`, `INVALID_TIME_STEP` (dt), `INVALID_ARGUMENT`
/// (config, a maximum force naming its link), `NON_FINITE_VELOCITY`,
/// `INVALID_COLLIDER`, `CAPACITY_TOO_SMALL` (scratch or contacts),
/// `ALIASED_BUFFERS`, every system error, and `INVALID_RESULT`. On every
/// error positions, velocities and link flags are as before the call, and
/// `world->error_index` names the item concerned.
///
/// # Safety
/// `world` and `config` are NULL or valid; the world's buffers are NULL (with
/// count 0) or valid for their counts; `out_stats` is NULL or valid.
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
pub unsafe extern "C" fn xpbd_colored3_begin_substep{S}(system: *mut ColoredSystemC<{T}>, h: {T}) -> XpbdStatus {
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
/// As `xpbd_colored3_begin_substep{S}`; `out_stats` is NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn xpbd_colored3_iterate{S}(system: *mut ColoredSystemC<{T}>, out_stats: *mut SweepStats<{T}>) -> XpbdStatus {
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
/// color: bit-identical to `xpbd_colored3_iterate{S}` for any job count.
/// Merge the stats with `xpbd_sweep_stats_merge{S}`.
///
/// Errors: `NO_SUBSTEP`, `INVALID_ARGUMENT` (color or job out of range),
/// and the link errors of `xpbd_colored3_iterate{S}` for this range.
///
/// # Safety
/// As `xpbd_colored3_iterate{S}`; jobs of different colors never run at once.
#[no_mangle]
pub unsafe extern "C" fn xpbd_colored3_solve_job{S}(
    system: *const ColoredSystemC<{T}>,
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
pub unsafe extern "C" fn xpbd_colored3_set_simd{S}(system: *mut ColoredSystemC<{T}>, simd: u32) -> XpbdStatus {
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
    unsafe { greedy_raw(links, link_count, particle_count, scratch, colors, out_color_count) }
}

/// Copies {C} links into colored SoA arrays: position k receives link
/// `order[k]` (i, j, rest, compliance; λ = 0); a tension-only link's rest
/// length is stored negated, a disabled one's as 0
/// (`XpbdColoredSystem3::rest`). All outputs have `link_count` entries.
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

/// The constraint-group entry points (3D), per precision.
const GROUPS: &str = r#"
/// Starts a substep of length `h` (s) for a 3D {C} system with constraint
/// groups: validates every particle and link as
/// `xpbd_system3_begin_substep{S}` does, then every bend, tet, tether and
/// mesh volume of `*groups` (indices, rest value, compliance), then sets
/// the λ of every link and every group constraint to 0 and records `h`.
/// This is the only call that resets a group's λ.
///
/// Returns `XPBD_STATUS_OK` or an error: `NULL_POINTER` (`system` or
/// `groups` NULL, or an array NULL with a non-zero count),
/// `ALIASED_BUFFERS` (an array of `*groups` overlapping another, `*groups`,
/// a buffer of the system or `*system`), `INVALID_ARGUMENT` (policy code,
/// misaligned array), every error of `xpbd_system3_begin_substep{S}`, then
/// for the groups `INDEX_OUT_OF_RANGE`, `SAME_PARTICLE`,
/// `INVALID_REST_VALUE`, `INVALID_COMPLIANCE`, `UNREPRESENTABLE_SCALE` and
/// `CAPACITY_TOO_SMALL` (mesh scratch shorter than the particles).
/// `system->error_index` names the particle, the link, the group
/// constraint by its index after the links (with L links and B bends,
/// bend k is L + k, tet k is L + B + k, and so on: see
/// `XpbdConstraints3`), or the scratch count needed. On error no position
/// or λ is written and `system->substep_active` is cleared.
///
/// # Safety
/// `system` and `groups` are NULL or valid; every array of both is NULL
/// (with count 0) or valid for its count.
#[no_mangle]
pub unsafe extern "C" fn xpbd_system3_begin_substep_groups{S}(
    system: *mut SystemC<{T}, 3>,
    groups: *const ConstraintsC<{T}>,
    h: {T},
) -> XpbdStatus {
    // SAFETY: forwarded caller contract (see the function's Safety section).
    unsafe { begin_substep_raw(Grouped::new(system, groups), h) }
}

/// One solver iteration of a 3D {C} system with constraint groups: a
/// Gauss-Seidel sweep over the links, then the bends, tets, tethers and
/// mesh volumes of `*groups`, each in array order, with the substep's `h`
/// (α̃ = α/h²), keeping every λ: nothing is reset here.
///
/// Pass the groups `xpbd_system3_begin_substep_groups{S}` validated.
/// `out_stats` may be NULL; it is written on success only and must not
/// overlap the system, the groups or any of their arrays
/// (`ALIASED_BUFFERS`); its residuals are in each constraint's unit (m for
/// links and tethers). Errors: `NULL_POINTER`, `NO_SUBSTEP` (no successful
/// begin_substep), `INVALID_TIME_STEP` (the struct's `h` is not a positive
/// number), `NON_FINITE_POSITION` (a particle made NaN or infinite since:
/// named, nothing written), `CAPACITY_TOO_SMALL` (mesh scratch),
/// `ZERO_LENGTH` (a link), `DEGENERATE` (a group constraint, under
/// `XPBD_ZERO_LENGTH_REJECT`), `INDEX_OUT_OF_RANGE`, `INVALID_RESULT`,
/// naming the link or group constraint in `system->error_index` (index
/// after the links): the constraints before it in this sweep (the links,
/// then the groups in order) were applied, it and the later ones were not.
///
/// # Safety
/// As `xpbd_system3_begin_substep_groups{S}`; `out_stats` is NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn xpbd_system3_iterate_groups{S}(
    system: *mut SystemC<{T}, 3>,
    groups: *const ConstraintsC<{T}>,
    out_stats: *mut SweepStats<{T}>,
) -> XpbdStatus {
    // SAFETY: forwarded caller contract (see the function's Safety section).
    unsafe { iterate_raw(Grouped::new(system, groups), out_stats) }
}

/// Iterates a 3D {C} system with constraint groups (each sweep as
/// `xpbd_system3_iterate_groups{S}`) until a sweep's `max_residual` (max
/// |C + α̃λ| over the links and group constraints) is at most `tolerance`
/// or `max_iterations` sweeps ran; `out` (may be NULL; must not overlap the
/// system, the groups or their arrays) receives the iterations used and
/// the last sweep's diagnostics, on success only. `INVALID_ARGUMENT` for a
/// NaN, infinite or negative tolerance and `WORK_LIMIT` when
/// `max_iterations > XPBD_MAX_ITERATIONS` or `max_iterations` × (links +
/// group constraints) > `XPBD_MAX_WORK`, both before anything is written;
/// otherwise the errors of `xpbd_system3_iterate_groups{S}` (earlier
/// sweeps stay applied). Never resets λ.
///
/// # Safety
/// As `xpbd_system3_iterate_groups{S}`.
#[no_mangle]
pub unsafe extern "C" fn xpbd_system3_iterate_until_groups{S}(
    system: *mut SystemC<{T}, 3>,
    groups: *const ConstraintsC<{T}>,
    tolerance: {T},
    max_iterations: u32,
    out: *mut Convergence<{T}>,
) -> XpbdStatus {
    // SAFETY: forwarded caller contract (see the function's Safety section).
    unsafe { iterate_until_raw(Grouped::new(system, groups), tolerance, max_iterations, out) }
}

/// The diagnostics a sweep of a 3D {C} system with constraint groups would
/// report now (links, then groups), with nothing changed; `out_stats` is
/// required, must not overlap the system, the groups or their arrays, and
/// is written on success only. Errors as
/// `xpbd_system3_iterate_groups{S}`; nothing is written in any case but
/// `system->error_index`.
///
/// # Safety
/// As `xpbd_system3_iterate_groups{S}`.
#[no_mangle]
pub unsafe extern "C" fn xpbd_system3_measure_groups{S}(
    system: *mut SystemC<{T}, 3>,
    groups: *const ConstraintsC<{T}>,
    out_stats: *mut SweepStats<{T}>,
) -> XpbdStatus {
    // SAFETY: forwarded caller contract (see the function's Safety section).
    unsafe { measure_raw(Grouped::new(system, groups), out_stats) }
}

/// Advances a 3D {C} world with constraint groups by one frame of `dt`
/// seconds, as `xpbd_world3_step{S}` does, each iteration sweeping the
/// links, then the bends, tets, tethers and mesh volumes of `*groups`
/// (array order), then the contacts. Every group's λ is reset at each
/// substep entry with the links' and kept across that substep's
/// iterations. The groups are validated with the links (at the first
/// substeps' h = dt / substeps) before anything is written, and count in
/// the work limit: sweeps × (links + contact capacity + group
/// constraints) ≤ `XPBD_MAX_WORK`. `out_stats` may be NULL (written on
/// success only).
///
/// Errors: those of `xpbd_world3_step{S}`, `NULL_POINTER` for a NULL
/// `groups` (or an array NULL with a non-zero count), `ALIASED_BUFFERS`
/// (an array of `*groups` overlapping another, `*groups`, a buffer of the
/// world, `*world`, `*config` or `*out_stats`), and the group errors of
/// `xpbd_system3_begin_substep_groups{S}`; `world->error_index` names the
/// item concerned (a group constraint by its index after the links). On
/// every error positions and velocities are as before the call.
///
/// # Safety
/// As `xpbd_world3_step{S}`; `groups` is NULL or valid, its arrays NULL
/// (with count 0) or valid for their counts.
#[no_mangle]
pub unsafe extern "C" fn xpbd_world3_step_groups{S}(
    world: *mut WorldC<{T}>,
    groups: *const ConstraintsC<{T}>,
    dt: {T},
    config: *const StepConfigC<{T}>,
    out_stats: *mut StepStats<{T}>,
) -> XpbdStatus {
    // SAFETY: forwarded caller contract (see the function's Safety section).
    unsafe { step_groups_raw(world, groups, dt, config, out_stats) }
}

/// Advances a 3D {C} world with constraint groups by one frame in
/// **colored order**, its phases run as tasks on the engine's job system:
/// `xpbd_world3_step_groups{S}` with the links and the bends, tets and
/// tethers of `*groups` solved color by color (each stored in colored
/// order, its boundaries in `*colors`), the phases (prediction, each
/// color of each group, the velocity update) split into at most
/// `jobs->split` tasks (≤ `XPBD_MAX_JOBS`) that `jobs->run` runs on the
/// engine's threads (`jobs` NULL: this thread). The result is
/// bit-identical to `xpbd_world3_step_groups{S}` on the same world and to
/// the Rust `xpbd::step::step_colored`, for every split and thread count.
/// The coloring is checked proper once per frame (`stamp`: scratch of
/// `stamp_count` ≥ particle_count entries, clobbered). `out_stats` may be
/// NULL (written on success only).
///
/// Errors: those of `xpbd_world3_step_groups{S}`; `NULL_POINTER` for a
/// NULL `colors`; `INVALID_ARGUMENT` for bad boundaries, a short `stamp`
/// or an improper color; `INDEX_OUT_OF_RANGE` / `SAME_PARTICLE` from the
/// coloring check; `JOB_CONTRACT` when `jobs->run` returned without
/// running a task; `ALIASED_BUFFERS` when the boundaries, `stamp` or
/// `*jobs` overlap another buffer. On every error positions and
/// velocities are as before the call.
///
/// # Safety
/// As `xpbd_world3_step_groups{S}`; `colors` valid with its arrays;
/// `stamp` valid for `stamp_count` entries; `jobs` NULL or valid, its
/// `run` NULL or a function that runs every task once and returns after
/// all have returned (running one after it returned, or two at once with
/// the same index, is undefined behaviour).
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn xpbd_world3_step_colored{S}(
    world: *mut WorldC<{T}>,
    groups: *const ConstraintsC<{T}>,
    colors: *const XpbdGroupColors,
    stamp: *mut u32,
    stamp_count: usize,
    dt: {T},
    config: *const StepConfigC<{T}>,
    jobs: *const XpbdJobSystem,
    out_stats: *mut StepStats<{T}>,
) -> XpbdStatus {
    // SAFETY: forwarded caller contract (see the function's Safety section).
    unsafe {
        step_colored_raw(
            world, groups, colors, stamp, stamp_count, dt, config, jobs, out_stats,
        )
    }
}

/// Writes one long-range tether per moving particle (`inverse_masses[k] !=
/// 0`) that is not itself an anchor, of a 3D {C} rest shape, in particle
/// order: particle k is kept
/// within `max_distance` of the nearest particle of `anchors` (Euclidean
/// distance in `positions`, m; the first of equals), `max_distance` being
/// that distance, with the given `compliance` (m/N) and λ = 0.
/// `positions` holds 3·particle_count coordinates (x0, y0, z0, x1, …; pass
/// `&x[0][0]` for a `{C} x[n][3]` array, as for `xpbd_build_cloth3{S}`),
/// `inverse_masses` (1/kg) `particle_count` entries, `anchors`
/// `anchor_count` particle indices (usually the pinned particles; a
/// moving anchor gets no tether); all are only read. `*out_count`
/// receives the number written.
///
/// Errors, with nothing written: `NULL_POINTER`, `ALIASED_BUFFERS` (any
/// two buffers overlap), `INVALID_ARGUMENT` (no anchor, an anchor ≥
/// `particle_count`, more than 2^32 − 1 particles, a misaligned buffer),
/// `INVALID_COMPLIANCE` (NaN, infinite or negative), `NON_FINITE_POSITION`,
/// `CAPACITY_TOO_SMALL` (`capacity` below the tethers needed).
///
/// # Safety
/// `positions` valid for 3·particle_count values, `inverse_masses` for
/// `particle_count`, `anchors` for `anchor_count`, `out` for `capacity`,
/// `out_count` for one `size_t`.
#[no_mangle]
pub unsafe extern "C" fn xpbd_build_tethers3{S}(
    positions: *const {T},
    inverse_masses: *const {T},
    particle_count: usize,
    anchors: *const u32,
    anchor_count: usize,
    compliance: {T},
    out: *mut Tether<{T}>,
    capacity: usize,
    out_count: *mut usize,
) -> XpbdStatus {
    // SAFETY: forwarded caller contract (see the function's Safety section).
    unsafe { build_tethers_raw(positions, inverse_masses, particle_count, anchors, anchor_count, compliance, out, capacity, out_count) }
}

/// Writes one long-range tether per moving particle (`inverse_masses[k] !=
/// 0`) that is not itself an anchor and that a path of `links` reaches from
/// an anchor, of a 3D {T} rest shape, in particle order: particle k is kept
/// within `max_distance` of the anchor nearest **along the links** (the
/// shortest path, each link counting as its length in `positions`, m,
/// summed from the anchor outwards; the first of equals), `max_distance`
/// being that path length, with the given `compliance` (m/N) and λ = 0.
/// A folded rest shape is held at its length along the cloth, not at the
/// straight line through the fold (`xpbd_build_tethers3{S}`). Particles no
/// path reaches get no tether. `*out_count` receives the number written.
///
/// `scratch_distance` and `scratch_anchor` (`scratch_count` entries each,
/// at least `particle_count`) are the library's scratch, overwritten once
/// the inputs are valid (also when `capacity` then turns out too small):
/// after success entry k holds particle k's path length (m) and the
/// position in `anchors` of its anchor (`UINT32_MAX`: unreached).
///
/// Errors, with `out` and `*out_count` not written: `NULL_POINTER`,
/// `ALIASED_BUFFERS` (any two buffers overlap), `INVALID_ARGUMENT` (no
/// anchor, an anchor ≥ `particle_count`, more than 2^32 − 1 particles, a
/// misaligned buffer), `INDEX_OUT_OF_RANGE` / `SAME_PARTICLE` (a link),
/// `DEGENERATE` (a link whose length overflows), `INVALID_COMPLIANCE`,
/// `NON_FINITE_POSITION`, `CAPACITY_TOO_SMALL` (`scratch_count` below
/// `particle_count`, or `capacity` below the tethers needed).
///
/// # Safety
/// `positions` valid for 3·particle_count values, `inverse_masses` for
/// `particle_count`, `links` for `link_count`, `anchors` for
/// `anchor_count`, the scratch arrays for `scratch_count`, `out` for
/// `capacity`, `out_count` for one `size_t`.
#[no_mangle]
pub unsafe extern "C" fn xpbd_build_tethers_along_links3{S}(
    positions: *const {T},
    inverse_masses: *const {T},
    particle_count: usize,
    links: *const Link<{T}>,
    link_count: usize,
    anchors: *const u32,
    anchor_count: usize,
    compliance: {T},
    scratch_distance: *mut {T},
    scratch_anchor: *mut u32,
    scratch_count: usize,
    out: *mut Tether<{T}>,
    capacity: usize,
    out_count: *mut usize,
) -> XpbdStatus {
    // SAFETY: forwarded caller contract (see the function's Safety section).
    unsafe { build_tethers_along_links_raw(positions, inverse_masses, particle_count, links, link_count, anchors, anchor_count, compliance, scratch_distance, scratch_anchor, scratch_count, out, capacity, out_count) }
}

/// Writes one dihedral bend per interior edge of the triangulated
/// `rows × cols` cloth grid of `xpbd_build_cloth3{S}` (particle
/// `r·cols + c`; each cell split along its diagonal (r, c)–(r+1, c+1)), in
/// the order horizontal edges, vertical edges, diagonals: rest angles (rad)
/// from `positions` (m; 3·rows·cols values, x0, y0, z0, x1, …, only read),
/// the given `compliance` (rad²/J) for all, λ = 0. `*out_count` receives
/// the number written, `xpbd_bends_cloth_count(rows, cols)`.
///
/// Errors, with nothing written: `NULL_POINTER`, `ALIASED_BUFFERS` (any
/// two buffers overlap), `INVALID_ARGUMENT` (`rows < 2`, `cols < 2`,
/// more than 2^32 − 1 particles, a misaligned buffer),
/// `INVALID_COMPLIANCE`, `CAPACITY_TOO_SMALL`, `NON_FINITE_POSITION`,
/// `DEGENERATE` (a triangle with no area).
///
/// # Safety
/// `positions` valid for 3·rows·cols values, `out` for `capacity`,
/// `out_count` for one `size_t`.
#[no_mangle]
pub unsafe extern "C" fn xpbd_build_bends_cloth3{S}(
    positions: *const {T},
    rows: usize,
    cols: usize,
    compliance: {T},
    out: *mut Bend<{T}>,
    capacity: usize,
    out_count: *mut usize,
) -> XpbdStatus {
    // SAFETY: forwarded caller contract (see the function's Safety section).
    unsafe { build_bends_cloth_raw(positions, rows, cols, compliance, out, capacity, out_count) }
}

/// Writes a box of `nx × ny × nz` cubes of side `spacing` (m) from
/// `origin` (3 values, its minimum corner, m): `(nx+1)(ny+1)(nz+1)`
/// particles into `out_positions` (3 values each, particle
/// `i + (nx+1)(j + (ny+1)k)` at `origin + spacing·(i, j, k)`) and 6 tets
/// per cube into `out_tets`, each with positive volume, its rest volume
/// (m³) from the positions, the given `compliance` (m⁶/J) and λ = 0. No
/// inverse masses are written: the caller chooses them.
/// `*out_particle_count` and `*out_tet_count` receive the counts
/// (`xpbd_tet_block_counts`).
///
/// Errors, with nothing written: `NULL_POINTER`, `ALIASED_BUFFERS`,
/// `INVALID_ARGUMENT` (a zero dimension, a count overflow, more than
/// 2^32 − 1 particles, a spacing not finite and positive, a misaligned
/// buffer), `INVALID_COMPLIANCE`, `CAPACITY_TOO_SMALL` (positions, then
/// tets), `NON_FINITE_POSITION`, `INVALID_REST_VALUE` (a tet volume that
/// rounds to 0 or overflows).
///
/// # Safety
/// `origin` valid for 3 values, `out_positions` for 3·position_capacity,
/// `out_tets` for `tet_capacity`, each count for one `size_t`.
#[no_mangle]
pub unsafe extern "C" fn xpbd_build_tet_block{S}(
    nx: usize,
    ny: usize,
    nz: usize,
    spacing: {T},
    origin: *const {T},
    compliance: {T},
    out_positions: *mut {T},
    position_capacity: usize,
    out_tets: *mut Tet<{T}>,
    tet_capacity: usize,
    out_particle_count: *mut usize,
    out_tet_count: *mut usize,
) -> XpbdStatus {
    // SAFETY: forwarded caller contract (see the function's Safety section).
    unsafe {
        build_tet_block_raw(nx, ny, nz, spacing, origin, compliance, out_positions, position_capacity, out_tets, tet_capacity, out_particle_count, out_tet_count)
    }
}

/// Writes into `*out` one closed-mesh volume constraint over
/// `triangles[first .. first + count]` (`triangles` holds
/// 3·triangle_count particle indices, counter-clockwise seen from outside),
/// rest volume V₀ (m³) the enclosed volume at `positions` (m;
/// 3·particle_count values), target volume `pressure`·V₀, the given
/// `compliance` (m³/Pa), λ = 0; and the mesh's particle list (its
/// distinct particles once each, in the order they first appear in its
/// triangles; `XpbdConstraints3.mesh_particles`) into
/// `out_particles[first_particle ..]` (`particle_list_capacity` entries in
/// all), found with marks in `scratch` (the mesh scratch, 3 values per
/// entry, `scratch_count` ≥ `particle_count` entries; its contents after
/// are unspecified). `out->first_particle` and `out->particle_count` name
/// the list. The other inputs are only read.
///
/// Errors, with nothing written but the scratch: `NULL_POINTER`,
/// `ALIASED_BUFFERS`, `INVALID_ARGUMENT` (the range outside `triangles` or
/// below 4 triangles, a misaligned buffer), `INDEX_OUT_OF_RANGE`,
/// `SAME_PARTICLE`, `NON_FINITE_POSITION`, `INVALID_REST_VALUE` (a volume
/// or pressure factor not finite and positive: a clockwise mesh),
/// `INVALID_COMPLIANCE`, `CAPACITY_TOO_SMALL` (a short scratch or particle
/// list array).
///
/// # Safety
/// `triangles` valid for 3·triangle_count indices, `positions` for
/// 3·particle_count values, `out_particles` for particle_list_capacity
/// entries, `scratch` for 3·scratch_count values, `out` for one struct.
#[no_mangle]
pub unsafe extern "C" fn xpbd_build_mesh_volume{S}(
    triangles: *const u32,
    triangle_count: usize,
    first: u32,
    count: u32,
    positions: *const {T},
    particle_count: usize,
    pressure: {T},
    compliance: {T},
    out_particles: *mut u32,
    particle_list_capacity: usize,
    first_particle: u32,
    scratch: *mut {T},
    scratch_count: usize,
    out: *mut MeshVolume<{T}>,
) -> XpbdStatus {
    let list = MeshList { particles: out_particles, capacity: particle_list_capacity, first: first_particle, scratch, scratch_count };
    // SAFETY: forwarded caller contract (see the function's Safety section).
    unsafe { build_mesh_volume_raw(triangles, triangle_count, first, count, positions, particle_count, pressure, compliance, list, out) }
}

/// Writes a geodesic sphere: every edge of the regular icosahedron split
/// into `frequency` segments, every point projected onto the sphere of
/// `radius` (m) about `center` (3 values, m). `10f² + 2` particles into
/// `out_positions` (3 values each: the 12 corners, then the edge points,
/// then the face points) and `20f²` triangles into `out_triangles` (3
/// indices each, counter-clockwise seen from outside, as
/// `xpbd_build_mesh_volume{S}` needs). `*out_particle_count` and
/// `*out_triangle_count` receive the counts (`xpbd_icosphere_counts`).
///
/// Errors, with nothing written: `NULL_POINTER`, `ALIASED_BUFFERS`,
/// `INVALID_ARGUMENT` (frequency 0, an overflow, a radius not finite and
/// positive, a centre not finite or too large, more than 2^32 − 1
/// particles, a misaligned buffer), `CAPACITY_TOO_SMALL` (positions, then
/// triangles).
///
/// # Safety
/// `center` valid for 3 values, `out_positions` for 3·position_capacity,
/// `out_triangles` for 3·triangle_capacity indices, each count for one
/// `size_t`.
#[no_mangle]
pub unsafe extern "C" fn xpbd_build_icosphere{S}(
    frequency: usize,
    radius: {T},
    center: *const {T},
    out_positions: *mut {T},
    position_capacity: usize,
    out_triangles: *mut u32,
    triangle_capacity: usize,
    out_particle_count: *mut usize,
    out_triangle_count: *mut usize,
) -> XpbdStatus {
    // SAFETY: forwarded caller contract (see the function's Safety section).
    unsafe {
        build_icosphere_raw(frequency, radius, center, out_positions, position_capacity, out_triangles, triangle_capacity, out_particle_count, out_triangle_count)
    }
}
"#;

/// The colored group entry points (3D).
const COLORED_GROUPS: &str = r#"
/// Greedy coloring of one group of `*groups` ({C}): `group` is
/// `XPBD_GROUP_BENDS`, `XPBD_GROUP_TETS` or `XPBD_GROUP_TETHERS` (links:
/// `xpbd_color_greedy{S}`, the same pass); each instance, in array order,
/// takes the smallest color none of its particles has yet (at most 64).
/// `scratch`: `particle_count` `uint64_t`; `colors`: the group's count of
/// entries (`colors[k]` the color of instance k); `*out_color_count` the
/// number of colors. Put the group in colored order with
/// `xpbd_color_order` and the permutation it writes.
///
/// Errors, with nothing but the scratch written: `NULL_POINTER`,
/// `ALIASED_BUFFERS`, `INVALID_ARGUMENT` (another group code, scratch
/// shorter than the particles, more than 64 colors, a misaligned buffer),
/// `INDEX_OUT_OF_RANGE` and `SAME_PARTICLE` naming the instance (its
/// position in the group) in `*out_error_index` (may be NULL).
///
/// # Safety
/// `groups` NULL or valid with valid arrays; `scratch` valid for
/// `particle_count` values, `colors` for the group's count,
/// `out_color_count` and `out_error_index` NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn xpbd_color_group{S}(
    groups: *const ConstraintsC<{T}>,
    group: i32,
    particle_count: usize,
    scratch: *mut u64,
    colors: *mut u32,
    out_color_count: *mut u32,
    out_error_index: *mut usize,
) -> XpbdStatus {
    // SAFETY: forwarded caller contract (see the function's Safety section).
    unsafe { color_group_raw(groups, group, particle_count, scratch, colors, out_color_count, out_error_index) }
}

/// Starts a colored substep of length `h` (s) for a 3D {C} system with
/// constraint groups, the links and the bends, tets and tethers stored in
/// colored order with the boundaries of `*colors`: checks the boundaries
/// and that every coloring is proper (no particle twice within a color;
/// `stamp`: `particle_count` `uint32_t` of scratch), then does what
/// `xpbd_system3_begin_substep_groups{S}` does (validation, the one λ
/// reset). Needed before `xpbd_system3_solve_group_job{S}`; the links,
/// groups and boundaries must not change until the substep ends.
///
/// Errors: those of `xpbd_system3_begin_substep_groups{S}`, and
/// `INVALID_ARGUMENT` for bad boundaries or an improper coloring,
/// `INDEX_OUT_OF_RANGE` / `SAME_PARTICLE` naming the constraint in
/// `system->error_index` (links first, then bends, tets, tethers). On
/// error no position or λ is written (the scratch is) and
/// `system->substep_active` is cleared.
///
/// # Safety
/// As `xpbd_system3_begin_substep_groups{S}`; `colors` NULL or valid with
/// valid arrays; `stamp` valid for `particle_count` values.
#[no_mangle]
pub unsafe extern "C" fn xpbd_system3_begin_substep_colored{S}(
    system: *mut SystemC<{T}, 3>,
    groups: *const ConstraintsC<{T}>,
    colors: *const XpbdGroupColors,
    stamp: *mut u32,
    h: {T},
) -> XpbdStatus {
    // SAFETY: forwarded caller contract (see the function's Safety section).
    unsafe { begin_colored_raw(system, groups, colors, stamp, h) }
}

/// One colored iteration of a 3D {C} system with constraint groups: the
/// links, bends, tets and tethers color by color (boundaries of
/// `*colors`, checked on every call), then each mesh volume; on one
/// thread. Without an error the result is bit-identical to
/// `xpbd_system3_iterate_groups{S}` (the groups being in colored order).
/// `out_stats` may be NULL; it is written on success only.
///
/// Errors: those of `xpbd_system3_iterate_groups{S}` and
/// `INVALID_ARGUMENT` (bad boundaries, nothing written). A constraint that
/// cannot be applied is left untouched, the rest of its color is applied,
/// the first such one is named in `system->error_index`, and the later
/// colors are not run.
///
/// # Safety
/// As `xpbd_system3_iterate_groups{S}`; `colors` NULL or valid with valid
/// arrays.
#[no_mangle]
pub unsafe extern "C" fn xpbd_system3_iterate_colored{S}(
    system: *mut SystemC<{T}, 3>,
    groups: *const ConstraintsC<{T}>,
    colors: *const XpbdGroupColors,
    out_stats: *mut SweepStats<{T}>,
) -> XpbdStatus {
    // SAFETY: forwarded caller contract (see the function's Safety section).
    unsafe { iterate_colored_raw(system, groups, colors, out_stats) }
}

/// Solves job `job` of `job_count` of color `color` of group `group`
/// (`XPBD_GROUP_LINKS`, `_BENDS`, `_TETS`, `_TETHERS`, or `_MESHES`, whose
/// color `c` is mesh volume `c`) of a 3D {C} system begun with
/// `xpbd_system3_begin_substep_colored{S}`: the color split on 64-entry
/// boundaries (`xpbd_job_range`). Thread-safe between jobs of one color:
/// reads the three structs only, writes this range's particles and λ,
/// `*out_stats` (may be NULL) on success and `*out_error_index` (may be
/// NULL) on an error. One iteration: every color of the links, then of the
/// bends, tets and tethers, then every mesh color, all jobs of a color
/// finished before the next starts. Bit-identical to
/// `xpbd_system3_iterate_colored{S}` and to the sequential
/// `xpbd_system3_iterate_groups{S}` for any job count and thread count;
/// merge the stats with `xpbd_sweep_stats_merge{S}`.
///
/// Errors: `NULL_POINTER`, `ALIASED_BUFFERS`, `NO_SUBSTEP`,
/// `INVALID_TIME_STEP`, `INVALID_ARGUMENT` (unknown group, color or job
/// out of range, bad boundaries), `CAPACITY_TOO_SMALL` (mesh scratch), and
/// the errors of `xpbd_system3_iterate_colored{S}` for this range (the
/// range is completed; the first failing constraint is named).
///
/// # Safety
/// As `xpbd_system3_iterate_colored{S}`; jobs of different colors never
/// run at once.
#[no_mangle]
pub unsafe extern "C" fn xpbd_system3_solve_group_job{S}(
    system: *const SystemC<{T}, 3>,
    groups: *const ConstraintsC<{T}>,
    colors: *const XpbdGroupColors,
    group: i32,
    color: usize,
    job: usize,
    job_count: usize,
    out_stats: *mut SweepStats<{T}>,
    out_error_index: *mut usize,
) -> XpbdStatus {
    // SAFETY: forwarded caller contract (see the function's Safety section).
    unsafe { group_job_raw(system, groups, colors, group, color, job, job_count, out_stats, out_error_index) }
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
};
use super::distance::{distance_begin, distance_solve};
use super::status::XpbdStatus;
use super::step::{default_config, precision_raw, step_colored_raw, step_groups_raw, step_raw};
use super::system::{begin_substep_raw, build_raw, iterate_raw, iterate_until_raw, measure_raw};
use super::types::{ColoredSystemC, ConstraintsC, DistanceConstraintC, StepConfigC, SystemC, WorldC, XpbdGroupColors, XpbdJobSystem};
use crate::constraint::bend::Bend;
use crate::constraint::pressure::MeshVolume;
use crate::constraint::tether::Tether;
use crate::constraint::volume::Tet;
use crate::solver::{Convergence, Link, Shape, SweepStats};
use crate::step::StepStats;
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
