/* Skinned constraints (issue 35: max distance and backstop) through
 * xpbd_world3_step[_f32] with a groups block (XpbdGroups3): a particle
 * falling from its skinned point stays within its max distance of the
 * moving point after every frame, another rests on its backstop sphere,
 * `previous ← target` after a frame, the configuration's scale 0 pins,
 * and rejected inputs (NaN normal, missing normal, negative radius, an
 * index out of range, a bad scale, an aliased array) are named with
 * nothing written. */
#include <math.h>
#include <stddef.h>

#include "ensure.h"

#define SN 3

/* Two arrays of skinned constraints equal, byte for byte past the
 * padding after `particle` (a struct returned by value leaves it
 * undefined: valgrind reads it as uninitialised). */
static int skin_same(const XpbdSkinConstraint *a, const XpbdSkinConstraint *b, int n) {
    int k;
    const size_t at = offsetof(XpbdSkinConstraint, previous);
    for (k = 0; k < n; ++k) {
        if (a[k].particle != b[k].particle) return 0;
        if (memcmp((const char *)&a[k] + at, (const char *)&b[k] + at, sizeof a[k] - at) != 0) return 0;
    }
    return 1;
}

static double dist3(const double a[3], const double b[3]) {
    double dx = a[0] - b[0], dy = a[1] - b[1], dz = a[2] - b[2];
    return sqrt(dx * dx + dy * dy + dz * dz);
}

