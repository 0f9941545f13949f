/* Constraint groups through the C ABI (issue 15): tethers built by
 * xpbd_build_tethers3 on a cloth from xpbd_build_cloth3, solved through
 * xpbd_system3_*_groups (λ reset by begin only, kept by iterate) and
 * stepped through xpbd_world3_step_groups; errors named after the links,
 * aliasing refused, nothing written on a rejected call; f64 and f32. */
#include "ensure.h"

#include <math.h>

enum { ROWS = 10, COLS = 10, N = ROWS * COLS, LINKS = ROWS * (COLS - 1) + (ROWS - 1) * COLS };

static const double SPACING = 0.05; /* m */

/* A ROWS × COLS cloth hanging in the x-y plane, row 0 on top and pinned. */
static void hanging_cloth(double x[N][3], double w[N]) {
    int k;
    for (k = 0; k < N; ++k) {
        x[k][0] = SPACING * (k % COLS);
        x[k][1] = -SPACING * (k / COLS);
        x[k][2] = 0.0;
        w[k] = k < COLS ? 0.0 : 100.0;
    }
}

static double dist(const double a[3], const double b[3]) {
    double dx = b[0] - a[0], dy = b[1] - a[1], dz = b[2] - a[2];
    return sqrt(dx * dx + dy * dy + dz * dz);
}

static XpbdConstraints3 tether_groups(XpbdTether *tethers, size_t count) {
    XpbdConstraints3 g;
    memset(&g, 0, sizeof g);
    g.tethers = tethers;
    g.tether_count = count;
    return g;
}

