//! The templates of the constraint-group entry points (3D): the groups'
//! substeps, sweeps, builders and stepping (`GROUPS`) and their colored
//! solving (`COLORED_GROUPS`), filled per precision by [`crate::generate`].

/// The constraint-group entry points (3D), per precision.
pub(crate) const GROUPS: &str = r#"
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
/// `INVALID_REST_VALUE` (a particle to be tethered whose squared distance
/// to its nearest anchor overflows: its `max_distance` would be infinite,
/// which `xpbd_system3_begin_substep_groups{S}` refuses),
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
pub unsafe extern "C" fn xpbd_build_tet_block3{S}(
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
pub unsafe extern "C" fn xpbd_build_mesh_volume3{S}(
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
/// `xpbd_build_mesh_volume3{S}` needs). `*out_particle_count` and
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
pub unsafe extern "C" fn xpbd_build_icosphere3{S}(
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

/// Writes one link per distinct edge of a 3D {T} triangle mesh (any mesh:
/// open or closed, any orientation): `triangles` holds 3·triangle_count
/// particle indices into `positions` (m; 3·particle_count values, x0, y0,
/// z0, x1, …). Each link `(i, j)` has `i < j`, its rest length (m) from
/// the positions, the given `compliance` (m/N) and λ = 0; the links come
/// out sorted by `(i, j)`, at most 3·triangle_count of them. `scratch`
/// (`scratch_count` ≥ 3·triangle_count entries of 3 `uint32_t`) holds the
/// edge keys; its contents after are unspecified. `*out_count` receives
/// the number written (Rust `links_for_triangles`).
///
/// Sizes: on `CAPACITY_TOO_SMALL` `*out_count` receives the entries needed
/// and nothing else is written: 3·triangle_count when `scratch` is short
/// (checked first), else the link count; so a call with `out` NULL and
/// `capacity` 0 asks the link count.
///
/// Errors, with nothing written (but the scratch, and the count above):
/// `NULL_POINTER`, `ALIASED_BUFFERS` (any two buffers overlap),
/// `INVALID_ARGUMENT` (more than 2^32 − 1 particles or triangles, a
/// misaligned buffer), then in this order `INVALID_COMPLIANCE` (NaN,
/// infinite or negative), `INDEX_OUT_OF_RANGE` / `SAME_PARTICLE` (the
/// first triangle with an index ≥ `particle_count` or one twice),
/// `NON_FINITE_POSITION`, `CAPACITY_TOO_SMALL` (scratch),
/// `INVALID_REST_LENGTH` (two corners of a triangle coincide),
/// `CAPACITY_TOO_SMALL` (`out`).
///
/// # Safety
/// `positions` valid for 3·particle_count values, `triangles` for
/// 3·triangle_count indices, `scratch` for 3·scratch_count, `out` for
/// `capacity` links, `out_count` for one `size_t`.
#[no_mangle]
pub unsafe extern "C" fn xpbd_build_links_from_triangles3{S}(
    positions: *const {T},
    particle_count: usize,
    triangles: *const u32,
    triangle_count: usize,
    compliance: {T},
    scratch: *mut u32,
    scratch_count: usize,
    out: *mut Link<{T}>,
    capacity: usize,
    out_count: *mut usize,
) -> XpbdStatus {
    // SAFETY: forwarded caller contract (see the function's Safety section).
    unsafe { build_links_from_triangles_raw(positions, particle_count, triangles, triangle_count, compliance, scratch, scratch_count, out, capacity, out_count) }
}

/// Writes one dihedral bend per edge shared by exactly two triangles of a
/// 3D {T} triangle mesh (`triangles`: 3·triangle_count particle indices
/// into `positions`, m, 3·particle_count values): for an edge met first
/// as `u → v` in triangle `(u, v, s)` and again in a triangle with third
/// corner `z`, the bend `[u, v, s, z]`, its rest angle (rad) from the
/// positions, the given `compliance` (rad²/J), λ = 0; sorted by the edge's
/// `(min, max)` indices, at most 3·triangle_count/2 bends. Boundary edges
/// get none; the triangles' orientations need not agree. `scratch`
/// (`scratch_count` ≥ 3·triangle_count entries of 3 `uint32_t`) holds the
/// edge keys; its contents after are unspecified. `*out_count` receives
/// the number written (Rust `bends_for_triangles`).
///
/// Sizes: as `xpbd_build_links_from_triangles3{S}` (`*out_count` the
/// entries needed on `CAPACITY_TOO_SMALL`; `out` NULL with `capacity` 0
/// asks the bend count).
///
/// Errors, with nothing written (but the scratch, and that count):
/// `NULL_POINTER`, `ALIASED_BUFFERS`, `INVALID_ARGUMENT` (more than
/// 2^32 − 1 particles or triangles, a misaligned buffer, and after the
/// scratch check an edge of three or more triangles or a triangle listed
/// twice), `INVALID_COMPLIANCE`, `INDEX_OUT_OF_RANGE` / `SAME_PARTICLE`
/// (the first bad triangle), `NON_FINITE_POSITION`, `CAPACITY_TOO_SMALL`
/// (scratch), `DEGENERATE` (a bend with a triangle of no area),
/// `CAPACITY_TOO_SMALL` (`out`).
///
/// # Safety
/// `positions` valid for 3·particle_count values, `triangles` for
/// 3·triangle_count indices, `scratch` for 3·scratch_count, `out` for
/// `capacity` bends, `out_count` for one `size_t`.
#[no_mangle]
pub unsafe extern "C" fn xpbd_build_bends_from_triangles3{S}(
    positions: *const {T},
    particle_count: usize,
    triangles: *const u32,
    triangle_count: usize,
    compliance: {T},
    scratch: *mut u32,
    scratch_count: usize,
    out: *mut Bend<{T}>,
    capacity: usize,
    out_count: *mut usize,
) -> XpbdStatus {
    // SAFETY: forwarded caller contract (see the function's Safety section).
    unsafe { build_bends_from_triangles_raw(positions, particle_count, triangles, triangle_count, compliance, scratch, scratch_count, out, capacity, out_count) }
}

/// Writes one link per distinct edge of a 3D {T} tet mesh: `tets` holds
/// 4·tet_count particle indices into `positions` (m; 3·particle_count
/// values). As `xpbd_build_links_from_triangles3{S}` with 6 edges per tet:
/// `i < j`, sorted by `(i, j)`, rest lengths (m) from the positions, the
/// given `compliance` (m/N), λ = 0, at most 6·tet_count links; `scratch`
/// ≥ 6·tet_count entries of 3 `uint32_t`. For the tets of
/// `xpbd_build_tet_block3{S}` these are the block's edges, each once.
/// `*out_count` receives the number written (Rust `links_for_tets`).
///
/// Sizes and errors: as `xpbd_build_links_from_triangles3{S}`, naming tets
/// (the scratch needs 6·tet_count entries).
///
/// # Safety
/// `positions` valid for 3·particle_count values, `tets` for 4·tet_count
/// indices, `scratch` for 3·scratch_count, `out` for `capacity` links,
/// `out_count` for one `size_t`.
#[no_mangle]
pub unsafe extern "C" fn xpbd_build_links_from_tets3{S}(
    positions: *const {T},
    particle_count: usize,
    tets: *const u32,
    tet_count: usize,
    compliance: {T},
    scratch: *mut u32,
    scratch_count: usize,
    out: *mut Link<{T}>,
    capacity: usize,
    out_count: *mut usize,
) -> XpbdStatus {
    // SAFETY: forwarded caller contract (see the function's Safety section).
    unsafe { build_links_from_tets_raw(positions, particle_count, tets, tet_count, compliance, scratch, scratch_count, out, capacity, out_count) }
}

/// Writes one tet volume constraint per tet of a 3D {T} tet mesh, in
/// order: `tets` holds 4·tet_count particle indices into `positions` (m;
/// 3·particle_count values), kept as listed; each rest volume is the
/// signed volume (m³) at the positions (negative for a tet listed with the
/// other orientation, which the constraint then holds), the given
/// `compliance` (m⁶/J), λ = 0. `*out_count` receives `tet_count` (Rust
/// `tets_for_mesh`).
///
/// Errors, with nothing written but `*out_count` = `tet_count` on
/// `CAPACITY_TOO_SMALL`: `NULL_POINTER`, `ALIASED_BUFFERS`,
/// `INVALID_ARGUMENT` (more than 2^32 − 1 particles or tets, a misaligned
/// buffer), then in this order `INVALID_COMPLIANCE`, `INDEX_OUT_OF_RANGE`
/// / `SAME_PARTICLE` (the first bad tet), `NON_FINITE_POSITION`,
/// `INVALID_REST_VALUE` (a flat tet: volume 0, or one that overflows),
/// `CAPACITY_TOO_SMALL`.
///
/// # Safety
/// `positions` valid for 3·particle_count values, `tets` for 4·tet_count
/// indices, `out` for `capacity` tets, `out_count` for one `size_t`.
#[no_mangle]
pub unsafe extern "C" fn xpbd_build_tets3{S}(
    positions: *const {T},
    particle_count: usize,
    tets: *const u32,
    tet_count: usize,
    compliance: {T},
    out: *mut Tet<{T}>,
    capacity: usize,
    out_count: *mut usize,
) -> XpbdStatus {
    // SAFETY: forwarded caller contract (see the function's Safety section).
    unsafe { build_tets_raw(positions, particle_count, tets, tet_count, compliance, out, capacity, out_count) }
}
"#;

/// The colored group entry points (3D).
pub(crate) const COLORED_GROUPS: &str = r#"
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
    unsafe { color_group_raw(groups, group, None, particle_count, scratch, colors, out_color_count, out_error_index) }
}

/// Greedy coloring of one group of `*groups` ({C}) over the moving
/// particles, for `xpbd_world3_step_colored{S}`: as `xpbd_color_group{S}`
/// (`group` is `XPBD_GROUP_BENDS`, `XPBD_GROUP_TETS` or
/// `XPBD_GROUP_TETHERS`; links: `xpbd_color_greedy_moving{S}`, the same
/// pass), except that a particle whose inverse mass is exactly 0 is static
/// (no kernel of the colored step writes it) and no conflict, so instances
/// that share only static particles may take one color: 100 tethers to one
/// pinned anchor take 1 color, where `xpbd_color_group{S}` needs more than
/// 64 and refuses. `inverse_masses`: `particle_count` values in 1/kg (the
/// world's); `scratch`: `particle_count` `uint64_t`; `colors`: the group's
/// count of entries (`colors[k]` the color of instance k);
/// `*out_color_count` the number of colors (at most 64). Put the group in
/// colored order with `xpbd_color_order` and the permutation it writes.
///
/// Such a coloring is proper for `xpbd_world3_step_colored{S}` while those
/// particles keep inverse mass 0 (its coloring check ignores them). The
/// colored group system (`xpbd_system3_begin_substep_colored{S}`) and
/// `XpbdSimdLinks3` refuse a particle twice in a color even when static:
/// color for them with `xpbd_color_group{S}`.
///
/// Errors, with nothing but the scratch written: `NULL_POINTER` (NULL
/// `groups` or `out_color_count`, or an array NULL with a non-zero count:
/// `inverse_masses` with `particle_count > 0`), `ALIASED_BUFFERS`,
/// `INVALID_ARGUMENT` (another group code, scratch shorter than the
/// particles, more than 64 colors, a misaligned buffer),
/// `INDEX_OUT_OF_RANGE` and `SAME_PARTICLE` naming the instance (its
/// position in the group) in `*out_error_index` (may be NULL).
///
/// # Safety
/// `groups` NULL or valid with valid arrays; `inverse_masses` valid for
/// `particle_count` reads, `scratch` for `particle_count` values, `colors`
/// for the group's count, `out_color_count` and `out_error_index` NULL or
/// valid.
#[no_mangle]
pub unsafe extern "C" fn xpbd_color_group_moving{S}(
    groups: *const ConstraintsC<{T}>,
    group: i32,
    inverse_masses: *const {T},
    particle_count: usize,
    scratch: *mut u64,
    colors: *mut u32,
    out_color_count: *mut u32,
    out_error_index: *mut usize,
) -> XpbdStatus {
    // SAFETY: forwarded caller contract (see the function's Safety section).
    unsafe { color_group_raw(groups, group, Some(inverse_masses), particle_count, scratch, colors, out_color_count, out_error_index) }
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
/// `*colors`, checked on every call), then each mesh volume, then each
/// attachment (at its `target`); on one thread. Without an error the
/// result is bit-identical to
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
/// (`XPBD_GROUP_LINKS`, `_BENDS`, `_TETS`, `_TETHERS`, `_MESHES`, whose
/// color `c` is mesh volume `c`, or `_ATTACHMENTS`, whose color `c` is
/// attachment `c`, solved at its `target`) of a 3D {C} system begun with
/// `xpbd_system3_begin_substep_colored{S}`: the color split on 64-entry
/// boundaries (`xpbd_job_range`). Thread-safe between jobs of one color:
/// reads the three structs only, writes this range's particles and λ,
/// `*out_stats` (may be NULL) on success and `*out_error_index` (may be
/// NULL) on an error. One iteration: every color of the links, then of the
/// bends, tets and tethers, then every mesh color, then every attachment
/// color, all jobs of a color finished before the next starts.
/// Bit-identical to
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
