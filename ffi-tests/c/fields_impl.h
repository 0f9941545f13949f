/* The field colliders' C test of one precision, included twice by
 * test_fields.c: once with T = double, once with T = float. Before each
 * inclusion test_fields.c defines
 *   T        the float type
 *   TY(n)    the C type name n of that precision (XpbdWorld3 -> XpbdWorld3F32)
 *   FN(n)    the function name n of that precision (xpbd_world3_step -> _f32)
 *   LIT(x)   the literal x in T (0.5 -> 0.5f)
 *   TOL      the surface tolerance (m) of the checks */

/* The scene (FIELDS_N particles, see test_fields.c): a 3 × 3 cloth over a
 * heightfield, free particles over a signed distance field, everything
 * falling at 10 m/s; a far plane (collider 0) and a far sphere (collider
 * 1) before the fields: the heightfield is collider 2, the SDF 3. */
typedef struct {
    T x[FIELDS_N][3], v[FIELDS_N][3], w[FIELDS_N];
    TY(XpbdLink) links[FIELDS_LINKS];
    TY(XpbdPlane3) plane;
    TY(XpbdSphere3) sphere;
    TY(XpbdHeightfield3) heightfield;
    TY(XpbdSdf3) sdf;
    T samples[FIELDS_SAMPLES];
    TY(XpbdWorld3) world;
    TY(XpbdColliders3) colliders;
    TY(XpbdStepConfig3) config;
} FN(FieldsScene);

/* Builds the scene: its particles, links, colliders, world (memory sized)
 * and configuration (the default with 1 substep). Returns a status. */
static int32_t FN(fields_scene)(FN(FieldsScene) *s) {
    size_t count = 0;
    int i, j, k;
    int32_t status;
    memset(s, 0, sizeof *s);
    /* The cloth: 3 × 3, 0.2 m apart, 1 m up; the free particles 1.5 m up,
     * over the sphere's top and 5 cm beside it. */
    for (k = 0; k < FIELDS_CLOTH; ++k) {
        s->x[k][0] = LIT(0.2) * (T)(k % 3) - LIT(0.2);
        s->x[k][1] = LIT(1.0);
        s->x[k][2] = LIT(0.2) * (T)(k / 3) - LIT(0.2);
    }
    for (k = FIELDS_CLOTH; k < FIELDS_N; ++k) {
        static const double beside[FIELDS_N - FIELDS_CLOTH][2] = {
            {0.0, 0.0}, {0.05, 0.0}, {-0.05, 0.0}, {0.0, 0.05}, {0.0, -0.05}};
        s->x[k][0] = LIT(4.0) + (T)beside[k - FIELDS_CLOTH][0];
        s->x[k][1] = LIT(1.5);
        s->x[k][2] = (T)beside[k - FIELDS_CLOTH][1];
    }
    for (k = 0; k < FIELDS_N; ++k) {
        s->v[k][1] = LIT(-10.0);
        s->w[k] = LIT(1.0);
    }
    status = FN(xpbd_build_cloth3)(&s->x[0][0], 3, 3, 0, LIT(1e-6), s->links, FIELDS_LINKS, &count);
    if (status != XPBD_STATUS_OK) return status;
    if (count != FIELDS_LINKS) return XPBD_STATUS_CAPACITY_TOO_SMALL;
    /* Far away: the plane y = -5 and a sphere 20 m down. */
    s->plane.normal[1] = LIT(1.0);
    s->plane.offset = LIT(-5.0);
    s->sphere.center[1] = LIT(-20.0);
    s->sphere.radius = LIT(1.0);
    /* The heightfield: 4 × 4 nodes 1 m apart over x, z in [-1.5, 1.5],
     * heights 0.1 i + 0.05 j (a tilted plane), samples 0 .. 15. */
    s->heightfield.axes[0][0] = LIT(1.0);
    s->heightfield.axes[1][1] = LIT(1.0);
    s->heightfield.axes[2][2] = LIT(1.0);
    s->heightfield.offset[0] = LIT(-1.5);
    s->heightfield.offset[2] = LIT(-1.5);
    s->heightfield.spacing[0] = LIT(1.0);
    s->heightfield.spacing[1] = LIT(1.0);
    s->heightfield.height_scale = LIT(1.0);
    s->heightfield.counts[0] = 4;
    s->heightfield.counts[1] = 4;
    s->heightfield.first = 0;
    s->heightfield.static_friction = LIT(0.6);
    s->heightfield.dynamic_friction = LIT(0.5);
    for (j = 0; j < 4; ++j) {
        for (i = 0; i < 4; ++i) s->samples[j * 4 + i] = LIT(0.1) * (T)i + LIT(0.05) * (T)j;
    }
    /* The signed distance field: a sphere of radius 0.5 about its local
     * origin, which is at (4, 0.5, 0); 8³ nodes 0.25 m apart from
     * (-0.875, -0.875, -0.875), samples 16 .. 527. */
    s->sdf.center[0] = LIT(4.0);
    s->sdf.center[1] = LIT(0.5);
    s->sdf.axes[0][0] = LIT(1.0);
    s->sdf.axes[1][1] = LIT(1.0);
    s->sdf.axes[2][2] = LIT(1.0);
    s->sdf.offset[0] = LIT(-0.875);
    s->sdf.offset[1] = LIT(-0.875);
    s->sdf.offset[2] = LIT(-0.875);
    s->sdf.cell = LIT(0.25);
    s->sdf.counts[0] = FIELDS_SDF_N;
    s->sdf.counts[1] = FIELDS_SDF_N;
    s->sdf.counts[2] = FIELDS_SDF_N;
    s->sdf.first = FIELDS_HF_SAMPLES;
    s->sdf.static_friction = LIT(0.6);
    s->sdf.dynamic_friction = LIT(0.5);
    for (k = 0; k < FIELDS_SDF_N; ++k) {
        for (j = 0; j < FIELDS_SDF_N; ++j) {
            for (i = 0; i < FIELDS_SDF_N; ++i) {
                T p0 = s->sdf.offset[0] + s->sdf.cell * (T)i;
                T p1 = s->sdf.offset[1] + s->sdf.cell * (T)j;
                T p2 = s->sdf.offset[2] + s->sdf.cell * (T)k;
                T d2 = p0 * p0 + p1 * p1 + p2 * p2;
                s->samples[FIELDS_HF_SAMPLES + i + FIELDS_SDF_N * (j + FIELDS_SDF_N * k)] =
                    (T)sqrt((double)d2) - LIT(0.5);
            }
        }
    }
    s->world = FN(xpbd_world3_default)();
    s->world.positions = s->x;
    s->world.velocities = s->v;
    s->world.inverse_masses = s->w;
    s->world.particle_count = FIELDS_N;
    s->world.links = s->links;
    s->world.link_count = FIELDS_LINKS;
    s->colliders = FN(xpbd_colliders3_default)();
    s->colliders.planes = &s->plane;
    s->colliders.plane_count = 1;
    s->colliders.spheres = &s->sphere;
    s->colliders.sphere_count = 1;
    s->colliders.heightfields = &s->heightfield;
    s->colliders.heightfield_count = 1;
    s->colliders.sdfs = &s->sdf;
    s->colliders.sdf_count = 1;
    s->colliders.samples = s->samples;
    s->colliders.sample_count = FIELDS_SAMPLES;
    s->config = FN(xpbd_step_config3_default)();
    s->config.substeps = 1;
    status = FN(xpbd_world3_add)(&s->world, &s->colliders.block);
    if (status != XPBD_STATUS_OK) return status;
    return FN(test_world3_memory)(&s->world);
}