static void system_with_tethers(void) {
    static double x[N][3], w[N], x0[N][3];
    static XpbdLink links[LINKS];
    static XpbdTether tethers[N], saved[N];
    uint32_t anchors[COLS];
    size_t link_count = 0, tether_count = 0;
    XpbdSystem3 sys;
    XpbdConstraints3 g, bad;
    XpbdSweepStats stats;
    XpbdConvergence result;
    int k, pulling = 0, within = 1;

    hanging_cloth(x, w);
    for (k = 0; k < COLS; ++k) anchors[k] = (uint32_t)k;
    ENSURE(xpbd_cloth_link_count(ROWS, COLS, 0) == LINKS);
    ENSURE_STATUS(xpbd_build_cloth3(&x[0][0], ROWS, COLS, 0, 0.0, links, LINKS, &link_count), XPBD_STATUS_OK);
    ENSURE_STATUS(xpbd_build_tethers3(&x[0][0], w, N, anchors, COLS, 0.0, tethers, N, &tether_count), XPBD_STATUS_OK);
    ENSURE(tether_count == N - COLS);
    /* Each particle is tied to the pinned particle above it, at its rest distance. */
    ENSURE(tethers[0].particle == COLS && tethers[0].anchor == 0);
    ENSURE(tethers[N - COLS - 1].particle == N - 1 && tethers[N - COLS - 1].anchor == COLS - 1);
    ENSURE(fabs(tethers[N - COLS - 1].max_distance - SPACING * (ROWS - 1)) < 1e-12);

    /* Stretch the cloth: every free row 30 % further down. */
    for (k = COLS; k < N; ++k) x[k][1] *= 1.3;
    memset(&sys, 0, sizeof sys);
    sys.positions = x; sys.inverse_masses = w; sys.particle_count = N;
    sys.links = links; sys.link_count = link_count;
    sys.zero_length_policy = XPBD_ZERO_LENGTH_REJECT;
    g = tether_groups(tethers, tether_count);

    /* iterate before begin: refused, nothing written. */
    memcpy(x0, x, sizeof x);
    ENSURE_STATUS(xpbd_system3_iterate_groups(&sys, &g, NULL), XPBD_STATUS_NO_SUBSTEP);
    ENSURE(memcmp(x, x0, sizeof x) == 0);

    /* A stale λ is reset by begin. */
    tethers[3].lambda = -1.0;
    ENSURE_STATUS(xpbd_system3_begin_substep_groups(&sys, &g, 1.0 / 240.0), XPBD_STATUS_OK);
    ENSURE(sys.substep_active == 1);
    ENSURE_BITS64(tethers[3].lambda, 0.0);

    /* One sweep: links, then tethers; each tether moves only its own
     * particle, so after it every particle is within its radius. */
    ENSURE_STATUS(xpbd_system3_iterate_groups(&sys, &g, &stats), XPBD_STATUS_OK);
    ENSURE(stats.applied > 0);
    for (k = 0; k < (int)tether_count; ++k) {
        const XpbdTether *t = &tethers[k];
        if (dist(x[t->anchor], x[t->particle]) > t->max_distance + 1e-12) within = 0;
        if (t->lambda > 0.0) within = 0;
        if (t->lambda < 0.0) ++pulling;
    }
    ENSURE(within);
    ENSURE(pulling > 0);

    ENSURE_STATUS(xpbd_system3_iterate_until_groups(&sys, &g, 1e-9, 200, &result), XPBD_STATUS_OK);
    ENSURE(result.iterations >= 1);
    ENSURE(tethers[tether_count - 1].lambda < 0.0);
    ENSURE_STATUS(xpbd_system3_measure_groups(&sys, &g, &stats), XPBD_STATUS_OK);
    ENSURE_STATUS(xpbd_system3_measure_groups(&sys, &g, NULL), XPBD_STATUS_NULL_POINTER);

    /* Errors: named after the links, nothing written. */
    memcpy(x0, x, sizeof x);
    memcpy(saved, tethers, sizeof tethers);
    tethers[5].anchor = N; /* out of range */
    ENSURE_STATUS(xpbd_system3_begin_substep_groups(&sys, &g, 1.0 / 240.0), XPBD_STATUS_INDEX_OUT_OF_RANGE);
    ENSURE(sys.error_index == link_count + 5);
    ENSURE(sys.substep_active == 0);
    tethers[5] = saved[5];
    tethers[7].max_distance = -1.0;
    ENSURE_STATUS(xpbd_system3_begin_substep_groups(&sys, &g, 1.0 / 240.0), XPBD_STATUS_INVALID_REST_VALUE);
    ENSURE(sys.error_index == link_count + 7);
    tethers[7] = saved[7];
    ENSURE(memcmp(x, x0, sizeof x) == 0 && memcmp(tethers, saved, sizeof tethers) == 0);

    /* Aliasing: a tether array over the positions, an output over the tethers. */
    bad = g;
    bad.tethers = (XpbdTether *)(void *)x;
    bad.tether_count = 2;
    ENSURE_STATUS(xpbd_system3_begin_substep_groups(&sys, &bad, 1.0 / 240.0), XPBD_STATUS_ALIASED_BUFFERS);
    ENSURE_STATUS(xpbd_system3_begin_substep_groups(&sys, &g, 1.0 / 240.0), XPBD_STATUS_OK);
    memcpy(x0, x, sizeof x);
    memcpy(saved, tethers, sizeof tethers);
    ENSURE_STATUS(xpbd_system3_iterate_groups(&sys, &g, (XpbdSweepStats *)(void *)tethers),
                  XPBD_STATUS_ALIASED_BUFFERS);
    ENSURE_STATUS(xpbd_system3_iterate_groups(&sys, NULL, &stats), XPBD_STATUS_NULL_POINTER);
    ENSURE(memcmp(x, x0, sizeof x) == 0 && memcmp(tethers, saved, sizeof tethers) == 0);
}

/* The largest distance between a column's top and bottom particles over
 * its rest value, minus 1. */
static double height_stretch(double x[N][3]) {
    double worst = -1.0, rest = SPACING * (ROWS - 1);
    int c;
    for (c = 0; c < COLS; ++c) {
        double s = dist(x[c], x[(ROWS - 1) * COLS + c]) / rest - 1.0;
        if (s > worst) worst = s;
    }
    return worst;
}

/* A rigid cloth stepped 60 frames at 4 substeps × 1 iteration, with or
 * without tethers; returns the largest height stretch seen, or 10 on an
 * error. */