void test_skin(void) {
    static double x[SN][3], v[SN][3], w[SN], x0[SN][3], v0[SN][3];
    XpbdLink links[1];
    XpbdSkinConstraint s[2], s0[2];
    XpbdWorld3 world = xpbd_world3_default();
    XpbdGroups3 groups = xpbd_groups3_default();
    XpbdConstraints3 *g = &groups.groups;
    XpbdStepConfig3 config = test_bare_config3(); /* g = (0, -9.81, 0) */
    double centre[3];
    int f;
    memset(x, 0, sizeof x);
    memset(v, 0, sizeof v);
    /* 0: pinned far away, linked to nothing that moves; 1: skinned at
     * the origin within 5 cm; 2: on a backstop sphere of radius 0.5 m,
     * its surface 1 cm under the skinned point (0, 1, 0). */
    x[0][0] = 5.0;
    x[2][1] = 1.0;
    w[0] = 0.0; w[1] = 1.0; w[2] = 2.0;
    links[0].i = 0; links[0].j = 1; links[0].rest = 1.0; links[0].compliance = 0.0;
    links[0].lambda = 0.0; links[0].flags = XPBD_LINK_DISABLED;
    s[0] = xpbd_skin_constraint_default(1, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0);
    ENSURE(isinf(s[0].max_distance) && s[0].max_distance > 0.0 && s[0].backstop_radius == 0.0);
    s[0].max_distance = 0.05;
    s[1] = xpbd_skin_constraint_default(2, 0.0, 1.0, 0.0, 0.0, 2.0, 0.0);
    s[1].backstop_distance = 0.01;
    s[1].backstop_radius = 0.5;
    world.positions = x; world.velocities = v; world.inverse_masses = w; world.particle_count = SN;
    world.links = links; world.link_count = 1;
    g->skin_constraints = s;
    g->skin_constraint_count = 2;
    ENSURE_STATUS(xpbd_world3_add(&world, &groups.block), XPBD_STATUS_OK);
    ENSURE_STATUS(test_world3_memory(&world), XPBD_STATUS_OK);
    config.substeps = 8;
    for (f = 0; f < 60; ++f) {
        /* The skinned point of particle 1 runs along x at 3 m/s. */
        s[0].target[0] = 0.05 * (f + 1);
        ENSURE_STATUS(xpbd_world3_step(&world, 1.0 / 60.0, &config, NULL), XPBD_STATUS_OK);
        ENSURE(dist3(x[1], s[0].target) <= 0.05 + 1e-9);
        ENSURE_BITS64(s[0].previous[0], s[0].target[0]);
        centre[0] = 0.0; centre[1] = 1.0 - 0.51; centre[2] = 0.0;
        ENSURE(dist3(x[2], centre) >= 0.5 - 1e-9);
    }
    /* Both act: the max distance pulls (λ < 0), the backstop pushes. */
    ENSURE(dist3(x[1], s[0].target) > 0.05 - 1e-9 && s[0].lambda[0] < 0.0);
    ENSURE(s[1].lambda[1] > 0.0 && fabs(x[2][1] - 0.99) < 1e-9);

    /* Scale 0: pinned to the skinned point. */
    config.max_distance_scale = 0.0;
    ENSURE_STATUS(xpbd_world3_step(&world, 1.0 / 60.0, &config, NULL), XPBD_STATUS_OK);
    ENSURE(dist3(x[1], s[0].target) < 1e-12);

    /* A bad scale: the configuration is refused, nothing written. */
    memcpy(x0, x, sizeof x);
    memcpy(v0, v, sizeof v);
    memcpy(s0, s, sizeof s);
    config.max_distance_scale = -1.0;
    ENSURE_STATUS(xpbd_world3_step(&world, 1.0 / 60.0, &config, NULL), XPBD_STATUS_INVALID_CONFIG);
    ENSURE(world.error_field == XPBD_FIELD_MAX_DISTANCE_SCALE);
    config.max_distance_scale = NAN;
    ENSURE_STATUS(xpbd_world3_step(&world, 1.0 / 60.0, &config, NULL), XPBD_STATUS_INVALID_CONFIG);
    ENSURE(memcmp(x, x0, sizeof x) == 0 && memcmp(v, v0, sizeof v) == 0 && skin_same(s, s0, 2));
    config.max_distance_scale = 1.0;

    /* Rejected instances: named after the one link (index 1 + k). */
    s[1].target_normal[1] = NAN;
    memcpy(s0, s, sizeof s);
    ENSURE_STATUS(xpbd_world3_step(&world, 1.0 / 60.0, &config, NULL), XPBD_STATUS_INVALID_REST_VALUE);
    ENSURE(world.error_index == 2);
    ENSURE(memcmp(x, x0, sizeof x) == 0 && memcmp(v, v0, sizeof v) == 0 && skin_same(s, s0, 2));
    s[1].target_normal[1] = 0.0; /* missing normal */
    memcpy(s0, s, sizeof s);
    ENSURE_STATUS(xpbd_world3_step(&world, 1.0 / 60.0, &config, NULL), XPBD_STATUS_INVALID_REST_VALUE);
    ENSURE(world.error_index == 2 && skin_same(s, s0, 2));
    s[1].target_normal[1] = 2.0;
    s[1].backstop_radius = -0.5;
    ENSURE_STATUS(xpbd_world3_step(&world, 1.0 / 60.0, &config, NULL), XPBD_STATUS_INVALID_REST_VALUE);
    s[1].backstop_radius = 0.5;
    s[0].particle = SN;
    memcpy(s0, s, sizeof s);
    ENSURE_STATUS(xpbd_world3_step(&world, 1.0 / 60.0, &config, NULL), XPBD_STATUS_INDEX_OUT_OF_RANGE);
    ENSURE(world.error_index == 1);
    ENSURE(memcmp(x, x0, sizeof x) == 0 && memcmp(v, v0, sizeof v) == 0 && skin_same(s, s0, 2));
    s[0].particle = 1;
    s[0].backstop_compliance = -1.0;
    ENSURE_STATUS(xpbd_world3_step(&world, 1.0 / 60.0, &config, NULL), XPBD_STATUS_INVALID_COMPLIANCE);
    s[0].backstop_compliance = 0.0;
    /* The array overlapping the velocities. */
    g->skin_constraints = (XpbdSkinConstraint *)(void *)v;
    g->skin_constraint_count = 1;
    ENSURE_STATUS(xpbd_world3_step(&world, 1.0 / 60.0, &config, NULL), XPBD_STATUS_ALIASED_BUFFERS);
    ENSURE(memcmp(x, x0, sizeof x) == 0 && memcmp(v, v0, sizeof v) == 0);
    g->skin_constraints = s;
    g->skin_constraint_count = 2;
    ENSURE_STATUS(xpbd_world3_step(&world, 1.0 / 60.0, &config, NULL), XPBD_STATUS_OK);
    test_world3_free(&world);

    /* Float, from the same code: a particle falling within 2 cm. */
    {
        float xf[1][3] = {{0.0f, 0.0f, 0.0f}}, vf[1][3] = {{0.0f, 0.0f, 0.0f}}, wf[1] = {1.0f};
        XpbdSkinConstraintF32 sf[1];
        XpbdWorld3F32 wd = xpbd_world3_default_f32();
        XpbdGroups3F32 gf = xpbd_groups3_default_f32();
        XpbdStepConfig3F32 cf = test_bare_config3_f32();
        sf[0] = xpbd_skin_constraint_default_f32(0, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f);
        sf[0].max_distance = 0.02f;
        wd.positions = xf; wd.velocities = vf; wd.inverse_masses = wf; wd.particle_count = 1;
        gf.groups.skin_constraints = sf;
        gf.groups.skin_constraint_count = 1;
        ENSURE_STATUS(xpbd_world3_add_f32(&wd, &gf.block), XPBD_STATUS_OK);
        ENSURE_STATUS(test_world3_memory_f32(&wd), XPBD_STATUS_OK);
        cf.substeps = 8;
        for (f = 0; f < 30; ++f) ENSURE_STATUS(xpbd_world3_step_f32(&wd, 1.0f / 60.0f, &cf, NULL), XPBD_STATUS_OK);
        ENSURE(fabs(xf[0][1] + 0.02f) < 1e-4 && sf[0].lambda[0] < 0.0f);
        test_world3_free_f32(&wd);
    }
}