/* The scene run for `frames` frames of 1/60 s; its positions and
 * velocities (FIELDS_N × 3 each) written out on success. Compared bit for
 * bit with the Rust `step` by ffi-tests/tests/step_trajectory/fields.rs. */
int32_t FN(xpbd_c_fields_scenario)(int frames, T *out_x, T *out_v);
int32_t FN(xpbd_c_fields_scenario)(int frames, T *out_x, T *out_v) {
    static FN(FieldsScene) s;
    int f;
    int32_t status = FN(fields_scene)(&s);
    for (f = 0; f < frames && status == XPBD_STATUS_OK; ++f) {
        status = FN(xpbd_world3_step)(&s.world, LIT(1.0) / LIT(60.0), &s.config, NULL);
    }
    FN(test_world3_free)(&s.world);
    if (status != XPBD_STATUS_OK) return status;
    memcpy(out_x, s.x, sizeof s.x);
    memcpy(out_v, s.v, sizeof s.v);
    return XPBD_STATUS_OK;
}

/* The heightfield's signed distance of particle k (m, along the tilted
 * plane's normal), and whether the particle is over its footprint. */
static double FN(fields_height_distance)(const FN(FieldsScene) *s, int k, int *over) {
    double x = (double)s->x[k][0], y = (double)s->x[k][1], z = (double)s->x[k][2];
    double surface = 0.1 * (x + 1.5) + 0.05 * (z + 1.5);
    *over = x >= -1.5 && x <= 1.5 && z >= -1.5 && z <= 1.5;
    return (y - surface) / sqrt(1.0 + 0.1 * 0.1 + 0.05 * 0.05);
}

/* The SDF's interpolated distance at particle k (m): the trilinear
 * interpolation of the samples at the point clamped into the grid, plus
 * the distance to the grid (the library's φ). */