static double stepped_cloth(int with_tethers) {
    static double x[N][3], v[N][3], w[N], scratch[3 * N][3];
    static XpbdLink links[LINKS];
    static XpbdTether tethers[N];
    uint32_t anchors[COLS];
    size_t link_count = 0, tether_count = 0;
    XpbdWorld3 world;
    XpbdConstraints3 g;
    XpbdStepConfig3 config = xpbd_step_config3_default();
    XpbdStepStats stats;
    double worst = -1.0;
    int k, f;
    hanging_cloth(x, w);
    memset(v, 0, sizeof v);
    for (k = 0; k < COLS; ++k) anchors[k] = (uint32_t)k;
    if (xpbd_build_cloth3(&x[0][0], ROWS, COLS, 0, 0.0, links, LINKS, &link_count) != XPBD_STATUS_OK) return 10.0;
    if (with_tethers &&
        xpbd_build_tethers3(&x[0][0], w, N, anchors, COLS, 0.0, tethers, N, &tether_count) != XPBD_STATUS_OK) return 10.0;
    /* Tilt the cloth 0.01 rad about its top edge. */
    for (k = 0; k < N; ++k) {
        double y = x[k][1];
        x[k][1] = y * cos(0.01);
        x[k][2] = -y * sin(0.01);
    }
    memset(&world, 0, sizeof world);
    world.positions = x; world.velocities = v; world.inverse_masses = w; world.particle_count = N;
    world.links = links; world.link_count = link_count;
    world.scratch = scratch; world.scratch_count = xpbd_step_scratch_len(N);
    g = tether_groups(tethers, tether_count);
    config.substeps = 4;
    config.iterations = 1;
    for (f = 0; f < 60; ++f) {
        XpbdStatus s = with_tethers ? xpbd_world3_step_groups(&world, &g, 1.0 / 60.0, &config, &stats)
                                    : xpbd_world3_step(&world, 1.0 / 60.0, &config, &stats);
        double h;
        if (s != XPBD_STATUS_OK || stats.substeps != 4) return 10.0;
        h = height_stretch(x);
        if (h > worst) worst = h;
    }
    for (k = 0; k < (int)tether_count; ++k) {
        if (!(tethers[k].lambda <= 0.0)) return 10.0;
    }
    return worst;
}

static void world_with_tethers(void) {
    static double x[N][3], v[N][3], w[N], scratch[3 * N][3], x0[N][3], v0[N][3];
    static XpbdLink links[LINKS];
    static XpbdTether tethers[N];
    uint32_t anchors[1] = {0};
    size_t link_count = 0, tether_count = 0;
    XpbdWorld3 world;
    XpbdConstraints3 g, bad;
    XpbdStepConfig3 config = xpbd_step_config3_default();
    double with = stepped_cloth(1), without = stepped_cloth(0);
    printf("C groups: 10x10 rigid cloth, 4 substeps x 1 iteration, 60 frames: height stretch %.4f %% with tethers, %.4f %% without\n",
           100.0 * with, 100.0 * without);
    ENSURE(with < 0.01);
    ENSURE(without > with + 0.01);

    /* Errors: positions and velocities as before, the item named. */
    hanging_cloth(x, w);
    memset(v, 0, sizeof v);
    ENSURE_STATUS(xpbd_build_cloth3(&x[0][0], ROWS, COLS, 0, 0.0, links, LINKS, &link_count), XPBD_STATUS_OK);
    ENSURE_STATUS(xpbd_build_tethers3(&x[0][0], w, N, anchors, 1, 0.0, tethers, N, &tether_count), XPBD_STATUS_OK);
    memset(&world, 0, sizeof world);
    world.positions = x; world.velocities = v; world.inverse_masses = w; world.particle_count = N;
    world.links = links; world.link_count = link_count;
    world.scratch = scratch; world.scratch_count = xpbd_step_scratch_len(N);
    g = tether_groups(tethers, tether_count);
    memcpy(x0, x, sizeof x);
    memcpy(v0, v, sizeof v);
    ENSURE_STATUS(xpbd_world3_step_groups(&world, NULL, 1.0 / 60.0, &config, NULL), XPBD_STATUS_NULL_POINTER);
    tethers[2].compliance = -1.0;
    ENSURE_STATUS(xpbd_world3_step_groups(&world, &g, 1.0 / 60.0, &config, NULL), XPBD_STATUS_INVALID_COMPLIANCE);
    ENSURE(world.error_index == link_count + 2);
    tethers[2].compliance = 0.0;
    bad = g;
    bad.tethers = (XpbdTether *)(void *)scratch;
    ENSURE_STATUS(xpbd_world3_step_groups(&world, &bad, 1.0 / 60.0, &config, NULL), XPBD_STATUS_ALIASED_BUFFERS);
    ENSURE(memcmp(x, x0, sizeof x) == 0 && memcmp(v, v0, sizeof v) == 0);
    ENSURE_STATUS(xpbd_world3_step_groups(&world, &g, 1.0 / 60.0, &config, NULL), XPBD_STATUS_OK);
}