static double FN(fields_sdf_distance)(const FN(FieldsScene) *s, int k) {
    double u[3], t[3], phi = 0.0, out2 = 0.0;
    int node[3], d, corner;
    for (d = 0; d < 3; ++d) {
        double q = (double)s->x[k][d] - (double)s->sdf.center[d] - (double)s->sdf.offset[d];
        double top = (double)(FIELDS_SDF_N - 1) * (double)s->sdf.cell;
        double c = q < 0.0 ? 0.0 : (q > top ? top : q);
        out2 += (q - c) * (q - c);
        u[d] = c / (double)s->sdf.cell;
        node[d] = (int)floor(u[d]);
        if (node[d] > FIELDS_SDF_N - 2) node[d] = FIELDS_SDF_N - 2;
        t[d] = u[d] - (double)node[d];
    }
    for (corner = 0; corner < 8; ++corner) {
        double weight = 1.0;
        int at[3];
        for (d = 0; d < 3; ++d) {
            int up = (corner >> d) & 1;
            at[d] = node[d] + up;
            weight *= up ? t[d] : 1.0 - t[d];
        }
        phi += weight * (double)s->samples[FIELDS_HF_SAMPLES + at[0] +
                                           FIELDS_SDF_N * (at[1] + FIELDS_SDF_N * at[2])];
    }
    return phi + sqrt(out2);
}

/* A refused step: the status and error index, nothing written. */
static void FN(fields_refused)(FN(FieldsScene) *s, int32_t want, size_t index, int line) {
    T x0[FIELDS_N][3], v0[FIELDS_N][3];
    TY(XpbdStepStats) stats, stats0;
    int32_t got;
    memcpy(x0, s->x, sizeof x0);
    memcpy(v0, s->v, sizeof v0);
    memset(&stats, 0x5a, sizeof stats);
    memcpy(&stats0, &stats, sizeof stats);
    got = FN(xpbd_world3_step)(&s->world, LIT(1.0) / LIT(60.0), &s->config, &stats);
    if (got != want || (want == XPBD_STATUS_INVALID_COLLIDER && s->world.error_index != index)) {
        fprintf(stderr, "test_fields.c (line %d): status %d index %zu, expected %d index %zu\n", line,
                (int)got, s->world.error_index, (int)want, index);
    }
    ENSURE_STATUS(got, want);
    if (want == XPBD_STATUS_INVALID_COLLIDER) ENSURE(s->world.error_index == index);
    ENSURE(memcmp(s->x, x0, sizeof x0) == 0 && memcmp(s->v, v0, sizeof v0) == 0);
    ENSURE(memcmp(&stats, &stats0, sizeof stats) == 0);
}

static void FN(test_fields_of)(void) {
    static FN(FieldsScene) s;
    TY(XpbdStepStats) stats;
    XpbdRequirements req;
    double r;
    int f, k, over, deepest_ok = 1, rest_ok = 1, tunnel_ok = 1;
    T saved;
    size_t saved_first;
    ENSURE_STATUS(FN(fields_scene)(&s), XPBD_STATUS_OK);
    r = (double)s.config.particle_radius;
    /* The fields count as colliders: the default contact capacity is
     * particles × (plane + sphere + heightfield + SDF). */
    ENSURE_STATUS(FN(xpbd_world3_requirements)(&s.world, &req), XPBD_STATUS_OK);
    ENSURE(req.contacts == (size_t)FIELDS_N * 4);

    /* 10 m/s onto both fields with one substep per frame: nothing passes
     * through; after a second everything rests on its surface. */
    for (f = 0; f < 60; ++f) {
        ENSURE_STATUS(FN(xpbd_world3_step)(&s.world, LIT(1.0) / LIT(60.0), &s.config, &stats), XPBD_STATUS_OK);
        for (k = 0; k < FIELDS_CLOTH; ++k) {
            double d = FN(fields_height_distance)(&s, k, &over);
            if (over && d < r - TOL) tunnel_ok = 0;
        }
        for (k = FIELDS_CLOTH; k < FIELDS_N; ++k) {
            if (FN(fields_sdf_distance)(&s, k) < r - TOL) tunnel_ok = 0;
        }
    }
    ENSURE(tunnel_ok);
    for (k = 0; k < FIELDS_CLOTH; ++k) {
        double d = FN(fields_height_distance)(&s, k, &over);
        ENSURE(over);
        if (d < r - TOL) deepest_ok = 0;
        if (d > r + 1e-3 || fabs((double)s.v[k][1]) > 1e-2) rest_ok = 0;
    }
    for (k = FIELDS_CLOTH; k < FIELDS_N; ++k) {
        double d = FN(fields_sdf_distance)(&s, k);
        if (d < r - TOL) deepest_ok = 0;
        if (d > r + 1e-3) rest_ok = 0;
    }
    ENSURE(deepest_ok);
    ENSURE(rest_ok);
    ENSURE(stats.max_contacts > 0);

    /* Bad fields are refused naming the field's collider index (after the
     * plane and the sphere: the heightfield is 2, the SDF 3), with
     * nothing written. */
    saved = s.samples[5];
    s.samples[5] = (T)NAN;
    FN(fields_refused)(&s, XPBD_STATUS_INVALID_COLLIDER, 2, __LINE__);
    s.samples[5] = saved;
    saved = s.samples[FIELDS_SAMPLES - 1];
    s.samples[FIELDS_SAMPLES - 1] = (T)INFINITY;
    FN(fields_refused)(&s, XPBD_STATUS_INVALID_COLLIDER, 3, __LINE__);
    s.samples[FIELDS_SAMPLES - 1] = saved;
    /* Sample ranges past sample_count. */
    saved_first = s.heightfield.first;
    s.heightfield.first = FIELDS_SAMPLES - 15;
    FN(fields_refused)(&s, XPBD_STATUS_INVALID_COLLIDER, 2, __LINE__);
    s.heightfield.first = (size_t)-1;
    FN(fields_refused)(&s, XPBD_STATUS_INVALID_COLLIDER, 2, __LINE__);
    s.heightfield.first = saved_first;
    saved_first = s.sdf.first;
    s.sdf.first = FIELDS_HF_SAMPLES + 1;
    FN(fields_refused)(&s, XPBD_STATUS_INVALID_COLLIDER, 3, __LINE__);
    s.sdf.first = saved_first;
    s.colliders.sample_count = FIELDS_SAMPLES - 1;
    FN(fields_refused)(&s, XPBD_STATUS_INVALID_COLLIDER, 3, __LINE__);
    s.colliders.sample_count = FIELDS_HF_SAMPLES - 1;
    FN(fields_refused)(&s, XPBD_STATUS_INVALID_COLLIDER, 2, __LINE__);
    s.colliders.sample_count = FIELDS_SAMPLES;
    /* Bad shapes and poses. */
    s.heightfield.counts[1] = 1;
    FN(fields_refused)(&s, XPBD_STATUS_INVALID_COLLIDER, 2, __LINE__);
    s.heightfield.counts[1] = 4;
    s.heightfield.spacing[0] = LIT(0.0);
    FN(fields_refused)(&s, XPBD_STATUS_INVALID_COLLIDER, 2, __LINE__);
    s.heightfield.spacing[0] = LIT(1.0);
    s.sdf.cell = LIT(-0.25);
    FN(fields_refused)(&s, XPBD_STATUS_INVALID_COLLIDER, 3, __LINE__);
    s.sdf.cell = LIT(0.25);
    s.sdf.axes[0][1] = LIT(0.1);
    FN(fields_refused)(&s, XPBD_STATUS_INVALID_COLLIDER, 3, __LINE__);
    s.sdf.axes[0][1] = LIT(0.0);
    s.sdf.velocity[2] = (T)NAN;
    FN(fields_refused)(&s, XPBD_STATUS_INVALID_COLLIDER, 3, __LINE__);
    s.sdf.velocity[2] = LIT(0.0);
    s.sdf.counts[2] = 1;
    FN(fields_refused)(&s, XPBD_STATUS_INVALID_COLLIDER, 3, __LINE__);
    s.sdf.counts[2] = FIELDS_SDF_N;
    /* The arrays themselves: NULL with a count, aliased with the
     * positions. */
    s.colliders.samples = NULL;
    FN(fields_refused)(&s, XPBD_STATUS_NULL_POINTER, 0, __LINE__);
    s.colliders.samples = &s.x[0][0];
    s.colliders.sample_count = FIELDS_N * 3;
    FN(fields_refused)(&s, XPBD_STATUS_ALIASED_BUFFERS, 0, __LINE__);
    s.colliders.samples = s.samples;
    s.colliders.sample_count = FIELDS_SAMPLES;
    s.colliders.sdfs = NULL;
    FN(fields_refused)(&s, XPBD_STATUS_NULL_POINTER, 0, __LINE__);
    s.colliders.sdfs = &s.sdf;
    s.colliders.heightfields = NULL;
    FN(fields_refused)(&s, XPBD_STATUS_NULL_POINTER, 0, __LINE__);
    s.colliders.heightfields = &s.heightfield;
    /* Restored: the world steps again. */
    ENSURE_STATUS(FN(xpbd_world3_step)(&s.world, LIT(1.0) / LIT(60.0), &s.config, NULL), XPBD_STATUS_OK);
    FN(test_world3_free)(&s.world);
}