static void float_twins(void) {
    float x[3][3] = {{0.0f, 0.0f, 0.0f}, {0.0f, -0.5f, 0.0f}, {0.1f, -1.6f, 0.0f}};
    float v[3][3] = {{0.0f}}, scratch[9][3];
    const float w[3] = {0.0f, 1.0f, 1.0f};
    const uint32_t anchor = 0;
    XpbdLinkF32 links[1] = {{0, 1, 0.5f, 0.0f, 0.0f, 0}};
    XpbdTetherF32 tethers[2];
    size_t count = 0;
    XpbdSystem3F32 sys;
    XpbdConstraints3F32 g;
    XpbdSweepStatsF32 stats;
    XpbdConvergenceF32 result;
    XpbdWorld3F32 world;
    XpbdStepConfig3F32 config = xpbd_step_config3_default_f32();
    float first;
    ENSURE_STATUS(xpbd_build_tethers3_f32(&x[0][0], w, 3, &anchor, 1, 0.0f, tethers, 2, &count), XPBD_STATUS_OK);
    ENSURE(count == 2);
    tethers[1].max_distance = 1.0f; /* particle 2 is 1.6 m away */
    memset(&sys, 0, sizeof sys);
    sys.positions = x; sys.inverse_masses = w; sys.particle_count = 3;
    sys.links = links; sys.link_count = 1;
    memset(&g, 0, sizeof g);
    g.tethers = tethers; g.tether_count = 2;
    ENSURE_STATUS(xpbd_system3_iterate_groups_f32(&sys, &g, NULL), XPBD_STATUS_NO_SUBSTEP);
    ENSURE_STATUS(xpbd_system3_begin_substep_groups_f32(&sys, &g, 0.01f), XPBD_STATUS_OK);
    ENSURE_STATUS(xpbd_system3_iterate_groups_f32(&sys, &g, &stats), XPBD_STATUS_OK);
    first = tethers[1].lambda;
    ENSURE(first < -0.1f);
    ENSURE(fabsf(sqrtf(x[2][0] * x[2][0] + x[2][1] * x[2][1]) - 1.0f) < 1e-6f);
    /* Particle 2 is held by its tether alone, now at its radius: the next
     * sweep keeps λ (a reset would bring it back near 0). */
    ENSURE_STATUS(xpbd_system3_iterate_groups_f32(&sys, &g, &stats), XPBD_STATUS_OK);
    ENSURE(fabsf(tethers[1].lambda - first) <= 1e-5f * fabsf(first));
    ENSURE_STATUS(xpbd_system3_iterate_until_groups_f32(&sys, &g, 1e-6f, 4, &result), XPBD_STATUS_OK);
    ENSURE_STATUS(xpbd_system3_measure_groups_f32(&sys, &g, &stats), XPBD_STATUS_OK);
    memset(&world, 0, sizeof world);
    world.positions = x; world.velocities = v; world.inverse_masses = w; world.particle_count = 3;
    world.links = links; world.link_count = 1;
    world.scratch = scratch; world.scratch_count = 9;
    ENSURE_STATUS(xpbd_world3_step_groups_f32(&world, &g, 1.0f / 60.0f, &config, NULL), XPBD_STATUS_OK);
    ENSURE(sqrtf(x[2][0] * x[2][0] + x[2][1] * x[2][1]) <= 1.0f + 1e-6f);
}

void test_groups(void) {
    system_with_tethers();
    world_with_tethers();
    float_twins();
}
